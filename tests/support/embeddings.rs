//! Seeded synthetic data for the retrieval tests and benchmarks (included
//! with `#[path]` by tests/retrieval.rs and examples/bench_retrieval*.rs, so
//! the test and the measurements use the very same data shape).
#![allow(dead_code)]

/// SplitMix64: a seeded, dependency-free PRNG.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    pub fn gauss(&mut self) -> f32 {
        let (u, v) = (self.unit().max(1e-12), self.unit());
        ((-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()) as f32
    }
    pub fn vector(&mut self, dim: usize) -> Vec<f32> {
        (0..dim).map(|_| self.gauss()).collect()
    }
}

/// Embedding-shaped data: `0.5·m + c + 0.8·g/√d` with a shared mean
/// direction `m`, one of `clusters` random unit centres `c` and Gaussian
/// noise `g`: cosine to the own centre ≈ 0.8, within a cluster ≈ 0.6,
/// across clusters ≈ 0.2, as in typical sentence-embedding spaces (uniform
/// random vectors would make every top-10 a near tie).
pub fn clustered(rng: &mut Rng, n: usize, dim: usize, clusters: usize) -> Vec<Vec<f32>> {
    let unit = |rng: &mut Rng| {
        let v = rng.vector(dim);
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
