// Test and benchmark text built from tests/fixtures/corpus/*.txt.
//
//   import { loadCorpus, paragraphs } from "./bench/corpus.mjs";
//   const corpus = loadCorpus();
//   corpus.files["zh.txt"]      // the whole file
//   corpus.mixed(1 << 20)       // ~1 MiB of paragraphs from every file, interleaved
//   corpus.chinese(100_000)     // ~100 kB of paragraphs from zh.txt
//   paragraphs()                // [{ file, index, text }] for per-paragraph checks
//
// Everything is deterministic: the same arguments give the same string on
// every run and every machine (seeded mulberry32, files in name order).
//
// `node bench/corpus.mjs` prints the sizes.

import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";

export const CORPUS_DIR = fileURLToPath(new URL("../tests/fixtures/corpus/", import.meta.url));

const encoder = new TextEncoder();
const utf8Length = (s) => encoder.encode(s).length;

/** mulberry32: a tiny 32-bit seeded PRNG returning floats in [0, 1). */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return function next() {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Split on blank lines (LF or CRLF). Lines holding only spaces, tabs or
 *  U+3000 are not blank: they stay inside their paragraph on purpose. */
export function splitParagraphs(text) {
  return text.split(/(?:\r?\n){2,}/).filter((p) => p.length > 0);
}

/** The longest prefix of `s` that is at most `maxBytes` UTF-8 bytes, cut
 *  between code points (a cut may still fall inside an emoji ZWJ sequence). */
function truncateUtf8(s, maxBytes) {
  let bytes = 0;
  let end = 0;
  for (const ch of s) {
    const cp = ch.codePointAt(0);
    const len = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (bytes + len > maxBytes) break;
    bytes += len;
    end += ch.length;
  }
  return s.slice(0, end);
}

// Separator paragraphs ("---") carry no text worth measuring.
const isSeparator = (p) => /^-{3,}$/.test(p.trim());

/**
 * Build a string of about `targetBytes` UTF-8 bytes (never more, at most 3
 * fewer) by drawing paragraphs from `pools`: each step picks a pool with the
 * PRNG and takes that pool's next paragraph, starting at a seeded offset and
 * wrapping around. Paragraphs are joined with a blank line; the last one is
 * cut to fit.
 */
function assemble(pools, targetBytes, seed) {
  if (!Number.isFinite(targetBytes) || targetBytes < 0) {
    throw new RangeError(`bytes must be a non-negative number, got ${targetBytes}`);
  }
  const rand = mulberry32(seed);
  const cursors = pools.map((pool) => Math.floor(rand() * pool.length));
  const parts = [];
  let bytes = 0;
  while (bytes < targetBytes) {
    const k = Math.floor(rand() * pools.length);
    const pool = pools[k];
    const para = pool[cursors[k] % pool.length];
    cursors[k] += 1;
    const piece = parts.length === 0 ? para.text : "\n\n" + para.text;
    const size = parts.length === 0 ? para.bytes : para.bytes + 2;
    if (bytes + size <= targetBytes) {
      parts.push(piece);
      bytes += size;
    } else {
      parts.push(truncateUtf8(piece, targetBytes - bytes));
      break;
    }
  }
  return parts.join("");
}

let cache = null;

function readAll() {
  if (cache) return cache;
  const names = readdirSync(CORPUS_DIR)
    .filter((name) => name.endsWith(".txt"))
    .sort();
  const files = {};
  const paras = [];
  for (const name of names) {
    const text = readFileSync(CORPUS_DIR + name, "utf8");
    files[name] = text;
    splitParagraphs(text).forEach((p, index) => paras.push({ file: name, index, text: p }));
  }
  const pools = names.map((name) =>
    paras.filter((p) => p.file === name && !isSeparator(p.text)).map((p) => ({ text: p.text, bytes: utf8Length(p.text) })),
  );
  cache = { names, files, paras, pools };
  return cache;
}

/** Every paragraph of every corpus file, in file-name then file order. */
export function paragraphs() {
  return readAll().paras.map((p) => ({ ...p }));
}

export function loadCorpus() {
  const { names, files, pools } = readAll();
  const zhPool = pools[names.indexOf("zh.txt")];
  return {
    files: { ...files },
    /** ~`bytes` UTF-8 bytes interleaving paragraphs of all files. */
    mixed: (bytes, seed = 0x5eed) => assemble(pools, bytes, seed),
    /** ~`bytes` UTF-8 bytes of paragraphs from zh.txt only. */
    chinese: (bytes, seed = 0x5eed) => assemble([zhPool], bytes, seed),
    paragraphs,
  };
}

// FNV-1a over UTF-16 code units: a quick fingerprint to show determinism.
function fingerprint(s) {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, "0");
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const corpus = loadCorpus();
  const all = paragraphs();
  console.log(`corpus: ${CORPUS_DIR}`);
  console.log("file            bytes    chars  paragraphs");
  let totalBytes = 0;
  let totalChars = 0;
  for (const [name, text] of Object.entries(corpus.files)) {
    const bytes = utf8Length(text);
    const chars = [...text].length;
    const count = all.filter((p) => p.file === name).length;
    totalBytes += bytes;
    totalChars += chars;
    console.log(`${name.padEnd(12)} ${String(bytes).padStart(8)} ${String(chars).padStart(8)} ${String(count).padStart(11)}`);
  }
  console.log(
    `${"total".padEnd(12)} ${String(totalBytes).padStart(8)} ${String(totalChars).padStart(8)} ${String(all.length).padStart(11)}`,
  );
  console.log();
  for (const [label, make, n] of [
    ["mixed", corpus.mixed, 1_000_000],
    ["mixed", corpus.mixed, 100_000],
    ["chinese", corpus.chinese, 100_000],
  ]) {
    const t0 = performance.now();
    const s = make(n);
    const ms = performance.now() - t0;
    console.log(`${label}(${n}) -> ${utf8Length(s)} bytes, ${s.length} UTF-16 units, fnv1a ${fingerprint(s)} (${ms.toFixed(1)} ms)`);
  }
}
