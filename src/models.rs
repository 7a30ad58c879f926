//! Model table: tokenizer, context window, output limit and price per model,
//! and how the ids people write resolve to it.
//!
//! Prices are USD per 1M tokens, standard (non-batch) tier, text, prompts
//! under any long-context surcharge. Where they come from, per family, read
//! on 2026-11-30 through this project's search tool (stored copies of the
//! pages; this build machine has no live web access), so check the vendor's
//! page before relying on a figure:
//! - OpenAI: developers.openai.com/api/docs/pricing, as quoted by
//!   morphllm.com/openai-api-pricing (June 2026: the GPT-5.4/5.5 rows) and
//!   nicolalazzari.ai (GPT-5.2); GPT-5, 4.1, 4o and o-series rows as the
//!   official page stated them in late 2025.
//! - Anthropic: docs.anthropic.com/en/docs/about-claude/pricing (Opus 4.1,
//!   Opus 4, Sonnet 4, cache writes at 1.25x input, hits at 0.1x) and
//!   deploybase.ai's 2026-03-21 table (Opus 4.6, Sonnet 4.6, Opus 4.5,
//!   Sonnet 4.5, Haiku 4.5).
//! - Google: ai.google.dev/gemini-api/docs/pricing as quoted by
//!   morphllm.com/gemini-api-pricing (2026); cached input at 0.1x input.
//! - DeepSeek: api-docs.deepseek.com/quick_start/pricing (archived
//!   2026-04-26) with the cache-hit price cut to a tenth that day (as
//!   tokenmix.ai reports it, 2026-04-30); V4 Pro at its listed, not its
//!   promotional, price. `deepseek-chat` / `deepseek-reasoner` are aliases of
//!   V4 Flash. `deepseek-v3.2` keeps the figures the project specified.
//!
//! Vendors change prices: hosts override any entry with `options.models`.
//! A model without a cache discount charges cached input at the input price;
//! a model without a cache-write price charges cache writes at the input price.

use serde::{Deserialize, Serialize};

use crate::error::{MemoryError, Result};

/// How a model's tokens are counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum Tokenizer {
    /// tiktoken o200k_base, counted exactly.
    O200kBase,
    /// tiktoken cl100k_base, counted exactly.
    Cl100kBase,
    /// Not a tiktoken model: script-aware estimate with a safety margin.
    Estimate,
}

/// Everything the controller needs to know about a model: a model entry
/// (`create`'s `models`; host entries win over the built-in table).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "ModelEntry"))]
pub struct ModelInfo {
    pub tokenizer: Tokenizer,
    pub context_window: u64,
    pub max_output: u64,
    /// USD per 1M input tokens.
    pub input_price: f64,
    /// USD per 1M cached input tokens (cache reads).
    pub cached_input_price: f64,
    /// USD per 1M output tokens (reasoning tokens included).
    pub output_price: f64,
    /// USD per 1M tokens written to a prompt cache (Anthropic: 1.25x input). Default: the input price.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub cache_write_price: Option<f64>,
}

const fn m(tokenizer: Tokenizer, context_window: u64, max_output: u64, input: f64, cached: f64, output: f64) -> ModelInfo {
    ModelInfo {
        tokenizer,
        context_window,
        max_output,
        input_price: input,
        cached_input_price: cached,
        output_price: output,
        cache_write_price: None,
    }
}

/// An Anthropic entry: cache writes cost 1.25x input.
const fn a(context_window: u64, max_output: u64, input: f64, cached: f64, output: f64) -> ModelInfo {
    ModelInfo { cache_write_price: Some(input * 1.25), ..m(EST, context_window, max_output, input, cached, output) }
}

use Tokenizer::{Cl100kBase as CL, Estimate as EST, O200kBase as O200};

/// Built-in models, by the id their vendor uses. Dated snapshots and
/// suffixes ("gpt-4o-2024-08-06", "gemini-3.1-pro-preview") resolve to the
/// longest name here that they start with, followed by '-'.
pub const MODELS: &[(&str, ModelInfo)] = &[
    ("gpt-5.5", m(O200, 1_000_000, 128_000, 5.0, 0.50, 30.0)),
    ("gpt-5.4", m(O200, 1_000_000, 128_000, 2.50, 0.25, 15.0)),
    ("gpt-5.4-mini", m(O200, 1_000_000, 128_000, 0.75, 0.075, 4.50)),
    ("gpt-5.4-nano", m(O200, 1_000_000, 128_000, 0.20, 0.02, 1.25)),
    ("gpt-5.2", m(O200, 400_000, 128_000, 1.75, 0.175, 14.0)),
    ("gpt-5.1", m(O200, 400_000, 128_000, 1.25, 0.125, 10.0)),
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
    // Anthropic's own ids write the version with a dash; gateways use a dot.
    ("claude-opus-4-6", a(1_000_000, 128_000, 5.0, 0.50, 25.0)),
    ("claude-opus-4.6", a(1_000_000, 128_000, 5.0, 0.50, 25.0)),
    ("claude-sonnet-4-6", a(1_000_000, 64_000, 3.0, 0.30, 15.0)),
    ("claude-sonnet-4.6", a(1_000_000, 64_000, 3.0, 0.30, 15.0)),
    ("claude-opus-4-5", a(200_000, 64_000, 5.0, 0.50, 25.0)),
    ("claude-opus-4.5", a(200_000, 64_000, 5.0, 0.50, 25.0)),
    ("claude-sonnet-4-5", a(200_000, 64_000, 3.0, 0.30, 15.0)),
    ("claude-sonnet-4.5", a(200_000, 64_000, 3.0, 0.30, 15.0)),
    ("claude-haiku-4-5", a(200_000, 64_000, 1.0, 0.10, 5.0)),
    ("claude-haiku-4.5", a(200_000, 64_000, 1.0, 0.10, 5.0)),
    ("claude-opus-4-1", a(200_000, 32_000, 15.0, 1.50, 75.0)),
    ("claude-opus-4.1", a(200_000, 32_000, 15.0, 1.50, 75.0)),
    ("claude-opus-4", a(200_000, 32_000, 15.0, 1.50, 75.0)),
    ("claude-sonnet-4", a(200_000, 64_000, 3.0, 0.30, 15.0)),
    ("gemini-3.5-flash", m(EST, 1_048_576, 65_536, 1.50, 0.15, 9.0)),
    ("gemini-3.1-pro", m(EST, 1_048_576, 65_536, 2.0, 0.20, 12.0)),
    ("gemini-3.1-flash-lite", m(EST, 1_048_576, 65_536, 0.25, 0.025, 1.50)),
    ("gemini-3-flash", m(EST, 1_048_576, 65_536, 0.50, 0.05, 3.0)),
    ("gemini-2.5-pro", m(EST, 1_048_576, 65_536, 1.25, 0.125, 10.0)),
    ("gemini-2.5-flash", m(EST, 1_048_576, 65_536, 0.30, 0.03, 2.50)),
    ("gemini-2.5-flash-lite", m(EST, 1_048_576, 65_536, 0.10, 0.01, 0.40)),
    ("deepseek-v4-pro", m(EST, 1_000_000, 384_000, 1.74, 0.0145, 3.48)),
    ("deepseek-v4-flash", m(EST, 1_000_000, 384_000, 0.14, 0.0028, 0.28)),
    ("deepseek-chat", m(EST, 1_000_000, 384_000, 0.14, 0.0028, 0.28)),
    ("deepseek-reasoner", m(EST, 1_000_000, 384_000, 0.14, 0.0028, 0.28)),
    ("deepseek-v3.2", m(EST, 128_000, 8_192, 0.27, 0.028, 0.42)),
];

/// What an id nobody knows is taken to be: counted with the generic
/// estimator (its safety margin), a common window, and no price.
pub const UNKNOWN: ModelInfo = m(EST, 128_000, 4_096, 0.0, 0.0, 0.0);

/// The table name an id means: lower case, without a provider prefix
/// (`openai/gpt-4o`, `@cf/meta/llama-3.1-8b-instruct`, Bedrock's
/// `us.anthropic.claude-…`) or a version tag (`claude-opus-4-1@20250805`,
/// `…-v1:0`).
pub fn canonical(id: &str) -> String {
    let id = id.trim().to_ascii_lowercase();
    let tail = id.rsplit('/').next().unwrap_or_default();
    let tail = tail.split(['@', ':']).next().unwrap_or_default();
    match tail.rfind("anthropic.") {
        Some(i) => tail[i + "anthropic.".len()..].to_string(),
        None => tail.to_string(),
    }
}

/// Looks a model up: host entries first (exact name), then the built-in
/// table by the id's canonical name (exact, then the longest built-in name
/// followed by '-').
///
/// # Errors
/// `UNKNOWN_MODEL` when neither knows the name.
pub fn lookup(name: &str, host: &[(String, ModelInfo)]) -> Result<ModelInfo> {
    resolve(name, host).ok_or_else(|| MemoryError::UnknownModel(name.to_string()))
}

/// [`lookup`], or `None` for an unknown model.
pub fn resolve(name: &str, host: &[(String, ModelInfo)]) -> Option<ModelInfo> {
    if let Some((_, info)) = host.iter().find(|(n, _)| n == name) {
        return Some(info.clone());
    }
    let id = canonical(name);
    if let Some((_, info)) = MODELS.iter().find(|(n, _)| *n == id) {
        return Some(info.clone());
    }
    MODELS
        .iter()
        .filter(|(n, _)| id.len() > n.len() && id.starts_with(n) && id.as_bytes().get(n.len()) == Some(&b'-'))
        .max_by_key(|(n, _)| n.len())
        .map(|(_, info)| info.clone())
}

/// Prices 0.1.0 charged that the table has changed since (input, cached,
/// output per million): 0.1's usage records hold tokens, not cost, so on
/// load they are priced as 0.1 priced them.
const CHANGED_SINCE_0_1: [(&str, f64, f64, f64); 4] = [
    ("deepseek-chat", 0.27, 0.028, 0.42),
    ("deepseek-reasoner", 0.27, 0.028, 0.42),
    ("gemini-2.5-flash", 0.30, 0.075, 2.50),
    ("gemini-2.5-pro", 1.25, 0.31, 10.0),
];

/// [`resolve`], with 0.1's prices for the rows changed since (the host's own entries win).
pub fn resolve_as_of_0_1(name: &str, host: &[(String, ModelInfo)]) -> Option<ModelInfo> {
    let mut info = resolve(name, host)?;
    if !host.iter().any(|(n, _)| n == name) {
        let id = canonical(name);
        if let Some((_, input, cached, output)) =
            CHANGED_SINCE_0_1.iter().find(|(n, ..)| id == *n || id.strip_prefix(n).is_some_and(|rest| rest.starts_with('-')))
        {
            (info.input_price, info.cached_input_price, info.output_price) = (*input, *cached, *output);
        }
    }
    Some(info)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(name: &str) -> ModelInfo {
        lookup(name, &[]).unwrap()
    }

    #[test]
    fn snapshots_resolve_to_their_family() {
        assert_eq!(get("gpt-4o-2024-08-06"), get("gpt-4o"));
        assert_eq!(get("gpt-4o-mini-2024-07-18").input_price, 0.15);
        assert_eq!(get("gpt-4-0613").tokenizer, Tokenizer::Cl100kBase);
        assert_eq!(get("deepseek-v3.2").output_price, 0.42);
        assert_eq!(get("gemini-3.1-pro-preview"), get("gemini-3.1-pro"));
        assert_eq!(get("gpt-5.4-mini-2026-03-17"), get("gpt-5.4-mini"));
    }

    #[test]
    fn ids_as_people_write_them() {
        for (id, name) in [
            ("openai/gpt-4o", "gpt-4o"),
            ("OpenAI/GPT-4o", "gpt-4o"),
            ("deepseek/deepseek-chat", "deepseek-chat"),
            ("anthropic/claude-sonnet-4.5", "claude-sonnet-4.5"),
            ("claude-sonnet-4-5-20250929", "claude-sonnet-4.5"),
            ("claude-opus-4-1@20250805", "claude-opus-4.1"),
            ("us.anthropic.claude-haiku-4-5-20251001-v1:0", "claude-haiku-4.5"),
            ("claude-opus-4-6", "claude-opus-4.6"),
            ("claude-opus-4-20250514", "claude-opus-4"),
            ("google/gemini-2.5-flash", "gemini-2.5-flash"),
            ("openrouter/openai/gpt-5.4", "gpt-5.4"),
        ] {
            assert_eq!(lookup(id, &[]).unwrap(), get(name), "{id}");
        }
        assert_eq!(canonical("@cf/meta/llama-3.1-8b-instruct"), "llama-3.1-8b-instruct");
    }

    #[test]
    fn unknown_models_resolve_to_none_unless_the_host_supplies_them() {
        assert_eq!(lookup("llama-9", &[]).unwrap_err().code(), "UNKNOWN_MODEL");
        assert!(resolve("gpt-4oo", &[]).is_none());
        assert!(resolve("@cf/meta/llama-3.1-8b-instruct", &[]).is_none());
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
            assert_eq!(canonical(name), *name, "table names are canonical");
            if name.starts_with("claude-") {
                assert_eq!(resolve(&name.replace("-4-", "-4."), &[]).as_ref(), Some(info), "both spellings of {name} agree");
            }
        }
    }
}
