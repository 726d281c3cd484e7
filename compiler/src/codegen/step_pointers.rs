//! Pointer stepping: in a loop that steps a 32-bit index (`id += jump`), each address
//! `A + sext(id) * size` becomes a pointer stepped by `sext(jump) * size` (strength
//! reduction, as LLVM's LoopStrengthReduce does for PoCL), and the index itself goes when
//! nothing else reads it.
//!
//! clpeak's bandwidth kernels read `sum += A[id]; id += jump;` four times per iteration,
//! with `int id` and `size_t jump`. Lowered as written, each 64-byte fetch of a `float16`
//! costs `leal` (the step), `movslq` (the sign extension), `shlq $6` (the scale) and then
//! its four `vaddps`. Stepped, the fetch is its four `vaddps` on `[P + O_k + 16 * n]`, with
//! `P` the pointer of the iteration's first index and `O_k` the offsets of the later ones
//! (computed before the loop), and one `add` per iteration moves `P` on.
//!
//! Why that is exact although the index wraps at 2^32 and the pointer does not:
//! - `id += jump` with a `size_t` jump is an unsigned 64-bit add narrowed to `int`, so the
//!   index does wrap, and the rule cannot rest on signed overflow being undefined.
//! - It rests on pointer arithmetic instead: `A + i` is only defined while it points into
//!   (or just past) the object `A` points into (C99 6.5.6p8, OpenCL C 6.1.5). A step of at
//!   most 2^31 that wraps moves the index by at least 2^31 elements, so `A + i` before the
//!   step and `A + i'` after it lie 2^31 × size bytes apart, and one of the two is outside
//!   any object smaller than that. A device's objects are at most
//!   `CL_DEVICE_MAX_MEM_ALLOC_SIZE` bytes (`clCreateBuffer` refuses larger ones), so with
//!   2^31 × size larger than that, a program that wraps between two such accesses has no
//!   defined result, and one that does not wrap gets the same addresses from the pointer.
//! - So every step `i' = i + j` must follow an access `A[i]` (the access dominates the
//!   step), every rewritten access is `A[i']` itself, and the pointer starts exact (it is
//!   computed from the index on entry to the loop). The index is read as the loop's own:
//!   its steps lie in the loop and not in an inner one, where each block runs once per
//!   iteration, and `j` does not change in the loop.
//! - With the size bound unknown (`max_object_size` 0, as in `cliftc`) nothing changes.
//!
//! Runs on optimized CLIF (the invariants are hoisted and the `size_t` steps are already
//! 32-bit adds), before `fold_loads`; a function without such an address is left after
//! one look at its loads and stores.

use std::collections::HashMap;

use cranelift_codegen::Context;
use cranelift_codegen::cursor::{Cursor, FuncCursor};
use cranelift_codegen::entity::SecondaryMap;
use cranelift_codegen::flowgraph::ControlFlowGraph;
use cranelift_codegen::ir::{
    Block, BlockArg, Function, Inst, InstBuilder, InstructionData, Opcode, Value, ValueDef, types,
};
use cranelift_codegen::loop_analysis::{Loop, LoopAnalysis};

mod hoist;
mod split;

/// A load or store whose address is `base + sext(index) * scale`.
#[derive(Clone, Copy)]
struct Access {
    inst: Inst,
    /// Which of the instruction's arguments is the address.
    arg: usize,
    address: Value,
    base: Value,
    index: Value,
    scale: i64,
}

/// One step of an index: `result = from ± by`, `by` unchanged in the loop.
#[derive(Clone, Copy)]
struct Step {
    inst: Inst,
    from: Value,
    by: Value,
    subtract: bool,
}

/// The accesses of one loop through one base at one scale, indexed by one induction
/// variable (`index`, a parameter of the loop's header).
struct Group {
    lp: Loop,
    index: Value,
    base: Value,
    scale: i64,
    accesses: Vec<Access>,
}

/// Rewrites the addresses of the module's comment in `ctx`'s function; `max_object_size`
/// is the device's largest object in bytes (0: unknown, nothing is rewritten). Returns
/// whether it rewrote any.
pub(crate) fn step_pointers(ctx: &mut Context, max_object_size: u64) -> bool {
    if max_object_size == 0 {
        return false;
    }
    let accesses = scaled_accesses(&ctx.func, max_object_size);
    // The loop analysis only where an index could be an induction variable.
    if !accesses
        .iter()
        .any(|a| stepped_param(&ctx.func, a.index, 8))
    {
        return false;
    }
    ctx.compute_cfg();
    ctx.compute_domtree();
    ctx.compute_loop_analysis();
    // Derived indices (`A[id + i]`) first become induction variables of their own
    // (`split.rs`), kept only where all of them become pointers.
    let candidates = split::candidates(ctx, &accesses);
    if !candidates.is_empty() {
        let saved = ctx.func.clone();
        let added = split::split(ctx, &candidates);
        let accesses = scaled_accesses(&ctx.func, max_object_size);
        let rewrote = rewrite_loops(ctx, accesses);
        if added.iter().all(|&x| !ctx.func.dfg.value_is_attached(x)) {
            ctx.func.dfg.resolve_all_aliases();
            split::remove_dead_sources(&mut ctx.func, &candidates);
            return rewrote;
        }
        // The split did not pay: the function as it was (its control flow, and so the
        // analyses, are the same).
        ctx.func = saved;
    }
    rewrite_loops(ctx, accesses)
}

/// Groups `accesses` by loop and index, plans and rewrites each group that passes the
/// checks (`ctx` has its control-flow graph, dominator tree and loop analysis); whether it
/// rewrote any.
fn rewrite_loops(ctx: &mut Context, accesses: Vec<Access>) -> bool {
    let groups = group(&ctx.func, &ctx.loop_analysis, accesses);
    let planned: Vec<(Group, Plan)> = groups
        .into_iter()
        .filter_map(|g| plan(ctx, &g).map(|p| (g, p)))
        .collect();
    if planned.is_empty() {
        return false;
    }
    // Whether an index dies matters only at small scales (and needs the use counts).
    let narrow = planned.iter().any(|(g, _)| g.scale <= MAX_ADDRESS_SCALE);
    let uses = narrow.then(|| super::fold_loads::use_counts(&ctx.func));
    let dying: Vec<Value> = planned
        .iter()
        .map(|(g, _)| g.index)
        .filter(|&index| {
            uses.as_ref()
                .is_some_and(|uses| index_dies(&ctx.func, uses, &planned, index))
        })
        .collect();
    let mut rewritten = Vec::new();
    let mut old = Vec::new();
    for (g, plan) in planned {
        if g.scale > MAX_ADDRESS_SCALE || dying.contains(&g.index) {
            old.extend(g.accesses.iter().map(|a| a.address));
            rewrite(&mut ctx.func, &ctx.cfg, &ctx.loop_analysis, &g, &plan);
            rewritten.push((g, plan));
        }
    }
    if rewritten.is_empty() {
        return false;
    }
    clean_up(&mut ctx.func, &rewritten, &old);
    true
}

/// The largest scale of an x64 address (`(base, index, 8)`): a larger one costs a shift per
/// access, which the pointer saves even where the index stays.
const MAX_ADDRESS_SCALE: i64 = 8;

/// Whether nothing but its own steps would read `index` once every planned group of it
/// reads its pointer. Only then does a scale of at most 8 gain: the pointer's `add` and
/// register replace the index's step, its sign extension and its register; with the index
/// staying (`for (c ...) y[c] = g[c] * x[c]`, where the loop's compare and other accesses
/// read `c`) each pointer would be one more `add` and one more register per iteration.
fn index_dies(
    func: &Function,
    uses: &SecondaryMap<Value, u32>,
    planned: &[(Group, Plan)],
    index: Value,
) -> bool {
    let mine = || planned.iter().filter(|(g, _)| g.index == index);
    // The uses each value loses: its steps and back edges, and the addresses (with their
    // scaled, sign-extended indices) whose last users are the rewritten accesses.
    let mut lost: HashMap<Value, u32> = HashMap::new();
    let mut values = vec![index];
    let mut steps: Vec<Inst> = Vec::new();
    for (g, plan) in mine() {
        for s in plan.steps.values() {
            if !steps.contains(&s.inst) {
                steps.push(s.inst);
                values.push(func.dfg.first_result(s.inst));
                *lost.entry(func.dfg.resolve_aliases(s.from)).or_default() += 1;
            }
        }
        for a in &g.accesses {
            *lost.entry(func.dfg.resolve_aliases(a.address)).or_default() += 1;
        }
    }
    if let Some((_, plan)) = mine().next() {
        for l in &plan.latches {
            *lost.entry(func.dfg.resolve_aliases(l.2)).or_default() += 1;
        }
    }
    // Follow each address that dies down to its index: address, scaled index, extension.
    let mut addresses: Vec<Value> = mine()
        .flat_map(|(g, _)| {
            g.accesses
                .iter()
                .map(|a| func.dfg.resolve_aliases(a.address))
        })
        .collect();
    addresses.sort();
    addresses.dedup();
    for address in addresses {
        let mut v = address;
        while lost.get(&v).copied().unwrap_or(0) == uses[v] {
            let Some(inst) = defining(func, v) else { break };
            let next = match func.dfg.insts[inst].opcode() {
                Opcode::Iadd => {
                    let [a, b] = *func.dfg.inst_args(inst) else {
                        break;
                    };
                    if scaled_index(func, b).is_some() {
                        b
                    } else {
                        a
                    }
                }
                Opcode::Ishl | Opcode::Imul | Opcode::Sextend => func.dfg.inst_args(inst)[0],
                _ => break,
            };
            let next = func.dfg.resolve_aliases(next);
            *lost.entry(next).or_default() += 1;
            if values.contains(&next) {
                break;
            }
            v = next;
        }
    }
    values
        .iter()
        .all(|&v| lost.get(&v).copied().unwrap_or(0) == uses[v])
}

/// The loads and stores whose address is `base + sext(i32) * scale`, with 2^31 × scale
/// larger than any object.
fn scaled_accesses(func: &Function, max_object_size: u64) -> Vec<Access> {
    let mut found = Vec::new();
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
            let arg = match func.dfg.insts[inst].opcode() {
                Opcode::Load => 0,
                Opcode::Store => 1,
                _ => continue,
            };
            let address = func.dfg.inst_args(inst)[arg];
            if let Some((base, index, scale)) = scaled_address(func, address)
                && (scale as u128) << 31 > u128::from(max_object_size)
            {
                found.push(Access {
                    inst,
                    arg,
                    address,
                    base,
                    index,
                    scale,
                });
            }
        }
    }
    found
}

/// Whether `v` is an `i32` block parameter or an `i32` sum or difference with one within
/// `depth` steps (what an induction variable's values are; checked before any analysis).
fn stepped_param(func: &Function, v: Value, depth: u32) -> bool {
    let v = func.dfg.resolve_aliases(v);
    if func.dfg.value_type(v) != types::I32 {
        return false;
    }
    match func.dfg.value_def(v) {
        ValueDef::Param(..) => true,
        ValueDef::Result(inst, 0)
            if depth > 0
                && matches!(func.dfg.insts[inst].opcode(), Opcode::Iadd | Opcode::Isub) =>
        {
            func.dfg
                .inst_args(inst)
                .iter()
                .any(|&a| stepped_param(func, a, depth - 1))
        }
        _ => false,
    }
}

/// `(base, index, scale)` of an address `iadd(base, ishl|imul(sextend.i64(index), c))`.
fn scaled_address(func: &Function, address: Value) -> Option<(Value, Value, i64)> {
    let inst = defining(func, address)?;
    if func.dfg.insts[inst].opcode() != Opcode::Iadd || func.dfg.value_type(address) != types::I64 {
        return None;
    }
    let [a, b] = *func.dfg.inst_args(inst) else {
        return None;
    };
    if let Some((index, scale)) = scaled_index(func, b) {
        return Some((a, index, scale));
    }
    scaled_index(func, a).map(|(index, scale)| (b, index, scale))
}

/// `(index, scale)` of `ishl(sextend.i64(index), k)` or `imul(sextend.i64(index), c)`.
fn scaled_index(func: &Function, v: Value) -> Option<(Value, i64)> {
    let inst = defining(func, v)?;
    let [x, amount] = *func.dfg.inst_args(inst) else {
        return None;
    };
    let scale = match func.dfg.insts[inst].opcode() {
        Opcode::Ishl => match constant(func, amount)? {
            k @ 1..=31 => 1i64 << k,
            _ => return None,
        },
        Opcode::Imul => match constant(func, amount)? {
            c @ 2..=0x7fff_ffff => c,
            _ => return None,
        },
        _ => return None,
    };
    let extend = defining(func, x)?;
    if func.dfg.insts[extend].opcode() != Opcode::Sextend {
        return None;
    }
    let index = func.dfg.inst_args(extend)[0];
    (func.dfg.value_type(index) == types::I32).then_some((index, scale))
}

fn defining(func: &Function, v: Value) -> Option<Inst> {
    match func.dfg.value_def(func.dfg.resolve_aliases(v)) {
        ValueDef::Result(inst, 0) => Some(inst),
        _ => None,
    }
}

fn constant(func: &Function, v: Value) -> Option<i64> {
    match func.dfg.insts[defining(func, v)?] {
        InstructionData::UnaryImm {
            opcode: Opcode::Iconst,
            imm,
        } => Some(imm.bits()),
        _ => None,
    }
}

/// The block that defines `v`.
fn block_of(func: &Function, v: Value) -> Option<Block> {
    match func.dfg.value_def(v) {
        ValueDef::Result(inst, _) => func.layout.inst_block(inst),
        ValueDef::Param(block, _) => Some(block),
        _ => None,
    }
}

/// Whether `v` does not change in `lp`: defined outside it, or computed in it from such
/// values by a few pure integer instructions (which [`materialize`] repeats before it).
fn invariant(func: &Function, loops: &LoopAnalysis, lp: Loop, v: Value, depth: u32) -> bool {
    let Some(block) = block_of(func, v) else {
        return false;
    };
    if !loops.is_in_loop(block, lp) {
        return true;
    }
    let Some(inst) = defining(func, v) else {
        return false;
    };
    depth < 4
        && rematerializable(func.dfg.insts[inst].opcode())
        && func
            .dfg
            .inst_args(inst)
            .iter()
            .all(|&a| invariant(func, loops, lp, a, depth + 1))
}

fn rematerializable(op: Opcode) -> bool {
    matches!(
        op,
        Opcode::Iconst
            | Opcode::Ireduce
            | Opcode::Sextend
            | Opcode::Uextend
            | Opcode::Iadd
            | Opcode::Isub
            | Opcode::Imul
            | Opcode::Ishl
    )
}

/// The step that defines `v` in `lp` (not in an inner loop), if `v` is one.
fn step_of(func: &Function, loops: &LoopAnalysis, lp: Loop, v: Value) -> Option<Step> {
    let inst = defining(func, v)?;
    if func.dfg.value_type(v) != types::I32
        || loops.innermost_loop(func.layout.inst_block(inst)?) != Some(lp)
    {
        return None;
    }
    let [a, b] = *func.dfg.inst_args(inst) else {
        return None;
    };
    let inv = |x| invariant(func, loops, lp, x, 0);
    match func.dfg.insts[inst].opcode() {
        Opcode::Iadd if inv(b) => Some((a, b)),
        Opcode::Iadd if inv(a) => Some((b, a)),
        Opcode::Isub if inv(b) => Some((a, b)),
        _ => None,
    }
    .map(|(from, by)| Step {
        inst,
        from,
        by,
        subtract: func.dfg.insts[inst].opcode() == Opcode::Isub,
    })
}

/// The header parameter `v` is stepped from in `lp`, with the steps on the way (each
/// value's own step first).
fn induction(
    func: &Function,
    loops: &LoopAnalysis,
    lp: Loop,
    mut v: Value,
    steps: &mut Vec<Step>,
) -> Option<Value> {
    let header = loops.loop_header(lp);
    for _ in 0..64 {
        v = func.dfg.resolve_aliases(v);
        if let ValueDef::Param(block, _) = func.dfg.value_def(v) {
            return (block == header && func.dfg.value_type(v) == types::I32).then_some(v);
        }
        let step = step_of(func, loops, lp, v)?;
        steps.push(step);
        v = step.from;
    }
    None
}

/// The accesses grouped by loop, induction variable, base and scale; accesses outside
/// loops, in inner loops of their index's loop, or through a base that changes in the
/// loop are left out (a base computed in the loop from invariants, as `A + 64` placed next
/// to its use, is computed again before it).
fn group(func: &Function, loops: &LoopAnalysis, accesses: Vec<Access>) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    for a in accesses {
        let Some(block) = func.layout.inst_block(a.inst) else {
            continue;
        };
        let Some(lp) = loops.innermost_loop(block) else {
            continue;
        };
        if !invariant(func, loops, lp, a.base, 0) {
            continue;
        }
        let Some(index) = induction(func, loops, lp, a.index, &mut Vec::new()) else {
            continue;
        };
        let same = |g: &&mut Group| {
            g.lp == lp && g.index == index && g.base == a.base && g.scale == a.scale
        };
        match groups.iter_mut().find(same) {
            Some(g) => g.accesses.push(a),
            None => groups.push(Group {
                lp,
                index,
                base: a.base,
                scale: a.scale,
                accesses: vec![a],
            }),
        }
    }
    groups
}

/// What [`rewrite`] needs of a group that passed every check.
struct Plan {
    /// The loop's one entry: the branch outside the loop that reaches its header.
    entry: Inst,
    /// The branches back to the header (the terminator, which of its destinations), each
    /// with the index value it passes.
    latches: Vec<(Inst, usize, Value)>,
    /// Each stepped value's step.
    steps: HashMap<Value, Step>,
}

/// The checks of the module's comment for `g`: one entry, back edges that pass stepped
/// values of the index, and every step preceded by an access of its source.
fn plan(ctx: &Context, g: &Group) -> Option<Plan> {
    let func = &ctx.func;
    let loops = &ctx.loop_analysis;
    let header = loops.loop_header(g.lp);
    let position = func
        .dfg
        .block_params(header)
        .iter()
        .position(|&p| p == g.index)?;
    let mut entry = None;
    let mut latches = Vec::new();
    let mut steps = Vec::new();
    for pred in ctx.cfg.pred_iter(header) {
        let inside = loops.is_in_loop(pred.block, g.lp);
        if inside && loops.innermost_loop(pred.block) != Some(g.lp) {
            return None;
        }
        if !inside {
            // One branch in, with one destination in the header (a `brif` to it on both
            // sides could pass two starts).
            let once = branches_to(func, pred.inst, header).len() == 1;
            if !once || entry.is_some_and(|e| e != pred.inst) {
                return None;
            }
            entry = Some(pred.inst);
            continue;
        }
        let calls = func.dfg.insts[pred.inst]
            .branch_destination(&func.dfg.jump_tables, &func.dfg.exception_tables);
        for (i, call) in calls.iter().enumerate() {
            if call.block(&func.dfg.value_lists) != header {
                continue;
            }
            let BlockArg::Value(next) = call.args(&func.dfg.value_lists).nth(position)? else {
                return None;
            };
            if induction(func, loops, g.lp, next, &mut steps)? != g.index {
                return None;
            }
            if !latches
                .iter()
                .any(|l: &(Inst, usize, Value)| l.0 == pred.inst && l.1 == i)
            {
                latches.push((pred.inst, i, next));
            }
        }
    }
    for a in &g.accesses {
        induction(func, loops, g.lp, a.index, &mut steps)?;
    }
    let accessed = |v: Value, before: Inst| {
        g.accesses.iter().any(|a| {
            func.dfg.resolve_aliases(a.index) == v
                && ctx.domtree.dominates(a.inst, before, &func.layout)
        })
    };
    if !steps.iter().all(|s| accessed(s.from, s.inst)) {
        return None;
    }
    let steps = steps
        .into_iter()
        .map(|s| (func.dfg.first_result(s.inst), s))
        .collect();
    Some(Plan {
        entry: entry?,
        latches,
        steps,
    })
}

/// The branches of the terminator `inst` that go to `block`.
fn branches_to(func: &Function, inst: Inst, block: Block) -> Vec<cranelift_codegen::ir::BlockCall> {
    func.dfg.insts[inst]
        .branch_destination(&func.dfg.jump_tables, &func.dfg.exception_tables)
        .iter()
        .filter(|c| c.block(&func.dfg.value_lists) == block)
        .copied()
        .collect()
}

/// Gives the header of `g`'s loop a pointer parameter, starts it at the loop's entry,
/// steps it on each back edge and points each access at it plus its offset; the offsets,
/// computed on the entry, move out of the loops around as far as they can ([`hoist`]).
fn rewrite(
    func: &mut Function,
    cfg: &ControlFlowGraph,
    loops: &LoopAnalysis,
    g: &Group,
    plan: &Plan,
) {
    let ValueDef::Param(header, position) = func.dfg.value_def(g.index) else {
        return;
    };
    let pointer = func.dfg.append_block_param(header, types::I64);
    let mut pos = FuncCursor::new(func).at_inst(plan.entry);
    let start = branches_to(pos.func, plan.entry, header)
        .first()
        .and_then(|c| c.args(&pos.func.dfg.value_lists).nth(position))
        .and_then(|a| a.as_value())
        .expect("the entry passes the index");
    let scaled = scale(&mut pos, start, g.scale);
    let base = materialize(&mut pos, loops, g.lp, g.base);
    let first = pos.ins().iadd(base, scaled);
    let before_offsets = pos.func.layout.prev_inst(plan.entry);
    let mut offsets = Offsets {
        g,
        plan,
        loops,
        memo: HashMap::new(),
        scaled: HashMap::new(),
    };
    // Every offset is computed before the loop, so that the loop only adds.
    let mut wanted: Vec<Value> = plan.latches.iter().map(|l| l.2).collect();
    wanted.extend(g.accesses.iter().map(|a| a.index));
    for &v in &wanted {
        offsets.get(&mut pos, v);
    }
    append_to_branches(pos.func, plan.entry, header, first);
    // Only the offsets move: each is read in the loop, so a register holds it there
    // anyway; the start pointer is read once per entry, and moved out it would hold a
    // register (or a stack slot) through the whole of the enclosing loop to save one add.
    let computed = instructions_between(pos.func, before_offsets, plan.entry);
    hoist::out_of_loops(pos.func, cfg, loops, &computed);
    for &(latch, call, next) in &plan.latches {
        let mut pos = FuncCursor::new(pos.func).at_inst(latch);
        let stepped = offsets.moved(&mut pos, pointer, next);
        let dfg = &mut pos.func.dfg;
        let calls = dfg.insts[latch]
            .branch_destination_mut(&mut dfg.jump_tables, &mut dfg.exception_tables);
        calls[call].append_argument(stepped, &mut dfg.value_lists);
    }
    for a in &g.accesses {
        let mut pos = FuncCursor::new(pos.func).at_inst(a.inst);
        let address = offsets.moved(&mut pos, pointer, a.index);
        pos.func.dfg.inst_args_mut(a.inst)[a.arg] = address;
    }
}

/// The instructions after `after` (the block's first when `None`) up to `end`, excluded.
fn instructions_between(func: &Function, after: Option<Inst>, end: Inst) -> Vec<Inst> {
    let block = func
        .layout
        .inst_block(end)
        .expect("an inserted instruction");
    let mut next = match after {
        Some(a) => func.layout.next_inst(a),
        None => func.layout.first_inst(block),
    };
    let mut insts = Vec::new();
    while let Some(inst) = next.filter(|&i| i != end) {
        insts.push(inst);
        next = func.layout.next_inst(inst);
    }
    insts
}

/// `sext(v) * scale` as an `i64`, at `pos`.
fn scale(pos: &mut FuncCursor, v: Value, scale: i64) -> Value {
    if let Some(c) = constant(pos.func, v) {
        // An `i32` constant's bits, sign-extended (scale < 2^31: no overflow).
        return pos.ins().iconst(types::I64, i64::from(c as i32) * scale);
    }
    let wide = pos.ins().sextend(types::I64, v);
    if scale.count_ones() == 1 {
        let k = pos
            .ins()
            .iconst(types::I64, i64::from(scale.trailing_zeros()));
        pos.ins().ishl(wide, k)
    } else {
        let c = pos.ins().iconst(types::I64, scale);
        pos.ins().imul(wide, c)
    }
}

/// Appends `v` to the arguments of each branch of `inst` to `block`.
fn append_to_branches(func: &mut Function, inst: Inst, block: Block, v: Value) {
    let dfg = &mut func.dfg;
    for call in
        dfg.insts[inst].branch_destination_mut(&mut dfg.jump_tables, &mut dfg.exception_tables)
    {
        if call.block(&dfg.value_lists) == block {
            call.append_argument(v, &mut dfg.value_lists);
        }
    }
}

/// The byte offset of each stepped value from the index's pointer, computed before the
/// loop (`None` for the index itself).
struct Offsets<'a> {
    g: &'a Group,
    plan: &'a Plan,
    loops: &'a LoopAnalysis,
    memo: HashMap<Value, Option<Value>>,
    /// Each step amount, scaled (the four steps of clpeak's loop are one amount).
    scaled: HashMap<Value, Value>,
}

impl Offsets<'_> {
    /// The offset of `v`; new instructions go at `pos` (the loop's entry branch).
    fn get(&mut self, pos: &mut FuncCursor, v: Value) -> Option<Value> {
        let v = pos.func.dfg.resolve_aliases(v);
        if v == self.g.index {
            return None;
        }
        if let Some(&o) = self.memo.get(&v) {
            return o;
        }
        let step = self.plan.steps[&v];
        let from = self.get(pos, step.from);
        let amount = pos.func.dfg.resolve_aliases(step.by);
        let by = match self.scaled.get(&amount) {
            Some(&by) => by,
            None => {
                let v = materialize(pos, self.loops, self.g.lp, amount);
                let by = scale(pos, v, self.g.scale);
                self.scaled.insert(amount, by);
                by
            }
        };
        let offset = match (from, step.subtract) {
            (None, false) => by,
            (None, true) => pos.ins().ineg(by),
            (Some(f), false) => pos.ins().iadd(f, by),
            (Some(f), true) => pos.ins().isub(f, by),
        };
        self.memo.insert(v, Some(offset));
        Some(offset)
    }

    /// `pointer` plus the (already computed) offset of `v`, at `pos`.
    fn moved(&self, pos: &mut FuncCursor, pointer: Value, v: Value) -> Value {
        let v = pos.func.dfg.resolve_aliases(v);
        match self.memo.get(&v) {
            Some(&Some(offset)) => pos.ins().iadd(pointer, offset),
            _ => pointer,
        }
    }
}

/// `v` (invariant in `lp`) at `pos` before the loop: itself, or its instructions repeated.
fn materialize(pos: &mut FuncCursor, loops: &LoopAnalysis, lp: Loop, v: Value) -> Value {
    let v = pos.func.dfg.resolve_aliases(v);
    if block_of(pos.func, v).is_none_or(|b| !loops.is_in_loop(b, lp)) {
        return v;
    }
    let inst = defining(pos.func, v).expect("an invariant instruction");
    let ty = pos.func.dfg.value_type(v);
    let opcode = pos.func.dfg.insts[inst].opcode();
    if let Some(c) = constant(pos.func, v) {
        return pos.ins().iconst(ty, c);
    }
    let args: Vec<Value> = pos.func.dfg.inst_args(inst).to_vec();
    let args: Vec<Value> = args
        .into_iter()
        .map(|a| materialize(pos, loops, lp, a))
        .collect();
    let (new, dfg) = match *args.as_slice() {
        [a] => pos.ins().Unary(opcode, ty, a),
        [a, b] => pos.ins().Binary(opcode, ty, a, b),
        _ => unreachable!("`rematerializable` has unary and binary opcodes only"),
    };
    dfg.first_result(new)
}

/// Removes what the rewrite left unused: the old addresses, and each index whose values
/// only step each other (its header parameter and steps go).
fn clean_up(func: &mut Function, rewritten: &[(Group, Plan)], old: &[Value]) {
    let mut uses = super::fold_loads::use_counts(func);
    for &address in old {
        remove_if_dead(func, &mut uses, address);
    }
    let mut done: Vec<Value> = Vec::new();
    for (g, plan) in rewritten {
        if done.contains(&g.index) {
            continue;
        }
        done.push(g.index);
        // Every plan of this index (one per base and scale) has the same back edges.
        let steps: HashMap<Inst, Step> = rewritten
            .iter()
            .filter(|(h, _)| h.index == g.index)
            .flat_map(|(_, p)| p.steps.values().map(|s| (s.inst, *s)))
            .collect();
        let mut internal: HashMap<Value, u32> = HashMap::new();
        for s in steps.values() {
            *internal
                .entry(func.dfg.resolve_aliases(s.from))
                .or_default() += 1;
        }
        for l in &plan.latches {
            *internal.entry(func.dfg.resolve_aliases(l.2)).or_default() += 1;
        }
        let values =
            std::iter::once(g.index).chain(steps.values().map(|s| func.dfg.first_result(s.inst)));
        let dead = values
            .into_iter()
            .all(|v| uses[v] == internal.get(&v).copied().unwrap_or(0));
        if dead {
            remove_index(func, &mut uses, g.index, plan, steps.keys().copied());
        }
    }
}

/// Removes `v`'s instruction when nothing uses `v` and it is one of the pure integer
/// instructions of an address, then the same for its arguments.
fn remove_if_dead(func: &mut Function, uses: &mut SecondaryMap<Value, u32>, v: Value) {
    let v = func.dfg.resolve_aliases(v);
    let Some(inst) = defining(func, v) else {
        return;
    };
    let placed = func.layout.inst_block(inst).is_some();
    if uses[v] != 0 || !placed || !rematerializable(func.dfg.insts[inst].opcode()) {
        return;
    }
    let args: Vec<Value> = func.dfg.inst_args(inst).to_vec();
    func.layout.remove_inst(inst);
    for a in args {
        let a = func.dfg.resolve_aliases(a);
        uses[a] -= 1;
        remove_if_dead(func, uses, a);
    }
}

/// Removes the index `index` (a header parameter), its `steps` and its arguments on the
/// loop's entry and back edges.
fn remove_index(
    func: &mut Function,
    uses: &mut SecondaryMap<Value, u32>,
    index: Value,
    plan: &Plan,
    steps: impl Iterator<Item = Inst>,
) {
    let ValueDef::Param(header, position) = func.dfg.value_def(index) else {
        return;
    };
    for inst in steps {
        func.layout.remove_inst(inst);
    }
    let mut start = None;
    let mut branches: Vec<Inst> = plan.latches.iter().map(|l| l.0).collect();
    branches.push(plan.entry);
    branches.dedup();
    for inst in branches {
        let dfg = &mut func.dfg;
        for call in
            dfg.insts[inst].branch_destination_mut(&mut dfg.jump_tables, &mut dfg.exception_tables)
        {
            if call.block(&dfg.value_lists) == header {
                if inst == plan.entry {
                    start = call
                        .args(&dfg.value_lists)
                        .nth(position)
                        .and_then(|a| a.as_value());
                }
                call.remove(position, &mut dfg.value_lists);
            }
        }
    }
    func.dfg.remove_block_param(index);
    if let Some(start) = start {
        let start = func.dfg.resolve_aliases(start);
        uses[start] -= 1;
        remove_if_dead(func, uses, start);
    }
}

#[cfg(test)]
mod tests {
    use cranelift_codegen::ir::{
        AbiParam, Block, Function, InstBuilder, MemFlagsData, Opcode, Signature, Value, types,
    };
    use cranelift_codegen::isa::CallConv;
    use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};

    /// How the test loop is varied.
    #[derive(Clone, Copy, Default)]
    struct Shape {
        /// Zero-extend the index instead of sign-extending it (a `uint` index).
        unsigned: bool,
        /// Step by the loop's counter instead of the invariant `j`.
        varying_step: bool,
        /// Step before the access (the access reads the stepped index).
        step_first: bool,
        /// Read the index after the loop.
        read_after: bool,
        /// Scale the index by 4 instead of 64.
        narrow: bool,
        /// The largest object, if not 1 GiB.
        bound: Option<u64>,
    }

    /// `fn(base: i64, n: i32, j: i32)`: `for (i = 0, id = 0; i < n; i++) { load(base +
    /// ext(id) << 6); id += j; }`, then `return id` (or 0); after [`super::step_pointers`]
    /// with a 1 GiB bound: whether it rewrote, the header's parameter types, and the
    /// opcodes of the loop body.
    fn stepped(shape: Shape) -> (bool, Vec<types::Type>, Vec<Opcode>) {
        let mut func = loop_function();
        let mut fctx = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut func, &mut fctx);
        let (entry, header, body, exit) = (
            b.create_block(),
            b.create_block(),
            b.create_block(),
            b.create_block(),
        );
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let [base, n, j] = *b.block_params(entry) else {
            unreachable!()
        };
        let zero = b.ins().iconst(types::I32, 0);
        b.ins().jump(header, &[zero.into(), zero.into()]);
        b.switch_to_block(header);
        let i = b.append_block_param(header, types::I32);
        let id = b.append_block_param(header, types::I32);
        let more = b.ins().icmp(
            cranelift_codegen::ir::condcodes::IntCC::SignedLessThan,
            i,
            n,
        );
        b.ins().brif(more, body, &[], exit, &[]);
        b.switch_to_block(body);
        let by = if shape.varying_step { i } else { j };
        let next = b.ins().iadd(id, by);
        let read = if shape.step_first { next } else { id };
        let wide = if shape.unsigned {
            b.ins().uextend(types::I64, read)
        } else {
            b.ins().sextend(types::I64, read)
        };
        let shift = b.ins().iconst(types::I64, if shape.narrow { 2 } else { 6 });
        let scaled = b.ins().ishl(wide, shift);
        let address = b.ins().iadd(base, scaled);
        b.ins()
            .load(types::F32X4, MemFlagsData::trusted(), address, 0);
        let one = b.ins().iconst(types::I32, 1);
        let i_next = b.ins().iadd(i, one);
        b.ins().jump(header, &[i_next.into(), next.into()]);
        b.switch_to_block(exit);
        let result: Value = if shape.read_after { id } else { zero };
        b.ins().return_(&[result]);
        b.seal_all_blocks();
        b.finalize(crate::jit::host_isa().unwrap().frontend_config());
        // In the body as the frontend built it the load comes after the step: move the
        // step after the load unless the step comes first.
        let mut ctx = cranelift_codegen::Context::for_function(func);
        if !shape.step_first {
            let step = ctx.func.dfg.value_def(next).unwrap_inst();
            ctx.func.layout.remove_inst(step);
            let last = ctx.func.layout.last_inst(body).unwrap();
            ctx.func.layout.insert_inst(step, last);
        }
        run_pass(&mut ctx, shape.bound.unwrap_or(1 << 30), header, body)
    }

    /// An empty `fn(base: i64, n: i32, j: i32) -> i32`, the tests' loops' signature.
    pub(super) fn loop_function() -> Function {
        let mut sig = Signature::new(CallConv::SystemV);
        sig.params = vec![
            AbiParam::new(types::I64),
            AbiParam::new(types::I32),
            AbiParam::new(types::I32),
        ];
        sig.returns = vec![AbiParam::new(types::I32)];
        Function::with_name_signature(Default::default(), sig)
    }

    /// Runs the pass on `ctx`'s function with `bound` as the largest object and checks that
    /// the function still verifies: whether it rewrote, the types of `header`'s parameters
    /// and the opcodes of `block`.
    pub(super) fn run_pass(
        ctx: &mut cranelift_codegen::Context,
        bound: u64,
        header: Block,
        block: Block,
    ) -> (bool, Vec<types::Type>, Vec<Opcode>) {
        let rewrote = super::step_pointers(ctx, bound);
        let isa = crate::jit::host_isa().unwrap();
        cranelift_codegen::verifier::verify_function(&ctx.func, isa.as_ref())
            .expect("valid after the pass");
        let params = ctx.func.dfg.block_param_types(header).collect::<Vec<_>>();
        let opcodes = ctx
            .func
            .layout
            .block_insts(block)
            .map(|inst| ctx.func.dfg.insts[inst].opcode())
            .collect();
        (rewrote, params, opcodes)
    }

    #[test]
    fn the_index_becomes_a_pointer_and_goes() {
        let (rewrote, params, body) = stepped(Shape::default());
        assert!(rewrote);
        // The counter and the pointer; the index is gone.
        assert_eq!(params, [types::I32, types::I64]);
        // The load from the pointer, the counter's step, the pointer's step, the jump.
        assert_eq!(
            body,
            [
                Opcode::Load,
                Opcode::Iconst,
                Opcode::Iadd,
                Opcode::Iadd,
                Opcode::Jump
            ]
        );
    }

    #[test]
    fn an_index_read_after_the_loop_stays_beside_the_pointer() {
        let (rewrote, params, body) = stepped(Shape {
            read_after: true,
            ..Shape::default()
        });
        assert!(rewrote);
        assert_eq!(params, [types::I32, types::I32, types::I64]);
        assert!(!body.contains(&Opcode::Sextend) && !body.contains(&Opcode::Ishl));
        // With a scale of 4 (an x64 address's) the staying index keeps its address.
        let (rewrote, params, _) = stepped(Shape {
            read_after: true,
            narrow: true,
            ..Shape::default()
        });
        assert!(!rewrote);
        assert_eq!(params, [types::I32, types::I32]);
        // A dying index steps a pointer at any scale.
        assert!(
            stepped(Shape {
                narrow: true,
                ..Shape::default()
            })
            .0
        );
    }

    /// 2^31 elements of 64 bytes are 2^37 bytes: an object that large could hold both
    /// sides of a wrap.
    #[test]
    fn the_bound_on_objects_decides() {
        let with = |bound| {
            stepped(Shape {
                bound: Some(bound),
                ..Shape::default()
            })
            .0
        };
        assert!(with((1 << 37) - 1));
        assert!(!with(1 << 37));
        assert!(!with(0));
    }

    #[test]
    fn uncovered_loops_are_left_as_they_are() {
        for shape in [
            Shape {
                unsigned: true,
                ..Shape::default()
            },
            Shape {
                varying_step: true,
                ..Shape::default()
            },
            Shape {
                step_first: true,
                ..Shape::default()
            },
        ] {
            let (rewrote, params, body) = stepped(shape);
            assert!(!rewrote);
            assert_eq!(params, [types::I32, types::I32]);
            assert!(body.contains(&Opcode::Ishl));
        }
    }
}
