//! Reading an indexed cold segment (`envelope`'s kind 3) without decoding
//! its messages: each record's identity, order and thread, and a message's
//! id and whether it is an instruction; its content is skipped, not parsed
//! into values. With the segment's stored terms that is what a lexical
//! query needs of the messages it does not show (`controller::partial`).
//!
//! Invariants: `skim` accepts exactly the values `envelope::decode_indexed`
//! decodes (same checks: envelope, checksum), never panics, and skims only
//! a kind 3 value holding messages: any other it decodes whole.

use std::borrow::Cow;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;

use super::envelope::{checked_parts, is_indexed, parse, DecodeError};
use super::record::Record;

/// What one record of an indexed segment is, as far as a query needs.
#[derive(Debug, PartialEq)]
pub enum Head<'a> {
    Msg(MsgHead<'a>),
    /// A message's vector (of any thread).
    Embedding {
        writer: Cow<'a, str>,
        seq: u64,
    },
    /// Any other record (none is written to a segment holding messages).
    Other,
}

/// A message record without its message.
#[derive(Debug, Deserialize, PartialEq)]
pub struct MsgHead<'a> {
    #[serde(borrow)]
    pub writer: Cow<'a, str>,
    pub seq: u64,
    #[serde(default)]
    pub lc: u64,
    pub ts: f64,
    #[serde(borrow)]
    pub id: Cow<'a, str>,
    #[serde(rename = "message")]
    pub role: RoleOf,
    #[serde(default, borrow)]
    pub thread: Option<Cow<'a, str>>,
}

/// A message's role, its other fields skipped: whether it is an
/// instruction (system, developer), and whether the role was one at all.
#[derive(Debug, Default, PartialEq)]
pub struct RoleOf {
    pub instruction: bool,
    pub known: bool,
}

impl<'de> Deserialize<'de> for RoleOf {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = RoleOf;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a message")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RoleOf, A::Error> {
                let mut out = RoleOf::default();
                while let Some(key) = map.next_key_seed(OneOf(&["role"]))? {
                    if key.is_some() {
                        let role = map.next_value_seed(OneOf(&["system", "developer", "user", "assistant", "tool"]))?;
                        out.known = role.is_some();
                        out.instruction = role.is_some_and(|r| r < 2);
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(out)
            }
        }
        d.deserialize_map(V)
    }
}

/// Which of its words a string is (`None`: another), compared where it
/// lies: serde's `Cow<str>` reader copies every key and role it reads into
/// a `String`, two or three per message skimmed.
struct OneOf(&'static [&'static str]);

impl<'de> DeserializeSeed<'de> for OneOf {
    type Value = Option<usize>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<usize>, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for OneOf {
    type Value = Option<usize>;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a string")
    }
    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Option<usize>, E> {
        Ok(self.0.iter().position(|w| *w == s))
    }
}

#[derive(Deserialize)]
struct EmbeddingHead<'a> {
    #[serde(borrow)]
    writer: Cow<'a, str>,
    seq: u64,
}

impl<'de: 'a, 'a> Deserialize<'de> for Head<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Head<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a record")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Head<'a>, A::Error> {
                let mut out = Head::Other;
                while let Some(key) = map.next_key_seed(OneOf(&["msg", "embedding"]))? {
                    out = match key {
                        Some(0) => Head::Msg(map.next_value()?),
                        Some(_) => {
                            let e: EmbeddingHead<'a> = map.next_value()?;
                            Head::Embedding { writer: e.writer, seq: e.seq }
                        }
                        None => {
                            map.next_value::<IgnoredAny>()?;
                            Head::Other
                        }
                    };
                }
                Ok(out)
            }
        }
        d.deserialize_map(V(std::marker::PhantomData))
    }
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

/// The heads and stored terms of an indexed segment holding messages; any
/// other value decoded whole (its checksum checked once).
///
/// # Errors
/// As `record::decode`: `Corrupt` for anything damaged, `TooNew`.
pub fn skim(bytes: &[u8]) -> Result<Skimmed<'_>, DecodeError> {
    let (version, kind, json, terms) = checked_parts(bytes)?;
    if let Some(terms) = terms.filter(|_| is_indexed(kind)) {
        let heads: Vec<Head> = serde_json::from_slice(json).map_err(|e| DecodeError::Corrupt(format!("unreadable payload: {e}")))?;
        if heads.iter().any(|h| matches!(h, Head::Msg(_))) {
            return Ok(Skimmed::Heads(version, heads, terms));
        }
    }
    Ok(Skimmed::Records(version, parse(kind, json)?, terms))
}

/// The records of an indexed segment at the places `wanted` (ascending),
/// decoded; the others are skipped as `skim` skips messages.
///
/// # Errors
/// As `record::decode`.
pub fn decode_some(bytes: &[u8], wanted: &[u32]) -> Result<Vec<(u32, Record)>, DecodeError> {
    let (_, _, json, _) = checked_parts(bytes)?;
    let mut de = serde_json::Deserializer::from_slice(json);
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
        ];
        let (bytes, _) = encode_indexed_segments(&records, 1 << 20).remove(0);
        let Skimmed::Heads(version, heads, terms) = skim(&bytes).unwrap() else { panic!("not skimmed") };
        assert_eq!(version, crate::store::record::FORMAT_VERSION);
        assert_eq!(terms, decode_indexed(&bytes).unwrap().2.unwrap());
        let Head::Msg(first) = &heads[0] else { panic!("{heads:?}") };
        assert_eq!(
            (first.writer.as_ref(), first.seq, first.lc, first.ts, first.id.as_ref(), &first.thread),
            ("w\"x", 1, 2, 1.5, "m-1", &None)
        );
        assert_eq!(first.role, RoleOf { instruction: false, known: true });
        assert_eq!(heads[1], Head::Embedding { writer: "w".into(), seq: 2 });
        let Head::Msg(third) = &heads[2] else { panic!("{heads:?}") };
        assert_eq!((third.role.instruction, third.thread.as_deref()), (true, Some("旅行")));
        let some = decode_some(&bytes, &[0, 2]).unwrap();
        let all = decode_indexed(&bytes).unwrap().1;
        assert_eq!(some, vec![(0, all[0].clone()), (2, all[2].clone())]);
        // Another kind (or a segment of episodes: tests/partial_read.rs) is decoded whole.
        let plain = encode_segments(&records, 1 << 20).remove(0).0;
        assert_eq!(skim(&plain).unwrap(), Skimmed::Records(version, decode_indexed(&plain).unwrap().1, None));
    }

    #[test]
    fn escaped_keys_and_roles_read_as_the_decoder_reads_them() {
        let json = br#"{"msg":{"writer":"w","seq":1,"ts":2,"id":"m-1","message":{"content":"x","role":"system"}}}"#;
        let Head::Msg(head) = serde_json::from_slice::<Head>(json).unwrap() else { panic!("not a message") };
        assert_eq!(head.role, RoleOf { instruction: true, known: true });
        let Record::Msg { message, .. } = serde_json::from_slice::<Record>(json).unwrap() else { panic!("not a message") };
        assert_eq!(message.role, Role::System);
        let other: Head =
            serde_json::from_slice(br#"{"msg":{"writer":"w","seq":1,"ts":2,"id":"m-1","message":{"role":"robot"}}}"#).unwrap();
        assert!(matches!(other, Head::Msg(MsgHead { role: RoleOf { instruction: false, known: false }, .. })));
        assert!(serde_json::from_slice::<Head>(br#"{"msg":{"writer":"w","seq":1,"ts":2,"id":"m-1","message":{"role":7}}}"#).is_err());
    }

    proptest! {
        /// Any bytes: an error or an answer, never a panic; damage is caught as decoding catches it.
        #[test]
        fn any_bytes_skim_without_panic(pos in 0usize..4000, bit in 0u8..8, noise in proptest::collection::vec(any::<u8>(), 0..200)) {
            let _ = skim(&noise);
            let records: Vec<Record> = (1..5).map(|i| msg(i, Role::User, "deploy the script", None)).collect();
            let (good, _) = encode_indexed_segments(&records, 1 << 20).remove(0);
            let mut bad = good.clone();
            let pos = pos % bad.len();
            bad[pos] ^= 1 << bit;
            if decode_indexed(&bad).is_err() {
                prop_assert!(!matches!(skim(&bad), Ok(Skimmed::Heads(..))));
            }
        }
    }
}
