//! The half ⇄ float moves of `half` values (cl_khr_fp16), emitted in line.
//!
//! A half value lives in an f32; every load, store, `as_*` and arithmetic result goes
//! through one of three helpers of `clift_builtins::half`: `clift_half_bits_to_f32`,
//! `clift_f32_to_half_bits` and `clift_f32_round_half`. As calls they cost more than the
//! arithmetic they surround (a call per element and operand, and every live float register
//! saved around it): the CTS's `multiply half` spent two thirds of its time in them. Here
//! they are a few integer instructions and one float add, branch-free, with the helpers'
//! exact results (the helpers stay the reference: `compiler/tests/run_numerics.rs` compares
//! every half and a sweep of products and quotients):
//!
//! - half bits → f32 moves the exponent and fraction into place and rebiases; a denormal
//!   half is made exact by one float subtraction, an infinity or NaN keeps its fraction
//!   bits (a signalling NaN stays signalling).
//! - f32 → half bits rounds to nearest even by adding `0xfff` plus the kept fraction's lowest
//!   bit below the cut; results below half's normal range are rounded by the float unit
//!   itself (adding 0.5, whose unit in the last place is half's smallest denormal); a NaN
//!   keeps its sign and leading fraction bits, or becomes the quiet NaN if those are all 0.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{InstBuilder, MemFlagsData, Value, types};
use cranelift_frontend::FunctionBuilder;

/// f32 bits of 2^-14, the smallest normal half.
const MIN_NORMAL_F32: u32 = 0x3880_0000;
/// f32 bits of 65536, the first value whose exponent half cannot hold.
const TOO_LARGE_F32: u32 = 0x4780_0000;
/// f32 bits of 0.5: its unit in the last place is 2^-24, half's smallest denormal.
const DENORMAL_MAGIC_F32: u32 = 0x3f00_0000;

/// The helper `name` applied to `args` in line, if it is one of the three half moves and
/// its argument is a scalar; `None` otherwise (the caller calls the helper).
pub fn in_line(b: &mut FunctionBuilder, name: &str, args: &[Value]) -> Option<Value> {
    let [x] = args else {
        return None;
    };
    let ty = b.func.dfg.value_type(*x);
    match (name, ty) {
        ("clift_half_bits_to_f32", types::I16) => Some(bits_to_f32(b, *x)),
        ("clift_f32_to_half_bits", types::F32) => Some(f32_to_bits(b, *x)),
        ("clift_f32_round_half", types::F32) => {
            let bits = f32_to_bits(b, *x);
            Some(bits_to_f32(b, bits))
        }
        _ => None,
    }
}

/// The f32 holding the half whose bits are `bits` (i16): `clift_half_bits_to_f32`.
fn bits_to_f32(b: &mut FunctionBuilder, bits: Value) -> Value {
    let h = b.ins().uextend(types::I32, bits);
    let magnitude = b.ins().band_imm_s(h, 0x7fff);
    let shifted = b.ins().ishl_imm_s(magnitude, 13);
    let exponent = b.ins().band_imm_s(shifted, 0x0f80_0000);
    // Rebias from 15 to 127: right for normal halves.
    let normal = b.ins().iadd_imm_s(shifted, (127 - 15) << 23);
    // Infinities and NaNs: the exponent field all ones in float too.
    let special = b.ins().iadd_imm_s(normal, (128 - 16) << 23);
    // Zero and denormals: 2^-14 · (1 + f/1024) - 2^-14, exact.
    let biased = b.ins().iadd_imm_s(normal, 1 << 23);
    let as_float = b.ins().bitcast(types::F32, MemFlagsData::new(), biased);
    let min_normal = b.ins().f32const(f32::from_bits(MIN_NORMAL_F32));
    let denormal = b.ins().fsub(as_float, min_normal);
    let denormal = b.ins().bitcast(types::I32, MemFlagsData::new(), denormal);
    let is_special = b.ins().icmp_imm_s(IntCC::Equal, exponent, 0x0f80_0000);
    let is_denormal = b.ins().icmp_imm_s(IntCC::Equal, exponent, 0);
    let r = b.ins().select(is_denormal, denormal, normal);
    let r = b.ins().select(is_special, special, r);
    let sign = b.ins().band_imm_s(h, 0x8000);
    let sign = b.ins().ishl_imm_s(sign, 16);
    let r = b.ins().bor(r, sign);
    b.ins().bitcast(types::F32, MemFlagsData::new(), r)
}

/// The half bits (i16) of `x` rounded to nearest even, NaNs kept: `clift_f32_to_half_bits`.
fn f32_to_bits(b: &mut FunctionBuilder, x: Value) -> Value {
    let u = b.ins().bitcast(types::I32, MemFlagsData::new(), x);
    let abs = b.ins().band_imm_s(u, 0x7fff_ffff);
    // Normal halves: rebias, add just under half a unit plus the lowest kept bit (ties to
    // even), shift; a carry out of the fraction moves into the exponent (up to infinity).
    let odd = b.ins().ushr_imm_s(abs, 13);
    let odd = b.ins().band_imm_s(odd, 1);
    let rounded = b.ins().iadd_imm_s(abs, (((15 - 127) << 23) + 0xfff) as i64);
    let rounded = b.ins().iadd(rounded, odd);
    let normal = b.ins().ushr_imm_s(rounded, 13);
    // Below 2^-14: the float add rounds to a multiple of 2^-24, to nearest even.
    let abs_float = b.ins().bitcast(types::F32, MemFlagsData::new(), abs);
    let magic = b.ins().f32const(f32::from_bits(DENORMAL_MAGIC_F32));
    let sum = b.ins().fadd(abs_float, magic);
    let sum = b.ins().bitcast(types::I32, MemFlagsData::new(), sum);
    let denormal = b.ins().iadd_imm_s(sum, -i64::from(DENORMAL_MAGIC_F32));
    // Infinity, or a NaN with its leading fraction bits (the quiet NaN if they are 0).
    let fraction = b.ins().ushr_imm_s(abs, 13);
    let fraction = b.ins().band_imm_s(fraction, 0x3ff);
    let no_fraction = b.ins().icmp_imm_s(IntCC::Equal, fraction, 0);
    let quiet = b.ins().iconst(types::I32, 0x200);
    let fraction = b.ins().select(no_fraction, quiet, fraction);
    let nan = b.ins().bor_imm_s(fraction, 0x7c00);
    let infinity = b.ins().iconst(types::I32, 0x7c00);
    let is_nan = b
        .ins()
        .icmp_imm_u(IntCC::UnsignedGreaterThan, abs, 0x7f80_0000);
    let special = b.ins().select(is_nan, nan, infinity);
    let is_tiny = b
        .ins()
        .icmp_imm_u(IntCC::UnsignedLessThan, abs, i64::from(MIN_NORMAL_F32));
    let is_large = b.ins().icmp_imm_u(
        IntCC::UnsignedGreaterThanOrEqual,
        abs,
        i64::from(TOO_LARGE_F32),
    );
    let r = b.ins().select(is_tiny, denormal, normal);
    let r = b.ins().select(is_large, special, r);
    let sign = b.ins().ushr_imm_s(u, 16);
    let sign = b.ins().band_imm_s(sign, 0x8000);
    let r = b.ins().bor(r, sign);
    b.ins().ireduce(types::I16, r)
}
