//! Bounded reads of the log: a page of history (the newest `limit`
//! messages before a message) and messages by id. They build items only
//! for what they return, so a call that needs the conversation's end pays
//! for its end, not for the history.
//!
//! Invariant: a page is read from memory only when memory holds every
//! message it may contain (`page_in_memory`): the cold segments are read, or the
//! page lies among the messages newer than every archived message opening
//! left unread (the shelf records say which is the newest of those).
//! Otherwise the write path reads the cold segments first (`WritePath::read`).

use serde::Deserialize;

use super::{Controller, HistoryItem};
use crate::error::{MemoryError, Result};
use crate::window::Stored;

/// Which part of the history to read: the newest `limit` messages (all
/// without one) that come before the message `before` (the end without one).
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Page {
    pub limit: Option<usize>,
    pub before: Option<String>,
}

impl Controller {
    /// One stored message as `history()` lists it (its tokens counted now if not yet).
    pub(super) fn item(&self, s: &Stored) -> HistoryItem {
        let count = |m: &crate::message::Message| crate::tokens::chat::message_tokens(&self.counter, m);
        HistoryItem { id: s.id.clone(), ts: s.ts, place: s.place, tokens: s.tokens(count), message: s.message.clone() }
    }

    /// The log positions of `page`: `[from, to)`.
    ///
    /// # Errors
    /// `INVALID_INPUT` when `before` names no message in memory.
    fn page_range(&self, page: &Page) -> Result<(usize, usize)> {
        let log = &self.window.log;
        let to = match &page.before {
            // From the end: the message asked for is usually among the newest.
            Some(id) => {
                log.iter().rposition(|s| s.id == *id).ok_or_else(|| MemoryError::input("history.before", "no message has this id"))?
            }
            None => log.len(),
        };
        Ok((page.limit.map_or(0, |n| to.saturating_sub(n)), to))
    }

    /// Whether memory holds every message `page` may contain (see the module docs).
    pub fn page_in_memory(&self, page: &Page) -> bool {
        if self.cold_ready() {
            return true;
        }
        let (Some(_), Some((lc, ts, _))) = (page.limit, &self.books.cold.last) else { return false };
        // The first message in memory that comes after every unread one.
        let log = &self.window.log;
        let newer = log.partition_point(|s| (s.lc, s.ts) <= (*lc, *ts));
        // A `before` not in memory yet may be an archived message: read first.
        self.page_range(page).is_ok_and(|(from, _)| from >= newer && !log.is_empty())
    }

    /// A page of the history, oldest first (`history({ limit, before })`).
    ///
    /// # Errors
    /// `INVALID_INPUT` when `before` names no message.
    pub fn history_page(&self, page: &Page) -> Result<Vec<HistoryItem>> {
        Ok(self.history_pieces(page, usize::MAX)?.flatten().collect())
    }

    /// [`Controller::history_page`]'s items in pieces of at most `n`, for a
    /// caller that converts each piece and drops it before the next (the
    /// binding: a whole history of 100,000 messages as one list and one
    /// JSON text took 157 MiB of wasm memory on top of the archive's).
    ///
    /// # Errors
    /// As [`Controller::history_page`].
    pub fn history_pieces(&self, page: &Page, n: usize) -> Result<impl Iterator<Item = Vec<HistoryItem>> + '_> {
        let (from, to) = self.page_range(page)?;
        let log = self.window.log.get(from..to).unwrap_or_default();
        Ok(log.chunks(n.max(1)).map(|piece| piece.iter().map(|s| self.item(s)).collect()))
    }

    /// Whether memory holds each of `ids` (or everything there is to hold).
    pub fn ids_in_memory(&self, ids: &[String]) -> bool {
        self.cold_ready() || ids.iter().all(|id| self.window.log.iter().rev().any(|s| s.id == *id))
    }

    /// The messages with these ids, in the order asked; an id no message has is left out.
    pub fn messages(&self, ids: &[String]) -> Vec<HistoryItem> {
        // From the end: callers ask for the newest (a tool loop's answers).
        ids.iter().filter_map(|id| self.window.log.iter().rev().find(|s| s.id == *id)).map(|s| self.item(s)).collect()
    }
}
