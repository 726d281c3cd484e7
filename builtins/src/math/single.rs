//! The `float` math builtins (`clift_<name>_f32`).
//!
//! Three kinds of implementation, chosen per function:
//!
//! - **Exact or correctly rounded operations** written directly (IEEE arithmetic, bit
//!   manipulation) or taken from libm where libm's is exact (`rintf`, `truncf`, ...); `fmod`, `remainder`
//!   and `remquo` are in [`super::remainder`].
//! - **Fast kernels** ([`super::kernels`]) for `sin`/`cos`/`tan`, `exp`/`exp2`/`exp10`,
//!   `log`/`log2`/`log10` and the `pow` family: the functions kernels call most, where libm's
//!   `float` versions are too slow.
//! - **The `double` function rounded to `float`** for the rest (`acos`, `erf`, `tgamma`, ...):
//!   libm's `double` functions are within a few `double` ulps (8 at worst, `tgamma`; most
//!   within 2), so the `float` result is within 0.5 + 2^-25 ulp, nearly correctly rounded,
//!   far inside every bound of table 7.1, and the argument range, subnormals included, needs
//!   no special care. A `double` evaluation costs more than libm's `float` one, which is
//!   acceptable for functions that are rarely hot.
//!
//! Denormals are never flushed: every path either works on the bits or widens to `double`,
//! where a `float` subnormal is a normal number.

use super::{FP_ILOGB0, FP_ILOGBNAN};
use super::{atan, kernels, remainder};
use std::f64::consts::{FRAC_1_PI, LN_2, LOG2_10, LOG2_E, LOG10_2};

/// 0x1.fffffep-1f, the largest `float` below 1: `fract` never returns 1.0.
const BELOW_ONE: f32 = 0.999_999_94;

/// `f` applied to `x` widened to `double`, rounded back to `float`.
#[inline]
fn via_f64(x: f32, f: fn(f64) -> f64) -> f32 {
    f(x as f64) as f32
}

/// How a `float` relates to the integers: what `pow` needs to know about its exponent.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Parity {
    NotInteger,
    Odd,
    Even,
}

/// The parity of a finite `y` from its bits (no rounding calls: `pow` is hot).
fn parity(y: f32) -> Parity {
    let bits = y.to_bits() & 0x7fff_ffff;
    if bits == 0 {
        return Parity::Even;
    }
    let e = (bits >> 23) as i32 - 127;
    if e < 0 {
        return Parity::NotInteger;
    }
    if e > 23 {
        // |y| >= 2^24: every float is an even integer.
        return Parity::Even;
    }
    let mantissa = (bits & 0x007f_ffff) | 0x0080_0000;
    let fraction_bits = 23 - e as u32;
    if fraction_bits > 0 && mantissa & ((1 << fraction_bits) - 1) != 0 {
        Parity::NotInteger
    } else if (mantissa >> fraction_bits) & 1 == 1 {
        Parity::Odd
    } else {
        Parity::Even
    }
}

/// `log2(x)` of a positive, finite, nonzero `float` in `double` (relative error < 2^-37).
#[inline]
fn log2_f64(x: f32) -> f64 {
    kernels::log2_core(x)
}

// --- trigonometric -------------------------------------------------------------------------

/// `sin(x)`: the fast kernel (0.5 ulp + tiny); libm's reduction for |x| >= 2^28·pi/2.
pub extern "C" fn clift_sin_f32(x: f32) -> f32 {
    kernels::sin_f32(x)
}

/// `cos(x)`: as [`clift_sin_f32`].
pub extern "C" fn clift_cos_f32(x: f32) -> f32 {
    kernels::cos_f32(x)
}

/// `tan(x)`: sine over cosine of the reduced argument, in `double`.
pub extern "C" fn clift_tan_f32(x: f32) -> f32 {
    kernels::tan_f32(x)
}

/// `sincos(x, cosval)`: returns `sin(x)` and stores `cos(x)`.
///
/// # Safety
/// `cosval` must be valid for writing one `float` (the compiler passes the address of an
/// object of that type).
pub unsafe extern "C" fn clift_sincos_f32(x: f32, cosval: *mut f32) -> f32 {
    let (s, c) = kernels::sincos_f32(x);
    // SAFETY: the caller guarantees `cosval` is writable (see `# Safety`).
    unsafe { cosval.write(c) };
    s
}

pub extern "C" fn clift_acos_f32(x: f32) -> f32 {
    via_f64(x, libm::acos)
}

pub extern "C" fn clift_asin_f32(x: f32) -> f32 {
    via_f64(x, libm::asin)
}

pub extern "C" fn clift_atan_f32(x: f32) -> f32 {
    via_f64(x, libm::atan)
}

/// `true` where [`atan::atan2_finite`] applies: both finite, not both zero. The rest (the
/// infinities, NaN, `atan2(±0, ±0)`) keeps libm's special values.
#[inline]
fn atan2_fast_args(y: f32, x: f32) -> bool {
    y.is_finite() && x.is_finite() && (y != 0.0 || x != 0.0)
}

/// `atan2(y, x)` by the table kernel in `double` (0.5 ulp + tiny), libm's special values.
pub extern "C" fn clift_atan2_f32(y: f32, x: f32) -> f32 {
    if atan2_fast_args(y, x) {
        return atan::atan2_finite(y as f64, x as f64) as f32;
    }
    libm::atan2(y as f64, x as f64) as f32
}

/// `acos(x)/pi`: the `double` quotient is within 2 `double` ulps, so rounding it to
/// `float` is within 0.5 ulp + tiny; `acospi(1) = +0` and NaN beyond [-1, 1] carry over.
pub extern "C" fn clift_acospi_f32(x: f32) -> f32 {
    (libm::acos(x as f64) * FRAC_1_PI) as f32
}

pub extern "C" fn clift_asinpi_f32(x: f32) -> f32 {
    (libm::asin(x as f64) * FRAC_1_PI) as f32
}

pub extern "C" fn clift_atanpi_f32(x: f32) -> f32 {
    if x.is_infinite() {
        return 0.5f32.copysign(x);
    }
    (libm::atan(x as f64) * FRAC_1_PI) as f32
}

/// `atan2(y, x)/pi`: the table kernel's `atan2` (2^-40 relative) times `1/pi` in `double`,
/// within 0.5 ulp + tiny of the `float` result; zeros, infinities and NaN by
/// [`super::atan2pi_special`].
pub extern "C" fn clift_atan2pi_f32(y: f32, x: f32) -> f32 {
    if atan2_fast_args(y, x) && y != 0.0 && x != 0.0 {
        return (atan::atan2_finite(y as f64, x as f64) * FRAC_1_PI) as f32;
    }
    match super::atan2pi_special(y as f64, x as f64) {
        Some(v) => v as f32,
        None => (libm::atan2(y as f64, x as f64) * FRAC_1_PI) as f32,
    }
}

/// `x = k/2 + y` with `|y| <= 1/4`, both exact (k as an integer-valued `double`): the
/// reduction of the `*pi` functions, valid for `|x| < 2^23`. `x - k/2` is exact because
/// `k/2` is a multiple of `x`'s ulp whenever that ulp is at most 1/2, and the difference is
/// small.
#[inline]
fn reduce_half(x: f32) -> (i64, f64) {
    const SHIFT: f64 = 6755399441055744.0;
    let x = x as f64;
    let k = (2.0 * x + SHIFT) - SHIFT;
    (k as i64, x - 0.5 * k)
}

/// `sin(pi·x)` by exact reduction to `|y| <= 1/4` and the `double` kernels on `pi·y`
/// (`pi·y` carries a relative error of 2^-53, harmless at `float` precision). Integers give
/// zeros with the sign of `x` (section 7.5.1: `sinpi(n) = +0` for `n > 0`, `-0` for `n < 0`).
pub extern "C" fn clift_sinpi_f32(x: f32) -> f32 {
    if !x.is_finite() {
        return if x.is_nan() { x } else { f32::NAN };
    }
    if x.abs() >= 8_388_608.0 {
        return 0.0f32.copysign(x);
    }
    let (k, y) = reduce_half(x);
    let t = y * std::f64::consts::PI;
    let v = match k & 3 {
        0 => kernels::sin_poly(t),
        1 => kernels::cos_poly(t),
        2 => -kernels::sin_poly(t),
        _ => -kernels::cos_poly(t),
    } as f32;
    if v == 0.0 { 0.0f32.copysign(x) } else { v }
}

/// `cos(pi·x)`; `cospi(n + 0.5) = +0` for every integer `n`.
pub extern "C" fn clift_cospi_f32(x: f32) -> f32 {
    if !x.is_finite() {
        return if x.is_nan() { x } else { f32::NAN };
    }
    let ax = x.abs();
    if ax >= 16_777_216.0 {
        return 1.0;
    }
    if ax >= 8_388_608.0 {
        return if (ax as u32) & 1 == 1 { -1.0 } else { 1.0 };
    }
    let (k, y) = reduce_half(x);
    let t = y * std::f64::consts::PI;
    let v = match k & 3 {
        0 => kernels::cos_poly(t),
        1 => -kernels::sin_poly(t),
        2 => -kernels::cos_poly(t),
        _ => kernels::sin_poly(t),
    } as f32;
    if v == 0.0 { 0.0 } else { v }
}

/// `tan(pi·x)` with the special values of section 7.5.1: at integers `n` a zero with the
/// sign of `n` (even `n`) or of `-n` (odd `n`); at `n + 0.5`, `+inf` for even `n` and `-inf`
/// for odd `n`.
pub extern "C" fn clift_tanpi_f32(x: f32) -> f32 {
    if !x.is_finite() {
        return if x.is_nan() { x } else { f32::NAN };
    }
    let ax = x.abs();
    if ax >= 8_388_608.0 {
        let odd = ax < 16_777_216.0 && (ax as u32) & 1 == 1;
        return 0.0f32.copysign(if odd { -x } else { x });
    }
    let (k, y) = reduce_half(x);
    if y == 0.0 {
        if k & 1 == 0 {
            let odd = (k >> 1) & 1 == 1;
            return 0.0f32.copysign(if odd { -x } else { x });
        }
        // x = n + 0.5 with n = (k - 1) / 2.
        return if ((k - 1) >> 1) & 1 == 0 {
            f32::INFINITY
        } else {
            f32::NEG_INFINITY
        };
    }
    let t = y * std::f64::consts::PI;
    let (s, c) = (kernels::sin_poly(t), kernels::cos_poly(t));
    (if k & 1 == 0 { s / c } else { -c / s }) as f32
}

// --- hyperbolic ----------------------------------------------------------------------------

pub extern "C" fn clift_sinh_f32(x: f32) -> f32 {
    via_f64(x, libm::sinh)
}

pub extern "C" fn clift_cosh_f32(x: f32) -> f32 {
    via_f64(x, libm::cosh)
}

pub extern "C" fn clift_tanh_f32(x: f32) -> f32 {
    via_f64(x, libm::tanh)
}

pub extern "C" fn clift_asinh_f32(x: f32) -> f32 {
    via_f64(x, libm::asinh)
}

/// `acosh(x)`: NaN below 1 (libm's `double` acosh returns numbers for `x <= -1`).
pub extern "C" fn clift_acosh_f32(x: f32) -> f32 {
    if x < 1.0 {
        return f32::NAN;
    }
    via_f64(x, libm::acosh)
}

pub extern "C" fn clift_atanh_f32(x: f32) -> f32 {
    via_f64(x, libm::atanh)
}

// --- exponential and logarithmic ---------------------------------------------------------

/// `e^x` by the table kernel: `2^(x·log2(e))` with the product in `double`.
pub extern "C" fn clift_exp_f32(x: f32) -> f32 {
    kernels::exp_base_f32(x, LOG2_E)
}

pub extern "C" fn clift_exp2_f32(x: f32) -> f32 {
    kernels::exp2_to_f32(x as f64)
}

/// `10^x`: `2^(x·log2(10))` with the product in `double`. (libm's `exp10f` forms
/// `x·log2(10)` in `float` for `|x| < 8` and is off by up to 3.9 ulp there, over the 3
/// allowed.)
pub extern "C" fn clift_exp10_f32(x: f32) -> f32 {
    kernels::exp_base_f32(x, LOG2_10)
}

pub extern "C" fn clift_expm1_f32(x: f32) -> f32 {
    via_f64(x, libm::expm1)
}

pub extern "C" fn clift_log_f32(x: f32) -> f32 {
    kernels::log_base_f32(x, LN_2)
}

pub extern "C" fn clift_log2_f32(x: f32) -> f32 {
    kernels::log_base_f32(x, 1.0)
}

pub extern "C" fn clift_log10_f32(x: f32) -> f32 {
    kernels::log_base_f32(x, LOG10_2)
}

pub extern "C" fn clift_log1p_f32(x: f32) -> f32 {
    via_f64(x, libm::log1p)
}

/// `logb(x)`: the unbiased exponent as a `float` (exact; subnormals by their true exponent),
/// `-inf` for zeros, `+inf` for infinities.
pub extern "C" fn clift_logb_f32(x: f32) -> f32 {
    if x == 0.0 {
        return f32::NEG_INFINITY;
    }
    if !x.is_finite() {
        return x * x;
    }
    clift_ilogb_f32(x) as f32
}

/// `ilogb(x)`: the unbiased exponent; `FP_ILOGB0` (INT_MIN) for zeros, `FP_ILOGBNAN`
/// (INT_MAX) for NaN, INT_MAX for infinities (C99 7.12.6.5).
pub extern "C" fn clift_ilogb_f32(x: f32) -> i32 {
    if x == 0.0 {
        return FP_ILOGB0;
    }
    if x.is_nan() {
        return FP_ILOGBNAN;
    }
    if x.is_infinite() {
        return i32::MAX;
    }
    let bits = x.to_bits() & 0x7fff_ffff;
    if bits < 0x0080_0000 {
        // Subnormal: the leading one is at bit 31 - lz of the 23-bit field.
        return -127 - (bits.leading_zeros() as i32 - 9);
    }
    (bits >> 23) as i32 - 127
}

/// `frexp(x, exp)`: `x = m·2^exp` with `|m|` in [1/2, 1). `±0`, `±inf` and NaN are returned
/// unchanged with 0 stored (section 7.5.1).
///
/// # Safety
/// `exp` must be valid for writing one `int`.
pub unsafe extern "C" fn clift_frexp_f32(x: f32, exp: *mut i32) -> f32 {
    let (m, e) = frexp(x);
    // SAFETY: the caller guarantees `exp` is writable (see `# Safety`).
    unsafe { exp.write(e) };
    m
}

fn frexp(x: f32) -> (f32, i32) {
    if x == 0.0 || !x.is_finite() {
        return (x, 0);
    }
    let e = clift_ilogb_f32(x) + 1;
    // Scale in two exact steps: 2^-e may not be a normal float (e up to 128, down to -148).
    let half = -e / 2;
    let scaled = x * exp2i(half) * exp2i(-e - half);
    (scaled, e)
}

/// `2^k` as a `float`, for `k` in [-126, 127].
fn exp2i(k: i32) -> f32 {
    f32::from_bits(((k + 127) as u32) << 23)
}

/// `ldexp(x, k)`: `x·2^k` rounded once. `x` widened to `double` and scaled by `2^k` with
/// `k` clamped to ±400 is exact (the `double` range covers every `float` times 2^±400), so
/// the conversion back to `float` is the only rounding, correct for subnormal results too.
pub extern "C" fn clift_ldexp_f32(x: f32, k: i32) -> f32 {
    let k = k.clamp(-400, 400);
    (x as f64 * f64::from_bits(((k + 1023) as u64) << 52)) as f32
}

// --- power and root ----------------------------------------------------------------------

/// `true` for a positive normal `x` and a finite `y`: the arguments of `pow`/`powr` that
/// need no special handling (`y = 0` and `x = 1` come out as exactly 1 from the kernels).
#[inline]
fn pow_fast_args(x: f32, y: f32) -> bool {
    x.to_bits().wrapping_sub(0x0080_0000) < 0x7f00_0000 && (y.to_bits() & 0x7fff_ffff) < 0x7f80_0000
}

/// `pow(x, y)` with every special case of C99 F.9.4.4 (and section 7.5.1's
/// `pow(±0, -inf) = +inf`), otherwise `±2^(y·log2|x|)` by the table kernels. A negative normal
/// `x` with a finite `y` stays on the fast path (only `y`'s parity is extra): with the CTS's
/// random bit patterns, half of all calls have one.
pub extern "C" fn clift_pow_f32(x: f32, y: f32) -> f32 {
    let ax = x.abs();
    if pow_fast_args(ax, y) {
        let r = kernels::exp2_to_f32(y as f64 * log2_f64(ax));
        return with_base_sign(x, y, r);
    }
    pow_general(x, y)
}

/// `pow(x, y)` from `r = |x|^y` for a finite `y`: `r` for `x > 0` or an even `y`, `-r` for
/// `x < 0` and an odd `y`, NaN for `x < 0` and a `y` that is not an integer. The same rules
/// as [`parity`], without its branches (random signs and exponents mispredict them: pow of
/// random bit patterns took 44 ns a call against 22 for positive `x`), as the four-lane form
/// does: `y` converted to `int` and back is `y` for an integer below 2^31 in magnitude, and
/// every `float` from 2^24 up is an even integer.
#[inline(always)]
fn with_base_sign(x: f32, y: f32, r: f32) -> f32 {
    let yi = y as i32;
    let converts = yi as f32 == y;
    let below_2_24 = y.abs() < 16_777_216.0;
    let integer = converts | !below_2_24;
    let odd = converts & below_2_24 & (yi & 1 == 1);
    let negative = x < 0.0;
    let sign = ((negative & odd) as u32) << 31;
    let nan = ((negative & !integer) as u32).wrapping_neg();
    f32::from_bits(((r.to_bits() ^ sign) & !nan) | (f32::NAN.to_bits() & nan))
}

/// `pow` off the fast path: zeros, subnormal, negative and non-finite `x`, non-finite `y`.
#[cold]
#[inline(never)]
fn pow_general(x: f32, y: f32) -> f32 {
    if y == 0.0 || x == 1.0 {
        return 1.0;
    }
    if x.is_nan() || y.is_nan() {
        return x + y;
    }
    let ax = x.abs();
    if y.is_infinite() {
        if ax == 1.0 {
            return 1.0;
        }
        return if (ax < 1.0) == (y > 0.0) {
            0.0
        } else {
            f32::INFINITY
        };
    }
    let p = parity(y);
    let negative = x.is_sign_negative() && p == Parity::Odd;
    let sign = |v: f32| if negative { -v } else { v };
    if ax == 0.0 {
        return sign(if y < 0.0 { f32::INFINITY } else { 0.0 });
    }
    if ax == f32::INFINITY {
        return sign(if y < 0.0 { 0.0 } else { f32::INFINITY });
    }
    if x < 0.0 && p == Parity::NotInteger {
        return f32::NAN;
    }
    sign(kernels::exp2_to_f32(y as f64 * log2_f64(ax)))
}

/// `powr(x, y)`: `x^y` for `x >= 0` only, defined as `exp(y·log(x))`, with the special values
/// of section 7.5.1 (`powr(±0, ±0)`, `powr(+inf, ±0)`, `powr(+1, ±inf)` and negative `x`
/// are NaN).
pub extern "C" fn clift_powr_f32(x: f32, y: f32) -> f32 {
    if pow_fast_args(x, y) {
        return kernels::exp2_to_f32(y as f64 * log2_f64(x));
    }
    powr_general(x, y)
}

#[cold]
#[inline(never)]
fn powr_general(x: f32, y: f32) -> f32 {
    if x.is_nan() {
        return x;
    }
    if y.is_nan() {
        return y;
    }
    if x < 0.0 {
        return f32::NAN;
    }
    if x == 0.0 {
        return if y == 0.0 {
            f32::NAN
        } else if y < 0.0 {
            f32::INFINITY
        } else {
            0.0
        };
    }
    if x == f32::INFINITY {
        return if y == 0.0 {
            f32::NAN
        } else if y < 0.0 {
            0.0
        } else {
            f32::INFINITY
        };
    }
    if x == 1.0 {
        return if y.is_infinite() { f32::NAN } else { 1.0 };
    }
    if y == 0.0 {
        return 1.0;
    }
    if y.is_infinite() {
        return if (x < 1.0) == (y > 0.0) {
            0.0
        } else {
            f32::INFINITY
        };
    }
    kernels::exp2_to_f32(y as f64 * log2_f64(x))
}

/// `pown(x, n)`: `x^n` for an integer `n`, which (unlike `pow`'s `float` exponent) may be
/// odd beyond 2^24; `n·log2|x|` is formed in `double`, where `n` is exact.
pub extern "C" fn clift_pown_f32(x: f32, n: i32) -> f32 {
    if n == 0 {
        return 1.0;
    }
    if x.is_nan() {
        return x;
    }
    let negative = x.is_sign_negative() && n & 1 == 1;
    let ax = x.abs();
    let v = if ax == 0.0 {
        if n < 0 { f32::INFINITY } else { 0.0 }
    } else if ax == f32::INFINITY {
        if n < 0 { 0.0 } else { f32::INFINITY }
    } else {
        kernels::exp2_to_f32(n as f64 * log2_f64(ax))
    };
    if negative { -v } else { v }
}

/// `rootn(x, n)`: `x^(1/n)`; NaN for `n = 0` and for negative `x` with even `n`, the
/// section 7.5.1 values at `±0`.
pub extern "C" fn clift_rootn_f32(x: f32, n: i32) -> f32 {
    if n == 0 {
        return f32::NAN;
    }
    if x.is_nan() {
        return x;
    }
    let odd = n & 1 == 1;
    if x < 0.0 && !odd {
        return f32::NAN;
    }
    let negative = x.is_sign_negative() && odd;
    let ax = x.abs();
    let v = if ax == 0.0 {
        if n < 0 { f32::INFINITY } else { 0.0 }
    } else if ax == f32::INFINITY {
        if n < 0 { 0.0 } else { f32::INFINITY }
    } else {
        kernels::exp2_to_f32(log2_f64(ax) / n as f64)
    };
    if negative { -v } else { v }
}

/// `sqrt(x)`: the IEEE square root (`sqrtss`), correctly rounded.
pub extern "C" fn clift_sqrt_f32(x: f32) -> f32 {
    x.sqrt()
}

/// `1/sqrt(x)` in `double` (both steps correctly rounded there), then rounded to `float`:
/// within 0.5 ulp + tiny; `rsqrt(±0) = ±inf`.
pub extern "C" fn clift_rsqrt_f32(x: f32) -> f32 {
    (1.0 / (x as f64).sqrt()) as f32
}

/// `cbrt(x)`: libm's `cbrtf` (FreeBSD's: a 5-bit guess from the bits, then two Halley steps
/// in `double` to 47 bits, rounded once). Correctly rounded on every `float` (checked
/// against libm's correctly rounded `double` cbrt in `tests/cbrt_exhaustive.rs`), at a
/// quarter of the cost of that `double` cbrt, which was most of the CTS's `cbrt` shard.
pub extern "C" fn clift_cbrt_f32(x: f32) -> f32 {
    libm::cbrtf(x)
}

/// `hypot(x, y)`: `sqrt(x² + y²)` in `double`, where the squares of `float`s are exact and
/// can neither overflow nor underflow; `+inf` if either is infinite, even with a NaN
/// (C99 F.9.4.3).
pub extern "C" fn clift_hypot_f32(x: f32, y: f32) -> f32 {
    if x.is_infinite() || y.is_infinite() {
        return f32::INFINITY;
    }
    let (x, y) = (x as f64, y as f64);
    (x * x + y * y).sqrt() as f32
}

// --- error and gamma ---------------------------------------------------------------------

pub extern "C" fn clift_erf_f32(x: f32) -> f32 {
    via_f64(x, libm::erf)
}

pub extern "C" fn clift_erfc_f32(x: f32) -> f32 {
    via_f64(x, libm::erfc)
}

pub extern "C" fn clift_tgamma_f32(x: f32) -> f32 {
    via_f64(x, libm::tgamma)
}

pub extern "C" fn clift_lgamma_f32(x: f32) -> f32 {
    via_f64(x, libm::lgamma)
}

/// `lgamma_r(x, signp)`: `ln|Γ(x)|`, and the sign of `Γ(x)` stored in `signp`, 0 where `x` is
/// zero or a negative integer (section 7.5.1: Γ has poles there).
///
/// # Safety
/// `signp` must be valid for writing one `int`.
pub unsafe extern "C" fn clift_lgamma_r_f32(x: f32, signp: *mut i32) -> f32 {
    let (v, s) = libm::lgamma_r(x as f64);
    let pole = x == 0.0 || (x < 0.0 && parity(x) != Parity::NotInteger);
    // SAFETY: the caller guarantees `signp` is writable (see `# Safety`).
    unsafe { signp.write(if pole { 0 } else { s }) };
    v as f32
}

// --- rounding and decomposition ----------------------------------------------------------

pub extern "C" fn clift_ceil_f32(x: f32) -> f32 {
    libm::ceilf(x)
}

pub extern "C" fn clift_floor_f32(x: f32) -> f32 {
    libm::floorf(x)
}

pub extern "C" fn clift_trunc_f32(x: f32) -> f32 {
    libm::truncf(x)
}

/// `round(x)`: halfway cases away from zero.
pub extern "C" fn clift_round_f32(x: f32) -> f32 {
    libm::roundf(x)
}

/// `rint(x)`: to nearest, ties to even, regardless of any rounding mode (section 7.5.2).
pub extern "C" fn clift_rint_f32(x: f32) -> f32 {
    libm::rintf(x)
}

/// `fract(x, iptr)`: `fmin(x - floor(x), 0x1.fffffep-1f)`, `floor(x)` stored; `±0` for
/// `±0` (with `±0` stored), `±0` for `±inf` (with `±inf` stored), NaN for NaN (both).
///
/// # Safety
/// `iptr` must be valid for writing one `float`.
pub unsafe extern "C" fn clift_fract_f32(x: f32, iptr: *mut f32) -> f32 {
    let fl = libm::floorf(x);
    // SAFETY: the caller guarantees `iptr` is writable (see `# Safety`).
    unsafe { iptr.write(fl) };
    if x.is_nan() || x == 0.0 {
        return x;
    }
    if x.is_infinite() {
        return 0.0f32.copysign(x);
    }
    let f = x - fl;
    if f < BELOW_ONE { f } else { BELOW_ONE }
}

/// `modf(x, iptr)`: the integral part (stored) and the fractional part, both with the sign
/// of `x`; `±0` and `±inf` stored for `±inf`.
///
/// # Safety
/// `iptr` must be valid for writing one `float`.
pub unsafe extern "C" fn clift_modf_f32(x: f32, iptr: *mut f32) -> f32 {
    let t = libm::truncf(x);
    // SAFETY: the caller guarantees `iptr` is writable (see `# Safety`).
    unsafe { iptr.write(t) };
    if x.is_nan() {
        return x;
    }
    if x.is_infinite() {
        return 0.0f32.copysign(x);
    }
    (x - t).copysign(x)
}

/// `fmod(x, y)`: exact, 39 quotient bits per step ([`remainder::fmod_f32`]).
pub extern "C" fn clift_fmod_f32(x: f32, y: f32) -> f32 {
    remainder::fmod_f32(x, y)
}

/// `remainder(x, y)`: `fmod` and the quotient's parity ([`remainder`]).
pub extern "C" fn clift_remainder_f32(x: f32, y: f32) -> f32 {
    remainder::remquo_f32(x, y, 1).0
}

/// `remquo(x, y, quo)`: the remainder, and in `quo` the sign of `x/y` with its 7 low
/// quotient bits ([`remainder`]); 0 in `quo` with a NaN for infinite `x`, zero `y` or NaN
/// operands (section 7.5.1).
///
/// # Safety
/// `quo` must be valid for writing one `int`.
pub unsafe extern "C" fn clift_remquo_f32(x: f32, y: f32, quo: *mut i32) -> f32 {
    let (r, q) = remainder::remquo_f32(x, y, remainder::REMQUO_MASK);
    // SAFETY: the caller guarantees `quo` is writable (see `# Safety`).
    unsafe { quo.write(q) };
    r
}

// --- comparison, sign and bits -----------------------------------------------------------

pub extern "C" fn clift_fabs_f32(x: f32) -> f32 {
    x.abs()
}

pub extern "C" fn clift_copysign_f32(x: f32, y: f32) -> f32 {
    x.copysign(y)
}

/// `fdim(x, y)`: `x - y` if `x > y`, `+0` otherwise, NaN if either is NaN.
pub extern "C" fn clift_fdim_f32(x: f32, y: f32) -> f32 {
    if x.is_nan() || y.is_nan() {
        x + y
    } else if x > y {
        x - y
    } else {
        0.0
    }
}

/// `fmax(x, y)`: "if x < y return y, otherwise x", and if one argument is NaN the other
/// (table 6.9); so `fmax(-0, +0)` is `-0`, as the definition reads.
pub extern "C" fn clift_fmax_f32(x: f32, y: f32) -> f32 {
    if x.is_nan() || x < y { y } else { x }
}

/// `fmin(x, y)`: "if y < x return y, otherwise x", NaN arguments ignored.
pub extern "C" fn clift_fmin_f32(x: f32, y: f32) -> f32 {
    if x.is_nan() || y < x { y } else { x }
}

/// `maxmag(x, y)`: the argument of larger magnitude, `fmax(x, y)` on a tie (or a NaN).
pub extern "C" fn clift_maxmag_f32(x: f32, y: f32) -> f32 {
    let (ax, ay) = (x.abs(), y.abs());
    if ax > ay {
        x
    } else if ay > ax {
        y
    } else {
        clift_fmax_f32(x, y)
    }
}

/// `minmag(x, y)`: the argument of smaller magnitude, `fmin(x, y)` on a tie (or a NaN).
pub extern "C" fn clift_minmag_f32(x: f32, y: f32) -> f32 {
    let (ax, ay) = (x.abs(), y.abs());
    if ax < ay {
        x
    } else if ay < ax {
        y
    } else {
        clift_fmin_f32(x, y)
    }
}

/// `nextafter(x, y)`: libm's, which steps through subnormals (`nextafter(-0, y > 0)` is the
/// smallest positive subnormal, section 7.5.1).
pub extern "C" fn clift_nextafter_f32(x: f32, y: f32) -> f32 {
    libm::nextafterf(x, y)
}

/// `nan(nancode)`: a quiet NaN carrying the low 22 bits of `nancode` in its mantissa.
pub extern "C" fn clift_nan_f32(nancode: u32) -> f32 {
    f32::from_bits(0x7fc0_0000 | (nancode & 0x003f_ffff))
}

// --- multiply-add --------------------------------------------------------------------------

/// `fma(a, b, c)`: exact product, one rounding (libm's, exact in every case).
pub extern "C" fn clift_fma_f32(a: f32, b: f32, c: f32) -> f32 {
    libm::fmaf(a, b, c)
}

/// `mad(a, b, c)`: any accuracy is allowed (table 7.1); the plain product and sum, two
/// roundings, the fastest form.
pub extern "C" fn clift_mad_f32(a: f32, b: f32, c: f32) -> f32 {
    a * b + c
}

/// `x / y`, correctly rounded (IEEE division): for `-cl-fp32-correctly-rounded-divide-sqrt`
/// and the `half_`/`native_` divides.
pub extern "C" fn clift_divide_f32(x: f32, y: f32) -> f32 {
    x / y
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::lanes::tests::random;

    /// `pow_general` handles every pair by the C99 rules in order, so it is the reference for
    /// the fast path, negative `x` included: the same bits on random bit patterns, on
    /// negative `x` with integer and half-integer `y`, and on `x` near ±1 with large `y`.
    #[test]
    fn pow_fast_path_is_pow_general() {
        for i in 0..400_000u64 {
            let r = random(i);
            let (lo, hi) = (r as u32, (r >> 32) as u32);
            let (x, y) = match i % 3 {
                0 => (f32::from_bits(lo), f32::from_bits(hi)),
                1 => (
                    -f32::from_bits(lo & 0x4fff_ffff),
                    ((hi % 128) as f32 - 64.0) * 0.5,
                ),
                _ => (
                    (1.0 + (lo as i32 as f32) * 2e-12) * if hi & 1 == 0 { 1.0 } else { -1.0 },
                    (hi as i32 >> 8) as f32,
                ),
            };
            assert_eq!(
                clift_pow_f32(x, y).to_bits(),
                pow_general(x, y).to_bits(),
                "pow({x:e}, {y:e})"
            );
        }
    }
}
