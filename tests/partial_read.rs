//! A lexical query after opening reads the cold segments' stored terms and
//! episodes and decodes only the segments holding what it finds
//! (`controller::partial`): its search and its context equal those of a
//! controller that loaded everything, for every query after it too, and
//! a forget or a replace after it still scrubs everything.

mod common;

use std::rc::Rc;

use agent_memory::context::ContextRequest;
use agent_memory::controller::{ForgetTarget, Need, Options, Scope, SearchOptions};
use agent_memory::durable::Durable;
use agent_memory::message::{Message, Role};
use agent_memory::window::WindowConfig;

use common::storage::{Faulty, Map};

fn options(writer: &str, thread: &str) -> Options {
    Options {
        writer: writer.into(),
        thread: thread.into(),
        segment_bytes: 32 * 1024,
        working: WindowConfig { max_tokens: 800, ..WindowConfig::default() },
        ..common::options(true)
    }
}

/// A turn, in English or Chinese, some of them repeated word for word (ties).
fn turn(i: usize) -> Message {
    let role = if i % 2 == 0 { Role::User } else { Role::Assistant };
    match i % 11 {
        3 => Message::text(role, "ok, thanks!"),
        5 => Message::text(Role::User, format!("My booking code {i} is PELICAN{i}, 航班 CA{i} 周五起飞")),
        7 => Message::text(role, format!("我们第{i}次讨论了去成都的行程，酒店在春熙路附近。")),
        _ => Message::text(role, format!("turn {i}: we talked about the trip to Chengdu and the hotel near the river, item {}", i % 37)),
    }
}

/// A namespace of `n` messages in the default thread and some in another,
/// folded and archived as the package stores them.
fn namespace(n: usize) -> Map {
    let map: Map = Rc::default();
    let mut d = Durable::open(options("w", "default"), common::o200k(), Faulty::healthy(&map)).unwrap();
    d.add(Message::text(Role::System, "You are a travel agent for 成都 trips."), 0.0).unwrap();
    for i in 0..n {
        d.add(turn(i), i as f64).unwrap();
    }
    drop(d);
    let mut other = Durable::open(options("o", "work"), common::o200k(), Faulty::healthy(&map)).unwrap();
    for i in 0..n / 4 {
        other.add(turn(i * 3 + 1), (n + i) as f64).unwrap();
    }
    drop(other);
    let mut d = Durable::open(options("w", "default"), common::o200k(), Faulty::healthy(&map)).unwrap();
    for i in n..n + 40 {
        d.add(turn(i), i as f64).unwrap();
    }
    map
}

/// A controller that opened the namespace as the package does and read its archive whole.
fn loaded_whole(map: &Map, writer: &str) -> Durable<Faulty> {
    let d = Durable::open(options(writer, "default"), common::o200k(), Faulty::healthy(map)).unwrap();
    assert!(d.controller().unwrap().cold_ready());
    d
}

const QUERIES: &[&str] = &[
    "PELICAN104 booking code",
    "航班 周五",
    "第150次讨论",
    "trip to Chengdu hotel",
    "成都 travel agent",
    "ok thanks",
    "春熙路 酒店",
    "river item 12",
];

fn searches() -> Vec<SearchOptions> {
    vec![
        SearchOptions { k: Some(10), ..Default::default() },
        SearchOptions { k: Some(3), scope: Scope::Thread, ..Default::default() },
        SearchOptions { k: Some(25), from: Some(300.0), to: Some(1500.0), kinds: Some(vec!["message".into()]), ..Default::default() },
    ]
}

#[test]
fn a_query_reads_only_what_it_finds_and_answers_as_a_whole_read() {
    let map = namespace(2400);
    let whole = loaded_whole(&map, "f");
    let d = Durable::open(options("r", "default"), common::o200k(), Faulty::healthy(&map)).unwrap();
    assert!(!d.held().holds(Need::Everything));
    for (i, q) in QUERIES.iter().enumerate() {
        let req = ContextRequest { max_tokens: 3000, query: Some((*q).into()), now: Some(5000.0), ..Default::default() };
        assert_eq!(d.build_context(&req).unwrap(), whole.build_context(&req).unwrap(), "{q} (context)");
        for opts in searches() {
            let hits = d.search(q, &opts).unwrap();
            assert_eq!(hits, whole.search(q, &opts).unwrap(), "{q} ({opts:?})");
            if i == 0 && opts.k == Some(10) {
                assert!(hits.iter().any(|h| h.text.contains("PELICAN104")), "{hits:?}");
            }
        }
        // What a query reads is not the whole archive.
        assert!(!d.held().holds(Need::Everything), "{q}: the archive was read whole");
    }
    // A context for another thread's words, and one with a small budget.
    for req in [
        ContextRequest { max_tokens: 1200, query: Some("周五起飞".into()), now: Some(9000.0), ..Default::default() },
        ContextRequest { max_tokens: 8000, reserve_output: 500, query: Some("hotel near the river".into()), ..Default::default() },
        ContextRequest { max_tokens: 8000, semantic_tokens: Some(4000), query: Some("ok thanks, the trip".into()), ..Default::default() },
    ] {
        assert_eq!(d.build_context(&req).unwrap(), whole.build_context(&req).unwrap());
    }
    // A whole read after it (history) sees everything once, and answers alike.
    assert_eq!(d.controller().unwrap().history(), whole.controller().unwrap().history());
    for q in QUERIES {
        let opts = SearchOptions { k: Some(10), ..Default::default() };
        assert_eq!(d.search(q, &opts).unwrap(), whole.search(q, &opts).unwrap(), "{q} (after a whole read)");
    }
    assert_eq!(d.controller().unwrap().load_report(), whole.controller().unwrap().load_report());
    assert_eq!(d.controller().unwrap().episodes(), whole.controller().unwrap().episodes());
}

/// The archive's values of episodes only, as the package wrote them before
/// they held their terms (kind 2): how many there were, and how many held terms.
fn without_episode_terms(map: &Map) -> (usize, usize) {
    use agent_memory::store::record::{decode_indexed, encode_segments, Record};
    let (mut values, mut with_terms) = (0, 0);
    for (key, bytes) in map.borrow_mut().iter_mut().filter(|(k, _)| k.get(1).is_some_and(|k| k == "arc")) {
        let (_, records, terms) = decode_indexed(bytes).unwrap();
        if records.is_empty() || !records.iter().all(|r| matches!(r, Record::Episode { .. })) {
            continue;
        }
        values += 1;
        with_terms += usize::from(terms.is_some());
        let mut old = encode_segments(&records, usize::MAX);
        assert_eq!(old.len(), 1, "{key:?}");
        *bytes = old.remove(0).0;
    }
    (values, with_terms)
}

#[test]
fn episodes_are_recalled_alike_with_their_stored_terms_or_without() {
    let map = namespace(2400);
    let old: Map = Rc::new(map.borrow().clone().into());
    let (values, with_terms) = without_episode_terms(&old);
    // Written now, every archived value of episodes holds their terms.
    assert!(values > 2 && with_terms == values, "{values} values of episodes, {with_terms} with terms");
    let mut recalled = 0;
    for m in [&map, &old] {
        // (a context marks what it recalled: each reader answers the same queries in order)
        // A whole read builds the episodes' index from their stored terms,
        // or from their text where none are stored: alike.
        let whole = loaded_whole(&map, "f");
        let analyzed = loaded_whole(&Rc::new(old.borrow().clone().into()), "f");
        let d = Durable::open(options("r", "default"), common::o200k(), Faulty::healthy(m)).unwrap();
        for q in QUERIES.iter().chain(&["summary trip Chengdu hotel river", "PELICAN booking code 航班"]) {
            let req = ContextRequest { max_tokens: 3000, query: Some((*q).into()), now: Some(5000.0), ..Default::default() };
            let ctx = d.build_context(&req).unwrap();
            assert_eq!(ctx, whole.build_context(&req).unwrap(), "{q}");
            assert_eq!(ctx, analyzed.build_context(&req).unwrap(), "{q} (a whole read analyzing the episodes)");
            recalled += usize::from(serde_json::to_string(&ctx.messages).unwrap().contains("summary of earlier messages"));
        }
        assert!(!d.held().holds(Need::Everything));
    }
    // (the episodes' own index decided something)
    assert!(recalled > 0);
}

/// The archive's values holding messages, laid out as development builds
/// wrote them before the records' heads (kind 3): how many there were.
fn without_heads(map: &Map) -> usize {
    use agent_memory::store::record::{decode_indexed, Record};
    let mut values = 0;
    for (_, bytes) in map.borrow_mut().iter_mut().filter(|(k, _)| k.get(1).is_some_and(|k| k == "arc")) {
        let (version, records, terms) = decode_indexed(bytes).unwrap();
        let (Some(terms), true) = (terms, records.iter().any(|r| matches!(r, Record::Msg { .. }))) else { continue };
        let json = serde_json::to_vec(&records).unwrap();
        let mut payload = (json.len() as u32).to_le_bytes().to_vec();
        payload.extend_from_slice(&json);
        payload.extend_from_slice(terms);
        let mut value = b"AMEM".to_vec();
        value.extend_from_slice(&[version, 3]);
        value.extend_from_slice(&(payload.len() as u32).to_le_bytes());
        value.extend_from_slice(&agent_memory::store::crc::crc32(&payload).to_le_bytes());
        value.extend_from_slice(&payload);
        assert_eq!(decode_indexed(&value).unwrap(), (version, records.clone(), Some(terms)));
        *bytes = value;
        values += 1;
    }
    values
}

#[test]
fn a_segment_written_without_heads_makes_a_query_read_the_archive_whole_and_answer_alike() {
    let map = namespace(1600);
    let whole = loaded_whole(&map, "f");
    let old: Map = Rc::new(map.borrow().clone().into());
    assert!(without_heads(&old) > 2);
    let d = Durable::open(options("r", "default"), common::o200k(), Faulty::healthy(&old)).unwrap();
    for q in QUERIES {
        let req = ContextRequest { max_tokens: 3000, query: Some((*q).into()), now: Some(5000.0), ..Default::default() };
        assert_eq!(d.build_context(&req).unwrap(), whole.build_context(&req).unwrap(), "{q}");
        let opts = SearchOptions { k: Some(10), ..Default::default() };
        assert_eq!(d.search(q, &opts).unwrap(), whole.search(q, &opts).unwrap(), "{q}");
    }
    // (read whole: its heads are not there to skim)
    assert!(d.held().holds(Need::Everything));
    assert_eq!(d.controller().unwrap().load_report(), whole.controller().unwrap().load_report());
    // The same namespace as written now is read for the query only.
    let d = Durable::open(options("r", "default"), common::o200k(), Faulty::healthy(&map)).unwrap();
    let req = ContextRequest { max_tokens: 3000, query: Some(QUERIES[0].into()), now: Some(5000.0), ..Default::default() };
    assert_eq!(d.build_context(&req).unwrap(), whole.build_context(&req).unwrap());
    assert!(!d.held().holds(Need::Everything));
}

#[test]
fn a_whole_read_that_fails_after_a_query_leaves_later_queries_answering_as_a_whole_read() {
    let map = namespace(1600);
    let whole = loaded_whole(&map, "f");
    let d = Durable::open(options("r", "default"), common::o200k(), Faulty::healthy(&map)).unwrap();
    let req = |q: &str| ContextRequest { max_tokens: 3000, query: Some(q.into()), now: Some(5000.0), ..Default::default() };
    assert_eq!(d.build_context(&req(QUERIES[0])).unwrap(), whole.build_context(&req(QUERIES[0])).unwrap());
    assert!(!d.held().holds(Need::Everything));
    // A whole read frees the query's read before it reads; this one fails.
    d.storage().fail = 1.0;
    assert!(d.controller().is_err());
    assert!(!d.held().holds(Need::Query(agent_memory::controller::Query::Search(QUERIES[1], &SearchOptions::default()))));
    d.storage().fail = 0.0;
    for q in QUERIES {
        assert_eq!(d.build_context(&req(q)).unwrap(), whole.build_context(&req(q)).unwrap(), "{q}");
        let opts = SearchOptions { k: Some(10), ..Default::default() };
        assert_eq!(d.search(q, &opts).unwrap(), whole.search(q, &opts).unwrap(), "{q}");
    }
    // (the next query read the archive whole)
    assert!(d.held().holds(Need::Everything));
    assert_eq!(d.controller().unwrap().load_report(), whole.controller().unwrap().load_report());
}

#[test]
fn adds_after_a_partial_read_are_found_as_after_a_whole_one() {
    let map = namespace(1600);
    let mut d = Durable::open(options("r", "default"), common::o200k(), Faulty::healthy(&map)).unwrap();
    let opts = SearchOptions { k: Some(10), ..Default::default() };
    assert!(!d.search("PELICAN104", &opts).unwrap().is_empty());
    for i in 0..30 {
        d.add(turn(5000 + i), 6000.0 + i as f64).unwrap();
    }
    let whole = loaded_whole(&map, "f");
    for q in QUERIES.iter().chain(&["PELICAN5005 code", "turn 5013"]) {
        assert_eq!(d.search(q, &opts).unwrap(), whole.search(q, &opts).unwrap(), "{q}");
        let req = ContextRequest { max_tokens: 3000, query: Some((*q).into()), now: Some(7000.0), ..Default::default() };
        let (a, b) = (d.build_context(&req).unwrap(), whole.build_context(&req).unwrap());
        assert_eq!(a.sections, b.sections, "{q} (context sections)");
        assert_eq!(a, b, "{q} (context)");
    }
}

/// Whether a stored message or episode holds `needle` (a shelf record's
/// thread title is not looked at here).
fn contains(map: &Map, needle: &str) -> bool {
    use agent_memory::store::record::{decode, Record};
    map.borrow().values().flat_map(|v| decode(v).unwrap()).any(|r| match r {
        Record::Msg { message, .. } => message.content_text().contains(needle),
        Record::Episode { episode, .. } => episode.summary.contains(needle) || episode.key_points.iter().any(|k| k.contains(needle)),
        _ => false,
    })
}

#[test]
fn a_forget_or_a_replace_after_a_partial_read_scrubs_everything() {
    let map = namespace(1600);
    let mut d = Durable::open(options("r", "default"), common::o200k(), Faulty::healthy(&map)).unwrap();
    let opts = SearchOptions { k: Some(5), ..Default::default() };
    let hit = d.search("PELICAN104", &opts).unwrap().remove(0);
    assert!(hit.text.contains("PELICAN104"));
    assert!(!d.held().holds(Need::Everything));
    d.forget(&ForgetTarget::Message(hit.id.clone()), 9000.0).unwrap();
    assert!(!contains(&map, "PELICAN104,"), "the forgotten message left storage");
    assert!(d.search("PELICAN104", &opts).unwrap().iter().all(|h| !h.text.contains("PELICAN104,")));
    // Another controller opening the namespace reads the same, partially and whole.
    let reopened = Durable::open(options("s", "default"), common::o200k(), Faulty::healthy(&map)).unwrap();
    let whole = loaded_whole(&map, "f");
    for q in QUERIES {
        assert_eq!(reopened.search(q, &opts).unwrap(), whole.search(q, &opts).unwrap(), "{q}");
    }
    // A replace of an archived message (a message and everything after it
    // go), after a partial read and after a whole one, on twin copies.
    let target = reopened.search("第150次讨论", &opts).unwrap().remove(0);
    drop(reopened);
    let twin: Map = Rc::new(std::cell::RefCell::new(map.borrow().clone()));
    let mut e = Durable::open(options("t", "default"), common::o200k(), Faulty::healthy(&map)).unwrap();
    assert!(!e.search("第150次讨论", &opts).unwrap().is_empty());
    assert!(!e.held().holds(Need::Everything));
    let mut f = loaded_whole(&twin, "t");
    let replacement = Message::text(Role::User, "Let us start again from here.");
    assert_eq!(e.replace(&target.id, replacement.clone(), 9500.0).unwrap(), f.replace(&target.id, replacement, 9500.0).unwrap());
    assert!(!contains(&map, "我们第150次讨论"), "the replaced message left storage");
    assert!(!contains(&map, "PELICAN170,"), "what followed it left storage");
    assert_eq!(*map.borrow(), *twin.borrow(), "storage holds the same after either");
    for q in QUERIES {
        assert_eq!(e.search(q, &opts).unwrap(), f.search(q, &opts).unwrap(), "{q} (after the replace)");
    }
}

#[test]
fn a_message_line_of_the_recall_block_takes_at_least_min_line_tokens() {
    // The shortest: a one-letter name, no content (`controller::recall`'s lines).
    for counter in [common::o200k(), common::estimator()] {
        for line in ["\n- 1970-01-01 a: ", "\n- 2026-12-31 a (another conversation): "] {
            assert!(counter.count(line) >= agent_memory::context::MIN_LINE, "{line:?}: {}", counter.count(line));
        }
    }
}

/// Stores, as its own log value, a retry of the compaction behind the
/// oldest archived episode: the same messages, summarized again by another
/// writer after everything else (a save that landed, then was retried).
/// Returns the retry's summary.
fn retry_oldest_compaction(map: &Map) -> String {
    use agent_memory::store::record::{decode_indexed, encode_record, Record};
    let mut oldest: Option<(u64, Record)> = None;
    let mut lc = 0;
    for (key, bytes) in map.borrow().iter() {
        for r in decode_indexed(bytes).unwrap().1 {
            lc = lc.max(r.lc());
            if let Record::Episode { episode, .. } = &r {
                let archived = key.get(1).is_some_and(|k| k == "arc");
                if archived && oldest.as_ref().is_none_or(|(at, _)| episode.created_at < *at as f64) {
                    oldest = Some((episode.created_at as u64, r.clone()));
                }
            }
        }
    }
    let Some((_, Record::Episode { mut episode, thread, counted, .. })) = oldest else { panic!("no archived episode") };
    episode.id = "e-retried".into();
    episode.summary = format!("Summary retried: {}", episode.summary);
    let retry = Record::Episode { writer: "x".into(), seq: 1, lc: lc + 1, episode: episode.clone(), thread, counted };
    let key = map.borrow().keys().next().map(|k| vec![k[0].clone(), "log".into(), "x".into(), format!("{:016}", 1)]).unwrap();
    map.borrow_mut().insert(key, encode_record(&retry));
    episode.summary
}

#[test]
fn an_archived_episode_superseded_by_a_retry_is_left_out_as_a_whole_read_leaves_it() {
    let map = namespace(2400);
    let retried = retry_oldest_compaction(&map);
    let whole = loaded_whole(&map, "f");
    // The whole read keeps the retry and leaves the episode it supersedes out.
    let summaries: Vec<String> = whole.controller().unwrap().episodes().iter().map(|e| e.summary.clone()).collect();
    assert!(summaries.contains(&retried));
    assert!(!summaries.iter().any(|s| retried.ends_with(s.as_str()) && *s != retried));
    let d = Durable::open(options("r", "default"), common::o200k(), Faulty::healthy(&map)).unwrap();
    for q in QUERIES.iter().chain(&["Summary retried", "trip Chengdu hotel river summary"]) {
        let req = ContextRequest { max_tokens: 3000, query: Some((*q).into()), now: Some(5000.0), ..Default::default() };
        assert_eq!(d.build_context(&req).unwrap(), whole.build_context(&req).unwrap(), "{q} (context)");
        let opts = SearchOptions { k: Some(10), ..Default::default() };
        assert_eq!(d.search(q, &opts).unwrap(), whole.search(q, &opts).unwrap(), "{q} (search)");
    }
    assert_eq!(d.controller().unwrap().episodes(), whole.controller().unwrap().episodes());
}

/// The same chat written by two writers of other names: the search index
/// keys items by record identity, a hash of the writer's name, yet equal
/// scores (the repeated "ok, thanks!") rank alike, the older first.
#[test]
fn a_chat_replayed_by_another_writer_ranks_its_ties_alike_the_older_first() {
    let ranked = |writer: &str| {
        let map: Map = Rc::default();
        let mut d = Durable::open(options(writer, "default"), common::o200k(), Faulty::healthy(&map)).unwrap();
        let ids: Vec<String> = (0..300).map(|i| d.add(turn(i), i as f64).unwrap().id).collect();
        let opts = SearchOptions { k: Some(12), ..Default::default() };
        let hits = d.search("ok thanks", &opts).unwrap();
        hits.iter().map(|h| ids.iter().position(|id| *id == h.id).unwrap()).collect::<Vec<_>>()
    };
    let first = ranked("w");
    assert_eq!(first.len(), 12);
    // Each a repeat of the same text: equal scores, oldest first.
    assert!(first.windows(2).all(|w| w[0] < w[1]), "{first:?}");
    for writer in ["zz9", "another-writer", "w2"] {
        assert_eq!(ranked(writer), first, "{writer}");
    }
}
