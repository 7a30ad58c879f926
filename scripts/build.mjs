// Build: cargo (wasm32, release) → wasm-bindgen CLI → wasm-opt (npm binaryen)
// → dist/, plus the gzip rank assets, then print what a browser loads.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
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

step("wasm-bindgen");
const built = join(targetDir, "wasm32-unknown-unknown", "release", "agent_memory.wasm");
run(join(toolsBin, "wasm-bindgen"), [built, "--out-dir", wasmOut, "--target", "web", "--omit-default-module-path"]);
const glue = join(wasmOut, "agent_memory.js");
writeFileSync(glue, toFactory(readFileSync(glue, "utf8"), readFileSync(join(wasmOut, "agent_memory.d.ts"), "utf8")));

step("wasm-opt -O3");
const bg = join(wasmOut, "agent_memory_bg.wasm");
run(join(root, "node_modules", ".bin", "wasm-opt"), [
  bg,
  "-O3",
  "--enable-bulk-memory",
  "--enable-nontrapping-float-to-int",
  "--enable-sign-ext",
  "--enable-mutable-globals",
  "--enable-simd",
  "-o",
  bg,
]);

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

for (const f of readdirSync(join(root, "js"))) copyFileSync(join(root, "js", f), join(dist, f));

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
row("browser.js + gunzip.js", join(dist, "browser.js"));
for (const name of ["o200k_base", "cl100k_base"]) row(`ranks/${name}.bin (gzip)`, join(ranksOut, `${name}.bin`), true);
