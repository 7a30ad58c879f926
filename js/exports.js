// What every runtime entry exports; the entry itself only says how its
// runtime gets the wasm and rank files (see loader.js).

// The wasm module, loaded on the first `ready()` / `MemoryController.create`.
export { MemoryController, ready, wasmMemoryBytes, redactText, Bm25Index, VectorIndex } from "./loader.js";

// The package's error type: `instanceof MemoryError`, or the `isMemoryError` guard.
export { MemoryError, isMemoryError } from "./errors.js";

// Storage adapters: plain JS, each touching its backend only when called.
export { memoryStorage } from "./storage-memory.js";
export { localStorageAdapter } from "./storage-local.js";
export { indexedDBStorage } from "./storage-indexeddb.js";
export { cloudflareKVStorage } from "./storage-kv.js";
export { durableObjectStorage } from "./storage-do.js";

// Built-in hook clients (plain JS over fetch): OpenAI-compatible embeddings and chat summaries.
export { openAICompatibleEmbedder } from "./embedder.js";
export { openAICompatibleSummarizer } from "./summarizer.js";
export { rerankClient } from "./reranker.js";

// Vercel AI SDK ModelMessage ↔ OpenAI chat message mapping (plain JS).
export { fromModelMessages, toModelMessages } from "./aisdk.js";
