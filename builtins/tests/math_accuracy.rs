//! Accuracy of the math builtins, in ulps, against references of higher precision.
//!
//! - `float`: every function against its value computed in `double` (libm's `double`
//!   function, within a few `double` ulps, or an exact formula): the reference's own error is
//!   below 2^-25 `float` ulp, so the measured errors are the real ones to that precision.
//!   Most `float` functions *are* the libm `double` function rounded, so the one-argument
//!   ones are also checked against the double-double references of the `double` tests (on the
//!   special values and 20,000 of each random set), which libm's own errors cannot fool.
//! - `double`: against double-double references written below (106 bits: exp/log by series and
//!   Newton, sin/cos by series after a 160-bit reduction, inverse functions by Newton,
//!   erf/erfc by series and continued fraction, gamma by Stirling), for the functions and
//!   argument ranges where such a reference is simple; see `f64_cases` for which.
//!
//! Errors are measured as the CTS does: `|test - reference| / ulp(reference)`, where the
//! ulp is that of the reference's binade, of the binade below when the reference is an exact
//! power of two (section 7.4's definition: the gap between the two floats nearest a value),
//! and 2^-149 (2^-1074) at the bottom; an infinite result counts as 2^128 (2^1024). NaN must
//! match NaN.
//!
//! Inputs: (a) the special values and edge cases (zeros, infinities, NaN, subnormals,
//! extreme normals, integers and half-integers, floats nearest multiples of pi/2, large
//! trigonometric arguments to 1e30, overflow thresholds), (b) 200,000 random floats with
//! uniformly random bits, spread over the whole exponent range, and (c) 200,000 random floats
//! in each function's interesting interval. xorshift, fixed seed.
//!
//! `accuracy_table` (ignored) prints the Markdown table of measured maxima against the
//! bounds: `cargo test --release -p clift-builtins --test math_accuracy -- --ignored
//! --nocapture accuracy_table`. `exhaustive_f32` (ignored, long) checks every `float`
//! argument of the one-argument functions: `cargo test --release -p clift-builtins --test
//! math_accuracy -- --ignored --nocapture exhaustive_f32` (`CLIFT_EXHAUSTIVE_SPAN=24` to
//! check only 2^24 arguments spread evenly over the range and print the projected time).

use clift_builtins::math::*;
use std::f64::consts::PI;

// --- measurement ---------------------------------------------------------------------------

/// Random numbers: xorshift64*.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn bits32(&mut self) -> f32 {
        f32::from_bits(self.next() as u32)
    }
    fn bits64(&mut self) -> f64 {
        f64::from_bits(self.next())
    }
    /// Uniform in [lo, hi].
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * ((self.next() >> 11) as f64 / (1u64 << 53) as f64)
    }
    fn int(&mut self, lo: i32, hi: i32) -> i32 {
        lo + (self.next() % (hi - lo + 1) as u64) as i32
    }
}

/// Error of a `float` result in ulps of the `double` reference (CTS rules, see the top).
fn ulps_f32(test: f32, reference: f64) -> f64 {
    ulps_f32_dd(test, reference, 0.0)
}

/// Error of a `float` result in ulps of the reference `hi + lo` (a double-double).
fn ulps_f32_dd(test: f32, hi: f64, lo: f64) -> f64 {
    if hi.is_nan() || test.is_nan() {
        return if hi.is_nan() && test.is_nan() {
            0.0
        } else {
            f64::INFINITY
        };
    }
    if hi.is_infinite() || ((hi + lo) as f32).is_infinite() {
        // The correctly rounded result overflows: only that infinity is right.
        return if test == (hi + lo) as f32 {
            0.0
        } else {
            f64::INFINITY
        };
    }
    let t = if test.is_infinite() {
        2f64.powi(128).copysign(test as f64)
    } else {
        test as f64
    };
    ((t - hi) - lo).abs() / ulp_unit(hi, lo, -126, 23)
}

/// The ulp of the value `hi + lo` for a format of `mantissa` fraction bits and minimum
/// exponent `min_exp`: that of its binade, of the binade below when the value is an exact
/// power of two or just below one, `2^(min_exp - mantissa)` at the bottom.
fn ulp_unit(hi: f64, lo: f64, min_exp: i32, mantissa: i32) -> f64 {
    let exp = if hi == 0.0 {
        min_exp
    } else {
        let e = libm::ilogb(hi);
        let power_of_two = hi.to_bits() & 0x000f_ffff_ffff_ffff == 0;
        let below = power_of_two && (lo == 0.0 || lo.signum() != hi.signum());
        (if below { e - 1 } else { e }).max(min_exp)
    };
    2f64.powi(exp - mantissa)
}

/// `ulps <= bound`, false for NaN.
fn within(ulps: f64, bound: f64) -> bool {
    matches!(
        ulps.partial_cmp(&bound),
        Some(std::cmp::Ordering::Less | std::cmp::Ordering::Equal)
    )
}

/// The largest `float` error of a function over its inputs, and the input where it occurs.
#[derive(Clone, Debug)]
struct Worst {
    ulps: f64,
    input: String,
}

impl Worst {
    fn new() -> Worst {
        Worst {
            ulps: 0.0,
            input: String::new(),
        }
    }
    fn note(&mut self, ulps: f64, input: impl FnOnce() -> String) {
        if ulps > self.ulps || (ulps.is_nan() && !self.ulps.is_nan()) {
            self.ulps = ulps;
            self.input = input();
        }
    }
}

// --- inputs --------------------------------------------------------------------------------

const SAMPLES: usize = 200_000;

/// Special values and edge cases of `float` (section 7.5 and beyond).
fn specials_f32() -> Vec<f32> {
    let mut v = vec![
        0.0,
        f32::INFINITY,
        f32::NAN,
        f32::from_bits(1),
        f32::from_bits(2),
        f32::from_bits(0x007f_ffff),
        f32::MIN_POSITIVE,
        f32::from_bits(0x0080_0001),
        f32::MAX,
        f32::EPSILON,
        1.0,
        0.5,
        1.5,
        2.0,
        2.5,
        3.0,
        0.25,
        0.75,
        1e-30,
        1e-20,
        1e-10,
        1e-5,
        1e5,
        1e10,
        1e20,
        1e30,
        1e38,
        8_388_607.5,
        8_388_608.0,
        8_388_609.0,
        16_777_215.0,
        16_777_216.0,
        16_777_218.0,
        88.72,
        88.7228,
        88.723,
        89.0,
        87.33,
        103.97,
        104.0,
        149.0,
        150.0,
        38.5,
        45.0,
        126.0,
        127.0,
        128.0,
        std::f32::consts::PI,
        std::f32::consts::FRAC_PI_2,
        std::f32::consts::FRAC_PI_4,
        std::f32::consts::E,
        0.999_999_94,
        1.000_000_1,
    ];
    for i in 1..=40 {
        v.push(i as f32);
        v.push(i as f32 + 0.5);
        v.push(i as f32 * 0.1);
    }
    // Floats nearest multiples of pi/2, and their neighbours.
    for k in (1..200).chain([1 << 10, 1 << 14, 1 << 18, 1 << 21, 1 << 24, 1 << 27]) {
        let x = (k as f64 * std::f64::consts::FRAC_PI_2) as f32;
        v.extend([x, next_up(x), next_down(x)]);
    }
    // The float nearest a multiple of pi/2 that is hardest to reduce (Payne-Hanek's classic).
    v.push(f32::from_bits(0x5922_aa80));
    v.extend([1e31, 1.7e38, 12_345_678.0, 1.0e9, 3.0e12]);
    let negated: Vec<f32> = v.iter().map(|x| -x).collect();
    v.extend(negated);
    v
}

fn next_up(x: f32) -> f32 {
    f32::from_bits(x.to_bits() + 1)
}

fn next_down(x: f32) -> f32 {
    f32::from_bits(x.to_bits() - 1)
}

/// A smaller set for the two-argument functions (all pairs are tried).
fn pair_specials_f32() -> Vec<f32> {
    let mut v = vec![
        0.0,
        f32::INFINITY,
        f32::NAN,
        f32::from_bits(1),
        f32::from_bits(0x007f_ffff),
        f32::MIN_POSITIVE,
        f32::MAX,
        0.5,
        1.0,
        1.5,
        2.0,
        3.0,
        0.25,
        10.0,
        1e-20,
        1e20,
        8_388_609.0,
        16_777_216.0,
        std::f32::consts::PI,
        0.999_999_94,
        1.000_000_1,
    ];
    let negated: Vec<f32> = v.iter().map(|x| -x).collect();
    v.extend(negated);
    v
}

// --- float references ----------------------------------------------------------------------

/// `sin(pi·x)` in `double`: `x - n` is exact (n = round(x)), and exact zeros are kept.
fn sinpi_ref(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let n = x.round();
    let r = x - n;
    let s = if r == 0.0 { 0.0 } else { libm::sin(PI * r) };
    if n % 2.0 != 0.0 { -s } else { s }
}

fn cospi_ref(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let n = x.round();
    let r = x - n;
    let c = if r.abs() == 0.5 {
        0.0
    } else {
        libm::cos(PI * r)
    };
    if n % 2.0 != 0.0 { -c } else { c }
}

fn tanpi_ref(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let n = x.round();
    let r = x - n;
    if r == 0.0 {
        return 0.0;
    }
    if r.abs() == 0.5 {
        // x = m + 0.5 with m = floor(x): +inf for even m, -inf for odd m.
        let m = x.floor();
        return if m % 2.0 == 0.0 {
            f64::INFINITY
        } else {
            f64::NEG_INFINITY
        };
    }
    libm::tan(PI * r)
}

/// libm's `double` acosh, with the domain check it lacks (it returns numbers for x <= -1).
fn acosh_ref(x: f64) -> f64 {
    if x < 1.0 { f64::NAN } else { libm::acosh(x) }
}

/// OpenCL's `fmax`: "if x < y return y, otherwise x", a NaN argument ignored.
fn fmax_ref(x: f64, y: f64) -> f64 {
    if x.is_nan() || x < y { y } else { x }
}

fn fmin_ref(x: f64, y: f64) -> f64 {
    if x.is_nan() || y < x { y } else { x }
}

fn atan2pi_ref(y: f64, x: f64) -> f64 {
    libm::atan2(y, x) / PI
}

fn powr_ref(x: f64, y: f64) -> f64 {
    if x.is_nan() || y.is_nan() || x < 0.0 {
        return f64::NAN;
    }
    if (y == 0.0 && (x == 0.0 || x.is_infinite())) || (x == 1.0 && y.is_infinite()) {
        return f64::NAN;
    }
    // |x|: powr(-0, y) follows the rules of +0 (+inf for y < 0), unlike pow.
    libm::pow(x.abs(), y)
}

fn rootn_ref(x: f64, n: i32) -> f64 {
    if n == 0 || x.is_nan() || (x < 0.0 && n % 2 == 0) {
        return f64::NAN;
    }
    let v = libm::pow(x.abs(), 1.0 / n as f64);
    if x.is_sign_negative() && n % 2 != 0 {
        -v
    } else {
        v
    }
}

fn fract_ref(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x.is_infinite() {
        return 0.0;
    }
    (x - x.floor()).min(0.999_999_940_395_355_2)
}

/// `ilogb` as a `float` (what the adapter `ilogb_f` returns): FP_ILOGB0 = INT_MIN for
/// zeros, INT_MAX for NaN and infinities.
fn ilogb_ref(x: f64) -> f64 {
    let v = if x == 0.0 {
        i32::MIN
    } else if !x.is_finite() {
        i32::MAX
    } else {
        libm::ilogb(x)
    };
    v as f32 as f64
}

fn frexp_mantissa_ref(x: f64) -> f64 {
    libm::frexp(x).0
}

// --- the float cases -------------------------------------------------------------------------

/// One function of one `float` argument.
struct Case1 {
    name: &'static str,
    f: extern "C" fn(f32) -> f32,
    reference: fn(f64) -> f64,
    bound: f64,
    /// The interval of the (c) random inputs.
    range: (f64, f64),
}

const EXACT: f64 = 0.0;
const ROUNDED: f64 = 0.5;
const TRIG: (f64, f64) = (-1e4, 1e4);
const UNIT: (f64, f64) = (-1.0, 1.0);
const WIDE: (f64, f64) = (-1e6, 1e6);

// Adapters giving the out-pointer and integer-result functions the shape of the others.

extern "C" fn frexp_m(x: f32) -> f32 {
    let mut e = 0;
    // SAFETY: `e` is a live local.
    unsafe { clift_frexp_f32(x, &mut e) }
}

extern "C" fn fract(x: f32) -> f32 {
    let mut i = 0.0;
    // SAFETY: `i` is a live local.
    unsafe { clift_fract_f32(x, &mut i) }
}

extern "C" fn sincos_s(x: f32) -> f32 {
    let mut c = 0.0;
    // SAFETY: `c` is a live local.
    unsafe { clift_sincos_f32(x, &mut c) }
}

extern "C" fn sincos_c(x: f32) -> f32 {
    let mut c = 0.0;
    // SAFETY: `c` is a live local.
    unsafe { clift_sincos_f32(x, &mut c) };
    c
}

extern "C" fn ilogb_f(x: f32) -> f32 {
    clift_ilogb_f32(x) as f32
}

extern "C" fn remquo_r(x: f32, y: f32) -> f32 {
    let mut q = 0;
    // SAFETY: `q` is a live local.
    unsafe { clift_remquo_f32(x, y, &mut q) }
}

extern "C" fn mad1(x: f32, y: f32) -> f32 {
    clift_mad_f32(x, y, 1.0)
}

fn f32_cases() -> Vec<Case1> {
    fn c(
        name: &'static str,
        f: extern "C" fn(f32) -> f32,
        reference: fn(f64) -> f64,
        bound: f64,
        range: (f64, f64),
    ) -> Case1 {
        Case1 {
            name,
            f,
            reference,
            bound,
            range,
        }
    }
    vec![
        c("acos", clift_acos_f32, libm::acos, 4.0, UNIT),
        c(
            "acospi",
            clift_acospi_f32,
            |x| libm::acos(x) / PI,
            5.0,
            UNIT,
        ),
        c("asin", clift_asin_f32, libm::asin, 4.0, UNIT),
        c(
            "asinpi",
            clift_asinpi_f32,
            |x| libm::asin(x) / PI,
            5.0,
            UNIT,
        ),
        c("atan", clift_atan_f32, libm::atan, 5.0, WIDE),
        c(
            "atanpi",
            clift_atanpi_f32,
            |x| libm::atan(x) / PI,
            5.0,
            WIDE,
        ),
        c("acosh", clift_acosh_f32, acosh_ref, 4.0, (1.0, 1e4)),
        c("asinh", clift_asinh_f32, libm::asinh, 4.0, WIDE),
        c("atanh", clift_atanh_f32, libm::atanh, 5.0, UNIT),
        c("cbrt", clift_cbrt_f32, libm::cbrt, 2.0, WIDE),
        c("ceil", clift_ceil_f32, libm::ceil, EXACT, WIDE),
        c("cos", clift_cos_f32, libm::cos, 4.0, TRIG),
        c("cosh", clift_cosh_f32, libm::cosh, 4.0, (-90.0, 90.0)),
        c("cospi", clift_cospi_f32, cospi_ref, 4.0, (-8.0, 8.0)),
        c("erfc", clift_erfc_f32, libm::erfc, 16.0, (-4.0, 11.0)),
        c("erf", clift_erf_f32, libm::erf, 16.0, (-5.0, 5.0)),
        c("exp", clift_exp_f32, libm::exp, 3.0, (-104.0, 89.0)),
        c("exp2", clift_exp2_f32, libm::exp2, 3.0, (-150.0, 128.0)),
        c("exp10", clift_exp10_f32, libm::exp10, 3.0, (-46.0, 39.0)),
        c("expm1", clift_expm1_f32, libm::expm1, 3.0, (-20.0, 89.0)),
        c("fabs", clift_fabs_f32, f64::abs, EXACT, WIDE),
        c("floor", clift_floor_f32, libm::floor, EXACT, WIDE),
        c("fract", fract, fract_ref, ROUNDED, (-10.0, 10.0)),
        c("frexp", frexp_m, frexp_mantissa_ref, EXACT, WIDE),
        c("ilogb", ilogb_f, ilogb_ref, EXACT, WIDE),
        c(
            "lgamma",
            clift_lgamma_f32,
            libm::lgamma,
            f64::INFINITY,
            (-50.0, 50.0),
        ),
        c("log", clift_log_f32, libm::log, 3.0, (0.0, 10.0)),
        c("log2", clift_log2_f32, libm::log2, 3.0, (0.0, 10.0)),
        c("log10", clift_log10_f32, libm::log10, 3.0, (0.0, 10.0)),
        c("log1p", clift_log1p_f32, libm::log1p, 2.0, (-1.0, 10.0)),
        c("logb", clift_logb_f32, libm::logb_ref, EXACT, WIDE),
        c("rint", clift_rint_f32, libm::rint, EXACT, WIDE),
        c("round", clift_round_f32, libm::round, EXACT, WIDE),
        c(
            "rsqrt",
            clift_rsqrt_f32,
            |x| 1.0 / x.sqrt(),
            2.0,
            (0.0, 1e6),
        ),
        c("sin", clift_sin_f32, libm::sin, 4.0, TRIG),
        c("sincos (sin)", sincos_s, libm::sin, 4.0, TRIG),
        c("sincos (cos)", sincos_c, libm::cos, 4.0, TRIG),
        c("sinh", clift_sinh_f32, libm::sinh, 4.0, (-90.0, 90.0)),
        c("sinpi", clift_sinpi_f32, sinpi_ref, 4.0, (-8.0, 8.0)),
        c("sqrt", clift_sqrt_f32, f64::sqrt, ROUNDED, (0.0, 1e6)),
        c("tan", clift_tan_f32, libm::tan, 5.0, TRIG),
        c("tanh", clift_tanh_f32, libm::tanh, 5.0, (-10.0, 10.0)),
        c("tanpi", clift_tanpi_f32, tanpi_ref, 6.0, (-8.0, 8.0)),
        c(
            "tgamma",
            clift_tgamma_f32,
            libm::tgamma,
            16.0,
            (-40.0, 36.0),
        ),
        c("trunc", clift_trunc_f32, libm::trunc, EXACT, WIDE),
        c(
            "half_cos",
            clift_half_cos_f32,
            libm::cos,
            8192.0,
            (-65536.0, 65536.0),
        ),
        c(
            "half_exp",
            clift_half_exp_f32,
            libm::exp,
            8192.0,
            (-104.0, 89.0),
        ),
        c(
            "half_exp2",
            clift_half_exp2_f32,
            libm::exp2,
            8192.0,
            (-150.0, 128.0),
        ),
        c(
            "half_exp10",
            clift_half_exp10_f32,
            libm::exp10,
            8192.0,
            (-46.0, 39.0),
        ),
        c(
            "half_log",
            clift_half_log_f32,
            libm::log,
            8192.0,
            (0.0, 10.0),
        ),
        c(
            "half_log2",
            clift_half_log2_f32,
            libm::log2,
            8192.0,
            (0.0, 10.0),
        ),
        c(
            "half_log10",
            clift_half_log10_f32,
            libm::log10,
            8192.0,
            (0.0, 10.0),
        ),
        c(
            "half_recip",
            clift_half_recip_f32,
            |x| 1.0 / x,
            8192.0,
            WIDE,
        ),
        c(
            "half_rsqrt",
            clift_half_rsqrt_f32,
            |x| 1.0 / x.sqrt(),
            8192.0,
            (0.0, 1e6),
        ),
        c(
            "half_sin",
            clift_half_sin_f32,
            libm::sin,
            8192.0,
            (-65536.0, 65536.0),
        ),
        c(
            "half_sqrt",
            clift_half_sqrt_f32,
            f64::sqrt,
            8192.0,
            (0.0, 1e6),
        ),
        c(
            "half_tan",
            clift_half_tan_f32,
            libm::tan,
            8192.0,
            (-65536.0, 65536.0),
        ),
        c(
            "native_cos",
            clift_native_cos_f32,
            libm::cos,
            f64::INFINITY,
            TRIG,
        ),
        c(
            "native_exp",
            clift_native_exp_f32,
            libm::exp,
            f64::INFINITY,
            (-104.0, 89.0),
        ),
        c(
            "native_exp2",
            clift_native_exp2_f32,
            libm::exp2,
            f64::INFINITY,
            (-150.0, 128.0),
        ),
        c(
            "native_exp10",
            clift_native_exp10_f32,
            libm::exp10,
            f64::INFINITY,
            (-46.0, 39.0),
        ),
        c(
            "native_log",
            clift_native_log_f32,
            libm::log,
            f64::INFINITY,
            (0.0, 10.0),
        ),
        c(
            "native_log2",
            clift_native_log2_f32,
            libm::log2,
            f64::INFINITY,
            (0.0, 10.0),
        ),
        c(
            "native_log10",
            clift_native_log10_f32,
            libm::log10,
            f64::INFINITY,
            (0.0, 10.0),
        ),
        c(
            "native_recip",
            clift_native_recip_f32,
            |x| 1.0 / x,
            f64::INFINITY,
            WIDE,
        ),
        c(
            "native_rsqrt",
            clift_native_rsqrt_f32,
            |x| 1.0 / x.sqrt(),
            f64::INFINITY,
            (0.0, 1e6),
        ),
        c(
            "native_sin",
            clift_native_sin_f32,
            libm::sin,
            f64::INFINITY,
            TRIG,
        ),
        c(
            "native_sqrt",
            clift_native_sqrt_f32,
            f64::sqrt,
            f64::INFINITY,
            (0.0, 1e6),
        ),
        c(
            "native_tan",
            clift_native_tan_f32,
            libm::tan,
            f64::INFINITY,
            TRIG,
        ),
    ]
}

/// libm has no `logb`; the reference is `floor(log2|x|)` from the exponent.
mod libm {
    pub use ::libm::*;
    pub fn logb_ref(x: f64) -> f64 {
        if x == 0.0 {
            return f64::NEG_INFINITY;
        }
        if !x.is_finite() {
            return x.abs();
        }
        ilogb(x) as f64
    }
}

/// The worst error of a one-argument `float` function over all three input sets.
/// How many of each random set are also checked against the double-double reference.
const DD_CROSS_CHECKS: usize = 20_000;

/// The worst error of a one-argument `float` function over all three input sets, against
/// its `double` reference and, where the `double` function of the same name has one, against
/// the double-double reference too (on the special inputs and the first `DD_CROSS_CHECKS` of
/// each random set): most `float` functions are the libm `double` function rounded, and the
/// `double` reference alone would be blind to an error of libm's.
fn measure_f32(
    case: &Case1,
    dd_reference: Option<fn(f64) -> Option<Scaled>>,
    rng: &mut Rng,
) -> Worst {
    let mut worst = Worst::new();
    let mut check = |x: f32, cross: bool| {
        let got = (case.f)(x);
        let reference = (case.reference)(x as f64);
        worst.note(ulps_f32(got, reference), || {
            format!(
                "{x:e} ({:#010x}): got {got:e}, reference {reference:e}",
                x.to_bits()
            )
        });
        if let Some(r) = dd_reference.filter(|_| cross).and_then(|f| f(x as f64)) {
            let hi = libm::scalbn(r.v.hi, r.e);
            let lo = if hi.is_finite() {
                libm::scalbn(r.v.lo, r.e)
            } else {
                0.0
            };
            worst.note(ulps_f32_dd(got, hi, lo), || {
                format!(
                    "{x:e} ({:#010x}): got {got:e}, double-double reference {hi:e}",
                    x.to_bits()
                )
            });
        }
    };
    for x in specials_f32() {
        check(x, true);
    }
    for i in 0..SAMPLES {
        check(rng.bits32(), i < DD_CROSS_CHECKS);
    }
    for i in 0..SAMPLES {
        check(
            rng.uniform(case.range.0, case.range.1) as f32,
            i < DD_CROSS_CHECKS,
        );
    }
    worst
}

/// One function of two `float` arguments (or a `float` and an `int`).
struct Case2 {
    name: &'static str,
    f: extern "C" fn(f32, f32) -> f32,
    reference: fn(f64, f64) -> f64,
    bound: f64,
    range: (f64, f64),
    range_y: (f64, f64),
}

fn f32_cases2() -> Vec<Case2> {
    fn c(
        name: &'static str,
        f: extern "C" fn(f32, f32) -> f32,
        reference: fn(f64, f64) -> f64,
        bound: f64,
        range: (f64, f64),
        range_y: (f64, f64),
    ) -> Case2 {
        Case2 {
            name,
            f,
            reference,
            bound,
            range,
            range_y,
        }
    }
    vec![
        c("atan2", clift_atan2_f32, libm::atan2, 6.0, WIDE, WIDE),
        c("atan2pi", clift_atan2pi_f32, atan2pi_ref, 6.0, WIDE, WIDE),
        c(
            "copysign",
            clift_copysign_f32,
            f64::copysign,
            EXACT,
            WIDE,
            WIDE,
        ),
        c(
            "fdim",
            clift_fdim_f32,
            |x, y| {
                if x.is_nan() || y.is_nan() {
                    f64::NAN
                } else if x > y {
                    x - y
                } else {
                    0.0
                }
            },
            ROUNDED,
            WIDE,
            WIDE,
        ),
        c("fmax", clift_fmax_f32, fmax_ref, EXACT, WIDE, WIDE),
        c("fmin", clift_fmin_f32, fmin_ref, EXACT, WIDE, WIDE),
        c(
            "fmod",
            clift_fmod_f32,
            libm::fmod,
            EXACT,
            WIDE,
            (-100.0, 100.0),
        ),
        c("hypot", clift_hypot_f32, libm::hypot, 4.0, WIDE, WIDE),
        c(
            "maxmag",
            clift_maxmag_f32,
            |x, y| {
                if x.abs() > y.abs() {
                    x
                } else if y.abs() > x.abs() {
                    y
                } else {
                    fmax_ref(x, y)
                }
            },
            EXACT,
            WIDE,
            WIDE,
        ),
        c(
            "minmag",
            clift_minmag_f32,
            |x, y| {
                if x.abs() < y.abs() {
                    x
                } else if y.abs() < x.abs() {
                    y
                } else {
                    fmin_ref(x, y)
                }
            },
            EXACT,
            WIDE,
            WIDE,
        ),
        c(
            "nextafter",
            clift_nextafter_f32,
            |x, y| libm::nextafterf(x as f32, y as f32) as f64,
            EXACT,
            WIDE,
            WIDE,
        ),
        c(
            "pow",
            clift_pow_f32,
            libm::pow,
            16.0,
            (-10.0, 100.0),
            (-30.0, 30.0),
        ),
        c(
            "powr",
            clift_powr_f32,
            powr_ref,
            16.0,
            (0.0, 100.0),
            (-30.0, 30.0),
        ),
        c(
            "half_powr",
            clift_half_powr_f32,
            powr_ref,
            8192.0,
            (0.0, 100.0),
            (-30.0, 30.0),
        ),
        c(
            "native_powr",
            clift_native_powr_f32,
            powr_ref,
            f64::INFINITY,
            (0.0, 100.0),
            (-30.0, 30.0),
        ),
        c(
            "remainder",
            clift_remainder_f32,
            libm::remainder,
            EXACT,
            WIDE,
            (-100.0, 100.0),
        ),
        c(
            "remquo",
            remquo_r,
            libm::remainder,
            EXACT,
            WIDE,
            (-100.0, 100.0),
        ),
        c(
            "divide",
            clift_divide_f32,
            |x, y| x / y,
            ROUNDED,
            WIDE,
            WIDE,
        ),
        c(
            "half_divide",
            clift_half_divide_f32,
            |x, y| x / y,
            8192.0,
            WIDE,
            WIDE,
        ),
        c(
            "native_divide",
            clift_native_divide_f32,
            |x, y| x / y,
            f64::INFINITY,
            WIDE,
            WIDE,
        ),
        c("mad", mad1, |x, y| x * y + 1.0, f64::INFINITY, WIDE, WIDE),
    ]
}

fn measure_f32_2(case: &Case2, rng: &mut Rng) -> Worst {
    let mut worst = Worst::new();
    let mut check = |x: f32, y: f32| {
        let got = (case.f)(x, y);
        let reference = (case.reference)(x as f64, y as f64);
        worst.note(ulps_f32(got, reference), || {
            format!("({x:e}, {y:e}): got {got:e}, reference {reference:e}")
        });
    };
    let specials = pair_specials_f32();
    for &x in &specials {
        for &y in &specials {
            check(x, y);
        }
    }
    for _ in 0..SAMPLES {
        check(rng.bits32(), rng.bits32());
    }
    for _ in 0..SAMPLES {
        let x = rng.uniform(case.range.0, case.range.1) as f32;
        let y = rng.uniform(case.range_y.0, case.range_y.1) as f32;
        check(x, y);
    }
    worst
}

/// `float` functions with an `int` argument.
struct CaseI {
    name: &'static str,
    f: extern "C" fn(f32, i32) -> f32,
    reference: fn(f64, i32) -> f64,
    bound: f64,
    range: (f64, f64),
}

fn f32_cases_int() -> Vec<CaseI> {
    vec![
        CaseI {
            name: "ldexp",
            f: clift_ldexp_f32,
            reference: |x, k| libm::scalbn(x, k.clamp(-1100, 1100)),
            bound: ROUNDED,
            range: WIDE,
        },
        CaseI {
            name: "pown",
            f: clift_pown_f32,
            reference: |x, n| libm::pow(x, n as f64),
            bound: 16.0,
            range: (-10.0, 10.0),
        },
        CaseI {
            name: "rootn",
            f: clift_rootn_f32,
            reference: rootn_ref,
            bound: 16.0,
            range: (-100.0, 100.0),
        },
    ]
}

fn measure_f32_int(case: &CaseI, rng: &mut Rng) -> Worst {
    let mut worst = Worst::new();
    let mut check = |x: f32, n: i32| {
        let got = (case.f)(x, n);
        let reference = (case.reference)(x as f64, n);
        worst.note(ulps_f32(got, reference), || {
            format!("({x:e}, {n}): got {got:e}, reference {reference:e}")
        });
    };
    let ints = [
        0,
        1,
        -1,
        2,
        -2,
        3,
        -3,
        4,
        5,
        -5,
        7,
        24,
        -24,
        127,
        -149,
        150,
        -150,
        16_777_217,
        -16_777_217,
        i32::MAX,
        i32::MIN,
        i32::MIN + 1,
    ];
    for x in specials_f32() {
        for &n in &ints {
            check(x, n);
        }
    }
    for _ in 0..SAMPLES {
        check(rng.bits32(), rng.int(-300, 300));
    }
    for _ in 0..SAMPLES {
        let n = if rng.next().is_multiple_of(8) {
            rng.next() as i32
        } else {
            rng.int(-40, 40)
        };
        check(rng.uniform(case.range.0, case.range.1) as f32, n);
    }
    worst
}

/// `fma`, against the exact `a·b + c` (the product of two floats is exact in `double`; the
/// sum is then a double-double by Knuth's two-sum).
fn measure_fma_f32(rng: &mut Rng) -> Worst {
    let mut worst = Worst::new();
    let mut check = |a: f32, b: f32, c: f32| {
        let got = clift_fma_f32(a, b, c);
        let p = a as f64 * b as f64;
        let s = p + c as f64;
        let bb = s - p;
        let e = (p - (s - bb)) + (c as f64 - bb);
        let e = if s.is_finite() { e } else { 0.0 };
        worst.note(ulps_f32_dd(got, s, e), || {
            format!("({a:e}, {b:e}, {c:e}): got {got:e}")
        });
    };
    let specials = pair_specials_f32();
    for &a in &specials {
        for &b in &specials {
            for &c in &specials[..12] {
                check(a, b, c);
            }
        }
    }
    for _ in 0..SAMPLES {
        check(rng.bits32(), rng.bits32(), rng.bits32());
    }
    for _ in 0..SAMPLES {
        // Products and addends of similar size: where the single rounding matters.
        let a = rng.uniform(-2.0, 2.0) as f32;
        let b = rng.uniform(-2.0, 2.0) as f32;
        let c = -(a as f64 * b as f64 * rng.uniform(0.5, 1.5)) as f32;
        check(a, b, c);
    }
    worst
}

fn all_f32() -> Vec<(String, Worst, f64)> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut out = Vec::new();
    let dd_cases = f64_cases();
    for case in f32_cases() {
        // The half_/native_ variants against the reference of the full function.
        let base = case
            .name
            .trim_start_matches("half_")
            .trim_start_matches("native_");
        // fract and ilogb differ between the formats (the bound below 1, INT_MAX as a float).
        let comparable = !matches!(base, "fract" | "ilogb");
        let dd_reference = dd_cases
            .iter()
            .find(|d| d.name == base && comparable)
            .map(|d| d.reference);
        out.push((
            case.name.to_string(),
            measure_f32(&case, dd_reference, &mut rng),
            case.bound,
        ));
    }
    for case in f32_cases2() {
        out.push((
            case.name.to_string(),
            measure_f32_2(&case, &mut rng),
            case.bound,
        ));
    }
    for case in f32_cases_int() {
        out.push((
            case.name.to_string(),
            measure_f32_int(&case, &mut rng),
            case.bound,
        ));
    }
    out.push(("fma".to_string(), measure_fma_f32(&mut rng), ROUNDED));
    out
}

#[test]
fn float_functions_meet_table_7_1() {
    let mut failures = Vec::new();
    for (name, worst, bound) in all_f32() {
        if !within(worst.ulps, bound) {
            failures.push(format!(
                "{name}: {} ulp > {bound}: {}",
                worst.ulps, worst.input
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// --- double-double references ----------------------------------------------------------------

/// A double-double: the unevaluated sum `hi + lo`, `|lo| <= ulp(hi)/2`, about 106 bits.
#[derive(Clone, Copy, Debug)]
struct Dd {
    hi: f64,
    lo: f64,
}

fn dd(x: f64) -> Dd {
    Dd { hi: x, lo: 0.0 }
}

const fn ddc(hi: f64, lo: f64) -> Dd {
    Dd { hi, lo }
}

/// pi, pi/2, 1/pi, ln 2, ln 10, 1/ln 2, 1/ln 10, ln(2pi)/2, 2/sqrt(pi), 1/sqrt(pi) to 107 bits.
const DD_PI: Dd = ddc(PI, 1.2246467991473532e-16);
const DD_PI_2: Dd = ddc(std::f64::consts::FRAC_PI_2, 6.123233995736766e-17);
const DD_1_PI: Dd = ddc(std::f64::consts::FRAC_1_PI, -1.9678676675182486e-17);
const DD_LN2: Dd = ddc(std::f64::consts::LN_2, 2.3190468138462996e-17);
const DD_LN10: Dd = ddc(std::f64::consts::LN_10, -2.1707562233822494e-16);
const DD_1_LN2: Dd = ddc(std::f64::consts::LOG2_E, 2.0355273740931033e-17);
const DD_1_LN10: Dd = ddc(std::f64::consts::LOG10_E, 1.098319650216765e-17);
const DD_HALF_LN_2PI: Dd = ddc(0.9189385332046728, -3.8782941580672414e-17);
const DD_2_SQRTPI: Dd = ddc(std::f64::consts::FRAC_2_SQRT_PI, 1.533545961316588e-17);
const DD_1_SQRTPI: Dd = ddc(0.5641895835477563, 7.66772980658294e-18);

fn two_sum(a: f64, b: f64) -> Dd {
    let s = a + b;
    let bb = s - a;
    Dd {
        hi: s,
        lo: (a - (s - bb)) + (b - bb),
    }
}

fn quick_two_sum(a: f64, b: f64) -> Dd {
    let s = a + b;
    Dd {
        hi: s,
        lo: b - (s - a),
    }
}

impl std::ops::Add for Dd {
    type Output = Dd;
    fn add(self, o: Dd) -> Dd {
        if !(self.hi + o.hi).is_finite() {
            return dd(self.hi + o.hi);
        }
        let s = two_sum(self.hi, o.hi);
        let t = two_sum(self.lo, o.lo);
        let v = quick_two_sum(s.hi, s.lo + t.hi);
        quick_two_sum(v.hi, t.lo + v.lo)
    }
}

impl std::ops::Neg for Dd {
    type Output = Dd;
    fn neg(self) -> Dd {
        Dd {
            hi: -self.hi,
            lo: -self.lo,
        }
    }
}

impl std::ops::Sub for Dd {
    type Output = Dd;
    fn sub(self, o: Dd) -> Dd {
        self + -o
    }
}

impl std::ops::Mul for Dd {
    type Output = Dd;
    fn mul(self, o: Dd) -> Dd {
        let p = self.hi * o.hi;
        if !p.is_finite() {
            return dd(p);
        }
        let e = self.hi.mul_add(o.hi, -p) + (self.hi * o.lo + self.lo * o.hi);
        quick_two_sum(p, e)
    }
}

impl std::ops::Div for Dd {
    type Output = Dd;
    fn div(self, o: Dd) -> Dd {
        let q1 = self.hi / o.hi;
        if !q1.is_finite() || q1 == 0.0 {
            return dd(q1);
        }
        let r = self - o * dd(q1);
        let q2 = r.hi / o.hi;
        let r = r - o * dd(q2);
        let q3 = r.hi / o.hi;
        quick_two_sum(q1, q2) + dd(q3)
    }
}

impl Dd {
    fn f(self) -> f64 {
        self.hi + self.lo
    }
    fn abs(self) -> Dd {
        if self.hi < 0.0 { -self } else { self }
    }
    fn scale(self, k: i32) -> Dd {
        Dd {
            hi: libm::scalbn(self.hi, k),
            lo: libm::scalbn(self.lo, k),
        }
    }
    fn sqrt(self) -> Dd {
        if self.hi <= 0.0 {
            return dd(self.hi.sqrt());
        }
        let y = self.hi.sqrt();
        let r = self - dd(y) * dd(y);
        quick_two_sum(y, r.hi / (2.0 * y))
    }
}

/// A reference value `v·2^e`: the scale keeps results near the ends of the `double` range
/// (subnormal, or about to overflow) at full precision.
#[derive(Clone, Copy, Debug)]
struct Scaled {
    v: Dd,
    e: i32,
}

fn unscaled(v: Dd) -> Scaled {
    Scaled { v, e: 0 }
}

/// `e^a`, as `v·2^k`.
fn exp_dd(a: Dd) -> Scaled {
    if a.hi.is_nan() {
        return unscaled(a);
    }
    if a.hi > 1e4 {
        return unscaled(dd(f64::INFINITY));
    }
    if a.hi < -1e4 {
        return unscaled(dd(0.0));
    }
    let k = (a.hi / DD_LN2.hi).round();
    let r = (a - DD_LN2 * dd(k)).scale(-10);
    let mut sum = dd(1.0);
    let mut term = dd(1.0);
    for n in 1..16 {
        term = term * r / dd(n as f64);
        sum = sum + term;
    }
    for _ in 0..10 {
        sum = sum * sum;
    }
    Scaled {
        v: sum,
        e: k as i32,
    }
}

fn exp_dd_plain(a: Dd) -> Dd {
    let s = exp_dd(a);
    s.v.scale(s.e)
}

/// `ln(1 + d)` for `|d| <= 1/2`: `2·atanh(d/(2 + d))`, full relative precision.
fn log1p_small(d: Dd) -> Dd {
    let t = d / (dd(2.0) + d);
    let t2 = t * t;
    let mut sum = t;
    let mut power = t;
    for k in 1..40 {
        power = power * t2;
        sum = sum + power / dd((2 * k + 1) as f64);
    }
    sum * dd(2.0)
}

/// `ln(a)` for `a > 0`: a series near 1, else one Newton step on `exp` from libm's `log`.
fn ln_dd(a: Dd) -> Dd {
    let d = a - dd(1.0);
    if d.hi.abs() <= 0.5 {
        return log1p_small(d);
    }
    let y = libm::log(a.hi);
    let e = exp_dd(dd(-y));
    dd(y) + (a.scale(e.e) * e.v - dd(1.0))
}

fn ln_f64(x: f64) -> Dd {
    if x.is_nan() || x < 0.0 {
        return dd(f64::NAN);
    }
    if x == 0.0 {
        return dd(f64::NEG_INFINITY);
    }
    if x.is_infinite() {
        return dd(x);
    }
    ln_dd(dd(x))
}

fn log1p_dd(x: f64) -> Dd {
    if x.is_nan() || x < -1.0 {
        return dd(f64::NAN);
    }
    if x == -1.0 {
        return dd(f64::NEG_INFINITY);
    }
    if x.is_infinite() {
        return dd(x);
    }
    if x.abs() <= 0.5 {
        log1p_small(dd(x))
    } else {
        ln_dd(dd(x) + dd(1.0))
    }
}

fn expm1_dd(x: f64) -> Scaled {
    if x.abs() <= 0.5 {
        let mut sum = dd(x);
        let mut term = dd(x);
        for n in 2..40 {
            term = term * dd(x) / dd(n as f64);
            sum = sum + term;
        }
        return unscaled(sum);
    }
    if x < -50.0 {
        return unscaled(exp_dd_plain(dd(x)) - dd(1.0));
    }
    if x > 700.0 {
        return exp_dd(dd(x));
    }
    unscaled(exp_dd_plain(dd(x)) - dd(1.0))
}

/// Series of sin and cos for `|r| <= 0.8`.
fn sin_series(r: Dd) -> Dd {
    let r2 = r * r;
    let mut term = r;
    let mut sum = r;
    for n in 1..25 {
        term = -(term * r2) / dd(((2 * n) * (2 * n + 1)) as f64);
        sum = sum + term;
    }
    sum
}

fn cos_series(r: Dd) -> Dd {
    let r2 = r * r;
    let mut term = dd(1.0);
    let mut sum = dd(1.0);
    for n in 1..25 {
        term = -(term * r2) / dd(((2 * n - 1) * (2 * n)) as f64);
        sum = sum + term;
    }
    sum
}

/// `x mod pi/2` as `(quadrant, remainder)` with pi/2 to 160 bits (33-bit pieces from
/// FreeBSD's `e_rem_pio2.c`, so `k·piece` is exact): for `|x| < 2^20·pi/2` only.
fn reduce_pio2_dd(x: f64) -> Option<(i64, Dd)> {
    const P1: f64 = 1.5707963267341256;
    const P2: f64 = 6.077100506303966e-11;
    const P3: f64 = 2.0222662487111665e-21;
    const P3T: f64 = 8.4784276603689e-32;
    if x.abs() >= 1_647_099.0 {
        return None;
    }
    let k = (x / DD_PI_2.hi).round();
    let r = two_sum(x, -k * P1) - dd(k * P2) - dd(k * P3) - dd(k * P3T);
    Some((k as i64, r))
}

fn sin_f64_ref(x: f64) -> Option<Scaled> {
    let (k, r) = reduce_pio2_dd(x)?;
    Some(unscaled(match k & 3 {
        0 => sin_series(r),
        1 => cos_series(r),
        2 => -sin_series(r),
        _ => -cos_series(r),
    }))
}

fn cos_f64_ref(x: f64) -> Option<Scaled> {
    let (k, r) = reduce_pio2_dd(x)?;
    Some(unscaled(match k & 3 {
        0 => cos_series(r),
        1 => -sin_series(r),
        2 => -cos_series(r),
        _ => sin_series(r),
    }))
}

fn tan_f64_ref(x: f64) -> Option<Scaled> {
    let (k, r) = reduce_pio2_dd(x)?;
    let (s, c) = (sin_series(r), cos_series(r));
    Some(unscaled(if k & 1 == 0 { s / c } else { -c / s }))
}

/// `x = n + r`, `|r| <= 1/2`, exactly; then the `*pi` functions from the series.
fn pi_reduce(x: f64) -> (f64, f64) {
    let n = x.round();
    (n, x - n)
}

fn sinpi_f64_ref(x: f64) -> Option<Scaled> {
    if !x.is_finite() {
        return Some(unscaled(dd(f64::NAN)));
    }
    let (n, r) = pi_reduce(x);
    let odd = n % 2.0 != 0.0;
    let v = if r == 0.0 {
        dd(0.0)
    } else if r.abs() <= 0.25 {
        sin_series(DD_PI * dd(r))
    } else {
        cos_series(DD_PI * dd(0.5f64.copysign(r) - r)) * dd(1f64.copysign(r))
    };
    Some(unscaled(if odd { -v } else { v }))
}

fn cospi_f64_ref(x: f64) -> Option<Scaled> {
    if !x.is_finite() {
        return Some(unscaled(dd(f64::NAN)));
    }
    let (n, r) = pi_reduce(x);
    let odd = n % 2.0 != 0.0;
    let v = if r.abs() == 0.5 {
        dd(0.0)
    } else if r.abs() <= 0.25 {
        cos_series(DD_PI * dd(r))
    } else {
        sin_series(DD_PI * dd(0.5 - r.abs()))
    };
    Some(unscaled(if odd { -v } else { v }))
}

fn tanpi_f64_ref(x: f64) -> Option<Scaled> {
    let s = sinpi_f64_ref(x)?.v;
    let c = cospi_f64_ref(x)?.v;
    if c.hi == 0.0 {
        let m = x.floor();
        return Some(unscaled(dd(if m % 2.0 == 0.0 {
            f64::INFINITY
        } else {
            f64::NEG_INFINITY
        })));
    }
    Some(unscaled(s / c))
}

/// `atan(a)`: one Newton step on `sin y - a cos y` from libm's atan; `|a| > 1` by
/// `pi/2 - atan(1/a)`.
fn atan_dd(a: Dd) -> Dd {
    if a.hi.is_nan() {
        return a;
    }
    if a.hi.abs() > 1.0 {
        let half_pi = if a.hi > 0.0 { DD_PI_2 } else { -DD_PI_2 };
        if a.hi.is_infinite() {
            return half_pi;
        }
        return half_pi - atan_dd(dd(1.0) / a);
    }
    let y = dd(libm::atan(a.hi));
    let (s, c) = (sin_series(y), cos_series(y));
    y - (s - a * c) / (c + a * s)
}

/// `asin(a)` for `|a| <= 1/2` by Newton on sin; beyond by `pi/2 - 2 asin(sqrt((1-|a|)/2))`.
fn asin_dd(a: Dd) -> Dd {
    if a.hi.abs() > 1.0 || a.hi.is_nan() {
        return dd(f64::NAN);
    }
    if a.hi.abs() <= 0.5 {
        let y = dd(libm::asin(a.hi));
        let (s, c) = (sin_series(y), cos_series(y));
        return y - (s - a) / c;
    }
    let sign = a.hi.signum();
    let t = ((dd(1.0) - a.abs()) * dd(0.5)).sqrt();
    (DD_PI_2 - asin_dd(t) * dd(2.0)) * dd(sign)
}

fn acos_dd(a: Dd) -> Dd {
    if a.hi.abs() > 1.0 || a.hi.is_nan() {
        return dd(f64::NAN);
    }
    if a.hi.abs() <= 0.5 {
        return DD_PI_2 - asin_dd(a);
    }
    if a.hi > 0.0 {
        asin_dd(((dd(1.0) - a) * dd(0.5)).sqrt()) * dd(2.0)
    } else {
        DD_PI - asin_dd(((dd(1.0) + a) * dd(0.5)).sqrt()) * dd(2.0)
    }
}

fn atan2_dd(y: f64, x: f64) -> Dd {
    if y.is_nan() || x.is_nan() {
        return dd(f64::NAN);
    }
    if y == 0.0 || y.is_infinite() || x == 0.0 || x.is_infinite() {
        // Special values: libm's are exact multiples of pi/4 rounded; use the exact ones.
        let q = libm::atan2(y, x) / DD_PI_2.hi;
        let q = (q * 2.0).round() / 2.0;
        return DD_PI_2 * dd(q);
    }
    if y.abs() > x.abs() {
        let half = if y > 0.0 { DD_PI_2 } else { -DD_PI_2 };
        half - atan_dd(dd(x) / dd(y))
    } else {
        let a = atan_dd(dd(y) / dd(x));
        if x > 0.0 {
            a
        } else if y >= 0.0 {
            a + DD_PI
        } else {
            a - DD_PI
        }
    }
}

/// `x^y` as `exp(y·ln|x|)`, sign from the integer `y`; the C99 special cases from libm
/// (they are exact).
fn pow_dd(x: f64, y: f64) -> Scaled {
    let special = libm::pow(x, y);
    if !x.is_finite() || !y.is_finite() || x == 0.0 || special.is_nan() || x == 1.0 || y == 0.0 {
        return unscaled(dd(special));
    }
    let l = ln_dd(dd(x.abs())) * dd(y);
    let mut r = exp_dd(l);
    if x < 0.0 && (y % 2.0).abs() == 1.0 {
        r.v = -r.v;
    }
    r
}

fn rootn_dd(x: f64, n: i32) -> Scaled {
    if n == 0 || x.is_nan() || (x < 0.0 && n % 2 == 0) {
        return unscaled(dd(f64::NAN));
    }
    let odd = n % 2 != 0;
    let neg = x.is_sign_negative() && odd;
    let v = if x == 0.0 {
        unscaled(dd(if n < 0 { f64::INFINITY } else { 0.0 }))
    } else if x.is_infinite() {
        unscaled(dd(if n < 0 { 0.0 } else { f64::INFINITY }))
    } else {
        exp_dd(ln_dd(dd(x.abs())) / dd(n as f64))
    };
    if neg { Scaled { v: -v.v, e: v.e } } else { v }
}

fn cbrt_dd(x: f64) -> Scaled {
    if x == 0.0 || !x.is_finite() {
        return unscaled(dd(x));
    }
    // Scale into [1, 8) exactly, Newton from libm, scale back.
    let e = libm::ilogb(x).div_euclid(3) * 3;
    let m = dd(libm::scalbn(x, -e));
    let y = dd(libm::cbrt(m.hi));
    let y = y - (y * y * y - m) / (dd(3.0) * y * y);
    Scaled { v: y, e: e / 3 }
}

fn hypot_dd(x: f64, y: f64) -> Scaled {
    if x.is_infinite() || y.is_infinite() {
        return unscaled(dd(f64::INFINITY));
    }
    if x.is_nan() || y.is_nan() {
        return unscaled(dd(f64::NAN));
    }
    let big = x.abs().max(y.abs());
    if big == 0.0 {
        return unscaled(dd(0.0));
    }
    let e = libm::ilogb(big);
    let (a, b) = (dd(libm::scalbn(x, -e)), dd(libm::scalbn(y, -e)));
    Scaled {
        v: (a * a + b * b).sqrt(),
        e,
    }
}

fn sinh_dd(x: f64) -> Scaled {
    if !x.is_finite() {
        return unscaled(dd(x));
    }
    if x.abs() < 0.5 {
        let mut sum = dd(x);
        let mut term = dd(x);
        for n in 1..20 {
            term = term * dd(x) * dd(x) / dd(((2 * n) * (2 * n + 1)) as f64);
            sum = sum + term;
        }
        return unscaled(sum);
    }
    let a = exp_dd(dd(x.abs()));
    let b = exp_dd(dd(-x.abs()));
    // (e^|x| - e^-|x|)/2, in the scale of e^|x|.
    let v = (a.v - b.v.scale(b.e - a.e)) * dd(0.5);
    Scaled {
        v: if x < 0.0 { -v } else { v },
        e: a.e,
    }
}

fn cosh_dd(x: f64) -> Scaled {
    if !x.is_finite() {
        return unscaled(dd(x.abs()));
    }
    let a = exp_dd(dd(x.abs()));
    let b = exp_dd(dd(-x.abs()));
    Scaled {
        v: (a.v + b.v.scale(b.e - a.e)) * dd(0.5),
        e: a.e,
    }
}

fn tanh_dd(x: f64) -> Scaled {
    if x.is_nan() {
        return unscaled(dd(x));
    }
    if x.abs() > 40.0 {
        return unscaled(
            dd(1f64.copysign(x))
                - dd(2.0) * exp_dd_plain(dd(-2.0 * x.abs())) * dd(1f64.copysign(x)),
        );
    }
    let e = expm1_dd(2.0 * x).v;
    unscaled(e / (e + dd(2.0)))
}

fn asinh_dd(x: f64) -> Dd {
    if !x.is_finite() || x == 0.0 {
        return dd(x);
    }
    let a = x.abs();
    let v = if a > 1e150 {
        ln_dd(dd(a)) + DD_LN2
    } else {
        // log1p(a + a²/(1 + sqrt(1 + a²))).
        let a2 = dd(a) * dd(a);
        let t = dd(a) + a2 / (dd(1.0) + (dd(1.0) + a2).sqrt());
        if t.hi <= 0.5 {
            log1p_small(t)
        } else {
            ln_dd(dd(1.0) + t)
        }
    };
    if x < 0.0 { -v } else { v }
}

fn acosh_dd(x: f64) -> Dd {
    if x.is_nan() || x < 1.0 {
        return dd(f64::NAN);
    }
    if x.is_infinite() {
        return dd(x);
    }
    if x > 1e150 {
        return ln_dd(dd(x)) + DD_LN2;
    }
    // log1p((x - 1) + sqrt((x - 1)(x + 1))).
    let d = dd(x) - dd(1.0);
    let t = d + (d * (dd(x) + dd(1.0))).sqrt();
    if t.hi <= 0.5 {
        log1p_small(t)
    } else {
        ln_dd(dd(1.0) + t)
    }
}

fn atanh_dd(x: f64) -> Dd {
    if x.is_nan() || x.abs() > 1.0 {
        return dd(f64::NAN);
    }
    if x.abs() == 1.0 {
        return dd(f64::INFINITY.copysign(x));
    }
    // atanh(x) = log1p(2x / (1 - x)) / 2.
    let t = dd(2.0 * x) / (dd(1.0) - dd(x));
    let v = if t.hi.abs() <= 0.5 {
        log1p_small(t)
    } else {
        ln_dd(dd(1.0) + t)
    };
    v * dd(0.5)
}

/// `erf(x)` for `|x| <= 6`: `2/sqrt(pi) · e^(-x²) · Σ 2^n x^(2n+1) / (1·3···(2n+1))`, a
/// series of positive terms (no cancellation).
fn erf_series(x: f64) -> Dd {
    let x2 = dd(x) * dd(x);
    let mut term = dd(x);
    let mut sum = dd(x);
    let mut n = 1;
    while term.hi.abs() > 1e-40 * sum.hi.abs() && n < 2000 {
        term = term * x2 * dd(2.0) / dd((2 * n + 1) as f64);
        sum = sum + term;
        n += 1;
    }
    DD_2_SQRTPI * exp_dd_plain(-x2) * sum
}

/// `erfc(x)` for `x >= 3`: `e^(-x²)/sqrt(pi) · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + ...))))`,
/// the continued fraction evaluated backwards from a deep enough start.
fn erfc_cf(x: f64) -> Scaled {
    let mut f = dd(x);
    for k in (1..400).rev() {
        f = dd(x) + dd(k as f64 * 0.5) / f;
    }
    let x2 = dd(x) * dd(x);
    let e = exp_dd(-x2);
    Scaled {
        v: DD_1_SQRTPI * e.v / f,
        e: e.e,
    }
}

fn erf_dd(x: f64) -> Dd {
    if x.is_nan() {
        return dd(x);
    }
    if x.abs() > 6.0 {
        let c = erfc_cf(x.abs());
        let v = dd(1.0) - c.v.scale(c.e);
        return if x < 0.0 { -v } else { v };
    }
    erf_series(x)
}

fn erfc_dd(x: f64) -> Scaled {
    if x.is_nan() {
        return unscaled(dd(x));
    }
    if x == f64::INFINITY {
        return unscaled(dd(0.0));
    }
    if x >= 3.0 {
        return erfc_cf(x);
    }
    if x <= -6.0 {
        let c = erfc_cf(-x);
        return unscaled(dd(2.0) - c.v.scale(c.e));
    }
    unscaled(dd(1.0) - erf_series(x))
}

/// `ln Γ(x)` for `x >= 40` by Stirling's series (12 terms: the error is below 1e-35).
fn lgamma_stirling(x: Dd) -> Dd {
    // B_2k / (2k (2k - 1)) as numerator / denominator.
    const TERMS: [(f64, f64); 12] = [
        (1.0, 12.0),
        (-1.0, 360.0),
        (1.0, 1260.0),
        (-1.0, 1680.0),
        (1.0, 1188.0),
        (-691.0, 360360.0),
        (1.0, 156.0),
        (-3617.0, 122400.0),
        (43867.0, 244188.0),
        (-174611.0, 125400.0),
        (77683.0, 5796.0),
        (-236364091.0, 1506960.0),
    ];
    let mut v = (x - dd(0.5)) * ln_dd(x) - x + DD_HALF_LN_2PI;
    let inv = dd(1.0) / x;
    let inv2 = inv * inv;
    let mut power = inv;
    for (num, den) in TERMS {
        v = v + dd(num) / dd(den) * power;
        power = power * inv2;
    }
    v
}

/// `Γ(x)` for finite `x` that is not a pole: Stirling after shifting `x` up to 40, the
/// reflection formula `Γ(x) = pi / (sin(pi x) Γ(1 - x))` for `x < 1/2` (with `1 - x` as a
/// double-double: it is not exact in `double`).
fn tgamma_dd(x: f64) -> Scaled {
    if x < 0.5 {
        let s = sinpi_f64_ref(x).unwrap().v;
        let g = tgamma_from(dd(1.0) - dd(x));
        let v = DD_PI / (s * g.v);
        return Scaled { v, e: -g.e };
    }
    tgamma_from(dd(x))
}

/// `x(x+1)···(x+n-1)` and `x + n >= 40`.
fn shift_up(x: Dd) -> (Dd, Dd) {
    let mut shift = dd(1.0);
    let mut y = x;
    while y.hi < 40.0 {
        shift = shift * y;
        y = y + dd(1.0);
    }
    (shift, y)
}

fn tgamma_from(x: Dd) -> Scaled {
    let (shift, y) = shift_up(x);
    exp_dd(lgamma_stirling(y) - ln_dd(shift))
}

/// `ln|Γ(x)|`; near its zeros (x = 1, 2, and between negative integers) only absolutely
/// accurate (2^-100), so its relative accuracy there is lower: lgamma has no bound to meet.
fn lgamma_dd(x: f64) -> Dd {
    if x.abs() < 1e-280 {
        // ln|Γ(x)| = -ln|x| - γx + O(x²): the reflection's sin(pi x) would be subnormal.
        return -ln_f64(x.abs());
    }
    if x < 0.5 {
        let s = sinpi_f64_ref(x).unwrap().v.abs();
        let (shift, y) = shift_up(dd(1.0) - dd(x));
        return ln_dd(DD_PI) - ln_dd(s) - (lgamma_stirling(y) - ln_dd(shift));
    }
    let (shift, y) = shift_up(dd(x));
    lgamma_stirling(y) - ln_dd(shift)
}

// --- the double cases ------------------------------------------------------------------------

const SAMPLES_F64: usize = 100_000;

/// Error of a `double` result in ulps of the reference `v·2^e` (CTS rules).
fn ulps_f64(test: f64, r: Scaled) -> f64 {
    let Scaled { mut v, mut e } = r;
    if v.hi != 0.0 && v.hi.abs() < 1e-250 {
        // Keep the scaled value normal (its lo part too).
        v = v.scale(600);
        e -= 600;
    }
    if v.hi.is_nan() || test.is_nan() {
        return if v.hi.is_nan() && test.is_nan() {
            0.0
        } else {
            f64::INFINITY
        };
    }
    let rounded = libm::scalbn(v.hi + v.lo, e);
    if v.hi.is_infinite() || rounded.is_infinite() {
        return if test == rounded { 0.0 } else { f64::INFINITY };
    }
    if v.hi == 0.0 {
        return (test / pow2(-1074)).abs();
    }
    let t = if test.is_infinite() {
        // 2^1024, scaled down by 2^e.
        libm::scalbn(2f64.powi(1000).copysign(test), 24 - e)
    } else {
        libm::scalbn(test, -e)
    };
    if !t.is_finite() {
        return f64::INFINITY;
    }
    // The reference's ulp, in the scaled domain.
    let exp_hi = libm::ilogb(v.hi);
    let power_of_two = v.hi.to_bits() & 0x000f_ffff_ffff_ffff == 0;
    let below = power_of_two && (v.lo == 0.0 || v.lo.signum() != v.hi.signum());
    let true_exp = (if below { exp_hi - 1 } else { exp_hi } + e).max(-1022);
    let ulp = pow2(true_exp - 52 - e);
    ((t - v.hi) - v.lo).abs() / ulp
}

/// `2^k` for any `k` in the `double` range, subnormals included (`powi` is not exact there).
fn pow2(k: i32) -> f64 {
    libm::scalbn(1.0, k)
}

/// Special values and edge cases of `double`.
fn specials_f64() -> Vec<f64> {
    let mut v = vec![
        0.0,
        f64::INFINITY,
        f64::NAN,
        f64::from_bits(1),
        f64::from_bits(0x000f_ffff_ffff_ffff),
        f64::MIN_POSITIVE,
        f64::MAX,
        f64::EPSILON,
        1.0,
        0.5,
        1.5,
        2.0,
        0.25,
        0.75,
        1e-300,
        1e-100,
        1e-20,
        1e-8,
        1e5,
        1e20,
        1e100,
        1e300,
        4_503_599_627_370_495.5,
        4_503_599_627_370_496.0,
        4_503_599_627_370_497.0,
        9_007_199_254_740_992.0,
        709.78,
        709.79,
        -708.4,
        -745.1,
        -745.2,
        1024.0,
        -1074.0,
        -1075.0,
        308.25,
        308.26,
        -323.3,
        171.6,
        171.7,
        std::f64::consts::PI,
        std::f64::consts::FRAC_PI_2,
        std::f64::consts::E,
        1.0 - f64::EPSILON / 2.0,
        1.0 + f64::EPSILON,
    ];
    for i in 1..=40 {
        v.push(i as f64);
        v.push(i as f64 + 0.5);
        v.push(i as f64 * 0.1);
    }
    for k in (1..100).chain([1 << 10, 1 << 15, 1 << 19]) {
        let x = k as f64 * std::f64::consts::FRAC_PI_2;
        v.extend([
            x,
            f64::from_bits(x.to_bits() + 1),
            f64::from_bits(x.to_bits() - 1),
        ]);
    }
    let negated: Vec<f64> = v.iter().map(|x| -x).collect();
    v.extend(negated);
    v
}

fn pair_specials_f64() -> Vec<f64> {
    let mut v = vec![
        0.0,
        f64::INFINITY,
        f64::NAN,
        f64::from_bits(1),
        f64::MIN_POSITIVE,
        f64::MAX,
        0.5,
        1.0,
        1.5,
        2.0,
        3.0,
        10.0,
        1e-300,
        1e300,
        9_007_199_254_740_993.0,
        std::f64::consts::PI,
        1.0 - f64::EPSILON / 2.0,
        1.0 + f64::EPSILON,
    ];
    let negated: Vec<f64> = v.iter().map(|x| -x).collect();
    v.extend(negated);
    v
}

/// Where a `double` function's reference comes from (a column of the table).
#[derive(Clone, Copy, PartialEq, Eq)]
enum RefKind {
    /// Double-double (or exact) reference, independent of the implementation.
    Independent,
    /// Double-double reference for part of the argument range only (noted).
    Partial(&'static str),
    /// An exact reference (the result is a representable number computed exactly).
    Exact,
}

struct Case1d {
    name: &'static str,
    f: extern "C" fn(f64) -> f64,
    reference: fn(f64) -> Option<Scaled>,
    bound: f64,
    range: (f64, f64),
    kind: RefKind,
}

/// `c·x` for tiny `x`, scaled so that the double-double keeps its low part (`f(x) = c·x` to
/// within a relative 2^-1200 there).
fn tiny_linear(x: f64, c: Dd) -> Option<Scaled> {
    if x != 0.0 && x.abs() < 1e-180 {
        Some(Scaled {
            v: c * dd(libm::scalbn(x, 600)),
            e: -600,
        })
    } else {
        None
    }
}

fn u(v: Dd) -> Option<Scaled> {
    Some(unscaled(v))
}

/// Non-finite and zero arguments of the odd functions `f(±0) = ±0`, `f(±inf)` given.
fn dd_or_special(x: f64, at_inf: f64, f: impl Fn(f64) -> Dd) -> Option<Scaled> {
    if x.is_nan() || x == 0.0 {
        return u(dd(x));
    }
    if x.is_infinite() {
        return u(dd(at_inf.copysign(x)));
    }
    u(f(x))
}

// Adapters for the pointer and integer functions.

extern "C" fn frexp_m64(x: f64) -> f64 {
    let mut e = 0;
    // SAFETY: `e` is a live local.
    unsafe { clift_frexp_f64(x, &mut e) }
}

extern "C" fn fract64(x: f64) -> f64 {
    let mut i = 0.0;
    // SAFETY: `i` is a live local.
    unsafe { clift_fract_f64(x, &mut i) }
}

extern "C" fn sincos_s64(x: f64) -> f64 {
    let mut c = 0.0;
    // SAFETY: `c` is a live local.
    unsafe { clift_sincos_f64(x, &mut c) }
}

extern "C" fn sincos_c64(x: f64) -> f64 {
    let mut c = 0.0;
    // SAFETY: `c` is a live local.
    unsafe { clift_sincos_f64(x, &mut c) };
    c
}

extern "C" fn ilogb_f64(x: f64) -> f64 {
    clift_ilogb_f64(x) as f64
}

extern "C" fn remquo_r64(x: f64, y: f64) -> f64 {
    let mut q = 0;
    // SAFETY: `q` is a live local.
    unsafe { clift_remquo_f64(x, y, &mut q) }
}

extern "C" fn mad1_64(x: f64, y: f64) -> f64 {
    clift_mad_f64(x, y, 1.0)
}

fn exact(v: f64) -> Option<Scaled> {
    u(dd(v))
}

fn f64_cases() -> Vec<Case1d> {
    use RefKind::*;
    fn c(
        name: &'static str,
        f: extern "C" fn(f64) -> f64,
        reference: fn(f64) -> Option<Scaled>,
        bound: f64,
        range: (f64, f64),
        kind: RefKind,
    ) -> Case1d {
        Case1d {
            name,
            f,
            reference,
            bound,
            range,
            kind,
        }
    }
    let trig = Partial("|x| < 1.6e6 (2^20·pi/2)");
    vec![
        c(
            "acos",
            clift_acos_f64,
            |x| u(acos_dd(dd(x))),
            4.0,
            UNIT,
            Independent,
        ),
        c(
            "acospi",
            clift_acospi_f64,
            |x| u(acos_dd(dd(x)) * DD_1_PI),
            5.0,
            UNIT,
            Independent,
        ),
        c(
            "asin",
            clift_asin_f64,
            |x| u(if x == 0.0 { dd(x) } else { asin_dd(dd(x)) }),
            4.0,
            UNIT,
            Independent,
        ),
        c(
            "asinpi",
            clift_asinpi_f64,
            |x| {
                tiny_linear(x, DD_1_PI).or_else(|| {
                    u(if x == 0.0 {
                        dd(x)
                    } else {
                        asin_dd(dd(x)) * DD_1_PI
                    })
                })
            },
            5.0,
            UNIT,
            Independent,
        ),
        c(
            "atan",
            clift_atan_f64,
            |x| dd_or_special(x, DD_PI_2.hi, |x| atan_dd(dd(x))),
            5.0,
            WIDE,
            Independent,
        ),
        c(
            "atanpi",
            clift_atanpi_f64,
            |x| {
                tiny_linear(x, DD_1_PI)
                    .or_else(|| dd_or_special(x, 0.5, |x| atan_dd(dd(x)) * DD_1_PI))
            },
            5.0,
            WIDE,
            Independent,
        ),
        c(
            "acosh",
            clift_acosh_f64,
            |x| u(acosh_dd(x)),
            4.0,
            (1.0, 1e4),
            Independent,
        ),
        c(
            "asinh",
            clift_asinh_f64,
            |x| u(asinh_dd(x)),
            4.0,
            WIDE,
            Independent,
        ),
        c(
            "atanh",
            clift_atanh_f64,
            |x| u(if x == 0.0 { dd(x) } else { atanh_dd(x) }),
            5.0,
            UNIT,
            Independent,
        ),
        c(
            "cbrt",
            clift_cbrt_f64,
            |x| Some(cbrt_dd(x)),
            2.0,
            WIDE,
            Independent,
        ),
        c(
            "ceil",
            clift_ceil_f64,
            |x| exact(x.ceil()),
            EXACT,
            WIDE,
            Exact,
        ),
        c("cos", clift_cos_f64, cos_f64_ref, 4.0, TRIG, trig),
        c(
            "cosh",
            clift_cosh_f64,
            |x| Some(cosh_dd(x)),
            4.0,
            (-710.0, 710.0),
            Independent,
        ),
        c(
            "cospi",
            clift_cospi_f64,
            cospi_f64_ref,
            4.0,
            (-8.0, 8.0),
            Independent,
        ),
        c(
            "erfc",
            clift_erfc_f64,
            |x| Some(erfc_dd(x)),
            16.0,
            (-6.0, 27.0),
            Independent,
        ),
        c(
            "erf",
            clift_erf_f64,
            |x| tiny_linear(x, DD_2_SQRTPI).or_else(|| dd_or_special(x, 1.0, erf_dd)),
            16.0,
            (-6.0, 6.0),
            Independent,
        ),
        c(
            "exp",
            clift_exp_f64,
            |x| Some(exp_dd(dd(x))),
            3.0,
            (-746.0, 710.0),
            Independent,
        ),
        c(
            "exp2",
            clift_exp2_f64,
            |x| Some(exp_dd(DD_LN2 * dd(x))),
            3.0,
            (-1075.0, 1024.0),
            Independent,
        ),
        c(
            "exp10",
            clift_exp10_f64,
            |x| Some(exp_dd(DD_LN10 * dd(x))),
            3.0,
            (-324.0, 309.0),
            Independent,
        ),
        c(
            "expm1",
            clift_expm1_f64,
            |x| {
                if x.is_infinite() {
                    exact(if x > 0.0 { x } else { -1.0 })
                } else {
                    Some(expm1_dd(x))
                }
            },
            3.0,
            (-40.0, 710.0),
            Independent,
        ),
        c(
            "fabs",
            clift_fabs_f64,
            |x| exact(x.abs()),
            EXACT,
            WIDE,
            Exact,
        ),
        c(
            "floor",
            clift_floor_f64,
            |x| exact(x.floor()),
            EXACT,
            WIDE,
            Exact,
        ),
        c(
            "fract",
            fract64,
            |x| {
                if !x.is_finite() {
                    return exact(if x.is_nan() { x } else { 0.0 });
                }
                let d = two_sum(x, -x.floor());
                u(if d.f() >= 1.0 {
                    dd(0.999_999_999_999_999_9)
                } else {
                    d
                })
            },
            ROUNDED,
            (-10.0, 10.0),
            Independent,
        ),
        c(
            "frexp",
            frexp_m64,
            |x| exact(libm::frexp(x).0),
            EXACT,
            WIDE,
            Exact,
        ),
        c(
            "ilogb",
            ilogb_f64,
            |x| {
                exact(if x == 0.0 {
                    i32::MIN as f64
                } else if !x.is_finite() {
                    i32::MAX as f64
                } else {
                    libm::ilogb(x) as f64
                })
            },
            EXACT,
            WIDE,
            Exact,
        ),
        c(
            "lgamma",
            clift_lgamma_f64,
            |x| {
                if !x.is_finite() || x == 0.0 || (x < 0.0 && x == x.floor()) || x.abs() > 1e15 {
                    return None;
                }
                if x == 1.0 || x == 2.0 {
                    return exact(0.0);
                }
                // Near its zeros the reference is only absolutely accurate (2^-92).
                let v = lgamma_dd(x);
                if v.hi.abs() < 2f64.powi(-30) {
                    return None;
                }
                u(v)
            },
            f64::INFINITY,
            (-50.0, 50.0),
            Partial("finite non-poles, |x| < 1e15, |lgamma| > 2^-30"),
        ),
        c(
            "log",
            clift_log_f64,
            |x| u(ln_f64(x)),
            3.0,
            (0.0, 10.0),
            Independent,
        ),
        c(
            "log2",
            clift_log2_f64,
            |x| u(ln_f64(x) * DD_1_LN2),
            3.0,
            (0.0, 10.0),
            Independent,
        ),
        c(
            "log10",
            clift_log10_f64,
            |x| u(ln_f64(x) * DD_1_LN10),
            3.0,
            (0.0, 10.0),
            Independent,
        ),
        c(
            "log1p",
            clift_log1p_f64,
            |x| tiny_linear(x, dd(1.0)).or_else(|| u(log1p_dd(x))),
            2.0,
            (-1.0, 10.0),
            Independent,
        ),
        c(
            "logb",
            clift_logb_f64,
            |x| exact(libm::logb_ref(x)),
            EXACT,
            WIDE,
            Exact,
        ),
        c(
            "rint",
            clift_rint_f64,
            |x| exact(x.round_ties_even()),
            EXACT,
            WIDE,
            Exact,
        ),
        c(
            "round",
            clift_round_f64,
            |x| exact(x.round()),
            EXACT,
            WIDE,
            Exact,
        ),
        c(
            "rsqrt",
            clift_rsqrt_f64,
            |x| {
                if x <= 0.0 || !x.is_finite() {
                    return exact(1.0 / x.sqrt());
                }
                // Scale by an even power of two for full precision at both ends.
                let e = libm::ilogb(x) & !1;
                Some(Scaled {
                    v: dd(1.0) / dd(libm::scalbn(x, -e)).sqrt(),
                    e: -e / 2,
                })
            },
            2.0,
            (0.0, 1e6),
            Independent,
        ),
        c("sin", clift_sin_f64, sin_f64_ref, 4.0, TRIG, trig),
        c("sincos (sin)", sincos_s64, sin_f64_ref, 4.0, TRIG, trig),
        c("sincos (cos)", sincos_c64, cos_f64_ref, 4.0, TRIG, trig),
        c(
            "sinh",
            clift_sinh_f64,
            |x| Some(sinh_dd(x)),
            4.0,
            (-711.0, 711.0),
            Independent,
        ),
        c(
            "sinpi",
            clift_sinpi_f64,
            |x| tiny_linear(x, DD_PI).or_else(|| sinpi_f64_ref(x)),
            4.0,
            (-8.0, 8.0),
            Independent,
        ),
        c(
            "sqrt",
            clift_sqrt_f64,
            |x| {
                if x <= 0.0 || !x.is_finite() {
                    return exact(x.sqrt());
                }
                let e = libm::ilogb(x) & !1;
                Some(Scaled {
                    v: dd(libm::scalbn(x, -e)).sqrt(),
                    e: e / 2,
                })
            },
            ROUNDED,
            (0.0, 1e6),
            Independent,
        ),
        c("tan", clift_tan_f64, tan_f64_ref, 5.0, TRIG, trig),
        c(
            "tanh",
            clift_tanh_f64,
            |x| Some(tanh_dd(x)),
            5.0,
            (-20.0, 20.0),
            Independent,
        ),
        c(
            "tanpi",
            clift_tanpi_f64,
            |x| tiny_linear(x, DD_PI).or_else(|| tanpi_f64_ref(x)),
            6.0,
            (-8.0, 8.0),
            Independent,
        ),
        c(
            "tgamma",
            clift_tgamma_f64,
            |x| {
                if !x.is_finite() || x == 0.0 || (x < 0.0 && x == x.floor()) || x.abs() > 1e15 {
                    return None;
                }
                if x > 172.0 {
                    return exact(f64::INFINITY);
                }
                if x.abs() < 1e-280 {
                    // Γ(x) = 1/x - γ + O(x): 1/x, scaled to stay finite.
                    return Some(Scaled {
                        v: dd(1.0) / dd(libm::scalbn(x, 1000)),
                        e: 1000,
                    });
                }
                Some(tgamma_dd(x))
            },
            16.0,
            (-180.0, 172.0),
            Partial("finite non-poles |x| < 1e15"),
        ),
        c(
            "trunc",
            clift_trunc_f64,
            |x| exact(x.trunc()),
            EXACT,
            WIDE,
            Exact,
        ),
    ]
}

fn measure_f64(case: &Case1d, rng: &mut Rng) -> (Worst, usize) {
    let mut worst = Worst::new();
    let mut skipped = 0;
    let mut check = |x: f64| match (case.reference)(x) {
        Some(r) => {
            let got = (case.f)(x);
            worst.note(ulps_f64(got, r), || {
                format!(
                    "{x:e} ({:#018x}): got {got:e}, reference {:e}·2^{}",
                    x.to_bits(),
                    r.v.hi,
                    r.e
                )
            });
        }
        None => skipped += 1,
    };
    for x in specials_f64() {
        check(x);
    }
    for _ in 0..SAMPLES_F64 {
        check(rng.bits64());
    }
    for _ in 0..SAMPLES_F64 {
        check(rng.uniform(case.range.0, case.range.1));
    }
    (worst, skipped)
}

struct Case2d {
    name: &'static str,
    f: extern "C" fn(f64, f64) -> f64,
    reference: fn(f64, f64) -> Option<Scaled>,
    bound: f64,
    range: (f64, f64),
    range_y: (f64, f64),
}

/// IEEE `remainder(x, y)` from the exact `fmod` (Rust's `%`): the quotient rounded to
/// nearest, ties to even.
fn remainder_ref(x: f64, y: f64) -> f64 {
    if x.is_nan() || y.is_nan() || x.is_infinite() || y == 0.0 {
        return f64::NAN;
    }
    if y.is_infinite() {
        return x;
    }
    let ay = y.abs();
    let r = (x % ay).abs();
    let odd = if (2.0 * ay).is_finite() {
        x.abs() % (2.0 * ay) >= ay
    } else {
        x.abs() >= ay
    };
    let r = if r > ay - r || (r == ay - r && odd) {
        r - ay
    } else {
        r
    };
    if x.is_sign_negative() { -r } else { r }
}

fn f64_cases2() -> Vec<Case2d> {
    fn c(
        name: &'static str,
        f: extern "C" fn(f64, f64) -> f64,
        reference: fn(f64, f64) -> Option<Scaled>,
        bound: f64,
        range: (f64, f64),
        range_y: (f64, f64),
    ) -> Case2d {
        Case2d {
            name,
            f,
            reference,
            bound,
            range,
            range_y,
        }
    }
    vec![
        c(
            "atan2",
            clift_atan2_f64,
            |y, x| u(atan2_dd(y, x)),
            6.0,
            WIDE,
            WIDE,
        ),
        c(
            "atan2pi",
            clift_atan2pi_f64,
            |y, x| u(atan2_dd(y, x) * DD_1_PI),
            6.0,
            WIDE,
            WIDE,
        ),
        c(
            "copysign",
            clift_copysign_f64,
            |x, y| exact(x.copysign(y)),
            EXACT,
            WIDE,
            WIDE,
        ),
        c(
            "fdim",
            clift_fdim_f64,
            |x, y| {
                if x.is_nan() || y.is_nan() {
                    exact(f64::NAN)
                } else if x > y {
                    let d = two_sum(x, -y);
                    u(if d.hi.is_finite() { d } else { dd(d.hi) })
                } else {
                    exact(0.0)
                }
            },
            ROUNDED,
            WIDE,
            WIDE,
        ),
        c(
            "fmax",
            clift_fmax_f64,
            |x, y| exact(fmax_ref(x, y)),
            EXACT,
            WIDE,
            WIDE,
        ),
        c(
            "fmin",
            clift_fmin_f64,
            |x, y| exact(fmin_ref(x, y)),
            EXACT,
            WIDE,
            WIDE,
        ),
        c(
            "fmod",
            clift_fmod_f64,
            |x, y| exact(x % y),
            EXACT,
            WIDE,
            (-100.0, 100.0),
        ),
        c(
            "hypot",
            clift_hypot_f64,
            |x, y| Some(hypot_dd(x, y)),
            4.0,
            WIDE,
            WIDE,
        ),
        c(
            "maxmag",
            clift_maxmag_f64,
            |x, y| {
                exact(if x.abs() > y.abs() {
                    x
                } else if y.abs() > x.abs() {
                    y
                } else {
                    fmax_ref(x, y)
                })
            },
            EXACT,
            WIDE,
            WIDE,
        ),
        c(
            "minmag",
            clift_minmag_f64,
            |x, y| {
                exact(if x.abs() < y.abs() {
                    x
                } else if y.abs() < x.abs() {
                    y
                } else {
                    fmin_ref(x, y)
                })
            },
            EXACT,
            WIDE,
            WIDE,
        ),
        c(
            "nextafter",
            clift_nextafter_f64,
            |x, y| {
                exact(if x.is_nan() || y.is_nan() {
                    f64::NAN
                } else if x == y {
                    y
                } else if x == 0.0 {
                    f64::from_bits(1).copysign(y)
                } else if (y > x) == (x > 0.0) {
                    f64::from_bits(x.to_bits() + 1)
                } else {
                    f64::from_bits(x.to_bits() - 1)
                })
            },
            EXACT,
            WIDE,
            WIDE,
        ),
        c(
            "pow",
            clift_pow_f64,
            |x, y| Some(pow_dd(x, y)),
            16.0,
            (-10.0, 100.0),
            (-150.0, 150.0),
        ),
        c(
            "powr",
            clift_powr_f64,
            |x, y| {
                if x.is_nan() || y.is_nan() || x < 0.0 {
                    return exact(f64::NAN);
                }
                if (y == 0.0 && (x == 0.0 || x.is_infinite())) || (x == 1.0 && y.is_infinite()) {
                    return exact(f64::NAN);
                }
                Some(pow_dd(x.abs(), y))
            },
            16.0,
            (0.0, 100.0),
            (-150.0, 150.0),
        ),
        c(
            "remainder",
            clift_remainder_f64,
            |x, y| exact(remainder_ref(x, y)),
            EXACT,
            WIDE,
            (-100.0, 100.0),
        ),
        c(
            "remquo",
            remquo_r64,
            |x, y| exact(remainder_ref(x, y)),
            EXACT,
            WIDE,
            (-100.0, 100.0),
        ),
        c(
            "mad",
            mad1_64,
            |x, y| u(dd(x) * dd(y) + dd(1.0)),
            f64::INFINITY,
            WIDE,
            WIDE,
        ),
    ]
}

fn measure_f64_2(case: &Case2d, rng: &mut Rng) -> Worst {
    let mut worst = Worst::new();
    let mut check = |x: f64, y: f64| {
        if let Some(r) = (case.reference)(x, y) {
            let got = (case.f)(x, y);
            worst.note(ulps_f64(got, r), || {
                format!(
                    "({x:e}, {y:e}): got {got:e}, reference {:e}·2^{}",
                    r.v.hi, r.e
                )
            });
        }
    };
    let specials = pair_specials_f64();
    for &x in &specials {
        for &y in &specials {
            check(x, y);
        }
    }
    for _ in 0..SAMPLES_F64 {
        check(rng.bits64(), rng.bits64());
    }
    for _ in 0..SAMPLES_F64 {
        let x = rng.uniform(case.range.0, case.range.1);
        let y = rng.uniform(case.range_y.0, case.range_y.1);
        check(x, y);
    }
    worst
}

/// `ldexp`, `pown`, `rootn` for `double`.
fn measure_f64_int(rng: &mut Rng) -> Vec<(String, Worst, f64)> {
    let ints = [
        0,
        1,
        -1,
        2,
        -2,
        3,
        -3,
        4,
        5,
        -5,
        7,
        53,
        -53,
        1023,
        -1074,
        1075,
        -1075,
        9_007_199,
        i32::MAX,
        i32::MIN,
        i32::MIN + 1,
    ];
    type F = extern "C" fn(f64, i32) -> f64;
    type Reference = fn(f64, i32) -> Scaled;
    type Case = (&'static str, F, Reference, f64);
    let cases: [(Case, (f64, f64)); 3] = [
        (
            (
                "ldexp",
                clift_ldexp_f64,
                |x, k| {
                    if x == 0.0 || !x.is_finite() {
                        unscaled(dd(x))
                    } else {
                        Scaled {
                            v: dd(x),
                            e: k.clamp(-3000, 3000),
                        }
                    }
                },
                ROUNDED,
            ),
            WIDE,
        ),
        (
            ("pown", clift_pown_f64, |x, n| pow_dd(x, n as f64), 16.0),
            (-10.0, 10.0),
        ),
        (("rootn", clift_rootn_f64, rootn_dd, 16.0), (-100.0, 100.0)),
    ];
    let mut out = Vec::new();
    for ((name, f, reference, bound), range) in cases {
        let mut worst = Worst::new();
        let mut check = |x: f64, n: i32| {
            let r = reference(x, n);
            // Results far beyond the double range: the reference's exponent overflows i32
            // scaling; they are infinities or zeros, which the special tests check.
            if r.e.abs() > 2000 {
                return;
            }
            let got = f(x, n);
            worst.note(ulps_f64(got, r), || format!("({x:e}, {n}): got {got:e}"));
        };
        for x in specials_f64() {
            for &n in &ints {
                check(x, n);
            }
        }
        for _ in 0..SAMPLES_F64 {
            check(rng.bits64(), rng.int(-2100, 2100));
        }
        for _ in 0..SAMPLES_F64 {
            let n = if rng.next().is_multiple_of(8) {
                rng.next() as i32
            } else {
                rng.int(-40, 40)
            };
            check(rng.uniform(range.0, range.1), n);
        }
        out.push((name.to_string(), worst, bound));
    }
    out
}

fn measure_fma_f64(rng: &mut Rng) -> Worst {
    let mut worst = Worst::new();
    let mut check = |a: f64, b: f64, c: f64| {
        let got = clift_fma_f64(a, b, c);
        let p = a * b;
        let reference = if !p.is_finite() || !c.is_finite() || p == 0.0 {
            unscaled(dd(a.mul_add(b, c)))
        } else {
            // a·b + c with the product exact (two_prod) and two-sums: exact unless the
            // magnitudes are more than 106 bits apart, where rounding is decided anyway.
            let e = a.mul_add(b, -p);
            let v = two_sum(p, c) + dd(e);
            unscaled(v)
        };
        worst.note(ulps_f64(got, reference), || {
            format!("({a:e}, {b:e}, {c:e}): got {got:e}")
        });
    };
    for _ in 0..SAMPLES_F64 {
        // Products in range (no underflow of the exact product's tail).
        let a = rng.uniform(-2.0, 2.0) * 2f64.powi(rng.int(-400, 400));
        let b = rng.uniform(-2.0, 2.0) * 2f64.powi(rng.int(-400, 400));
        let c = -(a * b) * rng.uniform(0.5, 1.5);
        check(a, b, c);
        check(
            a,
            b,
            rng.uniform(-1.0, 1.0) * a * b * 2f64.powi(rng.int(-60, 60)),
        );
    }
    worst
}

type Measured = Vec<(String, Worst, f64, &'static str)>;

fn all_f64() -> Measured {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut out: Measured = Vec::new();
    for case in f64_cases() {
        let (worst, _) = measure_f64(&case, &mut rng);
        let kind = match case.kind {
            RefKind::Independent => "double-double",
            RefKind::Partial(range) => range,
            RefKind::Exact => "exact",
        };
        out.push((case.name.to_string(), worst, case.bound, kind));
    }
    for case in f64_cases2() {
        let kind = match case.name {
            "atan2" | "atan2pi" | "hypot" | "pow" | "powr" | "mad" => "double-double",
            "fdim" => "exact (two-sum)",
            _ => "exact",
        };
        out.push((
            case.name.to_string(),
            measure_f64_2(&case, &mut rng),
            case.bound,
            kind,
        ));
    }
    for (name, worst, bound) in measure_f64_int(&mut rng) {
        let kind = if name == "ldexp" {
            "exact"
        } else {
            "double-double"
        };
        out.push((name, worst, bound, kind));
    }
    out.push((
        "fma".to_string(),
        measure_fma_f64(&mut rng),
        ROUNDED,
        "exact (two-prod)",
    ));
    out
}

#[test]
fn double_functions_meet_table_7_2() {
    let mut failures = Vec::new();
    for (name, worst, bound, _) in all_f64() {
        if !within(worst.ulps, bound) {
            failures.push(format!(
                "{name}: {} ulp > {bound}: {}",
                worst.ulps, worst.input
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// How a bound reads in the table.
fn bound_text(name: &str, bound: f64) -> String {
    if bound == EXACT {
        "0".to_string()
    } else if bound == ROUNDED {
        "correctly rounded".to_string()
    } else if bound.is_infinite() {
        if name == "mad" {
            "any".to_string()
        } else if name.starts_with("native_") {
            "impl.-defined".to_string()
        } else {
            "undefined".to_string()
        }
    } else {
        format!("{bound}")
    }
}

fn ulps_text(ulps: f64) -> String {
    if ulps == 0.0 {
        "0".to_string()
    } else {
        format!("{ulps:.3}")
    }
}

/// Prints the accuracy table (Markdown) of every function: `cargo test --release -p
/// clift-builtins --test math_accuracy -- --ignored --nocapture accuracy_table`.
#[test]
#[ignore]
fn accuracy_table() {
    let f32_rows = all_f32();
    let f64_rows = all_f64();
    let mut names: Vec<String> = f32_rows.iter().map(|r| r.0.clone()).collect();
    for r in &f64_rows {
        if !names.contains(&r.0) {
            names.push(r.0.clone());
        }
    }
    names.sort_by_key(|n| {
        (
            n.starts_with("half_") as u8 + 2 * n.starts_with("native_") as u8,
            n.clone(),
        )
    });
    println!(
        "| function | float: max error (ulp) | float: bound | double: max error (ulp) | double: bound | double reference |"
    );
    println!("|---|---|---|---|---|---|");
    for name in names {
        let f = f32_rows.iter().find(|r| r.0 == name);
        let d = f64_rows.iter().find(|r| r.0 == name);
        let (fu, fb) = f.map_or(("-".into(), "-".into()), |r| {
            (ulps_text(r.1.ulps), bound_text(&name, r.2))
        });
        let (du, db, dk) = d.map_or(("-".into(), "-".into(), "-"), |r| {
            (ulps_text(r.1.ulps), bound_text(&name, r.2), r.3)
        });
        println!("| {name} | {fu} | {fb} | {du} | {db} | {dk} |");
    }
    println!();
    println!("Worst inputs:");
    for (name, worst, _) in &f32_rows {
        if worst.ulps > 0.0 {
            println!("- float {name}: {}", worst.input);
        }
    }
    for (name, worst, _, _) in &f64_rows {
        if worst.ulps > 0.0 {
            println!("- double {name}: {}", worst.input);
        }
    }
}

/// The worst error of each case over the arguments that `args(t, threads, check)` passes to
/// `check` on thread t of `threads` (all the available cores), and the thread count.
fn worst_in_threads(
    cases: &[Case1],
    args: impl Fn(u64, u64, &mut dyn FnMut(f32)) + Sync,
) -> (u64, Vec<Worst>) {
    let threads = std::thread::available_parallelism().map_or(4, |n| n.get()) as u64;
    let per_thread: Vec<Vec<Worst>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let args = &args;
                scope.spawn(move || {
                    let mut worst = vec![Worst::new(); cases.len()];
                    args(t, threads, &mut |x| {
                        for (case, w) in cases.iter().zip(worst.iter_mut()) {
                            let got = (case.f)(x);
                            let reference = (case.reference)(x as f64);
                            w.note(ulps_f32(got, reference), || {
                                format!(
                                    "{x:e} ({:#010x}): got {got:e}, reference {reference:e}",
                                    x.to_bits()
                                )
                            });
                        }
                    });
                    worst
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let merged = (0..cases.len())
        .map(|i| {
            let mut w = Worst::new();
            for worst in &per_thread {
                w.note(worst[i].ulps, || worst[i].input.clone());
            }
            w
        })
        .collect();
    (threads, merged)
}

/// Every `float` argument of every one-argument `float` function (those of `f32_cases`),
/// against its `double` reference, in parallel (std threads, one per core).
///
/// `cargo test --release -p clift-builtins --test math_accuracy -- --ignored --nocapture
/// exhaustive_f32`. With `CLIFT_EXHAUSTIVE_SPAN=n` (n < 32) it checks 2^n arguments spread
/// evenly over the 2^32 bit patterns and prints the time the full run would take;
/// `CLIFT_EXHAUSTIVE_FUNCS=sin,cos` restricts the functions.
#[test]
#[ignore]
fn exhaustive_f32() {
    let span: u32 = std::env::var("CLIFT_EXHAUSTIVE_SPAN")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(32)
        .min(32);
    let only: Option<Vec<String>> = std::env::var("CLIFT_EXHAUSTIVE_FUNCS")
        .ok()
        .map(|s| s.split(',').map(str::to_string).collect());
    let cases: Vec<Case1> = f32_cases()
        .into_iter()
        .filter(|c| only.as_ref().is_none_or(|o| o.iter().any(|n| n == c.name)))
        .collect();
    let stride = 1u64 << (32 - span);
    let count = 1u64 << span;
    let start = std::time::Instant::now();
    let (threads, worst) = worst_in_threads(&cases, |t, threads, check| {
        let per_thread = count.div_ceil(threads);
        let last = ((t + 1) * per_thread).min(count);
        for i in t * per_thread..last {
            check(f32::from_bits((i * stride) as u32));
        }
    });
    let elapsed = start.elapsed().as_secs_f64();
    println!(
        "{} functions x 2^{span} arguments on {threads} threads: {elapsed:.1} s; all 2^32: {:.0} s projected",
        cases.len(),
        elapsed * (1u64 << (32 - span)) as f64
    );
    let mut failures = Vec::new();
    for (case, w) in cases.iter().zip(worst) {
        println!(
            "| {} | {} | {} |",
            case.name,
            ulps_text(w.ulps),
            bound_text(case.name, case.bound)
        );
        if !within(w.ulps, case.bound) {
            failures.push(format!(
                "{}: {} ulp > {}: {}",
                case.name, w.ulps, case.bound, w.input
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every `float` of magnitude at least 2^28·pi/2 (the table Payne-Hanek reduction's range,
/// 45% of all `float`s), both signs, in `sin`, `cos`, `tan` and `sincos`: within 1 ulp of the
/// `double` functions (whose own reduction is libm's 1,200-bit one), a quarter of the 4- and
/// 5-ulp bounds. Ignored (about 1.7 G arguments × 5 functions): `cargo test --release -p
/// clift-builtins --test math_accuracy -- --ignored --nocapture huge_trig`
/// (`CLIFT_HUGE_STRIDE=16` checks every 16th bit pattern).
#[test]
#[ignore]
fn huge_trig_arguments() {
    let stride: u64 = std::env::var("CLIFT_HUGE_STRIDE").map_or(1, |s| s.parse().unwrap());
    let names = ["sin", "cos", "tan", "sincos (sin)", "sincos (cos)"];
    let cases: Vec<Case1> = f32_cases()
        .into_iter()
        .filter(|c| names.contains(&c.name))
        .collect();
    assert_eq!(cases.len(), names.len());
    let (first, end) = (0x4dc9_0fdbu64, 0x7f80_0000u64);
    let start = std::time::Instant::now();
    let (_, worst) = worst_in_threads(&cases, |t, threads, check| {
        let mut bits = first + t * stride;
        while bits < end {
            check(f32::from_bits(bits as u32));
            check(-f32::from_bits(bits as u32));
            bits += threads * stride;
        }
    });
    println!("every {stride}th huge argument: {:.1?}", start.elapsed());
    for (case, w) in cases.iter().zip(worst) {
        println!("{}: {} ulp at {}", case.name, w.ulps, w.input);
        assert!(
            w.ulps <= 1.0,
            "{}: {} ulp at {}",
            case.name,
            w.ulps,
            w.input
        );
    }
}
