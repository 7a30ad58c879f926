// The acceptance suite itself: each classic adapter bug makes the case meant
// to catch it fail, and a failing, throwing or hanging adapter yields
// results rather than an exception. Without this, a weakened case would pass
// every real adapter silently.
import { test } from "node:test";
import assert from "node:assert/strict";
import { assertStorageAdapter, runStorageAdapterTests, storageAdapterTestNames } from "../../dist/testing.js";

// A Map adapter with switchable bugs.
function buggy({
  encode = (k) => JSON.stringify(k),
  matches,
  alias = false,
  wholeBuffer = false,
  removeRange = true,
  shareOnLoad = false,
} = {}) {
  const map = new Map();
  const inRange =
    matches ??
    ((name, prefix) => {
      const k = JSON.parse(name);
      return prefix.every((s, i) => k[i] === s);
    });
  const keyOf = (name) => (matches ? name.split("/") : JSON.parse(name));
  return {
    async load(key) {
      const v = map.get(encode(key));
      return v === undefined ? undefined : shareOnLoad ? v : v.slice();
    },
    async save(key, data) {
      map.set(encode(key), wholeBuffer ? new Uint8Array(data.buffer) : alias ? data : data.slice());
    },
    async remove(key) {
      map.delete(encode(key));
    },
    async loadRange(prefix) {
      return [...map].filter(([n]) => inRange(n, prefix)).map(([n, v]) => ({ key: keyOf(n), data: v.slice() }));
    },
    async removeRange(prefix) {
      if (removeRange) for (const [n] of [...map]) if (inRange(n, prefix)) map.delete(n);
    },
  };
}

const failing = async (make, opts) => (await runStorageAdapterTests(make, opts)).filter((r) => !r.ok).map((r) => r.name);

test("a correct reference adapter passes every case", async () => {
  assert.deepEqual(await failing(() => buggy()), []);
});

test("each classic bug fails the case meant to catch it", async () => {
  const naive = { encode: (k) => k.join("/"), matches: (n, p) => n.startsWith(p.join("/")) };
  const cases = [
    ["keys joined with '/' (not injective)", naive, "keys with separators, escapes and unicode stay distinct"],
    ["string-prefix ranges without segment boundaries", naive, "prefix matches whole segments only"],
    ["save keeps the caller's array", { alias: true }, "returned bytes are copies"],
    ["load hands out the stored array", { shareOnLoad: true }, "returned bytes are copies"],
    ["save stores the view's whole buffer", { wholeBuffer: true }, "a view saves only its own bytes"],
    ["removeRange does nothing", { removeRange: false }, "removeRange removes exactly the matching keys"],
  ];
  for (const [bug, opts, caseName] of cases) {
    assert.ok((await failing(() => buggy(opts))).includes(caseName), `${bug}: "${caseName}" should fail`);
  }
});

test("an adapter that throws or hangs yields failed results, never an exception", async () => {
  const throwing = {
    load: () => Promise.reject(new Error("boom")),
    save: () => {
      throw new Error("sync boom");
    },
    remove: async () => {},
    loadRange: async () => [],
    removeRange: async () => {},
  };
  const results = await runStorageAdapterTests(() => throwing);
  assert.equal(results.length, storageAdapterTestNames.length);
  assert.ok(results.every((r) => !r.ok && typeof r.error === "string"));
  const hanging = { ...throwing, load: () => new Promise(() => {}) };
  const [slow] = await runStorageAdapterTests(() => hanging, { only: ["missing key loads undefined"], timeoutMs: 50 });
  assert.match(slow.error, /timed out/);
  const [broken] = await runStorageAdapterTests(
    () => {
      throw new Error("no adapter");
    },
    { only: ["save then load returns the same bytes"] },
  );
  assert.match(broken.error, /no adapter/);
});

test("assertStorageAdapter lists every failed case in one Error", async () => {
  await assert.rejects(
    assertStorageAdapter(() => buggy({ alias: true, removeRange: false })),
    (e) => {
      const [, n] = e.message.match(/failed (\d+) of \d+ cases/);
      assert.equal(e.message.split("\n- ").length - 1, Number(n), "one line per failed case");
      assert.match(e.message, /- returned bytes are copies: /);
      assert.match(e.message, /- removeRange removes exactly the matching keys: /);
      return true;
    },
  );
  assert.equal((await assertStorageAdapter(() => buggy())).length, storageAdapterTestNames.length);
});
