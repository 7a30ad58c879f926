// What memoryMiddleware adds to an AI SDK call: generateText on ai 7's mock
// model (no network, an instant answer), wrapped in memoryMiddleware, over a
// controller that already holds 100, 1,000 or 10,000 messages
// (bench/history.mjs), next to the same controller driven by hand (add the
// turn, buildContext, add the answer, recordUsage) and to the bare call.
//
//   node bench/ai-sdk.mjs            (BENCH_RUNS=n for more calls)
//
// Two ways of calling: only the new turn, and the whole conversation every
// turn (a useChat route), where the middleware recognises the 10,000 held
// messages before storing the new one. The table shows the median per call.

import { generateText, wrapLanguageModel } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { MemoryController } from "../dist/node.js";
import { memoryMiddleware, toModelMessages } from "../dist/ai-sdk.js";
import { history } from "./history.mjs";
import { fixed, int, isMain, median, table, timeRuns } from "./lib.mjs";

const RUNS = Math.max(10, Number(process.env.BENCH_RUNS) || 15);
const SIZES = [100, 1_000, 10_000];
const usage = { inputTokens: { total: 1000, noCache: 1000, cacheRead: 0, cacheWrite: undefined }, outputTokens: { total: 20, text: 20, reasoning: undefined } };
const mock = () => new MockLanguageModelV4({ doGenerate: async () => ({ content: [{ type: "text", text: "Noted." }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] }) });

async function filled(n) {
  const memory = await MemoryController.create({ model: "gpt-4o", workingMemory: { maxTokens: 4000 } });
  for (const m of history(n)) await memory.add(m);
  return memory;
}

export async function run() {
  const rows = [];
  for (const n of SIZES) {
    const memory = await filled(n);
    const model = wrapLanguageModel({ model: mock(), middleware: memoryMiddleware(memory) });
    let i = 0;
    const turn = () => ({ role: "user", content: `Question ${i++}: what did we decide about the budget?` });
    const bare = median(await timeRuns(() => generateText({ model: mock(), messages: [turn()] }), { runs: RUNS }));
    const byHand = median(await timeRuns(async () => {
      const t = turn();
      await memory.add(t);
      const ctx = await memory.buildContext({ maxTokens: 128_000, reserveOutput: 16_384, query: t.content });
      const r = await generateText({ model: mock(), ...toModelMessages(ctx.messages) });
      await memory.add({ role: "assistant", content: r.text });
      await memory.recordUsage({ ...r.usage, model: "gpt-4o" });
    }, { runs: RUNS }));
    const newTurn = median(await timeRuns(() => generateText({ model, messages: [turn()] }), { runs: RUNS }));
    // The whole conversation every turn, as the client keeps it.
    const conversation = toModelMessages((await memory.history()).map((h) => h.message)).messages;
    const whole = median(await timeRuns(async () => {
      conversation.push(turn());
      const r = await generateText({ model, messages: conversation });
      conversation.push({ role: "assistant", content: [{ type: "text", text: r.text }] });
    }, { runs: RUNS }));
    const total = memory.stats().messages.total;
    rows.push([int(n), int(total), fixed(bare, 2), fixed(byHand, 2), fixed(newTurn, 2), fixed(whole, 2)]);
  }
  return [
    "## memoryMiddleware: time per AI SDK call",
    "",
    `generateText on ai 7's mock model (an instant answer), median of ${RUNS} calls per cell, in ms. "by hand": the same memory work`,
    "written out (add, buildContext, add, recordUsage); \"new turn\" / \"whole conversation\": through memoryMiddleware, which also",
    "reads the history to recognise what it holds (every call passes the whole conversation in the last column).",
    "",
    table(["messages held", "after the runs", "bare call", "by hand", "new turn", "whole conversation"], rows, 1),
  ].join("\n");
}

if (isMain(import.meta.url)) console.log(await run());
