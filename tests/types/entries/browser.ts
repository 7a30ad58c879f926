// The browser and workerd entries' declarations, as package.json `exports`
// gives them to moduleResolution bundler (no condition, or
// customConditions ["workerd"]): everything every entry exports, without
// nodeFileStorage, which those entries do not have.
// @ts-expect-error: nodeFileStorage is in the Node entry only
import { nodeFileStorage } from "agent-memory";
import { MemoryController, indexedDBStorage, durableObjectStorage, isMemoryError, type SearchResult } from "agent-memory";

export async function check(): Promise<SearchResult> {
  void nodeFileStorage;
  void durableObjectStorage;
  const memory = await MemoryController.create({ storage: indexedDBStorage("memory") });
  try {
    return await memory.search("peanuts", { kinds: ["fact"] });
  } catch (e) {
    if (isMemoryError(e)) console.log(e.code);
    throw e;
  }
}
