//! Option objects as JS passes them, and their mapping to core types.
//! Hooks (functions, adapters) are taken off the object before it is read
//! as JSON: JSON.stringify would drop a function and may throw on a binding.

use std::collections::BTreeMap;

use js_sys::{Object, Reflect};
use serde::Deserialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::{from_json, to_json};
use crate::controller::Options;
use crate::models::ModelInfo;
use crate::window::WindowConfig;

/// Option names that hold hooks, not data.
const HOOKS: &[&str] = &["clock", "storage", "embedder"];

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
pub struct JsOptions {
    namespace: Option<String>,
    model: Option<String>,
    models: Option<BTreeMap<String, ModelInfo>>,
    working_memory: Option<JsWorking>,
    summary_tokens: Option<usize>,
    fold_after: Option<usize>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct JsContextOptions {
    pub system: Option<String>,
    pub max_tokens: Option<usize>,
    pub reserve_output: Option<usize>,
    pub tools: Option<Vec<Value>>,
    pub query: Option<String>,
    pub semantic_tokens: Option<usize>,
    pub preference_tokens: Option<usize>,
    pub task_id: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct JsUsage {
    pub model: Option<String>,
    pub prompt_tokens: u64,
    pub completion_tokens: Option<u64>,
    pub cached_prompt_tokens: Option<u64>,
}

/// `forget` accepts a message id, `{ id }`, `{ from, to }` or `{ namespace: true }`.
#[derive(Deserialize)]
#[serde(untagged, deny_unknown_fields)]
pub enum JsForget {
    Id(String),
    Message { id: String },
    Range { from: f64, to: f64 },
    Namespace { namespace: bool },
    Fact { key: String },
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct JsBudgetOptions {
    pub prompt_tokens: Option<u64>,
    pub floor: Option<u64>,
}

/// Reads an optional options object of type `T` (undefined/null → default).
pub fn read<T: serde::de::DeserializeOwned + Default>(value: &JsValue, what: &str) -> Result<T, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(T::default());
    }
    from_json(&to_json(value, what)?, what)
}

/// Splits create options into data and the hook values.
pub fn split_hooks(options: &JsValue) -> Result<(JsValue, Vec<JsValue>), JsValue> {
    if options.is_undefined() || options.is_null() {
        return Ok((JsValue::UNDEFINED, HOOKS.iter().map(|_| JsValue::UNDEFINED).collect()));
    }
    let data: Object = Object::assign(&Object::new(), &options.clone().dyn_into::<Object>().map_err(|_| super::js_error(crate::error::MemoryError::input("options", "expected an object")))?);
    let mut hooks = Vec::new();
    for h in HOOKS {
        hooks.push(Reflect::get(&data, &(*h).into())?);
        Reflect::delete_property(&data, &(*h).into())?;
    }
    Ok((data.into(), hooks))
}

/// Core options; `writer` identifies this instance in storage.
pub fn core_options(js: JsOptions, writer: String) -> Options {
    let d = Options::default();
    let w = js.working_memory.unwrap_or_default();
    let dw = WindowConfig::default();
    Options {
        namespace: js.namespace.unwrap_or(d.namespace),
        writer,
        model: js.model.unwrap_or(d.model),
        models: js.models.unwrap_or_default().into_iter().collect(),
        working: WindowConfig {
            max_tokens: w.max_tokens.unwrap_or(dw.max_tokens),
            compression_threshold: w.compression_threshold.unwrap_or(dw.compression_threshold),
            target_ratio: w.target_ratio.unwrap_or(dw.target_ratio),
            recent_messages: w.recent_messages,
        },
        summary_tokens: js.summary_tokens.unwrap_or(d.summary_tokens),
        fold_after: js.fold_after.unwrap_or(d.fold_after),
    }
}
