//! Splitting documents into chunks of at most `max` tokens, each starting
//! with up to `overlap` tokens of the end of the previous one, cut at
//! sentence ends where possible so a chunk reads as text.

use crate::summary::sentences;

/// Cuts a sentence longer than `max` tokens into pieces that fit, at char
/// boundaries. A piece need not be the longest that fits, only full enough
/// (at least nine tenths of `max`): each is found by probing a prefix of
/// the remainder, first as long as the last piece, then where the counts
/// so far say `max` lies (the count is monotone in length, and nearly
/// proportional), falling back to halving. A piece costs a couple of
/// counts of its own length, so the whole text is cut in about linear
/// time, never by recounting the remainder.
fn split_long(s: &str, max: usize, count: &dyn Fn(&str) -> usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest: &str = s;
    let mut guess = max.max(1); // chars; the pieces of one text are alike
    while !rest.is_empty() {
        let bounds: Vec<usize> = rest.char_indices().map(|(i, _)| i).take(4 * guess + 2).chain([rest.len()]).collect();
        let last = bounds.len() - 1; // the longest prefix looked at, in chars
        let at = |n: usize| bounds.get(n.min(last)).copied().unwrap_or(rest.len());
        // (chars, tokens) of the longest prefix known to fit and the shortest known not to.
        let (mut lo, mut hi): ((usize, usize), Option<(usize, usize)>) = ((0, 0), None);
        let mut probe = guess.min(last);
        let cut = loop {
            let c = count(&rest[..at(probe)]);
            if c <= max {
                lo = (probe, c);
                if c * 10 >= max * 9 || at(probe) == rest.len() || hi.is_some_and(|h| h.0 == probe + 1) {
                    break probe;
                }
            } else {
                hi = Some((probe, c));
                if lo.0 + 1 >= probe {
                    break lo.0.max(1); // one char more overflows: take what fits
                }
            }
            // Where `max` lies if tokens grow in proportion to chars, kept strictly inside (lo, hi).
            let (l, h) = (lo, hi.unwrap_or((last + 1, usize::MAX)));
            let per_char = c.max(1) as f64 / probe as f64;
            let aim = (l.0 as f64 + (max - l.1) as f64 * 0.97 / per_char) as usize;
            probe = aim.clamp(l.0 + 1, h.0 - 1).min(last);
            if probe <= l.0 {
                break l.0.max(1);
            }
        };
        guess = cut;
        out.push(rest[..at(cut)].to_string());
        rest = &rest[at(cut)..];
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
    fn cutting_costs_counts_of_about_the_text_not_its_square() {
        use std::cell::Cell;
        let counted = Cell::new(0usize);
        let chars = |s: &str| {
            counted.set(counted.get() + s.len());
            s.chars().count()
        };
        let long = "x".repeat(200_000);
        let chunks = chunk(&long, 300, 0, &chars);
        assert_eq!(chunks.concat(), long);
        assert!(chunks.iter().all(|c| c.chars().count() <= 300));
        // Each byte is counted about four times (the piece, then the chunk it joins);
        // recounting the remainder per piece counted it hundreds of times.
        assert!(counted.get() < 8 * long.len(), "counted {} bytes for a {}-byte text", counted.get(), long.len());
    }

    #[test]
    fn a_sentence_longer_than_a_chunk_is_cut() {
        let long = "字".repeat(100);
        let chunks = chunk(&long, 30, 5, &words);
        assert!(chunks.iter().all(|c| words(c) <= 30));
        assert_eq!(chunks.concat().replace(' ', ""), long);
    }
}
