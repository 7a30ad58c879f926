// consolidate() under crashes (the adapters of run.mjs): the process dies
// after the 0th, 1st, ... storage operation of a consolidation, every one of
// them in turn, then a healthy process reopens the namespace and consolidates
// again. What must hold after the crash and after the rerun:
// - nothing lost: every fact stored before is live, held at some time in
//   history, or restated by a live fact (`merges`);
// - nothing twice: no two live facts with the same text;
// - after the rerun, the live facts are those of a clean consolidation;
// - nothing loaded is damaged.
// seededConsolidateRuns: random failures and lost acknowledgements (the
// save lands, the caller hears it failed) during a consolidation retried in
// the same process, a death at a random operation, then a healthy rerun:
// the same must hold.
// With `model: true` a deterministic summarizer answers (merges by text,
// the newest home ends the others, a profile of what holds), so the rerun's
// answer is the clean run's; its usage record is one of the operations.
// Imports only what it is given, like run.mjs.

import { faulty, rng } from "./run.mjs";

const NOW = Date.UTC(2026, 3, 15);
const OPTIONS = { namespace: "consolidate-faults", model: "gpt-4o", clock: () => NOW };
const SEED = [
  ["preference", "I like spicy food."],
  ["fact", "I live in Shanghai."],
  ["preference", "I like spicy food!"],
  ["preference", "Answer in Chinese."],
  ["fact", "I have a cat."],
  ["preference", "i like spicy food"],
  ["fact", "我在腾讯工作。"],
  ["preference", "answer in chinese"],
  ["fact", "I have a cat!"],
  ["fact", "我在腾讯工作"],
  ["fact", "I moved to Berlin."],
  ["fact", "I live in Berlin."],
];

const norm = (text) =>
  text
    .toLowerCase()
    .replace(/[^\p{L}\p{N} ]/gu, "")
    .trim();

/** A summarizer that consolidates as a careful model would, the same way for the same facts. */
export async function deterministicModel(request) {
  if (request.purpose !== "consolidation") return JSON.stringify({ summary: "a summary" });
  const groups = new Map();
  for (const f of request.facts) {
    const key = `${f.kind}:${norm(f.text)}`;
    groups.set(key, [...(groups.get(key) ?? []), f]);
  }
  const merges = [...groups.values()].filter((g) => g.length > 1).map((g) => ({ ids: g.map((f) => f.id), text: g[0].text }));
  const homes = request.facts.filter((f) => /live in|moved to/.test(f.text));
  const newest = homes.reduce((a, f) => (a && a.validFrom >= f.validFrom ? a : f), undefined);
  const supersedes = homes.filter((f) => f !== newest).map((f) => ({ id: f.id, by: newest.id }));
  const ended = new Set(supersedes.map((s) => s.id));
  const holds = new Set(request.facts.filter((f) => f.kind === "fact" && !ended.has(f.id)).map((f) => norm(f.text)));
  const profile = `User profile:\n${[...holds]
    .sort()
    .map((t) => `- ${t}`)
    .join("\n")}`;
  return {
    text: JSON.stringify({ merges, supersedes, profile }),
    usage: { promptTokens: 200, completionTokens: 40, model: "gpt-4o-mini" },
  };
}

/** An adapter that passes `fuse.left` operations through once lit, then fails every one ("the process died"). */
function dying(inner, fuse) {
  const adapter = {};
  for (const name of ["load", "save", "remove", "loadRange", "removeRange"]) {
    adapter[name] = async (...args) => {
      if (fuse.lit && fuse.left-- <= 0) throw new Error("the process died");
      fuse.ops += fuse.lit ? 1 : 0;
      return inner[name](...args);
    };
  }
  return adapter;
}

const create = (MemoryController, storage, model) =>
  MemoryController.create({ ...OPTIONS, storage, ...(model ? { summarizer: deterministicModel } : {}) });

/** The seed, stored by a healthy process: the ids in order. */
async function storeSeed(MemoryController, storage) {
  const memory = await create(MemoryController, storage, false);
  const ids = [];
  for (const [i, [kind, text]] of SEED.entries())
    ids.push((await memory.remember({ kind, text, validFrom: Date.UTC(2025, i, 1), supersedes: [] })).id);
  await memory.close();
  return ids;
}

/** What the namespace holds: its live facts ([kind, key, text], sorted), and what is wrong with it. */
async function look(MemoryController, storage, ids, label) {
  const memory = await create(MemoryController, storage, false);
  const problems = memory.loadReport().corrupt.map((c) => `${label}: damaged ${JSON.stringify(c)}`);
  const live = await memory.facts();
  const seen = new Set();
  const restated = (f) => [f.id, ...(f.merges ?? [])].forEach((id) => seen.add(id));
  live.forEach(restated);
  for (let i = 0; i < SEED.length; i++) (await memory.facts({ asOf: Date.UTC(2025, i, 1) + 1 })).forEach(restated);
  for (const id of ids) if (!seen.has(id)) problems.push(`${label}: ${id} lost`);
  const texts = live.map((f) => f.text);
  if (new Set(texts).size !== texts.length) problems.push(`${label}: live twice: ${JSON.stringify(texts)}`);
  await memory.close();
  return { facts: live.map((f) => JSON.stringify([f.kind, f.key ?? null, f.text])).sort(), problems };
}

/** The reference: a clean consolidation of the seed, and the storage operations it took. */
async function clean(MemoryController, open, model) {
  const storage = await open(`${model ? "model" : "offline"}-clean`);
  const ids = await storeSeed(MemoryController, storage);
  const fuse = { lit: false, left: Infinity, ops: 0 };
  const counted = await create(MemoryController, dying(storage, fuse), model);
  fuse.lit = true;
  const first = await counted.consolidate();
  await counted.close();
  const want = await look(MemoryController, storage, ids, "clean");
  const failures = [...want.problems];
  if (first.source !== (model ? "model" : "fallback")) failures.push(`clean: decided by ${first.source}`);
  return { want, ops: fuse.ops, failures };
}

/** The failures of a namespace's live facts against a clean run's. */
function differs(label, want, got) {
  return JSON.stringify(got.facts) === JSON.stringify(want.facts)
    ? got.problems
    : [...got.problems, `${label}: the rerun holds ${JSON.stringify(got.facts)}, a clean run ${JSON.stringify(want.facts)}`];
}

/**
 * A crash at every storage operation of a consolidation in turn, then a
 * healthy rerun. `open(name)` returns an adapter over the stored data of
 * `name` (the same data for the same name).
 */
export async function consolidateSweep({ MemoryController, open, model = false }) {
  const tag = model ? "model" : "offline";
  const { want, ops, failures } = await clean(MemoryController, open, model);
  const fuse = { ops };
  let crashed = 0;
  for (let at = 0; at < fuse.ops; at++) {
    const storage = await open(`${tag}-crash-${at}`);
    const seeded = await storeSeed(MemoryController, storage);
    const f = { lit: false, left: at, ops: 0 };
    const memory = await create(MemoryController, dying(storage, f), model);
    f.lit = true;
    const died = await memory.consolidate().then(
      () => null,
      (e) => e,
    );
    if (died) {
      crashed++;
      if (died.code !== "STORAGE_ERROR") failures.push(`crash at ${at}: rejected with ${died.code}: ${died.message}`);
    } else failures.push(`crash at ${at}: the consolidation did not see its storage die`);
    failures.push(...(await look(MemoryController, storage, seeded, `crash at ${at}`)).problems);
    const rerun = await create(MemoryController, storage, model);
    const again = await rerun.consolidate().then(
      () => null,
      (e) => e,
    );
    await rerun.close();
    if (again) failures.push(`crash at ${at}: the rerun rejected with ${again.code}: ${again.message}`);
    failures.push(...differs(`crash at ${at}`, want, await look(MemoryController, storage, seeded, `crash at ${at}, rerun`)));
  }
  return { failures, ops: fuse.ops, crashed, live: want.facts.length };
}

/** Seeded runs: failing saves and lost acknowledgements, retried in one process until it dies; then a healthy rerun. */
export async function seededConsolidateRuns({ MemoryController, open, seeds, model = false }) {
  const tag = model ? "model" : "offline";
  const { want, failures } = await clean(MemoryController, open, model);
  const injected = { failures: 0, lostAcks: 0, afterCrash: 0 };
  for (const seed of seeds) {
    const random = rng(seed);
    const storage = await open(`${tag}-seed-${seed}`);
    const seeded = await storeSeed(MemoryController, storage);
    const gate = { lit: false };
    const inner = faulty(storage, random, injected, { fail: 0.2, lostAck: 0.15, life: 2 + Math.floor(random() * 12) });
    const adapter = {};
    for (const [name, fn] of Object.entries(inner)) adapter[name] = (...args) => (gate.lit ? fn(...args) : storage[name](...args));
    const memory = await create(MemoryController, adapter, model);
    gate.lit = true;
    for (let attempt = 0; attempt < 4; attempt++) {
      const err = await memory.consolidate().then(
        () => null,
        (e) => e,
      );
      if (!err) break;
      if (err.code !== "STORAGE_ERROR") failures.push(`seed ${seed}: rejected with ${err.code}: ${err.message}`);
    }
    failures.push(...(await look(MemoryController, storage, seeded, `seed ${seed}`)).problems);
    const rerun = await create(MemoryController, storage, model);
    const again = await rerun.consolidate().then(
      () => null,
      (e) => e,
    );
    await rerun.close();
    if (again) failures.push(`seed ${seed}: the healthy rerun rejected with ${again.code}: ${again.message}`);
    failures.push(...differs(`seed ${seed}`, want, await look(MemoryController, storage, seeded, `seed ${seed}, rerun`)));
  }
  return { failures, injected };
}
