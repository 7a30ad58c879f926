// Cloudflare Workers entry: the wasm and rank files are bundled modules
// (wrangler's default rules: .wasm as CompiledWasm, .bin as Data), so they
// need no fetch; the module is still instantiated on first use, not at import.
import wasmModule from "./wasm/agent_memory_bg.wasm";
import o200k_base from "./ranks/o200k_base.bin";
import cl100k_base from "./ranks/cl100k_base.bin";
import { defineRuntime, responseBytes } from "./internal/loader.js";

const RANKS = { o200k_base, cl100k_base };

defineRuntime({
  load: async (source, binding) =>
    source === undefined ? binding.initSync({ module: wasmModule }) : binding.init({ module_or_path: source }),
  asset: async (encoding) => RANKS[encoding],
  read: async (url, what) => responseBytes(await fetch(url), what),
  // ctx.abort(), a reset object, a CPU limit: JS stops mid-call, the isolate lives on (see loader.js).
  resets: true,
});

export * from "./exports.js";
