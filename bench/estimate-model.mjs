// The estimator of src/tokens/estimate.rs, re-implemented in JS so that
// bench/fit-estimator.mjs can try thousands of profiles without a rebuild.
// Same classes, same run rules; checked against the built package by
// `checkAgainstPackage` (the fit refuses to run if they disagree).

import { readFileSync } from "node:fs";
import { ROOT } from "./lib.mjs";

export const FIELDS = [
  "word_chars",
  "chars_per_token",
  "han",
  "kana",
  "hangul",
  "other_letter",
  "digit_group",
  "punct",
  "wide_punct",
  "newline",
  "space_run",
  "emoji",
];

const LATIN = 0,
  HAN = 1,
  KANA = 2,
  HANGUL = 3,
  OTHER = 4,
  DIGIT = 5;
const PUNCT = 6,
  WIDE = 7,
  NEWLINE = 8,
  SPACE = 9,
  EMOJI = 10;
const ALPHABETIC = /\p{Alphabetic}/u; // Rust char::is_alphabetic
const WHITE_SPACE = /\p{White_Space}/u; // Rust char::is_whitespace

function classify(ch) {
  const c = ch.codePointAt(0);
  if ((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0xc0 && c <= 0x24f)) return LATIN;
  if (c >= 0x30 && c <= 0x39) return DIGIT;
  if (c === 0x0a || c === 0x0d) return NEWLINE;
  if (c === 0x20 || c === 0x09 || c === 0xa0 || c === 0x3000) return SPACE;
  if ((c >= 0x3040 && c <= 0x30ff) || (c >= 0x31f0 && c <= 0x31ff)) return KANA;
  if ((c >= 0xac00 && c <= 0xd7af) || (c >= 0x1100 && c <= 0x11ff) || (c >= 0x3130 && c <= 0x318f)) return HANGUL;
  if ((c >= 0x3400 && c <= 0x4dbf) || (c >= 0x4e00 && c <= 0x9fff) || (c >= 0xf900 && c <= 0xfaff) || (c >= 0x20000 && c <= 0x3ffff))
    return HAN;
  if (c < 0x80) return PUNCT;
  if (c >= 0x1f000) return EMOJI;
  if (ALPHABETIC.test(ch)) return OTHER;
  if (WHITE_SPACE.test(ch)) return SPACE;
  return WIDE;
}

/** The text as runs of one class: [class, length in chars, class, length, ...]. */
export function runsOf(text) {
  const runs = [];
  let prev = -1;
  for (const ch of text) {
    const k = classify(ch);
    if (k === prev) runs[runs.length - 1] += 1;
    else runs.push(k, 1);
    prev = k;
  }
  return runs;
}

/** The raw estimate (before margin and calibration), as estimate.rs computes it. */
export function estimate(runs, p) {
  let total = 0;
  for (let i = 0; i < runs.length; i += 2) {
    const n = runs[i + 1];
    switch (runs[i]) {
      case LATIN:
        total += 1 + Math.ceil(Math.max(n - p.word_chars, 0) / p.chars_per_token);
        break;
      case HAN:
        total += n * p.han;
        break;
      case KANA:
        total += n * p.kana;
        break;
      case HANGUL:
        total += n * p.hangul;
        break;
      case OTHER:
        total += Math.max(n * p.other_letter, 1);
        break;
      case DIGIT:
        total += Math.ceil(n / 3) * p.digit_group;
        break;
      case PUNCT:
        total += n * p.punct;
        break;
      case WIDE:
        total += n * p.wide_punct;
        break;
      case NEWLINE:
        total += p.newline;
        break;
      case SPACE:
        total += n === 1 ? 0 : p.space_run;
        break;
      case EMOJI:
        total += n * p.emoji;
        break;
    }
  }
  return total;
}

/** The profiles as written in src/tokens/estimate.rs: { GENERIC: {...}, CLAUDE: ... }. */
export function readProfiles(path = ROOT + "src/tokens/estimate.rs") {
  const src = readFileSync(path, "utf8");
  const out = {};
  for (const m of src.matchAll(/const (\w+): Profile = Profile \{([^}]*)\};/g)) {
    out[m[1]] = Object.fromEntries([...m[2].matchAll(/(\w+):\s*([-\d.]+)/g)].map(([, k, v]) => [k, Number(v)]));
  }
  for (const m of src.matchAll(/const (\w+): Profile = (\w+);/g)) out[m[1]] = { ...out[m[2]] };
  return out;
}

/** Texts where the package's countTokens differs from ceil(estimate × 1.15). */
export function checkAgainstPackage(memory, profile, texts, margin = 1.15) {
  return texts.filter((t) => memory.countTokens(t) !== Math.ceil(estimate(runsOf(t), profile) * margin));
}
