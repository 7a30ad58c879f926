//! Int8 recall@10 against exact search, by oversampling factor, on the
//! embedding-shaped data of `bench_retrieval` (10k and 100k × 384): the
//! measurement behind `VectorMode::INT8`'s default.
//!
//! `cargo run --release --example bench_retrieval_oversample`

use agent_memory::retrieval::{VectorIndex, VectorMode};

#[path = "../tests/support/embeddings.rs"]
mod embeddings;
use embeddings::{clustered, Rng};

fn main() {
    for n in [10_000, 100_000] {
        let mut rng = Rng(42);
        let clusters = (n / 200).max(50);
        let data = clustered(&mut rng, n + 200, 384, clusters);
        let (base, queries) = data.split_at(n);
        let mut exact = VectorIndex::new(VectorMode::Exact);
        for (i, v) in base.iter().enumerate() {
            exact.add(i as u64, v).unwrap();
        }
        let truth: Vec<Vec<u64>> = queries.iter().map(|q| exact.search(q, 10, |_| true).unwrap().iter().map(|h| h.0).collect()).collect();
        drop(exact);
        let mut line = format!("{n} × 384, {clusters} clusters: recall@10");
        for oversample in [1, 2, 3, 4, 8] {
            let mut idx = VectorIndex::new(VectorMode::Int8 { oversample });
            for (i, v) in base.iter().enumerate() {
                idx.add(i as u64, v).unwrap();
            }
            let found: usize = queries
                .iter()
                .zip(&truth)
                .map(|(q, t)| idx.search(q, 10, |_| true).unwrap().iter().filter(|h| t.contains(&h.0)).count())
                .sum();
            line += &format!("  ×{oversample}: {:.4}", found as f64 / (10 * queries.len()) as f64);
        }
        println!("{line}");
    }
}
