//! What the model sees: the context a request gets, assembled from every
//! layer (pinned procedures, preferences and task history; the knowledge
//! retrieved for the query; recalled episodes; the newest turns), within
//! the request's budget (see `crate::context::build`).

use super::{Controller, PREFERENCES_HEADER};
use crate::context::{self, Context, ContextRequest};
use crate::episodic::Episode;
use crate::error::Result;
use crate::message::Message;
use crate::tokens::chat::{message_raw, message_tokens, tools_tokens, REPLY_PRIMING};

impl Controller {
    /// # Errors
    /// See [`context::build`]; `CLOSED`; `INVALID_INPUT` for a non-finite `now`.
    pub fn build_context(&mut self, req: &ContextRequest) -> Result<Context> {
        let (ctx, req) = self.checked_draft(req)?;
        Ok(self.commit_context(ctx, &req))
    }

    /// [`Controller::build_context`] after `WritePath::read` for
    /// `Need::Query(Query::Context(req))`, or `None`, changing nothing, when
    /// its recall block would show an archived message that read did not
    /// decode: read again (it then drafts the context to see what to
    /// decode: `controller::partial`), and build again.
    ///
    /// # Errors
    /// As [`Controller::build_context`].
    pub fn build_context_read(&mut self, req: &ContextRequest) -> Result<Option<Context>> {
        let (ctx, req) = self.checked_draft(req)?;
        if self.read_again(&ctx) {
            return Ok(None);
        }
        Ok(Some(self.commit_context(ctx, &req)))
    }

    fn checked_draft(&mut self, req: &ContextRequest) -> Result<(Context, ContextRequest)> {
        self.open()?;
        // Only a query reads the index (and the archive it covers).
        if req.query.is_some() {
            self.ensure_index();
        }
        if let Some(now) = req.now {
            self.stamp(now)?;
        }
        self.draft_context(req)
    }

    /// Notes what a context built from `req` (`draft_context`) recalled.
    fn commit_context(&mut self, ctx: Context, req: &ContextRequest) -> Context {
        // Recalling an episode refreshes its recency.
        let now = req.now.unwrap_or(self.books.last_ts.max(0.0));
        for &i in &ctx.sections.knowledge.episodes {
            if let Some(e) = self.episodic.episodes.get_mut(i) {
                e.last_recalled = now;
            }
        }
        // (an exact count needs no calibration: counting it all again would cost what the build did)
        self.last_context.raw = (!self.counter.is_exact()).then(|| {
            ctx.messages.iter().map(|m| message_raw(&self.counter, m)).sum::<f64>()
                + REPLY_PRIMING as f64
                + tools_tokens(&self.counter, &req.tools) as f64
        });
        self.last_context.tokens = Some(ctx.tokens);
        ctx
    }

    /// The context `req` gets from memory as it is, and the request as
    /// built (within the model's window, with the procedures' tools),
    /// changing nothing (`build_context` then notes what it recalled).
    ///
    /// # Errors
    /// As [`Controller::build_context`].
    pub(super) fn draft_context(&self, req: &ContextRequest) -> Result<(Context, ContextRequest)> {
        let mut req = req.clone();
        req.max_tokens = req.max_tokens.min(self.model.context_window as usize);
        if let Some(p) = &self.procedures {
            req.tools.splice(0..0, p.parsed.tools.iter().cloned());
        }
        let extras = self.extras(&req)?;
        // The note shows the newest episodes: among those opening reads, so
        // the choice is the same before the cold segments are read and after.
        let all = &self.episodic.episodes;
        let thread: Vec<&Episode> = all.get(all.len().saturating_sub(super::cold::RECENT_EPISODES)..).unwrap_or_default().iter().collect();
        Ok((context::build(&self.window, &thread, all, &self.counter, &req, &extras, &self.picks)?, req))
    }

    /// A task's completed steps (its episodes, in order) and its pending
    /// tasks (from the newest), within `budget` tokens: the newest steps win.
    fn task_block(&self, task: &str, budget: usize) -> Option<String> {
        let steps: Vec<&Episode> = self.episodic.episodes.iter().filter(|e| e.task_id.as_deref() == Some(task)).collect();
        let pending: Vec<String> = steps.last().map(|e| e.pending_tasks.clone()).unwrap_or_default();
        let cost = |t: &str| message_tokens(&self.counter, &Message::text(crate::message::Role::System, t));
        let render = |from: usize| {
            let mut items: Vec<String> = steps.iter().skip(from).map(|e| format!("done: {}", e.summary)).collect();
            items.extend(pending.iter().map(|p| format!("pending: {p}")));
            crate::semantic::block::render("task", &format!("History of task {task}, in order:"), &items)
        };
        (0..steps.len()).find(|&from| cost(&render(from)) <= budget).map(render).filter(|_| !steps.is_empty())
    }

    /// Procedures, preferences and the knowledge retrieved for the query.
    fn extras(&self, req: &ContextRequest) -> Result<context::Extras> {
        let unread = &self.books.cold;
        let mut extras =
            context::Extras { unread: (unread.messages as usize, unread.first.clone(), unread.last.clone()), ..Default::default() };
        if let Some(p) = &self.procedures {
            let text = p.parsed.rules_text(req.task_id.as_deref());
            if !text.is_empty() {
                extras.pinned.push(("procedures", Message::text(crate::message::Role::System, text)));
            }
        }
        // Preferences in a stable order (by key, then time), so the block is
        // byte-identical while they are unchanged.
        let mut prefs: Vec<&crate::semantic::Fact> =
            self.facts().into_iter().filter(|f| f.kind == crate::semantic::FactKind::Preference).collect();
        crate::sort::sort_by(&mut prefs, |a, b| a.key.cmp(&b.key).then(a.created_at.total_cmp(&b.created_at)));
        let items: Vec<String> =
            prefs.iter().map(|f| f.key.as_ref().map_or_else(|| f.text.clone(), |k| format!("{k}: {}", f.text))).collect();
        let cost = |t: &str| message_tokens(&self.counter, &Message::text(crate::message::Role::System, t));
        // Pinned memory blocks never take more than a third of the budget
        // each, so a small budget still has room for the question.
        let third = req.max_tokens.saturating_sub(req.reserve_output) / 3;
        if let Some((text, _, _)) =
            crate::semantic::block::fit("preferences", PREFERENCES_HEADER, &items, req.preference_tokens.unwrap_or(300).min(third), &cost)
        {
            extras.pinned.push(("preferences", Message::text(crate::message::Role::System, text)));
        }
        if let Some(task) = req.task_id.as_deref() {
            if let Some(block) = self.task_block(task, req.task_tokens.unwrap_or(400).min(third)) {
                extras.pinned.push(("task", Message::text(crate::message::Role::System, block)));
            }
        }
        if let Some(q) = req.query.as_deref().filter(|q| !q.trim().is_empty()) {
            // (preferences are in their pinned block already)
            extras.recalled = self.recalled(req, q)?;
        }
        Ok(extras)
    }
}
