// Node entry: wasm and rank assets are read from the installed package.
import { readFile } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { initSync, setRankLoader } from "./wasm/agent_memory.js";

initSync({ module: readFileSync(new URL("./wasm/agent_memory_bg.wasm", import.meta.url)) });
setRankLoader(async (encoding) => gunzipSync(await readFile(new URL(`./ranks/${encoding}.bin`, import.meta.url))));

export { MemoryController, wasmMemoryBytes } from "./wasm/agent_memory.js";
