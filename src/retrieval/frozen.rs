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
//! first query of a large namespace fits a worker's memory.
//!
//! Invariants: documents are numbered in the order added and never
//! removed; `n_docs`, `total_len` and each term's `df` count exactly the
//! documents added; every document has the caller id given by `set_id`
//! (`u64::MAX` until then: such a document is never returned).

use super::hash::FxHashMap;
use super::terms::ReadTerms;

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
    terms: FxHashMap<u64, Postings>,
    /// Document → its length in terms, and its caller id.
    lens: Vec<u32>,
    ids: Vec<u64>,
    total_len: u64,
}

fn put_varint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8 & 0x7f) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
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
        self.lens.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lens.is_empty()
    }

    pub fn total_len(&self) -> u64 {
        self.total_len
    }

    /// Adds the documents of one segment's stored terms for which `keep`
    /// is true (one flag per stored document; a document not indexed is
    /// never added). Returns each stored document's number here, if added;
    /// `None` when the counts disagree (nothing is added).
    pub fn add_read(&mut self, read: &ReadTerms, keep: &[bool]) -> Option<Vec<Option<u32>>> {
        if read.docs.len() != keep.len() {
            return None;
        }
        let docs: Vec<Option<u32>> = read
            .docs
            .iter()
            .zip(keep)
            .map(|(len, &k)| {
                let len = (*len).filter(|_| k)?;
                self.lens.push(len);
                self.ids.push(u64::MAX);
                self.total_len += u64::from(len);
                Some((self.lens.len() - 1) as u32)
            })
            .collect();
        for (key, range) in &read.terms {
            let postings = read.postings.get(range.clone()).unwrap_or_default();
            let mut kept = postings.iter().filter_map(|&(doc, tf)| Some((docs.get(doc as usize).copied().flatten()?, tf))).peekable();
            if kept.peek().is_none() {
                continue;
            }
            let p = self.terms.entry(*key).or_default();
            // Room for the segment's postings at once (about two bytes each),
            // and a quarter more: these lists are most of the index.
            if p.bytes.capacity() - p.bytes.len() < 2 * postings.len() {
                p.bytes.reserve_exact(2 * postings.len() + p.bytes.len() / 4);
            }
            for (d, tf) in kept {
                let tf = tf.min(255);
                put_varint(&mut p.bytes, u64::from(d + 1 - p.last) << 1 | u64::from(tf > 1));
                if tf > 1 {
                    p.bytes.push(tf as u8);
                }
                (p.df, p.last) = (p.df + 1, d + 1);
            }
        }
        Some(docs)
    }

    /// Gives document `doc` its caller id.
    pub fn set_id(&mut self, doc: u32, id: u64) {
        if let Some(i) = self.ids.get_mut(doc as usize) {
            *i = id;
        }
    }

    /// Returns the growth slack of the lists to the allocator.
    pub fn shrink_to_fit(&mut self) {
        for p in self.terms.values_mut() {
            p.bytes.shrink_to_fit();
        }
        self.terms.shrink_to_fit();
        self.lens.shrink_to_fit();
        self.ids.shrink_to_fit();
    }

    /// Documents holding the term `key`.
    pub(crate) fn df(&self, key: u64) -> usize {
        self.terms.get(&key).map_or(0, |p| p.df as usize)
    }

    /// The `(doc, tf)` postings of the term `key`, docs ascending.
    pub(crate) fn postings(&self, key: u64) -> impl Iterator<Item = (u32, u32)> + '_ {
        let bytes = self.terms.get(&key).map_or(&[][..], |p| p.bytes.as_slice());
        Decode { bytes, at: 0, doc: 0 }
    }

    /// A document's length in terms, and its caller id.
    pub(crate) fn doc(&self, doc: u32) -> Option<(u32, u64)> {
        Some((*self.lens.get(doc as usize)?, *self.ids.get(doc as usize)?))
    }

    /// Bytes held on the heap, estimated from capacities.
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        self.terms.capacity() * (size_of::<(u64, Postings)>() + 1)
            + self.terms.values().map(|p| p.bytes.capacity()).sum::<usize>()
            + self.lens.capacity() * size_of::<u32>()
            + self.ids.capacity() * size_of::<u64>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retrieval::terms::{doc_terms, read, SegmentTerms};
    use crate::retrieval::Bm25Index;
    use proptest::prelude::*;

    fn stored(texts: &[Option<&str>]) -> ReadTerms {
        let mut s = SegmentTerms::new();
        for t in texts {
            s.push(t.map(doc_terms));
        }
        read(&s.encode()).unwrap()
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
        ) {
            let texts: Vec<String> = docs.iter().map(|(w, _, _)| w.iter().map(|&i| WORDS[i]).collect::<Vec<_>>().join(" ")).collect();
            let mut one = Bm25Index::new();
            let mut mem = Bm25Index::new();
            let mut segment: Vec<Option<&str>> = Vec::new();
            let mut keep = Vec::new();
            let mut ids = Vec::new();
            for (i, (t, (_, frozen, kept))) in texts.iter().zip(&docs).enumerate() {
                // Ids interleave between the two, so ties cross them.
                let id = (i as u64) * 3 + 1;
                if *frozen {
                    segment.push(Some(t));
                    keep.push(*kept);
                    ids.push(id);
                    if *kept {
                        one.add(id, t);
                    }
                } else {
                    one.add(id, t);
                    mem.add(id, t);
                }
            }
            let mut frozen = FrozenIndex::default();
            let numbers = frozen.add_read(&stored(&segment), &keep).unwrap();
            for (n, id) in numbers.iter().zip(&ids) {
                if let Some(d) = n {
                    frozen.set_id(*d, *id);
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
        let mut f = FrozenIndex::default();
        let r = stored(&[Some("deploy deploy"), None, Some("script"), Some("deploy")]);
        assert_eq!(f.add_read(&r, &[true, true, false, true]), Some(vec![Some(0), None, None, Some(1)]));
        let deploy = crate::retrieval::terms::term_key("deploy");
        assert_eq!(f.postings(deploy).collect::<Vec<_>>(), vec![(0, 2), (1, 1)]);
        assert_eq!((f.df(deploy), f.len(), f.total_len()), (2, 2, 3));
        assert_eq!(f.add_read(&r, &[true]), None);
    }
}
