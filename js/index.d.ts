// Types of the browser and workerd entries, and of what every entry exports
// (js/exports.js); the Node entry adds nodeFileStorage (node.d.ts). The
// classes and interfaces are generated from the Rust side by wasm-bindgen.
export { MemoryController, wasmMemoryBytes, redactText, Bm25Index, VectorIndex } from "./wasm/agent_memory.js";
export type * from "./wasm/agent_memory.js";
// The package's error type: `instanceof MemoryError` or `isMemoryError(e)`.
export * from "./internal/errors.js";
// The module loads on first use: `ready()` (MemoryController.create awaits it).
export * from "./internal/loader.js";
// Storage adapters (hand-written JS; nodeFileStorage is in node.d.ts).
export * from "./storage/storage.js";
// Built-in hook clients (hand-written JS): embedder and summarizer over fetch.
export * from "./hooks/hooks.js";
// Vercel AI SDK ModelMessage ↔ OpenAI chat message mapping (hand-written JS;
// documented in integrations/ai-sdk/ai-sdk.d.ts).
export { fromModelMessages, toModelMessages } from "./integrations/ai-sdk/ai-sdk.js";
export type {
  ModelFilePart,
  ModelJSONValue,
  ModelMessage,
  ModelMessageLike,
  ModelProviderOptions,
  ModelReasoningPart,
  ModelTextPart,
  ModelToolCallPart,
  ModelToolResultPart,
  SystemModelMessage,
} from "./integrations/ai-sdk/ai-sdk.js";
