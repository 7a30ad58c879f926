// What the retention tests run on every adapter (in Node, workerd and
// Chromium, so it imports nothing): a conversation on day 0 holding a
// passport number and a locker code, compacted and summarized, a fact, then
// turns on day 20; on day 31 a controller with a 30-day retention of
// messages and 10 records a call opens (its first pass) and takes changes
// (a pass after each fold) until day 0 is gone. It returns what the caller
// checks against the adapter's raw bytes before and after.

export const DAY = 86_400_000;
const START = 1_700_000_000_000;

/** Day 0's turns: 21 besides the pinned system prompt. */
export const DAY0_TURNS = 21;
/** Texts of day 0 that must leave every stored byte and every read. */
export const EXPIRED = ["E12345678", "OSPREY-4417", "护照号", "day 0 turn"];
/** Texts that must stay. */
export const KEPT = ["You are a travel assistant.", "day 20 turn 9", "The user lives in Chengdu."];

const contentText = (m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content));

/**
 * Runs the scenario. `open()` returns an adapter over the namespace's data
 * (a new one each time, as a restarted process gets); `raw()` the backend's
 * content as text.
 */
export async function scenario(MemoryController, open, raw) {
  let now = START;
  const options = (retention) => ({
    namespace: "retention-u",
    workingMemory: { maxTokens: 300 },
    foldAfter: 8,
    storage: open(),
    clock: () => now,
    ...(retention ? { retention: { messages: { maxAgeMs: 30 * DAY }, maxPerCall: 10 } } : {}),
  });
  let memory = await MemoryController.create(options(true));
  await memory.add({ role: "system", content: "You are a travel assistant." });
  await memory.add({ role: "user", content: "记住：我的护照号是 E12345678，储物柜密码 OSPREY-4417。" });
  for (let i = 0; i < DAY0_TURNS - 1; i++) {
    now += 60_000;
    await memory.add({ role: i % 2 ? "assistant" : "user", content: `day 0 turn ${i}: the hotel near 春熙路, budget ${i * 100} yuan` });
  }
  await memory.remember({ key: "home", text: "The user lives in Chengdu." });
  now = START + 20 * DAY;
  for (let i = 0; i < 10; i++) {
    now += 60_000;
    await memory.add({ role: i % 2 ? "assistant" : "user", content: `day 20 turn ${i}: the flight to 重庆 leaves at ${i + 8}:00` });
  }
  await memory.flush();
  const before = { raw: await raw(), episodes: (await memory.episodes()).length, retention: (await memory.stats()).retention };
  await memory.close();

  // Day 31: day 0 is past 30 days. Opening expires the first ten records,
  // each change's fold ten more.
  now = START + 31 * DAY;
  memory = await MemoryController.create(options(true));
  const afterOpen = (await memory.stats()).retention;
  let changes = 0;
  while ((await memory.stats()).retention.messages < DAY0_TURNS && changes < 10) {
    now += 1000;
    await memory.add({ role: "user", content: `day 31 question ${changes}: is the flight on time?` });
    changes++;
  }
  await memory.flush();
  const retention = (await memory.stats()).retention;
  const history = (await memory.history()).map((h) => contentText(h.message));
  const facts = (await memory.facts()).map((f) => f.text);
  const readable = JSON.stringify([
    await memory.history(),
    await memory.episodes(),
    await memory.facts(),
    await memory.search("passport 护照 locker code"),
    await memory.buildContext({ query: "what is my passport number?" }),
    await memory.export(),
  ]);
  await memory.close();
  // Reopened (without retention: what is stored, as it is).
  const reopened = await MemoryController.create(options(false));
  const after = {
    retention: (await reopened.stats()).retention,
    history: (await reopened.history()).map((h) => contentText(h.message)),
  };
  await reopened.close();
  return { before, afterOpen, changes, retention, history, facts, readable, after };
}

/** What is wrong with a run (`out`) and the backend's content after it (`raw`): empty when all holds. */
export function problems(out, raw) {
  const p = [];
  if (!out.before.raw.includes("E12345678")) p.push("before: the passport number was not stored, so the check cannot fail");
  if (out.before.episodes === 0) p.push("before: nothing was compacted");
  if (out.before.retention.messages !== 0) p.push(`before: ${out.before.retention.messages} messages expired too early`);
  if (out.afterOpen.messages !== 10) p.push(`opening expired ${out.afterOpen.messages} messages, not maxPerCall (10)`);
  if (out.retention.messages !== DAY0_TURNS || out.changes !== 2)
    p.push(`${out.retention.messages} messages expired after ${out.changes} changes, not ${DAY0_TURNS} after 2`);
  if (out.retention.episodes + out.retention.rewritten === 0) p.push("no episode was rewritten or removed");
  for (const t of EXPIRED) {
    if (raw.includes(t)) p.push(`the stored bytes still hold ${JSON.stringify(t)}`);
    if (out.readable.includes(t)) p.push(`a read still shows ${JSON.stringify(t)}`);
  }
  for (const t of KEPT) if (!raw.includes(t)) p.push(`the stored bytes lost ${JSON.stringify(t)}`);
  if (!out.facts.includes("The user lives in Chengdu.")) p.push("a remembered fact expired (facts have no default age)");
  if (out.history[0] !== "You are a travel assistant.") p.push("the pinned system prompt expired");
  if (out.history.filter((h) => h.startsWith("day 20 turn")).length !== 10) p.push("a day 20 turn is missing");
  if (JSON.stringify(out.after.retention) !== JSON.stringify(out.retention))
    p.push(`reopened, stats().retention is ${JSON.stringify(out.after.retention)}, not ${JSON.stringify(out.retention)}`);
  if (JSON.stringify(out.after.history) !== JSON.stringify(out.history)) p.push("reopened, the history differs");
  return p;
}
