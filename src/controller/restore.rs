//! Rebuilding a controller from stored records.
//!
//! The records are a union from any number of writers, so the rebuilt state
//! depends only on the set: messages in `(lc, ts, writer, seq)` order,
//! episodes and facts in `(lc, created_at, writer, seq)` order, the newest
//! procedures by the same order, a message archived when an episode covers
//! it, forgotten ids removed wherever they appear.
//!
//! `lc` is a Lamport order: every record a writer writes is above every
//! record it loaded, so a controller reopened after a crash, or a second tab,
//! goes on after what it saw whatever its clock says; concurrent writers
//! tie on `lc` and are ordered alike by every reader. Records of 0.1 have
//! no `lc` (0) and keep their order by time, before every newer record.

use std::collections::HashSet;

use crate::store::tombstones::Tombstones;

use super::Controller;
use crate::models;
use crate::store::record::Record;
use crate::store::{Folding, LoadReport, Loaded};
use crate::tokens::chat::message_tokens;
use crate::wire::request_form;
use crate::window::{Place, Stored, Window};

impl Controller {
    /// Replaces this (fresh) controller's state with the loaded records.
    pub(crate) fn restore(&mut self, loaded: Loaded) {
        let Loaded { records, keys, report } = loaded;
        let forgotten = Tombstones::of(&records);
        let (mut msgs, mut episodes, mut resurrected) = (Vec::new(), Vec::new(), false);
        let (mut facts, mut embeddings, mut procedures) = (Vec::new(), Vec::new(), Vec::new());
        let mut max_lc = 0;
        for r in records {
            let (writer, seq, lc) = (r.uid().0.to_string(), r.uid().1, r.lc());
            if writer == self.opts.writer {
                self.next_seq = self.next_seq.max(seq + 1);
            }
            max_lc = max_lc.max(lc);
            if forgotten.covers(&r) {
                resurrected = true;
                continue;
            }
            if r.thread().is_some_and(|t| t != self.opts.thread) {
                self.others.push(r);
                continue;
            }
            match r {
                Record::Fact { writer, seq, lc, fact } => facts.push((lc, writer, seq, fact)),
                Record::Embedding { writer, seq, item, vector } => embeddings.push((writer, seq, item, vector)),
                Record::Procedures { writer, seq, lc, ts, procedures: raw } => procedures.push((lc, ts, writer, seq, raw)),
                Record::Msg { writer, seq, lc, ts, id, message, task, .. } => msgs.push((lc, ts, writer, seq, id, message, task)),
                Record::Episode { writer, seq, lc, episode, .. } => episodes.push((lc, writer, seq, episode)),
                Record::Usage { ref model, ref purpose, usd, .. } => {
                    // As charged when recorded; a record without (0.1's, or
                    // of a model then unpriced) at the prices 0.1 charged, or
                    // today's; a model nobody prices keeps its tokens at a null cost.
                    let usage = super::writes::usage_of(&r);
                    let usd = usd.or_else(|| models::resolve_as_of_0_1(model, &self.opts.models).map(|p| usage.usd(&p)));
                    self.cost.record_for(model, usd, &usage, purpose);
                    self.usages.push(r);
                }
                Record::Forget { .. } => self.forgets.push(r),
            }
        }
        // What this writer writes next comes after all of it.
        self.last_lc = max_lc;
        msgs.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)).then_with(|| a.2.cmp(&b.2)).then(a.3.cmp(&b.3)));
        episodes.sort_by(|a, b| a.0.cmp(&b.0).then(a.3.created_at.total_cmp(&b.3.created_at)).then_with(|| a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
        // A message is in one episode. Two that share one are a compaction
        // whose save failed after it landed (a lost acknowledgement, a crash)
        // and the retry that replaced it, or two writers compacting the same
        // messages: the later one stands, alike for every reader; the other
        // goes, with what it taught, and its messages not covered otherwise
        // go back to working memory to be compacted again.
        let mut claimed: HashSet<String> = HashSet::new();
        let mut superseded: HashSet<String> = HashSet::new();
        for (_, _, _, e) in episodes.iter().rev() {
            if e.message_ids.iter().any(|m| claimed.contains(m)) {
                superseded.insert(e.id.clone());
            } else {
                claimed.extend(e.message_ids.iter().cloned());
            }
        }
        if !superseded.is_empty() {
            episodes.retain(|(_, _, _, e)| !superseded.contains(&e.id));
            facts.retain(|(_, _, _, f)| !(f.tags.iter().any(|t| t == "auto") && f.source.as_ref().is_some_and(|s| superseded.contains(s))));
            resurrected = true; // fold them away
        }
        let archived: HashSet<&str> = episodes.iter().flat_map(|(_, _, _, e)| e.message_ids.iter().map(String::as_str)).collect();

        let mut window = Window::default();
        for (lc, ts, writer, seq, id, message, task_id) in msgs {
            let place = if archived.contains(id.as_str()) && !message.role.is_instruction() { Place::Archived } else { Window::place_for(&message) };
            let tool_turn = window.tool_turn(&message);
            let tokens = message_tokens(&self.counter, &request_form(&message, tool_turn, &[]));
            self.last_ts = self.last_ts.max(ts);
            window.push(Stored { id, writer, seq, lc, ts, message, tokens, tool_turn, place, task_id });
        }
        self.window = window;
        for (lc, writer, seq, mut episode) in episodes {
            episode.tokens = self.counter.count(&episode.summary);
            self.episodes.push(episode);
            self.episode_uids.push((writer, seq, lc));
        }
        facts.sort_by(|a, b| a.0.cmp(&b.0).then(a.3.created_at.total_cmp(&b.3.created_at)).then_with(|| a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
        for (lc, writer, seq, fact) in facts {
            self.semantic.push(fact, writer, seq, lc);
        }
        for (writer, seq, item, vector) in embeddings {
            // A vector that no longer fits the index (another embedder model) is dropped, not fatal.
            if self.check_embeddings(std::slice::from_ref(&item), std::slice::from_ref(&vector)).is_ok() {
                self.embedding_uids.insert(item.clone(), (writer, seq));
                self.index.embeddings.insert(item, vector);
            }
        }
        procedures.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)).then_with(|| a.2.cmp(&b.2)).then(a.3.cmp(&b.3)));
        if let Some((lc, ts, writer, seq, raw)) = procedures.pop() {
            if let Ok(parsed) = crate::procedural::Procedures::parse(&raw) {
                self.procedures = Some(super::ProceduresState { parsed, raw, writer, seq, lc, ts });
            }
        }
        self.rebuild_index();
        let packed: usize = keys.iter().filter(|k| k.get(1).is_some_and(|s| s == "pack")).count();
        let logged = keys.len() - packed;
        // Another writer may have stored content that was forgotten: fold it away now.
        self.folding = Folding { known: keys, unfolded: logged, packed: report.records.saturating_sub(logged), forced: resurrected };
        self.load_report = report;
    }

    /// What loading found: record counts, duplicates, damaged keys.
    pub fn load_report(&self) -> &LoadReport {
        &self.load_report
    }
}
