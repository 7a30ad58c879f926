//! The wasm binding layer: converts types and delegates to the core.
//!
//! Values cross the boundary as JSON text (JSON.stringify / JSON.parse):
//! JSON.stringify escapes a lone UTF-16 surrogate, which the core then
//! rejects, where a direct string copy would silently replace it.
//! No `RefCell` borrow is ever held across an `await`, so JS may call any
//! async method again before the last one settled.

mod controller;
mod driver;
mod embedder;
mod hook;
mod options;
mod ranks;
mod redact;
mod retrieval;
mod storage;
mod summarizer;
mod tools;
mod types;

use js_sys::{Error, Object, Reflect, JSON};
use wasm_bindgen::prelude::*;

use crate::error::MemoryError;

#[wasm_bindgen(start)]
fn start() {
    console_error_panic_hook::set_once();
}

thread_local! {
    static TRAP_ARMED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Test-only, behind `forceTrapForTest` of `agent-memory/testing`: makes
/// the module trap the way a bug in it would, so the recovery (`INTERNAL`,
/// a fresh instance) can be tested on the build that ships. Mode 1 panics
/// in this call; mode 2 makes the next queued controller call panic inside
/// its future (a microtask); other modes do nothing. Not in the types.
#[wasm_bindgen(js_name = "__agentMemoryTrapForTest", skip_typescript)]
pub fn trap_for_test(mode: u32) {
    match mode {
        1 => panic!("agent-memory: trap forced by a test"),
        2 => TRAP_ARMED.with(|a| a.set(true)),
        _ => {}
    }
}

/// Panics if a test armed a trap (mode 2 of `trap_for_test`).
pub(crate) fn trap_if_armed() {
    if TRAP_ARMED.with(|a| a.replace(false)) {
        panic!("agent-memory: trap forced by a test");
    }
}

/// A JS `Error` named "MemoryError" carrying the stable `code`.
pub(crate) fn js_error(e: MemoryError) -> JsValue {
    let err = Error::new(&e.to_string());
    err.set_name("MemoryError");
    let _ = Reflect::set(&err, &"code".into(), &e.code().into());
    err.into()
}

/// A `MemoryError` (or any thrown value) as a result's `degraded`: its code and message.
pub(crate) fn degraded_by(e: &JsValue) -> crate::context::Degraded {
    let field = |name: &str| Reflect::get(e, &name.into()).ok().and_then(|v| v.as_string());
    crate::context::Degraded {
        code: field("code").unwrap_or_else(|| "STORAGE_ERROR".into()),
        message: field("message").unwrap_or_else(|| format!("{e:?}")),
    }
}

/// The write path's own refusals reach JS as `MemoryError`s.
impl From<MemoryError> for JsValue {
    fn from(e: MemoryError) -> JsValue {
        js_error(e)
    }
}

/// JSON text of a JS value, or INVALID_INPUT naming `what`.
pub(crate) fn to_json(value: &JsValue, what: &str) -> Result<String, JsValue> {
    if value.is_undefined() {
        return Err(js_error(MemoryError::input(what, "missing")));
    }
    JSON::stringify(value).ok().and_then(|s| s.as_string()).ok_or_else(|| js_error(MemoryError::input(what, "not serializable as JSON")))
}

/// Parses JSON text into a core type; a lone surrogate gets its own code.
pub(crate) fn from_json<T: serde::de::DeserializeOwned>(json: &str, what: &str) -> Result<T, JsValue> {
    crate::json::from_str(json).map_err(|e| js_error(MemoryError::from_json(&e, what)))
}

/// A JS value read as a core type, through JSON text.
pub(crate) fn from_js<T: serde::de::DeserializeOwned>(value: &JsValue, what: &str) -> Result<T, JsValue> {
    from_json(&to_json(value, what)?, what)
}

/// A core value as a plain JS value.
pub(crate) fn to_js<T: serde::Serialize>(value: &T) -> Result<JsValue, JsValue> {
    json_to_js(serde_json::to_string(value))
}

/// `to_js` past serializing: one copy, not one per type.
fn json_to_js(json: serde_json::Result<String>) -> Result<JsValue, JsValue> {
    JSON::parse(&json.map_err(|e| js_error(MemoryError::input("result", e.to_string())))?)
}

/// A core result whose JS shape is an array carrying fields (`search`'s
/// hits with `mode`): `{ [items]: [...], ...rest }` becomes that array with
/// `rest` set on it, in order. JSON has no such value, so it is made here.
pub(crate) fn array_with_fields(value: JsValue, items: &str) -> Result<JsValue, JsValue> {
    let (value, key) = (value.unchecked_into::<Object>(), JsValue::from(items));
    let array = Reflect::get(&value, &key)?;
    Reflect::delete_property(&value, &key)?;
    Ok(Object::assign(array.unchecked_ref(), &value).into())
}

/// Bytes of WebAssembly memory this instance holds now (rank tables,
/// controllers, caches); 0 before the module is loaded (`ready()`). Workers
/// allow 128 MB per isolate in all.
#[wasm_bindgen(js_name = wasmMemoryBytes)]
pub fn wasm_memory_bytes() -> f64 {
    wasm_bindgen::memory().unchecked_into::<js_sys::WebAssembly::Memory>().buffer().unchecked_into::<js_sys::ArrayBuffer>().byte_length()
        as f64
}
