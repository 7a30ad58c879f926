// What memoryMiddleware adds to an AI SDK call: generateText on ai 7's mock
// model (no network, an instant answer), wrapped in memoryMiddleware, over a
// controller that already holds 1,000, 10,000 or 100,000 messages
// (bench/history.mjs), next to the same controller driven by hand (add the
// turn, buildContext, add the answer, recordUsage) and to the bare call.
//
//   node bench/ai-sdk.mjs            (BENCH_RUNS=n for more calls)
//   BENCH_AI_SIZES=1000,10000 node bench/ai-sdk.mjs
//
// Two ways of calling: only the new turn, and the whole conversation every
// turn (a useChat route), where the middleware recognises the held
// messages before storing the new one. The table shows the median per call.

import { generateText, wrapLanguageModel } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { MemoryController } from "../dist/node.js";
import { fromModelMessages, memoryMiddleware, toModelMessages } from "../dist/integrations/ai-sdk/ai-sdk.js";
import { history } from "./history.mjs";
import { fixed, int, isMain, median, table, timeRuns, verdict } from "./lib.mjs";

const RUNS = Math.max(10, Number(process.env.BENCH_RUNS) || 15);
const SIZES = (process.env.BENCH_AI_SIZES ?? "1000,10000,100000").split(",").map(Number);
const usage = {
  inputTokens: { total: 1000, noCache: 1000, cacheRead: 0, cacheWrite: undefined },
  outputTokens: { total: 20, text: 20, reasoning: undefined },
};
const mock = () =>
  new MockLanguageModelV4({
    doGenerate: async () => ({
      content: [{ type: "text", text: "Noted." }],
      finishReason: { unified: "stop", raw: "stop" },
      usage,
      warnings: [],
    }),
  });

async function filled(n) {
  const memory = await MemoryController.create({ model: "gpt-4o", workingMemory: { maxTokens: 4000 } });
  for (const m of history(n)) await memory.add(m);
  return memory;
}

export async function run() {
  const rows = [];
  const figures = [];
  for (const n of SIZES) {
    const memory = await filled(n);
    const model = wrapLanguageModel({ model: mock(), middleware: memoryMiddleware(memory) });
    let i = 0;
    const turn = () => ({ role: "user", content: `Question ${i++}: what did we decide about the budget?` });
    const bare = median(await timeRuns(() => generateText({ model: mock(), messages: [turn()] }), { runs: RUNS }));
    const byHand = median(
      await timeRuns(
        async () => {
          const t = turn();
          await memory.add(t);
          const ctx = await memory.buildContext({ maxTokens: 128_000, reserveOutput: 16_384, query: t.content });
          const r = await generateText({ model: mock(), ...toModelMessages(ctx.messages) });
          await memory.add({ role: "assistant", content: r.text });
          await memory.recordUsage({ ...r.usage, model: "gpt-4o" });
        },
        { runs: RUNS },
      ),
    );
    const newTurn = median(await timeRuns(() => generateText({ model, messages: [turn()] }), { runs: RUNS }));
    // The whole conversation every turn, as the client keeps it.
    const conversation = toModelMessages((await memory.history()).map((h) => h.message)).messages;
    const whole = median(
      await timeRuns(
        async () => {
          conversation.push(turn());
          const r = await generateText({ model, messages: conversation });
          conversation.push({ role: "assistant", content: [{ type: "text", text: r.text }] });
        },
        { runs: RUNS },
      ),
    );
    // The AI SDK's own work on that conversation: the bare call with it.
    const bareWhole = median(await timeRuns(() => generateText({ model: mock(), messages: conversation }), { runs: RUNS }));
    // What the issue allows a route that passes it all: converting every message.
    const convert = median(await timeRuns(() => fromModelMessages(conversation), { runs: RUNS }));
    const total = memory.stats().messages.total;
    rows.push([
      int(n),
      int(total),
      fixed(bare, 2),
      fixed(byHand, 2),
      fixed(newTurn, 2),
      fixed(whole, 2),
      fixed(bareWhole, 2),
      fixed(convert, 2),
      `${fixed(newTurn / byHand, 1)}×`,
      `${fixed(whole / byHand, 1)}×`,
    ]);
    figures.push({ n, byHand, newTurn, whole, bareWhole, convert });
  }
  const [small, big] = [figures[0], figures.at(-1)];
  const growth = big.newTurn / small.newTurn;
  const wholeGrowth = big.whole / small.whole;
  // The whole conversation: our work is what the middleware adds to the bare
  // call with it; beyond converting every message passed, it should be a new turn's.
  const added = big.whole - big.bareWhole;
  const overHand = Math.max(big.newTurn / big.byHand, added / big.byHand);
  const beyondConverting = Math.max(big.newTurn / big.byHand, (added - big.convert) / big.byHand);
  return [
    "## memoryMiddleware: time per AI SDK call",
    "",
    `generateText on ai 7's mock model (an instant answer), median of ${RUNS} calls per cell, in ms. "by hand": the same memory work`,
    'written out (add, buildContext, add, recordUsage); "new turn" / "whole conversation": through memoryMiddleware, which also',
    'recognises what it holds by the newest held messages (every call passes the whole conversation in the "whole conversation" column).',
    "",
    table(
      [
        "messages held",
        "after the runs",
        "bare call",
        "by hand",
        "new turn",
        "whole conversation",
        "bare call, whole conversation",
        "converting it (fromModelMessages)",
        "new turn / by hand",
        "whole / by hand",
      ],
      rows,
      1,
    ),
    "",
    `- New turn at ${int(big.n)} / at ${int(small.n)}: ${fixed(growth, 1)}× (target ≤ 2×): ${verdict(growth <= 2)}; whole conversation: ${fixed(wholeGrowth, 1)}× (it converts every message passed)`,
    `- Middleware / by hand at ${int(big.n)}: ${fixed(overHand, 1)}× at most (the whole conversation less the bare call with it; target ≤ 2×): ${verdict(overHand <= 2)}`,
    `- The same less converting the ${int(big.n)} messages passed (the issue allows a route that passes them all to pay for converting them, and nothing else per message): ${fixed(beyondConverting, 1)}× (target ≤ 2×): ${verdict(beyondConverting <= 2)}`,
  ].join("\n");
}

if (isMain(import.meta.url)) console.log(await run());
