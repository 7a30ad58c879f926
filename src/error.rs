//! The one error type of the core. Every failure the host can see is a
//! `MemoryError` with a stable machine-readable `code()`; the message is for
//! people and may change. An operation that returns an error has changed no
//! stored state.

use thiserror::Error;

/// Errors returned by every fallible core operation.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum MemoryError {
    /// A message or option failed validation (shape, type, value).
    #[error("invalid input at {path}: {reason}")]
    InvalidInput { path: String, reason: String },
    /// A message role outside system, developer, user, assistant, tool.
    #[error("unknown role {0:?}: expected system, developer, user, assistant or tool")]
    InvalidRole(String),
    /// Message content of the wrong type (not a string, an array of parts, or null where allowed).
    #[error("invalid content at {path}: {reason}")]
    InvalidContent { path: String, reason: String },
    /// Text containing a lone UTF-16 surrogate, which no tokenizer can encode.
    #[error("text at {0} contains a lone UTF-16 surrogate")]
    LoneSurrogate(String),
    /// A tool result whose `tool_call_id` matches no unanswered assistant tool call.
    #[error("tool result {0:?} matches no pending assistant tool call")]
    ToolResultWithoutCall(String),
    /// A model name that is neither in the built-in table nor supplied by the host.
    #[error("unknown model {0:?}: supply an entry in options.models")]
    UnknownModel(String),
    /// An encoding name the exact counter does not know.
    #[error("unknown encoding {0:?}")]
    UnknownEncoding(String),
    /// Rank data for an encoding was malformed or for another encoding.
    #[error("tokenizer data for {encoding} is invalid: {reason}")]
    InvalidTokenizerData { encoding: String, reason: String },
    /// Rank data was needed but the host could not supply it.
    #[error("tokenizer data for {encoding} could not be loaded: {reason}")]
    TokenizerLoad { encoding: String, reason: String },
    /// The pinned part of the context or the newest turn cannot fit the budget.
    #[error("context overflow: {what} needs {needed} tokens, only {available} available")]
    ContextOverflow { what: String, needed: usize, available: usize },
    /// The remaining money cannot pay for the minimum output.
    #[error("budget exhausted: ${usd_left:.6} left allows {max_tokens} output tokens, floor is {floor}")]
    BudgetExhausted { usd_left: f64, max_tokens: u64, floor: u64 },
    /// A vector that is empty, holds NaN or infinite values, or has zero length.
    #[error("invalid vector: {reason}")]
    InvalidVector { reason: String },
    /// A vector whose dimension differs from the one the index was given first.
    #[error("vector has {actual} dimensions, the index holds {expected}")]
    DimensionMismatch { expected: usize, actual: usize },
    /// A stored value written by a newer version of this package.
    #[error("stored data at {key} uses format version {version}; this version reads up to {supported}: upgrade agent-memory")]
    FormatTooNew { key: String, version: u8, supported: u8 },
    /// A stored value is damaged (reported per key by loading; the rest loads).
    #[error("stored data at {key} is damaged: {reason}")]
    CorruptData { key: String, reason: String },
    /// The storage adapter failed; nothing in memory changed.
    #[error("storage {op} failed: {reason}")]
    Storage { op: String, reason: String },
    /// The controller was closed; create a new one.
    #[error("this MemoryController is closed")]
    Closed,
    /// A tool's `parameters` is not a JSON Schema object the function-calling APIs accept.
    #[error("tool {tool:?} has an invalid schema at {path}: {reason}")]
    InvalidToolSchema { tool: String, path: String, reason: String },
}

impl MemoryError {
    /// The stable code the host can match on. Never changes for a variant.
    pub fn code(&self) -> &'static str {
        match self {
            MemoryError::InvalidInput { .. } => "INVALID_INPUT",
            MemoryError::InvalidRole(_) => "INVALID_ROLE",
            MemoryError::InvalidContent { .. } => "INVALID_CONTENT",
            MemoryError::LoneSurrogate(_) => "LONE_SURROGATE",
            MemoryError::ToolResultWithoutCall(_) => "TOOL_RESULT_WITHOUT_CALL",
            MemoryError::UnknownModel(_) => "UNKNOWN_MODEL",
            MemoryError::UnknownEncoding(_) => "UNKNOWN_ENCODING",
            MemoryError::InvalidTokenizerData { .. } => "INVALID_TOKENIZER_DATA",
            MemoryError::TokenizerLoad { .. } => "TOKENIZER_LOAD",
            MemoryError::ContextOverflow { .. } => "CONTEXT_OVERFLOW",
            MemoryError::BudgetExhausted { .. } => "BUDGET_EXHAUSTED",
            MemoryError::InvalidVector { .. } => "INVALID_VECTOR",
            MemoryError::DimensionMismatch { .. } => "DIMENSION_MISMATCH",
            MemoryError::FormatTooNew { .. } => "FORMAT_TOO_NEW",
            MemoryError::CorruptData { .. } => "CORRUPT_DATA",
            MemoryError::Storage { .. } => "STORAGE_ERROR",
            MemoryError::Closed => "CLOSED",
            MemoryError::InvalidToolSchema { .. } => "INVALID_TOOL_SCHEMA",
        }
    }

    pub(crate) fn input(path: impl Into<String>, reason: impl Into<String>) -> Self {
        MemoryError::InvalidInput { path: path.into(), reason: reason.into() }
    }

    /// A JSON parse error of input at `path`. JSON.stringify writes a lone
    /// surrogate as a `\uD800`-style escape, which serde_json refuses with a
    /// "surrogate" or "hex escape" error: that becomes `LONE_SURROGATE`.
    pub fn from_json(e: &serde_json::Error, path: &str) -> Self {
        let text = e.to_string();
        if text.contains("surrogate") || text.contains("hex escape") {
            MemoryError::LoneSurrogate(path.to_string())
        } else {
            MemoryError::input(path, text)
        }
    }

    pub(crate) fn content(path: impl Into<String>, reason: impl Into<String>) -> Self {
        MemoryError::InvalidContent { path: path.into(), reason: reason.into() }
    }
}

pub type Result<T, E = MemoryError> = std::result::Result<T, E>;
