// The chats the context benches replay, in one shape:
// `{ id, split, messages: [{ id, role, name?, content, ts }], questions: [{ id, type, query, evidence: [message id] }] }`.
//
// - longchat: tests/fixtures/longchat/chats.json (six two-person chats;
//   whole chats are "tune" or "held-out").
// - recall: tests/fixtures/recall as one chat (987 turns, 82 questions),
//   each turn at its day, one second apart, as bench/recall.mjs replays it.
//
// `replay` adds a chat's messages to a fresh controller with the clock at
// each message's time, and maps our message ids back to the chat's.

import { readFileSync } from "node:fs";
import { MemoryController } from "../dist/node.js";
import { ROOT } from "./lib.mjs";
import { loadSet } from "./recall.mjs";

export function longchats() {
  return JSON.parse(readFileSync(ROOT + "tests/fixtures/longchat/chats.json", "utf8")).chats;
}

export function recallChat() {
  const { turns, questions } = loadSet();
  const messages = turns.map((t) => ({
    id: t.id,
    role: t.role,
    content: t.text,
    ts: Date.UTC(2026, 0, 1) + t.day * 86_400_000 + t.id * 1000,
  }));
  return { id: "recall", split: "all", messages, questions: questions.map((q) => ({ ...q, split: q.half })) };
}

/** The message as sent: role, name when there is one, content. */
export const wire = (m) => (m.name ? { role: m.role, name: m.name, content: m.content } : { role: m.role, content: m.content });

/** A fresh controller holding `messages`, clock at each one's `ts`; `byOurs` maps our ids to the chat's. */
export async function replay(messages, options = {}) {
  let now = messages[0]?.ts ?? 0;
  const memory = await MemoryController.create({ namespace: "bench", model: "gpt-4o", clock: () => now, ...options });
  const byOurs = new Map();
  for (const m of messages) {
    now = m.ts;
    byOurs.set((await memory.add(wire(m))).id, m.id);
  }
  // Embedding is lazy (up to 512 items per search): warm up until every message has a vector.
  if (options.embedder) for (let i = 0; i * 512 < messages.length + 512; i++) await memory.search("warm-up", { k: 1 });
  return { memory, byOurs, now };
}
