//! Calls of synchronizing functions taken out of expressions, so that they can be inlined.
//!
//! The inliner (`inline.rs`) replaces a call of a function that synchronizes the group by
//! the function's body, which is statements: the call must be a statement of its own
//! (`f(...);`, `x = f(...);`, `T x = f(...);`). Here a call inside a larger expression, in
//! a position that is always evaluated, moves before the statement into a new variable:
//! `out[i] = 2 * f(x) + 1;` becomes `{ T t = f(x); out[i] = 2 * t + 1; }`. The order is
//! C's: the operands of an operator are unsequenced, so the call may go first.
//!
//! A `while`/`for` condition with such a call is tested inside the loop instead
//! (`for (;;) { if (!cond) break; ... }`). Calls evaluated only sometimes (the right side
//! of `&&`, `||` or `,`, a branch of `?:`) and calls in a `do`-`while` condition or a `for`
//! step stay, and the build fails saying so.

use std::collections::HashSet;

use crate::frontend::tir::{
    self, Block, Expr, ExprKind, FuncId, Init, Local, LocalId, Place, PlaceKind, Stmt, StmtKind,
};
use crate::frontend::types::{QualType, Type};

pub(super) struct Hoister<'a> {
    pub syncs: &'a HashSet<FuncId>,
    /// The kernel whose body is rewritten: the new variables are its.
    pub kernel: &'a mut tir::Function,
}

impl Hoister<'_> {
    pub fn block(&mut self, block: &mut Block) {
        for s in block.iter_mut() {
            self.statement(s);
        }
    }

    fn statement(&mut self, s: &mut Stmt) {
        let mut before = Vec::new();
        match &mut s.kind {
            StmtKind::Block(b) => self.block(b),
            StmtKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                self.block(then_branch);
                self.block(else_branch);
                self.expr(cond, &mut before);
            }
            StmtKind::Loop {
                cond,
                body,
                test_after: false,
                ..
            } => {
                if let Some(c) = cond.take_if(|c| self.calls_sync(c)) {
                    let span = c.span;
                    let test = StmtKind::If {
                        cond: c,
                        then_branch: Vec::new(),
                        else_branch: vec![Stmt {
                            kind: StmtKind::Break,
                            span,
                        }],
                    };
                    body.insert(0, Stmt { kind: test, span });
                }
                self.block(body);
            }
            StmtKind::Loop { body, .. } => self.block(body),
            StmtKind::Switch { value, body, .. } => {
                self.block(body);
                self.expr(value, &mut before);
            }
            StmtKind::Expr(e)
            | StmtKind::Decl {
                init: Some(Init::Expr(e)),
                ..
            } => self.whole(e, &mut before),
            StmtKind::Decl {
                init: Some(Init::Aggregate(items)),
                ..
            } => items
                .iter_mut()
                .for_each(|(_, e)| self.expr(e, &mut before)),
            StmtKind::Return(Some(e)) => self.expr(e, &mut before),
            _ => {}
        }
        if !before.is_empty() {
            let span = s.span;
            let rest = std::mem::replace(&mut s.kind, StmtKind::Break);
            before.push(Stmt { kind: rest, span });
            s.kind = StmtKind::Block(before);
        }
    }

    fn is_sync_call(&self, e: &Expr) -> bool {
        matches!(&e.kind, ExprKind::Call { func, .. } if self.syncs.contains(func))
    }

    fn calls_sync(&self, e: &Expr) -> bool {
        let mut found = self.is_sync_call(e);
        super::func::for_each_child(e, &mut |c| found |= self.calls_sync(c));
        found
    }

    /// A statement's whole expression: a call that is the statement, or the value of an
    /// assignment statement, is inlined as it is.
    fn whole(&mut self, e: &mut Expr, before: &mut Vec<Stmt>) {
        if self.is_sync_call(e) {
            return;
        }
        if let ExprKind::Assign {
            place,
            op: None,
            value,
            ..
        } = &mut e.kind
            && self.is_sync_call(value)
        {
            return self.place(place, before);
        }
        self.expr(e, before)
    }

    /// Moves the synchronizing calls of `e` that are always evaluated into `before`.
    fn expr(&mut self, e: &mut Expr, before: &mut Vec<Stmt>) {
        if self.is_sync_call(e) && e.ty != Type::Void {
            let local = self.new_local(&e.ty, e);
            let value = Expr {
                ty: e.ty.clone(),
                span: e.span,
                kind: ExprKind::Load(Box::new(Place {
                    kind: PlaceKind::Local(local),
                    ty: QualType::new(e.ty.clone()),
                    span: e.span,
                })),
            };
            let call = std::mem::replace(e, value);
            before.push(Stmt {
                span: call.span,
                kind: StmtKind::Decl {
                    local,
                    init: Some(Init::Expr(call)),
                },
            });
            return;
        }
        match &mut e.kind {
            // Evaluated only sometimes, or after something sequenced before it: stays.
            ExprKind::Logical { lhs, .. } | ExprKind::Comma { lhs, .. } => self.expr(lhs, before),
            ExprKind::Conditional { cond, .. } => self.expr(cond, before),
            ExprKind::Load(p) | ExprKind::AddressOf(p) | ExprKind::IncDec { place: p, .. } => {
                self.place(p, before)
            }
            ExprKind::Assign { place, value, .. } => {
                self.place(place, before);
                self.expr(value, before);
            }
            ExprKind::Unary { operand, .. } | ExprKind::Convert { operand, .. } => {
                self.expr(operand, before)
            }
            ExprKind::Swizzle { base, .. } => self.expr(base, before),
            ExprKind::Binary { lhs, rhs, .. } | ExprKind::PointerDiff { lhs, rhs } => {
                self.expr(lhs, before);
                self.expr(rhs, before);
            }
            ExprKind::PointerOffset {
                pointer, offset, ..
            } => {
                self.expr(pointer, before);
                self.expr(offset, before);
            }
            ExprKind::Select {
                cond,
                then_expr,
                else_expr,
            } => {
                self.expr(cond, before);
                self.expr(then_expr, before);
                self.expr(else_expr, before);
            }
            ExprKind::VectorLiteral(parts) => parts.iter_mut().for_each(|p| self.expr(p, before)),
            ExprKind::Call { args, .. } | ExprKind::Builtin { args, .. } => {
                args.iter_mut().for_each(|a| self.expr(a, before))
            }
            ExprKind::Const(_) | ExprKind::StringLiteral(_) => {}
        }
    }

    fn place(&mut self, p: &mut Place, before: &mut Vec<Stmt>) {
        match &mut p.kind {
            PlaceKind::Local(_) | PlaceKind::Global(_) => {}
            PlaceKind::Deref(e) | PlaceKind::Value(e) => self.expr(e, before),
            PlaceKind::Element { array, index } => {
                self.place(array, before);
                self.expr(index, before);
            }
            PlaceKind::Field { record, .. } => self.place(record, before),
            PlaceKind::Lanes { vector, .. } => self.place(vector, before),
            PlaceKind::CompoundLiteral { init, .. } => match &mut **init {
                Init::Expr(e) => self.expr(e, before),
                Init::Aggregate(items) => items.iter_mut().for_each(|(_, e)| self.expr(e, before)),
            },
        }
    }

    /// A new private variable of the kernel, of type `ty`, for the value of `e`.
    fn new_local(&mut self, ty: &Type, e: &Expr) -> LocalId {
        self.kernel.locals.push(Local {
            name: "<call result>".into(),
            ty: QualType::new(ty.clone()),
            span: e.span,
        });
        LocalId(self.kernel.locals.len() as u32 - 1)
    }
}
