//! Text → index terms, the same way for documents and queries.
//!
//! Invariants: pure and deterministic (no locale, no tables loaded at run
//! time); every emitted term is non-empty, lowercase and at most
//! [`MAX_TERM_BYTES`] long; terms come out in text order.
//!
//! - Latin and other spaced scripts: words are maximal runs of letters,
//!   digits and combining marks, joined across one inner connector
//!   (`_ - . : / @`), so `snake_case`, `kebab-case`, `a.b.c`, `8:00`,
//!   `2024-05-01` and `bob@example.com` are single tokens. A token is split
//!   into parts at connectors, `camelCase` humps and letter/digit changes
//!   (`iPhone15` → `i phone 15`); each part is a term, and a token of two or
//!   more parts is also kept whole (`iphone15`), so the exact identifier
//!   outranks a bag of its parts. `'s` is dropped, other apostrophes join
//!   (`don't` → `dont`). Parts that are ASCII words get a light
//!   suffix stemmer (see `stem`) and a tiny stop-word filter; the whole
//!   token gets neither.
//! - Scripts written without spaces (Han, kana, Hangul, Thai, Lao, Khmer,
//!   Myanmar): every char is a unigram and every two adjacent chars of such a
//!   run a bigram. Bigrams carry the precision of words; unigrams recall
//!   single-char words and paraphrases that share no bigram (measured on
//!   `tests/fixtures/retrieval`, see its README).
//! - Full-width ASCII (`ＡＢＣ１２３`) is folded to ASCII first, since Chinese
//!   input methods produce both.
//! - Everything else (spaces, punctuation, symbols, emoji) only separates
//!   terms. A comma is not a connector, so `1,850` is `1` and `850`.

/// Longer terms are truncated (at a char boundary): a 2 KB base64 blob is
/// not a useful term, and a cap bounds vocabulary memory.
pub const MAX_TERM_BYTES: usize = 64;

/// English function words that carry no topic in chat text, sorted for
/// binary search. Kept tiny on purpose: BM25's idf already discounts common
/// words. Dropping them still helped (2 English questions of the fixture
/// set, see its README) and keeps their long postings off the query path.
const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "of", "on", "or", "so", "such", "that",
    "the", "their", "then", "there", "these", "they", "this", "to", "was", "will", "with",
];

/// Calls `emit` once per term of `text`, in text order.
pub fn analyze(text: &str, mut emit: impl FnMut(&str)) {
    let chars: Vec<char> = text.chars().map(fold_width).collect();
    let mut term = String::new();
    // One set of buffers for every word of the text, not one per word.
    let mut scratch = Scratch::default();
    let mut i = 0;
    while let Some(&c) = chars.get(i) {
        if is_unspaced(c) {
            // A run of unspaced-script chars: unigrams and adjacent bigrams.
            let mut prev = None;
            while let Some(&c) = chars.get(i).filter(|&&c| is_unspaced(c)) {
                push_lower(&mut term, c);
                emit(&term);
                if let Some(p) = prev {
                    term.clear();
                    push_lower(&mut term, p);
                    push_lower(&mut term, c);
                    emit(&term);
                }
                prev = Some(c);
                term.clear();
                i += 1;
            }
        } else if is_word_char(c) {
            i = word(&chars, i, &mut term, &mut scratch, &mut emit);
        } else {
            i += 1;
        }
    }
}

/// What `word` works in: `token` holds a token's chars minus dropped
/// apostrophes and clitics; `after_connector` the positions in it of
/// connector chars, which split parts but stay in the whole form; `parts`
/// the part ranges.
#[derive(Default)]
struct Scratch {
    token: Vec<char>,
    after_connector: Vec<usize>,
    parts: Vec<(usize, usize)>,
}

/// Scans the token starting at `start`, emits its terms, returns where it ends.
fn word(chars: &[char], start: usize, term: &mut String, scratch: &mut Scratch, emit: &mut impl FnMut(&str)) -> usize {
    let Scratch { token, after_connector, parts } = scratch;
    token.clear();
    after_connector.clear();
    let mut i = start;
    while let Some(&c) = chars.get(i) {
        if is_word_char(c) && !is_unspaced(c) {
            token.push(c);
            i += 1;
            continue;
        }
        let next = chars.get(i + 1).copied();
        let joins = next.is_some_and(|n| is_word_char(n) && !is_unspaced(n));
        if is_apostrophe(c) && joins {
            let after = chars.get(i + 2).copied();
            let clitic_s = matches!(next, Some('s' | 'S')) && !after.is_some_and(|a| is_word_char(a) && !is_unspaced(a));
            // `user's` → `user`; `don't` → `dont`.
            i += if clitic_s { 2 } else { 1 };
        } else if is_connector(c) && joins {
            after_connector.push(token.len());
            token.push(c);
            i += 1;
        } else {
            break;
        }
    }
    split_parts(token, after_connector, parts);
    for &(a, b) in parts.iter() {
        term.clear();
        for &c in token.get(a..b).unwrap_or_default() {
            push_lower(term, c);
        }
        if let Some(t) = filter_part(term) {
            emit(t);
        }
    }
    if parts.len() > 1 {
        term.clear();
        for &c in token.iter() {
            push_lower(term, c);
        }
        emit(truncate(term));
    }
    term.clear();
    i
}

/// Part ranges of a token: split at connectors, at lower→Upper humps, before
/// the last capital of an acronym followed by lowercase (`HTTPServer` →
/// `HTTP Server`), and where letters meet digits.
fn split_parts(token: &[char], connectors: &[usize], parts: &mut Vec<(usize, usize)>) {
    parts.clear();
    let mut start = 0;
    let mut conn = connectors.iter().peekable();
    for (j, &c) in token.iter().enumerate() {
        if conn.peek() == Some(&&j) {
            conn.next();
            if j > start {
                parts.push((start, j));
            }
            start = j + 1;
            continue;
        }
        let Some(&p) = token.get(j.wrapping_sub(1)).filter(|_| j > start) else { continue };
        let hump = p.is_lowercase() && c.is_uppercase();
        let acronym_end = p.is_uppercase() && c.is_uppercase() && token.get(j + 1).is_some_and(|n| n.is_lowercase());
        let digit_edge = p.is_numeric() != c.is_numeric();
        if hump || acronym_end || digit_edge {
            parts.push((start, j));
            start = j;
        }
    }
    if start < token.len() {
        parts.push((start, token.len()));
    }
}

/// Stop-word filter, stemmer and length cap for one lowercased part.
fn filter_part(part: &mut String) -> Option<&str> {
    if STOP_WORDS.binary_search(&part.as_str()).is_ok() {
        return None;
    }
    stem(part);
    Some(truncate(part))
}

/// A light English stemmer, in place, for lowercase ASCII words of four
/// letters or more. Plurals: `-ies` → `-y`, `-sses` → `-ss`, `-ches -shes
/// -xes` lose `-es`, any other `-s` goes except after `s u i` (`class`,
/// `bus`, `analysis`). Then `-ing` / `-ed` go when a vowel stays before
/// them (`fostering` → `foster`, `planned` → `plan`), and a final `-e`
/// goes (`base`, `based` → `bas`), so a word and its inflections meet.
/// It conflates a little more than a dictionary would (`bread` → `bre`);
/// the same rule runs on documents and queries, so that only costs
/// precision where two such words collide. Measured on
/// `tests/fixtures/retrieval` against no stemming: 4 English questions
/// found in the top 10 that were not, 1 lost (`meetings` now meets every
/// `meeting`), net +3 of 112 (see its README).
fn stem(word: &mut String) {
    let w = word.as_bytes();
    let n = w.len();
    if n < 4 || !w.iter().all(u8::is_ascii_lowercase) {
        return;
    }
    let from_end = |k: usize| w.get(n.wrapping_sub(k)).copied().unwrap_or(0);
    if n > 4 && w.ends_with(b"ies") && !matches!(from_end(4), b'a' | b'e') {
        word.truncate(n - 3);
        word.push('y');
    } else if w.ends_with(b"sses") || w.ends_with(b"ches") || w.ends_with(b"shes") || w.ends_with(b"xes") {
        word.truncate(n - 2);
    } else if from_end(1) == b's' && !matches!(from_end(2), b's' | b'u' | b'i') {
        word.truncate(n - 1);
    }
    let w = word.as_bytes();
    let n = w.len();
    let has_vowel = |s: &[u8]| s.iter().any(|c| b"aeiouy".contains(c));
    let cut = if n >= 6 && w.strip_suffix(b"ing").is_some_and(has_vowel) {
        3
    } else if n >= 5 && w.strip_suffix(b"ed").is_some_and(has_vowel) {
        2
    } else {
        0
    };
    if cut > 0 {
        word.truncate(n - cut);
        // `running` → `runn` → `run`; `called` keeps its `ll`.
        if let [.., a, b] = *word.as_bytes() {
            if a == b && !b"aeioulsz".contains(&b) {
                word.truncate(word.len() - 1);
            }
        }
    }
    if word.len() >= 4 && word.ends_with('e') {
        word.pop();
    }
}

fn truncate(term: &mut String) -> &str {
    if term.len() > MAX_TERM_BYTES {
        let mut end = MAX_TERM_BYTES;
        while !term.is_char_boundary(end) {
            end -= 1;
        }
        term.truncate(end);
    }
    term
}

fn push_lower(buf: &mut String, c: char) {
    if c.is_ascii() {
        buf.push(c.to_ascii_lowercase());
    } else if is_unspaced(c) {
        // Scripts without case (CJK, kana, Hangul, Thai, …): no table lookup.
        buf.push(c);
    } else {
        crate::lowercase::push_lower(buf, c);
    }
}

/// U+FF01..=U+FF5E are full-width forms of ASCII `!`..=`~`.
fn fold_width(c: char) -> char {
    match c as u32 {
        0xFF01..=0xFF5E => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
        _ => c,
    }
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || is_combining_mark(c)
}

/// Combining marks are not alphanumeric in `char`'s sense, but `é` written
/// as `e` + U+0301 is one letter and must not split its word.
fn is_combining_mark(c: char) -> bool {
    matches!(c as u32, 0x0300..=0x036F | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x20D0..=0x20FF | 0xFE20..=0xFE2F)
}

fn is_connector(c: char) -> bool {
    matches!(c, '_' | '-' | '.' | ':' | '/' | '@')
}

fn is_apostrophe(c: char) -> bool {
    matches!(c, '\'' | '\u{2019}')
}

/// Scripts written without spaces between words, where a "word" from the
/// Latin rules would be a whole clause.
pub(crate) fn is_unspaced(c: char) -> bool {
    matches!(c as u32,
        0x3005 | 0x3007                 // 々 〇
        | 0x3040..=0x30FF               // hiragana, katakana
        | 0x31F0..=0x31FF               // katakana phonetic extensions
        | 0x3400..=0x4DBF               // CJK extension A
        | 0x4E00..=0x9FFF               // CJK unified ideographs
        | 0xF900..=0xFAFF               // CJK compatibility ideographs
        | 0x20000..=0x3134F             // CJK extensions B..G
        | 0x1100..=0x11FF | 0x3130..=0x318F | 0xAC00..=0xD7AF // Hangul
        | 0x0E00..=0x0EFF               // Thai, Lao
        | 0x1000..=0x109F               // Myanmar
        | 0x1780..=0x17FF               // Khmer
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unspaced_scripts_have_no_case_so_lowering_skips_them() {
        for c in (0..=0x3134Fu32).filter_map(char::from_u32).filter(|&c| is_unspaced(c)) {
            assert!(c.to_lowercase().eq([c]), "{c:?} has a lowercase form");
        }
    }

    fn terms(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        analyze(text, |t| out.push(t.to_string()));
        out
    }

    #[test]
    fn stop_words_are_sorted_for_binary_search() {
        assert!(STOP_WORDS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn latin_words_fold_case_drop_stop_words_and_stem() {
        assert_eq!(terms("The Quick brown FOXES are running"), ["quick", "brown", "fox", "run"]);
        assert_eq!(terms("Emma's dog doesn't bark"), ["emma", "dog", "doesnt", "bark"]);
        assert_eq!(terms("cities, classes, buses, fostering, planned, called"), ["city", "class", "bus", "foster", "plan", "call"]);
    }

    #[test]
    fn identifiers_split_into_parts_and_stay_whole() {
        assert_eq!(terms("getUserName"), ["get", "user", "nam", "getusername"]);
        assert_eq!(terms("HTTPServer"), ["http", "server", "httpserver"]);
        assert_eq!(terms("deploy_prod.sh"), ["deploy", "prod", "sh", "deploy_prod.sh"]);
        assert_eq!(terms("ui-kit"), ["ui", "kit", "ui-kit"]);
        assert_eq!(terms("AWS_PROFILE=billing"), ["aws", "profil", "aws_profile", "bill"]);
    }

    #[test]
    fn numbers_are_terms_and_keep_their_punctuation_whole() {
        assert_eq!(terms("CA1234 at 8:40, pi 3.14."), ["ca", "1234", "ca1234", "8", "40", "8:40", "pi", "3", "14", "3.14"]);
        assert_eq!(terms("2024-05-01"), ["2024", "05", "01", "2024-05-01"]);
    }

    #[test]
    fn cjk_runs_give_unigrams_and_bigrams() {
        assert_eq!(terms("航班起飞"), ["航", "班", "航班", "起", "班起", "飞", "起飞"]);
        assert_eq!(terms("周五，8点"), ["周", "五", "周五", "8", "点"]);
        assert_eq!(terms("カタカナ"), ["カ", "タ", "カタ", "カ", "タカ", "ナ", "カナ"]);
        assert_eq!(terms("한국어 공부"), ["한", "국", "한국", "어", "국어", "공", "부", "공부"]);
    }

    #[test]
    fn mixed_scripts_in_one_string() {
        assert_eq!(terms("我的航班CA1234"), ["我", "的", "我的", "航", "的航", "班", "航班", "ca", "1234", "ca1234"]);
        assert_eq!(terms("用 React 写 fetchAvatarUrl"), ["用", "react", "写", "fetch", "avatar", "url", "fetchavatarurl"]);
    }

    #[test]
    fn full_width_ascii_folds_to_ascii() {
        assert_eq!(terms("ＣＡ１２３４"), terms("CA1234"));
    }

    #[test]
    fn combining_marks_stay_in_their_word() {
        assert_eq!(terms("cafe\u{301} au lait"), ["cafe\u{301}", "au", "lait"]);
    }

    #[test]
    fn long_terms_are_capped_at_a_char_boundary() {
        let long = "é".repeat(100);
        let t = terms(&long);
        assert_eq!(t.len(), 1);
        assert!(t[0].len() <= MAX_TERM_BYTES && t[0].len() >= MAX_TERM_BYTES - 1);
    }

    #[test]
    fn nothing_from_punctuation_and_space() {
        assert!(terms("  ...!?，。  ").is_empty());
        assert!(terms("").is_empty());
    }
}
