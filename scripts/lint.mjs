// `npm run lint`: the formatting checks, Rust (`cargo fmt --check`,
// rustfmt.toml) and JS/TS (Biome, biome.json: 140 columns, the code's
// quotes and commas). `npm run lint -- --write` formats instead.
//
// Not part of `npm test` until the tree has been formatted once (then set
// AGENT_MEMORY_LINT=1 there, or make it unconditional in scripts/test.mjs).
import { existsSync } from "node:fs";
import { join } from "node:path";
import { root, run, step } from "./lib.mjs";

const write = process.argv.includes("--write");

step(write ? "cargo fmt" : "cargo fmt --check");
run("cargo", write ? ["fmt"] : ["fmt", "--check"], { timed: true });

const biome = join(root, "node_modules", "@biomejs", "biome", "bin", "biome");
if (!existsSync(biome)) {
  console.error("\n✗ Biome is not installed: run `npm ci` (it is a devDependency).");
  process.exit(1);
}
step(write ? "biome format --write" : "biome format (check)");
run("node", [biome, "format", ...(write ? ["--write"] : []), "."], { timed: true });
