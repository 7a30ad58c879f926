//! Persisted records and their byte envelope.
//!
//! Every persisted fact is an immutable record identified by `(writer, seq)`:
//! two controllers on one namespace write disjoint keys, so merging their
//! data is a union. The envelope makes every stored value self-checking:
//!
//! ```text
//! "AMEM" | version u8 | kind u8 | payload length u32 LE | CRC-32 of payload u32 LE | payload
//! ```
//! kind 1 = one record, kind 2 = many (a segment; 0.1 called it a pack): an
//! array of records; the payload is JSON. Kind 3 (format 2) is a segment of
//! archived messages, or of archived episodes, with their lexical index:
//! `JSON length u32 LE | JSON array | terms` (`retrieval::terms`, one
//! document per message or episode record, in order: `doc_of`), so reading
//! the archive does not analyze their text again. (Segments of episodes
//! written before held no terms: kind 2.) Decoding never panics: any byte
//! string is a record, a segment, or an error naming what is wrong.
//!
//! Version 2 values are laid out in bounded segments (`store::segments`);
//! version 1 (0.1) values still load, and are rewritten as version 2.

use serde::{Deserialize, Serialize};

use super::crc::crc32;
use super::shelf::Shelved;
use crate::episodic::Episode;
use crate::message::Message;
use crate::retrieval::terms::{self, SegmentTerms};
use crate::semantic::Fact;

pub const MAGIC: &[u8; 4] = b"AMEM";

fn chat() -> String {
    "chat".into()
}
/// The format this code writes. Version 1 is 0.1's (one growing pack);
/// version 2 stores bounded segments, which 0.1 must not fold into one pack
/// again, so it refuses them. A reader meeting a higher version refuses to
/// load rather than drop data it cannot read.
pub const FORMAT_VERSION: u8 = 2;
const HEADER: usize = 14;
const KIND_RECORD: u8 = 1;
const KIND_PACK: u8 = 2;
const KIND_INDEXED: u8 = 3;

/// One immutable persisted fact.
/// Externally tagged (`{"msg": {...}}`): an internally tagged enum would
/// make serde buffer every record before reading it, costing speed and
/// about 10 KB of wasm.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Record {
    /// A message as added.
    Msg {
        writer: String,
        seq: u64,
        /// Lamport order: above every record its writer had loaded or
        /// written before (0: written by 0.1, ordered by time).
        #[serde(default, skip_serializing_if = "is_zero")]
        lc: u64,
        ts: f64,
        id: String,
        message: Message,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        task: Option<String>,
        /// The conversation it belongs to; absent: the default thread.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        thread: Option<String>,
    },
    /// A summary laid over archived messages.
    Episode {
        writer: String,
        seq: u64,
        /// Lamport order: above every record its writer had loaded or
        /// written before (0: written by 0.1, ordered by time).
        #[serde(default, skip_serializing_if = "is_zero")]
        lc: u64,
        episode: Episode,
        /// The conversation it summarizes; absent: the default thread.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        thread: Option<String>,
        /// The encoding `episode.tokens` was counted with (absent: an
        /// estimate, or 0.1's record): a reader counting with the same one
        /// keeps the count instead of counting every summary on opening.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        counted: Option<String>,
    },
    /// One call's reported usage, charged at `model`'s prices.
    Usage {
        writer: String,
        seq: u64,
        ts: f64,
        model: String,
        prompt: u64,
        completion: u64,
        cached: u64,
        /// Prompt tokens written to a cache, and output tokens spent reasoning (0.2).
        #[serde(default, skip_serializing_if = "is_zero")]
        cache_write: u64,
        #[serde(default, skip_serializing_if = "is_zero")]
        reasoning: u64,
        /// "chat" (the app's own calls), "summarizer" or "embedder".
        #[serde(default = "chat")]
        purpose: String,
        /// What it cost when recorded, so a later price change does not
        /// rewrite past spending; absent for a model without a price, and in
        /// 0.1's records (priced on load, at 0.1's prices where they changed).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        usd: Option<f64>,
    },
    /// Ids the user asked to forget: messages, facts and what derived from
    /// them. Holds no content, so it can outlive what it removed.
    Forget {
        writer: String,
        seq: u64,
        ts: f64,
        ids: Vec<String>,
        /// Whole threads: every message and episode of each, up to this
        /// record's `lc` (so a thread's later life, and writers that had not
        /// seen those records when this was written, are covered alike).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        threads: Vec<String>,
        #[serde(default, skip_serializing_if = "is_zero")]
        lc: u64,
        /// Set when retention wrote it (`controller::retention`): what it
        /// removed, which `stats().retention` adds up.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        expired: Option<Expired>,
    },
    /// A remembered fact, preference or document chunk.
    Fact {
        writer: String,
        seq: u64,
        /// Lamport order: above every record its writer had loaded or
        /// written before (0: written by 0.1, ordered by time).
        #[serde(default, skip_serializing_if = "is_zero")]
        lc: u64,
        fact: Fact,
    },
    /// The embedder's vector for one item (fact or message id).
    Embedding {
        writer: String,
        seq: u64,
        item: String,
        #[serde(with = "super::vector")]
        vector: Vec<f32>,
    },
    /// Cold segments one fold wrote (`added`) and retired (`removed`):
    /// opening reads these instead of the cold segments (`controller::cold`).
    Shelf {
        writer: String,
        seq: u64,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        added: Vec<Shelved>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        removed: Vec<Vec<String>>,
    },
    /// Rules and tools as last set; the newest wins.
    Procedures {
        writer: String,
        seq: u64,
        /// Lamport order: above every record its writer had loaded or
        /// written before (0: written by 0.1, ordered by time).
        #[serde(default, skip_serializing_if = "is_zero")]
        lc: u64,
        ts: f64,
        procedures: serde_json::Value,
    },
}

/// What one retention pass removed (its tombstone's `expired`), and their
/// sum over every such tombstone (`stats().retention`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "RetentionStats"))]
pub struct Expired {
    /// Messages past their age (or in an episode past its age), removed.
    pub messages: u64,
    /// Episodes removed: past their age, or with no message left.
    pub episodes: u64,
    /// Episodes summarized again without the messages that expired.
    pub rewritten: u64,
    /// Facts removed: past their age, or learned from an expired range
    /// (learned again from what remains).
    pub facts: u64,
}

/// Read through `Value`, as `Shelved` is (a derived reader costs the wasm
/// more); a count that is missing or of another type reads as 0.
impl<'de> Deserialize<'de> for Expired {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = serde_json::Value::deserialize(d)?;
        let n = |k: &str| v.get(k).and_then(serde_json::Value::as_u64).unwrap_or(0);
        Ok(Expired { messages: n("messages"), episodes: n("episodes"), rewritten: n("rewritten"), facts: n("facts") })
    }
}

impl Record {
    /// The unique identity of this record.
    pub fn uid(&self) -> (&str, u64) {
        match self {
            Record::Msg { writer, seq, .. }
            | Record::Episode { writer, seq, .. }
            | Record::Usage { writer, seq, .. }
            | Record::Forget { writer, seq, .. }
            | Record::Fact { writer, seq, .. }
            | Record::Embedding { writer, seq, .. }
            | Record::Shelf { writer, seq, .. }
            | Record::Procedures { writer, seq, .. } => (writer, *seq),
        }
    }

    /// The record's Lamport order (0 for kinds without one, and for 0.1's records).
    pub fn lc(&self) -> u64 {
        match self {
            Record::Msg { lc, .. }
            | Record::Episode { lc, .. }
            | Record::Fact { lc, .. }
            | Record::Procedures { lc, .. }
            | Record::Forget { lc, .. } => *lc,
            _ => 0,
        }
    }
}

/// The thread every record without one belongs to (all of 0.1's).
pub const DEFAULT_THREAD: &str = "default";

impl Record {
    /// The thread of a message or episode (`None` for what belongs to the
    /// whole namespace: facts, procedures, usage, tombstones, embeddings).
    pub fn thread(&self) -> Option<&str> {
        match self {
            Record::Msg { thread, .. } | Record::Episode { thread, .. } => Some(thread.as_deref().unwrap_or(DEFAULT_THREAD)),
            _ => None,
        }
    }
}

/// How a thread is written in a record: the default one not at all, so
/// records of a namespace without threads read as 0.1 wrote them.
pub fn thread_field(thread: &str) -> Option<String> {
    (thread != DEFAULT_THREAD).then(|| thread.to_string())
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Why a stored value could not be read.
#[derive(Clone, Debug, PartialEq)]
pub enum DecodeError {
    /// Damaged: truncated, wrong magic, bad checksum, unreadable payload.
    Corrupt(String),
    /// Written by a newer version of this package.
    TooNew(u8),
}

fn envelope(kind: u8, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER + payload.len());
    out.extend_from_slice(MAGIC);
    out.push(FORMAT_VERSION);
    out.push(kind);
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(&crc32(payload).to_le_bytes());
    out.extend_from_slice(payload);
    out
}

// Cannot fail (also `encode_pack`): records hold strings, numbers and
// `serde_json::Value`s; every map in them has string keys.
pub fn encode_record(r: &Record) -> Vec<u8> {
    envelope(KIND_RECORD, &crate::json::infallible(serde_json::to_vec(r)))
}

pub fn encode_pack(records: &[&Record]) -> Vec<u8> {
    envelope(KIND_PACK, &crate::json::infallible(serde_json::to_vec(records)))
}

/// `records` as segments of at most `limit` bytes each, in order: each
/// segment's bytes and how many of the records it holds. A record too large
/// for `limit` on its own is a segment alone.
pub fn encode_segments(records: &[Record], limit: usize) -> Vec<(Vec<u8>, usize)> {
    encode(records, limit, false)
}

/// As [`encode_segments`], each segment holding with its records the
/// lexical index of its messages (kind 3), within the same limit.
pub fn encode_indexed_segments(records: &[Record], limit: usize) -> Vec<(Vec<u8>, usize)> {
    encode(records, limit, true)
}

/// The document a record is in an indexed segment: a message's terms
/// (`None` inside for one not searched), an episode's (`Episode::search_text`),
/// `None` for any other record.
pub fn doc_of(r: &Record) -> Option<Option<terms::DocTerms>> {
    match r {
        Record::Msg { message, .. } => Some(message.search_text().map(|t| terms::doc_terms(&t))),
        Record::Episode { episode, .. } => Some(Some(terms::doc_terms(&episode.search_text()))),
        _ => None,
    }
}

fn encode(records: &[Record], limit: usize, indexed: bool) -> Vec<(Vec<u8>, usize)> {
    let mut out = Vec::new();
    let (mut payload, mut n) = (vec![b'['], 0);
    let mut index = SegmentTerms::new();
    let close = |payload: &mut Vec<u8>, index: &mut SegmentTerms| {
        payload.push(b']');
        let bytes = if index.is_empty() {
            envelope(KIND_PACK, payload)
        } else {
            let mut p = (payload.len() as u32).to_le_bytes().to_vec();
            p.extend_from_slice(payload);
            p.extend_from_slice(&index.encode());
            envelope(KIND_INDEXED, &p)
        };
        (*payload, *index) = (vec![b'['], SegmentTerms::new());
        bytes
    };
    for r in records {
        let json = crate::json::infallible(serde_json::to_vec(r));
        let doc = if indexed { doc_of(r) } else { None };
        // Header, the payload so far, a comma, the record, the closing
        // bracket, and the index with this record's terms in it.
        let with = |index: &SegmentTerms| match &doc {
            Some(d) => 4 + index.bytes_with(d.as_ref()),
            None if index.is_empty() => 0,
            None => 4 + index.bytes(),
        };
        if n > 0 && HEADER + payload.len() + json.len() + 2 + with(&index) > limit {
            out.push((close(&mut payload, &mut index), n));
            n = 0;
        }
        if n > 0 {
            payload.push(b',');
        }
        payload.extend_from_slice(&json);
        if let Some(d) = doc {
            index.push(d);
        }
        n += 1;
    }
    if n > 0 {
        out.push((close(&mut payload, &mut index), n));
    }
    out
}

/// The key a lexical index read from storage gives the message record
/// `(writer, seq)` (`Loader`, `Controller::rebuild_index`).
pub fn doc_key(writer: &str, seq: u64) -> u64 {
    use std::hash::BuildHasher;
    crate::retrieval::hash::FxBuildHasher::default().hash_one((writer, seq))
}

/// The records in one stored value.
///
/// # Errors
/// `Corrupt` for anything damaged, `TooNew` for a newer format version.
pub fn decode(bytes: &[u8]) -> Result<Vec<Record>, DecodeError> {
    decode_value(bytes).map(|(_, records)| records)
}

/// The format version of one stored value, and its records.
///
/// # Errors
/// As [`decode`].
pub fn decode_value(bytes: &[u8]) -> Result<(u8, Vec<Record>), DecodeError> {
    decode_indexed(bytes).map(|(version, records, _)| (version, records))
}

/// A value's format version, its records, and the stored lexical index of
/// an indexed segment (kind 3: `retrieval::terms`' bytes, one document per
/// message or episode record, in order).
pub type Indexed<'a> = (u8, Vec<Record>, Option<&'a [u8]>);

/// As [`decode_value`], with the segment's stored lexical index.
///
/// # Errors
/// As [`decode`].
pub fn decode_indexed(bytes: &[u8]) -> Result<Indexed<'_>, DecodeError> {
    let (version, kind, json, terms) = checked_parts(bytes)?;
    Ok((version, parse(kind, json)?, terms))
}

/// The records of a value's JSON ([`Parts`]), by its kind.
///
/// # Errors
/// `Corrupt` for an unknown kind or JSON that is not its records.
pub(crate) fn parse(kind: u8, json: &[u8]) -> Result<Vec<Record>, DecodeError> {
    let parsed = match kind {
        KIND_RECORD => serde_json::from_slice::<Record>(json).map(|r| vec![r]),
        KIND_PACK | KIND_INDEXED => serde_json::from_slice::<Vec<Record>>(json),
        other => return Err(DecodeError::Corrupt(format!("unknown record kind {other}"))),
    };
    parsed.map_err(|e| DecodeError::Corrupt(format!("unreadable payload: {e}")))
}

/// A value's version, kind, records' JSON and (kind 3) stored terms.
pub(crate) type Parts<'a> = (u8, u8, &'a [u8], Option<&'a [u8]>);

/// A value's [`Parts`], its
/// header and checksum checked, nothing parsed (`store::skim` reads an
/// indexed segment's record headers from it).
///
/// # Errors
/// As [`decode`] (a payload is not parsed, so not found unreadable here).
pub(crate) fn checked_parts(bytes: &[u8]) -> Result<Parts<'_>, DecodeError> {
    let (version, kind, payload) = parts(bytes)?;
    if crc32(payload) != checksum(bytes) {
        return Err(DecodeError::Corrupt("checksum mismatch".into()));
    }
    if kind != KIND_INDEXED {
        return Ok((version, kind, payload, None));
    }
    let Some((len, rest)) = payload.split_first_chunk::<4>() else {
        return Err(DecodeError::Corrupt("indexed segment shorter than its length".into()));
    };
    let len = u32::from_le_bytes(*len) as usize;
    let (Some(json), Some(terms)) = (rest.get(..len), rest.get(len..)) else {
        return Err(DecodeError::Corrupt("indexed segment shorter than its records".into()));
    };
    Ok((version, kind, json, Some(terms)))
}

/// Whether a value's kind is a segment of records with their stored terms (kind 3).
pub(crate) fn is_indexed(kind: u8) -> bool {
    kind == KIND_INDEXED
}

fn checksum(bytes: &[u8]) -> u32 {
    bytes.get(10..HEADER).and_then(|c| c.try_into().ok()).map_or(0, u32::from_le_bytes)
}

/// A value's version, kind and payload, its header checked (not its checksum).
fn parts(bytes: &[u8]) -> Result<(u8, u8, &[u8]), DecodeError> {
    let corrupt = |why: &str| Err(DecodeError::Corrupt(why.to_string()));
    let Some((&[m0, m1, m2, m3, version, kind, l0, l1, l2, l3, ..], payload)) = bytes.split_first_chunk::<HEADER>() else {
        return corrupt("shorter than the record header");
    };
    if &[m0, m1, m2, m3] != MAGIC {
        return corrupt("not an agent-memory record (bad magic)");
    }
    if version > FORMAT_VERSION {
        return Err(DecodeError::TooNew(version));
    }
    if version == 0 {
        return corrupt("version 0 does not exist");
    }
    let len = u32::from_le_bytes([l0, l1, l2, l3]) as usize;
    if payload.len() != len {
        return corrupt(if payload.len() < len { "truncated" } else { "trailing bytes after the payload" });
    }
    Ok((version, kind, payload))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::Role;
    use proptest::prelude::*;

    fn msg(seq: u64) -> Record {
        Record::Msg {
            writer: "w".into(),
            seq,
            lc: seq,
            ts: 1.0,
            id: format!("m-w-{seq}"),
            message: Message::text(Role::User, "你好 world"),
            task: None,
            thread: None,
        }
    }

    #[test]
    fn roundtrip_record_and_pack() {
        let r = msg(1);
        assert_eq!(decode(&encode_record(&r)).unwrap(), vec![r.clone()]);
        let r2 = msg(2);
        assert_eq!(decode(&encode_pack(&[&r, &r2])).unwrap(), vec![r, r2]);
        // A retention tombstone's counts, and one written before they existed.
        let expired = Some(Expired { messages: 3, episodes: 1, rewritten: 2, facts: 4 });
        let t = Record::Forget { writer: "w".into(), seq: 3, ts: 1.0, ids: vec!["m-w-1".into()], threads: Vec::new(), lc: 3, expired };
        assert_eq!(decode(&encode_record(&t)).unwrap(), vec![t]);
        let old = br#"[{"forget":{"writer":"w","seq":4,"ts":1.0,"ids":[]}}]"#;
        assert!(matches!(serde_json::from_slice::<Vec<Record>>(old).unwrap().as_slice(), [Record::Forget { expired: None, .. }]));
    }

    #[test]
    fn segments_stay_within_the_limit_and_keep_every_record_in_order() {
        let records: Vec<Record> = (1..=50).map(msg).collect();
        let one = records.iter().map(|r| encode_record(r).len()).max().unwrap();
        for limit in [1, one, 3 * one, 10 * one, 1 << 20] {
            let segments = encode_segments(&records, limit);
            let mut back = Vec::new();
            for (bytes, n) in &segments {
                assert!(bytes.len() <= limit.max(one + 2), "{} bytes over {limit}", bytes.len());
                let (version, got) = decode_value(bytes).unwrap();
                assert_eq!((version, got.len()), (FORMAT_VERSION, *n));
                back.extend(got);
            }
            assert_eq!(back, records);
        }
        assert!(encode_segments(&[], 100).is_empty());
    }

    #[test]
    fn indexed_segments_stay_within_the_limit_with_one_document_per_message() {
        // Messages (one an instruction, not searched) with other records between them.
        let mut records: Vec<Record> = (1..=60).map(msg).collect();
        records.insert(
            7,
            Record::Msg {
                writer: "w".into(),
                seq: 99,
                lc: 99,
                ts: 1.0,
                id: "m-sys".into(),
                message: Message::text(Role::System, "rules"),
                task: None,
                thread: None,
            },
        );
        records.insert(
            20,
            Record::Forget { writer: "w".into(), seq: 98, ts: 1.0, ids: vec!["x".into()], threads: Vec::new(), lc: 0, expired: None },
        );
        let one = records.iter().map(|r| encode_indexed_segments(std::slice::from_ref(r), usize::MAX)[0].0.len()).max().unwrap();
        for limit in [1, one, 3 * one, 10 * one, 1 << 20] {
            let mut back = Vec::new();
            for (bytes, n) in encode_indexed_segments(&records, limit) {
                assert!(bytes.len() <= limit.max(one), "{} bytes over {limit}", bytes.len());
                let (version, got, terms) = decode_indexed(&bytes).unwrap();
                assert_eq!((version, got.len()), (FORMAT_VERSION, n));
                let messages: Vec<&Record> = got.iter().filter(|r| matches!(r, Record::Msg { .. })).collect();
                match terms.map(|t| terms::read(t).unwrap()) {
                    Some(read) => {
                        assert_eq!(read.docs.len(), messages.len());
                        for (doc, m) in read.docs.iter().zip(&messages) {
                            let Record::Msg { message, .. } = m else { unreachable!() };
                            assert_eq!(*doc, message.search_text().map(|t| terms::doc_terms(&t).0));
                        }
                    }
                    None => assert!(messages.is_empty(), "a segment with messages has their terms"),
                }
                back.extend(got);
            }
            assert_eq!(back, records);
        }
        // Plain segments have none.
        assert_eq!(decode_indexed(&encode_segments(&records, 1 << 20)[0].0).unwrap().2, None);
    }

    #[test]
    fn stored_terms_that_cannot_be_read_leave_the_records_loading_and_unindexed() {
        let records: Vec<Record> = (1..=5).map(msg).collect();
        let (good, _) = encode_indexed_segments(&records, 1 << 20).remove(0);
        let (_, _, terms) = decode_indexed(&good).unwrap();
        let json = &good[HEADER + 4..good.len() - terms.unwrap().len()];
        let load = |terms: &[u8]| {
            let mut payload = (json.len() as u32).to_le_bytes().to_vec();
            payload.extend_from_slice(json);
            payload.extend_from_slice(terms);
            let mut loader = crate::store::Loader::default();
            loader.push(vec!["ns".into(), "arc".into(), "w".into(), "1".into()], &envelope(KIND_INDEXED, &payload)).unwrap();
            loader.finish()
        };
        assert_eq!(load(terms.unwrap()).terms.map(|t| t.len()), Some(5));
        // Another analyzer's terms, and damaged ones (the checksum intact): the records load, the text will be analyzed.
        let mut other = terms.unwrap().to_vec();
        other[0] += 1;
        for bad in [other.as_slice(), &terms.unwrap()[..3], &[]] {
            let loaded = load(bad);
            assert_eq!((loaded.records, loaded.terms.map(|t| t.len())), (records.clone(), None));
        }
        // A length past the payload is damage, reported.
        let mut payload = u32::MAX.to_le_bytes().to_vec();
        payload.extend_from_slice(json);
        assert!(matches!(decode_indexed(&envelope(KIND_INDEXED, &payload)), Err(DecodeError::Corrupt(_))));
    }

    #[test]
    fn damage_is_reported_not_panicked() {
        let good = encode_record(&msg(1));
        assert!(matches!(decode(&good[..good.len() - 1]), Err(DecodeError::Corrupt(ref w)) if w == "truncated"));
        let mut flipped = good.clone();
        *flipped.last_mut().unwrap() ^= 1;
        assert!(matches!(decode(&flipped), Err(DecodeError::Corrupt(ref w)) if w == "checksum mismatch"));
        let mut newer = good.clone();
        newer[4] = FORMAT_VERSION + 1;
        assert_eq!(decode(&newer), Err(DecodeError::TooNew(FORMAT_VERSION + 1)));
        assert!(matches!(decode(b"AMEM"), Err(DecodeError::Corrupt(_))));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// The decoder's fuzz target: arbitrary bytes never panic.
        #[test]
        fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
            let _ = decode(&bytes);
        }

        /// Valid headers over arbitrary payloads (checksums right) never panic either.
        #[test]
        fn arbitrary_payloads_never_panic(payload in prop::collection::vec(any::<u8>(), 0..300), kind in 0u8..4) {
            let _ = decode(&envelope(kind, &payload));
        }

        /// Any single-byte corruption of a valid record is detected.
        #[test]
        fn single_byte_damage_is_detected(pos in 0usize..1000, bit in 0u8..8) {
            let good = encode_record(&msg(7));
            let pos = pos % good.len();
            let mut bad = good.clone();
            bad[pos] ^= 1 << bit;
            prop_assert!(decode(&bad).is_err());
        }
    }
}
