// Building the prompt from a 10,000-message history within 4,000 tokens:
// ours (`buildContext`) vs LangChain.js `trimMessages` with an exact counter.
//
//   node bench/context.mjs           (BENCH_RUNS=50 for more calls)
//
// Both get the same history (bench/history.mjs) and budget. Ours: a gpt-4o
// controller with workingMemory.maxTokens 4000 that has been given every
// message (adding is timed separately); older turns are compacted into
// episodes as they arrive. LangChain: strategy "last", includeSystem,
// startOn "human", and a token counter that applies our per-message rule
// with gpt-tokenizer's o200k `countTokens`, memoized per message id (its
// most favourable set-up: trimMessages re-counts the kept prefix once per
// candidate cut, so an un-memoized counter re-counts messages thousands of
// times per call). Each call is timed; the table shows the median per call.

import { AIMessage, HumanMessage, SystemMessage, ToolMessage, trimMessages } from "@langchain/core/messages";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { MemoryController } from "../dist/node.js";
import { history } from "./history.mjs";
import { fixed, int, isMain, median, table, verdict } from "./lib.mjs";

const RUNS = Math.max(20, Number(process.env.BENCH_RUNS) || 30);
const MESSAGES = 10_000;
const BUDGET = 4000;
const TARGET = 20;

// Our chat rule (src/tokens/chat.rs): 3 per message + role + content,
// 3 + id + name + arguments per tool call, the tool_call_id, 3 to prime the reply.
const count = (s) => (s ? countTokens(s, { disallowedSpecial: new Set() }) : 0);
function openaiTokens(m) {
  let n = 3 + count(m.role) + count(typeof m.content === "string" ? m.content : "");
  if (m.tool_call_id) n += count(m.tool_call_id);
  for (const c of m.tool_calls ?? []) n += 3 + count(c.id) + count(c.function.name) + count(c.function.arguments);
  return n;
}
const REPLY_PRIMING = 3;
const openaiTotal = (msgs) => msgs.reduce((n, m) => n + openaiTokens(m), REPLY_PRIMING);

function toLangChain(m, i) {
  const id = `m${i}`;
  if (m.role === "system") return new SystemMessage({ id, content: m.content });
  if (m.role === "user") return new HumanMessage({ id, content: m.content });
  if (m.role === "tool") return new ToolMessage({ id, content: m.content, tool_call_id: m.tool_call_id });
  const tool_calls = (m.tool_calls ?? []).map((c) => ({ id: c.id, name: c.function.name, args: JSON.parse(c.function.arguments), type: "tool_call" }));
  return new AIMessage({ id, content: m.content ?? "", tool_calls });
}

const ROLE = { system: "system", human: "user", ai: "assistant", tool: "tool" };
function fromLangChain(m) {
  const out = { role: ROLE[m.getType()], content: m.content };
  if (m.tool_call_id) out.tool_call_id = m.tool_call_id;
  if (m.tool_calls?.length) {
    out.tool_calls = m.tool_calls.map((c) => ({ id: c.id, type: "function", function: { name: c.name, arguments: JSON.stringify(c.args) } }));
  }
  return out;
}

function langChainTrimmer(lcMessages) {
  const memo = new Map();
  const stats = { counterCalls: 0 };
  const tokenCounter = (msgs) => {
    stats.counterCalls += 1;
    let n = REPLY_PRIMING;
    for (const m of msgs) {
      let t = memo.get(m.id);
      if (t === undefined) memo.set(m.id, (t = openaiTokens(fromLangChain(m))));
      n += t;
    }
    return n;
  };
  const options = { maxTokens: BUDGET, strategy: "last", includeSystem: true, startOn: "human", tokenCounter };
  return { trim: () => trimMessages(lcMessages, options), stats };
}

/** Reference: a plain loop from the newest message over precomputed counts
 *  (what the trimming itself costs without LangChain's per-cut recount). */
function plainLoop(msgs) {
  const tokens = msgs.map(openaiTokens);
  return () => {
    let used = REPLY_PRIMING + tokens[0];
    let start = msgs.length;
    while (start > 1 && used + tokens[start - 1] <= BUDGET) used += tokens[--start];
    while (start < msgs.length && msgs[start].role !== "user") used -= tokens[start++];
    return [msgs[0], ...msgs.slice(start)];
  };
}

async function timeCalls(fn, runs) {
  let out;
  for (let i = 0; i < 3; i++) out = await fn(); // warm-up
  const ms = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    out = await fn();
    ms.push(performance.now() - t0);
  }
  return { ms, out };
}

export async function measure({ runs = RUNS } = {}) {
  const msgs = history(MESSAGES);
  const memory = await MemoryController.create({ model: "gpt-4o", workingMemory: { maxTokens: BUDGET } });
  const t0 = performance.now();
  for (const m of msgs) await memory.add(m);
  const addMs = performance.now() - t0;

  const ours = await timeCalls(() => memory.buildContext({ maxTokens: BUDGET }), runs);
  const lc = langChainTrimmer(msgs.map(toLangChain));
  const lcFirst = performance.now();
  await lc.trim(); // the first call fills the memo: reported on its own
  const lcFirstMs = performance.now() - lcFirst;
  lc.stats.counterCalls = 0;
  const langchain = await timeCalls(lc.trim, runs);
  const counterCallsPerTrim = lc.stats.counterCalls / (runs + 3);

  const plain = await timeCalls(plainLoop(msgs), runs);

  const ctx = ours.out;
  const lcOut = langchain.out.map(fromLangChain);
  return {
    runs,
    messages: msgs.length,
    addMs,
    stats: memory.stats(),
    ours: { ms: ours.ms, tokens: ctx.tokens, recount: openaiTotal(ctx.messages), messages: ctx.messages.length, sections: ctx.sections },
    langchain: { ms: langchain.ms, firstMs: lcFirstMs, tokens: openaiTotal(lcOut), messages: lcOut.length, counterCallsPerTrim },
    plain: { ms: plain.ms, tokens: openaiTotal(plain.out), messages: plain.out.length },
  };
}

export function report(r) {
  const o = median(r.ours.ms);
  const l = median(r.langchain.ms);
  const out = ["## Building the context from a 10,000-message history", ""];
  out.push(
    `${int(r.messages)} messages (1 system + ${int(r.messages - 1)} user / assistant / tool-call groups from the corpus), ` +
      `budget ${BUDGET} tokens, o200k_base. Median per call over ${r.runs} calls after 3 warm-ups. Ratio = LangChain / ours (target ours ≥ ${TARGET}× faster).`,
    "",
  );
  out.push(table(["", "median ms / call", "messages out", "tokens (own count)", "tokens (recounted)", "within budget"], [
    ["agent-memory `buildContext`", fixed(o, 3), int(r.ours.messages), int(r.ours.tokens), int(r.ours.recount), r.ours.tokens <= BUDGET && r.ours.recount <= BUDGET ? "yes" : "**NO**"],
    ["LangChain `trimMessages` + gpt-tokenizer (memoized)", fixed(l, 3), int(r.langchain.messages), "—", int(r.langchain.tokens), r.langchain.tokens <= BUDGET ? "yes" : "**NO**"],
    ["reference: plain JS loop over precomputed counts", fixed(median(r.plain.ms), 3), int(r.plain.messages), "—", int(r.plain.tokens), r.plain.tokens <= BUDGET ? "yes" : "**NO**"],
  ]), "");
  out.push(`buildContext vs LangChain trimMessages: ${fixed(l / o, 1)}× faster; target ≥ ${TARGET}×: ${verdict(l / o >= TARGET)}.`, "");
  const s = r.ours.sections;
  out.push(
    `- "Recounted" applies our chat rule with gpt-tokenizer to each output; ours also carries ` +
      `${int(s.summary.episodeIds.length)} episode summaries (${int(s.summary.tokens)} tokens) and ${int(s.recent.messageIds.length)} recent messages (${int(s.recent.tokens)} tokens) — LangChain only drops messages.`,
    `- LangChain's first call, which fills the counter's memo (counts all ${int(r.messages)} messages once), took ${fixed(r.langchain.firstMs, 1)} ms; ` +
      `each call invokes the counter ${int(r.langchain.counterCallsPerTrim)} times (once per candidate cut, from the full list down) ` +
      `and copies every message: the gap is mostly that algorithm, as the plain-loop row (no summaries, no tool-group rules) shows.`,
    `- Adding the ${int(r.messages)} messages to ours (not in the timings above): ${fixed(r.addMs / 1000, 2)} s, ` +
      `${int(r.messages / (r.addMs / 1000))} messages/s, including ${int(r.stats.episodes)} compactions into episodes by the offline summarizer.`,
  );
  return out.join("\n");
}

if (isMain(import.meta.url)) {
  console.log(report(await measure()));
}
