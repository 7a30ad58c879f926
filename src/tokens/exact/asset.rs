//! The compact rank asset: every token's bytes in rank order, laid out so
//! gzip compresses it well, and read back without re-parsing base64.
//!
//! Layout (integers little-endian):
//! ```text
//! magic "AMTKRANK" | version u8 = 1 | name_len u8 | name (e.g. "o200k_base")
//! n_slots u32 | n_gaps u32 | head_len u32 | ascii_len u32 | other_len u32 | checksum u64
//! gaps: n_gaps × u32, strictly increasing ranks < n_slots that have no token
//! head:  one entry per token in rank order: byte (kind << 5 | min(len - 1, 31)),
//!        then a second byte len - 1 - 31 when the first field is 31
//! ascii: the bodies of kinds 0..=3, concatenated
//! other: the bodies of kinds 4 and 5, concatenated
//! ```
//! A token's body is the token without its leading space when `kind & 1`
//! (only for tokens longer than one byte); `len` is the body length.
//! `kind >> 1` is 0 for an all-ASCII body, 1 for an all-ASCII body that starts
//! with an upper-case letter followed by a lower-case one, stored with the first
//! letter lowered (so " The" and "the" share bytes for LZ77), 2 for a body
//! with any non-ASCII byte. Ranks are implicit: the i-th token not in `gaps`
//! has the i-th rank that is not a gap. The checksum covers everything after it.
//!
//! Why this layout (o200k_base, gzip -9): tokens length-prefixed inline 1.05 MB;
//! all lengths then all bytes 994 KB; leading-space flag 965 KB; ASCII and
//! non-ASCII bodies in separate streams 892 KB; capital flag 886 KB.
//! Referring to an earlier token for a prefix instead of repeating its bytes
//! did not help (rank numbers cost as much as the bytes they replace).

use super::Encoding;
use crate::error::MemoryError;

const MAGIC: &[u8; 8] = b"AMTKRANK";
const VERSION: u8 = 1;
/// Longest token body the head byte pair can express.
pub const MAX_TOKEN_LEN: usize = 31 + 255 + 1;
/// More slots than any tiktoken encoding has; bounds allocation on bad input.
pub const MAX_SLOTS: usize = 1 << 24;

const KIND_ASCII: u8 = 0;
const KIND_CAPITAL: u8 = 1;
const KIND_OTHER: u8 = 2;

/// Token bytes in rank order: token `r` is `bytes[offsets[r]..offsets[r + 1]]`,
/// empty for a gap. `offsets.len()` is the number of rank slots plus one.
pub(super) struct Vocab {
    pub bytes: Vec<u8>,
    pub offsets: Vec<u32>,
    /// Length of the longest token.
    pub max_len: usize,
}

fn invalid(encoding: Encoding, reason: impl Into<String>) -> MemoryError {
    MemoryError::InvalidTokenizerData { encoding: encoding.name().to_string(), reason: reason.into() }
}

/// Writes the asset for `encoding` from its tokens in rank order (rank 0
/// first); an empty item marks a rank that has no token.
///
/// # Errors
/// `InvalidTokenizerData` if a token is longer than [`MAX_TOKEN_LEN`] bytes or
/// there are more than [`MAX_SLOTS`] ranks.
pub fn write_asset<I, T>(encoding: Encoding, tokens: I) -> crate::Result<Vec<u8>>
where
    I: IntoIterator<Item = T>,
    T: AsRef<[u8]>,
{
    let (mut gaps, mut head, mut ascii, mut other) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut n_slots = 0usize;
    for token in tokens {
        let t = token.as_ref();
        let rank = n_slots;
        n_slots += 1;
        if n_slots > MAX_SLOTS {
            return Err(invalid(encoding, format!("more than {MAX_SLOTS} ranks")));
        }
        if t.is_empty() {
            gaps.extend_from_slice(&(rank as u32).to_le_bytes());
            continue;
        }
        let body = match t {
            [b' ', rest @ ..] if !rest.is_empty() => rest,
            _ => t,
        };
        let spaced = body.len() < t.len();
        if body.len() > MAX_TOKEN_LEN {
            return Err(invalid(encoding, format!("token {rank} is longer than {MAX_TOKEN_LEN} bytes")));
        }
        let kind = if !body.is_ascii() {
            KIND_OTHER
        } else if matches!(body, [a, b, ..] if a.is_ascii_uppercase() && b.is_ascii_lowercase()) {
            KIND_CAPITAL
        } else {
            KIND_ASCII
        };
        let short = (body.len() - 1).min(31);
        head.push((kind << 1 | spaced as u8) << 5 | short as u8);
        if short == 31 {
            head.push((body.len() - 1 - 31) as u8);
        }
        match kind {
            KIND_OTHER => other.extend_from_slice(body),
            KIND_CAPITAL => {
                if let [first, rest @ ..] = body {
                    ascii.push(first.to_ascii_lowercase());
                    ascii.extend_from_slice(rest);
                }
            }
            _ => ascii.extend_from_slice(body),
        }
    }
    let mut payload = gaps;
    let n_gaps = payload.len() / 4;
    payload.extend_from_slice(&head);
    payload.extend_from_slice(&ascii);
    payload.extend_from_slice(&other);
    let name = encoding.name().as_bytes();
    let mut out = Vec::with_capacity(payload.len() + 64);
    out.extend_from_slice(MAGIC);
    out.push(VERSION);
    out.push(name.len() as u8);
    out.extend_from_slice(name);
    for n in [n_slots, n_gaps, head.len(), ascii.len(), other.len()] {
        out.extend_from_slice(&(n as u32).to_le_bytes());
    }
    out.extend_from_slice(&checksum(&payload).to_le_bytes());
    out.extend_from_slice(&payload);
    Ok(out)
}

/// A bounds-checked little-endian reader; every read past the end is an error.
struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(n)?;
        let s = self.data.get(self.pos..end)?;
        self.pos = end;
        Some(s)
    }
    fn u8(&mut self) -> Option<u8> {
        self.take(1).and_then(<[u8]>::first).copied()
    }
    fn u32(&mut self) -> Option<u32> {
        self.take(4).and_then(|s| s.try_into().ok()).map(u32::from_le_bytes)
    }
    fn u64(&mut self) -> Option<u64> {
        self.take(8).and_then(|s| s.try_into().ok()).map(u64::from_le_bytes)
    }
}

/// Reads an asset written by [`write_asset`] for `encoding`.
///
/// # Errors
/// `InvalidTokenizerData` for a wrong magic or version, another encoding's
/// name, a checksum mismatch, truncated or trailing bytes, or streams whose
/// sizes disagree with the head.
// Out of line: runs once per load, and profiles then show the load phases apart.
#[inline(never)]
pub(super) fn read_asset(encoding: Encoding, data: &[u8]) -> crate::Result<Vocab> {
    let bad = |reason: &str| invalid(encoding, reason);
    let truncated = || bad("truncated data");
    let mut r = Reader { data, pos: 0 };
    if r.take(MAGIC.len()) != Some(&MAGIC[..]) {
        return Err(bad("not a rank asset (bad magic)"));
    }
    let version = r.u8().ok_or_else(truncated)?;
    if version != VERSION {
        return Err(bad(&format!("unsupported asset version {version}")));
    }
    let name_len = r.u8().ok_or_else(truncated)? as usize;
    let name = r.take(name_len).ok_or_else(truncated)?;
    if name != encoding.name().as_bytes() {
        let found = String::from_utf8_lossy(name);
        return Err(bad(&format!("the data is for encoding {found:?}")));
    }
    let mut field = || r.u32().map(|v| v as usize).ok_or_else(truncated);
    let (n_slots, n_gaps, head_len, ascii_len, other_len) = (field()?, field()?, field()?, field()?, field()?);
    let sum = r.u64().ok_or_else(truncated)?;
    let payload = data.get(r.pos..).unwrap_or_default();
    let expected = [n_gaps.checked_mul(4), Some(head_len), Some(ascii_len), Some(other_len)]
        .into_iter()
        .try_fold(0usize, |acc, n| acc.checked_add(n?));
    match expected {
        Some(n) if n == payload.len() => {}
        Some(n) if n > payload.len() => return Err(truncated()),
        _ => return Err(bad("trailing bytes or inconsistent stream sizes")),
    }
    if checksum(payload) != sum {
        return Err(bad("checksum mismatch (corrupted data)"));
    }
    // Every token has a head byte: this also bounds the allocations below by the input size.
    if n_slots > MAX_SLOTS || n_gaps > n_slots || n_slots - n_gaps > head_len {
        return Err(bad("implausible token count"));
    }
    // Offsets are u32.
    if ascii_len + other_len + n_slots >= u32::MAX as usize {
        return Err(bad("token bytes too large"));
    }
    let (gaps, rest) = payload.split_at_checked(n_gaps * 4).ok_or_else(truncated)?;
    let (head, rest) = rest.split_at_checked(head_len).ok_or_else(truncated)?;
    let (ascii, other) = rest.split_at_checked(ascii_len).ok_or_else(truncated)?;
    let mut gaps = gaps.chunks_exact(4).filter_map(|c| c.try_into().ok()).map(|c| u32::from_le_bytes(c) as usize);
    let mut next_gap = gaps.next().unwrap_or(usize::MAX);
    // Bodies plus at most one space per token: written in place, no per-token growth checks.
    let mut bytes = vec![0u8; ascii_len + other_len + (n_slots - n_gaps) + 16];
    let mut offsets = Vec::with_capacity(n_slots + 1);
    offsets.push(0u32);
    let (mut w, mut h_pos, mut a_pos, mut o_pos, mut max_len) = (0usize, 0usize, 0usize, 0usize, 0usize);
    let short = || bad("head stream too short");
    for rank in 0..n_slots {
        if rank == next_gap {
            next_gap = match gaps.next() {
                Some(g) if g > rank => g,
                None => usize::MAX,
                Some(_) => return Err(bad("gap list not increasing")),
            };
            offsets.push(w as u32);
            continue;
        }
        let h = *head.get(h_pos).ok_or_else(short)?;
        h_pos += 1;
        let (kind, spaced) = (h >> 6, h & 0x20 != 0);
        let mut len = (h & 31) as usize + 1;
        if len == 32 {
            len += *head.get(h_pos).ok_or_else(short)? as usize;
            h_pos += 1;
        }
        let (stream, pos) = match kind {
            KIND_OTHER => (other, &mut o_pos),
            KIND_ASCII | KIND_CAPITAL => (ascii, &mut a_pos),
            _ => return Err(bad("bad token kind")),
        };
        let body = stream.get(*pos..*pos + len).ok_or_else(|| bad("token stream too short"))?;
        *pos += len;
        // Out of room only when gaps announced in `n_gaps` never came (they
        // were past the last rank): more tokens than the buffer was sized for.
        let overfull = || bad("more tokens than the gap list leaves room for");
        if spaced {
            *bytes.get_mut(w).ok_or_else(overfull)? = b' ';
            w += 1;
        }
        // Most bodies are short: a fixed 16-byte copy compiles to two loads and
        // stores, where a variable-length one is a `memcpy` call (in wasm, a
        // `memory.copy` with a high fixed cost). Bytes past `len` are overwritten
        // by the next token or cut by the final `truncate`.
        match (stream.get(*pos - len..*pos - len + 16), bytes.get_mut(w..w + 16)) {
            (Some(src), Some(dst)) if len <= 16 => dst.copy_from_slice(src),
            _ => bytes.get_mut(w..w + len).ok_or_else(overfull)?.copy_from_slice(body),
        }
        if kind == KIND_CAPITAL {
            let first = bytes.get_mut(w).filter(|b| b.is_ascii_lowercase()).ok_or_else(|| bad("bad capitalized token"))?;
            *first = first.to_ascii_uppercase();
        }
        w += len;
        max_len = max_len.max(len + spaced as usize);
        offsets.push(w as u32);
    }
    if next_gap != usize::MAX {
        return Err(bad("gap out of range"));
    }
    if h_pos != head_len || a_pos != ascii_len || o_pos != other_len {
        return Err(bad("streams longer than the tokens they hold"));
    }
    bytes.truncate(w);
    Ok(Vocab { bytes, offsets, max_len })
}

/// The asset's integrity check: catches truncation and corruption in transit.
/// Not cryptographic; 8 bytes per step so it costs well under a millisecond.
fn checksum(data: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h = 0x243F_6A88_85A3_08D3 ^ data.len() as u64;
    let mut chunks = data.chunks_exact(8);
    for c in chunks.by_ref().filter_map(|c| c.try_into().ok()) {
        h = (h ^ u64::from_le_bytes(c)).wrapping_mul(K).rotate_left(23);
    }
    for &b in chunks.remainder() {
        h = (h ^ b as u64).wrapping_mul(K).rotate_left(23);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(v: &Vocab) -> Vec<&[u8]> {
        v.offsets.windows(2).map(|w| &v.bytes[w[0] as usize..w[1] as usize]).collect()
    }

    #[test]
    fn round_trip_with_gaps_and_every_kind() {
        let long = vec![b'x'; MAX_TOKEN_LEN];
        let spaced_long = [&b" "[..], &long].concat();
        let input: Vec<&[u8]> = vec![
            b"a",
            b" ",
            b"  ",
            b" The",
            b"The",
            b"THE",
            b"",
            b"\xE4\xB8\xAD",
            b" \xC3\xA9t\xC3\xA9",
            b"",
            &long,
            &spaced_long,
            b"\xff",
            b"Ab",
            b"A",
        ];
        let asset = write_asset(Encoding::O200kBase, &input).unwrap();
        let v = read_asset(Encoding::O200kBase, &asset).unwrap();
        assert_eq!(tokens(&v), input);
    }

    #[test]
    fn rejects_bad_input() {
        let asset = write_asset(Encoding::Cl100kBase, [&b"ab"[..], b"c"]).unwrap();
        assert!(read_asset(Encoding::O200kBase, &asset).is_err());
        for n in 0..asset.len() {
            assert!(read_asset(Encoding::Cl100kBase, &asset[..n]).is_err(), "{n}");
        }
        let mut longer = asset.clone();
        longer.push(0);
        assert!(read_asset(Encoding::Cl100kBase, &longer).is_err());
        let mut flipped = asset.clone();
        *flipped.last_mut().unwrap() ^= 1;
        assert!(read_asset(Encoding::Cl100kBase, &flipped).is_err());
        assert!(write_asset(Encoding::Cl100kBase, [vec![0u8; MAX_TOKEN_LEN + 1]]).is_err());
    }

    /// An asset with these fields and a valid checksum, as a host could send.
    fn assemble(n_slots: u32, gaps: &[u32], head: &[u8], ascii: &[u8], other: &[u8]) -> Vec<u8> {
        let mut payload: Vec<u8> = gaps.iter().flat_map(|g| g.to_le_bytes()).collect();
        payload.extend_from_slice(head);
        payload.extend_from_slice(ascii);
        payload.extend_from_slice(other);
        let name = Encoding::Cl100kBase.name().as_bytes();
        let mut out = [&MAGIC[..], &[VERSION, name.len() as u8], name].concat();
        for n in [n_slots, gaps.len() as u32, head.len() as u32, ascii.len() as u32, other.len() as u32] {
            out.extend_from_slice(&n.to_le_bytes());
        }
        out.extend_from_slice(&checksum(&payload).to_le_bytes());
        out.extend_from_slice(&payload);
        out
    }

    #[test]
    fn gaps_past_the_last_rank_are_an_error_not_a_panic() {
        // 40 spaced one-byte tokens need 80 bytes; 20 announced gaps that
        // never come leave room for 40 + 20 (+ 16 of slack) only.
        let gaps: Vec<u32> = (100..120).collect();
        let asset = assemble(40, &gaps, &[0x20; 40], &[b'a'; 40], &[]);
        assert!(read_asset(Encoding::Cl100kBase, &asset).is_err());
    }

    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// Whatever bytes a host passes as ranks (with a checksum that
        /// matches), reading them and building the table returns, never panics.
        #[test]
        fn any_asset_reads_or_is_refused(
            n_slots in 0u32..64,
            gaps in proptest::collection::btree_set(0u32..80, 0..24),
            head in proptest::collection::vec(any::<u8>(), 0..80),
            ascii in proptest::collection::vec(any::<u8>(), 0..160),
            other in proptest::collection::vec(any::<u8>(), 0..64),
        ) {
            let gaps: Vec<u32> = gaps.into_iter().collect();
            let asset = assemble(n_slots, &gaps, &head, &ascii, &other);
            if let Ok(v) = read_asset(Encoding::Cl100kBase, &asset) {
                prop_assert_eq!(v.offsets.len(), n_slots as usize + 1);
                let _ = super::super::table::RankTable::build(v);
            }
        }

        /// A valid asset with one byte changed (checksum fixed up) likewise.
        #[test]
        fn a_damaged_asset_reads_or_is_refused(at in any::<prop::sample::Index>(), byte in any::<u8>()) {
            let tokens: Vec<Vec<u8>> = (0..=255u8).map(|b| vec![b]).chain([b" The".to_vec(), b"hello".to_vec(), b"".to_vec(), "\u{4e2d}".into()]).collect();
            let asset = write_asset(Encoding::Cl100kBase, &tokens).unwrap();
            let start = MAGIC.len() + 2 + Encoding::Cl100kBase.name().len();
            let mut fields = asset[start..start + 20].to_vec();
            let mut payload = asset[start + 28..].to_vec();
            let i = at.index(fields.len() + payload.len());
            if i < fields.len() { fields[i] = byte } else { payload[i - fields.len()] = byte }
            let mut damaged = asset[..start].to_vec();
            damaged.extend_from_slice(&fields);
            damaged.extend_from_slice(&checksum(&payload).to_le_bytes());
            damaged.extend_from_slice(&payload);
            if let Ok(v) = read_asset(Encoding::Cl100kBase, &damaged) {
                let _ = super::super::table::RankTable::build(v);
            }
        }
    }
}
