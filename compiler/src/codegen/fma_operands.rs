//! Orders each `fma`'s two factors so that x64 can write the result over a factor that
//! dies there, instead of copying a live one first.
//!
//! x64's `vfmadd213` overwrites its first operand, and Cranelift's lowering ties that
//! operand to `fma`'s first factor. clpeak's multiply-add chains (`x = mad(y, x, y); y =
//! mad(x, y, x);`, fused under `-cl-mad-enable`) put the live value first: `y` is also
//! the addend and the next `mad`'s factor, while `x` dies in this one. So every `fma` came
//! out as a `movdqa` of `y` and a `vfmadd213pd` on the copy: twice the instructions, and
//! on `double16` (8 `f64x2` chains of `x` and `y`, all 16 vector registers) the copies
//! needed registers that were not there, so values went to the stack inside the loop.
//! With the factors swapped where the second dies and the first lives on, each `fma` is
//! one `vfmadd213pd` in place. Only in blocks whose vector values fit x64's 16 registers
//! ([`VECTOR_REGISTERS`]).
//!
//! The product of two factors is the same either way round, and `fma` rounds once, so the
//! value is the same bit for bit. Only which NaN's payload comes out when both factors
//! are NaNs can change (x86 returns its first operand's); OpenCL leaves payloads open.

use cranelift_codegen::entity::SecondaryMap;
use cranelift_codegen::ir::{Block, Function, Inst, InstructionData, Opcode, Value, ValueDef};

/// Swaps the factors of each `fma` of `func` whose second factor dies there while its first
/// lives on (see the module's comment); how many it swapped.
pub(crate) fn order_factors(func: &mut Function) -> usize {
    let is_fma = |func: &Function, inst: Inst| func.dfg.insts[inst].opcode() == Opcode::Fma;
    let has_fma = |func: &Function, block: Block| {
        func.layout
            .block_insts(block)
            .any(|inst| is_fma(func, inst))
    };
    // Most functions have none: they cost one look at each instruction.
    if !func.layout.blocks().any(|block| has_fma(func, block)) {
        return 0;
    }
    let outside = used_outside_their_block(func);
    let mut last: SecondaryMap<Value, Option<Inst>> = SecondaryMap::new();
    let mut swaps = Vec::new();
    for block in func.layout.blocks() {
        // The last use in this block of each value it uses.
        for inst in func.layout.block_insts(block) {
            for_each_use(func, inst, &mut |v| last[v] = Some(inst));
        }
        if !has_fma(func, block)
            || most_live_vectors(func, block, &last, &outside) > VECTOR_REGISTERS
        {
            continue;
        }
        let loops_back = successors_all(func, block);
        let dies_at = |v: Value, inst: Inst| {
            last[v] == Some(inst)
                && match def_block(func, v) {
                    // Defined here: dead after this block unless used in another.
                    Some(d) if d == block => !outside[v],
                    // Defined in the one block this one goes on to (a loop's header, for
                    // its body): that block defines it anew before any later use.
                    d => d.is_some() && loops_back == d,
                }
        };
        for inst in func.layout.block_insts(block) {
            let InstructionData::Ternary {
                opcode: Opcode::Fma,
                args,
            } = func.dfg.insts[inst]
            else {
                continue;
            };
            let first = func.dfg.resolve_aliases(args[0]);
            let second = func.dfg.resolve_aliases(args[1]);
            if first != second && dies_at(second, inst) && !dies_at(first, inst) {
                swaps.push(inst);
            }
        }
    }
    for &inst in &swaps {
        if let InstructionData::Ternary { args, .. } = &mut func.dfg.insts[inst] {
            args.swap(0, 1);
        }
    }
    swaps.len()
}

/// x64's vector registers. A block whose vector values need more is left as it is: there
/// the register allocator spills anyway, and with the factors swapped it spilled ten times
/// as much (clpeak's `float16` chains in the vectorized row, 32 `f32x4` values: 188 stack
/// accesses per iteration with Cranelift's order, 2,012 swapped).
const VECTOR_REGISTERS: usize = 16;

/// The most vector values live at once in `block`, given the last use of each value up to
/// the end of `block` (`last`) and which values are used outside the block that defines
/// them: a value defined in the block is live from its definition, any other from the
/// block's start; each until its last use in the block (where the result may take its
/// register), or to the block's end if it is used in another block.
fn most_live_vectors(
    func: &Function,
    block: Block,
    last: &SecondaryMap<Value, Option<Inst>>,
    outside: &SecondaryMap<Value, bool>,
) -> usize {
    let insts: Vec<Inst> = func.layout.block_insts(block).collect();
    // +1 where a value starts to live, -1 where it is used for the last time.
    let mut change = vec![0i32; insts.len() + 1];
    let mut position: SecondaryMap<Inst, usize> = SecondaryMap::new();
    for (i, &inst) in insts.iter().enumerate() {
        position[inst] = i;
    }
    let mut seen: SecondaryMap<Value, bool> = SecondaryMap::new();
    let mut count = |v: Value, change: &mut Vec<i32>| {
        if seen[v] || !func.dfg.value_type(v).is_vector() {
            return;
        }
        seen[v] = true;
        let defined_here = def_block(func, v) == Some(block);
        let start = match func.dfg.value_def(v) {
            ValueDef::Result(inst, _) if defined_here => position[inst],
            _ => 0,
        };
        let end = match last[v] {
            _ if defined_here && outside[v] => insts.len(),
            Some(inst) if func.layout.inst_block(inst) == Some(block) => position[inst],
            _ => start + 1,
        };
        change[start] += 1;
        change[end.min(insts.len())] -= 1;
    };
    for &inst in &insts {
        for_each_use(func, inst, &mut |v| count(v, &mut change));
        for &r in func.dfg.inst_results(inst) {
            count(r, &mut change);
        }
    }
    let mut live = 0;
    let mut most = 0;
    for c in change {
        live += c;
        most = most.max(live);
    }
    most.max(0) as usize
}

/// Calls `f` with each value `inst` uses (arguments and branch arguments, aliases
/// resolved).
fn for_each_use(func: &Function, inst: Inst, f: &mut dyn FnMut(Value)) {
    for &v in func.dfg.inst_args(inst) {
        f(func.dfg.resolve_aliases(v));
    }
    for call in
        func.dfg.insts[inst].branch_destination(&func.dfg.jump_tables, &func.dfg.exception_tables)
    {
        for arg in call.args(&func.dfg.value_lists) {
            if let Some(v) = arg.as_value() {
                f(func.dfg.resolve_aliases(v));
            }
        }
    }
}

/// Whether each value is used in a block other than the one that defines it.
fn used_outside_their_block(func: &Function) -> SecondaryMap<Value, bool> {
    let mut outside = SecondaryMap::new();
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
            for_each_use(func, inst, &mut |v| {
                if def_block(func, v) != Some(block) {
                    outside[v] = true;
                }
            });
        }
    }
    outside
}

/// The one block every branch out of `block` goes to, if there is one.
fn successors_all(func: &Function, block: Block) -> Option<Block> {
    let last = func.layout.last_inst(block)?;
    let mut targets = func.dfg.insts[last]
        .branch_destination(&func.dfg.jump_tables, &func.dfg.exception_tables)
        .iter()
        .map(|call| call.block(&func.dfg.value_lists));
    let first = targets.next()?;
    targets.all(|t| t == first).then_some(first)
}

/// The block that defines `value` (as an instruction's result or as a parameter).
fn def_block(func: &Function, value: Value) -> Option<Block> {
    match func.dfg.value_def(value) {
        ValueDef::Result(inst, _) => func.layout.inst_block(inst),
        ValueDef::Param(block, _) => Some(block),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use cranelift_codegen::ir::{AbiParam, Block, Function, InstBuilder, Signature, Value, types};
    use cranelift_codegen::isa::CallConv;
    use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};

    /// A function of two `f64x2` values `x` and `y` whose one block `body` fills (returning
    /// what it returns), after [`super::order_factors`]: how many it swapped, and each
    /// `fma`'s arguments as indices (0 and 1 are `x` and `y`, then the `fma`s' results in
    /// order).
    fn ordered(
        body: impl FnOnce(&mut FunctionBuilder, Value, Value) -> Value,
    ) -> (usize, Vec<[usize; 3]>) {
        let mut func = built(|b, entry| {
            let (x, y) = (b.block_params(entry)[0], b.block_params(entry)[1]);
            let result = body(b, x, y);
            b.ins().return_(&[result]);
        });
        let entry = func.layout.entry_block().expect("an entry block");
        let (x, y) = (
            func.dfg.block_params(entry)[0],
            func.dfg.block_params(entry)[1],
        );
        let swapped = super::order_factors(&mut func);
        let mut names = vec![x, y];
        let mut fmas = Vec::new();
        for inst in func.layout.block_insts(entry) {
            if func.dfg.insts[inst].opcode() == cranelift_codegen::ir::Opcode::Fma {
                let index = |v: &Value| names.iter().position(|n| n == v).unwrap();
                let args = func.dfg.inst_args(inst);
                fmas.push([index(&args[0]), index(&args[1]), index(&args[2])]);
                names.push(func.dfg.first_result(inst));
            }
        }
        (swapped, fmas)
    }

    /// clpeak's chain `x = mad(y, x, y); y = mad(x, y, x); x = mad(y, x, y)`: in each, the
    /// second factor is the value the `mad` replaces, used there for the last time.
    #[test]
    fn a_multiply_add_chain_puts_the_dying_factor_first() {
        let (swapped, fmas) = ordered(|b, x, y| {
            let x1 = b.ins().fma(y, x, y);
            let y1 = b.ins().fma(x1, y, x1);
            let x2 = b.ins().fma(y1, x1, y1);
            b.ins().fadd(x2, y1)
        });
        // `x` and `y` are the block's parameters: `x` dies in the first `fma`, `y` in the
        // second; `x1` (2) in the third. 3 is `y1`, used again by the `fadd`.
        assert_eq!((swapped, fmas), (3, vec![[0, 1, 1], [1, 2, 2], [2, 3, 3]]));
    }

    #[test]
    fn factors_that_both_live_on_or_both_die_keep_their_order() {
        let (swapped, fmas) = ordered(|b, x, y| {
            // `x` and `y` both used again below.
            let p = b.ins().fma(x, y, x);
            // `p` dies, `y` lives on: swapped.
            let q = b.ins().fma(y, p, y);
            // `x` and `q` both die here.
            let r = b.ins().fma(x, q, q);
            // The same factor twice.
            b.ins().fma(r, r, y)
        });
        // x, y, p, q, r are 0 to 4.
        assert_eq!(
            (swapped, fmas),
            (1, vec![[0, 1, 0], [2, 1, 1], [0, 3, 3], [4, 4, 1]])
        );
    }

    /// `x = mad(y, x, y)` while `extra` other vector values are live: swapped only while
    /// all fit the 16 vector registers.
    fn swaps_beside(extra: usize) -> usize {
        ordered(|b, x, y| {
            let others: Vec<Value> = (0..extra).map(|_| b.ins().fadd(x, y)).collect();
            let x1 = b.ins().fma(y, x, y);
            let y1 = b.ins().fadd(x1, y);
            others.into_iter().fold(y1, |acc, v| b.ins().fadd(acc, v))
        })
        .0
    }

    #[test]
    fn a_block_short_of_vector_registers_keeps_its_order() {
        // `x`, `y` and 14 others: 16 live where `x` dies.
        assert_eq!((swaps_beside(14), swaps_beside(15)), (1, 0));
    }

    /// A loop whose header holds `x` and `y` and whose body steps them by `x = mad(y, x, y);
    /// y = mad(x, y, x)`, then jumps back to the header (`back`) or on to another block;
    /// `order_factors` on it: how many it swapped.
    fn loop_swaps(back: bool) -> usize {
        let mut func = built(|b, entry| {
            let [header, body, other, exit] = [(); 4].map(|_| b.create_block());
            let params = b.block_params(entry).to_vec();
            let args: Vec<_> = params.iter().map(|&v| v.into()).collect();
            b.ins().jump(header, &args);
            b.switch_to_block(header);
            let x = b.append_block_param(header, types::F64X2);
            let y = b.append_block_param(header, types::F64X2);
            let lane = b.ins().extractlane(x, 0);
            let zero = b.ins().f64const(0.0);
            let more = b.ins().fcmp(
                cranelift_codegen::ir::condcodes::FloatCC::LessThan,
                lane,
                zero,
            );
            b.ins().brif(more, body, &[], exit, &[]);
            b.switch_to_block(body);
            let x1 = b.ins().fma(y, x, y);
            let y1 = b.ins().fma(x1, y, x1);
            let target = if back { header } else { other };
            b.ins().jump(target, &[x1.into(), y1.into()]);
            b.switch_to_block(other);
            b.append_block_param(other, types::F64X2);
            let o = b.append_block_param(other, types::F64X2);
            b.ins().return_(&[o]);
            b.switch_to_block(exit);
            b.ins().return_(&[y]);
        });
        super::order_factors(&mut func)
    }

    /// A function of two `f64x2` parameters returning an `f64x2`, whose entry block (with
    /// the parameters) and any others `fill` builds.
    fn built(fill: impl FnOnce(&mut FunctionBuilder, Block)) -> Function {
        let mut sig = Signature::new(CallConv::SystemV);
        sig.params = vec![AbiParam::new(types::F64X2); 2];
        sig.returns = vec![AbiParam::new(types::F64X2)];
        let mut func = Function::with_name_signature(Default::default(), sig);
        let mut fctx = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut func, &mut fctx);
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        fill(&mut b, entry);
        b.seal_all_blocks();
        b.finalize(crate::jit::host_isa().unwrap().frontend_config());
        func
    }

    /// The header's `x` and `y` die in the body when the body goes back to the header
    /// (which defines them anew), though `y` is also read after the loop.
    #[test]
    fn a_loop_bodys_values_from_its_header_die_in_the_body() {
        assert_eq!(loop_swaps(true), 2);
        // Going elsewhere, the header's values may still be read: nothing swaps.
        assert_eq!(loop_swaps(false), 0);
    }
}
