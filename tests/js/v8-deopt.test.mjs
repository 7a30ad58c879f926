// No V8 abort on Node 20 and 22: V8 12.4 and older die ("unreachable code" in
// Deoptimizer::DoComputeBuiltinContinuation) when optimized JS that inlined
// a call to a wasm export returning one externref is deoptimized during the
// call. tests/js/v8-deopt/minimal.mjs is the reduced reproduction; the
// package keeps every export off that path (src/wasm/controller.rs, `Async`).
// Node-dependent: V8's deoptimizer, which differs by major.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const dist = new URL("../../dist/", import.meta.url);
const script = (name) => fileURLToPath(new URL(`./v8-deopt/${name}`, import.meta.url));
const runNode = (...args) => spawnSync(process.execPath, ["--allow-natives-syntax", ...args], { encoding: "utf8" });

// Result types of every exported function, read from the binary.
function exportResults(bytes) {
  let at = 8;
  const u32 = () => {
    let result = 0,
      shift = 0,
      byte;
    do {
      byte = bytes[at++];
      result |= (byte & 0x7f) << shift;
      shift += 7;
    } while (byte & 0x80);
    return result >>> 0;
  };
  const name = () => {
    const n = u32();
    at += n;
    return new TextDecoder().decode(bytes.subarray(at - n, at));
  };
  const types = [],
    funcs = [],
    exports = [];
  while (at < bytes.length) {
    const id = bytes[at++];
    const size = u32();
    const end = at + size;
    if (id === 1) {
      for (let n = u32(); n > 0; n--) {
        assert.equal(bytes[at++], 0x60, "only function types are expected");
        const params = u32();
        at += params; // value types are single bytes in this module
        const results = Array.from({ length: u32() }, () => bytes[at++]);
        types.push(results);
      }
    } else if (id === 2) {
      for (let n = u32(); n > 0; n--) {
        name(), name();
        const kind = bytes[at++];
        if (kind === 0) funcs.push(types[u32()]);
        else if (kind === 1)
          at++, bytes[at++] & 1 ? (u32(), u32()) : u32(); // table: reftype, limits
        else if (kind === 2)
          bytes[at++] & 1 ? (u32(), u32()) : u32(); // memory limits
        else at += 2; // global: valtype, mutability
      }
    } else if (id === 3) {
      for (let n = u32(); n > 0; n--) funcs.push(types[u32()]);
    } else if (id === 7) {
      for (let n = u32(); n > 0; n--) {
        const exportName = name();
        const kind = bytes[at++];
        const index = u32();
        if (kind === 0) exports.push([exportName, funcs[index]]);
      }
    }
    at = end;
  }
  return exports;
}

test("no wasm export returns a single externref (the value V8 12.4 cannot deoptimize through)", () => {
  const exports = exportResults(readFileSync(new URL("wasm/agent_memory_bg.wasm", dist)));
  const EXTERNREF = 0x6f,
    I32 = 0x7f,
    F64 = 0x7c;
  const results = new Map(exports);
  assert.deepEqual(results.get("wasmMemoryBytes"), [F64], "the parser reads result types");
  assert.deepEqual(results.get("memorycontroller_add"), [I32, I32, I32], "an async method returns (promise slot, error slot, is-error)");
  const single = exports.filter(([, results]) => results.length === 1 && results[0] === EXTERNREF).map(([n]) => n);
  assert.deepEqual(single, []);
});

test("every controller method survives being deoptimized during its own wasm call", (t) => {
  const minimal = runNode(script("minimal.mjs"), "externref");
  t.diagnostic(`this Node (${process.version}) ${minimal.status === 0 ? "is not" : "is"} affected by the V8 bug`);
  const r = runNode(script("package.mjs"), fileURLToPath(new URL("node.js", dist)));
  assert.equal(r.status, 0, `exit ${r.status} ${r.signal ?? ""}\n${r.stderr.slice(0, 2000)}`);
  assert.match(r.stdout, /package: survived, 4 messages/);
});
