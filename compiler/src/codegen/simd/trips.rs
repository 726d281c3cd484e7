//! Uniform loops of a constant trip count, unrolled in vectorized region rows.
//!
//! A tiled kernel's inner loop between two barriers (`for (int k = 0; k < 16; k++) acc +=
//! ta[ly][k] * tb[k][lx];`) runs, per step, a loop test, the counter's step and its
//! local-memory address arithmetic (sign extension, scaling, the local base read again)
//! around one broadcast, one vector load and two arithmetic instructions: 17 x64
//! instructions per iteration for 4 multiply-adds. Lowered once per trip instead, with the
//! counter a constant in each copy, Cranelift folds the counter into each access's
//! displacement and finds the addresses, and the local memory's base, common to every
//! copy: each copy is its loads and its arithmetic.
//!
//! The loop must be one this module can count at compile time: the statement before it
//! declares its counter (`int`/`uint`, uniform) with a constant, the condition compares the
//! counter with a constant (`<`, `<=`, `>`, `>=`, `!=`), the step adds or subtracts a
//! constant (`k++`, `k--`, `k += c`, `k -= c`), no value passes the counter's range, and
//! the body neither writes the counter nor leaves the loop (`break`, `continue`, `return`,
//! `goto`, `switch`). Its copies are what the loop would have run: the same statements in
//! the same order, so the results are those of the loop, bit for bit.
//!
//! Only region rows unroll: the rows of kernels without barriers size their groups per step
//! from their step's instructions (`unroll.rs`), and 2D convolution's 5 × 5 loops,
//! unrolled, would cost it its groups.

use crate::frontend::tir::visit::{for_each_stmt, for_each_stmt_expr, for_each_subexpr};
use crate::frontend::tir::{
    self, BinaryOp, Constant, Expr, ExprKind, LocalId, PlaceKind, Stmt, StmtKind,
};
use crate::frontend::types::{Scalar, Type};

use super::lower::writes_in;
use crate::passes::analysis::place_root;

/// The most copies of a loop's body.
pub(super) const MAX_TRIPS: i64 = 16;

/// The most expression nodes of all the copies together (the tiled product's `acc +=
/// ta[ly][k] * tb[k][lx]` is 11, 176 for its 16 trips).
pub(super) const MAX_NODES: usize = 320;

/// How many times the loop `lp` runs, where `decl` (the statement before it) declares its
/// counter with a constant and the loop is of the form the module's doc describes; `None`
/// otherwise, or where its copies would pass [`MAX_TRIPS`] or [`MAX_NODES`].
pub(super) fn constant_trips(decl: &Stmt, lp: &Stmt) -> Option<i64> {
    let StmtKind::Decl {
        local,
        init: Some(tir::Init::Expr(init)),
    } = &decl.kind
    else {
        return None;
    };
    let StmtKind::Loop {
        cond: Some(cond),
        step: Some(step),
        body,
        test_after: false,
        ..
    } = &lp.kind
    else {
        return None;
    };
    let counter = *local;
    let signed = match &init.ty {
        Type::Scalar(Scalar::Int) => true,
        Type::Scalar(Scalar::UInt) => false,
        _ => return None,
    };
    let (lo, hi) = if signed {
        (i64::from(i32::MIN), i64::from(i32::MAX))
    } else {
        (0, i64::from(u32::MAX))
    };
    let start = constant(init, signed)?;
    let (op, limit) = comparison(cond, counter, signed)?;
    let delta = step_amount(step, counter, signed)?;
    if delta == 0 || !leaves_only_at_its_test(body) || writes_counter(body, counter) {
        return None;
    }
    let mut k = start;
    let mut trips = 0;
    while holds(op, k, limit) {
        trips += 1;
        k += delta;
        if trips > MAX_TRIPS || k < lo || k > hi {
            return None;
        }
    }
    let nodes = nodes(body) + nodes_of(step);
    (trips > 0 && trips as usize * nodes <= MAX_NODES).then_some(trips)
}

/// The value of an integer constant of the counter's type.
fn constant(e: &Expr, signed: bool) -> Option<i64> {
    let ExprKind::Const(Constant::Int(lanes)) = &e.kind else {
        return None;
    };
    let [bits] = lanes[..] else {
        return None;
    };
    Some(if signed {
        i64::from(bits as u32 as i32)
    } else {
        i64::from(bits as u32)
    })
}

/// Whether `e` reads the counter itself (not converted).
fn is_counter(e: &Expr, counter: LocalId) -> bool {
    matches!(&e.kind, ExprKind::Load(p) if matches!(p.kind, PlaceKind::Local(id) if id == counter))
}

/// `counter op limit` (the counter on the left, or turned so), of the counter's type.
fn comparison(cond: &Expr, counter: LocalId, signed: bool) -> Option<(BinaryOp, i64)> {
    let ExprKind::Binary { op, lhs, rhs } = &cond.kind else {
        return None;
    };
    if lhs.ty != rhs.ty {
        return None;
    }
    let turned = |op: BinaryOp| match op {
        BinaryOp::Lt => BinaryOp::Gt,
        BinaryOp::Le => BinaryOp::Ge,
        BinaryOp::Gt => BinaryOp::Lt,
        BinaryOp::Ge => BinaryOp::Le,
        other => other,
    };
    let (op, limit) = if is_counter(lhs, counter) {
        (*op, constant(rhs, signed)?)
    } else if is_counter(rhs, counter) {
        (turned(*op), constant(lhs, signed)?)
    } else {
        return None;
    };
    matches!(
        op,
        BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge | BinaryOp::Ne
    )
    .then_some((op, limit))
}

fn holds(op: BinaryOp, k: i64, limit: i64) -> bool {
    match op {
        BinaryOp::Lt => k < limit,
        BinaryOp::Le => k <= limit,
        BinaryOp::Gt => k > limit,
        BinaryOp::Ge => k >= limit,
        _ => k != limit,
    }
}

/// What the step adds to the counter: `k++`, `++k`, `k--`, `--k`, `k += c`, `k -= c`.
fn step_amount(step: &Expr, counter: LocalId, signed: bool) -> Option<i64> {
    let own = |p: &tir::Place| matches!(p.kind, PlaceKind::Local(id) if id == counter);
    match &step.kind {
        ExprKind::IncDec {
            place, increment, ..
        } if own(place) => Some(if *increment { 1 } else { -1 }),
        ExprKind::Assign {
            place,
            op: Some(op @ (BinaryOp::Add | BinaryOp::Sub)),
            value,
            op_ty,
        } if own(place) && *op_ty == value.ty && op_ty == &place.ty.ty => {
            let c = constant(value, signed)?;
            Some(if *op == BinaryOp::Add { c } else { -c })
        }
        _ => None,
    }
}

/// Whether nothing in `body` leaves it but its end: no `break` or `continue` of this loop
/// (those of loops inside it are theirs), no `return`, `goto` or `switch`.
fn leaves_only_at_its_test(body: &[Stmt]) -> bool {
    fn block(stmts: &[Stmt]) -> bool {
        stmts.iter().all(|s| match &s.kind {
            StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Return(_)
            | StmtKind::Goto(_)
            | StmtKind::Label(_)
            | StmtKind::Switch { .. } => false,
            StmtKind::Block(b) => block(b),
            StmtKind::If {
                then_branch,
                else_branch,
                ..
            } => block(then_branch) && block(else_branch),
            StmtKind::Loop { body, .. } => {
                let mut fine = true;
                for_each_stmt(body, &mut |s| {
                    fine &= !matches!(
                        s.kind,
                        StmtKind::Return(_) | StmtKind::Goto(_) | StmtKind::Label(_)
                    );
                });
                fine
            }
            StmtKind::Expr(_) | StmtKind::Decl { .. } => true,
        })
    }
    block(body)
}

/// Whether `body` writes the counter or takes its address.
fn writes_counter(body: &[Stmt], counter: LocalId) -> bool {
    let mut written = Vec::new();
    for_each_stmt_expr(body, &mut |e| {
        writes_in(e, &mut written);
        for_each_subexpr(e, &mut |e| {
            if let ExprKind::AddressOf(p) = &e.kind
                && let Some(id) = place_root(p)
            {
                written.push(id);
            }
        });
    });
    written.contains(&counter)
}

/// Expression nodes of `body`, at any depth.
fn nodes(body: &[Stmt]) -> usize {
    let mut n = 0;
    for_each_stmt_expr(body, &mut |e| n += nodes_of(e));
    n
}

fn nodes_of(e: &Expr) -> usize {
    let mut n = 0;
    for_each_subexpr(e, &mut |_| n += 1);
    n
}

#[cfg(test)]
mod tests {
    use super::constant_trips;
    use crate::build::{BuildOptions, typed_tree};
    use crate::frontend::tir::{Stmt, StmtKind};

    /// The trip count of the first `for` of the kernel whose body is `body` (`None`: not
    /// unrolled).
    fn trips(body: &str) -> Option<i64> {
        let source =
            format!("kernel void k(global int *a, int n) {{ int acc = 0; {body} a[0] = acc; }}");
        let program = typed_tree("t.cl", &source, &BuildOptions::default()).expect("it builds");
        let (_, f) = program.kernels().next().expect("a kernel");
        fn find(stmts: &[Stmt]) -> Option<Option<i64>> {
            for (i, s) in stmts.iter().enumerate() {
                if let StmtKind::Loop { .. } = s.kind {
                    return Some(i.checked_sub(1).and_then(|b| constant_trips(&stmts[b], s)));
                }
                if let StmtKind::Block(b) = &s.kind
                    && let Some(found) = find(b)
                {
                    return Some(found);
                }
            }
            None
        }
        find(f.body.as_deref().unwrap_or_default()).expect("a loop")
    }

    #[test]
    fn loops_counted_at_compile_time() {
        assert_eq!(trips("for (int k = 0; k < 16; k++) acc += k;"), Some(16));
        assert_eq!(trips("for (int k = 0; k <= 15; ++k) acc += k;"), Some(16));
        assert_eq!(trips("for (int k = 15; k >= 0; k -= 4) acc += k;"), Some(4));
        assert_eq!(
            trips("for (uint k = 1; k != 13; k += 3) acc += k;"),
            Some(4)
        );
        assert_eq!(trips("for (int k = 0; 8 > k; k++) acc += k;"), Some(8));
        assert_eq!(trips("for (int k = -2; k <= 2; k++) acc += k;"), Some(5));
        // None runs: nothing to unroll.
        assert_eq!(trips("for (int k = 3; k > 3; k--) acc += k;"), None);
    }

    #[test]
    fn loops_left_alone() {
        // Too many trips, or too much code in all.
        assert_eq!(trips("for (int k = 0; k < 17; k++) acc += k;"), None);
        let big = "acc += k * k * k * k * k * k * k * k * k * k * k * k * k * k * k;";
        assert_eq!(trips(&format!("for (int k = 0; k < 16; k++) {big}")), None);
        assert_eq!(
            trips(&format!("for (int k = 0; k < 4; k++) {big}")),
            Some(4)
        );
        // A bound or a start that is not a constant, a step that is not one.
        assert_eq!(trips("for (int k = 0; k < n; k++) acc += k;"), None);
        assert_eq!(trips("for (int k = n; k < 4; k++) acc += k;"), None);
        assert_eq!(trips("for (int k = 1; k < 64; k *= 2) acc += k;"), None);
        // The body writes the counter, takes its address, or leaves the loop.
        assert_eq!(trips("for (int k = 0; k < 8; k++) k += acc;"), None);
        assert_eq!(
            trips("for (int k = 0; k < 8; k++) { int *p = &k; acc += *p; }"),
            None
        );
        assert_eq!(
            trips("for (int k = 0; k < 8; k++) { if (acc > 3) break; acc++; }"),
            None
        );
        assert_eq!(
            trips("for (int k = 0; k < 8; k++) { if (acc > 3) continue; acc++; }"),
            None
        );
        assert_eq!(
            trips("for (int k = 0; k < 8; k++) { if (acc > 3) return; acc++; }"),
            None
        );
        // An inner loop's own `break` is its own.
        assert_eq!(
            trips(
                "for (int k = 0; k < 4; k++) for (int j = 0; j < n; j++) { if (j > k) break; acc++; }"
            ),
            Some(4)
        );
        // Past the counter's range, a counter of another type, a `!=` never met.
        assert_eq!(
            trips("for (int k = 2147483640; k < 2147483647; k += 4) acc++;"),
            None
        );
        assert_eq!(trips("for (long k = 0; k < 4; k++) acc++;"), None);
        assert_eq!(trips("for (int k = 0; k != 7; k += 2) acc++;"), None);
        // A loop whose test comes after its body.
        assert_eq!(
            trips("int k = 0; do { acc += k; k++; } while (k < 4);"),
            None
        );
    }
}
