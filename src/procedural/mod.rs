//! Procedural memory: behaviour rules and tool definitions, validated on
//! entry.
//!
//! Invariants: a `Procedures` that exists has passed [`Procedures::parse`].
//! Every rule text is non-empty and trimmed; a rule's task, when set, is
//! non-empty. Every tool is normalized to `{type: "function", function:
//! {name, description?, parameters?, strict?}}` (the shape
//! `tokens::chat::tools_tokens` counts and chat.completions accepts), names
//! match `^[a-zA-Z0-9_-]{1,64}$` and are unique, and `parameters`, when
//! present, is an object schema that passed [`check_parameters`].
//! Rules keep the order they were given in, and the rendered rules text is a
//! function of the rules and the task alone: byte-identical across calls
//! while they are unchanged, so it stays in the cached prompt prefix.

mod schema;

pub use schema::{check_parameters, MAX_DEPTH};

use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::error::{MemoryError, Result};

/// A behaviour rule: short text, optionally only for one task.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Rule {
    pub text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
}

/// Validated rules and tools (OpenAI function tool definitions, normalized).
/// Serializes to a value `parse` accepts back unchanged, so it can be stored
/// as JSON and validated again on load.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Procedures {
    pub rules: Vec<Rule>,
    pub tools: Vec<Value>,
}

impl Procedures {
    /// Parses `{ rules?: (string | { text, task? })[], tools?: ToolDefinition[] }`.
    /// A tool is `{type: "function", function: {…}}` or the flat
    /// `{type?: "function", name, description?, parameters?, strict?}`;
    /// `null` counts as absent for every optional field.
    ///
    /// # Errors
    /// - `INVALID_INPUT` naming the path (`rules[2].text`,
    ///   `tools[1].function.name`) for a value of the wrong shape, an unknown
    ///   field, an empty rule text or task, a tool name not matching
    ///   `^[a-zA-Z0-9_-]{1,64}$`, or a duplicate tool name.
    /// - `INVALID_TOOL_SCHEMA` naming the tool and the path
    ///   (`parameters.properties.unit.enum`) when `parameters` is not a valid
    ///   object schema (see [`check_parameters`]).
    pub fn parse(v: &Value) -> Result<Procedures> {
        let obj = v.as_object().ok_or_else(|| MemoryError::input("procedures", "expected an object { rules?, tools? }"))?;
        if let Some(key) = obj.keys().find(|k| !matches!(k.as_str(), "rules" | "tools")) {
            return Err(MemoryError::input(key.as_str(), "unknown field; expected rules or tools"));
        }
        let rules =
            array(obj, "rules")?.iter().enumerate().map(|(i, r)| parse_rule(r, &format!("rules[{i}]"))).collect::<Result<Vec<_>>>()?;
        let mut tools: Vec<Value> = Vec::new();
        for (i, t) in array(obj, "tools")?.iter().enumerate() {
            let (tool, name_path) = parse_tool(t, &format!("tools[{i}]"))?;
            let name = tool.pointer("/function/name").unwrap_or(&Value::Null);
            if let Some(j) = tools.iter().position(|seen| seen.pointer("/function/name") == Some(name)) {
                return Err(MemoryError::input(name_path, format!("duplicate tool name {} (also tools[{j}])", crate::json::text(name))));
            }
            tools.push(tool);
        }
        Ok(Procedures { rules, tools })
    }

    /// Rules that apply for `task`, in order: untagged rules always, tagged
    /// ones only when `task` is their task.
    pub fn rules_for(&self, task: Option<&str>) -> Vec<&Rule> {
        self.rules.iter().filter(|r| r.task.is_none() || r.task.as_deref() == task).collect()
    }

    /// The system-message text for the rules that apply for `task`:
    /// `"Rules:\n1. …\n2. …"`, or empty when none apply. Deterministic.
    pub fn rules_text(&self, task: Option<&str>) -> String {
        let rules = self.rules_for(task);
        if rules.is_empty() {
            return String::new();
        }
        let mut out = String::from("Rules:");
        for (i, r) in rules.iter().enumerate() {
            out.push_str(&format!("\n{}. {}", i + 1, r.text));
        }
        out
    }

    /// True when there are neither rules nor tools.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty() && self.tools.is_empty()
    }
}

/// A field that must be an array when present; absent and `null` are empty.
fn array<'a>(obj: &'a Map<String, Value>, key: &str) -> Result<&'a [Value]> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(a)) => Ok(a),
        Some(_) => Err(MemoryError::input(key, "expected an array")),
    }
}

/// An optional string field; absent and `null` are `None`.
fn opt_str<'a>(obj: &'a Map<String, Value>, key: &str, path: &str) -> Result<Option<&'a str>> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(MemoryError::input(format!("{path}.{key}"), "expected a string")),
    }
}

fn only_fields(obj: &Map<String, Value>, allowed: &[&str], path: &str) -> Result<()> {
    match obj.keys().find(|k| !allowed.contains(&k.as_str())) {
        Some(k) => Err(MemoryError::input(format!("{path}.{k}"), format!("unknown field; expected {}", allowed.join(", ")))),
        None => Ok(()),
    }
}

fn parse_rule(v: &Value, path: &str) -> Result<Rule> {
    let (text, task, text_path) = match v {
        Value::String(s) => (s.as_str(), None, path.to_string()),
        Value::Object(obj) => {
            only_fields(obj, &["text", "task"], path)?;
            let text = opt_str(obj, "text", path)?.ok_or_else(|| MemoryError::input(format!("{path}.text"), "missing"))?;
            let task = opt_str(obj, "task", path)?;
            if task == Some("") {
                return Err(MemoryError::input(format!("{path}.task"), "empty; omit it for a rule that always applies"));
            }
            (text, task, format!("{path}.text"))
        }
        _ => return Err(MemoryError::input(path, "expected a string or { text, task? }")),
    };
    let text = text.trim();
    if text.is_empty() {
        return Err(MemoryError::input(text_path, "empty rule text"));
    }
    Ok(Rule { text: text.to_string(), task: task.map(str::to_string) })
}

/// A normalized tool and the path of its name (for the duplicate check).
fn parse_tool(v: &Value, path: &str) -> Result<(Value, String)> {
    let obj = v.as_object().ok_or_else(|| MemoryError::input(path, "expected a tool definition object"))?;
    match obj.get("type") {
        None | Some(Value::Null) => {}
        Some(Value::String(t)) if t == "function" => {}
        Some(Value::String(t)) => {
            return Err(MemoryError::input(format!("{path}.type"), format!("only \"function\" tools are supported, got {t:?}")))
        }
        Some(_) => return Err(MemoryError::input(format!("{path}.type"), "expected \"function\"")),
    }
    let (f, fpath) = match obj.get("function") {
        Some(Value::Object(f)) => {
            only_fields(obj, &["type", "function"], path)?;
            only_fields(f, &["name", "description", "parameters", "strict"], &format!("{path}.function"))?;
            (f, format!("{path}.function"))
        }
        Some(_) => return Err(MemoryError::input(format!("{path}.function"), "expected an object")),
        // The flat shape of the Responses API and the legacy `functions` list.
        None => {
            only_fields(obj, &["type", "name", "description", "parameters", "strict"], path)?;
            (obj, path.to_string())
        }
    };
    let name_path = format!("{fpath}.name");
    let name = opt_str(f, "name", &fpath)?.ok_or_else(|| MemoryError::input(&name_path, "missing"))?;
    if name.len() > 64 {
        return Err(MemoryError::input(&name_path, format!("{} bytes long; at most 64", name.len())));
    }
    if !valid_name(name) {
        return Err(MemoryError::input(&name_path, format!("{name:?} must match ^[a-zA-Z0-9_-]{{1,64}}$")));
    }
    let mut function = Map::new();
    function.insert("name".into(), Value::from(name));
    if let Some(d) = opt_str(f, "description", &fpath)? {
        function.insert("description".into(), Value::from(d));
    }
    let strict = match f.get("strict") {
        None | Some(Value::Null) => None,
        Some(Value::Bool(b)) => Some(*b),
        Some(_) => return Err(MemoryError::input(format!("{fpath}.strict"), "expected a boolean")),
    };
    match f.get("parameters") {
        None | Some(Value::Null) => {}
        Some(p) => {
            check_parameters(name, p, strict == Some(true))?;
            function.insert("parameters".into(), p.clone());
        }
    }
    if let Some(s) = strict {
        function.insert("strict".into(), Value::Bool(s));
    }
    Ok((json!({ "type": "function", "function": function }), name_path))
}

/// OpenAI's rule for function names: `^[a-zA-Z0-9_-]{1,64}$`.
fn valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_openai_rule() {
        assert!(valid_name("get_weather-v2") && valid_name(&"a".repeat(64)));
        assert!(!valid_name("") && !valid_name(&"a".repeat(65)) && !valid_name("wetter_für_heute") && !valid_name("a.b"));
    }
}
