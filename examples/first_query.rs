//! Where the time of opening a namespace and of its first query goes,
//! natively, on the values `bench/scale.mjs` stored (run it with
//! `BENCH_SCALE_KEEP=DIR` first): open, first `build_context` with a query,
//! `search`, a later `build_context`, then the whole read of a second open
//! (`Durable::controller`), each timed; run under `perf record` for the
//! functions.
//!
//!   cargo run --release --example first_query -- /tmp/scale/100000.bin dist/ranks/o200k_base.bin [rounds]

use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::Instant;

use agent_memory::context::ContextRequest;
use agent_memory::controller::Options;
use agent_memory::controller::SearchOptions;
use agent_memory::durable::{Durable, Storage};
use agent_memory::message::{Message, Role};
use agent_memory::tokens::exact::{Bpe, Encoding};
use agent_memory::tokens::Counter;

#[derive(Default, Clone)]
struct Mem(BTreeMap<Vec<String>, Vec<u8>>);

impl Storage for Mem {
    fn load_range(&mut self, prefix: &[String]) -> Result<Vec<(Vec<String>, Vec<u8>)>, String> {
        Ok(self.0.iter().filter(|(k, _)| k.starts_with(prefix)).map(|(k, v)| (k.clone(), v.clone())).collect())
    }
    fn save(&mut self, key: &[String], bytes: &[u8]) -> Result<(), String> {
        self.0.insert(key.to_vec(), bytes.to_vec());
        Ok(())
    }
    fn remove(&mut self, key: &[String]) -> Result<(), String> {
        self.0.remove(key);
        Ok(())
    }
    fn remove_range(&mut self, prefix: &[String]) -> Result<(), String> {
        self.0.retain(|k, _| !k.starts_with(prefix));
        Ok(())
    }
}

/// `bench/scale.mjs`'s dump: [u32 key JSON length][key JSON][u32 data length][data]…
fn undump(bytes: &[u8]) -> Mem {
    let mut mem = Mem::default();
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    let mut at = 0;
    while at < bytes.len() {
        let klen = u32_at(at);
        let key: Vec<String> = serde_json::from_slice(&bytes[at + 4..at + 4 + klen]).unwrap();
        at += 4 + klen;
        let dlen = u32_at(at);
        mem.0.insert(key, bytes[at + 4..at + 4 + dlen].to_vec());
        at += 4 + dlen;
    }
    mem
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (dump, ranks) = (std::fs::read(&args[1]).unwrap(), std::fs::read(&args[2]).unwrap());
    let rounds: usize = args.get(3).and_then(|r| r.parse().ok()).unwrap_or(1);
    let mem = undump(&dump);
    let bpe = Rc::new(Bpe::from_asset(Encoding::O200kBase, &ranks).unwrap());
    let question = |q: &str| ContextRequest { max_tokens: 8000, reserve_output: 1000, query: Some(q.into()), ..ContextRequest::default() };
    for _ in 0..rounds {
        let opts = || Options { namespace: "scale".into(), model: "gpt-4o".into(), ..Options::default() };
        let t = Instant::now();
        let d = Durable::open(opts(), Counter::Exact(bpe.clone()), mem.clone()).unwrap();
        let open = t.elapsed();
        let t = Instant::now();
        let ctx = d.build_context(&question("What is the code word of my locker at the Zurich office?")).unwrap();
        let first = t.elapsed();
        let t = Instant::now();
        let hits = d.search("What is the code word of my locker at the Zurich office?", &SearchOptions::default()).unwrap();
        let search = t.elapsed();
        let t = Instant::now();
        d.build_context(&question("Which tool results did we use for the weather report?")).unwrap();
        let later = t.elapsed();
        println!(
            "open {:.1} ms, first query {:.1} ms, search {:.1} ms ({} hits), later query {:.1} ms; fact in context: {}",
            open.as_secs_f64() * 1e3,
            first.as_secs_f64() * 1e3,
            search.as_secs_f64() * 1e3,
            hits.len(),
            later.as_secs_f64() * 1e3,
            format!("{:?}", ctx.messages).contains("PELICAN-SUNRISE"),
        );
        // The whole read (what an embedder's first query, `history()` or
        // `export` costs): a second open, then every cold segment decoded.
        // (`WHOLE=0`: not, to profile the first query alone)
        if std::env::var("WHOLE").as_deref() != Ok("0") {
            let whole = Durable::open(opts(), Counter::Exact(bpe.clone()), mem.clone()).unwrap();
            let t = Instant::now();
            drop(whole.controller().unwrap());
            let read = t.elapsed();
            let t = Instant::now();
            whole.build_context(&question("Which tool results did we use for the weather report?")).unwrap();
            println!("whole read: {:.1} ms, the query after it {:.1} ms", read.as_secs_f64() * 1e3, t.elapsed().as_secs_f64() * 1e3);
        }
        // Then turns by hand: add the question, build its context, add the answer.
        let t = Instant::now();
        let turns: usize = std::env::var("TURNS").ok().and_then(|t| t.parse().ok()).unwrap_or(20);
        let mut d = d;
        for i in 0..turns {
            let q = format!("Question {i}: what did we decide about the budget?");
            d.add(Message::text(Role::User, q.clone()), 1e13 + i as f64).unwrap();
            d.build_context(&ContextRequest { max_tokens: 128_000, reserve_output: 16_384, ..question(&q) }).unwrap();
            d.add(Message::text(Role::Assistant, "Noted."), 1e13 + i as f64).unwrap();
        }
        println!("a turn by hand: {:.2} ms", t.elapsed().as_secs_f64() * 1e3 / turns as f64);
    }
}
