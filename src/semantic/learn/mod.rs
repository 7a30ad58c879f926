//! What a user sentence teaches about the user, if anything: the rule
//! behind the preferences and facts a compaction learns offline, and the
//! candidates it proposes to a model summarizer.
//!
//! A sentence is learned only when it states something *lasting* about
//! the user: a preference (likes and dislikes, a style or format wanted),
//! a rule for the assistant ("always answer in Chinese", "don't use
//! emojis"), a constraint (allergy, diet, budget, medical) or a personal
//! fact (name, home city, job or employer, the user's family, age). It
//! stays silent on one-off requests, feelings and exclamations, small talk,
//! questions, plans and one-time events, past states, and other people's
//! preferences and facts. Precision comes first: an unlearned turn is still
//! in the archive and searchable, a wrongly learned one is pinned into
//! every context.
//!
//! The rules, in both languages (a mixed sentence is read by the language
//! it starts in):
//! - a question is never learned, but a statement before it in the same
//!   sentence is ("I'm vegan, any ideas for dinner?");
//! - the subject must be the user ("I", "my", "我", or "my partner and I"),
//!   never "my sister", "他", "我老板"; or the sentence is an imperative
//!   addressed to the assistant that is lasting (always, never, from now
//!   on, when you…, 以后, 每次…) or about the answers' form (language,
//!   spelling, tone, emojis, tables, length);
//! - a cue word then says what the statement is (like, hate, allergic,
//!   vegetarian, 喜欢, 过敏; my name is, I live in, I work at, 我叫, 住在…),
//!   tested at the start of a clause so that "I don't know what I prefer"
//!   is not a preference;
//! - a lasting state said another way counts too: the progressive or
//!   "these days" ("I'm living in Lisbon these days"), the perfect with
//!   "since" ("I've worked at Amazon since 2019"), "I'm turning 40", a
//!   taste noun ("a huge football fan", "not a big coffee drinker"), the
//!   answers' form as subject ("Markdown is fine", "short replies work
//!   best for me"), a condition then an order ("When I ask about code,
//!   assume Linux"), 我家在…, 我做…的, 我九五年的, and a Chinese statement
//!   whose later clause is a standing request (我晕车，出行尽量…);
//! - a clause followed by ", so" and a standing order ("…, so leave it out
//!   of recipes", "…, so I'd rather go by train") is a constraint, unless
//!   it is about someone else or something at hand;
//! - a word of one occasion (today, tomorrow, this, right now, 今天, 明天,
//!   这, 打算) silences a preference or rule (in English, its own clause
//!   and the clauses it frames: "For this trip, I'd rather…", not an aside
//!   such as "I'm sure I mentioned this, but I'm allergic to…"); a plan or past marker ("going
//!   to", "used to", 下周, 要去) silences a fact; a liking of "it", "that"
//!   or "how you…" is a feeling about the moment, not a preference.
//!
//! Kinds: likes, dislikes, rules and constraints are `Preference`, so they
//! are pinned in every context: an allergy or a diet matters in an answer
//! about restaurants whatever the query was, and retrieval would bring it
//! only when the query names it. Name, home city, job, family and age are
//! `Fact`, retrieved when relevant. A key names an attribute with one value
//! (`name`, `home_city`, `employer`, `job`, `age`, `diet`, `budget`,
//! `answer_language`), so a later value supersedes the earlier; likes and
//! allergies are unkeyed, since several hold at once.
//!
//! Pure and deterministic; small tables of words, no regex.

mod en;
mod en_words;
mod zh;

use crate::semantic::FactKind;
use crate::summary::sentences;

/// What a sentence states about the user.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Statement {
    pub kind: FactKind,
    /// The attribute, for one that has a single value at a time.
    pub key: Option<&'static str>,
}

/// Longest sentence learned, in chars: a long one is a story or a pasted
/// text, not a statement to pin.
const MAX_CHARS: usize = 200;

/// What `sentence` states lastingly about the user, or `None`.
pub fn classify(sentence: &str) -> Option<Statement> {
    let s = sentence.trim();
    if s.is_empty() || s.chars().count() > MAX_CHARS {
        return None;
    }
    if let Some(q) = s.find(['?', '？']) {
        // "I live in Denver, is it worth getting snow tires?": the clauses
        // before the question may state something; the question does not.
        let before = s.get(..q).unwrap_or("");
        return before.rfind([',', '，', ';', '；']).and_then(|c| before.get(..c)).and_then(classify);
    }
    // A char at a time, not the pair as one pattern: `str::replace` is a
    // copy in the wasm per pattern type, and chars are replaced elsewhere.
    #[allow(clippy::collapsible_str_replace)]
    let s = s.replace('’', "'").replace('‘', "'");
    let rest = strip_please(&s);
    if rest.chars().next().is_some_and(is_han) {
        zh::classify(rest)
    } else {
        en::classify(&s)
    }
}

/// The sentences of a user's turn that state something lasting, with what.
pub fn statements(text: &str) -> Vec<(String, Statement)> {
    sentences(text).into_iter().filter_map(|s| classify(&s).map(|st| (s, st))).collect()
}

/// `s` without a leading English "please" (a mixed "please 用中文回答"
/// is read as Chinese).
fn strip_please(s: &str) -> &str {
    let t = s.trim_start();
    match t.get(..6) {
        Some(p) if p.eq_ignore_ascii_case("please") => t.get(6..).unwrap_or("").trim_start_matches([' ', ',', '，']),
        _ => t,
    }
}

pub(crate) fn is_han(c: char) -> bool {
    ('\u{4e00}'..='\u{9fff}').contains(&c)
}

fn preference(key: Option<&'static str>) -> Option<Statement> {
    Some(Statement { kind: FactKind::Preference, key })
}

fn fact(key: Option<&'static str>) -> Option<Statement> {
    Some(Statement { kind: FactKind::Fact, key })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(s: &str) -> Option<FactKind> {
        classify(s).map(|st| st.kind)
    }

    #[test]
    fn the_issues_examples() {
        assert_eq!(kind("That must have been awesome."), None);
        assert_eq!(kind("What's a favorite book you remember from your childhood?"), None);
        assert_eq!(kind("My sister always says she hates mornings"), None);
        assert_eq!(kind("I'm allergic to penicillin."), Some(FactKind::Preference));
        assert_eq!(kind("我对青霉素过敏。"), Some(FactKind::Preference));
        assert_eq!(kind("帮我查一下明天的天气"), None);
        assert_eq!(kind("他喜欢吃辣。"), None);
        assert_eq!(kind("Please book a table for tonight."), None);
        assert_eq!(kind("I'm going to Paris next week."), None);
    }

    #[test]
    fn rules_for_the_assistant_are_preferences_and_one_offs_are_not() {
        let rule = classify("Please always answer in Chinese from now on.");
        assert_eq!(rule, Some(Statement { kind: FactKind::Preference, key: Some("answer_language") }));
        assert_eq!(kind("Don't use emojis in your replies."), Some(FactKind::Preference));
        assert_eq!(kind("以后回答都用中文。"), Some(FactKind::Preference));
        assert_eq!(kind("Please keep the comments in this file."), None);
        assert_eq!(kind("这次写短一点。"), None);
        assert_eq!(kind("Remember to include the tax in the total."), None);
    }

    #[test]
    fn personal_facts_are_keyed_by_attribute() {
        let key = |s: &str| classify(s).and_then(|st| st.key);
        assert_eq!(key("My name is Daniel."), Some("name"));
        assert_eq!(key("我叫李明。"), Some("name"));
        assert_eq!(key("I live in Toronto."), Some("home_city"));
        assert_eq!(key("我住在上海。"), Some("home_city"));
        assert_eq!(key("I work at Stripe."), Some("employer"));
        assert_eq!(key("I'm vegetarian."), Some("diet"));
        assert_eq!(kind("I live in Toronto."), Some(FactKind::Fact));
        assert_eq!(kind("I used to live in Boston."), None);
        assert_eq!(kind("My friend lives in Chicago."), None);
        assert_eq!(kind("我朋友住在深圳。"), None);
    }

    #[test]
    fn feelings_about_the_moment_are_not_likes() {
        assert_eq!(kind("I love that idea!"), None);
        assert_eq!(kind("Haha I love it."), None);
        assert_eq!(kind("我特别喜欢你这个想法！"), None);
        assert_eq!(kind("I love sushi, especially salmon nigiri."), Some(FactKind::Preference));
        assert_eq!(kind("My favorite codename is BLUEHERON, use it for every surprise party."), Some(FactKind::Preference));
    }

    #[test]
    fn lasting_states_said_in_other_tenses_and_shapes() {
        let key = |s: &str| classify(s).and_then(|st| st.key);
        assert_eq!(key("I'm living in Porto these days."), Some("home_city"));
        assert_eq!(key("I've worked at Stripe since 2020."), Some("employer"));
        assert_eq!(kind("I've worked at Stripe before."), None);
        assert_eq!(key("I'm turning 30 in June."), Some("age"));
        assert_eq!(kind("My aunt turned 60 on Monday!"), None);
        assert_eq!(kind("I'm a big cricket fan."), Some(FactKind::Preference));
        assert_eq!(classify("I'm a single dad."), Some(Statement { kind: FactKind::Fact, key: None }));
        assert_eq!(kind("Tables are fine, but skip the emojis."), Some(FactKind::Preference));
        assert_eq!(kind("Your answers are great."), None);
        assert_eq!(kind("When I ask for SQL, assume Postgres."), Some(FactKind::Preference));
        assert_eq!(kind("When I was a kid, I lived in Rome."), None);
        assert_eq!(kind("I can't do gluten."), Some(FactKind::Preference));
        assert_eq!(kind("I can't do this anymore."), None);
    }

    #[test]
    fn chinese_home_trade_birth_year_and_standing_requests() {
        let key = |s: &str| classify(s).and_then(|st| st.key);
        assert_eq!(key("我家在杭州。"), Some("home_city"));
        assert_eq!(key("我是搞金融的。"), Some("job"));
        assert_eq!(kind("我在写一篇论文。"), None);
        assert_eq!(key("我八九年的。"), Some("age"));
        assert_eq!(kind("我晕船，安排行程的时候尽量别坐船。"), Some(FactKind::Preference));
        assert_eq!(key("同事们都叫我小李。"), Some("name"));
    }

    #[test]
    fn a_statement_before_a_question_and_an_aside_before_a_statement() {
        let key = |s: &str| classify(s).and_then(|st| st.key);
        assert_eq!(key("I live in Denver, is it worth getting snow tires?"), Some("home_city"));
        assert_eq!(kind("我对芒果过敏，这个甜品能吃吗？"), Some(FactKind::Preference));
        assert_eq!(kind("My wife is lactose intolerant, any dessert ideas?"), None);
        assert_eq!(kind("I'm in Denver for the weekend, what should I see?"), None);
        assert_eq!(kind("I'm pretty sure she's allergic to latex, can you check the gloves?"), None);
        assert_eq!(kind("I'm pretty sure I mentioned this, but I'm allergic to latex."), Some(FactKind::Preference));
        assert_eq!(kind("For this trip, I'd rather stay in hostels."), None);
        assert_eq!(kind("Going forward, keep code samples in Go."), Some(FactKind::Preference));
    }

    #[test]
    fn constraints_said_through_their_cause_and_the_users_close_family() {
        assert_eq!(kind("Shellfish gives me hives."), Some(FactKind::Preference));
        assert_eq!(kind("That burger gave me heartburn."), None);
        assert_eq!(kind("I've got a bad knee, so no running-heavy workouts for me."), Some(FactKind::Preference));
        assert_eq!(kind("Both my parents are doctors."), Some(FactKind::Fact));
        assert_eq!(kind("My husband is allergic to shellfish."), None);
        assert_eq!(kind("我爱人是医生。"), Some(FactKind::Fact));
        assert_eq!(kind("我爱人喜欢吃辣。"), None);
        assert_eq!(kind("我的 manager 很喜欢用 Notion。"), None);
        assert_eq!(kind("I've been playing chess competitively for twelve years."), Some(FactKind::Fact));
        assert_eq!(kind("I've been waiting for my visa for two years."), None);
    }

    #[test]
    fn a_standing_order_after_so_makes_the_reason_lasting() {
        assert_eq!(kind("Cilantro tastes like soap to me, so leave it out of recipes."), Some(FactKind::Preference));
        assert_eq!(kind("I'm afraid of flying, so I'd rather go by train when possible."), Some(FactKind::Preference));
        assert_eq!(kind("She's vegan, so book somewhere with good salads."), None);
        assert_eq!(kind("We're running late, so keep it brief."), None);
        assert_eq!(kind("The meeting moved, so skip the intro."), None);
        assert_eq!(kind("It's cold today, so suggest something warm to eat."), None);
        assert_eq!(kind("My roommate is vegan, so the fridge is full of tofu."), None);
    }

    #[test]
    fn a_turn_is_read_sentence_by_sentence() {
        let found = statements("Thanks! By the way, I'm allergic to peanuts. Can you find a bakery?");
        assert_eq!(found.len(), 1);
        assert_eq!(found.first().map(|(s, _)| s.as_str()), Some("By the way, I'm allergic to peanuts."));
    }
}
