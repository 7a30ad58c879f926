// Node entry: wasm and rank assets are read from the installed package.
import { readFile } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { initSync, setRankLoader } from "./wasm/agent_memory.js";

initSync({ module: readFileSync(new URL("./wasm/agent_memory_bg.wasm", import.meta.url)) });
setRankLoader(async (encoding) => gunzipSync(await readFile(new URL(`./ranks/${encoding}.bin`, import.meta.url))));

export { MemoryController, wasmMemoryBytes, Bm25Index, VectorIndex } from "./wasm/agent_memory.js";

// Storage adapters: plain JS, each touching its backend only when called.
export { memoryStorage } from "./storage-memory.js";
export { localStorageAdapter } from "./storage-local.js";
export { indexedDBStorage } from "./storage-indexeddb.js";
export { cloudflareKVStorage } from "./storage-kv.js";
export { durableObjectStorage } from "./storage-do.js";
export { nodeFileStorage } from "./storage-file.js";

// Built-in hook clients (plain JS over fetch): OpenAI-compatible embeddings and chat summaries.
export { openAICompatibleEmbedder } from "./embedder.js";
export { openAICompatibleSummarizer } from "./summarizer.js";

// Vercel AI SDK ModelMessage ↔ OpenAI chat message mapping (plain JS).
export { fromModelMessages, toModelMessages } from "./aisdk.js";
