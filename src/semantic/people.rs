//! The people an English sentence may be about other than the user: one
//! list for both readers of user statements, what compaction learns
//! (`learn`) and what contradicts what (`claim`), so that "my sister lives
//! in Berlin" is about her for both. (Chinese keeps a list per reader:
//! `learn` matches relation prefixes, 妈 for 妈妈, and `claim` whole words,
//! since its subject is the relation itself and 表 would catch 我表示.)

/// After "my": someone other than the user ("my sister …" is about her).
pub const EN: &[&str] = &[
    "sister",
    "brother",
    "mom",
    "mother",
    "dad",
    "father",
    "parents",
    "boss",
    "friend",
    "friends",
    "husband",
    "wife",
    "son",
    "daughter",
    "kids",
    "roommate",
    "partner",
    "colleague",
    "coworker",
    "girlfriend",
    "boyfriend",
    "neighbor",
    "team",
    "manager",
    "family",
    "grandmother",
    "grandfather",
    "grandma",
    "grandpa",
    "uncle",
    "aunt",
    "cousin",
    "niece",
    "nephew",
    "neighbour",
    "baby",
    "kid",
];
