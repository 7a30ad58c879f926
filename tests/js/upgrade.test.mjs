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
// step of that leaves data the next open reads and finishes upgrading, through
// every adapter (upgrade/crash.mjs runs the lives in each runtime).
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
import { crashEveryStep } from "./upgrade/crash.mjs";
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

for (const [label, path] of [
  ["cloudflareKVStorage", "kv"],
  ["durableObjectStorage (KV-backed object)", "do"],
  ["durableObjectStorage (SQLite-backed object)", "do-sql"],
]) {
  test(`workerd: 0.1.0's data loads unchanged through ${label}`, async () => {
    const result = await (await mf.dispatchFetch(`http://localhost/${path}`, { method: "POST", body: JSON.stringify(stored) })).json();
    assert.equal(result.error, undefined, result.error);
    checkUpgrade(result, label);
  });
}

/** The format version of every stored value (the envelope's fifth byte). */
const versions = async (storage) => (await storage.loadRange([])).map((e) => e.data[4]);

/** What crashEveryStep reported: each crash left data that loads whole, the forgotten text gone, the upgrade finished. */
function checkCrashes(lives, label) {
  assert.ok(Array.isArray(lives), JSON.stringify(lives).slice(0, 2000));
  for (const { life, error, forgottenStored, observed, versions: v } of lives) {
    assert.ok(error === null || error === "STORAGE_ERROR", `${label}, crash at ${life}: ${error}`);
    assert.ok(!forgottenStored, `${label}, crash at ${life}: forgotten text stored`);
    // Healthy processes: everything 0.1.0 held, once, and the upgrade finished.
    checkUpgrade(observed, `${label}, crash at ${life}`);
    assert.ok(
      v.every((x) => x === 2),
      `${label}, crash at ${life}: a format-1 value is left`,
    );
  }
  const last = lives.at(-1);
  assert.equal(last.died, false, `${label}: no life finished the upgrade`);
  // loadRange, then four segments and the removal of 0.1.0's eleven values.
  assert.ok(last.life >= 1 + 4 + 11, `${label}: the upgrade took ${last.life} steps`);
}

for (const [name, make] of [
  [
    "memoryStorage",
    async () => {
      const storage = memoryStorage();
      return {
        fresh: async () => {
          await storage.removeRange([]);
          for (const { key, data } of stored) await storage.save(key, bytesOf(data));
          return () => storage;
        },
        done: async () => {},
      };
    },
  ],
  [
    "nodeFileStorage",
    async () => {
      const dir = await fs.mkdtemp(join(tmpdir(), "agent-memory-upgrade-crash-"));
      return {
        fresh: async () => {
          await fs.rm(dir, { recursive: true, force: true });
          await toFiles(fs, dir, stored);
          return () => nodeFileStorage(dir);
        },
        done: () => fs.rm(dir, { recursive: true, force: true }),
      };
    },
  ],
]) {
  test(`${name}: a crash at every step of the upgrade leaves data the next open reads and finishes upgrading`, async () => {
    const { fresh, done } = await make();
    try {
      checkCrashes(await crashEveryStep(MemoryController, fresh), name);
    } finally {
      await done();
    }
  });
}

test("Chromium: a crash at every step of the upgrade, in localStorage and IndexedDB", () =>
  withPageResult("/tests/js/upgrade/crash.html", 300_000, (result) => {
    checkCrashes(result.localStorage, "localStorageAdapter");
    checkCrashes(result.indexedDB, "indexedDBStorage");
  }));

for (const [label, path] of [
  ["cloudflareKVStorage", "kv"],
  ["durableObjectStorage (KV-backed object)", "do"],
  ["durableObjectStorage (SQLite-backed object)", "do-sql"],
]) {
  test(`workerd: a crash at every step of the upgrade through ${label}`, async () => {
    const result = await (
      await mf.dispatchFetch(`http://localhost/${path}/crash`, { method: "POST", body: JSON.stringify(stored) })
    ).json();
    assert.equal(result.error, undefined, result.error);
    checkCrashes(result, label);
  });
}

test("0.1.0 refuses what this version writes, and this version refuses format 3", async () => {
  const storage = memoryStorage();
  for (const { key, data } of stored) await storage.save(key, bytesOf(data));
  await (await openFixture(MemoryController, storage)).close();
  // Every value is format 2 now: 0.1.0's decoder (format 1) meets a higher version and refuses to load.
  assert.ok((await versions(storage)).every((v) => v === 2));
  const values = await storage.loadRange([]);
  const tooNew = (e) => e.name === "MemoryError" && e.code === "FORMAT_TOO_NEW";
  // A cold segment (opening does not read it): refused by the first call that reads the cold segments.
  const archived = values.find((v) => v.key[1] === "arc");
  assert.ok(archived, "the upgrade wrote cold segments");
  await storage.save(
    archived.key,
    Uint8Array.from(archived.data, (b, i) => (i === 4 ? 3 : b)),
  );
  const memory = await openFixture(MemoryController, storage);
  await assert.rejects(memory.history(), tooNew);
  await assert.rejects(memory.search("anything"), tooNew);
  const ctx = await memory.buildContext({ maxTokens: 2000, query: "anything" });
  assert.equal(ctx.sections.knowledge.degraded?.code, "FORMAT_TOO_NEW", "a query degrades to what is in memory");
  await memory.close();
  await storage.save(archived.key, archived.data);
  // Any other value: opening refuses.
  const first = values.find((v) => v.key[1] !== "arc");
  await storage.save(
    first.key,
    Uint8Array.from(first.data, (b, i) => (i === 4 ? 3 : b)),
  );
  await assert.rejects(openFixture(MemoryController, storage), tooNew);
});
