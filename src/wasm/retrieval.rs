//! `VectorIndex` and `Bm25Index` for JS: the retrieval engine's indexes,
//! standalone. Each method converts and delegates to `crate::retrieval`.
//!
//! Ids are JS numbers that must be safe non-negative integers (they become
//! the core's `u64` ids, and come back exactly). Vectors and results cross
//! as typed arrays, copied once each way: no JSON on the hot paths.
//! `search` returns `{ ids: Float64Array, scores: Float32Array }`, best
//! first: two copies and one small object, where an array of `{ id, score }`
//! objects would cost an allocation and two property writes per hit.

use js_sys::{Float32Array, Float64Array, JsString, Object, Reflect};
use serde::Deserialize;
use wasm_bindgen::prelude::*;

use super::js_error;
use super::options::read;
use crate::error::MemoryError;
use crate::retrieval as engine;

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
/** Hits of a search, best first: `ids[i]` scored `scores[i]`. */
export interface SearchHits {
  ids: Float64Array;
  scores: Float32Array;
}
/** `exact` scores every vector in f32 (recall 1.0); `int8` ranks by an int8
 *  copy first and rescores the best `k × oversample` (default 4) exactly. */
export interface VectorIndexOptions {
  mode?: "exact" | "int8";
  oversample?: number;
}
/** BM25 parameters: `k1` ≥ 0 (default 1.2), `b` in 0..1 (default 0.75). */
export interface Bm25IndexOptions {
  k1?: number;
  b?: number;
}
"#;

#[derive(Deserialize, Default, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum JsMode {
    #[default]
    Exact,
    Int8,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct JsVectorOptions {
    #[serde(default)]
    mode: JsMode,
    oversample: Option<u32>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct JsBm25Options {
    k1: Option<f32>,
    b: Option<f32>,
}

/// A JS number as a core id, or INVALID_INPUT.
fn id(x: f64) -> Result<u64, JsValue> {
    // 2^53 - 1: past it distinct ids would round to the same number.
    if (0.0..=9_007_199_254_740_991.0).contains(&x) && x.fract() == 0.0 {
        Ok(x as u64)
    } else {
        Err(js_error(MemoryError::input("id", format!("{x} is not a safe non-negative integer"))))
    }
}

/// A JS string as Rust text; anything else is INVALID_INPUT (taken as a
/// `JsValue`: a `&JsString` parameter given a number throws an opaque
/// "unwrap_throw" error). The copy turns a lone surrogate into U+FFFD, so
/// only text holding U+FFFD needs the slow exact check.
pub(super) fn text(s: &JsValue, what: &str) -> Result<String, JsValue> {
    let s = s.dyn_ref::<JsString>().ok_or_else(|| js_error(MemoryError::input(what, "expected a string")))?;
    let t = String::from(s);
    if t.contains('\u{FFFD}') && !s.is_valid_utf16() {
        return Err(js_error(MemoryError::LoneSurrogate(what.into())));
    }
    Ok(t)
}

fn hits(found: Vec<(u64, f32)>) -> JsValue {
    let ids: Vec<f64> = found.iter().map(|h| h.0 as f64).collect();
    let scores: Vec<f32> = found.iter().map(|h| h.1).collect();
    let out = Object::new();
    let _ = Reflect::set(&out, &"ids".into(), &Float64Array::from(&ids[..]));
    let _ = Reflect::set(&out, &"scores".into(), &Float32Array::from(&scores[..]));
    out.into()
}

/// Exact top-k cosine search over vectors keyed by numeric ids.
/// `new VectorIndex({ mode: "exact" | "int8", oversample? })`.
#[wasm_bindgen]
pub struct VectorIndex {
    inner: engine::VectorIndex,
}

#[wasm_bindgen]
impl VectorIndex {
    /// An empty index; the first vector fixes the dimension.
    ///
    /// Throws `INVALID_INPUT` for an unknown option, or `oversample` with `mode: "exact"`.
    #[wasm_bindgen(constructor)]
    pub fn new(#[wasm_bindgen(unchecked_optional_param_type = "VectorIndexOptions")] options: JsValue) -> Result<VectorIndex, JsValue> {
        let o: JsVectorOptions = read(&options, "options")?;
        let mode = match (o.mode, o.oversample) {
            (JsMode::Exact, None) => engine::VectorMode::Exact,
            (JsMode::Exact, Some(_)) => return Err(js_error(MemoryError::input("options.oversample", "applies to mode \"int8\" only"))),
            (JsMode::Int8, None) => engine::VectorMode::INT8,
            (JsMode::Int8, Some(oversample)) => engine::VectorMode::Int8 { oversample },
        };
        Ok(VectorIndex { inner: engine::VectorIndex::new(mode) })
    }

    /// Stores `vector` (normalized) under `id`, replacing any vector there.
    ///
    /// Throws `INVALID_INPUT` (id), `INVALID_VECTOR` (empty, NaN, ±∞, all
    /// zeros), `DIMENSION_MISMATCH`; nothing is stored then.
    pub fn add(
        &mut self,
        id: f64,
        #[wasm_bindgen(unchecked_param_type = "Float32Array | number[]")] vector: &[f32],
    ) -> Result<(), JsValue> {
        self.inner.add(self::id(id)?, vector).map_err(js_error)
    }

    /// Stores `ids.length` vectors laid end to end in `flat` (`ids[i]` gets
    /// `flat[i·dim .. (i+1)·dim]`), in one call across the boundary.
    ///
    /// Throws as `add`, or `INVALID_INPUT` if `flat.length` is not a multiple
    /// of `ids.length`; every vector is checked first, so nothing is stored then.
    #[wasm_bindgen(js_name = addMany)]
    pub fn add_many(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "Uint32Array | Float64Array | number[]")] ids: &[f64],
        #[wasm_bindgen(unchecked_param_type = "Float32Array")] flat: &[f32],
    ) -> Result<(), JsValue> {
        if ids.is_empty() || flat.len() % ids.len() != 0 {
            return match flat.is_empty() && ids.is_empty() {
                true => Ok(()),
                false => Err(js_error(MemoryError::input(
                    "flat",
                    format!("length {} is not a multiple of ids.length {}", flat.len(), ids.len()),
                ))),
            };
        }
        let dim = flat.len() / ids.len();
        let keys = ids.iter().map(|&x| id(x)).collect::<Result<Vec<u64>, _>>()?;
        // A search for k = 0 validates a vector exactly as `add` does and stores nothing.
        for v in flat.chunks_exact(dim) {
            self.inner.search(v, 0, |_| true).map_err(js_error)?;
        }
        let mut pairs = keys.into_iter().zip(flat.chunks_exact(dim));
        // Storage sized exactly, not by doubling. `reserve` is a no-op until
        // the first vector fixes the dimension, so it runs again after that.
        self.inner.reserve(ids.len());
        if let Some((key, v)) = pairs.next() {
            self.inner.add(key, v).map_err(js_error)?;
        }
        self.inner.reserve(ids.len() - 1);
        pairs.try_for_each(|(key, v)| self.inner.add(key, v)).map_err(js_error)
    }

    /// Removes the vector `id`; returns whether it was there.
    pub fn remove(&mut self, id: f64) -> Result<bool, JsValue> {
        Ok(self.inner.remove(self::id(id)?))
    }

    /// The `k` stored vectors most cosine-similar to `query`, best first.
    ///
    /// Throws as `add` for `query`.
    #[wasm_bindgen(unchecked_return_type = "SearchHits")]
    pub fn search(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Float32Array | number[]")] query: &[f32],
        k: u32,
    ) -> Result<JsValue, JsValue> {
        Ok(hits(self.inner.search(query, k as usize, |_| true).map_err(js_error)?))
    }

    /// Returns growth slack to the allocator (after many removals).
    #[wasm_bindgen(js_name = shrinkToFit)]
    pub fn shrink_to_fit(&mut self) {
        self.inner.shrink_to_fit()
    }

    /// Number of stored vectors.
    #[wasm_bindgen(getter)]
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// Bytes this index holds in wasm memory (from capacities).
    #[wasm_bindgen(getter, js_name = heapBytes)]
    pub fn heap_bytes(&self) -> f64 {
        self.inner.heap_bytes() as f64
    }
}

/// Okapi BM25 full-text search (CJK-aware) over texts keyed by numeric ids.
/// `new Bm25Index({ k1?, b? })`.
#[wasm_bindgen]
pub struct Bm25Index {
    inner: engine::Bm25Index,
}

#[wasm_bindgen]
impl Bm25Index {
    /// An empty index.
    ///
    /// Throws `INVALID_INPUT` for an unknown option, `k1` < 0 or `b` outside 0..1.
    #[wasm_bindgen(constructor)]
    pub fn new(#[wasm_bindgen(unchecked_optional_param_type = "Bm25IndexOptions")] options: JsValue) -> Result<Bm25Index, JsValue> {
        let o: JsBm25Options = read(&options, "options")?;
        let d = engine::Bm25Params::default();
        let params = engine::Bm25Params { k1: o.k1.unwrap_or(d.k1), b: o.b.unwrap_or(d.b) };
        Ok(Bm25Index { inner: engine::Bm25Index::with_params(params).map_err(js_error)? })
    }

    /// Indexes `text` under `id`, replacing any text there.
    ///
    /// Throws `INVALID_INPUT` (id) or `LONE_SURROGATE`; nothing changes then.
    pub fn add(&mut self, id: f64, #[wasm_bindgen(unchecked_param_type = "string")] text: JsValue) -> Result<(), JsValue> {
        let key = self::id(id)?;
        self.inner.add(key, &self::text(&text, "text")?);
        Ok(())
    }

    /// Removes the text `id`; returns whether it was there.
    pub fn remove(&mut self, id: f64) -> Result<bool, JsValue> {
        Ok(self.inner.remove(self::id(id)?))
    }

    /// The `k` best-scoring texts for `query`, best first.
    ///
    /// Throws `LONE_SURROGATE`.
    #[wasm_bindgen(unchecked_return_type = "SearchHits")]
    pub fn search(&self, #[wasm_bindgen(unchecked_param_type = "string")] query: JsValue, k: u32) -> Result<JsValue, JsValue> {
        Ok(hits(self.inner.search(&text(&query, "query")?, k as usize, |_| true)))
    }

    /// Returns growth slack to the allocator (after a bulk load or many removals).
    #[wasm_bindgen(js_name = shrinkToFit)]
    pub fn shrink_to_fit(&mut self) {
        self.inner.shrink_to_fit()
    }

    /// Number of indexed texts.
    #[wasm_bindgen(getter)]
    pub fn len(&self) -> usize {
        self.inner.len()
    }

    /// Bytes this index holds in wasm memory (from capacities).
    #[wasm_bindgen(getter, js_name = heapBytes)]
    pub fn heap_bytes(&self) -> f64 {
        self.inner.heap_bytes() as f64
    }
}
