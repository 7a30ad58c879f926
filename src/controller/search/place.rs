//! What an index id stands for and where that item is: the record
//! identity every indexed item is keyed by (`record_id`), its time as the
//! order equal scores rank by (`order_of`), and its place in memory
//! (`Place`), kept in the search index's maps as one number.

/// The index id of the item stored as `(writer, seq)`: its record identity,
/// as the terms stored with it are keyed. Unique among loaded records, as
/// `(writer, seq)` is (`crate::origin`): Fx over the pair, whose last step,
/// the seq's, is a bijection, so one writer's seqs never meet.
pub(crate) fn record_id(writer: &str, seq: u64) -> u64 {
    crate::store::record::doc_key(writer, seq)
}

/// The index id of a fact or an episode, by the record it is stored as.
pub(crate) fn origin_id(o: &crate::origin::Origin) -> u64 {
    record_id(&o.writer, o.seq)
}

/// The order key of an item of time `ts` (ms): equal scores rank the
/// older first, as a whole read and a query's read alike (`TopK`), and a
/// replay of the same chat alike, whatever its writer's (random) name.
/// Times at or before the epoch share 0 (then the id decides).
pub(crate) fn order_of(ts: f64) -> u64 {
    if ts > 0.0 {
        ts.to_bits()
    } else {
        0
    }
}

/// Where an indexed item is: one index holds every kind, interleaved.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Place {
    /// Position in `semantic.facts`.
    Fact(u32),
    /// Position in this thread's log.
    Message(u32),
    /// Position in `others` (another thread's message).
    Other(u32),
    /// An archived message a query's read left in storage: its frozen
    /// document, and whether it is another thread's (`controller::partial`).
    Cold(u32, bool),
}

impl Place {
    /// A place in memory as one number: the kind in the top two bits (the
    /// maps reuse the index's `u32` map: one hash table's code in the wasm,
    /// not three). `None` for a position past 2^30 or a cold place.
    pub(super) fn pack(self) -> Option<u32> {
        let (kind, at) = match self {
            Place::Fact(i) => (0, i),
            Place::Message(p) => (1, p),
            Place::Other(q) => (2, q),
            Place::Cold(..) => return None,
        };
        (at < 1 << 30).then_some(kind << 30 | at)
    }

    pub(super) fn unpack(p: u32) -> Option<Place> {
        let at = p & ((1 << 30) - 1);
        match p >> 30 {
            0 => Some(Place::Fact(at)),
            1 => Some(Place::Message(at)),
            2 => Some(Place::Other(at)),
            _ => None,
        }
    }
}
