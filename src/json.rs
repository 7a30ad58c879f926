//! JSON text read through one reader.
//!
//! serde_json compiles its parser once per reader: `from_str` (`StrRead`)
//! and `from_slice` (`SliceRead`) are two copies of the number, string and
//! skipping code in the wasm. Stored bytes are read with `from_slice`, so
//! text is read through it too: for valid UTF-8 (any `&str`) the two give
//! the same value and the same errors, at the same line and column.

use serde::de::DeserializeOwned;

/// `serde_json::from_str`, through the slice reader.
pub(crate) fn from_str<T: DeserializeOwned>(text: &str) -> serde_json::Result<T> {
    serde_json::from_slice(text.as_bytes())
}

/// `value.to_string()` (compact JSON), through the serializer `to_string`
/// uses: `Value`'s `Display` is a second and third copy of it (compact and
/// `{:#}` pretty, over a `fmt::Write` adapter). A `Value` always serializes.
pub(crate) fn text(value: &serde_json::Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// The value of a serde_json call that cannot fail (serializing our own
/// types, whose maps have string keys; parsing a constant the tests parse).
/// It panics, as `expect` would, but without formatting the error: that
/// kept serde_json's `Debug` and its callers in the wasm for a case that
/// never happens.
pub(crate) fn infallible<T>(r: serde_json::Result<T>) -> T {
    match r {
        Ok(v) => v,
        Err(_) => unreachable!("serde_json failed where it cannot"),
    }
}
