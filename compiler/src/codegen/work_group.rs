//! The work-group function of each kernel, the entry the runtime calls: it runs one
//! work-group. Without barriers it loops over the rows of local ids calling the kernel's
//! work-item function, which loops over each row itself (`func/rows.rs`). With barriers it
//! runs the kernel's plan (`passes::barriers`): each step of the plan is lowered here to a
//! function (a region every work-item runs, a function the group runs once, a condition one
//! work-item evaluates), and the plan's control flow around barriers runs once for the
//! group.

use std::collections::HashMap;

use cranelift_codegen::ir::{self, AbiParam, InstBuilder, MemFlagsData, types};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_module::{FuncId as ClifFuncId, Linkage, Module};

use super::func::{Lower, Result};
use super::late::{self, RowCall};
use super::{CodegenError, CodegenOptions, ModuleState, dump, item_context, simd};
use crate::frontend::tir::{self, Expr, FuncId, Stmt};
use crate::kernel::WorkGroup;
use crate::passes::barriers::{self, FrameLayout, Step};

/// What the work-group function of a kernel with barriers runs: regions for every
/// work-item, and the control flow around barriers once for the group.
pub(crate) enum WgNode {
    /// A region function, run for every work-item; its vectorized row function (`simd`)
    /// first where it has one.
    Region {
        scalar: ClifFuncId,
        vector: Option<RowCall>,
    },
    If {
        cond: ClifFuncId,
        then_nodes: Vec<WgNode>,
        else_nodes: Vec<WgNode>,
    },
    Loop {
        cond: Option<ClifFuncId>,
        /// A `Region` or, for a uniform step, a `Once`.
        step: Option<Box<WgNode>>,
        body: Vec<WgNode>,
        test_after: bool,
    },
    /// A function run once for the group, as its first work-item (a uniform loop step).
    Once(ClifFuncId),
    /// `break` / `continue` of the innermost group-level loop (taken by the whole group:
    /// the control flow around barriers is uniform).
    Break,
    Continue,
    /// A resumable kernel ([`resumable`]): passes over every work-item, each running the
    /// function until the item's next barrier, until no item stopped at one. `pass` and
    /// `pending` are offsets in the first frame.
    Resume {
        func: ClifFuncId,
        pass: u32,
        pending: u32,
    },
}

/// A kernel split at its barriers.
pub(crate) struct BarrierPlan {
    pub nodes: Vec<WgNode>,
    pub frame_size: u32,
    /// The frame offset of each item's "done" flag (set when it returns).
    pub done_flag: u32,
    /// Why some region runs scalar (`Ok`: every region is vectorized).
    pub vectorized: std::result::Result<(), String>,
}

/// Lowers a kernel with barriers by its plan (`passes::barriers`): each step becomes a
/// function, in the order the steps come (a first region loads the parameters).
pub(super) fn define_barrier_kernel(
    state: &mut ModuleState,
    id: FuncId,
    f: &tir::Function,
    fctx: &mut FunctionBuilderContext,
    options: &CodegenOptions,
) -> Result<BarrierPlan> {
    let plan = barriers::plan(f).map_err(CodegenError)?;
    let mut steps = StepLowering {
        state,
        id,
        f,
        fctx,
        options,
        frames: &plan.frames,
        count: 0,
        regions: 0,
        declined: Vec::new(),
    };
    // The parameters are loaded by the first region: the plan's own where it starts with
    // one (one loop over the items less per group), else one of no statements.
    let mut nodes = Vec::new();
    let rest = match plan.steps.split_first() {
        Some((Step::Region(stmts), rest)) => {
            nodes.push(steps.region(stmts, true)?);
            rest
        }
        _ => {
            nodes.push(steps.region(&[], true)?);
            &plan.steps[..]
        }
    };
    nodes.extend(steps.steps(rest)?);
    // Every region that runs scalar, each with its reason: a kernel may keep some of its
    // regions vectorized.
    let vectorized = if steps.declined.is_empty() {
        Ok(())
    } else {
        Err(steps
            .declined
            .iter()
            .map(|(n, why)| format!("region {n} of {} runs scalar: {why}", steps.regions))
            .collect::<Vec<_>>()
            .join("; "))
    };
    Ok(BarrierPlan {
        nodes,
        frame_size: plan.frames.size,
        done_flag: plan.frames.done_flag,
        vectorized,
    })
}

/// The functions of a kernel's plan, each declared in the module and queued for compiling.
struct StepLowering<'a, 'b> {
    state: &'a mut ModuleState,
    id: FuncId,
    f: &'a tir::Function,
    fctx: &'b mut FunctionBuilderContext,
    options: &'a CodegenOptions,
    frames: &'a FrameLayout,
    /// The functions declared so far (they are numbered from 1).
    count: u32,
    /// The regions lowered so far (numbered from 1, in the order they come).
    regions: u32,
    /// The regions whose vectorized row function was declined (their number), and why.
    declined: Vec<(u32, String)>,
}

impl StepLowering<'_, '_> {
    fn steps(&mut self, steps: &[Step]) -> Result<Vec<WgNode>> {
        steps.iter().map(|s| self.step(s)).collect()
    }

    fn step(&mut self, step: &Step) -> Result<WgNode> {
        Ok(match step {
            Step::Region(stmts) => self.region(stmts, false)?,
            Step::Once(stmts) => WgNode::Once(self.once(stmts)?),
            Step::If {
                cond,
                then_steps,
                else_steps,
            } => {
                let cond = self.condition(cond)?;
                let then_nodes = self.steps(then_steps)?;
                let else_nodes = self.steps(else_steps)?;
                WgNode::If {
                    cond,
                    then_nodes,
                    else_nodes,
                }
            }
            Step::Loop {
                cond,
                step,
                body,
                test_after,
            } => {
                let cond = cond.as_ref().map(|c| self.condition(c)).transpose()?;
                let step = match step {
                    Some(s) => Some(Box::new(self.step(s)?)),
                    None => None,
                };
                WgNode::Loop {
                    cond,
                    step,
                    body: self.steps(body)?,
                    test_after: *test_after,
                }
            }
            Step::Break => WgNode::Break,
            Step::Continue => WgNode::Continue,
        })
    }

    fn declare(
        &mut self,
        returns: Option<ir::Type>,
    ) -> Result<(ClifFuncId, cranelift_codegen::Context)> {
        let mut sig = self.state.module.make_signature();
        sig.params.push(AbiParam::new(types::I64));
        if let Some(r) = returns {
            sig.returns.push(AbiParam::new(r));
        }
        self.count += 1;
        let name = format!("clift_fn{}_{}_part{}", self.id.0, self.f.name, self.count);
        let id = self
            .state
            .module
            .declare_function(&name, Linkage::Local, &sig)
            .map_err(|e| CodegenError(format!("declaring {name}: {e}")))?;
        let mut ctx = self.state.module.make_context();
        ctx.func.signature = sig;
        Ok((id, ctx))
    }

    fn lower(
        &mut self,
        ctx: &mut cranelift_codegen::Context,
        body: impl FnOnce(&mut Lower) -> Result<()>,
    ) -> Result<()> {
        let b = FunctionBuilder::new(&mut ctx.func, self.fctx);
        let mut lower = Lower::new(b, &mut *self.state, self.f, self.options);
        body(&mut lower)?;
        let config = lower.state.isa.frontend_config();
        lower.b.finalize(config);
        Ok(())
    }

    fn define(
        &mut self,
        id: ClifFuncId,
        ctx: cranelift_codegen::Context,
        what: &str,
    ) -> Result<ClifFuncId> {
        dump::function(what, &ctx.func);
        self.state
            .defer(id, format!("a part of '{}'", self.f.name), ctx);
        Ok(id)
    }

    fn region(&mut self, stmts: &[Stmt], load_parameters: bool) -> Result<WgNode> {
        let (id, mut ctx) = self.declare(None)?;
        let frames = self.frames;
        self.lower(&mut ctx, |l| l.region(stmts, frames, load_parameters))?;
        let scalar = self.define(id, ctx, &format!("{} region {}", self.f.name, self.count))?;
        self.regions += 1;
        // The prologue that only loads the parameters has nothing to vectorize.
        let vector = if stmts.is_empty() {
            None
        } else {
            let region = simd::Region {
                stmts,
                frames,
                load_parameters,
                name: format!("clift_vec{}_{}_part{}", self.id.0, self.f.name, self.count),
            };
            match simd::define_vector_region(self.state, self.f, &region, self.options) {
                Ok(v) => Some(late::row_call(self.state, v, &self.f.name)),
                Err(why) => {
                    self.declined.push((self.regions, why));
                    None
                }
            }
        };
        Ok(WgNode::Region { scalar, vector })
    }

    fn once(&mut self, stmts: &[Stmt]) -> Result<ClifFuncId> {
        let (id, mut ctx) = self.declare(None)?;
        let frames = self.frames;
        self.lower(&mut ctx, |l| l.once_function(stmts, frames))?;
        self.define(id, ctx, &format!("{} once {}", self.f.name, self.count))
    }

    fn condition(&mut self, cond: &Expr) -> Result<ClifFuncId> {
        let (id, mut ctx) = self.declare(Some(types::I8))?;
        let frames = self.frames;
        self.lower(&mut ctx, |l| l.condition_function(cond, frames))?;
        self.define(
            id,
            ctx,
            &format!("{} condition {}", self.f.name, self.count),
        )
    }
}

/// The entry the runtime calls: runs one work-group. Without barriers it loops over the
/// local ids calling the kernel's work-item function; with barriers it runs the kernel's
/// plan (regions for every work-item, the control flow around barriers once).
pub(super) fn define_work_group_function(
    state: &mut ModuleState,
    kernel: FuncId,
    f: &tir::Function,
    plan: Option<&BarrierPlan>,
    vector_row: Option<RowCall>,
    fctx: &mut FunctionBuilderContext,
) -> Result<ClifFuncId> {
    let ptr = ir::types::I64;
    let (id, mut ctx) = declare_work_group_function(state, f)?;
    {
        let mut b = FunctionBuilder::new(&mut ctx.func, fctx);
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let (args, group) = (b.block_params(entry)[0], b.block_params(entry)[1]);
        let slot = b.create_sized_stack_slot(ir::StackSlotData::new(
            ir::StackSlotKind::ExplicitSlot,
            item_context::SIZE,
            4,
        ));
        let item = b.ins().stack_addr(ptr, slot, 0);
        let flags = MemFlagsData::trusted();
        b.ins().store(flags, group, item, item_context::GROUP);
        b.ins().store(flags, args, item, item_context::ARGS);
        let frames = b
            .ins()
            .load(ptr, flags, group, WorkGroup::OFFSET_PRIVATE_FRAMES);
        let mut wg = GroupEmitter {
            item,
            group,
            frames,
            frame_size: plan.map_or(0, |p| p.frame_size),
            rows_only: false,
            loops: Vec::new(),
            done_flag: plan.map(|p| p.done_flag),
            vector: None,
        };
        match plan {
            None => {
                let callee = state
                    .module
                    .declare_func_in_func(state.functions[kernel.0 as usize], b.func);
                // The kernel's function loops over dimension 0 itself: one call per row,
                // after the vectorized row function's, which says where the row goes on.
                wg.vector = vector_row.map(|v| VectorCall::new(&mut b, state, None, v));
                if wg.vector.is_none() {
                    let zero = b.ins().iconst(ptr, 0);
                    b.ins().store(flags, zero, item, item_context::ROW_START);
                }
                wg.rows_only = true;
                wg.all_items(&mut b, callee);
            }
            Some(plan) => {
                let mut refs = HashMap::new();
                wg.nodes(&mut b, state, &mut refs, &plan.nodes);
            }
        }
        b.ins().return_(&[]);
        b.seal_all_blocks();
        b.finalize(state.isa.frontend_config());
    }
    Ok(defer_work_group_function(state, f, id, ctx))
}

/// The work-group function of a kernel whose body has no effect
/// (`passes::analysis::has_no_effect`): it returns at once, so that a launch costs the
/// runtime's walk over the groups and nothing per work-item (an empty kernel over 2^16
/// groups of 64 items spent 18 ns per group looping over items that do nothing, PoCL 4.6).
pub(super) fn define_returning_work_group_function(
    state: &mut ModuleState,
    f: &tir::Function,
    fctx: &mut FunctionBuilderContext,
) -> Result<ClifFuncId> {
    let (id, mut ctx) = declare_work_group_function(state, f)?;
    {
        let mut b = FunctionBuilder::new(&mut ctx.func, fctx);
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        b.ins().return_(&[]);
        b.seal_all_blocks();
        b.finalize(state.isa.frontend_config());
    }
    Ok(defer_work_group_function(state, f, id, ctx))
}

/// Queues the kernel's work-group function, defined in `ctx`, for compiling (after printing
/// it where `CLIFT_DUMP_CLIF` asks).
fn defer_work_group_function(
    state: &mut ModuleState,
    f: &tir::Function,
    id: ClifFuncId,
    ctx: cranelift_codegen::Context,
) -> ClifFuncId {
    dump::function(&format!("work-group function of {}", f.name), &ctx.func);
    state.defer(id, format!("the work-group function of '{}'", f.name), ctx);
    id
}

/// Declares the kernel's work-group function, `fn(arguments, group)`, exported under the
/// name the runtime looks up; with a context of its signature to define it in.
fn declare_work_group_function(
    state: &mut ModuleState,
    f: &tir::Function,
) -> Result<(ClifFuncId, cranelift_codegen::Context)> {
    let ptr = ir::types::I64;
    let mut sig = state.module.make_signature();
    sig.params.push(AbiParam::new(ptr));
    sig.params.push(AbiParam::new(ptr));
    let id = state
        .module
        .declare_function(&format!("clift_wg_{}", f.name), Linkage::Export, &sig)
        .map_err(|e| CodegenError(e.to_string()))?;
    let mut ctx = state.module.make_context();
    ctx.func.signature = sig;
    Ok((id, ctx))
}

/// The reference to `id` inside the function being built (declared once).
fn func_ref(
    b: &mut FunctionBuilder,
    state: &mut ModuleState,
    refs: &mut HashMap<ClifFuncId, ir::FuncRef>,
    id: ClifFuncId,
) -> ir::FuncRef {
    *refs
        .entry(id)
        .or_insert_with(|| state.module.declare_func_in_func(id, b.func))
}

/// Emits the work-group level code: loops over every work-item, and the plan of kernels
/// with barriers.
struct GroupEmitter {
    item: ir::Value,
    group: ir::Value,
    frames: ir::Value,
    frame_size: u32,
    /// The callee loops over dimension 0 itself: call it once per (y, z).
    rows_only: bool,
    /// The (continue, exit) blocks of the group-level loops being emitted, innermost last.
    loops: Vec<(ir::Block, ir::Block)>,
    /// The frame offset of the items' "done" flags (kernels with barriers).
    done_flag: Option<u32>,
    /// The kernel's vectorized row function (`simd`): called before the scalar one, its
    /// result is the local id the scalar row function starts at.
    vector: Option<VectorCall>,
}

/// A call of a vectorized row or region function in the function being built: directly, or
/// through its late row's slot (`late`).
#[derive(Clone, Copy)]
enum VectorCall {
    Direct(ir::FuncRef),
    /// The slot's address, and the row's signature `fn(item) -> u64`.
    Slot(usize, ir::SigRef),
}

impl VectorCall {
    /// The call `call` in the function `b` builds (`refs`: the functions declared there so
    /// far, where the function calls several).
    fn new(
        b: &mut FunctionBuilder,
        state: &mut ModuleState,
        refs: Option<&mut HashMap<ClifFuncId, ir::FuncRef>>,
        call: RowCall,
    ) -> VectorCall {
        match (call, refs) {
            (RowCall::Direct(id), Some(refs)) => VectorCall::Direct(func_ref(b, state, refs, id)),
            (RowCall::Direct(id), None) => {
                VectorCall::Direct(state.module.declare_func_in_func(id, b.func))
            }
            (RowCall::Slot(address), _) => {
                let mut sig = state.module.make_signature();
                sig.params.push(AbiParam::new(types::I64));
                sig.returns.push(AbiParam::new(types::I64));
                VectorCall::Slot(address, b.import_signature(sig))
            }
        }
    }

    /// Emits the call with the item context `item`; its result is the local id the scalar
    /// row starts at.
    fn emit(self, b: &mut FunctionBuilder, item: ir::Value) -> ir::Value {
        let call = match self {
            VectorCall::Direct(f) => b.ins().call(f, &[item]),
            VectorCall::Slot(address, signature) => {
                let slot = b.ins().iconst(types::I64, address as i64);
                // Acquire (x64: a plain load): the code the address points at was written
                // before the Release store that published it.
                let row = b
                    .ins()
                    .atomic_load(types::I64, MemFlagsData::trusted(), slot);
                b.ins().call_indirect(signature, row, &[item])
            }
        };
        b.inst_results(call)[0]
    }
}

impl GroupEmitter {
    /// for z { for y { for x { callee(item) } } }, setting the local ids and the frame.
    fn all_items(&mut self, b: &mut FunctionBuilder, callee: ir::FuncRef) {
        let ptr = ir::types::I64;
        let flags = MemFlagsData::trusted();
        let mut sizes: Vec<ir::Value> = (0..3)
            .map(|d| {
                b.ins()
                    .load(ptr, flags, self.group, WorkGroup::OFFSET_LOCAL_SIZE + 8 * d)
            })
            .collect();
        // Frames are in linear local-id order: a row's first item is `size_x` items after
        // the previous row's.
        let row_stride = sizes[0];
        if self.rows_only {
            sizes[0] = b.ins().iconst(ptr, 1);
        }
        // The global id of local id 0 in each dimension: group id × local size + offset.
        let first_global: Vec<ir::Value> = (0..3)
            .map(|d| {
                let field = |b: &mut FunctionBuilder, offset: i32| {
                    b.ins().load(ptr, flags, self.group, offset + 8 * d)
                };
                let id = field(b, WorkGroup::OFFSET_GROUP_ID);
                let size = field(b, WorkGroup::OFFSET_LOCAL_SIZE);
                let offset = field(b, WorkGroup::OFFSET_GLOBAL_OFFSET);
                let first = b.ins().imul(id, size);
                b.ins().iadd(first, offset)
            })
            .collect();
        let counter: Vec<_> = (0..3).map(|_| b.declare_var(ptr)).collect();
        let linear = b.declare_var(ptr);
        let head: Vec<_> = (0..3).map(|_| b.create_block()).collect();
        let body: Vec<_> = (0..3).map(|_| b.create_block()).collect();
        let latch: Vec<_> = (0..3).map(|_| b.create_block()).collect();
        let exit = b.create_block();
        let zero = b.ins().iconst(ptr, 0);
        b.def_var(counter[2], zero);
        b.def_var(linear, zero);
        b.ins().jump(head[2], &[]);
        for d in (0..3).rev() {
            b.switch_to_block(head[d]);
            let i = b.use_var(counter[d]);
            let more = b
                .ins()
                .icmp(ir::condcodes::IntCC::UnsignedLessThan, i, sizes[d]);
            let done = if d == 2 { exit } else { latch[d + 1] };
            b.ins().brif(more, body[d], &[], done, &[]);
            b.switch_to_block(body[d]);
            let i = b.use_var(counter[d]);
            b.ins()
                .store(flags, i, self.item, item_context::LOCAL_ID + 8 * d as i32);
            let global = b.ins().iadd(first_global[d], i);
            b.ins().store(
                flags,
                global,
                self.item,
                item_context::GLOBAL_ID + 8 * d as i32,
            );
            if d > 0 {
                let zero = b.ins().iconst(ptr, 0);
                b.def_var(counter[d - 1], zero);
                b.ins().jump(head[d - 1], &[]);
            } else {
                if self.frame_size > 0 {
                    let n = b.use_var(linear);
                    let offset = b.ins().imul_imm_s(n, i64::from(self.frame_size));
                    let frame = b.ins().iadd(self.frames, offset);
                    b.ins().store(flags, frame, self.item, item_context::FRAME);
                    let next = if self.rows_only {
                        b.ins().iadd(n, row_stride)
                    } else {
                        b.ins().iadd_imm_s(n, 1)
                    };
                    b.def_var(linear, next);
                }
                if let Some(vector) = self.vector {
                    // A row shorter than one step of the vectorized row (one-item groups:
                    // the CTS's image suites run a billion) goes straight to the scalar
                    // row, without a call that would run no step.
                    let done_var = b.declare_var(ptr);
                    let zero = b.ins().iconst(ptr, 0);
                    b.def_var(done_var, zero);
                    let (call, join) = (b.create_block(), b.create_block());
                    let wide = b.ins().icmp_imm_u(
                        ir::condcodes::IntCC::UnsignedGreaterThanOrEqual,
                        row_stride,
                        simd::WIDTH,
                    );
                    b.ins().brif(wide, call, &[], join, &[]);
                    b.switch_to_block(call);
                    let ran = vector.emit(b, self.item);
                    b.def_var(done_var, ran);
                    b.ins().jump(join, &[]);
                    b.switch_to_block(join);
                    let done = b.use_var(done_var);
                    // Where the vectorized row ran the whole row (a local size that is a
                    // multiple of its width), the scalar row would run no item: its call
                    // is skipped (about 20 instructions of a 64-item group's 270).
                    let rest =
                        b.ins()
                            .icmp(ir::condcodes::IntCC::UnsignedLessThan, done, row_stride);
                    let scalar = b.create_block();
                    b.ins().brif(rest, scalar, &[], latch[0], &[]);
                    b.switch_to_block(scalar);
                    b.ins()
                        .store(flags, done, self.item, item_context::ROW_START);
                }
                b.ins().call(callee, &[self.item]);
                b.ins().jump(latch[0], &[]);
            }
            b.switch_to_block(latch[d]);
            let i = b.use_var(counter[d]);
            let next = b.ins().iadd_imm_s(i, 1);
            b.def_var(counter[d], next);
            b.ins().jump(head[d], &[]);
        }
        b.switch_to_block(exit);
    }

    /// Runs a resumable kernel: passes over every work-item (one call each, no row loop),
    /// numbered from 0 in the first frame's `pass`, while an item stopped at a barrier (it
    /// set the first frame's `pending` byte).
    fn passes(&mut self, b: &mut FunctionBuilder, callee: ir::FuncRef, pass: u32, pending: u32) {
        let flags = MemFlagsData::trusted();
        let (head, next, exit) = (b.create_block(), b.create_block(), b.create_block());
        let zero = b.ins().iconst(ir::types::I32, 0);
        b.ins().store(flags, zero, self.frames, pass as i32);
        b.ins().jump(head, &[]);
        b.switch_to_block(head);
        let zero = b.ins().iconst(ir::types::I8, 0);
        b.ins().store(flags, zero, self.frames, pending as i32);
        self.rows_only = false;
        self.all_items(b, callee);
        let again = b
            .ins()
            .load(ir::types::I8, flags, self.frames, pending as i32);
        b.ins().brif(again, next, &[], exit, &[]);
        b.switch_to_block(next);
        let n = b
            .ins()
            .load(ir::types::I32, flags, self.frames, pass as i32);
        let n = b.ins().iadd_imm_s(n, 1);
        b.ins().store(flags, n, self.frames, pass as i32);
        b.ins().jump(head, &[]);
        b.switch_to_block(exit);
    }

    /// Evaluates a condition function as work-item 0 (the conditions around barriers are
    /// uniform across the group).
    fn condition(&mut self, b: &mut FunctionBuilder, callee: ir::FuncRef) -> ir::Value {
        self.set_first_item(b);
        let call = b.ins().call(callee, &[self.item]);
        b.inst_results(call)[0]
    }

    /// Makes the item context the group's first work-item (local id 0, the first frame).
    fn set_first_item(&mut self, b: &mut FunctionBuilder) {
        let flags = MemFlagsData::trusted();
        let zero = b.ins().iconst(ir::types::I64, 0);
        for d in 0..3 {
            b.ins()
                .store(flags, zero, self.item, item_context::LOCAL_ID + 8 * d);
        }
        b.ins()
            .store(flags, self.frames, self.item, item_context::FRAME);
    }

    fn nodes(
        &mut self,
        b: &mut FunctionBuilder,
        state: &mut ModuleState,
        refs: &mut HashMap<ClifFuncId, ir::FuncRef>,
        nodes: &[WgNode],
    ) {
        for node in nodes {
            match node {
                WgNode::Break | WgNode::Continue => {
                    let Some(&(cont, exit)) = self.loops.last() else {
                        continue;
                    };
                    let target = if matches!(node, WgNode::Break) {
                        exit
                    } else {
                        cont
                    };
                    b.ins().jump(target, &[]);
                    // What follows in this block is unreachable; give it a block of its own.
                    let rest = b.create_block();
                    b.switch_to_block(rest);
                }
                WgNode::Resume {
                    func,
                    pass,
                    pending,
                } => {
                    let callee = func_ref(b, state, refs, *func);
                    self.passes(b, callee, *pass, *pending);
                }
                WgNode::Once(id) => {
                    let callee = func_ref(b, state, refs, *id);
                    self.set_first_item(b);
                    b.ins().call(callee, &[self.item]);
                }
                WgNode::Region { scalar, vector } => {
                    // Region functions loop over dimension 0 themselves, the vectorized one
                    // first.
                    let callee = func_ref(b, state, refs, *scalar);
                    self.vector = vector.map(|v| VectorCall::new(b, state, Some(refs), v));
                    if self.vector.is_none() {
                        // Without a vectorized row function each row starts at local id 0.
                        let zero = b.ins().iconst(ir::types::I64, 0);
                        b.ins().store(
                            MemFlagsData::trusted(),
                            zero,
                            self.item,
                            item_context::ROW_START,
                        );
                    }
                    self.rows_only = true;
                    self.all_items(b, callee);
                    self.vector = None;
                }
                WgNode::If {
                    cond,
                    then_nodes,
                    else_nodes,
                } => {
                    let callee = func_ref(b, state, refs, *cond);
                    let c = self.condition(b, callee);
                    let (then_b, else_b, join) =
                        (b.create_block(), b.create_block(), b.create_block());
                    b.ins().brif(c, then_b, &[], else_b, &[]);
                    b.switch_to_block(then_b);
                    self.nodes(b, state, refs, then_nodes);
                    b.ins().jump(join, &[]);
                    b.switch_to_block(else_b);
                    self.nodes(b, state, refs, else_nodes);
                    b.ins().jump(join, &[]);
                    b.switch_to_block(join);
                }
                WgNode::Loop {
                    cond,
                    step,
                    body,
                    test_after,
                } => {
                    let (head, body_b, cont, exit) = (
                        b.create_block(),
                        b.create_block(),
                        b.create_block(),
                        b.create_block(),
                    );
                    b.ins().jump(if *test_after { body_b } else { head }, &[]);
                    b.switch_to_block(head);
                    if let Some(offset) = self.done_flag {
                        // The group returned (as its first item did): leave the loop.
                        let done = b.ins().load(
                            ir::types::I8,
                            MemFlagsData::trusted(),
                            self.frames,
                            offset as i32,
                        );
                        let go_on = b.create_block();
                        b.ins().brif(done, exit, &[], go_on, &[]);
                        b.switch_to_block(go_on);
                    }
                    match cond {
                        Some(c) => {
                            let callee = func_ref(b, state, refs, *c);
                            let v = self.condition(b, callee);
                            b.ins().brif(v, body_b, &[], exit, &[]);
                        }
                        None => {
                            b.ins().jump(body_b, &[]);
                        }
                    }
                    b.switch_to_block(body_b);
                    self.loops.push((cont, exit));
                    self.nodes(b, state, refs, body);
                    self.loops.pop();
                    b.ins().jump(cont, &[]);
                    b.switch_to_block(cont);
                    if let Some(s) = step {
                        self.nodes(b, state, refs, std::slice::from_ref(&**s));
                    }
                    crate::jit::watchdog::check_back_edge(b, self.group);
                    b.ins().jump(head, &[]);
                    b.switch_to_block(exit);
                }
            }
        }
    }
}
