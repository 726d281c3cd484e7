//! How many groups of `WIDTH` items a step runs (`groups.rs`): U = 4, 2 or 1.
//!
//! Two limits, the smaller wins:
//!
//! **Registers** (what makes more chains pay): U copies of the varying values a loop keeps
//! in registers must fit x64's 16 vector registers, less [`RESERVED`] for the constants,
//! masks and temporaries of the body: U = 4 where 4 × live ≤ 12, else U = 2 where 2 ×
//! live ≤ 12, else 1 (more copies than registers spill on every iteration, and the chains
//! gained are lost to the memory traffic). `live` is the largest, over the kernel's loops,
//! of the registers of the varying variables a loop reads, writes or declares (an `int`
//! written only by its declaration counts none: those are the ids and affine functions of
//! them, kept as a base and a stride; so does an induction variable, `induction.rs`), plus one for the mask of a loop of varying
//! condition. A row without loops keeps U = 1: its work is a few memory accesses per item,
//! so more chains in flight gain nothing (16 cores: vector add, triad and the gray row ran
//! as fast with U = 1 as with 4).
//!
//! **Build budget** (what more chains cost): the row function holds U + 1 copies of its
//! step (the U groups', then the step of one group that runs the rest), and Cranelift's
//! compile time grows with it; on many cores a program's build ends when its largest
//! function is compiled. The step of one group is lowered first ([`Step`]), and U is the
//! largest with (U + 1) × cost ≤ [`BUDGET`], where cost is the step's instructions with
//! each one run lane by lane on every step (gathers, scatters, expressions lowered per
//! lane; not the fallbacks of accesses found consecutive at run time) counted
//! [`LANE_WEIGHT`] times: a lane's code is a block of its own, branched to under the mask
//! and merged after it, and U groups run U × 4 of them one after another, so unrolling
//! gains them no overlap. The session-8 rule gave the 210-line program's `maxpool2x2` and
//! `layer_norm` (a gather per iteration) U = 4: 649 → 4,013 and 495 → 2,224 lines of CLIF,
//! most of the program's build; the kernels whose chains pay (SGEMM naive's sum, 2D
//! convolution's, Mandelbrot's recurrence: 2×, 1.3× and 1.4× on 16 cores) are small
//! steps of vector code and keep their U.
//!
//! `CLIFT_VECTORIZE_UNROLL=1|2|4` forces U (tests; kernels whose statements cannot be
//! split by group keep 1).

use std::collections::HashSet;
use std::sync::OnceLock;

use super::lower::{VecLower, locals_in};
use super::narrow::RegForm;
use super::pair::{pair_type, soa_pair_type};
use super::value::soa_type;
use crate::frontend::tir::{LocalId, Stmt, StmtKind, visit};
use crate::frontend::types::Type;

/// Vector registers left for what the rule does not count.
const RESERVED: usize = 4;

/// x64's vector registers.
const REGISTERS: usize = 16;

/// The most instructions (weighted, see the module's doc) the row function's U + 1 copies
/// of its step may hold: 2D convolution's step (167 instructions) keeps U = 4 (835).
const BUDGET: usize = 1024;

/// The weight of an instruction run lane by lane on every step.
const LANE_WEIGHT: usize = 4;

/// `CLIFT_VECTORIZE_UNROLL`, if it is 1, 2 or 4.
fn forced() -> Option<usize> {
    static U: OnceLock<Option<usize>> = OnceLock::new();
    *U.get_or_init(|| {
        std::env::var("CLIFT_VECTORIZE_UNROLL")
            .ok()
            .and_then(|v| v.parse().ok())
            .filter(|u| [1, 2, 4].contains(u))
    })
}

/// What the row function's steps of one group cost (lowered before the others).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Step {
    /// Instructions of the loop of one-group steps.
    pub insts: usize,
    /// Those of them that run lane by lane on every step (`VecLower::lane_work`).
    pub lane_work: usize,
}

impl Step {
    /// The step's weight against [`BUDGET`].
    fn cost(self) -> usize {
        self.insts + (LANE_WEIGHT - 1) * self.lane_work
    }
}

/// The number of groups for the row function of `v` whose body is `body` and whose step
/// of one group is `step`.
pub(super) fn groups(v: &VecLower, body: &[Stmt], step: Step) -> usize {
    if !v.groups_allowed(body) {
        return 1;
    }
    if let Some(u) = forced() {
        return u;
    }
    match live_registers(v, body) {
        Some(live) => rule(live).min(budget(step)),
        None => 1,
    }
}

/// The largest U (4, 2 or 1) whose U + 1 copies of `step` fit [`BUDGET`].
fn budget(step: Step) -> usize {
    [4, 2]
        .into_iter()
        .find(|u| (u + 1) * step.cost() <= BUDGET)
        .unwrap_or(1)
}

/// U for `live` registers per group (see the module's doc).
fn rule(live: usize) -> usize {
    let room = REGISTERS - RESERVED;
    [4, 2].into_iter().find(|u| u * live <= room).unwrap_or(1)
}

/// The largest number of vector registers a loop of `body` keeps per group; `None` when
/// `body` has no loop.
fn live_registers(v: &VecLower, body: &[Stmt]) -> Option<usize> {
    let mut most = None;
    visit::for_each_stmt(body, &mut |s| {
        if let StmtKind::Loop {
            cond,
            step,
            body: inner,
            ..
        } = &s.kind
        {
            let mut ids = Vec::new();
            cond.iter()
                .chain(step.iter())
                .for_each(|e| locals_in(e, &mut ids));
            visit::for_each_stmt_expr(inner, &mut |e| locals_in(e, &mut ids));
            visit::for_each_stmt(inner, &mut |s| {
                if let StmtKind::Decl { local, .. } = &s.kind {
                    ids.push(*local);
                }
            });
            let ids: HashSet<LocalId> = ids.into_iter().collect();
            let mut live: usize = ids
                .iter()
                .filter(|id| !v.uniform.contains(id))
                .map(|id| registers(v, *id))
                .sum();
            if !v.uniform_loop_statement(s) {
                live += 1;
            }
            most = Some(most.map_or(live, |m: usize| m.max(live)));
        }
    });
    most
}

/// The vector registers a varying variable takes per group of `WIDTH` items.
fn registers(v: &VecLower, id: LocalId) -> usize {
    let ty = &v.f.local(id).ty.ty;
    let sequence = v.written_once.contains(&id) || v.inductions.contains_key(&id);
    if sequence && matches!(ty, Type::Scalar(s) if s.is_integer()) {
        return 0;
    }
    if RegForm::of(ty).is_some() {
        1
    } else if let Some((_, n)) = soa_type(ty) {
        n
    } else if pair_type(ty).is_some() {
        2
    } else if let Some((_, n)) = soa_pair_type(ty) {
        2 * n
    } else {
        // Held per lane, in general registers (or memory).
        0
    }
}

#[cfg(test)]
mod tests {
    use super::{Step, budget, rule};

    /// Mandelbrot's loop (zr, zi, cr, ci, i, t and the mask: 7) gets 1 group; a sum and
    /// its index (2) get 4; n-body's 9 registers get 1; 6 get 2.
    #[test]
    fn groups_by_live_registers() {
        assert_eq!(rule(0), 4);
        assert_eq!(rule(2), 4);
        assert_eq!(rule(3), 4);
        assert_eq!(rule(4), 2);
        assert_eq!(rule(6), 2);
        assert_eq!(rule(7), 1);
        assert_eq!(rule(9), 1);
    }

    /// The steps of one group of clift-bench's kernels (instructions, of which run lane by
    /// lane): SGEMM naive's and 2D convolution's keep 4 groups, Mandelbrot's would too
    /// (its registers give it 2); `layer_norm` and `maxpool2x2` gather per lane in their
    /// loops and keep 1, as does the ray tracer's large step.
    #[test]
    fn groups_by_budget() {
        let step = |insts, lane_work| budget(Step { insts, lane_work });
        assert_eq!(step(77, 0), 4);
        assert_eq!(step(167, 0), 4);
        assert_eq!(step(112, 0), 4);
        assert_eq!(step(276, 48), 1);
        assert_eq!(step(289, 40), 1);
        assert_eq!(step(1115, 192), 1);
        // The bounds: 5 × 204 = 1020 fits, 5 × 205 does not; 3 × 341 fits, 3 × 342 not.
        assert_eq!(step(204, 0), 4);
        assert_eq!(step(205, 0), 2);
        assert_eq!(step(341, 0), 2);
        assert_eq!(step(342, 0), 1);
        // A lane's instruction weighs 4: 192 + 3 × 4 = 204.
        assert_eq!(step(192, 4), 4);
        assert_eq!(step(192, 5), 2);
    }
}
