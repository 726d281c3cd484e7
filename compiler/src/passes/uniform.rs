//! Uniform/varying analysis: which variables of a kernel hold the same value in every
//! work-item of a work-group at every point where they are used.
//!
//! A variable is uniform when it is a scalar or vector whose address is never taken and
//! every assignment to it stores a uniform value under uniform control flow. Uniform values
//! are constants, uniform variables (the kernel's parameters start uniform), and pure
//! operations and builtins of uniform operands: a builtin's attributes in the signature
//! table say whether it is pure and not `varying` (`sin`, `get_local_size`, `get_group_id`
//! are; `get_local_id`, atomics and whatever touches memory are not, and so is a builtin
//! no attribute describes). Memory reads, user function calls, the local and global
//! ids and everything they flow into are varying. Control flow is uniform under conditions
//! that are uniform, in loops whose condition and step are uniform and that no work-item
//! leaves early on its own (a `break`, `continue` or `return` under a varying condition).
//! Kernels with `goto` are left varying. The analysis is a fixpoint: every candidate starts
//! uniform and is demoted until nothing changes, so it is conservative.
//!
//! The work-group planner of kernels with barriers uses it to keep uniform variables once
//! per group instead of once per work-item, and to run group-level loop steps once.
//!
//! Input: a kernel after inlining and switch rewriting. Output: sets of its variables
//! ([`uniform_locals`], [`shared_locals`]) and whether a statement can run once for the
//! group ([`runs_once`]); the tree is not changed.

use std::collections::HashSet;

use super::analysis::{address_taken, contains_barrier, escapes_loop, place_root};
use crate::frontend::tir::visit::{any_statement, for_each_child, for_each_expr, for_each_stmt};
use crate::frontend::tir::{
    self, Block, Expr, ExprKind, Init, LocalId, Place, PlaceKind, StmtKind,
};
use crate::frontend::types::{AddressSpace, Type};

/// The uniform variables of `f` (a kernel; for other functions, the empty set).
pub(crate) fn uniform_locals(f: &tir::Function) -> HashSet<LocalId> {
    let Some(body) = &f.body else {
        return HashSet::new();
    };
    if f.kernel.is_none() || f.labels > 0 || has_goto(body) {
        return HashSet::new();
    }
    let taken = address_taken(body);
    let uniform: HashSet<LocalId> = (0..f.locals.len() as u32)
        .map(LocalId)
        .filter(|id| {
            !taken.contains(id)
                && matches!(
                    f.local(*id).ty.ty,
                    Type::Scalar(_) | Type::Vector(..) | Type::Pointer(_)
                )
                && f.local(*id).ty.space == AddressSpace::Private
        })
        .collect();
    uniform_fixpoint(body, uniform)
}

/// Demotes candidates until every remaining one is uniform.
fn uniform_fixpoint(body: &Block, mut uniform: HashSet<LocalId>) -> HashSet<LocalId> {
    loop {
        let mut analysis = Analysis {
            uniform: &uniform,
            demoted: HashSet::new(),
        };
        analysis.block(body, false);
        if analysis.demoted.is_empty() {
            return uniform;
        }
        let demoted = analysis.demoted;
        uniform.retain(|id| !demoted.contains(id));
    }
}

/// The uniform variables of a kernel with barriers that the group can keep once: those
/// whose every write is a statement the group runs once ([`runs_once`]) at group level
/// (between barriers, or a group-level loop's step). A write inside a statement that every
/// work-item runs (`x++` next to varying work, or in a loop of varying work) would be
/// applied once per item, so such a variable stays per item.
pub(crate) fn shared_locals(f: &tir::Function) -> HashSet<LocalId> {
    let Some(body) = &f.body else {
        return HashSet::new();
    };
    let mut shared = uniform_locals(f);
    loop {
        let mut per_item = HashSet::new();
        writes_outside_once(body, &shared, true, 0, &mut per_item);
        if per_item.iter().all(|id| !shared.contains(id)) {
            return shared;
        }
        shared.retain(|id| !per_item.contains(id));
        // Values computed from a demoted variable are no longer uniform.
        shared = uniform_fixpoint(body, shared);
    }
}

/// Whether the group can run `s` once for all its work-items: it only assigns or declares
/// variables of `shared` from uniform values (no memory, no calls, no control flow).
pub(crate) fn runs_once(s: &tir::Stmt, shared: &HashSet<LocalId>) -> bool {
    let a = Analysis {
        uniform: shared,
        demoted: HashSet::new(),
    };
    match &s.kind {
        StmtKind::Decl { local, init } => {
            shared.contains(local)
                && match init {
                    None => true,
                    Some(Init::Expr(e)) => a.expr(e),
                    Some(Init::Aggregate(items)) => items.iter().all(|(_, e)| a.expr(e)),
                }
        }
        StmtKind::Expr(e) => a.uniform_step(e) && writes_shared_only(e, shared),
        _ => false,
    }
}

/// Whether every write in `e` is to a variable of `shared`.
fn writes_shared_only(e: &Expr, shared: &HashSet<LocalId>) -> bool {
    match &e.kind {
        ExprKind::Assign { place, value, .. } => {
            matches!(place.kind, PlaceKind::Local(id) if shared.contains(&id))
                && writes_shared_only(value, shared)
        }
        ExprKind::IncDec { place, .. } => {
            matches!(place.kind, PlaceKind::Local(id) if shared.contains(&id))
        }
        ExprKind::Comma { lhs, rhs } => {
            writes_shared_only(lhs, shared) && writes_shared_only(rhs, shared)
        }
        _ => true,
    }
}

/// Records the variables written by statements that every work-item runs (not once).
/// `group_level`: the statements are planned at group level (the splitter's view: those
/// with barriers, and a group-level loop's `break`/`continue`), in `loops` group loops.
fn writes_outside_once(
    block: &Block,
    shared: &HashSet<LocalId>,
    group_level: bool,
    loops: u32,
    out: &mut HashSet<LocalId>,
) {
    for s in block {
        let one = std::slice::from_ref(s);
        let at_group = group_level && (contains_barrier(one) || (loops > 0 && escapes_loop(one)));
        if !at_group {
            if !(group_level && runs_once(s, shared)) {
                all_writes(one, out);
            }
            continue;
        }
        match &s.kind {
            StmtKind::Block(b) => writes_outside_once(b, shared, true, loops, out),
            StmtKind::If {
                then_branch,
                else_branch,
                ..
            } => {
                writes_outside_once(then_branch, shared, true, loops, out);
                writes_outside_once(else_branch, shared, true, loops, out);
            }
            StmtKind::Loop { step, body, .. } => {
                if let Some(e) = step {
                    let stmt = tir::Stmt {
                        kind: StmtKind::Expr(e.clone()),
                        span: s.span,
                    };
                    if !runs_once(&stmt, shared) {
                        all_writes(std::slice::from_ref(&stmt), out);
                    }
                }
                writes_outside_once(body, shared, true, loops + 1, out);
            }
            _ => all_writes(one, out),
        }
    }
}

/// Every variable a block writes or declares.
fn all_writes(block: &[tir::Stmt], out: &mut HashSet<LocalId>) {
    for_each_stmt(block, &mut |s| {
        if let StmtKind::Decl { local, .. } = &s.kind {
            out.insert(*local);
        }
    });
    for_each_expr(block, &mut |e| {
        if let ExprKind::Assign { place: p, .. } | ExprKind::IncDec { place: p, .. } = &e.kind
            && let Some(id) = place_root(p)
        {
            out.insert(id);
        }
    });
}

fn has_goto(block: &Block) -> bool {
    any_statement(block, &|s| {
        matches!(s, StmtKind::Goto(_) | StmtKind::Label(_))
    })
}

struct Analysis<'a> {
    uniform: &'a HashSet<LocalId>,
    demoted: HashSet<LocalId>,
}

impl Analysis<'_> {
    /// Whether an expression has the same value in every work-item.
    fn expr(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Const(_) | ExprKind::StringLiteral(_) => true,
            // Semantic analysis leaves none; were one left, nothing about it is known.
            ExprKind::StmtExpr { .. } => false,
            ExprKind::Load(p) => self.place(p),
            // A builtin is uniform only when its attributes say so (pure, not `varying`:
            // `get_local_size`, `sin`, ...) and its arguments are; anything that reads or
            // writes memory, or that no attribute describes, is varying.
            ExprKind::Builtin { id, args } => {
                id.attributes().uniform_with_uniform_arguments()
                    && args.iter().all(|a| self.expr(a))
            }
            // Side effects, memory and calls: varying.
            ExprKind::Assign { .. }
            | ExprKind::IncDec { .. }
            | ExprKind::AddressOf(_)
            | ExprKind::Call { .. }
            | ExprKind::Comma { .. } => false,
            // Pure operations: uniform when every operand is.
            ExprKind::Unary { .. }
            | ExprKind::Convert { .. }
            | ExprKind::Swizzle { .. }
            | ExprKind::Binary { .. }
            | ExprKind::Logical { .. }
            | ExprKind::PointerDiff { .. }
            | ExprKind::PointerOffset { .. }
            | ExprKind::Conditional { .. }
            | ExprKind::Select { .. }
            | ExprKind::VectorLiteral(_) => {
                let mut all = true;
                for_each_child(e, &mut |c| all = all && self.expr(c));
                all
            }
        }
    }

    /// Whether reading a place gives a uniform value: only uniform variables (and their
    /// lanes) do; memory does not.
    fn place(&self, p: &Place) -> bool {
        match &p.kind {
            PlaceKind::Local(id) => self.uniform.contains(id),
            PlaceKind::Lanes { vector, .. } => self.place(vector),
            _ => false,
        }
    }

    /// The variable a write to `p` changes, if it is a candidate.
    fn written(&self, p: &Place) -> Option<LocalId> {
        match &p.kind {
            PlaceKind::Local(id) => Some(*id),
            PlaceKind::Lanes { vector, .. } | PlaceKind::Field { record: vector, .. } => {
                self.written(vector)
            }
            PlaceKind::Element { array, .. } => self.written(array),
            _ => None,
        }
    }

    fn write(&mut self, p: &Place, uniform_value: bool, varying_flow: bool) {
        if let Some(id) = self.written(p)
            && (!uniform_value || varying_flow)
            && self.uniform.contains(&id)
        {
            self.demoted.insert(id);
        }
    }

    /// Visits the writes inside an expression (assignments nested in expressions).
    fn effects(&mut self, e: &Expr, varying_flow: bool) {
        match &e.kind {
            ExprKind::Assign {
                place, op, value, ..
            } => {
                let keeps = op.is_none() || self.place(place);
                let uniform = keeps && self.expr(value);
                self.write(place, uniform, varying_flow);
            }
            ExprKind::IncDec { place, .. } => {
                let uniform = self.place(place);
                self.write(place, uniform, varying_flow);
            }
            // `&x` lets anything write x: never a candidate (address_taken), nothing to do.
            _ => {}
        }
        for_each_child(e, &mut |c| self.effects(c, varying_flow));
    }

    fn block(&mut self, block: &Block, varying_flow: bool) {
        for s in block {
            match &s.kind {
                StmtKind::Expr(e) => self.effects(e, varying_flow),
                StmtKind::Return(e) => {
                    if let Some(e) = e {
                        self.effects(e, varying_flow);
                    }
                }
                StmtKind::Decl { local, init } => {
                    let uniform = match init {
                        None => true,
                        Some(Init::Expr(e)) => {
                            self.effects(e, varying_flow);
                            self.expr(e)
                        }
                        Some(Init::Aggregate(items)) => items.iter().all(|(_, e)| self.expr(e)),
                    };
                    if (!uniform || varying_flow) && self.uniform.contains(local) {
                        self.demoted.insert(*local);
                    }
                }
                StmtKind::Block(b) => self.block(b, varying_flow),
                StmtKind::If {
                    cond,
                    then_branch,
                    else_branch,
                } => {
                    self.effects(cond, varying_flow);
                    let inner = varying_flow || !self.expr(cond);
                    self.block(then_branch, inner);
                    self.block(else_branch, inner);
                }
                StmtKind::Loop {
                    cond, step, body, ..
                } => {
                    for e in cond.iter().chain(step.iter()) {
                        self.effects(e, varying_flow);
                    }
                    let inner = varying_flow
                        || !cond.as_ref().is_none_or(|c| self.expr(c))
                        || !step.as_ref().is_none_or(|e| self.uniform_step(e))
                        || self.leaves_on_its_own(body, false);
                    self.block(body, inner);
                    if let Some(e) = step {
                        self.effects(e, inner);
                    }
                }
                StmtKind::Switch { value, body, .. } => {
                    self.effects(value, varying_flow);
                    let inner = varying_flow || !self.expr(value);
                    self.block(body, inner);
                }
                StmtKind::Label(_) | StmtKind::Goto(_) | StmtKind::Break | StmtKind::Continue => {}
            }
        }
    }

    /// A loop step keeps the loop uniform when what it writes it writes uniformly
    /// (`i++` of a uniform `i`, `s /= 2`).
    fn uniform_step(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Assign {
                place, op, value, ..
            } => (op.is_none() || self.place(place)) && self.expr(value) && self.place(place),
            ExprKind::IncDec { place, .. } => self.place(place),
            ExprKind::Comma { lhs, rhs } => self.uniform_step(lhs) && self.uniform_step(rhs),
            _ => self.expr(e),
        }
    }

    /// Whether some work-items may leave (or skip to the next iteration of) the loop whose
    /// body this is while others stay: a `break`, `continue` or `return` under a varying
    /// condition (inner loops' own `break`s and `continue`s excepted).
    fn leaves_on_its_own(&self, block: &Block, under_varying: bool) -> bool {
        block.iter().any(|s| match &s.kind {
            StmtKind::Break | StmtKind::Continue | StmtKind::Return(_) => under_varying,
            StmtKind::Block(b) => self.leaves_on_its_own(b, under_varying),
            StmtKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                let v = under_varying || !self.expr(cond);
                self.leaves_on_its_own(then_branch, v) || self.leaves_on_its_own(else_branch, v)
            }
            StmtKind::Switch { value, body, .. } => {
                self.leaves_on_its_own(body, under_varying || !self.expr(value))
            }
            StmtKind::Loop { body, .. } => returns_under(body, under_varying),
            _ => false,
        })
    }
}

/// Whether a block returns (from the kernel) where some work-items may and others not.
fn returns_under(block: &Block, under_varying: bool) -> bool {
    block.iter().any(|s| match &s.kind {
        StmtKind::Return(_) => under_varying,
        StmtKind::Block(b) | StmtKind::Loop { body: b, .. } | StmtKind::Switch { body: b, .. } => {
            // Conservative: inside an inner loop, any return may be varying.
            returns_under(b, true)
        }
        StmtKind::If {
            then_branch,
            else_branch,
            ..
        } => returns_under(then_branch, true) || returns_under(else_branch, true),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::BuildOptions;

    /// The names of the uniform variables of the first kernel of `source`.
    fn uniform_names(source: &str) -> Vec<String> {
        let program = crate::build::typed_tree("u.cl", source, &BuildOptions::default())
            .expect("the source builds");
        let (_, f) = program.kernels().next().expect("a kernel");
        let mut names: Vec<String> = uniform_locals(f)
            .into_iter()
            .map(|id| f.local(id).name.to_string())
            .filter(|n| !n.is_empty())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn ids_memory_and_varying_control_flow_are_varying() {
        let names = uniform_names(
            "kernel void k(global int *a, int n, local int *t) {
                int lid = get_local_id(0);
                int size = get_local_size(0);
                int mid = size / 2 + n;
                int loaded = a[0];
                int chosen = 0;
                if (lid < 4) chosen = 1;
                int steps = 0;
                for (int s = size / 2; s > 0; s /= 2) {
                    steps++;
                    barrier(CLK_LOCAL_MEM_FENCE);
                }
                int early = 0;
                for (int i = 0; i < n; i++) {
                    if (a[i] == lid) break;
                    early++;
                }
                float4 v = (float4)(mid);
                a[lid] = mid + chosen + loaded + steps + early + (int)v.x;
            }",
        );
        assert_eq!(names, ["a", "mid", "n", "s", "size", "steps", "t", "v"]);
    }

    #[test]
    fn only_variables_written_once_per_group_are_shared() {
        let program = crate::build::typed_tree(
            "u.cl",
            "kernel void k(global float *a, local float *t, int n) {
                int lid = get_local_id(0);
                int rounds = 0;
                for (int s = get_local_size(0) / 2; s > 0; s /= 2) {
                    if (lid < s) t[lid] += t[lid + s];
                    barrier(CLK_LOCAL_MEM_FENCE);
                    rounds++;
                }
                float acc = 0.0f;
                int count = 0;
                for (int k = 0; k < n; k++) { acc += t[k]; count++; }
                barrier(CLK_LOCAL_MEM_FENCE);
                a[lid] = acc + rounds + count;
            }",
            &BuildOptions::default(),
        )
        .expect("the source builds");
        let (_, f) = program.kernels().next().expect("a kernel");
        let mut names: Vec<String> = shared_locals(f)
            .into_iter()
            .map(|id| f.local(id).name.to_string())
            .collect();
        names.sort();
        // `k` and `count` are uniform in value but written in the loop every item runs.
        assert_eq!(names, ["a", "n", "rounds", "s", "t"]);
    }
}
