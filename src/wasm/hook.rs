//! What a hook's failure says, for the place it is reported (an episode's
//! or a search's `degraded`). Hooks race their timeouts in JS
//! (`js/hooks/deadline.js`), so a timeout arrives here as a rejection with
//! `SUMMARIZER_TIMEOUT` / `EMBEDDER_TIMEOUT`.

use js_sys::Reflect;
use wasm_bindgen::prelude::*;

/// The `code` and `message` of what a hook threw or rejected with;
/// `fallback` is the code of a throw without one (a plain `Error`, a string).
pub fn failure(e: &JsValue, fallback: &str) -> crate::context::Degraded {
    let text = |k: &str| Reflect::get(e, &k.into()).ok().and_then(|c| c.as_string());
    crate::context::Degraded {
        code: text("code").unwrap_or_else(|| fallback.into()),
        message: text("message").or_else(|| e.as_string()).unwrap_or_else(|| format!("{e:?}")),
    }
}
