//! The special values of the math builtins: C99 F.9 (which section 7.5 makes the rule) and
//! the additions of section 7.5.1, exactly (signed zeros distinguished, any NaN for NaN),
//! for `float` and `double`, plus subnormal arguments and results (the device reports
//! `CL_FP_DENORM`: nothing may be flushed).
//!
//! The functions are looked up in `math::symbols()` and called through the addresses found
//! there, as the JIT calls them; this checks the registry's addresses too.

use clift_builtins::math::{FP_ILOGB0, FP_ILOGBNAN, symbols};
use std::f64::consts::{FRAC_PI_2, FRAC_PI_4, PI};

const INF: f64 = f64::INFINITY;
const NAN: f64 = f64::NAN;

fn address(name: &str) -> *const u8 {
    symbols()
        .into_iter()
        .find(|(n, _)| *n == name)
        .unwrap_or_else(|| panic!("{name} is not in math::symbols()"))
        .1
}

/// Declares a lookup returning the registry's function as a typed pointer.
macro_rules! lookup {
    ($fn_name:ident, $suffix:literal, $ty:ty) => {
        fn $fn_name(name: &str) -> $ty {
            let p = address(&format!("clift_{name}_{}", $suffix));
            // SAFETY: the registry maps `clift_<name>_<suffix>` to the function of that name,
            // whose signature is `$ty` for the names this test passes here.
            unsafe { std::mem::transmute::<*const u8, $ty>(p) }
        }
    };
}

lookup!(f32_1, "f32", extern "C" fn(f32) -> f32);
lookup!(f64_1, "f64", extern "C" fn(f64) -> f64);
lookup!(f32_2, "f32", extern "C" fn(f32, f32) -> f32);
lookup!(f64_2, "f64", extern "C" fn(f64, f64) -> f64);
lookup!(f32_3, "f32", extern "C" fn(f32, f32, f32) -> f32);
lookup!(f64_3, "f64", extern "C" fn(f64, f64, f64) -> f64);
lookup!(f32_i, "f32", extern "C" fn(f32, i32) -> f32);
lookup!(f64_i, "f64", extern "C" fn(f64, i32) -> f64);
lookup!(f32_p, "f32", unsafe extern "C" fn(f32, *mut f32) -> f32);
lookup!(f64_p, "f64", unsafe extern "C" fn(f64, *mut f64) -> f64);
lookup!(f32_pi, "f32", unsafe extern "C" fn(f32, *mut i32) -> f32);
lookup!(f64_pi, "f64", unsafe extern "C" fn(f64, *mut i32) -> f64);
lookup!(f32_toi, "f32", extern "C" fn(f32) -> i32);
lookup!(f64_toi, "f64", extern "C" fn(f64) -> i32);

fn same32(a: f32, b: f32) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

fn same64(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

/// Collects failures, so one run reports them all.
#[derive(Default)]
struct Checks(Vec<String>);

impl Checks {
    fn expect(&mut self, ok: bool, what: impl FnOnce() -> String) {
        if !ok {
            self.0.push(what());
        }
    }

    /// `name(x) = want` exactly, for `float` (arguments and result rounded to `float`) and
    /// `double`.
    fn one(&mut self, name: &str, cases: &[(f64, f64)]) {
        let (f, d) = (f32_1(name), f64_1(name));
        for &(x, want) in cases {
            let got = f(x as f32);
            self.expect(same32(got, want as f32), || {
                format!("{name}_f32({x:e}) = {got:e}, want {:e}", want as f32)
            });
            let got = d(x);
            self.expect(same64(got, want), || {
                format!("{name}_f64({x:e}) = {got:e}, want {want:e}")
            });
        }
    }

    /// `name(x) ≈ want` within `ulps` (for results such as `±pi/2` that round).
    fn near(&mut self, name: &str, cases: &[(f64, f64)], ulps: f64) {
        let (f, d) = (f32_1(name), f64_1(name));
        for &(x, want) in cases {
            let got = f(x as f32) as f64;
            let ulp32 = (want as f32).abs().max(f32::MIN_POSITIVE) as f64 * f32::EPSILON as f64;
            self.expect((got - want).abs() <= ulps * ulp32, || {
                format!("{name}_f32({x:e}) = {got:e}, want {want:e}")
            });
            let got = d(x);
            self.expect(
                (got - want).abs() <= ulps * want.abs() * f64::EPSILON,
                || format!("{name}_f64({x:e}) = {got:e}, want {want:e}"),
            );
        }
    }

    fn two(&mut self, name: &str, cases: &[(f64, f64, f64)]) {
        let (f, d) = (f32_2(name), f64_2(name));
        for &(x, y, want) in cases {
            let got = f(x as f32, y as f32);
            self.expect(same32(got, want as f32), || {
                format!("{name}_f32({x:e}, {y:e}) = {got:e}, want {:e}", want as f32)
            });
            let got = d(x, y);
            self.expect(same64(got, want), || {
                format!("{name}_f64({x:e}, {y:e}) = {got:e}, want {want:e}")
            });
        }
    }

    fn two_near(&mut self, name: &str, cases: &[(f64, f64, f64)], ulps: f64) {
        let (f, d) = (f32_2(name), f64_2(name));
        for &(x, y, want) in cases {
            let got = f(x as f32, y as f32) as f64;
            let ulp32 = (want as f32).abs() as f64 * f32::EPSILON as f64;
            self.expect(
                (got - want).abs() <= ulps * ulp32 && got.signum() == want.signum(),
                || format!("{name}_f32({x:e}, {y:e}) = {got:e}, want {want:e}"),
            );
            let got = d(x, y);
            self.expect(
                (got - want).abs() <= ulps * want.abs() * f64::EPSILON
                    && got.signum() == want.signum(),
                || format!("{name}_f64({x:e}, {y:e}) = {got:e}, want {want:e}"),
            );
        }
    }

    fn int(&mut self, name: &str, cases: &[(f64, i32, f64)]) {
        let (f, d) = (f32_i(name), f64_i(name));
        for &(x, n, want) in cases {
            let got = f(x as f32, n);
            self.expect(same32(got, want as f32), || {
                format!("{name}_f32({x:e}, {n}) = {got:e}, want {:e}", want as f32)
            });
            let got = d(x, n);
            self.expect(same64(got, want), || {
                format!("{name}_f64({x:e}, {n}) = {got:e}, want {want:e}")
            });
        }
    }

    fn done(self) {
        assert!(
            self.0.is_empty(),
            "{} failures:\n{}",
            self.0.len(),
            self.0.join("\n")
        );
    }
}

#[test]
fn inverse_trigonometric() {
    let mut c = Checks::default();
    c.one(
        "acos",
        &[(1.0, 0.0), (2.0, NAN), (-2.0, NAN), (INF, NAN), (NAN, NAN)],
    );
    c.near("acos", &[(-1.0, PI), (0.0, FRAC_PI_2)], 1.0);
    c.one(
        "acospi",
        &[
            (1.0, 0.0),
            (-1.0, 1.0),
            (0.0, 0.5),
            (2.0, NAN),
            (-1.5, NAN),
            (NAN, NAN),
        ],
    );
    c.one(
        "asin",
        &[
            (0.0, 0.0),
            (-0.0, -0.0),
            (2.0, NAN),
            (-INF, NAN),
            (NAN, NAN),
        ],
    );
    c.one(
        "asinpi",
        &[
            (0.0, 0.0),
            (-0.0, -0.0),
            (1.0, 0.5),
            (-1.0, -0.5),
            (1.5, NAN),
            (NAN, NAN),
        ],
    );
    c.one("atan", &[(0.0, 0.0), (-0.0, -0.0), (NAN, NAN)]);
    c.near("atan", &[(INF, FRAC_PI_2), (-INF, -FRAC_PI_2)], 1.0);
    c.one(
        "atanpi",
        &[
            (0.0, 0.0),
            (-0.0, -0.0),
            (INF, 0.5),
            (-INF, -0.5),
            (1.0, 0.25),
            (NAN, NAN),
        ],
    );
    // C99 F.9.1.4, exact zeros.
    c.two(
        "atan2",
        &[
            (0.0, 0.0, 0.0),
            (-0.0, 0.0, -0.0),
            (0.0, 3.0, 0.0),
            (-0.0, 3.0, -0.0),
            (2.0, INF, 0.0),
            (-2.0, INF, -0.0),
            (NAN, 1.0, NAN),
            (1.0, NAN, NAN),
        ],
    );
    c.two_near(
        "atan2",
        &[
            (0.0, -0.0, PI),
            (-0.0, -0.0, -PI),
            (0.0, -3.0, PI),
            (-0.0, -3.0, -PI),
            (-2.0, 0.0, -FRAC_PI_2),
            (-2.0, -0.0, -FRAC_PI_2),
            (2.0, 0.0, FRAC_PI_2),
            (2.0, -INF, PI),
            (-2.0, -INF, -PI),
            (INF, 5.0, FRAC_PI_2),
            (-INF, 5.0, -FRAC_PI_2),
            (INF, -INF, 3.0 * FRAC_PI_4),
            (-INF, -INF, -3.0 * FRAC_PI_4),
            (INF, INF, FRAC_PI_4),
            (-INF, INF, -FRAC_PI_4),
        ],
        1.0,
    );
    // Section 7.5.1, every line.
    c.two(
        "atan2pi",
        &[
            (0.0, -0.0, 1.0),
            (-0.0, -0.0, -1.0),
            (0.0, 0.0, 0.0),
            (-0.0, 0.0, -0.0),
            (0.0, -3.0, 1.0),
            (-0.0, -3.0, -1.0),
            (0.0, 3.0, 0.0),
            (-0.0, 3.0, -0.0),
            (-2.0, 0.0, -0.5),
            (-2.0, -0.0, -0.5),
            (2.0, 0.0, 0.5),
            (2.0, -0.0, 0.5),
            (2.0, -INF, 1.0),
            (-2.0, -INF, -1.0),
            (2.0, INF, 0.0),
            (-2.0, INF, -0.0),
            (INF, 5.0, 0.5),
            (-INF, 5.0, -0.5),
            (INF, -INF, 0.75),
            (-INF, -INF, -0.75),
            (INF, INF, 0.25),
            (-INF, INF, -0.25),
            (1.0, 1.0, 0.25),
            (NAN, 1.0, NAN),
            (1.0, NAN, NAN),
        ],
    );
    c.done();
}

#[test]
fn hyperbolic() {
    let mut c = Checks::default();
    c.one(
        "acosh",
        &[
            (1.0, 0.0),
            (0.5, NAN),
            (-1.0, NAN),
            (-1e5, NAN),
            (-INF, NAN),
            (INF, INF),
        ],
    );
    c.one(
        "asinh",
        &[
            (0.0, 0.0),
            (-0.0, -0.0),
            (INF, INF),
            (-INF, -INF),
            (NAN, NAN),
        ],
    );
    c.one(
        "atanh",
        &[
            (0.0, 0.0),
            (-0.0, -0.0),
            (1.0, INF),
            (-1.0, -INF),
            (2.0, NAN),
            (NAN, NAN),
        ],
    );
    c.one(
        "cosh",
        &[
            (0.0, 1.0),
            (-0.0, 1.0),
            (INF, INF),
            (-INF, INF),
            (1e5, INF),
            (NAN, NAN),
        ],
    );
    c.one(
        "sinh",
        &[
            (0.0, 0.0),
            (-0.0, -0.0),
            (INF, INF),
            (-INF, -INF),
            (-1e5, -INF),
        ],
    );
    c.one(
        "tanh",
        &[
            (0.0, 0.0),
            (-0.0, -0.0),
            (INF, 1.0),
            (-INF, -1.0),
            (NAN, NAN),
        ],
    );
    c.done();
}

#[test]
fn trigonometric() {
    let mut c = Checks::default();
    for name in ["sin", "tan"] {
        c.one(
            name,
            &[
                (0.0, 0.0),
                (-0.0, -0.0),
                (INF, NAN),
                (-INF, NAN),
                (NAN, NAN),
            ],
        );
    }
    c.one(
        "cos",
        &[(0.0, 1.0), (-0.0, 1.0), (INF, NAN), (-INF, NAN), (NAN, NAN)],
    );
    // Large arguments reduce correctly (values from a 120-digit computation; the arguments
    // are exact in both formats).
    c.near(
        "sin",
        &[
            (2f64.powi(100), -0.872_183_605_418_267_3),
            (1.5 * 2f64.powi(70), -0.768_136_340_335_971_3),
        ],
        4.0,
    );
    c.near(
        "cos",
        &[
            (2f64.powi(100), 0.489_178_656_974_721_46),
            (1.5 * 2f64.powi(70), -0.640_286_313_031_335_1),
        ],
        4.0,
    );
    let sincos32 = f32_p("sincos");
    let sincos64 = f64_p("sincos");
    for (x, s, co) in [
        (0.0, 0.0, 1.0),
        (-0.0, -0.0, 1.0),
        (INF, NAN, NAN),
        (NAN, NAN, NAN),
    ] {
        let mut k32 = 7.0f32;
        // SAFETY: `k32` is a live local.
        let s32 = unsafe { sincos32(x as f32, &mut k32) };
        c.expect(same32(s32, s as f32) && same32(k32, co as f32), || {
            format!("sincos_f32({x:e}) = {s32:e}, {k32:e}")
        });
        let mut k64 = 7.0f64;
        // SAFETY: `k64` is a live local.
        let s64 = unsafe { sincos64(x, &mut k64) };
        c.expect(same64(s64, s) && same64(k64, co), || {
            format!("sincos_f64({x:e}) = {s64:e}, {k64:e}")
        });
    }
    c.done();
}

#[test]
fn pi_functions() {
    let mut c = Checks::default();
    let p23 = 8_388_608.0;
    let p53 = 9_007_199_254_740_992.0;
    c.one(
        "sinpi",
        &[
            (0.0, 0.0),
            (-0.0, -0.0),
            (1.0, 0.0),
            (2.0, 0.0),
            (3.0, 0.0),
            (p23, 0.0),
            (1e30, 0.0),
            (-1.0, -0.0),
            (-2.0, -0.0),
            (-3.0, -0.0),
            (-1e30, -0.0),
            (0.5, 1.0),
            (-0.5, -1.0),
            (1.5, -1.0),
            (-1.5, 1.0),
            (2.5, 1.0),
            (INF, NAN),
            (-INF, NAN),
            (NAN, NAN),
        ],
    );
    c.one(
        "cospi",
        &[
            (0.0, 1.0),
            (-0.0, 1.0),
            (0.5, 0.0),
            (-0.5, 0.0),
            (1.5, 0.0),
            (-2.5, 0.0),
            (1e6 + 0.5, 0.0),
            (1.0, -1.0),
            (-1.0, -1.0),
            (2.0, 1.0),
            (p23 + 1.0, -1.0),
            (p53, 1.0),
            (INF, NAN),
            (-INF, NAN),
            (NAN, NAN),
        ],
    );
    c.one(
        "tanpi",
        &[
            (0.0, 0.0),
            (-0.0, -0.0),
            (2.0, 0.0),
            (-2.0, -0.0),
            (4.0, 0.0),
            (1.0, -0.0),
            (-1.0, 0.0),
            (3.0, -0.0),
            (-3.0, 0.0),
            (p23 + 1.0, -0.0),
            (1e30, 0.0),
            (0.5, INF),
            (2.5, INF),
            (-1.5, INF),
            (1.5, -INF),
            (-0.5, -INF),
            (3.5, -INF),
            (0.25, 1.0),
            (-0.25, -1.0),
            (INF, NAN),
            (-INF, NAN),
            (NAN, NAN),
        ],
    );
    // Subnormal arguments are not flushed.
    let tiny32 = f32::from_bits(3);
    let got = f32_1("sinpi")(tiny32);
    c.expect(got == (tiny32 as f64 * PI) as f32, || {
        format!("sinpi_f32(3 subnormal ulps) = {got:e}")
    });
    let got = f64_1("sinpi")(f64::from_bits(1));
    c.expect(got == f64::from_bits(3), || {
        format!("sinpi_f64(min subnormal) = {got:e}")
    });
    c.done();
}

#[test]
fn exponential() {
    let mut c = Checks::default();
    for name in ["exp", "exp2", "exp10"] {
        c.one(
            name,
            &[
                (0.0, 1.0),
                (-0.0, 1.0),
                (-INF, 0.0),
                (INF, INF),
                (NAN, NAN),
                (1e5, INF),
                (-1e5, 0.0),
            ],
        );
    }
    c.one(
        "exp2",
        &[(10.0, 1024.0), (-1.0, 0.5), (-149.0, 2f64.powi(-149))],
    );
    c.one("exp10", &[(1.0, 10.0), (2.0, 100.0), (10.0, 1e10)]);
    c.one(
        "expm1",
        &[
            (0.0, 0.0),
            (-0.0, -0.0),
            (-INF, -1.0),
            (INF, INF),
            (NAN, NAN),
        ],
    );
    // Subnormal results.
    let got = f32_1("exp")(-100.0);
    c.expect(got > 0.0 && got < f32::MIN_POSITIVE, || {
        format!("exp_f32(-100) = {got:e}")
    });
    let got = f32_1("exp2")(-140.5);
    c.expect(got == (2f64.powf(-140.5)) as f32, || {
        format!("exp2_f32(-140.5) = {got:e}")
    });
    let got = f64_1("exp")(-740.0);
    c.expect(got > 0.0 && got < f64::MIN_POSITIVE, || {
        format!("exp_f64(-740) = {got:e}")
    });
    c.done();
}

#[test]
fn logarithmic() {
    let mut c = Checks::default();
    for name in ["log", "log2", "log10"] {
        c.one(
            name,
            &[
                (0.0, -INF),
                (-0.0, -INF),
                (1.0, 0.0),
                (-1.0, NAN),
                (-INF, NAN),
                (INF, INF),
                (NAN, NAN),
            ],
        );
    }
    c.one(
        "log2",
        &[(8.0, 3.0), (0.5, -1.0), (2f64.powi(-140), -140.0)],
    );
    c.one("log10", &[(100.0, 2.0), (1000.0, 3.0)]);
    c.one(
        "log1p",
        &[
            (0.0, 0.0),
            (-0.0, -0.0),
            (-1.0, -INF),
            (-2.0, NAN),
            (INF, INF),
            (-INF, NAN),
            (NAN, NAN),
        ],
    );
    c.one(
        "logb",
        &[
            (0.0, -INF),
            (-0.0, -INF),
            (INF, INF),
            (-INF, INF),
            (NAN, NAN),
            (8.0, 3.0),
            (-8.0, 3.0),
            (0.1, -4.0),
        ],
    );
    // Subnormal arguments: the true exponent.
    let got = f32_1("logb")(f32::from_bits(1));
    c.expect(got == -149.0, || format!("logb_f32(min subnormal) = {got}"));
    let got = f64_1("logb")(f64::from_bits(1));
    c.expect(got == -1074.0, || {
        format!("logb_f64(min subnormal) = {got}")
    });
    let got = f32_1("log2")(f32::from_bits(1));
    c.expect(got == -149.0, || format!("log2_f32(min subnormal) = {got}"));
    let (i32f, i64f) = (f32_toi("ilogb"), f64_toi("ilogb"));
    for (x, want) in [
        (0.0, FP_ILOGB0),
        (-0.0, FP_ILOGB0),
        (NAN, FP_ILOGBNAN),
        (INF, i32::MAX),
        (-INF, i32::MAX),
        (1.0, 0),
        (-10.0, 3),
    ] {
        let (a, b) = (i32f(x as f32), i64f(x));
        c.expect(a == want && b == want, || {
            format!("ilogb({x:e}) = {a}, {b}, want {want}")
        });
    }
    c.expect(i32f(f32::from_bits(1)) == -149, || {
        "ilogb_f32(min subnormal)".into()
    });
    c.expect(i64f(f64::from_bits(1)) == -1074, || {
        "ilogb_f64(min subnormal)".into()
    });
    c.expect(FP_ILOGB0 == i32::MIN && FP_ILOGBNAN == i32::MAX, || {
        "FP_ILOGB0/NAN".into()
    });
    c.done();
}

#[test]
fn powers() {
    let mut c = Checks::default();
    // C99 F.9.4.4 and section 7.5.1.
    c.two(
        "pow",
        &[
            (0.0, -3.0, INF),
            (-0.0, -3.0, -INF),
            (0.0, -2.0, INF),
            (-0.0, -2.0, INF),
            (-0.0, -2.5, INF),
            (0.0, -INF, INF),
            (-0.0, -INF, INF),
            (0.0, 3.0, 0.0),
            (-0.0, 3.0, -0.0),
            (-0.0, 2.0, 0.0),
            (-0.0, 2.5, 0.0),
            (-1.0, INF, 1.0),
            (-1.0, -INF, 1.0),
            (1.0, NAN, 1.0),
            (1.0, INF, 1.0),
            (1.0, -3.0, 1.0),
            (NAN, 0.0, 1.0),
            (NAN, -0.0, 1.0),
            (INF, 0.0, 1.0),
            (0.0, 0.0, 1.0),
            (-3.0, -0.0, 1.0),
            (-2.0, 0.5, NAN),
            (-2.0, -1.5, NAN),
            (0.5, -INF, INF),
            (-0.5, -INF, INF),
            (2.0, -INF, 0.0),
            (-2.0, -INF, 0.0),
            (0.5, INF, 0.0),
            (2.0, INF, INF),
            (-2.0, INF, INF),
            (-INF, -3.0, -0.0),
            (-INF, -2.0, 0.0),
            (-INF, -2.5, 0.0),
            (-INF, 3.0, -INF),
            (-INF, 2.0, INF),
            (-INF, 2.5, INF),
            (INF, -1.0, 0.0),
            (INF, 1.0, INF),
            (-2.0, 3.0, -8.0),
            (2.0, 10.0, 1024.0),
            (4.0, 0.5, 2.0),
            (2.0, -1.0, 0.5),
            (NAN, 1.0, NAN),
            (2.0, NAN, NAN),
            (10.0, 1e6, INF),
            (10.0, -1e6, 0.0),
            (-10.0, 1e6 + 1.0, -INF),
        ],
    );
    c.int(
        "pown",
        &[
            (0.0, 0, 1.0),
            (-0.0, 0, 1.0),
            (INF, 0, 1.0),
            (-INF, 0, 1.0),
            (NAN, 0, 1.0),
            (5.0, 0, 1.0),
            (0.0, -3, INF),
            (-0.0, -3, -INF),
            (0.0, -2, INF),
            (-0.0, -2, INF),
            (0.0, 2, 0.0),
            (-0.0, 2, 0.0),
            (0.0, 3, 0.0),
            (-0.0, 3, -0.0),
            (-2.0, 3, -8.0),
            (2.0, -1, 0.5),
            (-INF, 3, -INF),
            (-INF, -3, -0.0),
            (-INF, 2, INF),
            (INF, -2, 0.0),
            (-1.0, i32::MAX, -1.0),
            (-1.0, i32::MIN, 1.0),
            (2.0, 2000, INF),
            (2.0, -2000, 0.0),
            (-2.0, 16_777_217, -INF),
            (-0.5, 16_777_217, -0.0),
            (NAN, 3, NAN),
        ],
    );
    c.two(
        "powr",
        &[
            (2.0, 0.0, 1.0),
            (0.5, -0.0, 1.0),
            (0.0, -2.0, INF),
            (-0.0, -3.0, INF),
            (0.0, -INF, INF),
            (-0.0, -INF, INF),
            (0.0, 2.0, 0.0),
            (-0.0, 3.0, 0.0),
            (0.0, INF, 0.0),
            (1.0, 5.0, 1.0),
            (1.0, -1e30, 1.0),
            (-2.0, 2.0, NAN),
            (-1.0, 0.0, NAN),
            (-INF, 2.0, NAN),
            (0.0, 0.0, NAN),
            (-0.0, -0.0, NAN),
            (INF, 0.0, NAN),
            (INF, -0.0, NAN),
            (1.0, INF, NAN),
            (1.0, -INF, NAN),
            (2.0, NAN, NAN),
            (0.0, NAN, NAN),
            (NAN, 2.0, NAN),
            (NAN, 0.0, NAN),
            (INF, 2.0, INF),
            (INF, -2.0, 0.0),
            (0.5, INF, 0.0),
            (2.0, INF, INF),
            (0.5, -INF, INF),
            (2.0, -INF, 0.0),
            (4.0, 0.5, 2.0),
        ],
    );
    c.int(
        "rootn",
        &[
            (0.0, -3, INF),
            (-0.0, -3, -INF),
            (0.0, -2, INF),
            (-0.0, -2, INF),
            (0.0, 2, 0.0),
            (-0.0, 2, 0.0),
            (0.0, 3, 0.0),
            (-0.0, 3, -0.0),
            (-8.0, 2, NAN),
            (-INF, 4, NAN),
            (5.0, 0, NAN),
            (0.0, 0, NAN),
            (NAN, 0, NAN),
            (-8.0, 3, -2.0),
            (8.0, 3, 2.0),
            (16.0, 4, 2.0),
            (4.0, -2, 0.5),
            (7.0, 1, 7.0),
            (-INF, 3, -INF),
            (INF, 2, INF),
            (INF, -2, 0.0),
            (-INF, -3, -0.0),
            (NAN, 3, NAN),
        ],
    );
    c.one(
        "rsqrt",
        &[
            (0.0, INF),
            (-0.0, -INF),
            (INF, 0.0),
            (-1.0, NAN),
            (-INF, NAN),
            (4.0, 0.5),
            (NAN, NAN),
        ],
    );
    c.one(
        "sqrt",
        &[
            (0.0, 0.0),
            (-0.0, -0.0),
            (-1.0, NAN),
            (INF, INF),
            (-INF, NAN),
            (4.0, 2.0),
            (NAN, NAN),
        ],
    );
    c.one(
        "cbrt",
        &[
            (0.0, 0.0),
            (-0.0, -0.0),
            (INF, INF),
            (-INF, -INF),
            (-27.0, -3.0),
            (NAN, NAN),
        ],
    );
    c.two(
        "hypot",
        &[
            (INF, NAN, INF),
            (NAN, -INF, INF),
            (-INF, 1.0, INF),
            (-3.0, 0.0, 3.0),
            (-0.0, -0.0, 0.0),
            (3.0, 4.0, 5.0),
            (NAN, 1.0, NAN),
        ],
    );
    // Subnormal arguments and results.
    let got = f32_1("sqrt")(f32::from_bits(1));
    c.expect(got == (2f64.powf(-74.5)) as f32, || {
        format!("sqrt_f32(min subnormal) = {got:e}")
    });
    let got = f32_2("pow")(2.0, -140.0);
    c.expect(got == 2f32.powi(-140), || {
        format!("pow_f32(2, -140) = {got:e}")
    });
    c.done();
}

#[test]
fn rounding_and_parts() {
    let mut c = Checks::default();
    c.one(
        "ceil",
        &[
            (0.0, 0.0),
            (-0.0, -0.0),
            (-0.5, -0.0),
            (0.5, 1.0),
            (INF, INF),
            (-INF, -INF),
            (NAN, NAN),
        ],
    );
    c.one(
        "floor",
        &[
            (0.0, 0.0),
            (-0.0, -0.0),
            (0.5, 0.0),
            (-0.5, -1.0),
            (INF, INF),
            (-INF, -INF),
            (NAN, NAN),
        ],
    );
    c.one(
        "trunc",
        &[
            (0.0, 0.0),
            (-0.0, -0.0),
            (-0.5, -0.0),
            (-1.5, -1.0),
            (INF, INF),
            (-INF, -INF),
            (NAN, NAN),
        ],
    );
    c.one(
        "round",
        &[
            (0.0, 0.0),
            (-0.0, -0.0),
            (-0.4, -0.0),
            (0.5, 1.0),
            (-0.5, -1.0),
            (2.5, 3.0),
            (-2.5, -3.0),
            (INF, INF),
            (-INF, -INF),
            (NAN, NAN),
        ],
    );
    c.one(
        "rint",
        &[
            (0.0, 0.0),
            (-0.0, -0.0),
            (-0.5, -0.0),
            (-0.2, -0.0),
            (0.5, 0.0),
            (1.5, 2.0),
            (2.5, 2.0),
            (-2.5, -2.0),
            (INF, INF),
            (-INF, -INF),
            (NAN, NAN),
        ],
    );
    c.one(
        "fabs",
        &[
            (0.0, 0.0),
            (-0.0, 0.0),
            (-INF, INF),
            (-2.0, 2.0),
            (NAN, NAN),
        ],
    );
    c.two(
        "copysign",
        &[
            (1.0, -0.0, -1.0),
            (-2.0, 0.0, 2.0),
            (INF, -1.0, -INF),
            (0.0, -NAN, -0.0),
        ],
    );

    // fract (section 7.5.1).
    let (f, d) = (f32_p("fract"), f64_p("fract"));
    let below32 = f32::from_bits(0x3f7f_ffff) as f64;
    let below64 = f64::from_bits(0x3fef_ffff_ffff_ffff);
    for (x, want, want_i, want64) in [
        (0.0, 0.0, 0.0, 0.0),
        (-0.0, -0.0, -0.0, -0.0),
        (INF, 0.0, INF, 0.0),
        (-INF, -0.0, -INF, -0.0),
        (NAN, NAN, NAN, NAN),
        (1.5, 0.5, 1.0, 0.5),
        (-1.25, 0.75, -2.0, 0.75),
        (-1e-30, below32, -1.0, below64),
    ] {
        let mut i = 9.0f32;
        // SAFETY: `i` is a live local.
        let got = unsafe { f(x as f32, &mut i) };
        c.expect(same32(got, want as f32) && same32(i, want_i as f32), || {
            format!("fract_f32({x:e}) = {got:e}, {i:e}")
        });
        let mut i = 9.0f64;
        // SAFETY: `i` is a live local.
        let got = unsafe { d(x, &mut i) };
        c.expect(same64(got, want64) && same64(i, want_i), || {
            format!("fract_f64({x:e}) = {got:e}, {i:e}")
        });
    }

    // modf: both parts with the sign of x.
    let (f, d) = (f32_p("modf"), f64_p("modf"));
    for (x, frac, int) in [
        (1.5, 0.5, 1.0),
        (-1.5, -0.5, -1.0),
        (-3.0, -0.0, -3.0),
        (3.0, 0.0, 3.0),
        (0.0, 0.0, 0.0),
        (-0.0, -0.0, -0.0),
        (INF, 0.0, INF),
        (-INF, -0.0, -INF),
        (NAN, NAN, NAN),
    ] {
        let mut i = 9.0f32;
        // SAFETY: `i` is a live local.
        let got = unsafe { f(x as f32, &mut i) };
        c.expect(same32(got, frac as f32) && same32(i, int as f32), || {
            format!("modf_f32({x:e}) = {got:e}, {i:e}")
        });
        let mut i = 9.0f64;
        // SAFETY: `i` is a live local.
        let got = unsafe { d(x, &mut i) };
        c.expect(same64(got, frac) && same64(i, int), || {
            format!("modf_f64({x:e}) = {got:e}, {i:e}")
        });
    }

    // frexp (section 7.5.1: 0 stored for infinities and NaN).
    let (f, d) = (f32_pi("frexp"), f64_pi("frexp"));
    for (x, m, e) in [
        (0.0, 0.0, 0),
        (-0.0, -0.0, 0),
        (INF, INF, 0),
        (-INF, -INF, 0),
        (NAN, NAN, 0),
        (8.0, 0.5, 4),
        (-0.75, -0.75, 0),
    ] {
        let mut k = 99;
        // SAFETY: `k` is a live local.
        let got = unsafe { f(x as f32, &mut k) };
        c.expect(same32(got, m as f32) && k == e, || {
            format!("frexp_f32({x:e}) = {got:e}, {k}")
        });
        let mut k = 99;
        // SAFETY: `k` is a live local.
        let got = unsafe { d(x, &mut k) };
        c.expect(same64(got, m) && k == e, || {
            format!("frexp_f64({x:e}) = {got:e}, {k}")
        });
    }
    let mut k = 0;
    // SAFETY: `k` is a live local.
    let got = unsafe { f(f32::from_bits(1), &mut k) };
    c.expect(got == 0.5 && k == -148, || {
        format!("frexp_f32(min subnormal) = {got}, {k}")
    });
    // SAFETY: `k` is a live local.
    let got = unsafe { d(f64::from_bits(3), &mut k) };
    c.expect(got == 0.75 && k == -1072, || {
        format!("frexp_f64(3 min subnormals) = {got}, {k}")
    });
    // SAFETY: `k` is a live local.
    let got = unsafe { f(f32::MAX, &mut k) };
    c.expect(got == f32::MAX / 2f32.powi(127) / 2.0 && k == 128, || {
        format!("frexp_f32(MAX) = {got}, {k}")
    });

    // ldexp: exact, one rounding into the subnormals.
    c.int(
        "ldexp",
        &[
            (0.0, 5, 0.0),
            (-0.0, -5, -0.0),
            (INF, -1000, INF),
            (-INF, 1000, -INF),
            (NAN, 1, NAN),
            (3.0, 0, 3.0),
            (1.0, 2000, INF),
            (-1.0, 2000, -INF),
            (1.0, -2000, 0.0),
            (-1.0, -2000, -0.0),
            (1.0, i32::MAX, INF),
            (1.0, i32::MIN, 0.0),
        ],
    );
    let l32 = f32_i("ldexp");
    c.expect(l32(1.0, -149) == f32::from_bits(1), || {
        "ldexp_f32(1, -149)".into()
    });
    c.expect(l32(1.5, -149) == f32::from_bits(2), || {
        "ldexp_f32(1.5, -149) (ties to even)".into()
    });
    c.expect(l32(1.25, -148) == f32::from_bits(2), || {
        "ldexp_f32(1.25, -148)".into()
    });
    c.expect(l32(f32::from_bits(1), 149) == 1.0, || {
        "ldexp_f32(min subnormal, 149)".into()
    });
    // (2 - 2^-23)·2^-150 is just below the smallest subnormal, and rounds to it.
    c.expect(l32(f32::MAX, -277) == f32::from_bits(1), || {
        "ldexp_f32(MAX, -277)".into()
    });
    let l64 = f64_i("ldexp");
    c.expect(l64(1.5, -1074) == f64::from_bits(2), || {
        "ldexp_f64(1.5, -1074)".into()
    });
    c.expect(l64(f64::from_bits(1), 1074) == 1.0, || {
        "ldexp_f64(min subnormal, 1074)".into()
    });
    c.done();
}

#[test]
fn remainders() {
    let mut c = Checks::default();
    c.two(
        "fmod",
        &[
            (0.0, 3.0, 0.0),
            (-0.0, 3.0, -0.0),
            (INF, 3.0, NAN),
            (-INF, 3.0, NAN),
            (3.0, 0.0, NAN),
            (3.0, -0.0, NAN),
            (3.0, INF, 3.0),
            (-3.0, -INF, -3.0),
            (0.0, NAN, NAN),
            (-0.0, NAN, NAN),
            (7.0, 2.0, 1.0),
            (-7.0, 2.0, -1.0),
        ],
    );
    c.two(
        "remainder",
        &[
            (0.0, 3.0, 0.0),
            (-0.0, 3.0, -0.0),
            (INF, 3.0, NAN),
            (3.0, 0.0, NAN),
            (3.0, INF, 3.0),
            (5.0, 2.0, 1.0),
            (7.0, 2.0, -1.0),
            (-7.0, 2.0, 1.0),
            (4.0, 2.0, 0.0),
            (-4.0, 2.0, -0.0),
            (NAN, 1.0, NAN),
        ],
    );
    let (f, d) = (address("clift_remquo_f32"), address("clift_remquo_f64"));
    // SAFETY: these are the remquo functions, of these signatures.
    let f: unsafe extern "C" fn(f32, f32, *mut i32) -> f32 = unsafe { std::mem::transmute(f) };
    // SAFETY: as above.
    let d: unsafe extern "C" fn(f64, f64, *mut i32) -> f64 = unsafe { std::mem::transmute(d) };
    for (x, y, r, q) in [
        (7.0, 2.0, -1.0, 4),
        (-7.0, 2.0, 1.0, -4),
        (5.0, -2.0, 1.0, -2),
        (1000.0, 3.0, 1.0, 333 & 127),
        (0.0, 3.0, 0.0, 0),
        (INF, 3.0, NAN, 0),
        (-INF, NAN, NAN, 0),
        (3.0, 0.0, NAN, 0),
        (3.0, -0.0, NAN, 0),
        (NAN, 3.0, NAN, 0),
        (3.0, NAN, NAN, 0),
        (NAN, 0.0, NAN, 0),
    ] {
        let mut k = 99;
        // SAFETY: `k` is a live local.
        let got = unsafe { f(x as f32, y as f32, &mut k) };
        let k7 = if k < 0 { -((-k) & 127) } else { k & 127 };
        c.expect(same32(got, r as f32) && k7 == q, || {
            format!("remquo_f32({x}, {y}) = {got}, {k}")
        });
        let mut k = 99;
        // SAFETY: `k` is a live local.
        let got = unsafe { d(x, y, &mut k) };
        let k7 = if k < 0 { -((-k) & 127) } else { k & 127 };
        c.expect(same64(got, r) && k7 == q, || {
            format!("remquo_f64({x}, {y}) = {got}, {k}")
        });
    }
    c.done();
}

#[test]
fn comparison_and_misc() {
    let mut c = Checks::default();
    c.two(
        "fmax",
        &[
            (NAN, 1.0, 1.0),
            (1.0, NAN, 1.0),
            (NAN, NAN, NAN),
            (1.0, 2.0, 2.0),
            (-INF, -3.0, -3.0),
            (INF, NAN, INF),
        ],
    );
    c.two(
        "fmin",
        &[
            (NAN, 1.0, 1.0),
            (1.0, NAN, 1.0),
            (NAN, NAN, NAN),
            (1.0, 2.0, 1.0),
            (-INF, -3.0, -INF),
        ],
    );
    c.two(
        "maxmag",
        &[
            (1.0, -2.0, -2.0),
            (-1.0, 1.0, 1.0),
            (NAN, 1.0, 1.0),
            (3.0, NAN, 3.0),
            (-INF, 5.0, -INF),
        ],
    );
    c.two(
        "minmag",
        &[
            (1.0, -2.0, 1.0),
            (-1.0, 1.0, -1.0),
            (NAN, 1.0, 1.0),
            (3.0, NAN, 3.0),
            (-INF, 5.0, 5.0),
        ],
    );
    c.two(
        "fdim",
        &[
            (NAN, 1.0, NAN),
            (1.0, NAN, NAN),
            (1.0, 2.0, 0.0),
            (2.0, 1.0, 1.0),
            (INF, INF, 0.0),
            (INF, 1.0, INF),
        ],
    );
    let (f, d) = (f32_2("nextafter"), f64_2("nextafter"));
    c.expect(f(-0.0, 1.0) == f32::from_bits(1), || {
        "nextafter_f32(-0, 1)".into()
    });
    c.expect(f(0.0, -1.0) == -f32::from_bits(1), || {
        "nextafter_f32(+0, -1)".into()
    });
    c.expect(d(-0.0, 1.0) == f64::from_bits(1), || {
        "nextafter_f64(-0, 1)".into()
    });
    c.expect(d(0.0, -1.0) == -f64::from_bits(1), || {
        "nextafter_f64(+0, -1)".into()
    });
    c.expect(
        f(f32::MIN_POSITIVE, 0.0) == f32::from_bits(0x007f_ffff),
        || "nextafter_f32 into subnormals".into(),
    );
    c.expect(f(1.0, 2.0) == 1.0 + f32::EPSILON, || {
        "nextafter_f32(1, 2)".into()
    });
    c.expect(f(f32::MAX, INF as f32) == f32::INFINITY, || {
        "nextafter_f32(MAX, inf)".into()
    });
    c.expect(f(NAN as f32, 1.0).is_nan() && d(1.0, NAN).is_nan(), || {
        "nextafter NaN".into()
    });

    // fma: exact product; mad: any; nan: the code in the low mantissa bits.
    let (f, d) = (f32_3("fma"), f64_3("fma"));
    c.expect(
        f(f32::INFINITY, 0.0, 1.0).is_nan() && d(INF, 0.0, NAN).is_nan(),
        || "fma(inf, 0, z)".into(),
    );
    c.expect(f(2.0, 3.0, 4.0) == 10.0 && d(2.0, 3.0, 4.0) == 10.0, || {
        "fma(2, 3, 4)".into()
    });
    let e = f32::EPSILON;
    c.expect(f(1.0 + e, 1.0 - e, -1.0) == -e * e, || {
        "fma_f32 keeps the exact product".into()
    });
    let e = f64::EPSILON;
    c.expect(d(1.0 + e, 1.0 - e, -1.0) == -e * e, || {
        "fma_f64 keeps the exact product".into()
    });
    c.expect(f(f32::from_bits(1), 0.5, 0.0) == 0.0, || {
        "fma_f32 rounds subnormal ties to even".into()
    });
    c.expect(f(f32::from_bits(3), 0.5, 0.0) == f32::from_bits(2), || {
        "fma_f32(3 subnormal ulps · 1/2)".into()
    });
    let m = f32_3("mad");
    c.expect(m(2.0, 3.0, 4.0) == 10.0, || "mad(2, 3, 4)".into());
    let n32: extern "C" fn(u32) -> f32 =
        // SAFETY: `clift_nan_f32` has this signature.
        unsafe { std::mem::transmute(address("clift_nan_f32")) };
    let n64: extern "C" fn(u64) -> f64 =
        // SAFETY: `clift_nan_f64` has this signature.
        unsafe { std::mem::transmute(address("clift_nan_f64")) };
    c.expect(n32(5).to_bits() == 0x7fc0_0005, || "nan_f32(5)".into());
    c.expect(n32(u32::MAX).is_nan() && n32(0).is_nan(), || {
        "nan_f32 is a NaN".into()
    });
    c.expect(n64(5).to_bits() == 0x7ff8_0000_0000_0005, || {
        "nan_f64(5)".into()
    });
    c.expect(n64(u64::MAX).is_nan() && n64(0).is_nan(), || {
        "nan_f64 is a NaN".into()
    });
    c.done();
}

#[test]
fn error_and_gamma() {
    let mut c = Checks::default();
    c.one(
        "erf",
        &[
            (0.0, 0.0),
            (-0.0, -0.0),
            (INF, 1.0),
            (-INF, -1.0),
            (NAN, NAN),
        ],
    );
    c.one("erfc", &[(-INF, 2.0), (INF, 0.0), (NAN, NAN), (0.0, 1.0)]);
    c.one(
        "tgamma",
        &[
            (0.0, INF),
            (-0.0, -INF),
            (-1.0, NAN),
            (-2.0, NAN),
            (-INF, NAN),
            (INF, INF),
            (1.0, 1.0),
            (2.0, 1.0),
            (NAN, NAN),
            (200.0, INF),
        ],
    );
    c.near("tgamma", &[(5.0, 24.0), (0.5, PI.sqrt())], 16.0);
    c.one(
        "lgamma",
        &[
            (1.0, 0.0),
            (2.0, 0.0),
            (0.0, INF),
            (-0.0, INF),
            (-1.0, INF),
            (-INF, INF),
            (INF, INF),
            (NAN, NAN),
        ],
    );
    let (f, d) = (f32_pi("lgamma_r"), f64_pi("lgamma_r"));
    // Section 7.5.1: 0 in signp at zero and the negative integers.
    for (x, sign) in [
        (0.0, 0),
        (-0.0, 0),
        (-1.0, 0),
        (-2.0, 0),
        (-0.5, -1),
        (-1.5, 1),
        (0.5, 1),
        (3.0, 1),
    ] {
        let mut s = 99;
        // SAFETY: `s` is a live local.
        let v = unsafe { f(x as f32, &mut s) };
        c.expect(s == sign, || {
            format!("lgamma_r_f32({x}) sign {s}, want {sign} ({v})")
        });
        let mut s = 99;
        // SAFETY: `s` is a live local.
        let v = unsafe { d(x, &mut s) };
        c.expect(s == sign, || {
            format!("lgamma_r_f64({x}) sign {s}, want {sign} ({v})")
        });
    }
    c.done();
}

/// `half_` functions must give their full-precision counterparts' special values (section
/// 7.5.1); `native_` ones should too.
#[test]
fn half_and_native_special_values() {
    let mut c = Checks::default();
    let inputs = [
        0.0f32,
        -0.0,
        1.0,
        -1.0,
        0.5,
        2.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::from_bits(1),
        100.0,
        -100.0,
    ];
    for name in [
        "cos", "exp", "exp2", "exp10", "log", "log2", "log10", "rsqrt", "sin", "sqrt", "tan",
    ] {
        let full = f32_1(name);
        for prefix in ["half", "native"] {
            let v = f32_1(&format!("{prefix}_{name}"));
            for &x in &inputs {
                let (a, b) = (v(x), full(x));
                c.expect(same32(a, b), || {
                    format!("{prefix}_{name}({x:e}) = {a:e}, {name} gives {b:e}")
                });
            }
        }
    }
    for prefix in ["half", "native"] {
        let recip = f32_1(&format!("{prefix}_recip"));
        for &x in &inputs {
            c.expect(same32(recip(x), 1.0 / x), || {
                format!("{prefix}_recip({x:e})")
            });
        }
        let div = f32_2(&format!("{prefix}_divide"));
        let powr = f32_2(&format!("{prefix}_powr"));
        let full_powr = f32_2("powr");
        for &x in &inputs {
            for &y in &inputs {
                c.expect(same32(div(x, y), x / y), || {
                    format!("{prefix}_divide({x:e}, {y:e})")
                });
                c.expect(same32(powr(x, y), full_powr(x, y)), || {
                    format!("{prefix}_powr({x:e}, {y:e})")
                });
            }
        }
    }
    let divide = f32_2("divide");
    c.expect(divide(1.0, 3.0) == 1.0f32 / 3.0, || "divide".into());
    c.expect(
        same32(divide(0.0, 0.0), f32::NAN) && divide(-1.0, 0.0) == f32::NEG_INFINITY,
        || "divide specials".into(),
    );
    c.done();
}

/// `atan2pi` of finite nonzero `float`s goes through the `atan2` table kernel times `1/pi`:
/// the four diagonals exactly, a few values far (≥ 0.16 ulp) from a rounding midpoint, and
/// the results that round to 0.5, 1 and 0.
#[test]
fn atan2pi_float_kernel() {
    let f = f32_2("atan2pi");
    for (y, x, want) in [
        (1.0, 1.0, 0.25),
        (-1.0, -1.0, -0.75),
        (1.0, -1.0, 0.75),
        (-7.0, 7.0, -0.25),
        // atan2(1, 0x1.bb67aep0)/pi = 0.16666666914..., 0.17 ulp below 0x3e2aaaab.
        (
            1.0,
            f32::from_bits(0x3fdd_b3d7),
            f32::from_bits(0x3e2a_aaab),
        ),
        // atan2(-2.5, 0.1f)/pi = -0.48727438846..., 0.33 ulp from 0xbef97c07.
        (-2.5, 0.1, f32::from_bits(0xbef9_7c07)),
        (1e-20, -3.0, 1.0),
        (3.0, 1e-30, 0.5),
        (f32::from_bits(1), f32::MAX, 0.0),
        (-f32::from_bits(1), -f32::MAX, -1.0),
    ] {
        let got = f(y, x);
        assert_eq!(
            got.to_bits(),
            want.to_bits(),
            "atan2pi_f32({y:e}, {x:e}) = {got:e}"
        );
    }
}
