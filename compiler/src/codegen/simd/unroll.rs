//! How many groups of `WIDTH` items a step runs (`groups.rs`): U = 4, 2 or 1.
//!
//! The rule: U copies of the varying values a loop keeps in registers must fit x64's 16
//! vector registers, less [`RESERVED`] for the constants, masks and temporaries of the
//! body: U = 4 where 4 × live ≤ 12, else U = 2 where 2 × live ≤ 12, else 1 (more copies
//! than registers spill on every iteration, and the chains gained are lost to the memory
//! traffic). `live` is the largest, over the kernel's loops, of the registers of the
//! varying variables a loop reads, writes or declares (an `int` written only by its
//! declaration counts none: those are the ids and affine functions of them, kept as a
//! base and a stride), plus one for the mask of a loop of varying condition. A row
//! without loops keeps U = 1: its work is a few memory accesses per item, so more
//! chains in flight gain nothing (16 cores: vector add, triad and the gray row ran as
//! fast with U = 1 as with 4), while the row function would hold five copies of its body
//! and cost that much more build time.
//!
//! Bodies of more than [`MAX_EXPRESSIONS`] expressions keep U = 1: the row function
//! holds U + 1 copies of the body (the remainder's step of 4 items is one), and a large
//! body is mostly compile time for little gain.
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

/// The largest body (in expressions) that is split into groups.
const MAX_EXPRESSIONS: usize = 160;

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

/// The number of groups for the row function of `v` whose body is `body`.
pub(super) fn groups(v: &VecLower, body: &[Stmt]) -> usize {
    if !v.groups_allowed(body) {
        return 1;
    }
    if let Some(u) = forced() {
        return u;
    }
    let mut expressions = 0;
    visit::for_each_expr(body, &mut |_| expressions += 1);
    if expressions > MAX_EXPRESSIONS {
        return 1;
    }
    match live_registers(v, body) {
        Some(live) => rule(live),
        None => 1,
    }
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
    if v.written_once.contains(&id) && matches!(ty, Type::Scalar(s) if s.is_integer()) {
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
    use super::rule;

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
}
