//! The archive as opening leaves it: cold segments (`[ns, "arc", …]`)
//! hold the messages an episode covers, with their lexical index
//! (`retrieval::terms`: reading them fills the search index without
//! analyzing their text, `SearchIndex::prebuilt`), and, apart, the
//! episodes none of whose messages is in a value opening reads. Opening reads none of the
//! first, and of the second only those holding the thread's newest
//! [`RECENT_EPISODES`] (`recent_keys`): a context without a query chooses
//! among those, before the cold segments are read and after. The `Shelf` records
//! a fold writes beside them say what they hold (keys, sizes, how far
//! their `lc` and seqs go, a summary per thread: messages, tokens, first
//! and last, episodes, tasks), so opening goes on after them, and
//! `stats()`, `threads()` and the memory note count them; the write path
//! reads them the first time something needs archived messages or old
//! episodes (`WritePath::read`): search, recall, a query, a task's
//! history that a shelf lists, history, episodes, export, forget; a
//! lexical query (`Need::Query`) reads only their stored terms and their
//! episodes, and the messages it shows (`controller::partial`). Opening
//! then costs the working set, not the history.
//!
//! Invariants: until the cold segments are read, no plan folds a cold segment
//! (`Kind::Cold`: what it holds is unknown; `Kind::Recent`: read early)
//! and nothing reads archived messages: the hosts reach the controller
//! only through `WritePath::read`, which reads what a read's [`Need`]
//! touches first, and gives the proof (`write_path::Reading`) without
//! which no borrow of the controller is handed out; reading merges them and the episodes into memory by
//! the loading rules opening uses (`controller::loading`), duplicates left
//! out. A segment no shelf names (its fold
//! crashed before the shelf was saved, or a removal failed) is read and
//! merged all the same: loading stays a union. Where a write puts records,
//! and why no message is left where opening reads it without its episode:
//! `store::placement`.

use std::cmp::Ordering;

use super::loading::{loaded_place, settle};
use super::Controller;
use crate::episodic::Episode;
use crate::origin::Origin;
use crate::store::record::{Record, DEFAULT_THREAD};
pub use crate::store::shelf::{live_shelved, recent_keys, RECENT_EPISODES};
use crate::store::shelf::{Shelved, ShelvedThread};
use crate::store::tombstones::Tombstones;
use crate::store::{Cold, Key, Loaded, Uids};
use crate::tokens::chat::message_tokens;
use crate::window::{Place, Stored, Window, UNCOUNTED};

/// The log's order: causal (`lc`), then time, then record identity.
pub(crate) fn log_order(a: &Stored, b: &Stored) -> Ordering {
    a.lc.cmp(&b.lc).then(a.ts.total_cmp(&b.ts)).then_with(|| a.writer.cmp(&b.writer)).then(a.seq.cmp(&b.seq))
}

/// What a read touches of the cold segments, so that the write path reads it
/// first only when that is needed (`WritePath::read`, the one way the
/// hosts reach the controller to read).
#[derive(Clone, Copy, Debug)]
pub enum Need<'a> {
    /// Every message and episode (history, export, search, forget).
    Everything,
    /// A page of history (`Controller::page_in_memory`).
    Page(&'a super::Page),
    /// These messages (`Controller::ids_in_memory`).
    Ids(&'a [String]),
    /// A context with a query or for a task (`Controller::needs_cold`).
    Context { query: bool, task: Option<&'a str> },
    /// A lexical query, and a context's task (`controller::partial`): the
    /// cold segments' stored terms and episodes, and the segments holding
    /// what it finds. Only without an embedder: vectors are read with the
    /// messages.
    Query(super::Query<'a>),
}

impl Controller {
    /// Whether memory holds what a read of `need` touches.
    pub fn holds(&self, need: Need<'_>) -> bool {
        match need {
            Need::Everything => self.cold_ready(),
            Need::Page(page) => self.page_in_memory(page),
            Need::Ids(ids) => self.ids_in_memory(ids),
            Need::Context { query, task } => !self.needs_cold(query, task),
            Need::Query(query) => self.holds_query(query),
        }
    }

    /// Whether every stored archived message is in the window.
    pub fn cold_ready(&self) -> bool {
        self.books.cold.unread == 0
    }

    /// Whether a context for `query` (or none) and `task` needs the archive
    /// read first: a query searches it, and a task may have steps there.
    pub fn needs_cold(&self, query: bool, task: Option<&str>) -> bool {
        !self.cold_ready() && (query || task.is_some_and(|t| self.books.cold.tasks.iter().any(|k| k == t)))
    }

    /// The cold segments opening read for their episodes (`recent_keys`).
    pub(crate) fn read_early(&self) -> Vec<Key> {
        self.books.folding.recent()
    }

    /// The loader of a whole read of the cold segments (`merge_cold` takes
    /// what it read): what opening read of them left out, room for the
    /// records their shelf records count. A query's read of them is freed
    /// first (`release_partial`): the whole read replaces it.
    pub fn whole_read_loader(&mut self) -> crate::store::Loader {
        self.release_partial();
        crate::store::Loader::skipping(self.read_early(), self.books.cold.records as usize)
    }

    /// The shelf records for the cold segments among `records`
    /// (`segments`: each one's key, size, and how many of `records` it
    /// holds, in order) and those removed since the last shelf record,
    /// numbered from `seq`: more than one when one would pass half a
    /// segment, none when there is nothing to say.
    pub(crate) fn shelf_records(&self, records: &[Record], segments: &[(Key, usize, usize)], mut seq: u64) -> Vec<Record> {
        // Only what is gone: a fold whose save fails may leave its shelf
        // record stored, and the values it meant to retire must stay listed.
        let mut removed = Some(self.books.unshelve.clone()).filter(|r| !r.is_empty());
        let writer = &self.opts.writer;
        let mut out = Vec::new();
        let (mut added, mut bytes) = (Vec::new(), 0);
        let mut entries = self.shelve(records, segments).into_iter().peekable();
        while let Some(entry) = entries.next() {
            // About what it takes as JSON (a bound, not the byte count).
            let threads = entry.threads.iter().map(|t| {
                700 + 2 * t.thread.len()
                    + [&t.first, &t.last].iter().filter_map(|e| e.as_ref()).map(|e| e.2.len()).sum::<usize>()
                    + t.tasks.iter().map(|k| k.len() + 3).sum::<usize>()
            });
            bytes += 200 + entry.key.iter().map(|k| k.len() + 3).sum::<usize>() + threads.sum::<usize>();
            added.push(entry);
            if entries.peek().is_none() || bytes >= self.opts.segment_bytes / 2 {
                out.push(Record::Shelf {
                    writer: writer.clone(),
                    seq,
                    added: std::mem::take(&mut added),
                    removed: removed.take().unwrap_or_default(),
                });
                (seq, bytes) = (seq + 1, 0);
            }
        }
        out.extend(removed.map(|removed| Record::Shelf { writer: writer.clone(), seq, added: Vec::new(), removed }));
        out
    }

    /// What the cold segments among `records` hold, for a shelf record
    /// (`segments`: each one's key, size, and how many of `records` it
    /// holds, in order).
    fn shelve(&self, records: &[Record], segments: &[(Key, usize, usize)]) -> Vec<Shelved> {
        let mut at = 0;
        let counted = self.counted();
        let mut out = Vec::with_capacity(segments.len());
        for (key, bytes, n) in segments {
            let held = records.get(at..at + n).unwrap_or_default();
            at += n;
            let mut s = Shelved {
                key: key.clone(),
                bytes: *bytes,
                lc: 0,
                seqs: Vec::new(),
                threads: Vec::new(),
                vectors: 0,
                counted: counted.clone(),
            };
            let mut threads: Vec<ShelvedThread> = Vec::new();
            for r in held {
                let (w, seq) = r.uid();
                s.lc = s.lc.max(r.lc());
                match s.seqs.iter_mut().find(|(x, _)| x == w) {
                    Some((_, top)) => *top = (*top).max(seq),
                    None => s.seqs.push((w.to_string(), seq)),
                }
                s.vectors += u64::from(matches!(r, Record::Embedding { .. }));
                let thread = r.thread().unwrap_or(DEFAULT_THREAD);
                if matches!(r, Record::Msg { .. } | Record::Episode { .. }) && !threads.iter().any(|t| t.thread == thread) {
                    threads.push(super::threads::summary(thread));
                }
                let Some(t) = threads.iter_mut().find(|t| t.thread == thread) else { continue };
                match r {
                    Record::Msg { message, ts, id, .. } => {
                        t.tokens += self.archived_tokens(r).unwrap_or_else(|| message_tokens(&self.counter, message)) as u64;
                        super::threads::add_message(t, r.lc(), *ts, id, message);
                    }
                    Record::Episode { episode, .. } => {
                        t.episodes += 1;
                        t.episode_tokens += episode.tokens as u64;
                        if let Some(task) = episode.task_id.as_ref().filter(|task| !t.tasks.contains(task)) {
                            t.tasks.push(task.clone());
                        }
                    }
                    _ => {}
                }
            }
            // (no message: no times, rather than infinities stored as null)
            for t in threads.iter_mut().filter(|t| t.messages == 0) {
                (t.first_at, t.last_at) = (0.0, 0.0);
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
        let at = log
            .binary_search_by(|s| s.lc.cmp(lc).then(s.ts.total_cmp(ts)).then_with(|| s.writer.as_str().cmp(writer)).then(s.seq.cmp(seq)))
            .ok()?;
        log.get(at).map(|s| s.tokens.get()).filter(|&t| t != UNCOUNTED)
    }

    /// Merges the cold segments the write path read (everything under
    /// the cold prefix) into the window. A damaged segment is listed in
    /// the load report, as opening lists one; everything intact is merged.
    pub fn merge_cold(&mut self, loaded: Loaded) {
        let Loaded { records, folding: read, report, terms, episode_terms, .. } = loaded;
        let Cold { seen, .. } = std::mem::take(&mut self.books.cold);
        // Episodes a query's read merged already (`controller::partial`).
        let merged = self.take_partial().map(|p| p.merged).unwrap_or_default();
        let damaged: Vec<Key> = report.corrupt.iter().map(|c| c.key.clone()).collect();
        let r = &mut self.books.load_report;
        r.keys += report.keys;
        r.duplicates += report.duplicates;
        r.corrupt.extend(report.corrupt);
        for v in read.values() {
            self.books.folding.adopt(&read, v.key.clone(), v.bytes, &v.uids, v.kind);
        }
        self.books.folding.set_recent(false);
        let forgotten = Tombstones::of(&self.books.forgets);
        let mut purge = Uids::default();
        // Sized once: `merge_episodes` adds those in memory to them.
        let (mut episodes, mut vectors) = (
            Vec::with_capacity(records.iter().filter(|r| matches!(r, Record::Episode { .. })).count() + self.episodic.episodes.len()),
            Vec::new(),
        );
        // The archived messages take the place of the records they are
        // read from (a collect from a vector's own iterator reuses its
        // memory): no second vector of a whole archive's size beside it.
        let mut log: Vec<Stored> = records
            .into_iter()
            .filter_map(|r| {
                let uid = self.books.folding.uid(r.uid().0, r.uid().1);
                // (copies within the archive were left out as it was read)
                if seen.contains_key(&uid) {
                    self.books.load_report.duplicates += 1;
                    return None;
                }
                self.books.load_report.records += 1;
                if matches!(r, Record::Episode { .. }) && merged.contains(&(r.uid().0.to_string(), r.uid().1)) {
                    return None;
                }
                let r = self.this_threads(r, &forgotten, &mut |_| {
                    purge.insert(uid, 0);
                })?;
                // Only messages, their vectors and episodes are written to
                // cold segments; anything else in one stays as stored.
                match r {
                    Record::Msg { writer, seq, lc, ts, id, message, task, .. } => {
                        return Some(Stored::loaded(id, writer, seq, lc, ts, message, task));
                    }
                    Record::Episode { writer, seq, lc, episode, counted, .. } => {
                        episodes.push(self.loaded_episode(Origin::new(writer, seq, lc), episode, counted.as_deref()));
                    }
                    Record::Embedding { writer, seq, item, vector } => vectors.push((writer, seq, item, vector)),
                    _ => {}
                }
                None
            })
            .collect();
        let read = log.len();
        log.append(&mut std::mem::take(&mut self.window.log));
        // (what the records took beyond what the messages take goes back)
        log.shrink_to_fit();
        for (writer, seq, item, vector) in vectors {
            self.restore_embedding(writer, seq, item, vector);
        }
        self.merge_episodes(episodes, Some(&mut purge));
        // As `restore` places them: archived while an episode covers them.
        let mut covered: crate::retrieval::hash::FxHashSet<&str> = Default::default();
        covered.reserve(self.episodic.episodes.iter().map(|e| e.message_ids.len()).sum());
        covered.extend(self.episodic.episodes.iter().flat_map(|e| e.message_ids.iter().map(String::as_str)));
        for s in log.iter_mut().take(read) {
            s.place = loaded_place(s, covered.contains(s.id.as_str()));
        }
        self.books.folding.rewrite_holding(&purge);
        if read > 0 {
            crate::sort::sort_by(&mut log, log_order);
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
        // (opening reads no indexed segment, so there is none before)
        if self.index.prebuilt.is_none() {
            self.index.prebuilt = terms.map(std::sync::Arc::new);
        }
        // The episodes' stored terms: the larger set (opening's or a query's
        // read may have some); an episode in neither is analyzed.
        let prebuilt = &mut self.index.prebuilt_episodes;
        if episode_terms.as_ref().is_some_and(|e| prebuilt.as_ref().is_none_or(|p| e.len() > p.len())) {
            *prebuilt = episode_terms;
        }
    }

    /// Adds the episodes read from the archive to those in memory, by the
    /// loading rules (`controller::loading`); without `purge`, the caller
    /// knows none is superseded, and they are only ordered.
    pub(super) fn merge_episodes(&mut self, read: Vec<Episode>, purge: Option<&mut Uids>) {
        if read.is_empty() {
            return;
        }
        // Into the vector read (most of them), not a third one.
        let mut all = read;
        all.append(&mut self.episodic.episodes);
        let mut facts = std::mem::take(&mut self.semantic.facts);
        settle(&mut all, &mut facts, &self.books.folding, purge);
        self.semantic.facts = facts;
        self.keep_episodes(all);
    }
}
