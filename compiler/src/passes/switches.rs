//! `switch` statements that contain barriers, rewritten as `if` chains so that the
//! work-group planner can split them (it plans `if`s and loops, not jumps to case labels).
//!
//! `switch (v) { case 1: A; case 2: B; break; default: C; }` becomes
//! `tmp = v; if (tmp == 1) { A; B; } else if (tmp == 2) { B; } else { C; }`: each case
//! label's code runs from the label to the first `break` of the switch body, falling
//! through the labels after it, as C says. The rewrite applies when every `break` that
//! leaves the switch is a statement of the switch body itself (not nested in an `if` of a
//! case); anything else stays a switch, and its kernel runs as a resumable function
//! (`func/resumable.rs`).

use super::analysis::contains_barrier;
use crate::frontend::tir::build::{declare, load_local, new_local};
use crate::frontend::tir::{
    self, BinaryOp, Block, Constant, Expr, ExprKind, LabelId, Stmt, StmtKind,
};
use crate::frontend::types::{Scalar, Type};

/// The pass: the switches with barriers of every kernel rewritten. Input: a program after
/// inlining (a kernel's barriers are its own statements). Output: each kernel whose every
/// switch with barriers can be rewritten has `if` chains instead; a kernel with one that
/// cannot keeps its switches (it runs as a resumable function).
pub(crate) fn run(program: &mut tir::Program) -> Result<(), String> {
    for f in program.functions.iter_mut().filter(|f| f.kernel.is_some()) {
        let mut rewritten = f.clone();
        if rewrite_switches(&mut rewritten).is_some() {
            *f = rewritten;
        }
    }
    Ok(())
}

/// Rewrites the switches with barriers of kernel `f`; `None` when one cannot be (`f` is
/// then partly rewritten: rewrite a copy).
pub(crate) fn rewrite_switches(f: &mut tir::Function) -> Option<()> {
    let Some(mut body) = f.body.take() else {
        return Some(());
    };
    let result = block(f, &mut body);
    f.body = Some(body);
    result
}

fn block(f: &mut tir::Function, b: &mut Block) -> Option<()> {
    for s in b.iter_mut() {
        match &mut s.kind {
            StmtKind::Block(inner) | StmtKind::Loop { body: inner, .. } => block(f, inner)?,
            StmtKind::If {
                then_branch,
                else_branch,
                ..
            } => {
                block(f, then_branch)?;
                block(f, else_branch)?;
            }
            StmtKind::Switch { body, .. } if contains_barrier(body) => {
                block(f, body)?;
                let StmtKind::Switch {
                    value,
                    cases,
                    default,
                    body,
                } = std::mem::replace(&mut s.kind, StmtKind::Break)
                else {
                    unreachable!("matched above")
                };
                s.kind = StmtKind::Block(if_chain(f, value, &cases, default, body, s.span)?);
            }
            _ => {}
        }
    }
    Some(())
}

/// The statements a case label runs: from the label to the switch's first `break` after it
/// (labels in between fall through).
fn case_code(body: &Block, label: LabelId) -> Option<Block> {
    let start = body
        .iter()
        .position(|s| matches!(s.kind, StmtKind::Label(l) if l == label))?;
    Some(
        body[start + 1..]
            .iter()
            .take_while(|s| !matches!(s.kind, StmtKind::Break))
            .filter(|s| !matches!(s.kind, StmtKind::Label(_)))
            .cloned()
            .collect(),
    )
}

/// The statements of `body` with plain blocks opened up (recursively).
fn flatten(body: Block) -> Block {
    let mut out = Vec::with_capacity(body.len());
    for s in body {
        match s.kind {
            StmtKind::Block(inner) => out.extend(flatten(inner)),
            _ => out.push(s),
        }
    }
    out
}

/// Whether a statement list breaks out of the switch from inside a nested statement.
fn nested_break(body: &Block) -> bool {
    body.iter()
        .any(|s| !matches!(s.kind, StmtKind::Break) && breaks(std::slice::from_ref(s)))
}

/// Whether statements contain a `break` of the switch (a loop's or an inner switch's
/// breaks are their own).
fn breaks(b: &[Stmt]) -> bool {
    b.iter().any(|s| match &s.kind {
        StmtKind::Break => true,
        StmtKind::Block(x) => breaks(x),
        StmtKind::If {
            then_branch,
            else_branch,
            ..
        } => breaks(then_branch) || breaks(else_branch),
        _ => false,
    })
}

fn if_chain(
    f: &mut tir::Function,
    value: Expr,
    cases: &[(i64, LabelId)],
    default: Option<LabelId>,
    body: Block,
    span: crate::frontend::source::Span,
) -> Option<Block> {
    // Braces around a case's statements (`case 2: { ...; break; }`) only scope names:
    // their statements are the switch body's.
    let body = flatten(body);
    if nested_break(&body) || body.iter().any(|s| matches!(s.kind, StmtKind::Goto(_))) {
        return None;
    }
    // The value, evaluated once.
    let tmp = new_local(&mut f.locals, "", &value.ty, span);
    let load = load_local(tmp, &value.ty, span);
    let mut out = vec![declare(tmp, value.clone())];
    // From the last test to the first: each `if` holds the chain after it as its `else`.
    let mut chain: Block = match default {
        Some(l) => case_code(&body, l).unwrap_or_default(),
        None => Vec::new(),
    };
    for &(v, label) in cases.iter().rev() {
        let code = case_code(&body, label).unwrap_or_default();
        let test = Expr {
            kind: ExprKind::Binary {
                op: BinaryOp::Eq,
                lhs: Box::new(load.clone()),
                rhs: Box::new(Expr {
                    kind: ExprKind::Const(Constant::Int(vec![v as u64])),
                    ty: value.ty.clone(),
                    span,
                }),
            },
            ty: Type::Scalar(Scalar::Int),
            span,
        };
        chain = vec![Stmt {
            kind: StmtKind::If {
                cond: test,
                then_branch: code,
                else_branch: chain,
            },
            span,
        }];
    }
    out.extend(chain);
    Some(out)
}
