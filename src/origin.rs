//! Which stored record an item is.
//!
//! Episodes and facts carry their record's identity with them, so what is
//! kept in memory and what it was stored as cannot drift apart (no
//! parallel vector kept in step by position).
//!
//! Invariants:
//! - `(writer, seq)` is unique among loaded records; `lc` is the record's
//!   Lamport order (`store::record::Record::lc`).
//! - Set where the item is stored or loaded; domain code (`episodic`,
//!   `semantic`) moves it along and never reads it. It is not serialized:
//!   the record's envelope holds it in storage, and outputs do not show it.

/// A record's writer, its seq within that writer, and its Lamport order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Origin {
    pub writer: String,
    pub seq: u64,
    pub lc: u64,
}

impl Origin {
    pub fn new(writer: String, seq: u64, lc: u64) -> Origin {
        Origin { writer, seq, lc }
    }

    /// The record's identity as the store keys it.
    pub fn uid(&self) -> (&str, u64) {
        (&self.writer, self.seq)
    }
}
