//! Precision and recall of the offline contradiction rules
//! (`semantic::claim`), on the labelled pairs of `tests/fixtures/contradict/`:
//! `heldout.jsonl` was written before any rule existed and never tuned on,
//! but the rules were written with it in view; `tune.jsonl` was written
//! after it, and the rules were tuned on it (in-sample); `fresh.jsonl` was
//! written after the rules, before they were run on it, and never tuned
//! on: the held-out figure. A pair is (old fact, new fact, label):
//! "contradicts" (the new one supersedes the old), "same" (a duplicate) or
//! "none". Each relation is scored as its own positive class; a shared key
//! is not used (the pairs have none: that case is exact).
//!
//! `cargo run --release --example bench_contradict [-- --errors]`

use agent_memory::semantic::claim::{relation, Relation};

fn main() {
    let errors = std::env::args().any(|a| a == "--errors");
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/contradict/");
    println!("| split | pairs | relation | positives | predicted | precision | recall |");
    println!("|---|---:|---|---:|---:|---:|---:|");
    for split in ["tune", "heldout", "fresh"] {
        let text = std::fs::read_to_string(format!("{dir}{split}.jsonl")).unwrap_or_else(|e| panic!("{split}: {e}"));
        let pairs: Vec<(String, String, String)> = text
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}"));
                let s = |k: &str| v.get(k).and_then(|x| x.as_str()).unwrap_or_default().to_string();
                (s("old"), s("new"), s("label"))
            })
            .collect();
        let predicted: Vec<&str> = pairs
            .iter()
            .map(|(old, new, _)| match relation((old, None), (new, None)) {
                Relation::Contradicts => "contradicts",
                Relation::Same => "same",
                Relation::Unrelated => "none",
            })
            .collect();
        for class in ["contradicts", "same"] {
            let pos = pairs.iter().filter(|p| p.2 == class).count();
            let pred = predicted.iter().filter(|p| **p == class).count();
            let tp = pairs.iter().zip(&predicted).filter(|(p, q)| p.2 == class && **q == class).count();
            let ratio = |a: usize, b: usize| if b == 0 { "–".to_string() } else { format!("{:.2}", a as f64 / b as f64) };
            let name = match split {
                "tune" => "tune (in-sample)",
                "heldout" => "held-out (rules written in view)",
                _ => "fresh (held out)",
            };
            println!("| {name} | {} | {class} | {pos} | {pred} | {} | {} |", pairs.len(), ratio(tp, pred), ratio(tp, pos));
        }
        if errors {
            for ((old, new, label), got) in pairs.iter().zip(&predicted) {
                if label != got {
                    eprintln!("{split}: {label} predicted {got}: {old} → {new}");
                }
            }
        }
    }
}
