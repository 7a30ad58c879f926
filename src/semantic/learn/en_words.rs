//! The English word tables of `learn` (see its module docs): cue words
//! and openers, matched lowercased at the start of a clause by `en`.

/// Openers that say nothing: "Hi, I'm Marcus", "By the way, I'm vegan".
pub(super) const FILLERS: &[&[&str]] = &[
    &["hi"],
    &["hey"],
    &["hello"],
    &["oh"],
    &["ok"],
    &["okay"],
    &["btw"],
    &["also"],
    &["well"],
    &["so"],
    &["honestly"],
    &["fyi"],
    &["haha"],
    &["and"],
    &["but"],
    &["by", "the", "way"],
    &["just", "so", "you", "know"],
    &["for", "the", "record"],
    &["remember", "that"],
    &["remember"],
    &["keep", "in", "mind", "that"],
    &["note", "that"],
    &["please"],
    &["actually"],
    &["personally"],
    &["these", "days"],
    &["nowadays"],
    &["going", "forward"],
    &["make", "sure", "you"],
    &["make", "sure", "to"],
    &["since"],
];

/// Adverbs dropped before matching: "I really like", "I just turned".
pub(super) const ADVERBS: &[&str] = &[
    "really",
    "so",
    "very",
    "totally",
    "absolutely",
    "just",
    "also",
    "actually",
    "definitely",
    "kind",
    "sort",
    "pretty",
    "honestly",
    "truly",
    "generally",
    "mostly",
    "usually",
    "normally",
    "currently",
    "remotely",
    "full-time",
    "part-time",
];

/// Words of one occasion: what they qualify is not lasting.
pub(super) const ONCE: &[&[&str]] = &[
    &["today"],
    &["tonight"],
    &["tomorrow"],
    &["yesterday"],
    &["this"],
    &["right", "now"],
    &["next", "week"],
    &["next", "month"],
    &["next", "year"],
    &["next", "time"],
    &["last", "night"],
    &["for", "now"],
];

/// Plans, past states and hypotheticals: no lasting fact.
pub(super) const NOT_NOW: &[&[&str]] = &[
    &["used", "to"],
    &["going", "to"],
    &["i'll"],
    &["will"],
    &["next"],
    &["tomorrow"],
    &["tonight"],
    &["yesterday"],
    &["thinking"],
    &["never", "been"],
];

/// Clause openings that state a preference or constraint.
pub(super) const LIKES: &[&[&str]] = &[
    &["i", "like"],
    &["i", "love"],
    &["i", "enjoy"],
    &["i", "hate"],
    &["i", "dislike"],
    &["i", "adore"],
    &["i", "prefer"],
    &["i", "usually", "prefer"],
    &["i'd", "prefer"],
    &["i'd", "rather"],
    &["i", "can't", "stand"],
    &["i", "don't", "like"],
    &["i", "do", "not", "like"],
    &["i'm", "a", "fan", "of"],
    &["i'm", "a", "big", "fan", "of"],
    &["i'm", "not", "a", "fan", "of"],
    &["i'm", "into"],
    &["i'm", "not", "into"],
    &["i", "find"],
    &["i'm", "afraid", "of"],
    &["i'm", "scared", "of"],
    &["i'm", "a", "night", "owl"],
    &["i'm", "a", "morning", "person"],
];

/// Constraints: eating, drinking, health, money.
pub(super) const CONSTRAINTS: &[&[&str]] = &[
    &["i'm", "allergic"],
    &["i", "am", "allergic"],
    &["i", "don't", "eat"],
    &["i", "don't", "drink"],
    &["i", "do", "not", "eat"],
    &["i", "never", "eat"],
    &["i", "never", "drink"],
    &["i", "can't", "eat"],
    &["i", "can't", "have"],
    &["i", "cannot", "eat"],
    &["i", "avoid"],
    &["i'm", "trying", "to", "avoid"],
    &["i", "must", "have"],
    &["i", "always", "take"],
    &["i", "always", "drink"],
    &["i", "always", "eat"],
    &["i", "only", "eat"],
    &["i", "only", "drink"],
    &["i", "have", "type"],
    &["i", "have", "diabetes"],
    &["i", "have", "celiac"],
    &["i", "have", "asthma"],
    &["i", "have", "high", "blood"],
    &["i", "can't", "do"],
    &["i", "can't", "tolerate"],
    &["i", "stick", "to"],
    &["i", "don't", "smoke"],
    &["i", "never", "smoke"],
];

/// Spending limits: "I can't go over 50k for a car".
pub(super) const BUDGET: &[&[&str]] = &[&["i", "can't", "go", "over"], &["i", "can't", "spend", "more"], &["i", "won't", "spend", "more"]];

/// What "I'm a … X" says about taste rather than trade: "I'm a huge
/// football fan", "I'm not a big coffee drinker", "a picky eater".
pub(super) const TASTE: &[&str] = &["fan", "lover", "person", "drinker", "eater", "owl", "fanatic", "addict", "nerd", "buff", "reader"];

/// Family roles after "I'm a": "I'm a single mom" is a fact, not a job.
pub(super) const ROLES: &[&str] =
    &["mom", "mum", "dad", "mother", "father", "parent", "twin", "grandmother", "grandfather", "grandma", "grandpa", "stepmom", "stepdad"];

/// What a food or a screen does to the user: "Shellfish gives me hives",
/// "I get migraines from bright screens".
pub(super) const SYMPTOMS: &[&str] =
    &["hives", "migraines", "migraine", "headaches", "heartburn", "rash", "nauseous", "bloated", "seasick", "carsick", "sick"];

/// "I've got a bad knee": a body part that limits what suits the user.
pub(super) const BODY: &[&str] = &["knee", "knees", "back", "hip", "shoulder", "ankle", "wrist", "heart", "stomach", "eyesight", "hearing"];

/// The user's spouse and parents: "Both my parents are doctors" is a fact
/// about the user's family, where "my boss is a doctor" is about the boss.
pub(super) const CLOSE: &[&str] = &["wife", "husband", "partner", "spouse", "parents"];

/// Words that make a constraint a diet, or name one after "I'm".
pub(super) const DIETS: &[&str] = &[
    "vegetarian",
    "vegan",
    "pescatarian",
    "keto",
    "diet",
    "halal",
    "kosher",
    "gluten-free",
    "dairy-free",
    "lactose-free",
    "lactose",
    "gluten",
];

/// Lasting-behaviour markers of a rule for the assistant.
pub(super) const LASTING: &[&[&str]] = &[
    &["always"],
    &["never"],
    &["ever"],
    &["anymore"],
    &["any", "more"],
    &["from", "now", "on"],
    &["in", "the", "future"],
    &["going", "forward"],
    &["when", "you"],
    &["whenever"],
    &["every", "time"],
    &["unless", "i"],
    &["even", "if"],
    &["per", "answer"],
    &["any"],
    &["anything"],
    &["with", "me"],
    &["when", "i"],
    &["me", "like"],
    &["like", "i'm"],
];

/// What a rule about the answers' form talks about.
pub(super) const FORM: &[&str] = &[
    "spelling",
    "tone",
    "units",
    "emoji",
    "emojis",
    "markdown",
    "tables",
    "bullet",
    "answers",
    "answer",
    "replies",
    "reply",
    "responses",
    "jargon",
    "formally",
    "comments",
    "english",
    "chinese",
    "spanish",
    "french",
    "german",
    "japanese",
    "words",
];

/// The answers' form as a sentence's subject: "Markdown is fine".
pub(super) const ANSWER_FORMS: &[&str] =
    &["markdown", "tables", "emojis", "emoji", "bullet", "bullets", "replies", "answers", "responses", "jargon"];

/// Openers that point at something at hand ("your answers are great",
/// "that works best for me"): about the moment, not the user.
pub(super) const DETERMINERS: &[&str] =
    &["your", "the", "this", "that", "that's", "these", "those", "it", "it's", "my", "his", "her", "their", "our", "some"];

/// How an imperative to the assistant starts.
pub(super) const IMPERATIVES: &[&str] = &[
    "always", "never", "don't", "do", "stop", "avoid", "use", "keep", "reply", "respond", "answer", "write", "call", "address", "no",
    "when", "whenever", "from", "talk", "speak", "treat", "assume", "skip", "explain",
];

/// Languages an answer can be asked in.
pub(super) const LANGUAGES: &[&str] = &["english", "chinese", "spanish", "french", "german", "japanese"];

/// The user's family and household: "I have two kids".
pub(super) const FAMILY: &[&str] = &[
    "kid",
    "kids",
    "children",
    "child",
    "son",
    "sons",
    "daughter",
    "daughters",
    "brother",
    "brothers",
    "sister",
    "sisters",
    "siblings",
    "toddler",
    "baby",
    "dog",
    "dogs",
    "cat",
    "cats",
    "named",
    "wife",
    "husband",
    "flat",
    "house",
    "twins",
];
