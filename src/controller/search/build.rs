//! Building the search index: whole when it is not built (after opening,
//! or after a read of the archive moved what memory holds), from the terms
//! stored with what was read (`prebuilt`) and the text of the rest; in
//! place after an edit, which drops what left and analyzes what is new
//! (ids are record identities: what stays keeps its terms).

use super::{origin_id, record_id, Controller, SearchIndex, CHAT_BM25};
use crate::retrieval::Bm25Index;

impl Controller {
    /// Builds the search index if it is not built yet (see `SearchIndex::stale`).
    /// Over what is in memory: the write path reads the cold segments first
    /// (`WritePath::read`), and reading it marks the index stale.
    pub fn ensure_index(&mut self) {
        if self.index.stale {
            self.rebuild_index();
        }
    }

    /// Rebuilds both indexes from the log and the live facts. The terms of
    /// messages read with the cold segments come from storage (`prebuilt`); the
    /// rest are analyzed.
    pub(crate) fn rebuild_index(&mut self) {
        let embeddings = std::mem::take(&mut self.index.embeddings);
        let lexical = self.index.prebuilt.take().map(|read| self.adopt_terms(read));
        let episodes = self.index.prebuilt_episodes.take().map(|mut read| {
            // (those no longer in memory left out)
            read.retain(&mut self.episodic.episodes.iter().map(|e| origin_id(&e.origin)));
            read
        });
        self.index = SearchIndex { embeddings, ..SearchIndex::default() };
        if let Some(lexical) = lexical {
            self.index.lexical = lexical;
        }
        if let Some(episodes) = episodes {
            self.index.episodes = episodes;
        }
        self.index_all();
    }

    /// After an edit took items out of memory or put new ones in (a
    /// forget, a replace, a truncation): what left leaves the index, what
    /// is new is analyzed, and where everything is is mapped again. What
    /// stays keeps its terms: ids are record identities, which no move
    /// changes. (A rebuild after a one-message forget cost the next query
    /// as much as the first one after opening: 0.6 s at 100,000 messages.)
    pub(crate) fn reindex_after_edit(&mut self) {
        if self.index.stale {
            return;
        }
        let mut lexical = std::mem::take(&mut self.index.lexical);
        lexical.retain(&mut self.semantic.facts.iter().map(|f| origin_id(&f.origin)).chain(self.message_ids()));
        let mut episodes = std::mem::take(&mut self.index.episodes);
        episodes.retain(&mut self.episodic.episodes.iter().map(|e| origin_id(&e.origin)));
        let embeddings = std::mem::take(&mut self.index.embeddings);
        self.index = SearchIndex { embeddings, lexical, episodes, ..SearchIndex::default() };
        self.index_all();
    }

    /// Indexes everything memory holds that the index does not hold yet,
    /// and maps where each item is; the vectors from the embeddings.
    fn index_all(&mut self) {
        for pos in 0..self.window.log.len() {
            self.index_message(pos, true);
        }
        for q in 0..self.others.len() {
            self.index_other(q, true);
        }
        for slot in 0..self.semantic.facts.len() {
            self.index_fact(slot);
        }
        for e in &self.episodic.episodes {
            self.index.index_episode(e, true);
        }
        self.recentre();
    }

    /// The index of the messages read with the cold segments, without
    /// those no longer in memory (forgotten, a duplicate).
    fn adopt_terms(&self, read: std::sync::Arc<Bm25Index>) -> Bm25Index {
        // (copied only if a clone of this controller still holds it)
        let mut read = std::sync::Arc::try_unwrap(read).unwrap_or_else(|shared| (*shared).clone());
        read.retain(&mut self.message_ids());
        read.set_params(CHAT_BM25);
        read
    }

    /// The index ids of the messages memory holds: this thread's log, then
    /// other threads' messages.
    fn message_ids(&self) -> impl Iterator<Item = u64> + '_ {
        use crate::store::record::Record;
        let log = self.window.log.iter().map(|s| record_id(&s.writer, s.seq));
        log.chain(self.others.iter().filter_map(|r| match r {
            Record::Msg { writer, seq, .. } => Some(record_id(writer, *seq)),
            _ => None,
        }))
    }
}
