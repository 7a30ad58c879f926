//! Usage as clients report it, read into one shape.
//!
//! Accepted as they come, told apart by their keys:
//! - the AI SDK's `usage` / `totalUsage` (`inputTokens`, `outputTokens`,
//!   `inputTokenDetails.cacheReadTokens` / `cacheWriteTokens`,
//!   `outputTokenDetails.reasoningTokens`; the older flat
//!   `cachedInputTokens` / `reasoningTokens`) and a provider's
//!   LanguageModelV4 usage (`inputTokens: { total, cacheRead, cacheWrite }`);
//! - OpenAI chat completions (`prompt_tokens`, `completion_tokens`,
//!   `prompt_tokens_details.cached_tokens`,
//!   `completion_tokens_details.reasoning_tokens`) and DeepSeek's additions
//!   (`prompt_cache_hit_tokens`);
//! - the OpenAI Responses API (`input_tokens`, `output_tokens`,
//!   `input_tokens_details.cached_tokens`,
//!   `output_tokens_details.reasoning_tokens`);
//! - Anthropic (`input_tokens` counts only uncached input; the prompt is it
//!   plus `cache_read_input_tokens` plus `cache_creation_input_tokens`);
//! - this package's own `{ promptTokens, completionTokens?, cachedPromptTokens? }`;
//! - any of those wrapped in a response object (`{ model, usage }`).
//!
//! Invariant of the result: cache reads and writes are parts of the prompt,
//! reasoning is part of the completion. A count that is missing where the
//! shape always has it, negative or not a whole number is an error naming
//! the field, never a guess.

use serde_json::{Map, Value};

use crate::cost::Usage;
use crate::error::{MemoryError, Result};

/// A usage object read: the tokens and, if it said so, the model.
#[derive(Clone, Debug, PartialEq)]
pub struct Reported {
    pub usage: Usage,
    pub model: Option<String>,
}

/// Reads a usage object in any of the shapes above.
///
/// # Errors
/// `INVALID_INPUT` naming the field: not an object, no shape recognised, a
/// required count missing, a count negative or fractional, more cached than
/// prompt tokens or more reasoning than output tokens.
pub fn read(value: &Value) -> Result<Reported> {
    let obj = value.as_object().ok_or_else(|| MemoryError::input("usage", "expected an object"))?;
    let model = match obj.get("model") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => return Err(MemoryError::input("usage.model", "expected a string")),
    };
    // A response object: its usage inside, its model beside it.
    if let Some(inner) = obj.get("usage").filter(|u| u.is_object()) {
        let r = read(inner)?;
        return Ok(Reported { model: r.model.or(model), usage: r.usage });
    }
    let u = Fields { obj, at: "usage" };
    let usage = if obj.contains_key("inputTokens") {
        ai_sdk(&u)?
    } else if obj.contains_key("prompt_tokens") {
        chat(&u)?
    } else if obj.contains_key("input_tokens") {
        if obj.contains_key("cache_read_input_tokens") || obj.contains_key("cache_creation_input_tokens") {
            anthropic(&u)?
        } else {
            responses(&u)?
        }
    } else if obj.contains_key("promptTokens") {
        Usage {
            prompt_tokens: u.count("promptTokens")?,
            completion_tokens: u.opt("completionTokens")?.unwrap_or(0),
            cached_prompt_tokens: u.opt("cachedPromptTokens")?.unwrap_or(0),
            ..Usage::default()
        }
    } else {
        return Err(MemoryError::input(
            "usage",
            "no token counts found (expected an OpenAI, DeepSeek, Anthropic or AI SDK usage object, or { promptTokens, completionTokens })",
        ));
    };
    usage.validate()?;
    Ok(Reported { usage, model })
}

fn ai_sdk(u: &Fields) -> Result<Usage> {
    // A provider's LanguageModelV4 usage nests the totals.
    if u.obj.get("inputTokens").is_some_and(Value::is_object) {
        let input = u.nested("inputTokens")?;
        let output = u.nested("outputTokens")?;
        return Ok(Usage {
            prompt_tokens: input.count("total")?,
            cached_prompt_tokens: input.opt("cacheRead")?.unwrap_or(0),
            cache_write_tokens: input.opt("cacheWrite")?.unwrap_or(0),
            completion_tokens: output.count("total")?,
            reasoning_tokens: output.opt("reasoning")?.unwrap_or(0),
        });
    }
    let input = u.opt_nested("inputTokenDetails")?;
    let output = u.opt_nested("outputTokenDetails")?;
    let cached = match &input {
        Some(d) if d.obj.contains_key("cacheReadTokens") => d.opt("cacheReadTokens")?,
        _ => u.opt("cachedInputTokens")?,
    };
    let reasoning = match &output {
        Some(d) if d.obj.contains_key("reasoningTokens") => d.opt("reasoningTokens")?,
        _ => u.opt("reasoningTokens")?,
    };
    Ok(Usage {
        prompt_tokens: u.count("inputTokens")?,
        completion_tokens: u.count("outputTokens")?,
        cached_prompt_tokens: cached.unwrap_or(0),
        cache_write_tokens: input.as_ref().map(|d| d.opt("cacheWriteTokens")).transpose()?.flatten().unwrap_or(0),
        reasoning_tokens: reasoning.unwrap_or(0),
    })
}

fn chat(u: &Fields) -> Result<Usage> {
    let prompt = u.count("prompt_tokens")?;
    // An embeddings response reports input only (its total equals its prompt).
    let completion = match u.opt("completion_tokens")? {
        Some(n) => n,
        None if u.opt("total_tokens")? == Some(prompt) => 0,
        None => return Err(MemoryError::input("usage.completion_tokens", "missing")),
    };
    let details = u.opt_nested("prompt_tokens_details")?;
    let cached = match u.opt("prompt_cache_hit_tokens")? {
        Some(hit) => Some(hit),
        None => details.as_ref().map(|d| d.opt("cached_tokens")).transpose()?.flatten(),
    };
    let reasoning = u.opt_nested("completion_tokens_details")?.map(|d| d.opt("reasoning_tokens")).transpose()?.flatten();
    Ok(Usage { prompt_tokens: prompt, completion_tokens: completion, cached_prompt_tokens: cached.unwrap_or(0), cache_write_tokens: 0, reasoning_tokens: reasoning.unwrap_or(0) })
}

fn responses(u: &Fields) -> Result<Usage> {
    let cached = u.opt_nested("input_tokens_details")?.map(|d| d.opt("cached_tokens")).transpose()?.flatten();
    let reasoning = u.opt_nested("output_tokens_details")?.map(|d| d.opt("reasoning_tokens")).transpose()?.flatten();
    Ok(Usage {
        prompt_tokens: u.count("input_tokens")?,
        completion_tokens: u.count("output_tokens")?,
        cached_prompt_tokens: cached.unwrap_or(0),
        cache_write_tokens: 0,
        reasoning_tokens: reasoning.unwrap_or(0),
    })
}

fn anthropic(u: &Fields) -> Result<Usage> {
    let (uncached, read, write) = (u.count("input_tokens")?, u.opt("cache_read_input_tokens")?.unwrap_or(0), u.opt("cache_creation_input_tokens")?.unwrap_or(0));
    Ok(Usage {
        prompt_tokens: uncached + read + write,
        completion_tokens: u.count("output_tokens")?,
        cached_prompt_tokens: read,
        cache_write_tokens: write,
        reasoning_tokens: 0,
    })
}

/// An object being read, and its path for error messages.
struct Fields<'a> {
    obj: &'a Map<String, Value>,
    at: &'a str,
}

impl<'a> Fields<'a> {
    fn path(&self, key: &str) -> String {
        format!("{}.{key}", self.at)
    }

    /// A count that may be absent or null.
    fn opt(&self, key: &str) -> Result<Option<u64>> {
        match self.obj.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => match v.as_f64() {
                Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= 9_007_199_254_740_991.0 => Ok(Some(n as u64)),
                _ => Err(MemoryError::input(self.path(key), format!("expected a non-negative whole number, got {v}"))),
            },
        }
    }

    /// A count the shape always has.
    fn count(&self, key: &str) -> Result<u64> {
        self.opt(key)?.ok_or_else(|| MemoryError::input(self.path(key), "missing"))
    }

    fn opt_nested(&self, key: &'a str) -> Result<Option<Fields<'a>>> {
        match self.obj.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Object(obj)) => Ok(Some(Fields { obj, at: key })),
            Some(_) => Err(MemoryError::input(self.path(key), "expected an object")),
        }
    }

    fn nested(&self, key: &'a str) -> Result<Fields<'a>> {
        self.opt_nested(key)?.ok_or_else(|| MemoryError::input(self.path(key), "missing"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn usage(v: Value) -> Usage {
        read(&v).unwrap().usage
    }

    fn u(prompt: u64, completion: u64, cached: u64, write: u64, reasoning: u64) -> Usage {
        Usage { prompt_tokens: prompt, completion_tokens: completion, cached_prompt_tokens: cached, cache_write_tokens: write, reasoning_tokens: reasoning }
    }

    #[test]
    fn openai_and_deepseek_chat() {
        let openai = json!({"prompt_tokens": 1200, "completion_tokens": 300, "total_tokens": 1500,
            "prompt_tokens_details": {"cached_tokens": 1024, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 128, "audio_tokens": 0, "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0}});
        assert_eq!(usage(openai), u(1200, 300, 1024, 0, 128));
        let deepseek = json!({"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120, "prompt_cache_hit_tokens": 64, "prompt_cache_miss_tokens": 36,
            "prompt_tokens_details": {"cached_tokens": 64}, "completion_tokens_details": {"reasoning_tokens": 12}});
        assert_eq!(usage(deepseek), u(100, 20, 64, 0, 12));
        assert_eq!(usage(json!({"prompt_tokens": 8, "total_tokens": 8})), u(8, 0, 0, 0, 0), "embeddings");
    }

    #[test]
    fn ai_sdk_current_older_and_provider_level() {
        let v7 = json!({"inputTokens": 1000, "inputTokenDetails": {"noCacheTokens": 200, "cacheReadTokens": 700, "cacheWriteTokens": 100},
            "outputTokens": 50, "outputTokenDetails": {"textTokens": 30, "reasoningTokens": 20}, "totalTokens": 1050, "raw": {"prompt_tokens": 1}});
        assert_eq!(usage(v7), u(1000, 50, 700, 100, 20));
        assert_eq!(usage(json!({"inputTokens": 10, "outputTokens": 5, "totalTokens": 15, "cachedInputTokens": 4, "reasoningTokens": 2})), u(10, 5, 4, 0, 2));
        let v4 = json!({"inputTokens": {"total": 90, "noCache": 10, "cacheRead": 80, "cacheWrite": 0}, "outputTokens": {"total": 9, "text": 9, "reasoning": 0}});
        assert_eq!(usage(v4), u(90, 9, 80, 0, 0));
    }

    #[test]
    fn responses_anthropic_ours_and_wrapped() {
        let responses = json!({"input_tokens": 500, "input_tokens_details": {"cached_tokens": 400}, "output_tokens": 60, "output_tokens_details": {"reasoning_tokens": 40}, "total_tokens": 560});
        assert_eq!(usage(responses), u(500, 60, 400, 0, 40));
        let anthropic = json!({"input_tokens": 20, "cache_read_input_tokens": 1000, "cache_creation_input_tokens": 300, "output_tokens": 80, "service_tier": "standard"});
        assert_eq!(usage(anthropic), u(1320, 80, 1000, 300, 0));
        assert_eq!(usage(json!({"promptTokens": 10, "cachedPromptTokens": 3})), u(10, 0, 3, 0, 0));
        let reply = read(&json!({"id": "chatcmpl-1", "model": "gpt-4o-2024-08-06", "usage": {"prompt_tokens": 3, "completion_tokens": 1}})).unwrap();
        assert_eq!((reply.usage, reply.model.as_deref()), (u(3, 1, 0, 0, 0), Some("gpt-4o-2024-08-06")));
    }

    #[test]
    fn bad_counts_are_errors_naming_the_field() {
        let err = |v: Value| read(&v).unwrap_err().to_string();
        assert!(err(json!({"prompt_tokens": -1, "completion_tokens": 1})).contains("usage.prompt_tokens"));
        assert!(err(json!({"prompt_tokens": 1.5, "completion_tokens": 1})).contains("usage.prompt_tokens"));
        assert!(err(json!({"prompt_tokens": 10})).contains("usage.completion_tokens"));
        assert!(err(json!({"inputTokens": 10})).contains("usage.outputTokens"));
        assert!(err(json!({"input_tokens": 1, "output_tokens": 1, "input_tokens_details": {"cached_tokens": "x"}})).contains("input_tokens_details.cached_tokens"));
        assert!(err(json!({"tokens": 3})).contains("no token counts"));
        assert!(err(json!({"prompt_tokens": 1, "completion_tokens": 1, "prompt_tokens_details": {"cached_tokens": 2}})).contains("cached"));
        assert_eq!(read(&json!("x")).unwrap_err().code(), "INVALID_INPUT");
    }
}
