//! The byte envelope of a stored value, and segments of records in it.
//!
//! The envelope makes every stored value self-checking:
//!
//! ```text
//! "AMEM" | version u8 | kind u8 | payload length u32 LE | CRC-32 of payload u32 LE | payload
//! ```
//! kind 1 = one record, kind 2 = many (a segment; 0.1 called it a pack): an
//! array of records; the payload is JSON. Kind 4 (format 2) is a segment of
//! archived messages, or of archived episodes, with their lexical index and
//! their records' heads:
//!
//! ```text
//! heads length u32 LE | terms length u32 LE | heads | terms | JSON array
//! ```
//! Heads (`store::skim`) say what each record is, and terms
//! (`retrieval::terms`) hold one document per message or episode record,
//! in order (`doc_of`): reading the archive does not analyze their text
//! again, and a query does not parse the messages it does not show. Kind
//! 3, written by development builds before kind 4, is `JSON length u32 LE
//! | JSON array | terms`, still read. (Segments of episodes written before
//! held no terms: kind 2.) Decoding never panics: any byte string is a
//! record, a segment, or an error naming what is wrong.
//!
//! Version 2 values are laid out in bounded segments (`store::segments`);
//! version 1 (0.1) values still load, and are rewritten as version 2.

use super::crc::crc32;
use super::record::Record;
use crate::retrieval::terms::{self, SegmentTerms};

pub const MAGIC: &[u8; 4] = b"AMEM";

/// The format this code writes. Version 1 is 0.1's (one growing pack);
/// version 2 stores bounded segments, which 0.1 must not fold into one pack
/// again, so it refuses them. A reader meeting a higher version refuses to
/// load rather than drop data it cannot read.
pub const FORMAT_VERSION: u8 = 2;
const HEADER: usize = 14;
const KIND_RECORD: u8 = 1;
const KIND_PACK: u8 = 2;
const KIND_INDEXED: u8 = 3;
const KIND_HEADED: u8 = 4;
/// Kind 4's two lengths before its heads.
const INDEX_HEADER: usize = 8;

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
/// lexical index of its messages and their heads (kind 4), within the same limit.
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
    let (mut index, mut heads) = (SegmentTerms::new(), Vec::new());
    let close = |payload: &mut Vec<u8>, index: &mut SegmentTerms, heads: &mut Vec<u8>| {
        payload.push(b']');
        let bytes = if index.is_empty() {
            envelope(KIND_PACK, payload)
        } else {
            let terms = index.encode();
            let mut p = Vec::with_capacity(INDEX_HEADER + heads.len() + terms.len() + payload.len());
            p.extend_from_slice(&(heads.len() as u32).to_le_bytes());
            p.extend_from_slice(&(terms.len() as u32).to_le_bytes());
            p.extend_from_slice(heads);
            p.extend_from_slice(&terms);
            p.extend_from_slice(payload);
            envelope(KIND_HEADED, &p)
        };
        (*payload, *index, *heads) = (vec![b'['], SegmentTerms::new(), Vec::new());
        bytes
    };
    let mut prev: Option<&str> = None;
    for r in records {
        let json = crate::json::infallible(serde_json::to_vec(r));
        let doc = if indexed { doc_of(r) } else { None };
        let mut head = Vec::new();
        if indexed {
            super::skim::put_head(&mut head, r, prev);
        }
        // Header, the payload so far, a comma, the record, the closing
        // bracket, and the index with this record's terms and head in it.
        let with = |index: &SegmentTerms, heads: &[u8], head: &[u8]| match &doc {
            Some(d) => INDEX_HEADER + heads.len() + head.len() + index.bytes_with(d.as_ref()),
            None if index.is_empty() => 0,
            None => INDEX_HEADER + heads.len() + head.len() + index.bytes(),
        };
        if n > 0 && HEADER + payload.len() + json.len() + 2 + with(&index, &heads, &head) > limit {
            out.push((close(&mut payload, &mut index, &mut heads), n));
            n = 0;
            // (the first head naming a writer in a segment names it in full)
            prev = None;
            head.clear();
            if indexed {
                super::skim::put_head(&mut head, r, None);
            }
        }
        if n > 0 {
            payload.push(b',');
        }
        payload.extend_from_slice(&json);
        heads.extend_from_slice(&head);
        prev = super::skim::head_writer(r).or(prev);
        if let Some(d) = doc {
            index.push(d);
        }
        n += 1;
    }
    if n > 0 {
        out.push((close(&mut payload, &mut index, &mut heads), n));
    }
    out
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
/// an indexed segment (kinds 3 and 4: `retrieval::terms`' bytes, one
/// document per message or episode record, in order).
pub type Indexed<'a> = (u8, Vec<Record>, Option<&'a [u8]>);

/// As [`decode_value`], with the segment's stored lexical index.
///
/// # Errors
/// As [`decode`].
pub fn decode_indexed(bytes: &[u8]) -> Result<Indexed<'_>, DecodeError> {
    let p = checked_parts(bytes)?;
    Ok((p.version, parse(p.kind, p.json)?, p.terms))
}

/// The records of a value's JSON ([`Parts`]), by its kind.
///
/// # Errors
/// `Corrupt` for an unknown kind or JSON that is not its records.
pub(crate) fn parse(kind: u8, json: &[u8]) -> Result<Vec<Record>, DecodeError> {
    let parsed = match kind {
        KIND_RECORD => serde_json::from_slice::<Record>(json).map(|r| vec![r]),
        KIND_PACK | KIND_INDEXED | KIND_HEADED => serde_json::from_slice::<Vec<Record>>(json),
        other => return Err(DecodeError::Corrupt(format!("unknown record kind {other}"))),
    };
    parsed.map_err(|e| DecodeError::Corrupt(format!("unreadable payload: {e}")))
}

/// A stored value's parts, nothing parsed.
pub(crate) struct Parts<'a> {
    pub version: u8,
    pub kind: u8,
    /// The records' JSON.
    pub json: &'a [u8],
    /// An indexed segment's stored terms (kinds 3, 4), and its heads (kind 4).
    pub terms: Option<&'a [u8]>,
    pub heads: Option<&'a [u8]>,
}

/// A value's [`Parts`], its header and checksum checked, nothing parsed.
///
/// # Errors
/// As [`decode`] (a payload is not parsed, so not found unreadable here).
pub(crate) fn checked_parts(bytes: &[u8]) -> Result<Parts<'_>, DecodeError> {
    let (version, kind, payload) = parts(bytes)?;
    if crc32(payload) != checksum(bytes) {
        return Err(DecodeError::Corrupt("checksum mismatch".into()));
    }
    let short = |what: &str| Err(DecodeError::Corrupt(format!("indexed segment shorter than its {what}")));
    let mut out = Parts { version, kind, json: payload, terms: None, heads: None };
    match kind {
        KIND_INDEXED => {
            let Some((len, rest)) = payload.split_first_chunk::<4>() else { return short("length") };
            let len = u32::from_le_bytes(*len) as usize;
            let (Some(json), Some(terms)) = (rest.get(..len), rest.get(len..)) else { return short("records") };
            (out.json, out.terms) = (json, Some(terms));
        }
        KIND_HEADED => {
            let Some((heads, terms, json)) = headed(payload) else { return short("index") };
            (out.json, out.terms, out.heads) = (json, Some(terms), Some(heads));
        }
        _ => {}
    }
    Ok(out)
}

/// A kind 4 payload's heads, terms and records' JSON.
fn headed(payload: &[u8]) -> Option<(&[u8], &[u8], &[u8])> {
    let (&[h0, h1, h2, h3, t0, t1, t2, t3], rest) = payload.split_first_chunk::<INDEX_HEADER>()?;
    let (h, t) = (u32::from_le_bytes([h0, h1, h2, h3]) as usize, u32::from_le_bytes([t0, t1, t2, t3]) as usize);
    let (heads, rest) = (rest.get(..h)?, rest.get(h..)?);
    Some((heads, rest.get(..t)?, rest.get(t..)?))
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
    use crate::message::{Message, Role};
    use crate::store::record::Expired;
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
        let (heads, terms, json) = headed(&good[HEADER..]).unwrap();
        // Kind 3 (development builds before kind 4), and kind 4.
        let kind3 = |terms: &[u8]| {
            let mut payload = (json.len() as u32).to_le_bytes().to_vec();
            payload.extend_from_slice(json);
            payload.extend_from_slice(terms);
            envelope(KIND_INDEXED, &payload)
        };
        let kind4 = |terms: &[u8]| {
            let mut payload = (heads.len() as u32).to_le_bytes().to_vec();
            payload.extend_from_slice(&(terms.len() as u32).to_le_bytes());
            payload.extend_from_slice(heads);
            payload.extend_from_slice(terms);
            payload.extend_from_slice(json);
            envelope(KIND_HEADED, &payload)
        };
        assert_eq!(kind4(terms), good);
        let load = |value: Vec<u8>| {
            let mut loader = crate::store::Loader::default();
            loader.push(vec!["ns".into(), "arc".into(), "w".into(), "1".into()], &value).unwrap();
            loader.finish()
        };
        let mut other = terms.to_vec();
        other[0] += 1;
        for value in [&kind3 as &dyn Fn(&[u8]) -> Vec<u8>, &kind4] {
            assert_eq!(load(value(terms)).terms.map(|t| t.len()), Some(5));
            // Another analyzer's terms, and damaged ones (the checksum intact): the records load, the text will be analyzed.
            for bad in [other.as_slice(), &terms[..3], &[]] {
                let loaded = load(value(bad));
                assert_eq!((loaded.records, loaded.terms.map(|t| t.len())), (records.clone(), None));
            }
        }
        // A length past the payload is damage, reported.
        let mut payload = u32::MAX.to_le_bytes().to_vec();
        payload.extend_from_slice(json);
        assert!(matches!(decode_indexed(&envelope(KIND_INDEXED, &payload)), Err(DecodeError::Corrupt(_))));
        let mut long = good[HEADER..].to_vec();
        long[..4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(decode_indexed(&envelope(KIND_HEADED, &long)), Err(DecodeError::Corrupt(_))));
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
        fn arbitrary_payloads_never_panic(payload in prop::collection::vec(any::<u8>(), 0..300), kind in 0u8..6) {
            let _ = decode(&envelope(kind, &payload));
            let _ = super::super::skim::skim(&envelope(kind, &payload));
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
