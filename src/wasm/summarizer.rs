//! The host's summarizer hook: `(request) => Promise<string | { text, usage? } | { summary, ... }>`,
//! raced against a timeout so a hook that never settles cannot stall compaction.

use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::js_error;
use crate::controller::SummaryRequest;
use crate::error::MemoryError;

#[derive(Clone)]
pub struct Summarizer {
    hook: Function,
    timeout_ms: f64,
}

/// What came back: the text to parse, and the usage to charge if reported.
pub struct Answer {
    pub text: Option<String>,
    pub usage: Option<(String, u64, u64)>,
}

fn global_fn(name: &str) -> Option<Function> {
    Reflect::get(&js_sys::global(), &name.into()).ok().and_then(|f| f.dyn_into().ok())
}

/// A promise that rejects after `ms` (the runtime's setTimeout; no eval,
/// which Workers forbid), and the timer id so it can be cleared.
fn timeout(ms: f64) -> (Promise, JsValue) {
    let mut id = JsValue::UNDEFINED;
    let promise = Promise::new(&mut |_, reject| {
        if let Some(set_timeout) = global_fn("setTimeout") {
            let err = js_error(MemoryError::input("summarizer", format!("no answer within {ms} ms")));
            let fire = Closure::once_into_js(move || {
                let _ = reject.call1(&JsValue::NULL, &err);
            });
            id = set_timeout.call2(&JsValue::NULL, &fire, &ms.into()).unwrap_or(JsValue::UNDEFINED);
        }
    });
    (promise, id)
}

impl Summarizer {
    pub fn from_js(v: JsValue, timeout_ms: f64) -> Result<Summarizer, JsValue> {
        let hook = v.dyn_into::<Function>().map_err(|_| js_error(MemoryError::input("options.summarizer", "expected an async function (request) => summary")))?;
        Ok(Summarizer { hook, timeout_ms })
    }

    /// Never fails: a throw, a timeout or an unusable value is "no answer",
    /// and the core falls back to the offline summary.
    pub async fn summarize(&self, request: &SummaryRequest) -> Answer {
        let none = Answer { text: None, usage: None };
        let Ok(req) = serde_json::to_string(request).map(|j| js_sys::JSON::parse(&j)) else { return none };
        let Ok(req) = req else { return none };
        let Ok(called) = self.hook.call1(&JsValue::NULL, &req) else { return none };
        let (timer, id) = timeout(self.timeout_ms);
        let race = Promise::race(&js_sys::Array::of2(&Promise::resolve(&called), &timer));
        let settled = JsFuture::from(race).await;
        // A pending timer would keep Node's event loop (and a test run) alive.
        if let Some(clear) = global_fn("clearTimeout") {
            let _ = clear.call1(&JsValue::NULL, &id);
        }
        let Ok(got) = settled else { return none };
        let usage = Reflect::get(&got, &"usage".into()).ok().filter(|u| u.is_object()).and_then(|u| {
            let num = |k: &str| Reflect::get(&u, &k.into()).ok().and_then(|v| v.as_f64()).unwrap_or(0.0) as u64;
            let model = Reflect::get(&u, &"model".into()).ok().and_then(|m| m.as_string())?;
            Some((model, num("promptTokens"), num("completionTokens")))
        });
        let text = if let Some(s) = got.as_string() {
            Some(s)
        } else if let Some(t) = Reflect::get(&got, &"text".into()).ok().and_then(|t| t.as_string()) {
            Some(t)
        } else if got.is_object() {
            // A summary object ({ summary, keyPoints, ... }): the core reads it as JSON.
            js_sys::JSON::stringify(&got).ok().and_then(|s| s.as_string())
        } else {
            None
        };
        Answer { text, usage }
    }
}
