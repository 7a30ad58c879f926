//! Consolidation while idle: live facts and preferences that say the same
//! thing are merged into one, contradictions are resolved in favour of the
//! newer value, and a short user profile is written from what then holds.
//! Who decides: the summarizer model when one answers a consolidation
//! request (`ask`: only what it may decide counts), else the offline rules
//! (`semantic::claim`).
//!
//! Invariants: nothing is deleted or rewritten. A merge is a new fact that
//! lists the duplicates in `merges` (they leave the current view and stay
//! in history, `semantic::valid`); a contradiction is resolved by a
//! restatement of the newer fact that merges it and supersedes the older;
//! the profile is a preference under the key `profile`, so a new profile
//! ends the old one. Bounded: at most [`MAX_FACTS`] live facts are read and
//! at most [`MAX_WRITES`] records written per call; a call that stops
//! early (or a crash between its saves) leaves what holds correct, and the
//! next call goes on. Idempotent: offline, a second call on an unchanged
//! memory writes nothing; with a model, one is not asked again while no
//! fact or preference was stored since its profile ([`Controller::consolidation_request`]).

use serde::Serialize;

use super::knowledge::PreparedRemember;
use super::Controller;
use crate::context::Degraded;
use crate::episodic::SummarySource;
use crate::error::Result;
use crate::semantic::claim::{relation, Relation};
use crate::semantic::{Fact, FactKind};
use crate::store::record::{encode_record, Record};
use crate::store::Write;

mod ask;
pub use ask::{ConsolidationFact, ConsolidationRequest};

/// Most live facts one consolidation reads (the newest).
pub const MAX_FACTS: usize = 200;
/// Most records one consolidation writes.
pub const MAX_WRITES: usize = 50;
/// Budget of the profile, in tokens.
pub const PROFILE_TOKENS: usize = 200;
/// The key and tag of the profile.
pub const PROFILE: &str = "profile";
/// The `source` of every fact a consolidation writes.
pub const SOURCE: &str = "consolidate";

/// What a consolidation did.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields))]
#[serde(rename_all = "camelCase")]
pub struct Consolidated {
    /// Ids of the facts written that merge duplicates (each lists them in `merges`).
    pub merged: Vec<String>,
    /// Ids of the facts ended as contradicted.
    pub superseded: Vec<String>,
    /// The profile written, if one was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    /// Who decided: the summarizer model, or the offline rules ("fallback":
    /// no summarizer, or its answer was not usable). Absent when a model was
    /// not asked because nothing was stored since the last consolidation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<SummarySource>,
    /// Why the model's answer was not used: its error's code
    /// (`SUMMARIZER_TIMEOUT`, `SUMMARIZER_HTTP`, ...) or `SUMMARIZER_INVALID`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub degraded: Option<Degraded>,
}

/// What a model was asked, and its answer's text or why there is none.
pub struct Asked<'a> {
    pub request: &'a ConsolidationRequest,
    pub answer: std::result::Result<&'a str, Degraded>,
}

/// One record a consolidation plans: `text` restates `same` (oldest first;
/// their validity starts with the earliest) and ends `ended`.
struct Restatement<'a> {
    same: Vec<&'a Fact>,
    text: String,
    ended: Vec<&'a Fact>,
}

impl Controller {
    /// The live facts and preferences a consolidation reads: the newest
    /// [`MAX_FACTS`], oldest first, neither chunks nor the profile.
    fn consolidation_live(&self) -> Vec<&Fact> {
        let live: Vec<&Fact> =
            self.facts().into_iter().filter(|f| f.kind != FactKind::Chunk && !f.tags.iter().any(|t| t == PROFILE)).collect();
        live.get(live.len().saturating_sub(MAX_FACTS)..).unwrap_or_default().to_vec()
    }

    /// When `f` began to hold (its derived validity).
    fn starts_of(&self) -> impl Fn(&Fact) -> f64 + '_ {
        let validity = self.semantic.validity();
        move |f: &Fact| self.semantic.facts.iter().position(|g| g.id == f.id).and_then(|i| validity.get(i)).map_or(f.starts(), |v| v.from)
    }

    /// The records a consolidation writes at `now`, and what they do:
    /// decided by the model's answer to `asked` when it is usable, else by
    /// the offline rules.
    ///
    /// # Errors
    /// `CLOSED`; `INVALID_INPUT` for a clock that is not a finite time.
    pub fn prepare_consolidate(&self, now: f64, asked: Option<Asked<'_>>) -> Result<(PreparedRemember, Consolidated)> {
        self.open()?;
        let ts = self.stamp(now)?;
        let live = self.consolidation_live();
        let starts = self.starts_of();
        let mut out = Consolidated { source: Some(SummarySource::Fallback), ..Consolidated::default() };
        let model = asked.map(|a| a.answer.and_then(|text| self.read_answer(a.request, text, &live, &starts)));
        let (plan, model_profile, stopped) = match model {
            Some(Ok((mut plan, profile))) => {
                out.source = Some(SummarySource::Model);
                let stopped = plan.len() > MAX_WRITES - 1;
                plan.truncate(MAX_WRITES - 1);
                (plan, profile, stopped)
            }
            Some(Err(why)) => {
                out.degraded = Some(why);
                (offline_plan(&live), None, false)
            }
            None => (offline_plan(&live), None, false),
        };
        let mut new: Vec<Fact> = plan
            .iter()
            .map(|r| {
                out.superseded.extend(r.ended.iter().map(|g| g.id.clone()));
                Fact {
                    key: r.same.iter().find_map(|g| g.key.clone()),
                    text: r.text.clone(),
                    kind: r.same.first().map_or(FactKind::Fact, |f| f.kind),
                    tags: merged_tags(&r.same),
                    source: Some(SOURCE.into()),
                    created_at: ts,
                    valid_from: Some(r.same.iter().map(|g| starts(g)).fold(f64::INFINITY, f64::min)),
                    merges: r.same.iter().map(|g| g.id.clone()).collect(),
                    supersedes: r.ended.iter().map(|g| g.id.clone()).collect(),
                    ..Fact::default()
                }
            })
            .collect();
        // The profile, from what holds once these are written. A model's
        // consolidation always writes one (unless it stopped early): it
        // marks what the model has seen, so it is not asked again for it.
        let merged: Vec<&str> = new.iter().flat_map(|f| f.merges.iter().chain(&f.supersedes)).map(String::as_str).collect();
        let holding: Vec<&Fact> = live
            .iter()
            .copied()
            .filter(|f| !merged.contains(&f.id.as_str()))
            .chain(new.iter())
            .filter(|f| f.kind == FactKind::Fact)
            .collect();
        let profile = model_profile.or_else(|| self.profile_text(&holding));
        let current = self.current_profile().map(|f| f.text.clone());
        let always = out.source == Some(SummarySource::Model) && !stopped;
        if let Some(text) = profile.filter(|t| always || Some(t) != current.as_ref()) {
            out.profile = Some(text.clone());
            new.push(Fact {
                key: Some(PROFILE.into()),
                text,
                kind: FactKind::Preference,
                tags: vec![PROFILE.into()],
                source: Some(SOURCE.into()),
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
            let record = Record::Fact { writer: writer.clone(), seq, lc: self.books.lc_at(ts, seq), fact };
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

    /// The live profile, if any.
    fn current_profile(&self) -> Option<&Fact> {
        self.facts().into_iter().find(|f| f.key.as_deref() == Some(PROFILE))
    }

    /// "User profile:" and the facts that hold, keyed first, as many as fit
    /// [`PROFILE_TOKENS`]; `None` when no fact holds.
    fn profile_text(&self, holding: &[&Fact]) -> Option<String> {
        let mut facts: Vec<&&Fact> = holding.iter().collect();
        crate::sort::sort_by_key(&mut facts, |f| f.key.is_none());
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

/// The offline plan, oldest first: each live fact, newest first, stands for
/// the older ones of its kind the rules read as the same, and ends those
/// they read as contradicted (unless they share its key: the key's chain
/// ends them already). At most `MAX_WRITES - 1` (room for the profile):
/// the next call goes on.
fn offline_plan<'a>(live: &[&'a Fact]) -> Vec<Restatement<'a>> {
    let mut plan = Vec::new();
    let mut used: Vec<bool> = vec![false; live.len()];
    for (i, f) in live.iter().enumerate().rev() {
        if plan.len() >= MAX_WRITES - 1 {
            break;
        }
        if used.get(i).copied().unwrap_or(true) {
            continue;
        }
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
        plan.push(Restatement { same, text: f.text.clone(), ended });
    }
    plan.reverse();
    plan
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
