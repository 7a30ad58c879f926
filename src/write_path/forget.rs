//! Forgetting through the write path: `forget`, `expire` (retention) and
//! `replace`, each a tombstone and the rewritten values saved before memory
//! changes, the old values removed last.

use super::{Store, WritePath};
use crate::controller::{ForgetTarget, Forgotten};
use crate::error::MemoryError;
use crate::message::Message;

impl<S: Store> WritePath<S> {
    /// Forgets: the tombstone, then the rewritten values, are saved before
    /// memory changes; the old values are removed last. A key that
    /// could not be removed is counted in `pending_removals` and retried by
    /// the next fold. The whole namespace: its prefix is removed first, then
    /// memory is reset.
    ///
    /// # Errors
    /// Those of [`Controller::prepare_forget`](crate::controller::Controller::prepare_forget); the store's (nothing changed).
    pub async fn forget(&self, target: &ForgetTarget, now: f64) -> Result<Forgotten, S::Error> {
        if *target == ForgetTarget::Namespace {
            self.borrowed().open()?;
            let prefix = self.borrowed().storage_prefix();
            self.store.remove_range(&prefix).await?;
            let messages = self.borrowed().messages_total();
            self.borrowed_mut().reset();
            return Ok(Forgotten { messages, ..Forgotten::default() });
        }
        // What goes may be in a cold segment, and every value holding it is rewritten.
        self.load_cold().await?;
        let p = self.borrowed_mut().prepare_forget(target, now)?;
        self.apply_forget(p).await
    }

    /// Retention (`controller::retention`): forgets what is past its age at
    /// `now`, at most `maxPerCall` records, as [`WritePath::forget`] does;
    /// the cold segments are read first when its shelf records say it may hold
    /// some. Runs after each change's fold and on opening; `None` when
    /// nothing was due.
    ///
    /// # Errors
    /// The store's (nothing changed, or, past the tombstone, as `forget`:
    /// what was saved holds, and the next call goes on).
    pub async fn expire(&self, now: f64) -> Result<Option<Forgotten>, S::Error> {
        if !self.borrowed().options().retention.is_set() {
            return Ok(None);
        }
        if self.borrowed().retention_needs_cold(now) {
            self.load_cold().await?;
        }
        // What a read found under a tombstone, or a removal left quoted (a
        // pass a crash stopped), is rewritten before the next pass.
        self.fold().await?;
        let Some(target) = self.borrowed().expired(now) else { return Ok(None) };
        self.forget(&target, now).await.map(Some)
    }

    /// Replaces the message `id` and everything after it with `message`
    /// (a chat UI's edit; regenerate is `forget(Tail)`), in one change:
    /// resolves to what was forgotten and the new message's id and tokens.
    ///
    /// # Errors
    /// Those of [`Controller::prepare_replace`](crate::controller::Controller::prepare_replace); the store's (nothing changed).
    pub async fn replace(
        &self,
        id: &str,
        message: Message,
        task: Option<String>,
        now: f64,
    ) -> Result<(Forgotten, (String, usize)), S::Error> {
        self.load_cold().await?;
        let p = self.borrowed_mut().prepare_replace(id, message, task, now)?;
        let Some(added) = p.added.clone() else {
            self.borrowed_mut().abort_forget(p);
            return Err(MemoryError::input("replace", "nothing was added").into());
        };
        Ok((self.apply_forget(p).await?, added))
    }

    /// Saves a prepared forget (tombstone, then segments), commits it, then
    /// removes the old values (a key not removed is retried by the next
    /// fold), then folds: shelf records quoting what went are rewritten.
    /// Memory shows the forget while it is saved (a read meanwhile does not
    /// see what is being forgotten); a save that fails puts it back.
    async fn apply_forget(&self, p: crate::controller::PreparedForget) -> Result<Forgotten, S::Error> {
        let saved = match self.save(&p.tombstone).await {
            Ok(()) => self.save_all(&p.segments).await,
            Err(e) => Err(e),
        };
        if let Err(e) = saved {
            self.borrowed_mut().abort_forget(p);
            return Err(e);
        }
        let remove = p.remove.clone();
        let mut outcome = self.borrowed_mut().commit_forget(p);
        // In order, and none after one that failed (see `store::placement`).
        let mut failed = false;
        for key in remove {
            if failed || self.store.remove(&key).await.is_err() {
                failed = true;
                self.borrowed_mut().retry_removal(key);
                outcome.pending_removals += 1;
            } else {
                self.borrowed_mut().removed(&key);
            }
        }
        // Not the caller's failure: the next fold says it again.
        let _ = self.unshelve().await;
        // Shelf records quoting what went are restated and rewritten (`controller::shelves`); or by the next fold.
        let _ = self.fold().await;
        Ok(outcome)
    }
}
