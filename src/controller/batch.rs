//! Messages written as one change, each at its own time: what an import
//! brings (`addMany` in JS). The messages are saved as segment values (one
//! per `segment_bytes`, as a fold writes them) instead of one log value
//! each, so storage that makes every save durable (a file, a remote store)
//! pays once for many messages.
//!
//! Invariants: as `add`, nothing changes until every value is saved
//! (`prepare_add_batch` then `commit_add_batch`), and a retry after a failed
//! save prepares the same seqs again; each message is checked as `add`
//! checks it, in order; the order (`lc`) is the batch's, strictly rising,
//! after everything this writer saw; a batch holds no tool result (its call
//! may be in the batch, which `Window::check` cannot see: the host adds
//! tool results with `add`).

use serde::Serialize;
use serde_json::Value;

use super::{CompactionEvent, Controller};
use crate::error::{MemoryError, Result};
use crate::message::{Message, Role};
use crate::store::record::Record;
use crate::store::{Kind, Write};
use crate::tokens::chat::message_tokens;
use crate::window::{Stored, Window};
use crate::wire::request_form;

/// Messages ready to be stored together.
#[derive(Debug)]
pub struct PreparedBatch {
    pub writes: Vec<Write>,
    stored: Vec<Stored>,
    segmented: super::writes::Segmented,
}

/// What `addMany` did.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields, rename = "AddManyResult"))]
#[serde(rename_all = "camelCase")]
pub struct AddedMany {
    /// The messages' ids, in order.
    pub ids: Vec<String>,
    /// Their tokens, together.
    pub tokens: usize,
    /// Set when the batch pushed working memory past its threshold.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compaction: Option<CompactionEvent>,
}

/// `[{ message, at }]` (JSON text) as messages with their times.
///
/// # Errors
/// `INVALID_INPUT` naming the item for a shape error or a missing `at`;
/// those of [`Message::parse`].
pub fn parse_batch(json: &str) -> Result<Vec<(Message, f64)>> {
    let value: Value = crate::json::from_str(json).map_err(|e| MemoryError::from_json(&e, "items"))?;
    let items = value.as_array().ok_or_else(|| MemoryError::input("items", "expected an array of { message, at }"))?;
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let at =
            item.get("at").and_then(Value::as_f64).ok_or_else(|| MemoryError::input(format!("items[{i}].at"), "expected a time in ms"))?;
        let message = item.get("message").ok_or_else(|| MemoryError::input(format!("items[{i}].message"), "missing"))?;
        out.push((Message::parse(message)?, at));
    }
    Ok(out)
}

impl Controller {
    /// Validates `items` (each message with its time in ms) as one change.
    ///
    /// # Errors
    /// `INVALID_INPUT` for an empty batch, a tool result, a tool call id used
    /// twice, or a time that is not finite; those of `Window::check`; `CLOSED`.
    pub fn prepare_add_batch(&self, items: Vec<(Message, f64)>) -> Result<PreparedBatch> {
        self.open()?;
        if items.is_empty() {
            return Err(MemoryError::input("messages", "an empty batch"));
        }
        let first = self.books.next_seq;
        let writer = self.opts.writer.clone();
        let mut turn = self.window.turn();
        let mut calls: Vec<&str> = Vec::new();
        let mut lc = self.books.last_lc;
        let mut records = Vec::with_capacity(items.len());
        let mut stored = Vec::with_capacity(items.len());
        for (i, (message, at)) in items.into_iter().enumerate() {
            if message.role == Role::Tool {
                return Err(MemoryError::input(format!("messages[{i}]"), "a tool result is added with add(), after its call"));
            }
            self.window.check(&message)?;
            let ts = self.stamp(at)?;
            let seq = first + i as u64;
            lc = self.books.lc_at(ts, first).max(lc.saturating_add(1));
            let tool_turn = turn.tool_turn(&message);
            turn.push(&message);
            let tokens = message_tokens(&self.counter, &request_form(&message, tool_turn, &[]));
            let id = format!("m-{writer}-{seq}");
            records.push(Record::Msg {
                writer: writer.clone(),
                seq,
                lc,
                ts,
                id: id.clone(),
                message: message.clone(),
                task: None,
                thread: self.thread_field(),
            });
            let place = Window::place_for(&message);
            stored.push(Stored {
                id,
                writer: writer.clone(),
                seq,
                lc,
                ts,
                message,
                tokens: tokens.into(),
                tool_turn,
                place,
                task_id: None,
            });
        }
        for s in &stored {
            for call in s.message.tool_calls.iter().flatten() {
                if calls.contains(&call.id.as_str()) {
                    return Err(MemoryError::input("messages", format!("tool call id {:?} is used twice", call.id)));
                }
                calls.push(&call.id);
            }
        }
        let mut segmented = self.segments(&records, first + records.len() as u64, &[]);
        let writes = std::mem::take(&mut segmented.writes);
        Ok(PreparedBatch { writes, stored, segmented })
    }

    /// Applies a saved batch; returns each message's id and tokens.
    pub fn commit_add_batch(&mut self, p: PreparedBatch) -> Vec<(String, usize)> {
        self.books.next_seq = p.segmented.next_seq;
        self.books.folding.replace(&[], p.segmented.outputs, Kind::Segment);
        self.shelved_by(p.segmented.shelves);
        let mut out = Vec::with_capacity(p.stored.len());
        for s in p.stored {
            out.push((s.id.clone(), s.counted()));
            self.books.last_ts = self.books.last_ts.max(s.ts);
            self.books.last_lc = self.books.last_lc.max(s.lc);
            self.window.push(s);
            self.index_message(self.window.log.len() - 1, false);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::controller::Options;
    use crate::store::Loader;
    use crate::tokens::estimate::Family;
    use crate::tokens::Counter;

    fn controller() -> Controller {
        let opts = Options {
            namespace: "ns".into(),
            thread: "t".into(),
            writer: "w".into(),
            model: "claude-sonnet-4.5".into(),
            ..Options::default()
        };
        Controller::new(opts, Counter::estimate(Family::Claude.profile())).unwrap()
    }

    fn text(role: Role, s: &str) -> Message {
        Message::text(role, s)
    }

    #[test]
    fn a_batch_is_stored_in_few_values_in_order_and_reads_back() {
        let mut c = controller();
        c.commit_add(c.prepare_add_message(text(Role::User, "before"), 5.0).unwrap());
        let items: Vec<(Message, f64)> = (0..50)
            .map(|i| (text(if i % 2 == 0 { Role::User } else { Role::Assistant }, &format!("imported {i} 成都")), 1000.0 + i as f64))
            .collect();
        let p = c.prepare_add_batch(items).unwrap();
        assert_eq!(p.writes.len(), 1, "one segment value for fifty short messages");
        let writes = p.writes.clone();
        let added = c.commit_add_batch(p);
        assert_eq!(added.len(), 50);
        let history = c.history();
        assert_eq!(history.len(), 51);
        assert!(history.windows(2).all(|w| w[0].ts <= w[1].ts));
        let lcs: Vec<u64> = c.window.log.iter().map(|s| s.lc).collect();
        assert!(lcs.windows(2).all(|w| w[0] < w[1]), "{lcs:?}");
        // The next add comes after the batch.
        let (id, _) = c.commit_add(c.prepare_add_message(text(Role::User, "after"), 6.0).unwrap());
        assert_eq!(c.history().last().map(|h| h.id.clone()), Some(id));
        // Storage holds what memory does: a controller loaded from the writes alone.
        let mut loader = Loader::default();
        for w in c
            .window
            .log
            .iter()
            .take(1)
            .map(|s| crate::store::Write {
                key: crate::store::log_key("ns", "w", s.seq),
                bytes: crate::store::record::encode_record(&Record::Msg {
                    writer: "w".into(),
                    seq: s.seq,
                    lc: s.lc,
                    ts: s.ts,
                    id: s.id.clone(),
                    message: s.message.clone(),
                    task: None,
                    thread: Some("t".into()),
                }),
            })
            .chain(writes)
        {
            loader.push(w.key, &w.bytes).unwrap();
        }
        let opts = Options {
            namespace: "ns".into(),
            thread: "t".into(),
            writer: "w2".into(),
            model: "claude-sonnet-4.5".into(),
            ..Options::default()
        };
        let back = Controller::from_loaded(opts, c.counter.clone(), loader.finish()).unwrap();
        let texts = |h: Vec<crate::controller::HistoryItem>| h.into_iter().map(|h| (h.ts, h.message.content_text())).collect::<Vec<_>>();
        assert_eq!(texts(back.history()), texts(c.history()).into_iter().take(51).collect::<Vec<_>>());
    }

    #[test]
    fn a_batch_refuses_tool_results_reused_call_ids_and_bad_times_whole() {
        let c = controller();
        let call = |id: &str| {
            Message::parse_json(&format!(r#"{{"role":"assistant","content":null,"tool_calls":[{{"id":"{id}","type":"function","function":{{"name":"f","arguments":"{{}}"}}}}]}}"#)).unwrap()
        };
        let result = Message::parse_json(r#"{"role":"tool","tool_call_id":"a","content":"ok"}"#).unwrap();
        assert_eq!(c.prepare_add_batch(vec![(call("a"), 1.0), (result, 2.0)]).unwrap_err().code(), "INVALID_INPUT");
        assert_eq!(c.prepare_add_batch(vec![(call("a"), 1.0), (call("a"), 2.0)]).unwrap_err().code(), "INVALID_INPUT");
        assert_eq!(c.prepare_add_batch(vec![(text(Role::User, "x"), f64::NAN)]).unwrap_err().code(), "INVALID_INPUT");
        assert_eq!(c.prepare_add_batch(vec![]).unwrap_err().code(), "INVALID_INPUT");
        assert!(c.history().is_empty(), "nothing changed");
    }

    #[test]
    fn parse_batch_names_the_item() {
        let ok = parse_batch(r#"[{"message":{"role":"user","content":"hi"},"at":5}]"#).unwrap();
        assert_eq!((ok[0].0.content_text(), ok[0].1), ("hi".to_string(), 5.0));
        let err =
            parse_batch(r#"[{"message":{"role":"user","content":"hi"},"at":5},{"message":{"role":"user","content":"x"}}]"#).unwrap_err();
        assert!(err.to_string().contains("items[1].at"), "{err}");
    }
}
