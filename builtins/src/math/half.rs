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
//! - `fma` rounds once: `fma` in float and then to half rounds twice, and the second rounding
//!   can land on the other side of a half tie (the CTS's `fma(0x5bab, 0x4cfd, 0x7701)` is
//!   33583.998…, whose float is the tie 33584.0, which rounds to 33600 instead of 33568).
//!
//! Arguments and results are the `float` that holds the half (`f32`); pointers are the
//! half's 16 bits (`*mut u16`).

use crate::half::{
    clift_f32_round_half, clift_f32_to_half_bits, clift_f64_to_half_rte, clift_half_bits_to_f32,
};

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

/// `fma(a, b, c)` of halves, rounded once to half (ties to even).
///
/// The product of two halves (11-bit significands) is exact in double. The sum with `c` may
/// need more than double's 53 bits (a product near 2^-48 added to a `c` near 2^15), so it is
/// taken with its exact error (Knuth's two-sum) and rounded to odd: a double whose last bit
/// is set when the sum was inexact. A value rounded to odd with at least two bits more than
/// the target rounds to the target as the exact value would (Boldo and Melquiond, "Emulation
/// of FMA and correctly-rounded sums: proved algorithms using rounding to odd", 2008), so the
/// one rounding to half that follows is the correctly rounded `fma`. Infinities and NaNs
/// take the float `fma`'s result (which is exact for them).
pub extern "C" fn clift_fma_f16(a: f32, b: f32, c: f32) -> f32 {
    if !(a.is_finite() && b.is_finite() && c.is_finite()) {
        return clift_f32_round_half(a.mul_add(b, c));
    }
    let product = f64::from(a) * f64::from(b);
    let addend = f64::from(c);
    let sum = product + addend;
    // Two-sum: `sum + error` is exactly `product + addend`.
    let virtual_addend = sum - product;
    let virtual_product = sum - virtual_addend;
    let error = (product - virtual_product) + (addend - virtual_addend);
    let mut bits = sum.to_bits();
    if error != 0.0 && bits & 1 == 0 {
        // The neighbour on the exact value's side is the odd one. The sum is not zero
        // here (an exact zero has no error), so its sign says which way is away from zero.
        if (error > 0.0) == (sum > 0.0) {
            bits += 1;
        } else {
            bits -= 1;
        }
    }
    clift_half_bits_to_f32(clift_f64_to_half_rte(f64::from_bits(bits)))
}

/// The half-specific math symbols, for the JIT's symbol table.
pub fn half_symbols() -> Vec<(&'static str, *const u8)> {
    vec![
        ("clift_nextafter_f16", clift_nextafter_f16 as *const u8),
        ("clift_fma_f16", clift_fma_f16 as *const u8),
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

    /// The exact `fma` of three finite halves (given by their bits) rounded to half, ties to
    /// even, from integer arithmetic: every finite half is an integer times 2^-24, so the
    /// exact result is an integer count of 2^-48.
    fn exact_fma_bits(a: u16, b: u16, c: u16) -> u16 {
        fn parts(h: u16) -> (i128, i32) {
            let field = i32::from(h >> 10 & 0x1f);
            let frac = i128::from(h & 0x3ff);
            let (m, e) = if field == 0 {
                (frac, -24)
            } else {
                (frac | 0x400, field - 25)
            };
            (if h & 0x8000 != 0 { -m } else { m }, e)
        }
        let ((ma, ea), (mb, eb), (mc, ec)) = (parts(a), parts(b), parts(c));
        let product = (ma * mb) << (ea + eb + 48);
        let n = product + (mc << (ec + 48));
        if n == 0 {
            // An exact zero: -0 only when both terms are -0 or negative-signed zeros.
            let product_negative = (a ^ b) & 0x8000 != 0;
            let negative = product_negative && c & 0x8000 != 0 && product == 0;
            return if negative { 0x8000 } else { 0 };
        }
        let sign: u16 = if n < 0 { 0x8000 } else { 0 };
        let m = n.unsigned_abs();
        let top = 127 - m.leading_zeros() as i32;
        let shift = (top - 10).max(24);
        let mut q = m >> shift;
        let rest = m - (q << shift);
        let half_way = 1u128 << (shift - 1);
        if rest > half_way || (rest == half_way && q & 1 == 1) {
            q += 1;
        }
        // q is 11 bits (or 2^11 after rounding up) at the exponent of 2^(shift - 48).
        let value = q as f64 * 2f64.powi(shift - 48);
        if value >= 65520.0 {
            return sign | 0x7c00;
        }
        sign | clift_f64_to_half_rte(value)
    }

    fn fma_bits(a: u16, b: u16, c: u16) -> u16 {
        bits(clift_fma_f16(h(a), h(b), h(c)))
    }

    #[test]
    fn fma_of_halves_rounds_once() {
        // The CTS's full-size case: the float fma is the tie 33584.0, which rounds up to
        // 0x781a (33600); the exact 33583.998... rounds down to 0x7819 (33568).
        assert_eq!(fma_bits(0x5bab, 0x4cfd, 0x7701), 0x7819);
        assert_eq!(exact_fma_bits(0x5bab, 0x4cfd, 0x7701), 0x7819);
        assert_eq!(
            bits(clift_f32_round_half(
                h(0x5bab).mul_add(h(0x4cfd), h(0x7701))
            )),
            0x781a
        );
        // 3 * 1365 = 4095, a tie between the halves 4094 and 4096; the smallest denormal
        // added or taken away decides it.
        let (three, n1365, tiny) = (0x4200, 0x6555, 0x0001);
        assert_eq!(fma_bits(three, n1365, tiny), 0x6c00); // 4096
        assert_eq!(fma_bits(three, n1365, tiny | 0x8000), 0x6bff); // 4094
        assert_eq!(fma_bits(three, n1365, 0), 0x6c00); // the tie itself: to even, 4096
        // Exact zeros: -0 only from -0 + -0.
        assert_eq!(fma_bits(0x8000, 0x3c00, 0x8000), 0x8000);
        assert_eq!(fma_bits(0x3c00, 0x3c00, 0xbc00), 0x0000);
        // Overflow to infinity, and the float fma for infinities and NaN.
        assert_eq!(fma_bits(0x7bff, 0x4000, 0), 0x7c00);
        assert_eq!(fma_bits(0x7c00, 0x0000, 0x3c00) & 0x7e00, 0x7e00);
        assert_eq!(fma_bits(0x7c00, 0x3c00, 0x3c00), 0x7c00);
    }

    #[test]
    fn fma_of_halves_matches_exact_arithmetic() {
        // 2^21 triples of finite halves from a fixed generator, against integer arithmetic.
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let h = (state >> 48) as u16;
            if h & 0x7c00 == 0x7c00 { h & 0xbbff } else { h }
        };
        let mut twice_rounded_wrong = 0;
        for _ in 0..1 << 21 {
            let (a, b, c) = (next(), next(), next());
            let exact = exact_fma_bits(a, b, c);
            assert_eq!(
                fma_bits(a, b, c),
                exact,
                "fma({a:#06x}, {b:#06x}, {c:#06x})"
            );
            let in_float = bits(clift_f32_round_half(h(a).mul_add(h(b), h(c))));
            twice_rounded_wrong += usize::from(in_float != exact);
        }
        // 85 of the triples are cases where float's fma rounded to half goes wrong: the
        // generator reaches the double rounding this function avoids.
        assert_eq!(twice_rounded_wrong, 85);
    }
}
