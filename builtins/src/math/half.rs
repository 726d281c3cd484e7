//! The math builtins whose `half` overloads (cl_khr_fp16) cannot be the `float` function
//! rounded to half: `half` values travel as the `float` of the same value (see
//! [`crate::half`]), and most functions are the `float` function followed by one rounding to
//! half, within the half ulp bounds. These are the exceptions:
//!
//! - `nextafter` steps to the neighbouring *half*: it works on half bits
//!   (`nextafter(-0, 1)` is 0x0001, 2^-24, where the float step would round back to zero).
//! - `fract`, `modf` and `sincos` write their second result through a `half *`: 16 bits, not a
//!   float's 32. `fract`'s result is capped below 1 in half (0x1.ffcp-1), since
//!   `x - floor(x)` of a tiny negative half rounds up to 1.0 in half.
//!
//! Arguments and results are the `float` that holds the half (`f32`); pointers are the
//! half's 16 bits (`*mut u16`).

use crate::half::{clift_f32_round_half, clift_f32_to_half_bits, clift_half_bits_to_f32};

/// 0x1.ffcp-1, the largest half below 1: `fract` never returns 1.0.
const BELOW_ONE: f32 = 1.0 - 1.0 / 2048.0;

/// `nextafter(x, y)` of halves: the next half after `x` in the direction of `y`.
pub extern "C" fn clift_nextafter_f16(x: f32, y: f32) -> f32 {
    if x.is_nan() || y.is_nan() {
        return x + y;
    }
    if x == y {
        return y;
    }
    let hx = clift_f32_to_half_bits(x);
    let bits = if x == 0.0 {
        // The smallest denormal, with the sign of the direction.
        if y > 0.0 { 0x0001 } else { 0x8001 }
    } else if (x < y) == (x > 0.0) {
        // Away from zero: the magnitude grows (inf from the largest half).
        hx + 1
    } else {
        hx - 1
    };
    clift_half_bits_to_f32(bits)
}

/// `fract(x, iptr)` of a half: `fmin(x - floor(x), 0x1.ffcp-1)`, `floor(x)` stored as half
/// bits; the section 7.5.1 values for zeros, infinities and NaN.
///
/// # Safety
/// `iptr` must be valid for writing one `half` (two bytes, aligned to two).
pub unsafe extern "C" fn clift_fract_f16(x: f32, iptr: *mut u16) -> f32 {
    let fl = libm::floorf(x);
    // SAFETY: the caller guarantees `iptr` is writable (see `# Safety`).
    unsafe { iptr.write(clift_f32_to_half_bits(fl)) };
    if x.is_nan() || x == 0.0 {
        return x;
    }
    if x.is_infinite() {
        return 0.0f32.copysign(x);
    }
    // Exact in float: a non-integral half is below 2^10 with no bit under 2^-24.
    clift_f32_round_half(x - fl).min(BELOW_ONE)
}

/// `modf(x, iptr)` of a half: integral part stored as half bits, fractional part returned,
/// both with `x`'s sign.
///
/// # Safety
/// `iptr` must be valid for writing one `half`.
pub unsafe extern "C" fn clift_modf_f16(x: f32, iptr: *mut u16) -> f32 {
    let t = libm::truncf(x);
    // SAFETY: the caller guarantees `iptr` is writable (see `# Safety`).
    unsafe { iptr.write(clift_f32_to_half_bits(t)) };
    if x.is_nan() {
        return x;
    }
    if x.is_infinite() {
        return 0.0f32.copysign(x);
    }
    (x - t).copysign(x)
}

/// `sincos(x, cosval)` of a half: returns `sin(x)` (rounded to half by the caller) and
/// stores `cos(x)` rounded to half.
///
/// # Safety
/// `cosval` must be valid for writing one `half`.
pub unsafe extern "C" fn clift_sincos_f16(x: f32, cosval: *mut u16) -> f32 {
    let (s, c) = super::kernels::sincos_f32(x);
    // SAFETY: the caller guarantees `cosval` is writable (see `# Safety`).
    unsafe { cosval.write(clift_f32_to_half_bits(c)) };
    s
}

/// The half-specific math symbols, for the JIT's symbol table.
pub fn half_symbols() -> Vec<(&'static str, *const u8)> {
    vec![
        ("clift_nextafter_f16", clift_nextafter_f16 as *const u8),
        ("clift_fract_f16", clift_fract_f16 as *const u8),
        ("clift_modf_f16", clift_modf_f16 as *const u8),
        ("clift_sincos_f16", clift_sincos_f16 as *const u8),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(bits: u16) -> f32 {
        clift_half_bits_to_f32(bits)
    }

    fn bits(x: f32) -> u16 {
        clift_f32_to_half_bits(x)
    }

    #[test]
    fn nextafter_steps_half_bits() {
        // The CTS's math_edge_cases: nextafter(-0, 1) is the smallest denormal 0x0001.
        assert_eq!(bits(clift_nextafter_f16(h(0x8000), h(0x3c00))), 0x0001);
        assert_eq!(bits(clift_nextafter_f16(h(0x0000), h(0xbc00))), 0x8001);
        assert_eq!(bits(clift_nextafter_f16(h(0x3c00), h(0x4000))), 0x3c01);
        assert_eq!(bits(clift_nextafter_f16(h(0x3c00), h(0x0000))), 0x3bff);
        assert_eq!(bits(clift_nextafter_f16(h(0xbc00), h(0x0000))), 0xbbff);
        assert_eq!(bits(clift_nextafter_f16(h(0x0001), h(0x8000))), 0x0000);
        assert_eq!(bits(clift_nextafter_f16(h(0x7bff), h(0x7c00))), 0x7c00);
        assert_eq!(bits(clift_nextafter_f16(h(0x3c00), h(0x3c00))), 0x3c00);
        assert!(clift_nextafter_f16(f32::NAN, 1.0).is_nan());
    }

    #[test]
    fn fract_caps_below_one_in_half() {
        let mut ip = 0u16;
        // -2^-24: floor -1, x - floor = 1 - 2^-24, which rounds to 1.0 in half.
        // SAFETY: `ip` is a live u16.
        let f = unsafe { clift_fract_f16(h(0x8001), &mut ip) };
        assert_eq!(bits(f), 0x3bff);
        assert_eq!(ip, 0xbc00);
        // SAFETY: as above.
        let f = unsafe { clift_fract_f16(h(0x3e00), &mut ip) };
        assert_eq!((bits(f), ip), (0x3800, 0x3c00));
    }

    #[test]
    fn modf_and_sincos_store_half_bits() {
        let mut ip = 0xffffu16;
        // SAFETY: `ip` is a live u16.
        let f = unsafe { clift_modf_f16(h(0xc100), &mut ip) };
        assert_eq!((bits(f), ip), (0xb800, 0xc000)); // -2.5: -0.5 and -2
        let mut c = 0u16;
        // SAFETY: as above.
        let s = unsafe { clift_sincos_f16(0.0, &mut c) };
        assert_eq!((s, c), (0.0, 0x3c00));
    }
}
