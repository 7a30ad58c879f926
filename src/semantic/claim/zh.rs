//! The Chinese rules of `claim` (see its module docs): the subject before
//! the cue, adverbs between them dropped.

use super::{value, Claim, Subject};

/// Plans, wishes and pasts: they end nothing that holds.
const NOT_NOW: &[&str] = &["打算", "想", "要", "准备", "计划", "明年", "下个月", "下周", "将来", "以前", "曾经", "可能", "如果"];

/// Adverbs between the subject and the cue.
const ADVERBS: &[&str] = &["现在", "目前", "已经", "刚刚", "刚", "也", "还", "一直", "今年", "终于", "正式", "都"];

/// The user, as a subject.
const USER: &[&str] = &["我", "用户", "本人"];

/// People who are not the user, after 我.
const RELATIONS: &[&str] = &[
    "妹妹",
    "姐姐",
    "哥哥",
    "弟弟",
    "妈妈",
    "爸爸",
    "父母",
    "老公",
    "老婆",
    "丈夫",
    "妻子",
    "朋友",
    "同事",
    "老板",
    "儿子",
    "女儿",
    "男朋友",
    "女朋友",
    "室友",
    "邻居",
];

/// Cues that precede the value, with their attribute.
const BEFORE: &[(&str, &str)] = &[
    ("住在", "home_city"),
    ("搬到了", "home_city"),
    ("搬到", "home_city"),
    ("搬去了", "home_city"),
    ("搬去", "home_city"),
    ("定居在", "home_city"),
    ("家在", "home_city"),
    ("现居", "home_city"),
    ("入职了", "employer"),
    ("入职", "employer"),
    ("跳槽到了", "employer"),
    ("跳槽到", "employer"),
    ("跳槽去", "employer"),
    ("加入了", "employer"),
    ("就职于", "employer"),
    ("是一名", "job"),
    ("是一个", "job"),
    ("职业是", "job"),
    ("当", "job"),
    ("改名叫", "name"),
    ("名字是", "name"),
    ("叫", "name"),
    ("邮箱换成了", "email"),
    ("邮箱改成了", "email"),
    ("邮箱是", "email"),
    ("手机号换成了", "phone"),
    ("手机号是", "phone"),
    ("电话是", "phone"),
];

/// Cues that follow the value (在X工作), with their attribute.
const AFTER: &[(&str, &str)] = &[
    ("工作", "employer"),
    ("上班", "employer"),
    ("读研究生", "school"),
    ("读研", "school"),
    ("读博", "school"),
    ("读书", "school"),
    ("上学", "school"),
    ("念书", "school"),
];

/// Diet phrases and what they say, most specific first.
const DIETS: &[(&str, &str)] =
    &[("不再吃素", "meat"), ("不吃肉", "vegetarian"), ("吃肉", "meat"), ("纯素", "vegan"), ("素食", "vegetarian"), ("吃素", "vegetarian")];

/// Marital phrases.
const MARITAL: &[(&str, &str)] = &[("离婚", "divorced"), ("已婚", "married"), ("结婚", "married"), ("单身", "single"), ("订婚", "engaged")];

pub(super) fn claim(text: &str) -> Option<Claim> {
    if NOT_NOW.iter().any(|w| text.contains(w)) {
        return None;
    }
    if let Some(c) = order(text) {
        return Some(c);
    }
    let (subject, mut rest) = subject(text)?;
    while let Some(r) = ADVERBS.iter().find_map(|a| rest.strip_prefix(a)) {
        rest = r;
    }
    let found = |attribute: &'static str, raw: &str| {
        Some(Claim { subject: subject.clone(), attribute, value: value(raw) }).filter(|c| !c.value.is_empty())
    };
    if let Some((_, d)) = DIETS.iter().find(|(w, _)| rest.contains(w)) {
        return found("diet", d);
    }
    if let Some((_, m)) = MARITAL.iter().find(|(w, _)| rest.contains(w)) {
        return found("marital", m);
    }
    if let Some(r) = rest.strip_prefix('在') {
        if let Some((v, attribute)) = AFTER.iter().find_map(|(cue, a)| r.find(cue).map(|i| (r.get(..i).unwrap_or(""), *a))) {
            return found(attribute, v);
        }
    }
    for (cue, attribute) in BEFORE {
        if let Some(v) = rest.strip_prefix(cue) {
            return found(attribute, v);
        }
    }
    if let Some(i) = rest.find('岁') {
        let n: String = rest.get(..i)?.chars().rev().take_while(char::is_ascii_digit).collect::<Vec<_>>().into_iter().rev().collect();
        return found("age", &n);
    }
    if let Some(r) = rest.strip_prefix('有') {
        if let Some(i) = r.find("个孩子") {
            return found("children", r.get(..i)?);
        }
    }
    None
}

/// 以后请用中文回答, 请用英文回答: the user's answer language, by order.
fn order(text: &str) -> Option<Claim> {
    let start = text.find('用')? + '用'.len_utf8();
    let end = text.find("回答").or_else(|| text.find("回复"))?;
    let language = text.get(start..end)?;
    ["中文", "英文", "日文", "韩文", "法语", "德语", "西班牙语", "英语", "汉语"].contains(&language).then(|| Claim {
        subject: Subject::User,
        attribute: "answer_language",
        value: language.to_string(),
    })
}

/// The subject at the start of `text` and what follows it: the user, a
/// relation of the user's (我妹妹), or a name of two or three characters
/// (小王, 李明) before a cue.
fn subject(text: &str) -> Option<(Subject, &str)> {
    for user in USER {
        if let Some(r) = text.strip_prefix(user) {
            if let Some(rel) = RELATIONS.iter().find(|rel| r.strip_prefix('的').unwrap_or(r).starts_with(*rel)) {
                let r = r.strip_prefix('的').unwrap_or(r);
                return Some((Subject::Other((*rel).to_string()), r.get(rel.len()..)?));
            }
            // 我的手机号是…: the user's.
            return Some((Subject::User, r.strip_prefix('的').unwrap_or(r)));
        }
    }
    // A name: the characters before the first cue, two or three of them.
    let cues = BEFORE.iter().map(|(c, _)| *c).chain(["在", "是", "今年", "现在", "已经"]);
    let at = cues.filter_map(|c| text.find(c)).min()?;
    let name = text.get(..at)?;
    let n = name.chars().count();
    ((2..=3).contains(&n) && name.chars().all(super::super::learn::is_han))
        .then(|| (Subject::Other(name.to_string()), text.get(at..).unwrap_or("")))
}
