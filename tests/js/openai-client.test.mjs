// The package as an app on the real `openai` client (v7) uses it, against the
// fake OpenAI/DeepSeek server (tests/js/fake-openai/): replies stored as the
// client returns them, contexts the API accepts, usage charged as reported.
// In each: every request valid, nothing lost, nothing stored twice.
import { test } from "node:test";
import assert from "node:assert/strict";
import OpenAI from "openai";
import { MemoryController } from "../../dist/node.js";
import { startFakeOpenAI } from "./fake-openai/server.mjs";

const weatherTool = {
  type: "function",
  function: {
    name: "weather",
    description: "Weather for a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};
const weather = (args) => JSON.stringify({ city: JSON.parse(args).city, temp: 21, sky: "多云" });

async function setup(options, model) {
  const api = await startFakeOpenAI(options);
  const client = new OpenAI({ baseURL: api.url, apiKey: api.apiKey, maxRetries: 0 });
  const memory = await MemoryController.create({ namespace: "user-42", model, workingMemory: { maxTokens: 4000 } });
  return { api, client, memory };
}

/** No request was rejected (the error texts say which rule, if one was). */
const assertAllValid = (api) =>
  assert.deepEqual(
    api.rejected().map((r) => r.error.error.message),
    [],
  );

/** The stored messages, and that no message was stored twice. */
async function stored(memory) {
  const history = await memory.history();
  assert.equal(new Set(history.map((h) => h.id)).size, history.length);
  return history.map((h) => h.message);
}

/** What the chat request accepts of a reply message (the fields the API returns and takes back). */
const sendable = ({ role, content, tool_calls }) => (tool_calls ? { role, content, tool_calls } : { role, content });

test("quick start: replies stored as the client returns them, sent back as the API accepts, usage charged", async () => {
  const { api, client, memory } = await setup(
    {
      script: [
        { content: "第一天：宽窄巷子。", usage: { input: 40, output: 12 } },
        { content: "第二天：大熊猫基地。", usage: { input: 70, output: 14, cached: 32 } },
      ],
    },
    "gpt-4o",
  );
  try {
    await memory.add({ role: "system", content: "You are a helpful assistant." });
    const replies = [];
    for (const question of ["帮我规划一下去成都的行程", "第二天呢？"]) {
      await memory.add({ role: "user", content: question });
      const ctx = await memory.buildContext({ maxTokens: 8000, reserveOutput: 1000, query: question });
      const reply = await client.chat.completions.create({ model: "gpt-4o", messages: ctx.messages, max_tokens: 1000 });
      assert.deepEqual(api.requests.at(-1).body.messages, ctx.messages);
      assert.equal(ctx.tokens, memory.countMessages(ctx.messages));
      await memory.add(reply.choices[0].message);
      await memory.recordUsage(reply.usage);
      replies.push(reply.choices[0].message);
    }
    assertAllValid(api);
    // The first reply went back without the fields only a response carries.
    const sentBack = api.requests[1].body.messages.filter((m) => m.role === "assistant");
    assert.deepEqual(sentBack, [sendable(replies[0])]);
    // history() gives every message back as it was given, extra fields included.
    assert.deepEqual(await stored(memory), [
      { role: "system", content: "You are a helpful assistant." },
      { role: "user", content: "帮我规划一下去成都的行程" },
      replies[0],
      { role: "user", content: "第二天呢？" },
      replies[1],
    ]);
    assert.deepEqual(replies[0], { role: "assistant", content: "第一天：宽窄巷子。", refusal: null, annotations: [], audio: null });
    const [gpt4o] = memory.stats().cost.byModel;
    assert.deepEqual(
      [gpt4o.model, gpt4o.calls, gpt4o.promptTokens, gpt4o.cachedPromptTokens, gpt4o.completionTokens],
      ["gpt-4o", 2, 110, 32, 26],
    );
    assert.ok(gpt4o.usd > 0);
  } finally {
    await api.close();
  }
});

test("two-step tool loop: parallel calls, their results, the final answer; each request valid", async () => {
  const { api, client, memory } = await setup(
    {
      script: [
        {
          toolCalls: [
            { name: "weather", arguments: { city: "成都" } },
            { name: "weather", arguments: { city: "重庆" } },
          ],
          usage: { input: 90, output: 30 },
        },
        ({ body }) => {
          // The model answers from the tool results it was sent.
          const results = body.messages.filter((m) => m.role === "tool").map((m) => JSON.parse(m.content).city);
          return { content: `${results.join("、")}：21°C 多云。`, usage: { input: 160, output: 20 } };
        },
      ],
    },
    "gpt-4o",
  );
  try {
    await memory.setProcedures({ tools: [weatherTool] });
    await memory.add({ role: "user", content: "明天成都和重庆的天气怎么样？" });
    let reply;
    for (let step = 0; step < 4; step++) {
      const ctx = await memory.buildContext({ maxTokens: 8000, reserveOutput: 500 });
      reply = await client.chat.completions.create({ model: "gpt-4o", messages: ctx.messages, tools: ctx.tools });
      const message = reply.choices[0].message;
      await memory.add(message);
      await memory.recordUsage(reply.usage);
      if (!message.tool_calls) break;
      for (const call of message.tool_calls)
        await memory.add({ role: "tool", tool_call_id: call.id, content: weather(call.function.arguments) });
    }
    assertAllValid(api);
    assert.equal(api.requests.length, 2);
    assert.equal(reply.choices[0].message.content, "成都、重庆：21°C 多云。");
    assert.deepEqual(api.requests[1].body.tools, [weatherTool]);
    const roles = (await stored(memory)).map((m) => m.role);
    assert.deepEqual(roles, ["user", "assistant", "tool", "tool", "assistant"]);
    const [callMessage] = api.requests[1].body.messages.filter((m) => m.tool_calls);
    assert.deepEqual(callMessage, sendable(api.requests[0].response.choices[0].message));
    const [cost] = memory.stats().cost.byModel;
    assert.deepEqual([cost.calls, cost.promptTokens, cost.completionTokens], [2, 250, 50]);
  } finally {
    await api.close();
  }
});

test("streaming: deltas joined, the usage chunk charged; the client's stream helper's message stored and sent back", async () => {
  const { api, client, memory } = await setup(
    {
      script: [
        { content: "Hello from a stream.", usage: { input: 30, output: 6 } },
        { toolCalls: [{ name: "weather", arguments: { city: "Chengdu" } }], content: "Checking.", usage: { input: 50, output: 9 } },
        { content: "21°C.", usage: { input: 80, output: 3 } },
      ],
    },
    "gpt-4o-mini",
  );
  try {
    await memory.add({ role: "user", content: "Say hello." });
    let ctx = await memory.buildContext({ maxTokens: 4000 });
    const stream = await client.chat.completions.create({
      model: "gpt-4o-mini",
      messages: ctx.messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    let content = "";
    let usage;
    for await (const chunk of stream) {
      content += chunk.choices[0]?.delta?.content ?? "";
      if (chunk.usage) usage = chunk.usage;
    }
    await memory.add({ role: "assistant", content });
    await memory.recordUsage(usage);

    // The client's accumulator returns a message with its own extra field (`parsed`).
    await memory.add({ role: "user", content: "Weather in Chengdu?" });
    ctx = await memory.buildContext({ maxTokens: 4000, tools: [weatherTool] });
    const runner = client.chat.completions.stream({
      model: "gpt-4o-mini",
      messages: ctx.messages,
      tools: ctx.tools,
      stream_options: { include_usage: true },
    });
    const final = await runner.finalChatCompletion();
    const message = final.choices[0].message;
    assert.equal(message.parsed, null);
    await memory.add(message);
    await memory.recordUsage(final.usage);
    await memory.add({ role: "tool", tool_call_id: message.tool_calls[0].id, content: weather(message.tool_calls[0].function.arguments) });
    ctx = await memory.buildContext({ maxTokens: 4000, tools: [weatherTool] });
    const last = await client.chat.completions.create({ model: "gpt-4o-mini", messages: ctx.messages, tools: ctx.tools });
    await memory.add(last.choices[0].message);
    await memory.recordUsage(last.usage);

    assertAllValid(api);
    const history = await stored(memory);
    assert.equal(history[1].content, "Hello from a stream.");
    assert.deepEqual(history[3], message);
    assert.deepEqual(
      api.requests[2].body.messages.find((m) => m.tool_calls),
      sendable(message),
    );
    const [cost] = memory.stats().cost.byModel;
    assert.deepEqual([cost.model, cost.calls, cost.promptTokens, cost.completionTokens], ["gpt-4o-mini", 3, 160, 18]);
  } finally {
    await api.close();
  }
});

test("DeepSeek reasoner: reasoning_content kept, sent back for the tool-call turn as DeepSeek requires, not elsewhere", async () => {
  const { api, client, memory } = await setup(
    {
      flavour: "deepseek",
      script: [
        {
          reasoning: "需要先查成都的天气。",
          toolCalls: [{ name: "weather", arguments: { city: "成都" } }],
          usage: { input: 120, output: 40, cached: 64, reasoning: 25 },
        },
        { reasoning: "结果是多云。", content: "成都明天 21°C，多云。", usage: { input: 200, output: 30, cached: 128, reasoning: 10 } },
        { reasoning: "用户道谢。", content: "不客气！", usage: { input: 240, output: 12, reasoning: 6 } },
        { reasoning: "再见。", content: "再见！", usage: { input: 260, output: 5, reasoning: 2 } },
      ],
    },
    "deepseek-reasoner",
  );
  try {
    await memory.setProcedures({ tools: [weatherTool] });
    const ask = async () => {
      const ctx = await memory.buildContext({ maxTokens: 8000, reserveOutput: 1000 });
      assert.equal(ctx.tokens, memory.countMessages(ctx.messages, ctx.tools));
      const reply = await client.chat.completions.create({ model: "deepseek-reasoner", messages: ctx.messages, tools: ctx.tools });
      await memory.add(reply.choices[0].message);
      await memory.recordUsage(reply.usage);
      return reply.choices[0].message;
    };
    await memory.add({ role: "user", content: "成都明天天气如何？" });
    const call = await ask();
    assert.equal(call.reasoning_content, "需要先查成都的天气。");
    await memory.add({ role: "tool", tool_call_id: call.tool_calls[0].id, content: weather(call.tool_calls[0].function.arguments) });
    await ask();
    await memory.add({ role: "user", content: "谢谢！" });
    await ask();
    await memory.add({ role: "user", content: "再见" });
    await ask();
    assertAllValid(api);
    // Every later request carried the tool-call turn's reasoning back, and
    // no request carried the reasoning of a turn without tool calls.
    const reasoningSent = api.requests.map((r) =>
      r.body.messages.filter((m) => m.role === "assistant").map((m) => m.reasoning_content ?? null),
    );
    assert.deepEqual(reasoningSent, [
      [],
      ["需要先查成都的天气。"],
      ["需要先查成都的天气。", "结果是多云。"],
      ["需要先查成都的天气。", "结果是多云。", null],
    ]);
    const history = await stored(memory);
    assert.deepEqual(
      history.filter((m) => m.role === "assistant").map((m) => m.reasoning_content),
      ["需要先查成都的天气。", "结果是多云。", "用户道谢。", "再见。"],
    );
    const [cost] = memory.stats().cost.byModel;
    assert.deepEqual(
      [cost.model, cost.calls, cost.promptTokens, cost.cachedPromptTokens, cost.completionTokens],
      ["deepseek-reasoner", 4, 820, 192, 87],
    );
  } finally {
    await api.close();
  }
});

test("recordUsage(reply.usage): cached tokens at the cached price, reasoning tokens as output, model from the option", async () => {
  const { api, client, memory } = await setup(
    {
      script: [
        { content: "a", usage: { input: 1000, output: 200, reasoning: 150 } },
        { content: "b", usage: { input: 1000, output: 200, reasoning: 150, cached: 800 } },
      ],
    },
    "gpt-4o",
  );
  try {
    const ask = () => client.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "x" }] });
    const fresh = await memory.recordUsage((await ask()).usage, { model: "gpt-4o-mini" });
    const cached = await memory.recordUsage((await ask()).usage, { model: "gpt-4o-mini" });
    assert.ok(fresh > 0 && cached > 0 && cached < fresh, `${cached} < ${fresh}`);
    const stats = memory.stats().cost;
    assert.deepEqual(
      stats.byModel.map((m) => [m.model, m.calls, m.promptTokens, m.cachedPromptTokens, m.completionTokens]),
      [["gpt-4o-mini", 2, 2000, 800, 400]],
    );
    assert.ok(Math.abs(stats.usd - (fresh + cached)) < 1e-12);
    assertAllValid(api);
  } finally {
    await api.close();
  }
});
