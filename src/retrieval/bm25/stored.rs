//! Filling a [`Bm25Index`] from a segment's stored terms
//! (`retrieval::terms`), as if each document had been added from its text.

use super::{insert_sorted, posting, Bm25Index};
use crate::retrieval::terms::{walk, Walk};

impl Bm25Index {
    /// Adds the documents of a segment's stored terms (`terms::walk`'s
    /// bytes) under `ids` (one per stored document; `None` leaves it out, as
    /// does an id already indexed): the index then scores as if each had
    /// been added from its text. `false`, and nothing added, when the counts
    /// disagree or the bytes are damaged (they are checked whole first).
    pub fn add_stored(&mut self, terms: &[u8], ids: &[Option<u64>]) -> bool {
        self.add_stored_many(&[(terms.to_vec(), ids.to_vec())]) == 1
    }

    /// [`add_stored`](Self::add_stored) for several segments, in order, as
    /// if added one at a time: how many were added. Each term's postings
    /// from all of them go into its list at once (a merge over their sorted
    /// keys), so a list is found once per call, not once per segment: with
    /// a list per term, that lookup was most of reading an archive's
    /// episodes (a cache miss per term and segment).
    pub fn add_stored_many(&mut self, segments: &[(Vec<u8>, Vec<Option<u64>>)]) -> usize {
        struct Seg<'a> {
            walk: Walk<'a>,
            slots: Vec<Option<u32>>,
            /// The current term's key; `None` when all are read.
            key: Option<u64>,
        }
        let checked = |terms: &[u8]| {
            walk(terms).is_some_and(|mut w| {
                while w.terms > 0 {
                    if w.key().is_none() || w.postings(|_, _| {}).is_none() {
                        return false;
                    }
                }
                w.done()
            })
        };
        let mut segs = Vec::with_capacity(segments.len());
        for (terms, ids) in segments {
            let Some(mut walk) = walk(terms).filter(|w| w.docs.len() == ids.len() && checked(terms)) else { continue };
            let slots = walk
                .docs
                .iter()
                .zip(ids)
                .map(|(len, id)| match (len, id) {
                    (Some(len), Some(id)) if !self.contains(*id) => self.new_slot(*id, *len, 0),
                    _ => None,
                })
                .collect();
            let key = if walk.terms > 0 { walk.key() } else { None };
            segs.push(Seg { walk, slots, key });
        }
        let added = segs.len();
        let mut kept = Vec::new();
        // The least key among the segments' current ones, then each
        // segment holding it in order: their postings in slot order.
        while let Some(key) = segs.iter().filter_map(|s| s.key).min() {
            kept.clear();
            for Seg { walk, slots, key: at } in segs.iter_mut().filter(|s| s.key == Some(key)) {
                // (checked above: neither read fails)
                let _ = walk.postings(|doc, tf| {
                    if let Some(&Some(slot)) = slots.get(doc as usize) {
                        kept.push(posting(slot, tf as usize));
                    }
                });
                *at = if walk.terms > 0 { walk.key() } else { None };
            }
            if kept.is_empty() {
                continue;
            }
            let t = self.intern(key);
            let Some(list) = self.postings.get_mut(t as usize) else { continue };
            // Room for these postings at once, and a quarter more.
            if list.capacity() - list.len() < kept.len() {
                list.reserve_exact(kept.len() + list.len() / 4);
            }
            for &p in &kept {
                insert_sorted(list, p);
            }
        }
        added
    }
}
