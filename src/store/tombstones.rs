//! What forget tombstones remove from a set of records: ids (messages,
//! facts, episodes, embeddings) and whole threads up to an order, with what
//! was derived from them (their embeddings, the facts their episodes taught).

use std::collections::{HashMap, HashSet};

use super::record::Record;

#[derive(Debug, Default)]
pub struct Tombstones {
    /// Every id gone: named by a tombstone, or of a record a thread tombstone covers.
    ids: HashSet<String>,
    /// Thread → the highest order up to which it is forgotten.
    threads: HashMap<String, u64>,
}

/// The id a record carries as content (not its storage identity).
fn item_id(r: &Record) -> Option<&str> {
    match r {
        Record::Msg { id, .. } | Record::Embedding { item: id, .. } => Some(id),
        Record::Episode { episode, .. } => Some(&episode.id),
        Record::Fact { fact, .. } => Some(&fact.id),
        _ => None,
    }
}

impl Tombstones {
    pub fn of(records: &[Record]) -> Tombstones {
        let mut t = Tombstones::default();
        for r in records {
            if let Record::Forget { ids, threads, lc, .. } = r {
                t.ids.extend(ids.iter().cloned());
                for thread in threads {
                    let up_to = t.threads.entry(thread.clone()).or_insert(0);
                    *up_to = (*up_to).max(*lc);
                }
            }
        }
        if t.threads.is_empty() {
            return t;
        }
        // What a forgotten thread held, then the facts its episodes taught.
        let covered: Vec<String> = records.iter().filter(|r| t.covers_thread(r)).filter_map(item_id).map(String::from).collect();
        t.ids.extend(covered);
        let taught: Vec<String> = records
            .iter()
            .filter_map(|r| match r {
                Record::Fact { fact, .. }
                    if fact.tags.iter().any(|x| x == "auto") && fact.source.as_ref().is_some_and(|s| t.ids.contains(s)) =>
                {
                    Some(fact.id.clone())
                }
                _ => None,
            })
            .collect();
        t.ids.extend(taught);
        t
    }

    fn covers_thread(&self, r: &Record) -> bool {
        r.thread().and_then(|th| self.threads.get(th)).is_some_and(|&up_to| r.lc() <= up_to)
    }

    /// Whether a thread tombstone covers `thread` up to order `lc`.
    pub fn forgot_thread(&self, thread: &str, lc: u64) -> bool {
        self.threads.get(thread).is_some_and(|&up_to| lc <= up_to)
    }

    /// Whether a tombstone removed the message `id` of `thread` (its `lc`),
    /// as [`Tombstones::covers`] says of its record.
    pub fn covers_message(&self, id: &str, thread: &str, lc: u64) -> bool {
        self.ids.contains(id) || self.forgot_thread(thread, lc)
    }

    /// Whether `r` is content a tombstone removed.
    pub fn covers(&self, r: &Record) -> bool {
        item_id(r).is_some_and(|id| self.ids.contains(id)) || self.covers_thread(r)
    }
}
