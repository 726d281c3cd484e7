//! What the vectorizer declines before it starts, with the reason for the build log.

use std::collections::HashSet;

use super::super::func::constant_dimension;
use crate::frontend::tir::visit::for_each_stmt_expr;
use crate::frontend::tir::visit::{any_statement, for_each_child};
use crate::frontend::tir::{self, BuiltinFunction, Expr, ExprKind, LocalId, StmtKind};
use crate::frontend::types::{AddressSpace, Scalar, Type};
use crate::passes::analysis::address_taken;

/// `f` with its switches rewritten as `if` chains (`passes::switches`), for the vectorized
/// row, which runs `if`s under lane masks but cannot jump to case labels (the scalar row
/// keeps the switch; both give the same results). `None` where `f` has no switch, or one
/// the rewrite does not take (a `break` inside an `if` of a case, more than
/// `MOST_CASES` cases): the check then says why.
pub(super) fn switches_as_ifs(f: &tir::Function) -> Option<tir::Function> {
    let is_switch = |s: &StmtKind| matches!(s, StmtKind::Switch { .. });
    if !any_statement(f.body.as_deref()?, &is_switch) {
        return None;
    }
    let mut g = f.clone();
    crate::passes::switches::rewrite_every_switch(&mut g)?;
    let jumps = |s: &StmtKind| {
        matches!(
            s,
            StmtKind::Switch { .. } | StmtKind::Goto(_) | StmtKind::Label(_)
        )
    };
    if any_statement(g.body.as_deref()?, &jumps) {
        return None;
    }
    // The switches' case labels were its only labels, and none is left to jump to.
    g.labels = 0;
    Some(g)
}

/// Whether the vectorizer handles the kernel `f` (`uniform`: its uniform variables); the
/// reason where it does not.
pub(super) fn vectorizable(f: &tir::Function, uniform: &HashSet<LocalId>) -> Result<(), String> {
    let Some(body) = &f.body else {
        return Err("it has no body".into());
    };
    if f.labels > 0
        || any_statement(body, &|s| {
            matches!(
                s,
                StmtKind::Switch { .. } | StmtKind::Goto(_) | StmtKind::Label(_)
            )
        })
    {
        return Err("it has a switch or a goto".into());
    }
    let taken = address_taken(body);
    for (i, local) in f.locals.iter().enumerate() {
        let id = LocalId(i as u32);
        if local.ty.space == AddressSpace::Local && id.0 >= f.params {
            return Err(format!("it declares the __local variable '{}'", local.name));
        }
        if uniform.contains(&id) {
            continue;
        }
        if taken.contains(&id) {
            return Err(format!("the address of '{}' is taken", local.name));
        }
        match &local.ty.ty {
            Type::Scalar(s) | Type::Enum(_, s) if *s != Scalar::Half => {}
            Type::Pointer(_) => {}
            ty if super::value::soa_type(ty).is_some() => {}
            ty if super::narrow_vec::narrow_soa(ty).is_some() => {}
            ty if super::pair::soa_pair_type(ty).is_some() => {}
            ty => {
                return Err(format!(
                    "'{}' is a varying {ty} (only scalars and vectors other than half are vectorized yet)",
                    local.name
                ));
            }
        }
    }
    if !uses_item_id(body) {
        return Err("it does not use get_global_id(0) or get_local_id(0)".into());
    }
    Ok(())
}

/// Whether `body` asks for its work-item's id in dimension 0 (or in a dimension known only
/// at run time).
fn uses_item_id(body: &[tir::Stmt]) -> bool {
    fn visit(e: &Expr, found: &mut bool) {
        if let ExprKind::Builtin { id, args } = &e.kind
            && matches!(
                id.function(),
                BuiltinFunction::GetGlobalId | BuiltinFunction::GetLocalId
            )
            && constant_dimension(args).is_none_or(|d| d == 0)
        {
            *found = true;
        }
        for_each_child(e, &mut |c| visit(c, found));
    }
    let mut found = false;
    for_each_stmt_expr(body, &mut |e| visit(e, &mut found));
    found
}
