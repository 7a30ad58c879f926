// The cost of one model call's context at 1k, 10k and 100k held messages:
// ours (add what arrived since the last call, with any compaction it
// triggers, then `buildContext`) vs LangChain.js `trimMessages` with an
// exact counter (tiktoken) and with an approximate one, on the same budget.
//
//   node bench/context.mjs                       (all sizes; takes minutes)
//   BENCH_CONTEXT_SIZES=1000,10000 node bench/context.mjs
//
// History: bench/history.mjs (user / assistant turns and tool-call groups
// from the corpus). For each size N, everyone first holds the first N
// messages (ours: added one by one, compacting as it goes; LangChain: the
// messages converted and counted once into the counter's memo); that
// set-up is timed and reported on its own. Then the conversation goes on:
// a model call happens after each user message and after each tool-result
// group, and one call's cost is everything done since the previous call:
// ours adds the new messages (compacting into episodes when working memory
// passes its threshold: those calls are the slow ones, all counted) and
// builds the context with the latest user message as the query;
// LangChain converts and appends the new messages and trims the whole list
// (strategy "last", includeSystem, startOn "human"). Both counters are
// memoized per message id (their most favourable set-up: trimMessages
// re-counts the kept list once per candidate cut). The exact counter is our
// chat rule over tiktoken's o200k `encode_ordinary`; the approximate one is
// LangChain's `count_tokens_approximately` rule (characters / 4, + 3 per
// message; role, content, tool calls, tool_call_id). Outputs are recounted
// with the exact rule and compared at the same call.

import { AIMessage, HumanMessage, SystemMessage, ToolMessage, trimMessages } from "@langchain/core/messages";
import { MemoryController } from "../dist/node.js";
import { REPLY_PRIMING, exactTokens, exactTotal } from "./chat-tokens.mjs";
import { history } from "./history.mjs";
import { fixed, int, isMain, median, table, verdict } from "./lib.mjs";

const SIZES = (process.env.BENCH_CONTEXT_SIZES ?? "1000,10000,100000").split(",").map(Number);
const BUDGET = 4000;
const OUR_CALLS = Number(process.env.BENCH_RUNS) || 200;
const LC_SECONDS = 20; // LangChain: calls are timed until this much time has passed (at least one call)
const TARGET = 20;

// langchain_core.messages.utils.count_tokens_approximately, per message.
function approxTokens(m) {
  let chars = m.role.length + (typeof m.content === "string" ? m.content.length : 0);
  if (m.tool_calls?.length) chars += JSON.stringify(m.tool_calls).length;
  if (m.tool_call_id) chars += m.tool_call_id.length;
  return Math.ceil(chars / 4) + 3;
}

function toLangChain(m, i) {
  const id = `m${i}`;
  if (m.role === "system") return new SystemMessage({ id, content: m.content });
  if (m.role === "user") return new HumanMessage({ id, content: m.content });
  if (m.role === "tool") return new ToolMessage({ id, content: m.content, tool_call_id: m.tool_call_id });
  const tool_calls = (m.tool_calls ?? []).map((c) => ({
    id: c.id,
    name: c.function.name,
    args: JSON.parse(c.function.arguments),
    type: "tool_call",
  }));
  return new AIMessage({ id, content: m.content ?? "", tool_calls });
}

const ROLE = { system: "system", human: "user", ai: "assistant", tool: "tool" };
function fromLangChain(m) {
  const out = { role: ROLE[m.getType()], content: m.content };
  if (m.tool_call_id) out.tool_call_id = m.tool_call_id;
  if (m.tool_calls?.length) {
    out.tool_calls = m.tool_calls.map((c) => ({
      id: c.id,
      type: "function",
      function: { name: c.name, arguments: JSON.stringify(c.args) },
    }));
  }
  return out;
}

/** The first N messages (extended to the end of an exchange) and the calls after them. */
function split(msgs, n) {
  let start = n;
  while (start < msgs.length && msgs[start].role !== "user") start++;
  const calls = [];
  let group = [];
  for (let i = start; i < msgs.length; i++) {
    group.push(i);
    const m = msgs[i];
    if (m.role === "user" || (m.role === "tool" && msgs[i + 1]?.role !== "tool")) {
      calls.push(group);
      group = [];
    }
  }
  return { start, calls };
}

async function ours(msgs, start, calls) {
  const memory = await MemoryController.create({ model: "gpt-4o", workingMemory: { maxTokens: BUDGET } });
  const index = new Map(); // our message id → history index
  const t0 = performance.now();
  for (let i = 0; i < start; i++) index.set((await memory.add(msgs[i])).id, i);
  const setupMs = performance.now() - t0;
  const setupEpisodes = memory.stats().episodes;
  const ms = [];
  const outputs = [];
  let query = "";
  for (const group of calls.slice(0, OUR_CALLS)) {
    const t = performance.now();
    for (const i of group) {
      index.set((await memory.add(msgs[i])).id, i);
      if (msgs[i].role === "user") query = msgs[i].content;
    }
    const ctx = await memory.buildContext({ maxTokens: BUDGET, query });
    ms.push(performance.now() - t);
    outputs.push(ctx);
  }
  const episodes = memory.stats().episodes - setupEpisodes;
  return { setupMs, setupEpisodes, ms, outputs, episodes, index };
}

async function langChain(msgs, start, calls, perMessage) {
  const memo = new Map();
  const stats = { counterCalls: 0 };
  const tokenCounter = (list) => {
    stats.counterCalls += 1;
    let n = REPLY_PRIMING;
    for (const m of list) {
      let t = memo.get(m.id);
      if (t === undefined) memo.set(m.id, (t = perMessage(fromLangChain(m))));
      n += t;
    }
    return n;
  };
  const t0 = performance.now();
  const list = msgs.slice(0, start).map(toLangChain);
  tokenCounter(list);
  const setupMs = performance.now() - t0;
  const options = { maxTokens: BUDGET, strategy: "last", includeSystem: true, startOn: "human", tokenCounter };
  const ms = [];
  const outputs = [];
  stats.counterCalls = 0;
  for (const group of calls) {
    const t = performance.now();
    for (const i of group) list.push(toLangChain(msgs[i], i));
    const out = await trimMessages(list, options);
    ms.push(performance.now() - t);
    outputs.push({ messages: out.map(fromLangChain), ids: out.map((m) => Number(m.id.slice(1))) });
    if (ms.reduce((a, b) => a + b, 0) > LC_SECONDS * 1000 || ms.length >= OUR_CALLS) break;
  }
  return { setupMs, ms, outputs, counterCalls: stats.counterCalls / ms.length };
}

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

export async function measure() {
  const sizes = [];
  for (const n of SIZES) {
    const msgs = history(n + 4 * OUR_CALLS);
    const { start, calls } = split(msgs, n);
    const o = await ours(msgs, start, calls);
    const exact = await langChain(msgs, start, calls, exactTokens);
    const approx = await langChain(msgs, start, calls, approxTokens);
    sizes.push({ n: start, o, exact, approx });
  }
  return { sizes };
}

/** What ours put in at call k, in history terms. */
function ourOutput(o, k) {
  const ctx = o.outputs[k];
  const recent = ctx.sections.recent.messageIds.map((id) => o.index.get(id));
  return { ctx, recent, tokens: exactTotal(ctx.messages) };
}

export function report({ sizes }) {
  const out = ["## Context per model call: ours vs LangChain `trimMessages`", ""];
  out.push(
    `Budget ${BUDGET} tokens, o200k_base, history from bench/history.mjs. One call's cost = add the messages that arrived since ` +
      `the previous call (ours: with the compaction into episodes that this triggers) + build the context (ours: \`buildContext\` ` +
      `with the latest user message as query; LangChain: append, then \`trimMessages\` over the whole list, counters memoized per message). ` +
      `Ours: ${OUR_CALLS} consecutive calls; LangChain: consecutive calls until ${LC_SECONDS} s had passed (the "calls" column). ` +
      `"Held messages" is the history when the timed calls start (each call adds 1–4). ` +
      `The mean charges every compaction; ratio = LangChain mean / ours mean (target: ours ≥ ${TARGET}× faster than the exact counter at 10,000).`,
    "",
  );
  const rows = [];
  const notes = [];
  let worst = Infinity;
  for (const { n, o, exact, approx } of sizes) {
    const slow = o.ms.filter((x) => x > 3 * median(o.ms)).length;
    rows.push([
      `${int(n)}`,
      "agent-memory add + `buildContext`",
      int(o.ms.length),
      fixed(median(o.ms), 3),
      fixed(mean(o.ms), 3),
      fixed(Math.max(...o.ms), 1),
      "—",
    ]);
    for (const [label, lc] of [
      ["LangChain `trimMessages`, exact (tiktoken)", exact],
      ["LangChain `trimMessages`, approximate (chars / 4)", approx],
    ]) {
      const ratio = mean(lc.ms) / mean(o.ms);
      if (lc === exact) worst = Math.min(worst, ratio);
      rows.push([
        `${int(n)}`,
        label,
        int(lc.ms.length),
        fixed(median(lc.ms), 3),
        fixed(mean(lc.ms), 3),
        fixed(Math.max(...lc.ms), 1),
        `${fixed(ratio, 0)}×`,
      ]);
    }
    // Outputs at the last call LangChain made (ours made it too).
    const k = Math.min(exact.ms.length, approx.ms.length, o.outputs.length) - 1;
    const mine = ourOutput(o, k);
    const s = mine.ctx.sections;
    const lastIndex = mine.recent.at(-1);
    const oldestMine = Math.min(...mine.recent);
    const describe = (lc) => {
      const kept = lc.outputs[k].ids.filter((i) => i > 0);
      const tokens = exactTotal(lc.outputs[k].messages);
      const sameEnd = kept.at(-1) === lastIndex;
      const inside = mine.recent.every((i) => kept.includes(i));
      return { kept, tokens, sameEnd, inside };
    };
    const e = describe(exact);
    const a = describe(approx);
    notes.push(
      `- ${int(n)} messages, outputs at call ${k + 1}: ours ${int(mine.ctx.messages.length)} messages, ${int(mine.ctx.tokens)} tokens ` +
        `(recounted ${int(mine.tokens)}): the system prompt, ${int(s.summary.episodeIds.length)} episode summaries ` +
        `(${int(s.summary.tokens)} tokens, picked from the episodes of the ${int(s.summary.hiddenMessages)} messages not shown), ` +
        `${s.preferences ? `preferences (${int(s.preferences)} tokens), ` : ""}${s.knowledge.tokens ? `knowledge (${int(s.knowledge.tokens)} tokens), ` : ""}` +
        `and the newest ${int(mine.recent.length)} messages (${int(s.recent.tokens)} tokens, from #${int(oldestMine)}). ` +
        `LangChain exact: the system prompt and the newest ${int(e.kept.length)} messages, ${int(e.tokens)} tokens ` +
        `(${e.tokens <= BUDGET ? "within" : "**over**"} the budget); approximate: ${int(a.kept.length)} messages, ${int(a.tokens)} tokens counted exactly ` +
        `(${a.tokens <= BUDGET ? "within" : `**over** the budget by ${int(a.tokens - BUDGET)}`}). ` +
        `Same newest message: ${e.sameEnd && a.sameEnd ? "yes" : "**no**"}; ours' recent messages all in LangChain's exact output: ${e.inside ? "yes" : "**no**"}. ` +
        `LangChain drops everything older; ours summarizes it.`,
    );
    notes.push(
      `- ${int(n)} messages, set-up (not in the per-call figures): ours added them in ${fixed(o.setupMs / 1000, 2)} s ` +
        `(${int(n / (o.setupMs / 1000))} messages/s, ${int(o.setupEpisodes)} compactions); LangChain converted and counted them in ` +
        `${fixed(exact.setupMs / 1000, 2)} s (tiktoken) / ${fixed(approx.setupMs / 1000, 2)} s (approximate). ` +
        `During ours' ${int(o.ms.length)} timed calls: ${int(o.episodes)} compactions, ${int(slow)} calls over 3× the median. ` +
        `LangChain invoked the counter ${int(exact.counterCalls)} times per trim (once per candidate cut, each over the whole kept list).`,
    );
  }
  out.push(table(["held messages", "", "calls", "median ms / call", "mean ms / call", "max ms", "ratio (mean)"], rows, 2), "");
  const at10k = sizes.find((s) => s.n >= 10_000 && s.n < 20_000);
  if (at10k) {
    const r = mean(at10k.exact.ms) / mean(at10k.o.ms);
    out.push(
      `Context per call at 10,000 held messages, ours vs LangChain trimMessages with the exact counter: ${fixed(r, 0)}× faster; ` +
        `target ≥ ${TARGET}×: ${verdict(r >= TARGET)} (smallest ratio over all sizes: ${fixed(worst, 0)}×).`,
      "",
    );
  }
  out.push(...notes);
  return out.join("\n");
}

if (isMain(import.meta.url)) {
  console.log(report(await measure()));
}
