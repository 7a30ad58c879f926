// Types of every entry point (node, browser, workerd): the classes and
// interfaces are generated from the Rust side by wasm-bindgen.
export { MemoryController, wasmMemoryBytes } from "./wasm/agent_memory.js";
export type * from "./wasm/agent_memory.js";
