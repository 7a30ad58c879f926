//! Rebuilding a controller from stored records, by the rules of
//! `controller::loading` (shared with the cold read).
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

use super::loading::{fact_order, loaded_place, settle};
use super::Controller;
use crate::models;
use crate::origin::Origin;
use crate::semantic::Fact;
use crate::store::record::Record;
use crate::store::{LoadReport, Loaded, Uids};
use crate::tokens::chat::message_tokens;
use crate::window::{Place, Stored, Window};

impl Controller {
    /// Replaces this (fresh) controller's state with the loaded records.
    pub(crate) fn restore(&mut self, loaded: Loaded) {
        let Loaded { records, mut folding, report, seen, terms, episode_terms } = loaded;
        let forgotten = Tombstones::of(&records);
        // Records to fold away: forgotten content another writer stored,
        // and episodes superseded by a later one, with what they taught.
        let mut purge = Uids::default();
        // The messages as they are kept, sized once: a restore's peak memory
        // is this vector beside the records it is filled from.
        let mut msgs: Vec<Stored> = Vec::with_capacity(records.iter().filter(|r| matches!(r, Record::Msg { .. })).count());
        let mut episodes = Vec::new();
        let (mut facts, mut embeddings, mut procedures) = (Vec::new(), Vec::new(), Vec::new());
        let mut max_lc = 0;
        for r in records {
            let ((writer, seq), lc) = (r.uid(), r.lc());
            if writer == self.opts.writer {
                self.books.next_seq = self.books.next_seq.max(seq + 1);
            }
            max_lc = max_lc.max(lc);
            let Some(r) = self.this_threads(r, &forgotten, &mut |r| purge.extend(folding.find(r.uid().0, r.uid().1).map(|u| (u, 0))))
            else {
                continue;
            };
            match r {
                Record::Fact { writer, seq, lc, fact } => facts.push(Fact { origin: Origin::new(writer, seq, lc), ..fact }),
                Record::Embedding { writer, seq, item, vector } => embeddings.push((writer, seq, item, vector)),
                Record::Procedures { writer, seq, lc, ts, procedures: raw } => procedures.push((lc, ts, writer, seq, raw)),
                Record::Msg { writer, seq, lc, ts, id, message, task, .. } => {
                    msgs.push(Stored::loaded(id, writer, seq, lc, ts, message, task));
                }
                Record::Episode { writer, seq, lc, episode, counted, .. } => {
                    episodes.push(self.loaded_episode(Origin::new(writer, seq, lc), episode, counted.as_deref()));
                }
                Record::Usage { ref model, ref purpose, usd, .. } => {
                    // As charged when recorded; a record without (0.1's, or
                    // of a model then unpriced) at the prices 0.1 charged, or
                    // today's; a model nobody prices keeps its tokens at a null cost.
                    let usage = super::writes::usage_of(&r);
                    let usd = usd.or_else(|| models::resolve_as_of_0_1(model, &self.opts.models).map(|p| usage.usd(&p)));
                    self.cost.record_for(model, usd, &usage, purpose);
                    self.books.usages.push(r);
                }
                Record::Forget { .. } => self.books.forgets.push(r),
                Record::Shelf { .. } => self.books.shelves.push(r),
            }
        }
        // What this writer writes next comes after all of it, the cold
        // segments opening did not read included (their shelf records say
        // how far they go).
        let archive = crate::store::shelf::unread(&self.books.shelves, &mut folding, seen, &self.opts.thread);
        self.books.last_lc = max_lc.max(archive.lc);
        if let Some((_, seq)) = archive.seqs.iter().find(|(w, _)| *w == self.opts.writer) {
            self.books.next_seq = self.books.next_seq.max(seq + 1);
        }
        self.books.cold = archive;
        crate::sort::sort_by(&mut msgs, super::cold::log_order);
        settle(&mut episodes, &mut facts, &folding, Some(&mut purge));
        // What the standing episodes cover.
        let archived: HashSet<&str> = episodes.iter().flat_map(|e| e.message_ids.iter().map(String::as_str)).collect();
        self.books.last_ts = msgs.iter().fold(self.books.last_ts, |t, s| t.max(s.ts));
        let counter = &self.counter;
        self.window = Window::from_log(msgs, |s| {
            s.place = loaded_place(s, archived.contains(s.id.as_str()));
            // An archived message is counted when something asks (stats,
            // recall, a summary job): opening counts only the context's.
            if s.place != Place::Archived {
                s.tokens.set(message_tokens(counter, &s.sent(&[])));
            }
        });
        self.keep_episodes(episodes);
        crate::sort::sort_by(&mut facts, fact_order);
        self.semantic.facts = facts;
        for (writer, seq, item, vector) in embeddings {
            self.restore_embedding(writer, seq, item, vector);
        }
        crate::sort::sort_by(&mut procedures, |a, b| {
            a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)).then_with(|| a.2.cmp(&b.2)).then(a.3.cmp(&b.3))
        });
        if let Some((lc, ts, writer, seq, raw)) = procedures.pop() {
            if let Ok(parsed) = crate::procedural::Procedures::parse(&raw) {
                self.procedures = Some(super::ProceduresState { parsed, raw, origin: Origin::new(writer, seq, lc), ts });
            }
        }
        // Built when first needed (`ensure_index`), not on every open;
        // from the terms stored with archived messages where they were read.
        self.index.stale = true;
        self.index.prebuilt = terms.map(std::sync::Arc::new);
        self.index.prebuilt_episodes = episode_terms;
        // The values holding it are rewritten by the next fold.
        folding.rewrite_holding(&purge);
        self.books.folding = folding;
        self.books.load_report = report;
    }

    /// A stored vector, kept if it fits the index (a vector of another
    /// embedder model is dropped, not fatal).
    pub(crate) fn restore_embedding(&mut self, writer: String, seq: u64, item: String, vector: Vec<f32>) {
        if self.check_embeddings(std::slice::from_ref(&item), std::slice::from_ref(&vector)).is_ok() {
            self.books.embedding_uids.insert(item.clone(), (writer, seq));
            self.index.embeddings.insert(item, vector);
        }
    }

    /// What loading found: record counts, duplicates, damaged keys.
    pub fn load_report(&self) -> &LoadReport {
        &self.books.load_report
    }
}
