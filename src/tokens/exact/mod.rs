//! Exact token counts for tiktoken's `o200k_base` and `cl100k_base`, with the
//! rank data supplied at run time as a compact asset (see [`asset`]).
//!
//! Invariants:
//! - `Bpe::encode(text)` equals tiktoken-rs `encode_ordinary(text)` for every
//!   text, and `Bpe::count(text) == encode(text).len()`. Special-token text such
//!   as `<|endoftext|>` is ordinary text.
//! - No regex engine: `pretokenize` splits text exactly as the encodings'
//!   patterns do, with the character classes of Unicode 16.0 (`unicode`), the
//!   version of the regex crate the reference runs on. A character assigned in
//!   a later Unicode version is "other" here, as it is in the reference.
//! - A `Bpe` is immutable after `from_asset` except for merge buffers and a
//!   bounded piece-count cache (about 1.3 MB at most), behind a `RefCell` so
//!   `count` takes `&self`; it is therefore not `Sync`.
//!
//! Pipeline for one piece: one byte → 1 token; the whole piece is a token →
//! 1; a cached multi-token piece → its cached count; else the BPE merge
//! (`merge`), whose count is then cached.

pub mod asset;
mod cache;
mod merge;
mod pretokenize;
mod table;
mod unicode;

use std::cell::RefCell;

use crate::error::MemoryError;
use cache::PieceCache;
use merge::Scratch;
use table::{RankTable, NO_RANK};

/// A tiktoken encoding the exact counter supports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// GPT-4o, GPT-4.1, GPT-5, o-series.
    O200kBase,
    /// GPT-4, GPT-3.5-turbo, text-embedding-3.
    Cl100kBase,
}

impl Encoding {
    /// The tiktoken name: `"o200k_base"` or `"cl100k_base"`.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::O200kBase => "o200k_base",
            Encoding::Cl100kBase => "cl100k_base",
        }
    }

    /// The encoding called `s` (a tiktoken name).
    ///
    /// # Errors
    /// `UnknownEncoding` for any other name.
    pub fn from_name(s: &str) -> crate::Result<Encoding> {
        match s {
            "o200k_base" => Ok(Encoding::O200kBase),
            "cl100k_base" => Ok(Encoding::Cl100kBase),
            _ => Err(MemoryError::UnknownEncoding(s.to_string())),
        }
    }

    /// The pre-tokenizer pieces of `text`: the matches of this encoding's
    /// tiktoken regex, in order. They concatenate to `text`; BPE never merges
    /// across them.
    pub fn pieces(self, text: &str) -> impl Iterator<Item = &str> {
        pretokenize::pieces(text, self.splitter())
    }

    fn splitter(self) -> fn(&[u8], usize) -> usize {
        match self {
            Encoding::O200kBase => pretokenize::next_o200k,
            Encoding::Cl100kBase => pretokenize::next_cl100k,
        }
    }
}

/// An exact byte-pair-encoding token counter for one encoding.
pub struct Bpe {
    encoding: Encoding,
    table: RankTable,
    state: RefCell<State>,
}

/// Mutable working state behind `&self`: merge buffers and the count cache.
#[derive(Default)]
struct State {
    scratch: Scratch,
    cache: PieceCache,
}

impl Bpe {
    /// Builds the tokenizer from the uncompressed asset bytes.
    ///
    /// # Errors
    /// `InvalidTokenizerData` for malformed or truncated data, data written for
    /// another encoding, a repeated token, or a missing single-byte token.
    pub fn from_asset(encoding: Encoding, asset: &[u8]) -> crate::Result<Bpe> {
        let vocab = asset::read_asset(encoding, asset)?;
        let table = RankTable::build(vocab)
            .map_err(|reason| MemoryError::InvalidTokenizerData { encoding: encoding.name().to_string(), reason })?;
        Ok(Bpe { encoding, table, state: RefCell::default() })
    }

    /// The encoding this tokenizer implements.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// Number of tokens tiktoken's `encode_ordinary` would produce for `text`.
    pub fn count(&self, text: &str) -> usize {
        match self.encoding {
            Encoding::O200kBase => self.count_with(text, pretokenize::next_o200k),
            Encoding::Cl100kBase => self.count_with(text, pretokenize::next_cl100k),
        }
    }

    /// Monomorphized per splitter so the piece loop inlines it.
    #[inline(always)]
    fn count_with(&self, text: &str, next: impl Fn(&[u8], usize) -> usize) -> usize {
        let s = text.as_bytes();
        let mut state = self.state.borrow_mut();
        let State { scratch, cache } = &mut *state;
        let (mut p, mut n) = (0, 0);
        while p < s.len() {
            let e = next(s, p);
            let Some(piece) = s.get(p..e) else { break };
            p = e;
            n += if piece.len() == 1 || self.table.rank(piece) != NO_RANK {
                1
            } else if let Some(c) = cache.get(piece) {
                c as usize
            } else {
                let c = merge::count(&self.table, piece, scratch);
                cache.insert(piece, c);
                c
            };
        }
        n
    }

    /// Token ids, the same as tiktoken-rs `encode_ordinary(text)`.
    pub fn encode(&self, text: &str) -> Vec<u32> {
        let mut out = Vec::with_capacity(text.len() / 3);
        let mut state = self.state.borrow_mut();
        for piece in pretokenize::pieces(text, self.encoding.splitter()) {
            let piece = piece.as_bytes();
            let r = self.table.rank(piece);
            if r != NO_RANK {
                out.push(r);
            } else {
                merge::merge(&self.table, piece, &mut state.scratch, |part| out.push(self.table.rank(part)));
            }
        }
        out
    }

    /// Bytes of heap this tokenizer holds: rank data, tables, cache, buffers.
    pub fn heap_bytes(&self) -> usize {
        let state = self.state.borrow();
        self.table.heap_bytes() + state.scratch.heap_bytes() + state.cache.heap_bytes()
    }
}

impl std::fmt::Debug for Bpe {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bpe").field("encoding", &self.encoding).finish_non_exhaustive()
    }
}
