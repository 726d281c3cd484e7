//! Induction variables: a varying `int`/`uint` variable whose every write adds a uniform
//! value to it (`id += get_local_size(0)`, `i++`, `i = i - n`) stays a sequence (`Seq`:
//! a scalar base and a constant stride) across loops, rather than an `i32x4` register.
//!
//! Why: clpeak's bandwidth kernels step `int id` by the local size 16 times per item. As a
//! register, every `A[id]` was an index tested at run time for consecutive lanes (extract,
//! splat, add, compare, test) and every step widened the register to two `i64x2` to add
//! the `size_t` jump; as a sequence, `A[id]` is one vector load (or, where the `int` may
//! wrap, one compare of the base), and the step is one scalar add.
//!
//! The rule keeps every lane's value `base + k * stride`: adding the same value to each
//! lane keeps the stride, so a write must add a uniform value and run in every lane of the
//! step at once: outside branches and loops of varying conditions (whose lanes could
//! part), in a kernel without `return` (whose returned lanes leave the mask).

use std::collections::{HashMap, HashSet};

use super::lower::{VecLower, has_return, writes_in};
use crate::frontend::tir::{self, BinaryOp, Expr, ExprKind, LocalId, PlaceKind, Stmt, StmtKind};
use crate::frontend::types::{Scalar, Type};

/// What the body does to one candidate variable.
#[derive(Clone, Copy)]
struct Candidate {
    /// Every write so far is an induction step.
    steps_only: bool,
    /// Every step is in the variable's own type (no wider operation narrowed back), so a
    /// signed variable keeps its lanes exact (overflow is undefined).
    own_type: bool,
}

impl VecLower<'_, '_> {
    /// The varying `int`/`uint` variables of `body` declared once with a value and then
    /// written only by induction steps, each with whether its steps are in its own type
    /// (see [`Candidate::own_type`]). Variables written by their declaration alone are
    /// `written_once`, not here.
    pub(super) fn induction_variables(&self, body: &[Stmt]) -> HashMap<LocalId, bool> {
        if has_return(body) {
            return HashMap::new();
        }
        let mut found = HashMap::new();
        let mut declared = HashSet::new();
        self.scan(body, false, &mut found, &mut declared);
        found
            .into_iter()
            .filter(|(id, c): &(LocalId, Candidate)| {
                c.steps_only && !self.written_once.contains(id) && declared.contains(id)
            })
            .map(|(id, c)| (id, c.own_type))
            .collect()
    }

    /// Scans `block`, `varying` telling whether a varying branch or loop encloses it.
    fn scan(
        &self,
        block: &[Stmt],
        varying: bool,
        found: &mut HashMap<LocalId, Candidate>,
        declared: &mut HashSet<LocalId>,
    ) {
        for s in block {
            match &s.kind {
                StmtKind::Decl { local, init } => {
                    if let Some(tir::Init::Expr(e)) = init {
                        self.other_writes(e, found);
                    }
                    let int = matches!(
                        self.f.local(*local).ty.ty,
                        Type::Scalar(Scalar::Int | Scalar::UInt)
                    );
                    let once = declared.insert(*local);
                    if int && once && !self.uniform.contains(local) {
                        found.entry(*local).or_insert(Candidate {
                            steps_only: true,
                            own_type: true,
                        });
                    } else {
                        disqualify(*local, found);
                    }
                }
                StmtKind::Expr(e) => self.statement_expr(e, varying, found),
                StmtKind::Block(b) => self.scan(b, varying, found, declared),
                StmtKind::If {
                    cond,
                    then_branch,
                    else_branch,
                } => {
                    self.other_writes(cond, found);
                    let v = varying || !self.is_uniform(cond);
                    self.scan(then_branch, v, found, declared);
                    self.scan(else_branch, v, found, declared);
                }
                StmtKind::Loop {
                    cond, step, body, ..
                } => {
                    if let Some(c) = cond {
                        self.other_writes(c, found);
                    }
                    let v = varying || !self.uniform_loop_statement(s);
                    if let Some(e) = step {
                        self.statement_expr(e, v, found);
                    }
                    self.scan(body, v, found, declared);
                }
                StmtKind::Switch { value, body, .. } => {
                    self.other_writes(value, found);
                    self.scan(body, true, found, declared);
                }
                StmtKind::Return(Some(e)) => self.other_writes(e, found),
                StmtKind::Return(None)
                | StmtKind::Break
                | StmtKind::Continue
                | StmtKind::Label(_)
                | StmtKind::Goto(_) => {}
            }
        }
    }

    /// An expression evaluated as a statement (or a loop's step): an induction step of a
    /// candidate where every lane runs it, else writes that disqualify.
    fn statement_expr(&self, e: &Expr, varying: bool, found: &mut HashMap<LocalId, Candidate>) {
        if let ExprKind::Comma { lhs, rhs } = &e.kind {
            self.statement_expr(lhs, varying, found);
            self.statement_expr(rhs, varying, found);
            return;
        }
        match self.induction_step(e) {
            Some((id, own_type)) if !varying => {
                if let Some(c) = found.get_mut(&id) {
                    c.own_type &= own_type;
                }
            }
            _ => self.other_writes(e, found),
        }
    }

    /// The variable `e` steps and whether in its own type, where `e` is `x += u`,
    /// `x -= u`, `x = x + u`, `x = u + x`, `x = x - u`, `++x`, `x++`, `--x` or `x--` of a
    /// varying `int`/`uint` `x` and a uniform `u`: each lane's `x` moves by the same amount.
    fn induction_step(&self, e: &Expr) -> Option<(LocalId, bool)> {
        let local = |p: &tir::Place| match p.kind {
            PlaceKind::Local(id) if !self.uniform.contains(&id) => Some(id),
            _ => None,
        };
        match &e.kind {
            ExprKind::IncDec { place, .. } => Some((local(place)?, true)),
            ExprKind::Assign {
                place,
                op: Some(BinaryOp::Add | BinaryOp::Sub),
                value,
                op_ty,
            } if self.is_uniform(value) => {
                let op = op_ty
                    .scalar()
                    .filter(|s| s.is_integer() && *s != Scalar::Bool)?;
                let own = op_ty == &place.ty.ty;
                (op.bits() >= 32 || own).then_some(())?;
                Some((local(place)?, own))
            }
            ExprKind::Assign {
                place,
                op: None,
                value,
                ..
            } => {
                let id = local(place)?;
                let ExprKind::Binary { op, lhs, rhs } = &value.kind else {
                    return None;
                };
                let reads_x = |x: &Expr| {
                    matches!(&x.kind, ExprKind::Load(p) if local(p) == Some(id))
                        && x.ty == place.ty.ty
                };
                let steps = match op {
                    BinaryOp::Add => {
                        (reads_x(lhs) && self.is_uniform(rhs))
                            || (reads_x(rhs) && self.is_uniform(lhs))
                    }
                    BinaryOp::Sub => reads_x(lhs) && self.is_uniform(rhs),
                    _ => false,
                };
                (steps && value.ty == place.ty.ty).then_some((id, true))
            }
            _ => None,
        }
    }

    /// Disqualifies every candidate `e` writes.
    fn other_writes(&self, e: &Expr, found: &mut HashMap<LocalId, Candidate>) {
        let mut written = Vec::new();
        writes_in(e, &mut written);
        for id in written {
            disqualify(id, found);
        }
    }
}

fn disqualify(id: LocalId, found: &mut HashMap<LocalId, Candidate>) {
    found
        .entry(id)
        .or_insert(Candidate {
            steps_only: false,
            own_type: false,
        })
        .steps_only = false;
}
