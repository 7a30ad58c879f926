//! Stable sorting through one instance of the standard sort.
//!
//! `slice::sort_by` is generic over the element and the comparator, so each
//! call site with its own closure compiles the whole driftsort again (about
//! 1 KB of the gzipped wasm each). These sort positions instead, with a
//! comparator behind `dyn`: one instance of the standard sort for the crate,
//! and per call site only the small permutation below. A stable sort's
//! result is fixed by its comparator, so the order is the one
//! `slice::sort_by` gives, ties in input order.

use std::cmp::Ordering;

/// `v.sort_by(cmp)`: stable.
pub(crate) fn sort_by<T>(v: &mut [T], mut cmp: impl FnMut(&T, &T) -> Ordering) {
    let mut order: Vec<usize> = (0..v.len()).collect();
    {
        let items: &[T] = v;
        positions(&mut order, &mut |a, b| match (items.get(a), items.get(b)) {
            (Some(x), Some(y)) => cmp(x, y),
            _ => Ordering::Equal,
        });
    }
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

/// The one instance of the standard sort: positions, by `cmp` of what is there.
fn positions(order: &mut [usize], cmp: &mut dyn FnMut(usize, usize) -> Ordering) {
    order.sort_by(|&a, &b| cmp(a, b));
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
        let mut words = vec!["pear", "apple", "fig", "apple"];
        sort(&mut words);
        assert_eq!(words, ["apple", "apple", "fig", "pear"]);
    }
}
