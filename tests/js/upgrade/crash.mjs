// A crash at every step of the upgrade, in any runtime (Node, a Chromium
// page, workerd): it imports only observe.mjs and returns plain JSON-able
// values, which the Node test checks (upgrade.test.mjs).
//
// Life N lays 0.1.0's data out anew and opens it through an adapter that
// dies after N operations, as a process killed mid-upgrade; then healthy
// processes open it three times (observeUpgrade). Lives go on until one
// upgrade finishes before its adapter dies.
import { observeUpgrade, openFixture } from "./observe.mjs";

/** The message 0.1.0 forgot: none of its bytes were left, and none may come back. */
export const FORGOTTEN = "第7条";

/** `inner`, dying after `life` operations: every later one fails, as in a crashed process. */
export function dying(inner, life) {
  const state = { left: life, died: false };
  const adapter = {};
  for (const name of ["load", "save", "remove", "loadRange", "removeRange"]) {
    adapter[name] = async (...args) => {
      if (state.left-- <= 0) {
        state.died = true;
        throw new Error("the process died");
      }
      return inner[name](...args);
    };
  }
  return { adapter, state };
}

/**
 * Runs the lives. `fresh()` lays 0.1.0's data out in empty storage and
 * resolves to `open`, which returns a new healthy adapter over it each call.
 * Each life reports how the dying open ended (`error`: a MemoryError's code,
 * null when it opened), whether the forgotten text was stored after it, what
 * healthy opens then saw, and the format version of every stored value.
 */
export async function crashEveryStep(MemoryController, fresh, limit = 200) {
  const lives = [];
  for (let life = 0; life < limit; life++) {
    const open = await fresh();
    const { adapter, state } = dying(open(), life);
    // Small segments, so the upgrade writes several: more steps to crash in.
    const opened = await openFixture(MemoryController, adapter, { segmentBytes: 16 * 1024 }).then(
      () => null,
      (e) => e?.code ?? String(e),
    );
    const text = new TextDecoder().decode(concat((await open().loadRange([])).map((e) => e.data)));
    const observed = await observeUpgrade(MemoryController, open);
    const versions = (await open().loadRange([])).map((e) => e.data[4]);
    lives.push({ life, error: opened, forgottenStored: text.includes(FORGOTTEN), observed, versions, died: state.died });
    if (!state.died) break;
  }
  return lives;
}

function concat(arrays) {
  const out = new Uint8Array(arrays.reduce((n, a) => n + a.length, 0));
  let at = 0;
  for (const a of arrays) {
    out.set(a, at);
    at += a.length;
  }
  return out;
}
