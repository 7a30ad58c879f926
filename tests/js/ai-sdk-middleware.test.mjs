// memoryMiddleware with the real ai 7 and @ai-sdk/openai 4 (and ai 6 with
// @ai-sdk/openai 3) against the fake OpenAI API (tests/js/fake-openai), on
// the chat-completions and the Responses providers: generateText,
// streamText, two-step tool loops, aborted and failed streams, the budget,
// procedures' tools, memory failures. In each: every request valid, nothing
// lost, nothing stored twice, usage charged.
// Node-dependent: js/integrations/ai-sdk/ai-sdk-stream.js on Node's web streams (TransformStream), over Node's fetch.
import { test } from "node:test";
import assert from "node:assert/strict";
import { generateText, streamText, tool, isStepCount, wrapLanguageModel } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import {
  generateText as generateText6,
  streamText as streamText6,
  wrapLanguageModel as wrap6,
  tool as tool6,
  stepCountIs as stepCountIs6,
  jsonSchema as jsonSchema6,
} from "ai6";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAI as createOpenAI3 } from "ai-sdk-openai3";
import { z } from "zod";
import { MemoryController, memoryStorage } from "../../dist/node.js";
import { memoryMiddleware } from "../../dist/integrations/ai-sdk/ai-sdk.js";
import { startFakeOpenAI } from "./fake-openai/server.mjs";
import { assertSound, conversation, sentTurns, setup } from "./ai-sdk-support.mjs";

const user = (content) => ({ role: "user", content });
const assistant = (content) => ({ role: "assistant", content });
const INSTRUCTIONS = "You are a weather assistant. Answer briefly.";

// The weather tool and the two-step script: both cities at once, then the answer built from the results the request carried.
const weather = tool({
  description: "Weather in a city",
  inputSchema: z.object({ city: z.string() }),
  execute: async ({ city }) => ({ city, sky: city === "Paris" ? "sunny" : "rain" }),
});
const twoCities = {
  toolCalls: [
    { id: "call_p", name: "weather", arguments: { city: "Paris" } },
    { id: "call_t", name: "weather", arguments: { city: "Tokyo" } },
  ],
};
const fromResults = ({ body }) => {
  const results = body.messages
    ? body.messages.filter((m) => m.role === "tool").map((m) => JSON.parse(m.content))
    : body.input.filter((i) => i.type === "function_call_output").map((i) => JSON.parse(i.output));
  return results.map((r) => `${r.city}: ${r.sky}.`).join(" ");
};
const toolTurn = [
  {
    role: "assistant",
    content: null,
    tool_calls: [
      { id: "call_p", type: "function", function: { name: "weather", arguments: '{"city":"Paris"}' } },
      { id: "call_t", type: "function", function: { name: "weather", arguments: '{"city":"Tokyo"}' } },
    ],
  },
  { role: "tool", tool_call_id: "call_p", content: '{"city":"Paris","sky":"sunny"}' },
  { role: "tool", tool_call_id: "call_t", content: '{"city":"Tokyo","sky":"rain"}' },
  assistant("Paris: sunny. Tokyo: rain."),
];

for (const provider of ["chat", "responses"]) {
  test(`${provider}: generateText, only the new turn each call; memory supplies the rest`, async (t) => {
    const s = await setup(t, { provider, script: ["Hello! How can I help?", "It is sunny in Paris."] });
    const r1 = await generateText({ model: s.model, instructions: INSTRUCTIONS, messages: [user("Hi")] });
    assert.equal(r1.text, "Hello! How can I help?");
    const r2 = await generateText({ model: s.model, instructions: INSTRUCTIONS, prompt: "Weather in Paris?" });
    assert.equal(r2.text, "It is sunny in Paris.");
    const held = await assertSound(s, {
      requests: 2,
      stored: [user("Hi"), assistant("Hello! How can I help?"), user("Weather in Paris?"), assistant("It is sunny in Paris.")],
    });
    // The second request carried the first turn, from memory, after the instructions.
    assert.deepEqual(sentTurns(s.api, 1), [["system", INSTRUCTIONS], ...held.slice(0, 3).map((m) => [m.role, m.content])]);
    assert.deepEqual(r2.providerMetadata.agentMemory, s.reports[1]);
    assert.equal(s.reports[1].status, "finished");
    assert.equal(s.reports[1].prompt.length, 1);
    assert.equal(s.reports[1].response.length, 1);
    assert.ok(s.reports[1].usd > 0);
  });

  test(`${provider}: streamText stores the answer when the stream finishes, before its finish part`, async (t) => {
    const s = await setup(t, {
      provider,
      script: ["Hello there, traveller!", { content: "Rain in Tokyo.", usage: { input: 120, cached: 64, output: 9 } }],
    });
    const a = streamText({ model: s.model, instructions: INSTRUCTIONS, prompt: "Hi" });
    assert.equal(await a.text, "Hello there, traveller!");
    const b = streamText({ model: s.model, instructions: INSTRUCTIONS, messages: [user("Tokyo?")] });
    let finish;
    for await (const part of b.fullStream) if (part.type === "finish-step") finish = part;
    assert.equal(finish.providerMetadata.agentMemory.status, "finished");
    assert.deepEqual(finish.providerMetadata.agentMemory.response, s.reports[1].response);
    await assertSound(s, {
      requests: 2,
      stored: [user("Hi"), assistant("Hello there, traveller!"), user("Tokyo?"), assistant("Rain in Tokyo.")],
    });
    const gpt4o = s.memory.stats().cost.byModel.find((m) => m.model === "gpt-4o");
    assert.equal(gpt4o.cachedPromptTokens, 64, "cache reads reach the ledger");
    if (provider === "chat") assert.equal(s.api.requests[1].body.stream_options.include_usage, true);
  });

  for (const mode of ["generateText", "streamText"]) {
    test(`${provider}: a two-step tool loop (${mode}, stopWhen): the call, both results and the answer, each once`, async (t) => {
      const s = await setup(t, { provider, script: [twoCities, fromResults] });
      const options = {
        model: s.model,
        instructions: INSTRUCTIONS,
        prompt: "Weather in Paris and Tokyo?",
        tools: { weather },
        stopWhen: isStepCount(3),
      };
      const text = mode === "generateText" ? (await generateText(options)).text : await streamText(options).text;
      assert.equal(text, "Paris: sunny. Tokyo: rain.");
      await assertSound(s, { requests: 2, stored: [user("Weather in Paris and Tokyo?"), ...toolTurn] });
      assert.deepEqual(
        s.reports.map((r) => [r.prompt.length, r.response.length]),
        [
          [1, 1],
          [2, 1],
        ],
        "step 2 stored the two results it carried",
      );
    });
  }

  test(`${provider}: an aborted stream keeps the text it streamed, once, and charges nothing`, async (t) => {
    const s = await setup(t, {
      provider,
      script: [
        { content: "Let me think about the weather in Paris for you today.", stream: { stallAfter: provider === "chat" ? 5 : 8 } },
        "Sunny.",
      ],
    });
    const abort = new AbortController();
    let seen = "";
    const stream = streamText({ model: s.model, prompt: "Paris?", abortSignal: abort.signal, onError: () => {} });
    for await (const part of stream.fullStream) {
      if (part.type === "text-delta") seen += part.text;
      if (seen.split(" ").length > 3) abort.abort();
    }
    await stream.consumeStream();
    assert.ok(seen.length > 0);
    assert.equal(s.reports[0].status, "aborted");
    assert.equal(s.reports[0].usd, undefined);
    const partial = (await conversation(s.memory))[1].content;
    assert.ok(
      partial.startsWith(seen) && "Let me think about the weather in Paris for you today.".startsWith(partial),
      JSON.stringify([partial, seen]),
    );
    // The next turn goes on from there.
    assert.equal((await generateText({ model: s.model, prompt: "And now?" })).text, "Sunny.");
    assert.deepEqual(
      sentTurns(s.api, 1),
      [
        ["user", "Paris?"],
        ["assistant", partial],
        ["user", "And now?"],
      ],
      "the partial answer is in the next context",
    );
    assert.deepEqual(s.api.rejected(), []);
    assert.deepEqual(
      (await conversation(s.memory)).map((m) => m.content),
      ["Paris?", partial, "And now?", "Sunny."],
    );
  });

  test(`${provider}: a stream whose connection drops keeps the text that came, not its unfinished tool call, and says so`, async (t) => {
    // The stream stalls after the text and the start of a tool call; then the server goes away.
    const s = await setup(t, {
      provider,
      script: [
        {
          content: "Checking the weather now.",
          toolCalls: [{ name: "weather", arguments: { city: "Paris" } }],
          stream: { stallAfter: provider === "chat" ? 7 : 13 },
        },
      ],
    });
    const stream = streamText({ model: s.model, prompt: "Paris?", tools: { weather }, onError: () => {} });
    let text = "";
    const read = async () => {
      for await (const part of stream.fullStream) {
        if (part.type === "text-delta") text += part.text;
        if (part.type === "tool-input-start") await s.api.close();
      }
    };
    await assert.rejects(read(), /Failed to process successful response/, "the provider's error reaches the app as it is");
    assert.equal(text, "Checking the weather now.");
    assert.deepEqual(
      s.reports.map((r) => [r.status, r.response.length, r.droppedToolCalls]),
      [["failed", 1, 1]],
    );
    assert.deepEqual(
      await conversation(s.memory),
      [user("Paris?"), assistant("Checking the weather now.")],
      "no call left waiting for a result",
    );
  });
}

// A reasoning model's tool loop on the Responses API: step 2 must carry the
// reasoning item with the call it produced (by reference when stored at
// OpenAI, encrypted when not). With memory the provider gets back the same
// items it would without.
for (const store of [true, false]) {
  test(`responses: a reasoning model's tool loop sends back the items it would without memory (store: ${store})`, async (t) => {
    const script = () => [
      { reasoning: "Both cities: two calls.", ...twoCities, usage: { input: 90, output: 60, reasoning: 40 } },
      fromResults,
    ];
    const options = {
      prompt: "Weather in Paris and Tokyo?",
      tools: { weather },
      stopWhen: isStepCount(3),
      providerOptions: {
        openai: { reasoningSummary: "auto", ...(store ? {} : { store: false, include: ["reasoning.encrypted_content"] }) },
      },
    };
    const plain = await startFakeOpenAI({ script: script() });
    t.after(() => plain.close());
    const bare = createOpenAI({ baseURL: plain.url, apiKey: plain.apiKey });
    assert.equal((await generateText({ model: bare.responses("o4-mini"), ...options })).text, "Paris: sunny. Tokyo: rain.");

    const s = await setup(t, { provider: "responses", modelId: "o4-mini", memory: { model: "o4-mini" }, script: script() });
    assert.equal((await generateText({ model: s.model, ...options })).text, "Paris: sunny. Tokyo: rain.");
    const items = (api) =>
      api.requests[1].body.input.map((i) => [i.type ?? i.role, i.id?.split("_")[0], i.encrypted_content !== undefined]);
    assert.deepEqual(items(s.api), items(plain));
    assert.deepEqual(
      items(s.api)
        .slice(1, 3)
        .map(([type]) => type),
      [store ? "item_reference" : "reasoning", "function_call"],
      "the reasoning item, then the call it produced",
    );
    const held = await assertSound(s, { requests: 2, stored: [user("Weather in Paris and Tokyo?"), ...toolTurn] });
    assert.equal(held[1].reasoning_content, "Both cities: two calls.");
  });
}

test("the context fits maxTokens − reserveOutput; the call's maxOutputTokens is the default reserve", async (t) => {
  const s = await setup(t, { script: ["ok", "ok"], memory: { workingMemory: { maxTokens: 100000 } }, middleware: { maxTokens: 700 } });
  for (let i = 0; i < 40; i++) {
    await s.memory.add(user(`Question ${i}: what should I pack for day ${i} of the trip to 成都?`));
    await s.memory.add(assistant(`Answer ${i}: a light jacket, an umbrella, and comfortable shoes for walking around 宽窄巷子.`));
  }
  await generateText({ model: s.model, prompt: "Last question?", maxOutputTokens: 200 });
  const body = s.api.requests[0].body;
  const tokens = s.memory.countMessages(body.messages);
  assert.ok(tokens <= 500, `${tokens} tokens sent`);
  assert.ok(tokens > 400, `${tokens}: the budget is used`);
  assert.equal(body.messages.at(-1).content, "Last question?");
  assert.equal(body.max_completion_tokens ?? body.max_tokens, 200);
  await generateText({ model: s.model, prompt: "Really the last?", maxOutputTokens: 600 });
  assert.ok(s.memory.countMessages(s.api.requests[1].body.messages) <= 100);
});

test("a model memory has no table entry for (Workers AI): estimated counts, the unknown model's output reserve, no made-up cost", async (t) => {
  const id = "@cf/meta/llama-3.1-8b-instruct";
  const s = await setup(t, { script: ["Hi from Llama."], modelId: id, memory: { model: id } });
  assert.equal((await generateText({ model: s.model, prompt: "Hi" })).text, "Hi from Llama.");
  assert.equal(s.reports[0].usd, null, "charged, at no price");
  assert.deepEqual(s.memory.stats().unknownModels, [id]);
  await assertSound(s, { requests: 1, stored: [user("Hi"), assistant("Hi from Llama.")] });
});

test("procedures: rules in the prompt, their tools beside the call's (the call's wins a name)", async (t) => {
  const s = await setup(t, { script: [{ toolCalls: [{ name: "lookup", arguments: { q: "visa" } }] }, "No visa needed."] });
  await s.memory.setProcedures({
    rules: ["Always answer in metric units."],
    tools: [
      {
        type: "function",
        function: {
          name: "lookup",
          description: "Look up a travel fact",
          parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
        },
      },
      { type: "function", function: { name: "weather", description: "stale definition", parameters: { type: "object", properties: {} } } },
    ],
  });
  const r = await generateText({ model: s.model, prompt: "Do I need a visa?", tools: { weather }, stopWhen: isStepCount(2) });
  assert.equal(r.text, "No visa needed.");
  const first = s.api.requests[0].body;
  assert.deepEqual(
    first.tools.map((t) => [t.function.name, t.function.description]),
    [
      ["weather", "Weather in a city"],
      ["lookup", "Look up a travel fact"],
    ],
  );
  assert.ok(first.messages.some((m) => m.role === "system" && m.content.includes("Always answer in metric units.")));
  // No execute for a procedure's tool: the SDK answered the call with an error result, stored like any result.
  const held = await conversation(s.memory);
  assert.match(held[2].content, /^\{"error":".*lookup/);
  await assertSound(s, { requests: 2, stored: held });
});

test("without procedureTools only the call's tools go; without tools none", async (t) => {
  const s = await setup(t, { script: ["a", "b"], middleware: { procedureTools: false } });
  await s.memory.setProcedures({
    tools: [{ type: "function", function: { name: "lookup", parameters: { type: "object", properties: {} } } }],
  });
  await generateText({ model: s.model, prompt: "x", tools: { weather } });
  await generateText({ model: s.model, prompt: "y" });
  assert.deepEqual(
    s.api.requests[0].body.tools.map((t) => t.function.name),
    ["weather"],
  );
  assert.equal(s.api.requests[1].body.tools, undefined);
});

// A storage adapter whose saves start failing on demand.
function flakyStorage() {
  const inner = memoryStorage();
  const s = { failing: false, ...inner };
  s.save = async (key, data) => {
    if (s.failing) throw new Error("disk full");
    return inner.save(key, data);
  };
  return s;
}

test("a memory failure is never swallowed: before the call nothing is sent, after it the call fails", async (t) => {
  const storage = flakyStorage();
  // Each answer turns the disk off as it is made: the turn is stored, the answer cannot be.
  const failAfter = (text) => () => ((storage.failing = true), text);
  const s = await setup(t, { script: [failAfter("never stored"), failAfter("streamed, never stored")], memory: { storage } });
  storage.failing = true;
  await assert.rejects(generateText({ model: s.model, prompt: "Hi" }), { name: "MemoryError", code: "STORAGE_ERROR" });
  assert.equal(s.api.requests.length, 0, "the turn could not be stored: the provider was not called");

  storage.failing = false;
  await assert.rejects(generateText({ model: s.model, prompt: "Hi" }), { name: "MemoryError", code: "STORAGE_ERROR" });
  assert.equal(s.api.requests.length, 1);

  storage.failing = false;
  const stream = streamText({ model: s.model, prompt: "Hi again" });
  await assert.rejects(stream.text, { name: "MemoryError", code: "STORAGE_ERROR" }, "the stream errors with memory's error");
  storage.failing = false;
  // What was stored is intact: the turns, no answer; a later call goes on from there.
  assert.deepEqual(
    (await conversation(s.memory)).map((m) => m.content),
    ["Hi", "Hi again"],
  );
});

test("ai 6 (LanguageModelV3, @ai-sdk/openai 3): generateText, streamText and a tool loop", async (t) => {
  const api = await startFakeOpenAI({ script: ["Hello!", twoCities, fromResults] });
  t.after(() => api.close());
  const openai = createOpenAI3({ baseURL: api.url, apiKey: api.apiKey });
  const memory = await MemoryController.create({ model: "gpt-4o" });
  const reports = [];
  const model = wrap6({
    model: openai.chat("gpt-4o"),
    middleware: memoryMiddleware(memory, { specificationVersion: "v3", onStored: (r) => reports.push(r) }),
  });
  const weather6 = tool6({
    inputSchema: jsonSchema6({ type: "object", properties: { city: { type: "string" } }, required: ["city"] }),
    execute: async ({ city }) => ({ city, sky: city === "Paris" ? "sunny" : "rain" }),
  });
  assert.equal((await generateText6({ model, system: INSTRUCTIONS, prompt: "Hi" })).text, "Hello!");
  assert.equal(
    await streamText6({
      model,
      system: INSTRUCTIONS,
      prompt: "Weather in Paris and Tokyo?",
      tools: { weather: weather6 },
      stopWhen: stepCountIs6(3),
    }).text,
    "Paris: sunny. Tokyo: rain.",
  );
  await assertSound(
    { api, memory, reports },
    { requests: 3, stored: [user("Hi"), assistant("Hello!"), user("Weather in Paris and Tokyo?"), ...toolTurn] },
  );
});

test("response parts a chat message cannot hold are left out, never a failed call: sources, files, custom and unknown parts", async () => {
  const memory = await MemoryController.create({ model: "gpt-4o" });
  const usage = {
    inputTokens: { total: 12, noCache: 12, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 4, text: 4, reasoning: undefined },
  };
  const content = [
    { type: "source", sourceType: "url", id: "s1", url: "https://weather.example" },
    { type: "text", text: "Sunny, " },
    { type: "file", mediaType: "image/png", data: { type: "data", data: "iVBORw0KGgo=" } },
    { type: "custom", kind: "vendor.trace" },
    { type: "hologram", frames: 3 }, // a part type of some future spec
    { type: "text", text: "21°C." },
  ];
  const model = wrapLanguageModel({
    model: new MockLanguageModelV4({
      doGenerate: async () => ({ content, finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] }),
    }),
    middleware: memoryMiddleware(memory),
  });
  assert.equal((await generateText({ model, prompt: "Weather?" })).text, "Sunny, 21°C.");
  assert.deepEqual(await conversation(memory), [user("Weather?"), assistant("Sunny, 21°C.")]);
});

test("the provider gets the stable layout: instructions and the memory note at the top, the recall block in the newest user turn, an Anthropic cache breakpoint before it", async () => {
  let now = Date.UTC(2026, 2, 1);
  const memory = await MemoryController.create({ model: "gpt-4o", workingMemory: { maxTokens: 300 }, clock: () => (now += 60_000) });
  await memory.add(user("Our backup hotel is the hostel on Jinli street."));
  for (let i = 0; i < 40; i++)
    await memory.add(i % 2 ? assistant(`Noted, day ${i}.`) : user(`Day ${i}: groceries, the gym and dinner plans.`));
  const usage = {
    inputTokens: { total: 12, noCache: 12, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 4, text: 4, reasoning: undefined },
  };
  const mock = new MockLanguageModelV4({
    doGenerate: async () => ({
      content: [{ type: "text", text: "The hostel on Jinli street." }],
      finishReason: { unified: "stop", raw: "stop" },
      usage,
      warnings: [],
    }),
  });
  const model = wrapLanguageModel({ model: mock, middleware: memoryMiddleware(memory, { maxTokens: 3000, reserveOutput: 500 }) });
  const question = "What is our backup hotel on Jinli street?";
  await generateText({ model, instructions: INSTRUCTIONS, prompt: question });
  const prompt = mock.doGenerateCalls[0].prompt;
  const firstTurn = prompt.findIndex((m) => m.role !== "system");
  assert.ok(
    prompt.slice(firstTurn).every((m) => m.role !== "system"),
    "system text only at the top",
  );
  assert.match(prompt[firstTurn - 1].content, /^\[Conversation memory\]/);
  const last = prompt.at(-1);
  assert.equal(last.role, "user");
  assert.match(
    last.content[0].text,
    /^<memory type="knowledge">[\s\S]*\n- 2026-03-01 user: Our backup hotel is the hostel on Jinli street\./,
  );
  assert.equal(last.content.at(-1).text, question);
  assert.deepEqual(prompt.at(-2).providerOptions?.anthropic?.cacheControl, { type: "ephemeral" });
  assert.equal(prompt.filter((m) => m.providerOptions?.anthropic?.cacheControl).length, 1);
});

test("options are checked", async (t) => {
  const memory = await MemoryController.create({ model: "gpt-4o" });
  const bad = (options, pattern) =>
    assert.throws(
      () => memoryMiddleware(memory, options),
      (e) => e.name === "MemoryError" && e.code === "INVALID_INPUT" && pattern.test(e.message),
    );
  bad({ maxToken: 5 }, /unknown option "maxToken"/);
  bad({ conversation: "whole" }, /conversation/);
  bad({ specificationVersion: "v2" }, /specificationVersion/);
  bad({ reserveOutput: -1 }, /reserveOutput/);
  bad({ onStored: "yes" }, /onStored/);
  assert.throws(() => memoryMiddleware({}), { code: "INVALID_INPUT" });
});
