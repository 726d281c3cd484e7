//! Fast kernels for the single-precision `exp`/`log`/`pow` and `sin`/`cos`/`tan` families.
//!
//! They are the hot functions of real kernels, and libm's single-precision versions of them
//! are 1.5× to 9× slower than the host's (glibc's) on x86-64. Every kernel works in `double`
//! with an error far below a `float` ulp (2^-33 relative or better), so the final rounding to
//! `float` dominates: the results are within 0.5 + 2^-8 ulp, a long way inside the 3-ulp (exp,
//! log) / 4-ulp (sin, cos) / 5-ulp (tan) / 16-ulp (pow) bounds of table 7.1. (Trigonometric
//! arguments beyond 2^28·pi/2 are reduced by a table Payne-Hanek reduction, [`reduce_large`],
//! and then take the same polynomials.)
//!
//! The tables are computed at compile time by `const fn`s (Taylor series in `double`), so
//! there are no magic numbers to trust: 2^(j/64) and log2(c) are accurate to a few `double`
//! ulps, some 2^-50, which is all the `float` results need.

use std::ops::{Add, Mul, Sub};

/// The arithmetic the reductions and polynomials below need, for `f64` and the four-lane
/// `F64x4` (`f64x4.rs`): each is written once, generic over this, so the four-lane forms
/// (`kernels4.rs`) run exactly the scalar kernel's operations in its order.
pub(crate) trait Real:
    Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self>
{
    /// `v` in every lane.
    fn splat(v: f64) -> Self;
}

impl Real for f64 {
    #[inline(always)]
    fn splat(v: f64) -> f64 {
        v
    }
}

/// `2^52 · 1.5`: adding it to a `double` of magnitude below 2^51 rounds that value to an
/// integer (in the default round-to-nearest mode) and leaves the integer in the low mantissa
/// bits.
pub(super) const SHIFT: f64 = 6755399441055744.0;

/// log2 of the number of entries of the `2^(j/N)` table.
const EXP_TABLE_BITS: u32 = 6;
pub(super) const EXP_N: usize = 1 << EXP_TABLE_BITS;

/// `exp(x)` for `|x| <= 1` by its Taylor series (const-evaluable; 2 ulp).
const fn exp_series(x: f64) -> f64 {
    let mut sum = 1.0;
    let mut term = 1.0;
    let mut k = 1;
    while k < 30 {
        term = term * x / k as f64;
        sum += term;
        k += 1;
    }
    sum
}

/// `ln(v)` for `v` in [0.5, 2] as `2·atanh((v-1)/(v+1))` (const-evaluable; a few ulp).
const fn ln_series(v: f64) -> f64 {
    let t = (v - 1.0) / (v + 1.0);
    let t2 = t * t;
    let mut sum = 0.0;
    let mut power = t;
    let mut k = 0;
    while k < 40 {
        sum += power / (2 * k + 1) as f64;
        power *= t2;
        k += 1;
    }
    2.0 * sum
}

/// Bit patterns of `2^(j/64)` less `j << (52 - 6)`: adding `round(64·t) << 46` to entry
/// `round(64·t) mod 64` gives `2^(round(64·t)/64)`, exponent included, in one integer add.
pub(super) static EXP2_TABLE: [u64; EXP_N] = {
    let mut table = [0u64; EXP_N];
    let mut j = 0;
    while j < EXP_N {
        let value = exp_series(j as f64 / EXP_N as f64 * std::f64::consts::LN_2);
        table[j] = value
            .to_bits()
            .wrapping_sub((j as u64) << (52 - EXP_TABLE_BITS));
        j += 1;
    }
    table
};

/// `2^t` for `t` in (-1022, 1023), relative error below 2^-44.
///
/// `t = (i + j/64) + r` with `|r| <= 1/128`: the table gives `2^(i + j/64)` exactly scaled
/// and a degree-4 Taylor polynomial gives `2^r` (truncation error `(r·ln2)^5/120 < 2^-44`).
#[inline]
pub(crate) fn exp2_core(t: f64) -> f64 {
    let (kd, r) = exp2_reduction(t);
    let ki = kd.to_bits();
    let scale = f64::from_bits(
        EXP2_TABLE[(ki % EXP_N as u64) as usize].wrapping_add(ki << (52 - EXP_TABLE_BITS)),
    );
    scale * exp2_poly(r)
}

/// `(kd, r)` of [`exp2_core`]: `kd` is `round(64·t) + SHIFT` (the integer in its low
/// mantissa bits), `r = (t - round(64·t)/64)·ln 2`.
#[inline(always)]
pub(super) fn exp2_reduction<T: Real>(t: T) -> (T, T) {
    let kd = t * T::splat(EXP_N as f64) + T::splat(SHIFT);
    // `t·64` is exact and `kd - SHIFT` is within 1/2 of it, so the difference is exact too.
    let r = (t * T::splat(EXP_N as f64) - (kd - T::splat(SHIFT)))
        * T::splat(std::f64::consts::LN_2 / EXP_N as f64);
    (kd, r)
}

/// `e^r` for `|r| <= ln 2/128`: [`exp2_core`]'s degree-4 Taylor polynomial.
#[inline(always)]
pub(super) fn exp2_poly<T: Real>(r: T) -> T {
    let r2 = r * r;
    T::splat(1.0)
        + r
        + r2 * (T::splat(0.5) + r * T::splat(1.0 / 6.0))
        + r2 * r2 * T::splat(1.0 / 24.0)
}

pub(super) const LOG_TABLE_BITS: u32 = 7;
pub(super) const LOG_N: usize = 1 << LOG_TABLE_BITS;
/// Bit pattern of the float 0x1.666666p-1 (about 0.7): the log argument is normalized into
/// [OFF, 2·OFF), which keeps `log(z)` within [-0.36, 0.34] so `k + log(z)` never cancels.
pub(super) const LOG_OFF: u32 = 0x3f33_3333;

/// `(1/c, log2 c)` per subinterval of [OFF, 2·OFF): 128 subintervals of equal width in the
/// bit pattern, `c` their middle. The subinterval holding 1.0 gets `c = 1` exactly, so
/// `log` of arguments near 1 is computed from `r = z - 1` (exact) with full relative accuracy.
pub(super) static LOG_TABLE: [(f64, f64); LOG_N] = {
    let mut table = [(0.0, 0.0); LOG_N];
    let mut i = 0;
    while i < LOG_N {
        let shift = 23 - LOG_TABLE_BITS;
        let lo_bits = LOG_OFF + ((i as u32) << shift);
        let hi_bits = LOG_OFF + ((i as u32 + 1) << shift);
        let lo = f32::from_bits(lo_bits) as f64;
        let hi = f32::from_bits(hi_bits) as f64;
        let one = 1.0f32.to_bits();
        table[i] = if lo_bits <= one && one < hi_bits {
            (1.0, 0.0)
        } else {
            let invc = 2.0 / (lo + hi);
            // log2 c = -ln(invc)/ln 2, for the `invc` actually stored.
            (invc, -ln_series(invc) * std::f64::consts::LOG2_E)
        };
        i += 1;
    }
    table
};

/// `log2(x)` for a positive, finite, nonzero `float` (subnormals included), relative error
/// below 2^-37 and absolute error below 2^-44.
#[inline]
pub(crate) fn log2_core(x: f32) -> f64 {
    let mut ix = x.to_bits();
    if ix < 0x0080_0000 {
        // Subnormal: scale by 2^23 (exact) and correct the exponent.
        ix = (x * 8_388_608.0).to_bits().wrapping_sub(23 << 23);
    }
    let tmp = ix.wrapping_sub(LOG_OFF);
    let i = ((tmp >> (23 - LOG_TABLE_BITS)) as usize) % LOG_N;
    let k = (tmp as i32) >> 23;
    let z = f32::from_bits(ix.wrapping_sub(tmp & 0xff80_0000)) as f64;
    let (invc, log2c) = LOG_TABLE[i];
    log2_tail(k as f64, z, invc, log2c)
}

/// `k + log2 c + log2(z/c)`, the end of [`log2_core`] once the table gave `1/c` and `log2 c`.
#[inline(always)]
pub(super) fn log2_tail<T: Real>(k: T, z: T, invc: T, log2c: T) -> T {
    let r = z * invc - T::splat(1.0);
    // log2(1 + r) = ln(1 + r)/ln 2, |r| < 2^-7: Taylor to degree 5 (coefficients divided by
    // ln 2), truncation error below r^6/(6 ln 2) < 2^-44.
    const E: f64 = std::f64::consts::LOG2_E;
    let r2 = r * r;
    let p = r * T::splat(E)
        + r2 * (T::splat(-0.5 * E) + r * T::splat(E / 3.0))
        + r2 * r2 * (T::splat(-0.25 * E) + r * T::splat(0.2 * E));
    k + log2c + p
}

/// `2^t` as the nearest `float` (overflow to infinity, underflow to zero or a subnormal),
/// for any `t` including NaN.
///
/// `t` is clamped to [[`EXP2_F32_MIN`], [`EXP2_F32_MAX`]] instead of branching to the ends of
/// the range: `2^t` there rounds to 0 or infinity like every `t` beyond, and the clamp is two
/// instructions where a branch on the range mispredicts for the random arguments of the CTS
/// (half of all `pow` results overflow or underflow). The four-lane form does the same.
#[inline]
pub(crate) fn exp2_to_f32(t: f64) -> f32 {
    if t.is_nan() {
        return t as f32;
    }
    exp2_core(t.clamp(EXP2_F32_MIN, EXP2_F32_MAX)) as f32
}

/// Below it, `2^t` rounds to `float` zero: `2^-152·(1 + 2^-44)` is under 2^-150, half the
/// smallest subnormal.
pub(super) const EXP2_F32_MIN: f64 = -152.0;
/// Above it, `2^t` rounds to `float` infinity: `2^129·(1 - 2^-44)` is over the rounding
/// boundary `2^128 - 2^103`, as is `2^128·(1 - 2^-44)`.
pub(super) const EXP2_F32_MAX: f64 = 129.0;

/// `2^(x·log2(base))` given `log2(base)`: the single-precision `exp`, `exp2`, `exp10`.
#[inline]
pub(crate) fn exp_base_f32(x: f32, log2_base: f64) -> f32 {
    exp2_to_f32(x as f64 * log2_base)
}

/// `log_b(x)` for a `float`, given `1/log2(b)`: the single-precision `log`, `log2`, `log10`,
/// with the C99 special cases.
#[inline]
pub(crate) fn log_base_f32(x: f32, inv_log2_base: f64) -> f32 {
    let ix = x.to_bits();
    if ix.wrapping_sub(0x0000_0001) >= 0x7f7f_ffff {
        // ±0, negative numbers, +inf and NaN.
        if x == 0.0 {
            return f32::NEG_INFINITY;
        }
        if x.is_nan() || x == f32::INFINITY {
            return x;
        }
        return f32::NAN;
    }
    (log2_core(x) * inv_log2_base) as f32
}

// --- sin, cos, tan -----------------------------------------------------------------------

/// 53 bits of 2/pi.
const INV_PIO2: f64 = std::f64::consts::FRAC_2_PI;
/// The first 25 bits of pi/2: `n · PIO2_1` is exact for `|n| < 2^28`.
const PIO2_1: f64 = 1.570_796_310_901_641_8;
/// pi/2 - PIO2_1, to 53 bits: 78 bits of pi/2 in all, enough for `float` arguments below
/// 2^28·pi/2 (the exhaustive test checks every one of them).
const PIO2_1T: f64 = 1.589_325_477_352_819_7e-8;

/// Polynomial for `sin(x)` on [-pi/4, pi/4], `|sin(x)/x - s(x)| < 2^-37.5` (the minimax
/// coefficients of FreeBSD's `k_sinf.c`).
#[inline]
pub(crate) fn sin_poly<T: Real>(x: T) -> T {
    const S1: f64 = -0.166_666_666_416_265_24;
    const S2: f64 = 0.008_333_329_385_889_463;
    const S3: f64 = -0.000_198_393_348_360_966_32;
    const S4: f64 = 0.000_002_718_311_493_989_822;
    let z = x * x;
    let w = z * z;
    let r = T::splat(S3) + z * T::splat(S4);
    let s = z * x;
    (x + s * (T::splat(S1) + z * T::splat(S2))) + s * w * r
}

/// Polynomial for `cos(x)` on [-pi/4, pi/4], `|cos(x) - c(x)| < 2^-34.1` (FreeBSD's
/// `k_cosf.c`).
#[inline]
pub(crate) fn cos_poly<T: Real>(x: T) -> T {
    const C0: f64 = -0.499_999_997_251_031;
    const C1: f64 = 0.041_666_623_323_739_06;
    const C2: f64 = -0.001_388_676_377_460_993;
    const C3: f64 = 0.000_024_390_448_796_277_41;
    let z = x * x;
    let w = z * z;
    let r = T::splat(C2) + z * T::splat(C3);
    ((T::splat(1.0) + z * T::splat(C0)) + w * T::splat(C1)) + (w * z) * r
}

/// `x` reduced modulo pi/2: `(n, r)` with `x = n·pi/2 + r` (modulo 2pi), `|r| <= pi/4` (a
/// hair more): by three parts of pi/2 in `double` for `|x| < 2^28·pi/2` (bit pattern below
/// 0x4dc90fdb), by [`reduce_large`] beyond. `None` for inf and NaN.
#[inline]
pub(crate) fn reduce_pio2(x: f32) -> Option<(i32, f64)> {
    let ix = x.to_bits() & 0x7fff_ffff;
    if ix <= 0x3f49_0fdb {
        // |x| <= pi/4: nothing to reduce (also keeps the sign of zero).
        return Some((0, x as f64));
    }
    if ix >= 0x4dc9_0fdb {
        if ix >= 0x7f80_0000 {
            return None;
        }
        // x = -|x|: n and r of |x| negated.
        let (n, r) = reduce_large(ix);
        return Some(if x < 0.0 {
            (n.wrapping_neg(), -r)
        } else {
            (n, r)
        });
    }
    let (kd, r) = pio2_reduction(x as f64);
    Some(((kd - SHIFT) as i32, r))
}

/// The first 192 bits of 2/pi, 0.a2f9836e...: the same bits are 4/pi from one place on.
const TWO_OVER_PI: [u8; 24] = [
    0xa2, 0xf9, 0x83, 0x6e, 0x4e, 0x44, 0x15, 0x29, 0xfc, 0x27, 0x57, 0xd1, 0xf5, 0x34, 0xdd, 0xc0,
    0xdb, 0x62, 0x95, 0x99, 0x3c, 0x43, 0x90, 0x41,
];

/// Entry k: the 32 bits of [`TWO_OVER_PI`] ending with byte k (zeros before the first), so a
/// window of 96 bits at any byte is three entries 4 apart, each an aligned 32-bit load.
static INV_PIO4: [u32; 24] = {
    let mut table = [0u32; 24];
    let mut k = 0;
    while k < 24 {
        let mut b = 0;
        while b < 4 {
            if k + b >= 3 {
                table[k] |= (TWO_OVER_PI[k + b - 3] as u32) << (24 - 8 * b);
            }
            b += 1;
        }
        k += 1;
    }
    table
};

/// pi/4 · 2^-62: one unit of [`reduce_large`]'s fixed-point remainder, in radians.
const PI63: f64 = f64::from_bits(0x3c19_21fb_5444_2d18);

/// `|x|` (bit pattern `ix`, finite, at least 2^28·pi/2) reduced modulo pi/2: `(n, r)` with
/// `|x| = n·pi/2 + r` modulo 2pi, `|r| <= pi/4`. Payne and Hanek's reduction as ARM's
/// optimized-routines do it for `float` (`reduce_large` of `sincosf.h`): the 24-bit mantissa
/// times the 96 bits of 4/pi that matter at its exponent (the bits above give multiples of
/// 2pi, those below less than 2^-61 of a quadrant), three 32×32→64-bit products, no branch.
/// The remainder is a 64-bit fixed-point number with the quadrant in its top two bits; its
/// error (under 2 units of 2^-62 quadrants) is below 2^-31 of the smallest |r| any `float`
/// gives, far below what the `float` result needs. libm's generic reduction, which this
/// replaces, was two thirds of `cos float`'s time in the CTS (45% of all `float`s are this
/// large).
#[inline]
pub(crate) fn reduce_large(ix: u32) -> (i32, f64) {
    // The exponent's bits 3..6 pick the window (bit 7 is set for every such x), bits 0..2
    // shift the mantissa within the first byte.
    let window = &INV_PIO4[((ix >> 26) & 15) as usize..];
    let m = ((ix & 0x00ff_ffff) | 0x0080_0000) << ((ix >> 23) & 7);
    let top = m.wrapping_mul(window[0]) as u64;
    let middle = m as u64 * window[4] as u64;
    let low = m as u64 * window[8] as u64;
    let fraction = ((low >> 32) | (top << 32)).wrapping_add(middle);
    // Round to the nearest quadrant; the rest is in [-2^61, 2^61).
    let n = fraction.wrapping_add(1 << 61) >> 62;
    let rest = fraction.wrapping_sub(n << 62) as i64;
    (n as i32, rest as f64 * PI63)
}

/// `(kd, r)` of [`reduce_pio2`]: `kd` is `n + SHIFT` (`n` in its low mantissa bits), `r` is
/// `x - n·pi/2`.
#[inline(always)]
pub(super) fn pio2_reduction<T: Real>(x: T) -> (T, T) {
    let kd = x * T::splat(INV_PIO2) + T::splat(SHIFT);
    let n = kd - T::splat(SHIFT);
    (kd, x - n * T::splat(PIO2_1) - n * T::splat(PIO2_1T))
}

/// Bit pattern of 2^-12: below it `sin(x)` and `tan(x)` round to `x` (the cubic term is
/// under a third of half an ulp), and returning `x` keeps the sign of zero, which the
/// polynomial would lose (`-0 + +0 = +0`).
pub(super) const TINY: u32 = 0x3980_0000;

/// `sin(r + n·pi/2)` from the two polynomials, without branches: the quadrant picks the
/// polynomial and the sign by bit operations (a branch on a random quadrant mispredicts
/// most of the time, which costs more than evaluating both polynomials).
#[inline]
fn sin_quadrant(n: i32, r: f64) -> f64 {
    let (s, c) = (sin_poly(r), cos_poly(r));
    let odd = ((n & 1) as u64).wrapping_neg();
    let bits = (s.to_bits() & !odd) | (c.to_bits() & odd);
    f64::from_bits(bits ^ (((n & 2) as u64) << 62))
}

/// `sin(x)` of a `float`.
#[inline]
pub(crate) fn sin_f32(x: f32) -> f32 {
    if x.to_bits() & 0x7fff_ffff < TINY {
        return x;
    }
    match reduce_pio2(x) {
        Some((n, r)) => sin_quadrant(n, r) as f32,
        // inf/NaN: NaN, libm's.
        None => libm::sinf(x),
    }
}

/// `cos(x)` of a `float`: `cos(r + n·pi/2) = sin(r + (n+1)·pi/2)`.
#[inline]
pub(crate) fn cos_f32(x: f32) -> f32 {
    match reduce_pio2(x) {
        Some((n, r)) => sin_quadrant(n.wrapping_add(1), r) as f32,
        None => libm::cosf(x),
    }
}

/// `(sin(x), cos(x))` of a `float`.
#[inline]
pub(crate) fn sincos_f32(x: f32) -> (f32, f32) {
    if x.to_bits() & 0x7fff_ffff < TINY {
        return (x, 1.0);
    }
    match reduce_pio2(x) {
        Some((n, r)) => (
            sin_quadrant(n, r) as f32,
            sin_quadrant(n.wrapping_add(1), r) as f32,
        ),
        None => libm::sincosf(x),
    }
}

/// `tan(x)` of a `float`: the quotient of the two polynomials, in `double`.
#[inline]
pub(crate) fn tan_f32(x: f32) -> f32 {
    if x.to_bits() & 0x7fff_ffff < TINY {
        return x;
    }
    match reduce_pio2(x) {
        Some((n, r)) => {
            let (s, c) = (sin_poly(r), cos_poly(r));
            if n & 1 == 0 {
                (s / c) as f32
            } else {
                (-c / s) as f32
            }
        }
        None => libm::tanf(x),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`exp2_to_f32`] as it was before the clamp: branches to the ends of the range.
    fn by_branches(t: f64) -> f32 {
        if t.abs() < 126.0 {
            exp2_core(t) as f32
        } else if t.is_nan() {
            t as f32
        } else if t >= 128.0 {
            f32::INFINITY
        } else if t < -151.0 {
            0.0
        } else {
            exp2_core(t) as f32
        }
    }

    /// The clamp gives the branches' bits: on a grid of 1/2^14 steps over [-160, 140], and on
    /// the 2^16 `double`s on each side of every range end and clamp bound.
    #[test]
    fn exp2_clamp_gives_the_branches_bits() {
        let mut ts: Vec<f64> = (0..300 << 14)
            .map(|i| -160.0 + i as f64 / 16384.0)
            .collect();
        for end in [
            -152.0f64, -151.0, -150.0, -149.0, -126.0, 126.0, 128.0, 129.0,
        ] {
            for d in -(1i64 << 16)..=(1 << 16) {
                ts.push(f64::from_bits((end.to_bits() as i64 + d) as u64));
            }
        }
        ts.extend([
            f64::INFINITY,
            f64::NEG_INFINITY,
            1e300,
            -1e300,
            f64::NAN,
            -f64::NAN,
        ]);
        for t in ts {
            assert_eq!(
                exp2_to_f32(t).to_bits(),
                by_branches(t).to_bits(),
                "2^{t:e}"
            );
        }
    }

    /// The table reduction against x mod pi/2 computed with 400-bit pi (mpmath): the
    /// quadrant exactly, `r` within 4 `double` ulps; the first argument it takes, 2^63,
    /// 1e30, the largest `float`, and the negatives of two of them.
    #[test]
    fn reduce_large_known_values() {
        let cases: [(u32, i32, f64); 7] = [
            (0x4dc9_0fdb, 3, 0.7381126199795055),
            (0x5a00_0000, 3, -0.5568465497821499),
            (0x7149_f2ca, 3, -0.6580873912375987),
            (0x7f7f_ffff, 0, -0.5490493299574543),
            (0x6c5c_4f9e, 1, -0.0781642290607612),
            (0xcdc9_0fdb, 1, -0.7381126199795055),
            (0xcf00_0000, 1, -0.240116920962246),
        ];
        for (bits, quadrant, want) in cases {
            let (n, r) = reduce_pio2(f32::from_bits(bits)).unwrap();
            assert_eq!(n & 3, quadrant, "{bits:#x}");
            assert!(
                (r - want).abs() <= 4.0 * f64::EPSILON * want.abs(),
                "{bits:#x}: {r:e}"
            );
        }
        assert_eq!(reduce_pio2(f32::INFINITY), None);
        assert_eq!(reduce_pio2(f32::NAN), None);
    }

    #[test]
    fn exp2_to_f32_known_values() {
        let bits = |t: f64| exp2_to_f32(t).to_bits();
        assert_eq!(bits(0.0), 0x3f80_0000);
        assert_eq!(bits(127.0), 0x7f00_0000);
        assert_eq!(bits(128.0), 0x7f80_0000);
        assert_eq!(bits(1e10), 0x7f80_0000);
        assert_eq!(bits(-126.0), 0x0080_0000);
        assert_eq!(bits(-149.0), 0x0000_0001);
        assert_eq!(bits(-151.0), 0);
        assert_eq!(bits(f64::NEG_INFINITY), 0);
        assert_eq!(bits(f64::INFINITY), 0x7f80_0000);
        assert_eq!(bits(f64::NAN), 0x7fc0_0000);
    }
}
