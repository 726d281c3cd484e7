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
//!
//! Input: a kernel's block and the synchronizing functions. Output: the block where every
//! call of one that can be taken out is a statement of its own (the inliner reports those
//! that cannot); the new variables are the kernel's. The statement shapes are
//! `tir::lift`'s, shared with `sema::stmt_expr`.

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::{BuildOptions, typed_tree};

    /// The kernel of `source` with the calls of `sync_name` hoisted.
    fn hoisted(source: &str, sync_name: &str) -> tir::Function {
        let program = typed_tree("h.cl", source, &BuildOptions::default()).expect("it builds");
        let sync = program.functions.iter().position(|f| &*f.name == sync_name);
        let syncs = HashSet::from([FuncId(sync.expect("the helper") as u32)]);
        let (_, k) = program.kernels().next().expect("a kernel");
        let mut kernel = k.clone();
        let mut body = kernel.body.take().expect("a body");
        Hoister {
            syncs: &syncs,
            kernel: &mut kernel,
        }
        .block(&mut body);
        kernel.body = Some(body);
        kernel
    }

    #[test]
    fn a_call_inside_an_operand_moves_into_a_variable_before_its_statement() {
        let k = hoisted(
            "int f(int x) { barrier(CLK_LOCAL_MEM_FENCE); return x; }
             kernel void k(global int *a) { a[0] = 2 * f(a[1]) + 1; }",
            "f",
        );
        let body = k.body.as_ref().expect("a body");
        let StmtKind::Block(b) = &body[0].kind else {
            panic!("a block of the hoisted call and the statement")
        };
        let StmtKind::Decl {
            local,
            init: Some(tir::Init::Expr(call)),
        } = &b[0].kind
        else {
            panic!("the call's variable")
        };
        assert_eq!(&*k.local(*local).name, "<call result>");
        assert!(matches!(call.kind, ExprKind::Call { .. }));
        assert!(matches!(b[1].kind, StmtKind::Expr(_)));
        assert_eq!(b.len(), 2);
    }

    #[test]
    fn a_call_evaluated_only_sometimes_becomes_an_if() {
        let k = hoisted(
            "int f(int x) { barrier(CLK_LOCAL_MEM_FENCE); return x; }
             kernel void k(global int *a) { a[0] = a[1] && f(a[2]); }",
            "f",
        );
        let body = k.body.as_ref().expect("a body");
        let StmtKind::Block(b) = &body[0].kind else {
            panic!("a block")
        };
        // `int t = a[1] && 1; if (t) t = f(a[2]) && 1; a[0] = t;`
        assert!(matches!(b[0].kind, StmtKind::Decl { .. }));
        let StmtKind::If {
            then_branch,
            else_branch,
            ..
        } = &b[1].kind
        else {
            panic!("the test of the left operand")
        };
        assert_eq!((then_branch.len(), else_branch.len()), (1, 0));
        assert_eq!(b.len(), 3);
    }

    #[test]
    fn a_loop_step_with_a_call_runs_after_the_body() {
        let k = hoisted(
            "int f(int x) { barrier(CLK_LOCAL_MEM_FENCE); return x; }
             kernel void k(global int *a) { for (int i = 0; i < 4; i += f(1)) a[i] = i; }",
            "f",
        );
        let body = k.body.as_ref().expect("a body");
        let StmtKind::Block(for_block) = &body[0].kind else {
            panic!("the for loop's block")
        };
        let StmtKind::Loop {
            step: None,
            body: loop_body,
            test_after: false,
            ..
        } = &for_block[1].kind
        else {
            panic!("the loop, its step gone")
        };
        // `int flag = 0; do { body } while (0); if (flag) break; i += f(1);`
        assert_eq!(loop_body.len(), 4);
        assert!(matches!(
            loop_body[1].kind,
            StmtKind::Loop {
                test_after: true,
                ..
            }
        ));
    }
}
