//! Forgetting: content leaves storage itself, with every copy derived from it.
//!
//! A forget is applied to memory when it is prepared, in place (`undo`
//! keeps what it took out and what it made, so a failed save puts memory
//! back: no second controller, whose copy doubled memory at 100,000
//! messages for a one-message edit), with the writes that make storage
//! match it: a tombstone record
//! (ids only, no content) so no other copy can come back, then every stored
//! value that held a record that goes is rewritten without it (only those
//! values: the rest of the history is not touched), with the records the
//! forget made, after which the host removes the old values. Episodes that
//! summarized a forgotten message are summarized again from what remains
//! (offline), or dropped when nothing remains; their old ids join the
//! tombstone so their text cannot return either. What consolidation
//! restated from a forgotten fact (a merge of it, the profiles written
//! since) goes with it.

use std::collections::HashSet;

use serde::Serialize;

mod undo;

use super::writes::Segmented;
use super::Controller;
use crate::episodic::Episode;
use crate::error::{MemoryError, Result};
use crate::origin::Origin;
use crate::semantic::Fact;
use crate::store::record::{encode_record, Record};
use crate::store::{log_key, Key, Kind, Uids, Write};
use crate::window::Stored;
use undo::Undo;

/// What to forget.
#[derive(Clone, Debug, PartialEq)]
pub enum ForgetTarget {
    /// A message's id if it is one, else as [`ForgetTarget::Fact`].
    Id(String),
    /// One message, by the id `add` returned.
    Message(String),
    /// Every message with `from <= ts <= to` (ms).
    Range { from: f64, to: f64 },
    /// Every message after the one with id `from`, and that one too when
    /// `inclusive` (a chat UI's regenerate and edit).
    Tail { from: String, inclusive: bool },
    /// A fact or chunk by id, every version of a key, or a whole document by its id.
    Fact(String),
    /// A whole thread of the namespace (this one or another): its messages
    /// and episodes, and the facts its episodes taught.
    Thread(String),
    /// Everything under the namespace: the write path removes its storage
    /// prefix, then resets memory (`prepare_forget` refuses it).
    Namespace,
    /// What retention found past its age (`controller::retention`), by id:
    /// messages and episodes of any thread, facts. An id of none is left
    /// out; the tombstone says what retention removed.
    Expired(Vec<String>),
}

impl ForgetTarget {
    /// The JS forms: an id, `{ id }` (a message), `{ key }`, `{ from, to }`,
    /// `{ thread }` or `{ namespace: true }`.
    ///
    /// # Errors
    /// `INVALID_INPUT` for any other value.
    pub fn from_json(v: &serde_json::Value) -> Result<ForgetTarget> {
        use serde_json::Value;
        let bad = || MemoryError::input("forget", "expected an id, { id }, { key }, { from, to }, { thread } or { namespace: true }");
        if let Some(s) = v.as_str() {
            return Ok(ForgetTarget::Id(s.to_string()));
        }
        let o = v.as_object().ok_or_else(bad)?;
        let keys: Vec<&str> = o.keys().map(String::as_str).collect();
        let text = |k: &str| o.get(k).and_then(Value::as_str).map(String::from).ok_or_else(bad);
        let num = |k: &str| o.get(k).and_then(Value::as_f64).ok_or_else(bad);
        match keys.as_slice() {
            ["id"] => Ok(ForgetTarget::Message(text("id")?)),
            ["key"] => Ok(ForgetTarget::Fact(text("key")?)),
            ["thread"] => Ok(ForgetTarget::Thread(text("thread")?).checked()?),
            ["namespace"] if o.get("namespace") == Some(&Value::Bool(true)) => Ok(ForgetTarget::Namespace),
            ["namespace"] => Err(MemoryError::input("forget.namespace", "expected true")),
            ["from", "to"] | ["to", "from"] => Ok(ForgetTarget::Range { from: num("from")?, to: num("to")? }),
            _ => Err(bad()),
        }
    }
}

impl ForgetTarget {
    /// # Errors
    /// `INVALID_INPUT` for an empty thread name.
    fn checked(self) -> Result<ForgetTarget> {
        match &self {
            ForgetTarget::Thread(t) if t.is_empty() => Err(MemoryError::input("forget.thread", "must not be empty")),
            _ => Ok(self),
        }
    }
}

/// What a forget removed.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "ForgetResult"))]
#[serde(rename_all = "camelCase")]
pub struct Forgotten {
    pub messages: usize,
    pub facts: usize,
    pub episodes_rewritten: usize,
    pub episodes_dropped: usize,
    /// Keys that could not be removed yet; the next fold removes them.
    pub pending_removals: usize,
}

/// A forget applied to memory, and the writes that make storage match it.
pub struct PreparedForget {
    /// Save first: once it is stored, nothing forgotten loads again.
    pub tombstone: Write,
    /// Save second: the values that held what goes, rewritten without it.
    pub segments: Vec<Write>,
    /// Remove last: those values.
    pub remove: Vec<Key>,
    /// What memory held before, for [`Controller::abort_forget`].
    undo: Undo,
    pub outcome: Forgotten,
    /// The id and tokens of the message added in its place ([`Controller::prepare_replace`]).
    pub added: Option<(String, usize)>,
}

/// What a forget removes, by id.
#[derive(Default)]
struct Doomed {
    messages: HashSet<String>,
    facts: HashSet<String>,
    /// Messages and episodes of other threads.
    others: HashSet<String>,
}

/// What a tombstone says: the ids and threads it removes, and, when
/// retention wrote it, what that removed.
struct Says {
    ids: Vec<String>,
    threads: Vec<String>,
    expired: Option<crate::store::record::Expired>,
}

/// The id of another thread's message or episode.
fn other_id(r: &Record) -> Option<&str> {
    match r {
        Record::Msg { id, .. } => Some(id),
        Record::Episode { episode, .. } => Some(&episode.id),
        _ => None,
    }
}

/// The positions in `items` of those `gone` says go, ascending.
fn positions<T>(items: &[T], gone: impl Fn(&T) -> bool) -> Vec<usize> {
    items.iter().enumerate().filter(|(_, x)| gone(x)).map(|(i, _)| i).collect()
}

impl Controller {
    /// Whether `id` is a message of another thread of the namespace.
    pub(crate) fn other_message(&self, id: &str) -> bool {
        self.others.iter().any(|r| matches!(r, Record::Msg { id: m, .. } if m == id))
    }

    /// Applies a forget to memory and returns the writes that make storage
    /// match; memory shows it from now on. The host saves them, then calls
    /// [`Controller::commit_forget`], or [`Controller::abort_forget`] when a
    /// save failed, which puts memory back as it was.
    ///
    /// # Errors
    /// `INVALID_INPUT` for an unknown message id or an empty range; `CLOSED`
    /// (nothing changed).
    pub fn prepare_forget(&mut self, target: &ForgetTarget, now: f64) -> Result<PreparedForget> {
        self.prepare_forget_then(target, now, None)
    }

    /// Replaces the message `id` and everything after it with `message`, in
    /// one change: the pack that follows the tombstone holds the new message,
    /// so storage never has the old tail and the new message together.
    ///
    /// # Errors
    /// Those of [`Controller::prepare_forget`] and [`Controller::prepare_add_in_task`]
    /// (the new message is checked against what remains; refused, nothing changed).
    pub fn prepare_replace(
        &mut self,
        id: &str,
        message: crate::message::Message,
        task_id: Option<String>,
        now: f64,
    ) -> Result<PreparedForget> {
        self.prepare_forget_then(&ForgetTarget::Tail { from: id.to_string(), inclusive: true }, now, Some((message, task_id)))
    }

    /// What `target` names, by id.
    ///
    /// # Errors
    /// See [`Controller::prepare_forget`].
    fn doomed(&self, target: &ForgetTarget) -> Result<Doomed> {
        let mut d = Doomed::default();
        match target {
            ForgetTarget::Id(id) if self.has_message(id) || self.other_message(id) => {
                return self.doomed(&ForgetTarget::Message(id.clone()))
            }
            ForgetTarget::Id(id) => return self.doomed(&ForgetTarget::Fact(id.clone())),
            ForgetTarget::Namespace => {
                return Err(MemoryError::input("forget", "a namespace is forgotten through the write path (its storage prefix goes first)"))
            }
            ForgetTarget::Fact(which) => {
                d.facts = self
                    .semantic
                    .facts
                    .iter()
                    .filter(|f| f.id == *which || f.key.as_deref() == Some(which.as_str()) || f.document.as_deref() == Some(which.as_str()))
                    .map(|f| f.id.clone())
                    .collect();
                if d.facts.is_empty() {
                    return Err(MemoryError::input("forget", format!("no fact, key or document {which:?}")));
                }
            }
            ForgetTarget::Message(id) if self.other_message(id) => {
                d.others.insert(id.clone());
            }
            ForgetTarget::Message(id) => {
                if !self.window.log.iter().any(|s| s.id == *id) {
                    return Err(MemoryError::input("forget", format!("no message with id {id:?}")));
                }
                d.messages.insert(id.clone());
            }
            ForgetTarget::Thread(t) if *t == self.opts.thread => d.messages = self.window.log.iter().map(|s| s.id.clone()).collect(),
            ForgetTarget::Thread(t) => {
                d.others = self.others.iter().filter(|r| r.thread() == Some(t.as_str())).filter_map(other_id).map(String::from).collect();
            }
            ForgetTarget::Expired(ids) => d.messages = self.expired_doomed(ids, &mut d.facts, &mut d.others),
            ForgetTarget::Range { from, to } => {
                // Also refuses NaN bounds, which `from > to` would let through.
                #[allow(clippy::neg_cmp_op_on_partial_ord)]
                if !(from <= to) {
                    return Err(MemoryError::input("forget", "expected from <= to"));
                }
                d.messages = self.window.log.iter().filter(|s| s.ts >= *from && s.ts <= *to).map(|s| s.id.clone()).collect();
            }
            ForgetTarget::Tail { from, inclusive } => {
                let at = self
                    .window
                    .log
                    .iter()
                    .position(|s| s.id == *from)
                    .ok_or_else(|| MemoryError::input("id", format!("no message with id {from:?}")))?;
                d.messages = self.window.log.get(at + usize::from(!inclusive)..).unwrap_or_default().iter().map(|s| s.id.clone()).collect();
            }
        }
        // Another thread's episode over a forgotten message goes whole: its
        // thread's own controller compacts what remains again.
        for r in &self.others {
            if let Record::Episode { episode, .. } = r {
                if episode.message_ids.iter().any(|m| d.others.contains(m)) {
                    d.others.insert(episode.id.clone());
                }
            }
        }
        // What compaction learned from a range with a forgotten message may
        // quote it: those facts go too, and are learned again from the rest.
        let mut affected: HashSet<&str> = (self.episodic.episodes.iter())
            .filter(|e| e.message_ids.iter().any(|m| d.messages.contains(m)))
            .map(|e| e.id.as_str())
            .collect();
        affected.extend(d.others.iter().map(String::as_str));
        let taught: Vec<String> = (self.semantic.facts.iter())
            .filter(|f| f.tags.iter().any(|t| t == "auto") && f.source.as_deref().is_some_and(|s| affected.contains(s)))
            .map(|f| f.id.clone())
            .collect();
        d.facts.extend(taught);
        self.restated(&mut d.facts);
        Ok(d)
    }

    /// Adds to `facts` what consolidation wrote from them: the facts that
    /// restate one (`merges`, a model's may paraphrase it; merges of those
    /// too), and every profile written since the earliest was stated (a
    /// profile is written from what held, so it may quote any of them).
    fn restated(&self, facts: &mut HashSet<String>) {
        let consolidated = |f: &&Fact| f.source.as_deref() == Some(super::consolidate::SOURCE);
        loop {
            let more: Vec<String> = (self.semantic.facts.iter().filter(consolidated))
                .filter(|f| !facts.contains(&f.id) && f.merges.iter().any(|m| facts.contains(m)))
                .map(|f| f.id.clone())
                .collect();
            if more.is_empty() {
                break;
            }
            facts.extend(more);
        }
        let since = (self.semantic.facts.iter()).filter(|f| facts.contains(&f.id)).map(|f| f.created_at).fold(f64::INFINITY, f64::min);
        let profiles = (self.semantic.facts.iter().filter(consolidated))
            .filter(|f| f.key.as_deref() == Some(super::consolidate::PROFILE) && f.created_at >= since)
            .map(|f| f.id.clone());
        facts.extend(profiles.collect::<Vec<_>>());
    }

    fn prepare_forget_then(
        &mut self,
        target: &ForgetTarget,
        now: f64,
        then_add: Option<(crate::message::Message, Option<String>)>,
    ) -> Result<PreparedForget> {
        self.open()?;
        let ts = self.stamp(now)?;
        let doomed = self.doomed(target)?;
        let mut undo = Undo::before(self);
        let (outcome, ids, gone) = self.apply_doomed(&doomed, &mut undo);
        // A replacing message is stored with the rewrite, not as a log value.
        let mut unsaved: Vec<Key> = Vec::new();
        let added = match then_add {
            Some((message, task_id)) => match self.prepare_add_in_task(message, task_id, now) {
                Ok(p) => {
                    unsaved.push(p.write.key.clone());
                    Some(self.commit_add(p))
                }
                Err(e) => {
                    self.undo(undo);
                    return Err(e);
                }
            },
            None => None,
        };
        let threads = match target {
            ForgetTarget::Thread(t) => vec![t.clone()],
            _ => Vec::new(),
        };
        let expired = matches!(target, ForgetTarget::Expired(_)).then(|| outcome.expired());
        let says = Says { ids, threads, expired };
        let (tombstone, segments, remove) = self.stored_without(says, ts, &gone, unsaved, undo.first_seq());
        Ok(PreparedForget { tombstone, segments, remove, undo, outcome, added })
    }

    /// Takes what is doomed out of memory, rewrites or drops the episodes
    /// over it; returns the outcome, the tombstone's ids and the record
    /// identities that leave storage.
    fn apply_doomed(&mut self, d: &Doomed, undo: &mut Undo) -> (Forgotten, Vec<String>, Vec<(String, u64)>) {
        let other_messages = self.others.iter().filter(|r| matches!(r, Record::Msg { id, .. } if d.others.contains(id))).count();
        let mut outcome = Forgotten { messages: d.messages.len() + other_messages, facts: d.facts.len(), ..Forgotten::default() };
        // The records that go (by writer and seq), wherever they are stored.
        let mut gone: Vec<(String, u64)> = Vec::new();
        let mut ids: Vec<String> = d.messages.iter().chain(&d.facts).chain(&d.others).cloned().collect();
        let at = positions(&self.others, |r| other_id(r).is_some_and(|id| d.others.contains(id)));
        for r in at.iter().filter_map(|&i| self.others.get(i)) {
            gone.push((r.uid().0.to_string(), r.uid().1));
            outcome.episodes_dropped += usize::from(matches!(r, Record::Episode { .. }));
        }
        self.take_others(&at, undo);

        // Facts, and the embeddings of everything forgotten.
        let at = positions(&self.semantic.facts, |f| d.facts.contains(&f.id));
        gone.extend(at.iter().filter_map(|&i| self.semantic.facts.get(i)).map(|f| (f.origin.writer.clone(), f.origin.seq)));
        self.take_facts(&at, undo);
        for id in d.messages.iter().chain(&d.facts).chain(&d.others) {
            gone.extend(self.take_embedding(id, undo));
        }

        // Messages.
        let at = positions(&self.window.log, |s| d.messages.contains(&s.id));
        gone.extend(at.iter().filter_map(|&i| self.window.log.get(i)).map(|s| (s.writer.clone(), s.seq)));
        self.take_messages(&at, undo);

        // Episodes: summarized again from the remaining messages, in their
        // place, or dropped.
        let affected = positions(&self.episodic.episodes, |e| e.message_ids.iter().any(|m| d.messages.contains(m)));
        let mut dropped = Vec::new();
        for p in affected {
            let Some(e) = self.episodic.episodes.get(p).cloned() else { continue };
            let lc = e.origin.lc;
            gone.push((e.origin.writer.clone(), e.origin.seq));
            ids.push(e.id.clone());
            let remaining: Vec<&Stored> = self.window.log.iter().filter(|s| e.message_ids.contains(&s.id)).collect();
            if remaining.is_empty() {
                outcome.episodes_dropped += 1;
                dropped.push(p);
                continue;
            }
            let seq = self.books.next_seq;
            let mut episode = self.episode_for(&remaining, None, seq, e.created_at);
            episode.last_recalled = e.last_recalled;
            // What the range taught is learned again, from what remains.
            let facts = self.learned_facts(&remaining, None, &episode.id, e.created_at, seq + 1);
            self.books.next_seq = seq + 1 + facts.len() as u64;
            let writer = self.opts.writer.clone();
            // The rewrite takes the place of the episode it replaces, and
            // so does what it taught: the old one's order, not a new one.
            self.rewrite_episode(p, Episode { origin: Origin::new(writer.clone(), seq, lc), ..episode }, undo);
            for (fact, fseq) in facts {
                self.insert_fact(Fact { origin: Origin::new(writer.clone(), fseq, lc), ..fact }, undo);
            }
            outcome.episodes_rewritten += 1;
        }
        self.drop_episodes(&dropped, undo);
        // What left leaves the index; only what is new is analyzed.
        self.reindex_after_edit();
        crate::sort::sort(&mut ids);
        (outcome, ids, gone)
    }

    /// The tombstone, then the values that held what goes (`gone`),
    /// rewritten; the keys to remove. Records numbered from `first_seq` on
    /// are this forget's own (rewritten episodes, what they taught, a
    /// replacing message): stored nowhere yet; `unsaved` are their log keys.
    fn stored_without(
        &mut self,
        says: Says,
        ts: f64,
        gone: &[(String, u64)],
        mut unsaved: Vec<Key>,
        first_seq: u64,
    ) -> (Write, Vec<Write>, Vec<Key>) {
        let seq = self.books.next_seq;
        let writer = self.opts.writer.clone();
        let lc = self.books.lc_at(ts, seq);
        // What this writer writes next must come after the tombstone, or a
        // thread's new life would fall under it.
        self.books.last_lc = self.books.last_lc.max(lc);
        let Says { ids, threads, expired } = says;
        let tombstone = Record::Forget { writer: writer.clone(), seq, ts, ids, threads, lc, expired };
        let tombstone_write = Write { key: log_key(&self.opts.namespace, &writer, seq), bytes: encode_record(&tombstone) };
        self.books.forgets.push(tombstone);
        self.books.next_seq = seq + 1;
        self.books.folding.logged(&tombstone_write);
        let gone: Uids = gone.iter().filter_map(|(w, s)| self.books.folding.find(w, *s)).map(|u| (u, 0)).collect();
        let remove = self.books.folding.holding(&gone);
        let movable = self.books.folding.movable(&remove);
        let made = first_seq..seq;
        let records = {
            let moved = self.books.folding.among(&movable);
            self.records_where(
                &|w, s| (w == writer && made.contains(&s)) || moved(w, s),
                Some(made.end.saturating_sub(made.start) as usize + movable.len()),
            )
        };
        let Segmented { writes: segments, outputs, shelves, next_seq, removal, episode_keys } =
            self.segments(&records, self.books.next_seq, &remove);
        self.books.next_seq = next_seq;
        self.shelved_by(shelves);
        unsaved.extend(removal.iter().cloned());
        self.books.folding.replace(&unsaved, outputs, Kind::Segment);
        self.books.folding.mark(&episode_keys, Kind::Episodes);
        (tombstone_write, segments, removal)
    }

    /// Applies a forget whose tombstone and segments were saved.
    pub fn commit_forget(&mut self, p: PreparedForget) -> Forgotten {
        p.outcome
    }

    /// Puts memory back as it was before `p` was prepared: its tombstone
    /// or segments could not be saved.
    pub fn abort_forget(&mut self, p: PreparedForget) {
        self.undo(p.undo);
    }

    /// A key the host failed to remove: the next fold removes it.
    pub fn retry_removal(&mut self, key: Key) {
        self.books.folding.pending.push(key);
    }

    /// Forgets everything: the host removes the namespace prefix first.
    // Cannot fail: `Controller::new` accepted these same options when this
    // controller was made, and it checks nothing else.
    // (A match, not `expect`: that would format the error with `Debug`,
    // which nothing else in the wasm needs.)
    pub fn reset(&mut self) {
        match Controller::new(self.opts.clone(), self.counter.clone()) {
            Ok(fresh) => *self = fresh,
            Err(_) => unreachable!("options were valid at creation"),
        }
    }
}
