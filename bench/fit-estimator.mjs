// Fits the estimator's per-family profile constants (src/tokens/estimate.rs)
// to the families' public tokenizers on the project corpus.
//
//   node bench/fit-estimator.mjs
//
// Data: every corpus paragraph except the "---" separators, counted by each
// family's tokenizer package (bench/reference-tokenizers.mjs). Loss, per
// paragraph, with e = (raw estimate - true count) / true count:
//   |e| + TAIL_WEIGHT · e²  when e < -GAP (an under-estimate the ×1.15
//   margin does not cover: raw × 1.15 < true), else |e|,
// averaged per corpus file and then over files, so that each kind of text
// (en, zh, code, json, emoji, ja_ko, tricky) weighs the same. The first term
// keeps the raw estimate's mean error low; the second keeps the package
// (raw × 1.15) from under-counting. GENERIC (models of no known family) is
// not fitted: the unit tests in estimate.rs pin its values.
// Search: coordinate descent on a 0.01 grid starting from GENERIC (so the
// result does not depend on what estimate.rs holds now), steps 1 → 0.01,
// until no single step improves.
//
// Prints the Rust constants to paste into estimate.rs, then the error of
// GENERIC, of estimate.rs as it is, and of the fit. The JS estimator is first checked against the built
// package (`node scripts/build.mjs`), so a stale build cannot mislead it.

import { MemoryController } from "../dist/node.js";
import { paragraphs } from "./corpus.mjs";
import { FIELDS, checkAgainstPackage, estimate, readProfiles, runsOf } from "./estimate-model.mjs";
import { FAMILIES, errorStats, loadReferenceTokenizers } from "./reference-tokenizers.mjs";
import { fixed, isMain, pct, table } from "./lib.mjs";

export const MARGIN = 1.15;
const GAP = 1 - 1 / MARGIN;
export const TAIL_WEIGHT = 10;
const STEPS = [1, 0.5, 0.1, 0.05, 0.01];
const MIN = { word_chars: 1, chars_per_token: 0.5 };
const CONST = { Claude: "CLAUDE", Gemini: "GEMINI", DeepSeek: "DEEPSEEK" };

export const isSeparator = (text) => /^-{3,}$/.test(text.trim());

/** { file, runs, truth }[] per family, separators excluded. */
export async function corpusData() {
  const tokenizers = await loadReferenceTokenizers();
  const paras = paragraphs().filter((p) => !isSeparator(p.text));
  const runs = paras.map((p) => runsOf(p.text));
  const data = {};
  for (const t of tokenizers) {
    if (t.error) continue;
    data[t.family] = paras.map((p, i) => ({ file: p.file, text: p.text, runs: runs[i], truth: t.count(p.text) }));
  }
  return { tokenizers, data };
}

/** The loss above, for one profile on one family's rows. */
function loss(profile, rows) {
  const byFile = new Map();
  for (const r of rows) {
    const e = (estimate(r.runs, profile) - r.truth) / r.truth;
    const acc = byFile.get(r.file) ?? byFile.set(r.file, { sum: 0, n: 0 }).get(r.file);
    acc.sum += Math.abs(e) + (e < -GAP ? TAIL_WEIGHT * e * e : 0);
    acc.n += 1;
  }
  let total = 0;
  for (const { sum, n } of byFile.values()) total += sum / n;
  return total / byFile.size;
}

const round2 = (x) => Math.round(x * 100) / 100;

/** Coordinate descent over FIELDS on a 0.01 grid. `sets` are row sets whose losses are averaged. */
export function fit(start, sets) {
  const f = (p) => sets.reduce((s, rows) => s + loss(p, rows), 0) / sets.length;
  let best = { ...start };
  let bestLoss = f(best);
  for (const step of STEPS) {
    let improved = true;
    while (improved) {
      improved = false;
      for (const k of FIELDS) {
        for (const dir of [1, -1]) {
          for (;;) {
            const v = round2(best[k] + dir * step);
            if (v < (MIN[k] ?? 0.01)) break;
            const cand = { ...best, [k]: v };
            const l = f(cand);
            if (l >= bestLoss - 1e-12) break;
            best = cand;
            bestLoss = l;
            improved = true;
          }
        }
      }
    }
  }
  return { profile: best, loss: bestLoss };
}

export function rust(name, p) {
  const lines = FIELDS.map((k) => `    ${k}: ${Number.isInteger(p[k]) ? p[k].toFixed(1) : String(p[k])},`);
  return `const ${name}: Profile = Profile {\n${lines.join("\n")}\n};`;
}

/** Raw-estimate and with-margin error of `profile` on `rows`. */
function summary(profile, rows) {
  const truths = rows.map((r) => r.truth);
  const raw = rows.map((r) => estimate(r.runs, profile));
  return {
    raw: errorStats(raw, truths),
    margin: errorStats(
      raw.map((x) => Math.ceil(x * MARGIN)),
      truths,
    ),
  };
}

async function main() {
  const { tokenizers, data } = await corpusData();
  for (const t of tokenizers) {
    console.log(t.error ? `${t.family}: skipped, ${t.error}` : `${t.family}: ${t.pkg}@${t.version}`);
  }
  const current = readProfiles();
  for (const f of FAMILIES.filter((f) => data[f.family])) {
    const memory = await MemoryController.create({ model: f.model });
    const bad = checkAgainstPackage(
      memory,
      current[CONST[f.family]],
      data[f.family].map((r) => r.text),
    );
    if (bad.length) throw new Error(`${f.model}: the built package disagrees with estimate.rs on ${bad.length} paragraphs; rebuild first`);
  }

  const fitted = {};
  for (const family of Object.keys(data)) fitted[CONST[family]] = fit(current.GENERIC, [data[family]]).profile;

  console.log("\n// Fitted by bench/fit-estimator.mjs:\n");
  for (const name of ["CLAUDE", "GEMINI", "DEEPSEEK"]) if (fitted[name]) console.log(rust(name, fitted[name]) + "\n");

  const rows = [];
  for (const [family, set] of Object.entries(data)) {
    const profiles = [
      ["GENERIC", current.GENERIC],
      ["estimate.rs now", current[CONST[family]]],
      ["fitted", fitted[CONST[family]]],
    ];
    for (const [label, profile] of profiles) {
      const { raw, margin } = summary(profile, set);
      rows.push([family, label, pct(raw.mae), pct(raw.worst), pct(margin.under), fixed(raw.ratio, 3)]);
    }
  }
  console.log(table(["family", "profile", "raw mean abs err", "raw worst", `under-counted ×${MARGIN}`, "raw Σest/Σtrue"], rows, 2));
  console.log(
    `\nLoss: file-averaged |e| + ${TAIL_WEIGHT}·e² beyond the margin; ${Object.values(data)[0].length} paragraphs (separators excluded).`,
  );
}

if (isMain(import.meta.url)) await main();
