//! The machine's all-core streaming bandwidth, measured natively in the same run as STREAM
//! measures it ([`native`], [`loops`]), and the memory-bound kernels of both drivers at the
//! same array sizes, whose "vs machine" column is the ratio to it: issue 15 asks that
//! memory-bound kernels reach 90% of what the machine itself streams.
//!
//! Bytes are counted as STREAM counts them: each array read or written once (a store's
//! read-for-ownership is not counted), for the kernels and the native loops alike. The
//! kernels are compared with the native loops of normal stores (a kernel's stores are
//! normal); the non-temporal loops are reported beside them as the hardware's ceiling.

mod loops;
mod native;
mod pattern;
mod rounds;

use crate::Effort;
use crate::driver::{Driver, per_driver};
use crate::kernels::three_arrays;
use crate::report::{Better, Table};
use loops::{Loop, Stores};
pub use pattern::{Loads, Pattern};
pub use rounds::{listed, median};

const SECTION: &str = "Kernels: memory bandwidth (arrays larger than the last-level cache)";

/// Bytes of each array: STREAM's rule, four times the last-level cache (sysfs), in a full
/// run; the cache's size (three arrays, three times the cache) in a quick one; at least
/// 64 MiB, and at most an eighth of the memory available (the kernels' three buffers and
/// the host array they are filled from, four arrays, then take half of it) and the largest
/// buffer every driver allows (PoCL's `CL_DEVICE_MAX_MEM_ALLOC_SIZE` may be below the
/// 1200 MiB of a 300 MiB cache: on the 16-core machine of session 18 its buffers failed).
pub fn array_bytes(effort: Effort, drivers: &[Driver]) -> usize {
    let llc = last_level_cache().unwrap_or(32 << 20);
    let largest_buffer = drivers
        .iter()
        .map(|d| usize::try_from(d.max_alloc).unwrap_or(usize::MAX))
        .min();
    sized(effort, llc, available_memory(), largest_buffer)
}

/// [`array_bytes`] from the cache's size, the memory available and the largest buffer.
fn sized(
    effort: Effort,
    llc: usize,
    available: Option<usize>,
    largest_buffer: Option<usize>,
) -> usize {
    let wanted = if effort.bandwidth_bytes >= 256 << 20 {
        4 * llc
    } else {
        llc
    };
    let room = available.map_or(usize::MAX, |m| m / 8);
    let bytes = wanted.min(room).max(64 << 20);
    bytes.min(largest_buffer.unwrap_or(usize::MAX)) >> 20 << 20
}

/// The largest cache of CPU 0 (sysfs), in bytes.
fn last_level_cache() -> Option<usize> {
    let dir = std::fs::read_dir("/sys/devices/system/cpu/cpu0/cache").ok()?;
    dir.filter_map(|e| {
        let text = std::fs::read_to_string(e.ok()?.path().join("size")).ok()?;
        parse_size(text.trim())
    })
    .max()
}

/// `MemAvailable` of /proc/meminfo, in bytes.
fn available_memory() -> Option<usize> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    meminfo_available(&text)
}

/// The `MemAvailable:  123 kB` line of a /proc/meminfo text, in bytes.
fn meminfo_available(text: &str) -> Option<usize> {
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib << 10)
}

/// `"307200K"`, `"32M"`, `"512"` as bytes.
fn parse_size(text: &str) -> Option<usize> {
    let (digits, unit) = match text.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => text.split_at(i),
        None => (text, ""),
    };
    let n: usize = digits.parse().ok()?;
    match unit {
        "" => Some(n),
        "K" => Some(n << 10),
        "M" => Some(n << 20),
        "G" => Some(n << 30),
        _ => None,
    }
}

/// The threads of the native measurement: clift's compute units (`CLIFT_MAX_COMPUTE_UNITS`
/// in a scaling run), else every CPU.
fn threads() -> usize {
    let all = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::env::var("CLIFT_MAX_COMPUTE_UNITS")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|&n| n > 0)
        .map_or(all, |n| n.min(all))
}

/// One line of the native figures, GB/s of each loop.
fn figures(m: &native::Machine, stores: Stores) -> String {
    Loop::ALL
        .iter()
        .map(|&l| format!("{} {:.1}", l.name(), m.gbs(l, stores)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The machine's streaming bandwidth over arrays of `bytes` on every compute unit (clpeak's
/// section compares with its read).
pub fn machine(bytes: usize, effort: Effort) -> native::Machine {
    native::machine(bytes / 4, threads(), passes(effort))
}

/// clpeak's float16 read order, to run natively over about `bytes` on every compute unit
/// ([`pattern`]); `None` on a CPU without AVX.
pub fn clpeak_pattern(bytes: usize) -> Option<Pattern> {
    Pattern::new(bytes, threads())
}

/// STREAM's ten passes in a full run (the kernels keep the bench's repeats).
fn passes(effort: Effort) -> usize {
    2 * effort.bandwidth_repeats
}

/// Rounds of the memory rows ([`rounds`]): STREAM, then each driver's kernels, in turn.
const ROUNDS: usize = 5;

/// The best of each loop's figure over `machines`.
fn best_machine(machines: &[native::Machine]) -> native::Machine {
    let mut m = native::Machine::default();
    for x in machines {
        for (at, l) in Loop::ALL.into_iter().enumerate() {
            m.normal[at] = m.normal[at].max(x.gbs(l, Stores::Normal));
            m.non_temporal[at] = m.non_temporal[at].max(x.gbs(l, Stores::NonTemporal));
        }
        m.read = m.read.max(x.read);
    }
    m
}

pub fn run(drivers: &[Driver], effort: Effort, table: &mut Table) {
    let bytes = array_bytes(effort, drivers);
    let n = bytes / 4;
    let (threads, reps) = (threads(), effort.bandwidth_repeats);
    // Each round: STREAM (its passes after a warm-up), then each driver's vector add and
    // triad (the best of `reps` launches each), so that a burst of load on the shared
    // machine falls on all of them alike.
    let (mut machines, mut vadd, mut triad) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        machines.push(native::machine(n, threads, reps));
        vadd.push(per_driver(drivers, &|d| {
            three_arrays(d, "vadd", n, reps, None)
        }));
        triad.push(per_driver(drivers, &|d| {
            three_arrays(d, "triad", n, reps, Some(3.0))
        }));
    }
    let m = best_machine(&machines);
    let note = format!(
        "The machine, natively (STREAM's loops, {threads} pinned thread(s), 3 × {} MiB, best \
         of {ROUNDS} rounds of {reps} passes), GB/s: normal stores: {}; non-temporal stores: \
         {}.",
        bytes >> 20,
        figures(&m, Stores::Normal),
        figures(&m, Stores::NonTemporal),
    ) + &format!(" A sum (read): {:.1}.", m.read);
    eprintln!("clift-bench: {note}");
    table.note(SECTION, note);
    for (name, label, l, per_round) in [
        ("vector add", "vector add c = a + b", Loop::Add, &vadd),
        ("triad", "triad a = b + s * c", Loop::Triad, &triad),
    ] {
        let stream: Vec<Option<f64>> = machines
            .iter()
            .map(|x| Some(x.gbs(l, Stores::Normal)))
            .collect();
        let columns = rounds::columns(per_round, drivers.len());
        let mut each = format!(
            "{name}, GB/s of each round: STREAM {} {}",
            l.name(),
            rounds::listed(&stream)
        );
        for (d, column) in drivers.iter().zip(&columns) {
            each += &format!("; {} {}", d.name, rounds::listed(column));
        }
        eprintln!("clift-bench: {each}");
        table.note(SECTION, each + ".");
        for (which, pick) in [
            ("best", rounds::best as fn(&[Option<f64>]) -> Option<f64>),
            ("median", rounds::median),
        ] {
            table.add(
                SECTION,
                format!(
                    "{label}, 3 × {} MiB, {which} of {ROUNDS} rounds (vs STREAM {})",
                    bytes >> 20,
                    l.name()
                ),
                "GB/s",
                Better::Higher,
                columns.iter().map(|c| pick(c)).collect(),
                pick(&stream),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_sizes_as_sysfs_writes_them() {
        assert_eq!(parse_size("307200K"), Some(307200 << 10));
        assert_eq!(parse_size("32M"), Some(32 << 20));
        assert_eq!(parse_size("512"), Some(512));
        assert_eq!(parse_size("12X"), None);
        assert_eq!(parse_size(""), None);
    }

    #[test]
    fn arrays_are_streams_size_within_memory_and_every_drivers_largest_buffer() {
        let full = Effort {
            latency_iterations: 1,
            bandwidth_bytes: 256 << 20,
            bandwidth_repeats: 1,
        };
        let quick = Effort {
            bandwidth_bytes: 16 << 20,
            ..full
        };
        let llc = 300 << 20;
        assert_eq!(sized(full, llc, None, None), 1200 << 20);
        assert_eq!(sized(quick, llc, None, None), 300 << 20);
        // An eighth of the memory available, at least 64 MiB.
        assert_eq!(sized(full, llc, Some(8 << 30), None), 1024 << 20);
        assert_eq!(sized(full, 1 << 20, None, None), 64 << 20);
        // The smallest largest buffer, whole MiB.
        assert_eq!(sized(full, llc, None, Some(1024 << 20)), 1024 << 20);
        assert_eq!(sized(full, llc, None, Some((512 << 20) + 5)), 512 << 20);
    }

    #[test]
    fn available_memory_as_meminfo_writes_it() {
        let text = "MemTotal:       24000000 kB\nMemFree:  100 kB\nMemAvailable:   22000000 kB\n";
        assert_eq!(meminfo_available(text), Some(22_000_000 << 10));
        assert_eq!(meminfo_available("MemTotal: 5 kB\n"), None);
    }
}
