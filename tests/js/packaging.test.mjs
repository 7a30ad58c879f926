// The package as users get it: `npm pack` the built repo, check what the
// tarball holds against what `exports` and the entries' own imports need,
// then install the tarball (offline: it has no dependencies) into consumer
// projects made from tests/packaging/ and build and run each the way its
// users do, with the bundler's default settings:
// - node-esm: plain `node index.mjs`, a deep import that must be refused, and
//   `tsc --strict` against the installed declarations of every subpath;
// - vite-page built by Vite 5, 6, 7 and 8, webpack-page by webpack 5,
//   esbuild-page by esbuild (its assets copied, or located by the host's
//   `ready({ wasm })` and `create({ ranks })`): each served on 127.0.0.1 and
//   run in Debian's chromium;
// - next-app built by `next build` (Turbopack) and `next build --webpack`,
//   with no next.config: its client component run in chromium, its Node
//   route handler called over HTTP from `next start`;
// - workerd-app: bundled by `wrangler deploy --dry-run`, run in miniflare;
// - node-mcp: the `agent-memory-mcp` bin and `agent-memory/mcp`, first
//   without their optional peer (the bin says how to run it), then with the
//   MCP SDK installed beside the package: the bin driven over stdio by the
//   SDK's client, and `tsc --strict` on the declarations.
// Each runs tests/packaging/conversation.js and imports every subpath of
// `exports` but those that need an optional peer: all must report exactly the same numbers and export names, and
// Node's token counts must equal gpt-tokenizer's. Tools come from the repo's
// devDependencies; each build's time is printed by node:test, its sizes here.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, posix } from "node:path";
import { Miniflare } from "miniflare";
import { transform } from "esbuild";
import { encode as o200k } from "gpt-tokenizer/encoding/o200k_base";
import { encode as cl100k } from "gpt-tokenizer/encoding/cl100k_base";
import { launchChromium, WORKERD_MODULE_RULES, serveStatic } from "./harness.mjs";
import { spawnSync } from "node:child_process";
import {
  allModuleSubpaths,
  bin,
  consumer,
  linkDependencies,
  moduleSubpaths,
  pageReport,
  root,
  run,
  sizes,
  startServer,
} from "../packaging/support.mjs";
import { SAMPLES } from "../packaging/conversation.js";

const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
const RANK_FILES = ["o200k_base", "cl100k_base"];
let tmp, tarball, packed, nodeReport, browserExports, browser;

before(async () => {
  assert.ok(existsSync(join(root, "dist", "node.js")), "build first: node scripts/build.mjs");
  tmp = mkdtempSync(join(tmpdir(), "am-pack-"));
  [packed] = JSON.parse(run("npm", ["pack", "--json", "--pack-destination", tmp], root));
  tarball = join(tmp, packed.filename);
});

after(async () => {
  await browser?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

const chromium = async () => (browser ??= await launchChromium());

/** The shipped JS modules (not declarations), as [path in the package, source]. */
const shippedModules = () =>
  packed.files.filter((f) => f.path.endsWith(".js")).map((f) => [f.path, readFileSync(join(root, f.path), "utf8")]);
/** Code, not comments (roughly: enough for the imports and URLs matched here). */
const code = (src) => src.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");

test("the tarball: every exports target and every file the entries load is in it, nothing else", () => {
  const files = new Set(packed.files.map((f) => f.path));
  const targets = [];
  const walk = (v) => (typeof v === "string" ? targets.push(v) : Object.values(v).forEach(walk));
  walk(pkg.exports);
  for (const t of [...targets, pkg.main, pkg.module, pkg.types])
    assert.ok(files.has(posix.normalize(t)), `exports target ${t} is not in the tarball`);
  // Relative imports and `new URL("./…", import.meta.url)` assets of every shipped module.
  for (const f of files) {
    if (!/\.(js|d\.ts)$/.test(f)) continue;
    const src = code(readFileSync(join(root, f), "utf8"));
    for (const [, spec] of src.matchAll(/(?:from\s*|import\s*\(\s*|new URL\(\s*)["'`](\.\.?\/[^"'`]+)["'`]/g)) {
      let target = posix.join(posix.dirname(f), spec);
      if (f.endsWith(".d.ts")) target = target.replace(/\.js$/, ".d.ts");
      assert.ok(files.has(target), `${f} needs ${target}, which is not in the tarball`);
    }
  }
  const stray = [...files].filter((f) => !/^(dist\/|README\.md$|package\.json$|LICENSE)/.test(f) || /\.(rs|map|tsbuildinfo)$/.test(f));
  assert.deepEqual(stray, []);
  console.log(
    `tarball ${packed.filename}: ${(packed.size / 1024).toFixed(0)} KB packed, ${(packed.unpackedSize / 1024).toFixed(0)} KB unpacked, ${files.size} files`,
  );
});

test("no shipped module awaits at top level, and every asset URL is a literal path bundlers can emit", async () => {
  for (const [f, src] of shippedModules()) {
    // esbuild refuses top-level await under an es2020 target, as Vite 5 and 6 do by default.
    await assert.doesNotReject(
      transform(src, { format: "esm", target: "es2020", loader: "js", logLevel: "silent" }),
      `${f} awaits at top level`,
    );
    for (const [call] of code(src).matchAll(/new URL\([^)]*import\.meta\.url\s*\)/g)) {
      assert.match(call, /^new URL\(\s*"\.\/[^"$`]+",\s*import\.meta\.url\s*\)$/, `${f}: ${call} is not a literal path`);
    }
  }
  const rankURLs = shippedModules().flatMap(([, src]) =>
    [...code(src).matchAll(/new URL\("\.\/ranks\/([a-z0-9_]+)\.bin", import\.meta\.url\)/g)].map((m) => m[1]),
  );
  for (const name of RANK_FILES) assert.ok(rankURLs.includes(name), `no static new URL names ranks/${name}.bin`);
});

test("node-esm consumer: the conversation, every subpath, and tsc on the declarations", async () => {
  const dir = consumer(tmp, "node-esm", tarball);
  const out = JSON.parse(run(process.execPath, ["index.mjs"], dir));
  nodeReport = out.report;
  const r = nodeReport.conversation;
  assert.deepEqual(
    r.ready,
    { before: "NOT_READY", bytesBefore: 0, value: null, hits: r.ready.hits },
    "before ready() the sync classes refuse and no wasm memory exists",
  );
  assert.ok(r.ready.hits.length > 0, "after ready() a Bm25Index works");
  assert.deepEqual(
    r.countTokens,
    SAMPLES.map((s) => o200k(s, { disallowedSpecial: new Set() }).length),
    "o200k counts equal gpt-tokenizer's",
  );
  assert.deepEqual(
    r.countTokensCl100k,
    SAMPLES.map((s) => cl100k(s, { disallowedSpecial: new Set() }).length),
    "cl100k counts equal gpt-tokenizer's",
  );
  assert.ok(r.compactions > 0 && r.stats.episodes > 0, "the small working memory compacted");
  assert.equal(r.stats.messages.total, 24);
  assert.ok(r.context.exact && r.context.withinBudget, "ctx.tokens is within budget and equals a recount");
  assert.ok(r.context.hidden > 0 && r.context.messages[0].content.startsWith("You are a travel assistant"));
  assert.ok(r.search.some((h) => /peanuts/.test(h.text)));
  assert.deepEqual(Object.keys(nodeReport.exports), moduleSubpaths(pkg), "every module subpath of exports was imported");
  const main = nodeReport.exports["."];
  for (const name of [
    "MemoryController",
    "ready",
    "Bm25Index",
    "VectorIndex",
    "wasmMemoryBytes",
    "fromModelMessages",
    "toModelMessages",
    "nodeFileStorage",
    "durableObjectStorage",
    "memoryStorage",
  ])
    assert.ok(main.includes(name), `missing export ${name}`);
  assert.ok(!main.some((name) => ["defineRuntime", "setRankLoader", "initSync", "default"].includes(name)), `internals leak: ${main}`);
  assert.equal(out.packageName, "agent-memory");
  assert.ok(nodeReport.exports["./testing"].includes("runStorageAdapterTests"));
  assert.ok(out.suite.cases >= 14);
  assert.deepEqual(out.suite.failed, []);
  assert.equal(out.deepImport, "ERR_PACKAGE_PATH_NOT_EXPORTED");
  assert.equal(out.resolved, "node_modules/agent-memory/package.json");
  // The browser and workerd entries export the same as Node's but nodeFileStorage.
  browserExports = { ...nodeReport.exports, ".": Object.keys(await import(join(root, "dist", "browser.js"))).sort() };
  assert.deepEqual(
    main.filter((n) => !browserExports["."].includes(n)),
    ["nodeFileStorage"],
  );
  // The declarations as a TypeScript consumer sees them, under both resolutions
  // (subpaths.js is type-checked too: every subpath must ship types).
  // tsconfig.json is a typical app's (lib es2022, skipLibCheck); the
  // declarations themselves are checked too, which needs esnext's
  // Symbol.dispose (wasm-bindgen declares `[Symbol.dispose]()` on classes).
  const tsc = bin("typescript", "bin/tsc");
  run(process.execPath, [tsc, "-p", "tsconfig.json"], dir);
  run(process.execPath, [tsc, "-p", "tsconfig.json", "--module", "esnext", "--moduleResolution", "bundler"], dir);
  run(process.execPath, [tsc, "-p", "tsconfig.json", "--skipLibCheck", "false", "--lib", "esnext,dom"], dir);
});

/** Serves `dir`, runs `page` in chromium; the report must equal Node's. Returns the paths it fetched. */
async function servedPageMatchesNode(dir, page = "") {
  assert.ok(nodeReport, "the node-esm consumer ran first");
  const server = await serveStatic(dir);
  try {
    const { result, requested } = await pageReport(await chromium(), `http://127.0.0.1:${server.address().port}/${page}`);
    assert.deepEqual(result.conversation, nodeReport.conversation, "the browser reports exactly what Node reports");
    assert.deepEqual(result.exports, browserExports, "every subpath exports the same names");
    return requested;
  } finally {
    server.close();
  }
}

/** The wasm and each rank file among `names`, emitted asset names (webpack's are only a hash). */
function assertAssets(names, where) {
  assert.equal(names.filter((f) => f.endsWith(".wasm")).length, 1, `${where}: the wasm is emitted: ${names}`);
  const ranks = names.filter((f) => f.endsWith(".bin"));
  assert.equal(ranks.length, RANK_FILES.length, `${where}: each rank file is emitted: ${names}`);
  if (!ranks.every((f) => /^[0-9a-f]+\.bin$/.test(f)))
    for (const enc of RANK_FILES)
      assert.ok(
        ranks.some((f) => f.includes(enc)),
        `${where}: ${enc} is emitted: ${names}`,
      );
}

for (const major of [5, 6, 7, 8]) {
  test(`vite-page consumer, Vite ${major}: default build, run in chromium, same numbers as Node`, async () => {
    const dir = consumer(tmp, "vite-page", tarball, `vite${major}-page`);
    run(process.execPath, [bin(`vite${major}`, "bin/vite.js"), "build", "--logLevel", "warn"], dir);
    const built = join(dir, "dist");
    assertAssets(readdirSync(join(built, "assets")), `Vite ${major}`);
    const requested = await servedPageMatchesNode(built);
    assert.ok(
      RANK_FILES.every((enc) => requested.some((p) => p.includes(enc))),
      `both rank files were fetched: ${requested}`,
    );
    console.log(`Vite ${major}: JS ${sizes(built, /\.js$/).text}; wasm + ranks ${sizes(built, /\.(wasm|bin)$/).text}`);
  });
}

test("webpack-page consumer, webpack 5: plain config, run in chromium, same numbers as Node", async () => {
  const dir = consumer(tmp, "webpack-page", tarball);
  // What `webpack` (webpack-cli) does with webpack.config.js, through webpack's own API.
  const script = `import webpack from ${JSON.stringify(bin("webpack", "lib/index.js"))};
import config from "./webpack.config.js";
webpack(config, (err, stats) => {
  if (err || stats.hasErrors()) { console.error(err ?? stats.toString("errors-only")); process.exit(1); }
  if (stats.hasWarnings()) console.error(stats.toString("errors-warnings"));
});`;
  run(process.execPath, ["--input-type=module", "-e", script], dir);
  const built = join(dir, "dist");
  assertAssets(readdirSync(built), "webpack");
  await servedPageMatchesNode(dir);
  console.log(`webpack 5: JS ${sizes(built, /\.js$/).text}; wasm + ranks ${sizes(built, /\.(wasm|bin)$/).text}`);
});

test("esbuild-page consumer: bundle, assets beside it or named by the host, run in chromium, same numbers as Node", async () => {
  const dir = consumer(tmp, "esbuild-page", tarball);
  run(
    bin("esbuild", "bin/esbuild"),
    ["main.js", "options.js", "--bundle", "--format=esm", "--minify", "--outdir=dist", "--log-level=warning"],
    dir,
  );
  // The documented build step: the package's wasm/ and ranks/ beside the bundle…
  const pkgDist = join(dir, "node_modules", "agent-memory", "dist");
  for (const sub of ["wasm", "ranks"]) cpSync(join(pkgDist, sub), join(dir, "dist", sub), { recursive: true });
  // …or anywhere, named by ready({ wasm }) and create({ ranks }) (options.js).
  cpSync(join(pkgDist, "wasm", "agent_memory_bg.wasm"), join(dir, "dist", "static", "agent_memory_bg.wasm"));
  for (const enc of RANK_FILES) cpSync(join(pkgDist, "ranks", `${enc}.bin`), join(dir, "dist", "static", `${enc}.bin`));
  const beside = await servedPageMatchesNode(dir, "index.html");
  assert.ok(
    beside.includes("/dist/wasm/agent_memory_bg.wasm") && beside.includes("/dist/ranks/o200k_base.bin"),
    `fetched beside the bundle: ${beside}`,
  );
  const named = await servedPageMatchesNode(dir, "options.html");
  assert.ok(
    named.includes("/dist/static/agent_memory_bg.wasm") && named.includes("/dist/static/cl100k_base.bin"),
    `fetched where the host said: ${named}`,
  );
  assert.ok(
    !named.some((p) => p.startsWith("/dist/wasm/") || p.startsWith("/dist/ranks/")),
    `nothing fetched from the default places: ${named}`,
  );
  console.log(`esbuild: JS ${sizes(join(dir, "dist"), /^main\.js$/).text}`);
});

let nextDir;
for (const builder of ["Turbopack", "webpack"]) {
  test(`next-app consumer, Next.js ${builder}: client component in chromium and Node route handler, same numbers as Node`, async () => {
    if (!nextDir) {
      nextDir = consumer(tmp, "next-app", tarball);
      linkDependencies(nextDir, ["next", "react", "react-dom"]);
    }
    const dir = nextDir;
    const next = join(dir, "node_modules", "next", "dist", "bin", "next");
    const env = { NEXT_TELEMETRY_DISABLED: "1" };
    rmSync(join(dir, ".next"), { recursive: true, force: true });
    run(process.execPath, [next, "build", ...(builder === "webpack" ? ["--webpack"] : [])], dir, env);
    assertAssets(readdirSync(join(dir, ".next", "static", "media")), `Next.js ${builder}`);
    const server = await startServer(process.execPath, [next, "start", "-p", "0", "-H", "127.0.0.1"], dir, env);
    try {
      const res = await fetch(`${server.url}/api/conversation`);
      const body = await res.json();
      assert.equal(body.error, undefined, body.error);
      assert.equal(res.status, 200);
      assert.deepEqual(body.conversation, nodeReport.conversation, "the route handler reports exactly what Node reports");
      assert.deepEqual(body.exports, nodeReport.exports, "the route handler sees the node entry");
      const { result } = await pageReport(await chromium(), `${server.url}/`);
      assert.deepEqual(result.conversation, nodeReport.conversation, "the client component reports exactly what Node reports");
      assert.deepEqual(result.exports, browserExports, "the client component sees the browser entry");
    } finally {
      await server.stop();
    }
    console.log(
      `Next.js ${builder}: client JS ${sizes(join(dir, ".next", "static", "chunks"), /\.js$/).text}; server ${sizes(join(dir, ".next", "server"), /\.js$/).text}`,
    );
  });
}

test("workerd-app consumer: wrangler bundle, run in miniflare, same numbers as Node", async () => {
  const dir = consumer(tmp, "workerd-app", tarball);
  run(process.execPath, [bin("wrangler", "bin/wrangler.js"), "deploy", "--dry-run", "--outdir", "bundle"], dir, {
    WRANGLER_SEND_METRICS: "false",
    CI: "1",
  });
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
    assert.ok(nodeReport, "the node-esm consumer ran first");
    assert.deepEqual(body.conversation, nodeReport.conversation, "workerd reports exactly what Node reports");
    assert.deepEqual(body.exports, browserExports, "the workerd entry exports what the browser entry does");
  } finally {
    await mf.dispose();
  }
  console.log(`wrangler: bundle ${sizes(join(dir, "bundle"), /\.(js|wasm|bin)$/).text}`);
});

test("node-mcp consumer: the bin without the optional MCP SDK says how to run it; with it, agent-memory/mcp works", () => {
  assert.deepEqual(
    allModuleSubpaths(pkg).filter((s) => !moduleSubpaths(pkg).includes(s)),
    ["./mcp"],
    "only ./mcp needs an optional peer",
  );
  const dir = consumer(tmp, "node-mcp", tarball);
  const cli = join(dir, "node_modules", ".bin", "agent-memory-mcp");
  const bare = spawnSync(cli, ["--dir", join(dir, "memory"), "--namespace", "alice"], { encoding: "utf8", input: "" });
  assert.equal(bare.status, 2, bare.stderr);
  assert.match(bare.stderr, /npx -y -p agent-memory -p @modelcontextprotocol\/sdk agent-memory-mcp/);
  // As `npx -p agent-memory -p @modelcontextprotocol/sdk` installs them: side by side.
  linkDependencies(dir, ["@modelcontextprotocol/sdk"]);
  const out = JSON.parse(run(process.execPath, ["index.mjs"], dir));
  assert.deepEqual(out.exports, ["SERVER_INFO", "createMemoryServer"]);
  assert.deepEqual(out.tools, ["remember", "recall", "forget", "search"]);
  assert.match(out.recalled, /seat: Alice prefers window seats\./, "recalled by a second process");
  run(process.execPath, [bin("typescript", "bin/tsc"), "-p", "tsconfig.json"], dir);
});
