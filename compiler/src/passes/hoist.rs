//! Calls of synchronizing functions taken out of expressions, so that they can be inlined.
//!
//! The inliner (`inline.rs`) replaces a call of a function that synchronizes the group by
//! the function's body, which is statements: the call must be a statement of its own
//! (`f(...);`, `x = f(...);`, `T x = f(...);`). Here a call inside a larger expression, in
//! a position that is always evaluated, moves before the statement into a new variable:
//! `out[i] = 2 * f(x) + 1;` becomes `{ T t = f(x); out[i] = 2 * t + 1; }`. The order is
//! C's: the operands of an operator are unsequenced, so the call may go first.
//!
//! Calls evaluated only sometimes become control flow: `c && f(x)` becomes
//! `int t = c && 1; if (t) t = f(x) && 1;`, `c ? f(x) : y` an `if` that sets a variable, and
//! `(a, f(x))` the statement `a;` before `f(x)`. A `while`/`for` condition with such a call
//! is tested inside the loop instead (`for (;;) { if (!cond) break; ... }`). A `for` step or
//! a `do`-`while` condition with one runs after the body, which is wrapped in a
//! `do { ... } while (0)` so that `continue` still reaches them: the body's own `break`s
//! set a flag the loop then breaks on. A void `?:` statement becomes an `if`.

use std::collections::HashSet;

use crate::frontend::source::Span;
use crate::frontend::tir::build::{
    assign, declare, expr_stmt, load_local, new_local, truth_of, unit,
};
use crate::frontend::tir::lift::{Lift, lift_block};
use crate::frontend::tir::visit::{for_each_child_mut, for_each_place_expr_mut, for_each_subexpr};
use crate::frontend::tir::{self, Block, Expr, ExprKind, FuncId, LocalId, Place, Stmt, StmtKind};
use crate::frontend::types::Type;

pub(crate) struct Hoister<'a> {
    pub syncs: &'a HashSet<FuncId>,
    /// The kernel whose body is rewritten: the new variables are its.
    pub kernel: &'a mut tir::Function,
}

impl Lift for Hoister<'_> {
    fn holds(&self, e: &Expr) -> bool {
        self.calls_sync(e)
    }

    /// A new private variable of the kernel, of type `ty`, for a value computed at `span`.
    fn new_local(&mut self, ty: &Type, span: Span) -> LocalId {
        new_local(&mut self.kernel.locals, "<call result>", ty, span)
    }

    fn expr(&mut self, e: &mut Expr, before: &mut Vec<Stmt>) {
        Hoister::expr(self, e, before);
    }

    /// A statement's whole expression: a call that is the statement, or the value of an
    /// assignment statement, is inlined as it is.
    fn whole(&mut self, e: &mut Expr, before: &mut Vec<Stmt>) {
        if self.is_sync_call(e) {
            return;
        }
        if let ExprKind::Assign {
            place,
            op: None,
            value,
            ..
        } = &mut e.kind
            && self.is_sync_call(value)
        {
            return self.place(place, before);
        }
        self.expr(e, before)
    }

    fn reshape(&mut self, s: &mut Stmt) -> bool {
        match &mut s.kind {
            // A value cast to void as a statement: the value, discarded all the same.
            StmtKind::Expr(Expr {
                kind: ExprKind::Convert { operand, .. },
                ty: Type::Void,
                ..
            }) if self.calls_sync(operand) => {
                s.kind = StmtKind::Expr((**operand).clone());
                true
            }
            // A void `?:` statement with calls to take out is an `if`.
            StmtKind::Expr(Expr {
                kind:
                    ExprKind::Conditional {
                        cond,
                        then_expr,
                        else_expr,
                    },
                ..
            }) if self.calls_sync(then_expr) || self.calls_sync(else_expr) => {
                let span = s.span;
                let branch = |e: &Expr| {
                    vec![Stmt {
                        span,
                        kind: StmtKind::Expr(e.clone()),
                    }]
                };
                s.kind = StmtKind::If {
                    cond: (**cond).clone(),
                    then_branch: branch(then_expr),
                    else_branch: branch(else_expr),
                };
                true
            }
            _ => false,
        }
    }
}

impl Hoister<'_> {
    pub fn block(&mut self, block: &mut Block) {
        lift_block(self, block);
    }

    fn is_sync_call(&self, e: &Expr) -> bool {
        matches!(&e.kind, ExprKind::Call { func, .. } if self.syncs.contains(func))
    }

    fn calls_sync(&self, e: &Expr) -> bool {
        let mut found = false;
        for_each_subexpr(e, &mut |c| found |= self.is_sync_call(c));
        found
    }

    /// Moves the synchronizing calls of `e` that are always evaluated into `before`.
    fn expr(&mut self, e: &mut Expr, before: &mut Vec<Stmt>) {
        if self.is_sync_call(e) && e.ty != Type::Void {
            let local = Lift::new_local(self, &e.ty, e.span);
            let call = std::mem::replace(e, load_local(local, &e.ty, e.span));
            before.push(declare(local, call));
            return;
        }
        match &mut e.kind {
            // Evaluated only sometimes, or after something sequenced before it: control
            // flow, when there is a call to take out.
            ExprKind::Logical { and, lhs, rhs } if self.calls_sync(rhs) => {
                let and = *and;
                let (ty, span) = (e.ty.clone(), e.span);
                // `lhs` is always evaluated: its calls go first.
                self.expr(lhs, before);
                let (lhs, rhs) = (std::mem::replace(&mut **lhs, unit(span)), (**rhs).clone());
                let local = Lift::new_local(self, &ty, span);
                let first = truth_of(lhs, &ty);
                before.push(declare(local, first));
                let second = vec![assign(local, &ty, truth_of(rhs, &ty))];
                let (then_branch, else_branch) = if and {
                    (second, Vec::new())
                } else {
                    (Vec::new(), second)
                };
                before.push(Stmt {
                    kind: StmtKind::If {
                        cond: load_local(local, &ty, span),
                        then_branch,
                        else_branch,
                    },
                    span,
                });
                *e = load_local(local, &ty, span);
            }
            ExprKind::Conditional {
                cond,
                then_expr,
                else_expr,
            } if e.ty != Type::Void
                && (self.calls_sync(then_expr) || self.calls_sync(else_expr)) =>
            {
                self.expr(cond, before);
                let (ty, span) = (e.ty.clone(), e.span);
                let local = Lift::new_local(self, &ty, span);
                before.push(Stmt {
                    kind: StmtKind::Decl { local, init: None },
                    span,
                });
                before.push(Stmt {
                    kind: StmtKind::If {
                        cond: (**cond).clone(),
                        then_branch: vec![assign(local, &ty, (**then_expr).clone())],
                        else_branch: vec![assign(local, &ty, (**else_expr).clone())],
                    },
                    span,
                });
                *e = load_local(local, &ty, span);
            }
            ExprKind::Comma { lhs, rhs } if self.calls_sync(lhs) || self.calls_sync(rhs) => {
                // `lhs` becomes a statement of its own (hoisted again as one).
                before.push(expr_stmt((**lhs).clone()));
                let rhs = (**rhs).clone();
                *e = rhs;
                self.expr(e, before);
            }
            ExprKind::Logical { lhs, .. } | ExprKind::Comma { lhs, .. } => self.expr(lhs, before),
            ExprKind::Conditional { cond, .. } => self.expr(cond, before),
            _ => for_each_child_mut(e, &mut |c| self.expr(c, before)),
        }
    }

    fn place(&mut self, p: &mut Place, before: &mut Vec<Stmt>) {
        for_each_place_expr_mut(p, &mut |e| self.expr(e, before));
    }
}
