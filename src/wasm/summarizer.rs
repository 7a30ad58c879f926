//! The host's summarizer hook: `(request) => Promise<string | { text, usage? } | { summary, ... }>`
//! for a summary, the same shapes (`{ merges, supersedes, profile }` as the object) for a consolidation,
//! raced against `summarizerTimeoutMs` (in `js/hooks/deadline.js`) so a hook that never settles cannot stall compaction.

use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::hook::failure;
use super::js_error;
use crate::context::Degraded;
use crate::controller::{ConsolidationRequest, SummaryRequest};
use crate::error::MemoryError;

#[derive(Clone)]
pub struct Summarizer {
    hook: Function,
}

/// What came back: the text to parse, and the usage to charge if reported;
/// or why nothing usable did (the episode records it).
#[derive(Default)]
pub struct Answer {
    pub text: Option<String>,
    pub usage: Option<(String, u64, u64)>,
    pub failure: Option<Degraded>,
}

fn failed(e: &JsValue) -> Answer {
    Answer { failure: Some(failure(e, "SUMMARIZER_FAILED")), ..Answer::default() }
}

impl Summarizer {
    pub fn from_js(v: JsValue) -> Result<Summarizer, JsValue> {
        let hook = v
            .dyn_into::<Function>()
            .map_err(|_| js_error(MemoryError::input("options.summarizer", "expected an async function (request) => summary")))?;
        Ok(Summarizer { hook })
    }

    /// Never fails: a throw (its `code`, else `SUMMARIZER_FAILED`), a
    /// timeout (`SUMMARIZER_TIMEOUT`) or an unusable value
    /// (`SUMMARIZER_INVALID`) is "no answer", and the core falls back to the
    /// offline summary.
    pub async fn summarize(&self, request: &SummaryRequest) -> Answer {
        self.ask(serde_json::to_string(request)).await
    }

    /// The same for a consolidation: the core reads the answer's text
    /// (`controller::consolidate`), a usable one or not.
    pub async fn consolidate(&self, request: &ConsolidationRequest) -> Answer {
        self.ask(serde_json::to_string(request)).await
    }

    /// Calls the hook with the request (its JSON text), one body for both
    /// kinds of request.
    async fn ask(&self, request: serde_json::Result<String>) -> Answer {
        let req = match request.map(|j| js_sys::JSON::parse(&j)) {
            Ok(Ok(req)) => req,
            _ => return Answer::default(),
        };
        let called = match self.hook.call1(&JsValue::NULL, &req) {
            Ok(called) => called,
            Err(e) => return failed(&e),
        };
        let got = match JsFuture::from(Promise::resolve(&called)).await {
            Ok(got) => got,
            Err(e) => return failed(&e),
        };
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
        let failure = text.is_none().then(|| Degraded {
            code: "SUMMARIZER_INVALID".into(),
            message: "the summarizer returned neither text nor a summary object".into(),
        });
        Answer { text, usage, failure }
    }
}
