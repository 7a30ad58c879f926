// The built-in embedder hook: an OpenAI-compatible `/embeddings` client over
// `fetch` (OpenAI, Azure-style proxies, DeepSeek-compatible gateways, Ollama,
// vLLM, LM Studio...). It returns one Float32Array per input text, in input
// order, and rejects with a MemoryError rather than hand the vector index
// anything it would have to reject itself (NaN, ragged or wrong dimensions).
import { clientConfig, postJSON } from "./hooks-shared.js";
import { memoryError } from "../internal/errors.js";

const WHAT = "openAICompatibleEmbedder";

/**
 * `(texts, { kind }) => Promise<Float32Array[]>`; the array also carries
 * `usage` (`{ promptTokens, totalTokens, model }`, summed over batches) so
 * the controller can charge the call. `kind` ("query" | "document", default
 * "document") picks the model, `input_type` and prefix of asymmetric models.
 */
export function openAICompatibleEmbedder(options) {
  const cfg = clientConfig(options, WHAT, 15000);
  const { dimensions, batchSize = 64, concurrency = 1 } = options;
  const perKind = asymmetry(options);
  if (dimensions !== undefined && !(Number.isInteger(dimensions) && dimensions > 0)) {
    throw memoryError("INVALID_INPUT", `${WHAT}: dimensions must be a positive integer`);
  }
  if (!(Number.isInteger(batchSize) && batchSize > 0)) throw memoryError("INVALID_INPUT", `${WHAT}: batchSize must be a positive integer`);
  if (!(Number.isInteger(concurrency) && concurrency > 0))
    throw memoryError("INVALID_INPUT", `${WHAT}: concurrency must be a positive integer`);

  return async function embed(texts, how) {
    if (!Array.isArray(texts) || texts.some((t) => typeof t !== "string")) {
      throw memoryError("INVALID_INPUT", `${WHAT}: texts must be an array of strings`);
    }
    const kind = how?.kind ?? "document";
    if (kind !== "query" && kind !== "document") throw memoryError("INVALID_INPUT", `${WHAT}: kind must be "query" or "document"`);
    const { model, inputType, prefix } = perKind[kind];
    const out = new Array(texts.length);
    const usage = { promptTokens: 0, totalTokens: 0, model };
    // `dim` is shared by all batches: every vector of one call has the same
    // dimension, the configured one when `dimensions` is given.
    const state = { dim: dimensions, reportedModel: undefined };
    const starts = [];
    for (let i = 0; i < texts.length; i += batchSize) starts.push(i);

    // A small pool of workers taking batches in order; the first failure
    // stops the others from starting new batches.
    let next = 0;
    let failed = false;
    const worker = async () => {
      while (!failed && next < starts.length) {
        const start = starts[next++];
        const input = texts.slice(start, start + batchSize);
        const body = { model, input: prefix ? input.map((t) => prefix + t) : input, encoding_format: "float" };
        if (dimensions !== undefined) body.dimensions = dimensions;
        if (inputType !== undefined) body[perKind.inputTypeField] = inputType;
        try {
          const json = await postJSON(cfg, "/embeddings", body, "EMBEDDER");
          const vectors = toVectors(json, input.length, state);
          for (let j = 0; j < vectors.length; j++) out[start + j] = vectors[j];
          addUsage(usage, json, state);
        } catch (e) {
          failed = true;
          throw e;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, starts.length) }, worker));
    if (state.reportedModel) usage.model = state.reportedModel;
    // Non-enumerable: the result still compares and serializes as a plain array.
    Object.defineProperty(out, "usage", { value: usage, enumerable: false, writable: true, configurable: true });
    return out;
  };
}

/**
 * Per kind: the model (`queryModel` / `documentModel`, else `model`), the
 * value of the input-type field (`inputType: { query, document }`, sent as
 * `inputTypeField`, default "input_type") and a prefix for each text
 * (`queryPrefix` / `documentPrefix`, e.g. E5's "query: " / "passage: ").
 */
function asymmetry(options) {
  const {
    model,
    queryModel = model,
    documentModel = model,
    inputType,
    inputTypeField = "input_type",
    queryPrefix = "",
    documentPrefix = "",
  } = options;
  const bad = (what) => memoryError("INVALID_INPUT", `${WHAT}: ${what}`);
  for (const [name, v] of [
    ["queryModel", queryModel],
    ["documentModel", documentModel],
  ]) {
    if (typeof v !== "string" || v === "") throw bad(`${name} must be a non-empty string`);
  }
  for (const [name, v] of [
    ["queryPrefix", queryPrefix],
    ["documentPrefix", documentPrefix],
    ["inputTypeField", inputTypeField],
  ]) {
    if (typeof v !== "string") throw bad(`${name} must be a string`);
  }
  if (inputType !== undefined && !(typeof inputType?.query === "string" && typeof inputType?.document === "string")) {
    throw bad('inputType must be { query: string, document: string }, e.g. { query: "query", document: "passage" }');
  }
  if (inputType !== undefined && inputTypeField === "") throw bad("inputTypeField must be a non-empty string");
  return {
    inputTypeField,
    query: { model: queryModel, inputType: inputType?.query, prefix: queryPrefix },
    document: { model: documentModel, inputType: inputType?.document, prefix: documentPrefix },
  };
}

const invalid = (message) => memoryError("EMBEDDER_INVALID", `/embeddings: ${message}`);

/** The batch's vectors in input order, from `data[].index` (or position when no item has one). */
function toVectors(json, count, state) {
  const data = json?.data;
  if (!Array.isArray(data)) throw invalid("the response has no data array");
  if (data.length !== count) throw invalid(`expected ${count} embeddings, got ${data.length}`);
  // Some compatible servers omit `index`; then the order is the array's.
  // Mixing the two would be ambiguous, so it is rejected.
  const positional = data.every((item) => item?.index === undefined);
  const vectors = new Array(count);
  data.forEach((item, position) => {
    const i = positional ? position : item?.index;
    if (!Number.isInteger(i) || i < 0 || i >= count)
      throw invalid(`item ${position} has index ${JSON.stringify(i)}, expected 0..${count - 1}`);
    if (vectors[i] !== undefined) throw invalid(`index ${i} appears twice`);
    const v = toFloat32(item.embedding, i);
    if (state.dim === undefined) state.dim = v.length;
    else if (v.length !== state.dim) throw invalid(`embedding ${i} has ${v.length} dimensions, expected ${state.dim}`);
    vectors[i] = v;
  });
  return vectors;
}

/** A number array (or, from servers that ignore encoding_format, base64 little-endian f32) as a checked Float32Array. */
function toFloat32(embedding, i) {
  let v;
  if (Array.isArray(embedding)) {
    const bad = embedding.findIndex((x) => typeof x !== "number");
    if (bad >= 0) throw invalid(`embedding ${i} has a non-numeric value at ${bad}: ${JSON.stringify(embedding[bad])?.slice(0, 40)}`);
    v = Float32Array.from(embedding);
  } else if (typeof embedding === "string") {
    v = fromBase64(embedding, i);
  } else {
    throw invalid(`embedding ${i} is neither a number array nor base64`);
  }
  if (v.length === 0) throw invalid(`embedding ${i} is empty`);
  // Checked after the f32 conversion: a finite double beyond ±3.4e38 becomes Infinity.
  for (let k = 0; k < v.length; k++) {
    if (!Number.isFinite(v[k])) throw invalid(`embedding ${i} has a non-finite value at ${k}`);
  }
  return v;
}

function fromBase64(s, i) {
  let bytes;
  try {
    bytes = Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
  } catch {
    throw invalid(`embedding ${i} is a string but not base64`);
  }
  if (bytes.length % 4 !== 0) throw invalid(`embedding ${i} is ${bytes.length} base64 bytes, not a whole number of f32`);
  const view = new DataView(bytes.buffer);
  const v = new Float32Array(bytes.length / 4);
  for (let k = 0; k < v.length; k++) v[k] = view.getFloat32(k * 4, true);
  return v;
}

function addUsage(usage, json, state) {
  const u = json?.usage;
  const prompt = Number.isFinite(u?.prompt_tokens) ? u.prompt_tokens : 0;
  usage.promptTokens += prompt;
  // Embedding APIs report total = prompt; fall back to it when total is missing.
  usage.totalTokens += Number.isFinite(u?.total_tokens) ? u.total_tokens : prompt;
  if (!state.reportedModel && typeof json?.model === "string" && json.model) state.reportedModel = json.model;
}
