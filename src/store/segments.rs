//! Bounded segments: which stored value holds which record, and when the log
//! is folded and segments merged.
//!
//! A change writes one `log` value per record. Folding writes the log's
//! records into a new `seg` value once the log holds a quarter of `limit`
//! bytes (or `fold_after` records), then removes the log values. A segment
//! holds at most `limit` bytes (a record larger than that is a segment
//! alone). One of at least an eighth of `limit` is full: it is never
//! rewritten again unless a forget touches it. Smaller ones (a small log
//! folded because of `fold_after`, a forget's rewrite) are tiered by size,
//! a factor of four per tier, and four of one tier are merged into one. At
//! the defaults the log folds straight into full segments, so a record is
//! written twice (its log value and its segment) and no write rewrites
//! history: bytes written stay near twice the bytes stored, and a fold
//! writes a quarter of `limit`.
//!
//! Invariants: a plan's outputs are saved before its inputs are removed,
//! so a crash leaves duplicates, never losses; an output holds a record
//! only if every value known to hold it is an input, so the duplicates a
//! crash left are not copied again and go with their values. Values that
//! must not stay as they are (format 1, forgotten content) are rewritten
//! by the next fold, whatever their size.

use std::collections::HashMap;

use super::{Key, Write};
use crate::retrieval::hash::FxHashMap;

/// A record's identity: its writer interned (the high 20 bits) and its seq.
pub type Uid = u64;

/// A set of record identities (the values are unused: the map type is the
/// search index's, so the wasm holds its code once).
pub(crate) type Uids = FxHashMap<Uid, u32>;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// One record a change wrote.
    Log,
    Segment,
    /// To rewrite at the next fold: written by 0.1 (format 1), holding
    /// forgotten or superseded content, or maybe written by a fold whose
    /// save failed.
    Rewrite,
    /// A cold segment not read yet: what it holds is unknown, so no
    /// plan takes it (reading it makes it a `Segment`, `controller::cold`).
    Cold,
    /// A cold segment opening read for its episodes (the newest ones,
    /// `shelf::recent_keys`): what it holds is in memory, but
    /// no plan takes it until the cold segments are read, as for `Cold`.
    Recent,
    /// A cold segment of episodes only: merged with others only while
    /// tiny (see `plan`).
    Episodes,
}

/// A stored value and the records it holds.
#[derive(Clone, Debug)]
pub struct Value {
    pub key: Key,
    pub bytes: usize,
    pub uids: Vec<Uid>,
    pub kind: Kind,
    /// The least and greatest of `uids` (`(MAX, 0)` for none): a value
    /// holds a run of one writer's seqs, so a fold's uids outside its span
    /// are not looked for among them (`movable`).
    span: (Uid, Uid),
}

impl Value {
    /// Whether some of `uids` (spanning `(lo, hi)`) may be among this value's.
    fn may_hold(&self, (lo, hi): (Uid, Uid)) -> bool {
        self.span.0 <= hi && lo <= self.span.1
    }
}

/// A value a plan writes: its key, its size, and the records it holds.
pub type Output = (Key, usize, Vec<(String, u64)>);

/// Every value a controller knows of, by what it holds.
#[derive(Clone, Debug, Default)]
pub struct Folding {
    writer_ids: HashMap<String, u64>,
    values: Vec<Value>,
    /// Keys whose removal failed: removed by the next fold.
    pub pending: Vec<Key>,
}

/// The sizes folding works to.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// No value is larger (but a record that is alone).
    pub bytes: usize,
    /// The log is folded once it holds this many records, whatever their size.
    pub fold_after: usize,
}

/// `keys` as a set: a fold's inputs are up to `fold_after` log values, and
/// testing each known value against the list was quadratic.
pub(crate) fn key_set(keys: &[Key]) -> std::collections::HashSet<&Key> {
    keys.iter().collect()
}

/// How many tiers of four a segment of `bytes` is below a full one (0: full).
fn tier(bytes: usize, full: usize) -> u32 {
    let (mut size, mut t) = (bytes.max(1), 0);
    while size < full {
        size = size.saturating_mul(4);
        t += 1;
    }
    t
}

/// The identity of record `seq` of `writer`, writers numbered in `ids`
/// (looked up before inserting: a known writer costs no allocation).
pub(crate) fn uid_in(ids: &mut std::collections::HashMap<String, u64>, writer: &str, seq: u64) -> Uid {
    let id = match ids.get(writer) {
        Some(&id) => id,
        None => {
            let next = ids.len() as u64;
            ids.insert(writer.to_string(), next);
            next
        }
    };
    uid_of(id, seq)
}

/// The identity of record `seq` of the writer numbered `id`.
pub(crate) fn uid_of(id: u64, seq: u64) -> Uid {
    id << 44 | seq & ((1 << 44) - 1)
}

impl Folding {
    /// The identity of record `seq` of `writer`.
    pub fn uid(&mut self, writer: &str, seq: u64) -> Uid {
        uid_in(&mut self.writer_ids, writer, seq)
    }

    /// The writers known so far, by the number their records' identities carry.
    pub(crate) fn writers(&self) -> HashMap<String, u64> {
        self.writer_ids.clone()
    }

    /// The identity of a record some known value holds, if its writer is known.
    pub fn find(&self, writer: &str, seq: u64) -> Option<Uid> {
        self.writer_ids.get(writer).map(|&id| id << 44 | seq & ((1 << 44) - 1))
    }

    pub fn add(&mut self, key: Key, bytes: usize, uids: Vec<Uid>, kind: Kind) {
        let mut span = (Uid::MAX, 0);
        for &u in &uids {
            span = (span.0.min(u), span.1.max(u));
        }
        self.values.push(Value { key, bytes, uids, kind, span });
    }

    /// A value read after opening (a cold segment): it replaces its
    /// `Kind::Cold` placeholder, if it has one. `uids` are `from`'s.
    pub(crate) fn adopt(&mut self, from: &Folding, key: Key, bytes: usize, uids: &[Uid], kind: Kind) {
        let names = from.writer_names();
        let uids = uids.iter().filter_map(|&u| names.get((u >> 44) as usize).map(|w| self.uid(w, u & ((1 << 44) - 1)))).collect();
        self.values.retain(|v| !(v.key == key && v.kind == Kind::Cold));
        self.add(key, bytes, uids, kind);
    }

    /// Forgets the cold segments no read value answered for; their keys.
    pub(crate) fn drop_placeholders(&mut self) -> Vec<Key> {
        let (gone, kept) = std::mem::take(&mut self.values).into_iter().partition(|v| v.kind == Kind::Cold);
        self.values = kept;
        gone.into_iter().map(|v: Value| v.key).collect()
    }

    /// The cold segments read early (`Kind::Recent`).
    pub(crate) fn recent(&self) -> Vec<Key> {
        self.values.iter().filter(|v| v.kind == Kind::Recent).map(|v| v.key.clone()).collect()
    }

    /// Marks the cold segments of episodes read as read early
    /// (`Kind::Recent`), or, once the cold segments are read, back.
    pub(crate) fn set_recent(&mut self, recent: bool) {
        let (from, to) = if recent { (Kind::Episodes, Kind::Recent) } else { (Kind::Recent, Kind::Episodes) };
        for v in self.values.iter_mut().filter(|v| v.kind == from && super::is_cold(&v.key)) {
            v.kind = to;
        }
    }

    /// Marks the values under `keys` as `kind`.
    pub(crate) fn mark(&mut self, keys: &[Key], kind: Kind) {
        for v in self.values.iter_mut().filter(|v| keys.contains(&v.key)) {
            v.kind = kind;
        }
    }

    /// Writer names by their number in uids.
    /// Whether a record (writer, seq) is among `uids`, without hashing its
    /// writer and, outside the seqs `uids` span per writer, without a
    /// lookup: a fold asks it of every record in memory, and moves few.
    pub(crate) fn among<'a>(&'a self, uids: &'a Uids) -> impl Fn(&str, u64) -> bool + 'a {
        const SEQ: u64 = (1 << 44) - 1;
        let names = self.writer_names();
        let mut spans = vec![(u64::MAX, 0); names.len()];
        for &u in uids.keys() {
            if let Some((lo, hi)) = spans.get_mut((u >> 44) as usize) {
                (*lo, *hi) = ((*lo).min(u & SEQ), (*hi).max(u & SEQ));
            }
        }
        move |writer, seq| {
            let Some(w) = names.iter().position(|n| *n == writer) else { return false };
            spans.get(w).is_some_and(|&(lo, hi)| (lo..=hi).contains(&(seq & SEQ))) && uids.contains_key(&((w as u64) << 44 | seq & SEQ))
        }
    }

    pub(crate) fn writer_names(&self) -> Vec<&str> {
        let mut names = vec![""; self.writer_ids.len()];
        for (w, &id) in &self.writer_ids {
            if let Some(n) = names.get_mut(id as usize) {
                *n = w;
            }
        }
        names
    }

    /// A log value a change saved: its one record is named by its key
    /// (`[ns, "log", writer, seq]`).
    pub fn logged(&mut self, w: &Write) {
        if let (Some(writer), Some(seq)) = (w.key.get(2), w.key.get(3).and_then(|s| s.parse().ok())) {
            let uid = self.uid(writer, seq);
            self.add(w.key.clone(), w.bytes.len(), vec![uid], Kind::Log);
        }
    }

    pub fn values(&self) -> &[Value] {
        &self.values
    }

    /// Marks every value holding one of `uids` for rewriting.
    pub(crate) fn rewrite_holding(&mut self, uids: &Uids) {
        for v in &mut self.values {
            if v.uids.iter().any(|u| uids.contains_key(u)) {
                v.kind = Kind::Rewrite;
            }
        }
    }

    /// Whether a value waits to be rewritten (format 1, forgotten content).
    pub fn must_rewrite(&self) -> bool {
        self.values.iter().any(|v| v.kind == Kind::Rewrite)
    }

    /// The keys of the values holding any of `uids`.
    pub(crate) fn holding(&self, uids: &Uids) -> Vec<Key> {
        self.values.iter().filter(|v| v.uids.iter().any(|u| uids.contains_key(u))).map(|v| v.key.clone()).collect()
    }

    /// The values to rewrite now, by key: those that must be, else the log
    /// when it is due, else one tier of small segments that has four. An
    /// empty plan only retries removals. `None`: nothing to do.
    pub fn plan(&self, limits: Limits) -> Option<Vec<Key>> {
        let keys = |kind: Kind| -> Vec<Key> { self.values.iter().filter(|v| v.kind == kind).map(|v| v.key.clone()).collect() };
        let rewrite = keys(Kind::Rewrite);
        if !rewrite.is_empty() {
            return Some(rewrite);
        }
        let (log_values, log_bytes) = self.values.iter().filter(|v| v.kind == Kind::Log).fold((0, 0), |(n, b), v| (n + 1, b + v.bytes));
        if log_values > 0 && (log_bytes >= limits.bytes / 4 || log_values >= limits.fold_after) {
            return Some(keys(Kind::Log));
        }
        let full = limits.bytes / 8;
        // Cold segments of episodes only while tiny (a log folded after
        // a few records): above, a merge would write episodes again for
        // little (opening reads the newest by their keys, not by size).
        let mergeable = move |v: &&Value| v.kind == Kind::Segment || (v.kind == Kind::Episodes && tier(v.bytes, full) >= 3);
        let small = |t: u32| self.values.iter().filter(mergeable).filter(move |v| tier(v.bytes, full) == t);
        // The smallest tier first: a merge there may fill the next.
        let lowest = self.values.iter().filter(mergeable).map(|v| tier(v.bytes, full)).max().unwrap_or(0);
        match (1..=lowest).rev().find(|&t| small(t).count() >= 4) {
            Some(t) => Some(small(t).map(|v| v.key.clone()).collect()),
            None => (!self.pending.is_empty()).then(Vec::new),
        }
    }

    /// Of the records the values `inputs` hold, those no other value holds:
    /// what the plan's outputs must keep, if they are live.
    pub(crate) fn movable(&self, inputs: &[Key]) -> Uids {
        let inputs = key_set(inputs);
        let mut out = Uids::default();
        let mut within = (Uid::MAX, 0);
        for v in self.values.iter().filter(|v| inputs.contains(&v.key)) {
            for &u in &v.uids {
                out.insert(u, 0);
                within = (within.0.min(u), within.1.max(u));
            }
        }
        for v in self.values.iter().filter(|v| v.may_hold(within) && !inputs.contains(&v.key)) {
            for u in &v.uids {
                out.remove(u);
            }
        }
        out
    }

    /// After a plan's outputs were saved: its inputs are gone (their
    /// removal is the host's next step), the outputs are known.
    pub fn replace(&mut self, inputs: &[Key], outputs: Vec<Output>, kind: Kind) {
        let inputs = key_set(inputs);
        self.values.retain(|v| !inputs.contains(&v.key));
        self.pending.retain(|k| !inputs.contains(k));
        for (key, bytes, records) in outputs {
            let uids = records.iter().map(|(w, s)| self.uid(w, *s)).collect();
            self.add(key, bytes, uids, kind);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(kind: &str, seq: u64) -> Key {
        vec!["ns".into(), kind.into(), "w".into(), format!("{seq:016}")]
    }

    fn folding(values: &[(&str, u64, usize, Kind)]) -> Folding {
        let mut f = Folding::default();
        for &(kind, seq, bytes, k) in values {
            let uid = f.uid("w", seq);
            f.add(key(kind, seq), bytes, vec![uid], k);
        }
        f
    }

    const LIMITS: Limits = Limits { bytes: 8000, fold_after: 100 };

    #[test]
    fn the_log_folds_at_a_quarter_of_the_limit_or_fold_after_records() {
        let small: Vec<(&str, u64, usize, Kind)> = (1..=10).map(|s| ("log", s, 100, Kind::Log)).collect();
        assert_eq!(folding(&small).plan(LIMITS), None);
        let big: Vec<(&str, u64, usize, Kind)> = (1..=20).map(|s| ("log", s, 100, Kind::Log)).collect();
        assert_eq!(folding(&big).plan(LIMITS).unwrap().len(), 20);
        assert_eq!(folding(&small).plan(Limits { fold_after: 10, ..LIMITS }).unwrap().len(), 10);
    }

    #[test]
    fn four_small_segments_of_one_tier_merge_and_full_ones_stay() {
        let mut values: Vec<(&str, u64, usize, Kind)> = vec![("seg", 1, 1000, Kind::Segment), ("seg", 2, 5000, Kind::Segment)];
        values.extend((3..=5).map(|s| ("seg", s, 300, Kind::Segment)));
        assert_eq!(folding(&values).plan(LIMITS), None, "three of a tier wait");
        values.push(("seg", 6, 260, Kind::Segment));
        assert_eq!(folding(&values).plan(LIMITS).unwrap(), vec![key("seg", 3), key("seg", 4), key("seg", 5), key("seg", 6)]);
    }

    #[test]
    fn values_to_rewrite_come_first_and_duplicates_are_not_moved() {
        let mut f = folding(&[("log", 1, 100, Kind::Log), ("pack", 2, 100, Kind::Rewrite)]);
        let dup = f.uid("w", 1);
        let pack = f.values.remove(1);
        f.add(pack.key, pack.bytes, [pack.uids, vec![dup]].concat(), pack.kind);
        assert_eq!(f.plan(LIMITS).unwrap(), vec![key("pack", 2)]);
        // Record 1 is also in the log: the rewrite of the pack leaves it there.
        let movable: Vec<Uid> = f.movable(&[key("pack", 2)]).into_keys().collect();
        assert_eq!(movable, [f.uid("w", 2)]);
        f.replace(&[key("pack", 2)], vec![(key("seg", 3), 50, vec![("w".into(), 2)])], Kind::Segment);
        assert!(!f.must_rewrite());
        f.pending.push(key("pack", 2));
        assert_eq!(f.plan(LIMITS), Some(vec![]), "a failed removal is retried");
    }
}
