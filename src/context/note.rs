//! The memory note: how many earlier messages are not shown, and the
//! summaries of the thread's episodes that fit, oldest first.
//!
//! Chosen without the query, so it changes only when a compaction does (a
//! provider caches the prefix it belongs to). The count stands after the
//! summaries: a compaction that adds an episode leaves the text before it
//! as it was, byte for byte, while the note is not full.

use crate::episodic::Episode;
use crate::message::{Message, Role};
use crate::semantic::block;
use crate::tokens::chat::message_tokens;
use crate::tokens::Counter;

const HEADER: &str = "[Conversation memory] Summaries of earlier parts, oldest first:";

/// The note for `hidden` messages not shown, with `summaries` oldest first.
pub fn note(hidden: usize, summaries: &[&Episode]) -> Message {
    let mut s = String::from(if summaries.is_empty() { "[Conversation memory]" } else { HEADER });
    for e in summaries {
        s.push_str(&episode_part(e));
    }
    s.push_str(&format!("\n{hidden} earlier messages are not shown."));
    Message::text(Role::System, s)
}

/// One episode in the note. The summary quotes users: escaped, it cannot
/// close its own tag. It says when, not which id: an id carries the
/// writer's random name, whose token count would make the same
/// conversation fit differently.
fn episode_part(e: &Episode) -> String {
    format!("\n<episode time=\"{}\">\n{}\n</episode>", utc_minute(e.created_at), block::escape(&e.summary))
}

/// The newest summaries of `episodes` (oldest first) that fit `cap` with
/// the note around them, oldest first, and the note's tokens. Chosen by
/// the sum of each part's count (a long memory costs one count per
/// summary, not one of the whole note per summary), then the note is
/// counted whole and the oldest chosen leave until it fits exactly.
pub fn pick<'a>(episodes: &[&'a Episode], hidden: usize, cap: usize, counter: &Counter) -> (Vec<&'a Episode>, usize) {
    let bare = message_tokens(counter, &note(hidden, &[]));
    let mut sum = bare + counter.count(HEADER);
    let mut from = episodes.len();
    for (i, e) in episodes.iter().enumerate().rev() {
        let part = counter.count(&episode_part(e));
        if sum + part > cap {
            break;
        }
        sum += part;
        from = i;
    }
    loop {
        let shown: Vec<&Episode> = episodes.get(from..).unwrap_or_default().to_vec();
        let tokens = message_tokens(counter, &note(hidden, &shown));
        if tokens <= cap || shown.is_empty() {
            return (shown, tokens);
        }
        from += 1;
    }
}

/// What [`pick`] chose lately, by a hash of all it depends on (the
/// counter's encoding, the cap, each episode's id, time and summary, and
/// the hidden count's number of digits: both exact encodings split a
/// number into runs of up to three digits, each one token, so that is all
/// of it a count sees): the note changes only when a compaction does, so a
/// context built again over the same memory counts none of it again. Two
/// entries: a build picks twice, with two caps. Exact counters only (an
/// estimate costs little, and calibration changes it). A clone starts
/// empty: it remembers, it holds no state.
#[derive(Debug, Default)]
pub struct Picks(std::cell::Cell<[(u64, usize, usize); 2]>);

impl Clone for Picks {
    fn clone(&self) -> Self {
        Picks::default()
    }
}

/// [`pick`], answered from `picks` when it chose for the same input before.
pub fn pick_again<'a>(picks: &Picks, episodes: &[&'a Episode], hidden: usize, cap: usize, counter: &Counter) -> (Vec<&'a Episode>, usize) {
    use std::hash::Hasher;
    let Some(encoding) = counter.encoding_name() else { return pick(episodes, hidden, cap, counter) };
    // (texts by the index's term key: a 48-bit hash of their bytes)
    let key = crate::retrieval::terms::term_key;
    let mut h = crate::retrieval::hash::FxHasher::default();
    for word in [key(encoding), u64::from(hidden.checked_ilog10().unwrap_or(0)), cap as u64, episodes.len() as u64] {
        h.write_u64(word);
    }
    for e in episodes {
        for word in [key(&e.id), key(&e.summary), e.created_at.to_bits()] {
            h.write_u64(word);
        }
    }
    // (0 marks an empty entry)
    let key = h.finish().max(1);
    let mut last = picks.0.get();
    if let Some(&(_, from, tokens)) = last.iter().find(|p| p.0 == key) {
        return (episodes.get(from..).unwrap_or_default().to_vec(), tokens);
    }
    let (shown, tokens) = pick(episodes, hidden, cap, counter);
    last[1] = last[0];
    last[0] = (key, episodes.len() - shown.len(), tokens);
    picks.0.set(last);
    (shown, tokens)
}

/// `YYYY-MM-DD HH:MM` (UTC) of a time in ms since the epoch.
pub fn utc_minute(ms: f64) -> String {
    let minutes = (ms / 60_000.0).floor() as i64;
    let (days, minute) = (minutes.div_euclid(1440), minutes.rem_euclid(1440));
    format!("{} {:02}:{:02}", civil(days), minute / 60, minute % 60)
}

/// `YYYY-MM-DD` (UTC) of a time in ms since the epoch.
pub fn utc_day(ms: f64) -> String {
    civil((ms / 86_400_000.0).floor() as i64)
}

/// `YYYY-MM` (UTC) of a time in ms since the epoch.
pub fn utc_month(ms: f64) -> String {
    let (year, month, _) = civil_parts((ms / 86_400_000.0).floor() as i64);
    format!("{year:04}-{month:02}")
}

fn civil(days: i64) -> String {
    let (year, month, day) = civil_parts(days);
    format!("{year:04}-{month:02}-{day:02}")
}

/// Howard Hinnant's civil_from_days: the date (year, month, day) `days`
/// after 1970-01-01.
pub fn civil_parts(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

/// Hinnant's days_from_civil: days from 1970-01-01 to the first of `month` of `year`.
pub fn days_from_civil(year: i64, month: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    #[test]
    fn months_and_days_both_ways() {
        assert_eq!(super::utc_month(1_775_034_120_000.0), "2026-04");
        for (y, m) in [(1970, 1), (2000, 2), (2000, 3), (2024, 12), (1969, 12)] {
            assert_eq!(super::civil_parts(super::days_from_civil(y, m)), (y, m, 1));
        }
    }

    #[test]
    fn utc_minutes_and_days() {
        assert_eq!(super::utc_minute(0.0), "1970-01-01 00:00");
        assert_eq!(super::utc_minute(1_775_034_120_000.0), "2026-04-01 09:02");
        assert_eq!(super::utc_minute(951_782_400_000.0), "2000-02-29 00:00");
        assert_eq!(super::utc_minute(-60_000.0), "1969-12-31 23:59");
        assert_eq!(super::utc_day(1_775_034_120_000.0), "2026-04-01");
        assert_eq!(super::utc_day(-1.0), "1969-12-31");
    }
}
