//! Search over everything the controller holds: live facts, document
//! chunks and every message ever added (working or archived).
//!
//! Index ids are record identities: the item stored as `(writer, seq)` is
//! `store::record::doc_key(writer, seq)` (`record_id`), the key its stored
//! terms carry, whether it is a fact, a message of this thread's log or of
//! another thread (`others`), an episode, or an archived message a query's
//! read left in storage (`controller::partial`). Where each one is now
//! (`Place`) is a map beside the index: moving items (a forget, a merge of
//! the cold segments) changes the map, not what was indexed. Ended facts
//! stay indexed (a search decides which it sees). Vectors come from the
//! embedder hook (`vectors`), keyed by item id, so nothing is embedded twice.

use std::collections::HashMap;

use super::Controller;
use crate::context::{Degraded, RetrievalMode};
use crate::error::{MemoryError, Result};
use crate::retrieval::{hybrid_search, script_of, Bm25Index, Bm25Params, Centres, HybridParams, VectorIndex, VectorMode};

mod build;
mod hits;
mod place;
mod vectors;
pub use hits::{Found, Hit, HitKind};
pub(crate) use place::{order_of, origin_id, record_id, Place};

/// The indexes and the vectors they were built from.
#[derive(Clone, Debug)]
pub struct SearchIndex {
    pub lexical: Bm25Index,
    pub vectors: VectorIndex,
    /// Item id (fact or message id) → its embedding, as the embedder gave it.
    pub embeddings: HashMap<String, Vec<f32>>,
    /// Item id (by its hash: an id string per message would be a tenth of
    /// the index) → where it is in memory (`Place::pack`), for every item
    /// indexed so far. A lookup that must be sure checks the item it finds
    /// (`item_place`'s callers do).
    by_item: crate::retrieval::hash::FxHashMap<u64, u32>,
    /// Index id → where the item is in memory, the same way.
    places: crate::retrieval::hash::FxHashMap<u64, u32>,
    /// Episodes by index id: their own indexes, for recall relevance.
    pub episodes: Bm25Index,
    pub episode_vectors: VectorIndex,
    /// Per-script means taken out of `vectors` and of query vectors.
    pub centres: Centres,
    /// The lexical index of the messages read with the cold segments, from the
    /// terms stored with them (`retrieval::terms`), keyed as this index is:
    /// the next build starts from it instead of analyzing their text again.
    /// A forget that could not be saved leaves what was indexed here too
    /// (`forget::undo`).
    pub prebuilt: Option<std::sync::Arc<Bm25Index>>,
    /// The same for the episodes read with the cold segments (`store::indexing`):
    /// the next build of `episodes` starts from it.
    pub prebuilt_episodes: Option<Bm25Index>,
    /// Not built yet: a restored controller builds it when a search, a
    /// query or an embedding first needs it (`Controller::ensure_index`),
    /// so opening does not pay for it; so does a read of the archive,
    /// which moves items (the build starts from the terms stored with
    /// them), and a forget whose save failed (`forget::undo`). An edit
    /// that succeeds updates a built index in place
    /// (`Controller::reindex_after_edit`). Until then only `embeddings`
    /// holds anything; changes are not indexed one by one, the build takes
    /// them all.
    pub stale: bool,
}

impl Default for SearchIndex {
    fn default() -> Self {
        SearchIndex {
            lexical: Bm25Index::with_params(CHAT_BM25).unwrap_or_default(),
            vectors: VectorIndex::new(VectorMode::Exact),
            embeddings: HashMap::new(),
            by_item: Default::default(),
            places: Default::default(),
            episodes: Bm25Index::new(),
            episode_vectors: VectorIndex::new(VectorMode::Exact),
            centres: Centres::default(),
            prebuilt: None,
            prebuilt_episodes: None,
            stale: false,
        }
    }
}

impl SearchIndex {
    /// Indexes a message's text and tool calls under `id`, at `place` (a
    /// field of the controller apart from the log, so the message is not
    /// copied). With `read`, a message the lexical index holds already
    /// keeps the terms it has (read with the cold segments: `prebuilt`).
    fn index_text(&mut self, (id, ts): (u64, f64), place: Place, item: &str, message: &crate::message::Message, read: bool) {
        if self.stale || message.role.is_instruction() {
            return;
        }
        let analyzed = read && self.lexical.contains(id);
        if analyzed {
            self.lexical.set_order(id, order_of(ts));
        }
        // The text only where it is needed: not for terms read with the cold segments.
        if !analyzed || self.embeddings.contains_key(item) {
            let text = message.search_text().unwrap_or_default();
            if !analyzed {
                self.lexical.add_at(id, order_of(ts), &text);
            }
            if let Some(v) = self.embeddings.get(item) {
                let _ = self.vectors.add(id, &self.centres.centre(script_of(&text), v));
            }
        }
        self.set_place(item, id, place);
    }

    /// Frees the built indexes, keeping the vectors: built again when
    /// next needed (`Controller::ensure_index`).
    pub(crate) fn unbuild(&mut self) {
        let embeddings = std::mem::take(&mut self.embeddings);
        *self = SearchIndex { embeddings, stale: true, ..SearchIndex::default() };
    }

    /// (`str_hash`: with Fx, ids that differ in their last digits met, and
    /// the one indexed first was no longer found by id)
    fn key(item: &str) -> u64 {
        crate::retrieval::hash::str_hash(item)
    }

    /// Where `item` is in memory, or an item whose id hashes alike.
    pub(crate) fn item_place(&self, item: &str) -> Option<Place> {
        self.by_item.get(&Self::key(item)).and_then(|&p| Place::unpack(p))
    }

    /// Where the item of index id `id` is in memory.
    pub(crate) fn place(&self, id: u64) -> Option<Place> {
        self.places.get(&id).and_then(|&p| Place::unpack(p))
    }

    /// (an item past a billion in its list is not looked up: see `Place::pack`)
    fn set_place(&mut self, item: &str, id: u64, place: Place) {
        if let Some(p) = place.pack() {
            self.by_item.insert(Self::key(item), p);
            self.places.insert(id, p);
        }
    }

    /// Indexes the episode `e` (`Episode::search_text`); `read`: as in
    /// `index_text` (its terms read with the cold segments: `prebuilt_episodes`).
    pub fn index_episode(&mut self, e: &crate::episodic::Episode, read: bool) {
        if self.stale {
            return;
        }
        let id = origin_id(&e.origin);
        if !(read && self.episodes.contains(id)) {
            self.episodes.add(id, &e.search_text());
        }
        if let Some(v) = self.embeddings.get(&e.id) {
            let _ = self.episode_vectors.add(id, v);
        }
    }
}

/// BM25 for chat turns and facts: `b` 0.3, not the usual 0.75. Turns are
/// short and their length says little about relevance: on the tune half of
/// tests/fixtures/recall recall@10 went 0.261 → 0.295 (held-out half 0.303
/// → 0.368, tests/fixtures/retrieval unchanged or better); lower `b` tied.
/// Neighbouring turns as context and pseudo-relevance feedback (the top 1
/// or 3 hits' text added to the query) were tried there too and lost or
/// changed nothing, so they are not here.
const CHAT_BM25: Bm25Params = Bm25Params { k1: 1.2, b: 0.3 };

/// Which messages a search reaches; facts, preferences and documents are
/// the user's and reached from every thread.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Scope {
    /// This thread's messages only.
    Thread,
    /// Every thread of the namespace (the user).
    #[default]
    User,
}

/// What `search` looks for (read from JS by `wasm::options::search_options`).
#[derive(Clone, Debug, Default)]
pub struct SearchOptions {
    pub scope: Scope,
    pub k: Option<usize>,
    /// Any of "fact", "preference", "chunk", "message"; default all.
    pub kinds: Option<Vec<String>>,
    /// Facts carrying at least one of these tags (messages have none).
    pub tags: Option<Vec<String>>,
    /// Only items created at or after / at or before these times (ms).
    pub from: Option<f64>,
    pub to: Option<f64>,
    /// Which facts and preferences are searched: the live ones (default),
    /// those that held at a time, or any (recall ranks them itself).
    pub held: Held,
}

/// Which facts and preferences a search reaches, by when they held
/// (`semantic::valid`); chunks and messages are reached whatever it is.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum Held {
    /// Those that hold now.
    #[default]
    Now,
    /// Those that held at some moment of `[from, to]` (ms).
    During(f64, f64),
    /// Every one, ended or not (never a merged one: its merge stands for it).
    Any,
}

impl Controller {
    /// Indexes the fact at `slot`. Every fact is indexed, ended ones too
    /// (`search` as of a time, recall of what held then); which ones a
    /// search sees is decided when it runs (`ranked`).
    pub(crate) fn index_fact(&mut self, slot: usize) {
        let Some(fact) = self.semantic.facts.get(slot).filter(|_| !self.index.stale) else { return };
        let id = origin_id(&fact.origin);
        // (a text never changes under its id: indexed already, it stays)
        if !self.index.lexical.contains(id) {
            self.index.lexical.add_at(id, order_of(fact.created_at), &fact.text);
        }
        self.index.set_place(&fact.id, id, Place::Fact(slot as u32));
        if let Some(v) = self.index.embeddings.get(&fact.id) {
            let _ = self.index.vectors.add(id, &self.index.centres.centre(script_of(&fact.text), v));
        }
    }

    /// Indexes the message at log position `pos` (instructions are not
    /// searched); `read`: as in `index_text`.
    pub(crate) fn index_message(&mut self, pos: usize, read: bool) {
        if let Some(s) = self.window.log.get(pos) {
            self.index.index_text((record_id(&s.writer, s.seq), s.ts), Place::Message(pos as u32), &s.id, &s.message, read);
        }
    }

    /// Indexes another thread's record at position `q` of `others` (its messages; instructions are not searched).
    fn index_other(&mut self, q: usize, read: bool) {
        if let Some(crate::store::record::Record::Msg { id, message, writer, seq, ts, .. }) = self.others.get(q) {
            self.index.index_text((record_id(writer, *seq), *ts), Place::Other(q as u32), id, message, read);
        }
    }

    /// Where the item of index id `id` is: in memory, or an archived
    /// message a query's read left in storage.
    pub(crate) fn place(&self, id: u64) -> Option<Place> {
        self.index.place(id).or_else(|| self.cold_place(id))
    }

    /// The index id of the item at `place` in memory.
    pub(crate) fn id_at(&self, place: Place) -> Option<u64> {
        match place {
            Place::Fact(i) => self.semantic.facts.get(i as usize).map(|f| origin_id(&f.origin)),
            Place::Message(p) => self.window.log.get(p as usize).map(|s| record_id(&s.writer, s.seq)),
            Place::Other(q) => self.others.get(q as usize).map(|r| record_id(r.uid().0, r.uid().1)),
            Place::Cold(..) => None,
        }
    }

    /// Relevance of every episode to `query` (0 for none): fused lexical and
    /// vector ranks when the query has a vector, BM25 otherwise.
    pub(crate) fn episode_relevance(&self, query: &str, vector: Option<&[f32]>) -> Vec<f64> {
        let mut rel = vec![0.0; self.episodic.episodes.len()];
        let k = self.episodic.episodes.len().max(1);
        let ranked = match vector.filter(|_| !self.index.episode_vectors.is_empty()) {
            Some(v) => {
                hybrid_search(&self.index.episodes, &self.index.episode_vectors, query, Some(v), k, HybridParams::default(), |_| true)
                    .unwrap_or_default()
            }
            None => self.index.episodes.search(query, k, |_| true),
        };
        if ranked.is_empty() {
            return rel;
        }
        let scores: crate::retrieval::hash::FxHashMap<u64, f64> = ranked.into_iter().map(|(id, s)| (id, s as f64)).collect();
        for (r, e) in rel.iter_mut().zip(&self.episodic.episodes) {
            if let Some(&score) = scores.get(&origin_id(&e.origin)) {
                *r = score;
            }
        }
        rel
    }

    /// Searches facts, chunks and messages; hybrid when `query_vector` is given.
    ///
    /// # Errors
    /// `INVALID_INPUT` for an unknown kind; vector errors for a bad query vector.
    pub fn search(&mut self, query: &str, opts: &SearchOptions, query_vector: Option<&[f32]>) -> Result<Vec<Hit>> {
        self.ensure_index();
        self.search_built(query, opts, query_vector)
    }

    /// [`Controller::search`] over a built index.
    fn search_built(&self, query: &str, opts: &SearchOptions, query_vector: Option<&[f32]>) -> Result<Vec<Hit>> {
        Ok(self.ranked(query, opts, query_vector)?.into_iter().filter_map(|(id, score)| self.hit(id, score)).collect())
    }

    /// Index ids and scores of what `search` finds, best first.
    pub(super) fn ranked(&self, query: &str, opts: &SearchOptions, query_vector: Option<&[f32]>) -> Result<Vec<(u64, f32)>> {
        let kinds = opts.kinds.clone().unwrap_or_else(|| vec!["fact".into(), "preference".into(), "chunk".into(), "message".into()]);
        for k in &kinds {
            if !matches!(k.as_str(), "fact" | "preference" | "chunk" | "message") {
                return Err(MemoryError::input("search.kinds", format!("unknown kind {k:?}")));
            }
        }
        let want = |k: &str| kinds.iter().any(|x| x == k);
        let in_time = |t: f64| opts.from.is_none_or(|f| t >= f) && opts.to.is_none_or(|to| t <= to);
        let untagged = opts.tags.as_ref().is_none_or(|t| t.is_empty());
        let validity = self.semantic.validity();
        let held = |i: usize, f: &crate::semantic::Fact| {
            f.kind == crate::semantic::FactKind::Chunk
                || validity.get(i).is_some_and(|v| match opts.held {
                    Held::Now => v.current(),
                    Held::During(from, to) => v.during(from, to),
                    Held::Any => !v.merged,
                })
        };
        // (instructions are never indexed, see `index_text`)
        // (an archived message memory does not hold: by its time as the archive's read found it)
        let message = |ts: Option<f64>| ts.is_some_and(|ts| want("message") && untagged && in_time(ts));
        let filter = |id: u64| match self.place(id) {
            None => false,
            Some(Place::Message(p)) => message(self.window.log.get(p as usize).map(|s| s.ts)),
            Some(Place::Other(q)) => {
                let ts = match self.others.get(q as usize) {
                    Some(crate::store::record::Record::Msg { ts, .. }) => Some(*ts),
                    _ => None,
                };
                opts.scope == Scope::User && message(ts)
            }
            Some(Place::Cold(doc, other)) => (!other || opts.scope == Scope::User) && message(self.cold_ts(doc)),
            Some(Place::Fact(i)) => self.semantic.facts.get(i as usize).is_some_and(|f| {
                want(HitKind::from(f.kind).name())
                    && held(i as usize, f)
                    && in_time(f.created_at)
                    && (untagged || opts.tags.as_ref().is_some_and(|t| t.iter().any(|x| f.tags.contains(x))))
            }),
        };
        let k = opts.k.unwrap_or(10);
        let ranked = match query_vector.filter(|_| !self.index.vectors.is_empty()) {
            Some(v) => {
                let v = self.index.centres.centre(script_of(query), v);
                hybrid_search(&self.index.lexical, &self.index.vectors, query, Some(&v), k, HybridParams::default(), filter)?
            }
            None => self.index.lexical.search_with(self.frozen(), query, k, filter),
        };
        Ok(ranked)
    }

    /// `search` with what the embedder made of the query: its vector
    /// (hybrid), none (no embedder: lexical), or its failure (lexical, and
    /// `degraded` says why).
    ///
    /// # Errors
    /// As [`Controller::search`].
    #[inline]
    pub fn find(&mut self, query: &str, opts: &SearchOptions, embedded: std::result::Result<Option<Vec<f32>>, Degraded>) -> Result<Found> {
        let (vector, degraded) = match embedded {
            Ok(v) => (v, None),
            Err(why) => (None, Some(why)),
        };
        let hits = self.search(query, opts, vector.as_deref())?;
        Ok(Found { hits, mode: RetrievalMode::of(vector.as_deref()), degraded })
    }

    fn hit(&self, id: u64, score: f32) -> Option<Hit> {
        let message = |id: &String, message: &crate::message::Message, thread: Option<String>| Hit {
            id: id.clone(),
            kind: HitKind::Message,
            text: message.content_text(),
            score,
            key: None,
            message_ids: Some(vec![id.clone()]),
            tags: vec![],
            thread,
        };
        let record = |r: &crate::store::record::Record| match r {
            r @ crate::store::record::Record::Msg { id, message: m, .. } => {
                Some(message(id, m, r.thread().filter(|t| *t != self.opts.thread).map(String::from)))
            }
            _ => None,
        };
        Some(match self.place(id)? {
            Place::Message(p) => self.window.log.get(p as usize).map(|s| message(&s.id, &s.message, None))?,
            Place::Other(q) => record(self.others.get(q as usize)?)?,
            Place::Cold(..) => record(self.archived(id)?)?,
            Place::Fact(i) => {
                let f = self.semantic.facts.get(i as usize)?;
                Hit {
                    id: f.id.clone(),
                    kind: f.kind.into(),
                    text: f.text.clone(),
                    score,
                    key: f.key.clone(),
                    message_ids: None,
                    tags: f.tags.clone(),
                    thread: None,
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Place;

    #[test]
    fn a_place_packs_into_one_number_and_back() {
        for at in [0, 1, 77, (1 << 30) - 1] {
            for place in [Place::Fact(at), Place::Message(at), Place::Other(at)] {
                assert_eq!(place.pack().and_then(Place::unpack), Some(place));
            }
        }
        // Past a billion, and a cold place, are not kept in the maps.
        assert_eq!(Place::Message(1 << 30).pack(), None);
        assert_eq!(Place::Cold(3, true).pack(), None);
        assert_eq!(Place::unpack(3 << 30), None);
    }

    #[test]
    fn every_message_id_is_found_by_id() {
        let mut index = super::SearchIndex::default();
        let ids: Vec<String> = (0..100_000).map(|n| format!("m-kyju3xsw5e-{n}")).collect();
        for (n, id) in ids.iter().enumerate() {
            index.set_place(id, super::record_id("kyju3xsw5e", n as u64), super::Place::Message(n as u32));
        }
        for (n, id) in ids.iter().enumerate() {
            let place = Some(super::Place::Message(n as u32));
            assert_eq!(index.item_place(id), place, "{id}");
            assert_eq!(index.place(super::record_id("kyju3xsw5e", n as u64)), place, "{id}");
        }
    }
}
