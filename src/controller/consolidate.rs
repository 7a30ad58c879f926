//! Consolidation while idle, offline: live facts and preferences that say
//! the same thing are merged into one, contradictions the offline rules see
//! (`semantic::claim`) are resolved in favour of the newer value, and a
//! short user profile is written from what then holds.
//!
//! Invariants: nothing is deleted or rewritten. A merge is a new fact that
//! lists the duplicates in `merges` (they leave the current view and stay
//! in history, `semantic::valid`); a contradiction is resolved by a
//! restatement of the newer fact that merges it and supersedes the older;
//! the profile is a preference under the key `profile`, so a new profile
//! ends the old one. Bounded: at most [`MAX_FACTS`] live facts are read and
//! at most [`MAX_WRITES`] records written per call; a call that stops
//! early (or a crash between its saves) leaves what holds correct, and the
//! next call goes on. Idempotent: a second call on an unchanged memory
//! writes nothing.

use serde::Serialize;

use super::knowledge::PreparedRemember;
use super::Controller;
use crate::error::Result;
use crate::semantic::claim::{relation, Relation};
use crate::semantic::{Fact, FactKind};
use crate::store::record::{encode_record, Record};
use crate::store::Write;

/// Most live facts one consolidation reads (the newest).
pub const MAX_FACTS: usize = 200;
/// Most records one consolidation writes.
pub const MAX_WRITES: usize = 50;
/// Budget of the profile, in tokens.
pub const PROFILE_TOKENS: usize = 200;
/// The key and tag of the profile.
pub const PROFILE: &str = "profile";

/// What a consolidation did.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields))]
#[serde(rename_all = "camelCase")]
pub struct Consolidated {
    /// Ids of the facts written that merge duplicates (each lists them in `merges`).
    pub merged: Vec<String>,
    /// Ids of the facts ended as contradicted.
    pub superseded: Vec<String>,
    /// The profile written, if it changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
}

impl Controller {
    /// The records a consolidation writes at `now`, and what they do.
    ///
    /// # Errors
    /// `CLOSED`; `INVALID_INPUT` for a clock that is not a finite time.
    pub fn prepare_consolidate(&self, now: f64) -> Result<(PreparedRemember, Consolidated)> {
        self.open()?;
        let ts = self.stamp(now)?;
        let live: Vec<&Fact> =
            self.facts().into_iter().filter(|f| f.kind != FactKind::Chunk && !f.tags.iter().any(|t| t == PROFILE)).collect();
        let live = live.get(live.len().saturating_sub(MAX_FACTS)..).unwrap_or_default();
        let validity = self.semantic.validity();
        let starts =
            |f: &Fact| self.semantic.facts.iter().position(|g| g.id == f.id).and_then(|i| validity.get(i)).map_or(f.starts(), |v| v.from);
        let mut new: Vec<Fact> = Vec::new();
        let mut out = Consolidated::default();
        let mut used: Vec<bool> = vec![false; live.len()];
        for (i, f) in live.iter().enumerate().rev() {
            if used.get(i).copied().unwrap_or(true) || new.len() >= MAX_WRITES - 1 {
                continue;
            }
            // The newest first: it stands for the older ones it meets.
            let mut same = vec![*f];
            let mut ended = vec![];
            for (j, g) in live.iter().enumerate().take(i) {
                if used.get(j).copied().unwrap_or(true) || g.kind != f.kind {
                    continue;
                }
                match relation((&g.text, g.key.as_deref()), (&f.text, f.key.as_deref())) {
                    Relation::Same => same.push(*g),
                    Relation::Contradicts if g.key.is_none() || g.key != f.key => ended.push(*g),
                    _ => continue,
                }
                if let Some(u) = used.get_mut(j) {
                    *u = true;
                }
            }
            if same.len() == 1 && ended.is_empty() {
                continue;
            }
            // Oldest first, as they were stated.
            same.rotate_left(1);
            let from = same.iter().map(|g| starts(g)).fold(f64::INFINITY, f64::min);
            out.superseded.extend(ended.iter().map(|g| g.id.clone()));
            new.push(Fact {
                key: same.iter().find_map(|g| g.key.clone()),
                text: f.text.clone(),
                kind: f.kind,
                tags: merged_tags(&same),
                source: Some("consolidate".into()),
                created_at: ts,
                valid_from: Some(from),
                merges: same.iter().map(|g| g.id.clone()).collect(),
                supersedes: ended.iter().map(|g| g.id.clone()).collect(),
                ..Fact::default()
            });
        }
        new.reverse();
        // The profile, from what holds once these are written.
        let merged: Vec<&str> = new.iter().flat_map(|f| f.merges.iter().chain(&f.supersedes)).map(String::as_str).collect();
        let holding: Vec<&Fact> = live
            .iter()
            .copied()
            .filter(|f| !merged.contains(&f.id.as_str()))
            .chain(new.iter())
            .filter(|f| f.kind == FactKind::Fact)
            .collect();
        let profile = self.profile_text(&holding);
        let current = self.facts().into_iter().find(|f| f.key.as_deref() == Some(PROFILE)).map(|f| f.text.clone());
        if let Some(text) = profile.filter(|t| Some(t) != current.as_ref()) {
            out.profile = Some(text.clone());
            new.push(Fact {
                key: Some(PROFILE.into()),
                text,
                kind: FactKind::Preference,
                tags: vec![PROFILE.into()],
                source: Some("consolidate".into()),
                created_at: ts,
                ..Fact::default()
            });
        }
        let writer = &self.opts.writer;
        let mut facts = Vec::new();
        let mut writes = Vec::new();
        for (i, mut fact) in new.into_iter().enumerate() {
            let seq = self.books.next_seq + i as u64;
            fact.id = format!("f-{writer}-{seq}");
            if !fact.merges.is_empty() {
                out.merged.push(fact.id.clone());
            }
            let record = Record::Fact { writer: writer.clone(), seq, lc: self.lc_at(ts, seq), fact };
            writes.push(Write { key: self.key(seq), bytes: encode_record(&record) });
            let Record::Fact { fact, .. } = record else { unreachable!() };
            facts.push((fact, seq));
        }
        Ok((PreparedRemember { writes, facts }, out))
    }

    /// Saved: the consolidation holds.
    pub fn commit_consolidate(&mut self, p: PreparedRemember) {
        if !p.facts.is_empty() {
            self.commit_remember(p);
        }
    }

    /// "User profile:" and the facts that hold, keyed first, as many as fit
    /// [`PROFILE_TOKENS`]; `None` when no fact holds.
    fn profile_text(&self, holding: &[&Fact]) -> Option<String> {
        let mut facts: Vec<&&Fact> = holding.iter().collect();
        facts.sort_by_key(|f| f.key.is_none());
        let mut text = String::from("User profile:");
        for f in facts {
            let line = format!("\n- {}", f.key.as_ref().map_or_else(|| f.text.clone(), |k| format!("{k}: {}", f.text)));
            if self.counter.count(&text) + self.counter.count(&line) > PROFILE_TOKENS {
                break;
            }
            text.push_str(&line);
        }
        text.contains('\n').then_some(text)
    }
}

/// The tags of merged facts, each once, in order.
fn merged_tags(facts: &[&Fact]) -> Vec<String> {
    let mut tags: Vec<String> = Vec::new();
    for t in facts.iter().flat_map(|f| &f.tags) {
        if !tags.contains(t) {
            tags.push(t.clone());
        }
    }
    tags
}
