//! The operations on vector values in registers ([`super::packed`]): operators, `select`,
//! conversions and the builtins with vector instructions, each computing what the lane code
//! computes lane for lane.

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{self, ConstantData, InstBuilder, Value, types};

use super::packed::{Shape, little};
use super::{Lanes, Lower};
use crate::frontend::tir::{BinaryOp, Rounding};
use crate::frontend::types::{Scalar, Type};

impl Lower<'_, '_> {
    /// A binary operator on vector operands in registers, or `None` where it stays lane by
    /// lane (see the module's comment).
    pub(in crate::codegen) fn packed_binary(
        &mut self,
        op: BinaryOp,
        l: &[Value],
        r: &[Value],
        operand_ty: &Type,
        result_ty: &Type,
    ) -> Option<Lanes> {
        use BinaryOp::*;
        let (s, rs) = (
            self.register_shape(operand_ty)?,
            self.register_shape(result_ty)?,
        );
        let elem = operand_ty.element()?;
        if s.per != rs.per || s.n != rs.n {
            return None;
        }
        let float = elem.is_float();
        match op {
            Div if !float => return None,
            Rem => return None,
            // x64 has no 8-bit vector multiply, and a 64-bit one only with AVX-512DQ:
            // Cranelift's SSE form of `imul.i64x2` is three `pmuludq` and shifts, slower
            // than two scalar multiplies.
            Mul if s.lane == types::I8 || s.lane == types::I64 => return None,
            Shl | Shr | BitAnd | BitOr | BitXor if float => return None,
            _ => {}
        }
        if matches!(op, Shl | Shr) {
            // One count for every lane (one value, or equal constants: `x << 2`): Cranelift
            // shifts a vector by a scalar.
            let first = self.constant_bits(r[0]);
            let uniform = r.iter().all(|&x| x == r[0])
                || (first.is_some() && r.iter().all(|&x| self.constant_bits(x) == first));
            if !uniform || self.in_registers(l, &s).is_none() {
                return None;
            }
            // "the shift count is taken modulo the bit width of the left operand" (6.3.j).
            let count = self.b.ins().band_imm_s(r[0], i64::from(s.lane.bits()) - 1);
            let regs = self.registers(l, &s);
            let out: Lanes = regs
                .into_iter()
                .map(|x| match (op, elem.is_signed()) {
                    (Shl, _) => self.b.ins().ishl(x, count),
                    (_, true) => self.b.ins().sshr(x, count),
                    _ => self.b.ins().ushr(x, count),
                })
                .collect();
            return Some(self.components(&out, &rs));
        }
        if !self.worth(&[l, r], &s) {
            return None;
        }
        let (a, b) = (self.registers(l, &s), self.registers(r, &s));
        let out: Lanes = a
            .into_iter()
            .zip(b)
            .map(|(x, y)| self.register_binary(op, elem, x, y, &s))
            .collect();
        Some(self.components(&out, &rs))
    }

    /// One register of a binary operator (see [`crate::codegen::ops::binary_lane`]).
    fn register_binary(
        &mut self,
        op: BinaryOp,
        elem: Scalar,
        x: Value,
        y: Value,
        s: &Shape,
    ) -> Value {
        use BinaryOp::*;
        if elem.is_float() {
            let cc = match op {
                Add => return self.b.ins().fadd(x, y),
                Sub => return self.b.ins().fsub(x, y),
                Mul => return self.b.ins().fmul(x, y),
                Div => return self.b.ins().fdiv(x, y),
                Lt => FloatCC::LessThan,
                Gt => FloatCC::GreaterThan,
                Le => FloatCC::LessThanOrEqual,
                Ge => FloatCC::GreaterThanOrEqual,
                Eq => FloatCC::Equal,
                Ne => FloatCC::NotEqual,
                VectorAnd | VectorOr => {
                    let zero = self.zero_register(s.vt);
                    let a = self.b.ins().fcmp(FloatCC::NotEqual, x, zero);
                    let c = self.b.ins().fcmp(FloatCC::NotEqual, y, zero);
                    return if op == VectorAnd {
                        self.b.ins().band(a, c)
                    } else {
                        self.b.ins().bor(a, c)
                    };
                }
                _ => unreachable!("filtered by packed_binary"),
            };
            return self.b.ins().fcmp(cc, x, y);
        }
        let signed = elem.is_signed();
        let cc = match op {
            Add => return self.b.ins().iadd(x, y),
            Sub => return self.b.ins().isub(x, y),
            Mul => return self.b.ins().imul(x, y),
            BitAnd => return self.b.ins().band(x, y),
            BitOr => return self.b.ins().bor(x, y),
            BitXor => return self.b.ins().bxor(x, y),
            Lt if signed => IntCC::SignedLessThan,
            Lt => IntCC::UnsignedLessThan,
            Gt if signed => IntCC::SignedGreaterThan,
            Gt => IntCC::UnsignedGreaterThan,
            Le if signed => IntCC::SignedLessThanOrEqual,
            Le => IntCC::UnsignedLessThanOrEqual,
            Ge if signed => IntCC::SignedGreaterThanOrEqual,
            Ge => IntCC::UnsignedGreaterThanOrEqual,
            Eq => IntCC::Equal,
            Ne => IntCC::NotEqual,
            VectorAnd | VectorOr => {
                let zero = self.zero_register(s.vt);
                let a = self.b.ins().icmp(IntCC::NotEqual, x, zero);
                let c = self.b.ins().icmp(IntCC::NotEqual, y, zero);
                return if op == VectorAnd {
                    self.b.ins().band(a, c)
                } else {
                    self.b.ins().bor(a, c)
                };
            }
            _ => unreachable!("filtered by packed_binary"),
        };
        self.b.ins().icmp(cc, x, y)
    }

    fn zero_register(&mut self, vt: ir::Type) -> Value {
        let handle = self
            .b
            .func
            .dfg
            .constants
            .insert(ConstantData::from(vec![0u8; 16]));
        self.b.ins().vconst(vt, handle)
    }

    /// `-x` and `~x` of an operand in registers.
    pub(in crate::codegen) fn packed_unary(
        &mut self,
        negate: bool,
        v: &[Value],
        ty: &Type,
    ) -> Option<Lanes> {
        let s = self.register_shape(ty)?;
        let regs = self.in_registers(v, &s)?;
        let float = ty.element()?.is_float();
        let out: Lanes = regs
            .into_iter()
            .map(|x| match (negate, float) {
                (true, true) => self.b.ins().fneg(x),
                (true, false) => self.b.ins().ineg(x),
                (false, _) => self.b.ins().bnot(x),
            })
            .collect();
        Some(self.components(&out, &s))
    }

    /// `c ? a : b` on vectors and `select(b, a, c)`-style choices: each lane of `a` where the
    /// most significant bit of `c`'s lane is set, else of `b` (`c` of the same lane width).
    pub(in crate::codegen) fn packed_select(
        &mut self,
        c: &[Value],
        a: &[Value],
        b: &[Value],
        cond_ty: &Type,
        ty: &Type,
    ) -> Option<Lanes> {
        let (cs, s) = (self.register_shape(cond_ty)?, self.register_shape(ty)?);
        if cs.per != s.per || cs.n != s.n || !self.worth_shaped(&[(c, &cs), (a, &s), (b, &s)]) {
            return None;
        }
        let (cr, ar, br) = (
            self.registers(c, &cs),
            self.registers(a, &s),
            self.registers(b, &s),
        );
        let mut out = Vec::with_capacity(cr.len());
        for ((c, a), b) in cr.into_iter().zip(ar).zip(br) {
            let zero = self.zero_register(cs.vt);
            let negative = self.b.ins().icmp(IntCC::SignedLessThan, c, zero);
            let m = if s.vt == cs.vt {
                negative
            } else {
                self.b.ins().bitcast(s.vt, little(), negative)
            };
            out.push(self.b.ins().bitselect(m, a, b));
        }
        Some(self.components(&out, &s))
    }

    /// `bitselect(a, b, c)` in registers: each bit of `b` where `c`'s is set, else of `a`.
    pub(in crate::codegen) fn packed_bitselect(
        &mut self,
        a: &[Value],
        b: &[Value],
        c: &[Value],
        ty: &Type,
    ) -> Option<Lanes> {
        let s = self.register_shape(ty)?;
        if !self.worth(&[a, b, c], &s) {
            return None;
        }
        let (ar, br, cr) = (
            self.registers(a, &s),
            self.registers(b, &s),
            self.registers(c, &s),
        );
        let out: Lanes = (0..ar.len())
            .map(|r| self.b.ins().bitselect(cr[r], br[r], ar[r]))
            .collect();
        Some(self.components(&out, &s))
    }

    /// `isequal`, `isless`, ... of float vectors in registers (-1 / 0 lanes, as the lane
    /// code's `fcmp` masks).
    pub(in crate::codegen) fn packed_compare(
        &mut self,
        cc: FloatCC,
        x: &[Value],
        y: &[Value],
        elem: Scalar,
        ret: &Type,
    ) -> Option<Lanes> {
        let Type::Vector(_, n) = ret else {
            return None;
        };
        // x64 Cranelift has no vector `one` (islessgreater): that one stays per lane.
        if cc == FloatCC::OrderedNotEqual {
            return None;
        }
        let (s, rs) = (
            self.register_shape(&Type::Vector(elem, *n))?,
            self.register_shape(ret)?,
        );
        if s.per != rs.per || !self.worth(&[x, y], &s) {
            return None;
        }
        let (a, b) = (self.registers(x, &s), self.registers(y, &s));
        let out: Lanes = a
            .into_iter()
            .zip(b)
            .map(|(a, b)| self.b.ins().fcmp(cc, a, b))
            .collect();
        Some(self.components(&out, &rs))
    }

    /// The math builtins with vector instructions (`sqrt`, `fabs`, `fma`, `mad`, `min`,
    /// `max`, `clamp`, `floor`, `ceil`, `trunc`, `rint`, `mix`, and the integer `min`, `max`,
    /// `clamp`, `mul24`, `mad24`) on arguments in registers; a scalar argument (`min(v, s)`)
    /// is splatted. `None` where the call stays lane by lane.
    pub(in crate::codegen) fn packed_builtin(
        &mut self,
        function: crate::frontend::tir::BuiltinFunction,
        values: &[Lanes],
        ret: &Type,
        elem: Scalar,
    ) -> Option<Lanes> {
        use crate::frontend::tir::BuiltinFunction as F;
        let s = self.register_shape(ret)?;
        if ret.element()? != elem {
            return None;
        }
        let float = elem.is_float();
        let arity = match function {
            F::Sqrt
            | F::NativeSqrt
            | F::HalfSqrt
            | F::Fabs
            | F::Floor
            | F::Ceil
            | F::Trunc
            | F::Rint
                if float =>
            {
                1
            }
            F::Min | F::Max => 2,
            F::Fma | F::Mad | F::Mix if float => 3,
            F::Clamp => 3,
            F::Mul24 if !float && s.lane == types::I32 => 2,
            F::Mad24 if !float && s.lane == types::I32 => 3,
            _ => return None,
        };
        if values.len() != arity {
            return None;
        }
        let args: Vec<Lanes> = values
            .iter()
            .map(|v| {
                if v.len() == 1 {
                    vec![v[0]; s.n]
                } else {
                    v.clone()
                }
            })
            .collect();
        let refs: Vec<&[Value]> = args.iter().map(Vec::as_slice).collect();
        if !self.worth(&refs, &s) {
            return None;
        }
        let regs: Vec<Lanes> = args.iter().map(|a| self.registers(a, &s)).collect();
        let signed = elem.is_signed();
        let mut out = Vec::with_capacity(s.registers());
        for (r, &x) in regs[0].iter().enumerate() {
            let arg = |i: usize| regs[i][r];
            let v = match function {
                F::Sqrt | F::NativeSqrt | F::HalfSqrt => self.b.ins().sqrt(x),
                F::Fabs => self.b.ins().fabs(x),
                F::Floor => self.b.ins().floor(x),
                F::Ceil => self.b.ins().ceil(x),
                F::Trunc => self.b.ins().trunc(x),
                F::Rint => self.b.ins().nearest(x),
                F::Fma => self.b.ins().fma(x, arg(1), arg(2)),
                F::Mad if self.mad_enable => self.b.ins().fma(x, arg(1), arg(2)),
                F::Mad => {
                    let p = self.b.ins().fmul(x, arg(1));
                    self.b.ins().fadd(p, arg(2))
                }
                F::Mix => {
                    let d = self.b.ins().fsub(arg(1), x);
                    let p = self.b.ins().fmul(d, arg(2));
                    self.b.ins().fadd(x, p)
                }
                F::Min | F::Max if float => {
                    // As the lane code: max gives y if x < y, min y if x > y, else x.
                    let cc = if function == F::Max {
                        FloatCC::LessThan
                    } else {
                        FloatCC::GreaterThan
                    };
                    self.float_choose(cc, x, arg(1), s.vt)
                }
                F::Clamp if float => {
                    let m = self.float_choose(FloatCC::LessThan, x, arg(1), s.vt);
                    self.float_choose(FloatCC::GreaterThan, m, arg(2), s.vt)
                }
                F::Min if signed => self.b.ins().smin(x, arg(1)),
                F::Min => self.b.ins().umin(x, arg(1)),
                F::Max if signed => self.b.ins().smax(x, arg(1)),
                F::Max => self.b.ins().umax(x, arg(1)),
                F::Clamp => {
                    let (lo, hi) = (arg(1), arg(2));
                    if signed {
                        let m = self.b.ins().smax(x, lo);
                        self.b.ins().smin(m, hi)
                    } else {
                        let m = self.b.ins().umax(x, lo);
                        self.b.ins().umin(m, hi)
                    }
                }
                F::Mul24 => self.b.ins().imul(x, arg(1)),
                F::Mad24 => {
                    let p = self.b.ins().imul(x, arg(1));
                    self.b.ins().iadd(p, arg(2))
                }
                _ => return None,
            };
            out.push(v);
        }
        Some(self.components(&out, &s))
    }

    /// `convert_T` between 32-bit float and integer vectors in registers, as
    /// `Lower::convert_numeric` does each lane: float to integer rounds with the mode, then
    /// truncates and saturates (NaN gives 0); integer to float rounds to nearest even (the
    /// other modes call the library lane by lane); between 32-bit integers of either
    /// signedness the bits stay (saturating between them stays lane by lane).
    pub(in crate::codegen) fn packed_convert(
        &mut self,
        v: &[Value],
        from: &Type,
        to: &Type,
        saturate: bool,
        rounding: Rounding,
    ) -> Option<Lanes> {
        let (fs, ts) = (self.register_shape(from)?, self.register_shape(to)?);
        let (fe, te) = (from.element()?, to.element()?);
        if fs.lane.bits() != 32 || ts.lane.bits() != 32 || fs.n != ts.n {
            return None;
        }
        let regs = self.in_registers(v, &fs)?;
        let out: Lanes = match (fe.is_float(), te.is_float()) {
            (true, false) => regs
                .into_iter()
                .map(|x| {
                    let r = match rounding {
                        Rounding::Default | Rounding::Rtz => x,
                        Rounding::Rte => self.b.ins().nearest(x),
                        Rounding::Rtp => self.b.ins().ceil(x),
                        Rounding::Rtn => self.b.ins().floor(x),
                    };
                    if te.is_signed() {
                        self.b.ins().fcvt_to_sint_sat(ts.vt, r)
                    } else {
                        self.b.ins().fcvt_to_uint_sat(ts.vt, r)
                    }
                })
                .collect(),
            (false, true) if matches!(rounding, Rounding::Default | Rounding::Rte) => regs
                .into_iter()
                .map(|x| {
                    if fe.is_signed() {
                        self.b.ins().fcvt_from_sint(ts.vt, x)
                    } else {
                        self.b.ins().fcvt_from_uint(ts.vt, x)
                    }
                })
                .collect(),
            (false, false) if !saturate || fe == te => regs,
            _ => return None,
        };
        Some(self.components(&out, &ts))
    }

    /// `y` in the lanes where `x cc y`, else `x` (float min / max / clamp).
    fn float_choose(&mut self, cc: FloatCC, x: Value, y: Value, vt: ir::Type) -> Value {
        let c = self.b.ins().fcmp(cc, x, y);
        let m = self.b.ins().bitcast(vt, little(), c);
        self.b.ins().bitselect(m, y, x)
    }
}
