// How memoryMiddleware tells a call's new messages from the ones memory
// holds (js/integrations/ai-sdk/ai-sdk-align.js, through the built package): fingerprints equal
// exactly when the provider would be sent the same turn, and the alignment
// for every way an app passes messages: only the new turn, the whole
// conversation, a window, a tool loop's next step, a retry, a regenerated
// answer, an edited turn; and a repeated short message is never taken for a
// regeneration.
import { test } from "node:test";
import assert from "node:assert/strict";
import { align, fingerprint } from "../../dist/integrations/ai-sdk/ai-sdk-align.js";
import { rng } from "./helpers.mjs";

test("fingerprints: equal for the same turn in its different spellings, different otherwise", () => {
  const same = (a, b) => assert.equal(fingerprint(a), fingerprint(b), JSON.stringify([a, b]));
  const differ = (a, b) => assert.notEqual(fingerprint(a), fingerprint(b), JSON.stringify([a, b]));
  same({ role: "user", content: "hi" }, { role: "user", content: [{ type: "text", text: "hi" }], name: "alice" });
  same(
    {
      role: "assistant",
      content: null,
      tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: '{"a":1,"b":[2,{"y":1,"x":2}]}' } }],
    },
    {
      role: "assistant",
      content: "",
      reasoning_content: "hmm",
      tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: '{ "b": [2, {"x":2,"y":1}], "a": 1 }' } }],
    },
  );
  same(
    { role: "assistant", content: "ab", refusal: null, annotations: [] },
    {
      role: "assistant",
      content: [
        { type: "text", text: "a" },
        { type: "text", text: "b" },
      ],
    },
  );
  same({ role: "tool", tool_call_id: "c", content: "42" }, { role: "tool", tool_call_id: "c", content: [{ type: "text", text: "42" }] });
  same(
    { role: "tool", tool_call_id: "c", content: '{\n  "b": [1, 2],\n  "a": "x"\n}' },
    { role: "tool", tool_call_id: "c", content: '{"a":"x","b":[1,2]}' },
  );
  same(
    { role: "user", content: [{ type: "image_url", image_url: { url: "https://x/a.png", detail: "low" } }] },
    { role: "user", content: [{ type: "image_url", image_url: { url: "https://x/a.png" } }] },
  );
  differ({ role: "user", content: "hi" }, { role: "assistant", content: "hi" });
  differ({ role: "user", content: "hi" }, { role: "user", content: "hi " });
  differ({ role: "tool", tool_call_id: "c", content: "42" }, { role: "tool", tool_call_id: "d", content: "42" });
  differ(
    { role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: '{"a":1}' } }] },
    { role: "assistant", content: null, tool_calls: [{ id: "c", type: "function", function: { name: "f", arguments: '{"a":2}' } }] },
  );
  differ(
    { role: "user", content: [{ type: "image_url", image_url: { url: "https://x/a.png" } }] },
    { role: "user", content: [{ type: "image_url", image_url: { url: "https://x/b.png" } }] },
  );
});

// Memory holds u1 a1 u2 a2 (letters stand for fingerprints).
const H = ["u1", "a1", "u2", "a2"];

test("a call that continues memory: its held head is recognised, the rest is new", () => {
  assert.deepEqual(align([...H, "u3"], H), { from: 4, supersede: 4 }, "the whole conversation");
  assert.deepEqual(align(["u2", "a2", "u3"], H), { from: 2, supersede: 4 }, "a window of it");
  assert.deepEqual(align(["u3"], H), { from: 0, supersede: 4 }, "only the new turn");
  assert.deepEqual(align(["u1"], H), { from: 0, supersede: 4 }, "a new turn that repeats an old one is new");
  assert.deepEqual(align(["u2", "a2"], H), { from: 2, supersede: 4 }, "nothing new: a retry after the answer was stored");
  assert.deepEqual(align(["u3"], [...H, "u3"]), { from: 1, supersede: 5 }, "a retry after a failed call: the turn is not stored twice");
  assert.deepEqual(
    align(["u3", "t3", "r3"], [...H, "u3", "t3"]),
    { from: 2, supersede: 6 },
    "a tool loop's next step, new turn only: its results are new",
  );
  assert.deepEqual(align([...H, "u3", "t3", "r3"], [...H, "u3", "t3"]), { from: 6, supersede: 6 }, "the same, whole conversation");
  assert.deepEqual(align(["u1", "a1"], []), { from: 0, supersede: 0 }, "empty memory");
  assert.deepEqual(align([], H), { from: 0, supersede: 4 }, "no messages");
});

test("a conversation that leaves memory's: what followed is superseded", () => {
  assert.deepEqual(align(["u1", "a1", "u2"], H), { from: 3, supersede: 3 }, "a regenerated answer");
  assert.deepEqual(align(["u1", "a1", "u2'"], H), { from: 2, supersede: 2 }, "an edited turn");
  assert.deepEqual(
    align(["u1", "a1", "u2", "a2'", "u3"], H),
    { from: 3, supersede: 3 },
    "a stopped answer the client kept otherwise than memory: the client's replaces it",
  );
  assert.deepEqual(
    align(["u1", "a1~", "u2", "a2", "u3"], H),
    { from: 4, supersede: 4 },
    "a held turn spelled otherwise between two that match is held: no loss, no copy",
  );
  assert.deepEqual(align(["a1~", "u2", "a2", "u3"], H), { from: 3, supersede: 4 }, "even as the first of a window");
  assert.deepEqual(align(["a1", "u2"], H), { from: 2, supersede: 3 }, "a window that regenerates");
  assert.deepEqual(align(["u1"], ["u1", "a1"]), { from: 0, supersede: 2 }, "a lone message: new, even if it was a regeneration (auto)");
  assert.deepEqual(align(["u1"], ["u1", "a1"], "full"), { from: 1, supersede: 1 }, "the same with conversation: full is a regeneration");
  assert.deepEqual(align(["x1", "x2"], H, "full"), { from: 0, supersede: 4 }, "full: a conversation memory never held supersedes nothing");
  assert.deepEqual(align(["a1", "u2"], H, "full"), { from: 0, supersede: 4 }, "full: anchored at memory's first message");
  // Tool results that differ (a tool run again): the group is replaced from its call.
  const tools = ["u1", "a1", "u2", "a:call", "t:r1", "t:r2", "a2"];
  assert.deepEqual(align(["u1", "a1", "u2", "a:call", "t:r1", "t:r2'", "a2'"], tools), { from: 3, supersede: 3 });
  // A repeated pair later on: the latest place wins.
  assert.deepEqual(align(["u", "a", "u9"], ["u", "a", "x", "u", "a", "y"]), { from: 2, supersede: 5 });
});

test("'yes' and 'continue', sent again and again as new turns, never drop anything", () => {
  const held = [];
  for (let i = 0; i < 6; i++) {
    for (const turn of ["yes", "continue"]) {
      const { from, supersede } = align([`u:${turn}`], held);
      assert.equal(supersede, held.length, `turn ${held.length}: nothing superseded`);
      assert.equal(from, 0, "the turn is new");
      held.push(`u:${turn}`, `a:${held.length}`);
    }
  }
});

// Random conversations and each way of passing them, with fingerprints made
// unique the way real turns are (a reply never repeats a whole exchange).
test("property: every way of passing a random conversation stores each new turn once and loses none", () => {
  const r = rng(9);
  for (let round = 0; round < 300; round++) {
    const m = 1 + Math.floor(r() * 20);
    const held = Array.from({ length: m }, (_, i) => `${i % 2 ? "a" : "u"}${Math.floor(r() * 3)}#${i}`);
    const fresh = Array.from({ length: 1 + Math.floor(r() * 3) }, (_, i) => `new${round}.${i}`);
    const w = Math.floor(r() * (m + 1));
    const window = [...held.slice(m - w), ...fresh];
    assert.deepEqual(align(window, held), { from: w, supersede: m }, `window of ${w}`);
    if (w >= 3) {
      // A held turn the client spells otherwise, before the window's last held one.
      const at = Math.floor(r() * (w - 1));
      window[at] += "~";
      assert.deepEqual(align(window, held), { from: w, supersede: m }, `window of ${w}, message ${at} respelled`);
    }
    const cut = 1 + Math.floor(r() * m); // regenerate or edit after held[0..cut)
    const tail = r() < 0.5 ? [] : fresh;
    // All of memory: a continuation. Less: what followed is replaced, unless
    // the prompt is one lone message (then it is a new turn).
    const n = cut + tail.length;
    const expected = cut === m ? { from: m, supersede: m } : n >= 2 ? { from: cut, supersede: cut } : { from: 0, supersede: m };
    assert.deepEqual(align([...held.slice(0, cut), ...tail], held), expected, `cut at ${cut} of ${m}, ${tail.length} new`);
  }
});
