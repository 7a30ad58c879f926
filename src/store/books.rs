//! Persistence bookkeeping: what the write path needs to store the layers'
//! records and fold them (this writer's clock and seq, the identities of
//! embeddings, the records kept as stored, which stored value holds what).
//! Nothing here decides what the model sees; the domain state lives in the
//! layers (`window`, `episodic`, `semantic`, `procedures`, `cost`), which
//! the store sees only through a read-only [`Layers`] view.
//!
//! Invariants:
//! - `next_seq` is above every seq this writer stored or loaded, and
//!   `last_lc` at least every Lamport order loaded or written, so
//!   [`Books::lc_at`] orders what this writer writes after all it saw.
//! - [`Books::records_where`] gives each live record once, in a stable
//!   order: this thread's messages, episodes, the other threads' and the
//!   namespace's records, facts, embeddings, procedures.

use std::collections::HashMap;

use crate::episodic::Episode;
use crate::origin::Origin;
use crate::semantic::Fact;
use crate::store::record::Record;
use crate::store::{Cold, Folding, LoadReport};
use crate::window::Stored;

#[derive(Clone)]
pub struct Books {
    /// This writer's next record seq.
    pub next_seq: u64,
    /// The latest timestamp loaded or written.
    pub last_ts: f64,
    /// The highest Lamport order loaded or written (`Record::lc`).
    pub last_lc: u64,
    /// Item id → the record identity of its embedding.
    pub embedding_uids: HashMap<String, (String, u64)>,
    /// The usage and forget records, kept as stored (the ledger and the
    /// tombstones' effects are in the layers).
    pub usages: Vec<Record>,
    pub forgets: Vec<Record>,
    /// What the cold segments hold (`Record::Shelf`), kept as stored.
    pub shelves: Vec<Record>,
    /// Cold segments removed (or found missing) that no shelf record
    /// says are gone yet.
    pub unshelve: Vec<crate::store::Key>,
    /// Which stored value holds which record, and when to fold.
    pub folding: Folding,
    /// What opening found.
    pub load_report: LoadReport,
    /// The cold segments opening did not read (`controller::cold`).
    pub cold: Cold,
    /// What the last restating check that found nothing read
    /// (`Controller::prepare_restate`), if nothing changed since.
    pub restate_checked: std::cell::Cell<Option<[u64; 5]>>,
}

impl Default for Books {
    fn default() -> Self {
        Books {
            next_seq: 1,
            last_ts: f64::NEG_INFINITY,
            last_lc: 0,
            embedding_uids: HashMap::new(),
            usages: Vec::new(),
            forgets: Vec::new(),
            shelves: Vec::new(),
            unshelve: Vec::new(),
            folding: Folding::default(),
            load_report: LoadReport::default(),
            cold: Cold::default(),
            restate_checked: std::cell::Cell::new(None),
        }
    }
}

/// The layers as the store reads them, to write their records.
pub struct Layers<'a> {
    /// How this thread is written in its records (`record::thread_field`).
    pub thread: Option<String>,
    /// The encoding episode tokens were counted with (`Record::Episode`).
    pub counted: Option<String>,
    pub log: &'a [Stored],
    pub episodes: &'a [Episode],
    pub facts: &'a [Fact],
    /// Other threads' records, kept as stored.
    pub others: &'a [Record],
    pub embeddings: &'a HashMap<String, Vec<f32>>,
    /// The newest procedures: their record, its time and the raw document.
    pub procedures: Option<(&'a Origin, f64, &'a serde_json::Value)>,
}

impl Books {
    /// The Lamport order of record `seq` of a change written at `ts`, whose
    /// first record is `next_seq`: a hybrid logical clock, the clock's
    /// milliseconds while they run ahead of every order loaded or written,
    /// else one past the highest. So what a writer writes comes after all it
    /// saw whatever its clock says, and writers that never saw each other
    /// (two tabs) interleave by time. Call before the change is committed.
    pub fn lc_at(&self, ts: f64, seq: u64) -> u64 {
        // Up to 2^53 ms (the range of exact f64 integers): no overflow below.
        let clock = if ts > 0.0 { ts.min(9_007_199_254_740_992.0) as u64 } else { 0 };
        clock.max(self.last_lc.saturating_add(1)).saturating_add(seq.saturating_sub(self.next_seq))
    }

    /// The live records `keep` accepts (by writer and seq), in the order the
    /// module docs give; only those are cloned. `wanted`: how many records
    /// `keep` accepts at most (the uids it names; each names one record),
    /// so that the log, read last from its newest message, is read only
    /// until they are all found: a fold moves few records, mostly the
    /// newest messages, and reading the whole log for them was the part of
    /// `add` that grew with the history.
    pub fn records_where(&self, layers: &Layers<'_>, keep: &dyn Fn(&str, u64) -> bool, wanted: Option<usize>) -> Vec<Record> {
        let Layers { thread, counted, log, episodes, facts, others, embeddings, procedures } = layers;
        let mut out = Vec::new();
        for e in episodes.iter().filter(|e| keep(&e.origin.writer, e.origin.seq)) {
            let o = &e.origin;
            let (writer, seq, lc) = (o.writer.clone(), o.seq, o.lc);
            out.push(Record::Episode { writer, seq, lc, episode: e.clone(), thread: thread.clone(), counted: counted.clone() });
        }
        out.extend(
            (others.iter().chain(&self.usages).chain(&self.forgets).chain(&self.shelves)).filter(|r| keep(r.uid().0, r.uid().1)).cloned(),
        );
        for f in facts.iter().filter(|f| keep(&f.origin.writer, f.origin.seq)) {
            let o = &f.origin;
            out.push(Record::Fact { writer: o.writer.clone(), seq: o.seq, lc: o.lc, fact: f.clone() });
        }
        let mut embedded: Vec<(&String, &(String, u64))> = self.embedding_uids.iter().filter(|(_, (w, s))| keep(w, *s)).collect();
        crate::sort::sort_by(&mut embedded, |a, b| a.1.cmp(b.1));
        for (item, (writer, seq)) in embedded {
            if let Some(v) = embeddings.get(item) {
                out.push(Record::Embedding { writer: writer.clone(), seq: *seq, item: item.clone(), vector: v.clone() });
            }
        }
        if let Some((o, ts, raw)) = procedures.filter(|(o, _, _)| keep(&o.writer, o.seq)) {
            let (writer, seq, lc) = (o.writer.clone(), o.seq, o.lc);
            out.push(Record::Procedures { writer, seq, lc, ts, procedures: raw.clone() });
        }
        // Where the log's wanted records start: those before cannot be wanted
        // (with no bound, the whole log is read once, not searched first).
        let start = wanted.and_then(|n| {
            let mut left = n.saturating_sub(out.len());
            log.iter().rposition(|s| {
                left = left.saturating_sub(usize::from(keep(&s.writer, s.seq)));
                left == 0
            })
        });
        let mut messages: Vec<Record> = (log.get(start.unwrap_or(0)..).unwrap_or_default().iter().filter(|s| keep(&s.writer, s.seq)))
            .map(|s| Record::Msg {
                writer: s.writer.clone(),
                seq: s.seq,
                lc: s.lc,
                ts: s.ts,
                id: s.id.clone(),
                message: s.message.clone(),
                task: s.task_id.clone(),
                thread: thread.clone(),
            })
            .collect();
        messages.append(&mut out);
        messages
    }
}
