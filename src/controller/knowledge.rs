//! Changes to semantic and procedural memory, prepared then committed like
//! every other change (see `writes`): remembering facts and documents,
//! attaching embeddings, setting procedures.

use serde::Serialize;

use super::Controller;
use crate::error::Result;
use crate::origin::Origin;
use crate::procedural::Procedures;
use crate::semantic::chunk::chunk;
use crate::semantic::{Fact, FactKind, RememberInput};
use crate::store::record::{encode_record, Record};
use crate::store::Write;

/// Token size of a document chunk, and the overlap between chunks.
pub const CHUNK_TOKENS: usize = 300;
pub const CHUNK_OVERLAP: usize = 40;

/// Facts ready to be stored (one per chunk for a document).
#[derive(Debug)]
pub struct PreparedRemember {
    pub writes: Vec<Write>,
    pub(super) facts: Vec<(Fact, u64)>,
}

/// What `remember` stored.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields))]
#[serde(rename_all = "camelCase")]
pub struct Remembered {
    pub id: String,
    pub kind: FactKind,
    /// For a document: the ids of its chunks.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(test, ts(as = "Option<_>"))] // absent when empty
    pub chunks: Vec<String>,
    /// The fact this one superseded (same key), kept in the key's history.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub superseded: Option<String>,
    /// What was redacted from the text before it was stored (see `AddResult`).
    #[serde(skip_serializing_if = "crate::redact::Redacted::is_empty")]
    #[cfg_attr(test, ts(as = "Option<std::collections::BTreeMap<String, usize>>"))]
    pub redacted: crate::redact::Redacted,
}

#[derive(Debug)]
pub struct PreparedEmbeddings {
    pub writes: Vec<Write>,
    items: Vec<(String, Vec<f32>)>,
    next_seq: u64,
}

#[derive(Debug)]
pub struct PreparedProcedures {
    pub write: Write,
    parsed: Procedures,
    raw: serde_json::Value,
    seq: u64,
    ts: f64,
}

impl Controller {
    /// # Errors
    /// `INVALID_INPUT` (see [`RememberInput::validate`]); `CLOSED`.
    pub fn prepare_remember(&self, input: RememberInput, now: f64) -> Result<PreparedRemember> {
        self.open()?;
        input.validate()?;
        let ts = self.stamp(now)?;
        let writer = self.opts.writer.clone();
        let count = |s: &str| self.counter.count(s);
        let is_doc = match input.kind.as_deref() {
            Some("document") => true,
            Some(_) => false,
            None => input.key.is_none() && count(&input.text) > CHUNK_TOKENS,
        };
        let base = Fact {
            id: String::new(),
            key: input.key.clone(),
            text: String::new(),
            kind: if input.kind.as_deref() == Some("preference") { FactKind::Preference } else { FactKind::Fact },
            tags: input.tags.clone(),
            source: input.source.clone(),
            document: None,
            created_at: ts,
            valid_from: input.valid_from,
            ..Fact::default()
        };
        let supersedes = if is_doc { vec![] } else { self.superseded_by(&input.text, input.key.as_deref(), input.supersedes.as_deref())? };
        let base = Fact { supersedes, ..base };
        let texts = if is_doc { chunk(&input.text, CHUNK_TOKENS, CHUNK_OVERLAP, &count) } else { vec![input.text.clone()] };
        let doc_id = is_doc.then(|| format!("d-{writer}-{}", self.books.next_seq));
        let mut facts = Vec::new();
        let mut writes = Vec::new();
        for (i, text) in texts.into_iter().enumerate() {
            let seq = self.books.next_seq + i as u64;
            let fact = Fact {
                id: format!("f-{writer}-{seq}"),
                text,
                kind: if is_doc { FactKind::Chunk } else { base.kind },
                document: doc_id.clone(),
                ..base.clone()
            };
            let record = Record::Fact { writer: writer.clone(), seq, lc: self.books.lc_at(ts, seq), fact };
            writes.push(Write { key: crate::store::log_key(&self.opts.namespace, &writer, seq), bytes: encode_record(&record) });
            let Record::Fact { fact, .. } = record else { unreachable!() };
            facts.push((fact, seq));
        }
        Ok(PreparedRemember { writes, facts })
    }

    // `prepare_remember` makes at least one fact (an empty text is refused),
    // and a `PreparedRemember` comes from nowhere else.
    #[allow(clippy::indexing_slicing)]
    pub fn commit_remember(&mut self, p: PreparedRemember) -> Remembered {
        let first = &p.facts[0].0;
        let before = self.semantic.live();
        let out = Remembered {
            id: first.document.clone().unwrap_or_else(|| first.id.clone()),
            kind: first.kind,
            chunks: if first.kind == FactKind::Chunk { p.facts.iter().map(|(f, _)| f.id.clone()).collect() } else { vec![] },
            superseded: None,
            redacted: Default::default(),
        };
        let lcs: Vec<u64> = p.facts.iter().map(|(f, seq)| self.books.lc_at(f.created_at, *seq)).collect();
        for (((fact, seq), write), lc) in p.facts.into_iter().zip(p.writes).zip(lcs) {
            self.books.last_lc = self.books.last_lc.max(lc);
            self.books.last_ts = self.books.last_ts.max(fact.created_at);
            self.books.next_seq = seq + 1;
            self.semantic.push(fact, Origin::new(self.opts.writer.clone(), seq, lc));
            let slot = self.semantic.facts.len() - 1;
            self.index_fact(slot);
            self.books.folding.logged(&write);
        }
        // What held before and no longer does: the value this one ended.
        let after = self.semantic.validity();
        let superseded = before
            .into_iter()
            .find(|&i| after.get(i).is_some_and(|v| !v.current()))
            .and_then(|i| self.semantic.facts.get(i))
            .map(|f| f.id.clone());
        Remembered { superseded, ..out }
    }

    /// Embeddings the embedder returned for `ids`, checked and ready to store.
    ///
    /// # Errors
    /// `INVALID_VECTOR`, `DIMENSION_MISMATCH`, `INVALID_INPUT` (see [`Controller::check_embeddings`]).
    pub fn prepare_embeddings(&self, ids: Vec<String>, vectors: Vec<Vec<f32>>) -> Result<PreparedEmbeddings> {
        self.check_embeddings(&ids, &vectors)?;
        let writer = &self.opts.writer;
        let mut writes = Vec::new();
        let mut seq = self.books.next_seq;
        for (id, v) in ids.iter().zip(&vectors) {
            let record = Record::Embedding { writer: writer.clone(), seq, item: id.clone(), vector: v.clone() };
            writes.push(Write { key: crate::store::log_key(&self.opts.namespace, writer, seq), bytes: encode_record(&record) });
            seq += 1;
        }
        Ok(PreparedEmbeddings { writes, items: ids.into_iter().zip(vectors).collect(), next_seq: seq })
    }

    pub fn commit_embeddings(&mut self, p: PreparedEmbeddings) {
        let first = self.books.next_seq;
        self.books.next_seq = p.next_seq;
        for ((i, w), (item, _)) in p.writes.into_iter().enumerate().zip(&p.items) {
            self.books.embedding_uids.insert(item.clone(), (self.opts.writer.clone(), first + i as u64));
            self.books.folding.logged(&w);
        }
        self.attach_embeddings(p.items);
    }

    /// # Errors
    /// See [`Procedures::parse`]; `CLOSED`.
    pub fn prepare_procedures(&self, raw: serde_json::Value, now: f64) -> Result<PreparedProcedures> {
        self.open()?;
        let parsed = Procedures::parse(&raw)?;
        let seq = self.books.next_seq;
        let ts = self.stamp(now)?;
        let record =
            Record::Procedures { writer: self.opts.writer.clone(), seq, lc: self.books.lc_at(ts, seq), ts, procedures: raw.clone() };
        let write = Write { key: crate::store::log_key(&self.opts.namespace, &self.opts.writer, seq), bytes: encode_record(&record) };
        Ok(PreparedProcedures { write, parsed, raw, seq, ts })
    }

    pub fn commit_procedures(&mut self, p: PreparedProcedures) {
        let lc = self.books.lc_at(p.ts, p.seq);
        self.books.last_lc = self.books.last_lc.max(lc);
        self.books.next_seq = p.seq + 1;
        self.procedures = Some(super::ProceduresState {
            parsed: p.parsed,
            raw: p.raw,
            origin: Origin::new(self.opts.writer.clone(), p.seq, lc),
            ts: p.ts,
        });
        self.books.folding.logged(&p.write);
    }

    /// The live facts and preferences a new one (`text`, `key`) ends: those
    /// the host names (`given`, each a live fact's id), else those it
    /// contradicts by the offline rules (`semantic::claim`: the same
    /// attribute of the same subject, another value), other keys than its
    /// own (its own key's chain ends that one already).
    ///
    /// # Errors
    /// `INVALID_INPUT` when a given id is not a live fact or preference.
    pub(crate) fn superseded_by(&self, text: &str, key: Option<&str>, given: Option<&[String]>) -> Result<Vec<String>> {
        let live = self.facts();
        let live = live.iter().filter(|f| f.kind != FactKind::Chunk);
        if let Some(ids) = given {
            if let Some(bad) = ids.iter().find(|id| !live.clone().any(|f| &f.id == *id)) {
                return Err(crate::error::MemoryError::input("remember.supersedes", format!("{bad:?} is not a live fact or preference")));
            }
            return Ok(ids.to_vec());
        }
        // Facts of other keys (its own key's chain ends that one already),
        // whose claim this one's ends (`claim::relation`'s `Contradicts` for them).
        let Some(new) = crate::semantic::claim::claim(text) else { return Ok(Vec::new()) };
        let other_key = |f: &&&Fact| f.key.is_none() || f.key.as_deref() != key;
        let ended = |f: &&&Fact| self.semantic.ended_by(f, &new);
        Ok(live.filter(other_key).filter(ended).map(|f| f.id.clone()).collect())
    }

    /// Every version of a key, oldest first (as stated), each with when it held.
    pub fn fact_history(&self, key: &str) -> Vec<Fact> {
        let validity = self.semantic.validity();
        (0..self.semantic.facts.len())
            .filter(|&i| self.semantic.facts.get(i).is_some_and(|f| f.key.as_deref() == Some(key)))
            .filter_map(|i| self.semantic.reported(i, &validity))
            .collect()
    }

    /// Live facts, preferences and chunks, in the order they were remembered.
    pub fn facts(&self) -> Vec<&Fact> {
        self.semantic.live().into_iter().filter_map(|i| self.semantic.facts.get(i)).collect()
    }

    /// Facts, preferences and chunks as reported, each with when it held:
    /// the live ones, or with `as_of` those that held then (ms).
    pub fn facts_as_of(&self, as_of: Option<f64>) -> Vec<Fact> {
        let validity = self.semantic.validity();
        let held = |i: usize| {
            validity.get(i).is_some_and(|v| match as_of {
                None => v.current(),
                Some(t) => v.during(t, t) || self.semantic.facts.get(i).is_some_and(|f| f.kind == FactKind::Chunk),
            })
        };
        (0..self.semantic.facts.len()).filter(|&i| held(i)).filter_map(|i| self.semantic.reported(i, &validity)).collect()
    }
}
