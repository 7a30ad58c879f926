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
      return (
        "a" +
        JSON.stringify([
          assistantText(m.content),
          (m.tool_calls ?? []).map((c) => [c.id, c.function?.name, canonicalJson(c.function?.arguments)]),
        ])
      );
    case "tool":
      return "t" + JSON.stringify([m.tool_call_id, canonicalJson(texts(m.content))]);
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
  return Object.fromEntries(
    Object.keys(v)
      .sort()
      .map((k) => [k, sortKeys(v[k])]),
  );
}

/**
 * Aligns a call's messages with the ones memory holds (both as fingerprints,
 * system messages left out). Returns `{ from, supersede }`: `prompt[from..]`
 * are new; `held[supersede..]` are what the prompt replaced (a regenerated
 * answer, an edited turn; `supersede === held.length` when nothing was).
 *
 * The prompt is laid against memory from an anchor: a place where its first
 * (or second) message is held. Walking both in step from there, the last
 * pair that matches ends what the prompt shares with memory; a message that
 * differs between two that match is the same turn spelled another way (a
 * tool result written with other whitespace), held. The anchor with the
 * most matches wins, the latest on a tie. Then:
 *
 * 1. memory ends where the shared part ends: the prompt continues memory
 *    (the whole conversation, a window of it, a tool loop's next step, a
 *    retry of a call that failed); the rest of the prompt is new;
 * 2. memory goes on: the prompt leaves memory's conversation there (a
 *    regenerated answer: it stops short; an edit: it differs). Taken when
 *    that is unambiguous: two or more matches, or one from memory's first
 *    message with a prompt of two or more. A lone message equal to an
 *    earlier one is a new turn that repeats it ("yes", "continue"), never a
 *    cue to drop what followed. With `mode: "full"` (every call passes the
 *    whole conversation) only memory's first message anchors, and one match
 *    suffices;
 * 3. otherwise every message of the prompt is new.
 *
 * What is replaced starts at a message, never inside a tool group: a group
 * whose results differ is replaced from its call.
 */
export function align(prompt, held, mode = "auto") {
  const { from, supersede } = place(prompt, held, mode, 0);
  return { from, supersede };
}

/**
 * `align` against the newest held messages only: `held` is memory's last
 * messages, `before` how many come before them (system messages left out).
 * Returns what `align` over the whole memory returns, or `undefined` when
 * these messages cannot place the prompt and more of memory must be read.
 *
 * Besides the anchors of `align`, the prompt may hold the tail: a place in
 * the prompt's end (its last `2 × held.length + 2` messages) where the
 * tail's first (or second) message is anchors it, so a whole conversation
 * is recognised from its end; a tail further back is found by a wider one.
 * `prompt` may be an array or anything with `length` and `at(i)`: only the
 * prompts the alignment compares are read (its start, as far as the tail
 * reaches from there, and its end), so a caller may fingerprint lazily. A
 * prompt of one message
 * the tail does not hold is new whatever came before it (rule 2 never takes
 * one message); anything else the tail cannot place, or places only by a
 * single match, is left to more of memory. With `mode: "full"` the prompt
 * lies on memory position by position: the tail is `before` messages in.
 */
export function alignTail(prompt, held, before, mode = "auto") {
  const out = place(prompt, held, mode, before);
  return out.placed ? { from: out.from, supersede: out.supersede } : undefined;
}

function place(prompt, held, mode, before) {
  const n = prompt.length;
  const m = held.length;
  const whole = before === 0;
  // Nothing the tail holds: new, if what is older cannot change that.
  const unplaced = { from: 0, supersede: m, placed: whole || (mode !== "full" && n <= 1) };
  let best;
  for (const j of anchors(prompt, held, mode, before)) {
    let matches = 0;
    let last = -1;
    for (let i = Math.max(0, -j); i < n && j + i < m; i++) {
      if (prompt.at(i) === held[j + i]) {
        matches++;
        last = i;
      }
    }
    if (matches > 0 && (best === undefined || matches >= best.matches)) best = { j, matches, last };
  }
  if (best === undefined) return unplaced;
  const { j, matches } = best;
  let { last } = best;
  if (j + last + 1 === m) return { from: last + 1, supersede: m, placed: true };
  if (!(mode === "full" || matches >= 2 || (whole && j === 0 && n >= 2))) return unplaced;
  // A tool group is replaced whole: from its call, never between the call and its results.
  while (last >= 0 && j + last + 1 > 0 && held[j + last + 1].startsWith("t")) last--;
  // (a group whose call is older than the tail: read more)
  if (!whole && held[j + last + 1]?.startsWith("t")) return { ...unplaced, placed: false };
  return { from: last + 1, supersede: j + last + 1, placed: true };
}

// Where the prompt may start in memory (as an index into `held`, negative
// when it starts before): each place its first or second message is held
// (ascending, so the latest wins a tie), and with a tail each place the
// prompt holds the tail's first or second message; only memory's start with
// mode "full".
function anchors(prompt, held, mode, before) {
  if (mode === "full") return held.length > 0 && prompt.length > before ? [-before] : [];
  const out = new Set();
  for (let t = 0; t < Math.min(prompt.length, 2); t++) {
    const p = prompt.at(t);
    held.forEach((h, k) => h === p && out.add(k - t));
  }
  if (before > 0) {
    // Only the prompt's end: a tail that meets it further back is found
    // by a wider tail, whose end reaches further.
    const end = Math.max(0, prompt.length - 2 * held.length - 2);
    for (let i = prompt.length - 1; i >= end; i--) {
      const p = prompt.at(i);
      for (let k = 0; k < Math.min(held.length, 2); k++) if (p === held[k]) out.add(k - i);
    }
  }
  return [...out].sort((a, b) => a - b);
}
