// A local stand-in for the OpenAI and DeepSeek HTTP APIs, for tests that drive
// the real client packages (`openai`, `@ai-sdk/openai`) against it.
//
//   import { startFakeOpenAI } from "./fake-openai/server.mjs";
//   const api = await startFakeOpenAI({ flavour: "openai", script: [turn, ...] });
//   const client = new OpenAI({ baseURL: api.url, apiKey: api.apiKey });
//   ...
//   api.requests   // every request, in order (see "Records" below)
//   await api.close();
//
// startFakeOpenAI({ flavour = "openai" | "deepseek", script = [] })
//   Listens on 127.0.0.1, on a free port. Resolves to
//   { url, apiKey, requests, push(...turns), remaining, rejected(), close() }:
//   `url` is the base URL clients take (ends in /v1; OPENAI_BASE_URL works),
//   `apiKey` any key (a request without `Authorization: Bearer …` gets 401,
//   as from the real APIs), `push` queues more turns, `remaining` counts the
//   turns not yet used, `rejected()` lists the requests answered >= 400.
//
// Endpoints: POST /v1/chat/completions (both flavours), POST /v1/responses
// (openai only; DeepSeek has none and answers 404), anything else 404.
//
// Turns: each valid request to either endpoint takes the next turn of the
// script (a rejected request takes none). A turn is what the "model" does:
//   {
//     content?: string,          // the assistant text (default "", or null with toolCalls/refusal)
//     reasoning?: string,        // DeepSeek thinking mode: `reasoning_content`; /responses: a
//                                // reasoning item (its summary text only when the request asks
//                                // `reasoning: { summary }`, its encrypted_content only with
//                                // `include: ["reasoning.encrypted_content"]`)
//     toolCalls?: [{ name, arguments?: object | string, id? }],   // ids made up when absent
//     refusal?: string,          // OpenAI's `refusal` (chat) / refusal part (/responses)
//     annotations?: [...],       // url_citation annotations on the message / output_text
//     usage?: { input?, output?, cached?, reasoning? },   // token numbers the answer reports;
//                                // `output` includes `reasoning`. Unscripted numbers are a
//                                // stand-in of 4 characters a token, not a tokenizer's count.
//     finishReason?: string,     // default "tool_calls" with calls, else "stop";
//                                // "length" makes /responses answer status "incomplete"
//     model?: string,            // the `model` the answer names (default: the dated snapshot
//                                // the real API reports for the requested alias, e.g.
//                                // gpt-4o → gpt-4o-2024-08-06; unknown names are echoed)
//     stream?: { stallAfter?: n, failAfter?: n },   // a stream stops after n events and hangs
//                                // (the client must abort), or the connection is destroyed
//     status?: number, error?: { message, type?, code?, param? }, headers?: {...}
//                                // answer this HTTP error instead (e.g. 429 + retry-after)
//   }
// or a string (its `content`), or a function `(request) => turn` called with
// `{ endpoint, body, flavour }` once the request is known valid (to answer
// from what was sent, e.g. from a tool result). When the script runs out the
// server answers 400 with type "fake_script_error", so a test that makes
// one call too many fails loudly instead of getting a made-up answer.
//
// Answers carry every field the real APIs send. Chat, openai: id, object,
// created, model, service_tier, system_fingerprint, choices[].message with
// content, refusal: null, annotations: [], audio: null, tool_calls;
// logprobs: null, finish_reason; usage with prompt_tokens_details
// (cached_tokens, audio_tokens) and completion_tokens_details
// (reasoning_tokens, audio_tokens, accepted/rejected_prediction_tokens).
// Chat, deepseek: UUID ids, `reasoning_content` in thinking mode (any model
// but deepseek-chat, unless `thinking: { type }` says otherwise), tool calls
// with their `index`, usage with prompt_cache_hit_tokens /
// prompt_cache_miss_tokens. `stream: true` answers SSE chunks (see
// chat.mjs); `stream_options.include_usage` adds the usage chunk with empty
// choices before `data: [DONE]`. /responses: a full `response` object or
// its typed event stream (see responses.mjs).
//
// Rejections (HTTP 400 with an OpenAI-shaped `{ error }` body), as the real
// APIs answer them: unknown top-level parameters; unknown roles; fields a
// request message of that role cannot carry (response-only fields sent back:
// `annotations`, `logprobs`, `reasoning`, `reasoning_details`, OpenAI-side
// `reasoning_content`, `audio` with more than `id`); bad content parts for a
// role; a tool message answering no call of the assistant message before it;
// tool calls left unanswered before the next message or the end; DeepSeek
// thinking mode: an assistant message without its `reasoning_content` in a
// stretch (between user messages) that made a tool call; /responses: see
// responses.mjs. OpenAI's own strictness about extra message fields differs
// between models (older ones answer "Additional properties are not
// allowed"); this server takes the strict side on purpose.
//
// Records: `requests[i]` is { method, path, endpoint ("chat.completions" |
// "responses" | null), headers, body (parsed), status, error (the error body
// or null), turn (the normalized turn used, or null), response (the object
// answered, or the one a stream adds up to), events (SSE payloads sent),
// closed (the client went away before the answer ended) }.
import { createServer } from "node:http";
import { ApiError, argumentsOf, idMaker, onBody, roughTokens } from "./common.mjs";
import * as chat from "./chat.mjs";
import * as responses from "./responses.mjs";

const TURN_KEYS = [
  "content",
  "reasoning",
  "toolCalls",
  "refusal",
  "annotations",
  "usage",
  "finishReason",
  "model",
  "stream",
  "status",
  "error",
  "headers",
];

const scriptError = (message) => new ApiError(`fake-openai: ${message}`, { type: "fake_script_error" });

/** A script turn with every field present (nulls and empty lists where the script says nothing). */
function normalize(turn) {
  if (typeof turn === "string") turn = { content: turn };
  for (const k of Object.keys(turn ?? {})) if (!TURN_KEYS.includes(k)) throw scriptError(`unknown turn field '${k}'`);
  const toolCalls = (turn.toolCalls ?? []).map((c) => {
    if (typeof c?.name !== "string") throw scriptError("every toolCalls entry needs a name");
    return { id: c.id, name: c.name, arguments: c.arguments ?? {} };
  });
  const refusal = turn.refusal ?? null;
  return {
    content: turn.content ?? (toolCalls.length || refusal !== null ? null : ""),
    reasoning: turn.reasoning ?? null,
    toolCalls,
    refusal,
    annotations: turn.annotations ?? [],
    usage: turn.usage ?? {},
    finishReason: turn.finishReason,
    model: turn.model,
    stream: turn.stream ?? {},
    status: turn.status,
    error: turn.error,
    headers: turn.headers ?? {},
  };
}

/** The usage numbers an answer reports: scripted ones, the rest estimated. */
function usageFor(turn, promptTokens) {
  const u = turn.usage;
  const reasoning = u.reasoning ?? (turn.reasoning ? roughTokens(turn.reasoning) : 0);
  const visible =
    roughTokens(turn.content ?? "") +
    roughTokens(turn.refusal ?? "") +
    turn.toolCalls.reduce((n, c) => n + roughTokens(c.name) + roughTokens(argumentsOf(c.arguments)), 0);
  const usage = { input: u.input ?? promptTokens, output: u.output ?? visible + reasoning, cached: u.cached ?? 0, reasoning };
  if (usage.cached > usage.input || usage.reasoning > usage.output)
    throw scriptError("usage: cached must be <= input and reasoning <= output");
  return usage;
}

export async function startFakeOpenAI({ flavour = "openai", script = [] } = {}) {
  if (!["openai", "deepseek"].includes(flavour)) throw new Error(`unknown flavour ${flavour}`);
  const queue = [...script];
  const requests = [];
  const ids = idMaker();
  const issued = new Map(); // /responses output items produced, by id

  const answer = (res, record, status, body, headers = {}) => {
    record.status = status;
    if (status >= 400) record.error = body;
    else record.response = body;
    res.writeHead(status, { "content-type": "application/json", "x-request-id": ids("req_", 32), ...headers });
    res.end(JSON.stringify(body));
  };

  const handle = (req, res, record) => {
    const route = { "/v1/chat/completions": "chat.completions", "/v1/responses": "responses" }[record.path];
    if (req.method !== "POST" || !route || (route === "responses" && flavour === "deepseek")) {
      throw new ApiError(`Invalid URL (${req.method} ${record.path})`, { status: 404 });
    }
    record.endpoint = route;
    if (!/^Bearer \S+/.test(req.headers.authorization ?? "")) {
      throw new ApiError(
        "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
        { status: 401 },
      );
    }
    if (record.body === undefined)
      throw new ApiError(
        "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly.)",
      );
    const api = route === "responses" ? responses : chat;
    if (route === "responses") responses.validateResponses(record.body, issued);
    else chat.validateChat(record.body, flavour);

    if (queue.length === 0) throw scriptError(`no scripted turn left for request ${requests.length} (${route})`);
    let turn = queue.shift();
    if (typeof turn === "function") turn = turn({ endpoint: route, body: record.body, flavour });
    turn = record.turn = normalize(turn);
    if (turn.status !== undefined) {
      const e = new ApiError(turn.error?.message ?? "scripted error", { status: turn.status, ...turn.error });
      return answer(res, record, turn.status, e.body, turn.headers);
    }
    const ctx = {
      flavour,
      body: record.body,
      turn,
      ids,
      issued,
      created: Math.floor(Date.now() / 1000),
      usage: usageFor(turn, api.promptOf(record.body)),
    };
    if (record.body.stream !== true) {
      return answer(res, record, 200, route === "responses" ? responses.responseObject(ctx) : chat.chatCompletion(ctx));
    }
    record.status = 200;
    res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      "x-request-id": ids("req_", 32),
    });
    const { stallAfter, failAfter } = turn.stream;
    const control = (n) => {
      if (failAfter !== undefined && n >= failAfter) {
        res.destroy();
        return false;
      }
      return stallAfter === undefined || n < stallAfter;
    };
    const { sent, whole } = route === "responses" ? responses.streamResponses(res, ctx, control) : chat.streamChat(res, ctx, control);
    record.events = sent;
    record.response = whole;
  };

  const server = createServer((req, res) => {
    onBody(req, (raw, body) => {
      const record = {
        method: req.method,
        path: new URL(req.url, "http://x").pathname,
        endpoint: null,
        headers: req.headers,
        body,
        status: null,
        error: null,
        turn: null,
        response: null,
        events: [],
        closed: false,
      };
      res.on("close", () => (record.closed = !res.writableFinished));
      requests.push(record);
      try {
        handle(req, res, record);
      } catch (e) {
        // A bug in a test's turn function is answered too, never a crashed server.
        const err = e instanceof ApiError ? e : scriptError(`a turn function threw: ${e?.stack ?? e}`);
        if (!res.headersSent) answer(res, record, err.status, err.body);
        else res.destroy();
      }
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/v1`,
    apiKey: "sk-fake-openai-test-key",
    flavour,
    requests,
    push: (...turns) => queue.push(...turns),
    get remaining() {
      return queue.length;
    },
    rejected: () => requests.filter((r) => r.status >= 400),
    close: () =>
      new Promise((resolve) => {
        // Stalled streams and keep-alive sockets would keep close() waiting.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
