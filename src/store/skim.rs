//! What a lexical query reads of a cold segment of messages without
//! decoding them: each record's head (identity, order, thread, a message's
//! id and whether it is an instruction), written beside the records in an
//! indexed segment (`envelope`'s kind 4), so the messages are not parsed.
//! With the segment's stored terms that is what a lexical query needs of
//! the messages it does not show (`controller::partial`).
//!
//! Heads, one per record in order, until the bytes end (`put_head`):
//!
//! ```text
//! tag u8: 0 another record, 1 a message, 2 an instruction (system, developer), 3 a vector
//! 1, 2:  writer, varint seq, varint lc, ts f64 LE, varint id length, id, varint thread length + 1 (0: none), thread
//! 3:     writer, varint seq
//! writer: varint length + 1 and its UTF-8, or 0: the writer named last in the segment
//! ```
//!
//! Invariants: the heads say what `decode_indexed`'s records are, in order;
//! `skim` accepts only values `decode_indexed` decodes (same checks:
//! envelope, checksum), all of them but one whose heads cannot be read
//! (which this code never writes), never panics, and reads a kind 4 value
//! holding messages by its heads, any other value whole.
//! (A kind 3 value, written before heads were, is decoded whole: a query
//! then reads the cold segments whole.)

use serde::de::{Deserializer, IgnoredAny, Visitor};

use super::envelope::{checked_parts, parse, DecodeError};
use super::record::Record;
use crate::retrieval::terms::{put_varint, Cursor};

/// What one record of an indexed segment is, as far as a query needs.
#[derive(Debug, PartialEq)]
pub enum Head<'a> {
    Msg(MsgHead<'a>),
    /// A message's vector (of any thread).
    Embedding {
        writer: &'a str,
        seq: u64,
    },
    /// Any other record (none is written to a segment holding messages).
    Other,
}

/// A message record without its message.
#[derive(Debug, PartialEq)]
pub struct MsgHead<'a> {
    pub writer: &'a str,
    pub seq: u64,
    pub lc: u64,
    pub ts: f64,
    pub id: &'a str,
    /// A system or developer message.
    pub instruction: bool,
    pub thread: Option<&'a str>,
}

const OTHER: u8 = 0;
const MESSAGE: u8 = 1;
const INSTRUCTION: u8 = 2;
const VECTOR: u8 = 3;

/// The writer a record's head names (messages and vectors name theirs).
pub(crate) fn head_writer(r: &Record) -> Option<&str> {
    match r {
        Record::Msg { writer, .. } | Record::Embedding { writer, .. } => Some(writer),
        _ => None,
    }
}

/// Appends the head of `r`; `prev`: the writer the segment's last head
/// naming one named (`None`: none did).
pub(crate) fn put_head(out: &mut Vec<u8>, r: &Record, prev: Option<&str>) {
    // A string that may be left out (a writer named before, no thread):
    // its length + 1 and its bytes, or 0.
    let put_maybe = |out: &mut Vec<u8>, s: Option<&str>| match s {
        Some(s) => {
            put_varint(out, s.len() as u64 + 1);
            out.extend_from_slice(s.as_bytes());
        }
        None => out.push(0),
    };
    match r {
        Record::Msg { writer, seq, lc, ts, id, message, thread, .. } => {
            out.push(if message.role.is_instruction() { INSTRUCTION } else { MESSAGE });
            put_maybe(out, (prev != Some(writer.as_str())).then_some(writer));
            put_varint(out, *seq);
            put_varint(out, *lc);
            out.extend_from_slice(&ts.to_le_bytes());
            put_varint(out, id.len() as u64);
            out.extend_from_slice(id.as_bytes());
            put_maybe(out, thread.as_deref());
        }
        Record::Embedding { writer, seq, .. } => {
            out.push(VECTOR);
            put_maybe(out, (prev != Some(writer.as_str())).then_some(writer));
            put_varint(out, *seq);
        }
        _ => out.push(OTHER),
    }
}

/// The heads `put_head` wrote; `None` when damaged.
fn read_heads<'a>(bytes: &'a [u8]) -> Option<Vec<Head<'a>>> {
    let mut c = Cursor { bytes, at: 0 };
    let text = |c: &mut Cursor<'a>, n: usize| c.take(n).and_then(|b| std::str::from_utf8(b).ok());
    // What `put_maybe` wrote: `Some(None)` for a string left out.
    let maybe = |c: &mut Cursor<'a>| -> Option<Option<&'a str>> {
        match c.small(bytes.len())? {
            0 => Some(None),
            n => text(c, n - 1).map(Some),
        }
    };
    let mut prev: Option<&'a str> = None;
    let mut writer = |c: &mut Cursor<'a>| -> Option<&'a str> {
        if let Some(w) = maybe(c)? {
            prev = Some(w);
        }
        prev
    };
    let mut heads = Vec::new();
    while c.at < bytes.len() {
        heads.push(match c.byte()? {
            OTHER => Head::Other,
            tag @ (MESSAGE | INSTRUCTION) => {
                let (writer, seq, lc) = (writer(&mut c)?, c.varint()?, c.varint()?);
                let ts = f64::from_le_bytes(c.take(8)?.try_into().ok()?);
                let n = c.small(bytes.len())?;
                let id = text(&mut c, n)?;
                let thread = maybe(&mut c)?;
                Head::Msg(MsgHead { writer, seq, lc, ts, id, instruction: tag == INSTRUCTION, thread })
            }
            VECTOR => Head::Embedding { writer: writer(&mut c)?, seq: c.varint()? },
            _ => return None,
        });
    }
    Some(heads)
}

/// An archive value as a lexical query reads it (`store::indexing`).
#[derive(Debug, PartialEq)]
pub enum Skimmed<'a> {
    /// A segment of messages: its format version, its records' heads in
    /// order, and its stored terms (`retrieval::terms`' bytes).
    Heads(u8, Vec<Head<'a>>, &'a [u8]),
    /// Any other value (episodes), decoded whole: as `envelope::decode_indexed`.
    Records(u8, Vec<Record>, Option<&'a [u8]>),
}

/// The heads and stored terms of an indexed segment holding messages (kind
/// 4); any other value decoded whole (its checksum checked once).
///
/// # Errors
/// As `record::decode`: `Corrupt` for anything damaged, `TooNew`.
pub fn skim(bytes: &[u8]) -> Result<Skimmed<'_>, DecodeError> {
    let p = checked_parts(bytes)?;
    if let (Some(heads), Some(terms)) = (p.heads, p.terms) {
        let heads = read_heads(heads).ok_or_else(|| DecodeError::Corrupt("unreadable record heads".into()))?;
        if heads.iter().any(|h| matches!(h, Head::Msg(_))) {
            return Ok(Skimmed::Heads(p.version, heads, terms));
        }
    }
    Ok(Skimmed::Records(p.version, parse(p.kind, p.json)?, p.terms))
}

/// The records of an indexed segment at the places `wanted` (ascending),
/// decoded; the others are skipped, not parsed into values.
///
/// # Errors
/// As `record::decode`.
pub fn decode_some(bytes: &[u8], wanted: &[u32]) -> Result<Vec<(u32, Record)>, DecodeError> {
    let mut de = serde_json::Deserializer::from_slice(checked_parts(bytes)?.json);
    let out = de.deserialize_seq(Wanted(wanted)).and_then(|out| de.end().map(|()| out));
    out.map_err(|e| DecodeError::Corrupt(format!("unreadable payload: {e}")))
}

/// The places of the records to decode.
struct Wanted<'a>(&'a [u32]);

impl<'de> Visitor<'de> for Wanted<'_> {
    type Value = Vec<(u32, Record)>;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("an array of records")
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let wanted = self.0;
        let mut out = Vec::with_capacity(wanted.len());
        let mut at = 0u32;
        loop {
            let more = if wanted.binary_search(&at).is_ok() {
                seq.next_element::<Record>()?.map(|r| out.push((at, r)))
            } else {
                seq.next_element::<IgnoredAny>()?.map(|_| ())
            };
            if more.is_none() {
                return Ok(out);
            }
            at += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{Message, Role};
    use crate::store::record::{decode_indexed, encode_indexed_segments, encode_segments, Record};
    use proptest::prelude::*;

    fn msg(seq: u64, role: Role, text: &str, thread: Option<&str>) -> Record {
        Record::Msg {
            writer: "w\"x".into(),
            seq,
            lc: seq * 2,
            ts: seq as f64 + 0.5,
            id: format!("m-{seq}"),
            message: Message::text(role, text),
            task: Some("t".into()),
            thread: thread.map(String::from),
        }
    }

    #[test]
    fn heads_say_what_the_records_are() {
        let records = vec![
            msg(1, Role::User, "hello \"world\" {\"role\":\"system\"}", None),
            Record::Embedding { writer: "w".into(), seq: 2, item: "m-1".into(), vector: vec![0.5, -1.0] },
            msg(3, Role::System, "rules", Some("旅行")),
            Record::Forget { writer: "w".into(), seq: 4, ts: 1.0, ids: vec![], threads: vec![], lc: 0, expired: None },
            msg(5, Role::Developer, "more rules", Some("")),
        ];
        let (bytes, _) = encode_indexed_segments(&records, 1 << 20).remove(0);
        let Skimmed::Heads(version, heads, terms) = skim(&bytes).unwrap() else { panic!("not skimmed") };
        assert_eq!(version, crate::store::record::FORMAT_VERSION);
        assert_eq!(terms, decode_indexed(&bytes).unwrap().2.unwrap());
        let head = |writer, seq, instruction, thread| {
            Head::Msg(MsgHead { writer, seq, lc: seq * 2, ts: seq as f64 + 0.5, id: "", instruction, thread })
        };
        let mut expected = vec![
            head("w\"x", 1, false, None),
            Head::Embedding { writer: "w", seq: 2 },
            head("w\"x", 3, true, Some("旅行")),
            Head::Other,
            head("w\"x", 5, true, Some("")),
        ];
        for (h, id) in expected.iter_mut().zip(["m-1", "", "m-3", "", "m-5"]) {
            if let Head::Msg(m) = h {
                m.id = id;
            }
        }
        assert_eq!(heads, expected);
        let some = decode_some(&bytes, &[0, 2]).unwrap();
        let all = decode_indexed(&bytes).unwrap().1;
        assert_eq!(some, vec![(0, all[0].clone()), (2, all[2].clone())]);
        // Another kind (or a segment of episodes: tests/partial_read.rs) is decoded whole.
        let plain = encode_segments(&records, 1 << 20).remove(0).0;
        assert_eq!(skim(&plain).unwrap(), Skimmed::Records(version, decode_indexed(&plain).unwrap().1, None));
    }

    proptest! {
        /// Any records: the heads say what they are, each segment's first naming its writer.
        #[test]
        fn heads_read_back_as_written(
            spec in proptest::collection::vec((0u8..3, 0u64..1 << 40, -1e15f64..1e15, 0u8..4, any::<bool>()), 1..30),
            limit in 200usize..4000,
        ) {
            let writers = ["a", "b", "作者"];
            let records: Vec<Record> = spec
                .iter()
                .enumerate()
                .map(|(i, &(w, lc, ts, kind, system))| {
                    // (whole milliseconds: serde_json reads back some fractions a bit off)
                    let ts = ts.round();
                    let writer = writers[w as usize].to_string();
                    match kind {
                        0 => Record::Embedding { writer, seq: i as u64, item: "x".into(), vector: vec![1.0] },
                        1 => Record::Procedures { writer, seq: i as u64, lc, ts, procedures: serde_json::json!({}) },
                        _ => Record::Msg {
                            writer,
                            seq: i as u64,
                            lc,
                            ts,
                            id: format!("m-{i}"),
                            message: Message::text(if system { Role::System } else { Role::User }, "deploy 部署"),
                            task: None,
                            thread: (kind == 3).then(|| format!("t{lc}")),
                        },
                    }
                })
                .collect();
            let mut at = 0;
            for (bytes, n) in encode_indexed_segments(&records, limit) {
                let part = &records[at..at + n];
                at += n;
                match skim(&bytes).unwrap() {
                    Skimmed::Heads(_, heads, _) => {
                        prop_assert_eq!(heads.len(), n);
                        for (h, r) in heads.iter().zip(part) {
                            match (h, r) {
                                (Head::Msg(m), Record::Msg { writer, seq, lc, ts, id, message, thread, .. }) => {
                                    prop_assert_eq!((m.writer, m.seq, m.lc, m.ts.to_bits(), m.id), (writer.as_str(), *seq, *lc, ts.to_bits(), id.as_str()));
                                    prop_assert_eq!((m.instruction, m.thread), (message.role.is_instruction(), thread.as_deref()));
                                }
                                (Head::Embedding { writer, seq }, Record::Embedding { writer: w, seq: s, .. }) => {
                                    prop_assert_eq!((*writer, *seq), (w.as_str(), *s));
                                }
                                (Head::Other, Record::Procedures { .. }) => {}
                                other => prop_assert!(false, "{:?}", other),
                            }
                        }
                    }
                    Skimmed::Records(_, got, _) => {
                        let messages = part.iter().filter(|r| matches!(r, Record::Msg { .. })).count();
                        prop_assert_eq!(messages, 0);
                        prop_assert_eq!(got.as_slice(), part);
                    }
                }
            }
            prop_assert_eq!(at, records.len());
        }

        /// Any bytes: an error or an answer, never a panic; damage is caught as decoding catches it.
        #[test]
        fn any_bytes_skim_without_panic(pos in 0usize..4000, bit in 0u8..8, noise in proptest::collection::vec(any::<u8>(), 0..200)) {
            let _ = skim(&noise);
            let records: Vec<Record> = (1..5).map(|i| msg(i, Role::User, "deploy the script", None)).collect();
            let (good, _) = encode_indexed_segments(&records, 1 << 20).remove(0);
            prop_assert!(matches!(skim(&good), Ok(Skimmed::Heads(..))));
            let mut bad = good.clone();
            let pos = pos % bad.len();
            bad[pos] ^= 1 << bit;
            prop_assert!(decode_indexed(&bad).is_err());
            prop_assert!(!matches!(skim(&bad), Ok(Skimmed::Heads(..))));
        }
    }
}
