//! Cost accounting in USD from the model table.
//!
//! Invariant: totals only grow; every recorded call is charged at the price
//! of the model it names, never the controller's default model.

use serde::Serialize;

use crate::error::{MemoryError, Result};
use crate::models::ModelInfo;

/// One call's reported usage, as the API returns it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Usage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    /// Part of `prompt_tokens` served from the prompt cache.
    pub cached_prompt_tokens: u64,
}

impl Usage {
    /// # Errors
    /// `INVALID_INPUT` when more tokens are cached than were sent.
    pub fn validate(&self) -> Result<()> {
        if self.cached_prompt_tokens > self.prompt_tokens {
            return Err(MemoryError::input("cachedPromptTokens", "cannot exceed promptTokens"));
        }
        Ok(())
    }

    pub fn usd(&self, price: &ModelInfo) -> f64 {
        let fresh = (self.prompt_tokens - self.cached_prompt_tokens) as f64;
        (fresh * price.input_price + self.cached_prompt_tokens as f64 * price.cached_input_price + self.completion_tokens as f64 * price.output_price)
            / 1_000_000.0
    }
}

/// Running totals for one model.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelCost {
    pub model: String,
    pub calls: u64,
    pub prompt_tokens: u64,
    pub cached_prompt_tokens: u64,
    pub completion_tokens: u64,
    pub usd: f64,
}

/// All recorded usage, per model and in total.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CostLedger {
    pub usd: f64,
    pub by_model: Vec<ModelCost>,
    /// The same spending split by what it was for: "chat", "summarizer", "embedder".
    pub by_purpose: Vec<PurposeCost>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PurposeCost {
    pub purpose: String,
    pub calls: u64,
    pub usd: f64,
}

impl CostLedger {
    pub fn record(&mut self, model: &str, price: &ModelInfo, usage: &Usage) -> f64 {
        self.record_for(model, price, usage, "chat")
    }

    pub fn record_for(&mut self, model: &str, price: &ModelInfo, usage: &Usage, purpose: &str) -> f64 {
        let usd = usage.usd(price);
        match self.by_purpose.iter_mut().find(|p| p.purpose == purpose) {
            Some(p) => {
                p.calls += 1;
                p.usd += usd;
            }
            None => self.by_purpose.push(PurposeCost { purpose: purpose.to_string(), calls: 1, usd }),
        }
        let entry = match self.by_model.iter().position(|m| m.model == model) {
            Some(i) => &mut self.by_model[i],
            None => {
                self.by_model.push(ModelCost { model: model.to_string(), ..ModelCost::default() });
                self.by_model.last_mut().expect("just pushed")
            }
        };
        entry.calls += 1;
        entry.prompt_tokens += usage.prompt_tokens;
        entry.cached_prompt_tokens += usage.cached_prompt_tokens;
        entry.completion_tokens += usage.completion_tokens;
        entry.usd += usd;
        self.usd += usd;
        usd
    }
}

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
        let u = Usage { prompt_tokens: 1_000_000, completion_tokens: 100_000, cached_prompt_tokens: 400_000 };
        // 0.6M × 2.50 + 0.4M × 1.25 + 0.1M × 10 = 1.5 + 0.5 + 1.0
        assert!((u.usd(&gpt4o) - 3.0).abs() < 1e-9);
        let mut ledger = CostLedger::default();
        ledger.record("gpt-4o", &gpt4o, &u);
        ledger.record("deepseek-v3.2", &lookup("deepseek-v3.2", &[]).unwrap(), &Usage { prompt_tokens: 1_000_000, completion_tokens: 1_000_000, cached_prompt_tokens: 0 });
        assert!((ledger.usd - (3.0 + 0.27 + 0.42)).abs() < 1e-9);
        assert_eq!(ledger.by_model.len(), 2);
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
