//! The fallback for barriers the work-group planner cannot split around: the kernel runs as
//! a *resumable* work-item function.
//!
//! The planner (`passes::barriers`) splits a kernel at barriers that are statements of
//! its structured control flow: straight-line code, `if`s and loops. A barrier reached
//! through `goto`, inside a `switch` it cannot rewrite, or next to a `break`/`continue`
//! that leaves a `switch`, has no such place. For those kernels every work-item runs one
//! function that stops at each barrier and resumes after it, with no fibers and no stack
//! switching:
//!
//! - every private variable lives in the item's frame (memory that outlives the call), so
//!   nothing of the item is in registers when it stops;
//! - a barrier stores its number as the item's resume point, marks the group's pass as
//!   pending and returns; the block after it is where that number resumes;
//! - on entry, the function jumps to the block its resume point names (a jump table), or
//!   to the start on the group's first pass; `return` marks the item finished.
//!
//! The work-group function runs passes: every item runs until its next barrier (or its
//! end), and while an item stopped at a barrier, another pass follows. Each pass therefore
//! takes the whole group from one barrier to the next, as the barrier requires (all items
//! reach it before any goes on). Slower than the planner's regions (variables in memory,
//! one call per item and barrier), and used only where the planner does not apply.

use cranelift_codegen::ir::{self, Block, InstBuilder, MemFlagsData, types};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext, Switch};
use cranelift_module::Module;

use super::{Lower, Result};
use crate::codegen::work_group::{BarrierPlan, WgNode};
use crate::codegen::{CodegenError, CodegenOptions, ModuleState};
use crate::frontend::tir::{self, FuncId, Stmt};
use crate::passes::barriers::{self, FrameLayout};

/// The resume point of an item that returned.
pub(in crate::codegen) const FINISHED: u32 = u32::MAX;

/// Where a resumable kernel's bookkeeping lives, after the variables and the done flag of
/// each frame.
#[derive(Clone, Copy)]
struct ResumeSlots {
    /// The item's resume point (a u32: 0 before its first barrier, k after barrier k, or
    /// [`FINISHED`]).
    resume_point: u32,
    /// In the first frame only: the pass number (a u32, 0 for the group's first pass over
    /// its items) and a byte set when some item stopped at a barrier (another pass follows).
    pass: u32,
    pending: u32,
}

impl ResumeSlots {
    /// Appends the slots to every frame of `frames`.
    fn append_to(frames: &mut FrameLayout) -> ResumeSlots {
        let resume_point = (frames.done_flag + 1).next_multiple_of(4);
        let pass = resume_point + 4;
        let pending = pass + 4;
        frames.size = (pending + 1).next_multiple_of(16);
        ResumeSlots {
            resume_point,
            pass,
            pending,
        }
    }
}

/// The blocks where a resumable function's barriers resume: barrier `k` (from 1) resumes at
/// `blocks[k - 1]`.
pub(in crate::codegen) struct ResumePoints {
    blocks: Vec<Block>,
    slots: ResumeSlots,
}

/// The environment variable that sends every kernel with barriers to the fallback (any
/// value but empty or `0`): a check of the fallback on every kernel, and a way to tell a
/// planner bug from a kernel bug. Documented in docs/ENVIRONMENT.md.
pub const FORCE_VAR: &str = "CLIFT_RESUMABLE_BARRIERS";

fn forced() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    crate::codegen::env_flag(FORCE_VAR, &ON)
}

/// Whether the planner splits `body` at its barriers ([`barriers::splits_at_barriers`]),
/// unless [`FORCE_VAR`] sends every kernel here.
pub(in crate::codegen) fn splits_at_barriers(body: &[Stmt]) -> bool {
    !forced() && barriers::splits_at_barriers(body)
}

/// Compiles a kernel with barriers as one resumable work-item function; its plan is the
/// passes that run it.
pub(in crate::codegen) fn define_resumable_kernel(
    state: &mut ModuleState,
    id: FuncId,
    f: &tir::Function,
    fctx: &mut FunctionBuilderContext,
    options: &CodegenOptions,
) -> Result<BarrierPlan> {
    let body = f.body.as_ref().expect("kernels have bodies");
    let mut frames = FrameLayout::of(f, body);
    // Every item runs every statement here: no variable is kept once for the group.
    frames.shared.clear();
    let slots = ResumeSlots::append_to(&mut frames);
    let mut sig = state.module.make_signature();
    sig.params.push(ir::AbiParam::new(types::I64));
    let name = format!("clift_fn{}_{}_resumable", id.0, f.name);
    let func = state
        .module
        .declare_function(&name, cranelift_module::Linkage::Local, &sig)
        .map_err(|e| CodegenError(format!("declaring {name}: {e}")))?;
    let mut ctx = state.module.make_context();
    ctx.func.signature = sig;
    {
        let mut lower = Lower::new(
            FunctionBuilder::new(&mut ctx.func, fctx),
            &mut *state,
            f,
            options,
        );
        lower.resumable(body, &frames, slots)?;
        let config = lower.state.isa.frontend_config();
        lower.b.finalize(config);
    }
    crate::codegen::dump::function(&format!("{} (resumable)", f.name), &ctx.func);
    state.defer(func, format!("'{}'", f.name), ctx);
    Ok(BarrierPlan {
        nodes: vec![WgNode::Resume {
            func,
            pass: slots.pass,
            pending: slots.pending,
        }],
        frame_size: frames.size,
        done_flag: frames.done_flag,
        vectorized: Err(if forced() {
            format!("{FORCE_VAR} runs it as a resumable function")
        } else {
            "the work-group planner cannot split it at its barriers".into()
        }),
    })
}

impl Lower<'_, '_> {
    /// The body of a resumable work-item function (see the module's doc).
    fn resumable(&mut self, body: &[Stmt], frames: &FrameLayout, slots: ResumeSlots) -> Result<()> {
        let flags = MemFlagsData::trusted();
        self.enter_with_frames(frames);
        let (start, dispatch, finish) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let pass_addr = self.shared_frame_address(slots.pass);
        let pass = self.b.ins().load(types::I32, flags, pass_addr, 0);
        self.b.ins().brif(pass, dispatch, &[], start, &[]);

        self.b.switch_to_block(start);
        self.resume = Some(ResumePoints {
            blocks: Vec::new(),
            slots,
        });
        self.return_target = Some(finish);
        self.parameters(&[])?;
        self.block(body)?;
        self.jump(finish);

        // `return`, or the end of the body: the item is finished.
        self.b.switch_to_block(finish);
        let addr = self.frame_address(slots.resume_point);
        let finished = self.b.ins().iconst(types::I32, i64::from(FINISHED));
        self.b.ins().store(flags, finished, addr, 0);
        self.b.ins().return_(&[]);

        // Later passes: on from the barrier the item stopped at (a finished item, or one
        // whose resume point is not a barrier's, returns at once).
        self.b.switch_to_block(dispatch);
        let addr = self.frame_address(slots.resume_point);
        let point = self.b.ins().load(types::I32, flags, addr, 0);
        let idle = self.b.create_block();
        let mut table = Switch::new();
        let points = self.resume.take().expect("set above");
        for (k, block) in points.blocks.iter().enumerate() {
            table.set_entry(k as u128 + 1, *block);
        }
        table.emit(&mut self.b, point, idle);
        self.b.switch_to_block(idle);
        self.b.ins().return_(&[]);
        self.b.seal_all_blocks();
        Ok(())
    }

    /// A barrier of a resumable function: the item stops here, to resume at the next block
    /// in the group's next pass.
    pub(super) fn suspend(&mut self) {
        let flags = MemFlagsData::trusted();
        let slots = self
            .resume
            .as_ref()
            .expect("only in resumable functions")
            .slots;
        let after = self.b.create_block();
        let points = self.resume.as_mut().expect("only in resumable functions");
        points.blocks.push(after);
        let number = points.blocks.len() as i64;
        let addr = self.frame_address(slots.resume_point);
        let number = self.b.ins().iconst(types::I32, number);
        self.b.ins().store(flags, number, addr, 0);
        let addr = self.shared_frame_address(slots.pending);
        let one = self.b.ins().iconst(types::I8, 1);
        self.b.ins().store(flags, one, addr, 0);
        self.b.ins().return_(&[]);
        self.b.switch_to_block(after);
    }
}
