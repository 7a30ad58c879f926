//! The offline extractive summarizer: the default, needs no key or network.
//!
//! It keeps the informative sentences of a range (names of things, numbers,
//! dates and times, places, decisions, stated facts and preferences) and
//! leaves out small talk (greetings, thanks, acknowledgements, exclamations),
//! in English and Chinese; [`signals`] reads each sentence.
//!
//! Invariants: deterministic (the same messages always give the same
//! summary); sentences keep their original order; the summary's lines, each
//! counted plus one for its line break, fit `max_tokens`; small talk is kept
//! only when a range holds nothing else; a sentence whose content terms
//! mostly repeat a kept one's is not kept.

mod signals;

use std::collections::HashMap;

use crate::message::Role;
use crate::window::Stored;
use signals::{signals, Signals};

/// Phrases that mark what a user wants kept, in Chinese and English.
pub const HIGH_VALUE: &[&str] = &[
    "我要",
    "请帮我",
    "记住",
    "偏好",
    "不要",
    "之前说的",
    "按这个",
    "喜欢",
    "过敏",
    "必须",
    "决定",
    "i want",
    "please",
    "remember",
    "prefer",
    "don't",
    "do not",
    "as i said",
    "like this",
    "always",
    "never",
    "must",
    "decided",
    "allergic",
];

/// First-person statements of a lasting fact or taste, which [`HIGH_VALUE`]
/// (phrases of requests and wishes) leaves out.
const STATED: &[&str] = &[
    "i like",
    "i love",
    "i hate",
    "i can't stand",
    "my favorite",
    "my favourite",
    "i'm allergic",
    "i live",
    "i work",
    "my name is",
    "我叫",
    "我住",
    "讨厌",
    "最爱",
    "不能吃",
    "我不吃",
];

/// A summary of a range of messages.
#[derive(Clone, Debug, PartialEq)]
pub struct Extract {
    pub text: String,
    /// The kept sentences that state a wish of the user's or carry two
    /// marks of information (a number, a date or time, a name).
    pub key_points: Vec<String>,
    /// 0.3, plus 0.1 per such sentence in the whole range, at most 1.
    pub importance: f64,
}

struct Sentence<'a> {
    order: usize,
    text: String,
    signals: &'a Signals,
    key: bool,
    score: f64,
}

/// Splits at CJK sentence ends and line breaks always, at ASCII `.!?` only
/// before whitespace (so "1.5", "Booking.com" and "e.g.x" stay whole) and
/// not after a title ("Mr. Harris").
pub fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        cur.push(c);
        let end = match c {
            '。' | '！' | '？' | '；' | '\n' => true,
            '.' | '!' | '?' => chars.peek().is_none_or(|n| n.is_whitespace()) && !(c == '.' && title(&cur)),
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

/// Does `text` end with a title that a name follows ("Mr.", "Dr.")?
fn title(text: &str) -> bool {
    let last = text.rsplit(|c: char| !c.is_ascii_alphabetic() && c != '.').next().unwrap_or_default();
    ["Mr.", "Mrs.", "Ms.", "Dr.", "Prof.", "St."].contains(&last)
}

/// How much each thing a sentence carries counts. Set by hand, then checked
/// on the tune half of `tests/fixtures/recall` (examples/bench_summaries.rs):
/// a sentence's content terms (rarer in the range weigh more) and a wish
/// or stated fact outweigh a bare number, date or name.
struct Weights {
    high: f64,
    number: f64,
    time: f64,
    name: f64,
    info: f64,
    question: f64,
}

const WEIGHTS: Weights = Weights { high: 2.0, number: 1.0, time: 1.0, name: 0.3, info: 1.0, question: -0.5 };

fn role_weight(role: Role) -> f64 {
    match role {
        Role::User => 1.0,
        Role::Assistant => 0.5,
        _ => 0.2,
    }
}

fn high_value(text: &str) -> usize {
    let lower = text.to_ascii_lowercase().replace('\u{2019}', "'"); // the phrases are ASCII or CJK
    HIGH_VALUE.iter().chain(STATED).filter(|p| lower.contains(*p)).count()
}

/// `info` is what the sentence says that the rest of the range does not:
/// its content terms, each divided by how many sentences hold it. Wishes
/// count in the user's words only: an assistant's "I'll remember you
/// prefer..." is an echo (it kept "请说，我会把这些当成长期偏好记下来" over the
/// user's own "I prefer answers in bullet points" in the demo dialogue).
fn score(text: &str, role: Role, s: &Signals, info: f64, w: &Weights) -> f64 {
    let flag = |b: bool| f64::from(u8::from(b));
    let wishes = if role == Role::User { high_value(text).min(2) } else { 0 };
    let mut x = role_weight(role) + w.high * wishes as f64 + w.info * info.ln_1p();
    x += w.number * flag(s.number) + w.time * flag(s.time) + w.name * s.names.min(3) as f64;
    x + w.question * flag(s.question)
}

fn is_key(text: &str, role: Role, s: &Signals) -> bool {
    let marks = usize::from(s.number) + usize::from(s.time) + usize::from(s.names > 0);
    !s.small_talk && (role == Role::User && high_value(text) > 0 || marks >= 2)
}

fn prefix(role: Role) -> &'static str {
    match role {
        Role::User => "User: ",
        Role::Assistant => "Assistant: ",
        Role::Tool => "Tool: ",
        Role::System | Role::Developer => "Note: ",
    }
}

/// Does `a` say little beyond `b` (four in five of its terms are `b`'s)?
/// Counted on the terms' sorted hashes, one pass over both: comparing
/// every term of each sentence ranked with every term of each chosen one
/// was a tenth of an `add` that compacts, in the wasm.
fn repeats(a: &Signals, b: &Signals) -> bool {
    let (mut i, mut j, mut shared) = (0, 0, 0);
    while let (Some(x), Some(y)) = (a.keys.get(i), b.keys.get(j)) {
        match x.cmp(y) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => (i, j, shared) = (i + 1, j + 1, shared + 1),
        }
    }
    !a.keys.is_empty() && shared * 5 >= a.keys.len() * 4
}

/// Summarizes `messages` within `max_tokens` as counted by `count`.
pub fn summarize(messages: &[&Stored], max_tokens: usize, count: &dyn Fn(&str) -> usize) -> Extract {
    let mut read: Vec<(Role, String, Signals)> = Vec::new();
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
            let sig = signals(&text);
            read.push((m.role, text, sig));
        }
    }
    // In how many sentences of the range each term occurs.
    let mut df: HashMap<&str, u32> = HashMap::new();
    for (_, _, sig) in &read {
        for t in &sig.terms {
            *df.entry(t.as_str()).or_default() += 1;
        }
    }
    let mut all: Vec<Sentence> = Vec::new();
    for (order, (role, text, signals)) in read.iter().enumerate() {
        let info = signals.terms.iter().map(|t| signals::term_weight(t) / f64::from(df.get(t.as_str()).copied().unwrap_or(1))).sum();
        let score = score(text, *role, signals, info, &WEIGHTS);
        all.push(Sentence { order, text: format!("{}{}", prefix(*role), text), signals, key: is_key(text, *role, signals), score });
    }
    let mut ranked: Vec<&Sentence> = all.iter().filter(|s| !s.signals.small_talk).collect();
    crate::sort::sort_by(&mut ranked, |a, b| b.score.total_cmp(&a.score).then(a.order.cmp(&b.order)));
    if ranked.is_empty() {
        // Nothing but small talk: its best sentence says what there was.
        ranked.extend(all.iter().min_by(|a, b| b.score.total_cmp(&a.score).then(a.order.cmp(&b.order))));
    }
    let mut chosen: Vec<&Sentence> = Vec::new();
    let mut used = 0;
    let tool_line = (!tools.is_empty()).then(|| format!("Tools used: {}.", tools.join(", ")));
    if let Some(line) = &tool_line {
        used += count(line);
    }
    for s in ranked {
        if chosen.iter().any(|c| repeats(s.signals, c.signals)) {
            continue;
        }
        let t = count(&s.text) + 1;
        if used + t <= max_tokens {
            used += t;
            chosen.push(s);
        }
    }
    crate::sort::sort_by_key(&mut chosen, |s| s.order);
    let key_points: Vec<String> = chosen.iter().filter(|s| s.key).map(|s| s.text.clone()).collect();
    let mut lines: Vec<String> = chosen.iter().map(|s| s.text.clone()).collect();
    lines.extend(tool_line);
    let keys = all.iter().filter(|s| s.key).count();
    let importance = (0.3 + 0.1 * keys as f64).min(1.0);
    Extract { text: lines.join("\n"), key_points, importance }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::Message;
    use crate::window::Place;

    fn stored(role: Role, text: &str) -> Stored {
        Stored {
            id: String::new(),
            writer: String::new(),
            seq: 0,
            lc: 0,
            ts: 0.0,
            message: Message::text(role, text),
            tokens: 0.into(),
            tool_turn: false,
            place: Place::Archived,
            task_id: None,
        }
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

    fn summary(msgs: &[(Role, &str)], budget: usize) -> Extract {
        let msgs: Vec<Stored> = msgs.iter().map(|(r, t)| stored(*r, t)).collect();
        let refs: Vec<&Stored> = msgs.iter().collect();
        summarize(&refs, budget, &chars)
    }

    /// A two-person chat (the assistant role plays the friend), facts among greetings.
    const CHAT: &[(Role, &str)] = &[
        (Role::User, "Hey Mel! How have you been?"),
        (Role::Assistant, "Thanks, Caroline! Good, good. I ran a charity race for mental health last Saturday."),
        (Role::User, "Wow, Melanie! That's great!"),
        (Role::Assistant, "Thanks! We're moving to Portland in June."),
        (Role::User, "哈哈 好的谢谢！"),
        (Role::Assistant, "你好小雨！上周六我们在杭州见了王老师。"),
        (Role::User, "好的，记下了。"),
        (Role::User, "ok, thanks!"),
    ];

    #[test]
    fn greetings_and_thanks_are_left_out_in_both_languages() {
        let e = summary(CHAT, 160);
        for kept in ["charity race", "Portland in June", "杭州见了王老师"] {
            assert!(e.text.contains(kept), "{kept}: {}", e.text);
        }
        for dropped in ["Hey Mel", "How have you been", "Thanks", "Wow", "哈哈", "好的", "ok"] {
            assert!(!e.text.contains(dropped), "{dropped}: {}", e.text);
        }
        // With room to spare, small talk still stays out.
        let roomy = summary(CHAT, 10_000);
        assert_eq!(roomy.text.lines().count(), 3, "{}", roomy.text);
    }

    #[test]
    fn a_date_number_or_place_outranks_small_talk() {
        for (talk, fact) in [
            ("How are you doing today, Sam?", "I moved to Denver on March 3."),
            ("Wow, that's amazing, congrats!", "The rent is 1,850 a month."),
            ("哈哈哈，太好了，谢谢你！", "上周六我们去了杭州。"),
            ("好的好的，没问题，明白。", "房租每月4200元。"),
            ("ok 好的，thanks!", "Daniel 的考试在6月15号。"),
        ] {
            // Room for the fact alone, whichever comes first.
            for msgs in [[(Role::User, talk), (Role::User, fact)], [(Role::User, fact), (Role::User, talk)]] {
                let e = summary(&msgs, chars(fact) + 8);
                assert_eq!(e.text, format!("User: {fact}"));
            }
        }
    }

    #[test]
    fn a_range_of_small_talk_still_says_what_there_was() {
        let e = summary(&[(Role::User, "Hi!"), (Role::Assistant, "Hello, how are you?")], 100);
        assert_eq!(e.text.lines().count(), 1, "{}", e.text);
        assert!(e.key_points.is_empty());
        assert!(e.importance < summary(CHAT, 100).importance);
    }

    #[test]
    fn a_repeated_statement_is_kept_once() {
        let e = summary(
            &[
                (Role::User, "The meeting moved to Friday at 3pm."),
                (Role::Assistant, "The meeting moved to Friday at 3pm!"),
                (Role::User, "Budget is 500 euros."),
            ],
            1000,
        );
        assert_eq!(e.text, "User: The meeting moved to Friday at 3pm.\nUser: Budget is 500 euros.");
    }

    proptest::proptest! {
        /// Random ranges of chat sentences: the summary fits its budget,
        /// keeps the source order, and is the same every time.
        #[test]
        fn fits_the_budget_in_order_and_deterministically(picks in proptest::collection::vec((0..CHAT.len(), proptest::bool::ANY), 0..12), budget in 0usize..300) {
            let msgs: Vec<(Role, &str)> = picks.iter().map(|&(i, user)| (if user { Role::User } else { Role::Assistant }, CHAT[i].1)).collect();
            let e = summary(&msgs, budget);
            proptest::prop_assert!(chars(&e.text) <= budget);
            proptest::prop_assert_eq!(&summary(&msgs, budget), &e);
            let source: Vec<String> = msgs.iter().flat_map(|(r, t)| sentences(t).into_iter().map(move |s| format!("{}{s}", prefix(*r)))).collect();
            let mut at = 0;
            for line in e.text.lines() {
                let found = source.iter().skip(at).position(|s| s == line);
                proptest::prop_assert!(found.is_some(), "{} out of order in {}", line, e.text);
                at += found.unwrap_or_default() + 1;
            }
        }
    }

    #[test]
    fn sentences_split_where_people_end_them() {
        assert_eq!(
            sentences("Book it on Booking.com. It costs 1.5k! 好的。下一步？ok"),
            ["Book it on Booking.com.", "It costs 1.5k!", "好的。", "下一步？", "ok"]
        );
        assert_eq!(sentences("要点：1. 客户\n2. 风险"), ["要点：1.", "客户", "2.", "风险"]);
        assert_eq!(sentences("请了Mr. Harris吃饭。Dr. Li agreed."), ["请了Mr. Harris吃饭。", "Dr. Li agreed."]);
    }

    #[test]
    fn empty_budget_gives_empty_summary() {
        let msgs = [stored(Role::User, "hello world")];
        let refs: Vec<&Stored> = msgs.iter().collect();
        assert_eq!(summarize(&refs, 0, &chars).text, "");
    }
}
