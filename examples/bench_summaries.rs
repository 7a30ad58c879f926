//! What the offline summarizer keeps: question evidence carried by episode
//! summaries on the recall fixture, and the summaries of the demo dialogue.
//!
//! `cargo run --release --example bench_summaries [-- --show N] [--misses tune]`
//!
//! Recall fixture (`tests/fixtures/recall`): every turn is added to a native
//! controller with default options (gpt-4o, exact o200k counts, the offline
//! summarizer), one message per turn, the clock one day per session, as
//! `bench/recall.mjs` replays it. An evidence turn is *carried* when its
//! text, or every sentence of it, appears in some episode summary. Per
//! question: carried evidence turns over its archived ones (an evidence turn
//! still in working memory is shown verbatim and not counted), averaged over
//! questions, for the tune and held-out halves of the stories (alternate
//! stories, as `loadSet` splits them).
//!
//! Demo dialogue (`tests/fixtures/conversation/script.json`): replayed the
//! same way; prints how many summary lines are small talk by a fixed list
//! ("Thanks, Lin!", "好的。"),
//! which of the README's landmark facts some summary holds, and the first
//! `--show` summaries (default 2).

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use agent_memory::summary::sentences;
use agent_memory::tokens::exact::{asset::write_asset, Bpe, Encoding};
use agent_memory::tokens::Counter;
use agent_memory::{Controller, Options};
use serde_json::{json, Value};

const DAY_MS: f64 = 86_400_000.0;
const START_MS: f64 = 1_767_225_600_000.0; // 2026-01-01T00:00:00Z, as bench/recall.mjs

fn o200k() -> Counter {
    let bpe = tiktoken_rs::o200k_base().unwrap();
    let tokens = (0..199_998).map(|r| bpe.decode_bytes(&[r]).unwrap());
    let asset = write_asset(Encoding::O200kBase, tokens).unwrap();
    Counter::Exact(Rc::new(Bpe::from_asset(Encoding::O200kBase, &asset).unwrap()))
}

fn read(path: &str) -> String {
    std::fs::read_to_string(format!("{}/tests/fixtures/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn jsonl(path: &str) -> Vec<Value> {
    read(path).lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn carried(text: &str, summaries: &[&str]) -> bool {
    summaries.iter().any(|s| s.contains(text)) || sentences(text).iter().all(|x| summaries.iter().any(|s| s.contains(x.as_str())))
}

fn show(label: &str, summaries: &[&str], n: usize) {
    for (i, s) in summaries.iter().take(n).enumerate() {
        println!("--- {label} episode {i}\n{s}");
    }
}

fn recall(counter: &Counter, n_show: usize, misses: Option<&str>) {
    let turns = jsonl("recall/turns.jsonl");
    let questions = jsonl("recall/questions.jsonl");
    let stories: Vec<String> = serde_json::from_str::<Value>(&read("recall/stories.json")).unwrap()["stories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap().to_string())
        .collect();
    let mut c = Controller::new(Options::default(), counter.clone()).unwrap();
    let mut turn_of: HashMap<String, u64> = HashMap::new();
    let mut text_of: HashMap<u64, String> = HashMap::new();
    for t in &turns {
        let id = t["id"].as_u64().unwrap();
        let now = START_MS + t["day"].as_f64().unwrap() * DAY_MS + id as f64 * 1000.0;
        let msg = json!({"role": t["role"], "content": t["text"]}).to_string();
        let added = c.add(&msg, now).unwrap();
        turn_of.insert(added.id, id);
        text_of.insert(id, t["text"].as_str().unwrap().to_string());
    }
    let episodes = c.episodes();
    let summaries: Vec<&str> = episodes.iter().map(|e| e.summary.as_str()).collect();
    let archived: HashSet<u64> = episodes.iter().flat_map(|e| e.message_ids.iter()).filter_map(|m| turn_of.get(m).copied()).collect();
    let tokens: usize = episodes.iter().map(|e| e.tokens).sum();
    println!("recall fixture: {} turns, {} archived, {} episodes, {} summary tokens", turns.len(), archived.len(), episodes.len(), tokens);
    println!("| half | questions | evidence turns archived | carried | mean share per question |");
    println!("|---|---:|---:|---:|---:|");
    for half in ["tune", "held-out", "all"] {
        let (mut n, mut share, mut seen) = (0, 0.0, HashSet::new());
        for q in &questions {
            let qid = q["id"].as_str().unwrap();
            let story = stories.iter().position(|s| qid.starts_with(&format!("{s}-"))).unwrap();
            let in_half = if story % 2 == 0 { "tune" } else { "held-out" };
            if half != "all" && half != in_half {
                continue;
            }
            let evidence: Vec<u64> =
                q["evidence"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).filter(|e| archived.contains(e)).collect();
            if evidence.is_empty() {
                continue;
            }
            let kept = evidence.iter().filter(|e| carried(&text_of[e], &summaries)).count();
            if misses == Some(half) {
                evidence.iter().filter(|e| !carried(&text_of[e], &summaries)).for_each(|e| println!("missed {e}: {}", text_of[e]));
            }
            seen.extend(evidence.iter().map(|e| (*e, carried(&text_of[e], &summaries))));
            share += kept as f64 / evidence.len() as f64;
            n += 1;
        }
        let kept = seen.iter().filter(|(_, k)| *k).count();
        println!("| {half} | {n} | {} | {kept} | {:.3} |", seen.len(), share / n.max(1) as f64);
    }
    show("recall", &summaries, n_show);
}

/// Lines of an English or Chinese chat that say nothing, by a fixed list
/// written apart from the summarizer's lexicons (a sanity figure, not a
/// tuned one): the line is one of these, maybe with a name or a particle.
fn small_talk(line: &str) -> bool {
    const SMALL: &[&str] = &[
        "hi",
        "hello",
        "hey",
        "thanks",
        "thank you",
        "ok",
        "okay",
        "got it",
        "sounds good",
        "great",
        "wow",
        "你好",
        "谢谢",
        "好的",
        "好",
        "收到",
        "明白",
        "哈哈",
        "没问题",
        "太好了",
    ];
    let body = line.split_once(": ").map_or(line, |(_, b)| b).to_lowercase();
    let words: Vec<&str> = body.split(|c: char| !c.is_alphanumeric() && c != ' ').map(str::trim).filter(|w| !w.is_empty()).collect();
    words.first().is_some_and(|w| SMALL.contains(w))
        && words.len() <= 2
        && words.iter().skip(1).all(|w| w.split(' ').count() <= 2 && !w.chars().any(|c| c.is_ascii_digit()))
}

fn conversation(counter: &Counter, n_show: usize) {
    let script: Vec<Value> = serde_json::from_str(&read("conversation/script.json")).unwrap();
    let mut c = Controller::new(Options::default(), counter.clone()).unwrap();
    // The script spans a few weeks; a message every ten minutes is close enough.
    for (i, m) in script.iter().enumerate() {
        c.add(&m.to_string(), START_MS + i as f64 * 600_000.0).unwrap();
    }
    let summaries: Vec<&str> = c.episodes().iter().map(|e| e.summary.as_str()).collect();
    let lines: Vec<&str> = summaries.iter().flat_map(|s| s.lines()).collect();
    let small = lines.iter().filter(|l| small_talk(l)).count();
    println!(
        "\nconversation fixture: {} messages, {} episodes, {} summary lines, {} of them small talk",
        script.len(),
        summaries.len(),
        lines.len(),
        small
    );
    let landmarks = ["花生", "bullet points", "微辣", "芙蓉小馆", "盒马", "June 15", "3,741.82"];
    let found: Vec<&str> = landmarks.iter().copied().filter(|l| summaries.iter().any(|s| s.contains(l))).collect();
    println!("landmarks in some summary: {} of {}: {}", found.len(), landmarks.len(), found.join(", "));
    show("conversation", &summaries, n_show);
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n_show = args.iter().position(|a| a == "--show").and_then(|i| args.get(i + 1)).and_then(|n| n.parse().ok()).unwrap_or(2);
    let counter = o200k();
    // `--misses tune`: the evidence turns of that half no summary carries.
    let misses = args.iter().position(|a| a == "--misses").and_then(|i| args.get(i + 1)).map(String::as_str);
    recall(&counter, n_show, misses);
    conversation(&counter, n_show);
}
