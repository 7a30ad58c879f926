// Build: cargo (wasm32, release) → wasm-bindgen CLI → wasm-opt (npm binaryen)
// → dist/, plus the gzip rank assets, then print what a browser loads.
import { copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { gzipSync, constants } from "node:zlib";
import { root, toolsBin, targetDir, run, step } from "./lib.mjs";
import { toFactory } from "./glue-factory.mjs";

const dist = join(root, "dist");
const wasmOut = join(dist, "wasm");
const ranksOut = join(dist, "ranks");

step("cargo build --release --target wasm32-unknown-unknown");
run("cargo", ["build", "--release", "--lib", "--target", "wasm32-unknown-unknown"], { timed: true });

rmSync(dist, { recursive: true, force: true });
mkdirSync(wasmOut, { recursive: true });
mkdirSync(ranksOut, { recursive: true });

// wasm-bindgen and wasm-opt (most of a warm build) run only when their input
// changed: the cargo output, the glue rewrite and the build script itself.
// Their output is kept beside the cargo target, keyed by a hash of those.
const built = join(targetDir, "wasm32-unknown-unknown", "release", "agent_memory.wasm");
const stamp = createHash("sha256")
  .update(readFileSync(built))
  .update(readFileSync(join(root, "scripts", "glue-factory.mjs")))
  .update(readFileSync(join(root, "scripts", "build.mjs")))
  .digest("hex");
const cached = join(targetDir, "wasm-out", stamp);
const bg = join(wasmOut, "agent_memory_bg.wasm");
if (existsSync(join(cached, "done"))) {
  step("wasm-bindgen and wasm-opt: unchanged input, their last output reused");
  for (const f of readdirSync(cached).filter((f) => f !== "done")) copyFileSync(join(cached, f), join(wasmOut, f));
} else {
  step("wasm-bindgen");
  run(join(toolsBin, "wasm-bindgen"), [built, "--out-dir", wasmOut, "--target", "web", "--omit-default-module-path"]);
  const glue = join(wasmOut, "agent_memory.js");
  writeFileSync(glue, toFactory(readFileSync(glue, "utf8"), readFileSync(join(wasmOut, "agent_memory.d.ts"), "utf8")));

  // -Os, repeated until the size stops falling: 2.3 KB gzip smaller than
  // -O3 (which inlines more), with no loss in counting throughput measured
  // (bench/tokens.mjs, 2026-12-02); the rest of the speed comes from rustc.
  // --low-memory-unused folds a constant added to an address into the
  // access's offset (2.9 KB gzip): that differs only for an address that
  // wraps past 4 GiB to the lowest 1 KB, which no Rust pointer does (the
  // stack's bottom, data from 1 MiB up). Not --ignore-implicit-traps: it
  // lets wasm-opt run a load the program would not have run (a branch made
  // a select), and at 59c89b1 such a load trapped out of bounds in
  // tests/js/openai-client.test.mjs, depending on what earlier calls had
  // left in memory; its 0.2 KB is not worth a crash. The producers and
  // target-features sections are read by no runtime. A first -Os, then
  // --gufa (what flows where, across the whole module) before the rest:
  // 0.1 KB, where GUFA first or not at all is larger.
  step("wasm-opt -Os --gufa -Os --converge");
  run(join(root, "node_modules", ".bin", "wasm-opt"), [
    bg,
    "--low-memory-unused",
    "-Os",
    "--gufa",
    "-Os",
    "--converge",
    "--strip-producers",
    "--strip-target-features",
    "--enable-bulk-memory",
    "--enable-nontrapping-float-to-int",
    "--enable-sign-ext",
    "--enable-mutable-globals",
    "--enable-simd",
    "-o",
    bg,
  ]);
  rmSync(join(targetDir, "wasm-out"), { recursive: true, force: true });
  mkdirSync(cached, { recursive: true });
  for (const f of readdirSync(wasmOut)) copyFileSync(join(wasmOut, f), join(cached, f));
  writeFileSync(join(cached, "done"), "");
}

step("rank assets");
const rankCache = join(targetDir, "ranks");
if (!existsSync(join(rankCache, "o200k_base.bin")) || !existsSync(join(rankCache, "cl100k_base.bin"))) {
  run("cargo", ["run", "--release", "--example", "gen_ranks", "--", rankCache]);
}
for (const name of ["o200k_base", "cl100k_base"]) {
  writeFileSync(
    join(ranksOut, `${name}.bin`),
    gzipSync(readFileSync(join(rankCache, `${name}.bin`)), { level: constants.Z_BEST_COMPRESSION }),
  );
}

// js/ as it is laid out (entries, internal, storage, hooks, integrations/…).
cpSync(join(root, "js"), dist, { recursive: true });

step("sizes (what a browser loads)");
const gz = (p) => gzipSync(readFileSync(p), { level: 9 }).length;
const row = (label, p, alreadyGzip = false) => {
  const raw = statSync(p).size;
  console.log(
    `  ${label.padEnd(28)} ${(raw / 1024).toFixed(1).padStart(9)} KB raw ${((alreadyGzip ? raw : gz(p)) / 1024).toFixed(1).padStart(9)} KB gzip`,
  );
};
row("wasm/agent_memory_bg.wasm", bg);
row("wasm/agent_memory.js", join(wasmOut, "agent_memory.js"));
row("browser.js", join(dist, "browser.js"));
for (const name of ["o200k_base", "cl100k_base"]) row(`ranks/${name}.bin (gzip)`, join(ranksOut, `${name}.bin`), true);
