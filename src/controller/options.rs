//! `create`'s options as the host passes them, those that are data: one
//! Rust type that the binding reads (serde, unknown names refused) and that
//! the package's TypeScript declares (`CreateDataOptions`, derived by
//! `src/typescript.rs`). The hooks (storage, summarizer, embedder, clock,
//! ranks, redact, reranker and the hooks' deadlines) are JS values: the
//! binding takes them off first, and `CreateOptions` in `src/wasm/types.rs`
//! adds them by hand. A new data option is a field here and its use in
//! [`CreateOptions::into_options`]; nothing else is written for it.

use std::fmt;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde::Deserialize;

use super::retention::Retention;
use super::Options;
use crate::episodic::recall::RecallWeights;
use crate::models::ModelInfo;
use crate::window::WindowConfig;

/// The options of `create` that are data (all optional).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields, rename = "CreateDataOptions"))]
pub struct CreateOptions {
    /// The user (tenant): storage prefix; facts, preferences, documents, procedures and cost are shared by its threads. Default "default".
    pub namespace: Option<String>,
    /// The conversation under the namespace: its messages, working memory, episodes and task history. Default "default".
    pub thread: Option<String>,
    /// Decides tokenizer, context window and prices. Default "gpt-4o".
    pub model: Option<String>,
    /// Model entries by id; they win over the built-in table.
    #[cfg_attr(test, ts(optional, type = "Record<string, ModelEntry>"))]
    pub models: Option<ModelEntries>,
    pub working_memory: Option<WorkingMemory>,
    /// Token budget of one episode summary. Default 200.
    pub summary_tokens: Option<usize>,
    /// Most tokens one summarizer request carries: its messages as `countMessages` counts them plus the previous summary (sent when within `summaryTokens`). A larger compacted range is split; a single message larger on its own gets the offline summary. Must exceed `summaryTokens`. Default 6000.
    pub summary_input_tokens: Option<usize>,
    /// Most compacted ranges waiting for the summarizer behind the one it is writing (at least 1); past it the oldest get the offline summary (`SUMMARIZER_BACKLOG` on the episode). Default 8.
    pub summary_backlog: Option<usize>,
    /// Fold the log into a new segment once it holds this many records (or a quarter of segmentBytes). Default 1024.
    pub fold_after: Option<usize>,
    /// No stored value is larger (but a single record that is larger alone); at least 1024. Default 1048576 (1 MiB).
    pub segment_bytes: Option<usize>,
    /// Recall scoring of episodes: weights (default 1, 1, 2) and recency half-life (default 3 days).
    pub recall: Option<RecallWeights>,
    /// How long records are kept (default: for ever). Past its age a record is forgotten as `forget` forgets, at the next fold or open, at most `maxPerCall` records a call. See docs/guides/retention.md.
    pub retention: Option<Retention>,
}

/// Working-memory limits (all optional).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields, rename = "WorkingMemoryOptions"))]
pub struct WorkingMemory {
    /// Token budget of the recent turns. Default 4000.
    pub max_tokens: Option<usize>,
    /// Compaction starts above this share of maxTokens. Default 0.8.
    pub compression_threshold: Option<f64>,
    /// Compaction stops at this share of maxTokens. Default 0.5 (0.3 for a model whose cached input costs at most half its input).
    pub target_ratio: Option<f64>,
    /// Also compact when working memory holds more messages than this.
    pub recent_messages: Option<usize>,
}

impl CreateOptions {
    /// The core's options; `writer` identifies this instance in storage.
    /// The limits are checked by [`super::Controller::new`].
    pub fn into_options(self, writer: String) -> Options {
        let d = Options::default();
        let w = self.working_memory.unwrap_or_default();
        let model = self.model.unwrap_or(d.model);
        let models = self.models.map(|m| m.0).unwrap_or_default();
        let dw = WindowConfig::for_model(crate::models::resolve(&model, &models).as_ref());
        Options {
            namespace: self.namespace.unwrap_or(d.namespace),
            thread: self.thread.unwrap_or(d.thread),
            writer,
            model,
            models,
            working: WindowConfig {
                max_tokens: w.max_tokens.unwrap_or(dw.max_tokens),
                compression_threshold: w.compression_threshold.unwrap_or(dw.compression_threshold),
                target_ratio: w.target_ratio.unwrap_or(dw.target_ratio),
                recent_messages: w.recent_messages,
            },
            summary_tokens: self.summary_tokens.unwrap_or(d.summary_tokens),
            summary_input_tokens: self.summary_input_tokens.unwrap_or(d.summary_input_tokens),
            summary_backlog: self.summary_backlog.unwrap_or(d.summary_backlog),
            fold_after: self.fold_after.unwrap_or(d.fold_after),
            segment_bytes: self.segment_bytes.unwrap_or(d.segment_bytes),
            recall: self.recall.unwrap_or(d.recall),
            redact: d.redact,
            retention: self.retention.unwrap_or_default(),
        }
    }
}

/// `models` as a `BTreeMap<String, ModelInfo>` reads it (a repeated id:
/// the last entry; in the order of their ids), with the same errors, as
/// the list `Options` keeps: the map's own code (insertion, rebalancing,
/// its iterator) would be in the wasm for this one option.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModelEntries(pub Vec<(String, ModelInfo)>);

impl<'de> Deserialize<'de> for ModelEntries {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        /// What `BTreeMap`'s reader does, keeping every entry in order.
        struct Entries;
        impl<'de> Visitor<'de> for Entries {
            type Value = Vec<(String, ModelInfo)>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = map.next_entry::<String, ModelInfo>()? {
                    entries.push(entry);
                }
                Ok(entries)
            }
        }
        d.deserialize_map(Entries).map(|entries| ModelEntries(by_id(entries)))
    }
}

/// The entries in the order of their ids, the last of each id kept.
fn by_id(mut entries: Vec<(String, ModelInfo)>) -> Vec<(String, ModelInfo)> {
    crate::sort::sort_by(&mut entries, |a, b| a.0.cmp(&b.0));
    let mut out: Vec<(String, ModelInfo)> = Vec::with_capacity(entries.len());
    for entry in entries {
        match out.last_mut() {
            Some(last) if last.0 == entry.0 => *last = entry,
            _ => out.push(entry),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    /// What `models` read as before: a `BTreeMap` through serde's own reader.
    #[derive(Deserialize)]
    struct AsMap {
        models: Option<BTreeMap<String, ModelInfo>>,
    }

    #[test]
    fn models_read_as_the_map_reads_them() {
        let entry = |window: u64| {
            format!(
                r#"{{"tokenizer":"o200k_base","contextWindow":{window},"maxOutput":1,"inputPrice":1,"cachedInputPrice":0.5,"outputPrice":2}}"#
            )
        };
        let texts = [
            format!(r#"{{"models":{{"zeta":{},"alpha":{},"zeta":{},"mid":{}}}}}"#, entry(1), entry(2), entry(3), entry(4)),
            r#"{"models":null}"#.to_string(),
            r#"{"models":{}}"#.to_string(),
            r#"{"models":5}"#.to_string(),
            r#"{"models":["a"]}"#.to_string(),
            r#"{"models":{"a":5}}"#.to_string(),
            r#"{"models":{"a":{"tokenizer":"x"}}}"#.to_string(),
            r#"{"models":{"a""#.to_string(),
        ];
        for text in texts {
            let ours = serde_json::from_str::<CreateOptions>(&text).map(|o| o.models.map(|m| m.0));
            let map = serde_json::from_str::<AsMap>(&text).map(|o| o.models.map(|m| m.into_iter().collect::<Vec<_>>()));
            match (ours, map) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{text}"),
                (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{text}"),
                (a, b) => panic!("{text}: {:?} vs {:?}", a.map(|_| ()), b.map(|_| ())),
            }
        }
        assert_eq!(serde_json::from_str::<CreateOptions>("{}").map(|o| o.models).ok(), Some(None));
        assert_eq!(serde_json::from_str::<CreateOptions>("{\"models\":null}").map(|o| o.models).ok(), Some(None));
    }
}
