//! Properties of working memory and the context builder over random
//! conversations, budgets and tool-call groupings.

mod common;

use agent_memory::context::ContextRequest;
use agent_memory::message::{Message, Role};
use agent_memory::tokens::chat::message_tokens;
use agent_memory::tokens::Counter;
use agent_memory::window::WindowConfig;
use agent_memory::{Controller, MemoryError, Options};
use proptest::prelude::*;
use serde_json::json;

#[derive(Clone, Debug)]
enum Step {
    Say(Role, String),
    /// An assistant message with `n` tool calls, then results for the first `answered`.
    Tools {
        n: usize,
        answered: usize,
        text: String,
    },
}

fn text() -> impl Strategy<Value = String> {
    let words = prop::sample::select(vec![
        "hello",
        "the",
        "budget",
        "tokens",
        "我们",
        "明天",
        "去成都",
        "记住",
        "花生过敏",
        "🙂",
        "fn main()",
        "{\"a\":1}",
        "1234567",
        "ok",
        "\n",
        "internationalization",
        "  ",
        "I prefer",
        "請幫我",
        "東京",
        "서울",
    ]);
    prop::collection::vec(words, 0..40).prop_map(|w| w.join(" "))
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => text().prop_map(|t| Step::Say(Role::User, t)),
        4 => text().prop_map(|t| Step::Say(Role::Assistant, t)),
        1 => text().prop_map(|t| Step::Say(Role::System, t)),
        2 => (1usize..4, 0usize..4, text()).prop_map(|(n, a, text)| Step::Tools { n, answered: a.min(n), text }),
    ]
}

fn config() -> impl Strategy<Value = WindowConfig> {
    (20usize..3000, 0.3f64..1.0, 0.0f64..1.0, prop::option::of(1usize..30)).prop_map(|(max, th, tr, cap)| WindowConfig {
        max_tokens: max,
        compression_threshold: th,
        target_ratio: tr * th * 0.99,
        recent_messages: cap,
    })
}

/// Feeds the steps; returns the messages added, in order.
fn feed(c: &mut Controller, steps: &[Step]) -> Vec<Message> {
    let mut added = Vec::new();
    let mut call = 0;
    let mut t = 0.0;
    let mut push = |c: &mut Controller, m: Message| {
        t += 1.0;
        c.add_message(m.clone(), t).unwrap();
        added.push(m);
    };
    for s in steps {
        match s {
            // Some assistant replies come as clients return them: response-only fields and reasoning.
            Step::Say(Role::Assistant, text) if text.len() % 2 == 1 => push(
                c,
                Message::parse(&json!({"role": "assistant", "content": text, "refusal": null, "annotations": [], "logprobs": null, "reasoning_content": format!("thinking about {text}")})).unwrap(),
            ),
            Step::Say(role, text) => push(c, Message::text(*role, text.clone())),
            Step::Tools { n, answered, text } => {
                let ids: Vec<String> = (0..*n).map(|_| {
                    call += 1;
                    format!("call_{call}")
                }).collect();
                let calls: Vec<_> = ids.iter().map(|id| json!({"id": id, "type": "function", "function": {"name": "lookup", "arguments": "{\"q\":\"x\"}"}})).collect();
                push(c, Message::parse(&json!({"role": "assistant", "content": null, "tool_calls": calls, "reasoning_content": text})).unwrap());
                for id in ids.iter().take(*answered) {
                    push(c, Message::parse(&json!({"role": "tool", "tool_call_id": id, "content": text})).unwrap());
                }
            }
        }
    }
    added
}

/// Every assistant message with tool calls in `msgs` is followed, before the
/// next non-tool message, by a result for each of its calls.
fn groups_whole(msgs: &[Message]) -> bool {
    msgs.iter().enumerate().all(|(i, m)| match &m.tool_calls {
        None => true,
        Some(calls) => {
            let results: Vec<&str> =
                msgs[i + 1..].iter().take_while(|n| n.role == Role::Tool).filter_map(|n| n.tool_call_id.as_deref()).collect();
            calls.iter().all(|c| results.contains(&c.id.as_str())) && results.len() == calls.len()
        }
    }) && msgs
        .iter()
        .enumerate()
        .all(|(i, m)| m.role != Role::Tool || i > 0 && (msgs[i - 1].role == Role::Tool || msgs[i - 1].tool_calls.is_some()))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn budget_recount_groups_and_history(steps in prop::collection::vec(step(), 1..80), cfg in config(), max in 30usize..4000, reserve in 0usize..200, exact in any::<bool>(), keep in any::<bool>()) {
        let counter = if exact { common::o200k() } else { common::estimator() };
        let mut c = Controller::new(Options { working: cfg, ..common::options(exact) }, counter.clone()).unwrap();
        let added = feed(&mut c, &steps);

        // Nothing lost: history is everything added, in order.
        let history: Vec<Message> = c.history().into_iter().map(|h| h.message).collect();
        prop_assert_eq!(&history, &added);

        let keep_fields = if keep { vec!["annotations".to_string()] } else { vec![] };
        let req = ContextRequest { max_tokens: max, reserve_output: reserve, keep_fields, ..Default::default() };
        match c.build_context(&req) {
            Ok(ctx) => {
                prop_assert!(ctx.tokens <= max - reserve.min(max));
                prop_assert_eq!(ctx.tokens, common::recount(&counter, &ctx.messages));
                // Only what the request accepts goes back: reasoning only on
                // assistant messages of a turn (user to user, in history) that called tools.
                let mut tool_turn = std::collections::HashMap::new();
                let mut called = false;
                for h in c.history() {
                    called = if h.message.role == Role::User { false } else { called || h.message.tool_calls.is_some() };
                    tool_turn.insert(h.id, h.message.role == Role::Assistant && called);
                }
                for m in &ctx.messages {
                    prop_assert!(!m.extra.contains_key("logprobs") && !m.extra.contains_key("refusal"), "{:?}", m);
                    prop_assert!(keep || !m.extra.contains_key("annotations"), "{:?}", m);
                }
                let recent = &ctx.messages[ctx.messages.len() - ctx.sections.recent.message_ids.len()..];
                for (m, id) in recent.iter().zip(&ctx.sections.recent.message_ids) {
                    let had = added.iter().zip(c.history()).find(|(_, h)| h.id == *id).is_some_and(|(a, _)| a.extra.contains_key("reasoning_content"));
                    prop_assert_eq!(m.extra.contains_key("reasoning_content"), had && tool_turn[id], "{:?}", m);
                }
                prop_assert!(groups_whole(&ctx.messages), "a tool group was split: {:?}", ctx.messages);
                // The recent turns are the newest ones, in order.
                let ids = &ctx.sections.recent.message_ids;
                let all: Vec<String> = c.history().into_iter().filter(|h| !h.message.role.is_instruction()).map(|h| h.id).collect();
                for w in ids.windows(2) {
                    let (a, b) = (all.iter().position(|x| *x == w[0]).unwrap(), all.iter().position(|x| *x == w[1]).unwrap());
                    prop_assert!(a < b);
                }
            }
            Err(e) if e.code() == "INVALID_INPUT" => prop_assert!(reserve >= max, "{e}"),
            Err(e) => overflow_is_real(&mut c, &counter, &req, &e)?,
        }
    }
}

/// A `CONTEXT_OVERFLOW` only when what every context must hold exceeds the
/// budget: the pinned part (with the reply's priming), then the newest whole
/// group, with the memory note's count line when earlier messages exist.
/// Counted here from the messages a roomy budget sends, not taken from the
/// builder's sums; the error must name the part and the same figures.
fn overflow_is_real(c: &mut Controller, counter: &Counter, req: &ContextRequest, e: &MemoryError) -> Result<(), TestCaseError> {
    let MemoryError::ContextOverflow { what, needed, available: left } = e else {
        return Err(TestCaseError::fail(format!("not an overflow: {e}")));
    };
    let available = req.max_tokens - req.reserve_output;
    // A memory block takes at most a third of the budget ("I prefer" makes
    // a preference): the roomy build gets the block this budget allows.
    let preferences = req.preference_tokens.unwrap_or(300).min(available / 3);
    let roomy = ContextRequest { max_tokens: 1 << 30, reserve_output: 0, preference_tokens: Some(preferences), ..req.clone() };
    let roomy = c.build_context(&roomy).map_err(|e| TestCaseError::fail(e.to_string()))?;
    // The roomy context holds the pinned messages (system, then the memory
    // blocks), the note when messages were archived, every sendable group.
    let stats = c.stats().messages;
    let turns_from = roomy.messages.len() - roomy.sections.recent.message_ids.len();
    let pinned = common::recount(counter, &roomy.messages[..turns_from - usize::from(stats.archived > 0)]);
    if pinned > available {
        prop_assert!(what.contains("pinned"), "{e}");
        prop_assert_eq!((*needed, *left), (pinned, available));
        return Ok(());
    }
    // The newest group: the turns' tail from the last message that is not a tool result.
    let turns = &roomy.messages[turns_from..];
    let newest_from = turns.iter().rposition(|m| m.role != Role::Tool).unwrap_or(0);
    let newest: usize = turns[newest_from..].iter().map(|m| message_tokens(counter, m)).sum();
    let earlier = stats.archived > 0 || newest_from > 0;
    let note =
        Message::text(Role::System, format!("[Conversation memory]\n{} earlier messages are not shown.", stats.working + stats.archived));
    let need = newest + if earlier { message_tokens(counter, &note) } else { 0 };
    prop_assert!(
        pinned + need > available,
        "overflow although the pinned part ({pinned}) and the newest group ({need}) fit {available}: {e}"
    );
    prop_assert!(what.contains("newest turn"), "{e}");
    prop_assert_eq!((*needed, *left), (need, available - pinned));
    Ok(())
}

#[test]
fn a_message_larger_than_the_budget_does_not_loop_or_overflow() {
    let counter = common::o200k();
    let cfg = WindowConfig { max_tokens: 50, ..WindowConfig::default() };
    let mut c = Controller::new(Options { working: cfg, ..common::options(true) }, counter).unwrap();
    c.add_message(Message::text(Role::User, "short question"), 1.0).unwrap();
    let huge = "tokens ".repeat(500);
    let added = c.add_message(Message::text(Role::User, huge.clone()), 2.0).unwrap();
    // Compaction moved the older turn and stopped: the huge turn stays in working memory.
    assert!(added.compaction.is_some());
    assert_eq!(c.stats().messages.working, 1);
    let err = c.build_context(&ContextRequest { max_tokens: 100, ..Default::default() }).unwrap_err();
    assert_eq!(err.code(), "CONTEXT_OVERFLOW");
    // With room it fits, and nothing was lost either way.
    let ctx = c.build_context(&ContextRequest { max_tokens: 2000, ..Default::default() }).unwrap();
    assert!(ctx.messages.iter().any(|m| m.content_text() == huge));
    assert_eq!(c.history().len(), 2);
}

#[test]
fn a_system_prompt_larger_than_the_budget_is_a_clear_error() {
    let mut c = Controller::new(common::options(true), common::o200k()).unwrap();
    c.add_message(Message::text(Role::User, "hi"), 1.0).unwrap();
    let req = ContextRequest { system: Some("rule ".repeat(300)), max_tokens: 100, ..Default::default() };
    let err = c.build_context(&req).unwrap_err();
    assert_eq!(err.code(), "CONTEXT_OVERFLOW");
    assert!(err.to_string().contains("system"), "{err}");
}

#[test]
fn open_tool_groups_stay_out_until_answered() {
    let mut c = Controller::new(common::options(true), common::o200k()).unwrap();
    c.add_message(Message::text(Role::User, "weather?"), 1.0).unwrap();
    let call = json!({"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"weather","arguments":"{}"}},{"id":"c2","type":"function","function":{"name":"time","arguments":"{}"}}]});
    c.add_message(Message::parse(&call).unwrap(), 2.0).unwrap();
    c.add_message(Message::parse(&json!({"role":"tool","tool_call_id":"c1","content":"sunny"})).unwrap(), 3.0).unwrap();
    let req = ContextRequest { max_tokens: 1000, ..Default::default() };
    let ctx = c.build_context(&req).unwrap();
    assert_eq!(ctx.messages.len(), 1);
    assert_eq!(ctx.sections.omitted[0].reason, agent_memory::context::OmitReason::PendingToolCalls);
    c.add_message(Message::parse(&json!({"role":"tool","tool_call_id":"c2","content":"noon"})).unwrap(), 4.0).unwrap();
    let ctx = c.build_context(&req).unwrap();
    assert_eq!(ctx.messages.len(), 4);
    // A result for an unknown or already answered call is rejected and changes nothing.
    let before = c.history();
    let err = c.add_message(Message::parse(&json!({"role":"tool","tool_call_id":"c2","content":"again"})).unwrap(), 5.0).unwrap_err();
    assert_eq!(err.code(), "TOOL_RESULT_WITHOUT_CALL");
    assert_eq!(c.history(), before);
}

#[test]
fn compaction_archives_raw_and_records_an_episode() {
    let cfg = WindowConfig { max_tokens: 300, ..WindowConfig::default() };
    let mut c = Controller::new(Options { working: cfg, ..common::options(true) }, common::o200k()).unwrap();
    let mut events = 0;
    for i in 0..60 {
        let text =
            if i == 3 { "记住：我对花生过敏。".to_string() } else { format!("message number {i} about the trip to Chengdu") };
        let a = c.add_message(Message::text(if i % 2 == 0 { Role::User } else { Role::Assistant }, text), i as f64).unwrap();
        events += a.compaction.is_some() as usize;
        let s = c.stats();
        assert!(s.tokens.working as f64 <= 0.8 * 300.0 + 40.0, "working memory stays near its threshold");
    }
    assert!(events > 0);
    let eps = c.episodes();
    assert_eq!(eps.len(), events);
    // Episodes cover the archive exactly, in order, without overlap.
    let covered: Vec<String> = eps.iter().flat_map(|e| e.message_ids.clone()).collect();
    let archived: Vec<String> =
        c.history().into_iter().filter(|h| h.place == agent_memory::window::Place::Archived).map(|h| h.id).collect();
    assert_eq!(covered, archived);
    assert!(eps[0].summary.contains("花生过敏"), "{}", eps[0].summary);
    let ctx = c.build_context(&ContextRequest { max_tokens: 600, ..Default::default() }).unwrap();
    let note = ctx.messages[0].content_text();
    assert!(note.starts_with("[Conversation memory]"), "{note}");
    assert!(ctx.sections.summary.hidden_messages >= archived.len());
}

#[test]
fn system_messages_are_pinned_and_lead_the_context() {
    let cfg = WindowConfig { max_tokens: 100, ..WindowConfig::default() };
    let mut c = Controller::new(Options { working: cfg, ..common::options(true) }, common::o200k()).unwrap();
    c.add_message(Message::text(Role::System, "You are terse."), 0.0).unwrap();
    for i in 0..40 {
        c.add_message(Message::text(Role::User, format!("question {i} with a few words")), i as f64).unwrap();
    }
    let ctx = c.build_context(&ContextRequest { max_tokens: 300, ..Default::default() }).unwrap();
    assert_eq!(ctx.messages[0].content_text(), "You are terse.");
    assert_eq!(c.stats().messages.pinned, 1);
    let ctx2 = c.build_context(&ContextRequest { system: Some("Override".into()), max_tokens: 300, ..Default::default() }).unwrap();
    assert_eq!(ctx2.messages[0].content_text(), "Override");
    assert_eq!(ctx2.sections.system.messages, 1);
}
