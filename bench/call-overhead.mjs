// What the reset detection costs per call (js/internal/loader.js, scripts/glue-factory.mjs):
// this build as Node runs it, this build as workerd runs it (every entry into
// the module made while a run of the futures queue is pending queues a
// check; measured in Node from a copy of dist/ whose Node entry says
// `resets: true`), each against another build of the package (say, main's)
// in the same process: batches alternate, and the figure is the median of
// the paired differences. Also counted, exactly: microtasks queued per call.
//
//   node bench/call-overhead.mjs /path/to/other/dist
//
// Not in bench/run.mjs: it needs the second build.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { ROOT, median, table, fixed } from "./lib.mjs";

const other = process.argv[2];
if (!other) {
  console.error("usage: node bench/call-overhead.mjs <dist directory of the build to compare with>");
  process.exit(2);
}

// dist/ with the workerd mode switched on in the Node entry.
const eager = mkdtempSync(join(tmpdir(), "am-eager-"));
cpSync(join(ROOT, "dist"), eager, { recursive: true });
const entry = readFileSync(join(eager, "node.js"), "utf8");
const switched = entry.replace("defineRuntime({ load,", "defineRuntime({ resets: true, load,");
if (switched === entry) throw new Error("call-overhead: the Node entry's defineRuntime call changed; update this bench");
writeFileSync(join(eager, "node.js"), switched);

async function open(dir) {
  const { MemoryController } = await import(pathToFileURL(join(dir, "node.js")).href);
  const m = await MemoryController.create({ namespace: "bench", model: "gpt-4o" });
  for (let i = 0; i < 20; i++) await m.add({ role: "user", content: `message ${i}` });
  return m;
}
const [node, workerd, base] = [await open(join(ROOT, "dist")), await open(eager), await open(resolve(other))];
rmSync(eager, { recursive: true, force: true });

let k = 0;
const CASES = [
  [
    "countTokens (sync), per call",
    200,
    (m) => {
      for (let i = 0; i < 100; i++) m.countTokens("hello world");
    },
    100,
  ],
  ["history() awaited", 500, (m) => m.history(), 1],
  ["100 history() at once, per call", 20, (m) => Promise.all(Array.from({ length: 100 }, () => m.history())), 100],
  // Last: it grows the history the cases above read.
  ["add() awaited, no storage", 100, (m) => m.add({ role: "user", content: `more ${k++}` }), 1],
];
const ROUNDS = Number(process.env.BENCH_RUNS ?? 40);

/** Nanoseconds per call of `m` minus `base`'s: the median of paired batches. */
async function paired(m, n, f, per) {
  const batch = async (x) => {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await f(x);
    return ((performance.now() - t0) * 1e6) / n / per;
  };
  const d = [];
  const ours = [];
  for (let r = 0; r < ROUNDS; r++) {
    let a, b; // which goes first alternates
    if (r % 2) (a = await batch(m)), (b = await batch(base));
    else (b = await batch(base)), (a = await batch(m));
    ours.push(a);
    d.push(a - b);
  }
  return [median(ours), median(d)];
}

/** Microtasks queued (queueMicrotask) per call of `f` on `m`. */
async function microtasks(m, f, per) {
  const real = globalThis.queueMicrotask;
  let n = 0;
  globalThis.queueMicrotask = (cb) => (n++, real(cb));
  for (let i = 0; i < 10; i++) await f(m);
  globalThis.queueMicrotask = real;
  return n / 10 / per;
}

const rows = [];
for (const [name, n, f, per] of CASES) {
  const row = [name];
  for (const m of [node, workerd]) {
    const [ns, diff] = await paired(m, n, f, per);
    row.push(fixed(ns, 0), `${diff >= 0 ? "+" : ""}${fixed(diff, 0)}`);
  }
  for (const m of [base, node, workerd]) row.push(fixed(await microtasks(m, f, per), 1));
  rows.push(row);
}
console.log("## Per-call cost of the reset detection\n");
console.log(
  table(
    ["call", "Node mode, ns", "vs other build", "workerd mode, ns", "vs other build", "microtasks: other", "Node mode", "workerd mode"],
    rows,
  ),
);
