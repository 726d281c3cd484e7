//! The lowering of one function of the typed tree to a Cranelift work-item function.

use std::collections::{HashMap, HashSet};

use cranelift_codegen::ir::{
    self, AbiParam, Block, InstBuilder, MemFlagsData, StackSlot, Value, types,
};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Variable};
use cranelift_module::Module;

use super::layout::{kernel_layout, local_offsets, param_kind};
use super::ops::lane_types;
use super::{CodegenError, CodegenOptions, ModuleState, item_context};
use crate::frontend::tir::BuiltinFunction;
use crate::frontend::tir::{self, FuncId, Init, LocalId, Place, PlaceKind};
use crate::frontend::types::{AddressSpace, Scalar, Type};
use crate::kernel::{ParamKind, WorkGroup};
use crate::passes::analysis::address_taken;
use crate::passes::barriers::FrameLayout;

mod expr;
mod half;
pub(in crate::codegen) mod packed;
mod packed_ops;
mod resumable;
mod rows;
pub(in crate::codegen) mod safe;
mod stmt;

pub(in crate::codegen) use packed::Shape;
pub(super) use resumable::{define_resumable_kernel, splits_at_barriers};
pub(super) use rows::{constant_dimension, reads_local_id_from_memory};
use stmt::SwitchExit;

pub(super) type Lanes = Vec<Value>;
pub(super) type Result<T> = std::result::Result<T, CodegenError>;

/// Flags of loads that read the same value for the whole call (the argument block, the
/// work-group description, the item context's pointers): read-only and movable, so
/// Cranelift may hoist them out of the work-item loop.
pub(super) fn invariant() -> MemFlagsData {
    MemFlagsData::trusted().with_readonly().with_can_move()
}

pub(super) fn unsupported<T>(what: impl Into<String>) -> Result<T> {
    Err(CodegenError(what.into()))
}

/// The alignment Cranelift gives a stack slot at most (that of the stack pointer).
const STACK_ALIGN: u32 = 16;

/// Where a variable lives.
pub(in crate::codegen) enum Storage {
    /// In SSA variables, one per lane.
    Vars(Vec<Variable>),
    /// A vector in SSA variables of 128-bit register type ([`packed`]).
    Packed(Vec<Variable>, Shape),
    /// In a stack slot of the work-item function, at its first address that is a multiple of
    /// the alignment (Cranelift aligns slots to at most 16 bytes of the stack pointer; an
    /// `int16` needs 64, a `double16` 128: such slots are larger by the difference).
    Stack(StackSlot, u32),
    /// At an offset of the work-group's local memory.
    LocalMemory(u64),
    /// At an offset of the work-item's frame (kernels with barriers, whose variables must
    /// outlive each region between barriers).
    Frame(u32),
    /// A uniform variable of a kernel with barriers (`passes/uniform.rs`): kept once for
    /// the group, at its offset of the first work-item's frame.
    SharedFrame(u32),
}

/// A place, resolved.
#[derive(Clone)]
pub(in crate::codegen) enum PlaceRef {
    Var(LocalId),
    Mem(Value),
    Lanes(Box<PlaceRef>, Vec<u8>, Scalar, u8),
}

/// The signature of a function's work-item function: the item context, then each
/// parameter's lanes (structs by address); results: the return value's lanes.
pub(super) fn item_signature(state: &ModuleState, f: &tir::Function) -> ir::Signature {
    let mut sig = state.module.make_signature();
    sig.params.push(AbiParam::new(types::I64));
    if f.kernel.is_none() {
        if returns_by_pointer(&f.ret) {
            sig.params.push(AbiParam::new(types::I64));
        }
        for id in f.param_ids() {
            for t in flat_types(&f.local(id).ty.ty) {
                sig.params.push(AbiParam::new(t));
            }
        }
        if !returns_by_pointer(&f.ret) {
            for t in flat_types(&f.ret) {
                sig.returns.push(AbiParam::new(t));
            }
        }
    }
    sig
}

/// Structs, and vectors of more than two lanes (more values than Cranelift returns in
/// registers), are returned through a pointer to the caller's memory.
fn returns_by_pointer(ty: &Type) -> bool {
    match lane_types(ty) {
        Some((_, n)) => n > 2,
        None => !ty.is_void(),
    }
}

/// The Cranelift values a value of `ty` is passed as.
fn flat_types(ty: &Type) -> Vec<ir::Type> {
    match lane_types(ty) {
        Some((t, n)) => vec![t; n],
        None if ty.is_void() => Vec::new(),
        None => vec![types::I64],
    }
}

/// Defines the work-item function of `id`.
pub(super) fn define(
    state: &mut ModuleState,
    program: &tir::Program,
    id: FuncId,
    fctx: &mut FunctionBuilderContext,
    options: &CodegenOptions,
) -> Result<()> {
    let clif_id = state.functions[id.0 as usize];
    define_as(state, program.function(id), clif_id, fctx, options)
}

/// Defines the Cranelift function `clif_id` as the work-item function of `f` (for a kernel
/// called by another function: `f` is the kernel's copy without its kernel attributes, whose
/// parameters are ordinary ones).
pub(super) fn define_as(
    state: &mut ModuleState,
    f: &tir::Function,
    clif_id: cranelift_module::FuncId,
    fctx: &mut FunctionBuilderContext,
    options: &CodegenOptions,
) -> Result<()> {
    let mut ctx = state.module.make_context();
    ctx.func.signature = item_signature(state, f);
    {
        let b = FunctionBuilder::new(&mut ctx.func, fctx);
        let mut lower = Lower::new(b, state, f, options);
        lower.function()?;
        let config = lower.state.isa.frontend_config();
        lower.b.finalize(config);
    }
    super::dump::function(&f.name, &ctx.func);
    state.defer(clif_id, format!("'{}'", f.name), ctx);
    Ok(())
}

pub(super) struct Lower<'a, 'b> {
    pub b: FunctionBuilder<'b>,
    pub state: &'a mut ModuleState,
    func: &'a tir::Function,
    /// The item context pointer (the function's first parameter).
    pub item: Value,
    pub(in crate::codegen) storage: Vec<Storage>,
    labels: HashMap<u32, Block>,
    breaks: Vec<Block>,
    /// The `break`s of each switch being lowered, gathered in join blocks (see
    /// [`SwitchExit`]).
    switch_exits: Vec<SwitchExit>,
    continues: Vec<Block>,
    func_refs: HashMap<cranelift_module::FuncId, ir::FuncRef>,
    pub mad_enable: bool,
    /// Explicit vector types in vector registers ([`packed`]).
    pub vector_registers: bool,
    /// The vector variables that stay lane by lane ([`packed::component_written`]).
    component_written: HashSet<LocalId>,
    /// In a kernel's row loop: the local id of dimension 0.
    pub local_x: Option<Variable>,
    /// In a kernel's row loop: where `return` goes (the next work-item).
    return_target: Option<Block>,
    /// In a row loop: the global id of dimension 0 (a second counter of the loop, so that
    /// the id is not recomputed for each item).
    pub global_x: Option<Variable>,
    /// In a row loop: `get_group_id(1)` and the like, read before the loop.
    pub row_constants: HashMap<(BuiltinFunction, u64), Value>,
    /// Where a function returning through memory writes its result.
    sret: Option<Value>,
    /// In a region of a kernel with barriers: the frame offset of the work-item's "done"
    /// flag, set by `return` so that the later regions skip the item.
    done_flag: Option<u32>,
    /// In a resumable kernel ([`resumable`]): where each barrier resumes.
    resume: Option<resumable::ResumePoints>,
    /// Safe mode's state (`safe`): `Some` in a safe build.
    safe: Option<Box<safe::SafeLower>>,
}

impl<'a, 'b> Lower<'a, 'b> {
    /// A lowering of `func` into the function `b` builds, its variables not placed yet.
    pub(in crate::codegen) fn new(
        b: FunctionBuilder<'b>,
        state: &'a mut ModuleState,
        func: &'a tir::Function,
        options: &CodegenOptions,
    ) -> Self {
        Lower {
            b,
            state,
            func,
            item: cranelift_codegen::entity::EntityRef::new(0),
            storage: Vec::new(),
            labels: HashMap::new(),
            breaks: Vec::new(),
            switch_exits: Vec::new(),
            continues: Vec::new(),
            func_refs: HashMap::new(),
            mad_enable: options.mad_enable,
            vector_registers: !options.lanes_only && packed::enabled_by_environment(),
            component_written: HashSet::new(),
            local_x: None,
            return_target: None,
            global_x: None,
            row_constants: HashMap::new(),
            sret: None,
            done_flag: None,
            resume: None,
            safe: options.safe.then(Default::default),
        }
    }
}

impl Lower<'_, '_> {
    fn function(&mut self) -> Result<()> {
        let entry = self.b.create_block();
        self.b.append_block_params_for_function_params(entry);
        self.b.switch_to_block(entry);
        let params: Vec<Value> = self.b.block_params(entry).to_vec();
        self.item = params[0];
        let Some(body) = self.func.body.as_ref() else {
            return Err(CodegenError(format!(
                "'{}' is declared but not defined",
                self.func.name
            )));
        };
        self.setup_storage(Some(&address_taken(body)), None);
        if self.func.kernel.is_some() {
            return self.kernel_row(body);
        }
        let mut incoming = &params[1..];
        if returns_by_pointer(&self.func.ret) {
            self.sret = Some(params[1]);
            incoming = &params[2..];
        }
        self.parameters(incoming)?;
        self.block(body)?;
        if !self.terminated() {
            let zeros: Vec<Value> = if self.sret.is_some() {
                Vec::new()
            } else {
                flat_types(&self.func.ret)
                    .into_iter()
                    .map(|t| self.zero(t))
                    .collect()
            };
            self.b.ins().return_(&zeros);
        }
        self.b.seal_all_blocks();
        Ok(())
    }

    /// Decides where each variable lives: in frames (for kernels with barriers), or in SSA
    /// variables unless its address is taken, else in a stack slot; `__local` variables in
    /// local memory.
    pub(in crate::codegen) fn setup_storage(
        &mut self,
        taken: Option<&HashSet<LocalId>>,
        frames: Option<&FrameLayout>,
    ) {
        let (local_memory, _) = local_offsets(self.func);
        if self.vector_registers
            && let Some(body) = self.func.body.as_ref()
        {
            self.component_written = packed::component_written(body);
        }
        for (i, local) in self.func.locals.iter().enumerate() {
            let id = LocalId(i as u32);
            let storage = if local.ty.space == AddressSpace::Local && (i as u32) >= self.func.params
            {
                Storage::LocalMemory(local_memory[&id])
            } else if let Some((offset, frames)) =
                frames.and_then(|f| f.offsets.get(&id).map(|o| (o, f)))
            {
                if frames.shared.contains(&id) {
                    Storage::SharedFrame(*offset)
                } else {
                    Storage::Frame(*offset)
                }
            } else if let (Some(s), false) =
                (self.local_shape(id), taken.is_some_and(|t| t.contains(&id)))
            {
                self.packed_storage(s)
            } else if let (Some((t, n)), false) = (
                lane_types(&local.ty.ty),
                taken.is_some_and(|t| t.contains(&id)),
            ) {
                Storage::Vars((0..n).map(|_| self.b.declare_var(t)).collect())
            } else {
                // "A data item declared to be a data type in memory is always aligned to the
                // size of the data type in bytes" (6.1.5), structs to their largest member.
                let align = local.ty.ty.align().max(1) as u32;
                let size = local.ty.ty.size().max(1) as u32 + align.saturating_sub(STACK_ALIGN);
                let slot = self.b.create_sized_stack_slot(ir::StackSlotData::new(
                    ir::StackSlotKind::ExplicitSlot,
                    size,
                    align.min(STACK_ALIGN).trailing_zeros() as u8,
                ));
                Storage::Stack(slot, align)
            };
            self.storage.push(storage);
        }
        self.declare_shadows();
    }

    /// Stores the incoming parameters (from the signature, or for kernels from the argument
    /// block) into their variables.
    fn parameters(&mut self, incoming: &[Value]) -> Result<()> {
        if self.func.kernel.is_some() {
            let values = self.kernel_arguments()?;
            self.store_parameters(values)
        } else {
            let mut next = 0;
            for id in self.func.param_ids() {
                let ty = self.func.local(id).ty.ty.clone();
                let n = flat_types(&ty).len();
                let value = incoming[next..next + n].to_vec();
                next += n;
                self.store_local(id, &ty, value)?;
            }
            Ok(())
        }
    }

    /// Stores a kernel's argument values ([`Lower::kernel_arguments`]) into its parameters.
    pub(in crate::codegen) fn store_parameters(&mut self, values: Vec<Lanes>) -> Result<()> {
        let ids: Vec<LocalId> = self.func.param_ids().collect();
        for (id, value) in ids.into_iter().zip(values) {
            let ty = self.func.local(id).ty.ty.clone();
            self.store_local(id, &ty, value)?;
        }
        Ok(())
    }

    /// A kernel's argument values, read from the argument block (structs by address).
    pub(in crate::codegen) fn kernel_arguments(&mut self) -> Result<Vec<Lanes>> {
        let flags = MemFlagsData::trusted();
        let mut values = Vec::new();
        {
            let (layout, _) = kernel_layout(self.func);
            let args = self
                .b
                .ins()
                .load(types::I64, flags, self.item, item_context::ARGS);
            for (i, id) in self.func.param_ids().enumerate() {
                let ty = self.func.local(id).ty.ty.clone();
                let offset = layout.offsets[i] as i32;
                let value = match param_kind(&ty) {
                    ParamKind::Buffer { .. } => {
                        let pointer = self.b.ins().load(types::I64, flags, args, offset);
                        self.note_parameter(i, pointer);
                        vec![pointer]
                    }
                    ParamKind::Local => {
                        let off = self.b.ins().load(types::I64, flags, args, offset);
                        let group = self.group();
                        let base = self.b.ins().load(
                            types::I64,
                            flags,
                            group,
                            WorkGroup::OFFSET_LOCAL_MEMORY,
                        );
                        let pointer = self.b.ins().iadd(base, off);
                        self.note_parameter(i, pointer);
                        vec![pointer]
                    }
                    ParamKind::Sampler => vec![self.b.ins().load(types::I32, flags, args, offset)],
                    // The address of the image's descriptor.
                    ParamKind::Image(_) => vec![self.b.ins().load(types::I64, flags, args, offset)],
                    ParamKind::Value { .. } if ty.element() == Some(Scalar::Half) => {
                        let base = self.b.ins().iadd_imm_s(args, i64::from(offset));
                        (0..ty.lanes().max(1) as i32)
                            .map(|l| self.load_half(base, 2 * l))
                            .collect::<Result<_>>()?
                    }
                    ParamKind::Value { .. } => match lane_types(&ty) {
                        Some((t, n)) => {
                            let size = t.bytes() as i32;
                            (0..n)
                                .map(|l| {
                                    self.b.ins().load(
                                        t,
                                        MemFlagsData::new(),
                                        args,
                                        offset + l as i32 * size,
                                    )
                                })
                                .collect()
                        }
                        None => {
                            let src = self.b.ins().iadd_imm_s(args, i64::from(offset));
                            vec![src]
                        }
                    },
                };
                values.push(value);
            }
        }
        Ok(values)
    }

    pub(in crate::codegen) fn store_local(
        &mut self,
        id: LocalId,
        ty: &Type,
        value: Lanes,
    ) -> Result<()> {
        let place = self.local_ref(id);
        self.store(&place, ty, value)
    }

    pub fn group(&mut self) -> Value {
        self.b
            .ins()
            .load(types::I64, invariant(), self.item, item_context::GROUP)
    }

    fn zero(&mut self, t: ir::Type) -> Value {
        match t {
            types::F32 => self.b.ins().f32const(0.0),
            types::F64 => self.b.ins().f64const(0.0),
            t => self.b.ins().iconst(t, 0),
        }
    }

    /// Whether the current block already ends (after `return`, `break`, ...); code after
    /// it is unreachable and goes to a fresh block.
    fn terminated(&self) -> bool {
        let Some(block) = self.b.current_block() else {
            return true;
        };
        self.b
            .func
            .layout
            .last_inst(block)
            .is_some_and(|i| self.b.func.dfg.insts[i].opcode().is_terminator())
    }

    fn fresh_block_if_terminated(&mut self) {
        if self.terminated() {
            let b = self.b.create_block();
            self.b.switch_to_block(b);
        }
    }

    fn jump(&mut self, target: Block) {
        if !self.terminated() {
            self.b.ins().jump(target, &[]);
        }
    }

    fn label_block(&mut self, id: tir::LabelId) -> Block {
        if let Some(b) = self.labels.get(&id.0) {
            return *b;
        }
        let b = self.b.create_block();
        self.labels.insert(id.0, b);
        b
    }

    fn zero_fill(&mut self, base: Value, size: u64) {
        let zero = self.b.ins().iconst(types::I8, 0);
        let config = self.state.isa.frontend_config();
        self.b
            .emit_small_memset(config, base, 0, size, 1, MemFlagsData::trusted());
        let _ = zero;
    }

    fn local_ref(&mut self, id: LocalId) -> PlaceRef {
        match &self.storage[id.0 as usize] {
            Storage::Vars(_) | Storage::Packed(..) => PlaceRef::Var(id),
            Storage::Stack(slot, align) => {
                let (slot, align) = (*slot, *align);
                let addr = self.b.ins().stack_addr(types::I64, slot, 0);
                if align <= STACK_ALIGN {
                    return PlaceRef::Mem(addr);
                }
                // Round up to the alignment (the slot has room for it).
                let up = self.b.ins().iadd_imm_s(addr, i64::from(align - 1));
                PlaceRef::Mem(self.b.ins().band_imm_s(up, -i64::from(align)))
            }
            Storage::LocalMemory(offset) => {
                let offset = *offset;
                let group = self.group();
                let base = self.b.ins().load(
                    types::I64,
                    MemFlagsData::trusted(),
                    group,
                    WorkGroup::OFFSET_LOCAL_MEMORY,
                );
                PlaceRef::Mem(self.b.ins().iadd_imm_s(base, offset as i64))
            }
            Storage::Frame(offset) => PlaceRef::Mem(self.frame_address(*offset)),
            Storage::SharedFrame(offset) => PlaceRef::Mem(self.shared_frame_address(*offset)),
        }
    }

    /// The address of byte `offset` of the group's first frame (uniform variables).
    pub(in crate::codegen) fn shared_frame_address(&mut self, offset: u32) -> Value {
        let group = self.group();
        let frames = self.b.ins().load(
            types::I64,
            MemFlagsData::trusted(),
            group,
            WorkGroup::OFFSET_PRIVATE_FRAMES,
        );
        self.b.ins().iadd_imm_s(frames, i64::from(offset))
    }

    /// Stores a variable's initializer (an aggregate's unnamed bytes become zero).
    fn init_local(&mut self, local: LocalId, init: &Init) -> Result<()> {
        let ty = self.func.local(local).ty.ty.clone();
        match init {
            Init::Expr(e) => {
                let v = self.expr(e)?;
                self.store_local(local, &ty, v)
            }
            Init::Aggregate(items) => {
                let PlaceRef::Mem(base) = self.local_ref(local) else {
                    return unsupported("aggregate initializer of a register variable");
                };
                self.zero_fill(base, ty.size());
                for (offset, e) in items {
                    let v = self.expr(e)?;
                    let addr = self.b.ins().iadd_imm_s(base, *offset as i64);
                    self.store(&PlaceRef::Mem(addr), &e.ty, v)?;
                }
                Ok(())
            }
        }
    }

    pub(in crate::codegen) fn place(&mut self, p: &Place) -> Result<PlaceRef> {
        Ok(match &p.kind {
            PlaceKind::Local(id) => {
                let r = self.local_ref(*id);
                if let PlaceRef::Mem(addr) = r {
                    self.note_object(addr, p.ty.ty.size());
                }
                r
            }
            PlaceKind::Global(g) => {
                let data = self.state.globals[g.0 as usize];
                let gv = self.state.module.declare_data_in_func(data, self.b.func);
                let addr = self.b.ins().symbol_value(types::I64, gv);
                // Its defined size (an `extern` declaration may leave an array's open).
                let size = self.state.global_sizes.get(g.0 as usize).copied();
                self.note_object(addr, size.unwrap_or_else(|| p.ty.ty.size()));
                PlaceRef::Mem(addr)
            }
            PlaceKind::Deref(e) => {
                let pointer = self.expr(e)?[0];
                self.find_object(pointer, p.ty.space);
                PlaceRef::Mem(pointer)
            }
            // A struct value is held by its address.
            PlaceKind::Value(e) => PlaceRef::Mem(self.expr(e)?[0]),
            PlaceKind::Element { array, index } => {
                let PlaceRef::Mem(base) = self.place(array)? else {
                    return unsupported("element of a register array");
                };
                let i = self.expr(index)?[0];
                let i = self.index_to_i64(i, &index.ty);
                let scaled = self.b.ins().imul_imm_s(i, p.ty.ty.size() as i64);
                let addr = self.b.ins().iadd(base, scaled);
                self.same_object(base, addr);
                PlaceRef::Mem(addr)
            }
            PlaceKind::Field { record, field } => {
                let PlaceRef::Mem(base) = self.place(record)? else {
                    return unsupported("field of a register value");
                };
                let Type::Record(r) = &record.ty.ty else {
                    return unsupported("field of a non-record");
                };
                let offset = r.fields[*field as usize].offset;
                let addr = self.b.ins().iadd_imm_s(base, offset as i64);
                self.same_object(base, addr);
                PlaceRef::Mem(addr)
            }
            PlaceKind::Lanes { vector, lanes } => {
                let Type::Vector(s, n) = vector.ty.ty else {
                    return unsupported("lanes of a non-vector");
                };
                PlaceRef::Lanes(Box::new(self.place(vector)?), lanes.clone(), s, n)
            }
            PlaceKind::CompoundLiteral { local, init } => {
                self.init_local(*local, init)?;
                self.local_ref(*local)
            }
        })
    }

    fn index_to_i64(&mut self, v: Value, ty: &Type) -> Value {
        let t = self.b.func.dfg.value_type(v);
        if t == types::I64 {
            return v;
        }
        if ty.scalar().is_some_and(Scalar::is_signed) {
            self.b.ins().sextend(types::I64, v)
        } else {
            self.b.ins().uextend(types::I64, v)
        }
    }

    /// Reads a place of type `ty`: its lanes, or (for structs and arrays) its address.
    pub(in crate::codegen) fn load(&mut self, p: &PlaceRef, ty: &Type) -> Result<Lanes> {
        match p {
            PlaceRef::Var(id) => match &self.storage[id.0 as usize] {
                Storage::Vars(vars) => {
                    let vars = vars.clone();
                    let lanes: Lanes = vars.into_iter().map(|v| self.b.use_var(v)).collect();
                    self.shadow_load(*id, &lanes);
                    Ok(lanes)
                }
                Storage::Packed(vars, s) => {
                    let (vars, s) = (vars.clone(), *s);
                    let regs: Lanes = vars.into_iter().map(|v| self.b.use_var(v)).collect();
                    Ok(self.components(&regs, &s))
                }
                _ => unsupported("variable storage"),
            },
            PlaceRef::Mem(addr) if ty.element() == Some(Scalar::Half) => (0..ty.lanes().max(1)
                as i32)
                .map(|l| self.load_half(*addr, 2 * l))
                .collect(),
            PlaceRef::Mem(addr) => match (lane_types(ty), self.register_shape(ty)) {
                (_, Some(s)) => Ok(self.load_registers(*addr, &s, MemFlagsData::new())),
                (Some((t, n)), None) => {
                    let size = t.bytes() as i32;
                    Ok((0..n)
                        .map(|l| {
                            self.b
                                .ins()
                                .load(t, MemFlagsData::new(), *addr, l as i32 * size)
                        })
                        .collect())
                }
                (None, None) => Ok(vec![*addr]),
            },
            PlaceRef::Lanes(base, lanes, s, n) => {
                let whole = self.load(base, &Type::Vector(*s, *n))?;
                Ok(lanes
                    .iter()
                    .map(|&l| whole.get(l as usize).copied().unwrap_or(whole[0]))
                    .collect())
            }
        }
    }

    pub(in crate::codegen) fn store(
        &mut self,
        p: &PlaceRef,
        ty: &Type,
        value: Lanes,
    ) -> Result<()> {
        match p {
            PlaceRef::Var(id) => match &self.storage[id.0 as usize] {
                Storage::Vars(vars) => {
                    let vars = vars.clone();
                    self.shadow_store(*id, &value);
                    for (var, v) in vars.into_iter().zip(value) {
                        self.b.def_var(var, v);
                    }
                }
                Storage::Packed(vars, s) => {
                    let (vars, s) = (vars.clone(), *s);
                    let regs = self.registers(&value, &s);
                    for (var, v) in vars.into_iter().zip(regs) {
                        self.b.def_var(var, v);
                    }
                }
                _ => return unsupported("variable storage"),
            },
            PlaceRef::Mem(addr) if ty.element() == Some(Scalar::Half) => {
                for (l, v) in value.into_iter().enumerate() {
                    let bits = self.half_bits(v)?;
                    self.b
                        .ins()
                        .store(MemFlagsData::new(), bits, *addr, 2 * l as i32);
                }
            }
            PlaceRef::Mem(addr) => match (lane_types(ty), self.register_shape(ty)) {
                (_, Some(s)) => self.store_registers(*addr, &value, &s, MemFlagsData::new()),
                (Some((t, _)), None) => {
                    let size = t.bytes() as i32;
                    for (l, v) in value.into_iter().enumerate() {
                        self.b
                            .ins()
                            .store(MemFlagsData::new(), v, *addr, l as i32 * size);
                    }
                }
                (None, None) => {
                    // Structs and arrays: copy the bytes from the value's address.
                    let config = self.state.isa.frontend_config();
                    self.b.emit_small_memory_copy(
                        config,
                        *addr,
                        value[0],
                        ty.size(),
                        1,
                        1,
                        true,
                        MemFlagsData::new(),
                    );
                }
            },
            // A component write to memory writes that component's bytes only (the vector's
            // other components may be another work-item's to write).
            PlaceRef::Lanes(base, lanes, s, n)
                if matches!(**base, PlaceRef::Mem(_)) && *s != Scalar::Half =>
            {
                let PlaceRef::Mem(addr) = **base else {
                    unreachable!("matched above")
                };
                let size = s.size() as i32;
                for (&l, v) in lanes.iter().zip(value) {
                    if l < *n {
                        self.b
                            .ins()
                            .store(MemFlagsData::new(), v, addr, i32::from(l) * size);
                    }
                }
            }
            PlaceRef::Lanes(base, lanes, s, n) => {
                let vector_ty = Type::Vector(*s, *n);
                let mut whole = self.load(base, &vector_ty)?;
                for (&l, v) in lanes.iter().zip(value) {
                    if let Some(slot) = whole.get_mut(l as usize) {
                        *slot = v;
                    }
                }
                self.store(base, &vector_ty, whole)?;
            }
        }
        Ok(())
    }

    /// The address of a string literal's bytes, as read-only data of the module.
    pub fn string_constant(&mut self, bytes: &[u8]) -> Result<Value> {
        let id = match self.state.strings.get(bytes) {
            Some(id) => *id,
            None => {
                let name = format!("clift_string{}", self.state.strings.len());
                let id = self
                    .state
                    .module
                    .declare_data(&name, cranelift_module::Linkage::Local, false, false)
                    .map_err(|e| CodegenError(e.to_string()))?;
                let mut data = cranelift_module::DataDescription::new();
                data.define(bytes.to_vec().into_boxed_slice());
                self.state
                    .module
                    .define_data(id, &data)
                    .map_err(|e| CodegenError(e.to_string()))?;
                self.state.strings.insert(bytes.to_vec(), id);
                id
            }
        };
        let gv = self.state.module.declare_data_in_func(id, self.b.func);
        let addr = self.b.ins().symbol_value(types::I64, gv);
        self.note_object(addr, bytes.len() as u64);
        Ok(addr)
    }

    /// Calls a builtins-library symbol with Cranelift values; returns its one result.
    pub fn call_symbol(&mut self, name: &str, args: &[Value], ret: ir::Type) -> Result<Value> {
        if let Some(v) = half::in_line(&mut self.b, name, args) {
            return Ok(v);
        }
        let results = self.call_symbol_multi(name, args, &[ret])?;
        Ok(results[0])
    }

    pub fn call_symbol_multi(
        &mut self,
        name: &str,
        args: &[Value],
        rets: &[ir::Type],
    ) -> Result<Vec<Value>> {
        if !self.state.symbols.contains_key(name) {
            return unsupported(format!("the builtin implementation '{name}' is missing"));
        }
        let id = match self.state.imports.get(name) {
            Some(id) => *id,
            None => {
                let mut sig = self.state.module.make_signature();
                for (index, a) in args.iter().enumerate() {
                    let t = self.b.func.dfg.value_type(*a);
                    let param = AbiParam::new(t);
                    // The Rust callee expects narrow integers extended to 32 bits by the
                    // caller, as its type says (builtins/src/abi.rs).
                    let param = if t == types::I8 || t == types::I16 {
                        match clift_builtins::abi::narrow_param_is_signed(name, index) {
                            Some(true) => param.sext(),
                            Some(false) => param.uext(),
                            None => {
                                return unsupported(format!(
                                    "an 8- or 16-bit argument of '{name}' of unknown signedness"
                                ));
                            }
                        }
                    } else {
                        param
                    };
                    sig.params.push(param);
                }
                for r in rets {
                    sig.returns.push(AbiParam::new(*r));
                }
                let id = self
                    .state
                    .module
                    .declare_function(name, cranelift_module::Linkage::Import, &sig)
                    .map_err(|e| CodegenError(format!("importing '{name}': {e}")))?;
                self.state.imports.insert(name.to_string(), id);
                id
            }
        };
        let fref = *self
            .func_refs
            .entry(id)
            .or_insert_with(|| self.state.module.declare_func_in_func(id, self.b.func));
        let inst = self.b.ins().call(fref, args);
        Ok(self.b.inst_results(inst).to_vec())
    }
}

#[cfg(test)]
mod tests {
    use crate::build::{BuildOptions, build};
    use crate::frontend::{preprocess::PreprocessOptions, sema};

    /// `convert_double_rtz(float)` (and `_rtp`, `_rtn`, scalar and vector) must build: the
    /// conversion is exact, so it is an `fpromote`, not a call to a conversion function
    /// (which does not exist: the build failed with "the builtin implementation
    /// 'clift_convert_double_rtz_float' is missing").
    #[test]
    fn float_to_double_with_a_directed_rounding_mode_builds() {
        let source = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable
            kernel void k(global const float *in, global double *out) {
                size_t i = get_global_id(0);
                out[3 * i] = convert_double_rtz(in[i]);
                out[3 * i + 1] = convert_double_rtp(in[i]);
                vstore2(convert_double2_rtn(vload2(i, in)), 0, out + 3 * i + 2);
            }";
        let options = BuildOptions {
            preprocess: PreprocessOptions {
                extensions: vec!["cl_khr_fp64".to_string()],
                fp64: true,
                ..PreprocessOptions::default()
            },
            sema: sema::Options {
                fp64_supported: true,
                ..sema::Options::default()
            },
            ..BuildOptions::default()
        };
        if let Err(log) = build("test.cl", source, &options) {
            panic!("build failed:\n{log}");
        }
    }
}
