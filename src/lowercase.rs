//! Lowercasing as the standard library does it, from smaller tables.
//!
//! `char::to_lowercase` and `str::to_lowercase` carry core's case table
//! (1,462 pairs of `u32`, 11.7 KB) and, for the final sigma, the Cased and
//! Case_Ignorable tables: about 8 KB of the gzipped wasm in all. The same
//! mapping is here as 185 runs of characters that share one offset, and
//! Case_Ignorable as a byte stream of range lengths.
//!
//! Invariants:
//! - [`push_lower`] appends what `char::to_lowercase` yields and
//!   [`lowercase`] returns what `str::to_lowercase` returns, for every input
//!   (a test checks every `char`, and Σ beside every `char`).
//! - The tables (`lowercase/tables.rs`) are derived from the standard
//!   library this crate is built with; a test fails when they differ (a new
//!   Unicode version), and `UPDATE_LOWERCASE=1 cargo test --lib lowercase`
//!   rewrites them.

// Generated (see the test below): as written, not as rustfmt would lay it out.
#[rustfmt::skip]
mod tables;

use tables::{CASE_IGNORABLE, LOWER, TITLECASE};

/// Appends the lowercase of `c`, as `out.extend(c.to_lowercase())` does.
pub(crate) fn push_lower(out: &mut String, c: char) {
    if c.is_ascii() {
        out.push(c.to_ascii_lowercase());
    } else if c == '\u{130}' {
        // The one character whose lowercase is two: İ → i̇.
        out.push('i');
        out.push('\u{307}');
    } else {
        out.push(lower_of(c));
    }
}

/// `s.to_lowercase()`: each char lowered, and Σ as ς where it ends a word.
pub(crate) fn lowercase(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for (i, c) in s.char_indices() {
        if c == 'Σ' {
            out.push(if final_sigma(s, i) { 'ς' } else { 'σ' });
        } else {
            push_lower(&mut out, c);
        }
    }
    out
}

/// The one-char lowercase of `c` (itself when it has none).
fn lower_of(c: char) -> char {
    let u = u32::from(c);
    let at = LOWER.partition_point(|&(run, _)| run & START <= u);
    let Some(&(run, delta)) = at.checked_sub(1).and_then(|i| LOWER.get(i)) else { return c };
    let (start, count, stride) = (run & START, (run >> 21 & 0x7f) + 1, 1 + (run >> 28));
    let k = u - start;
    if k % stride == 0 && k / stride < count {
        char::from_u32(u.wrapping_add_signed(delta)).unwrap_or(c)
    } else {
        c
    }
}

/// The bits of a run's first char (its count and stride are above them).
const START: u32 = 0x1f_ffff;

/// The Final_Sigma condition (Unicode 3.13, as `str::to_lowercase` reads
/// it): a cased letter before Σ, and none after it, case-ignorable
/// characters (apostrophes, marks, …) skipped on both sides.
fn final_sigma(s: &str, i: usize) -> bool {
    let before = s.get(..i).unwrap_or_default().chars().rev();
    let after = s.get(i + 'Σ'.len_utf8()..).unwrap_or_default().chars();
    cased_first(before) && !cased_first(after)
}

/// Whether the first char that is not case-ignorable is cased.
fn cased_first(mut chars: impl Iterator<Item = char>) -> bool {
    let titlecase = |c: char| TITLECASE.iter().any(|&(a, b)| (a..=b).contains(&u32::from(c)));
    chars.find(|&c| !case_ignorable(c)).is_some_and(|c| c.is_lowercase() || c.is_uppercase() || titlecase(c))
}

/// Case_Ignorable: `CASE_IGNORABLE` holds (gap, length) pairs of its ranges
/// from U+0000 on, as LEB128 bytes.
fn case_ignorable(c: char) -> bool {
    let u = u32::from(c);
    let mut bytes = CASE_IGNORABLE.iter();
    let mut at = 0u32;
    while let (Some(gap), Some(len)) = (leb128(&mut bytes), leb128(&mut bytes)) {
        at += gap;
        if u < at {
            return false;
        }
        at += len;
        if u < at {
            return true;
        }
    }
    false
}

fn leb128(bytes: &mut std::slice::Iter<u8>) -> Option<u32> {
    let (mut value, mut shift) = (0u32, 0);
    loop {
        let b = *bytes.next()?;
        value |= u32::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Some(value);
        }
        shift += 7;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATH: &str = "src/lowercase/tables.rs";

    fn all_chars() -> impl Iterator<Item = char> {
        (0..=0x10ffff).filter_map(char::from_u32)
    }

    /// Inclusive ranges of the chars where `f` holds.
    fn ranges(f: impl Fn(char) -> bool) -> Vec<(u32, u32)> {
        let mut out: Vec<(u32, u32)> = Vec::new();
        for c in all_chars().filter(|&c| f(c)) {
            let u = u32::from(c);
            match out.last_mut() {
                Some(r) if r.1 + 1 == u => r.1 = u,
                _ => out.push((u, u)),
            }
        }
        out
    }

    /// The tables, derived from the standard library.
    fn tables() -> String {
        // Runs of chars (stride 1 or 2) whose one-char lowercase is the same offset away.
        let pairs: Vec<(u32, u32)> = all_chars()
            .filter_map(|c| {
                let mut l = c.to_lowercase();
                match (l.next(), l.next()) {
                    (Some(one), None) if one != c => Some((u32::from(c), u32::from(one))),
                    _ => None,
                }
            })
            .collect();
        let mut runs = Vec::new();
        let mut i = 0;
        while let Some(&(c, l)) = pairs.get(i) {
            let delta = i64::from(l) - i64::from(c);
            let run = |stride: u32| {
                (1..128)
                    .take_while(|&n| {
                        pairs.get(i + n).is_some_and(|&(c2, l2)| c2 == c + stride * n as u32 && i64::from(l2) - i64::from(c2) == delta)
                    })
                    .count()
                    + 1
            };
            let (count, stride) = if run(2) > run(1) { (run(2), 2) } else { (run(1), 1) };
            assert!(c <= START);
            runs.push(format!("    (0x{:08x}, {delta}),\n", c | (count as u32 - 1) << 21 | (stride - 1) << 28));
            i += count;
        }
        // What the final sigma needs, read off `str::to_lowercase` itself:
        // "a{x}Σ" ends in ς when x is case-ignorable or cased, "{x}Σ" when
        // it is cased and not case-ignorable.
        let ends_final = |s: String| s.to_lowercase().ends_with('ς');
        let cased = |x: char| ends_final(format!("{x}Σ"));
        let ignorable = |x: char| ends_final(format!("a{x}Σ")) && !cased(x);
        let mut stream = Vec::new();
        let mut at = 0;
        for (a, b) in ranges(ignorable) {
            for mut v in [a - at, b + 1 - a] {
                while v >= 0x80 {
                    stream.push(format!("0x{:02x}", v & 0x7f | 0x80));
                    v >>= 7;
                }
                stream.push(format!("0x{v:02x}"));
            }
            at = b + 1;
        }
        let titlecase = ranges(|x| cased(x) && !x.is_lowercase() && !x.is_uppercase());
        let mut out = String::from("//! Generated by `UPDATE_LOWERCASE=1 cargo test --lib lowercase` from the\n");
        out += "//! standard library's lowercase mapping: do not edit.\n\n";
        out += "/// (first char | (count - 1) << 21 | (stride - 1) << 28, offset to its lowercase).\n";
        out += &format!("pub(super) static LOWER: [(u32, i32); {}] = [\n{}];\n\n", runs.len(), runs.concat());
        out += "/// Case_Ignorable ranges: (gap, length) pairs, LEB128.\n";
        out += &format!("pub(super) static CASE_IGNORABLE: [u8; {}] = [\n", stream.len());
        for line in stream.chunks(16) {
            out += &format!("    {},\n", line.join(", "));
        }
        out += "];\n\n/// Cased chars that are neither lowercase nor uppercase (titlecase letters).\n";
        let titlecase: Vec<String> = titlecase.iter().map(|(a, b)| format!("(0x{a:x}, 0x{b:x})")).collect();
        out += &format!("pub(super) static TITLECASE: [(u32, u32); {}] = [{}];\n", titlecase.len(), titlecase.join(", "));
        out
    }

    #[test]
    fn the_tables_are_the_standard_librarys() {
        let want = tables();
        if std::env::var_os("UPDATE_LOWERCASE").is_some() {
            std::fs::write(PATH, &want).unwrap();
            return;
        }
        let have = std::fs::read_to_string(PATH).unwrap_or_default();
        assert!(have == want, "{PATH} is out of date: run `UPDATE_LOWERCASE=1 cargo test --lib lowercase`");
    }

    #[test]
    fn every_char_lowers_as_the_standard_library_does() {
        let mut ours = String::new();
        for c in all_chars() {
            ours.clear();
            push_lower(&mut ours, c);
            assert!(ours.chars().eq(c.to_lowercase()), "{c:?} (U+{:04X})", u32::from(c));
        }
    }

    #[test]
    fn sigma_beside_every_char_lowers_as_the_standard_library_does() {
        for x in all_chars() {
            for s in [format!("a{x}Σ"), format!("{x}Σ"), format!("aΣ{x}"), format!("aΣ{x}b")] {
                assert_eq!(lowercase(&s), s.to_lowercase(), "U+{:04X}", u32::from(x));
            }
        }
        for s in ["ΟΔΟΣ", "ΟΔΟΣ.", "Σ", "ΣΑ", "ΑΣ'Σ", "Α'Σ'", "ὈΔΥΣΣΕΎΣ", "İSTANBUL ΣΑΣ", "ǅΣ", "a\u{301}Σ\u{301}", ""]
        {
            assert_eq!(lowercase(s), s.to_lowercase(), "{s}");
        }
    }
}
