//! Semantic memory: facts and preferences (keyed: the latest value wins, the
//! history stays), and documents split into chunks for retrieval.
//!
//! Invariants: facts are kept in the order they were remembered, every
//! version of every key included; a key's live value is its newest fact;
//! nothing is deleted except by `forget`.

pub mod block;
pub mod chunk;
pub mod learn;

use serde::{Deserialize, Serialize};

use crate::error::{MemoryError, Result};

/// What a remembered text is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum FactKind {
    Fact,
    /// A user preference: enters every context, in the pinned preferences block.
    Preference,
    /// A piece of a document, found by retrieval.
    Chunk,
}

/// One remembered text.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields))]
#[serde(rename_all = "camelCase")]
pub struct Fact {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    pub text: String,
    pub kind: FactKind,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(test, ts(as = "Option<_>"))] // absent when empty
    pub tags: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// For a chunk: the id of the document it belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub document: Option<String>,
    pub created_at: f64,
}

/// What the host asks to remember.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RememberInput {
    pub key: Option<String>,
    pub text: String,
    #[serde(default)]
    pub tags: Vec<String>,
    pub source: Option<String>,
    /// "fact" (default for short texts), "preference", or "document"
    /// (default for texts longer than one chunk).
    pub kind: Option<String>,
}

impl RememberInput {
    /// # Errors
    /// `INVALID_INPUT` for an empty text or key, or an unknown kind.
    pub fn validate(&self) -> Result<()> {
        if self.text.trim().is_empty() {
            return Err(MemoryError::input("remember.text", "must not be empty"));
        }
        if self.key.as_deref().is_some_and(|k| k.trim().is_empty()) {
            return Err(MemoryError::input("remember.key", "must not be empty"));
        }
        if let Some(k) = &self.kind {
            if !matches!(k.as_str(), "fact" | "preference" | "document") {
                return Err(MemoryError::input("remember.kind", "expected \"fact\", \"preference\" or \"document\""));
            }
            if k == "document" && self.key.is_some() {
                return Err(MemoryError::input("remember.key", "documents are not keyed; use source to name them"));
            }
        }
        Ok(())
    }
}

/// All facts, every version, in order.
#[derive(Clone, Debug, Default)]
pub struct Semantic {
    pub facts: Vec<Fact>,
    /// Record identity and Lamport order of each fact: `(writer, seq, lc)`.
    pub uids: Vec<(String, u64, u64)>,
}

impl Semantic {
    /// Whether the fact at `i` is the live value (newest of its key, or unkeyed).
    pub fn is_live(&self, i: usize) -> bool {
        match self.facts.get(i).map(|f| &f.key) {
            None => false,
            Some(None) => true,
            Some(Some(k)) => !self.facts.iter().skip(i + 1).any(|f| f.key.as_ref() == Some(k)),
        }
    }

    /// Indices of live facts, in order.
    pub fn live(&self) -> Vec<usize> {
        let mut seen = std::collections::HashSet::new();
        let mut out: Vec<usize> = (self.facts.iter().enumerate())
            .rev()
            .filter(|(_, f)| match &f.key {
                None => true,
                Some(k) => seen.insert(k.clone()),
            })
            .map(|(i, _)| i)
            .collect();
        out.reverse();
        out
    }

    /// Every version of `key`, oldest first.
    pub fn history(&self, key: &str) -> Vec<&Fact> {
        self.facts.iter().filter(|f| f.key.as_deref() == Some(key)).collect()
    }

    pub fn push(&mut self, fact: Fact, writer: String, seq: u64, lc: u64) {
        self.facts.push(fact);
        self.uids.push((writer, seq, lc));
    }
}
