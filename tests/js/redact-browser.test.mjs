// Secrets never stored, in headless Chromium: the redaction scenario of
// redact.test.mjs on indexedDBStorage and localStorageAdapter, checked on
// what the browser holds (every IndexedDB value, every localStorage item
// decoded) and on every summarizer and embedder request.
import { test } from "node:test";
import assert from "node:assert/strict";
import { withPageResult } from "./harness.mjs";
import { credentialValues, personalValues, leaked } from "./scrub/redact.mjs";

test("Chromium: indexedDBStorage and localStorageAdapter: no redacted value reaches a stored byte or a hook request", () =>
  withPageResult("/tests/js/scrub/index.html", 120_000, (result) => {
    for (const field of ["indexedDB", "localStorage"]) {
      const r = result[field];
      assert.ok(r.summarized > 0, `${field}: the conversation compacted`);
      assert.ok(r.raw.includes("[redacted:openai-key]") && r.raw.includes("[redacted:cn-id]"), `${field}: the raw values hold the records`);
      const values = [...credentialValues(), ...personalValues()];
      assert.deepEqual(leaked(r.raw, values), [], `${field}: stored bytes`);
      assert.deepEqual(leaked(r.hookText, values), [], `${field}: hook requests`);
      assert.deepEqual(leaked(r.readable, values), [], `${field}: reads`);
    }
  }));
