//! Lane-wise arithmetic: the OpenCL C meaning of each operator on one lane, in Cranelift
//! instructions (integer division that cannot trap, shifts modulo the width, comparisons
//! as 1/0 or -1/0, C's conversions).

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{self, InstBuilder, Value, types};
use cranelift_frontend::FunctionBuilder;

use crate::frontend::tir::BinaryOp;
use crate::frontend::types::{Scalar, Type};

/// The Cranelift type of a scalar (`bool` is a byte holding 0 or 1).
pub fn clif_type(s: Scalar) -> ir::Type {
    match s {
        Scalar::Bool | Scalar::Char | Scalar::UChar => types::I8,
        Scalar::Short | Scalar::UShort => types::I16,
        Scalar::Int | Scalar::UInt => types::I32,
        Scalar::Long | Scalar::ULong => types::I64,
        // `half` values (cl_khr_fp16) are held as the f32 of the same value, rounded to
        // half after every operation; in memory they are 16 bits (see `Lower::load`).
        Scalar::Half => types::F32,
        Scalar::Float => types::F32,
        Scalar::Double => types::F64,
    }
}

/// The Cranelift type of each lane of a value of `ty` held in registers, and how many.
pub fn lane_types(ty: &Type) -> Option<(ir::Type, usize)> {
    match ty {
        Type::Scalar(s) | Type::Enum(_, s) => Some((clif_type(*s), 1)),
        Type::Vector(s, n) => Some((clif_type(*s), usize::from(*n))),
        Type::Pointer(_) | Type::Event | Type::Image(_) => Some((types::I64, 1)),
        Type::Sampler => Some((types::I32, 1)),
        _ => None,
    }
}

/// `a / b` or `a % b` that never traps: division by zero gives 0-ish garbage as the spec
/// allows ("the result is unspecified") and `MIN / -1` wraps, instead of Cranelift's traps.
pub fn safe_div(b: &mut FunctionBuilder, a: Value, d: Value, signed: bool, rem: bool) -> Value {
    let ty = b.func.dfg.value_type(d);
    let zero = b.ins().iconst(ty, 0);
    let one = b.ins().iconst(ty, 1);
    let is_zero = b.ins().icmp(IntCC::Equal, d, zero);
    let mut divisor = b.ins().select(is_zero, one, d);
    if signed {
        // MIN / -1 overflows: divide by 1 instead and negate (wrapping), remainder 0.
        let minus_one = b.ins().iconst(ty, -1);
        let is_minus_one = b.ins().icmp(IntCC::Equal, divisor, minus_one);
        divisor = b.ins().select(is_minus_one, one, divisor);
        let q = if rem {
            b.ins().srem(a, divisor)
        } else {
            b.ins().sdiv(a, divisor)
        };
        let fixed = if rem { zero } else { b.ins().ineg(a) };
        return b.ins().select(is_minus_one, fixed, q);
    }
    if rem {
        b.ins().urem(a, divisor)
    } else {
        b.ins().udiv(a, divisor)
    }
}

/// The result lane of a comparison: 1/0 for scalars (`int`), all ones/0 for vector lanes
/// (`result` is the mask element's Cranelift type).
pub fn mask(b: &mut FunctionBuilder, cond: Value, result: ir::Type, vector: bool) -> Value {
    let wide = uextend_to(b, result, cond);
    if vector { b.ins().ineg(wide) } else { wide }
}

/// `v` zero-extended to `to` (or `v` itself when it already has that width).
pub fn uextend_to(b: &mut FunctionBuilder, to: ir::Type, v: Value) -> Value {
    if b.func.dfg.value_type(v) == to {
        v
    } else {
        b.ins().uextend(to, v)
    }
}

/// One lane of a binary operator on operands of element type `s`.
pub fn binary_lane(
    b: &mut FunctionBuilder,
    op: BinaryOp,
    s: Scalar,
    x: Value,
    y: Value,
    result: ir::Type,
    vector: bool,
) -> Value {
    use BinaryOp::*;
    if s.is_float() {
        let cc = match op {
            Add => return b.ins().fadd(x, y),
            Sub => return b.ins().fsub(x, y),
            Mul => return b.ins().fmul(x, y),
            Div => return b.ins().fdiv(x, y),
            Lt => FloatCC::LessThan,
            Gt => FloatCC::GreaterThan,
            Le => FloatCC::LessThanOrEqual,
            Ge => FloatCC::GreaterThanOrEqual,
            Eq => FloatCC::Equal,
            // NaN != anything is true.
            Ne => FloatCC::NotEqual,
            VectorAnd | VectorOr => {
                let zero = if s == Scalar::Double {
                    b.ins().f64const(0.0)
                } else {
                    b.ins().f32const(0.0)
                };
                let a = b.ins().fcmp(FloatCC::NotEqual, x, zero);
                let c = b.ins().fcmp(FloatCC::NotEqual, y, zero);
                let both = if op == VectorAnd {
                    b.ins().band(a, c)
                } else {
                    b.ins().bor(a, c)
                };
                return mask(b, both, result, vector);
            }
            _ => return x,
        };
        let c = b.ins().fcmp(cc, x, y);
        return mask(b, c, result, vector);
    }
    let signed = s.is_signed();
    let bits = i64::from(s.bits());
    let cc = match op {
        Add => return b.ins().iadd(x, y),
        Sub => return b.ins().isub(x, y),
        Mul => return b.ins().imul(x, y),
        Div => return safe_div(b, x, y, signed, false),
        Rem => return safe_div(b, x, y, signed, true),
        Shl | Shr => {
            // "the shift count is taken modulo the bit width of the left operand" (6.3.j).
            let count = b.ins().band_imm_s(y, bits - 1);
            return match (op, signed) {
                (Shl, _) => b.ins().ishl(x, count),
                (_, true) => b.ins().sshr(x, count),
                _ => b.ins().ushr(x, count),
            };
        }
        BitAnd => return b.ins().band(x, y),
        BitOr => return b.ins().bor(x, y),
        BitXor => return b.ins().bxor(x, y),
        Lt => {
            if signed {
                IntCC::SignedLessThan
            } else {
                IntCC::UnsignedLessThan
            }
        }
        Gt => {
            if signed {
                IntCC::SignedGreaterThan
            } else {
                IntCC::UnsignedGreaterThan
            }
        }
        Le => {
            if signed {
                IntCC::SignedLessThanOrEqual
            } else {
                IntCC::UnsignedLessThanOrEqual
            }
        }
        Ge => {
            if signed {
                IntCC::SignedGreaterThanOrEqual
            } else {
                IntCC::UnsignedGreaterThanOrEqual
            }
        }
        Eq => IntCC::Equal,
        Ne => IntCC::NotEqual,
        VectorAnd | VectorOr => {
            let a = b.ins().icmp_imm_s(IntCC::NotEqual, x, 0);
            let c = b.ins().icmp_imm_s(IntCC::NotEqual, y, 0);
            let both = if op == VectorAnd {
                b.ins().band(a, c)
            } else {
                b.ins().bor(a, c)
            };
            return mask(b, both, result, vector);
        }
    };
    let c = b.ins().icmp(cc, x, y);
    mask(b, c, result, vector)
}

/// Converts one lane between scalar types with C's rules: integers wrap (truncate or
/// extend by the source's signedness), float to integer truncates toward zero and
/// saturates (NaN gives 0, the definition clift gives to the unspecified out-of-range
/// case), integer to float rounds to nearest even, `bool` gets 0/1.
pub fn convert_lane(b: &mut FunctionBuilder, v: Value, from: Scalar, to: Scalar) -> Value {
    let (ft, tt) = (clif_type(from), clif_type(to));
    if to == Scalar::Bool {
        let c = if from.is_float() {
            let zero = if from == Scalar::Double {
                b.ins().f64const(0.0)
            } else {
                b.ins().f32const(0.0)
            };
            b.ins().fcmp(FloatCC::NotEqual, v, zero)
        } else {
            b.ins().icmp_imm_s(IntCC::NotEqual, v, 0)
        };
        return c;
    }
    match (from.is_float(), to.is_float()) {
        (false, false) => {
            if ft == tt {
                v
            } else if ft.bits() > tt.bits() {
                b.ins().ireduce(tt, v)
            } else if from.is_signed() && from != Scalar::Bool {
                b.ins().sextend(tt, v)
            } else {
                b.ins().uextend(tt, v)
            }
        }
        (true, true) => match ft.bits().cmp(&tt.bits()) {
            std::cmp::Ordering::Less => b.ins().fpromote(tt, v),
            std::cmp::Ordering::Greater => b.ins().fdemote(tt, v),
            std::cmp::Ordering::Equal => v,
        },
        (false, true) => {
            // Narrow integers are widened first (Cranelift converts from 32/64-bit only).
            let wide = if ft.bits() < 32 {
                if from.is_signed() {
                    b.ins().sextend(types::I32, v)
                } else {
                    b.ins().uextend(types::I32, v)
                }
            } else {
                v
            };
            if from.is_signed() {
                b.ins().fcvt_from_sint(tt, wide)
            } else {
                b.ins().fcvt_from_uint(tt, wide)
            }
        }
        (true, false) => {
            // Saturating conversion to at least 32 bits, then clamp to the narrow range.
            let wide_ty = if tt.bits() < 32 { types::I32 } else { tt };
            let w = if to.is_signed() {
                b.ins().fcvt_to_sint_sat(wide_ty, v)
            } else {
                b.ins().fcvt_to_uint_sat(wide_ty, v)
            };
            if wide_ty == tt {
                return w;
            }
            let (lo, hi) = if to.is_signed() {
                (-(1i64 << (tt.bits() - 1)), (1i64 << (tt.bits() - 1)) - 1)
            } else {
                (0, (1i64 << tt.bits()) - 1)
            };
            let (lo, hi) = (
                b.ins().iconst(types::I32, lo),
                b.ins().iconst(types::I32, hi),
            );
            let clamped = if to.is_signed() {
                let m = b.ins().smax(w, lo);
                b.ins().smin(m, hi)
            } else {
                b.ins().umin(w, hi)
            };
            b.ins().ireduce(tt, clamped)
        }
    }
}

/// Integer saturation of one lane to `to`'s range (`convert_T_sat` between integers).
pub fn saturate_int(b: &mut FunctionBuilder, v: Value, from: Scalar, to: Scalar) -> Value {
    // Work in 64 bits: extend, clamp, truncate.
    let wide = if from.bits() == 64 {
        v
    } else if from.is_signed() {
        b.ins().sextend(types::I64, v)
    } else {
        b.ins().uextend(types::I64, v)
    };
    let (lo, hi): (i128, i128) = if to.is_signed() {
        (-(1i128 << (to.bits() - 1)), (1i128 << (to.bits() - 1)) - 1)
    } else {
        (0, (1i128 << to.bits()) - 1)
    };
    let clamped = match (from.is_signed(), from.bits() == 64 && !from.is_signed()) {
        (true, _) => {
            let lo_v = b
                .ins()
                .iconst(types::I64, lo.max(i128::from(i64::MIN)) as i64);
            let hi_v = b
                .ins()
                .iconst(types::I64, hi.min(i128::from(i64::MAX)) as i64);
            let m = b.ins().smax(wide, lo_v);
            b.ins().smin(m, hi_v)
        }
        _ => {
            // Unsigned source: only the upper bound matters.
            let hi_v = b
                .ins()
                .iconst(types::I64, hi.min(i128::from(u64::MAX)) as u64 as i64);
            b.ins().umin(wide, hi_v)
        }
    };
    let tt = clif_type(to);
    if tt == types::I64 {
        clamped
    } else {
        b.ins().ireduce(tt, clamped)
    }
}
