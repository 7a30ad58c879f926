//! The context builder: what the model sees on one call.
//!
//! It reads stable to volatile, so a provider's prompt cache (about a tenth
//! of the input price) reuses all but the end of each call:
//! 1. pinned instructions, procedures, preferences, the task's history;
//! 2. the memory note: the thread's episode summaries, chosen without the
//!    query (`note`), so it changes only when a compaction does;
//! 3. the working-memory turns that fit, oldest first, cut at points that
//!    stay put while the conversation grows (`sticky_start`);
//! 4. the recall block: what this query recalled (`recall`), right before
//!    the newest user turn;
//! 5. that turn and the tool loop after it.
//!
//! Invariants, each tested:
//! - `tokens <= max_tokens - reserve_output`, always, or an error;
//! - `tokens == request_tokens(messages, tools)`, exactly;
//! - a group enters whole or not at all; an open group (unanswered tool
//!   calls) or an orphan tool result never enters, since the API rejects it;
//! - `cache.messages` messages come first and do not depend on the query:
//!   between two compactions, while working memory fits the turns' room,
//!   each context begins with the previous one's messages up to its recall
//!   block, byte for byte (past that room, the cut moves a quarter of the
//!   room at a time, and the prefix with it).

use serde_json::Value;

use crate::episodic::Episode;
use crate::error::{MemoryError, Result};
use crate::message::{Message, Role};
use crate::tokens::chat::{message_tokens, request_tokens, tools_tokens, REPLY_PRIMING};
use crate::tokens::Counter;
use crate::window::{Group, Window};

mod note;
mod options;
pub(crate) mod recall;
mod sections;
pub use note::{civil_parts, days_from_civil, utc_day, utc_minute, utc_month, Picks};
pub use options::ContextOptions;
pub use recall::{most_examined, Recalled, HEADER as KNOWLEDGE_HEADER, MIN_LINE};
pub use sections::{
    Budget, CacheHint, Context, Degraded, KnowledgeSection, OmitReason, Omitted, RecentSection, RetrievalMode, Sections, SummarySection,
    SystemSection,
};

/// Where the recall block goes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum Layout {
    /// Right before the newest user turn: everything before it is the
    /// cacheable prefix.
    #[default]
    Stable,
    /// Right after the pinned blocks, as before 0.2: every call's prompt
    /// differs from there on.
    RecallFirst,
}

/// What the caller asks for.
#[derive(Clone, Debug, Default)]
pub struct ContextRequest {
    /// Replaces the stored system/developer messages for this call.
    pub system: Option<String>,
    pub max_tokens: usize,
    pub reserve_output: usize,
    /// Tool definitions sent with the request, counted in the budget.
    pub tools: Vec<Value>,
    /// What the user asks now: selects what the recall block shows.
    pub query: Option<String>,
    /// The query's embedding, when the host has an embedder.
    pub query_vector: Option<Vec<f32>>,
    /// Most tokens the recall block may take (default [`RECALL_TOKENS`],
    /// and never more than the rest leaves).
    pub semantic_tokens: Option<usize>,
    /// Budget of the pinned preferences block (default 300).
    pub preference_tokens: Option<usize>,
    /// Selects task-tagged rules and the task's history.
    pub task_id: Option<String>,
    /// Most tokens the memory note may take (default [`NOTE_SHARE`] of
    /// what the pinned part leaves).
    pub episodic_tokens: Option<usize>,
    /// Budget of the task history block (default 400).
    pub task_tokens: Option<usize>,
    /// The host's clock now (ms), for recall recency; default the last write.
    pub now: Option<f64>,
    /// The time (ms) the question is about: the recall block ranks the
    /// facts that held then first (default: a time phrase of the query,
    /// "last year", 去年, else now).
    pub as_of: Option<f64>,
    /// Extra stored fields to send as they are (counted), beyond what
    /// `wire` sends for each role.
    pub keep_fields: Vec<String>,
    /// The embedder's failure, when it failed for this query.
    pub degraded: Option<Degraded>,
    pub layout: Layout,
}

/// The memory note's default share of what the pinned part leaves.
pub const NOTE_SHARE: f64 = 0.2;
/// The recall block's share of what the pinned part leaves that the turns
/// may not take when there is a query; it gets more when the turns leave more.
pub const RECALL_SHARE: f64 = 0.3;
/// The recall block's default cap. The block is the part of the prompt a
/// provider's cache never bills at the cached price (it changes with every
/// query), so its size is most of what a call costs beyond the cached
/// prefix. Replaying the longchat chats at 8,000 − 1,000 tokens with an
/// embedder (bench/cache.mjs, bench/context-quality.mjs): uncapped, the
/// block took some 2,600 tokens at 8,000, showed 0.985 of the held-out
/// questions' evidence and billed 2.75× the whole history's input; at 600
/// it shows 0.946 and bills below the whole history's. A host that values
/// recall over the bill raises `semanticTokens`.
pub const RECALL_TOKENS: usize = 600;
/// The shortest prompt OpenAI caches (and Anthropic's Sonnet and Opus
/// models): below it nothing is cached, so nothing is kept stable for it.
pub const CACHE_MIN_TOKENS: usize = 1024;

/// What the memory layers add around the turns.
#[derive(Clone, Debug, Default)]
pub struct Extras {
    /// Pinned after the system messages: procedures, then preferences.
    pub pinned: Vec<(&'static str, Message)>,
    /// What the query recalled, best first.
    pub recalled: Vec<Recalled>,
    /// Archived messages not read yet (`controller::cold`): how many,
    /// and the first and last by order (`lc`, timestamp, id).
    pub unread: (usize, Option<Ordered>, Option<Ordered>),
}

/// A message's place in the order, and its id: (`lc`, timestamp, id).
pub type Ordered = (u64, f64, String);

fn omitted_run(window: &Window, groups: &[&Group], reason: OmitReason) -> Option<Omitted> {
    let first = groups.first()?.members.first()?;
    let last = groups.last()?.members.last()?;
    Some(Omitted {
        reason,
        messages: groups.iter().map(|g| g.members.len()).sum(),
        first_id: window.log.get(*first)?.id.clone(),
        last_id: window.log.get(*last)?.id.clone(),
    })
}

/// The first of `costs` to keep so that the rest fit `room`, chosen among
/// cut points fixed by the running sum from the first item (one each
/// `quantum` tokens): appending items moves it only when the kept run
/// outgrows `room`, so consecutive calls share their turns. `costs.len()`
/// when not even the last fits.
fn sticky_start(costs: &[usize], room: usize, quantum: usize) -> usize {
    let total: usize = costs.iter().sum();
    if total <= room {
        return 0;
    }
    let quantum = quantum.max(1);
    let (mut before, mut fallback) = (0, costs.len());
    for (i, &c) in costs.iter().enumerate() {
        let rest = total - before;
        if rest <= room {
            fallback = fallback.min(i);
            // A cut point: the sum before it crossed a multiple of the quantum.
            if i == 0 || before / quantum != (before - costs.get(i - 1).copied().unwrap_or(0)) / quantum {
                return i;
            }
        }
        before += c;
    }
    fallback
}

/// Builds the context for one call.
///
/// # Errors
/// `INVALID_INPUT` when `reserve_output >= max_tokens`; `CONTEXT_OVERFLOW`
/// when the pinned part, or the newest turn with its memory note, cannot fit.
/// `episodes` are this thread's episodes, oldest first: the note shows the
/// newest that fit.
/// `picks` remembers the note's last choices (`note::pick_again`);
/// `all_episodes` are the controller's, which recalled episodes name by place.
pub fn build(
    window: &Window,
    episodes: &[&Episode],
    all_episodes: &[Episode],
    counter: &Counter,
    req: &ContextRequest,
    extras: &Extras,
    picks: &Picks,
) -> Result<Context> {
    if req.reserve_output >= req.max_tokens {
        return Err(MemoryError::input("reserveOutput", "must be smaller than maxTokens"));
    }
    let available = req.max_tokens - req.reserve_output;
    let pinned: Vec<Message> = match &req.system {
        Some(system) => vec![Message::text(Role::System, system.clone())],
        None => window.pinned.iter().filter_map(|&i| window.log.get(i)).map(|s| s.sent(&req.keep_fields)).collect(),
    };
    let pinned_tokens: usize = pinned.iter().map(|m| message_tokens(counter, m)).sum();
    let extra_tokens: Vec<usize> = extras.pinned.iter().map(|(_, m)| message_tokens(counter, m)).collect();
    let tools = tools_tokens(counter, &req.tools);
    let fixed = pinned_tokens + extra_tokens.iter().sum::<usize>() + tools + REPLY_PRIMING;
    if fixed > available {
        return Err(MemoryError::ContextOverflow { what: "the pinned system prompt and tools".into(), needed: fixed, available });
    }
    let rest = available - fixed;

    let archived = window.archived_count() + extras.unread.0;
    let groups: Vec<&Group> = window.groups.iter().filter(|g| g.is_sendable()).collect();
    // A group's stored count is of its sent form; kept fields add to it.
    let group_tokens: Vec<usize> = if req.keep_fields.is_empty() {
        groups.iter().map(|g| g.tokens).collect()
    } else {
        groups
            .iter()
            .map(|g| g.members.iter().filter_map(|&i| window.log.get(i)).map(|s| message_tokens(counter, &s.sent(&req.keep_fields))).sum())
            .collect()
    };
    // The note counts at most every message; more digits never cost fewer tokens.
    let most_hidden = archived + window.working_messages();
    let bare_note = message_tokens(counter, &note::note(most_hidden, &[]));
    let note_cap = req.episodic_tokens.unwrap_or((rest as f64 * NOTE_SHARE) as usize).max(bare_note);
    let (summaries, note_tokens) =
        if most_hidden > 0 { note::pick_again(picks, episodes, most_hidden, note_cap, counter) } else { (vec![], 0) };
    // The floor is set aside whenever there is a query, recalled or not:
    // the turns' room must not depend on what this query found. Below what
    // a provider caches at all, the block is filled first and the turns get
    // what it leaves of the floor.
    let has_query = req.query.as_deref().is_some_and(|q| !q.trim().is_empty());
    let recall_cap = req.semantic_tokens.unwrap_or(RECALL_TOKENS);
    let recall_floor = if has_query { recall_cap.min((rest as f64 * RECALL_SHARE) as usize) } else { 0 };
    let small = available < CACHE_MIN_TOKENS;
    // What the query recalled, less the turns working memory holds (they
    // are the turns' to show) and the episodes the note may show.
    let working: std::collections::HashSet<&str> =
        groups.iter().flat_map(|g| g.members.iter().filter_map(|&i| window.log.get(i)).map(|s| s.id.as_str())).collect();
    let in_note: Vec<&str> = summaries.iter().map(|e| e.id.as_str()).collect();
    let candidates: Vec<&Recalled> = extras
        .recalled
        .iter()
        .filter(|r| r.message.as_deref().is_none_or(|m| !working.contains(m)) && !(r.episode.is_some() && in_note.contains(&r.id.as_str())))
        .collect();
    let fill = |room: usize| {
        if has_query {
            recall::fill(&candidates, all_episodes, recall_cap.min(room), counter, &|m| working.contains(m))
        } else {
            None
        }
    };
    let mut block = if small { fill(recall_floor) } else { None };
    let set_aside = if small { block.as_ref().map_or(0, |b| b.1) } else { recall_floor };

    // The turns: the newest always, then as many as fit beside the note and
    // the recall block's floor, cut where the previous call cut.
    let newest = group_tokens.last().copied().unwrap_or(0);
    let earlier_exists = archived > 0 || groups.len() > 1;
    let newest_need = newest + if earlier_exists { bare_note } else { 0 };
    if newest_need > rest {
        let id = groups.last().and_then(|g| g.members.first()).and_then(|&i| window.log.get(i)).map_or("", |s| s.id.as_str());
        return Err(MemoryError::ContextOverflow {
            what: format!("the newest turn ({id}) with the memory note"),
            needed: newest_need,
            available: rest,
        });
    }
    let room = rest.saturating_sub(note_tokens.max(bare_note) + set_aside).max(newest);
    // (Below what is cached, every turn that fits: no cut point to keep.)
    let start = if small { sticky_start(&group_tokens, room, 1) } else { sticky_start(&group_tokens, room, room / 4) }
        .min(groups.len().saturating_sub(1));
    let chosen: Vec<(&Group, usize)> = groups.iter().copied().zip(group_tokens.iter().copied()).skip(start).collect();
    let turns: usize = chosen.iter().map(|(_, t)| t).sum();
    let left_out: Vec<&Group> = groups.iter().take(start).copied().collect();
    let hidden = archived + left_out.iter().map(|g| g.members.len()).sum::<usize>();

    let mut sections = Sections { overhead: REPLY_PRIMING, tools, ..Sections::default() };
    sections.budget = Budget { max_tokens: req.max_tokens, reserve_output: req.reserve_output, available };
    sections.system = SystemSection { tokens: pinned_tokens, messages: pinned.len() };
    let mut messages = pinned;
    for ((what, m), t) in extras.pinned.iter().zip(&extra_tokens) {
        match *what {
            "procedures" => sections.procedures += t,
            "task" => sections.task += t,
            _ => sections.preferences += t,
        }
        messages.push(m.clone());
    }
    let after_pinned = messages.len();

    // A block filled first leaves when the newest turn took its room.
    if turns + block.as_ref().map_or(0, |b| b.1) > rest {
        block = None;
    }
    // The note, now that the hidden count is known: it never grows past what
    // was set aside for it (fewer digits), and shrinks to fit when the
    // newest turn took the room.
    let mut left = rest - turns - block.as_ref().map_or(0, |b| b.1);
    if hidden > 0 {
        let cap = note_tokens.max(bare_note).min(left);
        let (shown, tokens) = note::pick_again(picks, &summaries, hidden, cap, counter);
        if tokens <= left {
            left -= tokens;
            sections.summary =
                SummarySection { tokens, episode_ids: shown.iter().map(|e| e.id.clone()).collect(), hidden_messages: hidden };
            messages.push(note::note(hidden, &shown));
        }
    }

    // The recall block, in what the rest leaves; before the newest user turn.
    if !small {
        block = fill(left);
    }
    sections.knowledge.left_out = candidates.len() - block.as_ref().map_or(0, |(_, _, ids)| ids.len());
    sections.knowledge.retrieval = RetrievalMode::of(req.query_vector.as_deref());
    sections.knowledge.degraded = req.degraded.clone();
    let anchor = chosen
        .iter()
        .rposition(|(g, _)| g.members.first().and_then(|&i| window.log.get(i)).is_some_and(|s| s.message.role == Role::User))
        .unwrap_or(chosen.len());
    // Where the block goes, or would go: the end of the stable prefix.
    let mut volatile_from = None;
    // What comes before it, counted already: the pinned part, the note
    // unless the layout puts the block first, and the turns placed so far.
    let mut prefix_tokens = 0;
    let note_first = req.layout != Layout::RecallFirst;
    let mut place_block = |messages: &mut Vec<Message>, sections: &mut Sections| {
        if volatile_from.is_none() {
            volatile_from = Some(messages.len());
            prefix_tokens = sections.system.tokens
                + sections.procedures
                + sections.preferences
                + sections.task
                + if note_first { sections.summary.tokens } else { 0 }
                + sections.recent.tokens;
        }
        if let Some((m, tokens, ids)) = block.take() {
            // (a few hundred candidates at most, a few dozen shown)
            sections.knowledge.episodes = candidates.iter().filter_map(|r| r.episode.filter(|_| ids.contains(&r.id))).collect();
            sections.knowledge.tokens = tokens;
            sections.knowledge.ids = ids;
            sections.knowledge.message = Some(messages.len());
            messages.push(m);
        }
    };
    if req.layout == Layout::RecallFirst {
        let note = (messages.len() > after_pinned).then(|| messages.remove(after_pinned));
        place_block(&mut messages, &mut sections);
        messages.extend(note);
    }
    for (gi, (g, tokens)) in chosen.iter().enumerate() {
        if gi == anchor {
            place_block(&mut messages, &mut sections);
        }
        for s in g.members.iter().filter_map(|&i| window.log.get(i)) {
            messages.push(s.sent(&req.keep_fields));
            sections.recent.message_ids.push(s.id.clone());
        }
        sections.recent.tokens += tokens;
    }
    place_block(&mut messages, &mut sections);

    if hidden > 0 {
        // The first and last archived, in memory or not read yet.
        let (_, unread_first, unread_last) = &extras.unread;
        let ends = |s: Option<&crate::window::Stored>| s.map(|s| (s.lc, s.ts, s.id.clone()));
        let earlier = |a: &Ordered, b: &Ordered| (a.0, a.1) < (b.0, b.1);
        let first =
            [ends(window.archived().next()), unread_first.clone()].into_iter().flatten().reduce(|a, b| if earlier(&b, &a) { b } else { a });
        let last =
            [ends(window.archived().next_back()), unread_last.clone()]
                .into_iter()
                .flatten()
                .reduce(|a, b| if earlier(&a, &b) { b } else { a });
        if let (Some(f), Some(l)) = (first, last) {
            sections.omitted.push(Omitted { reason: OmitReason::Archived, messages: archived, first_id: f.2, last_id: l.2 });
        }
        sections.omitted.extend(omitted_run(window, &left_out, OmitReason::Budget));
    }
    for g in window.groups.iter().filter(|g| !g.is_sendable()) {
        let reason = if g.orphan { OmitReason::OrphanToolResult } else { OmitReason::PendingToolCalls };
        sections.omitted.extend(omitted_run(window, &[g], reason));
    }
    let tokens = sections.system.tokens
        + sections.procedures
        + sections.preferences
        + sections.task
        + sections.knowledge.tokens
        + sections.tools
        + sections.summary.tokens
        + sections.recent.tokens
        + sections.overhead;
    debug_assert_eq!(tokens, request_tokens(counter, &messages, &req.tools));
    debug_assert!(tokens <= available);
    let prefix = volatile_from.unwrap_or(messages.len());
    debug_assert_eq!(prefix_tokens, messages.iter().take(prefix).map(|m| message_tokens(counter, m)).sum::<usize>());
    let cache = CacheHint { messages: prefix, tokens: prefix_tokens };
    Ok(Context { messages, tools: req.tools.clone(), tokens, sections, cache })
}

#[cfg(test)]
mod tests {
    use super::sticky_start;

    #[test]
    fn sticky_start_stays_put_while_turns_are_appended() {
        let mut costs = vec![10; 30];
        let first = sticky_start(&costs, 100, 25);
        assert!(costs[first..].iter().sum::<usize>() <= 100);
        let mut moves = 0;
        let mut last = first;
        for _ in 0..20 {
            costs.push(10);
            let s = sticky_start(&costs, 100, 25);
            assert!(costs[s..].iter().sum::<usize>() <= 100 && s >= last);
            moves += usize::from(s != last);
            last = s;
        }
        assert!(moves <= 10, "moves by a quarter of the room at a time, not every turn ({moves})");
        assert_eq!(sticky_start(&[5, 5], 100, 25), 0);
        assert_eq!(sticky_start(&[50, 200], 100, 25), 2, "not even the last fits");
        assert_eq!(sticky_start(&[30, 30, 30, 30], 100, 1), 1, "a quantum of 1 keeps every item that fits");
    }
}
