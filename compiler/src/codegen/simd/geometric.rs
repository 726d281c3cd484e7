//! `length`, `distance` and `normalize` of `float` and its vectors for a step's
//! work-items, in registers.
//!
//! The scalar lowering (`codegen/geometric.rs`) computes them in `double`, where no square
//! of a float overflows or underflows, and rounds once at the end. Here each component's
//! four lanes are widened to two `f64x2` registers (lanes 0–1 and 2–3) and the same
//! operations run on them in the same order (the products and sums of the dot product, the
//! square root, the division, the selects of the special cases), so every lane is
//! bit-identical to the scalar path's result.

use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{self, InstBuilder, Value, types};

use super::lower::VecLower;
use super::value::lane_order;
use crate::frontend::tir::BuiltinFunction as F;

/// Two `f64x2` registers: the lanes 0–1 and 2–3 of a step's `f32x4`.
pub(super) type Halves = [Value; 2];

impl VecLower<'_, '_> {
    /// `f` (`Length`, `Distance` or `Normalize`) of float arguments given as components
    /// (each an `f32x4`, one per vector component; `args[1]` only for `distance`): the
    /// result's components.
    pub(super) fn geometric_f32(&mut self, f: F, args: &[Vec<Value>]) -> Vec<Value> {
        let a: Vec<Halves> = args[0].iter().map(|&x| self.widen(x)).collect();
        match f {
            F::Normalize => self.normalize(&args[0], &a),
            _ => {
                let a = if f == F::Distance {
                    // The difference too in double, where it is exact.
                    let b: Vec<Halves> = args[1].iter().map(|&x| self.widen(x)).collect();
                    a.iter()
                        .zip(&b)
                        .map(|(x, y)| self.map2(*x, *y, |s, p, q| s.l.b.ins().fsub(p, q)))
                        .collect()
                } else {
                    a
                };
                let total = self.dot2(&a, &a);
                let len = total.map(|t| self.l.b.ins().sqrt(t));
                vec![self.narrow(len)]
            }
        }
    }

    /// `normalize` of components `x` (widened: `wide`), as the scalar lowering's
    /// `normalize_f32`: a vector with infinities becomes the normalized vector of their
    /// signs, a zero vector is returned unchanged.
    fn normalize(&mut self, x: &[Value], wide: &[Halves]) -> Vec<Value> {
        let total = self.dot2(wide, wide);
        let inf = self.f64_splat(f64::INFINITY);
        let (zero, one) = (self.f64_splat(0.0), self.f64_splat(1.0));
        let sign_bit = self.f64_splat(-0.0);
        // Each infinity made ±1, everything else ±0 (the signs kept).
        let signs: Vec<Halves> = wide
            .iter()
            .map(|h| {
                h.map(|v| {
                    let abs = self.l.b.ins().fabs(v);
                    let is_inf = self.l.b.ins().fcmp(FloatCC::Equal, abs, inf);
                    let m = self.select_v(is_inf, one, zero);
                    // The sign bit of `v`, the rest of `m` (whose sign bit is clear).
                    self.l.b.ins().bitselect(sign_bit, v, m)
                })
            })
            .collect();
        let count = self.dot2(&signs, &signs);
        let infinite = total.map(|t| self.l.b.ins().fcmp(FloatCC::Equal, t, inf));
        let is_zero = total.map(|t| self.l.b.ins().fcmp(FloatCC::Equal, t, zero));
        let len = [0, 1].map(|h| {
            let t = self.select_v(infinite[h], count[h], total[h]);
            self.l.b.ins().sqrt(t)
        });
        // Whether the sum is zero, per f32 lane (the two halves' 64-bit masks narrowed).
        let zero_lanes = self.narrow_mask(is_zero);
        x.iter()
            .zip(wide.iter().zip(&signs))
            .map(|(&xi, (w, s))| {
                let q = [0, 1].map(|h| {
                    let v = self.select_v(infinite[h], s[h], w[h]);
                    self.l.b.ins().fdiv(v, len[h])
                });
                let q = self.narrow(q);
                self.select_v(zero_lanes, xi, q)
            })
            .collect()
    }

    /// The sum of the products of `a` and `b`, component by component, in the scalar
    /// lowering's order (`a0*b0 + a1*b1 + ...`, left to right).
    fn dot2(&mut self, a: &[Halves], b: &[Halves]) -> Halves {
        let mut acc = self.map2(a[0], b[0], |s, x, y| s.l.b.ins().fmul(x, y));
        for (x, y) in a.iter().zip(b).skip(1) {
            let p = self.map2(*x, *y, |s, x, y| s.l.b.ins().fmul(x, y));
            acc = self.map2(acc, p, |s, x, y| s.l.b.ins().fadd(x, y));
        }
        acc
    }

    fn map2(
        &mut self,
        a: Halves,
        b: Halves,
        mut f: impl FnMut(&mut Self, Value, Value) -> Value,
    ) -> Halves {
        [f(self, a[0], b[0]), f(self, a[1], b[1])]
    }

    fn f64_splat(&mut self, v: f64) -> Value {
        let c = self.l.b.ins().f64const(v);
        self.l.b.ins().splat(types::F64X2, c)
    }

    /// An `f32x4`'s lanes widened to `double`: lanes 0–1 and 2–3.
    pub(super) fn widen(&mut self, x: Value) -> Halves {
        let xb = self.l.b.ins().bitcast(types::I8X16, lane_order(), x);
        // Lanes 2 and 3 moved down to 0 and 1.
        let high = self.shuffle_mask([8, 9, 10, 11, 12, 13, 14, 15, 8, 9, 10, 11, 12, 13, 14, 15]);
        let hb = self.l.b.ins().shuffle(xb, xb, high);
        let hx = self.l.b.ins().bitcast(types::F32X4, lane_order(), hb);
        [
            self.l.b.ins().fvpromote_low(x),
            self.l.b.ins().fvpromote_low(hx),
        ]
    }

    /// Two `f64x2` registers rounded to `float` and joined into one `f32x4`.
    pub(super) fn narrow(&mut self, h: Halves) -> Value {
        let [lo, hi] = h.map(|v| {
            let n = self.l.b.ins().fvdemote(v);
            self.l.b.ins().bitcast(types::I8X16, lane_order(), n)
        });
        self.join_low_halves(lo, hi, types::F32X4)
    }

    /// Two 64-bit-lane masks as one 32-bit-lane mask (`i32x4`).
    fn narrow_mask(&mut self, m: Halves) -> Value {
        let [lo, hi] = m.map(|v| self.l.b.ins().bitcast(types::I8X16, lane_order(), v));
        // The low 32 bits of each 64-bit lane (all ones or all zeros).
        let order = self.shuffle_mask([0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27]);
        let r = self.l.b.ins().shuffle(lo, hi, order);
        self.l.b.ins().bitcast(types::I32X4, lane_order(), r)
    }

    /// The low 8 bytes of `lo` and of `hi` (both `i8x16`) as one register of type `ty`.
    fn join_low_halves(&mut self, lo: Value, hi: Value, ty: ir::Type) -> Value {
        let join = self.shuffle_mask([0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23]);
        let r = self.l.b.ins().shuffle(lo, hi, join);
        self.l.b.ins().bitcast(ty, lane_order(), r)
    }

    /// A byte-shuffle immediate.
    fn shuffle_mask(&mut self, order: [u8; 16]) -> ir::Immediate {
        self.l
            .b
            .func
            .dfg
            .immediates
            .push(ir::ConstantData::from(order.to_vec()))
    }
}
