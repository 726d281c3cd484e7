//! Several groups of [`WIDTH`] items per step (instruction-level parallelism): x64
//! Cranelift has no register wider than 128 bits, so 8 or 16 items per step are 2 or 4
//! registers per value. Each register's operations form chains of their own, which the
//! processor overlaps: a loop whose iterations are one long dependent chain per item (a
//! sum, a multiply-add recurrence) runs its U chains side by side, and a straight-line row
//! pays its step's fixed work (the loop test, the parameters, the id arithmetic) once per
//! 16 items instead of once per 4.
//!
//! Rather than widening every value (`VVal`, masks, variables: all built for one register),
//! the step keeps one copy of the per-item state per group ([`Group`]: its varying
//! variables, lane masks and ids) and lowers each varying statement once per group, in
//! turn, with that group's state in place. What is the same for every item stays shared
//! and is lowered once: uniform statements, and the branches and loops of uniform
//! conditions, whose bodies are lowered the same way (so the U groups' statements sit in
//! one loop iteration, next to each other, sharing the loop's uniform state). A statement
//! that writes a uniform variable declared outside it runs once per item in the scalar
//! semantics but would be lowered once per group: such a kernel keeps one group
//! ([`VecLower::groups_allowed`]).
//!
//! Loops of varying conditions ([`VecLower::varying_loop`]) run while any lane
//! of any group is active: one test of all the groups' masks per iteration, each group's
//! body under its own mask.

use cranelift_codegen::ir::{InstBuilder, Value, types};
use cranelift_frontend::Variable;
use std::collections::{HashMap, HashSet};

use super::super::func::Result;
use super::WIDTH;
use super::lower::{Frame, LoopCtx, VarStore, VecLower, writes_in};
use crate::frontend::tir::{Expr, LocalId, Stmt, StmtKind, visit};

/// One group's state while another group is being lowered.
#[derive(Default)]
pub(super) struct Group {
    vars: HashMap<LocalId, VarStore>,
    frames: Vec<Frame>,
    live: Option<Variable>,
    lane_x: Vec<Variable>,
    lane_gx: Vec<Variable>,
    local_x: Option<Variable>,
    global_x: Option<Variable>,
}

impl VecLower<'_, '_> {
    /// How many groups the step has (1 outside a row function of several).
    pub(super) fn group_count(&self) -> usize {
        self.parked.len().max(1)
    }

    /// Starts a step of `u` groups: every group's state is empty, the current one is 0.
    pub(super) fn reset_groups(&mut self, u: usize) {
        self.enter_group(0);
        self.parked = (0..u).map(|_| Group::default()).collect();
        self.vars.clear();
        self.frames.clear();
        self.live = None;
    }

    /// Puts group `g`'s state in place (the current group's is parked).
    pub(super) fn enter_group(&mut self, g: usize) {
        if g == self.group || self.parked.is_empty() {
            return;
        }
        let mut slot = std::mem::take(&mut self.parked[g]);
        std::mem::swap(&mut self.vars, &mut slot.vars);
        std::mem::swap(&mut self.frames, &mut slot.frames);
        std::mem::swap(&mut self.live, &mut slot.live);
        std::mem::swap(&mut self.lane_x, &mut slot.lane_x);
        std::mem::swap(&mut self.lane_gx, &mut slot.lane_gx);
        std::mem::swap(&mut self.l.local_x, &mut slot.local_x);
        std::mem::swap(&mut self.l.global_x, &mut slot.global_x);
        self.parked[self.group] = slot;
        self.group = g;
    }

    /// Gives the current group `g` its ids: local id `x + 4g + k` and global id
    /// `gx + 4g + k` in lane k (group 0 uses the step's counters themselves).
    pub(super) fn group_ids(&mut self, g: usize, x: Variable, gx: Variable) {
        let offset = g as i64 * WIDTH;
        if self.lane_x.is_empty() {
            self.lane_x = (0..WIDTH)
                .map(|_| self.l.b.declare_var(types::I64))
                .collect();
            self.lane_gx = (0..WIDTH)
                .map(|_| self.l.b.declare_var(types::I64))
                .collect();
        }
        let (xv, gv) = (self.l.b.use_var(x), self.l.b.use_var(gx));
        for k in 0..WIDTH as usize {
            let lx = self.l.b.ins().iadd_imm_s(xv, offset + k as i64);
            self.l.b.def_var(self.lane_x[k], lx);
            let lg = self.l.b.ins().iadd_imm_s(gv, offset + k as i64);
            self.l.b.def_var(self.lane_gx[k], lg);
        }
        if g == 0 {
            self.l.local_x = Some(x);
            self.l.global_x = Some(gx);
            return;
        }
        for (counter, value) in [(0, xv), (1, gv)] {
            let var = self.l.b.declare_var(types::I64);
            let v = self.l.b.ins().iadd_imm_s(value, offset);
            self.l.b.def_var(var, v);
            if counter == 0 {
                self.l.local_x = Some(var);
            } else {
                self.l.global_x = Some(var);
            }
        }
    }

    /// Whether `s` is lowered once for all groups: it computes only uniform values, or it
    /// is a block, a branch or a loop of uniform condition (whose statements are sorted
    /// the same way), or a jump every lane takes.
    fn shared(&self, s: &Stmt) -> bool {
        match &s.kind {
            StmtKind::Expr(e) => self.is_uniform(e),
            StmtKind::Decl { local, .. } => self.uniform.contains(local),
            StmtKind::Block(_) => true,
            StmtKind::If { cond, .. } => self.is_uniform(cond),
            StmtKind::Loop { .. } => self.uniform_loop_statement(s),
            StmtKind::Break | StmtKind::Continue => self.in_uniform_loop(),
            StmtKind::Return(_) => self.varying_flow == 0,
            StmtKind::Switch { .. } | StmtKind::Label(_) | StmtKind::Goto(_) => true,
        }
    }

    /// Lowers `s` for every group: once where it is shared (its blocks are split by group
    /// in turn) or a loop (`varying_loop` splits its parts), else once per group.
    pub(super) fn grouped_statement(&mut self, s: &Stmt) -> Result<()> {
        if self.shared(s) || matches!(s.kind, StmtKind::Loop { .. }) {
            return self.statement(s);
        }
        self.each_group(|v, _| v.statement(s))
    }

    /// How many groups the code being lowered runs for: all of them, or the current one
    /// within a statement lowered per group.
    pub(super) fn split_groups(&self) -> usize {
        if self.in_group { 1 } else { self.group_count() }
    }

    /// Whether a lane is set in any group's mask `mask` (of the groups the code being
    /// lowered runs for): an `i8` truth value, `None` where a group has no mask (all its
    /// lanes).
    pub(super) fn any_group(&mut self, mask: impl Fn(&mut Self) -> Option<Value>) -> Option<Value> {
        let groups = self.split_groups();
        let mut acc: Option<Value> = None;
        let mut all = false;
        for g in 0..groups {
            if groups > 1 {
                self.enter_group(g);
            }
            match mask(self) {
                Some(m) => {
                    acc = Some(match acc {
                        Some(a) => self.l.b.ins().bor(a, m),
                        None => m,
                    });
                }
                None => all = true,
            }
        }
        if groups > 1 {
            self.enter_group(0);
        }
        let acc = acc.filter(|_| !all)?;
        Some(self.l.b.ins().vany_true(acc))
    }

    /// Whether every group may be lowered statement by statement: no statement lowered
    /// once per group writes a uniform variable declared outside it (that write would run
    /// once per group, not once per item).
    pub(super) fn groups_allowed(&self, stmts: &[Stmt]) -> bool {
        stmts.iter().all(|s| {
            if self.shared_shape(s) {
                return match &s.kind {
                    StmtKind::Block(b) => self.groups_allowed(b),
                    StmtKind::If {
                        then_branch,
                        else_branch,
                        ..
                    } => self.groups_allowed(then_branch) && self.groups_allowed(else_branch),
                    StmtKind::Loop {
                        cond, step, body, ..
                    } => {
                        // A varying loop's condition and step are lowered per group.
                        let mut written = Vec::new();
                        cond.iter()
                            .chain(step.iter())
                            .for_each(|e| writes_in(e, &mut written));
                        self.groups_allowed(body)
                            && (self.uniform_loop_statement(s)
                                || written.iter().all(|id| !self.uniform.contains(id)))
                    }
                    _ => true,
                };
            }
            let one = std::slice::from_ref(s);
            let mut declared = HashSet::new();
            visit::for_each_stmt(one, &mut |s| {
                if let StmtKind::Decl { local, .. } = &s.kind {
                    declared.insert(*local);
                }
            });
            let mut written = Vec::new();
            visit::for_each_stmt_expr(one, &mut |e| writes_in(e, &mut written));
            written
                .iter()
                .all(|id| !self.uniform.contains(id) || declared.contains(id))
        })
    }

    /// [`Self::shared`] before lowering (outside any varying flow; loops of varying
    /// conditions are lowered group by group in their bodies, like a block).
    fn shared_shape(&self, s: &Stmt) -> bool {
        match &s.kind {
            StmtKind::Loop { .. } => true,
            StmtKind::Break | StmtKind::Continue | StmtKind::Return(_) => true,
            _ => self.shared(s),
        }
    }

    /// A loop that lanes leave on their own, for each group the code being lowered runs
    /// for: it runs while a lane of any group is active, each group's condition, body and
    /// step under its own lanes.
    pub(super) fn varying_loop(
        &mut self,
        (cond, step): (Option<&Expr>, Option<&Expr>),
        body: &[Stmt],
        test_after: bool,
    ) -> Result<()> {
        let mut lanes = Vec::new();
        self.each_group(|v, _| {
            let active = v.l.b.declare_var(types::I32X4);
            let cont = v.l.b.declare_var(types::I32X4);
            let entry = v.mask_or_all();
            v.l.b.def_var(active, entry);
            v.frames.push(Frame::Var(active));
            lanes.push((active, cont));
            Ok(())
        })?;
        let (head, body_b, cont_b, exit) = self.loop_blocks(test_after);
        self.varying_flow += 1;
        let r = (|| -> Result<()> {
            // The head: each group's lanes whose condition holds go on; none left in any
            // group, the loop ends.
            self.l.b.switch_to_block(head);
            if let Some(c) = cond {
                self.each_group(|v, g| {
                    let m = v.cond_mask(c)?;
                    let active = lanes[g].0;
                    let a = v.l.b.use_var(active);
                    let a = v.l.b.ins().band(a, m);
                    v.l.b.def_var(active, a);
                    Ok(())
                })?;
            }
            let any = self.any_group(|v| v.mask()).expect("the loop's masks");
            self.l.b.ins().brif(any, body_b, &[], exit, &[]);
            self.l.b.switch_to_block(body_b);
            self.each_group(|v, g| {
                let none = v.zero(types::I32X4);
                v.l.b.def_var(lanes[g].1, none);
                v.frames.push(Frame::NotVar(lanes[g].1));
                Ok(())
            })?;
            let ctx = match lanes[..] {
                [(active, cont)] => LoopCtx::Varying { active, cont },
                _ => {
                    self.group_loops.push(lanes.clone());
                    LoopCtx::Groups(self.group_loops.len() - 1)
                }
            };
            self.loops.push(ctx);
            let r = self.block(body);
            self.loops.pop();
            self.each_group(|v, _| {
                v.frames.pop();
                Ok(())
            })?;
            r?;
            self.jump(cont_b);
            self.l.b.switch_to_block(cont_b);
            if let Some(step) = step {
                self.each_group(|v, _| v.vexpr(step).map(|_| ()))?;
            }
            self.l.b.ins().jump(head, &[]);
            Ok(())
        })();
        self.each_group(|v, _| {
            v.frames.pop();
            Ok(())
        })?;
        self.varying_flow -= 1;
        r?;
        self.l.b.switch_to_block(exit);
        Ok(())
    }

    /// Runs `f` for each group the code being lowered runs for, in turn, with its state in
    /// place (and marked as one group's, so that the blocks it lowers are not split again);
    /// `f` gets the group's index among them.
    fn each_group(&mut self, mut f: impl FnMut(&mut Self, usize) -> Result<()>) -> Result<()> {
        let groups = self.split_groups();
        if groups == 1 {
            return f(self, 0);
        }
        let r = (0..groups).try_for_each(|g| {
            self.enter_group(g);
            self.in_group = true;
            let r = f(self, g);
            self.in_group = false;
            r
        });
        self.enter_group(0);
        r
    }
}
