// cloudflareKVStorage and durableObjectStorage pass the acceptance suite in
// workerd (miniflare 4), the Durable Object one on both storage backends,
// and write what they claim: KV key names within 512 bytes, list cursors
// followed; DO values in pieces of at most 128 KiB, no orphan pieces after
// overwrites, races or removal, other entries of the object left alone.
//
// Not reproducible here: KV's eventual consistency across locations (a
// single miniflare instance is one location, reads after writes are
// immediate), its 1-write-per-second-per-key limit, and the production size
// limits (miniflare enforces neither KV's 512-byte keys nor DO's 128 KiB
// values, so the checks inspect what the adapters write instead).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { testWorker } from "./harness.mjs";

let mf;
const responses = {};

before(async () => {
  mf = testWorker("storage/worker.mjs", "MemoryDO");
  for (const path of ["kv", "do", "do-sql"]) responses[path] = await (await mf.dispatchFetch(`http://localhost/${path}`)).json();
});

after(() => mf?.dispose());

const failures = (results) => results.filter((r) => !r.ok).map((r) => `${r.name}: ${r.error}`);

for (const [label, path] of [
  ["cloudflareKVStorage", "kv"],
  ["durableObjectStorage (KV-backed object)", "do"],
  ["durableObjectStorage (SQLite-backed object)", "do-sql"],
]) {
  test(`workerd: ${label} passes the acceptance suite`, () => {
    const r = responses[path];
    assert.equal(r.error, undefined, r.error);
    assert.ok(r.results.length >= 14, `ran ${r.results.length} cases`);
    assert.deepEqual(failures(r.results), []);
  });
}

test("workerd: KV key names stay within 512 bytes, ranges follow list cursors", () => {
  const c = responses.kv.checks;
  assert.equal(c.key511, "resolved");
  assert.equal(c.key512, "MemoryError:STORAGE_KEY_TOO_LONG");
  assert.equal(c.cjk170, "resolved");
  assert.equal(c.cjk171, "MemoryError:STORAGE_KEY_TOO_LONG");
  assert.equal(c.longPrefixRange, 0);
  assert.equal(c.paged, 1100, "loadRange past the first 1,000-key list page");
  assert.ok(c.pagedIntact);
  assert.ok(c.foreignIgnored);
  assert.deepEqual(c.afterRemoveRange, ["someone-else"], "removeRange([]) removes only this adapter's keys");
});

for (const [label, path] of [
  ["KV-backed", "do"],
  ["SQLite-backed", "do-sql"],
]) {
  test(`workerd: Durable Object (${label}) values split into ≤128 KiB pieces, no orphans`, () => {
    const c = responses[path].checks;
    assert.equal(c.bigEntries, 1 + Math.ceil((1024 * 1024) / (127 * 1024)), "1 MB = manifest + pieces");
    assert.ok(c.bigMaxValue <= 128 * 1024, `largest stored value ${c.bigMaxValue} bytes`);
    assert.equal(c.afterShrink, 1, "overwriting with a small value deletes the old pieces");
    assert.equal(c.afterRemove, 0);
    assert.ok(c.raceConsistent, "racing saves from two adapters leave exactly the winner's entries");
    assert.equal(c.paged, 300);
    assert.ok(c.pagedIntact);
    assert.ok(c.foreignIgnored);
    assert.deepEqual(c.afterRemoveRange, ["app-state"], "removeRange([]) leaves the object's other entries");
    assert.equal(c.keyTooLong, "MemoryError:STORAGE_KEY_TOO_LONG");
    assert.equal(c.keyMax, "resolved");
  });
}
