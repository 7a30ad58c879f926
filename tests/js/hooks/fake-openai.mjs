// A small OpenAI-compatible HTTP server on 127.0.0.1 for the hook tests.
// Each request takes the next scripted behaviour from a queue (or the
// default one): answer JSON, answer raw text, never answer, send headers and
// stall the body. Every request is recorded with its parsed body and
// headers, so tests can count retries (waits are checked on the hooks' clock,
// tests/js/hooks/check.mjs `manualClock`, never measured).
import { createServer } from "node:http";
import { onBody } from "../fake-openai/common.mjs";

/** A deterministic vector for `text`: what the default embeddings behaviour returns. */
export function fakeVector(text, dims = 4) {
  let h = 2166136261;
  for (const ch of text) h = Math.imul(h ^ ch.codePointAt(0), 16777619) >>> 0;
  return Array.from({ length: dims }, (_, k) => ((h >>> (k * 5)) % 1000) / 1000 - 0.5 + k);
}

// ---- behaviours: (req, res, record) => void -------------------------------

export const json =
  (status, body, headers = {}) =>
  (req, res) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(body));
  };

export const text =
  (status, body, headers = {}) =>
  (req, res) => {
    res.writeHead(status, { "content-type": "text/plain", ...headers });
    res.end(body);
  };

/** Accepts the request and never answers. */
export const hang = () => () => {};

/** Sends a 200 with headers and the start of a body, then stalls forever. */
export const stallBody =
  (start = '{"choices":[') =>
  (req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.write(start);
  };

/**
 * A /embeddings answer computed from the request: `dims` per vector,
 * `shuffle` reverses `data` (items keep their `index`), `edit(data)` may
 * corrupt the answer before it is sent (as an object or a raw string).
 */
export const embeddings =
  ({ dims = 4, shuffle = false, edit, model = "fake-embed" } = {}) =>
  (req, res, record) => {
    const input = record.body.input;
    let data = input.map((t, index) => ({ object: "embedding", index, embedding: fakeVector(t, dims) }));
    if (shuffle) data = data.reverse();
    const tokens = input.reduce((n, t) => n + t.length, 0);
    let body = { object: "list", data, model, usage: { prompt_tokens: tokens, total_tokens: tokens } };
    if (edit) body = edit(body) ?? body;
    res.writeHead(200, { "content-type": "application/json" });
    res.end(typeof body === "string" ? body : JSON.stringify(body));
  };

/** A /chat/completions answer whose content is `content`. */
export const chat = (
  content,
  { usage = { prompt_tokens: 120, completion_tokens: 40, total_tokens: 160 }, model = "fake-chat", finish = "stop" } = {},
) =>
  json(200, {
    id: "chatcmpl-1",
    object: "chat.completion",
    model,
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: finish }],
    usage,
  });

const defaultBehaviour = (req, res, record) => {
  if (req.url.endsWith("/embeddings")) return embeddings()(req, res, record);
  if (req.url.endsWith("/chat/completions")) return chat('{"summary":"ok"}')(req, res, record);
  return json(404, { error: { message: `no route ${req.url}` } })(req, res, record);
};

/**
 * Starts the server. Returns `{ baseURL, requests, script(...behaviours),
 * close() }`; `script` queues behaviours for the next requests, in order.
 */
export async function startFakeOpenAI() {
  const queue = [];
  const requests = [];
  const server = createServer((req, res) => {
    onBody(req, (raw, json) => {
      const body = json ?? raw;
      const record = { method: req.method, url: req.url, headers: req.headers, body, raw, closed: false };
      // Set when the client goes away before an answer ends (an abort).
      res.on("close", () => (record.closed = !res.writableFinished));
      requests.push(record);
      (queue.shift() ?? defaultBehaviour)(req, res, record);
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    script: (...behaviours) => queue.push(...behaviours),
    /** Forgets recorded requests and queued behaviours (between subtests). */
    reset: () => {
      requests.length = 0;
      queue.length = 0;
    },
    close: () =>
      new Promise((resolve) => {
        // Hung and keep-alive connections would keep close() waiting.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
