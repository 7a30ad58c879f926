//! The relevance floor of the recall block at both ends of a namespace's
//! size: a strong match stays in with one document beside it and with
//! 100,000, and after forgets shrink the namespace; a match on one common
//! word stays out.

mod common;

use agent_memory::context::ContextRequest;
use agent_memory::controller::ForgetTarget;
use agent_memory::message::{Message, Role};
use agent_memory::semantic::RememberInput;
use agent_memory::window::WindowConfig;
use agent_memory::{Controller, Options};

fn controller() -> Controller {
    Controller::new(
        Options { working: WindowConfig { max_tokens: 300, ..WindowConfig::default() }, ..common::options(true) },
        common::o200k(),
    )
    .unwrap()
}

fn remember(c: &mut Controller, text: &str) -> String {
    let input = RememberInput { key: Some("home_city".into()), text: text.into(), ..Default::default() };
    let p = c.prepare_remember(input, 1.0).unwrap();
    c.commit_remember(p).id
}

fn recalled(c: &mut Controller, query: &str) -> Vec<String> {
    c.build_context(&ContextRequest { max_tokens: 2000, query: Some(query.into()), ..Default::default() }).unwrap().sections.knowledge.ids
}

fn forget(c: &mut Controller, target: ForgetTarget) {
    let p = c.prepare_forget(&target, 1e9).unwrap();
    c.commit_forget(p);
}

#[test]
fn a_strong_match_stays_in_a_namespace_of_one_document() {
    let mut c = controller();
    let home = remember(&mut c, "The user lives in Shanghai.");
    assert_eq!(recalled(&mut c, "Which city do I live in?"), vec![home.clone()]);
    assert_eq!(recalled(&mut c, "Remind me, where do I live now?"), vec![home]);
}

#[test]
fn a_strong_match_stays_in_after_forgets_shrink_the_namespace() {
    let mut c = controller();
    let home = remember(&mut c, "The user lives in Shanghai.");
    for i in 0..30 {
        c.add_message(
            Message::text(
                if i % 2 == 0 { Role::User } else { Role::Assistant },
                format!("Trip plan {i}: the night train to Chengdu, hotpot on day {i}, hostel near the river"),
            ),
            10.0 + i as f64,
        )
        .unwrap();
    }
    assert!(recalled(&mut c, "Which city do I live in?").contains(&home));
    forget(&mut c, ForgetTarget::Range { from: 0.0, to: 1e6 });
    assert_eq!(recalled(&mut c, "Which city do I live in?"), vec![home]);
}

#[test]
fn a_strong_match_stays_in_among_100_000_messages_and_a_common_word_does_not_bring_one_back() {
    let mut c = controller();
    let home = remember(&mut c, "The user lives in Shanghai.");
    let topics = ["flights", "hotels", "the quarterly report", "a birthday cake", "the garden", "周末的火锅", "跑步计划", "new shoes"];
    for i in 0..100_000u32 {
        let topic = topics[(i % 8) as usize];
        let text = format!("Message {i} about {topic}, item {} of the list", i % 97);
        c.add_message(Message::text(if i % 2 == 0 { Role::User } else { Role::Assistant }, text), 10.0 + f64::from(i)).unwrap();
    }
    assert!(recalled(&mut c, "Which city do I live in?").contains(&home));
    // Every message shares "周末" with this query, and nothing else of it.
    let weak = recalled(&mut c, "周末去爬青城山要准备什么装备？");
    assert!(weak.is_empty(), "{weak:?}");
}
