// Data written by 0.1.0 loads with the same ids, order, facts (with their
// history), episodes, embeddings, procedures and cost, through every adapter:
// memoryStorage and nodeFileStorage in Node, localStorageAdapter and
// indexedDBStorage in Chromium, cloudflareKVStorage and durableObjectStorage
// (both backends) in workerd. The fixtures in tests/fixtures/v0.1.0 were
// written by the package built from 0.1.0's commit (generate.mjs says how):
// the stored bytes, and what 0.1.0 itself reported after a reload. Each
// backend gets those bytes laid out as 0.1.0's adapter stored them
// (upgrade/layout-v010.mjs); upgrade/observe.mjs opens them three times with
// the current package and upgrade/compare.mjs checks what it reported.
// 0.1.0's records carry no `lc`; they load in their time order, and what this
// version writes next comes after them.
//
// Not covered: values 0.1.0 split into Durable Object pieces (the fixture's
// largest value is 61 KB, under the 127 KiB piece size).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryController, memoryStorage, nodeFileStorage } from "../../dist/node.js";
import { testWorker, withPageResult } from "./harness.mjs";
import { checkUpgrade, expected, stored } from "./upgrade/compare.mjs";
import { bytesOf, toFiles } from "./upgrade/layout-v010.mjs";
import { observeUpgrade } from "./upgrade/observe.mjs";

let mf;
before(() => (mf = testWorker("upgrade/worker.mjs", "UpgradeDO")));
after(() => mf?.dispose());

test("the fixture covers packs, log records, episodes and embeddings", () => {
  const kinds = new Set(stored.map((e) => e.key[1]));
  assert.ok(kinds.has("pack") && kinds.has("log") && expected.episodes.length > 0 && expected.embeddings > 0);
});

test("0.1.0's data loads unchanged through memoryStorage", async () => {
  const storage = memoryStorage(); // no layout of its own: the bytes go in through save
  for (const { key, data } of stored) await storage.save(key, bytesOf(data));
  checkUpgrade(await observeUpgrade(MemoryController, () => storage), "memoryStorage");
});

test("0.1.0's files load unchanged through nodeFileStorage", async () => {
  const dir = await fs.mkdtemp(join(tmpdir(), "agent-memory-upgrade-"));
  try {
    await toFiles(fs, dir, stored);
    checkUpgrade(await observeUpgrade(MemoryController, () => nodeFileStorage(dir)), "nodeFileStorage");
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
});

test("Chromium: 0.1.0's localStorage items and IndexedDB entries load unchanged", () =>
  withPageResult("/tests/js/upgrade/index.html", 120_000, (result) => {
    checkUpgrade(result.localStorage, "localStorageAdapter");
    checkUpgrade(result.indexedDB, "indexedDBStorage");
  }));

for (const [label, path] of [["cloudflareKVStorage", "kv"], ["durableObjectStorage (KV-backed object)", "do"], ["durableObjectStorage (SQLite-backed object)", "do-sql"]]) {
  test(`workerd: 0.1.0's data loads unchanged through ${label}`, async () => {
    const result = await (await mf.dispatchFetch(`http://localhost/${path}`, { method: "POST", body: JSON.stringify(stored) })).json();
    assert.equal(result.error, undefined, result.error);
    checkUpgrade(result, label);
  });
}
