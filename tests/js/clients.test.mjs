// Replies and usage exactly as clients return them, through the built
// package: every field is stored and given back as given, only what the chat
// completions request accepts goes back, counts are of what is sent; usage
// objects of every client; model ids as people write them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { MemoryController } from "../../dist/node.js";

// A chat.completions reply's message, as the openai client (v7) returns it.
const openaiReply = () => ({ role: "assistant", content: "成都明天多云，21°C。", refusal: null, annotations: [], audio: null });
// DeepSeek thinking mode: a tool-calling turn, then the answer.
const deepseekCall = () => ({
  role: "assistant",
  content: "",
  reasoning_content: "需要查天气。",
  tool_calls: [{ index: 0, id: "call_0_a", type: "function", function: { name: "weather", arguments: '{"city":"成都"}' } }],
});
const deepseekAnswer = () => ({ role: "assistant", content: "多云。", reasoning_content: "工具说多云。" });
// An OpenRouter-style gateway reply.
const routerReply = () => ({
  role: "assistant",
  content: "ok",
  refusal: null,
  reasoning: "brief",
  reasoning_details: [{ type: "reasoning.text", text: "brief", format: "unknown", index: 0 }],
  future_field: { x: 1 },
});

test("history gives every message back exactly as given", async () => {
  const memory = await MemoryController.create({ model: "gpt-4o" });
  const given = [
    { role: "user", content: "明天成都天气？" },
    openaiReply(),
    { role: "user", content: "查一下" },
    deepseekCall(),
    { role: "tool", tool_call_id: "call_0_a", content: "多云" },
    deepseekAnswer(),
    { role: "user", content: "thanks" },
    routerReply(),
  ];
  for (const m of given) await memory.add(m);
  assert.deepEqual(
    (await memory.history()).map((h) => h.message),
    given,
  );
});

test("buildContext sends only what the request accepts, and counts exactly that", async () => {
  const memory = await MemoryController.create({ model: "gpt-4o" });
  for (const m of [
    { role: "user", content: "明天成都天气？" },
    openaiReply(),
    { role: "user", content: "查一下" },
    deepseekCall(),
    { role: "tool", tool_call_id: "call_0_a", content: "多云" },
    deepseekAnswer(),
    { role: "user", content: "thanks" },
    routerReply(),
  ]) {
    await memory.add(m);
  }
  const ctx = await memory.buildContext({ maxTokens: 4000 });
  assert.deepEqual(ctx.messages, [
    { role: "user", content: "明天成都天气？" },
    { role: "assistant", content: "成都明天多云，21°C。" },
    { role: "user", content: "查一下" },
    // A turn that called tools: DeepSeek needs its reasoning back (HTTP 400 otherwise).
    {
      role: "assistant",
      content: "",
      reasoning_content: "需要查天气。",
      tool_calls: [{ id: "call_0_a", type: "function", function: { name: "weather", arguments: '{"city":"成都"}' } }],
    },
    { role: "tool", content: "多云", tool_call_id: "call_0_a" },
    { role: "assistant", content: "多云。", reasoning_content: "工具说多云。" },
    { role: "user", content: "thanks" },
    { role: "assistant", content: "ok" },
  ]);
  assert.equal(ctx.tokens, memory.countMessages(ctx.messages));
  // What stays home costs nothing: the same context without the stored extras counts the same.
  const bare = [
    { role: "user", content: "明天成都天气？" },
    { role: "assistant", content: "成都明天多云，21°C。" },
  ];
  assert.equal(memory.countMessages(bare), memory.countMessages(ctx.messages.slice(0, 2)));
  // keepFields sends a stored field as it is, counted.
  const kept = await memory.buildContext({ maxTokens: 4000, keepFields: ["future_field"] });
  assert.deepEqual(kept.messages.at(-1), { role: "assistant", content: "ok", future_field: { x: 1 } });
  assert.equal(kept.tokens, memory.countMessages(kept.messages));
  assert.ok(kept.tokens > ctx.tokens);
});

test("strictness stays where it protects: wrong types of known fields, unknown roles", async () => {
  const memory = await MemoryController.create({ model: "gpt-4o" });
  await assert.rejects(memory.add({ role: "assistant", content: "x", reasoning_content: 1 }), { code: "INVALID_INPUT" });
  await assert.rejects(memory.add({ role: "assistant", content: "x", annotations: "none" }), { code: "INVALID_INPUT" });
  await assert.rejects(memory.add({ role: "function", content: "x", name: "f" }), { code: "INVALID_ROLE" });
  await assert.rejects(memory.add({ role: "user", content: "x", note: "lone \ud800" }), { code: "LONE_SURROGATE" });
  // A refusal is a whole reply.
  await memory.add({ role: "user", content: "how do I pick a lock?" });
  await memory.add({ role: "assistant", content: null, refusal: "I can't help with that.", annotations: [] });
  const ctx = await memory.buildContext({ maxTokens: 500 });
  assert.deepEqual(ctx.messages.at(-1), { role: "assistant", content: null, refusal: "I can't help with that." });
});

test("recordUsage takes the usage of every client as is", async () => {
  const memory = await MemoryController.create({ model: "gpt-4o" });
  const cases = [
    // openai chat: 1000 fresh × 2.50 + 1024 cached × 1.25 + 300 out × 10, per 1M
    [
      {
        prompt_tokens: 2024,
        completion_tokens: 300,
        total_tokens: 2324,
        prompt_tokens_details: { cached_tokens: 1024, audio_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 100, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
      },
      undefined,
      (1000 * 2.5 + 1024 * 1.25 + 300 * 10) / 1e6,
    ],
    // a whole chat.completions response: usage inside, model beside it
    [
      {
        id: "chatcmpl-1",
        object: "chat.completion",
        model: "gpt-4o-mini-2024-07-18",
        usage: { prompt_tokens: 1000, completion_tokens: 100 },
      },
      undefined,
      (1000 * 0.15 + 100 * 0.6) / 1e6,
    ],
    // DeepSeek
    [
      { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120, prompt_cache_hit_tokens: 64, prompt_cache_miss_tokens: 36 },
      { model: "deepseek-chat" },
      (36 * 0.14 + 64 * 0.0028 + 20 * 0.28) / 1e6,
    ],
    // the AI SDK (v7 nested details)
    [
      {
        inputTokens: 1000,
        inputTokenDetails: { noCacheTokens: 600, cacheReadTokens: 400, cacheWriteTokens: undefined },
        outputTokens: 50,
        outputTokenDetails: { textTokens: 30, reasoningTokens: 20 },
        totalTokens: 1050,
      },
      undefined,
      (600 * 2.5 + 400 * 1.25 + 50 * 10) / 1e6,
    ],
    // the older flat AI SDK shape
    [{ inputTokens: 10, outputTokens: 5, totalTokens: 15, cachedInputTokens: 4 }, undefined, (6 * 2.5 + 4 * 1.25 + 5 * 10) / 1e6],
    // Anthropic: input_tokens excludes cache reads and writes; writes cost 1.25x
    [
      { input_tokens: 20, cache_read_input_tokens: 1000, cache_creation_input_tokens: 300, output_tokens: 80 },
      { model: "claude-sonnet-4-5-20250929" },
      (20 * 3 + 1000 * 0.3 + 300 * 3.75 + 80 * 15) / 1e6,
    ],
    // OpenAI Responses
    [
      {
        input_tokens: 500,
        input_tokens_details: { cached_tokens: 400 },
        output_tokens: 60,
        output_tokens_details: { reasoning_tokens: 40 },
        total_tokens: 560,
      },
      undefined,
      (100 * 2.5 + 400 * 1.25 + 60 * 10) / 1e6,
    ],
  ];
  let total = 0;
  for (const [usage, options, usd] of cases) {
    const got = await memory.recordUsage(usage, options);
    assert.ok(Math.abs(got - usd) < 1e-12, `${JSON.stringify(usage)}: ${got} vs ${usd}`);
    total += usd;
  }
  const cost = memory.stats().cost;
  assert.ok(Math.abs(cost.usd - total) < 1e-12);
  assert.equal(cost.byModel.find((m) => m.model === "gpt-4o").reasoningTokens, 100 + 20 + 40);
  for (const [bad, field] of [
    [{ prompt_tokens: -1, completion_tokens: 1 }, "prompt_tokens"],
    [{ prompt_tokens: 10 }, "completion_tokens"],
    [{ inputTokens: 3 }, "outputTokens"],
    [{ tokens: 3 }, "no token counts"],
    [{ prompt_tokens: 1.5, completion_tokens: 0 }, "prompt_tokens"],
  ]) {
    await assert.rejects(memory.recordUsage(bad), (e) => e.code === "INVALID_INPUT" && e.message.includes(field), JSON.stringify(bad));
  }
  assert.equal(
    memory.stats().cost.byModel.reduce((n, m) => n + m.calls, 0),
    cases.length,
    "a rejected usage charges nothing",
  );
});

test("model ids as people write them; an unknown id is estimated, never an error", async () => {
  for (const [id, encoding] of [
    ["openai/gpt-4o", "o200k_base"],
    ["gpt-4o-2024-08-06", "o200k_base"],
    ["OpenAI/GPT-4.1-mini", "o200k_base"],
    ["openai/gpt-4-0613", "cl100k_base"],
  ]) {
    const memory = await MemoryController.create({ model: id });
    assert.equal(memory.stats().tokenizer.encoding, encoding, id);
    assert.deepEqual(memory.stats().unknownModels, []);
  }
  for (const id of [
    "deepseek/deepseek-chat",
    "anthropic/claude-sonnet-4.5",
    "us.anthropic.claude-haiku-4-5-20251001-v1:0",
    "google/gemini-3.1-pro-preview",
  ]) {
    const memory = await MemoryController.create({ model: id });
    assert.deepEqual(memory.stats().unknownModels, [], id);
    assert.ok((await memory.recordUsage({ promptTokens: 1000, completionTokens: 10 })) > 0, id);
  }
  const workersAI = await MemoryController.create({ model: "@cf/meta/llama-3.1-8b-instruct" });
  assert.equal(workersAI.stats().tokenizer.exact, false);
  assert.ok(workersAI.countTokens("Hello, 成都!") > 0);
  assert.deepEqual(workersAI.stats().unknownModels, ["@cf/meta/llama-3.1-8b-instruct"]);
  assert.equal(await workersAI.recordUsage({ prompt_tokens: 10, completion_tokens: 2 }), null);
  assert.equal(workersAI.stats().cost.byModel[0].usd, null);
  assert.equal(workersAI.stats().cost.byModel[0].promptTokens, 10);
  assert.throws(() => workersAI.budgetAwareMaxTokens(1), { code: "UNKNOWN_MODEL" });
});
