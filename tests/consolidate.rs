//! Consolidation (issue 24, item 3), offline: duplicates merged, a
//! contradiction resolved for the newer value, a profile written within
//! its budget; nothing deleted, and a second call writes nothing. By a
//! model: the request it is sent, and what of its answer counts (only ids
//! sent and still live, one kind, the newer value winning, the profile cut
//! to budget); garbage falls back to the offline rules.

mod common;

use agent_memory::context::Degraded;
use agent_memory::controller::{Asked, Consolidated, ConsolidationRequest};
use agent_memory::episodic::SummarySource;
use agent_memory::semantic::RememberInput;
use agent_memory::{Controller, Options};

fn remember(c: &mut Controller, text: &str, kind: Option<&str>, at: f64) -> String {
    // `supersedes: []`: stored as 0.1.0 or an app without the rules would have.
    let input = RememberInput { text: text.into(), kind: kind.map(String::from), supersedes: Some(vec![]), ..Default::default() };
    let p = c.prepare_remember(input, at).unwrap();
    c.commit_remember(p).id
}

fn consolidate(c: &mut Controller, at: f64) -> Consolidated {
    let (p, out) = c.prepare_consolidate(at, None).unwrap();
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
    assert_eq!(again, Consolidated { source: Some(SummarySource::Fallback), ..Consolidated::default() });
}

/// Consolidates with `answer` as the model's reply to the request.
fn by_model(c: &mut Controller, at: f64, answer: Result<&str, Degraded>) -> (ConsolidationRequest, Consolidated) {
    let request = c.consolidation_request().unwrap().expect("something to ask");
    let (p, out) = c.prepare_consolidate(at, Some(Asked { request: &request, answer })).unwrap();
    c.commit_consolidate(p);
    (request, out)
}

fn live_texts(c: &Controller) -> Vec<String> {
    c.facts().iter().filter(|f| f.key.as_deref() != Some("profile")).map(|f| f.text.clone()).collect()
}

#[test]
fn the_request_lists_live_facts_and_is_not_sent_again_until_one_is_stored() {
    let mut c = Controller::new(common::options(true), common::o200k()).unwrap();
    assert!(c.consolidation_request().unwrap().is_none(), "nothing to ask");
    let a = remember(&mut c, "I like spicy food.", Some("preference"), 1.0);
    let b = remember(&mut c, "I live in Shanghai.", None, 2.0);
    let request = c.consolidation_request().unwrap().unwrap();
    let json = serde_json::to_value(&request).unwrap();
    assert_eq!(json["purpose"], "consolidation");
    assert_eq!(json["profileTokens"], 200);
    assert_eq!(json["facts"][0]["id"], a.as_str());
    assert_eq!(json["facts"][0]["kind"], "preference");
    assert_eq!(json["facts"][1]["id"], b.as_str());
    assert_eq!(json["facts"][1]["validFrom"], 2.0);
    assert!(json.get("profile").is_none());
    let (_, out) = by_model(&mut c, 5.0, Ok(r#"{"merges":[],"supersedes":[],"profile":"User profile:\n- lives in Shanghai"}"#));
    assert_eq!(out.source, Some(SummarySource::Model));
    assert_eq!(out.profile.as_deref(), Some("User profile:\n- lives in Shanghai"));
    assert!(c.consolidation_request().unwrap().is_none(), "the model has seen every fact");
    remember(&mut c, "I moved to Berlin.", None, 6.0);
    let again = c.consolidation_request().unwrap().unwrap();
    assert_eq!(again.facts.len(), 3);
    assert_eq!(again.profile.as_deref(), Some("User profile:\n- lives in Shanghai"), "the current profile is sent");
}

#[test]
fn the_request_is_bounded_by_summary_input_tokens_keeping_the_newest() {
    let opts = Options { summary_tokens: 50, summary_input_tokens: 120, ..common::options(true) };
    let mut c = Controller::new(opts, common::o200k()).unwrap();
    let ids: Vec<String> =
        (0..40).map(|i| remember(&mut c, &format!("Fact number {i} about the user's hobby {i}."), None, i as f64)).collect();
    let request = c.consolidation_request().unwrap().unwrap();
    let sent: Vec<&str> = request.facts.iter().map(|f| f.id.as_str()).collect();
    assert!(sent.len() > 3 && sent.len() < 40, "{} facts sent", sent.len());
    assert_eq!(sent.last().copied(), ids.last().map(String::as_str), "the newest, oldest first");
    let tokens: usize = request.facts.iter().map(|f| c.count_tokens(&f.text)).sum();
    assert!(tokens <= 120, "{tokens} tokens of facts");
}

#[test]
fn only_what_the_model_may_decide_counts_and_nothing_is_lost() {
    let mut c = Controller::new(common::options(true), common::o200k()).unwrap();
    let spicy1 = remember(&mut c, "I like spicy food.", Some("preference"), 1.0);
    let spicy2 = remember(&mut c, "I love hot, spicy dishes.", Some("preference"), 2.0);
    let sichuan = remember(&mut c, "Sichuan food is my favourite.", None, 3.0);
    let shanghai = remember(&mut c, "I live in Shanghai.", None, 4.0);
    let short = remember(&mut c, "Keep answers short.", Some("preference"), 5.0);
    let berlin = remember(&mut c, "I moved to Berlin.", None, 10.0);
    let cat = remember(&mut c, "I have a cat.", None, 11.0);
    let long = "User profile:\n- lives in Berlin\n".to_string() + &"- likes spicy food, especially from Sichuan\n".repeat(40);
    let answer = format!(
        r#"Here you go:
```json
{{"merges": [
   {{"ids": ["{spicy1}", "{spicy2}", "f-nobody-99"], "text": "I like spicy food."}},
   {{"ids": ["{sichuan}", "{short}"], "text": "mixed kinds"}},
   {{"ids": ["{cat}", "f-nobody-98"], "text": "only one id was sent"}},
   {{"ids": ["{shanghai}", "{cat}"], "text": "{}"}}
 ],
 "supersedes": [{{"id": "{berlin}", "by": "{shanghai}"}}, {{"id": "{shanghai}", "by": "{berlin}"}}, {{"id": "{cat}", "by": "f-nobody-97"}}],
 "profile": {}}}
```"#,
        "a text far longer than the two facts it claims to merge, ".repeat(5),
        serde_json::to_string(&long).unwrap()
    );
    let (_, out) = by_model(&mut c, 20.0, Ok(&answer));
    assert_eq!(out.source, Some(SummarySource::Model));
    assert_eq!(out.degraded, None);
    // One merge (the unsent id dropped; mixed kinds, a single sent id and an
    // over-long text refused); Shanghai ended by Berlin, not the reverse.
    assert_eq!(out.superseded, vec![shanghai.clone()]);
    assert_eq!(out.merged.len(), 2, "{out:?}");
    let texts = live_texts(&c);
    assert_eq!(
        texts,
        ["Sichuan food is my favourite.", "Keep answers short.", "I have a cat.", "I like spicy food.", "I moved to Berlin."]
    );
    let merged = c.facts().into_iter().find(|f| f.text == "I like spicy food.").unwrap().clone();
    assert_eq!(merged.merges, vec![spicy1.clone(), spicy2.clone()]);
    assert_eq!(merged.valid_from, Some(1.0), "holds from the earliest it merges");
    // The profile was cut to its budget at a line.
    let profile = out.profile.unwrap();
    assert!(c.count_tokens(&profile) <= 200 && profile.starts_with("User profile:\n- lives in Berlin") && !profile.ends_with('\n'));
    // Nothing lost: each fact stated is live, or in history with its successor.
    let history: Vec<String> = (0..30).flat_map(|t| c.facts_as_of(Some(t as f64))).map(|f| f.id).collect();
    let restated: Vec<String> = c.facts().iter().flat_map(|f| f.merges.clone()).collect();
    for id in [&spicy1, &spicy2, &sichuan, &shanghai, &short, &berlin, &cat] {
        assert!(history.contains(id) || restated.contains(id), "{id} lost");
    }
}

#[test]
fn a_fact_ended_while_the_model_was_answering_is_not_merged() {
    let mut c = Controller::new(common::options(true), common::o200k()).unwrap();
    let a = remember(&mut c, "I like spicy food.", Some("preference"), 1.0);
    let b = remember(&mut c, "I like spicy food!", Some("preference"), 2.0);
    let request = c.consolidation_request().unwrap().unwrap();
    // Meanwhile the user changes their mind (a keyed value would do the same).
    let input = RememberInput {
        text: "I no longer eat spicy food.".into(),
        kind: Some("preference".into()),
        supersedes: Some(vec![b.clone()]),
        ..Default::default()
    };
    let p = c.prepare_remember(input, 3.0).unwrap();
    c.commit_remember(p);
    let answer = format!(r#"{{"merges":[{{"ids":["{a}","{b}"],"text":"I like spicy food."}}],"profile":""}}"#);
    let (p, out) = c.prepare_consolidate(4.0, Some(Asked { request: &request, answer: Ok(&answer) })).unwrap();
    c.commit_consolidate(p);
    assert!(out.merged.is_empty(), "{out:?}");
    assert_eq!(live_texts(&c), ["I like spicy food.", "I no longer eat spicy food."]);
}

#[test]
fn garbage_failures_and_timeouts_fall_back_to_the_offline_rules() {
    let garbage = [
        "",
        "Sure! The user likes spicy food and lives in Berlin.",
        r#"{"summary": "the user likes spicy food", "supersedes": []}"#,
        r#"{"supersedes": []}"#,
        r#"{"merges": "all of them"}"#,
        r#"{"merges": [["f-1", "f-2"]]}"#,
        r#"{"merges": [{"ids": ["f-1"]}]}"#,
        r#"{"merges": [{"text": "x"}]}"#,
        r#"{"merges": [], "supersedes": [{"id": "f-1"}]}"#,
        r#"{"merges": [], "profile": 42}"#,
        r#"{"merges": [{"ids": ["a", "b"], "text": "cut off here"#,
        "<html>502 Bad Gateway</html>",
        "[1, 2, 3]",
    ];
    let failures = [
        Err(Degraded { code: "SUMMARIZER_TIMEOUT".into(), message: "the summarizer did not answer within 60000 ms".into() }),
        Err(Degraded { code: "SUMMARIZER_HTTP".into(), message: "HTTP 500".into() }),
    ];
    let offline = {
        let mut c = Controller::new(common::options(true), common::o200k()).unwrap();
        seed(&mut c);
        consolidate(&mut c, 20.0);
        live_texts(&c)
    };
    for answer in garbage.iter().map(|g| Ok(*g)).chain(failures) {
        let mut c = Controller::new(common::options(true), common::o200k()).unwrap();
        seed(&mut c);
        let expected = match &answer {
            Ok(_) => "SUMMARIZER_INVALID".to_string(),
            Err(d) => d.code.clone(),
        };
        let (_, out) = by_model(&mut c, 20.0, answer.clone());
        assert_eq!(out.source, Some(SummarySource::Fallback), "{answer:?}");
        assert_eq!(out.degraded.as_ref().map(|d| d.code.clone()), Some(expected), "{answer:?}");
        assert_eq!(live_texts(&c), offline, "{answer:?}: the offline rules decided");
        assert_eq!(out.superseded.len(), 1);
    }
}

fn seed(c: &mut Controller) {
    for i in 0..3 {
        remember(c, "I like spicy food.", Some("preference"), i as f64);
    }
    remember(c, "I live in Shanghai.", None, 5.0);
    remember(c, "I moved to Berlin.", None, 6.0);
}

/// What consolidation restated from a fact is forgotten with it: the merge
/// that restates it and the profile written from it; what is not forgotten
/// stays, and the next consolidation writes a profile without it.
#[test]
fn forgetting_a_fact_forgets_what_consolidation_restated_from_it() {
    use agent_memory::controller::ForgetTarget;
    let mut c = Controller::new(Options { ..common::options(true) }, common::o200k()).unwrap();
    let cat: Vec<String> = (0..2).map(|i| remember(&mut c, "My cat is called Mochi.", None, i as f64)).collect();
    remember(&mut c, "I live in Berlin.", None, 5.0);
    let out = consolidate(&mut c, 10.0);
    assert!(out.profile.as_deref().is_some_and(|p| p.contains("Mochi") && p.contains("Berlin")), "{out:?}");
    assert_eq!(out.merged.len(), 1);
    for id in &cat {
        let p = c.prepare_forget(&ForgetTarget::Fact(id.clone()), 20.0).unwrap();
        c.commit_forget(p);
    }
    let export = c.export(true).unwrap();
    assert!(!export.contains("Mochi"), "{export}");
    let texts: Vec<String> = c.facts().iter().map(|f| f.text.clone()).collect();
    assert_eq!(texts, vec!["I live in Berlin.".to_string()]);
    let again = consolidate(&mut c, 30.0);
    assert!(again.profile.as_deref().is_some_and(|p| p.contains("Berlin") && !p.contains("Mochi")), "{again:?}");
}
