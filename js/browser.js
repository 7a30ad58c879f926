// Browser entry (also Deno and any runtime with fetch): the wasm and the rank
// assets are fetched next to this module, once; the HTTP cache keeps them.
import init, { setRankLoader } from "./wasm/agent_memory.js";
import { gunzip } from "./gunzip.js";

await init({ module_or_path: new URL("./wasm/agent_memory_bg.wasm", import.meta.url) });
setRankLoader(async (encoding) => {
  const res = await fetch(new URL(`./ranks/${encoding}.bin`, import.meta.url));
  if (!res.ok) throw new Error(`fetching ${encoding} ranks: HTTP ${res.status}`);
  return gunzip(await res.arrayBuffer());
});

export { MemoryController, wasmMemoryBytes } from "./wasm/agent_memory.js";
