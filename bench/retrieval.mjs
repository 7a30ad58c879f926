// Retrieval: our wasm VectorIndex and Bm25Index vs what a JS app would use.
//
//   node bench/retrieval.mjs        (BENCH_QUERIES=n queries per set, default 100)
//
// Vectors: top-10 over 10k and 100k clustered 384-dim vectors (see
// retrieval-data.mjs) against a plain JS loop, @orama/orama, voy-search and
// hnswlib-wasm. BM25: 100k chat-sized documents, half Chinese, against
// @orama/orama full-text (default tokenizer, and @orama/tokenizers/mandarin).
// Queries run interleaved (query i on every engine, then query i + 1), so
// noise from a shared machine falls on all engines alike; each engine first
// answers 5 untimed queries. Recall@10 is against the plain JS loop, which
// is exact (it sums in f64).

import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { create, insert, search } from "@orama/orama";
import { createTokenizer } from "@orama/tokenizers/mandarin";
import { Bm25Index, VectorIndex, ready } from "../dist/node.js";
import { chatDocuments, embeddings } from "./retrieval-data.mjs";
import { ROOT, fixed, int, isMain, median, table, verdict } from "./lib.mjs";

const QUERIES = Number(process.env.BENCH_QUERIES) || 100;
const K = 10;
const DIM = 384;
const BUILD_CAP_S = 180; // a peer's index build is stopped past this
const log = (s) => process.stderr.write(`  retrieval: ${s}\n`);

// Heap deltas need a full collection before each reading.
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc");
const heapNow = () => (gc(), gc(), process.memoryUsage());
const jsBytes = (m) => m.heapUsed + m.arrayBuffers;

// Each size gets fresh instances of the wasm peers, so their whole wasm
// memory after a build is what that index cost (an upper bound: it includes
// the allocator's slack and transient copies, and never shrinks).
// voy-search ships only a bundler build (`import * as wasm from "./x.wasm"`),
// so it is instantiated here the way its glue expects; the glue caches views
// of one instance's memory, so each instance gets its own copy (`?n`).
const voyGlue = pathToFileURL(ROOT + "node_modules/voy-search/voy_search_bg.js").href;
const voyModule = new WebAssembly.Module(readFileSync(ROOT + "node_modules/voy-search/voy_search_bg.wasm"));
async function freshVoy(n) {
  const glue = await import(`${voyGlue}?${n}`);
  const { exports } = new WebAssembly.Instance(voyModule, { "./voy_search_bg.js": glue });
  glue.__wbg_set_wasm(exports);
  return { Voy: glue.Voy, memory: exports.memory };
}

// hnswlib-wasm is an Emscripten build for browsers only: it runs in Node once
// `window` exists. Its loader also mounts an IndexedDB file system, which
// Node lacks and an in-memory index does not need, so the factory is called
// directly. Its Memory is not exported to JS; it is read off the instance.
globalThis.window ??= globalThis;
const { default: hnswFactory } = await import("hnswlib-wasm/dist/hnswlib-317962d7.js");
async function freshHnsw() {
  const instantiate = WebAssembly.instantiate;
  let memory;
  WebAssembly.instantiate = (...args) => instantiate(...args).then((r) => ((memory = (r.instance ?? r).exports.memory), r));
  const lib = await hnswFactory().finally(() => (WebAssembly.instantiate = instantiate));
  return { lib, memory };
}

const percentile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.round((xs.length - 1) * p)];

/** Plain JS: one pass of dot products over pre-normalized vectors, top-k kept sorted. */
function bruteForce(flat, n, q) {
  const ids = [];
  const scores = [];
  for (let i = 0, at = 0; i < n; i++, at += DIM) {
    let s = 0;
    for (let j = 0; j < DIM; j++) s += q[j] * flat[at + j];
    if (ids.length === K && s <= scores[K - 1]) continue;
    let p = ids.length === K ? K - 1 : ids.length;
    while (p > 0 && scores[p - 1] < s) (ids[p] = ids[p - 1]), (scores[p] = scores[p - 1]), p--;
    (ids[p] = i), (scores[p] = s);
  }
  return ids;
}

/**
 * Builds each engine in turn: `input()` (untimed) prepares what a user would
 * already hold, `build` is timed and may stop once `over()` says the cap
 * passed. Bytes are the engine's own figure, else the JS heap delta.
 */
function buildAll(builders) {
  return builders.map(({ name, input, build }) => {
    const before = jsBytes(heapNow());
    const data = input?.();
    const t0 = performance.now();
    const engine = build(data, () => (performance.now() - t0) / 1000 > BUILD_CAP_S);
    const buildMs = performance.now() - t0;
    log(`${name}: built in ${fixed(buildMs / 1000, 1)} s`);
    return { name, buildMs, ...engine, bytes: engine.bytes?.() ?? jsBytes(heapNow()) - before };
  });
}

/** Times every engine on each query in turn; returns per-engine latencies and results. */
function runQueries(engines, queries) {
  const live = engines.filter((e) => e.unfinished === undefined);
  for (const e of live) queries.slice(0, 5).forEach(e.search);
  const out = new Map(live.map((e) => [e, { ms: [], results: [] }]));
  for (const q of queries) {
    for (const e of live) {
      const t0 = performance.now();
      const r = e.search(q);
      out.get(e).ms.push(performance.now() - t0);
      out.get(e).results.push(r);
    }
  }
  return out;
}

const latency = (r) => r && { p50: median(r.ms), p99: percentile(r.ms, 0.99) };

function vectorBuilders(flat, n, voy, hnsw) {
  const ids = Float64Array.from({ length: n }, (_, i) => i);
  const row = (i) => flat.subarray(i * DIM, (i + 1) * DIM);
  const ours = (mode) => () => {
    const index = new VectorIndex({ mode });
    // Chunks bound the transient copy into wasm memory (which never shrinks).
    for (let at = 0; at < n; at += 10_000) index.addMany(ids.subarray(at, at + 10_000), flat.subarray(at * DIM, (at + 10_000) * DIM));
    return { search: (q) => Array.from(index.search(q, K).ids), bytes: () => index.heapBytes, free: () => index.free() };
  };
  // Orama and voy take number[] vectors, as parsed from an embeddings API's JSON.
  const arrays = () => Array.from({ length: n }, (_, i) => Array.from(row(i)));
  const chunks = (size, make) => Array.from({ length: Math.ceil(n / size) }, (_, c) => make(c * size, Math.min(n, (c + 1) * size)));
  return [
    { name: "agent-memory exact (ours)", build: ours("exact") },
    { name: "agent-memory int8 (ours)", build: ours("int8") },
    { name: "plain JS loop", build: () => ({ search: (q) => bruteForce(flat, n, q), bytes: () => flat.byteLength }) },
    {
      name: "@orama/orama",
      input: arrays, // kept by the db, so counted in its heap delta
      build: (docs, over) => {
        const db = create({ schema: { e: `vector[${DIM}]` } });
        for (let i = 0; i < n; i++)
          if ((insert(db, { id: String(i), e: docs[i] }), i % 1000 === 999 && over())) return { unfinished: i + 1 };
        return {
          search: (q) =>
            search(db, { mode: "vector", vector: { value: q, property: "e" }, similarity: -1, limit: K }).hits.map((h) => Number(h.id)),
        };
      },
    },
    {
      name: "voy-search",
      input: () =>
        chunks(10_000, (a, b) => ({
          embeddings: Array.from({ length: b - a }, (_, i) => ({
            id: String(a + i),
            title: "",
            url: "",
            embeddings: Array.from(row(a + i)),
          })),
        })),
      build: (parts, over) => {
        const index = new voy.Voy();
        for (const [c, part] of parts.entries())
          if ((index.add(part), c < parts.length - 1 && over())) return { unfinished: (c + 1) * 10_000 };
        return {
          search: (q) => index.search(q, K).neighbors.map((h) => Number(h.id)),
          bytes: () => voy.memory.buffer.byteLength,
          free: () => index.free(),
        };
      },
    },
    {
      name: "hnswlib-wasm",
      input: () =>
        chunks(2000, (a, b) => [Array.from({ length: b - a }, (_, i) => row(a + i)), Array.from({ length: b - a }, (_, i) => a + i)]),
      build: (parts, over) => {
        const index = new hnsw.lib.HierarchicalNSW("cosine", DIM, "");
        index.initIndex(n, 16, 200, 100);
        index.setEfSearch(32);
        for (const [c, [points, labels]] of parts.entries())
          if ((index.addPoints(points, labels, false), c < parts.length - 1 && over())) return { unfinished: (c + 1) * 2000 };
        return { search: (q) => index.searchKnn(q, K, undefined).neighbors, bytes: () => hnsw.memory.buffer.byteLength };
      },
    },
  ];
}

async function measureVectors(n) {
  const t0 = performance.now();
  const { flat, queries } = embeddings(n, DIM, QUERIES);
  const qs = Array.from({ length: QUERIES }, (_, i) => queries.subarray(i * DIM, (i + 1) * DIM));
  log(`${int(n)} vectors generated in ${fixed((performance.now() - t0) / 1000, 1)} s`);
  const engines = buildAll(vectorBuilders(flat, n, await freshVoy(n), await freshHnsw()));
  const runs = runQueries(engines, qs);
  const exact = runs.get(engines.find((e) => e.name === "plain JS loop")).results;
  const rows = engines.map((e) => {
    const r = runs.get(e);
    const recall = r && r.results.reduce((a, ids, i) => a + ids.filter((id) => exact[i].includes(id)).length, 0) / (K * QUERIES);
    e.free?.();
    return { ...e, ...latency(r), recall, perVector: e.bytes / n };
  });
  return { n, rows };
}

function bm25Builders(docs) {
  const orama = (components) => (_, over) => {
    const db = create({ schema: { text: "string" }, components });
    for (let i = 0; i < docs.length; i++) if ((insert(db, { text: docs[i] }), i % 1000 === 999 && over())) return { unfinished: i + 1 };
    return { search: (q) => search(db, { term: q, properties: ["text"], limit: K }).hits };
  };
  const ours = () => {
    const index = new Bm25Index();
    docs.forEach((d, i) => index.add(i, d));
    index.shrinkToFit();
    return { search: (q) => Array.from(index.search(q, K).ids), bytes: () => index.heapBytes, free: () => index.free() };
  };
  return [
    { name: "agent-memory (ours)", build: ours },
    { name: "@orama/orama", build: orama(undefined) },
    { name: "@orama/orama + mandarin", build: orama({ tokenizer: createTokenizer() }) },
  ];
}

function measureBm25(n) {
  const { docs, en, zh } = chatDocuments(n, QUERIES);
  const engines = buildAll(bm25Builders(docs));
  const runs = { en: runQueries(engines.slice(0, 2), en), zh: runQueries(engines, zh) };
  const stat = (r) => r && { ...latency(r), found: r.results.filter((hits) => hits.length > 0).length / QUERIES };
  const rows = engines.map((e) => (e.free?.(), { ...e, en: stat(runs.en.get(e)), zh: stat(runs.zh.get(e)), perDoc: e.bytes / n }));
  return { n, rows, bytes: docs.reduce((a, d) => a + Buffer.byteLength(d), 0) };
}

export async function measure() {
  await ready(); // Bm25Index and VectorIndex need the module loaded (create does it for controllers)
  const vectors = [];
  for (const n of [10_000, 100_000]) vectors.push(await measureVectors(n));
  return { vectors, bm25: measureBm25(100_000) };
}

const unfinished = (r, n, cols) => [
  r.name,
  `did not finish in ${BUILD_CAP_S} s (${int(r.unfinished)} of ${int(n)} added)`,
  ...Array(cols - 2).fill(""),
];
const ms = (x) => (x < 1 ? fixed(x, 2) : fixed(x, 1));

export function report({ vectors, bm25 }) {
  const out = [
    "## Retrieval: vector top-10 and BM25",
    "",
    `${QUERIES} queries per set, run interleaved across engines after 5 untimed ones; latency per query in ms. Recall@10 is against the ` +
      "plain JS loop (exact, f64 sums). Vectors: 384 dims, clustered like sentence embeddings (100 centres + a shared mean direction + " +
      "Gaussian noise, normalized; `bench/retrieval-data.mjs`).",
    "",
  ];
  const checks = [];
  for (const { n, rows } of vectors) {
    const head = ["engine", "p50 ms", "p99 ms", "recall@10", "build s", "bytes/vector"];
    const body = rows.map((r) =>
      r.unfinished !== undefined
        ? unfinished(r, n, head.length)
        : [r.name, ms(r.p50), ms(r.p99), fixed(r.recall, 3), fixed(r.buildMs / 1000, 2), int(r.perVector)],
    );
    out.push(`### ${int(n)} vectors`, "", table(head, body), "");
    const [exact, int8, js, orama, voy] = rows;
    const x = (peer) => (peer.unfinished !== undefined ? Infinity : peer.p50 / exact.p50);
    checks.push(
      `Vector ${int(n)}: exact ≥ 3× faster than the plain JS loop (${fixed(x(js), 1)}×), faster than orama (${fixed(x(orama), 1)}×) and voy ` +
        `(${fixed(x(voy), 1)}×), recall@10 = 1.0 (${fixed(exact.recall, 3)}): ${verdict(x(js) >= 3 && x(orama) > 1 && x(voy) > 1 && exact.recall === 1)}`,
      `Vector ${int(n)}: int8 recall@10 ≥ 0.98 (${fixed(int8.recall, 3)}; ${int(int8.perVector)} bytes/vector, exact ${int(exact.perVector)}): ${verdict(int8.recall >= 0.98)}`,
    );
  }
  out.push(
    "- agent-memory: `new VectorIndex({ mode })`, `addMany` in chunks of 10k; int8 rescores 4 × 10 candidates (the default); bytes = `heapBytes / len`.",
    "- plain JS loop: dot products over one `Float32Array` of pre-normalized vectors, top 10 kept by insertion; bytes = the array.",
    "- @orama/orama: `vector[384]` schema, `number[]` documents (as parsed from an embeddings API's JSON), `similarity: -1` so it always " +
      "returns 10 (its default threshold, 0.8, drops every hit here); bytes = JS heap delta after GC, documents included.",
    "- voy-search: k-d tree, `add` in chunks of 10k (one 100k call overflows the `JSON.stringify` inside voy).",
    "- hnswlib-wasm: approximate (HNSW graph), cosine, M 16 and efConstruction 200 (its defaults), efSearch 32.",
    "- voy and hnswlib bytes: their whole wasm memory after the build, a fresh instance per size (an upper bound).",
    "",
    `### BM25 over ${int(bm25.n)} chat documents`,
    "",
    "Documents: 1–3 sentences of the corpus's chats plus, half the time, an order number; half English, half Chinese; " +
      `${fixed(bm25.bytes / 2 ** 20, 1)} MiB of text. Queries: 2–3 words of a sentence (Chinese words cut by Intl.Segmenter). ` +
      '"found" = queries with at least one hit. Bytes/doc: ours `heapBytes / len` after `shrinkToFit`; orama: JS heap delta after GC ' +
      "(the text, shared with the input, is counted by neither). `+ mandarin`: the tokenizer of `@orama/tokenizers/mandarin` " +
      "(Intl.Segmenter), timed on the Chinese queries.",
    "",
  );
  const head = ["engine", "en p50", "en p99", "en found", "zh p50", "zh p99", "zh found", "build s", "bytes/doc"];
  const cell = (s) => (s ? [ms(s.p50), ms(s.p99), `${fixed(100 * s.found, 0)}%`] : ["—", "—", "—"]);
  const body = bm25.rows.map((r) =>
    r.unfinished !== undefined
      ? unfinished(r, bm25.n, head.length)
      : [r.name, ...cell(r.en), ...cell(r.zh), fixed(r.buildMs / 1000, 1), int(r.perDoc)],
  );
  out.push(table(head, body), "");
  const [ours, orama] = bm25.rows;
  const x = orama.en ? orama.en.p50 / ours.en.p50 : Infinity;
  checks.push(
    `BM25 ${int(bm25.n)}: English p50 ≥ 2× faster than orama (${fixed(x, 1)}×): ${verdict(x >= 2)}`,
    `BM25 ${int(bm25.n)}: Chinese p99 < 50 ms (${ms(ours.zh.p99)} ms; build ${fixed(ours.buildMs / 1000, 1)} s, ${int(ours.perDoc)} bytes/doc): ${verdict(ours.zh.p99 < 50)}`,
  );
  out.push(...checks.map((c) => `- ${c}`), "");
  return out.join("\n");
}

if (isMain(import.meta.url)) console.log(report(await measure()));
