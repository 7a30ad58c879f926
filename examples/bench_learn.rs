//! Precision and recall of what a compaction learns about the user offline,
//! on the labelled turns of `tests/fixtures/learn/`: the old
//! high-value-phrase pass against `semantic::learn`. In-sample rows: the
//! tune and held-out splits of `turns.jsonl`, `fresh.jsonl` and
//! `fresh2.jsonl` (each once held out, then tuned on) and `tune3.jsonl`
//! (written to tune the third pass). The held-out figure is
//! `fresh3.jsonl`, written before the third pass and never tuned on;
//! `--errors` lists the misses of every set but fresh3, so tuning never
//! sees the held-out set's mistakes. A turn is predicted positive when
//! any of its sentences is learned; kind accuracy is over the true
//! positives (preference vs fact), key accuracy over true positives
//! labelled with a key.
//!
//! `cargo run --release --example bench_learn [-- --errors]`

use agent_memory::semantic::learn;
use agent_memory::semantic::FactKind;
use agent_memory::summary::HIGH_VALUE;

struct Turn {
    text: String,
    label: String,
    key: Option<String>,
    split: String,
}

#[derive(Default)]
struct Score {
    tp: usize,
    fp: usize,
    fn_: usize,
    kind_ok: usize,
    keyed: usize,
    key_ok: usize,
}

/// The old pass: every sentence with a high-value phrase, as a preference.
fn old(text: &str) -> Option<(FactKind, Option<&'static str>)> {
    let lower = text.to_ascii_lowercase();
    HIGH_VALUE.iter().any(|p| lower.contains(p)).then_some((FactKind::Preference, None))
}

fn new(text: &str) -> Option<(FactKind, Option<&'static str>)> {
    learn::statements(text).first().map(|(_, st)| (st.kind, st.key))
}

fn main() {
    let errors = std::env::args().any(|a| a == "--errors");
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/learn/");
    let read = |f: &str| std::fs::read_to_string(format!("{dir}{f}")).unwrap_or_else(|e| panic!("{dir}{f}: {e}"));
    let data = read("turns.jsonl") + &read("fresh.jsonl") + &read("fresh2.jsonl") + &read("tune3.jsonl") + &read("fresh3.jsonl");
    let turns: Vec<Turn> = data
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}"));
            let s = |k: &str| v.get(k).and_then(|x| x.as_str()).map(str::to_string);
            Turn {
                text: s("text").unwrap_or_default(),
                label: s("label").unwrap_or_default(),
                key: s("key"),
                split: s("split").unwrap_or_default(),
            }
        })
        .collect();
    println!("| pass | split | turns | positives | precision | recall | kind accuracy | key accuracy |");
    println!("|---|---|---:|---:|---:|---:|---:|---:|");
    for (name, pass) in [("HIGH_VALUE phrases", old as fn(&str) -> _), ("semantic::learn", new)] {
        for (split, label) in [
            ("tune", "tune (in-sample)"),
            ("held-out", "held-out"),
            ("fresh", "fresh (in-sample)"),
            ("fresh2", "fresh2 (in-sample)"),
            ("tune3", "tune3 (in-sample)"),
            ("fresh3", "fresh3 (held out)"),
        ] {
            let mut s = Score::default();
            let errors = errors && split != "fresh3";
            let set: Vec<&Turn> = turns.iter().filter(|t| t.split == split).collect();
            for t in &set {
                let truth = t.label != "none";
                match (pass(&t.text), truth) {
                    (Some((kind, key)), true) => {
                        s.tp += 1;
                        let want = if t.label == "fact" { FactKind::Fact } else { FactKind::Preference };
                        s.kind_ok += usize::from(kind == want);
                        if let Some(k) = &t.key {
                            s.keyed += 1;
                            s.key_ok += usize::from(key == Some(k.as_str()));
                        }
                        if errors && name != "HIGH_VALUE phrases" && (kind != want || t.key.as_deref() != key) {
                            println!("  kind/key [{split}] {:?} {:?} want {} {:?}: {}", kind, key, t.label, t.key, t.text);
                        }
                    }
                    (Some((kind, _)), false) => {
                        s.fp += 1;
                        if errors && name != "HIGH_VALUE phrases" {
                            println!("  FP [{split}] {kind:?}: {}", t.text);
                        }
                    }
                    (None, true) => {
                        s.fn_ += 1;
                        if errors && name != "HIGH_VALUE phrases" {
                            println!("  FN [{split}] {}: {}", t.label, t.text);
                        }
                    }
                    (None, false) => {}
                }
            }
            let ratio = |a: usize, b: usize| if b == 0 { f64::NAN } else { a as f64 / b as f64 };
            println!(
                "| {name} | {label} | {} | {} | {:.2} | {:.2} | {:.2} | {:.2} |",
                set.len(),
                s.tp + s.fn_,
                ratio(s.tp, s.tp + s.fp),
                ratio(s.tp, s.tp + s.fn_),
                ratio(s.kind_ok, s.tp),
                ratio(s.key_ok, s.keyed)
            );
        }
    }
}
