//! Persisted records.
//!
//! Every persisted fact is an immutable record identified by `(writer, seq)`:
//! two controllers on one namespace write disjoint keys, so merging their
//! data is a union. How records are laid out as stored bytes (the
//! self-checking envelope, segments, stored terms) is `store::envelope`;
//! its functions are named from here too, where callers have always found
//! them.

use serde::{Deserialize, Serialize};

use super::shelf::Shelved;
use crate::episodic::Episode;
use crate::message::Message;
use crate::semantic::Fact;

pub use super::envelope::{
    decode, decode_indexed, decode_value, doc_of, encode_indexed_segments, encode_pack, encode_record, encode_segments, DecodeError,
    Indexed, FORMAT_VERSION, MAGIC,
};

fn chat() -> String {
    "chat".into()
}

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

/// The key a lexical index read from storage gives the message record
/// `(writer, seq)` (`Loader`, `Controller::rebuild_index`).
pub fn doc_key(writer: &str, seq: u64) -> u64 {
    use std::hash::BuildHasher;
    crate::retrieval::hash::FxBuildHasher::default().hash_one((writer, seq))
}
