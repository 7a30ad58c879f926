// The package as users get it: `npm pack` the built repo, check what the
// tarball holds against what `exports` and the entries' own imports need,
// then install the tarball (offline: it has no dependencies) into three
// consumer projects made from tests/packaging/ and run the same
// conversation (tests/packaging/conversation.js) in each:
// - node-esm: plain `node index.mjs`, plus the public subpaths
//   (`agent-memory/package.json`, `agent-memory/testing`), a deep import that
//   must be refused, and `tsc --strict` against the installed declarations;
// - vite-page: `vite build`, the built page served on 127.0.0.1 and run in
//   Debian's chromium;
// - workerd-app: bundled by `wrangler deploy --dry-run`, run in miniflare.
// All three must report exactly the same numbers, and Node's token counts
// must equal gpt-tokenizer's.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, normalize, posix } from "node:path";
import { fileURLToPath } from "node:url";
import { Miniflare } from "miniflare";
import { encode as o200k } from "gpt-tokenizer/encoding/o200k_base";
import { encode as cl100k } from "gpt-tokenizer/encoding/cl100k_base";
import { launchChromium, WORKERD_MODULE_RULES, serveStatic, watchErrors } from "./harness.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const templates = join(root, "tests", "packaging");
const bin = (pkg, path) => join(root, "node_modules", pkg, path); // tools come from the repo, not per consumer
let tmp, tarball, packed, nodeOutput;

function run(cmd, args, cwd, env = {}) {
  const res = spawnSync(cmd, args, { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1", ...env }, maxBuffer: 64 * 1024 * 1024 });
  assert.equal(res.status, 0, `${cmd} ${args.join(" ")} in ${cwd}:\n${res.stdout}\n${res.stderr}`);
  return res.stdout;
}

// A consumer project: its template, the shared conversation, and the
// tarball installed from the local file with no registry access.
function consumer(name) {
  const dir = join(tmp, name);
  cpSync(join(templates, name), dir, { recursive: true });
  cpSync(join(templates, "conversation.js"), join(dir, "conversation.js"));
  run("npm", ["install", tarball, "--no-audit", "--no-fund", "--offline", "--no-package-lock"], dir);
  return dir;
}

before(() => {
  assert.ok(existsSync(join(root, "dist", "node.js")), "build first: node scripts/build.mjs");
  tmp = mkdtempSync(join(tmpdir(), "am-pack-"));
  [packed] = JSON.parse(run("npm", ["pack", "--json", "--pack-destination", tmp], root));
  tarball = join(tmp, packed.filename);
});

after(() => tmp && rmSync(tmp, { recursive: true, force: true }));

test("the tarball: every exports target and every file the entries load is in it, nothing else", () => {
  const files = new Set(packed.files.map((f) => f.path));
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const targets = [];
  const walk = (v) => (typeof v === "string" ? targets.push(v) : Object.values(v).forEach(walk));
  walk(pkg.exports);
  for (const t of [...targets, pkg.main, pkg.module, pkg.types]) assert.ok(files.has(posix.normalize(t)), `exports target ${t} is not in the tarball`);
  // Relative imports and `new URL("./…", import.meta.url)` assets of every
  // shipped module; `${encoding}` stands for both rank assets.
  for (const f of files) {
    if (!/\.(js|d\.ts)$/.test(f)) continue;
    const src = readFileSync(join(root, f), "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, ""); // code, not comments
    for (const [, spec] of src.matchAll(/(?:from\s*|import\s*\(\s*|new URL\(\s*)["'`](\.\.?\/[^"'`]+)["'`]/g)) {
      for (const enc of spec.includes("${encoding}") ? ["o200k_base", "cl100k_base"] : [null]) {
        let target = posix.join(posix.dirname(f), enc ? spec.replace("${encoding}", enc) : spec);
        if (f.endsWith(".d.ts")) target = target.replace(/\.js$/, ".d.ts");
        assert.ok(files.has(target), `${f} needs ${target}, which is not in the tarball`);
      }
    }
  }
  const stray = [...files].filter((f) => !/^(dist\/|README\.md$|package\.json$|LICENSE)/.test(f) || /\.(rs|map|tsbuildinfo)$/.test(f));
  assert.deepEqual(stray, []);
  console.log(`tarball ${packed.filename}: ${(packed.size / 1024).toFixed(0)} KB packed, ${(packed.unpackedSize / 1024).toFixed(0)} KB unpacked, ${files.size} files`);
});

test("node-esm consumer: a conversation, the public subpaths, and tsc on the declarations", () => {
  const dir = consumer("node-esm");
  const out = JSON.parse(run(process.execPath, ["index.mjs"], dir));
  nodeOutput = out.result;
  const r = out.result;
  const { SAMPLES } = readConversationSamples();
  assert.deepEqual(r.countTokens, SAMPLES.map((s) => o200k(s, { disallowedSpecial: new Set() }).length), "o200k counts equal gpt-tokenizer's");
  assert.deepEqual(r.countTokensCl100k, SAMPLES.map((s) => cl100k(s, { disallowedSpecial: new Set() }).length), "cl100k counts equal gpt-tokenizer's");
  assert.ok(r.compactions > 0 && r.stats.episodes > 0, "the small working memory compacted");
  assert.equal(r.stats.messages.total, 24);
  assert.ok(r.context.exact && r.context.withinBudget, "ctx.tokens is within budget and equals a recount");
  assert.ok(r.context.hidden > 0 && r.context.messages[0].content.startsWith("You are a travel assistant"));
  assert.ok(r.search.some((h) => /peanuts/.test(h.text)));
  for (const name of ["MemoryController", "fromModelMessages", "toModelMessages", "nodeFileStorage", "durableObjectStorage", "memoryStorage", "wasmMemoryBytes"]) assert.ok(out.exports.includes(name), `missing export ${name}`);
  assert.equal(out.packageName, "agent-memory");
  assert.ok(out.testingExports.includes("runStorageAdapterTests"));
  assert.ok(out.suite.cases >= 14);
  assert.deepEqual(out.suite.failed, []);
  assert.equal(out.deepImport, "ERR_PACKAGE_PATH_NOT_EXPORTED");
  assert.equal(out.resolved, "node_modules/agent-memory/package.json");
  // The declarations as a TypeScript consumer sees them, under both resolutions.
  // tsconfig.json is a typical app's (lib es2022, skipLibCheck); the
  // declarations themselves are checked too, which needs esnext's
  // Symbol.dispose (wasm-bindgen declares `[Symbol.dispose]()` on classes).
  const tsc = bin("typescript", "bin/tsc");
  run(process.execPath, [tsc, "-p", "tsconfig.json"], dir);
  run(process.execPath, [tsc, "-p", "tsconfig.json", "--module", "esnext", "--moduleResolution", "bundler"], dir);
  run(process.execPath, [tsc, "-p", "tsconfig.json", "--skipLibCheck", "false", "--lib", "esnext,dom"], dir);
});

function readConversationSamples() {
  const src = readFileSync(join(templates, "conversation.js"), "utf8");
  return { SAMPLES: new Function(`${/const SAMPLES = \[[\s\S]*?\];/.exec(src)[0]} return SAMPLES;`)() };
}


test("vite-page consumer: vite build, served, run in chromium, same numbers as Node", async () => {
  const dir = consumer("vite-page");
  run(process.execPath, [bin("vite", "bin/vite.js"), "build", "--logLevel", "warn"], dir);
  const built = join(dir, "dist");
  const assets = readdirSync(join(built, "assets"));
  assert.ok(assets.some((f) => f.endsWith(".wasm")), `the wasm is emitted: ${assets}`);
  for (const enc of ["o200k_base", "cl100k_base"]) assert.ok(assets.some((f) => f.startsWith(enc) && f.endsWith(".bin")), `${enc} rank asset is emitted: ${assets}`);

  const server = await serveStatic(built);
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const errors = [];
    watchErrors(page, errors);
    page.on("requestfailed", (r) => errors.push(`request failed: ${r.url()}`));
    page.on("response", (r) => r.status() >= 400 && errors.push(`HTTP ${r.status()}: ${r.url()}`));
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    await page.waitForFunction(() => window.__result || window.__error, null, { timeout: 60_000 });
    const { result, error } = await page.evaluate(() => ({ result: window.__result, error: window.__error }));
    assert.equal(error, undefined, error);
    assert.deepEqual(errors, []);
    assert.ok(nodeOutput, "the node-esm consumer ran first");
    assert.deepEqual(result, nodeOutput, "the browser reports exactly what Node reports");
  } finally {
    await browser.close();
    server.close();
  }
});

test("workerd-app consumer: wrangler bundle, run in miniflare, same numbers as Node", async () => {
  const dir = consumer("workerd-app");
  run(process.execPath, [bin("wrangler", "bin/wrangler.js"), "deploy", "--dry-run", "--outdir", "bundle"], dir, { WRANGLER_SEND_METRICS: "false", CI: "1" });
  const mf = new Miniflare({
    modules: true,
    scriptPath: join(dir, "bundle", "index.js"),
    modulesRoot: join(dir, "bundle"),
    modulesRules: WORKERD_MODULE_RULES,
    compatibilityDate: "2026-04-01",
  });
  try {
    const body = await (await mf.dispatchFetch("http://localhost/")).json();
    assert.equal(body.error, undefined, body.error);
    assert.ok(nodeOutput, "the node-esm consumer ran first");
    assert.deepEqual(body.result, nodeOutput, "workerd reports exactly what Node reports");
  } finally {
    await mf.dispose();
  }
});
