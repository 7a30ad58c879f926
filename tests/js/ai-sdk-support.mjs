// Shared by the AI SDK tests: a controller with the fake OpenAI API and the
// real @ai-sdk/openai providers in front of it, the checks every scenario
// ends with (every request valid, nothing stored twice, usage charged), and
// a useChat stand-in: the SDK's own AbstractChat (what useChat wraps) over
// DefaultChatTransport, talking over HTTP to a route written as the AI SDK
// docs write one.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { AbstractChat, DefaultChatTransport, convertToModelMessages, streamText, wrapLanguageModel } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { MemoryController } from "../../dist/node.js";
import { memoryMiddleware } from "../../dist/integrations/ai-sdk/ai-sdk.js";
import { fingerprint } from "../../dist/integrations/ai-sdk/ai-sdk-align.js";
import { startFakeOpenAI } from "./fake-openai/server.mjs";

/**
 * A controller, the fake API with `script` (closed when test `t` ends), and
 * `model`: `provider` ("chat" | "responses") of @ai-sdk/openai wrapped in
 * memoryMiddleware. `reports` collects every StoredReport.
 */
export async function setup(t, { script = [], provider = "chat", modelId = "gpt-4o", memory: memoryOptions = {}, middleware = {} } = {}) {
  const api = await startFakeOpenAI({ script });
  t.after(() => api.close());
  const openai = createOpenAI({ baseURL: api.url, apiKey: api.apiKey });
  const memory = await MemoryController.create({ model: "gpt-4o", ...memoryOptions });
  const reports = [];
  let waiters = [];
  const stored = (r) => {
    reports.push(r);
    waiters = waiters.filter(({ n, resolve }) => !(reports.length >= n && (resolve(), true)));
  };
  const model = wrapLanguageModel({
    model: provider === "responses" ? openai.responses(modelId) : openai.chat(modelId),
    middleware: memoryMiddleware(memory, { ...middleware, onStored: stored }),
  });
  /** Resolves once n calls have reported what they stored. */
  const reported = (n) => new Promise((resolve) => (reports.length >= n ? resolve() : waiters.push({ n, resolve })));
  return { api, memory, model, reports, reported };
}

/** The conversation memory holds, system messages aside. */
export const conversation = async (memory) =>
  (await memory.history()).map((h) => h.message).filter((m) => m.role !== "system" && m.role !== "developer");

/** The checks every scenario ends with. */
export async function assertSound({ api, memory, reports }, { requests, stored }) {
  assert.deepEqual(
    api.rejected().map((r) => r.error),
    [],
    "every request valid",
  );
  assert.equal(api.requests.length, requests, "requests made");
  assert.equal(api.remaining, 0, "every scripted turn used");
  const held = await conversation(memory);
  assert.deepEqual(held.map(fingerprint), stored.map(fingerprint), "memory holds each turn once, in order");
  // Every answered request was charged once, with the numbers it reported.
  const answered = api.requests.filter((r) => r.status === 200 && !r.closed);
  const reported = answered.map((r) => r.response.usage);
  const input = reported.reduce((n, u) => n + (u.prompt_tokens ?? u.input_tokens), 0);
  const chat = memory
    .stats()
    .cost.byModel.reduce((acc, m) => ({ calls: acc.calls + m.calls, promptTokens: acc.promptTokens + m.promptTokens }), {
      calls: 0,
      promptTokens: 0,
    });
  assert.deepEqual(chat, { calls: answered.length, promptTokens: input }, "usage charged once per answered request");
  assert.equal(reports.filter((r) => r.usd !== undefined).length, answered.length);
  return held;
}

/** What request i sent, as [role, text] pairs, from either endpoint. */
export function sentTurns(api, i) {
  const body = api.requests[i].body;
  const text = (c) => (typeof c === "string" ? c : (c ?? []).map((p) => p.text ?? "").join(""));
  if (body.messages)
    return body.messages.map((m) => [m.role, m.tool_calls ? m.tool_calls.map((c) => c.function.name).join() : text(m.content)]);
  const turns = [];
  if (body.instructions) turns.push(["system", body.instructions]);
  for (const item of body.input) {
    if (item.type === "function_call") turns.push(["assistant", item.name]);
    else if (item.type === "function_call_output") turns.push(["tool", item.output]);
    else turns.push([item.role, text(item.content)]);
  }
  return turns;
}

// ---------------------------------------------------------------- useChat

/** An in-memory ChatState, as @ai-sdk/react keeps one; `changed` runs after each change. */
function chatState(messages, changed) {
  return {
    status: "ready",
    error: undefined,
    messages,
    pushMessage(m) {
      this.messages = [...this.messages, m];
      changed();
    },
    popMessage() {
      this.messages = this.messages.slice(0, -1);
      changed();
    },
    replaceMessage(i, m) {
      this.messages = [...this.messages.slice(0, i), m, ...this.messages.slice(i + 1)];
      changed();
    },
    snapshot: (x) => structuredClone(x),
  };
}

/** useChat without React: the SDK's AbstractChat with an in-memory state. */
export class TestChat extends AbstractChat {
  #waiters = [];
  constructor({ messages = [], ...init }) {
    super({ ...init, state: chatState(messages, () => this.#changed()) });
  }
  #changed() {
    this.#waiters = this.#waiters.filter(({ until, resolve }) => !(until(this.messages) && (resolve(), true)));
  }
  /** Resolves once `until(messages)` holds (checked after each change). */
  waitFor(until) {
    return new Promise((resolve) => (until(this.messages) ? resolve() : this.#waiters.push({ until, resolve })));
  }
}

/**
 * A chat route over HTTP, as the AI SDK docs write it: the whole UI
 * conversation in, `convertToModelMessages`, `streamText`, a UI message
 * stream out; the request's abort reaches the model call.
 */
export async function startRoute(model, { instructions, tools, stopWhen } = {}) {
  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const { messages } = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    const abort = new AbortController();
    res.on("close", () => res.writableFinished || abort.abort());
    const result = streamText({
      model,
      instructions,
      messages: await convertToModelMessages(messages),
      tools,
      stopWhen,
      abortSignal: abort.signal,
      onError: () => {},
    });
    const response = result.toUIMessageStreamResponse({ originalMessages: messages });
    res.writeHead(response.status, Object.fromEntries(response.headers));
    try {
      for await (const chunk of response.body) res.write(chunk);
    } catch {
      // the client went away
    }
    res.end();
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${server.address().port}/api/chat`;
  return {
    chat: (init = {}) => new TestChat({ transport: new DefaultChatTransport({ api: url }), ...init }),
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}
