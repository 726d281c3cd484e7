//! The CTS area `math_brute_force`, reduced: the math built-in functions of OpenCL C 1.2
//! (section 6.12.2) for `float` and `double`, through the loader, at widths 1, 2, 3
//! (`vload3`/`vstore3`), 4, 8 and 16, on a few thousand inputs per function, against host
//! references within the bounds of tables 7.1 (`float`) and 7.2 (`double`).
//!
//! References are computed in `f64` with Rust's `std` (glibc's libm underneath, within a
//! `double` ulp) or, where `std` lacks the function (`sinpi`, `exp10`, `rootn`, `erf`,
//! `tgamma`, `remquo`, ...), from its definition in `f64` below (argument reductions exact).
//! For `float` results the reference's own error is far below a `float` ulp. For `double`
//! results the same reference is exact only for the exact functions (`ceil`, `fmod`, `fma`
//! by construction excluded, `frexp`, `nextafter`, ...); the transcendental ones are checked
//! loosely: the spec's bound plus 4 ulps where the reference is a libm `double` function
//! (itself within 1 ulp), and a wide documented tolerance (`LOOSE`, 2^14 ulps) where the
//! reference is a series or approximation written here (`erf`, `erfc`, `tgamma`, `rootn`).
//! The special values of section 7.5.1 / C99 F.9 are checked exactly in `special_values`.
//!
//! The error is `|test - reference| / ulp`, the ulp being that of the destination type in
//! the reference's binade (2^-149 / 2^-1074 below the normal range, so denormal results are
//! measured in denormal ulps); an infinite reference must be matched exactly; NaN must match
//! NaN. Correctly rounded functions (bound 0) are allowed 0.5 ulp (plus 2^-20 for the double
//! rounding of an `f64` reference).
//!
//! Kernels: one program per type with one kernel per function; work-item `i` computes the
//! scalar result for element `i` and, where `i < N / w`, the width-`w` result for elements
//! `w*i .. w*i + w` (`vloadn`/`vstoren`); every vector lane must equal the scalar result
//! bit for bit.

use clift_conformance::kernel_fixture::*;
use clift_conformance::*;

/// Elements per function: a multiple of every width (48 = lcm(1, 2, 3, 4, 8, 16)).
const N: usize = 48 * 64;
const WIDTHS: [usize; 6] = [1, 2, 3, 4, 8, 16];
/// Tolerance (ulps) for `double` functions whose reference here is an approximation.
const LOOSE: f64 = 16384.0;

// --- references ----------------------------------------------------------------------------

use std::f64::consts::PI;

/// `sin(pi * r)` for `r` in [-0.5, 0.5] after exact reduction of `x` modulo 2.
fn sinpi(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let mut r = x % 2.0;
    if r > 1.0 {
        r -= 2.0;
    } else if r < -1.0 {
        r += 2.0;
    }
    if r > 0.5 {
        r = 1.0 - r;
    } else if r < -0.5 {
        r = -1.0 - r;
    }
    if r == 0.0 {
        return 0.0f64.copysign(x);
    }
    (PI * r).sin()
}

fn cospi(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let mut r = x.abs() % 2.0;
    if r > 1.0 {
        r = 2.0 - r;
    }
    // cos(pi r) = sin(pi (0.5 - r)), 0.5 - r exact.
    let s = 0.5 - r;
    if s == 0.0 {
        return 0.0;
    }
    (PI * s).sin()
}

fn tanpi(x: f64) -> f64 {
    if !x.is_finite() {
        return f64::NAN;
    }
    let c = cospi(x);
    if c == 0.0 {
        // Section 7.5.1: tanpi(n + 0.5) is +inf for even n, -inf for odd n.
        let n = x.floor();
        return if n % 2.0 == 0.0 {
            f64::INFINITY
        } else {
            f64::NEG_INFINITY
        };
    }
    sinpi(x) / c
}

fn pown(x: f64, n: i32) -> f64 {
    x.powf(f64::from(n))
}

fn rootn(x: f64, n: i32) -> f64 {
    if n == 0 || x.is_nan() || (x < 0.0 && n % 2 == 0) {
        return f64::NAN;
    }
    let odd = n % 2 != 0;
    let sign = if odd { x.signum() } else { 1.0 };
    if x == 0.0 {
        let z = if odd { x } else { 0.0 };
        return if n > 0 {
            z
        } else {
            f64::INFINITY.copysign(if odd { x } else { 1.0 })
        };
    }
    sign * x.abs().powf(1.0 / f64::from(n))
}

fn powr(x: f64, y: f64) -> f64 {
    if x.is_nan() || y.is_nan() || x < 0.0 {
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
    x.powf(y)
}

/// 2^k, exact down to 2^-1074.
fn pow2(k: i32) -> f64 {
    if k >= -1022 {
        f64::from_bits(((k + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (k + 1074))
    }
}

/// The exponent of a finite nonzero `x` (exact, denormals included).
fn exponent(x: f64) -> i32 {
    let e = ((x.to_bits() >> 52) & 0x7ff) as i32;
    if e == 0 {
        exponent(x * 2f64.powi(64)) - 64
    } else {
        e - 1023
    }
}

fn logb(x: f64) -> f64 {
    if x.is_nan() {
        x
    } else if x == 0.0 {
        f64::NEG_INFINITY
    } else if x.is_infinite() {
        f64::INFINITY
    } else {
        f64::from(exponent(x))
    }
}

/// `ilogb`, NaN (not checked by the table) for 0 and NaN, whose values are the macros.
fn ilogb(x: f64) -> f64 {
    if x.is_nan() || x == 0.0 {
        f64::NAN
    } else if x.is_infinite() {
        f64::from(i32::MAX)
    } else {
        f64::from(exponent(x))
    }
}

fn maxmag(x: f64, y: f64) -> f64 {
    if x.abs() > y.abs() {
        x
    } else if y.abs() > x.abs() {
        y
    } else {
        x.max(y)
    }
}

fn minmag(x: f64, y: f64) -> f64 {
    if x.abs() < y.abs() {
        x
    } else if y.abs() < x.abs() {
        y
    } else {
        x.min(y)
    }
}

fn nextafter(x: f64, y: f64, double: bool) -> f64 {
    if x.is_nan() || y.is_nan() {
        return f64::NAN;
    }
    if x == y {
        return y;
    }
    if double {
        if x == 0.0 {
            return f64::from_bits(1).copysign(y);
        }
        let b = x.to_bits();
        let up = (y > x) == (x > 0.0);
        f64::from_bits(if up { b + 1 } else { b - 1 })
    } else {
        let x = x as f32;
        if x == 0.0 {
            return f64::from(f32::from_bits(1).copysign(y as f32));
        }
        let b = x.to_bits();
        let up = (y > f64::from(x)) == (x > 0.0);
        f64::from(f32::from_bits(if up { b + 1 } else { b - 1 }))
    }
}

fn fract(x: f64, double: bool) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x.is_infinite() {
        return 0.0f64.copysign(x);
    }
    let top = if double {
        1.0 - f64::EPSILON / 2.0
    } else {
        1.0 - 2f64.powi(-24)
    };
    let r = (x - x.floor()).min(top);
    if r == 0.0 { 0.0f64.copysign(x) } else { r }
}

/// `remainder(x, y)` and the low bits of its quotient: parity for `double` (the reduction
/// modulo 2|y| is exact), the low 3 bits for `float` (modulo 8|y|: 27 bits, exact in f64).
fn remquo(x: f64, y: f64, double: bool) -> (f64, i32) {
    if x.is_nan() || y.is_nan() || x.is_infinite() || y == 0.0 {
        return (f64::NAN, 0);
    }
    if y.is_infinite() {
        return (x, 0);
    }
    let ay = y.abs();
    let m = if double { 2.0 } else { 8.0 };
    let span = m * ay;
    let mut a = if span.is_infinite() {
        x.abs()
    } else {
        x.abs() % span
    };
    let mut q = 0;
    while a >= ay {
        a -= ay;
        q += 1;
    }
    if 2.0 * a > ay || (2.0 * a == ay && q % 2 == 1) {
        a -= ay;
        q += 1;
    }
    let q = q % (m as i32);
    let r = if a == 0.0 {
        0.0f64.copysign(x)
    } else if x < 0.0 {
        -a
    } else {
        a
    };
    (r, if (x < 0.0) != (y < 0.0) { -q } else { q })
}

fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x.abs() < 2.5 {
        // 2/sqrt(pi) * sum (-1)^n x^(2n+1) / (n! (2n+1)).
        let (mut term, mut sum, x2) = (x, x, x * x);
        for n in 1..200 {
            term *= -x2 / f64::from(n);
            let t = term / f64::from(2 * n + 1);
            sum += t;
            if t.abs() < 1e-18 * sum.abs() {
                break;
            }
        }
        sum * 2.0 / PI.sqrt()
    } else {
        (1.0 - erfc(x.abs())).copysign(x)
    }
}

fn erfc(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x < 1.5 {
        return if x < -1.5 {
            2.0 - erfc(-x)
        } else {
            1.0 - erf(x)
        };
    }
    if x > 27.3 {
        return 0.0;
    }
    // Continued fraction: erfc(x) = exp(-x^2)/sqrt(pi) * 1/(x + 1/2/(x + 1/(x + 3/2/(x + ...)))).
    let mut f = x;
    for k in (1..2000).rev() {
        f = x + f64::from(k) / 2.0 / f;
    }
    (-x * x).exp() / PI.sqrt() / f
}

const LANCZOS: [f64; 9] = [
    0.999_999_999_999_809_9,
    676.520_368_121_885_1,
    -1_259.139_216_722_402_8,
    771.323_428_777_653_1,
    -176.615_029_162_140_6,
    12.507_343_278_686_905,
    -0.138_571_095_265_720_12,
    9.984_369_578_019_572e-6,
    1.505_632_735_149_311_6e-7,
];

/// `ln(Gamma(x))` for x >= 0.5 by Lanczos (g = 7).
fn lanczos_ln(x: f64) -> f64 {
    let x = x - 1.0;
    let mut a = LANCZOS[0];
    let t = x + 7.5;
    for (i, c) in LANCZOS.iter().enumerate().skip(1) {
        a += c / (x + i as f64);
    }
    0.5 * (2.0 * PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

fn tgamma(x: f64) -> f64 {
    if x.is_nan() || x == f64::NEG_INFINITY || (x < 0.0 && x == x.floor()) {
        return f64::NAN;
    }
    if x == 0.0 {
        return f64::INFINITY.copysign(x);
    }
    if x < 0.5 {
        // Reflection: Gamma(x) Gamma(1 - x) = pi / sin(pi x).
        return PI / (sinpi(x) * tgamma(1.0 - x));
    }
    if x > 172.0 {
        return f64::INFINITY;
    }
    if x == x.floor() && x < 30.0 {
        return (1..x as i32).map(f64::from).product();
    }
    lanczos_ln(x).exp()
}

fn lgamma(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x.is_infinite() || (x <= 0.0 && x == x.floor()) {
        return f64::INFINITY;
    }
    if x < 0.5 {
        return (PI / sinpi(x).abs()).ln() - lgamma(1.0 - x);
    }
    if x == 1.0 || x == 2.0 {
        return 0.0;
    }
    lanczos_ln(x)
}

fn acosh(x: f64) -> f64 {
    if x.is_nan() || x < 1.0 {
        return f64::NAN;
    }
    if x > 1e8 {
        return x.ln() + std::f64::consts::LN_2;
    }
    let d = x - 1.0;
    (d + (d * (x + 1.0)).sqrt()).ln_1p()
}

fn asinh(x: f64) -> f64 {
    let a = x.abs();
    let r = if a > 1e8 {
        a.ln() + std::f64::consts::LN_2
    } else {
        (a + a * a / (1.0 + (1.0 + a * a).sqrt())).ln_1p()
    };
    r.copysign(x)
}

fn atanh(x: f64) -> f64 {
    let a = x.abs();
    (0.5 * (2.0 * a / (1.0 - a)).ln_1p()).copysign(x)
}

fn remainder(x: f64, y: f64) -> f64 {
    remquo(x, y, true).0
}

// --- function table ------------------------------------------------------------------------

/// How a function is called.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Sig {
    /// `T f(T)`.
    F,
    /// `T f(T, T)`.
    FF,
    /// `T f(T, T, T)`.
    Fff,
    /// `T f(T, int)` (`ldexp`, `pown`, `rootn`).
    FI,
    /// `int f(T)` (`ilogb`).
    I,
}

/// How a `double` result is checked against the `f64` reference.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Dbl {
    /// The reference is exact (or correctly rounded): the spec's bound.
    Exact,
    /// libm's `double` function (within 1 ulp): the bound plus 4.
    Libm,
    /// An approximation written here: `LOOSE`.
    Loose,
    /// Not checked for `double` here.
    Skip,
}

type Reference = fn(f64, f64, f64, i32, bool) -> f64;

struct Func {
    name: &'static str,
    sig: Sig,
    /// Table 7.1 bound in ulps (0: correctly rounded; infinite: any).
    ulps: f64,
    /// Table 7.2's bound where it differs (sqrt).
    ulps_double: f64,
    dbl: Dbl,
    reference: Reference,
    /// The useful range of random arguments.
    range: (f64, f64),
    range2: (f64, f64),
}

const ANY: f64 = f64::INFINITY;
const WIDE: (f64, f64) = (-1e3, 1e3);

macro_rules! f {
    ($name:literal, $sig:ident, $ulps:expr, $dbl:ident, $range:expr, $range2:expr, $r:expr) => {
        Func {
            name: $name,
            sig: Sig::$sig,
            ulps: $ulps,
            ulps_double: $ulps,
            dbl: Dbl::$dbl,
            reference: $r,
            range: $range,
            range2: $range2,
        }
    };
}

fn functions() -> Vec<Func> {
    let r1 = (-1.0, 1.0);
    let pos = (0.0, 1e3);
    let trig = (-100.0, 100.0);
    let mut v = vec![
        f!("acos", F, 4.0, Libm, r1, r1, |a, _, _, _, _| a.acos()),
        f!(
            "acosh",
            F,
            4.0,
            Libm,
            (1.0, 1e3),
            r1,
            |a, _, _, _, _| acosh(a)
        ),
        f!("acospi", F, 5.0, Libm, r1, r1, |a, _, _, _, _| a.acos()
            / PI),
        f!("asin", F, 4.0, Libm, r1, r1, |a, _, _, _, _| a.asin()),
        f!("asinh", F, 4.0, Libm, WIDE, r1, |a, _, _, _, _| asinh(a)),
        f!("asinpi", F, 5.0, Libm, r1, r1, |a, _, _, _, _| a.asin()
            / PI),
        f!("atan", F, 5.0, Libm, WIDE, r1, |a, _, _, _, _| a.atan()),
        f!("atan2", FF, 6.0, Libm, WIDE, WIDE, |a, b, _, _, _| a
            .atan2(b)),
        f!("atanh", F, 5.0, Libm, r1, r1, |a, _, _, _, _| atanh(a)),
        f!("atanpi", F, 5.0, Libm, WIDE, r1, |a, _, _, _, _| a.atan()
            / PI),
        f!("atan2pi", FF, 6.0, Libm, WIDE, WIDE, |a, b, _, _, _| a
            .atan2(b)
            / PI),
        f!("cbrt", F, 2.0, Libm, WIDE, r1, |a, _, _, _, _| a.cbrt()),
        f!("ceil", F, 0.0, Exact, WIDE, r1, |a, _, _, _, _| a.ceil()),
        f!("copysign", FF, 0.0, Exact, WIDE, WIDE, |a, b, _, _, _| a
            .copysign(b)),
        f!("cos", F, 4.0, Libm, trig, r1, |a, _, _, _, _| a.cos()),
        f!("cosh", F, 4.0, Libm, (-80.0, 80.0), r1, |a, _, _, _, _| a
            .cosh()),
        f!("cospi", F, 4.0, Libm, trig, r1, |a, _, _, _, _| cospi(a)),
        f!("erfc", F, 16.0, Loose, (-5.0, 12.0), r1, |a, _, _, _, _| {
            erfc(a)
        }),
        f!("erf", F, 16.0, Loose, (-5.0, 5.0), r1, |a, _, _, _, _| erf(
            a
        )),
        f!("exp", F, 3.0, Libm, (-90.0, 90.0), r1, |a, _, _, _, _| a
            .exp()),
        f!(
            "exp2",
            F,
            3.0,
            Libm,
            (-130.0, 130.0),
            r1,
            |a, _, _, _, _| a.exp2()
        ),
        f!("exp10", F, 3.0, Libm, (-40.0, 40.0), r1, |a, _, _, _, _| {
            10f64.powf(a)
        }),
        f!("expm1", F, 3.0, Libm, (-90.0, 90.0), r1, |a, _, _, _, _| a
            .exp_m1()),
        f!("fabs", F, 0.0, Exact, WIDE, r1, |a, _, _, _, _| a.abs()),
        f!(
            "fdim",
            FF,
            0.0,
            Exact,
            WIDE,
            WIDE,
            |a, b, _, _, _| if a.is_nan() || b.is_nan() {
                f64::NAN
            } else if a > b {
                a - b
            } else {
                0.0
            }
        ),
        f!("floor", F, 0.0, Exact, WIDE, r1, |a, _, _, _, _| a.floor()),
        f!("fma", Fff, 0.0, Skip, WIDE, WIDE, |a, b, c, _, _| a
            .mul_add(b, c)),
        f!("fmax", FF, 0.0, Exact, WIDE, WIDE, |a, b, _, _, _| a.max(b)),
        f!("fmin", FF, 0.0, Exact, WIDE, WIDE, |a, b, _, _, _| a.min(b)),
        f!("fmod", FF, 0.0, Exact, WIDE, WIDE, |a, b, _, _, _| a % b),
        f!("hypot", FF, 4.0, Libm, WIDE, WIDE, |a, b, _, _, _| a
            .hypot(b)),
        f!("ilogb", I, 0.0, Exact, WIDE, r1, |a, _, _, _, _| ilogb(a)),
        f!("ldexp", FI, 0.0, Exact, WIDE, r1, |a, _, _, n, _| a
            * 2f64.powi(n / 2)
            * 2f64.powi(n - n / 2)),
        f!(
            "lgamma",
            F,
            ANY,
            Skip,
            (-20.0, 30.0),
            r1,
            |a, _, _, _, _| lgamma(a)
        ),
        f!("log", F, 3.0, Libm, pos, r1, |a, _, _, _, _| a.ln()),
        f!("log2", F, 3.0, Libm, pos, r1, |a, _, _, _, _| a.log2()),
        f!("log10", F, 3.0, Libm, pos, r1, |a, _, _, _, _| a.log10()),
        f!("log1p", F, 2.0, Libm, (-1.0, 1e3), r1, |a, _, _, _, _| a
            .ln_1p()),
        f!("logb", F, 0.0, Exact, WIDE, r1, |a, _, _, _, _| logb(a)),
        f!("mad", Fff, ANY, Skip, WIDE, WIDE, |a, b, c, _, _| a
            .mul_add(b, c)),
        f!(
            "maxmag",
            FF,
            0.0,
            Exact,
            WIDE,
            WIDE,
            |a, b, _, _, _| maxmag(a, b)
        ),
        f!(
            "minmag",
            FF,
            0.0,
            Exact,
            WIDE,
            WIDE,
            |a, b, _, _, _| minmag(a, b)
        ),
        f!("nextafter", FF, 0.0, Exact, WIDE, WIDE, |a, b, _, _, d| {
            nextafter(a, b, d)
        }),
        f!(
            "pow",
            FF,
            16.0,
            Libm,
            (0.0, 100.0),
            (-20.0, 20.0),
            |a, b, _, _, _| a.powf(b)
        ),
        f!(
            "pown",
            FI,
            16.0,
            Libm,
            (-100.0, 100.0),
            r1,
            |a, _, _, n, _| pown(a, n)
        ),
        f!(
            "powr",
            FF,
            16.0,
            Libm,
            (0.0, 100.0),
            (-20.0, 20.0),
            |a, b, _, _, _| { powr(a, b) }
        ),
        f!("remainder", FF, 0.0, Exact, WIDE, WIDE, |a, b, _, _, _| {
            remainder(a, b)
        }),
        f!("rint", F, 0.0, Exact, WIDE, r1, |a, _, _, _, _| a
            .round_ties_even()),
        f!(
            "rootn",
            FI,
            16.0,
            Loose,
            (-1e3, 1e3),
            r1,
            |a, _, _, n, _| rootn(a, n)
        ),
        f!("round", F, 0.0, Exact, WIDE, r1, |a, _, _, _, _| a.round()),
        f!("rsqrt", F, 2.0, Libm, pos, r1, |a, _, _, _, _| 1.0
            / a.sqrt()),
        f!("sin", F, 4.0, Libm, trig, r1, |a, _, _, _, _| a.sin()),
        f!("sinh", F, 4.0, Libm, (-80.0, 80.0), r1, |a, _, _, _, _| a
            .sinh()),
        f!("sinpi", F, 4.0, Libm, trig, r1, |a, _, _, _, _| sinpi(a)),
        f!("sqrt", F, 3.0, Exact, pos, r1, |a, _, _, _, _| a.sqrt()),
        f!("tan", F, 5.0, Libm, trig, r1, |a, _, _, _, _| a.tan()),
        f!("tanh", F, 5.0, Libm, (-20.0, 20.0), r1, |a, _, _, _, _| a
            .tanh()),
        f!("tanpi", F, 6.0, Libm, trig, r1, |a, _, _, _, _| tanpi(a)),
        f!(
            "tgamma",
            F,
            16.0,
            Loose,
            (-30.0, 36.0),
            r1,
            |a, _, _, _, _| { tgamma(a) }
        ),
        f!("trunc", F, 0.0, Exact, WIDE, r1, |a, _, _, _, _| a.trunc()),
    ];
    for f in &mut v {
        if f.name == "sqrt" {
            f.ulps_double = 0.0;
        }
    }
    v
}

// --- types, inputs, errors -----------------------------------------------------------------

#[derive(Clone, Copy, PartialEq, Debug)]
enum Ty {
    Float,
    Double,
}

impl Ty {
    fn name(self) -> &'static str {
        match self {
            Ty::Float => "float",
            Ty::Double => "double",
        }
    }
    fn double(self) -> bool {
        self == Ty::Double
    }
    /// `x` rounded to this type, back in f64.
    fn round(self, x: f64) -> f64 {
        match self {
            Ty::Float => f64::from(x as f32),
            Ty::Double => x,
        }
    }
    fn bits(self, x: f64) -> u64 {
        match self {
            Ty::Float => u64::from((x as f32).to_bits()),
            Ty::Double => x.to_bits(),
        }
    }
    fn pragma(self) -> &'static str {
        match self {
            Ty::Float => "",
            Ty::Double => "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n",
        }
    }
    /// The special values of the type: zeros, infinities, NaN, denormals, +-1, +-0.5, the
    /// extremes, values near multiples of pi, large values.
    fn specials(self) -> Vec<f64> {
        let mut s = vec![
            0.0,
            f64::INFINITY,
            f64::NAN,
            1.0,
            0.5,
            2.0,
            3.0,
            1.5,
            2.5,
            10.0,
            100.0,
            1e10,
            1e30,
            PI,
            PI / 2.0,
            2.0 * PI,
            100.0 * PI,
            0.1,
            1e-5,
        ];
        match self {
            Ty::Float => s.extend([
                f64::from(f32::from_bits(1)),
                f64::from(f32::from_bits(0x007f_ffff)),
                f64::from(f32::MIN_POSITIVE),
                f64::from(f32::MAX),
                f64::from(f32::from_bits(0x4049_0fdb)),
                f64::from(f32::from_bits(0x4049_0fda)),
            ]),
            Ty::Double => s.extend([
                f64::from_bits(1),
                f64::from_bits(0x000f_ffff_ffff_ffff),
                f64::MIN_POSITIVE,
                f64::MAX,
                1e300,
            ]),
        }
        let mut all: Vec<f64> = s.iter().flat_map(|&x| [x, -x]).collect();
        all.retain(|x| !x.is_nan() || x.is_sign_positive());
        all.into_iter().map(|x| self.round(x)).collect()
    }
    fn random_bits(self, rng: &mut Rng) -> f64 {
        match self {
            Ty::Float => f64::from(f32::from_bits(rng.next_u64() as u32)),
            Ty::Double => f64::from_bits(rng.next_u64()),
        }
    }
    fn random_in(self, rng: &mut Rng, (lo, hi): (f64, f64)) -> f64 {
        let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        self.round(lo + (hi - lo) * u)
    }
    /// The ulp of this type at `r` (finite): the gap in `r`'s binade, 2^-149 / 2^-1074 at
    /// the bottom.
    fn ulp(self, r: f64) -> f64 {
        let (mant, emin) = match self {
            Ty::Float => (23, -126),
            Ty::Double => (52, -1022),
        };
        let e = if r == 0.0 {
            emin
        } else {
            exponent(r).max(emin)
        };
        pow2(e - mant)
    }
    /// Error of `got` in ulps of `reference`.
    fn ulps(self, got: f64, reference: f64) -> f64 {
        if reference.is_nan() || got.is_nan() {
            return if reference.is_nan() && got.is_nan() {
                0.0
            } else {
                f64::INFINITY
            };
        }
        if reference.is_infinite() || self.round(reference).is_infinite() && got.is_infinite() {
            return if got == self.round(reference) {
                0.0
            } else {
                f64::INFINITY
            };
        }
        if got.is_infinite() {
            return f64::INFINITY;
        }
        (got - reference).abs() / self.ulp(reference)
    }
}

/// The arguments of one function: `a`, `b`, `c` of the type and `n` (int).
struct Args {
    a: Vec<f64>,
    b: Vec<f64>,
    c: Vec<f64>,
    n: Vec<i32>,
}

fn inputs(ty: Ty, f: &Func, rng: &mut Rng) -> Args {
    let s = ty.specials();
    let ints = [
        0, 1, -1, 2, -2, 3, -3, 4, 5, 7, -7, 64, -64, 200, -200, 1100, -1100,
    ];
    let (mut a, mut b, mut c, mut n) = (vec![], vec![], vec![], vec![]);
    // Special values (crossed with each other for two arguments).
    match f.sig {
        Sig::F | Sig::I => a.extend(&s),
        Sig::FF | Sig::Fff => {
            for &x in &s {
                for &y in &s {
                    a.push(x);
                    b.push(y);
                    c.push(s[(a.len() * 7) % s.len()]);
                }
            }
        }
        Sig::FI => {
            for &x in &s {
                for &k in &ints {
                    a.push(x);
                    n.push(k);
                }
            }
        }
    }
    let start = a.len();
    for i in start..N {
        let bits = i % 3 == 0;
        let mut pick = |range| {
            if bits {
                ty.random_bits(rng)
            } else {
                ty.random_in(rng, range)
            }
        };
        a.push(pick(f.range));
        b.push(pick(f.range2));
        c.push(pick(f.range));
        n.push(if f.name == "ldexp" {
            rng.int(-300, 300)
        } else {
            rng.int(-12, 12)
        });
    }
    b.resize(N, 0.0);
    c.resize(N, 0.0);
    n.resize(N, 1);
    Args { a, b, c, n }
}

fn upload(fix: &Fixture, ty: Ty, v: &[f64]) -> Mem {
    match ty {
        Ty::Float => fix.buffer(&v.iter().map(|&x| (x as f32).to_bits()).collect::<Vec<_>>()),
        Ty::Double => fix.buffer(&v.iter().map(|&x| x.to_bits()).collect::<Vec<_>>()),
    }
}

fn download(fix: &Fixture, ty: Ty, m: &Mem, n: usize) -> Vec<f64> {
    match ty {
        Ty::Float => fix
            .read::<u32>(m, n)
            .into_iter()
            .map(|b| f64::from(f32::from_bits(b)))
            .collect(),
        Ty::Double => fix
            .read::<u64>(m, n)
            .into_iter()
            .map(f64::from_bits)
            .collect(),
    }
}

// --- kernels -------------------------------------------------------------------------------

/// The call of `f` on vectors of width `w` (`vloadw` at `i`, or plain indexing at 1).
fn call(f: &Func, t: &str, w: usize) -> String {
    let ld = |p: &str, ty: &str| {
        if w == 1 {
            format!("{p}[i]")
        } else {
            format!("vload{w}(i, ({ty}*){p})")
        }
    };
    let (a, b, c) = (
        ld("a", &format!("__global const {t}")),
        ld("b", &format!("__global const {t}")),
        ld("c", &format!("__global const {t}")),
    );
    let n = ld("n", "__global const int");
    let name = f.name;
    match f.sig {
        Sig::F | Sig::I => format!("{name}({a})"),
        Sig::FF => format!("{name}({a}, {b})"),
        Sig::Fff => format!("{name}({a}, {b}, {c})"),
        Sig::FI => format!("{name}({a}, {n})"),
    }
}

fn program(ty: Ty, funcs: &[Func]) -> String {
    let t = ty.name();
    let mut src = format!("{}#define N {N}\n", ty.pragma());
    for f in funcs {
        let r = if f.sig == Sig::I { "int" } else { t };
        src += &format!(
            "__kernel void k_{name}(__global const {t}* a, __global const {t}* b, \
             __global const {t}* c, __global const int* n, __global {r}* o1, __global {r}* o2, \
             __global {r}* o3, __global {r}* o4, __global {r}* o8, __global {r}* o16) {{\n\
             size_t i = get_global_id(0);\n o1[i] = {c1};\n",
            name = f.name,
            c1 = call(f, t, 1)
        );
        for w in &WIDTHS[1..] {
            src += &format!(
                " if (i < N / {w}) vstore{w}({}, i, o{w});\n",
                call(f, t, *w)
            );
        }
        src += "}\n";
    }
    src
}

/// Runs every function of the table for `ty` and checks it; returns the failures.
fn check_table(ty: Ty) {
    let fix = Fixture::new();
    let funcs: Vec<Func> = functions()
        .into_iter()
        .filter(|f| !(ty.double() && f.dbl == Dbl::Skip))
        .collect();
    let src = program(ty, &funcs);
    let first = fix.kernel(&src, c"k_acos", c"");
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut failures = vec![];
    for f in &funcs {
        let args = inputs(ty, f, &mut rng);
        let k = first.sibling(&format!("k_{}", f.name));
        let bufs = [
            upload(&fix, ty, &args.a),
            upload(&fix, ty, &args.b),
            upload(&fix, ty, &args.c),
        ];
        let nbuf = fix.buffer(&args.n);
        let elem = if ty.double() { 8 } else { 4 };
        let size = if f.sig == Sig::I { 4 } else { elem };
        let outs: Vec<Mem> = WIDTHS
            .iter()
            .map(|_| fix.filled(0u32, N * size / 4))
            .collect();
        k.mem(0, &bufs[0])
            .mem(1, &bufs[1])
            .mem(2, &bufs[2])
            .mem(3, &nbuf);
        for (j, o) in outs.iter().enumerate() {
            k.mem(4 + j as cl_uint, o);
        }
        fix.run(&k, None, &[N], None);
        let results: Vec<Vec<u64>> = outs
            .iter()
            .map(|o| {
                if f.sig == Sig::I {
                    fix.read::<i32>(o, N)
                        .iter()
                        .map(|&v| v as u32 as u64)
                        .collect()
                } else if ty.double() {
                    fix.read::<u64>(o, N)
                } else {
                    fix.read::<u32>(o, N)
                        .iter()
                        .map(|&v| u64::from(v))
                        .collect()
                }
            })
            .collect();
        let value = |bits: u64| -> f64 {
            if f.sig == Sig::I {
                f64::from(bits as u32 as i32)
            } else if ty.double() {
                f64::from_bits(bits)
            } else {
                f64::from(f32::from_bits(bits as u32))
            }
        };
        let is_nan = |bits: u64| f.sig != Sig::I && value(bits).is_nan();
        let bound = if ty.double() {
            let b = f.ulps_double.max(0.5 + 1e-6);
            match f.dbl {
                Dbl::Exact => b,
                Dbl::Libm => b + 4.0,
                Dbl::Loose | Dbl::Skip => LOOSE,
            }
        } else {
            f.ulps.max(0.5 + 1e-6)
        };
        let describe = |i: usize| {
            let mut s = format!("a = {:#x} ({:e})", ty.bits(args.a[i]), args.a[i]);
            match f.sig {
                Sig::FF => s += &format!(", b = {:#x} ({:e})", ty.bits(args.b[i]), args.b[i]),
                Sig::Fff => {
                    s += &format!(
                        ", b = {:#x} ({:e}), c = {:#x} ({:e})",
                        ty.bits(args.b[i]),
                        args.b[i],
                        ty.bits(args.c[i]),
                        args.c[i]
                    )
                }
                Sig::FI => s += &format!(", n = {}", args.n[i]),
                _ => {}
            }
            s
        };
        // Accuracy of the scalar results.
        if f.ulps.is_finite() {
            let mut worst: Option<(f64, usize, f64, f64)> = None;
            for (i, &bits) in results[0].iter().enumerate() {
                let reference =
                    (f.reference)(args.a[i], args.b[i], args.c[i], args.n[i], ty.double());
                if f.sig == Sig::I && reference.is_nan() {
                    continue;
                }
                let got = value(bits);
                let err = ty.ulps(got, reference);
                if err > bound && worst.is_none_or(|w| err > w.0) {
                    worst = Some((err, i, got, reference));
                }
            }
            if let Some((err, i, got, reference)) = worst {
                failures.push(format!(
                    "{}({}) {}, width 1: got {got:e} ({:#x}), expected {reference:e}: {err} ulp > {bound}",
                    f.name,
                    ty.name(),
                    describe(i),
                    results[0][i],
                ));
            }
        }
        // Lane-for-lane equality of the vector results with the scalar ones.
        for (j, &w) in WIDTHS.iter().enumerate().skip(1) {
            if let Some(i) = (0..N).find(|&i| {
                let (s, v) = (results[0][i], results[j][i]);
                s != v && !(is_nan(s) && is_nan(v))
            }) {
                failures.push(format!(
                    "{}({}) {}, width {w} lane {}: got {:#x}, scalar gives {:#x}",
                    f.name,
                    ty.name(),
                    describe(i),
                    i % w,
                    results[j][i],
                    results[0][i]
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Table 7.1: "ULP values for single precision built-in math functions" (acos <= 4 ulp,
/// ..., sin <= 4 ulp, exp <= 3 ulp, pow <= 16 ulp, ceil/fabs/fmod/... 0 ulp, fma correctly
/// rounded, mad "any value allowed"); section 6.12.2: "The math built-in functions ... take
/// scalar or vector arguments" and operate component-wise.
#[test]
fn float_functions() {
    check_table(Ty::Float);
}

/// Table 7.2: "ULP values for double precision built-in math functions" (the same bounds,
/// sqrt correctly rounded); checked exactly where the `f64` reference is exact, loosely
/// (bound + 4, or `LOOSE`) where it is libm's or an approximation (see the file's header).
#[test]
fn double_functions() {
    check_table(Ty::Double);
}

// --- special values ------------------------------------------------------------------------

/// Section 7.5.1 and C99 F.9 special values: `(expression in T, expected)`; `T` is the
/// type, the result compared bit for bit (any NaN for NaN; signed zeros distinguished).
const SPECIALS: &[(&str, f64)] = &[
    ("sin((T)-0.0)", -0.0),
    ("sin((T)0.0)", 0.0),
    ("tan((T)-0.0)", -0.0),
    ("cos((T)-0.0)", 1.0),
    ("sin((T)INFINITY)", f64::NAN),
    ("cos(-(T)INFINITY)", f64::NAN),
    ("asin((T)-0.0)", -0.0),
    ("atan((T)INFINITY)", std::f64::consts::FRAC_PI_2),
    ("atan2((T)0.0, (T)-0.0)", PI),
    ("atan2((T)-0.0, (T)-0.0)", -PI),
    ("atan2((T)-0.0, (T)0.0)", -0.0),
    ("exp(-(T)INFINITY)", 0.0),
    ("exp((T)INFINITY)", f64::INFINITY),
    ("exp((T)-0.0)", 1.0),
    ("expm1((T)-0.0)", -0.0),
    ("expm1(-(T)INFINITY)", -1.0),
    ("log((T)0.0)", f64::NEG_INFINITY),
    ("log((T)-0.0)", f64::NEG_INFINITY),
    ("log((T)-1.0)", f64::NAN),
    ("log((T)1.0)", 0.0),
    ("log1p((T)-1.0)", f64::NEG_INFINITY),
    ("log1p((T)-0.0)", -0.0),
    ("log2((T)INFINITY)", f64::INFINITY),
    ("pow((T)NAN, (T)0.0)", 1.0),
    ("pow((T)NAN, (T)-0.0)", 1.0),
    ("pow((T)1.0, (T)NAN)", 1.0),
    ("pow((T)-1.0, (T)INFINITY)", 1.0),
    ("pow((T)-0.0, (T)-3.0)", f64::NEG_INFINITY),
    ("pow((T)-0.0, (T)3.0)", -0.0),
    ("pow((T)-0.0, (T)-2.0)", f64::INFINITY),
    ("pow((T)-2.0, (T)0.5)", f64::NAN),
    ("pow((T)0.5, -(T)INFINITY)", f64::INFINITY),
    ("pown((T)NAN, 0)", 1.0),
    ("pown((T)-0.0, -3)", f64::NEG_INFINITY),
    ("powr((T)0.0, (T)0.0)", f64::NAN),
    ("powr((T)-1.0, (T)2.0)", f64::NAN),
    ("powr((T)1.0, (T)INFINITY)", f64::NAN),
    ("rootn((T)-8.0, 3)", -2.0),
    ("rootn((T)-0.0, -3)", f64::NEG_INFINITY),
    ("rootn((T)2.0, 0)", f64::NAN),
    ("sqrt((T)-0.0)", -0.0),
    ("sqrt((T)-1.0)", f64::NAN),
    ("rsqrt((T)0.0)", f64::INFINITY),
    ("cbrt((T)-0.0)", -0.0),
    ("sinh((T)-0.0)", -0.0),
    ("tanh(-(T)INFINITY)", -1.0),
    ("cosh(-(T)INFINITY)", f64::INFINITY),
    ("asinh((T)-0.0)", -0.0),
    ("acosh((T)1.0)", 0.0),
    ("atanh((T)1.0)", f64::INFINITY),
    ("atanh((T)-0.0)", -0.0),
    ("sinpi((T)-0.0)", -0.0),
    ("cospi((T)0.5)", 0.0),
    ("tanpi((T)-0.0)", -0.0),
    ("tanpi((T)0.5)", f64::INFINITY),
    ("tanpi((T)1.5)", f64::NEG_INFINITY),
    ("erf((T)-0.0)", -0.0),
    ("erf(-(T)INFINITY)", -1.0),
    ("erfc((T)INFINITY)", 0.0),
    ("erfc(-(T)INFINITY)", 2.0),
    ("tgamma((T)-0.0)", f64::NEG_INFINITY),
    ("tgamma((T)-1.0)", f64::NAN),
    ("tgamma((T)5.0)", 24.0),
    ("lgamma((T)1.0)", 0.0),
    ("lgamma((T)0.0)", f64::INFINITY),
    ("lgamma((T)-2.0)", f64::INFINITY),
    ("fmod((T)-0.0, (T)3.0)", -0.0),
    ("fmod((T)5.0, (T)0.0)", f64::NAN),
    ("fmod((T)5.0, (T)INFINITY)", 5.0),
    ("remainder((T)5.0, (T)2.0)", 1.0),
    ("remainder((T)7.0, (T)2.0)", -1.0),
    ("remainder((T)-0.0, (T)1.0)", -0.0),
    ("fmax((T)NAN, (T)1.0)", 1.0),
    ("fmin((T)2.0, (T)NAN)", 2.0),
    ("fdim((T)1.0, (T)3.0)", 0.0),
    ("fma((T)INFINITY, (T)0.0, (T)1.0)", f64::NAN),
    ("hypot((T)INFINITY, (T)NAN)", f64::INFINITY),
    ("ldexp((T)-0.0, 10)", -0.0),
    ("logb((T)0.0)", f64::NEG_INFINITY),
    ("logb(-(T)INFINITY)", f64::INFINITY),
    ("(T)(ilogb((T)0.0) == FP_ILOGB0)", 1.0),
    ("(T)(ilogb((T)NAN) == FP_ILOGBNAN)", 1.0),
    ("(T)ilogb((T)-8.0)", 3.0),
    ("nextafter((T)0.0, (T)-1.0) < 0 ? (T)1 : (T)0", 1.0),
    ("nextafter((T)-0.0, (T)0.0)", 0.0),
    ("ceil((T)-0.5)", -0.0),
    ("floor((T)-0.0)", -0.0),
    ("round((T)-0.5)", -1.0),
    ("round((T)2.5)", 3.0),
    ("rint((T)2.5)", 2.0),
    ("rint((T)-0.5)", -0.0),
    ("trunc((T)-0.7)", -0.0),
    ("copysign((T)1.0, (T)-0.0)", -1.0),
    ("maxmag((T)-3.0, (T)2.0)", -3.0),
    ("minmag((T)-3.0, (T)3.0)", -3.0),
    ("(T)isnan(nan(0u))", 1.0),
    ("(T)isnan(nan(0x12345u))", 1.0),
];

/// `e` with a `f` suffix on the literals after `(T)` for `float` (no double constants).
fn literals(e: &str, ty: Ty) -> String {
    if ty.double() {
        return e.to_string();
    }
    let mut out = String::new();
    let mut rest = e;
    while let Some(p) = rest.find("(T)") {
        out += &rest[..p + 3];
        rest = &rest[p + 3..];
        let len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-'))
            .unwrap_or(rest.len());
        out += &rest[..len];
        if rest[..len].contains('.') {
            out += "f";
        }
        rest = &rest[len..];
    }
    out + rest
}

fn check_specials(ty: Ty) {
    let fix = Fixture::new();
    let t = ty.name();
    let mut src = format!("{}#define T {t}\n", ty.pragma());
    src += "__kernel void specials(__global T* out) {\n";
    for (k, (e, _)) in SPECIALS.iter().enumerate() {
        src += &format!("  out[{k}] = {};\n", literals(e, ty));
    }
    src += "}\n";
    let k = fix.kernel(&src, c"specials", c"");
    let out = fix.filled(0u64, SPECIALS.len());
    k.mem(0, &out);
    fix.run(&k, None, &[1], None);
    let got = download(&fix, ty, &out, SPECIALS.len());
    let bad: Vec<String> = SPECIALS
        .iter()
        .zip(&got)
        .filter(|((_, want), got)| {
            let want = ty.round(*want);
            !(want.is_nan() && got.is_nan() || ty.bits(want) == ty.bits(**got))
        })
        .map(|((e, want), got)| {
            format!(
                "{e} ({t}): got {got:e} ({:#x}), expected {want:e} ({:#x})",
                ty.bits(*got),
                ty.bits(ty.round(*want))
            )
        })
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Section 7.5.1 ("Additional Requirements Beyond C99 TC2": "Functions that return a NaN
/// with more than one NaN operand shall return one of the NaN operands", sinpi(-0) = -0,
/// tanpi(n + 0.5) = +-inf, pown(x, 0) = 1 for any x, powr(+-0, +-0) = NaN, ...), and
/// C99 Annex F.9 (sin(+-0) = +-0, exp(-inf) = +0, log(+-0) = -inf, pow(x, +-0) = 1 for any
/// x, ...): float.
#[test]
fn special_values_float() {
    check_specials(Ty::Float);
}

/// The same special values (section 7.5.1, C99 F.9) for double.
#[test]
fn special_values_double() {
    check_specials(Ty::Double);
}

// --- pointer outputs -----------------------------------------------------------------------

/// Elements per pointer-output function (a multiple of 16 * 48).
const M: usize = 768;
/// Work-group size of the pointer-output kernels.
const GROUP: usize = 16;

/// A function with a pointer output: name, whether it takes a second value argument, and
/// whether the pointee is `int` (else the value type).
const POINTER_FUNCS: [(&str, bool, bool); 6] = [
    ("frexp", false, true),
    ("modf", false, false),
    ("sincos", false, false),
    ("remquo", true, true),
    ("fract", false, false),
    ("lgamma_r", false, true),
];
const SPACES: [&str; 3] = ["global", "local", "private"];

/// The reference `(value, pointee)` of pointer function `name`; a NaN pointee is not
/// checked. `remquo`'s pointee is compared modulo 8 (float) / 2 (double), `lgamma_r`'s value
/// loosely.
fn pointer_reference(name: &str, x: f64, y: f64, ty: Ty) -> (f64, f64) {
    match name {
        "frexp" => {
            if !x.is_finite() || x == 0.0 {
                (x, if x == 0.0 { 0.0 } else { f64::NAN })
            } else {
                let e = exponent(x) + 1;
                (x / pow2(e - 1) / 2.0, f64::from(e))
            }
        }
        "modf" => {
            let i = x.trunc();
            let f = if x.is_infinite() { 0.0 } else { x - i };
            (f.copysign(x), i)
        }
        "sincos" => (x.sin(), x.cos()),
        "remquo" => {
            let (r, q) = remquo(x, y, ty.double());
            (r, if r.is_nan() { f64::NAN } else { f64::from(q) })
        }
        "fract" => (fract(x, ty.double()), x.floor()),
        "lgamma_r" => {
            let sign = if x.is_nan() || x.is_infinite() || (x <= 0.0 && x == x.floor()) {
                f64::NAN
            } else if x > 0.0 || sinpi(x) > 0.0 {
                1.0
            } else {
                -1.0
            };
            (lgamma(x), sign)
        }
        _ => unreachable!(),
    }
}

fn pointer_program(ty: Ty) -> String {
    let t = ty.name();
    let mut src = ty.pragma().to_string();
    for (name, two, int) in POINTER_FUNCS {
        for space in SPACES {
            for w in WIDTHS {
                let (tw, q) = if w == 1 {
                    (t.to_string(), if int { "int" } else { t }.to_string())
                } else {
                    (
                        format!("{t}{w}"),
                        format!("{}{w}", if int { "int" } else { t }),
                    )
                };
                let ld = |p: &str| {
                    if w == 1 {
                        format!("{p}[i]")
                    } else {
                        format!("vload{w}(i, {p})")
                    }
                };
                let y = if two {
                    format!("{}, ", ld("b"))
                } else {
                    String::new()
                };
                let body = match space {
                    "global" => format!("{tw} v = {name}({}, {y}&g[i]);", ld("a")),
                    "local" => format!("{tw} v = {name}({}, {y}&l[li]); g[i] = l[li];", ld("a")),
                    _ => format!("{q} p; {tw} v = {name}({}, {y}&p); g[i] = p;", ld("a")),
                };
                let store = if w == 1 {
                    "r[i] = v;".to_string()
                } else {
                    format!("vstore{w}(v, i, r);")
                };
                src += &format!(
                    "__kernel void p_{name}_{space}_{w}(__global const {t}* a, \
                     __global const {t}* b, __global {t}* r, __global {q}* g, __local {q}* l) {{\n\
                     size_t i = get_global_id(0), li = get_local_id(0);\n {body}\n {store}\n}}\n"
                );
            }
        }
    }
    src
}

fn check_pointers(ty: Ty) {
    let fix = Fixture::new();
    let src = pointer_program(ty);
    let first = fix.kernel(&src, c"p_frexp_global_1", c"");
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let elem = if ty.double() { 8 } else { 4 };
    let mut failures = vec![];
    for (name, _, int) in POINTER_FUNCS {
        let qsize = if int { 4 } else { elem };
        let specials = ty.specials();
        let mut a: Vec<f64> = specials.clone();
        let mut b: Vec<f64> = specials.iter().rev().copied().collect();
        while a.len() < M {
            let bits = a.len().is_multiple_of(4);
            a.push(if bits {
                ty.random_bits(&mut rng)
            } else {
                ty.random_in(&mut rng, (-100.0, 100.0))
            });
            b.push(ty.random_in(&mut rng, (-10.0, 10.0)));
        }
        let (abuf, bbuf) = (upload(&fix, ty, &a), upload(&fix, ty, &b));
        // Results of every (space, width), as bits: values and pointees.
        let mut runs: Vec<(String, Vec<u64>, Vec<u64>)> = vec![];
        for space in SPACES {
            for w in WIDTHS {
                let stride = if w == 3 { 4 } else { w };
                let items = M / w;
                let k = first.sibling(&format!("p_{name}_{space}_{w}"));
                let r = fix.filled(0u32, M * elem / 4);
                let g = fix.filled(0u32, items * stride * qsize / 4);
                k.mem(0, &abuf).mem(1, &bbuf).mem(2, &r).mem(3, &g);
                k.local(4, GROUP * stride * qsize);
                fix.run(&k, None, &[items], Some(&[GROUP]));
                let values: Vec<u64> = download(&fix, ty, &r, M)
                    .iter()
                    .map(|&v| ty.bits(v))
                    .collect();
                let raw: Vec<u64> = if qsize == 4 {
                    fix.read::<u32>(&g, items * stride)
                        .into_iter()
                        .map(u64::from)
                        .collect()
                } else {
                    fix.read::<u64>(&g, items * stride)
                };
                let pointees: Vec<u64> = (0..M).map(|e| raw[e / w * stride + e % w]).collect();
                runs.push((format!("{space} width {w}"), values, pointees));
            }
        }
        let value = |bits: u64| {
            if ty.double() {
                f64::from_bits(bits)
            } else {
                f64::from(f32::from_bits(bits as u32))
            }
        };
        let pointee = |bits: u64| {
            if int {
                f64::from(bits as u32 as i32)
            } else {
                value(bits)
            }
        };
        // The scalar global results against the reference.
        let (_, v0, p0) = &runs[0];
        for e in 0..M {
            let (want, want_p) = pointer_reference(name, a[e], b[e], ty);
            let (got, got_p) = (value(v0[e]), pointee(p0[e]));
            let bound = match name {
                "sincos" if ty.double() => 8.0,
                "sincos" => 4.0,
                _ => 0.5 + 1e-6,
            };
            let value_ok = if name == "lgamma_r" {
                (got.is_nan() && want.is_nan())
                    || got == ty.round(want)
                    || got == want
                    || (got - want).abs() <= 1e-4 * want.abs().max(1.0)
            } else {
                ty.ulps(got, want) <= bound
            };
            let pointee_ok = want_p.is_nan()
                || match name {
                    "remquo" => {
                        let m = if ty.double() { 2.0 } else { 8.0 };
                        got_p.abs() % m == want_p.abs()
                            && (want_p == 0.0 || got_p.signum() == want_p.signum())
                    }
                    "sincos" => ty.ulps(got_p, want_p) <= bound,
                    _ => ty.ulps(got_p, want_p) == 0.0,
                };
            if !(value_ok && pointee_ok) {
                failures.push(format!(
                    "{name}({}) x = {:#x} ({:e}), y = {:e}, global width 1: got {got:e} / \
                     *p = {got_p:e}, expected {want:e} / *p = {want_p:e} ({} ulp)",
                    ty.name(),
                    ty.bits(a[e]),
                    a[e],
                    b[e],
                    ty.ulps(got, want)
                ));
                break;
            }
        }
        // Every space and width gives the scalar global result bit for bit.
        for (what, v, p) in &runs[1..] {
            let same =
                |x: u64, y: u64, f: &dyn Fn(u64) -> f64| x == y || f(x).is_nan() && f(y).is_nan();
            if let Some(e) = (0..M).find(|&e| {
                !same(v[e], v0[e], &value)
                    || !(pointer_reference(name, a[e], b[e], ty).1.is_nan()
                        || same(p[e], p0[e], &pointee))
            }) {
                failures.push(format!(
                    "{name}({}) x = {:#x}, {what} lane {}: got {:#x} / *p = {:#x}, scalar global \
                     gives {:#x} / *p = {:#x}",
                    ty.name(),
                    ty.bits(a[e]),
                    e % 16,
                    v[e],
                    p[e],
                    v0[e],
                    p0[e]
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Section 6.12.2: "The functions fract, frexp, lgamma_r, modf, remquo and sincos ... gentype
/// fract(gentype x, __global gentype *iptr), ... __local gentype *iptr, ... __private gentype
/// *iptr": the pointee and the result through each address space at every width (float).
#[test]
fn pointer_outputs_float() {
    check_pointers(Ty::Float);
}

/// The pointer-output functions of section 6.12.2 through global, local and private
/// pointers (double).
#[test]
fn pointer_outputs_double() {
    check_pointers(Ty::Double);
}

// --- half_, native_ and -cl-fast-relaxed-math ----------------------------------------------

/// The `half_` and `native_` functions: name, arity, domain, reference.
type Reduced = (&'static str, usize, (f64, f64), fn(f64, f64) -> f64);
const REDUCED: [Reduced; 14] = [
    ("cos", 1, (-65536.0, 65536.0), |x, _| x.cos()),
    ("divide", 2, (1e-30, 1e30), |x, y| x / y),
    ("exp", 1, (-80.0, 80.0), |x, _| x.exp()),
    ("exp2", 1, (-120.0, 120.0), |x, _| x.exp2()),
    ("exp10", 1, (-35.0, 35.0), |x, _| 10f64.powf(x)),
    ("log", 1, (1e-30, 1e30), |x, _| x.ln()),
    ("log2", 1, (1e-30, 1e30), |x, _| x.log2()),
    ("log10", 1, (1e-30, 1e30), |x, _| x.log10()),
    ("powr", 2, (1e-3, 100.0), |x, y| x.powf(y)),
    ("recip", 1, (1e-30, 1e30), |x, _| 1.0 / x),
    ("rsqrt", 1, (1e-30, 1e30), |x, _| 1.0 / x.sqrt()),
    ("sin", 1, (-65536.0, 65536.0), |x, _| x.sin()),
    ("sqrt", 1, (0.0, 1e30), |x, _| x.sqrt()),
    ("tan", 1, (-65536.0, 65536.0), |x, _| x.tan()),
];

/// Runs `prefix`+name for every function of `REDUCED` on `K` inputs (width 1 and 4, which
/// must agree lane for lane); returns per function the inputs and results.
fn run_reduced(prefix: &str) -> Vec<(Vec<f64>, Vec<f64>, Vec<f64>)> {
    const K: usize = 2048;
    let fix = Fixture::new();
    let mut src = String::new();
    for (name, arity, _, _) in REDUCED {
        let args = |w: usize| {
            let ld = |p: &str| {
                if w == 1 {
                    format!("{p}[i]")
                } else {
                    format!("vload4(i, {p})")
                }
            };
            if arity == 1 {
                ld("a")
            } else {
                format!("{}, {}", ld("a"), ld("b"))
            }
        };
        src += &format!(
            "__kernel void r_{name}(__global const float* a, __global const float* b, \
             __global float* o1, __global float* o4) {{\n size_t i = get_global_id(0);\n \
             o1[i] = {prefix}{name}({});\n if (i < {}) vstore4({prefix}{name}({}), i, o4);\n}}\n",
            args(1),
            K / 4,
            args(4)
        );
    }
    let first = fix.kernel(&src, c"r_cos", c"");
    let mut rng = Rng(0xfeed_beef_1234_5678);
    let mut out = vec![];
    for (name, _, (lo, hi), _) in REDUCED {
        // Log-uniform over positive domains, uniform otherwise.
        let a: Vec<f64> = (0..K)
            .map(|_| {
                let v = if lo > 0.0 {
                    (lo.ln() + (hi.ln() - lo.ln()) * Ty::Float.random_in(&mut rng, (0.0, 1.0)))
                        .exp()
                } else {
                    Ty::Float.random_in(&mut rng, (lo, hi))
                };
                Ty::Float.round(v)
            })
            .collect();
        let b: Vec<f64> = (0..K)
            .map(|_| match name {
                "divide" => {
                    (1e-30f64.ln() + 138.0 * Ty::Float.random_in(&mut rng, (0.0, 1.0))).exp()
                }
                _ => Ty::Float.random_in(&mut rng, (-10.0, 10.0)),
            })
            .map(|v| Ty::Float.round(v))
            .collect();
        let k = first.sibling(&format!("r_{name}"));
        let (abuf, bbuf) = (upload(&fix, Ty::Float, &a), upload(&fix, Ty::Float, &b));
        let (o1, o4) = (fix.filled(0u32, K), fix.filled(0u32, K));
        k.mem(0, &abuf).mem(1, &bbuf).mem(2, &o1).mem(3, &o4);
        fix.run(&k, None, &[K], None);
        let r1 = download(&fix, Ty::Float, &o1, K);
        let r4 = download(&fix, Ty::Float, &o4, K);
        if let Some(i) = (0..K).find(|&i| r1[i].to_bits() != r4[i].to_bits()) {
            panic!(
                "{prefix}{name}(float) a = {:#x}: width 4 lane {} gives {:e}, width 1 {:e}",
                Ty::Float.bits(a[i]),
                i % 4,
                r4[i],
                r1[i]
            );
        }
        out.push((a, b, r1));
    }
    out
}

/// Table 7.1: "half_cos ... half_tan: <= 8192 ulp"; section 6.12.2.1: half_cos, half_sin,
/// half_tan: "x must be in the range -2^16 ... +2^16"; half_divide, half_recip: "|x|, |y| in
/// [2^-126, 2^126]"; half_log*, half_rsqrt, half_sqrt, half_powr: positive arguments.
#[test]
fn half_functions() {
    let mut failures = vec![];
    for ((name, _, _, reference), (a, b, got)) in REDUCED.iter().zip(run_reduced("half_")) {
        let worst = (0..a.len())
            .map(|i| (Ty::Float.ulps(got[i], reference(a[i], b[i])), i))
            .fold((0.0, 0), |w, e| if e.0 > w.0 { e } else { w });
        if worst.0 > 8192.0 {
            let i = worst.1;
            failures.push(format!(
                "half_{name}(float) a = {:#x} ({:e}), b = {:e}: got {:e}, expected {:e}: {} ulp > 8192",
                Ty::Float.bits(a[i]),
                a[i],
                b[i],
                got[i],
                reference(a[i], b[i]),
                worst.0
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Section 6.12.2.1: "native_ ... the maximum error is implementation-defined" and table
/// 7.1 ("native_*: implementation-defined"): checked only to give finite results where the
/// true result is finite and of moderate size.
#[test]
fn native_functions() {
    for ((name, _, _, reference), (a, b, got)) in REDUCED.iter().zip(run_reduced("native_")) {
        for i in 0..a.len() {
            let want = reference(a[i], b[i]);
            if want.abs() < 1e30 && want.abs() > 1e-30 {
                assert!(
                    got[i].is_finite(),
                    "native_{name}(float) a = {:#x} ({:e}), b = {:e}: got {:e}, expected {want:e}",
                    Ty::Float.bits(a[i]),
                    a[i],
                    b[i],
                    got[i]
                );
            }
        }
    }
}

/// Section 7.4 (relaxed bounds with -cl-fast-relaxed-math, OpenCL C 2.0 table 7.2's
/// "ULP values for single precision built-in math functions with fast relaxed math", which
/// 1.2 leaves to the implementation): sin, cos "<= 2^-11 absolute error for x in [-pi,
/// pi]"; exp "3 + floor(fabs(2 * x)) ulp"; log "<= 2^-21 absolute error for x in [0.5, 2],
/// 3 ulp outside"; x / y "2.5 ulp" (y in [2^-62, 2^62]): the program still builds and the
/// results keep these bounds.
#[test]
fn fast_relaxed_math() {
    const K: usize = 1024;
    let fix = Fixture::new();
    let src = "__kernel void f(__global const float* a, __global const float* b, \
               __global float* s, __global float* c, __global float* e, __global float* l, \
               __global float* d) {\n size_t i = get_global_id(0);\n s[i] = sin(a[i]);\n \
               c[i] = cos(a[i]);\n e[i] = exp(a[i] * 20.0f);\n l[i] = log(b[i]);\n \
               d[i] = b[i] / a[i];\n}\n";
    let k = fix.kernel(src, c"f", c"-cl-fast-relaxed-math");
    let mut rng = Rng(0x5eed_0000_1111_2222);
    let a: Vec<f64> = (0..K)
        .map(|_| Ty::Float.random_in(&mut rng, (-PI, PI)))
        .map(|v| if v == 0.0 { 0.5 } else { v })
        .collect();
    let b: Vec<f64> = (0..K)
        .map(|i| {
            if i % 2 == 0 {
                Ty::Float.random_in(&mut rng, (0.5, 2.0))
            } else {
                Ty::Float.random_in(&mut rng, (2.0, 1e6))
            }
        })
        .collect();
    let (abuf, bbuf) = (upload(&fix, Ty::Float, &a), upload(&fix, Ty::Float, &b));
    let outs: Vec<Mem> = (0..5).map(|_| fix.filled(0u32, K)).collect();
    k.mem(0, &abuf).mem(1, &bbuf);
    for (j, o) in outs.iter().enumerate() {
        k.mem(2 + j as cl_uint, o);
    }
    fix.run(&k, None, &[K], None);
    let r: Vec<Vec<f64>> = outs
        .iter()
        .map(|o| download(&fix, Ty::Float, o, K))
        .collect();
    let absolute = 2f64.powi(-11);
    for i in 0..K {
        let (x, y) = (a[i], b[i]);
        let ex = Ty::Float.round(x * 20.0);
        let checks = [
            (
                "sin",
                x,
                r[0][i],
                x.sin(),
                (r[0][i] - x.sin()).abs() <= absolute,
            ),
            (
                "cos",
                x,
                r[1][i],
                x.cos(),
                (r[1][i] - x.cos()).abs() <= absolute,
            ),
            (
                "exp",
                ex,
                r[2][i],
                ex.exp(),
                Ty::Float.ulps(r[2][i], ex.exp()) <= 3.0 + (2.0 * ex).abs().floor(),
            ),
            (
                "log",
                y,
                r[3][i],
                y.ln(),
                if y <= 2.0 {
                    (r[3][i] - y.ln()).abs() <= 2f64.powi(-21)
                } else {
                    Ty::Float.ulps(r[3][i], y.ln()) <= 3.0
                },
            ),
            (
                "divide",
                y,
                r[4][i],
                y / x,
                Ty::Float.ulps(r[4][i], y / x) <= 2.5,
            ),
        ];
        for (name, input, got, want, ok) in checks {
            assert!(
                ok,
                "{name}(float) -cl-fast-relaxed-math, width 1, input {:#x} ({input:e}): got \
                 {got:e}, expected {want:e} ({} ulp)",
                Ty::Float.bits(input),
                Ty::Float.ulps(got, want)
            );
        }
    }
}
