// A Node ESM app using the installed package: runs the shared conversation
// and checks the package's public entry points, then prints one JSON line.
import { createRequire } from "node:module";
import * as memory from "agent-memory";
import { runConversation } from "./conversation.js";

const outcome = (p) => p.then(() => "resolved", (e) => e.code ?? e.name);

const pkg = (await import("agent-memory/package.json", { with: { type: "json" } })).default;
const testing = await import("agent-memory/testing");
// The adapter acceptance suite from `agent-memory/testing`, on the default adapter.
const suite = await testing.runStorageAdapterTests(() => memory.memoryStorage(), { timeoutMs: 20000 });

console.log(JSON.stringify({
  result: await runConversation(memory),
  exports: Object.keys(memory).sort(),
  packageName: pkg.name,
  packageVersion: pkg.version,
  testingExports: Object.keys(testing).sort(),
  suite: { cases: suite.length, failed: suite.filter((r) => !r.ok).map((r) => `${r.name}: ${r.error}`) },
  // Only the exported subpaths are reachable.
  deepImport: await outcome(import("agent-memory/dist/node.js")),
  resolved: createRequire(import.meta.url).resolve("agent-memory/package.json").replace(/.*node_modules/, "node_modules"),
}));
