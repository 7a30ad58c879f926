//! What a shelf record (`Record::Shelf`) says of one cold segment:
//! enough for opening to go on after it, and for `stats()` and `threads()`
//! to count it, without reading it (`controller::cold`); and what the
//! shelf records among a load say: which cold segments are live, which
//! hold a thread's newest episodes (what opening reads of the cold segments),
//! and what the unread ones hold ([`unread`]).

use serde::{Deserialize, Serialize};

use super::record::Record;
use super::{Cold, Folding, Key, Kind, Uids};
use crate::retrieval::hash::{str_hash, FxHashMap};

/// What one cold segment holds, as its fold recorded it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Shelved {
    pub key: Vec<String>,
    pub bytes: usize,
    /// The highest `lc` of its records.
    pub lc: u64,
    /// Each writer's highest seq among its records.
    pub seqs: Vec<(String, u64)>,
    /// What it holds of each thread.
    pub threads: Vec<ShelvedThread>,
    /// The message vectors it holds (of any thread).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub vectors: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counted: Option<String>,
}

/// One thread's messages in a cold segment: for `stats()` and
/// `threads()` without reading the segment.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ShelvedThread {
    pub thread: String,
    pub messages: u64,
    /// Their tokens as counted with `Shelved::counted` (absent: an estimate).
    pub tokens: u64,
    /// The first and last timestamps, and the highest `lc`.
    pub first_at: f64,
    pub last_at: f64,
    pub lc: u64,
    /// The earliest user message's order (`lc`, timestamp) and title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_user: Option<(u64, f64, Option<String>)>,
    /// Its first and last message by order: (`lc`, timestamp, id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first: Option<(u64, f64, String)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last: Option<(u64, f64, String)>,
    /// Its episodes, their summaries' tokens (as `tokens`), and the tasks
    /// they are steps of.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub episodes: u64,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub episode_tokens: u64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tasks: Vec<String>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Read through `Value`, whose reader the records already need: derived
/// readers for these two structs cost the wasm about 4 KB gzip. A field
/// that is missing or of another type reads as empty (a segment without a
/// key is then ignored, see [`live_shelved`]).
impl<'de> Deserialize<'de> for Shelved {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde_json::Value;
        let v = Value::deserialize(d)?;
        let int = |v: &Value, k: &str| v.get(k).and_then(Value::as_u64).unwrap_or(0);
        let float = |v: &Value, k: &str| v.get(k).and_then(Value::as_f64).unwrap_or(0.0);
        let text = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_string);
        let list = |v: &Value, k: &str| v.get(k).and_then(Value::as_array).cloned().unwrap_or_default();
        let ordered = |f: &Value| Some((f.get(0)?.as_u64()?, f.get(1)?.as_f64()?, f.get(2)?.as_str()?.to_string()));
        let thread = |t: &Value| ShelvedThread {
            thread: text(t.get("thread")).unwrap_or_default(),
            messages: int(t, "messages"),
            tokens: int(t, "tokens"),
            first_at: float(t, "first_at"),
            last_at: float(t, "last_at"),
            lc: int(t, "lc"),
            first_user: t.get("first_user").and_then(|f| Some((f.get(0)?.as_u64()?, f.get(1)?.as_f64()?, text(f.get(2))))),
            first: t.get("first").and_then(ordered),
            last: t.get("last").and_then(ordered),
            episodes: int(t, "episodes"),
            episode_tokens: int(t, "episode_tokens"),
            tasks: list(t, "tasks").iter().filter_map(|k| text(Some(k))).collect(),
        };
        Ok(Shelved {
            key: list(&v, "key").iter().filter_map(|k| text(Some(k))).collect(),
            bytes: int(&v, "bytes") as usize,
            lc: int(&v, "lc"),
            seqs: list(&v, "seqs").iter().filter_map(|e| Some((text(e.get(0))?, e.get(1)?.as_u64()?))).collect(),
            threads: list(&v, "threads").iter().map(thread).collect(),
            vectors: int(&v, "vectors"),
            counted: text(v.get("counted")),
        })
    }
}

/// Storage keys found by a hash of their parts, compared whole when a hash
/// matches. A namespace of 1,000,000 messages names thousands of cold
/// segments, and comparing each key with every other (`Vec::contains`)
/// was 1.5 s of opening it in the wasm, most of the open.
#[derive(Default)]
struct KeySet<'a> {
    /// Each key's hash → its first place in `keys`.
    first: FxHashMap<u64, u32>,
    keys: Vec<&'a Key>,
}

impl<'a> KeySet<'a> {
    fn hash(key: &Key) -> u64 {
        key.iter().fold(key.len() as u64, |h, part| (h.rotate_left(23) ^ str_hash(part)).wrapping_mul(0x9e37_79b9_7f4a_7c15))
    }

    /// Whether `key` is held; `hash` is its hash.
    fn holds(&self, key: &Key, hash: u64) -> bool {
        match self.first.get(&hash) {
            None => false,
            Some(&at) if self.keys.get(at as usize).is_some_and(|k| *k == key) => true,
            // Two keys whose hashes meet: compared whole, every one.
            Some(_) => self.keys.contains(&key),
        }
    }

    fn contains(&self, key: &Key) -> bool {
        self.holds(key, Self::hash(key))
    }

    /// Adds `key`; false when it is held already.
    fn insert(&mut self, key: &'a Key) -> bool {
        let hash = Self::hash(key);
        if self.holds(key, hash) {
            return false;
        }
        if !self.first.contains_key(&hash) {
            self.first.insert(hash, self.keys.len() as u32);
        }
        self.keys.push(key);
        true
    }
}

/// The cold segments `shelves` (shelf records) name and none says is
/// gone, each once.
pub fn live_shelved<'a>(shelves: impl IntoIterator<Item = &'a Record>) -> Vec<&'a Shelved> {
    unread_shelved(shelves, std::iter::empty())
}

/// [`live_shelved`], those under the keys `read` left out.
pub fn unread_shelved<'a, 'b>(shelves: impl IntoIterator<Item = &'a Record>, read: impl Iterator<Item = &'b Key>) -> Vec<&'a Shelved> {
    let mut added: Vec<&Shelved> = Vec::new();
    // The keys removed, then each one added as it is taken: a key once.
    let mut taken = KeySet::default();
    for r in shelves {
        if let Record::Shelf { added: a, removed: r, .. } = r {
            added.extend(a);
            for k in r {
                taken.insert(k);
            }
        }
    }
    let mut skip = KeySet::default();
    for k in read {
        skip.insert(k);
    }
    let mut out: Vec<&Shelved> = Vec::new();
    for s in added {
        if !s.key.is_empty() && !skip.contains(&s.key) && taken.insert(&s.key) {
            out.push(s);
        }
    }
    out
}

/// How many of a thread's newest episodes opening reads, and a context
/// without a query chooses from (`controller::Controller::recall_order`).
pub const RECENT_EPISODES: usize = 64;

/// The cold segments of episodes that hold `thread`'s newest
/// [`RECENT_EPISODES`] (by the shelf records among `records`), newest first.
pub fn recent_keys(records: &[Record], thread: &str) -> Vec<Key> {
    let shelves = records.iter().filter(|r| matches!(r, Record::Shelf { .. }));
    let mut held: Vec<(&Shelved, u64)> = live_shelved(shelves)
        .into_iter()
        .filter_map(|s| Some((s, s.threads.iter().find(|t| t.thread == thread && t.messages == 0 && t.episodes > 0)?.episodes)))
        .collect();
    let (mut out, mut n) = (Vec::new(), 0);
    // The newest left, a few times over a few hundred: no sort in the wasm for it.
    while (n as usize) < RECENT_EPISODES {
        let Some(at) = (0..held.len()).max_by_key(|&i| held.get(i).map(|(s, _)| s.lc)) else { break };
        let (s, episodes) = held.swap_remove(at);
        out.push(s.key.clone());
        n += episodes;
    }
    out
}

/// The cold segments the shelf records `shelves` name and no other
/// removed, that `folding` (what was read) does not hold: placeholders for
/// them in `folding`, and what they hold (of `thread`, where it counts by
/// thread). `seen`: the record identities read.
pub(crate) fn unread(shelves: &[Record], folding: &mut Folding, seen: Uids, thread: &str) -> Cold {
    let unread = unread_shelved(shelves, folding.values().iter().map(|v| &v.key));
    let mut archive = Cold { seen, ..Cold::default() };
    for s in unread {
        folding.add(s.key.clone(), s.bytes, Vec::new(), Kind::Cold);
        archive.unread += 1;
        archive.vectors += s.vectors;
        archive.records += s.vectors + s.threads.iter().map(|t| t.messages + t.episodes).sum::<u64>();
        archive.lc = archive.lc.max(s.lc);
        for (w, seq) in &s.seqs {
            match archive.seqs.iter_mut().find(|(x, _)| x == w) {
                Some((_, top)) => *top = (*top).max(*seq),
                None => archive.seqs.push((w.clone(), *seq)),
            }
        }
        for t in s.threads.iter().filter(|t| t.thread == thread) {
            archive.messages += t.messages;
            archive.tokens += t.tokens;
            if t.first.as_ref().is_some_and(|(l, s, _)| archive.first.as_ref().is_none_or(|(al, at, _)| (*l, *s) < (*al, *at))) {
                archive.first.clone_from(&t.first);
            }
            if t.last.as_ref().is_some_and(|(l, s, _)| archive.last.as_ref().is_none_or(|(al, at, _)| (*l, *s) > (*al, *at))) {
                archive.last.clone_from(&t.last);
            }
            archive.episodes += t.episodes;
            archive.episode_tokens += t.episode_tokens;
            for task in &t.tasks {
                if !archive.tasks.contains(task) {
                    archive.tasks.push(task.clone());
                }
            }
        }
    }
    archive
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::record::{decode, encode_record, Record};

    fn key(parts: &[&str]) -> Key {
        parts.iter().map(|p| (*p).to_string()).collect()
    }

    fn shelf(added: &[Key], removed: &[Key]) -> Record {
        let shelved = |k: &Key| Shelved { key: k.clone(), bytes: 1, lc: 1, seqs: vec![], threads: vec![], vectors: 0, counted: None };
        Record::Shelf { writer: "w".into(), seq: 1, added: added.iter().map(shelved).collect(), removed: removed.to_vec() }
    }

    #[test]
    fn live_and_unread_segments_are_those_named_once_not_removed_not_read() {
        // Many keys, as a namespace of a million messages names, with
        // parts that differ only in their last digits or their order.
        let keys: Vec<Key> = (0..3000).map(|i| key(&["ns", if i % 2 == 0 { "arc" } else { "seg" }, &format!("{:016}", i / 2)])).collect();
        let removed: Vec<Key> = keys.iter().step_by(7).cloned().collect();
        let read: Vec<Key> = keys.iter().skip(3).step_by(5).cloned().collect();
        // Each key added twice (a crash's duplicate), in two shelf records.
        let shelves = [shelf(&keys, &removed[..100]), shelf(&keys, &removed[100..])];
        let naive = |skip: &[Key]| -> Vec<Key> {
            let mut out: Vec<Key> = Vec::new();
            for k in keys.iter().chain(&keys) {
                if !removed.contains(k) && !skip.contains(k) && !out.contains(k) {
                    out.push(k.clone());
                }
            }
            out
        };
        let keys_of = |v: Vec<&Shelved>| v.into_iter().map(|s| s.key.clone()).collect::<Vec<_>>();
        assert_eq!(keys_of(live_shelved(&shelves)), naive(&[]));
        assert_eq!(keys_of(unread_shelved(&shelves, read.iter())), naive(&read));
        assert!(naive(&read).len() > 1000);
    }

    #[test]
    fn keys_whose_hashes_meet_are_told_apart() {
        let (a, b) = (key(&["ns", "arc", "1"]), key(&["ns", "arc", "2"]));
        let mut set = KeySet::default();
        assert!(set.insert(&a));
        // `b`'s hash made to point at `a`, as a collision would.
        set.first.insert(KeySet::hash(&b), 0);
        assert!(!set.contains(&b));
        assert!(set.insert(&b));
        assert!(set.contains(&b) && set.contains(&a));
        assert!(!set.insert(&b) && !set.insert(&a));
    }

    #[test]
    fn shelf_records_read_back_as_written() {
        let thread = ShelvedThread {
            thread: "旅行".into(),
            messages: 3,
            tokens: 41,
            first_at: 1.5,
            last_at: 9.0,
            lc: 12,
            first_user: Some((10, 2.0, Some("去成都".into()))),
            first: Some((9, 1.5, "m-1".into())),
            last: Some((12, 9.0, "m-\"3".into())),
            episodes: 2,
            episode_tokens: 90,
            tasks: vec!["t1".into()],
        };
        let shelved = Shelved {
            key: vec!["ns".into(), "arc".into(), "w".into(), "0000000000000007".into()],
            bytes: 900,
            lc: 12,
            seqs: vec![("w".into(), 6), ("x\"y".into(), 2)],
            vectors: 12,
            threads: vec![
                thread.clone(),
                ShelvedThread {
                    first_user: Some((3, 1.0, None)),
                    first: None,
                    last: None,
                    episodes: 0,
                    episode_tokens: 0,
                    tasks: vec![],
                    ..thread
                },
            ],
            counted: Some("o200k_base".into()),
        };
        let r = Record::Shelf {
            writer: "w".into(),
            seq: 8,
            added: vec![shelved.clone(), Shelved { counted: None, vectors: 0, ..shelved }],
            removed: vec![vec!["ns".into(), "arc".into(), "w".into(), "1".into()]],
        };
        assert_eq!(decode(&encode_record(&r)).unwrap(), vec![r]);
    }
}
