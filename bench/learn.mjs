// What compaction learns about the user offline: precision and recall of
// `semantic::learn` against the 0.1 phrase pass, on tests/fixtures/learn
// (see its README). In-sample: the tune split, the held-out split (written
// with the rules in view), fresh and fresh2 (each held out once, then tuned
// on) and tune3 (written to tune the third pass). Held out: fresh3, written
// and committed before the third pass and never tuned on. The measurement
// is the cargo example `bench_learn` (the rules are pure Rust); this prints
// its table as a results.md section.
//
//   node bench/learn.mjs
import { spawnSync } from "node:child_process";
import { ROOT } from "./lib.mjs";

const run = spawnSync("cargo", ["run", "--quiet", "--release", "--example", "bench_learn"], { cwd: ROOT, encoding: "utf8" });
if (run.status !== 0) throw new Error(`cargo run --example bench_learn failed:\n${run.stderr}`);
const rows = run.stdout.trim();
const fresh = rows
  .split("\n")
  .find((l) => l.startsWith("| semantic::learn | fresh3"))
  ?.split("|")
  .map((c) => c.trim());
const [precision, recall] = [Number(fresh?.[5]), Number(fresh?.[6])];
console.log(`## Learning about the user offline (precision and recall)

A user turn is positive when it states something lasting about the user (a preference, a rule for the assistant, a constraint, a personal fact); one-off requests, feelings, small talk, questions, plans and other people's preferences are negatives. English and Chinese. "fresh3" (201 turns) was written and committed before the third pass of the rules and never tuned on: it is the held-out figure. Every other row is in-sample: "tune", "fresh" and "fresh2" were tuned on by the first, second and third pass, "tune3" was written to tune the third pass, and "held-out" was written with the rules in view.

${rows}

- fresh3 set: precision ≥ 0.8 (${precision.toFixed(2)}): **${precision >= 0.8 ? "met" : "not met"}**
- fresh3 set: recall ≥ 0.7 (${recall.toFixed(2)}): **${recall >= 0.7 ? "met" : "not met"}**`);
