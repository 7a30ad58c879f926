//! Forgets are applied to memory in place (no second controller), so a
//! save that fails must put memory back: after a failed `forget` or
//! `replace`, memory answers exactly as before (history, episodes, facts,
//! search, context, export, the next record's key), a retry succeeds, and
//! what memory then shows is what reopening storage shows.

mod common;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use agent_memory::context::ContextRequest;
use agent_memory::controller::{Controller, ForgetTarget, Options, SearchOptions};
use agent_memory::durable::Durable;
use agent_memory::message::{Message, Role};
use agent_memory::semantic::RememberInput;
use agent_memory::window::WindowConfig;
use common::storage::{Faulty, Map};

fn options(writer: &str, thread: &str) -> Options {
    Options {
        writer: writer.into(),
        thread: thread.into(),
        fold_after: 6,
        working: WindowConfig { max_tokens: 160, ..WindowConfig::default() },
        ..common::options(true)
    }
}

/// Said by the user early on, then changed, between ordinary turns.
fn turn(i: usize) -> Message {
    let text = match i {
        3 => "I live in Chengdu.".to_string(),
        4 => "我是素食者，不吃肉。".to_string(),
        31 => "I live in Berlin now.".to_string(),
        _ => format!("turn {i}: the train to the coast, 第{i}次说到海边的旅馆和早餐。"),
    };
    Message::text(if i % 2 == 0 || i == 3 || i == 31 { Role::User } else { Role::Assistant }, text)
}

/// A tiny deterministic vector per text, so the hybrid path has vectors to undo.
fn vector(text: &str) -> Vec<f32> {
    let mut v = vec![0.0f32; 8];
    for (i, b) in text.bytes().enumerate() {
        if let Some(x) = v.get_mut((i + b as usize) % 8) {
            *x += f32::from(b) / 255.0;
        }
    }
    v
}

/// A namespace with another thread, compacted episodes, learned and
/// remembered facts, vectors, and folded segments.
fn stored() -> BTreeMap<agent_memory::store::Key, Vec<u8>> {
    let map: Map = Rc::default();
    let mut side = Durable::open(options("s", "side"), common::o200k(), Faulty::healthy(&map)).unwrap();
    for i in 0..6 {
        side.add(Message::text(Role::User, format!("side thread {i}: 另一个话题")), i as f64).unwrap();
    }
    drop(side);
    let mut d = Durable::open(options("w", "main"), common::o200k(), Faulty::healthy(&map)).unwrap();
    for i in 0..40 {
        d.add(turn(i), 100.0 + i as f64).unwrap();
    }
    let doc = RememberInput { key: Some("pet".into()), text: "The user's cat is called Mochi.".into(), ..Default::default() };
    d.remember(doc, 200.0).unwrap();
    d.remember(RememberInput { text: "Prefers window seats on trains.".into(), ..Default::default() }, 201.0).unwrap();
    let items = d.controller().unwrap().unembedded(500);
    let (ids, texts): (Vec<String>, Vec<String>) = items.into_iter().unzip();
    d.store_embeddings(ids, texts.iter().map(|t| vector(t)).collect()).unwrap();
    drop(d);
    let out = map.borrow().clone();
    out
}

/// Everything a reader can see of memory.
#[derive(Debug, PartialEq)]
struct Seen {
    history: Vec<(String, String)>,
    episodes: Vec<(String, String, Vec<String>)>,
    facts: Vec<(String, String, Option<f64>)>,
    search: Vec<String>,
    context: String,
}

fn seen(c: &Controller) -> Seen {
    let mut c = c.clone();
    let history = c.history().into_iter().map(|h| (h.id, h.message.content_text())).collect();
    let episodes = c.episodes().iter().map(|e| (e.id.clone(), e.summary.clone(), e.message_ids.clone())).collect();
    let facts = c.facts_as_of(None).into_iter().map(|f| (f.id, f.text, f.valid_until)).collect();
    let mut search = Vec::new();
    for q in ["where do I live", "海边的旅馆", "cat Mochi", "side thread 另一个话题"] {
        let opts = SearchOptions { k: Some(6), scope: agent_memory::controller::Scope::User, ..Default::default() };
        search.push(format!("{:?}", c.search(q, &opts, None).unwrap()));
        search.push(format!("{:?}", c.search(q, &opts, Some(&vector(q))).unwrap()));
    }
    let req = ContextRequest {
        max_tokens: 1500,
        query: Some("where do I live, and what do I eat?".into()),
        now: Some(1e6),
        ..Default::default()
    };
    let context = format!("{:?}", c.build_context(&req).unwrap());
    Seen { history, episodes, facts, search, context }
}

/// What only the writer itself sees: its export and the key of what it writes next.
fn own(c: &Controller) -> (String, Vec<String>) {
    let next = c.prepare_add_message(Message::text(Role::User, "next"), 1e6).unwrap();
    (c.export(true).unwrap(), next.write.key)
}

fn targets(c: &Controller) -> Vec<(&'static str, ForgetTarget)> {
    let h = c.history();
    let fact = |text: &str| c.facts().into_iter().find(|f| f.text.contains(text)).map(|f| f.id.clone()).unwrap();
    vec![
        ("an archived message", ForgetTarget::Message(h[6].id.clone())),
        ("the newest message", ForgetTarget::Message(h[h.len() - 1].id.clone())),
        ("a range", ForgetTarget::Range { from: 110.0, to: 125.0 }),
        ("a tail", ForgetTarget::Tail { from: h[20].id.clone(), inclusive: true }),
        ("a fact by id", ForgetTarget::Fact(fact("window seats"))),
        ("a key", ForgetTarget::Fact("pet".into())),
        ("this thread", ForgetTarget::Thread("main".into())),
        ("another thread", ForgetTarget::Thread("side".into())),
    ]
}

fn open(entries: &BTreeMap<agent_memory::store::Key, Vec<u8>>, writer: &str) -> (Durable<Faulty>, Map) {
    let map: Map = Rc::new(RefCell::new(entries.clone()));
    (Durable::open(options(writer, "main"), common::o200k(), Faulty::healthy(&map)).unwrap(), map)
}

#[test]
fn a_forget_whose_save_fails_leaves_memory_as_it_was_and_a_retry_reloads_alike() {
    let entries = stored();
    let names: Vec<(&str, ForgetTarget)> = targets(&open(&entries, "w").0.controller().unwrap());
    for (name, target) in names {
        let mut failures = 0;
        for life in 0.. {
            let (mut d, map) = open(&entries, "w");
            let before = (seen(&d.controller().unwrap()), own(&d.controller().unwrap()));
            d.storage().life = Some(life);
            let result = d.forget(&target, 1e5);
            d.storage().life = None;
            if let Err(e) = &result {
                failures += 1;
                assert_eq!(e.code(), "STORAGE_ERROR", "{name}, failing at operation {life}");
                let after = (seen(&d.controller().unwrap()), own(&d.controller().unwrap()));
                assert_eq!(after, before, "{name}: memory changed by a forget whose save {life} failed");
            }
            // (Again, or for the first time when nothing failed.)
            let done = result.is_ok() || d.forget(&target, 1e5).is_ok();
            assert!(done, "{name}: the retry after failure {life} failed");
            let shown = seen(&d.controller().unwrap());
            assert_ne!(shown, before.0, "{name}: the forget changed nothing");
            let (reopened, _) = open(&map.borrow(), "r");
            assert_eq!(seen(&reopened.controller().unwrap()), shown, "{name}: memory and storage differ after failure {life}");
            if result.is_ok() {
                break;
            }
        }
        assert!(failures >= 1, "{name}: no save was made to fail");
    }
}

/// A forget on a controller whose search index is built updates it in
/// place (what left leaves it, what is new is analyzed, the rest keeps its
/// terms): it answers as a controller that builds its index from storage,
/// and after a save that fails, as before.
#[test]
fn a_forget_on_a_built_index_answers_as_an_index_built_afresh() {
    let entries = stored();
    let names: Vec<(&str, ForgetTarget)> = targets(&open(&entries, "w").0.controller().unwrap());
    for (name, target) in names {
        for life in [None, Some(0), Some(2)] {
            let (mut d, map) = open(&entries, "w");
            // Everything read, then the index built in `d` itself (`seen` searches a copy of it).
            drop(d.controller().unwrap());
            d.search("where do I live", &SearchOptions::default()).unwrap();
            let before = seen(&d.controller().unwrap());
            d.storage().life = life;
            let result = d.forget(&target, 1e5);
            d.storage().life = None;
            let shown = seen(&d.controller().unwrap());
            if result.is_err() {
                assert_eq!(shown, before, "{name}: memory changed by a forget whose save {life:?} failed");
                continue;
            }
            assert_ne!(shown, before, "{name}: the forget changed nothing");
            let (reopened, _) = open(&map.borrow(), "r");
            assert_eq!(seen(&reopened.controller().unwrap()), shown, "{name}: the index updated in place differs");
        }
    }
}

#[test]
fn a_replace_whose_save_fails_or_is_refused_changes_nothing() {
    let entries = stored();
    let (d, _) = open(&entries, "w");
    let id = d.controller().unwrap().history()[20].id.clone();
    drop(d);
    for life in 0..3 {
        let (mut d, map) = open(&entries, "w");
        let before = (seen(&d.controller().unwrap()), own(&d.controller().unwrap()));
        d.storage().life = Some(life);
        let result = d.replace(&id, Message::text(Role::User, "edited: let's take the night bus instead"), 1e5);
        d.storage().life = None;
        match result {
            Err(e) => {
                assert_eq!(e.code(), "STORAGE_ERROR");
                assert_eq!((seen(&d.controller().unwrap()), own(&d.controller().unwrap())), before, "replace failing at {life}");
            }
            Ok(added) => {
                let shown = seen(&d.controller().unwrap());
                assert!(shown.history.iter().any(|(i, t)| *i == added.id && t.contains("night bus")));
                let (reopened, _) = open(&map.borrow(), "r");
                assert_eq!(seen(&reopened.controller().unwrap()), shown);
            }
        }
    }
    // A replacing message that cannot follow what remains is refused, in memory too.
    let (d, _) = open(&entries, "w");
    let mut c = d.controller().unwrap().clone();
    let before = (seen(&c), own(&c));
    let orphan = Message { tool_call_id: Some("call_nobody".into()), ..Message::text(Role::Tool, "42") };
    assert_eq!(c.prepare_replace(&id, orphan, None, 1e5).err().map(|e| e.code()), Some("TOOL_RESULT_WITHOUT_CALL"));
    assert_eq!((seen(&c), own(&c)), before);
}

#[test]
fn an_old_statement_learned_again_stays_behind_what_replaced_it() {
    let entries = stored();
    let (mut d, map) = open(&entries, "w");
    let home = |c: &Controller| c.facts().into_iter().filter(|f| f.text.contains("live in")).map(|f| f.text.clone()).collect::<Vec<_>>();
    assert_eq!(home(&d.controller().unwrap()), vec!["I live in Berlin now.".to_string()]);
    // A turn beside "I live in Chengdu" goes: its episode is summarized
    // again, and what it taught learned again, in its old place.
    let h = d.controller().unwrap().history();
    let beside = h.iter().position(|m| m.message.content_text() == "I live in Chengdu.").unwrap() + 1;
    let out = d.forget(&ForgetTarget::Message(h[beside].id.clone()), 1e5).unwrap();
    assert_eq!(out.episodes_rewritten, 1);
    assert_eq!(home(&d.controller().unwrap()), vec!["I live in Berlin now.".to_string()]);
    let (reopened, _) = open(&map.borrow(), "r");
    assert_eq!(home(&reopened.controller().unwrap()), home(&d.controller().unwrap()));
}
