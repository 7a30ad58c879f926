//! A hook's answer raced against the runtime's `setTimeout` (no eval, which
//! Workers forbid), so a hook that never settles cannot stall compaction or
//! search; the timer is cleared either way, since a pending one would keep
//! Node's event loop (and a test run) alive.

use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::prelude::*;

use super::js_error;
use crate::error::MemoryError;

fn global_fn(name: &str) -> Option<Function> {
    Reflect::get(&js_sys::global(), &name.into()).ok().and_then(|f| f.dyn_into().ok())
}

/// A promise that settles as `called` (a hook's return value) does, or
/// rejects with `late` as a `MemoryError` after `ms`; and the timer, for
/// [`clear`]. Not an async fn: one future type less in the wasm.
pub fn race(called: &JsValue, ms: f64, late: MemoryError) -> (Promise, JsValue) {
    let (mut id, err) = (JsValue::UNDEFINED, js_error(late));
    let timer = Promise::new(&mut |_, reject| {
        if let Some(set_timeout) = global_fn("setTimeout") {
            let err = err.clone();
            let fire = Closure::once_into_js(move || {
                let _ = reject.call1(&JsValue::NULL, &err);
            });
            id = set_timeout.call2(&JsValue::NULL, &fire, &ms.into()).unwrap_or(JsValue::UNDEFINED);
        }
    });
    (Promise::race(&js_sys::Array::of2(&Promise::resolve(called), &timer)), id)
}

/// Clears a [`race`]'s timer once it settled.
pub fn clear(id: &JsValue) {
    if let Some(clear) = global_fn("clearTimeout") {
        let _ = clear.call1(&JsValue::NULL, id);
    }
}

/// The `code` and `message` of what a hook threw or rejected with;
/// `fallback` is the code of a throw without one (a plain `Error`, a string).
pub fn failure(e: &JsValue, fallback: &str) -> crate::context::Degraded {
    let text = |k: &str| Reflect::get(e, &k.into()).ok().and_then(|c| c.as_string());
    crate::context::Degraded {
        code: text("code").unwrap_or_else(|| fallback.into()),
        message: text("message").or_else(|| e.as_string()).unwrap_or_else(|| format!("{e:?}")),
    }
}
