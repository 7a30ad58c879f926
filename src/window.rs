//! Working memory: the pinned instructions and the recent turns, in groups.
//!
//! Invariants:
//! - every message ever added is in `log`, in order, exactly once; moving a
//!   message out of working memory only changes where it is (`Place`);
//! - a group is one message, or an assistant message with tool calls plus
//!   the tool results answering them: it moves and enters the context whole;
//! - compaction moves the oldest closed groups and never the newest group,
//!   so it always terminates, even when one group alone exceeds the budget;
//!   an open group (tool calls not yet answered) stays behind without
//!   blocking the groups after it.

use std::cell::Cell;
use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::error::{MemoryError, Result};
use crate::message::{Message, Role};
use crate::wire::{request_form, Turn};

/// Where a message lives now.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum Place {
    /// A system or developer message: always in the context.
    Pinned,
    /// In working memory, a candidate for the context.
    Working,
    /// Moved out by compaction; kept raw, covered by an episode.
    Archived,
}

/// A message as stored: the message plus what the controller knows of it.
#[derive(Clone, Debug, PartialEq)]
pub struct Stored {
    pub id: String,
    /// The record identity: which controller wrote it, and its seq there.
    pub writer: String,
    pub seq: u64,
    /// Its place in the causal order (see `Record::Msg`).
    pub lc: u64,
    /// Milliseconds since the epoch, from the host's clock.
    pub ts: f64,
    pub message: Message,
    /// Chat tokens of the message as sent (`wire::request_form`), overhead
    /// included; [`UNCOUNTED`] until first needed (an archived message
    /// restored from storage is counted when something asks, not on open).
    pub tokens: Cell<usize>,
    /// An assistant message of a turn that called tools: its reasoning goes back.
    pub tool_turn: bool,
    pub place: Place,
    /// The agent task this message belongs to, if the host said so.
    pub task_id: Option<String>,
}

/// The token count of a message not counted yet.
pub const UNCOUNTED: usize = usize::MAX;

impl Stored {
    /// A message as loading reads it from storage: in working memory until
    /// placed, its tokens counted when first asked for.
    #[must_use]
    pub fn loaded(id: String, writer: String, seq: u64, lc: u64, ts: f64, message: Message, task_id: Option<String>) -> Stored {
        Stored { id, writer, seq, lc, ts, message, tokens: UNCOUNTED.into(), tool_turn: false, place: Place::Working, task_id }
    }

    /// Its tokens as sent, counted by `count` the first time they are asked for.
    pub fn tokens(&self, count: impl FnOnce(&Message) -> usize) -> usize {
        if self.tokens.get() == UNCOUNTED {
            self.tokens.set(count(&self.sent(&[])));
        }
        self.tokens.get()
    }

    /// Its tokens, which working memory and pinned messages always have counted.
    pub fn counted(&self) -> usize {
        debug_assert!(self.tokens.get() != UNCOUNTED, "a message in working memory is counted");
        self.tokens.get()
    }

    /// The message as a request sends it; `keep` adds extra fields as stored.
    pub fn sent(&self, keep: &[String]) -> Message {
        request_form(&self.message, self.tool_turn, keep)
    }
}

/// A unit that moves and enters the context whole.
#[derive(Clone, Debug, PartialEq)]
pub struct Group {
    /// Indices into the log, in order.
    pub members: Vec<usize>,
    pub tokens: usize,
    /// Tool call ids not yet answered; a group with any is open.
    pub pending: Vec<String>,
    /// A tool result restored without its call (two writers answered the
    /// same call, or the call was forgotten): kept, never sent.
    pub orphan: bool,
}

impl Group {
    pub fn is_open(&self) -> bool {
        !self.pending.is_empty()
    }

    /// Whether the API would accept this group as it stands.
    pub fn is_sendable(&self) -> bool {
        !self.is_open() && !self.orphan
    }
}

/// Working-memory limits.
#[derive(Clone, Debug, PartialEq)]
pub struct WindowConfig {
    pub max_tokens: usize,
    pub compression_threshold: f64,
    pub target_ratio: f64,
    pub recent_messages: Option<usize>,
}

impl Default for WindowConfig {
    fn default() -> Self {
        WindowConfig { max_tokens: 4000, compression_threshold: 0.8, target_ratio: 0.5, recent_messages: None }
    }
}

/// `targetRatio`'s default for a model whose provider bills a cached
/// prompt prefix at half the input price or less. A compaction changes the
/// context's prefix from the memory note on, so the next call pays it at
/// the full price: moving more per compaction makes them rarer (replaying
/// long chats at 8,000 − 1,000 tokens, 6 compactions in 384 calls instead
/// of 9, billed input after the history passed the budget 8 % lower:
/// bench/cache.mjs).
pub const CACHED_TARGET_RATIO: f64 = 0.3;

impl WindowConfig {
    /// The defaults for `model`: [`CACHED_TARGET_RATIO`] when its cached
    /// input costs at most half its input (most current models), else 0.5.
    pub fn for_model(model: Option<&crate::models::ModelInfo>) -> WindowConfig {
        let cached = model.is_some_and(|m| m.input_price > 0.0 && m.cached_input_price <= 0.5 * m.input_price);
        WindowConfig { target_ratio: if cached { CACHED_TARGET_RATIO } else { 0.5 }, ..WindowConfig::default() }
    }

    /// # Errors
    /// `INVALID_INPUT` when a limit is out of range.
    pub fn validate(&self) -> Result<()> {
        if self.max_tokens == 0 {
            return Err(MemoryError::input("workingMemory.maxTokens", "must be positive"));
        }
        if !(self.compression_threshold > 0.0 && self.compression_threshold <= 1.0) {
            return Err(MemoryError::input("workingMemory.compressionThreshold", "must be in (0, 1]"));
        }
        if !(self.target_ratio >= 0.0 && self.target_ratio < self.compression_threshold) {
            return Err(MemoryError::input("workingMemory.targetRatio", "must be in [0, compressionThreshold)"));
        }
        if self.recent_messages == Some(0) {
            return Err(MemoryError::input("workingMemory.recentMessages", "must be positive"));
        }
        Ok(())
    }
}

/// Groups chosen to leave working memory, oldest first.
#[derive(Clone, Debug, PartialEq)]
pub struct CompactionPlan {
    /// Positions in `Window::groups`, ascending.
    pub groups: Vec<usize>,
    /// Log indices of the messages that move, in order.
    pub members: Vec<usize>,
}

#[derive(Clone, Debug, Default)]
pub struct Window {
    pub log: Vec<Stored>,
    pub groups: VecDeque<Group>,
    pub pinned: Vec<usize>,
    /// Whether the turn at the end of the log called tools.
    turn: Turn,
}

impl Window {
    /// Checks that `message` may be added now, without changing anything.
    ///
    /// # Errors
    /// `TOOL_RESULT_WITHOUT_CALL` for a tool result answering no pending call.
    pub fn check(&self, message: &Message) -> Result<()> {
        if message.role == Role::Tool {
            let id = message.tool_call_id.as_deref().unwrap_or_default();
            if self.group_waiting_for(id).is_none() {
                return Err(MemoryError::ToolResultWithoutCall(id.to_string()));
            }
        }
        if let Some(calls) = &message.tool_calls {
            for call in calls {
                if self.groups.iter().any(|g| g.pending.contains(&call.id)) {
                    return Err(MemoryError::input("message.tool_calls", format!("tool call id {:?} is already pending", call.id)));
                }
            }
        }
        Ok(())
    }

    /// Whether `message`, appended next, is an assistant message of a turn that called tools.
    pub fn tool_turn(&self, message: &Message) -> bool {
        self.turn.tool_turn(message)
    }

    fn group_waiting_for(&self, call_id: &str) -> Option<usize> {
        self.groups.iter().rposition(|g| g.pending.iter().any(|p| p == call_id))
    }

    /// Whether the turn at the end of the log called tools (what
    /// `tool_turn` reads), to carry across messages not pushed yet.
    pub fn turn(&self) -> Turn {
        self.turn
    }

    /// Appends a checked message. Call `check` first.
    pub fn push(&mut self, stored: Stored) {
        self.track(self.log.len(), &stored);
        self.log.push(stored);
    }

    /// The window over `log` (restored messages, in order), as pushing
    /// them one by one would make it, without a second copy of the log:
    /// `prepare` sets each message's place and tokens once its `tool_turn`
    /// is known.
    pub fn from_log(mut log: Vec<Stored>, mut prepare: impl FnMut(&mut Stored)) -> Window {
        let mut w = Window::default();
        for (index, s) in log.iter_mut().enumerate() {
            s.tool_turn = w.tool_turn(&s.message);
            prepare(s);
            w.track(index, s);
        }
        w.log = log;
        w
    }

    /// Groups and pins the log again, as pushing it message by message
    /// would, after messages were taken out of it (a forget) or put back.
    pub fn regroup(&mut self) {
        let log = std::mem::take(&mut self.log);
        *self = Window::default();
        for (index, s) in log.iter().enumerate() {
            self.track(index, s);
        }
        self.log = log;
    }

    /// Groups and pins the message that is (or is about to be) at `index`.
    fn track(&mut self, index: usize, stored: &Stored) {
        let message = &stored.message;
        self.turn.push(message);
        match stored.place {
            Place::Pinned => self.pinned.push(index),
            Place::Archived => {}
            Place::Working if message.role == Role::Tool => {
                let call_id = message.tool_call_id.clone().unwrap_or_default();
                match self.group_waiting_for(&call_id).and_then(|g| self.groups.get_mut(g)) {
                    Some(group) => {
                        group.pending.retain(|p| *p != call_id);
                        group.members.push(index);
                        group.tokens += stored.counted();
                    }
                    // Only restored data gets here: `check` refuses it on add.
                    None => self.groups.push_back(Group { members: vec![index], tokens: stored.counted(), pending: vec![], orphan: true }),
                }
            }
            Place::Working => {
                let pending = message.tool_calls.iter().flatten().map(|c| c.id.clone()).collect();
                self.groups.push_back(Group { members: vec![index], tokens: stored.counted(), pending, orphan: false });
            }
        }
    }

    /// Where a new message of this role goes.
    pub fn place_for(message: &Message) -> Place {
        if message.role.is_instruction() {
            Place::Pinned
        } else {
            Place::Working
        }
    }

    /// Tokens held by the turns in working memory (pinned messages excluded).
    pub fn working_tokens(&self) -> usize {
        self.groups.iter().map(|g| g.tokens).sum()
    }

    pub fn working_messages(&self) -> usize {
        self.groups.iter().map(|g| g.members.len()).sum()
    }

    fn over_limits(&self, tokens: usize, messages: usize, token_limit: f64, cfg: &WindowConfig) -> bool {
        tokens as f64 > token_limit || cfg.recent_messages.is_some_and(|cap| messages > cap)
    }

    /// The groups to move out now, if working memory passed its threshold.
    /// Never includes the newest group or an open one.
    pub fn plan_compaction(&self, cfg: &WindowConfig) -> Option<CompactionPlan> {
        let threshold = cfg.compression_threshold * cfg.max_tokens as f64;
        let (mut tokens, mut messages) = (self.working_tokens(), self.working_messages());
        if !self.over_limits(tokens, messages, threshold, cfg) {
            return None;
        }
        let target = cfg.target_ratio * cfg.max_tokens as f64;
        let mut plan = CompactionPlan { groups: Vec::new(), members: Vec::new() };
        for (i, group) in self.groups.iter().enumerate().take(self.groups.len().saturating_sub(1)) {
            if !self.over_limits(tokens, messages, target, cfg) {
                break;
            }
            if group.is_open() {
                continue;
            }
            tokens -= group.tokens;
            messages -= group.members.len();
            plan.groups.push(i);
            plan.members.extend_from_slice(&group.members);
        }
        crate::sort::sort(&mut plan.members);
        (!plan.groups.is_empty()).then_some(plan)
    }

    /// Moves the planned groups to the archive.
    pub fn apply_compaction(&mut self, plan: &CompactionPlan) {
        for &g in plan.groups.iter().rev() {
            for i in self.groups.remove(g).map(|group| group.members).unwrap_or_default() {
                if let Some(s) = self.log.get_mut(i) {
                    s.place = Place::Archived;
                }
            }
        }
    }

    /// Recounts the messages in the context as sent (after the counter
    /// changed) and the group sums; archived ones are counted when asked for.
    pub fn recount(&mut self, count: impl Fn(&Message) -> usize) {
        for s in &mut self.log {
            s.tokens.set(if s.place == Place::Archived { UNCOUNTED } else { count(&s.sent(&[])) });
        }
        for g in &mut self.groups {
            g.tokens = g.members.iter().filter_map(|&i| self.log.get(i)).map(Stored::counted).sum();
        }
    }

    pub fn archived(&self) -> impl DoubleEndedIterator<Item = &Stored> {
        self.log.iter().filter(|s| s.place == Place::Archived)
    }

    /// How many messages are archived: every message is pinned, in a
    /// group of working memory, or archived (a count without a pass over
    /// the log, which a context takes on every call).
    pub fn archived_count(&self) -> usize {
        let n = self.log.len().saturating_sub(self.pinned.len() + self.working_messages());
        debug_assert_eq!(n, self.archived().count());
        n
    }
}

#[cfg(test)]
mod tests {
    use super::{WindowConfig, CACHED_TARGET_RATIO};
    use crate::models::lookup;

    #[test]
    fn a_model_with_a_cache_discount_compacts_deeper_by_default() {
        let gpt4o = lookup("gpt-4o", &[]).unwrap();
        assert_eq!(WindowConfig::for_model(Some(&gpt4o)).target_ratio, CACHED_TARGET_RATIO);
        let mut no_discount = gpt4o.clone();
        no_discount.cached_input_price = no_discount.input_price;
        assert_eq!(WindowConfig::for_model(Some(&no_discount)).target_ratio, 0.5);
        assert_eq!(WindowConfig::for_model(None), WindowConfig::default());
        assert!(WindowConfig::for_model(Some(&gpt4o)).validate().is_ok());
    }
}
