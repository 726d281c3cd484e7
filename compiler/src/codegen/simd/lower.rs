//! The vectorized row function: its loop over steps of [`WIDTH`] work-items, statements
//! under lane masks, and the variables of the step.

use std::collections::{HashMap, HashSet};

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{Block, InstBuilder, MemFlagsData, Value, types};
use cranelift_frontend::Variable;

use super::super::func::{Lanes, Lower, Result, Storage, unsupported};
use super::super::item_context;
use super::super::ops::{clif_type, lane_types};
use super::WIDTH;
use super::narrow::{RegForm, narrow_scalar, narrow_val};
use super::narrow_vec::narrow_soa;
use super::pair::{pair_type, soa_pair_type};
use super::value::{VVal, soa_type};
use crate::frontend::tir::{self, Block as TirBlock, Expr, ExprKind, LocalId, Stmt, StmtKind};
use crate::frontend::types::Type;
use crate::kernel::WorkGroup;
use crate::passes::analysis::{address_taken, place_root};

/// Where a varying variable lives.
pub(super) enum VarStore {
    /// One register.
    Vec(Variable),
    /// One register per component (vector types; an `i32x4` of extended lanes each for
    /// vectors of `char`..`ushort`).
    Soa(Vec<Variable>),
    /// Each work-item's lanes.
    Lanes(Vec<Vec<Variable>>),
    /// Two registers (64-bit scalars).
    Pair([Variable; 2]),
    /// Two registers per component (vectors of 64-bit elements).
    SoaPair(Vec<[Variable; 2]>),
    /// `base + k * stride` (a variable written only by its declaration).
    Seq {
        base: Variable,
        stride: i64,
        exact: bool,
        id: bool,
    },
}

/// One term of the current lane mask (the mask is all of them, and-ed).
#[derive(Clone, Copy)]
pub(super) enum Frame {
    /// The lanes of a branch (an `i32x4` mask).
    Mask(Value),
    /// The lanes a variable holds (a loop's active lanes, those not returned).
    Var(Variable),
    /// The lanes a variable does not hold (those that `continue`d).
    NotVar(Variable),
}

/// A loop being lowered: where `break` and `continue` go.
#[derive(Clone, Copy)]
pub(super) enum LoopCtx {
    /// Every lane leaves together: jumps.
    Uniform { cont: Block, exit: Block },
    /// Lanes leave on their own: the loop's active lanes and those that continued.
    Varying { active: Variable, cont: Variable },
    /// Lanes leave on their own, in a step of several groups: each group's active lanes
    /// and those that continued are its entry in `group_loops[i]`.
    Groups(usize),
}

pub(super) struct VecLower<'a, 'b> {
    /// The scalar lowering: its builder, its uniform variables, and what it does per lane.
    pub l: Lower<'a, 'b>,
    pub f: &'a tir::Function,
    pub uniform: HashSet<LocalId>,
    pub vars: HashMap<LocalId, VarStore>,
    /// Varying variables written by their declaration only (they may stay `Seq`).
    pub(super) written_once: HashSet<LocalId>,
    /// Induction variables (`induction.rs`): they stay `Seq` across their steps; the flag
    /// says whether every step is in the variable's own type.
    pub(super) inductions: HashMap<LocalId, bool>,
    pub(super) frames: Vec<Frame>,
    /// The lanes that have not returned (kernels with a `return` below the top level).
    pub(super) live: Option<Variable>,
    /// A `return` every lane takes clears `live` too (a region of a kernel with barriers:
    /// the lanes that returned are marked done at the step's end, `done.rs`).
    pub(super) uniform_return_clears_live: bool,
    pub(super) loops: Vec<LoopCtx>,
    /// Each group's active and continued lanes of the loops of varying condition lowered
    /// for several groups (`LoopCtx::Groups`).
    pub(super) group_loops: Vec<Vec<(Variable, Variable)>>,
    /// How many varying branches or loops enclose the statement being lowered.
    pub(super) varying_flow: u32,
    /// The end of the step (a `return` every lane takes).
    pub(super) latch: Option<Block>,
    /// Each lane's local and global id of dimension 0 (for what runs per lane).
    pub lane_x: Vec<Variable>,
    pub lane_gx: Vec<Variable>,
    /// Code run per lane reads its local id from the item context (calls, dimensions
    /// known at run time).
    pub ids_in_memory: bool,
    /// Instructions emitted for code run lane by lane (`per_lane`, `lanewise`): what
    /// vectorizing did not make cheaper.
    pub per_lane_insts: usize,
    /// The part of `per_lane_insts` that every step runs: expressions lowered per lane and
    /// memory accesses whose addresses are never consecutive (not the fallbacks of
    /// accesses tested consecutive at run time).
    pub(super) lane_work: usize,
    /// The groups per step of the row function lowered (`unroll.rs`).
    pub groups: usize,
    /// The other groups' state in a step of several groups (`groups.rs`; empty: one
    /// group), and which group's state is in place.
    pub(super) parked: Vec<super::groups::Group>,
    pub(super) group: usize,
    /// A statement is being lowered for one group (its blocks are not split by group).
    pub(super) in_group: bool,
    /// Uniform loops of a constant trip count are unrolled (region rows, `trips.rs`).
    pub(super) unroll_constant_loops: bool,
    /// The trip count of the loop statement about to be lowered, where it is unrolled.
    next_trips: Option<i64>,
}

impl<'a, 'b> VecLower<'a, 'b> {
    /// How many items of a row of `size` items, starting at the global id in `gx`, run 4 per
    /// step: `size` rounded down to a multiple of [`WIDTH`], or none where the row's global
    /// ids would pass `i32::MAX` (ids converted to `int` must not wrap). Also the step's
    /// item counter, starting at 0.
    pub(super) fn vector_step_count(&mut self, gx: Variable, size: Value) -> (Value, Variable) {
        let first = self.l.b.use_var(gx);
        let end = self.l.b.ins().iadd(first, size);
        let fits =
            self.l
                .b
                .ins()
                .icmp_imm_s(IntCC::UnsignedLessThanOrEqual, end, i64::from(i32::MAX));
        let whole = self.l.b.ins().band_imm_s(size, -WIDTH);
        let zero = self.l.b.ins().iconst(types::I64, 0);
        let count = self.l.b.ins().select(fits, whole, zero);
        let x = self.l.b.declare_var(types::I64);
        self.l.b.def_var(x, zero);
        (count, x)
    }

    pub(super) fn new(
        mut l: Lower<'a, 'b>,
        f: &'a tir::Function,
        uniform: HashSet<LocalId>,
    ) -> Self {
        let lane_x = (0..WIDTH).map(|_| l.b.declare_var(types::I64)).collect();
        let lane_gx = (0..WIDTH).map(|_| l.b.declare_var(types::I64)).collect();
        let body = f.body.as_deref().unwrap_or_default();
        let mut v = VecLower {
            ids_in_memory: super::super::func::reads_local_id_from_memory(f, body),
            l,
            f,
            uniform,
            vars: HashMap::new(),
            written_once: written_once(body),
            inductions: HashMap::new(),
            frames: Vec::new(),
            live: None,
            uniform_return_clears_live: false,
            loops: Vec::new(),
            varying_flow: 0,
            latch: None,
            lane_x,
            lane_gx,
            per_lane_insts: 0,
            lane_work: 0,
            groups: 1,
            parked: Vec::new(),
            group: 0,
            in_group: false,
            group_loops: Vec::new(),
            unroll_constant_loops: false,
            next_trips: None,
        };
        v.inductions = v.induction_variables(body);
        v
    }

    /// The row function: steps of [`WIDTH`] × U items (U groups, `groups.rs`) while a
    /// whole such step fits in the row, then steps of `WIDTH` items, and none where the
    /// row's global ids reach 2^31 (so that ids converted to `int` count up without
    /// wrapping); returns how many items it ran.
    pub(super) fn row_function(&mut self) -> Result<()> {
        let body: &TirBlock = self
            .f
            .body
            .as_ref()
            .ok_or_else(|| super::super::CodegenError("no body".into()))?;
        let entry = self.l.b.create_block();
        self.l.b.append_block_params_for_function_params(entry);
        self.l.b.switch_to_block(entry);
        self.l.item = self.l.b.block_params(entry)[0];
        self.l.setup_storage(Some(&address_taken(body)), None);
        self.add_region_uniforms(body);
        let flags = MemFlagsData::trusted();
        let group = self.l.group();
        let size = self
            .l
            .b
            .ins()
            .load(types::I64, flags, group, WorkGroup::OFFSET_LOCAL_SIZE);
        let arguments = self.l.kernel_arguments()?;
        let gx = self.l.global_counter(body);
        let (count, x) = self.vector_step_count(gx, size);
        // The steps of one group are lowered first (they run last): what they cost decides
        // how many groups the steps before them run (`unroll.rs`).
        let (several, rest) = (self.l.b.create_block(), self.l.b.create_block());
        self.l.b.ins().jump(several, &[]);
        self.l.b.switch_to_block(rest);
        let (insts, lane_work) = (self.l.b.func.dfg.num_insts(), self.lane_work);
        self.step_loop(body, (x, gx), count, 1, &arguments)?;
        self.l.b.ins().return_(&[count]);
        let step = super::unroll::Step {
            insts: self.l.b.func.dfg.num_insts() - insts,
            lane_work: self.lane_work - lane_work,
        };
        let unroll = super::unroll::groups(self, body, step);
        self.l.b.switch_to_block(several);
        if unroll > 1 {
            let whole = self.l.b.ins().band_imm_s(count, -(WIDTH * unroll as i64));
            self.step_loop(body, (x, gx), whole, unroll, &arguments)?;
        }
        self.l.b.ins().jump(rest, &[]);
        self.l.b.seal_all_blocks();
        self.groups = unroll;
        Ok(())
    }

    /// A loop of steps of `u` groups of [`WIDTH`] items while the item counter is below
    /// `end`.
    fn step_loop(
        &mut self,
        body: &[Stmt],
        (x, gx): (Variable, Variable),
        end: Value,
        u: usize,
        arguments: &[Lanes],
    ) -> Result<()> {
        let (head, body_b, latch, exit) = (
            self.l.b.create_block(),
            self.l.b.create_block(),
            self.l.b.create_block(),
            self.l.b.create_block(),
        );
        self.l.b.ins().jump(head, &[]);
        self.l.b.switch_to_block(head);
        let xv = self.l.b.use_var(x);
        let more = self.l.b.ins().icmp(IntCC::UnsignedLessThan, xv, end);
        self.l.b.ins().brif(more, body_b, &[], exit, &[]);
        self.l.b.switch_to_block(body_b);
        self.reset_groups(if u > 1 { u } else { 0 });
        self.latch = Some(latch);
        for g in 0..u {
            self.enter_group(g);
            self.group_ids(g, x, gx);
            // Each step gets fresh copies of the parameters: a kernel may modify its own.
            for (id, value) in self.f.param_ids().zip(arguments) {
                let ty = self.f.local(id).ty.ty.clone();
                if !self.uniform.contains(&id) {
                    self.declare_varying(id, VVal::U(value.clone()))?;
                } else if g == 0 {
                    self.l.store_local(id, &ty, value.clone())?;
                }
            }
            if has_return(body) {
                let live = self.l.b.declare_var(types::I32X4);
                let all = self.splat_i32(-1);
                self.l.b.def_var(live, all);
                self.live = Some(live);
                self.frames.push(Frame::Var(live));
            }
        }
        self.enter_group(0);
        self.block(body)?;
        self.jump(latch);
        self.l.b.switch_to_block(latch);
        for counter in [x, gx] {
            let v = self.l.b.use_var(counter);
            let next = self.l.b.ins().iadd_imm_s(v, WIDTH * u as i64);
            self.l.b.def_var(counter, next);
        }
        // The test again, not a jump back to the head's: one taken branch per step.
        let xv = self.l.b.use_var(x);
        let more = self.l.b.ins().icmp(IntCC::UnsignedLessThan, xv, end);
        self.l.b.ins().brif(more, body_b, &[], exit, &[]);
        self.l.b.switch_to_block(exit);
        Ok(())
    }

    /// Whether the current block already ends (after a jump).
    pub(super) fn terminated(&self) -> bool {
        let Some(block) = self.l.b.current_block() else {
            return true;
        };
        self.l
            .b
            .func
            .layout
            .last_inst(block)
            .is_some_and(|i| self.l.b.func.dfg.insts[i].opcode().is_terminator())
    }

    pub(super) fn jump(&mut self, target: Block) {
        if !self.terminated() {
            self.l.b.ins().jump(target, &[]);
        }
    }

    /// The lanes that run the code being lowered (`None`: all of them).
    pub(super) fn mask(&mut self) -> Option<Value> {
        let frames = self.frames.clone();
        let mut acc: Option<Value> = None;
        for f in frames {
            let m = match f {
                Frame::Mask(m) => m,
                Frame::Var(v) => self.l.b.use_var(v),
                Frame::NotVar(v) => {
                    let x = self.l.b.use_var(v);
                    self.l.b.ins().bnot(x)
                }
            };
            acc = Some(match acc {
                None => m,
                Some(a) => self.l.b.ins().band(a, m),
            });
        }
        acc
    }

    /// Runs `f` with `m` and-ed into the mask.
    pub(super) fn under<T>(
        &mut self,
        m: Value,
        f: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<T> {
        self.frames.push(Frame::Mask(m));
        let r = f(self);
        self.frames.pop();
        r
    }

    /// Lowers `stmts` for the lanes of `cond` among the current ones, skipped when there
    /// are none.
    fn masked_block(&mut self, cond: Value, stmts: &[Stmt]) -> Result<()> {
        if stmts.is_empty() {
            return Ok(());
        }
        self.frames.push(Frame::Mask(cond));
        let m = self.mask().expect("a frame was pushed");
        let any = self.l.b.ins().vany_true(m);
        let (run, join) = (self.l.b.create_block(), self.l.b.create_block());
        self.l.b.ins().brif(any, run, &[], join, &[]);
        self.l.b.switch_to_block(run);
        self.varying_flow += 1;
        let r = self.block(stmts);
        self.varying_flow -= 1;
        self.frames.pop();
        r?;
        self.jump(join);
        self.l.b.switch_to_block(join);
        Ok(())
    }

    pub(super) fn block(&mut self, stmts: &[Stmt]) -> Result<()> {
        // Where the rest of a divergent block goes once its lanes have all left it.
        let mut end = None;
        for (i, s) in stmts.iter().enumerate() {
            if self.terminated() {
                let b = self.l.b.create_block();
                self.l.b.switch_to_block(b);
            }
            self.next_trips = match (i.checked_sub(1), &stmts[i..]) {
                (Some(before), [lp, ..]) if self.unrolls(&stmts[before], lp) => {
                    super::trips::constant_trips(&stmts[before], lp)
                }
                _ => None,
            };
            if self.split_groups() > 1 {
                self.grouped_statement(s)?;
            } else {
                self.statement(s)?;
            }
            let one = std::slice::from_ref(s);
            if let (Some(_), Some(latch)) = (self.live, self.latch)
                && self.varying_flow == 0
                && has_return(one)
                && !self.terminated()
            {
                // Every lane (of every group) may have returned: the step is over.
                let any = self
                    .any_group(|v| v.live.map(|l| v.l.b.use_var(l)))
                    .expect("every group has its live lanes");
                let go_on = self.l.b.create_block();
                self.l.b.ins().brif(any, go_on, &[], latch, &[]);
                self.l.b.switch_to_block(go_on);
            } else if self.varying_flow > 0 && leaves(one) && !self.terminated() {
                // After a `break`, `continue` or `return` some lanes took, the rest of the
                // block runs only if any lane is left (nothing of it runs for none: not
                // even a uniform load).
                if let Some(any) = self.any_group(|v| v.mask()) {
                    let go_on = self.l.b.create_block();
                    let target = *end.get_or_insert_with(|| self.l.b.create_block());
                    self.l.b.ins().brif(any, go_on, &[], target, &[]);
                    self.l.b.switch_to_block(go_on);
                }
            }
        }
        if let Some(end) = end {
            self.jump(end);
            self.l.b.switch_to_block(end);
        }
        Ok(())
    }

    pub(super) fn statement(&mut self, s: &Stmt) -> Result<()> {
        match &s.kind {
            StmtKind::Expr(e) => {
                self.vexpr(e)?;
            }
            StmtKind::Decl { local, init } => self.declaration(s, *local, init.as_ref())?,
            StmtKind::Block(b) => self.block(b)?,
            StmtKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                if self.is_uniform(cond) {
                    let c = self.uniform_truth(cond)?;
                    let (then_b, else_b, join) = (
                        self.l.b.create_block(),
                        self.l.b.create_block(),
                        self.l.b.create_block(),
                    );
                    self.l.b.ins().brif(c, then_b, &[], else_b, &[]);
                    self.l.b.switch_to_block(then_b);
                    self.block(then_branch)?;
                    self.jump(join);
                    self.l.b.switch_to_block(else_b);
                    self.block(else_branch)?;
                    self.jump(join);
                    self.l.b.switch_to_block(join);
                } else {
                    let m = self.cond_mask(cond)?;
                    self.masked_block(m, then_branch)?;
                    let not = self.l.b.ins().bnot(m);
                    self.masked_block(not, else_branch)?;
                }
            }
            StmtKind::Loop {
                cond,
                step,
                body,
                test_after,
                ..
            } => {
                let uniform = self.uniform_loop_statement(s);
                let parts: Vec<&Expr> = cond.iter().chain(step.iter()).collect();
                self.compute_before_loop(&parts, body)?;
                if let (Some(trips), Some(step)) = (self.next_trips.take(), step) {
                    for _ in 0..trips {
                        self.block(body)?;
                        self.vexpr(step)?;
                    }
                } else if uniform {
                    self.uniform_loop(cond.as_ref(), step.as_ref(), body, *test_after)?;
                } else {
                    self.varying_loop((cond.as_ref(), step.as_ref()), body, *test_after)?;
                }
            }
            StmtKind::Break | StmtKind::Continue => {
                let is_break = matches!(s.kind, StmtKind::Break);
                match self.loops.last().copied() {
                    Some(LoopCtx::Uniform { cont, exit }) => {
                        self.l.b.ins().jump(if is_break { exit } else { cont }, &[]);
                    }
                    Some(ctx @ (LoopCtx::Varying { .. } | LoopCtx::Groups(_))) => {
                        let (active, cont) = match ctx {
                            LoopCtx::Groups(i) => self.group_loops[i][self.group],
                            LoopCtx::Varying { active, cont } => (active, cont),
                            LoopCtx::Uniform { .. } => unreachable!("matched above"),
                        };
                        let m = self.mask_or_all();
                        if is_break {
                            let a = self.l.b.use_var(active);
                            let not = self.l.b.ins().bnot(m);
                            let a = self.l.b.ins().band(a, not);
                            self.l.b.def_var(active, a);
                        } else {
                            let c = self.l.b.use_var(cont);
                            let c = self.l.b.ins().bor(c, m);
                            self.l.b.def_var(cont, c);
                        }
                    }
                    None => return unsupported("'break' outside a loop"),
                }
            }
            StmtKind::Return(value) => {
                if let Some(e) = value {
                    self.vexpr(e)?;
                }
                match (self.varying_flow, self.live, self.latch) {
                    (0, live, Some(latch)) => {
                        if let (Some(live), true) = (live, self.uniform_return_clears_live) {
                            let m = self.mask_or_all();
                            let l = self.l.b.use_var(live);
                            let not = self.l.b.ins().bnot(m);
                            let l = self.l.b.ins().band(l, not);
                            self.l.b.def_var(live, l);
                        }
                        self.l.b.ins().jump(latch, &[]);
                    }
                    (_, Some(live), _) => {
                        let m = self.mask_or_all();
                        let l = self.l.b.use_var(live);
                        let not = self.l.b.ins().bnot(m);
                        let l = self.l.b.ins().band(l, not);
                        self.l.b.def_var(live, l);
                    }
                    _ => return unsupported("a return the vectorizer did not expect"),
                }
            }
            StmtKind::Switch { .. } | StmtKind::Label(_) | StmtKind::Goto(_) => {
                return unsupported("a switch or a goto");
            }
        }
        Ok(())
    }

    /// A loop's blocks (head, body, continue, exit), entered here: at the head, or at the
    /// body where the test comes after it.
    pub(super) fn loop_blocks(&mut self, test_after: bool) -> (Block, Block, Block, Block) {
        let blocks = (
            self.l.b.create_block(),
            self.l.b.create_block(),
            self.l.b.create_block(),
            self.l.b.create_block(),
        );
        let first = if test_after { blocks.1 } else { blocks.0 };
        self.l.b.ins().jump(first, &[]);
        blocks
    }

    /// Whether the loop statement `s` runs every lane together (its condition and step
    /// uniform, no lane leaving on its own): its body is a block under branches.
    pub(super) fn uniform_loop_statement(&self, s: &Stmt) -> bool {
        let StmtKind::Loop {
            cond, step, body, ..
        } = &s.kind
        else {
            return false;
        };
        cond.as_ref().is_none_or(|c| self.is_uniform(c))
            && step.as_ref().is_none_or(|e| self.is_uniform(e))
            && !self.leaves_under_varying(body, false)
    }

    /// Whether the loop statement `lp`, after the statement `before`, may be unrolled
    /// (`trips.rs`): unrolling is on, `lp` is a uniform loop and `before` declares a
    /// uniform counter.
    fn unrolls(&self, before: &Stmt, lp: &Stmt) -> bool {
        self.unroll_constant_loops
            && self.uniform_loop_statement(lp)
            && matches!(before.kind, StmtKind::Decl { local, .. } if self.uniform.contains(&local))
    }

    /// Whether the innermost loop runs every lane together.
    pub(super) fn in_uniform_loop(&self) -> bool {
        matches!(self.loops.last(), Some(LoopCtx::Uniform { .. }))
    }

    /// The current mask, or all lanes.
    pub(super) fn mask_or_all(&mut self) -> Value {
        match self.mask() {
            Some(m) => m,
            None => self.splat_i32(-1),
        }
    }

    fn declaration(&mut self, s: &Stmt, local: LocalId, init: Option<&tir::Init>) -> Result<()> {
        if self.uniform.contains(&local) {
            let uniform_init = match init {
                None => true,
                Some(tir::Init::Expr(e)) => self.is_uniform(e),
                Some(tir::Init::Aggregate(items)) => items.iter().all(|(_, e)| self.is_uniform(e)),
            };
            if !uniform_init {
                return unsupported("a uniform variable declared with a varying value");
            }
            return self.l.statement(s);
        }
        let value = match init {
            None => {
                let (t, n) = lane_types(&self.f.local(local).ty.ty).unwrap_or((types::I32, 1));
                let z = self.zero(t);
                VVal::U(vec![z; n])
            }
            Some(tir::Init::Expr(e)) => self.vexpr(e)?,
            Some(tir::Init::Aggregate(_)) => {
                return unsupported("a varying variable with an aggregate initializer");
            }
        };
        self.declare_varying(local, value)
    }

    /// Gives the varying variable `id` its storage and first value (no blend: a variable
    /// comes into scope in the lanes that run its declaration).
    pub(super) fn declare_varying(&mut self, id: LocalId, value: VVal) -> Result<()> {
        let ty = self.f.local(id).ty.ty.clone();
        if let VVal::Seq {
            base,
            stride,
            exact,
            id: is_id,
        } = value
        {
            // Written once, it keeps the value's flags; an induction variable's steps
            // change its value (no longer the id) and keep it exact only as a signed
            // `int` stepped in its own type.
            let flags = match self.inductions.get(&id) {
                _ if self.written_once.contains(&id) => Some((exact, is_id)),
                Some(&own_type) => Some((exact && own_type && is_signed_int(&ty), false)),
                None => None,
            };
            if let Some((exact, is_id)) = flags {
                let t = self.l.b.func.dfg.value_type(base);
                let var = self.l.b.declare_var(t);
                self.l.b.def_var(var, base);
                self.vars.insert(
                    id,
                    VarStore::Seq {
                        base: var,
                        stride,
                        exact,
                        id: is_id,
                    },
                );
                return Ok(());
            }
        }
        let soa = soa_type(&ty).or_else(|| narrow_soa(&ty).map(|(_, n)| (types::I32X4, n)));
        let store = match (RegForm::of(&ty), soa) {
            (Some(form), _) => VarStore::Vec(self.l.b.declare_var(form.reg_type())),
            (None, Some((vt, n))) => {
                VarStore::Soa((0..n).map(|_| self.l.b.declare_var(vt)).collect())
            }
            (None, None) if pair_type(&ty).is_some() => {
                let pt = pair_type(&ty).expect("matched");
                VarStore::Pair([(); 2].map(|_| self.l.b.declare_var(pt)))
            }
            (None, None) if soa_pair_type(&ty).is_some() => {
                let (pt, n) = soa_pair_type(&ty).expect("matched");
                VarStore::SoaPair(
                    (0..n)
                        .map(|_| [(); 2].map(|_| self.l.b.declare_var(pt)))
                        .collect(),
                )
            }
            (None, None) => {
                let (t, n) = lane_types(&ty)
                    .ok_or_else(|| super::super::CodegenError(format!("a varying {ty}")))?;
                VarStore::Lanes(
                    (0..WIDTH)
                        .map(|_| (0..n).map(|_| self.l.b.declare_var(t)).collect())
                        .collect(),
                )
            }
        };
        self.vars.insert(id, store);
        self.set_local(id, value, &ty);
        Ok(())
    }

    /// The value of the varying variable `id`.
    pub(super) fn get_local(&mut self, id: LocalId) -> Result<VVal> {
        Ok(match self.vars.get(&id) {
            Some(VarStore::Vec(v)) => {
                let x = self.l.b.use_var(*v);
                match narrow_scalar(&self.f.local(id).ty.ty) {
                    Some(s) => narrow_val(x, s),
                    None => VVal::V(x),
                }
            }
            Some(VarStore::Soa(vs)) => {
                let vs = vs.clone();
                let cs = vs.iter().map(|v| self.l.b.use_var(*v)).collect();
                match narrow_soa(&self.f.local(id).ty.ty) {
                    Some((s, _)) => VVal::NS(cs, clif_type(s)),
                    None => VVal::S(cs),
                }
            }
            Some(VarStore::Pair(vs)) => {
                let vs = *vs;
                VVal::P(vs.map(|v| self.l.b.use_var(v)))
            }
            Some(VarStore::SoaPair(vs)) => {
                let vs = vs.clone();
                VVal::SP(vs.iter().map(|p| p.map(|v| self.l.b.use_var(v))).collect())
            }
            Some(VarStore::Lanes(vs)) => {
                let vs = vs.clone();
                VVal::L(
                    vs.iter()
                        .map(|lane| lane.iter().map(|v| self.l.b.use_var(*v)).collect())
                        .collect(),
                )
            }
            Some(VarStore::Seq {
                base,
                stride,
                exact,
                id,
            }) => {
                let (base, stride, exact, id) = (*base, *stride, *exact, *id);
                VVal::Seq {
                    base: self.l.b.use_var(base),
                    stride,
                    exact,
                    id,
                }
            }
            None => return unsupported("a varying variable used before its declaration"),
        })
    }

    /// Sets the varying variable `id` to `value` in every lane (callers blend).
    fn set_local(&mut self, id: LocalId, value: VVal, ty: &Type) {
        match self.vars.get(&id) {
            Some(VarStore::Vec(v)) => {
                let v = *v;
                let cur = self.l.b.use_var(v);
                let form = match narrow_scalar(ty) {
                    Some(s) => RegForm::Narrow(s),
                    None => RegForm::Full(self.l.b.func.dfg.value_type(cur)),
                };
                let x = self.reg(form, &value);
                self.l.b.def_var(v, x);
            }
            Some(VarStore::Soa(vs)) => {
                let vs = vs.clone();
                let narrow = narrow_soa(ty);
                for (c, v) in vs.iter().enumerate() {
                    let x = match narrow {
                        Some((s, _)) => self.narrow_component(&value, c, s),
                        None => {
                            let cur = self.l.b.use_var(*v);
                            let vt = self.l.b.func.dfg.value_type(cur);
                            self.component(&value, c, vt)
                        }
                    };
                    self.l.b.def_var(*v, x);
                }
            }
            Some(VarStore::Pair(vs)) => {
                let vs = *vs;
                let pt = pair_type(ty).unwrap_or(types::F64X2);
                let p = self.pair(&value, pt);
                for (v, x) in vs.iter().zip(p) {
                    self.l.b.def_var(*v, x);
                }
            }
            Some(VarStore::SoaPair(vs)) => {
                let vs = vs.clone();
                let pt = soa_pair_type(ty).map_or(types::F64X2, |(pt, _)| pt);
                for (c, pair) in vs.iter().enumerate() {
                    let p = self.pair_component(&value, c, pt);
                    for (v, x) in pair.iter().zip(p) {
                        self.l.b.def_var(*v, x);
                    }
                }
            }
            Some(VarStore::Lanes(vs)) => {
                let vs = vs.clone();
                let lanes = self.lanes(&value);
                for (vars, lane) in vs.iter().zip(lanes) {
                    for (v, x) in vars.iter().zip(lane) {
                        self.l.b.def_var(*v, x);
                    }
                }
            }
            Some(VarStore::Seq { .. }) | None => {
                let _ = ty;
            }
        }
    }

    /// Writes `value` to the varying variable `id` in the current lanes.
    pub(super) fn write_local(&mut self, id: LocalId, value: VVal) -> Result<()> {
        let ty = self.f.local(id).ty.ty.clone();
        if let Some(&VarStore::Seq {
            base, stride: kept, ..
        }) = self.vars.get(&id)
        {
            // An induction step (`induction.rs`): every lane moves by the same amount.
            return match value {
                VVal::Seq {
                    base: b, stride, ..
                } if stride == kept
                    && self.inductions.contains_key(&id)
                    && self.mask().is_none() =>
                {
                    self.l.b.def_var(base, b);
                    Ok(())
                }
                _ => unsupported("a write to a variable kept as a sequence"),
            };
        }
        let mask = self.mask();
        let new = if mask.is_some() {
            let old = self.get_local(id)?;
            self.blend(mask, value, old, &ty)
        } else {
            value
        };
        self.set_local(id, new, &ty);
        Ok(())
    }

    /// The truth (an `i8`) of a uniform condition.
    pub(super) fn uniform_truth(&mut self, e: &Expr) -> Result<Value> {
        let v = self.l.expr(e)?[0];
        Ok(self.l.truth(v, &e.ty))
    }

    fn uniform_loop(
        &mut self,
        cond: Option<&Expr>,
        step: Option<&Expr>,
        body: &[Stmt],
        test_after: bool,
    ) -> Result<()> {
        let (head, body_b, cont, exit) = self.loop_blocks(test_after);
        self.l.b.switch_to_block(head);
        match cond {
            Some(c) => {
                let c = self.uniform_truth(c)?;
                self.l.b.ins().brif(c, body_b, &[], exit, &[]);
            }
            None => {
                self.l.b.ins().jump(body_b, &[]);
            }
        }
        self.l.b.switch_to_block(body_b);
        self.loops.push(LoopCtx::Uniform { cont, exit });
        let r = self.block(body);
        self.loops.pop();
        r?;
        self.jump(cont);
        self.l.b.switch_to_block(cont);
        if let Some(step) = step {
            self.vexpr(step)?;
        }
        self.l.b.ins().jump(head, &[]);
        self.l.b.switch_to_block(exit);
        Ok(())
    }

    /// Whether some lanes may leave (or skip to the next iteration of) the loop whose body
    /// this is while others stay: a `break`, `continue` or `return` under a varying
    /// condition (inner loops' own `break`s and `continue`s excepted).
    pub(super) fn leaves_under_varying(&self, block: &[Stmt], under: bool) -> bool {
        block.iter().any(|s| match &s.kind {
            StmtKind::Break | StmtKind::Continue | StmtKind::Return(_) => under,
            StmtKind::Block(b) => self.leaves_under_varying(b, under),
            StmtKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                let v = under || !self.is_uniform(cond);
                self.leaves_under_varying(then_branch, v)
                    || self.leaves_under_varying(else_branch, v)
            }
            StmtKind::Loop { body, .. } => has_return(body),
            _ => false,
        })
    }

    /// Runs `e` once per lane with the scalar lowering (the lanes of the current mask only
    /// where it has effects or reads memory): the varying variables it reads are given the
    /// lane's values, those it writes take them back.
    pub(super) fn per_lane(&mut self, e: &Expr) -> Result<VVal> {
        let start = self.l.b.func.dfg.num_insts();
        let v = self.per_lane_uncounted(e);
        let emitted = self.l.b.func.dfg.num_insts() - start;
        self.per_lane_insts += emitted;
        self.lane_work += emitted;
        v
    }

    fn per_lane_uncounted(&mut self, e: &Expr) -> Result<VVal> {
        let mut used = Vec::new();
        locals_in(e, &mut used);
        used.retain(|id| self.vars.contains_key(id));
        used.sort_by_key(|id| id.0);
        used.dedup();
        let mut written = Vec::new();
        writes_in(e, &mut written);
        written.retain(|id| self.vars.contains_key(id));
        written.sort_by_key(|id| id.0);
        written.dedup();
        let guard = if has_effects(e) { self.mask() } else { None };
        let values: Vec<Vec<Lanes>> = used
            .iter()
            .map(|&id| {
                let v = self.get_local(id)?;
                Ok(self.lanes(&v))
            })
            .collect::<Result<_>>()?;
        let result_types: Vec<_> = match lane_types(&e.ty) {
            Some((t, n)) => vec![t; n],
            None if e.ty.is_void() => Vec::new(),
            None => vec![types::I64],
        };
        // Each lane's result and each written variable's lane, in variables so that a lane
        // skipped by the guard keeps zeros / the old value.
        let results = self.zeroed_lane_variables(&result_types);
        let saved: Vec<(LocalId, Storage)> = used
            .iter()
            .map(|&id| {
                let s = std::mem::replace(
                    &mut self.l.storage[id.0 as usize],
                    Storage::Vars(Vec::new()),
                );
                (id, s)
            })
            .collect();
        let (saved_x, saved_gx) = (self.l.local_x, self.l.global_x);
        let mut out_lanes: Vec<HashMap<LocalId, Vec<Variable>>> = Vec::new();
        let mut r = Ok(());
        for k in 0..WIDTH as usize {
            // The lane's copies of the variables, defined before the guard so that a lane
            // that does not run keeps its values.
            let mut lane_vars = HashMap::new();
            for (i, &id) in used.iter().enumerate() {
                let lane = &values[i][k];
                let vars: Vec<Variable> = lane
                    .iter()
                    .map(|&x| {
                        let t = self.l.b.func.dfg.value_type(x);
                        let v = self.l.b.declare_var(t);
                        self.l.b.def_var(v, x);
                        v
                    })
                    .collect();
                self.l.storage[id.0 as usize] = Storage::Vars(vars.clone());
                lane_vars.insert(id, vars);
            }
            let next = self.l.b.create_block();
            if let Some(m) = guard {
                let run = self.l.b.create_block();
                let on = self.lane_on(m, k as i64);
                self.l.b.ins().brif(on, run, &[], next, &[]);
                self.l.b.switch_to_block(run);
            }
            self.l.local_x = Some(self.lane_x[k]);
            self.l.global_x = Some(self.lane_gx[k]);
            if self.ids_in_memory {
                let x = self.l.b.use_var(self.lane_x[k]);
                self.l.b.ins().store(
                    MemFlagsData::trusted(),
                    x,
                    self.l.item,
                    item_context::LOCAL_ID,
                );
            }
            match self.l.expr(e) {
                Ok(v) => {
                    for (var, x) in results[k].iter().zip(v) {
                        self.l.b.def_var(*var, x);
                    }
                }
                Err(err) => {
                    r = Err(err);
                    break;
                }
            }
            out_lanes.push(lane_vars);
            self.l.b.ins().jump(next, &[]);
            self.l.b.switch_to_block(next);
        }
        for (id, s) in saved {
            self.l.storage[id.0 as usize] = s;
        }
        self.l.local_x = saved_x;
        self.l.global_x = saved_gx;
        r?;
        // The variables written: each lane's new value where it ran, its old one elsewhere.
        for id in written {
            let i = used
                .iter()
                .position(|u| *u == id)
                .expect("written variables are used");
            let ty = self.f.local(id).ty.ty.clone();
            let lanes: Vec<Lanes> = (0..WIDTH as usize)
                .map(|k| {
                    let vars = out_lanes[k][&id].clone();
                    let _ = &values[i][k];
                    vars.iter().map(|v| self.l.b.use_var(*v)).collect()
                })
                .collect();
            let v = self.assemble(lanes, &ty);
            self.set_local(id, v, &ty);
        }
        let lanes: Vec<Lanes> = results
            .iter()
            .map(|vars| vars.iter().map(|v| self.l.b.use_var(*v)).collect())
            .collect();
        if result_types.is_empty() {
            return Ok(VVal::U(Vec::new()));
        }
        Ok(self.assemble(lanes, &e.ty))
    }
}

/// Whether `block` has a `break`, `continue` or `return` at any depth.
fn leaves(block: &[Stmt]) -> bool {
    crate::frontend::tir::visit::any_statement(block, &|s| {
        matches!(
            s,
            StmtKind::Break | StmtKind::Continue | StmtKind::Return(_)
        )
    })
}

/// Whether `ty` is `int` (whose overflow is undefined: its sequences stay exact).
fn is_signed_int(ty: &Type) -> bool {
    matches!(ty, Type::Scalar(crate::frontend::types::Scalar::Int))
}

/// Whether `block` has a `return` at any depth.
pub(super) fn has_return(block: &[Stmt]) -> bool {
    crate::frontend::tir::visit::any_statement(block, &|s| matches!(s, StmtKind::Return(_)))
}

/// The variables written only by their declaration's initializer.
fn written_once(body: &[Stmt]) -> HashSet<LocalId> {
    let mut declared = HashSet::new();
    fn decls(block: &[Stmt], out: &mut HashSet<LocalId>) {
        for s in block {
            match &s.kind {
                StmtKind::Decl {
                    local,
                    init: Some(tir::Init::Expr(_)),
                } => {
                    out.insert(*local);
                }
                StmtKind::Block(b) | StmtKind::Loop { body: b, .. } => decls(b, out),
                StmtKind::If {
                    then_branch,
                    else_branch,
                    ..
                } => {
                    decls(then_branch, out);
                    decls(else_branch, out);
                }
                _ => {}
            }
        }
    }
    decls(body, &mut declared);
    let mut written = Vec::new();
    crate::frontend::tir::visit::for_each_stmt_expr(body, &mut |e| writes_in(e, &mut written));
    for id in written {
        declared.remove(&id);
    }
    declared
}

/// The variables an expression reads or writes.
pub(super) fn locals_in(e: &Expr, out: &mut Vec<LocalId>) {
    fn place(p: &tir::Place, out: &mut Vec<LocalId>) {
        if let Some(id) = place_root(p) {
            out.push(id);
        }
    }
    match &e.kind {
        ExprKind::Load(p) | ExprKind::AddressOf(p) => place(p, out),
        ExprKind::Assign { place: p, .. } | ExprKind::IncDec { place: p, .. } => place(p, out),
        _ => {}
    }
    crate::frontend::tir::visit::for_each_child(e, &mut |c| locals_in(c, out));
}

/// The variables an expression writes.
pub(super) fn writes_in(e: &Expr, out: &mut Vec<LocalId>) {
    if let ExprKind::Assign { place: p, .. } | ExprKind::IncDec { place: p, .. } = &e.kind
        && let Some(id) = place_root(p)
    {
        out.push(id);
    }
    crate::frontend::tir::visit::for_each_child(e, &mut |c| writes_in(c, out));
}

/// Whether evaluating `e` for a lane that does not run it could be seen: it writes,
/// calls, or reads memory (an inactive lane's address may be anything).
pub(super) fn has_effects(e: &Expr) -> bool {
    let mut found = false;
    fn visit(e: &Expr, found: &mut bool) {
        match &e.kind {
            ExprKind::Assign { .. }
            | ExprKind::IncDec { .. }
            | ExprKind::Call { .. }
            | ExprKind::Builtin { .. } => *found = true,
            ExprKind::Load(p) if !matches!(p.kind, tir::PlaceKind::Local(_)) => *found = true,
            _ => {}
        }
        crate::frontend::tir::visit::for_each_child(e, &mut |c| visit(c, found));
    }
    visit(e, &mut found);
    found
}
