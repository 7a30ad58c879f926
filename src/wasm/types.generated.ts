// Generated from the Rust types by src/typescript.rs (ts-rs); do not edit.
// Regenerate: UPDATE_TYPES=1 cargo test --lib typescript
// Included in the package's .d.ts by src/wasm/types.rs, beside the
// hand-written declarations it refers to (ChatMessage, ToolDefinition).

/**
 * The options of `create` that are data (all optional).
 */
export type CreateDataOptions = {
  /**
   * The user (tenant): storage prefix; facts, preferences, documents, procedures and cost are shared by its threads. Default "default".
   */
  namespace?: string;
  /**
   * The conversation under the namespace: its messages, working memory, episodes and task history. Default "default".
   */
  thread?: string;
  /**
   * Decides tokenizer, context window and prices. Default "gpt-4o".
   */
  model?: string;
  /**
   * Model entries by id; they win over the built-in table.
   */
  models?: Record<string, ModelEntry>;
  workingMemory?: WorkingMemoryOptions;
  /**
   * Token budget of one episode summary. Default 200.
   */
  summaryTokens?: number;
  /**
   * Most tokens one summarizer request carries: its messages as `countMessages` counts them plus the previous summary (sent when within `summaryTokens`). A larger compacted range is split; a single message larger on its own gets the offline summary. Must exceed `summaryTokens`. Default 6000.
   */
  summaryInputTokens?: number;
  /**
   * Most compacted ranges waiting for the summarizer behind the one it is writing (at least 1); past it the oldest get the offline summary (`SUMMARIZER_BACKLOG` on the episode). Default 8.
   */
  summaryBacklog?: number;
  /**
   * Fold the log into a new segment once it holds this many records (or a quarter of segmentBytes). Default 1024.
   */
  foldAfter?: number;
  /**
   * No stored value is larger (but a single record that is larger alone); at least 1024. Default 1048576 (1 MiB).
   */
  segmentBytes?: number;
  /**
   * Recall scoring of episodes: weights (default 1, 1, 2) and recency half-life (default 3 days).
   */
  recall?: RecallWeights;
  /**
   * How long records are kept (default: for ever). Past its age a record is forgotten as `forget` forgets, at the next fold or open, at most `maxPerCall` records a call. See docs/guides/retention.md.
   */
  retention?: RetentionOptions;
};

/**
 * Working-memory limits (all optional).
 */
export type WorkingMemoryOptions = {
  /**
   * Token budget of the recent turns. Default 4000.
   */
  maxTokens?: number;
  /**
   * Compaction starts above this share of maxTokens. Default 0.8.
   */
  compressionThreshold?: number;
  /**
   * Compaction stops at this share of maxTokens. Default 0.5 (0.3 for a model whose cached input costs at most half its input).
   */
  targetRatio?: number;
  /**
   * Also compact when working memory holds more messages than this.
   */
  recentMessages?: number;
};

/**
 * Everything the controller needs to know about a model: a model entry
 * (`create`'s `models`; host entries win over the built-in table).
 */
export type ModelEntry = {
  tokenizer: Tokenizer;
  contextWindow: number;
  maxOutput: number;
  /**
   * USD per 1M input tokens.
   */
  inputPrice: number;
  /**
   * USD per 1M cached input tokens (cache reads).
   */
  cachedInputPrice: number;
  /**
   * USD per 1M output tokens (reasoning tokens included).
   */
  outputPrice: number;
  /**
   * USD per 1M tokens written to a prompt cache (Anthropic: 1.25x input). Default: the input price.
   */
  cacheWritePrice?: number;
};

/**
 * How a model's tokens are counted.
 */
export type Tokenizer = "o200k_base" | "cl100k_base" | "estimate";

/**
 * Weights and half-life of recall scoring (each optional).
 */
export type RecallWeights = {
  /**
   * Default 1.
   */
  recency?: number;
  /**
   * Default 1.
   */
  importance?: number;
  /**
   * Default 2.
   */
  relevance?: number;
  /**
   * Milliseconds for recency to halve. Default 3 days.
   */
  halfLifeMs?: number;
};

/**
 * `create`'s `retention`: how long each kind of record is kept (a kind
 * left out is kept for ever).
 */
export type RetentionOptions = {
  /**
   * Messages of every thread, by the time each was added (pinned system and developer messages are kept).
   */
  messages?: MaxAge;
  /**
   * Episodes, by the time each was written; an episode goes with the messages it summarizes.
   */
  episodes?: MaxAge;
  /**
   * Facts, preferences and document chunks (every version), by the time each was stated. Default: kept.
   */
  facts?: MaxAge;
  /**
   * Most records one fold or open expires; the next goes on. Default 256.
   */
  maxPerCall?: number;
};

/**
 * How long one kind of record is kept.
 */
export type MaxAge = {
  /**
   * Milliseconds; a record older than this is forgotten. Positive.
   */
  maxAgeMs: number;
};

/**
 * What `add` did.
 */
export type AddResult = {
  id: string;
  tokens: number;
  /**
   * Set when this add pushed working memory past its threshold.
   */
  compaction?: CompactionEvent;
  /**
   * What a `replace` removed to make room for the message.
   */
  forgotten?: ForgetResult;
  /**
   * What was redacted before the message was stored: placeholder kind →
   * count (`{ "openai-key": 1 }`), never a value. Absent when nothing was.
   */
  redacted?: { [key in string]: number };
};

/**
 * What `addMany` did.
 */
export type AddManyResult = {
  /**
   * The messages' ids, in order.
   */
  ids: Array<string>;
  /**
   * Their tokens, together.
   */
  tokens: number;
  /**
   * Set when the batch pushed working memory past its threshold.
   */
  compaction?: CompactionEvent;
};

/**
 * What one compaction moved out of working memory: `messages` messages,
 * summarized by the episode `episodeId`.
 */
export type CompactionEvent = {
  episodeId: string;
  messages: number;
  tokensBefore: number;
  tokensAfter: number;
};

/**
 * What a forget removed.
 */
export type ForgetResult = {
  messages: number;
  facts: number;
  episodesRewritten: number;
  episodesDropped: number;
  /**
   * Keys that could not be removed yet; the next fold removes them.
   */
  pendingRemovals: number;
};

/**
 * One entry of `history()`.
 */
export type HistoryItem = {
  id: string;
  ts: number;
  place: Place;
  tokens: number;
  message: ChatMessage;
};

/**
 * Where a message lives now.
 */
export type Place = "pinned" | "working" | "archived";

/**
 * One thread of a namespace.
 */
export type ThreadInfo = {
  thread: string;
  /**
   * Messages stored in it (forgotten ones not counted).
   */
  messages: number;
  /**
   * Timestamps (ms) of its first and last message, as stored.
   */
  firstAt: number;
  lastAt: number;
  /**
   * The first line of its first user message, at most 80 characters
   * ([`TITLE_CHARS`]); for an imported conversation, its title there.
   */
  title?: string;
};

/**
 * Options of `buildContext` (all optional).
 */
export type ContextOptions = {
  /**
   * Replaces the stored system/developer messages for this call.
   */
  system?: string;
  /**
   * Default: workingMemory.maxTokens; never above the model's context window.
   */
  maxTokens?: number;
  /**
   * Tokens kept free for the reply. Default 0.
   */
  reserveOutput?: number;
  /**
   * Extra tools for this call (after the procedures' tools).
   */
  tools?: ToolDefinition[];
  /**
   * The user's question: selects what the recall block shows (facts, chunks, earlier messages and episode summaries), placed right before the newest user turn.
   */
  query?: string;
  /**
   * Most tokens the recall block may take. Default 600, and never more than the pinned part, the memory note and the turns leave (up to 30% of what the pinned part leaves is kept for it when there is a query). The block is the part of each prompt a provider's cache bills at the full price: raise this for more recall at a higher bill.
   */
  semanticTokens?: number;
  /**
   * Budget of the pinned preferences block. Default 300.
   */
  preferenceTokens?: number;
  /**
   * Selects task-tagged rules, and adds the task's completed steps and pending tasks.
   */
  taskId?: string;
  /**
   * Most tokens the memory note (the thread's newest episode summaries, chosen without the query) may take. Default 20% of what the pinned part leaves.
   */
  episodicTokens?: number;
  /**
   * Budget of the task history block. Default 400.
   */
  taskTokens?: number;
  /**
   * Stored extra fields to send as they are (counted), beyond what is sent for each role.
   */
  keepFields?: Array<string>;
  /**
   * "stable" (default): the recall block goes right before the newest user turn, so everything before it is the same from call to call between compactions (`ctx.cache`). "recall-first": right after the pinned blocks, as before 0.2.
   */
  layout?: Layout;
  /**
   * The time (ms) the question is about: the recall block ranks the facts that held then first, each with its validity. Default: a time phrase of the query ("last year", "in March", 去年, 上个月), else now.
   */
  asOf?: number;
};

/**
 * Where the recall block goes.
 */
export type Layout = "stable" | "recall-first";

/**
 * What `buildContext` returns: the messages to send now.
 */
export type Context = {
  /**
   * Ready for chat.completions.
   */
  messages: Array<ChatMessage>;
  /**
   * Tool definitions counted in `tokens`: procedures' tools, then the
   * request's; send these as `tools`. Left out of the JSON when there
   * are none: the APIs reject `tools: []`.
   */
  tools?: Array<ToolDefinition>;
  /**
   * Exact total (for tiktoken models): always <= maxTokens - reserveOutput.
   */
  tokens: number;
  sections: Sections;
  cache: CacheHint;
};

/**
 * Tokens per part of the context, and what was left out.
 */
export type Sections = {
  system: SystemSection;
  /**
   * Rules from procedural memory (a pinned system message).
   */
  procedures: number;
  /**
   * The pinned preferences block.
   */
  preferences: number;
  /**
   * The task history block.
   */
  task: number;
  knowledge: KnowledgeSection;
  tools: number;
  summary: SummarySection;
  recent: RecentSection;
  /**
   * Reply priming.
   */
  overhead: number;
  omitted: Array<Omitted>;
  budget: Budget;
};

/**
 * The stored (or given) system and developer messages.
 */
export type SystemSection = {
  tokens: number;
  messages: number;
};

/**
 * The recall block: the facts, chunks, earlier messages and episode
 * summaries this query recalled.
 */
export type KnowledgeSection = {
  tokens: number;
  /**
   * The ids shown (facts and chunks first, then messages and episodes in time order).
   */
  ids: Array<string>;
  /**
   * Where the block is in `messages`; absent when nothing was recalled.
   */
  message?: number;
  /**
   * Retrieved items that did not fit the block's budget.
   */
  leftOut: number;
  /**
   * How the items were retrieved: "hybrid" with the query's embedding, else "lexical".
   */
  retrieval: RetrievalMode;
  /**
   * Set when an embedder exists but failed, so retrieval fell back to lexical.
   */
  degraded?: Degraded;
};

/**
 * Where the part of the context that does not depend on the query ends:
 * `messages[..messages]`, `tokens` of them. Between two compactions the
 * next call begins with these same messages, byte for byte, so a provider
 * bills them at its cached price; put a cache breakpoint after them
 * (Anthropic's `cache_control`).
 */
export type CacheHint = {
  messages: number;
  tokens: number;
};

/**
 * How a query was matched: by its embedding and its words (`hybrid`, when
 * the embedder gave a vector), or by its words alone (`lexical`).
 */
export type RetrievalMode = "hybrid" | "lexical";

/**
 * Why a hook did not help (the embedder, the reranker or the summarizer
 * failed): the code and message of its error.
 */
export type Degraded = {
  code: string;
  message: string;
};

/**
 * The memory note: how many earlier messages are hidden, and the episode summaries shown.
 */
export type SummarySection = {
  tokens: number;
  episodeIds: Array<string>;
  /**
   * Earlier messages not shown: archived plus left out.
   */
  hiddenMessages: number;
};

/**
 * The newest turns that fit, oldest first.
 */
export type RecentSection = {
  tokens: number;
  messageIds: Array<string>;
};

/**
 * A run of messages that did not enter, and why.
 */
export type Omitted = {
  reason: OmitReason;
  messages: number;
  firstId: string;
  lastId: string;
};

/**
 * Why a run of messages did not enter.
 */
export type OmitReason = "archived" | "budget" | "pending_tool_calls" | "orphan_tool_result";

/**
 * The budget this context was built within.
 */
export type Budget = {
  maxTokens: number;
  reserveOutput: number;
  available: number;
};

/**
 * What `search` found, and how: the hits, best first; `mode` says whether
 * the query's embedding took part; `degraded`, why not when the embedder
 * failed. (JS receives the hits as an array carrying the other fields.)
 */
export type Found = {
  hits: Array<Hit>;
  mode: RetrievalMode;
  /**
   * Set when a hook failed: the embedder (search fell back to lexical),
   * or in JS the reranker (the fused order stands).
   */
  degraded?: Degraded;
};

/**
 * One search result.
 */
export type Hit = {
  /**
   * The fact or chunk id, or for a message the id `add` returned.
   */
  id: string;
  kind: HitKind;
  text: string;
  /**
   * The fused (hybrid) or BM25 score; higher is better.
   */
  score: number;
  key?: string;
  messageIds?: Array<string>;
  tags?: Array<string>;
  /**
   * For a message of another thread of the namespace: that thread.
   */
  thread?: string;
};

/**
 * What a hit is (the names `search`'s `kinds` option takes).
 */
export type HitKind = "fact" | "preference" | "chunk" | "message";

/**
 * What `remember` stored.
 */
export type Remembered = {
  id: string;
  kind: FactKind;
  /**
   * For a document: the ids of its chunks.
   */
  chunks?: Array<string>;
  /**
   * The fact this one superseded (same key), kept in the key's history.
   */
  superseded?: string;
  /**
   * What was redacted from the text before it was stored (see `AddResult`).
   */
  redacted?: { [key in string]: number };
};

/**
 * One remembered text.
 */
export type Fact = {
  id: string;
  key?: string;
  text: string;
  kind: FactKind;
  tags?: Array<string>;
  source?: string;
  /**
   * For a chunk: the id of the document it belongs to.
   */
  document?: string;
  createdAt: number;
  /**
   * When it became true (ms); stored only when the host said so,
   * reported always (default: `created_at`, when it was stated).
   */
  validFrom?: number;
  /**
   * When it stopped holding (ms): the start of the fact that ended it.
   * Derived from later records when reported, never stored (and never
   * read: `valid` derives it), so records stay immutable.
   */
  validUntil?: number;
  /**
   * Ids of facts this one contradicts without sharing their key ("I
   * moved to Berlin" ends "I live in Shanghai"): they end where it begins.
   */
  supersedes?: Array<string>;
  /**
   * Ids of facts this one restates (a consolidation's merge of
   * duplicates): they leave the current view and stay in history.
   */
  merges?: Array<string>;
};

/**
 * What a remembered text is.
 */
export type FactKind = "fact" | "preference" | "chunk";

/**
 * A summary of one compacted range.
 */
export type Episode = {
  id: string;
  summary: string;
  keyPoints: Array<string>;
  importance: number;
  messageIds: Array<string>;
  createdAt: number;
  summarySource: SummarySource;
  /**
   * Tokens of `summary`, as the controller counts them.
   */
  tokens: number;
  /**
   * Tasks the summarizer saw still open at the end of the range.
   */
  pendingTasks?: Array<string>;
  /**
   * Set when every message of the range belongs to one task.
   */
  taskId?: string;
  /**
   * When recall last put this episode in a context (ms); starts at creation.
   */
  lastRecalled: number;
  /**
   * Why a summarizer exists but this summary is the offline one: the
   * hook's error (`SUMMARIZER_TIMEOUT`, `SUMMARIZER_HTTP`, ..., or
   * `SUMMARIZER_FAILED` for a throw without a code), an answer without a
   * summary (`SUMMARIZER_INVALID`), or the queue's limits
   * (`SUMMARIZER_BACKLOG`, `SUMMARIZER_INPUT_LIMIT`).
   */
  degraded?: Degraded;
};

/**
 * Who wrote an episode's summary.
 */
export type SummarySource = "model" | "fallback";

/**
 * What the summarizer hook is asked.
 */
export type SummaryRequest = {
  /**
   * Always "summary" (a consolidation's request says "consolidation").
   */
  purpose: "summary";
  messages: Array<ChatMessage>;
  previousSummary?: string;
  /**
   * User sentences the offline rules read as lasting statements about
   * the user, for the model to confirm: its `facts` and `preferences`
   * are what is learned, these only point at what to look at.
   */
  candidates?: Array<string>;
  /**
   * The user's live facts and preferences (the newest, at most
   * [`MAX_CURRENT`]): the model returns in `supersedes` the ids of
   * those the range contradicts ("I moved to Berlin" ends "lives in
   * Shanghai"); they stay in history.
   */
  currentFacts?: Array<CurrentFact>;
};

/**
 * A live fact as a request shows it to the model.
 */
export type CurrentFact = {
  id: string;
  key?: string;
  text: string;
};

/**
 * What the summarizer hook is asked for a consolidation.
 */
export type ConsolidationRequest = {
  /**
   * Always "consolidation" (a summary's request says "summary").
   */
  purpose: "consolidation";
  /**
   * The live facts and preferences, oldest first: the newest, at most
   * 200 and `summaryInputTokens` of text.
   */
  facts: Array<ConsolidationFact>;
  /**
   * The profile now, if there is one.
   */
  profile?: string;
  /**
   * Most tokens the profile may take (a longer one is cut).
   */
  profileTokens: number;
};

/**
 * A live fact or preference as a consolidation request shows it.
 */
export type ConsolidationFact = {
  id: string;
  kind: FactKind;
  key?: string;
  text: string;
  /**
   * When it began to hold (ms).
   */
  validFrom: number;
};

/**
 * What a consolidation did.
 */
export type Consolidated = {
  /**
   * Ids of the facts written that merge duplicates (each lists them in `merges`).
   */
  merged: Array<string>;
  /**
   * Ids of the facts ended as contradicted.
   */
  superseded: Array<string>;
  /**
   * The profile written, if one was.
   */
  profile?: string;
  /**
   * Who decided: the summarizer model, or the offline rules ("fallback":
   * no summarizer, or its answer was not usable). Absent when a model was
   * not asked because nothing was stored since the last consolidation.
   */
  source?: SummarySource;
  /**
   * Why the model's answer was not used: its error's code
   * (`SUMMARIZER_TIMEOUT`, `SUMMARIZER_HTTP`, ...) or `SUMMARIZER_INVALID`.
   */
  degraded?: Degraded;
};

/**
 * What `stats()` returns: messages, tokens per layer, episodes and cost.
 */
export type Stats = {
  namespace: string;
  thread: string;
  model: string;
  tokenizer: TokenizerStats;
  messages: MessageStats;
  tokens: LayerTokens;
  episodes: number;
  /**
   * Live facts, preferences and chunks.
   */
  facts: number;
  /**
   * Items (facts, messages, episodes) with a stored embedding.
   */
  embeddings: number;
  cost: CostLedger;
  /**
   * Model ids the table does not know (this controller's, or ones usage
   * was recorded for): counted with the estimator, their cost null.
   */
  unknownModels: Array<string>;
  /**
   * What retention removed from the namespace, since it was created
   * (kept in the tombstones it wrote, so it holds after reopening).
   */
  retention: RetentionStats;
};

/**
 * The counter: exact (tiktoken ranks) or an estimate scaled by `calibration`.
 */
export type TokenizerStats = {
  exact: boolean;
  encoding: string | null;
  calibration: number;
};

/**
 * Messages ever added, by place.
 */
export type MessageStats = {
  total: number;
  pinned: number;
  working: number;
  archived: number;
};

/**
 * Tokens per layer, and the working-memory budget.
 */
export type LayerTokens = {
  pinned: number;
  working: number;
  archived: number;
  episodes: number;
  workingLimit: number;
};

/**
 * What one retention pass removed (its tombstone's `expired`), and their
 * sum over every such tombstone (`stats().retention`).
 */
export type RetentionStats = {
  /**
   * Messages past their age (or in an episode past its age), removed.
   */
  messages: number;
  /**
   * Episodes removed: past their age, or with no message left.
   */
  episodes: number;
  /**
   * Episodes summarized again without the messages that expired.
   */
  rewritten: number;
  /**
   * Facts removed: past their age, or learned from an expired range
   * (learned again from what remains).
   */
  facts: number;
};

/**
 * All recorded usage, per model and in total.
 */
export type CostLedger = {
  /**
   * What the calls at known prices cost; calls to unpriced models are not in it.
   */
  usd: number;
  byModel: Array<ModelCost>;
  /**
   * The same spending split by what it was for: "chat", "summarizer", "embedder".
   */
  byPurpose: Array<PurposeCost>;
  /**
   * Share of all recorded prompt tokens the provider read from its
   * prompt cache (billed at the cached price); 0 before any usage.
   */
  cachedShare: number;
};

/**
 * Running totals for one model.
 */
export type ModelCost = {
  model: string;
  calls: number;
  promptTokens: number;
  cachedPromptTokens: number;
  cacheWriteTokens: number;
  completionTokens: number;
  reasoningTokens: number;
  /**
   * null (`None`) for a model without a known price: never a made-up number.
   */
  usd: number | null;
};

/**
 * Spending on one purpose.
 */
export type PurposeCost = {
  purpose: string;
  calls: number;
  usd: number;
};

/**
 * What loading found.
 */
export type LoadReport = {
  keys: number;
  records: number;
  /**
   * Records seen more than once (in a segment and in the log it folded).
   */
  duplicates: number;
  /**
   * Damaged values, skipped; every intact record still loaded.
   */
  corrupt: Array<CorruptKey>;
};

/**
 * A stored value that could not be read.
 */
export type CorruptKey = {
  key: Array<string>;
  code: "CORRUPT_DATA";
  reason: string;
};
