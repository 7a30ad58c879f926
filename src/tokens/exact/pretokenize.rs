//! The pre-tokenizer: splits text into the same pieces as tiktoken's regexes,
//! without a regex engine.
//!
//! Each `next_*` function returns the end of the piece that starts at byte `p`
//! (a char boundary, `p < s.len()`); the end is always past `p`, so a caller
//! looping `p = next(s, p)` covers the whole text. The patterns are matched
//! the way a backtracking engine does (leftmost alternative first, greedy
//! repeats giving back characters one at a time), worked out per alternative
//! into forward scans; each function's comments say which alternative a branch
//! is and why the scan equals its backtracking result.
//!
//! o200k_base (`O200K_BASE_PAT_STR` in tiktoken-rs):
//! ```text
//! A1 [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//! A2 [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//! A3 \p{N}{1,3}
//! A4  ?[^\s\p{L}\p{N}]+[\r\n/]*
//! A5 \s*[\r\n]+
//! A6 \s+(?!\S)
//! A7 \s+
//! ```
//! cl100k_base:
//! ```text
//! B1 '(?i:[sdmt]|ll|ve|re)
//! B2 [^\r\n\p{L}\p{N}]?+\p{L}++
//! B3 \p{N}{1,3}+
//! B4  ?[^\s\p{L}\p{N}]++[\r\n]*+
//! B5 \s++$
//! B6 \s*[\r\n]
//! B7 \s+(?!\S)
//! B8 \s
//! ```
//! Every character matches some alternative at its own position (letters and
//! marks A1/A2/B2/B4, numbers A3/B3, white space A5-A7/B5-B8, the rest A4/B4),
//! so no text is skipped and the pieces concatenate to the input.

use super::unicode::{class_at, is, Class, CRLF, IS_LETTER, IS_LOWERISH, IS_PREFIX, IS_PUNCT, IS_SPACE, IS_UPPERISH, LOWER, NUMBER, UPPER};

/// Class of the char at `i`, or `None` at the end of the text.
#[inline(always)]
fn peek(s: &[u8], i: usize) -> Option<(Class, usize)> {
    if i < s.len() {
        Some(class_at(s, i))
    } else {
        None
    }
}

/// End of the longest run starting at `i` of chars whose class is in `mask`.
#[inline(always)]
fn run(s: &[u8], mut i: usize, mask: u8) -> usize {
    while let Some(&b) = s.get(i) {
        // ASCII letters dominate real text: skip the general decode for them.
        if b.is_ascii_alphabetic() {
            let c = if b >= b'a' { LOWER } else { UPPER };
            if !is(c, mask) {
                break;
            }
            i += 1;
            continue;
        }
        let (c, l) = class_at(s, i);
        if !is(c, mask) {
            break;
        }
        i += l;
    }
    i
}

/// `(?i:'s|'t|'re|'ve|'m|'ll|'d)` at `i`: the end of the suffix, or `i` if none.
/// Under Unicode simple case folding only `s` has a non-ASCII form (U+017F ſ).
#[inline]
fn contraction(s: &[u8], i: usize) -> usize {
    if s.get(i) != Some(&b'\'') {
        return i;
    }
    let at = |k: usize| s.get(i + k).map_or(0, |b| b.to_ascii_lowercase());
    match at(1) {
        b's' | b't' | b'm' | b'd' => i + 2,
        0xC5 if s.get(i + 2) == Some(&0xBF) => i + 3, // ſ
        b'r' | b'v' if at(2) == b'e' => i + 3,
        b'l' if at(2) == b'l' => i + 3,
        _ => i,
    }
}

/// o200k A1 without its prefix, at `q`: `U* D+` (U = upper-ish, D = lower-ish).
/// Backtracking gives `U*` the longest run after which a D char follows: the
/// whole U run if an `Ll` follows it (then `D+` takes the D run from there),
/// else up to the last run char that is also in D (`Lm`, `Lo`, `M`), which
/// `D+` then takes alone, since what follows it in the run is `Lu`/`Lt`.
#[inline(always)]
fn o200k_word_lower(s: &[u8], q: usize) -> Option<usize> {
    let mut i = q;
    let mut last_both_end = None;
    while let Some((c, l)) = peek(s, i) {
        if is(c, IS_UPPERISH) {
            i += l;
            if is(c, IS_LOWERISH) {
                last_both_end = Some(i);
            }
        } else if c == LOWER {
            return Some(run(s, i, IS_LOWERISH));
        } else {
            break;
        }
    }
    last_both_end
}

/// o200k A2 without its prefix, at `q` whose char is upper-ish: `U+ D*`.
/// `D*` always succeeds, so `U+` keeps its whole run.
#[inline(always)]
fn o200k_word_upper(s: &[u8], q: usize) -> usize {
    let r = run(s, q, IS_UPPERISH);
    run(s, r, IS_LOWERISH)
}

/// Whitespace run at `p`: (end of run, end of its last CR/LF if any,
/// start of its last char, number of chars capped at 2).
#[inline(always)]
fn space_run(s: &[u8], p: usize) -> (usize, Option<usize>, usize, u8) {
    let (mut i, mut last_crlf, mut last_start, mut chars) = (p, None, p, 0u8);
    while let Some((c, l)) = peek(s, i) {
        if !is(c, IS_SPACE) {
            break;
        }
        last_start = i;
        i += l;
        if c == CRLF {
            last_crlf = Some(i);
        }
        chars = chars.saturating_add(1).min(2);
    }
    (i, last_crlf, last_start, chars)
}

/// End of the o200k_base piece starting at `p`.
pub(super) fn next_o200k(s: &[u8], p: usize) -> usize {
    let (c0, l0) = class_at(s, p);
    let prefixed = is(c0, IS_PREFIX);
    // A1 with the prefix taken, then (backtracking the `?`) without it; the
    // second try can only succeed when the first char is itself in U or D.
    if prefixed {
        if let Some(e) = o200k_word_lower(s, p + l0) {
            return contraction(s, e);
        }
    }
    if is(c0, IS_UPPERISH | IS_LOWERISH) {
        if let Some(e) = o200k_word_lower(s, p) {
            return contraction(s, e);
        }
    }
    // A2, same order.
    if prefixed {
        if let Some((c1, _)) = peek(s, p + l0) {
            if is(c1, IS_UPPERISH) {
                return contraction(s, o200k_word_upper(s, p + l0));
            }
        }
    }
    if is(c0, IS_UPPERISH) {
        return contraction(s, o200k_word_upper(s, p));
    }
    if c0 == NUMBER {
        return numbers(s, p + l0);
    }
    // A4: ` ?` is taken only if a punctuation char follows the space.
    if let Some(q) = punct_start(s, p, c0) {
        let e = run(s, q, IS_PUNCT);
        return run_bytes(s, e, |b| b == b'\r' || b == b'\n' || b == b'/');
    }
    // White space (c0 is in \s here: every other class matched above).
    let (r, last_crlf, last_start, chars) = space_run(s, p);
    if let Some(e) = last_crlf {
        return e; // A5: `\s*` gives back up to the last CR/LF, `[\r\n]+` takes it.
    }
    if r == s.len() {
        return r; // A6 at the end of the text: `(?!\S)` holds.
    }
    if chars >= 2 {
        return last_start; // A6: `\s+` gives back one char, which is white space.
    }
    r // A7: a single white-space char before a non-space.
}

/// End of the cl100k_base piece starting at `p`.
pub(super) fn next_cl100k(s: &[u8], p: usize) -> usize {
    let (c0, l0) = class_at(s, p);
    // B1: a contraction standing alone.
    if s.get(p) == Some(&b'\'') {
        let e = contraction(s, p);
        if e > p {
            return e;
        }
    }
    // B2: the possessive `?+` keeps a prefix char, but a prefix char is never a
    // letter, so giving it back could not help `\p{L}++` anyway.
    if is(c0, IS_PREFIX) {
        if let Some((c1, _)) = peek(s, p + l0) {
            if is(c1, IS_LETTER) {
                return run(s, p + l0, IS_LETTER);
            }
        }
    }
    if is(c0, IS_LETTER) {
        return run(s, p, IS_LETTER);
    }
    if c0 == NUMBER {
        return numbers(s, p + l0);
    }
    // B4.
    if let Some(q) = punct_start(s, p, c0) {
        let e = run(s, q, IS_PUNCT);
        return run_bytes(s, e, |b| b == b'\r' || b == b'\n');
    }
    let (r, last_crlf, last_start, chars) = space_run(s, p);
    if r == s.len() {
        return r; // B5: the run reaches the end of the text.
    }
    if let Some(e) = last_crlf {
        return e; // B6
    }
    if chars >= 2 {
        return last_start; // B7
    }
    p + l0 // B8
}

/// `\p{N}{1,3}` given the first number char ends at `i`.
#[inline(always)]
fn numbers(s: &[u8], mut i: usize) -> usize {
    for _ in 0..2 {
        match peek(s, i) {
            Some((NUMBER, l)) => i += l,
            _ => break,
        }
    }
    i
}

/// Start of the `[^\s\p{L}\p{N}]+` run of ` ?[^\s\p{L}\p{N}]+`, if it matches at `p`.
#[inline(always)]
fn punct_start(s: &[u8], p: usize, c0: Class) -> Option<usize> {
    if s.get(p) == Some(&b' ') {
        match peek(s, p + 1) {
            Some((c1, _)) if is(c1, IS_PUNCT) => Some(p + 1),
            _ => None, // without the space, ' ' itself is not punctuation
        }
    } else if is(c0, IS_PUNCT) {
        Some(p)
    } else {
        None
    }
}

/// End of the run of ASCII bytes satisfying `f` starting at `i`.
#[inline(always)]
fn run_bytes(s: &[u8], mut i: usize, f: impl Fn(u8) -> bool) -> usize {
    while s.get(i).is_some_and(|&b| f(b)) {
        i += 1;
    }
    i
}

/// Iterates over the pieces of `text` with `next` as the splitter.
pub(super) fn pieces(text: &str, next: fn(&[u8], usize) -> usize) -> impl Iterator<Item = &str> {
    let s = text.as_bytes();
    let mut p = 0;
    std::iter::from_fn(move || {
        if p >= s.len() {
            return None;
        }
        let e = next(s, p);
        let piece = &text[p..e];
        p = e;
        Some(piece)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split_o(t: &str) -> Vec<&str> {
        pieces(t, next_o200k).collect()
    }
    fn split_c(t: &str) -> Vec<&str> {
        pieces(t, next_cl100k).collect()
    }

    #[test]
    fn o200k_words_and_contractions() {
        assert_eq!(split_o("Hello world"), ["Hello", " world"]);
        assert_eq!(split_o("don't IT'S we'LL"), ["don't", " IT'S", " we'LL"]);
        assert_eq!(split_o("HelloWorld ABCdef"), ["Hello", "World", " ABCdef"]);
        assert_eq!(split_o("it'ſ"), ["it'ſ"]);
        assert_eq!(split_o("日本語AB c"), ["日本語", "AB", " c"]);
        assert_eq!(split_o("\u{301}abc"), ["\u{301}abc"]);
        assert_eq!(split_o("..\u{301}x"), ["..\u{301}", "x"]);
    }

    #[test]
    fn o200k_numbers_punct_space() {
        assert_eq!(split_o("12345"), ["123", "45"]);
        assert_eq!(split_o("a  b"), ["a", " ", " b"]);
        assert_eq!(split_o("x \n\n  y  "), ["x", " \n\n", " ", " y", "  "]);
        assert_eq!(split_o("}\n\n/x"), ["}\n\n/", "x"]);
        assert_eq!(split_o(" !!\r\n"), [" !!\r\n"]);
        assert_eq!(split_o("\n  "), ["\n", "  "]);
        assert_eq!(split_o("a \t"), ["a", " \t"]);
    }

    #[test]
    fn cl100k_cases() {
        assert_eq!(split_c("don't IT'S"), ["don", "'t", " IT", "'S"]);
        assert_eq!(split_c("12345"), ["123", "45"]);
        assert_eq!(split_c("\n  "), ["\n  "]);
        assert_eq!(split_c("a\n  b"), ["a", "\n", " ", " b"]);
        assert_eq!(split_c("cafe\u{301}s"), ["cafe", "\u{301}s"]);
        assert_eq!(split_c("}\n\n/x"), ["}\n\n", "/x"]);
    }
}
