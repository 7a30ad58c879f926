//! What the model sees: the context a request gets, assembled from every
//! layer (pinned procedures, preferences and task history; the knowledge
//! retrieved for the query; recalled episodes; the newest turns), within
//! the request's budget (see `crate::context::build`).

use super::{Controller, PREFERENCES_HEADER};
use crate::context::{self, Context, ContextRequest, Recalled};
use crate::episodic::Episode;
use crate::error::Result;
use crate::message::Message;
use crate::tokens::chat::{message_raw, message_tokens, tools_tokens, REPLY_PRIMING};

impl Controller {
    /// # Errors
    /// See [`context::build`]; `CLOSED`; `INVALID_INPUT` for a non-finite `now`.
    pub fn build_context(&mut self, req: &ContextRequest) -> Result<Context> {
        self.open()?;
        // Only a query reads the index (and the archive it covers).
        if req.query.is_some() {
            self.ensure_index();
        }
        if let Some(now) = req.now {
            self.stamp(now)?;
        }
        let mut req = req.clone();
        req.max_tokens = req.max_tokens.min(self.model.context_window as usize);
        if let Some(p) = &self.procedures {
            req.tools.splice(0..0, p.parsed.tools.iter().cloned());
        }
        let extras = self.extras(&req)?;
        // The note shows the newest episodes: among those opening reads, so
        // the choice is the same before the archive is read and after.
        let all = &self.episodic.episodes;
        let thread: Vec<&Episode> = all.get(all.len().saturating_sub(super::archive::RECENT_EPISODES)..).unwrap_or_default().iter().collect();
        let ctx = context::build(&self.window, &thread, &self.counter, &req, &extras)?;
        // Recalling an episode refreshes its recency.
        let now = req.now.unwrap_or(self.books.last_ts.max(0.0));
        for e in self.episodic.episodes.iter_mut().filter(|e| ctx.sections.knowledge.ids.contains(&e.id)) {
            e.last_recalled = now;
        }
        let raw = ctx.messages.iter().map(|m| message_raw(&self.counter, m)).sum::<f64>() + REPLY_PRIMING as f64 + tools_tokens(&self.counter, &req.tools) as f64;
        self.last_context.raw = Some(raw);
        self.last_context.tokens = Some(ctx.tokens);
        Ok(ctx)
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

    /// The episodes relevant to `query`, best first (recency × importance ×
    /// relevance among those that match it at all), as recall items.
    fn recalled_episodes(&self, req: &ContextRequest, query: &str) -> Vec<Recalled> {
        let all = &self.episodic.episodes;
        let relevance = self.episode_relevance(query, req.query_vector.as_deref());
        // The floor of `relevant`, over the episodes' own index; a query term
        // no summary holds weighs the most: a thread has few episodes, and
        // idf over a few documents says little.
        let best = relevance.iter().copied().fold(0.0, f64::max);
        let hybrid = req.query_vector.is_some() && !self.index.episode_vectors.is_empty();
        let floors = super::search::RELEVANCE_FLOOR;
        let [of_best, of_query] = if hybrid { floors.hybrid } else { floors.lexical };
        let floor = (best * f64::from(of_best)).max(f64::from(of_query * self.index.episodes.query_weight(query, 0)));
        let now = req.now.unwrap_or(self.books.last_ts.max(0.0));
        crate::episodic::recall::rank(all, &relevance, now, &self.opts.recall)
            .into_iter()
            .filter(|&i| relevance.get(i).is_some_and(|&r| r > 0.0 && r >= floor))
            .filter_map(|i| all.get(i))
            .map(|e| Recalled {
                id: e.id.clone(),
                text: format!("{} summary of earlier messages: {}", crate::context::utc_day(e.created_at), e.summary),
                at: Some(e.created_at),
                message: None,
                episode: true,
                covers: e.message_ids.clone(),
            })
            .collect()
    }

    /// Procedures, preferences and the knowledge retrieved for the query.
    fn extras(&self, req: &ContextRequest) -> Result<context::Extras> {
        let unread = &self.books.archive;
        let mut extras = context::Extras { unread: (unread.messages as usize, unread.first.clone(), unread.last.clone()), ..Default::default() };
        if let Some(p) = &self.procedures {
            let text = p.parsed.rules_text(req.task_id.as_deref());
            if !text.is_empty() {
                extras.pinned.push(("procedures", Message::text(crate::message::Role::System, text)));
            }
        }
        // Preferences in a stable order (by key, then time), so the block is
        // byte-identical while they are unchanged.
        let mut prefs: Vec<&crate::semantic::Fact> = self.facts().into_iter().filter(|f| f.kind == crate::semantic::FactKind::Preference).collect();
        prefs.sort_by(|a, b| a.key.cmp(&b.key).then(a.created_at.total_cmp(&b.created_at)));
        let items: Vec<String> = prefs.iter().map(|f| f.key.as_ref().map_or_else(|| f.text.clone(), |k| format!("{k}: {}", f.text))).collect();
        let cost = |t: &str| message_tokens(&self.counter, &Message::text(crate::message::Role::System, t));
        // Pinned memory blocks never take more than a third of the budget
        // each, so a small budget still has room for the question.
        let third = req.max_tokens.saturating_sub(req.reserve_output) / 3;
        if let Some((text, _, _)) = crate::semantic::block::fit("preferences", PREFERENCES_HEADER, &items, req.preference_tokens.unwrap_or(300).min(third), &cost) {
            extras.pinned.push(("preferences", Message::text(crate::message::Role::System, text)));
        }
        if let Some(task) = req.task_id.as_deref() {
            if let Some(block) = self.task_block(task, req.task_tokens.unwrap_or(400).min(third)) {
                extras.pinned.push(("task", Message::text(crate::message::Role::System, block)));
            }
        }
        if let Some(q) = req.query.as_deref().filter(|q| !q.trim().is_empty()) {
            // Enough candidates to fill the room (a turn is some 20 to 60
            // tokens); preferences are in their pinned block already.
            let k = (req.max_tokens.saturating_sub(req.reserve_output) / 16).clamp(20, MAX_RECALLED);
            let hits = self.relevant(q, req.query_vector.as_deref(), k, &["fact", "chunk", "message"])?;
            extras.recalled = interleave(hits, self.recalled_episodes(req, q));
        }
        Ok(extras)
    }
}

/// Most search hits one context considers for its recall block.
const MAX_RECALLED: usize = 400;

/// Hits and episodes in one list, best first: by reciprocal rank, an
/// episode counting as half a hit of its rank (a summary stands for many
/// turns but quotes few of them exactly), ties to the hit.
fn interleave(hits: Vec<Recalled>, episodes: Vec<Recalled>) -> Vec<Recalled> {
    const K: f64 = 10.0;
    let mut scored: Vec<(f64, usize, Recalled)> = Vec::with_capacity(hits.len() + episodes.len());
    scored.extend(hits.into_iter().enumerate().map(|(r, h)| (1.0 / (K + r as f64), 0, h)));
    scored.extend(episodes.into_iter().enumerate().map(|(r, e)| (0.5 / (K + r as f64), 1, e)));
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    scored.into_iter().map(|(_, _, r)| r).collect()
}
