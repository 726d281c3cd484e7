//! `fmod` for `float`, and `remainder` and `remquo` for `float` and `double` built on `fmod`
//! (this `float` one, libm's for `double`).
//!
//! libm's `remquof`/`remquo` (musl's) divide one quotient bit per loop turn, with a branch
//! that goes either way at random: up to 277 turns for a `float` pair and 2,100 for a
//! `double` one, ~1,000 cycles for the CTS's random bit patterns, where its `fmod` reduces a
//! word at a time. So this is `fmod` plus the quotient bits the result needs, found without
//! a loop:
//!
//! 1. Write `|x| = mx·2^ex`, `|y| = my·2^ey` (integer significands, exponents of the last
//!    bit). If `ex < ey`, then `|x| < |y|` and the quotient `Q = ⌊|x|/|y|⌋` is 0.
//! 2. Otherwise `f = fmod(|x|, |y|)` (exact, as `fmod` always is) is `R·2^ey` with `R` the
//!    integer remainder of `N = mx·2^(ex-ey)` by `my`, so `N - R = Q·my` exactly. With
//!    `my = m·2^t`, `m` odd, `Q ≡ ((N - R) / 2^t) · m⁻¹ (mod 2^(64-t))`: the low bits of `Q`
//!    come from `N - R` in wrapping 64-bit arithmetic (`N mod 2^64` is `mx` shifted, or 0)
//!    and the inverse of `m` modulo 2^12 (two Newton steps from `m`, its own inverse modulo
//!    8). `t ≤ 52`, so 12 ≥ 7 bits are right.
//! 3. Round the quotient to nearest, ties to even (IEEE `remainder`): `f - |y|` when
//!    `2f > |y|`, or `2f = |y|` with `Q` odd; exact (Sterbenz: `|y|/2 ≤ f < |y|`).
//!
//! `remainder` uses the quotient's parity, `remquo` its low 7 bits: section 6.12.2 asks for
//! "at least" 3, and the CTS compares the low 7 bits of `quo` with its reference's; when all
//! of `quo` equals the reference's (the low 7 bits and the sign) the CTS skips recomputing
//! its reference for that element, so `quo` is exactly `±(Q' mod 128)`, `Q'` the rounded
//! quotient, as the reference returns it.

/// A `float`'s significand shifted to `[2^23, 2^24)` and the exponent of its last bit
/// (below -149 for a subnormal): `|v| = m·2^e`. `bits` is finite and nonzero, without sign.
#[inline]
fn normalized(bits: u32) -> (u64, i32) {
    if bits < 0x0080_0000 {
        let shift = bits.leading_zeros() - 8;
        ((bits << shift) as u64, -149 - shift as i32)
    } else {
        (
            (bits & 0x007f_ffff | 0x0080_0000) as u64,
            (bits >> 23) as i32 - 150,
        )
    }
}

/// `fmod(x, y)` of `float`s, exactly, 39 quotient bits per step.
///
/// With both significands normalized to `[2^23, 2^24)` (so `|x| ≥ |y|` means `ex ≥ ey`), the
/// remainder is `(mx·2^(ex-ey)) mod my` in units of `2^ey`. Each step shifts the partial
/// remainder `r < 2^24` left by up to 39 bits (below 2^63, so a signed conversion) and
/// takes the quotient from a `double` product with `1/my`: relative error below 2^-51 on a
/// quotient below 2^40, so off by at most one, which one compare in each direction fixes.
/// libm's generic `fmodf` (31 bits per step, in 32-bit words) took twice as long on the
/// CTS's random pairs.
#[inline]
pub(crate) fn fmod_f32(x: f32, y: f32) -> f32 {
    let (ux, uy) = (x.to_bits() & 0x7fff_ffff, y.to_bits() & 0x7fff_ffff);
    if ux >= 0x7f80_0000 || uy > 0x7f80_0000 || uy == 0 {
        return f32::NAN;
    }
    if ux < uy {
        // |x| < |y|, an infinite y included.
        return x;
    }
    let (mx, ex) = normalized(ux);
    let (my, ey) = normalized(uy);
    let inv = 1.0 / my as f64;
    let mut r = if mx >= my { mx - my } else { mx };
    let mut d = (ex - ey) as u32;
    while d > 0 {
        let step = d.min(39);
        let n = r << step;
        let q = (n as i64 as f64 * inv) as i64 as u64;
        let rem = n.wrapping_sub(q.wrapping_mul(my)) as i64;
        let rem = if rem < 0 { rem + my as i64 } else { rem };
        r = if rem >= my as i64 {
            rem as u64 - my
        } else {
            rem as u64
        };
        d -= step;
    }
    // r·2^ey is a multiple of y's last bit below |y|: exact in `float`, so in `double`.
    let scale = f64::from_bits(((ey + 1023) as u64) << 52);
    ((r as f64 * scale) as f32).copysign(x)
}

/// The low quotient bits `remquo` returns (the CTS's reference keeps 7).
pub(crate) const REMQUO_MASK: i32 = 0x7f;

/// The inverse of an odd `m` modulo 2^12: `m·m ≡ 1 (mod 8)`, and each Newton step
/// `v ← v·(2 - m·v)` doubles the correct bits.
#[inline]
fn odd_inverse(m: u64) -> u64 {
    let v = m;
    let v = v.wrapping_mul(2u64.wrapping_sub(m.wrapping_mul(v)));
    v.wrapping_mul(2u64.wrapping_sub(m.wrapping_mul(v)))
}

macro_rules! remquo_impl {
    ($name:ident, $t:ty, $sig:expr, $bias:expr, $fmod:path) => {
        /// `(r, q)`: the IEEE remainder `r = x - Q'·y` (`Q'` the quotient `x/y` rounded to
        /// nearest even) and the sign of `x/y` with the bits `mask` of `|Q'|` in `q`
        /// (`mask` ≤ 0x7f); a NaN and 0 for infinite `x`, zero `y` or NaN operands.
        #[inline]
        pub(crate) fn $name(x: $t, y: $t, mask: i32) -> ($t, i32) {
            /// Significand and exponent of the last bit of a finite `|v|`.
            fn parts(v: $t) -> (u64, i32) {
                let bits = v.to_bits() as u64;
                let biased = (bits >> $sig) as i32;
                let frac = bits & ((1 << $sig) - 1);
                if biased == 0 {
                    (frac, 1 - $bias - $sig)
                } else {
                    (frac | 1 << $sig, biased - $bias - $sig)
                }
            }
            if x.is_nan() || y.is_nan() || x.is_infinite() || y == 0.0 {
                return ((x * y) / (x * y), 0);
            }
            if y.is_infinite() || x == 0.0 {
                return (x, 0);
            }
            let (a, p) = (x.abs(), y.abs());
            let (mx, ex) = parts(a);
            let (my, ey) = parts(p);
            let (mut r, mut q) = if ex < ey {
                (a, 0)
            } else {
                let f = $fmod(a, p);
                // f = R·2^ey with R < my: its last bit is at 2^ey or above, so the shift
                // is at most 52 unless f is 0.
                let (mf, ef) = parts(f);
                let rem = mf.checked_shr((ey - ef) as u32).unwrap_or(0);
                let d = (ex - ey) as u32;
                let n = mx.checked_shl(d).filter(|_| d < 64).unwrap_or(0);
                let t = my.trailing_zeros();
                let quotient = (n.wrapping_sub(rem) >> t).wrapping_mul(odd_inverse(my >> t));
                (f, quotient as i32 & mask)
            };
            // `2r` may overflow to inf, which is still more than `p`.
            let twice = 2.0 * r;
            if twice > p || (twice == p && q & 1 == 1) {
                r -= p;
                q += 1;
            }
            let q = q & mask;
            let r = if x.is_sign_negative() { -r } else { r };
            (
                r,
                if x.is_sign_negative() != y.is_sign_negative() {
                    -q
                } else {
                    q
                },
            )
        }
    };
}

remquo_impl!(remquo_f32, f32, 23, 127, fmod_f32);
remquo_impl!(remquo_f64, f64, 52, 1023, libm::fmod);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotient_bits_and_ties() {
        // 7 = 4·2 - 1 and 5 = 2·2 + 1: ties go to the even quotient.
        assert_eq!(remquo_f32(7.0, 2.0, 0x7f), (-1.0, 4));
        assert_eq!(remquo_f32(5.0, 2.0, 0x7f), (1.0, 2));
        assert_eq!(remquo_f32(5.0, 2.0, 1), (1.0, 0));
        assert_eq!(remquo_f64(-7.0, 2.0, 0x7f), (1.0, -4));
        // 1000 = 333·3 + 1: 333 mod 128 = 77.
        assert_eq!(remquo_f64(1000.0, -3.0, 0x7f), (1.0, -77));
        // 127.5 → 128 (ties to even), which wraps to 0 in 7 bits.
        assert_eq!(remquo_f32(255.0, 2.0, 0x7f), (-1.0, 0));
    }

    #[test]
    fn quotient_bits_from_the_inverse() {
        assert_eq!(odd_inverse(3).wrapping_mul(3) & 0xfff, 1);
        assert_eq!(odd_inverse(0x7f_ffff).wrapping_mul(0x7f_ffff) & 0xfff, 1);
        // 2^1023 = 3·Q + 2, Q = (2^1023 - 2)/3 = 0b1010…10: low 7 bits 42, rounded up.
        assert_eq!(remquo_f64(2f64.powi(1023), 3.0, 0x7f), (-1.0, 43));
        // 0x1.8p-148 / 2^-149 = 3: the divisor's last bit is 2^-149, a subnormal.
        assert_eq!(
            remquo_f32(f32::from_bits(3), f32::from_bits(1), 0x7f),
            (0.0, 3)
        );
        // MAX = 2^128 - 2^104 = 3·2^126 + (2^126 - 2^104), rounded up to 4·2^126 - 2^104.
        let p = 2f32.powi(126);
        assert_eq!(remquo_f32(f32::MAX, -p, 0x7f), (-(2f32.powi(104)), -4));
        assert_eq!(remquo_f64(f64::MAX, f64::MAX, 0x7f), (0.0, 1));
    }
}
