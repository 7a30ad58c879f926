//! Facts valid in time (issue 24): a value holds from `validFrom` until
//! what supersedes or contradicts it begins; nothing is deleted; `facts`
//! and `search` answer as of a time; the recall block shows what holds,
//! marks an ended value that is still relevant with its validity, and a
//! question about the past (`asOf`, or a phrase in either language) ranks
//! what held then first.

mod common;

use agent_memory::context::ContextRequest;
use agent_memory::controller::{Held, SearchOptions};
use agent_memory::semantic::RememberInput;
use agent_memory::{Controller, Options};

/// 2024-01-15, 2025-06-15 and 2026-03-10 (UTC, ms).
const JAN_2024: f64 = 1_705_276_800_000.0;
const JUN_2025: f64 = 1_749_945_600_000.0;
const MAR_2026: f64 = 1_773_100_800_000.0;
/// 2026-04-15.
const NOW: f64 = 1_776_211_200_000.0;

fn controller() -> Controller {
    Controller::new(Options { ..common::options(true) }, common::o200k()).unwrap()
}

fn remember(c: &mut Controller, key: Option<&str>, text: &str, valid_from: Option<f64>, at: f64) -> agent_memory::controller::Remembered {
    let input = RememberInput { key: key.map(String::from), text: text.into(), valid_from, ..Default::default() };
    let p = c.prepare_remember(input, at).unwrap();
    c.commit_remember(p)
}

/// Shanghai from January 2024, Berlin from March 2026 (stated in April).
fn moved() -> (Controller, String, String) {
    moved_in(["The user lives in Shanghai.", "The user lives in Berlin."])
}

fn moved_in([shanghai, berlin]: [&str; 2]) -> (Controller, String, String) {
    let mut c = controller();
    let sh = remember(&mut c, Some("home_city"), shanghai, Some(JAN_2024), NOW - 1000.0);
    let be = remember(&mut c, Some("home_city"), berlin, Some(MAR_2026), NOW);
    assert_eq!(be.superseded.as_deref(), Some(sh.id.as_str()));
    (c, sh.id, be.id)
}

fn recall_block(c: &mut Controller, query: &str, as_of: Option<f64>) -> String {
    let req = ContextRequest { max_tokens: 3000, query: Some(query.into()), now: Some(NOW), as_of, ..Default::default() };
    let ctx = c.build_context(&req).unwrap();
    ctx.messages.iter().map(|m| m.content_text()).find(|t| t.contains("Stored notes")).unwrap_or_default()
}

#[test]
fn a_superseded_value_ends_where_the_next_begins_and_stays() {
    let (c, sh, be) = moved();
    let live: Vec<&str> = c.facts().iter().map(|f| f.id.as_str()).collect();
    assert_eq!(live, vec![be.as_str()]);
    let history = c.fact_history("home_city");
    assert_eq!(
        history.iter().map(|f| (f.id.as_str(), f.valid_from, f.valid_until)).collect::<Vec<_>>(),
        vec![(sh.as_str(), Some(JAN_2024), Some(MAR_2026)), (be.as_str(), Some(MAR_2026), None)]
    );
}

#[test]
fn facts_and_search_answer_as_of_either_side_of_the_change() {
    let (mut c, sh, be) = moved();
    let ids = |facts: Vec<agent_memory::semantic::Fact>| facts.into_iter().map(|f| f.id).collect::<Vec<_>>();
    assert_eq!(ids(c.facts_as_of(Some(JUN_2025))), vec![sh.clone()]);
    assert_eq!(ids(c.facts_as_of(Some(MAR_2026))), vec![be.clone()], "the new value holds from the moment it begins");
    assert_eq!(ids(c.facts_as_of(Some(JAN_2024 - 1.0))), Vec::<String>::new(), "nothing held before");
    assert_eq!(ids(c.facts_as_of(None)), vec![be.clone()]);
    let search = |c: &mut Controller, held: Held| {
        c.search("where does the user live", &SearchOptions { held, ..Default::default() }, None)
            .unwrap()
            .into_iter()
            .map(|h| h.id)
            .collect::<Vec<_>>()
    };
    assert_eq!(search(&mut c, Held::During(JUN_2025, JUN_2025)), vec![sh.clone()]);
    assert_eq!(search(&mut c, Held::Now), vec![be.clone()]);
}

#[test]
fn a_value_stated_late_with_an_earlier_start_is_history_at_once() {
    let (mut c, _, be) = moved();
    let r = remember(&mut c, Some("home_city"), "The user lives in Paris.", Some(JAN_2024 - 86_400_000.0 * 365.0), NOW + 1000.0);
    assert_eq!(r.superseded, None, "Berlin still holds");
    assert_eq!(c.facts().iter().map(|f| f.id.clone()).collect::<Vec<_>>(), vec![be]);
    let paris = c.fact_history("home_city").into_iter().find(|f| f.id == r.id).unwrap();
    assert_eq!(paris.valid_until, Some(JAN_2024));
}

#[test]
fn the_recall_block_marks_an_ended_value_after_the_current_one() {
    let (mut c, _, _) = moved();
    let block = recall_block(&mut c, "Where does the user live?", None);
    let (berlin, shanghai) = (block.find("Berlin").unwrap(), block.find("Shanghai").unwrap());
    assert!(berlin < shanghai, "what holds comes first: {block}");
    assert!(block.contains("The user lives in Shanghai. (until 2026-03)"), "{block}");
    assert!(!block.contains("Berlin. ("), "a current value is not marked without a time asked: {block}");
}

#[test]
fn a_question_about_the_past_ranks_what_held_then_in_either_language() {
    let english = ["The user lives in Shanghai.", "The user lives in Berlin."];
    let chinese = ["用户住在上海。", "用户住在柏林。"];
    for (texts, query, as_of) in [
        (english, "Where did the user live last year?", None),
        (chinese, "去年用户住在哪里？", None),
        (english, "Where does the user live?", Some(JUN_2025)),
        (chinese, "用户两年前住在哪里？", None),
    ] {
        let (mut c, _, _) = moved_in(texts);
        let block = recall_block(&mut c, query, as_of);
        let [then, now] = texts.map(|t| block.find(t).unwrap_or_else(|| panic!("{query}: {t} missing: {block}")));
        assert!(then < now, "{query}: {block}");
        assert!(
            block.contains(&format!("{} (2024-01 to 2026-03)", texts[0])) && block.contains(&format!("{} (since 2026-03)", texts[1])),
            "{block}"
        );
    }
}

#[test]
fn a_contradiction_without_a_shared_key_supersedes_by_the_rules_and_the_host_can_say_otherwise() {
    let mut c = controller();
    let sh = remember(&mut c, None, "I live in Shanghai.", None, 1.0);
    let job = remember(&mut c, None, "I work at Tencent.", None, 2.0);
    let sister = remember(&mut c, None, "My sister lives in Suzhou.", None, 3.0);
    let be = remember(&mut c, Some("home_city"), "The user moved to Berlin.", None, 4.0);
    assert_eq!(be.superseded.as_deref(), Some(sh.id.as_str()));
    let live: Vec<String> = c.facts().iter().map(|f| f.id.clone()).collect();
    assert_eq!(live, vec![job.id.clone(), sister.id.clone(), be.id.clone()]);
    let ended = c.facts_as_of(Some(1.5));
    assert!(ended.iter().any(|f| f.id == sh.id && f.valid_until == Some(4.0)));
    // The host's own judgement wins: `supersedes: []` ends nothing, and an id ends that fact.
    let input =
        |text: &str, supersedes: Vec<String>| RememberInput { text: text.into(), supersedes: Some(supersedes), ..Default::default() };
    let p = c.prepare_remember(input("我在字节跳动工作。", vec![]), 5.0).unwrap();
    c.commit_remember(p);
    assert_eq!(c.facts().len(), 4);
    let p = c.prepare_remember(input("我在字节跳动工作。", vec![job.id.clone()]), 6.0).unwrap();
    assert_eq!(c.commit_remember(p).superseded, Some(job.id.clone()));
    let err = c.prepare_remember(input("x", vec![sh.id.clone()]), 7.0).unwrap_err();
    assert_eq!(err.code(), "INVALID_INPUT", "an ended fact cannot be ended again");
}
