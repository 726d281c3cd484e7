//! Four `double` lanes in two SSE2 registers, for the four-lane `float` math forms
//! ([`super::kernels4`]): those work in `double` like the scalar kernels, so a `float` register
//! of four work-items becomes two `f64x2` halves.
//!
//! Only SSE2 is used, which every x86-64 processor has (the crate is built for the baseline
//! target), so the intrinsics are safe to call. Each operation is the IEEE operation the
//! scalar kernel does, lane by lane, in the default rounding mode; none is fused (no FMA), so
//! a lane's result is the scalar kernel's bit for bit.

use std::arch::x86_64::{
    __m128, __m128d, __m128i, _mm_add_epi64, _mm_add_pd, _mm_and_pd, _mm_and_si128, _mm_andnot_pd,
    _mm_andnot_si128, _mm_castpd_si128, _mm_castsi128_pd, _mm_cmple_pd, _mm_cvtepi32_pd,
    _mm_cvtpd_ps, _mm_cvtps_pd, _mm_cvtsi128_si32, _mm_cvtsi128_si64, _mm_max_pd, _mm_min_pd,
    _mm_movehl_ps, _mm_movelh_ps, _mm_mul_pd, _mm_or_pd, _mm_or_si128, _mm_set_epi64x, _mm_set_pd,
    _mm_set1_epi64x, _mm_set1_pd, _mm_setzero_si128, _mm_shuffle_epi32, _mm_slli_epi64,
    _mm_sub_epi64, _mm_sub_pd, _mm_unpackhi_epi64, _mm_xor_si128,
};
use std::ops::{Add, BitAnd, BitOr, BitXor, Mul, Sub};

use super::kernels::Real;

/// `$body`, which calls SSE/SSE2 intrinsics: their one precondition, the target feature, holds
/// on every x86-64 processor, but Rust only lets a function with `#[target_feature]` call
/// them safely, and such a function cannot be `#[inline(always)]`.
macro_rules! sse2 {
    ($($body:tt)*) => {
        // SAFETY: SSE and SSE2 are part of the x86-64 baseline; the intrinsics called here
        // take and return registers only (no pointers).
        unsafe { $($body)* }
    };
}
pub(super) use sse2;

/// Four `f64` lanes: lanes 0 and 1 in `lo`, 2 and 3 in `hi`.
#[derive(Clone, Copy)]
pub(super) struct F64x4 {
    lo: __m128d,
    hi: __m128d,
}

/// Four 64-bit integer lanes (bit patterns and masks of [`F64x4`] lanes).
#[derive(Clone, Copy)]
pub(super) struct U64x4 {
    lo: __m128i,
    hi: __m128i,
}

impl Real for F64x4 {
    #[inline(always)]
    fn splat(v: f64) -> F64x4 {
        sse2! {
            F64x4 {
                lo: _mm_set1_pd(v),
                hi: _mm_set1_pd(v),
            }
        }
    }
}

impl F64x4 {
    /// The four `float` lanes of `x`, widened (exactly).
    #[inline(always)]
    pub(super) fn from_f32(x: __m128) -> F64x4 {
        sse2! {
            F64x4 {
                lo: _mm_cvtps_pd(x),
                hi: _mm_cvtps_pd(_mm_movehl_ps(x, x)),
            }
        }
    }

    /// The four `i32` lanes of `k`, converted (exactly).
    #[inline(always)]
    pub(super) fn from_i32(k: __m128i) -> F64x4 {
        sse2! {
            F64x4 {
                lo: _mm_cvtepi32_pd(k),
                hi: _mm_cvtepi32_pd(_mm_shuffle_epi32::<0b11_10>(k)),
            }
        }
    }

    /// Lanes from an array, lane 0 first.
    #[inline(always)]
    pub(super) fn from_array(a: [f64; 4]) -> F64x4 {
        sse2! {
            F64x4 {
                lo: _mm_set_pd(a[1], a[0]),
                hi: _mm_set_pd(a[3], a[2]),
            }
        }
    }

    /// The lanes as an array, lane 0 first.
    #[inline(always)]
    pub(super) fn to_array(self) -> [f64; 4] {
        let b = self.to_bits().to_array();
        b.map(f64::from_bits)
    }

    /// Each lane rounded to `float` (as `as f32` does: to nearest, overflow to infinity).
    #[inline(always)]
    pub(super) fn to_f32(self) -> __m128 {
        sse2! {
            _mm_movelh_ps(_mm_cvtpd_ps(self.lo), _mm_cvtpd_ps(self.hi))
        }
    }

    #[inline(always)]
    pub(super) fn to_bits(self) -> U64x4 {
        sse2! {
            U64x4 {
                lo: _mm_castpd_si128(self.lo),
                hi: _mm_castpd_si128(self.hi),
            }
        }
    }

    #[inline(always)]
    pub(super) fn from_bits(b: U64x4) -> F64x4 {
        sse2! {
            F64x4 {
                lo: _mm_castsi128_pd(b.lo),
                hi: _mm_castsi128_pd(b.hi),
            }
        }
    }

    /// `|self|`: the sign bit cleared.
    #[inline(always)]
    pub(super) fn abs(self) -> F64x4 {
        sse2! {
            let sign = _mm_set1_pd(-0.0);
            F64x4 {
                lo: _mm_andnot_pd(sign, self.lo),
                hi: _mm_andnot_pd(sign, self.hi),
            }
        }
    }

    /// Each lane clamped to `[lo, hi]`, NaN lanes left NaN (as `f64::clamp`: `maxpd` and
    /// `minpd` return their second operand when either is NaN, so the lane goes second).
    #[inline(always)]
    pub(super) fn clamp(self, lo: f64, hi: f64) -> F64x4 {
        sse2! {
            let (lo, hi) = (_mm_set1_pd(lo), _mm_set1_pd(hi));
            F64x4 {
                lo: _mm_min_pd(hi, _mm_max_pd(lo, self.lo)),
                hi: _mm_min_pd(hi, _mm_max_pd(lo, self.hi)),
            }
        }
    }

    /// All ones in the lanes that are `<= v`, zero elsewhere (and for NaN).
    #[inline(always)]
    pub(super) fn le_mask(self, v: f64) -> U64x4 {
        sse2! {
            let v = _mm_set1_pd(v);
            F64x4 {
                lo: _mm_cmple_pd(self.lo, v),
                hi: _mm_cmple_pd(self.hi, v),
            }
            .to_bits()
        }
    }

    /// `a` in the lanes where `mask` is all ones, `b` where it is zero.
    #[inline(always)]
    pub(super) fn select(mask: U64x4, a: F64x4, b: F64x4) -> F64x4 {
        sse2! {
            let m = F64x4::from_bits(mask);
            F64x4 {
                lo: _mm_or_pd(_mm_and_pd(m.lo, a.lo), _mm_andnot_pd(m.lo, b.lo)),
                hi: _mm_or_pd(_mm_and_pd(m.hi, a.hi), _mm_andnot_pd(m.hi, b.hi)),
            }
        }
    }
}

macro_rules! lanewise {
    ($ty:ident, $trait:ident, $method:ident, $op:ident) => {
        impl $trait for $ty {
            type Output = $ty;
            #[inline(always)]
            fn $method(self, o: $ty) -> $ty {
                sse2! {
                    $ty {
                        lo: $op(self.lo, o.lo),
                        hi: $op(self.hi, o.hi),
                    }
                }
            }
        }
    };
}

lanewise!(F64x4, Add, add, _mm_add_pd);
lanewise!(F64x4, Sub, sub, _mm_sub_pd);
lanewise!(F64x4, Mul, mul, _mm_mul_pd);
lanewise!(U64x4, Add, add, _mm_add_epi64);
lanewise!(U64x4, Sub, sub, _mm_sub_epi64);
lanewise!(U64x4, BitAnd, bitand, _mm_and_si128);
lanewise!(U64x4, BitOr, bitor, _mm_or_si128);
lanewise!(U64x4, BitXor, bitxor, _mm_xor_si128);

impl U64x4 {
    /// `v` in every lane.
    #[inline(always)]
    pub(super) fn splat(v: u64) -> U64x4 {
        sse2! {
            U64x4 {
                lo: _mm_set1_epi64x(v as i64),
                hi: _mm_set1_epi64x(v as i64),
            }
        }
    }

    /// Zero in every lane.
    #[inline(always)]
    pub(super) fn zero() -> U64x4 {
        sse2! {
            U64x4 {
                lo: _mm_setzero_si128(),
                hi: _mm_setzero_si128(),
            }
        }
    }

    /// Lanes from an array, lane 0 first.
    #[inline(always)]
    pub(super) fn from_array(a: [u64; 4]) -> U64x4 {
        sse2! {
            U64x4 {
                lo: _mm_set_epi64x(a[1] as i64, a[0] as i64),
                hi: _mm_set_epi64x(a[3] as i64, a[2] as i64),
            }
        }
    }

    /// The lanes as an array, lane 0 first.
    #[inline(always)]
    pub(super) fn to_array(self) -> [u64; 4] {
        sse2! {
            let low = |v: __m128i| _mm_cvtsi128_si64(v) as u64;
            [
                low(self.lo),
                low(_mm_unpackhi_epi64(self.lo, self.lo)),
                low(self.hi),
                low(_mm_unpackhi_epi64(self.hi, self.hi)),
            ]
        }
    }

    /// Each lane shifted left by `N` bits (zeros in).
    #[inline(always)]
    pub(super) fn shl<const N: i32>(self) -> U64x4 {
        sse2! {
            U64x4 {
                lo: _mm_slli_epi64::<N>(self.lo),
                hi: _mm_slli_epi64::<N>(self.hi),
            }
        }
    }

    /// `self & !mask`.
    #[inline(always)]
    pub(super) fn and_not(self, mask: U64x4) -> U64x4 {
        sse2! {
            U64x4 {
                lo: _mm_andnot_si128(mask.lo, self.lo),
                hi: _mm_andnot_si128(mask.hi, self.hi),
            }
        }
    }
}

/// The four `u32` lanes of `v`, lane 0 first.
#[inline(always)]
pub(super) fn u32_lanes(v: __m128i) -> [u32; 4] {
    sse2! {
        [
            _mm_cvtsi128_si32(v) as u32,
            _mm_cvtsi128_si32(_mm_shuffle_epi32::<0b01>(v)) as u32,
            _mm_cvtsi128_si32(_mm_shuffle_epi32::<0b10>(v)) as u32,
            _mm_cvtsi128_si32(_mm_shuffle_epi32::<0b11>(v)) as u32,
        ]
    }
}
