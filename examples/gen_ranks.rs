//! Writes the compact rank assets of the exact token counter.
//!
//! ```text
//! cargo run --release --example gen_ranks -- <out_dir>            # write o200k_base.bin, cl100k_base.bin
//! cargo run --release --example gen_ranks -- --measure <asset_dir> <file>...  # load time, counting speed
//! ```
//! The ranks come from tiktoken-rs (the reference the counter is tested
//! against): every non-special rank is decoded to its bytes, in rank order.
//! Each written asset is read back and must encode a sample exactly as
//! tiktoken-rs does, so a bad asset is never written silently.

use std::collections::HashSet;
use std::time::Instant;

use agent_memory::tokens::exact::{asset, Bpe, Encoding};
use tiktoken_rs::CoreBPE;

const ENCODINGS: [Encoding; 2] = [Encoding::O200kBase, Encoding::Cl100kBase];

fn reference(encoding: Encoding) -> CoreBPE {
    match encoding {
        Encoding::O200kBase => tiktoken_rs::o200k_base().unwrap(),
        Encoding::Cl100kBase => tiktoken_rs::cl100k_base().unwrap(),
    }
}

/// Token bytes in rank order (empty for a rank without a token), up to the
/// first special token; checks that no ordinary token lies beyond it.
fn tokens_in_rank_order(bpe: &CoreBPE) -> Vec<Vec<u8>> {
    let specials: HashSet<u32> = bpe.special_tokens().into_iter().flat_map(|s| bpe.encode_with_special_tokens(s)).collect();
    let first_special = *specials.iter().min().unwrap();
    let max_special = *specials.iter().max().unwrap();
    let mut tokens: Vec<Vec<u8>> = (0..first_special).map(|r| bpe.decode_bytes(&[r]).unwrap_or_default()).collect();
    while tokens.last().is_some_and(|t| t.is_empty()) {
        tokens.pop();
    }
    for r in first_special..=max_special + 1024 {
        assert!(specials.contains(&r) || bpe.decode_bytes(&[r]).is_err(), "ordinary token {r} after specials");
    }
    tokens
}

fn write(out_dir: &str) {
    std::fs::create_dir_all(out_dir).unwrap();
    let sample = "Hello, world! It's 2024.\n\n  你好，世界。 こんにちは 🤖👍🏽 fn main() { println!(\"x\"); }";
    for encoding in ENCODINGS {
        let reference = reference(encoding);
        let tokens = tokens_in_rank_order(&reference);
        let gaps = tokens.iter().filter(|t| t.is_empty()).count();
        let bytes = asset::write_asset(encoding, &tokens).unwrap();
        let bpe = Bpe::from_asset(encoding, &bytes).unwrap();
        assert_eq!(bpe.encode(sample), reference.encode_ordinary(sample), "{encoding:?} round trip");
        let path = format!("{out_dir}/{}.bin", encoding.name());
        std::fs::write(&path, &bytes).unwrap();
        println!("{path}: {} ranks ({gaps} gaps), {} bytes", tokens.len(), bytes.len());
    }
}

/// Load time and counting speed from written assets. "first pass" counts
/// with an empty piece cache (best of 3 fresh tokenizers), "repeated" with the
/// cache filled by earlier passes over the same text.
fn measure(asset_dir: &str, files: &[String]) {
    let corpora: Vec<(String, String)> = files.iter().map(|f| (f.clone(), std::fs::read_to_string(f).unwrap())).collect();
    for encoding in ENCODINGS {
        let bytes = std::fs::read(format!("{asset_dir}/{}.bin", encoding.name())).unwrap();
        let load = (0..5)
            .map(|_| {
                let start = Instant::now();
                Bpe::from_asset(encoding, &bytes).unwrap();
                start.elapsed().as_secs_f64() * 1e3
            })
            .fold(f64::MAX, f64::min);
        let heap = Bpe::from_asset(encoding, &bytes).unwrap().heap_bytes();
        println!("{}: asset {} bytes, from_asset {load:.1} ms, heap {:.2} MiB", encoding.name(), bytes.len(), mib(heap));
        for (name, text) in &corpora {
            let mb = mib(text.len());
            let (mut cold, mut n) = (0f64, 0);
            let mut bpe = None;
            for _ in 0..3 {
                let fresh = Bpe::from_asset(encoding, &bytes).unwrap();
                let start = Instant::now();
                n = fresh.count(text);
                cold = cold.max(mb / start.elapsed().as_secs_f64());
                bpe = Some(fresh);
            }
            let bpe = bpe.unwrap();
            let rounds = 5;
            let start = Instant::now();
            for _ in 0..rounds {
                assert_eq!(bpe.count(text), n);
            }
            let warm = rounds as f64 * mb / start.elapsed().as_secs_f64();
            let start = Instant::now();
            assert_eq!(bpe.encode(text).len(), n);
            let enc = mb / start.elapsed().as_secs_f64();
            println!(
                "  {name}: {n} tokens; count {cold:.1} MiB/s first pass, {warm:.1} MiB/s repeated; encode {enc:.1} MiB/s; heap after {:.2} MiB",
                mib(bpe.heap_bytes())
            );
        }
    }
}

fn mib(n: usize) -> f64 {
    n as f64 / (1024.0 * 1024.0)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("--measure") if args.len() >= 2 => measure(&args[1], &args[2..]),
        Some(dir) if !dir.starts_with('-') => write(dir),
        _ => {
            eprintln!("usage: gen_ranks <out_dir> | gen_ranks --measure <asset_dir> <file>...");
            std::process::exit(2);
        }
    }
}
