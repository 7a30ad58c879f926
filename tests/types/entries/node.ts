// The Node entry's declarations, as package.json `exports` gives them under
// the "node" condition (tsconfig.nodenext/node16, and bundler with
// customConditions ["node"], as a Next.js route handler would set): they
// include nodeFileStorage. `agent-memory` resolves to this repository
// itself (a package may import its own name through its `exports`).
import { MemoryController, memoryStorage, nodeFileStorage, type StorageAdapter, type Context } from "agent-memory";

export async function check(): Promise<Context> {
  const files: StorageAdapter = nodeFileStorage("./memory");
  const memory = await MemoryController.create({ storage: Math.random() < 0.5 ? files : memoryStorage() });
  // @ts-expect-error: a directory is a string
  nodeFileStorage(42);
  return memory.buildContext({ maxTokens: 500 });
}
