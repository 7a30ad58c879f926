//! What a fact claims about whom: a subject, an attribute with one value
//! at a time, and the value. Two facts that claim the same attribute of the
//! same subject are the same statement (same value: a duplicate) or a
//! contradiction (another value: the newer supersedes the older), shared
//! key or not (`semantic::valid`).
//!
//! The rules, in both languages, for facts as apps and compaction store
//! them ("I live in Shanghai", "The user lives in Shanghai", "Lin lives in
//! Shanghai", "用户住在上海", "小王住在天津"):
//! - the subject is the user ("I", "my", "the user", 我, 用户, or an order
//!   to the assistant: "call me", "answer in", 以后请用), someone named
//!   ("Lin", 小王), or someone related ("my sister", 我妹妹), who is not
//!   the user; anything else ("London is", "he") claims nothing;
//! - a cue at the start of what follows the subject (after "now",
//!   "currently", 现在, 已经 …) names the attribute: home city, employer,
//!   school, job, diet, name, age, marital status, email, phone, number of
//!   children, answer language; attributes that hold several values at
//!   once (likes, allergies, pets) are never claimed;
//! - a plan, a wish or a past ("going to", "thinking", "used to", 打算,
//!   明年, 想) claims nothing: it does not end what holds;
//! - a value is compared lowercased, without articles, trailing time words
//!   ("now", "last month", 了) or what follows a comma; a Latin value that
//!   begins another at a word boundary ("Intel", "Intel Corporation") is
//!   the same.
//!
//! Precision first: a wrong supersession hides a fact that holds (it stays
//! in history, and a later `remember` can restore it); a missed one leaves
//! two values side by side, as before.
//! Measured on tests/fixtures/contradict (examples/bench_contradict.rs).

mod en;
mod zh;

/// Who a claim is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Subject {
    User,
    /// Someone else, by name or relation, lowercased.
    Other(String),
}

/// One attribute of one subject and its value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claim {
    pub subject: Subject,
    pub attribute: &'static str,
    pub value: String,
}

/// How a new fact stands to an old one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Relation {
    /// The same attribute of the same subject, another value.
    Contradicts,
    /// The same attribute, subject and value.
    Same,
    Unrelated,
}

/// What `text` claims, if it claims an attribute with one value.
pub fn claim(text: &str) -> Option<Claim> {
    // A char at a time, as `learn::classify` does (one `str::replace` copy).
    #[allow(clippy::collapsible_str_replace)]
    let text = text.trim().replace('’', "'").replace('‘', "'");
    if text.is_empty() || text.chars().count() > 200 || text.contains(['?', '？']) {
        return None;
    }
    let first = text.chars().find(|c| !c.is_whitespace())?;
    if super::learn::is_han(first) {
        zh::claim(&text)
    } else {
        en::claim(&text)
    }
}

/// Whether `new` ends `old`: the same attribute of the same subject,
/// another value (what [`relation`] calls `Contradicts` for facts of other keys).
pub fn ends(old: &Claim, new: &Claim) -> bool {
    old.subject == new.subject && old.attribute == new.attribute && !same_value(&old.value, &new.value)
}

/// How `new` stands to `old` (texts, and keys when they have them).
pub fn relation(old: (&str, Option<&str>), new: (&str, Option<&str>)) -> Relation {
    if let (Some(a), Some(b)) = (old.1, new.1) {
        if a == b {
            return if same_value(&normal(old.0), &normal(new.0)) { Relation::Same } else { Relation::Contradicts };
        }
    }
    match (claim(old.0), claim(new.0)) {
        (Some(a), Some(b)) if a.subject == b.subject && a.attribute == b.attribute => {
            if same_value(&a.value, &b.value) {
                Relation::Same
            } else {
                Relation::Contradicts
            }
        }
        _ if normal(old.0) == normal(new.0) => Relation::Same,
        _ => Relation::Unrelated,
    }
}

/// Lowercased, trimmed of spaces and end punctuation.
pub(crate) fn normal(s: &str) -> String {
    crate::lowercase::lowercase(s.trim().trim_end_matches(['.', '。', '!', '！', ' ']).trim())
}

/// Equal, or (Latin) one begins the other at a word boundary.
fn same_value(a: &str, b: &str) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    a == b
        || (!short.is_empty() && short.is_ascii() && long.starts_with(short) && long.get(short.len()..).is_some_and(|r| r.starts_with(' ')))
}

/// A value as compared: lowercased, cut at a comma or a word that starts
/// a time or a role ("Berlin last month", "Stripe as an engineer"),
/// without articles or a final 了.
pub(crate) fn value(raw: &str) -> String {
    let mut v = crate::lowercase::lowercase(raw.trim());
    for stop in [
        ",",
        "，",
        "。",
        ";",
        "；",
        " last ",
        " in ",
        " as ",
        " since ",
        " these ",
        " this ",
        " now",
        " again",
        " yesterday",
        " for ",
        " from ",
        " and ",
        " with ",
        "(",
        "（",
    ] {
        if let Some(i) = v.find(stop) {
            v.truncate(i);
        }
    }
    let v = v.trim().trim_end_matches(['.', '!', '！', ' ']).trim_end_matches(['了', '啦', '的']);
    let v = ["the ", "a ", "an "].iter().find_map(|a| v.strip_prefix(a)).unwrap_or(v);
    v.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn who_what_and_which_value() {
        let c = claim("I moved to Berlin last month.").unwrap();
        assert_eq!((c.subject, c.attribute, c.value.as_str()), (Subject::User, "home_city", "berlin"));
        let c = claim("小王搬到了青岛。").unwrap();
        assert_eq!((c.subject, c.attribute, c.value.as_str()), (Subject::Other("小王".into()), "home_city", "青岛"));
        assert_eq!(claim("My sister lives in Porto.").map(|c| c.subject), Some(Subject::Other("sister".into())));
        assert_eq!(claim("I'm going to move to Melbourne next year."), None);
        assert_eq!(claim("我明年要搬去厦门。"), None);
        assert_eq!(claim("I like sushi."), None);
    }

    #[test]
    fn relations() {
        assert_eq!(relation(("I live in Shanghai.", None), ("The user moved to Berlin.", None)), Relation::Contradicts);
        assert_eq!(relation(("I work at Intel.", None), ("I work at Intel Corporation.", None)), Relation::Same);
        assert_eq!(relation(("I live in Berlin.", None), ("I work in Berlin.", None)), Relation::Unrelated);
        assert_eq!(relation(("x", Some("k")), ("y", Some("k"))), Relation::Contradicts);
        assert_eq!(relation(("I like spicy food.", None), ("i like spicy food", None)), Relation::Same);
    }

    /// `ends` (what `remember` asks of each live fact's claim, parsed once)
    /// is `relation`'s `Contradicts` for facts without a shared key, on
    /// every labelled pair of tests/fixtures/contradict, both ways round.
    #[test]
    fn ends_is_relation_contradicts_on_every_labelled_pair() {
        let mut pairs = 0;
        for set in ["tune", "heldout", "fresh"] {
            let path = format!("{}/tests/fixtures/contradict/{set}.jsonl", env!("CARGO_MANIFEST_DIR"));
            for line in std::fs::read_to_string(path).unwrap().lines().filter(|l| !l.trim().is_empty()) {
                let v: serde_json::Value = serde_json::from_str(line).unwrap();
                let (a, b) = (v["old"].as_str().unwrap(), v["new"].as_str().unwrap());
                for (old, new) in [(a, b), (b, a)] {
                    let by_claims = matches!((claim(old), claim(new)), (Some(o), Some(n)) if ends(&o, &n));
                    assert_eq!(by_claims, relation((old, None), (new, None)) == Relation::Contradicts, "{old} / {new}");
                    pairs += 1;
                }
            }
        }
        assert_eq!(pairs, 2 * 165);
    }
}
