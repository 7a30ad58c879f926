// memoryMiddleware recognises a call's messages from the newest held ones
// (js/integrations/ai-sdk/ai-sdk-align.js alignTail), reading more of memory only while they
// cannot place the call: the whole conversation (recognised from its end),
// only the new turn, a window of the last turns, a regenerated answer, an
// edit. Against align over all of memory on random conversations, then
// through the middleware over a controller holding hundreds of messages:
// nothing stored twice, nothing lost, the history read a page at a time.
import { test } from "node:test";
import assert from "node:assert/strict";
import { generateText, wrapLanguageModel } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { MemoryController } from "../../dist/node.js";
import { memoryMiddleware, toModelMessages } from "../../dist/integrations/ai-sdk/ai-sdk.js";
import { align, alignTail, fingerprint } from "../../dist/integrations/ai-sdk/ai-sdk-align.js";
import { rng } from "./helpers.mjs";

// Fingerprint-like strings: u… a… t… (a tool call is an assistant turn, its results "t").
function conversationOf(rand, n) {
  const out = [];
  for (let i = 0; out.length < n; i++) {
    out.push(`u${i}`);
    if (rand() < 0.2) {
      out.push(`a${i}call`);
      for (let r = 0; r < 1 + Math.floor(rand() * 2); r++) out.push(`t${i}.${r}`);
    }
    out.push(`a${i}`);
  }
  return out.slice(0, n);
}

// The widening the middleware does: the last 8, 32, 128, … held messages.
function widened(prompt, held, mode) {
  for (let limit = 8; ; limit *= 4) {
    const tail = held.slice(-limit);
    const before = held.length - tail.length;
    const r = alignTail(prompt, tail, before, mode);
    if (r !== undefined) return { from: r.from, supersede: before + r.supersede, limit };
  }
}

test("the newest held messages place a call as all of memory would, and widen only when they cannot", () => {
  const rand = rng(22);
  const firstTail = { whole: 0, newTurn: 0, window: 0, regenerate: 0, retry: 0 };
  for (let round = 0; round < 400; round++) {
    const held = conversationOf(rand, 20 + Math.floor(rand() * 300));
    const users = held.flatMap((h, i) => (h.startsWith("u") ? [i] : []));
    const lastUser = users.at(-1);
    const fresh = [`u-new${round}`];
    const shapes = {
      whole: [...held, ...fresh],
      newTurn: fresh,
      window: [...held.slice(-2 - Math.floor(rand() * 5)), ...fresh],
      regenerate: held.slice(0, lastUser + 1),
      retry: held.slice(-3),
      editNear: [...held.slice(0, users.at(-2) ?? 0), `u-edited${round}`],
      editFar: [...held.slice(0, users[Math.floor(users.length / 3)]), `u-edited${round}`],
    };
    for (const [shape, prompt] of Object.entries(shapes)) {
      for (const mode of shape === "whole" || shape.startsWith("edit") || shape === "regenerate" ? ["auto", "full"] : ["auto"]) {
        const want = align(prompt, held, mode);
        const got = widened(prompt, held, mode);
        assert.deepEqual({ from: got.from, supersede: got.supersede }, want, `${shape} (${mode}) over ${held.length}`);
        if (mode === "auto" && shape in firstTail && got.limit === 8) firstTail[shape]++;
      }
    }
  }
  // A whole conversation, a new turn, a window, a regenerate and a retry are
  // placed by the newest 8 (a regenerate whose answer was a long tool loop may need more).
  assert.deepEqual(Object.fromEntries(Object.entries(firstTail).filter(([k, v]) => k !== "regenerate" && v !== 400)), {});
  assert.ok(firstTail.regenerate > 350, `${firstTail.regenerate} of 400 regenerates from the first page`);
});

test("a tail that starts inside a tool group, or holds only a single match, reads more", () => {
  // Memory: … u1 c1 t1 t1' a1; the tail starts at t1'.
  const held = ["u0", "a0", "u1", "c1", "t1", "t1'", "a1"];
  assert.equal(alignTail(["u0", "a0", "u1", "c1", "t1", "t1'x"], held.slice(-2), 5), undefined, "the group's call is older than the tail");
  assert.deepEqual(widened(["u0", "a0", "u1", "c1", "t1", "t1'x"], held, "auto"), { from: 3, supersede: 3, limit: 8 });
  assert.equal(alignTail(["a1", "u-other"], ["a1", "u2", "a2"], 5), undefined, "one match, not at memory's end: older memory decides");
  assert.deepEqual(alignTail(["u-new"], ["a1", "u2", "a2"], 5), { from: 0, supersede: 3 }, "one new message is new whatever is older");
});

test("a whole conversation is placed reading only its start and its end", () => {
  const rand = rng(7);
  const held = conversationOf(rand, 5000);
  const whole = [...held, "u-new"];
  const read = new Set();
  const prompt = { length: whole.length, at: (i) => (read.add(i), whole[i]) };
  const tail = held.slice(-8);
  assert.deepEqual(alignTail(prompt, tail, held.length - 8), { from: held.length, supersede: 8 });
  const far = [...read].filter((i) => i >= 10 && i < whole.length - 2 * 8 - 3);
  assert.deepEqual(far, [], "no message between the prompt's start and its end is read");
  assert.ok(read.size <= 2 + 2 * 8 + 3, `${read.size} messages read`);
});

// ---------------------------------------------------------------- through the middleware

const mock = () =>
  new MockLanguageModelV4({
    doGenerate: async () => ({
      content: [{ type: "text", text: "Noted." }],
      finishReason: { unified: "stop", raw: "stop" },
      usage: { inputTokens: { total: 10 }, outputTokens: { total: 2 } },
      warnings: [],
    }),
  });

async function held(n) {
  const memory = await MemoryController.create({ model: "gpt-4o", workingMemory: { maxTokens: 4000 } });
  for (let i = 0; i < n / 2; i++) {
    await memory.add({ role: "user", content: `Question ${i}: what about item ${i}?` });
    await memory.add({ role: "assistant", content: `Answer ${i}: item ${i} is fine.` });
  }
  // What the middleware reads of the history, per call; `chat` reads all of it.
  const limits = [];
  const history = memory.history.bind(memory);
  memory.history = (options) => (limits.push(options?.limit ?? Infinity), history(options));
  const chat = async () => (await history()).map((h) => h.message).filter((m) => m.role !== "system");
  return { memory, limits, chat, model: wrapLanguageModel({ model: mock(), middleware: memoryMiddleware(memory) }) };
}

const prints = (messages) => messages.map(fingerprint);

test("the middleware over 400 held messages: whole conversation, new turn, window, regenerate, edit", async () => {
  const { limits, chat, model } = await held(400);
  // `messages`: what the app passes; `holds`: the conversation memory holds then, before the answer.
  const call = async (why, messages, holds, { widens = false } = {}) => {
    limits.length = 0;
    const r = await generateText({ model, messages: toModelMessages(messages).messages });
    assert.deepEqual(
      prints(await chat()),
      prints([...holds, { role: "assistant", content: r.text }]),
      `${why}: memory holds the conversation once`,
    );
    assert.ok(limits.length > 0 && limits.every((l) => Number.isFinite(l)), `${why}: read a page at a time (${limits})`);
    assert.equal(
      limits.some((l) => l > 8),
      widens,
      `${why}: ${widens ? "read more than" : "placed by"} the newest 8 (${limits})`,
    );
  };
  let client = await chat();
  const turn = (content) => ({ role: "user", content });
  let m = [...client, turn("The whole conversation and a new turn.")];
  await call("whole conversation", m, m);
  client = await chat();
  await call("new turn", [turn("Only the new turn.")], [...client, turn("Only the new turn.")]);
  client = await chat();
  await call("window", [...client.slice(-4), turn("A window of the last turns.")], [...client, turn("A window of the last turns.")]);
  client = await chat();
  await call("regenerate", client.slice(0, -1), client.slice(0, -1));
  client = await chat();
  m = [...client.slice(0, 100), turn("An edit of turn 50.")];
  await call("edit far back", m, m, { widens: true });
  assert.equal((await chat()).length, 102, "what followed the edit was superseded, nothing else lost");
});
