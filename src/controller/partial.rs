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
//! Invariants: an archived message's index id is the one a whole read
//! gives it, its record identity (`search::record_id`), so scores, ties
//! and results equal a whole read's; it is found by that id
//! (`Place::Cold`), never by a position in memory. Anything
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
use super::search::{order_of, record_id, SearchOptions};
use super::Controller;
use crate::context::ContextRequest;
use crate::episodic::Episode;
use crate::origin::Origin;
use crate::retrieval::hash::{str_hash, FxHashMap, FxHashSet};
use crate::retrieval::FrozenIndex;
use crate::store::indexing::{Indexing, MINE, NONE};
use crate::store::record::Record;
use crate::store::tombstones::Tombstones;
use crate::store::{Key, Loader};

mod places;

/// Most archived messages kept decoded for later queries (the oldest go first).
pub const DECODED: usize = 4096;

/// How many of a context's hits a read decodes first (then twice as many
/// while the recall block would show one not decoded).
pub const FIRST_DECODED: usize = 24;

/// The archive as a lexical query reads it (see the module docs).
#[derive(Clone, Debug)]
pub(crate) struct Partial {
    pub frozen: FrozenIndex,
    /// The index id of each archived message indexed (this thread's and
    /// others') → its frozen document. (Hashed, not a sorted list: the ids
    /// are hashes in no order, and sorting 100,000 of them was 48 ms of a
    /// first query in the wasm.)
    doc_of: FxHashMap<u64, u32>,
    /// Each frozen document's segment, time, and whether it is another thread's.
    doc_segment: Vec<u32>,
    doc_ts: Vec<f64>,
    doc_other: Vec<bool>,
    /// Each segment of messages: its key, its message records' index ids
    /// (`u64::MAX`: left out, a copy of a record read before) and their
    /// places among its records.
    segments: Vec<(Key, Vec<u64>, Vec<u32>)>,
    /// Archived messages decoded, by index id, and their ids, oldest first.
    cache: FxHashMap<u64, Record>,
    decoded: std::collections::VecDeque<u64>,
    /// The ids the query being read for needs: kept.
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
        for id in batch {
            let Some((key, at)) = self.place_of(id) else { continue };
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
        let missing: Vec<u64> = needed.iter().copied().filter(|&s| self.archived(s).is_none()).collect();
        match query {
            _ if missing.is_empty() => missing,
            Query::Search(..) => missing,
            Query::Context(req) => {
                // The first few, before asking: a block of 600 tokens shows about as many.
                let first: Vec<u64> = needed.iter().take(FIRST_DECODED).copied().filter(|&s| self.archived(s).is_none()).collect();
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
        // Each archived message indexed under its record identity, as a whole read indexes it.
        let mine_id = |i: usize| mine.get(i).and_then(|m| Some(record_id(writer_names.get(m.writer as usize)?, m.seq)));
        let mut doc_other = vec![false; doc_ts.len()];
        let mut doc_of = FxHashMap::default();
        doc_of.reserve(mine.len() + others.len());
        for (i, m) in mine.iter().enumerate().filter(|(_, m)| m.doc != NONE) {
            if let Some(id) = mine_id(i) {
                frozen.set_id(m.doc, id, order_of(m.ts));
                doc_of.insert(id, m.doc);
            }
        }
        for &(id, ts, doc) in others.iter().filter(|o| o.2 != NONE) {
            frozen.set_id(doc, id, order_of(ts));
            doc_of.insert(id, doc);
            if let Some(o) = doc_other.get_mut(doc as usize) {
                *o = true;
            }
        }
        let segments = segments
            .into_iter()
            .map(|s| {
                let msgs = s
                    .msgs
                    .iter()
                    .map(|&r| match r {
                        u64::MAX => u64::MAX,
                        r if r & MINE != 0 => mine_id((r & !MINE) as usize).unwrap_or(u64::MAX),
                        r => others.get((r & !crate::store::indexing::OTHER) as usize).map_or(u64::MAX, |o| o.0),
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
            doc_of,
            doc_segment,
            doc_ts,
            doc_other,
            segments,
            cache: FxHashMap::default(),
            decoded: std::collections::VecDeque::new(),
            needed: Vec::new(),
            merged,
            probe: false,
            released: false,
        }));
        // Episodes moved; their stored terms go into its build.
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
    /// by index id, best first: a search's hits; for a context, the first of
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
        let archived = ranked.into_iter().map(|(id, _)| id).filter(|&id| self.cold_place(id).is_some());
        Ok(archived.take(most).collect())
    }

    /// Where an archived message's record is stored: its segment and its
    /// place among the segment's records.
    fn place_of(&self, id: u64) -> Option<(Key, u32)> {
        let p = self.partial.as_ref()?;
        let seg = *p.doc_segment.get(*p.doc_of.get(&id)? as usize)?;
        let (key, ids, places) = p.segments.get(seg as usize)?;
        let at = ids.iter().position(|&s| s == id)?;
        Some((key.clone(), *places.get(at)?))
    }

    /// Keeps archived messages decoded for a query (`Loader::values`:
    /// each segment's key and its records decoded, by place); `false` when
    /// one is not a message this read knows (the cold segments must then be read whole).
    pub fn cache_decoded(&mut self, values: Vec<(Key, Vec<(u32, Record)>)>) -> bool {
        let Some(p) = self.partial.as_mut() else { return false };
        for (key, records) in values {
            let Some((_, ids, places)) = p.segments.iter().find(|(k, _, _)| *k == key) else { return false };
            for (at, r) in records {
                let id = places.iter().position(|&x| x == at).and_then(|i| ids.get(i)).copied().unwrap_or(u64::MAX);
                if id == u64::MAX || !matches!(r, Record::Msg { .. }) {
                    return false;
                }
                if p.cache.insert(id, r).is_none() {
                    p.decoded.push_back(id);
                }
            }
        }
        // The oldest go first; those the query being read for needs stay.
        let mut kept = 0;
        while p.decoded.len() > DECODED.max(p.needed.len()) + kept {
            let Some(id) = p.decoded.pop_front() else { break };
            if p.needed.contains(&id) {
                p.decoded.push_back(id);
                kept += 1;
            } else {
                p.cache.remove(&id);
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
    /// MB. The whole read's merge takes the rest. If that read fails, the next query
    /// reads whole (`read_step`).
    pub(crate) fn release_partial(&mut self) {
        let Some(p) = self.partial.as_mut() else { return };
        p.frozen = FrozenIndex::default();
        p.cache = FxHashMap::default();
        (p.decoded, p.needed, p.segments) = Default::default();
        p.doc_of = FxHashMap::default();
        (p.doc_segment, p.doc_ts, p.doc_other) = Default::default();
        p.released = true;
        // Its places are memory's before the merge, which marks it stale anyway.
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
