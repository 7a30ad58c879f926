//! Semantic memory: facts and preferences (keyed: the latest value wins, the
//! history stays), and documents split into chunks for retrieval.
//!
//! Invariants: facts are kept in the order they were remembered, every
//! version of every key included; a fact holds from its `valid_from` until
//! a later one ends it (`valid`): the key's next value, or a fact that
//! supersedes it; the live (current) facts are those nothing has ended or
//! merged; nothing is deleted except by `forget`.

pub mod block;
pub mod chunk;
pub mod claim;
pub mod learn;
pub mod people;
pub mod valid;
pub mod when;

use serde::{Deserialize, Serialize};

use crate::error::{MemoryError, Result};

/// `s.trim_start_matches(prefix)` for a text prefix (not empty): the
/// standard one is a string searcher of its own in the wasm (1 KB) for the
/// two places that strip a repeated prefix.
pub(crate) fn trim_prefixes<'a>(mut s: &'a str, prefix: &str) -> &'a str {
    while let Some(rest) = s.strip_prefix(prefix).filter(|_| !prefix.is_empty()) {
        s = rest;
    }
    s
}

/// What a remembered text is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum FactKind {
    #[default]
    Fact,
    /// A user preference: enters every context, in the pinned preferences block.
    Preference,
    /// A piece of a document, found by retrieval.
    Chunk,
}

/// One remembered text.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
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
    /// When it became true (ms); stored only when the host said so,
    /// reported always (default: `created_at`, when it was stated).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub valid_from: Option<f64>,
    /// When it stopped holding (ms): the start of the fact that ended it.
    /// Derived from later records when reported, never stored (and never
    /// read: `valid` derives it), so records stay immutable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub valid_until: Option<f64>,
    /// Ids of facts this one contradicts without sharing their key ("I
    /// moved to Berlin" ends "I live in Shanghai"): they end where it begins.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(test, ts(as = "Option<_>"))] // absent when empty
    pub supersedes: Vec<String>,
    /// Ids of facts this one restates (a consolidation's merge of
    /// duplicates): they leave the current view and stay in history.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(test, ts(as = "Option<_>"))] // absent when empty
    pub merges: Vec<String>,
    /// The record it is stored as (never serialized: see [`crate::origin`]).
    #[serde(skip)]
    #[cfg_attr(test, ts(skip))]
    pub origin: crate::origin::Origin,
}

impl Fact {
    /// When it became true: `valid_from`, or when it was stated.
    pub fn starts(&self) -> f64 {
        self.valid_from.unwrap_or(self.created_at)
    }
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
    /// When it became true (ms since the epoch); default now.
    pub valid_from: Option<f64>,
    /// Ids of live facts this one ends; default: those it contradicts by
    /// the offline rules (`claim`); `[]`: none.
    pub supersedes: Option<Vec<String>>,
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
            if k == "document" && self.valid_from.is_some() {
                return Err(MemoryError::input("remember.validFrom", "documents have no validity; give it to facts and preferences"));
            }
        }
        if self.valid_from.is_some_and(|t| !t.is_finite()) {
            return Err(MemoryError::input("remember.validFrom", "expected a time in ms since the epoch"));
        }
        Ok(())
    }
}

/// All facts, every version, in order.
#[derive(Clone, Debug, Default)]
pub struct Semantic {
    pub facts: Vec<Fact>,
    /// Facts' claims (`claim::claim` of their text) once asked, by id: a
    /// `remember` compares the new fact with every live one, and parsing
    /// each again made remembering n facts cost n² parses (2,000 took 48
    /// s in the wasm). A text never changes under its id. Found by the
    /// id's hash (`str_hash`), checked against the id kept beside the
    /// claim: a `u32` map, as the search index's, rather than a table
    /// keyed by strings, which cost the wasm one more hash table's code.
    claims: std::cell::RefCell<Claims>,
}

/// Claims parsed, and where each is by its fact's id hash.
type Claims = (crate::retrieval::hash::FxHashMap<u64, u32>, Vec<(String, Option<claim::Claim>)>);

impl Semantic {
    /// Whether `new` ends what `f` claims (`claim::ends`), its claim parsed once.
    pub fn ended_by(&self, f: &Fact, new: &claim::Claim) -> bool {
        let mut memo = self.claims.borrow_mut();
        let (at, claims) = &mut *memo;
        let h = crate::retrieval::hash::str_hash(&f.id);
        match at.get(&h).and_then(|&i| claims.get(i as usize)) {
            Some((id, old)) if *id == f.id => old.as_ref().is_some_and(|old| claim::ends(old, new)),
            // Not parsed yet, or another id of the same hash (parsed each time).
            found => {
                let old = claim::claim(&f.text);
                let ended = old.as_ref().is_some_and(|old| claim::ends(old, new));
                if found.is_none() {
                    at.insert(h, claims.len() as u32);
                    claims.push((f.id.clone(), old));
                }
                ended
            }
        }
    }

    /// When each fact holds, by position (see [`valid`]).
    pub fn validity(&self) -> Vec<valid::Validity> {
        valid::validity(&self.facts)
    }

    /// Indices of live facts (nothing ended or merged them), in order.
    pub fn live(&self) -> Vec<usize> {
        self.validity().iter().enumerate().filter(|(_, v)| v.current()).map(|(i, _)| i).collect()
    }

    /// The fact at `i` as reported: its validity filled in.
    pub fn reported(&self, i: usize, validity: &[valid::Validity]) -> Option<Fact> {
        let f = self.facts.get(i)?;
        let v = validity.get(i)?;
        Some(Fact { valid_from: Some(v.from), valid_until: v.until, ..f.clone() })
    }

    /// Every version of `key`, oldest first.
    pub fn history(&self, key: &str) -> Vec<&Fact> {
        self.facts.iter().filter(|f| f.key.as_deref() == Some(key)).collect()
    }

    /// Appends `fact`, stored as the record `origin`.
    pub fn push(&mut self, fact: Fact, origin: crate::origin::Origin) {
        self.facts.push(Fact { origin, ..fact });
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn trim_prefixes_is_trim_start_matches() {
        for (s, p) in [("'s 's cat", "'s "), ("家里家有猫", "家里"), ("家里家里", "家里"), ("abc", "x"), ("", "a"), ("abc", "")]
        {
            assert_eq!(super::trim_prefixes(s, p), s.trim_start_matches(p), "{s:?} {p:?}");
        }
    }
}
