// What the runtime tests share: a static file server on 127.0.0.1, Debian's
// chromium launched the way this machine allows, and the module rules that
// load the package's wasm and rank assets in workerd (wrangler's defaults).
import { createServer } from "node:http";
import { readFile } from "node:fs/promises";
import { extname, join, normalize } from "node:path";
import { chromium } from "playwright-core";

const TYPES = { ".js": "text/javascript", ".mjs": "text/javascript", ".html": "text/html", ".css": "text/css", ".json": "application/json", ".wasm": "application/wasm", ".bin": "application/octet-stream" };

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
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
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
