// Browser entry (also Deno and any runtime with fetch): the wasm and the rank
// files are fetched next to this module on first use; the HTTP cache keeps
// them. Each file is named by its own `new URL("./…", import.meta.url)` with a
// literal path, the form Vite, webpack, Turbopack and Rollup recognise: they
// emit the file as an asset and rewrite the URL to it.
import { defineRuntime, responseBytes } from "./internal/loader.js";

const RANKS = {
  o200k_base: () => new URL("./ranks/o200k_base.bin", import.meta.url),
  cl100k_base: () => new URL("./ranks/cl100k_base.bin", import.meta.url),
};

const read = async (url, what) => responseBytes(await fetch(url), what);

defineRuntime({
  load: (source, binding) => binding.init({ module_or_path: source ?? new URL("./wasm/agent_memory_bg.wasm", import.meta.url) }),
  asset: (encoding) => read(RANKS[encoding](), `${encoding} ranks`),
  read,
});

export * from "./exports.js";
