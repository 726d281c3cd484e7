//! The hot `float` math functions on four lanes at once, for the work-item vectorizer
//! (`compiler/src/codegen/simd/builtins.rs`): `clift_v4_<name>_f32` takes and returns an
//! `__m128` (one `xmm` register in the System V calling convention, as Cranelift passes
//! an `f32x4`), lane k being work-item k.
//!
//! Each is the scalar function's kernel run on the four lanes at once in SSE2 registers
//! ([`super::kernels4`]): the same operations in the same order per lane, so a kernel's
//! results do not depend on whether it was vectorized (`CLIFT_VECTORIZE=0`), and the accuracy
//! is the scalar functions' (`tests/math_accuracy.rs`). Lanes that need a rare path (NaN and
//! infinite `sin`/`cos` arguments, subnormal or non-positive `log` arguments) are recomputed
//! by the scalar function; `pow`'s special cases and `exp`'s range ends are lane selects.
//! Inactive lanes of a masked step run too, on whatever their register holds: every
//! function here is pure and cannot fault.

// `__m128` has no `repr(C)`, but the System V ABI defines it: one `xmm` register, which is
// how Cranelift passes and returns an `f32x4`.
#![allow(
    improper_ctypes_definitions,
    reason = "__m128 is one xmm register in the System V calling convention"
)]

use std::arch::x86_64::__m128;
use std::f64::consts::{LN_2, LOG2_10, LOG2_E, LOG10_2};

use super::f64x4::F64x4;
use super::kernels::Real;
use super::kernels4;

/// The register of lanes `a`.
#[inline(always)]
pub(super) fn register(a: [f32; 4]) -> __m128 {
    // SAFETY: as in `lanes`, the other way round.
    unsafe { std::mem::transmute::<[f32; 4], __m128>(a) }
}

/// `exp` of each lane (`clift_exp_f32`).
pub extern "C" fn clift_v4_exp_f32(x: __m128) -> __m128 {
    kernels4::exp2_to_f32(F64x4::from_f32(x) * F64x4::splat(LOG2_E))
}

/// `exp2` of each lane (`clift_exp2_f32`).
pub extern "C" fn clift_v4_exp2_f32(x: __m128) -> __m128 {
    kernels4::exp2_to_f32(F64x4::from_f32(x))
}

/// `exp10` of each lane (`clift_exp10_f32`).
pub extern "C" fn clift_v4_exp10_f32(x: __m128) -> __m128 {
    kernels4::exp2_to_f32(F64x4::from_f32(x) * F64x4::splat(LOG2_10))
}

/// `log` of each lane (`clift_log_f32`).
pub extern "C" fn clift_v4_log_f32(x: __m128) -> __m128 {
    kernels4::log_base_f32(x, LN_2)
}

/// `log2` of each lane (`clift_log2_f32`).
pub extern "C" fn clift_v4_log2_f32(x: __m128) -> __m128 {
    kernels4::log_base_f32(x, 1.0)
}

/// `log10` of each lane (`clift_log10_f32`).
pub extern "C" fn clift_v4_log10_f32(x: __m128) -> __m128 {
    kernels4::log_base_f32(x, LOG10_2)
}

/// `sin` of each lane (`clift_sin_f32`; huge lanes reduced one by one).
pub extern "C" fn clift_v4_sin_f32(x: __m128) -> __m128 {
    kernels4::sin_f32(x)
}

/// `cos` of each lane (`clift_cos_f32`; huge lanes reduced one by one).
pub extern "C" fn clift_v4_cos_f32(x: __m128) -> __m128 {
    kernels4::cos_f32(x)
}

/// `pow` of each pair of lanes (`clift_pow_f32`: its special cases per lane).
pub extern "C" fn clift_v4_pow_f32(x: __m128, y: __m128) -> __m128 {
    kernels4::pow_f32(x, y)
}

/// The functions above by symbol, for the JIT's symbol table.
pub(super) fn symbols() -> Vec<(&'static str, *const u8)> {
    registry! {
        clift_v4_exp_f32 clift_v4_exp2_f32 clift_v4_exp10_f32 clift_v4_log_f32
        clift_v4_log2_f32 clift_v4_log10_f32 clift_v4_sin_f32 clift_v4_cos_f32
        clift_v4_pow_f32
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::kernels4::f32_lanes as lanes;
    use super::*;

    /// The `i`th of a fixed sequence of pseudo-random 64-bit numbers (splitmix64's output
    /// function of `i`): the same arguments on every run.
    pub(in super::super) fn random(i: u64) -> u64 {
        let mut z = i.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Every class of argument the kernels treat apart, with its neighbours: zeros,
    /// subnormals, the smallest normals, NaNs (quiet, signaling, with payloads), infinities,
    /// the largest finite numbers, `sin`'s 2^-12, pi/4 and 2^28·pi/2, 1.0, and the `exp`
    /// family's 2^±126, 2^128 and 2^-151 (for each base), each ±4 ulps, both signs.
    fn special_classes() -> Vec<f32> {
        let mut centers: Vec<u32> = vec![
            0,
            1,
            0x007f_ffff,
            0x0080_0000,
            0x3980_0000,
            0x3f49_0fdb,
            0x3f80_0000,
            0x4dc9_0fdb,
            0x7f7f_ffff,
        ];
        for base in [1.0, LOG2_E, LOG2_10] {
            for limit in [126.0, 128.0, 150.0, 151.0] {
                centers.push(((limit / base) as f32).to_bits());
            }
        }
        let mut v = Vec::new();
        for c in centers {
            for d in 0..=8u32 {
                let bits = (c + d).saturating_sub(4).min(0x7f7f_ffff);
                v.extend([f32::from_bits(bits), -f32::from_bits(bits)]);
            }
        }
        for bits in [
            0x7f80_0000,
            0x7f80_0001,
            0x7fc0_0000,
            0x7fc1_2345,
            0x7fff_ffff,
        ] {
            v.extend([f32::from_bits(bits), f32::from_bits(bits | 0x8000_0000)]);
        }
        v
    }

    /// The special classes, then every 2,039th bit pattern (a prime stride: 2.1 million
    /// arguments, every exponent with varied mantissas), then the special classes again
    /// shuffled among random arguments, so that every lane meets every class next to lanes
    /// of other classes.
    fn arguments() -> Vec<f32> {
        let special = special_classes();
        let mut v = special.clone();
        v.extend((0..=u32::MAX / 2_039).map(|i| f32::from_bits(i * 2_039)));
        for (i, &s) in special.iter().enumerate() {
            for j in 0..3 {
                v.push(s);
                v.push(f32::from_bits(random((3 * i + j) as u64) as u32));
            }
        }
        v
    }

    /// The four-lane function `v4` agrees with `scalar` bit for bit on every argument, in
    /// every lane (consecutive windows of four rotate each argument through the lanes).
    fn same1(v4: extern "C" fn(__m128) -> __m128, scalar: extern "C" fn(f32) -> f32) {
        let args = arguments();
        let (head, tail) = (
            special_classes().len(),
            args.len() - 6 * special_classes().len(),
        );
        for (i, chunk) in args.windows(4).enumerate() {
            // Every window near the special classes; every 3rd in the strided sample.
            if (head..tail).contains(&i) && i % 3 != 0 {
                continue;
            }
            let a = [chunk[0], chunk[1], chunk[2], chunk[3]];
            let got = lanes(v4(register(a)));
            for k in 0..4 {
                assert_eq!(
                    got[k].to_bits(),
                    scalar(a[k]).to_bits(),
                    "argument {i}+{k}: {:e} ({:#x})",
                    a[k],
                    a[k].to_bits()
                );
            }
        }
    }

    #[test]
    fn exp_lanes_are_the_scalar_functions() {
        same1(clift_v4_exp_f32, super::super::clift_exp_f32);
        same1(clift_v4_exp2_f32, super::super::clift_exp2_f32);
        same1(clift_v4_exp10_f32, super::super::clift_exp10_f32);
    }

    #[test]
    fn log_lanes_are_the_scalar_functions() {
        same1(clift_v4_log_f32, super::super::clift_log_f32);
        same1(clift_v4_log2_f32, super::super::clift_log2_f32);
        same1(clift_v4_log10_f32, super::super::clift_log10_f32);
    }

    #[test]
    fn sin_and_cos_lanes_are_the_scalar_functions() {
        same1(clift_v4_sin_f32, super::super::clift_sin_f32);
        same1(clift_v4_cos_f32, super::super::clift_cos_f32);
    }

    /// `pow` of four pairs equals the scalar `pow` of each pair.
    fn same_pow(x: [f32; 4], y: [f32; 4]) {
        let got = lanes(clift_v4_pow_f32(register(x), register(y)));
        for k in 0..4 {
            let want = super::super::clift_pow_f32(x[k], y[k]);
            assert_eq!(
                got[k].to_bits(),
                want.to_bits(),
                "pow({:e}, {:e}) ({:#x}, {:#x}) in lane {k}",
                x[k],
                y[k],
                x[k].to_bits(),
                y[k].to_bits()
            );
        }
    }

    #[test]
    fn pow_lanes_are_the_scalar_function_on_special_pairs() {
        let mut ys = special_classes();
        ys.extend([
            2.0,
            3.0,
            -3.0,
            0.5,
            -0.5,
            1e10,
            -1e-10,
            0.3,
            1.0 / 3.0,
            255.0,
            -149.0,
        ]);
        let xs = special_classes();
        // Every special x against every special y, the pairs rotated through the lanes.
        for (i, &x0) in xs.iter().enumerate() {
            for (j, &y0) in ys.iter().enumerate() {
                let x = [x0, xs[(i + 1) % xs.len()], xs[(i + 7) % xs.len()], 2.0];
                let y = [y0, ys[(j + 3) % ys.len()], 1.5, ys[(j + 11) % ys.len()]];
                same_pow(x, y);
                same_pow([x[3], x[2], x[1], x[0]], [y[3], y[2], y[1], y[0]]);
            }
        }
    }

    /// Property: for random pairs of every kind, four-lane `pow` equals scalar `pow` per
    /// lane. The kinds: any bit patterns; `x` near 1 with large `y` (results near the
    /// `float` range's ends); small integer and half-integer `y` of negative `x` (the
    /// parity rules); and positive `x` with moderate `y` (the fast path).
    #[test]
    fn pow_lanes_are_the_scalar_function_on_random_pairs() {
        for i in 0..150_000u64 {
            let kinds = random(5 * i);
            let pair = |lane: u64| -> (f32, f32) {
                let r = random(5 * i + 1 + lane);
                let (lo, hi) = (r as u32, (r >> 32) as u32);
                match (kinds >> (2 * lane)) % 4 {
                    0 => (f32::from_bits(lo), f32::from_bits(hi)),
                    1 => (1.0 + (lo as i32 as f32) * 2e-12, (hi as i32 as f32) * 1e-2),
                    2 => (
                        -f32::from_bits(lo & 0x4fff_ffff),
                        ((hi % 64) as f32 - 32.0) * 0.5,
                    ),
                    _ => (
                        f32::from_bits(0x0080_0000 + lo % 0x7f00_0000),
                        f32::from_bits(hi & 0xc2ff_ffff),
                    ),
                }
            };
            let p = [0, 1, 2, 3].map(pair);
            same_pow(p.map(|q| q.0), p.map(|q| q.1));
        }
    }

    #[test]
    fn known_values_in_every_lane() {
        let e = lanes(clift_v4_exp_f32(register([
            0.0,
            1.0,
            f32::NEG_INFINITY,
            200.0,
        ])));
        assert_eq!(
            e.map(f32::to_bits),
            [
                1.0f32.to_bits(),
                std::f32::consts::E.to_bits(),
                0,
                f32::INFINITY.to_bits()
            ]
        );
        let l = lanes(clift_v4_log2_f32(register([8.0, 0.0, -1.0, 1.0])));
        assert_eq!(l[0], 3.0);
        assert_eq!(l[1], f32::NEG_INFINITY);
        assert!(l[2].is_nan());
        assert_eq!(l[3].to_bits(), 0);
        let s = lanes(clift_v4_sin_f32(register([-0.0, 0.0, 1e30, f32::INFINITY])));
        assert_eq!(s[0].to_bits(), (-0.0f32).to_bits());
        assert_eq!(s[1].to_bits(), 0);
        assert_eq!(s[2], libm::sin(1e30f32 as f64) as f32);
        assert!(s[3].is_nan());
        // sin(pi/2) and cos(pi) (the float nearest each), cos(0), sin of a subnormal.
        let q = lanes(clift_v4_sin_f32(register([
            std::f32::consts::FRAC_PI_2,
            -std::f32::consts::FRAC_PI_2,
            std::f32::consts::PI,
            f32::from_bits(1),
        ])));
        assert_eq!(q, [1.0, -1.0, -8.742278e-8, f32::from_bits(1)]);
        let c = lanes(clift_v4_cos_f32(register([
            0.0,
            std::f32::consts::PI,
            1e30,
            f32::NAN,
        ])));
        assert_eq!(c[..3], [1.0, -1.0, libm::cos(1e30f32 as f64) as f32]);
        assert!(c[3].is_nan());
        let p = lanes(clift_v4_pow_f32(
            register([2.0, -2.0, 0.0, -8.0]),
            register([10.0, 3.0, -1.0, 1.0 / 3.0]),
        ));
        assert_eq!(p[0], 1024.0);
        assert_eq!(p[1], -8.0);
        assert_eq!(p[2], f32::INFINITY);
        assert!(p[3].is_nan());
        // Each special case of `pow`, four at a time, with its exact bits.
        let cases: [(f32, f32, u32); 24] = [
            (f32::NEG_INFINITY, 0.5, 0x7f80_0000),
            (f32::NEG_INFINITY, -3.0, 0x8000_0000),
            (f32::NEG_INFINITY, 3.0, 0xff80_0000),
            (-0.0, -3.0, 0xff80_0000),
            (-0.0, -2.0, 0x7f80_0000),
            (-0.0, 3.0, 0x8000_0000),
            (0.0, f32::NEG_INFINITY, 0x7f80_0000),
            (-1.0, f32::INFINITY, 0x3f80_0000),
            (0.5, f32::NEG_INFINITY, 0x7f80_0000),
            (2.0, f32::NEG_INFINITY, 0),
            (-2.0, f32::INFINITY, 0x7f80_0000),
            (f32::NAN, 0.0, 0x3f80_0000),
            (1.0, f32::NAN, 0x3f80_0000),
            (f32::from_bits(0x7f80_0001), 2.0, 0x7fc0_0001),
            (2.0, f32::from_bits(0xff80_0002), 0xffc0_0002),
            (-8.0, 1.0 / 3.0, 0x7fc0_0000),
            (-2.0, 201.0, 0xff80_0000),
            (-2.0, -201.0, 0x8000_0000),
            (-2.0, 16_777_216.0, 0x7f80_0000),
            (-2.0, -2_147_483_648.0, 0),
            (-1.5, 3.0, 0xc058_0000),
            (f32::from_bits(1), 0.5, 0x1a35_04f3),
            (f32::from_bits(0x8000_0001), -1.0, 0xff80_0000),
            (-f32::from_bits(0x0040_0000), 1.0, 0x8040_0000),
        ];
        for four in cases.chunks(4) {
            let x = [0, 1, 2, 3].map(|k| four[k].0);
            let y = [0, 1, 2, 3].map(|k| four[k].1);
            let got = lanes(clift_v4_pow_f32(register(x), register(y)));
            for k in 0..4 {
                assert_eq!(got[k].to_bits(), four[k].2, "pow({:e}, {:e})", x[k], y[k]);
                let scalar = super::super::clift_pow_f32(x[k], y[k]);
                assert_eq!(
                    scalar.to_bits(),
                    four[k].2,
                    "scalar pow({:e}, {:e})",
                    x[k],
                    y[k]
                );
            }
        }
    }
}
