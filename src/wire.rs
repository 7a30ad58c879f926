//! What goes back to a chat completions API: the sent form of a stored
//! message, field by field and role by role.
//!
//! A message is stored as the client returned it (see `message`); a request
//! may carry only what the API accepts for the role. Response-only fields
//! (`annotations`, `logprobs`, OpenRouter's plain `reasoning`) are never
//! sent. Reasoning goes back only where today's APIs ask for it: DeepSeek's
//! thinking mode answers HTTP 400 unless every assistant message of a turn
//! that called tools carries its `reasoning_content` (and ignores it
//! elsewhere); OpenRouter takes `reasoning_details` back on the same terms.
//! Token counts are always of the sent form (`tokens::chat` counts every
//! field it finds).

use serde_json::{Map, Value};

use crate::message::{Message, Role, ToolCall};

/// Extra fields an assistant message sends back, and how.
enum Send {
    /// As stored, when not null.
    Always,
    /// As stored, when a string (a null refusal says nothing).
    IfString,
    /// Only the `id` (what the API takes back of an audio reply).
    IdOnly,
    /// As stored, in a turn that called tools.
    ToolTurn,
}

/// Assistant fields beyond role/content/name/tool_calls that a request accepts.
const ASSISTANT: &[(&str, Send)] = &[
    ("refusal", Send::IfString),
    ("audio", Send::IdOnly),
    ("function_call", Send::Always),
    ("reasoning_content", Send::ToolTurn),
    ("reasoning_details", Send::ToolTurn),
];

/// Tool-call fields beyond id/type/function that go back: Gemini's
/// OpenAI-compatible API needs its thought signature returned.
const TOOL_CALL: &[&str] = &["extra_content"];

/// The message as a request sends it. `tool_turn`: an assistant message
/// in a turn (the messages between two user messages) that called tools.
/// `keep`: extra fields the host asked to send as stored.
pub fn request_form(m: &Message, tool_turn: bool, keep: &[String]) -> Message {
    let mut out = Message { extra: Map::new(), ..m.clone() };
    if m.role == Role::Tool {
        out.name = None; // a tool message takes content and tool_call_id only
    }
    if let Some(calls) = &mut out.tool_calls {
        for call in calls.iter_mut() {
            call.extra.retain(|k, _| TOOL_CALL.contains(&k.as_str()) || keep.contains(k));
        }
    }
    for (key, value) in &m.extra {
        let sent = if keep.contains(key) {
            Some(value.clone())
        } else if m.role == Role::Assistant {
            assistant_field(key, value, tool_turn)
        } else {
            None
        };
        if let Some(v) = sent.filter(|v| !v.is_null()) {
            out.extra.insert(key.clone(), v);
        }
    }
    out
}

fn assistant_field(key: &str, value: &Value, tool_turn: bool) -> Option<Value> {
    let (_, rule) = ASSISTANT.iter().find(|(k, _)| *k == key)?;
    match rule {
        Send::Always => Some(value.clone()),
        Send::IfString => value.is_string().then(|| value.clone()),
        Send::IdOnly => value.get("id").map(|id| {
            // Inserted, not collected: `Map::from_iter` sorts its input, a sort instance of its own.
            let mut only = Map::new();
            only.insert("id".to_string(), id.clone());
            Value::Object(only)
        }),
        Send::ToolTurn => tool_turn.then(|| value.clone()),
    }
}

/// Whether a turn (the messages between two user messages) called tools:
/// fed each message in order, it says for the next assistant message
/// whether its reasoning goes back.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Turn {
    called_tools: bool,
}

impl Turn {
    /// Whether `m`, the next message, is an assistant message of a turn that
    /// called tools (itself or an assistant message since the last user message).
    pub fn tool_turn(&self, m: &Message) -> bool {
        m.role == Role::Assistant && (self.called_tools || calls_tools(m))
    }

    /// Takes `m` into account for the messages after it.
    pub fn push(&mut self, m: &Message) {
        if m.role == Role::User {
            self.called_tools = false;
        } else if calls_tools(m) {
            self.called_tools = true;
        }
    }
}

fn calls_tools(m: &Message) -> bool {
    m.tool_calls.as_ref().is_some_and(|c: &Vec<ToolCall>| !c.is_empty()) || m.extra.get("function_call").is_some_and(|f| !f.is_null())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> Message {
        Message::parse_json(json).unwrap()
    }

    fn sent(m: &Message, tool_turn: bool) -> Value {
        serde_json::from_str(&request_form(m, tool_turn, &[]).to_json()).unwrap()
    }

    #[test]
    fn an_openai_reply_goes_back_without_response_only_fields() {
        let m = parse(
            r#"{"role":"assistant","content":"hi","refusal":null,"annotations":[{"type":"url_citation"}],"audio":null,"logprobs":null}"#,
        );
        assert_eq!(sent(&m, false), serde_json::json!({"role":"assistant","content":"hi"}));
    }

    #[test]
    fn reasoning_goes_back_only_in_a_turn_that_called_tools() {
        let m = parse(
            r#"{"role":"assistant","content":"x","reasoning_content":"think","reasoning":"r","reasoning_details":[{"type":"reasoning.text"}]}"#,
        );
        assert_eq!(sent(&m, false), serde_json::json!({"role":"assistant","content":"x"}));
        assert_eq!(
            sent(&m, true),
            serde_json::json!({"role":"assistant","content":"x","reasoning_content":"think","reasoning_details":[{"type":"reasoning.text"}]})
        );
    }

    #[test]
    fn refusal_audio_and_tool_call_fields() {
        let m = parse(
            r#"{"role":"assistant","content":null,"refusal":"no","audio":{"id":"a1","data":"UklG","transcript":"t","expires_at":9}}"#,
        );
        assert_eq!(sent(&m, false), serde_json::json!({"role":"assistant","content":null,"refusal":"no","audio":{"id":"a1"}}));
        let m = parse(
            r#"{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"},"index":0,"extra_content":{"google":{"thought_signature":"s"}}}]}"#,
        );
        assert_eq!(
            sent(&m, true)["tool_calls"][0],
            serde_json::json!({"id":"c","type":"function","function":{"name":"f","arguments":"{}"},"extra_content":{"google":{"thought_signature":"s"}}})
        );
    }

    #[test]
    fn other_roles_send_their_own_fields_only_and_keep_forces_a_field() {
        let m = parse(r#"{"role":"user","content":"x","name":"ann","metadata":{"a":1}}"#);
        assert_eq!(sent(&m, false), serde_json::json!({"role":"user","content":"x","name":"ann"}));
        let kept: Value = serde_json::from_str(&request_form(&m, false, &["metadata".into()]).to_json()).unwrap();
        assert_eq!(kept["metadata"], serde_json::json!({"a":1}));
        let t = parse(r#"{"role":"tool","tool_call_id":"c","content":"1","name":"f"}"#);
        assert_eq!(sent(&t, false), serde_json::json!({"role":"tool","content":"1","tool_call_id":"c"}));
    }

    #[test]
    fn tool_turns_run_from_one_user_message_to_the_next() {
        let log = [
            parse(r#"{"role":"user","content":"q"}"#),
            parse(
                r#"{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]}"#,
            ),
            parse(r#"{"role":"tool","tool_call_id":"c","content":"1"}"#),
            parse(r#"{"role":"assistant","content":"done"}"#),
            parse(r#"{"role":"user","content":"thanks"}"#),
            parse(r#"{"role":"assistant","content":"bye"}"#),
        ];
        let mut turn = Turn::default();
        let flags: Vec<bool> = log
            .iter()
            .map(|m| {
                let t = turn.tool_turn(m);
                turn.push(m);
                t
            })
            .collect();
        assert_eq!(flags, [false, true, false, true, false, false], "only assistant messages of the tool-calling turn");
    }
}
