//! Byte-pair merging of one piece, with tiktoken's exact semantics: start from
//! single bytes and repeatedly merge the adjacent pair whose concatenation has
//! the lowest rank, the leftmost such pair on ties, until no pair is a token.
//!
//! Two implementations give identical results (the tests check it):
//! `merge_small` is tiktoken's `_byte_pair_merge` (a flat array rescanned for
//! the minimum after each merge: O(n²) but cache-friendly for short pieces),
//! `merge_large` is its `_byte_pair_merge_large` (a heap and a linked list:
//! O(n log n), for long pieces such as unbroken CJK runs or long space runs).
//! Callers pass a piece of at least two bytes; buffers come from [`Scratch`]
//! so steady-state merging does not allocate.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::table::{RankTable, NO_RANK};

/// Pieces longer than this use the heap-based merge. tiktoken switches at 100
/// bytes; measured here, the flat array still wins up to about this size.
pub(super) const SMALL_PIECE: usize = 128;

/// Reusable buffers for merging.
#[derive(Default)]
pub(super) struct Scratch {
    /// (start of part, rank of merging it with the next part).
    parts: Vec<(u32, u32)>,
    nodes: Vec<Node>,
    heap: BinaryHeap<Reverse<(u32, u32)>>,
}

impl Scratch {
    pub(super) fn heap_bytes(&self) -> usize {
        self.parts.capacity() * 8 + self.nodes.capacity() * std::mem::size_of::<Node>() + self.heap.capacity() * 8
    }
}

/// Merges `piece` and calls `emit(part)` for each resulting token's bytes, in order.
pub(super) fn merge(t: &RankTable, piece: &[u8], s: &mut Scratch, emit: impl FnMut(&[u8])) {
    debug_assert!(piece.len() >= 2);
    if piece.len() <= SMALL_PIECE {
        merge_small(t, piece, s, emit)
    } else {
        merge_large(t, piece, s, emit);
        // A huge piece (a megabyte of one repeated character) needs buffers of
        // 16 bytes per byte; give them back rather than hold them for good.
        if s.nodes.capacity() > KEEP_NODES {
            s.nodes = Vec::new();
            s.heap = BinaryHeap::new();
        }
    }
}

/// Largest merge buffers kept between calls (about 1 MiB of nodes).
const KEEP_NODES: usize = 1 << 16;

/// Number of tokens `piece` merges into.
pub(super) fn count(t: &RankTable, piece: &[u8], s: &mut Scratch) -> usize {
    let mut n = 0;
    merge(t, piece, s, |_| n += 1);
    n
}

// Cannot go out of bounds: `merge`'s callers pass a piece of at least two
// bytes; `parts` starts with n + 1 entries (starts of the n bytes, then n),
// all within the piece, and a merge removes one only while a pair ranks.
#[allow(clippy::indexing_slicing)]
fn merge_small(t: &RankTable, piece: &[u8], s: &mut Scratch, mut emit: impl FnMut(&[u8])) {
    let parts = &mut s.parts;
    parts.clear();
    let n = piece.len();
    let mut min = (NO_RANK, 0);
    for i in 0..n - 1 {
        let r = t.pair_rank(piece[i], piece[i + 1]);
        if r < min.0 {
            min = (r, i);
        }
        parts.push((i as u32, r));
    }
    parts.push(((n - 1) as u32, NO_RANK));
    parts.push((n as u32, NO_RANK));
    // Rank of merging part i with part i + 1, read before part i + 1 is removed
    // (so the merged part ends where part i + 3 starts).
    let rank_after_merge = |parts: &[(u32, u32)], i: usize| {
        if i + 3 < parts.len() {
            t.rank(&piece[parts[i].0 as usize..parts[i + 3].0 as usize])
        } else {
            NO_RANK
        }
    };
    while min.0 != NO_RANK {
        let i = min.1;
        if i > 0 {
            parts[i - 1].1 = rank_after_merge(parts, i - 1);
        }
        parts[i].1 = rank_after_merge(parts, i);
        parts.remove(i + 1);
        min = (NO_RANK, 0);
        for (j, &(_, r)) in parts[..parts.len() - 1].iter().enumerate() {
            if r < min.0 {
                min = (r, j);
            }
        }
    }
    for w in parts.windows(2) {
        emit(&piece[w[0].0 as usize..w[1].0 as usize]);
    }
}

/// A part of the piece in the linked list of `merge_large`, indexed by its start.
#[derive(Clone, Copy)]
struct Node {
    prev: u32,
    end: u32,
    next_end: u32,
    /// Rank of merging this part with the next one, `NO_RANK` if not a token
    /// or invalidated.
    next_rank: u32,
}

// Cannot go out of bounds: `nodes` has one entry per byte of the piece, and
// `prev`, `end` and `next_end` name part starts below n (or n itself, which
// is checked before it is used as an index).
#[allow(clippy::indexing_slicing)]
fn merge_large(t: &RankTable, piece: &[u8], s: &mut Scratch, mut emit: impl FnMut(&[u8])) {
    let n = piece.len();
    let (nodes, heap) = (&mut s.nodes, &mut s.heap);
    nodes.clear();
    heap.clear();
    for i in 0..n {
        let next_rank = if i + 1 < n { t.pair_rank(piece[i], piece[i + 1]) } else { NO_RANK };
        if next_rank != NO_RANK {
            heap.push(Reverse((next_rank, i as u32)));
        }
        nodes.push(Node { prev: (i as u32).wrapping_sub(1), end: i as u32 + 1, next_end: i as u32 + 2, next_rank });
    }
    // Re-evaluates the merge of the part starting at `start` with the part
    // ending at `next_end`; stale heap entries are skipped by rank mismatch.
    let set_next = |nodes: &mut Vec<Node>, heap: &mut BinaryHeap<Reverse<(u32, u32)>>, start: u32, next_end: u32| {
        let node = &mut nodes[start as usize];
        node.next_end = next_end;
        node.next_rank = NO_RANK;
        if next_end as usize <= n {
            let r = t.rank(&piece[start as usize..next_end as usize]);
            if r != NO_RANK {
                heap.push(Reverse((r, start)));
                node.next_rank = r;
            }
        }
    };
    while let Some(Reverse((rank, left))) = heap.pop() {
        if rank != nodes[left as usize].next_rank {
            continue;
        }
        let right = nodes[left as usize].end;
        let right_end = nodes[left as usize].next_end;
        let right_next_end = nodes[right as usize].next_end;
        nodes[left as usize].end = right_end;
        set_next(nodes, heap, left, right_next_end);
        if (right_end as usize) < n {
            nodes[right_end as usize].prev = left;
        }
        if left > 0 {
            let prev = nodes[left as usize].prev;
            set_next(nodes, heap, prev, right_end);
        }
        nodes[right as usize].next_rank = NO_RANK;
    }
    let mut i = 0;
    while i < n {
        let end = nodes[i].end as usize;
        emit(&piece[i..end]);
        i = end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::exact::asset::Vocab;

    /// A toy vocabulary: all bytes, then merges in rank order.
    fn table(merges: &[&[u8]]) -> RankTable {
        let mut v = Vocab { bytes: (0..=255u8).collect(), offsets: (0..=256u32).collect(), max_len: 1 };
        for m in merges {
            v.bytes.extend_from_slice(m);
            v.offsets.push(v.bytes.len() as u32);
            v.max_len = v.max_len.max(m.len());
        }
        RankTable::build(v).unwrap()
    }

    fn both(t: &RankTable, piece: &[u8]) -> Vec<Vec<u8>> {
        let mut s = Scratch::default();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        merge_small(t, piece, &mut s, |p| a.push(p.to_vec()));
        merge_large(t, piece, &mut s, |p| b.push(p.to_vec()));
        assert_eq!(a, b, "small and large merges differ on {piece:?}");
        a
    }

    #[test]
    fn lowest_rank_first_leftmost_on_ties() {
        let t = table(&[b"aa", b"ab", b"aaa", b"aaaa"]);
        assert_eq!(both(&t, b"aaaa"), [b"aaaa".to_vec()]);
        assert_eq!(both(&t, b"aab"), [b"aa".to_vec(), b"b".to_vec()]);
        // aa|a|a|a → aa|aa|a (leftmost "aa") → aa|aaa ("aaa" ranks before "aaaa").
        assert_eq!(both(&t, b"aaaaa"), [b"aa".to_vec(), b"aaa".to_vec()]);
        assert_eq!(both(&t, b"xy"), [b"x".to_vec(), b"y".to_vec()]);
    }

    #[test]
    fn small_and_large_agree_on_pseudo_random_pieces() {
        let t = table(&[b"ab", b"ba", b"aba", b"bab", b"abab", b"bb", b"abb", b"ca", b"cab", b"bcab"]);
        let mut x = 0x1234_5678u32;
        for len in 2..300 {
            let piece: Vec<u8> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 17;
                    x ^= x << 5;
                    b"abc"[(x % 3) as usize]
                })
                .collect();
            let parts = both(&t, &piece);
            assert_eq!(parts.concat(), piece);
        }
    }
}
