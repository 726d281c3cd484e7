//! Builtins of a step's work-items: the work-item ids as sequences, the cheap math in
//! registers (the same instructions as the scalar lowering's), the rest per lane.

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{self, InstBuilder, Value, types};

use super::super::func::{Result, constant_dimension};
use super::WIDTH;
use super::lower::VecLower;
use super::narrow_vec::narrow_soa;
use super::pair::{Pair, pair_type, soa_pair_type};
use super::value::{VVal, soa_type, vec_type};
use crate::frontend::tir::{BuiltinFunction as F, BuiltinId, Expr};
use crate::frontend::types::{Scalar, Type};

impl VecLower<'_, '_> {
    /// Builtins: the work-item ids as sequences, the cheap math in registers (the same
    /// instructions as the scalar lowering's), the rest per lane.
    pub(super) fn builtin(&mut self, e: &Expr, id: BuiltinId, args: &[Expr]) -> Result<VVal> {
        // Only builtins the table says have a vector form get one here; the rest run per
        // lane through the scalar lowering.
        if !id.attributes().vector_form {
            return self.per_lane(e);
        }
        let f = id.function();
        if matches!(f, F::Vload | F::Vstore) {
            return self.vector_memory(e, f, args);
        }
        if matches!(f, F::GetGlobalId | F::GetLocalId) && constant_dimension(args) == Some(0) {
            let counter = if f == F::GetGlobalId {
                self.l.global_x
            } else {
                self.l.local_x
            };
            if let Some(var) = counter {
                return Ok(VVal::Seq {
                    base: self.l.b.use_var(var),
                    stride: 1,
                    exact: true,
                    id: true,
                });
            }
        }
        let float_scalar = e.ty.scalar() == Some(Scalar::Float) && !e.ty.is_vector();
        // dot of float vectors: the scalar lowering's products and sums, in its order.
        if f == F::Dot
            && float_scalar
            && args.len() == 2
            && args[0].ty == args[1].ty
            && soa_type(&args[0].ty).is_some_and(|(vt, _)| vt == types::F32X4)
        {
            let (a, b) = (self.vexpr(&args[0])?, self.vexpr(&args[1])?);
            let xs = self.components(&a, &args[0].ty, types::F32X4);
            let ys = self.components(&b, &args[1].ty, types::F32X4);
            let mut acc = self.l.b.ins().fmul(xs[0], ys[0]);
            for (x, y) in xs.iter().zip(&ys).skip(1) {
                let p = self.l.b.ins().fmul(*x, *y);
                acc = self.l.b.ins().fadd(acc, p);
            }
            return Ok(VVal::V(acc));
        }
        if matches!(f, F::Length | F::Distance | F::Normalize)
            && args
                .iter()
                .all(|a| a.ty == args[0].ty && float_components(&a.ty))
        {
            let mut xs = Vec::with_capacity(args.len());
            for a in args {
                let v = self.vexpr(a)?;
                xs.push(self.components(&v, &a.ty, types::F32X4));
            }
            let r = self.geometric_f32(f, &xs);
            return Ok(match e.ty.is_vector() {
                true => VVal::S(r),
                false => VVal::V(r[0]),
            });
        }
        if let Some(symbol) = vector_symbol(f)
            && e.ty.element() == Some(Scalar::Float)
            && args.iter().all(|a| a.ty == e.ty)
        {
            // One call per component, on the components' registers.
            let mut xs = Vec::with_capacity(args.len());
            for a in args {
                let v = self.vexpr(a)?;
                xs.push(self.components(&v, &a.ty, types::F32X4));
            }
            let cs = (0..xs[0].len())
                .map(|c| {
                    let operands: Vec<Value> = xs.iter().map(|x| x[c]).collect();
                    self.l.call_symbol(symbol, &operands, types::F32X4)
                })
                .collect::<Result<Vec<Value>>>()?;
            return Ok(match e.ty.is_vector() {
                true => VVal::S(cs),
                false => VVal::V(cs[0]),
            });
        }
        if f == F::Rsqrt && float_scalar && args.len() == 1 && args[0].ty == e.ty {
            let v = self.vexpr(&args[0])?;
            let x = self.vector(&v, types::F32X4);
            return Ok(VVal::V(self.rsqrt(x)));
        }
        let pair = pair_type(&e.ty)
            .map(|pt| (pt, 0))
            .or_else(|| soa_pair_type(&e.ty));
        if let Some((pt, n)) = pair {
            return self.pair_builtin(e, f, args, pt, n);
        }
        if let Some(r) = self.narrow_builtin_call(e, f, args)? {
            return Ok(r);
        }
        let (vt, n) = match (vec_type(&e.ty), soa_type(&e.ty)) {
            (Some(vt), _) => (vt, 0),
            (None, Some((vt, n))) => (vt, n),
            _ => return self.per_lane(e),
        };
        let scalar_select = f == F::Select && n == 0;
        if !(scalar_select || args.iter().all(|a| a.ty == e.ty)) {
            return self.per_lane(e);
        }
        let float = vt == types::F32X4;
        let signed = e.ty.element().is_some_and(Scalar::is_signed);
        let simd = match f {
            F::Sqrt | F::NativeSqrt | F::HalfSqrt | F::Fabs | F::NativeDivide | F::NativeRecip => {
                float
            }
            F::Mad => float,
            F::Min | F::Max | F::Clamp => true,
            F::Select => {
                n == 0
                    && args.len() == 3
                    && args[0].ty == e.ty
                    && args[1].ty == e.ty
                    && vec_type(&args[2].ty) == Some(types::I32X4)
            }
            _ => false,
        };
        if !simd {
            return self.per_lane(e);
        }
        let mut values = Vec::new();
        for a in args {
            values.push(self.vexpr(a)?);
        }
        if n == 0 {
            let xs: Vec<Value> = args
                .iter()
                .zip(&values)
                .map(|(a, v)| {
                    let at = vec_type(&a.ty).unwrap_or(vt);
                    self.vector(v, at)
                })
                .collect();
            return Ok(VVal::V(self.simd_builtin(f, &xs, float, signed)));
        }
        // Vectors: component by component.
        let cs = (0..n)
            .map(|c| {
                let xs: Vec<Value> = values.iter().map(|v| self.component(v, c, vt)).collect();
                self.simd_builtin(f, &xs, float, signed)
            })
            .collect();
        Ok(VVal::S(cs))
    }

    /// sqrt, fabs and mad of `double` and its vectors (`pt`: the pair's register type,
    /// `n`: the components, 0 for a scalar) in pairs of registers; the rest per lane.
    fn pair_builtin(
        &mut self,
        e: &Expr,
        f: F,
        args: &[Expr],
        pt: ir::Type,
        n: usize,
    ) -> Result<VVal> {
        let same_types = args.iter().all(|a| a.ty == e.ty);
        let symbol = pair_symbol(f).filter(|_| pt == types::F64X2 && same_types);
        let simd = pt == types::F64X2 && matches!(f, F::Sqrt | F::Fabs | F::Mad) && same_types;
        if !simd && symbol.is_none() {
            return self.per_lane(e);
        }
        let mut values = Vec::with_capacity(args.len());
        for a in args {
            values.push(self.vexpr(a)?);
        }
        // Each argument's pair of registers (of component `c` of vectors).
        let arg_pairs = |s: &mut Self, c: Option<usize>| -> Vec<Pair> {
            values
                .iter()
                .map(|v| match c {
                    None => s.pair(v, pt),
                    Some(c) => s.pair_component(v, c, pt),
                })
                .collect()
        };
        if let Some(symbol) = symbol {
            // One call per register of two items (per component of vectors).
            let call = |s: &mut Self, c: Option<usize>| -> Result<Pair> {
                let ps = arg_pairs(s, c);
                let half = |s: &mut Self, h: usize| {
                    let xs: Vec<Value> = ps.iter().map(|p| p[h]).collect();
                    s.l.call_symbol(symbol, &xs, pt)
                };
                Ok([half(s, 0)?, half(s, 1)?])
            };
            if n == 0 {
                return Ok(VVal::P(call(self, None)?));
            }
            let cs = (0..n)
                .map(|c| call(self, Some(c)))
                .collect::<Result<Vec<Pair>>>()?;
            return Ok(VVal::SP(cs));
        }
        let pairs = |s: &mut Self, c: Option<usize>| -> Pair {
            let ps = arg_pairs(s, c);
            [0, 1].map(|h| {
                let xs: Vec<Value> = ps.iter().map(|p| p[h]).collect();
                s.simd_builtin(f, &xs, true, true)
            })
        };
        if n == 0 {
            return Ok(VVal::P(pairs(self, None)));
        }
        Ok(VVal::SP((0..n).map(|c| pairs(self, Some(c))).collect()))
    }

    /// vloadn / vstoren of `int`, `uint`, `float` (or 64-bit) vectors of 2, 4, 8 or 16
    /// components:
    /// `load_mem` / `store_mem` of the vector type at the step's addresses, so that
    /// consecutive offsets become whole loads (vload3's elements are 3 apart, not 4: per
    /// lane, as are the other types).
    fn vector_memory(&mut self, e: &Expr, f: F, args: &[Expr]) -> Result<VVal> {
        let store = f == F::Vstore;
        let vty = if store { &args[0].ty } else { &e.ty };
        let n = soa_type(vty)
            .or_else(|| soa_pair_type(vty))
            .map(|(_, n)| n)
            .or_else(|| narrow_soa(vty).map(|(_, n)| n));
        if args.len() != 2 + usize::from(store) || !n.is_some_and(|n| matches!(n, 2 | 4 | 8 | 16)) {
            return self.per_lane(e);
        }
        let mut values = Vec::with_capacity(args.len());
        for a in args {
            values.push(self.vexpr(a)?);
        }
        let (p, o) = if store {
            (&values[2], &values[1])
        } else {
            (&values[1], &values[0])
        };
        let size = vty.size() as i64;
        let addr = match (p, o) {
            (VVal::U(p), VVal::Seq { base, stride, .. }) => {
                let scaled = self.l.b.ins().imul_imm_s(*base, size);
                VVal::Seq {
                    base: self.l.b.ins().iadd(p[0], scaled),
                    stride: stride * size,
                    exact: true,
                    id: false,
                }
            }
            _ => {
                let (pl, ol) = (self.lanes(p), self.lanes(o));
                let lanes = (0..WIDTH as usize)
                    .map(|k| {
                        let scaled = self.l.b.ins().imul_imm_s(ol[k][0], size);
                        vec![self.l.b.ins().iadd(pl[k][0], scaled)]
                    })
                    .collect();
                VVal::L(lanes)
            }
        };
        if store {
            let v = values.swap_remove(0);
            self.store_mem(addr, v, vty)?;
            return Ok(VVal::U(Vec::new()));
        }
        self.load_mem(addr, vty)
    }

    /// The register form of a cheap builtin on registers `xs` (the scalar lowering's
    /// instructions, lane by lane).
    pub(super) fn simd_builtin(&mut self, f: F, xs: &[Value], float: bool, signed: bool) -> Value {
        match f {
            F::Sqrt | F::NativeSqrt | F::HalfSqrt => self.l.b.ins().sqrt(xs[0]),
            F::Fabs => self.l.b.ins().fabs(xs[0]),
            F::NativeDivide => self.l.b.ins().fdiv(xs[0], xs[1]),
            F::NativeRecip => {
                let one = self.l.b.ins().f32const(1.0);
                let one = self.l.b.ins().splat(types::F32X4, one);
                self.l.b.ins().fdiv(one, xs[0])
            }
            // With -cl-mad-enable the scalar lowering fuses (one rounding): so do lanes.
            F::Mad if self.l.mad_enable => self.l.b.ins().fma(xs[0], xs[1], xs[2]),
            F::Mad => {
                let p = self.l.b.ins().fmul(xs[0], xs[1]);
                self.l.b.ins().fadd(p, xs[2])
            }
            F::Min | F::Max if float => {
                // As the scalar lowering: max is `x < y ? y : x`, min `x > y ? y : x`.
                let cc = if f == F::Max {
                    FloatCC::LessThan
                } else {
                    FloatCC::GreaterThan
                };
                let c = self.l.b.ins().fcmp(cc, xs[0], xs[1]);
                self.select_v(c, xs[1], xs[0])
            }
            F::Clamp if float => {
                let c = self.l.b.ins().fcmp(FloatCC::LessThan, xs[0], xs[1]);
                let m = self.select_v(c, xs[1], xs[0]);
                let c = self.l.b.ins().fcmp(FloatCC::GreaterThan, m, xs[2]);
                self.select_v(c, xs[2], m)
            }
            F::Min if signed => self.l.b.ins().smin(xs[0], xs[1]),
            F::Min => self.l.b.ins().umin(xs[0], xs[1]),
            F::Max if signed => self.l.b.ins().smax(xs[0], xs[1]),
            F::Max => self.l.b.ins().umax(xs[0], xs[1]),
            F::Clamp => {
                let m = if signed {
                    self.l.b.ins().smax(xs[0], xs[1])
                } else {
                    self.l.b.ins().umax(xs[0], xs[1])
                };
                if signed {
                    self.l.b.ins().smin(m, xs[2])
                } else {
                    self.l.b.ins().umin(m, xs[2])
                }
            }
            _ => {
                // select(a, b, c): b where c is not zero (scalars test nonzero, 6.12.6).
                let zero = self.zero(types::I32X4);
                let c = self.l.b.ins().icmp(IntCC::NotEqual, xs[2], zero);
                self.select_v(c, xs[1], xs[0])
            }
        }
    }

    /// `rsqrt` of each lane as the scalar lowering computes it: `1 / sqrt(x)` in double,
    /// rounded to float once (two lanes per double register).
    fn rsqrt(&mut self, x: Value) -> Value {
        let wide = self.widen(x);
        let r = wide.map(|w| {
            let root = self.l.b.ins().sqrt(w);
            let one = self.l.b.ins().f64const(1.0);
            let one = self.l.b.ins().splat(types::F64X2, one);
            self.l.b.ins().fdiv(one, root)
        });
        self.narrow(r)
    }
}

/// Whether `ty` is `float` or a vector of `float` (of 2, 3 or 4 components: the geometric
/// functions' arguments).
fn float_components(ty: &Type) -> bool {
    ty.element() == Some(Scalar::Float) && ty.lanes() <= 4
}

/// The library function that computes `f` on a whole `f64x2` register of two items
/// (`double`): `builtins/src/math/lanes2.rs`, libm's algorithms on two lanes, bit for bit
/// the scalar functions.
fn pair_symbol(f: F) -> Option<&'static str> {
    Some(match f {
        F::Exp => "clift_v2_exp_f64",
        F::Exp10 => "clift_v2_exp10_f64",
        F::Log => "clift_v2_log_f64",
        F::Log2 => "clift_v2_log2_f64",
        F::Log10 => "clift_v2_log10_f64",
        F::Sin => "clift_v2_sin_f64",
        F::Cos => "clift_v2_cos_f64",
        _ => return None,
    })
}

/// The library function that computes `f` on a whole `f32x4` register (`float` only):
/// `builtins/src/math/lanes.rs`, the scalar functions' kernels lane by lane, so results do
/// not depend on the vectorizer.
pub(in crate::codegen) fn vector_symbol(f: F) -> Option<&'static str> {
    Some(match f {
        F::Exp | F::HalfExp | F::NativeExp => "clift_v4_exp_f32",
        F::Exp2 | F::HalfExp2 | F::NativeExp2 => "clift_v4_exp2_f32",
        F::Exp10 | F::HalfExp10 | F::NativeExp10 => "clift_v4_exp10_f32",
        F::Log | F::HalfLog | F::NativeLog => "clift_v4_log_f32",
        F::Log2 | F::HalfLog2 | F::NativeLog2 => "clift_v4_log2_f32",
        F::Log10 | F::HalfLog10 | F::NativeLog10 => "clift_v4_log10_f32",
        F::Sin | F::HalfSin | F::NativeSin => "clift_v4_sin_f32",
        F::Cos | F::HalfCos | F::NativeCos => "clift_v4_cos_f32",
        F::Pow => "clift_v4_pow_f32",
        _ => return None,
    })
}
