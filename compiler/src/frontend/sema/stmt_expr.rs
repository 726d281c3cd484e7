//! GNU statement expressions moved out of expressions into statements, so that the typed
//! tree a function leaves semantic analysis with has none (code generation and its passes
//! know statements and expressions only).
//!
//! A statement expression evaluated every time its statement runs goes before the
//! statement: `out[i] = ({ int t = x; t * 2; }) + 1;` becomes
//! `{ T v; { int t = x; v = t * 2; } out[i] = v + 1; }`. Operands that clang evaluates
//! before it (the left operands of an operator, earlier arguments) are computed into
//! variables before it, so the order is clang's. One evaluated only sometimes becomes control
//! flow, as clang evaluates it: `c && ({...})` an `if` on `c`, `c ? ({...}) : y` an `if`
//! that sets a variable, `(a, ({...}))` the statement `a;` first. A `while`/`for` condition
//! with one is tested at the top of the body instead (`if (!cond) break;`); a `for` step or
//! a `do`-`while` condition with one runs after the body, which is wrapped in
//! `do { ... } while (0)` so that `continue` still reaches it (the body's `break`s set a
//! flag the loop then breaks on).

use super::super::source::Span;
use super::super::tir::build::{assign, block, declare, expr_stmt, load_local, truth_of, unit};
use super::super::tir::lift::{Lift, lift_block, lift_statement};
use super::super::tir::visit::{
    any_expr, for_each_child, for_each_child_mut, for_each_place_expr_mut, for_each_subexpr,
};
use super::super::tir::{Block, Expr, ExprKind, Local, LocalId, Place, Stmt, StmtKind};
use super::super::types::Type;

/// Moves every statement expression of `body` out into statements; new variables are
/// added to `locals`.
pub(super) fn lift(body: &mut Block, locals: &mut Vec<Local>) {
    if any_expr(body, &mut is_stmt_expr) {
        lift_block(&mut Lifter { locals }, body);
    }
}

struct Lifter<'a> {
    locals: &'a mut Vec<Local>,
}

impl Lift for Lifter<'_> {
    fn holds(&self, e: &Expr) -> bool {
        has(e)
    }

    fn new_local(&mut self, ty: &Type, span: Span) -> LocalId {
        super::super::tir::build::new_local(self.locals, "<statement expression>", ty, span)
    }

    fn expr(&mut self, e: &mut Expr, before: &mut Vec<Stmt>) {
        Lifter::expr(self, e, before);
    }

    /// A statement expression that is the whole statement: its block.
    fn reshape(&mut self, s: &mut Stmt) -> bool {
        let StmtKind::Expr(Expr {
            kind: ExprKind::StmtExpr { body, value },
            ..
        }) = &mut s.kind
        else {
            return false;
        };
        let mut inner = std::mem::take(body);
        if let Some(v) = value.take() {
            inner.push(expr_stmt(*v));
        }
        s.kind = StmtKind::Block(inner);
        true
    }
}

impl Lifter<'_> {
    /// A statement built here, with its own statement expressions moved out, into `before`.
    fn push(&mut self, mut s: Stmt, before: &mut Vec<Stmt>) {
        lift_statement(self, &mut s);
        before.push(s);
    }

    /// Moves the statement expressions of `e` into `before`, as control flow where they are
    /// evaluated only sometimes.
    fn expr(&mut self, e: &mut Expr, before: &mut Vec<Stmt>) {
        if !has(e) {
            return;
        }
        let (ty, span) = (e.ty.clone(), e.span);
        match &mut e.kind {
            ExprKind::StmtExpr { body, value } => {
                let mut inner = std::mem::take(body);
                let value = value.take();
                match value {
                    Some(v) if ty != Type::Void => {
                        let local = Lift::new_local(self, &ty, span);
                        before.push(Stmt {
                            kind: StmtKind::Decl { local, init: None },
                            span,
                        });
                        inner.push(assign(local, &ty, *v));
                        self.push(block(inner, span), before);
                        *e = load_local(local, &ty, span);
                    }
                    v => {
                        inner.extend(v.map(|v| expr_stmt(*v)));
                        self.push(block(inner, span), before);
                        *e = void_value(span);
                    }
                }
            }
            ExprKind::Logical { and, lhs, rhs } if has(rhs) => {
                let and = *and;
                // `lhs` is always evaluated: its statement expressions go first.
                self.expr(lhs, before);
                let (lhs, rhs) = (std::mem::replace(&mut **lhs, unit(span)), (**rhs).clone());
                let local = Lift::new_local(self, &ty, span);
                before.push(declare(local, truth_of(lhs, &ty)));
                let second = vec![assign(local, &ty, truth_of(rhs, &ty))];
                let (then_branch, else_branch) = if and {
                    (second, Vec::new())
                } else {
                    (Vec::new(), second)
                };
                let test = Stmt {
                    kind: StmtKind::If {
                        cond: load_local(local, &ty, span),
                        then_branch,
                        else_branch,
                    },
                    span,
                };
                self.push(test, before);
                *e = load_local(local, &ty, span);
            }
            ExprKind::Conditional {
                cond,
                then_expr,
                else_expr,
            } if has(then_expr) || has(else_expr) => {
                self.expr(cond, before);
                let cond = (**cond).clone();
                let (then_expr, else_expr) = ((**then_expr).clone(), (**else_expr).clone());
                let (then_branch, else_branch, result) = if ty == Type::Void {
                    (
                        vec![expr_stmt(then_expr)],
                        vec![expr_stmt(else_expr)],
                        void_value(span),
                    )
                } else {
                    let local = Lift::new_local(self, &ty, span);
                    before.push(Stmt {
                        kind: StmtKind::Decl { local, init: None },
                        span,
                    });
                    (
                        vec![assign(local, &ty, then_expr)],
                        vec![assign(local, &ty, else_expr)],
                        load_local(local, &ty, span),
                    )
                };
                let choice = Stmt {
                    kind: StmtKind::If {
                        cond,
                        then_branch,
                        else_branch,
                    },
                    span,
                };
                self.push(choice, before);
                *e = result;
            }
            ExprKind::Comma { lhs, rhs } => {
                // `lhs` runs first, as a statement of its own.
                let lhs = std::mem::replace(&mut **lhs, unit(span));
                self.push(expr_stmt(lhs), before);
                *e = (**rhs).clone();
                self.expr(e, before);
            }
            ExprKind::Logical { lhs, .. } => self.expr(lhs, before),
            ExprKind::Conditional { cond, .. } => self.expr(cond, before),
            ExprKind::Load(p) | ExprKind::AddressOf(p) | ExprKind::IncDec { place: p, .. } => {
                self.place(p, before)
            }
            ExprKind::Assign { place, value, .. } => {
                self.place(place, before);
                self.expr(value, before);
            }
            // Operands that clang evaluates left to right.
            _ => self.in_order(e, before),
        }
    }

    /// Operands that clang evaluates left to right: those before the last one with a
    /// statement expression are computed into variables first, so that the statement
    /// expression, which moves before the whole statement, does not run before them
    /// (`x + ({ x = 5; 1; })` reads `x` before the store, as clang does).
    fn in_order(&mut self, e: &mut Expr, before: &mut Vec<Stmt>) {
        let (mut last, mut count) = (None, 0);
        for_each_child(e, &mut |c| {
            if has(c) {
                last = Some(count);
            }
            count += 1;
        });
        let mut i = 0;
        for_each_child_mut(e, &mut |e| {
            self.expr(e, before);
            if last.is_some_and(|l| i < l) && spillable(e) {
                let (ty, span) = (e.ty.clone(), e.span);
                let local = Lift::new_local(self, &ty, span);
                let value = std::mem::replace(e, load_local(local, &ty, span));
                before.push(declare(local, value));
            }
            i += 1;
        });
    }

    fn place(&mut self, p: &mut Place, before: &mut Vec<Stmt>) {
        for_each_place_expr_mut(p, &mut |e| self.expr(e, before));
    }
}

/// Whether the value of `e` may be computed early into a variable: not a constant or a
/// string literal (`printf` needs its format as one), and of a type variables can have.
fn spillable(e: &Expr) -> bool {
    !matches!(e.kind, ExprKind::Const(_) | ExprKind::StringLiteral(_))
        && matches!(
            e.ty,
            Type::Scalar(_)
                | Type::Vector(..)
                | Type::Pointer(_)
                | Type::Record(_)
                | Type::Enum(..)
        )
}

fn is_stmt_expr(e: &Expr) -> bool {
    matches!(e.kind, ExprKind::StmtExpr { .. })
}

/// Whether `e` contains a statement expression.
fn has(e: &Expr) -> bool {
    let mut found = false;
    for_each_subexpr(e, &mut |c| found = found || is_stmt_expr(c));
    found
}

/// A `void` value with no effect, where a `void` statement expression was taken out.
fn void_value(span: Span) -> Expr {
    Expr {
        ty: Type::Void,
        span,
        kind: ExprKind::Comma {
            lhs: Box::new(unit(span)),
            rhs: Box::new(unit(span)),
        },
    }
}
