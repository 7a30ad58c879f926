//! The retrieval engine: a lexical index (BM25 over a CJK-aware analyzer),
//! an exact vector index (cosine, optional int8 first pass) and reciprocal
//! rank fusion of the two. Semantic and episodic memory rank with it.
//!
//! Invariants shared by every index here:
//! - pure and synchronous: no IO, no clock, no randomness; the same calls
//!   in the same order give the same results, bit for bit on one target;
//! - documents are keyed by caller-chosen `u64` ids; `add` with an id
//!   already present replaces that document; `remove` of an absent id is a
//!   no-op that returns `false`;
//! - a search returns at most `k` `(id, score)` pairs, best first, ties
//!   broken by ascending id, and never an id the caller's filter rejected;
//! - a call that returns an error has changed nothing.
//!
//! Filters are plain `Fn(u64) -> bool`: the metadata they test (kind, tags,
//! namespace, time) lives in the memory layer, which owns the ids. They run
//! lazily, only on documents that would enter the top k.
//!
//! Usage (kept true by `module_doc_example` in `tests/retrieval.rs`; a
//! doctest cannot link against the release profile's `panic = "abort"`):
//!
//! ```text
//! use agent_memory::retrieval::{Bm25Index, VectorIndex, VectorMode, hybrid_search, HybridParams};
//! let mut words = Bm25Index::new();
//! words.add(1, "我的航班是 CA1234，周五早上 8 点起飞");
//! words.add(2, "The deployment script lives in deploy_prod.sh");
//! let hits = words.search("航班几点起飞", 5, |_| true);
//! assert_eq!(hits[0].0, 1);
//!
//! let mut vecs = VectorIndex::new(VectorMode::Exact);
//! vecs.add(1, &[1.0, 0.0, 0.2]).unwrap();
//! vecs.add(2, &[0.0, 1.0, 0.0]).unwrap();
//! let fused = hybrid_search(&words, &vecs, "deploy script", Some(&[0.1, 0.9, 0.0]), 2,
//!                           HybridParams::default(), |_| true).unwrap();
//! assert_eq!(fused[0].0, 2);
//! ```

mod analyzer;
mod bm25;
mod centre;
pub mod frozen;
pub(crate) mod hash;
mod hybrid;
mod kernels;
pub mod terms;
mod topk;
mod vector;

pub(crate) use analyzer::is_unspaced;
pub use analyzer::{analyze, MAX_TERM_BYTES};
pub use bm25::{Bm25Index, Bm25Params};
pub use centre::{script_of, Centres};
pub use frozen::{FrozenBuilder, FrozenIndex};
pub use hybrid::{hybrid_search, rrf, HybridParams};
pub use vector::{VectorIndex, VectorMode};
