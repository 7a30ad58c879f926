// Which messages of a call's prompt memory already holds, so that an app may
// pass only the new turn, or the whole conversation on every call (as useChat
// routes do), and each message is stored once.
//
// Messages are compared by a fingerprint of what the provider would be sent:
// role, text, tool calls (arguments compared as JSON, key order aside), tool
// results, media. Reasoning, names, provider options and extra fields are left
// out: a conversation that went through useChat and back has them in other
// forms, or not at all.

/** A canonical string for an OpenAI chat message: equal for the same turn. */
export function fingerprint(m) {
  switch (m.role) {
    case "user":
      return "u" + JSON.stringify(userParts(m.content));
    case "assistant":
      return "a" + JSON.stringify([assistantText(m.content), (m.tool_calls ?? []).map((c) => [c.id, c.function?.name, canonicalJson(c.function?.arguments)])]);
    case "tool":
      return "t" + JSON.stringify([m.tool_call_id, texts(m.content)]);
    default:
      return (m.role ?? "?") + JSON.stringify(m.content);
  }
}

function userParts(content) {
  if (typeof content === "string") return [["text", content]];
  if (!Array.isArray(content)) return [];
  return content.map((p) => {
    switch (p?.type) {
      case "text":
        return ["text", p.text];
      case "image_url":
        return ["image", p.image_url?.url];
      case "input_audio":
        return ["audio", p.input_audio?.data];
      case "file":
        return ["file", p.file?.file_id ?? p.file?.file_data];
      default:
        return [p?.type];
    }
  });
}

function assistantText(content) {
  if (typeof content === "string") return content;
  return Array.isArray(content) ? content.map((p) => p?.text ?? p?.refusal ?? "").join("") : "";
}

function texts(content) {
  return typeof content === "string" ? content : Array.isArray(content) ? content.map((p) => p?.text ?? "").join("\n") : "";
}

// JSON text with object keys sorted; text that is not JSON stays as it is.
function canonicalJson(text) {
  try {
    return JSON.stringify(sortKeys(JSON.parse(text)));
  } catch {
    return text;
  }
}

function sortKeys(v) {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v === null || typeof v !== "object") return v;
  return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys(v[k])]));
}

/**
 * Aligns a call's messages with the ones memory holds (both as fingerprints,
 * system messages left out). Returns `{ from, supersede }`: `prompt[from..]`
 * are new; `held[supersede..]` are what the prompt replaced (a regenerated
 * answer, an edited turn; `supersede === held.length` when nothing was).
 *
 * 1. The prompt continues memory when its first k messages are memory's last
 *    k (the whole conversation, a window of it, a tool loop's next step, a
 *    retry of a call that failed): the longest such k wins.
 * 2. Otherwise the prompt may be a conversation that leaves memory's at some
 *    point: its first c messages equal memory's from j on, then it differs
 *    (or ends) while memory goes on. Taken when that is unambiguous: c ≥ 2,
 *    or c ≥ 1 from memory's first message with a prompt of two or more. A
 *    lone message equal to an earlier one is a new turn that repeats it
 *    ("yes", "continue"), never a cue to drop what followed it. With
 *    `mode: "full"` (every call passes the whole conversation) the prompt is
 *    anchored at memory's first message and c ≥ 1 suffices.
 * 3. Otherwise every message of the prompt is new.
 */
export function align(prompt, held, mode = "auto") {
  const n = prompt.length;
  const m = held.length;
  for (let k = Math.min(n, m); k > 0; k--) {
    if (prompt[k - 1] === held[m - 1] && sameRun(prompt, held, m - k, k)) return { from: k, supersede: m };
  }
  let best = { c: 0, j: 0 };
  for (let j = 0; j < (mode === "full" ? Math.min(m, 1) : m); j++) {
    let c = 0;
    while (c < n && j + c < m && prompt[c] === held[j + c]) c++;
    if (c > 0 && c >= best.c) best = { c, j }; // ties: the latest place
  }
  const { c, j } = best;
  const clear = mode === "full" ? c >= 1 && j === 0 : c >= 2 || (c >= 1 && j === 0 && n >= 2);
  return clear ? { from: c, supersede: j + c } : { from: 0, supersede: m };
}

function sameRun(prompt, held, start, k) {
  for (let i = 0; i < k; i++) if (prompt[i] !== held[start + i]) return false;
  return true;
}
