//! Shared by the integration tests: counters built the way the package
//! builds them (from the compact asset), with ranks taken from tiktoken-rs.
#![allow(dead_code)]

pub mod storage;

use std::rc::Rc;
use std::sync::OnceLock;

use agent_memory::message::Message;
use agent_memory::models::MODELS;
use agent_memory::tokens::chat::request_tokens;
use agent_memory::tokens::estimate::Family;
use agent_memory::tokens::exact::{asset::write_asset, Bpe, Encoding};
use agent_memory::tokens::Counter;
use agent_memory::Options;

/// Token byte strings in rank order, from the reference implementation.
fn reference_tokens(encoding: Encoding) -> Vec<Vec<u8>> {
    let bpe = match encoding {
        Encoding::O200kBase => tiktoken_rs::o200k_base().unwrap(),
        Encoding::Cl100kBase => tiktoken_rs::cl100k_base().unwrap(),
    };
    let n = match encoding {
        Encoding::O200kBase => 199_998,
        Encoding::Cl100kBase => 100_256,
    };
    (0..n).map(|r| bpe.decode_bytes(&[r]).unwrap()).collect()
}

pub fn asset(encoding: Encoding) -> &'static [u8] {
    static O200K: OnceLock<Vec<u8>> = OnceLock::new();
    static CL100K: OnceLock<Vec<u8>> = OnceLock::new();
    let cell = match encoding {
        Encoding::O200kBase => &O200K,
        Encoding::Cl100kBase => &CL100K,
    };
    cell.get_or_init(|| write_asset(encoding, reference_tokens(encoding)).unwrap())
}

pub fn bpe(encoding: Encoding) -> Rc<Bpe> {
    Rc::new(Bpe::from_asset(encoding, asset(encoding)).unwrap())
}

pub fn o200k() -> Counter {
    Counter::Exact(bpe(Encoding::O200kBase))
}

pub fn estimator() -> Counter {
    Counter::estimate(Family::Claude.profile())
}

/// Options for a model that uses the exact o200k counter, or one that estimates.
pub fn options(exact: bool) -> Options {
    let model = if exact { "gpt-4o" } else { "claude-sonnet-4.5" };
    assert!(MODELS.iter().any(|(n, _)| *n == model));
    Options { model: model.into(), ..Options::default() }
}

pub fn recount(counter: &Counter, messages: &[Message]) -> usize {
    request_tokens(counter, messages, &[])
}
