//! What `search` returns: its hits, what each is, and how the search
//! matched. These serialize whole to what JS receives (their TypeScript is
//! derived from them: src/typescript.rs).

use serde::Serialize;

use crate::context::{Degraded, RetrievalMode};
use crate::semantic::FactKind;

/// One search result.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields))]
#[serde(rename_all = "camelCase")]
pub struct Hit {
    /// The fact or chunk id, or for a message the id `add` returned.
    pub id: String,
    pub kind: HitKind,
    pub text: String,
    /// The fused (hybrid) or BM25 score; higher is better.
    pub score: f32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message_ids: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(test, ts(as = "Option<_>"))] // absent when empty
    pub tags: Vec<String>,
    /// For a message of another thread of the namespace: that thread.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thread: Option<String>,
}

/// What a hit is (the names `search`'s `kinds` option takes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename_all = "lowercase"))]
pub enum HitKind {
    Fact,
    Preference,
    Chunk,
    Message,
}

impl HitKind {
    /// The name JSON carries and `SearchOptions::kinds` uses (src/typescript.rs
    /// checks the declared union lists these).
    pub fn name(self) -> &'static str {
        match self {
            HitKind::Fact => "fact",
            HitKind::Preference => "preference",
            HitKind::Chunk => "chunk",
            HitKind::Message => "message",
        }
    }
}

/// By name, as [`crate::context::RetrievalMode`].
impl Serialize for HitKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl From<FactKind> for HitKind {
    fn from(k: FactKind) -> HitKind {
        match k {
            FactKind::Fact => HitKind::Fact,
            FactKind::Preference => HitKind::Preference,
            FactKind::Chunk => HitKind::Chunk,
        }
    }
}

/// What `search` found, and how: the hits, best first; `mode` says whether
/// the query's embedding took part; `degraded`, why not when the embedder
/// failed. (JS receives the hits as an array carrying the other fields.)
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields))]
pub struct Found {
    pub hits: Vec<Hit>,
    pub mode: RetrievalMode,
    /// Set when a hook failed: the embedder (search fell back to lexical),
    /// or in JS the reranker (the fused order stands).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub degraded: Option<Degraded>,
}
