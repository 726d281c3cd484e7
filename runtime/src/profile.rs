//! `CLIFT_PROFILE=1`: a summary, printed to stderr when the process exits, of where the
//! driver's time went: per kernel its launches, total and mean run time and work-items per
//! second; per program build the time of each compiler stage.
//!
//! Off, it costs one cached flag test per launch and per build. The ICD registers the
//! printing at exit ([`report`] is what it prints).

use std::collections::BTreeMap;
use std::sync::OnceLock;
use std::time::Duration;

use parking_lot::Mutex;

pub const PROFILE_VAR: &str = "CLIFT_PROFILE";

/// Whether `CLIFT_PROFILE` is set (to anything but empty or `0`); read once.
pub fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var(PROFILE_VAR).is_ok_and(|v| !v.is_empty() && v != "0"))
}

#[derive(Default)]
struct KernelStats {
    launches: u64,
    total: Duration,
    work_items: u128,
}

struct BuildStats {
    kernels: String,
    source_bytes: usize,
    stages: Vec<(&'static str, Duration)>,
    total: Duration,
}

#[derive(Default)]
struct Profile {
    kernels: BTreeMap<String, KernelStats>,
    builds: Vec<BuildStats>,
}

static PROFILE: Mutex<Option<Profile>> = Mutex::new(None);

/// Records one launch of `kernel` over `work_items` work-items that ran for `time`.
pub fn record_launch(kernel: &str, work_items: u64, time: Duration) {
    let mut profile = PROFILE.lock();
    let profile = profile.get_or_insert_with(Profile::default);
    let stats = profile.kernels.entry(kernel.to_string()).or_default();
    stats.launches += 1;
    stats.total += time;
    stats.work_items += u128::from(work_items);
}

/// Records one successful build: its kernels, source size, stage times and total time.
pub fn record_build(
    kernels: &str,
    source_bytes: usize,
    stages: &[(&'static str, Duration)],
    total: Duration,
) {
    let mut profile = PROFILE.lock();
    profile
        .get_or_insert_with(Profile::default)
        .builds
        .push(BuildStats {
            kernels: kernels.to_string(),
            source_bytes,
            stages: stages.to_vec(),
            total,
        });
}

/// The summary table of everything recorded so far (empty if nothing was).
pub fn report() -> String {
    use std::fmt::Write;
    let profile = PROFILE.lock();
    let Some(profile) = profile.as_ref() else {
        return String::new();
    };
    let mut out = String::from("clift profile (CLIFT_PROFILE)\n");
    if !profile.kernels.is_empty() {
        let _ = writeln!(
            out,
            "{:<32} {:>9} {:>12} {:>12} {:>14}",
            "kernel", "launches", "total ms", "mean us", "work-items/s"
        );
        for (name, s) in &profile.kernels {
            let total_s = s.total.as_secs_f64();
            let mean_us = total_s * 1e6 / s.launches.max(1) as f64;
            let rate = if total_s > 0.0 {
                format!("{:.3e}", s.work_items as f64 / total_s)
            } else {
                "-".to_string()
            };
            let _ = writeln!(
                out,
                "{:<32} {:>9} {:>12.3} {:>12.1} {:>14}",
                name,
                s.launches,
                total_s * 1e3,
                mean_us,
                rate
            );
        }
    }
    if !profile.builds.is_empty() {
        let stage_names: Vec<&str> = profile
            .builds
            .iter()
            .flat_map(|b| b.stages.iter().map(|(n, _)| *n))
            .fold(Vec::new(), |mut names, n| {
                if !names.contains(&n) {
                    names.push(n);
                }
                names
            });
        let _ = write!(out, "{:<5} {:>9}", "build", "bytes");
        for name in &stage_names {
            let _ = write!(out, " {:>11}", format!("{name} ms"));
        }
        let _ = writeln!(out, " {:>11}  kernels", "total ms");
        for (i, b) in profile.builds.iter().enumerate() {
            let _ = write!(out, "{:<5} {:>9}", i + 1, b.source_bytes);
            for name in &stage_names {
                let ms = b
                    .stages
                    .iter()
                    .find(|(n, _)| n == name)
                    .map_or(0.0, |(_, t)| t.as_secs_f64() * 1e3);
                let _ = write!(out, " {ms:>11.3}");
            }
            let _ = writeln!(out, " {:>11.3}  {}", b.total.as_secs_f64() * 1e3, b.kernels);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_sums_launches_and_lists_builds() {
        record_launch("profile_test_k", 1000, Duration::from_millis(2));
        record_launch("profile_test_k", 3000, Duration::from_millis(6));
        record_build(
            "profile_test_k",
            120,
            &[
                ("preprocess", Duration::from_micros(100)),
                ("codegen", Duration::from_micros(900)),
            ],
            Duration::from_millis(1),
        );
        let text = report();
        assert!(
            text.starts_with("clift profile (CLIFT_PROFILE)\n"),
            "{text}"
        );
        // 2 launches, 8 ms in all, 4 ms each, 4000 items in 8 ms.
        let row = text
            .lines()
            .find(|l| l.starts_with("profile_test_k "))
            .unwrap();
        let cells: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(cells, ["profile_test_k", "2", "8.000", "4000.0", "5.000e5"]);
        assert!(
            text.contains("preprocess ms") && text.contains("codegen ms"),
            "{text}"
        );
        let build = text
            .lines()
            .find(|l| l.ends_with("  profile_test_k"))
            .unwrap();
        let cells: Vec<&str> = build.split_whitespace().collect();
        assert_eq!(
            &cells[1..],
            ["120", "0.100", "0.900", "1.000", "profile_test_k"]
        );
    }
}
