// Assertions the hook tests share.
import assert from "node:assert/strict";
import { inspect } from "node:util";

/** Awaits `promise`, asserts it rejects with a MemoryError of `code`, returns the error. */
export async function rejectsWith(promise, code) {
  let error;
  try {
    await promise;
  } catch (e) {
    error = e;
  }
  assert.ok(error, `expected a rejection with ${code}, got a result`);
  assert.equal(error.name, "MemoryError", String(error?.stack ?? error));
  assert.equal(error.code, code, error.message);
  assert.ok(error instanceof Error);
  return error;
}

/**
 * `secret` appears nowhere in the error: message, stack, any own property
 * (enumerable or not), the cause chain, or how Node prints it.
 */
export function assertNoSecret(error, secret) {
  const views = [
    String(error),
    error.stack ?? "",
    JSON.stringify(error, Object.getOwnPropertyNames(error)),
    inspect(error, { showHidden: true, depth: 10 }),
  ];
  for (let e = error.cause; e; e = e.cause) views.push(inspect(e, { showHidden: true, depth: 10 }));
  for (const v of views) assert.ok(!v.includes(secret), `the API key leaked into: ${v.slice(0, 300)}`);
}

/** Milliseconds between two recorded requests. */
export const gap = (requests, i) => requests[i].at - requests[i - 1].at;

/** Resolves once `predicate()` holds; fails after `ms`. */
export async function until(predicate, ms = 1000) {
  const end = performance.now() + ms;
  while (!predicate()) {
    assert.ok(performance.now() < end, "condition not reached in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}
