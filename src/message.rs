//! Messages in the OpenAI chat shape, and their validation.
//!
//! Invariants: a `Message` that exists has passed `Message::parse`: its role
//! is known, its content has the right type for its role, tool calls only
//! appear on assistant messages and tool results carry a `tool_call_id`.
//! Whether a tool result answers a pending call is checked by the window,
//! which knows the pending calls.
//!
//! A message is kept as the client returned it: fields beyond the five the
//! controller reads (`refusal`, `annotations`, `reasoning_content`, fields a
//! provider adds next month) stay in `extra`, and inside a tool call in its
//! own `extra`. What goes back to an API is decided in `wire`, not here.

use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::error::{MemoryError, Result};

/// Who wrote a message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    Developer,
    User,
    Assistant,
    Tool,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::Developer => "developer",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }

    fn parse(s: &str) -> Result<Role> {
        Ok(match s {
            "system" => Role::System,
            "developer" => Role::Developer,
            "user" => Role::User,
            "assistant" => Role::Assistant,
            "tool" => Role::Tool,
            other => return Err(MemoryError::InvalidRole(other.to_string())),
        })
    }

    /// System and developer messages are instructions: pinned, never compacted.
    pub fn is_instruction(self) -> bool {
        matches!(self, Role::System | Role::Developer)
    }
}

/// A function call requested by the assistant.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolCall {
    pub id: String,
    /// "function", or "custom" (a free-form tool: `function.arguments`
    /// holds its `input`, and it serializes back as `custom: { name, input }`).
    pub kind: String,
    pub function: FunctionCall,
    /// Other fields of the call as the provider sent them (`index`, `extra_content`).
    pub extra: Map<String, Value>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FunctionCall {
    pub name: String,
    pub arguments: String,
}

/// One chat message: the fields the controller reads, plus every other
/// field it arrived with. Serialized by hand (known fields, then `extra`),
/// and read back through [`Message::parse`]: serde's `flatten` would cost
/// the wasm about 10 KB gzip.
#[derive(Clone, Debug, PartialEq)]
pub struct Message {
    pub role: Role,
    /// A string, an array of content parts, or null (assistant with tool calls, a refusal or audio).
    pub content: Value,
    pub name: Option<String>,
    pub tool_calls: Option<Vec<ToolCall>>,
    pub tool_call_id: Option<String>,
    /// Every other field, as given (`refusal`, `annotations`, `audio`,
    /// `reasoning_content`, …). Kept and returned by `history`; `wire`
    /// decides which are sent back.
    pub extra: Map<String, Value>,
}

impl Serialize for ToolCall {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(3 + self.extra.len()))?;
        map.serialize_entry("id", &self.id)?;
        map.serialize_entry("type", &self.kind)?;
        if self.kind == "custom" {
            map.serialize_entry("custom", &serde_json::json!({ "name": self.function.name, "input": self.function.arguments }))?;
        } else {
            map.serialize_entry("function", &self.function)?;
        }
        for (k, v) in &self.extra {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl Serialize for Message {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("role", &self.role)?;
        map.serialize_entry("content", &self.content)?;
        if let Some(name) = &self.name {
            map.serialize_entry("name", name)?;
        }
        if let Some(calls) = &self.tool_calls {
            map.serialize_entry("tool_calls", calls)?;
        }
        if let Some(id) = &self.tool_call_id {
            map.serialize_entry("tool_call_id", id)?;
        }
        for (k, v) in &self.extra {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        Message::parse(&Value::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

/// Fields the controller reads; everything else on a message is `extra`.
const KNOWN: &[&str] = &["role", "content", "name", "tool_calls", "tool_call_id"];

/// Extra fields with a known type: a wrong type is refused, so a typo'd
/// client cannot store something the API would reject later.
const TYPED_EXTRA: &[(&str, &str)] = &[
    ("refusal", "a string"),
    ("reasoning_content", "a string"),
    ("reasoning", "a string"),
    ("audio", "an object"),
    ("function_call", "an object"),
    ("annotations", "an array"),
    ("reasoning_details", "an array"),
];

/// Content part types the chat API accepts. Others are rejected, not dropped.
const PART_TYPES: &[&str] = &["text", "image_url", "input_audio", "file", "refusal"];

impl Message {
    /// A plain text message.
    pub fn text(role: Role, content: impl Into<String>) -> Message {
        Message { role, content: Value::String(content.into()), name: None, tool_calls: None, tool_call_id: None, extra: Map::new() }
    }

    /// Parse and validate a message given as JSON text.
    ///
    /// # Errors
    /// `LONE_SURROGATE` for a lone UTF-16 surrogate escape (what JSON.stringify
    /// emits for one), `INVALID_ROLE`, `INVALID_CONTENT`, `INVALID_INPUT` for any
    /// other shape error.
    pub fn parse_json(json: &str) -> Result<Message> {
        let value: Value = crate::json::from_str(json).map_err(|e| MemoryError::from_json(&e, "message"))?;
        Message::parse(&value)
    }

    /// Validate a message given as a JSON value.
    ///
    /// # Errors
    /// See [`Message::parse_json`].
    pub fn parse(value: &Value) -> Result<Message> {
        let obj = value.as_object().ok_or_else(|| MemoryError::input("message", "expected an object"))?;
        let role = match obj.get("role") {
            Some(Value::String(s)) => Role::parse(s)?,
            Some(_) => return Err(MemoryError::input("message.role", "expected a string")),
            None => return Err(MemoryError::input("message.role", "missing")),
        };
        let mut extra = Map::new();
        for (key, value) in obj.iter().filter(|(k, _)| !KNOWN.contains(&k.as_str())) {
            check_extra(key, value)?;
            extra.insert(key.clone(), value.clone());
        }
        let name = opt_string(obj.get("name"), "message.name")?;
        let tool_call_id = opt_string(obj.get("tool_call_id"), "message.tool_call_id")?;
        let tool_calls = match obj.get("tool_calls") {
            None | Some(Value::Null) => None,
            Some(v) if role == Role::Assistant => Some(parse_tool_calls(v)?),
            Some(_) => return Err(MemoryError::input("message.tool_calls", "only assistant messages carry tool_calls")),
        };
        let content = obj.get("content").cloned().unwrap_or(Value::Null);
        // What lets an assistant message go without content: the API returns
        // `content: null` beside tool calls, a refusal or audio.
        let has_other_body = tool_calls.as_ref().is_some_and(|c| !c.is_empty())
            || ["refusal", "audio", "function_call"].iter().any(|k| extra.get(*k).is_some_and(|v| !v.is_null()));
        check_content(role, &content, has_other_body)?;
        match (role, &tool_call_id) {
            (Role::Tool, None) => return Err(MemoryError::input("message.tool_call_id", "a tool message needs tool_call_id")),
            (Role::Tool, Some(id)) if id.is_empty() => return Err(MemoryError::input("message.tool_call_id", "empty")),
            (r, Some(_)) if r != Role::Tool => {
                return Err(MemoryError::input("message.tool_call_id", "only tool messages carry tool_call_id"))
            }
            _ => {}
        }
        let tool_calls = tool_calls.filter(|c| !c.is_empty());
        Ok(Message { role, content, name, tool_calls, tool_call_id, extra })
    }

    /// The text a model reads from the content: the string, or the text (and
    /// refusal) parts joined by newlines. Non-text parts contribute nothing.
    pub fn content_text(&self) -> String {
        match &self.content {
            Value::String(s) => s.clone(),
            Value::Array(parts) => {
                let texts: Vec<&str> =
                    parts.iter().filter_map(|p| p.get("text").or_else(|| p.get("refusal")).and_then(Value::as_str)).collect();
                texts.join("\n")
            }
            _ => String::new(),
        }
    }

    /// What search indexes of this message: its text and its tool calls'
    /// names and arguments; `None` for instructions, which are not searched.
    pub fn search_text(&self) -> Option<String> {
        if self.role.is_instruction() {
            return None;
        }
        let mut text = self.content_text();
        for call in self.tool_calls.iter().flatten() {
            text.push_str(&format!(" {} {}", call.function.name, call.function.arguments));
        }
        Some(text)
    }

    /// Image parts in the content (each billed a fixed amount, see tokens::chat).
    pub fn image_parts(&self) -> usize {
        match &self.content {
            Value::Array(parts) => parts.iter().filter(|p| p.get("type").and_then(Value::as_str) == Some("image_url")).count(),
            _ => 0,
        }
    }

    // Cannot fail: a Message is strings, numbers and `serde_json::Value`s,
    // whose maps have string keys.
    pub fn to_json(&self) -> String {
        crate::json::infallible(serde_json::to_string(self))
    }
}

fn check_extra(key: &str, value: &Value) -> Result<()> {
    match TYPED_EXTRA.iter().find(|(k, _)| *k == key) {
        Some((_, want)) if !value.is_null() && json_type(value) != *want => {
            Err(MemoryError::input(format!("message.{key}"), format!("expected {want} or null, got {}", json_type(value))))
        }
        _ => Ok(()),
    }
}

fn opt_string(v: Option<&Value>, path: &str) -> Result<Option<String>> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(MemoryError::input(path, "expected a string")),
    }
}

fn parse_tool_calls(v: &Value) -> Result<Vec<ToolCall>> {
    let arr = v.as_array().ok_or_else(|| MemoryError::input("message.tool_calls", "expected an array"))?;
    let mut calls = Vec::with_capacity(arr.len());
    for (i, c) in arr.iter().enumerate() {
        let path = format!("message.tool_calls[{i}]");
        let call = parse_tool_call(c, &path)?;
        if call.id.is_empty() {
            return Err(MemoryError::input(format!("{path}.id"), "empty"));
        }
        if call.function.name.is_empty() {
            return Err(MemoryError::input(format!("{path}.{}.name", call.kind), "empty"));
        }
        if calls.iter().any(|c: &ToolCall| c.id == call.id) {
            return Err(MemoryError::input(format!("{path}.id"), "duplicate tool call id"));
        }
        calls.push(call);
    }
    Ok(calls)
}

fn parse_tool_call(c: &Value, path: &str) -> Result<ToolCall> {
    let obj = c.as_object().ok_or_else(|| MemoryError::input(path, "expected an object"))?;
    let text = |pointer: &str| match c.pointer(pointer) {
        Some(Value::String(s)) => Ok(s.clone()),
        _ => Err(MemoryError::input(format!("{path}{}", pointer.replace('/', ".")), "expected a string")),
    };
    // A custom tool's call (GPT-5's free-form tools) carries `custom: { name, input }`.
    let (kind, body, args) = match obj.get("type").and_then(Value::as_str) {
        Some("function") => ("function", "/function/name", "/function/arguments"),
        Some("custom") => ("custom", "/custom/name", "/custom/input"),
        _ => return Err(MemoryError::input(format!("{path}.type"), "expected \"function\" or \"custom\"")),
    };
    // Extended, not collected: `Map::from_iter` sorts its input (a sort
    // instance of its own), and `obj`'s keys are distinct and in order.
    let mut extra = Map::new();
    extra.extend(
        obj.iter().filter(|(k, _)| !matches!(k.as_str(), "id" | "type" | "function" | "custom")).map(|(k, v)| (k.clone(), v.clone())),
    );
    Ok(ToolCall { id: text("/id")?, kind: kind.into(), function: FunctionCall { name: text(body)?, arguments: text(args)? }, extra })
}

fn check_content(role: Role, content: &Value, has_other_body: bool) -> Result<()> {
    match content {
        Value::String(_) => Ok(()),
        Value::Null if role == Role::Assistant && has_other_body => Ok(()),
        Value::Null => Err(MemoryError::content(
            "message.content",
            "missing; only an assistant message with tool_calls, a refusal or audio may omit it",
        )),
        Value::Array(parts) => {
            for (i, part) in parts.iter().enumerate() {
                let path = format!("message.content[{i}]");
                let kind = part
                    .get("type")
                    .and_then(Value::as_str)
                    .ok_or_else(|| MemoryError::content(&path, "a content part needs a string \"type\""))?;
                if !PART_TYPES.contains(&kind) {
                    return Err(MemoryError::content(&path, format!("unknown part type {kind:?}")));
                }
                if kind == "text" && !part.get("text").is_some_and(Value::is_string) {
                    return Err(MemoryError::content(format!("{path}.text"), "expected a string"));
                }
                if kind != "text" && kind != "refusal" && matches!(role, Role::System | Role::Developer | Role::Tool) {
                    return Err(MemoryError::content(&path, format!("a {} message takes text parts only", role.as_str())));
                }
            }
            Ok(())
        }
        other => Err(MemoryError::content("message.content", format!("expected a string or an array of parts, got {}", json_type(other)))),
    }
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(json: &str) -> &'static str {
        Message::parse_json(json).unwrap_err().code()
    }

    #[test]
    fn accepts_the_openai_shapes() {
        Message::parse_json(r#"{"role":"user","content":"hi","name":"ann"}"#).unwrap();
        Message::parse_json(r#"{"role":"user","content":[{"type":"text","text":"a"},{"type":"image_url","image_url":{"url":"x"}}]}"#)
            .unwrap();
        let m = Message::parse_json(
            r#"{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]}"#,
        )
        .unwrap();
        assert_eq!(m.tool_calls.unwrap()[0].id, "c1");
        Message::parse_json(r#"{"role":"tool","tool_call_id":"c1","content":"42"}"#).unwrap();
        Message::parse_json(r#"{"role":"developer","content":"be brief"}"#).unwrap();
    }

    #[test]
    fn rejects_bad_input_with_stable_codes() {
        assert_eq!(code(r#"{"role":"robot","content":"x"}"#), "INVALID_ROLE");
        assert_eq!(code(r#"{"role":"user","content":42}"#), "INVALID_CONTENT");
        assert_eq!(code(r#"{"role":"user","content":{"text":"x"}}"#), "INVALID_CONTENT");
        assert_eq!(code(r#"{"role":"user"}"#), "INVALID_CONTENT");
        assert_eq!(code(r#"{"role":"user","content":[{"type":"video","x":1}]}"#), "INVALID_CONTENT");
        assert_eq!(code(r#"{"role":"user","content":"\ud800 alone"}"#), "LONE_SURROGATE");
        assert_eq!(code(r#"{"role":"user","content":"end \ud800"}"#), "LONE_SURROGATE");
        assert_eq!(code(r#"{"role":"user","content":"\udc00 trailing"}"#), "LONE_SURROGATE");
        assert_eq!(code(r#"{"role":"user","content":"x","tool_call_id":"c"}"#), "INVALID_INPUT");
        assert_eq!(code(r#"{"role":"tool","content":"x"}"#), "INVALID_INPUT");
        assert_eq!(code(r#"{"role":"assistant","content":"x","refusal":42}"#), "INVALID_INPUT");
        assert_eq!(code(r#"{"role":"assistant","content":"x","reasoning_content":["a"]}"#), "INVALID_INPUT");
        assert_eq!(code(r#"{"role":"assistant","content":null,"refusal":null}"#), "INVALID_CONTENT");
        assert_eq!(code(r#"{"role":"assistant","content":"x","future":"\ud800"}"#), "LONE_SURROGATE");
        assert_eq!(code(r#"["user"]"#), "INVALID_INPUT");
        assert_eq!(
            code(
                r#"{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"c","type":"function","function":{"name":"g","arguments":"{}"}}]}"#
            ),
            "INVALID_INPUT"
        );
    }

    #[test]
    fn keeps_every_field_a_client_returns() {
        // The openai client's message, DeepSeek's reasoner, an OpenRouter-style gateway, a field from the future.
        let json = r#"{"role":"assistant","content":"hi","refusal":null,"annotations":[],"audio":null,"function_call":null,
            "reasoning_content":"think","reasoning":"r","reasoning_details":[{"type":"reasoning.text","text":"r"}],"future":{"x":1},
            "tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"},"index":0,"extra_content":{"google":{"thought_signature":"s"}}}]}"#;
        let m = Message::parse_json(json).unwrap();
        assert_eq!(m.extra.len(), 8);
        let back: Value = serde_json::from_str(&m.to_json()).unwrap();
        assert_eq!(back, serde_json::from_str::<Value>(json).unwrap(), "stored and given back as given");
        assert_eq!(m.tool_calls.unwrap()[0].extra.len(), 2);
    }

    #[test]
    fn custom_tool_calls_round_trip() {
        let json =
            r#"{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"custom","custom":{"name":"sql","input":"select 1"}}]}"#;
        let m = Message::parse_json(json).unwrap();
        assert_eq!(m.tool_calls.as_ref().unwrap()[0].function.arguments, "select 1");
        assert_eq!(serde_json::from_str::<Value>(&m.to_json()).unwrap(), serde_json::from_str::<Value>(json).unwrap());
        assert_eq!(code(r#"{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"web","web":{}}]}"#), "INVALID_INPUT");
    }

    #[test]
    fn a_refusal_or_audio_may_stand_without_content() {
        Message::parse_json(r#"{"role":"assistant","content":null,"refusal":"I can't help with that."}"#).unwrap();
        Message::parse_json(
            r#"{"role":"assistant","content":null,"audio":{"id":"audio_1","data":"UklG","expires_at":1,"transcript":"hi"}}"#,
        )
        .unwrap();
        assert_eq!(code(r#"{"role":"user","content":null,"refusal":"x"}"#), "INVALID_CONTENT");
    }

    #[test]
    fn paired_surrogates_are_fine() {
        let m = Message::parse_json(r#"{"role":"user","content":"\ud83d\ude00"}"#).unwrap();
        assert_eq!(m.content_text(), "😀");
    }
}
