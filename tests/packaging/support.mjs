// What tests/js/packaging.test.mjs does to consumer projects: make one from
// its template here with the packed tarball installed, give it the repo's
// copy of a framework that must resolve from inside the project, start a
// server, run a built page in Chromium, and measure what a build emitted.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import {
  copyFileSync,
  cpSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { watchErrors } from "../js/harness.mjs";

export const root = fileURLToPath(new URL("../..", import.meta.url));
const templates = fileURLToPath(new URL(".", import.meta.url));

/** A tool's file in the repo's node_modules: tools come from devDependencies, never per consumer. */
export const bin = (pkg, path) => join(root, "node_modules", pkg, path);

export function run(cmd, args, cwd, env = {}) {
  const res = spawnSync(cmd, args, { cwd, encoding: "utf8", env: { ...process.env, NO_COLOR: "1", ...env }, maxBuffer: 64 * 1024 * 1024 });
  assert.equal(res.status, 0, `${cmd} ${args.join(" ")} in ${cwd}:\n${res.stdout}\n${res.stderr}`);
  return res.stdout;
}

/** Every subpath `exports` lists that is a module (not package.json). */
export function allModuleSubpaths(pkg) {
  return Object.keys(pkg.exports).filter((s) => !s.endsWith(".json") && !s.includes("*"));
}

/**
 * The module subpaths every consumer imports: all but those whose entry
 * (in the package at `dir`) imports an optional peer dependency, which only
 * an app that installed the peer imports (agent-memory/mcp and the MCP SDK).
 */
export function moduleSubpaths(pkg, dir = root) {
  const optional = Object.keys(pkg.peerDependenciesMeta ?? {}).filter((name) => pkg.peerDependenciesMeta[name].optional);
  return allModuleSubpaths(pkg).filter((s) => !optional.some((name) => peerImports(dir, pkg.exports[s], name)));
}

/** Whether a module an `exports` entry points to (under any condition) imports `name` (or a subpath of it). */
function peerImports(dir, entry, name) {
  if (typeof entry !== "string") return Object.values(entry).some((e) => peerImports(dir, e, name));
  if (!entry.endsWith(".js")) return false;
  const src = readFileSync(join(dir, entry), "utf8");
  return new RegExp(`from\\s*["']${name.replace(/[/.]/g, "\\$&")}(/|["'])`).test(src);
}

/**
 * A consumer project `tmp/as` from template `name`: the template, the shared
 * files, the tarball installed from the local file with no registry access,
 * and subpaths.js, which imports every subpath the installed package exports.
 */
export function consumer(tmp, name, tarball, as = name) {
  const dir = join(tmp, as);
  cpSync(join(templates, name), dir, { recursive: true });
  for (const shared of ["conversation.js", "page.js"]) cpSync(join(templates, shared), join(dir, shared));
  run("npm", ["install", tarball, "--no-audit", "--no-fund", "--offline", "--no-package-lock"], dir);
  const pkg = JSON.parse(readFileSync(join(dir, "node_modules", "agent-memory", "package.json"), "utf8"));
  const subpaths = moduleSubpaths(pkg, join(dir, "node_modules", "agent-memory"));
  const spec = (s) => JSON.stringify(s === "." ? "agent-memory" : `agent-memory/${s.slice(2)}`);
  writeFileSync(
    join(dir, "subpaths.js"),
    "// Written by the packaging test: every module subpath of the installed package's `exports`.\n" +
      subpaths.map((s, i) => `import * as m${i} from ${spec(s)};\n`).join("") +
      `export default { ${subpaths.map((s, i) => `${JSON.stringify(s)}: m${i}`).join(", ")} };\n`,
  );
  return dir;
}

/**
 * Hard links (copies across file systems) of `names` and everything they
 * depend on, from the repo's node_modules into `dir`'s, found the way Node
 * resolves them from package-lock.json. Turbopack resolves only inside the
 * project and refuses symlinks out of it; linking costs no copy.
 */
export function linkDependencies(dir, names) {
  const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8")).packages;
  const seen = new Set();
  const visit = (from, name) => {
    for (let base = from; ; base = base.slice(0, Math.max(0, base.lastIndexOf("/node_modules/")))) {
      const key = `${base && `${base}/`}node_modules/${name}`;
      if (lock[key]) {
        if (seen.has(key)) return;
        seen.add(key);
        const p = lock[key];
        for (const dep of Object.keys({ ...p.dependencies, ...p.optionalDependencies, ...p.peerDependencies })) visit(key, dep);
        return;
      }
      if (!base) return; // not in the lock: an optional peer nobody installed
    }
  };
  for (const name of names) visit("", name);
  for (const key of seen) if (existsSync(join(root, key))) linkTree(join(root, key), join(dir, key)); // missing: another platform's optional binary
}

function linkTree(from, to) {
  if (existsSync(to)) return;
  mkdirSync(to, { recursive: true });
  for (const e of readdirSync(from, { withFileTypes: true })) {
    const [src, dst] = [join(from, e.name), join(to, e.name)];
    if (e.isDirectory()) linkTree(src, dst);
    else if (e.isSymbolicLink()) symlinkSync(readlinkSync(src), dst);
    else {
      try {
        linkSync(src, dst);
      } catch {
        copyFileSync(src, dst);
      }
    }
  }
}

/** Starts a server process that prints its URL; resolves `{ url, stop }`. */
export function startServer(cmd, args, cwd, env = {}) {
  const child = spawn(cmd, args, { cwd, env: { ...process.env, NO_COLOR: "1", ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error("no URL within 60 s")), 60_000);
    const fail = (e) => {
      clearTimeout(timer);
      child.kill();
      reject(new Error(`${cmd} ${args.join(" ")}: ${e.message}\n${output}`));
    };
    const read = (chunk) => {
      output += chunk;
      const url = /https?:\/\/127\.0\.0\.1:\d+/.exec(output)?.[0];
      if (url && /Ready/.test(output)) {
        clearTimeout(timer);
        resolve({ url, stop: () => new Promise((done) => (child.exitCode !== null ? done() : (child.once("exit", done), child.kill()))) });
      }
    };
    child.stdout.on("data", read);
    child.stderr.on("data", read);
    child.once("exit", (code) => fail(new Error(`exited with ${code}`)));
  });
}

/**
 * Opens `url` in `browser` and waits for the page's report; fails on any
 * console error, page error, failed request or HTTP error status.
 */
export async function pageReport(browser, url) {
  const page = await browser.newPage();
  try {
    const errors = [];
    const requested = [];
    watchErrors(page, errors);
    page.on("requestfailed", (r) => errors.push(`request failed: ${r.url()}`));
    page.on("response", (r) =>
      r.status() >= 400 ? errors.push(`HTTP ${r.status()}: ${r.url()}`) : requested.push(new URL(r.url()).pathname),
    );
    await page.goto(url);
    await page.waitForFunction(() => window.__result || window.__error, null, { timeout: 120_000 });
    const { result, error } = await page.evaluate(() => ({ result: window.__result, error: window.__error }));
    assert.equal(error, undefined, error);
    assert.deepEqual(errors, []);
    return { result, requested };
  } finally {
    await page.close();
  }
}

/** Total raw and gzip bytes of the files under `dir` whose names match `pattern`. */
export function sizes(dir, pattern) {
  let raw = 0;
  let gzip = 0;
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (pattern.test(e.name)) {
        raw += statSync(p).size;
        gzip += gzipSync(readFileSync(p), { level: 9 }).length;
      }
    }
  };
  walk(dir);
  return { raw, gzip, text: `${(raw / 1024).toFixed(1)} KB (${(gzip / 1024).toFixed(1)} KB gzip)` };
}
