//! Payne–Hanek reduction of huge `double` arguments for `sin`, `cos` and `sincos`.
//!
//! libm reduces `|x| ≥ 2^20·π/2` with fdlibm's generic `rem_pio2_large` (24-bit pieces of
//! 2/π in `double`s, loops over them): some 300 ns, and half of the CTS's random `double`s
//! are that large, so it was 55% of the `cos double` shard. Here the product `x · 2/π` is
//! formed in integers from the 192 bits of 2/π that matter at `x`'s exponent (bits above
//! give multiples of 4, bits below less than 2^-128 of a quarter turn): three 64×64 → 128
//! products, the quadrant from the integer bits, 128 fraction bits rounded to the nearest
//! quadrant, times π/2 in 128-bit fixed point, and the result split into a `double` pair.
//! The closest `double` to a multiple of π/2 leaves `r` near 2^-61, so 2^-126 of absolute
//! precision is still 2^-65 relative: far below the 4-ulp bound of `cos`/`sin`. (`tan` stays
//! libm's: `tan r` at `hi` corrected by `lo`, and `-1/tan r` in the odd quadrants, measured
//! 3.30 ulp in the CTS against libm's 2.41, bound 5, for 2× the speed.)

/// Bits 1 to 1344 of the binary expansion of 2/π (bit 1 is the MSB of the first word),
/// from π computed to 1700 bits by Machin's formula (Python integers); the first words
/// are fdlibm's `ipio2` (0xa2f983, 0x6e4e44, 0x1529fc, ...).
static TWO_OVER_PI: [u64; 21] = [
    0xa2f9_836e_4e44_1529,
    0xfc27_57d1_f534_ddc0,
    0xdb62_9599_3c43_9041,
    0xfe51_63ab_debb_c561,
    0xb724_6e3a_424d_d2e0,
    0x0649_2eea_09d1_921c,
    0xfe1d_eb1c_b129_a73e,
    0xe882_35f5_2ebb_4484,
    0xe99c_7026_b45f_7e41,
    0x3991_d639_8353_39f4,
    0x9c84_5f8b_bdf9_283b,
    0x1ff8_97ff_de05_980f,
    0xef2f_118b_5a0a_6d1f,
    0x6d36_7ecf_27cb_09b7,
    0x4f46_3f66_9e5f_ea2d,
    0x7527_bac7_ebe5_f17b,
    0x3d07_39f7_8a52_92ea,
    0x6bfb_5fb1_1f8d_5d08,
    0x5603_3046_fc7b_6bab,
    0xf0cf_bc20_9af4_361d,
    0xa9e3_9161_5ee6_1b08,
];

/// ⌊π/2 · 2^126⌋, from the same π.
const PIO2_FIXED: u128 = 0x6487_ed51_10b4_611a_6263_3145_c06e_0e68;

/// The high 128 bits of the 256-bit product `a · b`.
#[inline]
fn mul_hi(a: u128, b: u128) -> u128 {
    let (a1, a0) = (a >> 64, a & u64::MAX as u128);
    let (b1, b0) = (b >> 64, b & u64::MAX as u128);
    let mid1 = a1 * b0;
    let mid0 = a0 * b1;
    let low = a0 * b0;
    let carry = ((low >> 64) + (mid1 & u64::MAX as u128) + (mid0 & u64::MAX as u128)) >> 64;
    a1 * b1 + (mid1 >> 64) + (mid0 >> 64) + carry
}

/// `|x| mod π/2` for a finite `|x| ≥ 2^21`: `(q, hi, lo)` with `|x| = (4k + q)·π/2 + hi + lo`
/// for some integer `k`, `|hi + lo| ≤ π/4`, `hi` the `double` nearest `hi + lo`.
pub(crate) fn reduce_huge(x: f64) -> (u32, f64, f64) {
    let bits = x.to_bits() & 0x7fff_ffff_ffff_ffff;
    let m = (bits & ((1 << 52) - 1)) | 1 << 52;
    let e = (bits >> 52) as i32 - 1075; // |x| = m·2^e, e ≥ -31
    // Bits i ≤ e - 2 of 2/π give m·2^(e-i), multiples of 4: start the window after them.
    let skip = (e - 2).max(0) as usize;
    let (word, shift) = (skip / 64, (skip % 64) as u32);
    let w = |k: usize| TWO_OVER_PI[word + k];
    let join = |a: u64, b: u64| {
        if shift == 0 {
            a
        } else {
            a << shift | b >> (64 - shift)
        }
    };
    let (w0, w1, w2) = (join(w(0), w(1)), join(w(1), w(2)), join(w(2), w(3)));
    // P = m · (w0 w1 w2), 245 bits, in limbs of 64.
    let m = m as u128;
    let (p2, p1, p0) = (m * w2 as u128, m * w1 as u128, m * w0 as u128);
    let l0 = p2 as u64;
    let t = (p2 >> 64) + (p1 & u64::MAX as u128);
    let l1 = t as u64;
    let t = (t >> 64) + (p1 >> 64) + (p0 & u64::MAX as u128);
    let l2 = t as u64;
    let l3 = ((t >> 64) + (p0 >> 64)) as u64;
    let (hi, lo) = (
        (l3 as u128) << 64 | l2 as u128,
        (l1 as u128) << 64 | l0 as u128,
    );
    // x·2/π = P·2^-point; the 128 bits below the point, and the two above it.
    let point = if e >= 2 { 190 } else { (192 - e) as u32 };
    let sh = point - 128; // 62..=95
    let fraction = hi << (128 - sh) | lo >> sh;
    let quadrant = ((hi >> sh) as u32 + (fraction >> 127) as u32) & 3;
    // The fraction rounded to the nearest quadrant, in [-1/2, 1/2) of a quarter turn.
    let signed = fraction as i128;
    let r = mul_hi(signed.unsigned_abs(), PIO2_FIXED); // |r|·2^126, below 2^126
    let (hi, lo) = to_pair(r);
    let sign = if signed < 0 { -1.0 } else { 1.0 };
    (quadrant, hi * sign, lo * sign)
}

/// `2^e` for a normal exponent.
#[inline]
fn pow2(e: i32) -> f64 {
    f64::from_bits(((e + 1023) as u64) << 52)
}

/// `r·2^-126` as `hi + lo`, `hi` the nearest `double`, `lo` the rest to 2^-53 of it. Through
/// signed 64-bit conversions (one instruction each): a `u128` to `f64` conversion is a
/// library call, and was 15% of the `cos double` shard.
#[inline]
fn to_pair(r: u128) -> (f64, f64) {
    if r == 0 {
        return (0.0, 0.0);
    }
    let lz = r.leading_zeros(); // at least 2
    let t = r << lz;
    // The top 63 bits, and a sticky bit for the rest: rounds as the whole would.
    let top = (t >> 65) as u64 | (t << 63 != 0) as u64;
    let hi = top as i64 as f64; // 2^62 ≤ hi ≤ 2^63
    let hi_int = ((hi as u64 as u128) << 64) >> (lz - 1); // hi·2^(65-lz), exactly
    let diff = r as i128 - hi_int as i128; // |diff| ≤ r·2^-53
    // Keep diff's top 62 bits: lo needs 53.
    let drop = (126 - lz as i32 - 53 - 62).max(0) as u32;
    let lo = (diff >> drop) as i64 as f64;
    (
        hi * pow2(65 - lz as i32 - 126),
        lo * pow2(drop as i32 - 126),
    )
}

/// `sin(r)` and `cos(r)` of `r = hi + lo`, `|r| ≤ π/4`, `|lo| ≤ ulp(hi)/2`: libm's kernels at
/// `hi` and the first-order term in `lo` (its square is below 2^-106 of the result).
#[inline]
fn sin_cos(hi: f64, lo: f64) -> (f64, f64) {
    let (s, c) = (libm::sin(hi), libm::cos(hi));
    (s + lo * c, c - lo * s)
}

/// `(sin x, cos x)` for a finite `|x| ≥ 2^21`.
pub(crate) fn sincos_huge(x: f64) -> (f64, f64) {
    let (q, hi, lo) = reduce_huge(x);
    let (s, c) = sin_cos(hi, lo);
    let (s, c) = match q {
        0 => (s, c),
        1 => (c, -s),
        2 => (-s, -c),
        _ => (-c, s),
    };
    (if x < 0.0 { -s } else { s }, c)
}

/// `sin(x)` for a finite `|x| ≥ 2^21`.
pub(crate) fn sin_huge(x: f64) -> f64 {
    sincos_huge(x).0
}

/// `cos(x)` for a finite `|x| ≥ 2^21`.
pub(crate) fn cos_huge(x: f64) -> f64 {
    sincos_huge(x).1
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(x, quadrant, r rounded, sin x, cos x)` (bits; the last three correctly rounded),
    /// from π to 1700 bits and 80-digit Taylor series (Python's `Fraction` and `Decimal`).
    /// The last is 6381956970095103·2^797, the `double` nearest a multiple of π/2 (r ≈ 2^-61).
    const CASES: [(u64, u32, u64, u64, u64); 11] = [
        (
            0x4140000000000000,
            0,
            0x3fe58e8ec12c0aa8,
            0x3fe3f68887a137ef,
            0x3fe9027224e704fa,
        ),
        (
            0x7fefffffffffffff,
            2,
            0xbf7453020ff06b39,
            0x3f7452fc98b34e97,
            0xbfefffe62ecfab75,
        ),
        (
            0x5fd16ac5b262ca1f,
            0,
            0x3f82b5f5ac92099c,
            0x3f82b5e49d938ec0,
            0x3fefffa87a2f802a,
        ),
        (
            0x4150000000000001,
            1,
            0xbfcc9b6496c1137f,
            0x3fef34428fb0f136,
            0x3fcc5e944a3299d3,
        ),
        (
            0x43e0000000000000,
            1,
            0xbf882ac8377ff216,
            0x3fefff6dfd42dc54,
            0x3f882aa375b3c33e,
        ),
        (
            0x7e37e43c8800759c,
            3,
            0xbfe39e51e3b9d3d4,
            0xbfea2c16b010e385,
            0xbfe2699022adc4c1,
        ),
        (
            0x4a0000000000fffe,
            1,
            0x3fe22a314644e65f,
            0x3feafb3867026a49,
            0xbfe13472f4e1c1a8,
        ),
        (
            0x56a0000000000000,
            3,
            0xbfe6aa57fefcb3f3,
            0xbfe84d9a05582529,
            0xbfe4d13725b427a7,
        ),
        (
            0x41dfffffffffffff,
            3,
            0x3fcebc24b95fe14f,
            0xbfef14f9325a7175,
            0x3fce70c0e3c38c22,
        ),
        (
            0x7fe0000000000000,
            2,
            0xbfe3242cd2724cce,
            0x3fe205248cbdb760,
            0xbfea719f26c232bf,
        ),
        (
            0x7506ac5b262ca1ff,
            1,
            0x3c214ae72e6ba22f,
            0x3ff0000000000000,
            0xbc214ae72e6ba22f,
        ),
    ];

    /// Distance in ulps between two finite `double`s of the same sign.
    fn ulps(a: f64, b: f64) -> u64 {
        assert_eq!(a.is_sign_negative(), b.is_sign_negative(), "{a:e} vs {b:e}");
        a.to_bits().abs_diff(b.to_bits())
    }

    #[test]
    fn pairs_round_to_nearest() {
        // 2^126 - 1: rounds up to 2^126, 1 below it (lo keeps 62 bits of the difference:
        // within 2^-115 of hi); 2^60 + 2^7 + 1 (just above a tie, 61 bits): rounds up, lo
        // exact; 3·2^-126.
        let (hi, lo) = to_pair((1 << 126) - 1);
        assert_eq!(hi, 1.0);
        assert!((lo + 2f64.powi(-126)).abs() <= 2f64.powi(-115), "lo {lo:e}");
        let (hi, lo) = to_pair((1 << 60) + (1 << 7) + 1);
        assert_eq!(hi, ((1u64 << 60) + (1 << 8)) as f64 * 2f64.powi(-126));
        assert_eq!(lo, -127.0 * 2f64.powi(-126));
        assert_eq!(to_pair(3), (3.0 * 2f64.powi(-126), 0.0));
        assert_eq!(to_pair(0), (0.0, 0.0));
    }

    #[test]
    fn reduction_is_exact_on_known_arguments() {
        for (x, q, r, s, c) in CASES {
            let x = f64::from_bits(x);
            let (got_q, hi, lo) = reduce_huge(x);
            assert_eq!((got_q, hi.to_bits()), (q, r), "reduce({x:e})");
            assert!(
                lo.abs() <= hi.abs() * f64::EPSILON / 2.0,
                "reduce({x:e}): lo {lo:e}"
            );
            for x in [x, -x] {
                let s = if x < 0.0 {
                    -f64::from_bits(s)
                } else {
                    f64::from_bits(s)
                };
                let c = f64::from_bits(c);
                assert!(ulps(sin_huge(x), s) <= 1, "sin({x:e}) = {:e}", sin_huge(x));
                assert!(ulps(cos_huge(x), c) <= 1, "cos({x:e}) = {:e}", cos_huge(x));
                assert_eq!(sincos_huge(x), (sin_huge(x), cos_huge(x)));
            }
        }
    }

    /// Against libm's `sin`/`cos` (fdlibm's reduction, independent of this one) on random
    /// `double`s from 2^21 to MAX: both within an ulp of the true value, so within 2 of
    /// each other; equal in 85% of the results (libm's kernels take the reduction's tail
    /// inside the polynomial, this adds it after).
    #[test]
    fn agrees_with_libm_on_random_huge_arguments() {
        let mut equal = 0;
        let n = 200_000;
        for i in 0..n {
            let r = crate::math::lanes::tests::random(i);
            let x = f64::from_bits(
                0x4140_0000_0000_0000 + r % (0x7ff0_0000_0000_0000 - 0x4140_0000_0000_0000),
            );
            let (s, c) = (sin_huge(x), cos_huge(x));
            let (ws, wc) = (libm::sin(x), libm::cos(x));
            assert!(
                s.to_bits().abs_diff(ws.to_bits()) <= 2 && c.to_bits().abs_diff(wc.to_bits()) <= 2,
                "x {x:e}: sin {s:e} / {ws:e}, cos {c:e} / {wc:e}"
            );
            equal += (s == ws) as u32 + (c == wc) as u32;
        }
        assert!(equal as u64 > 2 * n * 80 / 100, "{equal} of {}", 2 * n);
    }
}
