// Type-checks against the installed package's declarations (tsc --strict).
import {
  MemoryController,
  Bm25Index,
  fromModelMessages,
  durableObjectStorage,
  ready,
  type ChatMessage,
  type Context,
  type RankEncoding,
  type RankSource,
  type ReadyOptions,
} from "agent-memory";
import { runStorageAdapterTests, type StorageAdapterTestResult } from "agent-memory/testing";

export async function check(): Promise<[Context, StorageAdapterTestResult[]]> {
  const where: ReadyOptions = { wasm: new URL("file:///srv/agent_memory_bg.wasm") };
  await ready(where);
  const loaded: void = await ready();
  void loaded;
  new Bm25Index().add(1, "text");
  // @ts-expect-error: ready takes only { wasm }
  await ready({ ranks: "x" });
  const ranks = (encoding: RankEncoding): RankSource => `/assets/${encoding}.bin`;
  const memory = await MemoryController.create({ model: "gpt-4o", workingMemory: { maxTokens: 1000 }, ranks });
  await MemoryController.create({ model: "gpt-4", ranks: new Uint8Array(0) });
  // @ts-expect-error: ranks is bytes, a URL, a Response or a function returning one
  await MemoryController.create({ model: "gpt-4", ranks: 42 });
  const msgs: ChatMessage[] = fromModelMessages([{ role: "user", content: [{ type: "text", text: "hi" }] }]);
  for (const m of msgs) await memory.add(m);
  void durableObjectStorage;
  const n: number = memory.countTokens("hello");
  void n;
  // @ts-expect-error: role is a closed set
  await memory.add({ role: "wizard", content: "x" });
  return [
    await memory.buildContext({ maxTokens: 500 }),
    await runStorageAdapterTests(async () => {
      throw new Error("unused");
    }),
  ];
}
