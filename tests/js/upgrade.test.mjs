// Data written by 0.1.0 loads with the same ids, order, facts (with their
// history), episodes, embeddings, procedures and cost. The fixtures in
// tests/fixtures/v0.1.0 were written by the package built from 0.1.0's
// commit (generate.mjs says how): the stored bytes, and what 0.1.0 itself
// reported after a reload. 0.1.0's records carry no `lc`; they load in their
// time order, and what this version writes next comes after them. Opening
// rewrites 0.1.0's values (format 1) as format-2 segments and removes them;
// a crash at any step of that leaves data the next open reads and upgrades.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryController, memoryStorage, nodeFileStorage } from "../../dist/node.js";

const fixture = (name) => JSON.parse(readFileSync(new URL(`../fixtures/v0.1.0/${name}`, import.meta.url), "utf8"));
const stored = fixture("store.json");
const expected = fixture("expected.json");
const options = { namespace: "user-42", model: "gpt-4o", workingMemory: { maxTokens: 400 }, foldAfter: 24 };

async function fill(storage) {
  for (const { key, data } of stored) await storage.save(key, new Uint8Array(Buffer.from(data, "base64")));
  return storage;
}

/** The format version of every stored value (the envelope's fifth byte). */
const versions = async (storage) => (await storage.loadRange([])).map((e) => e.data[4]);
const forgottenText = "第7条"; // the message 0.1.0 forgot: none of its bytes were left

async function checkUpgrade(storage, extra = {}) {
  const memory = await MemoryController.create({ ...options, ...extra, storage });
  assert.ok((await versions(storage)).every((v) => v === 2), "every format-1 value was rewritten");
  assert.deepEqual(memory.loadReport().corrupt, []);
  const history = (await memory.history()).map(({ id, ts, place, message }) => ({ id, ts, place, message }));
  assert.deepEqual(history, expected.history, "ids, timestamps, places and order");
  assert.ok(!history.some((h) => h.id === expected.forgotten), "what 0.1.0 forgot stays forgotten");
  assert.deepEqual(await memory.episodes(), expected.episodes);
  assert.deepEqual(await memory.facts(), expected.facts);
  for (const [key, versions] of Object.entries(expected.factHistory)) assert.deepEqual(await memory.factHistory(key), versions, `history of ${key}`);
  const { cost, embeddings } = memory.stats();
  assert.equal(embeddings, expected.embeddings);
  // Sums of the same charges, maybe added in another order (the adapter's listing order).
  const near = (a, b, what) => assert.ok(Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(b)), `${what}: ${a} vs ${b}`);
  near(cost.usd, expected.cost.usd, "usd");
  for (const row of expected.cost.byModel) {
    const now = cost.byModel.find((r) => r.model === row.model);
    for (const field of ["calls", "promptTokens", "cachedPromptTokens", "completionTokens"]) assert.equal(now?.[field], row[field], `${row.model}.${field}`);
    near(now.usd, row.usd, `${row.model}.usd`);
  }
  // The procedures 0.1.0 set are in force.
  const ctx = await memory.buildContext({ maxTokens: 3000 });
  assert.ok(ctx.sections.procedures > 0 && JSON.stringify(ctx.messages).includes("Never suggest peanuts."));
  assert.equal(ctx.tools?.[0]?.function?.name, "get_weather");
  // What this version writes next comes after everything 0.1.0 wrote, and all of it reloads.
  const added = await memory.add({ role: "user", content: "新版本的第一条消息" });
  await memory.close();
  const again = await MemoryController.create({ ...options, ...extra, storage });
  const after = await again.history();
  assert.equal(after.at(-1).id, added.id);
  assert.deepEqual(after.slice(0, -1).map((h) => h.id), expected.history.map((h) => h.id));
  await again.close();
}

test("0.1.0's data loads unchanged through memoryStorage", async () => {
  const kinds = new Set(stored.map((e) => e.key[1]));
  assert.ok(kinds.has("pack") && kinds.has("log") && expected.episodes.length > 0 && expected.embeddings > 0, "the fixture covers packs, log records, episodes and embeddings");
  await checkUpgrade(await fill(memoryStorage()));
});

test("0.1.0's data loads unchanged through nodeFileStorage", async () => {
  const dir = await mkdtemp(join(tmpdir(), "agent-memory-upgrade-"));
  try {
    await checkUpgrade(await fill(nodeFileStorage(dir)));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

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

// Small segments, so the upgrade writes several: more steps to crash in.
const small = { segmentBytes: 16 * 1024 };

for (const [name, make] of [
  ["memoryStorage", async () => ({ storage: memoryStorage(), done: async () => {} })],
  ["nodeFileStorage", async () => {
    const dir = await mkdtemp(join(tmpdir(), "agent-memory-upgrade-crash-"));
    return { storage: nodeFileStorage(dir), done: () => rm(dir, { recursive: true, force: true }) };
  }],
]) {
  test(`${name}: a crash at every step of the upgrade leaves data the next open reads and finishes upgrading`, async () => {
    let steps = 0;
    for (let life = 0; ; life++) {
      const { storage, done } = await make();
      try {
        await fill(storage);
        const { adapter, state } = dying(storage, life);
        const opened = await MemoryController.create({ ...options, ...small, storage: adapter }).then((m) => m, (e) => e);
        if (opened instanceof Error) assert.equal(opened.code, "STORAGE_ERROR");
        const text = Buffer.concat((await storage.loadRange([])).map((e) => e.data)).toString("utf8");
        assert.ok(!text.includes(forgottenText), `life ${life}: forgotten text stored`);
        // A healthy process: everything 0.1.0 held, once, and the upgrade finished.
        await checkUpgrade(storage, small);
        if (!state.died) {
          steps = life;
          break;
        }
      } finally {
        await done();
      }
    }
    // loadRange, then the segments and the removal of 0.1.0's eleven values.
    assert.ok(steps >= 1 + 4 + 11, `the upgrade took ${steps} steps`);
  });
}

test("0.1.0 refuses what this version writes, and this version refuses format 3", async () => {
  const storage = await fill(memoryStorage());
  const memory = await MemoryController.create({ ...options, storage });
  await memory.close();
  // Every value is format 2 now: 0.1.0's decoder (format 1) meets a higher version and refuses to load.
  assert.ok((await versions(storage)).every((v) => v === 2));
  const [first] = await storage.loadRange([]);
  const newer = first.data.slice();
  newer[4] = 3;
  await storage.save(first.key, newer);
  await assert.rejects(MemoryController.create({ ...options, storage }), (e) => e.name === "MemoryError" && e.code === "FORMAT_TOO_NEW");
});
