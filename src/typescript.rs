//! The TypeScript declarations of the values the core returns to JS,
//! derived from the Rust types that serialize them (`ts-rs`, compiled for
//! tests only: nothing of it reaches the wasm). `src/wasm/types.generated.ts`
//! holds them; `src/wasm/types.rs` puts it into the package's `.d.ts`.
//! The test below fails when the checked-in file differs from what the
//! types say; `UPDATE_TYPES=1 cargo test --lib typescript` rewrites it.
//!
//! `buildContext`'s options are derived too (`ContextOptions`, the type the
//! binding reads them as), and so are `create`'s that are data
//! (`CreateDataOptions`). The rest of what JS passes in is declared by hand
//! in `src/wasm/types.rs`: `create`'s hooks (JS values), the other option
//! objects, read by hand, and a message, a union by role of exact shapes so
//! that the openai client's types fit it, richer than `Message`, which keeps
//! any field as given.

use ts_rs::{Config, TS};

use crate::context::{
    Budget, CacheHint, Context, ContextOptions, Degraded, KnowledgeSection, Layout, OmitReason, Omitted, RecentSection, RetrievalMode,
    Sections, SummarySection, SystemSection,
};
use crate::controller::{
    Added, AddedMany, CompactionEvent, Consolidated, ConsolidationFact, ConsolidationRequest, CreateOptions, CurrentFact, Forgotten, Found,
    HistoryItem, Hit, HitKind, LayerTokens, MaxAge, MessageStats, Remembered, Retention, Stats, SummaryRequest, ThreadInfo, TokenizerStats,
    WorkingMemory,
};
use crate::cost::{CostLedger, ModelCost, PurposeCost};
use crate::episodic::recall::RecallWeights;
use crate::episodic::{Episode, SummarySource};
use crate::message::Message;
use crate::models::{ModelInfo, Tokenizer};
use crate::semantic::{Fact, FactKind};
use crate::store::record::Expired;
use crate::store::{CorruptKey, LoadReport};
use crate::window::Place;

/// A message is `ChatMessage`, declared by hand (see the module's docs).
impl TS for Message {
    type WithoutGenerics = Message;
    type OptionInnerType = Message;
    fn name(_: &Config) -> String {
        "ChatMessage".into()
    }
    fn inline(cfg: &Config) -> String {
        Self::name(cfg)
    }
}

const PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src/wasm/types.generated.ts");

const HEADER: &str = "\
// Generated from the Rust types by src/typescript.rs (ts-rs); do not edit.
// Regenerate: UPDATE_TYPES=1 cargo test --lib typescript
// Included in the package's .d.ts by src/wasm/types.rs, beside the
// hand-written declarations it refers to (ChatMessage, ToolDefinition).
";

/// The declarations written so far, and every type they refer to.
#[derive(Default)]
struct Out {
    text: String,
    declared: Vec<String>,
    referred: Vec<String>,
}

fn declaration<T: TS + 'static>(cfg: &Config, out: &mut Out) {
    out.declared.push(T::ident(cfg));
    out.referred.extend(T::dependencies(cfg).into_iter().map(|d| d.ts_name));
    let out = &mut out.text;
    out.push('\n');
    out.push_str(&T::docs().unwrap_or_default());
    out.push_str("export ");
    out.push_str(&layout(&T::decl(cfg)));
    out.push('\n');
}

/// An object type one field a line, as people write it (and as
/// wasm-bindgen's re-indenting of the `.d.ts` expects: it indents after a
/// line ending in `{` until one starting with `}`); ts-rs writes it on one.
fn layout(decl: &str) -> String {
    let Some((head, body)) = decl.split_once(" = { ") else { return decl.to_string() };
    let Some(body) = body.strip_suffix(" };") else { return decl.to_string() };
    let mut out = format!("{head} = {{\n");
    for field in fields(body) {
        for line in field.trim().lines() {
            let line = line.trim_end();
            match line.strip_prefix(' ') {
                Some(doc) => out.push_str(&format!("   {doc}\n")),
                None if line.starts_with("/**") => out.push_str(&format!("  {line}\n")),
                None => out.push_str(&format!("  {line};\n")),
            }
        }
    }
    out.push_str("};");
    out
}

/// The fields of an object type's body: split at the commas outside doc
/// comments and brackets.
fn fields(body: &str) -> Vec<&str> {
    let (mut out, mut start, mut depth, mut in_doc) = (Vec::new(), 0, 0i32, false);
    let bytes = body.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'/' if !in_doc && bytes.get(i + 1) == Some(&b'*') => in_doc = true,
            b'/' if in_doc && i > 0 && bytes[i - 1] == b'*' => in_doc = false,
            b'<' | b'{' | b'(' | b'[' if !in_doc => depth += 1,
            b'>' | b'}' | b')' | b']' if !in_doc => depth -= 1,
            b',' if !in_doc && depth == 0 => {
                out.push(&body[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&body[start..]);
    out.into_iter().filter(|f| !f.trim().is_empty()).collect()
}

/// Every type a method takes as a Rust type or returns, and the types they
/// hold, in reading order.
fn declarations() -> Out {
    // JSON numbers: serde_json writes a u64 as a number, JSON.parse reads one.
    let cfg = Config::new().with_large_int("number");
    let mut out = Out { text: HEADER.to_string(), ..Out::default() };
    let out = &mut out;
    declaration::<CreateOptions>(&cfg, out);
    declaration::<WorkingMemory>(&cfg, out);
    declaration::<ModelInfo>(&cfg, out);
    declaration::<Tokenizer>(&cfg, out);
    declaration::<RecallWeights>(&cfg, out);
    declaration::<Retention>(&cfg, out);
    declaration::<MaxAge>(&cfg, out);
    declaration::<Added>(&cfg, out);
    declaration::<AddedMany>(&cfg, out);
    declaration::<CompactionEvent>(&cfg, out);
    declaration::<Forgotten>(&cfg, out);
    declaration::<HistoryItem>(&cfg, out);
    declaration::<Place>(&cfg, out);
    declaration::<ThreadInfo>(&cfg, out);
    declaration::<ContextOptions>(&cfg, out);
    declaration::<Layout>(&cfg, out);
    declaration::<Context>(&cfg, out);
    declaration::<Sections>(&cfg, out);
    declaration::<SystemSection>(&cfg, out);
    declaration::<KnowledgeSection>(&cfg, out);
    declaration::<CacheHint>(&cfg, out);
    declaration::<RetrievalMode>(&cfg, out);
    declaration::<Degraded>(&cfg, out);
    declaration::<SummarySection>(&cfg, out);
    declaration::<RecentSection>(&cfg, out);
    declaration::<Omitted>(&cfg, out);
    declaration::<OmitReason>(&cfg, out);
    declaration::<Budget>(&cfg, out);
    declaration::<Found>(&cfg, out);
    declaration::<Hit>(&cfg, out);
    declaration::<HitKind>(&cfg, out);
    declaration::<Remembered>(&cfg, out);
    declaration::<Fact>(&cfg, out);
    declaration::<FactKind>(&cfg, out);
    declaration::<Episode>(&cfg, out);
    declaration::<SummarySource>(&cfg, out);
    declaration::<SummaryRequest>(&cfg, out);
    declaration::<CurrentFact>(&cfg, out);
    declaration::<ConsolidationRequest>(&cfg, out);
    declaration::<ConsolidationFact>(&cfg, out);
    declaration::<Consolidated>(&cfg, out);
    declaration::<Stats>(&cfg, out);
    declaration::<TokenizerStats>(&cfg, out);
    declaration::<MessageStats>(&cfg, out);
    declaration::<LayerTokens>(&cfg, out);
    declaration::<Expired>(&cfg, out);
    declaration::<CostLedger>(&cfg, out);
    declaration::<ModelCost>(&cfg, out);
    declaration::<PurposeCost>(&cfg, out);
    declaration::<LoadReport>(&cfg, out);
    declaration::<CorruptKey>(&cfg, out);
    std::mem::take(out)
}

#[test]
fn typescript_declarations_match_the_rust_types() {
    let Out { text: want, declared, referred } = declarations();
    // A type the declarations refer to but do not declare would leave a name undefined in the .d.ts.
    let missing: Vec<&String> = referred.iter().filter(|r| !declared.contains(r)).collect();
    assert!(missing.is_empty(), "declare these in declarations() too: {missing:?}");
    if std::env::var_os("UPDATE_TYPES").is_some() {
        std::fs::write(PATH, &want).unwrap();
        return;
    }
    let have = std::fs::read_to_string(PATH).unwrap_or_default();
    assert!(have == want, "{PATH} is out of date: run `UPDATE_TYPES=1 cargo test --lib typescript`, then rebuild");
}

/// `"a" | "b"`, as ts-rs writes a union of names.
fn union(names: &[&str]) -> String {
    names.iter().map(|n| format!("\"{n}\"")).collect::<Vec<_>>().join(" | ")
}

/// These enums serialize by hand, by `name()` (smaller in the wasm than a
/// derived impl), so their declared union is checked against those names.
#[test]
fn enums_serialized_by_name_declare_exactly_those_names() {
    let cfg = Config::new();
    assert_eq!(RetrievalMode::inline(&cfg), union(&[RetrievalMode::Hybrid, RetrievalMode::Lexical].map(RetrievalMode::name)));
    let reasons = [OmitReason::Archived, OmitReason::Budget, OmitReason::PendingToolCalls, OmitReason::OrphanToolResult];
    assert_eq!(OmitReason::inline(&cfg), union(&reasons.map(OmitReason::name)));
    let kinds = [HitKind::Fact, HitKind::Preference, HitKind::Chunk, HitKind::Message];
    assert_eq!(HitKind::inline(&cfg), union(&kinds.map(HitKind::name)));
    for kind in kinds {
        assert_eq!(serde_json::to_value(kind).unwrap(), kind.name());
    }
}
