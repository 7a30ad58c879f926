// What the runtime tests share: a static file server on 127.0.0.1, Debian's
// chromium launched the way this machine allows, the module rules that
// load the package's wasm and rank assets in workerd (wrangler's defaults),
// and an example Worker bundled as wrangler deploys it.
import { spawnSync } from "node:child_process";
import { createServer } from "node:http";
import { cpSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { Miniflare } from "miniflare";
import { chromium } from "playwright-core";

const TYPES = {
  ".js": "text/javascript",
  ".mjs": "text/javascript",
  ".html": "text/html",
  ".css": "text/css",
  ".json": "application/json",
  ".wasm": "application/wasm",
  ".bin": "application/octet-stream",
};

/** Serves `dir` (a directory path ending without a slash) on a free port. */
export function serveStatic(dir) {
  const server = createServer(async (req, res) => {
    let path = normalize(join(dir, decodeURIComponent(new URL(req.url, "http://x").pathname)));
    if (!path.startsWith(dir)) return res.writeHead(403).end();
    if (path.endsWith("/")) path += "index.html";
    try {
      const body = await readFile(path);
      res.writeHead(200, { "content-type": TYPES[extname(path)] ?? "application/octet-stream" }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

/** Headless Debian chromium; the flags keep it off the (closed) network. */
export function launchChromium() {
  return chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/** Miniflare module rules matching wrangler's defaults for our files. */
export const WORKERD_MODULE_RULES = [
  { type: "ESModule", include: ["**/*.js", "**/*.mjs"] },
  { type: "CompiledWasm", include: ["**/*.wasm"] },
  { type: "Data", include: ["**/*.bin"] },
];

/** Collects a page's console errors and uncaught exceptions into `errors`. */
export function watchErrors(page, errors = []) {
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  page.on("pageerror", (e) => errors.push(String(e)));
  return errors;
}

const root = fileURLToPath(new URL("../..", import.meta.url));

/**
 * Serves the repository, opens `path` in headless Chromium and waits up to
 * `timeout` ms for the page's `window.result`; `check(result, page)` runs
 * while the page is open. Asserts the page logged no errors, then closes
 * everything.
 */
export async function withPageResult(path, timeout, check) {
  const server = await serveStatic(root);
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const errors = watchErrors(page);
    await page.goto(`http://127.0.0.1:${server.address().port}${path}`);
    const result = await page.waitForFunction(() => window.result, null, { timeout }).then((h) => h.jsonValue());
    if (result.error !== undefined) throw new Error(`the page failed: ${result.error}`);
    await check(result, page);
    if (errors.length) throw new Error(`the page logged errors: ${errors.join("\n")}`);
  } finally {
    await browser.close();
    server.close();
  }
}

/**
 * Bundles the Worker in `example` as a user deploys it: copied to
 * `dir/app`, its node_modules holding `links` (name → path, as npm links a
 * `file:` dependency or installs a package), then `wrangler deploy
 * --dry-run` (offline) into `outdir`. Returns wrangler's output; throws
 * with it when wrangler fails.
 */
export function bundleWorker(example, dir, outdir, links) {
  const app = join(dir, "app");
  cpSync(example, app, { recursive: true, filter: (p) => !/node_modules|\.wrangler/.test(p) });
  mkdirSync(join(app, "node_modules"));
  for (const [name, target] of Object.entries(links)) {
    mkdirSync(dirname(join(app, "node_modules", name)), { recursive: true }); // a scope's directory
    symlinkSync(target, join(app, "node_modules", name), "dir");
  }
  const res = spawnSync(
    process.execPath,
    [join(root, "node_modules", "wrangler", "bin", "wrangler.js"), "deploy", "--dry-run", "--outdir", outdir],
    {
      cwd: app,
      encoding: "utf8",
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", CI: "1", NO_COLOR: "1" },
    },
  );
  if (res.status !== 0) throw new Error(`wrangler failed:\n${res.stdout}${res.stderr}`);
  return res.stdout;
}

/** The compatibility date an example's wrangler.toml names. */
export const compatibilityDateOf = (example) =>
  /compatibility_date\s*=\s*"([^"]+)"/.exec(readFileSync(join(example, "wrangler.toml"), "utf8"))[1];

/**
 * `mf`'s answer to a request as { status, body }, or { status: "hung" } after
 * 10 s: a Worker or object that never answers must fail the test, not stall it.
 */
export async function answerOrHung(mf, url, init) {
  let timer;
  const hung = new Promise((resolve) => (timer = setTimeout(() => resolve({ status: "hung", body: "" }), 10_000)));
  const done = mf.dispatchFetch(url, init).then(async (res) => ({ status: res.status, body: await res.text() }));
  try {
    return await Promise.race([done, hung]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A test Worker, tests/js/<script>, run from the repository by miniflare with
 * the package's modules loaded as wrangler loads them, a KV namespace `KV`,
 * and Durable Objects `DO` (class `className`, KV-backed) and `DOSQL`
 * (class `${className}Sql`, SQLite-backed).
 */
export function testWorker(script, className) {
  return new Miniflare({
    modules: true,
    modulesRoot: root,
    scriptPath: join(root, "tests", "js", script),
    modulesRules: WORKERD_MODULE_RULES,
    compatibilityDate: "2026-04-01",
    kvNamespaces: ["KV"],
    durableObjects: { DO: className, DOSQL: { className: `${className}Sql`, useSQLite: true } },
  });
}

/** A bundle made by bundleWorker, run in workerd by miniflare as deployed; `options` add bindings. */
export function runWorker(example, bundle, options) {
  return new Miniflare({
    modules: true,
    scriptPath: join(bundle, "index.js"),
    modulesRoot: bundle,
    // wrangler emits the wasm and the rank assets as sibling files imported by
    // name; these are its default rules for them.
    modulesRules: WORKERD_MODULE_RULES,
    compatibilityDate: compatibilityDateOf(example),
    ...options,
  });
}
