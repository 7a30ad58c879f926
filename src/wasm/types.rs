//! TypeScript types of the values that cross the boundary as JSON, emitted
//! into the generated `.d.ts` next to the classes they describe.
//!
//! What the core returns (`Context`, `Stats`, `Episode`, ...) is declared
//! in `types.generated.ts`, derived from the Rust types by
//! `src/typescript.rs` (a test fails when it is out of date), and so are
//! the option objects read as a Rust type (`buildContext`'s, the data of
//! `create`'s). What JS passes in otherwise is declared here by hand: the
//! hooks of `create` (JS values), the option objects read by hand
//! (`options::Small`), and `ChatMessage`, a union by role of exact shapes,
//! so that the openai client's message types are assignable to it, where
//! `Message` keeps any field as given. So is what JS adds to a core result
//! (`SearchResult`).

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
/**
 * `create`'s options: the data ones (`CreateDataOptions`, derived from the
 * Rust type the binding reads them as) and the hooks, JS values declared here.
 */
export interface CreateOptions extends CreateDataOptions {
  /** Milliseconds since the epoch; default Date.now. */
  clock?: () => number;
  /** Where records are saved; default: none (state lives in this instance only). */
  storage?: import("../storage/storage.js").StorageAdapter;
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
   * Writes episode summaries, in the background, and answers `consolidate()`'s
   * requests (`request.purpose` says which); without it (or when it fails,
   * times out or answers garbage) the offline extractive summary, or the
   * offline consolidation, is used. May return the model's text,
   * `{ text, usage? }`, a summary object, or a consolidation object.
   * (A method, so a function written for `SummaryRequest` alone still fits.)
   */
  summarizer?(request: SummaryRequest | ConsolidationRequest): Promise<string | { text: string; usage?: { promptTokens: number; completionTokens: number; model: string } } | { summary: string; keyPoints?: string[]; pendingTasks?: string[]; facts?: { key: string; value: string }[]; preferences?: { key: string; value: string }[]; importance?: number } | { merges?: { ids: string[]; text: string }[]; supersedes?: { id: string; by: string }[]; profile?: string }>;
  /** A summarizer that has not answered by then counts as failed (`SUMMARIZER_TIMEOUT` on the episode, or on `consolidate()`'s result). Default 60000. */
  summarizerTimeoutMs?: number;
  /** An embedder that has not answered by then counts as failed: search is lexical, `degraded.code` is `EMBEDDER_TIMEOUT`. Default 60000. */
  embedderTimeoutMs?: number;
  /**
   * The model's rank file, when the package's own cannot be found (a bundler
   * that does not emit `new URL(…, import.meta.url)` assets, a CDN, bytes you
   * ship yourself). Used the first time this realm needs the encoding; later
   * controllers share the loaded table. A value of another type is
   * `INVALID_INPUT`, wrong data `INVALID_TOKENIZER_DATA`, an unreachable file
   * `TOKENIZER_LOAD`.
   */
  ranks?: RankSource | ((encoding: RankEncoding) => RankSource | Promise<RankSource>);
  /**
   * What is redacted from a message (its content, tool-call arguments and
   * other text fields), a tool result or a fact before it is stored, summarized,
   * embedded or counted: the value becomes `[redacted:KIND]` and `add` /
   * `remember` report the kinds and counts in `redacted`. Default `true`:
   * provider credentials, private keys, URL passwords, JWTs. `{ personal: true }`
   * adds emails, phone numbers, Chinese resident ID and card numbers; `false`
   * redacts nothing. A function replaces the built-in scanners: called on
   * each text, what it returns is stored, its `[redacted:KIND]` placeholders
   * are reported; if it throws or returns no string the call rejects with
   * `REDACT_FAILED` and nothing is stored. See docs/guides/redaction.md.
   */
  redact?: boolean | { personal?: boolean; credentials?: boolean } | ((text: string) => string | Promise<string>);
}
export interface RememberInput {
  /** A keyed fact: a new value for the key supersedes the old (history kept). */
  key?: string;
  text: string;
  tags?: string[];
  source?: string;
  /** Default "fact", or "document" for unkeyed text longer than one chunk (300 tokens). */
  kind?: "fact" | "preference" | "document";
  /** When it became true (ms since the epoch). Default now. A value of a key that began before the current one is history at once. */
  validFrom?: number;
  /** Ids of live facts this one ends (they stay in history). Default: those it contradicts by the offline rules (the same attribute of the same subject, another value: "I moved to Berlin" ends "I live in Shanghai"); `[]`: none. */
  supersedes?: string[];
}
export interface SearchOptions {
  /** Default 10. */
  k?: number;
  /** Messages of this thread only, or of every thread of the namespace (default). Facts are the user's in both. */
  scope?: "thread" | "user";
  kinds?: HitKind[];
  tags?: string[];
  from?: number;
  to?: number;
  /** Facts and preferences that held at this time (ms) instead of those that hold now. */
  asOf?: number;
}
/** A hit as `search` returns it; with a reranker, `score` is the reranker's. */
export interface SearchHit extends Hit {
  /** With a reranker: the score before reranking. */
  fusedScore?: number;
}
/** The fields `search`'s result carries beside its hits. */
export interface SearchFields extends Omit<Found, "hits"> {
  /** True when a reranker ordered these hits (`degraded` says why not when it failed). */
  reranked?: boolean;
}
/**
 * What `search` resolves to: the hits, best first, as an array carrying
 * `mode`, `degraded` and `reranked`.
 */
export type SearchResult = SearchHit[] & SearchFields;
/** Behaviour rules (optionally per task) and OpenAI function tools. */
export interface Procedures {
  rules?: (string | { text: string; task?: string })[];
  tools?: ToolDefinition[];
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
/** What `importConversations` reads (see docs/guides/import.md). */
export interface ImportOptions {
  /** The export's format; detected from the first conversation when left out. */
  format?: "chatgpt" | "claude" | "openai";
  /** Working memory (tokens) of each imported thread: the rest is archived and summarized as it arrives. Default: a quarter of `workingMemory.maxTokens`, at least 200 (or all of it, when smaller). */
  workingTokens?: number;
  /** Called after each conversation is stored (awaited). */
  onProgress?: (progress: ImportProgress & { conversation: { index: number; id: string; thread: string; title?: string; messages: number; skipped: number } }) => void | Promise<void>;
}
/** How far an import got: conversations stored whole, messages added, messages already stored (skipped), export nodes left out (hidden). */
export interface ImportProgress { conversations: number; messages: number; skipped: number; hidden: number }
/** What `importConversations` resolves to. */
export interface ImportResult extends ImportProgress { format: "chatgpt" | "claude" | "openai" | undefined }
/** The conversations of an export: its JSON text or bytes, a stream of them, or the parsed conversations. */
export type ImportData = string | Uint8Array | ReadableStream<Uint8Array | string> | AsyncIterable<Uint8Array | string | object> | Iterable<object>;
export interface MemoryController {
  /**
   * Imports a ChatGPT or Claude export (`conversations.json`) or OpenAI
   * messages with times: one thread per conversation (`<format>-<id>`),
   * at the original times, opened with this controller's options (a
   * storage adapter is needed). Idempotent: a message already imported is
   * skipped. Rejects with a `MemoryError` (`INVALID_INPUT` naming the
   * conversation and field, with `progress`: how far it got); the
   * conversations before it stay imported.
   */
  importConversations(data: ImportData, options?: ImportOptions): Promise<ImportResult>;
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
    | "WASM_LOAD" | "NOT_READY" | "INTERNAL" | "INSTANCE_RESET" | "REDACT_FAILED";
"#;

#[wasm_bindgen(typescript_custom_section)]
const TS_GENERATED: &'static str = include_str!("types.generated.ts");
