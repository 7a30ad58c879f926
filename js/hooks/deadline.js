// The hooks' deadlines: `create` wraps the summarizer and the embedder so
// that a hook that never settles counts as failed after `summarizerTimeoutMs`
// / `embedderTimeoutMs` (60 s each), with its own code (`SUMMARIZER_TIMEOUT`,
// `EMBEDDER_TIMEOUT`), reported where the hook's failures are (the episode's
// `degraded`, search's `degraded`). Done here rather than in the wasm: the
// runtime's timer is JS, and the core wasm has a size limit.
import { memoryError } from "../internal/errors.js";

const DEFAULT_MS = 60_000;
const HOOKS = [
  ["summarizer", "summarizerTimeoutMs", "SUMMARIZER_TIMEOUT"],
  ["embedder", "embedderTimeoutMs", "EMBEDDER_TIMEOUT"],
];

/** `options` with each hook raced against its timeout, and the timeout options taken off. */
export function withDeadlines(options) {
  if (options === null || typeof options !== "object") return options;
  const out = { ...options };
  for (const [hook, option, code] of HOOKS) {
    const ms = out[option] ?? DEFAULT_MS;
    delete out[option];
    if (!(typeof ms === "number" && ms > 0 && ms <= 2 ** 31 - 1))
      throw memoryError(
        "INVALID_INPUT",
        `invalid input at options.${option}: must be a positive number of milliseconds (at most 2^31 - 1)`,
      );
    // A value that is not a function is left for create to refuse with its own message.
    if (typeof out[hook] === "function") out[hook] = deadline(out[hook], ms, code, hook);
  }
  return out;
}

function deadline(hook, ms, code, what) {
  // Every argument passes through (the embedder's second is `{ kind }`).
  return (...args) => {
    let timer;
    const late = new Promise((_, reject) => {
      timer = setTimeout(() => reject(memoryError(code, `the ${what} did not answer within ${ms} ms`)), ms);
    });
    // A hook that throws synchronously rejects the same way as one that rejects.
    const answer = new Promise((resolve) => resolve(hook(...args)));
    // The timer is cleared either way: a pending one keeps Node's event loop (and a test run) alive.
    return Promise.race([answer, late]).finally(() => clearTimeout(timer));
  };
}
