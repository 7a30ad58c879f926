//! The time a question asks about, from a phrase in it: "last year", "two
//! years ago", "last month", "in March", "in March 2024", "in 2023", 去年,
//! 前年, 上个月, 三年前, 三月, 2024年3月, 2023年. The recall block ranks the
//! facts that held then (`semantic::valid`) above those that did not.
//!
//! Invariants: a span is a whole calendar year or month (UTC) that began
//! at or before `now`; a month named without a year is its latest such
//! month; a phrase that names no past time ("next year", 每个月, "may I")
//! gives none. Words, not patterns: no regex.

use std::ops::Range;

use crate::context::{civil_parts, days_from_civil};

const DAY: f64 = 86_400_000.0;

const MONTHS: &[&str] =
    &["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];
const SHORT_MONTHS: &[&str] = &["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const COUNTS: &[&str] = &["a", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];
/// Words before a month or year that make it a time asked about.
const BEFORE: &[&str] = &["in", "during", "since", "until", "of", "around", "by"];

/// The span `[from, to]` (ms, UTC) a question about the past names, if any.
pub fn asked(query: &str, now: f64) -> Option<(f64, f64)> {
    phrase(query, now).map(|(span, _)| span)
}

/// The span a question names and the query without the phrase that names
/// it: "last year" says when, not what, and its words would weigh in a
/// search for what ("Where did I live last year?" finds "I live in …").
pub fn phrase(query: &str, now: f64) -> Option<((f64, f64), String)> {
    let (year, month, _) = civil_parts((now / DAY).floor() as i64);
    let (span, at) = english(&query.to_ascii_lowercase(), year, month).or_else(|| chinese(query, year, month))?;
    let (from, to) = match span {
        Span::Year(y) => (days_from_civil(y, 1), days_from_civil(y + 1, 1)),
        Span::Month(y, m) => (days_from_civil(y, m), if m == 12 { days_from_civil(y + 1, 1) } else { days_from_civil(y, m + 1) }),
    };
    let from = from as f64 * DAY;
    let rest = format!("{}{}", query.get(..at.start).unwrap_or(""), query.get(at.end..).unwrap_or(""));
    (from <= now).then_some(((from, to as f64 * DAY - 1.0), rest))
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Span {
    Year(i64),
    Month(i64, i64),
}

/// `n` months before `year`-`month`.
fn months_back(year: i64, month: i64, n: i64) -> Span {
    let total = year * 12 + (month - 1) - n;
    Span::Month(total.div_euclid(12), total.rem_euclid(12) + 1)
}

/// The latest `m` at or before `year`-`month`.
fn latest(m: i64, year: i64, month: i64) -> Span {
    Span::Month(if m <= month { year } else { year - 1 }, m)
}

fn english(q: &str, year: i64, month: i64) -> Option<(Span, Range<usize>)> {
    let mut words: Vec<(usize, &str)> = Vec::new();
    let mut start = None;
    for (i, c) in q.char_indices().chain([(q.len(), ' ')]) {
        match (c.is_ascii_alphanumeric(), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                words.extend(q.get(s..i).map(|w| (s, w)));
                start = None;
            }
            _ => {}
        }
    }
    let word = |i: usize| words.get(i).map_or("", |w| w.1);
    // Bytes from word `a` to the end of word `b`.
    let bytes = |a: usize, b: usize| words.get(a).map_or(0, |w| w.0)..words.get(b).map_or(q.len(), |w| w.0 + w.1.len());
    let year_at = |i: usize| word(i).parse::<i64>().ok().filter(|y| word(i).len() == 4 && (1900..=2100).contains(y));
    let preceded = |i: usize| i > 0 && BEFORE.contains(&word(i - 1));
    for i in 0..words.len() {
        let (w, next) = (word(i), word(i + 1));
        if w == "last" && next == "year" {
            return Some((Span::Year(year - 1), bytes(i, i + 1)));
        }
        if w == "last" && next == "month" {
            return Some((months_back(year, month, 1), bytes(i, i + 1)));
        }
        let count =
            COUNTS.iter().position(|c| *c == w).map(|n| n.max(1) as i64).or_else(|| w.parse::<i64>().ok().filter(|n| (1..=50).contains(n)));
        if let Some(n) = count.filter(|_| word(i + 2) == "ago") {
            match next {
                "year" | "years" => return Some((Span::Year(year - n), bytes(i, i + 2))),
                "month" | "months" => return Some((months_back(year, month, n), bytes(i, i + 2))),
                _ => {}
            }
        }
        let named = MONTHS.iter().position(|m| *m == w).or_else(|| SHORT_MONTHS.iter().position(|m| *m == w && w != "may" && w != "mar"));
        if let Some(m) = named.map(|m| m as i64 + 1) {
            let first = if preceded(i) { i - 1 } else { i };
            let after = if next == "of" { i + 2 } else { i + 1 };
            if let Some(y) = year_at(after) {
                return Some((Span::Month(y, m), bytes(first, after)));
            }
            if preceded(i) {
                return Some((latest(m, year, month), bytes(first, i)));
            }
        }
        if let Some(y) = year_at(i).filter(|_| preceded(i)) {
            return Some((Span::Year(y), bytes(i - 1, i)));
        }
    }
    None
}

/// A number written in digits or Chinese numerals, 1 to 99.
fn number(s: &str) -> Option<i64> {
    if let Ok(n) = s.parse::<i64>() {
        return Some(n);
    }
    let digit = |c: char| "零一二三四五六七八九".chars().position(|d| d == c).map(|d| d as i64).or((c == '两').then_some(2));
    let chars: Vec<char> = s.chars().collect();
    match chars.as_slice() {
        [c] => digit(*c).filter(|&d| d > 0).or((*c == '十').then_some(10)),
        ['十', u] => digit(*u).map(|u| 10 + u),
        [t, '十'] => digit(*t).map(|t| t * 10),
        [t, '十', u] => Some(digit(*t)? * 10 + digit(*u)?),
        _ => None,
    }
}

/// The number written just before byte `end` of `q` (up to four digits, or
/// up to three Chinese numerals), and where it starts.
fn number_before(q: &str, end: usize) -> Option<(i64, usize)> {
    let head = q.get(..end)?;
    let digits: String = head.chars().rev().take_while(char::is_ascii_digit).take(4).collect::<Vec<_>>().into_iter().rev().collect();
    let numeral = |c: &char| "零一二三四五六七八九十两".contains(*c);
    let text = if digits.is_empty() {
        head.chars().rev().take_while(numeral).take(3).collect::<Vec<_>>().into_iter().rev().collect()
    } else {
        digits
    };
    Some((number(&text)?, end - text.len()))
}

fn chinese(q: &str, year: i64, month: i64) -> Option<(Span, Range<usize>)> {
    let fixed = [
        ("大前年", Span::Year(year - 3)),
        ("前年", Span::Year(year - 2)),
        ("去年", Span::Year(year - 1)),
        ("上个月", months_back(year, month, 1)),
        ("上月", months_back(year, month, 1)),
    ];
    for (word, span) in fixed {
        if let Some(at) = q.find(word) {
            return Some((span, at..at + word.len()));
        }
    }
    for (at, w) in q.match_indices("年前") {
        if let Some((n, start)) = number_before(q, at) {
            return Some((Span::Year(year - n), start..at + w.len()));
        }
    }
    for (at, w) in q.match_indices("个月前") {
        if let Some((n, start)) = number_before(q, at) {
            return Some((months_back(year, month, n), start..at + w.len()));
        }
    }
    for (at, _) in q.match_indices('月') {
        let Some((m, start)) = number_before(q, at).filter(|(m, _)| (1..=12).contains(m)) else { continue };
        let end = if q.get(at..).is_some_and(|r| r.starts_with("月份")) { at + "月份".len() } else { at + '月'.len_utf8() };
        let year_end = start.checked_sub('年'.len_utf8()).filter(|&i| q.get(i..start) == Some("年"));
        return Some(match year_end.and_then(|e| number_before(q, e)).filter(|(y, _)| *y >= 1900) {
            Some((y, ys)) => (Span::Month(y, m), ys..end),
            None => (latest(m, year, month), start..end),
        });
    }
    for (at, w) in q.match_indices('年') {
        if let Some((y, start)) = number_before(q, at).filter(|(y, _)| (1900..=2100).contains(y)) {
            return Some((Span::Year(y), start..at + w.len()));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 2026-04-15 (UTC).
    const NOW: f64 = 1_776_211_200_000.0;

    fn span(q: &str) -> Option<(String, String)> {
        asked(q, NOW).map(|(f, t)| (crate::context::utc_day(f), crate::context::utc_day(t)))
    }

    #[test]
    fn phrases_in_both_languages() {
        let cases = [
            ("Where did I live last year?", "2025-01-01", "2025-12-31"),
            ("what was my job two years ago", "2024-01-01", "2024-12-31"),
            ("What did I eat last month?", "2026-03-01", "2026-03-31"),
            ("Where was I working in March?", "2026-03-01", "2026-03-31"),
            ("Where was I working in May?", "2025-05-01", "2025-05-31"),
            ("what did I say about my diet in March 2024", "2024-03-01", "2024-03-31"),
            ("where did I live back in 2019", "2019-01-01", "2019-12-31"),
            ("3 months ago, where was I?", "2026-01-01", "2026-01-31"),
            ("我去年住在哪里？", "2025-01-01", "2025-12-31"),
            ("前年我在哪工作", "2024-01-01", "2024-12-31"),
            ("上个月我吃素吗", "2026-03-01", "2026-03-31"),
            ("三年前我住哪", "2023-01-01", "2023-12-31"),
            ("我三月份住在哪", "2026-03-01", "2026-03-31"),
            ("十二月的时候我在哪", "2025-12-01", "2025-12-31"),
            ("2024年3月我在哪家公司", "2024-03-01", "2024-03-31"),
            ("2023年我住在哪", "2023-01-01", "2023-12-31"),
        ];
        for (q, from, to) in cases {
            assert_eq!(span(q), Some((from.to_string(), to.to_string())), "{q}");
        }
    }

    #[test]
    fn the_phrase_leaves_the_query() {
        let rest = |q: &str| phrase(q, NOW).map(|(_, r)| r);
        assert_eq!(rest("Where did I live last year?").as_deref(), Some("Where did I live ?"));
        assert_eq!(rest("where was I working in March of 2024, roughly").as_deref(), Some("where was I working , roughly"));
        assert_eq!(rest("我去年住在哪里？").as_deref(), Some("我住在哪里？"));
        assert_eq!(rest("2024年3月我在哪家公司").as_deref(), Some("我在哪家公司"));
        assert_eq!(rest("我三月份住在哪").as_deref(), Some("我住在哪"));
    }

    #[test]
    fn no_past_time_named() {
        for q in [
            "May I ask where I live?",
            "next year I will move",
            "我每个月都去",
            "我这个月住哪",
            "What's my home city?",
            "我住在哪里？",
            "in 2099 we will see",
            "I have 2024 reasons",
        ] {
            assert_eq!(span(q), None, "{q}");
        }
    }
}
