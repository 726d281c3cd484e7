//! Command-path and memory-transfer figures: enqueue latency, map/unmap latency, and
//! read/write/copy bandwidth against host memcpy.

use std::time::Instant;

use crate::Effort;
use crate::driver::{Driver, per_driver};
use crate::report::{Better, Table};

const SECTION: &str = "Runtime: command path and transfers";

pub fn run(drivers: &[Driver], effort: Effort, table: &mut Table) {
    let n = effort.latency_iterations;
    let per_driver = |f: &dyn Fn(&Driver) -> Result<f64, String>| per_driver(drivers, f);

    let latency = per_driver(&|d| {
        latency_us(d, n, |d, mem, word| {
            d.write(mem, word, false);
            d.finish();
        })
    });
    table.add(
        SECTION,
        "enqueue (4-byte write) + clFinish",
        "µs",
        Better::Lower,
        latency,
        None,
    );
    let blocking = per_driver(&|d| {
        latency_us(d, n, |d, mem, word| {
            d.write(mem, word, true);
        })
    });
    table.add(
        SECTION,
        "blocking 4-byte write",
        "µs",
        Better::Lower,
        blocking,
        None,
    );
    let map = per_driver(&|d| {
        let mem = d.buffer(4096)?;
        let t = time_per(n, || {
            d.map_unmap(mem, 4096);
        });
        d.release(mem);
        Ok(t * 1e6)
    });
    table.add(
        SECTION,
        "map + unmap of 4 KiB",
        "µs",
        Better::Lower,
        map,
        None,
    );

    // Allocation: clift's buffers are mappings with a guard page after them (a kernel
    // writing past its buffer faults instead of corrupting the heap); these rows keep the
    // price of that in view. The write touches every page, as a first use does.
    for (bytes, label) in [(4usize << 10, "4 KiB"), (1 << 20, "1 MiB")] {
        let data = vec![1u8; bytes];
        let alloc = per_driver(&|d| {
            let t = time_per(n / 4, || {
                if let Ok(mem) = d.buffer(bytes) {
                    d.write(mem, &data, true);
                    d.release(mem);
                }
            });
            Ok(t * 1e6)
        });
        table.add(
            SECTION,
            format!("create {label} buffer + blocking write + release"),
            "µs",
            Better::Lower,
            alloc,
            None,
        );
    }

    let size = effort.bandwidth_bytes;
    let memcpy = host_memcpy_gbs(size, effort.bandwidth_repeats);
    let mib = size >> 20;
    let write = per_driver(&|d| {
        let mem = d.buffer(size)?;
        let data = vec![1u8; size];
        let t = best_of(effort.bandwidth_repeats, || {
            d.write(mem, &data, true);
        });
        d.release(mem);
        Ok(gbs(size, t))
    });
    table.add(
        SECTION,
        format!("write {mib} MiB"),
        "GB/s",
        Better::Higher,
        write,
        Some(memcpy),
    );
    let read = per_driver(&|d| {
        let mem = d.buffer(size)?;
        let mut out = vec![0u8; size];
        d.read(mem, &mut out);
        let t = best_of(effort.bandwidth_repeats, || {
            d.read(mem, &mut out);
        });
        d.release(mem);
        Ok(gbs(size, t))
    });
    table.add(
        SECTION,
        format!("read {mib} MiB"),
        "GB/s",
        Better::Higher,
        read,
        Some(memcpy),
    );
    let copy = per_driver(&|d| {
        let (src, dst) = (d.buffer(size)?, d.buffer(size)?);
        d.copy(src, dst, size);
        let t = best_of(effort.bandwidth_repeats, || {
            d.copy(src, dst, size);
        });
        d.release(src);
        d.release(dst);
        Ok(gbs(size, t))
    });
    table.add(
        SECTION,
        format!("copy {mib} MiB"),
        "GB/s",
        Better::Higher,
        copy,
        Some(memcpy),
    );
}

/// Mean microseconds of `op` on a 4-byte buffer, after a warm-up.
fn latency_us(
    d: &Driver,
    n: usize,
    op: impl Fn(&Driver, opencl_sys::cl_mem, &[u8]),
) -> Result<f64, String> {
    let mem = d.buffer(4)?;
    let word = [7u8; 4];
    let t = time_per(n, || op(d, mem, &word));
    d.release(mem);
    Ok(t * 1e6)
}

/// Mean seconds per call over `n` calls, after `n / 10` warm-up calls.
fn time_per(n: usize, mut f: impl FnMut()) -> f64 {
    for _ in 0..n / 10 {
        f();
    }
    let start = Instant::now();
    for _ in 0..n {
        f();
    }
    start.elapsed().as_secs_f64() / n as f64
}

/// The fastest of `repeats` runs, in seconds.
fn best_of(repeats: usize, mut f: impl FnMut()) -> f64 {
    (0..repeats.max(1))
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn gbs(bytes: usize, seconds: f64) -> f64 {
    bytes as f64 / seconds / 1e9
}

/// The machine's limit for a copy of `size` bytes: host memcpy between two buffers already
/// touched (so page faults are not counted), on one core and split over every core, the
/// better of the two, best of `repeats`.
fn host_memcpy_gbs(size: usize, repeats: usize) -> f64 {
    let src = vec![1u8; size];
    let mut dst = vec![0u8; size];
    dst.copy_from_slice(&src);
    let single = best_of(repeats, || {
        dst.copy_from_slice(std::hint::black_box(&src));
        std::hint::black_box(&dst);
    });
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = size.div_ceil(threads);
    let parallel = best_of(repeats, || {
        std::thread::scope(|scope| {
            for (d, s) in dst.chunks_mut(chunk).zip(src.chunks(chunk)) {
                scope.spawn(move || d.copy_from_slice(std::hint::black_box(s)));
            }
        });
    });
    gbs(size, single.min(parallel))
}
