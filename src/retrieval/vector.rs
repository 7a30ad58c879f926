//! Exact top-k cosine search over f32 vectors, with an optional int8 pass.
//!
//! Invariants, after every public call:
//! - every stored vector has the index's dimension (fixed by the first
//!   vector ever added, kept when the index empties) and unit length, so a
//!   dot product is the cosine;
//! - slots are dense: slot `s` owns `data[s·dim .. (s+1)·dim]` (and
//!   `codes[s·dim ..]`, `scales[s]` in int8 mode), `ids[s]` is its caller
//!   id and `slots[ids[s]] == s`;
//! - a call that returns an error has changed nothing.
//!
//! Int8 mode keeps, beside the f32 vector, a copy quantized with its own
//! scale (`max |x| / 127`). A query first ranks every vector by the int8
//! dot product (4× less memory traffic than f32), then rescores the best
//! `k × oversample` exactly in f32, so returned scores are exact cosines and
//! only the candidate set is approximate.

use super::hash::FxHashMap;
use super::kernels::{dot_f32, dot_i8};
use super::topk::TopK;
use crate::error::{MemoryError, Result};

/// How a [`VectorIndex`] ranks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VectorMode {
    /// Every stored vector scored in f32: recall 1.0.
    Exact,
    /// Candidates by int8 dot product, `k × oversample` of them (at least
    /// `k`) rescored in f32. Costs `dim + 4` more bytes per vector than
    /// `Exact`; faster where int8 SIMD is (wasm `simd128`), not in the
    /// portable scalar build.
    Int8 { oversample: u32 },
}

impl VectorMode {
    /// Int8 with 4× oversampling. On clustered 384-dim embeddings
    /// (`examples/bench_retrieval_oversample.rs`) recall@10 against exact
    /// was 0.978 / 0.982 at ×1 (10k / 100k vectors) and 1.000 from ×2 on;
    /// ×4 leaves room for real embeddings' closer near-ties, and rescoring
    /// 40 vectors instead of 20 costs microseconds.
    pub const INT8: VectorMode = VectorMode::Int8 { oversample: 4 };
}

/// A flat vector index keyed by caller-chosen `u64` ids.
#[derive(Clone, Debug)]
pub struct VectorIndex {
    mode: VectorMode,
    /// 0 until the first vector fixes it.
    dim: usize,
    data: Vec<f32>,
    ids: Vec<u64>,
    slots: FxHashMap<u64, u32>,
    /// Int8 mode only: quantized copies and their scales.
    codes: Vec<i8>,
    scales: Vec<f32>,
}

impl VectorIndex {
    pub fn new(mode: VectorMode) -> Self {
        VectorIndex { mode, dim: 0, data: Vec::new(), ids: Vec::new(), slots: FxHashMap::default(), codes: Vec::new(), scales: Vec::new() }
    }

    pub fn mode(&self) -> VectorMode {
        self.mode
    }

    /// The dimension, or `None` before the first vector.
    pub fn dim(&self) -> Option<usize> {
        (self.dim > 0).then_some(self.dim)
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    pub fn contains(&self, id: u64) -> bool {
        self.slots.contains_key(&id)
    }

    /// Stores `vector` (normalized) under `id`, replacing any vector there.
    ///
    /// # Errors
    /// `DIMENSION_MISMATCH` if the index already has another dimension;
    /// `INVALID_VECTOR` if `vector` is empty, holds NaN or ±∞, or is all
    /// zeros. Nothing is stored then.
    pub fn add(&mut self, id: u64, vector: &[f32]) -> Result<()> {
        let unit = self.normalized(vector)?;
        self.dim = unit.len();
        let d = self.dim;
        let slot = match self.slots.get(&id) {
            Some(&s) => s as usize,
            None => {
                let s = self.ids.len();
                self.ids.push(id);
                self.slots.insert(id, s as u32);
                self.data.resize((s + 1) * d, 0.0);
                if self.is_int8() {
                    self.codes.resize((s + 1) * d, 0);
                    self.scales.push(0.0);
                }
                s
            }
        };
        if let Some(dst) = self.data.get_mut(slot * d..(slot + 1) * d) {
            dst.copy_from_slice(&unit);
        }
        if let (true, Some(scale), Some(codes)) = (self.is_int8(), self.scales.get_mut(slot), self.codes.get_mut(slot * d..(slot + 1) * d))
        {
            *scale = quantize(&unit, codes);
        }
        Ok(())
    }

    /// Removes the vector `id`; returns whether it was there. The last slot
    /// moves into the hole, so storage stays contiguous.
    pub fn remove(&mut self, id: u64) -> bool {
        let Some(slot) = self.slots.remove(&id) else {
            return false;
        };
        let (s, last, d) = (slot as usize, self.ids.len() - 1, self.dim);
        if s != last {
            self.data.copy_within(last * d..(last + 1) * d, s * d);
            if self.is_int8() {
                self.codes.copy_within(last * d..(last + 1) * d, s * d);
            }
            if let Some(&moved) = self.ids.get(last) {
                self.slots.insert(moved, slot);
            }
        }
        self.ids.swap_remove(s);
        self.data.truncate(last * d);
        if self.is_int8() {
            self.scales.swap_remove(s);
            self.codes.truncate(last * d);
        }
        true
    }

    /// The `k` stored vectors most cosine-similar to `query` that `filter`
    /// accepts, best first, as `(id, cosine)`. `filter` runs only on
    /// vectors that would otherwise enter the (candidate) top k.
    ///
    /// # Errors
    /// As [`VectorIndex::add`] for `query`. An index with no vectors yet
    /// accepts any valid query and returns nothing.
    pub fn search(&self, query: &[f32], k: usize, filter: impl Fn(u64) -> bool) -> Result<Vec<(u64, f32)>> {
        let q = self.normalized(query)?;
        if k == 0 || self.ids.is_empty() {
            return Ok(Vec::new());
        }
        match self.mode {
            VectorMode::Exact => Ok(self.exact(&q, k, &filter)),
            VectorMode::Int8 { oversample } => Ok(self.two_pass(&q, k, oversample.max(1) as usize, &filter)),
        }
    }

    fn exact(&self, q: &[f32], k: usize, filter: &impl Fn(u64) -> bool) -> Vec<(u64, f32)> {
        let mut top = TopK::new(k);
        for (slot, (v, &id)) in self.data.chunks_exact(self.dim).zip(&self.ids).enumerate() {
            let score = dot_f32(q, v);
            // (equal scores, identical vectors: the first indexed first)
            if top.would_keep(score, slot as u64, id) && filter(id) {
                top.push(score, slot as u64, id);
            }
        }
        top.into_sorted()
    }

    fn two_pass(&self, q: &[f32], k: usize, oversample: usize, filter: &impl Fn(u64) -> bool) -> Vec<(u64, f32)> {
        let d = self.dim;
        let mut qc = vec![0i8; d];
        // The query's own scale is a common factor: it cannot change the order.
        quantize(q, &mut qc);
        // Candidates are keyed by slot; ties between equal approximate
        // scores break by slot, which only affects which near-ties get the
        // exact rescoring.
        let mut cand = TopK::new(k.saturating_mul(oversample));
        for (slot, (c, &scale)) in self.codes.chunks_exact(d).zip(&self.scales).enumerate() {
            let approx = dot_i8(&qc, c) as f32 * scale;
            if cand.would_keep(approx, 0, slot as u64) && self.ids.get(slot).is_some_and(|&id| filter(id)) {
                cand.push(approx, 0, slot as u64);
            }
        }
        let mut top = TopK::new(k);
        for (slot, _) in cand.into_sorted() {
            let s = slot as usize;
            if let (Some(v), Some(&id)) = (self.data.get(s * d..(s + 1) * d), self.ids.get(s)) {
                top.push(dot_f32(q, v), slot, id);
            }
        }
        top.into_sorted()
    }

    fn is_int8(&self) -> bool {
        matches!(self.mode, VectorMode::Int8 { .. })
    }

    /// Validates `v` against this index and returns it at unit length.
    fn normalized(&self, v: &[f32]) -> Result<Vec<f32>> {
        if v.is_empty() {
            return Err(invalid("vector is empty"));
        }
        if self.dim != 0 && v.len() != self.dim {
            return Err(MemoryError::DimensionMismatch { expected: self.dim, actual: v.len() });
        }
        if let Some((i, x)) = v.iter().enumerate().find(|(_, x)| !x.is_finite()) {
            return Err(invalid(format!("value at index {i} is {x}")));
        }
        // f64: the squares of large finite f32 values overflow f32.
        let norm = v.iter().map(|&x| x as f64 * x as f64).sum::<f64>().sqrt();
        if norm == 0.0 {
            return Err(invalid("vector has zero length"));
        }
        Ok(v.iter().map(|&x| (x as f64 / norm) as f32).collect())
    }

    /// Reserves room for `additional` more vectors of the current dimension
    /// (a no-op before the first vector fixes it), so a bulk load does not
    /// leave up to half of the storage as growth slack.
    pub fn reserve(&mut self, additional: usize) {
        let d = self.dim;
        self.data.reserve_exact(additional * d);
        self.ids.reserve_exact(additional);
        self.slots.reserve(additional);
        if self.is_int8() {
            self.codes.reserve_exact(additional * d);
            self.scales.reserve_exact(additional);
        }
    }

    /// Returns growth slack to the allocator (after a bulk load or many
    /// removals).
    pub fn shrink_to_fit(&mut self) {
        self.data.shrink_to_fit();
        self.ids.shrink_to_fit();
        self.slots.shrink_to_fit();
        self.codes.shrink_to_fit();
        self.scales.shrink_to_fit();
    }

    /// Bytes held on the heap, from capacities (hash map slots counted with
    /// their control bytes; allocator overhead not included).
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        self.data.capacity() * size_of::<f32>()
            + self.ids.capacity() * size_of::<u64>()
            + self.slots.capacity() * (size_of::<(u64, u32)>() + 1)
            + self.codes.capacity()
            + self.scales.capacity() * size_of::<f32>()
    }
}

/// Writes `round(x / scale)` into `out` and returns `scale = max|x| / 127`,
/// so codes stay in `-127..=127`.
fn quantize(v: &[f32], out: &mut [i8]) -> f32 {
    let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
    let scale = if max > 0.0 { max / 127.0 } else { 1.0 };
    for (o, &x) in out.iter_mut().zip(v) {
        *o = (x / scale).round().clamp(-127.0, 127.0) as i8;
    }
    scale
}

fn invalid(reason: impl Into<String>) -> MemoryError {
    MemoryError::InvalidVector { reason: reason.into() }
}
