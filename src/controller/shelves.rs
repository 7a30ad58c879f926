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
        dead.contains(&&s.key) && s.threads.iter().any(|t| self.title_gone(t))
    }

    /// The shelf record restating those that quote a message gone, if any.
    pub fn prepare_restate(&self) -> Option<PreparedRestate> {
        if self.closed {
            return None;
        }
        let mut dead: Vec<&Key> = self.books.unshelve.iter().collect();
        for r in &self.books.shelves {
            if let Record::Shelf { removed, .. } = r {
                dead.extend(removed);
            }
        }
        if dead.is_empty() {
            return None;
        }
        let (mut added, mut removed, mut replaced) = (Vec::new(), Vec::new(), Vec::new());
        for r in &self.books.shelves {
            let Record::Shelf { writer, seq, added: a, removed: rm } = r else { continue };
            if !a.iter().any(|s| self.stale(s, &dead)) {
                continue;
            }
            for s in a {
                if !dead.contains(&&s.key) {
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
