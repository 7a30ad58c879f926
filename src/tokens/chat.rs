//! Chat-format overhead: what a list of messages (and tool definitions)
//! costs on top of the text in it.
//!
//! Messages follow OpenAI's published rule for current chat models (the
//! openai-cookbook "How to count tokens with tiktoken", read 2025-10): every
//! message costs 3 tokens plus the tokens of each of its string fields, a
//! `name` one more, and every reply is primed with 3. Tool definitions follow
//! the same notebook's `num_tokens_for_tools`. Two parts have no published
//! rule and use this crate's convention, stated here so it can be checked
//! against billed usage: an assistant tool call costs its id, function name
//! and arguments plus 3; an image part costs 85 (the low-detail price); any
//! other field (`refusal`, `reasoning_content`, a provider's extra) costs its
//! text, or its compact JSON when it is not a string. Counted messages are
//! the ones sent (`wire::request_form`), so a field that stays home costs
//! nothing.

use serde_json::Value;

use super::Counter;
use crate::message::Message;

pub const PER_MESSAGE: usize = 3;
pub const PER_NAME: usize = 1;
pub const REPLY_PRIMING: usize = 3;
pub const PER_TOOL_CALL: usize = 3;
pub const PER_IMAGE: usize = 85;

/// Tokens one message costs inside a chat request.
pub fn message_tokens(counter: &Counter, m: &Message) -> usize {
    message_cost(m, &|s: &str| counter.count(s) as f64) as usize
}

/// The same cost with raw (uncalibrated) estimates, for calibration.
pub fn message_raw(counter: &Counter, m: &Message) -> f64 {
    message_cost(m, &|s: &str| counter.raw_estimate(s))
}

fn message_cost(m: &Message, count: &dyn Fn(&str) -> f64) -> f64 {
    let mut n = PER_MESSAGE as f64 + count(m.role.as_str()) + count(&m.content_text());
    n += (m.image_parts() * PER_IMAGE) as f64;
    if let Some(name) = &m.name {
        n += count(name) + PER_NAME as f64;
    }
    if let Some(id) = &m.tool_call_id {
        n += count(id);
    }
    for call in m.tool_calls.iter().flatten() {
        n += PER_TOOL_CALL as f64 + count(&call.id) + count(&call.function.name) + count(&call.function.arguments);
        n += call.extra.values().map(|v| value_cost(v, count)).sum::<f64>();
    }
    n + m.extra.values().map(|v| value_cost(v, count)).sum::<f64>()
}

fn value_cost(v: &Value, count: &dyn Fn(&str) -> f64) -> f64 {
    match v {
        Value::Null => 0.0,
        Value::String(s) => count(s),
        other => count(&crate::json::text(other)),
    }
}

/// Per-encoding constants of the tool-definition rule.
struct ToolRule {
    func_init: i64,
    prop_init: i64,
    prop_key: i64,
    enum_init: i64,
    enum_item: i64,
    func_end: i64,
}

const O200K_TOOLS: ToolRule = ToolRule { func_init: 7, prop_init: 3, prop_key: 3, enum_init: -3, enum_item: 3, func_end: 12 };
const CL100K_TOOLS: ToolRule = ToolRule { func_init: 10, prop_init: 3, prop_key: 3, enum_init: -3, enum_item: 3, func_end: 12 };

/// Tokens a list of tool definitions (`[{type:"function", function:{name,
/// description, parameters}}]`) adds to a request. Zero for no tools.
pub fn tools_tokens(counter: &Counter, tools: &[Value]) -> usize {
    if tools.is_empty() {
        return 0;
    }
    let rule = match counter {
        Counter::Exact(bpe) if bpe.encoding() == super::exact::Encoding::Cl100kBase => &CL100K_TOOLS,
        _ => &O200K_TOOLS,
    };
    let count = |s: &str| counter.count(s) as i64;
    let mut n = 0i64;
    for tool in tools {
        let f = tool.get("function").unwrap_or(tool);
        n += rule.func_init;
        let name = f.get("name").and_then(Value::as_str).unwrap_or("");
        let desc = f.get("description").and_then(Value::as_str).unwrap_or("");
        n += count(&format!("{name}:{}", desc.strip_suffix('.').unwrap_or(desc)));
        let props = f.pointer("/parameters/properties").and_then(Value::as_object);
        if let Some(props) = props.filter(|p| !p.is_empty()) {
            n += rule.prop_init;
            for (key, prop) in props {
                n += rule.prop_key;
                if let Some(items) = prop.get("enum").and_then(Value::as_array) {
                    n += rule.enum_init;
                    for item in items {
                        n += rule.enum_item;
                        n += match item {
                            Value::String(s) => count(s),
                            other => count(&crate::json::text(other)),
                        };
                    }
                }
                let ty = match prop.get("type") {
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => crate::json::text(other),
                    None => String::new(),
                };
                let pdesc = prop.get("description").and_then(Value::as_str).unwrap_or("");
                n += count(&format!("{key}:{ty}:{}", pdesc.strip_suffix('.').unwrap_or(pdesc)));
            }
        }
    }
    n += rule.func_end;
    n.max(0) as usize
}

/// Tokens a whole request costs: messages, reply priming and tools.
pub fn request_tokens(counter: &Counter, messages: &[Message], tools: &[Value]) -> usize {
    messages.iter().map(|m| message_tokens(counter, m)).sum::<usize>() + REPLY_PRIMING + tools_tokens(counter, tools)
}
