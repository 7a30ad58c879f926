//! The rank table: token bytes → rank, built once from the asset.
//!
//! Invariants:
//! - All token bytes live in one buffer (`bytes`, with `offsets`), so the
//!   table makes a handful of allocations, not one per token.
//! - One- and two-byte tokens are answered by direct arrays (`single`,
//!   `pair`): they are the hot lookups of every BPE merge. Longer tokens are in
//!   an open-addressing, linearly probed table of `u32` slots at most 3/4
//!   full (so a probe always ends at an empty slot). A slot holds `tag << rank_bits | rank`; the tag is more hash bits, so
//!   most probes of a slice that is not a token never touch the token bytes.
//!   `EMPTY` (all ones) cannot be a used slot: its rank field is ≥ the slot count.
//! - A lookup returns a rank only after comparing the bytes: answers are exact.
//! - Every rank < `n_slots` that has a token maps back to it, no token appears
//!   twice, and all 256 single bytes are tokens (BPE starts from bytes).

use super::asset::Vocab;

/// "Not a token" / "no merge", as in tiktoken (`Rank::MAX`).
pub(super) const NO_RANK: u32 = u32::MAX;
const EMPTY: u32 = u32::MAX;

pub(super) struct RankTable {
    bytes: Vec<u8>,
    offsets: Vec<u32>,
    slots: Vec<u32>,
    /// `64 - log2(slots.len())`: the slot index is the top bits of the hash.
    shift: u32,
    mask: usize,
    rank_bits: u32,
    rank_mask: u32,
    single: Box<[u32; 256]>,
    pair: Vec<u32>,
    /// Length of the longest token of 3+ bytes that starts (`starts`) or ends
    /// (`ends`) with each byte pair, 0 if none, saturating at 255 ("any").
    /// Most slices BPE tries across CJK characters start or end inside a
    /// character; these bounds reject them without hashing (on Chinese text,
    /// 73% of the failing lookups, 42% of all).
    starts: Vec<u8>,
    ends: Vec<u8>,
    max_len: usize,
}

/// Hash of a byte slice: FxHash-style multiply per 8-byte word, with the
/// shorter cases read as overlapping words so no byte-at-a-time loop runs.
/// The top bits are the well-mixed ones; the table indexes and tags with them.
// Cannot panic: words are read at i < n - 8 and at n - 8 when n ≥ 8, halves
// at 0 and n - 4 when n ≥ 4, bytes at 0, n / 2 and n - 1 when n > 0; a slice
// of 8 (4) bytes always converts to an array of 8 (4).
#[allow(clippy::indexing_slicing, clippy::unwrap_used)]
#[inline(always)]
pub(super) fn hash(b: &[u8]) -> u64 {
    const K: u64 = 0xf135_7aea_2e62_a9c5;
    let n = b.len();
    let mut h = (n as u64).wrapping_mul(K);
    let word = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
    if n >= 8 {
        let mut i = 0;
        while i + 8 < n {
            h = (h ^ word(i)).wrapping_mul(K).rotate_left(20);
            i += 8;
        }
        h = (h ^ word(n - 8)).wrapping_mul(K);
    } else if n >= 4 {
        let half = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap()) as u64;
        h = (h ^ (half(0) | half(n - 4) << 32)).wrapping_mul(K);
    } else if n > 0 {
        h = (h ^ (b[0] as u64 | (b[n / 2] as u64) << 8 | (b[n - 1] as u64) << 16)).wrapping_mul(K);
    }
    h
}

/// `a == b`, without a `memcmp` call for the short slices BPE compares most.
// Cannot panic: both slices have n bytes, and the words read lie within n.
#[allow(clippy::indexing_slicing, clippy::unwrap_used)]
#[inline(always)]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    let w4 = |s: &[u8], i: usize| u32::from_le_bytes(s[i..i + 4].try_into().unwrap());
    let w8 = |s: &[u8], i: usize| u64::from_le_bytes(s[i..i + 8].try_into().unwrap());
    match n {
        0..=3 => a == b,
        4..=8 => w4(a, 0) == w4(b, 0) && w4(a, n - 4) == w4(b, n - 4),
        9..=16 => w8(a, 0) == w8(b, 0) && w8(a, n - 8) == w8(b, n - 8),
        _ => a == b,
    }
}

#[inline(always)]
fn pair_index(a: u8, b: u8) -> usize {
    (a as usize) << 8 | b as usize
}

impl RankTable {
    /// Builds the table; `Err` names the first rule the vocabulary breaks.
    // Out of line: runs once per load, and profiles then show the load phases apart.
    // Cannot go out of bounds: `single` is indexed by a byte, `pair`, `starts`
    // and `ends` (65,536 entries) by a byte pair, `slots` by what `probe`
    // returns, and `tok[len - 2]` with len ≥ 3 (the pattern above it).
    #[allow(clippy::indexing_slicing)]
    #[inline(never)]
    pub(super) fn build(vocab: Vocab) -> Result<RankTable, String> {
        let Vocab { bytes, offsets, max_len } = vocab;
        let n_slots = offsets.len() - 1;
        let rank_bits = (32 - (n_slots as u32).leading_zeros()).max(1);
        // At most 3/4 full: with tags, probes stay within a cache line or two.
        // For o200k that is 1 MB; a half-empty 2 MB table measured no faster.
        let long = offsets.windows(2).filter(|w| matches!(w, [a, b] if b - a > 2)).count();
        let cap = (long * 4 / 3 + 1).next_power_of_two().max(16);
        let mut t = RankTable {
            max_len,
            bytes,
            offsets,
            slots: vec![EMPTY; cap],
            shift: 64 - cap.trailing_zeros(),
            mask: cap - 1,
            rank_bits,
            rank_mask: (1u32 << rank_bits) - 1,
            single: Box::new([NO_RANK; 256]),
            pair: vec![NO_RANK; 1 << 16],
            starts: vec![0; 1 << 16],
            ends: vec![0; 1 << 16],
        };
        for rank in 0..n_slots as u32 {
            let tok = t.token(rank);
            let slot = match *tok {
                [] => continue,
                [a] => &mut t.single[a as usize],
                [a, b] => &mut t.pair[pair_index(a, b)],
                [a, b, ..] => {
                    let (y, z) = (tok[tok.len() - 2], tok[tok.len() - 1]);
                    let h = hash(tok);
                    let (found, i) = t.probe(tok, h);
                    if found != NO_RANK {
                        return Err(format!("token {rank} repeats token {found}"));
                    }
                    let bound = tok.len().min(255) as u8;
                    t.slots[i] = t.tag(h) << rank_bits | rank;
                    t.starts[pair_index(a, b)] = t.starts[pair_index(a, b)].max(bound);
                    t.ends[pair_index(y, z)] = t.ends[pair_index(y, z)].max(bound);
                    continue;
                }
            };
            if *slot != NO_RANK {
                return Err(format!("token {rank} repeats token {}", *slot));
            }
            *slot = rank;
        }
        if let Some(b) = t.single.iter().position(|&r| r == NO_RANK) {
            return Err(format!("byte {b:#04x} is not a token"));
        }
        Ok(t)
    }

    #[inline(always)]
    fn tag(&self, h: u64) -> u32 {
        ((h >> (self.shift - (32 - self.rank_bits))) as u32) & (u32::MAX >> self.rank_bits)
    }

    /// (rank of `b` or `NO_RANK`, index of the slot that ended the probe).
    // Cannot go out of bounds: `h >> shift` has log2(slots.len()) bits, and
    // later indices are masked by `mask` (slots.len() - 1).
    #[allow(clippy::indexing_slicing)]
    #[inline(always)]
    fn probe(&self, b: &[u8], h: u64) -> (u32, usize) {
        let tag = self.tag(h);
        let mut i = (h >> self.shift) as usize;
        loop {
            let s = self.slots[i];
            if s == EMPTY {
                return (NO_RANK, i);
            }
            if s >> self.rank_bits == tag {
                let r = s & self.rank_mask;
                if same_bytes(self.token(r), b) {
                    return (r, i);
                }
            }
            i = (i + 1) & self.mask;
        }
    }

    /// The rank of token `b`, or `NO_RANK`.
    // Cannot go out of bounds: `b` is read within its matched length, and the
    // tables are indexed by a byte (256 entries) or a byte pair (65,536).
    #[allow(clippy::indexing_slicing)]
    #[inline(always)]
    pub(super) fn rank(&self, b: &[u8]) -> u32 {
        match b.len() {
            1 => self.single[b[0] as usize],
            2 => self.pair_rank(b[0], b[1]),
            n if n > self.max_len || n == 0 => NO_RANK,
            n => {
                let fits = |bound: u8| bound == 255 || n <= bound as usize;
                if fits(self.starts[pair_index(b[0], b[1])]) && fits(self.ends[pair_index(b[n - 2], b[n - 1])]) {
                    self.probe(b, hash(b)).0
                } else {
                    NO_RANK
                }
            }
        }
    }

    // Cannot go out of bounds: `pair` has an entry for every byte pair.
    #[allow(clippy::indexing_slicing)]
    #[inline(always)]
    pub(super) fn pair_rank(&self, a: u8, b: u8) -> u32 {
        self.pair[pair_index(a, b)]
    }

    /// The bytes of token `rank` (empty for a gap).
    // Cannot go out of bounds for the ranks it is given (below n_slots, from
    // `slots` or `build`'s loop): `read_asset` makes `offsets` n_slots + 1
    // non-decreasing offsets within `bytes`.
    #[allow(clippy::indexing_slicing)]
    #[inline(always)]
    pub(super) fn token(&self, rank: u32) -> &[u8] {
        let r = rank as usize;
        &self.bytes[self.offsets[r] as usize..self.offsets[r + 1] as usize]
    }

    pub(super) fn heap_bytes(&self) -> usize {
        self.bytes.capacity()
            + 4 * (self.offsets.capacity() + self.slots.capacity() + self.pair.capacity())
            + self.starts.capacity()
            + self.ends.capacity()
            + std::mem::size_of::<[u32; 256]>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vocab(tokens: &[&[u8]]) -> Vocab {
        let mut v = Vocab { bytes: Vec::new(), offsets: vec![0], max_len: 0 };
        for t in tokens {
            v.bytes.extend_from_slice(t);
            v.offsets.push(v.bytes.len() as u32);
            v.max_len = v.max_len.max(t.len());
        }
        v
    }

    fn bytes_then(extra: &[&'static [u8]]) -> Vec<Vec<u8>> {
        let mut all: Vec<Vec<u8>> = (0..=255u8).map(|b| vec![b]).collect();
        all.extend(extra.iter().map(|t| t.to_vec()));
        all
    }

    #[test]
    fn finds_every_token_and_nothing_else() {
        let mut all = bytes_then(&[b"ab", b"abc", b"", b"hello world", b"hello worle", b"0123456789abcdefX"]);
        // Longer than the 255 at which the start/end length bounds saturate.
        all.push(vec![b'x'; 300]);
        all.push([&b"yz"[..], &[b'q'; 254]].concat());
        let refs: Vec<&[u8]> = all.iter().map(|t| t.as_slice()).collect();
        let t = RankTable::build(vocab(&refs)).unwrap();
        for (r, tok) in refs.iter().enumerate() {
            if !tok.is_empty() {
                assert_eq!(t.rank(tok), r as u32);
            }
        }
        let yz_long = [&b"yz"[..], &[b'q'; 255]].concat();
        for miss in [&b"abd"[..], b"hello", b"ba", b"", b"0123456789abcdefY", &[b'x'; 40], &[b'x'; 299], &yz_long] {
            assert_eq!(t.rank(miss), NO_RANK);
        }
    }

    #[test]
    fn rejects_duplicates_and_missing_bytes() {
        let dup = bytes_then(&[b"abc", b"abc"]);
        let refs: Vec<&[u8]> = dup.iter().map(|t| t.as_slice()).collect();
        assert!(RankTable::build(vocab(&refs)).is_err());
        let dup2 = bytes_then(&[b"a"]);
        let refs: Vec<&[u8]> = dup2.iter().map(|t| t.as_slice()).collect();
        assert!(RankTable::build(vocab(&refs)).is_err());
        assert!(RankTable::build(vocab(&[b"a", b"ab"])).is_err());
    }
}
