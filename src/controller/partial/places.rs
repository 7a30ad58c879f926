//! Where an archived message is while the archive is read for queries
//! only (`controller::partial`): its frozen document (found by its index
//! id, its record identity), that document's time and thread, and its
//! record once decoded.

use super::super::search::Place;
use super::super::Controller;
use crate::retrieval::FrozenIndex;
use crate::store::record::Record;

impl Controller {
    /// An archived message memory does not hold, by index id: its frozen
    /// document and whether it is another thread's.
    pub(crate) fn cold_place(&self, id: u64) -> Option<Place> {
        let p = self.partial.as_ref()?;
        let doc = *p.doc_of.get(&id)?;
        Some(Place::Cold(doc, p.doc_other.get(doc as usize).copied().unwrap_or(false)))
    }

    /// An archived message not in memory, by index id: its record if a
    /// query's read decoded it.
    pub(crate) fn archived(&self, id: u64) -> Option<&Record> {
        self.partial.as_ref()?.cache.get(&id)
    }

    /// The time of an archived message not in memory, by its frozen document.
    pub(crate) fn cold_ts(&self, doc: u32) -> Option<f64> {
        self.partial.as_ref()?.doc_ts.get(doc as usize).copied()
    }

    /// The archive's stored terms, while it is read for queries only.
    pub(crate) fn frozen(&self) -> Option<&FrozenIndex> {
        self.partial.as_ref().map(|p| &p.frozen)
    }
}
