//! Native numbers for the retrieval engine (the wasm side is measured by
//! `bench/`): BM25 build time, memory per document and query latency at
//! 100k chat-sized documents; vector top-10 latency and memory at 10k and
//! 100k × 384 dims, exact and int8, with int8 recall against exact.
//!
//! `cargo run --release --example bench_retrieval [-- --quick]`
//!
//! Documents are stitched from 1–3 random turns of the same language of
//! `tests/fixtures/retrieval/turns.jsonl` plus, half the time, a random
//! order number, so 100k documents reuse a 3k-turn vocabulary: postings are
//! longer than in real chat, which makes these latencies pessimistic.
//! Queries are the fixture's 224 queries (112 Chinese, 112 English).
//! Vectors are clustered like sentence embeddings (shared mean direction +
//! cluster centre + Gaussian noise), queries drawn the same way.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering::Relaxed};
use std::time::Instant;

use agent_memory::retrieval::{Bm25Index, VectorIndex, VectorMode};

/// Counts live heap bytes, so "memory per document" is measured, not estimated.
struct Counting;
static LIVE: AtomicIsize = AtomicIsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        LIVE.fetch_add(l.size() as isize, Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size() as isize, Relaxed);
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        LIVE.fetch_add(new as isize - l.size() as isize, Relaxed);
        unsafe { System.realloc(p, l, new) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

#[path = "../tests/support/embeddings.rs"]
mod embeddings;
use embeddings::{clustered, Rng};

fn fixture(name: &str) -> Vec<serde_json::Value> {
    let path = format!("{}/tests/fixtures/retrieval/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(path).expect("fixture");
    text.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    bm25(if quick { 20_000 } else { 100_000 });
    for n in if quick { vec![10_000] } else { vec![10_000, 100_000] } {
        vectors(n, 384);
    }
}

fn bm25(n_docs: usize) {
    let turns = fixture("turns.jsonl");
    let by_lang = |lang: &str| -> Vec<String> {
        turns.iter().filter(|t| t["lang"] == lang).map(|t| t["text"].as_str().unwrap().to_string()).collect()
    };
    let (zh, en) = (by_lang("zh"), by_lang("en"));
    let mut rng = Rng(7);
    let docs: Vec<String> = (0..n_docs)
        .map(|i| {
            let pool = if i % 2 == 0 { &zh } else { &en };
            let mut d = String::new();
            for _ in 0..1 + rng.below(3) {
                d.push_str(&pool[rng.below(pool.len())]);
                d.push(' ');
            }
            if rng.below(2) == 0 {
                d.push_str(&format!("#{}", rng.below(1_000_000)));
            }
            d
        })
        .collect();
    let chars: usize = docs.iter().map(|d| d.chars().count()).sum();

    let before = LIVE.load(Relaxed);
    let t = Instant::now();
    let mut index = Bm25Index::new();
    for (i, d) in docs.iter().enumerate() {
        index.add(i as u64, d);
    }
    let build = t.elapsed().as_secs_f64();
    let live = (LIVE.load(Relaxed) - before) as f64;
    index.shrink_to_fit();
    let shrunk = (LIVE.load(Relaxed) - before) as f64;
    println!("BM25, {n_docs} docs (avg {:.0} chars), vocabulary {}", chars as f64 / n_docs as f64, index.vocabulary_len());
    println!("  build {:.2} s ({:.1} µs/doc)", build, build * 1e6 / n_docs as f64);
    println!(
        "  memory {:.0} B/doc as built ({:.1} MB), {:.0} B/doc after shrink_to_fit ({:.1} MB)",
        live / n_docs as f64,
        live / 1e6,
        shrunk / n_docs as f64,
        shrunk / 1e6
    );

    // Each query runs 5 times; the per-query minimum filters out the
    // scheduler noise of a shared machine, while the spread across queries
    // (long postings vs short) is what p99 should show. Both are printed.
    let queries = fixture("queries.jsonl");
    for lang in ["en", "zh"] {
        let (mut all, mut best) = (Vec::new(), Vec::new());
        for q in queries.iter().filter(|q| q["lang"] == lang) {
            let mut min = f64::MAX;
            for _ in 0..5 {
                let t = Instant::now();
                let hits = index.search(q["query"].as_str().unwrap(), 10, |_| true);
                let ms = t.elapsed().as_secs_f64() * 1e3;
                std::hint::black_box(hits);
                all.push(ms);
                min = min.min(ms);
            }
            best.push(min);
        }
        all.sort_by(f64::total_cmp);
        best.sort_by(f64::total_cmp);
        println!(
            "  {lang} query top-10: p50 {:.3} ms, p99 {:.3} ms (best of 5 per query); all {} runs: p50 {:.3}, p99 {:.3}, max {:.3} ms",
            percentile(&best, 0.5),
            percentile(&best, 0.99),
            all.len(),
            percentile(&all, 0.5),
            percentile(&all, 0.99),
            all[all.len() - 1]
        );
    }

    // Churn: replace 1% of the documents (remove + add under new ids).
    let churn = n_docs / 100;
    let t = Instant::now();
    for i in 0..churn {
        let victim = (i * 97) % n_docs;
        index.remove(victim as u64);
        index.add((n_docs + i) as u64, &docs[victim]);
    }
    println!("  churn: remove + add {:.1} µs per document", t.elapsed().as_secs_f64() * 1e6 / churn as f64);
}

fn vectors(n: usize, dim: usize) {
    let mut rng = Rng(42);
    let clusters = (n / 200).max(50);
    let data = clustered(&mut rng, n + 100, dim, clusters);
    let (base, queries) = data.split_at(n);
    println!("Vectors, {n} × {dim}, {clusters} clusters");
    let mut exact_hits = Vec::new();
    for mode in [VectorMode::Exact, VectorMode::INT8] {
        let before = LIVE.load(Relaxed);
        let t = Instant::now();
        let mut index = VectorIndex::new(mode);
        for (i, v) in base.iter().enumerate() {
            index.add(i as u64, v).unwrap();
        }
        let build = t.elapsed().as_secs_f64();
        index.shrink_to_fit();
        let live = (LIVE.load(Relaxed) - before) as f64;
        let mut times = Vec::new();
        let mut hits = Vec::new();
        for q in queries {
            // Best of 3, as for BM25 above.
            let mut min = f64::MAX;
            let mut h = Vec::new();
            for _ in 0..3 {
                let t = Instant::now();
                h = index.search(q, 10, |_| true).unwrap();
                min = min.min(t.elapsed().as_secs_f64() * 1e3);
            }
            times.push(min);
            hits.push(h);
        }
        times.sort_by(f64::total_cmp);
        let recall = if mode == VectorMode::Exact {
            exact_hits = hits;
            1.0
        } else {
            let found: usize = hits.iter().zip(&exact_hits).map(|(h, e)| h.iter().filter(|x| e.iter().any(|y| y.0 == x.0)).count()).sum();
            found as f64 / (10 * queries.len()) as f64
        };
        println!(
            "  {:?}: top-10 p50 {:.2} ms, p99 {:.2} ms (best of 3 per query); recall@10 {:.3}; {:.0} B/vector (after shrink_to_fit); build {:.2} s",
            mode,
            percentile(&times, 0.5),
            percentile(&times, 0.99),
            recall,
            live / n as f64,
            build
        );
    }
}
