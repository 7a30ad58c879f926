// What an edit costs at scale: `forget` of one message, `replace` of one
// (a chat UI's edit) and `truncateAfter` (a regenerate) in a namespace of
// 1,000 and of 100,000 messages, against the memory the controller itself
// holds. Before 0.2 an edit prepared its result on a copy of the whole
// controller, so wasm memory doubled at 100,000 messages for a one-message
// edit; it is now applied in place and undone if its save fails.
//
//   node bench/edits.mjs
//   BENCH_SCALE_KEEP=/tmp/scale node bench/edits.mjs   (reuse bench/scale.mjs's built namespaces)
//   BENCH_DIST=/path/to/dist/node.js node bench/edits.mjs   (another build, for a before/after)
//
// Input: bench/scale.mjs's namespaces (bench/history.mjs, built through the
// package). Each edit runs in its own Node process: open the stored
// namespace in `memoryStorage`, build a context with a query (which builds
// the search index, as a live app has), read everything an edit reads (the
// archive, whole: `episodes()`; a query alone reads only what it shows),
// read the wasm memory (the controller's own), then the
// edit, timed, then the wasm memory again (`WebAssembly.Memory` never
// shrinks, so it is the edit's peak). `forget` removes the message a third
// of the way in (an archived one, which bench/scale.mjs's question finds),
// `replace` the newest user message and what follows it, `truncateAfter`
// the last four messages.

import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { fixed, int, isMain, median, mib, pct, table, verdict } from "./lib.mjs";
import { undump } from "./scale.mjs";

const SIZES = (process.env.BENCH_SCALE_SIZES ?? "1000,100000").split(",").map(Number);
const RUNS = Number(process.env.BENCH_RUNS) || 3;
const EDITS = ["forget", "replace", "truncateAfter"];
const HERE = fileURLToPath(import.meta.url);
const SCALE = fileURLToPath(new URL("./scale.mjs", import.meta.url));
const DIST = process.env.BENCH_DIST ? pathToFileURL(process.env.BENCH_DIST).href : new URL("../dist/node.js", import.meta.url).href;
const options = (storage) => ({ namespace: "scale", model: "gpt-4o", storage });

/** Child: one edit on the namespace in `file`; prints its time and memory. */
async function edit(file, kind, factId) {
  const { MemoryController, memoryStorage, wasmMemoryBytes } = await import(DIST);
  const storage = memoryStorage();
  for (const { key, data } of undump(file)) await storage.save(key, data);
  const memory = await MemoryController.create(options(storage));
  await memory.buildContext({ maxTokens: 8000, reserveOutput: 1000, query: "What did we decide about the weather report?" });
  // An edit reads the archive whole; a query reads only what it shows.
  await memory.episodes();
  // The search index built over what the whole read holds, as a session's
  // next query builds it.
  await memory.buildContext({ maxTokens: 8000, reserveOutput: 1000, query: "Which tool results did we use?" });
  // The newest messages only: the whole history as JS would be a copy of its own.
  const newest = await memory.history({ limit: 8 });
  const own = wasmMemoryBytes();
  const lastUser = newest.findLast((m) => m.message.role === "user").id;
  const t0 = performance.now();
  let out;
  if (kind === "forget") out = await memory.forget(factId);
  else if (kind === "replace") out = (await memory.replace(lastUser, { role: "user", content: "Edited: what about tomorrow?" })).forgotten;
  else out = await memory.truncateAfter(newest.at(-5).id);
  const ms = performance.now() - t0;
  const after = wasmMemoryBytes();
  // What the edit leaves to the next call: a query after it.
  const t1 = performance.now();
  await memory.buildContext({ maxTokens: 8000, reserveOutput: 1000, query: "What is the code word of my locker?" });
  const next = performance.now() - t1;
  await memory.close();
  return { ms, next, own, after, forgotten: out.messages };
}

function child(args) {
  const r = spawnSync(process.execPath, ["--max-old-space-size=4096", ...args], {
    encoding: "utf8",
    maxBuffer: 64 << 20,
    stdio: ["ignore", "pipe", "inherit"],
  });
  if (r.status !== 0) throw new Error(`${args.join(" ")} failed (${r.status})`);
  return JSON.parse(r.stdout.trim().split("\n").at(-1));
}

export async function run() {
  const keep = process.env.BENCH_SCALE_KEEP;
  const dir = keep ?? mkdtempSync(join(tmpdir(), "am-edits-"));
  mkdirSync(dir, { recursive: true });
  const rows = [];
  const growth = {};
  try {
    for (const n of SIZES) {
      const file = join(dir, `scale-${n}.bin`);
      const meta = join(dir, `scale-${n}.json`);
      if (!(existsSync(meta) && existsSync(file))) writeFileSync(meta, JSON.stringify(child([SCALE, "build", String(n), file])));
      const { factId } = JSON.parse(readFileSync(meta, "utf8"));
      for (const kind of EDITS) {
        const runs = Array.from({ length: RUNS }, () => child([HERE, "edit", file, kind, factId]));
        const own = median(runs.map((r) => r.own));
        const after = median(runs.map((r) => r.after));
        growth[`${kind}@${n}`] = (after - own) / own;
        rows.push([
          int(n),
          `\`${kind}\``,
          int(runs[0].forgotten),
          `${fixed(median(runs.map((r) => r.ms)), 1)} ms`,
          `${fixed(median(runs.map((r) => r.next)), 1)} ms`,
          mib(own),
          mib(after),
          pct((after - own) / own),
        ]);
      }
    }
  } finally {
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
  const out = ["## Edits: forget, replace, truncateAfter at scale\n"];
  out.push(
    "bench/scale.mjs's namespaces, opened in `memoryStorage`, everything an edit reads read first (a `buildContext` with a query, then `episodes()` reads the archive whole, then another `buildContext` with a query builds the search index over it), " +
      `then one edit, timed (median of ${RUNS} processes), and the \`buildContext\` with a query after it (what the edit leaves to the next call). Memory: \`wasmMemoryBytes()\` before the edit (the controller's own) and after it (the edit's peak: wasm memory never shrinks).` +
      (process.env.BENCH_DIST ? ` Build: ${process.env.BENCH_DIST}.` : "") +
      "\n",
  );
  out.push(table(["messages", "edit", "messages removed", "time", "next query", "memory before", "after", "growth"], rows));
  const big = SIZES.at(-1);
  out.push("");
  for (const kind of EDITS) {
    const g = growth[`${kind}@${big}`];
    out.push(`- Memory growth of a \`${kind}\` at ${int(big)} messages: ${pct(g)} (target ≤ 10 %): ${verdict(g <= 0.1)}`);
  }
  return out.join("\n");
}

if (isMain(import.meta.url)) {
  const [mode, a, b] = process.argv.slice(2);
  if (mode === "edit") console.log(JSON.stringify(await edit(a, b, process.argv[5])));
  else console.log(await run());
}
