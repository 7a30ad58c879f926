//! The exact counter against the reference, tiktoken-rs `encode_ordinary`:
//! same token ids on the fixture corpus (`tests/fixtures/tokenizer/`) and on
//! random strings of tricky characters, for both encodings; the same pieces as
//! the reference regexes (run through tiktoken-rs itself, see `check_pieces`),
//! for every code point in several contexts; and `from_asset` rejecting bad
//! data without panicking. The assets are built in-process with the same
//! writer `examples/gen_ranks.rs` uses.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use agent_memory::tokens::exact::{asset, Bpe, Encoding};
use agent_memory::MemoryError;
use proptest::prelude::*;
use tiktoken_rs::CoreBPE;

const ENCODINGS: [Encoding; 2] = [Encoding::O200kBase, Encoding::Cl100kBase];

struct Fixture {
    asset: Vec<u8>,
    reference: CoreBPE,
}

fn fixture(encoding: Encoding) -> &'static Fixture {
    static O200K: OnceLock<Fixture> = OnceLock::new();
    static CL100K: OnceLock<Fixture> = OnceLock::new();
    let (cell, make): (&OnceLock<Fixture>, fn() -> CoreBPE) = match encoding {
        Encoding::O200kBase => (&O200K, || tiktoken_rs::o200k_base().unwrap()),
        Encoding::Cl100kBase => (&CL100K, || tiktoken_rs::cl100k_base().unwrap()),
    };
    cell.get_or_init(|| {
        let reference = make();
        let asset = asset::write_asset(encoding, tokens_in_rank_order(&reference)).unwrap();
        Fixture { asset, reference }
    })
}

/// Token bytes in rank order up to the first special token (as gen_ranks does).
fn tokens_in_rank_order(bpe: &CoreBPE) -> Vec<Vec<u8>> {
    let specials: HashSet<u32> = bpe.special_tokens().into_iter().flat_map(|s| bpe.encode_with_special_tokens(s)).collect();
    let first_special = *specials.iter().min().unwrap();
    let mut tokens: Vec<Vec<u8>> = (0..first_special).map(|r| bpe.decode_bytes(&[r]).unwrap_or_default()).collect();
    while tokens.last().is_some_and(|t| t.is_empty()) {
        tokens.pop();
    }
    tokens
}

thread_local! {
    // `Bpe` is not `Sync` (its cache is a RefCell): one per test thread.
    static BPES: [Bpe; 2] = ENCODINGS.map(|e| Bpe::from_asset(e, &fixture(e).asset).unwrap());
}

/// Asserts ids and count equal the reference's for `text` in both encodings.
fn check(text: &str) -> Result<(), TestCaseError> {
    BPES.with(|bpes| {
        for bpe in bpes {
            let want = fixture(bpe.encoding()).reference.encode_ordinary(text);
            prop_assert_eq!(&bpe.encode(text), &want, "{:?} ids of {:?}", bpe.encoding(), text);
            prop_assert_eq!(bpe.count(text), want.len(), "{:?} count of {:?}", bpe.encoding(), text);
        }
        Ok(())
    })
}

fn fixture_texts() -> Vec<(String, String)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/tokenizer");
    let mut out: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| (p.display().to_string(), std::fs::read_to_string(&p).unwrap()))
        .collect();
    out.sort();
    assert!(out.len() >= 8, "fixtures missing from {dir}");
    out
}

#[test]
fn exact_fixtures_match_reference() {
    for (name, text) in fixture_texts() {
        check(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        for e in ENCODINGS {
            check_pieces(e, &text).unwrap_or_else(|err| panic!("{name}: {err}"));
        }
        for line in text.split_inclusive('\n') {
            check(line).unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        // Every suffix from each char boundary: pieces start at every kind of position.
        for (i, _) in text.char_indices().step_by(7) {
            check(&text[i..]).unwrap_or_else(|e| panic!("{name}@{i}: {e}"));
        }
    }
}

#[test]
fn exact_all_fixtures_concatenated_and_repeated() {
    let all: String = fixture_texts().into_iter().map(|(_, t)| t).collect();
    let big = all.repeat(3);
    check(&big).unwrap();
    // Counting again hits the piece cache `check` filled: still the
    // reference's count, and a fresh counter's, whose cache is cold.
    BPES.with(|bpes| {
        for bpe in bpes {
            let fixture = fixture(bpe.encoding());
            let want = fixture.reference.encode_ordinary(&big).len();
            assert_eq!(bpe.count(&big), want, "{:?} warm", bpe.encoding());
            let cold = Bpe::from_asset(bpe.encoding(), &fixture.asset).unwrap();
            assert_eq!(cold.count(&big), want, "{:?} cold", bpe.encoding());
        }
    });
}

/// What the memory note's remembered picks rest on (`context::note::Picks`):
/// a count in a text costs tokens by its number of digits alone.
#[test]
fn every_run_of_up_to_three_digits_is_one_token() {
    BPES.with(|bpes| {
        for bpe in bpes {
            for n in 0..1000 {
                for text in [format!("{n}"), format!("{n:02}"), format!("{n:03}")] {
                    assert_eq!(bpe.count(&text), 1, "{:?}: {text}", bpe.encoding());
                }
            }
            assert_eq!(bpe.count("\n1234567 earlier messages"), bpe.count("\n9999999 earlier messages"));
        }
    });
}

#[test]
fn exact_long_pieces_use_the_large_merge() {
    let han: String = "中华人民共和国国务院总理".chars().cycle().take(400).collect();
    check(&han).unwrap();
    check(&" ".repeat(1000)).unwrap();
    check(&format!("x{}y", " ".repeat(300))).unwrap();
    check(&"ab".repeat(200)).unwrap();
    check(&"=".repeat(500)).unwrap();
    check(&"\n".repeat(300)).unwrap();
    check(&"🤖".repeat(100)).unwrap();
    // Either side of the switch from the flat-array merge to the heap merge.
    for n in 125..=131 {
        check(&"ab".repeat(n).chars().take(n).collect::<String>()).unwrap();
        check(&"国".repeat(n / 3 + 1)).unwrap();
    }
}

/// Characters that stress the pre-tokenizer's classes and backtracking.
fn tricky_char() -> impl Strategy<Value = char> {
    prop_oneof![
        8 => Just(' '),
        3 => Just('\n'),
        2 => Just('\r'),
        2 => Just('\t'),
        4 => prop::sample::select(vec!['a', 'b', 's', 't', 'l', 'e', 'v', 'r', 'd', 'm', 'z']),
        3 => prop::sample::select(vec!['A', 'B', 'S', 'T', 'L', 'E', 'V', 'R', 'D', 'M', 'Z']),
        2 => prop::sample::select(vec!['é', 'ß', 'ſ', 'ж', 'Ж', 'ǅ', 'ǈ', 'ʰ', 'ˈ', 'ª', 'ω', 'Ω']),
        3 => prop::sample::select(vec!['中', '文', '字', '日', 'あ', 'カ', 'ｶ', '한', 'ก', 'ا', 'ह', '𠀀']),
        2 => prop::sample::select(vec!['\u{301}', '\u{308}', '\u{93F}', '\u{94D}', '\u{20DD}', '\u{FE0F}', '\u{E0101}']),
        3 => prop::sample::select(vec!['0', '1', '9', '٣', '½', 'Ⅻ', '²']),
        4 => Just('\''),
        2 => prop::sample::select(vec!['/', '\\']),
        3 => prop::sample::select(vec!['.', ',', '!', '?', '-', '(', ')', '{', '}', '"', '<', '|', '>', '#', '_', '，', '。']),
        2 => prop::sample::select(vec!['😀', '👍', '\u{1F3FD}', '\u{200D}', '❤', '🇯', '🇵']),
        2 => prop::sample::select(vec!['\u{3000}', '\u{A0}', '\u{2028}', '\u{2029}', '\u{85}', '\u{B}', '\u{C}', '\u{202F}']),
        2 => prop::sample::select(vec!['\u{FEFF}', '\u{200B}', '\u{AD}', '\u{0}', '\u{1F}', '\u{7F}']),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4000, ..ProptestConfig::default() })]

    #[test]
    fn exact_random_tricky_strings_match_reference(chars in prop::collection::vec(tricky_char(), 0..48)) {
        let text: String = chars.into_iter().collect();
        check(&text)?;
    }

    #[test]
    fn exact_random_unicode_strings_match_reference(text in "\\PC{0,40}") {
        check(&text)?;
    }
}

/// cl100k_base's pattern as written in tiktoken-rs `cl100k_base()`, which does
/// not export it (o200k's is `tiktoken_rs::O200K_BASE_PAT_STR`).
const CL100K_PAT_STR: &str = "'(?i:[sdmt]|ll|ve|re)|[^\\r\\n\\p{L}\\p{N}]?+\\p{L}++|\\p{N}{1,3}+| ?[^\\s\\p{L}\\p{N}]++[\\r\\n]*+|\\s++$|\\s*[\\r\\n]|\\s+(?!\\S)|\\s";

/// Builds tiktoken-rs's encoder map without naming its hasher type.
fn encoder_map<M: Default + Extend<(Vec<u8>, u32)>>(items: impl IntoIterator<Item = (Vec<u8>, u32)>) -> M {
    let mut m = M::default();
    m.extend(items);
    m
}

/// Checks `Encoding::pieces` against the reference regex, run by tiktoken-rs
/// itself: a vocabulary of the 256 bytes, the 2-byte strings straddling each of
/// our piece boundaries (ranked first, so BPE merges across a boundary the
/// reference does not have), and our pieces. If the reference splits as we do,
/// each piece is exactly one token; a split of its own shows up as other ids.
fn check_pieces(encoding: Encoding, text: &str) -> Result<(), TestCaseError> {
    let pieces: Vec<&str> = encoding.pieces(text).collect();
    prop_assert_eq!(pieces.concat(), text);
    let mut rank: HashMap<Vec<u8>, u32> = (0..=255u8).map(|b| (vec![b], b as u32)).collect();
    let straddling = pieces.windows(2).map(|w| vec![*w[0].as_bytes().last().unwrap(), w[1].as_bytes()[0]]);
    for token in straddling.chain(pieces.iter().map(|p| p.as_bytes().to_vec())) {
        let next = rank.len() as u32;
        rank.entry(token).or_insert(next);
    }
    let expected: Vec<u32> = pieces.iter().map(|p| rank[p.as_bytes()]).collect();
    let pattern = match encoding {
        Encoding::O200kBase => tiktoken_rs::O200K_BASE_PAT_STR,
        Encoding::Cl100kBase => CL100K_PAT_STR,
    };
    let reference = CoreBPE::new(encoder_map(rank), Default::default(), pattern).unwrap();
    prop_assert_eq!(reference.encode_ordinary(text), expected, "{:?} pieces of {:?}", encoding, text);
    Ok(())
}

#[test]
fn exact_pieces_of_every_code_point_match_reference_regex() {
    // Above U+3FFFF only U+E0100..U+E01EF is not "other" (gen_unicode_table.py
    // asserts it); a sample of the rest stands in for it.
    let cps = (0..0x4_0000u32).chain(0xE_0000..0xE_0200).chain((0x4_0000..0x11_0000).step_by(4099));
    let mut text = String::new();
    for c in cps.filter_map(char::from_u32) {
        text.push_str(&format!("x{c}y{c}Z {c}{c}1.{c}'s\n{c} a"));
    }
    for e in ENCODINGS {
        check_pieces(e, &text).unwrap();
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn exact_random_pieces_match_reference_regex(chunks in prop::collection::vec(prop::collection::vec(tricky_char(), 0..24), 1..64)) {
        let text: String = chunks.iter().map(|c| c.iter().collect::<String>()).collect::<Vec<_>>().join("\u{1}");
        for e in ENCODINGS {
            check_pieces(e, &text)?;
        }
    }
}

fn invalid(r: agent_memory::Result<Bpe>) -> bool {
    matches!(r, Err(MemoryError::InvalidTokenizerData { .. }))
}

#[test]
fn exact_from_asset_rejects_bad_data() {
    let good = &fixture(Encoding::O200kBase).asset;
    assert!(Bpe::from_asset(Encoding::O200kBase, good).is_ok());
    assert!(invalid(Bpe::from_asset(Encoding::Cl100kBase, good)), "another encoding's data");
    let mut magic = good.clone();
    magic[0] ^= 0xFF;
    assert!(invalid(Bpe::from_asset(Encoding::O200kBase, &magic)));
    for len in (0..64).chain((64..good.len()).step_by(9973)).chain([good.len() - 1]) {
        assert!(invalid(Bpe::from_asset(Encoding::O200kBase, &good[..len])), "truncated to {len}");
    }
    let mut flipped = good.clone();
    flipped[good.len() / 2] ^= 0x40;
    assert!(invalid(Bpe::from_asset(Encoding::O200kBase, &flipped)));
    assert!(invalid(Bpe::from_asset(Encoding::O200kBase, &[])));
}

#[test]
fn exact_from_asset_rejects_unusable_vocabularies() {
    let bytes: Vec<Vec<u8>> = (0..=255u8).map(|b| vec![b]).collect();
    let ok = asset::write_asset(Encoding::Cl100kBase, &bytes).unwrap();
    let bpe = Bpe::from_asset(Encoding::Cl100kBase, &ok).unwrap();
    assert_eq!(bpe.count("hello"), 5);
    let missing = asset::write_asset(Encoding::Cl100kBase, &bytes[1..]).unwrap();
    assert!(invalid(Bpe::from_asset(Encoding::Cl100kBase, &missing)), "missing byte token");
    let mut dup = bytes.clone();
    dup.push(b"ab".to_vec());
    dup.push(b"ab".to_vec());
    let dup = asset::write_asset(Encoding::Cl100kBase, &dup).unwrap();
    assert!(invalid(Bpe::from_asset(Encoding::Cl100kBase, &dup)), "repeated token");
}

#[test]
fn exact_encoding_names() {
    for e in ENCODINGS {
        assert_eq!(Encoding::from_name(e.name()).unwrap(), e);
    }
    assert!(matches!(Encoding::from_name("p50k_base"), Err(MemoryError::UnknownEncoding(_))));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn exact_from_asset_never_panics_on_arbitrary_bytes(data in prop::collection::vec(any::<u8>(), 0..256)) {
        let _ = Bpe::from_asset(Encoding::O200kBase, &data);
        let mut framed = b"AMTKRANK\x01\x0ao200k_base".to_vec();
        framed.extend_from_slice(&data);
        let _ = Bpe::from_asset(Encoding::O200kBase, &framed);
    }

    #[test]
    fn exact_from_asset_handles_any_written_vocabulary(
        extra in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..40), 0..64),
        text in "\\PC{0,30}",
    ) {
        // Arbitrary tokens (with gaps, repeats) after the 256 bytes: either rejected
        // cleanly or a tokenizer whose pieces reassemble the text.
        let mut tokens: Vec<Vec<u8>> = (0..=255u8).map(|b| vec![b]).collect();
        tokens.extend(extra);
        let data = asset::write_asset(Encoding::O200kBase, &tokens).unwrap();
        match Bpe::from_asset(Encoding::O200kBase, &data) {
            Ok(bpe) => {
                let ids = bpe.encode(&text);
                let bytes: Vec<u8> = ids.iter().flat_map(|&id| tokens[id as usize].clone()).collect();
                prop_assert_eq!(bytes, text.as_bytes());
                prop_assert_eq!(bpe.count(&text), ids.len());
            }
            Err(e) => prop_assert_eq!(e.code(), "INVALID_TOKENIZER_DATA"),
        }
    }
}
