//! `buildContext`'s options as the host passes them: one Rust type that the
//! binding reads (serde, unknown names refused) and that the package's
//! TypeScript declares (`ContextOptions`, derived by `src/typescript.rs`).
//! A new option is a field here and its use in [`ContextRequest::new`];
//! nothing in the binding or the `.d.ts` is written by hand for it.

use serde::Deserialize;
use serde_json::Value;

use super::{ContextRequest, Degraded, Layout};

/// Options of `buildContext` (all optional).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields))]
pub struct ContextOptions {
    /// Replaces the stored system/developer messages for this call.
    pub system: Option<String>,
    /// Default: workingMemory.maxTokens; never above the model's context window.
    pub max_tokens: Option<usize>,
    /// Tokens kept free for the reply. Default 0.
    pub reserve_output: Option<usize>,
    /// Extra tools for this call (after the procedures' tools).
    #[cfg_attr(test, ts(optional, type = "ToolDefinition[]"))]
    pub tools: Option<Vec<Value>>,
    /// The user's question: selects what the recall block shows (facts, chunks, earlier messages and episode summaries), placed right before the newest user turn.
    pub query: Option<String>,
    /// Most tokens the recall block may take. Default 600, and never more than the pinned part, the memory note and the turns leave (up to 30% of what the pinned part leaves is kept for it when there is a query). The block is the part of each prompt a provider's cache bills at the full price: raise this for more recall at a higher bill.
    pub semantic_tokens: Option<usize>,
    /// Budget of the pinned preferences block. Default 300.
    pub preference_tokens: Option<usize>,
    /// Selects task-tagged rules, and adds the task's completed steps and pending tasks.
    pub task_id: Option<String>,
    /// Most tokens the memory note (the thread's newest episode summaries, chosen without the query) may take. Default 20% of what the pinned part leaves.
    pub episodic_tokens: Option<usize>,
    /// Budget of the task history block. Default 400.
    pub task_tokens: Option<usize>,
    /// Stored extra fields to send as they are (counted), beyond what is sent for each role.
    pub keep_fields: Option<Vec<String>>,
    /// "stable" (default): the recall block goes right before the newest user turn, so everything before it is the same from call to call between compactions (`ctx.cache`). "recall-first": right after the pinned blocks, as before 0.2.
    pub layout: Option<Layout>,
    /// The time (ms) the question is about: the recall block ranks the facts that held then first, each with its validity. Default: a time phrase of the query ("last year", "in March", 去年, 上个月), else now.
    pub as_of: Option<f64>,
}

impl ContextRequest {
    /// The request for `options`, with what the host adds: the window's
    /// size when `maxTokens` is absent, the clock, and what the embedder
    /// made of the query.
    #[must_use]
    pub fn new(
        options: ContextOptions,
        default_max_tokens: usize,
        now: f64,
        query_vector: Option<Vec<f32>>,
        degraded: Option<Degraded>,
    ) -> ContextRequest {
        ContextRequest {
            system: options.system,
            max_tokens: options.max_tokens.unwrap_or(default_max_tokens),
            reserve_output: options.reserve_output.unwrap_or(0),
            tools: options.tools.unwrap_or_default(),
            query: options.query,
            query_vector,
            semantic_tokens: options.semantic_tokens,
            preference_tokens: options.preference_tokens,
            task_id: options.task_id,
            episodic_tokens: options.episodic_tokens,
            task_tokens: options.task_tokens,
            now: Some(now),
            as_of: options.as_of,
            keep_fields: options.keep_fields.unwrap_or_default(),
            degraded,
            layout: options.layout.unwrap_or_default(),
        }
    }
}
