//! Personal-data scanners, run only when the host asks (`redact: {
//! personal: true }`): emails, phone numbers (Chinese mobile numbers,
//! international `+` numbers, North American numbers), Chinese resident ID
//! numbers (birth date and MOD 11-2 checksum checked) and payment card
//! numbers (issuer prefix, length and Luhn checked).
//!
//! Invariant: a number is matched only as a whole (never digits inside a
//! longer number or word), and only when its checks pass, so order numbers,
//! timestamps and hashes survive: a random 16-digit number passes Luhn one
//! time in ten, so the issuer prefix and length are checked too.

use super::scan::{at, before, is_alnum, is_digit, run, slice, starts, Span};

/// Every personal datum in `b`, in no particular order (they may overlap).
pub fn find(b: &[u8], out: &mut Vec<Span>) {
    let mut i = 0;
    while i < b.len() {
        let c = at(b, i);
        let found = match c {
            b'@' => email(b, i),
            b'+' if !is_alnum(before(b, i)) => international(b, i),
            b'0'..=b'9' | b'(' if number_start(b, i) => {
                cn_id(b, i).or_else(|| card(b, i)).or_else(|| cn_mobile(b, i)).or_else(|| north_american(b, i))
            }
            _ => None,
        };
        match found {
            Some(span) => {
                out.push(span);
                i = span.end.max(i + 1);
            }
            None => i += 1,
        }
    }
}

/// A number may start at `i`: not inside a word, a longer number or a
/// decimal (`3.14159…`), not a `-` suffix of an identifier.
fn number_start(b: &[u8], i: usize) -> bool {
    let p = before(b, i);
    !is_alnum(p) && p != b'.' && p != b'_' && !(p == b'-' && is_alnum(before(b, i - 1)))
}

/// A number ends at `i`: no digit, letter or decimal point follows.
fn number_end(b: &[u8], i: usize) -> bool {
    let c = at(b, i);
    !(is_alnum(c) || c == b'_' || c == b'.' && is_digit(at(b, i + 1)))
}

/// `local@domain.tld`. An SSH remote (`git@host:org/repo`) and a retina
/// image name (`icon@2x.png`) are not addresses.
fn email(b: &[u8], at_sign: usize) -> Option<Span> {
    let local = |c: u8| is_alnum(c) || matches!(c, b'.' | b'_' | b'%' | b'+' | b'-');
    let mut start = at_sign;
    while start > 0 && local(before(b, start)) {
        start -= 1;
    }
    let start = start + slice(b, start, at_sign).iter().take_while(|&&c| c == b'.').count();
    if start == at_sign || matches!(before(b, start), b'/' | b':') {
        return None;
    }
    let mut end = run(b, at_sign + 1, |c| is_alnum(c) || c == b'.' || c == b'-');
    while end > at_sign + 1 && matches!(at(b, end - 1), b'.' | b'-') {
        end -= 1;
    }
    let domain = slice(b, at_sign + 1, end);
    let dot = domain.iter().rposition(|&c| c == b'.')?;
    let tld = domain.get(dot + 1..).unwrap_or(&[]);
    const FILES: [&[u8]; 6] = [b"png", b"jpg", b"jpeg", b"gif", b"svg", b"webp"];
    let ssh_remote = at(b, end) == b':' && (is_alnum(at(b, end + 1)) || at(b, end + 1) == b'~');
    (dot > 0 && tld.len() >= 2 && tld.iter().all(u8::is_ascii_alphabetic) && !FILES.contains(&tld) && !ssh_remote).then_some(Span {
        start,
        end,
        kind: "email",
    })
}

/// Digits from `i` with single separators in `seps` between groups, up
/// to just past `max` digits: where they end, the digits, and where each
/// group ends (a separator's position, then the end).
fn grouped(b: &[u8], i: usize, seps: &[u8], max: usize) -> (usize, Vec<u8>, Vec<usize>) {
    let (mut j, mut digits, mut group_ends) = (i, Vec::new(), Vec::new());
    while digits.len() <= max {
        let c = at(b, j);
        if is_digit(c) {
            digits.push(c - b'0');
            j += 1;
        } else if seps.contains(&c) && is_digit(at(b, j + 1)) && j > i && is_digit(at(b, j - 1)) {
            group_ends.push(j);
            j += 1;
        } else {
            break;
        }
    }
    group_ends.push(j);
    (j, digits, group_ends)
}

/// A Chinese resident ID: 17 digits and a check character (digit or X),
/// a plausible birth date at 7..15, and the ISO 7064 MOD 11-2 checksum.
fn cn_id(b: &[u8], i: usize) -> Option<Span> {
    let end = run(b, i, is_digit);
    let (end, check) = match end - i {
        17 if matches!(at(b, end), b'X' | b'x') => (end + 1, 10),
        18 => (end, u32::from(at(b, end - 1) - b'0')),
        _ => return None,
    };
    if !number_end(b, end) {
        return None;
    }
    let d: Vec<u32> = slice(b, i, i + 17).iter().map(|&c| u32::from(c - b'0')).collect();
    let num = |from: usize, n: usize| d.iter().skip(from).take(n).fold(0, |a, &x| a * 10 + x);
    let (year, month, day) = (num(6, 4), num(10, 2), num(12, 2));
    const WEIGHTS: [u32; 17] = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
    let sum: u32 = d.iter().zip(WEIGHTS).map(|(x, w)| x * w).sum();
    const CHECK: [u32; 11] = [1, 0, 10, 9, 8, 7, 6, 5, 4, 3, 2];
    let valid = (1900..=2099).contains(&year)
        && (1..=12).contains(&month)
        && (1..=31).contains(&day)
        && CHECK.get((sum % 11) as usize) == Some(&check);
    valid.then_some(Span { start: i, end, kind: "cn-id" })
}

/// A payment card number: 13 to 19 digits, optionally in groups split by
/// single spaces or dashes, with a known issuer prefix and length and a
/// valid Luhn digit. The longest valid run of whole groups wins, so a year
/// after the number does not hide it.
fn card(b: &[u8], i: usize) -> Option<Span> {
    let (_, digits, group_ends) = grouped(b, i, b" -", 19);
    let mut count = 0;
    let mut candidates = Vec::new();
    for (g, &end) in group_ends.iter().enumerate() {
        let prev = if g == 0 { i } else { group_ends.get(g - 1).map_or(i, |&e| e + 1) };
        count += end - prev;
        candidates.push((end, count));
    }
    candidates.into_iter().rev().find_map(|(end, n)| {
        let d = digits.get(..n)?;
        (number_end(b, end) && issuer_fits(d) && luhn(d)).then_some(Span { start: i, end, kind: "card-number" })
    })
}

/// Whether the digits start with a card issuer's prefix at a length it issues.
fn issuer_fits(d: &[u8]) -> bool {
    let n = d.len();
    let prefix = |k: usize| d.iter().take(k).fold(0u32, |a, &x| a * 10 + u32::from(x));
    match prefix(1) {
        4 => matches!(n, 13 | 16 | 19),
        5 => (51..=55).contains(&prefix(2)) && n == 16,
        2 => (2221..=2720).contains(&prefix(4)) && n == 16,
        3 => match prefix(2) {
            34 | 37 => n == 15,
            35 => (3528..=3589).contains(&prefix(4)) && (16..=19).contains(&n),
            36 | 38 | 39 => (14..=19).contains(&n),
            30 => (300..=305).contains(&prefix(3)) && (14..=19).contains(&n),
            _ => false,
        },
        6 => (prefix(4) == 6011 || prefix(2) == 65 || (644..=649).contains(&prefix(3)) || prefix(2) == 62) && (16..=19).contains(&n),
        _ => false,
    }
}

fn luhn(d: &[u8]) -> bool {
    let sum: u32 = d
        .iter()
        .rev()
        .enumerate()
        .map(|(k, &x)| {
            let x = u32::from(x);
            if k % 2 == 1 {
                if x * 2 > 9 {
                    x * 2 - 9
                } else {
                    x * 2
                }
            } else {
                x
            }
        })
        .sum();
    sum % 10 == 0
}

/// A Chinese mobile number: 11 digits starting 13 to 19, whole or split
/// 3-4-4 by spaces or dashes, optionally after `86`/`0086` (`+86` is an
/// international number).
fn cn_mobile(b: &[u8], i: usize) -> Option<Span> {
    let prefix = if starts(b, i, b"0086") {
        4
    } else if starts(b, i, b"86") {
        2
    } else {
        0
    };
    [prefix, 0].into_iter().find_map(|p| {
        let j = i + p;
        let j = j + usize::from(p > 0 && matches!(at(b, j), b' ' | b'-'));
        if at(b, j) != b'1' || !matches!(at(b, j + 1), b'3'..=b'9') {
            return None;
        }
        let (end, digits, groups) = grouped(b, j, b" -", 11);
        let shape = groups.len() == 1 || groups == [j + 3, j + 8, j + 13];
        (digits.len() == 11 && shape && number_end(b, end)).then_some(Span { start: i, end, kind: "phone" })
    })
}

/// `+` and a country code, then 7 to 14 more digits in groups split by
/// spaces, dashes, dots or one pair of parentheses.
fn international(b: &[u8], i: usize) -> Option<Span> {
    if !matches!(at(b, i + 1), b'1'..=b'9') {
        return None;
    }
    let mut j = i + 1;
    let mut digits = 0;
    while j < b.len() {
        let c = at(b, j);
        if is_digit(c) {
            digits += 1;
        } else if !(matches!(c, b' ' | b'-' | b'.' | b'(' | b')') && (is_digit(at(b, j + 1)) || matches!(at(b, j + 1), b'(' | b' '))) {
            break;
        }
        j += 1;
    }
    while j > i && !is_digit(at(b, j - 1)) {
        j -= 1;
    }
    ((8..=15).contains(&digits) && number_end(b, j)).then_some(Span { start: i, end: j, kind: "phone" })
}

/// `(415) 555-0132`, `415-555-0132`, `415.555.0132`: area code 2-9, and
/// separators required, so a bare ten-digit number is not a phone.
fn north_american(b: &[u8], i: usize) -> Option<Span> {
    let (area, mut j) = if at(b, i) == b'(' { (i + 1, i + 5) } else { (i, i + 3) };
    if run(b, area, is_digit) != area + 3 || !matches!(at(b, area), b'2'..=b'9') || (area > i && at(b, j - 1) != b')') {
        return None;
    }
    let sep = at(b, j);
    if !matches!(sep, b' ' | b'-' | b'.') && area == i {
        return None;
    }
    j += usize::from(matches!(sep, b' ' | b'-' | b'.'));
    if run(b, j, is_digit) != j + 3 || !matches!(at(b, j + 3), b'-' | b'.' | b' ') || run(b, j + 4, is_digit) != j + 8 {
        return None;
    }
    number_end(b, j + 8).then_some(Span { start: i, end: j + 8, kind: "phone" })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        find(text.as_bytes(), &mut out);
        out.into_iter().map(|s| (s.kind, text[s.start..s.end].to_string())).collect()
    }

    #[test]
    fn each_kind() {
        assert_eq!(found("mail ada.l+x@example.co.uk."), [("email", "ada.l+x@example.co.uk".to_string())]);
        assert_eq!(found("手机13800138000。"), [("phone", "13800138000".to_string())]);
        assert_eq!(found("call 138-0013-8000"), [("phone", "138-0013-8000".to_string())]);
        assert_eq!(found("tel +1 (415) 555-0132"), [("phone", "+1 (415) 555-0132".to_string())]);
        assert_eq!(found("(415) 555-0132"), [("phone", "(415) 555-0132".to_string())]);
        assert_eq!(found("身份证11010519491231002X"), [("cn-id", "11010519491231002X".to_string())]);
        assert_eq!(found("card 4111 1111 1111 1111 2024"), [("card-number", "4111 1111 1111 1111".to_string())]);
    }

    #[test]
    fn look_alikes_survive() {
        for text in [
            "git@github.com:acme/web.git",
            "icon@2x.png",
            "11010519491231002Y",
            "110105194912310021",
            "4111111111111112",
            "9111111111111111",
            "1700000000000",
            "3.14159265358979",
            "JD13800138000",
            "ORD-2024-13800138000x",
            "订单号2024031512345678",
        ] {
            assert!(found(text).is_empty(), "{text}: {:?}", found(text));
        }
    }
}
