//! `MemoryController` for JS: converts, queues, awaits hooks, delegates.
//!
//! Every async method joins one queue, so calls run in the order they were
//! made, each seeing the ones before it; a change is prepared by the core,
//! saved through the adapter, then committed (see `controller::writes`).
//! No `RefCell` borrow lives across an `await`.

use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;

use super::driver::{spawn, Driver};
use super::embedder::Embedder;
use super::options::{read, search_options, split_hooks, Small};
use super::redact::Redactor;
use super::storage::Storage;
use super::summarizer::Summarizer;
use super::{array_with_fields, degraded_by, from_js, js_error, ranks, to_js, to_json};
use crate::context::{ContextOptions, ContextRequest};
use crate::controller::{Added, Controller, ForgetTarget, Need, Page, Query};
use crate::error::MemoryError;
use crate::models::Tokenizer;
use crate::tokens::estimate::Family;
use crate::tokens::exact::Encoding;
use crate::tokens::Counter;
use crate::write_path::Store;

/// Messages `history()` converts to JS at a time (`Controller::history_pieces`).
const HISTORY_PIECE: usize = 2048;

/// A random writer id: two controllers on one namespace never share one.
fn random_writer() -> String {
    const DIGITS: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    (0..10).filter_map(|_| DIGITS.get((js_sys::Math::random() * 36.0) as usize % 36)).map(|&d| d as char).collect()
}

/// What every async method returns. `Result<Promise, _>` rather than a bare
/// `Promise`: its wasm export then returns several values, never one
/// `externref`. V8 12.4 and older (Node 20 and 22; Node 24's 13.6 is fixed)
/// inline a call to a wasm export returning one `externref` into optimized
/// JS and abort the process ("unreachable code" in
/// `Deoptimizer::DoComputeBuiltinContinuation`) when that JS is deoptimized
/// during the call; an export returning several values is never inlined.
/// `tests/js/v8-deopt.test.mjs` holds the reduced reproduction.
type Async = Result<Promise, JsValue>;

/// One conversation's memory. Create with `await MemoryController.create(options)`.
#[wasm_bindgen]
pub struct MemoryController {
    pub(super) driver: Driver,
    clock: Option<Function>,
}

#[wasm_bindgen]
impl MemoryController {
    /// Creates a controller: loads the model's tokenizer data and, with a
    /// storage adapter, everything stored under the namespace.
    ///
    /// Rejects with a `MemoryError`: `UNKNOWN_MODEL`, `INVALID_INPUT`,
    /// `TOKENIZER_LOAD`, `FORMAT_TOO_NEW`, `STORAGE_ERROR`.
    #[wasm_bindgen(unchecked_return_type = "Promise<MemoryController>")]
    pub fn create(#[wasm_bindgen(unchecked_optional_param_type = "CreateOptions")] options: JsValue) -> Async {
        Self::open_then_import(options, None)
    }

    /// Creates a controller as `create` does, then imports `snapshot` (what
    /// `export` returned) into its namespace: the snapshot's records are
    /// saved as one pack, so every id, timestamp and the order come back;
    /// into a namespace that holds data, the result is the union.
    ///
    /// Rejects with a `MemoryError`: those of `create`; `INVALID_INPUT` for
    /// text that is not a snapshot (naming the line); `FORMAT_TOO_NEW`.
    #[wasm_bindgen(js_name = import, unchecked_return_type = "Promise<MemoryController>")]
    pub fn import(snapshot: String, #[wasm_bindgen(unchecked_optional_param_type = "CreateOptions")] options: JsValue) -> Async {
        Self::open_then_import(options, Some(snapshot))
    }

    /// This namespace as a portable snapshot (JSON lines, versioned):
    /// messages with ids, timestamps and order, every version of every fact,
    /// episodes, procedures, usage, forget tombstones; embeddings with
    /// `{ embeddings: true }`. Never an API key.
    #[wasm_bindgen(js_name = export, unchecked_return_type = "Promise<string>")]
    pub fn export(&self, #[wasm_bindgen(unchecked_optional_param_type = "{ embeddings?: boolean }")] options: JsValue) -> Async {
        let embeddings = Small::read(&options, &["embeddings"]).and_then(|o| o.flag("embeddings"));
        let d = self.driver.clone();
        self.enqueue(async move {
            let reading = d.path.read(Need::Everything).await?;
            Ok(d.path.controller(&reading).export(embeddings?.unwrap_or(false)).map_err(js_error)?.into())
        })
    }
}

impl MemoryController {
    /// `create`, and `import` after it: one future for both (the opening
    /// sequence is the largest future in the wasm).
    fn open_then_import(options: JsValue, snapshot: Option<String>) -> Async {
        Ok(spawn(Box::pin(async move {
            let memory = Self::open(options).await?;
            if let Some(snapshot) = snapshot {
                memory.driver.path.import(&snapshot).await?;
            }
            Ok(JsValue::from(memory))
        })))
    }

    async fn open(options: JsValue) -> Result<MemoryController, JsValue> {
        let (data, [clock, storage, embedder, summarizer, ranks, redact]) = split_hooks(&options)?;
        let redactor = Redactor::from_js(redact)?;
        let clock = match &clock {
            v if v.is_undefined() => None,
            v => Some(
                v.clone()
                    .dyn_into::<Function>()
                    .map_err(|_| js_error(MemoryError::input("options.clock", "expected a function returning milliseconds")))?,
            ),
        };
        let storage = if storage.is_undefined() { None } else { Some(Storage::from_js(storage)?) };
        let embedder = if embedder.is_undefined() { None } else { Some(Embedder::from_js(embedder)?) };
        let create = read::<crate::controller::CreateOptions>(&data, "options")?;
        let summarizer = if summarizer.is_undefined() { None } else { Some(Summarizer::from_js(summarizer)?) };
        let mut opts = create.into_options(random_writer());
        opts.redact = redactor.policy();
        let counter = match Controller::tokenizer_for(&opts.model, &opts.models) {
            Tokenizer::O200kBase => Counter::Exact(ranks::load(Encoding::O200kBase, &ranks).await?),
            Tokenizer::Cl100kBase => Counter::Exact(ranks::load(Encoding::Cl100kBase, &ranks).await?),
            Tokenizer::Estimate => Counter::estimate(Family::of_model(&opts.model).profile()),
        };
        let inner = match &storage {
            // Cold segments are read when first needed (`WritePath::read`).
            Some(_) => {
                let loaded = storage.load_open(&opts.namespace, Some(&opts.thread)).await?;
                Controller::from_loaded(opts, counter, loaded)
            }
            None => Controller::new(opts, counter),
        }
        .map_err(js_error)?;
        let mut driver = Driver::new(inner, storage, embedder, summarizer);
        driver.redactor = redactor;
        // A failure leaves the data readable; the next fold retries.
        let _ = driver.path.upgrade().await;
        let memory = MemoryController { driver, clock };
        // Retention's first pass (the next fold goes on, and retries a
        // failure); the clock is read only when there is one to run.
        if memory.driver.path.held().options().retention.is_set() {
            let _ = memory.driver.path.expire(memory.now()).await;
        }
        Ok(memory)
    }

    fn now(&self) -> f64 {
        match &self.clock {
            Some(f) => f.call0(&JsValue::NULL).ok().and_then(|v| v.as_f64()).unwrap_or(f64::NAN),
            None => js_sys::Date::now(),
        }
    }

    /// `add`, or with `replacing` `replace`: one queued job for both.
    fn add_in_place_of(&self, replacing: Option<String>, message: &JsValue, options: &JsValue) -> Async {
        let (d, now, redactor) = (self.driver.clone(), self.now(), self.driver.redactor.clone());
        let json = to_json(message, "message");
        let task_id = Small::read(options, &["taskId"]).and_then(|o| o.string("taskId"));
        self.enqueue(async move {
            let message = crate::message::Message::parse_json(&json?).map_err(js_error)?;
            let (message, redacted) = redactor.message(message).await?;
            let (forgotten, (id, tokens)) = match replacing {
                Some(old) => d.path.replace(&old, message, task_id?, now).await.map(|(f, added)| (Some(f), added))?,
                None => (None, d.path.add(message, task_id?, now).await?),
            };
            let compaction = d.after_change(now).await;
            to_js(&Added { id, tokens, compaction, forgotten, redacted })
        })
    }

    fn enqueue<F: std::future::Future<Output = Result<JsValue, JsValue>> + 'static>(&self, job: F) -> Async {
        Ok(self.driver.enqueue(Box::pin(job)))
    }
}

#[wasm_bindgen]
impl MemoryController {
    /// Adds one OpenAI-shaped message; resolves once it is saved, to
    /// `{ id, tokens, compaction? }`. If saving fails it rejects and nothing changed.
    /// With a summarizer, compaction runs after `add` resolves (see `flush`).
    #[wasm_bindgen(unchecked_return_type = "Promise<AddResult>")]
    pub fn add(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ChatMessage")] message: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "{ taskId?: string }")] options: JsValue,
    ) -> Async {
        self.add_in_place_of(None, &message, &options)
    }

    /// Adds messages as one change, each at its own time (`at`, ms), as an
    /// import brings them: saved as a few stored values rather than one per
    /// message; resolves once all are saved to `{ ids, tokens, compaction? }`.
    /// A tool result is refused here: add it with `add`, after its call.
    /// If saving fails it rejects and nothing changed.
    #[wasm_bindgen(js_name = addMany, unchecked_return_type = "Promise<AddManyResult>")]
    pub fn add_many(&self, #[wasm_bindgen(unchecked_param_type = "{ message: ChatMessage; at: number }[]")] items: JsValue) -> Async {
        let (d, json) = (self.driver.clone(), to_json(&items, "items"));
        self.enqueue(async move {
            let items = crate::controller::parse_batch(&json?).map_err(js_error)?;
            let now = items.iter().fold(f64::NEG_INFINITY, |t, (_, at)| t.max(*at));
            let added = d.path.add_batch(items).await?;
            let compaction = d.after_change(now).await;
            let tokens = added.iter().map(|(_, t)| t).sum();
            let ids = added.into_iter().map(|(id, _)| id).collect();
            to_js(&crate::controller::AddedMany { ids, tokens, compaction })
        })
    }

    /// Every message ever added, in order, with id, timestamp and place;
    /// with `limit`, only the newest `limit` of them (before the message
    /// `before`, if given), read without reading the rest. Rejects with
    /// `INVALID_INPUT` when `before` names no message.
    #[wasm_bindgen(unchecked_return_type = "Promise<HistoryItem[]>")]
    pub fn history(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "{ limit?: number; before?: string }")] options: JsValue,
    ) -> Async {
        let d = self.driver.clone();
        let page =
            Small::read(&options, &["limit", "before"]).and_then(|o| Ok(Page { limit: o.size("limit")?, before: o.string("before")? }));
        self.enqueue(async move {
            let page = page?;
            let reading = d.path.read(Need::Page(&page)).await?;
            // A piece at a time: one JSON text of everything would double the wasm memory.
            let out = js_sys::Array::new();
            for piece in d.path.controller(&reading).history_pieces(&page, HISTORY_PIECE).map_err(js_error)? {
                for item in js_sys::Array::from(&to_js(&piece)?).iter() {
                    out.push(&item);
                }
            }
            Ok(out.into())
        })
    }

    /// The messages with these ids, as `history()` lists them, in the order
    /// asked; an id no message has is left out. Anything but an array of
    /// strings is `INVALID_INPUT`.
    #[wasm_bindgen(unchecked_return_type = "Promise<HistoryItem[]>")]
    pub fn messages(&self, #[wasm_bindgen(unchecked_param_type = "string[]")] ids: JsValue) -> Async {
        let d = self.driver.clone();
        let ids = from_js::<Vec<String>>(&ids, "messages(ids)");
        self.enqueue(async move {
            let ids = ids?;
            let reading = d.path.read(Need::Ids(&ids)).await?;
            to_js(&d.path.controller(&reading).messages(&ids))
        })
    }

    /// Episodes (summaries of archived ranges), oldest first.
    #[wasm_bindgen(unchecked_return_type = "Promise<Episode[]>")]
    pub fn episodes(&self) -> Async {
        let d = self.driver.clone();
        self.enqueue(async move {
            let reading = d.path.read(Need::Everything).await?;
            to_js(&d.path.controller(&reading).episodes())
        })
    }

    /// The messages to send now, within `maxTokens - reserveOutput`.
    #[wasm_bindgen(js_name = buildContext, unchecked_return_type = "Promise<Context>")]
    pub fn build_context(&self, #[wasm_bindgen(unchecked_optional_param_type = "ContextOptions")] options: JsValue) -> Async {
        let (d, now) = (self.driver.clone(), self.now());
        let options = read::<ContextOptions>(&options, "buildContext");
        self.enqueue(async move {
            let options = options?;
            let (query, task_id) = (options.query.clone(), options.task_id.clone());
            let max_tokens = d.path.held().options().working.max_tokens;
            // A query searches the archive too, and a task's history may be
            // there; if it cannot be read, the context is built from what is
            // in memory and says so. Without an embedder, a query reads only
            // the cold segments' stored terms and episodes and what it finds.
            let lexical = ContextRequest::new(options.clone(), max_tokens, now, None, None);
            let need = match (&query, &d.embedder) {
                (Some(_), None) => Need::Query(Query::Context(&lexical)),
                _ => Need::Context { query: query.is_some(), task: task_id.as_deref() },
            };
            // (twice when the first build shows an archived message the read did not decode)
            loop {
                let (reading, unread) = d.path.read_or_partial(need).await;
                let unread = unread.map(|e| degraded_by(&e));
                let (query_vector, degraded) = match query.as_deref() {
                    Some(q) => match d.embed_query(q, &reading).await {
                        Ok(v) => (v, unread),
                        Err(f) => (None, Some(f)),
                    },
                    None => (None, None),
                };
                let mut inner = d.path.controller_mut(&reading);
                let req = ContextRequest::new(options.clone(), max_tokens, now, query_vector, degraded);
                if let Some(ctx) = inner.build_context_read(&req).map_err(js_error)? {
                    return to_js(&ctx);
                }
            }
        })
    }

    /// Remembers a fact (`key`: a new value supersedes the old, history
    /// kept), a preference (`kind: "preference"`, pinned in every context) or
    /// a document (long text, split into chunks). Resolves once saved.
    #[wasm_bindgen(unchecked_return_type = "Promise<Remembered>")]
    pub fn remember(&self, #[wasm_bindgen(unchecked_param_type = "RememberInput")] input: JsValue) -> Async {
        let (d, now, redactor) = (self.driver.clone(), self.now(), self.driver.redactor.clone());
        let parsed = from_js::<crate::semantic::RememberInput>(&input, "remember");
        self.enqueue(async move {
            let (input, redacted) = redactor.remember(parsed?).await?;
            let out = d.path.remember(input, now).await?;
            d.after_change(now).await;
            to_js(&crate::controller::Remembered { redacted, ..out })
        })
    }

    /// Merges live facts and preferences that say the same, ends those
    /// contradicted by a newer one, and writes a short pinned user profile
    /// (key `profile`) from the facts that hold; nothing is deleted (merged
    /// and ended facts stay in history). With a summarizer the model
    /// decides (a request with `purpose: "consolidation"`, charged to
    /// `cost.byPurpose`), asked only when facts changed since the last
    /// consolidation; without one, or when it fails, times out or answers
    /// garbage, the offline rules do (`degraded` says why). Bounded.
    #[wasm_bindgen(unchecked_return_type = "Promise<Consolidated>")]
    pub fn consolidate(&self) -> Async {
        let (d, now) = (self.driver.clone(), self.now());
        Ok(spawn(Box::pin(async move { d.consolidate(now).await })))
    }

    /// Searches facts, document chunks and every message ever added (working
    /// or archived). Hybrid with an embedder, lexical (BM25) without; if the
    /// embedder fails the result is lexical and its `degraded` says why.
    #[wasm_bindgen(unchecked_return_type = "Promise<SearchResult>")]
    pub fn search(&self, query: String, #[wasm_bindgen(unchecked_optional_param_type = "SearchOptions")] options: JsValue) -> Async {
        let d = self.driver.clone();
        let opts = search_options(&options);
        self.enqueue(async move {
            let opts = opts?;
            // Without an embedder: the cold segments' stored terms and the segments holding the hits.
            let need = if d.embedder.is_none() { Need::Query(Query::Search(&query, &opts)) } else { Need::Everything };
            let reading = d.path.read(need).await?;
            let embedded = d.embed_query(&query, &reading).await;
            let found = d.path.controller_mut(&reading).find(&query, &opts, embedded).map_err(js_error)?;
            array_with_fields(to_js(&found)?, "hits")
        })
    }

    /// Sets behaviour rules and tool definitions (validated; a bad JSON
    /// Schema rejects with `INVALID_TOOL_SCHEMA` naming the tool and path).
    #[wasm_bindgen(js_name = setProcedures, unchecked_return_type = "Promise<void>")]
    pub fn set_procedures(&self, #[wasm_bindgen(unchecked_param_type = "Procedures")] procedures: JsValue) -> Async {
        let (d, now) = (self.driver.clone(), self.now());
        let raw = from_js::<serde_json::Value>(&procedures, "procedures");
        self.enqueue(async move {
            d.path.set_procedures(raw?, now).await?;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// Live facts, preferences and document chunks, oldest first, each
    /// with `validFrom` (and `validUntil` once ended); `{ asOf }` (ms): those
    /// that held then instead.
    #[wasm_bindgen(unchecked_return_type = "Promise<Fact[]>")]
    pub fn facts(&self, #[wasm_bindgen(unchecked_optional_param_type = "{ asOf?: number }")] options: JsValue) -> Async {
        let d = self.driver.clone();
        let as_of = Small::read(&options, &["asOf"]).and_then(|o| o.number("asOf"));
        self.enqueue(async move { to_js(&d.path.held().facts_as_of(as_of?)) })
    }

    /// Every value a key has had, oldest first (the last one is live).
    #[wasm_bindgen(js_name = factHistory, unchecked_return_type = "Promise<Fact[]>")]
    pub fn fact_history(&self, key: String) -> Async {
        let d = self.driver.clone();
        self.enqueue(async move { to_js(&d.path.held().fact_history(&key)) })
    }

    /// Charges one call's reported usage, as the client returned it (the
    /// openai, DeepSeek, Anthropic or AI SDK usage object, a response with
    /// `usage` and `model`, or `{ promptTokens, completionTokens }`).
    /// Resolves once saved to its cost in USD, or `null` for a model without
    /// a known price. The model: `options.model`, else the object's `model`,
    /// else the controller's.
    #[wasm_bindgen(js_name = recordUsage, unchecked_return_type = "Promise<number | null>")]
    pub fn record_usage(
        &self,
        #[wasm_bindgen(unchecked_param_type = "UsageInput")] usage: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "{ model?: string }")] options: JsValue,
    ) -> Async {
        let (d, now) = (self.driver.clone(), self.now());
        let parsed = from_js::<serde_json::Value>(&usage, "usage").and_then(|v| crate::usage::read(&v).map_err(js_error));
        let option_model = Small::read(&options, &["model"]).and_then(|o| o.string("model"));
        self.enqueue(async move {
            let mut reported = parsed?;
            let model = reported.charged_model(option_model?, &d.path.held().options().model);
            let usd = d.path.record_usage(&model, &reported.usage, "chat", now).await?;
            d.after_change(now).await;
            Ok(usd.map_or(JsValue::NULL, JsValue::from_f64))
        })
    }

    /// Forgets a message (its id), a fact, key or document (its id, or
    /// `{ key }`), a time range of this thread `{ from, to }` (ms,
    /// inclusive), a whole thread `{ thread }` (with the facts its summaries
    /// taught) or the whole namespace `{ namespace: true }`: the content
    /// leaves storage itself, and so does every episode summary derived from
    /// it (summarized again from what remains, or dropped).
    #[wasm_bindgen(unchecked_return_type = "Promise<ForgetResult>")]
    pub fn forget(
        &self,
        #[wasm_bindgen(
            unchecked_param_type = "string | { id: string } | { key: string } | { from: number; to: number } | { thread: string } | { namespace: true }"
        )]
        target: JsValue,
    ) -> Async {
        let (d, now) = (self.driver.clone(), self.now());
        let parsed = from_js::<serde_json::Value>(&target, "forget").and_then(|v| ForgetTarget::from_json(&v).map_err(js_error));
        self.enqueue(async move { to_js(&d.path.forget(&parsed?, now).await?) })
    }

    /// The namespace's threads, the most recently written first: `{ thread,
    /// messages, firstAt, lastAt, title? }` (the title: the first line of
    /// the first user message). Read from storage, so threads other
    /// controllers wrote are listed too.
    #[wasm_bindgen(unchecked_return_type = "Promise<ThreadInfo[]>")]
    pub fn threads(&self) -> Async {
        let d = self.driver.clone();
        self.enqueue(async move { to_js(&d.path.threads().await?) })
    }

    /// Drops every message after `id` (a chat UI's regenerate), and what was
    /// derived from them, as `forget` does.
    #[wasm_bindgen(js_name = truncateAfter, unchecked_return_type = "Promise<ForgetResult>")]
    pub fn truncate_after(&self, id: String) -> Async {
        let (d, now) = (self.driver.clone(), self.now());
        self.enqueue(async move { to_js(&d.path.forget(&ForgetTarget::Tail { from: id, inclusive: false }, now).await?) })
    }

    /// Replaces the message `id` and everything after it with `message` (a
    /// chat UI's edit), in one change, and resolves like `add` with
    /// `forgotten`: what was removed, as `forget` reports it.
    #[wasm_bindgen(unchecked_return_type = "Promise<AddResult>")]
    pub fn replace(
        &self,
        id: String,
        #[wasm_bindgen(unchecked_param_type = "ChatMessage")] message: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "{ taskId?: string }")] options: JsValue,
    ) -> Async {
        self.add_in_place_of(Some(id), &message, &options)
    }

    /// Resolves when every call made before it, and the background
    /// compaction they started (summaries), have settled.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn flush(&self) -> Async {
        let d = self.driver.clone();
        Ok(spawn(Box::pin(async move {
            d.flush().await;
            Ok(JsValue::UNDEFINED)
        })))
    }

    /// Tokens of `text` for this controller's model (exact for tiktoken models).
    #[wasm_bindgen(js_name = countTokens)]
    pub fn count_tokens(&self, #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue) -> Result<usize, JsValue> {
        let text = super::retrieval::text(&text, "text")?;
        Ok(self.driver.path.held().count_tokens(&text))
    }

    /// Tokens a chat request with these messages (and tool definitions) costs.
    #[wasm_bindgen(js_name = countMessages)]
    pub fn count_messages(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ChatMessage[]")] messages: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "ToolDefinition[]")] tools: JsValue,
    ) -> Result<usize, JsValue> {
        let messages: Vec<serde_json::Value> = from_js(&messages, "messages")?;
        let tools: Vec<serde_json::Value> = read(&tools, "tools")?;
        self.driver.path.held().count_messages(&messages, &tools).map_err(js_error)
    }

    /// The most output tokens `usdLeft` pays for after the last built prompt.
    /// Throws `BUDGET_EXHAUSTED` below `floor` (default 16).
    #[wasm_bindgen(js_name = budgetAwareMaxTokens)]
    #[allow(non_snake_case)] // parameter names are what the .d.ts shows
    pub fn budget_aware_max_tokens(
        &self,
        usdLeft: f64,
        model: Option<String>,
        #[wasm_bindgen(unchecked_optional_param_type = "{ promptTokens?: number; floor?: number }")] options: JsValue,
    ) -> Result<f64, JsValue> {
        let o = Small::read(&options, &["promptTokens", "floor"])?;
        let n = self
            .driver
            .path
            .held()
            .budget_aware_max_tokens(
                usdLeft,
                model.as_deref(),
                o.count("promptTokens")?,
                o.count("floor")?.unwrap_or(crate::cost::OUTPUT_FLOOR),
            )
            .map_err(js_error)?;
        Ok(n as f64)
    }

    /// Messages, tokens per layer, episodes and cost.
    #[wasm_bindgen(unchecked_return_type = "Stats")]
    pub fn stats(&self) -> Result<JsValue, JsValue> {
        to_js(&self.driver.path.held().stats())
    }

    /// What `create` found in storage: record counts and damaged keys
    /// (`CORRUPT_DATA`), which were skipped while everything intact loaded.
    /// Cold segments (messages summaries cover) are read when first
    /// needed (search, a query, recall, history, export, forget) and
    /// counted from then on.
    #[wasm_bindgen(js_name = loadReport, unchecked_return_type = "LoadReport")]
    pub fn load_report(&self) -> Result<JsValue, JsValue> {
        to_js(self.driver.path.held().load_report())
    }

    /// Waits for queued calls and background compaction, then closes;
    /// later calls fail with `CLOSED`.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn close(&self) -> Async {
        let d = self.driver.clone();
        Ok(spawn(Box::pin(async move {
            d.flush().await;
            d.path.close();
            Ok(JsValue::UNDEFINED)
        })))
    }
}
