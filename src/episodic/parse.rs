//! Reading a model's summary answer, whatever shape it came in.
//!
//! Defined outcomes, in order: JSON in a code fence, JSON inside prose, or
//! JSON cut off mid-way (closed and read if `summary` survived) → a model
//! summary; plain prose → a model summary with no structured fields; an
//! empty answer, or JSON without a usable `summary` → `None`, and the caller
//! falls back to the offline extractive summary.

use serde_json::{Map, Value};

/// What a model returned, normalized.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModelSummary {
    pub summary: String,
    pub key_points: Vec<String>,
    pub pending_tasks: Vec<String>,
    pub facts: Vec<(String, String)>,
    pub preferences: Vec<(String, String)>,
    pub importance: Option<f64>,
    /// Ids of the request's current facts the range contradicts; `None`
    /// when the answer has no such field (a summarizer that predates it).
    pub supersedes: Option<Vec<String>>,
}

/// Longest plain-text answer taken as a summary, in chars: longer prose is
/// more likely an error page or a runaway answer than a summary.
const MAX_PLAIN: usize = 4000;

fn strings(v: Option<&Value>) -> Vec<String> {
    match v {
        Some(Value::Array(a)) => a.iter().filter_map(|x| x.as_str().map(|s| s.trim().to_string())).filter(|s| !s.is_empty()).collect(),
        Some(Value::String(s)) if !s.trim().is_empty() => vec![s.trim().to_string()],
        _ => vec![],
    }
}

/// `[{key, value}]`, `{key: value}` or `["text"]` (keyed by position).
fn pairs(v: Option<&Value>) -> Vec<(String, String)> {
    let text = |x: &Value| match x {
        Value::String(s) => Some(s.trim().to_string()),
        Value::Null => None,
        other => Some(crate::json::text(other)),
    };
    match v {
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(|x| match x {
                Value::Object(o) => Some((text(o.get("key")?)?, text(o.get("value")?)?)),
                Value::String(s) if !s.trim().is_empty() => Some((String::new(), s.trim().to_string())),
                _ => None,
            })
            .filter(|(_, v)| !v.is_empty())
            .collect(),
        Some(Value::Object(o)) => o.iter().filter_map(|(k, v)| Some((k.clone(), text(v)?))).filter(|(_, v)| !v.is_empty()).collect(),
        _ => vec![],
    }
}

fn from_object(o: &Map<String, Value>) -> Option<ModelSummary> {
    let get = |names: &[&str]| names.iter().find_map(|n| o.get(*n));
    let summary = get(&["summary", "Summary", "摘要"])?.as_str()?.trim().to_string();
    if summary.is_empty() {
        return None;
    }
    Some(ModelSummary {
        summary,
        key_points: strings(get(&["keyPoints", "key_points"])),
        pending_tasks: strings(get(&["pendingTasks", "pending_tasks"])),
        facts: pairs(get(&["facts"])),
        preferences: pairs(get(&["preferences"])),
        importance: get(&["importance"]).and_then(Value::as_f64).filter(|x| x.is_finite()).map(|x| x.clamp(0.0, 1.0)),
        supersedes: get(&["supersedes", "superseded"]).map(|v| strings(Some(v))),
    })
}

/// The first JSON value starting at `start`, ignoring what follows it.
fn first_value(text: &str) -> Option<Value> {
    let mut stream = serde_json::Deserializer::from_slice(text.as_bytes()).into_iter::<Value>();
    stream.next()?.ok()
}

/// What is open at the end of a JSON prefix.
struct Scan {
    /// Unclosed brackets, outermost first.
    stack: Vec<char>,
    in_str: bool,
    /// The prefix ends inside an escape (`\`).
    esc: bool,
    /// Byte offset after the last complete member (a closed bracket or before a comma).
    last_complete: usize,
}

fn scan(text: &str) -> Scan {
    let mut sc = Scan { stack: Vec::new(), in_str: false, esc: false, last_complete: 0 };
    for (i, c) in text.char_indices() {
        if sc.in_str {
            match (sc.esc, c) {
                (true, _) => sc.esc = false,
                (false, '\\') => sc.esc = true,
                (false, '"') => sc.in_str = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => sc.in_str = true,
            '{' | '[' => sc.stack.push(c),
            '}' | ']' => {
                sc.stack.pop();
                sc.last_complete = i + 1;
            }
            ',' => sc.last_complete = i,
            _ => {}
        }
    }
    sc
}

/// Closes a JSON text that was cut off: an open string, a dangling key or
/// comma, and every open bracket. Returns `None` when nothing is open.
fn repair(text: &str) -> Option<String> {
    let first = scan(text);
    if first.stack.is_empty() && !first.in_str {
        return None;
    }
    // Try keeping the cut-off string first (closing it), then drop back to
    // the last complete member.
    let mut kept = text.to_string();
    if first.in_str {
        if first.esc {
            kept.pop();
        }
        kept.push('"');
    }
    for candidate in [kept, text[..first.last_complete].to_string()] {
        let mut c = candidate.trim_end().trim_end_matches(',').trim_end().to_string();
        // A key without a value: `"key":` at the end of an object.
        if c.ends_with(':') {
            if let Some(q) = c[..c.len() - 1].trim_end().strip_suffix('"').and_then(|k| k.rfind('"')) {
                c.truncate(q);
                c = c.trim_end().trim_end_matches(',').to_string();
            }
        }
        let open = scan(&c);
        if open.in_str {
            continue;
        }
        let closers: String = open.stack.iter().rev().map(|b| if *b == '{' { '}' } else { ']' }).collect();
        let fixed = format!("{c}{closers}");
        if crate::json::from_str::<Value>(&fixed).is_ok() {
            return Some(fixed);
        }
    }
    None
}

/// What a fenced block holds (```json ... ``` or ``` ... ```), else all of `text`.
fn fenced(text: &str) -> &str {
    match text.find("```") {
        Some(i) => {
            let after = &text[i + 3..];
            let after = after.find('\n').map_or(after, |n| &after[n + 1..]);
            after.find("```").map_or(after, |j| &after[..j])
        }
        None => text,
    }
}

/// The first complete JSON object of an answer (fenced, or inside prose);
/// never a repaired one: a cut-off answer is `None`.
pub(crate) fn json_object(answer: &str) -> Option<Map<String, Value>> {
    let body = fenced(answer.trim());
    match first_value(body.get(body.find('{')?..)?)? {
        Value::Object(o) => Some(o),
        _ => None,
    }
}

/// Reads a summarizer's answer; `None` means "use the offline summary".
pub fn parse_summary(answer: &str) -> Option<ModelSummary> {
    let text = answer.trim();
    if text.is_empty() {
        return None;
    }
    let body = fenced(text);
    if let Some(start) = body.find('{') {
        let json = &body[start..];
        if let Some(Value::Object(o)) = first_value(json) {
            return from_object(&o);
        }
        if let Some(Value::Object(o)) = repair(json).and_then(|r| crate::json::from_str(&r).ok()) {
            return from_object(&o);
        }
        // Braces that are not JSON: treat the whole answer as prose below.
    }
    let looks_like_json = text.starts_with('{') || text.starts_with('[') || text.starts_with("```");
    let looks_like_markup = text.starts_with('<');
    if looks_like_json || looks_like_markup || text.chars().count() > MAX_PLAIN {
        return None;
    }
    Some(ModelSummary { summary: text.to_string(), ..ModelSummary::default() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const FULL: &str = r#"{"summary":"用户计划去成都，对花生过敏。","keyPoints":["6月12日出发"],"pendingTasks":["订酒店"],"facts":[{"key":"trip","value":"Chengdu June 12"}],"preferences":[{"key":"allergy","value":"peanuts"}],"importance":0.8}"#;

    #[test]
    fn every_answer_shape_has_a_defined_outcome() {
        let full = parse_summary(FULL).unwrap();
        assert_eq!(full.pending_tasks, ["订酒店"]);
        assert_eq!(full.preferences, [("allergy".to_string(), "peanuts".to_string())]);
        assert_eq!(full.importance, Some(0.8));
        assert_eq!(parse_summary(&format!("```json\n{FULL}\n```")).unwrap(), full);
        assert_eq!(parse_summary(&format!("Here is the summary:\n{FULL}\nHope this helps!")).unwrap(), full);
        let cut = &FULL[..FULL.find("\"facts\"").unwrap() + 12];
        let partial = parse_summary(cut).unwrap();
        assert_eq!(partial.summary, full.summary);
        assert_eq!(partial.pending_tasks, ["订酒店"]);
        let cut_in_summary = r#"{"summary":"The user wants a window seat and"#;
        assert_eq!(parse_summary(cut_in_summary).unwrap().summary, "The user wants a window seat and");
        assert_eq!(parse_summary("The user asked about flights to Chengdu.").unwrap().summary, "The user asked about flights to Chengdu.");
        assert_eq!(parse_summary("   "), None);
        assert_eq!(parse_summary(r#"{"summary": ""}"#), None);
        assert_eq!(parse_summary(r#"{"notes": "no summary field"}"#), None);
        assert_eq!(parse_summary("<html><body>502 Bad Gateway</body></html>"), None);
        assert_eq!(parse_summary(r#"{"summary": 42"#), None);
        assert_eq!(parse_summary(r#"{"summary":"x","importance":7}"#).unwrap().importance, Some(1.0));
        assert_eq!(
            parse_summary(r#"{"summary":"x","preferences":{"lang":"中文"}}"#).unwrap().preferences,
            [("lang".to_string(), "中文".to_string())]
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        #[test]
        fn never_panics(s in "\\PC{0,200}") {
            let _ = parse_summary(&s);
        }

        #[test]
        fn any_cut_of_a_valid_answer_is_handled(cut in 0usize..400) {
            let cut = FULL.char_indices().map(|(i, _)| i).chain([FULL.len()]).nth(cut.min(FULL.chars().count())).unwrap();
            let out = parse_summary(&FULL[..cut]);
            if let Some(s) = out {
                prop_assert!(!s.summary.is_empty());
            }
        }
    }
}
