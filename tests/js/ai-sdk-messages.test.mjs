// The AI SDK message mapping (agent-memory/ai-sdk: fromModelMessages,
// toModelMessages) through the built package: round trips both ways on
// realistic conversations, ai 7's own schema and generateText accept what
// toModelMessages gives (ai 6's too, as `system`), every error, the lossy
// corners the docs name, and fromModelMessages' output is what @ai-sdk/openai
// itself sends, stored and counted by the controller.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { modelMessageSchema, generateText, tool, isStepCount } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { modelMessageSchema as modelMessageSchema6, generateText as generateText6 } from "ai6";
import { MockLanguageModelV3 } from "ai6/test";
import { z } from "zod";
import * as main from "../../dist/node.js";
import { fromModelMessages, toModelMessages } from "../../dist/integrations/ai-sdk/ai-sdk.js";
import { lazyChatMessages } from "../../dist/integrations/ai-sdk/ai-sdk-messages.js";

const { MemoryController } = main;

const { png: PNG, pdf: PDF, wav: WAV } = JSON.parse(readFileSync(new URL("../fixtures/media.json", import.meta.url), "utf8"));

const SYSTEM = "You are a travel assistant. 回答要简洁。";

// A conversation as ai 7 itself writes it (response.messages style: assistant
// content always parts, one tool message per step, images as file parts).
const modelConversation = () => [
  { role: "user", content: "明天成都和重庆的天气怎么样？" },
  {
    role: "assistant",
    content: [
      { type: "reasoning", text: "Two cities: two calls." },
      { type: "text", text: "Let me check both cities." },
      { type: "tool-call", toolCallId: "call_1", toolName: "weather", input: { city: "成都" } },
      { type: "tool-call", toolCallId: "call_2", toolName: "weather", input: { city: "重庆", unit: "C" } },
    ],
  },
  {
    role: "tool",
    content: [
      { type: "tool-result", toolCallId: "call_1", toolName: "weather", output: { type: "json", value: { temp: 21, sky: "多云" } } },
      { type: "tool-result", toolCallId: "call_2", toolName: "weather", output: { type: "text", value: "26°C, light rain" } },
    ],
  },
  { role: "assistant", content: [{ type: "text", text: "成都 21°C 多云；重庆 26°C 小雨。" }] },
  {
    role: "user",
    content: [
      { type: "text", text: "What is in this photo, and summarise the PDF." },
      { type: "file", mediaType: "image/png", data: PNG, providerOptions: { openai: { imageDetail: "low" } } },
      { type: "file", mediaType: "image/*", data: "https://example.com/chengdu.jpg" },
      { type: "file", mediaType: "application/pdf", data: PDF, filename: "itinerary.pdf" },
      { type: "file", mediaType: "audio/wav", data: WAV },
      { type: "file", mediaType: "application/pdf", data: { openai: "file-abc123" } },
    ],
  },
  { role: "assistant", content: [{ type: "tool-call", toolCallId: "call_3", toolName: "ocr", input: { page: 1 } }] },
  {
    role: "tool",
    content: [
      {
        type: "tool-result",
        toolCallId: "call_3",
        toolName: "ocr",
        output: { type: "json", value: ["Day 1: 宽窄巷子", "Day 2: 大熊猫基地"] },
      },
    ],
  },
  { role: "assistant", content: [{ type: "text", text: "A tiny image; the PDF plans two days: 宽窄巷子 and the panda base." }] },
];

// The same conversation as OpenAI's API writes it (reasoning as DeepSeek names it).
const openaiConversation = () => [
  { role: "user", content: "明天成都和重庆的天气怎么样？" },
  {
    role: "assistant",
    content: "Let me check both cities.",
    tool_calls: [
      { id: "call_1", type: "function", function: { name: "weather", arguments: '{"city":"成都"}' } },
      { id: "call_2", type: "function", function: { name: "weather", arguments: '{"city":"重庆","unit":"C"}' } },
    ],
    reasoning_content: "Two cities: two calls.",
  },
  { role: "tool", tool_call_id: "call_1", content: '{"temp":21,"sky":"多云"}' },
  { role: "tool", tool_call_id: "call_2", content: "26°C, light rain" },
  { role: "assistant", content: "成都 21°C 多云；重庆 26°C 小雨。" },
  {
    role: "user",
    content: [
      { type: "text", text: "What is in this photo, and summarise the PDF." },
      { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}`, detail: "low" } },
      { type: "image_url", image_url: { url: "https://example.com/chengdu.jpg" } },
      { type: "file", file: { file_data: `data:application/pdf;base64,${PDF}`, filename: "itinerary.pdf" } },
      { type: "input_audio", input_audio: { data: WAV, format: "wav" } },
      { type: "file", file: { file_id: "file-abc123" } },
    ],
  },
  {
    role: "assistant",
    content: null,
    tool_calls: [{ id: "call_3", type: "function", function: { name: "ocr", arguments: '{"page":1}' } }],
  },
  { role: "tool", tool_call_id: "call_3", content: '["Day 1: 宽窄巷子","Day 2: 大熊猫基地"]' },
  { role: "assistant", content: "A tiny image; the PDF plans two days: 宽窄巷子 and the panda base." },
];

const assertSchema = (messages, schema = modelMessageSchema) => {
  for (const [i, m] of messages.entries()) {
    const r = schema.safeParse(m);
    assert.ok(r.success, `message ${i} rejected by ai's modelMessageSchema: ${JSON.stringify(r.error?.issues)}`);
  }
};

test("the main entry exports the same two mappings, as in 0.1", () => {
  assert.equal(main.fromModelMessages, fromModelMessages);
  assert.equal(main.toModelMessages, toModelMessages);
});

test("AI SDK → OpenAI: the mapping table, and back again unchanged", () => {
  const model = modelConversation();
  assertSchema(model);
  const openai = fromModelMessages([{ role: "system", content: SYSTEM }, ...model]);
  assert.deepEqual(
    openai,
    [{ role: "system", content: SYSTEM }, ...openaiConversation()],
    "tool message with 2 results → 2 tool messages, images, files, audio, reasoning",
  );
  assert.deepEqual(toModelMessages(openai), { instructions: [{ role: "system", content: SYSTEM }], messages: modelConversation() });
});

test("OpenAI → AI SDK: accepted by ai 7's schema (and ai 6's), and back again unchanged", () => {
  const { instructions, messages } = toModelMessages([{ role: "developer", content: SYSTEM }, ...openaiConversation()]);
  assertSchema([...instructions, ...messages]);
  assertSchema([...instructions, ...messages.filter((m) => m.role !== "user" || typeof m.content === "string")], modelMessageSchema6);
  assert.deepEqual(messages, modelConversation());
  assert.deepEqual(fromModelMessages(messages), openaiConversation());
  // mp3, an unanswered call's empty text, a tool result in parts.
  const more = [
    {
      role: "user",
      content: [
        { type: "text", text: "listen" },
        { type: "input_audio", input_audio: { data: "SUQz", format: "mp3" } },
      ],
    },
    { role: "assistant", content: "", tool_calls: [{ id: "c9", type: "function", function: { name: "noop", arguments: "{}" } }] },
    { role: "tool", tool_call_id: "c9", content: [{ type: "text", text: "done" }] },
  ];
  const back = toModelMessages(more).messages;
  assertSchema(back);
  assert.deepEqual(back[0].content[1], { type: "file", mediaType: "audio/mpeg", data: "SUQz" });
  assert.deepEqual(fromModelMessages(back), [more[0], { ...more[1], content: null }, { ...more[2], content: "done" }]);
});

test("ai 7's generateText takes toModelMessages(context) as it is, no allowSystemInMessages; ai 6's as `system`", async () => {
  const ctx = [
    { role: "system", content: SYSTEM },
    { role: "developer", content: "Rule: metric units." },
    ...openaiConversation(),
    { role: "user", content: "Book the panda base for Day 2." },
  ];
  const prompts = [];
  const finish = { unified: "stop", raw: "stop" };
  const usage = {
    inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 5, text: 5, reasoning: undefined },
  };
  const model = new MockLanguageModelV4({
    supportedUrls: { "*/*": [/^https?:/] }, // no downloads in the test
    doGenerate: async (options) => {
      prompts.push(options.prompt);
      return { content: [{ type: "text", text: "Booked." }], finishReason: finish, usage, warnings: [] };
    },
  });
  const result = await generateText({ model, ...toModelMessages(ctx) });
  assert.equal(result.text, "Booked.");
  // What the provider gets, mapped back, is the context again (a single text part is a string, as @ai-sdk/openai sends it).
  assert.deepEqual(fromModelMessages(prompts[0]), [ctx[0], { role: "system", content: "Rule: metric units." }, ...ctx.slice(2)]);

  const model6 = new MockLanguageModelV3({
    supportedUrls: { "*/*": [/^https?:/] },
    doGenerate: async (options) => {
      prompts.push(options.prompt);
      return { content: [{ type: "text", text: "Booked." }], finishReason: finish, usage, warnings: [] };
    },
  });
  // ai 6 knows no provider references: an uploaded file's id is the one thing it cannot take.
  const ctx6 = ctx.map((m) => (Array.isArray(m.content) ? { ...m, content: m.content.filter((p) => p.file?.file_id === undefined) } : m));
  const { instructions, messages } = toModelMessages(ctx6);
  const r6 = await generateText6({ model: model6, system: instructions, messages, allowSystemInMessages: false });
  assert.equal(r6.text, "Booked.");
  assert.deepEqual(
    fromModelMessages(prompts[1]),
    fromModelMessages(prompts[0]).map((m) =>
      Array.isArray(m.content) ? { ...m, content: m.content.filter((p) => p.file?.file_id === undefined) } : m,
    ),
    "ai 6 sends the same prompt",
  );
});

test("the documented lossy corners, and what @ai-sdk/openai 4 sends", () => {
  const from = fromModelMessages([
    {
      role: "assistant",
      content: [
        { type: "reasoning", text: "thinking…" },
        { type: "text", text: "a" },
        { type: "text", text: "b" },
        { type: "source", sourceType: "url", id: "s", url: "https://x" },
      ],
    },
    {
      role: "assistant",
      content: [
        { type: "tool-call", toolCallId: "ws", toolName: "web_search", input: {}, providerExecuted: true },
        { type: "tool-result", toolCallId: "ws", toolName: "web_search", output: { type: "json", value: {} } },
        { type: "text", text: "found" },
      ],
    },
    {
      role: "user",
      content: [
        { type: "image", image: Uint8Array.from(atob(PNG), (c) => c.charCodeAt(0)) },
        { type: "file", data: new URL(`data:image/png;base64,${PNG}`), mediaType: "image/png" },
        { type: "file", mediaType: "image", data: { type: "data", data: PNG } },
      ],
    },
    {
      role: "assistant",
      content: [
        { type: "tool-call", toolCallId: "t", toolName: "f", input: { x: 1 } },
        { type: "tool-call", toolCallId: "u", toolName: "f", input: "not json" },
        { type: "tool-call", toolCallId: "v", toolName: "f", input: [1] },
      ],
    },
    {
      role: "tool",
      content: [
        { type: "tool-result", toolCallId: "t", toolName: "f", output: { type: "error-text", value: "boom" } },
        { type: "tool-approval-response", approvalId: "a", approved: true },
      ],
    },
    {
      role: "tool",
      content: [
        { type: "tool-result", toolCallId: "u", toolName: "f", output: { type: "content", value: [{ type: "text", text: "hi" }] } },
      ],
    },
    {
      role: "tool",
      content: [{ type: "tool-result", toolCallId: "v", toolName: "f", output: { type: "execution-denied", reason: "not now" } }],
    },
    {
      role: "user",
      content: [
        { type: "file", mediaType: "application/pdf", data: { type: "reference", reference: { openai: "file-9" } } },
        { type: "file", mediaType: "image/jpeg", data: { type: "url", url: new URL("https://x/a.jpg") } },
      ],
    },
  ]);
  assert.deepEqual(
    from[0],
    { role: "assistant", content: "ab", reasoning_content: "thinking…" },
    "texts concatenated, reasoning kept apart, sources dropped",
  );
  assert.deepEqual(from[1], { role: "assistant", content: "found" }, "provider-executed call and result dropped");
  const png = { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } };
  assert.deepEqual(from[2].content, [png, png, png], "bytes, a data: URL and tagged data all → a data URL, PNG sniffed");
  assert.deepEqual(
    from[3].tool_calls.map((c) => c.function.arguments),
    ['{"x":1}', "{}", "{}"],
    "arguments that are no JSON object → {}, as @ai-sdk/openai",
  );
  assert.equal(from.length, 8, "an approval response is no result");
  assert.equal(from[4].content, '{"error":"boom"}', "an error as @ai-sdk/openai 4 sends it");
  assert.equal(from[5].content, '[{"type":"text","text":"hi"}]', "content output JSON-encoded");
  assert.equal(from[6].content, "not now", "a denial is its reason");
  assert.deepEqual(from[7].content, [
    { type: "file", file: { file_id: "file-9" } },
    { type: "image_url", image_url: { url: "https://x/a.jpg" } },
  ]);

  const to = toModelMessages([
    {
      role: "developer",
      content: [
        { type: "text", text: "rule 1" },
        { type: "text", text: "rule 2" },
      ],
    },
    { role: "user", name: "alice", content: "hi" },
    {
      role: "assistant",
      content: [
        { type: "text", text: "no" },
        { type: "refusal", refusal: "I can't." },
      ],
      tool_calls: [{ id: "k", type: "function", function: { name: "f", arguments: "{bad json" } }],
    },
    { role: "tool", tool_call_id: "k", content: "42" },
    { role: "assistant", content: null, refusal: "Not that.", annotations: [], audio: null },
  ]);
  assertSchema([...to.instructions, ...to.messages]);
  assert.deepEqual(to.instructions, [{ role: "system", content: "rule 1\nrule 2" }], "developer → instructions");
  assert.deepEqual(to.messages[0], { role: "user", content: "hi" }, "name dropped");
  assert.deepEqual(
    to.messages[1].content.map((p) => p.text ?? p.input),
    ["no", "I can't.", "{bad json"],
    "refusal → text; non-JSON arguments kept raw",
  );
  assert.deepEqual(to.messages[2].content[0].output, { type: "text", value: "42" }, "only JSON objects/arrays become json output");
  assert.deepEqual(
    to.messages[3],
    { role: "assistant", content: [{ type: "text", text: "Not that." }] },
    "a refusal string is the text; response-only fields dropped",
  );
});

const expectError = (f, code, pattern) => {
  assert.throws(f, (e) => {
    assert.ok(e instanceof Error);
    assert.equal(e.name, "MemoryError");
    assert.equal(e.code, code, e.message);
    if (pattern) assert.match(e.message, pattern);
    return true;
  });
};

test("the middleware's lazy reading of a prompt gives, message by message, what fromModelMessages gives without its system messages", () => {
  const model = modelConversation();
  // System messages anywhere, a tool message of two results, one with an approval decision only.
  const prompt = [
    { role: "system", content: SYSTEM },
    ...model.slice(0, 2),
    { role: "system", content: "Be brief." },
    ...model.slice(2),
    { role: "tool", content: [{ type: "tool-approval-response", approvalId: "a1", approved: true }] },
    { role: "user", content: "谢谢" },
  ];
  const whole = fromModelMessages(prompt).filter((m) => m.role !== "system");
  const lazy = lazyChatMessages(prompt);
  assert.equal(lazy.length, whole.length);
  // Read from the end first, as the middleware reads it, then every one.
  for (let i = whole.length - 1; i >= 0; i--) assert.deepEqual(lazy.at(i), whole[i], `message ${i}`);
  assert.deepEqual(lazy.slice(2), whole.slice(2));
  assert.equal(lazy.at(whole.length), undefined);
  // A message the reading never reaches is never converted: a bad one far back does not fail the call.
  const long = [{ role: "user", content: [{ type: "nonsense" }] }, ...prompt];
  assert.deepEqual(lazyChatMessages(long).at(whole.length), whole.at(-1));
  assert.throws(() => lazyChatMessages(long).at(0), { code: "INVALID_CONTENT" });
});

test("fromModelMessages errors", () => {
  const user = (part) => [{ role: "user", content: [part] }];
  expectError(() => fromModelMessages(user({ type: "video", data: "x" })), "INVALID_CONTENT", /messages\[0\]\.content\[0\].*"video"/);
  expectError(() => fromModelMessages(user({ type: "reasoning", text: "x" })), "INVALID_CONTENT");
  expectError(() => fromModelMessages(user("plain string part")), "INVALID_CONTENT");
  expectError(() => fromModelMessages(user({ type: "image", image: 42 })), "INVALID_CONTENT", /data must be/);
  expectError(() => fromModelMessages(user({ type: "file", data: PDF })), "INVALID_CONTENT", /mediaType/);
  expectError(
    () => fromModelMessages(user({ type: "file", data: "https://x/a.wav", mediaType: "audio/wav" })),
    "INVALID_CONTENT",
    /input_audio/,
  );
  expectError(
    () => fromModelMessages(user({ type: "file", data: new URL("https://x/a.pdf"), mediaType: "application/pdf" })),
    "INVALID_CONTENT",
    /not a URL/,
  );
  expectError(
    () => fromModelMessages(user({ type: "file", data: { type: "text", text: "a doc" }, mediaType: "text/plain" })),
    "INVALID_CONTENT",
    /inline text/,
  );
  expectError(
    () =>
      fromModelMessages(user({ type: "file", data: { type: "reference", reference: { anthropic: "f" } }, mediaType: "application/pdf" })),
    "INVALID_CONTENT",
    /openai file id/,
  );
  expectError(
    () => fromModelMessages(user({ type: "file", data: { type: "data", data: "data:image/png;base64,xx" }, mediaType: "image/png" })),
    "INVALID_CONTENT",
  );
  expectError(() => fromModelMessages([{ role: "assistant", content: [{ type: "video", url: "x" }] }]), "INVALID_CONTENT");
  expectError(() => fromModelMessages([{ role: "tool", content: [{ type: "text", text: "x" }] }]), "INVALID_CONTENT");
  expectError(
    () =>
      fromModelMessages([
        { role: "tool", content: [{ type: "tool-result", toolCallId: "a", toolName: "f", output: { type: "blob", value: 1 } }] },
      ]),
    "INVALID_CONTENT",
    /tool output type/,
  );
  expectError(() => fromModelMessages([{ role: "system", content: [{ type: "text", text: "x" }] }]), "INVALID_CONTENT");
  expectError(() => fromModelMessages([{ role: "user", content: 7 }]), "INVALID_CONTENT");
  expectError(() => fromModelMessages([{ role: "developer", content: "x" }]), "INVALID_ROLE");
  expectError(() => fromModelMessages([null]), "INVALID_INPUT");
  expectError(() => fromModelMessages({ role: "user", content: "x" }), "INVALID_INPUT");
});

test("toModelMessages: a context's recall block goes into the newest user turn, the instructions are the system messages above the first turn", () => {
  const block = '<memory type="knowledge">\nStored notes that may be relevant.\n- 2026-03-01 user: the hostel on Jinli street\n</memory>';
  const messages = [
    { role: "system", content: SYSTEM },
    { role: "system", content: "[Conversation memory] 40 earlier messages are not shown." },
    { role: "user", content: "Hi" },
    { role: "assistant", content: "Hello!" },
    { role: "system", content: block },
    { role: "user", content: [{ type: "text", text: "Which hostel?" }] },
  ];
  const { instructions, messages: turns } = toModelMessages(messages);
  assert.deepEqual(
    instructions.map((m) => m.content),
    [SYSTEM, "[Conversation memory] 40 earlier messages are not shown."],
  );
  assert.deepEqual(turns.at(-1), {
    role: "user",
    content: [
      { type: "text", text: block },
      { type: "text", text: "Which hostel?" },
    ],
  });
  assert.deepEqual(turns.slice(0, 2), [
    { role: "user", content: "Hi" },
    { role: "assistant", content: [{ type: "text", text: "Hello!" }] },
  ]);
  // With no user turn after it, it stays an instruction.
  assert.equal(toModelMessages(messages.slice(0, 5)).instructions.length, 3);
});

test("toModelMessages errors", () => {
  const user = (part) => [{ role: "user", content: [part] }];
  expectError(() => toModelMessages(user({ type: "video_url", video_url: {} })), "INVALID_CONTENT", /"video_url"/);
  expectError(() => toModelMessages(user({ type: "image_url", image_url: {} })), "INVALID_CONTENT");
  expectError(() => toModelMessages(user({ type: "input_audio", input_audio: {} })), "INVALID_CONTENT");
  expectError(() => toModelMessages(user({ type: "file", file: { file_data: "not a data url" } })), "INVALID_CONTENT", /data URL/);
  expectError(
    () => toModelMessages([{ role: "system", content: [{ type: "image_url", image_url: { url: "https://x" } }] }]),
    "INVALID_CONTENT",
  );
  expectError(
    () => toModelMessages([{ role: "assistant", content: [{ type: "image_url", image_url: { url: "https://x" } }] }]),
    "INVALID_CONTENT",
  );
  expectError(() => toModelMessages([{ role: "assistant", content: null, tool_calls: [{ id: "a", type: "custom" }] }]), "INVALID_CONTENT");
  expectError(() => toModelMessages([{ role: "tool", tool_call_id: "nope", content: "x" }]), "TOOL_RESULT_WITHOUT_CALL");
  expectError(() => toModelMessages([{ role: "function", content: "x" }]), "INVALID_ROLE");
  expectError(() => toModelMessages("x"), "INVALID_INPUT");
});

test("fromModelMessages output is stored and counted by the controller, and comes back", async () => {
  const memory = await MemoryController.create({ model: "gpt-4o", workingMemory: { maxTokens: 100000 } });
  const openai = fromModelMessages([{ role: "system", content: SYSTEM }, ...modelConversation()]);
  let total = 0;
  for (const m of openai) total += (await memory.add(m)).tokens;
  assert.ok(total > 100);
  const history = (await memory.history()).map((h) => h.message);
  assert.deepEqual(history, openai, "stored as given, reasoning_content included");
  assert.deepEqual(toModelMessages(history), { instructions: [{ role: "system", content: SYSTEM }], messages: modelConversation() });
});

test("a tool loop with ai 7: generateText on toModelMessages(context), its steps' messages back into memory", async () => {
  const memory = await MemoryController.create({ model: "gpt-4o" });
  for (const m of fromModelMessages([{ role: "system", content: SYSTEM }, ...modelConversation()])) await memory.add(m);
  await memory.add({ role: "user", content: "Book the panda base for Day 2." });
  const prompts = [];
  let step = 0;
  const usage = {
    inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 5, text: 5, reasoning: undefined },
  };
  const model = new MockLanguageModelV4({
    supportedUrls: { "*/*": [/^https?:/] },
    doGenerate: async (options) => {
      prompts.push(options.prompt);
      if (step++ === 0)
        return {
          content: [{ type: "tool-call", toolCallId: "call_9", toolName: "book", input: '{"place":"大熊猫基地","day":2}' }],
          finishReason: { unified: "tool-calls", raw: "tool_calls" },
          usage,
          warnings: [],
        };
      return {
        content: [
          { type: "reasoning", text: "booked" },
          { type: "text", text: "Booked: 大熊猫基地, Day 2." },
        ],
        finishReason: { unified: "stop", raw: "stop" },
        usage,
        warnings: [],
      };
    },
  });
  const ctx = await memory.buildContext({ maxTokens: 4000 });
  const result = await generateText({
    model,
    ...toModelMessages(ctx.messages),
    tools: {
      book: tool({
        inputSchema: z.object({ place: z.string(), day: z.number() }),
        execute: async ({ place, day }) => ({ ok: true, place, day }),
      }),
    },
    stopWhen: isStepCount(3),
  });
  assert.equal(result.text, "Booked: 大熊猫基地, Day 2.");
  assert.equal(prompts[0].filter((m) => m.role === "tool").length, 2, "the SDK took both tool messages");
  const added = fromModelMessages(result.steps.flatMap((s) => s.response.messages));
  assert.deepEqual(added, [
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "call_9", type: "function", function: { name: "book", arguments: '{"place":"大熊猫基地","day":2}' } }],
    },
    { role: "tool", tool_call_id: "call_9", content: '{"ok":true,"place":"大熊猫基地","day":2}' },
    { role: "assistant", content: "Booked: 大熊猫基地, Day 2.", reasoning_content: "booked" },
  ]);
  for (const m of added) await memory.add(m);
  const after = (await memory.history()).slice(-3).map((h) => h.message);
  assert.deepEqual(after, added);
});
