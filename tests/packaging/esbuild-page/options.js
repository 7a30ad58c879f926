// The same page with the host saying where the files are instead: the wasm
// through ready({ wasm }), each rank file through create({ ranks }).
import modules from "./subpaths.js";
import { runInPage } from "./page.js";

runInPage(modules, {
  ready: { wasm: "dist/static/agent_memory_bg.wasm" },
  create: { ranks: (encoding) => new URL(`dist/static/${encoding}.bin`, document.baseURI) },
});
