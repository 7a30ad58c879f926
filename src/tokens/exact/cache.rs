//! A bounded piece → token-count cache for pieces that need a BPE merge.
//!
//! Invariants:
//! - A hit compares the stored bytes with the piece: cached counts are exact.
//! - Memory is bounded: at most `MAX_ENTRIES` pieces of at most
//!   `MAX_PIECE` bytes, `MAX_ARENA` bytes in all; when either limit is reached
//!   the whole cache is dropped and refilled (the simplest policy that keeps
//!   the hot pieces of the text being counted, which is what repeated counting
//!   of a conversation needs). Nothing is allocated until the first insert.
//! - Single-token pieces are never stored: the rank table already answers them.

use super::table::hash;

const SLOTS: usize = 1 << 14;
const MAX_ENTRIES: usize = SLOTS / 2;
const MAX_ARENA: usize = 1 << 20;
/// Long pieces (unbroken CJK runs, long runs of one character) are the costly
/// merges, and a conversation counted again turn after turn repeats them, so
/// they are cached too; only pieces that would take a large share of the
/// arena are merged each time.
const MAX_PIECE: usize = 4096;

#[derive(Clone, Copy)]
struct Entry {
    /// Top 32 bits of the piece hash; 0 marks an empty slot (hashes are forced non-zero).
    tag: u32,
    start: u32,
    len: u32,
    count: u32,
}

const EMPTY: Entry = Entry { tag: 0, start: 0, len: 0, count: 0 };

#[derive(Default)]
pub(super) struct PieceCache {
    slots: Vec<Entry>,
    arena: Vec<u8>,
    entries: usize,
}

#[inline(always)]
fn tag_and_index(piece: &[u8]) -> (u32, usize) {
    let h = hash(piece);
    (((h >> 32) as u32).max(1), (h >> 18) as usize & (SLOTS - 1))
}

impl PieceCache {
    // Cannot go out of bounds: with entries, `slots` has SLOTS entries and the
    // index is masked by SLOTS - 1; every slot's range was pushed to `arena`
    // (which is cleared only together with the slots).
    #[allow(clippy::indexing_slicing)]
    #[inline]
    pub(super) fn get(&self, piece: &[u8]) -> Option<u32> {
        if self.entries == 0 || piece.len() > MAX_PIECE {
            return None;
        }
        let (tag, mut i) = tag_and_index(piece);
        loop {
            let e = self.slots[i];
            if e.tag == 0 {
                return None;
            }
            if e.tag == tag && self.arena[e.start as usize..(e.start + e.len) as usize] == *piece {
                return Some(e.count);
            }
            i = (i + 1) & (SLOTS - 1);
        }
    }

    /// Records `count` for `piece`, which must not be cached yet.
    // Cannot go out of bounds: `slots` is allocated with SLOTS entries above
    // and the index is masked by SLOTS - 1; it is never full (MAX_ENTRIES).
    #[allow(clippy::indexing_slicing)]
    pub(super) fn insert(&mut self, piece: &[u8], count: usize) {
        if piece.len() > MAX_PIECE {
            return;
        }
        if self.slots.is_empty() {
            self.slots = vec![EMPTY; SLOTS];
        }
        if self.entries >= MAX_ENTRIES || self.arena.len() + piece.len() > MAX_ARENA {
            self.slots.fill(EMPTY);
            self.arena.clear();
            self.entries = 0;
        }
        let (tag, mut i) = tag_and_index(piece);
        while self.slots[i].tag != 0 {
            i = (i + 1) & (SLOTS - 1);
        }
        let start = self.arena.len() as u32;
        self.arena.extend_from_slice(piece);
        self.slots[i] = Entry { tag, start, len: piece.len() as u32, count: count as u32 };
        self.entries += 1;
    }

    pub(super) fn heap_bytes(&self) -> usize {
        self.slots.capacity() * std::mem::size_of::<Entry>() + self.arena.capacity()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_exact_counts_and_stays_bounded() {
        let mut c = PieceCache::default();
        assert_eq!(c.get(b"abc"), None);
        for i in 0..3 * MAX_ENTRIES {
            let piece = format!("piece-{i}");
            c.insert(piece.as_bytes(), i);
            assert_eq!(c.get(piece.as_bytes()), Some(i as u32));
            assert!(c.entries <= MAX_ENTRIES && c.arena.len() <= MAX_ARENA);
        }
        assert_eq!(c.get(b"never inserted"), None);
        let long = vec![b'x'; MAX_PIECE + 1];
        c.insert(&long, 5);
        assert_eq!(c.get(&long), None);
    }
}
