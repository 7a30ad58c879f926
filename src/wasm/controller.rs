//! `MemoryController` for JS: one-line delegations to the core controller.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use js_sys::{Function, Promise, Reflect};
use serde::Deserialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::{from_json, js_error, ranks, to_js, to_json};
use crate::context::ContextRequest;
use crate::controller::{Controller, Options};
use crate::cost::Usage;
use crate::error::MemoryError;
use crate::models::{ModelInfo, Tokenizer};
use crate::tokens::estimate::Family;
use crate::tokens::exact::Encoding;
use crate::tokens::Counter;
use crate::window::WindowConfig;

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct JsWorking {
    max_tokens: Option<usize>,
    compression_threshold: Option<f64>,
    target_ratio: Option<f64>,
    recent_messages: Option<usize>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct JsOptions {
    namespace: Option<String>,
    model: Option<String>,
    models: Option<BTreeMap<String, ModelInfo>>,
    working_memory: Option<JsWorking>,
    summary_tokens: Option<usize>,
    /// JSON.stringify drops a function, so a clock that arrives here is not one.
    #[serde(default)]
    clock: Option<Value>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct JsContextOptions {
    system: Option<String>,
    max_tokens: Option<usize>,
    reserve_output: Option<usize>,
    tools: Option<Vec<Value>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct JsUsage {
    model: Option<String>,
    prompt_tokens: u64,
    completion_tokens: Option<u64>,
    cached_prompt_tokens: Option<u64>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct JsBudgetOptions {
    prompt_tokens: Option<u64>,
    floor: Option<u64>,
}

fn core_options(js: JsOptions) -> Options {
    let d = Options::default();
    let w = js.working_memory.unwrap_or_default();
    let dw = WindowConfig::default();
    Options {
        namespace: js.namespace.unwrap_or(d.namespace),
        model: js.model.unwrap_or(d.model),
        models: js.models.unwrap_or_default().into_iter().collect(),
        working: WindowConfig {
            max_tokens: w.max_tokens.unwrap_or(dw.max_tokens),
            compression_threshold: w.compression_threshold.unwrap_or(dw.compression_threshold),
            target_ratio: w.target_ratio.unwrap_or(dw.target_ratio),
            recent_messages: w.recent_messages,
        },
        summary_tokens: js.summary_tokens.unwrap_or(d.summary_tokens),
    }
}

fn settle(result: Result<JsValue, JsValue>) -> Promise {
    match result {
        Ok(v) => Promise::resolve(&v),
        Err(e) => Promise::reject(&e),
    }
}

/// One conversation's memory. Create with `await MemoryController.create(options)`.
#[wasm_bindgen]
pub struct MemoryController {
    inner: Rc<RefCell<Controller>>,
    clock: Option<Function>,
}

#[wasm_bindgen]
impl MemoryController {
    /// Creates a controller; resolves once the model's tokenizer data is loaded.
    ///
    /// Rejects with a `MemoryError`: `UNKNOWN_MODEL`, `INVALID_INPUT`, `TOKENIZER_LOAD`.
    pub async fn create(#[wasm_bindgen(unchecked_optional_param_type = "CreateOptions")] options: JsValue) -> Result<MemoryController, JsValue> {
        let clock = Reflect::get(&options, &"clock".into()).ok().and_then(|c| c.dyn_into::<Function>().ok());
        let js: JsOptions = if options.is_undefined() || options.is_null() { JsOptions::default() } else { from_json(&to_json(&options, "options")?, "options")? };
        if js.clock.is_some() {
            return Err(js_error(MemoryError::input("options.clock", "expected a function returning milliseconds")));
        }
        let opts = core_options(js);
        let counter = match Controller::tokenizer_for(&opts.model, &opts.models).map_err(js_error)? {
            Tokenizer::O200kBase => Counter::Exact(ranks::load(Encoding::O200kBase).await?),
            Tokenizer::Cl100kBase => Counter::Exact(ranks::load(Encoding::Cl100kBase).await?),
            Tokenizer::Estimate => Counter::estimate(Family::of_model(&opts.model).profile()),
        };
        let inner = Controller::new(opts, counter).map_err(js_error)?;
        Ok(MemoryController { inner: Rc::new(RefCell::new(inner)), clock })
    }

    fn now(&self) -> f64 {
        match &self.clock {
            Some(f) => f.call0(&JsValue::NULL).ok().and_then(|v| v.as_f64()).unwrap_or(f64::NAN),
            None => js_sys::Date::now(),
        }
    }

    /// Adds one OpenAI-shaped message. Resolves to `{ id, tokens, compaction? }`.
    #[wasm_bindgen(unchecked_return_type = "Promise<AddResult>")]
    pub fn add(&self, #[wasm_bindgen(unchecked_param_type = "ChatMessage")] message: JsValue) -> Promise {
        let now = self.now();
        settle(to_json(&message, "message").and_then(|json| to_js(&self.inner.borrow_mut().add(&json, now).map_err(js_error)?)))
    }

    /// Every message ever added, in order, with id, timestamp and place.
    #[wasm_bindgen(unchecked_return_type = "Promise<HistoryItem[]>")]
    pub fn history(&self) -> Promise {
        settle(to_js(&self.inner.borrow().history()))
    }

    /// Episodes (summaries of archived ranges), oldest first.
    #[wasm_bindgen(unchecked_return_type = "Promise<Episode[]>")]
    pub fn episodes(&self) -> Promise {
        settle(to_js(&self.inner.borrow().episodes()))
    }

    /// The messages to send now, within `maxTokens - reserveOutput`.
    #[wasm_bindgen(js_name = buildContext, unchecked_return_type = "Promise<Context>")]
    pub fn build_context(&self, #[wasm_bindgen(unchecked_optional_param_type = "ContextOptions")] options: JsValue) -> Promise {
        settle(self.build_context_sync(options))
    }

    fn build_context_sync(&self, options: JsValue) -> Result<JsValue, JsValue> {
        let js: JsContextOptions = if options.is_undefined() || options.is_null() { JsContextOptions::default() } else { from_json(&to_json(&options, "options")?, "options")? };
        let mut inner = self.inner.borrow_mut();
        let req = ContextRequest {
            system: js.system,
            max_tokens: js.max_tokens.unwrap_or(inner.options().working.max_tokens),
            reserve_output: js.reserve_output.unwrap_or(0),
            tools: js.tools.unwrap_or_default(),
        };
        let ctx = inner.build_context(&req).map_err(js_error)?;
        let json = format!(
            "{{\"messages\":{},\"tokens\":{},\"sections\":{}}}",
            serde_json::to_string(&ctx.messages).map_err(|e| js_error(MemoryError::input("context", e.to_string())))?,
            ctx.tokens,
            serde_json::to_string(&ctx.sections).map_err(|e| js_error(MemoryError::input("context", e.to_string())))?
        );
        js_sys::JSON::parse(&json)
    }

    /// Tokens of `text` for this controller's model (exact for tiktoken models).
    #[wasm_bindgen(js_name = countTokens)]
    pub fn count_tokens(&self, text: &js_sys::JsString) -> Result<usize, JsValue> {
        if !text.is_valid_utf16() {
            return Err(js_error(MemoryError::LoneSurrogate("text".into())));
        }
        Ok(self.inner.borrow().count_tokens(&String::from(text)))
    }

    /// Tokens a chat request with these messages (and tool definitions) costs.
    #[wasm_bindgen(js_name = countMessages)]
    pub fn count_messages(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ChatMessage[]")] messages: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "ToolDefinition[]")] tools: JsValue,
    ) -> Result<usize, JsValue> {
        let messages: Vec<Value> = from_json(&to_json(&messages, "messages")?, "messages")?;
        let tools: Vec<Value> = if tools.is_undefined() || tools.is_null() { Vec::new() } else { from_json(&to_json(&tools, "tools")?, "tools")? };
        self.inner.borrow().count_messages(&messages, &tools).map_err(js_error)
    }

    /// Charges one call's reported usage; returns its cost in USD.
    #[wasm_bindgen(js_name = recordUsage)]
    pub fn record_usage(&self, #[wasm_bindgen(unchecked_param_type = "UsageRecord")] usage: JsValue) -> Result<f64, JsValue> {
        let u: JsUsage = from_json(&to_json(&usage, "usage")?, "usage")?;
        let mut inner = self.inner.borrow_mut();
        let model = u.model.unwrap_or_else(|| inner.options().model.clone());
        let usage = Usage { prompt_tokens: u.prompt_tokens, completion_tokens: u.completion_tokens.unwrap_or(0), cached_prompt_tokens: u.cached_prompt_tokens.unwrap_or(0) };
        inner.record_usage(&model, &usage).map_err(js_error)
    }

    /// The most output tokens `usdLeft` pays for after the last built prompt.
    /// Throws `BUDGET_EXHAUSTED` below `floor` (default 16).
    #[wasm_bindgen(js_name = budgetAwareMaxTokens)]
    #[allow(non_snake_case)] // parameter names are what the .d.ts shows
    pub fn budget_aware_max_tokens(
        &self,
        usdLeft: f64,
        model: Option<String>,
        #[wasm_bindgen(unchecked_optional_param_type = "{ promptTokens?: number; floor?: number }")] options: JsValue,
    ) -> Result<f64, JsValue> {
        let o: JsBudgetOptions = if options.is_undefined() || options.is_null() { JsBudgetOptions::default() } else { from_json(&to_json(&options, "options")?, "options")? };
        let n = self.inner.borrow().budget_aware_max_tokens(usdLeft, model.as_deref(), o.prompt_tokens, o.floor.unwrap_or(16)).map_err(js_error)?;
        Ok(n as f64)
    }

    /// Messages, tokens per layer, episodes and cost.
    #[wasm_bindgen(unchecked_return_type = "Stats")]
    pub fn stats(&self) -> Result<JsValue, JsValue> {
        to_js(&self.inner.borrow().stats())
    }

    /// Closes the controller; later calls fail with `CLOSED`.
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn close(&self) -> Promise {
        self.inner.borrow_mut().close();
        Promise::resolve(&JsValue::UNDEFINED)
    }
}
