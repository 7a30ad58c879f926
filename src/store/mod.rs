//! Persistence: where records live in the host's key space, and how a set of
//! stored values becomes the set of records to restore.
//!
//! Key layout, all under the namespace's own first segment (so a namespace
//! never reads or writes another's keys, even one it is a prefix of):
//! - `[ns, "log", writer, seq]` — one record per key: adding writes O(1) bytes;
//! - `[ns, "pack", writer, seq]` — a pack folding many records; written when
//!   the log has grown by half the packed size, so rewrites amortize to O(1).
//!
//! Invariants: a key is written once per record and never reused for other
//! content; loading is a union of every decodable value, deduplicated by
//! record identity, so crashes between a pack and the removal of what it
//! folded leave duplicates, never losses.

pub mod crc;
pub mod record;
pub mod snapshot;
pub mod tombstones;
mod vector;

use std::collections::HashSet;

use serde::Serialize;

use crate::error::{MemoryError, Result};
use record::{decode, DecodeError, Record};

/// A storage key: path segments, interpreted only by this module.
pub type Key = Vec<String>;

/// Seq numbers are zero-padded so keys sort in write order in every adapter.
fn seq_segment(seq: u64) -> String {
    format!("{seq:016}")
}

pub fn log_key(namespace: &str, writer: &str, seq: u64) -> Key {
    vec![namespace.to_string(), "log".into(), writer.to_string(), seq_segment(seq)]
}

pub fn pack_key(namespace: &str, writer: &str, seq: u64) -> Key {
    vec![namespace.to_string(), "pack".into(), writer.to_string(), seq_segment(seq)]
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
    /// Records seen more than once (in a pack and in the log it folded).
    pub duplicates: usize,
    /// Damaged values, skipped; every intact record still loaded.
    pub corrupt: Vec<CorruptKey>,
}

/// The records of a namespace, deduplicated, with the keys they came from.
#[derive(Debug, Default)]
pub struct Loaded {
    pub records: Vec<Record>,
    /// Keys whose records are all in `records`: a pack may fold them.
    pub keys: Vec<Key>,
    pub report: LoadReport,
}

/// Turns stored values into records.
///
/// # Errors
/// `FORMAT_TOO_NEW` if any value was written by a newer format: loading
/// without it would silently drop data, so nothing loads.
pub fn load(entries: Vec<(Key, Vec<u8>)>) -> Result<Loaded> {
    let mut loaded = Loaded::default();
    let mut seen: HashSet<(String, u64)> = HashSet::new();
    for (key, bytes) in entries {
        loaded.report.keys += 1;
        match decode(&bytes) {
            Ok(records) => {
                for r in records {
                    let (w, s) = r.uid();
                    if seen.insert((w.to_string(), s)) {
                        loaded.records.push(r);
                    } else {
                        loaded.report.duplicates += 1;
                    }
                }
                loaded.keys.push(key);
            }
            Err(DecodeError::TooNew(version)) => {
                return Err(MemoryError::FormatTooNew { key: key.join("/"), version, supported: record::FORMAT_VERSION });
            }
            Err(DecodeError::Corrupt(reason)) => loaded.report.corrupt.push(CorruptKey { key, code: "CORRUPT_DATA", reason }),
        }
    }
    loaded.report.records = loaded.records.len();
    Ok(loaded)
}

/// A write the host must perform, then report back.
#[derive(Clone, Debug, PartialEq)]
pub struct Write {
    pub key: Key,
    pub bytes: Vec<u8>,
}

/// Bookkeeping for folding the log into packs.
#[derive(Clone, Debug, Default)]
pub struct Folding {
    /// Keys this controller knows hold only records it has.
    pub known: Vec<Key>,
    /// Records in `known` log keys, not yet in a pack of ours.
    pub unfolded: usize,
    /// Records in the last pack.
    pub packed: usize,
    /// Fold at the next chance, whatever the sizes (stale content to drop).
    pub forced: bool,
}

impl Folding {
    /// The log is folded once it holds at least `min_unfolded` records and
    /// half as many as the last pack: each record is then rewritten a
    /// bounded number of times on average (geometric growth).
    pub fn due(&self, min_unfolded: usize) -> bool {
        self.forced || self.unfolded >= min_unfolded.max(self.packed / 2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{Message, Role};
    use record::{encode_pack, encode_record};

    fn msg(writer: &str, seq: u64) -> Record {
        Record::Msg { writer: writer.into(), seq, lc: seq, ts: seq as f64, id: format!("m-{writer}-{seq}"), message: Message::text(Role::User, "x"), task: None, thread: None }
    }

    #[test]
    fn union_dedups_and_reports_damage() {
        let (a, b, c) = (msg("a", 1), msg("a", 2), msg("b", 1));
        let entries = vec![
            (log_key("ns", "a", 1), encode_record(&a)),
            (pack_key("ns", "a", 3), encode_pack(&[&a, &b])),
            (log_key("ns", "b", 1), encode_record(&c)),
            (log_key("ns", "b", 2), b"garbage".to_vec()),
        ];
        let loaded = load(entries).unwrap();
        assert_eq!(loaded.records.len(), 3);
        assert_eq!(loaded.report.duplicates, 1);
        assert_eq!(loaded.report.corrupt.len(), 1);
        assert_eq!(loaded.report.corrupt[0].key, log_key("ns", "b", 2));
        assert_eq!(loaded.keys.len(), 3);
    }

    #[test]
    fn a_newer_format_refuses_to_load() {
        let mut bytes = encode_record(&msg("a", 1));
        bytes[4] = record::FORMAT_VERSION + 1;
        assert_eq!(load(vec![(log_key("ns", "a", 1), bytes)]).unwrap_err().code(), "FORMAT_TOO_NEW");
    }

    #[test]
    fn keys_sort_in_write_order() {
        assert!(log_key("n", "w", 9) < log_key("n", "w", 10));
    }
}
