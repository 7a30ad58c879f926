//! The archive as opening leaves it: archive segments (`[ns, "arc", …]`,
//! messages an episode covers) are not read at all. The `Shelf` records a
//! fold writes beside them say what they hold (keys, sizes, how far their
//! `lc` and seqs go, a summary per thread), so opening goes on after them
//! and `stats()` and `threads()` count them; the write path reads them the first
//! time something needs archived messages (`WritePath::load_archive`):
//! search, recall, a query, history, export, forget. Opening then costs the
//! working set, not the history.
//!
//! Invariants: until the archive is read, no plan folds an archive segment
//! (`Kind::Archive`: what it holds is unknown) and nothing reads archived
//! messages (`archive_ready`, asserted where they are read); reading merges
//! them into the window in the order a full load gives, with the same
//! tombstones, threads and duplicates rules as `restore`. A segment no
//! shelf names (its fold crashed before the shelf was saved, or a removal
//! failed) is read and merged all the same: loading stays a union.

use std::cmp::Ordering;
use std::collections::HashSet;

use super::Controller;
use crate::store::record::{Record, DEFAULT_THREAD};
use crate::store::shelf::{Shelved, ShelvedThread};
use crate::store::tombstones::Tombstones;
use crate::store::{Archive, Folding, Key, Kind, Loaded, Uids};
use crate::tokens::chat::message_tokens;
use crate::window::{Place, Stored, Window, UNCOUNTED};

/// The log's order: causal (`lc`), then time, then record identity.
pub(crate) fn log_order(a: &Stored, b: &Stored) -> Ordering {
    a.lc.cmp(&b.lc).then(a.ts.total_cmp(&b.ts)).then_with(|| a.writer.cmp(&b.writer)).then(a.seq.cmp(&b.seq))
}

/// The archive segments `shelves` (shelf records) name and none says is
/// gone, each once.
pub(crate) fn live_shelved<'a>(shelves: impl IntoIterator<Item = &'a Record>) -> Vec<&'a Shelved> {
    // Vectors, not sets: a few hundred keys, and no new set type in the wasm.
    let mut added: Vec<&Shelved> = Vec::new();
    let mut removed: Vec<&Key> = Vec::new();
    for r in shelves {
        if let Record::Shelf { added: a, removed: r, .. } = r {
            added.extend(a);
            removed.extend(r);
        }
    }
    let mut out: Vec<&Shelved> = Vec::new();
    for s in added {
        if !s.key.is_empty() && !removed.contains(&&s.key) && !out.iter().any(|o| o.key == s.key) {
            out.push(s);
        }
    }
    out
}

impl Controller {
    /// Whether every stored archived message is in the window.
    pub fn archive_ready(&self) -> bool {
        self.books.archive.unread == 0
    }

    /// The archive segments the shelf records name and no other removed,
    /// that `folding` (what was read) does not hold: placeholders for them
    /// in `folding`, and what they hold.
    pub(crate) fn shelved(&self, folding: &mut Folding, seen: Uids) -> Archive {
        let read: Vec<&Key> = folding.values().iter().map(|v| &v.key).collect();
        let unread: Vec<&Shelved> = live_shelved(&self.books.shelves).into_iter().filter(|s| !read.contains(&&s.key)).collect();
        let mut archive = Archive { seen, ..Archive::default() };
        for s in unread {
            folding.add(s.key.clone(), s.bytes, Vec::new(), Kind::Archive);
            archive.unread += 1;
            archive.lc = archive.lc.max(s.lc);
            for (w, seq) in &s.seqs {
                match archive.seqs.iter_mut().find(|(x, _)| x == w) {
                    Some((_, top)) => *top = (*top).max(*seq),
                    None => archive.seqs.push((w.clone(), *seq)),
                }
            }
            for t in s.threads.iter().filter(|t| t.thread == self.opts.thread) {
                archive.messages += t.messages;
                archive.tokens += t.tokens;
            }
        }
        archive
    }

    /// What the archive segments among `records` hold, for a shelf record
    /// (`segments`: each one's key, size, and how many of `records` it
    /// holds, in order).
    pub(crate) fn shelve(&self, records: &[Record], segments: &[(Key, usize, usize)]) -> Vec<Shelved> {
        let mut at = 0;
        let counted = self.counted();
        let mut out = Vec::with_capacity(segments.len());
        for (key, bytes, n) in segments {
            let held = records.get(at..at + n).unwrap_or_default();
            at += n;
            let mut s = Shelved { key: key.clone(), bytes: *bytes, lc: 0, seqs: Vec::new(), threads: Vec::new(), counted: counted.clone() };
            let mut threads: Vec<ShelvedThread> = Vec::new();
            for r in held {
                let (w, seq) = r.uid();
                s.lc = s.lc.max(r.lc());
                match s.seqs.iter_mut().find(|(x, _)| x == w) {
                    Some((_, top)) => *top = (*top).max(seq),
                    None => s.seqs.push((w.to_string(), seq)),
                }
                if let Record::Msg { message, ts, .. } = r {
                    let thread = r.thread().unwrap_or(DEFAULT_THREAD);
                    let tokens = self.archived_tokens(r).unwrap_or_else(|| message_tokens(&self.counter, message)) as u64;
                    if !threads.iter().any(|t| t.thread == thread) {
                        threads.push(super::threads::summary(thread));
                    }
                    if let Some(t) = threads.iter_mut().find(|t| t.thread == thread) {
                        t.tokens += tokens;
                        super::threads::add_message(t, r.lc(), *ts, message);
                    }
                }
            }
            s.threads = threads;
            out.push(s);
        }
        out
    }

    /// The tokens of a message of this thread's log, if counted already.
    fn archived_tokens(&self, r: &Record) -> Option<usize> {
        let Record::Msg { writer, seq, lc, ts, .. } = r else { return None };
        let log = &self.window.log;
        let at = log.binary_search_by(|s| s.lc.cmp(lc).then(s.ts.total_cmp(ts)).then_with(|| s.writer.as_str().cmp(writer)).then(s.seq.cmp(seq))).ok()?;
        log.get(at).map(|s| s.tokens.get()).filter(|&t| t != UNCOUNTED)
    }

    /// Merges the archive segments the write path read (everything under
    /// the archive prefix) into the window. A damaged segment is listed in
    /// the load report, as opening lists one; everything intact is merged.
    pub fn merge_archive(&mut self, loaded: Loaded) {
        let Loaded { records, folding: read, report, .. } = loaded;
        let Archive { mut seen, .. } = std::mem::take(&mut self.books.archive);
        let damaged: Vec<Key> = report.corrupt.iter().map(|c| c.key.clone()).collect();
        let r = &mut self.books.load_report;
        r.keys += report.keys;
        r.duplicates += report.duplicates;
        r.corrupt.extend(report.corrupt);
        for v in read.values() {
            self.books.folding.adopt(&read, v.key.clone(), v.bytes, &v.uids, v.kind);
        }
        let forgotten = Tombstones::of(&self.books.forgets);
        let covered: HashSet<&str> = self.episodic.episodes.iter().flat_map(|e| e.message_ids.iter().map(String::as_str)).collect();
        let mut purge = Uids::default();
        // The log grows once, to its size.
        let mut log = std::mem::take(&mut self.window.log);
        let before = log.len();
        log.reserve_exact(records.len());
        for r in records {
            let uid = self.books.folding.uid(r.uid().0, r.uid().1);
            if seen.insert(uid, 0).is_some() {
                self.books.load_report.duplicates += 1;
                continue;
            }
            self.books.load_report.records += 1;
            if forgotten.covers(&r) {
                purge.insert(uid, 0);
                continue;
            }
            if r.thread().is_some_and(|t| t != self.opts.thread) {
                self.others.push(r);
                continue;
            }
            // Only messages are written to archive segments; anything
            // else in one stays as stored.
            if let Record::Msg { writer, seq, lc, ts, id, message, task, .. } = r {
                // As `restore` places it: archived while an episode covers it.
                let place = if covered.contains(id.as_str()) && !message.role.is_instruction() { Place::Archived } else { Window::place_for(&message) };
                log.push(Stored { id, writer, seq, lc, ts, message, tokens: UNCOUNTED.into(), tool_turn: false, place, task_id: task });
            }
        }
        self.books.folding.rewrite_holding(&purge);
        if log.len() > before {
            log.sort_unstable_by(log_order);
        }
        let counter = &self.counter;
        // A message placed in working memory above is counted as sent, once
        // `from_log` has decided its tool turn.
        self.window = Window::from_log(log, |s| {
            if s.place != Place::Archived && s.tokens.get() == UNCOUNTED {
                s.tokens.set(message_tokens(counter, &s.sent(&[])));
            }
        });
        // Placeholders no intact value answered: removed since their shelf
        // record was written (the next shelf record says so), or damaged
        // (listed in the report, and on every read after).
        for key in self.books.folding.drop_placeholders() {
            if !damaged.contains(&key) {
                self.removed(&key);
            }
        }
        self.index.stale = true;
    }
}
