//! TypeScript types of the values that cross the boundary as JSON. They are
//! emitted into the generated `.d.ts`, next to the classes they describe.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
/**
 * A message in the OpenAI chat shape, as a client returns it: the openai
 * client's `ChatCompletionMessage` and `ChatCompletionMessageParam` fit it as
 * they are. Fields beyond these (a provider's new field) are kept as given
 * too; `buildContext` sends back only what the request accepts (see README).
 */
export type ChatMessage = SystemMessage | UserMessage | AssistantMessage | ToolMessage;
export interface SystemMessage {
  role: "system" | "developer";
  content: string | TextPart[];
  name?: string;
}
export interface UserMessage {
  role: "user";
  content: string | ContentPart[];
  name?: string;
}
export interface AssistantMessage {
  role: "assistant";
  /** null (or absent) beside tool calls, a refusal or audio. */
  content?: string | (TextPart | RefusalPart)[] | null;
  name?: string;
  tool_calls?: ToolCall[];
  /** OpenAI: the model's refusal (sent back when a string). */
  refusal?: string | null;
  /** OpenAI audio replies (sent back as `{ id }`). */
  audio?: { id: string } | null;
  /** The deprecated single function call (sent back when not null). */
  function_call?: { name: string; arguments: string } | null;
  /** Response-only: kept, never sent back. */
  annotations?: unknown[];
  logprobs?: unknown;
  /** DeepSeek thinking mode (sent back in a turn that called tools). */
  reasoning_content?: string | null;
  /** OpenRouter-style gateways: `reasoning` (never sent back), `reasoning_details` (as reasoning_content). */
  reasoning?: string | null;
  reasoning_details?: unknown[] | null;
}
export interface ToolMessage {
  role: "tool";
  content: string | TextPart[];
  tool_call_id: string;
}
export interface TextPart { type: "text"; text: string }
export interface RefusalPart { type: "refusal"; refusal: string }
export type ContentPart =
  | TextPart
  | { type: "image_url"; image_url: { url: string; detail?: "auto" | "low" | "high" } }
  | { type: "input_audio"; input_audio: { data: string; format: "wav" | "mp3" } }
  | { type: "file"; file: { file_data?: string; file_id?: string; filename?: string } };
/** A function tool's call, or a custom (free-form) tool's. */
export type ToolCall =
  | {
      id: string;
      type: "function";
      function: { name: string; arguments: string };
      /** Gemini's thought signature, sent back; other extra fields are kept, not sent. */
      extra_content?: unknown;
    }
  | { id: string; type: "custom"; custom: { name: string; input: string } };
/** An OpenAI function tool definition. */
export interface ToolDefinition {
  type: "function";
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}
/** A model entry; host entries win over the built-in table. Prices are USD per 1M tokens. */
export interface ModelEntry {
  tokenizer: "o200k_base" | "cl100k_base" | "estimate";
  contextWindow: number;
  maxOutput: number;
  inputPrice: number;
  cachedInputPrice: number;
  outputPrice: number;
  /** Prompt-cache writes (Anthropic: 1.25x input). Default: the input price. */
  cacheWritePrice?: number;
}
export interface CreateOptions {
  /** The user (tenant): storage prefix; facts, preferences, documents, procedures and cost are shared by its threads. Default "default". */
  namespace?: string;
  /** The conversation under the namespace: its messages, working memory, episodes and task history. Default "default". */
  thread?: string;
  /** Decides tokenizer, context window and prices. Default "gpt-4o". */
  model?: string;
  models?: Record<string, ModelEntry>;
  workingMemory?: {
    /** Token budget of the recent turns. Default 4000. */
    maxTokens?: number;
    /** Compaction starts above this share of maxTokens. Default 0.8. */
    compressionThreshold?: number;
    /** Compaction stops at this share of maxTokens. Default 0.5. */
    targetRatio?: number;
    /** Also compact when working memory holds more messages than this. */
    recentMessages?: number;
  };
  /** Token budget of one episode summary. Default 200. */
  summaryTokens?: number;
  /** Milliseconds since the epoch; default Date.now. */
  clock?: () => number;
  /** Where records are saved; default: none (state lives in this instance only). */
  storage?: import("../storage.js").StorageAdapter;
  /** Fold the log into one pack once it holds this many records. Default 256. */
  foldAfter?: number;
  /**
   * Turns texts into vectors; with it search is hybrid (BM25 + vectors), without it lexical.
   * `kind` says whether the texts are search queries or stored documents (messages, facts,
   * summaries), for asymmetric models; a function of `texts` alone works as well.
   */
  embedder?: (texts: string[], options: { kind: "query" | "document" }) => Promise<(Float32Array | number[])[]>;
  /**
   * Reorders `search` results: asked for `k`, search takes 3k (20..100) fused candidates,
   * this scores their texts (higher is better) and the best `k` are returned. If it throws
   * or returns other than one number per text, the fused order stands and `degraded` says
   * why. Runs in JS (the knowledge block and the `recall` tool use the fused order).
   */
  reranker?: (query: string, texts: string[]) => Promise<number[]>;
  /**
   * Writes episode summaries, in the background; without it (or when it fails,
   * times out or answers garbage) the offline extractive summary is used.
   * May return the model's text, `{ text, usage? }`, or a summary object.
   */
  summarizer?: (request: { messages: ChatMessage[]; previousSummary?: string }) => Promise<string | { text: string; usage?: { promptTokens: number; completionTokens: number; model: string } } | { summary: string; keyPoints?: string[]; pendingTasks?: string[]; facts?: { key: string; value: string }[]; preferences?: { key: string; value: string }[]; importance?: number }>;
  /** A summarizer that has not answered by then counts as failed (`SUMMARIZER_TIMEOUT` on the episode). Default 60000. */
  summarizerTimeoutMs?: number;
  /**
   * Most tokens one summarizer request carries: its messages as `countMessages`
   * counts them plus the previous summary (sent when within `summaryTokens`). A larger
   * compacted range is split; a single message larger on its own gets the
   * offline summary. Must exceed `summaryTokens`. Default 6000.
   */
  summaryInputTokens?: number;
  /**
   * Most compacted ranges waiting for the summarizer behind the one it is
   * writing (at least 1); past it the oldest get the offline summary
   * (`SUMMARIZER_BACKLOG` on the episode). Default 8.
   */
  summaryBacklog?: number;
  /** An embedder that has not answered by then counts as failed: search is lexical, `degraded.code` is `EMBEDDER_TIMEOUT`. Default 60000. */
  embedderTimeoutMs?: number;
  /** Recall scoring of episodes: weights (default 1, 1, 2) and recency half-life (default 3 days). */
  recall?: { recency?: number; importance?: number; relevance?: number; halfLifeMs?: number };
  /**
   * The model's rank file, when the package's own cannot be found (a bundler
   * that does not emit `new URL(…, import.meta.url)` assets, a CDN, bytes you
   * ship yourself). Used the first time this realm needs the encoding; later
   * controllers share the loaded table. A value of another type is
   * `INVALID_INPUT`, wrong data `INVALID_TOKENIZER_DATA`, an unreachable file
   * `TOKENIZER_LOAD`.
   */
  ranks?: RankSource | ((encoding: RankEncoding) => RankSource | Promise<RankSource>);
}
export interface RememberInput {
  /** A keyed fact: a new value for the key supersedes the old (history kept). */
  key?: string;
  text: string;
  tags?: string[];
  source?: string;
  /** Default "fact", or "document" for unkeyed text longer than one chunk (300 tokens). */
  kind?: "fact" | "preference" | "document";
}
export interface Remembered {
  /** The fact id, or for a document the document id. */
  id: string;
  kind: "fact" | "preference" | "chunk";
  chunks?: string[];
  /** The previous value of the key, now in its history. */
  superseded?: string;
}
export interface Fact {
  id: string;
  key?: string;
  text: string;
  kind: "fact" | "preference" | "chunk";
  tags?: string[];
  source?: string;
  document?: string;
  createdAt: number;
}
export interface SearchOptions {
  /** Default 10. */
  k?: number;
  /** Messages of this thread only, or of every thread of the namespace (default). Facts are the user's in both. */
  scope?: "thread" | "user";
  kinds?: ("fact" | "preference" | "chunk" | "message")[];
  tags?: string[];
  from?: number;
  to?: number;
}
export interface SearchHit {
  /** Fact or chunk id; for a message, the id `add` returned. */
  id: string;
  kind: "fact" | "preference" | "chunk" | "message";
  text: string;
  /** The reranker's score when the result was reranked, else the fused (or BM25) score. */
  score: number;
  /** With a reranker: the score before reranking. */
  fusedScore?: number;
  key?: string;
  messageIds?: string[];
  tags?: string[];
  /** For a message of another thread of the namespace: that thread. */
  thread?: string;
}
/** One thread of the namespace (`threads()`). */
export interface ThreadInfo {
  thread: string;
  /** Messages stored in it (forgotten ones not counted). */
  messages: number;
  /** Timestamps (ms) of its first and last message. */
  firstAt: number;
  lastAt: number;
  /** The first line of its first user message, at most 80 characters. */
  title?: string;
}
export type SearchResult = SearchHit[] & {
  mode: "hybrid" | "lexical";
  /** Set when a hook failed: an embedder (search fell back to lexical) or a reranker (the fused order stands). */
  degraded?: { code: string; message: string };
  /** True when a reranker ordered these hits. */
  reranked?: boolean;
};
/** Behaviour rules (optionally per task) and OpenAI function tools. */
export interface Procedures {
  rules?: (string | { text: string; task?: string })[];
  tools?: ToolDefinition[];
}
/** What `forget` removed. */
export interface ForgetResult {
  messages: number;
  facts: number;
  episodesRewritten: number;
  episodesDropped: number;
  /** Keys the adapter failed to remove; the next fold retries them. */
  pendingRemovals: number;
}
/** What loading from storage found. */
export interface LoadReport {
  keys: number;
  records: number;
  /** Records seen twice (a pack and the log it folded); harmless. */
  duplicates: number;
  /** Damaged values: skipped, everything intact loaded. */
  corrupt: { key: string[]; code: "CORRUPT_DATA"; reason: string }[];
}
export interface CompactionEvent {
  episodeId: string;
  messages: number;
  tokensBefore: number;
  tokensAfter: number;
}
export interface AddResult {
  id: string;
  tokens: number;
  compaction?: CompactionEvent;
  /** Set by `replace`: what it removed to make room for the message. */
  forgotten?: ForgetResult;
}
export interface HistoryItem {
  id: string;
  ts: number;
  place: "pinned" | "working" | "archived";
  tokens: number;
  message: ChatMessage;
}
export interface Episode {
  id: string;
  summary: string;
  keyPoints: string[];
  importance: number;
  messageIds: string[];
  createdAt: number;
  summarySource: "model" | "fallback";
  tokens: number;
  pendingTasks?: string[];
  taskId?: string;
  lastRecalled: number;
  /**
   * Why a summarizer exists but this is the offline summary: the hook's error
   * (`SUMMARIZER_TIMEOUT`, `SUMMARIZER_HTTP`, …, or `SUMMARIZER_FAILED` for a
   * throw without a code), an answer without a summary (`SUMMARIZER_INVALID`),
   * or the queue's limits (`SUMMARIZER_BACKLOG`, `SUMMARIZER_INPUT_LIMIT`).
   */
  degraded?: { code: string; message: string };
}
export interface ContextOptions {
  /** Replaces the stored system/developer messages for this call. */
  system?: string;
  /** Default: workingMemory.maxTokens; never above the model's context window. */
  maxTokens?: number;
  /** Tokens kept free for the reply. Default 0. */
  reserveOutput?: number;
  /** Extra tools for this call (after the procedures' tools). */
  tools?: ToolDefinition[];
  /** The user's question: selects the knowledge block. */
  query?: string;
  /** Budget of the knowledge block. Default 800. */
  semanticTokens?: number;
  /** Budget of the pinned preferences block. Default 300. */
  preferenceTokens?: number;
  /** Selects task-tagged rules, and adds the task's completed steps and pending tasks. */
  taskId?: string;
  /** Most tokens the episode summaries in the memory note may take. */
  episodicTokens?: number;
  /** Budget of the task history block. Default 400. */
  taskTokens?: number;
  /** Stored extra fields to send as they are (counted), beyond what is sent for each role. */
  keepFields?: string[];
}
export interface Omitted {
  reason: "archived" | "budget" | "pending_tool_calls" | "orphan_tool_result";
  messages: number;
  firstId: string;
  lastId: string;
}
export interface Sections {
  system: { tokens: number; messages: number };
  procedures: number;
  preferences: number;
  task: number;
  knowledge: { tokens: number; ids: string[]; leftOut: number; retrieval?: "hybrid" | "lexical"; degraded?: { code: string; message: string } };
  tools: number;
  summary: { tokens: number; episodeIds: string[]; hiddenMessages: number };
  recent: { tokens: number; messageIds: string[] };
  overhead: number;
  omitted: Omitted[];
  budget: { maxTokens: number; reserveOutput: number; available: number };
}
export interface Context {
  /** Ready for chat.completions. */
  messages: ChatMessage[];
  /** Send these as `tools`: they are counted in `tokens`. Absent when there are none. */
  tools?: ToolDefinition[];
  /** Exact total (for tiktoken models): always <= maxTokens - reserveOutput. */
  tokens: number;
  sections: Sections;
}
/**
 * Usage as a client returns it: OpenAI chat (`prompt_tokens`, `completion_tokens`,
 * `prompt_tokens_details.cached_tokens`, `completion_tokens_details.reasoning_tokens`),
 * DeepSeek (`prompt_cache_hit_tokens`), the OpenAI Responses API (`input_tokens`,
 * `input_tokens_details`), Anthropic (`input_tokens`, `cache_read_input_tokens`,
 * `cache_creation_input_tokens`), the AI SDK (`inputTokens`, `outputTokens`,
 * `inputTokenDetails`, `outputTokenDetails`, or the older `cachedInputTokens`),
 * a response object carrying `usage` and `model`, or this shape.
 */
export type UsageInput = { model?: string; promptTokens: number; completionTokens?: number; cachedPromptTokens?: number } | object;
/** @deprecated Use UsageInput. */
export type UsageRecord = UsageInput;
export interface Stats {
  namespace: string;
  thread: string;
  model: string;
  tokenizer: { exact: boolean; encoding: string | null; calibration: number };
  messages: { total: number; pinned: number; working: number; archived: number };
  tokens: { pinned: number; working: number; archived: number; episodes: number; workingLimit: number };
  episodes: number;
  /** Live facts, preferences and document chunks. */
  facts: number;
  /** Items (facts, messages, episodes) with a stored embedding. */
  embeddings: number;
  cost: {
    usd: number;
    /** `usd` is null for a model without a known price. */
    byModel: { model: string; calls: number; promptTokens: number; cachedPromptTokens: number; cacheWriteTokens: number; completionTokens: number; reasoningTokens: number; usd: number | null }[];
    /** "chat" (recordUsage), "summarizer" and "embedder" (the hooks' own calls). */
    byPurpose: { purpose: string; calls: number; usd: number }[];
  };
  /** Model ids the table does not know: counted with the estimator, cost null. */
  unknownModels: string[];
}
/** The `code` of every error the package throws or rejects with (`MemoryError`, from the entry). */
export type MemoryErrorCode =
    | "INVALID_INPUT" | "INVALID_ROLE" | "INVALID_CONTENT" | "LONE_SURROGATE"
    | "TOOL_RESULT_WITHOUT_CALL" | "UNKNOWN_MODEL" | "UNKNOWN_ENCODING"
    | "INVALID_TOKENIZER_DATA" | "TOKENIZER_LOAD" | "CONTEXT_OVERFLOW"
    | "BUDGET_EXHAUSTED" | "FORMAT_TOO_NEW" | "CORRUPT_DATA" | "STORAGE_ERROR"
    | "STORAGE_QUOTA" | "STORAGE_KEY_TOO_LONG" | "INVALID_VECTOR" | "DIMENSION_MISMATCH"
    | "INVALID_TOOL_SCHEMA" | "EMBEDDER_HTTP" | "EMBEDDER_TIMEOUT" | "EMBEDDER_INVALID"
    | "SUMMARIZER_HTTP" | "SUMMARIZER_TIMEOUT" | "SUMMARIZER_INVALID" | "CLOSED"
    | "WASM_LOAD" | "NOT_READY" | "INTERNAL" | "INSTANCE_RESET";
"#;
