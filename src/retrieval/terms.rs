//! Analyzed documents as stored bytes: the lexical index of one cold
//! segment, written with its messages (or episodes) so that reading the
//! archive fills an index without analyzing their text again
//! (`store::envelope`'s indexed segments; `Bm25Index::add_stored` and
//! `FrozenIndex::add_stored` read them through `walk`, `read` collects them).
//!
//! A term is stored as its key ([`term_key`]): 48 bits of a hash of its
//! text, never the text, and the index in memory keys its vocabulary the
//! same way. Two terms share a key with probability about `V² / 2⁴⁹` for a
//! vocabulary of `V` terms (1 in 560 at a million terms, 1 in 140 at two million); they would
//! then match each other's documents.
//!
//! Layout, every integer a LEB128 varint unless said otherwise:
//!
//! ```text
//! version u8 (ANALYZER_VERSION) | docs | per doc: length + 1, or 0 for a doc not indexed
//! | terms | per term, by ascending key: key (6 bytes LE) | df | df postings
//! posting: (gap << 1 | tf > 1) [| tf, 2..=255]   gap: doc − previous doc of the term (the first: doc + 1)
//! ```
//!
//! Invariants: `read` accepts exactly what `SegmentTerms::encode` writes
//! for the same version and rejects anything else (another version,
//! truncated or trailing bytes, a doc out of range, postings out of order)
//! without panicking; `SegmentTerms::bytes` is the length `encode` returns.

use super::analyzer::analyze;
use super::hash::FxHashMap;

/// Bumped whenever `analyze` or `term_key` changes what a text yields:
/// terms stored by another version are not read (the text is analyzed).
pub const ANALYZER_VERSION: u8 = 2;

/// About this many bytes of stored terms are held before they are added
/// to an index a batch at a time (`FrozenBuilder`, `store::terms_batch`):
/// a term's list is then found once per batch, not once per segment
/// (a segment's terms are ~100 KB).
pub const BATCH_BYTES: usize = 2 << 20;

const KEY_BYTES: usize = 6;
const KEY_MASK: u64 = (1 << (8 * KEY_BYTES)) - 1;

/// The stored key of a term: a 64-bit hash of its bytes (`hash::str_hash`,
/// then murmur3's finalizer so that the low 48 bits kept are mixed from
/// all of them). Stable across targets and runs. (Version 1 mixed each
/// word as Fx does, whose high bytes reach only higher bits: terms of 9
/// to 16 bytes that differ in their eighth byte and their tail, such as
/// booking codes and phone numbers, met about once in 25, and matched
/// each other's documents.)
pub fn term_key(term: &str) -> u64 {
    let mut h = super::hash::str_hash(term);
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
    h ^= h >> 33;
    h = h.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    h ^= h >> 33;
    h & KEY_MASK
}

/// A document's terms: its length in terms, and each distinct term's key
/// with its frequency, by ascending key.
pub type DocTerms = (u32, Vec<(u64, u32)>);

/// The terms of `text` (`analyze`d, keyed by `term_key`).
pub fn doc_terms(text: &str) -> DocTerms {
    let mut keys: Vec<u64> = Vec::new();
    analyze(text, |term| keys.push(term_key(term)));
    let len = keys.len() as u32;
    crate::sort::sort_keys(&mut keys);
    let terms = keys.chunk_by(|a, b| a == b).filter_map(|run| Some((*run.first()?, run.len() as u32))).collect();
    (len, terms)
}

fn varint_len(mut n: u64) -> usize {
    let mut len = 1;
    while n >= 0x80 {
        n >>= 7;
        len += 1;
    }
    len
}

/// Appends `n` as a LEB128 varint (also `store::skim`'s heads, `frozen`'s lists).
pub(crate) fn put_varint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8 & 0x7f) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// Bytes of one posting.
fn posting_len(gap: u32, tf: u32) -> usize {
    varint_len(u64::from(gap) << 1 | u64::from(tf > 1)) + usize::from(tf > 1)
}

/// One term's postings so far: (doc, tf), docs ascending.
#[derive(Default)]
struct Postings {
    list: Vec<(u32, u32)>,
}

/// The terms of one segment's documents, added in order; its encoded size
/// is known before each add (`bytes_with`), so a writer can keep a segment
/// and its terms within a limit.
#[derive(Default)]
pub struct SegmentTerms {
    docs: Vec<Option<u32>>,
    terms: FxHashMap<u64, Postings>,
    /// Encoded bytes of the docs' lengths, the terms' keys and dfs, and the postings.
    body: usize,
}

impl SegmentTerms {
    pub fn new() -> Self {
        Self::default()
    }

    /// Documents added so far.
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// The encoded length after adding a document with `terms` (`doc_terms`;
    /// `None`: a document not indexed), without adding it.
    pub fn bytes_with(&self, doc: Option<&DocTerms>) -> usize {
        let at = self.docs.len() as u32;
        let mut body = self.body;
        let mut new_terms = 0;
        if let Some((len, terms)) = doc {
            body += varint_len(u64::from(*len) + 1);
            for &(key, tf) in terms {
                match self.terms.get(&key) {
                    Some(p) => {
                        let df = p.list.len() as u64;
                        body += varint_len(df + 1) - varint_len(df);
                        body += posting_len(at - p.list.last().map_or(0, |l| l.0 + 1) + 1, tf.min(255));
                    }
                    None => {
                        new_terms += 1;
                        body += KEY_BYTES + 1 + posting_len(at + 1, tf.min(255));
                    }
                }
            }
        } else {
            body += 1;
        }
        1 + varint_len(u64::from(at) + 1) + varint_len((self.terms.len() + new_terms) as u64) + body
    }

    /// The encoded length.
    pub fn bytes(&self) -> usize {
        1 + varint_len(self.docs.len() as u64) + varint_len(self.terms.len() as u64) + self.body
    }

    /// Adds the next document (`None`: not indexed, such as an instruction).
    pub fn push(&mut self, doc: Option<DocTerms>) {
        let at = self.docs.len() as u32;
        let Some((len, terms)) = doc else {
            self.docs.push(None);
            self.body += 1;
            return;
        };
        self.body += varint_len(u64::from(len) + 1);
        for (key, tf) in terms {
            let tf = tf.min(255);
            let p = self.terms.entry(key).or_default();
            let df = p.list.len() as u64;
            if df == 0 {
                self.body += KEY_BYTES + 1;
            } else {
                self.body += varint_len(df + 1) - varint_len(df);
            }
            self.body += posting_len(at - p.list.last().map_or(0, |l| l.0 + 1) + 1, tf);
            p.list.push((at, tf));
        }
        self.docs.push(Some(len));
    }

    /// The stored bytes (see the module's layout).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.bytes());
        out.push(ANALYZER_VERSION);
        put_varint(&mut out, self.docs.len() as u64);
        for d in &self.docs {
            put_varint(&mut out, d.map_or(0, |l| u64::from(l) + 1));
        }
        put_varint(&mut out, self.terms.len() as u64);
        let mut keys: Vec<u64> = self.terms.keys().copied().collect();
        crate::sort::sort_keys(&mut keys);
        for key in keys {
            let Some(p) = self.terms.get(&key) else { continue };
            out.extend_from_slice(&key.to_le_bytes()[..KEY_BYTES]);
            put_varint(&mut out, p.list.len() as u64);
            let mut next = 0;
            for &(doc, tf) in &p.list {
                put_varint(&mut out, u64::from(doc + 1 - next) << 1 | u64::from(tf > 1));
                if tf > 1 {
                    out.push(tf as u8);
                }
                next = doc + 1;
            }
        }
        out
    }
}

/// A segment's terms as read: each document's length (`None`: not indexed),
/// and each term's key with its postings `(doc, tf)`, docs ascending.
#[derive(Debug, Default, PartialEq)]
pub struct ReadTerms {
    pub docs: Vec<Option<u32>>,
    pub terms: Vec<(u64, std::ops::Range<usize>)>,
    pub postings: Vec<(u32, u32)>,
}

/// Reads what `put_varint` and bytes wrote, checked: `None` past the end.
pub(crate) struct Cursor<'a> {
    pub bytes: &'a [u8],
    pub at: usize,
}

impl<'a> Cursor<'a> {
    // (inlined: called for every stored posting)
    #[inline(always)]
    pub fn byte(&mut self) -> Option<u8> {
        let b = *self.bytes.get(self.at)?;
        self.at += 1;
        Some(b)
    }

    #[inline(always)]
    pub fn varint(&mut self) -> Option<u64> {
        let (mut n, mut shift) = (0u64, 0);
        // (a loop, not `step_by`: that is not inlined at the wasm's opt-level)
        while shift < 64 {
            let b = self.byte()?;
            n |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Some(n);
            }
            shift += 7;
        }
        None
    }

    pub fn small(&mut self, max: usize) -> Option<usize> {
        self.varint().and_then(|n| usize::try_from(n).ok()).filter(|&n| n <= max)
    }

    /// The next `n` bytes.
    pub fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let out = self.bytes.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(out)
    }
}

/// Stored terms read one term at a time, checked as they are read
/// (`walk`): each term's key (`key`), then its postings (`postings`).
pub struct Walk<'a> {
    c: Cursor<'a>,
    /// Each document's length (`None`: not indexed).
    pub docs: Vec<Option<u32>>,
    /// Terms not read yet.
    pub terms: usize,
    last_key: Option<u64>,
}

/// Starts reading what `SegmentTerms::encode` wrote (its documents read);
/// `None` for another version or damaged bytes.
pub fn walk(bytes: &[u8]) -> Option<Walk<'_>> {
    let mut c = Cursor { bytes, at: 0 };
    if c.byte()? != ANALYZER_VERSION {
        return None;
    }
    // Every count is bounded by the bytes left, so nothing allocates past them.
    let n_docs = c.small(bytes.len())?;
    let mut docs = Vec::with_capacity(n_docs);
    for _ in 0..n_docs {
        let l = c.varint()?;
        docs.push(if l == 0 { None } else { Some(u32::try_from(l - 1).ok()?) });
    }
    let terms = c.small(bytes.len())?;
    Some(Walk { c, docs, terms, last_key: None })
}

impl<'a> Walk<'a> {
    /// The next term's key (keys ascend); `None` when damaged or none is left.
    pub fn key(&mut self) -> Option<u64> {
        self.terms = self.terms.checked_sub(1)?;
        let c = &mut self.c;
        // (bytes by name, not `copy_from_slice`: that is a call per term at the wasm's opt-level)
        let &[a, b, d, e, f, g] = <&[u8; KEY_BYTES]>::try_from(c.bytes.get(c.at..c.at + KEY_BYTES)?).ok()?;
        c.at += KEY_BYTES;
        let key = u64::from_le_bytes([a, b, d, e, f, g, 0, 0]);
        if self.last_key.is_some_and(|k| k >= key) {
            return None;
        }
        self.last_key = Some(key);
        Some(key)
    }

    /// The postings of the term just keyed, each `(doc, tf)` given to
    /// `each`, docs ascending; returns their bytes as stored. `None` when damaged.
    pub fn postings(&mut self, mut each: impl FnMut(u32, u32)) -> Option<&'a [u8]> {
        let n_docs = self.docs.len();
        let c = &mut self.c;
        let df = c.small(n_docs)?;
        let start = c.at;
        let mut next = 0u64;
        for _ in 0..df {
            let p = c.varint()?;
            let doc = next + (p >> 1);
            let tf = if p & 1 == 1 { u32::from(c.byte()?) } else { 1 };
            // A gap of 0 would repeat a doc; docs past the last do not exist.
            if p >> 1 == 0 || doc > n_docs as u64 || tf == 0 || (tf == 1 && p & 1 == 1) {
                return None;
            }
            if !matches!(self.docs.get(doc as usize - 1), Some(Some(_))) {
                return None;
            }
            each(doc as u32 - 1, tf);
            next = doc;
        }
        c.bytes.get(start..c.at)
    }

    /// Whether every term was read and nothing follows.
    pub fn done(&self) -> bool {
        self.terms == 0 && self.c.at == self.c.bytes.len()
    }
}

/// Reads what `SegmentTerms::encode` wrote; `None` for another version or
/// damaged bytes.
pub fn read(bytes: &[u8]) -> Option<ReadTerms> {
    let mut w = walk(bytes)?;
    let mut out = ReadTerms::default();
    out.terms.reserve_exact(w.terms);
    while w.terms > 0 {
        let key = w.key()?;
        let start = out.postings.len();
        w.postings(|doc, tf| out.postings.push((doc, tf)))?;
        out.terms.push((key, start..out.postings.len()));
    }
    out.docs = std::mem::take(&mut w.docs);
    w.done().then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn segment(texts: &[Option<&str>]) -> SegmentTerms {
        let mut s = SegmentTerms::new();
        for t in texts {
            let doc = t.map(doc_terms);
            let before = s.bytes_with(doc.as_ref());
            s.push(doc);
            assert_eq!(s.bytes(), before);
            assert_eq!(s.encode().len(), before);
        }
        s
    }

    #[test]
    fn keys_are_stable_and_48_bits() {
        // Stored keys: a change here orphans every stored index (bump ANALYZER_VERSION).
        assert_eq!(term_key("pelican"), 113_882_654_418_480);
        assert_eq!(term_key("航班"), 219_452_995_394_107);
        assert!(term_key("航班") <= KEY_MASK && term_key("") <= KEY_MASK);
        assert_ne!(term_key("ab"), term_key("ba"));
        assert_ne!(term_key("a"), term_key("a\0"));
    }

    #[test]
    fn codes_and_numbers_that_differ_in_a_few_characters_keep_their_own_keys() {
        // (with version 1's keys, 40 of the 900 codes met, 400 of the 10,000 numbers)
        let mut seen = std::collections::HashMap::new();
        let codes = (100..1000).map(|n| format!("pelican{n}"));
        let numbers = (0..10_000).map(|n| format!("1380013{n:04}"));
        let orders = (0..100_000).map(|n| format!("order{n:06}"));
        for t in codes.chain(numbers).chain(orders) {
            if let Some(other) = seen.insert(term_key(&t), t.clone()) {
                panic!("{t} and {other} share a key");
            }
        }
    }

    #[test]
    fn a_segment_reads_back_as_written() {
        let s = segment(&[
            Some("我的航班是 CA1234，周五早上 8 点起飞"),
            None,
            Some("deploy deploy deploy the script"),
            Some("..."),
            Some("航班 script"),
        ]);
        let r = read(&s.encode()).unwrap();
        assert_eq!(
            r.docs,
            vec![Some(doc_terms("我的航班是 CA1234，周五早上 8 点起飞").0), None, Some(4), Some(0), Some(doc_terms("航班 script").0)]
        );
        let deploy = term_key("deploy");
        let (_, range) = r.terms.iter().find(|(k, _)| *k == deploy).unwrap();
        assert_eq!(r.postings[range.clone()], [(2, 3)]);
        let (_, range) = r.terms.iter().find(|(k, _)| *k == term_key("航班")).unwrap();
        assert_eq!(r.postings[range.clone()], [(0, 1), (4, 1)]);
    }

    #[test]
    fn another_version_or_damage_is_not_read() {
        let bytes = segment(&[Some("hello world"), Some("world peace")]).encode();
        let mut other = bytes.clone();
        other[0] = ANALYZER_VERSION + 1;
        assert_eq!(read(&other), None);
        assert_eq!(read(&bytes[..bytes.len() - 1]), None);
        assert_eq!(read(&[bytes.as_slice(), &[0]].concat()), None);
    }

    proptest! {
        #[test]
        fn sizes_are_exact_and_any_bytes_read_without_panic(
            texts in proptest::collection::vec(proptest::option::of("[a-c 航班x]{0,40}"), 0..40),
            noise in proptest::collection::vec(any::<u8>(), 0..200),
        ) {
            let texts: Vec<Option<&str>> = texts.iter().map(|t| t.as_deref()).collect();
            let s = segment(&texts);
            let r = read(&s.encode()).unwrap();
            prop_assert_eq!(r.docs.len(), texts.len());
            let _ = read(&noise);
            let mut flipped = s.encode();
            if let Some(b) = flipped.get_mut(noise.len() % 7 + 1) {
                *b ^= noise.first().copied().unwrap_or(1) | 1;
            }
            let _ = read(&flipped);
        }
    }
}
