//! Reading the cold segments for a lexical query (`controller::partial`): each
//! cold segment holding messages is skimmed (`skim`: record heads, not
//! messages) and its stored terms go into a [`FrozenIndex`]; segments of
//! episodes are decoded whole, and the terms stored with them (written
//! since they are) kept for the episodes' own index. One value at a time, as the host hands them
//! over: a value's bytes are dropped once read.
//!
//! The records are taken as a whole read takes them (`controller::cold`):
//! in load order, a record read already (at opening, or earlier in the
//! archive) left out. Anything a whole read would do more than that (a
//! record a tombstone covers, to be rewritten; a value of an older format;
//! a segment of messages without stored terms, or with other records; a
//! damaged value) sets `fallback`: the cold segments are then read whole instead.

use std::collections::HashMap;

use super::record::{doc_key, DecodeError, Record, FORMAT_VERSION};
use super::skim::{skim, Head, Skimmed};
use super::tombstones::Tombstones;
use super::{Key, Uids};
use crate::error::{MemoryError, Result};
use crate::retrieval::{Bm25Index, FrozenBuilder};

/// No document (a message not indexed, or a record that is not a message).
pub const NONE: u32 = u32::MAX;

/// A message of the controller's own thread, as skimmed.
#[derive(Clone, Debug)]
pub struct Mine {
    pub lc: u64,
    pub ts: f64,
    /// Its writer (in `Indexing::writer_names`) and seq.
    pub writer: u32,
    pub seq: u64,
    /// A hash of its id (`hash::str_hash`), to check what covers it.
    pub id: u64,
    /// Its document in the frozen index, or [`NONE`].
    pub doc: u32,
}

/// A segment of messages, skimmed.
#[derive(Clone, Debug)]
pub struct Segment {
    pub key: Key,
    /// Per message record, in order: `MINE | i` (`Indexing::mine[i]`),
    /// `OTHER | j` (`Indexing::others[j]`), or `u64::MAX` (left out).
    pub msgs: Vec<u64>,
    /// Each message record's place among the segment's records.
    pub records: Vec<u32>,
}

pub const MINE: u64 = 1 << 62;
pub const OTHER: u64 = 1 << 61;

/// What a lexical query's read of the cold segments found.
#[derive(Debug, Default)]
pub struct Indexing {
    thread: String,
    tombstones: Tombstones,
    writers: HashMap<String, u64>,
    /// Record identities read so far (at opening, then in the cold segments).
    seen: Uids,
    pub writer_names: Vec<String>,
    pub frozen: FrozenBuilder,
    /// Each frozen document number's segment and time (one per message record).
    pub doc_segment: Vec<u32>,
    pub doc_ts: Vec<f64>,
    pub mine: Vec<Mine>,
    /// Other threads' messages in load order: each one's record key
    /// (`record::doc_key`), time, and frozen document, or [`NONE`].
    pub others: Vec<(u64, f64, u32)>,
    pub segments: Vec<Segment>,
    /// This thread's episodes, decoded, and the terms stored with them
    /// (keyed by `record::doc_key`).
    pub episodes: Vec<Record>,
    /// Complete after [`flush_episode_terms`](Self::flush_episode_terms).
    pub episode_terms: Option<Bm25Index>,
    /// Stored terms of episode segments not yet in `episode_terms`.
    episode_batch: super::terms_batch::TermsBatch,
    last_writer: Option<(String, u64, u32)>,
    /// Why the cold segments must be read whole instead, if it must.
    pub fallback: Option<&'static str>,
}

impl Indexing {
    /// A read for the controller of `thread`, whose tombstones, writers
    /// (`Folding::writers`) and records read at opening are these.
    pub(crate) fn new(thread: String, tombstones: Tombstones, writers: HashMap<String, u64>, seen: Uids) -> Indexing {
        Indexing { thread, tombstones, writers, seen, ..Indexing::default() }
    }

    /// Whether the record `(writer, seq)` is read for the first time (and now read).
    fn first(&mut self, writer: &str, seq: u64) -> bool {
        let (id, _) = self.writer(writer);
        self.seen.insert(super::segments::uid_of(id, seq), 0).is_none()
    }

    /// A writer's number (`Folding`'s) and its place in `writer_names`; the
    /// last one is kept at hand: a segment's records mostly share theirs.
    fn writer(&mut self, writer: &str) -> (u64, u32) {
        match &self.last_writer {
            Some((w, id, at)) if w == writer => (*id, *at),
            _ => {
                let id = super::segments::uid_in(&mut self.writers, writer, 0) >> 44;
                let at = self.writer_index(writer);
                self.last_writer = Some((writer.to_string(), id, at));
                (id, at)
            }
        }
    }

    fn writer_index(&mut self, writer: &str) -> u32 {
        match self.writer_names.iter().position(|w| w == writer) {
            Some(i) => i as u32,
            None => {
                self.writer_names.push(writer.to_string());
                (self.writer_names.len() - 1) as u32
            }
        }
    }

    /// Reads one cold value.
    ///
    /// # Errors
    /// `FORMAT_TOO_NEW`, as a whole read.
    pub fn push(&mut self, key: Key, bytes: &[u8]) -> Result<()> {
        if self.fallback.is_some() {
            return Ok(());
        }
        let skimmed = match skim(bytes) {
            Ok(s) => s,
            Err(DecodeError::TooNew(version)) => {
                return Err(MemoryError::FormatTooNew { key: key.join("/"), version, supported: FORMAT_VERSION });
            }
            Err(DecodeError::Corrupt(_)) => {
                self.fallback = Some("a damaged cold value");
                return Ok(());
            }
        };
        match skimmed {
            Skimmed::Heads(version, heads, terms) => self.messages(key, version, &heads, terms),
            Skimmed::Records(version, records, terms) => self.decoded(version, records, terms),
        }
        Ok(())
    }

    /// A segment of messages (and their vectors) with its stored terms.
    fn messages(&mut self, key: Key, version: u8, heads: &[Head], terms: &[u8]) {
        let plain = heads.iter().all(|h| match h {
            Head::Msg(m) => !m.instruction,
            Head::Embedding { .. } => true,
            Head::Other => false,
        });
        if !plain || version != FORMAT_VERSION {
            self.fallback = Some("a cold segment a query cannot read by its terms");
            return;
        }
        let segment = self.segments.len() as u32;
        let mut msgs = Vec::new();
        let mut keep = Vec::new();
        let mut records = Vec::new();
        for (r, h) in heads.iter().enumerate() {
            match h {
                Head::Embedding { writer, seq } => {
                    self.first(writer, *seq);
                }
                Head::Msg(m) => {
                    let thread = m.thread.unwrap_or(super::record::DEFAULT_THREAD);
                    let first = self.first(m.writer, m.seq);
                    if first && self.tombstones.covers_message(m.id, thread, m.lc) {
                        self.fallback = Some("forgotten content in a cold segment");
                        return;
                    }
                    keep.push(first);
                    self.doc_segment.push(segment);
                    self.doc_ts.push(m.ts);
                    records.push(r as u32);
                    msgs.push(if !first {
                        u64::MAX
                    } else if thread == self.thread {
                        let (_, writer) = self.writer(m.writer);
                        let id = crate::retrieval::hash::str_hash(m.id);
                        self.mine.push(Mine { lc: m.lc, ts: m.ts, writer, seq: m.seq, id, doc: NONE });
                        MINE | (self.mine.len() - 1) as u64
                    } else {
                        self.others.push((doc_key(m.writer, m.seq), m.ts, NONE));
                        OTHER | (self.others.len() - 1) as u64
                    });
                }
                Head::Other => {}
            }
        }
        // (one document per message record: a number each, in order)
        let Some(docs) = self.frozen.add_stored(terms, &keep) else {
            self.fallback = Some("a cold segment a query cannot read by its terms");
            return;
        };
        for (doc, r) in docs.iter().zip(&msgs) {
            let Some(doc) = *doc else { continue };
            let i = (r & !(MINE | OTHER)) as usize;
            if r & MINE != 0 {
                if let Some(m) = self.mine.get_mut(i) {
                    m.doc = doc;
                }
            } else if let Some(o) = self.others.get_mut(i) {
                o.2 = doc;
            }
        }
        self.segments.push(Segment { key, msgs, records });
    }

    /// A value of episodes, decoded whole, and their stored terms if it
    /// has them (one document per episode: `record::doc_of`), kept for
    /// this thread's episodes read for the first time.
    fn decoded(&mut self, version: u8, records: Vec<Record>, terms: Option<&[u8]>) {
        if version != FORMAT_VERSION || records.iter().any(|r| matches!(r, Record::Msg { .. })) {
            self.fallback = Some("a cold segment a query cannot read by its terms");
            return;
        }
        let mut docs = Vec::new();
        for r in records {
            let (w, s) = r.uid();
            let (first, key) = (self.first(w, s), doc_key(w, s));
            let episode = matches!(r, Record::Episode { .. });
            if first && self.tombstones.covers(&r) {
                self.fallback = Some("forgotten content in a cold segment");
                return;
            }
            let mine = first && episode && r.thread().is_none_or(|t| t == self.thread);
            if episode {
                docs.push(mine.then_some(key));
            }
            if mine {
                self.episodes.push(r);
            }
        }
        // Terms that cannot be read are left: the episodes' text is analyzed instead.
        if let Some(terms) = terms {
            self.episode_batch.push(terms, docs, &mut self.episode_terms);
        }
    }

    /// Adds the episode segments' terms read since the last call to
    /// `episode_terms`.
    pub fn flush_episode_terms(&mut self) {
        self.episode_batch.flush(&mut self.episode_terms);
    }
}
