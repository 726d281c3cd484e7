//! The four-lane forms `clift_v4_<name>_f32` of the one-argument functions give the scalar
//! function's result bit for bit on every one of the 2^32 `float` arguments. Ignored (about
//! 2^32 × 2 calls per function; minutes per function in release on a few cores):
//! `cargo test --release -p clift-builtins --test lanes_exhaustive -- --ignored --nocapture`,
//! `CLIFT_LANES_FUNCS=sin,cos` to check only some functions. The sampled version that runs
//! in CI is in `src/math/lanes.rs`.

#![cfg(target_arch = "x86_64")]
#![allow(
    improper_ctypes_definitions,
    reason = "__m128 is one xmm register in the System V calling convention"
)]

use clift_builtins::math::*;
use std::arch::x86_64::{__m128, _mm_castps_si128, _mm_cvtsi128_si32, _mm_set_ps};
use std::arch::x86_64::{_mm_shuffle_epi32, _mm_storeu_ps};

type V4 = extern "C" fn(__m128) -> __m128;
type Scalar = extern "C" fn(f32) -> f32;

/// The functions, by name.
const FUNCTIONS: [(&str, V4, Scalar); 8] = [
    ("exp", clift_v4_exp_f32, clift_exp_f32),
    ("exp2", clift_v4_exp2_f32, clift_exp2_f32),
    ("exp10", clift_v4_exp10_f32, clift_exp10_f32),
    ("log", clift_v4_log_f32, clift_log_f32),
    ("log2", clift_v4_log2_f32, clift_log2_f32),
    ("log10", clift_v4_log10_f32, clift_log10_f32),
    ("sin", clift_v4_sin_f32, clift_sin_f32),
    ("cos", clift_v4_cos_f32, clift_cos_f32),
];

/// The first bit pattern in `[start, end)` (a multiple of 4 apart) where `v4` and `scalar`
/// differ, lanes being 4 consecutive bit patterns, or `None`.
fn first_difference(v4: V4, scalar: Scalar, start: u64, end: u64) -> Option<u32> {
    let mut bits = start;
    while bits < end {
        let a = [0, 1, 2, 3].map(|k| f32::from_bits((bits + k) as u32));
        // SAFETY: SSE2 is part of the x86-64 baseline; `out` is 4 writable floats.
        let got = unsafe {
            let r = v4(_mm_set_ps(a[3], a[2], a[1], a[0]));
            let mut out = [0.0f32; 4];
            _mm_storeu_ps(out.as_mut_ptr(), r);
            out
        };
        for k in 0..4 {
            if got[k].to_bits() != scalar(a[k]).to_bits() {
                return Some(a[k].to_bits());
            }
        }
        bits += 4;
    }
    None
}

/// Every `float` argument, split over the available cores.
#[test]
#[ignore]
fn every_float_in_every_function() {
    let only: Option<Vec<String>> = std::env::var("CLIFT_LANES_FUNCS")
        .ok()
        .map(|s| s.split(',').map(str::to_string).collect());
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    let share = (1u64 << 32) / threads / 4 * 4;
    for (name, v4, scalar) in FUNCTIONS {
        if only.as_ref().is_some_and(|o| !o.iter().any(|n| n == name)) {
            continue;
        }
        let start = std::time::Instant::now();
        let differences: Vec<u32> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads)
                .map(|t| {
                    let end = if t + 1 == threads {
                        1 << 32
                    } else {
                        (t + 1) * share
                    };
                    scope.spawn(move || first_difference(v4, scalar, t * share, end))
                })
                .collect();
            workers
                .into_iter()
                .filter_map(|w| w.join().unwrap())
                .collect()
        });
        println!("{name}: {:.0?}", start.elapsed());
        assert!(
            differences.is_empty(),
            "{name}: the four-lane form differs at {:#x?}",
            differences
        );
    }
}

/// The harness itself: a four-lane function that is wrong in one lane for one argument is
/// caught, at that argument.
#[test]
fn a_difference_is_found() {
    extern "C" fn wrong(x: __m128) -> __m128 {
        // SAFETY: SSE2 is part of the x86-64 baseline.
        let lane2 = unsafe { _mm_cvtsi128_si32(_mm_shuffle_epi32::<2>(_mm_castps_si128(x))) };
        let v = clift_v4_exp_f32(x);
        if lane2 as u32 == 0x3f80_0002 {
            // SAFETY: as above.
            unsafe { _mm_set_ps(0.0, 0.0, 0.0, 0.0) }
        } else {
            v
        }
    }
    assert_eq!(
        first_difference(wrong, clift_exp_f32, 0x3f7f_fff0, 0x3f80_0010),
        Some(0x3f80_0000)
    );
    assert_eq!(
        first_difference(clift_v4_exp_f32, clift_exp_f32, 0x3f7f_fff0, 0x3f80_0010),
        None
    );
}

/// splitmix64's output function of `i`: a fixed pseudo-random sequence.
fn mix(i: u64) -> u64 {
    let mut z = i.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The pair `i` of [`pow_on_dense_pairs`]: random bit patterns in three lanes of four, and
/// in every fourth a random `x` with an integer or half-integer `y` below 2^10 (the parity
/// rules of negative `x`, rare among random patterns).
fn pow_pair(i: u64) -> (f32, f32) {
    let r = mix(i);
    let (x, y) = (r as u32, (r >> 32) as u32);
    if i % 4 == 3 {
        (f32::from_bits(x), (y as i32 >> 21) as f32 * 0.5)
    } else {
        (f32::from_bits(x), f32::from_bits(y))
    }
}

/// `clift_v4_pow_f32` gives `clift_pow_f32`'s bits on 2^`CLIFT_POW_PAIRS_LOG2` (default 32)
/// pairs of [`pow_pair`], split over the available cores. Ignored (minutes in release):
/// `cargo test --release -p clift-builtins --test lanes_exhaustive -- --ignored pow_on_dense`.
#[test]
#[ignore]
fn pow_on_dense_pairs() {
    let log2: u32 = std::env::var("CLIFT_POW_PAIRS_LOG2").map_or(32, |v| v.parse().unwrap());
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    let total = 1u64 << log2;
    let start = std::time::Instant::now();
    let differences: Vec<(f32, f32)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    let mut i = t * 4;
                    while i < total {
                        let p = [0, 1, 2, 3].map(|k| pow_pair(i + k));
                        // SAFETY: SSE2 is part of the x86-64 baseline; `out` is 4 floats.
                        let got = unsafe {
                            let x = _mm_set_ps(p[3].0, p[2].0, p[1].0, p[0].0);
                            let y = _mm_set_ps(p[3].1, p[2].1, p[1].1, p[0].1);
                            let mut out = [0.0f32; 4];
                            _mm_storeu_ps(out.as_mut_ptr(), clift_v4_pow_f32(x, y));
                            out
                        };
                        for k in 0..4 {
                            if got[k].to_bits() != clift_pow_f32(p[k].0, p[k].1).to_bits() {
                                return Some(p[k]);
                            }
                        }
                        i += 4 * threads;
                    }
                    None
                })
            })
            .collect();
        workers
            .into_iter()
            .filter_map(|w| w.join().unwrap())
            .collect()
    });
    println!("pow: 2^{log2} pairs in {:.0?}", start.elapsed());
    assert!(differences.is_empty(), "pow differs at {differences:?}");
}
