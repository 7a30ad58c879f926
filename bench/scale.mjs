// One namespace at 1,000 and at 100,000 messages, built through the package
// as an app builds it (add after add, compaction with the offline
// summarizer, folding), then opened again:
//
//   node bench/scale.mjs                 (both sizes; the 100k build takes minutes)
//   BENCH_SCALE_SIZES=1000,20000 node bench/scale.mjs
//   BENCH_SCALE_KEEP=/tmp/scale node bench/scale.mjs   (keep the built namespaces there, and reuse them)
//
// History: bench/history.mjs, with one distinctive fact stated in a user
// message a third of the way in (message 33,000 of 100,000; 330 of 1,000).
// Each phase runs in its own Node process, so memory figures start clean:
// - build: every message added through `memoryStorage` wrapped to count
//   every byte passed to `save` (log records, episodes and facts of
//   compaction, segments, merges: everything), then the stored values
//   are written to a file for the open phase;
// - open (3 processes per size, 9 for the small one): the wasm module and the o200k ranks are
//   loaded by a warm-up `create` on an empty namespace, the stored values
//   are put in a `memoryStorage`, then "open" is timed: `create` on the
//   namespace (loadRange of all but the cold segments, copying those
//   values into wasm, checksums, decoding, restoring memory); then
//   `buildContext` with the question as
//   query and `search` for it, after which the wasm memory is read
//   (`wasmMemoryBytes()`: the `WebAssembly.Memory` byte length, which never
//   shrinks, so it is the peak).

import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { history } from "./history.mjs";
import { fixed, int, isMain, median, mib, table, verdict } from "./lib.mjs";

const SIZES = (process.env.BENCH_SCALE_SIZES ?? "1000,100000").split(",").map(Number);
const OPENS = Number(process.env.BENCH_RUNS) || 3;
// A small namespace opens in tens of milliseconds, and one open in three
// there takes twice as long (a collection in the host, the timer): the
// ratio's denominator gets three times the processes.
const opensFor = (n) => (n <= 10_000 ? 3 * OPENS : OPENS);
const MiB = 1 << 20;
const FACT = "By the way, my locker at the Zurich office is number 4471 and its code word is PELICAN-SUNRISE.";
const QUESTION = "What is the code word of my locker at the Zurich office?";
// A second question, after the first query and the search.
const LATER = "Which tool results did we use for the weather report?";
const HERE = fileURLToPath(import.meta.url);

/** The benchmark history of `n` messages, the fact in the first user message from n/3 + 0 on. */
export function scaleHistory(n) {
  const messages = history(n).slice(1);
  let at = Math.floor(n * 0.33);
  while (messages[at].role !== "user") at++;
  messages[at] = { role: "user", content: FACT };
  return { messages, at };
}

/** Stored values as one file: [u32 key JSON length][key JSON][u32 data length][data]… */
export function dump(entries, file) {
  const parts = [];
  for (const { key, data } of entries) {
    const k = Buffer.from(JSON.stringify(key));
    const head = Buffer.alloc(4);
    head.writeUInt32LE(k.length);
    const len = Buffer.alloc(4);
    len.writeUInt32LE(data.length);
    parts.push(head, k, len, Buffer.from(data.buffer, data.byteOffset, data.length));
  }
  writeFileSync(file, Buffer.concat(parts));
}

export function undump(file) {
  const buf = readFileSync(file);
  const out = [];
  for (let at = 0; at < buf.length; ) {
    const klen = buf.readUInt32LE(at);
    const key = JSON.parse(buf.subarray(at + 4, at + 4 + klen).toString());
    at += 4 + klen;
    const dlen = buf.readUInt32LE(at);
    out.push({ key, data: new Uint8Array(buf.subarray(at + 4, at + 4 + dlen)) });
    at += 4 + dlen;
  }
  return out;
}

const options = (storage) => ({ namespace: "scale", model: "gpt-4o", storage });

/** Child: builds the namespace of `n` messages; prints its figures as JSON. */
async function build(n, file) {
  const { MemoryController, memoryStorage } = await import("../dist/node.js");
  const inner = memoryStorage();
  const written = { bytes: 0, saves: 0, largestSave: 0 };
  const storage = {
    ...inner,
    save: async (k, d) => {
      written.bytes += d.length;
      written.saves++;
      written.largestSave = Math.max(written.largestSave, d.length);
      return inner.save(k, d);
    },
  };
  const { messages, at } = scaleHistory(n);
  const t0 = performance.now();
  const memory = await MemoryController.create(options(storage));
  let factId;
  for (let i = 0; i < messages.length; i++) {
    const { id } = await memory.add(messages[i]);
    if (i === at) factId = id;
  }
  await memory.close();
  const seconds = (performance.now() - t0) / 1000;
  const entries = await inner.loadRange([]);
  dump(entries, file);
  const sizes = entries.map((e) => e.data.length);
  return { n, seconds, factId, ...written, stored: sizes.reduce((a, b) => a + b, 0), values: sizes.length, largest: Math.max(...sizes) };
}

/** Child: opens the namespace stored in `file`; prints time, memory and the search result. */
async function open(file, factId) {
  const { MemoryController, memoryStorage, wasmMemoryBytes } = await import("../dist/node.js");
  const warm = await MemoryController.create(options(memoryStorage()));
  await warm.close();
  const storage = memoryStorage();
  for (const { key, data } of undump(file)) await storage.save(key, data);
  const afterWarmup = wasmMemoryBytes();
  const t0 = performance.now();
  const memory = await MemoryController.create(options(storage));
  const ms = performance.now() - t0;
  const afterOpen = wasmMemoryBytes();
  const t1 = performance.now();
  const ctx = await memory.buildContext({ maxTokens: 8000, reserveOutput: 1000, query: QUESTION });
  const firstQuery = performance.now() - t1;
  const hits = await memory.search(QUESTION, { k: 10 });
  const rank = hits.findIndex((h) => h.id === factId);
  const t2 = performance.now();
  await memory.buildContext({ maxTokens: 8000, reserveOutput: 1000, query: LATER });
  const laterQuery = performance.now() - t2;
  return {
    ms,
    firstQuery,
    laterQuery,
    afterWarmup,
    afterOpen,
    memory: wasmMemoryBytes(),
    rank,
    inContext: JSON.stringify(ctx.messages).includes("PELICAN-SUNRISE"),
    messages: memory.stats().messages.total,
  };
}

function child(args) {
  const r = spawnSync(process.execPath, ["--max-old-space-size=4096", HERE, ...args], {
    encoding: "utf8",
    maxBuffer: 64 << 20,
    stdio: ["ignore", "pipe", "inherit"],
  });
  if (r.status !== 0) throw new Error(`bench/scale.mjs ${args.join(" ")} failed (${r.status})`);
  return JSON.parse(r.stdout.trim().split("\n").at(-1));
}

export async function run() {
  const keep = process.env.BENCH_SCALE_KEEP;
  const dir = keep ?? mkdtempSync(join(tmpdir(), "am-scale-"));
  mkdirSync(dir, { recursive: true });
  const results = [];
  try {
    for (const n of SIZES) {
      const file = join(dir, `scale-${n}.bin`);
      const meta = join(dir, `scale-${n}.json`);
      const built =
        keep && existsSync(meta) && existsSync(file) ? JSON.parse(readFileSync(meta, "utf8")) : child(["build", String(n), file]);
      writeFileSync(meta, JSON.stringify(built));
      const opens = Array.from({ length: opensFor(n) }, () => child(["open", file, built.factId]));
      results.push({ built, opens });
    }
  } finally {
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
  const rows = results.map(({ built: b, opens }) => {
    const o = opens[0];
    return [
      int(b.n),
      `${fixed(b.seconds, b.seconds < 10 ? 1 : 0)} s`,
      int(b.values),
      mib(b.stored),
      `${fixed(b.largest / 1024, 0)} KiB`,
      `${fixed(b.bytes / b.stored, 2)}×`,
      `${int(median(opens.map((x) => x.ms)))} ms`,
      `${int(median(opens.map((x) => x.firstQuery)))} ms`,
      `${fixed(median(opens.map((x) => x.laterQuery)), 1)} ms`,
      mib(median(opens.map((x) => x.memory))),
      o.rank >= 0 ? `yes (rank ${o.rank + 1})` : "no",
    ];
  });
  const out = ["## Scale: one namespace at 1,000 and 100,000 messages\n"];
  out.push(
    "Built through the package (`add` after `add` with the default options: working memory 4,000 tokens, offline summaries, default segment size), counting every byte given to `save`. " +
      "Open: `create` on the stored namespace in a process whose wasm module and ranks are already loaded (median of " +
      `${opensFor(SIZES.at(-1))} processes; ${opensFor(SIZES[0])} for ${int(SIZES[0])} messages). First query: the \`buildContext\` after it, which reads of the cold segments their stored terms (each segment's messages skimmed, not decoded) and the old episodes, builds the search index of what opening read, and decodes only the hits its recall block may show (opening leaves all of it to the first search, recall or query). Later query: another \`buildContext\` with a query, after a \`search\`. Memory: \`wasmMemoryBytes()\` after open, \`buildContext\` with the question as query, and \`search\`. ` +
      `Found: \`search(${JSON.stringify(QUESTION)})\` returns the message stating the fact (${JSON.stringify(FACT.slice(0, 40))}…, message ${int(Math.floor(SIZES.at(-1) * 0.33))}) in its top 10.\n`,
  );
  out.push(
    table(
      [
        "messages",
        "build",
        "stored values",
        "stored",
        "largest value",
        "written / stored",
        "open",
        "first query",
        "later query",
        "wasm memory",
        "found",
      ],
      rows,
    ),
  );
  const big = results.at(-1);
  const small = results[0];
  if (results.length > 1) {
    const ratio = median(big.opens.map((x) => x.ms)) / median(small.opens.map((x) => x.ms));
    const mem = median(big.opens.map((x) => x.memory));
    const wr = big.built.bytes / big.built.stored;
    out.push("");
    out.push(`- Open ${int(big.built.n)} / ${int(small.built.n)}: ${fixed(ratio, 1)}× (target ≤ 5×): ${verdict(ratio <= 5)}`);
    const first = median(big.opens.map((x) => x.firstQuery)) / median(small.opens.map((x) => x.firstQuery));
    out.push(`- First query ${int(big.built.n)} / ${int(small.built.n)}: ${fixed(first, 1)}× (target ≤ 10×): ${verdict(first <= 10)}`);
    const adds = small.built.n / small.built.seconds / (big.built.n / big.built.seconds);
    out.push(
      `- Adds per second while building: ${int(small.built.n / small.built.seconds)} at ${int(small.built.n)}, ${int(big.built.n / big.built.seconds)} at ${int(big.built.n)} (${fixed(adds, 1)}× slower; target ≤ 2×): ${verdict(adds <= 2)}`,
    );
    out.push(`- Wasm memory at ${int(big.built.n)}: ${mib(mem)} (target ≤ 48 MiB): ${verdict(mem <= 48 * MiB)}`);
    out.push(`- Bytes written / stored at ${int(big.built.n)}: ${fixed(wr, 2)} (target ≤ 3): ${verdict(wr <= 3)}`);
    out.push(
      `- Largest stored value: ${fixed(big.built.largest / 1024, 0)} KiB (target ≤ 1,024 KiB): ${verdict(big.built.largest <= MiB)}`,
    );
    out.push(`- Fact of message ${int(Math.floor(big.built.n * 0.33))} found by search: ${verdict(big.opens.every((o) => o.rank >= 0))}`);
  }
  out.push("");
  out.push(
    `Memory after open alone: ${results.map((r) => `${mib(median(r.opens.map((x) => x.afterOpen)))} at ${int(r.built.n)}`).join(", ")} (${mib(results[0].opens[0].afterWarmup)} after the warm-up).`,
  );
  return out.join("\n");
}

if (isMain(import.meta.url)) {
  const [mode, a, b] = process.argv.slice(2);
  if (mode === "build") console.log(JSON.stringify(await build(Number(a), b)));
  else if (mode === "open") console.log(JSON.stringify(await open(a, b)));
  else console.log(await run());
}
