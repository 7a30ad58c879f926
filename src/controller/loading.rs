//! The loading rules, written once: opening (`restore`), the cold read
//! (`cold::merge_cold`) and a query's partial read (`partial`) place
//! what they read by these, so a controller holds the same state however
//! its records reached it.
//!
//! - A record a tombstone covers is left out, and the value holding it is
//!   rewritten by the next fold; another thread's record is kept as stored
//!   (`others`).
//! - Episodes and facts are in [`loaded_order`]: causal (`lc`), then by
//!   time, then by record identity.
//! - Of two episodes that share a message the later stands; the other goes,
//!   with the facts it taught ([`superseded`], [`taught_by`]).
//! - A message is archived while a standing episode covers it (an
//!   instruction never is).
//! - An episode keeps its token count only if it was counted with this
//!   controller's encoding.

use std::cmp::Ordering;
use std::collections::HashSet;

use super::Controller;
use crate::episodic::Episode;
use crate::origin::Origin;
use crate::semantic::Fact;
use crate::store::record::Record;
use crate::store::tombstones::Tombstones;
use crate::store::{Folding, Uids};
use crate::window::{Place, Stored, Window, UNCOUNTED};

/// The order of loaded episodes and facts: `(lc, created_at, writer, seq)`,
/// total because `(writer, seq)` is unique.
pub(crate) fn loaded_order(a: (&Origin, f64), b: (&Origin, f64)) -> Ordering {
    (a.0.lc.cmp(&b.0.lc)).then(a.1.total_cmp(&b.1)).then_with(|| a.0.writer.cmp(&b.0.writer)).then(a.0.seq.cmp(&b.0.seq))
}

pub(crate) fn episode_order(a: &Episode, b: &Episode) -> Ordering {
    loaded_order((&a.origin, a.created_at), (&b.origin, b.created_at))
}

pub(crate) fn fact_order(a: &Fact, b: &Fact) -> Ordering {
    loaded_order((&a.origin, a.created_at), (&b.origin, b.created_at))
}

/// The ids of the episodes (in [`loaded_order`]) a later one supersedes. A
/// message is in one episode. Two that share one are a compaction whose
/// save failed after it landed (a lost acknowledgement, a crash) and the
/// retry that replaced it, or two writers compacting the same messages:
/// the later one stands, alike for every reader; the other goes, with what
/// it taught, and its messages not covered otherwise go back to working
/// memory to be compacted again. (Sized at once: every archived message's
/// id goes through it, where rehashing as it grew was a third of its time.
/// Not Fx-hashed: ids that differ in their last digits share the low bits
/// of that hash, the table's place, and it took longer.)
pub(crate) fn superseded(ordered: &[&Episode]) -> HashSet<String> {
    let mut superseded = HashSet::new();
    let mut claimed: HashSet<&str> = HashSet::with_capacity(ordered.iter().map(|e| e.message_ids.len()).sum());
    for e in ordered.iter().rev() {
        if e.message_ids.iter().any(|m| claimed.contains(m.as_str())) {
            superseded.insert(e.id.clone());
        } else {
            claimed.extend(e.message_ids.iter().map(String::as_str));
        }
    }
    superseded
}

/// Whether `f` was learned from one of the episodes `from`.
pub(crate) fn taught_by(f: &Fact, from: &HashSet<String>) -> bool {
    f.tags.iter().any(|t| t == "auto") && f.source.as_ref().is_some_and(|s| from.contains(s))
}

/// Orders `episodes` and leaves out those superseded, with the facts they
/// taught; the values holding what goes are added to `purge`. Without
/// `purge`, only orders them: the caller knows none is superseded.
pub(crate) fn settle(episodes: &mut Vec<Episode>, facts: &mut Vec<Fact>, folding: &Folding, purge: Option<&mut Uids>) {
    crate::sort::sort_by(episodes, episode_order);
    let Some(purge) = purge else { return };
    let superseded = superseded(&episodes.iter().collect::<Vec<_>>());
    if superseded.is_empty() {
        return;
    }
    let mut gone = |o: &Origin| purge.extend(folding.find(&o.writer, o.seq).map(|u| (u, 0)));
    episodes.retain(|e| {
        let stands = !superseded.contains(&e.id);
        if !stands {
            gone(&e.origin);
        }
        stands
    });
    facts.retain(|f| {
        let stays = !taught_by(f, &superseded);
        if !stays {
            gone(&f.origin);
        }
        stays
    });
}

/// Where a loaded message is: archived while an episode covers it.
pub(crate) fn loaded_place(s: &Stored, covered: bool) -> Place {
    if covered && !s.message.role.is_instruction() {
        Place::Archived
    } else {
        Window::place_for(&s.message)
    }
}

impl Controller {
    /// A loaded record of this thread, or `None` when it is forgotten
    /// (`gone` is told, to rewrite its value) or another thread's (kept in
    /// `others`).
    pub(super) fn this_threads(&mut self, r: Record, forgotten: &Tombstones, gone: &mut dyn FnMut(&Record)) -> Option<Record> {
        if forgotten.covers(&r) {
            gone(&r);
            return None;
        }
        if r.thread().is_some_and(|t| t != self.opts.thread) {
            self.others.push(r);
            return None;
        }
        Some(r)
    }

    /// A loaded episode, with its record identity, keeping its tokens only
    /// if they were counted with this controller's encoding.
    pub(crate) fn loaded_episode(&self, origin: Origin, episode: Episode, counted: Option<&str>) -> Episode {
        let tokens = if counted.is_some() && counted == self.counter.encoding_name() { episode.tokens } else { UNCOUNTED };
        Episode { origin, tokens, ..episode }
    }

    /// Takes settled episodes (in order) as memory's, counting those not counted yet.
    pub(super) fn keep_episodes(&mut self, episodes: Vec<Episode>) {
        self.episodic.episodes.reserve_exact(episodes.len());
        for mut episode in episodes {
            if episode.tokens == UNCOUNTED {
                episode.tokens = self.counter.count(&episode.summary);
            }
            self.episodic.episodes.push(episode);
        }
    }
}
