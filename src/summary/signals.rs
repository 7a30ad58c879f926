//! What one sentence carries, as the extractive summarizer weighs it: its
//! content terms, whether it is small talk, and the marks of information
//! (numbers and quantities, dates and times, names of things).
//!
//! Invariants: a pure function of the sentence text, no state and no
//! tables beyond the short word lists here (the wasm is size-budgeted), so
//! a summary is deterministic. English lists are lowercase and matched on
//! whole words; Chinese lists are matched as substrings of a run of Han
//! characters, the longest first.

use crate::retrieval::is_unspaced;

/// English words that say nothing alone: function words, and the words of
/// greetings, thanks, acknowledgements and exclamations. A sentence made of
/// these only ("How have you been?", "Wow, that's great!") is small talk.
const EMPTY_EN: &[&str] = &[
    "a",
    "about",
    "actually",
    "after",
    "again",
    "ah",
    "all",
    "also",
    "always",
    "am",
    "amazing",
    "an",
    "and",
    "any",
    "anything",
    "are",
    "aren't",
    "as",
    "at",
    "aw",
    "awesome",
    "back",
    "be",
    "been",
    "being",
    "best",
    "bit",
    "but",
    "by",
    "bye",
    "can",
    "can't",
    "care",
    "cheers",
    "congrats",
    "congratulations",
    "cool",
    "could",
    "day",
    "dear",
    "did",
    "didn't",
    "do",
    "does",
    "doesn't",
    "doing",
    "don't",
    "done",
    "either",
    "enjoy",
    "even",
    "everything",
    "evening",
    "exactly",
    "fantastic",
    "feel",
    "fine",
    "for",
    "from",
    "fun",
    "get",
    "glad",
    "go",
    "going",
    "good",
    "goodbye",
    "got",
    "great",
    "guess",
    "had",
    "haha",
    "hahaha",
    "happy",
    "has",
    "have",
    "having",
    "he",
    "hear",
    "hello",
    "her",
    "here",
    "hey",
    "hi",
    "him",
    "his",
    "hope",
    "how",
    "how's",
    "i",
    "i'd",
    "i'll",
    "i'm",
    "i've",
    "if",
    "in",
    "incredible",
    "indeed",
    "into",
    "is",
    "isn't",
    "it",
    "it'll",
    "it's",
    "its",
    "just",
    "keep",
    "kind",
    "know",
    "let",
    "let's",
    "letting",
    "like",
    "lol",
    "lot",
    "lots",
    "love",
    "lovely",
    "me",
    "mean",
    "mind",
    "more",
    "morning",
    "much",
    "must",
    "my",
    "never",
    "nice",
    "night",
    "no",
    "nope",
    "not",
    "noted",
    "now",
    "of",
    "oh",
    "ok",
    "okay",
    "omg",
    "on",
    "one",
    "or",
    "our",
    "out",
    "perfect",
    "please",
    "pretty",
    "quite",
    "really",
    "right",
    "said",
    "say",
    "see",
    "she",
    "should",
    "so",
    "some",
    "something",
    "sorry",
    "sound",
    "sounds",
    "still",
    "stuff",
    "super",
    "sure",
    "take",
    "tell",
    "than",
    "thank",
    "thanks",
    "that",
    "that's",
    "the",
    "their",
    "them",
    "then",
    "there",
    "these",
    "they",
    "thing",
    "things",
    "think",
    "this",
    "those",
    "thx",
    "to",
    "too",
    "totally",
    "true",
    "ty",
    "up",
    "us",
    "very",
    "was",
    "wasn't",
    "way",
    "we",
    "we're",
    "welcome",
    "well",
    "were",
    "what",
    "what's",
    "when",
    "where",
    "which",
    "who",
    "why",
    "will",
    "wish",
    "with",
    "won't",
    "wonderful",
    "would",
    "wow",
    "yay",
    "yeah",
    "yep",
    "yes",
    "yet",
    "yo",
    "you",
    "you'll",
    "you're",
    "your",
    "yours",
    "yup",
];

/// Words after which a capitalised word is the person addressed, not a
/// name worth keeping ("Hey Mel", "Thanks, Melanie", "Wow, Caroline").
const ADDRESS_EN: &[&str] = &[
    "bye",
    "congrats",
    "congratulations",
    "dear",
    "hello",
    "hey",
    "hi",
    "morning",
    "night",
    "oh",
    "sorry",
    "thank",
    "thanks",
    "wow",
    "yo",
];

/// Chinese that says nothing alone: greetings, thanks, acknowledgements,
/// interjections, particles and pronouns. Removed from a Han run before its
/// content is counted, so "好的，谢谢！" and "了解，我会记住的。" are empty.
const EMPTY_ZH: &[&str] = &[
    "很高兴认识你",
    "我会记住的",
    "我会记住",
    "大家好",
    "早上好",
    "晚上好",
    "不客气",
    "不用谢",
    "没关系",
    "没问题",
    "太好了",
    "知道了",
    "记住了",
    "记下了",
    "辛苦了",
    "怎么样",
    "看到了",
    "原来如此",
    "有道理",
    "就这些",
    "这样啊",
    "你好",
    "您好",
    "哈喽",
    "哈哈",
    "呵呵",
    "嘿嘿",
    "嘻嘻",
    "谢谢",
    "多谢",
    "感谢",
    "谢啦",
    "好的",
    "好吧",
    "好啊",
    "好呀",
    "嗯嗯",
    "收到",
    "明白",
    "了解",
    "真好",
    "真棒",
    "好棒",
    "厉害",
    "加油",
    "晚安",
    "早安",
    "再见",
    "拜拜",
    "辛苦",
    "是的",
    "当然",
    "一下",
    "什么",
    "我们",
    "你们",
    "他们",
    "这个",
    "那个",
    "可以",
    "已经",
    "还是",
    "一起",
    "非常",
    "真的",
    "对的",
    "好滴",
    "行吧",
    // One character: only particles, pronouns and adverbs that rarely sit inside a word
    // (都 would cut 成都 in two, 会 开会, 在 现在).
    "嗨",
    "嗯",
    "哦",
    "噢",
    "喔",
    "啊",
    "呀",
    "哇",
    "吧",
    "呢",
    "啦",
    "嘛",
    "呗",
    "吗",
    "了",
    "的",
    "我",
    "你",
    "您",
    "他",
    "她",
    "它",
    "这",
    "那",
    "是",
    "很",
    "真",
    "太",
    "也",
    "挺",
];

/// Chinese greetings and thanks after which a short name is the person addressed.
const ADDRESS_ZH: &[&str] = &["你好", "您好", "哈喽", "嗨", "谢谢", "多谢", "感谢", "晚安", "早安", "再见", "拜拜"];

/// English words that date or time a statement.
const TIME_EN: &[&str] = &[
    "january",
    "february",
    "march",
    "april",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "jan",
    "feb",
    "apr",
    "jun",
    "jul",
    "aug",
    "sept",
    "oct",
    "nov",
    "dec",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
    "mon",
    "tue",
    "tues",
    "wed",
    "thu",
    "fri",
    "today",
    "tomorrow",
    "yesterday",
    "tonight",
    "weekend",
    "noon",
    "midnight",
    "pm",
    "o'clock",
];

/// English number words ("six weeks", "a dozen eggs"); "one" is left out, it is mostly a pronoun.
const NUMBERS_EN: &[&str] = &[
    "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "fifteen", "twenty", "thirty", "forty",
    "fifty", "hundred", "thousand", "million", "billion", "dozen", "half",
];

/// Chinese words that date or time a statement.
const TIME_ZH: &[&str] = &[
    "今天",
    "明天",
    "昨天",
    "后天",
    "前天",
    "今晚",
    "明晚",
    "昨晚",
    "上周",
    "下周",
    "本周",
    "这周",
    "周末",
    "上个月",
    "下个月",
    "这个月",
    "月底",
    "月初",
    "今年",
    "去年",
    "明年",
    "年底",
    "早上",
    "上午",
    "中午",
    "下午",
    "晚上",
    "星期",
    "礼拜",
];

const ZH_NUMERALS: &str = "零一二三四五六七八九十百千万亿两半";
/// What follows a number in a Chinese date, time or quantity (三月, 两点, 六十万).
const ZH_UNITS: &str = "年月日号点分元块岁天周个人次斤米倍万千百";

/// What a sentence carries.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Signals {
    /// Distinct content terms: lowercase English words that are not in the
    /// empty lists, and bigrams of what is left of each Han run.
    pub terms: Vec<String>,
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

/// Reads `sentence`.
pub(super) fn signals(sentence: &str) -> Signals {
    let chars: Vec<char> = sentence.chars().collect();
    let mut s = Signals { question: sentence.ends_with(['?', '？']), ..Signals::default() };
    let (mut content, mut han) = (0, 0);
    let mut addressed_zh = false;
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
            han += han_run(&run, digit_before, &mut s, &mut addressed_zh);
            seen_text = true;
            prev_word = None;
        } else if is_word_char(c) && c != '\'' {
            let start = i;
            while chars.get(i).is_some_and(|&c| is_word_char(c)) {
                i += 1;
            }
            let word: String = chars.get(start..i).unwrap_or_default().iter().collect();
            let word = word.trim_end_matches(['\'', '\u{2019}']).replace('\u{2019}', "'");
            let lower = word.to_lowercase();
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
                if !s.terms.contains(&lower) {
                    s.terms.push(lower.clone());
                }
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
fn han_run(run: &str, digit_before: bool, s: &mut Signals, addressed: &mut bool) -> usize {
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
            if !s.terms.contains(&g) {
                s.terms.push(g);
            }
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
