// Exact o200k_base counting of text seen for the first time: one pass over
// ~7 MiB that repeats no document (bench/fresh-text.mjs), each library in a
// fresh Node process, so no cache or JIT state survives from an earlier call.
//
//   node bench/tokens-fresh.mjs          (BENCH_RUNS=5 for more runs; default 3)
//
// The parent builds the text once and writes it to a temporary file. Each
// run starts one process per library, libraries in turn (rotated each run,
// so machine noise falls on all alike); a process imports its library,
// creates the encoder, counts "hello world" (loading ranks, as any first use
// does), reads the file, then times one count of the whole text. Reported:
// the range and median of MiB/s over the runs, and the counts, which must
// agree. Ours also reports its wasm memory before and after the count.

import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { freshText, repeats } from "./fresh-text.mjs";
import { ROOT, fixed, int, isMain, median, mib, table, utf8Bytes, verdict } from "./lib.mjs";

const RUNS = Number(process.env.BENCH_RUNS) || 3;
const TARGET = 1.5;
const ORDINARY = "{ disallowedSpecial: new Set() }";

// Each entry: imports, then `count` (a function of the text) defined after them.
const LIBRARIES = [
  {
    name: "agent-memory (ours)",
    setup: `import { MemoryController, wasmMemoryBytes } from "./dist/node.js";
      const memory = await MemoryController.create({ model: "gpt-4o" });
      const count = (s) => memory.countTokens(s);
      const memoryBytes = () => wasmMemoryBytes();`,
    does: "`memory.countTokens` (wasm; copies the string in as UTF-8; bounded cache of 8k pieces, empty at the start)",
  },
  {
    name: "gpt-tokenizer",
    setup: `import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
      const count = (s) => countTokens(s, ${ORDINARY});`,
    does: "`countTokens` (pure JS; merge cache of 100k pieces, empty at the start)",
  },
  {
    name: "tiktoken",
    setup: `import { get_encoding } from "tiktoken";
      const enc = get_encoding("o200k_base");
      const count = (s) => enc.encode_ordinary(s).length;`,
    does: "`encode_ordinary` (wasm, Rust tiktoken; no cache; returns a Uint32Array of ids)",
  },
  {
    name: "js-tiktoken",
    setup: `import { getEncoding } from "js-tiktoken";
      const enc = getEncoding("o200k_base");
      const count = (s) => enc.encode(s, [], []).length;`,
    does: '`getEncoding("o200k_base").encode` (pure JS; returns an array of ids)',
  },
];

function child(lib, path) {
  return `${lib.setup}
    import { readFileSync } from "node:fs";
    count("hello world");
    const text = readFileSync(${JSON.stringify(path)}, "utf8");
    const before = typeof memoryBytes === "function" ? memoryBytes() : null;
    const t0 = performance.now();
    const n = count(text);
    const ms = performance.now() - t0;
    const after = typeof memoryBytes === "function" ? memoryBytes() : null;
    console.log(JSON.stringify({ n, ms, before, after }));`;
}

export async function measure({ runs = RUNS } = {}) {
  const { text, parts } = freshText();
  const bytes = utf8Bytes(text);
  const dir = mkdtempSync(tmpdir() + "/fresh-text-");
  const path = dir + "/text.txt";
  writeFileSync(path, text);
  try {
    const results = LIBRARIES.map(() => []);
    for (let r = 0; r < runs; r++) {
      for (let k = 0; k < LIBRARIES.length; k++) {
        const i = (k + r) % LIBRARIES.length;
        const out = spawnSync(process.execPath, ["--input-type=module", "-e", child(LIBRARIES[i], path)], {
          cwd: ROOT,
          encoding: "utf8",
          maxBuffer: 1 << 20,
        });
        if (out.status !== 0) throw new Error(`${LIBRARIES[i].name}: ${out.stderr}`);
        results[i].push(JSON.parse(out.stdout.trim().split("\n").pop()));
      }
    }
    return { bytes, parts, repeated: repeats(text), runs, results };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function report({ bytes, parts, repeated, runs, results }) {
  const rate = (x) => bytes / (1 << 20) / (x.ms / 1000);
  const stats = results.map((xs) => {
    const rates = xs.map(rate);
    return { min: Math.min(...rates), max: Math.max(...rates), median: median(rates), counts: [...new Set(xs.map((x) => x.n))] };
  });
  const ours = stats[0];
  const peers = stats.slice(1);
  const best = peers.reduce((a, b) => (b.median > a.median ? b : a));
  const bestName = LIBRARIES[1 + peers.indexOf(best)].name;
  // The ratio's range pairs our slowest run with the peer's fastest and the reverse.
  const low = ours.min / best.max;
  const high = ours.max / best.min;
  const mid = ours.median / best.median;

  const out = ["## Exact o200k_base counting of fresh text (one pass, new process)", ""];
  out.push(
    `${int(bytes)} bytes (${fixed(bytes / (1 << 20), 2)} MiB) built from what is on disk by bench/fresh-text.mjs, ` +
      `no document repeated: ${parts.map((p) => `${p.kind} ${fixed(p.bytes / (1 << 20), 2)} MiB (${int(p.documents)} documents)`).join(", ")}. ` +
      `Paragraphs that repeat an earlier one (changelog headings, license texts, boilerplate, as in any real text): ` +
      `${int(repeated.repeated)} of ${int(repeated.total)}, ${fixed((100 * repeated.repeatedBytes) / bytes, 1)} % of the bytes.`,
    "",
    `Each library counts the whole text once, in a new Node process, after counting "hello world" (which loads its ranks): ` +
      `caches start empty. ${runs} runs, one process per library per run; MiB/s of UTF-8 input, min–max (median).`,
    "",
  );
  out.push(
    table(
      ["library", "what the call does", "MiB/s min–max (median)", "tokens"],
      LIBRARIES.map((lib, i) => [
        lib.name,
        lib.does,
        `${fixed(stats[i].min, 1)}–${fixed(stats[i].max, 1)} (${fixed(stats[i].median, 1)})`,
        stats[i].counts.map(int).join(" / "),
      ]),
      2,
    ),
    "",
  );
  const agree = stats.every((s) => s.counts.length === 1 && s.counts[0] === ours.counts[0]);
  out.push(
    agree
      ? "All four counts are equal."
      : `**Warning:** counts differ: ${stats.map((s, i) => `${LIBRARIES[i].name} ${s.counts.join("/")}`).join(", ")}.`,
    "",
  );
  out.push(
    `Fresh text, ours ≥ ${TARGET}× the fastest peer (${bestName}) at the median: ${verdict(mid >= TARGET)} ` +
      `(${fixed(mid, 2)}×; ${fixed(low, 2)}–${fixed(high, 2)}× pairing the runs' extremes).`,
    "",
  );
  const mem = results[0].map((x) => x.after);
  out.push(
    `Our wasm memory after this count: ${mib(Math.max(...mem))} (before it: ${mib(Math.max(...results[0].map((x) => x.before)))}); ` +
      "wasm memory never shrinks; the growth is the string passed in (wasm-bindgen reserves up to 3 bytes per UTF-16 unit " +
      "for text that is not ASCII), the merge buffers and the piece cache.",
  );
  return out.join("\n");
}

if (isMain(import.meta.url)) {
  console.log(report(await measure()));
}
