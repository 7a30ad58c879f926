// Secrets never stored, in headless Chromium: the redaction scenario of
// redact.test.mjs on indexedDBStorage and localStorageAdapter, checked on
// what the browser holds (every IndexedDB value, every localStorage item
// decoded) and on every summarizer and embedder request.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { launchChromium, serveStatic, watchErrors } from "./harness.mjs";
import { credentialValues, personalValues, leaked } from "./redact/scenario.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
let result;
const errors = [];
let server, browser;

before(async () => {
  server = await serveStatic(root);
  browser = await launchChromium();
  const page = await browser.newPage();
  watchErrors(page, errors);
  await page.goto(`http://127.0.0.1:${server.address().port}/tests/js/redact/index.html`);
  result = await page.waitForFunction(() => window.result, null, { timeout: 120_000 }).then((h) => h.jsonValue());
});

after(async () => {
  await browser?.close();
  server?.close();
});

test("the page ran without errors", () => {
  assert.equal(result.error, undefined, result.error);
  assert.deepEqual(errors, []);
});

for (const [label, field] of [["indexedDBStorage", "indexedDB"], ["localStorageAdapter", "localStorage"]]) {
  test(`Chromium: ${label}: no redacted value reaches a stored byte or a hook request`, () => {
    const r = result[field];
    assert.ok(r.summarized > 0, "the conversation compacted");
    assert.ok(r.raw.includes("[redacted:openai-key]") && r.raw.includes("[redacted:cn-id]"), "the raw values hold the records");
    const values = [...credentialValues(), ...personalValues()];
    assert.deepEqual(leaked(r.raw, values), [], "stored bytes");
    assert.deepEqual(leaked(r.hookText, values), [], "hook requests");
    assert.deepEqual(leaked(r.readable, values), [], "reads");
  });
}
