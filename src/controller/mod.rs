//! The controller: one conversation's memory, synchronous and pure.
//!
//! Invariants: every operation that returns an error has changed nothing;
//! `history()` is every message ever added, in order; compaction archives
//! raw messages before it records the episode that summarizes them; every
//! change is a record the host stores before the change applies (see
//! `writes`), and a controller restored from those records (see `restore`)
//! equals the one that wrote them.
//!
//! Where things live: the state of each layer is a field named for it
//! (`window`: working memory; `episodic`: episodes and the summary queue;
//! `semantic`; `procedures`; `cost`; `index`: search; `others`: the other
//! threads); `books` (`store::books`) is the write path's bookkeeping,
//! which reads the layers through a read-only view. The
//! operations, one file each: `assemble` (the context), `writes` (prepare /
//! commit of a change), `compaction` and `queue`, `knowledge`, `consolidate`, `search`,
//! `forget`, `loading` (the loading rules, once), `restore`, `pages` (bounded reads of the log), `cold` (reading the cold segments opening left unread),
//! `partial` (the cold segments as a lexical query reads them: its stored terms, the segments holding the hits),
//! `threads`, `tools`, `stats`, `batch` (many messages as one change: imports),
//! `retention` (what is past its age, forgotten as `forget` forgets),
//! `shelves` (shelf records restated when they quote what is gone);
//! `options`: `create`'s options as the host passes them.

mod assemble;
mod batch;
pub(crate) mod cold;
mod compaction;
mod consolidate;
mod forget;
mod knowledge;
mod loading;
mod options;
mod pages;
mod partial;
mod queue;
mod recall;
mod restore;
pub mod retention;
mod search;
mod shelves;
mod stats;
mod threads;
pub mod tools;
mod writes;

pub use cold::{recent_keys, Need, RECENT_EPISODES};
pub use knowledge::{PreparedEmbeddings, PreparedProcedures, PreparedRemember, Remembered};
pub use options::{CreateOptions, WorkingMemory};
pub use pages::Page;
pub use partial::{Query, Step, DECODED};
pub use retention::{MaxAge, Retention};
pub use search::{Found, Held, Hit, HitKind, Scope, SearchIndex, SearchOptions};
pub use shelves::PreparedRestate;
pub use stats::{LayerTokens, MessageStats, Stats, TokenizerStats};
pub use threads::ThreadInfo;

pub use batch::{parse_batch, AddedMany, PreparedBatch};
pub use compaction::{CompactionJob, CurrentFact, PreparedCompaction, SummaryRequest, MAX_CURRENT};
pub use consolidate::{Asked, Consolidated, ConsolidationFact, ConsolidationRequest};
pub use forget::{ForgetTarget, Forgotten, PreparedForget};
pub use writes::{PreparedAdd, PreparedFold, PreparedUsage};

use serde::Serialize;
use serde_json::Value;

use crate::cost::{self, CostLedger, Usage};
use crate::episodic::Episode;
use crate::error::{MemoryError, Result};
use crate::message::Message;
use crate::models::{self, ModelInfo, Tokenizer};
use crate::procedural::Procedures;
use crate::semantic::Semantic;
use crate::store::books::Books;
use crate::store::record::{Record, DEFAULT_THREAD};
use crate::store::{self, Key};
use crate::tokens::chat::{message_tokens, request_tokens};
use crate::tokens::Counter;
use crate::window::{Place, Window, WindowConfig};

/// Options fixed at creation.
#[derive(Clone, Debug)]
pub struct Options {
    pub namespace: String,
    /// The conversation this controller holds, under the namespace (the
    /// user): messages, working memory, episodes and task history are the
    /// thread's; facts, preferences, documents, procedures and cost are the
    /// namespace's and reach every thread. [`DEFAULT_THREAD`] by default.
    pub thread: String,
    /// This controller's identity in storage. Two controllers open on one
    /// namespace at once (two tabs, two isolates) must use different writers;
    /// the wasm layer draws a random one per instance.
    pub writer: String,
    pub model: String,
    /// Host-supplied model entries; they win over the built-in table.
    pub models: Vec<(String, ModelInfo)>,
    pub working: WindowConfig,
    /// Token budget of one episode summary.
    pub summary_tokens: usize,
    /// Most tokens one summarizer request may carry (its messages as
    /// `count_messages` counts them, plus the previous summary); a larger
    /// compacted range is split. Must exceed `summary_tokens`. Default 6000.
    pub summary_input_tokens: usize,
    /// Most ranges waiting for the summarizer behind the one it is writing
    /// (at least 1); past it the oldest take the offline summary. Default 8.
    pub summary_backlog: usize,
    /// Fold the log into a segment once it holds this many records, or a
    /// quarter of `segment_bytes`. Default 1024.
    pub fold_after: usize,
    /// Most bytes of one stored value (a record larger than that is stored
    /// alone). Default 1 MiB; at least 1 KiB.
    pub segment_bytes: usize,
    /// How episodes are ranked for the memory note.
    pub recall: crate::episodic::recall::RecallWeights,
    /// What is redacted from a message or fact before it is stored
    /// (`crate::redact`): credentials by default. Applied by the host entry
    /// points (`add`, `remember`, `Durable`, the wasm layer), not by
    /// `prepare_*`, so a record read back from storage is never rewritten.
    pub redact: crate::redact::Policy,
    /// How long each kind of record is kept (`controller::retention`);
    /// default: every kind for ever.
    pub retention: Retention,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            namespace: "default".into(),
            thread: DEFAULT_THREAD.into(),
            writer: "local".into(),
            model: "gpt-4o".into(),
            models: Vec::new(),
            working: WindowConfig::default(),
            summary_tokens: 200,
            summary_input_tokens: 6000,
            summary_backlog: 8,
            fold_after: 1024,
            segment_bytes: 1 << 20,
            recall: Default::default(),
            redact: Default::default(),
            retention: Retention::default(),
        }
    }
}

/// What `add` did.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields, rename = "AddResult"))]
#[serde(rename_all = "camelCase")]
pub struct Added {
    pub id: String,
    pub tokens: usize,
    /// Set when this add pushed working memory past its threshold.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compaction: Option<CompactionEvent>,
    /// What a `replace` removed to make room for the message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forgotten: Option<Forgotten>,
    /// What was redacted before the message was stored: placeholder kind →
    /// count (`{ "openai-key": 1 }`), never a value. Absent when nothing was.
    #[serde(skip_serializing_if = "crate::redact::Redacted::is_empty")]
    #[cfg_attr(test, ts(as = "Option<std::collections::BTreeMap<String, usize>>"))]
    pub redacted: crate::redact::Redacted,
}

/// What one compaction moved out of working memory: `messages` messages,
/// summarized by the episode `episodeId`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct CompactionEvent {
    pub episode_id: String,
    pub messages: usize,
    pub tokens_before: usize,
    pub tokens_after: usize,
}

/// One entry of `history()`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct HistoryItem {
    pub id: String,
    pub ts: f64,
    pub place: Place,
    pub tokens: usize,
    pub message: Message,
}

/// The preferences block's first line.
pub const PREFERENCES_HEADER: &str = "The user's stated preferences (from memory; follow them unless the user changes them):";

/// One thread's memory, its state by the layer that owns it. The domain
/// layers decide what the model sees; `books` is what the write path needs
/// to store and fold their records, and decides nothing about the context.
#[derive(Clone)]
pub struct Controller {
    opts: Options,
    model: ModelInfo,
    counter: Counter,
    closed: bool,
    /// Working memory: every message of this thread in order, each in its
    /// place (pinned, working, archived), grouped (see `window`).
    window: Window,
    /// Episodes over archived ranges, and the ranges waiting for a summary.
    episodic: Episodic,
    /// Facts, preferences, document chunks, with every version of a key.
    semantic: Semantic,
    /// Rules and tools in force.
    procedures: Option<ProceduresState>,
    /// What this namespace's calls cost.
    cost: CostLedger,
    /// The last built context, for calibration and output budgets.
    last_context: LastContext,
    /// The memory note's last choices (`context::note::pick_again`).
    picks: crate::context::Picks,
    /// Search over facts and messages, built by the first search (see `search`).
    index: SearchIndex,
    /// The messages and episodes of the namespace's other threads, as
    /// stored, in load order (not sorted: a sort of records costs the wasm
    /// 10 KB, and nothing here needs their order): searched (scope "user"), listed, exported
    /// and kept in every pack, never in this thread's context window.
    others: Vec<Record>,
    /// Persistence bookkeeping (see `books`).
    books: Books,
    /// The archive as a lexical query read it, until it is read whole (see `partial`).
    partial: Option<Box<partial::Partial>>,
}

/// The episodic layer: summaries of archived ranges, oldest first, and the
/// archived ranges waiting for the summarizer (see `queue`).
#[derive(Clone, Default)]
pub(crate) struct Episodic {
    pub episodes: Vec<Episode>,
    pub queue: Vec<queue::Queued>,
}

/// The last context `build_context` returned.
#[derive(Clone, Copy, Default)]
pub(crate) struct LastContext {
    /// Its raw estimate, for calibrating an estimating counter against the billed prompt.
    pub raw: Option<f64>,
    /// Its tokens: the prompt `budget_aware_max_tokens` prices by default.
    pub tokens: Option<usize>,
}

/// The procedures in force and the record that set them.
#[derive(Clone, Debug)]
pub(crate) struct ProceduresState {
    pub parsed: Procedures,
    pub raw: serde_json::Value,
    /// The record they were stored as.
    pub origin: crate::origin::Origin,
    pub ts: f64,
}

impl Controller {
    /// The tokenizer a model needs, so the host can load its ranks first;
    /// the estimator for a model nobody knows.
    pub fn tokenizer_for(model: &str, host: &[(String, ModelInfo)]) -> Tokenizer {
        models::resolve(model, host).map_or(Tokenizer::Estimate, |m| m.tokenizer)
    }

    /// A model nobody knows is counted with the estimator and has no price
    /// (see [`models::UNKNOWN`]); `stats().unknown_models` names it.
    ///
    /// # Errors
    /// `INVALID_INPUT` for bad limits, `UNKNOWN_ENCODING` when `counter` is
    /// not the one the model needs.
    pub fn new(opts: Options, counter: Counter) -> Result<Controller> {
        opts.working.validate()?;
        if opts.summary_input_tokens <= opts.summary_tokens {
            return Err(MemoryError::input("options.summaryInputTokens", "must exceed summaryTokens (room for the previous summary)"));
        }
        // A range is queued before the idle summarizer takes it: 0 would send none.
        if opts.summary_backlog == 0 {
            return Err(MemoryError::input("options.summaryBacklog", "must be at least 1"));
        }
        let model = models::resolve(&opts.model, &opts.models).unwrap_or(models::UNKNOWN);
        let matches = match (&counter, model.tokenizer) {
            (Counter::Exact(bpe), Tokenizer::O200kBase) => bpe.encoding() == crate::tokens::exact::Encoding::O200kBase,
            (Counter::Exact(bpe), Tokenizer::Cl100kBase) => bpe.encoding() == crate::tokens::exact::Encoding::Cl100kBase,
            (Counter::Estimate { .. }, Tokenizer::Estimate) => true,
            _ => false,
        };
        if !matches {
            return Err(MemoryError::UnknownEncoding(format!("the counter given does not match model {}", opts.model)));
        }
        if opts.segment_bytes < 1024 {
            return Err(MemoryError::input("options.segmentBytes", "must be at least 1024"));
        }
        if opts.namespace.is_empty() || opts.writer.is_empty() || opts.thread.is_empty() {
            return Err(MemoryError::input("options", "namespace, thread and writer must be non-empty"));
        }
        opts.retention.validate()?;
        Ok(Controller {
            opts,
            model,
            counter,
            closed: false,
            window: Window::default(),
            episodic: Episodic::default(),
            semantic: Semantic::default(),
            procedures: None,
            cost: CostLedger::default(),
            last_context: LastContext::default(),
            picks: crate::context::Picks::default(),
            index: SearchIndex::default(),
            others: Vec::new(),
            books: Books::default(),
            partial: None,
        })
    }

    /// A controller restored from every stored value of its namespace
    /// (what `loadRange(storage_prefix())` returned).
    ///
    /// # Errors
    /// Those of [`Controller::new`]; `FORMAT_TOO_NEW`. Damaged values do not
    /// fail the load: they are listed in [`Controller::load_report`].
    pub fn from_storage(opts: Options, counter: Counter, entries: Vec<(Key, Vec<u8>)>) -> Result<Controller> {
        let mut c = Controller::from_loaded(opts, counter, store::load(entries)?)?;
        c.ensure_index();
        Ok(c)
    }

    /// [`Controller::from_storage`] for values already read (`store::Loader`),
    /// the search index left to the first call that needs it
    /// ([`Controller::ensure_index`]): opening does not pay for it.
    ///
    /// # Errors
    /// Those of [`Controller::new`].
    pub fn from_loaded(opts: Options, counter: Counter, loaded: store::Loaded) -> Result<Controller> {
        let mut c = Controller::new(opts, counter)?;
        c.restore(loaded);
        Ok(c)
    }

    /// The prefix under which this controller's namespace is stored.
    pub fn storage_prefix(&self) -> Key {
        store::namespace_prefix(&self.opts.namespace)
    }

    pub(crate) fn open(&self) -> Result<()> {
        if self.closed {
            Err(MemoryError::Closed)
        } else {
            Ok(())
        }
    }

    /// Adds one message (JSON text in the OpenAI shape) at time `now` (ms),
    /// then compacts if due, without storage: for hosts that persist nothing.
    ///
    /// # Errors
    /// See [`Controller::prepare_add`].
    pub fn add(&mut self, message_json: &str, now: f64) -> Result<Added> {
        self.add_message(Message::parse_json(message_json)?, now)
    }

    /// [`Controller::add`] for an already parsed message.
    ///
    /// # Errors
    /// See [`Controller::prepare_add`].
    pub fn add_message(&mut self, mut message: Message, now: f64) -> Result<Added> {
        let redacted = self.opts.redact.message(&mut message);
        let prepared = self.prepare_add_message(message, now)?;
        let (id, tokens) = self.commit_add(prepared);
        let compaction = self.compact_offline(now);
        Ok(Added { id, tokens, compaction, forgotten: None, redacted })
    }

    /// Every message ever added, in order (a part of it: `history_page`).
    pub fn history(&self) -> Vec<HistoryItem> {
        self.window.log.iter().map(|s| self.item(s)).collect()
    }

    /// Whether `id` is a message in memory (archived ones only once the
    /// archive is read).
    pub fn has_message(&self, id: &str) -> bool {
        self.window.log.iter().any(|s| s.id == id)
    }

    /// The log position of a message other than an instruction, by id.
    fn message_at(&self, id: &str) -> Option<usize> {
        if self.index.stale {
            // From the end: what asks (a compaction, a summary, an edit) asks
            // for messages that just left working memory, the log's last.
            return self.window.log.iter().rposition(|s| s.id == id && !s.message.role.is_instruction());
        }
        match self.index.item_place(id)? {
            search::Place::Message(p) => Some(p as usize).filter(|&i| self.window.log.get(i).is_some_and(|s| s.id == id)),
            _ => None,
        }
    }

    /// Every episode, oldest first, once the cold segments are read; before, the
    /// ones opening read (the newest, and those beside working memory).
    pub fn episodes(&self) -> &[Episode] {
        &self.episodic.episodes
    }

    pub fn count_tokens(&self, text: &str) -> usize {
        self.counter.count(text)
    }

    /// Tokens of a request with these messages and tools.
    ///
    /// # Errors
    /// Validation errors of the messages.
    pub fn count_messages(&self, messages: &[Value], tools: &[Value]) -> Result<usize> {
        let parsed = messages.iter().map(Message::parse).collect::<Result<Vec<_>>>()?;
        Ok(request_tokens(&self.counter, &parsed, tools))
    }

    /// Charges a call's usage without storage; returns its USD.
    ///
    /// # Errors
    /// See [`Controller::prepare_usage`].
    pub fn record_usage(&mut self, model: &str, usage: &Usage) -> Result<Option<f64>> {
        let p = self.prepare_usage(model, usage, self.books.last_ts.max(0.0))?;
        Ok(self.commit_usage(p))
    }

    /// Learns from a billed prompt size after a context this controller built.
    fn calibrate(&mut self, billed_prompt: u64) {
        if self.counter.is_exact() {
            return;
        }
        if let Some(raw) = self.last_context.raw.take() {
            if self.counter.calibrate(raw, billed_prompt as f64) {
                let counter = &self.counter;
                self.window.recount(|m| message_tokens(counter, m));
                for e in &mut self.episodic.episodes {
                    e.tokens = counter.count(&e.summary);
                }
            }
        }
    }

    /// Output tokens `usd_left` can pay for after the last built prompt
    /// (or `prompt_tokens`), for `model` (default: this controller's).
    ///
    /// # Errors
    /// `BUDGET_EXHAUSTED` below `floor`; `UNKNOWN_MODEL`; `INVALID_INPUT`.
    pub fn budget_aware_max_tokens(&self, usd_left: f64, model: Option<&str>, prompt_tokens: Option<u64>, floor: u64) -> Result<u64> {
        let price = models::lookup(model.unwrap_or(&self.opts.model), &self.opts.models)?;
        let prompt = prompt_tokens.unwrap_or(self.last_context.tokens.unwrap_or(0) as u64);
        cost::budget_aware_max_tokens(usd_left, &price, prompt, floor)
    }

    pub fn options(&self) -> &Options {
        &self.opts
    }

    pub fn model_info(&self) -> &ModelInfo {
        &self.model
    }

    /// Further calls fail with `CLOSED`.
    pub fn close(&mut self) {
        self.closed = true;
    }
}
