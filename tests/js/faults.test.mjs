// Seeded fault and crash injection through the built package with its JS
// adapters (tests/js/faults/run.mjs): memoryStorage and nodeFileStorage in
// Node, indexedDBStorage in Chromium. Failing saves, lost acknowledgements,
// processes that die mid-run, clocks that tie and run backwards; after three
// lives every acknowledged change is there, in order, once.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryController, memoryStorage, nodeFileStorage } from "../../dist/node.js";
import { faultRuns } from "./faults/run.mjs";
import { withPageResult } from "./harness.mjs";

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

test("indexedDBStorage in Chromium: 30 seeded runs", () => withPageResult("/tests/js/faults/index.html?seeds=30", 300_000, (result) => check(result)));
