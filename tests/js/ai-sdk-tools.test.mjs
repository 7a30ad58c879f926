// memoryTools: the model manages its own memory through the AI SDK, with
// the real ai 7 and @ai-sdk/openai 4 against the fake OpenAI API, beside
// memoryMiddleware: it remembers a fact, recalls it turns later, and a
// forget with an id memory never issued is refused with nothing changed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { generateText, streamText, isStepCount } from "ai";
import { generateText as generateText6, stepCountIs as stepCountIs6 } from "ai6";
import { MockLanguageModelV3 } from "ai6/test";
import { MemoryController } from "../../dist/node.js";
import { memoryTools } from "../../dist/integrations/ai-sdk/ai-sdk.js";
import { setup } from "./ai-sdk-support.mjs";

const lastTool = (body) => body.messages.filter((m) => m.role === "tool").at(-1).content;

test("remember, recall turns later, a refused forget, a real one: through the AI SDK, beside the middleware", async (t) => {
  const s = await setup(t, {
    script: [
      { toolCalls: [{ name: "remember", arguments: { text: "The user is allergic to peanuts.", key: "allergy" } }] },
      ({ body }) => (lastTool(body).startsWith("Remembered as ") ? "Noted: no peanuts." : `Failed: ${lastTool(body)}`),
      "Chengdu in spring: mild, around 20°C.",
      "Try the hot pot and the dan dan noodles.",
      { toolCalls: [{ name: "recall", arguments: { query: "allergic food" } }] },
      ({ body }) =>
        lastTool(body).includes("The user is allergic to peanuts.") ? "Avoid 宫保鸡丁: it has peanuts." : `No idea: ${lastTool(body)}`,
      { toolCalls: [{ name: "forget", arguments: { id: "f-not-ours" } }] },
      ({ body }) => lastTool(body),
    ],
  });
  const tools = memoryTools(s.memory);
  const ask = async (prompt) => (await generateText({ model: s.model, prompt, tools, stopWhen: isStepCount(3) })).text;

  assert.equal(await ask("Remember that I'm allergic to peanuts."), "Noted: no peanuts.");
  const [fact] = await s.memory.facts();
  assert.deepEqual([fact.key, fact.text, fact.source], ["allergy", "The user is allergic to peanuts.", "tool:remember"]);
  assert.equal(await ask("What is Chengdu like in spring?"), "Chengdu in spring: mild, around 20°C.");
  assert.equal(await ask("What should I eat there?"), "Try the hot pot and the dan dan noodles.");
  assert.equal(await ask("Which Sichuan dishes should I avoid?"), "Avoid 宫保鸡丁: it has peanuts.");
  assert.match(await ask("Forget f-not-ours."), /^Error: refused: "f-not-ours" is not the id of an item remembered in this memory/);
  assert.equal((await s.memory.facts()).length, 1, "nothing forgotten");
  // The model saw the tools as memory defines them, counted in the context.
  const request = s.api.requests[0].body;
  assert.deepEqual(
    request.tools.map((t) => [t.function.name, t.function.parameters]),
    s.memory.toolDefinitions().map((d) => [d.function.name, d.function.parameters]),
  );
  assert.deepEqual(s.api.rejected(), []);

  // The fact's own id works; the app's code can forget with it too.
  assert.equal(await tools.forget.execute({ id: fact.id }), `Forgot ${fact.id} (1 stored item).`);
  assert.deepEqual(await s.memory.facts(), []);
});

test("the model's mistakes come back as text it can act on; the app's as MemoryErrors", async () => {
  const memory = await MemoryController.create({ model: "gpt-4o" });
  const tools = memoryTools(memory);
  assert.match(await tools.remember.execute({ txt: "x" }), /^Error: .*Nothing was changed\.$/);
  assert.match(await tools.recall.execute(null), /^Error: /);
  await assert.rejects(memoryTools(memory, { recallTokens: 10 }).recall.execute({ query: "x" }), {
    name: "MemoryError",
    code: "INVALID_INPUT",
  });
  assert.throws(() => memoryTools({}), { name: "MemoryError", code: "INVALID_INPUT" });
  assert.throws(() => memoryTools(memory, { recall: 5 }), { name: "MemoryError", code: "INVALID_INPUT" });
  // A recall within a smaller budget.
  await memory.remember({ text: "Likes window seats.", key: "seat" });
  assert.match(await memoryTools(memory, { recallTokens: 100 }).recall.execute({ query: "seats" }), /Likes window seats\./);
});

test("streamText and ai 6 take the same tool set", async (t) => {
  const s = await setup(t, {
    script: [{ toolCalls: [{ name: "remember", arguments: { text: "Home city: Chengdu.", key: "home" } }] }, "Saved."],
  });
  assert.equal(
    await streamText({ model: s.model, prompt: "I live in Chengdu.", tools: memoryTools(s.memory), stopWhen: isStepCount(2) }).text,
    "Saved.",
  );
  assert.equal((await s.memory.facts())[0].text, "Home city: Chengdu.");

  const memory = await MemoryController.create({ model: "gpt-4o" });
  let step = 0;
  const seen = [];
  const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 1, text: 1, reasoning: undefined },
  };
  const model = new MockLanguageModelV3({
    doGenerate: async (options) => {
      seen.push(options.tools.map((x) => x.name));
      if (step++ === 0)
        return {
          content: [{ type: "tool-call", toolCallId: "c1", toolName: "remember", input: '{"text":"Prefers trains.","kind":"preference"}' }],
          finishReason: { unified: "tool-calls", raw: "tool_calls" },
          usage,
          warnings: [],
        };
      return { content: [{ type: "text", text: "ok" }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] };
    },
  });
  await generateText6({ model, prompt: "I prefer trains.", tools: memoryTools(memory), stopWhen: stepCountIs6(2) });
  assert.deepEqual(seen[0], ["remember", "recall", "forget"]);
  assert.deepEqual(
    (await memory.facts()).map((f) => [f.kind, f.text]),
    [["preference", "Prefers trains."]],
  );
});
