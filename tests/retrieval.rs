//! The retrieval engine's contracts: BM25 arithmetic, exact vector top-k,
//! int8 recall, errors that change nothing, filters, fusion.

use agent_memory::retrieval::{hybrid_search, rrf, Bm25Index, Bm25Params, HybridParams, VectorIndex, VectorMode};
use proptest::prelude::*;

#[path = "support/embeddings.rs"]
mod embeddings;
use embeddings::{clustered, Rng};

fn close(a: f32, b: f64) -> bool {
    (a as f64 - b).abs() < 1e-5
}

#[test]
fn module_doc_example() {
    let mut words = Bm25Index::new();
    words.add(1, "我的航班是 CA1234，周五早上 8 点起飞");
    words.add(2, "The deployment script lives in deploy_prod.sh");
    let hits = words.search("航班几点起飞", 5, |_| true);
    assert_eq!(hits[0].0, 1);

    let mut vecs = VectorIndex::new(VectorMode::Exact);
    vecs.add(1, &[1.0, 0.0, 0.2]).unwrap();
    vecs.add(2, &[0.0, 1.0, 0.0]).unwrap();
    let fused = hybrid_search(&words, &vecs, "deploy script", Some(&[0.1, 0.9, 0.0]), 2, HybridParams::default(), |_| true).unwrap();
    assert_eq!(fused[0].0, 2);
}

#[test]
fn bm25_scores_equal_hand_computed_values() {
    let mut idx = Bm25Index::new();
    idx.add(1, "cat dog cat"); //          |d| = 3: cat×2, dog×1
    idx.add(2, "dog fish"); //             |d| = 2: dog×1, fish×1
    idx.add(3, "fish fish fish bird"); //  |d| = 4: fish×3, bird×1
                                       // N = 3, avgdl = 9 / 3 = 3, k1 = 1.2, b = 0.75.
                                       // idf(cat)  = ln(1 + (3 − 1 + 0.5) / (1 + 0.5)) = ln(2.666667) = 0.980829
                                       // idf(fish) = ln(1 + (3 − 2 + 0.5) / (2 + 0.5)) = ln(1.6)      = 0.470004
                                       // K(|d|) = 1.2 · (0.25 + 0.75 · |d| / 3): K(3) = 1.2, K(2) = 0.9, K(4) = 1.5
                                       // doc 1: cat  tf 2: 0.980829 · 2 · 2.2 / (2 + 1.2) = 0.980829 · 1.375    = 1.348640
                                       // doc 3: fish tf 3: 0.470004 · 3 · 2.2 / (3 + 1.5) = 0.470004 · 1.466667 = 0.689339
                                       // doc 2: fish tf 1: 0.470004 · 1 · 2.2 / (1 + 0.9) = 0.470004 · 1.157895 = 0.544215
    let hits = idx.search("cat fish", 10, |_| true);
    assert_eq!(hits.iter().map(|h| h.0).collect::<Vec<_>>(), vec![1, 3, 2]);
    assert!(close(hits[0].1, 1.348640), "{hits:?}");
    assert!(close(hits[1].1, 0.689339), "{hits:?}");
    assert!(close(hits[2].1, 0.544215), "{hits:?}");

    // k1 = 2, b = 0: no length normalization, K = 2 for every document.
    // doc 1: 0.980829 · 2 · 3 / (2 + 2) = 1.471244; doc 3: 0.470004 · 3 · 3 / 5 = 0.846007;
    // doc 2: 0.470004 · 1 · 3 / 3 = 0.470004
    let mut flat = Bm25Index::with_params(Bm25Params { k1: 2.0, b: 0.0 }).unwrap();
    flat.add(1, "cat dog cat");
    flat.add(2, "dog fish");
    flat.add(3, "fish fish fish bird");
    let hits = flat.search("fish cat", 10, |_| true);
    assert!(close(hits[0].1, 1.471244) && close(hits[1].1, 0.846007) && close(hits[2].1, 0.470004), "{hits:?}");
}

#[test]
fn bm25_counts_cjk_unigrams_and_bigrams() {
    let mut idx = Bm25Index::new();
    idx.add(1, "航班"); // 航, 班, 航班: |d| = 3
    idx.add(2, "班车"); // 班, 车, 班车: |d| = 3
                        // N = 2, avgdl = 3, so K = 1.2 and each tf-1 term scores idf · 2.2 / 2.2 = idf.
                        // idf(航) = idf(航班) = ln(1 + 1.5 / 1.5) = ln 2; idf(班) = ln(1 + 0.5 / 2.5) = ln 1.2 = 0.182322
    let hits = idx.search("航班", 10, |_| true);
    assert_eq!(hits.len(), 2);
    assert_eq!(hits[0].0, 1);
    assert!(close(hits[0].1, 2.0 * std::f64::consts::LN_2 + 0.182322), "{hits:?}");
    assert!(close(hits[1].1, 0.182322), "{hits:?}");
}

#[test]
fn a_code_or_a_number_finds_only_the_documents_holding_it() {
    // Pairs whose terms shared a key before ANALYZER_VERSION 2, and so matched each other.
    let mut idx = Bm25Index::new();
    let pairs = [("PELICAN190", "PELICAN940"), ("PELICAN149", "PELICAN999"), ("13800071900", "13800079400")];
    for (i, (a, b)) in pairs.iter().enumerate() {
        idx.add(2 * i as u64, &format!("my booking code is {a}"));
        idx.add(2 * i as u64 + 1, &format!("my booking code is {b}"));
    }
    // The document holding the code first; the others hold at most its
    // word part (`pelican`), and score alike.
    for (i, (a, b)) in pairs.iter().enumerate() {
        for (q, want) in [(a, 2 * i as u64), (b, 2 * i as u64 + 1)] {
            let hits = idx.search(q, 10, |_| true);
            assert_eq!(hits.first().map(|h| h.0), Some(want), "{q}: {hits:?}");
            assert!(hits[1..].windows(2).all(|w| w[0].1 == w[1].1), "{q}: {hits:?}");
        }
    }
    assert_eq!(idx.search("13800079400", 10, |_| true).len(), 1);
}

#[test]
fn bm25_replaces_on_re_add_and_ignores_unknown_removes() {
    let mut idx = Bm25Index::new();
    idx.add(7, "alpha beta");
    idx.add(7, "gamma");
    assert_eq!(idx.len(), 1);
    assert!(idx.search("alpha", 5, |_| true).is_empty());
    assert_eq!(idx.search("gamma", 5, |_| true)[0].0, 7);
    assert!(!idx.remove(8));
    assert!(idx.remove(7));
    assert!(idx.is_empty() && idx.search("gamma", 5, |_| true).is_empty());
}

#[test]
fn bm25_term_frequency_saturates_at_255_and_memory_is_four_bytes_a_posting() {
    let mut idx = Bm25Index::new();
    idx.add(1, &"echo ".repeat(255));
    idx.add(2, &"echo ".repeat(400));
    idx.add(3, "other words");
    // Same tf (saturated), different lengths: the shorter document scores higher, both match.
    let hits = idx.search("echo", 5, |_| true);
    assert_eq!(hits.iter().map(|h| h.0).collect::<Vec<_>>(), [1, 2]);
    // Postings (a document's distinct terms) cost four bytes each, beside
    // per-document and per-term tables.
    let mut big = Bm25Index::new();
    let (mut postings, mut vocab) = (0, std::collections::HashSet::new());
    for d in 0..1000u64 {
        let text: String = (0..50).map(|w| format!("w{} ", (d * 7 + w) % 400)).collect();
        let mut terms = std::collections::HashSet::new();
        agent_memory::retrieval::analyze(&text, |t| {
            terms.insert(t.to_string());
        });
        postings += terms.len();
        vocab.extend(terms);
        big.add(d, &text);
    }
    big.shrink_to_fit();
    let tables = 1000 * 40 + vocab.len() * 80;
    assert!(big.heap_bytes() <= postings * 4 + tables, "{} bytes for {postings} postings", big.heap_bytes());
}

#[test]
fn bm25_rejects_bad_params() {
    for (k1, b) in [(-1.0, 0.5), (f32::NAN, 0.5), (1.2, 1.5), (1.2, -0.1), (f32::INFINITY, 0.5)] {
        let e = Bm25Index::with_params(Bm25Params { k1, b }).unwrap_err();
        assert_eq!(e.code(), "INVALID_INPUT");
    }
}

#[test]
fn bm25_filter_is_applied_and_top_k_is_the_best_accepted() {
    let mut idx = Bm25Index::new();
    for i in 0..200u64 {
        idx.add(i, &format!("report {} {}", "draft ".repeat((i % 7) as usize), i % 13));
    }
    let all = idx.search("draft report", 1000, |_| true);
    let even: Vec<_> = all.iter().filter(|h| h.0 % 2 == 0).take(10).cloned().collect();
    assert_eq!(idx.search("draft report", 10, |id| id % 2 == 0), even);
}

/// Words drawn from a small vocabulary so queries and documents overlap.
fn doc_text() -> impl Strategy<Value = String> {
    let words = prop::sample::select(vec!["flight", "航班", "起飞", "周五", "cat", "dogs", "fetchUserName", "CA1234", "8:40", "咖啡"]);
    prop::collection::vec(words, 0..8).prop_map(|w| w.join(" "))
}

proptest! {
    /// Any mix of adds, replacements and removes scores exactly like an
    /// index built fresh from the surviving documents.
    #[test]
    fn bm25_incremental_equals_rebuilt(ops in prop::collection::vec((0u64..12, prop::option::of(doc_text())), 1..40),
                                       query in doc_text()) {
        let mut live = std::collections::BTreeMap::new();
        let mut idx = Bm25Index::new();
        for (id, text) in &ops {
            match text {
                Some(t) => { idx.add(*id, t); live.insert(*id, t.clone()); }
                None => { prop_assert_eq!(idx.remove(*id), live.remove(id).is_some()); }
            }
        }
        let mut fresh = Bm25Index::new();
        for (id, t) in &live {
            fresh.add(*id, t);
        }
        prop_assert_eq!(idx.len(), live.len());
        let (a, b) = (idx.search(&query, 20, |_| true), fresh.search(&query, 20, |_| true));
        prop_assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(&b) {
            prop_assert_eq!(x.0, y.0);
            prop_assert!((x.1 - y.1).abs() < 1e-5, "{:?} vs {:?}", a, b);
        }
    }
}

proptest! {
    /// Documents read from stored terms (`retrieval::terms`), in segments
    /// added one at a time or several together (`add_stored_many`, a
    /// damaged one among them), given other ids with some dropped, score
    /// bit for bit like the survivors added from their text.
    #[test]
    fn bm25_from_stored_terms_equals_from_text(docs in prop::collection::vec((doc_text(), any::<bool>()), 0..30),
                                               per_segment in 1usize..8, per_batch in 1usize..5, query in doc_text()) {
        use agent_memory::retrieval::terms::{doc_terms, SegmentTerms};
        let kept = |i: usize| docs.get(i).is_some_and(|d| d.1);
        let mut from_text = Bm25Index::new();
        for (i, (text, _)) in docs.iter().enumerate().filter(|(i, _)| kept(*i)) {
            from_text.add(1000 + i as u64, text);
        }
        let mut stored = Bm25Index::new();
        let segments: Vec<(Vec<u8>, Vec<Option<u64>>)> = docs
            .chunks(per_segment)
            .enumerate()
            .map(|(n, chunk)| {
                let mut seg = SegmentTerms::new();
                for (text, _) in chunk {
                    seg.push(Some(doc_terms(text)));
                }
                (seg.encode(), (0..chunk.len()).map(|j| Some(1000 + (n * per_segment + j) as u64)).collect())
            })
            .collect();
        for batch in segments.chunks(per_batch) {
            let mut given = batch.to_vec();
            // A damaged segment in the middle is refused alone.
            given.insert(given.len() / 2, (vec![1u8, 2, 0xff], vec![Some(5), None]));
            prop_assert_eq!(stored.add_stored_many(&given), given.len() - 1);
        }
        stored.retain(&mut (0..docs.len()).filter(|&i| kept(i)).map(|i| 1000 + i as u64));
        prop_assert_eq!(stored.len(), from_text.len());
        prop_assert_eq!(stored.search(&query, 50, |_| true), from_text.search(&query, 50, |_| true));
        prop_assert_eq!(stored.query_weight(&query, 1).to_bits(), from_text.query_weight(&query, 1).to_bits());
    }
}

/// Brute-force cosine in f64 over the live vectors.
fn brute_force(live: &[(u64, Vec<f32>)], q: &[f32], keep: impl Fn(u64) -> bool) -> Vec<(u64, f64)> {
    let norm = |v: &[f32]| v.iter().map(|&x| x as f64 * x as f64).sum::<f64>().sqrt();
    let mut all: Vec<(u64, f64)> = live
        .iter()
        .filter(|(id, _)| keep(*id))
        .map(|(id, v)| (*id, v.iter().zip(q).map(|(&a, &b)| a as f64 * b as f64).sum::<f64>() / (norm(v) * norm(q))))
        .collect();
    all.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    all
}

/// `got` is a correct top-k of `reference`: same length, each returned score
/// is that id's true cosine, and the i-th score is the i-th best true score
/// (so ids may differ only between true near-ties).
fn assert_top_k(got: &[(u64, f32)], reference: &[(u64, f64)], k: usize) {
    assert_eq!(got.len(), k.min(reference.len()));
    for (i, &(id, score)) in got.iter().enumerate() {
        let truth = reference.iter().find(|r| r.0 == id).expect("returned id exists").1;
        assert!((score as f64 - truth).abs() < 1e-5, "score of {id}: {score} vs {truth}");
        assert!((score as f64 - reference[i].1).abs() < 1e-5, "rank {i}: {score} vs {}", reference[i].1);
    }
    let mut ids: Vec<u64> = got.iter().map(|g| g.0).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), got.len(), "no duplicates");
}

#[test]
fn vector_top_k_equals_brute_force_on_random_data() {
    let mut rng = Rng(1);
    for dim in [1, 3, 8, 17, 100, 384] {
        for mode in [VectorMode::Exact, VectorMode::INT8] {
            let mut idx = VectorIndex::new(mode);
            let mut live: Vec<(u64, Vec<f32>)> = Vec::new();
            for id in 0..600u64 {
                let v = rng.vector(dim);
                idx.add(id, &v).unwrap();
                live.push((id, v));
            }
            // Removals (swap-remove inside) and replacements keep it exact.
            for _ in 0..150 {
                let at = rng.below(live.len());
                let (id, _) = live.swap_remove(at);
                assert!(idx.remove(id));
            }
            for _ in 0..50 {
                let at = rng.below(live.len());
                let v = rng.vector(dim);
                idx.add(live[at].0, &v).unwrap();
                live[at].1 = v;
            }
            assert_eq!(idx.len(), live.len());
            for _ in 0..20 {
                let q = rng.vector(dim);
                let k = 1 + rng.below(12);
                let reference = brute_force(&live, &q, |_| true);
                let got = idx.search(&q, k, |_| true).unwrap();
                if mode == VectorMode::Exact {
                    assert_top_k(&got, &reference, k);
                } else {
                    // Int8 returns exact scores for the ids it returns.
                    for &(id, s) in &got {
                        let truth = reference.iter().find(|r| r.0 == id).unwrap().1;
                        assert!((s as f64 - truth).abs() < 1e-5);
                    }
                }
                let filtered = idx.search(&q, k, |id| id % 3 == 0).unwrap();
                assert!(filtered.iter().all(|h| h.0 % 3 == 0));
                if mode == VectorMode::Exact {
                    assert_top_k(&filtered, &brute_force(&live, &q, |id| id % 3 == 0), k);
                }
            }
        }
    }
}

#[test]
fn int8_recall_at_10_is_at_least_0_98_on_clustered_embeddings() {
    let mut rng = Rng(2);
    let data = clustered(&mut rng, 10_100, 384, 50);
    let (base, queries) = data.split_at(10_000);
    let mut exact = VectorIndex::new(VectorMode::Exact);
    let mut int8 = VectorIndex::new(VectorMode::INT8);
    for (i, v) in base.iter().enumerate() {
        exact.add(i as u64, v).unwrap();
        int8.add(i as u64, v).unwrap();
    }
    let mut found = 0;
    for q in queries {
        let truth = exact.search(q, 10, |_| true).unwrap();
        let got = int8.search(q, 10, |_| true).unwrap();
        found += got.iter().filter(|g| truth.iter().any(|t| t.0 == g.0)).count();
    }
    let recall = found as f64 / (10 * queries.len()) as f64;
    assert!(recall >= 0.98, "int8 recall@10 = {recall}");
}

#[test]
fn bad_vectors_are_errors_and_change_nothing() {
    for mode in [VectorMode::Exact, VectorMode::INT8] {
        let mut idx = VectorIndex::new(mode);
        assert_eq!(idx.add(1, &[]).unwrap_err().code(), "INVALID_VECTOR");
        assert_eq!(idx.add(1, &[0.0, 0.0, 0.0]).unwrap_err().code(), "INVALID_VECTOR");
        assert_eq!(idx.dim(), None, "a rejected first vector fixes no dimension");
        idx.add(1, &[1.0, 2.0, 3.0]).unwrap();
        idx.add(2, &[3.0, 2.0, 1.0]).unwrap();
        let q = [1.0, 1.0, 0.0];
        let before = idx.search(&q, 5, |_| true).unwrap();
        let bad: [(&[f32], &str); 6] = [
            (&[1.0, 2.0], "DIMENSION_MISMATCH"),
            (&[1.0, 2.0, 3.0, 4.0], "DIMENSION_MISMATCH"),
            (&[1.0, f32::NAN, 3.0], "INVALID_VECTOR"),
            (&[f32::INFINITY, 0.0, 0.0], "INVALID_VECTOR"),
            (&[0.0, 0.0, 0.0], "INVALID_VECTOR"),
            (&[], "INVALID_VECTOR"),
        ];
        for (v, code) in bad {
            // Both a new id and a replacement of an existing one.
            for id in [3, 1] {
                assert_eq!(idx.add(id, v).unwrap_err().code(), code, "{v:?}");
            }
            assert_eq!(idx.search(v, 5, |_| true).unwrap_err().code(), code);
        }
        assert_eq!(idx.len(), 2);
        assert!(!idx.contains(3));
        assert_eq!(idx.search(&q, 5, |_| true).unwrap(), before);
        // Large finite values are valid: the norm is taken in f64.
        idx.add(4, &[3e38, 3e38, 0.0]).unwrap();
        assert!((idx.search(&[1.0, 1.0, 0.0], 1, |_| true).unwrap()[0].1 - 1.0).abs() < 1e-6);
    }
}

#[test]
fn empty_vector_index_returns_nothing_for_valid_queries() {
    let idx = VectorIndex::new(VectorMode::Exact);
    assert!(idx.search(&[1.0, 0.0], 5, |_| true).unwrap().is_empty());
    assert_eq!(idx.search(&[f32::NAN], 5, |_| true).unwrap_err().code(), "INVALID_VECTOR");
}

#[test]
fn hybrid_prefers_documents_both_retrievers_find() {
    let mut words = Bm25Index::new();
    let mut vecs = VectorIndex::new(VectorMode::Exact);
    let texts = ["周五的航班几点起飞", "flight to Tokyo on Friday", "Friday pizza night", "东京的天气"];
    let embeddings = [[0.9, 0.1, 0.0], [1.0, 0.0, 0.1], [0.0, 1.0, 0.0], [0.7, 0.0, 0.7]];
    for (i, (t, e)) in texts.iter().zip(&embeddings).enumerate() {
        words.add(i as u64, t);
        vecs.add(i as u64, e).unwrap();
    }
    let p = HybridParams::default();
    // Lexically "Friday" matches 1 and 2; semantically 1 and 0 are closest.
    let fused = hybrid_search(&words, &vecs, "Friday flight", Some(&[1.0, 0.0, 0.0]), 3, p, |_| true).unwrap();
    assert_eq!(fused[0].0, 1);
    // Without an embedding the order is the lexical one.
    let lexical: Vec<u64> = words.search("Friday flight", 10, |_| true).iter().map(|h| h.0).collect();
    let fused: Vec<u64> = hybrid_search(&words, &vecs, "Friday flight", None, 10, p, |_| true).unwrap().iter().map(|h| h.0).collect();
    assert_eq!(fused, lexical);
    // The filter reaches both retrievers.
    let fused = hybrid_search(&words, &vecs, "Friday flight", Some(&[1.0, 0.0, 0.0]), 3, p, |id| id != 1).unwrap();
    assert!(fused.iter().all(|h| h.0 != 1) && !fused.is_empty());
    // A bad embedding is the vector index's error.
    let e = hybrid_search(&words, &vecs, "x", Some(&[1.0]), 3, p, |_| true).unwrap_err();
    assert_eq!(e.code(), "DIMENSION_MISMATCH");
}

#[test]
fn rrf_orders_by_fused_rank_then_id() {
    let a = [(10, 5.0), (20, 4.0)];
    let b = [(20, 0.9), (10, 0.8)];
    // Both ids score 1/61 + 1/62: the tie breaks by id.
    let fused = rrf(&[&a, &b], 60);
    assert_eq!(fused.iter().map(|h| h.0).collect::<Vec<_>>(), vec![10, 20]);
    assert_eq!(fused[0].1, fused[1].1);
    assert!(rrf(&[], 60).is_empty());
}
