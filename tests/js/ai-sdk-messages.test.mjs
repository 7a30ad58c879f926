// The Vercel AI SDK mapping (js/aisdk.js) through the built package: round
// trips both ways on realistic conversations, every error, the lossy corners
// the docs name, that the SDK itself (ai@5: its message schema and
// generateText with a mock model) accepts what toModelMessages produces, and
// that what fromModelMessages produces is stored and counted by the controller.
import { test } from "node:test";
import assert from "node:assert/strict";
import { modelMessageSchema, generateText, tool, stepCountIs } from "ai";
import { MockLanguageModelV2 } from "ai/test";
import { z } from "zod";
import { MemoryController, fromModelMessages, toModelMessages } from "../../dist/node.js";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const PDF = "JVBERi0xLjQKJcOkw7zDtsOfCjIgMCBvYmoKPDwvTGVuZ3RoIDMgMCBSPj4Kc3RyZWFtCg==";
const WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=";

// A conversation as the AI SDK itself writes it (response.messages style:
// assistant content always parts, one tool message per step).
const modelConversation = () => [
  { role: "system", content: "You are a travel assistant. 回答要简洁。" },
  { role: "user", content: "明天成都和重庆的天气怎么样？" },
  {
    role: "assistant",
    content: [
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
      { type: "image", image: PNG, mediaType: "image/png", providerOptions: { openai: { imageDetail: "low" } } },
      { type: "image", image: "https://example.com/chengdu.jpg" },
      { type: "file", data: PDF, mediaType: "application/pdf", filename: "itinerary.pdf" },
      { type: "file", data: WAV, mediaType: "audio/wav" },
    ],
  },
  { role: "assistant", content: [{ type: "tool-call", toolCallId: "call_3", toolName: "ocr", input: { page: 1 } }] },
  { role: "tool", content: [{ type: "tool-result", toolCallId: "call_3", toolName: "ocr", output: { type: "json", value: ["Day 1: 宽窄巷子", "Day 2: 大熊猫基地"] } }] },
  { role: "assistant", content: [{ type: "text", text: "A tiny image; the PDF plans two days: 宽窄巷子 and the panda base." }] },
];

// The same conversation as OpenAI's API writes it.
const openaiConversation = () => [
  { role: "system", content: "You are a travel assistant. 回答要简洁。" },
  { role: "user", content: "明天成都和重庆的天气怎么样？" },
  {
    role: "assistant",
    content: "Let me check both cities.",
    tool_calls: [
      { id: "call_1", type: "function", function: { name: "weather", arguments: '{"city":"成都"}' } },
      { id: "call_2", type: "function", function: { name: "weather", arguments: '{"city":"重庆","unit":"C"}' } },
    ],
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
    ],
  },
  { role: "assistant", content: null, tool_calls: [{ id: "call_3", type: "function", function: { name: "ocr", arguments: '{"page":1}' } }] },
  { role: "tool", tool_call_id: "call_3", content: '["Day 1: 宽窄巷子","Day 2: 大熊猫基地"]' },
  { role: "assistant", content: "A tiny image; the PDF plans two days: 宽窄巷子 and the panda base." },
];

const assertSchema = (messages) => {
  for (const [i, m] of messages.entries()) {
    const r = modelMessageSchema.safeParse(m);
    assert.ok(r.success, `message ${i} rejected by ai's modelMessageSchema: ${JSON.stringify(r.error?.issues)}`);
  }
};

test("AI SDK → OpenAI: the mapping table, and back again unchanged", () => {
  const model = modelConversation();
  assertSchema(model);
  const openai = fromModelMessages(model);
  assert.deepEqual(openai, openaiConversation(), "tool message with 2 results → 2 tool messages, images, files, audio");
  assert.deepEqual(toModelMessages(openai), modelConversation());
});

test("OpenAI → AI SDK: accepted by ai's schema, and back again unchanged", () => {
  const model = toModelMessages(openaiConversation());
  assertSchema(model);
  assert.deepEqual(model, modelConversation());
  assert.deepEqual(fromModelMessages(model), openaiConversation());
  // More shapes in OpenAI's own form: uploaded file ids, mp3, an unanswered call's arguments.
  const more = [
    { role: "user", content: [{ type: "file", file: { file_id: "file-abc123" } }, { type: "input_audio", input_audio: { data: "SUQz", format: "mp3" } }] },
    { role: "assistant", content: "", tool_calls: [{ id: "c9", type: "function", function: { name: "noop", arguments: "{}" } }] },
    { role: "tool", tool_call_id: "c9", content: [{ type: "text", text: "done" }] },
  ];
  const back = toModelMessages(more);
  assertSchema(back);
  assert.deepEqual(back[0].content, [{ type: "file", data: "file-abc123", mediaType: "application/pdf" }, { type: "file", data: "SUQz", mediaType: "audio/mpeg" }]);
  assert.deepEqual(fromModelMessages(back), [more[0], { ...more[1], content: null }, { ...more[2], content: "done" }]);
});

test("the documented lossy corners", () => {
  const from = fromModelMessages([
    { role: "assistant", content: [{ type: "reasoning", text: "thinking…" }, { type: "text", text: "a" }, { type: "text", text: "b" }] },
    { role: "assistant", content: [{ type: "tool-call", toolCallId: "ws", toolName: "web_search", input: {}, providerExecuted: true }, { type: "tool-result", toolCallId: "ws", toolName: "web_search", output: { type: "json", value: {} } }, { type: "text", text: "found" }] },
    { role: "user", content: [{ type: "image", image: Uint8Array.from(atob(PNG), (c) => c.charCodeAt(0)) }, { type: "file", data: new URL(`data:image/png;base64,${PNG}`), mediaType: "image/png" }] },
    { role: "assistant", content: [{ type: "tool-call", toolCallId: "t", toolName: "f", input: { x: 1 } }] },
    { role: "tool", content: [{ type: "tool-result", toolCallId: "t", toolName: "f", output: { type: "error-text", value: "boom" } }] },
    { role: "assistant", content: [{ type: "tool-call", toolCallId: "u", toolName: "f", input: { x: 2 } }] },
    { role: "tool", content: [{ type: "tool-result", toolCallId: "u", toolName: "f", output: { type: "content", value: [{ type: "text", text: "hi" }] } }] },
  ]);
  assert.deepEqual(from[0], { role: "assistant", content: "ab" }, "reasoning dropped, texts concatenated");
  assert.deepEqual(from[1], { role: "assistant", content: "found" }, "provider-executed call and result dropped");
  assert.deepEqual(from[2].content, [{ type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } }, { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } }], "bytes → base64 data URL, PNG sniffed");
  assert.equal(from[4].content, "boom", "error flag lost");
  assert.equal(from[6].content, '[{"type":"text","text":"hi"}]', "content output JSON-encoded, as @ai-sdk/openai");

  const to = toModelMessages([
    { role: "developer", content: [{ type: "text", text: "rule 1" }, { type: "text", text: "rule 2" }] },
    { role: "user", name: "alice", content: "hi" },
    { role: "assistant", content: [{ type: "text", text: "no" }, { type: "refusal", refusal: "I can't." }], tool_calls: [{ id: "k", type: "function", function: { name: "f", arguments: "{bad json" } }] },
    { role: "tool", tool_call_id: "k", content: "42" },
  ]);
  assertSchema(to);
  assert.deepEqual(to[0], { role: "system", content: "rule 1\nrule 2" }, "developer → system");
  assert.deepEqual(to[1], { role: "user", content: "hi" }, "name dropped");
  assert.deepEqual(to[2].content.map((p) => p.text ?? p.input), ["no", "I can't.", "{bad json"], "refusal → text; non-JSON arguments kept raw");
  assert.deepEqual(to[3].content[0].output, { type: "text", value: "42" }, "only JSON objects/arrays become json output");
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

test("fromModelMessages errors", () => {
  const user = (part) => [{ role: "user", content: [part] }];
  expectError(() => fromModelMessages(user({ type: "video", data: "x" })), "INVALID_CONTENT", /messages\[0\]\.content\[0\].*"video"/);
  expectError(() => fromModelMessages(user({ type: "reasoning", text: "x" })), "INVALID_CONTENT");
  expectError(() => fromModelMessages(user("plain string part")), "INVALID_CONTENT");
  expectError(() => fromModelMessages(user({ type: "image", image: 42 })), "INVALID_CONTENT", /data must be/);
  expectError(() => fromModelMessages(user({ type: "file", data: PDF })), "INVALID_CONTENT", /mediaType/);
  expectError(() => fromModelMessages(user({ type: "file", data: "https://x/a.wav", mediaType: "audio/wav" })), "INVALID_CONTENT", /input_audio/);
  expectError(() => fromModelMessages(user({ type: "file", data: new URL("https://x/a.pdf"), mediaType: "application/pdf" })), "INVALID_CONTENT", /not a URL/);
  expectError(() => fromModelMessages([{ role: "assistant", content: [{ type: "source", url: "x" }] }]), "INVALID_CONTENT");
  expectError(() => fromModelMessages([{ role: "assistant", content: [{ type: "file", data: PNG, mediaType: "image/png" }] }]), "INVALID_CONTENT");
  expectError(() => fromModelMessages([{ role: "tool", content: [{ type: "text", text: "x" }] }]), "INVALID_CONTENT");
  expectError(() => fromModelMessages([{ role: "tool", content: [{ type: "tool-result", toolCallId: "a", toolName: "f", output: { type: "blob", value: 1 } }] }]), "INVALID_CONTENT", /tool output type/);
  expectError(() => fromModelMessages([{ role: "system", content: [{ type: "text", text: "x" }] }]), "INVALID_CONTENT");
  expectError(() => fromModelMessages([{ role: "user", content: 7 }]), "INVALID_CONTENT");
  expectError(() => fromModelMessages([{ role: "developer", content: "x" }]), "INVALID_ROLE");
  expectError(() => fromModelMessages([null]), "INVALID_INPUT");
  expectError(() => fromModelMessages({ role: "user", content: "x" }), "INVALID_INPUT");
});

test("toModelMessages errors", () => {
  const user = (part) => [{ role: "user", content: [part] }];
  expectError(() => toModelMessages(user({ type: "video_url", video_url: {} })), "INVALID_CONTENT", /"video_url"/);
  expectError(() => toModelMessages(user({ type: "image_url", image_url: {} })), "INVALID_CONTENT");
  expectError(() => toModelMessages(user({ type: "file", file: { file_data: "not a data url" } })), "INVALID_CONTENT", /data URL/);
  expectError(() => toModelMessages([{ role: "system", content: [{ type: "image_url", image_url: { url: "https://x" } }] }]), "INVALID_CONTENT");
  expectError(() => toModelMessages([{ role: "assistant", content: [{ type: "image_url", image_url: { url: "https://x" } }] }]), "INVALID_CONTENT");
  expectError(() => toModelMessages([{ role: "assistant", content: null, tool_calls: [{ id: "a", type: "custom" }] }]), "INVALID_CONTENT");
  expectError(() => toModelMessages([{ role: "tool", tool_call_id: "nope", content: "x" }]), "TOOL_RESULT_WITHOUT_CALL");
  expectError(() => toModelMessages([{ role: "function", content: "x" }]), "INVALID_ROLE");
  expectError(() => toModelMessages("x"), "INVALID_INPUT");
});

test("fromModelMessages output is stored and counted by the controller, and comes back", async () => {
  const memory = await MemoryController.create({ model: "gpt-4o", workingMemory: { maxTokens: 100000 } });
  const openai = fromModelMessages(modelConversation());
  let total = 0;
  for (const m of openai) {
    const r = await memory.add(m);
    assert.equal(r.tokens, memory.countMessages([m]) - 3, `${m.role} counted as one message (3 of reply priming aside)`);
    total += r.tokens;
  }
  assert.ok(total > 100);
  const ctx = await memory.buildContext({ maxTokens: 100000 });
  assert.equal(ctx.messages.length, openai.length);
  assert.equal(ctx.tokens, memory.countMessages(openai));
  assert.deepEqual(toModelMessages((await memory.history()).map((h) => h.message)), modelConversation());
});

test("with the AI SDK: generateText on toModelMessages(context), its response.messages back into memory", async () => {
  const memory = await MemoryController.create({ model: "gpt-4o" });
  for (const m of fromModelMessages(modelConversation())) await memory.add(m);
  await memory.add({ role: "user", content: "Book the panda base for Day 2." });
  const prompts = [];
  let step = 0;
  const model = new MockLanguageModelV2({
    supportedUrls: { "*/*": [/^https?:/] }, // no downloads in the test
    doGenerate: async (options) => {
      prompts.push(options.prompt);
      const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15 };
      if (step++ === 0) return { content: [{ type: "tool-call", toolCallId: "call_9", toolName: "book", input: '{"place":"大熊猫基地","day":2}' }], finishReason: "tool-calls", usage, warnings: [] };
      return { content: [{ type: "reasoning", text: "booked" }, { type: "text", text: "Booked: 大熊猫基地, Day 2." }], finishReason: "stop", usage, warnings: [] };
    },
  });
  const ctx = await memory.buildContext({ maxTokens: 4000 });
  const result = await generateText({
    model,
    messages: toModelMessages(ctx.messages),
    allowSystemInMessages: true, // the memory's pinned system prompt leads ctx.messages
    tools: { book: tool({ inputSchema: z.object({ place: z.string(), day: z.number() }), execute: async ({ place, day }) => ({ ok: true, place, day }) }) },
    stopWhen: stepCountIs(3),
  });
  assert.equal(result.text, "Booked: 大熊猫基地, Day 2.");
  assert.equal(prompts[0].filter((m) => m.role === "tool").length, 2, "the SDK took both tool messages");
  const added = fromModelMessages(result.response.messages);
  assert.deepEqual(added, [
    { role: "assistant", content: null, tool_calls: [{ id: "call_9", type: "function", function: { name: "book", arguments: '{"place":"大熊猫基地","day":2}' } }] },
    { role: "tool", tool_call_id: "call_9", content: '{"ok":true,"place":"大熊猫基地","day":2}' },
    { role: "assistant", content: "Booked: 大熊猫基地, Day 2." },
  ]);
  for (const m of added) await memory.add(m);
  const after = await memory.buildContext({ maxTokens: 4000 });
  assert.deepEqual(after.messages.slice(-3), added);
});
