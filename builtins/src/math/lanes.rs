//! The hot `float` math functions on four lanes at once, for the work-item vectorizer
//! (`compiler/src/codegen/simd/builtins.rs`): `clift_v4_<name>_f32` takes and returns an
//! `__m128` (one `xmm` register in the System V calling convention, as Cranelift passes
//! an `f32x4`), lane k being work-item k.
//!
//! Each is the scalar function's kernel ([`super::kernels`]) applied lane by lane, inlined:
//! one implementation, so a kernel's results do not depend on whether it was vectorized
//! (`CLIFT_VECTORIZE=0`), and the accuracy is the scalar functions' (`tests/math_accuracy.rs`).
//! What the vector form saves is the vectorized code's work around four scalar calls: one
//! call instead of four, and the `xmm` registers (all caller-saved) spilled and reloaded
//! once instead of four times. Lanes that need the slow path (huge `sin` arguments, special
//! `pow` arguments, ...) take it alone, through the same branches as the scalar function.
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

use super::kernels;

/// The four lanes of `x`.
#[inline(always)]
fn lanes(x: __m128) -> [f32; 4] {
    // SAFETY: `__m128` is 16 bytes of four `f32` lanes, lane 0 first; every bit pattern is a
    // valid `[f32; 4]`.
    unsafe { std::mem::transmute::<__m128, [f32; 4]>(x) }
}

/// The register of lanes `a`.
#[inline(always)]
fn register(a: [f32; 4]) -> __m128 {
    // SAFETY: as in `lanes`, the other way round.
    unsafe { std::mem::transmute::<[f32; 4], __m128>(a) }
}

/// `f` of each lane of `x`.
#[inline(always)]
fn each(x: __m128, f: impl Fn(f32) -> f32) -> __m128 {
    register(lanes(x).map(f))
}

/// `f` of each lane of `x` and the same lane of `y`.
#[inline(always)]
fn each2(x: __m128, y: __m128, f: impl Fn(f32, f32) -> f32) -> __m128 {
    let (a, b) = (lanes(x), lanes(y));
    register([0, 1, 2, 3].map(|k| f(a[k], b[k])))
}

/// `exp` of each lane (`clift_exp_f32`'s kernel).
pub extern "C" fn clift_v4_exp_f32(x: __m128) -> __m128 {
    each(x, |v| kernels::exp_base_f32(v, LOG2_E))
}

/// `exp2` of each lane (`clift_exp2_f32`'s kernel).
pub extern "C" fn clift_v4_exp2_f32(x: __m128) -> __m128 {
    each(x, |v| kernels::exp2_to_f32(v as f64))
}

/// `exp10` of each lane (`clift_exp10_f32`'s kernel).
pub extern "C" fn clift_v4_exp10_f32(x: __m128) -> __m128 {
    each(x, |v| kernels::exp_base_f32(v, LOG2_10))
}

/// `log` of each lane (`clift_log_f32`'s kernel).
pub extern "C" fn clift_v4_log_f32(x: __m128) -> __m128 {
    each(x, |v| kernels::log_base_f32(v, LN_2))
}

/// `log2` of each lane (`clift_log2_f32`'s kernel).
pub extern "C" fn clift_v4_log2_f32(x: __m128) -> __m128 {
    each(x, |v| kernels::log_base_f32(v, 1.0))
}

/// `log10` of each lane (`clift_log10_f32`'s kernel).
pub extern "C" fn clift_v4_log10_f32(x: __m128) -> __m128 {
    each(x, |v| kernels::log_base_f32(v, LOG10_2))
}

/// `sin` of each lane (`clift_sin_f32`'s kernel; libm's reduction for huge lanes).
pub extern "C" fn clift_v4_sin_f32(x: __m128) -> __m128 {
    each(x, kernels::sin_f32)
}

/// `cos` of each lane (`clift_cos_f32`'s kernel; libm's reduction for huge lanes).
pub extern "C" fn clift_v4_cos_f32(x: __m128) -> __m128 {
    each(x, kernels::cos_f32)
}

/// `pow` of each pair of lanes (`clift_pow_f32`: its special cases per lane).
pub extern "C" fn clift_v4_pow_f32(x: __m128, y: __m128) -> __m128 {
    each2(x, y, |a, b| super::clift_pow_f32(a, b))
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
mod tests {
    use super::*;

    /// Arguments of every kind: special values, zeros, denormals, the ends of the fast
    /// paths, huge values, and a spread over the whole range of bit patterns.
    fn arguments() -> Vec<f32> {
        let mut v = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            -f32::NAN,
            f32::MIN_POSITIVE,
            -f32::MIN_POSITIVE,
            f32::from_bits(1),
            f32::from_bits(0x8000_0001),
            f32::from_bits(0x007f_ffff),
            f32::MAX,
            f32::MIN,
            88.72,
            -103.97,
            126.0,
            -150.0,
            std::f32::consts::FRAC_PI_4,
            f32::from_bits(0x3f49_0fdb),
            f32::from_bits(0x4dc9_0fda),
            f32::from_bits(0x4dc9_0fdb),
            1e30,
            -1e30,
            2.0,
            3.0,
            -3.0,
            0.3,
        ];
        // Every 65,521st bit pattern (a prime stride: every exponent, varied mantissas).
        v.extend((0..=u32::MAX / 65_521).map(|i| f32::from_bits(i * 65_521)));
        v
    }

    /// The four-lane function `v4` agrees with `scalar` bit for bit on every argument (in
    /// every lane: the arguments are rotated through the lanes).
    fn same1(v4: extern "C" fn(__m128) -> __m128, scalar: extern "C" fn(f32) -> f32) {
        let args = arguments();
        for (i, chunk) in args.windows(4).enumerate().step_by(3) {
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
    fn exp_and_log_lanes_are_the_scalar_functions() {
        same1(clift_v4_exp_f32, super::super::clift_exp_f32);
        same1(clift_v4_exp2_f32, super::super::clift_exp2_f32);
        same1(clift_v4_exp10_f32, super::super::clift_exp10_f32);
        same1(clift_v4_log_f32, super::super::clift_log_f32);
        same1(clift_v4_log2_f32, super::super::clift_log2_f32);
        same1(clift_v4_log10_f32, super::super::clift_log10_f32);
    }

    #[test]
    fn sin_and_cos_lanes_are_the_scalar_functions() {
        same1(clift_v4_sin_f32, super::super::clift_sin_f32);
        same1(clift_v4_cos_f32, super::super::clift_cos_f32);
    }

    #[test]
    fn pow_lanes_are_the_scalar_function_special_cases_included() {
        let args = arguments();
        let ys = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            2.0,
            3.0,
            -3.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            1e10,
            -1e-10,
            0.3,
        ];
        for (i, chunk) in args.chunks_exact(4).enumerate().step_by(7) {
            let x = [chunk[0], chunk[1], chunk[2], chunk[3]];
            for j in 0..ys.len() {
                let y = [0, 1, 2, 3].map(|k| ys[(j + k) % ys.len()]);
                let got = lanes(clift_v4_pow_f32(register(x), register(y)));
                for k in 0..4 {
                    let want = super::super::clift_pow_f32(x[k], y[k]);
                    assert_eq!(got[k].to_bits(), want.to_bits(), "pow #{i}/{j}/{k}");
                }
            }
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
        assert_eq!(s[2], libm::sinf(1e30));
        assert!(s[3].is_nan());
        let p = lanes(clift_v4_pow_f32(
            register([2.0, -2.0, 0.0, -8.0]),
            register([10.0, 3.0, -1.0, 1.0 / 3.0]),
        ));
        assert_eq!(p[0], 1024.0);
        assert_eq!(p[1], -8.0);
        assert_eq!(p[2], f32::INFINITY);
        assert!(p[3].is_nan());
    }
}
