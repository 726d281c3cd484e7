//! STREAM's four loops over `f32` arrays, as a STREAM build compiles them: 256-bit vector
//! loads and stores, two vectors (one cache line of each array) per iteration, and a variant
//! with non-temporal stores (`vmovntps`, which write around the caches and so skip the
//! read-for-ownership of the destination) — the ceiling of a loop that streams, not of
//! one a kernel can write, so it is reported apart.
//!
//! The bench is built for baseline x86-64 (SSE2): the vector loops are compiled for AVX
//! with `#[target_feature]` and chosen at run time, as a multiversioned STREAM would be;
//! elsewhere, or without AVX, a plain loop that the compiler vectorizes for SSE2 runs.

/// One of STREAM's loops, written `d = f(x, y)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loop {
    /// `d[i] = x[i]`
    Copy,
    /// `d[i] = s * x[i]`
    Scale,
    /// `d[i] = x[i] + y[i]`
    Add,
    /// `d[i] = x[i] + s * y[i]`
    Triad,
}

impl Loop {
    /// In STREAM's order.
    pub const ALL: [Loop; 4] = [Loop::Copy, Loop::Scale, Loop::Add, Loop::Triad];

    /// The arrays a pass moves, as STREAM counts bytes: each array read or written once (a
    /// store's read-for-ownership is not counted).
    pub fn arrays(self) -> usize {
        match self {
            Loop::Copy | Loop::Scale => 2,
            Loop::Add | Loop::Triad => 3,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Loop::Copy => "copy",
            Loop::Scale => "scale",
            Loop::Add => "add",
            Loop::Triad => "triad",
        }
    }

    /// The loop's value for one element.
    fn scalar(self, x: f32, y: f32, s: f32) -> f32 {
        match self {
            Loop::Copy => x,
            Loop::Scale => s * x,
            Loop::Add => x + y,
            Loop::Triad => x + s * y,
        }
    }
}

/// How a loop stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stores {
    /// Ordinary stores, as kernels make.
    Normal,
    /// Non-temporal stores.
    NonTemporal,
}

/// Runs `l` over `d` (`y` is read by add and triad only; it may be empty for the others).
pub fn run(l: Loop, stores: Stores, d: &mut [f32], x: &[f32], y: &[f32], s: f32) {
    assert_eq!(x.len(), d.len(), "source length");
    let uses_y = matches!(l, Loop::Add | Loop::Triad);
    assert!(!uses_y || y.len() == d.len(), "second source length");
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx") {
        // SAFETY: AVX was detected on this CPU.
        unsafe { avx::run(l, stores, d, x, y, s) };
        return;
    }
    let _ = stores;
    plain(l, d, x, y, s);
}

/// The sum of `x` (a read of one array, clpeak's bandwidth test's access), in 32 partial
/// sums so that the adds do not wait on each other.
pub fn sum(x: &[f32]) -> f32 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx") {
        // SAFETY: AVX was detected on this CPU.
        return unsafe { avx::sum(x) };
    }
    plain_sum(x)
}

/// `sum` in 8 partial sums, which the compiler vectorizes.
fn plain_sum(x: &[f32]) -> f32 {
    let mut acc = [0.0f32; 8];
    let mut chunks = x.chunks_exact(8);
    for c in &mut chunks {
        for (a, x) in acc.iter_mut().zip(c) {
            *a += x;
        }
    }
    acc.iter().sum::<f32>() + chunks.remainder().iter().sum::<f32>()
}

/// The loop the compiler vectorizes for the build's target (the vector loop's head and
/// tail, and CPUs without AVX).
fn plain(l: Loop, d: &mut [f32], x: &[f32], y: &[f32], s: f32) {
    match l {
        Loop::Copy => d.copy_from_slice(x),
        Loop::Scale => d.iter_mut().zip(x).for_each(|(d, x)| *d = s * x),
        Loop::Add | Loop::Triad => {
            for ((d, &x), &y) in d.iter_mut().zip(x).zip(y) {
                *d = l.scalar(x, y, s);
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx {
    use std::arch::x86_64::*;

    use super::{Loop, Stores, plain, plain_sum};

    /// Floats per iteration: two 256-bit vectors, 64 bytes of each array.
    const STEP: usize = 16;

    /// `run` for AVX: the destination's unaligned head and the tail shorter than a step run
    /// as the plain loop; the rest as vectors, with stores aligned to 32 bytes
    /// (non-temporal stores require it).
    #[target_feature(enable = "avx")]
    pub fn run(l: Loop, stores: Stores, d: &mut [f32], x: &[f32], y: &[f32], s: f32) {
        let n = d.len();
        let head = d.as_ptr().align_offset(32).min(n);
        let body = (n - head) / STEP * STEP;
        let y_of = |r: std::ops::Range<usize>| y.get(r).unwrap_or_default();
        plain(l, &mut d[..head], &x[..head], y_of(0..head), s);
        let end = head + body;
        let (dv, xv, yv) = (&mut d[head..end], &x[head..end], y_of(head..end));
        let sv = _mm256_set1_ps(s);
        match (l, stores) {
            (Loop::Copy, Stores::Normal) => lanes::<false>(dv, xv, yv, |x, _| x),
            (Loop::Copy, Stores::NonTemporal) => lanes::<true>(dv, xv, yv, |x, _| x),
            (Loop::Scale, Stores::Normal) => {
                lanes::<false>(dv, xv, yv, |x, _| _mm256_mul_ps(sv, x))
            }
            (Loop::Scale, Stores::NonTemporal) => {
                lanes::<true>(dv, xv, yv, |x, _| _mm256_mul_ps(sv, x))
            }
            (Loop::Add, Stores::Normal) => lanes::<false>(dv, xv, yv, |x, y| _mm256_add_ps(x, y)),
            (Loop::Add, Stores::NonTemporal) => {
                lanes::<true>(dv, xv, yv, |x, y| _mm256_add_ps(x, y))
            }
            (Loop::Triad, Stores::Normal) => {
                lanes::<false>(dv, xv, yv, |x, y| _mm256_add_ps(x, _mm256_mul_ps(sv, y)))
            }
            (Loop::Triad, Stores::NonTemporal) => {
                lanes::<true>(dv, xv, yv, |x, y| _mm256_add_ps(x, _mm256_mul_ps(sv, y)))
            }
        }
        plain(l, &mut d[end..], &x[end..], y_of(end..n), s);
    }

    /// `sum` in four 256-bit accumulators, one cache line of `x` per iteration and a
    /// second one's adds in flight.
    #[target_feature(enable = "avx")]
    pub fn sum(x: &[f32]) -> f32 {
        const STEP: usize = 32;
        let body = x.len() / STEP * STEP;
        let mut acc = [_mm256_setzero_ps(); 4];
        let xp = x.as_ptr();
        for i in (0..body).step_by(STEP) {
            for (k, acc) in acc.iter_mut().enumerate() {
                // SAFETY: `i + STEP <= x.len()`.
                *acc = _mm256_add_ps(*acc, unsafe { _mm256_loadu_ps(xp.add(i + 8 * k)) });
            }
        }
        let total = _mm256_add_ps(_mm256_add_ps(acc[0], acc[1]), _mm256_add_ps(acc[2], acc[3]));
        let mut lanes = [0.0f32; 8];
        // SAFETY: `lanes` holds 8 floats.
        unsafe { _mm256_storeu_ps(lanes.as_mut_ptr(), total) };
        lanes.iter().sum::<f32>() + plain_sum(&x[body..])
    }

    /// `d[i..i + 8] = f(x[i..i + 8], y[i..i + 8])`, two vectors per iteration; `y` empty
    /// where `f` does not read it (then `x` stands in for it, and its load is dead code).
    /// `d` is 32-byte aligned and a whole number of steps long.
    #[inline(always)]
    fn lanes<const NON_TEMPORAL: bool>(
        d: &mut [f32],
        x: &[f32],
        y: &[f32],
        f: impl Fn(__m256, __m256) -> __m256,
    ) {
        debug_assert!(
            d.len().is_multiple_of(STEP) && (d.is_empty() || d.as_ptr().addr().is_multiple_of(32))
        );
        let y = if y.is_empty() { x } else { y };
        let (dp, xp, yp) = (d.as_mut_ptr(), x.as_ptr(), y.as_ptr());
        for i in (0..d.len()).step_by(STEP) {
            // SAFETY: `i + STEP <= d.len() == x.len() == y.len()`, and `dp + i` is 32-byte
            // aligned (`d` is, and STEP floats are 64 bytes).
            unsafe {
                let v0 = f(_mm256_loadu_ps(xp.add(i)), _mm256_loadu_ps(yp.add(i)));
                let v1 = f(
                    _mm256_loadu_ps(xp.add(i + 8)),
                    _mm256_loadu_ps(yp.add(i + 8)),
                );
                if NON_TEMPORAL {
                    _mm256_stream_ps(dp.add(i), v0);
                    _mm256_stream_ps(dp.add(i + 8), v1);
                } else {
                    _mm256_store_ps(dp.add(i), v0);
                    _mm256_store_ps(dp.add(i + 8), v1);
                }
            }
        }
        if NON_TEMPORAL {
            // Non-temporal stores are weakly ordered: make them visible before the caller
            // reports the pass done.
            // SAFETY: SSE is part of every x86-64 CPU.
            unsafe { _mm_sfence() };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every loop, both store kinds, at a misaligned start and with a tail: each element as
    /// the loop's definition gives it.
    #[test]
    fn every_loop_computes_its_definition_at_any_alignment() {
        let n = 100;
        let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let y: Vec<f32> = (0..n).map(|i| (2 * i + 1) as f32).collect();
        for l in Loop::ALL {
            for stores in [Stores::Normal, Stores::NonTemporal] {
                for start in [0, 1, 3] {
                    let mut d = vec![-1.0f32; n];
                    run(l, stores, &mut d[start..], &x[start..], &y[start..], 3.0);
                    for (i, &v) in d.iter().enumerate() {
                        let want = if i < start {
                            -1.0
                        } else {
                            let (x, y) = (i as f32, (2 * i + 1) as f32);
                            match l {
                                Loop::Copy => x,
                                Loop::Scale => 3.0 * x,
                                Loop::Add => x + y,
                                Loop::Triad => x + 3.0 * y,
                            }
                        };
                        assert_eq!(v, want, "{l:?} {stores:?} start {start} element {i}");
                    }
                }
            }
        }
    }

    #[test]
    fn the_sum_adds_every_element() {
        // 100 elements: three vector steps and a tail of 4 (exact in any order: integers).
        let xs: Vec<f32> = (1..=100).map(|i| i as f32).collect();
        assert_eq!(sum(&xs), 5050.0);
        assert_eq!(plain_sum(&xs[..21]), 231.0);
    }

    #[test]
    fn copy_and_scale_read_no_second_array() {
        let x = [1.0f32, 2.0, 4.0];
        let mut d = [0.0f32; 3];
        run(Loop::Scale, Stores::Normal, &mut d, &x, &[], 0.5);
        assert_eq!(d, [0.5, 1.0, 2.0]);
    }

    #[test]
    fn stream_counts_two_arrays_for_copy_and_scale_and_three_for_add_and_triad() {
        let arrays: Vec<usize> = Loop::ALL.iter().map(|l| l.arrays()).collect();
        assert_eq!(arrays, [2, 2, 3, 3]);
    }
}
