//! The lowering of expressions: each evaluates to its lanes, one Cranelift value each.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{self, InstBuilder, MemFlagsData, Value, types};
use cranelift_frontend::Variable;
use cranelift_module::Module;

use super::{Lanes, Lower, PlaceRef, Result, flat_types, returns_by_pointer, unsupported};
use crate::codegen::CodegenError;
use crate::codegen::ops::{
    binary_lane, clif_type, convert_lane, lane_types, saturate_int, uextend_to,
};
use crate::frontend::sema::constant;
use crate::frontend::tir::{BinaryOp, Constant, ConvertKind, Expr, ExprKind, Rounding, UnaryOp};
use crate::frontend::types::{Scalar, Type};

impl Lower<'_, '_> {
    /// Evaluates an expression to its lanes.
    pub fn expr(&mut self, e: &Expr) -> Result<Lanes> {
        match &e.kind {
            ExprKind::Const(c) => self.constant(c, &e.ty),
            ExprKind::Load(p) => {
                let r = self.access_place(p, false)?;
                self.load(&r, &p.ty.ty)
            }
            ExprKind::AddressOf(p) => match self.place(p)? {
                PlaceRef::Mem(a) => Ok(vec![a]),
                _ => unsupported("address of a register variable"),
            },
            ExprKind::Assign {
                place,
                op,
                value,
                op_ty,
            } => {
                let r = self.access_place(place, true)?;
                let v = self.expr(value)?;
                let new = match op {
                    None => v,
                    // `p += n` / `p -= n` move by n elements, as `p + n` does.
                    Some(op @ (BinaryOp::Add | BinaryOp::Sub))
                        if matches!(place.ty.ty, Type::Pointer(_)) =>
                    {
                        let Type::Pointer(pointee) = &place.ty.ty else {
                            unreachable!("matched above")
                        };
                        let current = self.load(&r, &place.ty.ty)?[0];
                        let wide = self.convert_to(v, &value.ty, &Type::Scalar(Scalar::Long))?[0];
                        let scaled = self.b.ins().imul_imm_s(wide, pointee.ty.size() as i64);
                        let moved = if *op == BinaryOp::Sub {
                            self.b.ins().isub(current, scaled)
                        } else {
                            self.b.ins().iadd(current, scaled)
                        };
                        self.same_object(current, moved);
                        vec![moved]
                    }
                    Some(op) => {
                        let current = self.load(&r, &place.ty.ty)?;
                        let current = self.convert_to(current, &place.ty.ty, op_ty)?;
                        let result = self.binary(*op, current, v, &value.ty, op_ty)?;
                        self.convert_to(result, op_ty, &place.ty.ty)?
                    }
                };
                self.store(&r, &place.ty.ty, new.clone())?;
                Ok(new)
            }
            ExprKind::IncDec {
                place,
                increment,
                prefix,
            } => {
                let r = self.access_place(place, true)?;
                let old = self.load(&r, &place.ty.ty)?;
                let new: Lanes = match &place.ty.ty {
                    Type::Pointer(p) => {
                        let step = p.ty.size() as i64;
                        let moved = self
                            .b
                            .ins()
                            .iadd_imm_s(old[0], if *increment { step } else { -step });
                        self.same_object(old[0], moved);
                        vec![moved]
                    }
                    ty => {
                        let s = ty
                            .element()
                            .ok_or_else(|| CodegenError("++ on a non-arithmetic value".into()))?;
                        old.iter()
                            .map(|&v| {
                                if s.is_float() {
                                    let one = if s == Scalar::Double {
                                        self.b.ins().f64const(1.0)
                                    } else {
                                        self.b.ins().f32const(1.0)
                                    };
                                    let r = if *increment {
                                        self.b.ins().fadd(v, one)
                                    } else {
                                        self.b.ins().fsub(v, one)
                                    };
                                    if s == Scalar::Half {
                                        self.round_half(r)
                                    } else {
                                        Ok(r)
                                    }
                                } else {
                                    Ok(self.b.ins().iadd_imm_s(v, if *increment { 1 } else { -1 }))
                                }
                            })
                            .collect::<Result<_>>()?
                    }
                };
                self.store(&r, &place.ty.ty, new.clone())?;
                Ok(if *prefix { new } else { old })
            }
            ExprKind::Unary { op, operand } => {
                let v = self.expr(operand)?;
                let s = operand.ty.element();
                if let (UnaryOp::Neg | UnaryOp::BitNot, Some(r)) =
                    (op, self.packed_unary(*op == UnaryOp::Neg, &v, &operand.ty))
                {
                    return Ok(r);
                }
                Ok(match op {
                    UnaryOp::Neg => v
                        .into_iter()
                        .map(|x| {
                            if s.is_some_and(Scalar::is_float) {
                                self.b.ins().fneg(x)
                            } else {
                                self.b.ins().ineg(x)
                            }
                        })
                        .collect(),
                    UnaryOp::BitNot => v.into_iter().map(|x| self.b.ins().bnot(x)).collect(),
                    UnaryOp::LogicalNot => {
                        let t = self.truth(v[0], &operand.ty);
                        let not = self.b.ins().bxor_imm_s(t, 1);
                        vec![uextend_to(&mut self.b, types::I32, not)]
                    }
                    UnaryOp::VectorNot => {
                        let (rt, _) = lane_types(&e.ty).ok_or_else(|| CodegenError("!".into()))?;
                        v.into_iter()
                            .map(|x| {
                                let t = self.truth(x, &Type::Scalar(s.unwrap_or(Scalar::Int)));
                                let not = self.b.ins().bxor_imm_s(t, 1);
                                crate::codegen::ops::mask(&mut self.b, not, rt, true)
                            })
                            .collect()
                    }
                })
            }
            ExprKind::Binary { op, lhs, rhs } => {
                let (l, r) = (self.expr(lhs)?, self.expr(rhs)?);
                self.binary(*op, l, r, &lhs.ty, &e.ty)
            }
            ExprKind::PointerOffset {
                pointer,
                offset,
                subtract,
            } => {
                let p = self.expr(pointer)?[0];
                let o = self.expr(offset)?[0];
                let Type::Pointer(pointee) = &pointer.ty else {
                    return unsupported("pointer arithmetic");
                };
                // The object of a pointer the generator cannot follow is found before the
                // offset moves the address off it.
                self.find_object(p, pointee.space);
                let scaled = self.b.ins().imul_imm_s(o, pointee.ty.size() as i64);
                let moved = if *subtract {
                    self.b.ins().isub(p, scaled)
                } else {
                    self.b.ins().iadd(p, scaled)
                };
                self.same_object(p, moved);
                Ok(vec![moved])
            }
            ExprKind::PointerDiff { lhs, rhs } => {
                let (l, r) = (self.expr(lhs)?[0], self.expr(rhs)?[0]);
                let Type::Pointer(pointee) = &lhs.ty else {
                    return unsupported("pointer difference");
                };
                let diff = self.b.ins().isub(l, r);
                let size = self
                    .b
                    .ins()
                    .iconst(types::I64, pointee.ty.size().max(1) as i64);
                Ok(vec![self.b.ins().sdiv(diff, size)])
            }
            ExprKind::Logical { and, lhs, rhs } => {
                let result = self.b.declare_var(types::I32);
                let l = self.condition(lhs)?;
                let l32 = uextend_to(&mut self.b, types::I32, l);
                self.b.def_var(result, l32);
                let (rhs_b, join) = (self.b.create_block(), self.b.create_block());
                if *and {
                    self.b.ins().brif(l, rhs_b, &[], join, &[]);
                } else {
                    self.b.ins().brif(l, join, &[], rhs_b, &[]);
                }
                self.b.switch_to_block(rhs_b);
                let r = self.condition(rhs)?;
                let r32 = uextend_to(&mut self.b, types::I32, r);
                self.b.def_var(result, r32);
                self.b.ins().jump(join, &[]);
                self.b.switch_to_block(join);
                Ok(vec![self.b.use_var(result)])
            }
            ExprKind::Conditional {
                cond,
                then_expr,
                else_expr,
            } => {
                let c = self.condition(cond)?;
                // A vector result joins in registers ([`super::packed`]), else lane by lane.
                let shape = self.register_shape(&e.ty);
                let types = match &shape {
                    Some(s) => vec![s.vt; s.registers()],
                    None => flat_types(&e.ty),
                };
                let vars: Vec<Variable> =
                    types.into_iter().map(|t| self.b.declare_var(t)).collect();
                let (then_b, else_b, join) = (
                    self.b.create_block(),
                    self.b.create_block(),
                    self.b.create_block(),
                );
                self.b.ins().brif(c, then_b, &[], else_b, &[]);
                for (block, side) in [(then_b, then_expr), (else_b, else_expr)] {
                    self.b.switch_to_block(block);
                    let v = self.expr(side)?;
                    let v = match &shape {
                        Some(s) => self.registers(&v, s),
                        None => v,
                    };
                    for (var, x) in vars.iter().zip(v) {
                        self.b.def_var(*var, x);
                    }
                    self.b.ins().jump(join, &[]);
                }
                self.b.switch_to_block(join);
                let joined: Lanes = vars.into_iter().map(|v| self.b.use_var(v)).collect();
                Ok(match &shape {
                    Some(s) => self.components(&joined, s),
                    None => joined,
                })
            }
            ExprKind::Select {
                cond,
                then_expr,
                else_expr,
            } => {
                let c = self.expr(cond)?;
                let (a, b) = (self.expr(then_expr)?, self.expr(else_expr)?);
                if let Some(r) = self.packed_select(&c, &a, &b, &cond.ty, &e.ty) {
                    return Ok(r);
                }
                // Lane-wise on the most significant bit of each lane of the condition.
                Ok(c.into_iter()
                    .zip(a.into_iter().zip(b))
                    .map(|(c, (a, b))| {
                        let negative = self.b.ins().icmp_imm_s(IntCC::SignedLessThan, c, 0);
                        self.b.ins().select(negative, a, b)
                    })
                    .collect())
            }
            ExprKind::Convert { kind, operand } => self.convert(*kind, operand, &e.ty),
            ExprKind::VectorLiteral(parts) => {
                let mut lanes = Vec::new();
                for p in parts {
                    lanes.extend(self.expr(p)?);
                }
                Ok(lanes)
            }
            ExprKind::Swizzle { base, lanes } => {
                let v = self.expr(base)?;
                let zero_ty = self.b.func.dfg.value_type(v[0]);
                Ok(lanes
                    .iter()
                    .map(|&l| match v.get(l as usize) {
                        Some(x) => *x,
                        // Lane 3 of a 3-vector (.hi, .odd): undefined; 0.
                        None => self.zero(zero_ty),
                    })
                    .collect())
            }
            ExprKind::Call { func, args } => {
                let mut values = vec![self.item];
                let out = if returns_by_pointer(&e.ty) {
                    let size = e.ty.size().max(1) as u32;
                    let slot = self.b.create_sized_stack_slot(ir::StackSlotData::new(
                        ir::StackSlotKind::ExplicitSlot,
                        size,
                        4,
                    ));
                    let addr = self.b.ins().stack_addr(types::I64, slot, 0);
                    values.push(addr);
                    Some(addr)
                } else {
                    None
                };
                for a in args {
                    values.extend(self.expr(a)?);
                }
                // A kernel called as a function has its own plain-function copy.
                let clif = match self.state.called_kernels.get(func) {
                    Some(&copy) => copy,
                    None => self.state.functions[func.0 as usize],
                };
                let fref = *self
                    .func_refs
                    .entry(clif)
                    .or_insert_with(|| self.state.module.declare_func_in_func(clif, self.b.func));
                let inst = self.b.ins().call(fref, &values);
                match out {
                    Some(addr) => self.load(&PlaceRef::Mem(addr), &e.ty),
                    None => Ok(self.b.inst_results(inst).to_vec()),
                }
            }
            ExprKind::Builtin { id, args } => self.builtin(*id, args, &e.ty),
            ExprKind::StringLiteral(bytes) => Ok(vec![self.string_constant(bytes)?]),
            ExprKind::Comma { lhs, rhs } => {
                self.expr(lhs)?;
                self.expr(rhs)
            }
            ExprKind::StmtExpr { .. } => Err(CodegenError(
                "a statement expression was left in the typed tree".into(),
            )),
        }
    }

    pub fn constant(&mut self, c: &Constant, ty: &Type) -> Result<Lanes> {
        let (t, _) =
            lane_types(ty).ok_or_else(|| CodegenError(format!("a constant of type '{ty}'")))?;
        Ok(match c {
            Constant::Int(v) => v
                .iter()
                .map(|&x| self.b.ins().iconst(t, x as i64))
                .collect(),
            Constant::Float(v) => v
                .iter()
                .map(|&x| match t {
                    types::F64 => self.b.ins().f64const(x),
                    // NaN constants keep their payloads (folded `as_half`/`as_float`).
                    _ if ty.element() == Some(Scalar::Half) => {
                        let bits = if x.is_nan() {
                            constant::f64_to_half_bits(x)
                        } else {
                            clift_builtins::half::clift_f64_to_half_rte(x)
                        };
                        self.b
                            .ins()
                            .f32const(clift_builtins::half::clift_half_bits_to_f32(bits))
                    }
                    _ => self.b.ins().f32const(constant::constant_f32(x)),
                })
                .collect(),
        })
    }

    /// A binary operation on lanes (scalar operands of vectors already splatted by sema).
    pub(in crate::codegen) fn binary(
        &mut self,
        op: BinaryOp,
        l: Lanes,
        r: Lanes,
        operand_ty: &Type,
        result_ty: &Type,
    ) -> Result<Lanes> {
        let s = operand_ty
            .element()
            .or_else(|| result_ty.element())
            .unwrap_or(Scalar::Long);
        let s = if operand_ty.is_pointer() {
            Scalar::ULong
        } else {
            s
        };
        if let Some(lanes) = self.packed_binary(op, &l, &r, operand_ty, result_ty) {
            return Ok(lanes);
        }
        let (rt, _) = lane_types(result_ty).ok_or_else(|| CodegenError("binary result".into()))?;
        let vector = result_ty.is_vector();
        let lanes: Lanes = l
            .into_iter()
            .zip(r)
            .map(|(x, y)| binary_lane(&mut self.b, op, s, x, y, rt, vector))
            .collect();
        if result_ty.element() == Some(Scalar::Half) {
            // Computed in float, then rounded once: exact for + - * / (float has more than
            // twice half's precision, so the double rounding cannot differ).
            return lanes.into_iter().map(|v| self.round_half(v)).collect();
        }
        Ok(lanes)
    }

    /// A half value's bits at `addr + offset`, as the f32 that holds it.
    pub(super) fn load_half(&mut self, addr: Value, offset: i32) -> Result<Value> {
        let bits = self
            .b
            .ins()
            .load(types::I16, MemFlagsData::new(), addr, offset);
        self.call_symbol("clift_half_bits_to_f32", &[bits], types::F32)
    }

    /// The 16 bits of a half value held as f32: exact for every half, NaN payloads and
    /// signalling NaNs included, so that moves through memory and `as_*` keep the bits.
    pub fn half_bits(&mut self, x: Value) -> Result<Value> {
        self.call_symbol("clift_f32_to_half_bits", &[x], types::I16)
    }

    /// `x` (an f32) rounded to the nearest half, ties to even, held as f32 again (a NaN
    /// keeps the bits a half can hold: see `clift_f32_round_half`).
    pub fn round_half(&mut self, x: Value) -> Result<Value> {
        self.call_symbol("clift_f32_round_half", &[x], types::F32)
    }

    /// `x` of type `from` converted to half with `rounding` (one rounding: doubles are not
    /// rounded to float first), held as f32.
    pub(super) fn convert_to_half(
        &mut self,
        x: Value,
        from: Scalar,
        rounding: Rounding,
    ) -> Result<Value> {
        let mode = match rounding {
            Rounding::Rtz => "rtz",
            Rounding::Rtp => "rtp",
            Rounding::Rtn => "rtn",
            Rounding::Default | Rounding::Rte => "rte",
        };
        let (x, source) = match from {
            Scalar::Double => (x, "f64"),
            Scalar::Float | Scalar::Half => (x, "f32"),
            // Integers reach float exactly up to 2^24, far beyond half's range, where every
            // mode gives the same overflow result.
            int => (convert_lane(&mut self.b, x, int, Scalar::Float), "f32"),
        };
        let bits = self.call_symbol(&format!("clift_{source}_to_half_{mode}"), &[x], types::I16)?;
        self.call_symbol("clift_half_to_f32", &[bits], types::F32)
    }

    /// Converts lanes of type `from` to type `to` (same lane count, or scalar to vector).
    pub(in crate::codegen) fn convert_to(
        &mut self,
        v: Lanes,
        from: &Type,
        to: &Type,
    ) -> Result<Lanes> {
        if from == to {
            return Ok(v);
        }
        let (fs, ts) = (
            from.element().unwrap_or(Scalar::ULong),
            to.element().unwrap_or(Scalar::ULong),
        );
        let converted: Lanes = if ts == Scalar::Half && fs != Scalar::Half {
            v.into_iter()
                .map(|x| self.convert_to_half(x, fs, Rounding::Rte))
                .collect::<Result<_>>()?
        } else {
            // A half source is its float value.
            let fs = if fs == Scalar::Half {
                Scalar::Float
            } else {
                fs
            };
            let ts = if ts == Scalar::Half {
                Scalar::Float
            } else {
                ts
            };
            v.into_iter()
                .map(|x| convert_lane(&mut self.b, x, fs, ts))
                .collect()
        };
        if converted.len() == 1 && to.lanes() > 1 {
            return Ok(vec![converted[0]; to.lanes() as usize]);
        }
        Ok(converted)
    }

    pub(super) fn convert(
        &mut self,
        kind: ConvertKind,
        operand: &Expr,
        to: &Type,
    ) -> Result<Lanes> {
        let v = self.expr(operand)?;
        let from = &operand.ty;
        match kind {
            ConvertKind::Numeric { saturate, rounding } => {
                let (fs, ts) = (
                    from.element().unwrap_or(Scalar::Int),
                    to.element().unwrap_or(Scalar::Int),
                );
                if let Some(out) = self.packed_convert(&v, from, to, saturate, rounding) {
                    return Ok(out);
                }
                let mut out = Vec::with_capacity(v.len());
                for x in v {
                    out.push(self.convert_numeric(x, fs, ts, saturate, rounding)?);
                }
                Ok(out)
            }
            ConvertKind::Splat => Ok(vec![v[0]; to.lanes() as usize]),
            ConvertKind::BoolSplat => {
                let (t, n) = lane_types(to).ok_or_else(|| CodegenError("bool splat".into()))?;
                let m = crate::codegen::ops::mask(&mut self.b, v[0], t, true);
                Ok(vec![m; n])
            }
            ConvertKind::ToBool => Ok(vec![self.truth(v[0], from)]),
            ConvertKind::Bitcast => self.bitcast(v, from, to),
            ConvertKind::PointerCast | ConvertKind::Decay => Ok(v),
            ConvertKind::PointerToInt => {
                let (t, _) = lane_types(to).ok_or_else(|| CodegenError("pointer to int".into()))?;
                Ok(vec![if t == types::I64 {
                    v[0]
                } else {
                    self.b.ins().ireduce(t, v[0])
                }])
            }
            ConvertKind::IntToPointer => Ok(v),
        }
    }

    /// One lane of `convert_T[_sat][_rtX]` (or an implicit conversion).
    pub fn convert_numeric(
        &mut self,
        x: Value,
        from: Scalar,
        to: Scalar,
        saturate: bool,
        rounding: Rounding,
    ) -> Result<Value> {
        if to == Scalar::Half {
            return if from == Scalar::Half {
                Ok(x)
            } else {
                self.convert_to_half(x, from, rounding)
            };
        }
        // A half source is its float value, exactly.
        let from = if from == Scalar::Half {
            Scalar::Float
        } else {
            from
        };
        if from == to {
            return Ok(x);
        }
        match (from.is_float(), to.is_float()) {
            (false, false) if saturate => Ok(saturate_int(&mut self.b, x, from, to)),
            (true, false) => {
                // Round to an integral value first with the requested mode, then convert
                // (the conversion truncates, saturates, and maps NaN to 0).
                let r = match rounding {
                    Rounding::Default | Rounding::Rtz => x,
                    Rounding::Rte => self.b.ins().nearest(x),
                    Rounding::Rtp => self.b.ins().ceil(x),
                    Rounding::Rtn => self.b.ins().floor(x),
                };
                Ok(convert_lane(&mut self.b, r, from, to))
            }
            // float -> double is exact in every mode (`fpromote`), and so has no function.
            (_, true)
                if !matches!(rounding, Rounding::Default | Rounding::Rte)
                    && from != to
                    && !(from == Scalar::Float && to == Scalar::Double) =>
            {
                let name = format!(
                    "clift_convert_{}_{}_{}",
                    to.name(),
                    match rounding {
                        Rounding::Rtz => "rtz",
                        Rounding::Rtp => "rtp",
                        _ => "rtn",
                    },
                    from.name()
                );
                Ok(self.call_symbol(&name, &[x], clif_type(to))?)
            }
            _ => Ok(convert_lane(&mut self.b, x, from, to)),
        }
    }

    /// `as_T`: the same bytes, reinterpreted (through memory when the lane shapes differ).
    pub(super) fn bitcast(&mut self, v: Lanes, from: &Type, to: &Type) -> Result<Lanes> {
        // half lanes are reinterpreted as their 16 bits (exact: the value is a half).
        let as_bits = |ty: &Type| match ty {
            Type::Scalar(Scalar::Half) => Type::Scalar(Scalar::UShort),
            Type::Vector(Scalar::Half, n) => Type::Vector(Scalar::UShort, *n),
            other => other.clone(),
        };
        if from.element() == Some(Scalar::Half) {
            let bits = v
                .into_iter()
                .map(|x| self.half_bits(x))
                .collect::<Result<Lanes>>()?;
            return self.bitcast(bits, &as_bits(from), to);
        }
        if to.element() == Some(Scalar::Half) {
            let bits = self.bitcast(v, from, &as_bits(to))?;
            return bits
                .into_iter()
                .map(|b| self.call_symbol("clift_half_bits_to_f32", &[b], types::F32))
                .collect();
        }
        let (ft, fnl) = lane_types(from).ok_or_else(|| CodegenError("as_type".into()))?;
        let (tt, tnl) = lane_types(to).ok_or_else(|| CodegenError("as_type".into()))?;
        if fnl == tnl && ft.bits() == tt.bits() {
            return Ok(v
                .into_iter()
                .map(|x| {
                    if ft == tt {
                        x
                    } else {
                        self.b.ins().bitcast(tt, MemFlagsData::new(), x)
                    }
                })
                .collect());
        }
        let size = (from.size().max(to.size())) as u32;
        let slot = self.b.create_sized_stack_slot(ir::StackSlotData::new(
            ir::StackSlotKind::ExplicitSlot,
            size,
            4,
        ));
        let addr = self.b.ins().stack_addr(types::I64, slot, 0);
        for (i, x) in v.into_iter().enumerate() {
            self.b.ins().store(
                MemFlagsData::trusted(),
                x,
                addr,
                (i as u32 * ft.bytes()) as i32,
            );
        }
        Ok((0..tnl)
            .map(|i| {
                self.b.ins().load(
                    tt,
                    MemFlagsData::trusted(),
                    addr,
                    (i as u32 * tt.bytes()) as i32,
                )
            })
            .collect())
    }

    pub(super) fn condition(&mut self, e: &Expr) -> Result<Value> {
        let v = self.expr(e)?[0];
        Ok(self.truth(v, &e.ty))
    }

    /// A scalar's truth value (nonzero) as an i8 0/1.
    pub fn truth(&mut self, v: Value, ty: &Type) -> Value {
        if ty.is_floating() {
            let zero = if ty.element() == Some(Scalar::Double) {
                self.b.ins().f64const(0.0)
            } else {
                self.b.ins().f32const(0.0)
            };
            self.b.ins().fcmp(ir::condcodes::FloatCC::NotEqual, v, zero)
        } else {
            self.b.ins().icmp_imm_s(IntCC::NotEqual, v, 0)
        }
    }
}
