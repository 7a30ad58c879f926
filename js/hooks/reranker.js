// The optional reranker hook: `(query, texts) => Promise<number[]>`, one
// score per candidate, higher is better. `search` asks the index for more
// candidates than it returns, has the reranker score them, and keeps the
// best `k`; if the reranker fails or answers nonsense, the fused order
// stands and the result's `degraded` says why (nothing is dropped).
// Plus a built-in client for Cohere-style `POST {baseURL}/rerank`
// endpoints (Cohere v2, Jina, Voyage, vLLM, Infinity, llama.cpp, TEI).
import { clientConfig, postJSON } from "./hooks-shared.js";
import { memoryError } from "../internal/errors.js";

const WHAT = "rerankClient";

/**
 * A reranker over `POST {baseURL}/rerank` with `{ model, query, documents,
 * top_n }`. Reads `results` (Cohere, Jina, vLLM, Infinity), `data` (Voyage)
 * or a bare array (TEI), each item `{ index, relevance_score | score }`.
 * Candidates the server leaves out score -Infinity (they keep their fused
 * order, after the scored ones).
 */
export function rerankClient(options) {
  const cfg = clientConfig(options, WHAT, 15000);
  const { model } = options;
  return async function rerank(query, texts) {
    if (typeof query !== "string" || !Array.isArray(texts) || texts.some((t) => typeof t !== "string")) {
      throw memoryError("INVALID_INPUT", `${WHAT}: expected (query: string, texts: string[])`);
    }
    if (texts.length === 0) return [];
    const json = await postJSON(cfg, "/rerank", { model, query, documents: texts, top_n: texts.length }, "RERANKER");
    const items = Array.isArray(json) ? json : (json?.results ?? json?.data);
    const invalid = (why) => memoryError("RERANKER_INVALID", `/rerank: ${why}`);
    if (!Array.isArray(items)) throw invalid("the response has no results array");
    const scores = new Array(texts.length).fill(-Infinity);
    for (const item of items) {
      const score = item?.relevance_score ?? item?.score;
      if (!Number.isInteger(item?.index) || item.index < 0 || item.index >= texts.length)
        throw invalid(`a result has index ${JSON.stringify(item?.index)}, expected 0..${texts.length - 1}`);
      if (!Number.isFinite(score)) throw invalid(`result ${item.index} has no finite relevance_score`);
      scores[item.index] = score;
    }
    return scores;
  };
}

/** How many candidates the reranker sees for `k` results. */
const depth = (k) => Math.min(Math.max(3 * k, 20), 100);

/**
 * `search` (a controller method) composed with the reranker hook: when
 * `rerankerOf(controller)` gives one, the index is asked for more
 * candidates, the reranker scores them and the best `k` are kept. The
 * controller is not changed: every controller's `search` is this one
 * function, and a controller opened without a reranker searches as before.
 * A failing reranker never fails the search: the fused order is returned
 * with `degraded`.
 */
export function withReranking(search, rerankerOf) {
  return async function (query, options) {
    const reranker = rerankerOf(this);
    if (reranker === undefined) return search.call(this, query, options);
    const k = options?.k ?? 10;
    const hits = await search.call(this, query, Number.isInteger(k) && k > 0 ? { ...options, k: depth(k) } : options);
    const keep = (list, extra) => Object.assign(list.slice(0, k), { mode: hits.mode }, hits.degraded && { degraded: hits.degraded }, extra);
    if (hits.length < 2) return keep(hits);
    let scores;
    try {
      // The query as memory stores text: redacted, like the candidates.
      scores = await reranker(
        typeof query === "string" ? (await this.redact(query)).text : query,
        hits.map((h) => h.text),
      );
      if (!Array.isArray(scores) || scores.length !== hits.length || scores.some((s) => typeof s !== "number" || Number.isNaN(s))) {
        throw memoryError(
          "RERANKER_INVALID",
          `the reranker returned ${Array.isArray(scores) ? `${scores.length} scores` : typeof scores} for ${hits.length} candidates`,
        );
      }
    } catch (e) {
      return keep(hits, { degraded: { code: e?.code ?? "RERANKER_FAILED", message: String(e?.message ?? e) } });
    }
    // Stable: equal scores keep the fused order.
    const order = hits.map((h, i) => i).sort((a, b) => scores[b] - scores[a] || a - b);
    return keep(
      order.map((i) => ({ ...hits[i], fusedScore: hits[i].score, score: scores[i] })),
      { reranked: true },
    );
  };
}
