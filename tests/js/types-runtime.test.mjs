// The values each method returns match the types the package declares: the
// declarations (dist/node.d.ts, the Node entry's, and what it re-exports)
// are read with the TypeScript compiler, and every value a populated
// controller (and each index class) returns is checked against its
// method's declared return type, field by field: a field the type lacks, a
// required field missing, a wrong primitive or literal is a failure. Every
// declared method must be exercised, so a new one cannot go unchecked. The
// result types are derived from the Rust types (src/typescript.rs); this
// checks what they do not cover: what the binding and the JS around it
// (js/hooks/reranker.js, js/internal/loader.js) make of the values.
import { test } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import * as entry from "../../dist/node.js";

const { MemoryController, Bm25Index, VectorIndex, ready, wasmMemoryBytes } = entry;
const file = fileURLToPath(new URL("../../dist/node.d.ts", import.meta.url));
const program = ts.createProgram([file], {
  strict: true,
  noEmit: true,
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ES2022,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  lib: ["lib.esnext.d.ts", "lib.dom.d.ts"],
});
const checker = program.getTypeChecker();
const exported = new Map(checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(file))).map((s) => [s.name, s]));

/** The symbol an export names (through `export *` and re-exports). */
const resolve = (name) => {
  const symbol = exported.get(name);
  return symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
};

/** A member's name as written in JS: `[Symbol.dispose]` for the symbol-keyed one. */
const memberName = (prop) => (prop.name.startsWith("__@") ? `[Symbol.${prop.name.slice(3).split("@")[0]}]` : prop.name);

/** The declared members of class `name` (instance, or with `statics` the constructor's), by JS name. */
function members(name, statics = false) {
  const symbol = resolve(name);
  const type = statics ? checker.getTypeOfSymbol(symbol) : checker.getDeclaredTypeOfSymbol(symbol);
  return new Map(
    checker
      .getPropertiesOfType(type)
      .filter((p) => p.name !== "prototype")
      .map((p) => [memberName(p), p]),
  );
}

/** The declared type of a member's value: a method's result (unwrapped from Promise), or a getter's type. */
function returnType(prop) {
  const type = checker.getTypeOfSymbol(prop);
  const signature = type.getCallSignatures()[0];
  if (!signature) return type;
  let result = signature.getReturnType();
  if (result.symbol?.name === "Promise") result = checker.getTypeArguments(result)[0];
  return result;
}

/** The declared result of the exported function `name`, unwrapped from Promise. */
function functionReturnType(name) {
  return returnType(resolve(name));
}

const describe = (type) => checker.typeToString(type);

/** Failures of `value` against `type`, as paths with what went wrong. */
function conform(value, type, path, out) {
  const f = type.flags;
  if (f & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return out;
  if (type.isUnion()) {
    const attempts = type.types.map((t) => conform(value, t, path, []));
    if (!attempts.some((a) => a.length === 0))
      out.push(
        `${path}: ${JSON.stringify(value)?.slice(0, 80)} fits no member of ${describe(type)} (${attempts.map((a) => a[0]).join("; ")})`,
      );
    return out;
  }
  if (type.isIntersection()) {
    // An array with extra fields (SearchResult): the array part checks the elements, the object part the fields.
    for (const t of type.types) conform(value, t, path, out);
    return out;
  }
  if (type.isStringLiteral() || type.isNumberLiteral()) {
    if (value !== type.value) out.push(`${path}: ${JSON.stringify(value)} is not ${describe(type)}`);
    return out;
  }
  if (f & ts.TypeFlags.BooleanLiteral) {
    if (value !== (describe(type) === "true")) out.push(`${path}: ${value} is not ${describe(type)}`);
    return out;
  }
  const primitive = [
    [ts.TypeFlags.String, "string"],
    [ts.TypeFlags.Number, "number"],
    [ts.TypeFlags.Boolean, "boolean"],
  ].find(([flag]) => f & flag);
  if (primitive) {
    if (typeof value !== primitive[1]) out.push(`${path}: ${JSON.stringify(value)} is not a ${primitive[1]}`);
    return out;
  }
  if (f & ts.TypeFlags.Null) {
    if (value !== null) out.push(`${path}: expected null`);
    return out;
  }
  if (f & (ts.TypeFlags.Undefined | ts.TypeFlags.Void)) {
    if (value !== undefined) out.push(`${path}: expected undefined`);
    return out;
  }
  if (checker.isArrayType(type) || checker.isTupleType(type)) {
    if (!Array.isArray(value)) return (out.push(`${path}: expected an array`), out);
    const args = checker.getTypeArguments(type);
    value.forEach((v, i) => conform(v, checker.isTupleType(type) ? args[i] : args[0], `${path}[${i}]`, out));
    return out;
  }
  const builtin =
    type.symbol?.declarations?.some((d) => program.isSourceFileDefaultLibrary(d.getSourceFile())) && globalThis[type.symbol.name];
  if (typeof builtin === "function") {
    // A type of the standard library (Float32Array): an instance of its constructor.
    if (!(value instanceof builtin)) out.push(`${path}: not a ${type.symbol.name}`);
    return out;
  }
  if (type.symbol && type.symbol.flags & ts.SymbolFlags.Class) {
    // A class instance (create's controller): the package's own class, not a copy of its fields.
    if (!(value instanceof entry[type.symbol.name])) out.push(`${path}: not a ${type.symbol.name}`);
    return out;
  }
  if (f & ts.TypeFlags.Object) {
    if (typeof value !== "object" || value === null) return (out.push(`${path}: expected an object, got ${JSON.stringify(value)}`), out);
    if (type.getCallSignatures().length) return out;
    const props = checker.getPropertiesOfType(type);
    const indexed = checker.getIndexInfosOfType(type).length > 0;
    const arrayPart = Array.isArray(value);
    for (const prop of props) {
      if (arrayPart && (/^\d+$/.test(prop.name) || prop.name in Array.prototype)) continue;
      const optional = (prop.flags & ts.SymbolFlags.Optional) !== 0;
      const have = Object.prototype.hasOwnProperty.call(value, prop.name);
      if (!have) {
        if (!optional) out.push(`${path}.${prop.name}: declared, missing`);
        continue;
      }
      conform(value[prop.name], checker.getTypeOfSymbol(prop), `${path}.${prop.name}`, out);
    }
    if (!indexed) {
      const declared = new Set(props.map((p) => p.name));
      for (const key of Object.keys(value)) {
        if (arrayPart && /^\d+$/.test(key)) continue;
        if (!declared.has(key)) out.push(`${path}.${key}: returned, not declared in ${describe(type)}`);
      }
    }
    return out;
  }
  out.push(`${path}: no check for ${describe(type)}`);
  return out;
}

/** Records what each method returned, checked later against its declared type. */
function recorder() {
  const returned = {};
  const keep = (method, value) => ((returned[method] ??= []).push(value), value);
  return [returned, keep];
}

/** Checks every recorded value, and that every declared member of `name` was exercised. */
function check(name, returned, statics = new Map()) {
  const declared = new Map([...members(name), ...statics]);
  const failures = [];
  for (const [method, values] of Object.entries(returned)) {
    const prop = declared.get(method);
    assert.ok(prop, `${name}.${method} is declared`);
    values.forEach((v, i) => conform(v, returnType(prop), `${name}.${method}#${i}`, failures));
  }
  assert.deepEqual(failures, []);
  assert.deepEqual([...declared.keys()].filter((m) => !(m in returned)).sort(), [], `${name} members never exercised`);
}

test("every value the controller returns has its declared type, field by field", async () => {
  let now = 1_700_000_000_000;
  const summarizer = async ({ messages }) => ({
    summary: `${messages.length} messages`,
    keyPoints: ["k"],
    pendingTasks: ["p"],
    facts: [{ key: "city", value: "成都" }],
    importance: 0.5,
  });
  const embedder = async (texts) => texts.map((t) => Float32Array.from({ length: 8 }, (_, i) => (t.charCodeAt(i % t.length) % 7) + 1));
  const [returned, keep] = recorder();
  const memory = keep(
    "create",
    await MemoryController.create({ model: "gpt-4o", workingMemory: { maxTokens: 300 }, clock: () => (now += 1000), summarizer, embedder }),
  );
  keep(
    "setProcedures",
    await memory.setProcedures({
      rules: ["Answer in the user's language."],
      tools: [
        {
          type: "function",
          function: {
            name: "get_weather",
            parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false },
          },
        },
      ],
    }),
  );
  keep("add", await memory.add({ role: "system", content: "You are terse." }));
  for (let i = 0; i < 30; i++) {
    keep(
      "add",
      await memory.add(
        { role: "user", content: `第${i}天：我们去成都吃火锅，hotel near 春熙路 number ${i}` },
        i % 10 === 0 ? { taskId: "trip" } : undefined,
      ),
    );
    keep("add", await memory.add({ role: "assistant", content: `Noted ${i}.`, refusal: null, annotations: [] }));
  }
  keep(
    "add",
    await memory.add({
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c1", type: "function", function: { name: "get_weather", arguments: '{"city":"成都"}' } }],
    }),
  );
  keep("add", await memory.add({ role: "tool", tool_call_id: "c1", content: '{"temp":21}' }));
  keep("remember", await memory.remember({ text: "The user is allergic to peanuts.", key: "allergy", tags: ["health"], source: "chat" }));
  keep("remember", await memory.remember({ text: "Prefers bullet points.", kind: "preference" }));
  keep("remember", await memory.remember({ text: "A long document. ".repeat(400), kind: "document" }));
  keep("remember", await memory.remember({ text: "Allergic to peanuts and shellfish.", key: "allergy" }));
  keep(
    "recordUsage",
    await memory.recordUsage(
      { prompt_tokens: 1200, completion_tokens: 80, prompt_tokens_details: { cached_tokens: 200 } },
      { model: "gpt-4o" },
    ),
  );
  keep("recordUsage", await memory.recordUsage({ inputTokens: 10, outputTokens: 2 }, { model: "some-unknown-model" }));
  keep("flush", await memory.flush());
  keep("buildContext", await memory.buildContext({ maxTokens: 2000, query: "火锅 allergy", tools: memory.toolDefinitions() }));
  keep("buildContext", await memory.buildContext({ maxTokens: 2000, taskId: "trip" }));
  keep("search", await memory.search("火锅"));
  keep("search", await memory.search("peanuts", { kinds: ["fact"], tags: ["health"] }));
  keep("history", await memory.history());
  const page = keep("history", await memory.history({ limit: 3 }));
  keep("history", await memory.history({ limit: 2, before: page[2].id }));
  keep("messages", await memory.messages([page[0].id, "no such id"]));
  keep("episodes", await memory.episodes());
  keep("facts", await memory.facts());
  keep("threads", await memory.threads());
  keep("factHistory", await memory.factHistory("allergy"));
  keep("callTool", await memory.callTool("recall", { query: "peanuts" }));
  const told = keep("callTool", await memory.callTool("remember", JSON.stringify({ text: "Likes window seats.", key: "seat" })));
  keep("callTool", await memory.callTool("forget", { id: told.match(/Remembered as (\S+?)\./)[1] }));
  keep("toolDefinitions", memory.toolDefinitions());
  keep("stats", memory.stats());
  keep("loadReport", memory.loadReport());
  keep("countTokens", memory.countTokens("你好 world"));
  keep("countMessages", memory.countMessages([{ role: "user", content: "hi" }]));
  keep("budgetAwareMaxTokens", memory.budgetAwareMaxTokens(1, "gpt-4o"));
  const history = returned.history[0];
  keep("forget", await memory.forget(history[3].id));
  keep("forget", await memory.forget({ key: "allergy" }));
  keep("replace", await memory.replace(history.at(-2).id, { role: "user", content: "Another question." }));
  keep("truncateAfter", await memory.truncateAfter(history[5].id));
  const snapshot = keep("export", await memory.export({ embeddings: true }));
  keep("close", await memory.close());
  const copy = keep("import", await MemoryController.import(snapshot));
  keep("free", copy.free());
  keep("[Symbol.dispose]", (await MemoryController.import(snapshot))[Symbol.dispose]());
  assert.ok(
    returned.episodes[0].length > 0 && returned.buildContext[0].sections.knowledge !== undefined,
    "the values exercise episodes and the knowledge block",
  );
  assert.ok(returned.replace[0].forgotten, "the values exercise forgotten");

  // No summarizer: add compacts at once and says so.
  const small = await MemoryController.create({ workingMemory: { maxTokens: 120 } });
  for (let i = 0; i < 12; i++)
    keep("add", await small.add({ role: i % 2 ? "assistant" : "user", content: `Turn ${i}: the hotel near Chunxi Road has a pool.` }));
  assert.ok(
    returned.add.some((a) => a.compaction),
    "the values exercise compaction",
  );
  await small.close();

  // Two threads of one user: threads(), and a hit from the other thread.
  const storage = entry.memoryStorage();
  const trip = await MemoryController.create({ namespace: "u", thread: "trip", storage });
  await trip.add({ role: "user", content: "Book a hotel in Chengdu near Chunxi Road." });
  const desk = await MemoryController.create({ namespace: "u", thread: "desk", storage });
  await desk.add({ role: "user", content: "The quarterly report is due on Friday." });
  keep("threads", await desk.threads());
  keep("search", await desk.search("hotel Chengdu"));
  // An import (with its batches of addMany) into the same user.
  const exported = [
    {
      id: "c",
      title: "Trip",
      messages: [
        { role: "user", content: "去成都", timestamp: 1 },
        { role: "assistant", content: "好", timestamp: 2 },
      ],
    },
  ];
  keep("importConversations", await desk.importConversations(exported));
  keep("addMany", await desk.addMany([{ message: { role: "user", content: "batch" }, at: 3 }]));
  // Consolidation: two facts that say the same merge, and a profile is written.
  await desk.remember({ text: "The user lives in Chengdu." });
  await desk.remember({ text: "The user lives in Chengdu" });
  keep("consolidate", await desk.consolidate());
  // By a model (its answer used), and by the rules after a model's garbage (degraded).
  for (const answer of [{ merges: [], profile: "User profile:\n- lives in Chengdu" }, "no JSON here"]) {
    const consolidating = await MemoryController.create({ model: "gpt-4o", summarizer: async () => answer });
    await consolidating.remember({ text: "The user lives in Chengdu." });
    keep("consolidate", await consolidating.consolidate());
    keep("consolidate", await consolidating.consolidate()); // nothing new: nothing asked
  }
  // Redaction as the controller does it: a key in, its kind and count out.
  keep("redact", await desk.redact("my key is sk-proj-" + "a1B2c3D4e5F6g7H8i9J0".repeat(3)));
  assert.equal(Object.keys(returned.redact.at(-1).redacted).length, 1, "the value exercises a redaction");
  assert.ok(
    returned.threads.at(-1).length === 2 && returned.search.at(-1)[0].thread === "trip",
    "the values exercise threads and a hit's thread",
  );
  await Promise.all([trip.close(), desk.close()]);

  // A failing embedder and a reranker: degraded, fusedScore, reranked.
  const failing = async () => Object.assign(new Error("down"), { code: "EMBEDDER_HTTP" });
  const reranker = async (query, texts) => texts.map((t) => t.length);
  const other = await MemoryController.create({
    embedder: async () => {
      throw await failing();
    },
    reranker,
  });
  await other.add({ role: "user", content: "We booked the hotpot place near Chunxi Road for Friday." });
  await other.remember({ text: "Hotpot on Friday at seven." });
  keep("search", await other.search("hotpot Friday"));
  keep("buildContext", await other.buildContext({ query: "hotpot" }));
  assert.ok(
    returned.search.at(-1).reranked && returned.search.at(-1).degraded && returned.buildContext.at(-1).sections.knowledge.degraded,
    "the values exercise reranked and degraded",
  );
  await other.close();

  check("MemoryController", returned, members("MemoryController", true));
});

test("every value the indexes and the module functions return has its declared type", async () => {
  const [loaded, keepLoaded] = recorder();
  keepLoaded("ready", await ready());
  keepLoaded("wasmMemoryBytes", wasmMemoryBytes());
  const failures = [];
  for (const [name, values] of Object.entries(loaded)) values.forEach((v) => conform(v, functionReturnType(name), name, failures));
  assert.deepEqual(failures, []);

  const [words, keepWords] = recorder();
  const bm25 = new Bm25Index({ k1: 1.2, b: 0.75 });
  keepWords("add", bm25.add(1, "火锅 hotpot"));
  keepWords("add", bm25.add(2, "hotel"));
  keepWords("remove", bm25.remove(2));
  keepWords("search", bm25.search("hotpot", 5));
  keepWords("shrinkToFit", bm25.shrinkToFit());
  keepWords("len", bm25.len);
  keepWords("heapBytes", bm25.heapBytes);
  keepWords("free", bm25.free());
  keepWords("[Symbol.dispose]", new Bm25Index()[Symbol.dispose]());
  check("Bm25Index", words);

  const [vectors, keepVectors] = recorder();
  const index = new VectorIndex({ mode: "int8", oversample: 2 });
  keepVectors("add", index.add(1, [1, 0, 0]));
  keepVectors("addMany", index.addMany([2, 3], Float32Array.from([0, 1, 0, 0, 0, 1])));
  keepVectors("remove", index.remove(3));
  keepVectors("search", index.search([1, 0.1, 0], 2));
  keepVectors("shrinkToFit", index.shrinkToFit());
  keepVectors("len", index.len);
  keepVectors("heapBytes", index.heapBytes);
  keepVectors("free", index.free());
  keepVectors("[Symbol.dispose]", new VectorIndex()[Symbol.dispose]());
  check("VectorIndex", vectors);
});
test("the checker itself fails on drift: an undeclared field, a missing one, a wrong literal", () => {
  const controller = members("MemoryController");
  const stats = returnType(controller.get("stats"));
  assert.deepEqual(conform({}, stats, "stats", []).length > 5, true);
  const item = checker.getTypeArguments(returnType(controller.get("history")))[0];
  const good = { id: "m", ts: 1, place: "working", tokens: 3, message: { role: "user", content: "x" } };
  assert.deepEqual(conform(good, item, "h", []), []);
  assert.match(conform({ ...good, extra: 1 }, item, "h", [])[0], /h\.extra: returned, not declared/);
  assert.match(conform({ ...good, place: "elsewhere" }, item, "h", [])[0], /h\.place/);
  const { tokens, ...missing } = good;
  assert.match(conform(missing, item, "h", [])[0], /h\.tokens: declared, missing/);
  void tokens;
});
