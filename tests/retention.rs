//! Retention through the native host: records past their age leave every
//! stored byte at the next fold or open, as `forget` removes them, bounded
//! per call, with an injected clock (the `now` each call is given).

mod common;

use std::rc::Rc;

use agent_memory::controller::{CreateOptions, MaxAge, Options, Retention, SearchOptions};
use agent_memory::durable::Durable;
use agent_memory::message::{Message, Role};
use agent_memory::semantic::RememberInput;
use agent_memory::window::WindowConfig;
use common::storage::{Faulty, Map};

const DAY: f64 = 86_400_000.0;

fn age(ms: f64) -> Option<MaxAge> {
    Some(MaxAge { max_age_ms: ms })
}

fn options(writer: &str, retention: Retention) -> Options {
    Options {
        writer: writer.into(),
        fold_after: 12,
        working: WindowConfig { max_tokens: 120, ..WindowConfig::default() },
        retention,
        ..common::options(true)
    }
}

fn messages_for(ms: f64) -> Retention {
    Retention { messages: age(ms), ..Retention::default() }
}

fn stored(map: &Map) -> String {
    map.borrow().iter().map(|(k, v)| format!("{}\n{}\n", k.join("/"), String::from_utf8_lossy(v))).collect()
}

fn texts(d: &Durable<Faulty>) -> Vec<String> {
    d.controller().unwrap().history().into_iter().map(|h| h.message.content_text()).collect()
}

fn user(text: impl Into<String>) -> Message {
    Message::text(Role::User, text)
}

fn found(d: &Durable<Faulty>, query: &str) -> usize {
    let mut c = d.controller().unwrap().clone();
    let opts = SearchOptions { k: Some(50), ..SearchOptions::default() };
    c.search(query, &opts, None).unwrap().iter().filter(|h| h.text.contains(query)).count()
}

#[test]
fn a_message_expires_just_past_its_age_and_not_at_it() {
    let map: Map = Rc::default();
    let mut d = Durable::open(options("w1", messages_for(1000.0)), common::o200k(), Faulty::healthy(&map)).unwrap();
    d.add(user("the locker code is OSPREY-4417"), 0.0).unwrap();
    for i in 1..=10 {
        d.add(user(format!("message {i} about the weekend")), i as f64).unwrap();
    }
    // Exactly maxAgeMs old: kept.
    assert!(d.expire(1000.0).unwrap().is_none());
    assert!(stored(&map).contains("OSPREY-4417"));
    // Just past it: gone, from memory, search and every stored byte; the next one is not old enough yet.
    let out = d.expire(1000.5).unwrap().expect("the first message expired");
    assert_eq!(out.messages, 1);
    assert_eq!(texts(&d).len(), 10);
    assert!(!stored(&map).contains("OSPREY-4417"), "expired text still stored");
    assert_eq!(found(&d, "OSPREY"), 0);
    assert_eq!(d.controller().unwrap().stats().retention.messages, 1);
    // A change runs retention after its fold, at its own time.
    d.add(user("later"), 1003.5).unwrap();
    assert_eq!(texts(&d).first().map(String::as_str), Some("message 4 about the weekend"));
    // Reopened: the same memory, and retention's count kept in its tombstones.
    let r = Durable::open(options("w2", messages_for(1000.0)), common::o200k(), Faulty::healthy(&map)).unwrap();
    assert_eq!(r.controller().unwrap().history(), d.controller().unwrap().history());
    assert_eq!(r.controller().unwrap().stats().retention, d.controller().unwrap().stats().retention);
    assert_eq!(r.controller().unwrap().stats().retention.messages, 4);
}

#[test]
fn episodes_over_expired_messages_are_rewritten_without_them_then_removed() {
    let map: Map = Rc::default();
    let mut d = Durable::open(options("w1", messages_for(10.0 * DAY)), common::o200k(), Faulty::healthy(&map)).unwrap();
    d.add(Message::text(Role::System, "You are a travel assistant."), 0.0).unwrap();
    // A conversation a day, each message an hour apart: compaction archives
    // and summarizes the old ones, the summary quoting the secret.
    let mut at = 0.0;
    for day in 0..6 {
        for i in 0..8 {
            at = day as f64 * DAY + i as f64 * 3_600_000.0 + 1.0;
            let text = if day == 0 && i == 0 {
                "记住：我的护照号是 E12345678，酒店在春熙路。".to_string()
            } else {
                format!("day {day} message {i}: plans for Chengdu, 我们明天去宽窄巷子")
            };
            d.add(user(text), at).unwrap();
        }
    }
    let episodes = d.controller().unwrap().episodes().to_vec();
    assert!(episodes.iter().any(|e| e.summary.contains("E12345678")), "the summary quoted the passport number");
    assert!(stored(&map).contains("E12345678"));
    // Ten days and a moment after the first message: it alone expires, and
    // the episode over it and the next is summarized again from the next.
    let out = d.expire(10.0 * DAY + 1.5).unwrap().expect("day 0's first message expired");
    assert_eq!((out.messages, out.episodes_rewritten, out.episodes_dropped), (1, 1, 0));
    assert!(!stored(&map).contains("E12345678"), "the passport number is still stored");
    assert!(d.controller().unwrap().episodes().iter().all(|e| !e.summary.contains("E12345678")));
    assert_eq!(found(&d, "E12345678"), 0);
    assert_eq!(found(&d, "护照号"), 0);
    // Every episode covers only messages that remain.
    {
        let c = d.controller().unwrap();
        assert!(c.episodes().iter().all(|e| e.message_ids.iter().all(|m| c.has_message(m))));
    }
    // Much later: every message but the pinned system prompt, and the episodes with them.
    let mut calls = 0;
    while d.expire(at + 11.0 * DAY).unwrap().is_some() {
        calls += 1;
        assert!(calls < 10);
    }
    assert_eq!(texts(&d), vec!["You are a travel assistant.".to_string()]);
    assert!(d.controller().unwrap().episodes().is_empty());
    let stats = d.controller().unwrap().stats();
    assert_eq!(stats.retention.messages, 48);
    assert_eq!(stats.retention.rewritten, 1);
    assert_eq!(stats.retention.episodes as usize, episodes.len(), "every episode, the rewritten one too, removed in the end");
    assert!(!stored(&map).contains("宽窄巷子"));
    let r = Durable::open(options("w2", messages_for(10.0 * DAY)), common::o200k(), Faulty::healthy(&map)).unwrap();
    assert_eq!(r.controller().unwrap().history(), d.controller().unwrap().history());
    assert_eq!(r.controller().unwrap().episodes(), d.controller().unwrap().episodes());
    assert_eq!(r.controller().unwrap().stats().retention, stats.retention);
}

#[test]
fn a_large_expiry_is_spread_over_calls() {
    let map: Map = Rc::default();
    let retention = Retention { max_per_call: Some(16), ..messages_for(DAY) };
    let mut d = Durable::open(options("w1", retention.clone()), common::o200k(), Faulty::healthy(&map)).unwrap();
    for i in 0..100 {
        d.add(user(format!("note {i}: buy 花椒")), i as f64).unwrap();
    }
    let mut removed = Vec::new();
    while let Some(out) = d.expire(2.0 * DAY).unwrap() {
        removed.push(out.messages);
    }
    assert_eq!(removed, vec![16, 16, 16, 16, 16, 16, 4]);
    assert!(texts(&d).is_empty());
    // Oldest first: after one bounded call on a fresh namespace, the newest remain.
    let map: Map = Rc::default();
    let mut d = Durable::open(options("w1", retention), common::o200k(), Faulty::healthy(&map)).unwrap();
    for i in 0..40 {
        d.add(user(format!("note {i}: buy 花椒")), i as f64).unwrap();
    }
    d.expire(2.0 * DAY).unwrap();
    assert_eq!(texts(&d).first().map(String::as_str), Some("note 16: buy 花椒"));
}

#[test]
fn facts_are_kept_unless_their_age_is_given() {
    let map: Map = Rc::default();
    let mut d = Durable::open(options("w1", messages_for(DAY)), common::o200k(), Faulty::healthy(&map)).unwrap();
    let remember = |text: &str| RememberInput { text: text.into(), key: Some("diet".into()), ..RememberInput::default() };
    d.remember(remember("The user is vegetarian."), 0.0).unwrap();
    d.add(user("hello"), 1.0).unwrap();
    d.expire(10.0 * DAY).unwrap();
    assert!(texts(&d).is_empty());
    assert_eq!(d.controller().unwrap().facts().len(), 1, "facts have no default age");

    // With an age: every version past it goes at the next fold, a newer one
    // stays; a fact's age is from when it was stated, not from when it
    // became true.
    let retention = Retention { facts: age(DAY), ..Retention::default() };
    let mut d = Durable::open(options("w2", retention), common::o200k(), Faulty::healthy(&map)).unwrap();
    d.remember(remember("The user eats fish again."), 5.0 * DAY).unwrap();
    let diet = |d: &Durable<Faulty>| d.controller().unwrap().fact_history("diet").into_iter().map(|f| f.text).collect::<Vec<_>>();
    assert_eq!(diet(&d), vec!["The user eats fish again.".to_string()]);
    assert!(!stored(&map).contains("vegetarian"));
    let born =
        RememberInput { text: "The user was born in 1990.".into(), valid_from: Some(-20.0 * 365.0 * DAY), ..RememberInput::default() };
    d.remember(born, 5.5 * DAY).unwrap();
    assert_eq!(d.controller().unwrap().facts().len(), 2);
    let out = d.expire(6.0 * DAY + 1.0).unwrap().expect("the fish fact expired");
    assert_eq!(out.facts, 1);
    assert!(diet(&d).is_empty());
    let facts: Vec<String> = d.controller().unwrap().facts().iter().map(|f| f.text.clone()).collect();
    assert_eq!(facts, vec!["The user was born in 1990.".to_string()]);
    assert_eq!(d.controller().unwrap().stats().retention.facts, 2);
}

#[test]
fn an_episode_past_its_age_goes_with_its_messages_and_working_memory_stays() {
    let map: Map = Rc::default();
    let retention = Retention { episodes: age(DAY), ..Retention::default() };
    let mut d = Durable::open(options("w1", retention.clone()), common::o200k(), Faulty::healthy(&map)).unwrap();
    for i in 0..40 {
        d.add(user(format!("message {i}: the budget for 成都 is {i}00 yuan")), i as f64).unwrap();
    }
    let (archived, episodes) = {
        let c = d.controller().unwrap();
        (c.stats().messages.archived, c.episodes().len())
    };
    assert!(archived > 0 && episodes > 0);
    let working = d.controller().unwrap().stats().messages.working;
    let mut removed = 0;
    while let Some(out) = d.expire(2.0 * DAY).unwrap() {
        removed += out.messages;
        assert_eq!(out.episodes_rewritten, 0, "an episode goes whole");
    }
    let c = d.controller().unwrap();
    assert!(c.episodes().is_empty());
    assert_eq!(removed, archived);
    assert_eq!(c.stats().messages.total, working, "working memory is not an episode's");
    assert_eq!(c.stats().retention.episodes as usize, episodes);
}

#[test]
fn pinned_instructions_never_expire_and_other_threads_do() {
    let map: Map = Rc::default();
    let mut other =
        Durable::open(Options { thread: "trip".into(), ..options("w0", Retention::default()) }, common::o200k(), Faulty::healthy(&map))
            .unwrap();
    other.add(user("in the other thread: the gate is B22"), 0.0).unwrap();
    let mut d = Durable::open(options("w1", messages_for(DAY)), common::o200k(), Faulty::healthy(&map)).unwrap();
    d.add(Message::text(Role::System, "Answer in French."), 0.0).unwrap();
    d.add(user("bonjour"), 0.0).unwrap();
    d.expire(2.0 * DAY).unwrap().expect("both threads' messages expired");
    assert_eq!(texts(&d), vec!["Answer in French.".to_string()]);
    assert!(!stored(&map).contains("gate is B22"), "the other thread's message is still stored");
    let trip =
        Durable::open(Options { thread: "trip".into(), ..options("w2", Retention::default()) }, common::o200k(), Faulty::healthy(&map))
            .unwrap();
    assert!(texts(&trip).is_empty());
}

#[test]
fn bad_retention_options_are_refused_and_nothing_is_stored() {
    let map: Map = Rc::default();
    for bad in [
        messages_for(-1.0),
        messages_for(0.0),
        messages_for(f64::NAN),
        messages_for(f64::INFINITY),
        Retention { facts: age(-5.0), ..Retention::default() },
        Retention { max_per_call: Some(0), ..messages_for(DAY) },
    ] {
        let err = Durable::open(options("w1", bad.clone()), common::o200k(), Faulty::healthy(&map)).err().expect("refused");
        assert_eq!(err.code(), "INVALID_INPUT", "{bad:?}");
    }
    assert!(map.borrow().is_empty());
    // As JS passes them: an unknown kind or field, a null (what JSON.stringify makes of NaN), a fraction.
    for bad in [
        serde_json::json!({ "retention": { "chats": { "maxAgeMs": 1000 } } }),
        serde_json::json!({ "retention": { "messages": { "maxAge": 1000 } } }),
        serde_json::json!({ "retention": { "messages": { "maxAgeMs": null } } }),
        serde_json::json!({ "retention": { "messages": 1000 } }),
        serde_json::json!({ "retention": { "maxPerCall": 2.5 } }),
        serde_json::json!({ "retention": { "maxPerCall": -1 } }),
    ] {
        assert!(serde_json::from_value::<CreateOptions>(bad.clone()).is_err(), "{bad}");
    }
    let good: CreateOptions = serde_json::from_value(serde_json::json!({
        "retention": { "messages": { "maxAgeMs": 1000 }, "facts": { "maxAgeMs": 5 }, "maxPerCall": 3 }
    }))
    .unwrap();
    let opts = good.into_options("w".into());
    assert_eq!(opts.retention, Retention { messages: age(1000.0), facts: age(5.0), max_per_call: Some(3), ..Retention::default() });
}

/// The namespace of a crash test: a day of old turns (compacted) and a few new ones.
fn filled(map: &Map) {
    let mut d = Durable::open(options("w0", Retention::default()), common::o200k(), Faulty::healthy(map)).unwrap();
    for i in 0..24 {
        d.add(user(format!("old turn {i}: code HERON-{}", 1000 + i)), i as f64).unwrap();
    }
    for i in 0..6 {
        d.add(user(format!("new turn {i}")), 2.0 * DAY + i as f64).unwrap();
    }
}

#[test]
fn an_expiry_crashed_at_any_storage_operation_completes_when_reopened_and_loses_nothing_else() {
    let clean: Map = Rc::default();
    filled(&clean);
    let faulty = Faulty::healthy(&clean);
    let ops = faulty.ops.clone();
    let mut d = Durable::open(options("w1", messages_for(DAY)), common::o200k(), faulty).unwrap();
    let before = ops.get();
    d.expire(2.0 * DAY + 10.0).unwrap().expect("the old turns expired");
    let steps = ops.get() - before;
    let want = texts(&d);
    assert_eq!(want.len(), 6);
    assert!(steps > 5, "{steps} storage operations");
    for at in 0..steps as u32 {
        let map: Map = Rc::default();
        filled(&map);
        let mut d = Durable::open(options("w1", messages_for(DAY)), common::o200k(), Faulty::healthy(&map)).unwrap();
        d.storage().life = Some(at);
        let _ = d.expire(2.0 * DAY + 10.0);
        // Restarted, healthy: opening reads what was stored, the pass completes.
        let mut r = Durable::open(options("w2", messages_for(DAY)), common::o200k(), Faulty::healthy(&map)).unwrap();
        while r.expire(2.0 * DAY + 20.0).unwrap().is_some() {}
        assert!(r.controller().unwrap().load_report().corrupt.is_empty(), "crash at {at}");
        assert_eq!(texts(&r), want, "crash at {at}");
        assert!(!stored(&map).contains("HERON-"), "crash at {at}: an old turn is still stored");
        let c = r.controller().unwrap();
        assert!(c.episodes().iter().all(|e| e.message_ids.iter().all(|m| c.has_message(m))), "crash at {at}");
    }
}
