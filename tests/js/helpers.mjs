// Shared by the JS tests: a seeded PRNG, random conversations, and the
// invariants every built context must satisfy.
import assert from "node:assert/strict";

export { mulberry32 as rng } from "../../bench/corpus.mjs";

const WORDS = [
  "hello",
  "budget",
  "tokens",
  "我们",
  "明天",
  "去成都",
  "记住",
  "花生过敏",
  "🙂",
  "fn main() {}",
  '{"a":1}',
  "1234567",
  "\n",
  "I prefer",
  "請幫我",
  "東京",
  "서울",
  "<|endoftext|>",
];

export function randomText(r, max = 30) {
  const n = Math.floor(r() * max);
  return Array.from({ length: n }, () => WORDS[Math.floor(r() * WORDS.length)]).join(" ");
}

// A random conversation: user/assistant turns, tool-call groups of 1–3
// calls answered fully, and now and then a system message.
export function randomConversation(r, turns) {
  const msgs = [];
  let call = 0;
  for (let i = 0; i < turns; i++) {
    const x = r();
    if (x < 0.4) msgs.push({ role: "user", content: randomText(r) });
    else if (x < 0.8) msgs.push({ role: "assistant", content: randomText(r) });
    else if (x < 0.83) msgs.push({ role: "system", content: randomText(r, 8) });
    else {
      const n = 1 + Math.floor(r() * 3);
      const ids = Array.from({ length: n }, () => `call_${++call}`);
      msgs.push({
        role: "assistant",
        content: null,
        tool_calls: ids.map((id) => ({ id, type: "function", function: { name: "lookup", arguments: '{"q":"x"}' } })),
      });
      for (const id of ids) msgs.push({ role: "tool", tool_call_id: id, content: randomText(r, 10) });
    }
  }
  return msgs;
}

// Every assistant tool-call message is directly followed by all its results.
export function assertGroupsWhole(messages) {
  messages.forEach((m, i) => {
    if (m.tool_calls) {
      const results = [];
      for (let j = i + 1; j < messages.length && messages[j].role === "tool"; j++) results.push(messages[j].tool_call_id);
      assert.deepEqual(results.sort(), m.tool_calls.map((c) => c.id).sort(), "tool group split");
    }
    if (m.role === "tool") assert.ok(i > 0 && (messages[i - 1].role === "tool" || messages[i - 1].tool_calls), "orphan tool result");
  });
}

export function assertContext(memory, ctx, maxTokens, reserveOutput = 0) {
  assert.ok(ctx.tokens <= maxTokens - reserveOutput, `tokens ${ctx.tokens} > ${maxTokens} - ${reserveOutput}`);
  assert.equal(ctx.tokens, memory.countMessages(ctx.messages), "tokens must equal a recount");
  const s = ctx.sections;
  const parts =
    s.system.tokens +
    s.procedures +
    s.preferences +
    s.task +
    s.knowledge.tokens +
    s.tools +
    s.summary.tokens +
    s.recent.tokens +
    s.overhead;
  assert.equal(parts, ctx.tokens, "sections add up");
  assertGroupsWhole(ctx.messages);
}
