//! Vectorization across work-items (whole-function vectorization, after Karrenberg and
//! Hack, CGO 2011): a kernel without barriers gets, beside its scalar row function, a
//! vectorized row function that runs [`WIDTH`] work-items of dimension 0 per step, one
//! work-item per lane of a 128-bit register (Cranelift's x64 backend has nothing wider).
//!
//! The work-group function calls the vectorized row function first; it runs the row's
//! items in whole steps and returns how many it ran, and the scalar row function runs the
//! rest (the remainder, or the whole row where the vectorized one declines at run time).
//!
//! What each value becomes ([`value::VVal`]):
//! - uniform values (the same in every work-item: `codegen/uniform.rs` for variables, and
//!   expressions of them, of constants, of group queries and of memory at uniform
//!   addresses) stay scalar and are lowered by the scalar lowering itself;
//! - `get_global_id(0)`, `get_local_id(0)` and affine functions of them are kept as a base
//!   and a constant stride, so that `p[i]` becomes one vector load or store;
//! - other varying `int`/`uint`/`float` values are one `i32x4`/`f32x4` register;
//! - everything else is held per lane and computed per lane by the scalar lowering (the
//!   same instructions and the same builtin calls, so results are bit-identical).
//!
//! Control flow: a uniform condition stays a branch; a varying one becomes masks ([`lower`]):
//! both sides run under their lane masks (each skipped when no lane takes it), variables
//! written under a partial mask are blended, loops with varying conditions run while any
//! lane is active, and `break`, `continue` and `return` under varying conditions remove lanes
//! from the masks. Memory is never read or written for an inactive lane: a consecutive
//! access under a mask is one vector access when every lane is active and per lane (active
//! lanes only) otherwise.
//!
//! A kernel the vectorizer does not handle ([`check`], or a construct met while lowering)
//! runs scalar, with the reason in the build log (`CLIFT_LOG=build`). `CLIFT_VECTORIZE=0`
//! turns the vectorizer off.

mod barrier_rows;
mod bounds;
mod builtins;
mod check;
mod cost;
mod done;
mod expr;
mod geometric;
mod groups;
mod induction;
mod invariant;
mod lower;
mod memory;
mod narrow;
mod narrow_vec;
mod pair;
mod places;
mod regions;
mod seq_compare;
mod trips;
mod unroll;
mod value;

use std::sync::OnceLock;

use cranelift_codegen::ir::{AbiParam, types};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_module::{FuncId as ClifFuncId, Linkage, Module};

use super::func::Lower;
use super::{CodegenOptions, ModuleState};
use crate::frontend::tir;
pub(super) use barrier_rows::{Region, define_vector_region};

/// Work-items per step: 4 lanes of 32 bits in a 128-bit register.
pub(super) const WIDTH: i64 = 4;

/// Whether `CLIFT_VECTORIZE` leaves the vectorizer on (anything but `0`).
fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| !std::env::var("CLIFT_VECTORIZE").is_ok_and(|v| v == "0"))
}

/// Defines the vectorized row function of the kernel `f` (which has no barriers): `fn(item)
/// -> u64`, returning how many items of the row (from local id 0) it ran; with the
/// work-items its steps run (4 per group). Says why not where it cannot.
pub(super) fn define_vector_row(
    state: &mut ModuleState,
    f: &tir::Function,
    options: &CodegenOptions,
) -> Result<(ClifFuncId, u32), String> {
    if options.scalar_only || !enabled() {
        return Err("turned off (CLIFT_VECTORIZE=0)".into());
    }
    let without_switches = check::switches_as_ifs(f);
    let f = without_switches.as_ref().unwrap_or(f);
    let uniform = crate::passes::uniform::uniform_locals(f);
    check::vectorizable(f, &uniform)?;
    let mut ctx = state.module.make_context();
    let groups;
    let mut sig = state.module.make_signature();
    sig.params.push(AbiParam::new(types::I64));
    sig.returns.push(AbiParam::new(types::I64));
    ctx.func.signature = sig.clone();
    {
        // A context of its own: a lowering given up half-way leaves its context unfinished.
        let mut fctx = FunctionBuilderContext::new();
        let b = FunctionBuilder::new(&mut ctx.func, &mut fctx);
        let l = Lower::new(b, state, f, options);
        let mut v = lower::VecLower::new(l, f, uniform);
        // Wide vector types: the scalar row holds them in registers; which row is faster
        // (`cost.rs`). Without vector registers the scalar row runs them lane by lane.
        if v.l.vector_registers {
            match cost::hint(f) {
                Some(hinted) => hinted?,
                None => v
                    .estimate(f.body.as_deref().unwrap_or_default())
                    .vectorized_row_pays()?,
            }
        }
        v.row_function().map_err(|e| e.0)?;
        groups = v.groups;
        mostly_vector(v.per_lane_insts, v.l.b.func.dfg.num_insts())?;
        let config = v.l.state.isa.frontend_config();
        v.l.b.finalize(config);
    }
    let id = state
        .module
        .declare_function(&format!("clift_vec_{}", f.name), Linkage::Local, &sig)
        .map_err(|e| e.to_string())?;
    super::dump::function(&format!("vectorized row function of {}", f.name), &ctx.func);
    state.defer(
        id,
        format!("the vectorized row function of '{}'", f.name),
        ctx,
    );
    Ok((id, WIDTH as u32 * groups as u32))
}

/// Vectorized rows of fewer instructions are kept whatever runs in them: they cost little
/// to compile.
const LARGE_ROW: usize = 512;

/// Declines a vectorized row function of `total` instructions of which `per_lane` run lane
/// by lane (the scalar code once per lane, with the blends that merge the lanes back) where
/// the row is large and that is most of it: it runs no faster than the scalar row (the ray
/// tracer of clift-bench, before `normalize` had a register form: 1223 instructions, 68% per
/// lane, the same Mpixel/s either way) but costs several times its compile time (there 87
/// of the build's 222 million instructions, and on 16 cores the whole build's critical
/// path). The kernels that gain from vectorizing
/// are far below (n-body, whose `rsqrt` runs per lane: 23%).
fn mostly_vector(per_lane: usize, total: usize) -> Result<(), String> {
    if total >= LARGE_ROW && per_lane * 2 > total {
        return Err(format!(
            "{}% of its vectorized code ({total} instructions) would run lane by lane (no \
             faster than the scalar code, and costlier to compile)",
            per_lane * 100 / total
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
