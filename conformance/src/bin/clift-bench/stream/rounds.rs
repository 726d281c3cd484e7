//! Figures of several rounds, each measuring the machine and every driver in turn: on a
//! shared, loaded machine one measurement of each, minutes apart, compares their loads
//! more than their code (session 9: vector add 84% of STREAM add in one run). Interleaved,
//! a burst of load falls on the round's measurements alike; the best round says what each
//! reaches, the median what it usually gets.

/// The best (highest) of the rounds that gave a figure.
pub fn best(xs: &[Option<f64>]) -> Option<f64> {
    xs.iter().flatten().copied().reduce(f64::max)
}

/// The median of the rounds that gave a figure (the mean of the middle two for an even
/// count).
pub fn median(xs: &[Option<f64>]) -> Option<f64> {
    let mut v: Vec<f64> = xs.iter().flatten().copied().collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let mid = v.len() / 2;
    Some(if v.len() % 2 == 1 {
        v[mid]
    } else {
        (v[mid - 1] + v[mid]) / 2.0
    })
}

/// Each driver's column of `rounds` (one row per round, one figure per driver).
pub fn columns(rounds: &[Vec<Option<f64>>], drivers: usize) -> Vec<Vec<Option<f64>>> {
    (0..drivers)
        .map(|d| rounds.iter().map(|r| r.get(d).copied().flatten()).collect())
        .collect()
}

/// `xs` as `a / b / c` with one decimal, `-` where a round gave nothing.
pub fn listed(xs: &[Option<f64>]) -> String {
    xs.iter()
        .map(|x| x.map_or("-".to_string(), |x| format!("{x:.1}")))
        .collect::<Vec<_>>()
        .join(" / ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_and_median_of_the_rounds_that_gave_a_figure() {
        let xs = [Some(3.0), None, Some(1.0), Some(7.0), Some(2.0)];
        assert_eq!(best(&xs), Some(7.0));
        assert_eq!(median(&xs), Some(2.5));
        assert_eq!(median(&xs[..4]), Some(3.0));
        assert_eq!(best(&[None, None]), None);
        assert_eq!(median(&[None]), None);
    }

    #[test]
    fn columns_per_driver_and_their_listing() {
        let rounds = vec![vec![Some(1.0), Some(2.0)], vec![Some(3.0), None]];
        let cols = columns(&rounds, 2);
        assert_eq!(
            cols,
            vec![vec![Some(1.0), Some(3.0)], vec![Some(2.0), None]]
        );
        assert_eq!(listed(&cols[1]), "2.0 / -");
    }
}
