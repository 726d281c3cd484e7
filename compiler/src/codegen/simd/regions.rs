//! Variables uniform inside a divergent region: a variable declared inside a varying
//! branch or loop, and written there only with uniform values under flow that is uniform
//! relative to that region (a loop counter `for (int s = 0; s < count; s++)` inside
//! `if (hit >= 0)`), holds one value for all the region's active lanes. The group-level
//! analysis (`codegen/uniform.rs`) calls it varying, since work-items that skip the region
//! never write it; the step's lanes that skip it never read it either (it is out of scope).
//!
//! The fixpoint starts from every candidate and demotes: a write of a varying value, or a
//! write under a varying condition the declaration is not under. Both only grow as the
//! uniform set shrinks, so the result is the largest consistent set.

use std::collections::{HashMap, HashSet};

use super::lower::VecLower;
use crate::frontend::tir::visit::for_each_child;
use crate::frontend::tir::{self, Expr, ExprKind, LocalId, Stmt, StmtKind};
use crate::frontend::types::{AddressSpace, Type};
use crate::passes::analysis::{address_taken, place_root};

impl VecLower<'_, '_> {
    /// Adds to `self.uniform` the variables uniform inside the divergent region that
    /// declares them.
    pub(super) fn add_region_uniforms(&mut self, body: &[Stmt]) {
        let taken = address_taken(body);
        // Only variables `body` declares: one declared before it (in an earlier region of a
        // kernel with barriers) may hold a different value in each work-item.
        let mut declared = HashSet::new();
        crate::frontend::tir::visit::for_each_stmt(body, &mut |s| {
            if let StmtKind::Decl { local, .. } = &s.kind {
                declared.insert(*local);
            }
        });
        let mut candidates: HashSet<LocalId> = (self.f.params..self.f.locals.len() as u32)
            .map(LocalId)
            .filter(|id| {
                let local = self.f.local(*id);
                declared.contains(id)
                    && !self.uniform.contains(id)
                    && !taken.contains(id)
                    && local.ty.space == AddressSpace::Private
                    && matches!(
                        local.ty.ty,
                        Type::Scalar(_) | Type::Vector(..) | Type::Pointer(_)
                    )
            })
            .collect();
        let base = self.uniform.clone();
        loop {
            self.uniform = base.union(&candidates).copied().collect();
            let mut walk = Walk {
                decl_depth: HashMap::new(),
                demoted: HashSet::new(),
                candidates: &candidates,
            };
            walk.block(self, body, 0);
            if walk.demoted.is_empty() {
                return;
            }
            let demoted = walk.demoted;
            candidates.retain(|id| !demoted.contains(id));
        }
    }
}

struct Walk<'c> {
    /// The divergence depth of each candidate's declaration.
    decl_depth: HashMap<LocalId, u32>,
    demoted: HashSet<LocalId>,
    candidates: &'c HashSet<LocalId>,
}

impl Walk<'_> {
    fn block(&mut self, v: &VecLower, block: &[Stmt], depth: u32) {
        for s in block {
            self.statement(v, s, depth);
        }
    }

    fn statement(&mut self, v: &VecLower, s: &Stmt, depth: u32) {
        match &s.kind {
            StmtKind::Decl { local, init } => {
                if self.candidates.contains(local) {
                    self.decl_depth.insert(*local, depth);
                    let uniform = match init {
                        None => true,
                        Some(tir::Init::Expr(e)) => v.is_uniform(e),
                        Some(tir::Init::Aggregate(items)) => {
                            items.iter().all(|(_, e)| v.is_uniform(e))
                        }
                    };
                    if !uniform {
                        self.demoted.insert(*local);
                    }
                }
                if let Some(tir::Init::Expr(e)) = init {
                    self.expr(v, e, depth);
                }
            }
            StmtKind::Expr(e) | StmtKind::Return(Some(e)) => self.expr(v, e, depth),
            StmtKind::Block(b) => self.block(v, b, depth),
            StmtKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                self.expr(v, cond, depth);
                let inner = if v.is_uniform(cond) { depth } else { depth + 1 };
                self.block(v, then_branch, inner);
                self.block(v, else_branch, inner);
            }
            StmtKind::Loop {
                cond, step, body, ..
            } => {
                let uniform = cond.as_ref().is_none_or(|c| v.is_uniform(c))
                    && step.as_ref().is_none_or(|e| v.is_uniform(e))
                    && !v.leaves_under_varying(body, false);
                let inner = if uniform { depth } else { depth + 1 };
                for e in cond.iter().chain(step.iter()) {
                    self.expr(v, e, inner);
                }
                self.block(v, body, inner);
            }
            StmtKind::Switch { value, body, .. } => {
                self.expr(v, value, depth + 1);
                self.block(v, body, depth + 1);
            }
            _ => {}
        }
    }

    /// Demotes the candidates `e` writes with a varying value or at another depth than
    /// their declaration's.
    fn expr(&mut self, v: &VecLower, e: &Expr, depth: u32) {
        if let ExprKind::Assign { place: p, .. } | ExprKind::IncDec { place: p, .. } = &e.kind
            && let Some(id) = place_root(p)
            && self.candidates.contains(&id)
        {
            let whole = matches!(p.kind, tir::PlaceKind::Local(_));
            if !whole || self.decl_depth.get(&id) != Some(&depth) || !v.is_uniform(e) {
                self.demoted.insert(id);
            }
        }
        for_each_child(e, &mut |c| self.expr(v, c, depth));
    }
}
