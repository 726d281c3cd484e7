//! Questions about a function's typed tree that several passes and the lowering ask: which
//! variables it names or takes the address of, which builtins it calls, where it
//! synchronizes the work-group, whether a `break` leaves a loop. Each is a walk of
//! [`visit`](crate::frontend::tir::visit); none changes the tree.

use std::collections::HashSet;

use crate::frontend::tir::BuiltinId;
use crate::frontend::tir::visit::{for_each_expr, for_each_stmt};
use crate::frontend::tir::{Expr, ExprKind, Function, LocalId, Place, PlaceKind, Stmt, StmtKind};
use crate::frontend::types::AddressSpace;

/// The root variable of a place, if any.
pub(crate) fn place_root(p: &Place) -> Option<LocalId> {
    match &p.kind {
        PlaceKind::Local(id) | PlaceKind::CompoundLiteral { local: id, .. } => Some(*id),
        PlaceKind::Element { array, .. } => place_root(array),
        PlaceKind::Field { record, .. } => place_root(record),
        PlaceKind::Lanes { vector, .. } => place_root(vector),
        _ => None,
    }
}

/// Variables whose address is taken (they must live in memory).
pub(crate) fn address_taken(body: &[Stmt]) -> HashSet<LocalId> {
    let mut set = HashSet::new();
    for_each_expr(body, &mut |e| {
        if let ExprKind::AddressOf(p) = &e.kind
            && let Some(id) = place_root(p)
        {
            set.insert(id);
        }
    });
    set
}

/// Variables a block names: declared, read, written or addressed.
pub(crate) fn locals_used(body: &[Stmt]) -> HashSet<LocalId> {
    let mut set = HashSet::new();
    for_each_expr(body, &mut |e| {
        if let ExprKind::Load(p)
        | ExprKind::AddressOf(p)
        | ExprKind::IncDec { place: p, .. }
        | ExprKind::Assign { place: p, .. } = &e.kind
            && let Some(id) = place_root(p)
        {
            set.insert(id);
        }
    });
    for_each_stmt(body, &mut |s| {
        if let StmtKind::Decl { local, .. } = &s.kind {
            set.insert(*local);
        }
    });
    set
}

/// Whether running the function's body can change nothing that another work-item, a later
/// launch or the host could see, and surely ends: no loop, `switch` or `goto`; no write but
/// to its private variables; no read of memory (a read outside its object would fault); no
/// call but to builtins without effect (`pure`: the work-item queries and the math
/// functions). Running such a body for every work-item can be skipped whole, as an
/// optimizing compiler removes it (an empty kernel, or one that only computes a value it
/// never stores).
pub(crate) fn has_no_effect(f: &Function) -> bool {
    let Some(body) = &f.body else { return false };
    let mut no_effect = true;
    for_each_stmt(body, &mut |s| {
        if matches!(
            s.kind,
            StmtKind::Loop { .. }
                | StmtKind::Switch { .. }
                | StmtKind::Label(_)
                | StmtKind::Goto(_)
        ) {
            no_effect = false;
        }
    });
    let private_variable =
        |p: &Place| place_root(p).is_some_and(|id| f.local(id).ty.space == AddressSpace::Private);
    for_each_expr(body, &mut |e| {
        no_effect &= match &e.kind {
            ExprKind::Load(p)
            | ExprKind::Assign { place: p, .. }
            | ExprKind::IncDec { place: p, .. } => private_variable(p),
            ExprKind::Builtin { id, .. } => id.attributes().pure,
            ExprKind::Call { .. }
            | ExprKind::AddressOf(_)
            | ExprKind::StmtExpr { .. }
            | ExprKind::StringLiteral(_) => false,
            _ => true,
        };
    });
    no_effect
}

/// Calls `visit` with every builtin the block calls.
pub(crate) fn visit_builtins(block: &[Stmt], visit: &mut dyn FnMut(BuiltinId)) {
    for_each_expr(block, &mut |e| {
        if let ExprKind::Builtin { id, .. } = &e.kind {
            visit(*id);
        }
    });
}

/// Whether a builtin is a work-group synchronization point (its `group` attribute):
/// `barrier`, and `wait_group_events`, which "must be encountered by all work-items in a
/// work-group" and after which every item sees the whole async copy (each item performs
/// the copy before it, see `async_copy`).
pub(crate) fn is_group_sync(id: BuiltinId) -> bool {
    id.attributes().group_barrier
}

/// Whether the statements reach a synchronization point ([`is_group_sync`]) directly
/// (functions containing one are rejected).
pub(crate) fn contains_barrier(block: &[Stmt]) -> bool {
    let mut found = false;
    visit_builtins(block, &mut |id| found |= is_group_sync(id));
    found
}

/// Whether a statement is a synchronization point of its own (`barrier(...);`).
pub(crate) fn is_barrier(s: &Stmt) -> bool {
    matches!(&s.kind, StmtKind::Expr(Expr { kind: ExprKind::Builtin { id, .. }, .. }) if is_group_sync(*id))
}

/// Whether `block` has a `break` or `continue` that leaves it for an enclosing loop (one
/// not inside a loop or, for `break`, a `switch` of its own).
pub(crate) fn escapes_loop(block: &[Stmt]) -> bool {
    block.iter().any(|s| match &s.kind {
        StmtKind::Break | StmtKind::Continue => true,
        StmtKind::Block(b) => escapes_loop(b),
        StmtKind::If {
            then_branch,
            else_branch,
            ..
        } => escapes_loop(then_branch) || escapes_loop(else_branch),
        StmtKind::Switch { body, .. } => continues_loop(body),
        _ => false,
    })
}

/// Whether a `switch` body has a `continue` for the enclosing loop.
fn continues_loop(block: &[Stmt]) -> bool {
    block.iter().any(|s| match &s.kind {
        StmtKind::Continue => true,
        StmtKind::Block(b) | StmtKind::Switch { body: b, .. } => continues_loop(b),
        StmtKind::If {
            then_branch,
            else_branch,
            ..
        } => continues_loop(then_branch) || continues_loop(else_branch),
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::{BuildOptions, typed_tree};

    /// The first kernel of `source` and the names of a set of its variables.
    fn names(source: &str, set: impl Fn(&[Stmt]) -> HashSet<LocalId>) -> Vec<String> {
        let program = typed_tree("a.cl", source, &BuildOptions::default()).expect("it builds");
        let (_, f) = program.kernels().next().expect("a kernel");
        let mut names: Vec<String> = set(f.body.as_ref().expect("a body"))
            .into_iter()
            .map(|id| f.local(id).name.to_string())
            .collect();
        names.sort();
        names
    }

    const SOURCE: &str = "kernel void k(global int *out, int n) {
        int a = 1, b = 2, c[4], unused;
        int *p = &a;
        c[n & 3] = *p + b;
        { int inner = c[0]; out[0] = inner + (&c[1])[0]; }
    }";

    #[test]
    fn address_taken_names_the_roots_of_addressed_places() {
        assert_eq!(names(SOURCE, address_taken), ["a", "c"]);
    }

    #[test]
    fn locals_used_names_declared_read_and_written_variables() {
        assert_eq!(
            names(SOURCE, locals_used),
            ["a", "b", "c", "inner", "n", "out", "p", "unused"]
        );
        assert_eq!(
            names(
                "kernel void k(global int *out, int n) { out[0] = 1; }",
                locals_used
            ),
            ["out"]
        );
    }

    #[test]
    fn barriers_and_loop_exits_are_found_where_they_apply() {
        let program = typed_tree(
            "a.cl",
            "kernel void k(global int *a) {
                for (int i = 0; i < 4; i++) { switch (i) { case 1: break; case 2: continue; } }
                if (a[0]) { barrier(CLK_LOCAL_MEM_FENCE); }
                while (1) { break; }
            }",
            &BuildOptions::default(),
        )
        .expect("it builds");
        let (_, f) = program.kernels().next().expect("a kernel");
        let body = f.body.as_ref().expect("a body");
        let StmtKind::Block(for_block) = &body[0].kind else {
            panic!("the for loop's block")
        };
        let StmtKind::Loop { body: for_body, .. } = &for_block[1].kind else {
            panic!("the for loop")
        };
        // The switch's `continue` leaves the loop's body; its `break` does not.
        assert!(escapes_loop(for_body));
        assert!(!escapes_loop(&body[..1]));
        assert!(!contains_barrier(&body[..1]));
        assert!(contains_barrier(&body[1..2]));
        let StmtKind::If { then_branch, .. } = &body[1].kind else {
            panic!("the if")
        };
        // The barrier is a statement of the `{}` that is the `if`'s branch.
        assert!(!is_barrier(&then_branch[0]));
        let StmtKind::Block(braces) = &then_branch[0].kind else {
            panic!("the branch's braces")
        };
        assert!(is_barrier(&braces[0]));
        let StmtKind::Loop {
            body: while_body, ..
        } = &body[2].kind
        else {
            panic!("the while loop")
        };
        assert!(escapes_loop(while_body));
    }

    #[test]
    fn a_body_has_no_effect_only_where_nothing_it_does_can_be_seen() {
        let no_effect = |body: &str| {
            let source = format!(
                "void helper(global int *a) {{ a[0] = 1; }}
                kernel void k(global int *a, local int *t, float x) {{ {body} }}"
            );
            let program = typed_tree("a.cl", &source, &BuildOptions::default()).expect("it builds");
            let (_, f) = program.kernels().next().expect("a kernel");
            has_no_effect(f)
        };
        // Nothing, or values computed into the item's own variables and dropped.
        assert!(no_effect(""));
        assert!(no_effect(";;"));
        assert!(no_effect(
            "int i = get_global_id(0); float y = sqrt(x) + i; int c[4]; c[i & 3] = i; \
             if (y > 1) { y = -y; } else { return; } global int *p = a + i; (void)p;"
        ));
        // What another item, a later launch or the host could see; or a read, which could
        // fault.
        assert!(!no_effect("a[get_global_id(0)] = 1;"));
        assert!(!no_effect("t[get_local_id(0)] = 1;"));
        assert!(!no_effect("int v = a[0];"));
        assert!(!no_effect("atomic_inc(a);"));
        assert!(!no_effect("printf(\"%d\\n\", 1);"));
        assert!(!no_effect("helper(a);"));
        assert!(!no_effect("local int s[4]; s[get_local_id(0) & 3] = 1;"));
        assert!(!no_effect("int *q = &((int[]){1})[0]; (void)q;"));
        // A loop might not end (the watchdog's test kernels spin without effect).
        assert!(!no_effect("for (;;) {}"));
        assert!(!no_effect("int i = 0; while (i < 4) i++;"));
        assert!(!no_effect("switch ((int)x) { case 1: break; }"));
        // A barrier is a synchronization, not a pure builtin.
        assert!(!no_effect("barrier(CLK_LOCAL_MEM_FENCE);"));
    }
}
