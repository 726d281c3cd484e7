//! Puts each load's only user right after the load, so that x64's lowering folds the load
//! into the user's memory operand (`vaddps (%rcx,%r10), %xmm2, %xmm2`).
//!
//! Cranelift's lowering merges a load into the instruction that uses it only when the load
//! has one use and no other instruction with an effect (a load, a store, a call) lies
//! between the two. Its e-graph pass places every pure instruction just before its first
//! use, so a loop like clpeak's bandwidth kernel (`sum += A[id]`, sixteen 64-byte fetches of
//! a `float16` per item, four `f32x4` loads each) came out as all the loads, then all the
//! adds, the adds even in another block (the `for` loop's step block, where the sums meet
//! the jump back): 16 loaded registers and 4 sums live at once, 20 of x64's 16 vector
//! registers, so 5 spill stores and 5 reloads, and every load a separate instruction. With
//! each add after its load the loop is one `vaddps` with a memory operand per 16 bytes, as
//! LLVM emits it for PoCL.
//!
//! Two rewrites, both keeping every instruction and the order of the instructions with
//! effects, so results are bit for bit the same:
//! - a block that ends in an argument-less `jump` to a block with no parameters that no
//!   other branch reaches takes that block's instructions (a loop body and its step block
//!   become one block; Cranelift does not merge blocks before lowering);
//! - in each block, the one user of a load's result moves to just after the load when it
//!   is pure and its other operands are defined before the load. That never lengthens a
//!   live range overall: the user's result replaces the load's result (and the user's last
//!   uses of its other operands come earlier).

use std::sync::OnceLock;

use cranelift_codegen::entity::SecondaryMap;
use cranelift_codegen::ir::{Block, Function, Inst, InstructionData, Opcode, Value, ValueDef};

/// Whether `CLIFT_FOLD_LOADS` leaves the rewrites on (anything but `0`; scheduling off,
/// `CLIFT_SCHEDULE=0`, turns them off too).
pub(crate) fn enabled_by_environment() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| !std::env::var("CLIFT_FOLD_LOADS").is_ok_and(|v| v == "0"))
}

/// Both rewrites of the module's comment on `ctx`'s function (its control-flow graph and
/// dominator tree recomputed: lowering verifies the function against them).
pub(crate) fn fold_loads(ctx: &mut cranelift_codegen::Context) {
    if merge_straight_blocks(&mut ctx.func) {
        ctx.compute_cfg();
        ctx.compute_domtree();
    }
    let func = &mut ctx.func;
    let uses = use_counts(func);
    let mut scratch = Scratch::default();
    let blocks: Vec<Block> = func.layout.blocks().collect();
    for block in blocks {
        place_users_after_loads(func, block, &uses, &mut scratch);
    }
}

/// How many times each value is used: as an instruction's argument or a branch's block
/// argument (aliases resolved).
pub(super) fn use_counts(func: &Function) -> SecondaryMap<Value, u32> {
    let mut uses: SecondaryMap<Value, u32> = SecondaryMap::new();
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
            for &arg in func.dfg.inst_args(inst) {
                uses[func.dfg.resolve_aliases(arg)] += 1;
            }
            for call in func.dfg.insts[inst]
                .branch_destination(&func.dfg.jump_tables, &func.dfg.exception_tables)
            {
                for arg in call.args(&func.dfg.value_lists) {
                    if let Some(v) = arg.as_value() {
                        uses[func.dfg.resolve_aliases(v)] += 1;
                    }
                }
            }
        }
    }
    uses
}

/// Merges each block that ends in `jump C` (no arguments) with `C` when `C` has no
/// parameters and that jump is its only predecessor; whether it merged any.
fn merge_straight_blocks(func: &mut Function) -> bool {
    let mut merged = false;
    let entry = func.layout.entry_block();
    let mut preds: SecondaryMap<Block, u32> = SecondaryMap::new();
    for block in func.layout.blocks() {
        if let Some(last) = func.layout.last_inst(block) {
            for call in func.dfg.insts[last]
                .branch_destination(&func.dfg.jump_tables, &func.dfg.exception_tables)
            {
                preds[call.block(&func.dfg.value_lists)] += 1;
            }
        }
    }
    let blocks: Vec<Block> = func.layout.blocks().collect();
    for block in blocks {
        // `block` may have taken its successor's jump: follow the chain.
        while let Some(last) = func.layout.last_inst(block) {
            let InstructionData::Jump { destination, .. } = func.dfg.insts[last] else {
                break;
            };
            let next = destination.block(&func.dfg.value_lists);
            let mergeable = next != block
                && Some(next) != entry
                && preds[next] == 1
                && destination.len(&func.dfg.value_lists) == 0
                && func.dfg.num_block_params(next) == 0;
            if !mergeable {
                break;
            }
            func.layout.remove_inst(last);
            let moved: Vec<Inst> = func.layout.block_insts(next).collect();
            for inst in moved {
                func.layout.remove_inst(inst);
                func.layout.append_inst(inst, block);
            }
            func.layout.remove_block(next);
            merged = true;
        }
    }
    merged
}

/// Whether `inst` is pure: one result, no memory access, no effect, cannot trap (what the
/// scheduler may move, `schedule::movable`).
fn pure(func: &Function, inst: Inst) -> bool {
    super::schedule::movable(func, inst)
}

/// Maps [`place_users_after_loads`] reuses from block to block (a map per block would
/// cost a function of many blocks an allocation of all its values for each).
#[derive(Default)]
struct Scratch {
    /// Each instruction's index in the block at hand.
    position: SecondaryMap<Inst, usize>,
    /// The one user of a load's result; taken (left `None`) as each load is visited.
    user: SecondaryMap<Value, Option<Inst>>,
}

/// Moves, in `block`, the one user of each load's result to just after the load, where the
/// user is pure and its other operands are defined before the load (module comment).
fn place_users_after_loads(
    func: &mut Function,
    block: Block,
    uses: &SecondaryMap<Value, u32>,
    scratch: &mut Scratch,
) {
    let Scratch { position, user } = scratch;
    let insts: Vec<Inst> = func.layout.block_insts(block).collect();
    let is_load = |func: &Function, inst: Inst| func.dfg.insts[inst].opcode() == Opcode::Load;
    if !insts.iter().any(|&i| is_load(func, i)) {
        return;
    }
    // A moved user takes its load's position (anything that follows the load also follows
    // the user).
    for (i, &inst) in insts.iter().enumerate() {
        position[inst] = i;
    }
    // The one user of each result of this block's loads used once (every entry is taken
    // below, as its load is visited).
    for &inst in &insts {
        for &arg in func.dfg.inst_args(inst) {
            let v = func.dfg.resolve_aliases(arg);
            let from_load_here =
                |d: Inst| is_load(func, d) && func.layout.inst_block(d) == Some(block);
            if uses[v] == 1
                && matches!(func.dfg.value_def(v), ValueDef::Result(d, _) if from_load_here(d))
            {
                user[v] = Some(inst);
            }
        }
    }
    for &load in &insts {
        if !is_load(func, load) {
            continue;
        }
        let [result] = func.dfg.inst_results(load) else {
            continue;
        };
        let Some(consumer) = user[*result].take() else {
            continue;
        };
        let here = position[load];
        if position[consumer] <= here || !pure(func, consumer) {
            continue;
        }
        let ready = func.dfg.inst_args(consumer).iter().all(|&arg| {
            let v = func.dfg.resolve_aliases(arg);
            match func.dfg.value_def(v) {
                // Defined in this block: before the load (or the load itself); elsewhere:
                // in a block that dominates this one.
                ValueDef::Result(def, _) => {
                    def == load
                        || func.layout.inst_block(def) != Some(block)
                        || position[def] < here
                }
                _ => true,
            }
        });
        if !ready {
            continue;
        }
        func.layout.remove_inst(consumer);
        func.layout.insert_inst(consumer, load);
        // `insert_inst` puts it before `load`: swap the two.
        func.layout.remove_inst(load);
        func.layout.insert_inst(load, consumer);
        position[consumer] = here;
    }
}

#[cfg(test)]
mod tests {
    use cranelift_codegen::ir::{
        AbiParam, Function, InstBuilder, MemFlagsData, Opcode, Signature, Value, types,
    };
    use cranelift_codegen::isa::CallConv;
    use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};

    /// A function of a pointer and an f32x4 whose entry block jumps to a second block that
    /// `body` fills (returning what it returns), after [`super::fold_loads`]: the opcodes of
    /// each block in layout order.
    fn folded(
        two_predecessors: bool,
        body: impl FnOnce(&mut FunctionBuilder, Value, Value) -> Value,
    ) -> Vec<Vec<Opcode>> {
        let mut sig = Signature::new(CallConv::SystemV);
        sig.params = vec![AbiParam::new(types::I64), AbiParam::new(types::F32X4)];
        sig.returns = vec![AbiParam::new(types::F32X4)];
        let mut func = Function::with_name_signature(Default::default(), sig);
        let mut fctx = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut func, &mut fctx);
        let (entry, next) = (b.create_block(), b.create_block());
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let (p, acc) = (b.block_params(entry)[0], b.block_params(entry)[1]);
        if two_predecessors {
            b.ins().brif(p, next, &[], next, &[]);
        } else {
            b.ins().jump(next, &[]);
        }
        b.switch_to_block(next);
        let result = body(&mut b, p, acc);
        b.ins().return_(&[result]);
        b.seal_all_blocks();
        b.finalize(crate::jit::host_isa().unwrap().frontend_config());
        let mut ctx = cranelift_codegen::Context::for_function(func);
        ctx.compute_cfg();
        ctx.compute_domtree();
        super::fold_loads(&mut ctx);
        let isa = crate::jit::host_isa().unwrap();
        ctx.verify(isa.as_ref())
            .expect("the folded function verifies");
        let f = &ctx.func;
        f.layout
            .blocks()
            .map(|block| {
                f.layout
                    .block_insts(block)
                    .map(|i| f.dfg.insts[i].opcode())
                    .collect()
            })
            .collect()
    }

    /// Two loads, then the chain of adds that uses them (elaboration's order).
    fn two_fetches(b: &mut FunctionBuilder, p: Value, acc: Value) -> Value {
        let x = b.ins().load(types::F32X4, MemFlagsData::new(), p, 0);
        let y = b.ins().load(types::F32X4, MemFlagsData::new(), p, 16);
        let s = b.ins().fadd(acc, x);
        b.ins().fadd(s, y)
    }

    #[test]
    fn a_straight_successor_merges_and_each_add_follows_its_load() {
        use Opcode::*;
        assert_eq!(
            folded(false, two_fetches),
            vec![vec![Load, Fadd, Load, Fadd, Return]]
        );
    }

    #[test]
    fn a_block_with_two_incoming_edges_stays_a_block() {
        use Opcode::*;
        assert_eq!(
            folded(true, two_fetches),
            vec![vec![Brif], vec![Load, Fadd, Load, Fadd, Return]]
        );
    }

    #[test]
    fn a_user_waits_for_its_last_load_and_a_load_used_twice_stays() {
        use Opcode::*;
        // `x * y` needs `y`, loaded after `x`: it stays after `y`. `z` has two uses.
        let order = folded(false, |b, p, acc| {
            let x = b.ins().load(types::F32X4, MemFlagsData::new(), p, 0);
            let y = b.ins().load(types::F32X4, MemFlagsData::new(), p, 16);
            let z = b.ins().load(types::F32X4, MemFlagsData::new(), p, 32);
            let q = b.ins().fmul(acc, acc);
            let m = b.ins().fmul(x, y);
            let zz = b.ins().fmul(z, z);
            let s = b.ins().fadd(m, zz);
            b.ins().fadd(s, q)
        });
        assert_eq!(
            order,
            vec![vec![Load, Load, Fmul, Load, Fmul, Fmul, Fadd, Fadd, Return]]
        );
    }
}
