//! The archive as opening leaves it: archive segments (record kind 3,
//! archived messages only) are read but not decoded, and decoded the first
//! time something needs archived messages (`ensure_archive`): search,
//! recall, history, stats, export, forget. Opening then costs the working
//! set, not the history.
//!
//! Invariants: until the archive is decoded, no plan folds an archive
//! segment (`Kind::Archive`: what it holds is unknown) and nothing reads
//! archived messages (`archive_ready`, asserted where they are read);
//! decoding merges them into the window in the order a full load gives, with
//! the same tombstones, threads and duplicates rules as `restore`.

use std::cmp::Ordering;
use std::collections::HashSet;

use super::Controller;
use crate::store::record::{decode_value, DecodeError, Record};
use crate::store::tombstones::Tombstones;
use crate::store::{Archive, CorruptKey, Uids};
use crate::tokens::chat::message_tokens;
use crate::window::{Place, Stored, Window, UNCOUNTED};

/// The log's order: causal (`lc`), then time, then record identity.
pub(crate) fn log_order(a: &Stored, b: &Stored) -> Ordering {
    a.lc.cmp(&b.lc).then(a.ts.total_cmp(&b.ts)).then_with(|| a.writer.cmp(&b.writer)).then(a.seq.cmp(&b.seq))
}

impl Controller {
    /// Whether every stored archived message is in the window.
    pub fn archive_ready(&self) -> bool {
        self.books.archive.values.is_empty()
    }

    /// This controller with its archive decoded: for the calls that read
    /// archived messages (`history`, `stats`, `export`, …).
    pub fn with_archive(&mut self) -> &mut Controller {
        self.ensure_archive();
        self
    }

    /// Decodes the archive segments opening left undecoded and merges their
    /// messages into the window (then the search index is rebuilt when next
    /// needed). A damaged segment is listed in the load report, as opening
    /// lists one; everything intact is merged.
    pub fn ensure_archive(&mut self) {
        if self.archive_ready() {
            return;
        }
        let Archive { values, mut seen, records, .. } = std::mem::take(&mut self.books.archive);
        let forgotten = Tombstones::of(&self.books.forgets);
        let covered: HashSet<&str> = self.episodic.episodes.iter().flat_map(|e| e.message_ids.iter().map(String::as_str)).collect();
        let mut purge = Uids::default();
        // The log grows once, to its size: a restore's peak memory is the
        // log beside the records it is filled from, not two logs.
        let mut log = std::mem::take(&mut self.window.log);
        let before = log.len();
        log.reserve_exact(records);
        for (key, bytes) in values {
            let decoded = decode_value(&bytes);
            drop(bytes);
            let records = match decoded {
                Ok((_, records)) => records,
                Err(DecodeError::Corrupt(reason)) => {
                    self.books.load_report.corrupt.push(CorruptKey { key, code: "CORRUPT_DATA", reason });
                    continue;
                }
                // Its head said this version: the rest cannot say otherwise.
                Err(DecodeError::TooNew(v)) => {
                    self.books.load_report.corrupt.push(CorruptKey { key, code: "CORRUPT_DATA", reason: format!("version {v} inside a version-2 archive segment") });
                    continue;
                }
            };
            let mut uids = Vec::with_capacity(records.len());
            for r in records {
                let uid = self.books.folding.uid(r.uid().0, r.uid().1);
                uids.push(uid);
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
            self.books.folding.decoded(&key, uids);
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
        self.index.stale = true;
    }
}
