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
use super::storage::Storage;
use super::summarizer::Summarizer;
use crate::controller::{CompactionEvent, CompactionJob, Controller};
use crate::cost::Usage;
use crate::store::Write;

pub type Inner = Rc<RefCell<Controller>>;

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

#[derive(Clone)]
pub struct Driver {
    pub inner: Inner,
    pub storage: Option<Storage>,
    pub embedder: Option<Embedder>,
    pub summarizer: Option<Summarizer>,
    /// The last queued change; the next one starts when it settles.
    tail: Rc<RefCell<Promise>>,
    /// The compaction waiting for a summary, if any (at most one).
    background: Rc<RefCell<Option<Promise>>>,
    compacting: Rc<Cell<bool>>,
}

impl Driver {
    pub fn new(inner: Controller, storage: Option<Storage>, embedder: Option<Embedder>, summarizer: Option<Summarizer>) -> Driver {
        Driver {
            inner: Rc::new(RefCell::new(inner)),
            storage,
            embedder,
            summarizer,
            tail: Rc::new(RefCell::new(Promise::resolve(&JsValue::UNDEFINED))),
            background: Rc::new(RefCell::new(None)),
            compacting: Rc::new(Cell::new(false)),
        }
    }

    /// Runs `job` after every change queued before it. The job comes boxed:
    /// one `future_to_promise` serves every method (a generic one per
    /// method cost the wasm about 6 KB gzip).
    pub fn enqueue(&self, job: Job) -> Promise {
        let prev = self.tail.borrow().clone();
        let promise = spawn(Box::pin(async move {
            let _ = JsFuture::from(prev).await; // its caller sees its error
            job.await
        }));
        *self.tail.borrow_mut() = promise.clone();
        promise
    }

    /// Resolves once the queue and any background compaction have settled.
    pub async fn flush(&self) {
        loop {
            let tail = self.tail.borrow().clone();
            let _ = JsFuture::from(tail.clone()).await;
            let bg = self.background.borrow().clone();
            if let Some(bg) = bg {
                let _ = JsFuture::from(bg).await;
            }
            if self.background.borrow().is_none() && JsValue::from(self.tail.borrow().clone()) == JsValue::from(tail) {
                break;
            }
        }
    }

    /// Saves one write if there is storage; without storage there is nothing to wait for.
    pub async fn save(&self, w: &Write) -> Result<(), JsValue> {
        match &self.storage {
            Some(s) => s.save(&w.key, &w.bytes).await,
            None => Ok(()),
        }
    }

    async fn save_all(&self, writes: &[Write]) -> Result<(), JsValue> {
        for w in writes {
            self.save(w).await?;
        }
        Ok(())
    }

    /// After a committed change: compaction (offline at once, or a summary
    /// in the background), then folding. Failures here lose nothing (the
    /// change is saved) and are retried after the next change.
    pub async fn after_change(&self, now: f64) -> Option<CompactionEvent> {
        let mut event = None;
        if self.summarizer.is_some() {
            self.start_summary(now);
        } else {
            let job = self.inner.borrow_mut().begin_compaction();
            if let Some(job) = job {
                event = self.finish(job, None, now).await;
            }
        }
        self.fold().await;
        event
    }

    async fn finish(&self, job: CompactionJob, answer: Option<&str>, now: f64) -> Option<CompactionEvent> {
        let p = self.inner.borrow().finish_compaction(job, answer, now)?;
        match self.save_all(&p.writes).await {
            Ok(()) => Some(self.inner.borrow_mut().commit_compaction(p)),
            Err(_) => {
                self.inner.borrow_mut().abort_compaction(p);
                None
            }
        }
    }

    /// Starts one background compaction if one is due and none is running.
    fn start_summary(&self, now: f64) {
        if self.compacting.get() {
            return;
        }
        let Some(job) = self.inner.borrow_mut().begin_compaction() else { return };
        self.compacting.set(true);
        let this = self.clone();
        let task = spawn(Box::pin(async move {
            let summarizer = this.summarizer.clone().expect("checked by the caller");
            let answer = summarizer.summarize(&job.request).await;
            let driver = this.clone();
            let commit = this.enqueue(Box::pin(async move {
                if let Some((model, prompt, completion)) = &answer.usage {
                    driver.charge(model, *prompt, *completion, "summarizer", now).await;
                }
                driver.finish(job, answer.text.as_deref(), now).await;
                driver.compacting.set(false);
                *driver.background.borrow_mut() = None;
                // Messages added meanwhile may call for another round.
                driver.start_summary(now);
                driver.fold().await;
                Ok(JsValue::UNDEFINED)
            }));
            JsFuture::from(commit).await
        }));
        *self.background.borrow_mut() = Some(task);
    }

    /// Charges a hook's reported usage at its model's price; an unknown model is not charged.
    pub async fn charge(&self, model: &str, prompt: u64, completion: u64, purpose: &str, now: f64) {
        let usage = Usage { prompt_tokens: prompt, completion_tokens: completion, ..Usage::default() };
        let prepared = self.inner.borrow().prepare_usage_for(model, &usage, purpose, now);
        if let Ok(p) = prepared {
            if self.save(&p.write).await.is_ok() {
                self.inner.borrow_mut().commit_usage(p);
            }
        }
    }

    async fn fold(&self) {
        // Without storage there is nothing to fold, and building a pack of
        // every record on each change would make adds O(n).
        let Some(s) = &self.storage else { return };
        let pack = self.inner.borrow().prepare_pack();
        if let Some(p) = pack {
            if s.save(&p.write.key, &p.write.bytes).await.is_ok() {
                let (remove, new_key) = (p.remove.clone(), p.write.key.clone());
                self.inner.borrow_mut().commit_pack(p);
                for key in remove.iter().filter(|k| **k != new_key) {
                    // A key left behind holds duplicates of packed records; loading ignores them.
                    let _ = s.remove(key).await;
                }
            }
        }
    }

    /// Embeds items that have no vector yet (saved as records), then the query.
    pub async fn embed_query(&self, query: &str) -> Result<Option<Vec<f32>>, EmbedFailure> {
        let Some(embedder) = &self.embedder else { return Ok(None) };
        let fail = |e: crate::MemoryError| EmbedFailure { code: e.code().into(), message: e.to_string() };
        for _ in 0..EMBED_BATCHES {
            let pending = self.inner.borrow().unembedded(EMBED_BATCH);
            if pending.is_empty() {
                break;
            }
            let (ids, texts): (Vec<String>, Vec<String>) = pending.into_iter().unzip();
            let vectors = embedder.embed(&texts, false).await?;
            let prepared = self.inner.borrow().prepare_embeddings(ids, vectors).map_err(fail)?;
            if self.save_all(&prepared.writes).await.is_err() {
                break; // vectors not stored are not used: memory stays as storage has it
            }
            self.inner.borrow_mut().commit_embeddings(prepared);
        }
        let mut v = embedder.embed(&[query.to_string()], true).await?;
        let q = v.pop().ok_or_else(|| EmbedFailure { code: "EMBEDDER_INVALID".into(), message: "no vector for the query".into() })?;
        self.inner.borrow().check_embeddings(&["query".into()], std::slice::from_ref(&q)).map_err(fail)?;
        Ok(Some(q))
    }
}
