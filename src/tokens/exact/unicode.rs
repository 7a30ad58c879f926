//! Character classes for the pre-tokenizer: the Unicode General_Category
//! groups and the White_Space property that the tiktoken patterns mention.
//!
//! Invariants:
//! - Every `char` has exactly one [`Class`]. The classes partition Unicode the
//!   way the patterns need: letters by case group, marks, numbers, white space
//!   (CR and LF apart, because the patterns single them out), everything else.
//! - The data is regex-syntax 0.8.12's (Unicode 16.0.0), the tables the
//!   reference (tiktoken-rs → fancy-regex → regex) matches with, so `\p{L}`,
//!   `\p{N}`, `\p{M}` and `\s` mean the same here as there. It lives in
//!   `unicode_classes.bin` (16.6 KB, 2.6 KB gzip), a two-stage trie made by
//!   `gen_unicode_table.py` from that crate's `unicode_tables` sources.
//! - ASCII never touches the trie: a 128-entry table answers it.

/// The character classes the o200k / cl100k patterns distinguish.
pub(super) type Class = u8;
/// Not a letter, mark, number or white space (punctuation, symbols, controls, unassigned).
pub(super) const OTHER: Class = 0;
/// `Lu` or `Lt`: in o200k's "upper" class only.
pub(super) const UPPER: Class = 1;
/// `Ll`: in o200k's "lower" class only.
pub(super) const LOWER: Class = 2;
/// `Lm` or `Lo`: in both o200k letter classes.
pub(super) const LETTER_OTHER: Class = 3;
/// `Mn`, `Mc`, `Me`: in both o200k letter classes, but not `\p{L}`.
pub(super) const MARK: Class = 4;
/// `Nd`, `Nl`, `No`.
pub(super) const NUMBER: Class = 5;
/// White_Space other than CR and LF.
pub(super) const SPACE: Class = 6;
/// `\r` or `\n`.
pub(super) const CRLF: Class = 7;

/// Class-set masks: `mask & bit(class) != 0` tests membership.
pub(super) const fn bit(c: Class) -> u8 {
    1 << c
}
/// `\p{L}`.
pub(super) const IS_LETTER: u8 = bit(UPPER) | bit(LOWER) | bit(LETTER_OTHER);
/// o200k `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`.
pub(super) const IS_UPPERISH: u8 = bit(UPPER) | bit(LETTER_OTHER) | bit(MARK);
/// o200k `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`.
pub(super) const IS_LOWERISH: u8 = bit(LOWER) | bit(LETTER_OTHER) | bit(MARK);
/// `[^\r\n\p{L}\p{N}]`: the optional one-character prefix of a word.
pub(super) const IS_PREFIX: u8 = bit(OTHER) | bit(MARK) | bit(SPACE);
/// `[^\s\p{L}\p{N}]`: punctuation-run characters.
pub(super) const IS_PUNCT: u8 = bit(OTHER) | bit(MARK);
/// `\s`.
pub(super) const IS_SPACE: u8 = bit(SPACE) | bit(CRLF);

#[inline(always)]
pub(super) fn is(class: Class, mask: u8) -> bool {
    bit(class) & mask != 0
}

static TRIE: &[u8] = include_bytes!("unicode_classes.bin");
/// Code points below this are in the trie; above it only U+E0100..=U+E01EF is not OTHER.
const TRIE_LIMIT: u32 = 0x40000;
const SHIFT: u32 = 7;
const STAGE1_LEN: usize = (TRIE_LIMIT >> SHIFT) as usize;

// Runs at compile time: an index out of bounds would fail the build.
#[allow(clippy::indexing_slicing)]
const fn ascii_classes() -> [Class; 128] {
    let mut t = [OTHER; 128];
    let mut i = 0;
    while i < 128 {
        let b = i as u8;
        t[i] = match b {
            b'A'..=b'Z' => UPPER,
            b'a'..=b'z' => LOWER,
            b'0'..=b'9' => NUMBER,
            b'\r' | b'\n' => CRLF,
            b'\t' | 0x0B | 0x0C | b' ' => SPACE,
            _ => OTHER,
        };
        i += 1;
    }
    t
}
static ASCII: [Class; 128] = ascii_classes();

/// The class of a code point.
// Cannot go out of bounds: `cp < 128` for ASCII; below TRIE_LIMIT, stage 1
// has an entry for every `cp >> SHIFT`, and every block it names has 64
// bytes in stage 2 (the unicode tests look up every code point).
#[allow(clippy::indexing_slicing)]
#[inline]
pub(super) fn class_of(cp: u32) -> Class {
    if cp < 128 {
        return ASCII[cp as usize];
    }
    if cp >= TRIE_LIMIT {
        return if (0xE0100..=0xE01EF).contains(&cp) { MARK } else { OTHER };
    }
    let block = TRIE[(cp >> SHIFT) as usize] as usize;
    let idx = (cp & ((1 << SHIFT) - 1)) as usize;
    let byte = TRIE[STAGE1_LEN + block * 64 + idx / 2];
    (byte >> ((idx & 1) * 4)) & 0x0F
}

/// The class and UTF-8 length of the character starting at byte `i` of `s`.
///
/// `s` must be valid UTF-8 (it comes from a `&str`) and `i` a char boundary
/// inside it; the decoding below relies on that and does no validation.
// Cannot go out of bounds for such `s` and `i`: a lead byte ≥ 0xC0 is
// followed by as many continuation bytes as it announces. Every caller
// passes a `&str`'s bytes and a boundary below its length.
#[allow(clippy::indexing_slicing)]
#[inline(always)]
pub(super) fn class_at(s: &[u8], i: usize) -> (Class, usize) {
    let b0 = s[i];
    if b0 < 0x80 {
        return (ASCII[b0 as usize], 1);
    }
    let (cp, len) = if b0 < 0xE0 {
        (((b0 as u32 & 0x1F) << 6) | (s[i + 1] as u32 & 0x3F), 2)
    } else if b0 < 0xF0 {
        let cp = ((b0 as u32 & 0x0F) << 12) | ((s[i + 1] as u32 & 0x3F) << 6) | (s[i + 2] as u32 & 0x3F);
        (cp, 3)
    } else {
        let cp = ((b0 as u32 & 0x07) << 18) | ((s[i + 1] as u32 & 0x3F) << 12) | ((s[i + 2] as u32 & 0x3F) << 6) | (s[i + 3] as u32 & 0x3F);
        (cp, 4)
    };
    (class_of(cp), len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trie_has_expected_size() {
        assert!(TRIE.len() > STAGE1_LEN);
        assert_eq!((TRIE.len() - STAGE1_LEN) % 64, 0);
        let blocks = (TRIE.len() - STAGE1_LEN) / 64;
        assert!(TRIE[..STAGE1_LEN].iter().all(|&b| (b as usize) < blocks));
    }

    #[test]
    fn known_characters() {
        let cases: &[(char, Class)] = &[
            ('A', UPPER),
            ('z', LOWER),
            ('7', NUMBER),
            ('\n', CRLF),
            ('\t', SPACE),
            ('\u{1F}', OTHER),
            ('\u{85}', SPACE),
            ('\u{A0}', SPACE),
            ('\u{2028}', SPACE),
            ('\u{3000}', SPACE),
            ('\u{FEFF}', OTHER),
            ('\u{200B}', OTHER),
            ('é', LOWER),
            ('É', UPPER),
            ('ǅ', UPPER), // Lt
            ('ſ', LOWER),
            ('ʰ', LETTER_OTHER), // Lm
            ('中', LETTER_OTHER),
            ('あ', LETTER_OTHER),
            ('한', LETTER_OTHER),
            ('\u{0301}', MARK),
            ('\u{093F}', MARK), // Devanagari vowel sign I (Mc)
            ('\u{20DD}', MARK), // enclosing circle (Me)
            ('\u{E0101}', MARK),
            ('\u{E0001}', OTHER),
            ('٣', NUMBER),
            ('Ⅻ', NUMBER), // Nl
            ('½', NUMBER), // No
            ('😀', OTHER),
            ('\u{1F3FB}', OTHER), // skin tone modifier is Sk
            ('\u{10FFFF}', OTHER),
            ('\u{30000}', LETTER_OTHER), // CJK extension G
        ];
        for &(c, want) in cases {
            let mut buf = [0u8; 4];
            let s = c.encode_utf8(&mut buf);
            assert_eq!(class_at(s.as_bytes(), 0), (want, s.len()), "{c:?} U+{:04X}", c as u32);
        }
    }

    #[test]
    fn letters_agree_with_std_where_std_is_defined() {
        // std's `is_alphabetic` is the Alphabetic property, a superset of \p{L};
        // every \p{L} char must be alphabetic and every White_Space char whitespace.
        for cp in 0..0x11_0000u32 {
            let Some(c) = char::from_u32(cp) else { continue };
            let k = class_of(cp);
            if is(k, IS_LETTER) {
                assert!(c.is_alphabetic(), "U+{cp:04X}");
            }
            assert_eq!(is(k, IS_SPACE), c.is_whitespace(), "U+{cp:04X}");
        }
    }
}
