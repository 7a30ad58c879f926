//! What one sentence carries, as the extractive summarizer weighs it: its
//! content terms, whether it is small talk, and the marks of information
//! (numbers and quantities, dates and times, names of things).
//!
//! Invariants: a pure function of the sentence text, no state and no
//! tables beyond the short word lists (`words.rs`; the wasm is size-budgeted), so
//! a summary is deterministic. English lists are lowercase and matched on
//! whole words; Chinese lists are matched as substrings of a run of Han
//! characters, the longest first.

use crate::retrieval::is_unspaced;

mod words;
use words::*;

/// What a sentence carries.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Signals {
    /// Distinct content terms: lowercase English words that are not in the
    /// empty lists, and bigrams of what is left of each Han run.
    pub terms: Vec<String>,
    /// The terms' hashes (`str_hash`), ascending: what `repeats` compares.
    pub keys: Vec<u64>,
    /// Nothing is left once greetings, thanks, particles, function words and
    /// the person addressed are taken out, and there is no number or date.
    pub small_talk: bool,
    /// Digits, or a Chinese number with its unit.
    pub number: bool,
    /// A month, weekday, relative day or a Chinese date or time.
    pub time: bool,
    /// Capitalised words that do not start the sentence and do not address
    /// someone: people, places, products.
    pub names: usize,
    pub question: bool,
}

/// What a term says, against an English word: a Han bigram about half as
/// much (a Chinese clause yields a bigram per character, English a word
/// per two or three).
pub(super) fn term_weight(term: &str) -> f64 {
    if term.chars().next().is_some_and(is_han) {
        0.5
    } else {
        1.0
    }
}

fn is_han(c: char) -> bool {
    is_unspaced(c) && !matches!(c as u32, 0xAC00..=0xD7AF | 0x1100..=0x11FF | 0x3130..=0x318F)
}

fn is_word_char(c: char) -> bool {
    (c.is_alphanumeric() && !is_han(c)) || c == '_' || c == '\'' || c == '\u{2019}'
}

/// The hashes of the terms a sentence gave so far (`str_hash`; two terms
/// of one sentence hashing alike would keep only the first).
#[derive(Default)]
struct Taken(crate::retrieval::hash::FxHashSet<u64>);

impl Taken {
    /// Appends `term` to the sentence's terms (and its hash to its keys)
    /// unless it was taken already.
    fn push(&mut self, s: &mut Signals, term: &str) {
        let key = crate::retrieval::hash::str_hash(term);
        if self.0.insert(key) {
            s.terms.push(term.to_string());
            s.keys.push(key);
        }
    }
}

/// Reads `sentence`.
pub(super) fn signals(sentence: &str) -> Signals {
    let chars: Vec<char> = sentence.chars().collect();
    let mut s = Signals { question: sentence.ends_with(['?', '？']), ..Signals::default() };
    let (mut content, mut han) = (0, 0);
    let mut addressed_zh = false;
    // The terms taken, by hash: a long unpunctuated run (a pasted log, a
    // Han run of a thousand characters) made the check of each new term
    // against the list quadratic, a tenth of `add` natively.
    let mut taken = Taken::default();
    let mut i = 0;
    let mut prev_word: Option<String> = None;
    let mut seen_text = false;
    while let Some(&c) = chars.get(i) {
        if is_han(c) {
            let start = i;
            while chars.get(i).is_some_and(|&c| is_han(c)) {
                i += 1;
            }
            let run: String = chars.get(start..i).unwrap_or_default().iter().collect();
            let digit_before = start.checked_sub(1).and_then(|p| chars.get(p)).is_some_and(char::is_ascii_digit);
            han += han_run(&run, digit_before, &mut s, &mut taken, &mut addressed_zh);
            seen_text = true;
            prev_word = None;
        } else if is_word_char(c) && c != '\'' {
            let start = i;
            while chars.get(i).is_some_and(|&c| is_word_char(c)) {
                i += 1;
            }
            let word: String = chars.get(start..i).unwrap_or_default().iter().collect();
            let word = word.trim_end_matches(['\'', '\u{2019}']).replace('\u{2019}', "'");
            let lower = crate::lowercase::lowercase(&word);
            let lower = lower.strip_suffix("'s").unwrap_or(&lower).to_string();
            let capital = word.chars().next().is_some_and(char::is_uppercase);
            // camelCase, iOS, HSK, TP1351: an identifier wherever it stands.
            let coined = word.chars().skip(1).any(char::is_uppercase);
            let addressed =
                capital && (prev_word.as_deref().is_some_and(|p| ADDRESS_EN.contains(&p)) || last_after_comma(&chars, start, i));
            s.number |= word.chars().any(|c| c.is_ascii_digit()) || NUMBERS_EN.contains(&lower.as_str());
            s.time |= TIME_EN.contains(&lower.as_str()) || word == "May" && seen_text;
            let empty = EMPTY_EN.contains(&lower.as_str()) || lower.chars().count() < 2 && !s.number;
            if (capital && seen_text || coined) && !addressed && !empty {
                s.names += 1;
            }
            if !empty && !addressed {
                content += 1;
                taken.push(&mut s, &lower);
            }
            seen_text = true;
            prev_word = Some(lower);
        } else {
            // A digit after Han text is counted where the Han run is read; here only ASCII.
            i += 1;
        }
    }
    s.number |= chars.iter().any(char::is_ascii_digit);
    // Two Han characters left beside a greeting are a name ("你好小雨！", "谢谢小雨").
    if han > 2 || han > 0 && !addressed_zh {
        content += han;
    }
    s.small_talk = content == 0 && !s.number && !s.time;
    crate::sort::sort_keys(&mut s.keys);
    s
}

/// Is the word at `start..end` the sentence's last, right after a comma
/// ("That's great, Caroline!")?
fn last_after_comma(chars: &[char], start: usize, end: usize) -> bool {
    let before = chars.get(..start).unwrap_or_default().iter().rev().find(|c| !c.is_whitespace());
    let after = chars.get(end..).unwrap_or_default();
    matches!(before, Some(',' | '，')) && !after.iter().any(|&c| c.is_alphanumeric())
}

/// Reads one run of Han characters into `s` (`digit_before`: an ASCII
/// digit sits right before it, as in "4月17号"); returns how many of its
/// characters are content.
fn han_run(run: &str, digit_before: bool, s: &mut Signals, taken: &mut Taken, addressed: &mut bool) -> usize {
    s.time |= TIME_ZH.iter().any(|w| run.contains(w));
    let mut kept: Vec<Vec<char>> = vec![Vec::new()];
    let mut prev = if digit_before { Some('0') } else { None };
    let mut rest = run;
    while let Some(c) = rest.chars().next() {
        let next = rest.chars().nth(1);
        let numeral = prev.is_some_and(|p| p.is_ascii_digit() || ZH_NUMERALS.contains(p) && p != '一');
        if numeral && "年月日号点".contains(c) || c == '周' && next.is_some_and(|n| "一二三四五六日天末".contains(n)) {
            s.time = true;
        } else if numeral && ZH_UNITS.contains(c) {
            s.number = true;
        }
        prev = Some(c);
        if let Some(w) = EMPTY_ZH.iter().find(|w| rest.starts_with(*w)) {
            *addressed |= ADDRESS_ZH.contains(w);
            prev = w.chars().last();
            rest = rest.get(w.len()..).unwrap_or_default();
            kept.push(Vec::new());
            continue;
        }
        if let Some(last) = kept.last_mut() {
            last.push(c);
        }
        rest = rest.get(c.len_utf8()..).unwrap_or_default();
    }
    let mut content = 0;
    for piece in kept.iter().filter(|p| !p.is_empty()) {
        content += piece.len();
        let grams: Vec<String> =
            if piece.len() == 1 { vec![piece.iter().collect()] } else { piece.windows(2).map(|w| w.iter().collect()).collect() };
        for g in grams {
            taken.push(s, &g);
        }
    }
    // One character alone says little.
    if content <= 1 {
        0
    } else {
        content
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn greetings_thanks_and_acknowledgements_are_small_talk_in_both_languages() {
        for s in [
            "Hey Mel!",
            "How have you been?",
            "Thanks, Melanie!",
            "Wow, Melanie!",
            "Wow, that's great!",
            "That's great, Caroline!",
            "Noted, I'll keep that in mind.",
            "Okay.",
            "哈哈",
            "好的谢谢",
            "好的，记下了。",
            "了解，我会记住的。",
            "你好小雨！",
            "太周到了，谢谢！",
            "ok 好的，thanks！",
        ] {
            assert!(signals(s).small_talk, "{s}: {:?}", signals(s));
        }
    }

    #[test]
    fn statements_with_things_in_them_are_not() {
        for s in
            ["Hey Mel, I ran a charity race in Boston.", "我在成都", "微辣可以，中辣以上就受不了了。", "Daniel likes it.", "See you at 7."]
        {
            assert!(!signals(s).small_talk, "{s}: {:?}", signals(s));
        }
    }

    #[test]
    fn dates_numbers_and_names_are_marked() {
        let s = signals("Booked a table at Casa Aurora for the 11th, the night before I fly out.");
        assert!(s.number && s.names == 2 && !s.time, "{s:?}");
        assert!(signals("Let's meet on Friday").time);
        assert!(signals("上周六去爬了山").time);
        assert!(signals("3月5日交房租").time);
        assert!(signals("周三下午开会").time);
        assert!(signals("贷款六十万，三十年").number);
        assert!(!signals("我有一个问题").number, "一个 is 'a', not a quantity");
        // The person addressed is not a name worth keeping.
        assert_eq!(signals("Hey Mel, how was Paris?").names, 1);
        assert!(signals("Is that right?").question);
        assert!(signals("no running for six weeks").number);
        assert_eq!(signals("fetchWithBackoff fails on iOS").names, 2, "identifiers count wherever they stand");
    }

    #[test]
    fn terms_are_content_words_and_han_bigrams() {
        assert_eq!(signals("I love the blue Mazda's seats").terms, ["blue", "mazda", "seats"]);
        assert_eq!(signals("我对花生过敏").terms, ["对花", "花生", "生过", "过敏"]);
    }
}
