//! Comparisons of a 64-bit sequence of ids with a uniform value (`lid < s` with `size_t`
//! operands, the test of every reduction step) as one `i32x4` compare.
//!
//! `size_t` values are `long`s, which x64 Cranelift holds two per register: compared lane
//! by lane they cost four scalar compares and four lane inserts per step. When the left
//! side is `base + k` (k = 0..3, no wrap-around: an exact sequence of stride 1) and the
//! right side `u` is uniform, `base + k op u` is `k op (u - base)`: and since only k = 0..3
//! matter, `u - base` may be clamped to `-1..=4` (every relation of k with it is kept),
//! which fits an `i32`. So: a few scalar instructions once, a splat and one vector compare.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, Value, types};

use super::expr::comparison;
use super::lower::VecLower;
use super::value::VVal;
use crate::frontend::tir::BinaryOp;
use crate::frontend::types::Type;

/// `op` with its operands swapped (`a < b` is `b > a`).
fn swapped(op: BinaryOp) -> BinaryOp {
    use BinaryOp::*;
    match op {
        Lt => Gt,
        Gt => Lt,
        Le => Ge,
        Ge => Le,
        other => other,
    }
}

impl VecLower<'_, '_> {
    /// The lane mask (`i32x4`, −1 where true) of `a op b` for 64-bit integer operands of
    /// type `ty`, where one side is an exact sequence of stride 1 and the other is
    /// uniform; `None` for every other comparison.
    pub(super) fn seq_compare(
        &mut self,
        op: BinaryOp,
        a: &VVal,
        b: &VVal,
        ty: &Type,
    ) -> Option<Value> {
        let s = match ty {
            Type::Scalar(s) | Type::Enum(_, s) if s.is_integer() && s.bits() == 64 => s,
            _ => return None,
        };
        comparison(op, true)?;
        let (base, u, op) = match (a, b) {
            (seq @ VVal::Seq { .. }, VVal::U(u)) => (seq, u[0], op),
            (VVal::U(u), seq @ VVal::Seq { .. }) => (seq, u[0], swapped(op)),
            _ => return None,
        };
        let &VVal::Seq {
            base,
            stride: 1,
            exact,
            id,
        } = base
        else {
            return None;
        };
        let dfg = &self.l.b.func.dfg;
        if !(exact || id) || dfg.value_type(base) != types::I64 || dfg.value_type(u) != types::I64 {
            return None;
        }
        let below = if s.is_signed() {
            IntCC::SignedLessThan
        } else {
            IntCC::UnsignedLessThan
        };
        // u < base: every lane is above u (as u - base = -1 says); else u - base, exact as
        // an unsigned number, clamped to 4.
        let is_below = self.l.b.ins().icmp(below, u, base);
        let diff = self.l.b.ins().isub(u, base);
        let four = self.l.b.ins().iconst(types::I64, 4);
        let clamped = self.l.b.ins().umin(diff, four);
        let minus_one = self.l.b.ins().iconst(types::I64, -1);
        let d = self.l.b.ins().select(is_below, minus_one, clamped);
        let d = self.l.b.ins().ireduce(types::I32, d);
        let d = self.l.b.ins().splat(types::I32X4, d);
        let k = self.iota(1);
        let (cc, _) = comparison(op, true)?;
        Some(self.l.b.ins().icmp(cc, k, d))
    }
}
