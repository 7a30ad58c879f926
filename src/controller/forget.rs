//! Forgetting: content leaves storage itself, with every copy derived from it.
//!
//! A forget is prepared as the whole state after it: a tombstone record
//! (ids only, no content) so no other copy can come back, then every stored
//! value that held a record that goes is rewritten without it (only those
//! values: the rest of the history is not touched), with the records the
//! forget made, after which the host removes the old values. Episodes that
//! summarized a forgotten message are summarized again from what remains
//! (offline), or dropped when nothing remains; their old ids join the
//! tombstone so their text cannot return either.

use std::collections::HashSet;

use serde::Serialize;

use super::writes::Segmented;
use super::Controller;
use crate::error::{MemoryError, Result};
use crate::store::record::{encode_record, Record};
use crate::store::{log_key, Key, Kind, Uids, Write};
use crate::window::{Stored, Window};

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

/// The state after a forget, and the writes that make storage match it.
pub struct PreparedForget {
    /// Save first: once it is stored, nothing forgotten loads again.
    pub tombstone: Write,
    /// Save second: the values that held what goes, rewritten without it.
    pub segments: Vec<Write>,
    /// Remove last: those values.
    pub remove: Vec<Key>,
    next: Box<Controller>,
    pub outcome: Forgotten,
    /// The id and tokens of the message added in its place ([`Controller::prepare_replace`]).
    pub added: Option<(String, usize)>,
}

/// The id of another thread's message or episode.
fn other_id(r: &Record) -> Option<&str> {
    match r {
        Record::Msg { id, .. } => Some(id),
        Record::Episode { episode, .. } => Some(&episode.id),
        _ => None,
    }
}

impl Controller {
    /// Whether `id` is a message of another thread of the namespace.
    pub(crate) fn other_message(&self, id: &str) -> bool {
        self.others.iter().any(|r| matches!(r, Record::Msg { id: m, .. } if m == id))
    }

    /// # Errors
    /// `INVALID_INPUT` for an unknown message id or an empty range; `CLOSED`.
    pub fn prepare_forget(&self, target: &ForgetTarget, now: f64) -> Result<PreparedForget> {
        self.prepare_forget_then(target, now, None)
    }

    /// Replaces the message `id` and everything after it with `message`, in
    /// one change: the pack that follows the tombstone holds the new message,
    /// so storage never has the old tail and the new message together.
    ///
    /// # Errors
    /// Those of [`Controller::prepare_forget`] and [`Controller::prepare_add_in_task`]
    /// (the new message is checked against what remains).
    pub fn prepare_replace(&self, id: &str, message: crate::message::Message, task_id: Option<String>, now: f64) -> Result<PreparedForget> {
        self.prepare_forget_then(&ForgetTarget::Tail { from: id.to_string(), inclusive: true }, now, Some((message, task_id)))
    }

    fn prepare_forget_then(
        &self,
        target: &ForgetTarget,
        now: f64,
        then_add: Option<(crate::message::Message, Option<String>)>,
    ) -> Result<PreparedForget> {
        self.open()?;
        let ts = self.stamp(now)?;
        let mut doomed_facts: HashSet<String> = HashSet::new();
        // Messages and episodes of other threads, by id.
        let mut doomed_others: HashSet<String> = HashSet::new();
        let doomed: HashSet<String> = match target {
            ForgetTarget::Id(id) if self.has_message(id) || self.other_message(id) => {
                return self.prepare_forget(&ForgetTarget::Message(id.clone()), now)
            }
            ForgetTarget::Id(id) => return self.prepare_forget(&ForgetTarget::Fact(id.clone()), now),
            ForgetTarget::Namespace => {
                return Err(MemoryError::input("forget", "a namespace is forgotten through the write path (its storage prefix goes first)"))
            }
            ForgetTarget::Fact(which) => {
                doomed_facts = self
                    .semantic
                    .facts
                    .iter()
                    .filter(|f| f.id == *which || f.key.as_deref() == Some(which.as_str()) || f.document.as_deref() == Some(which.as_str()))
                    .map(|f| f.id.clone())
                    .collect();
                if doomed_facts.is_empty() {
                    return Err(MemoryError::input("forget", format!("no fact, key or document {which:?}")));
                }
                HashSet::new()
            }
            ForgetTarget::Message(id) if self.other_message(id) => {
                doomed_others.insert(id.clone());
                HashSet::new()
            }
            ForgetTarget::Message(id) => {
                if !self.window.log.iter().any(|s| s.id == *id) {
                    return Err(MemoryError::input("forget", format!("no message with id {id:?}")));
                }
                HashSet::from([id.clone()])
            }
            ForgetTarget::Thread(t) if *t == self.opts.thread => self.window.log.iter().map(|s| s.id.clone()).collect(),
            ForgetTarget::Thread(t) => {
                doomed_others =
                    self.others.iter().filter(|r| r.thread() == Some(t.as_str())).filter_map(other_id).map(String::from).collect();
                HashSet::new()
            }
            ForgetTarget::Expired(ids) => self.expired_doomed(ids, &mut doomed_facts, &mut doomed_others),
            ForgetTarget::Range { from, to } => {
                // Also refuses NaN bounds, which `from > to` would let through.
                #[allow(clippy::neg_cmp_op_on_partial_ord)]
                if !(from <= to) {
                    return Err(MemoryError::input("forget", "expected from <= to"));
                }
                self.window.log.iter().filter(|s| s.ts >= *from && s.ts <= *to).map(|s| s.id.clone()).collect()
            }
            ForgetTarget::Tail { from, inclusive } => {
                let at = self
                    .window
                    .log
                    .iter()
                    .position(|s| s.id == *from)
                    .ok_or_else(|| MemoryError::input("id", format!("no message with id {from:?}")))?;
                self.window.log.get(at + usize::from(!inclusive)..).unwrap_or_default().iter().map(|s| s.id.clone()).collect()
            }
        };
        // Another thread's episode over a forgotten message goes whole: its
        // thread's own controller compacts what remains again.
        for r in &self.others {
            if let Record::Episode { episode, .. } = r {
                if episode.message_ids.iter().any(|m| doomed_others.contains(m)) {
                    doomed_others.insert(episode.id.clone());
                }
            }
        }
        // What compaction learned from a range with a forgotten message may
        // quote it: those facts go too, and are learned again from the rest.
        let mut affected: HashSet<&str> =
            self.episodic.episodes.iter().filter(|e| e.message_ids.iter().any(|m| doomed.contains(m))).map(|e| e.id.as_str()).collect();
        affected.extend(doomed_others.iter().map(String::as_str));
        for f in &self.semantic.facts {
            if f.tags.iter().any(|t| t == "auto") && f.source.as_deref().is_some_and(|s| affected.contains(s)) {
                doomed_facts.insert(f.id.clone());
            }
        }
        let ns = &self.opts.namespace;
        let mut next = Box::new(self.clone());
        let other_messages = self.others.iter().filter(|r| matches!(r, Record::Msg { id, .. } if doomed_others.contains(id))).count();
        let mut outcome = Forgotten { messages: doomed.len() + other_messages, facts: doomed_facts.len(), ..Forgotten::default() };
        // The records that go (by writer and seq), wherever they are stored.
        let mut gone: Vec<(String, u64)> = Vec::new();
        let mut ids: Vec<String> = doomed.iter().chain(&doomed_facts).chain(&doomed_others).cloned().collect();
        next.others.clear();
        for r in &self.others {
            if other_id(r).is_some_and(|id| doomed_others.contains(id)) {
                let (writer, seq) = r.uid();
                gone.push((writer.to_string(), seq));
                outcome.episodes_dropped += usize::from(matches!(r, Record::Episode { .. }));
            } else {
                next.others.push(r.clone());
            }
        }

        // Facts, and the embeddings of everything forgotten.
        next.semantic = crate::semantic::Semantic::default();
        for (f, (writer, seq, lc)) in self.semantic.facts.iter().zip(&self.semantic.uids) {
            if doomed_facts.contains(&f.id) {
                gone.push((writer.clone(), *seq));
            } else {
                next.semantic.push(f.clone(), writer.clone(), *seq, *lc);
            }
        }
        for id in doomed.iter().chain(&doomed_facts).chain(&doomed_others) {
            next.index.embeddings.remove(id);
            if let Some(uid) = next.books.embedding_uids.remove(id) {
                gone.push(uid);
            }
        }

        // Messages: rebuild working memory from what remains.
        let kept: Vec<Stored> = self.window.log.iter().filter(|s| !doomed.contains(&s.id)).cloned().collect();
        gone.extend(self.window.log.iter().filter(|s| doomed.contains(&s.id)).map(|s| (s.writer.clone(), s.seq)));
        next.window = Window::default();
        for s in kept {
            next.window.push(s);
        }

        // Episodes: summarize again from the remaining messages, or drop.
        next.episodic.episodes.clear();
        next.books.episode_uids.clear();
        for (e, (writer, seq, lc)) in self.episodic.episodes.iter().zip(&self.books.episode_uids) {
            if !e.message_ids.iter().any(|m| doomed.contains(m)) {
                next.episodic.episodes.push(e.clone());
                next.books.episode_uids.push((writer.clone(), *seq, *lc));
                continue;
            }
            gone.push((writer.clone(), *seq));
            ids.push(e.id.clone());
            let remaining: Vec<&Stored> = next.window.log.iter().filter(|s| e.message_ids.contains(&s.id)).collect();
            if remaining.is_empty() {
                outcome.episodes_dropped += 1;
                continue;
            }
            let seq = next.books.next_seq;
            let mut episode = next.episode_for(&remaining, None, seq, e.created_at);
            episode.last_recalled = e.last_recalled;
            // What the range taught is learned again, from what remains.
            let facts = next.learned_facts(&remaining, None, &episode.id, e.created_at, seq + 1);
            next.books.next_seq = seq + 1 + facts.len() as u64;
            let writer = next.opts.writer.clone();
            next.episodic.episodes.push(episode);
            // The rewrite takes the place of the episode it replaces, and
            // so does what it taught: the old one's order, not a new one.
            next.books.episode_uids.push((writer.clone(), seq, *lc));
            for (fact, fseq) in facts {
                next.semantic.push(fact, writer.clone(), fseq, *lc);
            }
            outcome.episodes_rewritten += 1;
        }

        if !next.index.stale {
            next.rebuild_index();
        }
        // A replacing message is stored with the rewrite, not as a log value.
        let mut unsaved: Vec<Key> = Vec::new();
        let added = match then_add {
            Some((message, task_id)) => {
                let p = next.prepare_add_in_task(message, task_id, now)?;
                unsaved.push(p.write.key.clone());
                Some(next.commit_add(p))
            }
            None => None,
        };

        // The tombstone, then the values that held what goes, rewritten.
        ids.sort();
        let seq = next.books.next_seq;
        let writer = next.opts.writer.clone();
        let threads = match target {
            ForgetTarget::Thread(t) => vec![t.clone()],
            _ => Vec::new(),
        };
        let expired = matches!(target, ForgetTarget::Expired(_)).then(|| outcome.expired());
        let lc = next.lc_at(ts, seq);
        // What this writer writes next must come after the tombstone, or a
        // thread's new life would fall under it.
        next.books.last_lc = next.books.last_lc.max(lc);
        let tombstone = Record::Forget { writer: writer.clone(), seq, ts, ids, threads, lc, expired };
        let tombstone_write = Write { key: log_key(ns, &writer, seq), bytes: encode_record(&tombstone) };
        next.books.forgets.push(tombstone);
        next.books.next_seq = seq + 1;
        next.books.folding.logged(&tombstone_write);
        let gone: Uids = gone.iter().filter_map(|(w, s)| next.books.folding.find(w, *s)).map(|u| (u, 0)).collect();
        let remove = next.books.folding.holding(&gone);
        let movable = next.books.folding.movable(&remove);
        // Records numbered from `self.books.next_seq` up to the tombstone are this
        // forget's own (rewritten episodes, what they taught, a replacing
        // message): stored nowhere yet.
        let made = self.books.next_seq..seq;
        let records = {
            let moved = next.books.folding.among(&movable);
            next.records_where(&|w, s| (w == writer && made.contains(&s)) || moved(w, s))
        };
        let Segmented { writes: segments, outputs, shelves, next_seq, removal, episode_keys } =
            next.segments(&records, next.books.next_seq, &remove);
        let remove = removal;
        next.books.next_seq = next_seq;
        next.shelved_by(shelves);
        unsaved.extend(remove.iter().cloned());
        next.books.folding.replace(&unsaved, outputs, Kind::Segment);
        next.books.folding.mark(&episode_keys, Kind::Episodes);
        Ok(PreparedForget { tombstone: tombstone_write, segments, remove, next, outcome, added })
    }

    /// Applies a forget whose tombstone and segments were saved.
    pub fn commit_forget(&mut self, p: PreparedForget) -> Forgotten {
        *self = *p.next;
        p.outcome
    }

    /// A key the host failed to remove: the next fold removes it.
    pub fn retry_removal(&mut self, key: Key) {
        self.books.folding.pending.push(key);
    }

    /// Forgets everything: the host removes the namespace prefix first.
    // Cannot fail: `Controller::new` accepted these same options when this
    // controller was made, and it checks nothing else.
    #[allow(clippy::expect_used)]
    pub fn reset(&mut self) {
        let fresh = Controller::new(self.opts.clone(), self.counter.clone()).expect("options were valid at creation");
        *self = fresh;
    }
}
