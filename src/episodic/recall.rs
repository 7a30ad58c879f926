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

/// Rescales to [0, 1]; a component that does not vary ranks nothing (all 0).
fn normalize(xs: &mut [f64]) {
    let (lo, hi) = xs.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &x| (l.min(x), h.max(x)));
    for x in xs.iter_mut() {
        *x = if hi > lo { (*x - lo) / (hi - lo) } else { 0.0 };
    }
}

/// The indices of the episodes `keep` accepts, best first; ties go to the
/// newer episode. `relevance[i]` is episode i's relevance to the query (0
/// without one). Scores are normalized over all `episodes`, kept or not:
/// `keep` only spares sorting those the caller would drop.
pub fn rank(episodes: &[Episode], relevance: &[f64], now: f64, w: &RecallWeights, keep: impl Fn(usize) -> bool) -> Vec<usize> {
    let n = episodes.len();
    let ln2 = std::f64::consts::LN_2;
    let mut recency: Vec<f64> =
        episodes.iter().map(|e| (-ln2 * ((now - e.last_recalled.max(e.created_at)).max(0.0)) / w.half_life_ms.max(1.0)).exp()).collect();
    let mut importance: Vec<f64> = episodes.iter().map(|e| e.importance).collect();
    let mut rel: Vec<f64> = (0..n).map(|i| relevance.get(i).copied().unwrap_or(0.0)).collect();
    normalize(&mut recency);
    normalize(&mut importance);
    normalize(&mut rel);
    let score = recency.iter().zip(&importance).zip(&rel).map(|((r, i), v)| w.recency * r + w.importance * i + w.relevance * v);
    let mut order: Vec<(usize, f64)> = score.enumerate().filter(|&(i, _)| keep(i)).collect();
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
}
