//! Environment variables the driver reads (documented in docs/ENVIRONMENT.md).
//!
//! Each is read once, at first use, so a running program sees one consistent configuration.

use std::sync::OnceLock;

/// `CLIFT_MAX_COMPUTE_UNITS`: caps the compute units (worker threads) of the root device,
/// taking the first N CPUs of the process's affinity mask. Unset, empty, zero or unparsable
/// means no cap.
pub const MAX_COMPUTE_UNITS_VAR: &str = "CLIFT_MAX_COMPUTE_UNITS";

/// The cap set by [`MAX_COMPUTE_UNITS_VAR`], if any.
pub fn max_compute_units() -> Option<usize> {
    static CAP: OnceLock<Option<usize>> = OnceLock::new();
    *CAP.get_or_init(|| parse_cap(std::env::var(MAX_COMPUTE_UNITS_VAR).ok().as_deref()))
}

/// A positive count, or `None` for "no cap".
fn parse_cap(value: Option<&str>) -> Option<usize> {
    value?.trim().parse::<usize>().ok().filter(|&n| n > 0)
}

#[cfg(test)]
mod tests {
    use super::parse_cap;

    #[test]
    fn cap_accepts_positive_counts_only() {
        assert_eq!(parse_cap(Some("3")), Some(3));
        assert_eq!(parse_cap(Some(" 12 ")), Some(12));
        assert_eq!(parse_cap(Some("0")), None);
        assert_eq!(parse_cap(Some("-2")), None);
        assert_eq!(parse_cap(Some("many")), None);
        assert_eq!(parse_cap(Some("")), None);
        assert_eq!(parse_cap(None), None);
    }
}
