// The reranker hook and the built-in Cohere-style /rerank client, against a
// local server on 127.0.0.1 that answers as Cohere's v2 API does (every
// field: id, results sorted by relevance, meta with api_version and
// billed_units), with real fetch.
// Node-dependent: the /rerank client on Node's fetch (undici).
import { test, before, after, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { MemoryController, rerankClient } from "../../dist/node.js";
import { startFakeOpenAI, json, text } from "./hooks/fake-openai.mjs";
import { rejectsWith, assertNoSecret } from "./hooks/check.mjs";

const API_KEY = "sk-rerank-SECRET-0123456789";
let server;
before(async () => (server = await startFakeOpenAI()));
after(() => server.close());
beforeEach(() => server.reset());

/** Cohere v2: relevance = share of the query's words in the document, results best first. */
const cohere = () => (req, res, record) => {
  const { query, documents, top_n } = record.body;
  const words = query.toLowerCase().match(/\w+/g);
  const results = documents
    .map((d, index) => ({ index, relevance_score: words.filter((w) => d.toLowerCase().includes(w)).length / words.length }))
    .sort((a, b) => b.relevance_score - a.relevance_score)
    .slice(0, top_n);
  json(200, {
    id: "07734bd2-2473-4f07-94e1-0d9f0e6843cf",
    results,
    meta: { api_version: { version: "2", is_experimental: false }, billed_units: { search_units: 1 } },
  })(req, res);
};

const client = (opts = {}) => rerankClient({ baseURL: server.baseURL, apiKey: API_KEY, model: "rerank-v3.5", maxRetries: 0, ...opts });

async function memoryWith(reranker) {
  const memory = await MemoryController.create({ reranker });
  for (const t of [
    "the hotel in Chengdu is booked",
    "hotel wifi password is 1234",
    "Chengdu hotel check-in is at 3pm, hotel near Chunxi Road",
    "hotel hotel hotel",
  ])
    await memory.add({ role: "user", content: t });
  return memory;
}

test("the client sends Cohere's request and maps results back to input order", async () => {
  server.script(cohere());
  const scores = await client()("chengdu hotel road", ["hotel", "Chengdu hotel on Chunxi Road", "nothing"]);
  assert.deepEqual(scores, [1 / 3, 1, 0]);
  const [req] = server.requests;
  assert.equal(req.url, "/v1/rerank");
  assert.equal(req.headers.authorization, `Bearer ${API_KEY}`);
  assert.deepEqual(req.body, {
    model: "rerank-v3.5",
    query: "chengdu hotel road",
    documents: ["hotel", "Chengdu hotel on Chunxi Road", "nothing"],
    top_n: 3,
  });
});

test("other shapes: Voyage's data, TEI's bare array with score; left-out documents score -Infinity", async () => {
  server.script(
    json(200, { object: "list", data: [{ relevance_score: 0.9, index: 1 }], model: "rerank-2", usage: { total_tokens: 12 } }),
    json(200, [
      { index: 0, score: 0.2 },
      { index: 1, score: 0.7 },
    ]),
  );
  assert.deepEqual(await client()("q", ["a", "b"]), [-Infinity, 0.9]);
  assert.deepEqual(await client()("q", ["a", "b"]), [0.2, 0.7]);
});

test("search is reranked: more candidates than k go to the reranker, the best k come back with both scores", async () => {
  server.script(cohere());
  const memory = await memoryWith(client());
  const hits = await memory.search("Chengdu hotel road", { k: 2 });
  assert.equal(hits.reranked, true);
  assert.equal(hits.length, 2);
  assert.equal(server.requests[0].body.documents.length, 4, "every candidate (up to 3k, at least 20) is scored");
  assert.equal(hits[0].text, "Chengdu hotel check-in is at 3pm, hotel near Chunxi Road");
  assert.equal(hits[0].score, 1);
  assert.equal(typeof hits[0].fusedScore, "number");
  assert.equal(hits.mode, "lexical");
});

test("a failing or wrong reranker leaves the fused order and says why; nothing is dropped", async () => {
  const memory = await memoryWith(client());
  const plain = await (await memoryWith(undefined)).search("Chengdu hotel road", { k: 3 });
  server.script(text(500, "upstream down"));
  const failed = await memory.search("Chengdu hotel road", { k: 3 });
  assert.deepEqual(
    failed.map((h) => h.text),
    plain.map((h) => h.text),
  );
  assert.equal(failed.degraded.code, "RERANKER_HTTP");
  assert.equal(failed.reranked, undefined);
  assertNoSecret(failed.degraded, API_KEY);
  const short = await memoryWith(async () => [1]);
  const wrong = await short.search("Chengdu hotel road", { k: 3 });
  assert.equal(wrong.degraded.code, "RERANKER_INVALID");
  assert.deepEqual(
    wrong.map((h) => h.text),
    plain.map((h) => h.text),
  );
  server.script(json(200, { results: [{ index: 9, relevance_score: 1 }] }));
  await rejectsWith(client()("q", ["a"]), "RERANKER_INVALID");
});

test("bad options: a reranker that is not a function, a client without a model", async () => {
  await assert.rejects(MemoryController.create({ reranker: "yes" }), { code: "INVALID_INPUT" });
  assert.throws(() => rerankClient({ baseURL: server.baseURL, model: "" }), { code: "INVALID_INPUT" });
});
