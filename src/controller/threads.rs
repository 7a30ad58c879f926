//! The threads of a namespace, as a chat app's sidebar lists them.

use serde::Serialize;

use super::Controller;
use crate::store;
use crate::store::record::Record;
use crate::store::shelf::ShelvedThread;
use crate::store::tombstones::Tombstones;

/// One thread of a namespace.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields))]
#[serde(rename_all = "camelCase")]
pub struct ThreadInfo {
    pub thread: String,
    /// Messages stored in it (forgotten ones not counted).
    pub messages: usize,
    /// Timestamps (ms) of its first and last message, as stored.
    pub first_at: f64,
    pub last_at: f64,
    /// The first line of its first user message, at most 80 characters
    /// ([`TITLE_CHARS`]); for an imported conversation, its title there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

pub const TITLE_CHARS: usize = 80;

/// An empty summary of `thread`, to fill with `add_message` and `merge`.
pub(crate) fn summary(thread: &str) -> ShelvedThread {
    ShelvedThread {
        thread: thread.to_string(),
        messages: 0,
        tokens: 0,
        first_at: f64::INFINITY,
        last_at: f64::NEG_INFINITY,
        lc: 0,
        first_user: None,
        first: None,
        last: None,
        episodes: 0,
        episode_tokens: 0,
        tasks: Vec::new(),
    }
}

/// Counts one message (of order `lc`, written at `ts`) into `t`: the title
/// comes from the earliest user message.
pub(crate) fn add_message(t: &mut ShelvedThread, lc: u64, ts: f64, id: &str, message: &crate::message::Message) {
    t.messages += 1;
    if t.first.as_ref().is_none_or(|(l, s, _)| (lc, ts) < (*l, *s)) {
        t.first = Some((lc, ts, id.to_string()));
    }
    if t.last.as_ref().is_none_or(|(l, s, _)| (lc, ts) > (*l, *s)) {
        t.last = Some((lc, ts, id.to_string()));
    }
    t.first_at = t.first_at.min(ts);
    t.last_at = t.last_at.max(ts);
    t.lc = t.lc.max(lc);
    if message.role == crate::message::Role::User && earlier((lc, ts), t.first_user.as_ref()) {
        t.first_user = Some((lc, ts, imported_title(message).or_else(|| title(&message.content_text()))));
    }
}

fn earlier((lc, ts): (u64, f64), than: Option<&(u64, f64, Option<String>)>) -> bool {
    than.is_none_or(|(l, t, _)| lc < *l || (lc == *l && ts < *t))
}

fn merge(t: &mut ShelvedThread, s: &ShelvedThread) {
    t.messages += s.messages;
    t.first_at = t.first_at.min(s.first_at);
    t.last_at = t.last_at.max(s.last_at);
    t.lc = t.lc.max(s.lc);
    if let Some(first) = s.first_user.as_ref().filter(|(lc, ts, _)| earlier((*lc, *ts), t.first_user.as_ref())) {
        t.first_user = Some(first.clone());
    }
}

/// The threads the live message records and the archive's summaries make
/// up, the most recently written first (by causal order, then time, then
/// name).
pub fn list<'a>(records: impl IntoIterator<Item = &'a Record>, shelved: impl IntoIterator<Item = &'a ShelvedThread>) -> Vec<ThreadInfo> {
    let mut out: Vec<ShelvedThread> = Vec::new();
    // (the map type the search index uses: no new hash map code in the wasm)
    let mut at_of: std::collections::HashMap<String, u64> = Default::default();
    let mut entry = |thread: &str, out: &mut Vec<ShelvedThread>| -> usize {
        *at_of.entry(thread.to_string()).or_insert_with(|| {
            out.push(summary(thread));
            out.len() as u64 - 1
        }) as usize
    };
    for r in records {
        let (Record::Msg { ts, id, message, .. }, Some(thread)) = (r, r.thread()) else { continue };
        let at = entry(thread, &mut out);
        if let Some(t) = out.get_mut(at) {
            add_message(t, r.lc(), *ts, id, message);
        }
    }
    for s in shelved {
        let at = entry(&s.thread, &mut out);
        if let Some(t) = out.get_mut(at) {
            merge(t, s);
        }
    }
    // An insertion sort: a namespace has tens of threads, and the standard
    // sort would add 10 KB to the wasm for them.
    let before = |a: &ShelvedThread, b: &ShelvedThread| {
        b.lc.cmp(&a.lc).then(b.last_at.total_cmp(&a.last_at)).then_with(|| a.thread.cmp(&b.thread)).is_lt()
    };
    for i in 1..out.len() {
        let mut j = i;
        while j > 0 && out.get(j).zip(out.get(j - 1)).is_some_and(|(a, b)| before(a, b)) {
            out.swap(j, j - 1);
            j -= 1;
        }
    }
    out.into_iter()
        .map(|t| ThreadInfo {
            thread: t.thread,
            messages: t.messages as usize,
            first_at: t.first_at,
            last_at: t.last_at,
            title: t.first_user.and_then(|(_, _, title)| title),
        })
        .collect()
}

/// The title an imported conversation had (`importConversations` marks the
/// first user message with it), cut as a first line is.
fn imported_title(message: &crate::message::Message) -> Option<String> {
    message.extra.get("imported")?.get("title")?.as_str().and_then(title)
}

fn title(text: &str) -> Option<String> {
    let line = text.lines().map(str::trim).find(|l| !l.is_empty())?;
    let mut t: String = line.chars().take(TITLE_CHARS).collect();
    if line.chars().nth(TITLE_CHARS).is_some() {
        t.push('…');
    }
    Some(t)
}

impl Controller {
    /// The namespace's threads as this controller knows them (what it
    /// loaded and wrote).
    pub fn threads(&self) -> Vec<ThreadInfo> {
        list(&self.live_records(), [])
    }

    /// The namespace's threads as stored, forgotten ones left out.
    /// `loaded`: what a `store::Loader` read under `storage_prefix()`, or
    /// under `store::open_prefixes` only: cold segments not read are
    /// counted from the shelf records (a crash's duplicates and a forget
    /// not yet recorded there may count twice, until the next fold).
    pub fn threads_stored(loaded: store::Loaded) -> Vec<ThreadInfo> {
        let records = loaded.records;
        let gone = Tombstones::of(&records);
        let shelves = records.iter().filter(|r| matches!(r, Record::Shelf { .. }));
        let shelved = store::shelf::unread_shelved(shelves, loaded.folding.values().iter().map(|v| &v.key));
        let summaries: Vec<&ShelvedThread> =
            shelved.into_iter().flat_map(|s| s.threads.iter()).filter(|t| t.messages > 0 && !gone.forgot_thread(&t.thread, t.lc)).collect();
        list(records.iter().filter(|r| !gone.covers(r)), summaries)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{Message, Role};

    fn msg(seq: u64, thread: Option<&str>, role: Role, text: &str) -> Record {
        Record::Msg {
            writer: "w".into(),
            seq,
            lc: seq,
            ts: seq as f64 * 10.0,
            id: format!("m-w-{seq}"),
            message: Message::text(role, text),
            task: None,
            thread: thread.map(String::from),
        }
    }

    #[test]
    fn lists_threads_newest_first_with_titles() {
        let long = "x".repeat(100);
        let records = vec![
            msg(1, None, Role::System, "be brief"),
            msg(2, None, Role::User, "\n  周末去哪儿玩？\nmore"),
            msg(3, Some("work"), Role::User, &long),
            msg(4, None, Role::Assistant, "爬山"),
            msg(5, Some("work"), Role::Assistant, "ok"),
        ];
        let threads = list(&records, []);
        assert_eq!(threads.len(), 2);
        assert_eq!(
            threads[0],
            ThreadInfo { thread: "work".into(), messages: 2, first_at: 30.0, last_at: 50.0, title: Some(format!("{}…", "x".repeat(80))) }
        );
        assert_eq!(
            threads[1],
            ThreadInfo {
                thread: "default".into(), messages: 3, first_at: 10.0, last_at: 40.0, title: Some("周末去哪儿玩？".into())
            }
        );
    }

    #[test]
    fn an_imported_conversation_keeps_its_title() {
        let mut first = Message::text(Role::User, "hi there");
        first.extra.insert("imported".into(), serde_json::json!({ "from": "chatgpt", "id": "n1", "title": "Trip to 成都" }));
        let records = [
            Record::Msg {
                writer: "w".into(),
                seq: 1,
                lc: 1,
                ts: 10.0,
                id: "m-w-1".into(),
                message: first,
                task: None,
                thread: Some("chatgpt-c".into()),
            },
            msg(2, Some("plain"), Role::User, "hi there"),
        ];
        let titles: Vec<_> = list(&records, []).into_iter().map(|t| (t.thread, t.title)).collect();
        assert_eq!(
            titles,
            [("plain".to_string(), Some("hi there".to_string())), ("chatgpt-c".to_string(), Some("Trip to 成都".to_string()))]
        );
    }

    #[test]
    fn a_forgotten_thread_is_not_listed() {
        let records = [
            msg(1, Some("a"), Role::User, "one"),
            msg(2, Some("b"), Role::User, "two"),
            Record::Forget { writer: "w".into(), seq: 3, ts: 30.0, ids: vec![], threads: vec!["a".into()], lc: 3, expired: None },
            msg(4, Some("a"), Role::User, "after"),
        ];
        let entries = records
            .iter()
            .enumerate()
            .map(|(i, r)| (store::log_key("ns", "w", i as u64), crate::store::record::encode_record(r)))
            .collect();
        let threads = Controller::threads_stored(store::load(entries).unwrap());
        let names: Vec<(&str, usize)> = threads.iter().map(|t| (t.thread.as_str(), t.messages)).collect();
        assert_eq!(names, vec![("a", 1), ("b", 1)], "a's message written after the tombstone is a new life");
        assert_eq!(threads[0].title.as_deref(), Some("after"));
    }
}
