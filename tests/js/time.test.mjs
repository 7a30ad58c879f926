// Facts valid in time through the built package (issue 24): validFrom on
// remember, validUntil once ended, facts({ asOf }), search(q, { asOf }),
// and the recall block's marking and ranking for a question about the past.
import { test } from "node:test";
import assert from "node:assert/strict";
import { MemoryController } from "../../dist/node.js";

const JAN_2024 = Date.UTC(2024, 0, 15);
const JUN_2025 = Date.UTC(2025, 5, 15);
const MAR_2026 = Date.UTC(2026, 2, 10);
const NOW = Date.UTC(2026, 3, 15);

async function moved() {
  const memory = await MemoryController.create({ model: "gpt-4o", clock: () => NOW });
  const sh = await memory.remember({ key: "home_city", text: "The user lives in Shanghai.", validFrom: JAN_2024 });
  const be = await memory.remember({ key: "home_city", text: "The user lives in Berlin.", validFrom: MAR_2026 });
  return { memory, sh, be };
}

test("a superseded value ends where the next begins, and both answer as of their time", async () => {
  const { memory, sh, be } = await moved();
  assert.equal(be.superseded, sh.id);
  const [old, now] = await memory.factHistory("home_city");
  assert.deepEqual([old.validFrom, old.validUntil, now.validFrom, now.validUntil], [JAN_2024, MAR_2026, MAR_2026, undefined]);
  assert.deepEqual(
    (await memory.facts()).map((f) => f.id),
    [be.id],
  );
  assert.deepEqual(
    (await memory.facts({ asOf: JUN_2025 })).map((f) => f.id),
    [sh.id],
  );
  assert.deepEqual(
    (await memory.facts({ asOf: MAR_2026 })).map((f) => f.id),
    [be.id],
  );
  assert.deepEqual(
    (await memory.search("where does the user live", { asOf: JUN_2025 })).map((h) => h.id),
    [sh.id],
  );
  assert.deepEqual(
    (await memory.search("where does the user live")).map((h) => h.id),
    [be.id],
  );
  await assert.rejects(memory.facts({ asOf: "last year" }), { code: "INVALID_INPUT" });
  await assert.rejects(memory.remember({ text: "x", validFrom: "2024" }), { code: "INVALID_INPUT" });
});

test("the recall block shows what holds and marks the old value; a question about the past ranks it first", async () => {
  const { memory } = await moved();
  const block = async (options) =>
    (await memory.buildContext({ maxTokens: 2000, ...options })).messages.map((m) => m.content).find((t) => t.includes("Stored notes"));
  const today = await block({ query: "Where does the user live?" });
  assert.ok(today.indexOf("Berlin") < today.indexOf("Shanghai. (until 2026-03)"), today);
  for (const options of [{ query: "Where did the user live last year?" }, { query: "Where does the user live?", asOf: JUN_2025 }]) {
    const past = await block(options);
    assert.ok(past.indexOf("Shanghai. (2024-01 to 2026-03)") < past.indexOf("Berlin. (since 2026-03)"), past);
  }
});

test("consolidate: duplicates merged, the profile pinned, a second call writes nothing", async () => {
  const memory = await MemoryController.create({ model: "gpt-4o", clock: () => NOW });
  for (let i = 0; i < 3; i++) await memory.remember({ kind: "preference", text: "I like spicy food." });
  await memory.remember({ text: "I work at Tencent." });
  const out = await memory.consolidate();
  assert.equal(out.source, "fallback", "no summarizer: the offline rules decide");
  assert.equal(out.merged.length, 1);
  assert.deepEqual(out.superseded, []);
  assert.match(out.profile, /^User profile:\n- I work at Tencent\.$/);
  const live = await memory.facts();
  assert.equal(live.filter((f) => f.text === "I like spicy food.").length, 1);
  assert.equal(live.find((f) => f.text === "I like spicy food.").merges.length, 3);
  const ctx = await memory.buildContext({ maxTokens: 2000 });
  assert.ok(
    ctx.messages.some((m) => m.content.includes("User profile:")),
    "the profile is pinned",
  );
  assert.deepEqual(await memory.consolidate(), { merged: [], superseded: [], source: "fallback" });
});
