// localStorageAdapter and indexedDBStorage pass the acceptance suite in
// headless Chromium (Debian's chromium via playwright-core), the IndexedDB
// one also inside a dedicated Web Worker; localStorage quota failures are
// STORAGE_QUOTA and damage nothing; IndexedDB copes with a second
// connection, a deleted database and databases it cannot use.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const root = fileURLToPath(new URL("../..", import.meta.url));
const types = { ".js": "text/javascript", ".mjs": "text/javascript", ".html": "text/html", ".wasm": "application/wasm", ".bin": "application/octet-stream" };

function serve() {
  const server = createServer(async (req, res) => {
    const path = normalize(join(root, decodeURIComponent(new URL(req.url, "http://x").pathname)));
    if (!path.startsWith(root)) return res.writeHead(403).end();
    try {
      const body = await readFile(path);
      res.writeHead(200, { "content-type": types[extname(path)] ?? "application/octet-stream" }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

let result;
const errors = [];
let server, browser;

before(async () => {
  server = await serve();
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  const page = await browser.newPage();
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  page.on("pageerror", (e) => errors.push(String(e)));
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

for (const [label, field] of [["memoryStorage", "memory"], ["localStorageAdapter", "localStorage"], ["indexedDBStorage", "indexedDB"], ["indexedDBStorage in a Web Worker", "worker"]]) {
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
