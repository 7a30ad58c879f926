// An esbuild page using the installed package (its `browser` entry). esbuild
// emits no assets for `new URL(…, import.meta.url)`, so the build copies the
// package's wasm/ and ranks/ next to the bundle, where those URLs point.
import modules from "./subpaths.js";
import { runInPage } from "./page.js";

runInPage(modules);
