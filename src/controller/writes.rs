//! Every change in two steps: `prepare_*` validates and returns the bytes
//! to store without changing anything; `commit_*` applies it once the host
//! saved those bytes. A failed save therefore leaves memory exactly as
//! storage has it, and a retry prepares the same change again.
//!
//! The host runs one change at a time (the wasm layer queues them), so what
//! `prepare` saw is still true at `commit`.

use super::Controller;
use crate::cost::Usage;
use crate::error::{MemoryError, Result};
use crate::message::Message;
use crate::models;
use crate::store::record::{encode_pack, encode_record, Record};
use crate::store::{log_key, pack_key, Key, Write};
use crate::tokens::chat::message_tokens;
use crate::wire::request_form;
use crate::window::{Stored, Window};

/// A message ready to be stored.
#[derive(Debug)]
pub struct PreparedAdd {
    pub write: Write,
    stored: Stored,
}

#[derive(Debug)]
pub struct PreparedUsage {
    pub write: Write,
    record: Record,
    usd: Option<f64>,
}

/// A pack of every live record; after it is saved the host removes `remove`.
#[derive(Debug)]
pub struct PreparedPack {
    pub write: Write,
    pub remove: Vec<Key>,
    records: usize,
}

impl Controller {
    /// The Lamport order of record `seq` of a change written at `ts`, whose
    /// first record is `next_seq`: a hybrid logical clock, the clock's
    /// milliseconds while they run ahead of every order loaded or written,
    /// else one past the highest. So what a writer writes comes after all it
    /// saw whatever its clock says, and writers that never saw each other
    /// (two tabs) interleave by time. Call before the change is committed.
    pub(crate) fn lc_at(&self, ts: f64, seq: u64) -> u64 {
        // Up to 2^53 ms (the range of exact f64 integers): no overflow below.
        let clock = if ts > 0.0 { ts.min(9_007_199_254_740_992.0) as u64 } else { 0 };
        clock.max(self.last_lc.saturating_add(1)).saturating_add(seq.saturating_sub(self.next_seq))
    }

    /// The timestamp a write at `now` gets: the clock's reading, kept as
    /// metadata (the order is `lc_at`'s).
    ///
    /// # Errors
    /// `INVALID_INPUT` when the clock gave a non-finite value: every write
    /// refuses it alike rather than silently reusing the last time.
    pub(crate) fn stamp(&self, now: f64) -> Result<f64> {
        if now.is_finite() {
            Ok(now)
        } else {
            Err(MemoryError::input("clock", format!("the clock returned {now}, not a finite time in ms")))
        }
    }

    pub(crate) fn key(&self, seq: u64) -> Key {
        log_key(&self.opts.namespace, &self.opts.writer, seq)
    }

    /// Validates a message (JSON text in the OpenAI shape) added at `now` (ms).
    ///
    /// # Errors
    /// The validation errors of [`Message::parse_json`], `TOOL_RESULT_WITHOUT_CALL`,
    /// `INVALID_INPUT` for a non-finite time, `CLOSED`.
    pub fn prepare_add(&self, message_json: &str, now: f64) -> Result<PreparedAdd> {
        self.prepare_add_message(Message::parse_json(message_json)?, now)
    }

    /// [`Controller::prepare_add`] for an already parsed message.
    ///
    /// # Errors
    /// See [`Controller::prepare_add`].
    pub fn prepare_add_message(&self, message: Message, now: f64) -> Result<PreparedAdd> {
        self.prepare_add_in_task(message, None, now)
    }

    /// [`Controller::prepare_add_message`] for a message of an agent task.
    ///
    /// # Errors
    /// See [`Controller::prepare_add`]; `INVALID_INPUT` for an empty task id.
    pub fn prepare_add_in_task(&self, message: Message, task_id: Option<String>, now: f64) -> Result<PreparedAdd> {
        self.open()?;
        if task_id.as_deref().is_some_and(str::is_empty) {
            return Err(MemoryError::input("taskId", "must not be empty"));
        }
        let ts = self.stamp(now)?;
        self.window.check(&message)?;
        let seq = self.next_seq;
        let writer = self.opts.writer.clone();
        let id = format!("m-{writer}-{seq}");
        let lc = self.lc_at(ts, seq);
        let record = Record::Msg { writer: writer.clone(), seq, lc, ts, id: id.clone(), message, task: task_id.clone(), thread: self.thread_field() };
        let write = Write { key: self.key(seq), bytes: encode_record(&record) };
        let Record::Msg { message, .. } = record else { unreachable!() };
        let tool_turn = self.window.tool_turn(&message);
        let tokens = message_tokens(&self.counter, &request_form(&message, tool_turn, &[]));
        let place = Window::place_for(&message);
        Ok(PreparedAdd { write, stored: Stored { id, writer, seq, lc, ts, message, tokens, tool_turn, place, task_id } })
    }

    /// Applies a stored message; returns its id and tokens.
    pub fn commit_add(&mut self, p: PreparedAdd) -> (String, usize) {
        let (id, tokens) = (p.stored.id.clone(), p.stored.tokens);
        self.next_seq = p.stored.seq + 1;
        self.last_ts = self.last_ts.max(p.stored.ts);
        self.last_lc = self.last_lc.max(p.stored.lc);
        self.window.push(p.stored);
        self.index_message(self.window.log.len() - 1);
        self.folding.known.push(p.write.key);
        self.folding.unfolded += 1;
        (id, tokens)
    }

    /// Validates one call's usage for `model`.
    ///
    /// # Errors
    /// `UNKNOWN_MODEL`, `INVALID_INPUT`, `CLOSED`.
    pub fn prepare_usage(&self, model: &str, usage: &Usage, now: f64) -> Result<PreparedUsage> {
        self.prepare_usage_for(model, usage, "chat", now)
    }

    /// Usage of a hook's own model calls ("summarizer", "embedder"), charged
    /// at that model's price and shown apart from the app's calls.
    ///
    /// # Errors
    /// See [`Controller::prepare_usage`].
    pub fn prepare_usage_for(&self, model: &str, usage: &Usage, purpose: &str, now: f64) -> Result<PreparedUsage> {
        self.open()?;
        let ts = self.stamp(now)?;
        usage.validate()?;
        // An unknown model is charged tokens, not money: its cost is null.
        let price = models::resolve(model, &self.opts.models);
        let seq = self.next_seq;
        let record = Record::Usage {
            writer: self.opts.writer.clone(),
            seq,
            ts,
            model: model.to_string(),
            prompt: usage.prompt_tokens,
            completion: usage.completion_tokens,
            cached: usage.cached_prompt_tokens,
            cache_write: usage.cache_write_tokens,
            reasoning: usage.reasoning_tokens,
            purpose: purpose.to_string(),
            usd: price.map(|p| usage.usd(&p)),
        };
        let write = Write { key: self.key(seq), bytes: encode_record(&record) };
        Ok(PreparedUsage { write, usd: record_usd(&record), record })
    }

    /// Charges the usage (and calibrates an estimating counter); returns
    /// USD, or `None` for a model without a known price.
    pub fn commit_usage(&mut self, p: PreparedUsage) -> Option<f64> {
        let Record::Usage { seq, ref model, prompt, ref purpose, .. } = p.record else { unreachable!() };
        self.cost.record_for(model, p.usd, &usage_of(&p.record), purpose);
        if *model == self.opts.model && purpose == "chat" {
            self.calibrate(prompt);
        }
        self.next_seq = seq + 1;
        self.folding.known.push(p.write.key);
        self.folding.unfolded += 1;
        self.usages.push(p.record);
        p.usd
    }

    /// How this controller's thread is written in its records.
    pub(crate) fn thread_field(&self) -> Option<String> {
        crate::store::record::thread_field(&self.opts.thread)
    }

    /// Every live record, in a stable order: this thread's, then the other
    /// threads', then the namespace's.
    pub(crate) fn live_records(&self) -> Vec<Record> {
        let thread = self.thread_field();
        let mut out: Vec<Record> = self
            .window
            .log
            .iter()
            .map(|s| Record::Msg { writer: s.writer.clone(), seq: s.seq, lc: s.lc, ts: s.ts, id: s.id.clone(), message: s.message.clone(), task: s.task_id.clone(), thread: thread.clone() })
            .collect();
        for (e, (writer, seq, lc)) in self.episodes.iter().zip(&self.episode_uids) {
            out.push(Record::Episode { writer: writer.clone(), seq: *seq, lc: *lc, episode: e.clone(), thread: thread.clone() });
        }
        out.extend(self.others.iter().cloned());
        out.extend(self.usages.iter().cloned());
        out.extend(self.forgets.iter().cloned());
        for (f, (writer, seq, lc)) in self.semantic.facts.iter().zip(&self.semantic.uids) {
            out.push(Record::Fact { writer: writer.clone(), seq: *seq, lc: *lc, fact: f.clone() });
        }
        let mut embedded: Vec<(&String, &(String, u64))> = self.embedding_uids.iter().collect();
        embedded.sort_by(|a, b| a.1.cmp(b.1));
        for (item, (writer, seq)) in embedded {
            if let Some(v) = self.index.embeddings.get(item) {
                out.push(Record::Embedding { writer: writer.clone(), seq: *seq, item: item.clone(), vector: v.clone() });
            }
        }
        if let Some(p) = &self.procedures {
            out.push(Record::Procedures { writer: p.writer.clone(), seq: p.seq, lc: p.lc, ts: p.ts, procedures: p.raw.clone() });
        }
        out
    }

    /// This namespace as a snapshot (`store::snapshot`): every live record,
    /// embeddings only when asked for (the embedder can remake them).
    ///
    /// # Errors
    /// `CLOSED`.
    pub fn export(&self, embeddings: bool) -> Result<String> {
        self.open()?;
        let records = self.live_records();
        Ok(crate::store::snapshot::write(records.iter().filter(|r| embeddings || !matches!(r, Record::Embedding { .. }))))
    }

    /// A snapshot's records as one pack under this namespace, to save
    /// before [`Controller::reloaded`] with what storage then holds.
    ///
    /// # Errors
    /// Those of [`crate::store::snapshot::read`]; `CLOSED`.
    pub fn prepare_import(&self, snapshot: &str) -> Result<Write> {
        self.open()?;
        let records = crate::store::snapshot::read(snapshot)?;
        let refs: Vec<&Record> = records.iter().collect();
        Ok(Write { key: pack_key(&self.opts.namespace, &self.opts.writer, self.next_seq), bytes: encode_pack(&refs) })
    }

    /// This controller rebuilt from `entries` (what storage holds now), with
    /// the same options, writer and tokenizer.
    ///
    /// # Errors
    /// Those of [`Controller::from_storage`].
    pub fn reloaded(&self, entries: Vec<(Key, Vec<u8>)>) -> Result<Controller> {
        Controller::from_storage(self.opts.clone(), self.counter.clone(), entries)
    }

    /// A pack folding the log, when the log has grown enough to be worth it.
    pub fn prepare_pack(&self) -> Option<PreparedPack> {
        if self.closed || !self.folding.due(self.opts.fold_after) {
            return None;
        }
        let records = self.live_records();
        let refs: Vec<&Record> = records.iter().collect();
        let key = pack_key(&self.opts.namespace, &self.opts.writer, self.next_seq);
        Some(PreparedPack { write: Write { key, bytes: encode_pack(&refs) }, remove: self.folding.known.clone(), records: records.len() })
    }

    /// Records a saved pack. Call before removing `remove`: if removal fails
    /// half way, the keys left hold duplicates, which loading ignores.
    pub fn commit_pack(&mut self, p: PreparedPack) {
        self.next_seq += 1;
        self.folding = crate::store::Folding { known: vec![p.write.key], unfolded: 0, packed: p.records, forced: false };
    }
}

/// What a usage record cost, if stored.
fn record_usd(r: &Record) -> Option<f64> {
    match r {
        Record::Usage { usd, .. } => *usd,
        _ => None,
    }
}

/// The usage a stored record holds.
pub(crate) fn usage_of(r: &Record) -> Usage {
    match r {
        Record::Usage { prompt, completion, cached, cache_write, reasoning, .. } => Usage {
            prompt_tokens: *prompt,
            completion_tokens: *completion,
            cached_prompt_tokens: *cached,
            cache_write_tokens: *cache_write,
            reasoning_tokens: *reasoning,
        },
        _ => Usage::default(),
    }
}
