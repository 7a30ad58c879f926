// The estimator's error on paragraphs it was not fitted on, two ways:
//
// - second corpus: the shipped profiles (fitted on every corpus paragraph by
//   bench/fit-estimator.mjs) on paragraphs of bench/fresh-text.mjs (package
//   docs and sources, dialogue, generated Chinese), which the fit never saw;
// - two folds: the fit of bench/fit-estimator.mjs run on every other corpus
//   paragraph, its error reported on the paragraphs it was fitted on
//   (in-sample) and on the other half (held-out), then the halves swapped.
//
// Used by bench/estimator.mjs, which loads the reference tokenizers once.

import { paragraphs } from "./corpus.mjs";
import { estimate, readProfiles, runsOf } from "./estimate-model.mjs";
import { fit, isSeparator, MARGIN } from "./fit-estimator.mjs";
import { freshText } from "./fresh-text.mjs";
import { mulberry32 } from "./corpus.mjs";
import { errorStats } from "./reference-tokenizers.mjs";
import { int, pct, table } from "./lib.mjs";

const PER_KIND = 300; // paragraphs sampled from each kind of the second corpus

/** PER_KIND distinct paragraphs (20 to 4,000 characters) of each kind of fresh text, seeded. */
function secondCorpus() {
  const rand = mulberry32(0x2c0);
  const out = [];
  for (const [kind, docs] of Object.entries(freshText().documents)) {
    const pool = [...new Set(docs.flatMap((d) => d.split(/\n{2,}/)))].filter((p) => p.length >= 20 && p.length <= 4000 && !isSeparator(p));
    for (let i = 0; i < PER_KIND && pool.length > 0; i++) out.push({ kind, text: pool.splice(Math.floor(rand() * pool.length), 1)[0] });
  }
  return out;
}

/** Raw and with-margin error of `estimates` (raw) against `truths`. */
function errors(raw, truths) {
  return {
    raw: errorStats(raw, truths),
    margin: errorStats(
      raw.map((x) => Math.ceil(x * MARGIN)),
      truths,
    ),
  };
}

/** `tokenizers`: loadReferenceTokenizers() output; `controllers`: family → a controller of its model. */
export function measureHeldOut(tokenizers, controllers) {
  const second = secondCorpus();
  const corpus = paragraphs()
    .filter((p) => !isSeparator(p.text))
    .map((p) => ({ file: p.file, runs: runsOf(p.text), text: p.text }));
  const generic = readProfiles().GENERIC;
  const families = [];
  for (const t of tokenizers.filter((t) => !t.error)) {
    const memory = controllers[t.family];
    const rows = second.map((p) => ({ kind: p.kind, truth: t.count(p.text), raw: memory.countTokens(p.text) / MARGIN }));
    const kinds = [...new Set(rows.map((r) => r.kind))].map((kind) => {
      const sub = rows.filter((r) => r.kind === kind);
      return {
        kind,
        n: sub.length,
        ...errors(
          sub.map((r) => r.raw),
          sub.map((r) => r.truth),
        ),
      };
    });
    const all = {
      kind: "all",
      n: rows.length,
      ...errors(
        rows.map((r) => r.raw),
        rows.map((r) => r.truth),
      ),
    };
    const truth = corpus.map((p) => t.count(p.text));
    const folds = [0, 1].map((fold) => {
      const train = corpus.map((p, i) => ({ ...p, truth: truth[i] })).filter((_, i) => i % 2 === fold);
      const test = corpus.map((p, i) => ({ ...p, truth: truth[i] })).filter((_, i) => i % 2 !== fold);
      const { profile } = fit(generic, [train]);
      const on = (rows) =>
        errors(
          rows.map((r) => estimate(r.runs, profile)),
          rows.map((r) => r.truth),
        );
      return { fold, train: train.length, test: test.length, inSample: on(train), heldOut: on(test) };
    });
    families.push({ family: t.family, model: t.model, kinds: [...kinds, all], folds });
  }
  return { families, perKind: PER_KIND };
}

const cells = (e) => [pct(e.raw.mae), pct(e.margin.under), pct(e.margin.worst), e.raw.ratio.toFixed(3)];

export function reportHeldOut({ families, perKind }) {
  const out = ["### Held out: paragraphs the fit never saw", ""];
  out.push(
    `Second corpus: the shipped profiles (fitted on every corpus paragraph, the in-sample tables above) on ${perKind} distinct ` +
      "paragraphs of each kind of bench/fresh-text.mjs (package Markdown, package JS/TS source, dialogue turns, generated Chinese), " +
      "counted by the package (`countTokens`, ×1.15 margin; raw = / 1.15).",
    "",
  );
  const rows = families.flatMap((f) => f.kinds.map((k) => [f.family, k.kind === "all" ? "**all**" : k.kind, int(k.n), ...cells(k)]));
  out.push(
    table(["family", "held-out text", "paragraphs", "raw mean abs err", "under-counted ×1.15", "worst ×1.15", "raw Σest/Σtrue"], rows, 2),
    "",
  );
  out.push(
    "Two folds on the corpus: bench/fit-estimator.mjs's fit (from GENERIC, same loss) on every other paragraph, its error on " +
      "those paragraphs (in-sample) and on the other half (held-out); then the halves swapped.",
    "",
  );
  const foldRows = families.flatMap((f) =>
    f.folds.flatMap((d) => [
      [f.family, `fold ${d.fold + 1}, in-sample`, int(d.train), ...cells(d.inSample)],
      [f.family, `fold ${d.fold + 1}, held-out`, int(d.test), ...cells(d.heldOut)],
    ]),
  );
  out.push(table(["family", "paragraphs", "n", "raw mean abs err", "under-counted ×1.15", "worst ×1.15", "raw Σest/Σtrue"], foldRows, 2));
  return out.join("\n");
}
