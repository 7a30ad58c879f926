//! Where an archived message is while the archive is read for queries
//! only (`controller::partial`): its search slot (the one a whole read
//! gives it), its place in the log memory holds, its frozen document and
//! its record once decoded.

use super::super::search::Slot;
use super::super::Controller;
use crate::retrieval::FrozenIndex;
use crate::store::indexing::NONE;
use crate::store::record::Record;

impl Controller {
    /// The search slot of the message at log position `pos`.
    pub(crate) fn log_slot(&self, pos: usize) -> Slot {
        match &self.partial {
            None => Slot::Message(pos),
            Some(p) => Slot::Message(pos + p.offsets.get(pos).map_or(p.unread.len(), |&o| o as usize)),
        }
    }

    /// The log position of the message slot `Slot::Message(p)`; `None` for
    /// an archived message memory does not hold (see [`Controller::archived`]).
    pub(crate) fn log_pos(&self, p: usize) -> Option<usize> {
        match &self.partial {
            None => Some(p),
            Some(x) => match x.unread.binary_search(&(p as u32)) {
                Ok(_) => None,
                Err(before) => Some(p - before),
            },
        }
    }

    /// An archived message not in memory, by its slot: its record if its
    /// segment is decoded.
    pub(crate) fn archived(&self, slot: Slot) -> Option<&Record> {
        self.partial.as_ref()?.cache.get(&slot.id())
    }

    /// An archived message's time (decoded or not), by its slot.
    pub(crate) fn archived_ts(&self, slot: Slot) -> Option<f64> {
        let p = self.partial.as_ref()?;
        p.doc_ts.get(self.archived_doc(slot)? as usize).copied()
    }

    /// The frozen document of an archived message's slot.
    pub(super) fn archived_doc(&self, slot: Slot) -> Option<u32> {
        let p = self.partial.as_ref()?;
        let doc = match slot {
            Slot::Message(at) => p.unread.binary_search(&(at as u32)).ok().and_then(|k| p.unread_doc.get(k)).copied()?,
            Slot::Other(q) => *p.others_doc.get(q.checked_sub(p.others_from)?)?,
            Slot::Fact(_) => return None,
        };
        (doc != NONE).then_some(doc)
    }

    /// The archive's stored terms, while it is read for queries only.
    pub(crate) fn frozen(&self) -> Option<&FrozenIndex> {
        self.partial.as_ref().map(|p| &p.frozen)
    }
}
