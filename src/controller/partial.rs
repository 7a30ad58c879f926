//! A lexical query over an archive not read: the first query after opening
//! reads what it needs, not the history (`WritePath::read` with
//! [`Need::Query`]).
//!
//! The read (`store::indexing`) skims each cold segment of messages
//! (record heads, not messages) and keeps its stored terms in a
//! [`FrozenIndex`], which the search scores with the index of what memory
//! holds as one index (`Bm25Index::search_with`); it decodes the segments
//! of episodes, whose episodes join memory as a whole read merges them
//! (their index built from the terms stored with them, if any). Then each
//! query decodes the archived messages it shows, and only those
//! (`skim::decode_some`): a search's hits; a context's first
//! [`FIRST_DECODED`] hits, then, when the context built shows one not
//! decoded (`build_context_read` answers `None`), more while its recall
//! block, drafted (`draft_context`), would show one not decoded (an
//! undecoded hit stands there as an empty line, shorter than any real
//! one, so the block takes it exactly where it would take the message).
//! The newest [`DECODED`] stay decoded. The messages stay out of the log:
//! what the context shows and counts is unchanged.
//!
//! Invariants: every search slot is the one a whole read gives
//! (`Slot::Message(p)` with `p` the message's place in the log of the
//! whole thread, `Slot::Other(q)` its place in `others`), so scores, ties
//! and results equal a whole read's; a message of the log at position `i`
//! is slot `i` plus the archived messages before it (`log_slot`). Anything
//! a whole read would do more than merge (a record a tombstone covers, an
//! episode superseded, a message no episode covers, a segment without
//! terms: `store::indexing`) makes the cold segments be read whole instead; so
//! does a whole read's `Need`. A whole read frees this state's terms and
//! decoded messages before it reads (`release_partial`; if it fails, the
//! next query reads whole), and its merge (`merge_cold`) ends this state,
//! leaving out the episodes merged here.

use std::collections::HashSet;

use super::cold::Need;
use super::loading::{episode_order, superseded};
use super::search::{SearchOptions, Slot};
use super::Controller;
use crate::context::ContextRequest;
use crate::episodic::Episode;
use crate::origin::Origin;
use crate::retrieval::hash::{str_hash, FxHashMap, FxHashSet};
use crate::retrieval::FrozenIndex;
use crate::store::indexing::{Indexing, MINE, NONE, OTHER};
use crate::store::record::Record;
use crate::store::tombstones::Tombstones;
use crate::store::{Key, Loader};

mod slots;

/// Most archived messages kept decoded for later queries (the oldest go first).
pub const DECODED: usize = 4096;

/// How many of a context's hits a read decodes first (then twice as many
/// while the recall block would show one not decoded).
pub const FIRST_DECODED: usize = 24;

/// The archive as a lexical query reads it (see the module docs).
#[derive(Clone, Debug)]
pub(crate) struct Partial {
    pub frozen: FrozenIndex,
    /// The log positions (in the whole thread's log) of this thread's
    /// archived messages, ascending, and each one's frozen document.
    unread: Vec<u32>,
    unread_doc: Vec<u32>,
    /// Per log position when the archive was read: archived messages before it.
    offsets: Vec<u32>,
    /// Other threads' archived records: from this place of `others` on,
    /// each one's frozen document.
    others_from: usize,
    others_doc: Vec<u32>,
    /// Each frozen document's segment and time.
    doc_segment: Vec<u32>,
    doc_ts: Vec<f64>,
    /// Each segment of messages: its key, its message records' slots
    /// (`u64::MAX`: left out, a copy of a record read before) and their
    /// places among its records.
    segments: Vec<(Key, Vec<u64>, Vec<u32>)>,
    /// Archived messages decoded, by slot, and their slots, oldest first.
    cache: FxHashMap<u64, Record>,
    decoded: std::collections::VecDeque<u64>,
    /// The slots the query being read for needs: kept.
    needed: Vec<u64>,
    /// The episodes merged here: a whole read leaves them out.
    pub merged: HashSet<(String, u64)>,
    /// A context built after the last read showed a message not decoded:
    /// the next read drafts contexts to see what to decode.
    probe: bool,
    /// A whole read began (`release_partial`): what the queries read is
    /// gone, and the next query reads the cold segments whole.
    released: bool,
}

/// Whether a context's recall block would show an archived message not decoded.
fn shows_unread(ctx: &crate::context::Context) -> bool {
    ctx.sections.knowledge.ids.iter().any(String::is_empty)
}

/// What a query to be answered is (`Need::Query`).
#[derive(Clone, Copy, Debug)]
pub enum Query<'a> {
    /// `build_context` with a query.
    Context(&'a ContextRequest),
    /// `search`, lexical.
    Search(&'a str, &'a SearchOptions),
}

/// The next step of a read (`WritePath::read`).
#[derive(Debug, PartialEq)]
pub enum Step {
    /// Memory holds what the read needs.
    Held,
    /// Read the whole archive.
    Whole,
    /// Read the cold segments for a lexical query (`store::indexing`).
    Index,
    /// Decode the records at these places of these segments.
    Decode(Vec<(Key, Vec<u32>)>),
}

impl Controller {
    /// What to read next for `need` (building the search index first if a
    /// query needs it and it is stale).
    pub fn read_step(&mut self, need: Need<'_>) -> Step {
        if self.cold_ready() {
            return Step::Held;
        }
        let Need::Query(query) = need else {
            return if self.holds(need) { Step::Held } else { Step::Whole };
        };
        match &self.partial {
            None => return Step::Index,
            Some(p) if p.released => return Step::Whole,
            Some(_) => {}
        }
        self.ensure_index();
        // (a query that fails fails on its own, with the same error)
        let needed = self.needed_for(query).unwrap_or_default();
        let batch = self.to_decode(query, &needed);
        let mut missing: Vec<(Key, Vec<u32>)> = Vec::new();
        for slot in batch {
            let Some((key, at)) = self.place_of(slot) else { continue };
            match missing.iter_mut().find(|(k, _)| *k == key) {
                Some((_, places)) => places.push(at),
                None => missing.push((key, vec![at])),
            }
        }
        for (_, places) in &mut missing {
            crate::sort::sort(places);
        }
        if let Some(p) = self.partial.as_mut() {
            p.needed = needed;
        }
        if missing.is_empty() {
            Step::Held
        } else {
            Step::Decode(missing)
        }
    }

    /// Which of `needed` (`needed_for`) to decode next: none once the
    /// answer shows no undecoded one (a context's recall block looks at
    /// the first few only, see `relevant`); else a search's all, a
    /// context's first [`FIRST_DECODED`], then, while its recall block
    /// would show one not decoded, twice as many as it holds already.
    fn to_decode(&self, query: Query<'_>, needed: &[u64]) -> Vec<u64> {
        let missing: Vec<u64> = needed.iter().copied().filter(|&s| self.archived(Slot::of(s)).is_none()).collect();
        match query {
            _ if missing.is_empty() => missing,
            Query::Search(..) => missing,
            Query::Context(req) => {
                // The first few, before asking: a block of 600 tokens shows about as many.
                let first: Vec<u64> =
                    needed.iter().take(FIRST_DECODED).copied().filter(|&s| self.archived(Slot::of(s)).is_none()).collect();
                if !first.is_empty() {
                    return first;
                }
                // Drafted only when a build showed one not decoded (`read_again`):
                // the first few mostly cover what the block looks at.
                // (a context that fails fails on its own)
                let probe = self.partial.as_ref().is_some_and(|p| p.probe);
                if !probe || !self.draft_context(req).is_ok_and(|(ctx, _)| shows_unread(&ctx)) {
                    return Vec::new();
                }
                let held = needed.len() - missing.len();
                missing.into_iter().take(held.max(FIRST_DECODED)).collect()
            }
        }
    }

    /// Whether memory holds what `query` reads: the cold read for
    /// queries, and the segments holding what it finds decoded.
    pub(crate) fn holds_query(&self, query: Query<'_>) -> bool {
        self.cold_ready()
            || (self.partial.as_ref().is_some_and(|p| !p.released)
                && !self.index.stale
                && self.needed_for(query).is_ok_and(|needed| self.to_decode(query, &needed).is_empty()))
    }

    /// The loader of a lexical query's read of the cold segments.
    pub fn indexing_loader(&self) -> Loader {
        let mut ix = Indexing::new(
            self.opts.thread.clone(),
            Tombstones::of(&self.books.forgets),
            self.books.folding.writers(),
            self.books.cold.seen.clone(),
        );
        // The terms of the episodes opening read, kept with the cold ones'
        // (the read's index replaces opening's: without them, opening's
        // episodes were analyzed again).
        ix.episode_terms = self.index.prebuilt_episodes.clone();
        Loader::indexing(self.read_early(), ix)
    }

    /// Takes what a lexical query's read of the cold segments found (see the
    /// module docs); `false` when the cold segments must be read whole instead.
    pub fn finish_indexing(&mut self, loader: Loader) -> bool {
        if self.cold_ready() || self.partial.is_some() {
            return true;
        }
        let Some(mut ix) = loader.into_indexing().filter(|ix| ix.fallback.is_none()) else { return false };
        ix.flush_episode_terms();
        let Some(mut frozen) = ix.frozen.finish() else { return false };
        // The growth slack back first: what follows allocates, and wasm memory never shrinks.
        frozen.shrink_to_fit();
        if let Some(e) = ix.episode_terms.as_mut() {
            e.shrink_to_fit();
        }
        let read: Vec<Episode> = ix
            .episodes
            .into_iter()
            .filter_map(|r| match r {
                Record::Episode { writer, seq, lc, episode, counted, .. } => {
                    Some(self.loaded_episode(Origin::new(writer, seq, lc), episode, counted.as_deref()))
                }
                _ => None,
            })
            .collect();
        if !self.episodes_stand(&read, &ix.mine) {
            return false;
        }
        let Indexing { writer_names, mine, others, segments, doc_segment, doc_ts, episode_terms, .. } = ix;
        // Each archived message's place in the whole log: the log and the
        // archived messages, both in log order, merged.
        let mut order: Vec<u32> = (0..mine.len() as u32).collect();
        let key =
            |i: u32| mine.get(i as usize).map(|m| (m.lc, m.ts, writer_names.get(m.writer as usize).map_or("", String::as_str), m.seq));
        crate::sort::sort_by(&mut order, |&a, &b| match (key(a), key(b)) {
            (Some(a), Some(b)) => a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)).then_with(|| a.2.cmp(b.2)).then(a.3.cmp(&b.3)),
            _ => std::cmp::Ordering::Equal,
        });
        let log = &self.window.log;
        let (mut unread, mut unread_doc) = (Vec::with_capacity(mine.len()), Vec::with_capacity(mine.len()));
        let mut offsets = Vec::with_capacity(log.len());
        let mut slots = vec![u64::MAX; mine.len()];
        let (mut i, mut j) = (0, 0);
        while i < log.len() || j < order.len() {
            let before = |m: (u64, f64, &str, u64), s: &crate::window::Stored| {
                m.0.cmp(&s.lc).then(m.1.total_cmp(&s.ts)).then_with(|| m.2.cmp(s.writer.as_str())).then(m.3.cmp(&s.seq)).is_lt()
            };
            let next = order.get(j).and_then(|&o| Some((o, key(o)?)));
            match (next, log.get(i)) {
                (Some((o, k)), s) if s.is_none_or(|s| before(k, s)) => {
                    let p = (i + j) as u32;
                    let doc = mine.get(o as usize).map_or(NONE, |m| m.doc);
                    let slot = Slot::Message(p as usize).id();
                    if doc != NONE {
                        frozen.set_id(doc, slot);
                    }
                    if let Some(s) = slots.get_mut(o as usize) {
                        *s = slot;
                    }
                    unread.push(p);
                    unread_doc.push(doc);
                    j += 1;
                }
                _ => {
                    offsets.push(j as u32);
                    i += 1;
                }
            }
        }
        let others_from = self.others.len();
        for (q, &doc) in others.iter().enumerate().filter(|(_, &d)| d != NONE) {
            frozen.set_id(doc, Slot::Other(others_from + q).id());
        }
        let segments = segments
            .into_iter()
            .map(|s| {
                let msgs = s
                    .msgs
                    .iter()
                    .map(|&r| match r {
                        u64::MAX => u64::MAX,
                        r if r & MINE != 0 => slots.get((r & !MINE) as usize).copied().unwrap_or(u64::MAX),
                        r => Slot::Other(others_from + (r & !OTHER) as usize).id(),
                    })
                    .collect();
                (s.key, msgs, s.records)
            })
            .collect();
        let merged = read.iter().map(|e| (e.origin.writer.clone(), e.origin.seq)).collect();
        // (no episode is superseded: `episodes_stand` found it, over every
        // message id, and merging does not look again)
        self.merge_episodes(read, None);
        let archive = &mut self.books.cold;
        (archive.episodes, archive.episode_tokens) = (0, 0);
        archive.tasks.clear();
        self.partial = Some(Box::new(Partial {
            frozen,
            unread,
            unread_doc,
            offsets,
            others_from,
            others_doc: others,
            doc_segment,
            doc_ts,
            segments,
            cache: FxHashMap::default(),
            decoded: std::collections::VecDeque::new(),
            needed: Vec::new(),
            merged,
            probe: false,
            released: false,
        }));
        // Its slots are the whole log's now; the episodes' stored terms go into its build.
        self.index.stale = true;
        self.index.prebuilt_episodes = episode_terms;
        true
    }

    /// Whether the cold segments' episodes (`read`) and memory's all stand (none
    /// supersedes another) and cover every archived message of this thread
    /// (`mine`): else a whole read would change what memory holds.
    fn episodes_stand(&self, read: &[Episode], mine: &[crate::store::indexing::Mine]) -> bool {
        let mut all: Vec<&Episode> = read.iter().chain(&self.episodic.episodes).collect();
        let mut covered: FxHashSet<u64> = FxHashSet::default();
        covered.reserve(all.iter().map(|e| e.message_ids.len()).sum());
        // Ids whose hashes all differ are all different, and no episode then
        // supersedes another: the exact check (ordered, by text) runs only
        // when two hashes meet, a shared message or a collision (`str_hash`
        // keeps ids that differ in their last digits apart; the same hash
        // as `store::indexing`'s `Mine::id`).
        let mut shared = false;
        for m in all.iter().flat_map(|e| &e.message_ids) {
            shared |= !covered.insert(str_hash(m));
        }
        if shared {
            crate::sort::sort_by(&mut all, |a, b| episode_order(a, b));
            if !superseded(&all).is_empty() {
                return false;
            }
        }
        mine.iter().all(|m| covered.contains(&m.id))
    }

    /// The archived messages memory does not hold that `query` shows,
    /// by slot, best first: a search's hits; for a context, the first of
    /// its hits the recall block may look at (`context::recall::most_examined`).
    ///
    /// # Errors
    /// As the query itself (`Controller::search`, `Controller::build_context`).
    fn needed_for(&self, query: Query<'_>) -> crate::Result<Vec<u64>> {
        if self.partial.is_none() {
            return Ok(Vec::new());
        }
        let (ranked, most) = match query {
            Query::Search(q, opts) => (self.ranked(q, opts, None)?, usize::MAX),
            Query::Context(req) => match req.query.as_deref().filter(|q| !q.trim().is_empty()) {
                Some(q) => {
                    let mut req = req.clone();
                    req.max_tokens = req.max_tokens.min(self.model.context_window as usize);
                    let cap = req.semantic_tokens.unwrap_or(crate::context::RECALL_TOKENS);
                    (self.recall_ranked(&req, q)?, crate::context::recall::most_examined(cap))
                }
                None => (Vec::new(), 0),
            },
        };
        // (what memory holds, facts among it, is shown from memory)
        let archived = ranked.into_iter().map(|(slot, _)| slot).filter(|&slot| self.archived_doc(Slot::of(slot)).is_some());
        Ok(archived.take(most).collect())
    }

    /// Where an archived message's record is stored: its segment and its
    /// place among the segment's records.
    fn place_of(&self, slot: u64) -> Option<(Key, u32)> {
        let p = self.partial.as_ref()?;
        let seg = *p.doc_segment.get(self.archived_doc(Slot::of(slot))? as usize)?;
        let (key, slots, places) = p.segments.get(seg as usize)?;
        let at = slots.iter().position(|&s| s == slot)?;
        Some((key.clone(), *places.get(at)?))
    }

    /// Keeps archived messages decoded for a query (`Loader::values`:
    /// each segment's key and its records decoded, by place); `false` when
    /// one is not a message this read knows (the cold segments must then be read whole).
    pub fn cache_decoded(&mut self, values: Vec<(Key, Vec<(u32, Record)>)>) -> bool {
        let Some(p) = self.partial.as_mut() else { return false };
        for (key, records) in values {
            let Some((_, slots, places)) = p.segments.iter().find(|(k, _, _)| *k == key) else { return false };
            for (at, r) in records {
                let slot = places.iter().position(|&x| x == at).and_then(|i| slots.get(i)).copied().unwrap_or(u64::MAX);
                if slot == u64::MAX || !matches!(r, Record::Msg { .. }) {
                    return false;
                }
                if p.cache.insert(slot, r).is_none() {
                    p.decoded.push_back(slot);
                }
            }
        }
        // The oldest go first; those the query being read for needs stay.
        let mut kept = 0;
        while p.decoded.len() > DECODED.max(p.needed.len()) + kept {
            let Some(slot) = p.decoded.pop_front() else { break };
            if p.needed.contains(&slot) {
                p.decoded.push_back(slot);
                kept += 1;
            } else {
                p.cache.remove(&slot);
            }
        }
        true
    }

    /// Whether a context built after a read for it (`build_context_read`)
    /// must not be answered: it shows an archived message not decoded, and
    /// the read did not draft contexts yet; the next read will.
    pub(super) fn read_again(&mut self, ctx: &crate::context::Context) -> bool {
        let Some(p) = self.partial.as_mut() else { return false };
        let again = !p.probe && shows_unread(ctx);
        p.probe = again;
        again
    }

    /// Leaves the state of a query's read (a whole read takes over).
    pub(crate) fn take_partial(&mut self) -> Option<Box<Partial>> {
        self.partial.take()
    }

    /// Frees what a query's read holds of the archive (its terms, the
    /// messages decoded, the search index built with them) before a whole
    /// read allocates the archive: wasm
    /// memory never shrinks, and holding both made a whole read after a
    /// query peak at 125–134 MiB at 100,000 messages, past a Worker's 128
    /// MB. The slots stay (the search index is keyed by them); the whole
    /// read's merge takes the rest. If that read fails, the next query
    /// reads whole (`read_step`).
    pub(crate) fn release_partial(&mut self) {
        let Some(p) = self.partial.as_mut() else { return };
        p.frozen = FrozenIndex::default();
        p.cache = FxHashMap::default();
        (p.decoded, p.needed, p.segments) = Default::default();
        (p.doc_segment, p.doc_ts) = Default::default();
        p.released = true;
        // Keyed by the slots a whole read renumbers: its merge marks it stale anyway.
        self.index.unbuild();
    }

    /// What a `recalled` query ranks, best first (`relevant`'s ranking).
    ///
    /// # Errors
    /// As [`Controller::search`].
    pub(super) fn recall_ranked(&self, req: &ContextRequest, query: &str) -> crate::Result<Vec<(u64, f32)>> {
        let (k, when, query) = self.recall_query(req, query);
        self.relevant_ranked(&query, req.query_vector.as_deref(), k, &["fact", "chunk", "message"], None, when)
    }
}
