//! Bounded top-k selection shared by the lexical and vector indexes.
//!
//! Invariants: at most `k` hits are held; the result is ordered by score
//! descending, then by the caller's order key ascending (the search index
//! gives each document's record order: older first), then by id
//! ascending, so equal scores rank deterministically.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// A scored id. "Greater" means "ranks first".
#[derive(Clone, Copy, Debug)]
struct Hit {
    score: f32,
    order: u64,
    id: u64,
}

impl Ord for Hit {
    fn cmp(&self, other: &Self) -> Ordering {
        self.score.total_cmp(&other.score).then_with(|| other.order.cmp(&self.order)).then_with(|| other.id.cmp(&self.id))
    }
}

impl PartialOrd for Hit {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Hit {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Hit {}

/// A min-heap of the best `k` hits seen so far.
pub(crate) struct TopK {
    k: usize,
    heap: BinaryHeap<Reverse<Hit>>,
}

impl TopK {
    pub(crate) fn new(k: usize) -> Self {
        TopK { k, heap: BinaryHeap::with_capacity(k.min(4096) + 1) }
    }

    /// Whether a hit of `score` could be kept, whatever its order and id:
    /// callers test this before reading a document's id and order key, which
    /// for most documents scored is a cache miss for nothing.
    #[inline]
    pub(crate) fn may_keep(&self, score: f32) -> bool {
        self.heap.len() < self.k || self.heap.peek().is_some_and(|Reverse(worst)| score >= worst.score)
    }

    /// Whether a hit would be kept. Callers test this before running a
    /// filter, so the caller's predicate only runs on real contenders.
    #[inline]
    pub(crate) fn would_keep(&self, score: f32, order: u64, id: u64) -> bool {
        if self.heap.len() < self.k {
            return true;
        }
        match self.heap.peek() {
            Some(Reverse(worst)) => Hit { score, order, id } > *worst,
            None => false,
        }
    }

    /// Adds a hit, evicting the worst one when full.
    #[inline]
    pub(crate) fn push(&mut self, score: f32, order: u64, id: u64) {
        if !self.would_keep(score, order, id) {
            return;
        }
        if self.heap.len() == self.k {
            self.heap.pop();
        }
        self.heap.push(Reverse(Hit { score, order, id }));
    }

    /// The kept hits, best first.
    pub(crate) fn into_sorted(self) -> Vec<(u64, f32)> {
        // `into_sorted_vec` is ascending in `Reverse` order, i.e. best first.
        self.heap.into_sorted_vec().into_iter().map(|Reverse(h)| (h.id, h.score)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::TopK;

    #[test]
    fn keeps_best_k_with_id_tie_break() {
        let mut t = TopK::new(3);
        for (id, s) in [(5, 1.0), (1, 3.0), (9, 2.0), (2, 2.0), (7, 0.5), (3, 3.0)] {
            t.push(s, 0, id);
        }
        assert_eq!(t.into_sorted(), vec![(1, 3.0), (3, 3.0), (2, 2.0)]);
    }

    #[test]
    fn equal_scores_go_by_order_before_id() {
        let mut t = TopK::new(2);
        for (id, order, s) in [(1, 9, 2.0), (2, 3, 2.0), (3, 5, 2.0), (4, 0, 1.0)] {
            t.push(s, order, id);
        }
        assert_eq!(t.into_sorted(), vec![(2, 2.0), (3, 2.0)]);
    }

    #[test]
    fn zero_k_keeps_nothing() {
        let mut t = TopK::new(0);
        t.push(1.0, 0, 1);
        assert!(t.into_sorted().is_empty());
    }
}
