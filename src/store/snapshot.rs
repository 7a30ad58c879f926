//! Export and import: a namespace as a portable, versioned snapshot in JSON
//! lines. The first line is `{"agentMemorySnapshot":1}`; every other line is
//! one live record exactly as storage holds it (messages with their ids,
//! timestamps and order, every version of every fact, episodes, procedures,
//! usage, the tombstones of what was forgotten, embeddings if asked for).
//! A snapshot never holds an API key: records never do.
//!
//! Importing writes the records as one pack under the target namespace, so
//! a round trip keeps every id and the order, and importing into a
//! namespace that already holds data is a union, as two writers' data is.

use super::record::Record;
use crate::error::{MemoryError, Result};

pub const VERSION: u64 = 1;
const HEADER: &str = "agentMemorySnapshot";

/// The snapshot text of `records`.
pub fn write<'a>(records: impl Iterator<Item = &'a Record>) -> String {
    let mut out = format!("{{\"{HEADER}\":{VERSION}}}\n");
    for r in records {
        // Records always serialize (plain data, finite numbers); to_vec, as
        // storage encodes them, so the wasm holds one serializer.
        out.push_str(&String::from_utf8(serde_json::to_vec(r).unwrap_or_default()).unwrap_or_default());
        out.push('\n');
    }
    out
}

/// The records of a snapshot.
///
/// # Errors
/// `INVALID_INPUT` naming the line for anything that is not a snapshot of
/// this format; `FORMAT_TOO_NEW` for a snapshot of a newer version.
pub fn read(text: &str) -> Result<Vec<Record>> {
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
    // The header read by hand: a JSON parser for one small object would add
    // a deserializer to the wasm.
    let version = lines.next().and_then(|(_, l)| {
        let digits = l.trim().strip_prefix(&format!("{{\"{HEADER}\":"))?.strip_suffix('}')?;
        digits.trim().parse::<u64>().ok()
    });
    match version {
        None => return Err(MemoryError::input("snapshot", format!("the first line must be {{\"{HEADER}\":{VERSION}}}"))),
        Some(v) if v > VERSION => {
            return Err(MemoryError::FormatTooNew {
                key: "snapshot".into(),
                version: u8::try_from(v).unwrap_or(u8::MAX),
                supported: VERSION as u8,
            });
        }
        Some(_) => {}
    }
    lines
        .map(|(n, line)| {
            serde_json::from_slice::<Record>(line.as_bytes())
                .map_err(|e| MemoryError::input(format!("snapshot line {}", n + 1), e.to_string()))
        })
        .collect()
}
