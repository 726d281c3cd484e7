//! Region rows that only some local ids need: a region whose statements are one `if`
//! without `else`, testing the local id of dimension 0 against a value the region does not
//! change (`if (lid < s) scratch[lid] += scratch[lid + s];`, `if (lid == 0) ...`), does
//! nothing in the items the test excludes. Its vectorized row runs only the steps that
//! hold the ids the test may let in, and tells the scalar row (which runs the rest of the
//! row, from the count it returns) that nothing is left where no such id is past its
//! steps.
//!
//! A tree reduction's step `s` needs `s / 4` steps of the row instead of all of them: for a
//! group of 256, the loop's 8 regions run 65 steps in all instead of 512.
//!
//! Skipping an item is sound because the region's only statement does nothing for it: no
//! memory access, no variable written (its variables keep their frames' values), and the
//! test itself has no effect and cannot trap. The group's first region (it also stores the
//! parameters and done bytes of every item) is never bounded.

use std::collections::HashSet;

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, Value, types};

use super::super::func::{Result, constant_dimension};
use super::barrier_rows::{declaration_inits, trap_free, writes};
use super::lower::VecLower;
use crate::frontend::tir::visit::for_each_stmt_expr;
use crate::frontend::tir::{
    BinaryOp, BuiltinFunction, ConvertKind, Expr, ExprKind, LocalId, PlaceKind, Stmt, StmtKind,
};
use crate::frontend::types::Scalar;

/// The ids a test lets in, before clamping to the row: `lid < u`, `lid <= u`, `lid == u`.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Test {
    Below,
    AtMost,
    Equal,
}

/// The test `lid op u` (or `u op lid`) for `op`, with `lid` on the left.
fn test(op: BinaryOp, id_on_left: bool) -> Option<Test> {
    use BinaryOp::*;
    Some(match (op, id_on_left) {
        (Lt, true) | (Gt, false) => Test::Below,
        (Le, true) | (Ge, false) => Test::AtMost,
        (Eq, _) => Test::Equal,
        _ => return None,
    })
}

impl VecLower<'_, '_> {
    /// The local ids `[lo, hi)` (within `0..=size`) outside which the region `stmts` does
    /// nothing, where it is one `if` of that kind; computed before the row's loop.
    pub(super) fn active_ids(
        &mut self,
        stmts: &[Stmt],
        size: Value,
    ) -> Result<Option<(Value, Value)>> {
        let [stmt] = stmts else {
            return Ok(None);
        };
        let StmtKind::If {
            cond, else_branch, ..
        } = &stmt.kind
        else {
            return Ok(None);
        };
        let ExprKind::Binary { op, lhs, rhs } = &cond.kind else {
            return Ok(None);
        };
        if !else_branch.is_empty() {
            return Ok(None);
        }
        let mut written = Vec::new();
        for_each_stmt_expr(stmts, &mut |e| writes(e, &mut written));
        let written: HashSet<LocalId> = written.into_iter().collect();
        let (value, test) = if self.local_id(lhs, 0) && self.invariant(rhs, &written) {
            (rhs, test(*op, true))
        } else if self.local_id(rhs, 0) && self.invariant(lhs, &written) {
            (lhs, test(*op, false))
        } else {
            return Ok(None);
        };
        let (Some(test), Some(s)) = (test, value.ty.scalar()) else {
            return Ok(None);
        };
        if !s.is_integer() || s.bits() < 32 {
            return Ok(None);
        }
        let u = self.l.expr(value)?[0];
        // `u` as a local id: clamped to 0..=size (ids are below size, and not negative).
        let wide = match (s.bits(), s.is_signed()) {
            (64, _) => u,
            (_, true) => self.l.b.ins().sextend(types::I64, u),
            _ => self.l.b.ins().uextend(types::I64, u),
        };
        let c = if s.is_signed() {
            let zero = self.l.b.ins().iconst(types::I64, 0);
            self.l.b.ins().smax(wide, zero)
        } else {
            wide
        };
        let c = self.l.b.ins().umin(c, size);
        let next = self.l.b.ins().iadd_imm_s(c, 1);
        let next = self.l.b.ins().umin(next, size);
        let zero = self.l.b.ins().iconst(types::I64, 0);
        Ok(Some(match test {
            Test::Below => (zero, c),
            Test::AtMost => (zero, next),
            Test::Equal => (c, next),
        }))
    }

    /// Whether `e` is the local id of dimension `0`, or a variable declared with it and
    /// never written again, possibly converted to another integer type of 32 bits or
    /// more (ids are below 2^31: the conversion keeps them).
    fn local_id(&self, e: &Expr, depth: u32) -> bool {
        match &e.kind {
            ExprKind::Builtin { id, args } => {
                id.function() == BuiltinFunction::GetLocalId && constant_dimension(args) == Some(0)
            }
            ExprKind::Convert {
                kind:
                    ConvertKind::Numeric {
                        saturate: false, ..
                    },
                operand,
            } => {
                e.ty.scalar()
                    .is_some_and(|s| s.is_integer() && s.bits() >= 32 && s != Scalar::Bool)
                    && operand.ty.scalar().is_some_and(Scalar::is_integer)
                    && self.local_id(operand, depth)
            }
            ExprKind::Load(p) => match &p.kind {
                PlaceKind::Local(id) if depth < 4 && self.written_once.contains(id) => {
                    let body = self.f.body.as_deref().unwrap_or_default();
                    declaration_inits(body)
                        .get(id)
                        .is_some_and(|init| self.local_id(init, depth + 1))
                }
                _ => false,
            },
            _ => false,
        }
    }

    /// Whether `e` has one value for the whole region `written` belongs to, computable
    /// before its loop: variables uniform and not written there, constants, queries of
    /// constant dimensions, and arithmetic of them that cannot trap.
    fn invariant(&self, e: &Expr, written: &HashSet<LocalId>) -> bool {
        self.is_uniform(e)
            && trap_free(e, &|e| match &e.kind {
                ExprKind::Load(p) => Some(match &p.kind {
                    PlaceKind::Local(id) => self.uniform.contains(id) && !written.contains(id),
                    _ => false,
                }),
                _ => None,
            })
    }

    /// The row's steps for the ids `[lo, hi)` of [`Self::active_ids`]: the first step's
    /// local id, the end of the steps (at most `count`, the whole steps of the row) and what
    /// the row function returns (the whole row where no id of the range is left for the
    /// scalar row).
    pub(super) fn bounded_steps(
        &mut self,
        (lo, hi): (Value, Value),
        count: Value,
        size: Value,
    ) -> (Value, Value, Value) {
        let start = self.l.b.ins().band_imm_s(lo, -super::WIDTH);
        let up = self.l.b.ins().iadd_imm_s(hi, super::WIDTH - 1);
        let up = self.l.b.ins().band_imm_s(up, -super::WIDTH);
        let end = self.l.b.ins().umin(up, count);
        let covered = self
            .l
            .b
            .ins()
            .icmp(IntCC::UnsignedLessThanOrEqual, hi, count);
        let ret = self.l.b.ins().select(covered, size, count);
        (start, end, ret)
    }
}
