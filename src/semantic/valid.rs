//! When a fact holds: from its `valid_from` (default: when it was stated)
//! until the fact that ends it begins. What ends a fact is a later record,
//! never a change to it, so records stay immutable and history is kept:
//!
//! - the next value of its key, in the order the values became true (a
//!   value stated late with an earlier `valid_from` is history at once;
//!   without one, a value begins no sooner than the one stated before it);
//! - a fact that lists it in `supersedes` (a contradiction without a
//!   shared key): it ends where that one begins, or at once if that one
//!   began first;
//! - a fact that lists it in `merges` (a consolidation's restatement)
//!   takes its place: it is neither current nor answered as of any time,
//!   the merging fact stands for it (and begins when the earliest did).
//!
//! A forgotten fact ends nothing: forgetting a correction lets the old
//! value hold again. Chunks of documents are never ended.

use std::collections::{HashMap, HashSet};

use super::Fact;

/// When one fact holds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Validity {
    /// When it became true (ms).
    pub from: f64,
    /// When it stopped (ms); `None` while it holds.
    pub until: Option<f64>,
    /// Position of the fact that ended or merged it.
    pub by: Option<usize>,
    /// Restated by a merge: another fact stands for it.
    pub merged: bool,
}

impl Validity {
    /// Holds now: nothing ended or merged it.
    pub fn current(&self) -> bool {
        self.until.is_none() && !self.merged
    }

    /// Held at some moment of `[from, to]` (ms).
    pub fn during(&self, from: f64, to: f64) -> bool {
        !self.merged && self.from <= to && self.until.is_none_or(|u| u > from)
    }
}

/// The validity of every fact of `facts`, by position.
pub fn validity(facts: &[Fact]) -> Vec<Validity> {
    let mut out: Vec<Validity> = facts.iter().map(|f| Validity { from: f.starts(), until: None, by: None, merged: false }).collect();
    // Places by id, for the facts another one merges or supersedes (every
    // `remember` asks for validity: a map of every id, SipHash-ed, was
    // most of what a remember cost at 10,000 facts).
    let linked: HashSet<&str> = facts.iter().flat_map(|f| f.merges.iter().chain(&f.supersedes)).map(String::as_str).collect();
    let at: HashMap<&str, usize> = match linked.is_empty() {
        true => HashMap::new(),
        false => facts.iter().enumerate().filter(|(_, f)| linked.contains(f.id.as_str())).map(|(i, f)| (f.id.as_str(), i)).collect(),
    };
    // Merges first: a merged value is not a link of its key's chain.
    for (j, f) in facts.iter().enumerate() {
        for i in f.merges.iter().filter_map(|id| at.get(id.as_str()).copied()).filter(|&i| i != j) {
            if let Some(v) = out.get_mut(i) {
                v.merged = true;
                v.by = v.by.or(Some(j));
            }
        }
    }
    let mut keys: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, f) in facts.iter().enumerate() {
        if let Some(k) = f.key.as_deref().filter(|_| out.get(i).is_some_and(|v| !v.merged)) {
            keys.entry(k).or_default().push(i);
        }
    }
    for chain in keys.values_mut() {
        // A value stated without a `valid_from` begins no sooner than the
        // one stated before it: stated order decides among those (two
        // writers' clocks may disagree), a `valid_from` places the others.
        let mut last = f64::NEG_INFINITY;
        for &i in chain.iter() {
            if let (Some(f), Some(v)) = (facts.get(i), out.get_mut(i)) {
                if f.valid_from.is_none() {
                    v.from = v.from.max(last);
                    last = v.from;
                }
            }
        }
        let from = |i: usize| out.get(i).map_or(0.0, |v| v.from);
        crate::sort::sort_by(chain, |&a, &b| from(a).total_cmp(&from(b)).then(a.cmp(&b)));
        for pair in chain.windows(2) {
            if let (Some(&a), Some(&b)) = (pair.first(), pair.get(1)) {
                let from = out.get(b).map_or(0.0, |v| v.from);
                end(&mut out, a, from, b);
            }
        }
    }
    for (j, f) in facts.iter().enumerate() {
        let from = out.get(j).map_or(f.starts(), |v| v.from);
        for i in f.supersedes.iter().filter_map(|id| at.get(id.as_str()).copied()).filter(|&i| i != j) {
            let start = out.get(i).map_or(from, |v| v.from);
            end(&mut out, i, from.max(start), j);
        }
    }
    out
}

/// Ends the fact at `i` at `until` by the one at `by`, unless something
/// ended it sooner.
fn end(out: &mut [Validity], i: usize, until: f64, by: usize) {
    if let Some(v) = out.get_mut(i) {
        if v.until.is_none_or(|u| until < u) {
            v.until = Some(until);
            v.by = Some(by);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::semantic::FactKind;

    fn fact(id: &str, key: Option<&str>, at: f64, valid_from: Option<f64>) -> Fact {
        Fact {
            id: id.into(),
            key: key.map(String::from),
            text: id.into(),
            kind: FactKind::Fact,
            tags: vec![],
            source: None,
            document: None,
            created_at: at,
            valid_from,
            valid_until: None,
            supersedes: vec![],
            merges: vec![],
            origin: Default::default(),
        }
    }

    #[test]
    fn a_key_s_next_value_ends_the_last_and_a_late_earlier_one_is_history() {
        let facts = vec![
            fact("shanghai", Some("home"), 10.0, None),
            fact("berlin", Some("home"), 20.0, None),
            fact("paris", Some("home"), 30.0, Some(5.0)),
        ];
        let v = validity(&facts);
        assert_eq!(v.iter().map(|v| (v.from, v.until)).collect::<Vec<_>>(), vec![(10.0, Some(20.0)), (20.0, None), (5.0, Some(10.0))]);
        assert_eq!(v.iter().map(Validity::current).collect::<Vec<_>>(), vec![false, true, false]);
        assert!(v.first().is_some_and(|v| v.during(12.0, 12.0) && !v.during(20.0, 25.0)));
    }

    #[test]
    fn supersedes_ends_without_a_key_and_merges_take_the_place() {
        let mut moved = fact("berlin", None, 20.0, None);
        moved.supersedes = vec!["shanghai".into(), "missing".into()];
        let mut merged = fact("spicy", None, 30.0, Some(1.0));
        merged.merges = vec!["spicy1".into(), "spicy2".into()];
        let facts =
            vec![fact("shanghai", None, 10.0, None), fact("spicy1", None, 1.0, None), fact("spicy2", None, 2.0, None), moved, merged];
        let v = validity(&facts);
        assert_eq!(v.first().map(|v| (v.until, v.by)), Some((Some(20.0), Some(3))));
        assert!(v.get(1).is_some_and(|v| v.merged && !v.current() && !v.during(0.0, 100.0)));
        assert!(v.get(4).is_some_and(|v| v.current() && v.during(1.5, 1.5)));
    }

    #[test]
    fn a_merged_value_is_not_a_link_of_its_key_s_chain() {
        let mut m = fact("m", Some("home"), 40.0, Some(10.0));
        m.merges = vec!["a".into(), "b".into()];
        let facts = vec![fact("a", Some("home"), 10.0, None), fact("b", Some("home"), 20.0, None), fact("c", Some("home"), 30.0, None), m];
        let v = validity(&facts);
        assert_eq!(v.get(3).map(|v| v.until), Some(Some(30.0)), "the merge spans 10..30, then c holds");
        assert!(v.get(2).is_some_and(Validity::current));
    }
}
