//! Persistence through the sans-IO core: fault injection over thousands of
//! seeded runs, two writers on one namespace, reload equality, damage.

mod common;

use std::rc::Rc;

use agent_memory::controller::Options;
use agent_memory::cost::Usage;
use agent_memory::durable::Durable;
use agent_memory::message::{Message, Role};
use agent_memory::window::WindowConfig;
use common::storage::{Faulty, Map, Rng};
use serde_json::json;

fn options(writer: &str, fold_after: usize) -> Options {
    Options {
        writer: writer.into(),
        fold_after,
        working: WindowConfig { max_tokens: 120, ..WindowConfig::default() },
        ..common::options(true)
    }
}

fn texts(d: &Durable<Faulty>) -> Vec<String> {
    d.controller().unwrap().history().into_iter().map(|h| h.message.content_text()).collect()
}

/// Every acknowledged text is in `history`, in the order acknowledged, and nothing is there twice.
fn assert_acked_once_in_order(history: &[String], acked: &[String], seed: u64) {
    let mut unique = history.to_vec();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), history.len(), "seed {seed}: duplicates after reload");
    let mut it = history.iter();
    for a in acked {
        assert!(it.any(|h| h == a), "seed {seed}: acknowledged {a:?} lost or out of order");
    }
}

#[test]
fn every_acknowledged_message_survives_faults_and_crashes() {
    let counter = common::o200k();
    for seed in 1..=3000u64 {
        let map: Map = Rc::default();
        let mut rng = Rng(seed * 7919);
        let mut acked: Vec<String> = Vec::new();
        let mut durable = Durable::open(options("w1", 8), counter.clone(), Faulty::healthy(&map)).unwrap();
        *durable.storage() =
            Faulty { rng: Rng(seed), fail: 0.15, lost_ack: 0.05, life: Some((rng.next() % 120) as u32), ..Faulty::healthy(&map) };
        for i in 0..60 {
            let text = format!("turn {i} of run {seed}: 我们明天 meet at {}", rng.next() % 1000);
            let role = if i % 2 == 0 { Role::User } else { Role::Assistant };
            match durable.add(Message::text(role, text.clone()), i as f64) {
                Ok(_) => acked.push(text),
                Err(e) => assert_eq!(e.code(), "STORAGE_ERROR", "{e}"),
            }
            if i % 10 == 9 {
                let _ = durable.record_usage("gpt-4o", &Usage { prompt_tokens: 100, completion_tokens: 10, ..Usage::default() }, i as f64);
            }
        }
        drop(durable); // the process dies; only the map survives
        let reloaded = Durable::open(options("w2", 8), counter.clone(), Faulty::healthy(&map)).unwrap();
        let history = texts(&reloaded);
        assert_acked_once_in_order(&history, &acked, seed);
        assert!(reloaded.controller().unwrap().load_report().corrupt.is_empty());
        // A compaction whose save landed but was reported failed, then redone, leaves no message in two episodes.
        let c = reloaded.controller().unwrap();
        for h in c.history().iter().filter(|h| h.place == agent_memory::window::Place::Archived) {
            let n = c.episodes().iter().filter(|e| e.message_ids.contains(&h.id)).count();
            assert_eq!(n, 1, "seed {seed}: archived {} is in {n} episodes", h.id);
        }
    }
}

#[test]
fn reload_equals_the_state_that_was_saved() {
    let counter = common::o200k();
    let map: Map = Rc::default();
    let mut d = Durable::open(options("w1", 16), counter.clone(), Faulty::healthy(&map)).unwrap();
    d.add(Message::text(Role::System, "You are terse."), 0.0).unwrap();
    for i in 1..200 {
        let m = match i % 7 {
            3 => Message::parse(&json!({"role":"assistant","content":null,"tool_calls":[{"id":format!("c{i}"),"type":"function","function":{"name":"f","arguments":"{}"}}]})).unwrap(),
            4 => Message::parse(&json!({"role":"tool","tool_call_id":format!("c{}", i - 1),"content":"42"})).unwrap(),
            _ => Message::text(if i % 2 == 0 { Role::User } else { Role::Assistant }, format!("message {i}: 记住 the hotel is near 春熙路")),
        };
        d.add(m, i as f64).unwrap();
        if i % 20 == 0 {
            d.record_usage(
                "deepseek-v3.2",
                &Usage { prompt_tokens: 1000, completion_tokens: 50, cached_prompt_tokens: 100, ..Usage::default() },
                i as f64,
            )
            .unwrap();
        }
    }
    let r = Durable::open(options("w2", 16), counter, Faulty::healthy(&map)).unwrap();
    // Archived messages are counted when first asked for, not on open: as on add.
    assert!(r.controller().unwrap().stats().messages.archived > 100);
    assert_eq!(r.controller().unwrap().stats().tokens, d.controller().unwrap().stats().tokens);
    assert_eq!(r.controller().unwrap().history(), d.controller().unwrap().history());
    assert_eq!(r.controller().unwrap().episodes(), d.controller().unwrap().episodes());
    assert_eq!(r.controller().unwrap().stats().cost, d.controller().unwrap().stats().cost);
    assert_eq!(r.controller().unwrap().stats().messages, d.controller().unwrap().stats().messages);
    // Folding kept the key count small: a log of fewer than 16 records, and
    // small segments merged four of a size into one (at most three per tier).
    let records = r.controller().unwrap().load_report().records;
    assert!(map.borrow().len() <= 15 + 3 * 4, "{} keys for {records} records", map.borrow().len());
    assert!(map.borrow().keys().any(|k| k[1] == "seg"));
}

#[test]
fn two_writers_merge_to_the_same_union() {
    let counter = common::o200k();
    let map: Map = Rc::default();
    let mut a = Durable::open(options("tabA", 10), counter.clone(), Faulty::healthy(&map)).unwrap();
    let mut b = Durable::open(options("tabB", 10), counter.clone(), Faulty::healthy(&map)).unwrap();
    for i in 0..80 {
        let (d, who) = if i % 3 == 0 { (&mut b, "B") } else { (&mut a, "A") };
        d.add(Message::text(Role::User, format!("{who} says {i}")), i as f64).unwrap();
    }
    let r1 = Durable::open(options("r1", 10), counter.clone(), Faulty::healthy(&map)).unwrap();
    let r2 = Durable::open(options("r2", 10), counter, Faulty::healthy(&map)).unwrap();
    let h = texts(&r1);
    assert_eq!(h, texts(&r2), "deterministic order");
    assert_eq!(h.len(), 80);
    let want: Vec<String> = (0..80).map(|i| format!("{} says {i}", if i % 3 == 0 { "B" } else { "A" })).collect();
    assert_eq!(h, want);
}

#[test]
fn damaged_values_are_reported_and_the_rest_loads() {
    let counter = common::o200k();
    let map: Map = Rc::default();
    let mut d = Durable::open(options("w1", 1000), counter.clone(), Faulty::healthy(&map)).unwrap();
    for i in 0..10 {
        d.add(Message::text(Role::User, format!("m{i}")), i as f64).unwrap();
    }
    let victim = map.borrow().keys().nth(3).unwrap().clone();
    let len = map.borrow()[&victim].len();
    map.borrow_mut().get_mut(&victim).unwrap().truncate(len - 3);
    let r = Durable::open(options("w2", 1000), counter, Faulty::healthy(&map)).unwrap();
    let report = r.controller().unwrap().load_report().clone();
    assert_eq!(report.corrupt.len(), 1);
    assert_eq!(report.corrupt[0].key, victim);
    assert_eq!(report.corrupt[0].code, "CORRUPT_DATA");
    assert_eq!(r.controller().unwrap().history().len(), 9);
}

#[test]
fn a_failed_add_changes_nothing_and_a_retry_succeeds() {
    let map: Map = Rc::default();
    let mut d = Durable::open(options("w1", 1000), common::o200k(), Faulty::healthy(&map)).unwrap();
    d.add(Message::text(Role::User, "first"), 1.0).unwrap();
    let before = d.controller().unwrap().history();
    d.storage().fail = 1.0;
    assert_eq!(d.add(Message::text(Role::User, "second"), 2.0).unwrap_err().code(), "STORAGE_ERROR");
    assert_eq!(d.controller().unwrap().history(), before);
    d.storage().fail = 0.0;
    let id = d.add(Message::text(Role::User, "second"), 3.0).unwrap().id;
    assert_eq!(d.controller().unwrap().history().len(), 2);
    assert!(d.controller().unwrap().history().iter().any(|h| h.id == id));
}

#[test]
fn namespaces_never_see_each_other() {
    let map: Map = Rc::default();
    let mut a = Durable::open(Options { namespace: "user".into(), ..options("w", 1000) }, common::o200k(), Faulty::healthy(&map)).unwrap();
    let mut b = Durable::open(Options { namespace: "user1".into(), ..options("w", 1000) }, common::o200k(), Faulty::healthy(&map)).unwrap();
    a.add(Message::text(Role::User, "a"), 1.0).unwrap();
    b.add(Message::text(Role::User, "b"), 1.0).unwrap();
    let ra = Durable::open(Options { namespace: "user".into(), ..options("x", 1000) }, common::o200k(), Faulty::healthy(&map)).unwrap();
    assert_eq!(texts(&ra), vec!["a".to_string()]);
}

fn stored_bytes(map: &Map) -> Vec<u8> {
    map.borrow().iter().flat_map(|(k, v)| k.join("/").into_bytes().into_iter().chain(v.iter().copied())).collect()
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle.as_bytes())
}

#[test]
fn forgetting_removes_the_text_from_every_stored_byte() {
    use agent_memory::controller::ForgetTarget;
    let counter = common::o200k();
    let map: Map = Rc::default();
    let mut d = Durable::open(options("w1", 12), counter.clone(), Faulty::healthy(&map)).unwrap();
    let secret = "我的银行卡密码是 ZEBRA-7731";
    let mut secret_id = String::new();
    for i in 0..80 {
        let text =
            if i == 5 { format!("记住：{secret}。") } else { format!("message {i} about the trip to Chengdu, 我们明天出发") };
        let added = d.add(Message::text(Role::User, text), i as f64).unwrap();
        if i == 5 {
            secret_id = added.id;
        }
    }
    assert!(d.controller().unwrap().episodes().iter().any(|e| e.summary.contains("ZEBRA-7731")), "the summary quoted it");
    assert!(contains(&stored_bytes(&map), "ZEBRA-7731"));
    let out = d.forget(&ForgetTarget::Message(secret_id.clone()), 100.0).unwrap();
    assert_eq!(out.messages, 1);
    assert_eq!(out.episodes_rewritten + out.episodes_dropped, 1);
    assert!(!contains(&stored_bytes(&map), "ZEBRA-7731"), "forgotten text still stored");
    assert!(!contains(&stored_bytes(&map), "银行卡密码"));
    // Memory agrees, and so does a reload; everything else is still there.
    assert!(d.controller().unwrap().history().iter().all(|h| h.id != secret_id));
    let r = Durable::open(options("w2", 12), counter.clone(), Faulty::healthy(&map)).unwrap();
    assert_eq!(r.controller().unwrap().history(), d.controller().unwrap().history());
    assert_eq!(r.controller().unwrap().history().len(), 79);
    assert!(r.controller().unwrap().episodes().iter().all(|e| !e.summary.contains("ZEBRA")));

    // A time range, then the whole namespace.
    let mut d = r;
    let out = d.forget(&ForgetTarget::Range { from: 10.0, to: 19.0 }, 101.0).unwrap();
    assert_eq!(out.messages, 10);
    assert!(!contains(&stored_bytes(&map), "message 15 about"));
    assert!(contains(&stored_bytes(&map), "message 25 about"));
    d.forget_namespace().unwrap();
    assert!(map.borrow().is_empty());
    assert!(d.controller().unwrap().history().is_empty());
}

#[test]
fn forgetting_a_thread_s_first_message_leaves_no_title_behind() {
    // Shelf records name each cold segment's first user message (a
    // thread's title without reading the cold segments): they are restated.
    use agent_memory::controller::ForgetTarget;
    let map: Map = Rc::default();
    let mut d = Durable::open(options("w1", 12), common::o200k(), Faulty::healthy(&map)).unwrap();
    let first = d.add(Message::text(Role::User, "my locker code is OSPREY-4417"), 0.0).unwrap().id;
    for i in 1..40 {
        d.add(Message::text(Role::User, format!("message {i} about the weekend")), i as f64).unwrap();
    }
    assert!(contains(&stored_bytes(&map), "OSPREY-4417"));
    d.forget(&ForgetTarget::Message(first), 50.0).unwrap();
    assert!(!contains(&stored_bytes(&map), "OSPREY-4417"), "the title is still stored");
    let r = Durable::open(options("w2", 12), common::o200k(), Faulty::healthy(&map)).unwrap();
    assert_eq!(r.controller().unwrap().history(), d.controller().unwrap().history());
    assert_eq!(r.controller().unwrap().threads(), d.controller().unwrap().threads());
}

#[test]
fn edit_and_regenerate_replace_the_tail_and_what_was_derived_from_it() {
    let counter = common::o200k();
    let map: Map = Rc::default();
    let mut d = Durable::open(options("w1", 12), counter.clone(), Faulty::healthy(&map)).unwrap();
    let mut ids = Vec::new();
    for i in 0..40 {
        let text = if i == 30 {
            "记住：酒店在春熙路 KESTREL-88 附近。".to_string()
        } else {
            format!("message {i} about the trip to Chengdu, 我们明天出发")
        };
        ids.push(d.add(Message::text(if i % 2 == 0 { Role::User } else { Role::Assistant }, text), i as f64).unwrap().id);
    }
    let before = d.controller().unwrap().history().len();
    // Regenerate: drop the last reply, keep the question.
    let out = d.forget(&agent_memory::controller::ForgetTarget::Tail { from: ids[38].clone(), inclusive: false }, 50.0).unwrap();
    assert_eq!(out.messages, 1);
    assert_eq!(d.controller().unwrap().history().last().unwrap().id, ids[38]);
    // A tool result answering nothing is refused against what would remain, and nothing changes.
    let bad = Message::parse(&json!({"role": "tool", "tool_call_id": "nope", "content": "x"})).unwrap();
    assert_eq!(d.replace(&ids[20], bad, 51.0).unwrap_err().code(), "TOOL_RESULT_WITHOUT_CALL");
    assert_eq!(d.controller().unwrap().history().len(), before - 1);
    assert_eq!(d.replace("m-nobody-1", Message::text(Role::User, "x"), 51.0).unwrap_err().code(), "INVALID_INPUT");
    // Edit message 20: it and everything after go (the hotel text with them,
    // from every stored byte), the new text takes its place.
    assert!(contains(&stored_bytes(&map), "KESTREL-88"));
    let added = d.replace(&ids[20], Message::text(Role::User, "edited question about 火锅"), 52.0).unwrap();
    assert_eq!(added.forgotten.as_ref().unwrap().messages, 19);
    let texts_now = texts(&d);
    assert_eq!(texts_now.len(), 21);
    assert_eq!(texts_now.last().unwrap(), "edited question about 火锅");
    assert!(!contains(&stored_bytes(&map), "KESTREL-88"), "the replaced tail is still stored");
    assert!(
        d.controller().unwrap().episodes().iter().all(|e| e.message_ids.iter().all(|m| d.controller().unwrap().has_message(m))),
        "an episode covers a removed message"
    );
    let r = Durable::open(options("w2", 12), counter, Faulty::healthy(&map)).unwrap();
    assert_eq!(r.controller().unwrap().history(), d.controller().unwrap().history());
    assert_eq!(r.controller().unwrap().episodes(), d.controller().unwrap().episodes());
}

/// A clock that ties and runs backwards: the same reading, a jump back of
/// up to ten seconds, or a step forward, at random.
fn wild_clock(rng: &mut Rng, now: &mut f64) -> f64 {
    match rng.next() % 4 {
        0 => {}
        1 => *now -= (rng.next() % 10_000) as f64,
        _ => *now += (rng.next() % 3) as f64,
    }
    *now
}

#[test]
fn order_is_causal_across_crashes_whatever_the_clock() {
    let counter = common::o200k();
    for seed in 1..=300u64 {
        let map: Map = Rc::default();
        let mut rng = Rng(seed * 104_729);
        let mut acked: Vec<String> = Vec::new();
        for life in 0..3u64 {
            // Later lives get smaller writer ids, so a tie broken by writer id
            // would put them first; each life's clock may start behind the last's.
            let writer = format!("w{}", 9 - life);
            let mut now = 1_000_000.0 - (rng.next() % 20_000) as f64;
            let Ok(mut d) = Durable::open(options(&writer, 8), counter.clone(), Faulty::healthy(&map)) else { continue };
            *d.storage() =
                Faulty { rng: Rng(seed + life), fail: 0.1, lost_ack: 0.05, life: Some((rng.next() % 80) as u32), ..Faulty::healthy(&map) };
            for i in 0..25 {
                let text = format!("life {life} turn {i} of run {seed}");
                if d.add(Message::text(if i % 2 == 0 { Role::User } else { Role::Assistant }, text.clone()), wild_clock(&mut rng, &mut now))
                    .is_ok()
                {
                    acked.push(text);
                }
            }
        }
        let reloaded = Durable::open(options("reader", 8), counter.clone(), Faulty::healthy(&map)).unwrap();
        let history = texts(&reloaded);
        assert_acked_once_in_order(&history, &acked, seed);
    }
}

#[test]
fn a_reopened_writer_goes_on_after_every_writer_it_loaded() {
    let counter = common::o200k();
    let map: Map = Rc::default();
    let mut a = Durable::open(options("tabA", 10), counter.clone(), Faulty::healthy(&map)).unwrap();
    let mut b = Durable::open(options("tabB", 10), counter.clone(), Faulty::healthy(&map)).unwrap();
    for i in 0..30 {
        let (d, who) = if i % 2 == 0 { (&mut a, "A") } else { (&mut b, "B") };
        d.add(Message::text(Role::User, format!("{who} {i}")), 5_000.0 + i as f64).unwrap();
    }
    drop(a);
    // Reopened on a machine whose clock is an hour behind, and named so a tie would sort it first.
    let mut again = Durable::open(options("tab0", 10), counter.clone(), Faulty::healthy(&map)).unwrap();
    for i in 30..35 {
        again.add(Message::text(Role::User, format!("A {i}")), 5_000.0 - 3_600_000.0).unwrap();
    }
    let reader = Durable::open(options("r", 10), counter, Faulty::healthy(&map)).unwrap();
    let h = texts(&reader);
    assert_eq!(h, texts(&again), "the writer's own view and a reader's agree");
    let want: Vec<String> = (0..35).map(|i| format!("{} {i}", if i % 2 == 0 || i >= 30 { "A" } else { "B" })).collect();
    assert_eq!(h, want);
    // Timestamps stay the clock's readings: metadata, not order.
    assert_eq!(reader.controller().unwrap().history().last().unwrap().ts, 5_000.0 - 3_600_000.0);
}

#[test]
fn records_of_0_1_keep_their_time_order_and_new_ones_follow() {
    use agent_memory::store::record::{encode_record, Record};
    let counter = common::o200k();
    let map: Map = Rc::default();
    // 0.1 wrote no `lc`: its records are ordered by time, then writer.
    for (writer, seq, ts, text) in [("old2", 1, 20.0, "second"), ("old1", 1, 10.0, "first"), ("old1", 2, 30.0, "third")] {
        let r = Record::Msg {
            writer: writer.into(),
            seq,
            lc: 0,
            ts,
            id: format!("m-{writer}-{seq}"),
            message: Message::text(Role::User, text),
            task: None,
            thread: None,
        };
        let bytes = encode_record(&r);
        assert!(!String::from_utf8_lossy(&bytes).contains("\"lc\""), "lc 0 is not written, as 0.1 wrote it");
        map.borrow_mut().insert(agent_memory::store::log_key(&options("x", 10).namespace, writer, seq), bytes);
    }
    let mut d = Durable::open(options("new", 10), counter.clone(), Faulty::healthy(&map)).unwrap();
    d.add(Message::text(Role::User, "fourth"), 1.0).unwrap();
    let r = Durable::open(options("r", 10), counter, Faulty::healthy(&map)).unwrap();
    assert_eq!(texts(&r), ["first", "second", "third", "fourth"]);
}

#[test]
fn export_then_import_is_lossless_under_any_namespace() {
    use agent_memory::semantic::RememberInput;
    let counter = common::o200k();
    for seed in 1..=20u64 {
        let mut rng = Rng(seed * 31_337);
        let map: Map = Rc::default();
        let mut d = Durable::open(options("w1", 10), counter.clone(), Faulty::healthy(&map)).unwrap();
        d.set_procedures(json!({ "rules": ["Answer in the user's language."] }), 0.0).unwrap();
        let mut ids = Vec::new();
        for i in 0..(20 + rng.next() % 40) {
            let text = format!("seed {seed} message {i}: 我们 {} 去成都", rng.next() % 100);
            ids.push(
                d.add(Message::text(if i % 2 == 0 { Role::User } else { Role::Assistant }, text), (rng.next() % 1000) as f64).unwrap().id,
            );
            if rng.next() % 5 == 0 {
                let key = format!("k{}", rng.next() % 3);
                d.remember(
                    RememberInput { text: format!("fact {i} of seed {seed}"), key: Some(key), ..RememberInput::default() },
                    i as f64,
                )
                .unwrap();
            }
            if rng.next() % 7 == 0 {
                d.record_usage("gpt-4o", &Usage { prompt_tokens: 100, completion_tokens: 5, ..Usage::default() }, i as f64).unwrap();
            }
        }
        let secret = ids[(rng.next() % ids.len() as u64) as usize].clone();
        d.forget(&agent_memory::controller::ForgetTarget::Message(secret.clone()), 2000.0).unwrap();
        let snapshot = d.controller().unwrap().export(true).unwrap();
        assert!(snapshot.starts_with("{\"agentMemorySnapshot\":1}\n"));
        assert!(!snapshot.contains(&format!("\"id\":\"{secret}\",\"message\"")), "seed {seed}: a forgotten message was exported");

        let other: Map = Rc::default();
        let mut target =
            Durable::open(Options { namespace: "another".into(), ..options("w9", 10) }, counter.clone(), Faulty::healthy(&other)).unwrap();
        target.import(&snapshot).unwrap();
        let reopened =
            Durable::open(Options { namespace: "another".into(), ..options("w8", 10) }, counter.clone(), Faulty::healthy(&other)).unwrap();
        for imported in [&target, &reopened] {
            let (a, b) = (d.controller().unwrap(), imported.controller().unwrap());
            assert_eq!(a.history(), b.history(), "seed {seed}");
            assert_eq!(a.episodes(), b.episodes(), "seed {seed}");
            assert_eq!(a.facts(), b.facts(), "seed {seed}");
            for k in ["k0", "k1", "k2"] {
                assert_eq!(a.fact_history(k), b.fact_history(k), "seed {seed}");
            }
            assert_eq!(a.stats().cost, b.stats().cost, "seed {seed}");
            assert_eq!(a.export(true).unwrap(), b.export(true).unwrap(), "seed {seed}: a second export differs");
        }
    }
}

#[test]
fn a_bad_snapshot_is_refused_and_changes_nothing() {
    let counter = common::o200k();
    let map: Map = Rc::default();
    let mut d = Durable::open(options("w1", 10), counter, Faulty::healthy(&map)).unwrap();
    d.add(Message::text(Role::User, "kept"), 1.0).unwrap();
    let before = map.borrow().clone();
    for (text, code) in [
        ("", "INVALID_INPUT"),
        ("{\"agentMemorySnapshot\":1}\n{\"msg\":{}}", "INVALID_INPUT"),
        ("{\"agentMemorySnapshot\":2}\n", "FORMAT_TOO_NEW"),
        ("[1,2]", "INVALID_INPUT"),
    ] {
        assert_eq!(d.import(text).unwrap_err().code(), code, "{text:?}");
    }
    assert_eq!(*map.borrow(), before);
    assert_eq!(texts(&d), ["kept"]);
}

#[test]
fn past_spending_stays_as_charged_when_prices_change() {
    use agent_memory::models::{ModelInfo, Tokenizer};
    let price = |input: f64| ModelInfo {
        tokenizer: Tokenizer::Estimate,
        context_window: 100_000,
        max_output: 4_000,
        input_price: input,
        cached_input_price: input / 10.0,
        output_price: input * 4.0,
        cache_write_price: None,
    };
    let with_price = |writer: &str, input: f64| Options { models: vec![("house-model".into(), price(input))], ..options(writer, 10) };
    let counter = common::o200k();
    let map: Map = Rc::default();
    let mut d = Durable::open(with_price("w1", 2.0), counter.clone(), Faulty::healthy(&map)).unwrap();
    let usage = Usage { prompt_tokens: 1_000_000, completion_tokens: 0, ..Usage::default() };
    assert_eq!(d.record_usage("house-model", &usage, 1.0).unwrap(), Some(2.0));
    // The price halves; what was spent does not, and new calls cost the new price.
    let mut r = Durable::open(with_price("w2", 1.0), counter, Faulty::healthy(&map)).unwrap();
    assert_eq!(r.controller().unwrap().stats().cost.usd, 2.0);
    assert_eq!(r.record_usage("house-model", &usage, 2.0).unwrap(), Some(1.0));
    assert_eq!(r.controller().unwrap().stats().cost.usd, 3.0);
}
