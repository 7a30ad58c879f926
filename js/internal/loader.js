// How every entry loads the WebAssembly module: on the first `ready()`,
// which `MemoryController.create` calls, never at import. No entry awaits at
// module top level (Vite 5 and 6 reject top-level await under their default
// targets), and importing the package does no IO until it is used.
//
// The runtime entry (node.js, browser.js, workerd.js) says how its runtime
// gets the bytes (`defineRuntime`); this module decides when, and turns a
// host's `ranks` option (bytes, a URL, a Response, or a function of the
// encoding) into the uncompressed rank file for src/wasm/ranks.rs.
//
// It also contains a trap. With panic = "abort", a panic in Rust (a bug: no
// input should cause one) traps the instance mid-operation, and every
// controller on it is then unusable. Each instance is a fresh copy of the
// glue (`createBinding`, see scripts/glue-factory.mjs) whose methods are
// guarded here: the call that trapped rejects (or throws) a MemoryError
// `INTERNAL`, so do the pending and later calls of every controller of that
// instance, and the next `create` (or `ready()`) starts a new instance,
// where a controller reloads its state from storage.
//
// A reset is handled the same way, with its own code: when the runtime
// terminates JS execution in the middle of a call into the module (workerd
// on `ctx.abort()`, a Durable Object reset, a CPU limit), the instance is
// left mid-operation and its futures queue stalled. The glue copy detects
// that on the next fresh stack (see scripts/glue-factory.mjs); the instance
// is retired, every call on it rejects with `INSTANCE_RESET`, and `create`
// checks before opening, so it opens on a fresh instance.
import { ASYNC_METHODS, STATIC_METHODS, createBinding } from "../wasm/agent_memory.js";
import { withReranking } from "../hooks/reranker.js";
import { gunzip } from "./gunzip.js";
import { memoryError } from "./errors.js";
import { withDeadlines } from "../hooks/deadline.js";

let runtime;
let loading; // the promise of the load in progress or done; cleared when it fails or its instance traps
let loaded = false;
let binding; // the live instance's glue, once loaded
let compiled; // the compiled module of a trapped instance: the next one skips fetching and compiling

// The methods declared to return a promise: a trap during one rejects, elsewhere throws.
const ASYNC = new Set(ASYNC_METHODS);

/**
 * Registers how this runtime gets its assets, and whether it resets; the
 * entry calls it at import.
 * - `load(source, binding)`: instantiates the module through `binding`'s init (a fresh glue copy), from
 *   a host's `ready({ wasm })` value or, when it is undefined, the package's file;
 * - `asset(encoding)`: the package's own rank file for `encoding`;
 * - `read(href, what)`: the bytes at a URL (in Node also a path) the host gave;
 * - `inflate(gzipBytes)`, optional: a faster gzip decompressor than DecompressionStream;
 * - `resets`, optional: true where the runtime terminates JS in an isolate that lives on and drops the
 *   microtasks queued so far (workerd), so every entry into the module checks for a stalled queue.
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
    if (options?.wasm !== undefined)
      return Promise.reject(
        memoryError(
          "INVALID_INPUT",
          "ready({ wasm }): the module is already loading or loaded; pass `wasm` to the first ready() call, before any create()",
        ),
      );
    return loading;
  }
  loading = (async () => {
    const b = createBinding(
      (e) => retire(b, e),
      () => retire(b, RESET),
      runtime.resets === true,
    );
    b.waiting = new Set(); // the reject of each call in progress, for when the instance retires
    try {
      if (compiled) await b.init({ module_or_path: compiled });
      else await runtime.load(options?.wasm, b);
    } catch (e) {
      throw memoryError("WASM_LOAD", `the WebAssembly module could not be loaded: ${e?.message ?? e}`, e);
    }
    adopt(b, MemoryController, "MemoryController");
    adopt(b, Bm25Index, "Bm25Index");
    adopt(b, VectorIndex, "VectorIndex");
    b.setRankLoader(loadRanks);
    binding = b;
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
  throw memoryError(
    "INVALID_INPUT",
    `${what}: expected the rank file's bytes, a URL, a Response, or a function of the encoding returning one; got ${describe(source)}`,
  );
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

// What retired an instance when the runtime cut a call into it short (rather than a trap).
const RESET = Symbol("reset");
const REOPEN =
  "Controllers of that instance are closed; MemoryController.create starts a fresh instance, which reloads what storage holds.";

/** Why a call on instance `b` fails: it trapped (`INTERNAL`: `cause` is the trap when this call met it) or was reset. */
function retired(b, what, cause) {
  if (b.dead === RESET) {
    return memoryError(
      "INSTANCE_RESET",
      `${what}: the runtime stopped a call into the WebAssembly instance mid-way (in Workers: ctx.abort(), a Durable Object reset, a CPU or memory limit), which left the instance mid-operation. ${REOPEN}`,
    );
  }
  const why = cause ? `the WebAssembly module trapped (${cause.message})` : "its WebAssembly instance trapped earlier";
  return memoryError(
    "INTERNAL",
    `${what}: ${why}. This is a bug in agent-memory; please report it with the panic message logged to the console. ${REOPEN}`,
    cause,
  );
}

/** Retires a trapped or reset instance: nothing calls into it again, its pending calls reject, the next load starts another. */
function retire(b, cause) {
  if (b.dead) return;
  b.dead = cause === RESET ? RESET : true;
  b.retire();
  const err = retired(b, "a pending call", cause === RESET ? undefined : cause);
  for (const reject of b.waiting) reject(err);
  b.waiting.clear();
  if (binding === b) {
    compiled = b.module();
    binding = undefined;
    loaded = false;
    loading = undefined;
  }
}

/**
 * `e` as the caller should see it: a trap becomes INTERNAL (and retires
 * `b`); a TypeError of the generated glue, which converts arguments before
 * calling into the module (a number where a string goes, a BigInt where a
 * number goes), becomes INVALID_INPUT; anything else is itself.
 */
function trapped(b, e, what) {
  if (e instanceof TypeError) return memoryError("INVALID_INPUT", `${what}: an argument has the wrong type (${e.message})`, e);
  if (!(e instanceof WebAssembly.RuntimeError)) return e;
  retire(b, e);
  return retired(b, what, e);
}

/**
 * `fn` of instance `b`, counted as a call into the module while it runs,
 * refusing once `b` is retired and turning a trap into INTERNAL.
 */
function guard(b, what, fn) {
  const isAsync = ASYNC.has(what);
  const release = what.endsWith(".free") || what.endsWith(".Symbol(Symbol.dispose)");
  return function (...args) {
    const fail = (e) =>
      isAsync
        ? Promise.reject(e)
        : (() => {
            throw e;
          })();
    if (b.dead) return release ? undefined : fail(retired(b, what));
    let result;
    b.enter();
    try {
      result = fn.apply(this, args);
    } catch (e) {
      const err = trapped(b, e, what);
      if (err === e || err.code === "INVALID_INPUT") throw err;
      return fail(err);
    } finally {
      b.leave();
    }
    if (!isAsync || !(result instanceof Promise)) return result;
    // A promise of this call, made here, that `retire` can reject: in workerd
    // a promise settled from another request's context reaches only
    // continuations of a request still running, so one made at load (by a
    // request long finished) would not reach this caller.
    return new Promise((resolve, reject) => {
      if (b.dead) reject(retired(b, what)); // retired by a call the hooks made meanwhile
      b.waiting.add(reject);
      const done = () => b.waiting.delete(reject);
      result.then(
        (v) => (done(), resolve(v)),
        // (A rejection's TypeError is not the glue's argument check: only a trap is mapped.)
        (e) => (done(), reject(e instanceof WebAssembly.RuntimeError ? trapped(b, e, what) : e)),
      );
    });
  };
}

/**
 * Makes instance `b`'s class for `cls` a subclass of it (so its objects are
 * `instanceof` the package's class whichever instance made them) and guards
 * its methods.
 */
function adopt(b, cls, name) {
  const generated = b[name];
  Object.setPrototypeOf(generated.prototype, cls.prototype);
  for (const key of Reflect.ownKeys(generated.prototype)) {
    const d = Object.getOwnPropertyDescriptor(generated.prototype, key);
    const what = `${name}.${String(key)}`;
    if (typeof d.value === "function" && key !== "constructor") d.value = guard(b, what, d.value);
    else if (d.get) d.get = guard(b, what, d.get);
    else continue;
    // The reranker hook is composed into search, for the controllers opened with one.
    if (name === "MemoryController" && key === "search") d.value = withReranking(d.value, (memory) => rerankers.get(memory));
    Object.defineProperty(generated.prototype, key, d);
  }
}

function requireLoaded(what) {
  if (!loaded)
    throw memoryError("NOT_READY", `${what} needs the WebAssembly module: await ready() first (MemoryController.create does it for you)`);
}

/** `new` of the live instance's class `name`, a trap turned into INTERNAL. */
function construct(name, options) {
  requireLoaded(`new ${name}()`);
  const b = binding;
  b.enter();
  try {
    return new b[name](options);
  } catch (e) {
    throw trapped(b, e, `new ${name}()`);
  } finally {
    b.leave();
  }
}

/**
 * The live instance, loaded if need be. Called after an await, on a fresh
 * stack, where a call into the module still in progress can only be one a
 * termination froze: that instance is retired and a fresh one loads.
 */
async function live() {
  for (;;) {
    await ready();
    const b = binding;
    if (b && !b.frozen()) return b;
  }
}

/**
 * `MemoryController[method](...args, options)` on the live instance: the
 * rank source checked, the hooks given their deadlines (js/hooks/deadline.js), the
 * module loaded (a fresh instance if the last one trapped), and a reranker
 * kept for the controller's search (`withReranking`).
 */
async function open(method, args, options) {
  if (typeof options?.ranks !== "function") checkRankSource(options?.ranks, "options.ranks");
  const { reranker, ...rest } = options ?? {};
  if (reranker !== undefined && typeof reranker !== "function")
    throw memoryError("INVALID_INPUT", "options.reranker: expected an async function (query, texts) => scores");
  const hooked = withDeadlines(options == null || reranker === undefined ? options : rest);
  const b = await live();
  const memory = await guard(b, `MemoryController.${method}`, b.MemoryController[method]).call(b.MemoryController, ...args, hooked);
  createdWith.set(memory, rest);
  if (reranker !== undefined) rerankers.set(memory, reranker);
  return memory;
}

/** The reranker each controller was opened with, if any (js/hooks/reranker.js: the core never sees it). */
const rerankers = new WeakMap();

/** The options each controller was opened with (its reranker aside): importConversations opens its threads alike. */
const createdWith = new WeakMap();

/**
 * One conversation's memory: `await MemoryController.create(options)`. Its
 * objects come from the live WebAssembly instance's generated class, a
 * subclass of this one (methods and types: src/wasm/controller.rs).
 */
export class MemoryController {
  constructor() {
    throw memoryError("INVALID_INPUT", "use `await MemoryController.create(options)`, not `new MemoryController()`");
  }

  /** Loads the module (a fresh instance if the last one trapped), then creates the controller. */
  static async create(options) {
    return open("create", [], options);
  }

  /** Opens as `create` does (the same checks, deadlines and loading), then imports `snapshot`. */
  static async import(snapshot, options) {
    return open("import", [snapshot], options);
  }

  /**
   * Imports a ChatGPT or Claude export, or OpenAI messages with times: one
   * thread per conversation, opened with this controller's options
   * (js/internal/import.js, loaded on first use: bundles of apps that never import
   * do not carry the export readers).
   */
  async importConversations(data, options) {
    const { importConversations } = await import("./import.js");
    return importConversations(this, (o) => open("create", [], o), createdWith.get(this), data, options);
  }
}

/** Bytes of WebAssembly memory this instance holds now; 0 before the module is loaded. */
export function wasmMemoryBytes() {
  return loaded ? guard(binding, "wasmMemoryBytes", binding.wasmMemoryBytes)() : 0;
}

/** `text` redacted by the built-in scanners: `{ text, redacted }`; before `ready()` it throws `NOT_READY`. */
export function redactText(text, options) {
  requireLoaded("redactText()");
  return guard(binding, "redactText", binding.redactText)(text, options);
}

/** `Bm25Index` of the wasm module; constructing it before `ready()` throws `NOT_READY`. */
export class Bm25Index {
  constructor(options) {
    return construct("Bm25Index", options);
  }
}

/** `VectorIndex` of the wasm module; constructing it before `ready()` throws `NOT_READY`. */
export class VectorIndex {
  constructor(options) {
    return construct("VectorIndex", options);
  }
}

/**
 * Test-only (`forceTrapForTest` of `agent-memory/testing`): makes the live
 * instance trap now (`"now"`) or in the next queued controller call (`"next"`).
 */
export function trapForTest(when = "now") {
  if (when !== "now" && when !== "next") throw memoryError("INVALID_INPUT", 'forceTrapForTest(when): expected "now" or "next"');
  requireLoaded("forceTrapForTest()");
  guard(binding, "forceTrapForTest", binding.__agentMemoryTrapForTest)(when === "next" ? 2 : 1);
}

// The other static methods (`MemoryController.import`, …) go to the live
// instance's class: an async one loads the module first, as `create` does.
for (const what of STATIC_METHODS) {
  const [cls, name] = what.split(".");
  const target = { MemoryController, Bm25Index, VectorIndex }[cls];
  if (!target || Object.hasOwn(target, name)) continue;
  target[name] = ASYNC.has(what)
    ? async function (...args) {
        const b = await live();
        return guard(b, what, b[cls][name]).apply(b[cls], args);
      }
    : function (...args) {
        requireLoaded(`${what}()`);
        const b = binding;
        return guard(b, what, b[cls][name]).apply(b[cls], args);
      };
}
