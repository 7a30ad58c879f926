// A webpack 5 page using the installed package (its `browser` entry): webpack
// emits the wasm and rank files as assets (`new URL(…, import.meta.url)`).
import modules from "./subpaths.js";
import { runInPage } from "./page.js";

runInPage(modules);
