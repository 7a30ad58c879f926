//! Persistence bookkeeping: what the write path needs to store the layers'
//! records and fold them (record identities, this writer's clock and seq,
//! which stored value holds what). Nothing here decides what the model
//! sees; the domain state lives in the layers (`window`, `episodic`,
//! `semantic`, `procedures`, `cost`).

use std::collections::HashMap;

use crate::store::record::Record;
use crate::store::{Archive, Folding, LoadReport};

#[derive(Clone)]
pub(crate) struct Books {
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
    /// What the archive segments hold (`Record::Shelf`), kept as stored.
    pub shelves: Vec<Record>,
    /// Archive segments removed (or found missing) that no shelf record
    /// says are gone yet.
    pub unshelve: Vec<crate::store::Key>,
    /// Which stored value holds which record, and when to fold.
    pub folding: Folding,
    /// What opening found.
    pub load_report: LoadReport,
    /// The archive segments opening did not read (`controller::archive`).
    pub archive: Archive,
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
            archive: Archive::default(),
        }
    }
}
