// The JS surface of the built package in Node: properties over random
// conversations, error codes for bad input, concurrency, cost.
import { test } from "node:test";
import assert from "node:assert/strict";
import { MemoryController } from "../../dist/node.js";
import { rng, randomConversation, assertContext } from "./helpers.mjs";

test("random conversations: budget, recount, whole groups, nothing lost", async () => {
  for (let seed = 1; seed <= 40; seed++) {
    const r = rng(seed);
    const maxTokens = 100 + Math.floor(r() * 3000);
    const memory = await MemoryController.create({
      model: seed % 3 === 0 ? "gpt-4" : seed % 5 === 0 ? "claude-sonnet-4.5" : "gpt-4o",
      workingMemory: { maxTokens: 50 + Math.floor(r() * 2000), recentMessages: seed % 4 === 0 ? 10 : undefined },
    });
    const conversation = randomConversation(r, 20 + Math.floor(r() * 150));
    const ids = [];
    for (const m of conversation) ids.push((await memory.add(m)).id);
    const history = await memory.history();
    assert.deepEqual(
      history.map((h) => h.id),
      ids,
    );
    assert.deepEqual(
      history.map((h) => h.message),
      conversation.map((m) => JSON.parse(JSON.stringify(m))),
    );
    const reserveOutput = Math.floor(r() * 50);
    try {
      assertContext(memory, await memory.buildContext({ maxTokens, reserveOutput }), maxTokens, reserveOutput);
    } catch (e) {
      assert.equal(e.code, "CONTEXT_OVERFLOW", `seed ${seed}: ${e.stack}`);
    }
    await memory.close();
  }
});

test("bad input is a MemoryError with a stable code, and changes nothing", async () => {
  const memory = await MemoryController.create({ model: "gpt-4o" });
  await memory.add({ role: "user", content: "first" });
  const cases = [
    [{ role: "robot", content: "x" }, "INVALID_ROLE"],
    [{ role: "user", content: 42 }, "INVALID_CONTENT"],
    [{ role: "user", content: [{ type: "video" }] }, "INVALID_CONTENT"],
    [{ role: "user", content: "lone \ud800 surrogate" }, "LONE_SURROGATE"],
    [{ role: "tool", tool_call_id: "nope", content: "42" }, "TOOL_RESULT_WITHOUT_CALL"],
    [{ role: "assistant", content: "x", refusal: 42 }, "INVALID_INPUT"],
    [{ role: "assistant", content: null, refusal: null, annotations: [] }, "INVALID_CONTENT"],
    [undefined, "INVALID_INPUT"],
  ];
  for (const [message, code] of cases) {
    await assert.rejects(memory.add(message), (e) => {
      assert.equal(e.name, "MemoryError");
      assert.ok(e instanceof Error);
      assert.equal(e.code, code, `${JSON.stringify(message)}: ${e.message}`);
      return true;
    });
  }
  assert.equal((await memory.history()).length, 1);
  assert.throws(() => memory.countTokens("a \udc00 b"), { code: "LONE_SURROGATE" });
  await assert.rejects(MemoryController.create({ model: "gpt-4o", workingMemory: { maxTokens: 0 } }), { code: "INVALID_INPUT" });
  await assert.rejects(MemoryController.create({ model: "gpt-4o", typo: 1 }), { code: "INVALID_INPUT" });
  await assert.rejects(memory.buildContext({ maxTokens: 10, reserveOutput: 10 }), { code: "INVALID_INPUT" });
  for (const bad of [{ maxTokenz: 10 }, { maxTokens: -1 }, { tools: 3 }, { keepFields: [1] }, 5]) {
    await assert.rejects(memory.buildContext(bad), { code: "INVALID_INPUT" }, JSON.stringify(bad));
  }
  await assert.rejects(memory.add({ role: "user", content: "x" }, { task: "t" }), { code: "INVALID_INPUT" });
  await assert.rejects(memory.recordUsage({ promptTokens: 1 }, { modle: "gpt-4o" }), { code: "INVALID_INPUT" });
  assert.throws(() => memory.budgetAwareMaxTokens(1, undefined, { floor: "x" }), { code: "INVALID_INPUT" });
});

test("a host-supplied model entry is used; special-token text is ordinary text", async () => {
  const memory = await MemoryController.create({
    model: "my-llama",
    models: {
      "my-llama": {
        tokenizer: "cl100k_base",
        contextWindow: 8000,
        maxOutput: 1000,
        inputPrice: 0.1,
        cachedInputPrice: 0.05,
        outputPrice: 0.2,
      },
    },
  });
  assert.equal(memory.stats().tokenizer.encoding, "cl100k_base");
  assert.ok(memory.countTokens("<|endoftext|>") > 1);
});

test("concurrent calls do not trip over each other", async () => {
  const memory = await MemoryController.create({ model: "gpt-4o", workingMemory: { maxTokens: 200 } });
  const adds = [];
  for (let i = 0; i < 50; i++) adds.push(memory.add({ role: i % 2 ? "assistant" : "user", content: `turn ${i} 你好` }));
  const [results, ctx, history] = await Promise.all([Promise.all(adds), memory.buildContext({ maxTokens: 300 }), memory.history()]);
  assert.equal(new Set(results.map((r) => r.id)).size, 50);
  assert.ok(ctx.tokens <= 300);
  assert.ok(history.length >= 50);
  assert.equal((await memory.history()).length, 50);
});

test("the clock is injectable and compaction is reported", async () => {
  let now = 1_000;
  const memory = await MemoryController.create({ model: "gpt-4o-mini", workingMemory: { maxTokens: 120 }, clock: () => (now += 10) });
  const events = [];
  for (let i = 0; i < 30; i++) {
    const r = await memory.add({ role: i % 2 ? "assistant" : "user", content: `message ${i}: remember the hotel is near 春熙路` });
    if (r.compaction) events.push(r.compaction);
  }
  const history = await memory.history();
  assert.deepEqual(
    history.slice(0, 3).map((h) => h.ts),
    [1010, 1020, 1030],
  );
  assert.ok(events.length > 0);
  const episodes = await memory.episodes();
  assert.equal(episodes.length, events.length);
  assert.equal(episodes[0].summarySource, "fallback");
  assert.ok(history.some((h) => h.place === "archived"));
  const stats = memory.stats();
  assert.equal(stats.messages.total, 30);
  assert.equal(stats.messages.archived + stats.messages.working, 30);
});

test("cost: usage is charged per model; output is capped by money", async () => {
  const memory = await MemoryController.create({ model: "gpt-4o" });
  const usd = await memory.recordUsage({ promptTokens: 1_000_000, completionTokens: 100_000, cachedPromptTokens: 400_000 });
  assert.ok(Math.abs(usd - 3.0) < 1e-9);
  await memory.recordUsage({ model: "deepseek-v3.2", promptTokens: 1_000_000, completionTokens: 1_000_000 });
  // An unknown model is charged tokens, never a made-up price.
  assert.equal(await memory.recordUsage({ model: "nope", promptTokens: 1 }), null);
  await assert.rejects(memory.recordUsage({ promptTokens: 1, cachedPromptTokens: 2 }), { code: "INVALID_INPUT" });
  const cost = memory.stats().cost;
  assert.ok(Math.abs(cost.usd - 3.69) < 1e-9);
  assert.equal(cost.byModel.length, 3);
  assert.deepEqual(cost.byModel.find((m) => m.model === "nope").usd, null);
  assert.deepEqual(memory.stats().unknownModels, ["nope"]);
  assert.equal(memory.budgetAwareMaxTokens(1, "gpt-4o-mini"), 16384);
  assert.throws(() => memory.budgetAwareMaxTokens(0.000001, "gpt-4o"), { name: "MemoryError", code: "BUDGET_EXHAUSTED" });
});

test("estimated models calibrate from reported prompt tokens", async () => {
  const memory = await MemoryController.create({ model: "claude-sonnet-4.5" });
  assert.equal(memory.stats().tokenizer.exact, false);
  await memory.add({ role: "user", content: "Please plan a three day trip to Chengdu for me, 我想吃火锅。" });
  const before = (await memory.buildContext({ maxTokens: 1000 })).tokens;
  for (let i = 0; i < 10; i++) {
    await memory.buildContext({ maxTokens: 1000 });
    await memory.recordUsage({ promptTokens: before * 2, completionTokens: 10 });
  }
  const after = (await memory.buildContext({ maxTokens: 1000 })).tokens;
  assert.ok(memory.stats().tokenizer.calibration > 1.3, `${memory.stats().tokenizer.calibration}`);
  assert.ok(after > before * 1.3, `${before} → ${after}`);
});

test("a closed controller refuses further calls", async () => {
  const memory = await MemoryController.create({});
  await memory.close();
  await assert.rejects(memory.add({ role: "user", content: "x" }), { code: "CLOSED" });
});

test("a clock that returns a non-finite time is refused by every write alike, and nothing changes", async () => {
  let now = 1_000;
  const memory = await MemoryController.create({ model: "gpt-4o", clock: () => now });
  await memory.add({ role: "user", content: "before" });
  for (const bad of [NaN, Infinity, "soon", undefined]) {
    now = bad;
    const calls = [
      memory.add({ role: "user", content: "x" }),
      memory.remember({ key: "k", text: "v" }),
      memory.recordUsage({ promptTokens: 1, completionTokens: 1 }),
      memory.setProcedures({ rules: ["be brief"] }),
      memory.forget({ key: "k" }),
      memory.buildContext({ maxTokens: 500 }),
    ];
    for (const call of calls) await assert.rejects(call, (e) => e.code === "INVALID_INPUT" && /clock/.test(e.message), String(bad));
  }
  now = 2_000;
  assert.deepEqual(
    (await memory.history()).map((h) => h.message.content),
    ["before"],
  );
  assert.deepEqual(await memory.facts(), []);
  assert.equal(memory.stats().cost.byModel.length, 0);
});

test("MemoryError is a runtime class: instanceof and isMemoryError hold for the wasm's, the adapters' and the hooks' errors, and only for them", async () => {
  const { MemoryError, isMemoryError, memoryStorage, openAICompatibleEmbedder } = await import("../../dist/node.js");
  const caught = async (p) =>
    p.then(
      () => assert.fail("expected a rejection"),
      (e) => e,
    );
  const fromWasm = await caught(MemoryController.create({ model: 42 }));
  const fromAdapter = await caught(memoryStorage().save("not a key", new Uint8Array()));
  const fromHook = await caught(openAICompatibleEmbedder({ baseURL: "http://127.0.0.1:9", apiKey: "k", model: "m", timeoutMs: 50 })(["x"]));
  for (const e of [fromWasm, fromAdapter, fromHook]) {
    assert.ok(e instanceof MemoryError, `${e?.code}: instanceof MemoryError`);
    assert.ok(e instanceof Error);
    assert.ok(isMemoryError(e));
  }
  assert.deepEqual([fromWasm.code, fromAdapter.code], ["INVALID_INPUT", "INVALID_INPUT"]);
  assert.match(fromHook.code, /^EMBEDDER_(HTTP|TIMEOUT)$/);
  const made = new MemoryError("CLOSED", "closed", { cause: fromWasm });
  assert.deepEqual([made.name, made.code, made.message, made.cause], ["MemoryError", "CLOSED", "closed", fromWasm]);
  // Another realm's error of the same shape is one too; other errors are not.
  const { runInNewContext } = await import("node:vm");
  assert.ok(runInNewContext(`Object.assign(new Error("x"), { name: "MemoryError", code: "CLOSED" })`) instanceof MemoryError);
  for (const other of [
    new Error("x"),
    new TypeError("x"),
    { name: "MemoryError" },
    { name: "MemoryError", code: 1 },
    null,
    undefined,
    "MemoryError",
  ]) {
    assert.equal(other instanceof MemoryError, false);
    assert.equal(isMemoryError(other), false);
  }
});

test("history() of more messages than it converts at a time lists every one, in order, as its pages do", async () => {
  const memory = await MemoryController.create({ model: "gpt-4o", workingMemory: { maxTokens: 2000 } });
  // Past two of the binding's pieces (2,048 messages each).
  const { ids } = await memory.addMany(
    Array.from({ length: 4500 }, (_, i) => ({
      message: { role: i % 2 ? "assistant" : "user", content: `turn ${i}: 第${i}条` },
      at: 1_700_000_000_000 + i * 1000,
    })),
  );
  const history = await memory.history();
  assert.deepEqual(
    history.map((h) => h.id),
    ids,
  );
  assert.equal(history[4099].message.content, "turn 4099: 第4099条");
  const pages = [];
  for (let before; pages.length < ids.length; ) {
    const page = await memory.history({ limit: 1000, before });
    pages.unshift(...page);
    before = page[0].id;
  }
  assert.deepEqual(pages, history);
  assert.deepEqual(
    (await memory.history({ limit: 3000 })).map((h) => h.id),
    ids.slice(-3000),
  );
});
