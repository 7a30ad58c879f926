//! A controller bound to synchronous storage, for native Rust hosts and for
//! fault-injection tests. The wasm layer drives the same sequence with
//! async JS adapters (`src/wasm/controller.rs`).
//!
//! Durability contract: `add` returns after the message's record is saved;
//! if the save fails, `add` fails and nothing changed, so a retry succeeds.
//! Compaction and folding follow in the same call; their failures are not
//! the caller's (the message is safe), so they are retried on a later add.

use crate::controller::{Added, Controller, ForgetTarget, Forgotten, Options};
use crate::cost::Usage;
use crate::error::{MemoryError, Result};
use crate::message::Message;
use crate::store::{Key, Write};
use crate::tokens::Counter;

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

pub struct Durable<S: Storage> {
    pub controller: Controller,
    pub storage: S,
    /// The last failure of background work (compaction, folding), if any.
    pub last_background_error: Option<MemoryError>,
}

fn storage_error(op: &str, reason: String) -> MemoryError {
    MemoryError::Storage { op: op.to_string(), reason }
}

impl<S: Storage> Durable<S> {
    /// Loads the namespace and restores it.
    ///
    /// # Errors
    /// `STORAGE_ERROR` when loading fails; those of [`Controller::from_storage`].
    pub fn open(opts: Options, counter: Counter, mut storage: S) -> Result<Durable<S>> {
        let prefix = crate::store::namespace_prefix(&opts.namespace);
        let entries = storage.load_range(&prefix).map_err(|e| storage_error("loadRange", e))?;
        let controller = Controller::from_storage(opts, counter, entries)?;
        Ok(Durable { controller, storage, last_background_error: None })
    }

    fn save(&mut self, w: &Write) -> Result<()> {
        self.storage.save(&w.key, &w.bytes).map_err(|e| storage_error("save", e))
    }

    /// # Errors
    /// Validation errors; `STORAGE_ERROR` when the save fails (nothing changed).
    pub fn add(&mut self, message: Message, now: f64) -> Result<Added> {
        let p = self.controller.prepare_add_message(message, now)?;
        self.save(&p.write)?;
        let (id, tokens) = self.controller.commit_add(p);
        let compaction = self.background(now);
        Ok(Added { id, tokens, compaction })
    }

    /// # Errors
    /// See [`Controller::prepare_usage`]; `STORAGE_ERROR`.
    pub fn record_usage(&mut self, model: &str, usage: &Usage, now: f64) -> Result<Option<f64>> {
        let p = self.controller.prepare_usage(model, usage, now)?;
        self.save(&p.write)?;
        Ok(self.controller.commit_usage(p))
    }

    /// Forgets messages: their records, and every episode derived from them,
    /// leave storage. A key that could not be removed is retried by the
    /// next fold and counted in `pending_removals`.
    ///
    /// # Errors
    /// See [`Controller::prepare_forget`]; `STORAGE_ERROR` if the tombstone or
    /// the pack could not be saved (nothing changed).
    pub fn forget(&mut self, target: &ForgetTarget, now: f64) -> Result<Forgotten> {
        let p = self.controller.prepare_forget(target, now)?;
        self.save(&p.tombstone)?;
        self.save(&p.pack)?;
        let remove = p.remove.clone();
        let mut outcome = self.controller.commit_forget(p);
        for key in remove {
            if self.storage.remove(&key).is_err() {
                self.controller.retry_removal(key);
                outcome.pending_removals += 1;
            }
        }
        Ok(outcome)
    }

    /// Forgets the whole namespace: every stored key under it, then memory.
    ///
    /// # Errors
    /// `STORAGE_ERROR` (memory is kept as it was).
    pub fn forget_namespace(&mut self) -> Result<()> {
        let prefix = self.controller.storage_prefix();
        self.storage.remove_range(&prefix).map_err(|e| storage_error("removeRange", e))?;
        self.controller.reset();
        Ok(())
    }

    /// Compaction, then folding; a failed step changes nothing and waits.
    fn background(&mut self, now: f64) -> Option<crate::controller::CompactionEvent> {
        let mut event = None;
        let job = self.controller.begin_compaction();
        if let Some(p) = job.and_then(|job| self.controller.finish_compaction(job, None, now)) {
            match p.writes.iter().try_for_each(|w| self.storage.save(&w.key, &w.bytes).map_err(|e| storage_error("save", e))) {
                Ok(()) => event = Some(self.controller.commit_compaction(p)),
                Err(e) => {
                    self.controller.abort_compaction(p);
                    self.last_background_error = Some(e);
                }
            }
        }
        if let Some(p) = self.controller.prepare_pack() {
            match self.save(&p.write) {
                Ok(()) => {
                    let remove = p.remove.clone();
                    let new_key = p.write.key.clone();
                    self.controller.commit_pack(p);
                    for key in remove.iter().filter(|k| **k != new_key) {
                        if let Err(e) = self.storage.remove(key) {
                            // Left behind: a duplicate of packed records, ignored on load.
                            self.last_background_error = Some(storage_error("remove", e));
                        }
                    }
                }
                Err(e) => self.last_background_error = Some(e),
            }
        }
        event
    }
}
