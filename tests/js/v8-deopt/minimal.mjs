// The reduced reproduction of a V8 abort (Node 20 and 22; fixed in Node 24):
// an optimized JS function that inlined a call to a wasm export returning
// one externref is deoptimized while that call runs, and V8 dies with
// "unreachable code" in Deoptimizer::DoComputeBuiltinContinuation.
//
//   node --allow-natives-syntax minimal.mjs externref   # aborts on Node 20/22
//   node --allow-natives-syntax minimal.mjs i32         # the same with an i32 result: fine
//   node --allow-natives-syntax minimal.mjs multi       # (externref, i32): fine, never inlined
const kind = process.argv[2] ?? "externref";
const EXTERNREF = 0x6f, I32 = 0x7f;
const results = { externref: [EXTERNREF], i32: [I32], multi: [EXTERNREF, I32] }[kind];
const value = { externref: [0x20, 0x00], i32: [0x41, 0x07], multi: [0x20, 0x00, 0x41, 0x07] }[kind];
const section = (id, bytes) => [id, bytes.length, ...bytes];
const body = [0x00, 0x10, 0x00, ...value, 0x0b]; // no locals; call $imp; <value>; end
// (import "m" "imp" (func)) (func (export "f") (param externref) (result ...) call $imp ...)
const bytes = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  ...section(1, [0x02, 0x60, 0x00, 0x00, 0x60, 0x01, EXTERNREF, results.length, ...results]),
  ...section(2, [0x01, 0x01, 0x6d, 0x03, 0x69, 0x6d, 0x70, 0x00, 0x00]),
  ...section(3, [0x01, 0x01]),
  ...section(7, [0x01, 0x01, 0x66, 0x00, 0x01]),
  ...section(10, [0x01, body.length, ...body]),
]);

let deopt = false;
const imports = { m: { imp: () => { if (deopt) %DeoptimizeFunction(caller); } } };
const { instance } = await WebAssembly.instantiate(bytes, imports);
const f = instance.exports.f;
function caller(x) { return f(x); }
%PrepareFunctionForOptimization(caller);
caller({});
caller({});
%OptimizeFunctionOnNextCall(caller);
caller({});
deopt = true; // the next call deoptimizes `caller` while f runs
caller({});
console.log(`${kind}: survived`);
