//! The summary queue: with a summarizer hook, every compacted range becomes
//! its own episode, summarized in order, one request at a time.
//!
//! Invariants:
//! - a range leaves working memory at once (so working memory stays within
//!   its limits however slow the summarizer is) and waits here by message
//!   id; ranges are never merged, and an archived message is in one waiting
//!   range, or in flight, or covered by one episode;
//! - no request passes `summary_input_tokens`: a larger range is split
//!   when its turn comes, a single message larger on its own takes the
//!   offline summary (`SUMMARIZER_INPUT_LIMIT`), and the previous summary
//!   goes along only when it is within `summary_tokens`, and the offline
//!   candidates only those that fit beside the messages;
//! - at most `summary_backlog` ranges wait for the model behind the one it
//!   is writing; past that the oldest take the offline summary
//!   (`SUMMARIZER_BACKLOG`). They keep their turn, so episodes stay in
//!   order, but need no request: they are recorded as soon as the summary
//!   ahead of them is.

use super::compaction::CompactionJob;
use super::Controller;
use crate::context::Degraded;
use crate::tokens::chat::{message_tokens, REPLY_PRIMING};
use crate::window::Place;

/// A range waiting for the summarizer.
#[derive(Clone, Debug)]
pub(crate) struct Queued {
    ids: Vec<String>,
    /// Past the backlog: gets the offline summary when its turn comes.
    offline: bool,
}

fn limit(code: &str, message: &str) -> Option<Degraded> {
    Some(Degraded { code: code.into(), message: message.into() })
}

impl Controller {
    /// Moves the groups due out of working memory and queues them as one
    /// range for the summarizer. Returns whether anything moved.
    pub fn queue_compaction(&mut self) -> bool {
        let Some((members, _)) = self.archive_due() else { return false };
        let ids = members.iter().filter_map(|&i| self.window.log.get(i)).map(|s| s.id.clone()).collect();
        self.episodic.queue.push(Queued { ids, offline: false });
        let waiting = self.episodic.queue.iter().filter(|q| !q.offline).count();
        for q in self.episodic.queue.iter_mut().filter(|q| !q.offline).take(waiting.saturating_sub(self.opts.summary_backlog)) {
            q.offline = true;
        }
        true
    }

    /// The oldest waiting range as a job, its request built now from the
    /// messages not forgotten meanwhile: the longest start of the range
    /// that fits `summary_input_tokens` beside a previous summary of
    /// `summary_tokens` (the rest waits at the front), with the latest
    /// episode's summary as `previous_summary` when it is that short. Ask
    /// the summarizer only when `job.ask()`; either way finish the job
    /// before taking the next. A message's stored tokens count its sent
    /// form, which the summarizer's form (no reasoning) never exceeds.
    pub fn next_summary(&mut self) -> Option<CompactionJob> {
        let budget = self.opts.summary_input_tokens.saturating_sub(self.opts.summary_tokens + REPLY_PRIMING);
        let counter = &self.counter;
        let count = |m: &crate::message::Message| message_tokens(counter, m);
        while !self.episodic.queue.is_empty() {
            let q = self.episodic.queue.remove(0);
            let mut members = self.find_archived(&q.ids);
            let mut used = 0;
            let fit = members.iter().take_while(|&&i| {
                used += self.window.log.get(i).map_or(0, |s| s.tokens(count));
                q.offline || used <= budget
            });
            let rest = members.split_off(fit.count().max(1).min(members.len()));
            if !rest.is_empty() {
                let ids = rest.iter().filter_map(|&i| self.window.log.get(i)).map(|s| s.id.clone()).collect();
                self.episodic.queue.insert(0, Queued { ids, offline: false });
            }
            let Some(&first) = members.first() else { continue };
            let failure = if q.offline {
                limit("SUMMARIZER_BACKLOG", "more ranges waited than summaryBacklog")
            } else if self.window.log.get(first).is_some_and(|s| s.tokens(count) > budget) {
                limit("SUMMARIZER_INPUT_LIMIT", "one message alone passes summaryInputTokens")
            } else {
                None
            };
            let previous = self.episodic.episodes.last().filter(|e| e.tokens <= self.opts.summary_tokens).map(|e| e.summary.clone());
            // No compaction event is reported for a summarized range: no tokens before.
            let mut job = self.job_for(&members, previous, 0, failure);
            // The candidates quote the range's sentences: they share its budget, first come first kept.
            let used: usize = members.iter().filter_map(|&i| self.window.log.get(i)).map(|s| s.tokens(count)).sum();
            let mut room = budget.saturating_sub(used);
            job.request.candidates.retain(|c| {
                let n = counter.count(c);
                let fits = n <= room;
                if fits {
                    room -= n;
                }
                fits
            });
            return Some(job);
        }
        None
    }

    /// Log positions of the archived messages among `ids` (in log
    /// order), through the search index's id map: no log scan per range.
    pub(super) fn find_archived(&self, ids: &[String]) -> Vec<usize> {
        ids.iter()
            .filter_map(|id| self.message_at(id))
            .filter(|&i| self.window.log.get(i).is_some_and(|s| s.place == Place::Archived))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;
    use crate::controller::{ForgetTarget, Options};
    use crate::episodic::SummarySource;
    use crate::tokens::estimate::Family;
    use crate::tokens::Counter;
    use crate::window::WindowConfig;

    fn controller(input: usize, backlog: usize) -> Controller {
        let working = WindowConfig { max_tokens: 400, ..WindowConfig::default() };
        let opts = Options {
            model: "claude-sonnet-4.5".into(),
            working,
            summary_tokens: 50,
            summary_input_tokens: input,
            summary_backlog: backlog,
            ..Options::default()
        };
        Controller::new(opts, Counter::estimate(Family::Claude.profile())).unwrap()
    }

    fn add(c: &mut Controller, i: usize) -> String {
        let role = if i % 2 == 0 { "user" } else { "assistant" };
        // Lengths vary from a few words to a paragraph, and every 97th is far too long for one request.
        let words = if i % 97 == 50 { 400 } else { 3 + (i * 7) % 20 };
        let text: Vec<String> = (0..words).map(|w| format!("w{i}x{w}")).collect();
        let json = serde_json::json!({ "role": role, "content": format!("Message {i}. {}", text.join(" ")) }).to_string();
        let p = c.prepare_add(&json, i as f64).unwrap();
        c.commit_add(p).0
    }

    /// What `countMessages(request.messages)` + `countTokens(previousSummary)` + the candidates' `countTokens` says.
    fn request_tokens(c: &Controller, job: &CompactionJob) -> usize {
        let messages: Vec<serde_json::Value> = job.request.messages.iter().map(|m| serde_json::to_value(m).unwrap()).collect();
        let candidates: usize = job.request.candidates.iter().map(|s| c.count_tokens(s)).sum();
        c.count_messages(&messages, &[]).unwrap() + job.request.previous_summary.as_deref().map_or(0, |s| c.count_tokens(s)) + candidates
    }

    /// Runs the queue as the driver does until one request is answered (a
    /// slow summarizer answers one per call of this) or nothing waits:
    /// ranges given the offline summary need no request and go at once.
    /// Fails every other request when `flaky`; returns false when none waited.
    fn summarize_one(c: &mut Controller, calls: &mut usize, flaky: bool) -> bool {
        while let Some(mut job) = c.next_summary() {
            let asked = job.ask();
            let mut answer = None;
            if asked {
                assert!(request_tokens(c, &job) <= c.opts.summary_input_tokens, "a request of {} tokens", request_tokens(c, &job));
                *calls += 1;
                if flaky && *calls % 2 == 0 {
                    job.failed(Degraded { code: "SUMMARIZER_HTTP".into(), message: "503".into() });
                } else {
                    answer = Some(format!(r#"{{"summary":"{} messages","importance":0.5}}"#, job.request.messages.len()));
                }
            }
            let p = c.finish_compaction(job, answer.as_deref(), 1e6).unwrap();
            c.commit_compaction(p);
            if asked {
                return true;
            }
        }
        false
    }

    /// 600 messages into a 400-token window while one summary takes as
    /// long as twenty adds: every range its own episode, in order, none
    /// merged, no request over the limit, every archived message covered once.
    fn burst(flaky: bool) {
        let mut c = controller(200, 3);
        let (mut ranges, mut calls) = (Vec::new(), 0);
        let mut archived: HashSet<String> = HashSet::new();
        for i in 0..600 {
            add(&mut c, i);
            if c.queue_compaction() {
                let now: HashSet<String> = c.window.archived().map(|s| s.id.clone()).collect();
                ranges.push(now.difference(&archived).cloned().collect::<HashSet<String>>());
                archived = now;
            }
            assert!(c.episodic.queue.iter().filter(|q| !q.offline).count() <= 3, "the backlog is bounded");
            if i % 20 == 19 {
                summarize_one(&mut c, &mut calls, flaky);
            }
        }
        while summarize_one(&mut c, &mut calls, flaky) {}
        assert_eq!(c.history().len(), 600);
        let order: Vec<&str> = c.window.log.iter().map(|s| s.id.as_str()).collect();
        let mut covered = Vec::new();
        for e in c.episodes() {
            assert!(ranges.iter().any(|r| e.message_ids.iter().all(|id| r.contains(id))), "an episode spans two ranges");
            covered.extend(e.message_ids.iter().map(|id| order.iter().position(|o| o == id).unwrap()));
            match e.summary_source {
                SummarySource::Model => assert!(e.degraded.is_none()),
                SummarySource::Fallback => assert!(e.degraded.is_some(), "every fallback says why"),
            }
        }
        let expected: Vec<usize> = (0..600).filter(|&i| c.window.log[i].place == Place::Archived).collect();
        assert_eq!(covered, expected, "each archived message in exactly one episode, in order");
        assert!(expected.len() > 400, "most of the burst was archived");
        let codes: HashSet<&str> = c.episodes().iter().filter_map(|e| e.degraded.as_ref()).map(|d| d.code.as_str()).collect();
        assert!(codes.contains("SUMMARIZER_BACKLOG") && codes.contains("SUMMARIZER_INPUT_LIMIT"), "{codes:?}");
        assert_eq!(codes.contains("SUMMARIZER_HTTP"), flaky);
        assert!(calls > 20 && c.episodes().iter().any(|e| e.summary_source == SummarySource::Model));
        assert!(ranges.len() < c.episodes().len(), "large ranges were split");
    }

    #[test]
    fn a_burst_during_slow_summaries_is_queued_split_and_bounded() {
        burst(false);
    }

    #[test]
    fn a_burst_with_a_summarizer_failing_every_other_call() {
        burst(true);
    }

    #[test]
    fn a_message_forgotten_while_waiting_is_never_sent() {
        let mut c = controller(6000, 8);
        let ids: Vec<String> = (0..40).map(|i| add(&mut c, i)).collect();
        assert!(c.queue_compaction());
        let first = c.episodic.queue[0].ids.clone();
        let p = c.prepare_forget(&ForgetTarget::Message(first[1].clone()), 100.0).unwrap();
        c.commit_forget(p);
        let job = c.next_summary().unwrap();
        assert_eq!(job.request.messages.len(), first.len() - 1);
        assert!(!job.request.messages.iter().any(|m| m.content_text().starts_with("Message 1.")));
        let p = c.finish_compaction(job, Some(r#"{"summary":"s"}"#), 200.0).unwrap();
        c.commit_compaction(p);
        let e = &c.episodes()[0];
        assert_eq!(e.summary_source, SummarySource::Model, "the request held only what remained");
        assert!(!e.message_ids.contains(&ids[1]));
    }

    #[test]
    fn unreadable_answers_and_hook_errors_are_recorded() {
        let mut c = controller(6000, 8);
        for i in 0..40 {
            add(&mut c, i);
        }
        c.queue_compaction();
        let mut job = c.next_summary().unwrap();
        assert!(job.ask() && job.request.previous_summary.is_none());
        job.failed(Degraded { code: "SUMMARIZER_TIMEOUT".into(), message: "no answer within 5 ms".into() });
        let p = c.finish_compaction(job, None, 1.0).unwrap();
        c.commit_compaction(p);
        assert_eq!(c.episodes()[0].degraded.as_ref().unwrap().code, "SUMMARIZER_TIMEOUT");
        for i in 40..80 {
            add(&mut c, i);
        }
        c.queue_compaction();
        let job = c.next_summary().unwrap();
        assert_eq!(job.request.previous_summary.as_deref(), Some(c.episodes()[0].summary.as_str()));
        let p = c.finish_compaction(job, Some(""), 2.0).unwrap();
        c.commit_compaction(p);
        assert_eq!(c.episodes()[1].degraded.as_ref().unwrap().code, "SUMMARIZER_INVALID");
    }

    #[test]
    fn the_input_limit_must_leave_room_beside_the_previous_summary() {
        let opts = Options { summary_tokens: 200, summary_input_tokens: 200, ..Options::default() };
        let err = Controller::new(opts, Counter::estimate(Family::Claude.profile())).err().unwrap();
        assert_eq!(err.code(), "INVALID_INPUT");
        let opts = Options { summary_backlog: 0, ..Options::default() };
        assert_eq!(Controller::new(opts, Counter::estimate(Family::Claude.profile())).err().unwrap().code(), "INVALID_INPUT");
    }

    #[test]
    fn a_range_queued_while_the_summarizer_is_idle_is_asked_for_even_with_a_backlog_of_one() {
        let mut c = controller(6000, 1);
        for i in 0..40 {
            add(&mut c, i);
        }
        assert!(c.queue_compaction());
        assert!(c.next_summary().unwrap().ask());
    }
}
