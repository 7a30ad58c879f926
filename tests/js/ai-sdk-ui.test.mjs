// useChat's UIMessages ↔ memory (toUIMessages, fromUIMessages), checked
// against ai 7 itself: what toUIMessages writes passes validateUIMessages
// and comes back through convertToModelMessages as the conversation memory
// holds; fromUIMessages reads every part and tool state as
// convertToModelMessages does.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { convertToModelMessages, validateUIMessages } from "ai";
import { MemoryController } from "../../dist/node.js";
import { fromModelMessages, fromUIMessages, toUIMessages } from "../../dist/integrations/ai-sdk/ai-sdk.js";

const { png: PNG, pdf: PDF, wav: WAV } = JSON.parse(readFileSync(new URL("../fixtures/media.json", import.meta.url), "utf8"));

// A conversation as memory holds it: a pinned system prompt, media, a turn
// with reasoning and two steps of tool calls, a refusal, a call still waiting.
const held = () => [
  { role: "system", content: "Be brief." },
  {
    role: "user",
    content: [
      { type: "text", text: "这张照片和行程单里有什么？" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
      { type: "image_url", image_url: { url: "https://example.com/chengdu.jpg" } },
      { type: "file", file: { file_data: `data:application/pdf;base64,${PDF}`, filename: "itinerary.pdf" } },
      { type: "input_audio", input_audio: { data: WAV, format: "wav" } },
    ],
  },
  {
    role: "assistant",
    content: "Let me look.",
    reasoning_content: "Read the PDF first.",
    tool_calls: [{ id: "c1", type: "function", function: { name: "ocr", arguments: '{"page":1}' } }],
  },
  { role: "tool", tool_call_id: "c1", content: '["Day 1: 宽窄巷子"]' },
  {
    role: "assistant",
    content: null,
    tool_calls: [
      { id: "c2", type: "function", function: { name: "weather", arguments: '{"city":"成都"}' } },
      { id: "c3", type: "function", function: { name: "weather", arguments: '{"city":"重庆"}' } },
    ],
  },
  { role: "tool", tool_call_id: "c2", content: "21°C" },
  { role: "tool", tool_call_id: "c3", content: '{"error":"timeout"}' },
  { role: "assistant", content: "Day 1 is 宽窄巷子; 成都 21°C." },
  { role: "user", content: "Say something rude." },
  { role: "assistant", content: null, refusal: "I can't help with that." },
  { role: "user", content: "Then book it." },
  { role: "assistant", content: null, tool_calls: [{ id: "c4", type: "function", function: { name: "book", arguments: '{"day":1}' } }] },
];

test("toUIMessages: ai 7 validates it, and convertToModelMessages gives back what memory holds", async () => {
  const memory = await MemoryController.create({ model: "gpt-4o" });
  for (const m of held()) await memory.add(m);
  const history = await memory.history();
  const ui = toUIMessages(history);
  await validateUIMessages({ messages: ui });
  assert.deepEqual(
    ui.map((m) => [m.id, m.role]),
    [
      [history[1].id, "user"],
      [history[2].id, "assistant"],
      [history[8].id, "user"],
      [history[9].id, "assistant"],
      [history[10].id, "user"],
      [history[11].id, "assistant"],
    ],
    "system left out; one UIMessage per user turn and per assistant turn",
  );
  assert.deepEqual(
    ui[1].parts.map((p) => p.type),
    ["step-start", "reasoning", "text", "tool-ocr", "step-start", "tool-weather", "tool-weather", "step-start", "text"],
  );
  assert.deepEqual(ui[1].parts[3], {
    type: "tool-ocr",
    toolCallId: "c1",
    state: "output-available",
    input: { page: 1 },
    output: ["Day 1: 宽窄巷子"],
  });
  assert.deepEqual(ui[1].parts[5].output, "21°C", "text results stay text");
  assert.equal(ui[5].parts[1].state, "input-available", "a call still waiting");
  // Back through the SDK's own conversion: the pending call aside (the SDK sends it, memory holds it open), the same turns.
  const back = fromModelMessages(await convertToModelMessages(ui));
  assert.deepEqual(
    back,
    held()
      .slice(1)
      .map((m) => (m.refusal ? { role: "assistant", content: m.refusal } : m)),
  );
  // The same from plain chat messages (ids made up).
  assert.deepEqual(
    toUIMessages(held()).map((m) => m.id),
    ["msg-1", "msg-2", "msg-8", "msg-9", "msg-10", "msg-11"],
  );
});

// Every part and tool state a useChat client writes.
const uiConversation = () => [
  {
    id: "s",
    role: "system",
    parts: [
      { type: "text", text: "Be " },
      { type: "text", text: "brief." },
    ],
  },
  {
    id: "u1",
    role: "user",
    parts: [
      { type: "text", text: "Look at these." },
      { type: "file", mediaType: "image/png", url: `data:image/png;base64,${PNG}` },
      { type: "file", mediaType: "image/jpeg", url: "https://example.com/a.jpg", filename: "a.jpg" },
      { type: "file", mediaType: "application/pdf", url: `data:application/pdf;base64,${PDF}`, filename: "plan.pdf" },
      { type: "file", mediaType: "application/pdf", url: "https://files/x", providerReference: { openai: "file-xyz" } },
      { type: "data-note", data: { anything: 1 } },
    ],
  },
  {
    id: "a1",
    role: "assistant",
    parts: [
      { type: "step-start" },
      { type: "reasoning", text: "Several tools.", state: "done" },
      { type: "text", text: "Checking", state: "done" },
      { type: "text", text: " now.", state: "done" },
      { type: "tool-weather", toolCallId: "w1", state: "output-available", input: { city: "Paris" }, output: { sky: "sunny" } },
      { type: "tool-weather", toolCallId: "w2", state: "output-error", input: { city: "Nowhere" }, errorText: "no such city" },
      { type: "dynamic-tool", toolName: "mcp_lookup", toolCallId: "d1", state: "output-available", input: { q: "x" }, output: "found x" },
      {
        type: "tool-book",
        toolCallId: "b1",
        state: "output-denied",
        input: { day: 1 },
        approval: { id: "ap1", approved: false, reason: "not now" },
      },
      { type: "tool-web_search", toolCallId: "ws", state: "output-available", input: {}, output: {}, providerExecuted: true },
      { type: "tool-weather", toolCallId: "w3", state: "input-streaming", input: { city: "Ro" } },
      { type: "source-url", sourceId: "src", url: "https://weather.example" },
      { type: "step-start" },
      { type: "text", text: "Paris is sunny.", state: "done" },
      { type: "steering-message", id: "st", parts: [{ type: "text", text: "Also Rome?" }] },
      { type: "tool-weather", toolCallId: "w4", state: "output-available", input: { city: "Rome" }, output: "rain" },
      { type: "step-start" },
      { type: "text", text: "Rome: rain.", state: "done" },
    ],
  },
  { id: "u2", role: "user", parts: [{ type: "text", text: "Thanks" }] },
];

test("fromUIMessages reads every part and tool state as convertToModelMessages does", async () => {
  const ui = uiConversation();
  await validateUIMessages({ messages: ui });
  const viaSdk = fromModelMessages(await convertToModelMessages(ui));
  assert.deepEqual(fromUIMessages(ui), viaSdk);
  assert.deepEqual(viaSdk.slice(0, 1), [{ role: "system", content: "Be brief." }]);
  assert.deepEqual(
    viaSdk[1].content.map((p) => p.type),
    ["text", "image_url", "image_url", "file", "file"],
    "data parts left out",
  );
  assert.deepEqual(viaSdk[2], {
    role: "assistant",
    content: "Checking now.",
    reasoning_content: "Several tools.",
    tool_calls: [
      { id: "w1", type: "function", function: { name: "weather", arguments: '{"city":"Paris"}' } },
      { id: "w2", type: "function", function: { name: "weather", arguments: '{"city":"Nowhere"}' } },
      { id: "d1", type: "function", function: { name: "mcp_lookup", arguments: '{"q":"x"}' } },
      { id: "b1", type: "function", function: { name: "book", arguments: '{"day":1}' } },
    ],
  });
  assert.deepEqual(
    viaSdk.slice(3, 7).map((m) => m.content),
    ['{"sky":"sunny"}', '{"error":"no such city"}', "found x", '{"error":"not now"}'],
  );
  assert.deepEqual(
    viaSdk.slice(7).map((m) => m.content ?? m.tool_calls),
    [
      "Paris is sunny.",
      "Also Rome?",
      [{ id: "w4", type: "function", function: { name: "weather", arguments: '{"city":"Rome"}' } }],
      "rain",
      "Rome: rain.",
      "Thanks",
    ],
  );
  // Stored as they come: memory takes the whole imported chat.
  const memory = await MemoryController.create({ model: "gpt-4o" });
  for (const m of fromUIMessages(ui)) await memory.add(m);
  assert.equal((await memory.history()).length, viaSdk.length);
});

test("errors name what is wrong", () => {
  const expectError = (f, code) => assert.throws(f, (e) => e.name === "MemoryError" && e.code === code);
  expectError(() => toUIMessages("x"), "INVALID_INPUT");
  expectError(() => toUIMessages([null]), "INVALID_INPUT");
  expectError(() => toUIMessages([{ role: "robot", content: "x" }]), "INVALID_ROLE");
  expectError(() => toUIMessages([{ role: "tool", tool_call_id: "x", content: "y" }]), "TOOL_RESULT_WITHOUT_CALL");
  expectError(() => toUIMessages([{ role: "user", content: [{ type: "video", url: "x" }] }]), "INVALID_CONTENT");
  expectError(() => fromUIMessages({}), "INVALID_INPUT");
  expectError(() => fromUIMessages([{ role: "user" }]), "INVALID_INPUT");
  expectError(() => fromUIMessages([{ role: "tool", parts: [] }]), "INVALID_ROLE");
  expectError(
    () => fromUIMessages([{ role: "user", parts: [{ type: "file", url: "https://x/a.pdf", mediaType: "application/pdf" }] }]),
    "INVALID_CONTENT",
  );
});
