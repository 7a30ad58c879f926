//! A hook's answer raced against the runtime's `setTimeout` (no eval, which
//! Workers forbid), so a hook that never settles cannot stall compaction or
//! search; the timer is cleared either way, since a pending one would keep
//! Node's event loop (and a test run) alive.

use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::js_error;
use crate::error::MemoryError;

fn global_fn(name: &str) -> Option<Function> {
    Reflect::get(&js_sys::global(), &name.into()).ok().and_then(|f| f.dyn_into().ok())
}

/// What `called` (a hook's return value) settles to, or `late` as a
/// `MemoryError` if it has not settled within `ms`.
pub async fn within(called: &JsValue, ms: f64, late: MemoryError) -> Result<JsValue, JsValue> {
    let mut id = JsValue::UNDEFINED;
    let timer = Promise::new(&mut |_, reject| {
        if let Some(set_timeout) = global_fn("setTimeout") {
            let err = js_error(late.clone());
            let fire = Closure::once_into_js(move || {
                let _ = reject.call1(&JsValue::NULL, &err);
            });
            id = set_timeout.call2(&JsValue::NULL, &fire, &ms.into()).unwrap_or(JsValue::UNDEFINED);
        }
    });
    let race = Promise::race(&js_sys::Array::of2(&Promise::resolve(called), &timer));
    let settled = JsFuture::from(race).await;
    if let Some(clear) = global_fn("clearTimeout") {
        let _ = clear.call1(&JsValue::NULL, &id);
    }
    settled
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
