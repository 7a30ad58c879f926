//! A consolidation by the summarizer model: the request (the live facts
//! and preferences, bounded as summary requests are) and the reading of its
//! answer, which decides only what it may: groups of facts that were sent
//! and are still live, within one kind. Anything else in it is ignored; an
//! answer that is not a consolidation at all (prose, a summary, a field of
//! the wrong shape) is `SUMMARIZER_INVALID`, and the offline rules decide.

use serde::Serialize;
use serde_json::{Map, Value};

use super::{Controller, Restatement, PROFILE, PROFILE_TOKENS};
use crate::context::Degraded;
use crate::episodic::parse::json_object;
use crate::error::Result;
use crate::semantic::{Fact, FactKind};

/// What the summarizer hook is asked for a consolidation.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields))]
#[serde(rename_all = "camelCase")]
pub struct ConsolidationRequest {
    /// Always "consolidation" (a summary's request says "summary").
    #[cfg_attr(test, ts(type = "\"consolidation\""))]
    pub purpose: &'static str,
    /// The live facts and preferences, oldest first: the newest, at most
    /// 200 and `summaryInputTokens` of text.
    pub facts: Vec<ConsolidationFact>,
    /// The profile now, if there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    /// Most tokens the profile may take (a longer one is cut).
    pub profile_tokens: usize,
}

/// A live fact or preference as a consolidation request shows it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields))]
#[serde(rename_all = "camelCase")]
pub struct ConsolidationFact {
    pub id: String,
    pub kind: FactKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    pub text: String,
    /// When it began to hold (ms).
    pub valid_from: f64,
}

/// Tokens a merged text may take beyond its members' together: a merge
/// restates, it does not add.
const MERGE_SLACK: usize = 8;

fn invalid(message: &str) -> Degraded {
    Degraded { code: "SUMMARIZER_INVALID".into(), message: format!("the consolidation answer {message}") }
}

/// `o[name]` as an array of objects (absent or null: none).
fn objects<'v>(o: &'v Map<String, Value>, name: &str) -> std::result::Result<Vec<&'v Map<String, Value>>, Degraded> {
    match o.get(name) {
        None | Some(Value::Null) => Ok(vec![]),
        Some(Value::Array(items)) => items
            .iter()
            .map(Value::as_object)
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| invalid(&format!("has a {name} item that is not an object"))),
        Some(_) => Err(invalid(&format!("has {name} that is not an array"))),
    }
}

/// `o[name]` as a string.
fn string<'v>(o: &'v Map<String, Value>, name: &str, what: &str) -> std::result::Result<&'v str, Degraded> {
    o.get(name).and_then(Value::as_str).ok_or_else(|| invalid(&format!("has a {what} without a string {name}")))
}

impl Controller {
    /// The request for the summarizer, or `None` when there is nothing to
    /// ask: no live fact or preference, none stored since the profile the
    /// last consolidation wrote (it has seen them all), or none that fits
    /// `summary_input_tokens`.
    ///
    /// # Errors
    /// `CLOSED`.
    pub fn consolidation_request(&self) -> Result<Option<ConsolidationRequest>> {
        self.open()?;
        let facts = &self.semantic.facts;
        let lc = |i: usize| facts.get(i).map_or(0, |f| f.origin.lc);
        let live = self.semantic.live();
        let profile_lc = live.iter().filter(|&&i| facts.get(i).is_some_and(|f| f.key.as_deref() == Some(PROFILE))).map(|&i| lc(i)).max();
        let counted = |f: &Fact| f.kind != FactKind::Chunk && !f.tags.iter().any(|t| t == PROFILE);
        let changed = live.iter().any(|&i| facts.get(i).is_some_and(counted) && profile_lc.is_none_or(|p| lc(i) > p));
        if !changed {
            return Ok(None);
        }
        let starts = self.starts_of();
        let mut room = self.opts.summary_input_tokens;
        let mut shown: Vec<ConsolidationFact> = Vec::new();
        for f in self.consolidation_live().into_iter().rev() {
            let cost = self.counter.count(&f.text) + f.key.as_deref().map_or(0, |k| self.counter.count(k));
            if cost > room {
                break;
            }
            room -= cost;
            shown.push(ConsolidationFact {
                id: f.id.clone(),
                kind: f.kind,
                key: f.key.clone(),
                text: f.text.clone(),
                valid_from: starts(f),
            });
        }
        if shown.is_empty() {
            return Ok(None); // the newest alone passes the bound: nothing a model could be shown
        }
        shown.reverse();
        let profile = self.current_profile().map(|f| f.text.clone());
        Ok(Some(ConsolidationRequest { purpose: "consolidation", facts: shown, profile, profile_tokens: PROFILE_TOKENS }))
    }

    /// The model's plan and profile from its answer to `request`: merges
    /// of two or more facts that were sent and are live (`live`), of one
    /// kind, each id once, the text no longer than its members' together;
    /// then supersessions of such a fact by one that began no sooner (the
    /// newer value wins); the profile cut to [`PROFILE_TOKENS`]. Groups
    /// that break a rule are left out; an answer that is not a
    /// consolidation is an error.
    pub(super) fn read_answer<'a>(
        &self,
        request: &ConsolidationRequest,
        answer: &str,
        live: &[&'a Fact],
        starts: &dyn Fn(&Fact) -> f64,
    ) -> std::result::Result<(Vec<Restatement<'a>>, Option<String>), Degraded> {
        let o = json_object(answer).ok_or_else(|| invalid("holds no JSON object"))?;
        // A summary (what a summarizer that knows no consolidation writes) is not one.
        if o.contains_key("summary") || !(o.contains_key("merges") || o.contains_key("profile")) {
            return Err(invalid("holds neither merges nor a profile"));
        }
        let profile = match o.get("profile") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.trim()).filter(|s| !s.is_empty()).map(|s| self.cut(s, PROFILE_TOKENS)),
            Some(_) => return Err(invalid("has a profile that is not a string")),
        };
        let sent = |f: &Fact| request.facts.iter().any(|s| s.id == f.id);
        let find = |id: &str| live.iter().copied().find(|f| f.id == id && sent(f));
        let mut taken: Vec<&str> = Vec::new();
        let mut plan: Vec<Restatement<'a>> = Vec::new();
        for m in objects(&o, "merges")? {
            let text = string(m, "text", "merge")?.trim();
            let Some(ids) = m.get("ids").and_then(Value::as_array) else { return Err(invalid("has a merge without an ids array")) };
            // In the order they were stated, each once.
            let named = |f: &&Fact| ids.iter().any(|id| id.as_str() == Some(f.id.as_str()));
            let same: Vec<&'a Fact> = live.iter().copied().filter(named).filter(|f| sent(f) && !taken.contains(&f.id.as_str())).collect();
            let tokens: usize = same.iter().map(|f| self.counter.count(&f.text)).sum();
            let one_kind = same.windows(2).all(|w| w.first().map(|f| f.kind) == w.get(1).map(|f| f.kind));
            if same.len() < 2 || !one_kind || text.is_empty() || self.counter.count(text) > tokens + MERGE_SLACK {
                continue;
            }
            taken.extend(same.iter().map(|f| f.id.as_str()));
            plan.push(Restatement { same, text: text.to_string(), ended: vec![] });
        }
        for s in objects(&o, "supersedes")? {
            let (Some(old), Some(new)) = (find(string(s, "id", "supersession")?), find(string(s, "by", "supersession")?)) else { continue };
            if old.id == new.id || old.kind != new.kind || taken.contains(&old.id.as_str()) || starts(new) < starts(old) {
                continue;
            }
            // Ended facts end nothing: an id once ended cannot be a `by`.
            if plan.iter().any(|r| r.ended.iter().any(|f| f.id == new.id)) {
                continue;
            }
            taken.push(old.id.as_str());
            match plan.iter_mut().find(|r| r.same.iter().any(|f| f.id == new.id)) {
                Some(r) => r.ended.push(old),
                None => {
                    taken.push(new.id.as_str());
                    plan.push(Restatement { same: vec![new], text: new.text.clone(), ended: vec![old] });
                }
            }
        }
        Ok((plan, profile))
    }

    /// `text` within `budget` tokens: its first lines while they fit, else
    /// the longest prefix of the first that does, marked "…".
    fn cut(&self, text: &str, budget: usize) -> String {
        if self.counter.count(text) <= budget {
            return text.to_string();
        }
        let mut kept = 0;
        for (i, _) in text.match_indices('\n') {
            if self.counter.count(text.get(..i).unwrap_or_default()) > budget {
                break;
            }
            kept = i;
        }
        match text.get(..kept).filter(|t| !t.trim().is_empty()) {
            Some(lines) => lines.trim_end().to_string(),
            None => format!("{}…", crate::tokens::longest_prefix(text, &|p| self.counter.count(&format!("{p}…")) <= budget)),
        }
    }
}
