// A long, deterministic chat history for the context benchmark, built from
// the corpus paragraphs: a system prompt, then user / assistant turns, and
// every few exchanges an assistant tool-call group (1–2 calls, their tool
// results, then the assistant's answer). Same messages on every run.

import { mulberry32, paragraphs } from "./corpus.mjs";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const TOOLS = ["search_docs", "get_weather", "run_sql", "read_file"];

/** `count` OpenAI-shaped messages after one system message (seeded). */
export function history(count = 10_000, seed = 0xc0ffee) {
  const rand = mulberry32(seed);
  const pool = paragraphs()
    .map((p) => p.text)
    .filter((t) => !/^-{3,}$/.test(t.trim()));
  let cursor = Math.floor(rand() * pool.length);
  const nextText = () => pool[cursor++ % pool.length];
  const callId = () => "call_" + Array.from({ length: 24 }, () => ALPHABET[Math.floor(rand() * 62)]).join("");

  const messages = [{ role: "system", content: "You are a helpful assistant. Answer briefly and cite the tool results you used." }];
  while (messages.length - 1 < count) {
    messages.push({ role: "user", content: nextText() });
    const left = count - (messages.length - 1);
    const calls = rand() < 0.15 ? 1 + Math.floor(rand() * 2) : 0;
    if (calls > 0 && left >= calls + 2) {
      const toolCalls = Array.from({ length: calls }, () => ({
        id: callId(),
        type: "function",
        function: {
          name: TOOLS[Math.floor(rand() * TOOLS.length)],
          arguments: JSON.stringify({ query: nextText().slice(0, 80), limit: 1 + Math.floor(rand() * 9) }),
        },
      }));
      messages.push({ role: "assistant", content: null, tool_calls: toolCalls });
      for (const call of toolCalls) messages.push({ role: "tool", tool_call_id: call.id, content: nextText() });
    }
    if (messages.length - 1 < count) messages.push({ role: "assistant", content: nextText() });
  }
  return messages;
}
