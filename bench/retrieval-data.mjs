// Deterministic inputs for bench/retrieval.mjs: clustered vectors shaped
// like sentence embeddings, and chat-sized documents with queries.
//
//   import { embeddings, chatDocuments } from "./retrieval-data.mjs";
//   const { flat, queries } = embeddings(10_000, 384, 100);
//   const { docs, en, zh } = chatDocuments(100_000, 100);
//
// Same arguments, same data, on every run and machine (seeded mulberry32).

import { loadCorpus, mulberry32 } from "./corpus.mjs";

function gaussian(rand) {
  const u = Math.max(rand(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
}

function normalize(v) {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i] * v[i];
  const inv = 1 / Math.sqrt(s);
  for (let i = 0; i < v.length; i++) v[i] *= inv;
  return v;
}

/**
 * `n` unit vectors of `dim` floats end to end in `flat`, and `nq` queries
 * drawn the same way. Real sentence embeddings are anisotropic (they share
 * a mean direction) and clustered by topic, so each vector is
 * `0.5·mean + centre + 0.8·g/√dim` (one of 100 random centres, Gaussian g),
 * normalized, as in examples/bench_retrieval.rs: cosine ≈ 0.6–0.7 within
 * a cluster, ≈ 0.1–0.3 across, with many near-ties among the top 10, where
 * uniform random vectors would be near-orthogonal and easy to rank.
 */
export function embeddings(n, dim, nq, seed = 384) {
  const rand = mulberry32(seed);
  const unitGaussian = () => normalize(Float32Array.from({ length: dim }, () => gaussian(rand)));
  const mean = unitGaussian();
  const centres = Array.from({ length: 100 }, unitGaussian);
  const sigma = 0.8 / Math.sqrt(dim);
  const draw = (out, at) => {
    const c = centres[Math.floor(rand() * centres.length)];
    const v = out.subarray(at * dim, (at + 1) * dim);
    for (let j = 0; j < dim; j++) v[j] = 0.5 * mean[j] + c[j] + sigma * gaussian(rand);
    normalize(v);
  };
  const flat = new Float32Array(n * dim);
  for (let i = 0; i < n; i++) draw(flat, i);
  const queries = new Float32Array(nq * dim);
  for (let i = 0; i < nq; i++) draw(queries, i);
  return { flat, queries, dim };
}

// Chat turns as sentences: lines of the corpus's English and Chinese chats,
// split after sentence-ending punctuation, minus list markers and speakers.
function sentences(text, zh) {
  const split = zh ? /(?<=[。！？；])/ : /(?<=[.!?;])\s+/;
  return text
    .split("\n")
    .flatMap((line) => line.replace(/^(User|Assistant|用户|助手)[:：]\s*|^[-*\d.]+\s+/, "").split(split))
    .map((s) => s.trim())
    .filter((s) => s.length >= (zh ? 6 : 20));
}

/**
 * `n` chat-sized documents, alternating English and Chinese: each is 1–3
 * random sentences of one language plus, half the time, an order number, so
 * the vocabulary grows with the corpus as real chat's does (names, numbers).
 * `en` and `zh` are `nq` queries each: 2–3 consecutive words of a sentence,
 * so every query has matches. Chinese words are cut by Intl.Segmenter (as a
 * person would write a query from words, not from arbitrary runs of
 * characters); words of one character are skipped.
 */
export function chatDocuments(n, nq, seed = 0xc4a7) {
  const files = loadCorpus().files;
  const pools = [sentences(files["en.txt"], false), sentences(files["zh.txt"], true)];
  const rand = mulberry32(seed);
  const pick = (xs) => xs[Math.floor(rand() * xs.length)];
  const docs = new Array(n);
  for (let i = 0; i < n; i++) {
    const pool = pools[i % 2];
    const parts = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => pick(pool));
    if (rand() < 0.5) parts.push(`${i % 2 ? "订单号" : "order"} ${100000 + Math.floor(rand() * 900000)}`);
    docs[i] = parts.join(i % 2 ? "" : " ");
  }
  const en = Array.from({ length: nq }, () => {
    const words = pick(pools[0]).match(/[A-Za-z]{4,}/g) ?? ["checklist"];
    const start = Math.floor(rand() * words.length);
    return words.slice(start, start + 2 + Math.floor(rand() * 2)).join(" ");
  });
  const segmenter = new Intl.Segmenter("zh-CN", { granularity: "word" });
  const zhWords = (s) => [...segmenter.segment(s)].map((w) => w.segment).filter((w) => /^\p{Script=Han}{2,}$/u.test(w));
  const zh = Array.from({ length: nq }, () => {
    let words = [];
    while (words.length < 2) words = zhWords(pick(pools[1]));
    const start = Math.floor(rand() * (words.length - 1));
    return words.slice(start, start + 2 + Math.floor(rand() * 2)).join("");
  });
  return { docs, en, zh };
}
