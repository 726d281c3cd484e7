//! The kernels of [`super::kernels`] on four `float` lanes at once, for the four-lane forms
//! (`lanes.rs`): the same algorithm with the same operations in the same order per lane, in
//! SSE2 registers ([`F64x4`]), so every lane's result is the scalar kernel's bit for bit.
//!
//! The reductions and polynomials are the scalar kernel's own generic code; what differs is
//! written here once for four lanes: the bit manipulations, the table lookups (four loads, one
//! per lane: SSE2 has no gather), and the branches, which become lane selects. `exp2`'s range
//! ends and NaN, and every special case of `pow`, are selects too (the CTS feeds them random bit
//! patterns, so they are common there). The other rare paths (subnormal or non-positive `log`
//! arguments, `sin`/`cos` arguments beyond 2^28·pi/2) are not: the four-lane result is
//! computed for every lane, then each lane that needed a rare path is recomputed by the scalar
//! function, in a cold function. Arithmetic on such a lane's
//! garbage cannot fault (SSE floating-point exceptions are masked, table indices masked).

use std::arch::x86_64::{
    __m128, __m128i, _mm_add_ps, _mm_and_ps, _mm_and_si128, _mm_andnot_ps, _mm_andnot_si128,
    _mm_castps_si128, _mm_castsi128_ps, _mm_cmpeq_ps, _mm_cmpge_ps, _mm_cmpgt_epi32, _mm_cmpgt_ps,
    _mm_cmplt_epi32, _mm_cmplt_ps, _mm_cmpunord_ps, _mm_cvtepi32_ps, _mm_cvttps_epi32,
    _mm_movemask_ps, _mm_mul_ps, _mm_or_ps, _mm_set1_epi32, _mm_set1_ps, _mm_setzero_ps,
    _mm_slli_epi32, _mm_srai_epi32, _mm_srli_epi32, _mm_sub_epi32, _mm_xor_ps,
};

use super::f64x4::{F64x4, U64x4, sse2, u32_lanes};
use super::kernels::{
    self, EXP_N, EXP2_TABLE, LOG_N, LOG_OFF, LOG_TABLE, LOG_TABLE_BITS, Real, SHIFT, TINY,
};

/// The four lanes of `x`.
#[inline(always)]
pub(super) fn f32_lanes(x: __m128) -> [f32; 4] {
    sse2! {
        u32_lanes(_mm_castps_si128(x)).map(f32::from_bits)
    }
}

/// `out` with each lane k whose bit is clear in `fast` replaced by `scalar(k)`: the lanes
/// that needed a scalar kernel's rare path.
#[cold]
#[inline(never)]
fn patch(out: __m128, fast: u32, scalar: &dyn Fn(usize) -> f32) -> __m128 {
    let mut v = f32_lanes(out);
    for (k, lane) in v.iter_mut().enumerate() {
        if fast & (1 << k) == 0 {
            *lane = scalar(k);
        }
    }
    super::lanes::register(v)
}

/// Bit k set where lane k of the `float` bit patterns `ix` is a positive normal number (the
/// arguments of the table logarithm without its subnormal scaling).
#[inline(always)]
pub(super) fn positive_normal(ix: __m128i) -> u32 {
    sse2! {
        let above = _mm_cmpgt_epi32(ix, _mm_set1_epi32(0x007f_ffff));
        let below = _mm_cmplt_epi32(ix, _mm_set1_epi32(0x7f80_0000));
        _mm_movemask_ps(_mm_castsi128_ps(_mm_and_si128(above, below))) as u32
    }
}

/// [`kernels::exp2_core`] of four lanes.
#[inline(always)]
fn exp2_core(t: F64x4) -> F64x4 {
    let (kd, r) = kernels::exp2_reduction(t);
    let ki = kd.to_bits();
    let entries = ki
        .to_array()
        .map(|k| EXP2_TABLE[(k % EXP_N as u64) as usize]);
    let scale = F64x4::from_bits(U64x4::from_array(entries) + ki.shl::<46>());
    scale * kernels::exp2_poly(r)
}

/// [`kernels::exp2_to_f32`] of four lanes: the same clamp, and NaN lanes selected from `t`
/// narrowed (a `double` narrows to a NaN `float` only if it is NaN).
#[inline(always)]
pub(super) fn exp2_to_f32(t: F64x4) -> __m128 {
    sse2! {
        let out = exp2_core(t.clamp(kernels::EXP2_F32_MIN, kernels::EXP2_F32_MAX)).to_f32();
        let narrow = t.to_f32();
        select(_mm_cmpunord_ps(narrow, narrow), narrow, out)
    }
}

/// `a` in the lanes where `mask` is all ones, `b` where it is zero.
#[inline(always)]
fn select(mask: __m128, a: __m128, b: __m128) -> __m128 {
    sse2! {
        _mm_or_ps(_mm_and_ps(mask, a), _mm_andnot_ps(mask, b))
    }
}

/// [`kernels::log2_core`] of four lanes that are all positive normal numbers (the result of
/// other lanes is garbage).
#[inline(always)]
pub(super) fn log2_core_normal(x: __m128) -> F64x4 {
    sse2! {
        let ix = _mm_castps_si128(x);
        let tmp = _mm_sub_epi32(ix, _mm_set1_epi32(LOG_OFF as i32));
        let index = u32_lanes(_mm_srli_epi32::<{ 23 - LOG_TABLE_BITS as i32 }>(tmp));
        let k = _mm_srai_epi32::<23>(tmp);
        let exponent = _mm_and_si128(tmp, _mm_set1_epi32(0xff80_0000_u32 as i32));
        let z = F64x4::from_f32(_mm_castsi128_ps(_mm_sub_epi32(ix, exponent)));
        let entries = index.map(|i| LOG_TABLE[i as usize % LOG_N]);
        let invc = F64x4::from_array(entries.map(|e| e.0));
        let log2c = F64x4::from_array(entries.map(|e| e.1));
        kernels::log2_tail(F64x4::from_i32(k), z, invc, log2c)
    }
}

/// [`kernels::log_base_f32`] of four lanes.
#[inline(always)]
pub(super) fn log_base_f32(x: __m128, inv_log2_base: f64) -> __m128 {
    sse2! {
        let out = (log2_core_normal(x) * F64x4::splat(inv_log2_base)).to_f32();
        let fast = positive_normal(_mm_castps_si128(x));
        if fast == 0b1111 {
            return out;
        }
        let x = f32_lanes(x);
        patch(out, fast, &|k| kernels::log_base_f32(x[k], inv_log2_base))
    }
}

/// `|x|` of four `float` lanes.
#[inline(always)]
fn abs_f32(x: __m128) -> __m128 {
    sse2! {
        _mm_andnot_ps(_mm_set1_ps(-0.0), x)
    }
}

/// Bit k set where `|x|` of lane k is below the `float` with bit pattern `bits` (clear for
/// NaN).
#[inline(always)]
fn abs_below(x: __m128, bits: u32) -> u32 {
    sse2! {
        _mm_movemask_ps(_mm_cmplt_ps(abs_f32(x), _mm_set1_ps(f32::from_bits(bits)))) as u32
    }
}

/// Bit pattern of 2^28·pi/2 as a `float`: [`kernels::reduce_pio2`]'s limit.
const HUGE: u32 = 0x4dc9_0fdb;
/// Bit pattern of pi/4 as a `float`: up to it [`kernels::reduce_pio2`] leaves `x` as it is.
const PIO4: u32 = 0x3f49_0fdb;

/// `sin(x + q·pi/2)` of four lanes for `q` = 0 (`sin`) or 1 (`cos`): [`kernels::sin_f32`] and
/// [`kernels::cos_f32`], reduction and quadrant selection included. Lanes beyond 2^28·pi/2
/// are reduced one by one ([`kernels::reduce_large`], integer arithmetic) and then share the
/// polynomials; only infinite and NaN lanes take the scalar function.
#[inline(always)]
pub(super) fn sin_quarter(x: __m128, q: u64) -> __m128 {
    let xd = F64x4::from_f32(x);
    let (kd, reduced) = kernels::pio2_reduction(xd);
    // Up to pi/4: n = 0 and r = x. (`|x|` widened is exact, so the comparison in `double`
    // is the scalar kernel's comparison of bit patterns.)
    let small = xd.abs().le_mask(f32::from_bits(PIO4) as f64);
    let mut r = F64x4::select(small, xd, reduced);
    // `kd` holds n in its low mantissa bits (SHIFT's are zero), so n mod 4 is its bits mod 4.
    let mut n = kd.to_bits().and_not(small);
    let fast = abs_below(x, HUGE);
    if fast != 0b1111 {
        (n, r) = reduce_large_lanes(x, fast, n, r);
    }
    let n = n + U64x4::splat(q);
    let (s, c) = (kernels::sin_poly(r), kernels::cos_poly(r));
    let odd = U64x4::zero() - (n & U64x4::splat(1));
    let bits = s.to_bits().and_not(odd) | (c.to_bits() & odd);
    let out = F64x4::from_bits(bits ^ (n & U64x4::splat(2)).shl::<62>()).to_f32();
    let finite = abs_below(x, 0x7f80_0000);
    if finite == 0b1111 {
        return out;
    }
    let lanes = f32_lanes(x);
    patch(out, finite, &|k| {
        if q == 0 {
            kernels::sin_f32(lanes[k])
        } else {
            kernels::cos_f32(lanes[k])
        }
    })
}

/// `(n, r)` with the lanes whose bit is clear in `fast` reduced by [`kernels::reduce_pio2`]
/// (its table reduction; infinite and NaN lanes are left as they are, for the caller to
/// patch). `n` only matters modulo 4, so its two's complement bits do.
#[inline(never)]
fn reduce_large_lanes(x: __m128, fast: u32, n: U64x4, r: F64x4) -> (U64x4, F64x4) {
    let lanes = f32_lanes(x);
    let (mut n, mut r) = (n.to_array(), r.to_array());
    for k in 0..4 {
        if fast & (1 << k) == 0
            && let Some((nk, rk)) = kernels::reduce_pio2(lanes[k])
        {
            (n[k], r[k]) = (nk as u64, rk);
        }
    }
    (U64x4::from_array(n), F64x4::from_array(r))
}

/// [`kernels::sin_f32`] of four lanes: below 2^-12, `x` itself.
#[inline(always)]
pub(super) fn sin_f32(x: __m128) -> __m128 {
    sse2! {
        let out = sin_quarter(x, 0);
        let tiny = _mm_cmplt_ps(abs_f32(x), _mm_set1_ps(f32::from_bits(TINY)));
        _mm_or_ps(_mm_and_ps(tiny, x), _mm_andnot_ps(tiny, out))
    }
}

/// [`kernels::cos_f32`] of four lanes.
#[inline(always)]
pub(super) fn cos_f32(x: __m128) -> __m128 {
    sin_quarter(x, 1)
}

/// `clift_pow_f32` of four pairs of lanes, branch-free: `±2^(y·log2|x|)` in every lane, then
/// each special case of `clift_pow_f32` (C99 F.9.4.4) selected over it where it applies, the
/// lowest priority first, so a lane takes the rule the scalar function checks first. No lane
/// falls back to the scalar function: with the CTS's random bit patterns, most groups of four
/// hold a negative `x` or a result out of range.
#[inline(always)]
pub(super) fn pow_f32(x: __m128, y: __m128) -> __m128 {
    sse2! {
        let ix = _mm_castps_si128(x);
        let sign_bit = _mm_set1_epi32(i32::MIN);
        let ax = _mm_castsi128_ps(_mm_andnot_si128(sign_bit, ix));
        let inf = _mm_set1_ps(f32::INFINITY);
        let one = _mm_set1_ps(1.0);
        let zero = _mm_setzero_ps();
        // |x| subnormal: scaled by 2^23 and the exponent taken back, as `log2_core` does.
        let subnormal = _mm_cmplt_ps(ax, _mm_set1_ps(f32::MIN_POSITIVE));
        let scaled = _mm_sub_epi32(
            _mm_castps_si128(_mm_mul_ps(ax, _mm_set1_ps(8_388_608.0))),
            _mm_set1_epi32(23 << 23),
        );
        let lx = _mm_castsi128_ps(scaled);
        let log_arg = select(subnormal, lx, ax);
        let general = exp2_to_f32(F64x4::from_f32(y) * log2_core_normal(log_arg));
        // y an integer below 2^31 in magnitude: converted there and back unchanged; odd: its
        // low bit, moved to the sign bit (|y| >= 2^31 converts to i32::MIN, even).
        let yi = _mm_cvttps_epi32(y);
        let small_integer = _mm_cmpeq_ps(_mm_cvtepi32_ps(yi), y);
        let odd = _mm_and_ps(small_integer, _mm_castsi128_ps(_mm_slli_epi32::<31>(yi)));
        // The result's sign: x's sign where y is odd.
        let sign = _mm_and_ps(odd, _mm_castsi128_ps(_mm_and_si128(ix, sign_bit)));
        let ay = _mm_castsi128_ps(_mm_andnot_si128(sign_bit, _mm_castps_si128(y)));
        let integer = _mm_or_ps(small_integer, _mm_cmpge_ps(ay, _mm_set1_ps(16_777_216.0)));
        let y_negative = _mm_cmplt_ps(y, zero);
        let mut out = _mm_xor_ps(general, sign);
        // x < 0 and y not an integer: NaN.
        let invalid = _mm_andnot_ps(integer, _mm_cmplt_ps(x, zero));
        out = select(invalid, _mm_set1_ps(f32::NAN), out);
        // |x| = inf: inf for y > 0, 0 for y < 0, signed.
        let x_inf = _mm_cmpeq_ps(ax, inf);
        out = select(x_inf, _mm_xor_ps(_mm_andnot_ps(y_negative, inf), sign), out);
        // x = ±0: 0 for y > 0, inf for y < 0, signed.
        let x_zero = _mm_cmpeq_ps(ax, zero);
        out = select(x_zero, _mm_xor_ps(_mm_and_ps(y_negative, inf), sign), out);
        // y = ±inf: 1 for |x| = 1, 0 where |x| < 1 and y > 0 or |x| > 1 and y < 0, else inf.
        let y_inf = _mm_cmpeq_ps(ay, inf);
        let grows = _mm_xor_ps(_mm_cmplt_ps(ax, one), _mm_cmpgt_ps(y, zero));
        let y_inf_value = select(_mm_cmpeq_ps(ax, one), one, _mm_and_ps(grows, inf));
        out = select(y_inf, y_inf_value, out);
        // A NaN argument: `x + y` (the NaN operand quieted, x's if both are NaN).
        out = select(_mm_cmpunord_ps(x, y), _mm_add_ps(x, y), out);
        // y = ±0 or x = 1: exactly 1, NaN or not.
        select(_mm_or_ps(_mm_cmpeq_ps(y, zero), _mm_cmpeq_ps(x, one)), one, out)
    }
}

// `pio2_reduction` and `exp2_reduction` leave their integer in the low mantissa bits of
// `SHIFT + n` only because `SHIFT`'s low bits are zero.
const _: () = assert!(SHIFT.to_bits() & 0xffff_ffff == 0);
