//! Code generation: the typed tree to machine code, through Cranelift.
//!
//! Every function of the program becomes a Cranelift function that runs ONE work-item; its
//! first parameter is the work-item's context ([`ItemContext`]: the work-group, the local
//! ids, the argument block). Each kernel also gets a work-group function — the entry the
//! runtime calls — that loops over the local ids and calls the kernel's work-item function.
//!
//! Values are scalarized: a vector is its lanes, one Cranelift value each (3-vectors have
//! 3 lanes in registers, 4 in memory). Variables whose address is never taken live in SSA
//! variables; arrays, structs and address-taken variables live in stack slots; `__local`
//! variables in the work-group's local memory.
//!
//! Kernels with barriers are split into region functions around them (`func.rs`,
//! `define_barrier_kernel`), or, where their barriers are not in structured control flow,
//! run as resumable work-item functions (`func/resumable.rs`).

mod builtins;
pub mod dump;
mod func;
mod geometric;
mod hoist;
mod images;
mod inline;
mod layout;
pub mod link;
mod ops;
mod pool;
mod switches;
mod tir_build;
mod uniform;

use std::collections::HashMap;
use std::sync::Arc;

use cranelift_codegen::ir::{self, AbiParam, InstBuilder, MemFlagsData};
use cranelift_codegen::isa::OwnedTargetIsa;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::JITModule;
use cranelift_module::{FuncId as ClifFuncId, Linkage, Module};

use crate::frontend::tir::{self, FuncId};
use crate::jit;
use crate::kernel::{KernelCode, WorkGroup};

pub use layout::kernel_params;

/// Byte offsets of [`ItemContext`]'s fields.
pub(crate) mod item_context {
    pub const GROUP: i32 = 0;
    pub const ARGS: i32 = 8;
    pub const LOCAL_ID: i32 = 16;
    /// This work-item's frame (kernels with barriers).
    pub const FRAME: i32 = 40;
    /// The global ids of dimensions 1 and 2, and for dimension 0 that of the row's first
    /// item (a row function counts from it): set by the work-group function so that row
    /// functions read them once (Cranelift does not hoist the arithmetic out of loops).
    pub const GLOBAL_ID: i32 = 48;
    pub const SIZE: u32 = 72;
}

/// What every work-item function receives (built on the work-group function's stack):
/// `{ group: *const WorkGroup, args: *const u8, local_id: [u64; 3], frame: *mut u8,
/// global_id: [u64; 3] }`.
pub struct ItemContext;

/// Whether the environment variable `var` is set to anything but empty or `0` (read once,
/// into `cell`): the switches of docs/ENVIRONMENT.md that code generation reads.
pub(crate) fn env_flag(var: &str, cell: &'static std::sync::OnceLock<bool>) -> bool {
    *cell.get_or_init(|| std::env::var(var).is_ok_and(|v| !v.is_empty() && v != "0"))
}

/// Why a program could not be compiled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodegenError(pub String);

impl std::fmt::Display for CodegenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The JIT module that owns a program's machine code; dropped with the last kernel.
struct CodeOwner(std::sync::Mutex<Option<JITModule>>);

// SAFETY: after `finalize_definitions` the module's code is immutable and only freed on
// drop; nothing else in it is touched from other threads.
unsafe impl Send for CodeOwner {}
// SAFETY: as above; the mutex serializes the only mutation (the drop).
unsafe impl Sync for CodeOwner {}

impl Drop for CodeOwner {
    fn drop(&mut self) {
        if let Ok(mut guard) = self.0.lock()
            && let Some(module) = guard.take()
        {
            // SAFETY: the last kernel holding the code is gone (this runs when the last
            // `Arc<CodeOwner>` drops), so no function of the module can be running.
            unsafe { module.free_memory() };
        }
    }
}

/// Options of code generation (from the build options).
#[derive(Clone, Debug, Default)]
pub struct CodegenOptions {
    /// `-cl-kernel-arg-info`.
    pub kernel_arg_info: bool,
    /// `-cl-mad-enable` / fast math: `mad` may fuse.
    pub mad_enable: bool,
}

/// Symbols the generated code may call: the builtins library.
fn builtin_symbols() -> HashMap<&'static str, *const u8> {
    let mut map = HashMap::new();
    for list in [
        clift_builtins::math::symbols(),
        clift_builtins::convert::symbols(),
        clift_builtins::integer::symbols(),
        clift_builtins::half::symbols(),
        clift_builtins::printf::symbols(),
        clift_builtins::image::symbols(),
    ] {
        map.extend(list);
    }
    map
}

/// State shared by the lowering of every function of one program.
pub(crate) struct ModuleState {
    pub module: JITModule,
    pub isa: OwnedTargetIsa,
    /// The Cranelift function of each program function (its work-item function).
    pub functions: Vec<ClifFuncId>,
    /// Imported builtin symbols, by name.
    pub imports: HashMap<String, ClifFuncId>,
    pub symbols: HashMap<&'static str, *const u8>,
    /// Program-scope `__constant` data objects.
    pub globals: Vec<cranelift_module::DataId>,
    /// String literals (printf formats and `%s` arguments), shared by content.
    pub strings: HashMap<Vec<u8>, cranelift_module::DataId>,
    /// The plain-function copy of each kernel that another function calls ("a kernel
    /// function ... can also be called by another kernel function", 6.7.1): the kernel's
    /// own work-item function reads its arguments from the argument block instead.
    pub called_kernels: HashMap<FuncId, ClifFuncId>,
    /// Functions lowered but not compiled yet (see [`compile_deferred`]).
    pub deferred: Vec<Deferred>,
}

/// Compiles every kernel of `program`.
pub fn compile(
    program: &tir::Program,
    options: &CodegenOptions,
) -> Result<Vec<KernelCode>, CodegenError> {
    // Code that calls what does not exist cannot be finalized (the build reports these with
    // their positions before it gets here).
    if let Some(u) = link::unresolved(program).first() {
        return Err(CodegenError(u.message()));
    }
    let symbols = builtin_symbols();
    let isa = jit::host_isa().map_err(|e| CodegenError(e.to_string()))?;
    let module = jit::new_module(symbols.iter().map(|(k, v)| (k.to_string(), *v)))
        .map_err(|e| CodegenError(e.to_string()))?;
    let mut state = ModuleState {
        module,
        isa,
        functions: Vec::new(),
        imports: HashMap::new(),
        symbols,
        globals: Vec::new(),
        strings: HashMap::new(),
        called_kernels: HashMap::new(),
        deferred: Vec::new(),
    };
    // Helpers that synchronize the group exist only inlined into their kernels.
    let inlined_calls = inline::synchronizing(program);
    // The helpers among them exist only inlined (the kernels are compiled as kernels too).
    let syncs: std::collections::HashSet<FuncId> = inlined_calls
        .iter()
        .copied()
        .filter(|id| program.function(*id).kernel.is_none())
        .collect();
    // The program is copied only where a pass changes it (a copy of a large program's
    // tree is as large as the tree).
    let mut inlined = if inlined_calls.is_empty() {
        std::borrow::Cow::Borrowed(program)
    } else {
        std::borrow::Cow::Owned(inline::inline_synchronizing_calls(program).map_err(CodegenError)?)
    };
    // Switches with barriers become if chains the barrier planner can split (a switch it
    // cannot rewrite stays: its kernel runs as a resumable function).
    for i in 0..inlined.functions.len() {
        let f = &inlined.functions[i];
        if f.kernel.is_none() || !f.body.as_ref().is_some_and(|b| func::contains_barrier(b)) {
            continue;
        }
        let mut rewritten = f.clone();
        if switches::rewrite_switches(&mut rewritten).is_some() {
            inlined.to_mut().functions[i] = rewritten;
        }
    }
    let program = &*inlined;
    check_supported(program, &syncs)?;
    declare_globals(&mut state, program)?;
    // Declare every function first: calls may come before definitions.
    for (i, f) in program.functions.iter().enumerate() {
        let sig = func::item_signature(&state, f);
        let id = state
            .module
            .declare_function(&format!("clift_fn{i}_{}", f.name), Linkage::Local, &sig)
            .map_err(|e| CodegenError(format!("declaring '{}': {e}", f.name)))?;
        state.functions.push(id);
    }
    let mut fctx = FunctionBuilderContext::new();
    for (i, f) in program.functions.iter().enumerate() {
        let id = FuncId(i as u32);
        let called = program.functions.iter().any(|g| g.callees.contains(&id));
        // A called kernel that synchronizes is inlined where it is called.
        if f.kernel.is_none() || !called || inlined_calls.contains(&id) {
            continue;
        }
        let mut plain = f.clone();
        plain.kernel = None;
        let sig = func::item_signature(&state, &plain);
        let clif = state
            .module
            .declare_function(
                &format!("clift_fn{i}_{}_called", f.name),
                Linkage::Local,
                &sig,
            )
            .map_err(|e| CodegenError(format!("declaring '{}': {e}", f.name)))?;
        func::define_as(&mut state, &plain, clif, &mut fctx, options)?;
        state.called_kernels.insert(id, clif);
    }
    let mut plans = HashMap::new();
    let mut resumable = std::collections::HashSet::new();
    for (i, f) in program.functions.iter().enumerate() {
        let Some(body) = &f.body else { continue };
        let id = FuncId(i as u32);
        if syncs.contains(&id) {
            continue;
        }
        if f.kernel.is_some() && func::contains_barrier(body) {
            let plan = if func::splits_at_barriers(body) {
                func::define_barrier_kernel(&mut state, id, f, &mut fctx, options)?
            } else {
                resumable.insert(id);
                func::define_resumable_kernel(&mut state, id, f, &mut fctx, options)?
            };
            plans.insert(id, plan);
        } else {
            func::define(&mut state, program, id, &mut fctx, options)?;
        }
    }
    let mut entries = Vec::new();
    for (id, f) in program.kernels() {
        let (layout, static_local) = layout::kernel_layout(f);
        let plan = plans.get(&id);
        let entry = define_work_group_function(&mut state, id, f, plan, &mut fctx)?;
        let frame_size = plan.map_or(0, |p| p.frame_size as usize);
        entries.push((id, entry, layout, static_local, frame_size));
    }
    compile_deferred(&mut state)?;
    state
        .module
        .finalize_definitions()
        .map_err(|e| CodegenError(format!("finalizing the JIT module: {e}")))?;
    let mut kernels = Vec::new();
    let code: Vec<*const u8> = entries
        .iter()
        .map(|(_, entry, ..)| state.module.get_finalized_function(*entry))
        .collect();
    let owner: Arc<dyn std::any::Any + Send + Sync> =
        Arc::new(CodeOwner(std::sync::Mutex::new(Some(state.module))));
    for ((id, _, layout, static_local, frame_size), address) in entries.into_iter().zip(code) {
        let f = program.function(id);
        let info = f.kernel.clone().unwrap_or_default();
        // SAFETY: `address` is the finalized work-group function defined with the
        // signature `fn(*const u8, *const WorkGroup)` in the host's C calling convention.
        let entry: crate::kernel::WorkGroupFn =
            unsafe { std::mem::transmute::<*const u8, crate::kernel::WorkGroupFn>(address) };
        let execution = if resumable.contains(&id) {
            crate::kernel::Execution::Resumable
        } else if plans.contains_key(&id) {
            crate::kernel::Execution::BarrierRegions
        } else {
            crate::kernel::Execution::WorkItemLoop
        };
        kernels.push(KernelCode {
            execution,
            name: f.name.to_string(),
            params: kernel_params(f, &info, &layout),
            args_size: layout.size,
            static_local_size: static_local,
            reqd_work_group_size: info.reqd_work_group_size.map(|r| r.map(|v| v as usize)),
            attributes: info.attributes.clone(),
            private_mem_size: frame_size.max(layout::private_size(f)),
            frame_size,
            arg_info: options.kernel_arg_info,
            entry,
            code_owner: Some(Arc::clone(&owner)),
        });
    }
    Ok(kernels)
}

/// A function lowered to Cranelift IR, waiting for machine code.
pub(crate) struct Deferred {
    id: ClifFuncId,
    /// What it is, for error messages ("'k'", "a part of 'k'", ...).
    what: String,
    ctx: cranelift_codegen::Context,
}

impl ModuleState {
    /// Queues a lowered function: [`compile_deferred`] compiles the queue in parallel.
    pub(crate) fn defer(&mut self, id: ClifFuncId, what: String, ctx: cranelift_codegen::Context) {
        self.deferred.push(Deferred { id, what, ctx });
    }
}

/// Compiles every queued function to machine code on all cores (Cranelift's compile of
/// one function is independent of the others), then defines the code in the JIT module,
/// with its relocations, in order.
fn compile_deferred(state: &mut ModuleState) -> Result<(), CodegenError> {
    let mut queue = std::mem::take(&mut state.deferred);
    // On clift's own pool (see `pool`); on this thread alone when no thread can start.
    compile_queue(&mut queue, &*state.isa, pool::build_pool().as_deref())?;
    for d in &queue {
        let code = d
            .ctx
            .compiled_code()
            .ok_or_else(|| CodegenError(format!("compiling {}: no code", d.what)))?;
        let relocs: Vec<cranelift_module::ModuleReloc> = code
            .buffer
            .relocs()
            .iter()
            .map(|r| cranelift_module::ModuleReloc::from_mach_reloc(r, &d.ctx.func, d.id))
            .collect();
        state
            .module
            .define_function_bytes(
                d.id,
                u64::from(code.buffer.alignment),
                code.code_buffer(),
                &relocs,
            )
            .map_err(|e| CodegenError(format!("defining {}: {e}", d.what)))?;
        dump::machine_code(&d.what, &d.ctx);
    }
    Ok(())
}

/// Compiles each function of `queue` to machine code, in parallel on `pool` when there is
/// one, else on the calling thread (never on rayon's global pool: see `pool`).
fn compile_queue(
    queue: &mut [Deferred],
    isa: &dyn cranelift_codegen::isa::TargetIsa,
    pool: Option<&rayon::ThreadPool>,
) -> Result<(), CodegenError> {
    use rayon::prelude::*;
    let compile = |d: &mut Deferred| {
        dump::request_disassembly(&mut d.ctx);
        d.ctx
            .compile(isa, &mut Default::default())
            .map(|_| ())
            .map_err(|e| CodegenError(format!("compiling {}: {:?}", d.what, e.inner)))
    };
    match pool {
        Some(pool) => pool.install(|| queue.par_iter_mut().try_for_each(compile)),
        None => queue.iter_mut().try_for_each(compile),
    }
}

/// Rejects what code generation cannot do yet, with a message for the build log.
fn check_supported(
    program: &tir::Program,
    inlined_only: &std::collections::HashSet<FuncId>,
) -> Result<(), CodegenError> {
    for (i, f) in program.functions.iter().enumerate() {
        if inlined_only.contains(&FuncId(i as u32)) {
            continue;
        }
        let Some(body) = &f.body else { continue };
        let mut problem = None;
        func::visit_builtins(body, &mut |name| {
            let barrier_outside_kernel = func::is_group_sync(name) && f.kernel.is_none();
            if problem.is_none() && barrier_outside_kernel {
                problem = Some(name.to_string());
            }
        });
        if let Some(name) = problem {
            return Err(CodegenError(format!(
                "'{}' uses {name}(), which clift cannot compile yet",
                f.name
            )));
        }
    }
    Ok(())
}

/// Program-scope `__constant` variables become read-only data objects.
fn declare_globals(state: &mut ModuleState, program: &tir::Program) -> Result<(), CodegenError> {
    for (i, g) in program.globals.iter().enumerate() {
        let id = state
            .module
            .declare_data(
                &format!("clift_global{i}_{}", g.name),
                Linkage::Local,
                false,
                false,
            )
            .map_err(|e| CodegenError(e.to_string()))?;
        let mut data = cranelift_module::DataDescription::new();
        data.define(g.init.clone().into_boxed_slice());
        data.set_align(g.ty.ty.align().max(16));
        state
            .module
            .define_data(id, &data)
            .map_err(|e| CodegenError(e.to_string()))?;
        state.globals.push(id);
    }
    Ok(())
}

/// The entry the runtime calls: runs one work-group. Without barriers it loops over the
/// local ids calling the kernel's work-item function; with barriers it runs the kernel's
/// plan (regions for every work-item, the control flow around barriers once).
fn define_work_group_function(
    state: &mut ModuleState,
    kernel: FuncId,
    f: &tir::Function,
    plan: Option<&func::BarrierPlan>,
    fctx: &mut FunctionBuilderContext,
) -> Result<ClifFuncId, CodegenError> {
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
        };
        match plan {
            None => {
                let callee = state
                    .module
                    .declare_func_in_func(state.functions[kernel.0 as usize], b.func);
                // The kernel's function loops over dimension 0 itself: one call per row.
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
    dump::function(&format!("work-group function of {}", f.name), &ctx.func);
    state.defer(id, format!("the work-group function of '{}'", f.name), ctx);
    Ok(id)
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
        nodes: &[func::WgNode],
    ) {
        for node in nodes {
            match node {
                func::WgNode::Break | func::WgNode::Continue => {
                    let Some(&(cont, exit)) = self.loops.last() else {
                        continue;
                    };
                    let target = if matches!(node, func::WgNode::Break) {
                        exit
                    } else {
                        cont
                    };
                    b.ins().jump(target, &[]);
                    // What follows in this block is unreachable; give it a block of its own.
                    let rest = b.create_block();
                    b.switch_to_block(rest);
                }
                func::WgNode::Resume {
                    func,
                    pass,
                    pending,
                } => {
                    let callee = func_ref(b, state, refs, *func);
                    self.passes(b, callee, *pass, *pending);
                }
                func::WgNode::Once(id) => {
                    let callee = func_ref(b, state, refs, *id);
                    self.set_first_item(b);
                    b.ins().call(callee, &[self.item]);
                }
                func::WgNode::Region(id) => {
                    // Region functions loop over dimension 0 themselves.
                    let callee = func_ref(b, state, refs, *id);
                    self.rows_only = true;
                    self.all_items(b, callee);
                }
                func::WgNode::If {
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
                func::WgNode::Loop {
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
                    b.ins().jump(head, &[]);
                    b.switch_to_block(exit);
                }
            }
        }
    }
}
