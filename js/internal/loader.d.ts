// Types of js/internal/loader.js: loading the WebAssembly module on first use.

/** Where the WebAssembly module (`wasm/agent_memory_bg.wasm` in the package) comes from. */
export interface ReadyOptions {
  /**
   * A URL or string to fetch (in Node, a `file:` URL or a path is read), the
   * module's bytes, a `Response`, or a compiled `WebAssembly.Module`.
   * Default: the package's own file, found next to the entry module.
   */
  wasm?: URL | string | ArrayBuffer | Uint8Array | Response | WebAssembly.Module;
}

/**
 * Loads the WebAssembly module once; later calls return the same promise.
 * `MemoryController.create` calls it, so an app awaits it itself only before
 * `new Bm25Index()` / `new VectorIndex()` (which otherwise throw `NOT_READY`),
 * or to pass `{ wasm }`, which only the first call may do.
 *
 * # Errors
 * Rejects with a `MemoryError`: `WASM_LOAD` (the module could not be fetched,
 * read or instantiated; a later call tries again), `INVALID_INPUT` (unknown
 * option, or `wasm` after loading started).
 */
export function ready(options?: ReadyOptions): Promise<void>;
