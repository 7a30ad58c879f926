// POST /chat/completions of the fake server: what the request may hold
// (per flavour and role, as OpenAI's and DeepSeek's validators decide), and
// the answer with every field the real APIs send, whole or as SSE chunks.
import { ApiError, argumentsOf, check, isObject, oneOf, onlyFields, pieces, roughTokens, snapshotOf, sse, uuidOf } from "./common.mjs";

// ChatCompletionCreateParamsBase of the `openai` package (v7); DeepSeek adds `thinking`.
const PARAMS = [
  "messages",
  "model",
  "audio",
  "frequency_penalty",
  "function_call",
  "functions",
  "logit_bias",
  "logprobs",
  "max_completion_tokens",
  "max_tokens",
  "metadata",
  "modalities",
  "moderation",
  "n",
  "parallel_tool_calls",
  "prediction",
  "presence_penalty",
  "prompt_cache_key",
  "prompt_cache_options",
  "prompt_cache_retention",
  "reasoning_effort",
  "response_format",
  "safety_identifier",
  "seed",
  "service_tier",
  "stop",
  "store",
  "stream",
  "stream_options",
  "temperature",
  "tool_choice",
  "tools",
  "top_logprobs",
  "top_p",
  "user",
  "verbosity",
  "web_search_options",
];

const ROLES = {
  openai: ["system", "assistant", "user", "function", "tool", "developer"],
  deepseek: ["system", "user", "assistant", "tool"],
};

// What a request message may carry per role: the `openai` package's
// Chat*MessageParam types. Everything a response adds (`annotations`,
// `audio.data`, `logprobs`, `reasoning`, `reasoning_details`, ...) is absent.
const FIELDS = {
  system: ["role", "content", "name"],
  developer: ["role", "content", "name"],
  user: ["role", "content", "name"],
  assistant: ["role", "content", "name", "refusal", "tool_calls", "function_call", "audio"],
  tool: ["role", "content", "tool_call_id"],
  function: ["role", "content", "name"],
};
// DeepSeek takes its own `reasoning_content` back (see `checkThinking`) and `prefix` (chat prefix completion).
const DEEPSEEK_ASSISTANT = [...FIELDS.assistant, "reasoning_content", "prefix"];

const PART_TYPES = {
  system: ["text"],
  developer: ["text"],
  tool: ["text"],
  function: ["text"],
  assistant: ["text", "refusal"],
  user: ["text", "image_url", "input_audio", "file"],
};

/** DeepSeek's thinking mode: on unless the model is the non-thinking `deepseek-chat` or the request disables it. */
export const thinkingMode = (body) =>
  body.thinking?.type === "enabled" || (body.thinking?.type !== "disabled" && body.model !== "deepseek-chat");

/** Throws an `ApiError` for anything the real API would answer 400 to. */
export function validateChat(body, flavour) {
  check(
    isObject(body),
    "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly.)",
  );
  const params = flavour === "deepseek" ? [...PARAMS, "thinking"] : PARAMS;
  for (const k of Object.keys(body)) check(params.includes(k), `Unrecognized request argument supplied: ${k}`);
  check(typeof body.model === "string" && body.model, "you must provide a model parameter");
  check(Array.isArray(body.messages), `Invalid type for 'messages': expected an array, but got ${typeof body.messages} instead.`, {
    param: "messages",
  });
  check(body.messages.length > 0, "[] is too short - 'messages'", { param: "messages" });
  if (body.stream_options != null)
    check(body.stream === true, "The 'stream_options' parameter is only allowed when 'stream' is enabled.", { param: "stream_options" });
  if (body.tools !== undefined) checkTools(body.tools);
  body.messages.forEach((m, i) => checkMessage(m, i, flavour));
  checkToolPairs(body.messages);
  if (flavour === "deepseek" && thinkingMode(body)) checkThinking(body.messages);
}

function checkTools(tools) {
  check(
    Array.isArray(tools) && tools.length > 0,
    "Invalid 'tools': empty array. Expected an array with minimum length 1, but got an empty array instead.",
    { param: "tools" },
  );
  tools.forEach((t, i) => {
    check(isObject(t), `Invalid type for 'tools[${i}]': expected an object.`, { param: `tools[${i}]` });
    oneOf(t.type, ["function", "custom"], `tools[${i}].type`);
    if (t.type !== "function") return;
    onlyFields(t, ["type", "function"], `tools.${i}`);
    check(isObject(t.function), `Missing required parameter: 'tools[${i}].function'.`, { param: `tools[${i}].function` });
    onlyFields(t.function, ["name", "description", "parameters", "strict"], `tools.${i}.function`);
    check(
      typeof t.function.name === "string" && /^[a-zA-Z0-9_-]{1,64}$/.test(t.function.name),
      `Invalid 'tools[${i}].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
      { param: `tools[${i}].function.name` },
    );
    if (t.function.parameters !== undefined)
      check(isObject(t.function.parameters), `Invalid type for 'tools[${i}].function.parameters': expected an object.`, {
        param: `tools[${i}].function.parameters`,
      });
  });
}

function checkMessage(m, i, flavour) {
  const at = `messages[${i}]`;
  check(isObject(m), `Invalid type for '${at}': expected an object, but got ${typeof m} instead.`, { param: at });
  oneOf(m.role, ROLES[flavour], `messages.[${i}].role`);
  onlyFields(m, flavour === "deepseek" && m.role === "assistant" ? DEEPSEEK_ASSISTANT : FIELDS[m.role], `messages.${i}`);
  if (m.name !== undefined) check(typeof m.name === "string", `Invalid type for '${at}.name': expected a string.`, { param: `${at}.name` });
  if (m.role === "assistant") return checkAssistant(m, i, flavour);
  checkContent(m.content, m.role, at, flavour);
  if (m.role === "tool")
    check(typeof m.tool_call_id === "string", `Missing required parameter: '${at}.tool_call_id'.`, { param: `${at}.tool_call_id` });
}

function checkContent(content, role, at, flavour) {
  if (typeof content === "string") return;
  check(
    Array.isArray(content),
    `Invalid type for '${at}.content': expected one of a string or an array of objects, but got ${content === null ? "null" : typeof content} instead.`,
    { param: `${at}.content` },
  );
  check(
    content.length > 0,
    `Invalid '${at}.content': empty array. Expected an array with minimum length 1, but got an empty array instead.`,
    { param: `${at}.content` },
  );
  const types = flavour === "deepseek" ? PART_TYPES[role].filter((t) => t === "text" || t === "refusal") : PART_TYPES[role];
  content.forEach((p, j) => {
    check(isObject(p), `Invalid type for '${at}.content[${j}]': expected an object.`, { param: `${at}.content[${j}]` });
    oneOf(p.type, types, `${at}.content[${j}].type`);
    if (p.type === "text")
      check(typeof p.text === "string", `Missing required parameter: '${at}.content[${j}].text'.`, { param: `${at}.content[${j}].text` });
  });
}

function checkAssistant(m, i, flavour) {
  const at = `messages[${i}]`;
  const calls = m.tool_calls !== undefined || (m.function_call !== undefined && m.function_call !== null);
  if (m.content === null || m.content === undefined)
    check(calls, "Invalid value for 'content': expected a string, got null.", { param: `messages.[${i}].content` });
  else checkContent(m.content, "assistant", at, flavour);
  if (m.refusal !== undefined)
    check(
      m.refusal === null || typeof m.refusal === "string",
      `Invalid type for '${at}.refusal': expected a string, but got ${typeof m.refusal} instead.`,
      { param: `${at}.refusal` },
    );
  // `audio` goes back as `{ id }` only; the response's data, transcript and expiry are not accepted.
  if (m.audio !== undefined && m.audio !== null) {
    check(isObject(m.audio), `Invalid type for '${at}.audio': expected an object.`, { param: `${at}.audio` });
    onlyFields(m.audio, ["id"], `messages.${i}.audio`);
  }
  if (m.reasoning_content !== undefined)
    check(m.reasoning_content === null || typeof m.reasoning_content === "string", `Invalid type for '${at}.reasoning_content'.`);
  if (m.tool_calls === undefined) return;
  check(
    Array.isArray(m.tool_calls) && m.tool_calls.length > 0,
    `Invalid '${at}.tool_calls': empty array. Expected an array with minimum length 1, but got an empty array instead.`,
    { param: `${at}.tool_calls` },
  );
  m.tool_calls.forEach((c, j) => {
    const cat = `${at}.tool_calls[${j}]`;
    check(isObject(c), `Invalid type for '${cat}': expected an object.`, { param: cat });
    // DeepSeek numbers the calls of its own answers (`index`) and takes them back as they came.
    onlyFields(
      c,
      flavour === "deepseek" ? ["id", "type", "function", "index"] : ["id", "type", "function"],
      `messages.${i}.tool_calls.${j}`,
    );
    check(typeof c.id === "string", `Missing required parameter: '${cat}.id'.`, { param: `${cat}.id` });
    oneOf(c.type, ["function"], `${cat}.type`);
    check(isObject(c.function), `Missing required parameter: '${cat}.function'.`, { param: `${cat}.function` });
    onlyFields(c.function, ["name", "arguments"], `messages.${i}.tool_calls.${j}.function`);
    check(typeof c.function.name === "string", `Missing required parameter: '${cat}.function.name'.`, { param: `${cat}.function.name` });
    check(
      typeof c.function.arguments === "string",
      `Invalid type for '${cat}.function.arguments': expected a string, but got ${typeof c.function.arguments} instead.`,
      { param: `${cat}.function.arguments` },
    );
  });
}

// Every tool message answers a call of the assistant message its run of tool
// messages follows, and every such call is answered before anything else.
function checkToolPairs(messages) {
  let open = null; // { index, ids: Set of unanswered ids, all: Set }
  const unanswered = () => {
    throw new ApiError(
      `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${[...open.ids].join(", ")}`,
      { param: `messages.[${open.index}].role` },
    );
  };
  messages.forEach((m, i) => {
    if (m.role === "tool") {
      check(open !== null, "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", {
        param: `messages.[${i}].role`,
      });
      check(
        open.all.has(m.tool_call_id),
        `Invalid parameter: 'tool_call_id' of '${m.tool_call_id}' not found in 'tool_calls' of previous message.`,
        { param: `messages.[${i}].tool_call_id` },
      );
      open.ids.delete(m.tool_call_id);
      return;
    }
    if (open && open.ids.size > 0) unanswered();
    open =
      m.role === "assistant" && m.tool_calls
        ? { index: i, ids: new Set(m.tool_calls.map((c) => c.id)), all: new Set(m.tool_calls.map((c) => c.id)) }
        : null;
  });
  if (open && open.ids.size > 0) unanswered();
}

// DeepSeek thinking mode: between two user messages, once the assistant made
// a tool call, every assistant message of that stretch must carry its
// `reasoning_content` in every later request. Elsewhere it may be sent and is ignored.
function checkThinking(messages) {
  let start = 0;
  const stretch = (from, to) => {
    const span = messages.slice(from, to);
    if (!span.some((m) => m.role === "assistant" && m.tool_calls)) return;
    span.forEach((m, k) => {
      if (m.role === "assistant")
        check(
          typeof m.reasoning_content === "string",
          `Missing \`reasoning_content\` field in the assistant message at message index ${from + k}`,
        );
    });
  };
  messages.forEach((m, i) => {
    if (m.role === "user") {
      stretch(start, i);
      start = i + 1;
    }
  });
  stretch(start, messages.length);
}

// ------------------------------------------------------------------ answers

function usageOf(u, flavour) {
  const details = { cached_tokens: u.cached };
  if (flavour === "openai") {
    return {
      prompt_tokens: u.input,
      completion_tokens: u.output,
      total_tokens: u.input + u.output,
      prompt_tokens_details: { ...details, audio_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: u.reasoning,
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0,
      },
    };
  }
  return {
    prompt_tokens: u.input,
    completion_tokens: u.output,
    total_tokens: u.input + u.output,
    prompt_tokens_details: details,
    ...(u.reasoning > 0 ? { completion_tokens_details: { reasoning_tokens: u.reasoning } } : {}),
    prompt_cache_hit_tokens: u.cached,
    prompt_cache_miss_tokens: u.input - u.cached,
  };
}

function envelope(ctx, object) {
  const { flavour, body, turn } = ctx;
  const head = { id: ctx.completionId, object, created: ctx.created, model: turn.model ?? snapshotOf(body.model) };
  return flavour === "openai"
    ? { ...head, service_tier: body.service_tier === "flex" ? "flex" : "default", system_fingerprint: "fp_f64f290af2" }
    : { ...head, system_fingerprint: "fp_ffc7281d48_prod0820_fp8_kvcache" };
}

/** `ctx`: `{ flavour, body, turn, usage, ids, created }` → the whole `chat.completion` object. */
export function chatCompletion(ctx) {
  const { flavour, body, turn } = ctx;
  ctx.completionId = flavour === "openai" ? ctx.ids("chatcmpl-", 29) : uuidOf(ctx.ids("", 16));
  const calls = toolCalls(ctx);
  const message = { role: "assistant", content: turn.content };
  if (flavour === "deepseek" && thinkingMode(body)) message.reasoning_content = turn.reasoning ?? "";
  if (calls.length) message.tool_calls = calls.map((c, index) => (flavour === "deepseek" ? { index, ...c } : c));
  if (flavour === "openai") Object.assign(message, { refusal: turn.refusal, annotations: turn.annotations, audio: null });
  return {
    ...envelope(ctx, "chat.completion"),
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(turn, calls) }],
    usage: usageOf(ctx.usage, flavour),
  };
}

function toolCalls(ctx) {
  ctx.calls ??= ctx.turn.toolCalls.map((c) => ({
    id: c.id ?? ctx.ids(ctx.flavour === "openai" ? "call_" : "call_0_", 24),
    type: "function",
    function: { name: c.name, arguments: argumentsOf(c.arguments) },
  }));
  return ctx.calls;
}

const finishReason = (turn, calls) => turn.finishReason ?? (calls.length ? "tool_calls" : "stop");

/**
 * The same answer as SSE chunks: the role first, then content (and DeepSeek's
 * `reasoning_content`) word by word, tool calls as `index`ed deltas, a
 * finish chunk, with `stream_options.include_usage` a last chunk with empty
 * `choices` and the usage, then `data: [DONE]`. `control(n)` is asked before
 * each event (n = events sent) and stops the stream when it returns false.
 * Returns the chunks sent and the whole completion they add up to.
 */
export function streamChat(res, ctx, control) {
  const { flavour, body, turn } = ctx;
  const whole = chatCompletion(ctx);
  const includeUsage = body.stream_options?.include_usage === true;
  const obfuscate = flavour === "openai" && body.stream_options?.include_obfuscation !== false;
  const thinking = flavour === "deepseek" && thinkingMode(body);
  const base = envelope(ctx, "chat.completion.chunk");
  let n = 0;
  const chunk = (delta, finish = null) => {
    const c = { ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] };
    if (includeUsage) c.usage = null;
    if (obfuscate) c.obfuscation = "x".repeat(1 + (n++ % 7));
    return c;
  };
  const chunks = [];
  const first =
    flavour === "openai"
      ? { role: "assistant", content: turn.content === null ? null : "", refusal: null }
      : thinking
        ? { role: "assistant", content: null, reasoning_content: "" }
        : { role: "assistant", content: "" };
  chunks.push(chunk(first));
  if (thinking) for (const p of pieces(turn.reasoning)) chunks.push(chunk({ content: null, reasoning_content: p }));
  for (const p of pieces(turn.content)) chunks.push(chunk(thinking ? { content: p, reasoning_content: null } : { content: p }));
  for (const p of pieces(turn.refusal)) chunks.push(chunk({ refusal: p }));
  whole.choices[0].message.tool_calls?.forEach((c, index) => {
    chunks.push(chunk({ tool_calls: [{ index, id: c.id, type: "function", function: { name: c.function.name, arguments: "" } }] }));
    for (const p of c.function.arguments.match(/[\s\S]{1,8}/g) ?? [])
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: p } }] }));
  });
  chunks.push(chunk(flavour === "openai" ? {} : { content: "", reasoning_content: null }, whole.choices[0].finish_reason));
  if (includeUsage) {
    const last = { ...base, choices: [], usage: whole.usage };
    if (obfuscate) last.obfuscation = "xx";
    chunks.push(last);
  }
  const sent = [];
  for (const c of chunks) {
    if (!control(sent.length)) return { sent, whole };
    sse(res, c);
    sent.push(c);
  }
  if (control(sent.length)) {
    sse(res, "[DONE]");
    res.end();
  }
  return { sent, whole };
}

export const promptOf = (body) => roughTokens(body.messages) + roughTokens(body.tools ?? "");
