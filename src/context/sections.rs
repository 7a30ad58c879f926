//! What a built context reports: the messages, their exact total, and
//! per section what entered and what was left out, and why. These
//! serialize whole to what `buildContext` returns in JS (their TypeScript
//! is derived from them: src/typescript.rs).

use serde::Serialize;
use serde_json::Value;

use crate::message::Message;

/// The recall block: the facts, chunks, earlier messages and episode
/// summaries this query recalled.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields))]
#[serde(rename_all = "camelCase")]
pub struct KnowledgeSection {
    pub tokens: usize,
    /// The ids shown (facts and chunks first, then messages and episodes in time order).
    pub ids: Vec<String>,
    /// Where the block is in `messages`; absent when nothing was recalled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<usize>,
    /// Retrieved items that did not fit the block's budget.
    pub left_out: usize,
    /// How the items were retrieved: "hybrid" with the query's embedding, else "lexical".
    pub retrieval: RetrievalMode,
    /// Set when an embedder exists but failed, so retrieval fell back to lexical.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub degraded: Option<Degraded>,
    /// The episodes shown, by their place among the controller's episodes
    /// (which refreshes their recency): not sent.
    #[serde(skip)]
    #[cfg_attr(test, ts(skip))]
    pub episodes: Vec<usize>,
}

/// How a query was matched: by its embedding and its words (`hybrid`, when
/// the embedder gave a vector), or by its words alone (`lexical`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename_all = "lowercase"))]
pub enum RetrievalMode {
    Hybrid,
    #[default]
    Lexical,
}

impl RetrievalMode {
    /// Hybrid when the query has a vector (even while no item has one yet).
    pub fn of(query_vector: Option<&[f32]>) -> RetrievalMode {
        if query_vector.is_some() {
            RetrievalMode::Hybrid
        } else {
            RetrievalMode::Lexical
        }
    }

    /// The name JSON carries (src/typescript.rs checks the declared union lists these).
    pub fn name(self) -> &'static str {
        match self {
            RetrievalMode::Hybrid => "hybrid",
            RetrievalMode::Lexical => "lexical",
        }
    }
}

/// By name: a derived `Serialize` of an enum costs the wasm about 300 B more.
impl Serialize for RetrievalMode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// Why a hook did not help (the embedder, the reranker or the summarizer
/// failed): the code and message of its error.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Degraded {
    pub code: String,
    pub message: String,
}

/// Read back from a stored episode through `Value`, whose reader the
/// records already need: a derived reader cost the wasm about 1 KB gzip.
impl<'de> serde::Deserialize<'de> for Degraded {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        let text = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
        Ok(Degraded { code: text("code"), message: text("message") })
    }
}

/// The budget this context was built within.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Budget {
    pub max_tokens: usize,
    pub reserve_output: usize,
    pub available: usize,
}

/// The stored (or given) system and developer messages.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SystemSection {
    pub tokens: usize,
    pub messages: usize,
}

/// The memory note: how many earlier messages are hidden, and the episode summaries shown.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SummarySection {
    pub tokens: usize,
    pub episode_ids: Vec<String>,
    /// Earlier messages not shown: archived plus left out.
    pub hidden_messages: usize,
}

/// The newest turns that fit, oldest first.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct RecentSection {
    pub tokens: usize,
    pub message_ids: Vec<String>,
}

/// A run of messages that did not enter, and why.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Omitted {
    pub reason: OmitReason,
    pub messages: usize,
    pub first_id: String,
    pub last_id: String,
}

/// Why a run of messages did not enter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename_all = "snake_case"))]
pub enum OmitReason {
    /// Moved to the archive, covered by episodes.
    Archived,
    /// In working memory, but the budget had no room.
    Budget,
    /// A group still waiting for its tool results.
    PendingToolCalls,
    /// A restored tool result whose call is gone.
    OrphanToolResult,
}

impl OmitReason {
    /// The name JSON carries (src/typescript.rs checks the declared union lists these).
    pub fn name(self) -> &'static str {
        match self {
            OmitReason::Archived => "archived",
            OmitReason::Budget => "budget",
            OmitReason::PendingToolCalls => "pending_tool_calls",
            OmitReason::OrphanToolResult => "orphan_tool_result",
        }
    }
}

/// By name, as [`RetrievalMode`].
impl Serialize for OmitReason {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// Tokens per part of the context, and what was left out.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Sections {
    pub system: SystemSection,
    /// Rules from procedural memory (a pinned system message).
    pub procedures: usize,
    /// The pinned preferences block.
    pub preferences: usize,
    /// The task history block.
    pub task: usize,
    pub knowledge: KnowledgeSection,
    pub tools: usize,
    pub summary: SummarySection,
    pub recent: RecentSection,
    /// Reply priming.
    pub overhead: usize,
    pub omitted: Vec<Omitted>,
    pub budget: Budget,
}

/// Where the part of the context that does not depend on the query ends:
/// `messages[..messages]`, `tokens` of them. Between two compactions the
/// next call begins with these same messages, byte for byte, so a provider
/// bills them at its cached price; put a cache breakpoint after them
/// (Anthropic's `cache_control`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct CacheHint {
    pub messages: usize,
    pub tokens: usize,
}

/// What `buildContext` returns: the messages to send now.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Context {
    /// Ready for chat.completions.
    pub messages: Vec<Message>,
    /// Tool definitions counted in `tokens`: procedures' tools, then the
    /// request's; send these as `tools`. Left out of the JSON when there
    /// are none: the APIs reject `tools: []`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(test, ts(type = "Array<ToolDefinition>"))]
    pub tools: Vec<Value>,
    /// Exact total (for tiktoken models): always <= maxTokens - reserveOutput.
    pub tokens: usize,
    pub sections: Sections,
    pub cache: CacheHint,
}

#[cfg(test)]
mod tests {
    use super::{OmitReason as R, RetrievalMode};

    #[test]
    fn modes_and_reasons_serialize_as_js_reads_them() {
        assert_eq!(serde_json::to_value(RetrievalMode::of(Some(&[0.5]))).unwrap(), "hybrid");
        assert_eq!(serde_json::to_value(RetrievalMode::of(None)).unwrap(), "lexical");
        let reasons = [R::Archived, R::Budget, R::PendingToolCalls, R::OrphanToolResult].map(|r| serde_json::to_value(r).unwrap());
        assert_eq!(reasons, ["archived", "budget", "pending_tool_calls", "orphan_tool_result"]);
    }
}
