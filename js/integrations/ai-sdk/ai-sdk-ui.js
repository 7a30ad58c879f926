// useChat's UIMessages ↔ OpenAI chat messages, for apps that restore a chat
// from memory (toUIMessages(await memory.history())) or import a persisted
// one (fromUIMessages). One assistant UIMessage is a whole assistant turn:
// each model step (an assistant message and the tool results that answer it)
// starts with a step-start part, as the AI SDK writes them. fromUIMessages
// reads them the way ai 7's convertToModelMessages does, so a chat restored
// with toUIMessages and sent back through useChat reaches the middleware as
// the turns memory already holds.
import { memoryError } from "../../internal/errors.js";
import { fromModelMessages } from "./ai-sdk-messages.js";

const isObject = (v) => v !== null && typeof v === "object";

/**
 * OpenAI chat messages, or `memory.history()` items, → UIMessages. System and
 * developer messages are left out (instructions belong on the server).
 */
export function toUIMessages(items) {
  if (!Array.isArray(items)) throw memoryError("INVALID_INPUT", "toUIMessages expects an array of chat messages or history items");
  const out = [];
  const calls = new Map(); // tool_call_id → its UI part, awaiting a result
  items.forEach((item, i) => {
    const at = `messages[${i}]`;
    if (!isObject(item)) throw memoryError("INVALID_INPUT", `${at} must be an object`);
    const m = isObject(item.message) ? item.message : item;
    const id = typeof item.id === "string" && item.message !== undefined ? item.id : `msg-${i}`;
    const last = out[out.length - 1];
    switch (m.role) {
      case "system":
      case "developer":
        break;
      case "user":
        out.push({ id, role: "user", parts: userParts(m.content, at) });
        break;
      case "assistant": {
        const message = last?.role === "assistant" ? last : { id, role: "assistant", parts: [] };
        if (message !== last) out.push(message);
        message.parts.push({ type: "step-start" });
        const reasoning = m.reasoning_content ?? m.reasoning;
        if (typeof reasoning === "string" && reasoning !== "") message.parts.push({ type: "reasoning", text: reasoning, state: "done" });
        const text = assistantText(m);
        if (text !== "") message.parts.push({ type: "text", text, state: "done" });
        for (const c of m.tool_calls ?? []) {
          const part = {
            type: `tool-${c.function?.name}`,
            toolCallId: c.id,
            state: "input-available",
            input: parseJson(c.function?.arguments),
          };
          calls.set(c.id, part);
          message.parts.push(part);
        }
        break;
      }
      case "tool": {
        const part = calls.get(m.tool_call_id);
        if (part === undefined)
          throw memoryError(
            "TOOL_RESULT_WITHOUT_CALL",
            `${at}: tool_call_id ${JSON.stringify(m.tool_call_id)} answers no earlier tool call`,
          );
        part.state = "output-available";
        part.output = parseJson(typeof m.content === "string" ? m.content : (m.content ?? []).map((p) => p.text ?? "").join("\n"));
        calls.delete(m.tool_call_id);
        break;
      }
      default:
        throw memoryError("INVALID_ROLE", `${at}.role: unknown role ${JSON.stringify(m.role)}`);
    }
  });
  return out;
}

function assistantText(m) {
  if (typeof m.content === "string") return m.content;
  const text = Array.isArray(m.content) ? m.content.map((p) => p.text ?? p.refusal ?? "").join("") : "";
  return text === "" && typeof m.refusal === "string" ? m.refusal : text;
}

function userParts(content, at) {
  if (typeof content === "string") return [{ type: "text", text: content }];
  if (!Array.isArray(content))
    throw memoryError("INVALID_CONTENT", `invalid content at ${at}.content: expected a string or an array of parts`);
  return content.map((p, j) => {
    switch (p?.type) {
      case "text":
        return { type: "text", text: p.text };
      case "image_url": {
        const url = p.image_url?.url;
        return { type: "file", mediaType: /^data:([^;,]+)/.exec(url)?.[1] ?? "image/*", url };
      }
      case "input_audio": {
        const mediaType = p.input_audio?.format === "mp3" ? "audio/mpeg" : `audio/${p.input_audio?.format}`;
        return { type: "file", mediaType, url: `data:${mediaType};base64,${p.input_audio?.data}` };
      }
      case "file": {
        const f = p.file ?? {};
        const name = f.filename !== undefined ? { filename: f.filename } : {};
        // An uploaded file has no URL; the reference is what the SDK sends.
        if (f.file_id !== undefined)
          return { type: "file", mediaType: "application/pdf", url: "", providerReference: { openai: f.file_id }, ...name };
        return {
          type: "file",
          mediaType: /^data:([^;,]+)/.exec(f.file_data)?.[1] ?? "application/octet-stream",
          url: f.file_data,
          ...name,
        };
      }
      default:
        throw memoryError("INVALID_CONTENT", `invalid content at ${at}.content[${j}]: unknown user part type ${JSON.stringify(p?.type)}`);
    }
  });
}

// Tool arguments and results are JSON when they parse, text otherwise.
function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** UIMessages (e.g. a persisted useChat state) → OpenAI chat messages, ready for `memory.add`. */
export function fromUIMessages(messages) {
  if (!Array.isArray(messages)) throw memoryError("INVALID_INPUT", "fromUIMessages expects an array of UIMessages");
  const model = [];
  messages.forEach((m, i) => {
    const at = `messages[${i}]`;
    if (!isObject(m) || !Array.isArray(m.parts)) throw memoryError("INVALID_INPUT", `${at} must be a UIMessage with parts`);
    switch (m.role) {
      case "system":
        model.push({
          role: "system",
          content: m.parts
            .filter((p) => p.type === "text")
            .map((p) => p.text)
            .join(""),
        });
        break;
      case "user":
        model.push({ role: "user", content: m.parts.filter((p) => p.type === "text" || p.type === "file").map(userPartFrom) });
        break;
      case "assistant":
        for (const step of steps(m.parts)) model.push(...stepMessages(step));
        break;
      default:
        throw memoryError("INVALID_ROLE", `${at}.role: unknown role ${JSON.stringify(m.role)}`);
    }
  });
  return fromModelMessages(model);
}

function userPartFrom(p) {
  if (p.type === "text") return { type: "text", text: p.text };
  return {
    type: "file",
    mediaType: p.mediaType,
    ...(p.filename !== undefined && { filename: p.filename }),
    data: p.providerReference ?? p.url,
  };
}

// Parts split at step-start (and at steering messages, which are user turns).
function steps(parts) {
  const out = [[]];
  for (const p of parts) {
    if (p.type === "step-start") out.push([]);
    else if (p.type === "steering-message") out.push({ user: p.parts }, []);
    else out[out.length - 1].push(p);
  }
  return out.filter((s) => !Array.isArray(s) || s.length > 0);
}

const isToolPart = (p) => p.type === "dynamic-tool" || p.type.startsWith("tool-");
const toolName = (p) => (p.type === "dynamic-tool" ? p.toolName : p.type.slice("tool-".length));

// One step → an assistant ModelMessage and a tool message with its results,
// as convertToModelMessages writes them.
function stepMessages(step) {
  if (!Array.isArray(step)) return [{ role: "user", content: step.user.map(userPartFrom) }];
  const content = [];
  const results = [];
  for (const p of step) {
    if (p.type === "text") content.push({ type: "text", text: p.text });
    else if (p.type === "reasoning") content.push({ type: "reasoning", text: p.text });
    else if (isToolPart(p) && p.state !== "input-streaming" && !p.providerExecuted) {
      content.push({ type: "tool-call", toolCallId: p.toolCallId, toolName: toolName(p), input: p.input });
      const output = resultOf(p);
      if (output !== undefined) results.push({ type: "tool-result", toolCallId: p.toolCallId, toolName: toolName(p), output });
    }
  }
  const out = content.length > 0 ? [{ role: "assistant", content }] : [];
  if (results.length > 0) out.push({ role: "tool", content: results });
  return out;
}

function resultOf(p) {
  switch (p.state) {
    case "output-available":
      return typeof p.output === "string" ? { type: "text", value: p.output } : { type: "json", value: p.output ?? null };
    case "output-error":
      return { type: "error-text", value: p.errorText };
    case "output-denied":
      return { type: "error-text", value: p.approval?.reason ?? "Tool call execution denied." };
    case "approval-responded":
      return p.approval?.approved === false ? { type: "execution-denied", reason: p.approval.reason } : undefined;
    default:
      return undefined;
  }
}
