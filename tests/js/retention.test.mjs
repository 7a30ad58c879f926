// Retention that scrubs: past its age a record is forgotten as `forget`
// forgets, at the next fold or open, at most `maxPerCall` records a call.
// The scenario (scrub/retention.mjs) is checked on the raw bytes each Node
// adapter keeps (scrub/adapters.mjs; cloudflareKVStorage and
// durableObjectStorage in workerd: retention-workerd.test.mjs;
// indexedDBStorage and localStorage in Chromium: retention-browser.test.mjs);
// a crash at every storage operation of an expiry: faults.test.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { MemoryController, memoryStorage } from "../../dist/node.js";
import { ADAPTERS } from "./scrub/adapters.mjs";
import { scenario, problems, DAY } from "./scrub/retention.mjs";

for (const [name, make] of ADAPTERS) {
  test(`${name}: expired messages leave every stored byte and read, bounded per call, facts kept`, async () => {
    const { reopen, raw, done } = await make("retention");
    try {
      const out = await scenario(MemoryController, reopen, raw);
      assert.deepEqual(problems(out, await raw()), []);
    } finally {
      await done();
    }
  });
}

test("without storage, retention applies to memory at each change", async () => {
  let now = 0;
  const memory = await MemoryController.create({
    clock: () => now,
    retention: { messages: { maxAgeMs: DAY }, facts: { maxAgeMs: 2 * DAY } },
  });
  await memory.add({ role: "user", content: "old news" });
  await memory.remember({ text: "an old fact" });
  now = DAY;
  await memory.add({ role: "user", content: "exactly a day later" });
  assert.equal((await memory.history()).length, 2, "a record exactly maxAgeMs old is kept");
  now = DAY + 1;
  await memory.add({ role: "user", content: "a moment after" });
  assert.deepEqual(
    (await memory.history()).map((h) => h.message.content),
    ["exactly a day later", "a moment after"],
  );
  assert.equal((await memory.facts()).length, 1);
  now = 2 * DAY + 1;
  await memory.add({ role: "user", content: "later" });
  assert.deepEqual(await memory.facts(), []);
  assert.deepEqual(memory.stats().retention, { messages: 2, episodes: 0, rewritten: 0, facts: 1 });
});

test("bad retention options are INVALID_INPUT and nothing is stored", async () => {
  const storage = memoryStorage();
  for (const retention of [
    { messages: { maxAgeMs: -1 } },
    { messages: { maxAgeMs: 0 } },
    { messages: { maxAgeMs: Number.NaN } },
    { messages: { maxAgeMs: Infinity } },
    { messages: { maxAgeMs: "30d" } },
    { messages: {} },
    { messages: 1000 },
    { chats: { maxAgeMs: 1000 } },
    { facts: { maxAgeMs: 1000, keep: true } },
    { maxPerCall: 0 },
    { maxPerCall: 1.5 },
    "30 days",
  ]) {
    await assert.rejects(
      MemoryController.create({ storage, retention }),
      { name: "MemoryError", code: "INVALID_INPUT" },
      JSON.stringify(retention),
    );
  }
  assert.deepEqual(await storage.loadRange([]), []);
  await (await MemoryController.create({ storage, retention: {} })).close();
  await (await MemoryController.create({ storage, retention: null })).close();
});
