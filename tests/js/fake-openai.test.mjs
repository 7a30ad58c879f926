// The fake OpenAI/DeepSeek server (tests/js/fake-openai/) checked through
// the real `openai` client: its answers carry every field the real APIs
// send and parse as the client expects, and it rejects what the real APIs
// reject. The tests of the package lean on both; these keep the server honest.
import { test } from "node:test";
import assert from "node:assert/strict";
import OpenAI from "openai";
import { startFakeOpenAI } from "./fake-openai/server.mjs";

async function withServer(options, fn) {
  const api = await startFakeOpenAI(options);
  try {
    await fn(api, new OpenAI({ baseURL: api.url, apiKey: api.apiKey, maxRetries: 0 }));
  } finally {
    await api.close();
  }
}

const user = (content) => ({ role: "user", content });
const call = (id, name = "weather", args = "{}") => ({ id, type: "function", function: { name, arguments: args } });

/** Sends `messages` and expects the server's 400 with `pattern` in its message. */
async function rejects(client, body, pattern) {
  await assert.rejects(client.chat.completions.create({ model: "gpt-4o", ...body }), (e) => {
    assert.equal(e.status, 400);
    assert.match(e.error.message, pattern);
    return true;
  });
}

test("chat answer (openai): every field the API sends, dated model, usage details", () =>
  withServer({ script: [{ content: "你好", usage: { input: 120, output: 9, cached: 64 } }] }, async (api, client) => {
    const reply = await client.chat.completions.create({ model: "gpt-4o", messages: [user("hi")] });
    assert.deepEqual(Object.keys(reply).sort(), [
      "choices",
      "created",
      "id",
      "model",
      "object",
      "service_tier",
      "system_fingerprint",
      "usage",
    ]);
    assert.equal(reply.object, "chat.completion");
    assert.equal(reply.model, "gpt-4o-2024-08-06");
    assert.deepEqual(reply.choices[0], {
      index: 0,
      message: { role: "assistant", content: "你好", refusal: null, annotations: [], audio: null },
      logprobs: null,
      finish_reason: "stop",
    });
    assert.deepEqual(reply.usage, {
      prompt_tokens: 120,
      completion_tokens: 9,
      total_tokens: 129,
      prompt_tokens_details: { cached_tokens: 64, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
    });
    assert.deepEqual(api.requests[0].body.messages, [user("hi")]);
    assert.equal(api.requests[0].status, 200);
  }));

test("chat answer (deepseek reasoner): reasoning_content, indexed tool calls, cache hit/miss counters", () =>
  withServer(
    {
      flavour: "deepseek",
      script: [
        {
          reasoning: "先查天气。",
          toolCalls: [{ name: "weather", arguments: { city: "成都" } }],
          usage: { input: 300, cached: 256, output: 40, reasoning: 12 },
        },
      ],
    },
    async (api, client) => {
      const reply = await client.chat.completions.create({
        model: "deepseek-reasoner",
        messages: [user("成都天气？")],
        tools: [{ type: "function", function: { name: "weather", parameters: { type: "object" } } }],
      });
      assert.match(reply.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4/);
      const m = reply.choices[0].message;
      assert.equal(m.reasoning_content, "先查天气。");
      assert.equal(m.content, null);
      assert.equal(m.tool_calls[0].index, 0);
      assert.equal(m.tool_calls[0].function.arguments, '{"city":"成都"}');
      assert.equal("refusal" in m, false, "DeepSeek sends no refusal");
      assert.equal(reply.choices[0].finish_reason, "tool_calls");
      assert.deepEqual(reply.usage, {
        prompt_tokens: 300,
        completion_tokens: 40,
        total_tokens: 340,
        prompt_tokens_details: { cached_tokens: 256 },
        completion_tokens_details: { reasoning_tokens: 12 },
        prompt_cache_hit_tokens: 256,
        prompt_cache_miss_tokens: 44,
      });
    },
  ));

test("chat rejects what the API rejects: roles, orphan and unanswered tool results, response-only fields", () =>
  withServer({ script: [] }, async (api, client) => {
    await rejects(client, { messages: [{ role: "robot", content: "x" }] }, /Invalid value: 'robot'/);
    await rejects(
      client,
      { messages: [user("a"), { role: "tool", tool_call_id: "call_1", content: "x" }] },
      /must be a response to a preceeding message with 'tool_calls'/,
    );
    await rejects(
      client,
      {
        messages: [
          user("a"),
          { role: "assistant", content: null, tool_calls: [call("call_1")] },
          { role: "tool", tool_call_id: "call_2", content: "x" },
        ],
      },
      /'call_2' not found/,
    );
    await rejects(
      client,
      {
        messages: [
          user("a"),
          { role: "assistant", content: null, tool_calls: [call("call_1"), call("call_2")] },
          { role: "tool", tool_call_id: "call_1", content: "x" },
          user("b"),
        ],
      },
      /did not have response messages: call_2/,
    );
    await rejects(
      client,
      { messages: [user("a"), { role: "assistant", content: null, tool_calls: [call("call_1")] }] },
      /did not have response messages: call_1/,
    );
    for (const field of [
      { annotations: [] },
      { logprobs: null },
      { reasoning: "x" },
      { reasoning_details: [] },
      { reasoning_content: "x" },
    ]) {
      await rejects(
        client,
        { messages: [user("a"), { role: "assistant", content: "b", ...field }, user("c")] },
        new RegExp(`'${Object.keys(field)[0]}' was unexpected`),
      );
    }
    await rejects(
      client,
      {
        messages: [user("a"), { role: "assistant", content: "b", audio: { id: "audio_1", data: "UklG", expires_at: 1, transcript: "b" } }],
      },
      /'data', 'expires_at', 'transcript' were unexpected/,
    );
    await rejects(client, { messages: [user("a"), { role: "assistant", content: null }] }, /expected a string, got null/);
    await rejects(
      client,
      { messages: [{ role: "system", content: [{ type: "image_url", image_url: { url: "x" } }] }] },
      /Invalid value: 'image_url'/,
    );
    await rejects(client, { messages: [user("a")], stream_options: { include_usage: true } }, /only allowed when 'stream' is enabled/);
    await rejects(client, { messages: [user("a")], frobnicate: 1 }, /Unrecognized request argument supplied: frobnicate/);
    assert.equal(api.rejected().length, api.requests.length);
    // What the API takes: refusal null, audio as { id }, a whole tool group.
    api.push("ok");
    await client.chat.completions.create({
      model: "gpt-4o",
      messages: [
        user("a"),
        { role: "assistant", content: "b", refusal: null, audio: { id: "audio_1" } },
        { role: "assistant", content: null, tool_calls: [call("call_1")] },
        { role: "tool", tool_call_id: "call_1", content: "r" },
      ],
    });
    assert.equal(api.requests.at(-1).status, 200);
  }));

test("deepseek thinking mode: reasoning_content required in a stretch with tool calls, ignored elsewhere", () =>
  withServer({ flavour: "deepseek", script: ["a", "b", "c"] }, async (api, client) => {
    const toolTurn = (withReasoning) => [
      user("q"),
      { role: "assistant", content: null, tool_calls: [call("call_1")], ...(withReasoning ? { reasoning_content: "r" } : {}) },
      { role: "tool", tool_call_id: "call_1", content: "x" },
    ];
    await assert.rejects(
      client.chat.completions.create({ model: "deepseek-reasoner", messages: toolTurn(false) }),
      /Missing `reasoning_content` field in the assistant message at message index 1/,
    );
    // Later turns too: the stretch before the next user message still needs it.
    await assert.rejects(
      client.chat.completions.create({
        model: "deepseek-reasoner",
        messages: [...toolTurn(false), { role: "assistant", content: "done", reasoning_content: "r" }, user("next")],
      }),
      /message index 1/,
    );
    await client.chat.completions.create({ model: "deepseek-reasoner", messages: toolTurn(true) });
    // No tool call in the stretch: reasoning_content may be sent or not.
    await client.chat.completions.create({
      model: "deepseek-reasoner",
      messages: [
        user("a"),
        { role: "assistant", content: "b", reasoning_content: "r" },
        user("c"),
        { role: "assistant", content: "d" },
        user("e"),
      ],
    });
    // deepseek-chat is not in thinking mode.
    await client.chat.completions.create({ model: "deepseek-chat", messages: toolTurn(false) });
    assert.deepEqual(
      api.requests.map((r) => r.status),
      [400, 400, 200, 200, 200],
    );
  }));

test("chat stream: role chunk, deltas, tool-call deltas, usage chunk with empty choices, [DONE]", () =>
  withServer(
    {
      script: [
        { content: "one two three", usage: { input: 50, output: 7 } },
        { toolCalls: [{ name: "weather", arguments: { city: "Chengdu", days: 3 } }, { name: "time" }] },
      ],
    },
    async (api, client) => {
      const stream = await client.chat.completions.create({
        model: "gpt-4o",
        messages: [user("a")],
        stream: true,
        stream_options: { include_usage: true },
      });
      const chunks = [];
      for await (const c of stream) chunks.push(c);
      assert.deepEqual(chunks[0].choices[0].delta, { role: "assistant", content: "", refusal: null });
      assert.equal(chunks.map((c) => c.choices[0]?.delta.content ?? "").join(""), "one two three");
      assert.ok(chunks.slice(0, -1).every((c) => c.usage === null && c.obfuscation));
      const last = chunks.at(-1);
      assert.deepEqual(last.choices, []);
      assert.equal(last.usage.total_tokens, 57);
      assert.equal(chunks.at(-2).choices[0].finish_reason, "stop");
      // The client's own accumulator puts the tool-call deltas back together.
      const runner = client.chat.completions.stream({ model: "gpt-4o", messages: [user("b")], stream: true });
      const final = await runner.finalChatCompletion();
      assert.deepEqual(
        final.choices[0].message.tool_calls.map((c) => [c.function.name, c.function.arguments]),
        [
          ["weather", '{"city":"Chengdu","days":3}'],
          ["time", "{}"],
        ],
      );
      assert.equal(final.choices[0].finish_reason, "tool_calls");
      assert.equal(api.requests[1].events.at(-1).choices[0].finish_reason, "tool_calls");
      assert.equal(api.remaining, 0);
    },
  ));

test("a stalled stream is aborted by the client and recorded as closed; a failed one errors", () =>
  withServer(
    {
      script: [
        { content: "one two three four", stream: { stallAfter: 2 } },
        { content: "one two", stream: { failAfter: 1 } },
      ],
    },
    async (api, client) => {
      const ac = new AbortController();
      const stream = await client.chat.completions.create({ model: "gpt-4o", messages: [user("a")], stream: true }, { signal: ac.signal });
      const seen = [];
      // The openai client ends the iteration quietly when its signal aborts.
      for await (const c of stream) {
        seen.push(c);
        if (seen.length === 2) ac.abort();
      }
      assert.equal(seen.length, 2);
      await assert.rejects(async () => {
        for await (const c of await client.chat.completions.create({ model: "gpt-4o", messages: [user("b")], stream: true })) void c;
      });
      await new Promise((r) => setImmediate(r));
      assert.equal(api.requests[0].closed, true);
      assert.equal(api.requests[0].events.length, 2);
      assert.equal(api.requests[1].events.length, 1);
    },
  ));

test("no API key: 401; the script running out: a loud 400; scripted HTTP errors", () =>
  withServer(
    { script: [{ status: 429, error: { message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded" } }] },
    async (api, client) => {
      const res = await fetch(`${api.url}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "gpt-4o", messages: [user("a")] }),
      });
      assert.equal(res.status, 401);
      await assert.rejects(
        client.chat.completions.create({ model: "gpt-4o", messages: [user("a")] }),
        (e) => e.status === 429 && e.code === "rate_limit_exceeded",
      );
      await assert.rejects(client.chat.completions.create({ model: "gpt-4o", messages: [user("a")] }), /no scripted turn left/);
      await assert.rejects(
        client.responses.create({ model: "gpt-4o", input: "a", previous_response_id: "resp_1" }),
        /previous_response_id is not implemented/,
      );
    },
  ));

test("responses: output items (reasoning, message with annotations, function_call) and usage details", () =>
  withServer(
    {
      script: [
        {
          reasoning: "Think.",
          content: "See [1].",
          annotations: [{ type: "url_citation", start_index: 4, end_index: 7, url: "https://example.com", title: "Ex" }],
          toolCalls: [{ name: "weather", arguments: { city: "成都" } }],
          usage: { input: 500, cached: 128, output: 90, reasoning: 64 },
        },
      ],
    },
    async (api, client) => {
      const r = await client.responses.create({
        model: "o4-mini",
        instructions: "Be brief.",
        input: "hi",
        reasoning: { summary: "auto" },
        include: ["reasoning.encrypted_content"],
        store: false,
      });
      assert.equal(r.object, "response");
      assert.equal(r.status, "completed");
      assert.equal(r.instructions, "Be brief.");
      assert.deepEqual(
        r.output.map((o) => o.type),
        ["reasoning", "message", "function_call"],
      );
      assert.deepEqual(r.output[0].summary, [{ type: "summary_text", text: "Think." }]);
      assert.ok(r.output[0].encrypted_content);
      assert.equal(r.output[1].content[0].annotations[0].url, "https://example.com");
      assert.equal(r.output_text, "See [1].");
      assert.match(r.output[2].call_id, /^call_/);
      assert.deepEqual(r.usage, {
        input_tokens: 500,
        input_tokens_details: { cached_tokens: 128, cache_write_tokens: 0 },
        output_tokens: 90,
        output_tokens_details: { reasoning_tokens: 64 },
        total_tokens: 590,
      });
      for (const k of [
        "id",
        "created_at",
        "model",
        "parallel_tool_calls",
        "tool_choice",
        "tools",
        "temperature",
        "top_p",
        "text",
        "truncation",
        "store",
        "reasoning",
        "service_tier",
        "metadata",
        "error",
        "incomplete_details",
      ])
        assert.ok(k in r, k);
    },
  ));

test("responses rejects input the API rejects: reasoning pairing, tool pairing, parts per role, unknown fields", () =>
  withServer(
    {
      script: [
        { reasoning: "Think.", toolCalls: [{ name: "weather" }] },
        { reasoning: "R", content: "x" },
      ],
    },
    async (api, client) => {
      const first = await client.responses.create({
        model: "o4-mini",
        input: "hi",
        store: false,
        include: ["reasoning.encrypted_content"],
      });
      const [rs, fc] = first.output;
      const out = { type: "function_call_output", call_id: fc.call_id, output: "sunny" };
      const bad = async (input, pattern) =>
        assert.rejects(client.responses.create({ model: "o4-mini", input }), (e) => {
          assert.equal(e.status === 400 || e.status === 404, true, `status ${e.status}`);
          assert.match(e.error.message, pattern);
          return true;
        });
      await bad([user("hi"), rs, user("again")], /of type 'reasoning' was provided without its required following item/);
      await bad([user("hi"), fc, out], /of type 'function_call' was provided without its required 'reasoning' item/);
      await bad([user("hi"), { ...rs, encrypted_content: undefined }, fc, out], /Items are not persisted when `store` is set to false/);
      await bad([user("hi"), { ...rs, encrypted_content: "gAAAAforged" }, fc, out], /could not be verified/);
      await bad([user("hi"), rs, fc], /No tool output found for function call/);
      await bad([user("hi"), out], /No tool call found for function call output/);
      await bad([user("hi"), { role: "assistant", content: [{ type: "input_text", text: "x" }] }], /Invalid value: 'input_text'/);
      await bad([{ role: "user", content: [{ type: "output_text", text: "x" }] }], /Invalid value: 'output_text'/);
      await bad([{ role: "user", content: "x", id: "msg_1" }], /Unknown parameter: 'input\[0\]\.id'/);
      await bad([{ role: "tool", content: "x" }], /Invalid value: 'tool'/);
      await bad([{ role: "assistant", id: "m1", content: "x" }], /Expected an ID that begins with 'msg'/);
      await bad([{ ...rs, summary: undefined }, fc, out], /Missing required parameter: 'input\[0\]\.summary'/);
      // The whole output, in order, with the call's output: accepted.
      const second = await client.responses.create({ model: "o4-mini", input: [user("hi"), ...first.output, out], store: false });
      assert.equal(second.output_text, "x");
      assert.equal(api.rejected().length, api.requests.length - 2);
    },
  ));

test("responses stream: typed events with sequence numbers, ending in response.completed", () =>
  withServer(
    { script: [{ reasoning: "Plan it.", content: "Two words", toolCalls: [{ name: "weather", arguments: { city: "Chengdu" } }] }] },
    async (api, client) => {
      const stream = await client.responses.create({ model: "o4-mini", input: "hi", stream: true, reasoning: { summary: "auto" } });
      const events = [];
      for await (const e of stream) events.push(e);
      assert.deepEqual(
        events.map((e) => e.sequence_number),
        events.map((_, i) => i),
      );
      assert.equal(events[0].type, "response.created");
      const done = events.at(-1);
      assert.equal(done.type, "response.completed");
      assert.equal(
        events
          .filter((e) => e.type === "response.output_text.delta")
          .map((e) => e.delta)
          .join(""),
        "Two words",
      );
      assert.equal(
        events
          .filter((e) => e.type === "response.reasoning_summary_text.delta")
          .map((e) => e.delta)
          .join(""),
        "Plan it.",
      );
      assert.equal(
        events
          .filter((e) => e.type === "response.function_call_arguments.delta")
          .map((e) => e.delta)
          .join(""),
        '{"city":"Chengdu"}',
      );
      assert.deepEqual(
        done.response.output.map((o) => o.type),
        ["reasoning", "message", "function_call"],
      );
      assert.deepEqual(
        events.filter((e) => e.type === "response.output_item.done").map((e) => e.item),
        done.response.output,
      );
    },
  ));
