// localStorageAdapter and indexedDBStorage pass the acceptance suite in
// headless Chromium (Debian's chromium via playwright-core), the IndexedDB
// one also inside a dedicated Web Worker; localStorage quota failures are
// STORAGE_QUOTA and damage nothing; IndexedDB copes with a second
// connection, a deleted database and databases it cannot use.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { launchChromium, serveStatic, watchErrors } from "./harness.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));

let result;
const errors = [];
let server, browser;

before(async () => {
  server = await serveStatic(root);
  browser = await launchChromium();
  const page = await browser.newPage();
  watchErrors(page, errors);
  await page.goto(`http://127.0.0.1:${server.address().port}/tests/js/storage/index.html`);
  result = await page.waitForFunction(() => window.result, null, { timeout: 120_000 }).then((h) => h.jsonValue());
});

after(async () => {
  await browser?.close();
  server?.close();
});

const failures = (results) => results.filter((r) => !r.ok).map((r) => `${r.name}: ${r.error}`);

test("the page ran without errors", () => {
  assert.equal(result.error, undefined, result.error);
  assert.deepEqual(errors, []);
});

for (const [label, field] of [
  ["memoryStorage", "memory"],
  ["localStorageAdapter", "localStorage"],
  ["indexedDBStorage", "indexedDB"],
  ["indexedDBStorage in a Web Worker", "worker"],
]) {
  test(`Chromium: ${label} passes the acceptance suite`, () => {
    assert.ok(result[field]?.length >= 14, `ran ${result[field]?.length} cases`);
    assert.deepEqual(failures(result[field]), []);
  });
}

test("Chromium: a full localStorage fails with STORAGE_QUOTA and damages nothing", () => {
  const q = result.quota;
  assert.ok(q.saved > 0, "some values fit before the quota");
  assert.equal(q.isError, true);
  assert.equal(q.name, "MemoryError");
  assert.equal(q.code, "STORAGE_QUOTA");
  assert.equal(q.causeName, "QuotaExceededError");
  assert.ok(q.intact, "every value saved before the failure loads intact");
  assert.ok(q.failedKeyAbsent, "the failed save wrote nothing");
  assert.equal(q.overwrite, "MemoryError:STORAGE_QUOTA:QuotaExceededError");
  assert.ok(q.overwriteKeptOld, "a failed overwrite keeps the old value");
  assert.equal(q.rangeCount, q.saved);
  assert.ok(q.emptyAfterRemoveRange);
});

test("Chromium: IndexedDB across connections, deletion and unusable databases", () => {
  const i = result.idb;
  assert.deepEqual(i.otherSees, [1], "a second connection sees the first one's commit");
  assert.equal(i.rangeBoth, 2);
  assert.equal(i.delete, "deleted", "open adapters must not block deleteDatabase");
  assert.ok(i.afterDelete);
  assert.deepEqual(i.afterDeleteSave, [3], "adapters reopen after the database was deleted");
  assert.deepEqual(i.range, ['["a"]', '["a",""]', '["a","\\u0000"]', '["a","\uffff"]', '["a","\uffff","x"]'].sort());
  assert.equal(i.newerVersion, "MemoryError:STORAGE_ERROR:VersionError");
  assert.equal(i.foreignSchema, "MemoryError:STORAGE_ERROR:NotFoundError");
});
