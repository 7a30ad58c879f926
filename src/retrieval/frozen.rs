//! A read-only lexical index filled from stored segment terms
//! (`retrieval::terms`), searched together with a [`Bm25Index`]
//! (`Bm25Index::search_with`) as if both were one index: the cold segments'
//! messages are scored from the terms stored with them, without decoding
//! them or holding their text (`controller::partial`).
//!
//! Postings are kept as they are stored, a byte list per term: each
//! `(doc, tf)` as a varint of `(gap << 1 | tf > 1)`, then `tf` as a byte
//! when above 1 (the layout of `retrieval::terms`), docs ascending. That
//! is a byte and a half a posting where a `Bm25Index` takes four, so the
//! first query of a large namespace fits a worker's memory; and a
//! segment's postings are appended as stored, not decoded and encoded
//! again (`add_stored`), so reading the cold segments costs little more than
//! copying its terms.
//!
//! Invariants: every stored document takes the next number, in the order
//! read, added or not, and none is removed; `len`, `total_len` and each
//! term's `df` count exactly the documents added; a number not added has
//! length 0 and id `u64::MAX` (its postings may be kept, and are never
//! returned); every document has the caller id given by `set_id`
//! (`u64::MAX` until then: such a document is never returned).

use crate::retrieval::terms::{put_varint, Walk, BATCH_BYTES};

/// One term's postings: how many documents hold it, the last of them
/// (for the next gap) and the encoded list.
#[derive(Clone, Debug, Default)]
struct Postings {
    df: u32,
    last: u32,
    bytes: Vec<u8>,
}

/// Documents read from stored terms, keyed by term key (`terms::term_key`).
#[derive(Clone, Debug, Default)]
pub struct FrozenIndex {
    /// Term keys, ascending, and each one's postings. Sorted, not hashed:
    /// a segment's terms come by ascending key too, so adding them is one
    /// pass over both in order, where looking each up would be a cache
    /// miss per term and segment (most of the read's time, measured).
    keys: Vec<u64>,
    lists: Vec<Postings>,
    /// Document number → its length in terms, and its caller id (a number
    /// taken by a document not added: 0 and `u64::MAX`).
    lens: Vec<u32>,
    ids: Vec<u64>,
    /// Document number → its order key (`Bm25Index::add_at`), given with its id.
    orders: Vec<u64>,
    /// Documents added, and their terms.
    count: u32,
    total_len: u64,
}

/// Stored segment terms read into a [`FrozenIndex`]: each segment's
/// documents are numbered as it comes (`add_stored`), its postings
/// appended a batch of segments at a time. Appending one segment at a time
/// touched every term's list once per segment, each a cache miss somewhere
/// in the index (most of a 100,000-message read's time, measured); a batch
/// appends each term's postings from all its segments at once.
#[derive(Debug, Default)]
pub struct FrozenBuilder {
    index: FrozenIndex,
    /// Segments numbered, not appended yet: their terms and first number.
    staged: Vec<(Vec<u8>, u32)>,
    staged_bytes: usize,
    damaged: bool,
}

impl FrozenBuilder {
    /// Numbers the documents of one segment's stored terms for which `keep`
    /// is true (one flag per stored document; a document not indexed is
    /// never added): every stored document takes the next number, added or
    /// not. Returns each stored document's number, if added; `None` when
    /// the counts disagree or the head is damaged (damaged postings are
    /// found by `finish`).
    pub fn add_stored(&mut self, terms: &[u8], keep: &[bool]) -> Option<Vec<Option<u32>>> {
        let walk = crate::retrieval::terms::walk(terms)?;
        if walk.docs.len() != keep.len() {
            return None;
        }
        let base = self.index.lens.len() as u32;
        let docs = self.index.number(&walk.docs, keep);
        self.staged_bytes += terms.len();
        self.staged.push((terms.to_vec(), base));
        if self.staged_bytes >= BATCH_BYTES {
            self.append();
        }
        Some(docs)
    }

    fn append(&mut self) {
        self.damaged |= self.index.merge(&self.staged).is_none();
        self.staged.clear();
        self.staged_bytes = 0;
    }

    /// The index of every segment added; `None` when any was damaged.
    pub fn finish(mut self) -> Option<FrozenIndex> {
        self.append();
        (!self.damaged).then_some(self.index)
    }
}

/// The `(doc, tf)` pairs of an encoded postings list.
struct Decode<'a> {
    bytes: &'a [u8],
    at: usize,
    doc: u64,
}

impl Iterator for Decode<'_> {
    type Item = (u32, u32);
    fn next(&mut self) -> Option<(u32, u32)> {
        let mut n = 0u64;
        let mut shift = 0;
        loop {
            let b = *self.bytes.get(self.at)?;
            self.at += 1;
            n |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                break;
            }
            shift += 7;
        }
        let tf = if n & 1 == 1 {
            let t = *self.bytes.get(self.at)?;
            self.at += 1;
            u32::from(t)
        } else {
            1
        };
        self.doc += n >> 1;
        Some(((self.doc - 1) as u32, tf))
    }
}

impl FrozenIndex {
    /// Documents added.
    pub fn len(&self) -> usize {
        self.count as usize
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Document numbers taken (documents added, and those left out).
    pub fn numbers(&self) -> usize {
        self.lens.len()
    }

    pub fn total_len(&self) -> u64 {
        self.total_len
    }

    /// Numbers the documents of one segment's stored terms (`terms::walk`'s
    /// `docs`) for which `keep` is true (one flag per stored document; a
    /// document not indexed is never added). Every stored document takes
    /// the next number, added or not. Returns each stored document's
    /// number, if added.
    fn number(&mut self, stored: &[Option<u32>], keep: &[bool]) -> Vec<Option<u32>> {
        let base = self.lens.len() as u32;
        let mut docs = Vec::with_capacity(keep.len());
        for (at, (len, &k)) in stored.iter().zip(keep).enumerate() {
            let len = len.filter(|_| k);
            self.lens.push(len.unwrap_or(0));
            self.ids.push(u64::MAX);
            self.orders.push(0);
            self.count += u32::from(len.is_some());
            self.total_len += u64::from(len.unwrap_or(0));
            docs.push(len.map(|_| base + at as u32));
        }
        docs
    }

    /// Appends the postings of segments numbered already (`number`): their
    /// stored terms and first numbers, in the order numbered. Each term's
    /// postings from all of them are appended at once, in one pass over the
    /// segments' terms and `keys` in key order, copied as stored: only the
    /// first one is renumbered (its gap from the term's last document here).
    /// Those of documents left out are copied too (their length here is 0:
    /// a document with a posting has a term), not counted in `df`, and
    /// never scored (`Bm25Index::search_with` skips a document without an
    /// id). `None` when the bytes are damaged.
    fn merge(&mut self, batch: &[(Vec<u8>, u32)]) -> Option<()> {
        struct Seg<'a> {
            walk: Walk<'a>,
            base: u32,
            /// The current term's key; `None` when all are read, and at
            /// first (`next`: the next term is to be read).
            key: Option<u64>,
            next: bool,
        }
        let mut segs = Vec::with_capacity(batch.len());
        for (bytes, base) in batch {
            let walk = crate::retrieval::terms::walk(bytes)?;
            segs.push(Seg { walk, base: *base, key: None, next: true });
        }
        // Terms new here, with where they go among `keys`: merged in after.
        let mut fresh: Vec<(usize, u64, Postings)> = Vec::new();
        let mut at = 0;
        loop {
            let mut min = None;
            for s in &mut segs {
                if std::mem::take(&mut s.next) {
                    s.key = if s.walk.terms > 0 { Some(s.walk.key()?) } else { None };
                }
                if let Some(k) = s.key {
                    min = Some(min.map_or(k, |m: u64| m.min(k)));
                }
            }
            let Some(key) = min else { break };
            while self.keys.get(at).is_some_and(|&k| k < key) {
                at += 1;
            }
            let p = match self.lists.get_mut(at).filter(|_| self.keys.get(at) == Some(&key)) {
                Some(p) => p,
                None => {
                    fresh.push((at, key, Postings::default()));
                    &mut fresh.last_mut()?.2
                }
            };
            for s in segs.iter_mut().filter(|s| s.key == Some(key)) {
                let (lens, base, prev) = (&self.lens, s.base, p.last);
                let (mut first, mut df, mut last) = (None, 0, prev);
                let stored = s.walk.postings(|doc, tf| {
                    let d = base + doc;
                    first.get_or_insert((d, tf.min(255)));
                    df += u32::from(lens.get(d as usize).is_some_and(|&n| n > 0));
                    last = d + 1;
                })?;
                (p.df, p.last) = (p.df + df, last);
                // The first posting as stored: its varint, and a tf byte if its low bit says so.
                let head = stored.iter().position(|&b| b < 0x80).map_or(0, |i| i + 1 + usize::from(stored.first().map_or(0, |b| b & 1)));
                let rest = stored.get(head..).unwrap_or_default();
                // Lists are most of the index: grown once for the segment's
                // postings (the first renumbered: at most six bytes) and a
                // quarter more, before any is written; a push on a full
                // list would double it.
                let (len, room) = (p.bytes.len(), rest.len() + 6);
                if p.bytes.capacity() - len < room {
                    p.bytes.reserve_exact(room + len / 4);
                }
                if let Some((d, tf)) = first {
                    put_varint(&mut p.bytes, u64::from(d + 1 - prev) << 1 | u64::from(tf > 1));
                    if tf > 1 {
                        p.bytes.push(tf as u8);
                    }
                }
                p.bytes.extend_from_slice(rest);
                s.next = true;
            }
        }
        if !fresh.is_empty() {
            let n = self.keys.len() + fresh.len();
            let (keys, lists) = (std::mem::take(&mut self.keys), std::mem::take(&mut self.lists));
            (self.keys, self.lists) = (Vec::with_capacity(n), Vec::with_capacity(n));
            let mut fresh = fresh.into_iter().peekable();
            for (i, (key, p)) in keys.into_iter().zip(lists).enumerate() {
                while let Some((_, k, q)) = fresh.next_if(|f| f.0 <= i) {
                    self.keys.push(k);
                    self.lists.push(q);
                }
                self.keys.push(key);
                self.lists.push(p);
            }
            for (_, k, q) in fresh {
                self.keys.push(k);
                self.lists.push(q);
            }
        }
        segs.iter().all(|s| s.walk.done()).then_some(())
    }

    /// Gives document `doc` its caller id and order key (`Bm25Index::add_at`).
    pub fn set_id(&mut self, doc: u32, id: u64, order: u64) {
        if let (Some(i), Some(o)) = (self.ids.get_mut(doc as usize), self.orders.get_mut(doc as usize)) {
            (*i, *o) = (id, order);
        }
    }

    /// Document `doc`'s order key.
    pub(crate) fn order(&self, doc: u32) -> u64 {
        self.orders.get(doc as usize).copied().unwrap_or(0)
    }

    /// Returns the growth slack of the lists to the allocator.
    pub fn shrink_to_fit(&mut self) {
        for p in &mut self.lists {
            p.bytes.shrink_to_fit();
        }
        self.lens.shrink_to_fit();
        self.ids.shrink_to_fit();
        self.orders.shrink_to_fit();
    }

    fn list(&self, key: u64) -> Option<&Postings> {
        self.lists.get(self.keys.binary_search(&key).ok()?)
    }

    /// Documents holding the term `key`.
    pub(crate) fn df(&self, key: u64) -> usize {
        self.list(key).map_or(0, |p| p.df as usize)
    }

    /// The `(doc, tf)` postings of the term `key`, docs ascending (with
    /// those of documents not added: see `doc`).
    pub(crate) fn postings(&self, key: u64) -> impl Iterator<Item = (u32, u32)> + '_ {
        let bytes = self.list(key).map_or(&[][..], |p| p.bytes.as_slice());
        Decode { bytes, at: 0, doc: 0 }
    }

    /// A document's length in terms, and its caller id.
    pub(crate) fn doc(&self, doc: u32) -> Option<(u32, u64)> {
        Some((*self.lens.get(doc as usize)?, *self.ids.get(doc as usize)?))
    }

    /// Bytes held on the heap, estimated from capacities.
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        self.keys.capacity() * size_of::<u64>()
            + self.lists.capacity() * size_of::<Postings>()
            + self.lists.iter().map(|p| p.bytes.capacity()).sum::<usize>()
            + self.lens.capacity() * size_of::<u32>()
            + self.ids.capacity() * size_of::<u64>()
            + self.orders.capacity() * size_of::<u64>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retrieval::terms::{doc_terms, SegmentTerms};
    use crate::retrieval::Bm25Index;
    use proptest::prelude::*;

    fn stored(texts: &[Option<&str>]) -> Vec<u8> {
        let mut s = SegmentTerms::new();
        for t in texts {
            s.push(t.map(doc_terms));
        }
        s.encode()
    }

    const WORDS: &[&str] = &["航班", "起飞", "deploy", "script", "the", "pelican", "周五", "hotel", "a", "a a a"];

    proptest! {
        /// Documents split between a Bm25Index and a FrozenIndex score, rank
        /// and weigh queries exactly as one Bm25Index holding them all.
        #[test]
        fn split_scores_as_one_index(
            docs in proptest::collection::vec((proptest::collection::vec(0..WORDS.len(), 0..12), any::<bool>(), any::<bool>()), 1..60),
            queries in proptest::collection::vec(proptest::collection::vec(0..WORDS.len(), 1..5), 1..6),
            k in 1usize..20,
            apart in any::<bool>(),
        ) {
            let texts: Vec<String> = docs.iter().map(|(w, _, _)| w.iter().map(|&i| WORDS[i]).collect::<Vec<_>>().join(" ")).collect();
            let mut one = Bm25Index::new();
            let mut mem = Bm25Index::new();
            // Two segments: the first with documents left out (`kept`), the
            // second wholly kept (its postings copied), after a document not indexed.
            let half = docs.iter().filter(|d| d.1).count() / 2;
            let mut segments: [Vec<Option<&str>>; 2] = [Vec::new(), vec![None]];
            let mut keep = [Vec::new(), vec![true]];
            let mut ids = Vec::new();
            for (i, (t, (_, frozen, kept))) in texts.iter().zip(&docs).enumerate() {
                // Ids interleave between the two, so ties cross them.
                let id = (i as u64) * 3 + 1;
                if *frozen {
                    let s = usize::from(segments[0].len() >= half);
                    let kept = *kept || s == 1;
                    segments[s].push(Some(t));
                    keep[s].push(kept);
                    ids.push(id);
                    if kept {
                        one.add(id, t);
                    }
                } else {
                    one.add(id, t);
                    mem.add(id, t);
                }
            }
            // Both segments appended in one batch, or each in its own.
            let mut builder = FrozenBuilder::default();
            let mut numbers = builder.add_stored(&stored(&segments[0]), &keep[0]).unwrap();
            if apart {
                builder.append();
            }
            let second = builder.add_stored(&stored(&segments[1]), &keep[1]).unwrap();
            let mut frozen = builder.finish().unwrap();
            prop_assert_eq!(second[0], None);
            numbers.extend(&second[1..]);
            for (n, id) in numbers.iter().zip(&ids) {
                if let Some(d) = n {
                    frozen.set_id(*d, *id, 0);
                }
            }
            for q in &queries {
                let query: String = q.iter().map(|&i| WORDS[i]).collect::<Vec<_>>().join(" ");
                let odd = |id: u64| id % 2 == 1;
                prop_assert_eq!(mem.search_with(Some(&frozen), &query, k, odd), one.search(&query, k, odd));
                prop_assert_eq!(mem.query_weight_with(Some(&frozen), &query, 1).to_bits(), one.query_weight(&query, 1).to_bits());
            }
        }
    }

    #[test]
    fn postings_read_back_in_order_with_their_frequencies() {
        let deploy = crate::retrieval::terms::term_key("deploy");
        let r = stored(&[Some("deploy deploy"), None, Some("script"), Some("deploy")]);
        let texts: Vec<Option<&str>> = (0..300).map(|i| Some(if i % 7 == 3 { "deploy deploy" } else { "deploy" })).collect();
        let long = stored(&texts);
        // The same segments appended one batch each, or all in one.
        for apart in [false, true] {
            let mut b = FrozenBuilder::default();
            assert_eq!(b.add_stored(&r, &[true, true, false, true]), Some(vec![Some(0), None, None, Some(3)]));
            if apart {
                let f = std::mem::take(&mut b).finish().unwrap();
                assert_eq!(f.postings(deploy).collect::<Vec<_>>(), vec![(0, 2), (3, 1)]);
                assert_eq!((f.df(deploy), f.len(), f.total_len()), (2, 2, 3));
                b.index = f;
            }
            // Wholly kept: copied as stored, renumbered from the next number.
            assert_eq!(b.add_stored(&r, &[true; 4]), Some(vec![Some(4), None, Some(6), Some(7)]));
            if apart {
                b.append();
            }
            // A long list, after a short one: copied as stored.
            assert!(b.add_stored(&long, &[true; 300]).is_some());
            let f = b.finish().unwrap();
            let all: Vec<(u32, u32)> = f.postings(deploy).collect();
            assert_eq!(all[..4], [(0, 2), (3, 1), (4, 2), (7, 1)]);
            assert_eq!(all.len(), 304);
            assert_eq!(all[4..], (0..300).map(|i| (8 + i, if i % 7 == 3 { 2 } else { 1 })).collect::<Vec<_>>()[..]);
            assert_eq!((f.df(deploy), f.len(), f.numbers()), (304, 305, 308));
        }
        // A document left out keeps its postings, but is not counted and has no id.
        let mut b = FrozenBuilder::default();
        assert_eq!(b.add_stored(&r, &[false, true, true, true]), Some(vec![None, None, Some(2), Some(3)]));
        let f = b.finish().unwrap();
        assert_eq!(f.postings(deploy).collect::<Vec<_>>(), vec![(0, 2), (3, 1)]);
        assert_eq!((f.df(deploy), f.len(), f.total_len(), f.doc(0)), (1, 2, 2, Some((0, u64::MAX))));
        // Counts that disagree are refused at once; damaged postings, by `finish`.
        let mut b = FrozenBuilder::default();
        assert_eq!(b.add_stored(&r, &[true]), None);
        assert!(b.add_stored(&r[..r.len() - 1], &[true; 4]).is_some());
        assert!(b.add_stored(&r, &[true; 4]).is_some());
        assert!(b.finish().is_none());
    }
}
