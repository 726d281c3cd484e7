//! The `double` math builtins (`clift_<name>_f64`).
//!
//! Mostly libm (musl/FreeBSD lineage: within 1 ulp for the elementary functions, exact for
//! the exact ones, CORE-MATH's correctly rounded `cbrt`), which meets table 7.2 as it is.
//! Written here: the functions libm lacks (`*pi`, `exp10` done better, `pown`, `powr`,
//! `rootn`, `rsqrt`, `fract`, ...), the OpenCL-specific special values, and the exact
//! bit-level operations, and `remainder`/`remquo` ([`super::remainder`]: libm's `fmod` plus
//! the quotient bits, where libm's `remquo` divides a bit at a time).

use super::{FP_ILOGB0, FP_ILOGBNAN};
use super::{reduce_pio2, remainder};
use std::f64::consts::{FRAC_1_PI, LN_10, PI};

/// 0x1.fffffffffffffp-1, the largest `double` below 1: `fract` never returns 1.0.
const BELOW_ONE: f64 = 0.999_999_999_999_999_9;

/// The low part of pi: `PI + PI_LO` is pi to 107 bits.
const PI_LO: f64 = 1.224_646_799_147_353_2e-16;
/// The low part of ln(10).
pub(super) const LN_10_LO: f64 = -2.170_756_223_382_249_4e-16;

/// Dekker's exact product without FMA: `a·b = hi + lo` exactly, given no overflow and no
/// underflow of the partial products (the callers keep their arguments in range).
#[inline]
fn two_prod(a: f64, b: f64) -> (f64, f64) {
    #[inline]
    fn split(a: f64) -> (f64, f64) {
        let c = 134_217_729.0 * a; // 2^27 + 1
        let hi = c - (c - a);
        (hi, a - hi)
    }
    let p = a * b;
    let (ah, al) = split(a);
    let (bh, bl) = split(b);
    (p, ((ah * bh - p) + ah * bl + al * bh) + al * bl)
}

// --- trigonometric -------------------------------------------------------------------------

/// `|x| ≥ 2^21`, finite: where [`reduce_pio2`] reduces instead of libm's `rem_pio2_large`.
#[inline]
fn huge_trig_argument(x: f64) -> bool {
    (0x4140_0000_0000_0000..0x7ff0_0000_0000_0000).contains(&(x.to_bits() & !(1 << 63)))
}

/// `sin(x)`: libm's, with huge arguments reduced by [`reduce_pio2`].
pub extern "C" fn clift_sin_f64(x: f64) -> f64 {
    if huge_trig_argument(x) {
        return reduce_pio2::sin_huge(x);
    }
    libm::sin(x)
}

/// `cos(x)`: libm's, with huge arguments reduced by [`reduce_pio2`].
pub extern "C" fn clift_cos_f64(x: f64) -> f64 {
    if huge_trig_argument(x) {
        return reduce_pio2::cos_huge(x);
    }
    libm::cos(x)
}

pub extern "C" fn clift_tan_f64(x: f64) -> f64 {
    libm::tan(x)
}

/// `sincos(x, cosval)`: returns `sin(x)` and stores `cos(x)` (libm's, huge arguments by
/// [`reduce_pio2`]).
///
/// # Safety
/// `cosval` must be valid for writing one `double`.
pub unsafe extern "C" fn clift_sincos_f64(x: f64, cosval: *mut f64) -> f64 {
    let (s, c) = if huge_trig_argument(x) {
        reduce_pio2::sincos_huge(x)
    } else {
        libm::sincos(x)
    };
    // SAFETY: the caller guarantees `cosval` is writable (see `# Safety`).
    unsafe { cosval.write(c) };
    s
}

pub extern "C" fn clift_acos_f64(x: f64) -> f64 {
    libm::acos(x)
}

pub extern "C" fn clift_asin_f64(x: f64) -> f64 {
    libm::asin(x)
}

pub extern "C" fn clift_atan_f64(x: f64) -> f64 {
    libm::atan(x)
}

pub extern "C" fn clift_atan2_f64(y: f64, x: f64) -> f64 {
    libm::atan2(y, x)
}

/// `acos(x)/pi`: libm's 1 ulp plus one rounding of the product (the constant's own error
/// is 2^-54 relative): within 2 ulp of the 5 allowed.
pub extern "C" fn clift_acospi_f64(x: f64) -> f64 {
    libm::acos(x) * FRAC_1_PI
}

pub extern "C" fn clift_asinpi_f64(x: f64) -> f64 {
    libm::asin(x) * FRAC_1_PI
}

/// `atan(x)/pi`, with `atanpi(±inf) = ±0.5` exactly (the rounded `pi/2 · 1/pi` is not).
pub extern "C" fn clift_atanpi_f64(x: f64) -> f64 {
    if x.is_infinite() {
        return 0.5f64.copysign(x);
    }
    libm::atan(x) * FRAC_1_PI
}

/// `atan2(y, x)/pi` with the exact special values of section 7.5.1.
pub extern "C" fn clift_atan2pi_f64(y: f64, x: f64) -> f64 {
    super::atan2pi_special(y, x).unwrap_or_else(|| libm::atan2(y, x) * FRAC_1_PI)
}

/// `(sin(pi·y), cos(pi·y))` for `0 < |y| <= 1/4`: `pi·y` as a double-double `t + dt`
/// (Dekker's product, pi to 107 bits), then `sin(t + dt) = sin t + dt·cos t` (and the
/// cosine likewise), so the only errors are libm's and the final roundings (~1.5 ulp).
fn sincos_pi_reduced(y: f64) -> (f64, f64) {
    if y.abs() < 1e-150 {
        // pi·y to within half an ulp plus 2^-53 relative; cos(pi·y) rounds to 1.
        return (y * PI, 1.0);
    }
    let (t, lo) = two_prod(PI, y);
    let dt = lo + PI_LO * y;
    let (s, c) = libm::sincos(t);
    (s + c * dt, c - s * dt)
}

/// `x = k/2 + y`, both exact, `|y| <= 1/4`, for `|x| < 2^52`.
#[inline]
fn reduce_half(x: f64) -> (i64, f64) {
    const SHIFT: f64 = 6755399441055744.0;
    // The shift rounds to an integer only below 2^51; above, 2x is a multiple of 1/2.
    let k = if x.abs() < 1_125_899_906_842_624.0 {
        (2.0 * x + SHIFT) - SHIFT
    } else {
        libm::rint(2.0 * x)
    };
    (k as i64, x - 0.5 * k)
}

/// `|x|` is an integer of which parity (for `|x| >= 2^52`, where every `double` is one).
fn big_is_odd(ax: f64) -> bool {
    ax < 9_007_199_254_740_992.0 && ax.to_bits() & 1 == 1
}

/// `sin(pi·x)`: exact reduction, then [`sincos_pi_reduced`]; integers give zeros with the
/// sign of `x` (section 7.5.1).
pub extern "C" fn clift_sinpi_f64(x: f64) -> f64 {
    if !x.is_finite() {
        return if x.is_nan() { x } else { f64::NAN };
    }
    if x.abs() >= 4_503_599_627_370_496.0 {
        return 0.0f64.copysign(x);
    }
    let (k, y) = reduce_half(x);
    if y == 0.0 {
        return match k & 3 {
            1 => 1.0,
            3 => -1.0,
            _ => 0.0f64.copysign(x),
        };
    }
    let (s, c) = sincos_pi_reduced(y);
    match k & 3 {
        0 => s,
        1 => c,
        2 => -s,
        _ => -c,
    }
}

/// `cos(pi·x)`; `cospi(n + 0.5) = +0`.
pub extern "C" fn clift_cospi_f64(x: f64) -> f64 {
    if !x.is_finite() {
        return if x.is_nan() { x } else { f64::NAN };
    }
    let ax = x.abs();
    if ax >= 4_503_599_627_370_496.0 {
        return if big_is_odd(ax) { -1.0 } else { 1.0 };
    }
    let (k, y) = reduce_half(x);
    if y == 0.0 {
        return match k & 3 {
            0 => 1.0,
            2 => -1.0,
            _ => 0.0,
        };
    }
    let (s, c) = sincos_pi_reduced(y);
    match k & 3 {
        0 => c,
        1 => -s,
        2 => -c,
        _ => s,
    }
}

/// `tan(pi·x)` with section 7.5.1's signed zeros at integers and signed infinities at
/// half-integers; elsewhere `tan(t + dt) = tan t + dt·(1 + tan² t)` on the double-double
/// `pi·y`, or minus its reciprocal in the odd half-quadrants.
pub extern "C" fn clift_tanpi_f64(x: f64) -> f64 {
    if !x.is_finite() {
        return if x.is_nan() { x } else { f64::NAN };
    }
    let ax = x.abs();
    if ax >= 4_503_599_627_370_496.0 {
        return 0.0f64.copysign(if big_is_odd(ax) { -x } else { x });
    }
    let (k, y) = reduce_half(x);
    if y == 0.0 {
        if k & 1 == 0 {
            let odd = (k >> 1) & 1 == 1;
            return 0.0f64.copysign(if odd { -x } else { x });
        }
        return if ((k - 1) >> 1) & 1 == 0 {
            f64::INFINITY
        } else {
            f64::NEG_INFINITY
        };
    }
    let t = if y.abs() < 1e-150 {
        y * PI
    } else {
        let (t, lo) = two_prod(PI, y);
        let dt = lo + PI_LO * y;
        let tn = libm::tan(t);
        tn + dt * (1.0 + tn * tn)
    };
    if k & 1 == 0 { t } else { -1.0 / t }
}

// --- hyperbolic ----------------------------------------------------------------------------

pub extern "C" fn clift_sinh_f64(x: f64) -> f64 {
    libm::sinh(x)
}

pub extern "C" fn clift_cosh_f64(x: f64) -> f64 {
    libm::cosh(x)
}

pub extern "C" fn clift_tanh_f64(x: f64) -> f64 {
    libm::tanh(x)
}

pub extern "C" fn clift_asinh_f64(x: f64) -> f64 {
    libm::asinh(x)
}

/// `acosh(x)`: libm's, except that it returns numbers instead of NaN for `x <= -1`.
pub extern "C" fn clift_acosh_f64(x: f64) -> f64 {
    if x < 1.0 {
        return f64::NAN;
    }
    libm::acosh(x)
}

pub extern "C" fn clift_atanh_f64(x: f64) -> f64 {
    libm::atanh(x)
}

// --- exponential and logarithmic ---------------------------------------------------------

pub extern "C" fn clift_exp_f64(x: f64) -> f64 {
    libm::exp(x)
}

pub extern "C" fn clift_exp2_f64(x: f64) -> f64 {
    libm::exp2(x)
}

/// Powers of ten that are exact `double`s, for integer arguments.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// `10^x` as `e^(x·ln10)` with `x·ln10` a double-double `t + dt`: `e^t + e^t·dt`, within
/// 1.3 ulp as measured. (libm's `exp10` multiplies by log2(10) in plain `double` and reaches
/// 2.8 ulp, close to the 3 allowed.) Exact for the integer arguments whose power of ten is
/// exact.
pub extern "C" fn clift_exp10_f64(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x >= 309.0 {
        return f64::INFINITY;
    }
    if x <= -325.0 {
        return 0.0;
    }
    let n = x as i32;
    if n as f64 == x && (0..23).contains(&n) {
        return POW10[n as usize];
    }
    let (t, lo) = two_prod(x, LN_10);
    let dt = lo + x * LN_10_LO;
    let e = libm::exp(t);
    if e.is_infinite() {
        return e;
    }
    e + e * dt
}

pub extern "C" fn clift_expm1_f64(x: f64) -> f64 {
    libm::expm1(x)
}

pub extern "C" fn clift_log_f64(x: f64) -> f64 {
    libm::log(x)
}

pub extern "C" fn clift_log2_f64(x: f64) -> f64 {
    libm::log2(x)
}

pub extern "C" fn clift_log10_f64(x: f64) -> f64 {
    libm::log10(x)
}

pub extern "C" fn clift_log1p_f64(x: f64) -> f64 {
    libm::log1p(x)
}

/// `logb(x)`: the exponent as a `double` (exact), `-inf` for zeros, `+inf` for infinities.
pub extern "C" fn clift_logb_f64(x: f64) -> f64 {
    if x == 0.0 {
        return f64::NEG_INFINITY;
    }
    if !x.is_finite() {
        return x * x;
    }
    clift_ilogb_f64(x) as f64
}

/// `ilogb(x)`: `FP_ILOGB0` (INT_MIN) for zeros, `FP_ILOGBNAN` (INT_MAX) for NaN, INT_MAX
/// for infinities; subnormals by their true exponent.
pub extern "C" fn clift_ilogb_f64(x: f64) -> i32 {
    if x == 0.0 {
        return FP_ILOGB0;
    }
    if x.is_nan() {
        return FP_ILOGBNAN;
    }
    if x.is_infinite() {
        return i32::MAX;
    }
    let bits = x.to_bits() & 0x7fff_ffff_ffff_ffff;
    if bits < 1 << 52 {
        return -1023 - (bits.leading_zeros() as i32 - 12);
    }
    (bits >> 52) as i32 - 1023
}

/// `frexp(x, exp)`: `x = m·2^exp`, `|m|` in [1/2, 1); `±0`, `±inf`, NaN unchanged with 0
/// stored.
///
/// # Safety
/// `exp` must be valid for writing one `int`.
pub unsafe extern "C" fn clift_frexp_f64(x: f64, exp: *mut i32) -> f64 {
    let (m, e) = if x == 0.0 || !x.is_finite() {
        (x, 0)
    } else {
        let e = clift_ilogb_f64(x) + 1;
        // Two exact steps: 2^-e alone may not be a normal double (e from -1073 to 1024).
        let half = -e / 2;
        (x * exp2i(half) * exp2i(-e - half), e)
    };
    // SAFETY: the caller guarantees `exp` is writable (see `# Safety`).
    unsafe { exp.write(e) };
    m
}

/// `2^k` as a `double`, for `k` in [-1022, 1023].
fn exp2i(k: i32) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// `ldexp(x, k)`: libm's `scalbn`, which pre-scales so that only the last multiplication
/// rounds (correct for subnormal results).
pub extern "C" fn clift_ldexp_f64(x: f64, k: i32) -> f64 {
    libm::scalbn(x, k)
}

// --- power and root ----------------------------------------------------------------------

/// `pow(x, y)`: libm's (FreeBSD `e_pow.c`, < 1 ulp, every C99 F.9.4.4 special case,
/// `pow(±0, -inf) = +inf` included).
pub extern "C" fn clift_pow_f64(x: f64, y: f64) -> f64 {
    libm::pow(x, y)
}

/// `pown(x, n)`: `pow` with the integer exponent, which a `double` holds exactly; `pow`'s
/// integer-exponent special cases are `pown`'s (`pown(x, 0) = 1` even for NaN).
pub extern "C" fn clift_pown_f64(x: f64, n: i32) -> f64 {
    libm::pow(x, n as f64)
}

/// `powr(x, y)` for `x >= 0`, with the special values of section 7.5.1.
pub extern "C" fn clift_powr_f64(x: f64, y: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if y.is_nan() {
        return y;
    }
    if x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 {
        return if y == 0.0 {
            f64::NAN
        } else if y < 0.0 {
            f64::INFINITY
        } else {
            0.0
        };
    }
    if x == f64::INFINITY {
        return if y == 0.0 {
            f64::NAN
        } else if y < 0.0 {
            0.0
        } else {
            f64::INFINITY
        };
    }
    if x == 1.0 {
        return if y.is_infinite() { f64::NAN } else { 1.0 };
    }
    libm::pow(x, y)
}

/// `rootn(x, n)`: `x^(1/n)`. `pow(x, 1/n)` alone would be off by `ln|x|/n · 2^-53`
/// relative (1/n is rounded): hundreds of ulps for `x = 1e300, n = 3`. So for `|n| <= 1000`
/// the exponent is split off exactly: `x = m·2^(q·n + r)` with `0 <= r < |n|` gives
/// `x^(1/n) = 2^q · (m·2^r)^(1/n)`, where `|ln(m·2^r)/n| < 0.7` keeps the error of 1/n below
/// 0.1 ulp. Beyond, `|ln x / n| < 0.75` already.
pub extern "C" fn clift_rootn_f64(x: f64, n: i32) -> f64 {
    if n == 0 {
        return f64::NAN;
    }
    if x.is_nan() {
        return x;
    }
    let odd = n & 1 == 1;
    if x < 0.0 && !odd {
        return f64::NAN;
    }
    let negative = x.is_sign_negative() && odd;
    let ax = x.abs();
    let v = if ax == 0.0 {
        if n < 0 { f64::INFINITY } else { 0.0 }
    } else if ax == f64::INFINITY {
        if n < 0 { 0.0 } else { f64::INFINITY }
    } else if n.unsigned_abs() <= 1000 {
        let e = clift_ilogb_f64(ax);
        // m in [1, 2), in two exact steps as in frexp.
        let half = -e / 2;
        let m = ax * exp2i(half) * exp2i(-e - half);
        let (q, r) = (e.div_euclid(n), e.rem_euclid(n));
        let z = m * exp2i(r);
        libm::scalbn(libm::pow(z, 1.0 / n as f64), q)
    } else {
        libm::pow(ax, 1.0 / n as f64)
    };
    if negative { -v } else { v }
}

/// `sqrt(x)`: the IEEE square root, correctly rounded.
pub extern "C" fn clift_sqrt_f64(x: f64) -> f64 {
    x.sqrt()
}

/// `1/sqrt(x)`: two correctly rounded steps, within 1.5 ulp (of the 2 allowed).
pub extern "C" fn clift_rsqrt_f64(x: f64) -> f64 {
    1.0 / x.sqrt()
}

pub extern "C" fn clift_cbrt_f64(x: f64) -> f64 {
    libm::cbrt(x)
}

pub extern "C" fn clift_hypot_f64(x: f64, y: f64) -> f64 {
    libm::hypot(x, y)
}

// --- error and gamma ---------------------------------------------------------------------

pub extern "C" fn clift_erf_f64(x: f64) -> f64 {
    libm::erf(x)
}

pub extern "C" fn clift_erfc_f64(x: f64) -> f64 {
    libm::erfc(x)
}

pub extern "C" fn clift_tgamma_f64(x: f64) -> f64 {
    libm::tgamma(x)
}

pub extern "C" fn clift_lgamma_f64(x: f64) -> f64 {
    libm::lgamma(x)
}

/// `lgamma_r(x, signp)`: 0 stored in `signp` at the poles (zero and negative integers).
///
/// # Safety
/// `signp` must be valid for writing one `int`.
pub unsafe extern "C" fn clift_lgamma_r_f64(x: f64, signp: *mut i32) -> f64 {
    let (v, s) = libm::lgamma_r(x);
    let pole = x == 0.0 || (x < 0.0 && libm::floor(x) == x);
    // SAFETY: the caller guarantees `signp` is writable (see `# Safety`).
    unsafe { signp.write(if pole { 0 } else { s }) };
    v
}

// --- rounding and decomposition ----------------------------------------------------------

pub extern "C" fn clift_ceil_f64(x: f64) -> f64 {
    libm::ceil(x)
}

pub extern "C" fn clift_floor_f64(x: f64) -> f64 {
    libm::floor(x)
}

pub extern "C" fn clift_trunc_f64(x: f64) -> f64 {
    libm::trunc(x)
}

/// `round(x)`: halfway cases away from zero.
pub extern "C" fn clift_round_f64(x: f64) -> f64 {
    libm::round(x)
}

/// `rint(x)`: to nearest, ties to even.
pub extern "C" fn clift_rint_f64(x: f64) -> f64 {
    libm::rint(x)
}

/// `fract(x, iptr)`: `fmin(x - floor(x), 0x1.fffffffffffffp-1)`, `floor(x)` stored; the
/// section 7.5.1 values for zeros, infinities and NaN.
///
/// # Safety
/// `iptr` must be valid for writing one `double`.
pub unsafe extern "C" fn clift_fract_f64(x: f64, iptr: *mut f64) -> f64 {
    let fl = libm::floor(x);
    // SAFETY: the caller guarantees `iptr` is writable (see `# Safety`).
    unsafe { iptr.write(fl) };
    if x.is_nan() || x == 0.0 {
        return x;
    }
    if x.is_infinite() {
        return 0.0f64.copysign(x);
    }
    let f = x - fl;
    if f < BELOW_ONE { f } else { BELOW_ONE }
}

/// `modf(x, iptr)`: integral part stored, fractional part returned, both with `x`'s sign.
///
/// # Safety
/// `iptr` must be valid for writing one `double`.
pub unsafe extern "C" fn clift_modf_f64(x: f64, iptr: *mut f64) -> f64 {
    let t = libm::trunc(x);
    // SAFETY: the caller guarantees `iptr` is writable (see `# Safety`).
    unsafe { iptr.write(t) };
    if x.is_nan() {
        return x;
    }
    if x.is_infinite() {
        return 0.0f64.copysign(x);
    }
    (x - t).copysign(x)
}

pub extern "C" fn clift_fmod_f64(x: f64, y: f64) -> f64 {
    libm::fmod(x, y)
}

/// `remainder(x, y)`: `fmod` and the quotient's parity ([`remainder`]).
pub extern "C" fn clift_remainder_f64(x: f64, y: f64) -> f64 {
    remainder::remquo_f64(x, y, 1).0
}

/// `remquo(x, y, quo)`: remainder, and the sign and low 7 bits of the quotient
/// ([`remainder`]); 0 in `quo` whenever the result is NaN (section 7.5.1).
///
/// # Safety
/// `quo` must be valid for writing one `int`.
pub unsafe extern "C" fn clift_remquo_f64(x: f64, y: f64, quo: *mut i32) -> f64 {
    let (r, q) = remainder::remquo_f64(x, y, remainder::REMQUO_MASK);
    // SAFETY: the caller guarantees `quo` is writable (see `# Safety`).
    unsafe { quo.write(q) };
    r
}

// --- comparison, sign and bits -----------------------------------------------------------

pub extern "C" fn clift_fabs_f64(x: f64) -> f64 {
    x.abs()
}

pub extern "C" fn clift_copysign_f64(x: f64, y: f64) -> f64 {
    x.copysign(y)
}

/// `fdim(x, y)`: `x - y` if `x > y`, `+0` otherwise, NaN if either is NaN.
pub extern "C" fn clift_fdim_f64(x: f64, y: f64) -> f64 {
    if x.is_nan() || y.is_nan() {
        x + y
    } else if x > y {
        x - y
    } else {
        0.0
    }
}

/// `fmax(x, y)`: "if x < y return y, otherwise x"; a NaN argument yields the other.
pub extern "C" fn clift_fmax_f64(x: f64, y: f64) -> f64 {
    if x.is_nan() || x < y { y } else { x }
}

/// `fmin(x, y)`: "if y < x return y, otherwise x"; a NaN argument yields the other.
pub extern "C" fn clift_fmin_f64(x: f64, y: f64) -> f64 {
    if x.is_nan() || y < x { y } else { x }
}

/// `maxmag(x, y)`: the argument of larger magnitude, `fmax(x, y)` on a tie.
pub extern "C" fn clift_maxmag_f64(x: f64, y: f64) -> f64 {
    let (ax, ay) = (x.abs(), y.abs());
    if ax > ay {
        x
    } else if ay > ax {
        y
    } else {
        clift_fmax_f64(x, y)
    }
}

/// `minmag(x, y)`: the argument of smaller magnitude, `fmin(x, y)` on a tie.
pub extern "C" fn clift_minmag_f64(x: f64, y: f64) -> f64 {
    let (ax, ay) = (x.abs(), y.abs());
    if ax < ay {
        x
    } else if ay < ax {
        y
    } else {
        clift_fmin_f64(x, y)
    }
}

pub extern "C" fn clift_nextafter_f64(x: f64, y: f64) -> f64 {
    libm::nextafter(x, y)
}

/// `nan(nancode)`: a quiet NaN carrying the low 51 bits of `nancode`.
pub extern "C" fn clift_nan_f64(nancode: u64) -> f64 {
    f64::from_bits(0x7ff8_0000_0000_0000 | (nancode & 0x0007_ffff_ffff_ffff))
}

// --- multiply-add --------------------------------------------------------------------------

/// `fma(a, b, c)`: libm's exact fused multiply-add.
pub extern "C" fn clift_fma_f64(a: f64, b: f64, c: f64) -> f64 {
    libm::fma(a, b, c)
}

/// `mad(a, b, c)`: product and sum, two roundings (any accuracy is allowed).
pub extern "C" fn clift_mad_f64(a: f64, b: f64, c: f64) -> f64 {
    a * b + c
}
