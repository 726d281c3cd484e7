//! Instruction scheduling inside a basic block, between Cranelift's mid-end and its
//! lowering.
//!
//! Cranelift's e-graph pass removes every pure instruction from the layout and puts it
//! back ("elaboration") depth first, just before its first use. A loop body whose only
//! use of its results is the jump back therefore comes out one dependency chain after
//! another: clpeak's `double16` multiply-add chains are 8 chains of 64 dependent `fma`s
//! per item, emitted chain by chain, so the CPU sees 64 instructions that each wait 4
//! cycles for the previous one and runs one `fma` where it could run two (its
//! out-of-order window holds about three chains of 128 instructions). x64 Cranelift does
//! not schedule, so this pass does: a list scheduler over the pure instructions between
//! two instructions with effects (loads, stores, calls, traps, branches stay where they
//! are, and so do the pure ones in relation to them), that issues the instruction whose
//! operands are ready first (an estimate of each opcode's latency), the one heading the
//! longest chain among equals, and the one elaboration placed first among those. A
//! register-pressure limit per register class keeps it from starting more chains than
//! x64's 16 vector registers hold: past the limit it prefers instructions that free as
//! many registers as they take. It changes no instruction, only their order, so results
//! are bit for bit those of the unscheduled code.

use std::collections::{BTreeSet, HashMap};
use std::sync::OnceLock;

use cranelift_codegen::ir::{Block, Function, Inst, Opcode, Value, ValueDef};

/// Whether `CLIFT_SCHEDULE` leaves scheduling on (anything but `0`).
pub(crate) fn enabled_by_environment() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| !std::env::var("CLIFT_SCHEDULE").is_ok_and(|v| v == "0"))
}

/// Blocks whose runs of pure instructions are shorter than this keep elaboration's order
/// (nothing to interleave; it saves the build the work).
const MIN_RUN: usize = 8;

/// Instructions the model issues per cycle (x64 cores issue 4–6; 2 is what two vector
/// ports give arithmetic, which is what the chains compete for).
const ISSUE_WIDTH: u32 = 2;

/// Live values of one register class the schedule keeps below: x64 has 16 vector
/// registers and 15 general ones, less what the lowering needs for temporaries.
const PRESSURE_LIMIT: [u32; 2] = [14, 11];

/// Ready instructions the scheduler compares at each step, the first in elaboration's
/// order: a block of many independent instructions (constants) costs the build a bounded
/// scan per instruction, not one over all of them.
const WINDOW: usize = 64;

/// Reorders the pure instructions of each block of `func` (see the module's comment);
/// `cfg` is its control-flow graph.
pub(crate) fn schedule(func: &mut Function) {
    let blocks: Vec<Block> = func.layout.blocks().collect();
    for block in blocks {
        let insts: Vec<Inst> = func.layout.block_insts(block).collect();
        let mut run = Vec::new();
        for inst in insts {
            if movable(func, inst) {
                run.push(inst);
                continue;
            }
            if run.len() >= MIN_RUN
                && let Some(order) = order_run(func, &run)
            {
                for &i in &order {
                    func.layout.remove_inst(i);
                    func.layout.insert_inst(i, inst);
                }
            }
            run.clear();
        }
        // A block ends with a branch or a return, which is not movable: no run is left.
    }
}

/// Whether `inst` may move among its neighbours: one result, no memory access, no effect
/// (Cranelift's own notion of a pure instruction, loads excluded).
pub(super) fn movable(func: &Function, inst: Inst) -> bool {
    let op = func.dfg.insts[inst].opcode();
    func.dfg.inst_results(inst).len() == 1
        && !(op.is_call()
            || op.is_branch()
            || op.is_terminator()
            || op.is_return()
            || op.can_trap()
            || op.other_side_effects()
            || op.can_store()
            || op.can_load())
}

/// The register class of a value: 0 for vector and float registers, 1 for general ones.
fn class(func: &Function, v: Value) -> usize {
    let ty = func.dfg.value_type(v);
    usize::from(!(ty.is_vector() || ty.is_float()))
}

/// Cycles from issue until the result can be used: x64 (Golden Cove, Zen 4) figures,
/// rounded; what matters is that multiplies and float arithmetic are long and the rest
/// short.
fn latency(func: &Function, inst: Inst) -> u32 {
    let ty = func.dfg.value_type(func.dfg.inst_results(inst)[0]);
    match func.dfg.insts[inst].opcode() {
        Opcode::Fadd | Opcode::Fsub | Opcode::Fmul | Opcode::Fma => 4,
        Opcode::Fdiv => 12,
        Opcode::Sqrt => 16,
        Opcode::Imul if ty.is_vector() => 10,
        Opcode::Imul | Opcode::Umulhi | Opcode::Smulhi => 3,
        Opcode::FcvtFromSint
        | Opcode::FcvtFromUint
        | Opcode::FcvtToSintSat
        | Opcode::FcvtToUintSat
        | Opcode::Fpromote
        | Opcode::Fdemote => 4,
        Opcode::Extractlane | Opcode::Insertlane | Opcode::Splat | Opcode::Shuffle => 2,
        _ => 1,
    }
}

/// One run's dependence graph and what the schedule tracks of it.
struct Run {
    /// Instructions of the run its operands come from (each once).
    preds: Vec<Vec<usize>>,
    succs: Vec<Vec<usize>>,
    latency: Vec<u32>,
    /// The longest latency path from an instruction to the end of the run.
    height: Vec<u32>,
    /// Each instruction's operand values: (the value's number in the run, class, uses by
    /// the instruction). Values are numbered densely in the run, so that the scheduler's
    /// inner loop, which weighs up to [`WINDOW`] candidates per instruction issued, indexes
    /// vectors instead of hashing.
    operands: Vec<Vec<(usize, usize, u32)>>,
    /// The class of each instruction's result, and the result's number.
    class: Vec<usize>,
    result: Vec<usize>,
    /// Uses inside the run of each value (by number).
    uses_in_run: Vec<u32>,
    /// The values the run defines and uses: each holds a register from its definition to
    /// its last use in the run. (Values from before the run, and those it leaves for later,
    /// wait in registers or on the stack whatever the order: one spill and one reload at
    /// most, where a chain kept waiting in registers would spill at every step.)
    dying: Vec<bool>,
}

/// The order in which to issue `run` (a block's pure instructions between two fixed ones,
/// in elaboration's order, which is a topological order); `None` where that order is kept.
fn order_run(func: &Function, run: &[Inst]) -> Option<Vec<Inst>> {
    let n = run.len();
    let index: HashMap<Inst, usize> = run.iter().enumerate().map(|(i, &inst)| (inst, i)).collect();
    // The run's results are numbered 0..n, the values from before it after them.
    let mut number: HashMap<Value, usize> = run
        .iter()
        .enumerate()
        .map(|(i, &inst)| (func.dfg.inst_results(inst)[0], i))
        .collect();
    let mut g = Run {
        preds: vec![Vec::new(); n],
        succs: vec![Vec::new(); n],
        latency: run.iter().map(|&i| latency(func, i)).collect(),
        height: vec![0; n],
        operands: vec![Vec::new(); n],
        class: run
            .iter()
            .map(|&i| class(func, func.dfg.inst_results(i)[0]))
            .collect(),
        result: (0..n).collect(),
        uses_in_run: vec![0; n],
        dying: Vec::new(),
    };
    for (i, &inst) in run.iter().enumerate() {
        for &arg in func.dfg.inst_args(inst) {
            let v = func.dfg.resolve_aliases(arg);
            let next = number.len();
            let k = *number.entry(v).or_insert(next);
            if k == g.uses_in_run.len() {
                g.uses_in_run.push(0);
            }
            g.uses_in_run[k] += 1;
            if let Some(op) = g.operands[i].iter_mut().find(|op| op.0 == k) {
                op.2 += 1;
                continue;
            }
            g.operands[i].push((k, class(func, v), 1));
            if let ValueDef::Result(def, _) = func.dfg.value_def(v)
                && let Some(&p) = index.get(&def)
            {
                g.preds[i].push(p);
                g.succs[p].push(i);
            }
        }
    }
    // A value of the run holds a register from its definition to its last use in the run.
    g.dying = (0..g.uses_in_run.len())
        .map(|k| k < n && g.uses_in_run[k] > 0)
        .collect();
    for i in (0..n).rev() {
        let below = g.succs[i].iter().map(|&s| g.height[s]).max().unwrap_or(0);
        g.height[i] = g.latency[i] + below;
    }
    let order = issue(&g);
    // Elaboration's order is kept where the schedule gains little: reordering lengthens
    // live ranges, which costs the register allocator time (the build) for nothing.
    let elaborated: Vec<usize> = (0..n).collect();
    if order == elaborated || 5 * cycles(&g, &order) > 4 * cycles(&g, &elaborated) {
        return None;
    }
    Some(order.into_iter().map(|i| run[i]).collect())
}

/// The cycles the model takes to issue `g`'s instructions in `order` and finish them.
fn cycles(g: &Run, order: &[usize]) -> u32 {
    let mut done = vec![0u32; order.len()];
    let (mut slots, mut end) = (0u32, 0u32);
    for &i in order {
        let ready = g.preds[i].iter().map(|&p| done[p]).max().unwrap_or(0);
        let start = ready.max(slots / ISSUE_WIDTH);
        slots = slots.max(start * ISSUE_WIDTH) + 1;
        done[i] = start + g.latency[i];
        end = end.max(done[i]);
    }
    end
}

/// The list scheduler proper: indices of `g`'s instructions in issue order.
fn issue(g: &Run) -> Vec<usize> {
    let n = g.preds.len();
    let mut waiting: Vec<usize> = g.preds.iter().map(Vec::len).collect();
    let mut ready_at = vec![0u32; n];
    // In elaboration's order: the choice looks at the first `WINDOW` only.
    let mut ready: BTreeSet<usize> = (0..n).filter(|&i| waiting[i] == 0).collect();
    // Uses still to come of each value; the live values of the run of each class.
    let mut left = g.uses_in_run.clone();
    let mut live = [0u32; 2];
    // The change in live registers of each class if `i` issued now.
    let delta = |i: usize, left: &[u32]| {
        let mut d = [0i32; 2];
        if g.dying[g.result[i]] {
            d[g.class[i]] += 1;
        }
        for &(v, c, own) in &g.operands[i] {
            if g.dying[v] && left[v] == own {
                d[c] -= 1;
            }
        }
        d
    };
    let mut order = Vec::with_capacity(n);
    let mut slots = 0u32;
    while !ready.is_empty() {
        let cycle = slots / ISSUE_WIDTH;
        let over = |d: [i32; 2]| {
            (0..2).any(|c| d[c] > 0 && live[c] as i32 + d[c] > PRESSURE_LIMIT[c] as i32)
        };
        // An instruction adds at most one live register: below the limits, none is over,
        // and the candidates' deltas need not be computed.
        let near_limit = (0..2).any(|c| live[c] >= PRESSURE_LIMIT[c]);
        let i = ready
            .iter()
            .take(WINDOW)
            .copied()
            .min_by_key(|&i| {
                (
                    near_limit && over(delta(i, &left)),
                    ready_at[i].max(cycle),
                    std::cmp::Reverse(g.height[i]),
                    i,
                )
            })
            .expect("ready is not empty");
        ready.remove(&i);
        let d = delta(i, &left);
        for c in 0..2 {
            live[c] = live[c].saturating_add_signed(d[c]);
        }
        for &(v, _, own) in &g.operands[i] {
            left[v] -= own;
        }
        let start = ready_at[i].max(cycle);
        slots = slots.max(start * ISSUE_WIDTH) + 1;
        for &s in &g.succs[i] {
            ready_at[s] = ready_at[s].max(start + g.latency[i]);
            waiting[s] -= 1;
            if waiting[s] == 0 {
                ready.insert(s);
            }
        }
        order.push(i);
    }
    debug_assert_eq!(order.len(), n, "a run's dependences form no cycle");
    order
}

#[cfg(test)]
mod tests {
    use cranelift_codegen::ir::{AbiParam, Function, InstBuilder, Signature, Value, types};
    use cranelift_codegen::isa::CallConv;
    use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};

    /// A function of `params` f64x2 parameters whose body `body` builds (returning what
    /// it returns), and the results' values in the scheduled order.
    fn scheduled(
        params: usize,
        body: impl FnOnce(&mut FunctionBuilder, &[Value]) -> Vec<Value>,
    ) -> (Vec<Value>, Vec<Value>) {
        let mut sig = Signature::new(CallConv::SystemV);
        sig.params = vec![AbiParam::new(types::F64X2); params];
        let mut func = Function::with_name_signature(Default::default(), sig);
        let mut fctx = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut func, &mut fctx);
        let block = b.create_block();
        b.append_block_params_for_function_params(block);
        b.switch_to_block(block);
        let p = b.block_params(block).to_vec();
        let results = body(&mut b, &p);
        b.ins().return_(&results);
        b.seal_all_blocks();
        b.finalize(crate::jit::host_isa().unwrap().frontend_config());
        super::schedule(&mut func);
        let block = func.layout.entry_block().unwrap();
        let order = func
            .layout
            .block_insts(block)
            .filter(|&i| super::movable(&func, i))
            .map(|i| func.dfg.inst_results(i)[0])
            .collect();
        (order, results)
    }

    #[test]
    fn two_dependent_chains_written_one_after_the_other_are_interleaved() {
        let mut chains = Vec::new();
        let (order, _) = scheduled(2, |b, p| {
            let mut ends = Vec::new();
            for &x in p {
                let mut v = x;
                let mut chain = Vec::new();
                for _ in 0..4 {
                    v = b.ins().fma(v, x, x);
                    chain.push(v);
                }
                ends.push(v);
                chains.push(chain);
            }
            ends
        });
        let (a, c) = (&chains[0], &chains[1]);
        assert_eq!(order, vec![a[0], c[0], a[1], c[1], a[2], c[2], a[3], c[3]]);
    }

    #[test]
    fn an_order_the_schedule_does_not_beat_by_a_fifth_is_kept() {
        // 30 independent multiplies, then a chain of two: the schedule would start the
        // chain first (19 cycles against 23), too little to pay for the longer ranges.
        let mut written = Vec::new();
        let (order, _) = scheduled(31, |b, p| {
            for &x in &p[..30] {
                written.push(b.ins().fmul(x, x));
            }
            let c = b.ins().fmul(p[30], p[30]);
            written.push(c);
            written.push(b.ins().fmul(c, c));
            written.clone()
        });
        assert_eq!(order, written);
    }

    #[test]
    fn past_the_register_limit_started_chains_finish_before_new_ones_start() {
        // 16 chains of two multiplies, each square held until its second multiply: the
        // schedule starts 14 (the vector limit), then ends one chain per chain it starts.
        let mut firsts = Vec::new();
        let mut seconds = Vec::new();
        let (order, _) = scheduled(16, |b, p| {
            // Chain by chain, as elaboration leaves them.
            for &x in p {
                let t = b.ins().fmul(x, x);
                firsts.push(t);
                seconds.push(b.ins().fmul(t, t));
            }
            seconds.clone()
        });
        let mut want = firsts[..14].to_vec();
        want.extend([seconds[0], firsts[14], seconds[1], firsts[15]]);
        want.extend(&seconds[2..]);
        assert_eq!(order, want);
    }
}
