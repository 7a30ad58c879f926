//! The English rules of `claim` (see its module docs): matched lowercased
//! on whole words, the subject first, then a cue.

use super::{value, Claim, Subject};

/// Plans, wishes, hypotheticals and pasts: they end nothing that holds.
const NOT_NOW: &[&str] = &[
    "going to",
    "planning",
    "thinking",
    "might ",
    "will ",
    "would ",
    "want to",
    "used to",
    "hope",
    "considering",
    "next year",
    "next month",
    "next week",
    "maybe",
    "if ",
];

/// Words between the subject and the cue that change nothing.
const ADVERBS: &[&str] = &["now", "currently", "just", "recently", "still", "also", "actually", "finally", "officially", "have", "has"];

/// Words that open a sentence without naming anyone.
const NOT_NAMES: &[&str] =
    &["the", "this", "that", "it", "he", "she", "they", "we", "you", "there", "please", "always", "never", "my", "our", "your"];

/// Cues after the subject, with the attribute they name; the value follows.
const CUES: &[(&str, &str)] = &[
    ("lives in ", "home_city"),
    ("live in ", "home_city"),
    ("am living in ", "home_city"),
    ("is living in ", "home_city"),
    ("moved to ", "home_city"),
    ("relocated to ", "home_city"),
    ("am based in ", "home_city"),
    ("is based in ", "home_city"),
    ("resides in ", "home_city"),
    ("reside in ", "home_city"),
    ("home is in ", "home_city"),
    ("works at ", "employer"),
    ("work at ", "employer"),
    ("works for ", "employer"),
    ("work for ", "employer"),
    ("joined ", "employer"),
    ("am employed at ", "employer"),
    ("is employed at ", "employer"),
    ("am employed by ", "employer"),
    ("is employed by ", "employer"),
    ("started working at ", "employer"),
    ("study at ", "school"),
    ("studies at ", "school"),
    ("am studying at ", "school"),
    ("is studying at ", "school"),
    ("am a student at ", "school"),
    ("is a student at ", "school"),
    ("works as a ", "job"),
    ("work as a ", "job"),
    ("works as an ", "job"),
    ("work as an ", "job"),
    ("job is ", "job"),
    ("name is ", "name"),
    ("am called ", "name"),
    ("is called ", "name"),
    ("go by ", "name"),
    ("goes by ", "name"),
    ("email is ", "email"),
    ("email address is ", "email"),
    ("phone number is ", "phone"),
    ("number is ", "phone"),
    ("eat meat", "diet"),
    ("eats meat", "diet"),
    ("am no longer ", "diet"),
    ("is no longer ", "diet"),
];

/// Diets, after "I'm", "is" or "no longer".
const DIETS: &[&str] = &["vegetarian", "vegan", "pescatarian", "keto", "halal", "kosher", "gluten-free", "carnivore", "omnivore"];

/// Marital states, after "am", "is" or "got".
const MARITAL: &[(&str, &str)] =
    &[("married", "married"), ("single", "single"), ("divorced", "divorced"), ("engaged", "engaged"), ("widowed", "widowed")];

/// Words after "I'm a" that are a taste or a family role, not a job.
const NOT_JOBS: &[&str] = &[
    "fan",
    "lover",
    "person",
    "drinker",
    "eater",
    "big",
    "huge",
    "mom",
    "dad",
    "parent",
    "student",
    "bit",
    "little",
    "night",
    "morning",
    "vegetarian",
    "vegan",
];

/// Orders to the assistant that say an attribute of the user.
const ORDERS: &[(&str, &str)] = &[
    ("call me ", "name"),
    ("answer in ", "answer_language"),
    ("reply in ", "answer_language"),
    ("respond in ", "answer_language"),
    ("write in ", "answer_language"),
    ("answers in ", "answer_language"),
];

/// Counts written as words.
const COUNTS: &[&str] = &["no", "one", "two", "three", "four", "five", "six"];

/// Languages an answer can be asked in.
const LANGUAGES: &[&str] = &["english", "chinese", "spanish", "french", "german", "japanese", "korean", "italian", "portuguese", "russian"];

pub(super) fn claim(text: &str) -> Option<Claim> {
    let lower =
        format!(" {} ", crate::lowercase::lowercase(text).replace("i'm ", "i am ").replace("i've ", "i have ").replace("'s ", " 's "));
    if NOT_NOW.iter().any(|w| lower.contains(&format!(" {w}"))) {
        return None;
    }
    if let Some(c) = order(&lower) {
        return Some(c);
    }
    let (subject, rest) = subject(text, lower.trim())?;
    let mut rest = rest.trim_start();
    // "I have two kids": the count is the value.
    if let Some(r) = rest.strip_prefix("have ").or_else(|| rest.strip_prefix("has ")) {
        let mut words = r.split([' ', '.', ',']);
        if let (Some(n), Some(what)) = (words.next(), words.next()) {
            let counted = n.parse::<u32>().is_ok() || COUNTS.contains(&n);
            if counted && ["kids", "kid", "children", "child"].contains(&what) {
                return Some(Claim { subject, attribute: "children", value: n.to_string() });
            }
        }
    }
    while let Some(r) = ADVERBS.iter().find_map(|a| rest.strip_prefix(a).and_then(|r| r.strip_prefix(' '))) {
        rest = r;
    }
    let found = |attribute: &'static str, raw: &str| {
        Some(Claim { subject: subject.clone(), attribute, value: value(raw) }).filter(|c| !c.value.is_empty())
    };
    for (cue, attribute) in CUES {
        if let Some(v) = rest.strip_prefix(cue) {
            return match *attribute {
                "diet" if cue.contains("meat") => found("diet", "meat"),
                "diet" => DIETS.iter().find(|d| v.starts_with(*d)).and_then(|d| found("diet", &format!("not {d}"))),
                "email" | "phone" => found(attribute, v.trim_end_matches(['.', ' '])),
                _ => found(attribute, v),
            };
        }
    }
    let state = rest.strip_prefix("am ").or_else(|| rest.strip_prefix("is ")).or_else(|| rest.strip_prefix("got "))?;
    let state = state.strip_prefix("now ").unwrap_or(state);
    let word = state.split([' ', '.', ',', '!']).next().unwrap_or("");
    if let Some(d) = DIETS.iter().find(|d| **d == word) {
        return found("diet", d);
    }
    if let Some((_, m)) = MARITAL.iter().find(|(w, _)| *w == word) {
        return found("marital", m);
    }
    if let Ok(n) = word.parse::<u32>() {
        return (1..120).contains(&n).then(|| found("age", word)).flatten();
    }
    if word == "turned" {
        return state.split(' ').nth(1).filter(|n| n.parse::<u32>().is_ok()).and_then(|n| found("age", n));
    }
    let job = state.strip_prefix("a ").or_else(|| state.strip_prefix("an "))?;
    let first = job.split([' ', '.', ',']).next().unwrap_or("");
    if NOT_JOBS.contains(&first) || DIETS.contains(&first) {
        return None;
    }
    found("job", job)
}

/// "Please call me Dan", "Always answer in Spanish": the user, by order.
fn order(lower: &str) -> Option<Claim> {
    let (cue, attribute) = ORDERS.iter().find(|(cue, _)| lower.contains(&format!(" {cue}")))?;
    let at = lower.find(&format!(" {cue}"))? + cue.len() + 1;
    let v = value(lower.get(at..)?);
    if *attribute == "answer_language" && !LANGUAGES.contains(&v.as_str()) {
        return None;
    }
    Some(Claim { subject: Subject::User, attribute, value: v })
}

/// The subject at the start of `lower` (and `text`, for capitals), and what follows it.
fn subject<'a>(text: &str, lower: &'a str) -> Option<(Subject, &'a str)> {
    if let Some(r) = lower.strip_prefix("i ") {
        return Some((Subject::User, r));
    }
    for user in ["the user 's ", "the user ", "user 's ", "user ", "my "] {
        if let Some(r) = lower.strip_prefix(user) {
            let next = r.split(' ').next().unwrap_or("");
            if user == "my " && crate::semantic::people::EN.contains(&next) {
                return Some((Subject::Other(next.to_string()), crate::semantic::trim_prefixes(r.get(next.len()..)?.trim_start(), "'s ")));
            }
            return Some((Subject::User, r));
        }
    }
    // A name: a capitalized first word that is not a pronoun or an article.
    let first = text.split([' ', '\'']).next()?;
    let lower_first = crate::lowercase::lowercase(first);
    if first.chars().next().is_some_and(char::is_uppercase)
        && !NOT_NAMES.contains(&lower_first.as_str())
        && first.chars().all(char::is_alphabetic)
    {
        let r = lower.get(lower_first.len()..)?.trim_start();
        return Some((Subject::Other(lower_first), r.strip_prefix("'s ").unwrap_or(r)));
    }
    None
}
