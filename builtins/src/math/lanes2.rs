//! `double` math functions on two lanes at once, for the work-item vectorizer
//! (`compiler/src/codegen/simd/builtins.rs`): a `double` across 4 work-items is two `f64x2`
//! registers, and `clift_v2_<name>_f64` takes and returns one (`__m128d`, one `xmm`
//! register in the System V calling convention, as Cranelift passes an `f64x2`).
//!
//! The scalar functions are libm's (FreeBSD's `e_exp.c` and `e_log.c`), so each form here is
//! libm's algorithm written again on two lanes in SSE2: the same operations in the same
//! order, with libm's branches on ranges of the argument as lane selects where every branch
//! computes with the same formula (`exp`'s `k = 0` range is its general reduction with
//! `k = 0`, bit for bit), so a lane's result is the scalar function's bit for bit and a
//! kernel's results do not depend on whether it was vectorized. Lanes of libm's rare
//! paths (NaN, infinities, `exp` overflow and underflow, `log` of zero, negative or
//! subnormal numbers) are recomputed by the scalar function. Inactive lanes of a masked
//! step run too, on whatever their register holds: every function here is pure.

// `__m128d` has no `repr(C)`, but the System V ABI defines it: one `xmm` register, which is
// how Cranelift passes and returns an `f64x2`.
#![allow(
    improper_ctypes_definitions,
    reason = "__m128d is one xmm register in the System V calling convention"
)]

use std::arch::x86_64::{
    __m128d, __m128i, _mm_add_epi32, _mm_add_epi64, _mm_add_pd, _mm_and_pd, _mm_and_si128,
    _mm_andnot_pd, _mm_castpd_si128, _mm_castsi128_pd, _mm_cmpeq_epi32, _mm_cmpeq_pd, _mm_cmpge_pd,
    _mm_cmpgt_epi32, _mm_cmpgt_pd, _mm_cmplt_pd, _mm_cvtepi32_pd, _mm_cvttpd_epi32, _mm_div_pd,
    _mm_movemask_pd, _mm_mul_pd, _mm_or_pd, _mm_set1_epi32, _mm_set1_epi64x, _mm_set1_pd,
    _mm_shuffle_epi32, _mm_slli_epi64, _mm_srli_epi64, _mm_sub_pd, _mm_xor_pd,
};

use super::f64x4::sse2;

/// The two lanes of `x`, lane 0 first.
#[inline(always)]
fn lanes(x: __m128d) -> [f64; 2] {
    // SAFETY: `__m128d` is two `f64`s in lane order.
    unsafe { std::mem::transmute::<__m128d, [f64; 2]>(x) }
}

/// The register of lanes `a`.
#[inline(always)]
fn register(a: [f64; 2]) -> __m128d {
    // SAFETY: as in `lanes`, the other way round.
    unsafe { std::mem::transmute::<[f64; 2], __m128d>(a) }
}

/// `out` with each lane k whose bit is clear in `fast` replaced by `scalar(x[k])`: the lanes
/// that needed a rare path of libm's.
#[cold]
#[inline(never)]
fn patch(out: __m128d, fast: i32, x: __m128d, scalar: extern "C" fn(f64) -> f64) -> __m128d {
    let (mut v, x) = (lanes(out), lanes(x));
    for k in 0..2 {
        if fast & (1 << k) == 0 {
            v[k] = scalar(x[k]);
        }
    }
    register(v)
}

/// `v` in both lanes.
#[inline(always)]
fn splat(v: f64) -> __m128d {
    sse2! { _mm_set1_pd(v) }
}

#[inline(always)]
fn add(a: __m128d, b: __m128d) -> __m128d {
    sse2! { _mm_add_pd(a, b) }
}

#[inline(always)]
fn sub(a: __m128d, b: __m128d) -> __m128d {
    sse2! { _mm_sub_pd(a, b) }
}

#[inline(always)]
fn mul(a: __m128d, b: __m128d) -> __m128d {
    sse2! { _mm_mul_pd(a, b) }
}

#[inline(always)]
fn div(a: __m128d, b: __m128d) -> __m128d {
    sse2! { _mm_div_pd(a, b) }
}

/// `a` in the lanes where `mask` is all ones, `b` where it is zero.
#[inline(always)]
fn select(mask: __m128d, a: __m128d, b: __m128d) -> __m128d {
    sse2! { _mm_or_pd(_mm_and_pd(mask, a), _mm_andnot_pd(mask, b)) }
}

/// The high 32 bits of each lane of `x` (libm's `hx`), in the low 32 bits of its 64-bit
/// lane, the high 32 bits zero.
#[inline(always)]
fn high_words(x: __m128d) -> __m128i {
    sse2! { _mm_srli_epi64::<32>(_mm_castpd_si128(x)) }
}

/// All ones in the 64-bit lanes whose value (below 2^31) is above `bound`.
#[inline(always)]
fn above(v: __m128i, bound: u32) -> __m128d {
    sse2! {
        // The high 32 bits of each lane are zero, so comparing both halves as `i32`s and
        // copying the low half's answer up gives the 64-bit comparison.
        let gt = _mm_cmpgt_epi32(v, _mm_set1_epi32(bound as i32));
        _mm_castsi128_pd(_mm_shuffle_epi32::<0b10_10_00_00>(gt))
    }
}

/// Bit k set where lane k of `mask` is all ones.
#[inline(always)]
fn bits(mask: __m128d) -> i32 {
    sse2! { _mm_movemask_pd(mask) }
}

/// `2^k` of each lane, for integer lanes `k` in [-1022, 1023] (`libm::scalbn`'s factor).
#[inline(always)]
fn exp2i(k: __m128d) -> __m128d {
    sse2! {
        // k + 1023 + 2^52 holds k + 1023 in its low mantissa bits, exactly; shifted up by
        // 52 they are the exponent field of 2^k.
        let biased = _mm_castpd_si128(add(k, splat(1023.0 + 4_503_599_627_370_496.0)));
        _mm_castsi128_pd(_mm_slli_epi64::<52>(biased))
    }
}

// libm's `exp` (FreeBSD `e_exp.c`) constants, by their bit patterns (libm's comments).
const HALF: f64 = 0.5;
const LN2HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
const LN2LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
const INVLN2: f64 = f64::from_bits(0x3ff7_1547_652b_82fe);
const P1: f64 = f64::from_bits(0x3fc5_5555_5555_553e);
const P2: f64 = f64::from_bits(0xbf66_c16c_16be_bd93);
const P3: f64 = f64::from_bits(0x3f11_566a_af25_de2c);
const P4: f64 = f64::from_bits(0xbebb_bd41_c5d2_6bf1);
const P5: f64 = f64::from_bits(0x3e66_3769_72be_a4d0);

/// `exp` of each lane (`clift_exp_f64`, libm's `exp`).
pub extern "C" fn clift_v2_exp_f64(x: __m128d) -> __m128d {
    let (out, fast) = exp_fast(x);
    if fast == 0b11 {
        return out;
    }
    patch(out, fast, x, super::double::clift_exp_f64)
}

/// libm's `exp` of each lane; bit k of the second result is set where lane k took no rare
/// path (the other lanes' results are garbage).
#[inline(always)]
fn exp_fast(x: __m128d) -> (__m128d, i32) {
    sse2! {
        let hx = _mm_and_si128(high_words(x), _mm_set1_epi64x(0x7fff_ffff));
        // libm's ranges of |x| by the high word: above 2^-28 (else 1 + x), above 0.5 ln2
        // (k = ±1), from 1.5 ln2 (k rounded from x / ln2), from 708.39 (overflow, underflow,
        // NaN: the scalar function).
        let tiny = _mm_castsi128_pd(_mm_cmpeq_epi32(
            _mm_castpd_si128(above(hx, 0x3e30_0000)),
            _mm_set1_epi32(0),
        ));
        let reduced = above(hx, 0x3fd6_2e42);
        let rounded = above(hx, 0x3ff0_a2b1);
        let fast = 3 & !bits(above(hx, 0x4086_232a));
        let sign = _mm_and_pd(x, splat(-0.0));
        // k = (INVLN2 * x + HALF[sign]) as i32, truncated; ±1; or 0.
        let t = add(mul(splat(INVLN2), x), _mm_or_pd(splat(HALF), sign));
        let rounded_k = _mm_cvtepi32_pd(_mm_cvttpd_epi32(t));
        let one_k = _mm_or_pd(splat(1.0), sign);
        let k = _mm_and_pd(reduced, select(rounded, rounded_k, one_k));
        // hi = x - k·ln2hi, lo = k·ln2lo, x = hi - lo; with k = 0 that is hi = x, lo = 0.
        let hi = sub(x, mul(k, splat(LN2HI)));
        let lo = mul(k, splat(LN2LO));
        let r = sub(hi, lo);
        let xx = mul(r, r);
        let poly = add(splat(P4), mul(xx, splat(P5)));
        let poly = add(splat(P3), mul(xx, poly));
        let poly = add(splat(P2), mul(xx, poly));
        let poly = add(splat(P1), mul(xx, poly));
        let c = sub(r, mul(xx, poly));
        let y = add(
            splat(1.0),
            add(sub(div(mul(r, c), sub(splat(2.0), c)), lo), hi),
        );
        // scalbn(y, k) = y · 2^k for k in [-1022, 1022]; 2^0 = 1 leaves y as libm does.
        (select(tiny, add(splat(1.0), x), mul(y, exp2i(k))), fast)
    }
}

/// Dekker's exact product of each lane without FMA (`double.rs`'s `two_prod`): `a·b = hi +
/// lo`, the same operations in the same order.
#[inline(always)]
fn two_prod(a: __m128d, b: __m128d) -> (__m128d, __m128d) {
    let split = |a: __m128d| {
        let c = mul(splat(134_217_729.0), a);
        let hi = sub(c, sub(c, a));
        (hi, sub(a, hi))
    };
    let p = mul(a, b);
    let ((ah, al), (bh, bl)) = (split(a), split(b));
    let partial = add(add(sub(mul(ah, bh), p), mul(ah, bl)), mul(al, bh));
    (p, add(partial, mul(al, bl)))
}

/// `exp10` of each lane (`clift_exp10_f64`: `e^t + e^t·dt` on the double-double `x·ln 10 =
/// t + dt`); its NaN, out-of-range, exact-power and infinite lanes by the scalar function.
pub extern "C" fn clift_v2_exp10_f64(x: __m128d) -> __m128d {
    sse2! {
        let (t, lo) = two_prod(x, splat(std::f64::consts::LN_10));
        let dt = add(lo, mul(x, splat(super::double::LN_10_LO)));
        let (e, fast) = exp_fast(t);
        let out = add(e, mul(e, dt));
        // In range (NaN fails both), not an integer in [0, 22] (exact powers), finite e.
        let in_range = _mm_and_pd(_mm_cmplt_pd(x, splat(309.0)), _mm_cmpgt_pd(x, splat(-325.0)));
        let integer = _mm_cmpeq_pd(_mm_cvtepi32_pd(_mm_cvttpd_epi32(x)), x);
        let power = _mm_and_pd(
            integer,
            _mm_and_pd(_mm_cmpge_pd(x, splat(0.0)), _mm_cmplt_pd(x, splat(23.0))),
        );
        let finite = _mm_cmplt_pd(_mm_andnot_pd(splat(-0.0), e), splat(f64::INFINITY));
        let fast = fast & bits(_mm_andnot_pd(power, _mm_and_pd(in_range, finite)));
        if fast == 0b11 {
            return out;
        }
        patch(out, fast, x, super::double::clift_exp10_f64)
    }
}

// libm's `log` (FreeBSD `e_log.c`) constants (its ln 2 split is `exp`'s).
const LG1: f64 = f64::from_bits(0x3fe5_5555_5555_5593);
const LG2: f64 = f64::from_bits(0x3fd9_9999_9997_fa04);
const LG3: f64 = f64::from_bits(0x3fd2_4924_9422_9359);
const LG4: f64 = f64::from_bits(0x3fcc_71c5_1d8e_78af);
const LG5: f64 = f64::from_bits(0x3fc7_4664_96cb_03de);
const LG6: f64 = f64::from_bits(0x3fc3_9a09_d078_c69f);
const LG7: f64 = f64::from_bits(0x3fc2_f112_df3e_5244);

/// libm's `log`, `log2` and `log10` reduction of each lane: `x = 2^k·(1 + f)` with `1 + f`
/// in [sqrt(2)/2, sqrt(2)), then `(k, f, f²/2, s = f/(2 + f), R(s²))`. Bit k of the last
/// result is set where lane k is a positive normal finite number (the other lanes need the
/// scalar function: zero, negative, subnormal, infinite, NaN).
#[inline(always)]
fn log_reduction(x: __m128d) -> ([__m128d; 5], i32) {
    sse2! {
        let hx = high_words(x);
        // The high word from 0x00100000 below 0x7ff00000 (a set sign bit makes it larger).
        let fast = bits(above(hx, 0x000f_ffff)) & !bits(above(hx, 0x7fef_ffff));
        // The high word moved by 0x3ff00000 - 0x3fe6a09e, k its exponent, the mantissa put
        // back under 0x3fe6a09e.
        let ui = _mm_add_epi64(
            _mm_castpd_si128(x),
            _mm_slli_epi64::<32>(_mm_set1_epi64x(0x3ff0_0000 - 0x3fe6_a09e)),
        );
        let exponent = _mm_srli_epi64::<52>(ui);
        let shift = splat(4_503_599_627_370_496.0);
        let biased = sub(
            _mm_castsi128_pd(_mm_add_epi64(exponent, _mm_castpd_si128(shift))),
            shift,
        );
        let dk = sub(biased, splat(1023.0));
        let mantissa = _mm_and_si128(ui, _mm_set1_epi64x(0x000f_ffff_ffff_ffff));
        let reduced = _mm_castsi128_pd(_mm_add_epi64(
            mantissa,
            _mm_slli_epi64::<32>(_mm_set1_epi64x(0x3fe6_a09e)),
        ));
        let f = sub(reduced, splat(1.0));
        let hfsq = mul(mul(splat(0.5), f), f);
        let s = div(f, add(splat(2.0), f));
        let z = mul(s, s);
        let w = mul(z, z);
        let t1 = mul(w, add(splat(LG2), mul(w, add(splat(LG4), mul(w, splat(LG6))))));
        let inner = add(splat(LG5), mul(w, splat(LG7)));
        let t2 = mul(z, add(splat(LG1), mul(w, add(splat(LG3), mul(w, inner)))));
        ([dk, f, hfsq, s, add(t2, t1)], fast)
    }
}

/// `log` of each lane (`clift_log_f64`, libm's `log`).
pub extern "C" fn clift_v2_log_f64(x: __m128d) -> __m128d {
    let ([dk, f, hfsq, s, r], fast) = log_reduction(x);
    let sum = add(mul(s, add(hfsq, r)), mul(dk, splat(LN2LO)));
    let out = add(add(sub(sum, hfsq), f), mul(dk, splat(LN2HI)));
    if fast == 0b11 {
        return out;
    }
    patch(out, fast, x, super::double::clift_log_f64)
}

/// libm's `log2` and `log10` split of `log(1 + f)`: `hi` (`f - f²/2` with its low 32 bits
/// cleared) and `lo`.
#[inline(always)]
fn log_split(f: __m128d, hfsq: __m128d, s: __m128d, r: __m128d) -> (__m128d, __m128d) {
    sse2! {
        let hi = _mm_and_pd(sub(f, hfsq), _mm_castsi128_pd(_mm_set1_epi64x(-1 << 32)));
        let lo = add(sub(sub(f, hi), hfsq), mul(s, add(hfsq, r)));
        (hi, lo)
    }
}

/// `val_lo + val_hi` after libm's `log2`/`log10` final extra-precision addition of `y`.
#[inline(always)]
fn log_sum(y: __m128d, val_hi: __m128d, val_lo: __m128d) -> __m128d {
    let w = add(y, val_hi);
    add(add(val_lo, add(sub(y, w), val_hi)), w)
}

const IVLN2HI: f64 = f64::from_bits(0x3ff7_1547_6520_0000);
const IVLN2LO: f64 = f64::from_bits(0x3de7_05fc_2eef_a200);
const IVLN10HI: f64 = f64::from_bits(0x3fdb_cb7b_1520_0000);
const IVLN10LO: f64 = f64::from_bits(0x3dbb_9438_ca9a_add5);
const LOG10_2HI: f64 = f64::from_bits(0x3fd3_4413_509f_6000);
const LOG10_2LO: f64 = f64::from_bits(0x3d59_fef3_11f1_2b36);

/// `log2` of each lane (`clift_log2_f64`, libm's `log2`).
pub extern "C" fn clift_v2_log2_f64(x: __m128d) -> __m128d {
    let ([dk, f, hfsq, s, r], fast) = log_reduction(x);
    let (hi, lo) = log_split(f, hfsq, s, r);
    let val_hi = mul(hi, splat(IVLN2HI));
    let val_lo = add(mul(add(lo, hi), splat(IVLN2LO)), mul(lo, splat(IVLN2HI)));
    let out = log_sum(dk, val_hi, val_lo);
    if fast == 0b11 {
        return out;
    }
    patch(out, fast, x, super::double::clift_log2_f64)
}

/// `log10` of each lane (`clift_log10_f64`, libm's `log10`).
pub extern "C" fn clift_v2_log10_f64(x: __m128d) -> __m128d {
    let ([dk, f, hfsq, s, r], fast) = log_reduction(x);
    let (hi, lo) = log_split(f, hfsq, s, r);
    let val_hi = mul(hi, splat(IVLN10HI));
    let y = mul(dk, splat(LOG10_2HI));
    let val_lo = add(
        add(mul(dk, splat(LOG10_2LO)), mul(add(lo, hi), splat(IVLN10LO))),
        mul(lo, splat(IVLN10HI)),
    );
    let out = log_sum(y, val_hi, val_lo);
    if fast == 0b11 {
        return out;
    }
    patch(out, fast, x, super::double::clift_log10_f64)
}

// libm's `__rem_pio2`, `__sin` and `__cos` constants, by their bit patterns.
const TO_INT: f64 = f64::from_bits(0x4338_0000_0000_0000);
const INV_PIO2: f64 = f64::from_bits(0x3fe4_5f30_6dc9_c883);
const PIO2_1: f64 = f64::from_bits(0x3ff9_21fb_5440_0000);
const PIO2_1T: f64 = f64::from_bits(0x3dd0_b461_1a62_6331);
const S1: f64 = f64::from_bits(0xbfc5_5555_5555_5549);
const S2: f64 = f64::from_bits(0x3f81_1111_1110_f8a6);
const S3: f64 = f64::from_bits(0xbf2a_01a0_19c1_61d5);
const S4: f64 = f64::from_bits(0x3ec7_1de3_57b1_fe7d);
const S5: f64 = f64::from_bits(0xbe5a_e5e6_8a2b_9ceb);
const S6: f64 = f64::from_bits(0x3de5_d93a_5acf_d57c);
const C1: f64 = f64::from_bits(0x3fa5_5555_5555_554c);
const C2: f64 = f64::from_bits(0xbf56_c16c_16c1_5177);
const C3: f64 = f64::from_bits(0x3efa_01a0_19cb_1590);
const C4: f64 = f64::from_bits(0xbe92_7e4f_809c_52ad);
const C5: f64 = f64::from_bits(0x3e21_ee9e_bdb4_b1c4);
const C6: f64 = f64::from_bits(0xbda8_fae9_be88_38d4);

/// All ones in the 64-bit lanes whose value (below 2^31) equals `v`.
#[inline(always)]
fn equal(x: __m128i, v: u32) -> __m128d {
    sse2! {
        let eq = _mm_cmpeq_epi32(x, _mm_set1_epi32(v as i32));
        _mm_castsi128_pd(_mm_shuffle_epi32::<0b10_10_00_00>(eq))
    }
}

/// libm's `__sin(x, y, 1)` and `__cos(x, y)`, and `__sin(x, 0, 0)`, of each lane.
#[inline(always)]
fn kernels(x: __m128d, y: __m128d) -> (__m128d, __m128d, __m128d) {
    let z = mul(x, x);
    let w = mul(z, z);
    let r = add(
        add(splat(S2), mul(z, add(splat(S3), mul(z, splat(S4))))),
        mul(mul(z, w), add(splat(S5), mul(z, splat(S6)))),
    );
    let v = mul(z, x);
    let sin_tail = sub(
        sub(mul(z, sub(mul(splat(0.5), y), mul(v, r))), y),
        mul(v, splat(S1)),
    );
    let sin = sub(x, sin_tail);
    let sin_exact = add(x, mul(v, add(splat(S1), mul(z, r))));
    let rc = add(
        mul(z, add(splat(C1), mul(z, add(splat(C2), mul(z, splat(C3)))))),
        mul(
            mul(w, w),
            add(splat(C4), mul(z, add(splat(C5), mul(z, splat(C6))))),
        ),
    );
    let hz = mul(splat(0.5), z);
    let wc = sub(splat(1.0), hz);
    let cos = add(
        wc,
        add(sub(sub(splat(1.0), wc), hz), sub(mul(z, rc), mul(x, y))),
    );
    (sin, cos, sin_exact)
}

/// libm's `sin` (`q` = 0) or `cos` (`q` = 1) of each lane: `__rem_pio2`'s reductions up to
/// 2^20·pi/2 that need one round (its fixed quotients up to 9pi/4 and its rounded one
/// beyond, each the same three operations), then `__sin`/`__cos` chosen by the quadrant
/// plus `q`. Bit k of the second result is set where lane k needs the scalar function
/// (infinities and NaN included).
#[inline(always)]
fn sin_quarter(x: __m128d, q: i32) -> (__m128d, i32) {
    sse2! {
        let ix = _mm_and_si128(high_words(x), _mm_set1_epi64x(0x7fff_ffff));
        let small = _mm_castsi128_pd(_mm_cmpeq_epi32(
            _mm_castpd_si128(above(ix, 0x3fe9_21fb)),
            _mm_set1_epi32(0),
        ));
        // The fixed quotients 1 to 4 by range of |x|, with x's sign.
        let one = splat(1.0);
        let steps = [0x4002_d97c, 0x400f_6a7a, 0x4015_fdbc].map(|b| _mm_and_pd(above(ix, b), one));
        let magnitude = add(add(add(one, steps[0]), steps[1]), steps[2]);
        let fixed = _mm_or_pd(magnitude, _mm_and_pd(x, splat(-0.0)));
        // Rounded quotients beyond 9pi/4, and where the fixed ones would cancel (x near
        // pi/2, pi, 3pi/2, 2pi).
        let near = _mm_and_pd(
            _mm_castsi128_pd(_mm_cmpeq_epi32(
                _mm_castpd_si128(above(ix, 0x400f_6a7a)),
                _mm_set1_epi32(0),
            )),
            equal(_mm_and_si128(ix, _mm_set1_epi64x(0xfffff)), 0x921fb),
        );
        let medium = _mm_or_pd(
            _mm_or_pd(above(ix, 0x401c_463b), near),
            _mm_or_pd(equal(ix, 0x4012_d97c), equal(ix, 0x4019_21fb)),
        );
        let rounded = sub(add(mul(x, splat(INV_PIO2)), splat(TO_INT)), splat(TO_INT));
        let f_n = _mm_andnot_pd(small, select(medium, rounded, fixed));
        let r = sub(x, mul(f_n, splat(PIO2_1)));
        let w = mul(f_n, splat(PIO2_1T));
        let y0 = sub(r, w);
        let y1 = sub(sub(r, y0), w);
        // The rounded reduction's second round (a cancellation): the scalar function.
        let ex = _mm_srli_epi64::<20>(ix);
        let ey = _mm_srli_epi64::<52>(_mm_and_si128(
            _mm_castpd_si128(y0),
            _mm_set1_epi64x(0x7fff_ffff_ffff_ffff),
        ));
        let cancels = _mm_castsi128_pd(_mm_shuffle_epi32::<0b10_10_00_00>(_mm_cmpgt_epi32(
            ex,
            _mm_add_epi64(ey, _mm_set1_epi64x(16)),
        )));
        let slow = bits(_mm_or_pd(_mm_and_pd(medium, cancels), above(ix, 0x4139_21fa)));
        let (y0, y1) = (select(small, x, y0), _mm_andnot_pd(small, y1));
        let (s, c, s_exact) = kernels(y0, y1);
        let s = select(small, s_exact, s);
        // Quadrant n + q: odd takes the cosine kernel, 2 and 3 negate.
        let n = _mm_add_epi32(_mm_cvttpd_epi32(f_n), _mm_set1_epi32(q));
        let n = _mm_shuffle_epi32::<0b01_01_00_00>(n);
        let odd = _mm_castsi128_pd(_mm_cmpeq_epi32(
            _mm_and_si128(n, _mm_set1_epi32(1)),
            _mm_set1_epi32(1),
        ));
        let negate = _mm_castsi128_pd(_mm_slli_epi64::<62>(_mm_and_si128(
            n,
            _mm_set1_epi32(2),
        )));
        let out = _mm_xor_pd(select(odd, c, s), negate);
        (out, slow)
    }
}

/// `sin` of each lane (`clift_sin_f64`, libm's `sin`): below 2^-26, `x` itself.
pub extern "C" fn clift_v2_sin_f64(x: __m128d) -> __m128d {
    sse2! {
        let (out, slow) = sin_quarter(x, 0);
        let ix = _mm_and_si128(high_words(x), _mm_set1_epi64x(0x7fff_ffff));
        let out = select(above(ix, 0x3e4f_ffff), out, x);
        if slow == 0 {
            return out;
        }
        patch(out, 3 & !slow, x, super::double::clift_sin_f64)
    }
}

/// `cos` of each lane (`clift_cos_f64`, libm's `cos`): below 2^-27·sqrt(2), 1.
pub extern "C" fn clift_v2_cos_f64(x: __m128d) -> __m128d {
    sse2! {
        let (out, slow) = sin_quarter(x, 1);
        let ix = _mm_and_si128(high_words(x), _mm_set1_epi64x(0x7fff_ffff));
        let out = select(above(ix, 0x3e46_a09d), out, splat(1.0));
        if slow == 0 {
            return out;
        }
        patch(out, 3 & !slow, x, super::double::clift_cos_f64)
    }
}

/// The functions above by symbol, for the JIT's symbol table.
pub(super) fn symbols() -> Vec<(&'static str, *const u8)> {
    registry! {
        clift_v2_exp_f64 clift_v2_exp10_f64 clift_v2_log_f64 clift_v2_log2_f64 clift_v2_log10_f64
        clift_v2_sin_f64 clift_v2_cos_f64
    }
}

#[cfg(test)]
mod tests {
    use super::super::lanes::tests::random;
    use super::*;

    /// Every class of argument libm's `exp`, `log`, `sin` and `cos` treat apart, with their
    /// neighbours (±8 ulps, both signs): zeros, subnormals, the smallest normal, 2^-28, 0.5
    /// ln2 and 1.5 ln2 (and the high-word bounds of each), 1, sqrt(2)/2 and sqrt(2), the
    /// overflow and underflow limits, the trigonometric bounds below, the largest finite
    /// number, infinities and NaNs.
    fn special() -> Vec<f64> {
        let centers: [u64; 16] = [
            0,
            1,
            0x000f_ffff_ffff_ffff,
            0x0010_0000_0000_0000,
            0x3e30_0000_0000_0000,
            0x3e30_0000_ffff_ffff,
            0x3fd6_2e42_fefa_39ef,
            0x3fd6_2e42_ffff_ffff,
            0x3ff0_a2b2_3f3b_ab73,
            0x3ff0_a2b2_0000_0000,
            0x3ff0_0000_0000_0000,
            0x3fe6_a09e_667f_3bcd,
            0x3ff6_a09e_667f_3bcd,
            0x4086_2e42_fefa_39ef,
            0x4087_4910_d52d_3051,
            0x4086_232b_0000_0000,
        ];
        let mut v = Vec::new();
        // `sin` and `cos`: the reduction's range bounds (pi/4, 3pi/4, 5pi/4, 7pi/4, 9pi/4,
        // 2^20·pi/2, by their high words), their tiny bounds, and multiples of pi/2 (where
        // the reduction cancels).
        let trig = [
            0x3fe9_21fb_ffff_ffff,
            0x4002_d97c_ffff_ffff,
            0x400f_6a7a_ffff_ffff,
            0x4015_fdbc_ffff_ffff,
            0x401c_463b_ffff_ffff,
            0x4139_21fb_0000_0000,
            0x3e50_0000_0000_0000,
            0x3e46_a09e_0000_0000,
        ];
        let multiples = (1..300).map(|k| (k as f64 * std::f64::consts::FRAC_PI_2).to_bits());
        for c in centers
            .into_iter()
            .chain(trig)
            .chain(multiples)
            .chain([0x7fef_ffff_ffff_ffff])
        {
            for d in 0..=16u64 {
                let bits = (c + d).saturating_sub(8).min(0x7fef_ffff_ffff_ffff);
                v.extend([f64::from_bits(bits), -f64::from_bits(bits)]);
            }
        }
        v.extend([
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            -f64::NAN,
            f64::from_bits(0x7ff0_0000_0000_0001),
            f64::from_bits(0x7ff8_dead_beef_0001),
            708.396_418_532_264_1,
            -708.396_418_532_264_1,
            709.782_712_893_384,
            -745.133_219_101_941_1,
            -745.2,
            1.0,
        ]);
        v
    }

    /// Arguments: the special classes paired with each other and with random arguments;
    /// random bit patterns; random arguments of `exp`'s whole finite range, `[-746, 710]`;
    /// random positive arguments of every exponent.
    fn arguments() -> Vec<[f64; 2]> {
        let s = special();
        let mut v = Vec::new();
        for (i, &a) in s.iter().enumerate() {
            v.push([a, s[(i * 7 + 3) % s.len()]]);
            v.push([f64::from_bits(random(i as u64)), a]);
        }
        for i in 0..400_000u64 {
            let r = random(1_000_000 + i);
            let arg = match i % 4 {
                0 => f64::from_bits(r),
                1 => (r >> 11) as f64 / (1u64 << 53) as f64 * 1456.0 - 746.0,
                2 => f64::from_bits(r >> 1),
                _ => ((r >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 4.0,
            };
            let other = f64::from_bits(random(7_000_000 + i) >> (i % 3));
            v.push([arg, other]);
        }
        v
    }

    /// The two-lane function `v2` agrees with `scalar` bit for bit in both lanes.
    fn same(v2: extern "C" fn(__m128d) -> __m128d, scalar: extern "C" fn(f64) -> f64) {
        for a in arguments() {
            for pair in [a, [a[1], a[0]]] {
                let got = lanes(v2(register(pair)));
                for k in 0..2 {
                    let want = scalar(pair[k]);
                    assert!(
                        got[k].to_bits() == want.to_bits(),
                        "argument {:e} ({:#x}) in lane {k}: {:e}, not {:e}",
                        pair[k],
                        pair[k].to_bits(),
                        got[k],
                        want
                    );
                }
            }
        }
    }

    #[test]
    fn exp_lanes_are_the_scalar_function() {
        same(clift_v2_exp_f64, super::super::double::clift_exp_f64);
    }

    #[test]
    fn exp10_lanes_are_the_scalar_function() {
        same(clift_v2_exp10_f64, super::super::double::clift_exp10_f64);
        // Exact powers, the range's ends and a fraction.
        let t = lanes(clift_v2_exp10_f64(register([3.0, 0.5])));
        assert_eq!(t, [1000.0, super::super::double::clift_exp10_f64(0.5)]);
        let t = lanes(clift_v2_exp10_f64(register([309.0, -325.0])));
        assert_eq!(t, [f64::INFINITY, 0.0]);
    }

    #[test]
    fn log_lanes_are_the_scalar_function() {
        same(clift_v2_log_f64, super::super::double::clift_log_f64);
    }

    #[test]
    fn log2_and_log10_lanes_are_the_scalar_functions() {
        same(clift_v2_log2_f64, super::super::double::clift_log2_f64);
        same(clift_v2_log10_f64, super::super::double::clift_log10_f64);
    }

    #[test]
    fn sin_and_cos_lanes_are_the_scalar_functions() {
        same(clift_v2_sin_f64, super::super::double::clift_sin_f64);
        same(clift_v2_cos_f64, super::super::double::clift_cos_f64);
    }

    #[test]
    fn known_values_in_both_lanes() {
        let e = lanes(clift_v2_exp_f64(register([0.0, 1.0])));
        // libm's exp(1) is one ulp above e.
        assert_eq!(e, [1.0, 2.7182818284590455]);
        let e = lanes(clift_v2_exp_f64(register([f64::NEG_INFINITY, 710.0])));
        assert_eq!(e, [0.0, f64::INFINITY]);
        let e = lanes(clift_v2_exp_f64(register([-1.0, 1e-300])));
        assert_eq!(e, [0.36787944117144233, 1.0]);
        let l = lanes(clift_v2_log_f64(register([1.0, std::f64::consts::E])));
        assert_eq!(l.map(f64::to_bits), [0, 1.0f64.to_bits()]);
        let l = lanes(clift_v2_log_f64(register([0.0, -1.0])));
        assert_eq!(l[0], f64::NEG_INFINITY);
        assert!(l[1].is_nan());
        let l = lanes(clift_v2_log_f64(register([1024.0, f64::from_bits(1)])));
        assert_eq!(l, [6.931471805599453, -744.4400719213812]);
        let l = lanes(clift_v2_log2_f64(register([8.0, 1.0])));
        assert_eq!(l.map(f64::to_bits), [3.0f64.to_bits(), 0]);
        let l = lanes(clift_v2_log10_f64(register([1000.0, 0.0])));
        assert_eq!(l, [3.0, f64::NEG_INFINITY]);
        let pi = std::f64::consts::PI;
        let t = lanes(clift_v2_sin_f64(register([pi, -0.0])));
        assert_eq!(
            t.map(f64::to_bits),
            [1.2246467991473532e-16f64.to_bits(), (-0.0f64).to_bits()]
        );
        let t = lanes(clift_v2_cos_f64(register([pi, 1e300])));
        assert_eq!(t, [-1.0, libm::cos(1e300)]);
        let t = lanes(clift_v2_sin_f64(register([f64::INFINITY, 1e-30])));
        assert!(t[0].is_nan());
        assert_eq!(t[1], 1e-30);
    }
}
