// Durable Objects that really crash (tests/js/faults/crash-worker.mjs): in
// workerd, an object's `await storage.put()` resolves before the write is
// flushed, and ctx.abort() drops the instance with what it had not flushed;
// what protects the caller is the output gate, which holds a response until
// the writes before it are on disk. So here "acknowledged" means what a
// client of the object got a 200 for. Seeded runs light a fuse on some
// requests (the object aborts after that many storage calls, inside the add
// or in the folds the controller runs after answering), and the clock of each
// new instance starts behind the last one's, ties and runs backwards. After
// each run a fresh controller must hold every acknowledged message, once, in
// the order acknowledged, and nothing damaged.
//
// Each abort here stops a call inside the WebAssembly module, which the
// whole isolate shares. Before the loader retired such an instance, the next
// call of any object hung: the futures queue's run was frozen mid-call (its
// closure then refuses to run: "closure invoked recursively or after being
// dropped") or its microtask was dropped, and either way the queue's
// "scheduled" flag stayed set, so no future of the instance was polled again
// (tests/js/reset.test.mjs has the finer cases).
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { answerOrHung, testWorker } from "./harness.mjs";
import { acknowledgedInOrder, rng } from "./faults/run.mjs";

const mf = testWorker("faults/crash-worker.mjs", "CrashDO");
after(() => mf.dispose());

const call = (url, init) => answerOrHung(mf, url, init);

test("a controller opened after an object was reset mid-call answers", async () => {
  const crashed = await call("http://localhost/do/add?seed=1000&fuse=1&start=0", { method: "POST", body: "first" });
  assert.equal(crashed.status, 500);
  assert.match(crashed.body, /injected crash/);
  const next = await call("http://localhost/do/add?seed=1000&fuse=0&start=0", { method: "POST", body: "second" });
  assert.equal(next.status, 200, `the next request, on a new instance of the object: ${next.status} ${next.body.slice(0, 300)}`);
});

async function crashRuns(path, seeds, turns = 40) {
  const failures = [];
  let crashes = 0;
  let acked = 0;
  for (let seed = 1; seed <= seeds; seed++) {
    const random = rng(seed);
    const texts = [];
    let start = 1_000_000;
    for (let i = 0; i < turns; i++) {
      const fuse = random() < 0.2 ? 1 + Math.floor(random() * 16) : 0;
      const text = `turn ${i} of run ${seed}: 我们 meet at ${Math.floor(random() * 1000)}`;
      const res = await call(`http://localhost/${path}/add?seed=${seed}&fuse=${fuse}&start=${start}`, { method: "POST", body: text });
      if (res.status === 200) texts.push(text);
      else if (res.status === 500 && res.body.includes("injected crash")) {
        crashes++;
        start -= Math.floor(random() * 20_000);
      } else {
        failures.push(`seed ${seed}: add answered ${res.status} ${res.body.slice(0, 300)}`);
        return { failures, crashes, acked };
      }
    }
    const res = await call(`http://localhost/${path}/history?seed=${seed}`);
    const history = res.status === 200 ? JSON.parse(res.body) : { error: `history answered ${res.status}` };
    if (history.error) failures.push(`seed ${seed}: ${history.error}`);
    else {
      if (history.corrupt.length) failures.push(`seed ${seed}: damaged values ${JSON.stringify(history.corrupt)}`);
      failures.push(...acknowledgedInOrder(history.texts, texts, `seed ${seed}`));
    }
    acked += texts.length;
  }
  return { failures, crashes, acked };
}

for (const [label, path] of [
  ["KV-backed", "do"],
  ["SQLite-backed", "do-sql"],
]) {
  test(`Durable Object (${label}) crashing mid-write: every acknowledged message once, in order`, async () => {
    const r = await crashRuns(path, 6);
    assert.deepEqual(r.failures, []);
    assert.ok(r.crashes > 0 && r.acked > 0);
  });
}
