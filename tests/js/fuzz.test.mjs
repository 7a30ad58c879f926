// Fuzzing of the JS entry points with arbitrary values: every method of
// MemoryController and every function the package exports is called with
// random JSON values, strings with lone surrogates, huge and non-finite
// numbers, deep nesting and values JSON cannot hold. Every call returns or
// fails with a MemoryError of a documented code (never INTERNAL: that would
// be a trap), and afterwards the controller still works and has lost
// nothing it had stored. Seeded: a failure names its seed and call.
// Node-dependent: nodeFileStorage with arbitrary key and directory names on node:fs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as pkg from "../../dist/node.js";
import { rng } from "./helpers.mjs";

const { MemoryController, Bm25Index, VectorIndex, memoryStorage } = pkg;

// The documented codes: the MemoryErrorCode union (src/wasm/types.rs).
const dts = readFileSync(new URL("../../dist/wasm/agent_memory.d.ts", import.meta.url), "utf8");
const union = dts.slice(dts.indexOf("export type MemoryErrorCode"));
const CODES = new Set([...union.slice(0, union.indexOf(";")).matchAll(/"([A-Z_]+)"/g)].map((m) => m[1]));
assert.ok(CODES.has("INVALID_INPUT") && CODES.has("NOT_READY"), [...CODES].join());
CODES.delete("INTERNAL");
CODES.delete("INSTANCE_RESET"); // only after the runtime terminates a call

/** Random values of every kind a caller could pass, biased to edge cases. */
function generator(r) {
  const pick = (xs) => xs[Math.floor(r() * xs.length)];
  const numbers = [0, -0, 1, -1, 0.5, NaN, Infinity, -Infinity, 1e308, -1e308, 5e-324, 2 ** 53 + 1, 2 ** 32, -(2 ** 31), 1e21, 4000, 0.8];
  const pieces = [
    "",
    "a",
    "hello world",
    "\uD800",
    "\uDC00",
    "x\uDBFFy",
    "\u{1F600}",
    "中文字符",
    "<|endoftext|>",
    "\0",
    "\n\r\t",
    "user",
    "assistant",
    "tool",
    "system",
    "gpt-4o",
    "claude-sonnet-4.5",
    "{}",
    "[1,",
    "null",
    "__proto__",
    " ".repeat(50),
  ];
  const keys = [
    "role",
    "content",
    "tool_calls",
    "tool_call_id",
    "name",
    "id",
    "type",
    "function",
    "arguments",
    "key",
    "text",
    "kind",
    "tags",
    "k",
    "maxTokens",
    "reserveOutput",
    "query",
    "system",
    "tools",
    "rules",
    "model",
    "promptTokens",
    "completionTokens",
    "usage",
    "namespace",
    "from",
    "to",
    "taskId",
    "parameters",
    "__proto__",
    "constructor",
    "refusal",
    "audio",
    "extra_content",
  ];
  function string() {
    const n = Math.floor(r() * 4);
    let s = "";
    for (let i = 0; i < n; i++) s += r() < 0.7 ? pick(pieces) : String.fromCharCode(Math.floor(r() * 0x10000));
    if (r() < 0.02) s += "long ".repeat(20_000);
    return s;
  }
  function value(depth = 0) {
    const x = r();
    if (depth > 4 || x < 0.35)
      return pick([() => null, () => undefined, () => r() < 0.5, () => pick(numbers), () => Math.floor(r() * 1e6) - 5e5, string, string])();
    if (x < 0.45) {
      // Deep nesting, past serde_json's recursion limit.
      let v = r() < 0.5 ? [] : {};
      for (let i = 0, n = 50 + Math.floor(r() * 300); i < n; i++) v = r() < 0.5 ? [v] : { content: v };
      return v;
    }
    if (x < 0.5)
      return pick([
        () => 10n ** 30n,
        () => Symbol("s"),
        () => () => 1,
        () => new Date(NaN),
        () => new Float32Array([NaN, 1]),
        () => new Uint8Array(3),
        () => {
          const o = {};
          o.self = o;
          return o;
        },
      ])();
    if (x < 0.7) return Array.from({ length: Math.floor(r() * 5) }, () => value(depth + 1));
    const o = {};
    for (let i = 0, n = Math.floor(r() * 6); i < n; i++) o[r() < 0.8 ? pick(keys) : string()] = value(depth + 1);
    return o;
  }
  /** A near-valid message, so the parsers past the shape checks are reached too. */
  function message() {
    const m = {
      role: pick(["user", "assistant", "tool", "system", "developer", "bogus", value()]),
      content: r() < 0.5 ? string() : value(),
    };
    if (r() < 0.3)
      m.tool_calls =
        r() < 0.5 ? [{ id: string(), type: "function", function: { name: string(), arguments: r() < 0.5 ? string() : value() } }] : value();
    if (r() < 0.2) m.tool_call_id = r() < 0.5 ? string() : value();
    if (r() < 0.2) m[pick(keys)] = value();
    return m;
  }
  return { value, string, message, pick };
}

function classify(e) {
  if (e?.name !== "MemoryError") return `not a MemoryError: ${e?.name}: ${e?.message}`;
  if (!CODES.has(e.code)) return `undocumented code ${e.code}: ${e.message}`;
  return null;
}

/** Calls `f`; a throw or rejection must be a documented MemoryError. */
async function call(where, f) {
  let result;
  try {
    result = f();
    if (result instanceof Promise) result = await result;
  } catch (e) {
    const bad = classify(e);
    assert.equal(bad, null, `${where}: ${bad}\n${e?.stack}`);
    return { error: e.code };
  }
  return { result };
}

const describe = (args) =>
  args
    .map((a) => {
      try {
        return (JSON.stringify(a) ?? String(typeof a)).slice(0, 200);
      } catch {
        return typeof a;
      }
    })
    .join(", ");

async function seeded(seed, calls) {
  const r = rng(seed);
  const g = generator(r);
  const storage = memoryStorage();
  const memory = await MemoryController.create({
    namespace: "fuzz",
    model: seed % 2 ? "gpt-4o" : "claude-sonnet-4.5",
    storage,
    workingMemory: { maxTokens: 2000 },
  });
  // What must survive: messages and a fact stored before the fuzzing.
  for (let i = 0; i < 5; i++) await memory.add({ role: i % 2 ? "assistant" : "user", content: `baseline ${i}` });
  await memory.remember({ key: "fuzz-baseline", text: "The baseline fact stays." });
  const baseline = (await memory.history()).map((h) => h.id);

  // (`__destroy_into_raw` and the like are the generated glue's internals, not API.)
  const methods = Object.getOwnPropertyNames(Object.getPrototypeOf(memory)).filter(
    (m) => m !== "constructor" && !m.startsWith("__") && typeof memory[m] === "function",
  );
  assert.ok(methods.length > 20, `found ${methods.length} methods`);
  // forget, replace and truncateAfter delete on purpose, close and free end the controller: they get a scratch controller.
  const destructive = new Set(["forget", "replace", "truncateAfter", "close", "free"]);
  for (let i = 0; i < calls; i++) {
    const name = g.pick(methods);
    const args = Array.from({ length: Math.floor(r() * 3) }, (_, j) =>
      name === "add" && j === 0 && r() < 0.7 ? g.message() : r() < 0.3 ? g.string() : g.value(),
    );
    const where = `seed ${seed} call ${i}: ${name}(${describe(args)})`;
    if (destructive.has(name)) {
      const scratch = await MemoryController.create({ model: "gpt-4o" });
      await scratch.add({ role: "user", content: "scratch" });
      const out = await call(where, () => scratch[name](...args));
      assert.notEqual(out.error, "INTERNAL", where);
      continue;
    }
    const out = await call(where, () => memory[name](...args));
    assert.notEqual(out.error, "INTERNAL", where);
  }

  // Still works, and nothing stored before is lost.
  await memory.flush();
  await memory.add({ role: "user", content: "after the fuzzing" });
  const ids = (await memory.history()).map((h) => h.id);
  for (const id of baseline) assert.ok(ids.includes(id), `seed ${seed}: ${id} lost`);
  assert.ok(
    (await memory.facts()).some((f) => f.key === "fuzz-baseline" && f.text === "The baseline fact stays."),
    `seed ${seed}: baseline fact lost`,
  );
  const ctx = await memory.buildContext({ maxTokens: 4000 });
  assert.ok(ctx.messages.some((m) => m.content === "after the fuzzing"));
  // And what storage holds reloads to the same history.
  const reopened = await MemoryController.create({
    namespace: "fuzz",
    model: seed % 2 ? "gpt-4o" : "claude-sonnet-4.5",
    storage,
    workingMemory: { maxTokens: 2000 },
  });
  assert.deepEqual(
    (await reopened.history()).map((h) => h.id),
    ids,
  );
}

for (const seed of [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]) {
  test(`MemoryController methods with arbitrary arguments (seed ${seed})`, () => seeded(seed, 500));
}

test("every exported function and constructor with arbitrary arguments", async () => {
  const dir = mkdtempSync(join(tmpdir(), "am-fuzz-"));
  const cwd = process.cwd();
  process.chdir(dir); // nodeFileStorage(randomString) resolves against it
  try {
    await pkg.ready();
    const r = rng(99);
    const g = generator(r);
    const functions = Object.entries(pkg).filter(([, f]) => typeof f === "function");
    assert.ok(functions.length >= 14, functions.map(([n]) => n).join());
    const isClass = (f) => /^class\b/.test(Function.prototype.toString.call(f));
    for (let i = 0; i < 600; i++) {
      const [name, f] = g.pick(functions);
      const args = Array.from({ length: Math.floor(r() * 3) }, () => (r() < 0.3 ? g.string() : g.value()));
      const where = `call ${i}: ${name}(${describe(args)})`;
      const out = await call(where, () => (isClass(f) ? new f(...args) : f(...args)));
      assert.notEqual(out.error, "INTERNAL", where);
      if (f === MemoryController && out.result === undefined) continue;
      // An index made from arbitrary options takes arbitrary calls too.
      if (out.result instanceof Bm25Index || out.result instanceof VectorIndex) {
        const index = out.result;
        for (const m of Object.getOwnPropertyNames(Object.getPrototypeOf(index))) {
          if (m === "constructor" || m === "free" || m.startsWith("__") || typeof index[m] !== "function") continue;
          const a = Array.from({ length: Math.floor(r() * 3) }, () => (r() < 0.3 ? g.string() : g.value()));
          const o = await call(`${where} then .${m}(${describe(a)})`, () => index[m](...a));
          assert.notEqual(o.error, "INTERNAL", where);
        }
      }
    }
    // MemoryController.create with arbitrary options.
    for (let i = 0; i < 150; i++) {
      const options =
        r() < 0.5
          ? g.value()
          : {
              model: g.pick(["gpt-4o", "gpt-4", "claude-sonnet-4.5", g.string()]),
              [g.pick(["namespace", "workingMemory", "ranks", "clock", "models", "summarizerTimeoutMs"])]: g.value(),
            };
      const out = await call(`create(${describe([options])})`, () => MemoryController.create(options));
      assert.notEqual(out.error, "INTERNAL");
      // import: arbitrary snapshot text, or a real one with a line damaged.
      const snapshot =
        r() < 0.5
          ? r() < 0.5
            ? g.string()
            : g.value()
          : (await (await MemoryController.create({ model: "gpt-4o" })).export()).replace(/\n[^\n]*/, `\n${g.string()}`);
      const imported = await call(`import(${describe([snapshot, options])})`, () => MemoryController.import(snapshot, options));
      assert.notEqual(imported.error, "INTERNAL");
    }
    // The module still serves.
    const memory = await MemoryController.create({ model: "gpt-4o" });
    assert.equal((await memory.add({ role: "user", content: "still here" })).id.startsWith("m-"), true);
  } finally {
    process.chdir(cwd);
    rmSync(dir, { recursive: true, force: true });
  }
});

test("hooks that return or throw anything: every call settles with a value or a MemoryError", async () => {
  const r = rng(7);
  const g = generator(r);
  // A hook's answer: a plain value, a promise of one, a rejection with anything, or a throw.
  const answer = () => {
    const v = g.value();
    return g.pick([
      () => v,
      () => Promise.resolve(v),
      () => Promise.reject(v),
      () => {
        throw v;
      },
      () => ({ then: (ok) => ok(v) }),
    ])();
  };
  for (let round = 0; round < 40; round++) {
    const inner = memoryStorage();
    const storage = { ...inner };
    const broken = g.pick(["save", "remove", "loadRange", "removeRange", "load"]);
    storage[broken] = () => answer();
    const options = { model: "gpt-4o", namespace: "hooks", storage, workingMemory: { maxTokens: 80 } };
    if (r() < 0.5) options.summarizer = () => answer();
    if (r() < 0.5) options.embedder = () => answer();
    const where = `round ${round}: ${broken}`;
    const created = await call(`${where} create`, () => MemoryController.create(options));
    if (created.error) continue;
    const memory = created.result;
    for (let i = 0; i < 8; i++) {
      const out = await call(`${where} add ${i}`, () =>
        memory.add({ role: i % 2 ? "assistant" : "user", content: `message ${i} about storage and hooks` }),
      );
      assert.notEqual(out.error, "INTERNAL", where);
    }
    for (const [name, f] of [
      ["remember", () => memory.remember({ key: "k", text: "a fact" })],
      ["search", () => memory.search("message")],
      ["forget", () => memory.forget({ key: "k" })],
      ["flush", () => memory.flush()],
      ["buildContext", () => memory.buildContext({ maxTokens: 300, query: "hooks" })],
    ]) {
      const out = await call(`${where} ${name}`, f);
      assert.notEqual(out.error, "INTERNAL", `${where} ${name}`);
    }
    // The controller still answers from memory.
    assert.ok(Array.isArray(await memory.history()), where);
  }
});
