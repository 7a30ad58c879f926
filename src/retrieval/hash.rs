//! A small, fast, deterministic hasher for the index maps (the rustc "Fx"
//! hash). std's SipHash resists hash flooding, which a client-side index of
//! the user's own messages does not need, and costs several times more per
//! term lookup on the query path. Not a dependency: it is ten lines.

use std::hash::{BuildHasherDefault, Hasher};

pub(crate) type FxBuildHasher = BuildHasherDefault<FxHasher>;
pub(crate) type FxHashMap<K, V> = std::collections::HashMap<K, V, FxBuildHasher>;
pub(crate) type FxHashSet<K> = std::collections::HashSet<K, FxBuildHasher>;

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

#[derive(Default, Clone, Copy)]
pub(crate) struct FxHasher {
    hash: u64,
}

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(c);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut last = [0u8; 8];
            last.iter_mut().zip(rest).for_each(|(l, &b)| *l = b);
            self.add(u64::from_le_bytes(last));
        }
    }

    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(i as u64);
    }

    #[inline]
    fn write_u32(&mut self, i: u32) {
        self.add(i as u64);
    }

    #[inline]
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

/// A 64-bit hash of a string for maps keyed by it (message and item ids):
/// each 8-byte word's product is folded down before the next word comes.
/// Fx mixes a word's high bytes only upwards, so its hashes of ids that
/// differ in their last digits (`m-<writer>-<n>`) met about once in 45
/// (2,220 of 100,000 ids).
pub(crate) fn str_hash(s: &str) -> u64 {
    let mut h = s.len() as u64;
    for chunk in s.as_bytes().chunks(8) {
        let mut word = [0u8; 8];
        word.iter_mut().zip(chunk).for_each(|(w, &b)| *w = b);
        h = (h ^ u64::from_le_bytes(word)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        h ^= h >> 32;
    }
    h
}

#[cfg(test)]
mod tests {
    #[test]
    fn message_ids_of_one_writer_hash_apart() {
        let mut seen = std::collections::HashSet::new();
        for writer in ["kyju3xsw5e", "w", "0000000000"] {
            for n in 0..100_000 {
                assert!(seen.insert(super::str_hash(&format!("m-{writer}-{n}"))), "m-{writer}-{n}");
            }
        }
        assert_ne!(super::str_hash(""), super::str_hash("\0"));
    }
}
