//! Token counting: exact BPE for tiktoken encodings, a script-aware estimator
//! for everything else.

pub mod exact;
