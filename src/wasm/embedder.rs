//! The host's embedder hook: `(texts: string[], { kind }) => Promise<(Float32Array | number[])[]>`.
//! `kind` is "query" for a search query and "document" for what is stored,
//! so an asymmetric model (E5, BGE, Cohere, Voyage...) can embed each as it
//! was trained to; a one-argument function ignores it.

use js_sys::{Array, Float32Array, Function, Object, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use super::hook::failure;
use super::js_error;
use crate::error::MemoryError;

/// The hook, raced against `embedderTimeoutMs` (in `js/hooks/deadline.js`).
#[derive(Clone)]
pub struct Embedder(Function);

/// Why embedding did not happen; search degrades to lexical and says this.
pub type EmbedFailure = crate::context::Degraded;

impl Embedder {
    pub fn from_js(v: JsValue) -> Result<Embedder, JsValue> {
        v.dyn_into::<Function>()
            .map(Embedder)
            .map_err(|_| js_error(MemoryError::input("options.embedder", "expected an async function (texts) => vectors")))
    }

    /// Embeds `texts` as queries (`query`) or as stored documents.
    ///
    /// # Errors
    /// What the hook threw (its `code`, else `EMBEDDER_FAILED`),
    /// `EMBEDDER_TIMEOUT` past the timeout (from `js/hooks/deadline.js`), `EMBEDDER_INVALID` for vectors
    /// of the wrong shape.
    pub async fn embed(&self, texts: &[String], query: bool) -> Result<Vec<Vec<f32>>, EmbedFailure> {
        let fail = |e: JsValue| failure(&e, "EMBEDDER_FAILED");
        let input: Array = texts.iter().map(|t| JsValue::from_str(t)).collect();
        let how = Object::new();
        let _ = Reflect::set(&how, &"kind".into(), &(if query { "query" } else { "document" }).into());
        let called = self.0.call2(&JsValue::NULL, &input, &how).map_err(fail)?;
        let got = JsFuture::from(Promise::resolve(&called)).await.map_err(fail)?;
        let invalid = |why: &str| EmbedFailure { code: "EMBEDDER_INVALID".into(), message: why.into() };
        let rows: Array = got.dyn_into().map_err(|_| invalid("the embedder did not return an array"))?;
        let mut out = Vec::with_capacity(rows.length() as usize);
        for row in rows.iter() {
            let v = if let Some(f) = row.dyn_ref::<Float32Array>() {
                f.to_vec()
            } else if let Some(a) = row.dyn_ref::<Array>() {
                a.iter()
                    .map(|x| x.as_f64().map(|n| n as f32))
                    .collect::<Option<Vec<f32>>>()
                    .ok_or_else(|| invalid("a vector holds a non-number"))?
            } else {
                return Err(invalid("each vector must be a Float32Array or an array of numbers"));
            };
            out.push(v);
        }
        Ok(out)
    }
}
