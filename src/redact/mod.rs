//! Redaction: credentials (and, when the host asks, personal data) are
//! replaced by a typed placeholder, `[redacted:openai-key]`, before a
//! message or fact reaches the controller. What is stored, summarized,
//! embedded, searched and counted into a context is the redacted text, so
//! no later step can leak the value.
//!
//! Invariants: redaction only replaces whole matches inside string values
//! (a message keeps its shape, JSON arguments stay JSON: a placeholder holds
//! no quote or backslash); redacting redacted text finds nothing; the report
//! says which kinds and how many, never a value. Scanners are hand-written
//! over bytes (`credentials`, `personal`): no regex engine in the wasm.
//! Base64 `data:` URLs (images, files) are opaque: nothing inside one is
//! matched, since a random payload contains key-shaped runs.

mod credentials;
mod personal;
mod scan;

use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::Value;

use crate::error::{MemoryError, Result};
use crate::message::Message;
use crate::semantic::RememberInput;
use scan::{at, is_b64, run, starts_ci, Span};

/// What was redacted: placeholder kind → how many, in kind order;
/// serialized as a JSON object. A sorted list, not a `BTreeMap`: it holds
/// a few kinds, and a map's code costs the wasm about 5 KB.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Redacted(Vec<(String, usize)>);

impl Redacted {
    pub fn new() -> Redacted {
        Redacted::default()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How many of `kind`.
    pub fn get(&self, kind: &str) -> Option<usize> {
        self.0.iter().find(|(k, _)| k == kind).map(|&(_, n)| n)
    }

    /// Counts `n` more of `kind`.
    pub fn add(&mut self, kind: &str, n: usize) {
        match self.0.iter().position(|(k, _)| k.as_str() >= kind) {
            Some(i) if self.0.get(i).is_some_and(|(k, _)| k == kind) => {
                if let Some((_, c)) = self.0.get_mut(i) {
                    *c += n;
                }
            }
            Some(i) => self.0.insert(i, (kind.to_string(), n)),
            None => self.0.push((kind.to_string(), n)),
        }
    }

    /// Each kind and its count, in kind order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, usize)> {
        self.0.iter().map(|(k, n)| (k.as_str(), *n))
    }
}

impl Serialize for Redacted {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, n) in &self.0 {
            map.serialize_entry(k, n)?;
        }
        map.end()
    }
}

/// The placeholder a `kind` is replaced by.
pub fn placeholder(kind: &str) -> String {
    format!("[redacted:{kind}]")
}

/// What is redacted. Credentials by default; personal data on request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Policy {
    pub credentials: bool,
    pub personal: bool,
}

impl Default for Policy {
    fn default() -> Self {
        Policy { credentials: true, personal: false }
    }
}

impl Policy {
    /// Nothing redacted (`redact: false`, or a host function that does it).
    pub const OFF: Policy = Policy { credentials: false, personal: false };

    /// The policy of a `redact` option: `true`/absent (credentials),
    /// `false` (nothing), or `{ credentials?, personal? }`.
    ///
    /// # Errors
    /// `INVALID_INPUT` for any other value or key.
    pub fn from_value(value: &Value) -> Result<Policy> {
        let bad = |why: &str| MemoryError::input("options.redact", why);
        match value {
            Value::Null | Value::Bool(true) => Ok(Policy::default()),
            Value::Bool(false) => Ok(Policy::OFF),
            Value::Object(o) => {
                let mut p = Policy::default();
                for (k, v) in o {
                    let flag = match v {
                        Value::Bool(f) => *f,
                        Value::Null => continue,
                        _ => return Err(bad(&format!("{k}: expected true or false"))),
                    };
                    match k.as_str() {
                        "credentials" => p.credentials = flag,
                        "personal" => p.personal = flag,
                        _ => return Err(bad(&format!("unknown option {k:?} (expected credentials, personal)"))),
                    }
                }
                Ok(p)
            }
            _ => Err(bad("expected true, false, { personal?: boolean, credentials?: boolean } or a function")),
        }
    }

    /// The matches in `text` this policy redacts: sorted, not overlapping
    /// (an earlier match wins, then a longer one).
    pub fn spans(&self, text: &str) -> Vec<Span> {
        let b = text.as_bytes();
        let mut found = Vec::new();
        if self.credentials {
            credentials::find(b, &mut found);
        }
        if self.personal {
            personal::find(b, &mut found);
        }
        if found.is_empty() {
            return found;
        }
        let opaque = data_urls(b);
        found.retain(|s| !opaque.iter().any(|&(a, z)| s.start < z && a < s.end));
        // Few matches per text: an insertion sort, not the standard sort
        // (about 10 KB of wasm; see `Controller::others`).
        let mut sorted: Vec<Span> = Vec::with_capacity(found.len());
        for s in found {
            let at = sorted.iter().position(|k| (k.start, usize::MAX - k.end) > (s.start, usize::MAX - s.end)).unwrap_or(sorted.len());
            sorted.insert(at, s);
        }
        let mut kept: Vec<Span> = Vec::with_capacity(sorted.len());
        for s in sorted {
            if kept.last().is_none_or(|k| s.start >= k.end) {
                kept.push(s);
            }
        }
        kept
    }

    /// `text` with every match replaced, counted into `report`; `None` when
    /// nothing matched.
    pub fn text(&self, text: &str, report: &mut Redacted) -> Option<String> {
        let spans = self.spans(text);
        if spans.is_empty() {
            return None;
        }
        let mut out = String::with_capacity(text.len());
        let mut from = 0;
        for s in spans {
            out.push_str(text.get(from..s.start)?);
            out.push_str(&placeholder(s.kind));
            report.add(s.kind, 1);
            from = s.end;
        }
        out.push_str(text.get(from..)?);
        Some(out)
    }

    /// Redacts every text of `message` in place (see [`message_texts`]).
    pub fn message(&self, message: &mut Message) -> Redacted {
        let mut report = Redacted::new();
        if *self != Policy::OFF {
            for s in message_texts(message) {
                if let Some(r) = self.text(s, &mut report) {
                    *s = r;
                }
            }
        }
        report
    }

    /// Redacts the text of a fact, preference or document in place.
    pub fn remember(&self, input: &mut RememberInput) -> Redacted {
        let mut report = Redacted::new();
        if let Some(r) = self.text(&input.text, &mut report) {
            input.text = r;
        }
        report
    }
}

/// The texts of a message that may hold what a user pasted: content
/// (a string or every string of its parts), tool-call arguments (a tool
/// result is a `tool` message's content), and every other field's strings
/// (`reasoning_content`, `refusal`, …). Not the structure: role, ids,
/// names, part types.
pub fn message_texts(m: &mut Message) -> Vec<&mut String> {
    let mut out = Vec::new();
    strings(&mut m.content, &mut out);
    for call in m.tool_calls.iter_mut().flatten() {
        out.push(&mut call.function.arguments);
        for v in call.extra.values_mut() {
            strings(v, &mut out);
        }
    }
    for (k, v) in m.extra.iter_mut() {
        if !STRUCTURE.contains(&k.as_str()) {
            strings(v, &mut out);
        }
    }
    out
}

/// Keys whose values name or type things rather than hold text.
const STRUCTURE: [&str; 8] = ["type", "id", "name", "role", "tool_call_id", "detail", "format", "file_id"];

fn strings<'a>(v: &'a mut Value, out: &mut Vec<&'a mut String>) {
    match v {
        Value::String(s) => out.push(s),
        Value::Array(a) => a.iter_mut().for_each(|x| strings(x, out)),
        Value::Object(o) => o.iter_mut().filter(|(k, _)| !STRUCTURE.contains(&k.as_str())).for_each(|(_, x)| strings(x, out)),
        _ => {}
    }
}

/// Counts the placeholders `after` holds beyond those `before` held, by
/// kind: what a host's own redaction function did, reported as ours is.
pub fn count_new_placeholders(before: &str, after: &str, report: &mut Redacted) {
    let had = placeholders(before);
    for (kind, n) in placeholders(after).iter() {
        let new = n.saturating_sub(had.get(kind).unwrap_or(0));
        if new > 0 {
            report.add(kind, new);
        }
    }
}

/// `[redacted:KIND]` occurrences by kind (a kind: letters, digits, `-`, `_`).
fn placeholders(text: &str) -> Redacted {
    let mut out = Redacted::new();
    let b = text.as_bytes();
    for (i, _) in text.match_indices("[redacted:") {
        let from = i + 10;
        let end = run(b, from, scan::is_b64url);
        if end > from && at(b, end) == b']' {
            if let Some(kind) = text.get(from..end) {
                out.add(kind, 1);
            }
        }
    }
    out
}

/// Byte ranges of base64 `data:` URLs (`data:image/png;base64,…`).
fn data_urls(b: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(p) = b.get(i..).and_then(|rest| rest.windows(5).position(|w| w.eq_ignore_ascii_case(b"data:"))) {
        let start = i + p;
        let media = run(b, start + 5, |c| c.is_ascii_alphanumeric() || matches!(c, b'/' | b'+' | b'.' | b'-' | b'=' | b';'));
        i = start + 5;
        if media >= 7 && starts_ci(b, media - 7, b";base64") && at(b, media) == b',' {
            let end = run(b, media + 1, |c| is_b64(c) || c == b'=');
            out.push((start, end));
            i = end;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z";

    #[test]
    fn replaces_with_typed_placeholders_and_counts() {
        let mut report = Redacted::new();
        let out = Policy::default().text(&format!("a {KEY} b {KEY}"), &mut report).unwrap();
        assert_eq!(out, "a [redacted:openai-key] b [redacted:openai-key]");
        assert_eq!(report.iter().collect::<Vec<_>>(), [("openai-key", 2)]);
        // Redacted text has nothing left to redact.
        assert_eq!(Policy { personal: true, ..Policy::default() }.text(&out, &mut report), None);
    }

    #[test]
    fn personal_only_on_request() {
        let text = "mail ada@example.org, key AKIAIOSFODNN7EXAMPLE";
        let mut report = Redacted::new();
        assert_eq!(Policy::default().text(text, &mut report).unwrap(), "mail ada@example.org, key [redacted:aws-access-key]");
        let on = Policy { personal: true, ..Policy::default() };
        assert_eq!(on.text(text, &mut report).unwrap(), "mail [redacted:email], key [redacted:aws-access-key]");
        assert_eq!(Policy::OFF.text(text, &mut report), None);
    }

    #[test]
    fn data_urls_are_opaque() {
        let image = "data:image/png;base64,iVBORw0KGgoAKIAIOSFODNN7EXAMPLE+sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z==";
        assert!(Policy::default().spans(image).is_empty());
        assert_eq!(Policy::default().spans(&format!("{image} {KEY}")).len(), 1);
    }

    #[test]
    fn message_keeps_shape_and_structure() {
        let json = serde_json::json!({"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "login", "arguments": format!("{{\"key\":\"{KEY}\"}}")}}], "reasoning_content": format!("use {KEY}")});
        let mut m = Message::parse(&json).unwrap();
        let report = Policy::default().message(&mut m);
        assert_eq!(report.get("openai-key"), Some(2));
        let calls = m.tool_calls.as_ref().unwrap();
        assert_eq!(calls[0].function.arguments, "{\"key\":\"[redacted:openai-key]\"}");
        assert!(serde_json::from_str::<Value>(&calls[0].function.arguments).is_ok());
        assert_eq!(calls[0].id, "call_1");
    }

    #[test]
    fn options_and_host_counts() {
        assert_eq!(Policy::from_value(&Value::Bool(false)).unwrap(), Policy::OFF);
        assert!(Policy::from_value(&serde_json::json!({"personal": true})).unwrap().personal);
        assert!(Policy::from_value(&serde_json::json!({"pii": true})).is_err());
        assert!(Policy::from_value(&serde_json::json!(3)).is_err());
        let mut report = Redacted::new();
        count_new_placeholders("[redacted:acme-id] x y", "[redacted:acme-id] [redacted:acme-id] [redacted:x]", &mut report);
        assert_eq!(report.iter().collect::<Vec<_>>(), [("acme-id", 1), ("x", 1)]);
        assert_eq!(serde_json::to_string(&report).unwrap(), r#"{"acme-id":1,"x":1}"#);
    }
}
