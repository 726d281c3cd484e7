//! Inlining of functions that synchronize the work-group.
//!
//! A kernel's barriers must be statements of the kernel itself for the work-group planner
//! (`passes::barriers`) to split the kernel around them. A helper function that
//! calls `barrier()` (or `wait_group_events()`, or another such helper) is therefore inlined
//! into each kernel that calls it: its parameters and variables become new variables of the
//! kernel, its body a block in place of the call, each `return` before its end a jump to
//! the block's end. The calls inlined are statements: `f(args);`, `x = f(args);` and
//! `T x = f(args);`; `hoist.rs` first makes statements of calls inside expressions.
//!
//! A kernel called by another kernel that declares `__local` variables is inlined too:
//! its variables then belong to the calling kernel's work-group, which allocates them.
//!
//! Input: a program as semantic analysis leaves it. Output: the same program, where no
//! kernel calls a synchronizing function ([`run`]).

use std::collections::HashSet;

use super::analysis::{is_group_sync, visit_builtins};
use crate::frontend::source::Span;
use crate::frontend::tir::build::{assign, expr_stmt, load_local, new_local};
use crate::frontend::tir::visit::{
    VisitMut, any_expr, any_statement, walk_place_mut, walk_stmt_mut,
};
use crate::frontend::tir::{
    self, Block, Expr, ExprKind, FuncId, Init, LabelId, LocalId, Place, PlaceKind, Stmt, StmtKind,
};
use crate::frontend::types::{AddressSpace, Type};

/// Functions that synchronize the group and are inlined where they are called: helpers,
/// and kernels that other kernels call ("a kernel function ... can also be called by
/// another kernel function", 6.7.1), that call a group-sync builtin or such a function.
pub(crate) fn synchronizing(program: &tir::Program) -> HashSet<FuncId> {
    let called: HashSet<FuncId> = program
        .functions
        .iter()
        .flat_map(|f| f.callees.iter().copied())
        .collect();
    let inlinable =
        |i: usize, f: &tir::Function| f.kernel.is_none() || called.contains(&FuncId(i as u32));
    let mut set: HashSet<FuncId> = HashSet::new();
    for (i, f) in program.functions.iter().enumerate() {
        let Some(body) = &f.body else { continue };
        let mut syncs = false;
        visit_builtins(body, &mut |id| syncs |= is_group_sync(id));
        let has_local_variables = f.kernel.is_some() && declares_local_memory(f);
        if (syncs || has_local_variables) && inlinable(i, f) {
            set.insert(FuncId(i as u32));
        }
    }
    // Callers of synchronizing functions synchronize too (no recursion in OpenCL C).
    loop {
        let before = set.len();
        for (i, f) in program.functions.iter().enumerate() {
            if inlinable(i, f) && f.callees.iter().any(|c| set.contains(c)) {
                set.insert(FuncId(i as u32));
            }
        }
        if set.len() == before {
            return set;
        }
    }
}

/// Whether a kernel declares `__local` variables of its own (that take bytes of the
/// work-group's local memory).
fn declares_local_memory(f: &tir::Function) -> bool {
    f.locals
        .iter()
        .skip(f.params as usize)
        .any(|l| l.ty.space == AddressSpace::Local && l.ty.ty.size() > 0)
}

/// The pass: every call of a synchronizing function inlined into its kernels.
///
/// Input: a program as semantic analysis leaves it. Output: the same program where no
/// kernel calls a function of [`synchronizing`] (its `callees` say so); those functions
/// are still defined (code generation skips the helpers among them). An error when such a
/// call is left inside an expression that cannot be taken apart, or inlining nests too deep.
pub(crate) fn run(program: &mut tir::Program) -> Result<(), String> {
    let syncs = synchronizing(program);
    if syncs.is_empty() {
        return Ok(());
    }
    // The callees are inlined as they were written: they are read from a copy.
    let original = program.clone();
    for (i, f) in original.functions.iter().enumerate() {
        if f.kernel.is_none() || !f.callees.iter().any(|c| syncs.contains(c)) {
            continue;
        }
        let mut kernel = f.clone();
        let mut body = kernel.body.take().unwrap_or_default();
        let mut inliner = Inliner {
            program: &original,
            syncs: &syncs,
            kernel: &mut kernel,
        };
        inliner.block(&mut body, 0)?;
        if let Some(callee) = remaining_call(&body, &syncs) {
            return Err(format!(
                "'{}' calls '{}', which uses barriers, in an expression clift cannot \
                 take the call out of (a void operand of ?: inside a larger expression)",
                f.name,
                original.function(callee).name
            ));
        }
        kernel.body = Some(body);
        kernel.callees.retain(|c| !syncs.contains(c));
        program.functions[i] = kernel;
    }
    Ok(())
}

struct Inliner<'a> {
    program: &'a tir::Program,
    syncs: &'a HashSet<FuncId>,
    kernel: &'a mut tir::Function,
}

/// How deep inlining may nest (a chain of helpers calling helpers).
const MAX_DEPTH: u32 = 16;

impl Inliner<'_> {
    fn block(&mut self, block: &mut Block, depth: u32) -> Result<(), String> {
        // Calls inside expressions become statements first.
        let mut hoister = super::hoist::Hoister {
            syncs: self.syncs,
            kernel: self.kernel,
        };
        hoister.block(block);
        for s in block.iter_mut() {
            self.statement(s, depth)?;
        }
        Ok(())
    }

    fn statement(&mut self, s: &mut Stmt, depth: u32) -> Result<(), String> {
        match &mut s.kind {
            StmtKind::Block(b) => return self.block(b, depth),
            StmtKind::If {
                then_branch,
                else_branch,
                ..
            } => {
                self.block(then_branch, depth)?;
                return self.block(else_branch, depth);
            }
            StmtKind::Loop { body, .. } | StmtKind::Switch { body, .. } => {
                return self.block(body, depth);
            }
            _ => {}
        }
        // The three statement forms a call may be inlined from: the call, where its result
        // goes (a place or a declared variable), and the function.
        let (call, target): (&Expr, Target) = match &s.kind {
            StmtKind::Expr(e) => match &e.kind {
                ExprKind::Call { .. } => (e, Target::Discard),
                ExprKind::Assign {
                    place,
                    op: None,
                    value,
                    ..
                } if matches!(value.kind, ExprKind::Call { .. }) => {
                    (value, Target::Place((**place).clone()))
                }
                _ => return Ok(()),
            },
            StmtKind::Decl {
                local,
                init: Some(Init::Expr(e)),
            } if matches!(e.kind, ExprKind::Call { .. }) => (e, Target::Local(*local)),
            _ => return Ok(()),
        };
        let ExprKind::Call { func, args } = &call.kind else {
            return Ok(());
        };
        if !self.syncs.contains(func) {
            return Ok(());
        }
        if depth >= MAX_DEPTH {
            return Err("functions with barriers call each other too deeply to inline".into());
        }
        let mut inlined = self.inline_call(*func, args, &call.ty, target, s.span)?;
        self.block(&mut inlined, depth + 1)?;
        s.kind = StmtKind::Block(inlined);
        Ok(())
    }

    /// The callee's body as a block of the kernel: parameters declared from the arguments,
    /// its variables and labels renumbered, its final `return` turned into `target`.
    fn inline_call(
        &mut self,
        func: FuncId,
        args: &[Expr],
        ret_ty: &Type,
        target: Target,
        span: Span,
    ) -> Result<Block, String> {
        let callee = self.program.function(func);
        let Some(body) = &callee.body else {
            return Err(format!("'{}' has no body to inline", callee.name));
        };
        let mut shift = Shift {
            locals: self.kernel.locals.len() as u32,
            labels: self.kernel.labels,
        };
        self.kernel.locals.extend(callee.locals.iter().cloned());
        self.kernel.labels += callee.labels;
        for c in &callee.callees {
            if !self.kernel.callees.contains(c) {
                self.kernel.callees.push(*c);
            }
        }
        let mut block: Block = args
            .iter()
            .enumerate()
            .map(|(i, a)| Stmt {
                kind: StmtKind::Decl {
                    local: LocalId(shift.locals + i as u32),
                    init: Some(Init::Expr(a.clone())),
                },
                span,
            })
            .collect();
        let mut stmts = body.clone();
        shift.visit_block(&mut stmts);
        let last_return = match stmts.last().map(|s| &s.kind) {
            Some(StmtKind::Return(value)) if !contains_return(&stmts[..stmts.len() - 1]) => {
                let value = value.clone();
                stmts.pop();
                value
            }
            _ if contains_return(&stmts) => {
                // Returns before the end: each stores the result and jumps to the end.
                let end = LabelId(self.kernel.labels);
                self.kernel.labels += 1;
                let result = (*ret_ty != Type::Void).then(|| {
                    let name = format!("<result of {}>", callee.name);
                    new_local(&mut self.kernel.locals, &name, ret_ty, span)
                });
                returns_to_jumps(&mut stmts, result, ret_ty, end);
                stmts.push(Stmt {
                    kind: StmtKind::Label(end),
                    span,
                });
                result.map(|local| load_local(local, ret_ty, span))
            }
            _ => None,
        };
        block.extend(stmts);
        if let Some(value) = last_return {
            let result_span = value.span;
            let store = match target {
                Target::Discard => StmtKind::Expr(value),
                Target::Local(local) => StmtKind::Decl {
                    local,
                    init: Some(Init::Expr(value)),
                },
                Target::Place(place) => StmtKind::Expr(Expr {
                    ty: ret_ty.clone(),
                    span: result_span,
                    kind: ExprKind::Assign {
                        place: Box::new(place),
                        op: None,
                        value: Box::new(value),
                        op_ty: ret_ty.clone(),
                    },
                }),
            };
            block.push(Stmt {
                kind: store,
                span: result_span,
            });
        }
        Ok(block)
    }
}

/// Where an inlined call's result goes.
enum Target {
    Discard,
    Local(LocalId),
    Place(Place),
}

/// Turns each `return v;` of an inlined body into `result = v; goto end;`.
fn returns_to_jumps(block: &mut Block, result: Option<LocalId>, ty: &Type, end: LabelId) {
    struct Returns<'t> {
        result: Option<LocalId>,
        ty: &'t Type,
        end: LabelId,
    }
    impl VisitMut for Returns<'_> {
        fn visit_stmt(&mut self, s: &mut Stmt) {
            let StmtKind::Return(value) = &mut s.kind else {
                return walk_stmt_mut(self, s);
            };
            let span = s.span;
            let mut jump = Vec::new();
            match (value.take(), self.result) {
                (Some(value), Some(local)) => jump.push(assign(local, self.ty, value)),
                (Some(value), None) => jump.push(expr_stmt(value)),
                (None, _) => {}
            }
            jump.push(Stmt {
                kind: StmtKind::Goto(self.end),
                span,
            });
            s.kind = StmtKind::Block(jump);
        }

        // Returns are statements: nothing to do in expressions.
        fn visit_expr(&mut self, _: &mut Expr) {}
        fn visit_init(&mut self, _: &mut Init) {}
    }
    Returns { result, ty, end }.visit_block(block);
}

fn contains_return(block: &[Stmt]) -> bool {
    any_statement(block, &|s| matches!(s, StmtKind::Return(_)))
}

/// Renumbers a callee's variables and labels into the kernel's.
struct Shift {
    locals: u32,
    labels: u32,
}

impl Shift {
    fn local(&self, id: &mut LocalId) {
        id.0 += self.locals;
    }

    fn label(&self, id: &mut LabelId) {
        id.0 += self.labels;
    }
}

impl VisitMut for Shift {
    fn visit_stmt(&mut self, s: &mut Stmt) {
        match &mut s.kind {
            StmtKind::Decl { local, .. } => self.local(local),
            StmtKind::Switch { cases, default, .. } => {
                cases.iter_mut().for_each(|(_, l)| self.label(l));
                default.iter_mut().for_each(|l| self.label(l));
            }
            StmtKind::Label(l) | StmtKind::Goto(l) => self.label(l),
            _ => {}
        }
        walk_stmt_mut(self, s);
    }

    fn visit_place(&mut self, p: &mut Place) {
        if let PlaceKind::Local(id) | PlaceKind::CompoundLiteral { local: id, .. } = &mut p.kind {
            self.local(id);
        }
        walk_place_mut(self, p);
    }
}

/// The first call of a synchronizing function left in `block` (one inside an expression).
fn remaining_call(block: &Block, syncs: &HashSet<FuncId>) -> Option<FuncId> {
    let mut found = None;
    any_expr(block, &mut |e| match &e.kind {
        ExprKind::Call { func, .. } if syncs.contains(func) => {
            found = Some(*func);
            true
        }
        _ => false,
    });
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::{BuildOptions, typed_tree};
    use crate::frontend::tir::visit::{any_expr, for_each_expr};

    const SOURCE: &str = "
        void sync(void) { barrier(CLK_LOCAL_MEM_FENCE); }
        int twice(int x) { sync(); return 2 * x; }
        int plain(int x) { return x + 1; }
        kernel void k(global int *a) {
            int i = get_local_id(0);
            a[i] = plain(twice(a[i])) + 1;
        }";

    fn program() -> tir::Program {
        typed_tree("i.cl", SOURCE, &BuildOptions::default()).expect("it builds")
    }

    fn id(program: &tir::Program, name: &str) -> FuncId {
        let i = program.functions.iter().position(|f| &*f.name == name);
        FuncId(i.expect("the function") as u32)
    }

    #[test]
    fn helpers_that_reach_a_barrier_synchronize() {
        let p = program();
        let set = synchronizing(&p);
        let mut names: Vec<&str> = set.iter().map(|f| &*p.function(*f).name).collect();
        names.sort();
        assert_eq!(names, ["sync", "twice"]);
    }

    #[test]
    fn a_called_kernel_with_local_variables_is_inlined_where_it_is_called() {
        let p = typed_tree(
            "i.cl",
            "kernel void with_local(global int *a) { local int t[4]; t[0] = 1; a[0] = t[0]; }
             kernel void private_only(global int *a) { int t = 1; a[0] = t; }
             kernel void caller(global int *a) { with_local(a); private_only(a); }",
            &BuildOptions::default(),
        )
        .expect("it builds");
        let set = synchronizing(&p);
        let names: Vec<&str> = set.iter().map(|f| &*p.function(*f).name).collect();
        assert_eq!(names, ["with_local"]);
    }

    #[test]
    fn a_call_inside_an_expression_is_hoisted_and_inlined() {
        let mut p = program();
        run(&mut p).expect("it inlines");
        let (sync, twice, plain) = (id(&p, "sync"), id(&p, "twice"), id(&p, "plain"));
        let (_, k) = p.kernels().next().expect("the kernel");
        let body = k.body.as_ref().expect("a body");
        // The kernel calls `plain` only; the barrier is its own now.
        assert_eq!(k.callees, [plain]);
        assert!(!any_expr(body, &mut |e| matches!(
            &e.kind,
            ExprKind::Call { func, .. } if *func == sync || *func == twice
        )));
        let mut barriers = 0;
        for_each_expr(body, &mut |e| {
            if matches!(&e.kind, ExprKind::Builtin { id, .. } if id.name() == "barrier") {
                barriers += 1;
            }
        });
        assert_eq!(barriers, 1);
        // The hoisted call's result and `twice`'s parameter are new variables of the kernel.
        let names: Vec<&str> = k.locals.iter().map(|l| &*l.name).collect();
        assert!(names.contains(&"<call result>"), "{names:?}");
        assert!(names.contains(&"x"), "{names:?}");
    }
}
