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
//! The typed-tree passes run first (`crate::passes`). Kernels with barriers are split into
//! region functions around them by their plan (`passes::barriers`, lowered in
//! `work_group.rs`), or, where their barriers are not in structured control flow, run as
//! resumable work-item functions (`func/resumable.rs`). The lowering of one function is
//! `func/`: `mod.rs` (variables, places, calls), `expr.rs`, `stmt.rs`, `rows.rs` (the row
//! loops and the functions of a kernel's plan).
//!
//! A kernel without barriers also gets a vectorized row function (`simd`) that runs 4
//! work-items of dimension 0 per step in SIMD registers; its scalar row function runs the
//! rest of the row (`ItemContext`'s `row_start`).

mod builtins;
pub mod dump;
mod fma_operands;
mod fold_loads;
mod func;
mod geometric;
mod images;
mod late;
mod layout;
pub mod link;
mod ops;
mod pool;
mod schedule;
mod simd;
mod step_pointers;
mod work_group;

use std::collections::HashMap;
use std::sync::Arc;

use cranelift_codegen::isa::OwnedTargetIsa;
use cranelift_frontend::FunctionBuilderContext;
use cranelift_jit::JITModule;
use cranelift_module::{FuncId as ClifFuncId, Linkage, Module};

use crate::frontend::tir::{self, FuncId};
use crate::jit;
use crate::kernel::KernelCode;
use crate::passes::inline;

pub use late::{
    DEFER_VAR, defer_rows_from_env, hold_late_rows, late_compiles_running, late_rows_pending,
    stub_rows, wait_for_late_rows,
};
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
    /// The local id of dimension 0 a kernel's scalar row function starts at: 0, or the
    /// number of items its vectorized row function (`simd`) already ran.
    pub const ROW_START: i32 = 72;
    pub const SIZE: u32 = 80;
}

/// What every work-item function receives (built on the work-group function's stack):
/// `{ group: *const WorkGroup, args: *const u8, local_id: [u64; 3], frame: *mut u8,
/// global_id: [u64; 3], row_start: u64 }`.
pub struct ItemContext;

/// Whether the environment variable `var` is set to anything but empty or `0` (read once,
/// into `cell`): the switches of docs/ENVIRONMENT.md that code generation reads.
pub(crate) fn env_flag(var: &str, cell: &'static std::sync::OnceLock<bool>) -> bool {
    *cell.get_or_init(|| std::env::var(var).is_ok_and(|v| !v.is_empty() && v != "0"))
}

/// The environment variable that builds every program in safe mode (as `-cl-clift-safe`).
pub const SAFE_VAR: &str = "CLIFT_SAFE";

/// Whether `CLIFT_SAFE` asks for safe mode (read once).
pub fn safe_from_env() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    env_flag(SAFE_VAR, &ON)
}

/// Why a program could not be compiled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CodegenError(pub String);

impl std::fmt::Display for CodegenError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The JIT module that owns a program's machine code, with the slots of its late rows
/// (`late`); dropped with the last kernel.
struct CodeOwner {
    module: std::sync::Mutex<Option<JITModule>>,
    late: late::Progress,
}

// SAFETY: after `finalize_definitions` the module's code is immutable and only freed on
// drop; nothing else in it is touched from other threads.
unsafe impl Send for CodeOwner {}
// SAFETY: as above; the mutex serializes the mutations (the late rows' definitions, the
// drop).
unsafe impl Sync for CodeOwner {}

impl Drop for CodeOwner {
    fn drop(&mut self) {
        if let Ok(mut guard) = self.module.lock()
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
    /// Run every work-item loop one item at a time, as `CLIFT_VECTORIZE=0` does (tests
    /// compare the two).
    pub scalar_only: bool,
    /// Keep explicit vector types (`float4`) lane by lane in the scalar code path instead of
    /// in vector registers, as `CLIFT_VECTOR_REGISTERS=0` does (tests compare the two).
    pub lanes_only: bool,
    /// Safe mode (`-cl-clift-safe`, `CLIFT_SAFE=1`): every access through a pointer or an
    /// index is bounds-checked (`func/safe.rs`); work-items run one at a time.
    pub safe: bool,
    /// Keep the order Cranelift's mid-end gives instructions instead of scheduling them
    /// ([`schedule`]), as `CLIFT_SCHEDULE=0` does (tests compare the two).
    pub unscheduled: bool,
    /// Compile large vectorized rows after the build returns ([`late`]); the runtime sets
    /// it unless `CLIFT_DEFER_ROWS=0`. Off, every function is compiled in the build.
    pub defer_rows: bool,
    /// The largest memory object a kernel can reach, in bytes: the device's
    /// `CL_DEVICE_MAX_MEM_ALLOC_SIZE` (the runtime sets it). Loops step pointers instead of
    /// 32-bit indices where that bound makes it exact ([`step_pointers`]); 0 (unknown)
    /// leaves the indices.
    pub max_object_size: u64,
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
        clift_builtins::safe::symbols(),
    ] {
        map.extend(list);
    }
    map
}

/// State shared by the lowering of every function of one program.
pub(crate) struct ModuleState {
    pub module: JITModule,
    pub isa: OwnedTargetIsa,
    /// The ISA that lowers the optimized, scheduled functions (`jit::lowering_isa`).
    pub lowering_isa: OwnedTargetIsa,
    /// `CodegenOptions::unscheduled`.
    pub unscheduled: bool,
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
    /// Vectorized functions compiled after the build returns ([`late`]).
    pub(super) late: late::LateRows,
    /// Safe mode: the position of each bounds check (site `i + 1`).
    pub safe_sites: Vec<crate::frontend::source::Span>,
    /// Safe mode: the list of program-scope variables (`func::safe::define_statics`).
    pub safe_statics: Option<cranelift_module::DataId>,
    /// The size of each program-scope variable's data object.
    pub global_sizes: Vec<u64>,
    /// `CodegenOptions::max_object_size`.
    pub max_object_size: u64,
}

/// Compiles every kernel of `program`.
///
/// The program is taken by value: the passes rewrite it in place, and it is dropped once
/// every function is lowered, before Cranelift compiles them (a build's peak memory is
/// then the larger of the tree with the lowered functions and Cranelift's own).
pub fn compile(
    program: tir::Program,
    options: &CodegenOptions,
) -> Result<Vec<KernelCode>, CodegenError> {
    compile_with_sites(program, options).map(|(kernels, _)| kernels)
}

/// [`compile`], with the position of each safe-mode check (site `i + 1`; empty unless
/// `options.safe`), which the build turns into the kernels' site tables.
pub fn compile_with_sites(
    program: tir::Program,
    options: &CodegenOptions,
) -> Result<(Vec<KernelCode>, Vec<crate::frontend::source::Span>), CodegenError> {
    // Code that calls what does not exist cannot be finalized (the build reports these with
    // their positions before it gets here).
    if let Some(u) = link::unresolved(&program).first() {
        return Err(CodegenError(u.message()));
    }
    let symbols = builtin_symbols();
    let isa = jit::host_isa().map_err(|e| CodegenError(e.to_string()))?;
    let lowering_isa = jit::lowering_isa().map_err(|e| CodegenError(e.to_string()))?;
    let module = jit::new_module(symbols.iter().map(|(k, v)| (k.to_string(), *v)))
        .map_err(|e| CodegenError(e.to_string()))?;
    let mut state = ModuleState {
        module,
        isa,
        lowering_isa,
        unscheduled: options.unscheduled,
        functions: Vec::new(),
        imports: HashMap::new(),
        symbols,
        globals: Vec::new(),
        strings: HashMap::new(),
        called_kernels: HashMap::new(),
        deferred: Vec::new(),
        late: late::LateRows::new(options.defer_rows),
        safe_sites: Vec::new(),
        safe_statics: None,
        global_sizes: Vec::new(),
        max_object_size: options.max_object_size,
    };
    // Helpers that synchronize the group exist only inlined into their kernels.
    let inlined_calls = inline::synchronizing(&program);
    // The helpers among them exist only inlined (the kernels are compiled as kernels too).
    let syncs: std::collections::HashSet<FuncId> = inlined_calls
        .iter()
        .copied()
        .filter(|id| program.function(*id).kernel.is_none())
        .collect();
    // The typed-tree passes (inlining, switch rewriting), in their order; `CLIFT_DUMP_TIR`
    // and the stage goldens see the tree after each.
    let transformed =
        crate::passes::run_observed(program, &mut dump::tree).map_err(CodegenError)?;
    let program = &transformed;
    dump::uniform(program);
    check_supported(program, &syncs)?;
    declare_globals(&mut state, program)?;
    if options.safe {
        func::safe::define_statics(&mut state, program)?;
    }
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
        if f.kernel.is_some() && crate::passes::analysis::contains_barrier(body) {
            let plan = if func::splits_at_barriers(body) {
                work_group::define_barrier_kernel(&mut state, id, f, &mut fctx, options)?
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
    let mut vectorized = HashMap::new();
    let mut no_effects = std::collections::HashSet::new();
    for (id, f) in program.kernels() {
        let (layout, static_local) = layout::kernel_layout(f);
        let plan = plans.get(&id);
        // Safe mode checks the reads such a body makes (none are dropped there).
        let no_effect =
            plan.is_none() && !options.safe && crate::passes::analysis::has_no_effect(f);
        // Kernels without barriers may also get a row function that runs 4 work-items per
        // step (`simd`); the reason it does not is reported in the build log.
        let vector_row = match plan {
            None if no_effect => Err("there is nothing to run".to_string()),
            // Checks are emitted by the scalar lowering only.
            None if options.safe => Err("safe mode runs work-items one at a time".to_string()),
            None => simd::define_vector_row(&mut state, f, options),
            Some(_) => Err(String::new()),
        };
        let row_call = match &vector_row {
            Ok((row, _)) => Some(late::row_call(&mut state, *row, &f.name)),
            Err(_) => None,
        };
        let entry = if no_effect {
            no_effects.insert(id);
            work_group::define_returning_work_group_function(&mut state, f, &mut fctx)?
        } else {
            work_group::define_work_group_function(&mut state, id, f, plan, row_call, &mut fctx)?
        };
        let status = match plan {
            None => vector_row.map(|(_, items)| items),
            Some(p) => p.vectorized.clone().map(|()| simd::WIDTH as u32),
        };
        vectorized.insert(id, status);
        let frame_size = plan.map_or(0, |p| p.frame_size as usize);
        entries.push((id, entry, layout, static_local, frame_size));
    }
    // What the kernels' descriptions need from the tree, taken before it is dropped.
    let described: Vec<Described> = entries
        .into_iter()
        .map(|(id, entry, layout, static_local, frame_size)| {
            let f = program.function(id);
            let info = f.kernel.clone().unwrap_or_default();
            let execution = if no_effects.contains(&id) {
                crate::kernel::Execution::NoEffect
            } else if resumable.contains(&id) {
                crate::kernel::Execution::Resumable
            } else if plans.contains_key(&id) {
                crate::kernel::Execution::BarrierRegions
            } else {
                crate::kernel::Execution::WorkItemLoop
            };
            Described {
                entry,
                execution,
                vectorized: vectorized
                    .remove(&id)
                    .unwrap_or_else(|| Err("not a kernel".into())),
                name: f.name.to_string(),
                params: kernel_params(f, &info, &layout),
                args_size: layout.size,
                static_local_size: static_local,
                reqd_work_group_size: info.reqd_work_group_size.map(|r| r.map(|v| v as usize)),
                attributes: info.attributes,
                private_mem_size: frame_size.max(layout::private_size(f)),
                frame_size,
            }
        })
        .collect();
    drop(plans);
    drop(transformed);
    // Only a large program's tree is worth the walk over the heap.
    let lowered: usize = state
        .deferred
        .iter()
        .map(|d| d.ctx.func.dfg.num_insts())
        .sum();
    if lowered >= LARGE_PROGRAM_INSTS {
        crate::budget::return_freed_memory();
    }
    compile_deferred(&mut state)?;
    state
        .module
        .finalize_definitions()
        .map_err(|e| CodegenError(format!("finalizing the JIT module: {e}")))?;
    let sites = std::mem::take(&mut state.safe_sites);
    let code: Vec<*const u8> = described
        .iter()
        .map(|d| state.module.get_finalized_function(d.entry))
        .collect();
    let (progress, late_work) = late::progress(std::mem::take(&mut state.late));
    let owner = Arc::new(CodeOwner {
        module: std::sync::Mutex::new(Some(state.module)),
        late: progress,
    });
    if let Some(work) = late_work {
        let scheduled = !state.unscheduled && schedule::enabled_by_environment();
        late::compile_later(&owner, work, (state.isa, state.lowering_isa), scheduled);
    }
    let owner: Arc<dyn std::any::Any + Send + Sync> = owner;
    let kernels = described
        .into_iter()
        .zip(code)
        .map(|(d, address)| {
            // SAFETY: `address` is the finalized work-group function defined with the
            // signature `fn(*const u8, *const WorkGroup)` in the host's C calling convention.
            let entry: crate::kernel::WorkGroupFn =
                unsafe { std::mem::transmute::<*const u8, crate::kernel::WorkGroupFn>(address) };
            KernelCode {
                execution: d.execution,
                vectorized: d.vectorized,
                name: d.name,
                params: d.params,
                args_size: d.args_size,
                static_local_size: d.static_local_size,
                reqd_work_group_size: d.reqd_work_group_size,
                attributes: d.attributes,
                private_mem_size: d.private_mem_size,
                frame_size: d.frame_size,
                arg_info: options.kernel_arg_info,
                entry,
                code_owner: Some(Arc::clone(&owner)),
                safe_sites: None,
            }
        })
        .collect();
    Ok((kernels, sites))
}

/// Cranelift instructions from which a program counts as large (a build of seconds, whose
/// tree held tens of megabytes).
const LARGE_PROGRAM_INSTS: usize = 100_000;

/// A kernel's description, taken from the typed tree before the tree is dropped: all of
/// [`KernelCode`] but the entry's address (known once the module is finalized).
struct Described {
    entry: ClifFuncId,
    execution: crate::kernel::Execution,
    vectorized: Result<u32, String>,
    name: String,
    params: Vec<crate::kernel::KernelParam>,
    args_size: usize,
    static_local_size: usize,
    reqd_work_group_size: Option<[usize; 3]>,
    attributes: String,
    private_mem_size: usize,
    frame_size: usize,
}

/// A function lowered to Cranelift IR, waiting for machine code.
pub(crate) struct Deferred {
    id: ClifFuncId,
    /// What it is, for error messages ("'k'", "a part of 'k'", ...).
    what: String,
    ctx: cranelift_codegen::Context,
    /// `CodegenOptions::max_object_size`, for [`step_pointers`].
    max_object_size: u64,
}

impl ModuleState {
    /// Queues a lowered function: [`compile_deferred`] compiles the queue in parallel.
    pub(crate) fn defer(&mut self, id: ClifFuncId, what: String, ctx: cranelift_codegen::Context) {
        self.deferred.push(Deferred {
            id,
            what,
            ctx,
            max_object_size: self.max_object_size,
        });
    }
}

/// Compiles every queued function to machine code on all cores (Cranelift's compile of
/// one function is independent of the others), then defines the code in the JIT module,
/// with its relocations, in order.
fn compile_deferred(state: &mut ModuleState) -> Result<(), CodegenError> {
    let mut queue = std::mem::take(&mut state.deferred);
    // On clift's own pool (see `pool`); on this thread alone when no thread can start.
    let isas = (&*state.isa, &*state.lowering_isa);
    let scheduled = !state.unscheduled && schedule::enabled_by_environment();
    compile_queue(&mut queue, isas, scheduled, pool::build_pool().as_deref())?;
    for d in &queue {
        define_compiled(&mut state.module, d)?;
    }
    Ok(())
}

/// Defines the compiled function `d` in `module`, with its relocations.
fn define_compiled(module: &mut JITModule, d: &Deferred) -> Result<(), CodegenError> {
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
    module
        .define_function_bytes(
            d.id,
            u64::from(code.buffer.alignment),
            code.code_buffer(),
            &relocs,
        )
        .map_err(|e| CodegenError(format!("defining {}: {e}", d.what)))?;
    dump::machine_code(&d.what, &d.ctx);
    Ok(())
}

/// Compiles each function of `queue` to machine code, in parallel on `pool` when there is
/// one, else on the calling thread (never on rayon's global pool: see `pool`): optimized
/// by the first ISA's mid-end, scheduled ([`fold_loads`], then [`schedule`]) unless not
/// `scheduled`, lowered by the second.
fn compile_queue(
    queue: &mut [Deferred],
    (isa, lowering_isa): (
        &dyn cranelift_codegen::isa::TargetIsa,
        &dyn cranelift_codegen::isa::TargetIsa,
    ),
    scheduled: bool,
    pool: Option<&rayon::ThreadPool>,
) -> Result<(), CodegenError> {
    use rayon::prelude::*;
    let compile = |d: &mut Deferred| compile_one(d, (isa, lowering_isa), scheduled);
    match pool {
        Some(pool) => {
            // Largest first, one function per task: the build ends when its largest
            // function is compiled, so that one starts at once instead of after the others
            // of its share of the queue (the definitions stay in queue order).
            let mut order: Vec<&mut Deferred> = queue.iter_mut().collect();
            order.sort_by_key(|d| std::cmp::Reverse(d.ctx.func.dfg.num_insts()));
            pool.install(|| order.into_par_iter().with_max_len(1).try_for_each(compile))
        }
        None => queue.iter_mut().try_for_each(compile),
    }
}

/// Compiles one queued function to machine code (see [`compile_queue`]).
fn compile_one(
    d: &mut Deferred,
    (isa, lowering_isa): (
        &dyn cranelift_codegen::isa::TargetIsa,
        &dyn cranelift_codegen::isa::TargetIsa,
    ),
    scheduled: bool,
) -> Result<(), CodegenError> {
    dump::request_disassembly(&mut d.ctx);
    let error =
        |e: cranelift_codegen::CodegenError| CodegenError(format!("compiling {}: {e:?}", d.what));
    d.ctx
        .optimize(isa, &mut Default::default())
        .map_err(error)?;
    fma_operands::order_factors(&mut d.ctx.func);
    step_pointers::step_pointers(&mut d.ctx, d.max_object_size);
    if scheduled {
        if fold_loads::enabled_by_environment() {
            fold_loads::fold_loads(&mut d.ctx);
        }
        schedule::schedule(&mut d.ctx.func);
    }
    d.ctx
        .compile(lowering_isa, &mut Default::default())
        .map(|_| ())
        .map_err(|e| error(e.inner))
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
        crate::passes::analysis::visit_builtins(body, &mut |id| {
            let barrier_outside_kernel =
                crate::passes::analysis::is_group_sync(id) && f.kernel.is_none();
            if problem.is_none() && barrier_outside_kernel {
                problem = Some(id.name());
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
        state.global_sizes.push(g.init.len() as u64);
    }
    Ok(())
}
