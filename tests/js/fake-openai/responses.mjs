// POST /responses of the fake server (OpenAI flavour only): which `input`
// items the Responses API accepts and in what order, and the answer as a
// `response` object or as its stream of typed SSE events.
//
// The pairing rules are the ones the real API enforces (its 400 texts are
// quoted): a reasoning item must be directly followed by the item it
// produced (an assistant message or a function call); an output item the API
// produced after a reasoning item cannot come back without that reasoning
// item; every function_call needs its function_call_output and every output
// its call; a reasoning item from a `store: false` response comes back only
// with the `encrypted_content` it was issued with.
import { argumentsOf, check, isObject, knownParameters, oneOf, pieces, required, roughTokens, snapshotOf, sse } from "./common.mjs";

// ResponseCreateParamsBase of the `openai` package (v7).
const PARAMS = [
  "access_programs",
  "background",
  "background_options",
  "context_management",
  "conversation",
  "image",
  "include",
  "input",
  "instructions",
  "max_output_tokens",
  "max_tool_calls",
  "metadata",
  "model",
  "moderation",
  "parallel_tool_calls",
  "previous_response_id",
  "prompt",
  "prompt_cache_key",
  "prompt_cache_options",
  "prompt_cache_retention",
  "reasoning",
  "safety_identifier",
  "service_tier",
  "store",
  "stream",
  "stream_options",
  "temperature",
  "text",
  "tool_choice",
  "tools",
  "top_logprobs",
  "top_p",
  "truncation",
  "user",
];

const INPUT_PARTS = ["input_text", "input_image", "input_file"];
const PART_FIELDS = {
  input_text: ["type", "text", "prompt_cache_breakpoint"],
  input_image: ["type", "image_url", "file_id", "detail", "prompt_cache_breakpoint"],
  input_file: ["type", "file_id", "file_data", "file_url", "filename", "detail", "prompt_cache_breakpoint"],
  output_text: ["type", "text", "annotations", "logprobs"],
  refusal: ["type", "refusal"],
};
const ITEM_FIELDS = {
  message: ["type", "role", "content", "status", "phase"],
  assistant: ["type", "role", "content", "status", "phase", "id"],
  function_call: ["type", "id", "call_id", "name", "arguments", "status", "namespace"],
  function_call_output: ["type", "id", "call_id", "output", "status"],
  reasoning: ["type", "id", "summary", "content", "encrypted_content", "status"],
  item_reference: ["type", "id"],
};

/**
 * Throws an `ApiError` for anything the real API would answer 400 to.
 * `issued` maps the ids of items this server produced to what it knows of
 * them: `{ type, store, encrypted?, reasoning? }` (`reasoning`: the id of the
 * reasoning item that came right before it in the same output).
 */
export function validateResponses(body, issued) {
  check(isObject(body), "We could not parse the JSON body of your request.");
  knownParameters(body, PARAMS);
  required(body, "model", "string");
  check(body.previous_response_id == null, "fake-openai: previous_response_id is not implemented; send the whole input.", {
    param: "previous_response_id",
  });
  if (body.instructions != null)
    check(typeof body.instructions === "string", "Invalid type for 'instructions': expected a string.", { param: "instructions" });
  if (body.tools !== undefined) checkTools(body.tools);
  if (typeof body.input === "string") return;
  required(body, "input", "array");
  const input = body.input;
  input.forEach((item, i) => checkItem(item, `input[${i}]`, issued));
  checkOrder(input, issued);
}

function checkTools(tools) {
  required({ tools }, "tools", "array");
  tools.forEach((t, i) => {
    const at = `tools[${i}]`;
    required(tools, i, "object", "tools");
    if (t.type !== "function") return; // hosted tools: not checked here
    knownParameters(
      t,
      ["type", "name", "description", "parameters", "strict", "defer_loading", "allowed_callers", "async", "output_schema"],
      at,
    );
    required(t, "name", "string", at);
  });
}

const kindOf = (item) => item.type ?? (item.role !== undefined ? "message" : undefined);

function checkItem(item, at, issued) {
  check(isObject(item), `Invalid type for '${at}': expected an object.`, { param: at });
  const kind = kindOf(item);
  check(kind !== undefined, `Missing required parameter: '${at}.type'.`, { param: `${at}.type`, code: "missing_required_parameter" });
  oneOf(kind, ["message", "function_call", "function_call_output", "reasoning", "item_reference"], `${at}.type`);
  if (kind === "message") return checkMessage(item, at);
  knownParameters(item, ITEM_FIELDS[kind], at);
  if (kind === "function_call") {
    for (const k of ["call_id", "name", "arguments"]) required(item, k, "string", at);
    if (item.id !== undefined) idPrefix(item.id, "fc", at);
  } else if (kind === "function_call_output") {
    required(item, "call_id", "string", at);
    check(
      typeof item.output === "string" || Array.isArray(item.output),
      `Invalid type for '${at}.output': expected one of a string or an array.`,
      { param: `${at}.output`, code: "invalid_type" },
    );
  } else if (kind === "reasoning") {
    required(item, "id", "string", at);
    idPrefix(item.id, "rs", at);
    required(item, "summary", "array", at);
    item.summary.forEach((s, j) => {
      knownParameters(s, ["type", "text"], `${at}.summary[${j}]`);
      oneOf(s.type, ["summary_text"], `${at}.summary[${j}].type`);
    });
    const known = issued.get(item.id);
    if (item.encrypted_content != null) {
      check(known?.encrypted === item.encrypted_content, `The encrypted content for item ${item.id} could not be verified.`, {
        param: at,
        code: "invalid_encrypted_content",
      });
    } else {
      check(known, `Item with id '${item.id}' not found.`, { param: at, status: 404 });
      check(
        known.store,
        `Item with id '${item.id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`,
        { param: at, status: 404 },
      );
    }
  } else if (kind === "item_reference") {
    required(item, "id", "string", at);
    check(issued.get(item.id)?.store, `Item with id '${item.id}' not found.`, { param: at, status: 404 });
  }
}

function idPrefix(id, prefix, at) {
  check(id.startsWith(`${prefix}_`), `Invalid '${at}.id': '${id}'. Expected an ID that begins with '${prefix}'.`, {
    param: `${at}.id`,
    code: "invalid_value",
  });
}

function checkMessage(item, at) {
  oneOf(item.role, ["user", "assistant", "system", "developer"], `${at}.role`);
  const assistant = item.role === "assistant";
  knownParameters(item, assistant ? ITEM_FIELDS.assistant : ITEM_FIELDS.message, at);
  if (item.id !== undefined) idPrefix(item.id, "msg", at);
  if (typeof item.content === "string") return;
  required(item, "content", "array", at);
  item.content.forEach((p, j) => {
    const pat = `${at}.content[${j}]`;
    required(item.content, j, "object", `${at}.content`);
    // An assistant message holds what the model wrote; the others hold input.
    oneOf(p.type, assistant ? ["output_text", "refusal"] : INPUT_PARTS, `${pat}.type`);
    knownParameters(p, PART_FIELDS[p.type], pat);
    if (p.type === "input_text" || p.type === "output_text") required(p, "text", "string", pat);
  });
}

function checkOrder(input, issued) {
  const calls = new Set();
  const seenReasoning = new Set();
  input.forEach((item, i) => {
    const kind = kindOf(item);
    const next = input[i + 1];
    if (kind === "reasoning") {
      const follows = next && (kindOf(next) === "function_call" || (kindOf(next) === "message" && next.role === "assistant"));
      check(follows, `Item '${item.id}' of type 'reasoning' was provided without its required following item.`, { param: "input" });
      seenReasoning.add(item.id);
    }
    const producedAfter = item.id !== undefined ? issued.get(item.id)?.reasoning : undefined;
    if (producedAfter)
      check(
        seenReasoning.has(producedAfter),
        `Item '${item.id}' of type '${kind}' was provided without its required 'reasoning' item: '${producedAfter}'.`,
        { param: "input" },
      );
    if (kind === "function_call") calls.add(item.call_id);
    if (kind === "function_call_output")
      check(calls.has(item.call_id), `No tool call found for function call output with call_id ${item.call_id}.`, { param: "input" });
  });
  const answered = new Set(input.filter((it) => kindOf(it) === "function_call_output").map((it) => it.call_id));
  for (const id of calls) check(answered.has(id), `No tool output found for function call ${id}.`, { param: "input" });
}

// ------------------------------------------------------------------ answers

const usageOf = (u) => ({
  input_tokens: u.input,
  input_tokens_details: { cached_tokens: u.cached, cache_write_tokens: 0 },
  output_tokens: u.output,
  output_tokens_details: { reasoning_tokens: u.reasoning },
  total_tokens: u.input + u.output,
});

/**
 * `ctx`: `{ body, turn, usage, ids, created, issued }` → the whole `response`
 * object; its output items are entered in `issued`.
 */
export function responseObject(ctx) {
  const { body, turn, ids, issued } = ctx;
  const store = body.store !== false;
  const output = [];
  let reasoning;
  if (turn.reasoning !== null || ctx.usage.reasoning > 0) {
    reasoning = ids("rs_", 48);
    // The summary text is there only when the request asks for one.
    const item = {
      id: reasoning,
      type: "reasoning",
      summary: body.reasoning?.summary && turn.reasoning ? [{ type: "summary_text", text: turn.reasoning }] : [],
    };
    const encrypted = `gAAAA${Buffer.from(`${reasoning}:${turn.reasoning ?? ""}`).toString("base64")}`;
    if (body.include?.includes("reasoning.encrypted_content")) item.encrypted_content = encrypted;
    issued.set(reasoning, { type: "reasoning", store, encrypted });
    output.push(item);
  }
  const produced = (item) => {
    issued.set(item.id, { type: item.type, store, reasoning });
    output.push(item);
  };
  if (turn.content !== null || turn.refusal !== null) {
    const content =
      turn.refusal !== null
        ? [{ type: "refusal", refusal: turn.refusal }]
        : [{ type: "output_text", annotations: turn.annotations, logprobs: [], text: turn.content }];
    produced({ id: ids("msg_", 48), type: "message", status: "completed", content, role: "assistant" });
  }
  for (const c of turn.toolCalls) {
    produced({
      id: ids("fc_", 48),
      type: "function_call",
      status: "completed",
      arguments: argumentsOf(c.arguments),
      call_id: c.id ?? ids("call_", 24),
      name: c.name,
    });
  }
  const incomplete = turn.finishReason === "length";
  return {
    id: ctx.responseId ?? (ctx.responseId = ids("resp_", 48)),
    object: "response",
    created_at: ctx.created,
    status: incomplete ? "incomplete" : "completed",
    background: false,
    billing: { payer: "developer" },
    completed_at: ctx.created,
    error: null,
    incomplete_details: incomplete ? { reason: "max_output_tokens" } : null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    max_tool_calls: body.max_tool_calls ?? null,
    model: turn.model ?? snapshotOf(body.model),
    output,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: null,
    prompt_cache_key: body.prompt_cache_key ?? null,
    prompt_cache_retention: body.prompt_cache_retention ?? null,
    reasoning: { effort: body.reasoning?.effort ?? (reasoning ? "medium" : null), summary: body.reasoning?.summary ?? null },
    safety_identifier: body.safety_identifier ?? null,
    service_tier: "default",
    store,
    temperature: body.temperature ?? 1,
    text: { format: body.text?.format ?? { type: "text" }, verbosity: body.text?.verbosity ?? "medium" },
    tool_choice: body.tool_choice ?? "auto",
    tools: body.tools ?? [],
    top_logprobs: body.top_logprobs ?? 0,
    top_p: body.top_p ?? 1,
    truncation: body.truncation ?? "disabled",
    usage: usageOf(ctx.usage),
    user: null,
    metadata: body.metadata ?? {},
  };
}

/**
 * The same answer as the Responses stream: `response.created`,
 * `response.in_progress`, per output item `response.output_item.added`, its
 * parts and deltas (reasoning summary, output text, function-call
 * arguments), `response.output_item.done`, then `response.completed` (or
 * `response.incomplete`) with the whole response. Every event names itself
 * (`event:`) and carries a `sequence_number`. `control(n)` as in `streamChat`.
 */
export function streamResponses(res, ctx, control) {
  const whole = responseObject(ctx);
  const events = [];
  const emit = (type, fields) => events.push({ type, sequence_number: events.length, ...fields });
  const pending = { ...whole, status: "in_progress", output: [], usage: null, completed_at: null, incomplete_details: null };
  emit("response.created", { response: pending });
  emit("response.in_progress", { response: pending });
  whole.output.forEach((item, output_index) => {
    const at = { item_id: item.id, output_index };
    if (item.type === "reasoning") {
      emit("response.output_item.added", { output_index, item: { ...item, summary: [] } });
      item.summary.forEach((s, summary_index) => {
        emit("response.reasoning_summary_part.added", { ...at, summary_index, part: { type: "summary_text", text: "" } });
        for (const delta of pieces(s.text))
          emit("response.reasoning_summary_text.delta", { ...at, summary_index, delta, obfuscation: "xx" });
        emit("response.reasoning_summary_text.done", { ...at, summary_index, text: s.text });
        emit("response.reasoning_summary_part.done", { ...at, summary_index, part: s });
      });
    } else if (item.type === "message") {
      emit("response.output_item.added", { output_index, item: { ...item, status: "in_progress", content: [] } });
      item.content.forEach((part, content_index) => {
        const c = { ...at, content_index };
        if (part.type === "refusal") {
          emit("response.content_part.added", { ...c, part: { type: "refusal", refusal: "" } });
          for (const delta of pieces(part.refusal)) emit("response.refusal.delta", { ...c, delta });
          emit("response.refusal.done", { ...c, refusal: part.refusal });
        } else {
          emit("response.content_part.added", { ...c, part: { type: "output_text", annotations: [], logprobs: [], text: "" } });
          for (const delta of pieces(part.text)) emit("response.output_text.delta", { ...c, delta, logprobs: [], obfuscation: "xx" });
          part.annotations.forEach((annotation, annotation_index) =>
            emit("response.output_text.annotation.added", { ...c, annotation_index, annotation }),
          );
          emit("response.output_text.done", { ...c, text: part.text, logprobs: [] });
        }
        emit("response.content_part.done", { ...c, part });
      });
    } else {
      emit("response.output_item.added", { output_index, item: { ...item, status: "in_progress", arguments: "" } });
      for (const delta of item.arguments.match(/[\s\S]{1,8}/g) ?? [])
        emit("response.function_call_arguments.delta", { ...at, delta, obfuscation: "xx" });
      emit("response.function_call_arguments.done", { ...at, name: item.name, arguments: item.arguments });
    }
    emit("response.output_item.done", { output_index, item });
  });
  emit(whole.status === "incomplete" ? "response.incomplete" : "response.completed", { response: whole });
  const sent = [];
  for (const e of events) {
    if (!control(sent.length)) return { sent, whole };
    sse(res, e, e.type);
    sent.push(e);
  }
  if (control(sent.length)) res.end();
  return { sent, whole };
}

export const promptOf = (body) => roughTokens(body.instructions ?? "") + roughTokens(body.input) + roughTokens(body.tools ?? "");
