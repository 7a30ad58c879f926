// The storage adapter acceptance suite (`agent-memory/testing`). Framework
// agnostic on purpose: no node:test, no assert module, nothing but the
// adapter, so the same cases run in Node, a browser page and a Worker.
// Every built-in adapter passes it; a third-party adapter should too:
//
//   const results = await runStorageAdapterTests(() => myAdapter());
//   await assertStorageAdapter(() => myAdapter()); // throws listing failures
//
// `makeAdapter` is called once per case and must return an adapter that sees
// no keys (a fresh directory, database, or prefix), since cases read ranges
// back exactly.

// Also `forceTrapForTest`: makes the WebAssembly module trap on purpose, so
// an app can test what its users see when a bug in agent-memory traps it.
export { trapForTest as forceTrapForTest } from "./internal/loader.js";

const MB = 1024 * 1024;

class Failure extends Error {}
function check(cond, message) {
  if (!cond) throw new Failure(message);
}

// Deterministic bytes: a seeded xorshift, so a failure reproduces.
function bytes(length, seed = 1) {
  const out = new Uint8Array(length);
  let x = (seed * 0x9e3779b1) >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

const show = (key) => JSON.stringify(key);

function sameBytes(actual, expected, what) {
  check(
    actual instanceof Uint8Array,
    `${what}: expected a Uint8Array, got ${actual === undefined ? "undefined" : Object.prototype.toString.call(actual)}`,
  );
  check(actual.length === expected.length, `${what}: expected ${expected.length} bytes, got ${actual.length}`);
  for (let i = 0; i < expected.length; i++) {
    if (actual[i] !== expected[i]) check(false, `${what}: byte ${i} is ${actual[i]}, expected ${expected[i]}`);
  }
}

// loadRange(prefix) must return exactly `expected` ([key, bytes] pairs), in any order.
async function rangeIs(adapter, prefix, expected) {
  const got = await adapter.loadRange(prefix);
  check(Array.isArray(got), `loadRange(${show(prefix)}) must resolve to an array`);
  const byKey = new Map(got.map((e) => [show(e.key), e.data]));
  check(byKey.size === got.length, `loadRange(${show(prefix)}) returned a key twice`);
  const want = new Map(expected.map(([k, v]) => [show(k), v]));
  const extra = [...byKey.keys()].filter((k) => !want.has(k));
  const missing = [...want.keys()].filter((k) => !byKey.has(k));
  check(
    !extra.length && !missing.length,
    `loadRange(${show(prefix)}): unexpected ${extra.join(" ") || "none"}; missing ${missing.join(" ") || "none"}`,
  );
  for (const [k, v] of want) sameBytes(byKey.get(k), v, `loadRange(${show(prefix)}) value of ${k}`);
}

async function loadsAs(adapter, key, expected) {
  const got = await adapter.load(key);
  if (expected === undefined) check(got === undefined, `load(${show(key)}) should be undefined, got ${got?.length} bytes`);
  else sameBytes(got, expected, `load(${show(key)})`);
}

// Keys that trip naive encodings: separators of common schemes, escape
// characters, empty segments, case-only differences, path tricks, unicode
// (a lone surrogate is a legal JS string), and segment-boundary confusions.
const TRICKY = [
  ["a"],
  ["a", "b"],
  ["a/b"],
  ["a:b"],
  ["a%2Fb"],
  ["a%"],
  ["%"],
  ["a\\b"],
  ["a.v"],
  ["a", "b/"],
  ["\u0000"],
  ["a\u0000b"],
  ["a", "\u0000"],
  ["\u0001"],
  [""],
  ["", ""],
  ["a", ""],
  ["", "a"],
  ["."],
  [".."],
  ["..", "x"],
  ["CON"],
  ["con"],
  ["Aa"],
  ["aA"],
  ["aa"],
  [" "],
  ["a "],
  ["日本語", "🙂"],
  ["\uD800"],
  ["\uDC00x"],
  ["e\u0301"],
  ["é"],
  ["x".repeat(100)],
];

const CASES = {
  async "missing key loads undefined"(a) {
    await loadsAs(a, ["missing"], undefined);
    await a.save(["a", "b"], bytes(3));
    await loadsAs(a, ["a"], undefined); // a prefix of a stored key is not a key
    await loadsAs(a, ["a", "b", "c"], undefined);
    await rangeIs(a, ["nothing"], []);
  },
  async "save then load returns the same bytes"(a) {
    const v = bytes(1000, 2);
    await a.save(["ns", "log", "000001"], v);
    await loadsAs(a, ["ns", "log", "000001"], v);
  },
  async "overwrite replaces the value, longer or shorter"(a) {
    for (const [i, size] of [10, MB, 5, 300_000, 0].entries()) {
      const v = bytes(size, i + 3);
      await a.save(["k"], v);
      await loadsAs(a, ["k"], v);
      await rangeIs(a, ["k"], [[["k"], v]]);
    }
  },
  async "1 MB value round-trips"(a) {
    const v = bytes(MB, 9);
    await a.save(["big"], v);
    await loadsAs(a, ["big"], v);
    await rangeIs(a, [], [[["big"], v]]);
  },
  async "every byte value 0..255 and the empty value"(a) {
    const all = Uint8Array.from({ length: 512 }, (_, i) => i & 0xff);
    await a.save(["all"], all);
    await a.save(["empty"], new Uint8Array(0));
    await a.save(["zeros"], new Uint8Array(1000));
    await loadsAs(a, ["all"], all);
    await loadsAs(a, ["empty"], new Uint8Array(0));
    await loadsAs(a, ["zeros"], new Uint8Array(1000));
  },
  async "returned bytes are copies"(a) {
    const v = bytes(64, 4);
    const kept = v.slice();
    await a.save(["c"], v);
    v.fill(0); // the caller reuses its buffer after save
    await loadsAs(a, ["c"], kept);
    const first = await a.load(["c"]);
    first.fill(1); // the caller mutates what load gave it
    await loadsAs(a, ["c"], kept);
    (await a.loadRange(["c"]))[0].data.fill(2);
    await loadsAs(a, ["c"], kept);
  },
  async "a view saves only its own bytes"(a) {
    const buffer = bytes(4096, 5);
    const view = buffer.subarray(1000, 1100);
    await a.save(["view"], view);
    await loadsAs(a, ["view"], buffer.slice(1000, 1100));
  },
  async "prefix matches whole segments only"(a) {
    const keys = [["AA"], ["AAB"], ["AA", "x"], ["A"], ["AA", "x", "y"], ["AAB", "x"]];
    for (const [i, k] of keys.entries()) await a.save(k, bytes(8, 10 + i));
    await rangeIs(
      a,
      ["AA"],
      [
        [["AA"], bytes(8, 10)],
        [["AA", "x"], bytes(8, 12)],
        [["AA", "x", "y"], bytes(8, 14)],
      ],
    );
    await rangeIs(a, ["A"], [[["A"], bytes(8, 13)]]);
    await a.removeRange(["AA"]);
    await rangeIs(
      a,
      [],
      [
        [["AAB"], bytes(8, 11)],
        [["A"], bytes(8, 13)],
        [["AAB", "x"], bytes(8, 15)],
      ],
    );
  },
  async "keys with separators, escapes and unicode stay distinct"(a) {
    const expected = TRICKY.map((k, i) => [k, bytes(16 + i, 100 + i)]);
    for (const [k, v] of expected) await a.save(k, v);
    for (const [k, v] of expected) await loadsAs(a, k, v);
    await rangeIs(a, [], expected);
    await rangeIs(
      a,
      ["a"],
      expected.filter(([k]) => k[0] === "a"),
    );
    await rangeIs(
      a,
      [""],
      expected.filter(([k]) => k[0] === ""),
    );
    await rangeIs(
      a,
      [".."],
      expected.filter(([k]) => k[0] === ".."),
    );
    await a.removeRange(["a"]);
    await rangeIs(
      a,
      [],
      expected.filter(([k]) => k[0] !== "a"),
    );
  },
  async "loadRange returns exactly the matching keys"(a) {
    const entries = [
      [["n", "log", "1"], bytes(10, 1)],
      [["n", "log", "2"], bytes(20, 2)],
      [["n", "snap"], bytes(30, 3)],
      [["n2", "log", "1"], bytes(5, 4)],
    ];
    for (const [k, v] of entries) await a.save(k, v);
    await rangeIs(a, ["n", "log"], entries.slice(0, 2));
    await rangeIs(a, ["n"], entries.slice(0, 3));
    await rangeIs(a, ["n", "log", "1"], entries.slice(0, 1));
    await rangeIs(a, ["n", "lo"], []);
    await rangeIs(a, [], entries);
  },
  async "removeRange removes exactly the matching keys"(a) {
    const entries = [
      [["n", "log", "1"], bytes(10, 1)],
      [["n", "log", "2"], bytes(MB / 2, 2)],
      [["n", "logs"], bytes(30, 3)],
      [["n"], bytes(7, 5)],
      [["m"], bytes(5, 4)],
    ];
    for (const [k, v] of entries) await a.save(k, v);
    await a.removeRange(["n", "log"]);
    await rangeIs(a, [], entries.slice(2));
    await a.removeRange(["missing"]);
    await a.removeRange(["n"]);
    await rangeIs(a, [], entries.slice(4));
    await a.removeRange([]);
    await rangeIs(a, [], []);
  },
  async "remove deletes one key and tolerates a missing one"(a) {
    await a.save(["r"], bytes(4, 1));
    await a.save(["r", "child"], bytes(4, 2));
    await a.save(["big"], bytes(MB, 3));
    await a.remove(["missing"]);
    await a.remove(["r", "missing", "deeper"]);
    await a.remove(["r"]);
    await a.remove(["big"]);
    await loadsAs(a, ["r"], undefined);
    await rangeIs(a, [], [[["r", "child"], bytes(4, 2)]]);
  },
  async "concurrent saves to distinct keys all land"(a) {
    const entries = Array.from({ length: 50 }, (_, i) => [["c", String(i).padStart(3, "0")], bytes(1000 + i * 37, i)]);
    await Promise.all(entries.map(([k, v]) => a.save(k, v)));
    await rangeIs(a, ["c"], entries);
  },
  async "concurrent saves to one key leave one intact value"(a) {
    const values = Array.from({ length: 50 }, (_, i) => bytes(i % 4 === 0 ? 300_000 + i : 1000 + i, 500 + i));
    await Promise.all(values.map((v) => a.save(["same"], v)));
    const got = await a.load(["same"]);
    check(got instanceof Uint8Array, "load after concurrent saves returned no bytes");
    const match = values.findIndex((v) => v.length === got.length && v.every((b, i) => got[i] === b));
    check(match >= 0, `the value after 50 concurrent saves (${got.length} bytes) is none of the values saved: torn or mixed`);
    const range = await a.loadRange(["same"]);
    check(range.length === 1, `loadRange(["same"]) returned ${range.length} entries`);
    const last = bytes(777, 9);
    await a.save(["same"], last); // once the race is over, the next save wins
    await loadsAs(a, ["same"], last);
  },
};

/** Names of every case, in the order they run. */
export const storageAdapterTestNames = Object.keys(CASES);

/**
 * Runs every case (or those named in `only`) against a fresh adapter each.
 * Never throws for a failing case: each result says ok or why not.
 * @returns {Promise<{ name: string, ok: boolean, error?: string }[]>}
 */
export async function runStorageAdapterTests(makeAdapter, { only, timeoutMs = 60_000 } = {}) {
  const results = [];
  for (const [name, run] of Object.entries(CASES)) {
    if (only && !only.includes(name)) continue;
    let timer;
    try {
      const adapter = await makeAdapter();
      const timeout = new Promise(
        (_, reject) => (timer = setTimeout(() => reject(new Failure(`timed out after ${timeoutMs} ms`)), timeoutMs)),
      );
      await Promise.race([run(adapter), timeout]);
      results.push({ name, ok: true });
    } catch (e) {
      const message = e instanceof Failure ? e.message : `threw ${e?.name ?? "error"}${e?.code ? ` (${e.code})` : ""}: ${e?.message ?? e}`;
      results.push({ name, ok: false, error: message });
    } finally {
      clearTimeout(timer);
    }
  }
  return results;
}

/** Runs the suite and throws one Error listing every failed case. */
export async function assertStorageAdapter(makeAdapter, options) {
  const results = await runStorageAdapterTests(makeAdapter, options);
  const failed = results.filter((r) => !r.ok);
  if (failed.length) {
    throw new Error(
      `storage adapter failed ${failed.length} of ${results.length} cases:\n${failed.map((r) => `- ${r.name}: ${r.error}`).join("\n")}`,
    );
  }
  return results;
}
