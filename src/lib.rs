//! agent-memory: a memory controller for LLM chat apps and agents.
//!
//! The core is pure and synchronous: it never awaits and never touches JS.
//! Work that needs IO is planned by the core and driven by the wasm layer
//! (`src/wasm/`), which only converts types and delegates.
//!
//! No panic is reachable from input: with `panic = "abort"` a panic traps the
//! one wasm instance every controller of a page or isolate shares. Outside
//! tests, `unwrap`, `expect` and unchecked indexing are denied; the few left
//! carry an `#[allow]` with the invariant that makes them unable to fail.
#![cfg_attr(not(test), deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing))]

pub mod context;
pub mod controller;
pub mod cost;
pub mod durable;
pub mod episodic;
pub mod error;
mod json;
mod lowercase;
pub mod message;
pub mod models;
pub mod origin;
pub mod procedural;
pub mod redact;
pub mod retrieval;
pub mod semantic;
mod sort;
pub mod store;
pub mod summary;
pub mod tokens;
pub mod usage;
pub mod window;
pub mod wire;
pub mod write_path;

pub use controller::{Controller, Options};
pub use error::{MemoryError, Result};

#[cfg(target_arch = "wasm32")]
mod wasm;

#[cfg(test)]
mod typescript;
