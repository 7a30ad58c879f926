// Scripted model turns for the README's openai-client blocks (quick start,
// memory tools, Responses API), run by tests/js/readme.test.mjs.
import assert from "node:assert/strict";

const lastTool = (body) => body.messages.filter((m) => m.role === "tool").at(-1).content;
const lastOutput = (body) => body.input.filter((i) => i.type === "function_call_output").at(-1).output;

export const blocks = {
  "quick-start": {
    script: [
      { toolCalls: [{ name: "weather", arguments: { city: "成都" } }], usage: { input: 180, output: 20 } },
      ({ body }) => ({
        content: `成都明天${JSON.parse(lastTool(body)).sky === "cloudy" ? "多云" : "?"}，最高 21°C。`,
        usage: { input: 230, output: 16 },
      }),
      { toolCalls: [{ name: "weather", arguments: { city: "重庆" } }], usage: { input: 260, output: 20, cached: 128 } },
      ({ body }) => ({ content: `${JSON.parse(lastTool(body)).city}明天也多云。`, usage: { input: 310, output: 12, cached: 256 } }),
    ],
    check({ api, stdout }) {
      const [first, second, usd] = stdout.trim().split("\n");
      assert.equal(first, "成都明天多云，最高 21°C。");
      assert.equal(second, "重庆明天也多云。");
      assert.ok(Number(usd) > 0);
      // The second question's request carries the first turn whole, tool group included.
      assert.deepEqual(
        api.requests[2].body.messages.map((m) => m.role),
        ["system", "user", "assistant", "tool", "assistant", "user"],
      );
    },
  },
  "memory-tools": {
    script: [
      { toolCalls: [{ name: "remember", arguments: { text: "The user is allergic to peanuts.", key: "allergy" } }] },
      ({ body }) => ({ content: lastTool(body).startsWith("Remembered as ") ? "Noted: no peanuts." : "Failed." }),
      { toolCalls: [{ name: "recall", arguments: { query: "allergic food" } }] },
      ({ body }) => ({
        content: lastTool(body).includes("allergy: The user is allergic to peanuts.") ? "Avoid 宫保鸡丁: it has peanuts." : "No idea.",
      }),
    ],
    check({ stdout }) {
      assert.equal(stdout, "Noted: no peanuts.\nAvoid 宫保鸡丁: it has peanuts.\n");
    },
  },
  responses: {
    script: [
      {
        reasoning: "Check the weather first.",
        toolCalls: [{ name: "weather", arguments: { city: "Chengdu" } }],
        usage: { input: 220, output: 90, reasoning: 64 },
      },
      ({ body }) => ({ content: `Chengdu: ${JSON.parse(lastOutput(body)).sky}, 21°C.`, usage: { input: 330, output: 20, cached: 200 } }),
    ],
    check({ api, stdout }) {
      assert.equal(stdout, "Chengdu: cloudy, 21°C.\n");
      const [first, second] = api.requests.map((r) => r.body);
      assert.equal(first.instructions, "You are a travel assistant.");
      // The reasoning item went back (encrypted) with the call it produced.
      assert.deepEqual(
        second.input.map((i) => i.type ?? "message"),
        ["message", "reasoning", "function_call", "function_call_output"],
      );
      assert.ok(second.input[1].encrypted_content);
    },
  },
};
