//! A storage over a shared map (what a crashed process leaves for the next)
//! that fails at random, loses acknowledgements, dies after a number of
//! operations, and counts what it is asked to save.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;

use agent_memory::durable::Storage;
use agent_memory::store::Key;

pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn chance(&mut self, p: f64) -> bool {
        (self.next() % 10_000) as f64 / 10_000.0 < p
    }
}

pub type Map = Rc<RefCell<BTreeMap<Key, Vec<u8>>>>;

/// A shared map behind an adapter that fails, loses acks, or dies.
pub struct Faulty {
    pub map: Map,
    pub rng: Rng,
    pub fail: f64,
    /// The write lands but the caller hears it failed.
    pub lost_ack: f64,
    /// Operations left before the "process" dies: every later call fails.
    pub life: Option<u32>,
    /// The size of every value saved, in order.
    pub written: Rc<RefCell<Vec<usize>>>,
    /// Operations asked for, the failed ones too.
    pub ops: Rc<Cell<usize>>,
}

impl Faulty {
    pub fn healthy(map: &Map) -> Faulty {
        Faulty { map: map.clone(), rng: Rng(1), fail: 0.0, lost_ack: 0.0, life: None, written: Rc::default(), ops: Rc::default() }
    }
    fn tick(&mut self) -> Result<(), String> {
        self.ops.set(self.ops.get() + 1);
        if let Some(l) = &mut self.life {
            if *l == 0 {
                return Err("crashed".into());
            }
            *l -= 1;
        }
        if self.rng.chance(self.fail) {
            return Err("injected failure".into());
        }
        Ok(())
    }
}

impl Storage for Faulty {
    fn load_range(&mut self, prefix: &[String]) -> Result<Vec<(Key, Vec<u8>)>, String> {
        self.tick()?;
        Ok(self.map.borrow().iter().filter(|(k, _)| k.starts_with(prefix)).map(|(k, v)| (k.clone(), v.clone())).collect())
    }
    fn save(&mut self, key: &[String], bytes: &[u8]) -> Result<(), String> {
        self.tick()?;
        self.written.borrow_mut().push(bytes.len());
        self.map.borrow_mut().insert(key.to_vec(), bytes.to_vec());
        if self.rng.chance(self.lost_ack) {
            return Err("ack lost".into());
        }
        Ok(())
    }
    fn remove(&mut self, key: &[String]) -> Result<(), String> {
        self.tick()?;
        self.map.borrow_mut().remove(key);
        Ok(())
    }
    fn remove_range(&mut self, prefix: &[String]) -> Result<(), String> {
        self.tick()?;
        self.map.borrow_mut().retain(|k, _| !k.starts_with(prefix));
        Ok(())
    }
}
