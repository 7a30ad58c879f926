// Redaction before storing: credential recall and look-alike false
// positives of `src/redact/` on tests/fixtures/redact (see its README: a
// tune split the scanners were tuned on, a held-out split written before
// the scanners and never tuned on, and a fresh hand-written set written
// after they were frozen). The measurement is the cargo example
// `bench_redact` (the scanners are pure Rust); this prints its tables as a
// results.md section, with the targets of issue 25.
//
//   node bench/redact.mjs
import { spawnSync } from "node:child_process";
import { ROOT } from "./lib.mjs";

const run = spawnSync("cargo", ["run", "--quiet", "--release", "--example", "bench_redact"], { cwd: ROOT, encoding: "utf8" });
if (run.status !== 0) throw new Error(`cargo run --example bench_redact failed:\n${run.stderr}`);
const out = run.stdout.trim();
const row = (label, policy) =>
  out
    .split("\n")
    .find((l) => l.startsWith(`| ${label} | ${policy}`))
    ?.split("|")
    .map((c) => c.trim());
const held = row("held-out", "credentials");
const heldPersonal = row("held-out", "personal");
const fresh = row("fresh (held out)", "credentials");
const recall = Number(held?.[4]);
const fp = Math.max(Number(held?.[8].replace(" %", "")), Number(heldPersonal?.[8].replace(" %", "")));
console.log(`## Redaction

Credentials (and, with \`{ personal: true }\`, personal data) in chat turns, code, configuration and JSON tool results, English and Chinese, from \`tests/fixtures/redact/\`. A secret is caught when none of its bytes survive (no 12-byte window of it) and *kind right* when its placeholder names its kind; a look-alike (git hash, UUID, order number, base64 image, ordinary number, URL without a password, identifier such as \`sk-learn\`) is a false positive when it no longer appears byte for byte. "tune" is in-sample; "held-out" was generated from other templates before the scanners existed; "fresh" was written by hand after they were frozen, in contexts they were not written against, and never tuned on (it includes misses by design: an AWS secret in a CSV file without its name, landline numbers without \`+\`).

${out}

- held-out: credential recall ≥ 0.99 (${recall.toFixed(3)}): **${recall >= 0.99 ? "met" : "not met"}**
- held-out: look-alikes altered ≤ 1 % (${fp.toFixed(2)} %): **${fp <= 1 ? "met" : "not met"}**
- fresh (hand-written, held out): credential recall ${Number(fresh?.[4]).toFixed(3)}, look-alikes altered ${fresh?.[8]}`);
