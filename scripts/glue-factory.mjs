// Turns wasm-bindgen's generated glue (--target web) into a factory:
// `createBinding(onTrap, onReset, eager)` returns a fresh copy of the glue
// (its own module instance, memory views, closure and finalizer state) each
// time it is called. js/internal/loader.js needs that to recover from a trap: with
// panic = "abort", a panic in Rust is an `unreachable` trap that leaves the
// instance's memory mid-operation (a RefCell borrowed, a queue half run), so
// the package retires the whole instance and starts a new one, while
// objects of the old one must never reach the new one (a finalizer freeing
// an old pointer in the new memory would corrupt it).
//
// It also recovers from a reset. When the runtime terminates JS execution
// (workerd does on `ctx.abort()`, when it resets a Durable Object, at a CPU
// or memory limit), the calls into the module on the stack stop where they
// are: no `finally`, no Rust destructor runs, and workerd drops the
// microtasks queued so far. wasm-bindgen-futures keeps one run queue per
// instance and a flag saying its run is scheduled (js-sys's
// futures/queue.rs). A run frozen mid-call leaves its closure refusing to be
// called again ("closure invoked recursively or after being dropped"), and a
// dropped microtask never calls it: either way the flag stays set, no future
// of the instance is polled again, and every call hangs. The copy counts the
// calls into the module in progress (`__depth`: closures here, finalizers,
// the loader's guarded methods via `enter`/`leave`) and mirrors the flag
// (`__asked`, the run it asked for). On a fresh stack (a microtask) no call
// can be in progress: one left over was frozen mid-way, with the instance's
// memory mid-operation, so the instance is retired (`onReset`) as after a
// trap. Every run of the queue checks that first, and so does the loader
// before `create`. Where the runtime drops microtasks (workerd: the `eager`
// argument), a run may never come, so each entry into the module made while
// a call is in progress or a run is asked for (a nested call, a promise
// callback or a call made while a run is pending) also queues a check: a
// run asked for and not started by the time that microtask, queued after
// the run's own, runs was dropped; with nothing frozen the instance is sound
// and the copy runs the queue itself. Elsewhere an entry costs a counter.
//
// The changes besides the wrapping, each checked so that a wasm-bindgen
// update that moves them fails the build instead of silently losing them:
// - a closure called from JS (a microtask of wasm-bindgen-futures, a promise
//   callback) that traps reports it to `onTrap` instead of throwing into a
//   microtask, where nobody could catch it (Node would exit); it counts as a
//   call in progress, and a dead instance's closures return at once;
// - the futures queue's `queueMicrotask` goes through `__schedule`;
// - a dead instance's closures and finalizers never call into it again;
// - a string parameter given anything else is a TypeError (which the loader
//   reports as INVALID_INPUT) before it reaches the module: the glue would
//   read `arg.length` of a number or an object as a size and make the
//   allocator trap ("memory access out of bounds");
// - the compiled module is exposed, so the next instance skips compiling.
// It also exports, from the declarations, ASYNC_METHODS ("Class.method" of
// every method returning a Promise: the loader rejects, not throws, for
// those) and STATIC_METHODS (which the package's classes forward to the
// live instance's).

const PATCHES = [
  [
    `        try {
            return f(a, state.b, ...args);
        } finally {
            state.a = a;
            real._wbg_cb_unref();
        }`,
    `        if (__dead) return;
        __enter();
        try {
            return f(a, state.b, ...args);
        } catch (e) {
            __trapped(e);
        } finally {
            __depth--;
            state.a = a;
            if (!__dead) real._wbg_cb_unref();
        }`,
  ],
  ["            queueMicrotask(arg0);\n", "            __schedule(arg0);\n"],
  ["\nexport { initSync, __wbg_init as default };", ""],
  [
    `function passStringToWasm0(arg, malloc, realloc) {
`,
    `function passStringToWasm0(arg, malloc, realloc) {
    if (typeof arg !== "string") throw new TypeError(\`expected a string, got \${arg === null ? "null" : typeof arg}\`);
`,
  ],
];

/** "Class.method" of each method `dts` (the glue's declarations) declares that `pattern` matches. */
function methods(dts, pattern, expected) {
  const found = [];
  for (const [, cls, body] of dts.matchAll(/^export class (\w+) \{\n([\s\S]*?)\n\}/gm)) {
    for (const [, name] of body.matchAll(pattern)) found.push(`${cls}.${name}`);
  }
  if (!found.includes(expected)) throw new Error(`glue-factory: ${expected} not found in the declarations; their format changed`);
  return found;
}
export const asyncMethods = (dts) => methods(dts, /^ {4}(?:static )?(\w+)\(.*\): Promise<.*;$/gm, "MemoryController.add");
export const staticMethods = (dts) => methods(dts, /^ {4}static (\w+)\(/gm, "MemoryController.create");

export function toFactory(glue, dts) {
  let body = glue;
  for (const [from, to] of PATCHES) {
    const n = body.split(from).length - 1;
    if (n !== 1)
      throw new Error(`glue-factory: expected one match of ${JSON.stringify(from.slice(0, 60))}, found ${n}; wasm-bindgen's glue changed`);
    body = body.replace(from, to);
  }
  const names = [];
  body = body.replace(/^export (class|function) (\w+)/gm, (_, kind, name) => {
    names.push(name);
    return `${kind} ${name}`;
  });
  if (/^export /m.test(body) || /^import /m.test(body))
    throw new Error("glue-factory: the glue has an import or export this script does not handle");
  if (!names.includes("MemoryController")) throw new Error("glue-factory: no MemoryController export in the glue");
  return `// Generated by scripts/glue-factory.mjs from wasm-bindgen's glue: one fresh
// copy of the glue per call (see that script for why).
export const ASYNC_METHODS = ${JSON.stringify(asyncMethods(dts))};
export const STATIC_METHODS = ${JSON.stringify(staticMethods(dts))};

export function createBinding(onTrap, onReset, eager) {
    let __dead = false;
    // A trap (WebAssembly.RuntimeError) retires this instance; anything else is rethrown.
    function __trapped(e) {
        if (!(e instanceof WebAssembly.RuntimeError)) throw e;
        __dead = true;
        onTrap(e);
    }
    // Calls into the module in progress; the futures queue's run asked for and not started (its number), and its function.
    let __depth = 0, __asked = 0, __runs = 0, __run;
    // Called on a fresh stack only: a call still in progress was frozen by a termination, and the instance is retired.
    function __frozen() {
        if (__dead || __depth === 0) return __dead;
        __dead = true;
        onReset();
        return true;
    }
    function __schedule(run) {
        const asked = (__asked = ++__runs);
        __run = run;
        queueMicrotask(() => __start(asked));
    }
    // The mirror is cleared after the run, not before: a termination between the two leaves it set, and the run is redone.
    function __start(asked) {
        if (__frozen()) return;
        __run();
        if (__asked === asked) __asked = 0;
    }
    // Run number asked not started by now, when a microtask queued after its own runs: that one was dropped.
    function __verify(asked) {
        if (asked !== 0 && __asked === asked) __start(asked);
        else __frozen();
    }
    function __enter() {
        if (eager && (__depth !== 0 || __asked !== 0)) {
            const asked = __asked;
            queueMicrotask(() => __verify(asked));
        }
        __depth++;
    }
    // Finalizers of a dead instance do nothing: its memory is never used again.
    const FinalizationRegistry = globalThis.FinalizationRegistry && class extends globalThis.FinalizationRegistry {
        constructor(cleanup) {
            super((held) => {
                if (__dead) return;
                __depth++;
                try {
                    cleanup(held);
                } finally {
                    __depth--;
                }
            });
        }
    };
${body}
    return {
        ${names.join(", ")},
        initSync,
        init: __wbg_init,
        module: () => wasmModule,
        retire: () => { __dead = true; },
        enter: __enter,
        leave: () => { __depth--; },
        frozen: __frozen,
    };
}
`;
}
