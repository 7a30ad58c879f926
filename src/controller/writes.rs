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
use crate::store::books::Layers;
use crate::store::placement::Placed;
use crate::store::record::{encode_indexed_segments, encode_record, encode_segments, Record};
use crate::store::segments::Output;
use crate::store::{cold_key, is_cold, log_key, segment_key, Key, Kind, Limits, Write};
use crate::tokens::chat::message_tokens;
use crate::window::{Stored, Window};
use crate::wire::request_form;

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

/// A shelf record of removed cold segments, to save as a log value.
#[derive(Debug)]
pub struct PreparedShelf {
    pub write: Write,
    record: Record,
}

/// One folding step: save `writes` (new segments), commit, then remove
/// `remove` (the values they replace, and removals that failed before).
#[derive(Debug)]
pub struct PreparedFold {
    pub writes: Vec<Write>,
    pub remove: Vec<Key>,
    inputs: Vec<Key>,
    segmented: Segmented,
}

/// Records laid out as stored values (`Controller::segments`).
#[derive(Debug, Default)]
pub(crate) struct Segmented {
    pub writes: Vec<Write>,
    /// What each written value holds, for `Folding::replace`.
    pub outputs: Vec<Output>,
    /// The shelf records among the writes, if cold segments were written
    /// or retired: more than one when one would not fit half a segment.
    pub shelves: Vec<Record>,
    /// This writer's next seq after them.
    pub next_seq: u64,
    /// The values replaced, in the order to remove them (`Placed::removal`).
    pub removal: Vec<Key>,
    /// The cold segments of episodes among the writes (`Kind::Episodes`).
    pub episode_keys: Vec<Key>,
}

impl Controller {
    /// The timestamp a write at `now` gets: the clock's reading, kept as
    /// metadata (the order is `Books::lc_at`'s).
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
        let seq = self.books.next_seq;
        let writer = self.opts.writer.clone();
        let id = format!("m-{writer}-{seq}");
        let lc = self.books.lc_at(ts, seq);
        let record = Record::Msg {
            writer: writer.clone(),
            seq,
            lc,
            ts,
            id: id.clone(),
            message,
            task: task_id.clone(),
            thread: self.thread_field(),
        };
        let write = Write { key: self.key(seq), bytes: encode_record(&record) };
        let Record::Msg { message, .. } = record else { unreachable!() };
        let tool_turn = self.window.tool_turn(&message);
        let tokens = message_tokens(&self.counter, &request_form(&message, tool_turn, &[]));
        let place = Window::place_for(&message);
        Ok(PreparedAdd { write, stored: Stored { id, writer, seq, lc, ts, message, tokens: tokens.into(), tool_turn, place, task_id } })
    }

    /// Applies a stored message; returns its id and tokens.
    pub fn commit_add(&mut self, p: PreparedAdd) -> (String, usize) {
        let (id, tokens) = (p.stored.id.clone(), p.stored.counted());
        self.books.next_seq = p.stored.seq + 1;
        self.books.last_ts = self.books.last_ts.max(p.stored.ts);
        self.books.last_lc = self.books.last_lc.max(p.stored.lc);
        self.window.push(p.stored);
        self.index_message(self.window.log.len() - 1, false);
        self.books.folding.logged(&p.write);
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
        let seq = self.books.next_seq;
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
        self.books.next_seq = seq + 1;
        self.books.folding.logged(&p.write);
        self.books.usages.push(p.record);
        p.usd
    }

    /// What an episode record says its tokens were counted with (see `Record::Episode`).
    pub(crate) fn counted(&self) -> Option<String> {
        self.counter.encoding_name().map(str::to_string)
    }

    /// How this controller's thread is written in its records.
    pub(crate) fn thread_field(&self) -> Option<String> {
        crate::store::record::thread_field(&self.opts.thread)
    }

    /// Every live record, in a stable order: this thread's, then the other
    /// threads', then the namespace's.
    pub(crate) fn live_records(&self) -> Vec<Record> {
        self.records_where(&|_, _| true, None)
    }

    /// The live records `keep` accepts (by writer and seq), in the order of
    /// [`Controller::live_records`]; only those are cloned. `wanted`: how
    /// many it accepts at most (`Books::records_where`).
    pub(crate) fn records_where(&self, keep: &dyn Fn(&str, u64) -> bool, wanted: Option<usize>) -> Vec<Record> {
        self.books.records_where(&self.layers(), keep, wanted)
    }

    /// The layers, as the store reads them.
    fn layers(&self) -> Layers<'_> {
        Layers {
            thread: self.thread_field(),
            counted: self.counted(),
            log: &self.window.log,
            episodes: &self.episodic.episodes,
            facts: &self.semantic.facts,
            others: &self.others,
            embeddings: &self.index.embeddings,
            procedures: self.procedures.as_ref().map(|p| (&p.origin, p.ts, &p.raw)),
        }
    }

    pub(crate) fn limits(&self) -> Limits {
        Limits { bytes: self.opts.segment_bytes, fold_after: self.opts.fold_after }
    }

    /// `records` as stored values numbered from `first_seq`, replacing the
    /// values `inputs`. Messages an episode covers (of any thread) go to
    /// cold segments, written first, which opening does not read (see
    /// `archive`), and so do episodes none of whose messages stays where
    /// opening reads (in these records or in a value not replaced), in
    /// cold segments of their own; the rest go to segments, with a shelf
    /// record saying what the cold segments written hold and which
    /// removed ones are gone.
    pub(crate) fn segments(&self, records: &[Record], first_seq: u64, inputs: &[Key]) -> Segmented {
        let Placed { messages: cold, episodes, mut hot, removal } = self.books.place(&self.layers(), records, inputs);
        let mut out = Segmented { removal, ..Segmented::default() };
        let mut seq = first_seq;
        let ns = &self.opts.namespace;
        let writer = &self.opts.writer;
        let push = |out: &mut Segmented, key: Key, bytes: Vec<u8>, held: &[Record]| {
            out.outputs.push((key.clone(), bytes.len(), held.iter().map(|r| (r.uid().0.to_string(), r.uid().1)).collect()));
            out.writes.push(Write { key, bytes });
        };
        // Messages and episodes in segments apart: opening reads the newest
        // episodes' (`store::shelf::recent_keys`), and no message with them.
        let mut shelved = Vec::new();
        for (part, of_episodes) in [(&cold, false), (&episodes, true)] {
            let mut at = 0;
            // Archived messages and episodes with their terms: reading them fills the indexes.
            for (bytes, n) in encode_indexed_segments(part, self.opts.segment_bytes) {
                let key = cold_key(ns, writer, seq);
                seq += 1;
                if of_episodes {
                    out.episode_keys.push(key.clone());
                }
                shelved.push((key.clone(), bytes.len(), n));
                push(&mut out, key, bytes, part.get(at..at + n).unwrap_or_default());
                at += n;
            }
        }
        let cold: Vec<Record> = cold.into_iter().chain(episodes).collect();
        out.shelves = self.shelf_records(&cold, &shelved, seq);
        seq += out.shelves.len() as u64;
        hot.extend(out.shelves.iter().cloned());
        let mut at = 0;
        for (bytes, n) in encode_segments(&hot, self.opts.segment_bytes) {
            let key = segment_key(ns, writer, seq);
            seq += 1;
            push(&mut out, key, bytes, hot.get(at..at + n).unwrap_or_default());
            at += n;
        }
        out.next_seq = seq;
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
        // Shelf records say where this namespace keeps its archive: not content.
        let content = |r: &&Record| !matches!(r, Record::Shelf { .. }) && (embeddings || !matches!(r, Record::Embedding { .. }));
        Ok(crate::store::snapshot::write(records.iter().filter(content)))
    }

    /// A snapshot's records as segments under this namespace, to save
    /// before [`Controller::reloaded`] with what storage then holds.
    ///
    /// # Errors
    /// Those of [`crate::store::snapshot::read`]; `CLOSED`.
    pub fn prepare_import(&self, snapshot: &str) -> Result<Vec<Write>> {
        self.open()?;
        let mut records = crate::store::snapshot::read(snapshot)?;
        // (another namespace's archive keys: the import writes its own)
        records.retain(|r| !matches!(r, Record::Shelf { .. }));
        Ok(self.segments(&records, self.books.next_seq, &[]).writes)
    }

    /// This controller rebuilt from `entries` (what storage holds now), with
    /// the same options, writer and tokenizer.
    ///
    /// # Errors
    /// Those of [`Controller::from_storage`].
    pub fn reloaded(&self, loaded: crate::store::Loaded) -> Result<Controller> {
        let mut c = Controller::from_loaded(self.opts.clone(), self.counter.clone(), loaded)?;
        c.ensure_index();
        Ok(c)
    }

    /// The next folding step, if one is due (see `store::segments`): the
    /// live records of the values it replaces, as new segments.
    pub fn prepare_fold(&self) -> Option<PreparedFold> {
        if self.closed {
            return None;
        }
        let inputs = self.books.folding.plan(self.limits())?;
        let movable = self.books.folding.movable(&inputs);
        let records = self.records_where(&self.books.folding.among(&movable), Some(movable.len()));
        let mut segmented = self.segments(&records, self.books.next_seq, &inputs);
        let writes = std::mem::take(&mut segmented.writes);
        // Values left from earlier removals first (they may hold messages).
        let mut remove: Vec<Key> = self.books.folding.pending.iter().filter(|k| !inputs.contains(k)).cloned().collect();
        remove.append(&mut segmented.removal);
        Some(PreparedFold { writes, remove, inputs, segmented })
    }

    /// Whether stored values wait to be rewritten (format 1, forgotten content).
    pub fn must_rewrite(&self) -> bool {
        self.books.folding.must_rewrite()
    }

    /// Records a saved folding step. Call before removing `remove`: if
    /// removal fails half way, the keys left hold duplicates, which loading
    /// ignores (and [`Controller::retry_removal`] removes later).
    pub fn commit_fold(&mut self, p: PreparedFold) {
        self.books.next_seq = p.segmented.next_seq;
        self.books.folding.pending.clear();
        self.books.folding.replace(&p.inputs, p.segmented.outputs, Kind::Segment);
        self.books.folding.mark(&p.segmented.episode_keys, Kind::Episodes);
        self.shelved_by(p.segmented.shelves);
    }

    /// A saved shelf record: kept, and what it says is gone no longer waits.
    pub(crate) fn shelved_by(&mut self, shelves: Vec<Record>) {
        for shelf in shelves {
            if let Record::Shelf { removed, .. } = &shelf {
                self.books.unshelve.retain(|k| !removed.contains(k));
            }
            self.books.shelves.push(shelf);
        }
    }

    /// A value the host removed: a cold segment's removal waits for a
    /// shelf record to say so.
    pub fn removed(&mut self, key: &Key) {
        if is_cold(key) && !self.books.unshelve.contains(key) {
            self.books.unshelve.push(key.clone());
        }
    }

    /// A log record saying which cold segments are gone, if any wait.
    pub fn prepare_unshelve(&self) -> Option<PreparedShelf> {
        if self.books.unshelve.is_empty() || self.closed {
            return None;
        }
        let seq = self.books.next_seq;
        let record = Record::Shelf { writer: self.opts.writer.clone(), seq, added: Vec::new(), removed: self.books.unshelve.clone() };
        Some(PreparedShelf { write: Write { key: self.key(seq), bytes: encode_record(&record) }, record })
    }

    pub fn commit_unshelve(&mut self, p: PreparedShelf) {
        self.books.next_seq = p.record.uid().1 + 1;
        self.books.folding.logged(&p.write);
        self.shelved_by(vec![p.record]);
    }

    /// A folding step whose save failed: its segments may have been
    /// written, so they are known as values to rewrite (holding copies of
    /// records still in their old values) and their keys are not reused.
    pub fn abort_fold(&mut self, p: PreparedFold) {
        self.books.next_seq = p.segmented.next_seq;
        self.books.folding.replace(&[], p.segmented.outputs, Kind::Rewrite);
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
