//! Persistence: where records live in the host's key space, and how a set of
//! stored values becomes the set of records to restore.
//!
//! Key layout, all under the namespace's own first segment (so a namespace
//! never reads or writes another's keys, even one it is a prefix of):
//! - `[ns, "log", writer, seq]` — one record per key: adding writes O(1) bytes;
//! - `[ns, "seg", writer, seq]` — a bounded segment of many records, written
//!   by folding the log or merging small segments (see `segments`);
//! - `[ns, "arc", writer, seq]` — a cold segment: messages an episode
//!   covers, or episodes none of whose messages is in a value opening
//!   reads; opening reads only the segments of a thread's newest episodes
//!   (`controller::cold`); the `Shelf` records in the other values say
//!   what they hold;
//! - `[ns, "pack", writer, seq]` — 0.1's packs (format 1), read and rewritten
//!   as segments.
//!
//! Invariants: a key is written once per record and never reused for other
//! content; loading is a union of every decodable value, deduplicated by
//! record identity, so crashes between a segment and the removal of what it
//! replaced leave duplicates, never losses.

pub mod books;
pub mod crc;
pub mod envelope;
pub mod indexing;
pub mod placement;
pub mod record;
pub mod segments;
pub mod shelf;
pub mod skim;
pub mod snapshot;
mod terms_batch;
pub mod tombstones;
mod vector;

use serde::Serialize;

use crate::error::{MemoryError, Result};
use record::{DecodeError, Record};
pub(crate) use segments::Uids;
pub use segments::{Folding, Kind, Limits, Uid};
use terms_batch::TermsBatch;

/// A storage key: path segments, interpreted only by this module.
pub type Key = Vec<String>;

/// Seq numbers are zero-padded so keys sort in write order in every adapter.
fn seq_segment(seq: u64) -> String {
    format!("{seq:016}")
}

pub fn log_key(namespace: &str, writer: &str, seq: u64) -> Key {
    vec![namespace.to_string(), "log".into(), writer.to_string(), seq_segment(seq)]
}

pub fn segment_key(namespace: &str, writer: &str, seq: u64) -> Key {
    vec![namespace.to_string(), "seg".into(), writer.to_string(), seq_segment(seq)]
}

pub fn cold_key(namespace: &str, writer: &str, seq: u64) -> Key {
    vec![namespace.to_string(), "arc".into(), writer.to_string(), seq_segment(seq)]
}

/// Whether `key` is a cold segment's.
pub fn is_cold(key: &Key) -> bool {
    key.get(1).is_some_and(|k| k == "arc")
}

/// What opening reads: everything but the cold segments.
pub fn open_prefixes(namespace: &str) -> [Key; 3] {
    ["log", "seg", "pack"].map(|kind| vec![namespace.to_string(), kind.to_string()])
}

pub fn cold_prefix(namespace: &str) -> Key {
    vec![namespace.to_string(), "arc".into()]
}

/// The prefix holding all of a namespace's data.
pub fn namespace_prefix(namespace: &str) -> Key {
    vec![namespace.to_string()]
}

/// A stored value that could not be read.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct CorruptKey {
    pub key: Key,
    #[cfg_attr(test, ts(type = "\"CORRUPT_DATA\""))]
    pub code: &'static str,
    pub reason: String,
}

/// What loading found.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct LoadReport {
    pub keys: usize,
    pub records: usize,
    /// Records seen more than once (in a segment and in the log it folded).
    pub duplicates: usize,
    /// Damaged values, skipped; every intact record still loaded.
    pub corrupt: Vec<CorruptKey>,
}

/// The records of a namespace, deduplicated, with the values they came from.
#[derive(Debug, Default)]
pub struct Loaded {
    pub records: Vec<Record>,
    /// Every intact value and the records it holds.
    pub folding: Folding,
    pub report: LoadReport,
    /// The identities of `records` (under `folding`'s writer numbers).
    pub(crate) seen: Uids,
    /// The lexical index stored with the messages of indexed segments
    /// (`record::decode_indexed`), keyed by `record::doc_key`; `None` when
    /// no value read had one.
    pub terms: Option<crate::retrieval::Bm25Index>,
    /// The same for the episodes of segments that hold only episodes
    /// (their own index: `SearchIndex::episodes`).
    pub episode_terms: Option<crate::retrieval::Bm25Index>,
}

/// The cold segments opening did not read (`controller::cold`), as
/// the `Shelf` records describe them.
#[derive(Clone, Debug, Default)]
pub struct Cold {
    /// Shelved segments not read yet (their keys are `Kind::Cold` values).
    pub unread: usize,
    /// The highest `lc` they hold, and each writer's highest seq.
    pub lc: u64,
    pub seqs: Vec<(String, u64)>,
    /// This thread's messages in them, and their tokens.
    pub messages: u64,
    pub tokens: u64,
    /// The first and last of them by order: (`lc`, timestamp, id).
    pub first: Option<(u64, f64, String)>,
    pub last: Option<(u64, f64, String)>,
    /// This thread's episodes in them, their summaries' tokens, and the
    /// tasks they are steps of.
    pub episodes: u64,
    pub episode_tokens: u64,
    pub tasks: Vec<String>,
    /// The message vectors in them (of any thread).
    pub vectors: u64,
    /// The records they hold, of every thread (what reading them loads).
    pub records: u64,
    /// The records loaded so far, to leave out their copies.
    pub(crate) seen: Uids,
}

/// Turns stored values into records one value at a time, so a host can hand
/// them over as it reads them: no more than one value's bytes at once,
/// besides a batch of their stored terms (`terms_batch`).
#[derive(Debug, Default)]
pub struct Loader {
    loaded: Loaded,
    /// Keys read already: left out.
    skip: Vec<Key>,
    /// What the values read go to, when not to `loaded`.
    mode: Mode,
    /// Stored terms read and not yet in `loaded`: the messages', and the
    /// episodes' of segments holding only episodes.
    terms: TermsBatch,
    episode_terms: TermsBatch,
}

/// Where a [`Loader`]'s values go.
#[derive(Debug, Default)]
enum Mode {
    /// Records, deduplicated, and their stored terms (opening, a whole read).
    #[default]
    Load,
    /// A lexical query's read of the cold segments (`indexing`).
    Index(Box<indexing::Indexing>),
    /// The records at the places wanted of each value (a query's hits,
    /// decoded after `indexing`), each value's other records skipped.
    Values(Vec<(Key, Vec<u32>)>, Vec<(Key, Vec<(u32, Record)>)>),
}

impl Loader {
    /// Reads one stored value.
    ///
    /// # Errors
    /// `FORMAT_TOO_NEW` if the value was written by a newer format: loading
    /// without it would silently drop data, so nothing loads.
    pub fn push(&mut self, key: Key, bytes: &[u8]) -> Result<()> {
        if self.skip.contains(&key) {
            return Ok(());
        }
        match &mut self.mode {
            Mode::Load => {}
            Mode::Index(ix) => return ix.push(key, bytes),
            Mode::Values(wanted, values) => {
                let Some((_, places)) = wanted.iter().find(|(k, _)| *k == key) else { return Ok(()) };
                match skim::decode_some(bytes, places) {
                    Ok(records) => values.push((key, records)),
                    Err(DecodeError::TooNew(version)) => {
                        return Err(MemoryError::FormatTooNew { key: key.join("/"), version, supported: record::FORMAT_VERSION });
                    }
                    // (not answered: the caller reads the cold segments whole, which reports it)
                    Err(DecodeError::Corrupt(_)) => {}
                }
                return Ok(());
            }
        }
        let loaded = &mut self.loaded;
        loaded.report.keys += 1;
        match record::decode_indexed(bytes) {
            Ok((version, records, terms)) => {
                let mut uids = Vec::with_capacity(records.len());
                let episodes_only = records.iter().all(|r| matches!(r, Record::Episode { .. }));
                // The stored terms' documents, in order (a duplicate's left
                // out): the messages, or, in a segment of episodes, the
                // episodes (their own index).
                let mut docs: Vec<Option<u64>> = Vec::new();
                for r in records {
                    let (w, s) = r.uid();
                    let uid = loaded.folding.uid(w, s);
                    uids.push(uid);
                    let new = loaded.seen.insert(uid, 0).is_none();
                    match r {
                        _ if terms.is_none() => {}
                        Record::Msg { .. } => docs.push(new.then(|| record::doc_key(w, s))),
                        Record::Episode { .. } => docs.push((new && episodes_only).then(|| record::doc_key(w, s))),
                        _ => {}
                    }
                    if new {
                        loaded.records.push(r);
                    } else {
                        loaded.report.duplicates += 1;
                    }
                }
                // Terms that cannot be read are left: the text is analyzed instead.
                if let Some(terms) = terms.filter(|_| docs.iter().any(Option::is_some)) {
                    match episodes_only {
                        true => self.episode_terms.push(terms, docs, &mut loaded.episode_terms),
                        false => self.terms.push(terms, docs, &mut loaded.terms),
                    }
                }
                let kind = match key.get(1).map(String::as_str) {
                    _ if version < record::FORMAT_VERSION => Kind::Rewrite,
                    Some("log") => Kind::Log,
                    Some("arc") if !uids.is_empty() && episodes_only => Kind::Episodes,
                    _ => Kind::Segment,
                };
                loaded.folding.add(key, bytes.len(), uids, kind);
            }
            Err(DecodeError::TooNew(version)) => {
                return Err(MemoryError::FormatTooNew { key: key.join("/"), version, supported: record::FORMAT_VERSION });
            }
            Err(DecodeError::Corrupt(reason)) => loaded.report.corrupt.push(CorruptKey { key, code: "CORRUPT_DATA", reason }),
        }
        Ok(())
    }

    /// A loader that leaves out the values under `keys` (read already),
    /// with room for `records`: grown by doubling, the vector of what a
    /// large archive holds would for a moment be there twice and a half.
    pub fn skipping(keys: Vec<Key>, records: usize) -> Loader {
        let mut loader = Loader { skip: keys, ..Loader::default() };
        loader.loaded.records.reserve_exact(records);
        loader.loaded.seen.reserve(records);
        loader
    }

    /// A loader for a lexical query's read of the cold segments (`indexing`),
    /// leaving out the values under `keys` (read already).
    pub fn indexing(keys: Vec<Key>, ix: indexing::Indexing) -> Loader {
        Loader { skip: keys, mode: Mode::Index(Box::new(ix)), ..Loader::default() }
    }

    /// A loader decoding the records at the places `wanted` of each value
    /// named (ascending), without reading their terms or leaving out copies.
    pub fn values(wanted: Vec<(Key, Vec<u32>)>) -> Loader {
        Loader { mode: Mode::Values(wanted, Vec::new()), ..Loader::default() }
    }

    /// What an `indexing` loader read.
    pub fn into_indexing(self) -> Option<indexing::Indexing> {
        match self.mode {
            Mode::Index(ix) => Some(*ix),
            _ => None,
        }
    }

    /// What a `values` loader read: each value's key and records, by place.
    pub fn into_values(self) -> Vec<(Key, Vec<(u32, Record)>)> {
        match self.mode {
            Mode::Values(_, v) => v,
            _ => Vec::new(),
        }
    }

    /// The records read so far.
    pub fn records(&self) -> &[Record] {
        &self.loaded.records
    }

    /// Marks the cold segments read so far as read early (`Kind::Recent`).
    pub fn read_early(&mut self) {
        self.loaded.folding.set_recent(true);
    }

    pub fn finish(mut self) -> Loaded {
        self.terms.flush(&mut self.loaded.terms);
        self.episode_terms.flush(&mut self.loaded.episode_terms);
        self.loaded.report.records = self.loaded.records.len();
        self.loaded
    }
}

/// Turns stored values into records.
///
/// # Errors
/// As [`Loader::push`].
pub fn load(entries: Vec<(Key, Vec<u8>)>) -> Result<Loaded> {
    let mut loader = Loader::default();
    for (key, bytes) in entries {
        loader.push(key, &bytes)?;
    }
    Ok(loader.finish())
}

/// A write the host must perform, then report back.
#[derive(Clone, Debug, PartialEq)]
pub struct Write {
    pub key: Key,
    pub bytes: Vec<u8>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{Message, Role};
    use record::{encode_record, encode_segments};

    fn msg(writer: &str, seq: u64) -> Record {
        Record::Msg {
            writer: writer.into(),
            seq,
            lc: seq,
            ts: seq as f64,
            id: format!("m-{writer}-{seq}"),
            message: Message::text(Role::User, "x"),
            task: None,
            thread: None,
        }
    }

    #[test]
    fn union_dedups_and_reports_damage() {
        let (a, b, c) = (msg("a", 1), msg("a", 2), msg("b", 1));
        let entries = vec![
            (log_key("ns", "a", 1), encode_record(&a)),
            (segment_key("ns", "a", 3), encode_segments(&[a.clone(), b.clone()], 1 << 20).remove(0).0),
            (log_key("ns", "b", 1), encode_record(&c)),
            (log_key("ns", "b", 2), b"garbage".to_vec()),
        ];
        let loaded = load(entries).unwrap();
        assert_eq!(loaded.records.len(), 3);
        assert_eq!(loaded.report.duplicates, 1);
        assert_eq!(loaded.report.corrupt.len(), 1);
        assert_eq!(loaded.report.corrupt[0].key, log_key("ns", "b", 2));
        let kinds: Vec<Kind> = loaded.folding.values().iter().map(|v| v.kind).collect();
        assert_eq!(kinds, [Kind::Log, Kind::Segment, Kind::Log]);
    }

    #[test]
    fn a_newer_format_refuses_to_load() {
        let mut bytes = encode_record(&msg("a", 1));
        bytes[4] = record::FORMAT_VERSION + 1;
        assert_eq!(load(vec![(log_key("ns", "a", 1), bytes)]).unwrap_err().code(), "FORMAT_TOO_NEW");
    }

    #[test]
    fn format_1_values_load_and_are_marked_for_rewriting() {
        let mut bytes = encode_record(&msg("a", 1));
        bytes[4] = 1;
        // The checksum covers the payload only: the version byte is the header's.
        let loaded = load(vec![(log_key("ns", "a", 1), bytes)]).unwrap();
        assert_eq!(loaded.records, vec![msg("a", 1)]);
        assert_eq!(loaded.folding.values()[0].kind, Kind::Rewrite);
        assert!(loaded.folding.must_rewrite());
    }

    #[test]
    fn keys_sort_in_write_order() {
        assert!(log_key("n", "w", 9) < log_key("n", "w", 10));
    }
}
