//! The pass's own invariants moved out of enclosing loops.
//!
//! A rewritten loop's offsets (`sext(jump) * size` and its multiples: clpeak's loop adds
//! `P + L`, `P + 2L`, `P + 3L` to its pointer) are computed on the loop's entry edge, and
//! that edge is usually inside another loop: the kernel's loop runs once per work-item,
//! inside the work-group function's loop over the items. Cranelift's own loop-invariant
//! code motion ran before this pass (`Context::optimize`), so without this step those
//! offsets are computed again for every work-item (5 of the 132 instructions per item of
//! clpeak's `float16` read).
//!
//! Each instruction of the offsets (the rewrite places them before the entry; the start
//! pointer, read once per entry, stays there) moves to the entry of the loop that
//! contains it while all its arguments are defined outside that loop, and again for the
//! loop around that one. Only pure integer instructions are moved (they cannot trap, so
//! running them where the inner loop would not have run is harmless), and only to a loop
//! with one entry edge: the branch of the one predecessor of its header outside it, which
//! dominates the header. An argument defined outside a loop and used inside it dominates
//! that predecessor's branch (or is in the predecessor, before its branch), so the moved
//! instruction still follows its arguments.

use cranelift_codegen::flowgraph::ControlFlowGraph;
use cranelift_codegen::ir::{Function, Inst, Opcode};
use cranelift_codegen::loop_analysis::LoopAnalysis;

use super::{block_of, rematerializable};

/// Moves each of `insts` (in order; each one's arguments defined before it) as far out of
/// its enclosing loops as its arguments allow.
pub(super) fn out_of_loops(
    func: &mut Function,
    cfg: &ControlFlowGraph,
    loops: &LoopAnalysis,
    insts: &[Inst],
) {
    for &inst in insts {
        let opcode = func.dfg.insts[inst].opcode();
        if !(rematerializable(opcode) || opcode == Opcode::Ineg) {
            continue;
        }
        while let Some(entry) = loop_entry_for(func, cfg, loops, inst) {
            func.layout.remove_inst(inst);
            func.layout.insert_inst(inst, entry);
        }
    }
}

/// The entry branch of the innermost loop around `inst`, when `inst` may move before it:
/// the loop has one predecessor outside it and `inst`'s arguments are all defined outside
/// the loop.
fn loop_entry_for(
    func: &Function,
    cfg: &ControlFlowGraph,
    loops: &LoopAnalysis,
    inst: Inst,
) -> Option<Inst> {
    let block = func.layout.inst_block(inst)?;
    let lp = loops.innermost_loop(block)?;
    let header = loops.loop_header(lp);
    let mut outside = cfg
        .pred_iter(header)
        .filter(|p| !loops.is_in_loop(p.block, lp));
    let entry = outside.next()?;
    if outside.next().is_some() {
        return None;
    }
    let invariant = func
        .dfg
        .inst_values(inst)
        .all(|a| block_of(func, a).is_some_and(|b| !loops.is_in_loop(b, lp)));
    invariant.then_some(entry.inst)
}

#[cfg(test)]
mod tests {
    use cranelift_codegen::Context;
    use cranelift_codegen::cursor::{Cursor, FuncCursor};
    use cranelift_codegen::ir::InstBuilder;
    use cranelift_codegen::ir::{AbiParam, Function, Signature, UserFuncName, types};
    use cranelift_codegen::isa::CallConv;

    use super::*;

    /// Two nested loops: the outer one over 100 items, the inner one of 4 steps; a stride
    /// (`sext(x) << 6`, doubled) is computed before the inner loop's entry, `x` the function's
    /// parameter or (`stride_from_outer_param`) the outer loop's item. Returns the function
    /// with its analyses and the stride's four instructions, in order.
    fn nest(stride_from_outer_param: bool) -> (Context, Vec<Inst>) {
        let mut sig = Signature::new(CallConv::SystemV);
        sig.params.push(AbiParam::new(types::I32));
        let mut func = Function::with_name_signature(UserFuncName::testcase("nest"), sig);
        let b0 = func.dfg.make_block();
        let outer = func.dfg.make_block();
        let pre = func.dfg.make_block();
        let inner = func.dfg.make_block();
        let next = func.dfg.make_block();
        let exit = func.dfg.make_block();
        let mut pos = FuncCursor::new(&mut func);
        pos.insert_block(b0);
        let jump = pos.func.dfg.append_block_param(b0, types::I32);
        let zero = pos.ins().iconst(types::I32, 0);
        pos.ins().jump(outer, &[zero.into()]);
        pos.insert_block(outer);
        let item = pos.func.dfg.append_block_param(outer, types::I32);
        pos.ins().jump(pre, &[]);
        pos.insert_block(pre);
        let source = if stride_from_outer_param { item } else { jump };
        let wide = pos.ins().sextend(types::I64, source);
        let k = pos.ins().iconst(types::I64, 6);
        let stride = pos.ins().ishl(wide, k);
        let stride2 = pos.ins().iadd(stride, stride);
        let i0 = pos.ins().iconst(types::I32, 0);
        pos.ins().jump(inner, &[i0.into(), stride2.into()]);
        pos.insert_block(inner);
        let i = pos.func.dfg.append_block_param(inner, types::I32);
        let _acc = pos.func.dfg.append_block_param(inner, types::I64);
        let i1 = pos.ins().iadd_imm_s(i, 1);
        let more = pos.ins().icmp_imm_s(
            cranelift_codegen::ir::condcodes::IntCC::SignedLessThan,
            i1,
            4,
        );
        pos.ins()
            .brif(more, inner, &[i1.into(), stride2.into()], next, &[]);
        pos.insert_block(next);
        let item1 = pos.ins().iadd_imm_s(item, 1);
        let again = pos.ins().icmp_imm_s(
            cranelift_codegen::ir::condcodes::IntCC::SignedLessThan,
            item1,
            100,
        );
        pos.ins().brif(again, outer, &[item1.into()], exit, &[]);
        pos.insert_block(exit);
        pos.ins().return_(&[]);
        let insts: Vec<Inst> = [wide, k, stride, stride2]
            .iter()
            .map(|&v| func.dfg.value_def(v).unwrap_inst())
            .collect();
        let mut ctx = Context::for_function(func);
        ctx.compute_cfg();
        ctx.compute_domtree();
        ctx.compute_loop_analysis();
        (ctx, insts)
    }

    fn verify(ctx: &Context) {
        let flags = cranelift_codegen::settings::Flags::new(cranelift_codegen::settings::builder());
        ctx.verify(&flags).expect("a valid function");
    }

    fn blocks_of(ctx: &Context, insts: &[Inst]) -> Vec<u32> {
        insts
            .iter()
            .map(|&i| ctx.func.layout.inst_block(i).unwrap().as_u32())
            .collect()
    }

    #[test]
    fn invariants_of_both_loops_move_to_the_function_entry() {
        let (mut ctx, insts) = nest(false);
        out_of_loops(&mut ctx.func, &ctx.cfg, &ctx.loop_analysis, &insts);
        // block0 is the entry, outside both loops; order kept.
        assert_eq!(blocks_of(&ctx, &insts), vec![0, 0, 0, 0]);
        let order: Vec<Inst> = ctx
            .func
            .layout
            .block_insts(ctx.func.layout.entry_block().unwrap())
            .collect();
        let at = |i: Inst| order.iter().position(|&o| o == i).unwrap();
        assert!(at(insts[0]) < at(insts[2]) && at(insts[1]) < at(insts[2]));
        assert!(at(insts[2]) < at(insts[3]));
        verify(&ctx);
    }

    #[test]
    fn what_the_outer_loop_changes_stays_in_it() {
        let (mut ctx, insts) = nest(true);
        out_of_loops(&mut ctx.func, &ctx.cfg, &ctx.loop_analysis, &insts);
        // The sign extension reads the item, a parameter of the outer loop's header
        // (block1), so it and what it feeds stay in block2, the inner loop's preheader;
        // only the shift's constant goes to the entry.
        assert_eq!(blocks_of(&ctx, &insts), vec![2, 0, 2, 2]);
        verify(&ctx);
    }
}
