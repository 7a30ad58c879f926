// A Vite-built page using the installed package (its `browser` entry), built
// by Vite 5, 6, 7 and 8 with default settings: the wasm and the rank files
// must come along in the build and load from the built site.
import modules from "./subpaths.js";
import { runInPage } from "./page.js";

runInPage(modules);
