// Seeded fault and crash injection through the built package, for any
// storage adapter: the path users run (MemoryController → the shared write
// path → the JS adapter). Runs in Node (memory, file) and in Chromium
// (IndexedDB), so it imports nothing but what it is given.
//
// A run is three lives of one namespace. In each life the adapter fails at
// random, loses acknowledgements (the write lands, the caller hears it
// failed) and, after a random number of operations, dies: every later
// operation fails and the controller is abandoned, never closed. The clock
// ties, runs backwards, and starts each life behind the last. After the last
// life a healthy controller reopens the namespace and the run checks:
// - every acknowledged add is in history, in the order acknowledged, once;
// - every acknowledged remember is in its key's history, and each key's live
//   value is the last acknowledged one or one tried after it (a lost ack);
// - the usage charged lies between what was acknowledged and what was tried;
// - every archived message is in exactly one episode;
// - nothing loaded is damaged, and the context built is counted exactly.
// It returns the failures (empty when all hold) and what was injected, so a
// test can also check that the faults really happened.

/** xorshift32: the same faults for the same seed, in every runtime. */
export function rng(seed) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 4294967296;
  };
}

const METHODS = ["load", "save", "remove", "loadRange", "removeRange"];

export function faulty(inner, random, injected, { fail, lostAck, life }) {
  let left = life;
  const adapter = {};
  for (const name of METHODS) {
    adapter[name] = async (...args) => {
      if (left-- <= 0) {
        injected.afterCrash++;
        throw new Error("the process died");
      }
      if (random() < fail) {
        injected.failures++;
        throw new Error("injected failure");
      }
      const out = await inner[name](...args);
      if (name === "save" && random() < lostAck) {
        injected.lostAcks++;
        throw new Error("acknowledgement lost");
      }
      return out;
    };
  }
  return adapter;
}

/** Ties, jumps back up to ten seconds, or steps forward. */
export function wildClock(random, start) {
  let now = start;
  return () => {
    const r = random();
    if (r < 0.25) return now;
    if (r < 0.5) return (now -= Math.floor(random() * 10_000));
    return (now += Math.floor(random() * 3));
  };
}

const settled = (p) =>
  p.then(
    (value) => ({ ok: true, value }),
    (error) => ({ ok: false, error }),
  );

/**
 * One seeded run. `open()` returns a fresh adapter over the same stored
 * data each time (as a restarted process would get).
 */
export async function faultRun({ MemoryController, open, seed, turns = 24 }) {
  const random = rng(seed);
  const injected = { failures: 0, lostAcks: 0, afterCrash: 0, rejected: 0 };
  const failures = [];
  const namespace = `faults-${seed}`;
  const options = { namespace, model: "gpt-4o", workingMemory: { maxTokens: 160 }, foldAfter: 6 };
  const acked = [];
  const remembered = []; // { key, text, acked }
  let usageAcked = 0;
  let usageTried = 0;
  for (let life = 0; life < 3; life++) {
    const clock = wildClock(random, 1_000_000 - Math.floor(random() * 20_000));
    const storage = faulty(await open(), random, injected, { fail: 0.12, lostAck: 0.06, life: 8 + Math.floor(random() * 90) });
    const created = await settled(MemoryController.create({ ...options, storage, clock }));
    if (!created.ok) {
      if (created.error?.code !== "STORAGE_ERROR")
        failures.push(`seed ${seed} life ${life}: create rejected with ${created.error?.code}: ${created.error?.message}`);
      continue;
    }
    const memory = created.value;
    for (let i = 0; i < turns; i++) {
      const text = `life ${life} turn ${i} of run ${seed}: 我们 meet at ${Math.floor(random() * 1000)}`;
      const added = await settled(memory.add({ role: i % 2 ? "assistant" : "user", content: text }));
      if (added.ok) acked.push(text);
      else if (added.error?.code !== "STORAGE_ERROR")
        failures.push(`seed ${seed}: add rejected with ${added.error?.code}: ${added.error?.message}`);
      else injected.rejected++;
      if (i % 5 === 4) {
        usageTried++;
        const charged = await settled(memory.recordUsage({ prompt_tokens: 100, completion_tokens: 10 }));
        if (charged.ok) usageAcked++;
        else if (charged.error?.code !== "STORAGE_ERROR") failures.push(`seed ${seed}: recordUsage rejected with ${charged.error?.code}`);
      }
      if (i % 7 === 3) {
        const key = `k${Math.floor(random() * 3)}`;
        const fact = `fact ${key} = ${life}.${i} (seed ${seed})`;
        const stored = await settled(memory.remember({ text: fact, key }));
        remembered.push({ key, text: fact, acked: stored.ok });
        if (!stored.ok && stored.error?.code !== "STORAGE_ERROR")
          failures.push(`seed ${seed}: remember rejected with ${stored.error?.code}`);
      }
    }
    // The process dies: whatever the controller still had queued fails
    // against the dead adapter; it is never closed.
    await memory.flush();
  }

  const memory = await MemoryController.create({ ...options, storage: await open() });
  const report = memory.loadReport();
  if (report.corrupt.length) failures.push(`seed ${seed}: damaged values ${JSON.stringify(report.corrupt)}`);
  const history = await memory.history();
  failures.push(
    ...acknowledgedInOrder(
      history.map((h) => h.message.content),
      acked,
      `seed ${seed}`,
    ),
  );
  for (const key of new Set(remembered.map((r) => r.key))) {
    const tried = remembered.filter((r) => r.key === key);
    const versions = (await memory.factHistory(key)).map((f) => f.text);
    for (const r of tried.filter((r) => r.acked)) {
      if (!versions.includes(r.text)) failures.push(`seed ${seed}: acknowledged fact ${JSON.stringify(r.text)} lost`);
    }
    const lastAcked = tried.findLastIndex((r) => r.acked);
    const allowed = tried.slice(Math.max(lastAcked, 0)).map((r) => r.text);
    const live = (await memory.facts()).find((f) => f.key === key)?.text;
    if (lastAcked >= 0 && !allowed.includes(live))
      failures.push(`seed ${seed}: key ${key} reads ${JSON.stringify(live)}, not the last acknowledged value or a later one`);
  }
  const calls = memory.stats().cost.byModel.reduce((n, m) => n + m.calls, 0);
  if (calls < usageAcked || calls > usageTried)
    failures.push(`seed ${seed}: ${calls} calls charged, ${usageAcked} acknowledged of ${usageTried}`);
  const episodes = await memory.episodes();
  const covered = new Map();
  for (const e of episodes) for (const id of e.messageIds) covered.set(id, (covered.get(id) ?? 0) + 1);
  for (const h of history) {
    const n = covered.get(h.id) ?? 0;
    if (h.place === "archived" && n !== 1) failures.push(`seed ${seed}: archived ${h.id} is in ${n} episodes`);
  }
  const ctx = await memory.buildContext({ maxTokens: 400 });
  if (ctx.tokens !== memory.countMessages(ctx.messages))
    failures.push(`seed ${seed}: context counted ${ctx.tokens}, its messages cost ${memory.countMessages(ctx.messages)}`);
  await memory.close();
  return { failures, injected, acked: acked.length, messages: history.length, episodes: episodes.length };
}

/** What is wrong with `texts` (a history's contents): a duplicate, or an acknowledged text lost or out of order. */
export function acknowledgedInOrder(texts, acked, label) {
  const failures = [];
  if (new Set(texts).size !== texts.length) failures.push(`${label}: duplicates in history`);
  let at = 0;
  for (const a of acked) {
    const found = texts.indexOf(a, at);
    if (found < 0) {
      failures.push(`${label}: acknowledged ${JSON.stringify(a)} ${texts.includes(a) ? "out of order" : "lost"}`);
      break;
    }
    at = found + 1;
  }
  return failures;
}

/** Many seeds; the failures of all, and the totals of what was injected. */
export async function faultRuns({ MemoryController, open, seeds }) {
  const total = { failures: [], failuresInjected: 0, lostAcks: 0, afterCrash: 0, rejected: 0, acked: 0, episodes: 0 };
  for (const seed of seeds) {
    const r = await faultRun({ MemoryController, open: () => open(seed), seed });
    total.failures.push(...r.failures);
    total.failuresInjected += r.injected.failures;
    total.lostAcks += r.injected.lostAcks;
    total.afterCrash += r.injected.afterCrash;
    total.rejected += r.injected.rejected;
    total.acked += r.acked;
    total.episodes += r.episodes;
  }
  return total;
}
