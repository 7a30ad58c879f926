// Node entry: the wasm and rank files are read from disk on first use.
//
// Each file is named twice. First by its own `new URL("./…", import.meta.url)`
// with a literal path: unbundled, that is the installed package's file; a
// bundler (Next.js's Turbopack or webpack) emits it as an asset and rewrites
// the URL, and a file tracer (nft) ships it. A server bundle may also rewrite
// it to a public path ("/_next/static/media/…") in a URL class of its own,
// which `fs` refuses: only a `file:` URL's text is read. Second, by its path
// inside the package, beside this module's own location, for when the first
// is no file on this disk.
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { defineRuntime, responseBytes } from "./internal/loader.js";

const FILES = {
  wasm: ["wasm/agent_memory_bg.wasm", () => new URL("./wasm/agent_memory_bg.wasm", import.meta.url)],
  o200k_base: ["ranks/o200k_base.bin", () => new URL("./ranks/o200k_base.bin", import.meta.url)],
  cl100k_base: ["ranks/cl100k_base.bin", () => new URL("./ranks/cl100k_base.bin", import.meta.url)],
};

async function packageFile(name) {
  const [path, url] = FILES[name];
  const tried = [];
  try {
    const href = String(url());
    if (href.startsWith("file:")) return await readFile(fileURLToPath(href));
    tried.push(`${href} is no file URL`);
  } catch (e) {
    tried.push(e?.message ?? String(e));
  }
  try {
    return await readFile(join(dirname(fileURLToPath(import.meta.url)), path));
  } catch (e) {
    tried.push(e?.message ?? String(e));
  }
  throw new Error(`agent-memory's ${path} was not found (${tried.join("; ")}); pass it yourself: ready({ wasm }), create({ ranks })`);
}

/** A location the host gave: an http(s) URL is fetched, a `file:` URL or a path is read. */
async function read(location, what) {
  if (/^https?:/i.test(location)) return responseBytes(await fetch(location), what);
  return readFile(location.startsWith("file:") ? fileURLToPath(location) : location);
}

/** Instantiates, in `binding` (a fresh copy of the glue), the package's module or the one the host named or gave. */
async function load(source, binding) {
  let module = source;
  if (source === undefined) module = await packageFile("wasm");
  else if (typeof source === "string" || source instanceof URL) module = await read(String(source), "the wasm module");
  else if (source instanceof Response) module = await responseBytes(source, "the wasm module");
  // Synchronously, as at import before loading became lazy: the first count
  // comes about 12 ms sooner than through WebAssembly.instantiate.
  binding.initSync({ module: module instanceof WebAssembly.Module ? module : new WebAssembly.Module(module) });
}

defineRuntime({ load, asset: packageFile, read, inflate: gunzipSync });

export * from "./exports.js";
export { nodeFileStorage } from "./storage/storage-file.js";
