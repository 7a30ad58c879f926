//! Cost accounting in USD from the model table.
//!
//! Invariant: totals only grow; every recorded call is charged at the price
//! of the model it names, never the controller's default model.

use serde::Serialize;

use crate::error::{MemoryError, Result};
use crate::models::ModelInfo;

/// One call's reported usage (see `usage` for the shapes clients report).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Usage {
    /// Every input token, cached or not.
    pub prompt_tokens: u64,
    /// Every output token, reasoning included.
    pub completion_tokens: u64,
    /// Part of `prompt_tokens` read from the prompt cache.
    pub cached_prompt_tokens: u64,
    /// Part of `prompt_tokens` written to the prompt cache (Anthropic).
    pub cache_write_tokens: u64,
    /// Part of `completion_tokens` spent reasoning.
    pub reasoning_tokens: u64,
}

impl Usage {
    /// # Errors
    /// `INVALID_INPUT` when more tokens are cached than were sent, or more
    /// reasoned than were output.
    pub fn validate(&self) -> Result<()> {
        if self.cached_prompt_tokens.saturating_add(self.cache_write_tokens) > self.prompt_tokens {
            return Err(MemoryError::input("usage", "cached tokens (read plus written) cannot exceed the prompt tokens"));
        }
        if self.reasoning_tokens > self.completion_tokens {
            return Err(MemoryError::input("usage", "reasoning tokens cannot exceed the output tokens"));
        }
        Ok(())
    }

    /// USD at `price`: fresh input, cache reads and writes at their prices,
    /// output (reasoning included) at the output price.
    pub fn usd(&self, price: &ModelInfo) -> f64 {
        let fresh = (self.prompt_tokens - self.cached_prompt_tokens - self.cache_write_tokens) as f64;
        let write_price = price.cache_write_price.unwrap_or(price.input_price);
        (fresh * price.input_price
            + self.cached_prompt_tokens as f64 * price.cached_input_price
            + self.cache_write_tokens as f64 * write_price
            + self.completion_tokens as f64 * price.output_price)
            / 1_000_000.0
    }
}

/// Running totals for one model.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ModelCost {
    pub model: String,
    pub calls: u64,
    pub prompt_tokens: u64,
    pub cached_prompt_tokens: u64,
    pub cache_write_tokens: u64,
    pub completion_tokens: u64,
    pub reasoning_tokens: u64,
    /// null (`None`) for a model without a known price: never a made-up number.
    pub usd: Option<f64>,
}

/// All recorded usage, per model and in total.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct CostLedger {
    /// What the calls at known prices cost; calls to unpriced models are not in it.
    pub usd: f64,
    pub by_model: Vec<ModelCost>,
    /// The same spending split by what it was for: "chat", "summarizer", "embedder".
    pub by_purpose: Vec<PurposeCost>,
    /// Share of all recorded prompt tokens the provider read from its
    /// prompt cache (billed at the cached price); 0 before any usage.
    pub cached_share: f64,
}

/// Spending on one purpose.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct PurposeCost {
    pub purpose: String,
    pub calls: u64,
    pub usd: f64,
}

impl CostLedger {
    pub fn record(&mut self, model: &str, price: Option<&ModelInfo>, usage: &Usage) -> Option<f64> {
        self.record_for(model, price.map(|p| usage.usd(p)), usage, "chat")
    }

    /// Adds one call that cost `usd` (`None`: its model has no known price); returns `usd`.
    pub fn record_for(&mut self, model: &str, usd: Option<f64>, usage: &Usage, purpose: &str) -> Option<f64> {
        match self.by_purpose.iter_mut().find(|p| p.purpose == purpose) {
            Some(p) => {
                p.calls += 1;
                p.usd += usd.unwrap_or(0.0);
            }
            None => self.by_purpose.push(PurposeCost { purpose: purpose.to_string(), calls: 1, usd: usd.unwrap_or(0.0) }),
        }
        if !self.by_model.iter().any(|m| m.model == model) {
            self.by_model.push(ModelCost { model: model.to_string(), usd: usd.map(|_| 0.0), ..ModelCost::default() });
        }
        if let Some(entry) = self.by_model.iter_mut().find(|m| m.model == model) {
            entry.calls += 1;
            entry.prompt_tokens += usage.prompt_tokens;
            entry.cached_prompt_tokens += usage.cached_prompt_tokens;
            entry.cache_write_tokens += usage.cache_write_tokens;
            entry.completion_tokens += usage.completion_tokens;
            entry.reasoning_tokens += usage.reasoning_tokens;
            entry.usd = entry.usd.zip(usd).map(|(a, b)| a + b);
        }
        self.usd += usd.unwrap_or(0.0);
        let (prompt, cached) = self.by_model.iter().fold((0u64, 0u64), |(p, c), m| (p + m.prompt_tokens, c + m.cached_prompt_tokens));
        self.cached_share = if prompt == 0 { 0.0 } else { cached as f64 / prompt as f64 };
        usd
    }

    /// Models charged without a known price, in the order first seen.
    pub fn unpriced(&self) -> impl Iterator<Item = &str> {
        self.by_model.iter().filter(|m| m.usd.is_none()).map(|m| m.model.as_str())
    }
}

/// The fewest output tokens `budget_aware_max_tokens` answers unless told
/// otherwise: below it, a reply is too short to be worth the call.
pub const OUTPUT_FLOOR: u64 = 16;

/// The most output tokens `usd_left` pays for after a prompt of
/// `prompt_tokens`, capped by the model's output limit.
///
/// # Errors
/// `BUDGET_EXHAUSTED` when that is below `floor`; `INVALID_INPUT` for a
/// negative or non-finite amount.
pub fn budget_aware_max_tokens(usd_left: f64, price: &ModelInfo, prompt_tokens: u64, floor: u64) -> Result<u64> {
    if !usd_left.is_finite() || usd_left < 0.0 {
        return Err(MemoryError::input("usdLeft", "must be a finite, non-negative number"));
    }
    let after_prompt = usd_left - prompt_tokens as f64 * price.input_price / 1_000_000.0;
    let affordable = if after_prompt <= 0.0 { 0 } else { (after_prompt * 1_000_000.0 / price.output_price).floor() as u64 };
    let max_tokens = affordable.min(price.max_output);
    if max_tokens < floor {
        return Err(MemoryError::BudgetExhausted { usd_left, max_tokens, floor });
    }
    Ok(max_tokens)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models::lookup;

    #[test]
    fn charges_fresh_cached_and_output_at_their_prices() {
        let gpt4o = lookup("gpt-4o", &[]).unwrap();
        let u = Usage { prompt_tokens: 1_000_000, completion_tokens: 100_000, cached_prompt_tokens: 400_000, ..Usage::default() };
        // 0.6M × 2.50 + 0.4M × 1.25 + 0.1M × 10 = 1.5 + 0.5 + 1.0
        assert!((u.usd(&gpt4o) - 3.0).abs() < 1e-9);
        let mut ledger = CostLedger::default();
        ledger.record("gpt-4o", Some(&gpt4o), &u);
        ledger.record(
            "deepseek-v3.2",
            Some(&lookup("deepseek-v3.2", &[]).unwrap()),
            &Usage { prompt_tokens: 1_000_000, completion_tokens: 1_000_000, ..Usage::default() },
        );
        assert!((ledger.usd - (3.0 + 0.27 + 0.42)).abs() < 1e-9);
        assert_eq!(ledger.by_model.len(), 2);
    }

    #[test]
    fn cache_writes_cost_their_price_and_unknown_models_cost_null() {
        let sonnet = lookup("claude-sonnet-4.5", &[]).unwrap();
        // Anthropic: 20 fresh × 3 + 1000 read × 0.30 + 300 written × 3.75 + 80 out × 15, per 1M.
        let u =
            Usage { prompt_tokens: 1320, completion_tokens: 80, cached_prompt_tokens: 1000, cache_write_tokens: 300, reasoning_tokens: 0 };
        assert!((u.usd(&sonnet) - (60.0 + 300.0 + 1125.0 + 1200.0) / 1e6).abs() < 1e-12);
        let mut ledger = CostLedger::default();
        assert_eq!(ledger.record("llama-9", None, &u), None);
        ledger.record("llama-9", None, &u);
        assert_eq!(ledger.usd, 0.0);
        assert_eq!(ledger.by_model[0].usd, None);
        assert_eq!(ledger.by_model[0].prompt_tokens, 2640);
        assert_eq!(ledger.unpriced().collect::<Vec<_>>(), ["llama-9"]);
    }

    #[test]
    fn the_cached_share_is_of_every_prompt_token_recorded() {
        let mut ledger = CostLedger::default();
        assert_eq!(ledger.cached_share, 0.0);
        let gpt4o = lookup("gpt-4o", &[]).unwrap();
        ledger.record("gpt-4o", Some(&gpt4o), &Usage { prompt_tokens: 3000, cached_prompt_tokens: 2048, ..Usage::default() });
        ledger.record("mystery-model", None, &Usage { prompt_tokens: 1000, ..Usage::default() });
        assert_eq!(ledger.cached_share, 2048.0 / 4000.0);
    }

    #[test]
    fn output_is_capped_by_money_and_model_limit() {
        let p = lookup("gpt-4o-mini", &[]).unwrap();
        // $0.60 per 1M output: one cent buys 16,666 tokens, capped at 16,384.
        assert_eq!(budget_aware_max_tokens(0.01, &p, 0, 16).unwrap(), 16_384);
        assert_eq!(budget_aware_max_tokens(0.0006, &p, 0, 16).unwrap(), 1000);
        let e = budget_aware_max_tokens(0.000001, &p, 0, 16).unwrap_err();
        assert_eq!(e.code(), "BUDGET_EXHAUSTED");
        // The prompt is paid first.
        assert_eq!(budget_aware_max_tokens(0.00015, &p, 1000, 1).unwrap_err().code(), "BUDGET_EXHAUSTED");
        assert_eq!(budget_aware_max_tokens(f64::NAN, &p, 0, 1).unwrap_err().code(), "INVALID_INPUT");
    }
}
