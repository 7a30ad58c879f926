//! Consolidation offline (issue 24, item 3): duplicates merged, a
//! contradiction resolved for the newer value, a profile written within
//! its budget; nothing deleted, and a second call writes nothing.

mod common;

use agent_memory::semantic::RememberInput;
use agent_memory::{Controller, Options};

fn remember(c: &mut Controller, text: &str, kind: Option<&str>, at: f64) -> String {
    // `supersedes: []`: stored as 0.1.0 or an app without the rules would have.
    let input = RememberInput { text: text.into(), kind: kind.map(String::from), supersedes: Some(vec![]), ..Default::default() };
    let p = c.prepare_remember(input, at).unwrap();
    c.commit_remember(p).id
}

fn consolidate(c: &mut Controller, at: f64) -> agent_memory::controller::Consolidated {
    let (p, out) = c.prepare_consolidate(at).unwrap();
    c.commit_consolidate(p);
    out
}

#[test]
fn duplicates_merge_contradictions_end_and_a_profile_is_written_nothing_lost() {
    let mut c = Controller::new(Options { ..common::options(true) }, common::o200k()).unwrap();
    let spicy: Vec<String> = (0..4).map(|i| remember(&mut c, "I like spicy food.", Some("preference"), i as f64)).collect();
    let shanghai = remember(&mut c, "I live in Shanghai.", None, 10.0);
    let tencent = remember(&mut c, "我在腾讯工作。", None, 11.0);
    let berlin = remember(&mut c, "I moved to Berlin.", None, 12.0);
    let out = consolidate(&mut c, 20.0);
    assert_eq!(out.superseded, vec![shanghai.clone()]);
    assert_eq!(out.merged.len(), 2, "the four likes, and Berlin restated to end Shanghai: {out:?}");
    let live: Vec<(String, Option<String>)> = c.facts().iter().map(|f| (f.text.clone(), f.key.clone())).collect();
    let texts: Vec<&str> = live.iter().map(|(t, _)| t.as_str()).collect();
    assert_eq!(texts.iter().filter(|t| **t == "I like spicy food.").count(), 1, "{texts:?}");
    assert!(
        texts.contains(&"我在腾讯工作。") && texts.contains(&"I moved to Berlin.") && !texts.contains(&"I live in Shanghai."),
        "{texts:?}"
    );
    let profile = out.profile.clone().unwrap();
    assert!(
        profile.starts_with("User profile:") && profile.contains("Berlin") && profile.contains("腾讯") && !profile.contains("Shanghai"),
        "{profile}"
    );
    assert!(c.count_tokens(&profile) <= 200);
    // Nothing lost: every fact stated is still stored, with when it held.
    let merged = c.facts().iter().find(|f| f.text == "I like spicy food.").map(|f| f.merges.clone()).unwrap();
    assert_eq!(merged, spicy);
    assert_eq!(c.facts_as_of(Some(10.5)).iter().filter(|f| f.id == shanghai).count(), 1);
    let history: Vec<String> = (0..40).flat_map(|t| c.facts_as_of(Some(t as f64))).map(|f| f.id).collect();
    let restated: Vec<String> = c.facts().iter().flat_map(|f| f.merges.clone()).collect();
    for id in spicy.iter().chain([&shanghai, &tencent, &berlin]) {
        assert!(history.contains(id) || restated.contains(id), "{id} lost");
    }
    // Idempotent.
    let again = consolidate(&mut c, 30.0);
    assert_eq!(again, Default::default());
}
