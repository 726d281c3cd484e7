//! The scalar math builtins of OpenCL C 1.2 section 6.12.2, for `float` and `double`.
//!
//! Kernels call them by symbol: the JIT resolves the name `clift_<name>_f32` (float) or
//! `clift_<name>_f64` (double) through [`symbols`]; vector overloads are the compiler's loop
//! over these. The `half_<name>` and `native_<name>` variants exist for `float` only
//! (`clift_half_sin_f32`, `clift_native_exp_f32`, ...), as does `clift_divide_f32`, the
//! correctly rounded division for `-cl-fp32-correctly-rounded-divide-sqrt`.
//!
//! Arguments and results are passed by value in the C calling convention; pointer outputs
//! (`fract`, `frexp`, `lgamma_r`, `modf`, `remquo`, `sincos`) are `*mut T` parameters that the
//! function writes: those functions are `unsafe`, the compiler guaranteeing the pointer.
//! `int` parameters and results are `i32`, `nan`'s `uint`/`ulong` code `u32`/`u64`.
//!
//! # Accuracy
//!
//! Every function meets table 7.1 (float) and 7.2 (double), and the special values of C99
//! F.9 and section 7.5.1 exactly; denormals are supported (never flushed), as the device
//! reports `CL_FP_DENORM`. How each is computed is documented in `single.rs` and `double.rs`.
//! `half_*` meet the 8192-ulp bound by being the full-precision functions (they accept the
//! whole argument range, not just [-2^16, 2^16]): the full versions are already about as fast
//! as the host libm's, so a less accurate variant would buy little. `native_*` are the
//! full-precision functions too, except `native_divide`, `native_recip` and `native_sqrt`,
//! the hardware's correctly rounded division and square root, and `native_rsqrt`, which is
//! `1/sqrt(x)` in `float` (two correctly rounded steps: within 1.5 ulp, where `rsqrt` is
//! within 0.5 ulp + tiny). Their accuracy, "implementation-defined" by table 7.1, is thus
//! the full functions'.
//!
//! `tests/math_accuracy.rs` measures the error of every function (its `accuracy_table` test
//! prints the table; `exhaustive_f32` checks all 2^32 `float` arguments of the one-argument
//! functions, see its documentation); `tests/math_special.rs` checks the special values.

// Before the modules, which use it too.
/// `(symbol, address)` entries for the listed functions.
macro_rules! registry {
    ($($f:ident)*) => {
        vec![$((stringify!($f), $f as *const u8)),*]
    };
}

mod atan;
mod double;
#[cfg(target_arch = "x86_64")]
mod f64x4;
mod half;
mod kernels;
#[cfg(target_arch = "x86_64")]
mod kernels4;
#[cfg(target_arch = "x86_64")]
mod lanes;
#[cfg(target_arch = "x86_64")]
mod lanes2;
mod reduce_pio2;
mod remainder;
mod single;

pub use double::*;
pub use half::*;
#[cfg(target_arch = "x86_64")]
pub use lanes::*;
pub use single::*;

/// `ilogb(±0)`: INT_MIN, one of the two values section 6.12.2.1 allows (the other being
/// -INT_MAX), the one clang's OpenCL headers define.
pub const FP_ILOGB0: i32 = i32::MIN;
/// `ilogb(NaN)`: INT_MAX (section 6.12.2.1 allows INT_MAX or INT_MIN).
pub const FP_ILOGBNAN: i32 = i32::MAX;

/// The special values of `atan2pi` (section 7.5.1), in `double` (each is exact in `float`
/// too), or `None` where the quotient `atan2(y, x)/pi` applies.
fn atan2pi_special(y: f64, x: f64) -> Option<f64> {
    if y.is_nan() || x.is_nan() {
        return Some(y + x);
    }
    let one = |v: f64| Some(v.copysign(y));
    if y == 0.0 {
        // atan2pi(±0, x) is ±1 for x < 0 or x = -0, ±0 for x > 0 or x = +0.
        return one(if x.is_sign_negative() { 1.0 } else { 0.0 });
    }
    if y.is_infinite() {
        return one(if x == f64::INFINITY {
            0.25
        } else if x == f64::NEG_INFINITY {
            0.75
        } else {
            0.5
        });
    }
    if x == 0.0 {
        return one(0.5);
    }
    if x.is_infinite() {
        return one(if x < 0.0 { 1.0 } else { 0.0 });
    }
    None
}

// --- half_ and native_ ---------------------------------------------------------------------

/// Defines `half_`/`native_` one-argument functions as the full-precision ones.
macro_rules! alias1 {
    ($($(#[$doc:meta])* $name:ident => $full:ident;)*) => {$(
        $(#[$doc])*
        pub extern "C" fn $name(x: f32) -> f32 {
            $full(x)
        }
    )*};
}

/// Defines `half_`/`native_` two-argument functions as the full-precision ones.
macro_rules! alias2 {
    ($($(#[$doc:meta])* $name:ident => $full:ident;)*) => {$(
        $(#[$doc])*
        pub extern "C" fn $name(x: f32, y: f32) -> f32 {
            $full(x, y)
        }
    )*};
}

alias1! {
    /// `half_cos`: the full-precision `cos` (≤ 0.5 ulp + tiny, any argument).
    clift_half_cos_f32 => clift_cos_f32;
    clift_half_exp_f32 => clift_exp_f32;
    clift_half_exp2_f32 => clift_exp2_f32;
    clift_half_exp10_f32 => clift_exp10_f32;
    clift_half_log_f32 => clift_log_f32;
    clift_half_log2_f32 => clift_log2_f32;
    clift_half_log10_f32 => clift_log10_f32;
    clift_half_recip_f32 => recip_f32;
    clift_half_rsqrt_f32 => clift_rsqrt_f32;
    clift_half_sin_f32 => clift_sin_f32;
    clift_half_sqrt_f32 => clift_sqrt_f32;
    clift_half_tan_f32 => clift_tan_f32;
    clift_native_cos_f32 => clift_cos_f32;
    clift_native_exp_f32 => clift_exp_f32;
    clift_native_exp2_f32 => clift_exp2_f32;
    clift_native_exp10_f32 => clift_exp10_f32;
    clift_native_log_f32 => clift_log_f32;
    clift_native_log2_f32 => clift_log2_f32;
    clift_native_log10_f32 => clift_log10_f32;
    /// `native_recip`: the IEEE division `1/x` (correctly rounded).
    clift_native_recip_f32 => recip_f32;
    /// `native_rsqrt`: `1/sqrt(x)` in `float`, two correctly rounded steps (≤ 1.5 ulp).
    clift_native_rsqrt_f32 => rsqrt_fast_f32;
    clift_native_sin_f32 => clift_sin_f32;
    /// `native_sqrt`: the IEEE square root (correctly rounded).
    clift_native_sqrt_f32 => clift_sqrt_f32;
    clift_native_tan_f32 => clift_tan_f32;
}

alias2! {
    /// `half_divide`: the IEEE division (correctly rounded).
    clift_half_divide_f32 => clift_divide_f32;
    /// `half_powr`: the full-precision `powr`.
    clift_half_powr_f32 => clift_powr_f32;
    /// `native_divide`: the IEEE division (correctly rounded).
    clift_native_divide_f32 => clift_divide_f32;
    clift_native_powr_f32 => clift_powr_f32;
}

fn recip_f32(x: f32) -> f32 {
    1.0 / x
}

fn rsqrt_fast_f32(x: f32) -> f32 {
    1.0 / x.sqrt()
}

// --- the registry --------------------------------------------------------------------------

/// Every math builtin by symbol name, with its address, for the JIT's symbol table: one
/// `clift_<name>_f32` and one `clift_<name>_f64` per math function of table 6.9, one
/// `clift_<name>_f32` per `half_`/`native_` function of table 6.10, `clift_divide_f32`, and
/// on x86-64 the four-lane forms of the vectorizer (`clift_v4_<name>_f32`, `lanes.rs`).
pub fn symbols() -> Vec<(&'static str, *const u8)> {
    #[allow(unused_mut)]
    let mut all = registry! {
        clift_acos_f32 clift_acosh_f32 clift_acospi_f32 clift_asin_f32 clift_asinh_f32
        clift_asinpi_f32 clift_atan_f32 clift_atan2_f32 clift_atanh_f32 clift_atanpi_f32
        clift_atan2pi_f32 clift_cbrt_f32 clift_ceil_f32 clift_copysign_f32 clift_cos_f32
        clift_cosh_f32 clift_cospi_f32 clift_erfc_f32 clift_erf_f32 clift_exp_f32
        clift_exp2_f32 clift_exp10_f32 clift_expm1_f32 clift_fabs_f32 clift_fdim_f32
        clift_floor_f32 clift_fma_f32 clift_fmax_f32 clift_fmin_f32 clift_fmod_f32
        clift_fract_f32 clift_frexp_f32 clift_hypot_f32 clift_ilogb_f32 clift_ldexp_f32
        clift_lgamma_f32 clift_lgamma_r_f32 clift_log_f32 clift_log2_f32 clift_log10_f32
        clift_log1p_f32 clift_logb_f32 clift_mad_f32 clift_maxmag_f32 clift_minmag_f32
        clift_modf_f32 clift_nan_f32 clift_nextafter_f32 clift_pow_f32 clift_pown_f32
        clift_powr_f32 clift_remainder_f32 clift_remquo_f32 clift_rint_f32 clift_rootn_f32
        clift_round_f32 clift_rsqrt_f32 clift_sin_f32 clift_sincos_f32 clift_sinh_f32
        clift_sinpi_f32 clift_sqrt_f32 clift_tan_f32 clift_tanh_f32 clift_tanpi_f32
        clift_tgamma_f32 clift_trunc_f32

        clift_acos_f64 clift_acosh_f64 clift_acospi_f64 clift_asin_f64 clift_asinh_f64
        clift_asinpi_f64 clift_atan_f64 clift_atan2_f64 clift_atanh_f64 clift_atanpi_f64
        clift_atan2pi_f64 clift_cbrt_f64 clift_ceil_f64 clift_copysign_f64 clift_cos_f64
        clift_cosh_f64 clift_cospi_f64 clift_erfc_f64 clift_erf_f64 clift_exp_f64
        clift_exp2_f64 clift_exp10_f64 clift_expm1_f64 clift_fabs_f64 clift_fdim_f64
        clift_floor_f64 clift_fma_f64 clift_fmax_f64 clift_fmin_f64 clift_fmod_f64
        clift_fract_f64 clift_frexp_f64 clift_hypot_f64 clift_ilogb_f64 clift_ldexp_f64
        clift_lgamma_f64 clift_lgamma_r_f64 clift_log_f64 clift_log2_f64 clift_log10_f64
        clift_log1p_f64 clift_logb_f64 clift_mad_f64 clift_maxmag_f64 clift_minmag_f64
        clift_modf_f64 clift_nan_f64 clift_nextafter_f64 clift_pow_f64 clift_pown_f64
        clift_powr_f64 clift_remainder_f64 clift_remquo_f64 clift_rint_f64 clift_rootn_f64
        clift_round_f64 clift_rsqrt_f64 clift_sin_f64 clift_sincos_f64 clift_sinh_f64
        clift_sinpi_f64 clift_sqrt_f64 clift_tan_f64 clift_tanh_f64 clift_tanpi_f64
        clift_tgamma_f64 clift_trunc_f64

        clift_half_cos_f32 clift_half_divide_f32 clift_half_exp_f32 clift_half_exp2_f32
        clift_half_exp10_f32 clift_half_log_f32 clift_half_log2_f32 clift_half_log10_f32
        clift_half_powr_f32 clift_half_recip_f32 clift_half_rsqrt_f32 clift_half_sin_f32
        clift_half_sqrt_f32 clift_half_tan_f32
        clift_native_cos_f32 clift_native_divide_f32 clift_native_exp_f32
        clift_native_exp2_f32 clift_native_exp10_f32 clift_native_log_f32
        clift_native_log2_f32 clift_native_log10_f32 clift_native_powr_f32
        clift_native_recip_f32 clift_native_rsqrt_f32 clift_native_sin_f32
        clift_native_sqrt_f32 clift_native_tan_f32

        clift_divide_f32
    };
    #[cfg(target_arch = "x86_64")]
    all.extend(lanes::symbols());
    #[cfg(target_arch = "x86_64")]
    all.extend(lanes2::symbols());
    all
}
