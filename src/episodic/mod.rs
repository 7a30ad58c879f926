//! Episodic memory: summaries laid over ranges of the raw archive.
//!
//! Invariant: an episode never replaces messages; `message_ids` lead back to
//! the raw archived turns, which stay the source of truth.

pub mod parse;
pub mod recall;

use serde::{Deserialize, Serialize};

/// Who wrote an episode's summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum SummarySource {
    /// A model, through the summarizer hook.
    Model,
    /// The offline extractive summarizer.
    Fallback,
}

/// A summary of one compacted range.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields))]
#[serde(rename_all = "camelCase")]
pub struct Episode {
    pub id: String,
    pub summary: String,
    pub key_points: Vec<String>,
    pub importance: f64,
    pub message_ids: Vec<String>,
    pub created_at: f64,
    pub summary_source: SummarySource,
    /// Tokens of `summary`, as the controller counts them.
    pub tokens: usize,
    /// Tasks the summarizer saw still open at the end of the range.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(test, ts(as = "Option<_>"))] // absent when empty
    pub pending_tasks: Vec<String>,
    /// Set when every message of the range belongs to one task.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// When recall last put this episode in a context (ms); starts at creation.
    #[serde(default)]
    pub last_recalled: f64,
    /// Why a summarizer exists but this summary is the offline one: the
    /// hook's error (`SUMMARIZER_TIMEOUT`, `SUMMARIZER_HTTP`, ..., or
    /// `SUMMARIZER_FAILED` for a throw without a code), an answer without a
    /// summary (`SUMMARIZER_INVALID`), or the queue's limits
    /// (`SUMMARIZER_BACKLOG`, `SUMMARIZER_INPUT_LIMIT`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub degraded: Option<crate::context::Degraded>,
    /// The record it is stored as (never serialized: see [`crate::origin`]).
    #[serde(skip)]
    #[cfg_attr(test, ts(skip))]
    pub origin: crate::origin::Origin,
}

impl Episode {
    /// What recall searches of it: its summary and key points (the
    /// episodes' own index, `SearchIndex::episodes`, and the terms stored
    /// with it in a cold segment).
    pub fn search_text(&self) -> String {
        format!("{} {}", self.summary, self.key_points.join(" "))
    }
}
