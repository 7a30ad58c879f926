//! `stats()`: what the controller holds, per layer, and what it cost.

use serde::Serialize;

use super::Controller;
use crate::cost::CostLedger;
use crate::models;
use crate::tokens::chat::message_tokens;
use crate::tokens::Counter;
use crate::window::Place;

/// What `stats()` returns: messages, tokens per layer, episodes and cost.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Stats {
    pub namespace: String,
    pub thread: String,
    pub model: String,
    pub tokenizer: TokenizerStats,
    pub messages: MessageStats,
    pub tokens: LayerTokens,
    pub episodes: usize,
    /// Live facts, preferences and chunks.
    pub facts: usize,
    /// Items (facts, messages, episodes) with a stored embedding.
    pub embeddings: usize,
    pub cost: CostLedger,
    /// Model ids the table does not know (this controller's, or ones usage
    /// was recorded for): counted with the estimator, their cost null.
    pub unknown_models: Vec<String>,
    /// What retention removed from the namespace, since it was created
    /// (kept in the tombstones it wrote, so it holds after reopening).
    pub retention: crate::store::record::Expired,
}

/// The counter: exact (tiktoken ranks) or an estimate scaled by `calibration`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct TokenizerStats {
    pub exact: bool,
    pub encoding: Option<&'static str>,
    pub calibration: f64,
}

/// Messages ever added, by place.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct MessageStats {
    pub total: usize,
    pub pinned: usize,
    pub working: usize,
    pub archived: usize,
}

/// Tokens per layer, and the working-memory budget.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct LayerTokens {
    pub pinned: usize,
    pub working: usize,
    pub archived: usize,
    pub episodes: usize,
    pub working_limit: usize,
}

impl Controller {
    fn unknown_models(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        if models::resolve(&self.opts.model, &self.opts.models).is_none() {
            out.push(self.opts.model.clone());
        }
        for m in self.cost.unpriced() {
            if !out.iter().any(|o| o == m) {
                out.push(m.to_string());
            }
        }
        out
    }

    /// This thread's messages, the archive's included (read or not).
    pub fn messages_total(&self) -> usize {
        self.window.log.len() + self.books.cold.messages as usize
    }

    /// Until the cold segments are read, its messages, episodes and vectors are counted as
    /// the shelf records say (`controller::cold`): their tokens as
    /// counted when they were archived.
    pub fn stats(&self) -> Stats {
        let unread = &self.books.cold;
        let log = &self.window.log;
        let count = |m: &crate::message::Message| message_tokens(&self.counter, m);
        let sum = |p: Place| log.iter().filter(|s| s.place == p).map(|s| s.tokens(count)).sum::<usize>();
        let n = |p: Place| log.iter().filter(|s| s.place == p).count();
        let encoding = match &self.counter {
            Counter::Exact(bpe) => Some(bpe.encoding().name()),
            Counter::Estimate { .. } => None,
        };
        Stats {
            namespace: self.opts.namespace.clone(),
            thread: self.opts.thread.clone(),
            model: self.opts.model.clone(),
            tokenizer: TokenizerStats { exact: self.counter.is_exact(), encoding, calibration: self.counter.calibration_factor() },
            messages: MessageStats {
                total: self.messages_total(),
                pinned: n(Place::Pinned),
                working: n(Place::Working),
                archived: n(Place::Archived) + unread.messages as usize,
            },
            tokens: LayerTokens {
                pinned: sum(Place::Pinned),
                working: sum(Place::Working),
                archived: sum(Place::Archived) + unread.tokens as usize,
                episodes: self.episodic.episodes.iter().map(|e| e.tokens).sum::<usize>() + unread.episode_tokens as usize,
                working_limit: self.opts.working.max_tokens,
            },
            episodes: self.episodic.episodes.len() + unread.episodes as usize,
            facts: self.semantic.live().len(),
            embeddings: self.index.embeddings.len() + unread.vectors as usize,
            cost: self.cost.clone(),
            unknown_models: self.unknown_models(),
            retention: self.retention_removed(),
        }
    }
}
