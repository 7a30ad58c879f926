//! Putting a prepared forget back: a forget is applied to memory in place
//! when it is prepared (no second controller: at 100,000 messages a copy
//! doubled memory for a one-message edit), and this is what it took out
//! and what it made, so a save that fails leaves memory as storage has it.
//!
//! Invariant: [`Controller::undo`] after any prepared forget (or replace)
//! gives the state before it, item for item and in the same order; only the
//! search index may differ in form (it is rebuilt when next needed, from the
//! same items, so it answers alike).

use std::collections::{HashMap, HashSet};

use super::super::Controller;
use crate::episodic::Episode;
use crate::semantic::Fact;
use crate::store::record::Record;
use crate::store::Folding;
use crate::window::Stored;

/// Items taken out of a vector, each with the position it had, ascending.
pub(crate) type Taken<T> = Vec<(usize, T)>;

/// Takes the items at `positions` (ascending) out of `v`, a run of
/// consecutive positions at a time from the last (a forget takes one
/// message, a range or a tail: one run, one move of what follows it).
pub(crate) fn take_at<T>(v: &mut Vec<T>, positions: &[usize]) -> Taken<T> {
    let mut taken: Taken<T> = Vec::with_capacity(positions.len());
    for (first, end) in runs(positions) {
        let mut run: Vec<T> = v.drain(first.min(v.len())..end.min(v.len())).collect();
        while let Some(x) = run.pop() {
            taken.push((first + run.len(), x));
        }
    }
    taken.reverse();
    taken
}

/// The runs of consecutive positions in `positions` (ascending), the last
/// first, as `(first, end)`: apart from `take_at`, which is an instance
/// per item type.
#[inline(never)]
fn runs(positions: &[usize]) -> Vec<(usize, usize)> {
    let mut runs = Vec::new();
    let mut rest = positions;
    while let Some((&last, before)) = rest.split_last() {
        // The run ending at `last`.
        let mut n = 1;
        while before.len() >= n && last.checked_sub(n).is_some_and(|p| before.get(before.len() - n) == Some(&p)) {
            n += 1;
        }
        runs.push((last + 1 - n, last + 1));
        rest = before.get(..before.len() + 1 - n).unwrap_or_default();
    }
    runs
}

/// Puts `taken` back where `take_at` found it, in one pass (a merge: an
/// insert per item would be quadratic when a whole thread comes back).
pub(crate) fn put_back<T>(v: &mut Vec<T>, taken: Taken<T>) {
    if taken.is_empty() {
        return;
    }
    let mut rest = std::mem::take(v).into_iter();
    let mut out = Vec::with_capacity(rest.len() + taken.len());
    for (p, t) in taken {
        while out.len() < p {
            match rest.next() {
                Some(x) => out.push(x),
                None => break,
            }
        }
        out.push(t);
    }
    out.extend(rest);
    *v = out;
}

/// An item's vector and the identity of its record, as taken out.
type TakenEmbedding = (String, Option<Vec<f32>>, Option<(String, u64)>);

/// What a prepared forget changed, to be put back.
pub(crate) struct Undo {
    others: Taken<Record>,
    messages: Taken<Stored>,
    /// The log's length after the forget, before a replacing message.
    log_len: usize,
    facts: Taken<Fact>,
    /// Ids of the facts the forget learned again (rewritten episodes').
    facts_made: HashSet<String>,
    /// Episodes rewritten in place, as they were.
    rewritten: Taken<Episode>,
    /// Episodes dropped (nothing of them remained), at their positions before.
    dropped: Taken<Episode>,
    embeddings: Vec<TakenEmbedding>,
    next_seq: u64,
    last_ts: f64,
    last_lc: u64,
    forgets: usize,
    shelves: usize,
    unshelve: Vec<crate::store::Key>,
    folding: Folding,
}

impl Undo {
    /// The first seq the forget numbered its own records from.
    pub(crate) fn first_seq(&self) -> u64 {
        self.next_seq
    }

    /// Before anything changes: the bookkeeping a forget moves on.
    pub(crate) fn before(c: &Controller) -> Undo {
        let b = &c.books;
        Undo {
            others: Vec::new(),
            messages: Vec::new(),
            log_len: 0,
            facts: Vec::new(),
            facts_made: HashSet::new(),
            rewritten: Vec::new(),
            dropped: Vec::new(),
            embeddings: Vec::new(),
            next_seq: b.next_seq,
            last_ts: b.last_ts,
            last_lc: b.last_lc,
            forgets: b.forgets.len(),
            shelves: b.shelves.len(),
            unshelve: b.unshelve.clone(),
            // ~8 bytes a record: the one copy a forget makes.
            folding: b.folding.clone(),
        }
    }
}

impl Controller {
    /// Takes the others at `positions` out.
    pub(super) fn take_others(&mut self, positions: &[usize], undo: &mut Undo) {
        undo.others = take_at(&mut self.others, positions);
    }

    /// Takes the messages at `positions` out of the log and groups the rest again.
    pub(super) fn take_messages(&mut self, positions: &[usize], undo: &mut Undo) {
        undo.messages = take_at(&mut self.window.log, positions);
        self.window.regroup();
        undo.log_len = self.window.log.len();
    }

    /// Takes the facts at `positions` out.
    pub(super) fn take_facts(&mut self, positions: &[usize], undo: &mut Undo) {
        undo.facts = take_at(&mut self.semantic.facts, positions);
    }

    /// Inserts a fact the forget learned again where opening would put it
    /// (`restore`: by `(lc, created_at, writer, seq)`), not at the end: an
    /// older statement relearned must not become the newest.
    pub(super) fn insert_fact(&mut self, fact: Fact, undo: &mut Undo) {
        let at = self.semantic.facts.iter().take_while(|f| super::super::loading::fact_order(f, &fact).is_le()).count();
        undo.facts_made.insert(fact.id.clone());
        self.semantic.facts.insert(at, fact);
    }

    /// Puts `rewrite` in the place of the episode at `position`.
    pub(super) fn rewrite_episode(&mut self, position: usize, rewrite: Episode, undo: &mut Undo) {
        if let Some(e) = self.episodic.episodes.get_mut(position) {
            undo.rewritten.push((position, std::mem::replace(e, rewrite)));
        }
    }

    /// Takes the episodes at `positions` out (after the rewrites, which
    /// keep their places).
    pub(super) fn drop_episodes(&mut self, positions: &[usize], undo: &mut Undo) {
        undo.dropped = take_at(&mut self.episodic.episodes, positions);
    }

    /// Removes the embedding of `item`, remembering it.
    pub(super) fn take_embedding(&mut self, item: &str, undo: &mut Undo) -> Option<(String, u64)> {
        let vector = self.index.embeddings.remove(item);
        let uid = self.books.embedding_uids.remove(item);
        if vector.is_some() || uid.is_some() {
            undo.embeddings.push((item.to_string(), vector, uid.clone()));
        }
        uid
    }

    /// Puts memory back as it was before the forget `undo` was made by.
    pub(crate) fn undo(&mut self, undo: Undo) {
        let Undo {
            others,
            messages,
            log_len,
            facts,
            facts_made,
            rewritten,
            dropped,
            embeddings,
            next_seq,
            last_ts,
            last_lc,
            forgets,
            shelves,
            unshelve,
            folding,
        } = undo;
        put_back(&mut self.others, others);
        self.window.log.truncate(log_len);
        put_back(&mut self.window.log, messages);
        self.window.regroup();
        // Facts: those made go, those taken come back where they were.
        let made: Vec<usize> =
            (self.semantic.facts.iter().enumerate()).filter(|(_, f)| facts_made.contains(&f.id)).map(|(i, _)| i).collect();
        take_at(&mut self.semantic.facts, &made);
        put_back(&mut self.semantic.facts, facts);
        // Episodes: the dropped come back, then each rewrite gives its place back.
        put_back(&mut self.episodic.episodes, dropped);
        for (p, e) in rewritten {
            if let Some(slot) = self.episodic.episodes.get_mut(p) {
                *slot = e;
            }
        }
        let mut vectors: HashMap<String, Vec<f32>> = HashMap::new();
        for (item, vector, uid) in embeddings {
            if let Some(v) = vector {
                vectors.insert(item.clone(), v);
            }
            if let Some(uid) = uid {
                self.books.embedding_uids.insert(item, uid);
            }
        }
        self.index.embeddings.extend(vectors);
        let b = &mut self.books;
        (b.next_seq, b.last_ts, b.last_lc, b.unshelve, b.folding) = (next_seq, last_ts, last_lc, unshelve, folding);
        b.forgets.truncate(forgets);
        b.shelves.truncate(shelves);
        // Built again from what is back, when next needed, from the terms
        // indexed now: only what came back is analyzed again.
        if !self.index.stale {
            let (lexical, episodes) = (std::mem::take(&mut self.index.lexical), std::mem::take(&mut self.index.episodes));
            self.index.unbuild();
            (self.index.prebuilt, self.index.prebuilt_episodes) = (Some(std::sync::Arc::new(lexical)), Some(episodes));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{put_back, take_at};

    /// Taking any positions out and putting them back gives the vector again.
    #[test]
    fn take_at_then_put_back_is_the_identity() {
        let mut seed = 7u64;
        for _ in 0..500 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let len = (seed % 20) as usize;
            let original: Vec<usize> = (0..len).collect();
            let positions: Vec<usize> = (0..len).filter(|i| (seed >> (i % 60)) & 1 == 1).collect();
            let mut v = original.clone();
            let taken = take_at(&mut v, &positions);
            assert_eq!(taken.iter().map(|(p, _)| *p).collect::<Vec<_>>(), positions);
            assert!(taken.iter().all(|(p, x)| p == x));
            assert_eq!(v, original.iter().copied().filter(|i| !positions.contains(i)).collect::<Vec<_>>());
            put_back(&mut v, taken);
            assert_eq!(v, original);
        }
    }
}
