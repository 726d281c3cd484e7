//! The geometric functions of section 6.12.5 (`dot`, `cross`, `length`, `distance`,
//! `normalize` and the `fast_` forms), inline.
//!
//! `length`, `distance` and `normalize` must not overflow or underflow where the result is
//! representable: the ulp bounds of section 7.4 are on the mathematical result, so
//! `length((float2)(0x1p64f, 0))` is 0x1p64, not the infinity of a float sum of squares,
//! and the length of a vector of float denormals is not 0. The CTS references compute this
//! way, and so do we:
//!
//! - `float` (and `half`, held as float) in `double`, where no square of a float overflows
//!   or underflows: one rounding at the end. `normalize` of a vector with infinities is the
//!   normalized vector of its infinities' signs (±1 there, ±0 elsewhere).
//! - `double` by rescaling with exact powers of two when the plain sum of squares overflowed
//!   (×2^-600) or may have lost bits to denormals (below 4·DBL_MIN/DBL_EPSILON: ×2^700).
//!
//! `fast_length`, `fast_distance` and `fast_normalize` may overflow (their bound is that of
//! `half_sqrt` of the plain sum): they stay the plain formulas.

use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{self, InstBuilder, Value, types};

use super::func::{Lanes, Lower, Result};
use crate::frontend::tir::BuiltinFunction as F;

/// The plain sum of squares is below this (4·DBL_MIN/DBL_EPSILON): rescale by 2^700.
const DOUBLE_TINY: f64 = 4.0 * f64::MIN_POSITIVE / f64::EPSILON;

impl Lower<'_, '_> {
    /// `function` of the lanes in `values` (each argument's lanes), `ft` the lane type (F32
    /// for float and half, F64 for double).
    pub(super) fn geometric(
        &mut self,
        function: F,
        values: &[Lanes],
        ft: ir::Type,
    ) -> Result<Lanes> {
        let a = values[0].clone();
        Ok(match function {
            F::Dot => vec![self.dot(&a, &values[1])],
            F::FastLength => {
                let d = self.dot(&a, &a);
                vec![self.b.ins().sqrt(d)]
            }
            F::FastDistance => {
                let diff = self.sub_lanes(&a, &values[1]);
                let d = self.dot(&diff, &diff);
                vec![self.b.ins().sqrt(d)]
            }
            F::FastNormalize => {
                let d = self.dot(&a, &a);
                let len = self.b.ins().sqrt(d);
                let zero = self.fconst(ft, 0.0);
                let is_zero = self.b.ins().fcmp(FloatCC::Equal, len, zero);
                a.iter()
                    .map(|&x| {
                        let q = self.b.ins().fdiv(x, len);
                        // normalize of a zero vector returns it unchanged.
                        self.b.ins().select(is_zero, x, q)
                    })
                    .collect()
            }
            F::Length if ft == types::F64 => vec![self.length_f64(&a)],
            F::Length => {
                let wide = self.widen(&a);
                let d = self.dot(&wide, &wide);
                let len = self.b.ins().sqrt(d);
                vec![self.b.ins().fdemote(types::F32, len)]
            }
            F::Distance if ft == types::F64 => {
                let diff = self.sub_lanes(&a, &values[1]);
                vec![self.length_f64(&diff)]
            }
            F::Distance => {
                // The difference too in double, where it is exact.
                let (x, y) = (self.widen(&a), self.widen(&values[1]));
                let diff = self.sub_lanes(&x, &y);
                let d = self.dot(&diff, &diff);
                let len = self.b.ins().sqrt(d);
                vec![self.b.ins().fdemote(types::F32, len)]
            }
            F::Normalize if ft == types::F64 => self.normalize_f64(&a),
            F::Normalize => self.normalize_f32(&a),
            _ => {
                // cross(a, b) = (a.y b.z - a.z b.y, a.z b.x - a.x b.z, a.x b.y - a.y b.x[, 0])
                let b = &values[1];
                let m = |this: &mut Self, i: usize, j: usize| {
                    let p = this.b.ins().fmul(a[i], b[j]);
                    let q = this.b.ins().fmul(a[j], b[i]);
                    this.b.ins().fsub(p, q)
                };
                let mut out = vec![m(self, 1, 2), m(self, 2, 0), m(self, 0, 1)];
                if a.len() == 4 {
                    out.push(self.fconst(ft, 0.0));
                }
                out
            }
        })
    }

    fn dot(&mut self, a: &[Value], b: &[Value]) -> Value {
        let mut acc = self.b.ins().fmul(a[0], b[0]);
        for i in 1..a.len() {
            let p = self.b.ins().fmul(a[i], b[i]);
            acc = self.b.ins().fadd(acc, p);
        }
        acc
    }

    fn sub_lanes(&mut self, a: &[Value], b: &[Value]) -> Lanes {
        a.iter()
            .zip(b)
            .map(|(&x, &y)| self.b.ins().fsub(x, y))
            .collect()
    }

    fn scale_lanes(&mut self, a: &[Value], k: f64) -> Lanes {
        let k = self.b.ins().f64const(k);
        a.iter().map(|&x| self.b.ins().fmul(x, k)).collect()
    }

    fn widen(&mut self, a: &[Value]) -> Lanes {
        a.iter()
            .map(|&x| self.b.ins().fpromote(types::F64, x))
            .collect()
    }

    fn fconst(&mut self, ft: ir::Type, v: f64) -> Value {
        if ft == types::F64 {
            self.b.ins().f64const(v)
        } else {
            self.b.ins().f32const(v as f32)
        }
    }

    /// The lanes with each infinity made ±1 and everything else ±0 (same signs), and the
    /// sum of their squares (the number of infinities).
    fn infinity_signs(&mut self, a: &[Value], ft: ir::Type) -> (Lanes, Value) {
        let inf = self.fconst(ft, f64::INFINITY);
        let (zero, one) = (self.fconst(ft, 0.0), self.fconst(ft, 1.0));
        let lanes: Lanes = a
            .iter()
            .map(|&x| {
                let abs = self.b.ins().fabs(x);
                let is_inf = self.b.ins().fcmp(FloatCC::Equal, abs, inf);
                let m = self.b.ins().select(is_inf, one, zero);
                self.b.ins().fcopysign(m, x)
            })
            .collect();
        let count = self.dot(&lanes, &lanes);
        (lanes, count)
    }

    /// `length` of doubles, rescaled where the plain sum overflows or underflows.
    fn length_f64(&mut self, a: &[Value]) -> Value {
        let total = self.dot(a, a);
        let plain = self.b.ins().sqrt(total);
        let big = self.scale_lanes(a, 2f64.powi(-600));
        let big_total = self.dot(&big, &big);
        let big_root = self.b.ins().sqrt(big_total);
        let up = self.b.ins().f64const(2f64.powi(600));
        let big_len = self.b.ins().fmul(big_root, up);
        let small = self.scale_lanes(a, 2f64.powi(700));
        let small_total = self.dot(&small, &small);
        let small_root = self.b.ins().sqrt(small_total);
        let down = self.b.ins().f64const(2f64.powi(-700));
        let small_len = self.b.ins().fmul(small_root, down);
        let inf = self.b.ins().f64const(f64::INFINITY);
        let tiny = self.b.ins().f64const(DOUBLE_TINY);
        let overflowed = self.b.ins().fcmp(FloatCC::Equal, total, inf);
        let underflowed = self.b.ins().fcmp(FloatCC::LessThan, total, tiny);
        let len = self.b.ins().select(underflowed, small_len, plain);
        self.b.ins().select(overflowed, big_len, len)
    }

    /// `normalize` of floats (or halves held as floats), in double.
    fn normalize_f32(&mut self, a: &[Value]) -> Lanes {
        let wide = self.widen(a);
        let total = self.dot(&wide, &wide);
        // Squares of floats are finite in double: an infinite sum means infinite lanes.
        let (signs, count) = self.infinity_signs(&wide, types::F64);
        let inf = self.b.ins().f64const(f64::INFINITY);
        let zero = self.b.ins().f64const(0.0);
        let infinite = self.b.ins().fcmp(FloatCC::Equal, total, inf);
        let is_zero = self.b.ins().fcmp(FloatCC::Equal, total, zero);
        let total = self.b.ins().select(infinite, count, total);
        let len = self.b.ins().sqrt(total);
        (0..a.len())
            .map(|i| {
                let x = self.b.ins().select(infinite, signs[i], wide[i]);
                let q = self.b.ins().fdiv(x, len);
                let q = self.b.ins().fdemote(types::F32, q);
                // normalize of a zero vector returns it unchanged.
                self.b.ins().select(is_zero, a[i], q)
            })
            .collect()
    }

    /// `normalize` of doubles, rescaled where the plain sum overflows or underflows.
    fn normalize_f64(&mut self, a: &[Value]) -> Lanes {
        let total = self.dot(a, a);
        let small = self.scale_lanes(a, 2f64.powi(700));
        let small_total = self.dot(&small, &small);
        // Any power of two at most 2^-512/4 keeps four squares finite; normalize is
        // invariant under the scaling.
        let big = self.scale_lanes(a, 2f64.powi(-514));
        let big_total = self.dot(&big, &big);
        let (signs, count) = self.infinity_signs(&big, types::F64);
        let inf = self.b.ins().f64const(f64::INFINITY);
        let zero = self.b.ins().f64const(0.0);
        let tiny = self.b.ins().f64const(DOUBLE_TINY * a.len() as f64 / 4.0);
        let big_infinite = self.b.ins().fcmp(FloatCC::Equal, big_total, inf);
        let overflowed = self.b.ins().fcmp(FloatCC::Equal, total, inf);
        let underflowed = self.b.ins().fcmp(FloatCC::LessThan, total, tiny);
        let still_zero = self.b.ins().fcmp(FloatCC::Equal, small_total, zero);
        let is_zero = self.b.ins().band(underflowed, still_zero);
        let big_total = self.b.ins().select(big_infinite, count, big_total);
        let t = self.b.ins().select(overflowed, big_total, total);
        let t = self.b.ins().select(underflowed, small_total, t);
        let len = self.b.ins().sqrt(t);
        (0..a.len())
            .map(|i| {
                let b = self.b.ins().select(big_infinite, signs[i], big[i]);
                let x = self.b.ins().select(overflowed, b, a[i]);
                let x = self.b.ins().select(underflowed, small[i], x);
                let q = self.b.ins().fdiv(x, len);
                // normalize of a zero vector returns it unchanged.
                self.b.ins().select(is_zero, a[i], q)
            })
            .collect()
    }
}
