// The comparison every upgrade test makes: what the current package reported
// over 0.1.0's data (observe.mjs, from any runtime and adapter) against what
// 0.1.0 itself reported after a reload (tests/fixtures/v0.1.0/expected.json):
// the same ids, timestamps, places and order, episodes, facts with their
// history (and the validity 0.1.0's times imply), embeddings, procedures and cost; what 0.1.0 forgot stays gone;
// a second open loads the same again; what this version adds comes last.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { ADDED } from "./observe.mjs";

const fixture = (name) => JSON.parse(readFileSync(new URL(`../../fixtures/v0.1.0/${name}`, import.meta.url), "utf8"));
/** The keys and bytes 0.1.0 stored, and what 0.1.0 reported after a reload. */
export const stored = fixture("store.json");
export const expected = fixture("expected.json");

// Sums of the same charges, maybe added in another order (the adapter's listing order).
const near = (a, b, what) => assert.ok(Math.abs(a - b) <= 1e-12 * Math.max(1, Math.abs(b)), `${what}: ${a} vs ${b}`);

function sameCost(cost, what) {
  near(cost.usd, expected.cost.usd, `${what}: usd`);
  for (const row of expected.cost.byModel) {
    const now = cost.byModel.find((r) => r.model === row.model);
    for (const field of ["calls", "promptTokens", "cachedPromptTokens", "completionTokens"])
      assert.equal(now?.[field], row[field], `${what}: ${row.model}.${field}`);
    near(now.usd, row.usd, `${what}: ${row.model}.usd`);
  }
}

// 0.1.0's facts carry no validity: each held from when it was stated, and a
// key's value until the next one was stated.
const held = (facts) =>
  facts.map((f, i) => ({ ...f, validFrom: f.createdAt, ...(f.key && i + 1 < facts.length ? { validUntil: facts[i + 1].createdAt } : {}) }));

// Everything but the history, which the third open extends.
function sameKnowledge(state, what) {
  assert.deepEqual(state.corrupt, [], `${what}: nothing damaged`);
  assert.deepEqual(
    state.facts,
    expected.facts.map((f) => ({ ...f, validFrom: f.createdAt })),
    `${what}: facts`,
  );
  for (const [key, versions] of Object.entries(expected.factHistory))
    assert.deepEqual(state.factHistory[key], held(versions), `${what}: history of ${key}`);
  assert.equal(state.embeddings, expected.embeddings, `${what}: embeddings`);
  sameCost(state.cost, what);
}

// The procedures 0.1.0 set are in force.
function procedures(state, what) {
  assert.ok(state.context.procedures > 0 && state.context.text.includes("Never suggest peanuts."), `${what}: rules in the context`);
  assert.equal(state.context.tool, "get_weather", `${what}: tools in the context`);
}

/** Asserts that `run` (observeUpgrade's result) shows 0.1.0's data loaded whole, three times. */
export function checkUpgrade(run, label) {
  const [first, second, third] = run.opens;
  for (const [state, what] of [
    [first, `${label}, first open`],
    [second, `${label}, second open`],
  ]) {
    assert.deepEqual(state.history, expected.history, `${what}: ids, timestamps, places and order`);
    assert.ok(!state.history.some((h) => h.id === expected.forgotten), `${what}: what 0.1.0 forgot stays forgotten`);
    assert.deepEqual(state.episodes, expected.episodes, `${what}: episodes`);
    sameKnowledge(state, what);
  }
  // What this version writes next comes after everything 0.1.0 wrote, and all of it reloads.
  const what = `${label}, after an add`;
  assert.equal(third.history.at(-1)?.id, run.added, `${what}: the new message is last`);
  assert.equal(third.history.at(-1).message.content, ADDED);
  const strip = ({ id, ts, message }) => ({ id, ts, message }); // an add may move turns out of working memory
  assert.deepEqual(third.history.slice(0, -1).map(strip), expected.history.map(strip), `${what}: 0.1.0's messages unchanged`);
  assert.deepEqual(third.episodes.slice(0, expected.episodes.length), expected.episodes, `${what}: 0.1.0's episodes unchanged`);
  sameKnowledge(third, what);
  procedures(third, what);
}
