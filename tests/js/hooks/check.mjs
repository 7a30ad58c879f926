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

/**
 * Resolves once `predicate()` holds; fails after `ms`. The limit only stops
 * a test whose condition never comes (real I/O on a loaded machine can take
 * seconds); no test measures time with it.
 */
export async function until(predicate, ms = 10_000) {
  const end = performance.now() + ms;
  while (!predicate()) {
    assert.ok(performance.now() < end, "condition not reached in time");
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** One turn of the event loop: every pending microtask has run. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

/**
 * Replaces the hooks' `clock` (dist/hooks/hooks-shared.js) with a manual one for
 * test `t`: time moves only when the test calls `tick`, so a deadline or a
 * wait between attempts is checked to the millisecond, never against the
 * machine's speed. `start` is a whole second, as HTTP dates are.
 */
export function manualClock(t, clock, start = Date.UTC(2030, 4, 1, 8)) {
  const saved = { ...clock };
  const timers = [];
  let now = start;
  let seq = 0;
  Object.assign(clock, {
    now: () => now,
    setTimeout: (fn, ms) => {
      const timer = { fn, ms, at: now + ms, seq: seq++ };
      timers.push(timer);
      return timer;
    },
    clearTimeout: (timer) => {
      const i = timers.indexOf(timer);
      if (i >= 0) timers.splice(i, 1);
    },
  });
  t.after(() => Object.assign(clock, saved));
  return {
    now: () => now,
    /** The delays of the timers still to fire, in the order they were set. */
    armed: () => timers.map((timer) => timer.ms),
    /** Moves time on by `ms` and fires the timers then due, earliest first, each followed by a turn of the event loop. */
    async tick(ms) {
      now += ms;
      for (;;) {
        const due = timers.filter((timer) => timer.at <= now).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
        if (!due) break;
        timers.splice(timers.indexOf(due), 1);
        due.fn();
        await turn();
      }
      await turn();
    },
  };
}

/** A `fetch` that records each attempt (its signal, the clock's time) and passes it to the real one. */
export function recordingFetch(clock) {
  const calls = [];
  const fetch = (url, init) => {
    calls.push({ at: clock.now(), signal: init.signal });
    return globalThis.fetch(url, init);
  };
  return { fetch, calls };
}

/** `promise` with a `settled` flag, handled at once so that a rejection the test awaits later is not reported as unhandled. */
export function watch(promise) {
  const watched = { promise, settled: false };
  promise.then(
    () => (watched.settled = true),
    () => (watched.settled = true),
  );
  return watched;
}

/**
 * After a failed attempt: waits until the client sleeps (one timer armed,
 * shorter than `deadlineMs`, the attempts' own deadline), checks that the
 * next attempt starts when that sleep ends and not a millisecond before, and
 * returns the sleep's length.
 */
export async function sleepThenRetry(manual, calls, deadlineMs) {
  const attempts = calls.length;
  await until(() => manual.armed().length === 1 && manual.armed()[0] < deadlineMs);
  const [ms] = manual.armed();
  await manual.tick(ms - 1);
  assert.equal(calls.length, attempts, `no attempt before the ${ms} ms wait ends`);
  await manual.tick(1);
  assert.equal(calls.length, attempts + 1, `the next attempt when the ${ms} ms wait ends`);
  return ms;
}

/**
 * Each of `attempts` attempts to a server that never answers is aborted at
 * `timeoutMs` and not a millisecond before; between them, the backoff is the
 * one timer left, and the next attempt comes when it fires.
 */
export async function abortedAtDeadline(manual, calls, requests, timeoutMs, attempts) {
  for (let attempt = 0; attempt < attempts; attempt++) {
    await until(() => requests.length === attempt + 1);
    await manual.tick(timeoutMs - 1);
    assert.equal(calls[attempt].signal.aborted, false, "still waiting 1 ms before timeoutMs");
    await manual.tick(1);
    assert.equal(calls[attempt].signal.aborted, true, "aborted at timeoutMs");
    if (attempt + 1 < attempts) {
      assert.equal(manual.armed().length, 1, "then one timer: the backoff");
      await manual.tick(manual.armed()[0]);
    }
  }
}
