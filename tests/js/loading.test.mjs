// Loading the module on first use (js/internal/loader.js, js/node.js): `ready()`, the
// sync classes before it, a host's `ready({ wasm })` and `create({ ranks })`
// in every form they accept, and each failure as a MemoryError with its
// code. Rank tables and the module are per process once loaded, so every
// case runs in a fresh Node process.
// Node-dependent: loads the wasm and the rank tables through Node's module loader, node:fs and fetch.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { createServer } from "node:http";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { encode as o200k } from "gpt-tokenizer/encoding/o200k_base";
import { encode as cl100k } from "gpt-tokenizer/encoding/cl100k_base";

const dist = fileURLToPath(new URL("../../dist/", import.meta.url));
const file = (rel) => join(dist, rel);
const TEXT = "明天成都天气怎么样？I also need a hotel near 春熙路.";
const want = { "gpt-4o": o200k(TEXT).length, "gpt-4": cl100k(TEXT).length };
let server, base;

// Serves dist/ (and answers 404 elsewhere) for the http(s) forms.
before(async () => {
  server = createServer((req, res) => {
    let body;
    try {
      body = readFileSync(file(req.url.slice(1)));
    } catch {
      return res.writeHead(404).end();
    }
    res.writeHead(200).end(body);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${server.address().port}/`;
});
after(() => server?.close());

/**
 * Runs `body` in a fresh Node process with the package as `am` and
 * `outcome(promise)` at hand; resolves what `body` returns (JSON). Not
 * spawnSync: the child fetches from this process's server.
 */
async function fresh(body) {
  const code = `import * as am from ${JSON.stringify(pathToFileURL(file("node.js")).href)};
const outcome = (p) => Promise.resolve().then(() => p).then((v) => ({ ok: v ?? null }), (e) => ({ name: e.name, code: e.code, message: e.message }));
const result = await (async () => { ${body} })();
console.log(JSON.stringify(result));`;
  const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", code], {
    env: { ...process.env, DIST: dist, BASE: base, TEXT },
  });
  return JSON.parse(stdout.trim().split("\n").pop());
}

test("before ready(): the sync classes throw NOT_READY, wasmMemoryBytes() is 0; after it they work", async () => {
  const r = await fresh(`
    const codes = [() => new am.Bm25Index(), () => new am.VectorIndex()].map((f) => { try { f(); return "constructed"; } catch (e) { return [e.name, e.code, e.message]; } });
    const bytes = am.wasmMemoryBytes();
    const p = am.ready();
    const same = p === am.ready();
    await p;
    const v = new am.VectorIndex(); v.add(7, [1, 0]);
    return { codes, bytes, same, after: am.wasmMemoryBytes(), len: v.len, instance: v instanceof am.VectorIndex };`);
  for (const [name, code, message] of r.codes) {
    assert.deepEqual([name, code], ["MemoryError", "NOT_READY"]);
    assert.match(message, /await ready\(\)/);
  }
  assert.equal(r.bytes, 0);
  assert.equal(r.same, true, "ready() returns the same promise while loading");
  assert.ok(r.after > 0);
  assert.equal(r.len, 1);
  assert.equal(r.instance, true);
});

test("ready({ wasm }) takes a path, a file: URL, an http URL, bytes, a Response or a compiled module", async () => {
  const forms = {
    path: `process.env.DIST + "wasm/agent_memory_bg.wasm"`,
    fileURL: `new URL("wasm/agent_memory_bg.wasm", "file://" + process.env.DIST)`,
    http: `process.env.BASE + "wasm/agent_memory_bg.wasm"`,
    bytes: `(await import("node:fs")).readFileSync(process.env.DIST + "wasm/agent_memory_bg.wasm")`,
    response: `new Response((await import("node:fs")).readFileSync(process.env.DIST + "wasm/agent_memory_bg.wasm"))`,
    module: `new WebAssembly.Module((await import("node:fs")).readFileSync(process.env.DIST + "wasm/agent_memory_bg.wasm"))`,
  };
  for (const [form, expr] of Object.entries(forms)) {
    const r = await fresh(`await am.ready({ wasm: ${expr} });
      return (await am.MemoryController.create({ model: "gpt-4o" })).countTokens(process.env.TEXT);`);
    assert.equal(r, want["gpt-4o"], form);
  }
});

test("ready() refuses unknown options and a late `wasm`; a failed load is WASM_LOAD and may be retried", async () => {
  const r = await fresh(`
    const unknown = await outcome(am.ready({ wasmUrl: "x" }));
    const missing = await outcome(am.ready({ wasm: process.env.DIST + "no-such.wasm" }));
    const http404 = await outcome(am.ready({ wasm: process.env.BASE + "no-such.wasm" }));
    const garbage = await outcome(am.ready({ wasm: new Uint8Array([0, 97, 115, 109, 9, 9]) }));
    const retry = await outcome(am.ready());
    const late = await outcome(am.ready({ wasm: process.env.DIST + "wasm/agent_memory_bg.wasm" }));
    return { unknown, missing, http404, garbage, retry, late, count: (await am.MemoryController.create()).countTokens(process.env.TEXT) };`);
  assert.equal(r.unknown.code, "INVALID_INPUT");
  assert.equal(r.missing.code, "WASM_LOAD");
  assert.match(r.missing.message, /no-such\.wasm/);
  assert.equal(r.http404.code, "WASM_LOAD");
  assert.match(r.http404.message, /HTTP 404/);
  assert.equal(r.garbage.code, "WASM_LOAD");
  assert.deepEqual(r.retry, { ok: null }, "after failures, ready() loads the package's module");
  assert.equal(r.late.code, "INVALID_INPUT");
  assert.match(r.late.message, /first ready\(\) call/);
  assert.equal(r.count, want["gpt-4o"]);
});

test("create({ ranks }) takes bytes (gzip or not), a Response, a path, a file: or http URL, or a function of the encoding", async () => {
  const read = `(await import("node:fs")).readFileSync(process.env.DIST + "ranks/" + e + ".bin")`;
  const forms = {
    gzipBytes: `async (e) => ${read}`,
    rawBytes: `async (e) => (await import("node:zlib")).gunzipSync(${read})`,
    arrayBuffer: `async (e) => { const b = ${read}; return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength); }`,
    response: `async (e) => new Response(${read})`,
    path: `(e) => process.env.DIST + "ranks/" + e + ".bin"`,
    fileURL: `(e) => new URL("ranks/" + e + ".bin", "file://" + process.env.DIST)`,
    http: `(e) => process.env.BASE + "ranks/" + e + ".bin"`,
  };
  for (const [form, fn] of Object.entries(forms)) {
    const r = await fresh(`const ranks = ${fn};
      const seen = [];
      const counts = {};
      for (const model of ["gpt-4o", "gpt-4"]) counts[model] = (await am.MemoryController.create({ model, ranks: async (e) => (seen.push(e), ranks(e)) })).countTokens(process.env.TEXT);
      return { counts, seen };`);
    assert.deepEqual(r.counts, want, form);
    assert.deepEqual(r.seen, ["o200k_base", "cl100k_base"], `${form}: the function is asked once per encoding, by name`);
  }
  // Not a function: the value itself, for the model's encoding.
  const direct = await fresh(
    `return (await am.MemoryController.create({ model: "gpt-4", ranks: (await import("node:fs")).readFileSync(process.env.DIST + "ranks/cl100k_base.bin") })).countTokens(process.env.TEXT);`,
  );
  assert.equal(direct, want["gpt-4"]);
});

test("create({ ranks }) failures: bad type INVALID_INPUT (even unused), unreachable TOKENIZER_LOAD, wrong data INVALID_TOKENIZER_DATA; nothing of a failure is kept", async () => {
  const r = await fresh(`
    const fs = await import("node:fs");
    const create = (o) => outcome(am.MemoryController.create(o));
    return {
      number: await create({ model: "gpt-4o", ranks: 42 }),
      unused: await create({ model: "claude-sonnet-4-5", ranks: { not: "a source" } }),
      fnNumber: await create({ model: "gpt-4o", ranks: () => 42 }),
      missing: await create({ model: "gpt-4o", ranks: process.env.DIST + "ranks/none.bin" }),
      http404: await create({ model: "gpt-4o", ranks: process.env.BASE + "ranks/none.bin" }),
      thrown: await create({ model: "gpt-4o", ranks: () => { throw new Error("CDN down"); } }),
      wrong: await create({ model: "gpt-4o", ranks: fs.readFileSync(process.env.DIST + "ranks/cl100k_base.bin") }),
      garbage: await create({ model: "gpt-4o", ranks: new Uint8Array([1, 2, 3, 4]) }),
      after: (await am.MemoryController.create({ model: "gpt-4o" })).countTokens(process.env.TEXT),
      // Once loaded, the table is shared: a later \`ranks\` is not consulted.
      loaded: (await am.MemoryController.create({ model: "gpt-4o", ranks: fs.readFileSync(process.env.DIST + "ranks/cl100k_base.bin") })).countTokens(process.env.TEXT),
    };`);
  for (const k of ["number", "unused", "fnNumber"]) {
    assert.equal(r[k].code, "INVALID_INPUT", k);
    assert.match(r[k].message, /ranks/, k);
  }
  assert.equal(r.missing.code, "TOKENIZER_LOAD");
  assert.match(r.missing.message, /o200k_base.*none\.bin/);
  assert.equal(r.http404.code, "TOKENIZER_LOAD");
  assert.match(r.http404.message, /HTTP 404/);
  assert.equal(r.thrown.code, "TOKENIZER_LOAD");
  assert.match(r.thrown.message, /CDN down/);
  assert.equal(r.wrong.code, "INVALID_TOKENIZER_DATA");
  assert.match(r.wrong.message, /cl100k_base/);
  assert.equal(r.garbage.code, "INVALID_TOKENIZER_DATA");
  assert.equal(r.after, want["gpt-4o"], "after failed loads the package's own file is used");
  assert.equal(r.loaded, want["gpt-4o"]);
});
