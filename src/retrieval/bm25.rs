//! Okapi BM25 over an inverted index with incremental add and remove.
//!
//! Invariants, after every public call:
//! - each live document has one slot; `postings[t]` lists, sorted by slot,
//!   every live slot whose text contains term `t`, with its term frequency;
//!   free slots appear in no postings list;
//! - `n_docs` and `total_len` are the count and summed length of live
//!   documents, so `avgdl` and every `df` are exact: scores after any mix of
//!   adds and removes equal those of an index built from the survivors.
//!
//! Score of document d for query terms q (each distinct term counted once):
//! `Σ idf(t) · tf·(k1+1) / (tf + k1·(1 − b + b·|d|/avgdl))` with the
//! non-negative idf `ln(1 + (N − df + 0.5)/(df + 0.5))` (as in Lucene), so a
//! matching term never lowers a score. `|d|` counts every term the analyzer
//! emitted, CJK unigrams and bigrams included.

mod stored;

use super::analyzer::analyze;
use super::frozen::FrozenIndex;
use super::hash::FxHashMap;
use super::terms::{doc_terms, term_key};
use super::topk::TopK;
use crate::error::{MemoryError, Result};

/// BM25 parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bm25Params {
    /// Term-frequency saturation; 0 makes scores ignore repetition.
    pub k1: f32,
    /// Length normalization, 0 (none) ..= 1 (full).
    pub b: f32,
}

impl Default for Bm25Params {
    fn default() -> Self {
        Bm25Params { k1: 1.2, b: 0.75 }
    }
}

/// A posting: document slot (the high 24 bits) and term frequency (the low
/// 8, saturating at 255, far past where BM25's saturation makes more
/// repetitions count), in four bytes: postings are most of an index's
/// memory (about 60 per chat message). Ordered by slot, as `u32`s.
type Posting = u32;

/// A distinct term of a query that some document holds: its key, its id
/// here (if this index holds it), and its documents in both indexes.
struct QueryTerm {
    key: u64,
    id: Option<u32>,
    df: usize,
}

/// Most documents an index holds at once (slots are 24 bits); more are not indexed.
pub const MAX_DOCS: usize = 1 << 24;

const fn posting(slot: u32, tf: usize) -> Posting {
    slot << 8 | if tf > 255 { 255 } else { tf as u32 }
}

/// Adds `p` to a postings list, keeping it sorted.
fn insert_sorted(list: &mut Vec<Posting>, p: Posting) {
    // Fresh slots are the largest yet, so the common case appends.
    match list.last() {
        Some(&last) if last > p => {
            let at = list.partition_point(|&q| q < p);
            list.insert(at, p);
        }
        _ => list.push(p),
    }
}

/// A lexical index of documents keyed by caller-chosen `u64` ids.
#[derive(Clone, Debug, Default)]
pub struct Bm25Index {
    params: Bm25Params,
    /// Term key (`terms::term_key`: a hash of its text, so that an index
    /// read from storage holds no text) → term id. Terms are never dropped
    /// (see `remove`).
    vocab: FxHashMap<u64, u32>,
    /// Term id → postings sorted by slot.
    postings: Vec<Vec<Posting>>,
    /// Caller id → slot.
    slots: FxHashMap<u64, u32>,
    /// Slot → caller id (meaningless for free slots).
    ids: Vec<u64>,
    /// Slot → the caller's order key: equal scores rank the lower first
    /// (`add_at`; 0 by default, then ids decide).
    orders: Vec<u64>,
    /// Slot → document length in terms.
    lens: Vec<u32>,
    /// Slots of removed documents, reused by later adds.
    free: Vec<u32>,
    n_docs: u32,
    total_len: u64,
}

impl Bm25Index {
    /// An empty index with k1 = 1.2, b = 0.75.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty index with the given parameters.
    ///
    /// # Errors
    /// `INVALID_INPUT` if `k1` is negative or not finite, or `b` is outside
    /// `0..=1`.
    pub fn with_params(params: Bm25Params) -> Result<Self> {
        if !(params.k1.is_finite() && params.k1 >= 0.0) {
            return Err(MemoryError::input("bm25.k1", "must be a finite number ≥ 0"));
        }
        if !(0.0..=1.0).contains(&params.b) {
            return Err(MemoryError::input("bm25.b", "must be between 0 and 1"));
        }
        Ok(Bm25Index { params, ..Self::default() })
    }

    /// Scores with `params` from now on (what is indexed does not depend on them).
    pub(crate) fn set_params(&mut self, params: Bm25Params) {
        self.params = params;
    }

    pub fn params(&self) -> Bm25Params {
        self.params
    }

    /// Number of documents indexed.
    pub fn len(&self) -> usize {
        self.n_docs as usize
    }

    pub fn is_empty(&self) -> bool {
        self.n_docs == 0
    }

    pub fn contains(&self, id: u64) -> bool {
        self.slots.contains_key(&id)
    }

    /// Distinct terms ever indexed.
    pub fn vocabulary_len(&self) -> usize {
        self.vocab.len()
    }

    /// Indexes `text` under `id`, replacing any document already there.
    /// A text with no terms (punctuation only) is stored and never matches.
    /// Past [`MAX_DOCS`] documents, a new one is not indexed.
    pub fn add(&mut self, id: u64, text: &str) {
        self.add_at(id, 0, text);
    }

    /// [`Bm25Index::add`] with an order key: among equal scores, lower
    /// keys rank first.
    pub fn add_at(&mut self, id: u64, order: u64, text: &str) {
        self.remove(id);
        let (len, terms) = doc_terms(text);
        let Some(slot) = self.new_slot(id, len, order) else { return };
        for (key, tf) in terms {
            let t = self.intern(key);
            self.post(t, slot, tf);
        }
    }

    /// A slot for a new document `id` of `len` terms and order key `order`,
    /// counted in; `None` past [`MAX_DOCS`].
    fn new_slot(&mut self, id: u64, len: u32, order: u64) -> Option<u32> {
        let slot = match self.free.pop() {
            Some(s) => s,
            None if self.ids.len() < MAX_DOCS => {
                self.ids.push(0);
                self.orders.push(0);
                self.lens.push(0);
                (self.ids.len() - 1) as u32
            }
            None => return None,
        };
        let s = slot as usize;
        if let (Some(i), Some(l), Some(o)) = (self.ids.get_mut(s), self.lens.get_mut(s), self.orders.get_mut(s)) {
            (*i, *l, *o) = (id, len, order);
        }
        self.slots.insert(id, slot);
        self.n_docs += 1;
        self.total_len += u64::from(len);
        Some(slot)
    }

    /// Adds `slot` to the postings of term `t`, with frequency `tf`.
    fn post(&mut self, t: u32, slot: u32, tf: u32) {
        let Some(list) = self.postings.get_mut(t as usize) else { return };
        let p = posting(slot, tf as usize);
        // Grown by a quarter, not doubled: postings are most of the
        // index, and doubling leaves a third of it unused on average.
        if list.len() == list.capacity() {
            list.reserve_exact(list.len() / 4 + 4);
        }
        insert_sorted(list, p);
    }

    /// Removes every document whose id `keep` does not name, in one pass
    /// over the postings. (`dyn`: each caller's iterator would be a copy of
    /// this in the wasm.)
    pub fn retain(&mut self, keep: &mut dyn Iterator<Item = u64>) {
        let mut kept = vec![false; self.ids.len()];
        for id in keep {
            if let Some(k) = self.slots.get(&id).and_then(|&s| kept.get_mut(s as usize)) {
                *k = true;
            }
        }
        let mut free = vec![false; self.ids.len()];
        for &f in &self.free {
            if let Some(x) = free.get_mut(f as usize) {
                *x = true;
            }
        }
        let mut removed = false;
        for (slot, (k, f)) in kept.iter().zip(&free).enumerate() {
            if !k && !f {
                removed = true;
                self.n_docs -= 1;
                self.total_len -= self.lens.get_mut(slot).map_or(0, std::mem::take) as u64;
                self.free.push(slot as u32);
            }
        }
        if removed {
            self.slots.retain(|_, s| kept.get(*s as usize).copied().unwrap_or(false));
            for list in &mut self.postings {
                list.retain(|&p| kept.get((p >> 8) as usize).copied().unwrap_or(false));
            }
        }
    }

    /// Gives the document `id`, if indexed, the order key `order` (see `add_at`).
    pub fn set_order(&mut self, id: u64, order: u64) {
        if let Some(o) = self.slots.get(&id).and_then(|&s| self.orders.get_mut(s as usize)) {
            *o = order;
        }
    }

    /// Removes the document `id`; returns whether it was there. Its terms
    /// stay in the vocabulary with emptied postings: the vocabulary only
    /// grows, bounded by the distinct terms ever indexed. A binary search
    /// in every postings list (an index keeps no per-document term list:
    /// that would double its memory, and documents are rarely removed).
    pub fn remove(&mut self, id: u64) -> bool {
        let Some(slot) = self.slots.remove(&id) else {
            return false;
        };
        for list in &mut self.postings {
            if let Ok(at) = list.binary_search_by_key(&slot, |&p| p >> 8) {
                list.remove(at);
                if list.is_empty() {
                    *list = Vec::new();
                }
            }
        }
        let s = slot as usize;
        self.n_docs -= 1;
        self.total_len -= self.lens.get_mut(s).map_or(0, std::mem::take) as u64;
        self.free.push(slot);
        true
    }

    /// The `k` best documents for `query` that `filter` accepts, best first,
    /// as `(id, score)`. Documents sharing no term with the query are never
    /// returned. `filter` runs only on documents that would otherwise enter
    /// the top k, so an expensive predicate costs little.
    pub fn search(&self, query: &str, k: usize, filter: impl Fn(u64) -> bool) -> Vec<(u64, f32)> {
        self.search_with(None, query, k, filter)
    }

    /// [`Bm25Index::search`] over this index and `frozen` together, scored
    /// as one index holding the documents of both (their counts, lengths
    /// and document frequencies summed), bit for bit; ids must differ
    /// between the two.
    pub fn search_with(&self, frozen: Option<&FrozenIndex>, query: &str, k: usize, filter: impl Fn(u64) -> bool) -> Vec<(u64, f32)> {
        if k == 0 || self.n_docs as usize + frozen.map_or(0, FrozenIndex::len) == 0 {
            return Vec::new();
        }
        let (terms, _) = self.query_terms(query, frozen);
        if terms.is_empty() {
            return Vec::new();
        }

        // One dense accumulator per query: chat-sized documents make most
        // queries touch a large share of slots, where a dense array beats a
        // hash map of partial scores.
        let mut acc = vec![0f32; self.ids.len()];
        let mut acc_frozen = vec![0f32; frozen.map_or(0, FrozenIndex::numbers)];
        self.accumulate(&terms, frozen, &mut acc, &mut acc_frozen);

        let mut top = TopK::new(k);
        for ((&score, &id), &order) in acc.iter().zip(&self.ids).zip(&self.orders) {
            if score > 0.0 && top.would_keep(score, order, id) && filter(id) {
                top.push(score, order, id);
            }
        }
        if let Some(f) = frozen {
            for (doc, &score) in acc_frozen.iter().enumerate() {
                // (a document's id and order key read only when its score may enter)
                if !(score > 0.0 && top.may_keep(score)) {
                    continue;
                }
                let Some((_, id)) = f.doc(doc as u32).filter(|d| d.1 != u64::MAX) else { continue };
                let order = f.order(doc as u32);
                if top.would_keep(score, order, id) && filter(id) {
                    top.push(score, order, id);
                }
            }
        }
        top.into_sorted()
    }

    /// What a document matching every distinct term of `query` once, at
    /// average length, would score: `Σ idf(t)`, a term no document holds
    /// counting as one `unseen_df` documents hold (each time it occurs).
    /// `score / query_weight` is the share of the query a hit matched,
    /// comparable across queries (a relevance floor: a hit that matched only
    /// a common word of a long query is weak, even when it is the best there
    /// is). With `unseen_df` 1 an unseen term weighs what the rarest seen
    /// term could; with 0 it weighs the most, and a corpus of a few
    /// documents then weighs the words it lacks five times the ones it
    /// holds, so that no hit passes.
    pub fn query_weight(&self, query: &str, unseen_df: usize) -> f32 {
        self.query_weight_with(None, query, unseen_df)
    }

    /// [`Bm25Index::query_weight`] over this index and `frozen` together.
    pub fn query_weight_with(&self, frozen: Option<&FrozenIndex>, query: &str, unseen_df: usize) -> f32 {
        let (terms, unseen) = self.query_terms(query, frozen);
        let n = (self.n_docs as usize + frozen.map_or(0, FrozenIndex::len)) as f32;
        let idf = |df: usize| (1.0 + (n - df as f32 + 0.5) / (df as f32 + 0.5)).ln();
        terms.iter().map(|t| idf(t.df)).sum::<f32>() + unseen as f32 * idf(unseen_df)
    }

    /// The distinct terms of `query` some document holds, in query order,
    /// and the count of its other terms (repeats included).
    fn query_terms(&self, query: &str, frozen: Option<&FrozenIndex>) -> (Vec<QueryTerm>, usize) {
        let mut terms: Vec<QueryTerm> = Vec::new();
        let mut unseen = 0;
        analyze(query, |term| {
            let key = term_key(term);
            let id = self.vocab.get(&key).copied();
            // A term whose documents are all gone counts as one never seen, so
            // that an index after removals weighs a query as one built from the survivors.
            let df = id.and_then(|t| self.postings.get(t as usize)).map_or(0, Vec::len) + frozen.map_or(0, |f| f.df(key));
            // Deduplicated in query order, not by term id: ids depend on the
            // order terms were first seen, and f32 sums in a different order
            // would make an updated index and a fresh one break ties differently.
            if df == 0 {
                unseen += 1;
            } else if !terms.iter().any(|t| t.key == key) {
                terms.push(QueryTerm { key, id, df });
            }
        });
        (terms, unseen)
    }

    /// Adds each term's BM25 contribution into `acc[slot]` (and, for the
    /// documents of `frozen`, into `acc_frozen[doc]`).
    fn accumulate(&self, terms: &[QueryTerm], frozen: Option<&FrozenIndex>, acc: &mut [f32], acc_frozen: &mut [f32]) {
        let Bm25Params { k1, b } = self.params;
        let n = (self.n_docs as usize + frozen.map_or(0, FrozenIndex::len)) as f32;
        let avgdl = (self.total_len + frozen.map_or(0, FrozenIndex::total_len)) as f32 / n;
        // tf + k1·(1 − b + b·dl/avgdl) = tf + c0 + c1·dl
        let c0 = k1 * (1.0 - b);
        let c1 = if avgdl > 0.0 { k1 * b / avgdl } else { 0.0 };
        for t in terms {
            let df = t.df as f32;
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            let w = idf * (k1 + 1.0);
            for &p in t.id.and_then(|id| self.postings.get(id as usize)).map_or(&[][..], Vec::as_slice) {
                let s = (p >> 8) as usize;
                let tf = (p & 0xFF) as f32;
                if let (Some(a), Some(&dl)) = (acc.get_mut(s), self.lens.get(s)) {
                    *a += w * tf / (tf + c0 + c1 * dl as f32);
                }
            }
            let Some(f) = frozen else { continue };
            for (doc, tf) in f.postings(t.key) {
                let tf = tf as f32;
                if let (Some(a), Some((dl, _))) = (acc_frozen.get_mut(doc as usize), f.doc(doc)) {
                    *a += w * tf / (tf + c0 + c1 * dl as f32);
                }
            }
        }
    }

    fn intern(&mut self, key: u64) -> u32 {
        if let Some(&t) = self.vocab.get(&key) {
            return t;
        }
        let t = self.postings.len() as u32;
        self.vocab.insert(key, t);
        self.postings.push(Vec::new());
        t
    }

    /// Returns growth slack of the postings lists and tables to the
    /// allocator (after a bulk load or many removals). Costs one pass over
    /// the index; later adds grow lists again as needed.
    pub fn shrink_to_fit(&mut self) {
        for list in &mut self.postings {
            list.shrink_to_fit();
        }
        self.postings.shrink_to_fit();
        self.vocab.shrink_to_fit();
        self.slots.shrink_to_fit();
        self.ids.shrink_to_fit();
        self.orders.shrink_to_fit();
        self.lens.shrink_to_fit();
        self.free.shrink_to_fit();
    }

    /// Bytes held on the heap, estimated from capacities (hash map slots
    /// counted with their control bytes; allocator overhead not included).
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        let map = |cap: usize, entry: usize| cap * (entry + 1);
        map(self.vocab.capacity(), size_of::<(u64, u32)>())
            + self.postings.capacity() * size_of::<Vec<Posting>>()
            + self.postings.iter().map(|p| p.capacity() * size_of::<Posting>()).sum::<usize>()
            + map(self.slots.capacity(), size_of::<(u64, u32)>())
            + self.ids.capacity() * size_of::<u64>()
            + self.orders.capacity() * size_of::<u64>()
            + self.lens.capacity() * size_of::<u32>()
            + self.free.capacity() * size_of::<u32>()
    }
}
