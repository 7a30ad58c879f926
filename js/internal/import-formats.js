// The chat exports `importConversations` reads, each turned into one plain
// shape: { id, title, messages: [{ id, at, message }], hidden } where
// `message` is an OpenAI chat message, `at` its time in ms (never earlier
// than the message before it: the thread's order and times agree), `id`
// the export's own id for it (what makes a second import skip it), and
// `hidden` the count of nodes left out (system prompts, hidden context,
// reasoning, tool output with no call to answer).
//
// Formats (as the services document and ship them, 2025):
// - "chatgpt": conversations.json of ChatGPT's data export. A conversation
//   is a tree (`mapping`: node id → { message, parent, children }); a
//   regenerated or edited turn is a second child. The path from the root
//   to `current_node` is what the user last saw: only it is imported.
// - "claude": conversations.json of Claude's export: `chat_messages` in
//   order (with `parent_message_uuid`, the branch ending at the newest
//   message is followed).
// - "openai": an array of OpenAI messages each with a time (`timestamp`,
//   `created_at`, `createdAt` or `time`: seconds, ms or ISO text), or
//   { id?, title?, messages }.
//
// A malformed conversation is a MemoryError INVALID_INPUT naming the
// conversation (index, title, id) and the field.

import { memoryError } from "./errors.js";

export const FORMATS = ["chatgpt", "claude", "openai"];

/** The format a conversation is in, from its fields; undefined when none fits. */
export function detectFormat(raw) {
  if (Array.isArray(raw)) return "openai";
  if (raw && typeof raw === "object") {
    if ("mapping" in raw) return "chatgpt";
    if ("chat_messages" in raw) return "claude";
    if (Array.isArray(raw.messages)) return "openai";
  }
  return undefined;
}

/** Conversation `raw` (the `index`th of the input) in `format`, as the plain shape. */
export function readConversation(format, raw, index) {
  const where = { index, id: undefined, title: undefined };
  const bad = (field, what) => {
    const named = [where.title !== undefined && JSON.stringify(where.title), where.id !== undefined && `id ${where.id}`]
      .filter(Boolean)
      .join(", ");
    const err = memoryError("INVALID_INPUT", `import: conversation ${index}${named ? ` (${named})` : ""}: ${field}: ${what}`);
    return Object.assign(err, { conversation: index, field });
  };
  if (format === "openai") return openai(raw, where, bad);
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) throw bad("(conversation)", `expected an object, got ${kind(raw)}`);
  if (format === "chatgpt") return chatgpt(raw, where, bad);
  return claude(raw, where, bad);
}

function kind(v) {
  return v === null ? "null" : Array.isArray(v) ? "an array" : typeof v;
}

/** A time (ms) from seconds, ms or ISO text; undefined when absent. */
function time(v, field, bad, unit = "auto") {
  if (v === undefined || v === null) return undefined;
  if (typeof v === "number" && Number.isFinite(v)) return unit === "s" || (unit === "auto" && Math.abs(v) < 1e11) ? v * 1000 : v;
  if (typeof v === "string") {
    const t = Date.parse(v);
    if (Number.isFinite(t)) return t;
  }
  throw bad(field, `expected a time (${unit === "s" ? "seconds since 1970" : "seconds, ms or ISO 8601 text"}), got ${JSON.stringify(v)}`);
}

function text(v, field, bad) {
  if (v === undefined || v === null) return "";
  if (typeof v !== "string") throw bad(field, `expected a string, got ${kind(v)}`);
  return v;
}

/** Keeps times non-decreasing: a message without a time, or stamped before the one it answers, takes the one before. */
function ordered(messages, start) {
  let last = start ?? -Infinity;
  for (const m of messages) {
    m.at = m.at === undefined || m.at < last ? last : m.at;
    last = m.at;
  }
  return messages;
}

// --- ChatGPT --------------------------------------------------------------

/** Content types that show nothing to the user: reasoning, memory and settings context, errors. */
const CHATGPT_HIDDEN = new Set(["thoughts", "reasoning_recap", "user_editable_context", "model_editable_context", "system_error"]);

function chatgpt(raw, where, bad) {
  where.title = typeof raw.title === "string" ? raw.title : undefined;
  const id = raw.conversation_id ?? raw.id;
  if (typeof id !== "string" || !id) throw bad("conversation_id", `expected a non-empty string, got ${JSON.stringify(id)}`);
  where.id = id;
  const mapping = raw.mapping;
  if (mapping === null || typeof mapping !== "object" || Array.isArray(mapping))
    throw bad("mapping", `expected an object of nodes, got ${kind(mapping)}`);
  const created = time(raw.create_time, "create_time", bad, "s");
  // The path the user last saw: current_node up to the root.
  let node = raw.current_node ?? lastLeaf(mapping);
  if (node !== undefined && !Object.hasOwn(mapping, node)) throw bad("current_node", `${JSON.stringify(node)} is not a node of mapping`);
  const path = [];
  const seen = new Set();
  while (node !== undefined && node !== null) {
    if (seen.has(node)) throw bad(`mapping.${path.at(-1)[0]}.parent`, "the parents form a cycle");
    seen.add(node);
    const n = mapping[node];
    if (n === null || typeof n !== "object") throw bad(`mapping.${node}`, `expected a node object, got ${kind(n)}`);
    path.push([node, n]);
    node = n.parent;
    if (node !== undefined && node !== null && !Object.hasOwn(mapping, node))
      throw bad(`mapping.${path.at(-1)[0]}.parent`, `${JSON.stringify(node)} is not a node of mapping`);
  }
  path.reverse();
  const nodes = [];
  let hidden = 0;
  for (const [key, n] of path) {
    if (n.message === null || n.message === undefined) continue; // the root
    const read = chatgptNode(n.message, `mapping.${key}.message`, bad);
    if (read) nodes.push(read);
    else hidden++;
  }
  // A call to a tool (code, browsing, images) becomes an assistant tool call
  // when its output follows, the outputs one tool message; otherwise the
  // call is shown as text and an output nothing asked for is left out.
  const messages = [];
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i];
    if (n.role === "tool") {
      hidden++;
      continue;
    }
    if (n.recipient && nodes[i + 1]?.role === "tool") {
      const call = `call_${n.id}`.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
      const name = n.recipient.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 64);
      messages.push({
        id: n.id,
        at: n.at,
        message: {
          role: "assistant",
          content: null,
          tool_calls: [{ id: call, type: "function", function: { name, arguments: toolArguments(n) } }],
        },
      });
      const outputs = [];
      while (nodes[i + 1]?.role === "tool") outputs.push(nodes[++i]);
      messages.push({
        id: outputs[0].id,
        at: outputs[0].at,
        message: { role: "tool", tool_call_id: call, content: outputs.map((o) => o.text).join("\n\n") },
      });
      continue;
    }
    const content = n.recipient && n.code ? `\`\`\`${n.language ?? ""}\n${n.text}\n\`\`\`` : n.text;
    messages.push({ id: n.id, at: n.at, message: { role: n.role, content } });
  }
  return { id, title: where.title, messages: ordered(messages, created), hidden };
}

/** The leaf written last, for an export without `current_node`. */
function lastLeaf(mapping) {
  let best,
    bestAt = -Infinity;
  for (const [key, n] of Object.entries(mapping)) {
    if (Array.isArray(n?.children) && n.children.length) continue;
    const at = typeof n?.message?.create_time === "number" ? n.message.create_time : -Infinity;
    if (best === undefined || at >= bestAt) [best, bestAt] = [key, at];
  }
  return best;
}

function toolArguments(n) {
  if (n.code) return JSON.stringify({ code: n.text, ...(n.language ? { language: n.language } : {}) });
  try {
    JSON.parse(n.text);
    return n.text;
  } catch {
    return JSON.stringify({ input: n.text });
  }
}

/** One node's message, or undefined when it is hidden or says nothing. */
function chatgptNode(m, field, bad) {
  if (m === null || typeof m !== "object") throw bad(field, `expected a message object, got ${kind(m)}`);
  const role = m.author?.role;
  if (!["system", "user", "assistant", "tool"].includes(role))
    throw bad(`${field}.author.role`, `expected "system", "user", "assistant" or "tool", got ${JSON.stringify(role)}`);
  const id = typeof m.id === "string" && m.id ? m.id : undefined;
  if (!id) throw bad(`${field}.id`, `expected a non-empty string, got ${JSON.stringify(m.id)}`);
  const at = time(m.create_time, `${field}.create_time`, bad, "s");
  const c = m.content;
  if (c === null || typeof c !== "object") throw bad(`${field}.content`, `expected an object, got ${kind(c)}`);
  const type = c.content_type;
  if (typeof type !== "string") throw bad(`${field}.content.content_type`, `expected a string, got ${JSON.stringify(type)}`);
  if (role === "system" || m.metadata?.is_visually_hidden_from_conversation === true || CHATGPT_HIDDEN.has(type)) return undefined;
  let body;
  let code = false;
  if (type === "code" || type === "execution_output") {
    body = text(c.text, `${field}.content.text`, bad);
    code = type === "code";
  } else if (type === "tether_quote") {
    body = [c.title, c.url, c.text].filter((s) => typeof s === "string" && s).join("\n");
  } else if (type === "tether_browsing_display") {
    body = [c.summary, c.result].filter((s) => typeof s === "string" && s).join("\n");
  } else if (c.parts !== undefined) {
    if (!Array.isArray(c.parts)) throw bad(`${field}.content.parts`, `expected an array, got ${kind(c.parts)}`);
    body = c.parts
      .map((p, i) => chatgptPart(p, `${field}.content.parts[${i}]`, bad))
      .filter(Boolean)
      .join("\n");
  } else {
    body = typeof c.text === "string" ? c.text : "";
  }
  const attachments = Array.isArray(m.metadata?.attachments) ? m.metadata.attachments : [];
  const named = attachments
    .map((a) => (typeof a?.name === "string" ? `[attachment: ${a.name}${typeof a.mime_type === "string" ? `, ${a.mime_type}` : ""}]` : ""))
    .filter(Boolean);
  if (named.length) body = [body, ...named].filter(Boolean).join("\n");
  if (!body.trim()) return undefined;
  const recipient = role === "assistant" && typeof m.recipient === "string" && m.recipient !== "all" ? m.recipient : undefined;
  const language = typeof c.language === "string" && c.language !== "unknown" ? c.language : undefined;
  return { id, at, role, text: body, recipient, code, language };
}

/** A part of a multimodal message as text: images and audio by name (their bytes are not in conversations.json). */
function chatgptPart(p, field, bad) {
  if (typeof p === "string") return p;
  if (p === null || typeof p !== "object") throw bad(field, `expected a string or an object, got ${kind(p)}`);
  if (typeof p.text === "string") return p.text; // audio_transcription, text parts
  const type = typeof p.content_type === "string" ? p.content_type : "attachment";
  if (type === "image_asset_pointer") {
    const size = Number.isFinite(p.width) && Number.isFinite(p.height) ? ` ${p.width}×${p.height}` : "";
    return `[image${size}${typeof p.asset_pointer === "string" ? `: ${p.asset_pointer}` : ""}]`;
  }
  if (type === "audio_asset_pointer" || type === "real_time_user_audio_video_asset_pointer") return "";
  return `[${type}]`;
}

// --- Claude ---------------------------------------------------------------

/** The parent id Claude gives a conversation's first message. */
const CLAUDE_ROOT = "00000000-0000-4000-8000-000000000000";

function claude(raw, where, bad) {
  where.title = typeof raw.name === "string" ? raw.name : undefined;
  const id = raw.uuid;
  if (typeof id !== "string" || !id) throw bad("uuid", `expected a non-empty string, got ${JSON.stringify(id)}`);
  where.id = id;
  const created = time(raw.created_at, "created_at", bad);
  const list = raw.chat_messages;
  if (!Array.isArray(list)) throw bad("chat_messages", `expected an array, got ${kind(list)}`);
  let chosen = list.map((m, i) => [m, i]);
  for (const [m, i] of chosen) {
    if (m === null || typeof m !== "object" || Array.isArray(m)) throw bad(`chat_messages[${i}]`, `expected an object, got ${kind(m)}`);
  }
  if (list.some((m) => typeof m.parent_message_uuid === "string")) chosen = claudeBranch(chosen, bad);
  let hidden = 0;
  const messages = [];
  for (const [m, i] of chosen) {
    const field = `chat_messages[${i}]`;
    if (typeof m.uuid !== "string" || !m.uuid) throw bad(`${field}.uuid`, `expected a non-empty string, got ${JSON.stringify(m.uuid)}`);
    const role = m.sender === "human" ? "user" : m.sender === "assistant" ? "assistant" : undefined;
    if (!role) throw bad(`${field}.sender`, `expected "human" or "assistant", got ${JSON.stringify(m.sender)}`);
    const at = time(m.created_at, `${field}.created_at`, bad);
    let body;
    if (Array.isArray(m.content) && m.content.length) {
      body = m.content
        .map((p, k) => claudePart(p, `${field}.content[${k}]`, bad))
        .filter(Boolean)
        .join("\n");
    } else {
      body = text(m.text, `${field}.text`, bad);
    }
    const extra = [];
    for (const [k, a] of (Array.isArray(m.attachments) ? m.attachments : []).entries()) {
      const name = typeof a?.file_name === "string" ? a.file_name : `attachment ${k + 1}`;
      extra.push(`[attachment: ${name}]`);
      if (typeof a?.extracted_content === "string" && a.extracted_content) extra.push(a.extracted_content);
    }
    for (const f of Array.isArray(m.files) ? m.files : []) if (typeof f?.file_name === "string") extra.push(`[file: ${f.file_name}]`);
    body = [body, ...extra].filter(Boolean).join("\n");
    if (!body.trim()) {
      hidden++;
      continue;
    }
    messages.push({ id: m.uuid, at, message: { role, content: body } });
  }
  return { id, title: where.title, messages: ordered(messages, created), hidden };
}

/** The messages on the branch that ends at the newest one, in order. */
function claudeBranch(chosen, bad) {
  const byId = new Map(chosen.map((e) => [e[0].uuid, e]));
  let leaf = chosen.at(-1);
  for (const e of chosen) if (String(e[0].created_at ?? "") >= String(leaf[0].created_at ?? "")) leaf = e;
  const path = [];
  const seen = new Set();
  for (let e = leaf; e; e = byId.get(e[0].parent_message_uuid)) {
    if (seen.has(e[0].uuid)) throw bad(`chat_messages[${path.at(-1)[1]}].parent_message_uuid`, "the parents form a cycle");
    seen.add(e[0].uuid);
    path.push(e);
    if (e[0].parent_message_uuid === CLAUDE_ROOT) break;
  }
  return path.reverse();
}

function claudePart(p, field, bad) {
  if (p === null || typeof p !== "object") throw bad(field, `expected an object, got ${kind(p)}`);
  if (p.type === "text") return text(p.text, `${field}.text`, bad);
  if (p.type === "thinking" || p.type === "redacted_thinking") return "";
  if (p.type === "tool_use") return `[tool_use ${p.name ?? ""}] ${JSON.stringify(p.input ?? {})}`;
  if (p.type === "tool_result") {
    const out = Array.isArray(p.content)
      ? p.content.map((c) => (typeof c?.text === "string" ? c.text : "")).join("\n")
      : typeof p.content === "string"
        ? p.content
        : "";
    return `[tool_result ${p.name ?? ""}] ${out}`.trimEnd();
  }
  return typeof p.text === "string" ? p.text : "";
}

// --- OpenAI messages ------------------------------------------------------

const TIME_FIELDS = ["timestamp", "created_at", "createdAt", "time"];

function openai(raw, where, bad) {
  const wrapped = raw !== null && typeof raw === "object" && !Array.isArray(raw);
  const list = wrapped ? raw.messages : raw;
  if (!Array.isArray(list)) throw bad(wrapped ? "messages" : "(conversation)", `expected an array of messages, got ${kind(list)}`);
  where.title = wrapped && typeof raw.title === "string" ? raw.title : undefined;
  const messages = list.map((m, i) => {
    const field = `${wrapped ? "messages" : ""}[${i}]`;
    if (m === null || typeof m !== "object" || Array.isArray(m)) throw bad(field, `expected a message object, got ${kind(m)}`);
    const name = TIME_FIELDS.find((f) => m[f] !== undefined && m[f] !== null);
    if (!name) throw bad(`${field}.timestamp`, `a message needs its time (one of ${TIME_FIELDS.join(", ")})`);
    const at = time(m[name], `${field}.${name}`, bad);
    const { [name]: _t, id, ...message } = m;
    return { id: typeof id === "string" && id ? id : String(i), at, message };
  });
  let id = wrapped ? raw.id : undefined;
  if (id !== undefined && (typeof id !== "string" || !id)) throw bad("id", `expected a non-empty string, got ${JSON.stringify(id)}`);
  // Without an id, the conversation is known by its first message.
  id ??= messages.length ? `h${fnv(`${messages[0].at}\u0000${JSON.stringify(messages[0].message)}`)}` : undefined;
  if (id === undefined) throw bad("messages", "an empty conversation without an id");
  where.id = id;
  return { id, title: where.title, messages: ordered(messages), hidden: 0 };
}

/** FNV-1a (64-bit), hex: a stable name for a conversation without an id. */
function fnv(s) {
  let h = 0xcbf29ce484222325n;
  for (let i = 0; i < s.length; i++) h = BigInt.asUintN(64, (h ^ BigInt(s.charCodeAt(i))) * 0x100000001b3n);
  return h.toString(16).padStart(16, "0");
}
