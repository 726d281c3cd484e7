//! `switch` statements that contain barriers, rewritten as `if` chains so that the
//! work-group planner can split them (it plans `if`s and loops, not jumps to case labels).
//!
//! `switch (v) { case 1: A; case 2: B; break; default: C; }` becomes
//! `tmp = v; if (tmp == 1) { A; B; } else if (tmp == 2) { B; } else { C; }`: each case
//! label's code runs from the label to the first `break` of the switch body, falling
//! through the labels after it, as C says. The rewrite applies when every `break` that
//! leaves the switch is a statement of the switch body itself (not nested in an `if` of a
//! case); anything else stays a switch, and its kernel runs as a resumable function
//! (`codegen/func/resumable.rs`).
//!
//! Input: a program after inlining. Output: the same program, each kernel's switches with
//! barriers `if` chains where all of them can be ([`run`]). The work-item vectorizer makes
//! its row function from a copy of a kernel with every switch so rewritten
//! ([`rewrite_every_switch`]), since it runs `if`s under lane masks but no jumps.

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
        // Only a kernel with barriers can have a switch to rewrite (and only its copy is
        // worth its memory).
        if !f.body.as_deref().is_some_and(contains_barrier) {
            continue;
        }
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
    rewrite(f, Which::WithBarriers)
}

/// The most cases a switch may have for [`rewrite_every_switch`]: a case's `if` holds the
/// code of every label it falls through, so a long switch of fall-throughs would grow with
/// the square of its cases.
pub(crate) const MOST_CASES: usize = 16;

/// Rewrites every switch of `f` (of at most [`MOST_CASES`] cases) as an `if` chain; `None`
/// when one cannot be (`f` is then partly rewritten: rewrite a copy). The work-item
/// vectorizer runs `if`s under lane masks but not jumps to case labels: its row function
/// is made from such a copy (`codegen/simd`), while the scalar row keeps the switch.
pub(crate) fn rewrite_every_switch(f: &mut tir::Function) -> Option<()> {
    rewrite(f, Which::Every)
}

/// Which switches a rewrite takes.
#[derive(Clone, Copy, PartialEq)]
enum Which {
    WithBarriers,
    Every,
}

fn rewrite(f: &mut tir::Function, which: Which) -> Option<()> {
    let Some(mut body) = f.body.take() else {
        return Some(());
    };
    let result = block(f, &mut body, which);
    f.body = Some(body);
    result
}

fn block(f: &mut tir::Function, b: &mut Block, which: Which) -> Option<()> {
    for s in b.iter_mut() {
        match &mut s.kind {
            StmtKind::Block(inner) | StmtKind::Loop { body: inner, .. } => block(f, inner, which)?,
            StmtKind::If {
                then_branch,
                else_branch,
                ..
            } => {
                block(f, then_branch, which)?;
                block(f, else_branch, which)?;
            }
            StmtKind::Switch { body, cases, .. }
                if match which {
                    Which::WithBarriers => contains_barrier(body),
                    Which::Every => cases.len() <= MOST_CASES,
                } =>
            {
                block(f, body, which)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::{BuildOptions, typed_tree};
    use crate::frontend::tir::visit::any_statement;

    fn kernel(source: &str) -> tir::Function {
        let program = typed_tree("s.cl", source, &BuildOptions::default()).expect("it builds");
        program.kernels().next().expect("a kernel").1.clone()
    }

    #[test]
    fn a_switch_with_barriers_becomes_an_if_chain_with_fallthrough() {
        let mut f = kernel(
            "kernel void k(global int *a) {
                switch (a[0]) {
                case 1: a[1] = 1;
                case 2: a[2] = 2; barrier(CLK_LOCAL_MEM_FENCE); break;
                default: a[3] = 3;
                }
            }",
        );
        let locals = f.locals.len();
        assert!(rewrite_switches(&mut f).is_some());
        let body = f.body.as_ref().expect("a body");
        assert!(!any_statement(body, &|s| matches!(
            s,
            StmtKind::Switch { .. }
        )));
        // One new variable holds the value; `case 1` runs its code and falls through to
        // `case 2`'s (3 statements in its `if`), `case 2` its own two, `default` one.
        assert_eq!(f.locals.len(), locals + 1);
        let StmtKind::Block(chain) = &body[0].kind else {
            panic!("the rewritten switch")
        };
        assert!(matches!(chain[0].kind, StmtKind::Decl { .. }));
        let StmtKind::If {
            then_branch,
            else_branch,
            ..
        } = &chain[1].kind
        else {
            panic!("the test of case 1")
        };
        assert_eq!(then_branch.len(), 3);
        let StmtKind::If {
            then_branch,
            else_branch,
            ..
        } = &else_branch[0].kind
        else {
            panic!("the test of case 2")
        };
        assert_eq!((then_branch.len(), else_branch.len()), (2, 1));
    }

    #[test]
    fn every_switch_of_at_most_16_cases_becomes_an_if_chain() {
        let switch_of = |cases: usize| {
            let labels: String = (0..cases)
                .map(|c| format!("case {c}: a[{c}] = 1; "))
                .collect();
            format!("kernel void k(global int *a) {{ switch (a[0]) {{ {labels} }} }}")
        };
        let is_switch = |s: &StmtKind| matches!(s, StmtKind::Switch { .. });
        let mut f = kernel(&switch_of(MOST_CASES));
        assert!(rewrite_every_switch(&mut f).is_some());
        assert!(!any_statement(f.body.as_ref().expect("a body"), &is_switch));
        let mut f = kernel(&switch_of(MOST_CASES + 1));
        assert!(rewrite_every_switch(&mut f).is_some());
        assert!(any_statement(f.body.as_ref().expect("a body"), &is_switch));
        // Without barriers, the barrier pass leaves a switch as it is.
        let mut f = kernel(&switch_of(2));
        assert!(rewrite_switches(&mut f).is_some());
        assert!(any_statement(f.body.as_ref().expect("a body"), &is_switch));
    }

    #[test]
    fn a_break_inside_an_if_of_a_case_keeps_the_switch() {
        let mut f = kernel(
            "kernel void k(global int *a) {
                switch (a[0]) {
                case 1: if (a[1]) break; barrier(CLK_LOCAL_MEM_FENCE); break;
                }
            }",
        );
        assert!(rewrite_switches(&mut f).is_none());
    }
}
