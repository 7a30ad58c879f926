// The built-in embedder hook against a local OpenAI-compatible server on
// 127.0.0.1, with real `fetch`; plus the shared retry helpers in isolation.
// Node-dependent: the hook's HTTP client on Node's fetch (undici) and AbortSignal.
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { openAICompatibleEmbedder } from "../../dist/node.js";
import { backoffDelay, retryAfterMs, clock, BACKOFF_CAP_MS, RETRY_AFTER_CAP_MS } from "../../dist/hooks/hooks-shared.js";
import { startFakeOpenAI, embeddings, fakeVector, json, text, hang } from "./hooks/fake-openai.mjs";
import { rejectsWith, assertNoSecret, manualClock, recordingFetch, watch, sleepThenRetry, abortedAtDeadline } from "./hooks/check.mjs";

const API_KEY = "sk-test-SECRET-0123456789abcdef";
let server;
before(async () => (server = await startFakeOpenAI()));
after(() => server.close());
beforeEach(() => server.reset());

const embedder = (opts = {}) =>
  openAICompatibleEmbedder({ baseURL: server.baseURL, apiKey: API_KEY, model: "text-embedding-3-small", ...opts });
const texts = (n) => Array.from({ length: n }, (_, i) => `text number ${i} 第${i}条`);
const expectVectors = (result, input, dims = 4) => {
  assert.equal(result.length, input.length);
  result.forEach((v, i) => {
    assert.ok(v instanceof Float32Array);
    assert.deepEqual(Array.from(v), Array.from(Float32Array.from(fakeVector(input[i], dims))));
  });
};

test("success: the request is OpenAI-shaped, vectors come back in input order although the server shuffles them, usage is attached", async () => {
  server.script(embeddings({ shuffle: true, model: "text-embedding-3-small-v2" }));
  const input = texts(5);
  const result = await embedder({ headers: { "x-extra": "1" } })(input);
  expectVectors(result, input);
  assert.deepEqual(result.usage, {
    promptTokens: input.join("").length,
    totalTokens: input.join("").length,
    model: "text-embedding-3-small-v2",
  });
  assert.ok(!Object.keys(result).includes("usage"), "usage is not enumerable");
  const [req] = server.requests;
  assert.equal(req.url, "/v1/embeddings");
  assert.equal(req.headers.authorization, `Bearer ${API_KEY}`);
  assert.equal(req.headers["content-type"], "application/json");
  assert.equal(req.headers["x-extra"], "1");
  assert.deepEqual(req.body, { model: "text-embedding-3-small", input, encoding_format: "float" });
});

test("dimensions is sent and enforced; a trailing slash on baseURL is fine", async () => {
  server.script(embeddings({ dims: 8 }));
  const input = texts(2);
  expectVectors(await embedder({ baseURL: `${server.baseURL}/`, dimensions: 8 })(input), input, 8);
  assert.equal(server.requests[0].url, "/v1/embeddings");
  assert.equal(server.requests[0].body.dimensions, 8);
});

test("batching: 10 texts at batchSize 3 make 4 requests in order; usage is summed; concurrency keeps the order", async () => {
  const input = texts(10);
  const result = await embedder({ batchSize: 3 })(input);
  expectVectors(result, input);
  assert.deepEqual(
    server.requests.map((r) => r.body.input),
    [input.slice(0, 3), input.slice(3, 6), input.slice(6, 9), input.slice(9)],
  );
  assert.equal(result.usage.promptTokens, input.join("").length);
  server.reset();
  server.script(...Array.from({ length: 4 }, () => embeddings({ shuffle: true })));
  expectVectors(await embedder({ batchSize: 3, concurrency: 3 })(input), input);
  assert.equal(server.requests.length, 4);
});

test("no texts: no request, an empty result with zero usage", async () => {
  const result = await embedder()([]);
  assert.deepEqual([...result], []);
  assert.deepEqual(result.usage, { promptTokens: 0, totalTokens: 0, model: "text-embedding-3-small" });
  assert.equal(server.requests.length, 0);
});

test("500 then success: retried after a backoff of 125–250 ms", async (t) => {
  const manual = manualClock(t, clock);
  const { fetch, calls } = recordingFetch(clock);
  server.script(json(500, { error: { message: "overloaded" } }), embeddings());
  const input = texts(3);
  const call = watch(embedder({ timeoutMs: 60_000, fetch })(input));
  const ms = await sleepThenRetry(manual, calls, 60_000);
  assert.ok(ms >= 125 && ms <= 250, `backoff was ${ms} ms`);
  expectVectors(await call.promise, input);
  assert.equal(server.requests.length, 2);
});

test("500 every time: EMBEDDER_HTTP after maxRetries + 1 attempts", async () => {
  server.script(...Array.from({ length: 3 }, () => text(503, "upstream unavailable")));
  const error = await rejectsWith(embedder({ maxRetries: 2 })(texts(1)), "EMBEDDER_HTTP");
  assert.equal(server.requests.length, 3);
  assert.equal(error.status, 503);
  assert.equal(error.attempts, 3);
  assert.match(error.message, /503.*upstream unavailable/);
});

test("429 with retry-after: 1 waits a second, then succeeds", async (t) => {
  const manual = manualClock(t, clock);
  const { fetch, calls } = recordingFetch(clock);
  server.script(json(429, { error: { message: "rate limited" } }, { "retry-after": "1" }), embeddings());
  const call = watch(embedder({ timeoutMs: 60_000, fetch })(texts(2)));
  assert.equal(await sleepThenRetry(manual, calls, 60_000), 1000);
  expectVectors(await call.promise, texts(2));
  assert.equal(server.requests.length, 2);
});

test("400: no retry, EMBEDDER_HTTP with the status and a body excerpt, and the API key nowhere", async () => {
  // Real servers do echo the key ("Incorrect API key provided: sk-…").
  server.script(json(400, { error: { message: `Incorrect API key provided: ${API_KEY}. Also bad input.` } }));
  const error = await rejectsWith(embedder()(texts(1)), "EMBEDDER_HTTP");
  assert.equal(server.requests.length, 1);
  assert.equal(error.status, 400);
  assert.match(error.message, /HTTP 400/);
  assert.match(error.message, /Incorrect API key provided: \[redacted\]/);
  assertNoSecret(error, API_KEY);
});

test("a long error body is cut to a short excerpt", async () => {
  server.script(text(422, "x".repeat(5000)));
  const error = await rejectsWith(embedder()(texts(1)), "EMBEDDER_HTTP");
  assert.ok(error.message.length < 400, `message is ${error.message.length} chars`);
});

test("timeout: a server that never answers is aborted at timeoutMs, per attempt, with EMBEDDER_TIMEOUT", async (t) => {
  const manual = manualClock(t, clock);
  const { fetch, calls } = recordingFetch(clock);
  server.script(hang(), hang());
  const call = watch(embedder({ timeoutMs: 150, maxRetries: 1, fetch })(texts(1)));
  await abortedAtDeadline(manual, calls, server.requests, 150, 2);
  const error = await rejectsWith(call.promise, "EMBEDDER_TIMEOUT");
  assert.equal(error.attempts, 2);
  assert.equal(server.requests.length, 2);
  assertNoSecret(error, API_KEY);
});

test("connection refused: retried, then EMBEDDER_HTTP naming a network error", async () => {
  const closed = createServer();
  await new Promise((r) => closed.listen(0, "127.0.0.1", r));
  const { port } = closed.address();
  await new Promise((r) => closed.close(r));
  const error = await rejectsWith(embedder({ baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 1 })(texts(1)), "EMBEDDER_HTTP");
  assert.match(error.message, /network error/);
  assert.equal(error.attempts, 2);
  assertNoSecret(error, API_KEY);
});

test("wrong dimension: different from `dimensions`, or inconsistent between items or batches → EMBEDDER_INVALID", async () => {
  server.script(embeddings({ dims: 3 }));
  assert.match((await rejectsWith(embedder({ dimensions: 4 })(texts(2)), "EMBEDDER_INVALID")).message, /3 dimensions, expected 4/);
  server.script(embeddings({ edit: (b) => void b.data[1].embedding.push(0.5) }));
  await rejectsWith(embedder()(texts(3)), "EMBEDDER_INVALID");
  server.script(embeddings({ dims: 4 }), embeddings({ dims: 5 }));
  await rejectsWith(embedder({ batchSize: 1 })(texts(2)), "EMBEDDER_INVALID");
});

test("NaN, non-numeric, f32-overflowing or empty values → EMBEDDER_INVALID", async () => {
  // JSON has no NaN; a server that writes it anyway sends invalid JSON.
  server.script(embeddings({ edit: (b) => JSON.stringify(b).replace(/-?\d+\.\d+/, "NaN") }));
  await rejectsWith(embedder()(texts(2)), "EMBEDDER_INVALID");
  for (const bad of ["NaN", null, 1e39, [1]]) {
    server.script(embeddings({ edit: (b) => void (b.data[0].embedding[2] = bad) }));
    await rejectsWith(embedder()(texts(2)), "EMBEDDER_INVALID");
  }
  server.script(embeddings({ edit: (b) => b.data.forEach((d) => (d.embedding = [])) }));
  await rejectsWith(embedder()(texts(2)), "EMBEDDER_INVALID");
});

test("wrong count, duplicate or out-of-range index, no data → EMBEDDER_INVALID", async () => {
  server.script(embeddings({ edit: (b) => void b.data.pop() }));
  assert.match((await rejectsWith(embedder()(texts(3)), "EMBEDDER_INVALID")).message, /expected 3 embeddings, got 2/);
  server.script(embeddings({ edit: (b) => void (b.data[1].index = 0) }));
  await rejectsWith(embedder()(texts(3)), "EMBEDDER_INVALID");
  server.script(embeddings({ edit: (b) => void (b.data[1].index = 7) }));
  await rejectsWith(embedder()(texts(3)), "EMBEDDER_INVALID");
  server.script(json(200, { object: "list" }));
  await rejectsWith(embedder()(texts(3)), "EMBEDDER_INVALID");
  server.script(text(200, "<html>proxy login</html>"));
  await rejectsWith(embedder()(texts(3)), "EMBEDDER_INVALID");
});

test("tolerated shapes: items without `index` (array order) and base64 vectors", async () => {
  const input = texts(2);
  server.script(embeddings({ edit: (b) => b.data.forEach((d) => delete d.index) }));
  expectVectors(await embedder()(input), input);
  const b64 = (arr) => Buffer.from(Float32Array.from(arr).buffer).toString("base64");
  server.script(embeddings({ edit: (b) => b.data.forEach((d) => (d.embedding = b64(d.embedding))) }));
  expectVectors(await embedder()(input), input);
});

test("asymmetric models: per kind, input_type (or another field), a model and a prefix; no kind is a document", async () => {
  const input = ["周末去哪里", "weekend plans"];
  const e5 = embedder({ inputType: { query: "query", document: "passage" } });
  await e5(input, { kind: "query" });
  await e5(input, { kind: "document" });
  await e5(input);
  assert.deepEqual(
    server.requests.map((r) => r.body.input_type),
    ["query", "passage", "passage"],
  );
  assert.deepEqual(server.requests[0].body.input, input, "input_type alone leaves the texts as they are");
  server.reset();
  const split = embedder({
    queryModel: "m-query",
    documentModel: "m-doc",
    queryPrefix: "query: ",
    documentPrefix: "passage: ",
    inputType: { query: "search_query", document: "search_document" },
    inputTypeField: "task",
  });
  const result = await split(input, { kind: "query" });
  expectVectors(
    result,
    input.map((t) => `query: ${t}`),
  );
  await split(input, { kind: "document" });
  const [q, d] = server.requests.map((r) => r.body);
  assert.deepEqual(q, { model: "m-query", input: input.map((t) => `query: ${t}`), encoding_format: "float", task: "search_query" });
  assert.deepEqual(d, { model: "m-doc", input: input.map((t) => `passage: ${t}`), encoding_format: "float", task: "search_document" });
  assert.equal(result.usage.model, "fake-embed", "the model the server reports");
  server.reset();
  await embedder()(input, { kind: "query" });
  assert.deepEqual(
    server.requests[0].body,
    { model: "text-embedding-3-small", input, encoding_format: "float" },
    "a symmetric model gets no extra field",
  );
  await rejectsWith(embedder()(input, { kind: "passage" }), "INVALID_INPUT");
});

test("bad options throw INVALID_INPUT at once, without echoing the key", async () => {
  const base = { baseURL: server.baseURL, apiKey: API_KEY, model: "m" };
  for (const bad of [
    { baseURL: "api.openai.com" },
    { model: "" },
    { batchSize: 0 },
    { dimensions: 1.5 },
    { timeoutMs: -1 },
    { maxRetries: -1 },
    { fetch: "no" },
    { headers: { "bad name": API_KEY } },
    { apiKey: [API_KEY] },
    { queryModel: "" },
    { documentPrefix: 3 },
    { inputType: "query" },
    { inputType: { query: "q" } },
    { inputType: { query: "q", document: "d" }, inputTypeField: "" },
  ]) {
    assert.throws(
      () => openAICompatibleEmbedder({ ...base, ...bad }),
      (e) => {
        assert.equal(e.code, "INVALID_INPUT", JSON.stringify(Object.keys(bad)));
        assertNoSecret(e, API_KEY);
        return true;
      },
    );
  }
  await rejectsWith(embedder()("not an array"), "INVALID_INPUT");
});

test("a custom fetch is used (and called with globalThis as `this`)", async () => {
  let calls = 0;
  const input = texts(1);
  const result = await embedder({
    fetch(url, init) {
      calls++;
      assert.equal(this, globalThis);
      return fetch(url, init);
    },
  })(input);
  expectVectors(result, input);
  assert.equal(calls, 1);
});

test("shared helpers: Retry-After in seconds, HTTP date, retry-after-ms, capped; backoff bounded with jitter", () => {
  const h = (o) => new Headers(o);
  const now = Date.parse("2030-01-01T00:00:00Z");
  assert.equal(retryAfterMs(h({ "retry-after": "2" }), now), 2000);
  assert.equal(retryAfterMs(h({ "retry-after": "0.5" }), now), 500);
  assert.equal(retryAfterMs(h({ "retry-after": new Date(now + 3000).toUTCString() }), now), 3000);
  assert.equal(retryAfterMs(h({ "retry-after": new Date(now - 3000).toUTCString() }), now), 0);
  assert.equal(retryAfterMs(h({ "retry-after": "3600" }), now), RETRY_AFTER_CAP_MS);
  assert.equal(retryAfterMs(h({ "retry-after-ms": "1200", "retry-after": "5" }), now), 1200);
  assert.equal(retryAfterMs(h({ "retry-after": "soon" }), now), undefined);
  assert.equal(retryAfterMs(h({}), now), undefined);
  assert.equal(
    backoffDelay(0, () => 0),
    125,
  );
  assert.equal(
    backoffDelay(0, () => 1),
    250,
  );
  assert.equal(
    backoffDelay(3, () => 1),
    2000,
  );
  assert.equal(
    backoffDelay(20, () => 1),
    BACKOFF_CAP_MS,
  );
  assert.equal(
    backoffDelay(20, () => 0),
    BACKOFF_CAP_MS / 2,
  );
});
