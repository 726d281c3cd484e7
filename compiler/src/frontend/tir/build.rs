//! Small builders of typed-tree pieces, shared by the passes that rewrite a kernel before
//! its code is generated (inlining, hoisting calls out of expressions, switch rewriting):
//! a new variable, its place, a load of it, its declaration, an assignment to it.

use crate::frontend::source::Span;
use crate::frontend::tir::{
    self, Expr, ExprKind, Init, Local, LocalId, Place, PlaceKind, Stmt, StmtKind,
};
use crate::frontend::types::{QualType, Type};

/// A new private variable of `f`, of type `ty`.
pub fn new_local(f: &mut tir::Function, name: &str, ty: &Type, span: Span) -> LocalId {
    f.locals.push(Local {
        name: name.into(),
        ty: QualType::new(ty.clone()),
        span,
    });
    LocalId(f.locals.len() as u32 - 1)
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
    Stmt {
        span,
        kind: StmtKind::Expr(Expr {
            ty: ty.clone(),
            span,
            kind: ExprKind::Assign {
                place: Box::new(local_place(local, ty, span)),
                op: None,
                value: Box::new(value),
                op_ty: ty.clone(),
            },
        }),
    }
}
