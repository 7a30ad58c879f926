// agent-memory/openai: apps on the Responses API (`client.responses.create`,
// the real `openai` client v7) against the fake server, which enforces the
// API's input rules (reasoning items travel with the items they produced,
// store:false reasoning only with its encrypted_content, calls paired with
// outputs, no unknown fields). In each: every request valid, nothing lost,
// nothing stored twice, usage charged.
import { test } from "node:test";
import assert from "node:assert/strict";
import OpenAI from "openai";
import { MemoryController } from "agent-memory";
import { addResponse, fromResponse, promptCacheKey, toResponsesRequest, RESPONSE_FIELD } from "agent-memory/openai";
import { startFakeOpenAI } from "./fake-openai/server.mjs";

const weatherTool = {
  type: "function",
  function: {
    name: "weather",
    description: "Weather for a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};
const weather = (args) => JSON.stringify({ city: JSON.parse(args).city, temp: 21 });

async function setup(script) {
  const api = await startFakeOpenAI({ script });
  const client = new OpenAI({ baseURL: api.url, apiKey: api.apiKey, maxRetries: 0 });
  const memory = await MemoryController.create({ namespace: "user-7", model: "o4-mini", workingMemory: { maxTokens: 6000 } });
  await memory.add({ role: "system", content: "You are a travel assistant." });
  await memory.setProcedures({ tools: [weatherTool] });
  return { api, client, memory };
}

const assertAllValid = (api) =>
  assert.deepEqual(
    api.rejected().map((r) => r.error.error.message),
    [],
  );

async function historyOf(memory) {
  const history = await memory.history();
  assert.equal(new Set(history.map((h) => h.id)).size, history.length, "a message stored twice");
  return history.map((h) => h.message);
}

/** One user turn of a tool loop on the Responses API; returns the responses. */
async function turn(memory, client, question, options) {
  await memory.add({ role: "user", content: question });
  const responses = [];
  for (let step = 0; step < 4; step++) {
    const ctx = await memory.buildContext({ maxTokens: 6000, reserveOutput: 1000 });
    const request = await toResponsesRequest(memory, ctx);
    const response = await client.responses.create({ model: "o4-mini", ...request, ...options });
    await addResponse(memory, response);
    responses.push(response);
    const calls = response.output.filter((item) => item.type === "function_call");
    if (calls.length === 0) break;
    for (const call of calls) await memory.add({ role: "tool", tool_call_id: call.call_id, content: weather(call.arguments) });
  }
  return responses;
}

const types = (input) => input.map((i) => i.type ?? `${i.role} message`);

test("store:false with encrypted reasoning: the tool loop sends its reasoning back; the next turn sends plain items", async () => {
  const { api, client, memory } = await setup([
    {
      reasoning: "Need the weather first.",
      toolCalls: [{ name: "weather", arguments: { city: "成都" } }],
      usage: { input: 300, output: 80, reasoning: 64 },
    },
    { reasoning: "Got it.", content: "成都 21°C。", usage: { input: 420, output: 40, cached: 256, reasoning: 20 } },
    { reasoning: "Polite.", content: "不客气。", usage: { input: 450, output: 12, cached: 384, reasoning: 6 } },
  ]);
  try {
    const options = { store: false, include: ["reasoning.encrypted_content"], reasoning: { effort: "low", summary: "auto" } };
    const first = await turn(memory, client, "成都明天天气？", options);
    const second = await turn(memory, client, "谢谢！", options);
    assertAllValid(api);
    const [r1, r2, r3] = api.requests.map((r) => r.body);
    assert.equal(r1.instructions, "You are a travel assistant.");
    assert.deepEqual(r1.tools, [
      { type: "function", name: "weather", description: "Weather for a city", parameters: weatherTool.function.parameters, strict: false },
    ]);
    assert.deepEqual(types(r1.input), ["user message"]);
    // In the loop: the reasoning item, the call it produced (with its id), the output.
    assert.deepEqual(types(r2.input), ["user message", "reasoning", "function_call", "function_call_output"]);
    assert.deepEqual(r2.input[1], first[0].output[0]);
    assert.deepEqual(r2.input[2], first[0].output[1]);
    // The next turn: earlier reasoning is not sent, the earlier items go without ids.
    assert.deepEqual(types(r3.input), ["user message", "function_call", "function_call_output", "assistant message", "user message"]);
    assert.ok(r3.input.every((i) => i.id === undefined));
    // Nothing lost: every output item is in history as returned.
    const history = await historyOf(memory);
    assert.deepEqual(
      history.map((m) => m.role),
      ["system", "user", "assistant", "tool", "assistant", "user", "assistant"],
    );
    const kept = history.filter((m) => m[RESPONSE_FIELD]).map((m) => m[RESPONSE_FIELD].output);
    assert.deepEqual(
      kept,
      [...first, ...second].map((r) => r.output),
    );
    assert.equal(history[4].content, "成都 21°C。");
    // Usage charged at the model the responses name (a dated snapshot of o4-mini, priced as o4-mini).
    const stats = memory.stats();
    const [cost] = stats.cost.byModel;
    assert.deepEqual(
      [cost.model, cost.calls, cost.promptTokens, cost.cachedPromptTokens, cost.completionTokens],
      ["o4-mini-2025-04-16", 3, 1170, 640, 132],
    );
    assert.ok(cost.usd > 0);
    assert.deepEqual(stats.unknownModels, []);
  } finally {
    await api.close();
  }
});

test("stored responses (store default) send reasoning back by id; store:false without encrypted_content drops it and the ids it pairs with", async () => {
  const { api, client, memory } = await setup([
    { reasoning: "Think.", content: "Let me check.", toolCalls: [{ name: "weather", arguments: { city: "Lhasa" } }] },
    { content: "Lhasa: 21°C." },
    { reasoning: "Think again.", content: "Checking Xi'an.", toolCalls: [{ name: "weather", arguments: { city: "Xi'an" } }] },
    { content: "Xi'an: 21°C." },
  ]);
  try {
    await turn(memory, client, "Lhasa?", {});
    await turn(memory, client, "Xi'an?", { store: false });
    assertAllValid(api);
    assert.deepEqual(types(api.requests[1].body.input), ["user message", "reasoning", "message", "function_call", "function_call_output"]);
    assert.ok(
      api.requests[1].body.input.slice(1, 4).every((i) => i.id),
      "stored items go back with their ids",
    );
    // store:false, no encrypted_content: the API could not resolve the reasoning item.
    const loop = api.requests[3].body.input.slice(-3);
    assert.deepEqual(loop.slice(0, 1), [{ role: "assistant", content: "Checking Xi'an." }]);
    assert.deepEqual(types(loop), ["assistant message", "function_call", "function_call_output"]);
    assert.equal(loop[1].id, undefined);
    assert.equal((await historyOf(memory)).length, 9);
  } finally {
    await api.close();
  }
});

test("streamed responses and responses.parse: the final response stored; client-side fields never sent back", async () => {
  const { api, client, memory } = await setup([
    {
      reasoning: "Plan.",
      content: "Checking.",
      toolCalls: [{ name: "weather", arguments: { city: "Chengdu" } }],
      usage: { input: 100, output: 30, reasoning: 10 },
    },
    { content: "21°C in Chengdu.", usage: { input: 160, output: 8 } },
  ]);
  try {
    await memory.add({ role: "user", content: "Chengdu?" });
    let request = await toResponsesRequest(memory, await memory.buildContext({ maxTokens: 6000 }));
    const stream = client.responses.stream({ model: "o4-mini", ...request, reasoning: { summary: "auto" } });
    const streamed = await stream.finalResponse();
    await addResponse(memory, streamed);
    const call = streamed.output.find((i) => i.type === "function_call");
    await memory.add({ role: "tool", tool_call_id: call.call_id, content: weather(call.arguments) });
    // responses.parse adds `parsed` / `parsed_arguments` on the client side; they stay out of the next request.
    const ctx = await memory.buildContext({ maxTokens: 6000 });
    request = await toResponsesRequest(memory, ctx);
    assert.ok(request.input.every((i) => !("parsed_arguments" in i)));
    const parsed = await client.responses.parse({ model: "o4-mini", ...request });
    await addResponse(memory, parsed);
    assertAllValid(api);
    assert.equal((await historyOf(memory)).at(-1).content, "21°C in Chengdu.");
    const [cost] = memory.stats().cost.byModel;
    assert.deepEqual([cost.calls, cost.promptTokens, cost.completionTokens], [2, 260, 38]);
  } finally {
    await api.close();
  }
});

test("fromResponse: text, refusal, annotations and calls in chat form, the items kept; bad input is a MemoryError", async () => {
  const { api, client, memory } = await setup([
    {
      content: "See the source.",
      annotations: [{ type: "url_citation", start_index: 0, end_index: 3, url: "https://example.com", title: "Ex" }],
    },
    { refusal: "I can't help with that." },
  ]);
  try {
    const cited = await client.responses.create({ model: "o4-mini", input: "x" });
    const refused = await client.responses.create({ model: "o4-mini", input: "y" });
    const m = fromResponse(cited);
    assert.equal(m.content, "See the source.");
    assert.equal(m.annotations[0].url, "https://example.com");
    assert.deepEqual(m[RESPONSE_FIELD], { id: cited.id, model: "o4-mini-2025-04-16", store: true, output: cited.output });
    const r = fromResponse(refused);
    assert.deepEqual([r.content, r.refusal], ["", "I can't help with that."]);
    assert.throws(
      () => fromResponse({ id: "x" }),
      (e) => e.name === "MemoryError" && e.code === "INVALID_INPUT",
    );
    const audio = {
      messages: [{ role: "user", content: [{ type: "input_audio", input_audio: { data: "UklG", format: "wav" } }] }],
      tools: [],
    };
    await assert.rejects(toResponsesRequest(memory, audio), (e) => e.name === "MemoryError" && e.code === "INVALID_CONTENT");
    await assert.rejects(toResponsesRequest(memory, {}), (e) => e.code === "INVALID_INPUT");
  } finally {
    await api.close();
  }
});

test("the request carries a prompt_cache_key: the same for a thread's calls, another for another thread, never the user's id", async (t) => {
  const { api, client, memory } = await setup([{ content: "Hi!" }, { content: "Hello again." }]);
  t.after(() => api.close());
  await turn(memory, client, "Hi");
  await turn(memory, client, "Hi again");
  const keys = api.requests.map((r) => r.body.prompt_cache_key);
  assert.equal(keys.length, 2);
  assert.match(keys[0], /^am-[0-9a-f]{16}$/);
  assert.equal(keys[1], keys[0]);
  const { namespace, thread } = memory.stats();
  assert.ok(!keys[0].includes(namespace) && !keys[0].includes(thread));
  const other = await MemoryController.create({ model: "o4-mini", namespace, thread: "another" });
  assert.notEqual(promptCacheKey(other), keys[0]);
  assert.equal(promptCacheKey(memory), keys[0]);
});
