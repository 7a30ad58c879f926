// Static file server for the demo page (`npm run demo`, tests/js/www.test.mjs).
// It serves the repo root so www/ can import ../dist/browser.js unbundled, and
// binds to 127.0.0.1 only: the page is for the person at this machine.
// Content types matter: browsers compile wasm via streaming only when it is
// served as application/wasm, and refuse module scripts without a JS type.
import { createServer } from "node:http";
import { readFile, stat } from "node:fs/promises";
import { extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";

// Ends with a separator, so a prefix test cannot match a sibling ("/repo-x").
const root = fileURLToPath(new URL("..", import.meta.url));

const types = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".wasm": "application/wasm",
  ".bin": "application/octet-stream",
  ".d.ts": "text/plain; charset=utf-8",
};

/** Resolves a URL path inside the repo root, or null if it escapes it. */
function resolvePath(urlPath) {
  let path;
  try {
    path = normalize(join(root, decodeURIComponent(urlPath)));
  } catch {
    return null; // malformed %-escapes
  }
  return path.startsWith(root) || path + sep === root ? path : null;
}

async function handle(req, res) {
  if (req.method !== "GET" && req.method !== "HEAD") return res.writeHead(405).end();
  const url = new URL(req.url, "http://127.0.0.1");
  if (url.pathname === "/" || url.pathname === "/www") {
    return res.writeHead(302, { location: "/www/" }).end();
  }
  let path = resolvePath(url.pathname);
  if (!path) return res.writeHead(403).end();
  try {
    if ((await stat(path)).isDirectory()) path = join(path, "index.html");
    const body = await readFile(path);
    res.writeHead(200, {
      "content-type": types[extname(path)] ?? "application/octet-stream",
      // A demo under development: always revalidate so a rebuild shows up on reload.
      "cache-control": "no-cache",
    });
    res.end(req.method === "HEAD" ? undefined : body);
  } catch {
    res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("not found");
  }
}

/**
 * Starts the server on 127.0.0.1; resolves to the listening `http.Server`
 * (port 0 picks a free port: read it from `server.address().port`).
 */
export function start(port = Number(process.env.PORT ?? 5173)) {
  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.headersSent || res.writeHead(500).end());
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve(server);
    });
  });
}

// Run as a script: serve until Ctrl-C, or with --once / CI=1 exit after
// printing the URL (lets `npm run demo` finish in CI).
if (process.argv[1] && fileURLToPath(import.meta.url) === normalize(process.argv[1])) {
  const server = await start().catch((e) => {
    if (e.code !== "EADDRINUSE") throw e;
    console.error(`Port ${e.port} is in use: run with PORT=<another port>.`);
    process.exit(1);
  });
  const once = process.argv.includes("--once") || Boolean(process.env.CI);
  console.log(`\nDemo page: http://127.0.0.1:${server.address().port}/www/${once ? "" : "  (Ctrl-C to stop)"}`);
  if (once) server.close();
}
