// How every entry loads the WebAssembly module: on the first `ready()`,
// which `MemoryController.create` calls, never at import. No entry awaits at
// module top level (Vite 5 and 6 reject top-level await under their default
// targets), and importing the package does no IO until it is used.
//
// The runtime entry (node.js, browser.js, workerd.js) says how its runtime
// gets the bytes (`defineRuntime`); this module decides when, and turns a
// host's `ranks` option (bytes, a URL, a Response, or a function of the
// encoding) into the uncompressed rank file for src/wasm/ranks.rs.
import { withReranker } from "./reranker.js";
import { Bm25Index as WasmBm25Index, MemoryController, VectorIndex as WasmVectorIndex, setRankLoader, wasmMemoryBytes as wasmBytes } from "./wasm/agent_memory.js";
import { gunzip } from "./gunzip.js";
import { memoryError } from "./storage-shared.js";

let runtime;
let loading; // the promise of the load in progress or done; cleared when it fails
let loaded = false;

/**
 * Registers how this runtime gets its assets; the entry calls it at import.
 * - `load(source)`: instantiates the module through wasm-bindgen's init, from
 *   a host's `ready({ wasm })` value or, when it is undefined, the package's file;
 * - `asset(encoding)`: the package's own rank file for `encoding`;
 * - `read(href, what)`: the bytes at a URL (in Node also a path) the host gave;
 * - `inflate(gzipBytes)`, optional: a faster gzip decompressor than DecompressionStream.
 */
export function defineRuntime(r) {
  runtime = r;
}

/**
 * Loads the WebAssembly module once; every later call returns the same
 * promise. `MemoryController.create` calls it, so apps call it themselves
 * only before using `Bm25Index` or `VectorIndex`, or to say where the module
 * is (`{ wasm }`: a URL or path, its bytes, a `Response` or a compiled
 * `WebAssembly.Module`), which only the first call may do.
 */
export function ready(options) {
  if (options !== undefined && (options === null || typeof options !== "object" || Object.keys(options).some((k) => k !== "wasm"))) {
    return Promise.reject(memoryError("INVALID_INPUT", "ready(options): expected { wasm? }"));
  }
  if (loading) {
    if (options?.wasm !== undefined) return Promise.reject(memoryError("INVALID_INPUT", "ready({ wasm }): the module is already loading or loaded; pass `wasm` to the first ready() call, before any create()"));
    return loading;
  }
  loading = (async () => {
    try {
      await runtime.load(options?.wasm);
    } catch (e) {
      throw memoryError("WASM_LOAD", `the WebAssembly module could not be loaded: ${e?.message ?? e}`, e);
    }
    setRankLoader(loadRanks);
    loaded = true;
  })();
  loading.catch(() => (loading = undefined)); // a failed load (offline, 404) may be retried
  return loading;
}

const isURL = (v) => v instanceof URL || (typeof v === "object" && v !== null && typeof v.href === "string"); // a bundler's own URL class too
const isBytes = (v) => v instanceof ArrayBuffer || ArrayBuffer.isView(v);
const isResponse = (v) => typeof Response === "function" && v instanceof Response;

function describe(v) {
  if (v === null) return "null";
  return typeof v === "object" ? (v.constructor?.name ?? "object") : typeof v;
}

/** INVALID_INPUT unless `source` is something `ranks` accepts. */
function checkRankSource(source, what) {
  if (source === undefined || typeof source === "string" || isURL(source) || isBytes(source) || isResponse(source)) return;
  throw memoryError("INVALID_INPUT", `${what}: expected the rank file's bytes, a URL, a Response, or a function of the encoding returning one; got ${describe(source)}`);
}

/**
 * The loader src/wasm/ranks.rs calls the first time it needs an encoding:
 * the uncompressed rank file, or a MemoryError (INVALID_INPUT for a bad
 * `ranks` value, TOKENIZER_LOAD when the file cannot be had).
 */
async function loadRanks(encoding, source) {
  try {
    if (typeof source === "function") {
      source = await source(encoding);
      checkRankSource(source, `options.ranks(${JSON.stringify(encoding)})`);
    }
    let bytes;
    if (source === undefined) bytes = await runtime.asset(encoding);
    else if (isBytes(source)) bytes = source;
    else if (isResponse(source)) bytes = await responseBytes(source, `${encoding} ranks`);
    else bytes = await runtime.read(String(source), `${encoding} ranks`);
    return await gunzip(bytes, runtime.inflate);
  } catch (e) {
    if (e?.name === "MemoryError") throw e;
    throw memoryError("TOKENIZER_LOAD", `tokenizer data for ${encoding} could not be loaded: ${e?.message ?? e}`, e);
  }
}

/** The body of a fetched file; an HTTP error says which file. */
export async function responseBytes(res, what) {
  if (!res.ok) throw new Error(`fetching ${what}${res.url ? ` from ${res.url}` : ""}: HTTP ${res.status}`);
  return res.arrayBuffer();
}

// `create` first loads the module. Patched on the generated class, so its
// instances stay `instanceof MemoryController` and keep their types.
const create = MemoryController.create;
MemoryController.create = async function (options) {
  if (typeof options?.ranks !== "function") checkRankSource(options?.ranks, "options.ranks");
  // The reranker is a JS-side hook (js/reranker.js): the core never sees it.
  const { reranker, ...rest } = options ?? {};
  if (reranker !== undefined && typeof reranker !== "function") throw memoryError("INVALID_INPUT", "options.reranker: expected an async function (query, texts) => scores");
  await ready();
  const memory = await create.call(MemoryController, options == null ? options : rest);
  return reranker === undefined ? memory : withReranker(memory, reranker);
};

function requireLoaded(what) {
  if (!loaded) throw memoryError("NOT_READY", `${what} needs the WebAssembly module: await ready() first (MemoryController.create does it for you)`);
}

/** Bytes of WebAssembly memory this instance holds now; 0 before the module is loaded. */
export function wasmMemoryBytes() {
  return loaded ? wasmBytes() : 0;
}

/** `Bm25Index` of the wasm module; constructing it before `ready()` throws `NOT_READY`. */
export class Bm25Index extends WasmBm25Index {
  constructor(options) {
    requireLoaded("new Bm25Index()");
    super(options);
  }
}

/** `VectorIndex` of the wasm module; constructing it before `ready()` throws `NOT_READY`. */
export class VectorIndex extends WasmVectorIndex {
  constructor(options) {
    requireLoaded("new VectorIndex()");
    super(options);
  }
}

export { MemoryController };
