//! Model table: tokenizer, context window, output limit and price per model.
//!
//! Prices are USD per 1M tokens, standard (non-batch) tier, text modality,
//! as the vendors' public pricing pages (platform.openai.com/docs/pricing,
//! docs.anthropic.com pricing, ai.google.dev/gemini-api/docs/pricing,
//! api-docs.deepseek.com/quick_start/pricing) stated them in late 2025,
//! written down from those pages' published figures on 2026-11-30 without
//! re-reading them live (this build machine has no web access); the
//! deepseek-v3.2 input and output prices are the ones the project specified
//! (0.27 / 0.42). Vendors change prices: hosts override any entry with
//! `options.models`. A model without a cache discount charges cached input
//! at the input price.

use serde::{Deserialize, Serialize};

use crate::error::{MemoryError, Result};

/// How a model's tokens are counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tokenizer {
    /// tiktoken o200k_base, counted exactly.
    O200kBase,
    /// tiktoken cl100k_base, counted exactly.
    Cl100kBase,
    /// Not a tiktoken model: script-aware estimate with a safety margin.
    Estimate,
}

/// Everything the controller needs to know about a model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelInfo {
    pub tokenizer: Tokenizer,
    pub context_window: u64,
    pub max_output: u64,
    /// USD per 1M input tokens.
    pub input_price: f64,
    /// USD per 1M cached input tokens.
    pub cached_input_price: f64,
    /// USD per 1M output tokens.
    pub output_price: f64,
}

const fn m(tokenizer: Tokenizer, context_window: u64, max_output: u64, input: f64, cached: f64, output: f64) -> ModelInfo {
    ModelInfo { tokenizer, context_window, max_output, input_price: input, cached_input_price: cached, output_price: output }
}

use Tokenizer::{Cl100kBase as CL, Estimate as EST, O200kBase as O200};

/// Built-in models. Dated snapshots ("gpt-4o-2024-08-06") resolve to the
/// longest name here that they start with, followed by '-'.
pub const MODELS: &[(&str, ModelInfo)] = &[
    ("gpt-5", m(O200, 400_000, 128_000, 1.25, 0.125, 10.0)),
    ("gpt-5-mini", m(O200, 400_000, 128_000, 0.25, 0.025, 2.0)),
    ("gpt-5-nano", m(O200, 400_000, 128_000, 0.05, 0.005, 0.40)),
    ("gpt-4.1", m(O200, 1_047_576, 32_768, 2.0, 0.50, 8.0)),
    ("gpt-4.1-mini", m(O200, 1_047_576, 32_768, 0.40, 0.10, 1.60)),
    ("gpt-4.1-nano", m(O200, 1_047_576, 32_768, 0.10, 0.025, 0.40)),
    ("gpt-4o", m(O200, 128_000, 16_384, 2.50, 1.25, 10.0)),
    ("gpt-4o-mini", m(O200, 128_000, 16_384, 0.15, 0.075, 0.60)),
    ("o3", m(O200, 200_000, 100_000, 2.0, 0.50, 8.0)),
    ("o3-mini", m(O200, 200_000, 100_000, 1.10, 0.55, 4.40)),
    ("o4-mini", m(O200, 200_000, 100_000, 1.10, 0.275, 4.40)),
    ("gpt-4", m(CL, 8_192, 8_192, 30.0, 30.0, 60.0)),
    ("gpt-4-turbo", m(CL, 128_000, 4_096, 10.0, 10.0, 30.0)),
    ("gpt-3.5-turbo", m(CL, 16_385, 4_096, 0.50, 0.50, 1.50)),
    ("claude-sonnet-4.5", m(EST, 200_000, 64_000, 3.0, 0.30, 15.0)),
    ("claude-sonnet-4-5", m(EST, 200_000, 64_000, 3.0, 0.30, 15.0)),
    ("claude-haiku-4.5", m(EST, 200_000, 64_000, 1.0, 0.10, 5.0)),
    ("claude-haiku-4-5", m(EST, 200_000, 64_000, 1.0, 0.10, 5.0)),
    ("claude-opus-4.1", m(EST, 200_000, 32_000, 15.0, 1.50, 75.0)),
    ("claude-opus-4-1", m(EST, 200_000, 32_000, 15.0, 1.50, 75.0)),
    ("gemini-2.5-flash", m(EST, 1_048_576, 65_536, 0.30, 0.075, 2.50)),
    ("gemini-2.5-pro", m(EST, 1_048_576, 65_536, 1.25, 0.31, 10.0)),
    ("deepseek-v3.2", m(EST, 128_000, 8_192, 0.27, 0.028, 0.42)),
    ("deepseek-chat", m(EST, 128_000, 8_192, 0.27, 0.028, 0.42)),
    ("deepseek-reasoner", m(EST, 128_000, 65_536, 0.27, 0.028, 0.42)),
];

/// Looks a model up: host entries first (exact name), then the built-in
/// table (exact name, then the longest built-in name followed by '-').
///
/// # Errors
/// `UNKNOWN_MODEL` when neither knows the name.
pub fn lookup(name: &str, host: &[(String, ModelInfo)]) -> Result<ModelInfo> {
    if let Some((_, info)) = host.iter().find(|(n, _)| n == name) {
        return Ok(info.clone());
    }
    if let Some((_, info)) = MODELS.iter().find(|(n, _)| *n == name) {
        return Ok(info.clone());
    }
    MODELS
        .iter()
        .filter(|(n, _)| name.len() > n.len() && name.starts_with(n) && name.as_bytes()[n.len()] == b'-')
        .max_by_key(|(n, _)| n.len())
        .map(|(_, info)| info.clone())
        .ok_or_else(|| MemoryError::UnknownModel(name.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snapshots_resolve_to_their_family() {
        assert_eq!(lookup("gpt-4o-2024-08-06", &[]).unwrap(), lookup("gpt-4o", &[]).unwrap());
        assert_eq!(lookup("gpt-4o-mini-2024-07-18", &[]).unwrap().input_price, 0.15);
        assert_eq!(lookup("gpt-4-0613", &[]).unwrap().tokenizer, Tokenizer::Cl100kBase);
        assert_eq!(lookup("deepseek-v3.2", &[]).unwrap().output_price, 0.42);
    }

    #[test]
    fn unknown_models_are_an_error_unless_the_host_supplies_them() {
        assert_eq!(lookup("llama-9", &[]).unwrap_err().code(), "UNKNOWN_MODEL");
        assert_eq!(lookup("gpt-4oo", &[]).unwrap_err().code(), "UNKNOWN_MODEL");
        let host = vec![("llama-9".to_string(), m(EST, 8000, 1000, 0.1, 0.1, 0.2))];
        assert_eq!(lookup("llama-9", &host).unwrap().context_window, 8000);
        let over = vec![("gpt-4o".to_string(), m(O200, 1, 1, 9.0, 9.0, 9.0))];
        assert_eq!(lookup("gpt-4o", &over).unwrap().input_price, 9.0);
    }

    #[test]
    fn every_builtin_entry_is_sane() {
        for (name, info) in MODELS {
            assert!(info.max_output <= info.context_window, "{name}");
            assert!(info.cached_input_price <= info.input_price, "{name}");
            assert!(info.input_price > 0.0 && info.output_price > 0.0, "{name}");
        }
    }
}
