//! Recall and false positives of `redact` on the labelled corpus of
//! `tests/fixtures/redact/`: `tune.jsonl` (the scanners were tuned on it),
//! `heldout.jsonl` (generated from other templates, written before the
//! scanners, never tuned on) and `fresh.jsonl` (hand-written contexts the
//! scanners were not written against, after they were frozen; not tuned on).
//!
//! A secret is caught when none of its `vanish` strings survives (no
//! 12-byte window of one, or the whole string when shorter) and the text
//! holds its kind's placeholder; a kind counts as right when that
//! placeholder is the secret's. A look-alike is a false positive when it
//! no longer appears byte for byte. Credentials are measured with the
//! default policy, personal data with `{ personal: true }`; look-alikes
//! under both. Also the scanning speed (MB/s, this machine, for scale only).
//!
//! `cargo run --release --example bench_redact [-- --errors]`

use std::collections::BTreeMap;
use std::time::Instant;

use agent_memory::redact::{Policy, Redacted};
use serde_json::Value;

#[derive(Default)]
struct Score {
    secrets: usize,
    caught: usize,
    kind_ok: usize,
    lookalikes: usize,
    altered: usize,
}

fn survives(out: &str, vanish: &str) -> bool {
    let b = vanish.as_bytes();
    if b.len() <= 12 {
        return out.contains(vanish);
    }
    b.windows(12).any(|w| std::str::from_utf8(w).is_ok_and(|w| out.contains(w)))
}

fn main() {
    let errors = std::env::args().any(|a| a == "--errors");
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/redact");
    println!("| split | policy | secrets | recall | kind right | look-alikes | false positives | FP rate |");
    println!("|---|---|---:|---:|---:|---:|---:|---:|");
    let mut per_kind: BTreeMap<(String, String), (usize, usize)> = BTreeMap::new();
    let mut speed = (0usize, 0f64);
    for split in ["tune", "heldout", "fresh"] {
        let text = std::fs::read_to_string(format!("{dir}/{split}.jsonl")).expect("fixture");
        let cases: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).expect("json line")).collect();
        for (name, policy, personal) in
            [("credentials (default)", Policy::default(), false), ("personal: true", Policy { personal: true, ..Policy::default() }, true)]
        {
            let mut s = Score::default();
            let t = Instant::now();
            for case in &cases {
                let input = case["text"].as_str().unwrap_or_default();
                let out = policy.text(input, &mut Redacted::new()).unwrap_or_else(|| input.to_string());
                speed.0 += input.len();
                for secret in case["secrets"].as_array().into_iter().flatten().filter(|x| x["personal"].as_bool() == Some(personal)) {
                    let kind = secret["kind"].as_str().unwrap_or_default();
                    let vanish: Vec<&str> = secret["vanish"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
                    let gone = vanish.iter().all(|v| !survives(&out, v));
                    let typed = out.contains(&format!("[redacted:{kind}]"));
                    s.secrets += 1;
                    s.caught += usize::from(gone);
                    s.kind_ok += usize::from(gone && typed);
                    let e = per_kind.entry((split.to_string(), kind.to_string())).or_default();
                    e.0 += 1;
                    e.1 += usize::from(gone);
                    if errors && !(gone && typed) {
                        println!("MISS {split} {kind}: {input}\n  -> {out}");
                    }
                }
                for l in case["lookalikes"].as_array().into_iter().flatten() {
                    let v = l["text"].as_str().unwrap_or_default();
                    s.lookalikes += 1;
                    if !out.contains(v) {
                        s.altered += 1;
                        if errors {
                            println!("FP {split} {}: {v}\n  -> {out}", l["kind"]);
                        }
                    }
                }
            }
            speed.1 += t.elapsed().as_secs_f64();
            let label = match split {
                "tune" => "tune (in-sample)",
                "heldout" => "held-out",
                _ => "fresh (held out)",
            };
            let ratio = |a: usize, b: usize| if b == 0 { 1.0 } else { a as f64 / b as f64 };
            println!(
                "| {label} | {name} | {} | {:.3} | {:.3} | {} | {} | {:.2} % |",
                s.secrets,
                ratio(s.caught, s.secrets),
                ratio(s.kind_ok, s.secrets),
                s.lookalikes,
                s.altered,
                100.0 * ratio(s.altered, s.lookalikes.max(1)) * f64::from(u8::from(s.lookalikes > 0))
            );
        }
    }
    println!();
    println!("| kind | tune: caught / secrets | held-out | fresh |");
    println!("|---|---:|---:|---:|");
    let kinds: std::collections::BTreeSet<&String> = per_kind.keys().map(|(_, k)| k).collect();
    for kind in kinds {
        let cell = |split: &str| per_kind.get(&(split.to_string(), kind.clone())).map_or("-".to_string(), |(n, c)| format!("{c} / {n}"));
        println!("| {kind} | {} | {} | {} |", cell("tune"), cell("heldout"), cell("fresh"));
    }
    println!();
    println!("Scanning speed: {:.0} MB/s (both policies, every split, one thread).", speed.0 as f64 / speed.1 / 1e6);
}
