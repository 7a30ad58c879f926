// Seeded fault and crash injection through the built package with its JS
// adapters (tests/js/faults/run.mjs): memoryStorage and nodeFileStorage in
// Node, indexedDBStorage in Chromium, cloudflareKVStorage and
// durableObjectStorage (both backends) in workerd. Failing saves, lost
// acknowledgements, processes that die mid-run, clocks that tie and run
// backwards; after three lives every acknowledged change is there, in order,
// once.
//
// What the workerd runs show: the controller and the adapters on workerd's
// real KV and Durable Object storage APIs (values, listing, deletes, the
// Durable Object adapter's queue and batches) keep every acknowledged change
// through failures, lost acknowledgements and restarts. What they do not:
// miniflare's KV is one local store, read-your-writes and consistent listing,
// whereas production KV may serve a stale value or listing for up to 60 s in
// another location, so a restart there may not see the last life's records
// (and what it writes may then sort before them); nor KV's one write per
// second per key, nor an isolate or object that dies with writes in flight
// (a "crash" here is the adapter failing every call from a random point on,
// while workerd itself stays up, so a write the runtime had taken lands).
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryController, memoryStorage, nodeFileStorage } from "../../dist/node.js";
import { faultRuns } from "./faults/run.mjs";
import { crashSweep, seededImportRuns } from "./faults/import-run.mjs";
import { retentionCrashSweep } from "./faults/retention-run.mjs";
import { consolidateSweep, seededConsolidateRuns } from "./faults/consolidate-run.mjs";
import { testWorker, withPageResult } from "./harness.mjs";

const seeds = (n) => Array.from({ length: n }, (_, i) => i + 1);

/** The run held, and the faults it was meant to survive really happened. */
function check(result) {
  assert.deepEqual(result.failures, []);
  for (const kind of ["failuresInjected", "lostAcks", "afterCrash", "rejected"]) assert.ok(result[kind] > 0, `no ${kind} injected`);
  assert.ok(result.acked > 0 && result.episodes > 0, "the runs added and compacted");
}

test("memoryStorage: 300 seeded runs of faults, crashes and wild clocks lose and reorder nothing", async () => {
  const stores = new Map();
  const open = (seed) => stores.get(seed) ?? stores.set(seed, memoryStorage()).get(seed);
  check(await faultRuns({ MemoryController, open, seeds: seeds(300) }));
});

test("nodeFileStorage: 40 seeded runs on real files", async () => {
  const dir = await mkdtemp(join(tmpdir(), "agent-memory-faults-"));
  try {
    // A new adapter on the same directory for each life, as a restarted process makes.
    check(await faultRuns({ MemoryController, open: (seed) => nodeFileStorage(join(dir, String(seed))), seeds: seeds(40) }));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

// importConversations (tests/js/faults/import-run.mjs): a crash at every
// storage operation of an import in turn, and seeded faults; after a
// healthy rerun each thread holds what a clean import stores, once.
for (const format of ["chatgpt", "claude", "openai"]) {
  const data = readFileSync(new URL(`../fixtures/import/${format}.json`, import.meta.url), "utf8");
  test(`memoryStorage: importing the ${format} export, crashed at every storage operation and rerun, stores each message once`, async () => {
    const stores = new Map();
    const open = (name) => stores.get(name) ?? stores.set(name, memoryStorage()).get(name);
    const sweep = await crashSweep({ MemoryController, open, data });
    assert.deepEqual(sweep.failures, []);
    assert.ok(sweep.crashed > 10 && sweep.threads >= 2, `${sweep.crashed} crashes over ${sweep.threads} threads`);
    const runs = await seededImportRuns({ MemoryController, open, data, seeds: seeds(30) });
    assert.deepEqual(runs.failures, []);
    for (const kind of ["failures", "lostAcks", "afterCrash"]) assert.ok(runs.injected[kind] > 0, `no ${kind} injected`);
  });
}

test("nodeFileStorage: the ChatGPT import crashed at every storage operation, on real files", async () => {
  const dir = await mkdtemp(join(tmpdir(), "agent-memory-import-faults-"));
  try {
    const data = readFileSync(new URL("../fixtures/import/chatgpt.json", import.meta.url), "utf8");
    const sweep = await crashSweep({ MemoryController, open: (name) => nodeFileStorage(join(dir, name)), data });
    assert.deepEqual(sweep.failures, []);
    assert.ok(sweep.crashed > 10 && sweep.episodes > 0, `${sweep.crashed} crashes, ${sweep.episodes} episodes`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

// Retention (tests/js/faults/retention-run.mjs): a crash at every storage
// operation of an opening that expires old turns; after a healthy reopen
// the expiry completes and nothing that had not expired is lost.
test("memoryStorage: an expiry crashed at every storage operation completes on reopening and loses nothing else", async () => {
  const stores = new Map();
  const open = (name) => stores.get(name) ?? stores.set(name, memoryStorage()).get(name);
  const raw = async (name) => (await open(name).loadRange([])).map((e) => Buffer.from(e.data).toString("utf8")).join("\n");
  const sweep = await retentionCrashSweep({ MemoryController, open, raw });
  assert.deepEqual(sweep.failures, []);
  assert.ok(sweep.crashed > 10, `${sweep.crashed} crashes over ${sweep.ops} operations`);
});

test("nodeFileStorage: an expiry crashed at every storage operation, on real files", async () => {
  const dir = await mkdtemp(join(tmpdir(), "agent-memory-retention-faults-"));
  try {
    const raw = async (name) => {
      const out = [];
      for (const e of await readdir(join(dir, name), { withFileTypes: true, recursive: true }))
        if (e.isFile()) out.push(await readFile(join(e.parentPath ?? e.path, e.name), "utf8"));
      return out.join("\n");
    };
    const sweep = await retentionCrashSweep({ MemoryController, open: (name) => nodeFileStorage(join(dir, name)), raw });
    assert.deepEqual(sweep.failures, []);
    assert.ok(sweep.crashed > 10, `${sweep.crashed} crashes over ${sweep.ops} operations`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

// consolidate() (tests/js/faults/consolidate-run.mjs): a crash at every
// storage operation of a consolidation in turn, offline and with a model, and
// seeded failures and lost acknowledgements retried in one process; after a
// healthy rerun the live facts are a clean run's, nothing lost or twice.
for (const model of [false, true]) {
  test(`memoryStorage: consolidate ${model ? "by a model" : "offline"}, crashed at every storage operation and rerun, converges`, async () => {
    const stores = new Map();
    const open = (name) => stores.get(name) ?? stores.set(name, memoryStorage()).get(name);
    const sweep = await consolidateSweep({ MemoryController, open, model });
    assert.deepEqual(sweep.failures, []);
    assert.ok(sweep.crashed === sweep.ops && sweep.ops >= 5, `${sweep.crashed} crashes of ${sweep.ops} operations`);
    const runs = await seededConsolidateRuns({ MemoryController, open, model, seeds: seeds(40) });
    assert.deepEqual(runs.failures, []);
    for (const kind of ["failures", "lostAcks", "afterCrash"]) assert.ok(runs.injected[kind] > 0, `no ${kind} injected`);
  });
}

test("nodeFileStorage: consolidate by a model crashed at every storage operation, on real files", async () => {
  const dir = await mkdtemp(join(tmpdir(), "agent-memory-consolidate-faults-"));
  try {
    const sweep = await consolidateSweep({ MemoryController, open: (name) => nodeFileStorage(join(dir, name)), model: true });
    assert.deepEqual(sweep.failures, []);
    assert.ok(sweep.crashed === sweep.ops && sweep.ops >= 5, `${sweep.crashed} crashes of ${sweep.ops} operations`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("indexedDBStorage in Chromium: 30 seeded runs", () =>
  withPageResult("/tests/js/faults/index.html?seeds=30", 300_000, (result) => check(result)));

let mf;
after(() => mf?.dispose());
// The fault runs inside workerd (faults/worker.mjs), over the binding `path` names.
async function inWorkerd(path, seeds) {
  mf ??= testWorker("faults/worker.mjs", "FaultsDO");
  const result = await (await mf.dispatchFetch(`http://localhost/${path}?seeds=${seeds}`)).json();
  assert.equal(result.error, undefined, result.error);
  return result;
}

// KV costs about ten times a Durable Object per run in miniflare (each call crosses to its local store).
test("cloudflareKVStorage in workerd: 30 seeded runs", async () => check(await inWorkerd("kv", 30)));
test("durableObjectStorage (KV-backed object) in workerd: 150 seeded runs", async () => check(await inWorkerd("do", 150)));
test("durableObjectStorage (SQLite-backed object) in workerd: 150 seeded runs", async () => check(await inWorkerd("do-sql", 150)));
