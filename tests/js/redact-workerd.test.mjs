// Secrets never stored, in workerd (miniflare 4): the redaction scenario of
// redact.test.mjs on cloudflareKVStorage and durableObjectStorage (both
// backends), checked on the raw values the backend holds (scrub/worker.mjs)
// and on every summarizer and embedder request.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { testWorker } from "./harness.mjs";
import { credentialValues, personalValues, leaked } from "./scrub/redact.mjs";

let mf;
const responses = {};

before(async () => {
  mf = testWorker("scrub/worker.mjs", "ScrubDO");
  for (const path of ["kv", "do", "do-sql"]) responses[path] = await (await mf.dispatchFetch(`http://localhost/${path}`)).json();
});

after(() => mf?.dispose());

for (const [label, path] of [
  ["cloudflareKVStorage", "kv"],
  ["durableObjectStorage (KV-backed object)", "do"],
  ["durableObjectStorage (SQLite-backed object)", "do-sql"],
]) {
  test(`workerd: ${label}: no redacted value reaches a stored byte or a hook request`, () => {
    const r = responses[path];
    assert.equal(r.error, undefined, r.error);
    assert.ok(r.summarized > 0, "the conversation compacted");
    assert.ok(r.raw.includes("[redacted:openai-key]") && r.raw.includes("[redacted:private-key]"), "the raw values hold the records");
    const values = [...credentialValues(), ...personalValues()];
    assert.deepEqual(leaked(r.raw, values), [], "stored bytes");
    assert.deepEqual(leaked(r.hookText, values), [], "hook requests");
    assert.deepEqual(leaked(r.readable, values), [], "reads");
    assert.deepEqual(r.results.tool.redacted, { jwt: 1, "private-key": 1, "url-password": 1 });
  });
}
