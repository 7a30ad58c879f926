//! Shelf records restated when they quote what is gone. A shelf record's
//! entry for a cold segment carries the title of the segment's first
//! user message (so `threads()` names a thread without reading the
//! archive). When a forget, or retention, removes that message, the
//! segment is rewritten and its entry dies, but the record holding the
//! entry, in a value opening reads, still holds the title: a copy of
//! forgotten text. Such records are restated: one new record with their
//! live entries, the old ones leave memory, and the values holding them are
//! marked for rewriting, which the fold that follows does
//! (`WritePath::fold`).
//!
//! Invariants: a record is restated only for a dead entry (its key removed)
//! whose title no message in memory still has (by order and time; before
//! the cold segments are read, none is assumed to); what the live entries say is
//! unchanged, so opening, `stats()` and `threads()` read the same. A crash
//! at any point leaves the old record stored, and the next fold restates it
//! again (duplicate entries are read once, `store::shelf::live_shelved`).

use super::Controller;
use crate::store::record::{encode_record, Record, DEFAULT_THREAD};
use crate::store::shelf::{Shelved, ShelvedThread};
use crate::store::{Key, Uids, Write};

/// A restating shelf record, and the records it replaces.
pub struct PreparedRestate {
    pub write: Write,
    record: Record,
    replaced: Vec<(String, u64)>,
}

impl Controller {
    /// Whether the title `t` carries belongs to no message memory holds.
    fn title_gone(&self, t: &ShelvedThread) -> bool {
        let Some((lc, ts, Some(_))) = &t.first_user else { return false };
        if !self.cold_ready() {
            return true;
        }
        if t.thread == self.opts.thread {
            let log = &self.window.log;
            return log.binary_search_by(|s| s.lc.cmp(lc).then(s.ts.total_cmp(ts))).is_err();
        }
        for r in &self.others {
            if let Record::Msg { lc: l, ts: at, thread, .. } = r {
                if l == lc && at == ts && thread.as_deref().unwrap_or(DEFAULT_THREAD) == t.thread {
                    return false;
                }
            }
        }
        true
    }

    /// Whether `s` names a removed segment and quotes a message gone.
    fn stale(&self, s: &Shelved, dead: &[&Key]) -> bool {
        dead.binary_search(&&s.key).is_ok() && s.threads.iter().any(|t| self.title_gone(t))
    }

    /// What [`Controller::prepare_restate`] reads, in short: the shelf
    /// records (how many, the last one's seq), the keys to unshelve, the
    /// forget records, whether the cold segments are read. An entry dies
    /// only by a shelf record or a key unshelved, and a message leaves
    /// memory only by a forget record: while these stand, what found
    /// nothing to restate finds nothing still.
    fn restate_inputs(&self) -> [u64; 5] {
        let b = &self.books;
        let last = b.shelves.last().map_or(0, |r| r.uid().1);
        [b.shelves.len() as u64, last, b.unshelve.len() as u64, b.forgets.len() as u64, u64::from(self.cold_ready())]
    }

    /// The shelf record restating those that quote a message gone, if any.
    /// Every fold asks; it looks again only when what it reads changed
    /// (`restate_inputs`): the entries grow with the history.
    pub fn prepare_restate(&self) -> Option<PreparedRestate> {
        if self.closed {
            return None;
        }
        let inputs = self.restate_inputs();
        if self.books.restate_checked.get() == Some(inputs) {
            return None;
        }
        let found = self.restate();
        if found.is_none() {
            self.books.restate_checked.set(Some(inputs));
        }
        found
    }

    fn restate(&self) -> Option<PreparedRestate> {
        let mut dead: Vec<&Key> = self.books.unshelve.iter().collect();
        for r in &self.books.shelves {
            if let Record::Shelf { removed, .. } = r {
                dead.extend(removed);
            }
        }
        if dead.is_empty() {
            return None;
        }
        // Sorted: every fold asks this of every shelved segment, and the
        // removed keys grow with the history (a scan of them made adds at
        // 100,000 messages seven times slower than at 1,000).
        crate::sort::sort(&mut dead);
        let (mut added, mut removed, mut replaced) = (Vec::new(), Vec::new(), Vec::new());
        for r in &self.books.shelves {
            let Record::Shelf { writer, seq, added: a, removed: rm } = r else { continue };
            if !a.iter().any(|s| self.stale(s, &dead)) {
                continue;
            }
            for s in a {
                if dead.binary_search(&&s.key).is_err() {
                    added.push(s.clone());
                }
            }
            removed.extend_from_slice(rm);
            replaced.push((writer.clone(), *seq));
        }
        if replaced.is_empty() {
            return None;
        }
        let seq = self.books.next_seq;
        let record = Record::Shelf { writer: self.opts.writer.clone(), seq, added, removed };
        Some(PreparedRestate { write: Write { key: self.key(seq), bytes: encode_record(&record) }, record, replaced })
    }

    /// Applies a saved restating record: the records it replaces leave
    /// memory, and the values holding them wait for the fold to rewrite them.
    pub fn commit_restate(&mut self, p: PreparedRestate) {
        self.books.next_seq = p.record.uid().1 + 1;
        self.books.folding.logged(&p.write);
        let mut gone = Uids::default();
        for (w, s) in &p.replaced {
            if let Some(u) = self.books.folding.find(w, *s) {
                gone.insert(u, 0);
            }
        }
        self.books.shelves.retain(|r| !p.replaced.iter().any(|(w, s)| r.uid() == (w.as_str(), *s)));
        self.books.shelves.push(p.record);
        self.books.folding.rewrite_holding(&gone);
    }
}
