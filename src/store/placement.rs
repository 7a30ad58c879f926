//! Where a write (a fold, a forget, an import) puts records: messages an
//! episode covers, and their vectors, in cold segments; episodes none of whose messages
//! stays where opening reads in cold segments of their own; the rest in
//! segments opening reads (`controller::cold` says how they are read). It
//! reads the layers only through [`Layers`].
//!
//! Invariant: no message stays where opening reads it without the episode
//! that covers it, whatever crash or failed removal stops a write half way.
//! An episode is archived only from values holding no message, and those
//! are removed after the values holding messages (`Placed::removal`; the
//! write path stops at a removal that fails).

use std::collections::HashSet;

use super::books::{Books, Layers};
use super::record::Record;
use super::segments::key_set;
use super::{Key, Uids};

/// Where a write puts records (`Books::place`).
pub(crate) struct Placed {
    /// Messages an episode covers, and their vectors: cold segments.
    pub messages: Vec<Record>,
    /// Episodes none of whose messages stays where opening reads: cold
    /// segments of their own.
    pub episodes: Vec<Record>,
    /// The rest: segments opening reads.
    pub hot: Vec<Record>,
    /// The values replaced, in the order to remove them: those holding a
    /// message first, so that a value holding an episode archived here
    /// (which holds no message) goes only once no value opening reads holds
    /// one of its messages, whatever crash or failed removal stops it.
    pub removal: Vec<Key>,
}

/// The episode a record holds, if it is one.
fn episode_of(r: &Record) -> Option<&crate::episodic::Episode> {
    if let Record::Episode { episode, .. } = r {
        Some(episode)
    } else {
        None
    }
}

/// The message id a record holds, if it is a message.
fn message_id(r: &Record) -> Option<&str> {
    if let Record::Msg { id, .. } = r {
        Some(id)
    } else {
        None
    }
}

impl Books {
    /// Where `records` go when they replace the values `inputs` (see
    /// `Placed`), beside what the layers hold.
    pub(crate) fn place(&self, layers: &Layers<'_>, records: &[Record], inputs: &[Key]) -> Placed {
        let ids: HashSet<&str> = records.iter().filter_map(message_id).collect();
        // The episodes in memory, and those among the records (an import's).
        // Of this thread's, only those as new as the oldest message here:
        // an episode comes after the messages it covers (`lc`), and a fold
        // of the log must not read every episode.
        let oldest = records.iter().filter(|r| message_id(r).is_some()).map(Record::lc).min().unwrap_or(u64::MAX);
        let mine = layers.episodes.iter().rev().take_while(|e| e.origin.lc >= oldest);
        let others = layers.others.iter().chain(records).filter_map(episode_of);
        let covered: HashSet<&str> =
            mine.chain(others).flat_map(|e| &e.message_ids).map(String::as_str).filter(|id| ids.contains(id)).collect();
        let archived =
            |r: &Record| matches!(r, Record::Msg { id, message, .. } if covered.contains(id.as_str()) && !message.role.is_instruction());
        // Messages that stay where opening reads: these records' others,
        // and those an episode or a vector here names that a value not
        // replaced holds.
        let vectors = records.iter().filter_map(|r| if let Record::Embedding { item, .. } = r { Some(item.as_str()) } else { None });
        let named: HashSet<&str> = records
            .iter()
            .filter_map(episode_of)
            .flat_map(|e| &e.message_ids)
            .map(String::as_str)
            .chain(vectors)
            .filter(|id| !ids.contains(id))
            .collect();
        let input_set = key_set(inputs);
        let (known_messages, mut staying) = self.held_hot(layers, &named, &input_set);
        staying.extend(records.iter().filter(|r| !archived(r)).filter_map(message_id));
        let archived_here: HashSet<&str> = records.iter().filter(|r| archived(r)).filter_map(message_id).collect();
        // A message's vector goes where the message is.
        let archived_vector = |r: &Record| matches!(r, Record::Embedding { item, .. } if archived_here.contains(item.as_str()) || (known_messages.contains(item.as_str()) && !staying.contains(item.as_str())));
        // The replaced values holding a message, then the others.
        let folding = &self.folding;
        let messages: Uids =
            records.iter().filter(|r| message_id(r).is_some()).filter_map(|r| folding.find(r.uid().0, r.uid().1)).map(|u| (u, 0)).collect();
        let (mixed, plain): (Vec<&crate::store::segments::Value>, Vec<_>) =
            folding.values().iter().filter(|v| input_set.contains(&v.key)).partition(|v| v.uids.iter().any(|u| messages.contains_key(u)));
        let beside_messages: Uids = mixed.iter().flat_map(|v| &v.uids).map(|&u| (u, 0)).collect();
        // (inputs folding does not know of first)
        let known: Vec<Key> = mixed.iter().chain(&plain).map(|v| v.key.clone()).collect();
        let known_set = key_set(&known);
        let mut removal: Vec<Key> = inputs.iter().filter(|k| !known_set.contains(k)).cloned().collect();
        removal.extend(known);
        let mut placed = Placed { messages: Vec::new(), episodes: Vec::new(), hot: Vec::new(), removal };
        for r in records {
            let out = if archived(r) || archived_vector(r) {
                &mut placed.messages
            } else if episode_of(r).is_some_and(|e| !e.message_ids.iter().any(|m| staying.contains(m.as_str())))
                && folding.find(r.uid().0, r.uid().1).is_some_and(|u| !beside_messages.contains_key(&u))
            {
                &mut placed.episodes
            } else {
                &mut placed.hot
            };
            out.push(r.clone());
        }
        placed
    }

    /// Which of `ids` are messages in memory, and which of those a value
    /// opening reads holds, other than `inputs` (the values being replaced).
    fn held_hot<'a>(&self, layers: &Layers<'a>, ids: &HashSet<&str>, inputs: &HashSet<&Key>) -> (HashSet<&'a str>, HashSet<&'a str>) {
        let (mut found, mut out) = (HashSet::new(), HashSet::new());
        if ids.is_empty() {
            return (found, out);
        }
        let folding = &self.folding;
        let mut hot = Uids::default();
        for v in folding.values().iter().filter(|v| !super::is_cold(&v.key) && !inputs.contains(&v.key)) {
            hot.extend(v.uids.iter().map(|&u| (u, 0)));
        }
        let held = |writer: &str, seq: u64| folding.find(writer, seq).is_some_and(|u| hot.contains_key(&u));
        // Newest first, and no further once all are found: they are recent
        // (working memory when the log last folded), the log may be long.
        for s in layers.log.iter().rev().filter(|s| ids.contains(s.id.as_str())) {
            found.insert(s.id.as_str());
            if held(&s.writer, s.seq) {
                out.insert(s.id.as_str());
            }
            if found.len() == ids.len() {
                break;
            }
        }
        for r in layers.others {
            if let Some(id) = message_id(r).filter(|id| ids.contains(id)) {
                found.insert(id);
                if held(r.uid().0, r.uid().1) {
                    out.insert(id);
                }
            }
        }
        (found, out)
    }
}
