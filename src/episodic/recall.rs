//! Which episodes come back: `w_recency·recency + w_importance·importance +
//! w_relevance·relevance`, each min-max normalized over the candidates.
//! Recency decays exponentially with the time since an episode was last
//! recalled (half-life configurable); recalling refreshes it.

use super::Episode;

/// Weights and half-life of recall scoring (each optional).
#[derive(Clone, Copy, Debug, PartialEq, serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct RecallWeights {
    /// Default 1.
    #[cfg_attr(test, ts(as = "Option<f64>", optional))]
    pub recency: f64,
    /// Default 1.
    #[cfg_attr(test, ts(as = "Option<f64>", optional))]
    pub importance: f64,
    /// Default 2.
    #[cfg_attr(test, ts(as = "Option<f64>", optional))]
    pub relevance: f64,
    /// Milliseconds for recency to halve. Default 3 days.
    #[cfg_attr(test, ts(as = "Option<f64>", optional))]
    pub half_life_ms: f64,
}

impl Default for RecallWeights {
    fn default() -> Self {
        RecallWeights { recency: 1.0, importance: 1.0, relevance: 2.0, half_life_ms: 3.0 * 24.0 * 3600.0 * 1000.0 }
    }
}

/// The range of `xs`: (lowest, highest), NaN left out.
fn range(xs: impl Iterator<Item = f64>) -> (f64, f64) {
    xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), x| (l.min(x), h.max(x)))
}

/// `x` rescaled from `(lo, hi)` to [0, 1]; a component that does not vary
/// ranks nothing (all 0).
fn scaled(x: f64, (lo, hi): (f64, f64)) -> f64 {
    if hi > lo {
        (x - lo) / (hi - lo)
    } else {
        0.0
    }
}

/// The indices of the episodes `keep` accepts, best first; ties go to the
/// newer episode. `relevance[i]` is episode i's relevance to the query (0
/// without one). Each component is min-max normalized over all `episodes`,
/// kept or not; only the kept are scored and sorted. Recency falls as the
/// time since `t` (an episode's last recall, or creation) grows, so its
/// range is that of the earliest and latest `t` (a NaN `t` recalls as now,
/// recency 1, the highest there is): one decay computed per kept episode,
/// not one per episode.
pub fn rank(episodes: &[Episode], relevance: &[f64], now: f64, w: &RecallWeights, keep: impl Fn(usize) -> bool) -> Vec<usize> {
    let ln2 = std::f64::consts::LN_2;
    let t = |e: &Episode| e.last_recalled.max(e.created_at);
    let recency = |t: f64| (-ln2 * ((now - t).max(0.0)) / w.half_life_ms.max(1.0)).exp();
    let (early, late) = range(episodes.iter().map(t));
    let latest = if episodes.iter().any(|e| t(e).is_nan()) { 1.0 } else { recency(late) };
    // (no `t` but NaN: `early` is +∞, whose recency is 1, as a NaN's)
    let recent = (recency(early), latest);
    let important = range(episodes.iter().map(|e| e.importance));
    let rel = |i: usize| relevance.get(i).copied().unwrap_or(0.0);
    let relevant = range((0..episodes.len()).map(rel));
    let mut order: Vec<(usize, f64)> = episodes
        .iter()
        .enumerate()
        .filter(|&(i, _)| keep(i))
        .map(|(i, e)| {
            let score = w.recency * scaled(recency(t(e)), recent)
                + w.importance * scaled(e.importance, important)
                + w.relevance * scaled(rel(i), relevant);
            (i, score)
        })
        .collect();
    crate::sort::sort_by(&mut order, |(a, sa), (b, sb)| sb.total_cmp(sa).then(b.cmp(a)));
    order.into_iter().map(|(i, _)| i).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::episodic::SummarySource;

    fn ep(created: f64, importance: f64) -> Episode {
        Episode {
            id: format!("e{created}"),
            summary: String::new(),
            key_points: vec![],
            importance,
            message_ids: vec![],
            created_at: created,
            summary_source: SummarySource::Fallback,
            tokens: 0,
            pending_tasks: vec![],
            task_id: None,
            last_recalled: created,
            degraded: None,
            origin: Default::default(),
        }
    }

    #[test]
    fn weights_change_the_order() {
        let day = 24.0 * 3600.0 * 1000.0;
        let eps = [ep(0.0, 0.9), ep(10.0 * day, 0.2)];
        let now = 11.0 * day;
        let only = |r, i, l| RecallWeights { recency: r, importance: i, relevance: l, ..RecallWeights::default() };
        assert_eq!(rank(&eps, &[0.0, 0.0], now, &only(1.0, 0.0, 0.0), |_| true)[0], 1, "recency favours the new one");
        assert_eq!(rank(&eps, &[0.0, 0.0], now, &only(0.0, 1.0, 0.0), |_| true)[0], 0, "importance favours the old one");
        assert_eq!(rank(&eps, &[5.0, 1.0], now, &only(1.0, 0.0, 3.0), |_| true)[0], 0, "relevance outweighs recency");
        // Recalling refreshes recency.
        let mut eps2 = eps.clone();
        eps2[0].last_recalled = now;
        assert_eq!(rank(&eps2, &[0.0, 0.0], now, &only(1.0, 0.0, 0.0), |_| true)[0], 0);
    }

    /// Every episode's decay computed, each component normalized over all,
    /// then the kept sorted: what `rank` computes with one decay per kept one.
    fn every_decay(episodes: &[Episode], relevance: &[f64], now: f64, w: &RecallWeights, keep: &[bool]) -> Vec<usize> {
        let normalize = |xs: Vec<f64>| -> Vec<f64> {
            let (lo, hi) = xs.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &x| (l.min(x), h.max(x)));
            xs.iter().map(|x| if hi > lo { (x - lo) / (hi - lo) } else { 0.0 }).collect()
        };
        let ln2 = std::f64::consts::LN_2;
        let r = normalize(
            episodes
                .iter()
                .map(|e| (-ln2 * ((now - e.last_recalled.max(e.created_at)).max(0.0)) / w.half_life_ms.max(1.0)).exp())
                .collect(),
        );
        let imp = normalize(episodes.iter().map(|e| e.importance).collect());
        let rel = normalize((0..episodes.len()).map(|i| relevance.get(i).copied().unwrap_or(0.0)).collect());
        let mut order: Vec<(usize, f64)> = (0..episodes.len())
            .filter(|&i| keep[i])
            .map(|i| (i, w.recency * r[i] + w.importance * imp[i] + w.relevance * rel[i]))
            .collect();
        order.sort_by(|(a, sa), (b, sb)| sb.total_cmp(sa).then(b.cmp(a)));
        order.into_iter().map(|(i, _)| i).collect()
    }

    proptest::proptest! {
        #[test]
        fn ranks_as_if_every_decay_were_computed(
            times in proptest::collection::vec(proptest::prop_oneof![
                8 => 0.0..1e10f64,
                1 => proptest::sample::select(vec![f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 5e9]),
            ], 0..40),
            seeds in proptest::collection::vec((0.0..1.0f64, 0.0..3.0f64, proptest::bool::ANY), 40),
            now in 0.0..2e10f64,
        ) {
            // (every third episode recalled at its time; the others never, NaN)
            let episodes: Vec<Episode> = times
                .iter()
                .zip(&seeds)
                .enumerate()
                .map(|(i, (&t, &(imp, _, _)))| Episode { last_recalled: if i % 3 == 0 { t } else { f64::NAN }, ..ep(if i % 3 == 0 { 1.0 } else { t }, imp) })
                .collect();
            let relevance: Vec<f64> = seeds.iter().take(episodes.len().saturating_sub(1)).map(|s| if s.2 { s.1 } else { 0.0 }).collect();
            let keep: Vec<bool> = seeds.iter().map(|s| s.1 > 0.7).collect();
            let w = RecallWeights::default();
            proptest::prop_assert_eq!(rank(&episodes, &relevance, now, &w, |i| keep[i]), every_decay(&episodes, &relevance, now, &w, &keep));
        }
    }
}
