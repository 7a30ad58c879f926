// Types of the browser and workerd entries, and of what every entry exports
// (js/exports.js); the Node entry adds nodeFileStorage (node.d.ts). The
// classes and interfaces are generated from the Rust side by wasm-bindgen.
export { MemoryController, wasmMemoryBytes, redactText, Bm25Index, VectorIndex } from "./wasm/agent_memory.js";
export type * from "./wasm/agent_memory.js";
// The package's error type: `instanceof MemoryError` or `isMemoryError(e)`.
export * from "./errors.js";
// The module loads on first use: `ready()` (MemoryController.create awaits it).
export * from "./loader.js";
// Storage adapters (hand-written JS; nodeFileStorage is in node.d.ts).
export * from "./storage.js";
// Built-in hook clients (hand-written JS): embedder and summarizer over fetch.
export * from "./hooks.js";
// Vercel AI SDK ModelMessage ↔ OpenAI chat message mapping (hand-written JS).
export * from "./aisdk.js";
