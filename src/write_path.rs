//! The write path: every change as prepare → save → commit, written once and
//! driven by every host: the wasm layer with the JS storage adapter, the
//! native [`crate::durable::Durable`] with synchronous storage. The seeded
//! fault and crash tests of either host therefore test the sequence the
//! other ships.
//!
//! This is the one async part of the core. It awaits only the host's
//! [`Store`]; it never holds a `RefCell` borrow across an `await`, so the
//! wasm host may run other calls' reads while a save is pending.
//!
//! Reads: a host reaches the controller only through [`WritePath::read`]
//! (or [`WritePath::held`], whose methods read no archived message).
//! `read` takes what the read touches ([`Need`]) and reads the cold segments
//! segments opening left unread first when that is needed; the borrow it
//! gives needs the [`Reading`] only `read` returns. So a reading method a
//! host adds sees the whole archive without calling anything by hand.
//!
//! Durability contract: a change resolves once its records are saved; if a
//! save fails the change fails and memory is as storage has it, so a retry
//! prepares the same change again. Compaction and folding follow a change;
//! their failures are not the caller's (the change is saved): memory stays
//! as storage has it and the step is retried after a later change.

use std::cell::{Ref, RefCell, RefMut};
use std::rc::Rc;

pub use crate::controller::Need;
use crate::controller::Remembered;
use crate::controller::{CompactionEvent, CompactionJob, Controller};
use crate::cost::Usage;
use crate::error::MemoryError;
use crate::message::Message;
use crate::semantic::RememberInput;
use crate::store::Write;

mod forget;
mod read;
pub use read::{Held, Reading};

/// The host's storage, as the write path needs it. Keys are opaque segment
/// lists; a prefix matches whole segments.
///
/// `Error` is the host's error value; the write path's own refusals (bad
/// input, a closed controller) become one through `From<MemoryError>`.
#[allow(async_fn_in_trait)] // one host per build, single-threaded: no Send bound wanted
pub trait Store {
    type Error: From<MemoryError>;
    /// # Errors
    /// The host's; the key then holds its old value or the new one.
    async fn save(&self, key: &[String], bytes: &[u8]) -> Result<(), Self::Error>;
    /// # Errors
    /// The host's.
    async fn remove(&self, key: &[String]) -> Result<(), Self::Error>;
    /// # Errors
    /// The host's.
    async fn remove_range(&self, prefix: &[String]) -> Result<(), Self::Error>;
    /// Reads every value under `prefix` into `loader`.
    ///
    /// # Errors
    /// The host's; `FORMAT_TOO_NEW` (see [`crate::store::Loader::push`]).
    async fn load_into(&self, prefix: &[String], loader: &mut crate::store::Loader) -> Result<(), Self::Error>;
    /// What opening reads: every value of `namespace` but its cold
    /// segments (`store::open_prefixes`), and with a `thread` the cold
    /// segments holding its newest episodes (`store::shelf::recent_keys`).
    ///
    /// # Errors
    /// As [`Store::load_into`].
    async fn load_open(&self, namespace: &str, thread: Option<&str>) -> Result<crate::store::Loaded, Self::Error> {
        let mut loader = crate::store::Loader::default();
        for prefix in crate::store::open_prefixes(namespace) {
            self.load_into(&prefix, &mut loader).await?;
        }
        if let Some(thread) = thread {
            for key in crate::store::shelf::recent_keys(loader.records(), thread) {
                self.load_into(&key, &mut loader).await?;
            }
            loader.read_early();
        }
        Ok(loader.finish())
    }
    /// False for a host that keeps nothing: then nothing is folded, since a
    /// pack of every record after each change would make adds O(n).
    fn persists(&self) -> bool {
        true
    }
}

/// A controller and the store its changes go to.
#[derive(Clone)]
pub struct WritePath<S> {
    /// Private: reads go through `read` (the cold-read rule), changes through the methods below.
    controller: Rc<RefCell<Controller>>,
    pub store: S,
}

impl<S: Store> WritePath<S> {
    pub fn new(controller: Controller, store: S) -> WritePath<S> {
        WritePath { controller: Rc::new(RefCell::new(controller)), store }
    }

    /// `RefCell::borrow` is `#[track_caller]`: borrowed here, the wasm holds
    /// one panic site (its location and call) for the ~70 uses, not one each.
    #[inline(never)]
    fn borrowed(&self) -> Ref<'_, Controller> {
        self.controller.borrow()
    }

    /// [`WritePath::borrowed`], mutably.
    #[inline(never)]
    fn borrowed_mut(&self) -> RefMut<'_, Controller> {
        self.controller.borrow_mut()
    }

    /// Moves what working memory holds past its threshold out, to be
    /// summarized in turn (see `controller::queue`).
    pub fn queue_compaction(&self) -> bool {
        self.borrowed_mut().queue_compaction()
    }

    /// The oldest range waiting for a summary, if any.
    pub fn next_summary(&self) -> Option<CompactionJob> {
        self.borrowed_mut().next_summary()
    }

    /// Further calls fail with `CLOSED`.
    pub fn close(&self) {
        self.borrowed_mut().close();
    }

    async fn save(&self, w: &Write) -> Result<(), S::Error> {
        self.store.save(&w.key, &w.bytes).await
    }

    async fn save_all(&self, writes: &[Write]) -> Result<(), S::Error> {
        for w in writes {
            self.save(w).await?;
        }
        Ok(())
    }

    /// Stores one message; resolves to its id and tokens once saved.
    ///
    /// # Errors
    /// Those of [`Controller::prepare_add_in_task`]; the store's (nothing changed).
    pub async fn add(&self, message: Message, task: Option<String>, now: f64) -> Result<(String, usize), S::Error> {
        let p = self.borrowed().prepare_add_in_task(message, task, now)?;
        self.save(&p.write).await?;
        Ok(self.borrowed_mut().commit_add(p))
    }

    /// Stores messages as one change (`Controller::prepare_add_batch`);
    /// resolves to each one's id and tokens once every value is saved.
    ///
    /// # Errors
    /// Those of [`Controller::prepare_add_batch`]; the store's (nothing changed).
    pub async fn add_batch(&self, items: Vec<(Message, f64)>) -> Result<Vec<(String, usize)>, S::Error> {
        let p = self.borrowed().prepare_add_batch(items)?;
        self.save_all(&p.writes).await?;
        Ok(self.borrowed_mut().commit_add_batch(p))
    }

    /// Charges one call's usage (`purpose`: "chat", "summarizer", …); its cost in USD, if the model's price is known.
    ///
    /// # Errors
    /// Those of [`Controller::prepare_usage_for`]; the store's (nothing changed).
    pub async fn record_usage(&self, model: &str, usage: &Usage, purpose: &str, now: f64) -> Result<Option<f64>, S::Error> {
        let p = self.borrowed().prepare_usage_for(model, usage, purpose, now)?;
        self.save(&p.write).await?;
        Ok(self.borrowed_mut().commit_usage(p))
    }

    /// # Errors
    /// Those of [`Controller::prepare_remember`]; the store's (nothing changed).
    pub async fn remember(&self, input: RememberInput, now: f64) -> Result<Remembered, S::Error> {
        let p = self.borrowed().prepare_remember(input, now)?;
        self.save_all(&p.writes).await?;
        Ok(self.borrowed_mut().commit_remember(p))
    }

    /// What to ask a summarizer model for a consolidation, if anything
    /// (see [`Controller::consolidation_request`]).
    ///
    /// # Errors
    /// `CLOSED`.
    pub fn consolidation_request(&self) -> Result<Option<crate::controller::ConsolidationRequest>, MemoryError> {
        self.borrowed().consolidation_request()
    }

    /// Consolidates facts and preferences (see `controller::consolidate`):
    /// as the model's answer to `asked` says when it is usable, else offline.
    ///
    /// # Errors
    /// Those of [`Controller::prepare_consolidate`]; the store's (what was
    /// saved before a failure is read on the next open, and holds).
    pub async fn consolidate(
        &self,
        now: f64,
        asked: Option<crate::controller::Asked<'_>>,
    ) -> Result<crate::controller::Consolidated, S::Error> {
        let (p, out) = self.borrowed().prepare_consolidate(now, asked)?;
        self.save_all(&p.writes).await?;
        self.borrowed_mut().commit_consolidate(p);
        Ok(out)
    }

    /// # Errors
    /// Those of [`Controller::prepare_procedures`]; the store's (nothing changed).
    pub async fn set_procedures(&self, raw: serde_json::Value, now: f64) -> Result<(), S::Error> {
        let p = self.borrowed().prepare_procedures(raw, now)?;
        self.save(&p.write).await?;
        self.borrowed_mut().commit_procedures(p);
        Ok(())
    }

    /// Reads the cold segments opening left unread and merges them
    /// (`controller::cold`); nothing to do once read. Only through
    /// `read`, and the changes that rewrite what they hold.
    ///
    /// # Errors
    /// The store's, `FORMAT_TOO_NEW`; memory holds what it held (a query's
    /// read of the cold segments, freed first, is read whole by the next
    /// query) and the next call reads again.
    async fn load_cold(&self) -> Result<(), S::Error> {
        if self.borrowed().cold_ready() {
            return Ok(());
        }
        let prefix = crate::store::cold_prefix(&self.borrowed().options().namespace);
        let mut loader = self.borrowed_mut().whole_read_loader();
        self.store.load_into(&prefix, &mut loader).await?;
        // Another call may have read it meanwhile (reads are not queued).
        if !self.borrowed().cold_ready() {
            self.borrowed_mut().merge_cold(loader.finish());
        }
        Ok(())
    }

    /// Records the cold segments removed since the last shelf record
    /// (`controller::cold`): until then opening counts them as there.
    ///
    /// # Errors
    /// The store's; the next fold's shelf record says it instead.
    async fn unshelve(&self) -> Result<(), S::Error> {
        let Some(p) = self.borrowed().prepare_unshelve() else { return Ok(()) };
        self.save(&p.write).await?;
        self.borrowed_mut().commit_unshelve(p);
        Ok(())
    }

    /// Imports a snapshot (`store::snapshot`): its records are saved as
    /// segments under this namespace, then memory is rebuilt from everything
    /// stored there (a union with what was there before).
    ///
    /// # Errors
    /// Those of [`Controller::prepare_import`] and [`Controller::from_storage`];
    /// the store's (nothing changed).
    pub async fn import(&self, snapshot: &str) -> Result<(), S::Error> {
        let writes = self.borrowed().prepare_import(snapshot)?;
        self.save_all(&writes).await?;
        // The prefix first: no RefCell borrow is held across an await.
        let prefix = self.borrowed().storage_prefix();
        let mut loader = crate::store::Loader::default();
        if self.store.persists() {
            self.store.load_into(&prefix, &mut loader).await?;
        } else {
            for w in writes {
                loader.push(w.key, &w.bytes)?;
            }
        }
        let next = self.borrowed().reloaded(loader.finish())?;
        *self.borrowed_mut() = next;
        Ok(())
    }

    /// The namespace's threads as stored now (other controllers' writes
    /// included); without persistence, as this controller knows them.
    ///
    /// # Errors
    /// `CLOSED`, `FORMAT_TOO_NEW`; the store's.
    pub async fn threads(&self) -> Result<Vec<crate::controller::ThreadInfo>, S::Error> {
        self.borrowed().open()?;
        if !self.store.persists() {
            return Ok(self.borrowed().threads());
        }
        // Not the cold segments: their shelf records count what it holds.
        let namespace = self.borrowed().options().namespace.clone();
        Ok(Controller::threads_stored(self.store.load_open(&namespace, None).await?))
    }

    /// Stores vectors for items that had none; unstored vectors are not
    /// used. Two outcomes apart: vectors that do not fit are the embedder's
    /// fault (the outer error), a failed save is the store's (the inner).
    ///
    /// # Errors
    /// `INVALID_VECTOR`, `DIMENSION_MISMATCH`, `INVALID_INPUT` (see
    /// [`Controller::check_embeddings`]); inside, the store's (nothing changed).
    pub async fn store_embeddings(&self, ids: Vec<String>, vectors: Vec<Vec<f32>>) -> Result<Result<(), S::Error>, MemoryError> {
        let p = self.borrowed().prepare_embeddings(ids, vectors)?;
        if let Err(e) = self.save_all(&p.writes).await {
            return Ok(Err(e));
        }
        self.borrowed_mut().commit_embeddings(p);
        Ok(Ok(()))
    }

    /// Finishes a compaction with the summarizer's answer (`None`: offline).
    /// A failed save leaves the range in the window for a later round.
    ///
    /// # Errors
    /// The store's (memory unchanged).
    pub async fn compact(&self, job: CompactionJob, answer: Option<&str>, now: f64) -> Result<Option<CompactionEvent>, S::Error> {
        let Some(p) = self.borrowed().finish_compaction(job, answer, now) else { return Ok(None) };
        match self.save_all(&p.writes).await {
            Ok(()) => Ok(Some(self.borrowed_mut().commit_compaction(p))),
            Err(e) => {
                self.borrowed_mut().abort_compaction(p);
                Err(e)
            }
        }
    }

    /// Folds while a step is due (see `store::segments`: the log into a
    /// segment, four small segments into one, values that must be
    /// rewritten), each step's segments saved before the values they
    /// replace are removed. A value left behind holds duplicates, which
    /// loading ignores; its removal is retried by the next fold.
    ///
    /// # Errors
    /// The store's: of a save (that step changed nothing), or of the first removal that failed.
    pub async fn fold(&self) -> Result<(), S::Error> {
        if !self.store.persists() {
            return Ok(());
        }
        // Each step writes at most what it replaces; a bound all the same.
        for _ in 0..64 {
            // Shelf records quoting what a removal took first (`controller::shelves`): this step rewrites their values.
            let restate = self.borrowed().prepare_restate();
            if let Some(p) = restate {
                self.save(&p.write).await?;
                self.borrowed_mut().commit_restate(p);
            }
            let Some(p) = self.borrowed().prepare_fold() else { break };
            if let Err(e) = self.save_all(&p.writes).await {
                self.borrowed_mut().abort_fold(p);
                return Err(e);
            }
            let remove = p.remove.clone();
            self.borrowed_mut().commit_fold(p);
            // In order, and none after one that failed (see `store::placement`).
            let mut first_error = Ok(());
            for key in remove {
                if first_error.is_err() {
                    self.borrowed_mut().retry_removal(key);
                    continue;
                }
                match self.store.remove(&key).await {
                    Ok(()) => self.borrowed_mut().removed(&key),
                    Err(e) => {
                        self.borrowed_mut().retry_removal(key);
                        first_error = Err(e);
                    }
                }
            }
            first_error?;
            self.unshelve().await?;
        }
        Ok(())
    }

    /// On opening: rewrites what must not stay as stored (values of format
    /// 1, forgotten content another writer left) before anything else.
    ///
    /// # Errors
    /// As [`WritePath::fold`]; the data still loads, and the next fold retries.
    pub async fn upgrade(&self) -> Result<(), S::Error> {
        let due = self.borrowed().must_rewrite();
        if due {
            // Cold segments beside values to rewrite are what an
            // interrupted rewrite left: read, their records are known, so
            // they are not written a third time, and counts hold each once.
            // (Nothing to read for data of 0.1, which had none.)
            self.load_cold().await?;
            self.fold().await?;
        }
        Ok(())
    }

    /// After a committed change, without a summarizer: an offline
    /// compaction if one is due, then folding, then retention. Resolves to the compaction
    /// and the first background failure; neither loses the change.
    pub async fn settle(&self, now: f64) -> (Option<CompactionEvent>, Option<S::Error>) {
        let job = self.borrowed_mut().begin_compaction();
        let (event, mut error) = match job {
            Some(job) => match self.compact(job, None, now).await {
                Ok(event) => (event, None),
                Err(e) => (None, Some(e)),
            },
            None => (None, None),
        };
        if let Err(e) = self.fold().await {
            error = error.or(Some(e));
        }
        if let Err(e) = self.expire(now).await {
            error = error.or(Some(e));
        }
        (event, error)
    }
}
