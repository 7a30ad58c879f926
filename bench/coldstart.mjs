// Cold start: a fresh Node process, to its first exact o200k_base count.
//
//   node bench/coldstart.mjs         (BENCH_RUNS=15 for more runs)
//
// Each run spawns `node --input-type=module -e CODE` that imports one library,
// counts "hello world" and prints `performance.now()`: milliseconds since the
// process started, so Node's own start-up is in every figure (the "node
// alone" row shows how much). Runs go round-robin over the libraries so
// machine noise falls on all alike; the table reports medians.

import { spawnSync } from "node:child_process";
import { OURS, ROOT, fixed, isMain, median, table, verdict } from "./lib.mjs";

const RUNS = Number(process.env.BENCH_RUNS) || 9;

const PRINT = `console.log(JSON.stringify({ ms: performance.now(), n }));`;

/** Child scripts per library; `print` runs after the count, with `n` in scope. */
export const cases = (print) => [
  { name: "node alone (no import)", code: `const n = 0; ${print}` },
  {
    name: "agent-memory (ours)",
    code: `import { MemoryController } from ${JSON.stringify(OURS)};
      const m = await MemoryController.create({ model: "gpt-4o" });
      const n = m.countTokens("hello world"); ${print}`,
  },
  {
    name: "gpt-tokenizer",
    code: `import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
      const n = countTokens("hello world"); ${print}`,
  },
  {
    name: "tiktoken",
    code: `import { get_encoding } from "tiktoken";
      const n = get_encoding("o200k_base").encode_ordinary("hello world").length; ${print}`,
  },
  {
    name: "tiktoken/lite + o200k_base.json",
    code: `import { Tiktoken } from "tiktoken/lite";
      import { createRequire } from "node:module";
      const o200k = createRequire(${JSON.stringify(ROOT)} + "x.js")("tiktoken/encoders/o200k_base.json");
      const n = new Tiktoken(o200k.bpe_ranks, o200k.special_tokens, o200k.pat_str).encode_ordinary("hello world").length; ${print}`,
  },
  {
    name: "js-tiktoken",
    code: `import { getEncoding } from "js-tiktoken";
      const n = getEncoding("o200k_base").encode("hello world").length; ${print}`,
  },
  {
    name: "js-tiktoken/lite + ranks/o200k_base",
    code: `import { Tiktoken } from "js-tiktoken/lite";
      import o200k from "js-tiktoken/ranks/o200k_base";
      const n = new Tiktoken(o200k).encode("hello world").length; ${print}`,
  },
];

const CASES = cases(PRINT);

function once(code) {
  const t0 = performance.now();
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", code], { cwd: ROOT, encoding: "utf8" });
  const wall = performance.now() - t0;
  if (child.status !== 0) throw new Error(`child failed: ${child.stderr}`);
  const { ms, n } = JSON.parse(child.stdout.trim().split("\n").pop());
  return { ms, wall, n };
}

export function measure({ runs = RUNS } = {}) {
  const samples = CASES.map(() => []);
  once(CASES[0].code); // warm the file cache once, untimed
  for (let r = 0; r < runs; r++) {
    CASES.forEach((c, i) => samples[i].push(once(c.code)));
  }
  return CASES.map((c, i) => ({
    name: c.name,
    ms: median(samples[i].map((s) => s.ms)),
    wall: median(samples[i].map((s) => s.wall)),
    counts: [...new Set(samples[i].map((s) => s.n))],
    runs,
  }));
}

export function report(rows) {
  const ours = rows.find((r) => r.name.startsWith("agent-memory"));
  const node = rows[0];
  const out = [`## Cold start to the first o200k_base count`, ""];
  out.push(
    `A fresh \`node --input-type=module -e ...\` per run: import, create the encoder, count "hello world", print \`performance.now()\`. ` +
      `Median of ${rows[0].runs} runs each, round-robin. "after node" subtracts the median of node alone; ` +
      `"wall" is spawn to exit as the parent sees it. Ratio = library / ours (higher: ours is faster).`,
    "",
  );
  const body = rows.map((r) => [
    r.name,
    fixed(r.ms, 1),
    r === node ? "—" : fixed(r.ms - node.ms, 1),
    fixed(r.wall, 1),
    r === node ? "—" : `${fixed((r.ms - node.ms) / (ours.ms - node.ms), 2)}×`,
    r.counts.join("/"),
  ]);
  out.push(table(["library", "ms to first count", "after node", "wall ms", "ratio", "count"], body), "");
  const gpt = rows.find((r) => r.name === "gpt-tokenizer");
  out.push(
    `Cold start to the first count, ours faster than gpt-tokenizer: ${verdict(ours.ms < gpt.ms)} ` +
      `(${fixed(ours.ms, 1)} ms vs ${fixed(gpt.ms, 1)} ms).`,
  );
  return out.join("\n");
}

if (isMain(import.meta.url)) {
  console.log(report(measure()));
}
