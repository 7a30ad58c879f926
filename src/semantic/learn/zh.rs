//! The Chinese rules of `learn` (see its module docs), matched on the
//! text: the subject is "我" at the start (after fillers), or the sentence
//! is an instruction to the assistant.

use super::{fact, preference, Statement};

/// Openers that say nothing: "记住，我不喝酒".
const FILLERS: &[&str] = &[
    "记住",
    "记得",
    "对了",
    "另外",
    "其实",
    "顺便说一下",
    "顺便说一句",
    "说一下",
    "跟你说",
    "告诉你",
    "还有",
    "嗯",
    "哦",
    "OK",
    "ok",
    "好的",
];

/// Other people: "我妈妈…" is about her.
const RELATIONS: &[&str] = &[
    "妈",
    "爸",
    "母亲",
    "父亲",
    "父母",
    "妹",
    "姐",
    "哥",
    "弟",
    "老板",
    "领导",
    "朋友",
    "同事",
    "同学",
    "老公",
    "老婆",
    "丈夫",
    "妻子",
    "男朋友",
    "女朋友",
    "儿子",
    "女儿",
    "孩子",
    "家人",
    "室友",
    "邻居",
    "爷爷",
    "奶奶",
    "爱人",
    "表",
    "堂",
    "boss",
];

/// The user's spouse and parents: "我爱人是医生" is a fact about the
/// user's family, where "我同事是医生" is about the colleague.
const CLOSE: &[&str] = &["爱人", "老公", "老婆", "丈夫", "妻子", "父母", "爸妈", "爸", "妈"];

/// Words of one occasion, or of a plan: what they qualify is not lasting.
const ONCE: &[&str] =
    &["这", "今天", "今晚", "明天", "昨天", "刚", "下周", "下个月", "上周", "打算", "准备", "要去", "帮我", "想去", "正在", "一会"];

/// Likes, dislikes and constraints.
const LIKES: &[&str] = &[
    "喜欢",
    "爱吃",
    "爱喝",
    "讨厌",
    "受不了",
    "偏好",
    "偏爱",
    "过敏",
    "不耐受",
    "不吃",
    "不喝",
    "能吃",
    "能喝",
    "吃不惯",
    "吃不了",
    "素食",
    "吃素",
    "怕",
    "习惯",
    "减肥",
    "预算",
    "血压",
    "血糖",
    "糖尿病",
    "感兴趣",
    "不抽",
    "戒烟",
    "降压药",
    "哮喘",
    "痛风",
    "晕车",
    "晕船",
    "晕机",
];

/// Habits: "我一般喝美式", "我每天都要喝咖啡".
const HABITS: &[&str] = &["一般", "平时", "每天", "总是", "从来"];
const HABIT_VERBS: &[&str] = &["吃", "喝", "用", "穿", "睡", "看", "听", "坐", "买", "点"];

/// What an instruction to the assistant starts with.
const IMPERATIVES: &[&str] =
    &["以后", "今后", "不要", "别", "回答", "回复", "用", "给我回复", "写", "请", "每次", "尽量", "代码", "从现在", "说话", "叫我"];

/// Lasting markers of an instruction.
const LASTING: &[&str] = &["以后", "今后", "都", "总是", "永远", "每次", "的时候", "尽量", "再", "从现在", "always"];

/// What an instruction about the answers' form talks about.
const FORM: &[&str] =
    &["中文", "英文", "English", "表情", "表格", "繁体", "简体", "简短", "注释", "markdown", "回答", "回复", "语气", "推荐", "说话"];

/// Markers in a later clause that make it a standing request: "我晕车，
/// 出行尽量别安排大巴" is a constraint stated through its consequence.
const STANDING: &[&str] = &["尽量", "的时候", "每次", "以后", "优先"];

/// Digits of a year or an age: "我九五年的".
const NUMERALS: &str = "0123456789零〇一二三四五六七八九十";

pub(super) fn classify(s: &str) -> Option<Statement> {
    let s = s.trim_end_matches(['。', '！', '!', '.', '…', ' ']);
    if s.ends_with('吗') || s.ends_with('呢') || ["什么", "哪", "怎么", "几点", "多少", "为什么"].iter().any(|q| s.contains(q))
    {
        return None;
    }
    // "买车的话，我的预算…": the topic goes first, the statement after it.
    let s = strip_fillers(s.split_once("的话").map_or(s, |(_, r)| r));
    // "我这人…", "住这边": 这 points at the user or a place, not an occasion.
    let plain = ["这个人", "这人", "这边", "这里", "这儿"].iter().fold(s.to_string(), |t, w| t.replace(*w, ""));
    let once = ONCE.iter().any(|w| plain.contains(w));
    // "大家都叫我阿杰": what others call the user is the user's name.
    if s.contains("都叫我") {
        return fact(Some("name"));
    }
    if let Some(rest) = s.strip_prefix('我').filter(|r| !r.starts_with('们')) {
        return about_user(rest.trim_start(), once);
    }
    if IMPERATIVES.iter().any(|w| s.starts_with(w)) {
        return instruction(s, once);
    }
    None
}

fn about_user(rest: &str, once: bool) -> Option<Statement> {
    let rest = match RELATIONS.iter().find(|r| rest.starts_with(*r)) {
        // "我老婆和我都是老师": the user and family together.
        Some(_) => match rest.split_once("和我").or_else(|| rest.split_once("跟我")) {
            Some((_, r)) => r,
            None => return close_family(rest, once),
        },
        None => rest,
    };
    // "我的 manager 很喜欢…": someone else's.
    if rest
        .strip_prefix('的')
        .map(str::trim_start)
        .is_some_and(|r| r.starts_with(|c: char| c.is_ascii_alphabetic()) || RELATIONS.iter().any(|x| r.starts_with(x)))
    {
        return None;
    }
    // "我一直在北京生活", "我现在在银行做柜员": the adverb says it lasts.
    let rest = ["这个人", "这人", "本身", "现在", "目前", "一直", "常年", "从小"]
        .iter()
        .fold(rest.trim_start_matches(['都', '也', '还']), |r, w| r.trim_start_matches(w));
    let diet = || ["素食", "吃素", "饮食", "减肥", "少盐", "vegetarian", "vegan"].iter().any(|w| rest.contains(w)).then_some("diet");
    if !once {
        if rest.starts_with("喜欢你") || rest.starts_with("爱你") {
            return None;
        }
        if LIKES.iter().any(|w| rest.contains(w)) {
            let key = if rest.contains("预算") { Some("budget") } else { diet() };
            return preference(key);
        }
        if HABITS.iter().any(|h| rest.starts_with(h) || rest.contains(&format!("决定{h}"))) && HABIT_VERBS.iter().any(|v| rest.contains(v))
        {
            return preference(None);
        }
        // "我喝咖啡只喝拿铁": "only" with a habit verb is a standing choice.
        if HABIT_VERBS.iter().any(|v| rest.contains(&format!("只{v}"))) {
            return preference(None);
        }
        if rest.split_once('，').is_some_and(|(_, later)| STANDING.iter().any(|w| later.contains(w))) {
            return preference(None);
        }
    }
    if once || ["以前", "小时候", "曾经", "要", "想"].iter().any(|w| rest.starts_with(w)) {
        return None;
    }
    // "我在做一个设计稿": 在 before a verb is "in the middle of", not a place.
    if rest.strip_prefix('在').is_some_and(|r| r.starts_with(['做', '写', '看', '学', '找', '想', '弄', '读', '听', '玩', '吃', '喝']))
    {
        return None;
    }
    facts(rest)
}

fn facts(rest: &str) -> Option<Statement> {
    if rest.starts_with('叫') || rest.starts_with("的名字") || rest.starts_with('姓') {
        return fact(Some("name"));
    }
    let lives = rest.starts_with('在') && rest.contains("生活");
    if lives
        || rest.contains('住')
        || rest.starts_with("现居")
        || rest.starts_with("老家")
        || rest.starts_with("家在")
        || rest.contains("定居")
    {
        return fact(Some("home_city"));
    }
    // "我做设计的", "我是搞金融的": the trade one lives by.
    let clause = rest.split('，').next().unwrap_or(rest);
    if ["做", "搞", "学", "是做", "是搞", "是学"].iter().any(|w| clause.starts_with(w)) && clause.ends_with('的') {
        return fact(Some("job"));
    }
    // "我九五年的", "我八八年生", "我属龙的": the year of birth.
    let year = clause.starts_with(|c: char| NUMERALS.contains(c)) && ["年的", "年生", "年出生"].iter().any(|e| clause.ends_with(e));
    if year || clause.starts_with('属') {
        return fact(Some("age"));
    }
    if rest.starts_with('在') && ["工作", "上班", "实习"].iter().any(|w| rest.contains(w)) {
        return fact(Some("employer"));
    }
    // "我在医院当护士" names a trade, "我在 Netflix 当 data scientist" an
    // employer: a common noun or "一家…" after 在 is no employer's name.
    if let Some(place) = rest.strip_prefix('在').filter(|r| r.contains('做') || r.contains('当')) {
        let generic = ["一", "医院", "学校", "银行", "工厂", "公司", "大学"].iter().any(|g| place.starts_with(g));
        return fact(Some(if generic { "job" } else { "employer" }));
    }
    if rest.contains('岁') && !rest.contains("孩子") && !rest.contains('女') && !rest.contains('儿') {
        return fact(Some("age"));
    }
    if let Some(what) = clause.strip_prefix('是') {
        let job = what.starts_with("一名")
            || ["师", "员", "经理", "护士", "医生", "律师", "工程师", "designer", "engineer", "developer"]
                .iter()
                .any(|j| what.ends_with(j));
        // "我是上海人": where the user is from.
        let from = what.ends_with('人') && what.chars().count() <= 4 && !what.contains('个');
        // "我是九零后": the decade of birth.
        let decade = what.starts_with(|c: char| NUMERALS.contains(c)) && what.ends_with('后');
        return fact(if job {
            Some("job")
        } else if decade {
            Some("age")
        } else {
            from.then_some("home_city")
        });
    }
    let family = ["孩子", "女儿", "儿子", "哥哥", "姐姐", "弟弟", "妹妹", "猫", "狗"];
    let home = crate::semantic::trim_prefixes(rest, "家里").trim_start_matches('家');
    if (home.starts_with('有') || home.starts_with("养了")) && family.iter().any(|w| rest.contains(w)) {
        return fact(None);
    }
    if ["结婚", "独生", "左撇子", "在读", "身高"].iter().any(|w| rest.contains(w)) {
        return fact(None);
    }
    None
}

/// "我爱人是医生", "我父母都是老师": a lasting fact about the user's spouse
/// or parents (not their tastes, which are theirs, nor an event).
fn close_family(rest: &str, once: bool) -> Option<Statement> {
    let after = CLOSE.iter().find_map(|r| rest.strip_prefix(r))?.trim_start_matches(['妈', '爸', '都', '也']);
    let taste = ["吃", "喝", "素", "喜欢", "是不是"].iter().any(|w| after.contains(w));
    if after.starts_with('是') && !once && !taste {
        return fact(None);
    }
    None
}

/// An instruction to the assistant: a rule when it is lasting or about
/// the answers' form, and not about one occasion.
fn instruction(s: &str, once: bool) -> Option<Statement> {
    if once {
        return None;
    }
    let s = s.trim_start_matches(['以', '后', '请']);
    if s.starts_with("叫我") {
        return fact(Some("name"));
    }
    if !(LASTING.iter().any(|w| s.contains(w)) || FORM.iter().any(|w| s.contains(w))) {
        return None;
    }
    let language =
        ["中文", "英文", "English", "简体", "繁体"].iter().any(|w| s.contains(w)) && ["回答", "回复"].iter().any(|w| s.contains(w));
    preference(language.then_some("answer_language"))
}

fn strip_fillers(s: &str) -> &str {
    let mut s = s.trim_start();
    while let Some(rest) = FILLERS.iter().find_map(|f| s.strip_prefix(f)) {
        s = rest.trim_start_matches([' ', ',', '，', ':', '：', '、']);
    }
    s
}
