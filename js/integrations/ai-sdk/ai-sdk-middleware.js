// memoryMiddleware: memory for any AI SDK language model (wrapLanguageModel).
//
// Before each model call (each step of a tool loop): the call's messages that
// memory does not hold yet are stored (ai-sdk-align.js decides which), and
// the prompt the provider gets is memory's context, built within the budget.
// After it: the response is stored and its usage charged, once. A stream is
// stored when its finish part arrives, before that part is passed on; an
// aborted or failed stream keeps its text and reasoning, drops its tool
// calls (nothing will answer them), and says so. Memory errors reject the
// call or error the stream: they are never swallowed.
//
// Calls on one controller run their memory work one at a time (a queue per
// controller), so two concurrent requests cannot both store the same turn.
import { memoryError } from "../../internal/errors.js";
import { CONTENT_FIELD, fromModelMessages, lazyChatMessages, toPrompt } from "./ai-sdk-messages.js";
import { alignTail, fingerprint } from "./ai-sdk-align.js";
import { isAbort, recorded } from "./ai-sdk-stream.js";

const OPTIONS = new Set([
  "maxTokens",
  "reserveOutput",
  "conversation",
  "procedureTools",
  "model",
  "onStored",
  "specificationVersion",
  "semanticTokens",
  "episodicTokens",
  "preferenceTokens",
  "taskId",
  "taskTokens",
  "layout",
]);
// Passed to buildContext as they are.
const CONTEXT_OPTIONS = ["semanticTokens", "episodicTokens", "preferenceTokens", "taskId", "taskTokens", "layout"];
// Above any context window: buildContext lowers maxTokens to the model's window.
const WHOLE_WINDOW = 2 ** 31;

/** Memory for a model: `wrapLanguageModel({ model, middleware: memoryMiddleware(memory) })`. */
export function memoryMiddleware(memory, options = {}) {
  const opts = checkOptions(memory, options);
  const calls = new WeakMap(); // the params transformParams returned → what that call stored
  return {
    specificationVersion: opts.specificationVersion,
    async transformParams({ params, model }) {
      const call = await exclusive(memory, () => prepare(memory, params, model, opts));
      const out = { ...params, prompt: call.prompt, tools: call.tools };
      calls.set(out, call);
      return out;
    },
    async wrapGenerate({ doGenerate, params, model }) {
      const done = settler(memory, callOf(calls, params), opts, model);
      const result = await attempt(doGenerate, done);
      const report = await done({ status: "finished", content: result.content, usage: result.usage });
      return { ...result, providerMetadata: { ...result.providerMetadata, agentMemory: report } };
    },
    async wrapStream({ doStream, params, model }) {
      const done = settler(memory, callOf(calls, params), opts, model);
      const result = await attempt(doStream, done);
      return { ...result, stream: recorded(result.stream, done) };
    },
  };
}

// The provider call; one that fails before answering is settled (nothing to
// store but what the prompt added, said in the report) and rethrown as it is.
async function attempt(call, done) {
  try {
    return await call();
  } catch (error) {
    await done({ status: isAbort(error) ? "aborted" : "failed" });
    throw error;
  }
}

function checkOptions(memory, options) {
  if (typeof memory?.buildContext !== "function" || typeof memory?.add !== "function") {
    throw memoryError("INVALID_INPUT", "memoryMiddleware expects a MemoryController as its first argument");
  }
  if (options === null || typeof options !== "object") throw memoryError("INVALID_INPUT", "memoryMiddleware options must be an object");
  for (const k of Object.keys(options))
    if (!OPTIONS.has(k)) throw memoryError("INVALID_INPUT", `memoryMiddleware: unknown option ${JSON.stringify(k)}`);
  const { conversation = "auto", specificationVersion = "v4", onStored } = options;
  if (conversation !== "auto" && conversation !== "full")
    throw memoryError("INVALID_INPUT", 'memoryMiddleware: conversation must be "auto" or "full"');
  if (specificationVersion !== "v4" && specificationVersion !== "v3")
    throw memoryError("INVALID_INPUT", 'memoryMiddleware: specificationVersion must be "v4" (ai 7) or "v3" (ai 6)');
  if (onStored !== undefined && typeof onStored !== "function")
    throw memoryError("INVALID_INPUT", "memoryMiddleware: onStored must be a function");
  for (const k of ["maxTokens", "reserveOutput"]) {
    if (options[k] !== undefined && !(Number.isInteger(options[k]) && options[k] >= 0))
      throw memoryError("INVALID_INPUT", `memoryMiddleware: ${k} must be a non-negative integer`);
  }
  return { ...options, conversation, specificationVersion, procedureTools: options.procedureTools !== false };
}

function callOf(calls, params) {
  const call = calls.get(params);
  // Only when something replaced the params between our transformParams and our wrap: a broken wrapper.
  if (call === undefined)
    throw memoryError("INVALID_INPUT", "memoryMiddleware: this call's parameters did not come from its transformParams");
  return call;
}

const queues = new WeakMap();

/** Runs `job` after every job queued before it on this controller. */
function exclusive(memory, job) {
  const run = (queues.get(memory) ?? Promise.resolve()).then(job);
  queues.set(
    memory,
    run.catch(() => {}),
  );
  return run;
}

// ---------------------------------------------------------------- before the call

async function prepare(memory, params, model, opts) {
  const prompt = params.prompt ?? [];
  const system = prompt.filter((m) => m.role === "system").map((m) => m.content);
  // Converted where read: a conversation passed whole is read at its ends.
  const incoming = lazyChatMessages(prompt);
  const { held, from, supersede } = await recognise(memory, incoming, opts.conversation);

  // Newest first: a tool result goes before the call it answers.
  const superseded = held.slice(supersede).map((h) => h.id);
  for (const id of [...superseded].reverse()) await memory.forget({ id });
  const stored = [];
  const messages = new Map(held.map((h) => [h.id, h.message]));
  for (const m of incoming.slice(from)) {
    const { id } = await memory.add(m);
    stored.push(id);
    messages.set(id, m);
  }

  const callTools = (params.tools ?? []).filter((t) => t.type === "function");
  const ctx = await memory.buildContext({
    ...(system.length > 0 && { system: system.join("\n\n") }),
    maxTokens: opts.maxTokens ?? WHOLE_WINDOW,
    reserveOutput: opts.reserveOutput ?? params.maxOutputTokens ?? maxOutput(memory),
    query: lastUserText(incoming),
    tools: callTools.map((t) => ({ type: "function", function: { name: t.name, description: t.description, parameters: t.inputSchema } })),
    ...Object.fromEntries(CONTEXT_OPTIONS.filter((k) => opts[k] !== undefined).map((k) => [k, opts[k]])),
  });
  // The current tool loop's answers, if it is longer than the messages read.
  const loop = ctx.sections.recent.messageIds.filter((id) => !messages.has(id));
  for (const h of loop.length > 0 ? await memory.messages(loop) : []) messages.set(h.id, h.message);
  const version = model?.specificationVersion === "v4" ? "v4" : "v3";
  const sent = withCacheBreakpoint(toPrompt(withLoopContent(ctx, messages), version), ctx);
  return { stored, superseded, prompt: sent, tools: mergeTools(params.tools, ctx.tools, opts) };
}

// The newest held messages read first; more of them (four times as many)
// only while they cannot place the prompt (ai-sdk-align.js alignTail). A
// whole conversation is recognised by its end, a new turn by memory's end.
const TAIL = 8;
const instruction = (h) => h.message.role === "system" || h.message.role === "developer";

async function recognise(memory, incoming, mode) {
  // Fingerprints are taken as the alignment reads them: a whole conversation
  // is placed by its end, so its older turns are never fingerprinted.
  const prints = [];
  const raw = (i) => (prints[i] ??= fingerprint(incoming.at(i)));
  const redacted = new Map(); // prompt index -> its print as memory would hold it
  for (let limit = TAIL; ; limit *= 4) {
    const page = await memory.history({ limit });
    const held = page.filter((h) => !instruction(h));
    // Memory holds each turn redacted (the `redact` option): a turn that
    // carried a secret matches its stored form once redacted the same way.
    // Only the prompt's end meets the page at this width, so only it is
    // redacted (each print once), not a whole conversation per call.
    const heldPrints = held.map((h) => fingerprint(h.message));
    const known = new Set(heldPrints);
    const end = Math.max(0, incoming.length - 2 * limit - 2);
    for (let i = end; i < incoming.length; i++) {
      const p = raw(i);
      if (!known.has(p) && !redacted.has(i))
        redacted.set(
          i,
          await memory.redact(p).then(
            (r) => r.text,
            () => p,
          ),
        );
    }
    const prompt = { length: incoming.length, at: (i) => (i < end || known.has(raw(i)) ? raw(i) : redacted.get(i)) };
    // Held messages (instructions aside) older than the page: whether there
    // are any is all "auto" asks; "full" lays the prompt on memory by
    // position, so it counts them (stats() walks the log: only then).
    const counted = () => ((m) => m.total - m.pinned - held.length)(memory.stats().messages);
    const before = page.length < limit ? 0 : mode === "full" ? counted() : 1;
    const placed = alignTail(prompt, heldPrints, before, mode);
    if (placed !== undefined) return { held, ...placed };
  }
}

// Anthropic caches a prompt prefix only up to a breakpoint: one goes on the
// last message of the context's stable prefix (ctx.cache), which in the
// prompt ends right before the newest user turn (the recall block moved
// into it), or, with the recall block at the top, right before the block.
// Other providers ignore Anthropic's options.
function withCacheBreakpoint(prompt, ctx) {
  if (!(ctx.cache?.messages > 0)) return prompt;
  const block = ctx.sections.knowledge.message;
  const top = block !== undefined && ctx.messages.slice(0, block).every((m) => m.role === "system" || m.role === "developer");
  const at = top ? block - 1 : prompt.findLastIndex((m) => m.role === "user") - 1;
  if (at < 0) return prompt;
  const anthropic = { ...prompt[at].providerOptions?.anthropic, cacheControl: { type: "ephemeral" } };
  return prompt.map((m, i) => (i === at ? { ...m, providerOptions: { ...m.providerOptions, anthropic } } : m));
}

// The current tool loop's answers (after the last user message) carry the
// response parts they were stored with, provider metadata included, so the
// provider gets them back as it would without memory: a Responses model its
// reasoning items and item ids between steps. Earlier turns go as plain
// messages. ctx's recent messages are its last ones, named by id.
function withLoopContent(ctx, stored) {
  const ids = ctx.sections.recent.messageIds;
  const first = ctx.messages.length - ids.length;
  const lastUser = ctx.messages.findLastIndex((m) => m.role === "user");
  return ctx.messages.map((m, i) => {
    const content = i > lastUser && i >= first && m.role === "assistant" ? stored.get(ids[i - first])?.[CONTENT_FIELD] : undefined;
    return content === undefined ? m : { ...m, [CONTENT_FIELD]: content };
  });
}

// An unknown model's output limit, as the core assumes it (models::UNKNOWN).
const UNKNOWN_MAX_OUTPUT = 4096;

// The model's output limit, from the model table: the most output tokens
// budgetAwareMaxTokens allows when money is no limit.
function maxOutput(memory) {
  try {
    return memory.budgetAwareMaxTokens(Number.MAX_VALUE, undefined, { promptTokens: 0, floor: 0 });
  } catch (e) {
    if (e?.code === "UNKNOWN_MODEL") return UNKNOWN_MAX_OUTPUT;
    throw e;
  }
}

function lastUserText(messages) {
  let m;
  for (let i = messages.length - 1; i >= 0 && m === undefined; i--) if (messages.at(i).role === "user") m = messages.at(i);
  if (m === undefined) return undefined;
  const text =
    typeof m.content === "string"
      ? m.content
      : m.content
          .filter((p) => p.type === "text")
          .map((p) => p.text)
          .join("\n");
  return text === "" ? undefined : text;
}

// The call's tools as they came (its definition wins a name), then the procedures' tools.
function mergeTools(callTools, contextTools, opts) {
  if (!opts.procedureTools) return callTools;
  const names = new Set((callTools ?? []).map((t) => t.name));
  const extra = (contextTools ?? [])
    .filter((t) => !names.has(t.function.name))
    .map((t) => ({
      type: "function",
      name: t.function.name,
      ...(t.function.description !== undefined && { description: t.function.description }),
      inputSchema: t.function.parameters ?? { type: "object", properties: {} },
    }));
  return extra.length === 0 ? callTools : [...(callTools ?? []), ...extra];
}

// ---------------------------------------------------------------- after the call

// Stores a call's outcome: { status: "finished" | "aborted" | "failed",
// content?, usage?, droppedToolCalls? } → its report.
const settler = (memory, call, opts, model) => (outcome) => settle(memory, call, outcome, opts, model);

async function settle(memory, call, outcome, opts, model) {
  const report = await exclusive(memory, async () => {
    const response = [];
    // Only what a chat message holds: a part type a provider adds later is left out, never a failed call.
    const kept = outcome.content?.filter((p) => STORED_PARTS.has(p.type));
    const message = kept === undefined ? undefined : fromModelMessages([{ role: "assistant", content: kept }])[0];
    // Parts with provider metadata (item ids, encrypted reasoning) are kept whole for the loop's next step.
    if (outcome.status === "finished" && kept.some((p) => p.providerMetadata)) message[CONTENT_FIELD] = replayable(kept);
    if (message !== undefined && (message.content || message.tool_calls || message.reasoning_content))
      response.push((await memory.add(message)).id);
    const usage = usageOf(outcome.usage);
    const out = {
      status: outcome.status,
      prompt: call.stored,
      response,
      superseded: call.superseded,
      droppedToolCalls: outcome.droppedToolCalls ?? 0,
    };
    // A provider that reports no usage is charged nothing, rather than a guess.
    if (usage?.inputTokens !== undefined) out.usd = await memory.recordUsage({ model: opts.model ?? model?.modelId, ...usage });
    return out;
  });
  if (opts.onStored) await opts.onStored(report);
  return report;
}

const STORED_PARTS = new Set(["text", "reasoning", "tool-call"]);

// Response content → what a later prompt can carry: text, reasoning and the
// app's tool calls, with their provider metadata (JSON by the spec).
function replayable(content) {
  return content
    .filter((p) => !p.providerExecuted)
    .map(({ type, text, toolCallId, toolName, input, providerMetadata }) =>
      type === "tool-call" ? { type, toolCallId, toolName, input, providerMetadata } : { type, text, providerMetadata },
    );
}

// LanguageModelV4/V3 usage (nested) → the AI SDK's LanguageModelUsage, what
// recordUsage takes. Undefined counts are left out.
function usageOf(u) {
  if (u == null) return undefined;
  if (typeof u.inputTokens !== "object") return u; // already flat (older providers)
  const defined = (o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
  const { inputTokens: i = {}, outputTokens: o = {} } = u;
  return defined({
    inputTokens: i.total,
    inputTokenDetails: defined({ noCacheTokens: i.noCache, cacheReadTokens: i.cacheRead, cacheWriteTokens: i.cacheWrite }),
    outputTokens: o.total,
    outputTokenDetails: defined({ textTokens: o.text, reasoningTokens: o.reasoning }),
    totalTokens: i.total === undefined && o.total === undefined ? undefined : (i.total ?? 0) + (o.total ?? 0),
  });
}
