//! Adds per second as a namespace grows, through the native write path
//! (`Durable`) over in-memory storage: where `add` gets slower with history.
//!
//!   cargo run --release --example add_rate -- 100000

use std::collections::BTreeMap;
use std::time::Instant;

use agent_memory::controller::Options;
use agent_memory::durable::{Durable, Storage};
use agent_memory::message::{Message, Role};
use agent_memory::tokens::estimate::Family;
use agent_memory::tokens::Counter;

#[derive(Default)]
struct Mem(BTreeMap<Vec<String>, Vec<u8>>, usize, usize);

impl Storage for Mem {
    fn load_range(&mut self, prefix: &[String]) -> Result<Vec<(Vec<String>, Vec<u8>)>, String> {
        Ok(self.0.iter().filter(|(k, _)| k.starts_with(prefix)).map(|(k, v)| (k.clone(), v.clone())).collect())
    }
    fn save(&mut self, key: &[String], bytes: &[u8]) -> Result<(), String> {
        if key.get(1).is_some_and(|k| k != "log") {
            (self.1, self.2) = (self.1 + 1, self.2 + bytes.len());
        }
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

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let opts = Options { model: "claude-sonnet-4".into(), ..Options::default() };
    let mut d = Durable::open(opts, Counter::estimate(Family::Claude.profile()), Mem::default()).unwrap_or_else(|e| panic!("{e}"));
    let (mut t, mut since) = (Instant::now(), 0);
    for i in 0..n {
        let role = if i % 2 == 0 { Role::User } else { Role::Assistant };
        let text = format!(
            "turn {i}: we talked about the trip to Chengdu and the hotel booking, item {} of the list, and what to pack for {} days.",
            i % 97,
            i % 13
        );
        d.add(Message::text(role, text), i as f64).unwrap_or_else(|e| panic!("{e}"));
        if (i + 1) % 10_000 == 0 || i + 1 == 1000 {
            let (segments, bytes) = {
                let mut s = d.storage();
                let out = (s.1, s.2);
                (s.1, s.2) = (0, 0);
                out
            };
            println!(
                "{:>7} messages: {:>8.0} adds/s, {segments} segments written ({} KiB)",
                i + 1,
                (i + 1 - since) as f64 / t.elapsed().as_secs_f64(),
                bytes / 1024
            );
            (t, since) = (Instant::now(), i + 1);
        }
    }
}
