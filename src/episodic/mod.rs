//! Episodic memory: summaries laid over ranges of the raw archive.
//!
//! Invariant: an episode never replaces messages; `message_ids` lead back to
//! the raw archived turns, which stay the source of truth.

use serde::{Deserialize, Serialize};

/// Who wrote an episode's summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SummarySource {
    /// A model, through the summarizer hook.
    Model,
    /// The offline extractive summarizer.
    Fallback,
}

/// A summary of one compacted range.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
}
