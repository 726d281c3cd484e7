//! The machine's all-core streaming bandwidth, measured natively in the same run (one Rust
//! thread per compute unit, STREAM's read / copy / add / triad over arrays larger than the
//! last-level cache), and the memory-bound kernels of both drivers at the same array sizes,
//! whose "vs machine" column is the ratio to it: issue 15 asks that memory-bound kernels
//! reach 90% of what the machine itself streams.
//!
//! Bytes are counted as STREAM counts them: each array read or written once (a store's
//! read-for-ownership is not counted), for the kernels and the native loops alike.

use crate::Effort;
use crate::driver::{Driver, per_driver};
use crate::kernels::three_arrays;
use crate::report::{Better, Table};

const SECTION: &str = "Kernels: memory bandwidth (arrays larger than the last-level cache)";

/// GB/s of the machine's own loops, all cores.
#[derive(Clone, Copy, Debug)]
pub struct Machine {
    /// `s += a[i]` (one array read).
    pub read: f64,
    /// `c[i] = a[i]` (two arrays).
    pub copy: f64,
    /// `c[i] = a[i] + b[i]` (three arrays).
    pub add: f64,
    /// `a[i] = b[i] + s * c[i]` (three arrays).
    pub triad: f64,
}

/// Bytes of each array: the last-level cache's size (so that the three arrays of an add
/// or triad are three times the cache), at least 64 MiB and at most 512 MiB (memory is
/// shared with the other driver's buffers and other programs); a quarter of that, at
/// least 64 MiB, in a quick run.
pub fn array_bytes(effort: Effort) -> usize {
    let llc = last_level_cache().unwrap_or(32 << 20);
    let full = llc.clamp(64 << 20, 512 << 20);
    if effort.bandwidth_bytes >= 256 << 20 {
        full
    } else {
        (full / 4).max(64 << 20)
    }
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

/// The machine's streaming bandwidth over arrays of `bytes`, best of `reps` for each loop.
/// Each thread first writes its own part of every array (the pages are its own on a NUMA
/// machine, as a worker's are when it first touches a buffer), then streams that part.
pub fn machine(bytes: usize, reps: usize) -> Machine {
    let n = bytes / 4;
    let t = threads();
    let chunk = n.div_ceil(t);
    // Zeroed allocations of this size are fresh pages from the system, not yet touched.
    let (mut a, mut b, mut c) = (vec![0.0f32; n], vec![0.0f32; n], vec![0.0f32; n]);
    std::thread::scope(|s| {
        for ((a, b), c) in a
            .chunks_mut(chunk)
            .zip(b.chunks_mut(chunk))
            .zip(c.chunks_mut(chunk))
        {
            s.spawn(move || {
                for (i, ((a, b), c)) in a.iter_mut().zip(b.iter_mut()).zip(c.iter_mut()).enumerate()
                {
                    *a = (i % 7) as f32;
                    *b = (i % 5) as f32;
                    *c = 1.0;
                }
            });
        }
    });
    let gbs = |arrays: usize, secs: f64| (arrays * n * 4) as f64 / secs / 1e9;
    let read = best_of(reps, || {
        std::thread::scope(|s| {
            for part in a.chunks(chunk) {
                s.spawn(move || std::hint::black_box(sum(std::hint::black_box(part))));
            }
        });
    });
    let copy = best_of(reps, || {
        in_parts(&mut c, &a, &b, chunk, |d, x, _| d.copy_from_slice(x))
    });
    let add = best_of(reps, || {
        in_parts(&mut c, &a, &b, chunk, |d, x, y| {
            for ((d, x), y) in d.iter_mut().zip(x).zip(y) {
                *d = x + y;
            }
        })
    });
    let scalar = std::hint::black_box(3.0f32);
    let triad = best_of(reps, || {
        in_parts(&mut a, &b, &c, chunk, |d, x, y| {
            for ((d, x), y) in d.iter_mut().zip(x).zip(y) {
                *d = x + scalar * y;
            }
        })
    });
    std::hint::black_box((&a, &c));
    Machine {
        read: gbs(1, read),
        copy: gbs(2, copy),
        add: gbs(3, add),
        triad: gbs(3, triad),
    }
}

/// `f(dst, x, y)` on the threads' parts of `chunk` elements of the three arrays, one thread
/// per part.
fn in_parts(
    dst: &mut [f32],
    x: &[f32],
    y: &[f32],
    chunk: usize,
    f: impl Fn(&mut [f32], &[f32], &[f32]) + Copy + Send,
) {
    std::thread::scope(|s| {
        for ((d, x), y) in dst
            .chunks_mut(chunk)
            .zip(x.chunks(chunk))
            .zip(y.chunks(chunk))
        {
            s.spawn(move || f(d, std::hint::black_box(x), y));
        }
    });
}

/// The sum of `xs` in 8 independent partial sums (the loop streams rather than waits on
/// one dependent add per element; the compiler vectorizes it).
fn sum(xs: &[f32]) -> f32 {
    let mut acc = [0.0f32; 8];
    let mut chunks = xs.chunks_exact(8);
    for c in &mut chunks {
        for (a, x) in acc.iter_mut().zip(c) {
            *a += x;
        }
    }
    acc.iter().sum::<f32>() + chunks.remainder().iter().sum::<f32>()
}

/// The fastest of `reps` runs of `f`, in seconds.
fn best_of(reps: usize, mut f: impl FnMut()) -> f64 {
    (0..reps.max(1))
        .map(|_| {
            let start = std::time::Instant::now();
            f();
            start.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

pub fn run(drivers: &[Driver], effort: Effort, table: &mut Table) {
    let bytes = array_bytes(effort);
    let reps = effort.bandwidth_repeats;
    let m = machine(bytes, reps);
    eprintln!(
        "clift-bench: the machine streams (GB/s, {} threads, {} MiB arrays): read {:.1}, copy {:.1}, add {:.1}, triad {:.1}",
        threads(),
        bytes >> 20,
        m.read,
        m.copy,
        m.add,
        m.triad
    );
    let n = bytes / 4;
    let vadd = per_driver(drivers, &|d| three_arrays(d, "vadd", n, reps, None));
    table.add(
        SECTION,
        format!(
            "vector add c = a + b, 3 × {} MiB (vs all-core add)",
            bytes >> 20
        ),
        "GB/s",
        Better::Higher,
        vadd,
        Some(m.add),
    );
    let triad = per_driver(drivers, &|d| three_arrays(d, "triad", n, reps, Some(3.0)));
    table.add(
        SECTION,
        format!(
            "triad a = b + s * c, 3 × {} MiB (vs all-core triad)",
            bytes >> 20
        ),
        "GB/s",
        Better::Higher,
        triad,
        Some(m.triad),
    );
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
    fn the_sum_adds_every_element() {
        let xs: Vec<f32> = (1..=21).map(|i| i as f32).collect();
        assert_eq!(sum(&xs), 231.0);
    }
}
