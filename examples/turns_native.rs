//! Turns by hand natively over a controller filled with bench/history.mjs
//! (dumped to JSON): add, build_context with the question, add the answer;
//! what grows with the history in a turn, under `perf record`.
//!
//!   node -e 'import("./bench/history.mjs").then(({ history }) => require("fs").writeFileSync("/tmp/history.json", JSON.stringify(history(100000))))'
//!   cargo run --release --example turns_native -- /tmp/history.json <o200k_base ranks, ungzipped> 100000 [turns]
//!
//! (The ranks: `target/ranks/o200k_base.bin` beside the build's cargo target.)
use std::rc::Rc;
use std::time::Instant;

use agent_memory::context::ContextRequest;
use agent_memory::controller::Options;
use agent_memory::message::{Message, Role};
use agent_memory::tokens::exact::{Bpe, Encoding};
use agent_memory::tokens::Counter;
use agent_memory::window::WindowConfig;
use agent_memory::Controller;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let history: Vec<serde_json::Value> = serde_json::from_slice(&std::fs::read(&args[1]).unwrap()).unwrap();
    let n: usize = args[3].parse().unwrap();
    let bpe = Rc::new(Bpe::from_asset(Encoding::O200kBase, &std::fs::read(&args[2]).unwrap()).unwrap());
    let opts =
        Options { model: "gpt-4o".into(), working: WindowConfig { max_tokens: 4000, ..WindowConfig::default() }, ..Options::default() };
    let mut c = Controller::new(opts, Counter::Exact(bpe)).unwrap();
    for (i, m) in history.iter().take(n).enumerate() {
        c.add_message(Message::parse(m).unwrap(), i as f64).unwrap();
    }
    let turns: usize = args.get(4).and_then(|t| t.parse().ok()).unwrap_or(200);
    let t = Instant::now();
    for i in 0..turns {
        let q = format!("Question {i}: what did we decide about the budget?");
        c.add_message(Message::text(Role::User, q.clone()), 1e7 + i as f64).unwrap();
        c.build_context(&ContextRequest { max_tokens: 128_000, reserve_output: 16_384, query: Some(q), ..ContextRequest::default() })
            .unwrap();
        c.add_message(Message::text(Role::Assistant, "Noted."), 1e7 + i as f64).unwrap();
    }
    println!("{n} held: {:.3} ms a turn, {} episodes", t.elapsed().as_secs_f64() * 1e3 / turns as f64, c.episodes().len());
}
