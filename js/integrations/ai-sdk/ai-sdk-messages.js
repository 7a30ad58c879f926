// AI SDK messages ↔ OpenAI chat messages, the shape the controller stores.
// One mapping serves the SDK's user-facing `ModelMessage` (ai 7, and ai 6)
// and the provider-level prompt the middleware sees (LanguageModelV4, and V3):
// they differ only in how user content and file data are wrapped (`form`).
// Where @ai-sdk/openai 4 decides a mapping (joined assistant text, tool output
// → string, file media types, tool arguments) we follow it, so what the
// memory stores and counts is what that provider sends. The table and the
// lossy corners are documented in ai-sdk.d.ts.
import { memoryError } from "../../internal/errors.js";

/**
 * The extra field memoryMiddleware stores a response's parts in, with their
 * provider metadata (item ids, encrypted reasoning), when it has any. A
 * prompt message that carries it (the middleware attaches it to the current
 * tool loop's answers) goes to the provider as those parts.
 */
export const CONTENT_FIELD = "ai_sdk_content";

const invalid = (at, why) => memoryError("INVALID_CONTENT", `invalid content at ${at}: ${why}`);
const isObject = (v) => v !== null && typeof v === "object";

/**
 * Calls `handlers[m.role](m, at)` for each message, in order.
 * `INVALID_INPUT` for a non-array or a non-object message, `INVALID_ROLE` for
 * a role without a handler.
 */
function eachMessage(messages, what, handlers) {
  if (!Array.isArray(messages)) throw memoryError("INVALID_INPUT", `expected an array of ${what}`);
  messages.forEach((m, i) => oneMessage(m, i, handlers));
}

/** `eachMessage` for the message `m` at index `i`. */
function oneMessage(m, i, handlers) {
  const at = `messages[${i}]`;
  if (!isObject(m)) throw memoryError("INVALID_INPUT", `${at} must be an object`);
  if (!Object.hasOwn(handlers, m.role)) throw memoryError("INVALID_ROLE", `${at}.role: unknown role ${JSON.stringify(m.role)}`);
  handlers[m.role](m, at);
}

function partsOf(content, at) {
  if (!Array.isArray(content)) throw invalid(`${at}.content`, "expected a string or an array of parts");
  return content;
}

function describe(p) {
  return isObject(p) && typeof p.type === "string" ? `part type ${JSON.stringify(p.type)}` : "a non-part value";
}

// ---------------------------------------------------------------- AI SDK → OpenAI

/**
 * AI SDK `ModelMessage[]` (or a LanguageModelV4/V3 prompt) → OpenAI chat
 * messages, one tool message per result.
 */
export function fromModelMessages(messages) {
  const out = [];
  eachMessage(messages, "ModelMessages", intoChat(out));
  return out;
}

/**
 * `fromModelMessages(messages)` with system messages left out, read lazily:
 * `length`, and `at(i)`, which converts (and checks) only the message that
 * gives chat message `i`, once. The middleware reads a conversation passed
 * whole on every call at its ends only (ai-sdk-align.js), so a call costs
 * the turns it compares, not one conversion per message held.
 */
export function lazyChatMessages(messages) {
  if (!Array.isArray(messages)) throw memoryError("INVALID_INPUT", "expected an array of ModelMessages");
  // Where each message's chat messages start: one each, a tool message one per result, a system message none.
  const starts = new Int32Array(messages.length + 1);
  messages.forEach((m, k) => {
    starts[k + 1] = starts[k] + (m?.role === "system" ? 0 : m?.role === "tool" && Array.isArray(m.content) ? results(m.content) : 1);
  });
  const converted = new Map();
  const length = starts[messages.length];
  const at = (i) => {
    if (!(i >= 0 && i < length)) return undefined;
    // The last message starting at or before i.
    let [lo, hi] = [0, messages.length - 1];
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= i) lo = mid;
      else hi = mid - 1;
    }
    while (starts[lo + 1] === starts[lo]) lo++; // (past messages that give none)
    let out = converted.get(lo);
    if (out === undefined) {
      oneMessage(messages[lo], lo, intoChat((out = [])));
      converted.set(lo, out);
    }
    return out[i - starts[lo]];
  };
  return {
    length,
    at,
    slice: (from) => Array.from({ length: Math.max(0, length - from) }, (_, k) => at(from + k)),
  };
}

// Chat messages a tool message's parts give: its results (an approval decision is not one).
function results(parts) {
  return parts.filter((p) => p?.type !== "tool-approval-response").length;
}

// The handlers that convert each role's message into `out`.
function intoChat(out) {
  return {
    system(m, at) {
      if (typeof m.content !== "string") throw invalid(`${at}.content`, "a system ModelMessage has string content");
      out.push({ role: "system", content: m.content });
    },
    user: (m, at) => out.push({ role: "user", content: userContentFrom(m.content, at) }),
    assistant: (m, at) => out.push(assistantFrom(m.content, at)),
    tool(m, at) {
      partsOf(m.content, at).forEach((p, j) => {
        const pat = `${at}.content[${j}]`;
        // An approval decision is not a result: the result (or the denial) follows as its own part.
        if (p?.type === "tool-approval-response") return;
        if (p?.type !== "tool-result") throw invalid(pat, `a tool message holds tool-result parts, got ${describe(p)}`);
        out.push({ role: "tool", tool_call_id: p.toolCallId, content: outputText(p.output, pat) });
      });
    },
  };
}

// One text part is sent as a plain string by @ai-sdk/openai; so is it stored.
function userContentFrom(content, at) {
  if (typeof content === "string") return content;
  const parts = partsOf(content, at).map((p, j) => userPartFrom(p, `${at}.content[${j}]`));
  return parts.length === 1 && parts[0].type === "text" ? parts[0].text : parts;
}

function assistantFrom(content, at) {
  if (typeof content === "string") return { role: "assistant", content };
  let text = "";
  let reasoning = "";
  const calls = [];
  partsOf(content, at).forEach((p, j) => {
    switch (p?.type) {
      case "text":
        text += p.text; // concatenated, as @ai-sdk/openai sends it
        break;
      case "reasoning":
        reasoning += p.text; // kept as reasoning_content; the controller decides when it is sent back
        break;
      case "tool-call":
        // Provider-executed calls (and their results below) ran at the
        // provider; chat completions has no form for them, and a call without
        // a tool message would stay pending in the context forever.
        if (p.providerExecuted) break;
        calls.push({ id: p.toolCallId, type: "function", function: { name: p.toolName, arguments: argumentsOf(p.input) } });
        break;
      case "tool-result": // only provider-executed results appear in assistant content
      case "file": // generated files, sources, approval requests, custom parts:
      case "reasoning-file": // @ai-sdk/openai's chat provider sends none of them back
      case "source":
      case "custom":
      case "tool-approval-request":
        break;
      default:
        throw invalid(`${at}.content[${j}]`, `unknown assistant ${describe(p)}`);
    }
  });
  const msg = { role: "assistant", content: text === "" && calls.length > 0 ? null : text };
  if (calls.length > 0) msg.tool_calls = calls;
  if (reasoning !== "") msg.reasoning_content = reasoning;
  return msg;
}

/**
 * Tool input → the `arguments` string @ai-sdk/openai sends: a JSON object as
 * JSON (a string that already is one, as is), anything else "{}".
 */
export function argumentsOf(input) {
  if (typeof input === "string") {
    try {
      const parsed = JSON.parse(input);
      return isObject(parsed) && !Array.isArray(parsed) ? input : "{}";
    } catch {
      return "{}";
    }
  }
  return JSON.stringify(isObject(input) && !Array.isArray(input) ? input : {});
}

function userPartFrom(p, at) {
  switch (p?.type) {
    case "text":
      return { type: "text", text: p.text };
    case "image": // ai 6's ImagePart (deprecated in ai 7 for a file part)
      return imagePart(dataOf(p.image, at), p.mediaType, p.providerOptions);
    case "file":
      return filePartFrom(p, at);
    default:
      throw invalid(at, `unknown user ${describe(p)}`);
  }
}

function imagePart(d, mediaType, providerOptions) {
  if (d.url === undefined && !/^image\/[^*]+$/.test(mediaType ?? "")) mediaType = sniffImage(d.base64);
  const image_url = { url: d.url ?? `data:${mediaType};base64,${d.base64}` };
  const detail = providerOptions?.openai?.imageDetail;
  if (detail !== undefined) image_url.detail = detail;
  return { type: "image_url", image_url };
}

function filePartFrom(p, at) {
  const mediaType = p.mediaType;
  if (typeof mediaType !== "string") throw invalid(at, "a file part needs a mediaType");
  const d = dataOf(p.data, at);
  if (d.fileId !== undefined)
    return { type: "file", file: { file_id: d.fileId, ...(p.filename !== undefined && { filename: p.filename }) } };
  if (mediaType === "image" || mediaType.startsWith("image/")) return imagePart(d, mediaType, p.providerOptions);
  const base64 = d.url === undefined ? d.base64 : splitDataUrl(d.url)?.base64;
  if (AUDIO_FORMAT[mediaType]) {
    if (base64 === undefined) throw invalid(at, "OpenAI input_audio takes base64 data, not a URL");
    return { type: "input_audio", input_audio: { data: base64, format: AUDIO_FORMAT[mediaType] } };
  }
  // "file-…" cannot be base64 ("-" is outside its alphabet): an uploaded file's id (ai 6's spelling).
  if (d.base64?.startsWith("file-"))
    return { type: "file", file: { file_id: d.base64, ...(p.filename !== undefined && { filename: p.filename }) } };
  if (base64 === undefined) throw invalid(at, "OpenAI file parts take base64 data or a file id, not a URL");
  const file = { file_data: `data:${mediaType};base64,${base64}` };
  if (p.filename !== undefined) file.filename = p.filename;
  return { type: "file", file };
}

const AUDIO_FORMAT = { "audio/wav": "wav", "audio/mpeg": "mp3", "audio/mp3": "mp3" };
const AUDIO_MEDIA = { wav: "audio/wav", mp3: "audio/mpeg" };

const isBytes = (v) => v instanceof ArrayBuffer || ArrayBuffer.isView(v);

// File data in any of the SDK's spellings → { url } | { base64 } | { fileId }:
// ai 7's tagged union ({ type: "data" | "url" | "reference" | "text" }), a
// bare URL (a URL object, or a string with a scheme such as https: or data:),
// base64 (a string, never with ":"), bytes, or a provider reference
// ({ openai: "file-…" }).
function dataOf(data, at) {
  if (data instanceof URL) return { url: data.href };
  if (typeof data === "string") return /^[a-z][a-z0-9+.-]*:/i.test(data) ? { url: data } : { base64: data };
  if (isBytes(data))
    return {
      base64: toBase64(data instanceof ArrayBuffer ? new Uint8Array(data) : new Uint8Array(data.buffer, data.byteOffset, data.byteLength)),
    };
  if (isObject(data)) {
    switch (data.type) {
      case "data": // inline bytes or base64, never a URL (ai 7 refuses a data: URL here too)
        if (isBytes(data.data) || (typeof data.data === "string" && !data.data.includes(":"))) return dataOf(data.data, at);
        break;
      case "url":
        return { url: data.originalUrl ?? String(data.url?.href ?? data.url) };
      case "reference":
        return referenceOf(data.reference, at);
      case "text":
        throw invalid(at, "OpenAI chat messages take no inline text files");
      default:
        if (data.type === undefined) return referenceOf(data, at);
    }
  }
  throw invalid(at, "data must be base64, bytes, a URL or a provider reference");
}

function referenceOf(reference, at) {
  const id = reference?.openai;
  if (typeof id !== "string") throw invalid(at, "a provider reference needs an openai file id");
  return { fileId: id };
}

function toBase64(bytes) {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

function splitDataUrl(url) {
  const m = /^data:([^;,]+)?((?:;[^;,]*)*?);base64,(.*)$/s.exec(url);
  return m ? { mediaType: m[1] ?? "application/octet-stream", base64: m[3] } : undefined;
}

// The AI SDK detects an image's type from its first bytes when no full
// media type is given; a data URL needs one. Unknown → image/jpeg, as
// @ai-sdk/openai does for "image/*".
function sniffImage(base64) {
  const sigs = [
    ["iVBORw0KGgo", "image/png"],
    ["/9j/", "image/jpeg"],
    ["R0lGOD", "image/gif"],
    ["UklGR", "image/webp"],
  ];
  return sigs.find(([s]) => base64.startsWith(s))?.[1] ?? "image/jpeg";
}

// Tool output → the tool message's string content, exactly as @ai-sdk/openai 4
// sends it: text as is, errors as {"error": …}, a denial as its reason,
// everything else JSON-encoded.
function outputText(output, at) {
  switch (output?.type) {
    case "text":
      if (typeof output.value !== "string") throw invalid(`${at}.output`, "text output needs a string value");
      return output.value;
    case "error-text":
    case "error-json":
      return JSON.stringify({ error: output.value });
    case "execution-denied":
      return output.reason ?? "Tool call execution denied.";
    case "json":
    case "content":
      return JSON.stringify(output.value);
    default:
      throw invalid(`${at}.output`, `unknown tool output type ${JSON.stringify(output?.type)}`);
  }
}

// ---------------------------------------------------------------- OpenAI → AI SDK

/**
 * OpenAI chat messages → `{ instructions, messages }` for ai 7's
 * `generateText` / `streamText` (system and developer messages are
 * instructions there, never messages).
 */
export function toModelMessages(messages) {
  const all = convert(recallIntoUserTurn(messages), "model");
  return { instructions: all.filter((m) => m.role === "system"), messages: all.filter((m) => m.role !== "system") };
}

/**
 * OpenAI chat messages → a provider-level prompt (`LanguageModelV4Prompt`,
 * or V3 for ai 6), what a middleware hands the provider.
 */
export function toPrompt(messages, version = "v4") {
  return convert(recallIntoUserTurn(messages), version);
}

/**
 * A context's recall block is a system message right before the newest
 * user turn; where system text is only allowed at the top (ai 7's
 * `instructions`, Anthropic) it goes into that turn instead, as a leading
 * text part (the block is delimited by its own tags). Any system or
 * developer message after the first turn moves so; one with no user turn
 * after it stays where it is. The messages before it are unchanged, so the
 * prompt's cacheable prefix is too.
 */
export function recallIntoUserTurn(messages) {
  // What is not an array of messages is left for the conversion to reject.
  if (!Array.isArray(messages) || !messages.every((m) => m !== null && typeof m === "object")) return messages;
  const first = messages.findIndex((m) => m.role !== "system" && m.role !== "developer");
  if (first < 0) return messages;
  const out = [];
  let pending = [];
  for (const [i, m] of messages.entries()) {
    if (i > first && (m.role === "system" || m.role === "developer") && messages.slice(i + 1).some((n) => n.role === "user")) {
      pending.push(plainText(m.content, `messages[${i}]`));
      continue;
    }
    if (pending.length > 0 && m.role === "user") {
      const parts = typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
      out.push({ ...m, content: [...pending.map((text) => ({ type: "text", text })), ...parts] });
      pending = [];
      continue;
    }
    out.push(m);
  }
  return out;
}

// form: "model" (user-facing ModelMessage), "v4" or "v3" (provider prompt).
function convert(messages, form) {
  const toolNames = new Map(); // tool_call_id → function name: AI SDK results name their tool
  const out = [];
  const system = (m, at) => out.push({ role: "system", content: plainText(m.content, at) });
  eachMessage(messages, "chat messages", {
    system,
    developer: system, // the AI SDK has no developer role
    user(m, at) {
      if (typeof m.content === "string")
        out.push({ role: "user", content: form === "model" ? m.content : [{ type: "text", text: m.content }] });
      else out.push({ role: "user", content: partsOf(m.content, at).map((p, j) => userPartTo(p, `${at}.content[${j}]`, form)) });
    },
    assistant: (m, at) =>
      out.push({
        role: "assistant",
        content: form !== "model" && Array.isArray(m[CONTENT_FIELD]) ? storedParts(m, toolNames) : assistantTo(m, at, toolNames),
      }),
    tool(m, at) {
      const toolName = toolNames.get(m.tool_call_id);
      if (toolName === undefined)
        throw memoryError("TOOL_RESULT_WITHOUT_CALL", `${at}: tool_call_id ${JSON.stringify(m.tool_call_id)} answers no earlier tool call`);
      const part = { type: "tool-result", toolCallId: m.tool_call_id, toolName, output: outputOf(plainText(m.content, at)) };
      // The AI SDK puts all results of one step in one tool message.
      const last = out[out.length - 1];
      if (last?.role === "tool") last.content.push(part);
      else out.push({ role: "tool", content: [part] });
    },
  });
  return out;
}

// String content, or text parts joined by "\n" (system, developer and tool
// messages are plain text in the AI SDK).
function plainText(content, at) {
  if (typeof content === "string") return content;
  return partsOf(content, at)
    .map((p, j) => {
      if (p?.type !== "text") throw invalid(`${at}.content[${j}]`, `expected a text part, got ${describe(p)}`);
      return p.text;
    })
    .join("\n");
}

function assistantTo(m, at, toolNames) {
  const parts = [];
  const reasoning = typeof m.reasoning_content === "string" ? m.reasoning_content : typeof m.reasoning === "string" ? m.reasoning : "";
  if (reasoning !== "") parts.push({ type: "reasoning", text: reasoning });
  const text = (t) => t !== "" && parts.push({ type: "text", text: t });
  if (typeof m.content === "string") text(m.content);
  else if (m.content != null) {
    partsOf(m.content, at).forEach((p, j) => {
      if (p?.type === "text") text(p.text);
      else if (p?.type === "refusal")
        text(p.refusal); // no refusal part in the AI SDK
      else throw invalid(`${at}.content[${j}]`, `unknown assistant ${describe(p)}`);
    });
  }
  if (typeof m.refusal === "string" && !parts.some((p) => p.type === "text")) text(m.refusal);
  for (const [j, c] of (m.tool_calls ?? []).entries()) {
    if (c?.type !== "function" || !isObject(c.function)) throw invalid(`${at}.tool_calls[${j}]`, "expected a function tool call");
    toolNames.set(c.id, c.function.name);
    parts.push({ type: "tool-call", toolCallId: c.id, toolName: c.function.name, input: parseArguments(c.function.arguments) });
  }
  return parts;
}

// A response's stored parts as prompt parts: metadata becomes options, as the SDK passes them on.
function storedParts(m, toolNames) {
  return m[CONTENT_FIELD].map(({ providerMetadata, ...p }) => {
    if (p.type === "tool-call") toolNames.set(p.toolCallId, p.toolName);
    const part = p.type === "tool-call" ? { ...p, input: parseArguments(p.input) } : p;
    return providerMetadata === undefined ? part : { ...part, providerOptions: providerMetadata };
  });
}

// Models now and then emit arguments that are not JSON; the AI SDK then keeps
// the raw string as the input, and so do we.
function parseArguments(args) {
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}

// Tool content → output: a JSON object or array written as JSON.stringify
// writes it is "json" (the provider writes it back byte for byte), anything
// else "text", sent as it is: what was counted is what is sent.
function outputOf(text) {
  if (/^[[{]/.test(text)) {
    try {
      const value = JSON.parse(text);
      if (JSON.stringify(value) === text) return { type: "json", value };
    } catch {
      // not JSON after all: text
    }
  }
  return { type: "text", value: text };
}

// Inline bytes as each form wants them: ModelMessage and V3 take bare
// base64, V4 the tagged union.
const inline = (base64, form) => (form === "v4" ? { type: "data", data: base64 } : base64);
const linked = (url, form) => (form === "v4" ? { type: "url", url: new URL(url) } : form === "v3" ? new URL(url) : url);
const referenced = (fileId, form) =>
  form === "v4" ? { type: "reference", reference: { openai: fileId } } : form === "v3" ? fileId : { openai: fileId };

function userPartTo(p, at, form) {
  switch (p?.type) {
    case "text":
      return { type: "text", text: p.text };
    case "image_url": {
      const url = p.image_url?.url;
      if (typeof url !== "string") throw invalid(at, "image_url.url must be a string");
      const d = url.startsWith("data:") ? splitDataUrl(url) : undefined;
      // "image/*": the type is unknown until the provider fetches it (ai 7 reads it as "image").
      const part = d
        ? { type: "file", mediaType: d.mediaType, data: inline(d.base64, form) }
        : { type: "file", mediaType: "image/*", data: linked(url, form) };
      if (p.image_url.detail !== undefined) part.providerOptions = { openai: { imageDetail: p.image_url.detail } };
      return part;
    }
    case "input_audio": {
      const { data, format } = p.input_audio ?? {};
      if (typeof data !== "string") throw invalid(at, "input_audio.data must be base64");
      return { type: "file", mediaType: AUDIO_MEDIA[format] ?? `audio/${format}`, data: inline(data, form) };
    }
    case "file": {
      const f = p.file ?? {};
      const name = f.filename !== undefined ? { filename: f.filename } : {};
      // OpenAI chat takes PDFs only as files, so an uploaded id is a PDF.
      if (f.file_id !== undefined) return { type: "file", mediaType: "application/pdf", data: referenced(f.file_id, form), ...name };
      const d = typeof f.file_data === "string" ? splitDataUrl(f.file_data) : undefined;
      if (!d) throw invalid(at, "file.file_data must be a base64 data URL");
      return { type: "file", mediaType: d.mediaType, data: inline(d.base64, form), ...name };
    }
    default:
      throw invalid(at, `unknown user ${describe(p)}`);
  }
}
