// Type-checks against the installed package's declarations (tsc --strict).
import { MemoryController, fromModelMessages, durableObjectStorage, type ChatMessage, type Context } from "agent-memory";
import { runStorageAdapterTests, type StorageAdapterTestResult } from "agent-memory/testing";

export async function check(): Promise<[Context, StorageAdapterTestResult[]]> {
  const memory = await MemoryController.create({ model: "gpt-4o", workingMemory: { maxTokens: 1000 } });
  const msgs: ChatMessage[] = fromModelMessages([{ role: "user", content: [{ type: "text", text: "hi" }] }]);
  for (const m of msgs) await memory.add(m);
  void durableObjectStorage;
  const n: number = memory.countTokens("hello");
  void n;
  // @ts-expect-error: role is a closed set
  await memory.add({ role: "wizard", content: "x" });
  return [await memory.buildContext({ maxTokens: 500 }), await runStorageAdapterTests(async () => { throw new Error("unused"); })];
}
