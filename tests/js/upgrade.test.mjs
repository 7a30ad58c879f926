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
// version writes next comes after them. The first open rewrites 0.1.0's
// values (format 1) as format-2 segments and removes them; a crash at any
// step of that leaves data the next open reads and finishes upgrading.
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
import { observeUpgrade, openFixture } from "./upgrade/observe.mjs";

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

/** The format version of every stored value (the envelope's fifth byte). */
const versions = async (storage) => (await storage.loadRange([])).map((e) => e.data[4]);
const FORGOTTEN = "第7条"; // the message 0.1.0 forgot: none of its bytes were left

/** `inner`, dying after `life` operations: every later one fails, as in a crashed process. */
function dying(inner, life) {
  const state = { left: life, died: false };
  const adapter = {};
  for (const name of ["load", "save", "remove", "loadRange", "removeRange"]) {
    adapter[name] = async (...args) => {
      if (state.left-- <= 0) {
        state.died = true;
        throw new Error("the process died");
      }
      return inner[name](...args);
    };
  }
  return { adapter, state };
}

for (const [name, make] of [
  ["memoryStorage", async () => {
    const storage = memoryStorage();
    for (const { key, data } of stored) await storage.save(key, bytesOf(data));
    return { open: () => storage, done: async () => {} };
  }],
  ["nodeFileStorage", async () => {
    const dir = await fs.mkdtemp(join(tmpdir(), "agent-memory-upgrade-crash-"));
    await toFiles(fs, dir, stored);
    return { open: () => nodeFileStorage(dir), done: () => fs.rm(dir, { recursive: true, force: true }) };
  }],
]) {
  test(`${name}: a crash at every step of the upgrade leaves data the next open reads and finishes upgrading`, async () => {
    let steps = 0;
    for (let life = 0; ; life++) {
      const { open, done } = await make();
      try {
        // Small segments, so the upgrade writes several: more steps to crash in.
        const { adapter, state } = dying(open(), life);
        const opened = await openFixture(MemoryController, adapter, { segmentBytes: 16 * 1024 }).then((m) => m, (e) => e);
        if (opened instanceof Error) assert.equal(opened.code, "STORAGE_ERROR");
        const text = Buffer.concat((await open().loadRange([])).map((e) => e.data)).toString("utf8");
        assert.ok(!text.includes(FORGOTTEN), `crash at ${life}: forgotten text stored`);
        // Healthy processes: everything 0.1.0 held, once, and the upgrade finished.
        checkUpgrade(await observeUpgrade(MemoryController, open), `${name}, crash at ${life}`);
        assert.ok((await versions(open())).every((v) => v === 2), `crash at ${life}: a format-1 value is left`);
        if (!state.died) {
          steps = life;
          break;
        }
      } finally {
        await done();
      }
    }
    // loadRange, then four segments and the removal of 0.1.0's eleven values.
    assert.ok(steps >= 1 + 4 + 11, `the upgrade took ${steps} steps`);
  });
}

test("0.1.0 refuses what this version writes, and this version refuses format 3", async () => {
  const storage = memoryStorage();
  for (const { key, data } of stored) await storage.save(key, bytesOf(data));
  await (await openFixture(MemoryController, storage)).close();
  // Every value is format 2 now: 0.1.0's decoder (format 1) meets a higher version and refuses to load.
  assert.ok((await versions(storage)).every((v) => v === 2));
  const [first] = await storage.loadRange([]);
  const newer = first.data.slice();
  newer[4] = 3;
  await storage.save(first.key, newer);
  await assert.rejects(openFixture(MemoryController, storage), (e) => e.name === "MemoryError" && e.code === "FORMAT_TOO_NEW");
});
