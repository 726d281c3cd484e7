//! Exhaustive and random tests of the half conversions against independent references: the
//! `half` crate (half → float, float → half to nearest even), clift's exact integer-arithmetic
//! reference (every mode), and a binary search of the halves (doubles, every mode).
//!
//! Every float in every mode takes minutes (see `every_float_to_half`), so that test is
//! ignored by default: `cargo test --release -p clift-builtins --test half_exhaustive --
//! --ignored`. A strided sample runs always.

use std::cmp::Ordering;
use std::time::Instant;

use clift_builtins::convert::Rounding;
use clift_builtins::half::{
    clift_f32_to_half_rte, clift_f32_to_half_rtn, clift_f32_to_half_rtp, clift_f32_to_half_rtz,
    clift_f64_to_half_rte, clift_f64_to_half_rtn, clift_f64_to_half_rtp, clift_f64_to_half_rtz,
    clift_half_to_f32, reference_to_half,
};
use half::f16;

const MODES: [Rounding; 4] = [Rounding::Rte, Rounding::Rtz, Rounding::Rtp, Rounding::Rtn];

fn is_nan(h: u16) -> bool {
    h & 0x7c00 == 0x7c00 && h & 0x3ff != 0
}

fn f32_to_half(x: f32) -> [u16; 4] {
    [
        clift_f32_to_half_rte(x),
        clift_f32_to_half_rtz(x),
        clift_f32_to_half_rtp(x),
        clift_f32_to_half_rtn(x),
    ]
}

fn f64_to_half(x: f64) -> [u16; 4] {
    [
        clift_f64_to_half_rte(x),
        clift_f64_to_half_rtz(x),
        clift_f64_to_half_rtp(x),
        clift_f64_to_half_rtn(x),
    ]
}

#[test]
fn every_half_to_float_and_back() {
    for h in 0..=u16::MAX {
        let f = clift_half_to_f32(h);
        let expected = f16::from_bits(h).to_f32();
        if is_nan(h) {
            assert!(f.is_nan(), "{h:#06x}");
            // The payload survives, made quiet; so it does on the way back.
            assert_eq!(f.to_bits() >> 31, u32::from(h >> 15));
            assert_eq!(f.to_bits() >> 13 & 0x3ff, u32::from(h & 0x3ff | 0x200));
            let back = h | 0x200;
            assert_eq!(f32_to_half(f), [back; 4], "{h:#06x}");
            assert_eq!(f64_to_half(f as f64), [back; 4], "{h:#06x}");
        } else {
            assert_eq!(f.to_bits(), expected.to_bits(), "{h:#06x}");
            // Every half is exact in float and double: every mode returns it unchanged.
            assert_eq!(f32_to_half(f), [h; 4], "{h:#06x} via float");
            assert_eq!(f64_to_half(f as f64), [h; 4], "{h:#06x} via double");
            assert_eq!(
                MODES.map(|m| reference_to_half(f as f64, m)),
                [h; 4],
                "{h:#06x} by the reference"
            );
        }
    }
}

/// Checks the floats with bits `0, stride, 2·stride, ...` below 2^32 on every core: every
/// mode against the exact reference, and rte also against the `half` crate.
fn check_floats(stride: u64) -> u64 {
    let threads = std::thread::available_parallelism().map_or(4, |n| n.get()) as u64;
    let total = 1u64 << 32;
    let chunk = total.div_ceil(threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    let mut checked = 0u64;
                    let mut bits = (t * chunk).div_ceil(stride) * stride;
                    let end = ((t + 1) * chunk).min(total);
                    while bits < end {
                        let x = f32::from_bits(bits as u32);
                        let got = f32_to_half(x);
                        if x.is_nan() {
                            assert!(got.iter().all(|&h| is_nan(h)), "{bits:#x}");
                        } else {
                            let expected = MODES.map(|m| reference_to_half(x as f64, m));
                            assert_eq!(got, expected, "{bits:#x} = {x:e} (rte, rtz, rtp, rtn)");
                            assert_eq!(got[0], f16::from_f32(x).to_bits(), "{x:e}: half crate");
                        }
                        checked += 1;
                        bits += stride;
                    }
                    checked
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).sum()
    })
}

#[test]
fn a_sample_of_floats_to_half() {
    assert_eq!(check_floats(4099), (1u64 << 32).div_ceil(4099));
}

#[test]
#[ignore = "every float: minutes (run with --release --ignored)"]
fn every_float_to_half() {
    let start = Instant::now();
    assert_eq!(check_floats(1), 1 << 32);
    eprintln!(
        "all 2^32 floats x 4 modes: {:.1} s",
        start.elapsed().as_secs_f64()
    );
}

/// `x` (finite) rounded to half by searching the halves, whose values come from the `half`
/// crate: no rounding logic shared with anything under test.
fn search_half(x: f64, mode: Rounding) -> u16 {
    let m = x.abs();
    let neg = x.is_sign_negative();
    // Beyond 65504 the upper neighbour is infinity, which weighs 65536 in a tie.
    let value = |b: u16| {
        if b >= 0x7c00 {
            65536.0
        } else {
            f16::from_bits(b).to_f64()
        }
    };
    let (mut lo, mut hi) = (0u16, 0x7bff);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if value(mid) <= m {
            lo = mid
        } else {
            hi = mid - 1
        }
    }
    let down = lo;
    let up = down + 1;
    let magnitude = if value(down) == m {
        down
    } else {
        match mode {
            Rounding::Rtz => down,
            Rounding::Rtp if neg => down,
            Rounding::Rtp => up,
            Rounding::Rtn if neg => up,
            Rounding::Rtn => down,
            // Both differences are exact (Sterbenz, or tiny values far above double's
            // denormals).
            _ => match (m - value(down)).total_cmp(&(value(up) - m)) {
                Ordering::Less => down,
                Ordering::Greater => up,
                Ordering::Equal if down % 2 == 0 => down,
                Ordering::Equal => up,
            },
        }
    };
    magnitude | if neg { 0x8000 } else { 0 }
}

/// splitmix64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

#[test]
fn random_doubles_to_half_match_the_reference_and_a_search_of_the_halves() {
    let mut rng = Rng(7);
    for i in 0..400_000 {
        let r = rng.next();
        let x = match i % 4 {
            0 => f64::from_bits(r),
            // Doubles in half's range (2^-26 .. 2^17), any significand.
            1 => f64::from_bits((r & 0x800f_ffff_ffff_ffff) | (997 + (r >> 52) % 44) << 52),
            // A half plus a fraction of its ulp: ties, and near-ties with far sticky bits.
            2 => {
                let h = (r & 0x7bff) as u16;
                let base = f16::from_bits(h).to_f64();
                let ulp = f16::from_bits(h + 1).to_f64() - base;
                let nudge = [0.5, 0.25, 0.75, 0.5 + 2f64.powi(-40), 0.5 - 2f64.powi(-40)]
                    [(r >> 20) as usize % 5];
                let x = base + ulp * nudge;
                if r >> 63 == 0 { x } else { -x }
            }
            _ => f64::from_bits(r >> (r % 64)),
        };
        let got = f64_to_half(x);
        if x.is_nan() {
            assert!(got.iter().all(|&h| is_nan(h)), "{x:e}");
            continue;
        }
        let reference = MODES.map(|m| reference_to_half(x, m));
        assert_eq!(
            got, reference,
            "{x:e} (rte, rtz, rtp, rtn): extern vs reference"
        );
        if x.is_finite() {
            let search = MODES.map(|m| search_half(x, m));
            assert_eq!(
                reference, search,
                "{x:e} (rte, rtz, rtp, rtn): reference vs search"
            );
        }
    }
}
