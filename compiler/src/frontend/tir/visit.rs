//! Walks over the typed tree: the one place that knows which statements, expressions,
//! places and initializers a node holds, so that the passes and the lowering that look for
//! something in a function (or rewrite it) say only what they look for.
//!
//! [`Visit`] walks a tree read-only, [`VisitMut`] with mutable access. Each `visit_*`
//! method's default walks the node's children (the `walk_*` function of the same name);
//! a visitor overrides the methods of the nodes it cares about and calls `walk_*` itself
//! where it wants the children too. Children are visited in the order the tree lists them:
//! operands left to right (an assignment's place before its value), a loop's condition,
//! then its step, then its body. The `for_each_*` functions are the walks most callers
//! need, with a closure.

use super::{Block, Expr, ExprKind, Init, Place, PlaceKind, Stmt, StmtKind};

/// Defines a visitor trait and its `walk_*` functions: once for shared references and once
/// for mutable ones (`mut`), so that the two walks cannot differ.
macro_rules! visitor {
    (
        $(#[$doc:meta])*
        $Visit:ident($($mut:tt)?), $iter:ident, $Block:ty,
        $walk_block:ident, $walk_stmt:ident, $walk_expr:ident, $walk_place:ident, $walk_init:ident
    ) => {
        $(#[$doc])*
        pub trait $Visit {
            fn visit_block(&mut self, block: &$($mut)? $Block) {
                $walk_block(self, block);
            }

            fn visit_stmt(&mut self, s: &$($mut)? Stmt) {
                $walk_stmt(self, s);
            }

            fn visit_expr(&mut self, e: &$($mut)? Expr) {
                $walk_expr(self, e);
            }

            fn visit_place(&mut self, p: &$($mut)? Place) {
                $walk_place(self, p);
            }

            fn visit_init(&mut self, init: &$($mut)? Init) {
                $walk_init(self, init);
            }
        }

        /// Visits each statement of a block.
        pub fn $walk_block<V: $Visit + ?Sized>(v: &mut V, block: &$($mut)? $Block) {
            for s in block.$iter() {
                v.visit_stmt(s);
            }
        }

        /// Visits the expressions, the initializer and the blocks of a statement.
        pub fn $walk_stmt<V: $Visit + ?Sized>(v: &mut V, s: &$($mut)? Stmt) {
            match &$($mut)? s.kind {
                StmtKind::Expr(e) | StmtKind::Return(Some(e)) => v.visit_expr(e),
                StmtKind::Decl {
                    init: Some(init), ..
                } => v.visit_init(init),
                StmtKind::Block(b) => v.visit_block(b),
                StmtKind::If {
                    cond,
                    then_branch,
                    else_branch,
                } => {
                    v.visit_expr(cond);
                    v.visit_block(then_branch);
                    v.visit_block(else_branch);
                }
                StmtKind::Loop {
                    cond, step, body, ..
                } => {
                    if let Some(c) = cond {
                        v.visit_expr(c);
                    }
                    if let Some(e) = step {
                        v.visit_expr(e);
                    }
                    v.visit_block(body);
                }
                StmtKind::Switch { value, body, .. } => {
                    v.visit_expr(value);
                    v.visit_block(body);
                }
                StmtKind::Decl { init: None, .. }
                | StmtKind::Label(_)
                | StmtKind::Goto(_)
                | StmtKind::Break
                | StmtKind::Continue
                | StmtKind::Return(None) => {}
            }
        }

        /// Visits the operands of an expression (the places it reads or writes as places).
        pub fn $walk_expr<V: $Visit + ?Sized>(v: &mut V, e: &$($mut)? Expr) {
            match &$($mut)? e.kind {
                ExprKind::Load(p) | ExprKind::AddressOf(p) | ExprKind::IncDec { place: p, .. } => {
                    v.visit_place(p)
                }
                ExprKind::Assign { place, value, .. } => {
                    v.visit_place(place);
                    v.visit_expr(value);
                }
                ExprKind::Unary { operand, .. } | ExprKind::Convert { operand, .. } => {
                    v.visit_expr(operand)
                }
                ExprKind::Swizzle { base, .. } => v.visit_expr(base),
                ExprKind::Binary { lhs, rhs, .. }
                | ExprKind::Logical { lhs, rhs, .. }
                | ExprKind::Comma { lhs, rhs }
                | ExprKind::PointerDiff { lhs, rhs } => {
                    v.visit_expr(lhs);
                    v.visit_expr(rhs);
                }
                ExprKind::PointerOffset {
                    pointer, offset, ..
                } => {
                    v.visit_expr(pointer);
                    v.visit_expr(offset);
                }
                ExprKind::Conditional {
                    cond,
                    then_expr,
                    else_expr,
                }
                | ExprKind::Select {
                    cond,
                    then_expr,
                    else_expr,
                } => {
                    v.visit_expr(cond);
                    v.visit_expr(then_expr);
                    v.visit_expr(else_expr);
                }
                ExprKind::VectorLiteral(parts) => parts.$iter().for_each(|p| v.visit_expr(p)),
                ExprKind::Call { args, .. } | ExprKind::Builtin { args, .. } => {
                    args.$iter().for_each(|a| v.visit_expr(a))
                }
                // Only semantic analysis meets one, and takes its statements out
                // (`sema::stmt_expr`): its body is not an operand.
                ExprKind::Const(_) | ExprKind::StringLiteral(_) | ExprKind::StmtExpr { .. } => {}
            }
        }

        /// Visits the expressions and inner places of a place.
        pub fn $walk_place<V: $Visit + ?Sized>(v: &mut V, p: &$($mut)? Place) {
            match &$($mut)? p.kind {
                PlaceKind::Deref(e) | PlaceKind::Value(e) => v.visit_expr(e),
                PlaceKind::Element { array, index } => {
                    v.visit_place(array);
                    v.visit_expr(index);
                }
                PlaceKind::Field { record, .. } => v.visit_place(record),
                PlaceKind::Lanes { vector, .. } => v.visit_place(vector),
                PlaceKind::CompoundLiteral { init, .. } => v.visit_init(init),
                PlaceKind::Local(_) | PlaceKind::Global(_) => {}
            }
        }

        /// Visits the values of an initializer.
        pub fn $walk_init<V: $Visit + ?Sized>(v: &mut V, init: &$($mut)? Init) {
            match init {
                Init::Expr(e) => v.visit_expr(e),
                Init::Aggregate(items) => items.$iter().for_each(|(_, e)| v.visit_expr(e)),
            }
        }
    };
}

visitor!(
    /// A read-only walk over the typed tree.
    Visit(), iter, [Stmt],
    walk_block, walk_stmt, walk_expr, walk_place, walk_init
);

visitor!(
    /// A walk over the typed tree that may change it in place.
    VisitMut(mut), iter_mut, Block,
    walk_block_mut, walk_stmt_mut, walk_expr_mut, walk_place_mut, walk_init_mut
);

/// A visitor that calls its closure with each expression it meets, and goes no deeper.
struct Each<'f>(&'f mut dyn FnMut(&Expr));

impl Visit for Each<'_> {
    fn visit_expr(&mut self, e: &Expr) {
        (self.0)(e);
    }
}

/// [`Each`], mutably.
struct EachMut<'f>(&'f mut dyn FnMut(&mut Expr));

impl VisitMut for EachMut<'_> {
    fn visit_expr(&mut self, e: &mut Expr) {
        (self.0)(e);
    }
}

/// A visitor that calls its closure with each expression it meets, then with those inside.
struct Every<'f>(&'f mut dyn FnMut(&Expr));

impl Visit for Every<'_> {
    fn visit_expr(&mut self, e: &Expr) {
        (self.0)(e);
        walk_expr(self, e);
    }
}

/// Calls `f` with each operand of `e`: its direct subexpressions, those inside the places
/// it names included (an index, a dereferenced pointer).
pub fn for_each_child(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    walk_expr(&mut Each(f), e);
}

/// [`for_each_child`], mutably.
pub fn for_each_child_mut(e: &mut Expr, f: &mut dyn FnMut(&mut Expr)) {
    walk_expr_mut(&mut EachMut(f), e);
}

/// Calls `f` with each expression of a place (not with those nested in them).
pub fn for_each_place_expr_mut(p: &mut Place, f: &mut dyn FnMut(&mut Expr)) {
    walk_place_mut(&mut EachMut(f), p);
}

/// Calls `f` with each expression the statements of `block` hold at any depth (their
/// conditions, steps, initializers, values), not with the operands of those expressions.
pub fn for_each_stmt_expr(block: &[Stmt], f: &mut dyn FnMut(&Expr)) {
    walk_block(&mut Each(f), block);
}

/// Calls `f` with every expression of `block` at any depth, each before its operands.
pub fn for_each_expr(block: &[Stmt], f: &mut dyn FnMut(&Expr)) {
    walk_block(&mut Every(f), block);
}

/// Calls `f` with every expression of `e` (itself first) at any depth.
pub fn for_each_subexpr(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    Every(f).visit_expr(e);
}

/// Calls `f` with every statement of `block` at any depth, each before the statements
/// nested in it.
pub fn for_each_stmt(block: &[Stmt], f: &mut dyn FnMut(&Stmt)) {
    struct Statements<'f>(&'f mut dyn FnMut(&Stmt));
    impl Visit for Statements<'_> {
        fn visit_stmt(&mut self, s: &Stmt) {
            (self.0)(s);
            walk_stmt(self, s);
        }
        // Statements are not inside expressions (after semantic analysis).
        fn visit_expr(&mut self, _: &Expr) {}
        fn visit_init(&mut self, _: &Init) {}
    }
    walk_block(&mut Statements(f), block);
}

/// Whether a statement of `block`, at any depth, is one `pred` accepts.
pub fn any_statement(block: &[Stmt], pred: &dyn Fn(&StmtKind) -> bool) -> bool {
    let mut found = false;
    for_each_stmt(block, &mut |s| found = found || pred(&s.kind));
    found
}

/// Whether an expression of `block`, at any depth, is one `pred` accepts.
pub fn any_expr(block: &[Stmt], pred: &mut dyn FnMut(&Expr) -> bool) -> bool {
    let mut found = false;
    for_each_expr(block, &mut |e| found = found || pred(e));
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::{BuildOptions, typed_tree};
    use crate::frontend::tir::{LocalId, PlaceKind};

    /// The body of the first kernel of `source`.
    fn body(source: &str) -> Block {
        let program = typed_tree("v.cl", source, &BuildOptions::default()).expect("it builds");
        let (_, f) = program.kernels().next().expect("a kernel");
        f.body.clone().expect("a body")
    }

    const SOURCE: &str = "kernel void k(global int *a, int n) {
        int s = 0;
        for (int i = 0; i < n; i++) {
            if (a[i] > 2) { s += a[i + 1]; } else { break; }
        }
        switch (n) { case 1: s = (int){n}; break; }
        a[0] = s;
    }";

    #[test]
    fn statements_are_visited_before_the_ones_inside_them() {
        let mut kinds = Vec::new();
        for_each_stmt(&body(SOURCE), &mut |s| {
            kinds.push(match &s.kind {
                StmtKind::Decl { .. } => "decl",
                StmtKind::Block(_) => "block",
                StmtKind::Loop { .. } => "loop",
                StmtKind::If { .. } => "if",
                StmtKind::Expr(_) => "expr",
                StmtKind::Break => "break",
                StmtKind::Switch { .. } => "switch",
                StmtKind::Label(_) => "label",
                _ => "other",
            })
        });
        // Each `{}` is a block of its own: the loop's body, the branches, the switch's body.
        assert_eq!(
            kinds,
            [
                "decl", "block", "decl", "loop", "block", "if", "block", "expr", "block", "break",
                "switch", "block", "label", "expr", "break", "expr"
            ]
        );
    }

    #[test]
    fn every_variable_read_is_found_through_places_and_initializers() {
        // Reads of `a`, `n`, `s` and `i`, in evaluation order: the loop's condition (`i`,
        // `n`), the `if`'s `a[i]`, `s += a[i + 1]` (the place `s` is written, not read), the
        // switch's value `n` and the compound literal's initializer `n`, `a[0] = s`.
        let mut read = Vec::new();
        for_each_expr(&body(SOURCE), &mut |e| {
            if let ExprKind::Load(p) = &e.kind
                && let PlaceKind::Local(LocalId(id)) = p.kind
            {
                read.push(id);
            }
        });
        // a = 0, n = 1, s = 2, i = 3.
        assert_eq!(read, [3, 1, 0, 3, 0, 3, 1, 1, 0, 2]);
    }

    #[test]
    fn a_mutable_walk_reaches_what_the_read_only_walk_reaches() {
        struct Renumber;
        impl VisitMut for Renumber {
            fn visit_place(&mut self, p: &mut Place) {
                if let PlaceKind::Local(id) = &mut p.kind {
                    id.0 += 100;
                }
                walk_place_mut(self, p);
            }
        }
        let mut b = body(SOURCE);
        Renumber.visit_block(&mut b);
        let mut ids = Vec::new();
        for_each_expr(&b, &mut |e| {
            if let ExprKind::Load(p) | ExprKind::Assign { place: p, .. } = &e.kind
                && let PlaceKind::Local(LocalId(id)) = p.kind
            {
                ids.push(id);
            }
        });
        assert!(!ids.is_empty());
        assert!(ids.iter().all(|&id| id >= 100), "{ids:?}");
    }

    #[test]
    fn children_are_the_direct_operands_only() {
        let b = body("kernel void k(global int *a) { a[1] = a[2] + 3; }");
        let StmtKind::Expr(e) = &b[0].kind else {
            panic!("an expression statement")
        };
        let mut kinds = Vec::new();
        for_each_child(e, &mut |c| kinds.push(std::mem::discriminant(&c.kind)));
        // The place `a[1]` holds `a + 1` (a pointer offset); then the value `a[2] + 3`.
        assert_eq!(kinds.len(), 2);
        let mut count = 0;
        for_each_subexpr(e, &mut |_| count += 1);
        assert!(count > 4, "{count}");
        assert!(any_statement(&b, &|s| matches!(s, StmtKind::Expr(_))));
        assert!(!any_statement(&b, &|s| matches!(s, StmtKind::Break)));
    }
}
