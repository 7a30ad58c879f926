// Retention that scrubs, in workerd (miniflare 4): the scenario of
// retention.test.mjs on cloudflareKVStorage and durableObjectStorage (both
// backends), checked on the raw values the backend holds (scrub/worker.mjs).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { testWorker } from "./harness.mjs";
import { problems } from "./scrub/retention.mjs";

let mf;
const responses = {};

before(async () => {
  mf = testWorker("scrub/worker.mjs", "ScrubDO");
  for (const path of ["kv", "do", "do-sql"])
    responses[path] = await (await mf.dispatchFetch(`http://localhost/${path}?scenario=retention`)).json();
});

after(() => mf?.dispose());

for (const [label, path] of [
  ["cloudflareKVStorage", "kv"],
  ["durableObjectStorage (KV-backed object)", "do"],
  ["durableObjectStorage (SQLite-backed object)", "do-sql"],
]) {
  test(`workerd: ${label}: expired messages leave every stored byte and read, bounded per call`, () => {
    const r = responses[path];
    assert.equal(r.error, undefined, r.error);
    assert.deepEqual(problems(r, r.raw), []);
  });
}
