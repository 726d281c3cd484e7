//! clpeak's float16 read (`global_bandwidth_v16_local_offset`) run natively, to tell what
//! the width of the loads alone changes: the same loop in the same order, once with 128-bit
//! loads (4 per 64-byte fetch: all that clift's Cranelift code has) and once with the
//! widest the CPU has (one 512-bit load, or two of 256 bits).
//!
//! As clpeak launches it on a CPU device: groups of [`LOCAL`] items, each item summing
//! [`FETCHES`] float16s, fetch `i` of item `l` of group `g` at float16 index
//! `(g × FETCHES + i) × LOCAL + l`; one thread per compute unit, pinned, claiming groups
//! one at a time from a shared counter. A read is timed as clpeak times a kernel: two
//! passes over the whole array to warm up, then the mean of the passes that follow.

use std::sync::Barrier;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use super::native::{Pages, allowed_cpus, pin};

/// clpeak's local size for its bandwidth kernels on a CPU device (its `MAX_WG_SIZE`).
const LOCAL: usize = 256;
/// clpeak's `FETCH_PER_WI`.
const FETCHES: usize = 16;
/// Floats of one fetch (a float16): one cache line.
const FETCH_FLOATS: usize = 16;
/// Floats one group reads.
const GROUP_FLOATS: usize = LOCAL * FETCHES * FETCH_FLOATS;
/// The passes clpeak runs before it starts its clock.
const WARM_UP_PASSES: usize = 2;

/// The loads a read uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loads {
    /// 128-bit loads, the widest clift's Cranelift code has on x64.
    Narrow,
    /// The widest loads of the CPU ([`Pattern::wide_bits`]): PoCL's on AVX-512.
    Widest,
}

/// The load widths this CPU can run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Width {
    Bits128,
    Bits256,
    Bits512,
}

impl Width {
    /// The widest loads of this CPU; `None` without AVX, which the 128-bit loop needs too
    /// (its VEX encoding).
    fn widest() -> Option<Width> {
        if std::arch::is_x86_feature_detected!("avx512f") {
            Some(Width::Bits512)
        } else if std::arch::is_x86_feature_detected!("avx") {
            Some(Width::Bits256)
        } else {
            None
        }
    }

    fn bits(self) -> u32 {
        match self {
            Width::Bits128 => 128,
            Width::Bits256 => 256,
            Width::Bits512 => 512,
        }
    }
}

/// The array clpeak's float16 kernel reads, and the threads that read it natively.
pub struct Pattern {
    pages: Pages,
    threads: usize,
    widest: Width,
}

impl Pattern {
    /// About `bytes` of input (whole groups) for `threads` threads; `None` on a CPU without
    /// AVX.
    pub fn new(bytes: usize, threads: usize) -> Option<Pattern> {
        let widest = Width::widest()?;
        let groups = (bytes / 4 / GROUP_FLOATS).max(1);
        let mut pages = Pages::new(groups * GROUP_FLOATS);
        for (i, x) in pages.floats().iter_mut().enumerate() {
            *x = (i % 251) as f32 / 251.0;
        }
        Some(Pattern {
            pages,
            threads: threads.max(1),
            widest,
        })
    }

    /// The bits of [`Loads::Widest`]: 512 with AVX-512, else 256.
    pub fn wide_bits(&self) -> u32 {
        self.widest.bits()
    }

    /// GB/s of the read with `loads`, timed as clpeak times a kernel: the mean of `passes`
    /// passes after two that warm up.
    pub fn read(&mut self, loads: Loads, passes: usize) -> f64 {
        let width = match loads {
            Loads::Narrow => Width::Bits128,
            Loads::Widest => self.widest,
        };
        let threads = self.threads;
        let input: &[f32] = self.pages.floats();
        for _ in 0..WARM_UP_PASSES {
            one_pass(input, width, threads);
        }
        let passes = passes.max(1);
        let seconds: f64 = (0..passes).map(|_| one_pass(input, width, threads)).sum();
        (input.len() * 4 * passes) as f64 / seconds / 1e9
    }
}

/// Seconds of one pass over `input` with loads of `width`, from the threads' common start
/// to the last one's end.
fn one_pass(input: &[f32], width: Width, threads: usize) -> f64 {
    let groups = input.len() / GROUP_FLOATS;
    let cpus = allowed_cpus();
    let barrier = Barrier::new(threads);
    let next = AtomicUsize::new(0);
    let mut spans: Vec<(Instant, Instant)> = Vec::new();
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                let (barrier, next) = (&barrier, &next);
                let cpu = cpus.get(t % cpus.len().max(1)).copied();
                scope.spawn(move || {
                    if let Some(cpu) = cpu {
                        pin(cpu);
                    }
                    let mut sums = vec![0.0f32; LOCAL];
                    barrier.wait();
                    let start = Instant::now();
                    loop {
                        let g = next.fetch_add(1, Ordering::Relaxed);
                        if g >= groups {
                            break;
                        }
                        let group = &input[g * GROUP_FLOATS..(g + 1) * GROUP_FLOATS];
                        run_group(group, width, &mut sums);
                        std::hint::black_box(&mut sums);
                    }
                    (start, Instant::now())
                })
            })
            .collect();
        for w in workers {
            spans.push(w.join().expect("a pattern thread panicked"));
        }
    });
    let start = spans.iter().map(|s| s.0).min().expect("a thread");
    let end = spans.iter().map(|s| s.1).max().expect("a thread");
    (end - start).as_secs_f64()
}

/// One group's items: `sums[l]` is item `l`'s sum of its fetches' 16 lanes.
fn run_group(group: &[f32], width: Width, sums: &mut [f32]) {
    assert!(group.len() == GROUP_FLOATS && sums.len() == LOCAL);
    // SAFETY (each arm): every load reads 16 floats at `(i × LOCAL + l) × 16`, i < FETCHES
    // and l < LOCAL, inside `group`, whose length is checked above; a `Width` runs only
    // where `Width::widest` found the features its function enables (AVX at least).
    match width {
        // SAFETY: as above.
        Width::Bits128 => unsafe { items_128(group.as_ptr(), sums) },
        // SAFETY: as above.
        Width::Bits256 => unsafe { items_256(group.as_ptr(), sums) },
        // SAFETY: as above.
        Width::Bits512 => unsafe { items_512(group.as_ptr(), sums) },
    }
}

/// The group's items with 128-bit loads: 4 per fetch. The fetch count is hidden from the
/// optimizer, so that the fetches stay a loop (LLVM unrolls it by 8 for every width alike):
/// the widths differ in their loads only.
///
/// # Safety
/// `group` points at [`GROUP_FLOATS`] readable floats; the CPU has AVX (the VEX encoding
/// that lets a load be an add's operand, as in clift's code: `vaddps (mem), %xmm, %xmm`).
#[inline(never)]
#[target_feature(enable = "avx")]
unsafe fn items_128(group: *const f32, sums: &mut [f32]) {
    use std::arch::x86_64::*;
    for (l, sum) in sums.iter_mut().enumerate() {
        let mut acc = [_mm_setzero_ps(); 4];
        let mut p = group.wrapping_add(l * FETCH_FLOATS);
        for _ in 0..std::hint::black_box(FETCHES) {
            for (k, a) in acc.iter_mut().enumerate() {
                // SAFETY: the caller's; `p` is a fetch of the group (see `run_group`).
                *a = _mm_add_ps(*a, unsafe { _mm_loadu_ps(p.add(4 * k)) });
            }
            p = opaque(p.wrapping_add(LOCAL * FETCH_FLOATS));
        }
        let total = _mm_add_ps(_mm_add_ps(acc[0], acc[1]), _mm_add_ps(acc[2], acc[3]));
        let mut lanes = [0.0f32; 4];
        // SAFETY: 4 floats of `lanes`.
        unsafe { _mm_storeu_ps(lanes.as_mut_ptr(), total) };
        *sum = lanes.iter().sum();
    }
}

/// The group's items with 256-bit loads: 2 per fetch.
///
/// # Safety
/// As [`items_128`], on a CPU with AVX.
#[inline(never)]
#[target_feature(enable = "avx")]
unsafe fn items_256(group: *const f32, sums: &mut [f32]) {
    use std::arch::x86_64::*;
    for (l, sum) in sums.iter_mut().enumerate() {
        let mut acc = [_mm256_setzero_ps(); 2];
        let mut p = group.wrapping_add(l * FETCH_FLOATS);
        for _ in 0..std::hint::black_box(FETCHES) {
            for (k, a) in acc.iter_mut().enumerate() {
                // SAFETY: the caller's.
                *a = _mm256_add_ps(*a, unsafe { _mm256_loadu_ps(p.add(8 * k)) });
            }
            p = opaque(p.wrapping_add(LOCAL * FETCH_FLOATS));
        }
        let mut lanes = [0.0f32; 8];
        // SAFETY: 8 floats of `lanes`.
        unsafe { _mm256_storeu_ps(lanes.as_mut_ptr(), _mm256_add_ps(acc[0], acc[1])) };
        *sum = lanes.iter().sum();
    }
}

/// The group's items with 512-bit loads: 1 per fetch.
///
/// # Safety
/// As [`items_128`], on a CPU with AVX-512F.
#[inline(never)]
#[target_feature(enable = "avx512f")]
unsafe fn items_512(group: *const f32, sums: &mut [f32]) {
    use std::arch::x86_64::*;
    for (l, sum) in sums.iter_mut().enumerate() {
        let mut acc = _mm512_setzero_ps();
        let mut p = group.wrapping_add(l * FETCH_FLOATS);
        for _ in 0..std::hint::black_box(FETCHES) {
            // SAFETY: the caller's.
            acc = _mm512_add_ps(acc, unsafe { _mm512_loadu_ps(p) });
            p = opaque(p.wrapping_add(LOCAL * FETCH_FLOATS));
        }
        *sum = _mm512_reduce_add_ps(acc);
    }
}

/// `p`, hidden from the optimizer: each fetch's address is the previous one's plus a
/// step, as in the drivers' loops (not a constant offset from the item's first, which
/// an unrolled loop would otherwise use), whatever LLVM unrolls.
#[inline(always)]
fn opaque(p: *const f32) -> *const f32 {
    p.map_addr(|mut address| {
        // SAFETY: an empty instruction that only claims to change a register (an address,
        // not dereferenced here).
        unsafe {
            std::arch::asm!("/* {0} */", inout(reg) address, options(nomem, nostack, preserves_flags))
        };
        address
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every width sums each item's 16 fetches at clpeak's addresses: item `l`'s sum is the
    /// sum of floats `(i × LOCAL + l) × 16 .. + 16` of the group.
    #[test]
    fn every_width_reads_clpeaks_addresses() {
        let group: Vec<f32> = (0..GROUP_FLOATS).map(|i| (i % 7) as f32).collect();
        let want: Vec<f32> = (0..LOCAL)
            .map(|l| {
                (0..FETCHES)
                    .flat_map(|i| {
                        let at = (i * LOCAL + l) * FETCH_FLOATS;
                        group[at..at + FETCH_FLOATS].iter().copied()
                    })
                    .sum()
            })
            .collect();
        let widths = match Width::widest() {
            None => vec![],
            Some(Width::Bits512) => vec![Width::Bits128, Width::Bits256, Width::Bits512],
            Some(_) => vec![Width::Bits128, Width::Bits256],
        };
        for width in widths {
            let mut sums = vec![0.0f32; LOCAL];
            run_group(&group, width, &mut sums);
            // Small integers: every order of addition is exact.
            assert_eq!(sums, want, "{width:?}");
        }
    }

    #[test]
    fn the_measurement_covers_whole_groups_and_reports_both_widths() {
        let Some(mut pattern) = Pattern::new(3 * GROUP_FLOATS * 4 + 100, 2) else {
            assert!(!std::arch::is_x86_feature_detected!("avx"));
            return;
        };
        assert_eq!(pattern.pages.floats().len(), 3 * GROUP_FLOATS);
        for loads in [Loads::Narrow, Loads::Widest] {
            let gbs = pattern.read(loads, 1);
            assert!(gbs > 0.0 && gbs.is_finite(), "{loads:?}: {gbs}");
        }
        assert!([256, 512].contains(&pattern.wide_bits()));
    }
}
