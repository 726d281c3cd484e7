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

/// Elements of the blocks threads claim one at a time (1 MiB).
const BLOCK: usize = 1 << 18;

/// The machine's streaming bandwidth over arrays of `bytes`, best of `reps` for each loop.
/// Threads claim blocks of the arrays one at a time, as a driver's workers claim
/// work-groups: on a loaded machine a thread that loses its core leaves its blocks to the
/// others instead of making every measurement wait for it (splitting the arrays in equal
/// halves measured half of what the kernels reached on the shared 2-core machine).
pub fn machine(bytes: usize, reps: usize) -> Machine {
    let n = bytes / 4;
    let t = threads();
    // Zeroed allocations of this size are fresh pages from the system, not yet touched:
    // the thread that streams a block first writes it.
    let (mut a, mut b, mut c) = (vec![0.0f32; n], vec![0.0f32; n], vec![0.0f32; n]);
    in_blocks(&mut a, &mut b, &c, t, |a, b, _| {
        for (i, (a, b)) in a.iter_mut().zip(b.iter_mut()).enumerate() {
            *a = (i % 7) as f32;
            *b = (i % 5) as f32;
        }
    });
    in_blocks(&mut c, &mut [], &a, t, |c, _, _| c.fill(1.0));
    let gbs = |arrays: usize, secs: f64| (arrays * n * 4) as f64 / secs / 1e9;
    let read = best_of(reps, || {
        in_blocks(&mut [], &mut [], &a, t, |_, _, x| {
            std::hint::black_box(sum(std::hint::black_box(x)));
        })
    });
    let copy = best_of(reps, || {
        in_blocks(&mut c, &mut [], &a, t, |d, _, x| d.copy_from_slice(x))
    });
    let add = best_of(reps, || {
        in_blocks(&mut c, &mut b, &a, t, |d, y, x| {
            for ((d, x), y) in d.iter_mut().zip(x).zip(y.iter()) {
                *d = x + y;
            }
        })
    });
    let scalar = std::hint::black_box(3.0f32);
    let triad = best_of(reps, || {
        in_blocks(&mut a, &mut b, &c, t, |d, y, x| {
            for ((d, x), y) in d.iter_mut().zip(x).zip(y.iter()) {
                *d = y + scalar * x;
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

/// `f(dst, other, src)` on matching blocks of the arrays (an empty array gives empty
/// blocks), `threads` threads claiming blocks until none is left.
fn in_blocks(
    dst: &mut [f32],
    other: &mut [f32],
    src: &[f32],
    threads: usize,
    f: impl Fn(&mut [f32], &mut [f32], &[f32]) + Sync,
) {
    let blocks = src.len().div_ceil(BLOCK).max(dst.len().div_ceil(BLOCK));
    let mut dst = dst.chunks_mut(BLOCK);
    let mut other = other.chunks_mut(BLOCK);
    let mut src = src.chunks(BLOCK);
    let queue = std::sync::Mutex::new((0..blocks).map(move |_| {
        (
            dst.next().unwrap_or_default(),
            other.next().unwrap_or_default(),
            src.next().unwrap_or_default(),
        )
    }));
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                loop {
                    let next = queue.lock().map_or(None, |mut q| q.next());
                    let Some((d, o, x)) = next else { break };
                    f(d, o, x);
                }
            });
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
    fn every_block_is_streamed_once_whichever_thread_claims_it() {
        // Two and a half blocks over three threads.
        let n = 2 * BLOCK + BLOCK / 2;
        let x: Vec<f32> = (0..n).map(|i| (i % 10) as f32).collect();
        let mut y = vec![1.0f32; n];
        let mut d = vec![0.0f32; n];
        in_blocks(&mut d, &mut y, &x, 3, |d, y, x| {
            for ((d, y), x) in d.iter_mut().zip(y.iter_mut()).zip(x) {
                *d += x + *y;
                *y = 0.0;
            }
        });
        assert!(
            d.iter()
                .enumerate()
                .all(|(i, &v)| v == (i % 10) as f32 + 1.0)
        );
        assert!(y.iter().all(|&v| v == 0.0));
        // A read alone: no destination.
        let total = std::sync::Mutex::new(0.0f64);
        in_blocks(&mut [], &mut [], &x, 2, |_, _, x| {
            *total.lock().unwrap() += f64::from(sum(x));
        });
        assert_eq!(
            *total.lock().unwrap(),
            x.iter().map(|&v| f64::from(v)).sum::<f64>()
        );
    }

    #[test]
    fn the_sum_adds_every_element() {
        let xs: Vec<f32> = (1..=21).map(|i| i as f32).collect();
        assert_eq!(sum(&xs), 231.0);
    }
}
