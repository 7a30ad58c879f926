//! What a query recalls for the recall block and the `recall` tool: search
//! hits above a relevance floor, as dated lines, and the episodes that match,
//! in one list best first (`context::recall` fits them into the context).

use super::search::{origin_id, Held, Place, Scope, SearchOptions};
use super::Controller;
use crate::context::{ContextRequest, Recalled};
use crate::error::Result;

/// The floors of [`Controller::relevant`]: `[share of the best hit's score,
/// share of the query's BM25 weight]` (the second only where scores are
/// BM25). The share of the query is what keeps a match on one common word
/// out ("周末的火锅店要提前预约吗？" matches 11% of its weight in
/// "我想周末去爬青城山，需要准备什么？" among 42 messages): 0.12, with a query
/// term the namespace lacks weighed as one a single document holds
/// (`Bm25Index::query_weight`), so a strong match stays in on a namespace
/// of one document and of 100,000 (tests/floor.rs). The share of the best
/// is low, since the recall block's own cap ([`crate::context::RECALL_TOKENS`])
/// bounds what it costs: hybrid scores are reciprocal ranks, so a share of
/// the best is a rank cut (0.05: a hit among the vectors' first 70 or the
/// words' first 30), and at 0.3 the block left out evidence its cap had
/// room for (longchat held-out, hybrid, 8,000 tokens: 0.869 shown at 0.3
/// uncapped, 0.946 at 0.05 within 600 tokens; bench/context-quality.mjs). Lexically the share of the
/// query decides: 0.2 → 0.1 of the best changed nothing shown.
pub struct Floors {
    pub lexical: [f32; 2],
    pub hybrid: [f32; 2],
}

pub const RELEVANCE_FLOOR: Floors = Floors { lexical: [0.1, 0.12], hybrid: [0.05, 0.0] };

impl Controller {
    /// What `query` recalls for a context, best first: search hits and
    /// episodes, enough to fill the room (a turn is some 20 to 60 tokens).
    ///
    /// # Errors
    /// As [`Controller::search`].
    pub(super) fn recalled(&self, req: &ContextRequest, query: &str) -> Result<Vec<Recalled>> {
        let (k, when, query) = self.recall_query(req, query);
        let hits = self.relevant(&query, req.query_vector.as_deref(), k, &["fact", "chunk", "message"], None, when)?;
        Ok(interleave(hits, self.recalled_episodes(req, &query)))
    }

    /// How many hits a context's query considers, the time it asks about,
    /// and the query without a time phrase.
    pub(super) fn recall_query(&self, req: &ContextRequest, query: &str) -> (usize, Option<(f64, f64)>, String) {
        let k = (req.max_tokens.saturating_sub(req.reserve_output) / 16).clamp(20, MAX_RECALLED);
        let now = req.now.unwrap_or(self.books.last_ts.max(0.0));
        let (when, query) = match (req.as_of, crate::semantic::when::phrase(query, now)) {
            (Some(t), _) => (Some((t, t)), query.to_string()),
            (None, Some((span, rest))) => (Some(span), rest),
            (None, None) => (None, query.to_string()),
        };
        (k, when, query)
    }

    /// What memory knows about `query`, best first: facts of `kinds` (a
    /// keyed one as "key: text") and messages, dated, with their speaker
    /// ("2026-03-04 Melanie: …"; a message of another thread says so).
    /// What the recall block and the `recall` tool show (`search` None:
    /// every thread, never a message in working memory, which the turns
    /// show); what the `search` tool shows (`Some(scope)`: its caller sees
    /// no turns, so the scope's messages, working ones included).
    ///
    /// Weak matches are left out (see [`RELEVANCE_FLOOR`]): a hit must score
    /// at least a share of the best hit, and, lexically, match at least a
    /// share of what the query could match in this namespace, so one common
    /// word ("周末") does not bring back a turn about something else.
    ///
    /// Facts that no longer hold are found too, marked with when they held
    /// ("(until 2026-03)") and weighed [`NOT_THEN`] of their score, so the
    /// value that holds comes first. `when` (ms) is the time a question
    /// asks about (`asOf`, or a phrase such as "last year", 去年): the facts
    /// that held then come first instead, each with its validity.
    ///
    /// # Errors
    /// As [`Controller::search`].
    pub(crate) fn relevant(
        &self,
        query: &str,
        vector: Option<&[f32]>,
        k: usize,
        kinds: &[&str],
        search: Option<Scope>,
        when: Option<(f64, f64)>,
    ) -> Result<Vec<Recalled>> {
        let ranked = self.relevant_ranked(query, vector, k, kinds, search, when)?;
        let validity = self.semantic.validity();
        let message = |id: &str, ts: f64, m: &crate::message::Message, other: bool| Recalled {
            id: id.to_string(),
            text: format!(
                "{} {}{}: {}",
                crate::context::utc_day(ts),
                m.name.as_deref().unwrap_or(m.role.as_str()),
                if other { " (another conversation)" } else { "" },
                m.content_text()
            ),
            at: Some(ts),
            message: Some(id.to_string()),
            episode: None,
        };
        let record = |r: &crate::store::record::Record, other: bool| match r {
            crate::store::record::Record::Msg { id, message: m, ts, .. } => Some(message(id, *ts, m, other)),
            _ => None,
        };
        // An archived message a read for this query did not decode (past
        // what the recall block looks at: `controller::partial`): counted
        // among what the block left out, never shown.
        // Its line is shorter than any real one, so the block takes it
        // where it would take the message: a read sees that and decodes it.
        let unread = |doc: u32| {
            let at = Some(self.cold_ts(doc)?);
            Some(Recalled { id: String::new(), text: String::new(), at, message: Some(String::new()), episode: None })
        };
        Ok(ranked
            .into_iter()
            .filter_map(|(id, _)| match self.place(id)? {
                Place::Message(p) => self.window.log.get(p as usize).map(|s| message(&s.id, s.ts, &s.message, false)),
                Place::Other(q) => record(self.others.get(q as usize)?, true),
                Place::Cold(doc, other) => self.archived(id).map_or_else(|| unread(doc), |r| record(r, other)),
                Place::Fact(i) => self.semantic.facts.get(i as usize).map(|f| Recalled {
                    id: f.id.clone(),
                    text: {
                        let text = f.key.as_ref().map_or_else(|| f.text.clone(), |k| format!("{k}: {}", f.text));
                        match validity
                            .get(i as usize)
                            .filter(|v| f.kind != crate::semantic::FactKind::Chunk && (when.is_some() || !v.current()))
                        {
                            Some(v) => format!("{text} ({})", held(v, when.is_some())),
                            None => text,
                        }
                    },
                    at: None,
                    message: None,
                    episode: None,
                }),
            })
            .collect())
    }

    /// [`Controller::relevant`]'s hits as index ids and scores, best first.
    ///
    /// # Errors
    /// As [`Controller::search`].
    pub(super) fn relevant_ranked(
        &self,
        query: &str,
        vector: Option<&[f32]>,
        k: usize,
        kinds: &[&str],
        search: Option<Scope>,
        when: Option<(f64, f64)>,
    ) -> Result<Vec<(u64, f32)>> {
        let opts = SearchOptions {
            k: Some(k),
            kinds: Some(kinds.iter().map(|k| k.to_string()).collect()),
            scope: search.unwrap_or_default(),
            held: Held::Any,
            ..Default::default()
        };
        let mut ranked = self.ranked(query, &opts, vector)?;
        // Working memory is in view (the turns): before the floor, or the
        // newest turn, often the query itself, would set it. The `search`
        // tool (`search: Some`) shows it: its caller sees no turns.
        // (an archived message memory does not hold is not in working memory)
        let working = |p: u32| self.window.log.get(p as usize).is_some_and(|s| s.place == crate::window::Place::Working);
        ranked.retain(|&(id, _)| search.is_some() || !matches!(self.place(id), Some(Place::Message(p)) if working(p)));
        let validity = self.semantic.validity();
        let then = |i: usize| {
            validity.get(i).is_none_or(|v| match when {
                None => v.current(),
                Some((from, to)) => v.during(from, to),
            })
        };
        let hybrid = vector.is_some() && !self.index.vectors.is_empty();
        let [of_best, of_query] = if hybrid { RELEVANCE_FLOOR.hybrid } else { RELEVANCE_FLOOR.lexical };
        let floor =
            (ranked.first().map_or(0.0, |h| h.1) * of_best).max(of_query * self.index.lexical.query_weight_with(self.frozen(), query, 1));
        // The floor reads how well a hit matches; when it held only orders.
        ranked.retain(|&(_, score)| score >= floor);
        // A value that did not hold brings the one that replaced it (and
        // held then, or holds now) just above it: "where do I live" may
        // match the old wording only ("I live in Shanghai" over "I moved
        // to Berlin").
        let mut replacing: Vec<(u64, f32)> = Vec::new();
        for (id, score) in ranked.iter_mut() {
            if let Some(Place::Fact(i)) = self.place(*id) {
                let i = i as usize;
                if !then(i) {
                    let mut by = validity.get(i).and_then(|v| v.by);
                    for _ in 0..MAX_HOPS {
                        match by {
                            Some(j) if !then(j) => by = validity.get(j).and_then(|v| v.by),
                            _ => break,
                        }
                    }
                    let wanted =
                        |j: usize| self.semantic.facts.get(j).is_some_and(|f| kinds.contains(&super::HitKind::from(f.kind).name()));
                    let fact_id = |j: usize| self.semantic.facts.get(j).map(|f| origin_id(&f.origin));
                    replacing.extend(by.filter(|&j| then(j) && wanted(j)).and_then(fact_id).map(|j| (j, *score)));
                    *score *= NOT_THEN;
                }
            }
        }
        for (id, score) in replacing {
            match ranked.iter_mut().find(|(s, _)| *s == id) {
                Some(hit) => hit.1 = hit.1.max(score),
                None => ranked.push((id, score)),
            }
        }
        crate::sort::sort_by(&mut ranked, |a, b| b.1.total_cmp(&a.1));
        Ok(ranked)
    }

    /// The episodes relevant to `query`, best first (recency × importance ×
    /// relevance among those that match it at all), as recall items: the
    /// first [`MAX_RECALLED`].
    fn recalled_episodes(&self, req: &ContextRequest, query: &str) -> Vec<Recalled> {
        let all = &self.episodic.episodes;
        let relevance = self.episode_relevance(query, req.query_vector.as_deref());
        // The floor of `relevant`, over the episodes' own index; a query term
        // no summary holds weighs the most: a thread has few episodes, and
        // idf over a few documents says little.
        let best = relevance.iter().copied().fold(0.0, f64::max);
        let hybrid = req.query_vector.is_some() && !self.index.episode_vectors.is_empty();
        let floors = RELEVANCE_FLOOR;
        let [of_best, of_query] = if hybrid { floors.hybrid } else { floors.lexical };
        let floor = (best * f64::from(of_best)).max(f64::from(of_query * self.index.episodes.query_weight(query, 0)));
        let now = req.now.unwrap_or(self.books.last_ts.max(0.0));
        let matches = |i: usize| relevance.get(i).is_some_and(|&r| r > 0.0 && r >= floor);
        crate::episodic::recall::rank(all, &relevance, now, &self.opts.recall, matches)
            .into_iter()
            .take(MAX_RECALLED)
            .filter_map(|i| Some((i, all.get(i)?)))
            .map(|(i, e)| Recalled {
                id: e.id.clone(),
                text: format!("{} summary of earlier messages: {}", crate::context::utc_day(e.created_at), e.summary),
                at: Some(e.created_at),
                message: None,
                episode: Some(i),
            })
            .collect()
    }
}

/// The weight of a fact's score when it did not hold at the time asked
/// about (now, by default): found, but after the values that held, so a
/// superseded home city still answers "where did I live before" without
/// outranking the current one.
pub const NOT_THEN: f32 = 0.5;

/// Most replacements followed from a value that did not hold to one that did.
const MAX_HOPS: usize = 8;

/// When a fact held, as the recall block says it (UTC months): "until
/// 2026-03" beside the values that hold now; "2024-05 to 2026-03" or
/// "since 2024-05" for a question about a time (`asked`).
fn held(v: &crate::semantic::valid::Validity, asked: bool) -> String {
    let month = crate::context::utc_month;
    match v.until {
        Some(u) if asked => format!("{} to {}", month(v.from), month(u)),
        Some(u) => format!("until {}", month(u)),
        None => format!("since {}", month(v.from)),
    }
}

/// Most search hits one context considers for its recall block, and most
/// episodes: the block looks at far fewer (`context::recall::most_examined`
/// with the default cap: 158), and past these a context would cost more
/// the longer the history, for lines it never shows.
const MAX_RECALLED: usize = 400;

/// Hits and episodes in one list, best first: by reciprocal rank, an
/// episode counting as half a hit of its rank (a summary stands for many
/// turns but quotes few of them exactly), ties to the hit.
fn interleave(hits: Vec<Recalled>, episodes: Vec<Recalled>) -> Vec<Recalled> {
    const K: f64 = 10.0;
    let mut scored: Vec<(f64, usize, Recalled)> = Vec::with_capacity(hits.len() + episodes.len());
    scored.extend(hits.into_iter().enumerate().map(|(r, h)| (1.0 / (K + r as f64), 0, h)));
    scored.extend(episodes.into_iter().enumerate().map(|(r, e)| (0.5 / (K + r as f64), 1, e)));
    crate::sort::sort_by(&mut scored, |a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.into_iter().map(|(_, _, r)| r).collect()
}
