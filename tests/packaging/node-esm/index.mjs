// A Node ESM app using the installed package: runs the shared report and
// checks the package's public entry points, then prints one JSON line.
import { createRequire } from "node:module";
import modules from "./subpaths.js";
import { report } from "./conversation.js";

const outcome = (p) =>
  p.then(
    () => "resolved",
    (e) => e.code ?? e.name,
  );

const pkg = (await import("agent-memory/package.json", { with: { type: "json" } })).default;
// The adapter acceptance suite from `agent-memory/testing`, on the default adapter.
const suite = await modules["./testing"].runStorageAdapterTests(() => modules["."].memoryStorage(), { timeoutMs: 20000 });

console.log(
  JSON.stringify({
    report: await report(modules),
    packageName: pkg.name,
    packageVersion: pkg.version,
    suite: { cases: suite.length, failed: suite.filter((r) => !r.ok).map((r) => `${r.name}: ${r.error}`) },
    // Only the exported subpaths are reachable.
    deepImport: await outcome(import("agent-memory/dist/node.js")),
    resolved: createRequire(import.meta.url)
      .resolve("agent-memory/package.json")
      .replace(/.*node_modules/, "node_modules"),
  }),
);
