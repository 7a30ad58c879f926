// A trap of the WebAssembly module (a Rust panic, with panic = "abort") is
// contained: the call rejects INTERNAL, every controller of that instance
// reports INTERNAL instead of RuntimeErrors, and the next create starts a
// fresh instance that reloads storage. The trap is forced on the shipped
// build with `forceTrapForTest` (agent-memory/testing).
// Node-dependent: a wasm trap in V8, whose wasm engine differs by major.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { MemoryController, Bm25Index, memoryStorage, ready, wasmMemoryBytes } from "../../dist/node.js";
import { forceTrapForTest } from "../../dist/testing.js";
import { settled as code, thrown } from "./outcome.mjs";
const INTERNAL = "MemoryError INTERNAL";

/** A memory adapter whose saves wait, while `hold` is set, until released. */
function holdingStorage() {
  const inner = memoryStorage();
  let gate = null;
  return {
    ...inner,
    hold() {
      let release;
      gate = new Promise((r) => (release = r));
      return () => {
        gate = null;
        release();
      };
    },
    async save(key, bytes) {
      if (gate) await gate;
      return inner.save(key, bytes);
    },
  };
}

test("a trap in a queued call: it and every controller of the instance fail INTERNAL; a new create reloads storage", async () => {
  const storage = holdingStorage();
  const a = await MemoryController.create({ namespace: "a", model: "gpt-4o", storage });
  const b = await MemoryController.create({ namespace: "b", model: "gpt-4o", storage });
  await a.add({ role: "user", content: "kept from a" });
  await b.add({ role: "user", content: "kept from b" });
  await a.remember({ key: "city", text: "Lisbon" });

  // b has a call waiting on storage when a's call traps.
  const release = storage.hold();
  const pending = code(b.add({ role: "user", content: "never saved" }));
  forceTrapForTest("next");
  assert.equal(await code(a.add({ role: "user", content: "traps" })), INTERNAL);
  assert.equal(await pending, INTERNAL);
  release();

  // Later calls, sync and async, on both controllers.
  assert.equal(
    thrown(() => b.stats()),
    INTERNAL,
  );
  assert.equal(
    thrown(() => a.countTokens("hello")),
    INTERNAL,
  );
  assert.equal(await code(b.buildContext({ maxTokens: 500 })), INTERNAL);
  assert.equal(await code(a.flush()), INTERNAL);
  assert.equal(
    thrown(() => a.free()),
    "returned",
    "freeing a dead controller is a no-op",
  );
  assert.equal(wasmMemoryBytes(), 0, "no live instance until the next load");

  // A fresh instance: what was committed before the trap is there.
  const a2 = await MemoryController.create({ namespace: "a", model: "gpt-4o", storage });
  assert.ok(a2 instanceof MemoryController);
  assert.deepEqual(
    (await a2.history()).map((h) => h.message.content),
    ["kept from a"],
  );
  assert.deepEqual(
    (await a2.facts()).map((f) => f.text),
    ["Lisbon"],
  );
  const b2 = await MemoryController.create({ namespace: "b", model: "gpt-4o", storage });
  assert.deepEqual(
    (await b2.history()).map((h) => h.message.content),
    ["kept from b"],
  );
  await a2.add({ role: "user", content: "after the trap" });
  const ctx = await a2.buildContext({ maxTokens: 500 });
  assert.ok(ctx.messages.some((m) => m.content === "after the trap"));
  assert.ok(wasmMemoryBytes() > 0);
  // The old controllers stay dead: they belong to the retired instance.
  assert.equal(await code(a.history()), INTERNAL);
});

test("a trap during a sync call throws INTERNAL; indexes of that instance fail too; new ones work", async () => {
  await ready();
  const index = new Bm25Index();
  index.add(1, "hello world");
  const memory = await MemoryController.create({ model: "gpt-4o" });
  assert.equal(
    thrown(() => forceTrapForTest("now")),
    INTERNAL,
  );
  assert.equal(
    thrown(() => index.search("hello", 1)),
    INTERNAL,
  );
  assert.equal(await code(memory.add({ role: "user", content: "x" })), INTERNAL);
  assert.equal(
    thrown(() => new Bm25Index()),
    "MemoryError NOT_READY",
  );
  await ready();
  const fresh = new Bm25Index();
  assert.ok(fresh instanceof Bm25Index);
  fresh.add(1, "hello world");
  assert.deepEqual([...fresh.search("hello", 1).ids], [1]);
});

test("after a trap, every async method rejects INTERNAL and every sync one throws it (as the types say)", async () => {
  const dts = readFileSync(new URL("../../dist/wasm/agent_memory.d.ts", import.meta.url), "utf8");
  const body = dts.slice(dts.indexOf("export class MemoryController"));
  const cls = body.slice(0, body.indexOf("\n}\n"));
  const methods = [...cls.matchAll(/^ {4}(?!static)(\w+)\(.*\): (.+);$/gm)].map(([, name, ret]) => [name, ret.startsWith("Promise<")]);
  assert.ok(methods.length > 20, `parsed ${methods.length} methods`);
  const memory = await MemoryController.create({ model: "gpt-4o" });
  forceTrapForTest("next");
  assert.equal(await code(memory.flush().then(() => memory.add({ role: "user", content: "x" }))), INTERNAL);
  for (const [name, isAsync] of methods) {
    if (name === "free") continue;
    let result;
    try {
      result = memory[name]();
    } catch (e) {
      assert.ok(!isAsync, `${name} threw instead of rejecting`);
      assert.equal(`${e.name} ${e.code}`, INTERNAL, name);
      continue;
    }
    assert.ok(isAsync && result instanceof Promise, `${name} returned instead of throwing`);
    assert.equal(await code(result), INTERNAL, name);
  }
});

test("forceTrapForTest refuses other modes", async () => {
  await ready();
  assert.equal(
    thrown(() => forceTrapForTest("later")),
    "MemoryError INVALID_INPUT",
  );
});
