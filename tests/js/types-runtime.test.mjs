// The values each method returns match the types the package declares: the
// declarations (dist/index.d.ts and what it re-exports) are read with the
// TypeScript compiler, and every value a populated controller returns is
// checked against its method's declared return type, field by field: a
// field the type lacks, a required field missing, a wrong primitive or
// literal is a failure. So the hand-written declarations in
// src/wasm/types.rs cannot drift from what the Rust side serializes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { MemoryController, wasmMemoryBytes } from "../../dist/node.js";

const entry = fileURLToPath(new URL("../../dist/index.d.ts", import.meta.url));
const program = ts.createProgram([entry], { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ES2022, moduleResolution: ts.ModuleResolutionKind.Bundler, lib: ["lib.esnext.d.ts", "lib.dom.d.ts"] });
const checker = program.getTypeChecker();
const source = program.getSourceFile(entry);
const exported = new Map(checker.getExportsOfModule(checker.getSymbolAtLocation(source)).map((s) => [s.name, s]));

/** The declared type of `MemoryController.prototype[method]`'s result, unwrapped from Promise. */
function returnType(method) {
  const cls = checker.getDeclaredTypeOfSymbol(checker.getAliasedSymbol(exported.get("MemoryController")));
  const prop = checker.getPropertyOfType(cls, method);
  assert.ok(prop, `MemoryController.${method} is declared`);
  const signature = checker.getTypeOfSymbol(prop).getCallSignatures()[0];
  let type = signature.getReturnType();
  if (type.symbol?.name === "Promise") type = checker.getTypeArguments(type)[0];
  return type;
}

const describe = (type) => checker.typeToString(type);

/** Failures of `value` against `type`, as paths with what went wrong. */
function conform(value, type, path, out) {
  const f = type.flags;
  if (f & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return out;
  if (type.isUnion()) {
    const attempts = type.types.map((t) => conform(value, t, path, []));
    if (!attempts.some((a) => a.length === 0)) out.push(`${path}: ${JSON.stringify(value)?.slice(0, 80)} fits no member of ${describe(type)} (${attempts.map((a) => a[0]).join("; ")})`);
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
  const primitive = [[ts.TypeFlags.String, "string"], [ts.TypeFlags.Number, "number"], [ts.TypeFlags.Boolean, "boolean"]].find(([flag]) => f & flag);
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
    if (!Array.isArray(value)) return out.push(`${path}: expected an array`), out;
    const args = checker.getTypeArguments(type);
    value.forEach((v, i) => conform(v, checker.isTupleType(type) ? args[i] : args[0], `${path}[${i}]`, out));
    return out;
  }
  if (f & ts.TypeFlags.Object) {
    if (typeof value !== "object" || value === null) return out.push(`${path}: expected an object, got ${JSON.stringify(value)}`), out;
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

test("every value the controller returns has its declared type, field by field", async () => {
  let now = 1_700_000_000_000;
  const summarizer = async ({ messages }) => ({ summary: `${messages.length} messages`, keyPoints: ["k"], pendingTasks: ["p"], facts: [{ key: "city", value: "成都" }], importance: 0.5 });
  const embedder = async (texts) => texts.map((t) => Float32Array.from({ length: 8 }, (_, i) => (t.charCodeAt(i % t.length) % 7) + 1));
  const memory = await MemoryController.create({ model: "gpt-4o", workingMemory: { maxTokens: 300 }, clock: () => (now += 1000), summarizer, embedder });
  const returned = {};
  const keep = (method, value) => ((returned[method] ??= []).push(value), value);
  await memory.setProcedures({ rules: ["Answer in the user's language."], tools: [{ type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"], additionalProperties: false } } }] });
  keep("add", await memory.add({ role: "system", content: "You are terse." }));
  for (let i = 0; i < 30; i++) {
    keep("add", await memory.add({ role: "user", content: `第${i}天：我们去成都吃火锅，hotel near 春熙路 number ${i}` }, i % 10 === 0 ? { taskId: "trip" } : undefined));
    keep("add", await memory.add({ role: "assistant", content: `Noted ${i}.`, refusal: null, annotations: [] }));
  }
  keep("add", await memory.add({ role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function", function: { name: "get_weather", arguments: "{\"city\":\"成都\"}" } }] }));
  keep("add", await memory.add({ role: "tool", tool_call_id: "c1", content: "{\"temp\":21}" }));
  keep("remember", await memory.remember({ text: "The user is allergic to peanuts.", key: "allergy" }));
  keep("remember", await memory.remember({ text: "Prefers bullet points.", kind: "preference" }));
  keep("remember", await memory.remember({ text: "A long document. ".repeat(400), kind: "document" }));
  keep("remember", await memory.remember({ text: "Allergic to peanuts and shellfish.", key: "allergy" }));
  keep("recordUsage", await memory.recordUsage({ prompt_tokens: 1200, completion_tokens: 80, prompt_tokens_details: { cached_tokens: 200 } }, { model: "gpt-4o" }));
  keep("recordUsage", await memory.recordUsage({ inputTokens: 10, outputTokens: 2 }, { model: "some-unknown-model" }));
  await memory.flush();
  keep("buildContext", await memory.buildContext({ maxTokens: 2000, query: "火锅 allergy", tools: memory.toolDefinitions() }));
  keep("buildContext", await memory.buildContext({ maxTokens: 2000, taskId: "trip" }));
  keep("search", await memory.search("火锅"));
  keep("search", await memory.search("peanuts", { kinds: ["fact"] }));
  keep("history", await memory.history());
  keep("episodes", await memory.episodes());
  keep("facts", await memory.facts());
  keep("factHistory", await memory.factHistory("allergy"));
  keep("callTool", await memory.callTool("recall", { query: "peanuts" }));
  keep("toolDefinitions", memory.toolDefinitions());
  keep("stats", memory.stats());
  keep("loadReport", memory.loadReport());
  keep("countTokens", memory.countTokens("你好 world"));
  keep("countMessages", memory.countMessages([{ role: "user", content: "hi" }]));
  keep("budgetAwareMaxTokens", memory.budgetAwareMaxTokens(1, "gpt-4o"));
  const history = returned.history[0];
  keep("forget", await memory.forget(history[3].id));
  keep("forget", await memory.forget({ key: "allergy" }));
  keep("flush", await memory.flush());
  assert.ok(returned.episodes[0].length > 0 && returned.buildContext[0].sections.knowledge !== undefined, "the values exercise episodes and the knowledge block");

  const failures = [];
  for (const [method, values] of Object.entries(returned)) {
    const type = returnType(method);
    values.forEach((v, i) => conform(v, type, `${method}#${i}`, failures));
  }
  assert.deepEqual(failures, []);
  assert.equal(typeof wasmMemoryBytes(), "number");
  await memory.close();
});

test("the checker itself fails on drift: an undeclared field, a missing one, a wrong literal", () => {
  const stats = returnType("stats");
  assert.deepEqual(conform({}, stats, "stats", []).length > 5, true);
  const item = checker.getTypeArguments(returnType("history"))[0];
  const good = { id: "m", ts: 1, place: "working", tokens: 3, message: { role: "user", content: "x" } };
  assert.deepEqual(conform(good, item, "h", []), []);
  assert.match(conform({ ...good, extra: 1 }, item, "h", [])[0], /h\.extra: returned, not declared/);
  assert.match(conform({ ...good, place: "elsewhere" }, item, "h", [])[0], /h\.place/);
  const { tokens, ...missing } = good;
  assert.match(conform(missing, item, "h", [])[0], /h\.tokens: declared, missing/);
  void tokens;
});
