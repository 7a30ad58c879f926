// `npm test`: every test, from a fresh clone. Bootstraps (incl. chromium for
// the browser test), runs the Rust tests, builds the package, then runs the
// JS tests against the built package in Node, headless Chromium and workerd.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { root, run, step } from "./lib.mjs";

run("node", ["scripts/setup.mjs", "--browser"]);

step("cargo test (core: unit, property and tokenizer-equivalence tests)");
run("cargo", ["test", "--release"], { timed: true });

run("node", ["scripts/build.mjs"]);

step("node --test (the built package in Node, Chromium and workerd)");
const files = readdirSync(join(root, "tests", "js")).filter((f) => f.endsWith(".test.mjs")).map((f) => join("tests", "js", f));
run("node", ["--test", "--test-concurrency=1", ...files], { timed: true });
