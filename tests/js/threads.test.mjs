// Threads under a user: one namespace, many conversations. Messages,
// working memory and episodes are the thread's; facts, preferences and cost
// are the namespace's and reach every thread; search reaches the other
// threads unless scoped; forgetting a thread leaves the rest whole.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryController, memoryStorage, nodeFileStorage } from "../../dist/node.js";

const open = (storage, thread, extra = {}) => MemoryController.create({ namespace: "alice", thread, storage, model: "gpt-4o", ...extra });

// Every stored byte of the namespace, as text (records are JSON inside a binary envelope).
async function storedText(storage) {
  const entries = await storage.loadRange(["alice"]);
  return entries.map((e) => Buffer.from(e.data).toString("utf8")).join("\n");
}

for (const [name, make] of [
  ["memoryStorage", async () => [memoryStorage(), async () => {}]],
  [
    "nodeFileStorage",
    async () => {
      const dir = await mkdtemp(join(tmpdir(), "am-threads-"));
      return [nodeFileStorage(dir), () => rm(dir, { recursive: true, force: true })];
    },
  ],
]) {
  test(`${name}: two threads written at once keep their own histories, in order`, async () => {
    const [storage, cleanup] = await make();
    try {
      const [a, b] = await Promise.all([open(storage, "trip"), open(storage, "work")]);
      const sent = { trip: [], work: [] };
      // Interleaved: neither waits for the other.
      await Promise.all(
        ["trip", "work"].map(async (t) => {
          const m = t === "trip" ? a : b;
          for (let i = 0; i < 40; i++) {
            const message = {
              role: i % 2 ? "assistant" : "user",
              content: `${t} message ${i}: ${t === "trip" ? "成都的火锅" : "quarterly report"} ${i}`,
            };
            sent[t].push(message);
            await m.add(message);
          }
        }),
      );
      await Promise.all([a.close(), b.close()]);
      for (const t of ["trip", "work"]) {
        const m = await open(storage, t);
        assert.deepEqual(
          (await m.history()).map((h) => h.message),
          sent[t],
          `${t} holds its own messages, in order`,
        );
        assert.equal(m.stats().thread, t);
        await m.close();
      }
      const plain = await MemoryController.create({ namespace: "alice", storage, model: "gpt-4o" });
      assert.deepEqual(await plain.history(), [], "the default thread is a thread of its own");
      const threads = await plain.threads();
      assert.deepEqual(threads.map((t) => [t.thread, t.messages, t.title]).sort(), [
        ["trip", 40, "trip message 0: 成都的火锅 0"],
        ["work", 40, "work message 0: quarterly report 0"],
      ]);
      for (const t of threads) assert.ok(t.firstAt <= t.lastAt);
      await plain.close();
    } finally {
      await cleanup();
    }
  });
}

test("facts and preferences follow the user into every thread; cost is the namespace's", async () => {
  const storage = memoryStorage();
  const a = await open(storage, "trip", { workingMemory: { maxTokens: 80 } });
  await a.remember({ text: "Alice is vegetarian", key: "diet" });
  await a.remember({ text: "answer in English", kind: "preference", key: "language" });
  // Compaction of this thread learns a preference from the user's own words.
  await a.add({ role: "user", content: "I prefer window seats on long flights." });
  for (let i = 0; i < 12; i++)
    await a.add({ role: i % 2 ? "user" : "assistant", content: `filler turn number ${i} about the itinerary and the hotels` });
  assert.ok((await a.episodes()).length > 0, "thread trip compacted");
  await a.recordUsage({ prompt_tokens: 1000, completion_tokens: 100 });
  await a.close();

  const b = await open(storage, "work");
  assert.deepEqual(await b.history(), []);
  assert.deepEqual(await b.episodes(), [], "episodes are the thread's");
  const facts = (await b.facts()).map((f) => f.text);
  assert.ok(facts.includes("Alice is vegetarian"));
  assert.ok(facts.includes("I prefer window seats on long flights."), `learned in trip, known in work: ${facts}`);
  const ctx = await b.buildContext({ maxTokens: 2000, query: "what does Alice eat" });
  const system = ctx.messages
    .filter((m) => m.role === "system")
    .map((m) => m.content)
    .join("\n");
  assert.match(system, /answer in English/);
  assert.match(system, /window seats/);
  assert.match(system, /vegetarian/);
  assert.ok(b.stats().cost.usd > 0, "cost recorded in trip is the user's");
  await b.close();
});

test("search reaches the user's other threads unless scoped to this one", async () => {
  const storage = memoryStorage();
  const a = await open(storage, "trip");
  const { id } = await a.add({ role: "user", content: "我们下个月去成都，酒店订在春熙路附近" });
  await a.close();
  const b = await open(storage, "work");
  await b.add({ role: "user", content: "the quarterly report is due on Friday" });

  const user = await b.search("成都 酒店");
  assert.equal(user[0]?.id, id);
  assert.equal(user[0].thread, "trip", "a hit from another thread says which");
  assert.deepEqual(await b.search("成都 酒店", { scope: "thread" }), Object.assign([], { mode: "lexical" }));
  const own = await b.search("quarterly report", { scope: "thread" });
  assert.equal(own.length, 1);
  assert.equal(own[0].thread, undefined);

  const ctx = await b.buildContext({ maxTokens: 2000, query: "成都的酒店在哪里" });
  assert.ok(ctx.sections.knowledge.ids.includes(id), "the knowledge block reaches the other thread");
  assert.ok(ctx.messages.some((m) => typeof m.content === "string" && m.content.includes("春熙路")));

  await assert.rejects(b.search("x", { scope: "everyone" }), (e) => e.code === "INVALID_INPUT" && /scope/.test(e.message));
  await b.close();
});

test("forgetting a thread removes it from every stored byte, while another thread writes", async () => {
  const storage = memoryStorage();
  const a = await open(storage, "secret", { workingMemory: { maxTokens: 80 } });
  await a.remember({ text: "Alice lives in Lyon", key: "city" });
  await a.add({ role: "user", content: "My favorite codename is BLUEHERON, use it for every surprise party." });
  for (let i = 0; i < 12; i++)
    await a.add({ role: i % 2 ? "user" : "assistant", content: `BLUEHERON planning detail ${i} with the guest list` });
  assert.ok((await a.episodes()).length > 0);
  assert.ok(
    (await a.facts()).some((f) => f.tags?.includes("auto") && f.text.includes("BLUEHERON")),
    "the thread taught a fact",
  );
  await a.close();

  const b = await open(storage, "daily");
  const c = await open(storage, "other");
  // c writes while b forgets thread "secret".
  const writing = (async () => {
    for (let i = 0; i < 20; i++) await c.add({ role: "user", content: `unrelated note ${i}` });
  })();
  const forgotten = await b.forget({ thread: "secret" });
  await writing;
  assert.equal(forgotten.messages, 13);
  assert.ok(forgotten.facts >= 1, "what its summaries taught goes too");
  await Promise.all([b.close(), c.close()]);

  assert.doesNotMatch(await storedText(storage), /BLUEHERON/, "no stored byte holds the thread's text");
  const again = await open(storage, "daily");
  assert.deepEqual(
    (await again.threads()).map((t) => [t.thread, t.messages]),
    [["other", 20]],
  );
  const facts = (await again.facts()).map((f) => f.text);
  assert.ok(facts.includes("Alice lives in Lyon"), "facts the user stated stay");
  assert.ok(!facts.some((f) => f.includes("BLUEHERON")));
  assert.equal((await again.search("BLUEHERON")).length, 0);
  await again.close();
  const other = await open(storage, "other");
  assert.equal((await other.history()).length, 20, "the thread written meanwhile is whole");
  await other.close();
  // The forgotten thread can start again, and its new life stays.
  const reborn = await open(storage, "secret");
  assert.deepEqual(await reborn.history(), []);
  await reborn.add({ role: "user", content: "a fresh start" });
  await reborn.close();
  const check = await open(storage, "secret");
  assert.deepEqual(
    (await check.history()).map((h) => h.message.content),
    ["a fresh start"],
  );
  await check.close();
});

test("forgetting this controller's own thread empties it; a message of another thread is forgotten by id", async () => {
  const storage = memoryStorage();
  const a = await open(storage, "a");
  await a.add({ role: "user", content: "alpha one" });
  await a.close();
  const b = await open(storage, "b");
  await b.add({ role: "user", content: "bravo one" });
  const [hit] = await b.search("alpha");
  assert.equal(hit.thread, "a");
  assert.equal((await b.forget(hit.id)).messages, 1);
  assert.equal((await b.forget({ thread: "b" })).messages, 1);
  assert.deepEqual(await b.history(), []);
  await b.add({ role: "user", content: "bravo two" });
  await b.close();
  const again = await open(storage, "b");
  assert.deepEqual(
    (await again.history()).map((h) => h.message.content),
    ["bravo two"],
  );
  assert.deepEqual(await again.threads(), [(await again.threads())[0]]);
  assert.equal((await again.threads())[0].thread, "b");
  await again.close();
});

test("export carries threads, and import restores them", async () => {
  const storage = memoryStorage();
  for (const t of ["x", "y"]) {
    const m = await open(storage, t);
    await m.add({ role: "user", content: `hello from ${t}` });
    await m.close();
  }
  const m = await open(storage, "x");
  const snapshot = await m.export();
  await m.close();
  const copy = memoryStorage();
  const imported = await MemoryController.import(snapshot, { namespace: "alice", thread: "y", storage: copy });
  assert.deepEqual(
    (await imported.history()).map((h) => h.message.content),
    ["hello from y"],
  );
  assert.deepEqual((await imported.threads()).map((t) => t.thread).sort(), ["x", "y"]);
  await imported.close();
});

test("bad thread input is a MemoryError", async () => {
  await assert.rejects(MemoryController.create({ thread: "" }), (e) => e.code === "INVALID_INPUT");
  await assert.rejects(MemoryController.create({ thread: 7 }), (e) => e.code === "INVALID_INPUT");
  const m = await MemoryController.create({});
  await assert.rejects(m.forget({ thread: "" }), (e) => e.code === "INVALID_INPUT" && /thread/.test(e.message));
  await assert.rejects(m.forget({ thread: 3 }), (e) => e.code === "INVALID_INPUT");
  assert.equal(m.stats().thread, "default");
  await m.close();
});
