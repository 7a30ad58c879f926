// A reset: the runtime terminates JS execution while a call is inside the
// WebAssembly module (workerd on ctx.abort(), a Durable Object reset, a CPU
// limit). The call stops where it is, no `finally` or Rust destructor runs,
// and workerd drops the microtasks queued so far. Before the fix that left
// wasm-bindgen-futures' queue stalled (its closure frozen mid-call, or its
// run's microtask dropped with its "scheduled" flag set) and every later
// call of every controller of the isolate hung. Now the instance is retired
// (INSTANCE_RESET for its calls, pending and later) when a call was frozen
// inside it, a fresh one serves the next create, and a queue whose run was
// only dropped runs again with nothing retired.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import vm from "node:vm";
import { MemoryController, memoryStorage } from "../../dist/node.js";
import { answerOrHung, testWorker } from "./harness.mjs";
import { settled } from "./outcome.mjs";

const RESET = "MemoryError INSTANCE_RESET";

test("Node: a call terminated inside the module (a vm timeout in a hook) retires the instance; nothing stored is lost", async () => {
  const storage = memoryStorage();
  let spin = false;
  let now = 1_000;
  const clock = () => {
    while (spin); // until the vm's watchdog terminates the script, and this call with it
    return now++;
  };
  const a = await MemoryController.create({ namespace: "a", model: "gpt-4o", storage, clock });
  const b = await MemoryController.create({ namespace: "b", model: "gpt-4o", storage });
  await a.add({ role: "user", content: "kept from a" });
  await b.add({ role: "user", content: "kept from b" });

  spin = true;
  // add() reads the clock before it queues: the termination stops it inside the module.
  assert.throws(() => vm.runInNewContext("a.add({ role: 'user', content: 'cut short' })", { a }, { timeout: 50 }), {
    code: "ERR_SCRIPT_EXECUTION_TIMEOUT",
  });
  spin = false;

  // Every controller of that instance, the one cut short and the other, pending and later calls.
  assert.equal(await settled(b.add({ role: "user", content: "not added" })), RESET);
  assert.throws(() => b.stats(), {
    name: "MemoryError",
    code: "INSTANCE_RESET",
    message: /ctx\.abort\(\).*MemoryController\.create starts a fresh instance/,
  });
  assert.equal(await settled(a.history()), RESET);

  // A fresh instance reloads what was stored.
  const a2 = await MemoryController.create({ namespace: "a", model: "gpt-4o", storage });
  const b2 = await MemoryController.create({ namespace: "b", model: "gpt-4o", storage });
  assert.deepEqual(
    (await a2.history()).map((h) => h.message.content),
    ["kept from a"],
  );
  assert.deepEqual(
    (await b2.history()).map((h) => h.message.content),
    ["kept from b"],
  );
  await b2.add({ role: "user", content: "after" });
  assert.deepEqual(
    (await b2.history()).map((h) => h.message.content),
    ["kept from b", "after"],
  );
});

const mf = testWorker("faults/reset-worker.mjs", "ResetDO");
after(() => mf.dispose());

/** Object `o`'s answer to `path`. */
const ask = (o, path) => answerOrHung(mf, `http://localhost${path}${path.includes("?") ? "&" : "?"}o=${o}`);

test("workerd: an object reset inside a call; another object's call in flight rejects INSTANCE_RESET instead of hanging, and a reopen has what was acknowledged", async () => {
  assert.deepEqual(await ask("w", "/warm"), { status: 200, body: '"warm"' });
  const res = await ask("h", "/held");
  assert.equal(res.status, 200, JSON.stringify(res));
  const out = JSON.parse(res.body);
  assert.equal(out.error, undefined, out.error);
  assert.match(out.crash, /injected reset/);
  assert.equal(out.other, '200 ["fresh"]', "a controller opened after the reset, in another object, works");
  assert.equal(out.pending, RESET);
  assert.equal(out.stats, RESET);
  assert.equal(out.add, RESET);
  assert.deepEqual(out.reopened, ["acknowledged"]);
});

test("workerd: an object reset with a call queued but none inside the module: nothing is retired, other objects' controllers go on", async () => {
  assert.deepEqual(await ask("s", "/steady?text=one"), { status: 200, body: '["one"]' });
  const reset = await ask("q", "/queued-then-abort");
  assert.equal(reset.status, 500);
  assert.match(reset.body, /injected reset/);
  // The same controller, opened before the reset: still on the same instance, and it answers.
  assert.deepEqual(await ask("s", "/steady?text=two"), { status: 200, body: '["one","two"]' });
});
