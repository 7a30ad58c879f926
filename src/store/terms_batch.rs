//! Stored terms added to an index a batch at a time: a value's terms
//! (`retrieval::terms`' bytes) and its documents are staged, and added
//! together (`Bm25Index::add_stored_many`) once about [`BATCH_BYTES`] of
//! them are held, and when the read ends. A term's postings list is then
//! found once per batch, not once per value: a cache miss per term and
//! value was half of a whole read of 100,000 messages. The whole read
//! (`Loader`) and a lexical query's read of the episodes (`indexing`) both
//! add their terms through it.

use crate::retrieval::terms::BATCH_BYTES;
use crate::retrieval::Bm25Index;

/// Stored terms read and not yet added to their index.
#[derive(Debug, Default)]
pub(crate) struct TermsBatch {
    staged: Vec<(Vec<u8>, Vec<Option<u64>>)>,
    bytes: usize,
}

impl TermsBatch {
    /// Stages a value's stored terms and their documents (one per stored
    /// document: `None` leaves it out), adding the batch to `into` once it
    /// is full.
    pub fn push(&mut self, terms: &[u8], docs: Vec<Option<u64>>, into: &mut Option<Bm25Index>) {
        self.bytes += terms.len();
        self.staged.push((terms.to_vec(), docs));
        if self.bytes >= BATCH_BYTES {
            self.flush(into);
        }
    }

    /// Adds what is staged to `into`. It stays `None` while nothing could
    /// be added to it (terms that cannot be read are left: the text is
    /// analyzed instead).
    pub fn flush(&mut self, into: &mut Option<Bm25Index>) {
        if self.staged.is_empty() {
            return;
        }
        let had = into.is_some();
        let mut index = into.take().unwrap_or_default();
        let added = index.add_stored_many(&self.staged);
        *into = (had || added > 0).then_some(index);
        (self.staged, self.bytes) = (Vec::new(), 0);
    }
}
