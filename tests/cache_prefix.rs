//! The context reads stable to volatile: between two compactions each
//! context begins with the previous one's messages up to its recall block
//! (`cache.messages`), byte for byte, over random chats, queries and tool
//! loops, so a provider's prompt cache bills them at its cached price.

mod common;

use agent_memory::context::{ContextRequest, Layout};
use agent_memory::message::{Message, Role};
use agent_memory::semantic::RememberInput;
use agent_memory::window::WindowConfig;
use agent_memory::{Controller, Options};
use proptest::prelude::*;
use serde_json::json;

/// One user turn: what the user says, then the assistant's tool calls
/// (each answered), then its reply; the query is the user's text.
#[derive(Clone, Debug)]
struct Turn {
    user: String,
    tools: usize,
    reply: String,
}

fn text() -> impl Strategy<Value = String> {
    let words = prop::sample::select(vec![
        "hotel",
        "Chengdu",
        "flight",
        "CA1234",
        "budget",
        "我们",
        "明天",
        "去成都",
        "火锅",
        "记住",
        "I prefer",
        "window seats",
        "the",
        "report",
        "周五",
        "3 pm",
        "🙂",
    ]);
    prop::collection::vec(words, 1..30).prop_map(|w| w.join(" "))
}

fn turn() -> impl Strategy<Value = Turn> {
    (text(), prop_oneof![3 => Just(0usize), 1 => 1usize..3], text()).prop_map(|(user, tools, reply)| Turn { user, tools, reply })
}

fn controller(working: usize) -> Controller {
    let mut c = Controller::new(
        Options { working: WindowConfig { max_tokens: working, ..WindowConfig::default() }, ..common::options(true) },
        common::o200k(),
    )
    .unwrap();
    c.add_message(Message::text(Role::System, "You are a travel assistant."), 0.5).unwrap();
    for (i, text) in ["The user lives in Shanghai.", "Hotel budget is 600 yuan a night.", "The flight CA1234 leaves Friday at 3 pm."]
        .into_iter()
        .enumerate()
    {
        let p = c.prepare_remember(RememberInput { text: text.into(), ..Default::default() }, 0.6 + i as f64 * 0.01).unwrap();
        c.commit_remember(p);
    }
    c
}

fn to_json(messages: &[Message]) -> Vec<String> {
    messages.iter().map(|m| serde_json::to_string(m).unwrap()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn each_context_begins_with_the_previous_ones_stable_prefix(turns in prop::collection::vec(turn(), 4..40), working in 200usize..900, extra in 0usize..3000, note in 40usize..400) {
        let mut c = controller(working);
        // Room for working memory beside the note and the recall block's floor.
        let req = |q: &str| ContextRequest { max_tokens: 3 * working + 1500 + extra, query: Some(q.to_string()), now: Some(1e9), ..Default::default() };
        let mut t = 1.0;
        let mut prev: Option<(usize, Vec<String>)> = None;
        let (mut compared, mut cached) = (0, 0);
        let mut check = |c: &mut Controller, query: &str| -> Result<(), TestCaseError> {
            // (a clone remembers none of the note's picks)
            let mut fresh = c.clone();
            let ctx = c.build_context(&req(query)).unwrap();
            let episodes = c.episodes().len();
            let now = to_json(&ctx.messages);
            // The note picked again (remembered since an earlier context) is the one picked fresh.
            let fresh = fresh.build_context(&req(query)).unwrap();
            prop_assert_eq!(&to_json(&fresh.messages), &now);
            prop_assert_eq!(fresh.tokens, ctx.tokens);
            // And with a small cap on the note, which these caps alternate with.
            for cap in [note, note / 2] {
                let small = ContextRequest { episodic_tokens: Some(cap), ..req(query) };
                let mut fresh = c.clone();
                let (again, fresh) = (c.build_context(&small), fresh.build_context(&small));
                prop_assert_eq!(again.is_ok(), fresh.is_ok());
                if let (Ok(a), Ok(f)) = (again, fresh) {
                    prop_assert_eq!(to_json(&a.messages), to_json(&f.messages));
                }
            }
            prop_assert!(ctx.cache.messages <= now.len());
            let prefix: Vec<serde_json::Value> = ctx.messages[..ctx.cache.messages].iter().map(|m| serde_json::to_value(m).unwrap()).collect();
            prop_assert_eq!(ctx.cache.tokens + 3, c.count_messages(&prefix, &[]).unwrap(), "cache.tokens counts the prefix (3 reply-priming tokens aside)");
            if let Some((e, before)) = &prev {
                if *e == episodes {
                    prop_assert_eq!(&now[..before.len()], &before[..], "a context between two compactions changed the previous one's stable prefix");
                    compared += 1;
                    cached += usize::from(!before.is_empty());
                }
            }
            prev = Some((episodes, now[..ctx.cache.messages].to_vec()));
            Ok(())
        };
        for turn in &turns {
            t += 1.0;
            c.add_message(Message::text(Role::User, turn.user.clone()), t).unwrap();
            check(&mut c, &turn.user)?;
            for k in 0..turn.tools {
                let id = format!("call_{t}_{k}");
                let call = json!({"role": "assistant", "content": null, "tool_calls": [{"id": id, "type": "function", "function": {"name": "search_hotels", "arguments": "{\"city\":\"Chengdu\"}"}}]});
                c.add_message(Message::parse(&call).unwrap(), t + 0.1).unwrap();
                c.add_message(Message::parse(&json!({"role": "tool", "tool_call_id": id, "content": "3 hotels under 600 yuan"})).unwrap(), t + 0.2).unwrap();
                check(&mut c, &turn.user)?;
            }
            c.add_message(Message::text(Role::Assistant, turn.reply.clone()), t + 0.5).unwrap();
        }
        prop_assert!(compared > 0 && cached == compared, "compared {compared}, with a stable prefix {cached}");
    }
}

#[test]
fn the_recall_block_stands_right_before_the_newest_user_turn() {
    let mut c = controller(400);
    c.add_message(Message::text(Role::User, "Our backup is the hostel on Jinli street."), 1.0).unwrap();
    for i in 1..60 {
        let role = if i % 2 == 0 { Role::User } else { Role::Assistant };
        c.add_message(Message::text(role, format!("Turn {i}: we talked about the Chengdu hotel near the river, room {i}")), 1.0 + i as f64)
            .unwrap();
    }
    let q = "Which hotel budget did I set, and what is the backup on Jinli street?";
    c.add_message(Message::text(Role::User, q), 100.0).unwrap();
    let stable = c.build_context(&ContextRequest { max_tokens: 3000, query: Some(q.into()), ..Default::default() }).unwrap();
    let k = stable.sections.knowledge.message.unwrap_or_else(|| panic!("a recall block: {:?}", stable.sections));
    assert_eq!(stable.cache.messages, k);
    assert_eq!(stable.messages[k + 1].content_text(), q);
    assert_eq!(k + 2, stable.messages.len());
    // Retrieved turns carry their date and speaker, not their id.
    assert!(
        stable.messages[k].content_text().contains("\n- 1970-01-01 user: Our backup is the hostel on Jinli street."),
        "{}",
        stable.messages[k].content_text()
    );
    assert!(!stable.messages[k].content_text().contains("m-local"));
    // The old order: right after the pinned blocks.
    let first = c
        .build_context(&ContextRequest { max_tokens: 3000, query: Some(q.into()), layout: Layout::RecallFirst, ..Default::default() })
        .unwrap();
    assert_eq!(first.sections.knowledge.message, Some(1));
    assert_eq!(first.cache.messages, 1);
    assert_eq!(first.tokens, stable.tokens, "the same parts, in another order");
}

#[test]
fn below_what_a_provider_caches_the_turns_take_what_recall_leaves() {
    let mut c = controller(100_000);
    for i in 0..40 {
        c.add_message(
            Message::text(
                if i % 2 == 0 { Role::User } else { Role::Assistant },
                format!("Question {i}: what should I pack for day {i} of the trip to 成都?"),
            ),
            1.0 + i as f64,
        )
        .unwrap();
    }
    let at = |c: &mut Controller, max: usize| {
        c.build_context(&ContextRequest { max_tokens: max, query: Some("Last question?".into()), ..Default::default() }).unwrap()
    };
    let small = at(&mut c, 500);
    assert!(small.sections.knowledge.ids.is_empty());
    assert!(small.tokens > 450, "{} of 500: the unused recall floor went to the turns", small.tokens);
    // At a size a provider caches, the floor stays set aside whatever the query found.
    let large = at(&mut c, 1500);
    let rest = 1500 - large.sections.system.tokens - large.sections.preferences - large.sections.overhead;
    assert!(large.sections.knowledge.ids.is_empty());
    assert!(large.sections.recent.tokens + large.sections.summary.tokens <= rest * 7 / 10, "{:?}", large.sections);
}

#[test]
fn a_recalled_episode_is_refreshed_and_no_other() {
    let mut c = controller(200);
    // One word each in ten turns: a turn matches a tenth of the query,
    // under the floor; their episode's summary matches more of it.
    const WORDS: [&str; 10] = ["azalea", "bramble", "cobalt", "dulcimer", "ember", "fjord", "garnet", "heron", "indigo", "juniper"];
    for i in 0..80usize {
        let role = if i % 2 == 0 { Role::User } else { Role::Assistant };
        let text = match WORDS.get(i.wrapping_sub(20)) {
            Some(w) => format!("Turn {i}: the garden plan needs {w}."),
            None => format!("Turn {i}: we talked about packing for the Chengdu trip, item {i}"),
        };
        c.add_message(Message::text(role, text), 1.0 + i as f64).unwrap();
    }
    let before: Vec<(String, f64)> = c.episodes().iter().map(|e| (e.id.clone(), e.last_recalled)).collect();
    assert!(before.len() > 3, "{} episodes", before.len());
    let q = WORDS.join(" ");
    let ctx = c.build_context(&ContextRequest { max_tokens: 3000, query: Some(q), now: Some(5e9), ..Default::default() }).unwrap();
    let shown = &ctx.sections.knowledge.ids;
    assert!(before.iter().any(|(id, _)| shown.contains(id)), "an episode is shown: {shown:?}");
    for (e, (id, was)) in c.episodes().iter().zip(&before) {
        assert_eq!(&e.id, id);
        let want = if shown.contains(id) { 5e9 } else { *was };
        assert_eq!(e.last_recalled, want, "{id}");
    }
}
