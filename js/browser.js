// Browser entry (also Deno and any runtime with fetch): the wasm and the rank
// assets are fetched next to this module, once; the HTTP cache keeps them.
import init, { setRankLoader } from "./wasm/agent_memory.js";
import { gunzip } from "./gunzip.js";

await init({ module_or_path: new URL("./wasm/agent_memory_bg.wasm", import.meta.url) });
setRankLoader(async (encoding) => {
  const res = await fetch(new URL(`./ranks/${encoding}.bin`, import.meta.url));
  if (!res.ok) throw new Error(`fetching ${encoding} ranks: HTTP ${res.status}`);
  return gunzip(await res.arrayBuffer());
});

export { MemoryController, wasmMemoryBytes, Bm25Index, VectorIndex } from "./wasm/agent_memory.js";

// Storage adapters: plain JS, each touching its backend only when called.
export { memoryStorage } from "./storage-memory.js";
export { localStorageAdapter } from "./storage-local.js";
export { indexedDBStorage } from "./storage-indexeddb.js";
export { cloudflareKVStorage } from "./storage-kv.js";
export { durableObjectStorage } from "./storage-do.js";

// Built-in hook clients (plain JS over fetch): OpenAI-compatible embeddings and chat summaries.
export { openAICompatibleEmbedder } from "./embedder.js";
export { openAICompatibleSummarizer } from "./summarizer.js";

// Vercel AI SDK ModelMessage ↔ OpenAI chat message mapping (plain JS).
export { fromModelMessages, toModelMessages } from "./aisdk.js";
