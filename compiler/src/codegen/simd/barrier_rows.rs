//! Vectorized region rows of kernels with barriers: a region (the statements between two
//! barriers, `passes::barriers`) gets, beside its scalar row function (`func/rows.rs`), one
//! that runs [`WIDTH`] work-items of dimension 0 per step, as a kernel without barriers
//! does; the scalar one runs the rest of the row.
//!
//! The region's variables live in the work-items' frames between regions:
//! - a varying variable the region uses but does not declare is read from each lane's frame
//!   at the start of the step; one written only by a declaration whose value is a pure
//!   function of the ids and of parameters (`int lx = get_local_id(0)`) is computed again
//!   instead, so that it stays a sequence (`t[lx]` is one vector access) or, where it is the
//!   same in the step's lanes (`get_local_id(1)`), scalar;
//! - a varying variable the region writes, or declares at its top level, goes back to each
//!   lane's frame at the end of the step (later regions, the scalar remainder and the
//!   group's conditions read it there);
//! - a uniform variable kept per item is read from the first lane's frame and, where the
//!   region writes it, stored to every lane's; those kept once for the group stay where
//!   they are (`func::Storage::SharedFrame`).
//!
//! The kernel's `__local` arrays are memory at uniform addresses: `t[lid]` is a consecutive
//! access like `p[lid]` through a pointer (`places.rs`).

use std::collections::{HashMap, HashSet};

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{AbiParam, InstBuilder, MemFlagsData, Value, types};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_module::{FuncId as ClifFuncId, Linkage, Module};

use super::super::func::{Lower, PlaceRef, Result, Storage, unsupported};
use super::super::item_context;
use super::super::ops::lane_types;
use super::super::{CodegenOptions, ModuleState};
use super::WIDTH;
use super::lower::{VecLower, has_return};
use super::value::{VVal, soa_type};
use crate::frontend::tir::visit::{any_statement, for_each_stmt, for_each_stmt_expr};
use crate::frontend::tir::{
    self, BinaryOp, ConvertKind, Expr, ExprKind, LocalId, PlaceKind, Stmt, StmtKind,
};
use crate::frontend::types::{AddressSpace, Scalar, Type};
use crate::kernel::WorkGroup;
use crate::passes::analysis::{locals_used, place_root};
use crate::passes::barriers::FrameLayout;

/// A region of a kernel with barriers, to vectorize.
pub(in crate::codegen) struct Region<'a> {
    pub stmts: &'a [Stmt],
    pub frames: &'a FrameLayout,
    /// The group's first region: it also stores the parameters in the frames.
    pub load_parameters: bool,
    /// The name of the function (unique in the module).
    pub name: String,
}

/// Defines the vectorized row function of a region of the kernel `f`: `fn(item) -> u64`,
/// returning how many items of the row (from local id 0) it ran. Says why not where it
/// cannot.
pub(in crate::codegen) fn define_vector_region(
    state: &mut ModuleState,
    f: &tir::Function,
    region: &Region,
    options: &CodegenOptions,
) -> std::result::Result<ClifFuncId, String> {
    if options.scalar_only || !super::enabled() {
        return Err("turned off (CLIFT_VECTORIZE=0)".into());
    }
    // Checks are emitted by the scalar lowering only.
    if options.safe {
        return Err("safe mode runs work-items one at a time".into());
    }
    let mut uniform = crate::passes::uniform::uniform_locals(f);
    // The kernel's `__local` arrays: memory the group shares, at a uniform address.
    for (i, local) in f.locals.iter().enumerate() {
        if local.ty.space == AddressSpace::Local && i as u32 >= f.params {
            uniform.insert(LocalId(i as u32));
        }
    }
    check(f, region, &uniform)?;
    let mut ctx = state.module.make_context();
    let mut sig = state.module.make_signature();
    sig.params.push(AbiParam::new(types::I64));
    sig.returns.push(AbiParam::new(types::I64));
    ctx.func.signature = sig.clone();
    {
        // A context of its own: a lowering given up half-way leaves its context unfinished.
        let mut fctx = FunctionBuilderContext::new();
        let b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
        let l = Lower::new(b, state, f, options);
        let mut v = VecLower::new(l, f, uniform);
        v.unroll_constant_loops = true;
        // Wide vector types: which row is faster, as for a kernel without barriers
        // (`cost.rs`), counting the frames the vectorized row transposes them through.
        if v.l.vector_registers {
            match super::cost::hint(f) {
                Some(hinted) => hinted?,
                None => {
                    let moved = frame_traffic(f, region.stmts, &v.uniform);
                    v.region_estimate(region.stmts, moved.iter().map(|&id| &f.local(id).ty.ty))
                        .vectorized_row_pays()?
                }
            }
        }
        v.region_function(region).map_err(|e| e.0)?;
        let config = v.l.state.isa.frontend_config();
        v.l.b.finalize(config);
    }
    let id = state
        .module
        .declare_function(&region.name, Linkage::Local, &sig)
        .map_err(|e| e.to_string())?;
    super::super::dump::function(
        &format!("vectorized region function {}", region.name),
        &ctx.func,
    );
    state.defer(id, format!("a vectorized region of '{}'", f.name), ctx);
    Ok(id)
}

/// Whether the region's vectorized function can be built; the reason where not.
fn check(
    f: &tir::Function,
    region: &Region,
    uniform: &HashSet<LocalId>,
) -> std::result::Result<(), String> {
    if f.labels > 0
        || any_statement(region.stmts, &|s| {
            matches!(
                s,
                StmtKind::Switch { .. } | StmtKind::Goto(_) | StmtKind::Label(_)
            )
        })
    {
        return Err("it has a switch or a goto".into());
    }
    if let Some(id) = region.frames.address_taken.iter().min() {
        return Err(format!("the address of '{}' is taken", f.local(*id).name));
    }
    let mut used: Vec<LocalId> = locals_used(region.stmts).into_iter().collect();
    used.sort();
    for id in used {
        if uniform.contains(&id) {
            continue;
        }
        let local = f.local(id);
        match &local.ty.ty {
            Type::Scalar(s) | Type::Enum(_, s) if *s != Scalar::Half => {}
            Type::Pointer(_) => {}
            ty if soa_type(ty).is_some() => {}
            ty if super::narrow_vec::narrow_soa(ty).is_some() => {}
            ty => {
                return Err(format!(
                    "'{}' is a varying {ty} (only scalars and vectors other than half are vectorized yet)",
                    local.name
                ));
            }
        }
        if !region.frames.offsets.contains_key(&id) {
            return Err(format!("'{}' has no frame slot", local.name));
        }
    }
    Ok(())
}

impl VecLower<'_, '_> {
    /// The region's row function: steps of `WIDTH` items while a whole step fits in the row
    /// (none where the row's global ids reach 2^31, as in `row_function`); returns how many
    /// items it ran.
    pub(super) fn region_function(&mut self, region: &Region) -> Result<()> {
        let (stmts, frames) = (region.stmts, region.frames);
        let entry = self.l.b.create_block();
        self.l.b.append_block_params_for_function_params(entry);
        self.l.b.switch_to_block(entry);
        self.l.item = self.l.b.block_params(entry)[0];
        self.l.setup_storage(None, Some(frames));
        self.add_region_uniforms(stmts);
        let flags = MemFlagsData::trusted();
        let group = self.l.group();
        let size = self
            .l
            .b
            .ins()
            .load(types::I64, flags, group, WorkGroup::OFFSET_LOCAL_SIZE);
        let row_frame = self
            .l
            .b
            .ins()
            .load(types::I64, flags, self.l.item, item_context::FRAME);
        let arguments = if region.load_parameters {
            Some(self.l.kernel_arguments()?)
        } else {
            None
        };
        let gx = self.l.global_counter(stmts);
        if !region.load_parameters {
            self.hoist_shared(stmts, frames)?;
        }
        let (count, x) = self.vector_step_count(gx, size);
        // A region only some ids need runs only their steps (`bounds.rs`).
        let active = if region.load_parameters {
            None
        } else {
            self.active_ids(stmts, size)?
        };
        let (end, ret) = match active {
            Some(range) => {
                let (start, end, ret) = self.bounded_steps(range, count, size);
                self.l.b.def_var(x, start);
                let first = self.l.b.use_var(gx);
                let first = self.l.b.ins().iadd(first, start);
                self.l.b.def_var(gx, first);
                (end, ret)
            }
            None => (count, count),
        };
        let (head, body_b, exit) = (
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
        let (xv, gv) = (self.l.b.use_var(x), self.l.b.use_var(gx));
        let mut lane_frames = Vec::new();
        for k in 0..WIDTH as usize {
            let lx = self.l.b.ins().iadd_imm_s(xv, k as i64);
            self.l.b.def_var(self.lane_x[k], lx);
            let lg = self.l.b.ins().iadd_imm_s(gv, k as i64);
            self.l.b.def_var(self.lane_gx[k], lg);
            let offset = self.l.b.ins().imul_imm_s(lx, i64::from(frames.size));
            lane_frames.push(self.l.b.ins().iadd(row_frame, offset));
        }
        self.l.local_x = Some(x);
        self.l.global_x = Some(gx);
        if let Some(arguments) = &arguments {
            // The group's first region: each item's parameters in its frame, and its done
            // flag clear.
            let no = self.l.b.ins().iconst(types::I8, 0);
            for &frame in &lane_frames {
                self.set_frame(frame);
                self.l
                    .b
                    .ins()
                    .store(flags, no, frame, frames.done_flag as i32);
                self.l.store_parameters(arguments.clone())?;
            }
        }
        // What the scalar lowering reads from "the" frame (uniform variables) is the first
        // lane's.
        self.set_frame(lane_frames[0]);
        let promoted = self.promote_uniform(stmts, frames, lane_frames[0])?;
        self.enter_varying(stmts, frames, &lane_frames)?;
        let body = self.f.body.as_deref().unwrap_or_default();
        if has_return(body) {
            // Items that returned are skipped (their done bytes), here and in later regions.
            let latch = self.l.b.create_block();
            self.enter_live(
                &lane_frames,
                frames.done_flag,
                region.load_parameters,
                latch,
            );
            self.block(stmts)?;
            self.jump(latch);
            self.l.b.switch_to_block(latch);
            self.leave_live(&lane_frames, frames.done_flag);
        } else {
            self.block(stmts)?;
        }
        // The step's end: what later regions read goes back to the frames.
        let kept = kept_after(stmts);
        for (id, offset) in promoted {
            if !kept.contains(&id) {
                continue;
            }
            let ty = self.f.local(id).ty.ty.clone();
            let value = self.l.load(&PlaceRef::Var(id), &ty)?;
            for &frame in &lane_frames {
                let addr = self.l.b.ins().iadd_imm_s(frame, i64::from(offset));
                self.l.store(&PlaceRef::Mem(addr), &ty, value.clone())?;
            }
        }
        let mut varying: Vec<LocalId> = kept
            .into_iter()
            .filter(|id| self.vars.contains_key(id))
            .collect();
        varying.sort();
        for id in varying {
            let ty = self.f.local(id).ty.ty.clone();
            let offset = frames.offsets[&id];
            let v = self.get_local(id)?;
            let lanes = self.lanes(&v);
            for (lane, &frame) in lanes.into_iter().zip(&lane_frames) {
                let addr = self.l.b.ins().iadd_imm_s(frame, i64::from(offset));
                self.l.store(&PlaceRef::Mem(addr), &ty, lane)?;
            }
        }
        for counter in [x, gx] {
            let v = self.l.b.use_var(counter);
            let next = self.l.b.ins().iadd_imm_s(v, WIDTH);
            self.l.b.def_var(counter, next);
        }
        self.l.b.ins().jump(head, &[]);
        self.l.b.switch_to_block(exit);
        // The scalar row function that runs the rest finds the row's first frame there.
        self.set_frame(row_frame);
        self.l.b.ins().return_(&[ret]);
        self.l.b.seal_all_blocks();
        Ok(())
    }

    /// Makes `frame` the item context's frame (where the scalar lowering finds variables).
    fn set_frame(&mut self, frame: Value) {
        self.l.b.ins().store(
            MemFlagsData::trusted(),
            frame,
            self.l.item,
            item_context::FRAME,
        );
    }

    /// Reads the variables kept once for the group that the region names but does not
    /// write once, before its loop (each step would read them again from memory).
    fn hoist_shared(&mut self, stmts: &[Stmt], frames: &FrameLayout) -> Result<()> {
        let mut written = Vec::new();
        for_each_stmt_expr(stmts, &mut |e| writes(e, &mut written));
        written.extend(declared_in(stmts));
        let mut used: Vec<LocalId> = locals_used(stmts)
            .into_iter()
            .filter(|id| frames.shared.contains(id) && !written.contains(id))
            .collect();
        used.sort();
        for id in used {
            let local = self.f.local(id);
            let (Some(&offset), Some((t, n))) = (frames.offsets.get(&id), lane_types(&local.ty.ty))
            else {
                continue;
            };
            let ty = local.ty.ty.clone();
            let addr = self.l.shared_frame_address(offset);
            let value = self.l.load(&PlaceRef::Mem(addr), &ty)?;
            let vars = (0..n).map(|_| self.l.b.declare_var(t)).collect();
            self.l.storage[id.0 as usize] = Storage::Vars(vars);
            self.l.store(&PlaceRef::Var(id), &ty, value)?;
        }
        Ok(())
    }

    /// Moves the uniform variables kept per item that the region names into SSA variables,
    /// read from the first lane's frame (every item's holds the same value); returns them
    /// with their frame offsets.
    fn promote_uniform(
        &mut self,
        stmts: &[Stmt],
        frames: &FrameLayout,
        first: Value,
    ) -> Result<Vec<(LocalId, u32)>> {
        let mut used: Vec<LocalId> = locals_used(stmts)
            .into_iter()
            .filter(|id| self.uniform.contains(id) && !frames.shared.contains(id))
            .collect();
        used.sort();
        let mut promoted = Vec::new();
        for id in used {
            let local = self.f.local(id);
            let (Some(&offset), Some((t, n)), AddressSpace::Private) = (
                frames.offsets.get(&id),
                lane_types(&local.ty.ty),
                local.ty.space,
            ) else {
                continue;
            };
            let ty = local.ty.ty.clone();
            let vars = (0..n).map(|_| self.l.b.declare_var(t)).collect();
            self.l.storage[id.0 as usize] = Storage::Vars(vars);
            let addr = self.l.b.ins().iadd_imm_s(first, i64::from(offset));
            let value = self.l.load(&PlaceRef::Mem(addr), &ty)?;
            self.l.store(&PlaceRef::Var(id), &ty, value)?;
            promoted.push((id, offset));
        }
        Ok(promoted)
    }

    /// Gives each varying variable the region uses but does not declare its value in the
    /// step's lanes: computed again where its declaration allows, else read from each
    /// lane's frame.
    fn enter_varying(
        &mut self,
        stmts: &[Stmt],
        frames: &FrameLayout,
        lane_frames: &[Value],
    ) -> Result<()> {
        let declared = declared_in(stmts);
        let body = self.f.body.as_deref().unwrap_or_default();
        let inits = declaration_inits(body);
        let mut written = Vec::new();
        for_each_stmt_expr(body, &mut |e| writes(e, &mut written));
        let written: HashSet<LocalId> = written.into_iter().collect();
        let mut used: Vec<LocalId> = locals_used(stmts)
            .into_iter()
            .filter(|id| !self.uniform.contains(id) && !declared.contains(id))
            .collect();
        used.sort();
        for id in used {
            let ty = self.f.local(id).ty.ty.clone();
            let pure = Pure {
                f: self.f,
                inits: &inits,
                written: &written,
                written_once: &self.written_once,
                uniform: &self.uniform,
            };
            let init = inits
                .get(&id)
                .filter(|e| self.written_once.contains(&id) && pure.expr(e, 0));
            if let Some(init) = init {
                let value = self.vexpr(init)?;
                if let VVal::U(lanes) = value {
                    // The same in the step's lanes (`get_local_id(1)`): scalar here.
                    let (t, n) = lane_types(&ty)
                        .ok_or_else(|| super::super::CodegenError(format!("a uniform {ty}")))?;
                    let vars: Vec<_> = (0..n).map(|_| self.l.b.declare_var(t)).collect();
                    for (v, x) in vars.iter().zip(lanes) {
                        self.l.b.def_var(*v, x);
                    }
                    self.l.storage[id.0 as usize] = Storage::Vars(vars);
                    self.uniform.insert(id);
                } else {
                    self.declare_varying(id, value)?;
                }
                continue;
            }
            let Some(&offset) = frames.offsets.get(&id) else {
                return unsupported("a varying variable without a frame slot");
            };
            let mut lanes = Vec::new();
            for &frame in lane_frames {
                let addr = self.l.b.ins().iadd_imm_s(frame, i64::from(offset));
                lanes.push(self.l.load(&PlaceRef::Mem(addr), &ty)?);
            }
            let value = self.assemble(lanes, &ty);
            self.declare_varying(id, value)?;
        }
        Ok(())
    }
}

/// Whether an expression can be evaluated again in a later region with the value it had
/// in its declaration: constants, work-item queries of constant dimensions, parameters
/// never written, variables like the one asked about, and arithmetic of them that cannot
/// trap.
struct Pure<'a> {
    f: &'a tir::Function,
    inits: &'a HashMap<LocalId, &'a Expr>,
    written: &'a HashSet<LocalId>,
    written_once: &'a HashSet<LocalId>,
    uniform: &'a HashSet<LocalId>,
}

impl Pure<'_> {
    fn expr(&self, e: &Expr, depth: u32) -> bool {
        trap_free(e, &|e| match &e.kind {
            ExprKind::Load(p) => Some(match &p.kind {
                // Read through the scalar lowering: a uniform variable that keeps its value.
                PlaceKind::Local(id) if self.uniform.contains(id) => {
                    let param = id.0 < self.f.params && !self.written.contains(id);
                    let once = self.written_once.contains(id)
                        && depth < 4
                        && self.inits.get(id).is_some_and(|i| self.expr(i, depth + 1));
                    param || once
                }
                _ => false,
            }),
            _ => None,
        })
    }
}

/// Whether `e` is made of leaves that `leaf` accepts (it answers `Some` for the
/// expressions it decides, `None` for the others), constants and work-item queries of
/// constant dimensions, by arithmetic that cannot trap (no division).
pub(super) fn trap_free(e: &Expr, leaf: &dyn Fn(&Expr) -> Option<bool>) -> bool {
    if let Some(answer) = leaf(e) {
        return answer;
    }
    match &e.kind {
        ExprKind::Const(_) => true,
        ExprKind::Builtin { id, args } => {
            id.attributes().work_item_query
                && args.iter().all(|a| matches!(a.kind, ExprKind::Const(_)))
        }
        ExprKind::Unary { operand, .. }
        | ExprKind::Convert {
            kind: ConvertKind::Numeric { .. },
            operand,
        } => trap_free(operand, leaf),
        ExprKind::Binary { op, lhs, rhs } => {
            !matches!(op, BinaryOp::Div | BinaryOp::Rem)
                && trap_free(lhs, leaf)
                && trap_free(rhs, leaf)
        }
        _ => false,
    }
}

/// The expression each variable of `body` is declared with.
pub(super) fn declaration_inits(body: &[Stmt]) -> HashMap<LocalId, &Expr> {
    fn visit<'a>(block: &'a [Stmt], out: &mut HashMap<LocalId, &'a Expr>) {
        for s in block {
            match &s.kind {
                StmtKind::Decl {
                    local,
                    init: Some(tir::Init::Expr(e)),
                } => {
                    out.insert(*local, e);
                }
                StmtKind::Block(b) | StmtKind::Loop { body: b, .. } => visit(b, out),
                StmtKind::If {
                    then_branch,
                    else_branch,
                    ..
                } => {
                    visit(then_branch, out);
                    visit(else_branch, out);
                }
                StmtKind::Switch { body, .. } => visit(body, out),
                _ => {}
            }
        }
    }
    let mut out = HashMap::new();
    visit(body, &mut out);
    out
}

/// The varying variables a step of the region moves between the lanes' frames and its
/// registers: each one it uses but does not declare (read at the step's start; a few are
/// computed again instead, `enter_varying`), and each one it keeps for later regions
/// (written at the step's end); one that is both counts twice.
fn frame_traffic(f: &tir::Function, stmts: &[Stmt], uniform: &HashSet<LocalId>) -> Vec<LocalId> {
    let declared = declared_in(stmts);
    locals_used(stmts)
        .into_iter()
        .filter(|id| !declared.contains(id))
        .chain(kept_after(stmts))
        .filter(|id| !uniform.contains(id) && f.local(*id).ty.space == AddressSpace::Private)
        .collect()
}

/// The variables `stmts` declares, at any depth.
fn declared_in(stmts: &[Stmt]) -> HashSet<LocalId> {
    let mut out = HashSet::new();
    for_each_stmt(stmts, &mut |s| {
        if let StmtKind::Decl { local, .. } = &s.kind {
            out.insert(*local);
        }
    });
    out
}

/// The variables whose values a region leaves for later ones: those it declares at its top
/// level, and those declared before it that it writes (one declared deeper is out of scope
/// after the region).
fn kept_after(stmts: &[Stmt]) -> HashSet<LocalId> {
    let declared = declared_in(stmts);
    let mut out: HashSet<LocalId> = stmts
        .iter()
        .filter_map(|s| match &s.kind {
            StmtKind::Decl { local, .. } => Some(*local),
            _ => None,
        })
        .collect();
    let mut written = Vec::new();
    for_each_stmt_expr(stmts, &mut |e| writes(e, &mut written));
    out.extend(written.into_iter().filter(|id| !declared.contains(id)));
    out
}

/// The variables an expression writes.
pub(super) fn writes(e: &Expr, out: &mut Vec<LocalId>) {
    if let ExprKind::Assign { place: p, .. } | ExprKind::IncDec { place: p, .. } = &e.kind
        && let Some(id) = place_root(p)
    {
        out.push(id);
    }
    crate::frontend::tir::visit::for_each_child(e, &mut |c| writes(c, out));
}
