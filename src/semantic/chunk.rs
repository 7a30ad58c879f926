//! Splitting documents into chunks of at most `max` tokens, each starting
//! with up to `overlap` tokens of the end of the previous one, cut at
//! sentence ends where possible so a chunk reads as text.

use crate::summary::sentences;

/// Cuts a sentence longer than `max` tokens into pieces that fit, at char
/// boundaries, by halving: the count is monotone in length.
fn split_long(s: &str, max: usize, count: &dyn Fn(&str) -> usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest: &str = s;
    while !rest.is_empty() {
        if count(rest) <= max {
            out.push(rest.to_string());
            break;
        }
        let chars: Vec<(usize, char)> = rest.char_indices().collect();
        let (mut lo, mut hi) = (1usize, chars.len());
        while lo < hi {
            let mid = (lo + hi + 1) / 2;
            let end = chars.get(mid).map_or(rest.len(), |c| c.0);
            if count(&rest[..end]) <= max {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        let end = chars.get(lo).map_or(rest.len(), |c| c.0);
        out.push(rest[..end].to_string());
        rest = &rest[end..];
    }
    out
}

/// The chunks of `text`. Every chunk counts at most `max` tokens (joined
/// with single spaces) and the chunks cover the whole text in order.
pub fn chunk(text: &str, max: usize, overlap: usize, count: &dyn Fn(&str) -> usize) -> Vec<String> {
    let max = max.max(8);
    let overlap = overlap.min(max / 2);
    let parts: Vec<String> = sentences(text).iter().flat_map(|s| split_long(s, max, count)).collect();
    let mut chunks: Vec<String> = Vec::new();
    let mut cur: Vec<&str> = Vec::new();
    let mut fresh = 0; // sentences in `cur` not carried over from the previous chunk
    for p in &parts {
        let candidate = if cur.is_empty() { p.clone() } else { format!("{} {}", cur.join(" "), p) };
        if count(&candidate) <= max || cur.is_empty() {
            cur.push(p);
            fresh += 1;
            continue;
        }
        chunks.push(cur.join(" "));
        // Carry the tail of this chunk forward as overlap.
        let mut carried: Vec<&str> = Vec::new();
        for s in cur.iter().rev() {
            let with = if carried.is_empty() { s.to_string() } else { format!("{s} {}", carried.join(" ")) };
            if count(&with) > overlap || count(&format!("{with} {p}")) > max {
                break;
            }
            carried.insert(0, s);
        }
        cur = carried;
        cur.push(p);
        fresh = 1;
    }
    if fresh > 0 {
        chunks.push(cur.join(" "));
    }
    chunks
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> usize {
        s.split_whitespace().count() + s.chars().filter(|c| !c.is_ascii()).count()
    }

    #[test]
    fn chunks_fit_cover_and_overlap() {
        let text = (0..60).map(|i| format!("Sentence number {i} is here.")).collect::<Vec<_>>().join(" ");
        let chunks = chunk(&text, 30, 10, &words);
        assert!(chunks.len() > 3);
        for c in &chunks {
            assert!(words(c) <= 30, "{c}");
        }
        for i in 0..60 {
            assert!(chunks.iter().any(|c| c.contains(&format!("number {i} "))), "sentence {i} lost");
        }
        // Each chunk repeats the last sentence of the one before (the overlap).
        for w in chunks.windows(2) {
            let last = w[0].rsplit(". ").next().unwrap();
            assert!(w[1].contains(last), "{:?} / {:?}", w[0], w[1]);
            assert!(words(&w[1][..w[1].find(last).unwrap()]) <= 10, "overlap beyond its budget");
        }
    }

    #[test]
    fn a_sentence_longer_than_a_chunk_is_cut() {
        let long = "字".repeat(100);
        let chunks = chunk(&long, 30, 5, &words);
        assert!(chunks.iter().all(|c| words(c) <= 30));
        assert_eq!(chunks.concat().replace(' ', ""), long);
    }
}
