//! The English rules of `learn` (see its module docs): words are matched
//! lowercased, at the start of a clause, after fillers and adverbs.

use super::en_words::*;
use super::{fact, is_han, preference, Statement};

struct Word {
    lower: String,
    capital: bool,
}

pub(super) fn classify(s: &str) -> Option<Statement> {
    let words = words(s);
    let lower: Vec<&str> = words.iter().map(|w| w.lower.as_str()).collect();
    if is_question(&lower) {
        return None;
    }
    if let Some(st) = name_called(&words, &lower) {
        return Some(st);
    }
    // "My partner and I share a flat": the user and family, said as "we".
    let lower = joint_subject(&lower);
    // A clause that is only an opener ("Going forward, keep …") says nothing.
    let clauses: Vec<Vec<&str>> =
        lower.split(|w| *w == ",").map(clause).filter(|c| !c.is_empty() && !FILLERS.contains(&c.as_slice())).collect();
    let first = clauses.first()?;
    let once = ONCE.iter().any(|p| contains(&lower, p)) && !contains(&lower, &["these", "days"]);
    if let Some(head) = first.first().filter(|w| IMPERATIVES.contains(w)) {
        // "When I ask about code, assume …": the condition, then the order.
        let ordered =
            !matches!(*head, "when" | "whenever") || clauses.iter().skip(1).any(|c| c.first().is_some_and(|w| IMPERATIVES.contains(w)));
        return if ordered { rule(first, &lower) } else { None };
    }
    // "Markdown is fine", "Short replies work best for me": the answers'
    // form as the subject says how the user wants them.
    let form_subject = match first.as_slice() {
        [w, ..] | [_, w, ..] if ANSWER_FORMS.contains(w) => !first.first().is_some_and(|d| DETERMINERS.contains(d)),
        _ => false,
    };
    let suits = [&["best", "for", "me"][..], &["better", "for", "me"], &["fine", "by", "me"], &["fine", "with", "me"]]
        .iter()
        .any(|p| contains(&lower, p))
        && !first.first().is_some_and(|d| DETERMINERS.contains(d));
    if !once && (form_subject || suits) {
        return preference(None);
    }
    let not_now = NOT_NOW.iter().any(|p| contains(&lower, p));
    // "Shellfish gives me hives": a constraint whose subject is its cause
    // (the present tense: "that burger gave me heartburn" was one meal).
    let causes = first.windows(3).any(|w| matches!(w, ["gives" | "give" | "makes" | "make", "me", s] if SYMPTOMS.contains(s)))
        || first.windows(4).any(|w| matches!(w, ["doesn't" | "don't", "agree", "with", "me"]))
        || first.windows(2).any(|w| matches!(w, ["scare" | "scares", "me"]));
    if causes && !once && !not_now && !first.first().is_some_and(|d| DETERMINERS.contains(d)) {
        return preference(None);
    }
    // "Cilantro tastes like soap to me, so leave it out of recipes": a
    // standing order after "so" says the first clause is a lasting
    // constraint, whoever its grammatical subject (not someone else).
    if !once && !not_now && standing(first, &lower) {
        return preference(None);
    }
    // A word of one occasion silences its own clause, and the later ones
    // when it frames them ("For this trip, I'd rather …"), not when it sits
    // in an aside ("I'm sure I mentioned this, but I'm allergic to …").
    let once_in = |c: &[&str]| ONCE.iter().any(|p| contains(c, p)) && !contains(c, &["these", "days"]);
    let subject = |c: &[&str]| c.first().is_some_and(|w| matches!(*w, "i" | "i'm" | "i've" | "i'd" | "my" | "we" | "we're"));
    clauses.iter().enumerate().find_map(|(k, c)| {
        let framed = clauses.iter().take(k).any(|p| once_in(p) && !subject(p));
        about_user(c, &words, once_in(c) || framed, not_now)
    })
}

/// One clause whose subject is the user.
fn about_user(c: &[&str], words: &[Word], once: bool, not_now: bool) -> Option<Statement> {
    let head = *c.first()?;
    if starts(c, &["name's"]) {
        return fact(Some("name"));
    }
    // "Home for me is Vancouver", "Born and raised in Chicago".
    if starts(c, &["home", "for", "me", "is"]) || starts(c, &["home", "is"]) || starts(c, &["born", "and", "raised", "in"]) {
        return (!not_now).then_some(Statement { kind: crate::semantic::FactKind::Fact, key: Some("home_city") });
    }
    let taste_subject = is_my_taste(c) && !DETERMINERS.contains(&head);
    if !matches!(head, "i" | "i'm" | "i've" | "i'd" | "my" | "both" | "we" | "we're" | "we've" | "english") && !taste_subject {
        return None;
    }
    if head == "my" && c.get(1).is_some_and(|w| crate::semantic::people::EN.contains(w)) {
        return None;
    }
    if !once {
        if let Some(st) = likes(c) {
            return Some(st);
        }
    }
    if not_now {
        return None;
    }
    facts(c, words)
}

fn likes(c: &[&str]) -> Option<Statement> {
    let diet = || c.iter().any(|w| DIETS.contains(w) || *w == "low-sodium").then_some("diet");
    if let Some(cue) = CONSTRAINTS.iter().find(|p| starts(c, p)) {
        // "I can't do this": the object at hand, not a constraint.
        let object = c.get(cue.len()).copied().unwrap_or("");
        return if matches!(object, "it" | "that" | "this") { None } else { preference(diet()) };
    }
    // "I'm allergic to latex" (not "I'm sure she's allergic to latex").
    let other = c.iter().any(|w| matches!(*w, "she" | "he" | "they" | "she's" | "he's" | "they're"));
    if (c.contains(&"intolerant") || c.contains(&"allergic")) && !other {
        return preference(diet());
    }
    // "I get migraines from bright screens", "I've got a bad knee".
    if starts(c, &["i", "get"]) && c.get(2).is_some_and(|w| SYMPTOMS.contains(w)) {
        return preference(None);
    }
    if starts_any(c, &[&["i", "have"], &["i've", "got"]])
        && matches!(c.get(2..), Some(["a", "bad", b, ..] | ["bad", b, ..]) if BODY.contains(b))
    {
        return preference(None);
    }
    if starts(c, &["i'm", "on", "a"]) && c.iter().any(|w| DIETS.contains(w)) {
        return preference(Some("diet"));
    }
    if matches!(c, ["i'm" | "i've", d, ..] | ["i'm" | "i've", "a" | "been", d, ..] | ["i've", "been", "a", d, ..] | ["i", "am", d, ..] if DIETS.contains(d))
    {
        return preference(Some("diet"));
    }
    if c.contains(&"budget") && (starts(c, &["my"]) || starts(c, &["i"])) || starts_any(c, BUDGET) {
        return preference(Some("budget"));
    }
    if starts(c, &["my", "favorite"]) || starts(c, &["my", "favourite"]) || is_my_taste(c) {
        return preference(None);
    }
    // "I'm a big fan", "I'm more of a tea person", "I'm not much of a reader".
    if let ["i'm", after @ ..] = c {
        let np = after.iter().skip_while(|w| matches!(**w, "not" | "much" | "more" | "less" | "of")).collect::<Vec<_>>();
        if matches!(np.first(), Some(&&("a" | "an"))) && np.iter().skip(1).take(3).any(|w| TASTE.contains(w)) {
            return preference(None);
        }
    }
    // "I can spend about $300 a month": a number makes it a limit.
    if starts_any(c, &[&["i", "can", "spend"], &["i", "can", "afford"]])
        && c.iter().any(|w| w.starts_with(|ch: char| ch.is_ascii_digit() || ch == '$'))
    {
        return preference(Some("budget"));
    }
    if starts_any(c, &[&["i'd", "like", "you", "to"], &["i'd", "prefer", "you"], &["i'd", "rather", "you"]]) {
        return rule(c, c);
    }
    // "I'd love it if you always …": the "it" is the wish, not an object.
    if starts_any(c, &[&["i'd", "love", "it", "if", "you"], &["i'd", "like", "it", "if", "you"], &["i'd", "appreciate", "it", "if", "you"]])
    {
        return rule(c.get(5..).unwrap_or(&[]), c);
    }
    let cue = LIKES.iter().find(|p| starts(c, p))?;
    // "I love it", "I hate when this happens": a feeling about the moment.
    let object = c.get(cue.len()).copied().unwrap_or("");
    if matches!(object, "" | "it" | "that" | "this" | "how" | "when" | "what" | "the" | "your" | "you" | "these" | "those") {
        return None;
    }
    preference(None)
}

fn facts(c: &[&str], words: &[Word]) -> Option<Statement> {
    let home = [
        &["i've", "lived", "in"][..],
        &["i", "have", "lived", "in"],
        &["we're", "based", "in"],
        &["i'm", "from"],
        &["i", "am", "from"],
        &["i'm", "originally", "from"],
        &["my", "home", "is", "in"],
        &["i", "moved", "to"],
        &["i'm", "living", "in"],
        &["we're", "living", "in"],
        &["i've", "been", "living", "in"],
        &["i'm", "based"],
        &["i've", "been", "based"],
        &["we", "live"],
        &["we've", "lived"],
        &["i", "live"],
    ];
    if starts_any(c, &home) {
        return fact(Some("home_city"));
    }
    if starts(c, &["my", "name", "is"]) || starts(c, &["my", "name's"]) {
        return fact(Some("name"));
    }
    // "I've worked at Amazon since 2019": the perfect says it still holds
    // only with a "since" (else it is a past job).
    let since = c.contains(&"since");
    let perfect = [
        &["i've", "worked", "at"][..],
        &["i've", "worked", "for"],
        &["i've", "been", "working", "at"],
        &["i've", "been", "working", "for"],
    ];
    if starts_any(c, &[&["i", "work", "at"], &["i", "work", "for"], &["i've", "been", "at"], &["i'm", "working", "at"]])
        || since && starts_any(c, &perfect)
    {
        return fact(Some("employer"));
    }
    let trade = ["company", "firm", "living", "startup", "agency"];
    // "I run a small bakery" (not "I run a 10k every Sunday").
    let runs = starts_any(c, &[&["i", "run", "a"], &["i", "run", "my", "own"], &["i", "own", "a"]])
        && !c.iter().any(|w| w.starts_with(|ch: char| ch.is_ascii_digit()) || w.starts_with("marathon"));
    let shifts = starts_any(
        c,
        &[
            &["i", "work", "in"],
            &["i", "work", "nights"],
            &["i", "work", "night"],
            &["i", "work", "shifts"],
            &["i", "work", "from", "home"],
        ],
    );
    if runs
        || shifts
        || starts_any(c, &[&["i", "work", "as"], &["i", "teach"], &["i've", "been", "a"], &["i've", "been", "an"], &["my", "job", "is"]])
        || starts(c, &["i", "do"]) && c.iter().any(|w| trade.contains(w))
    {
        return fact(Some("job"));
    }
    if let ["i'm" | "i", ..] = c {
        let after = if starts(c, &["i", "am"]) { c.get(2..) } else { c.get(1..) };
        let after = after.unwrap_or(&[]);
        match after {
            [n, ..] | ["turning", n, ..] if n.chars().all(|ch| ch.is_ascii_digit()) => return fact(Some("age")),
            ["a" | "an", np @ ..] if np.iter().take(3).any(|w| ROLES.contains(w)) => return fact(None),
            ["in", "my", ..] => return fact(Some("age")),
            ["a" | "an", w, ..] if !matches!(*w, "bit" | "little" | "lot" | "huge" | "big" | "fan") => return fact(Some("job")),
            ["married" | "single" | "divorced" | "engaged" | "widowed" | "retired" | "left-handed" | "right-handed", ..] => {
                return fact(None)
            }
            ["the", "oldest" | "youngest" | "eldest" | "middle" | "only", ..] | ["an", "only", ..] => return fact(None),
            _ => {}
        }
        // "I'm Priya": a capitalized word right after "I'm" is a name.
        let named = c.first() == Some(&"i'm")
            && words.iter().position(|w| w.lower == "i'm").and_then(|i| words.get(i + 1)).is_some_and(|w| w.capital);
        if named {
            return fact(Some("name"));
        }
    }
    if c.windows(2).any(|w| w.first() == Some(&"turned") && w.get(1).is_some_and(|n| n.parse::<u32>().is_ok())) {
        return fact(Some("age"));
    }
    if starts_any(c, &[&["i", "have"], &["i've", "got"], &["we", "have"], &["we've", "got"], &["we", "share"]])
        && c.iter().any(|w| FAMILY.contains(w))
    {
        return fact(None);
    }
    // "My wife is a nurse", "Both my parents are doctors" (not "my husband
    // is allergic to shellfish": his constraint, not the user's).
    if matches!(c, ["my", r, "is" | "are", "a" | "an", _, ..] if CLOSE.contains(r))
        || starts_any(c, &[&["both", "my", "parents", "are"], &["my", "parents", "are", "both"]])
    {
        return fact(None);
    }
    let speaks = starts(c, &["i", "speak"]) && !c.get(2).is_some_and(|w| matches!(*w, "to" | "with"));
    if speaks || starts(c, &["i", "drive", "a"]) || starts(c, &["i", "grew", "up", "in"]) {
        return fact(None);
    }
    // "I've been playing chess for twelve years": a habit that has lasted
    // (not "I've been waiting for two weeks", which wants it to end).
    let span = c.windows(2).any(|w| {
        w.first() == Some(&"for") && w.get(1).is_some_and(|x| !matches!(*x, "a" | "an" | "the" | "my" | "me" | "you" | "it" | "this"))
    }) && c.iter().any(|w| matches!(*w, "years" | "decades" | "decade"));
    if let ["i've", "been", v, ..] = c {
        let lasting_verb = v.ends_with("ing")
            && !matches!(*v, "waiting" | "trying" | "thinking" | "looking" | "meaning" | "wanting" | "hoping" | "feeling");
        if lasting_verb && (span || c.contains(&"since")) {
            return if c.contains(&"with") { preference(None) } else { fact(None) };
        }
    }
    if c.windows(2).any(|w| w.first() == Some(&"my") && w.get(1).is_some_and(|x| matches!(*x, "first" | "second" | "native")))
        && c.contains(&"language")
    {
        return fact(None);
    }
    None
}

/// Whether a later clause is "so" and a standing order ("so skip the wine
/// pairings", "so I'd rather go by train") and the first clause is not
/// about someone else or something at hand.
fn standing(first: &[&str], lower: &[&str]) -> bool {
    let head = first.first().copied().unwrap_or("");
    let someone = matches!(head, "she" | "he" | "they" | "she's" | "he's" | "they're" | "we're" | "it" | "it's")
        || head == "my" && first.get(1).is_some_and(|w| crate::semantic::people::EN.contains(w))
        || head != "my" && DETERMINERS.contains(&head);
    // Read before `clause`, which drops "so" as a filler.
    let order = |c: &[&str]| match c.first().map(|_| clause(c)).unwrap_or_default().as_slice() {
        _ if c.first() != Some(&"so") => false,
        ["i'd", "rather", ..] | ["i", "avoid" | "always" | "never", ..] => true,
        [w, rest @ ..] => {
            let verb = IMPERATIVES.contains(w) || matches!(*w, "leave" | "watch" | "check" | "flag" | "scale" | "break");
            // "so keep it brief": the moment's "it", unless left out or skipped.
            verb && (matches!(*w, "leave" | "skip") || !rest.contains(&"it"))
        }
        _ => false,
    };
    !someone && lower.split(|w| *w == ",").skip(1).any(order)
}

/// "Peanut butter is my weakness", "Jazz is my thing".
fn is_my_taste(c: &[&str]) -> bool {
    c.windows(3).any(|w| matches!(w, ["is" | "are", "my", "thing" | "weakness" | "jam" | "go-to" | "favorite" | "favourite"]))
}

/// An imperative or a request addressed to the assistant (`first` its
/// first clause, `all` the sentence): a rule when it is lasting or about
/// the answers' form, and not about one occasion.
fn rule(first: &[&str], all: &[&str]) -> Option<Statement> {
    let lasting = first.first() == Some(&"stop")
        || LASTING.iter().any(|p| contains(all, p))
        || contains(all, &["call", "me"])
        || contains(all, &["address", "me"]);
    let form = all.iter().any(|w| FORM.contains(w));
    // "Write it shorter": the instruction's own object is at hand.
    let once = ONCE.iter().any(|p| contains(all, p)) || first.iter().any(|w| matches!(*w, "it" | "here"));
    if once || !(lasting || form && !all.contains(&"the")) {
        return None;
    }
    let language = all.iter().any(|w| LANGUAGES.contains(w))
        && all.iter().any(|w| matches!(*w, "answer" | "answers" | "reply" | "replies" | "respond" | "write"));
    preference(language.then_some("answer_language"))
}

/// "You can call me Tom", "call me Sam": a name (not "don't call me buddy").
fn name_called(words: &[Word], lower: &[&str]) -> Option<Statement> {
    let at = lower.windows(2).position(|w| w == ["call", "me"])?;
    let negated = at > 0 && lower.get(at - 1).is_some_and(|w| matches!(*w, "don't" | "never" | "not"));
    if negated || !words.get(at + 2).is_some_and(|w| w.capital) {
        return None;
    }
    fact(Some("name"))
}

fn is_question(w: &[&str]) -> bool {
    matches!(w, ["what" | "what's" | "which" | "who" | "where" | "why" | "how" | "do" | "does" | "did" | "can" | "could" | "would" | "should" | "is" | "are" | "will", next, ..] if !(*next == "not" || *next == "n't"))
        && !matches!(w, ["do", "not", ..])
}

/// "my partner and i …" → "we …".
fn joint_subject<'a>(w: &[&'a str]) -> Vec<&'a str> {
    match w {
        ["my", r, "and", "i", rest @ ..] if crate::semantic::people::EN.contains(r) => {
            std::iter::once("we").chain(rest.iter().copied()).collect()
        }
        _ => w.to_vec(),
    }
}

/// A clause without its leading fillers and with its adverbs dropped.
fn clause<'a>(c: &[&'a str]) -> Vec<&'a str> {
    let mut c = c;
    while let Some(f) = FILLERS.iter().find(|f| starts(c, f) && c.len() > f.len()) {
        c = c.get(f.len()..).unwrap_or(&[]);
    }
    c.iter().copied().filter(|w| !ADVERBS.contains(w)).collect()
}

/// Words, lowercased, with apostrophes kept and clause punctuation as ",";
/// a run of Han characters is one word, counted as capitalized (a name in
/// "I'm 李娜", an object in "I love 火锅").
fn words(s: &str) -> Vec<Word> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let push = |cur: &mut String, out: &mut Vec<Word>| {
        if !cur.is_empty() {
            let capital = cur.starts_with(|c: char| c.is_uppercase() || is_han(c));
            out.push(Word { lower: crate::lowercase::lowercase(cur), capital });
            cur.clear();
        }
    };
    for ch in s.chars() {
        if cur.chars().last().is_some_and(|l| is_han(l) != is_han(ch)) {
            push(&mut cur, &mut out);
        }
        if ch.is_alphanumeric() || ch == '\'' || ch == '-' || ch == '$' {
            cur.push(ch);
        } else {
            push(&mut cur, &mut out);
            if matches!(ch, ',' | ';' | ':' | '，' | '；' | '：') {
                out.push(Word { lower: ",".into(), capital: false });
            }
        }
    }
    push(&mut cur, &mut out);
    out
}

fn starts(c: &[&str], p: &[&str]) -> bool {
    c.len() >= p.len() && c.iter().zip(p).all(|(a, b)| a == b)
}

fn starts_any(c: &[&str], ps: &[&[&str]]) -> bool {
    ps.iter().any(|p| starts(c, p))
}

fn contains(c: &[&str], p: &[&str]) -> bool {
    c.windows(p.len()).any(|w| w == p)
}
