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

use crate::frontend::tir::build::{assign, declare, load_local, new_local};

use crate::frontend::source::Span;
use crate::frontend::tir::{
    self, Block, Expr, ExprKind, FuncId, Init, LocalId, Place, PlaceKind, Stmt, StmtKind,
};
use crate::frontend::types::{Scalar, Type};

pub(crate) struct Hoister<'a> {
    pub syncs: &'a HashSet<FuncId>,
    /// The kernel whose body is rewritten: the new variables are its.
    pub kernel: &'a mut tir::Function,
}

impl Hoister<'_> {
    pub fn block(&mut self, block: &mut Block) {
        for s in block.iter_mut() {
            self.statement(s);
        }
    }

    fn statement(&mut self, s: &mut Stmt) {
        let mut before = Vec::new();
        match &mut s.kind {
            StmtKind::Block(b) => self.block(b),
            StmtKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                self.block(then_branch);
                self.block(else_branch);
                self.expr(cond, &mut before);
            }
            StmtKind::Loop {
                cond,
                step,
                body,
                test_after,
                ..
            } if step.as_ref().is_some_and(|e| self.calls_sync(e))
                || (*test_after && cond.as_ref().is_some_and(|e| self.calls_sync(e))) =>
            {
                let (step, late_cond) = (step.take(), cond.take_if(|_| *test_after));
                *test_after = false;
                *body = self.tail_after_body(std::mem::take(body), step, late_cond, s.span);
                // Once more: a `while`/`for` condition may call one too.
                return self.statement(s);
            }
            StmtKind::Loop {
                cond,
                body,
                test_after: false,
                ..
            } => {
                if let Some(c) = cond.take_if(|c| self.calls_sync(c)) {
                    let span = c.span;
                    let test = StmtKind::If {
                        cond: c,
                        then_branch: Vec::new(),
                        else_branch: vec![Stmt {
                            kind: StmtKind::Break,
                            span,
                        }],
                    };
                    body.insert(0, Stmt { kind: test, span });
                }
                self.block(body);
            }
            StmtKind::Loop { body, .. } => self.block(body),
            StmtKind::Switch { value, body, .. } => {
                self.block(body);
                self.expr(value, &mut before);
            }
            // A value cast to void as a statement: the value, discarded all the same.
            StmtKind::Expr(Expr {
                kind: ExprKind::Convert { operand, .. },
                ty: Type::Void,
                ..
            }) if self.calls_sync(operand) => {
                s.kind = StmtKind::Expr((**operand).clone());
                return self.statement(s);
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
                return self.statement(s);
            }
            StmtKind::Expr(e)
            | StmtKind::Decl {
                init: Some(Init::Expr(e)),
                ..
            } => self.whole(e, &mut before),
            StmtKind::Decl {
                init: Some(Init::Aggregate(items)),
                ..
            } => items
                .iter_mut()
                .for_each(|(_, e)| self.expr(e, &mut before)),
            StmtKind::Return(Some(e)) => self.expr(e, &mut before),
            _ => {}
        }
        if !before.is_empty() {
            let span = s.span;
            let rest = std::mem::replace(&mut s.kind, StmtKind::Break);
            before.push(Stmt { kind: rest, span });
            s.kind = StmtKind::Block(before);
        }
    }

    fn is_sync_call(&self, e: &Expr) -> bool {
        matches!(&e.kind, ExprKind::Call { func, .. } if self.syncs.contains(func))
    }

    fn calls_sync(&self, e: &Expr) -> bool {
        let mut found = self.is_sync_call(e);
        crate::codegen::func::for_each_child(e, &mut |c| found |= self.calls_sync(c));
        found
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

    /// Moves the synchronizing calls of `e` that are always evaluated into `before`.
    fn expr(&mut self, e: &mut Expr, before: &mut Vec<Stmt>) {
        if self.is_sync_call(e) && e.ty != Type::Void {
            let local = self.new_local(&e.ty, e.span);
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
                let local = self.new_local(&ty, span);
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
                let local = self.new_local(&ty, span);
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
                before.push(Stmt {
                    span: lhs.span,
                    kind: StmtKind::Expr((**lhs).clone()),
                });
                let rhs = (**rhs).clone();
                *e = rhs;
                self.expr(e, before);
            }
            ExprKind::Logical { lhs, .. } | ExprKind::Comma { lhs, .. } => self.expr(lhs, before),
            ExprKind::Conditional { cond, .. } => self.expr(cond, before),
            ExprKind::Load(p) | ExprKind::AddressOf(p) | ExprKind::IncDec { place: p, .. } => {
                self.place(p, before)
            }
            ExprKind::Assign { place, value, .. } => {
                self.place(place, before);
                self.expr(value, before);
            }
            ExprKind::Unary { operand, .. } | ExprKind::Convert { operand, .. } => {
                self.expr(operand, before)
            }
            ExprKind::Swizzle { base, .. } => self.expr(base, before),
            ExprKind::Binary { lhs, rhs, .. } | ExprKind::PointerDiff { lhs, rhs } => {
                self.expr(lhs, before);
                self.expr(rhs, before);
            }
            ExprKind::PointerOffset {
                pointer, offset, ..
            } => {
                self.expr(pointer, before);
                self.expr(offset, before);
            }
            ExprKind::Select {
                cond,
                then_expr,
                else_expr,
            } => {
                self.expr(cond, before);
                self.expr(then_expr, before);
                self.expr(else_expr, before);
            }
            ExprKind::VectorLiteral(parts) => parts.iter_mut().for_each(|p| self.expr(p, before)),
            ExprKind::Call { args, .. } | ExprKind::Builtin { args, .. } => {
                args.iter_mut().for_each(|a| self.expr(a, before))
            }
            // Semantic analysis leaves no statement expression.
            ExprKind::Const(_) | ExprKind::StringLiteral(_) | ExprKind::StmtExpr { .. } => {}
        }
    }

    fn place(&mut self, p: &mut Place, before: &mut Vec<Stmt>) {
        match &mut p.kind {
            PlaceKind::Local(_) | PlaceKind::Global(_) => {}
            PlaceKind::Deref(e) | PlaceKind::Value(e) => self.expr(e, before),
            PlaceKind::Element { array, index } => {
                self.place(array, before);
                self.expr(index, before);
            }
            PlaceKind::Field { record, .. } => self.place(record, before),
            PlaceKind::Lanes { vector, .. } => self.place(vector, before),
            PlaceKind::CompoundLiteral { init, .. } => match &mut **init {
                Init::Expr(e) => self.expr(e, before),
                Init::Aggregate(items) => items.iter_mut().for_each(|(_, e)| self.expr(e, before)),
            },
        }
    }

    /// A loop body followed by the loop's step or late condition (`for` steps and `do`-`while`
    /// conditions that call a synchronizing function): `{ int brk = 0; do { body } while (0);
    /// if (brk) break; step; if (!cond) break; }`, the body's `break`s for this loop turned
    /// into `{ brk = 1; break; }`.
    fn tail_after_body(
        &mut self,
        mut body: Block,
        step: Option<Expr>,
        late_cond: Option<Expr>,
        span: Span,
    ) -> Block {
        let int = Type::int();
        let anchor = Expr::int_const(0, Scalar::Int, span);
        let flag = self.new_local(&int, span);
        flag_breaks(&mut body, flag, &int);
        let mut tail = vec![
            declare(flag, anchor.clone()),
            Stmt {
                kind: StmtKind::Loop {
                    cond: Some(anchor),
                    step: None,
                    body,
                    test_after: true,
                    unroll: None,
                },
                span,
            },
            Stmt {
                kind: StmtKind::If {
                    cond: load_local(flag, &int, span),
                    then_branch: vec![Stmt {
                        kind: StmtKind::Break,
                        span,
                    }],
                    else_branch: Vec::new(),
                },
                span,
            },
        ];
        if let Some(step) = step {
            tail.push(Stmt {
                kind: StmtKind::Expr(step),
                span,
            });
        }
        if let Some(cond) = late_cond {
            tail.push(Stmt {
                kind: StmtKind::If {
                    cond,
                    then_branch: Vec::new(),
                    else_branch: vec![Stmt {
                        kind: StmtKind::Break,
                        span,
                    }],
                },
                span,
            });
        }
        tail
    }

    /// A new private variable of the kernel, of type `ty`, for a value computed at `span`.
    fn new_local(&mut self, ty: &Type, span: Span) -> LocalId {
        new_local(self.kernel, "<call result>", ty, span)
    }
}

/// Turns the `break`s of a loop body that leave the loop (not those of nested loops and
/// switches) into `{ flag = 1; break; }`.
fn flag_breaks(block: &mut Block, flag: LocalId, int: &Type) {
    for s in block.iter_mut() {
        match &mut s.kind {
            StmtKind::Break => {
                let one = Expr::int_const(1, Scalar::Int, s.span);
                s.kind = StmtKind::Block(vec![
                    assign(flag, int, one),
                    Stmt {
                        kind: StmtKind::Break,
                        span: s.span,
                    },
                ]);
            }
            StmtKind::Block(b) => flag_breaks(b, flag, int),
            StmtKind::If {
                then_branch,
                else_branch,
                ..
            } => {
                flag_breaks(then_branch, flag, int);
                flag_breaks(else_branch, flag, int);
            }
            _ => {}
        }
    }
}

/// `e && 1`: 1 where `e` is true, else 0, as an `int` (the type of `&&`).
fn truth_of(e: Expr, int: &Type) -> Expr {
    let span = e.span;
    Expr {
        ty: int.clone(),
        span,
        kind: ExprKind::Logical {
            and: true,
            lhs: Box::new(e),
            rhs: Box::new(Expr::int_const(1, Scalar::Int, span)),
        },
    }
}

/// A placeholder left where an operand was moved out.
fn unit(span: Span) -> Expr {
    Expr::int_const(0, Scalar::Int, span)
}
