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

/// `CLIFT_LOCAL_MEM_SIZE`: the `CL_DEVICE_LOCAL_MEM_SIZE` to report, in bytes (a `K` or `M`
/// suffix multiplies by 1024 or 1024²), instead of the size of a core's L2 cache; the device
/// keeps it within the full profile's minimum and its own maximum. A device with the
/// minimum, 32 KiB (what Intel's CPU runtime reports), is what applications tuned for GPUs
/// expect; the CTS sizes its buffers from the value (see `cts-run`). Unset, empty, zero or
/// unparsable: the cache size.
pub const LOCAL_MEM_SIZE_VAR: &str = "CLIFT_LOCAL_MEM_SIZE";

/// The size set by [`LOCAL_MEM_SIZE_VAR`], if any.
pub fn local_mem_size() -> Option<u64> {
    static SIZE: OnceLock<Option<u64>> = OnceLock::new();
    *SIZE.get_or_init(|| parse_size(std::env::var(LOCAL_MEM_SIZE_VAR).ok().as_deref()))
}

/// A positive byte count with an optional `K`/`M` suffix (binary), or `None`.
fn parse_size(value: Option<&str>) -> Option<u64> {
    let v = value?.trim();
    let (digits, unit) = match v.as_bytes().last()? {
        b'k' | b'K' => (&v[..v.len() - 1], 1u64 << 10),
        b'm' | b'M' => (&v[..v.len() - 1], 1 << 20),
        _ => (v, 1),
    };
    digits
        .trim()
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(unit))
        .filter(|&n| n > 0)
}

/// A positive count, or `None` for "no cap".
fn parse_cap(value: Option<&str>) -> Option<usize> {
    value?.trim().parse::<usize>().ok().filter(|&n| n > 0)
}

#[cfg(test)]
mod tests {
    use super::{parse_cap, parse_size};

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

    #[test]
    fn sizes_take_bytes_or_binary_suffixes() {
        assert_eq!(parse_size(Some("32768")), Some(32768));
        assert_eq!(parse_size(Some("32K")), Some(32 << 10));
        assert_eq!(parse_size(Some(" 2m ")), Some(2 << 20));
        assert_eq!(parse_size(Some("0")), None);
        assert_eq!(parse_size(Some("K")), None);
        assert_eq!(parse_size(Some("-1")), None);
        assert_eq!(parse_size(Some("lots")), None);
        assert_eq!(parse_size(Some("")), None);
        assert_eq!(parse_size(Some("99999999999999999999M")), None);
        assert_eq!(parse_size(None), None);
    }
}
