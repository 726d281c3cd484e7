//! Moving parts of expressions out into statements before them: the shape shared by
//! semantic analysis, which takes GNU statement expressions out of expressions
//! (`sema::stmt_expr`), and the hoisting pass, which takes calls of synchronizing functions
//! out so that they can be inlined (`passes::hoist`).
//!
//! What is moved out of a statement's expressions goes into statements before it (the
//! statement becomes a block of them and itself). A loop's condition is evaluated at
//! every iteration, so it cannot move before the loop: a `while`/`for` condition that holds
//! something to move out is tested at the top of the body instead (`if (!cond) break;`),
//! and a `for` step or a `do`-`while` condition runs after the body, which is wrapped in
//! `do { ... } while (0)` so that `continue` still reaches it
//! ([`build::tail_after_body`]). What each lifting moves out, and how (as control flow
//! where the expression is evaluated only sometimes), is its [`Lift::expr`].

use super::build::{self, break_unless};
use super::{Block, Expr, Init, LocalId, Stmt, StmtKind};
use crate::frontend::source::Span;
use crate::frontend::types::Type;

/// One lifting: what it moves out of expressions, and how.
pub trait Lift {
    /// Whether `e` holds something to move out.
    fn holds(&self, e: &Expr) -> bool;

    /// A new variable of the function being rewritten.
    fn new_local(&mut self, ty: &Type, span: Span) -> LocalId;

    /// Moves what `e` holds (where it is evaluated every time `e` is) into statements
    /// pushed on `before`.
    fn expr(&mut self, e: &mut Expr, before: &mut Vec<Stmt>);

    /// [`Lift::expr`] for the whole expression of an expression statement or of a
    /// declaration's initializer.
    fn whole(&mut self, e: &mut Expr, before: &mut Vec<Stmt>) {
        self.expr(e, before);
    }

    /// Rewrites a statement of a form this lifting treats on its own into another
    /// statement; true when it did (the new statement is then lifted).
    fn reshape(&mut self, _s: &mut Stmt) -> bool {
        false
    }
}

/// Lifts every statement of `block`.
pub fn lift_block<L: Lift + ?Sized>(l: &mut L, block: &mut Block) {
    for s in block.iter_mut() {
        lift_statement(l, s);
    }
}

/// Lifts a statement and those nested in it.
pub fn lift_statement<L: Lift + ?Sized>(l: &mut L, s: &mut Stmt) {
    if l.reshape(s) {
        return lift_statement(l, s);
    }
    let mut before = Vec::new();
    match &mut s.kind {
        StmtKind::Block(b) => lift_block(l, b),
        StmtKind::If {
            cond,
            then_branch,
            else_branch,
        } => {
            lift_block(l, then_branch);
            lift_block(l, else_branch);
            l.expr(cond, &mut before);
        }
        StmtKind::Loop {
            cond,
            step,
            body,
            test_after,
            ..
        } if step.as_ref().is_some_and(|e| l.holds(e))
            || (*test_after && cond.as_ref().is_some_and(|e| l.holds(e))) =>
        {
            let (step, late_cond) = (step.take(), cond.take_if(|_| *test_after));
            *test_after = false;
            let flag = l.new_local(&Type::int(), s.span);
            *body = build::tail_after_body(std::mem::take(body), step, late_cond, flag, s.span);
            // Once more: a `while`/`for` condition may hold one too.
            return lift_statement(l, s);
        }
        StmtKind::Loop {
            cond,
            body,
            test_after: false,
            ..
        } => {
            if let Some(c) = cond.take_if(|c| l.holds(c)) {
                let span = c.span;
                body.insert(0, break_unless(c, span));
            }
            lift_block(l, body);
        }
        StmtKind::Loop { body, .. } => lift_block(l, body),
        StmtKind::Switch { value, body, .. } => {
            lift_block(l, body);
            l.expr(value, &mut before);
        }
        StmtKind::Expr(e)
        | StmtKind::Decl {
            init: Some(Init::Expr(e)),
            ..
        } => l.whole(e, &mut before),
        StmtKind::Decl {
            init: Some(Init::Aggregate(items)),
            ..
        } => items.iter_mut().for_each(|(_, e)| l.expr(e, &mut before)),
        StmtKind::Return(Some(e)) => l.expr(e, &mut before),
        // No expression: nothing to lift.
        _ => {}
    }
    if !before.is_empty() {
        let span = s.span;
        let rest = std::mem::replace(&mut s.kind, StmtKind::Break);
        before.push(Stmt { kind: rest, span });
        s.kind = StmtKind::Block(before);
    }
}
