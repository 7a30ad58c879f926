// Exact o200k token counts of chat messages, as the model is billed:
// our chat rule (src/tokens/chat.rs, after OpenAI's cookbook) over
// tiktoken's `encode_ordinary`. Shared by the benches that count what a
// peer (or a stuffed list) sends.

import { get_encoding } from "tiktoken";

export const enc = get_encoding("o200k_base");
export const count = (s) => (s ? enc.encode_ordinary(s).length : 0);

/** A message's text: a string content, or its text parts joined. */
export const textOf = (m) =>
  typeof m.content === "string" ? m.content : Array.isArray(m.content) ? m.content.map((p) => p.text ?? "").join("\n") : "";

// 3 per message + role + content, a name 1 more, 3 + id + name + arguments
// per tool call, the tool_call_id; 3 to prime the reply.
export function exactTokens(m) {
  let n = 3 + count(m.role) + count(textOf(m));
  if (m.name) n += 1 + count(m.name);
  if (m.tool_call_id) n += count(m.tool_call_id);
  for (const c of m.tool_calls ?? []) n += 3 + count(c.id) + count(c.function.name) + count(c.function.arguments);
  return n;
}
export const REPLY_PRIMING = 3;
export const exactTotal = (msgs) => msgs.reduce((n, m) => n + exactTokens(m), REPLY_PRIMING);
