// The same trigger through the built package: each MemoryController method
// is optimized, then deoptimized from inside its own wasm call (a getter on
// its argument, or the clock hook, runs while the export runs). Before the
// fix this aborted Node 20 and 22 deterministically.
//   node --allow-natives-syntax package.mjs <path to dist/node.js>
const { MemoryController } = await import(process.argv[2]);
let target = null; // the method to deoptimize while its wasm call runs
const hit = () => {
  if (target) %DeoptimizeFunction(target);
};
const memory = await MemoryController.create({ model: "gpt-4o", clock: () => (hit(), 1_000) });
// The methods as called: the generated class's (guarded by js/internal/loader.js), not the package class's.
const P = Object.getPrototypeOf(memory);

// An argument whose property read (JSON.stringify inside the export) calls `hit`.
const trapped = (obj, key) => {
  const value = obj[key];
  return Object.defineProperty({ ...obj }, key, { enumerable: true, get: () => (hit(), value) });
};
const calls = [
  [P.add, () => memory.add(trapped({ role: "user", content: "你好, remember 春熙路" }, "content"))],
  [P.buildContext, () => memory.buildContext(trapped({ maxTokens: 500, query: "春熙路" }, "maxTokens"))],
  [P.remember, () => memory.remember(trapped({ key: "city", text: "成都" }, "text"))],
  [P.search, () => memory.search("成都", trapped({ k: 3 }, "k"))],
  [P.setProcedures, () => memory.setProcedures(trapped({ rules: ["be brief"] }, "rules"))],
  [P.recordUsage, () => memory.recordUsage(trapped({ promptTokens: 10, completionTokens: 2 }, "promptTokens"))],
  [P.history, () => memory.history()],
  [P.facts, () => memory.facts()],
  [P.episodes, () => memory.episodes()],
  [P.factHistory, () => memory.factHistory("city")],
  [P.flush, () => memory.flush()],
];
for (const [method, call] of calls) {
  %PrepareFunctionForOptimization(method);
  await call();
  await call();
  %OptimizeFunctionOnNextCall(method);
  await call();
  target = method;
  await call();
  target = null;
}
const forget = P.forget;
%PrepareFunctionForOptimization(forget);
for (const key of ["a", "b"]) await memory.remember({ key, text: key }), await memory.forget(trapped({ key }, "key"));
%OptimizeFunctionOnNextCall(forget);
await memory.remember({ key: "c", text: "c" });
target = forget;
await memory.forget(trapped({ key: "c" }, "key"));
target = null;
console.log(`package: survived, ${(await memory.history()).length} messages`);
