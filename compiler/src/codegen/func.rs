//! The lowering of one function of the typed tree to a Cranelift work-item function.

use std::collections::{HashMap, HashSet};

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    self, AbiParam, Block, InstBuilder, MemFlagsData, StackSlot, Value, types,
};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Switch, Variable};
use cranelift_module::Module;

use super::layout::{kernel_layout, local_offsets, param_kind};
use super::ops::{binary_lane, clif_type, convert_lane, lane_types, saturate_int, uextend_to};
use super::{CodegenError, CodegenOptions, ModuleState, item_context};
use crate::frontend::sema::constant;
use crate::frontend::tir::{
    self, BinaryOp, Block as TirBlock, Constant, ConvertKind, Expr, ExprKind, FuncId, Init,
    LocalId, Place, PlaceKind, Rounding, Stmt, StmtKind, UnaryOp,
};
use crate::frontend::types::{AddressSpace, Scalar, Type};
use crate::kernel::{ParamKind, WorkGroup};

mod resumable;

pub(super) use resumable::{define_resumable_kernel, splits_at_barriers};

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
pub(super) enum Storage {
    /// In SSA variables, one per lane.
    Vars(Vec<Variable>),
    /// In a stack slot of the work-item function, at its first address that is a multiple of
    /// the alignment (Cranelift aligns slots to at most 16 bytes of the stack pointer; an
    /// `int16` needs 64, a `double16` 128: such slots are larger by the difference).
    Stack(StackSlot, u32),
    /// At an offset of the work-group's local memory.
    LocalMemory(u64),
    /// At an offset of the work-item's frame (kernels with barriers, whose variables must
    /// outlive each region between barriers).
    Frame(u32),
    /// A uniform variable of a kernel with barriers (`codegen/uniform.rs`): kept once for
    /// the group, at its offset of the first work-item's frame.
    SharedFrame(u32),
}

/// A place, resolved.
#[derive(Clone)]
pub(super) enum PlaceRef {
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

/// Calls `visit` with the name of every builtin the block calls.
pub(super) fn visit_builtins(block: &[Stmt], visit: &mut dyn FnMut(&str)) {
    fn expr(e: &Expr, visit: &mut dyn FnMut(&str)) {
        if let ExprKind::Builtin { name, .. } = &e.kind {
            visit(name);
        }
        for_each_child(e, &mut |c| expr(c, visit));
    }
    for_each_stmt_expr(block, &mut |e| expr(e, visit));
}

pub(super) fn for_each_stmt_expr(block: &[Stmt], f: &mut dyn FnMut(&Expr)) {
    for s in block {
        match &s.kind {
            StmtKind::Expr(e) | StmtKind::Return(Some(e)) => f(e),
            StmtKind::Decl {
                init: Some(init), ..
            } => for_each_init_expr(init, f),
            StmtKind::Block(b) => for_each_stmt_expr(b, f),
            StmtKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                f(cond);
                for_each_stmt_expr(then_branch, f);
                for_each_stmt_expr(else_branch, f);
            }
            StmtKind::Loop {
                cond, step, body, ..
            } => {
                cond.iter().for_each(&mut *f);
                step.iter().for_each(&mut *f);
                for_each_stmt_expr(body, f);
            }
            StmtKind::Switch { value, body, .. } => {
                f(value);
                for_each_stmt_expr(body, f);
            }
            _ => {}
        }
    }
}

fn for_each_init_expr(init: &Init, f: &mut dyn FnMut(&Expr)) {
    match init {
        Init::Expr(e) => f(e),
        Init::Aggregate(items) => items.iter().for_each(|(_, e)| f(e)),
    }
}

fn for_each_place_child(p: &Place, f: &mut dyn FnMut(&Expr)) {
    match &p.kind {
        PlaceKind::Deref(e) | PlaceKind::Value(e) => f(e),
        PlaceKind::Element { array, index } => {
            for_each_place_child(array, f);
            f(index);
        }
        PlaceKind::Field { record, .. } => for_each_place_child(record, f),
        PlaceKind::Lanes { vector, .. } => for_each_place_child(vector, f),
        PlaceKind::CompoundLiteral { init, .. } => for_each_init_expr(init, f),
        PlaceKind::Local(_) | PlaceKind::Global(_) => {}
    }
}

pub(super) fn for_each_child(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    match &e.kind {
        ExprKind::Load(p) | ExprKind::AddressOf(p) | ExprKind::IncDec { place: p, .. } => {
            for_each_place_child(p, f)
        }
        ExprKind::Assign { place, value, .. } => {
            for_each_place_child(place, f);
            f(value);
        }
        ExprKind::Unary { operand, .. } | ExprKind::Convert { operand, .. } => f(operand),
        ExprKind::Swizzle { base, .. } => f(base),
        ExprKind::Binary { lhs, rhs, .. }
        | ExprKind::Logical { lhs, rhs, .. }
        | ExprKind::Comma { lhs, rhs }
        | ExprKind::PointerDiff { lhs, rhs } => {
            f(lhs);
            f(rhs);
        }
        ExprKind::PointerOffset {
            pointer, offset, ..
        } => {
            f(pointer);
            f(offset);
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
            f(cond);
            f(then_expr);
            f(else_expr);
        }
        ExprKind::VectorLiteral(parts) => parts.iter().for_each(f),
        ExprKind::Call { args, .. } | ExprKind::Builtin { args, .. } => args.iter().for_each(f),
        // Taken out of expressions by semantic analysis (`sema::stmt_expr`): none is left.
        ExprKind::Const(_) | ExprKind::StringLiteral(_) | ExprKind::StmtExpr { .. } => {}
    }
}

/// The root variable of a place, if any.
pub(super) fn place_root(p: &Place) -> Option<LocalId> {
    match &p.kind {
        PlaceKind::Local(id) | PlaceKind::CompoundLiteral { local: id, .. } => Some(*id),
        PlaceKind::Element { array, .. } => place_root(array),
        PlaceKind::Field { record, .. } => place_root(record),
        PlaceKind::Lanes { vector, .. } => place_root(vector),
        _ => None,
    }
}

/// Variables whose address is taken (they must live in memory).
pub(super) fn address_taken(body: &[Stmt]) -> HashSet<LocalId> {
    let mut set = HashSet::new();
    fn visit(e: &Expr, set: &mut HashSet<LocalId>) {
        if let ExprKind::AddressOf(p) = &e.kind
            && let Some(id) = place_root(p)
        {
            set.insert(id);
        }
        for_each_child(e, &mut |c| visit(c, set));
    }
    for_each_stmt_expr(body, &mut |e| visit(e, &mut set));
    set
}

/// Variables a block names: declared, read, written or addressed.
fn locals_used(body: &[Stmt]) -> HashSet<LocalId> {
    let mut set = HashSet::new();
    fn visit(e: &Expr, set: &mut HashSet<LocalId>) {
        if let ExprKind::Load(p)
        | ExprKind::AddressOf(p)
        | ExprKind::IncDec { place: p, .. }
        | ExprKind::Assign { place: p, .. } = &e.kind
            && let Some(id) = place_root(p)
        {
            set.insert(id);
        }
        for_each_child(e, &mut |c| visit(c, set));
    }
    fn declared(body: &[Stmt], set: &mut HashSet<LocalId>) {
        for s in body {
            match &s.kind {
                StmtKind::Decl { local, .. } => {
                    set.insert(*local);
                }
                StmtKind::Block(b) | StmtKind::Loop { body: b, .. } => declared(b, set),
                StmtKind::Switch { body, .. } => declared(body, set),
                StmtKind::If {
                    then_branch,
                    else_branch,
                    ..
                } => {
                    declared(then_branch, set);
                    declared(else_branch, set);
                }
                _ => {}
            }
        }
    }
    for_each_stmt_expr(body, &mut |e| visit(e, &mut set));
    declared(body, &mut set);
    set
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
    pub(super) storage: Vec<Storage>,
    labels: HashMap<u32, Block>,
    breaks: Vec<Block>,
    /// The `break`s of each switch being lowered, gathered in join blocks (see
    /// [`SwitchExit`]).
    switch_exits: Vec<SwitchExit>,
    continues: Vec<Block>,
    func_refs: HashMap<cranelift_module::FuncId, ir::FuncRef>,
    pub mad_enable: bool,
    /// In a kernel's row loop: the local id of dimension 0.
    pub local_x: Option<Variable>,
    /// In a kernel's row loop: where `return` goes (the next work-item).
    return_target: Option<Block>,
    /// In a row loop: the global id of dimension 0 (a second counter of the loop, so that
    /// the id is not recomputed for each item).
    pub global_x: Option<Variable>,
    /// In a row loop: `get_group_id(1)` and the like, read before the loop.
    pub row_constants: HashMap<(&'static str, u64), Value>,
    /// Where a function returning through memory writes its result.
    sret: Option<Value>,
    /// In a region of a kernel with barriers: the frame offset of the work-item's "done"
    /// flag, set by `return` so that the later regions skip the item.
    done_flag: Option<u32>,
    /// In a resumable kernel ([`resumable`]): where each barrier resumes.
    resume: Option<resumable::ResumePoints>,
}

impl<'a, 'b> Lower<'a, 'b> {
    /// A lowering of `func` into the function `b` builds, its variables not placed yet.
    pub(super) fn new(
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
            local_x: None,
            return_target: None,
            global_x: None,
            row_constants: HashMap::new(),
            sret: None,
            done_flag: None,
            resume: None,
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

    /// A kernel without barriers runs a whole row of work-items (every local x for the y and
    /// z the work-group function set): the x loop is here, so the local and global ids of
    /// dimension 0 are a register, and there is one call per row, not per work-item.
    fn kernel_row(&mut self, body: &TirBlock) -> Result<()> {
        let flags = MemFlagsData::trusted();
        let group = self.group();
        let size = self
            .b
            .ins()
            .load(types::I64, flags, group, WorkGroup::OFFSET_LOCAL_SIZE);
        // What is the same for the whole row, computed once before its loop: the arguments
        // and the global id of its first item.
        let arguments = self.kernel_arguments()?;
        let gx = self.global_counter(body);
        let x = self.b.declare_var(types::I64);
        // The row starts after the items its vectorized row function ran (`codegen/simd`).
        let start = self
            .b
            .ins()
            .load(types::I64, flags, self.item, item_context::ROW_START);
        self.b.def_var(x, start);
        let first = self.b.use_var(gx);
        let first = self.b.ins().iadd(first, start);
        self.b.def_var(gx, first);
        let (head, body_b, latch, exit) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(head);
        let xv = self.b.use_var(x);
        let more = self.b.ins().icmp(IntCC::UnsignedLessThan, xv, size);
        self.b.ins().brif(more, body_b, &[], exit, &[]);
        self.b.switch_to_block(body_b);
        if reads_local_id_from_memory(self.func, body) {
            // The id in memory too, for get_local_id(d) with a d known only at run time,
            // and for the functions the kernel calls.
            let xv = self.b.use_var(x);
            self.b
                .ins()
                .store(flags, xv, self.item, item_context::LOCAL_ID);
        }
        self.local_x = Some(x);
        self.return_target = Some(latch);
        // Each work-item gets fresh copies of the parameters: a kernel may modify its own.
        self.store_parameters(arguments)?;
        self.block(body)?;
        self.jump(latch);
        self.b.switch_to_block(latch);
        for counter in [x, gx] {
            let v = self.b.use_var(counter);
            let next = self.b.ins().iadd_imm_s(v, 1);
            self.b.def_var(counter, next);
        }
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(exit);
        self.b.ins().return_(&[]);
        self.b.seal_all_blocks();
        Ok(())
    }

    /// A row loop's counter of global ids of dimension 0, from the row's first item's; and
    /// the work-item functions of constant dimension the body calls, read once for the row.
    pub(super) fn global_counter(&mut self, body: &[Stmt]) -> Variable {
        let flags = MemFlagsData::trusted();
        let first = self
            .b
            .ins()
            .load(types::I64, flags, self.item, item_context::GLOBAL_ID);
        let gx = self.b.declare_var(types::I64);
        self.b.def_var(gx, first);
        self.global_x = Some(gx);
        let constant = work_item_queries(body)
            .into_iter()
            .filter_map(|(name, dim)| Some((name, dim.filter(|&d| d < 3)?)));
        for (name, dim) in constant {
            let field = match name {
                "get_global_id" if dim > 0 => Some((true, item_context::GLOBAL_ID)),
                "get_local_id" if dim > 0 => Some((true, item_context::LOCAL_ID)),
                "get_group_id" => Some((false, WorkGroup::OFFSET_GROUP_ID)),
                "get_local_size" => Some((false, WorkGroup::OFFSET_LOCAL_SIZE)),
                "get_global_size" => Some((false, WorkGroup::OFFSET_GLOBAL_SIZE)),
                "get_num_groups" => Some((false, WorkGroup::OFFSET_NUM_GROUPS)),
                "get_global_offset" => Some((false, WorkGroup::OFFSET_GLOBAL_OFFSET)),
                _ => None,
            };
            if let Some((in_item, offset)) = field {
                let base = if in_item { self.item } else { self.group() };
                let v = self
                    .b
                    .ins()
                    .load(types::I64, flags, base, offset + 8 * dim as i32);
                self.row_constants.insert((name, dim), v);
            }
        }
        gx
    }

    /// Decides where each variable lives: in frames (for kernels with barriers), or in SSA
    /// variables unless its address is taken, else in a stack slot; `__local` variables in
    /// local memory.
    pub(super) fn setup_storage(
        &mut self,
        taken: Option<&HashSet<LocalId>>,
        frames: Option<&FrameLayout>,
    ) {
        let (local_memory, _) = local_offsets(self.func);
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
    }

    /// A region function of a kernel with barriers: `stmts` run by every work-item of a row
    /// (every local x for the y and z the work-group function set), each with its variables
    /// in its own frame; the first region also loads the parameters. As in [`Lower::kernel_row`],
    /// the x loop is here, so there is one call per row and `get_local_id(0)` is a register.
    fn region(
        &mut self,
        stmts: &[Stmt],
        frames: &FrameLayout,
        load_parameters: bool,
    ) -> Result<()> {
        let entry = self.b.create_block();
        self.b.append_block_params_for_function_params(entry);
        self.b.switch_to_block(entry);
        self.item = self.b.block_params(entry)[0];
        self.setup_storage(None, Some(frames));
        let flags = MemFlagsData::trusted();
        let group = self.group();
        let size = self
            .b
            .ins()
            .load(types::I64, flags, group, WorkGroup::OFFSET_LOCAL_SIZE);
        // The frame of the row's first item; item x's is `frame_size` bytes further each.
        let row_frame = self
            .b
            .ins()
            .load(types::I64, flags, self.item, item_context::FRAME);
        let gx = self.global_counter(stmts);
        let x = self.b.declare_var(types::I64);
        let zero = self.b.ins().iconst(types::I64, 0);
        self.b.def_var(x, zero);
        let (head, body_b, latch, exit) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        // After an item's part: `latch` stores its promoted variables back, then `advance`
        // moves to the next item (an item already done goes to `advance` directly).
        let advance = self.b.create_block();
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(head);
        let xv = self.b.use_var(x);
        let more = self.b.ins().icmp(IntCC::UnsignedLessThan, xv, size);
        self.b.ins().brif(more, body_b, &[], exit, &[]);
        self.b.switch_to_block(body_b);
        let xv = self.b.use_var(x);
        self.b
            .ins()
            .store(flags, xv, self.item, item_context::LOCAL_ID);
        let offset = self.b.ins().imul_imm_s(xv, i64::from(frames.size));
        let frame = self.b.ins().iadd(row_frame, offset);
        self.b
            .ins()
            .store(flags, frame, self.item, item_context::FRAME);
        self.local_x = Some(x);
        // A `return` ends this item's part of the region: on to the next item.
        self.return_target = Some(latch);
        self.done_flag = Some(frames.done_flag);
        let done_addr = self.frame_address(frames.done_flag);
        if load_parameters {
            // The group's first region: no item has returned yet.
            let zero = self.b.ins().iconst(types::I8, 0);
            self.b.ins().store(flags, zero, done_addr, 0);
        } else {
            // An item that returned in an earlier region skips this one.
            let done = self.b.ins().load(types::I8, flags, done_addr, 0);
            let live = self.b.create_block();
            self.b.ins().brif(done, advance, &[], live, &[]);
            self.b.switch_to_block(live);
        }
        let promoted = self.promote_frame_variables(stmts, frames)?;
        if load_parameters {
            self.parameters(&[])?;
        }
        self.block(stmts)?;
        self.jump(latch);
        self.b.switch_to_block(latch);
        // Promoted variables go back to the frame, where the next region reads them.
        for &(id, offset, shared) in &promoted {
            let ty = self.func.local(id).ty.ty.clone();
            let value = self.load(&PlaceRef::Var(id), &ty)?;
            let addr = if shared {
                self.shared_frame_address(offset)
            } else {
                self.frame_address(offset)
            };
            self.store(&PlaceRef::Mem(addr), &ty, value)?;
        }
        self.b.ins().jump(advance, &[]);
        self.b.switch_to_block(advance);
        for counter in [x, gx] {
            let v = self.b.use_var(counter);
            let next = self.b.ins().iadd_imm_s(v, 1);
            self.b.def_var(counter, next);
        }
        self.b.ins().jump(head, &[]);
        self.b.switch_to_block(exit);
        self.b.ins().return_(&[]);
        self.b.seal_all_blocks();
        Ok(())
    }

    /// Moves the scalar and vector variables a region names (and whose address is never
    /// taken) from the work-item's frame into SSA variables for the region's body: loaded
    /// here, at the start of each item, and stored back when the item's part ends. A loop
    /// inside the region then keeps them in registers instead of the frame.
    fn promote_frame_variables(
        &mut self,
        stmts: &[Stmt],
        frames: &FrameLayout,
    ) -> Result<Vec<(LocalId, u32, bool)>> {
        let mut used: Vec<LocalId> = locals_used(stmts)
            .into_iter()
            .filter(|id| !frames.address_taken.contains(id))
            .collect();
        used.sort();
        let mut promoted = Vec::new();
        for id in used {
            let (Some(&offset), Some((t, n))) = (
                frames.offsets.get(&id),
                lane_types(&self.func.local(id).ty.ty),
            ) else {
                continue;
            };
            let vars = (0..n).map(|_| self.b.declare_var(t)).collect();
            let home = std::mem::replace(&mut self.storage[id.0 as usize], Storage::Vars(vars));
            let ty = self.func.local(id).ty.ty.clone();
            let addr = self.home_address(&home, offset);
            let value = self.load(&PlaceRef::Mem(addr), &ty)?;
            self.store(&PlaceRef::Var(id), &ty, value)?;
            promoted.push((id, offset, matches!(home, Storage::SharedFrame(_))));
        }
        Ok(promoted)
    }

    /// Where a variable of `home` storage lives in memory.
    fn home_address(&mut self, home: &Storage, offset: u32) -> Value {
        match home {
            Storage::SharedFrame(_) => self.shared_frame_address(offset),
            _ => self.frame_address(offset),
        }
    }

    /// The address of byte `offset` of the current work-item's frame.
    fn frame_address(&mut self, offset: u32) -> Value {
        let frame = self.b.ins().load(
            types::I64,
            MemFlagsData::trusted(),
            self.item,
            item_context::FRAME,
        );
        self.b.ins().iadd_imm_s(frame, i64::from(offset))
    }

    /// A function of a kernel with barriers that the group runs once, as its first
    /// work-item (it touches only uniform variables).
    fn once_function(&mut self, stmts: &[Stmt], frames: &FrameLayout) -> Result<()> {
        let entry = self.b.create_block();
        self.b.append_block_params_for_function_params(entry);
        self.b.switch_to_block(entry);
        self.item = self.b.block_params(entry)[0];
        self.setup_storage(None, Some(frames));
        for s in stmts {
            self.fresh_block_if_terminated();
            self.statement(s)?;
        }
        if !self.terminated() {
            self.b.ins().return_(&[]);
        }
        self.b.seal_all_blocks();
        Ok(())
    }

    /// A condition function of a kernel with barriers: evaluates `cond` for one work-item
    /// (the work-group's control flow around barriers is uniform, so any item answers).
    fn condition_function(&mut self, cond: &Expr, frames: &FrameLayout) -> Result<()> {
        let entry = self.b.create_block();
        self.b.append_block_params_for_function_params(entry);
        self.b.switch_to_block(entry);
        self.item = self.b.block_params(entry)[0];
        self.setup_storage(None, Some(frames));
        let c = self.condition(cond)?;
        self.b.ins().return_(&[c]);
        self.b.seal_all_blocks();
        Ok(())
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
    fn store_parameters(&mut self, values: Vec<Lanes>) -> Result<()> {
        let ids: Vec<LocalId> = self.func.param_ids().collect();
        for (id, value) in ids.into_iter().zip(values) {
            let ty = self.func.local(id).ty.ty.clone();
            self.store_local(id, &ty, value)?;
        }
        Ok(())
    }

    /// A kernel's argument values, read from the argument block (structs by address).
    pub(super) fn kernel_arguments(&mut self) -> Result<Vec<Lanes>> {
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
                        vec![self.b.ins().load(types::I64, flags, args, offset)]
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
                        vec![self.b.ins().iadd(base, off)]
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

    pub(super) fn store_local(&mut self, id: LocalId, ty: &Type, value: Lanes) -> Result<()> {
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

    fn block(&mut self, stmts: &[Stmt]) -> Result<()> {
        for s in stmts {
            self.fresh_block_if_terminated();
            self.statement(s)?;
        }
        Ok(())
    }

    pub(super) fn statement(&mut self, s: &Stmt) -> Result<()> {
        match &s.kind {
            StmtKind::Expr(_) if self.resume.is_some() && is_barrier(s) => self.suspend(),
            StmtKind::Expr(e) => {
                self.expr(e)?;
            }
            StmtKind::Decl { local, init } => {
                if let Some(init) = init {
                    self.init_local(*local, init)?;
                }
            }
            StmtKind::Block(b) => self.block(b)?,
            StmtKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                let c = self.condition(cond)?;
                let (then_b, else_b, join) = (
                    self.b.create_block(),
                    self.b.create_block(),
                    self.b.create_block(),
                );
                self.b.ins().brif(c, then_b, &[], else_b, &[]);
                self.b.switch_to_block(then_b);
                self.block(then_branch)?;
                self.jump(join);
                self.b.switch_to_block(else_b);
                self.block(else_branch)?;
                self.jump(join);
                self.b.switch_to_block(join);
            }
            StmtKind::Loop {
                cond,
                step,
                body,
                test_after,
                ..
            } => {
                let (head, body_b, cont, exit) = (
                    self.b.create_block(),
                    self.b.create_block(),
                    self.b.create_block(),
                    self.b.create_block(),
                );
                self.b
                    .ins()
                    .jump(if *test_after { body_b } else { head }, &[]);
                self.b.switch_to_block(head);
                match cond {
                    Some(c) => {
                        let c = self.condition(c)?;
                        self.b.ins().brif(c, body_b, &[], exit, &[]);
                    }
                    None => {
                        self.b.ins().jump(body_b, &[]);
                    }
                }
                self.b.switch_to_block(body_b);
                self.breaks.push(exit);
                self.continues.push(cont);
                self.block(body)?;
                self.breaks.pop();
                self.continues.pop();
                self.jump(cont);
                self.b.switch_to_block(cont);
                if let Some(step) = step {
                    self.expr(step)?;
                }
                self.b.ins().jump(head, &[]);
                self.b.switch_to_block(exit);
            }
            StmtKind::Switch {
                value,
                cases,
                default,
                body,
            } => {
                let v = self.expr(value)?[0];
                let exit = self.b.create_block();
                let otherwise = match default {
                    Some(d) => self.label_block(*d),
                    None => exit,
                };
                // The dispatch jumps to one trampoline block per case, which jumps on to the
                // case's label. A trampoline has the dispatch as its only predecessor and is
                // sealed at once, so a variable the case reads is found through it without a
                // block parameter: otherwise each case label, unsealed while its body is
                // lowered, would get parameters whose arguments Cranelift adds to the jump
                // table by searching it, which made compile time quadratic in the cases.
                let mut switch = Switch::new();
                let ty = self.b.func.dfg.value_type(v);
                let mut trampolines = Vec::with_capacity(cases.len());
                for (case, label) in cases {
                    let trampoline = self.b.create_block();
                    trampolines.push((trampoline, self.label_block(*label)));
                    let bits = ty.bits();
                    let key = (*case as u128) & ((1u128 << bits) - 1);
                    switch.set_entry(key, trampoline);
                }
                switch.emit(&mut self.b, v, otherwise);
                for (trampoline, target) in trampolines {
                    self.b.switch_to_block(trampoline);
                    self.b.seal_block(trampoline);
                    self.b.ins().jump(target, &[]);
                }
                let body_start = self.b.create_block();
                self.b.switch_to_block(body_start);
                self.breaks.push(exit);
                self.switch_exits.push(SwitchExit {
                    exit,
                    joins: Vec::new(),
                    breaks: 0,
                });
                self.block(body)?;
                self.breaks.pop();
                let gathered = self.switch_exits.pop().map(|s| s.joins).unwrap_or_default();
                self.jump(exit);
                for join in gathered {
                    self.b.switch_to_block(join);
                    self.b.seal_block(join);
                    self.b.ins().jump(exit, &[]);
                }
                self.b.switch_to_block(exit);
            }
            StmtKind::Label(id) => {
                let block = self.label_block(*id);
                self.jump(block);
                self.b.switch_to_block(block);
            }
            StmtKind::Goto(id) => {
                let block = self.label_block(*id);
                self.b.ins().jump(block, &[]);
            }
            StmtKind::Break => {
                let mut target = *self
                    .breaks
                    .last()
                    .ok_or_else(|| CodegenError("'break' outside a loop".into()))?;
                if let Some(switch) = self.switch_exits.last_mut()
                    && switch.exit == target
                {
                    if switch.breaks % SwitchExit::BREAKS_PER_JOIN == 0 {
                        switch.joins.push(self.b.create_block());
                    }
                    switch.breaks += 1;
                    target = *switch.joins.last().expect("a join was just made");
                }
                self.b.ins().jump(target, &[]);
            }
            StmtKind::Continue => {
                let target = *self
                    .continues
                    .last()
                    .ok_or_else(|| CodegenError("'continue' outside a loop".into()))?;
                self.b.ins().jump(target, &[]);
            }
            StmtKind::Return(value) => {
                let v = match value {
                    Some(e) => self.expr(e)?,
                    None => Vec::new(),
                };
                match self.return_target {
                    // A kernel's `return` ends this work-item: on to the next of the row.
                    Some(next_item) => {
                        if let Some(offset) = self.done_flag {
                            // In a region: the item is done for the later regions too.
                            let addr = self.frame_address(offset);
                            let one = self.b.ins().iconst(types::I8, 1);
                            self.b.ins().store(MemFlagsData::trusted(), one, addr, 0);
                        }
                        self.b.ins().jump(next_item, &[]);
                    }
                    None => match self.sret {
                        // Returned through the caller's memory.
                        Some(out) => {
                            let ret = self.func.ret.clone();
                            self.store(&PlaceRef::Mem(out), &ret, v)?;
                            self.b.ins().return_(&[]);
                        }
                        None => {
                            self.b.ins().return_(&v);
                        }
                    },
                }
            }
        }
        Ok(())
    }

    fn condition(&mut self, e: &Expr) -> Result<Value> {
        let v = self.expr(e)?[0];
        Ok(self.truth(v, &e.ty))
    }

    /// A scalar's truth value (nonzero) as an i8 0/1.
    pub fn truth(&mut self, v: Value, ty: &Type) -> Value {
        if ty.is_floating() {
            let zero = if ty.element() == Some(Scalar::Double) {
                self.b.ins().f64const(0.0)
            } else {
                self.b.ins().f32const(0.0)
            };
            self.b.ins().fcmp(ir::condcodes::FloatCC::NotEqual, v, zero)
        } else {
            self.b.ins().icmp_imm_s(IntCC::NotEqual, v, 0)
        }
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
            Storage::Vars(_) => PlaceRef::Var(id),
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
    fn shared_frame_address(&mut self, offset: u32) -> Value {
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

    fn place(&mut self, p: &Place) -> Result<PlaceRef> {
        Ok(match &p.kind {
            PlaceKind::Local(id) => self.local_ref(*id),
            PlaceKind::Global(g) => {
                let data = self.state.globals[g.0 as usize];
                let gv = self.state.module.declare_data_in_func(data, self.b.func);
                PlaceRef::Mem(self.b.ins().symbol_value(types::I64, gv))
            }
            PlaceKind::Deref(e) => PlaceRef::Mem(self.expr(e)?[0]),
            // A struct value is held by its address.
            PlaceKind::Value(e) => PlaceRef::Mem(self.expr(e)?[0]),
            PlaceKind::Element { array, index } => {
                let PlaceRef::Mem(base) = self.place(array)? else {
                    return unsupported("element of a register array");
                };
                let i = self.expr(index)?[0];
                let i = self.index_to_i64(i, &index.ty);
                let scaled = self.b.ins().imul_imm_s(i, p.ty.ty.size() as i64);
                PlaceRef::Mem(self.b.ins().iadd(base, scaled))
            }
            PlaceKind::Field { record, field } => {
                let PlaceRef::Mem(base) = self.place(record)? else {
                    return unsupported("field of a register value");
                };
                let Type::Record(r) = &record.ty.ty else {
                    return unsupported("field of a non-record");
                };
                let offset = r.fields[*field as usize].offset;
                PlaceRef::Mem(self.b.ins().iadd_imm_s(base, offset as i64))
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
    pub(super) fn load(&mut self, p: &PlaceRef, ty: &Type) -> Result<Lanes> {
        match p {
            PlaceRef::Var(id) => {
                let Storage::Vars(vars) = &self.storage[id.0 as usize] else {
                    return unsupported("variable storage");
                };
                let vars = vars.clone();
                Ok(vars.into_iter().map(|v| self.b.use_var(v)).collect())
            }
            PlaceRef::Mem(addr) if ty.element() == Some(Scalar::Half) => (0..ty.lanes().max(1)
                as i32)
                .map(|l| self.load_half(*addr, 2 * l))
                .collect(),
            PlaceRef::Mem(addr) => match lane_types(ty) {
                Some((t, n)) => {
                    let size = t.bytes() as i32;
                    Ok((0..n)
                        .map(|l| {
                            self.b
                                .ins()
                                .load(t, MemFlagsData::new(), *addr, l as i32 * size)
                        })
                        .collect())
                }
                None => Ok(vec![*addr]),
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

    pub(super) fn store(&mut self, p: &PlaceRef, ty: &Type, value: Lanes) -> Result<()> {
        match p {
            PlaceRef::Var(id) => {
                let Storage::Vars(vars) = &self.storage[id.0 as usize] else {
                    return unsupported("variable storage");
                };
                for (var, v) in vars.clone().into_iter().zip(value) {
                    self.b.def_var(var, v);
                }
            }
            PlaceRef::Mem(addr) if ty.element() == Some(Scalar::Half) => {
                for (l, v) in value.into_iter().enumerate() {
                    let bits = self.half_bits(v)?;
                    self.b
                        .ins()
                        .store(MemFlagsData::new(), bits, *addr, 2 * l as i32);
                }
            }
            PlaceRef::Mem(addr) => match lane_types(ty) {
                Some((t, _)) => {
                    let size = t.bytes() as i32;
                    for (l, v) in value.into_iter().enumerate() {
                        self.b
                            .ins()
                            .store(MemFlagsData::new(), v, *addr, l as i32 * size);
                    }
                }
                None => {
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

    /// Evaluates an expression to its lanes.
    pub fn expr(&mut self, e: &Expr) -> Result<Lanes> {
        match &e.kind {
            ExprKind::Const(c) => self.constant(c, &e.ty),
            ExprKind::Load(p) => {
                let r = self.place(p)?;
                self.load(&r, &p.ty.ty)
            }
            ExprKind::AddressOf(p) => match self.place(p)? {
                PlaceRef::Mem(a) => Ok(vec![a]),
                _ => unsupported("address of a register variable"),
            },
            ExprKind::Assign {
                place,
                op,
                value,
                op_ty,
            } => {
                let r = self.place(place)?;
                let v = self.expr(value)?;
                let new = match op {
                    None => v,
                    // `p += n` / `p -= n` move by n elements, as `p + n` does.
                    Some(op @ (BinaryOp::Add | BinaryOp::Sub))
                        if matches!(place.ty.ty, Type::Pointer(_)) =>
                    {
                        let Type::Pointer(pointee) = &place.ty.ty else {
                            unreachable!("matched above")
                        };
                        let current = self.load(&r, &place.ty.ty)?[0];
                        let wide = self.convert_to(v, &value.ty, &Type::Scalar(Scalar::Long))?[0];
                        let scaled = self.b.ins().imul_imm_s(wide, pointee.ty.size() as i64);
                        vec![if *op == BinaryOp::Sub {
                            self.b.ins().isub(current, scaled)
                        } else {
                            self.b.ins().iadd(current, scaled)
                        }]
                    }
                    Some(op) => {
                        let current = self.load(&r, &place.ty.ty)?;
                        let current = self.convert_to(current, &place.ty.ty, op_ty)?;
                        let result = self.binary(*op, current, v, &value.ty, op_ty)?;
                        self.convert_to(result, op_ty, &place.ty.ty)?
                    }
                };
                self.store(&r, &place.ty.ty, new.clone())?;
                Ok(new)
            }
            ExprKind::IncDec {
                place,
                increment,
                prefix,
            } => {
                let r = self.place(place)?;
                let old = self.load(&r, &place.ty.ty)?;
                let new: Lanes = match &place.ty.ty {
                    Type::Pointer(p) => {
                        let step = p.ty.size() as i64;
                        vec![
                            self.b
                                .ins()
                                .iadd_imm_s(old[0], if *increment { step } else { -step }),
                        ]
                    }
                    ty => {
                        let s = ty
                            .element()
                            .ok_or_else(|| CodegenError("++ on a non-arithmetic value".into()))?;
                        old.iter()
                            .map(|&v| {
                                if s.is_float() {
                                    let one = if s == Scalar::Double {
                                        self.b.ins().f64const(1.0)
                                    } else {
                                        self.b.ins().f32const(1.0)
                                    };
                                    let r = if *increment {
                                        self.b.ins().fadd(v, one)
                                    } else {
                                        self.b.ins().fsub(v, one)
                                    };
                                    if s == Scalar::Half {
                                        self.round_half(r)
                                    } else {
                                        Ok(r)
                                    }
                                } else {
                                    Ok(self.b.ins().iadd_imm_s(v, if *increment { 1 } else { -1 }))
                                }
                            })
                            .collect::<Result<_>>()?
                    }
                };
                self.store(&r, &place.ty.ty, new.clone())?;
                Ok(if *prefix { new } else { old })
            }
            ExprKind::Unary { op, operand } => {
                let v = self.expr(operand)?;
                let s = operand.ty.element();
                Ok(match op {
                    UnaryOp::Neg => v
                        .into_iter()
                        .map(|x| {
                            if s.is_some_and(Scalar::is_float) {
                                self.b.ins().fneg(x)
                            } else {
                                self.b.ins().ineg(x)
                            }
                        })
                        .collect(),
                    UnaryOp::BitNot => v.into_iter().map(|x| self.b.ins().bnot(x)).collect(),
                    UnaryOp::LogicalNot => {
                        let t = self.truth(v[0], &operand.ty);
                        let not = self.b.ins().bxor_imm_s(t, 1);
                        vec![uextend_to(&mut self.b, types::I32, not)]
                    }
                    UnaryOp::VectorNot => {
                        let (rt, _) = lane_types(&e.ty).ok_or_else(|| CodegenError("!".into()))?;
                        v.into_iter()
                            .map(|x| {
                                let t = self.truth(x, &Type::Scalar(s.unwrap_or(Scalar::Int)));
                                let not = self.b.ins().bxor_imm_s(t, 1);
                                super::ops::mask(&mut self.b, not, rt, true)
                            })
                            .collect()
                    }
                })
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let (l, r) = (self.expr(lhs)?, self.expr(rhs)?);
                self.binary(*op, l, r, &lhs.ty, &e.ty)
            }
            ExprKind::PointerOffset {
                pointer,
                offset,
                subtract,
            } => {
                let p = self.expr(pointer)?[0];
                let o = self.expr(offset)?[0];
                let Type::Pointer(pointee) = &pointer.ty else {
                    return unsupported("pointer arithmetic");
                };
                let scaled = self.b.ins().imul_imm_s(o, pointee.ty.size() as i64);
                Ok(vec![if *subtract {
                    self.b.ins().isub(p, scaled)
                } else {
                    self.b.ins().iadd(p, scaled)
                }])
            }
            ExprKind::PointerDiff { lhs, rhs } => {
                let (l, r) = (self.expr(lhs)?[0], self.expr(rhs)?[0]);
                let Type::Pointer(pointee) = &lhs.ty else {
                    return unsupported("pointer difference");
                };
                let diff = self.b.ins().isub(l, r);
                let size = self
                    .b
                    .ins()
                    .iconst(types::I64, pointee.ty.size().max(1) as i64);
                Ok(vec![self.b.ins().sdiv(diff, size)])
            }
            ExprKind::Logical { and, lhs, rhs } => {
                let result = self.b.declare_var(types::I32);
                let l = self.condition(lhs)?;
                let l32 = uextend_to(&mut self.b, types::I32, l);
                self.b.def_var(result, l32);
                let (rhs_b, join) = (self.b.create_block(), self.b.create_block());
                if *and {
                    self.b.ins().brif(l, rhs_b, &[], join, &[]);
                } else {
                    self.b.ins().brif(l, join, &[], rhs_b, &[]);
                }
                self.b.switch_to_block(rhs_b);
                let r = self.condition(rhs)?;
                let r32 = uextend_to(&mut self.b, types::I32, r);
                self.b.def_var(result, r32);
                self.b.ins().jump(join, &[]);
                self.b.switch_to_block(join);
                Ok(vec![self.b.use_var(result)])
            }
            ExprKind::Conditional {
                cond,
                then_expr,
                else_expr,
            } => {
                let c = self.condition(cond)?;
                let vars: Vec<Variable> = flat_types(&e.ty)
                    .into_iter()
                    .map(|t| self.b.declare_var(t))
                    .collect();
                let (then_b, else_b, join) = (
                    self.b.create_block(),
                    self.b.create_block(),
                    self.b.create_block(),
                );
                self.b.ins().brif(c, then_b, &[], else_b, &[]);
                for (block, side) in [(then_b, then_expr), (else_b, else_expr)] {
                    self.b.switch_to_block(block);
                    let v = self.expr(side)?;
                    for (var, x) in vars.iter().zip(v) {
                        self.b.def_var(*var, x);
                    }
                    self.b.ins().jump(join, &[]);
                }
                self.b.switch_to_block(join);
                Ok(vars.into_iter().map(|v| self.b.use_var(v)).collect())
            }
            ExprKind::Select {
                cond,
                then_expr,
                else_expr,
            } => {
                let c = self.expr(cond)?;
                let (a, b) = (self.expr(then_expr)?, self.expr(else_expr)?);
                // Lane-wise on the most significant bit of each lane of the condition.
                Ok(c.into_iter()
                    .zip(a.into_iter().zip(b))
                    .map(|(c, (a, b))| {
                        let negative = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, c, 0);
                        self.b.ins().select(negative, a, b)
                    })
                    .collect())
            }
            ExprKind::Convert { kind, operand } => self.convert(*kind, operand, &e.ty),
            ExprKind::VectorLiteral(parts) => {
                let mut lanes = Vec::new();
                for p in parts {
                    lanes.extend(self.expr(p)?);
                }
                Ok(lanes)
            }
            ExprKind::Swizzle { base, lanes } => {
                let v = self.expr(base)?;
                let zero_ty = self.b.func.dfg.value_type(v[0]);
                Ok(lanes
                    .iter()
                    .map(|&l| match v.get(l as usize) {
                        Some(x) => *x,
                        // Lane 3 of a 3-vector (.hi, .odd): undefined; 0.
                        None => self.zero(zero_ty),
                    })
                    .collect())
            }
            ExprKind::Call { func, args } => {
                let mut values = vec![self.item];
                let out = if returns_by_pointer(&e.ty) {
                    let size = e.ty.size().max(1) as u32;
                    let slot = self.b.create_sized_stack_slot(ir::StackSlotData::new(
                        ir::StackSlotKind::ExplicitSlot,
                        size,
                        4,
                    ));
                    let addr = self.b.ins().stack_addr(types::I64, slot, 0);
                    values.push(addr);
                    Some(addr)
                } else {
                    None
                };
                for a in args {
                    values.extend(self.expr(a)?);
                }
                // A kernel called as a function has its own plain-function copy.
                let clif = match self.state.called_kernels.get(func) {
                    Some(&copy) => copy,
                    None => self.state.functions[func.0 as usize],
                };
                let fref = *self
                    .func_refs
                    .entry(clif)
                    .or_insert_with(|| self.state.module.declare_func_in_func(clif, self.b.func));
                let inst = self.b.ins().call(fref, &values);
                match out {
                    Some(addr) => self.load(&PlaceRef::Mem(addr), &e.ty),
                    None => Ok(self.b.inst_results(inst).to_vec()),
                }
            }
            ExprKind::Builtin { name, args } => self.builtin(name, args, &e.ty),
            ExprKind::StringLiteral(bytes) => Ok(vec![self.string_constant(bytes)?]),
            ExprKind::Comma { lhs, rhs } => {
                self.expr(lhs)?;
                self.expr(rhs)
            }
            ExprKind::StmtExpr { .. } => Err(CodegenError(
                "a statement expression was left in the typed tree".into(),
            )),
        }
    }

    pub fn constant(&mut self, c: &Constant, ty: &Type) -> Result<Lanes> {
        let (t, _) =
            lane_types(ty).ok_or_else(|| CodegenError(format!("a constant of type '{ty}'")))?;
        Ok(match c {
            Constant::Int(v) => v
                .iter()
                .map(|&x| self.b.ins().iconst(t, x as i64))
                .collect(),
            Constant::Float(v) => v
                .iter()
                .map(|&x| match t {
                    types::F64 => self.b.ins().f64const(x),
                    // NaN constants keep their payloads (folded `as_half`/`as_float`).
                    _ if ty.element() == Some(Scalar::Half) => {
                        let bits = if x.is_nan() {
                            constant::f64_to_half_bits(x)
                        } else {
                            clift_builtins::half::clift_f64_to_half_rte(x)
                        };
                        self.b
                            .ins()
                            .f32const(clift_builtins::half::clift_half_bits_to_f32(bits))
                    }
                    _ => self.b.ins().f32const(constant::constant_f32(x)),
                })
                .collect(),
        })
    }

    /// A binary operation on lanes (scalar operands of vectors already splatted by sema).
    pub(super) fn binary(
        &mut self,
        op: BinaryOp,
        l: Lanes,
        r: Lanes,
        operand_ty: &Type,
        result_ty: &Type,
    ) -> Result<Lanes> {
        let s = operand_ty
            .element()
            .or_else(|| result_ty.element())
            .unwrap_or(Scalar::Long);
        let s = if operand_ty.is_pointer() {
            Scalar::ULong
        } else {
            s
        };
        let (rt, _) = lane_types(result_ty).ok_or_else(|| CodegenError("binary result".into()))?;
        let vector = result_ty.is_vector();
        let lanes: Lanes = l
            .into_iter()
            .zip(r)
            .map(|(x, y)| binary_lane(&mut self.b, op, s, x, y, rt, vector))
            .collect();
        if result_ty.element() == Some(Scalar::Half) {
            // Computed in float, then rounded once: exact for + - * / (float has more than
            // twice half's precision, so the double rounding cannot differ).
            return lanes.into_iter().map(|v| self.round_half(v)).collect();
        }
        Ok(lanes)
    }

    /// A half value's bits at `addr + offset`, as the f32 that holds it.
    fn load_half(&mut self, addr: Value, offset: i32) -> Result<Value> {
        let bits = self
            .b
            .ins()
            .load(types::I16, MemFlagsData::new(), addr, offset);
        self.call_symbol("clift_half_bits_to_f32", &[bits], types::F32)
    }

    /// The 16 bits of a half value held as f32: exact for every half, NaN payloads and
    /// signalling NaNs included, so that moves through memory and `as_*` keep the bits.
    pub fn half_bits(&mut self, x: Value) -> Result<Value> {
        self.call_symbol("clift_f32_to_half_bits", &[x], types::I16)
    }

    /// `x` (an f32) rounded to the nearest half, ties to even, held as f32 again (a NaN
    /// keeps the bits a half can hold: see `clift_f32_round_half`).
    pub fn round_half(&mut self, x: Value) -> Result<Value> {
        self.call_symbol("clift_f32_round_half", &[x], types::F32)
    }

    /// `x` of type `from` converted to half with `rounding` (one rounding: doubles are not
    /// rounded to float first), held as f32.
    fn convert_to_half(&mut self, x: Value, from: Scalar, rounding: Rounding) -> Result<Value> {
        let mode = match rounding {
            Rounding::Rtz => "rtz",
            Rounding::Rtp => "rtp",
            Rounding::Rtn => "rtn",
            Rounding::Default | Rounding::Rte => "rte",
        };
        let (x, source) = match from {
            Scalar::Double => (x, "f64"),
            Scalar::Float | Scalar::Half => (x, "f32"),
            // Integers reach float exactly up to 2^24, far beyond half's range, where every
            // mode gives the same overflow result.
            int => (convert_lane(&mut self.b, x, int, Scalar::Float), "f32"),
        };
        let bits = self.call_symbol(&format!("clift_{source}_to_half_{mode}"), &[x], types::I16)?;
        self.call_symbol("clift_half_to_f32", &[bits], types::F32)
    }

    /// Converts lanes of type `from` to type `to` (same lane count, or scalar to vector).
    pub(super) fn convert_to(&mut self, v: Lanes, from: &Type, to: &Type) -> Result<Lanes> {
        if from == to {
            return Ok(v);
        }
        let (fs, ts) = (
            from.element().unwrap_or(Scalar::ULong),
            to.element().unwrap_or(Scalar::ULong),
        );
        let converted: Lanes = if ts == Scalar::Half && fs != Scalar::Half {
            v.into_iter()
                .map(|x| self.convert_to_half(x, fs, Rounding::Rte))
                .collect::<Result<_>>()?
        } else {
            // A half source is its float value.
            let fs = if fs == Scalar::Half {
                Scalar::Float
            } else {
                fs
            };
            let ts = if ts == Scalar::Half {
                Scalar::Float
            } else {
                ts
            };
            v.into_iter()
                .map(|x| convert_lane(&mut self.b, x, fs, ts))
                .collect()
        };
        if converted.len() == 1 && to.lanes() > 1 {
            return Ok(vec![converted[0]; to.lanes() as usize]);
        }
        Ok(converted)
    }

    fn convert(&mut self, kind: ConvertKind, operand: &Expr, to: &Type) -> Result<Lanes> {
        let v = self.expr(operand)?;
        let from = &operand.ty;
        match kind {
            ConvertKind::Numeric { saturate, rounding } => {
                let (fs, ts) = (
                    from.element().unwrap_or(Scalar::Int),
                    to.element().unwrap_or(Scalar::Int),
                );
                let mut out = Vec::with_capacity(v.len());
                for x in v {
                    out.push(self.convert_numeric(x, fs, ts, saturate, rounding)?);
                }
                Ok(out)
            }
            ConvertKind::Splat => Ok(vec![v[0]; to.lanes() as usize]),
            ConvertKind::BoolSplat => {
                let (t, n) = lane_types(to).ok_or_else(|| CodegenError("bool splat".into()))?;
                let m = super::ops::mask(&mut self.b, v[0], t, true);
                Ok(vec![m; n])
            }
            ConvertKind::ToBool => Ok(vec![self.truth(v[0], from)]),
            ConvertKind::Bitcast => self.bitcast(v, from, to),
            ConvertKind::PointerCast | ConvertKind::Decay => Ok(v),
            ConvertKind::PointerToInt => {
                let (t, _) = lane_types(to).ok_or_else(|| CodegenError("pointer to int".into()))?;
                Ok(vec![if t == types::I64 {
                    v[0]
                } else {
                    self.b.ins().ireduce(t, v[0])
                }])
            }
            ConvertKind::IntToPointer => Ok(v),
        }
    }

    /// One lane of `convert_T[_sat][_rtX]` (or an implicit conversion).
    pub fn convert_numeric(
        &mut self,
        x: Value,
        from: Scalar,
        to: Scalar,
        saturate: bool,
        rounding: Rounding,
    ) -> Result<Value> {
        if to == Scalar::Half {
            return if from == Scalar::Half {
                Ok(x)
            } else {
                self.convert_to_half(x, from, rounding)
            };
        }
        // A half source is its float value, exactly.
        let from = if from == Scalar::Half {
            Scalar::Float
        } else {
            from
        };
        if from == to {
            return Ok(x);
        }
        match (from.is_float(), to.is_float()) {
            (false, false) if saturate => Ok(saturate_int(&mut self.b, x, from, to)),
            (true, false) => {
                // Round to an integral value first with the requested mode, then convert
                // (the conversion truncates, saturates, and maps NaN to 0).
                let r = match rounding {
                    Rounding::Default | Rounding::Rtz => x,
                    Rounding::Rte => self.b.ins().nearest(x),
                    Rounding::Rtp => self.b.ins().ceil(x),
                    Rounding::Rtn => self.b.ins().floor(x),
                };
                Ok(convert_lane(&mut self.b, r, from, to))
            }
            // float -> double is exact in every mode (`fpromote`), and so has no function.
            (_, true)
                if !matches!(rounding, Rounding::Default | Rounding::Rte)
                    && from != to
                    && !(from == Scalar::Float && to == Scalar::Double) =>
            {
                let name = format!(
                    "clift_convert_{}_{}_{}",
                    to.name(),
                    match rounding {
                        Rounding::Rtz => "rtz",
                        Rounding::Rtp => "rtp",
                        _ => "rtn",
                    },
                    from.name()
                );
                Ok(self.call_symbol(&name, &[x], clif_type(to))?)
            }
            _ => Ok(convert_lane(&mut self.b, x, from, to)),
        }
    }

    /// `as_T`: the same bytes, reinterpreted (through memory when the lane shapes differ).
    fn bitcast(&mut self, v: Lanes, from: &Type, to: &Type) -> Result<Lanes> {
        // half lanes are reinterpreted as their 16 bits (exact: the value is a half).
        let as_bits = |ty: &Type| match ty {
            Type::Scalar(Scalar::Half) => Type::Scalar(Scalar::UShort),
            Type::Vector(Scalar::Half, n) => Type::Vector(Scalar::UShort, *n),
            other => other.clone(),
        };
        if from.element() == Some(Scalar::Half) {
            let bits = v
                .into_iter()
                .map(|x| self.half_bits(x))
                .collect::<Result<Lanes>>()?;
            return self.bitcast(bits, &as_bits(from), to);
        }
        if to.element() == Some(Scalar::Half) {
            let bits = self.bitcast(v, from, &as_bits(to))?;
            return bits
                .into_iter()
                .map(|b| self.call_symbol("clift_half_bits_to_f32", &[b], types::F32))
                .collect();
        }
        let (ft, fnl) = lane_types(from).ok_or_else(|| CodegenError("as_type".into()))?;
        let (tt, tnl) = lane_types(to).ok_or_else(|| CodegenError("as_type".into()))?;
        if fnl == tnl && ft.bits() == tt.bits() {
            return Ok(v
                .into_iter()
                .map(|x| {
                    if ft == tt {
                        x
                    } else {
                        self.b.ins().bitcast(tt, MemFlagsData::new(), x)
                    }
                })
                .collect());
        }
        let size = (from.size().max(to.size())) as u32;
        let slot = self.b.create_sized_stack_slot(ir::StackSlotData::new(
            ir::StackSlotKind::ExplicitSlot,
            size,
            4,
        ));
        let addr = self.b.ins().stack_addr(types::I64, slot, 0);
        for (i, x) in v.into_iter().enumerate() {
            self.b.ins().store(
                MemFlagsData::trusted(),
                x,
                addr,
                (i as u32 * ft.bytes()) as i32,
            );
        }
        Ok((0..tnl)
            .map(|i| {
                self.b.ins().load(
                    tt,
                    MemFlagsData::trusted(),
                    addr,
                    (i as u32 * tt.bytes()) as i32,
                )
            })
            .collect())
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
        Ok(self.b.ins().symbol_value(types::I64, gv))
    }

    /// Calls a builtins-library symbol with Cranelift values; returns its one result.
    pub fn call_symbol(&mut self, name: &str, args: &[Value], ret: ir::Type) -> Result<Value> {
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

/// What the work-group function of a kernel with barriers runs: regions for every
/// work-item, and the control flow around barriers once for the group.
pub(super) enum WgNode {
    /// A region function, run for every work-item.
    Region(cranelift_module::FuncId),
    If {
        cond: cranelift_module::FuncId,
        then_nodes: Vec<WgNode>,
        else_nodes: Vec<WgNode>,
    },
    Loop {
        cond: Option<cranelift_module::FuncId>,
        /// A `Region` or, for a uniform step, a `Once`.
        step: Option<Box<WgNode>>,
        body: Vec<WgNode>,
        test_after: bool,
    },
    /// A function run once for the group, as its first work-item (a uniform loop step).
    Once(cranelift_module::FuncId),
    /// `break` / `continue` of the innermost group-level loop (taken by the whole group:
    /// the control flow around barriers is uniform).
    Break,
    Continue,
    /// A resumable kernel ([`resumable`]): passes over every work-item, each running the
    /// function until the item's next barrier, until no item stopped at one. `pass` and
    /// `pending` are offsets in the first frame.
    Resume {
        func: cranelift_module::FuncId,
        pass: u32,
        pending: u32,
    },
}

/// Whether a kernel's body may read its work-item's local id of dimension 0 from the item
/// context rather than from the row loop's counter: `get_local_id`/`get_global_id` with a
/// dimension that is not the constant 0, and every function it calls.
pub(super) fn reads_local_id_from_memory(f: &tir::Function, body: &[Stmt]) -> bool {
    !f.callees.is_empty()
        || work_item_queries(body)
            .iter()
            .any(|&(name, dim)| matches!(name, "get_local_id" | "get_global_id") && dim != Some(0))
}

/// The dimension a work-item query's arguments name, when it is a constant.
pub(super) fn constant_dimension(args: &[Expr]) -> Option<u64> {
    match args.first().map(|a| &a.kind) {
        Some(ExprKind::Const(Constant::Int(v))) => v.first().copied(),
        _ => None,
    }
}

/// The work-item queries that take a dimension (`get_global_id`, `get_group_id`, ...) that
/// `body` makes, each once, with the dimension when it is a constant.
fn work_item_queries(body: &[Stmt]) -> Vec<(&'static str, Option<u64>)> {
    const QUERIES: [&str; 7] = [
        "get_global_id",
        "get_local_id",
        "get_group_id",
        "get_local_size",
        "get_global_size",
        "get_num_groups",
        "get_global_offset",
    ];
    let mut found = Vec::new();
    fn visit(e: &Expr, found: &mut Vec<(&'static str, Option<u64>)>) {
        if let ExprKind::Builtin { name, args } = &e.kind
            && let Some(query) = QUERIES.iter().find(|q| **q == &**name)
        {
            let query = (*query, constant_dimension(args));
            if !found.contains(&query) {
                found.push(query);
            }
        }
        for_each_child(e, &mut |c| visit(c, found));
    }
    for_each_stmt_expr(body, &mut |e| visit(e, &mut found));
    found
}

/// Whether a statement of `block`, at any depth, is one `pred` accepts.
pub(super) fn any_statement(block: &[Stmt], pred: &dyn Fn(&StmtKind) -> bool) -> bool {
    block.iter().any(|s| {
        pred(&s.kind)
            || match &s.kind {
                StmtKind::Block(b)
                | StmtKind::Loop { body: b, .. }
                | StmtKind::Switch { body: b, .. } => any_statement(b, pred),
                StmtKind::If {
                    then_branch,
                    else_branch,
                    ..
                } => any_statement(then_branch, pred) || any_statement(else_branch, pred),
                _ => false,
            }
    })
}

/// Whether `block` has a `break` or `continue` that leaves it for an enclosing loop (one
/// not inside a loop or, for `break`, a `switch` of its own).
pub(super) fn escapes_loop(block: &[Stmt]) -> bool {
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

/// A kernel split at its barriers.
pub(super) struct BarrierPlan {
    pub nodes: Vec<WgNode>,
    pub frame_size: u32,
    /// The frame offset of each item's "done" flag (set when it returns).
    pub done_flag: u32,
}

/// Whether a builtin is a work-group synchronization point: `barrier`, and
/// `wait_group_events`, which "must be encountered by all work-items in a work-group" and
/// after which every item sees the whole async copy (each item performs the copy before
/// it, see `async_copy`).
pub(super) fn is_group_sync(name: &str) -> bool {
    matches!(name, "barrier" | "wait_group_events")
}

/// Whether the statements reach a synchronization point ([`is_group_sync`]) directly
/// (functions containing one are rejected).
pub(super) fn contains_barrier(block: &[Stmt]) -> bool {
    let mut found = false;
    visit_builtins(block, &mut |name| found |= is_group_sync(name));
    found
}

fn is_barrier(s: &Stmt) -> bool {
    matches!(&s.kind, StmtKind::Expr(Expr { kind: ExprKind::Builtin { name, .. }, .. }) if is_group_sync(name))
}

/// Splits a kernel with barriers into region and condition functions (PoCL's work-item
/// loop fission): straight-line statements between barriers become a region run for every
/// work-item; `if` and loops that contain barriers run once for the group, their
/// conditions evaluated by one work-item (barriers must be reached uniformly, 6.12.8).
pub(super) fn define_barrier_kernel(
    state: &mut ModuleState,
    id: FuncId,
    f: &tir::Function,
    fctx: &mut FunctionBuilderContext,
    options: &CodegenOptions,
) -> Result<BarrierPlan> {
    let body = f.body.as_ref().expect("kernels have bodies");
    let frames = FrameLayout::of(f, body);
    let mut splitter = Splitter {
        state,
        id,
        f,
        fctx,
        options,
        frames: &frames,
        count: 0,
        loop_depth: 0,
    };
    let prologue = splitter.region(&[], true)?;
    let mut nodes = vec![WgNode::Region(prologue)];
    nodes.extend(splitter.plan(body)?);
    Ok(BarrierPlan {
        nodes,
        frame_size: frames.size,
        done_flag: frames.done_flag,
    })
}

/// Where the `break`s of a switch go. Each group of [`Self::BREAKS_PER_JOIN`] breaks jumps
/// to a join block that jumps on to the exit: a switch of many cases that each assign a
/// variable and break would otherwise give the exit one block parameter with an argument
/// per case, which register allocation handles in time quadratic in their number.
struct SwitchExit {
    exit: Block,
    joins: Vec<Block>,
    breaks: usize,
}

impl SwitchExit {
    const BREAKS_PER_JOIN: usize = 64;
}

/// Where a kernel with barriers keeps its variables from one region to the next.
pub(super) struct FrameLayout {
    /// Every private variable (parameters included) has a slot in each work-item's frame.
    offsets: HashMap<LocalId, u32>,
    /// Bytes of one work-item's frame: a region steps by it from one item to the next.
    size: u32,
    /// The offset of the item's "done" flag (it returned; later regions skip it).
    done_flag: u32,
    /// Uniform variables kept once for the group, in the first item's frame.
    shared: HashSet<LocalId>,
    /// Variables whose address is taken: they stay in memory, never in registers.
    address_taken: HashSet<LocalId>,
}

impl FrameLayout {
    fn of(f: &tir::Function, body: &[Stmt]) -> FrameLayout {
        let mut offsets = HashMap::new();
        let mut size = 0u32;
        let mut max_align = 16u32;
        for (i, local) in f.locals.iter().enumerate() {
            if local.ty.space == AddressSpace::Local && (i as u32) >= f.params {
                continue;
            }
            // Aligned as everywhere (6.1.5): the frames of a group start at a multiple of
            // `MAX_ALIGN` and each frame is a multiple of its largest alignment long.
            let align = local.ty.ty.align().max(1) as u32;
            max_align = max_align.max(align);
            size = size.next_multiple_of(align);
            offsets.insert(LocalId(i as u32), size);
            size += local.ty.ty.size().max(1) as u32;
        }
        FrameLayout {
            offsets,
            done_flag: size,
            // One byte more: the done flag.
            size: (size + 1).next_multiple_of(16).next_multiple_of(max_align),
            shared: super::uniform::shared_locals(f),
            address_taken: address_taken(body),
        }
    }
}

struct Splitter<'a, 'b> {
    state: &'a mut ModuleState,
    id: FuncId,
    f: &'a tir::Function,
    fctx: &'b mut FunctionBuilderContext,
    options: &'a CodegenOptions,
    frames: &'a FrameLayout,
    count: u32,
    /// Group-level loops around the statements being planned.
    loop_depth: u32,
}

impl Splitter<'_, '_> {
    fn plan(&mut self, stmts: &[Stmt]) -> Result<Vec<WgNode>> {
        let mut nodes = Vec::new();
        let mut run: Vec<Stmt> = Vec::new();
        self.walk(stmts, &mut run, &mut nodes)?;
        self.flush(&mut run, &mut nodes)?;
        Ok(nodes)
    }

    fn walk(&mut self, stmts: &[Stmt], run: &mut Vec<Stmt>, nodes: &mut Vec<WgNode>) -> Result<()> {
        for s in stmts {
            let one = std::slice::from_ref(s);
            // A break or continue of a group-level loop is the group's too.
            let escapes = self.loop_depth > 0 && escapes_loop(one);
            if !contains_barrier(one) && !escapes {
                if super::uniform::runs_once(s, &self.frames.shared) {
                    // It only sets variables kept once for the group: run it once.
                    self.flush(run, nodes)?;
                    nodes.push(WgNode::Once(self.once(one)?));
                } else {
                    run.push(s.clone());
                }
                continue;
            }
            match &s.kind {
                _ if is_barrier(s) => self.flush(run, nodes)?,
                StmtKind::Break | StmtKind::Continue => {
                    self.flush(run, nodes)?;
                    nodes.push(if matches!(s.kind, StmtKind::Break) {
                        WgNode::Break
                    } else {
                        WgNode::Continue
                    });
                }
                StmtKind::Block(b) => self.walk(b, run, nodes)?,
                StmtKind::If {
                    cond,
                    then_branch,
                    else_branch,
                } => {
                    self.flush(run, nodes)?;
                    let cond = self.condition(cond)?;
                    let then_nodes = self.plan(then_branch)?;
                    let else_nodes = self.plan(else_branch)?;
                    nodes.push(WgNode::If {
                        cond,
                        then_nodes,
                        else_nodes,
                    });
                }
                StmtKind::Loop {
                    cond,
                    step,
                    body,
                    test_after,
                    ..
                } => {
                    self.flush(run, nodes)?;
                    let cond = cond.as_ref().map(|c| self.condition(c)).transpose()?;
                    let step_stmt = |e: &Expr| {
                        [Stmt {
                            kind: StmtKind::Expr(e.clone()),
                            span: s.span,
                        }]
                    };
                    // A step that changes only shared variables runs once for the group.
                    let step = match step {
                        Some(e)
                            if super::uniform::runs_once(&step_stmt(e)[0], &self.frames.shared) =>
                        {
                            Some(WgNode::Once(self.once(&step_stmt(e))?))
                        }
                        Some(e) => Some(WgNode::Region(self.region(&step_stmt(e), false)?)),
                        None => None,
                    };
                    self.loop_depth += 1;
                    let body = self.plan(body);
                    self.loop_depth -= 1;
                    let body = body?;
                    nodes.push(WgNode::Loop {
                        cond,
                        step: step.map(Box::new),
                        body,
                        test_after: *test_after,
                    });
                }
                _ => {
                    // `splits_at_barriers` sends such kernels to `define_resumable_kernel`.
                    return unsupported(format!(
                        "internal error: the work-group planner cannot split '{}' at its barriers",
                        self.f.name
                    ));
                }
            }
        }
        Ok(())
    }

    fn flush(&mut self, run: &mut Vec<Stmt>, nodes: &mut Vec<WgNode>) -> Result<()> {
        if run.is_empty() {
            return Ok(());
        }
        let stmts = std::mem::take(run);
        nodes.push(WgNode::Region(self.region(&stmts, false)?));
        Ok(())
    }

    fn declare(
        &mut self,
        returns: Option<ir::Type>,
    ) -> Result<(cranelift_module::FuncId, cranelift_codegen::Context)> {
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
            .declare_function(&name, cranelift_module::Linkage::Local, &sig)
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
        id: cranelift_module::FuncId,
        ctx: cranelift_codegen::Context,
        what: &str,
    ) -> Result<cranelift_module::FuncId> {
        super::dump::function(what, &ctx.func);
        self.state
            .defer(id, format!("a part of '{}'", self.f.name), ctx);
        Ok(id)
    }

    fn region(
        &mut self,
        stmts: &[Stmt],
        load_parameters: bool,
    ) -> Result<cranelift_module::FuncId> {
        let (id, mut ctx) = self.declare(None)?;
        let frames = self.frames;
        self.lower(&mut ctx, |l| l.region(stmts, frames, load_parameters))?;
        self.define(id, ctx, &format!("{} region {}", self.f.name, self.count))
    }

    fn once(&mut self, stmts: &[Stmt]) -> Result<cranelift_module::FuncId> {
        let (id, mut ctx) = self.declare(None)?;
        let frames = self.frames;
        self.lower(&mut ctx, |l| l.once_function(stmts, frames))?;
        self.define(id, ctx, &format!("{} once {}", self.f.name, self.count))
    }

    fn condition(&mut self, cond: &Expr) -> Result<cranelift_module::FuncId> {
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
