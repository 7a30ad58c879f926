// Contradictions noticed without a shared key: precision and recall of the
// offline rules (`semantic::claim`) on tests/fixtures/contradict (pairs of
// an old and a new fact, labelled "contradicts", "same" or "none"; English
// and Chinese). "fresh" was written after the rules and never tuned on: the
// held-out figure; "tune" is in-sample; "held-out" was written before any
// rule but the rules were written with it in view. The measurement is the
// cargo example `bench_contradict` (the rules are pure Rust); this prints
// its table as a results.md section.
//
//   node bench/contradict.mjs
import { spawnSync } from "node:child_process";
import { ROOT } from "./lib.mjs";

const run = spawnSync("cargo", ["run", "--quiet", "--release", "--example", "bench_contradict"], { cwd: ROOT, encoding: "utf8" });
if (run.status !== 0) throw new Error(`cargo run --example bench_contradict failed:\n${run.stderr}`);
const rows = run.stdout.trim();
const fresh = rows
  .split("\n")
  .find((l) => l.startsWith("| fresh (held out)") && l.includes("| contradicts |"))
  ?.split("|")
  .map((c) => c.trim());
const [precision, recall] = [Number(fresh?.[6]), Number(fresh?.[7])];
console.log(`## Contradictions noticed offline (precision and recall)

A pair is an old and a new fact about the user or someone named; "contradicts" means the new one should end the old (same subject, same single-valued attribute such as home city, employer, job, diet, name, age, marital status; another value), "same" a duplicate, "none" anything else (another person, another attribute, a plan, several values that hold at once). English and Chinese. "fresh" was written after the rules and never tuned on: it is the held-out figure; "tune" is in-sample; "held-out" was written before the rules, which were written with it in view.

${rows}

- fresh set: contradiction precision ${precision.toFixed(2)}, recall ${recall.toFixed(2)} (precision first: a wrong supersession hides a fact that holds)`);
