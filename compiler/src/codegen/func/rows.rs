//! The row loops of work-item functions: a kernel's function runs a whole row of
//! work-items (every local x for the y and z the work-group function set), so that the local
//! and global ids of dimension 0 are registers and there is one call per row; and the
//! functions of a kernel with barriers (regions run by every work-item of a row, with their
//! variables in frames; functions the group runs once; conditions one work-item evaluates).

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Value, types};
use cranelift_frontend::Variable;

use super::{Lower, PlaceRef, Result, Storage};
use crate::codegen::item_context;
use crate::codegen::ops::lane_types;
use crate::frontend::tir::BuiltinFunction;
use crate::frontend::tir::visit::for_each_expr;
use crate::frontend::tir::{self, Block as TirBlock, Constant, Expr, ExprKind, LocalId, Stmt};
use crate::kernel::WorkGroup;
use crate::passes::analysis::locals_used;
use crate::passes::barriers::FrameLayout;

impl Lower<'_, '_> {
    /// A kernel without barriers runs a whole row of work-items (every local x for the y and
    /// z the work-group function set): the x loop is here, so the local and global ids of
    /// dimension 0 are a register, and there is one call per row, not per work-item.
    pub(super) fn kernel_row(&mut self, body: &TirBlock) -> Result<()> {
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
        let row = self.row_loop();
        // The row starts after the items its vectorized row function ran (`codegen/simd`).
        let start = self
            .b
            .ins()
            .load(types::I64, flags, self.item, item_context::ROW_START);
        self.b.def_var(row.x, start);
        let first = self.b.use_var(gx);
        let first = self.b.ins().iadd(first, start);
        self.b.def_var(gx, first);
        let (x, latch) = (row.x, row.latch);
        self.enter_row(&row, size);
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
        self.next_item(&row, gx, size);
        Ok(())
    }

    /// The loop over the work-items of a row, not entered yet: its counter `x` of local
    /// ids of dimension 0 (from 0) and its blocks.
    fn row_loop(&mut self) -> RowLoop {
        let x = self.b.declare_var(types::I64);
        let zero = self.b.ins().iconst(types::I64, 0);
        self.b.def_var(x, zero);
        RowLoop {
            x,
            head: self.b.create_block(),
            body: self.b.create_block(),
            latch: self.b.create_block(),
            exit: self.b.create_block(),
        }
    }

    /// Enters a row loop: on to its body for each `x` below `size`.
    fn enter_row(&mut self, row: &RowLoop, size: Value) {
        self.b.ins().jump(row.head, &[]);
        self.b.switch_to_block(row.head);
        let xv = self.b.use_var(row.x);
        let more = self.b.ins().icmp(IntCC::UnsignedLessThan, xv, size);
        self.b.ins().brif(more, row.body, &[], row.exit, &[]);
        self.b.switch_to_block(row.body);
    }

    /// Ends an item of a row loop (in the current block): the counters step, the loop goes
    /// on while `x` is below `size`, and the function returns when the row is done. The test
    /// is repeated here rather than jumping back to the head's: one taken branch per item
    /// instead of two (the head only guards the first item).
    fn next_item(&mut self, row: &RowLoop, gx: Variable, size: Value) {
        for counter in [row.x, gx] {
            let v = self.b.use_var(counter);
            let next = self.b.ins().iadd_imm_s(v, 1);
            self.b.def_var(counter, next);
        }
        let xv = self.b.use_var(row.x);
        let more = self.b.ins().icmp(IntCC::UnsignedLessThan, xv, size);
        self.b.ins().brif(more, row.body, &[], row.exit, &[]);
        self.b.switch_to_block(row.exit);
        self.b.ins().return_(&[]);
        self.b.seal_all_blocks();
    }

    /// Starts a function of a kernel with barriers: its item context is its one parameter,
    /// and the kernel's variables are in the work-items' frames.
    pub(super) fn enter_with_frames(&mut self, frames: &FrameLayout) {
        let entry = self.b.create_block();
        self.b.append_block_params_for_function_params(entry);
        self.b.switch_to_block(entry);
        self.item = self.b.block_params(entry)[0];
        self.setup_storage(None, Some(frames));
    }

    /// A row loop's counter of global ids of dimension 0, from the row's first item's; and
    /// the work-item functions of constant dimension the body calls, read once for the row.
    pub(in crate::codegen) fn global_counter(&mut self, body: &[Stmt]) -> Variable {
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
        for (function, dim) in constant {
            let field = match function {
                BuiltinFunction::GetGlobalId if dim > 0 => Some((true, item_context::GLOBAL_ID)),
                BuiltinFunction::GetLocalId if dim > 0 => Some((true, item_context::LOCAL_ID)),
                BuiltinFunction::GetGroupId => Some((false, WorkGroup::OFFSET_GROUP_ID)),
                BuiltinFunction::GetLocalSize => Some((false, WorkGroup::OFFSET_LOCAL_SIZE)),
                BuiltinFunction::GetGlobalSize => Some((false, WorkGroup::OFFSET_GLOBAL_SIZE)),
                BuiltinFunction::GetNumGroups => Some((false, WorkGroup::OFFSET_NUM_GROUPS)),
                BuiltinFunction::GetGlobalOffset => Some((false, WorkGroup::OFFSET_GLOBAL_OFFSET)),
                _ => None,
            };
            if let Some((in_item, offset)) = field {
                let base = if in_item { self.item } else { self.group() };
                let v = self
                    .b
                    .ins()
                    .load(types::I64, flags, base, offset + 8 * dim as i32);
                self.row_constants.insert((function, dim), v);
            }
        }
        gx
    }

    /// A region function of a kernel with barriers: `stmts` run by every work-item of a row
    /// (every local x for the y and z the work-group function set), each with its variables
    /// in its own frame; the first region also loads the parameters. As in [`Lower::kernel_row`],
    /// the x loop is here, so there is one call per row and `get_local_id(0)` is a register.
    pub(in crate::codegen) fn region(
        &mut self,
        stmts: &[Stmt],
        frames: &FrameLayout,
        load_parameters: bool,
    ) -> Result<()> {
        self.enter_with_frames(frames);
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
        let row = self.row_loop();
        // The row starts after the items its vectorized row function ran (`codegen/simd`).
        let start = self
            .b
            .ins()
            .load(types::I64, flags, self.item, item_context::ROW_START);
        self.b.def_var(row.x, start);
        let first = self.b.use_var(gx);
        let first = self.b.ins().iadd(first, start);
        self.b.def_var(gx, first);
        let (x, latch) = (row.x, row.latch);
        // After an item's part: `latch` stores its promoted variables back, then `advance`
        // moves to the next item (an item already done goes to `advance` directly).
        let advance = self.b.create_block();
        self.enter_row(&row, size);
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
        self.next_item(&row, gx, size);
        Ok(())
    }

    /// Moves the scalar and vector variables a region names (and whose address is never
    /// taken) from the work-item's frame into SSA variables for the region's body: loaded
    /// here, at the start of each item, and stored back when the item's part ends. A loop
    /// inside the region then keeps them in registers instead of the frame.
    pub(super) fn promote_frame_variables(
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
            let vars = match self.local_shape(id) {
                Some(s) => self.packed_storage(s),
                None => Storage::Vars((0..n).map(|_| self.b.declare_var(t)).collect()),
            };
            let home = std::mem::replace(&mut self.storage[id.0 as usize], vars);
            let ty = self.func.local(id).ty.ty.clone();
            let addr = self.home_address(&home, offset);
            let value = self.load(&PlaceRef::Mem(addr), &ty)?;
            self.store(&PlaceRef::Var(id), &ty, value)?;
            promoted.push((id, offset, matches!(home, Storage::SharedFrame(_))));
        }
        Ok(promoted)
    }

    /// Where a variable of `home` storage lives in memory.
    pub(super) fn home_address(&mut self, home: &Storage, offset: u32) -> Value {
        match home {
            Storage::SharedFrame(_) => self.shared_frame_address(offset),
            _ => self.frame_address(offset),
        }
    }

    /// The address of byte `offset` of the current work-item's frame.
    pub(super) fn frame_address(&mut self, offset: u32) -> Value {
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
    pub(in crate::codegen) fn once_function(
        &mut self,
        stmts: &[Stmt],
        frames: &FrameLayout,
    ) -> Result<()> {
        self.enter_with_frames(frames);
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
    pub(in crate::codegen) fn condition_function(
        &mut self,
        cond: &Expr,
        frames: &FrameLayout,
    ) -> Result<()> {
        self.enter_with_frames(frames);
        let c = self.condition(cond)?;
        self.b.ins().return_(&[c]);
        self.b.seal_all_blocks();
        Ok(())
    }
}

/// A row loop's counter and blocks (see [`Lower::row_loop`]).
struct RowLoop {
    x: Variable,
    head: cranelift_codegen::ir::Block,
    body: cranelift_codegen::ir::Block,
    latch: cranelift_codegen::ir::Block,
    exit: cranelift_codegen::ir::Block,
}

/// Whether a kernel's body may read its work-item's local id of dimension 0 from the item
/// context rather than from the row loop's counter: `get_local_id`/`get_global_id` with a
/// dimension that is not the constant 0, and every function it calls.
pub(in crate::codegen) fn reads_local_id_from_memory(f: &tir::Function, body: &[Stmt]) -> bool {
    !f.callees.is_empty()
        || work_item_queries(body).iter().any(|&(function, dim)| {
            matches!(
                function,
                BuiltinFunction::GetLocalId | BuiltinFunction::GetGlobalId
            ) && dim != Some(0)
        })
}

/// The dimension a work-item query's arguments name, when it is a constant.
pub(in crate::codegen) fn constant_dimension(args: &[Expr]) -> Option<u64> {
    match args.first().map(|a| &a.kind) {
        Some(ExprKind::Const(Constant::Int(v))) => v.first().copied(),
        _ => None,
    }
}

/// The work-item queries that take a dimension (`get_global_id`, `get_group_id`, ...) that
/// `body` makes, each once, with the dimension when it is a constant.
fn work_item_queries(body: &[Stmt]) -> Vec<(BuiltinFunction, Option<u64>)> {
    let mut found = Vec::new();
    for_each_expr(body, &mut |e| {
        if let ExprKind::Builtin { id, args } = &e.kind
            && id.attributes().work_item_query
            && !args.is_empty()
        {
            let query = (id.function(), constant_dimension(args));
            if !found.contains(&query) {
                found.push(query);
            }
        }
    });
    found
}
