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
        let spaced = t.len() > 1 && t[0] == b' ';
        let body = if spaced { &t[1..] } else { t };
        if body.len() > MAX_TOKEN_LEN {
            return Err(invalid(encoding, format!("token {rank} is longer than {MAX_TOKEN_LEN} bytes")));
        }
        let kind = if !body.is_ascii() {
            KIND_OTHER
        } else if body.len() > 1 && body[0].is_ascii_uppercase() && body[1].is_ascii_lowercase() {
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
                ascii.push(body[0].to_ascii_lowercase());
                ascii.extend_from_slice(&body[1..]);
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
        self.take(1).map(|s| s[0])
    }
    fn u32(&mut self) -> Option<u32> {
        self.take(4).map(|s| u32::from_le_bytes(s.try_into().unwrap()))
    }
    fn u64(&mut self) -> Option<u64> {
        self.take(8).map(|s| u64::from_le_bytes(s.try_into().unwrap()))
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
    let payload = &data[r.pos..];
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
    let (gaps, rest) = payload.split_at(n_gaps * 4);
    let (head, rest) = rest.split_at(head_len);
    let (ascii, other) = rest.split_at(ascii_len);
    let mut gaps = gaps.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap()) as usize);
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
        if spaced {
            bytes[w] = b' ';
            w += 1;
        }
        // Most bodies are short: a fixed 16-byte copy compiles to two loads and
        // stores, where a variable-length one is a `memcpy` call (in wasm, a
        // `memory.copy` with a high fixed cost). Bytes past `len` are overwritten
        // by the next token or cut by the final `truncate`.
        match (stream.get(*pos - len..*pos - len + 16), bytes.get_mut(w..w + 16)) {
            (Some(src), Some(dst)) if len <= 16 => dst.copy_from_slice(src),
            _ => bytes[w..w + len].copy_from_slice(body),
        }
        if kind == KIND_CAPITAL {
            if !bytes[w].is_ascii_lowercase() {
                return Err(bad("bad capitalized token"));
            }
            bytes[w] = bytes[w].to_ascii_uppercase();
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
    for c in &mut chunks {
        h = (h ^ u64::from_le_bytes(c.try_into().unwrap())).wrapping_mul(K).rotate_left(23);
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
            b"a", b" ", b"  ", b" The", b"The", b"THE", b"", b"\xE4\xB8\xAD", b" \xC3\xA9t\xC3\xA9", b"",
            &long, &spaced_long, b"\xff", b"Ab", b"A",
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
}
