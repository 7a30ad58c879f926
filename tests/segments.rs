//! Bounded segments through the sans-IO core: what folding writes (value
//! sizes, bytes written against bytes stored), how small segments merge,
//! what a forget rewrites, the upgrade of format-1 values, and a crash at
//! every step of each.

mod common;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use agent_memory::context::ContextRequest;
use agent_memory::controller::{ForgetTarget, Options};
use agent_memory::durable::Durable;
use agent_memory::message::{Message, Role};
use agent_memory::store::record::decode_value;
use agent_memory::store::Key;
use agent_memory::window::WindowConfig;

use common::storage::{Faulty, Map};

/// A healthy storage over `map` that dies after `life` operations.
fn dying(map: &Map, life: Option<usize>) -> Faulty {
    Faulty { life: life.map(|l| l as u32), ..Faulty::healthy(map) }
}

/// A controller on `map`, and the sizes of what it saves.
fn counted(map: &Map, segment_bytes: usize, fold_after: usize) -> (Durable<Faulty>, Rc<RefCell<Vec<usize>>>) {
    let disk = Faulty::healthy(map);
    let written = disk.written.clone();
    (Durable::open(options("w", segment_bytes, fold_after), common::o200k(), disk).unwrap(), written)
}

fn options(writer: &str, segment_bytes: usize, fold_after: usize) -> Options {
    Options {
        writer: writer.into(),
        segment_bytes,
        fold_after,
        working: WindowConfig { max_tokens: 300, ..WindowConfig::default() },
        ..common::options(true)
    }
}

/// A chat turn of a usual size, numbered, in English and Chinese.
fn turn(i: usize) -> Message {
    let role = if i % 2 == 0 { Role::User } else { Role::Assistant };
    Message::text(role, format!("turn {i}: we talked about the trip to Chengdu, 我们第{i}次讨论了去成都的行程和酒店的预订。"))
}

fn stored(map: &Map) -> (usize, usize, usize) {
    let m = map.borrow();
    (m.len(), m.values().map(Vec::len).sum(), m.values().map(Vec::len).max().unwrap_or(0))
}

fn contains(map: &Map, needle: &str) -> bool {
    map.borrow().values().any(|v| v.windows(needle.len()).any(|w| w == needle.as_bytes()))
}

/// A reading method written without a thought for the archive: it reads
/// through `controller()`, the one way to read (as a binding method reads
/// through `WritePath::read`).
fn texts(d: &Durable<Faulty>) -> Vec<String> {
    d.controller().unwrap().history().into_iter().map(|h| h.message.content_text()).collect()
}

#[test]
fn bytes_written_stay_near_twice_what_is_stored_and_no_value_exceeds_the_limit() {
    const LIMIT: usize = 16 * 1024;
    let map: Map = Rc::default();
    let (mut d, written) = counted(&map, LIMIT, 1024);
    let mut largest_add = 0;
    for i in 0..3000 {
        let before: usize = written.borrow().iter().sum();
        d.add(turn(i), i as f64).unwrap();
        largest_add = largest_add.max(written.borrow().iter().sum::<usize>() - before);
    }
    assert!(d.controller().unwrap().episodes().len() > 50, "compaction ran");
    let (values, bytes, largest) = stored(&map);
    let total: usize = written.borrow().iter().sum();
    let ratio = total as f64 / bytes as f64;
    assert!(ratio <= 2.3, "written {total} / stored {bytes} = {ratio:.2}");
    assert!(largest <= LIMIT, "a value of {largest} bytes");
    // A fold writes about a quarter of the limit, never the history (here about 70 limits).
    assert!(bytes > 50 * LIMIT && largest_add <= LIMIT, "one add wrote {largest_add} bytes");
    // The log stays under a quarter of the limit. A fold writes its archived
    // messages and the rest as two segments, so one may be small: small
    // ones merge four of a size, so at most three wait per tier.
    let segments = map.borrow().keys().filter(|k| k[1] == "seg" || k[1] == "arc").count();
    assert!(values - segments <= LIMIT / 4 / 150, "{} log values", values - segments);
    let m = map.borrow();
    // Cold segments of episodes only merge while tiny (tier 3 and below).
    let episodes_only =
        |v: &[u8]| decode_value(v).is_ok_and(|(_, rs)| rs.iter().all(|r| matches!(r, agent_memory::store::record::Record::Episode { .. })));
    let small: Vec<u32> = m
        .iter()
        .filter(|(k, v)| k[1] == "seg" || (k[1] == "arc" && !episodes_only(v)))
        .map(|(_, v)| tier(v.len(), LIMIT / 8))
        .filter(|&t| t > 0)
        .collect();
    assert!((1..=8).all(|t| small.iter().filter(|&&x| x == t).count() <= 3), "small segments by tier: {small:?}");
    let tiny: Vec<u32> =
        m.iter().filter(|(k, v)| k[1] == "arc" && episodes_only(v)).map(|(_, v)| tier(v.len(), LIMIT / 8)).filter(|&t| t >= 3).collect();
    assert!((3..=8).all(|t| tiny.iter().filter(|&&x| x == t).count() <= 3), "tiny cold segments of episodes by tier: {tiny:?}");
    assert!(m.keys().any(|k| k[1] == "arc") && m.keys().any(|k| k[1] == "seg"), "cold segments and segments");
    drop(m);
    let r = Durable::open(options("r", LIMIT, 1024), common::o200k(), Faulty::healthy(&map)).unwrap();
    assert_eq!(r.controller().unwrap().history(), d.controller().unwrap().history());
    assert_eq!(r.controller().unwrap().episodes(), d.controller().unwrap().episodes());
    assert_eq!(r.controller().unwrap().load_report().duplicates, 0);
}

/// How many tiers of four a segment of `bytes` is below a full one (as `store::segments` tiers them).
fn tier(bytes: usize, full: usize) -> u32 {
    let (mut size, mut t) = (bytes, 0);
    while size < full {
        size *= 4;
        t += 1;
    }
    t
}

#[test]
fn small_segments_merge_four_of_a_size() {
    const LIMIT: usize = 64 * 1024;
    let map: Map = Rc::default();
    // A fold every 5 records: segments of about a kilobyte, merged up the tiers.
    let (mut d, written) = counted(&map, LIMIT, 5);
    for i in 0..1500 {
        d.add(turn(i), i as f64).unwrap();
        let mut per_tier: BTreeMap<u32, usize> = BTreeMap::new();
        for (k, v) in map.borrow().iter().filter(|(k, _)| k[1] == "seg") {
            let t = tier(v.len(), LIMIT / 8);
            if t > 0 {
                *per_tier.entry(t).or_default() += 1;
            }
            assert!(v.len() <= LIMIT, "{k:?}");
        }
        assert!(per_tier.values().all(|&n| n < 4), "after add {i}: {per_tier:?}");
    }
    let (values, bytes, _) = stored(&map);
    assert!(values < 5 + 3 * 5 + bytes / (LIMIT / 8), "{values} values for {bytes} bytes");
    // Each record climbs at most four tiers: written at most six times (log, first segment, four merges).
    let total: usize = written.borrow().iter().sum();
    assert!((total as f64) < 6.0 * bytes as f64, "written {total} for {bytes}");
    let r = Durable::open(options("r", LIMIT, 5), common::o200k(), Faulty::healthy(&map)).unwrap();
    assert_eq!(r.controller().unwrap().history(), d.controller().unwrap().history());
}

#[test]
fn forget_rewrites_only_the_values_that_held_what_goes() {
    const LIMIT: usize = 8 * 1024;
    let map: Map = Rc::default();
    let mut d = Durable::open(options("w", LIMIT, 1024), common::o200k(), Faulty::healthy(&map)).unwrap();
    let secret = "my passport number is E12345678";
    let mut secret_id = String::new();
    for i in 0..600 {
        let m = if i == 300 { Message::text(Role::User, format!("记住：{secret}。")) } else { turn(i) };
        let id = d.add(m, i as f64).unwrap().id;
        if i == 300 {
            secret_id = id;
        }
    }
    assert!(d.controller().unwrap().episodes().iter().any(|e| e.summary.contains("E12345678")), "a summary quoted it");
    let before = map.borrow().clone();
    let holding: Vec<Key> = before.iter().filter(|(_, v)| v.windows(9).any(|w| w == b"E12345678")).map(|(k, _)| k.clone()).collect();
    assert!(holding.len() >= 2 && before.len() > 20, "{} of {} values hold it", holding.len(), before.len());
    let out = d.forget(&ForgetTarget::Message(secret_id.clone()), 1000.0).unwrap();
    assert_eq!((out.messages, out.episodes_rewritten, out.pending_removals), (1, 1, 0));
    assert!(!contains(&map, "E12345678") && !contains(&map, "passport"), "forgotten text still stored");
    // Every other value is untouched: same key, same bytes.
    let after = map.borrow().clone();
    let gone: Vec<&Key> = before.keys().filter(|k| !after.contains_key(*k)).collect();
    for (k, v) in before.iter().filter(|(k, _)| after.contains_key(*k)) {
        assert_eq!(&after[k], v, "{k:?} was rewritten");
    }
    for k in &gone {
        assert!(holding.contains(k), "{k:?} held nothing forgotten, yet was removed");
    }
    let new: usize = after.iter().filter(|(k, _)| !before.contains_key(*k)).map(|(_, v)| v.len()).sum();
    let old: usize = gone.iter().map(|k| before[*k].len()).sum();
    assert!(new <= old + 2048, "the forget wrote {new} bytes to replace {old}");
    let r = Durable::open(options("r", LIMIT, 1024), common::o200k(), Faulty::healthy(&map)).unwrap();
    assert_eq!(r.controller().unwrap().history(), d.controller().unwrap().history());
    assert_eq!(r.controller().unwrap().history().len(), 599);
    assert_eq!(r.controller().unwrap().episodes(), d.controller().unwrap().episodes());
}

/// One namespace's life: adds that fold and merge (small limit, small log),
/// a forget of an archived message, more adds. Returns the acknowledged
/// texts, whether the forget was acknowledged, and the storage operations.
fn life(map: &Map, crash_after: Option<usize>) -> (Vec<String>, bool, usize) {
    const SECRET: &str = "the door code is 8812-KESTREL";
    let disk = dying(map, crash_after);
    let ops = disk.ops.clone();
    let mut acked = Vec::new();
    let Ok(mut d) = Durable::open(options("w1", 4096, 7), common::o200k(), disk) else { return (acked, false, ops.get()) };
    let mut secret_id = None;
    for i in 0..80 {
        let m = if i == 10 { Message::text(Role::User, format!("记住：{SECRET}。")) } else { turn(i) };
        if let Ok(added) = d.add(m.clone(), i as f64) {
            acked.push(m.content_text());
            if i == 10 {
                secret_id = Some(added.id);
            }
        }
    }
    // A forget that failed may still have saved its tombstone: the text
    // may be there or not, so it is not counted as acknowledged either way.
    acked.retain(|t| !t.contains("KESTREL"));
    let forgot = secret_id.is_some_and(|id| d.forget(&ForgetTarget::Message(id), 100.0).is_ok());
    for i in 80..100 {
        if d.add(turn(i), i as f64).is_ok() {
            acked.push(turn(i).content_text());
        }
    }
    (acked, forgot, ops.get())
}

#[test]
fn a_crash_at_every_step_of_folds_merges_and_a_forget_loses_nothing() {
    let (_, forgot, steps) = life(&Rc::default(), None);
    assert!(forgot && steps > 200, "{steps} steps");
    for crash in 0..steps {
        let map: Map = Rc::default();
        let (acked, forgot, _) = life(&map, Some(crash));
        // A healthy process opens what the crash left: what was acknowledged
        // is there, once and in order; a forgotten text never loads, and
        // once it was acknowledged, it is gone from every stored byte.
        let r = Durable::open(options("r", 4096, 7), common::o200k(), Faulty::healthy(&map)).unwrap();
        let history = texts(&r);
        let mut unique = history.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), history.len(), "crash at {crash}: duplicates");
        let mut it = history.iter();
        for a in &acked {
            assert!(it.any(|h| h == a), "crash at {crash}: {a:?} lost or out of order");
        }
        if forgot {
            assert!(!history.iter().any(|h| h.contains("KESTREL")), "crash at {crash}: forgotten text loaded");
            assert!(!contains(&map, "KESTREL"), "crash at {crash}: forgotten text stored");
        }
        assert!(r.controller().unwrap().load_report().corrupt.is_empty());
    }
}

#[test]
fn format_1_values_are_rewritten_as_segments_on_opening_even_after_a_crash() {
    // A namespace as 0.1 left it: every value in format 1 (one pack, a log).
    let old: Map = Rc::default();
    let mut d = Durable::open(options("w", 1 << 20, 40), common::o200k(), Faulty::healthy(&old)).unwrap();
    for i in 0..150 {
        d.add(turn(i), i as f64).unwrap();
    }
    let want = d.controller().unwrap().history();
    let episodes = d.controller().unwrap().episodes().to_vec();
    drop(d);
    // 0.1 had no cold segments: what this code archived, 0.1 kept in packs.
    let archived: Vec<Key> = old.borrow().keys().filter(|k| k[1] == "arc").cloned().collect();
    assert!(!archived.is_empty());
    for key in archived {
        let v = old.borrow_mut().remove(&key).unwrap();
        old.borrow_mut().insert(vec![key[0].clone(), "pack".into(), key[2].clone(), key[3].clone()], v);
    }
    for v in old.borrow_mut().values_mut() {
        v[4] = 1; // the version byte: the records themselves are what 0.1 wrote
    }
    let version = |map: &Map| map.borrow().values().map(|v| decode_value(v).unwrap().0).collect::<Vec<u8>>();
    assert!(version(&old).iter().all(|&v| v == 1));
    for crash in 0..200 {
        let map: Map = Rc::new(RefCell::new(old.borrow().clone()));
        let disk = dying(&map, Some(crash));
        let opened = Durable::open(options("u", 4096, 40), common::o200k(), disk);
        // Whatever the crash left, the next open reads it all and finishes the upgrade.
        let r = Durable::open(options("r", 4096, 40), common::o200k(), Faulty::healthy(&map)).unwrap();
        assert!(r.last_background_error.is_none());
        assert_eq!(r.controller().unwrap().history(), want, "crash at {crash}");
        assert_eq!(r.controller().unwrap().episodes(), episodes.as_slice(), "crash at {crash}");
        assert!(version(&map).iter().all(|&v| v == 2), "crash at {crash}: format-1 values left");
        assert!(map.borrow().values().all(|v| v.len() <= 4096));
        if opened.is_ok_and(|o| o.last_background_error.is_none()) {
            break; // the upgrade completed without the crash: every step was tried
        }
        assert!(crash < 199, "the upgrade never completed");
    }
}

/// Deterministic vectors for a text: hashed character pairs (no model).
fn vector(text: &str) -> Vec<f32> {
    let mut v = vec![0.01f32; 16];
    let chars: Vec<char> = text.chars().collect();
    for w in chars.windows(2) {
        v[(w[0] as usize * 31 + w[1] as usize) % 16] += 1.0;
    }
    v
}

#[test]
fn a_restored_controller_builds_its_search_index_when_first_needed_with_the_same_results() {
    use agent_memory::context::ContextRequest;
    use agent_memory::controller::{Controller, SearchOptions};
    use agent_memory::semantic::RememberInput;
    let map: Map = Rc::default();
    let mut d = Durable::open(options("w", 8192, 1024), common::o200k(), Faulty::healthy(&map)).unwrap();
    for i in 0..300 {
        d.add(turn(i), i as f64).unwrap();
    }
    d.remember(RememberInput { key: Some("hotel".into()), text: "The hotel is near 春熙路.".into(), ..Default::default() }, 400.0).unwrap();
    drop(d);
    let entries: Vec<(Key, Vec<u8>)> = map.borrow().iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    let opts = || options("r", 8192, 1024);
    // Eager (as native hosts open) and lazy (as the package opens: the index waits for its first use).
    let mut eager = Controller::from_storage(opts(), common::o200k(), entries.clone()).unwrap();
    let mut lazy = Controller::from_loaded(opts(), common::o200k(), agent_memory::store::load(entries).unwrap()).unwrap();
    // Changes before the first search: messages (compacting), a superseding fact, vectors, a forget.
    for c in [&mut eager, &mut lazy] {
        for i in 300..340 {
            c.add_message(turn(i), i as f64).unwrap();
        }
        let p = c
            .prepare_remember(
                RememberInput { key: Some("hotel".into()), text: "The hotel moved to 太古里.".into(), ..Default::default() },
                500.0,
            )
            .unwrap();
        c.commit_remember(p);
        let items = c.unembedded(200);
        let (ids, texts): (Vec<String>, Vec<String>) = items.into_iter().unzip();
        let p = c.prepare_embeddings(ids, texts.iter().map(|t| vector(t)).collect()).unwrap();
        c.commit_embeddings(p);
        let id = c.history()[120].id.clone();
        let p = c.prepare_forget(&ForgetTarget::Message(id), 600.0).unwrap();
        c.commit_forget(p);
    }
    assert_eq!(lazy.history(), eager.history());
    for q in ["where is the hotel", "第150次讨论", "trip to Chengdu 酒店", "nothing like this at all"] {
        let opts = SearchOptions { k: Some(8), ..Default::default() };
        assert_eq!(lazy.search(q, &opts, None).unwrap(), eager.search(q, &opts, None).unwrap(), "{q}");
        let v = vector(q);
        assert_eq!(lazy.search(q, &opts, Some(&v)).unwrap(), eager.search(q, &opts, Some(&v)).unwrap(), "{q} (hybrid)");
        let req = ContextRequest { max_tokens: 2000, query: Some(q.into()), now: Some(700.0), ..Default::default() };
        assert_eq!(lazy.build_context(&req).unwrap(), eager.build_context(&req).unwrap(), "{q} (context)");
    }
}

/// Every stored value, as a host hands them to a loader.
fn entries(map: &Map) -> Vec<(Key, Vec<u8>)> {
    map.borrow().iter().map(|(k, v)| (k.clone(), v.clone())).collect()
}

/// A controller opened on `stored` as the package opens one (the hot
/// prefixes, then the cold segments of the thread's newest episodes),
/// and what reading the cold segments then loads; the bytes of each.
fn open_as_the_package(
    stored: &[(Key, Vec<u8>)],
    options: Options,
) -> (agent_memory::controller::Controller, agent_memory::store::Loaded, usize, usize) {
    use agent_memory::store::{is_cold, open_prefixes, Loader};
    let prefixes = open_prefixes(&stored[0].0[0]);
    let mut hot = Loader::default();
    let mut hot_bytes = 0;
    for (key, bytes) in stored.iter().filter(|(k, _)| !is_cold(k)) {
        assert!(prefixes.iter().any(|p| key.starts_with(p)), "{key:?} is read on opening");
        hot_bytes += bytes.len();
        hot.push(key.clone(), bytes).unwrap();
    }
    let recent = agent_memory::controller::recent_keys(hot.records(), &options.thread);
    for key in &recent {
        let (_, bytes) = stored.iter().find(|(k, _)| k == key).unwrap();
        hot.push(key.clone(), bytes).unwrap();
    }
    hot.read_early();
    let mut cold = Loader::skipping(recent, 0);
    let mut cold_bytes = 0;
    for (key, bytes) in stored.iter().filter(|(k, _)| is_cold(k)) {
        cold_bytes += bytes.len();
        cold.push(key.clone(), bytes).unwrap();
    }
    let c = agent_memory::controller::Controller::from_loaded(options, common::o200k(), hot.finish()).unwrap();
    (c, cold.finish(), hot_bytes, cold_bytes)
}

#[test]
fn opening_leaves_archive_segments_unread_until_archived_messages_are_needed() {
    use agent_memory::controller::Controller;
    // Folds of a quarter of 64 KiB: most of a fold's messages are archived
    // by then. A working memory of 1,500 tokens: more episodes than opening reads.
    let options = |writer: &str, segment_bytes, fold_after| Options {
        working: WindowConfig { max_tokens: 1500, ..WindowConfig::default() },
        ..options(writer, segment_bytes, fold_after)
    };
    let map: Map = Rc::default();
    let mut d = Durable::open(options("w", 64 * 1024, 4096), common::o200k(), Faulty::healthy(&map)).unwrap();
    for i in 0..4000 {
        d.add(turn(i), i as f64).unwrap();
    }
    let (history, stats) = (d.controller().unwrap().history(), d.controller().unwrap().stats());
    drop(d);
    let stored = entries(&map);
    // Contexts without a query from everything loaded, the first and the next.
    let query_less = ContextRequest { max_tokens: 8000, episodic_tokens: Some(3000), now: Some(2000.0), ..Default::default() };
    let mut full =
        Controller::from_loaded(options("f", 64 * 1024, 4096), common::o200k(), agent_memory::store::load(stored.clone()).unwrap())
            .unwrap();
    let contexts = [full.build_context(&query_less).unwrap(), full.build_context(&query_less).unwrap()];
    assert!(contexts[0].sections.summary.episode_ids.len() > 3, "the note shows episodes");
    let (mut c, cold, hot_bytes, cold_bytes) = open_as_the_package(&stored, options("r", 64 * 1024, 4096));
    assert!(cold_bytes > hot_bytes, "most of what is stored is archive: {cold_bytes} of {} bytes", cold_bytes + hot_bytes);
    assert!(!c.cold_ready());
    assert!(
        c.episodes().len() >= agent_memory::controller::RECENT_EPISODES.min(stats.episodes) && c.episodes().len() < stats.episodes,
        "{} of {} episodes read",
        c.episodes().len(),
        stats.episodes
    );
    // Working memory, the newest episodes and the counts are there before
    // the archive is: a context without a query is the same.
    assert_eq!((c.stats().messages, c.stats().tokens, c.stats().episodes), (stats.messages.clone(), stats.tokens.clone(), stats.episodes));
    assert_eq!(c.build_context(&query_less).unwrap(), contexts[0]);
    let early = c.episodes().to_vec();
    c.merge_cold(cold);
    assert!(c.cold_ready());
    assert_eq!(c.history(), history);
    assert_eq!(c.episodes().len(), stats.episodes);
    assert!(early.iter().all(|e| c.episodes().contains(e)));
    assert_eq!((c.stats().messages, c.stats().tokens, c.stats().episodes), (stats.messages.clone(), stats.tokens.clone(), stats.episodes));
    assert_eq!(c.build_context(&query_less).unwrap(), contexts[1]);
    assert_eq!(c.load_report().records, agent_memory::store::load(stored).unwrap().report.records);
}

#[test]
fn a_writer_reopened_with_its_archive_unread_never_reuses_a_seq() {
    let map: Map = Rc::default();
    let roomy = |writer: &str| Options {
        working: WindowConfig { max_tokens: 1_000_000, ..WindowConfig::default() },
        ..options(writer, 1 << 20, 100_000)
    };
    // Writer a adds; it neither compacts nor folds.
    let mut a = Durable::open(roomy("a"), common::o200k(), Faulty::healthy(&map)).unwrap();
    for i in 0..300 {
        a.add(turn(i), i as f64).unwrap();
    }
    drop(a);
    // Writer b archives all of them and folds them into cold segments:
    // none of a's records is left anywhere else.
    let tight = Options { working: WindowConfig { max_tokens: 40, ..WindowConfig::default() }, ..options("b", 1 << 20, 16) };
    let mut b = Durable::open(tight, common::o200k(), Faulty::healthy(&map)).unwrap();
    b.add(turn(300), 300.0).unwrap();
    drop(b);
    assert!(
        map.borrow().iter().all(|(k, v)| k[2] != "a" && (k[1] == "arc" || !contains_writer(v, "a"))),
        "a's records are all in cold segments"
    );
    // a goes on without reading its archive: its next seq comes from the
    // shelf records, not from the archive's records.
    let mut a = Durable::open(roomy("a"), common::o200k(), Faulty::healthy(&map)).unwrap();
    for i in 301..400 {
        a.add(turn(i), i as f64).unwrap();
    }
    drop(a);
    let r = Durable::open(options("r", 1 << 20, 1024), common::o200k(), Faulty::healthy(&map)).unwrap();
    let expected: Vec<String> = (0..400).map(|i| turn(i).content_text()).collect();
    let got = texts(&r);
    assert!(got == expected, "{} of 400 messages, the first {:?}", got.len(), got.first());
    assert_eq!(r.controller().unwrap().load_report().duplicates, 0);
}

/// Whether a stored value holds a record of `writer`.
fn contains_writer(value: &[u8], writer: &str) -> bool {
    decode_value(value).is_ok_and(|(_, records)| records.iter().any(|r| r.uid().0 == writer))
}

#[test]
fn threads_are_listed_from_the_shelf_records_without_reading_the_archive() {
    use agent_memory::controller::Controller;
    use agent_memory::store::{is_cold, open_prefixes, Loader};
    let options = |writer: &str, thread: &str| Options {
        thread: thread.into(),
        working: WindowConfig::default(),
        ..options(writer, 64 * 1024, 4096)
    };
    let map: Map = Rc::default();
    for (writer, thread, n) in [("wa", "a", 500), ("wb", "b", 300), ("wc", "c", 200)] {
        let mut d = Durable::open(options(writer, thread), common::o200k(), Faulty::healthy(&map)).unwrap();
        for i in 0..n {
            d.add(turn(i), (i * 3) as f64).unwrap();
        }
    }
    let mut c = Durable::open(options("wc2", "c"), common::o200k(), Faulty::healthy(&map)).unwrap();
    c.forget(&ForgetTarget::Thread("c".into()), 5000.0).unwrap();
    drop(c);
    let all = entries(&map);
    assert!(all.iter().any(|(k, _)| is_cold(k)), "some messages are archived");
    let full = Controller::threads_stored(agent_memory::store::load(all.clone()).unwrap());
    let prefixes = open_prefixes(&all[0].0[0]);
    let mut hot = Loader::default();
    for (key, bytes) in all.into_iter().filter(|(k, _)| prefixes.iter().any(|p| k.starts_with(p))) {
        hot.push(key, &bytes).unwrap();
    }
    let listed = Controller::threads_stored(hot.finish());
    assert_eq!(listed, full);
    let counts: Vec<(&str, usize)> = listed.iter().map(|t| (t.thread.as_str(), t.messages)).collect();
    assert_eq!(counts, [("b", 300), ("a", 500)]);
    assert_eq!(listed[1].title.as_deref(), Some("turn 0: we talked about the trip to Chengdu, 我们第0次讨论了去成都的行程和酒店的预订。"));
    assert_eq!((listed[1].first_at, listed[1].last_at), (0.0, 1497.0));
}

#[test]
fn a_task_with_steps_in_the_archive_reads_it_for_its_history() {
    let options =
        |writer: &str| Options { working: WindowConfig { max_tokens: 800, ..WindowConfig::default() }, ..options(writer, 64 * 1024, 4096) };
    let map: Map = Rc::default();
    let mut d = Durable::open(options("w"), common::o200k(), Faulty::healthy(&map)).unwrap();
    // More episodes of "visa" than opening reads: "trip"'s are left in the archive.
    for i in 0..3000 {
        d.add_in_task(turn(i), Some(if i < 1000 { "trip" } else { "visa" }.into()), i as f64).unwrap();
    }
    drop(d);
    let stored = entries(&map);
    let request = |task: &str| ContextRequest { max_tokens: 8000, task_id: Some(task.into()), now: Some(1000.0), ..Default::default() };
    let mut full = agent_memory::controller::Controller::from_loaded(
        options("f"),
        common::o200k(),
        agent_memory::store::load(stored.clone()).unwrap(),
    )
    .unwrap();
    let want = full.build_context(&request("trip")).unwrap();
    assert!(want.sections.task > 0, "the task's history is pinned");
    let (mut c, cold, _, _) = open_as_the_package(&stored, options("r"));
    // The shelf records list the tasks whose steps the archive holds.
    assert!(c.episodes().len() < full.episodes().len(), "{} of {} episodes", c.episodes().len(), full.episodes().len());
    assert!(c.needs_cold(false, Some("trip")), "the first task's steps are archived");
    assert!(!c.needs_cold(false, Some("no such task")));
    assert!(c.needs_cold(true, None));
    c.merge_cold(cold);
    assert!(!c.needs_cold(false, Some("trip")));
    assert_eq!(c.build_context(&request("trip")).unwrap(), want);
}

#[test]
fn vectors_of_archived_messages_are_archived_with_them_and_read_with_the_archive() {
    use agent_memory::controller::{Controller, SearchOptions};
    // Folds of a quarter of 256 KiB, working memory of 800 tokens: few
    // messages are in working memory when the log folds (those stay in
    // segments opening reads, with their vectors).
    let options = |writer: &str| Options {
        working: WindowConfig { max_tokens: 800, ..WindowConfig::default() },
        ..options(writer, 256 * 1024, 4096)
    };
    let map: Map = Rc::default();
    let mut d = Durable::open(options("w"), common::o200k(), Faulty::healthy(&map)).unwrap();
    for i in 0..1500 {
        d.add(turn(i), i as f64).unwrap();
        // Vectors as an embedder hook stores them: every few turns, for what has none.
        if i % 40 == 39 {
            let items = d.controller().unwrap().unembedded(500);
            let (ids, texts): (Vec<String>, Vec<String>) = items.into_iter().unzip();
            d.store_embeddings(ids, texts.iter().map(|t| vector(t)).collect()).unwrap();
        }
    }
    let want = d.controller().unwrap().stats().embeddings;
    assert!(want > 1000, "{want} vectors");
    drop(d);
    let stored = entries(&map);
    let (mut c, cold, _, _) = open_as_the_package(&stored, options("r"));
    // Most vectors are in cold segments, counted from the shelf records until read.
    let hot_vectors = stored
        .iter()
        .filter(|(k, _)| k[1] != "arc")
        .map(|(_, v)| {
            decode_value(v).unwrap().1.iter().filter(|r| matches!(r, agent_memory::store::record::Record::Embedding { .. })).count()
        })
        .sum::<usize>();
    assert!(hot_vectors * 4 < want, "{hot_vectors} of {want} vectors where opening reads");
    assert_eq!(c.stats().embeddings, want);
    c.merge_cold(cold);
    assert_eq!(c.stats().embeddings, want);
    let mut full = Controller::from_loaded(options("f"), common::o200k(), agent_memory::store::load(stored).unwrap()).unwrap();
    for q in ["第150次讨论", "trip to Chengdu 酒店"] {
        let opts = SearchOptions { k: Some(8), ..Default::default() };
        let v = vector(q);
        assert_eq!(c.search(q, &opts, Some(&v)).unwrap(), full.search(q, &opts, Some(&v)).unwrap(), "{q} (hybrid)");
    }
}

/// Every term key the stored lexical indexes hold (`retrieval::terms`), and
/// how many messages they index.
fn stored_terms(stored: &[(Key, Vec<u8>)]) -> (std::collections::HashSet<u64>, usize) {
    use agent_memory::store::record::Record;
    let (mut keys, mut docs) = (std::collections::HashSet::new(), 0);
    for (_, v) in stored {
        let (_, records, terms) = agent_memory::store::record::decode_indexed(v).unwrap();
        if let Some(t) = terms {
            let read = agent_memory::retrieval::terms::read(t).unwrap();
            let indexed: Vec<&Record> = records.iter().filter(|r| matches!(r, Record::Msg { .. } | Record::Episode { .. })).collect();
            assert_eq!(read.docs.len(), indexed.len(), "one document per message or episode");
            docs += read.docs.iter().zip(&indexed).filter(|(d, r)| d.is_some() && matches!(r, Record::Msg { .. })).count();
            keys.extend(read.terms.iter().map(|(k, _)| *k));
        }
    }
    (keys, docs)
}

/// `stored` with every value's stored terms left out (as plain segments).
fn without_terms(stored: &[(Key, Vec<u8>)]) -> Vec<(Key, Vec<u8>)> {
    use agent_memory::store::record::encode_segments;
    stored.iter().map(|(k, v)| (k.clone(), encode_segments(&decode_value(v).unwrap().1, usize::MAX).remove(0).0)).collect()
}

#[test]
fn archived_messages_are_searched_from_their_stored_terms_as_if_analyzed() {
    use agent_memory::controller::{Controller, SearchOptions};
    let options =
        |writer: &str| Options { working: WindowConfig { max_tokens: 800, ..WindowConfig::default() }, ..options(writer, 32 * 1024, 4096) };
    let map: Map = Rc::default();
    let mut d = Durable::open(options("w"), common::o200k(), Faulty::healthy(&map)).unwrap();
    d.add(Message::text(Role::System, "You are a travel agent for 成都 trips."), 0.0).unwrap();
    for i in 0..1200 {
        let mut m = turn(i);
        if i % 97 == 5 {
            m = Message::text(Role::User, format!("My booking code {i} is PELICAN{i}, 航班 CA{i} 周五起飞"));
        }
        d.add(m, i as f64).unwrap();
    }
    let history = d.controller().unwrap().history();
    drop(d);
    let stored = entries(&map);
    let (_, docs) = stored_terms(&stored);
    let (mut c, cold, _, _) = open_as_the_package(&stored, options("r"));
    let archived: usize = stored
        .iter()
        .filter(|(k, _)| k[1] == "arc")
        .map(|(_, v)| decode_value(v).unwrap().1.iter().filter(|r| matches!(r, agent_memory::store::record::Record::Msg { .. })).count())
        .sum();
    assert!(archived > 500, "{archived} messages archived");
    // Every archived message's terms are read with it (the system prompt is pinned, not searched, not archived).
    assert_eq!(cold.terms.as_ref().map_or(0, |t| t.len()), archived);
    assert_eq!(docs, archived);
    c.merge_cold(cold);
    assert_eq!(c.history(), history);
    // The same namespace with no stored terms (every text analyzed), opened
    // the same way, and loaded in full.
    let plain = without_terms(&stored);
    let (mut analyzed, cold, _, _) = open_as_the_package(&plain, options("a"));
    assert!(cold.terms.is_none());
    analyzed.merge_cold(cold);
    let mut full = Controller::from_loaded(options("f"), common::o200k(), agent_memory::store::load(plain).unwrap()).unwrap();
    for q in ["PELICAN102 booking", "航班 周五", "第150次讨论", "trip to Chengdu 酒店", "成都 travel agent"] {
        let opts = SearchOptions { k: Some(10), ..Default::default() };
        let hits = c.search(q, &opts, None).unwrap();
        assert!(!hits.is_empty(), "{q}");
        assert_eq!(hits, analyzed.search(q, &opts, None).unwrap(), "{q}");
        assert_eq!(hits, full.search(q, &opts, None).unwrap(), "{q} (full load)");
        let req = ContextRequest { max_tokens: 3000, query: Some(q.into()), now: Some(2000.0), ..Default::default() };
        assert_eq!(c.build_context(&req).unwrap(), analyzed.build_context(&req).unwrap(), "{q} (context)");
    }
    let hits = c.search("PELICAN102", &SearchOptions { k: Some(3), ..Default::default() }, None).unwrap();
    assert!(hits[0].text.contains("PELICAN102"), "{hits:?}");
}

#[test]
fn a_forgotten_archived_message_leaves_no_stored_term() {
    use agent_memory::controller::SearchOptions;
    use agent_memory::retrieval::terms::term_key;
    let options =
        |writer: &str| Options { working: WindowConfig { max_tokens: 800, ..WindowConfig::default() }, ..options(writer, 32 * 1024, 4096) };
    let map: Map = Rc::default();
    let mut d = Durable::open(options("w"), common::o200k(), Faulty::healthy(&map)).unwrap();
    // Secrets now and then; one that is archived is forgotten (messages in
    // working memory when the log folds stay where opening reads).
    let secret = |i: usize| format!("zanzibar{i}");
    let mut ids = Vec::new();
    for i in 0..1200 {
        let m = if i % 50 == 7 { Message::text(Role::User, format!("my door code is {} and 秘密暗号{i}", secret(i))) } else { turn(i) };
        ids.push(d.add(m, i as f64).unwrap().id);
    }
    let archived =
        |i: &usize| map.borrow().iter().any(|(k, v)| k[1] == "arc" && v.windows(secret(*i).len()).any(|w| w == secret(*i).as_bytes()));
    let i = (0..1200).filter(|i| i % 50 == 7).find(archived).expect("a secret is archived");
    let (keys, _) = stored_terms(&entries(&map));
    let secret_terms = [term_key(&secret(i)), term_key(&format!("{i}")), term_key("暗号")];
    assert!(secret_terms.iter().all(|k| keys.contains(k)), "the message is archived with its terms");
    d.forget(&ForgetTarget::Message(ids[i].clone()), 900.0).unwrap();
    let (keys, _) = stored_terms(&entries(&map));
    assert!(!keys.contains(&term_key(&secret(i))), "no stored term of the forgotten message is left");
    assert!(keys.contains(&term_key("暗号")) && keys.contains(&term_key("chengdu")), "the other messages' terms stay");
    drop(d);
    let opts = SearchOptions { k: Some(5), ..Default::default() };
    let whole = |t: &str, s: &str| t.split(|c: char| !c.is_alphanumeric()).any(|w| w == s);
    // Opened as the package, and the same with every text analyzed; on
    // both, another secret forgotten after the cold segments are read and before
    // the index is built (the forget prepares on a clone of the controller).
    let j = (i + 1..1200).filter(|i| i % 50 == 7).find(archived).expect("another secret is archived");
    let mut opened = Vec::new();
    for stored in [entries(&map), without_terms(&entries(&map))] {
        let (mut c, cold, _, _) = open_as_the_package(&stored, options("r"));
        c.merge_cold(cold);
        assert!(c.search(&secret(j), &opts, None).is_ok_and(|h| whole(&h[0].text, &secret(j))), "found before its forget");
        let (mut c, cold, _, _) = open_as_the_package(&stored, options("r"));
        c.merge_cold(cold);
        let p = c.prepare_forget(&ForgetTarget::Message(ids[j].clone()), 950.0).unwrap();
        c.commit_forget(p);
        for s in [secret(i), secret(j)] {
            assert!(!c.search(&s, &opts, None).unwrap().iter().any(|h| whole(&h.text, &s)), "{s}");
        }
        assert!(c.search("第150次讨论", &opts, None).unwrap()[0].text.contains("第150次"));
        opened.push(c);
    }
    for q in ["door code zanzibar", "暗号", "trip to Chengdu 酒店"] {
        assert_eq!(opened[0].search(q, &opts, None).unwrap(), opened[1].search(q, &opts, None).unwrap(), "{q}");
    }
}

#[test]
fn every_read_sees_the_archive_and_a_page_of_the_newest_reads_none_of_it() {
    use agent_memory::controller::{Need, Page};
    // Working memory of 2,000 tokens: a few dozen turns stay in it.
    let options = |writer: &str| Options {
        working: WindowConfig { max_tokens: 2000, ..WindowConfig::default() },
        ..options(writer, 64 * 1024, 4096)
    };
    let map = Map::default();
    let mut d = Durable::open(options("w"), common::o200k(), Faulty::healthy(&map)).unwrap();
    (0..3000).try_for_each(|i| d.add(turn(i), i as f64).map(|_| ())).unwrap();
    let want = d.controller().unwrap().history();
    drop(d);
    let open = || Durable::open(options("r"), common::o200k(), Faulty::healthy(&map)).unwrap();
    // Opening leaves the archive unread: the newest messages are in memory.
    let d = open();
    assert!(!d.held().holds(Need::Everything), "opening read the cold segments");
    let page = Page { limit: Some(20), before: None };
    assert!(d.held().holds(Need::Page(&page)));
    assert_eq!(d.read(Need::Page(&page)).unwrap().history_page(&page).unwrap(), want[want.len() - 20..]);
    let before = Page { limit: Some(10), before: Some(want[want.len() - 5].id.clone()) };
    assert_eq!(d.read(Need::Page(&before)).unwrap().history_page(&before).unwrap(), want[want.len() - 15..want.len() - 5]);
    let ids = [want[want.len() - 1].id.clone(), want[want.len() - 3].id.clone()];
    let found: Vec<_> = d.read(Need::Ids(&ids)).unwrap().messages(&ids).into_iter().map(|h| h.id).collect();
    assert_eq!(found, ids);
    assert!(!d.held().holds(Need::Everything), "a page of the newest and the newest by id read none of the archive");
    // A page that reaches into the archive, and a message only it holds, read it first.
    let deep = Page { limit: Some(3), before: Some(want[2].id.clone()) };
    assert!(!d.held().holds(Need::Page(&deep)), "{} is archived", want[2].id);
    assert_eq!(d.read(Need::Page(&deep)).unwrap().history_page(&deep).unwrap(), want[..2]);
    assert!(d.held().holds(Need::Everything));
    // So does an id memory does not hold: it may be archived; one no message has is left out.
    let d = open();
    let ids = [want[1].id.clone(), "no such id".into()];
    assert_eq!(d.read(Need::Ids(&ids)).unwrap().messages(&ids), want[1..2]);
    // A method written the naive way (`texts`) sees every message, its archive unread before.
    let d = open();
    assert!(!d.held().holds(Need::Everything));
    assert_eq!(texts(&d), want.iter().map(|h| h.message.content_text()).collect::<Vec<_>>());
    // An archive that cannot be read is an error, not a panic, and not a part.
    let d = open();
    d.storage().life = Some(0);
    assert!(d.controller().is_err());
    assert!(!d.held().holds(Need::Everything));
}
