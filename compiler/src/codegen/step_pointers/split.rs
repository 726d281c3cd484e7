//! Derived indices made induction variables, so that pointer stepping takes them.
//!
//! `for (i = 0; i < 16; i++) sum += A[id + i];` reads `A` at `id + i`, with `id` the same
//! in every iteration. That index is not a header parameter stepped by the loop, so the
//! pass's groups (one per stepped index) leave it, and each fetch pays the 32-bit add, the
//! sign extension and the scale again (`leal; movslq; shlq`: 13 instructions per 64-byte
//! fetch of a `float16` against 9 where the kernel steps its own index).
//!
//! The rewrite gives the loop header a parameter `X` that holds `id + i` itself: it starts
//! at `i0 + id` on the loop's entry and steps by `s` on each back edge where `i` steps by
//! `s`, and the derived index's uses read `X`. That is exact in any case, with no
//! assumption about overflow: both are 32-bit wrapping sums, and `(i + s) + id` is
//! `(i + id) + s` modulo 2^32. `X` is then a stepped index like any other, and the access
//! dominates the back edges, which is what the pass's proof needs.
//!
//! An `X` the pass does not turn into a pointer would only cost a register and an add per
//! iteration, so [`super::step_pointers`] keeps the split only where every `X` went.

use cranelift_codegen::Context;
use cranelift_codegen::cursor::{Cursor, FuncCursor};
use cranelift_codegen::ir::{
    BlockArg, Function, Inst, InstBuilder, Opcode, Value, ValueDef, types,
};
use cranelift_codegen::loop_analysis::Loop;

use super::{
    Access, Step, append_to_branches, branches_to, defining, invariant, materialize, step_of,
};

/// The most derived indices split in one loop: each becomes a pointer register of its own.
const MAX_PER_LOOP: usize = 2;

/// One derived index `x = i + off` to split.
pub(super) struct Candidate {
    lp: Loop,
    /// The derived index.
    x: Value,
    /// The header parameter it is derived from.
    i: Value,
    /// The invariant offset.
    off: Value,
    /// The branch that enters the loop.
    entry: Inst,
    /// Each back edge (the terminator, which of its destinations) with the step of `i`
    /// whose value it passes.
    latches: Vec<(Inst, usize, Step)>,
}

/// The derived indices of `accesses` worth splitting (`ctx` has its loop analysis and
/// dominator tree): `x = i + off` with `i` a 32-bit parameter of the innermost loop's
/// header, `off` invariant in that loop, one entry into the loop, `i` stepped by an
/// invariant amount on every back edge, and the access dominating every back edge.
pub(super) fn candidates(ctx: &Context, accesses: &[Access]) -> Vec<Candidate> {
    let func = &ctx.func;
    let mut found: Vec<Candidate> = Vec::new();
    for a in accesses {
        let Some(c) = candidate(ctx, a) else { continue };
        // Where the loop also reads `A[i]`, the pass already takes `A[i + off]` as an
        // offset from `A[i]`'s pointer (one pointer, not two: `v16x2`'s `A[id + 1]`).
        let beside_i = accesses.iter().any(|b| {
            b.base == a.base && b.scale == a.scale && func.dfg.resolve_aliases(b.index) == c.i
        });
        if beside_i {
            continue;
        }
        let in_loop = found.iter().filter(|f| f.lp == c.lp).count();
        if found.iter().all(|f| f.x != c.x) && in_loop < MAX_PER_LOOP {
            found.push(c);
        }
    }
    found
}

fn candidate(ctx: &Context, a: &Access) -> Option<Candidate> {
    let func = &ctx.func;
    let loops = &ctx.loop_analysis;
    let block = func.layout.inst_block(a.inst)?;
    let lp = loops.innermost_loop(block)?;
    let header = loops.loop_header(lp);
    let x = func.dfg.resolve_aliases(a.index);
    let def = defining(func, x)?;
    if func.dfg.insts[def].opcode() != Opcode::Iadd {
        return None;
    }
    let [p, q] = *func.dfg.inst_args(def) else {
        return None;
    };
    let is_param = |v: Value| matches!(func.dfg.value_def(func.dfg.resolve_aliases(v)), ValueDef::Param(b, _) if b == header);
    let inv = |v: Value| invariant(func, loops, lp, v, 0);
    let (i, off) = if is_param(p) && inv(q) {
        (p, q)
    } else if is_param(q) && inv(p) {
        (q, p)
    } else {
        return None;
    };
    let i = func.dfg.resolve_aliases(i);
    let ValueDef::Param(_, position) = func.dfg.value_def(i) else {
        return None;
    };
    if func.dfg.value_type(i) != types::I32 {
        return None;
    }
    let mut entry = None;
    let mut latches = Vec::new();
    for pred in ctx.cfg.pred_iter(header) {
        if !loops.is_in_loop(pred.block, lp) {
            // One branch in, with one destination in the header, passing a value.
            let calls = branches_to(func, pred.inst, header);
            let [call] = calls.as_slice() else {
                return None;
            };
            let passes = matches!(
                call.args(&func.dfg.value_lists).nth(position),
                Some(BlockArg::Value(_))
            );
            if !passes || entry.is_some_and(|e| e != pred.inst) {
                return None;
            }
            entry = Some(pred.inst);
            continue;
        }
        if loops.innermost_loop(pred.block) != Some(lp)
            || !ctx.domtree.dominates(a.inst, pred.inst, &func.layout)
        {
            return None;
        }
        let calls = func.dfg.insts[pred.inst]
            .branch_destination(&func.dfg.jump_tables, &func.dfg.exception_tables);
        for (n, call) in calls.iter().enumerate() {
            if call.block(&func.dfg.value_lists) != header {
                continue;
            }
            let BlockArg::Value(next) = call.args(&func.dfg.value_lists).nth(position)? else {
                return None;
            };
            let step = step_of(func, loops, lp, next)?;
            if func.dfg.resolve_aliases(step.from) != i {
                return None;
            }
            latches.push((pred.inst, n, step));
        }
    }
    (!latches.is_empty()).then_some(Candidate {
        lp,
        x,
        i,
        off,
        entry: entry?,
        latches,
    })
}

/// Removes each candidate's `i` where, after the split, nothing but its own steps reads it
/// (`for (...) sum += A[(int)(u + v)]; u += 3u;`: `u` lived only for the derived index).
pub(super) fn remove_dead_sources(func: &mut Function, candidates: &[Candidate]) {
    for c in candidates {
        let uses = super::super::fold_loads::use_counts(func);
        let mut steps: Vec<Inst> = c.latches.iter().map(|l| l.2.inst).collect();
        steps.sort();
        steps.dedup();
        let i = func.dfg.resolve_aliases(c.i);
        // `i` read by its steps alone, each step's value by its back edges alone.
        let only_steps = uses[i] as usize == steps.len()
            && steps.iter().all(|&step| {
                let edges = c.latches.iter().filter(|l| l.2.inst == step).count();
                uses[func.dfg.first_result(step)] as usize == edges
            });
        if !only_steps || !func.dfg.value_is_attached(i) {
            continue;
        }
        let plan = super::Plan {
            entry: c.entry,
            latches: c
                .latches
                .iter()
                .map(|l| (l.0, l.1, func.dfg.first_result(l.2.inst)))
                .collect(),
            steps: Default::default(),
        };
        let mut uses = uses;
        super::remove_index(func, &mut uses, i, &plan, steps.into_iter());
    }
}

/// Splits each candidate (module comment); returns the new header parameters. The
/// control-flow graph does not change; the derived indices become aliases of the new
/// parameters (resolve them before anything that does not).
pub(super) fn split(ctx: &mut Context, candidates: &[Candidate]) -> Vec<Value> {
    let mut added = Vec::new();
    for c in candidates {
        let header = ctx.loop_analysis.loop_header(c.lp);
        let ValueDef::Param(_, position) = ctx.func.dfg.value_def(c.i) else {
            continue;
        };
        let x_param = ctx.func.dfg.append_block_param(header, types::I32);
        // The entry: X starts at i0 + off.
        let mut pos = FuncCursor::new(&mut ctx.func).at_inst(c.entry);
        let start = branches_to(pos.func, c.entry, header)
            .first()
            .and_then(|call| call.args(&pos.func.dfg.value_lists).nth(position))
            .and_then(|arg| arg.as_value())
            .expect("the entry passes i (checked)");
        let off = materialize(&mut pos, &ctx.loop_analysis, c.lp, c.off);
        let first = pos.ins().iadd(start, off);
        append_to_branches(pos.func, c.entry, header, first);
        // Each back edge: X steps as i does.
        for &(latch, call, step) in &c.latches {
            let mut pos = FuncCursor::new(&mut ctx.func).at_inst(latch);
            let by = materialize(&mut pos, &ctx.loop_analysis, c.lp, step.by);
            let next = if step.subtract {
                pos.ins().isub(x_param, by)
            } else {
                pos.ins().iadd(x_param, by)
            };
            let dfg = &mut pos.func.dfg;
            let calls = dfg.insts[latch]
                .branch_destination_mut(&mut dfg.jump_tables, &mut dfg.exception_tables);
            calls[call].append_argument(next, &mut dfg.value_lists);
        }
        // The derived index's instruction goes; its value reads X.
        let def = defining(&ctx.func, c.x).expect("an instruction (checked)");
        ctx.func.layout.remove_inst(def);
        ctx.func.dfg.detach_inst_results(def);
        ctx.func.dfg.change_to_alias(c.x, x_param);
        added.push(x_param);
    }
    added
}

#[cfg(test)]
mod tests {
    use cranelift_codegen::ir::condcodes::IntCC;
    use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Opcode, Value, types};
    use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};

    /// How the test loop is varied.
    #[derive(Clone, Copy, Default)]
    struct Shape {
        /// Also return the last derived index (a use the pointer cannot take).
        read_after: bool,
        /// Load only when `i` is odd (the access does not dominate the back edge).
        conditional: bool,
    }

    /// `fn(base: i64, n: i32, id: i32) -> i32`: `for (i = 0; i < n; i++) load(base + sext(id + i)
    /// << 6)`; after [`super::super::step_pointers`] with a 1 GiB bound: whether it
    /// rewrote, the header's parameter types, and the opcodes of the block with the load.
    fn stepped(shape: Shape) -> (bool, Vec<types::Type>, Vec<Opcode>) {
        let mut func = super::super::tests::loop_function();
        let mut fctx = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut func, &mut fctx);
        let [entry, header, body, fetch, latch, exit] = [(); 6].map(|_| b.create_block());
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let [base, n, id] = *b.block_params(entry) else {
            unreachable!()
        };
        let zero = b.ins().iconst(types::I32, 0);
        b.ins().jump(header, &[zero.into(), zero.into()]);
        b.switch_to_block(header);
        let i = b.append_block_param(header, types::I32);
        let last = b.append_block_param(header, types::I32);
        let more = b.ins().icmp(IntCC::SignedLessThan, i, n);
        b.ins().brif(more, body, &[], exit, &[]);
        b.switch_to_block(body);
        let x = b.ins().iadd(id, i);
        if shape.conditional {
            let odd = b.ins().band_imm_u(i, 1);
            b.ins().brif(odd, fetch, &[], latch, &[]);
        } else {
            b.ins().jump(fetch, &[]);
        }
        b.switch_to_block(fetch);
        let wide = b.ins().sextend(types::I64, x);
        let shift = b.ins().iconst(types::I64, 6);
        let scaled = b.ins().ishl(wide, shift);
        let address = b.ins().iadd(base, scaled);
        b.ins()
            .load(types::F32X4, MemFlagsData::trusted(), address, 0);
        b.ins().jump(latch, &[]);
        b.switch_to_block(latch);
        let next = b.ins().iadd_imm_u(i, 1);
        let carried = if shape.read_after { x } else { last };
        b.ins().jump(header, &[next.into(), carried.into()]);
        b.switch_to_block(exit);
        let result: Value = if shape.read_after { last } else { zero };
        b.ins().return_(&[result]);
        b.seal_all_blocks();
        b.finalize(crate::jit::host_isa().unwrap().frontend_config());
        let mut ctx = cranelift_codegen::Context::for_function(func);
        super::super::tests::run_pass(&mut ctx, 1 << 30, header, fetch)
    }

    #[test]
    fn a_derived_index_becomes_a_pointer() {
        let (rewrote, params, fetch) = stepped(Shape::default());
        assert!(rewrote);
        // i, the unused `last` (the test's own), and the pointer; X is gone again.
        assert_eq!(params, [types::I32, types::I32, types::I64]);
        // The load reads the pointer: no extension, no shift, no add in the block.
        assert_eq!(fetch, [Opcode::Load, Opcode::Jump]);
    }

    #[test]
    fn a_split_that_does_not_pay_is_undone() {
        for shape in [
            Shape {
                read_after: true,
                ..Shape::default()
            },
            Shape {
                conditional: true,
                ..Shape::default()
            },
        ] {
            let (rewrote, params, fetch) = stepped(shape);
            assert!(!rewrote);
            assert_eq!(params, [types::I32, types::I32]);
            assert_eq!(
                fetch,
                [
                    Opcode::Sextend,
                    Opcode::Iconst,
                    Opcode::Ishl,
                    Opcode::Iadd,
                    Opcode::Load,
                    Opcode::Jump
                ]
            );
        }
    }
}
