// Retention under crashes (the adapters of run.mjs): a namespace holds a
// day of old turns (compacted, summarized) and a few new ones; a process
// opens it with a retention the old turns are past, and dies after the
// 0th, 1st, ... storage operation of that opening (which runs the expiry),
// every one in turn. Then a healthy process opens it with the same
// retention, and what must hold is what a clean expiry leaves: every new
// turn, once, in order, none of the old; no old text in any stored byte;
// every archived message in exactly one episode; nothing damaged.
// Imports only what it is given, like run.mjs.

import { counting } from "./import-run.mjs";
import { faulty } from "./run.mjs";

const DAY = 86_400_000;
const START = 1_000_000_000;
const OPTIONS = { namespace: "retention-faults", model: "gpt-4o", workingMemory: { maxTokens: 120 }, foldAfter: 5 };
const RETENTION = { messages: { maxAgeMs: DAY } };
const OLD = 24;

/** Day 0's turns (old by day 2), then day 2's. */
async function fill(MemoryController, storage) {
  let now = START;
  const memory = await MemoryController.create({ ...OPTIONS, storage, clock: () => now });
  for (let i = 0; i < OLD; i++) {
    now += 1000;
    await memory.add({ role: i % 2 ? "assistant" : "user", content: `old turn ${i}: the 旧 plan for 成都, code HERON-${1000 + i}` });
  }
  now = START + 2 * DAY;
  for (let i = 0; i < 6; i++) {
    now += 1000;
    await memory.add({ role: i % 2 ? "assistant" : "user", content: `new turn ${i}: the flight at ${i + 8}:00` });
  }
  await memory.close();
}

/** Opens with the retention on day 2 (the opening expires the old turns), then closes. */
async function expireOnce(MemoryController, storage) {
  const memory = await MemoryController.create({ ...OPTIONS, storage, retention: RETENTION, clock: () => START + 2 * DAY + 60_000 });
  await memory.close().catch(() => {});
}

/** What a namespace holds: its history's texts, and what is wrong with it. */
async function held(MemoryController, storage, raw) {
  const memory = await MemoryController.create({ ...OPTIONS, storage });
  const problems = [];
  if (memory.loadReport().corrupt.length) problems.push(`damaged values ${JSON.stringify(memory.loadReport().corrupt)}`);
  const history = await memory.history();
  const covered = new Map();
  for (const e of await memory.episodes()) for (const id of e.messageIds) covered.set(id, (covered.get(id) ?? 0) + 1);
  for (const h of history) {
    const n = covered.get(h.id) ?? 0;
    if (h.place === "archived" && n !== 1) problems.push(`archived ${h.id} is in ${n} episodes`);
  }
  const texts = history.map((h) => h.message.content);
  await memory.close();
  const bytes = await raw();
  if (bytes.includes("HERON-") || bytes.includes("old turn")) problems.push("an old turn's text is still stored");
  return { texts, problems };
}

/**
 * `open(name)` returns an adapter over the stored data of `name` (the same
 * data for the same name), `raw(name)` that data as text.
 */
export async function retentionCrashSweep({ MemoryController, open, raw }) {
  await fill(MemoryController, await open("clean"));
  const [counted, counter] = counting(await open("clean"));
  await expireOnce(MemoryController, counted);
  const want = await held(MemoryController, await open("clean"), () => raw("clean"));
  const failures = want.problems.map((p) => `clean: ${p}`);
  if (want.texts.length !== 6 || want.texts.some((t) => !t.startsWith("new turn")))
    failures.push(`clean: holds ${JSON.stringify(want.texts)}`);
  let crashed = 0;
  for (let at = 0; at < counter.ops; at++) {
    const name = `crash-${at}`;
    await fill(MemoryController, await open(name));
    const injected = { failures: 0, lostAcks: 0, afterCrash: 0 };
    await expireOnce(
      MemoryController,
      faulty(await open(name), () => 1, injected, { fail: 0, lostAck: 0, life: at }),
    ).catch((e) => {
      if (e.code !== "STORAGE_ERROR") failures.push(`crash at ${at}: opening rejected with ${e.code}: ${e.message}`);
    });
    if (injected.afterCrash > 0) crashed++;
    // Restarted, healthy: the expiry completes.
    await expireOnce(MemoryController, await open(name));
    const got = await held(MemoryController, await open(name), () => raw(name));
    failures.push(...got.problems.map((p) => `crash at ${at}: ${p}`));
    if (JSON.stringify(got.texts) !== JSON.stringify(want.texts)) failures.push(`crash at ${at}: holds ${JSON.stringify(got.texts)}`);
  }
  return { failures, ops: counter.ops, crashed };
}
