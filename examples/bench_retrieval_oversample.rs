//! Int8 recall@10 against exact search, by oversampling factor, on the
//! embedding-shaped data of `bench_retrieval` (10k and 100k × 384): the
//! measurement behind `VectorMode::INT8`'s default.
//!
//! `cargo run --release --example bench_retrieval_oversample`

use agent_memory::retrieval::{VectorIndex, VectorMode};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn gauss(&mut self) -> f32 {
        let u = ((self.next() >> 11) as f64 / (1u64 << 53) as f64).max(1e-12);
        let v = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        ((-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()) as f32
    }
}

/// Same shape as `bench_retrieval`: `0.5·m + c + 0.8·g/√d`.
fn clustered(rng: &mut Rng, n: usize, dim: usize, clusters: usize) -> Vec<Vec<f32>> {
    let unit = |rng: &mut Rng| {
        let v: Vec<f32> = (0..dim).map(|_| rng.gauss()).collect();
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.into_iter().map(|x| x / norm).collect::<Vec<f32>>()
    };
    let mean = unit(rng);
    let centres: Vec<Vec<f32>> = (0..clusters).map(|_| unit(rng)).collect();
    let s = 0.8 / (dim as f32).sqrt();
    (0..n)
        .map(|_| {
            let c = &centres[rng.below(clusters)];
            (0..dim).map(|i| 0.5 * mean[i] + c[i] + s * rng.gauss()).collect()
        })
        .collect()
}

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
        let truth: Vec<Vec<u64>> =
            queries.iter().map(|q| exact.search(q, 10, |_| true).unwrap().iter().map(|h| h.0).collect()).collect();
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
