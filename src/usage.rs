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

use serde_json::Value;

use crate::cost::Usage;
use crate::error::{MemoryError, Result};

/// A usage object read: the tokens and, if it said so, the model.
#[derive(Clone, Debug, PartialEq)]
pub struct Reported {
    pub usage: Usage,
    pub model: Option<String>,
}

impl Reported {
    /// The model to charge: `chosen` (the caller's own `model` option), else
    /// the one the usage object named, else `default` (the controller's).
    #[inline]
    pub fn charged_model(&mut self, chosen: Option<String>, default: &str) -> String {
        chosen.or(self.model.take()).unwrap_or_else(|| default.to_string())
    }
}

/// Where one client keeps its counts (JSON pointers). Data, not code: one
/// reader serves every shape.
struct Shape {
    /// Keys that tell this shape apart (any one, not null).
    markers: &'static [&'static str],
    /// Summed: Anthropic's prompt is three counts; the first must be there.
    prompt: &'static [&'static str],
    /// `None`: the shape may leave output out (ours, and embeddings responses).
    completion: Option<&'static str>,
    /// The first present of each wins.
    cached: &'static [&'static str],
    cache_write: &'static [&'static str],
    reasoning: &'static [&'static str],
}

const SHAPES: &[Shape] = &[
    // A provider's LanguageModelV4 usage: totals nested (tried before the flat AI SDK shape).
    Shape {
        markers: &["/inputTokens/total"],
        prompt: &["/inputTokens/total"],
        completion: Some("/outputTokens/total"),
        cached: &["/inputTokens/cacheRead"],
        cache_write: &["/inputTokens/cacheWrite"],
        reasoning: &["/outputTokens/reasoning"],
    },
    Shape {
        markers: &["/inputTokens"],
        prompt: &["/inputTokens"],
        completion: Some("/outputTokens"),
        cached: &["/inputTokenDetails/cacheReadTokens", "/cachedInputTokens"],
        cache_write: &["/inputTokenDetails/cacheWriteTokens"],
        reasoning: &["/outputTokenDetails/reasoningTokens", "/reasoningTokens"],
    },
    Shape {
        markers: &["/prompt_tokens"],
        prompt: &["/prompt_tokens"],
        completion: Some("/completion_tokens"),
        cached: &["/prompt_cache_hit_tokens", "/prompt_tokens_details/cached_tokens"],
        cache_write: &[],
        reasoning: &["/completion_tokens_details/reasoning_tokens"],
    },
    // Anthropic: input_tokens is the uncached part.
    Shape {
        markers: &["/cache_read_input_tokens", "/cache_creation_input_tokens"],
        prompt: &["/input_tokens", "/cache_read_input_tokens", "/cache_creation_input_tokens"],
        completion: Some("/output_tokens"),
        cached: &["/cache_read_input_tokens"],
        cache_write: &["/cache_creation_input_tokens"],
        reasoning: &[],
    },
    // OpenAI Responses.
    Shape {
        markers: &["/input_tokens"],
        prompt: &["/input_tokens"],
        completion: Some("/output_tokens"),
        cached: &["/input_tokens_details/cached_tokens"],
        cache_write: &[],
        reasoning: &["/output_tokens_details/reasoning_tokens"],
    },
    Shape {
        markers: &["/promptTokens"],
        prompt: &["/promptTokens"],
        completion: None,
        cached: &["/cachedPromptTokens"],
        cache_write: &[],
        reasoning: &[],
    },
];

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
    let present = |p: &&str| value.pointer(p).is_some_and(|v| !v.is_null());
    let shape =
        SHAPES.iter().find(|s| s.markers.iter().any(present)).ok_or_else(|| MemoryError::input("usage", "no token counts found"))?;
    let (head, tail) = shape.prompt.split_first().ok_or_else(|| MemoryError::input("usage", "no token counts found"))?;
    let mut prompt = required(value, head)?;
    for p in tail {
        prompt += count(value, p)?.unwrap_or(0);
    }
    let completion = match shape.completion {
        Some(p) => match count(value, p)? {
            Some(n) => n,
            // An embeddings response reports input only: its total is its prompt.
            None if count(value, "/total_tokens")? == Some(prompt) => 0,
            None => return Err(MemoryError::input(path(p), "missing")),
        },
        None => count(value, "/completionTokens")?.unwrap_or(0),
    };
    let usage = Usage {
        prompt_tokens: prompt,
        completion_tokens: completion,
        cached_prompt_tokens: first(value, shape.cached)?,
        cache_write_tokens: first(value, shape.cache_write)?,
        reasoning_tokens: first(value, shape.reasoning)?,
    };
    usage.validate()?;
    Ok(Reported { usage, model })
}

/// `usage.a.b` for the pointer `/a/b`.
fn path(pointer: &str) -> String {
    format!("usage{}", pointer.replace('/', "."))
}

/// A count that may be absent or null.
fn count(value: &Value, pointer: &str) -> Result<Option<u64>> {
    match value.pointer(pointer) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v.as_f64() {
            Some(n) if n >= 0.0 && n.fract() == 0.0 && n <= 9_007_199_254_740_991.0 => Ok(Some(n as u64)),
            _ => Err(MemoryError::input(path(pointer), format!("expected a non-negative whole number, got {}", crate::json::text(v)))),
        },
    }
}

fn required(value: &Value, pointer: &str) -> Result<u64> {
    count(value, pointer)?.ok_or_else(|| MemoryError::input(path(pointer), "missing"))
}

fn first(value: &Value, pointers: &[&str]) -> Result<u64> {
    for p in pointers {
        if let Some(n) = count(value, p)? {
            return Ok(n);
        }
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn usage(v: Value) -> Usage {
        read(&v).unwrap().usage
    }

    fn u(prompt: u64, completion: u64, cached: u64, write: u64, reasoning: u64) -> Usage {
        Usage {
            prompt_tokens: prompt,
            completion_tokens: completion,
            cached_prompt_tokens: cached,
            cache_write_tokens: write,
            reasoning_tokens: reasoning,
        }
    }

    #[test]
    fn the_charged_model_is_the_callers_then_the_objects_then_the_controllers() {
        let named = || read(&json!({"model": "gpt-4o-mini", "usage": {"prompt_tokens": 1, "completion_tokens": 1}})).unwrap();
        let bare = read(&json!({"prompt_tokens": 1, "completion_tokens": 1})).unwrap();
        assert_eq!(named().charged_model(Some("o3".into()), "gpt-4o"), "o3");
        assert_eq!(named().charged_model(None, "gpt-4o"), "gpt-4o-mini");
        assert_eq!({ bare }.charged_model(None, "gpt-4o"), "gpt-4o");
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
        assert_eq!(
            usage(json!({"inputTokens": 10, "outputTokens": 5, "totalTokens": 15, "cachedInputTokens": 4, "reasoningTokens": 2})),
            u(10, 5, 4, 0, 2)
        );
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
        let reply = read(&json!({"id": "chatcmpl-1", "model": "gpt-4o-2024-08-06", "usage": {"prompt_tokens": 3, "completion_tokens": 1}}))
            .unwrap();
        assert_eq!((reply.usage, reply.model.as_deref()), (u(3, 1, 0, 0, 0), Some("gpt-4o-2024-08-06")));
    }

    #[test]
    fn bad_counts_are_errors_naming_the_field() {
        let err = |v: Value| read(&v).unwrap_err().to_string();
        assert!(err(json!({"prompt_tokens": -1, "completion_tokens": 1})).contains("usage.prompt_tokens"));
        assert!(err(json!({"prompt_tokens": 1.5, "completion_tokens": 1})).contains("usage.prompt_tokens"));
        assert!(err(json!({"prompt_tokens": 10})).contains("usage.completion_tokens"));
        assert!(err(json!({"inputTokens": 10})).contains("usage.outputTokens"));
        assert!(err(json!({"input_tokens": 1, "output_tokens": 1, "input_tokens_details": {"cached_tokens": "x"}}))
            .contains("usage.input_tokens_details.cached_tokens"));
        assert!(err(json!({"tokens": 3})).contains("no token counts"));
        assert!(err(json!({"prompt_tokens": 1, "completion_tokens": 1, "prompt_tokens_details": {"cached_tokens": 2}})).contains("cached"));
        assert_eq!(read(&json!("x")).unwrap_err().code(), "INVALID_INPUT");
    }
}
