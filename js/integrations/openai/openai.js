// The OpenAI Responses API ↔ the controller's chat-shaped memory (plain JS,
// entry `agent-memory/openai`). The rules are documented in openai.d.ts.
//
// A response is stored as one assistant chat message (its text, refusal,
// annotations and function calls in chat form, so buildContext counts and
// places it like any reply) plus the extra field `openai_response`, which
// keeps the output items exactly as returned. A request is built from a
// context: leading system messages become `instructions`, the rest input
// items. Items come back verbatim only for the current tool loop (after the
// last user message), where the API wants the reasoning items with the calls
// they produced; earlier turns go back in plain form, without ids and
// without reasoning items (the API drops earlier reasoning anyway, and an
// item with an id cannot come back without the reasoning item before it).
import { memoryError } from "../../internal/errors.js";

/** The extra field of a stored assistant message that keeps a response's output items. */
export const RESPONSE_FIELD = "openai_response";

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const pick = (obj, keys) => Object.fromEntries(keys.filter((k) => obj[k] !== undefined).map((k) => [k, obj[k]]));
const invalid = (at, why) => memoryError("INVALID_INPUT", `invalid input at ${at}: ${why}`);

/**
 * A Responses API `response` → the assistant message to `add()`.
 * Throws `INVALID_INPUT` when `response` has no `output` array.
 */
export function fromResponse(response) {
  if (!isObject(response) || !Array.isArray(response.output))
    throw invalid("response", "expected a Responses API response with an output array");
  const texts = [];
  const annotations = [];
  const refusals = [];
  const toolCalls = [];
  response.output.forEach((item, i) => {
    if (!isObject(item)) throw invalid(`response.output[${i}]`, "expected an object");
    if (item.type === "message") {
      for (const part of item.content ?? []) {
        if (part.type === "output_text") {
          texts.push(part.text);
          annotations.push(...(part.annotations ?? []));
        } else if (part.type === "refusal") refusals.push(part.refusal);
      }
    } else if (item.type === "function_call") {
      toolCalls.push({ id: item.call_id, type: "function", function: { name: item.name, arguments: item.arguments } });
    }
  });
  const message = { role: "assistant", content: texts.length ? texts.join("\n") : toolCalls.length ? null : "" };
  if (refusals.length) message.refusal = refusals.join("\n");
  if (annotations.length) message.annotations = annotations;
  if (toolCalls.length) message.tool_calls = toolCalls;
  message[RESPONSE_FIELD] = { id: response.id, model: response.model, store: response.store !== false, output: response.output };
  return message;
}

/**
 * Stores a response: adds its assistant message and charges its usage at
 * the model the response names. Resolves to `{ id, tokens, usd }`
 * (`usd` null when the response has no usage). Rejects as `add` and
 * `recordUsage` do; when charging fails the message is already stored.
 */
export async function addResponse(memory, response) {
  const added = await memory.add(fromResponse(response));
  const usd = response.usage ? await memory.recordUsage(response.usage, { model: response.model }) : null;
  return { id: added.id, tokens: added.tokens, usd };
}

// ------------------------------------------------------------- context → request

const cacheKeys = new WeakMap();

/**
 * A stable `prompt_cache_key` for this controller's conversation: OpenAI
 * routes requests with the same key to the same cache, so consecutive
 * calls of one thread find their prefix. A hash of the namespace and the
 * thread (FNV-1a, 64 bits), so the user's id is not sent.
 */
export function promptCacheKey(memory) {
  let key = cacheKeys.get(memory);
  if (key === undefined) {
    const { namespace, thread } = memory.stats();
    let h = 0xcbf29ce484222325n;
    for (const b of new TextEncoder().encode(`${namespace}\u0000${thread}`)) h = BigInt.asUintN(64, (h ^ BigInt(b)) * 0x100000001b3n);
    key = `am-${h.toString(16).padStart(16, "0")}`;
    cacheKeys.set(memory, key);
  }
  return key;
}

const textOf = (content, at) => {
  if (typeof content === "string") return content;
  if (content === null || content === undefined) return "";
  if (!Array.isArray(content)) throw invalid(at, "expected a string or an array of parts");
  return content.map((p, j) => (p?.type === "text" ? p.text : p?.type === "refusal" ? p.refusal : partError(p, `${at}[${j}]`))).join("");
};

function partError(p, at) {
  throw memoryError("INVALID_CONTENT", `invalid content at ${at}: part type ${JSON.stringify(p?.type)} has no Responses form here`);
}

function userPart(p, at) {
  switch (p?.type) {
    case "text":
      return { type: "input_text", text: p.text };
    case "image_url":
      return { type: "input_image", image_url: p.image_url?.url, detail: p.image_url?.detail ?? "auto" };
    case "file":
      return { type: "input_file", ...pick(p.file ?? {}, ["file_id", "file_data", "filename"]) };
    default:
      return partError(p, at);
  }
}

const chatTool = (t, at) => {
  if (t?.type !== "function" || !isObject(t.function))
    throw invalid(at, 'expected a chat function tool { type: "function", function: { name, parameters } }');
  const f = t.function;
  // The Responses API makes function tools strict unless told otherwise; chat tools are not.
  const tool = {
    type: "function",
    name: f.name,
    parameters: f.parameters ?? { type: "object", properties: {} },
    strict: f.strict ?? false,
  };
  if (f.description !== undefined) tool.description = f.description;
  return tool;
};

// What an output item may carry when it goes back as input (the `openai`
// package's input item params). Anything a client adds on its side (e.g.
// `parsed` from `responses.parse`) stays out.
const ITEM_FIELDS = {
  reasoning: ["type", "id", "summary", "content", "encrypted_content", "status"],
  message: ["type", "id", "role", "content", "status", "phase"],
  function_call: ["type", "id", "call_id", "name", "arguments", "status", "namespace"],
};
const PART_FIELDS = { output_text: ["type", "text", "annotations", "logprobs"], refusal: ["type", "refusal"] };

/**
 * A stored response's items as input for the current tool loop: verbatim
 * (within the fields the input takes), except that a reasoning item the API
 * could not resolve (from a `store: false` response, without
 * `encrypted_content`) is left out and the items it produced go without
 * their ids, and a reasoning item with nothing after it is left out.
 */
function replay(saved) {
  const out = [];
  let orphaned = false; // the items after a reasoning item that was left out lose their ids
  for (const item of saved.output) {
    if (item.type === "reasoning") {
      orphaned = !(saved.store || item.encrypted_content);
      if (!orphaned) out.push(pick(item, ITEM_FIELDS.reasoning));
    } else if (item.type === "message" && orphaned) {
      // Without its id an output message is an easy input message: its text.
      out.push({ role: "assistant", content: item.content.map((p) => (p.type === "refusal" ? p.refusal : p.text)).join("") });
    } else if (item.type === "message" || item.type === "function_call") {
      const copy = pick(item, ITEM_FIELDS[item.type]);
      if (item.type === "message") copy.content = item.content.map((p) => pick(p, PART_FIELDS[p.type] ?? Object.keys(p)));
      if (orphaned) delete copy.id;
      out.push(copy);
    } else {
      out.push(item); // hosted tools' items (web search, file search, ...) go back as returned
    }
  }
  const produced = (item) => item && (item.type === "message" || item.type === "function_call" || item.role === "assistant");
  return out.filter((item, i) => item.type !== "reasoning" || produced(out[i + 1]));
}

/** An assistant chat message as input items without ids: its text (or refusal), then its calls. */
function plainAssistant(m, at) {
  const items = [];
  const text = textOf(m.content, `${at}.content`) || (typeof m.refusal === "string" ? m.refusal : "");
  if (text) items.push({ role: "assistant", content: text });
  (m.tool_calls ?? []).forEach((c) =>
    items.push({ type: "function_call", call_id: c.id, name: c.function.name, arguments: c.function.arguments }),
  );
  return items;
}

/**
 * The stored response of each assistant message after the last user message
 * (`from`): the context names its recent messages by id
 * (`sections.recent.messageIds`, the last messages of `ctx.messages`), and
 * `messages(ids)` reads them with their extra fields (only those, not the
 * history). A context without those ids finds none: its messages then go
 * back in plain form.
 */
async function savedResponses(memory, ctx, from) {
  const found = new Map();
  const ids = ctx.sections?.recent?.messageIds ?? [];
  const offset = ctx.messages.length - ids.length;
  const wanted = new Map();
  for (let i = Math.max(from, offset); i < ctx.messages.length; i++) {
    if (ctx.messages[i].role === "assistant") wanted.set(ids[i - offset], ctx.messages[i]);
  }
  if (wanted.size === 0) return found;
  for (const h of await memory.messages([...wanted.keys()])) {
    const m = wanted.get(h.id);
    if (m && isObject(h.message[RESPONSE_FIELD])) found.set(m, h.message[RESPONSE_FIELD]);
  }
  return found;
}

/**
 * A built context → `{ instructions, input, tools }` for
 * `client.responses.create`. Needs `memory` to find the stored items of the
 * current tool loop. Rejects with `INVALID_CONTENT` for a part the Responses
 * input has no form for (audio input), `INVALID_INPUT` for a context that is
 * not one.
 */
export async function toResponsesRequest(memory, ctx) {
  if (!isObject(ctx) || !Array.isArray(ctx.messages)) throw invalid("context", "expected the result of buildContext()");
  const messages = ctx.messages;
  let first = 0;
  while (first < messages.length && (messages[first].role === "system" || messages[first].role === "developer")) first++;
  const instructions = messages
    .slice(0, first)
    .map((m, i) => textOf(m.content, `context.messages[${i}].content`))
    .join("\n\n");
  let lastUser = messages.length - 1;
  while (lastUser >= first && messages[lastUser].role !== "user") lastUser--;
  const saved = await savedResponses(memory, ctx, lastUser + 1);
  const input = [];
  messages.slice(first).forEach((m, k) => {
    const at = `context.messages[${first + k}]`;
    switch (m.role) {
      case "system":
      case "developer":
        input.push({ role: m.role, content: textOf(m.content, `${at}.content`) });
        break;
      case "user":
        if (typeof m.content !== "string" && !Array.isArray(m.content))
          throw invalid(`${at}.content`, "expected a string or an array of parts");
        input.push({
          role: "user",
          content: typeof m.content === "string" ? m.content : m.content.map((p, j) => userPart(p, `${at}.content[${j}]`)),
        });
        break;
      case "assistant":
        input.push(...(saved.has(m) ? replay(saved.get(m)) : plainAssistant(m, at)));
        break;
      case "tool":
        input.push({ type: "function_call_output", call_id: m.tool_call_id, output: textOf(m.content, `${at}.content`) });
        break;
      default:
        throw memoryError("INVALID_ROLE", `${at}.role: unknown role ${JSON.stringify(m.role)}`);
    }
  });
  const request = { input, prompt_cache_key: promptCacheKey(memory) };
  if (instructions) request.instructions = instructions;
  if (ctx.tools?.length) request.tools = ctx.tools.map((t, i) => chatTool(t, `context.tools[${i}]`));
  return request;
}
