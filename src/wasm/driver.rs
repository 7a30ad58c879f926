//! Drives the core's plans with the host's hooks: saves through the storage
//! adapter, embeds through the embedder, summarizes in the background.
//!
//! One queue orders every change; a compaction waiting for its summary runs
//! outside it (so `add` never waits for a model) and queues only its commit.
//! No `RefCell` borrow lives across an `await`.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::rc::Rc;

use js_sys::Promise;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::{future_to_promise, JsFuture};

use super::embedder::{EmbedFailure, Embedder};
use super::redact::Redactor;
use super::storage::Storage;
use super::summarizer::{Answer, Summarizer};
use super::{js_error, to_js};
use crate::context::Degraded;
use crate::controller::{Asked, CompactionEvent, Controller};
use crate::cost::Usage;
use crate::write_path::{Reading, Store, WritePath};

/// A queued call's work.
pub type Job = std::pin::Pin<Box<dyn Future<Output = Result<JsValue, JsValue>>>>;

/// `future_to_promise` for every future here, boxed: one instance of its
/// machinery instead of one per call site.
pub fn spawn(job: Job) -> Promise {
    future_to_promise(job)
}

/// Most items embedded per batch, and batches per call, so a large backlog
/// does not stall one search.
const EMBED_BATCH: usize = 64;
const EMBED_BATCHES: usize = 8;

/// The JS adapter as the write path's store; without one nothing is kept.
impl Store for Option<Storage> {
    type Error = JsValue;
    async fn save(&self, key: &[String], bytes: &[u8]) -> Result<(), JsValue> {
        match self {
            Some(s) => s.save(key, bytes).await,
            None => Ok(()),
        }
    }
    async fn remove(&self, key: &[String]) -> Result<(), JsValue> {
        match self {
            Some(s) => s.remove(key).await,
            None => Ok(()),
        }
    }
    async fn remove_range(&self, prefix: &[String]) -> Result<(), JsValue> {
        match self {
            Some(s) => s.remove_range(prefix).await,
            None => Ok(()),
        }
    }
    async fn load_into(&self, prefix: &[String], loader: &mut crate::store::Loader) -> Result<(), JsValue> {
        match self {
            Some(s) => s.load_into(prefix, loader).await,
            None => Ok(()),
        }
    }
    fn persists(&self) -> bool {
        self.is_some()
    }
}

#[derive(Clone)]
pub struct Driver {
    /// The controller and the adapter: every change, and every read, goes through it.
    pub path: WritePath<Option<Storage>>,
    pub embedder: Option<Embedder>,
    pub summarizer: Option<Summarizer>,
    /// Who redacts what is stored, and a query before it is embedded.
    pub redactor: Redactor,
    /// The last queued change; the next one starts when it settles.
    tail: Rc<RefCell<Promise>>,
    /// The compaction waiting for a summary, if any (at most one).
    background: Rc<RefCell<Option<Promise>>>,
    compacting: Rc<Cell<bool>>,
}

impl Driver {
    pub fn new(inner: Controller, storage: Option<Storage>, embedder: Option<Embedder>, summarizer: Option<Summarizer>) -> Driver {
        let path = WritePath::new(inner, storage);
        Driver {
            path,
            embedder,
            summarizer,
            redactor: Redactor::Core(crate::redact::Policy::default()),
            tail: Rc::new(RefCell::new(Promise::resolve(&JsValue::UNDEFINED))),
            background: Rc::new(RefCell::new(None)),
            compacting: Rc::new(Cell::new(false)),
        }
    }

    /// The queue's last promise. These four borrow the two cells (a
    /// `RefCell` borrow is `#[track_caller]`: a panic site per use).
    #[inline(never)]
    fn tail(&self) -> Promise {
        self.tail.borrow().clone()
    }

    #[inline(never)]
    fn tail_to(&self, promise: Promise) {
        *self.tail.borrow_mut() = promise;
    }

    /// The summary running in the background, if any.
    #[inline(never)]
    fn background(&self) -> Option<Promise> {
        self.background.borrow().clone()
    }

    #[inline(never)]
    fn background_to(&self, task: Option<Promise>) {
        *self.background.borrow_mut() = task;
    }

    /// Runs `job` after every change queued before it. The job comes boxed:
    /// one `future_to_promise` serves every method (a generic one per
    /// method cost the wasm about 6 KB gzip).
    pub fn enqueue(&self, job: Job) -> Promise {
        let prev = self.tail();
        let promise = spawn(Box::pin(async move {
            let _ = JsFuture::from(prev).await; // its caller sees its error
            super::trap_if_armed();
            job.await
        }));
        self.tail_to(promise.clone());
        promise
    }

    /// Resolves once the queue and any background compaction have settled.
    pub async fn flush(&self) {
        loop {
            let tail = self.tail();
            let _ = JsFuture::from(tail.clone()).await;
            let bg = self.background();
            if let Some(bg) = bg {
                let _ = JsFuture::from(bg).await;
            }
            if self.background().is_none() && JsValue::from(self.tail()) == JsValue::from(tail) {
                break;
            }
        }
    }

    /// After a committed change: compaction (offline at once, or a summary
    /// in the background), then folding and retention. Failures here lose nothing (the
    /// change is saved) and are retried after the next change.
    pub async fn after_change(&self, now: f64) -> Option<CompactionEvent> {
        if self.summarizer.is_none() {
            return self.path.settle(now).await.0;
        }
        // Archived at once, summarized in turn: one request per range.
        self.path.queue_compaction();
        self.start_summary(now);
        let _ = self.path.fold().await;
        let _ = self.path.expire(now).await;
        None
    }

    /// Summarizes the oldest queued range in the background, if one waits
    /// and none is running; a range the queue gave the offline summary is
    /// recorded without asking.
    fn start_summary(&self, now: f64) {
        let Some(summarizer) = self.summarizer.clone() else { return };
        if self.compacting.get() {
            return;
        }
        let Some(mut job) = self.path.next_summary() else { return };
        self.compacting.set(true);
        let this = self.clone();
        let task = spawn(Box::pin(async move {
            let mut answer = if job.ask() { summarizer.summarize(&job.request).await } else { Default::default() };
            if let Some(why) = answer.failure.take() {
                job.failed(why);
            }
            let driver = this.clone();
            let commit = this.enqueue(Box::pin(async move {
                driver.charge(&answer, "summarizer", now).await;
                // A failed save leaves the range in the window for the next round.
                let _ = driver.path.compact(job, answer.text.as_deref(), now).await;
                driver.compacting.set(false);
                driver.background_to(None);
                // The next range in the queue, if any.
                driver.start_summary(now);
                let _ = driver.path.fold().await;
                Ok(JsValue::UNDEFINED)
            }));
            JsFuture::from(commit).await
        }));
        self.background_to(Some(task));
    }

    /// Charges what the summarizer reported it used, to `purpose`. An
    /// unknown model or a failed save leaves the call uncharged, and what
    /// it answered is used all the same.
    async fn charge(&self, answer: &Answer, purpose: &str, now: f64) {
        if let Some((model, prompt, completion)) = &answer.usage {
            let usage = Usage { prompt_tokens: *prompt, completion_tokens: *completion, ..Usage::default() };
            let _ = self.path.record_usage(model, &usage, purpose, now).await;
        }
    }

    /// Consolidates (`controller::consolidate`) after the changes queued
    /// before this call. With a summarizer, its request is built then, the
    /// model is awaited outside the queue (changes go on meanwhile), and
    /// its answer is applied in turn, checked against what holds by then;
    /// an answer that is missing or unusable leaves the offline rules to
    /// decide.
    pub async fn consolidate(&self, now: f64) -> Result<JsValue, JsValue> {
        let mut asked = None;
        if let Some(summarizer) = &self.summarizer {
            // The request sees every change queued before this call.
            JsFuture::from(self.enqueue(Box::pin(async { Ok(JsValue::UNDEFINED) }))).await?;
            match self.path.consolidation_request().map_err(js_error)? {
                Some(request) => asked = Some((summarizer.consolidate(&request).await, request)),
                None => return to_js(&crate::controller::Consolidated::default()),
            }
        }
        let d = self.clone();
        JsFuture::from(self.enqueue(Box::pin(async move {
            let mut model = None;
            if let Some((answer, request)) = &asked {
                d.charge(answer, "consolidation", now).await;
                let text = answer.text.as_deref().ok_or_else(|| {
                    answer.failure.clone().unwrap_or_else(|| Degraded { code: "SUMMARIZER_FAILED".into(), message: "no answer".into() })
                });
                model = Some(Asked { request, answer: text });
            }
            to_js(&d.path.consolidate(now, model).await?)
        })))
        .await
    }

    /// Embeds items that have no vector yet (saved as records), then the
    /// query; for a read `reading` made ready.
    pub async fn embed_query(&self, query: &str, reading: &Reading) -> Result<Option<Vec<f32>>, EmbedFailure> {
        // Every caller (search, recall, a context's query) reads the search
        // index next, and vectors are checked against it: built now if a
        // restored controller has not built it yet.
        self.path.controller_mut(reading).ensure_index();
        let Some(embedder) = &self.embedder else { return Ok(None) };
        let fail = |e: crate::MemoryError| EmbedFailure { code: e.code().into(), message: e.to_string() };
        for _ in 0..EMBED_BATCHES {
            let pending = self.path.controller(reading).unembedded(EMBED_BATCH);
            if pending.is_empty() {
                break;
            }
            let (ids, texts): (Vec<String>, Vec<String>) = pending.into_iter().unzip();
            let vectors = embedder.embed(&texts, false).await?;
            if self.path.store_embeddings(ids, vectors).await.map_err(fail)?.is_err() {
                break; // vectors not stored are not used: memory stays as storage has it
            }
        }
        // The query may be a user's turn (the AI SDK middleware's is): the
        // embedder gets it redacted as the stored turn was; if the host's
        // function fails, the search is lexical and says so.
        let query = self.redactor.query(query).await.map_err(|e| super::hook::failure(&e, "REDACT_FAILED"))?;
        let mut v = embedder.embed(&[query], true).await?;
        let q = v.pop().ok_or_else(|| EmbedFailure { code: "EMBEDDER_INVALID".into(), message: "no vector for the query".into() })?;
        self.path.controller(reading).check_embeddings(&["query".into()], std::slice::from_ref(&q)).map_err(fail)?;
        Ok(Some(q))
    }
}
