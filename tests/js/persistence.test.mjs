// Persistence through the built package with real adapters in Node: reload
// equality, the durability contract under a failing adapter, two writers,
// damaged values, namespaces. (Browser and workerd adapters: runtimes.test.mjs.)
// Node-dependent: nodeFileStorage on node:fs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryController, memoryStorage, nodeFileStorage } from "../../dist/node.js";
import { rng, randomConversation } from "./helpers.mjs";

async function snapshot(memory) {
  const stats = memory.stats();
  return { history: await memory.history(), episodes: await memory.episodes(), cost: stats.cost, messages: stats.messages };
}

async function withDir(fn) {
  const dir = await mkdtemp(join(tmpdir(), "agent-memory-"));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

for (const [name, make] of [
  ["memoryStorage", async () => memoryStorage()],
  ["nodeFileStorage", null],
]) {
  test(`${name}: state after reload equals state before`, async () => {
    const run = async (storage) => {
      const options = { namespace: "user-42", model: "gpt-4o", workingMemory: { maxTokens: 300 }, foldAfter: 40, storage };
      const memory = await MemoryController.create(options);
      for (const m of randomConversation(rng(7), 160)) await memory.add(m);
      await memory.recordUsage({ promptTokens: 1200, completionTokens: 80, cachedPromptTokens: 200 });
      await memory.recordUsage({ model: "deepseek-v3.2", promptTokens: 900, completionTokens: 50 });
      const before = await snapshot(memory);
      assert.ok(before.episodes.length > 0, "the conversation should have compacted");
      await memory.close();
      const again = await MemoryController.create(options);
      assert.deepEqual(await snapshot(again), before);
      assert.deepEqual(again.loadReport().corrupt, []);
      // The reloaded controller keeps working and its context is valid.
      await again.add({ role: "user", content: "还记得我们刚才说的吗？" });
      const ctx = await again.buildContext({ maxTokens: 600 });
      assert.equal(ctx.tokens, again.countMessages(ctx.messages));
    };
    if (make) await run(await make());
    else await withDir((dir) => run(nodeFileStorage(dir)));
  });
}

// An adapter that fails on demand: the durability contract.
function flaky(inner) {
  const state = { fail: false, saves: 0 };
  const adapter = {
    ...inner,
    async save(key, data) {
      if (state.fail) throw new Error("disk on fire");
      state.saves++;
      return inner.save(key, data);
    },
  };
  return { adapter, state };
}

test("a failing adapter rejects add with STORAGE_ERROR, changes nothing, and a retry succeeds", async () => {
  const base = memoryStorage();
  const { adapter, state } = flaky(base);
  const memory = await MemoryController.create({ namespace: "n", storage: adapter });
  await memory.add({ role: "user", content: "first" });
  state.fail = true;
  await assert.rejects(memory.add({ role: "user", content: "second" }), (e) => {
    assert.equal(e.name, "MemoryError");
    assert.equal(e.code, "STORAGE_ERROR");
    assert.equal(e.cause.message, "disk on fire");
    return true;
  });
  assert.equal((await memory.history()).length, 1);
  await assert.rejects(memory.recordUsage({ promptTokens: 10 }), { code: "STORAGE_ERROR" });
  assert.equal(memory.stats().cost.usd, 0);
  state.fail = false;
  await memory.add({ role: "user", content: "second" });
  const reloaded = await MemoryController.create({ namespace: "n", storage: base });
  assert.deepEqual(
    (await reloaded.history()).map((h) => h.message.content),
    ["first", "second"],
  );
});

test("an adapter's own MemoryError (e.g. STORAGE_QUOTA) reaches the caller unchanged", async () => {
  const base = memoryStorage();
  const quota = Object.assign(new Error("full"), { name: "MemoryError", code: "STORAGE_QUOTA" });
  const memory = await MemoryController.create({
    storage: {
      ...base,
      save: async () => {
        throw quota;
      },
    },
  });
  await assert.rejects(memory.add({ role: "user", content: "x" }), (e) => e === quota);
});

test("two controllers on one namespace: after reload each sees the union, in the same order", async () => {
  await withDir(async (dir) => {
    const options = {
      namespace: "shared",
      storage: nodeFileStorage(dir),
      clock: (() => {
        let t = 0;
        return () => ++t;
      })(),
    };
    const a = await MemoryController.create(options);
    const b = await MemoryController.create({ ...options, storage: nodeFileStorage(dir) });
    const writes = [];
    for (let i = 0; i < 30; i++) writes.push((i % 3 ? a : b).add({ role: "user", content: `${i % 3 ? "A" : "B"}${i}` }));
    await Promise.all(writes);
    const r1 = await MemoryController.create({ namespace: "shared", storage: nodeFileStorage(dir) });
    const r2 = await MemoryController.create({ namespace: "shared", storage: nodeFileStorage(dir) });
    const h1 = (await r1.history()).map((h) => h.message.content);
    assert.deepEqual(
      h1,
      (await r2.history()).map((h) => h.message.content),
    );
    assert.equal(h1.length, 30);
    assert.equal(new Set(h1).size, 30);
  });
});

test("a damaged stored value is reported as CORRUPT_DATA; everything intact loads", async () => {
  await withDir(async (dir) => {
    const memory = await MemoryController.create({ namespace: "ns", storage: nodeFileStorage(dir) });
    for (let i = 0; i < 5; i++) await memory.add({ role: "user", content: `message ${i}` });
    const logDir = join(dir, "ns", "log");
    const writerDir = join(logDir, (await readdir(logDir))[0]);
    const victim = join(writerDir, (await readdir(writerDir)).sort()[2]);
    const bytes = await readFile(victim);
    await writeFile(victim, bytes.subarray(0, bytes.length - 4));
    const reloaded = await MemoryController.create({ namespace: "ns", storage: nodeFileStorage(dir) });
    const report = reloaded.loadReport();
    assert.equal(report.corrupt.length, 1);
    assert.equal(report.corrupt[0].code, "CORRUPT_DATA");
    assert.equal(report.corrupt[0].key[0], "ns");
    assert.equal((await reloaded.history()).length, 4);
  });
});

test("a value written by a newer format refuses to load with FORMAT_TOO_NEW", async () => {
  const storage = memoryStorage();
  const memory = await MemoryController.create({ namespace: "ns", storage });
  await memory.add({ role: "user", content: "hi" });
  const [entry] = await storage.loadRange(["ns"]);
  entry.data[4] = 99;
  await storage.save(entry.key, entry.data);
  await assert.rejects(MemoryController.create({ namespace: "ns", storage }), { code: "FORMAT_TOO_NEW" });
});

test("namespaces that are prefixes of each other never see each other's data", async () => {
  const storage = memoryStorage();
  const a = await MemoryController.create({ namespace: "user", storage });
  const b = await MemoryController.create({ namespace: "user1", storage });
  await a.add({ role: "user", content: "from user" });
  await b.add({ role: "user", content: "from user1" });
  const ra = await MemoryController.create({ namespace: "user", storage });
  assert.deepEqual(
    (await ra.history()).map((h) => h.message.content),
    ["from user"],
  );
});

test("adding writes O(1) bytes: one small record per message", async () => {
  const base = memoryStorage();
  let bytes = 0;
  const counting = {
    ...base,
    save: async (k, d) => {
      bytes += d.length;
      return base.save(k, d);
    },
  };
  const memory = await MemoryController.create({ namespace: "n", storage: counting, foldAfter: 1_000_000 });
  for (let i = 0; i < 200; i++) await memory.add({ role: "user", content: "a message of a usual size, 二十个字左右的一句话。" });
  const early = bytes;
  for (let i = 0; i < 200; i++) await memory.add({ role: "user", content: "a message of a usual size, 二十个字左右的一句话。" });
  // Compaction records come in too, but the second 200 cost about what the first did.
  assert.ok(bytes - early < early * 1.5, `${early} then ${bytes - early}`);
});

test("forget removes the content from every stored byte, with the summaries that quoted it", async () => {
  const storage = memoryStorage();
  const scan = async () =>
    Buffer.concat((await storage.loadRange([])).map((e) => Buffer.concat([Buffer.from(e.key.join("/")), e.data]))).toString("utf8");
  const options = {
    namespace: "u",
    workingMemory: { maxTokens: 200 },
    foldAfter: 20,
    storage,
    clock: (() => {
      let t = 0;
      return () => (t += 1000);
    })(),
  };
  const memory = await MemoryController.create(options);
  let secretId;
  for (let i = 0; i < 60; i++) {
    const { id } = await memory.add({
      role: "user",
      content: i === 4 ? "记住：我的护照号是 E12345678。" : `message ${i}: 我们下周去杭州 and book the hotel`,
    });
    if (i === 4) secretId = id;
  }
  assert.ok(
    (await memory.episodes()).some((e) => e.summary.includes("E12345678")),
    "a summary quoted it",
  );
  assert.ok((await scan()).includes("E12345678"));
  const out = await memory.forget(secretId);
  assert.equal(out.messages, 1);
  assert.equal(out.episodesRewritten + out.episodesDropped, 1);
  assert.equal(out.pendingRemovals, 0);
  const bytes = await scan();
  assert.ok(!bytes.includes("E12345678") && !bytes.includes("护照号"), "forgotten text is still stored");
  assert.ok(bytes.includes("message 30"));
  const reloaded = await MemoryController.create({ ...options, storage });
  assert.equal((await reloaded.history()).length, 59);
  // A time range, by timestamp (ms), inclusive.
  const history = await reloaded.history();
  const out2 = await reloaded.forget({ from: history[10].ts, to: history[14].ts });
  assert.equal(out2.messages, 5);
  assert.ok(!(await scan()).includes(history[12].message.content));
  await assert.rejects(reloaded.forget("m-nope-1"), { code: "INVALID_INPUT" });
  // The whole namespace, and nothing of another.
  const other = await MemoryController.create({ namespace: "u2", storage });
  await other.add({ role: "user", content: "keep me" });
  await reloaded.forget({ namespace: true });
  assert.deepEqual(await storage.loadRange(["u"]), []);
  assert.equal((await reloaded.history()).length, 0);
  assert.equal((await storage.loadRange(["u2"])).length, 1);
});

test("regenerate and edit: truncateAfter drops the reply, replace swaps a message and its tail in one change; a reload agrees", async () => {
  const storage = memoryStorage();
  let now = 1_000;
  const options = { namespace: "chat", model: "gpt-4o", workingMemory: { maxTokens: 200 }, storage, clock: () => (now += 1000) };
  const memory = await MemoryController.create(options);
  const ids = [];
  for (let i = 0; i < 30; i++)
    ids.push(
      (
        await memory.add({
          role: i % 2 ? "assistant" : "user",
          content: i === 25 ? "my locker code is OSPREY-4412" : `turn ${i}: 我们去成都吃火锅`,
        })
      ).id,
    );
  assert.ok((await memory.episodes()).length > 0, "compacted");
  // Regenerate: the last reply goes, the question stays.
  assert.equal((await memory.truncateAfter(ids[28])).messages, 1);
  assert.equal((await memory.history()).at(-1).id, ids[28]);
  // Edit turn 24: it and everything after are replaced by the new message.
  const edited = await memory.replace(ids[24], { role: "user", content: "edited: 火锅要提前预约吗？" });
  assert.equal(edited.forgotten.messages, 5);
  assert.equal(edited.tokens, memory.countMessages([{ role: "user", content: "edited: 火锅要提前预约吗？" }]) - 3);
  const history = await memory.history();
  assert.deepEqual(
    history.slice(-2).map((h) => h.message.content),
    ["turn 23: 我们去成都吃火锅", "edited: 火锅要提前预约吗？"],
  );
  const stored = (await storage.loadRange([])).map((e) => new TextDecoder().decode(e.data)).join("\n");
  assert.ok(!stored.includes("OSPREY-4412"), "the replaced tail left storage");
  // Bad input changes nothing.
  await assert.rejects(memory.replace("m-nobody-1", { role: "user", content: "x" }), { code: "INVALID_INPUT" });
  await assert.rejects(memory.replace(ids[10], { role: "tool", tool_call_id: "none", content: "x" }), { code: "TOOL_RESULT_WITHOUT_CALL" });
  await assert.rejects(memory.truncateAfter("m-nobody-1"), { code: "INVALID_INPUT" });
  assert.deepEqual(await memory.history(), history);
  const again = await MemoryController.create(options);
  assert.deepEqual(await again.history(), history);
  assert.deepEqual(await again.episodes(), await memory.episodes());
});

test("export and import: a snapshot restores under another namespace with every id and order; bad snapshots are refused", async () => {
  let now = 5_000;
  const clock = () => (now += 1000);
  const source = await MemoryController.create({
    namespace: "from",
    model: "gpt-4o",
    workingMemory: { maxTokens: 200 },
    storage: memoryStorage(),
    clock,
  });
  for (const m of randomConversation(rng(11), 60)) await source.add(m);
  await source.remember({ text: "Allergic to peanuts.", key: "allergy" });
  await source.remember({ text: "Allergic to peanuts and shellfish.", key: "allergy" });
  await source.recordUsage({ prompt_tokens: 900, completion_tokens: 40 }, { model: "gpt-4o" });
  const snapshot = await source.export();
  assert.equal(snapshot.split("\n")[0], '{"agentMemorySnapshot":1}');
  const storage = memoryStorage();
  const imported = await MemoryController.import(snapshot, {
    namespace: "to",
    model: "gpt-4o",
    workingMemory: { maxTokens: 200 },
    storage,
    clock,
  });
  const state = async (m) => ({
    history: await m.history(),
    episodes: await m.episodes(),
    facts: await m.facts(),
    allergy: await m.factHistory("allergy"),
    cost: m.stats().cost,
  });
  const want = await state(source);
  assert.ok(want.episodes.length > 0);
  assert.deepEqual(await state(imported), want);
  assert.deepEqual(
    await state(await MemoryController.create({ namespace: "to", model: "gpt-4o", workingMemory: { maxTokens: 200 }, storage })),
    want,
  );
  assert.equal(await imported.export(), snapshot);
  for (const [text, code] of [
    ["not a snapshot", "INVALID_INPUT"],
    ['{"agentMemorySnapshot":9}', "FORMAT_TOO_NEW"],
    ['{"agentMemorySnapshot":1}\n{"msg":1}', "INVALID_INPUT"],
  ]) {
    await assert.rejects(MemoryController.import(text, { namespace: "to", storage }), { name: "MemoryError", code });
  }
  assert.deepEqual(
    await state(await MemoryController.create({ namespace: "to", model: "gpt-4o", workingMemory: { maxTokens: 200 }, storage })),
    want,
    "a refused import changed nothing",
  );
});

test("bounded segments: no value over segmentBytes, bytes written near twice those stored, an old fact found after reopening", async () => {
  const base = memoryStorage();
  let written = 0;
  let largest = 0;
  const storage = {
    ...base,
    save: async (k, d) => {
      written += d.length;
      largest = Math.max(largest, d.length);
      return base.save(k, d);
    },
  };
  const options = { namespace: "big", model: "gpt-4o", segmentBytes: 32 * 1024, storage };
  const memory = await MemoryController.create(options);
  let factId;
  for (let i = 0; i < 4000; i++) {
    const content =
      i === 1000
        ? "My locker at the Zurich office has the code word PELICAN-SUNRISE."
        : `turn ${i}: 我们讨论了第${i % 97}个方案 and the budget for quarter ${i % 13}`;
    const { id } = await memory.add({ role: i % 2 ? "assistant" : "user", content });
    if (i === 1000) factId = id;
  }
  await memory.close();
  const values = await base.loadRange([]);
  const stored = values.reduce((n, v) => n + v.data.length, 0);
  assert.ok(largest <= 32 * 1024, `a value of ${largest} bytes`);
  assert.ok(written / stored <= 2.3, `written ${written} / stored ${stored}`);
  assert.ok(values.some((v) => v.key[1] === "seg") && values.every((v) => v.data[4] === 2), "format-2 segments");
  const again = await MemoryController.create(options);
  assert.equal((await again.history()).length, 4000);
  assert.equal((await again.search("code word of my locker in Zurich", { k: 3 }))[0]?.id, factId);
  await again.close();
});
