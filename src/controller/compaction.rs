//! Compaction in four steps, so a slow summarizer never holds anything up:
//!
//! 1. `begin_compaction` moves the oldest groups to the archive in memory at
//!    once (their raw records are already stored), so messages added while
//!    the summary is being written are never planned twice;
//! 2. the host asks its summarizer for `job.request` (or not: offline; with
//!    a summarizer, ranges wait their turn in `queue`, one request each);
//! 3. `finish_compaction` turns the answer (or its absence) into an episode
//!    and the facts and preferences it teaches, as records to save: the
//!    model's when it answered, else the user's own lasting statements
//!    (`semantic::learn`);
//! 4. `commit_compaction` once they are saved, or `abort_compaction` to put
//!    the messages back in working memory if saving failed.

use serde::Serialize;

use super::{CompactionEvent, Controller};
use crate::context::Degraded;
use crate::episodic::parse::{parse_summary, ModelSummary};
use crate::episodic::{Episode, SummarySource};
use crate::message::{Message, Role};
use crate::origin::Origin;
use crate::semantic::learn::{self, Statement};
use crate::semantic::{Fact, FactKind};
use crate::store::record::{encode_record, Record};
use crate::store::Write;
use crate::summary;
use crate::window::{CompactionPlan, Place, Stored, Window};
use crate::wire::request_form;

/// What the summarizer hook is asked.
#[derive(Clone, Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields))]
#[serde(rename_all = "camelCase")]
pub struct SummaryRequest {
    /// Always "summary" (a consolidation's request says "consolidation").
    #[cfg_attr(test, ts(type = "\"summary\""))]
    pub purpose: &'static str,
    pub messages: Vec<Message>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous_summary: Option<String>,
    /// User sentences the offline rules read as lasting statements about
    /// the user, for the model to confirm: its `facts` and `preferences`
    /// are what is learned, these only point at what to look at.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(test, ts(as = "Option<_>"))] // absent when empty
    pub candidates: Vec<String>,
    /// The user's live facts and preferences (the newest, at most
    /// [`MAX_CURRENT`]): the model returns in `supersedes` the ids of
    /// those the range contradicts ("I moved to Berlin" ends "lives in
    /// Shanghai"); they stay in history.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(test, ts(as = "Option<_>"))] // absent when empty
    pub current_facts: Vec<CurrentFact>,
}

/// A live fact as a request shows it to the model.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields))]
#[serde(rename_all = "camelCase")]
pub struct CurrentFact {
    pub id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    pub text: String,
}

/// Most live facts a request shows: the newest; a request stays bounded
/// whatever the namespace holds.
pub const MAX_CURRENT: usize = 40;

/// A range moved to the archive whose episode is not stored yet. It names
/// its messages by id: a `forget` may rebuild the log while the summary is
/// being written, and positions would then point elsewhere.
#[derive(Debug)]
pub struct CompactionJob {
    ids: Vec<String>,
    pub request: SummaryRequest,
    tokens_before: usize,
    /// Why this range gets the offline summary although a summarizer
    /// exists; the episode records it.
    failure: Option<Degraded>,
}

impl CompactionJob {
    /// Whether the summarizer should be asked: not for a range the queue
    /// already gave the offline summary (see `queue`).
    pub fn ask(&self) -> bool {
        self.failure.is_none()
    }

    /// Records why the summarizer gave no usable answer (its error's code
    /// and message); the episode keeps it as `degraded`.
    pub fn failed(&mut self, why: Degraded) {
        self.failure = Some(why);
    }
}

/// The records one compaction stores: the episode first.
#[derive(Debug)]
pub struct PreparedCompaction {
    pub writes: Vec<Write>,
    plan: CompactionPlan,
    episode: Episode,
    facts: Vec<(Fact, u64)>,
    seq: u64,
    next_seq: u64,
    tokens_before: usize,
}

/// Most statements one range may teach offline (and propose to a model):
/// a range that seems to state more is more likely one the rules misread.
const MAX_LEARNED: usize = 5;

impl Controller {
    /// Starts a compaction if working memory passed its threshold.
    pub fn begin_compaction(&mut self) -> Option<CompactionJob> {
        let (members, tokens_before) = self.archive_due()?;
        let previous_summary = self.episodic.episodes.last().map(|e| e.summary.clone());
        Some(self.job_for(&members, previous_summary, tokens_before, None))
    }

    /// Moves the groups due out of working memory to the archive: their log
    /// indices in order, and the working tokens before.
    pub(super) fn archive_due(&mut self) -> Option<(Vec<usize>, usize)> {
        let plan = self.window.plan_compaction(&self.opts.working)?;
        let tokens_before = self.window.working_tokens();
        self.window.apply_compaction(&plan);
        Some((plan.members, tokens_before))
    }

    /// The job for the archived messages at `members` (log indices).
    pub(super) fn job_for(
        &self,
        members: &[usize],
        previous_summary: Option<String>,
        tokens_before: usize,
        failure: Option<Degraded>,
    ) -> CompactionJob {
        // The summarizer reads what a model would: the sent form, without reasoning.
        let moved = || members.iter().filter_map(|&i| self.window.log.get(i));
        let messages = moved().map(|s| request_form(&s.message, false, &[])).collect();
        let ids = moved().map(|s| s.id.clone()).collect();
        let moved: Vec<&Stored> = moved().collect();
        let candidates = self.offline_statements(&moved).into_iter().map(|(text, _)| text).collect();
        let current_facts = self.current_facts();
        CompactionJob {
            ids,
            request: SummaryRequest { purpose: "summary", messages, previous_summary, candidates, current_facts },
            tokens_before,
            failure,
        }
    }

    /// The newest live facts and preferences, at most [`MAX_CURRENT`], oldest first.
    pub(crate) fn current_facts(&self) -> Vec<CurrentFact> {
        let live: Vec<&Fact> = self.facts().into_iter().filter(|f| f.kind != FactKind::Chunk).collect();
        let skip = live.len().saturating_sub(MAX_CURRENT);
        live.into_iter().skip(skip).map(|f| CurrentFact { id: f.id.clone(), key: f.key.clone(), text: f.text.clone() }).collect()
    }

    /// The episode and facts for a begun compaction. `answer` is the
    /// summarizer's text (`None`: none, it failed, or it timed out); an
    /// answer that cannot be read falls back to the offline summary too.
    /// `None` when every message of the job was forgotten meanwhile.
    pub fn finish_compaction(&self, job: CompactionJob, answer: Option<&str>, now: f64) -> Option<PreparedCompaction> {
        let members = self.find_archived(&job.ids);
        if members.is_empty() {
            return None;
        }
        // A summary written from messages some of which were forgotten since
        // may quote them: only the offline summary of what remains is safe.
        let answer = if members.len() == job.ids.len() { answer } else { None };
        let plan = CompactionPlan { groups: vec![], members };
        let moved: Vec<&Stored> = plan.members.iter().filter_map(|&i| self.window.log.get(i)).collect();
        let model = answer.and_then(parse_summary);
        let ts = now.max(self.books.last_ts);
        let seq = self.books.next_seq;
        let mut episode = self.episode_for(&moved, model.as_ref(), seq, ts);
        episode.degraded = match (&model, answer) {
            (Some(_), _) => None,
            (None, Some(_)) => {
                Some(Degraded { code: "SUMMARIZER_INVALID".into(), message: "the summarizer's answer holds no summary".into() })
            }
            (None, None) => job.failure,
        };
        let facts = self.learned_facts(&moved, model.as_ref(), &episode.id, ts, seq + 1);
        let record = Record::Episode {
            writer: self.opts.writer.clone(),
            seq,
            lc: self.books.lc_at(ts, seq),
            episode,
            thread: self.thread_field(),
            counted: self.counted(),
        };
        let mut writes = vec![Write { key: self.key(seq), bytes: encode_record(&record) }];
        let Record::Episode { episode, .. } = record else { unreachable!() };
        for (fact, fseq) in &facts {
            let record = Record::Fact { writer: self.opts.writer.clone(), seq: *fseq, lc: self.books.lc_at(ts, *fseq), fact: fact.clone() };
            writes.push(Write { key: self.key(*fseq), bytes: encode_record(&record) });
        }
        let next = seq + 1 + facts.len() as u64;
        Some(PreparedCompaction { writes, plan, episode, facts, seq, next_seq: next, tokens_before: job.tokens_before })
    }

    /// The episode for `moved`, numbered `seq`: from the model's summary,
    /// or the offline extractive one. Its task is the range's, if it has one.
    pub(crate) fn episode_for(&self, moved: &[&Stored], model: Option<&ModelSummary>, seq: u64, created_at: f64) -> Episode {
        let counter = &self.counter;
        let extract = summary::summarize(moved, self.opts.summary_tokens, &|s: &str| counter.count(s));
        let first = moved.first().and_then(|s| s.task_id.clone());
        let task_id = first.filter(|t| moved.iter().all(|s| s.task_id.as_deref() == Some(t)));
        let (summary, key_points, pending_tasks, importance, summary_source) = match model {
            Some(m) => (
                m.summary.clone(),
                m.key_points.clone(),
                m.pending_tasks.clone(),
                m.importance.unwrap_or(extract.importance),
                SummarySource::Model,
            ),
            None => (extract.text, extract.key_points, vec![], extract.importance, SummarySource::Fallback),
        };
        Episode {
            id: format!("e-{}-{seq}", self.opts.writer),
            tokens: counter.count(&summary),
            summary,
            key_points,
            importance,
            message_ids: moved.iter().map(|s| s.id.clone()).collect(),
            created_at,
            summary_source,
            pending_tasks,
            task_id,
            last_recalled: created_at,
            degraded: None,
            // (its record's lc is known where it is kept)
            origin: Origin::default(),
        }
    }

    /// What a range teaches, as auto facts numbered from `first_seq` and
    /// sourced to the episode that summarizes it.
    ///
    /// What each ends: with a model that answered `supersedes`, the live
    /// facts it named (only those the request showed, carried by the
    /// first fact learned); else those each contradicts by the offline
    /// rules (`semantic::claim`).
    pub(crate) fn learned_facts(
        &self,
        moved: &[&Stored],
        model: Option<&ModelSummary>,
        episode_id: &str,
        created_at: f64,
        first_seq: u64,
    ) -> Vec<(Fact, u64)> {
        let named = model.and_then(|m| m.supersedes.as_ref()).map(|ids| {
            let shown = self.current_facts();
            ids.iter().filter(|id| shown.iter().any(|f| &f.id == *id)).cloned().collect::<Vec<_>>()
        });
        self.learned(moved, model)
            .into_iter()
            .zip(first_seq..)
            .map(|((key, text, kind), seq)| {
                let supersedes = match &named {
                    Some(ids) if seq == first_seq => ids.clone(),
                    Some(_) => vec![],
                    None => self.superseded_by(&text, key.as_deref(), None).unwrap_or_default(),
                };
                let fact = Fact {
                    id: format!("f-{}-{seq}", self.opts.writer),
                    key,
                    text,
                    kind,
                    tags: vec!["auto".into()],
                    source: Some(episode_id.to_string()),
                    document: None,
                    created_at,
                    supersedes,
                    ..Fact::default()
                };
                (fact, seq)
            })
            .collect()
    }

    /// Facts and preferences a range teaches. With a model answer, what
    /// the model returned and nothing else (keyed: a new value supersedes):
    /// it read the offline candidates in its request and kept the lasting
    /// ones, so adding the rules' picks back would undo its judgement. The
    /// risk is a model that drops a real preference: it is still in the
    /// archive and searchable, and a wrongly pinned one would cost tokens in
    /// every context. Offline, the user's own lasting statements.
    fn learned(&self, moved: &[&Stored], model: Option<&ModelSummary>) -> Vec<(Option<String>, String, FactKind)> {
        let live: Vec<&Fact> = self.facts();
        let keyed = |k: &str| if k.is_empty() { None } else { Some(k.to_string()) };
        let mut out: Vec<(Option<String>, String, FactKind)> = match model {
            Some(m) => {
                let facts = m.facts.iter().map(|(k, v)| (keyed(k), v.clone(), FactKind::Fact));
                let prefs =
                    m.preferences.iter().map(|(k, v)| (keyed(k).map(|k| format!("preference:{k}")), v.clone(), FactKind::Preference));
                facts.chain(prefs).collect()
            }
            None => self.offline_statements(moved).into_iter().map(|(text, st)| (offline_key(st), text, st.kind)).collect(),
        };
        // A value that is already live and equal adds nothing.
        out.retain(|(k, t, _)| !live.iter().any(|f| f.key == *k && f.text == *t));
        out
    }

    /// The user sentences of `moved` that state something lasting about
    /// the user, at most `MAX_LEARNED`, each once and none already known:
    /// a live fact that says the same, give or take a cue around it
    /// ("记住：我偏好用 Python 写代码。" when the app stored
    /// "我偏好用 Python 写代码。" as the user said it).
    fn offline_statements(&self, moved: &[&Stored]) -> Vec<(String, Statement)> {
        let live: Vec<&Fact> = self.facts();
        let mut out: Vec<(String, Statement)> = Vec::new();
        for s in moved.iter().filter(|s| s.message.role == Role::User) {
            for (text, st) in learn::statements(&s.message.content_text()) {
                let known = live.iter().any(|f| says_the_same(&f.text, &text)) || out.iter().any(|(t, _)| says_the_same(t, &text));
                if out.len() < MAX_LEARNED && !known {
                    out.push((text, st));
                }
            }
        }
        out
    }

    /// Applies a saved compaction.
    pub fn commit_compaction(&mut self, p: PreparedCompaction) -> CompactionEvent {
        let ts = p.episode.created_at;
        let lc = self.books.lc_at(ts, p.seq);
        let fact_lcs: Vec<u64> = p.facts.iter().map(|(_, seq)| self.books.lc_at(ts, *seq)).collect();
        self.books.last_lc = fact_lcs.iter().fold(self.books.last_lc.max(lc), |a, b| a.max(*b));
        self.books.next_seq = p.next_seq;
        for w in &p.writes {
            self.books.folding.logged(w);
        }
        let event = CompactionEvent {
            episode_id: p.episode.id.clone(),
            messages: p.plan.members.len(),
            tokens_before: p.tokens_before,
            tokens_after: self.window.working_tokens(),
        };
        let episode = Episode { origin: Origin::new(self.opts.writer.clone(), p.seq, lc), ..p.episode };
        self.index.index_episode(&episode, false);
        self.episodic.episodes.push(episode);
        for ((fact, seq), lc) in p.facts.into_iter().zip(fact_lcs) {
            self.semantic.push(fact, Origin::new(self.opts.writer.clone(), seq, lc));
            self.index_fact(self.semantic.facts.len() - 1);
        }
        event
    }

    /// Saving failed: the messages return to working memory, as storage has them.
    pub fn abort_compaction(&mut self, p: PreparedCompaction) {
        let log = std::mem::take(&mut self.window.log);
        self.window = Window::default();
        for (i, mut s) in log.into_iter().enumerate() {
            if p.plan.members.binary_search(&i).is_ok() {
                s.place = Place::Working;
            }
            self.window.push(s);
        }
    }

    /// Compacts with the offline summary, without storage.
    pub(crate) fn compact_offline(&mut self, now: f64) -> Option<CompactionEvent> {
        let job = self.begin_compaction()?;
        let p = self.finish_compaction(job, None, now)?;
        Some(self.commit_compaction(p))
    }
}

/// The stored key of an offline statement: preferences under
/// `preference:`, as the model's are.
fn offline_key(st: Statement) -> Option<String> {
    let key = st.key?;
    Some(match st.kind {
        FactKind::Preference => format!("preference:{key}"),
        _ => key.to_string(),
    })
}

/// Whether one text holds the other whole and is at least 3/5 of its
/// length: the same statement, with or without a cue around it.
fn says_the_same(a: &str, b: &str) -> bool {
    let (a, b) = (a.trim(), b.trim());
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    !short.is_empty() && long.contains(short) && short.chars().count() * 5 >= long.chars().count() * 3
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::controller::Options;
    use crate::tokens::estimate::Family;
    use crate::tokens::Counter;
    use crate::window::WindowConfig;

    /// A controller whose working memory (200 tokens) holds `turns`.
    fn chat(turns: &[&str]) -> Controller {
        let working = WindowConfig { max_tokens: 200, ..WindowConfig::default() };
        let opts = Options { model: "claude-sonnet-4.5".into(), working, ..Options::default() };
        let mut c = Controller::new(opts, Counter::estimate(Family::Claude.profile())).unwrap();
        say(&mut c, turns);
        c
    }

    /// Adds `turns` (user first, then alternating), then a long user turn
    /// and a reply, so a compaction archives every one of `turns`.
    fn say(c: &mut Controller, turns: &[&str]) {
        let filler = "word ".repeat(150);
        for (i, t) in turns.iter().chain([&filler.as_str(), &"ok"]).enumerate() {
            let role = if i % 2 == 0 { "user" } else { "assistant" };
            let json = serde_json::json!({ "role": role, "content": t }).to_string();
            let p = c.prepare_add(&json, i as f64).unwrap();
            c.commit_add(p);
        }
    }

    const TURNS: &[&str] = &[
        "That must have been awesome. What's a favorite book you remember from your childhood?",
        "Probably The Hobbit.",
        "My sister always says she hates mornings. I'm allergic to penicillin.",
        "Noted, I'll keep that in mind.",
        "我对花生过敏。帮我查一下明天的天气。他喜欢吃辣。",
        "好的。",
        "I live in Toronto. Please book a table for two tonight.",
        "Done.",
    ];

    fn learned(c: &Controller) -> Vec<(Option<String>, String, FactKind)> {
        c.facts().into_iter().filter(|f| f.tags.iter().any(|t| t == "auto")).map(|f| (f.key.clone(), f.text.clone(), f.kind)).collect()
    }

    fn compact_all(c: &mut Controller, answer: Option<&str>) {
        let job = c.begin_compaction().unwrap();
        let p = c.finish_compaction(job, answer, 100.0).unwrap();
        c.commit_compaction(p);
    }

    /// Offline, only lasting statements about the user are learned, in both
    /// languages: constraints pinned as preferences, a home city as a keyed fact.
    #[test]
    fn offline_learning_keeps_lasting_statements_only() {
        let mut c = chat(TURNS);
        compact_all(&mut c, None);
        let got = learned(&c);
        let texts: Vec<&str> = got.iter().map(|(_, t, _)| t.as_str()).collect();
        assert!(texts.contains(&"I'm allergic to penicillin."), "{texts:?}");
        assert!(texts.contains(&"我对花生过敏。"), "{texts:?}");
        for noise in [
            "That must have been awesome.",
            "My sister always says she hates mornings.",
            "他喜欢吃辣。",
            "帮我查一下明天的天气。",
            "Please book a table for two tonight.",
        ] {
            assert!(!texts.contains(&noise), "{noise} was learned: {texts:?}");
        }
        assert!(got.iter().any(|(k, t, kind)| t == "I'm allergic to penicillin." && *kind == FactKind::Preference && k.is_none()));
        assert!(
            got.iter().any(|(k, t, kind)| t == "I live in Toronto." && *kind == FactKind::Fact && k.as_deref() == Some("home_city")),
            "{got:?}"
        );
    }

    /// A later value of a keyed attribute supersedes the earlier one.
    #[test]
    fn a_new_home_city_supersedes_the_old() {
        let mut c = chat(&["I live in Toronto.", "Nice."]);
        compact_all(&mut c, None);
        say(&mut c, &["I moved to Berlin last year.", "Nice.", "Tell me a joke.", "Knock knock."]);
        compact_all(&mut c, None);
        let homes: Vec<String> = learned(&c).into_iter().filter(|(k, _, _)| k.as_deref() == Some("home_city")).map(|(_, t, _)| t).collect();
        assert_eq!(homes, vec!["I moved to Berlin last year.".to_string()]);
        assert_eq!(c.semantic.history("home_city").len(), 2, "the history stays");
    }

    /// The request proposes the offline picks; the model's answer alone is learned.
    #[test]
    fn with_a_model_the_candidates_are_proposed_and_only_its_answer_is_learned() {
        let mut c = chat(TURNS);
        let job = c.begin_compaction().unwrap();
        assert!(job.request.candidates.contains(&"I'm allergic to penicillin.".to_string()), "{:?}", job.request.candidates);
        assert!(!job.request.candidates.iter().any(|s| s.contains("awesome") || s.contains("sister")), "{:?}", job.request.candidates);
        let json = serde_json::to_value(&job.request).unwrap();
        assert!(json.get("candidates").is_some_and(|v| v.is_array()));
        let answer = r#"{"summary":"chat","facts":[],"preferences":[{"key":"allergy","value":"The user is allergic to penicillin."}]}"#;
        let p = c.finish_compaction(job, Some(answer), 100.0).unwrap();
        c.commit_compaction(p);
        let got = learned(&c);
        assert_eq!(got, vec![(Some("preference:allergy".into()), "The user is allergic to penicillin.".into(), FactKind::Preference)]);
    }

    /// The request shows the live facts; the model's `supersedes` ends
    /// those it names (only those shown), and without the field the
    /// offline rules decide.
    #[test]
    fn the_model_is_told_the_current_facts_and_says_which_end() {
        for (answer, ended) in [
            (
                r#"{"summary":"moved","facts":[{"key":"city","value":"The user moved to Berlin."}],"supersedes":["SHANGHAI","f-nobody-1"]}"#,
                true,
            ),
            (r#"{"summary":"moved","facts":[{"key":"city","value":"The user moved to Berlin."}],"supersedes":[]}"#, false),
            (r#"{"summary":"moved","facts":[{"key":"city","value":"The user moved to Berlin."}]}"#, true),
        ] {
            let mut c = chat(&[]);
            let p = c
                .prepare_remember(crate::semantic::RememberInput { text: "The user lives in Shanghai.".into(), ..Default::default() }, 0.0)
                .unwrap();
            let shanghai = c.commit_remember(p).id;
            say(&mut c, &["I moved to Berlin.", "Nice."]);
            let job = c.begin_compaction().unwrap();
            assert_eq!(job.request.current_facts.iter().map(|f| f.id.as_str()).collect::<Vec<_>>(), vec![shanghai.as_str()]);
            let p = c.finish_compaction(job, Some(&answer.replace("SHANGHAI", &shanghai)), 100.0).unwrap();
            c.commit_compaction(p);
            let live: Vec<&str> = c.facts().iter().map(|f| f.text.as_str()).collect();
            assert_eq!(!live.contains(&"The user lives in Shanghai."), ended, "{answer}: {live:?}");
            assert_eq!(c.semantic.facts.len(), 2, "nothing is deleted");
        }
    }

    /// A range with nothing lasting asks without candidates (the field is absent).
    #[test]
    fn a_request_without_candidates_omits_the_field() {
        let mut c = chat(&["Hey, how's it going?", "Fine!", "Tell me a joke.", "Why did the chicken cross the road?"]);
        let job = c.begin_compaction().unwrap();
        assert!(job.request.candidates.is_empty());
        assert!(serde_json::to_value(&job.request).unwrap().get("candidates").is_none());
    }

    #[test]
    fn a_statement_with_a_cue_around_it_says_the_same() {
        assert!(says_the_same("我偏好用 Python 写代码。", "记住：我偏好用 Python 写代码。"));
        assert!(says_the_same("I prefer window seats.", "I prefer window seats."));
        assert!(!says_the_same("Python", "I prefer Python for scripts and Go for services."));
        assert!(!says_the_same("", "anything"));
    }
}
