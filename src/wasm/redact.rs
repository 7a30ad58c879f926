//! The `redact` option: the core's policy (`true`, `false`, `{ personal,
//! credentials }`), or the host's own function `(text) => string |
//! Promise<string>`, called on each text of a message or fact before it is
//! stored, in place of the built-in scanners. What it returns is stored;
//! the `[redacted:KIND]` placeholders it added are reported as ours are.
//! It fails closed: a throw, a rejection or a non-string rejects the call
//! with `REDACT_FAILED` (the thrown value as `cause`) and nothing is stored.
//! A search query is redacted the same way before it reaches the embedder.

use js_sys::{Function, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::controller::MemoryController;
use super::driver::spawn;
use super::js_error;
use crate::error::MemoryError;
use crate::message::Message;
use crate::redact::{count_new_placeholders, message_texts, Policy, Redacted};
use crate::semantic::RememberInput;

/// Who redacts: the core with a policy, or the host's function.
#[derive(Clone)]
pub enum Redactor {
    Core(Policy),
    Host(Function),
}

impl Redactor {
    /// The `redact` create option (taken off with the hooks).
    ///
    /// # Errors
    /// `INVALID_INPUT` for a value that is no policy and no function.
    pub fn from_js(value: JsValue) -> Result<Redactor, JsValue> {
        if let Some(f) = value.dyn_ref::<Function>() {
            return Ok(Redactor::Host(f.clone()));
        }
        let v = if value.is_undefined() { serde_json::Value::Null } else { super::from_js::<serde_json::Value>(&value, "options.redact")? };
        Policy::from_value(&v).map(Redactor::Core).map_err(js_error)
    }

    /// The policy the core applies itself (off when the host redacts).
    pub fn policy(&self) -> Policy {
        match self {
            Redactor::Core(p) => *p,
            Redactor::Host(_) => Policy::OFF,
        }
    }

    /// # Errors
    /// `REDACT_FAILED` (host function only).
    pub async fn message(&self, mut message: Message) -> Result<(Message, Redacted), JsValue> {
        let report = match self {
            Redactor::Core(p) => p.message(&mut message),
            Redactor::Host(f) => {
                let mut report = Redacted::new();
                for text in message_texts(&mut message) {
                    *text = host_text(f, text, &mut report).await?;
                }
                report
            }
        };
        Ok((message, report))
    }

    /// `text` as this redactor stores it, and what it redacted.
    ///
    /// # Errors
    /// `REDACT_FAILED` (host function only).
    pub async fn text(&self, text: &str) -> Result<(String, Redacted), JsValue> {
        let mut report = Redacted::new();
        let out = match self {
            Redactor::Core(p) => p.text(text, &mut report).unwrap_or_else(|| text.to_string()),
            Redactor::Host(f) => host_text(f, text, &mut report).await?,
        };
        Ok((out, report))
    }

    /// A search query as the embedder may see it.
    ///
    /// # Errors
    /// `REDACT_FAILED` (host function only).
    pub async fn query(&self, query: &str) -> Result<String, JsValue> {
        Ok(self.text(query).await?.0)
    }

    /// # Errors
    /// `REDACT_FAILED` (host function only).
    pub async fn remember(&self, mut input: RememberInput) -> Result<(RememberInput, Redacted), JsValue> {
        let report = match self {
            Redactor::Core(p) => p.remember(&mut input),
            Redactor::Host(f) => {
                let mut report = Redacted::new();
                input.text = host_text(f, &input.text, &mut report).await?;
                report
            }
        };
        Ok((input, report))
    }
}

async fn host_text(f: &Function, text: &str, report: &mut Redacted) -> Result<String, JsValue> {
    let got = match f.call1(&JsValue::NULL, &text.into()) {
        Ok(v) => JsFuture::from(Promise::resolve(&v)).await,
        Err(e) => Err(e),
    }
    .map_err(|e| failed(&e, "options.redact threw"))?;
    let out = got.as_string().ok_or_else(|| failed(&got, "options.redact returned no string"))?;
    count_new_placeholders(text, &out, report);
    Ok(out)
}

fn failed(cause: &JsValue, why: &str) -> JsValue {
    let reason = Reflect::get(cause, &"message".into()).ok().and_then(|m| m.as_string()).unwrap_or_default();
    let err = js_error(MemoryError::input("options.redact", format!("{why} {reason}").trim_end()));
    let _ = Reflect::set(&err, &"code".into(), &"REDACT_FAILED".into());
    let _ = Reflect::set(&err, &"cause".into(), cause);
    err
}

/// What is redacted, as kinds and counts, and the text.
#[derive(serde::Serialize)]
struct Out {
    text: String,
    redacted: Redacted,
}

#[wasm_bindgen]
impl MemoryController {
    /// `text` redacted as this controller redacts what it stores (its
    /// `redact` option: the built-in scanners or the host's function):
    /// `{ text, redacted }`. For text the app sends elsewhere: its logs, a
    /// reranker (the package's reranker hook gets queries through it).
    /// Not queued: it reads no memory.
    ///
    /// Rejects with `REDACT_FAILED` when the host's function fails.
    #[wasm_bindgen(unchecked_return_type = "Promise<{ text: string; redacted: Record<string, number> }>")]
    pub fn redact(&self, text: String) -> Result<js_sys::Promise, JsValue> {
        let redactor = self.driver.redactor.clone();
        Ok(spawn(Box::pin(async move {
            let (text, redacted) = redactor.text(&text).await?;
            super::to_js(&Out { text, redacted })
        })))
    }
}

/// `text` redacted by the built-in scanners, as `create({ redact: options })`
/// redacts what it stores: `{ text, redacted }` (kinds and counts). For a
/// host's own `redact` function that adds rules to the built-in ones, and
/// for redacting what the host logs. The module must be loaded (`ready()`).
///
/// Throws a `MemoryError` `INVALID_INPUT` for options other than `{
/// personal?, credentials? }` (or a boolean).
#[wasm_bindgen(js_name = redactText, unchecked_return_type = "{ text: string; redacted: Record<string, number> }")]
pub fn redact_text(
    text: String,
    #[wasm_bindgen(unchecked_optional_param_type = "boolean | { personal?: boolean; credentials?: boolean }")] options: JsValue,
) -> Result<JsValue, JsValue> {
    let policy = match Redactor::from_js(options)? {
        Redactor::Core(p) => p,
        Redactor::Host(_) => {
            return Err(js_error(MemoryError::input("redactText(options)", "expected { personal?, credentials? }, not a function")))
        }
    };
    let mut redacted = Redacted::new();
    let text = policy.text(&text, &mut redacted).unwrap_or(text);
    super::to_js(&Out { text, redacted })
}
