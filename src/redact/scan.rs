//! Byte-level helpers the scanners share: character classes, runs, word
//! boundaries, and the spans a scanner reports.
//!
//! Invariant: every span starts and ends next to an ASCII byte (each
//! scanner anchors on ASCII and extends over ASCII classes), so a span's
//! ends are always `char` boundaries of the UTF-8 text and replacing it
//! never splits a character.

/// A match: bytes `start..end` of the text are a `kind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    pub start: usize,
    pub end: usize,
    pub kind: &'static str,
}

pub fn is_alnum(b: u8) -> bool {
    b.is_ascii_alphanumeric()
}

/// Base64url: letters, digits, `-` and `_`.
pub fn is_b64url(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-' || b == b'_'
}

/// Standard base64 without padding: letters, digits, `+` and `/`.
pub fn is_b64(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'+' || b == b'/'
}

pub fn is_digit(b: u8) -> bool {
    b.is_ascii_digit()
}

/// The byte at `i`, or 0 past either end (0 is in no class).
pub fn at(b: &[u8], i: usize) -> u8 {
    b.get(i).copied().unwrap_or(0)
}

/// The byte before `i`, or 0 at the start.
pub fn before(b: &[u8], i: usize) -> u8 {
    i.checked_sub(1).map_or(0, |j| at(b, j))
}

/// Where the run of `class` bytes starting at `from` ends.
pub fn run(b: &[u8], from: usize, class: fn(u8) -> bool) -> usize {
    let mut i = from;
    while i < b.len() && class(at(b, i)) {
        i += 1;
    }
    i
}

/// Whether `b[i..]` starts with `prefix`.
pub fn starts(b: &[u8], i: usize, prefix: &[u8]) -> bool {
    b.get(i..).is_some_and(|rest| rest.starts_with(prefix))
}

/// Whether `b[i..]` starts with `prefix`, ASCII case ignored.
pub fn starts_ci(b: &[u8], i: usize, prefix: &[u8]) -> bool {
    b.get(i..i + prefix.len()).is_some_and(|s| s.eq_ignore_ascii_case(prefix))
}

/// A token may start at `i`: the byte before is not a letter or digit (a
/// key inside a longer word or a base64 blob is not a key).
pub fn word_start(b: &[u8], i: usize) -> bool {
    !is_alnum(before(b, i))
}

/// Lower case, upper case and digits in `s`: how many of the three occur.
/// Generated keys use all three; words and identifiers rarely do.
pub fn classes(s: &[u8]) -> usize {
    let has = |f: fn(&u8) -> bool| usize::from(s.iter().any(f));
    has(u8::is_ascii_lowercase) + has(u8::is_ascii_uppercase) + has(u8::is_ascii_digit)
}

/// The bytes `from..to`, or nothing when out of range.
pub fn slice(b: &[u8], from: usize, to: usize) -> &[u8] {
    b.get(from..to).unwrap_or(&[])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_and_boundaries() {
        let b = b"x sk-abc_1.";
        assert_eq!(run(b, 2, is_b64url), 10);
        assert!(word_start(b, 2) && !word_start(b, 3));
        assert_eq!((at(b, 99), before(b, 0)), (0, 0));
        assert!(starts_ci(b, 2, b"SK-") && !starts(b, 2, b"SK-"));
        assert_eq!(classes(b"aB3"), 3);
        assert_eq!(classes(b"abc-def"), 1);
    }
}
