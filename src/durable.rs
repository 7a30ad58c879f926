//! A controller bound to synchronous storage, for native Rust hosts and for
//! fault-injection tests. Every change runs the shared write path
//! ([`crate::write_path`]), the same sequence the wasm layer drives with
//! the JS adapters; here its futures are always ready, so each call
//! completes in one poll.

use std::cell::{Ref, RefCell, RefMut};
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

use crate::context::ContextRequest;
use crate::controller::{Added, Controller, ForgetTarget, Forgotten, Hit, Options, Query, Remembered, SearchOptions};
use crate::cost::Usage;
use crate::error::{MemoryError, Result};
use crate::message::Message;
use crate::semantic::RememberInput;
use crate::store::Key;
use crate::tokens::Counter;
use crate::write_path::{Held, Need, Store, WritePath};

/// Bytes in, bytes out; keys are opaque segment lists. A prefix matches
/// whole segments only.
pub trait Storage {
    /// # Errors
    /// Any message describing the failure.
    fn load_range(&mut self, prefix: &[String]) -> std::result::Result<Vec<(Key, Vec<u8>)>, String>;
    /// # Errors
    /// Any message describing the failure; the key must then hold its old value or the new one.
    fn save(&mut self, key: &[String], bytes: &[u8]) -> std::result::Result<(), String>;
    /// # Errors
    /// Any message describing the failure.
    fn remove(&mut self, key: &[String]) -> std::result::Result<(), String>;
    /// # Errors
    /// Any message describing the failure.
    fn remove_range(&mut self, prefix: &[String]) -> std::result::Result<(), String>;
}

fn storage_error(op: &str, reason: String) -> MemoryError {
    MemoryError::Storage { op: op.to_string(), reason }
}

/// A synchronous [`Storage`] as the write path's [`Store`].
pub struct SyncStore<S>(RefCell<S>);

impl<S: Storage> Store for SyncStore<S> {
    type Error = MemoryError;
    async fn save(&self, key: &[String], bytes: &[u8]) -> Result<()> {
        self.0.borrow_mut().save(key, bytes).map_err(|e| storage_error("save", e))
    }
    async fn remove(&self, key: &[String]) -> Result<()> {
        self.0.borrow_mut().remove(key).map_err(|e| storage_error("remove", e))
    }
    async fn remove_range(&self, prefix: &[String]) -> Result<()> {
        self.0.borrow_mut().remove_range(prefix).map_err(|e| storage_error("removeRange", e))
    }
    async fn load_into(&self, prefix: &[String], loader: &mut crate::store::Loader) -> Result<()> {
        for (key, bytes) in self.0.borrow_mut().load_range(prefix).map_err(|e| storage_error("loadRange", e))? {
            loader.push(key, &bytes)?;
        }
        Ok(())
    }
}

/// Runs a write-path future over a [`SyncStore`]: it awaits nothing that
/// can be pending, so one poll completes it.
fn ready<T>(future: impl Future<Output = T>) -> Result<T> {
    match pin!(future).poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(v) => Ok(v),
        Poll::Pending => Err(MemoryError::Storage { op: "poll".into(), reason: "a synchronous store's operation did not complete".into() }),
    }
}

pub struct Durable<S: Storage> {
    path: WritePath<SyncStore<S>>,
    /// The last failure of background work (compaction, folding), if any.
    pub last_background_error: Option<MemoryError>,
}

impl<S: Storage> Durable<S> {
    /// Loads the namespace and restores it, then rewrites what must not
    /// stay as stored (0.1's format, forgotten content another writer
    /// left); if that fails the data still loads, and the next fold retries.
    ///
    /// # Errors
    /// `STORAGE_ERROR` when loading fails; those of [`Controller::from_storage`].
    pub fn open(opts: Options, counter: Counter, storage: S) -> Result<Durable<S>> {
        // As the package opens: cold segments are read when first needed.
        let store = SyncStore(RefCell::new(storage));
        let loaded = ready(store.load_open(&opts.namespace, Some(&opts.thread)))??;
        let controller = Controller::from_loaded(opts, counter, loaded)?;
        let mut durable = Durable { path: WritePath::new(controller, store), last_background_error: None };
        durable.last_background_error = ready(durable.path.upgrade())?.err();
        Ok(durable)
    }

    /// The controller, the cold segments opening left unread read first
    /// ([`WritePath::read`]): every read through it sees every message.
    ///
    /// # Errors
    /// `STORAGE_ERROR`, `FORMAT_TOO_NEW` when the cold segments cannot be read; memory is unchanged.
    pub fn controller(&self) -> Result<Ref<'_, Controller>> {
        self.read(Need::Everything)
    }

    /// The controller for a read of `need`: what it touches of the cold segments
    /// is read first, and only that ([`WritePath::read`]).
    ///
    /// # Errors
    /// As [`Durable::controller`].
    pub fn read(&self, need: Need<'_>) -> Result<Ref<'_, Controller>> {
        let reading = ready(self.path.read(need))??;
        Ok(self.path.controller(&reading))
    }

    /// Searches as [`Controller::search`] (lexical), reading of the cold segments
    /// only its stored terms and episodes and the segments holding the hits
    /// (`controller::partial`).
    ///
    /// # Errors
    /// As [`Durable::controller`]; those of [`Controller::search`].
    pub fn search(&self, query: &str, opts: &SearchOptions) -> Result<Vec<Hit>> {
        let reading = ready(self.path.read(Need::Query(Query::Search(query, opts))))??;
        self.path.controller_mut(&reading).search(query, opts, None)
    }

    /// Builds a context as [`Controller::build_context`], reading of the
    /// archive what its query needs (as [`Durable::search`]).
    ///
    /// # Errors
    /// As [`Durable::controller`]; those of [`Controller::build_context`].
    pub fn build_context(&self, req: &ContextRequest) -> Result<crate::context::Context> {
        let need = match req.query {
            Some(_) => Need::Query(Query::Context(req)),
            None => Need::Context { query: false, task: req.task_id.as_deref() },
        };
        // (twice when the first build shows an archived message the read did not decode)
        loop {
            let reading = ready(self.path.read(need))??;
            if let Some(ctx) = self.path.controller_mut(&reading).build_context_read(req)? {
                return Ok(ctx);
            }
        }
    }

    /// The controller as memory holds it, for what reads no archived message.
    pub fn held(&self) -> Held<'_> {
        self.path.held()
    }

    /// The storage, e.g. to swap in a faulty one mid-test.
    pub fn storage(&self) -> RefMut<'_, S> {
        self.path.store.0.borrow_mut()
    }

    /// Compaction, then folding; a failure is kept in `last_background_error`.
    fn settle(&mut self, now: f64) -> Result<Option<crate::controller::CompactionEvent>> {
        let (event, error) = ready(self.path.settle(now))?;
        if error.is_some() {
            self.last_background_error = error;
        }
        Ok(event)
    }

    /// # Errors
    /// Validation errors; `STORAGE_ERROR` when the save fails (nothing changed).
    pub fn add(&mut self, message: Message, now: f64) -> Result<Added> {
        self.add_in_task(message, None, now)
    }

    /// `add`, the message a step of `task` (its episodes carry the task).
    ///
    /// # Errors
    /// As [`Durable::add`].
    pub fn add_in_task(&mut self, mut message: Message, task: Option<String>, now: f64) -> Result<Added> {
        let redacted = self.policy().message(&mut message);
        let (id, tokens) = ready(self.path.add(message, task, now))??;
        let compaction = self.settle(now)?;
        Ok(Added { id, tokens, compaction, forgotten: None, redacted })
    }

    /// # Errors
    /// See [`Controller::prepare_usage`]; `STORAGE_ERROR`.
    pub fn record_usage(&mut self, model: &str, usage: &Usage, now: f64) -> Result<Option<f64>> {
        let usd = ready(self.path.record_usage(model, usage, "chat", now))??;
        self.settle(now)?;
        Ok(usd)
    }

    /// # Errors
    /// See [`Controller::prepare_remember`]; `STORAGE_ERROR` (nothing changed).
    pub fn remember(&mut self, mut input: RememberInput, now: f64) -> Result<Remembered> {
        let redacted = self.policy().remember(&mut input);
        let out = ready(self.path.remember(input, now))??;
        self.settle(now)?;
        Ok(Remembered { redacted, ..out })
    }

    /// # Errors
    /// See [`Controller::prepare_procedures`]; `STORAGE_ERROR` (nothing changed).
    pub fn set_procedures(&mut self, raw: serde_json::Value, now: f64) -> Result<()> {
        ready(self.path.set_procedures(raw, now))?
    }

    /// Stores vectors for items that had none ([`Controller::unembedded`]).
    ///
    /// # Errors
    /// `EMBEDDER_INVALID`; `STORAGE_ERROR` (nothing changed).
    pub fn store_embeddings(&mut self, ids: Vec<String>, vectors: Vec<Vec<f32>>) -> Result<()> {
        ready(self.path.store_embeddings(ids, vectors))??
    }

    /// Forgets messages, facts or the namespace: their records, and every
    /// episode derived from them, leave storage. A key that could not be
    /// removed is retried by the next fold and counted in `pending_removals`.
    ///
    /// # Errors
    /// See [`Controller::prepare_forget`]; `STORAGE_ERROR` if the tombstone or
    /// the pack could not be saved (nothing changed).
    pub fn forget(&mut self, target: &ForgetTarget, now: f64) -> Result<Forgotten> {
        ready(self.path.forget(target, now))?
    }

    /// Retention's pass at `now` (`controller::retention`): forgets what is
    /// past its age, at most `maxPerCall` records; every change runs one
    /// after its fold. A host calls it after opening, as the package does.
    ///
    /// # Errors
    /// As [`Durable::forget`].
    pub fn expire(&mut self, now: f64) -> Result<Option<Forgotten>> {
        ready(self.path.expire(now))?
    }

    /// Replaces the message `id` and everything after it with `message`.
    ///
    /// # Errors
    /// See [`Controller::prepare_replace`]; `STORAGE_ERROR` (nothing changed).
    pub fn replace(&mut self, id: &str, mut message: Message, now: f64) -> Result<Added> {
        let redacted = self.policy().message(&mut message);
        let (forgotten, (id, tokens)) = ready(self.path.replace(id, message, None, now))??;
        let compaction = self.settle(now)?;
        Ok(Added { id, tokens, compaction, forgotten: Some(forgotten), redacted })
    }

    /// What `add`, `replace` and `remember` redact (`Options::redact`).
    fn policy(&self) -> crate::redact::Policy {
        self.path.held().options().redact
    }

    /// Imports a snapshot ([`Controller::export`]'s text) into this namespace.
    ///
    /// # Errors
    /// See [`WritePath::import`].
    pub fn import(&mut self, snapshot: &str) -> Result<()> {
        ready(self.path.import(snapshot))?
    }

    /// Forgets the whole namespace: every stored key under it, then memory.
    ///
    /// # Errors
    /// `STORAGE_ERROR` (memory is kept as it was).
    pub fn forget_namespace(&mut self) -> Result<()> {
        self.forget(&ForgetTarget::Namespace, 0.0).map(|_| ())
    }
}
