// importConversations under crashes and storage faults (the adapters of
// run.mjs). What must hold after any crash, once a healthy process imports
// the same export again: every thread holds exactly the messages a clean
// import stores, once each, in order, at their times; every archived
// message is in exactly one episode; nothing loaded is damaged.
//
// - crashSweep: the process dies after the 0th, 1st, ... storage operation
//   of the import, every one of them in turn, then the import is rerun.
// - seededImportRuns: random failures and lost acknowledgements, a death
//   at a random operation, up to three lives, then a healthy rerun.
// Imports only what it is given, like run.mjs.

import { faulty, rng } from "./run.mjs";

const OPTIONS = { namespace: "import-faults", model: "gpt-4o", workingMemory: { maxTokens: 120 }, foldAfter: 5 };

/** Counts storage operations, passing them through. */
export function counting(inner) {
  const counter = { ops: 0 };
  const adapter = {};
  for (const name of ["load", "save", "remove", "loadRange", "removeRange"]) {
    adapter[name] = (...args) => {
      counter.ops++;
      return inner[name](...args);
    };
  }
  return [adapter, counter];
}

async function importOnce(MemoryController, storage, data) {
  const memory = await MemoryController.create({ ...OPTIONS, storage });
  try {
    return await memory.importConversations(data);
  } finally {
    await memory.close().catch(() => {});
  }
}

/** What the namespace holds, per thread: [imported id, ts, content], and what is wrong with its episodes. */
async function snapshot(MemoryController, storage) {
  const memory = await MemoryController.create({ ...OPTIONS, storage });
  const out = {};
  const problems = [];
  let episodes = 0;
  for (const t of await memory.threads()) {
    const m = await MemoryController.create({ ...OPTIONS, storage, thread: t.thread });
    if (m.loadReport().corrupt.length) problems.push(`${t.thread}: damaged values ${JSON.stringify(m.loadReport().corrupt)}`);
    const history = await m.history();
    out[t.thread] = history.map((h) => [h.message.imported?.id, h.ts, JSON.stringify(h.message.content)]);
    const covered = new Map();
    const summaries = await m.episodes();
    episodes += summaries.length;
    for (const e of summaries) for (const id of e.messageIds) covered.set(id, (covered.get(id) ?? 0) + 1);
    for (const h of history) {
      const n = covered.get(h.id) ?? 0;
      if (h.place === "archived" && n !== 1) problems.push(`${t.thread}: archived ${h.id} is in ${n} episodes`);
    }
    await m.close();
  }
  await memory.close();
  return { threads: out, problems, episodes };
}

/** The failures of `got` against what a clean import stored. */
function compare(label, want, got) {
  const failures = got.problems.map((p) => `${label}: ${p}`);
  for (const [thread, items] of Object.entries(want.threads)) {
    const have = got.threads[thread] ?? [];
    if (JSON.stringify(have) !== JSON.stringify(items)) {
      const ids = (list) => list.map((i) => i[0]).join(",");
      failures.push(`${label}: thread ${thread} holds [${ids(have)}], a clean import [${ids(items)}]`);
    }
  }
  for (const thread of Object.keys(got.threads)) if (!(thread in want.threads)) failures.push(`${label}: an unexpected thread ${thread}`);
  return failures;
}

/** The reference: a clean import, and the storage operations it took. */
async function clean(MemoryController, open, data) {
  const [storage, counter] = counting(await open("clean"));
  await importOnce(MemoryController, storage, data);
  return { want: await snapshot(MemoryController, storage), ops: counter.ops };
}

/**
 * A crash at every storage operation of the import in turn, then a
 * healthy rerun. `open(name)` returns an adapter over the stored data of
 * `name` (the same data for the same name).
 */
export async function crashSweep({ MemoryController, open, data }) {
  const { want, ops } = await clean(MemoryController, open, data);
  const failures = [];
  let crashed = 0;
  for (let at = 0; at < ops; at++) {
    const injected = { failures: 0, lostAcks: 0, afterCrash: 0 };
    const dying = faulty(await open(`crash-${at}`), () => 1, injected, { fail: 0, lostAck: 0, life: at });
    const first = await importOnce(MemoryController, dying, data).then(
      () => null,
      (e) => e,
    );
    if (first) {
      crashed++;
      if (first.code !== "STORAGE_ERROR") failures.push(`crash at ${at}: rejected with ${first.code}: ${first.message}`);
    }
    const rerun = await importOnce(MemoryController, await open(`crash-${at}`), data).then(
      () => null,
      (e) => e,
    );
    if (rerun) failures.push(`crash at ${at}: the rerun rejected with ${rerun.code}: ${rerun.message}`);
    failures.push(...compare(`crash at ${at}`, want, await snapshot(MemoryController, await open(`crash-${at}`))));
  }
  return { failures, ops, crashed, threads: Object.keys(want.threads).length, episodes: want.episodes };
}

/** Seeded runs: failing saves, lost acknowledgements, deaths; then a healthy rerun. */
export async function seededImportRuns({ MemoryController, open, data, seeds }) {
  const { want } = await clean(MemoryController, open, data);
  const failures = [];
  const injected = { failures: 0, lostAcks: 0, afterCrash: 0 };
  for (const seed of seeds) {
    const random = rng(seed);
    for (let life = 0; life < 3; life++) {
      const storage = faulty(await open(`seed-${seed}`), random, injected, {
        fail: 0.08,
        lostAck: 0.05,
        life: 5 + Math.floor(random() * 120),
      });
      const err = await importOnce(MemoryController, storage, data).then(
        () => null,
        (e) => e,
      );
      if (err && err.code !== "STORAGE_ERROR") failures.push(`seed ${seed} life ${life}: rejected with ${err.code}: ${err.message}`);
      if (!err) break;
    }
    const rerun = await importOnce(MemoryController, await open(`seed-${seed}`), data).then(
      () => null,
      (e) => e,
    );
    if (rerun) failures.push(`seed ${seed}: the healthy rerun rejected with ${rerun.code}: ${rerun.message}`);
    failures.push(...compare(`seed ${seed}`, want, await snapshot(MemoryController, await open(`seed-${seed}`))));
  }
  return { failures, injected };
}
