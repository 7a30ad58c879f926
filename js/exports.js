// What every runtime entry exports; the entry itself only says how its
// runtime gets the wasm and rank files (see loader.js).

// The wasm module, loaded on the first `ready()` / `MemoryController.create`.
export { MemoryController, ready, wasmMemoryBytes, redactText, Bm25Index, VectorIndex } from "./internal/loader.js";

// The package's error type: `instanceof MemoryError`, or the `isMemoryError` guard.
export { MemoryError, isMemoryError } from "./internal/errors.js";

// Storage adapters: plain JS, each touching its backend only when called.
export { memoryStorage } from "./storage/storage-memory.js";
export { localStorageAdapter } from "./storage/storage-local.js";
export { indexedDBStorage } from "./storage/storage-indexeddb.js";
export { cloudflareKVStorage } from "./storage/storage-kv.js";
export { durableObjectStorage } from "./storage/storage-do.js";

// Built-in hook clients (plain JS over fetch): OpenAI-compatible embeddings and chat summaries.
export { openAICompatibleEmbedder } from "./hooks/embedder.js";
export { openAICompatibleSummarizer } from "./hooks/summarizer.js";
export { rerankClient } from "./hooks/reranker.js";

// Vercel AI SDK ModelMessage ↔ OpenAI chat message mapping, as in 0.1, for
// apps that import it from the main entry (it lives in agent-memory/ai-sdk);
// toModelMessages returns { instructions, messages }, as ai 7 takes them.
export { fromModelMessages, toModelMessages } from "./integrations/ai-sdk/ai-sdk-messages.js";
