//! Small builders of typed-tree pieces, shared by the rewrites of a function's tree: the
//! lifting of statement expressions in semantic analysis (`sema::stmt_expr`) and the passes
//! before code generation (inlining, hoisting calls out of expressions, switch rewriting).
//! A new variable, its place, a load of it, its declaration, an assignment to it, and the
//! loop shapes both liftings build.

use super::{Block, Expr, ExprKind, Init, Local, LocalId, Place, PlaceKind, Stmt, StmtKind};
use crate::frontend::source::Span;
use crate::frontend::types::{QualType, Scalar, Type};

/// A new private variable of type `ty`, added to a function's `locals`.
pub fn new_local(locals: &mut Vec<Local>, name: &str, ty: &Type, span: Span) -> LocalId {
    locals.push(Local {
        name: name.into(),
        ty: QualType::new(ty.clone()),
        span,
    });
    LocalId(locals.len() as u32 - 1)
}

/// The place of variable `local`, of type `ty`.
pub fn local_place(local: LocalId, ty: &Type, span: Span) -> Place {
    Place {
        kind: PlaceKind::Local(local),
        ty: QualType::new(ty.clone()),
        span,
    }
}

/// The value of variable `local`.
pub fn load_local(local: LocalId, ty: &Type, span: Span) -> Expr {
    Expr {
        ty: ty.clone(),
        span,
        kind: ExprKind::Load(Box::new(local_place(local, ty, span))),
    }
}

/// `T local = value;`.
pub fn declare(local: LocalId, value: Expr) -> Stmt {
    Stmt {
        span: value.span,
        kind: StmtKind::Decl {
            local,
            init: Some(Init::Expr(value)),
        },
    }
}

/// `local = value;`, `value` already of the variable's type `ty`.
pub fn assign(local: LocalId, ty: &Type, value: Expr) -> Stmt {
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

/// `e;`.
pub fn expr_stmt(e: Expr) -> Stmt {
    Stmt {
        span: e.span,
        kind: StmtKind::Expr(e),
    }
}

/// `{ statements }`.
pub fn block(statements: Block, span: Span) -> Stmt {
    Stmt {
        kind: StmtKind::Block(statements),
        span,
    }
}

/// `if (cond) {} else break;`
pub fn break_unless(cond: Expr, span: Span) -> Stmt {
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

/// `e && 1`: 1 where `e` is true, else 0, as an `int` (the type of `&&`).
pub fn truth_of(e: Expr, int: &Type) -> Expr {
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
pub fn unit(span: Span) -> Expr {
    Expr::int_const(0, Scalar::Int, span)
}

/// A loop body followed by the loop's step or late condition, for a rewrite that must move
/// them out of the loop statement (they hold something that becomes statements):
/// `{ int flag = 0; do { body } while (0); if (flag) break; step; if (!cond) break; }`, the
/// body's `break`s for this loop turned into `{ flag = 1; break; }` so that `continue` in
/// the body still reaches the step. `flag` is a new `int` variable of the function.
pub fn tail_after_body(
    mut body: Block,
    step: Option<Expr>,
    late_cond: Option<Expr>,
    flag: LocalId,
    span: Span,
) -> Block {
    let int = Type::int();
    let zero = Expr::int_const(0, Scalar::Int, span);
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
