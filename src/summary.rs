//! The offline extractive summarizer: the default, needs no key or network.
//!
//! It keeps the sentences that carry requests, preferences, decisions,
//! numbers and names, in their original order, within a token budget.
//! Deterministic: the same messages always give the same summary.

use crate::message::Role;
use crate::window::Stored;

/// Phrases that mark what a user wants kept, in Chinese and English.
pub const HIGH_VALUE: &[&str] = &[
    "我要", "请帮我", "记住", "偏好", "不要", "之前说的", "按这个", "喜欢", "过敏", "必须", "决定",
    "i want", "please", "remember", "prefer", "don't", "do not", "as i said", "like this", "always", "never",
    "must", "decided", "allergic",
];

/// A summary of a range of messages.
#[derive(Clone, Debug, PartialEq)]
pub struct Extract {
    pub text: String,
    pub key_points: Vec<String>,
    pub importance: f64,
}

struct Sentence {
    order: usize,
    text: String,
    score: f64,
}

/// Splits at CJK sentence ends and line breaks always, at ASCII `.!?` only
/// before whitespace (so "1.5", "Booking.com" and "e.g.x" stay whole).
pub fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        cur.push(c);
        let end = match c {
            '。' | '！' | '？' | '；' | '\n' => true,
            '.' | '!' | '?' => chars.peek().is_none_or(|n| n.is_whitespace()),
            _ => false,
        };
        if end {
            let t = cur.trim();
            if !t.is_empty() {
                out.push(t.to_string());
            }
            cur.clear();
        }
    }
    let t = cur.trim();
    if !t.is_empty() {
        out.push(t.to_string());
    }
    out
}

fn score(sentence: &str, role: Role) -> f64 {
    let lower = sentence.to_ascii_lowercase(); // the phrases are ASCII or CJK
    let mut s = match role {
        Role::User => 1.0,
        Role::Assistant => 0.5,
        _ => 0.2,
    };
    s += 2.0 * HIGH_VALUE.iter().filter(|p| lower.contains(*p)).count() as f64;
    if sentence.chars().any(|c| c.is_ascii_digit()) {
        s += 1.0;
    }
    // Capitalised words past the first usually name people, places, products.
    let names = sentence.split_whitespace().enumerate().filter(|(i, w)| *i > 0 && w.chars().next().is_some_and(char::is_uppercase)).count();
    s += 0.3 * names.min(3) as f64;
    if sentence.ends_with('?') || sentence.ends_with('？') {
        s += 0.5;
    }
    // Very short fragments ("ok.", "好的。") carry little.
    if sentence.chars().count() < 6 {
        s -= 1.0;
    }
    s
}

fn prefix(role: Role) -> &'static str {
    match role {
        Role::User => "User: ",
        Role::Assistant => "Assistant: ",
        Role::Tool => "Tool: ",
        Role::System | Role::Developer => "Note: ",
    }
}

/// Summarizes `messages` within `max_tokens` as counted by `count`.
pub fn summarize(messages: &[&Stored], max_tokens: usize, count: &dyn Fn(&str) -> usize) -> Extract {
    let mut all = Vec::new();
    let mut tools = Vec::new();
    for s in messages {
        let m = &s.message;
        for call in m.tool_calls.iter().flatten() {
            if !tools.contains(&call.function.name) {
                tools.push(call.function.name.clone());
            }
        }
        if m.role == Role::Tool {
            continue; // tool output is data; the call names stand for it
        }
        for text in sentences(&m.content_text()) {
            let score = score(&text, m.role);
            all.push(Sentence { order: all.len(), text: format!("{}{}", prefix(m.role), text), score });
        }
    }
    let high = all.iter().filter(|s| s.score >= 3.0).count();
    let mut ranked: Vec<&Sentence> = all.iter().collect();
    ranked.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.order.cmp(&b.order)));
    let mut chosen: Vec<&Sentence> = Vec::new();
    let mut used = 0;
    let tool_line = (!tools.is_empty()).then(|| format!("Tools used: {}.", tools.join(", ")));
    if let Some(line) = &tool_line {
        used += count(line);
    }
    for s in ranked {
        let t = count(&s.text) + 1;
        if used + t <= max_tokens {
            used += t;
            chosen.push(s);
        }
    }
    chosen.sort_by_key(|s| s.order);
    let key_points: Vec<String> = chosen.iter().filter(|s| s.score >= 3.0).map(|s| s.text.clone()).collect();
    let mut lines: Vec<String> = chosen.iter().map(|s| s.text.clone()).collect();
    lines.extend(tool_line);
    let importance = (0.3 + 0.1 * high as f64).min(1.0);
    Extract { text: lines.join("\n"), key_points, importance }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::Message;
    use crate::window::Place;

    fn stored(role: Role, text: &str) -> Stored {
        Stored { id: String::new(), writer: String::new(), seq: 0, lc: 0, ts: 0.0, message: Message::text(role, text), tokens: 0.into(), tool_turn: false, place: Place::Archived, task_id: None }
    }

    fn chars(s: &str) -> usize {
        s.chars().count()
    }

    #[test]
    fn keeps_preferences_and_numbers_within_budget() {
        let msgs = [
            stored(Role::User, "Hi there. 记住：我对花生过敏。 What is the weather like?"),
            stored(Role::Assistant, "It is sunny. Nothing else to report. The flight costs 1,240 yuan."),
            stored(Role::User, "ok. I prefer window seats, please."),
        ];
        let refs: Vec<&Stored> = msgs.iter().collect();
        let e = summarize(&refs, 80, &chars);
        assert!(e.text.contains("花生过敏"), "{}", e.text);
        assert!(e.text.contains("window seats"), "{}", e.text);
        assert!(chars(&e.text) <= 80 + 10);
        assert!(e.importance > 0.3);
        assert_eq!(summarize(&refs, 80, &chars), e, "deterministic");
    }

    #[test]
    fn sentences_split_where_people_end_them() {
        assert_eq!(sentences("Book it on Booking.com. It costs 1.5k! 好的。下一步？ok"), ["Book it on Booking.com.", "It costs 1.5k!", "好的。", "下一步？", "ok"]);
        assert_eq!(sentences("要点：1. 客户\n2. 风险"), ["要点：1.", "客户", "2.", "风险"]);
    }

    #[test]
    fn empty_budget_gives_empty_summary() {
        let msgs = [stored(Role::User, "hello world")];
        let refs: Vec<&Stored> = msgs.iter().collect();
        assert_eq!(summarize(&refs, 0, &chars).text, "");
    }
}
