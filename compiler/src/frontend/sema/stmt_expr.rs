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

use std::sync::Arc;

use super::super::source::Span;
use super::super::tir::{
    Block, Expr, ExprKind, Init, Local, LocalId, Place, PlaceKind, Stmt, StmtKind,
};
use super::super::types::{QualType, Scalar, Type};

/// Moves every statement expression of `body` out into statements; new variables are
/// added to `locals`.
pub(super) fn lift(body: &mut Block, locals: &mut Vec<Local>) {
    if body.iter().any(stmt_has) {
        Lifter { locals }.block(body);
    }
}

struct Lifter<'a> {
    locals: &'a mut Vec<Local>,
}

impl Lifter<'_> {
    fn block(&mut self, block: &mut Block) {
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
            } if step.as_ref().is_some_and(has)
                || (*test_after && cond.as_ref().is_some_and(has)) =>
            {
                let (step, late_cond) = (step.take(), cond.take_if(|_| *test_after));
                *test_after = false;
                *body = self.tail_after_body(std::mem::take(body), step, late_cond, s.span);
                // Once more: a `while`/`for` condition may have one too.
                return self.statement(s);
            }
            StmtKind::Loop {
                cond,
                body,
                test_after: false,
                ..
            } => {
                if let Some(c) = cond.take_if(|c| has(c)) {
                    let span = c.span;
                    body.insert(0, break_unless(c, span));
                }
                self.block(body);
            }
            StmtKind::Loop { body, .. } => self.block(body),
            StmtKind::Switch { value, body, .. } => {
                self.block(body);
                self.expr(value, &mut before);
            }
            // A statement expression that is the whole statement: its block.
            StmtKind::Expr(Expr {
                kind: ExprKind::StmtExpr { body, value },
                ..
            }) => {
                let mut inner = std::mem::take(body);
                if let Some(v) = value.take() {
                    inner.push(Stmt {
                        span: v.span,
                        kind: StmtKind::Expr(*v),
                    });
                }
                s.kind = StmtKind::Block(inner);
                return self.statement(s);
            }
            StmtKind::Expr(e)
            | StmtKind::Decl {
                init: Some(Init::Expr(e)),
                ..
            } => self.expr(e, &mut before),
            StmtKind::Decl {
                init: Some(Init::Aggregate(items)),
                ..
            } => items
                .iter_mut()
                .for_each(|(_, e)| self.expr(e, &mut before)),
            StmtKind::Return(Some(e)) => self.expr(e, &mut before),
            StmtKind::Decl { init: None, .. }
            | StmtKind::Label(_)
            | StmtKind::Goto(_)
            | StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Return(None) => {}
        }
        if !before.is_empty() {
            let span = s.span;
            let rest = std::mem::replace(&mut s.kind, StmtKind::Break);
            before.push(Stmt { kind: rest, span });
            s.kind = StmtKind::Block(before);
        }
    }

    /// A statement built here, with its own statement expressions moved out, into `before`.
    fn push(&mut self, mut s: Stmt, before: &mut Vec<Stmt>) {
        self.statement(&mut s);
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
                        let local = self.new_local(&ty, span);
                        before.push(Stmt {
                            kind: StmtKind::Decl { local, init: None },
                            span,
                        });
                        inner.push(assign(local, &ty, *v));
                        self.push(block(inner, span), before);
                        *e = load_local(local, &ty, span);
                    }
                    v => {
                        inner.extend(v.map(|v| Stmt {
                            span: v.span,
                            kind: StmtKind::Expr(*v),
                        }));
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
                let local = self.new_local(&ty, span);
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
                    let local = self.new_local(&ty, span);
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
            ExprKind::Unary { operand, .. } | ExprKind::Convert { operand, .. } => {
                self.expr(operand, before)
            }
            ExprKind::Swizzle { base, .. } => self.expr(base, before),
            ExprKind::Binary { lhs, rhs, .. } | ExprKind::PointerDiff { lhs, rhs } => {
                self.in_order(&mut [&mut **lhs, &mut **rhs], before)
            }
            ExprKind::PointerOffset {
                pointer, offset, ..
            } => self.in_order(&mut [&mut **pointer, &mut **offset], before),
            ExprKind::Select {
                cond,
                then_expr,
                else_expr,
            } => self.in_order(
                &mut [&mut **cond, &mut **then_expr, &mut **else_expr],
                before,
            ),
            ExprKind::VectorLiteral(parts) => {
                self.in_order(&mut parts.iter_mut().collect::<Vec<_>>(), before)
            }
            ExprKind::Call { args, .. } | ExprKind::Builtin { args, .. } => {
                self.in_order(&mut args.iter_mut().collect::<Vec<_>>(), before)
            }
            ExprKind::Const(_) | ExprKind::StringLiteral(_) => {}
        }
    }

    /// Operands that clang evaluates left to right: those before the last one with a
    /// statement expression are computed into variables first, so that the statement
    /// expression, which moves before the whole statement, does not run before them
    /// (`x + ({ x = 5; 1; })` reads `x` before the store, as clang does).
    fn in_order(&mut self, operands: &mut [&mut Expr], before: &mut Vec<Stmt>) {
        let last = operands.iter().rposition(|e| has(e));
        for (i, e) in operands.iter_mut().enumerate() {
            self.expr(e, before);
            if last.is_some_and(|l| i < l) && spillable(e) {
                let (ty, span) = (e.ty.clone(), e.span);
                let local = self.new_local(&ty, span);
                let value = std::mem::replace(&mut **e, load_local(local, &ty, span));
                before.push(declare(local, value));
            }
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

    /// A loop body followed by the loop's step or late condition: `{ int brk = 0;
    /// do { body } while (0); if (brk) break; step; if (!cond) break; }`, the body's `break`s
    /// for this loop turned into `{ brk = 1; break; }`.
    fn tail_after_body(
        &mut self,
        mut body: Block,
        step: Option<Expr>,
        late_cond: Option<Expr>,
        span: Span,
    ) -> Block {
        let int = Type::int();
        let zero = Expr::int_const(0, Scalar::Int, span);
        let flag = self.new_local(&int, span);
        flag_breaks(&mut body, flag, &int);
        let mut tail = vec![
            declare(flag, zero.clone()),
            Stmt {
                kind: StmtKind::Loop {
                    cond: Some(zero),
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
        tail.extend(step.map(expr_stmt));
        tail.extend(late_cond.map(|c| break_unless(c, span)));
        tail
    }

    fn new_local(&mut self, ty: &Type, span: Span) -> LocalId {
        self.locals.push(Local {
            name: Arc::from("<statement expression>"),
            ty: QualType::new(ty.clone()),
            span,
        });
        LocalId(self.locals.len() as u32 - 1)
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

/// Whether `e` contains a statement expression.
fn has(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::StmtExpr { .. } => true,
        ExprKind::Load(p) | ExprKind::AddressOf(p) | ExprKind::IncDec { place: p, .. } => {
            place_has(p)
        }
        ExprKind::Assign { place, value, .. } => place_has(place) || has(value),
        ExprKind::Unary { operand, .. } | ExprKind::Convert { operand, .. } => has(operand),
        ExprKind::Swizzle { base, .. } => has(base),
        ExprKind::Binary { lhs, rhs, .. }
        | ExprKind::Logical { lhs, rhs, .. }
        | ExprKind::Comma { lhs, rhs }
        | ExprKind::PointerDiff { lhs, rhs } => has(lhs) || has(rhs),
        ExprKind::PointerOffset {
            pointer, offset, ..
        } => has(pointer) || has(offset),
        ExprKind::Conditional {
            cond,
            then_expr,
            else_expr,
        }
        | ExprKind::Select {
            cond,
            then_expr,
            else_expr,
        } => has(cond) || has(then_expr) || has(else_expr),
        ExprKind::VectorLiteral(parts) => parts.iter().any(has),
        ExprKind::Call { args, .. } | ExprKind::Builtin { args, .. } => args.iter().any(has),
        ExprKind::Const(_) | ExprKind::StringLiteral(_) => false,
    }
}

fn place_has(p: &Place) -> bool {
    match &p.kind {
        PlaceKind::Local(_) | PlaceKind::Global(_) => false,
        PlaceKind::Deref(e) | PlaceKind::Value(e) => has(e),
        PlaceKind::Element { array, index } => place_has(array) || has(index),
        PlaceKind::Field { record, .. } => place_has(record),
        PlaceKind::Lanes { vector, .. } => place_has(vector),
        PlaceKind::CompoundLiteral { init, .. } => init_has(init),
    }
}

fn init_has(init: &Init) -> bool {
    match init {
        Init::Expr(e) => has(e),
        Init::Aggregate(items) => items.iter().any(|(_, e)| has(e)),
    }
}

/// Whether statement `s` (or one nested in it) has a statement expression.
fn stmt_has(s: &Stmt) -> bool {
    match &s.kind {
        StmtKind::Expr(e) | StmtKind::Return(Some(e)) => has(e),
        StmtKind::Decl { init, .. } => init.as_ref().is_some_and(init_has),
        StmtKind::Block(b) => b.iter().any(stmt_has),
        StmtKind::If {
            cond,
            then_branch,
            else_branch,
        } => has(cond) || then_branch.iter().any(stmt_has) || else_branch.iter().any(stmt_has),
        StmtKind::Loop {
            cond, step, body, ..
        } => {
            cond.as_ref().is_some_and(has)
                || step.as_ref().is_some_and(has)
                || body.iter().any(stmt_has)
        }
        StmtKind::Switch { value, body, .. } => has(value) || body.iter().any(stmt_has),
        StmtKind::Label(_)
        | StmtKind::Goto(_)
        | StmtKind::Break
        | StmtKind::Continue
        | StmtKind::Return(None) => false,
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

/// `if (cond) {} else break;`
fn break_unless(cond: Expr, span: Span) -> Stmt {
    Stmt {
        kind: StmtKind::If {
            cond,
            then_branch: Vec::new(),
            else_branch: vec![Stmt {
                kind: StmtKind::Break,
                span,
            }],
        },
        span,
    }
}

fn block(statements: Block, span: Span) -> Stmt {
    Stmt {
        kind: StmtKind::Block(statements),
        span,
    }
}

fn expr_stmt(e: Expr) -> Stmt {
    Stmt {
        span: e.span,
        kind: StmtKind::Expr(e),
    }
}

fn local_place(local: LocalId, ty: &Type, span: Span) -> Place {
    Place {
        kind: PlaceKind::Local(local),
        ty: QualType::new(ty.clone()),
        span,
    }
}

fn load_local(local: LocalId, ty: &Type, span: Span) -> Expr {
    Expr {
        ty: ty.clone(),
        span,
        kind: ExprKind::Load(Box::new(local_place(local, ty, span))),
    }
}

fn declare(local: LocalId, value: Expr) -> Stmt {
    Stmt {
        span: value.span,
        kind: StmtKind::Decl {
            local,
            init: Some(Init::Expr(value)),
        },
    }
}

fn assign(local: LocalId, ty: &Type, value: Expr) -> Stmt {
    let span = value.span;
    expr_stmt(Expr {
        ty: ty.clone(),
        span,
        kind: ExprKind::Assign {
            place: Box::new(local_place(local, ty, span)),
            op: None,
            value: Box::new(value),
            op_ty: ty.clone(),
        },
    })
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

/// A placeholder left where an operand was moved out.
fn unit(span: Span) -> Expr {
    Expr::int_const(0, Scalar::Int, span)
}
