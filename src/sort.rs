//! Stable sorting, one small merge sort for the whole crate.
//!
//! `slice::sort_by` is generic over the element and the comparator, so each
//! call site with its own closure compiles the whole driftsort again (about
//! 1 KB of the gzipped wasm each), and even one instance is larger than a
//! plain merge sort. These sort positions instead, with a comparator behind
//! `dyn`: one natural merge sort (ascending runs found, then merged pairwise:
//! n − 1 comparisons on sorted input, O(n log n) at worst), and per call
//! site only the small permutation below. A stable sort's result is fixed
//! by its comparator, so the order is the one `slice::sort_by` gives, ties
//! in input order.

use std::cmp::Ordering;

/// `v.sort_by(cmp)`: stable.
pub(crate) fn sort_by<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    let mut order = {
        let items: &[T] = v;
        positions(items.len(), &mut |a, b| match (items.get(a), items.get(b)) {
            (Some(x), Some(y)) => cmp(x, y),
            _ => Ordering::Equal,
        })
    };
    permute(v, &mut order);
}

/// `v.sort_by_key(key)`: stable.
pub(crate) fn sort_by_key<T, K: Ord>(v: &mut [T], mut key: impl FnMut(&T) -> K) {
    sort_by(v, |a, b| key(a).cmp(&key(b)));
}

/// `v.sort()` (stable; for elements whose equal values are alike, such as
/// integers, also what `sort_unstable` gives).
pub(crate) fn sort<T: Ord>(v: &mut [T]) {
    sort_by(v, T::cmp);
}

/// `v.sort_unstable()` for integer keys (equal ones are alike, so every
/// sort gives this result): a heapsort in place, O(n log n) without
/// allocating, instead of the standard quicksort's own instance (3 KB of
/// wasm). Its callers sort the term keys of one text or one index.
pub(crate) fn sort_keys(v: &mut [u64]) {
    let n = v.len();
    for root in (0..n / 2).rev() {
        sift_down(v, root, n);
    }
    for end in (1..n).rev() {
        v.swap(0, end);
        sift_down(v, 0, end);
    }
}

/// Moves `v[root]` down the max-heap `v[..end]` to where it belongs.
fn sift_down(v: &mut [u64], mut root: usize, end: usize) {
    loop {
        let mut child = 2 * root + 1;
        if child >= end {
            return;
        }
        if child + 1 < end && v.get(child) < v.get(child + 1) {
            child += 1;
        }
        if v.get(root) >= v.get(child) {
            return;
        }
        v.swap(root, child);
        root = child;
    }
}

/// The positions `0..n` in the stable order of `cmp` on what is at them.
fn positions(n: usize, cmp: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    // Where each ascending run ends (a tie continues a run: stability).
    let mut ends: Vec<usize> = (1..n).filter(|&k| cmp(k - 1, k) == Ordering::Greater).collect();
    ends.push(n);
    let mut order: Vec<usize> = (0..n).collect();
    while ends.len() > 1 {
        let mut merged = Vec::with_capacity(n);
        let mut merged_ends = Vec::with_capacity(ends.len() / 2 + 1);
        let mut start = 0;
        for pair in ends.chunks(2) {
            let (mid, end) = match *pair {
                [mid, end] => (mid, end),
                [end] => (end, end),
                _ => break,
            };
            let (a, b) = (order.get(start..mid).unwrap_or_default(), order.get(mid..end).unwrap_or_default());
            let (mut a, mut b) = (a.iter().copied().peekable(), b.iter().copied().peekable());
            // The left run's element first unless the right one is smaller.
            while let (Some(&x), Some(&y)) = (a.peek(), b.peek()) {
                if cmp(y, x) == Ordering::Less {
                    merged.push(y);
                    b.next();
                } else {
                    merged.push(x);
                    a.next();
                }
            }
            merged.extend(a.chain(b));
            merged_ends.push(end);
            start = end;
        }
        order = merged;
        ends = merged_ends;
    }
    order
}

/// Puts `v[order[i]]` at `i`, following each cycle of the permutation with
/// swaps; `order` is left as the identity.
fn permute<T>(v: &mut [T], order: &mut [usize]) {
    for start in 0..order.len() {
        let mut at = start;
        while let Some(slot) = order.get_mut(at) {
            let from = std::mem::replace(slot, at);
            if from == start || from == at || from >= v.len() {
                break;
            }
            v.swap(at, from);
            at = from;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_as_the_standard_stable_sort_does() {
        let mut seed = 7u64;
        for n in [0usize, 1, 2, 3, 5, 8, 20, 33, 100, 257] {
            let v: Vec<(u8, usize)> = (0..n)
                .map(|i| {
                    seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    ((seed >> 60) as u8, i)
                })
                .collect();
            let mut ours = v.clone();
            sort_by(&mut ours, |a, b| a.0.cmp(&b.0));
            let mut std = v.clone();
            std.sort_by_key(|x| x.0);
            assert_eq!(ours, std, "n = {n}");
            let mut ours = v.clone();
            sort_by_key(&mut ours, |x| std::cmp::Reverse(x.0));
            let mut std = v;
            std.sort_by_key(|x| std::cmp::Reverse(x.0));
            assert_eq!(ours, std, "n = {n}");
        }
        for v in [(0..50).collect::<Vec<u32>>(), (0..50).rev().collect(), (0..50).map(|i| i % 7).collect(), vec![3; 9]] {
            let (mut ours, mut std) = (v.iter().enumerate().collect::<Vec<_>>(), v.iter().enumerate().collect::<Vec<_>>());
            sort_by_key(&mut ours, |x| x.1);
            std.sort_by_key(|x| x.1);
            assert_eq!(ours, std);
        }
        for n in [0usize, 1, 2, 3, 7, 64, 1000] {
            let mut keys: Vec<u64> = (0..n as u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15) % 97).collect();
            let mut std = keys.clone();
            sort_keys(&mut keys);
            std.sort_unstable();
            assert_eq!(keys, std, "n = {n}");
        }
        let mut words = vec!["pear", "apple", "fig", "apple"];
        sort(&mut words);
        assert_eq!(words, ["apple", "apple", "fig", "pear"]);
    }
}
