// Vercel AI SDK (v5) `ModelMessage`s ↔ OpenAI chat messages, the shape the
// controller stores. The mapping table and the lossy corners are documented in
// aisdk.d.ts. Where the AI SDK's OpenAI chat provider already decides a
// mapping (joined assistant text, tool output → string, file media types) we
// follow it, so what the memory counts is what that provider would send.
import { memoryError } from "./storage-shared.js";

const invalid = (at, why) => memoryError("INVALID_CONTENT", `invalid content at ${at}: ${why}`);
const isObject = (v) => v !== null && typeof v === "object";

function checkMessage(m, at) {
  if (!isObject(m)) throw memoryError("INVALID_INPUT", `${at} must be an object`);
}

// ---------------------------------------------------------------- AI SDK → OpenAI

/** AI SDK `ModelMessage[]` → OpenAI chat messages (a tool message per result). */
export function fromModelMessages(messages) {
  if (!Array.isArray(messages)) throw memoryError("INVALID_INPUT", "fromModelMessages expects an array of ModelMessages");
  const out = [];
  messages.forEach((m, i) => {
    const at = `messages[${i}]`;
    checkMessage(m, at);
    switch (m.role) {
      case "system":
        if (typeof m.content !== "string") throw invalid(`${at}.content`, "a system ModelMessage has string content");
        out.push({ role: "system", content: m.content });
        break;
      case "user":
        out.push({ role: "user", content: typeof m.content === "string" ? m.content : partsOf(m.content, at).map((p, j) => userPartFrom(p, `${at}.content[${j}]`)) });
        break;
      case "assistant":
        out.push(assistantFrom(m.content, at));
        break;
      case "tool":
        partsOf(m.content, at).forEach((p, j) => {
          const pat = `${at}.content[${j}]`;
          if (p?.type !== "tool-result") throw invalid(pat, `a tool message holds tool-result parts, got ${describe(p)}`);
          out.push({ role: "tool", tool_call_id: p.toolCallId, content: outputText(p.output, pat) });
        });
        break;
      default:
        throw memoryError("INVALID_ROLE", `${at}.role: unknown role ${JSON.stringify(m.role)}`);
    }
  });
  return out;
}

function partsOf(content, at) {
  if (!Array.isArray(content)) throw invalid(`${at}.content`, "expected a string or an array of parts");
  return content;
}

function describe(p) {
  return isObject(p) && typeof p.type === "string" ? `part type ${JSON.stringify(p.type)}` : "a non-part value";
}

function assistantFrom(content, at) {
  if (typeof content === "string") return { role: "assistant", content };
  let text = "";
  const calls = [];
  partsOf(content, at).forEach((p, j) => {
    const pat = `${at}.content[${j}]`;
    switch (p?.type) {
      case "text":
        text += p.text; // concatenated, as @ai-sdk/openai sends it
        break;
      case "reasoning":
        break; // chat completions takes no reasoning back; dropped (see aisdk.d.ts)
      case "tool-call":
        // Provider-executed calls (and their results below) ran at the
        // provider; chat completions has no form for them, and a call without
        // a tool message would stay pending in the context forever.
        if (p.providerExecuted) break;
        calls.push({ id: p.toolCallId, type: "function", function: { name: p.toolName, arguments: p.input === undefined ? "{}" : JSON.stringify(p.input) } });
        break;
      case "tool-result":
        break; // only provider-executed results appear in assistant content
      case "file":
        throw invalid(pat, "OpenAI chat assistant messages carry text and tool calls only, not files");
      default:
        throw invalid(pat, `unknown assistant ${describe(p)}`);
    }
  });
  const msg = { role: "assistant", content: text === "" && calls.length > 0 ? null : text };
  if (calls.length > 0) msg.tool_calls = calls;
  return msg;
}

function userPartFrom(p, at) {
  switch (p?.type) {
    case "text":
      return { type: "text", text: p.text };
    case "image":
      return imagePart(p.image, p.mediaType, p.providerOptions, at);
    case "file":
      return filePartFrom(p, at);
    default:
      throw invalid(at, `unknown user ${describe(p)}`);
  }
}

function imagePart(data, mediaType, providerOptions, at) {
  const d = dataOf(data, at);
  if (d.url === undefined && !(mediaType?.startsWith("image/") && mediaType !== "image/*")) mediaType = sniffImage(d.base64);
  const image_url = { url: d.url ?? `data:${mediaType};base64,${d.base64}` };
  const detail = providerOptions?.openai?.imageDetail;
  if (detail !== undefined) image_url.detail = detail;
  return { type: "image_url", image_url };
}

function filePartFrom(p, at) {
  const mediaType = p.mediaType;
  if (typeof mediaType !== "string") throw invalid(at, "a file part needs a mediaType");
  if (mediaType.startsWith("image/")) return imagePart(p.data, mediaType, p.providerOptions, at);
  const d = dataOf(p.data, at);
  const base64 = d.url === undefined ? d.base64 : splitDataUrl(d.url)?.base64;
  if (AUDIO_FORMAT[mediaType]) {
    if (base64 === undefined) throw invalid(at, "OpenAI input_audio takes base64 data, not a URL");
    return { type: "input_audio", input_audio: { data: base64, format: AUDIO_FORMAT[mediaType] } };
  }
  // "file-…" cannot be base64 ("-" is outside its alphabet): an uploaded file's id.
  if (d.base64?.startsWith("file-")) return { type: "file", file: { file_id: d.base64, ...(p.filename !== undefined && { filename: p.filename }) } };
  if (base64 === undefined) throw invalid(at, "OpenAI file parts take base64 data or a file id, not a URL");
  const file = { file_data: `data:${mediaType};base64,${base64}` };
  if (p.filename !== undefined) file.filename = p.filename;
  return { type: "file", file };
}

const AUDIO_FORMAT = { "audio/wav": "wav", "audio/mpeg": "mp3", "audio/mp3": "mp3" };
const AUDIO_MEDIA = { wav: "audio/wav", mp3: "audio/mpeg" };

// A URL (URL object, or a string with a scheme such as https: or data:) or
// base64 bytes (a base64 string — never has ":" — a Uint8Array/Buffer, an ArrayBuffer).
function dataOf(data, at) {
  if (data instanceof URL) return { url: data.href };
  if (typeof data === "string") return /^[a-z][a-z0-9+.-]*:/i.test(data) ? { url: data } : { base64: data };
  if (data instanceof ArrayBuffer) return { base64: toBase64(new Uint8Array(data)) };
  if (ArrayBuffer.isView(data)) return { base64: toBase64(new Uint8Array(data.buffer, data.byteOffset, data.byteLength)) };
  throw invalid(at, "data must be a base64 string, bytes or a URL");
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

// The AI SDK detects an image's type from its first bytes when no (specific)
// mediaType is given; a data URL needs one. Unknown → image/jpeg, as
// @ai-sdk/openai does for "image/*".
function sniffImage(base64) {
  const sigs = [["iVBORw0KGgo", "image/png"], ["/9j/", "image/jpeg"], ["R0lGOD", "image/gif"], ["UklGR", "image/webp"]];
  return sigs.find(([s]) => base64.startsWith(s))?.[1] ?? "image/jpeg";
}

// Tool output → the tool message's string content, exactly as @ai-sdk/openai
// sends it: text as is, everything else JSON-encoded. The error flag is lost.
function outputText(output, at) {
  switch (output?.type) {
    case "text":
    case "error-text":
      if (typeof output.value !== "string") throw invalid(`${at}.output`, `${output.type} output needs a string value`);
      return output.value;
    case "json":
    case "error-json":
    case "content":
      return JSON.stringify(output.value);
    default:
      throw invalid(`${at}.output`, `unknown tool output type ${JSON.stringify(output?.type)}`);
  }
}

// ---------------------------------------------------------------- OpenAI → AI SDK

/** OpenAI chat messages → AI SDK `ModelMessage[]` (consecutive tool messages become one). */
export function toModelMessages(messages) {
  if (!Array.isArray(messages)) throw memoryError("INVALID_INPUT", "toModelMessages expects an array of chat messages");
  const toolNames = new Map(); // tool_call_id → function name: AI SDK results name their tool
  const out = [];
  messages.forEach((m, i) => {
    const at = `messages[${i}]`;
    checkMessage(m, at);
    switch (m.role) {
      case "system":
      case "developer": // the AI SDK has no developer role
        out.push({ role: "system", content: plainText(m.content, at) });
        break;
      case "user":
        out.push({ role: "user", content: typeof m.content === "string" ? m.content : partsOf(m.content, at).map((p, j) => userPartTo(p, `${at}.content[${j}]`)) });
        break;
      case "assistant":
        out.push({ role: "assistant", content: assistantTo(m, at, toolNames) });
        break;
      case "tool": {
        const toolName = toolNames.get(m.tool_call_id);
        if (toolName === undefined) throw memoryError("TOOL_RESULT_WITHOUT_CALL", `${at}: tool_call_id ${JSON.stringify(m.tool_call_id)} answers no earlier tool call`);
        const part = { type: "tool-result", toolCallId: m.tool_call_id, toolName, output: outputOf(plainText(m.content, at)) };
        // The AI SDK puts all results of one step in one tool message.
        const last = out[out.length - 1];
        if (last?.role === "tool") last.content.push(part);
        else out.push({ role: "tool", content: [part] });
        break;
      }
      default:
        throw memoryError("INVALID_ROLE", `${at}.role: unknown role ${JSON.stringify(m.role)}`);
    }
  });
  return out;
}

// String content, or text parts joined by "\n" (system, developer and tool
// messages are plain text in the AI SDK).
function plainText(content, at) {
  if (typeof content === "string") return content;
  return partsOf(content, at).map((p, j) => {
    if (p?.type !== "text") throw invalid(`${at}.content[${j}]`, `expected a text part, got ${describe(p)}`);
    return p.text;
  }).join("\n");
}

function assistantTo(m, at, toolNames) {
  const parts = [];
  const text = (t) => t !== "" && parts.push({ type: "text", text: t });
  if (typeof m.content === "string") text(m.content);
  else if (m.content != null) {
    partsOf(m.content, at).forEach((p, j) => {
      if (p?.type === "text") text(p.text);
      else if (p?.type === "refusal") text(p.refusal); // no refusal part in the AI SDK
      else throw invalid(`${at}.content[${j}]`, `unknown assistant ${describe(p)}`);
    });
  }
  for (const [j, c] of (m.tool_calls ?? []).entries()) {
    if (c?.type !== "function" || !isObject(c.function)) throw invalid(`${at}.tool_calls[${j}]`, "expected a function tool call");
    toolNames.set(c.id, c.function.name);
    parts.push({ type: "tool-call", toolCallId: c.id, toolName: c.function.name, input: parseArguments(c.function.arguments) });
  }
  return parts;
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

// Tool content → output: a JSON object or array is "json", anything else "text".
function outputOf(text) {
  if (/^\s*[[{]/.test(text)) {
    try {
      return { type: "json", value: JSON.parse(text) };
    } catch {
      // not JSON after all: text
    }
  }
  return { type: "text", value: text };
}

function userPartTo(p, at) {
  switch (p?.type) {
    case "text":
      return { type: "text", text: p.text };
    case "image_url": {
      const url = p.image_url?.url;
      if (typeof url !== "string") throw invalid(at, "image_url.url must be a string");
      const d = url.startsWith("data:") ? splitDataUrl(url) : undefined;
      const part = d ? { type: "image", image: d.base64, mediaType: d.mediaType } : { type: "image", image: url };
      if (p.image_url.detail !== undefined) part.providerOptions = { openai: { imageDetail: p.image_url.detail } };
      return part;
    }
    case "input_audio": {
      const { data, format } = p.input_audio ?? {};
      return { type: "file", data, mediaType: AUDIO_MEDIA[format] ?? `audio/${format}` };
    }
    case "file": {
      const f = p.file ?? {};
      const name = f.filename !== undefined ? { filename: f.filename } : {};
      // OpenAI chat takes PDFs only as files, so an uploaded id is a PDF.
      if (f.file_id !== undefined) return { type: "file", data: f.file_id, mediaType: "application/pdf", ...name };
      const d = typeof f.file_data === "string" ? splitDataUrl(f.file_data) : undefined;
      if (!d) throw invalid(at, "file.file_data must be a base64 data URL");
      return { type: "file", data: d.base64, mediaType: d.mediaType, ...name };
    }
    default:
      throw invalid(at, `unknown user ${describe(p)}`);
  }
}
