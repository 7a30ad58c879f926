// What the built-in hook clients (embedder.js, summarizer.js) share: one
// implementation of the HTTP policy, so both behave the same way on failure.
//
// - Each attempt has its own AbortController and deadline. The deadline covers
//   the whole attempt, headers *and* body: a server that sends headers and
//   then stalls must not hang the controller's background compaction. The
//   attempt is also raced against the deadline, so a custom `fetch` that
//   ignores `signal` still cannot hang us.
// - 429, 5xx, timeouts and network errors are transient: retried up to
//   `maxRetries` times with exponential backoff and jitter, or after the
//   server's Retry-After (capped, so a hostile or confused header cannot park
//   us for an hour). Other 4xx are the caller's mistake: retrying won't help.
// - Errors are `MemoryError`s with a stable code (`<PREFIX>_HTTP`,
//   `<PREFIX>_TIMEOUT`, `<PREFIX>_INVALID`) and never carry the API key:
//   messages hold a redacted body excerpt, and no request object, header or
//   low-level cause is attached (those can hold the Authorization header).

import { memoryError } from "../internal/errors.js";

export const BACKOFF_BASE_MS = 250;
export const BACKOFF_CAP_MS = 4000;
export const RETRY_AFTER_CAP_MS = 10000;
const EXCERPT_CHARS = 200;

/**
 * The time and timers the retry policy reads: the attempt deadlines, the
 * waits between attempts and Retry-After dates. One object so that the
 * tests can replace it with a manual clock and check every wait exactly
 * (tests/js/hooks/check.mjs `manualClock`) while `fetch` keeps its own real
 * timers; mocking the global timers would also stop undici's.
 */
export const clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (timer) => clearTimeout(timer),
};

/** Delay before retry number `attempt + 1`: min(cap, base·2^attempt), jittered into [½, 1] of that. */
export function backoffDelay(attempt, random = Math.random) {
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt);
  // Half fixed, half random: spreads clients that failed together without
  // ever retrying immediately.
  return ceiling / 2 + (random() * ceiling) / 2;
}

/**
 * Milliseconds to wait from the `retry-after-ms` (OpenAI's) or `retry-after`
 * header (seconds or an HTTP date), capped at RETRY_AFTER_CAP_MS; undefined
 * when absent or unreadable.
 */
export function retryAfterMs(headers, now = clock.now()) {
  const ms = headers?.get?.("retry-after-ms");
  if (ms != null && /^\s*\d+(\.\d+)?\s*$/.test(ms)) return Math.min(Number(ms), RETRY_AFTER_CAP_MS);
  const value = headers?.get?.("retry-after");
  if (value == null) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return Math.min(Number(value) * 1000, RETRY_AFTER_CAP_MS);
  const at = Date.parse(value);
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, at - now), RETRY_AFTER_CAP_MS);
}

/** A one-line, length-capped excerpt of a body, with every occurrence of `secret` removed. */
export function excerpt(text, secret) {
  let s = String(text ?? "");
  if (secret) s = s.split(secret).join("[redacted]");
  s = s.replace(/\s+/g, " ").trim();
  return s.length > EXCERPT_CHARS ? `${s.slice(0, EXCERPT_CHARS)}…` : s;
}

const invalidOption = (what, message) => memoryError("INVALID_INPUT", `${what}: ${message}`);

/** Checks the options both clients share and returns what `postJSON` needs. Throws INVALID_INPUT. */
export function clientConfig(options, what, defaultTimeoutMs) {
  if (options == null || typeof options !== "object") throw invalidOption(what, "options must be an object");
  const { baseURL, apiKey, model, fetch, headers, timeoutMs = defaultTimeoutMs, maxRetries = 2 } = options;
  if (typeof baseURL !== "string" || !/^https?:\/\//i.test(baseURL)) throw invalidOption(what, "baseURL must be an http(s) URL string");
  if (typeof model !== "string" || model === "") throw invalidOption(what, "model must be a non-empty string");
  // The key's value never appears in a message, not even when it is wrong.
  if (apiKey !== undefined && typeof apiKey !== "string") throw invalidOption(what, "apiKey must be a string");
  if (fetch !== undefined && typeof fetch !== "function") throw invalidOption(what, "fetch must be a function");
  if (fetch === undefined && typeof globalThis.fetch !== "function") throw invalidOption(what, "no global fetch; pass options.fetch");
  if (!(Number.isFinite(timeoutMs) && timeoutMs > 0)) throw invalidOption(what, "timeoutMs must be a positive number");
  if (!(Number.isInteger(maxRetries) && maxRetries >= 0)) throw invalidOption(what, "maxRetries must be a non-negative integer");
  const merged = { "content-type": "application/json", accept: "application/json" };
  if (apiKey) merged.authorization = `Bearer ${apiKey}`;
  try {
    // Headers lower-cases names, so the host's headers override ours by name
    // (e.g. Azure's `api-key` with no apiKey, or a custom authorization).
    for (const [name, value] of new Headers(headers ?? {})) merged[name] = value;
  } catch {
    throw invalidOption(what, "headers must be valid header names and values");
  }
  return {
    baseURL: baseURL.replace(/\/+$/, ""),
    apiKey: apiKey || undefined,
    headers: merged,
    // Looked up at call time (tests and polyfills may replace it) and called
    // with `this = globalThis`: browsers and workerd throw "Illegal invocation"
    // for a detached `window.fetch`.
    fetch: fetch ?? ((...args) => globalThis.fetch(...args)),
    timeoutMs,
    maxRetries,
  };
}

const sleep = (ms) => new Promise((resolve) => clock.setTimeout(resolve, ms));

/**
 * POSTs `body` as JSON to `cfg.baseURL + path` under the retry policy and
 * returns the parsed JSON of a 2xx answer. Rejects with a MemoryError coded
 * `${prefix}_HTTP`, `${prefix}_TIMEOUT` or `${prefix}_INVALID` (2xx but not JSON).
 */
export async function postJSON(cfg, path, body, prefix) {
  const url = cfg.baseURL + path;
  const payload = JSON.stringify(body);
  for (let attempt = 0; ; attempt++) {
    const outcome = await attemptOnce(cfg, url, payload);
    const attempts = attempt + 1;
    if (outcome.ok) {
      try {
        return JSON.parse(outcome.text);
      } catch {
        throw memoryError(
          `${prefix}_INVALID`,
          `${path}: HTTP ${outcome.status} but the body is not JSON: ${excerpt(outcome.text, cfg.apiKey) || "(empty)"}`,
          { status: outcome.status, attempts },
        );
      }
    }
    if (!outcome.retryable || attempt >= cfg.maxRetries) throw finalError(outcome, path, prefix, attempts, cfg.apiKey);
    await sleep(outcome.retryAfterMs ?? backoffDelay(attempt));
  }
}

function finalError(outcome, path, prefix, attempts, apiKey) {
  const tries = attempts > 1 ? ` (after ${attempts} attempts)` : "";
  if (outcome.timedOut)
    return memoryError(`${prefix}_TIMEOUT`, `${path}: no complete answer within ${outcome.timeoutMs} ms${tries}`, undefined, { attempts });
  if (outcome.status === undefined)
    return memoryError(`${prefix}_HTTP`, `${path}: network error: ${excerpt(outcome.reason, apiKey)}${tries}`, undefined, { attempts });
  const text = excerpt(outcome.text, apiKey);
  return memoryError(`${prefix}_HTTP`, `${path}: HTTP ${outcome.status}${text ? `: ${text}` : ""}${tries}`, undefined, {
    status: outcome.status,
    attempts,
  });
}

/** One attempt, never rejecting: `{ ok, status, text }` or a classified failure. */
async function attemptOnce(cfg, url, payload) {
  const controller = new AbortController();
  let timer;
  const deadline = new Promise((resolve) => {
    timer = clock.setTimeout(() => {
      controller.abort();
      resolve({ timedOut: true, retryable: true, timeoutMs: cfg.timeoutMs });
    }, cfg.timeoutMs);
  });
  const work = (async () => {
    const res = await cfg.fetch.call(globalThis, url, { method: "POST", headers: cfg.headers, body: payload, signal: controller.signal });
    // Read under the same signal: aborting also ends a stalled body.
    const text = await res.text();
    if (res.ok) return { ok: true, status: res.status, text };
    const retryable = res.status === 429 || res.status >= 500;
    return { ok: false, status: res.status, text, retryable, retryAfterMs: retryable ? retryAfterMs(res.headers) : undefined };
  })().catch((e) => {
    if (controller.signal.aborted) return { timedOut: true, retryable: true, timeoutMs: cfg.timeoutMs };
    // A connection refused or reset: transient. Only a short reason is kept.
    const code = e?.cause?.code ?? e?.code;
    return { ok: false, retryable: true, reason: `${e?.message ?? e}${code ? ` (${code})` : ""}` };
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clock.clearTimeout(timer);
  }
}
