// remember() of long text without sentence ends: 1 MB of base64, of
// minified JSON and of a log with no full stops, each stored as a document
// (chunked into ≤ 300-token pieces). Reported beside counting the same text
// once, because the chunker's cost should be a few counts of the text, not
// one count of the remainder per chunk (which is what it was: quadratic).
//
//   node bench/chunking.mjs
//
// Input: generated, seeded, fresh per run (no two runs repeat text inside
// one input, so the counter's merge cache does not answer for the chunker).
// Each figure is the median of 3 runs, each on a new controller; the count
// runs on a warm controller after one untimed count of other text.

import { MemoryController } from "../dist/node.js";
import { mulberry32 } from "./corpus.mjs";
import { fixed, isMain, median, table } from "./lib.mjs";

const SIZE = 1 << 20;

function base64(r) {
  const bytes = new Uint8Array((SIZE * 3) / 4);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(r() * 256);
  return Buffer.from(bytes).toString("base64").slice(0, SIZE);
}

function minifiedJson(r) {
  const rows = [];
  let n = 0;
  while (n < SIZE) {
    const row = JSON.stringify({
      id: n,
      user: `u${Math.floor(r() * 1e6)}`,
      city: ["成都", "Chengdu", "東京", "서울"][Math.floor(r() * 4)],
      tags: [r().toString(36).slice(2, 8), r().toString(36).slice(2, 6)],
      score: Math.round(r() * 1e4) / 100,
    });
    rows.push(row);
    n += row.length + 1;
  }
  return `[${rows.join(",")}]`.slice(0, SIZE);
}

function log(r) {
  const lines = [];
  let n = 0;
  for (let t = 0; n < SIZE; t++) {
    const line = `2026-11-30T10:${String(t % 60).padStart(2, "0")}:${String((t * 7) % 60).padStart(2, "0")}Z INFO req=${r().toString(36).slice(2, 10)} path=/api/v1/chat status=200 ms=${Math.floor(r() * 900)} 用户=${Math.floor(r() * 1e5)}`;
    lines.push(line);
    n += line.length + 1;
  }
  return lines.join("\n").slice(0, SIZE);
}

async function timed(fn) {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

export async function run() {
  const rows = [];
  for (const [name, make] of [
    ["base64", base64],
    ["minified JSON", minifiedJson],
    ["log, no full stops", log],
  ]) {
    const counts = [];
    const remembers = [];
    let chunks = 0;
    for (let run = 0; run < 3; run++) {
      const text = make(mulberry32(1000 * run + name.length));
      const counter = await MemoryController.create({ model: "gpt-4o" });
      counter.countTokens(make(mulberry32(99)).slice(0, 10_000));
      counts.push(await timed(() => counter.countTokens(text)));
      const memory = await MemoryController.create({ model: "gpt-4o" });
      let result;
      remembers.push(await timed(async () => (result = await memory.remember({ text, kind: "document" }))));
      chunks = result.chunks.length;
    }
    const [c, m] = [median(counts), median(remembers)];
    rows.push([name, fixed(c, 0), fixed(m, 0), String(chunks), `${fixed(m / c, 1)}×`]);
  }
  return [
    "## remember() of 1 MB without sentence ends",
    "",
    "Each text is 1 MiB, generated fresh (seeded) per run, stored as a document of ≤ 300-token chunks on a new `gpt-4o` controller, with no storage and no embedder; the count is one `countTokens` of the same text. Median of 3 runs, ms.",
    "",
    table(["input", "countTokens (ms)", "remember (ms)", "chunks", "remember / count"], rows),
  ].join("\n");
}

if (isMain(import.meta.url)) console.log(await run());
