// Cloudflare Workers entry: wasm and rank assets are bundled modules
// (wrangler's default rules: .wasm as CompiledWasm, .bin as Data).
import { initSync, setRankLoader } from "./wasm/agent_memory.js";
import wasmModule from "./wasm/agent_memory_bg.wasm";
import o200k from "./ranks/o200k_base.bin";
import cl100k from "./ranks/cl100k_base.bin";
import { gunzip } from "./gunzip.js";

initSync({ module: wasmModule });
const assets = { o200k_base: o200k, cl100k_base: cl100k };
setRankLoader(async (encoding) => gunzip(assets[encoding]));

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
