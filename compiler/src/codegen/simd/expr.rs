//! Expressions of a step's work-items: uniform ones by the scalar lowering, consecutive
//! ids and addresses as sequences, `int`/`uint`/`float` in registers (vectors of them one
//! register per component), the rest per lane. Memory is in `memory.rs`, builtins in
//! `builtins.rs`.

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{self, InstBuilder, InstructionData, Opcode, Value, types};
use cranelift_frontend::Variable;

use super::super::func::{Lanes, Result, constant_dimension};
use super::super::ops::clif_type;
use super::super::ops::lane_types;
use super::WIDTH;
use super::lower::VecLower;
use super::narrow::narrow_scalar;
use super::narrow_vec::{bitcast_in_words, narrow_soa};
use super::pair::{pair_type, soa_pair_type};
use super::value::{Index, VVal, soa_type, vec_type};
use crate::frontend::tir::{
    BinaryOp, BuiltinFunction, ConvertKind, Expr, ExprKind, Place, PlaceKind, Rounding, UnaryOp,
};
use crate::frontend::types::{Scalar, Type};

/// The comparison a binary operator makes, if it is one: (integer, float) condition codes.
pub(super) fn comparison(op: BinaryOp, signed: bool) -> Option<(IntCC, FloatCC)> {
    use BinaryOp::*;
    let pick = |s: IntCC, u: IntCC| if signed { s } else { u };
    Some(match op {
        Lt => (
            pick(IntCC::SignedLessThan, IntCC::UnsignedLessThan),
            FloatCC::LessThan,
        ),
        Gt => (
            pick(IntCC::SignedGreaterThan, IntCC::UnsignedGreaterThan),
            FloatCC::GreaterThan,
        ),
        Le => (
            pick(IntCC::SignedLessThanOrEqual, IntCC::UnsignedLessThanOrEqual),
            FloatCC::LessThanOrEqual,
        ),
        Ge => (
            pick(
                IntCC::SignedGreaterThanOrEqual,
                IntCC::UnsignedGreaterThanOrEqual,
            ),
            FloatCC::GreaterThanOrEqual,
        ),
        Eq => (IntCC::Equal, FloatCC::Equal),
        // NaN != anything is true.
        Ne => (IntCC::NotEqual, FloatCC::NotEqual),
        _ => return None,
    })
}

impl VecLower<'_, '_> {
    /// Whether `e` has the same value in every work-item of the step (and no effect that
    /// each work-item must have on its own).
    pub(super) fn is_uniform(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Const(_) | ExprKind::StringLiteral(_) => true,
            ExprKind::Load(p) => self.place_uniform(p),
            ExprKind::AddressOf(p) => match &p.kind {
                PlaceKind::Deref(e) => self.is_uniform(e),
                _ => false,
            },
            ExprKind::Assign { place, value, .. } => {
                matches!(place.kind, PlaceKind::Local(id) if self.uniform.contains(&id))
                    && self.is_uniform(value)
            }
            ExprKind::IncDec { place, .. } => {
                matches!(place.kind, PlaceKind::Local(id) if self.uniform.contains(&id))
            }
            ExprKind::Unary { operand, .. } | ExprKind::Convert { operand, .. } => {
                self.is_uniform(operand)
            }
            ExprKind::Swizzle { base, .. } => self.is_uniform(base),
            ExprKind::Binary { lhs, rhs, .. }
            | ExprKind::Logical { lhs, rhs, .. }
            | ExprKind::PointerDiff { lhs, rhs }
            | ExprKind::Comma { lhs, rhs } => self.is_uniform(lhs) && self.is_uniform(rhs),
            ExprKind::PointerOffset {
                pointer, offset, ..
            } => self.is_uniform(pointer) && self.is_uniform(offset),
            ExprKind::Conditional {
                cond,
                then_expr,
                else_expr,
            }
            | ExprKind::Select {
                cond,
                then_expr,
                else_expr,
            } => self.is_uniform(cond) && self.is_uniform(then_expr) && self.is_uniform(else_expr),
            ExprKind::VectorLiteral(parts) => parts.iter().all(|p| self.is_uniform(p)),
            // The ids of dimensions 1 and 2 are the same for a row's items; any other
            // builtin is uniform when its attributes say so (pure, not varying) and its
            // arguments are.
            ExprKind::Builtin { id, args } => match id.function() {
                BuiltinFunction::GetGlobalId | BuiltinFunction::GetLocalId => {
                    constant_dimension(args).is_some_and(|d| d != 0)
                }
                _ => {
                    id.attributes().uniform_with_uniform_arguments()
                        && args.iter().all(|a| self.is_uniform(a))
                }
            },
            ExprKind::Call { .. } | ExprKind::StmtExpr { .. } => false,
        }
    }

    /// Whether reading `p` gives every work-item the same value: uniform variables, and
    /// memory at a uniform address (work-items of a step read it at the same time).
    pub(super) fn place_uniform(&self, p: &Place) -> bool {
        match &p.kind {
            PlaceKind::Local(id) => self.uniform.contains(id),
            PlaceKind::Global(_) => true,
            PlaceKind::Deref(e) => self.is_uniform(e),
            PlaceKind::Element { array, index } => {
                self.place_uniform(array) && self.is_uniform(index)
            }
            PlaceKind::Field { record, .. } => self.place_uniform(record),
            PlaceKind::Lanes { vector, .. } => self.place_uniform(vector),
            PlaceKind::Value(_) | PlaceKind::CompoundLiteral { .. } => false,
        }
    }

    /// Evaluates `e` for the step's work-items (in the lanes of the current mask).
    pub(super) fn vexpr(&mut self, e: &Expr) -> Result<VVal> {
        if self.is_uniform(e) {
            return Ok(VVal::U(self.l.expr(e)?));
        }
        match &e.kind {
            ExprKind::Load(p) => match self.load_place(p)? {
                Some(v) => Ok(v),
                None => self.per_lane(e),
            },
            ExprKind::Assign {
                place,
                op,
                value,
                op_ty,
            } => {
                let ty = place.ty.ty.clone();
                if op.is_some() && ty.is_pointer() {
                    return self.per_lane(e);
                }
                match &place.kind {
                    PlaceKind::Local(id) if self.vars.contains_key(id) => {
                        let id = *id;
                        let v = self.vexpr(value)?;
                        let new = match op {
                            None => v,
                            Some(op) => {
                                let cur = self.get_local(id)?;
                                self.compound(*op, cur, v, &ty, &value.ty, op_ty)?
                            }
                        };
                        self.write_local(id, new.clone())?;
                        Ok(new)
                    }
                    PlaceKind::Deref(_) | PlaceKind::Element { .. }
                        if memory_scalar(&ty) && self.memory_place(place) =>
                    {
                        let addr = self.place_address(place)?;
                        let v = self.vexpr(value)?;
                        let new = match op {
                            None => v,
                            Some(op) => {
                                let cur = self.load_mem(addr.clone(), &ty)?;
                                self.compound(*op, cur, v, &ty, &value.ty, op_ty)?
                            }
                        };
                        self.store_mem(addr, new.clone(), &ty)?;
                        Ok(new)
                    }
                    _ => self.per_lane(e),
                }
            }
            ExprKind::IncDec {
                place,
                increment,
                prefix,
            } => {
                let ty = place.ty.ty.clone();
                if vec_type(&ty).is_none() {
                    return self.per_lane(e);
                }
                let one = match ty.scalar() {
                    Some(Scalar::Float) => self.l.b.ins().f32const(1.0),
                    _ => self.l.b.ins().iconst(types::I32, 1),
                };
                let op = if *increment {
                    BinaryOp::Add
                } else {
                    BinaryOp::Sub
                };
                let (old, addr) = match &place.kind {
                    PlaceKind::Local(id) if self.vars.contains_key(id) => {
                        (self.get_local(*id)?, None)
                    }
                    PlaceKind::Deref(_) | PlaceKind::Element { .. } if self.memory_place(place) => {
                        let addr = self.place_address(place)?;
                        (self.load_mem(addr.clone(), &ty)?, Some(addr))
                    }
                    _ => return self.per_lane(e),
                };
                let new = self.binary_vals(op, old.clone(), VVal::U(vec![one]), &ty, &ty)?;
                match (&place.kind, addr) {
                    (_, Some(addr)) => self.store_mem(addr, new.clone(), &ty)?,
                    (PlaceKind::Local(id), None) => self.write_local(*id, new.clone())?,
                    _ => return self.per_lane(e),
                }
                Ok(if *prefix { new } else { old })
            }
            ExprKind::Unary { op, operand } => match (op, vec_type(&operand.ty)) {
                (UnaryOp::LogicalNot, _) => {
                    let m = self.cond_mask(operand)?;
                    let not = self.l.b.ins().bnot(m);
                    Ok(VVal::V(self.l.b.ins().ushr_imm_s(not, 31)))
                }
                (UnaryOp::Neg | UnaryOp::BitNot, None) if soa_type(&operand.ty).is_some() => {
                    let (vt, n) = soa_type(&operand.ty).expect("matched");
                    let v = self.vexpr(operand)?;
                    let cs = (0..n)
                        .map(|c| {
                            let x = self.component(&v, c, vt);
                            match (op, vt == types::F32X4) {
                                (UnaryOp::Neg, true) => self.l.b.ins().fneg(x),
                                (UnaryOp::Neg, false) => self.l.b.ins().ineg(x),
                                _ => self.l.b.ins().bnot(x),
                            }
                        })
                        .collect();
                    Ok(VVal::S(cs))
                }
                (UnaryOp::Neg | UnaryOp::BitNot, None) if narrow_soa(&operand.ty).is_some() => {
                    let (s, n) = narrow_soa(&operand.ty).expect("matched");
                    let v = self.vexpr(operand)?;
                    Ok(self.narrow_vec_unary(*op == UnaryOp::Neg, &v, s, n))
                }
                (UnaryOp::Neg, None) if pair_type(&operand.ty) == Some(types::F64X2) => {
                    let v = self.vexpr(operand)?;
                    let p = self.pair(&v, types::F64X2);
                    Ok(VVal::P(p.map(|h| self.l.b.ins().fneg(h))))
                }
                (UnaryOp::Neg | UnaryOp::BitNot, Some(vt)) => {
                    let v = self.vexpr(operand)?;
                    let x = self.vector(&v, vt);
                    Ok(VVal::V(match (op, vt == types::F32X4) {
                        (UnaryOp::Neg, true) => self.l.b.ins().fneg(x),
                        (UnaryOp::Neg, false) => self.l.b.ins().ineg(x),
                        _ => self.l.b.ins().bnot(x),
                    }))
                }
                _ => self.per_lane(e),
            },
            ExprKind::Binary { op, lhs, rhs } => {
                let (a, b) = (self.vexpr(lhs)?, self.vexpr(rhs)?);
                self.binary_vals(*op, a, b, &lhs.ty, &e.ty)
            }
            ExprKind::Logical { .. } => {
                let m = self.cond_mask(e)?;
                Ok(VVal::V(self.l.b.ins().ushr_imm_s(m, 31)))
            }
            ExprKind::PointerOffset {
                pointer,
                offset,
                subtract,
            } => {
                let Type::Pointer(pointee) = &pointer.ty else {
                    return self.per_lane(e);
                };
                let size = pointee.ty.size() as i64;
                let p = self.vexpr(pointer)?;
                let o = match (&offset.kind, &p, subtract) {
                    // `p[i]` with an `int`/`uint` index in a register: kept as the index,
                    // which may turn out consecutive at run time.
                    (
                        ExprKind::Convert {
                            kind:
                                ConvertKind::Numeric {
                                    saturate: false,
                                    rounding: Rounding::Default,
                                },
                            operand,
                        },
                        VVal::U(base),
                        false,
                    ) if vec_type(&operand.ty) == Some(types::I32X4)
                        && offset.ty.scalar().is_some_and(|s| s.bits() == 64) =>
                    {
                        let o = self.vexpr(operand)?;
                        if let Some(index) = index_of(&o)
                            && index.is_32_bits(&self.l.b.func.dfg)
                        {
                            return Ok(VVal::Indexed {
                                base: base[0],
                                index,
                                signed: operand.ty.scalar().is_some_and(Scalar::is_signed),
                                scale: size,
                            });
                        }
                        self.convert_vals(
                            o,
                            &operand.ty,
                            &offset.ty,
                            Some((false, Rounding::Default)),
                        )?
                    }
                    _ => self.vexpr(offset)?,
                };
                match (&p, &o, subtract) {
                    (VVal::U(p), VVal::Seq { base, stride, .. }, false) => {
                        let scaled = self.l.b.ins().imul_imm_s(*base, size);
                        Ok(VVal::Seq {
                            base: self.l.b.ins().iadd(p[0], scaled),
                            stride: stride * size,
                            exact: true,
                            id: false,
                        })
                    }
                    (VVal::Seq { base, stride, .. }, VVal::U(o), _) => {
                        let scaled = self.l.b.ins().imul_imm_s(o[0], size);
                        let base = if *subtract {
                            self.l.b.ins().isub(*base, scaled)
                        } else {
                            self.l.b.ins().iadd(*base, scaled)
                        };
                        Ok(VVal::Seq {
                            base,
                            stride: *stride,
                            exact: true,
                            id: false,
                        })
                    }
                    _ => {
                        let (pl, ol) = (self.lanes(&p), self.lanes(&o));
                        let lanes = (0..WIDTH as usize)
                            .map(|k| {
                                let scaled = self.l.b.ins().imul_imm_s(ol[k][0], size);
                                vec![if *subtract {
                                    self.l.b.ins().isub(pl[k][0], scaled)
                                } else {
                                    self.l.b.ins().iadd(pl[k][0], scaled)
                                }]
                            })
                            .collect();
                        Ok(VVal::L(lanes))
                    }
                }
            }
            ExprKind::Conditional {
                cond,
                then_expr,
                else_expr,
            } if lane_types(&e.ty).is_some() => {
                if self.is_uniform(cond) {
                    return self.uniform_conditional(cond, then_expr, else_expr, &e.ty);
                }
                let m = self.cond_mask(cond)?;
                let t = self.under(m, |s| s.vexpr(then_expr))?;
                let not = self.l.b.ins().bnot(m);
                let f = self.under(not, |s| s.vexpr(else_expr))?;
                Ok(self.blend(Some(m), t, f, &e.ty))
            }
            ExprKind::Convert {
                kind: ConvertKind::Numeric { saturate, rounding },
                operand,
            } => {
                let v = self.vexpr(operand)?;
                self.convert_vals(v, &operand.ty, &e.ty, Some((*saturate, *rounding)))
            }
            ExprKind::Builtin { id, args } => self.builtin(e, *id, args),
            ExprKind::Swizzle { base, lanes } if soa_type(&base.ty).is_some() => {
                let (vt, _) = soa_type(&base.ty).expect("matched");
                let v = self.vexpr(base)?;
                let mut cs = Vec::with_capacity(lanes.len());
                for &l in lanes {
                    cs.push(match self.components(&v, &base.ty, vt).get(l as usize) {
                        Some(c) => *c,
                        // Lane 3 of a 3-vector (.hi, .odd): undefined; 0.
                        None => self.zero(vt),
                    });
                }
                Ok(if lanes.len() == 1 {
                    VVal::V(cs[0])
                } else {
                    VVal::S(cs)
                })
            }
            ExprKind::Swizzle { base, lanes } if narrow_soa(&base.ty).is_some() => {
                let (s, n) = narrow_soa(&base.ty).expect("matched");
                let v = self.vexpr(base)?;
                Ok(self.narrow_swizzle(&v, s, n, lanes))
            }
            ExprKind::Swizzle { base, lanes } if soa_pair_type(&base.ty).is_some() => {
                let (pt, n) = soa_pair_type(&base.ty).expect("matched");
                let v = self.vexpr(base)?;
                let cs: Vec<_> = (0..n).map(|c| self.pair_component(&v, c, pt)).collect();
                let mut picked = Vec::with_capacity(lanes.len());
                for &l in lanes {
                    picked.push(match cs.get(l as usize) {
                        Some(c) => *c,
                        // Lane 3 of a 3-vector: undefined; 0.
                        None => {
                            let z = self.zero(pt);
                            [z, z]
                        }
                    });
                }
                Ok(if lanes.len() == 1 {
                    VVal::P(picked[0])
                } else {
                    VVal::SP(picked)
                })
            }
            ExprKind::Convert {
                kind: ConvertKind::Splat,
                operand,
            } if soa_pair_type(&e.ty).is_some() => {
                let (pt, n) = soa_pair_type(&e.ty).expect("matched");
                let v = self.vexpr(operand)?;
                let p = self.pair(&v, pt);
                Ok(VVal::SP(vec![p; n]))
            }
            ExprKind::VectorLiteral(parts) if soa_pair_type(&e.ty).is_some() => {
                let (pt, _) = soa_pair_type(&e.ty).expect("matched");
                let mut cs = Vec::new();
                for p in parts {
                    let v = self.vexpr(p)?;
                    if p.ty.is_vector() {
                        let n = p.ty.lanes().max(1) as usize;
                        for c in 0..n {
                            cs.push(self.pair_component(&v, c, pt));
                        }
                    } else {
                        cs.push(self.pair(&v, pt));
                    }
                }
                Ok(VVal::SP(cs))
            }
            ExprKind::VectorLiteral(parts) if soa_type(&e.ty).is_some() => {
                let (vt, _) = soa_type(&e.ty).expect("matched");
                let mut cs = Vec::new();
                for p in parts {
                    let v = self.vexpr(p)?;
                    if p.ty.is_vector() {
                        cs.extend(self.components(&v, &p.ty, vt));
                    } else {
                        cs.push(self.vector(&v, vt));
                    }
                }
                Ok(VVal::S(cs))
            }
            ExprKind::Convert {
                kind: ConvertKind::Splat,
                operand,
            } if soa_type(&e.ty).is_some() => {
                let (vt, n) = soa_type(&e.ty).expect("matched");
                let v = self.vexpr(operand)?;
                let x = self.vector(&v, vt);
                Ok(VVal::S(vec![x; n]))
            }
            ExprKind::VectorLiteral(parts) if narrow_soa(&e.ty).is_some() => {
                let (s, _) = narrow_soa(&e.ty).expect("matched");
                let mut cs = Vec::new();
                for p in parts {
                    let v = self.vexpr(p)?;
                    match narrow_soa(&p.ty) {
                        Some((_, n)) => {
                            cs.extend((0..n).map(|c| self.narrow_component(&v, c, s)));
                        }
                        None => cs.push(self.narrow_reg(&v, s)),
                    }
                }
                Ok(VVal::NS(cs, clif_type(s)))
            }
            ExprKind::Convert {
                kind: ConvertKind::Splat,
                operand,
            } if narrow_soa(&e.ty).is_some() => {
                let (s, n) = narrow_soa(&e.ty).expect("matched");
                let v = self.vexpr(operand)?;
                let x = self.narrow_reg(&v, s);
                Ok(VVal::NS(vec![x; n], clif_type(s)))
            }
            ExprKind::Convert {
                kind: ConvertKind::Bitcast,
                operand,
            } if bitcast_in_words(&operand.ty, &e.ty) => {
                let v = self.vexpr(operand)?;
                Ok(self
                    .bitcast_words(&v, &operand.ty, &e.ty)
                    .expect("bitcast_in_words said so"))
            }
            ExprKind::Comma { lhs, rhs } => {
                self.vexpr(lhs)?;
                self.vexpr(rhs)
            }
            _ => self.per_lane(e),
        }
    }

    /// The value at a place, where it is a varying variable, memory, or components of one
    /// (`v.xyz`); `None` where only the scalar lowering reads it (per lane).
    fn load_place(&mut self, p: &Place) -> Result<Option<VVal>> {
        Ok(Some(match &p.kind {
            PlaceKind::Local(id) if self.vars.contains_key(id) => self.get_local(*id)?,
            PlaceKind::Deref(_) | PlaceKind::Element { .. }
                if memory_scalar(&p.ty.ty) && self.memory_place(p) =>
            {
                let addr = self.place_address(p)?;
                self.load_mem(addr, &p.ty.ty)?
            }
            PlaceKind::Lanes { vector, lanes } if soa_type(&vector.ty.ty).is_some() => {
                let (vt, _) = soa_type(&vector.ty.ty).expect("matched");
                let v = if self.place_uniform(vector) {
                    let load = Expr {
                        kind: ExprKind::Load(vector.clone()),
                        ty: vector.ty.ty.clone(),
                        span: vector.span,
                    };
                    VVal::U(self.l.expr(&load)?)
                } else {
                    match self.load_place(vector)? {
                        Some(v) => v,
                        None => return Ok(None),
                    }
                };
                if let VVal::U(x) = &v {
                    let picked = lanes
                        .iter()
                        .map(|&l| x.get(l as usize).copied().unwrap_or(x[0]))
                        .collect();
                    return Ok(Some(VVal::U(picked)));
                }
                let cs = self.components(&v, &vector.ty.ty, vt);
                let picked: Vec<Value> = lanes
                    .iter()
                    .map(|&l| cs.get(l as usize).copied().unwrap_or(cs[0]))
                    .collect();
                if picked.len() == 1 {
                    VVal::V(picked[0])
                } else {
                    VVal::S(picked)
                }
            }
            PlaceKind::Lanes { vector, lanes }
                if narrow_soa(&vector.ty.ty).is_some() && !self.place_uniform(vector) =>
            {
                let (s, n) = narrow_soa(&vector.ty.ty).expect("matched");
                let Some(v) = self.load_place(vector)? else {
                    return Ok(None);
                };
                self.narrow_swizzle(&v, s, n, lanes)
            }
            PlaceKind::Lanes { vector, lanes }
                if soa_pair_type(&vector.ty.ty).is_some() && !self.place_uniform(vector) =>
            {
                let (pt, n) = soa_pair_type(&vector.ty.ty).expect("matched");
                let Some(v) = self.load_place(vector)? else {
                    return Ok(None);
                };
                let cs: Vec<_> = (0..n).map(|c| self.pair_component(&v, c, pt)).collect();
                let picked: Vec<_> = lanes
                    .iter()
                    .map(|&l| cs.get(l as usize).copied().unwrap_or(cs[0]))
                    .collect();
                if picked.len() == 1 {
                    VVal::P(picked[0])
                } else {
                    VVal::SP(picked)
                }
            }
            _ => return Ok(None),
        }))
    }

    /// `c ? a : b` with a uniform `c`: one side only, as a branch.
    fn uniform_conditional(&mut self, cond: &Expr, a: &Expr, b: &Expr, ty: &Type) -> Result<VVal> {
        let c = self.uniform_truth(cond)?;
        let (then_b, else_b, join) = (
            self.l.b.create_block(),
            self.l.b.create_block(),
            self.l.b.create_block(),
        );
        let (t, n) = lane_types(ty).unwrap_or((types::I64, 1));
        let vt = vec_type(ty);
        let vars: Vec<Variable> = match vt {
            Some(vt) => vec![self.l.b.declare_var(vt)],
            None => (0..WIDTH as usize * n)
                .map(|_| self.l.b.declare_var(t))
                .collect(),
        };
        self.l.b.ins().brif(c, then_b, &[], else_b, &[]);
        for (block, side) in [(then_b, a), (else_b, b)] {
            self.l.b.switch_to_block(block);
            let v = self.vexpr(side)?;
            match vt {
                Some(vt) => {
                    let x = self.vector(&v, vt);
                    self.l.b.def_var(vars[0], x);
                }
                None => {
                    let lanes = self.lanes(&v);
                    for (var, x) in vars.iter().zip(lanes.into_iter().flatten()) {
                        self.l.b.def_var(*var, x);
                    }
                }
            }
            self.l.b.ins().jump(join, &[]);
        }
        self.l.b.switch_to_block(join);
        Ok(match vt {
            Some(_) => VVal::V(self.l.b.use_var(vars[0])),
            None => VVal::L(
                vars.chunks(n)
                    .map(|c| c.iter().map(|v| self.l.b.use_var(*v)).collect())
                    .collect(),
            ),
        })
    }

    /// The lanes where a condition holds, as an `i32x4` mask.
    pub(super) fn cond_mask(&mut self, e: &Expr) -> Result<Value> {
        if self.is_uniform(e) {
            let t = self.uniform_truth(e)?;
            let w = self.l.b.ins().uextend(types::I32, t);
            let m = self.l.b.ins().ineg(w);
            return Ok(self.l.b.ins().splat(types::I32X4, m));
        }
        match &e.kind {
            ExprKind::Binary { op, lhs, rhs } => {
                let signed = lhs.ty.scalar().is_some_and(Scalar::is_signed);
                if let (Some(vt), Some((icc, fcc))) = (vec_type(&lhs.ty), comparison(*op, signed)) {
                    let (a, b) = (self.vexpr(lhs)?, self.vexpr(rhs)?);
                    let (x, y) = (self.vector(&a, vt), self.vector(&b, vt));
                    return Ok(if vt == types::F32X4 {
                        self.l.b.ins().fcmp(fcc, x, y)
                    } else {
                        self.l.b.ins().icmp(icc, x, y)
                    });
                }
                if comparison(*op, signed).is_some()
                    && lhs
                        .ty
                        .scalar()
                        .is_some_and(|s| s.is_integer() && s.bits() == 64)
                {
                    // `lid < s` on `size_t`s: the mask itself where it is a sequence's
                    // compare (`seq_compare.rs`), else the 0/1 value's.
                    let (a, b) = (self.vexpr(lhs)?, self.vexpr(rhs)?);
                    if let Some(m) = self.seq_compare(*op, &a, &b, &lhs.ty) {
                        return Ok(m);
                    }
                    let v = self.binary_vals(*op, a, b, &lhs.ty, &e.ty)?;
                    return self.truth_mask(v, &e.ty);
                }
            }
            ExprKind::Logical { and, lhs, rhs } => {
                let a = self.cond_mask(lhs)?;
                // The right side runs only in the lanes the left one does not decide.
                let rest = if *and { a } else { self.l.b.ins().bnot(a) };
                let b = self.under(rest, |s| s.cond_mask(rhs))?;
                return Ok(if *and {
                    self.l.b.ins().band(a, b)
                } else {
                    self.l.b.ins().bor(a, b)
                });
            }
            ExprKind::Unary {
                op: UnaryOp::LogicalNot,
                operand,
            } => {
                let m = self.cond_mask(operand)?;
                return Ok(self.l.b.ins().bnot(m));
            }
            _ => {}
        }
        let v = self.vexpr(e)?;
        self.truth_mask(v, &e.ty)
    }

    /// The lane mask of where the value `v` of type `ty` is true (not zero).
    fn truth_mask(&mut self, v: VVal, ty: &Type) -> Result<Value> {
        if let Some(s) = narrow_scalar(ty) {
            let x = self.narrow_reg(&v, s);
            let zero = self.zero(types::I32X4);
            return Ok(self.l.b.ins().icmp(IntCC::NotEqual, x, zero));
        }
        match vec_type(ty) {
            Some(types::F32X4) => {
                let x = self.vector(&v, types::F32X4);
                let zero = self.zero(types::F32X4);
                Ok(self.l.b.ins().fcmp(FloatCC::NotEqual, x, zero))
            }
            Some(vt) => {
                let x = self.vector(&v, vt);
                let zero = self.zero(vt);
                Ok(self.l.b.ins().icmp(IntCC::NotEqual, x, zero))
            }
            None => {
                let lanes = self.lanes(&v);
                let truths: Vec<Lanes> = lanes
                    .iter()
                    .map(|lane| {
                        let t = self.l.truth(lane[0], ty);
                        let w = self.l.b.ins().uextend(types::I32, t);
                        vec![self.l.b.ins().ineg(w)]
                    })
                    .collect();
                Ok(self.vector(&VVal::L(truths), types::I32X4))
            }
        }
    }

    /// `cur op= v` for a place of type `ty`, as the scalar lowering computes it.
    fn compound(
        &mut self,
        op: BinaryOp,
        cur: VVal,
        v: VVal,
        ty: &Type,
        value_ty: &Type,
        op_ty: &Type,
    ) -> Result<VVal> {
        // `int id += size_t`: adding in the wider type and narrowing back gives each lane
        // what adding the narrowed value does in the narrow type (arithmetic modulo 2^32),
        // so a sequence stays one (its lanes may now wrap: not exact).
        if let (
            BinaryOp::Add | BinaryOp::Sub,
            VVal::Seq { base, stride, .. },
            VVal::U(u),
            Type::Scalar(to),
            Type::Scalar(wide),
        ) = (op, &cur, &v, ty, op_ty)
            && to.is_integer()
            && wide.is_integer()
            && *to != Scalar::Bool
            && wide.bits() > to.bits()
        {
            let narrow = self.l.b.ins().ireduce(clif_type(*to), u[0]);
            let base = if op == BinaryOp::Add {
                self.l.b.ins().iadd(*base, narrow)
            } else {
                self.l.b.ins().isub(*base, narrow)
            };
            return Ok(VVal::Seq {
                base,
                stride: *stride,
                exact: false,
                id: false,
            });
        }
        let cur = self.convert_vals(cur, ty, op_ty, None)?;
        let r = self.binary_vals(op, cur, v, value_ty, op_ty)?;
        self.convert_vals(r, op_ty, ty, None)
    }

    /// A binary operator on the step's values (operands already converted, as in
    /// `Lower::binary`).
    pub(super) fn binary_vals(
        &mut self,
        op: BinaryOp,
        a: VVal,
        b: VVal,
        operand_ty: &Type,
        result_ty: &Type,
    ) -> Result<VVal> {
        use BinaryOp::*;
        if let (VVal::U(x), VVal::U(y)) = (&a, &b) {
            return Ok(VVal::U(self.l.binary(
                op,
                x.clone(),
                y.clone(),
                operand_ty,
                result_ty,
            )?));
        }
        let s = operand_ty.scalar().unwrap_or(Scalar::Long);
        let int = matches!(operand_ty, Type::Scalar(_) | Type::Enum(..)) && s.is_integer();
        // Affine functions of the ids stay sequences (in the type's wrapping arithmetic;
        // exact where overflow is undefined or cannot happen).
        if int && operand_ty == result_ty {
            let keeps_exact = s.is_signed() || s.bits() == 64;
            let seq = |base, stride, exact: bool| VVal::Seq {
                base,
                stride,
                exact: exact && keeps_exact,
                id: false,
            };
            match (op, &a, &b) {
                (
                    Add,
                    VVal::Seq {
                        base,
                        stride,
                        exact,
                        ..
                    },
                    VVal::U(u),
                )
                | (
                    Add,
                    VVal::U(u),
                    VVal::Seq {
                        base,
                        stride,
                        exact,
                        ..
                    },
                ) => {
                    let base = self.l.b.ins().iadd(*base, u[0]);
                    return Ok(seq(base, *stride, *exact));
                }
                (
                    Sub,
                    VVal::Seq {
                        base,
                        stride,
                        exact,
                        ..
                    },
                    VVal::U(u),
                ) => {
                    let base = self.l.b.ins().isub(*base, u[0]);
                    return Ok(seq(base, *stride, *exact));
                }
                (
                    Mul,
                    VVal::Seq {
                        base,
                        stride,
                        exact,
                        ..
                    },
                    VVal::U(u),
                )
                | (
                    Mul,
                    VVal::U(u),
                    VVal::Seq {
                        base,
                        stride,
                        exact,
                        ..
                    },
                ) => {
                    if let Some(c) = self.int_constant(u[0]) {
                        let base = self.l.b.ins().imul(*base, u[0]);
                        return Ok(seq(base, stride.wrapping_mul(c), *exact));
                    }
                }
                _ => {}
            }
        }
        if let Some(m) = self.seq_compare(op, &a, &b, operand_ty) {
            return Ok(VVal::V(self.l.b.ins().ushr_imm_s(m, 31)));
        }
        if let Some(r) = self.binary_pair(op, &a, &b, operand_ty, result_ty)? {
            return Ok(r);
        }
        if let (Some(vt), Some(_)) = (vec_type(operand_ty), vec_type(result_ty)) {
            let float = vt == types::F32X4;
            if let Some((icc, fcc)) = comparison(op, s.is_signed()) {
                let (x, y) = (self.vector(&a, vt), self.vector(&b, vt));
                let m = if float {
                    self.l.b.ins().fcmp(fcc, x, y)
                } else {
                    self.l.b.ins().icmp(icc, x, y)
                };
                return Ok(VVal::V(self.l.b.ins().ushr_imm_s(m, 31)));
            }
            let simd = match (op, float) {
                (Add | Sub | Mul | Div, true) => true,
                (Add | Sub | Mul | BitAnd | BitOr | BitXor, false) => true,
                (Shl | Shr, false) => matches!(b, VVal::U(_)),
                _ => false,
            };
            if simd {
                let x = self.vector(&a, vt);
                if let (Shl | Shr, VVal::U(count)) = (op, &b) {
                    // "The shift count is taken modulo the bit width" (6.3.j).
                    let count = self.l.b.ins().band_imm_s(count[0], 31);
                    return Ok(VVal::V(match (op, s.is_signed()) {
                        (Shl, _) => self.l.b.ins().ishl(x, count),
                        (_, true) => self.l.b.ins().sshr(x, count),
                        _ => self.l.b.ins().ushr(x, count),
                    }));
                }
                let y = self.vector(&b, vt);
                return Ok(VVal::V(register_op(self.l.b.ins(), op, float, x, y)));
            }
        }
        if let Some((s, n)) = narrow_soa(operand_ty)
            && let Some(r) = self.narrow_vec_binary(op, &a, &b, s, n, result_ty)
        {
            return Ok(r);
        }
        // Vectors of registers: component by component (arithmetic only: comparisons of
        // vectors give -1/0 masks, left to the lanes).
        if let (Some((_, n)), true) = (soa_type(operand_ty), operand_ty == result_ty)
            && comparison(op, true).is_none()
            && !matches!(op, VectorAnd | VectorOr)
        {
            let elem = element(operand_ty);
            let vt = vec_type(&elem).expect("soa elements have a register type");
            let mut cs = Vec::with_capacity(n);
            for c in 0..n {
                let x = self.component_val(&a, c, vt);
                let y = self.component_val(&b, c, vt);
                let r = self.binary_vals(op, x, y, &elem, &elem)?;
                cs.push(self.vector(&r, vt));
            }
            return Ok(VVal::S(cs));
        }
        let (la, lb) = (self.lanes(&a), self.lanes(&b));
        let lanes = la
            .into_iter()
            .zip(lb)
            .map(|(x, y)| self.l.binary(op, x, y, operand_ty, result_ty))
            .collect::<Result<Vec<Lanes>>>()?;
        Ok(self.assemble(lanes, result_ty))
    }

    /// Component `c` of a vector-typed value, uniform where the value is.
    fn component_val(&mut self, v: &VVal, c: usize, vt: ir::Type) -> VVal {
        match v {
            VVal::U(x) => VVal::U(vec![x[c]]),
            _ => VVal::V(self.component(v, c, vt)),
        }
    }

    /// Every component of a vector-typed value `v` of type `ty`, as registers of `vt`.
    pub(super) fn components(&mut self, v: &VVal, ty: &Type, vt: ir::Type) -> Vec<Value> {
        let n = ty.lanes().max(1) as usize;
        (0..n).map(|c| self.component(v, c, vt)).collect()
    }

    /// The value of an integer constant instruction.
    fn int_constant(&self, v: Value) -> Option<i64> {
        let inst = self.l.b.func.dfg.value_def(v).inst()?;
        match self.l.b.func.dfg.insts[inst] {
            InstructionData::UnaryImm {
                opcode: Opcode::Iconst,
                imm,
            } => Some(imm.bits()),
            _ => None,
        }
    }

    /// A conversion between scalar types: `how` is a `convert_T` / cast's (saturation,
    /// rounding), `None` the implicit conversion of a compound assignment.
    pub(super) fn convert_vals(
        &mut self,
        v: VVal,
        from: &Type,
        to: &Type,
        how: Option<(bool, Rounding)>,
    ) -> Result<VVal> {
        if from == to {
            return Ok(v);
        }
        let (Some(fs), Some(ts)) = (from.scalar(), to.scalar()) else {
            if let Some(r) = self.convert_components(&v, from, to, how)? {
                return Ok(r);
            }
            return self.convert_per_lane(v, from, to, how);
        };
        let plain = matches!(how, None | Some((false, Rounding::Default)));
        let ints = fs.is_integer() && ts.is_integer() && ts != Scalar::Bool && fs != Scalar::Bool;
        if let (
            VVal::Seq {
                base,
                stride,
                exact,
                id,
            },
            true,
            true,
        ) = (&v, plain, ints)
        {
            let (base, stride, exact, id) = (*base, *stride, *exact, *id);
            let t = super::super::ops::clif_type(ts);
            if ts.bits() < fs.bits() {
                return Ok(VVal::Seq {
                    base: self.l.b.ins().ireduce(t, base),
                    stride,
                    exact: id,
                    id,
                });
            }
            if ts.bits() == fs.bits() {
                return Ok(VVal::Seq {
                    base,
                    stride,
                    exact: exact && (fs.is_signed() == ts.is_signed() || id),
                    id,
                });
            }
            if exact {
                let base = if fs.is_signed() {
                    self.l.b.ins().sextend(t, base)
                } else {
                    self.l.b.ins().uextend(t, base)
                };
                return Ok(VVal::Seq {
                    base,
                    stride,
                    exact: true,
                    id,
                });
            }
        }
        if !matches!(v, VVal::U(_))
            && !from.is_vector()
            && !to.is_vector()
            && let Some(r) =
                self.convert_narrow(&v, fs, ts, how.unwrap_or((false, Rounding::Default)))
        {
            return Ok(r);
        }
        if let (Some(fv), Some(tv), true) = (vec_type(from), vec_type(to), plain)
            && !matches!(v, VVal::U(_))
        {
            if fv == tv {
                // int <-> uint: the same bits.
                let x = self.vector(&v, fv);
                return Ok(VVal::V(x));
            }
            if fs == Scalar::Int && ts == Scalar::Float {
                let x = self.vector(&v, fv);
                return Ok(VVal::V(self.l.b.ins().fcvt_from_sint(types::F32X4, x)));
            }
        }
        if plain
            && !matches!(v, VVal::U(_))
            && !from.is_vector()
            && !to.is_vector()
            && let Some(r) = self.convert_pair(&v, fs, ts)
        {
            return Ok(r);
        }
        self.convert_per_lane(v, from, to, how)
    }

    fn convert_per_lane(
        &mut self,
        v: VVal,
        from: &Type,
        to: &Type,
        how: Option<(bool, Rounding)>,
    ) -> Result<VVal> {
        let lanes = self.lanes(&v);
        let mut out = Vec::with_capacity(lanes.len());
        for lane in lanes {
            out.push(match how {
                None => self.l.convert_to(lane, from, to)?,
                Some((saturate, rounding)) => {
                    let (fs, ts) = (
                        from.element().unwrap_or(Scalar::Int),
                        to.element().unwrap_or(Scalar::Int),
                    );
                    lane.into_iter()
                        .map(|x| self.l.convert_numeric(x, fs, ts, saturate, rounding))
                        .collect::<Result<Lanes>>()?
                }
            });
        }
        if let VVal::U(_) = v {
            return Ok(VVal::U(out.swap_remove(0)));
        }
        Ok(self.assemble(out, to))
    }
}

/// The index of an `int`/`uint` value `v` used as an address's index where it is not
/// known to be consecutive: its register, or a sequence whose lanes may wrap (an exact one
/// extends to a 64-bit sequence instead, with no test).
pub(super) fn index_of(v: &VVal) -> Option<Index> {
    match *v {
        VVal::V(index) => Some(Index::Reg(index)),
        VVal::Seq {
            base,
            stride,
            exact: false,
            ..
        } => Some(Index::Seq {
            first: base,
            stride,
        }),
        _ => None,
    }
}

/// Whether a memory place of type `ty` is read and written here (one scalar, not `half`).
/// A register-wide arithmetic or bitwise operator (`op` one of `+ - * /` for floats, `+ - *
/// & | ^` for integers; callers filter the rest): the work-item vectorizer's registers and
/// register pairs both use it.
pub(super) fn register_op(
    ins: cranelift_frontend::FuncInstBuilder<'_, '_>,
    op: BinaryOp,
    float: bool,
    x: Value,
    y: Value,
) -> Value {
    use BinaryOp::*;
    match (op, float) {
        (Add, true) => ins.fadd(x, y),
        (Sub, true) => ins.fsub(x, y),
        (Mul, true) => ins.fmul(x, y),
        (Div, true) => ins.fdiv(x, y),
        (Add, false) => ins.iadd(x, y),
        (Sub, false) => ins.isub(x, y),
        (Mul, false) => ins.imul(x, y),
        (BitAnd, _) => ins.band(x, y),
        (BitOr, _) => ins.bor(x, y),
        _ => ins.bxor(x, y),
    }
}

pub(super) fn memory_scalar(ty: &Type) -> bool {
    matches!(ty, Type::Scalar(s) | Type::Enum(_, s) if *s != Scalar::Half)
        || matches!(ty, Type::Pointer(_))
        || soa_type(ty).is_some()
        || super::pair::soa_pair_type(ty).is_some()
        || narrow_soa(ty).is_some()
}

/// The element type of a vector type (the type of one component).
fn element(ty: &Type) -> Type {
    Type::Scalar(ty.element().unwrap_or(Scalar::Int))
}
