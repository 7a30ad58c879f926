//! The embedder's vectors: which items still need one, checking and
//! attaching what it returns, and the script means the vectors are
//! centred by (`retrieval::Centres`). Vectors are keyed by item id, so
//! nothing is embedded twice.

use super::{origin_id, record_id, Controller};
use crate::error::{MemoryError, Result};
use crate::retrieval::{script_of, Centres, VectorIndex, VectorMode};

impl Controller {
    /// Items that have no embedding yet (oldest first), for the embedder hook.
    pub fn unembedded(&self, limit: usize) -> Vec<(String, String)> {
        let facts = self.semantic.live().into_iter().filter_map(|i| self.semantic.facts.get(i)).map(|f| (f.id.clone(), f.text.clone()));
        let msgs = self.window.log.iter().filter(|s| !s.message.role.is_instruction()).map(|s| (s.id.clone(), s.message.content_text()));
        let episodes = self.episodic.episodes.iter().map(|e| (e.id.clone(), e.summary.clone()));
        facts
            .chain(episodes)
            .chain(msgs)
            .filter(|(id, text)| !text.trim().is_empty() && !self.index.embeddings.contains_key(id))
            .take(limit)
            .collect()
    }

    /// Checks vectors for `ids` against the index (dimension, finiteness).
    ///
    /// # Errors
    /// `INVALID_VECTOR`, `DIMENSION_MISMATCH`, `INVALID_INPUT` for a count mismatch.
    pub fn check_embeddings(&self, ids: &[String], vectors: &[Vec<f32>]) -> Result<()> {
        if ids.len() != vectors.len() {
            return Err(MemoryError::input("embedder", format!("returned {} vectors for {} texts", vectors.len(), ids.len())));
        }
        let mut probe = VectorIndex::new(VectorMode::Exact);
        if let Some(dim) = self.index.vectors.dim() {
            probe.add(u64::MAX, &vec![1.0; dim])?;
        }
        for (i, v) in vectors.iter().enumerate() {
            probe.add(i as u64, v)?;
        }
        Ok(())
    }

    /// Stores checked embeddings in memory and the vector index.
    pub(crate) fn attach_embeddings(&mut self, items: Vec<(String, Vec<f32>)>) {
        if self.index.stale {
            self.index.embeddings.extend(items);
            return;
        }
        for (id, v) in items {
            if let Some(e) = self.episodic.episodes.iter().find(|e| e.id == id) {
                let _ = self.index.episode_vectors.add(origin_id(&e.origin), &v);
            }
            // Only what the lexical index holds is searched (not instructions).
            let at = self.index.item_place(&id).and_then(|p| self.id_at(p));
            if let Some(at) = at.filter(|&s| self.index.lexical.contains(s)) {
                if let Some(hit) = self.hit(at, 0.0).filter(|h| h.id == id) {
                    let _ = self.index.vectors.add(at, &self.index.centres.centre(script_of(&hit.text), &v));
                }
            }
            self.index.embeddings.insert(id, v);
        }
        if self.index.centres.stale(self.index.vectors.len()) {
            self.recentre();
        }
    }

    /// Recomputes the script means from every indexed vector and re-adds
    /// the vectors centred by them (see `retrieval::Centres`).
    pub(super) fn recentre(&mut self) {
        // Facts then messages, by position: the means are summed in one fixed
        // order. A text is read only for an item with a vector.
        let idx = &self.index;
        let vector = |id: &str, at: u64| idx.embeddings.get(id).filter(|_| idx.lexical.contains(at)).map(|v| (at, v.as_slice()));
        let mut items: Vec<(u64, usize, &[f32])> = Vec::new();
        for f in &self.semantic.facts {
            let found = vector(&f.id, origin_id(&f.origin));
            items.extend(found.map(|(at, v)| (at, script_of(&f.text), v)));
        }
        for s in &self.window.log {
            let found = vector(&s.id, record_id(&s.writer, s.seq));
            items.extend(found.map(|(at, v)| (at, script_of(&s.message.content_text()), v)));
        }
        for r in &self.others {
            if let crate::store::record::Record::Msg { id, message, writer, seq, .. } = r {
                items.extend(vector(id, record_id(writer, *seq)).map(|(at, v)| (at, script_of(&message.content_text()), v)));
            }
        }
        let mut centres = Centres::default();
        centres.refresh(&items);
        let mut vectors = VectorIndex::new(VectorMode::Exact);
        for &(slot, s, v) in &items {
            let _ = vectors.add(slot, &centres.centre(s, v));
        }
        (self.index.centres, self.index.vectors) = (centres, vectors);
    }
}
