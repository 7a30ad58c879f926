// Scripted model turns for the README's AI SDK blocks (the useChat route,
// memory tools), run by tests/js/readme.test.mjs with the real `ai` and
// `@ai-sdk/openai` against the fake OpenAI server.
import assert from "node:assert/strict";

// `openai(id)` is @ai-sdk/openai's Responses API: the conversation is `input` items.
const text = (c) => (typeof c === "string" ? c : c.map((p) => p.text).join(""));
const turns = (body) => body.input.filter((i) => i.role).map((i) => [i.role, text(i.content)]);
const lastTool = (body) => body.input.filter((i) => i.type === "function_call_output").at(-1).output;

export const blocks = {
  "ai-sdk-route": {
    script: [
      "Noted: no peanuts for you.",
      ({ body }) =>
        turns(body).some(([role, t]) => role === "assistant" && t === "Noted: no peanuts for you.")
          ? "Try 担担面 without the peanut topping."
          : "?",
    ],
    check({ api, stdout }) {
      assert.equal(stdout, "user assistant user assistant\n", "each turn stored once");
      const [first, second] = api.requests.map((r) => r.body);
      assert.equal(first.stream, true);
      // The second turn's request: the instructions, then memory's conversation, each turn once.
      assert.deepEqual(turns(second), [
        ["system", "You are a travel assistant."],
        ["user", "I'm allergic to peanuts."],
        ["assistant", "Noted: no peanuts for you."],
        ["user", "What should I eat in Chengdu?"],
      ]);
    },
  },
  "ai-sdk-tools": {
    script: [
      { toolCalls: [{ name: "remember", arguments: { text: "The user is allergic to peanuts.", key: "allergy" } }] },
      ({ body }) => (lastTool(body).startsWith("Remembered as ") ? "Noted: no peanuts." : "Failed."),
      { toolCalls: [{ name: "recall", arguments: { query: "allergic food" } }] },
      ({ body }) => (lastTool(body).includes("The user is allergic to peanuts.") ? "Avoid 宫保鸡丁: it has peanuts." : "No idea."),
    ],
    check({ stdout }) {
      assert.equal(stdout, "Noted: no peanuts.\nAvoid 宫保鸡丁: it has peanuts.\n[ 'The user is allergic to peanuts.' ]\n");
    },
  },
};
