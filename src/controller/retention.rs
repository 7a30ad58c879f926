//! Retention: how long each kind of record is kept. Past its age a record
//! is forgotten as `forget` forgets (`controller::forget`): this module only
//! chooses ids; the write path forgets them (`WritePath::expire`), so they
//! leave every stored value, with their embeddings, the episodes that
//! summarized them rewritten without them or removed, and what compaction
//! learned from them learned again from what remains.
//!
//! A record's age is from its own time: a message's time, an episode's
//! (written right after the newest message it summarizes), a fact's
//! statement (`createdAt`, not `validFrom`: "born in 1990" is not old news).
//! An episode past its age goes with the messages it summarizes, whole
//! (their own age aside): that is what an episode's retention can mean,
//! since a summary kept without its messages would still hold them, and
//! messages kept without their summary gain nothing.
//!
//! Invariants: one call expires at most `maxPerCall` records (an episode's
//! messages all or none), oldest first by kind (messages, episodes, facts);
//! the next fold goes on. Pinned instructions (system, developer) never
//! expire. Nothing expires at a time that is not finite. Every kind is kept
//! for ever unless its age is given; facts have no default age.

use std::collections::HashSet;

use serde::Deserialize;

use super::{Controller, ForgetTarget, Forgotten};
use crate::error::{MemoryError, Result};
use crate::store::record::{Expired, Record};

/// Most records one call expires by default.
pub const DEFAULT_PER_CALL: usize = 256;

/// `create`'s `retention`: how long each kind of record is kept (a kind
/// left out is kept for ever).
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields, rename = "RetentionOptions"))]
pub struct Retention {
    /// Messages of every thread, by the time each was added (pinned system and developer messages are kept).
    pub messages: Option<MaxAge>,
    /// Episodes, by the time each was written; an episode goes with the messages it summarizes.
    pub episodes: Option<MaxAge>,
    /// Facts, preferences and document chunks (every version), by the time each was stated. Default: kept.
    pub facts: Option<MaxAge>,
    /// Most records one fold or open expires; the next goes on. Default 256.
    pub max_per_call: Option<usize>,
}

/// How long one kind of record is kept.
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct MaxAge {
    /// Milliseconds; a record older than this is forgotten. Positive.
    pub max_age_ms: f64,
}

impl Retention {
    /// Whether any kind has an age (else retention does nothing).
    pub fn is_set(&self) -> bool {
        self.messages.is_some() || self.episodes.is_some() || self.facts.is_some()
    }

    /// # Errors
    /// `INVALID_INPUT` for an age that is not a positive finite number of
    /// milliseconds, or `maxPerCall` 0.
    pub fn validate(&self) -> Result<()> {
        for (kind, age) in [("messages", self.messages), ("episodes", self.episodes), ("facts", self.facts)] {
            if age.is_some_and(|a| !(a.max_age_ms.is_finite() && a.max_age_ms > 0.0)) {
                return Err(MemoryError::input(format!("options.retention.{kind}.maxAgeMs"), "must be a positive number of milliseconds"));
            }
        }
        if self.max_per_call == Some(0) {
            return Err(MemoryError::input("options.retention.maxPerCall", "must be at least 1"));
        }
        Ok(())
    }
}

/// Records older than this at `now` expire (none for a kind without an age).
fn cutoff(age: Option<MaxAge>, now: f64) -> Option<f64> {
    age.map(|a| now - a.max_age_ms).filter(|c| c.is_finite())
}

/// The ids one call expires: whole groups, up to `limit` ids, each once.
/// Written as loops over slices: each iterator chain is code of its own in
/// the wasm.
struct Batch<'a> {
    ids: Vec<&'a str>,
    seen: HashSet<&'a str>,
    limit: usize,
}

impl<'a> Batch<'a> {
    /// Adds a group unless it would pass the limit (the first always fits:
    /// a call always makes progress). False once nothing more fits.
    fn take(&mut self, group: &[&'a str]) -> bool {
        let mut new = 0;
        for id in group {
            new += usize::from(!self.seen.contains(id));
        }
        if !self.ids.is_empty() && self.ids.len() + new > self.limit {
            return false;
        }
        for &id in group {
            if self.seen.insert(id) {
                self.ids.push(id);
            }
        }
        self.ids.len() < self.limit
    }
}

impl Forgotten {
    /// What a forget of [`ForgetTarget::Expired`] removed, for its tombstone.
    pub(crate) fn expired(&self) -> Expired {
        Expired {
            messages: self.messages as u64,
            episodes: self.episodes_dropped as u64,
            rewritten: self.episodes_rewritten as u64,
            facts: self.facts as u64,
        }
    }
}

impl Controller {
    /// Whether the cold segments opening left unread may hold a message
    /// (so perhaps an episode) past its age at `now`, by their shelf records:
    /// then the write path reads them before asking [`Controller::expired`].
    pub fn retention_needs_cold(&self, now: f64) -> bool {
        let r = &self.opts.retention;
        let cut = match (cutoff(r.messages, now), cutoff(r.episodes, now)) {
            (Some(m), Some(e)) => m.max(e),
            (Some(c), None) | (None, Some(c)) => c,
            (None, None) => return false,
        };
        if self.cold_ready() {
            return false;
        }
        for s in super::cold::live_shelved(&self.books.shelves) {
            for t in &s.threads {
                if t.messages > 0 && t.first_at < cut {
                    return true;
                }
            }
        }
        false
    }

    /// The records past their age at `now` that memory holds, oldest first,
    /// at most `maxPerCall`: the target of the forget that removes them.
    /// None when nothing is due (or the controller is closed).
    pub fn expired(&self, now: f64) -> Option<ForgetTarget> {
        if self.closed {
            return None;
        }
        let r = &self.opts.retention;
        let mut batch = Batch { ids: Vec::new(), seen: HashSet::new(), limit: r.max_per_call.unwrap_or(DEFAULT_PER_CALL) };
        let _full = self.expired_messages(cutoff(r.messages, now), &mut batch)
            || self.expired_episodes(cutoff(r.episodes, now), &mut batch)
            || self.expired_facts(cutoff(r.facts, now), &mut batch);
        if batch.ids.is_empty() {
            return None;
        }
        let mut ids = Vec::with_capacity(batch.ids.len());
        for id in batch.ids {
            ids.push(id.to_string());
        }
        Some(ForgetTarget::Expired(ids))
    }

    /// Adds the messages (of any thread, instructions aside) added before
    /// `cut` to `batch`; true once it is full.
    fn expired_messages<'a>(&'a self, cut: Option<f64>, batch: &mut Batch<'a>) -> bool {
        let Some(cut) = cut else { return false };
        for s in &self.window.log {
            if s.ts < cut && !s.message.role.is_instruction() && !batch.take(&[s.id.as_str()]) {
                return true;
            }
        }
        for rec in &self.others {
            if let Record::Msg { ts, id, message, .. } = rec {
                if *ts < cut && !message.role.is_instruction() && !batch.take(&[id.as_str()]) {
                    return true;
                }
            }
        }
        false
    }

    /// Adds the episodes written before `cut`, each with its messages, to
    /// `batch`; true once it is full. This thread's episodes go through
    /// their messages (the forget drops an episode none of whose messages
    /// remains), so one whose messages are all gone already is left alone.
    fn expired_episodes<'a>(&'a self, cut: Option<f64>, batch: &mut Batch<'a>) -> bool {
        let Some(cut) = cut else { return false };
        let mut present: HashSet<&str> = HashSet::new();
        let mut group: Vec<&str> = Vec::new();
        for e in &self.episodic.episodes {
            if e.created_at >= cut {
                continue;
            }
            if present.is_empty() {
                for s in &self.window.log {
                    present.insert(s.id.as_str());
                }
            }
            group.clear();
            for m in &e.message_ids {
                if present.contains(m.as_str()) {
                    group.push(m);
                }
            }
            if !group.is_empty() && !batch.take(&group) {
                return true;
            }
        }
        for rec in &self.others {
            let Record::Episode { episode: e, .. } = rec else { continue };
            if e.created_at < cut {
                group.clear();
                group.push(&e.id);
                for m in &e.message_ids {
                    group.push(m);
                }
                if !batch.take(&group) {
                    return true;
                }
            }
        }
        false
    }

    /// Adds the facts stated before `cut` to `batch`; true once it is full.
    fn expired_facts<'a>(&'a self, cut: Option<f64>, batch: &mut Batch<'a>) -> bool {
        let Some(cut) = cut else { return false };
        for f in &self.semantic.facts {
            if f.created_at < cut && !batch.take(&[f.id.as_str()]) {
                return true;
            }
        }
        false
    }

    /// What a [`ForgetTarget::Expired`] names: this thread's messages
    /// (returned), facts and other threads' records (added to the sets).
    pub(crate) fn expired_doomed(&self, ids: &[String], facts: &mut HashSet<String>, others: &mut HashSet<String>) -> HashSet<String> {
        let mut named: HashSet<&str> = HashSet::new();
        for id in ids {
            named.insert(id);
        }
        for f in &self.semantic.facts {
            if named.contains(f.id.as_str()) {
                facts.insert(f.id.clone());
            }
        }
        for r in &self.others {
            if let Record::Msg { id, .. } | Record::Episode { episode: crate::episodic::Episode { id, .. }, .. } = r {
                if named.contains(id.as_str()) {
                    others.insert(id.clone());
                }
            }
        }
        let mut messages = HashSet::new();
        for s in &self.window.log {
            if named.contains(s.id.as_str()) {
                messages.insert(s.id.clone());
            }
        }
        messages
    }

    /// What retention removed from this namespace, by the tombstones it
    /// wrote (kept, so the sum holds after reopening).
    pub(crate) fn retention_removed(&self) -> Expired {
        let mut sum = Expired::default();
        for r in &self.books.forgets {
            if let Record::Forget { expired: Some(e), .. } = r {
                sum.messages += e.messages;
                sum.episodes += e.episodes;
                sum.rewritten += e.rewritten;
                sum.facts += e.facts;
            }
        }
        sum
    }
}
