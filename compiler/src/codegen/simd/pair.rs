//! 64-bit values of a step's work-items (`double`, `long`, `ulong`): a register holds two
//! of them, so a value is a pair of registers (work-items 0 and 1, then 2 and 3), and a
//! vector of them one pair per component. The operations kept in registers are the ones
//! whose instructions are the scalar lowering's, lane by lane (bit-identical results);
//! the rest run per lane.

use cranelift_codegen::ir::{self, InstBuilder, MemFlagsData, Value, types};

use super::super::func::Result;
use super::WIDTH;
use super::expr::{comparison, register_op};
use super::lower::VecLower;
use super::value::{VVal, lane_order};
use crate::frontend::tir::BinaryOp;
use crate::frontend::types::{Scalar, Type};

/// Two registers of two lanes: work-items 0 and 1, then 2 and 3.
pub(super) type Pair = [Value; 2];

/// The register type of a varying 64-bit scalar of `ty`, kept as a pair.
pub(super) fn pair_type(ty: &Type) -> Option<ir::Type> {
    match ty {
        Type::Scalar(s) | Type::Enum(_, s) => match s {
            Scalar::Double => Some(types::F64X2),
            Scalar::Long | Scalar::ULong => Some(types::I64X2),
            _ => None,
        },
        _ => None,
    }
}

/// The register type and component count of a varying vector of 64-bit elements, kept as
/// one pair per component.
pub(super) fn soa_pair_type(ty: &Type) -> Option<(ir::Type, usize)> {
    match ty {
        Type::Vector(s, n) => pair_type(&Type::Scalar(*s)).map(|pt| (pt, usize::from(*n))),
        _ => None,
    }
}

/// The 32-bit lanes of two 64-bit lanes: [0, 2] of a pair's halves is [0, 1, 4, 5].
const LOWS: [u8; 4] = [0, 1, 4, 5];
const HIGHS: [u8; 4] = [2, 3, 6, 7];

impl VecLower<'_, '_> {
    /// `v` (of a type `pair_type` gives `pt` for) as a pair.
    pub(super) fn pair(&mut self, v: &VVal, pt: ir::Type) -> Pair {
        match v {
            VVal::P(p) => *p,
            VVal::U(x) => {
                let s = self.l.b.ins().splat(pt, x[0]);
                [s, s]
            }
            _ => {
                let xs: Vec<Value> = self.lanes(v).iter().map(|l| l[0]).collect();
                self.pair_of(&xs, pt)
            }
        }
    }

    /// The pair of the work-items' values `xs`.
    pub(super) fn pair_of(&mut self, xs: &[Value], pt: ir::Type) -> Pair {
        let mut half = |a: Value, b: Value| {
            let r = self.l.b.ins().scalar_to_vector(pt, a);
            self.l.b.ins().insertlane(r, b, 1)
        };
        [half(xs[0], xs[1]), half(xs[2], xs[3])]
    }

    /// Component `c` of a vector of 64-bit elements, as a pair.
    pub(super) fn pair_component(&mut self, v: &VVal, c: usize, pt: ir::Type) -> Pair {
        match v {
            VVal::SP(cs) => cs[c],
            VVal::U(x) => {
                let s = self.l.b.ins().splat(pt, x[c]);
                [s, s]
            }
            _ => {
                let xs: Vec<Value> = self.lanes(v).iter().map(|l| l[c]).collect();
                self.pair_of(&xs, pt)
            }
        }
    }

    /// Work-item k's lane of a pair.
    pub(super) fn pair_lane(&mut self, p: &Pair, k: usize) -> Value {
        self.l.b.ins().extractlane(p[k / 2], (k % 2) as u8)
    }

    /// `m ? a : b` lane by lane, `m` an `i32x4` mask.
    pub(super) fn select_pair(&mut self, m: Value, a: Pair, b: Pair) -> Pair {
        let pt = self.l.b.func.dfg.value_type(a[0]);
        let lo = self.shuffle32(m, m, [0, 0, 1, 1]);
        let hi = self.shuffle32(m, m, [2, 2, 3, 3]);
        let ms = [lo, hi].map(|h| self.l.b.ins().bitcast(pt, lane_order(), h));
        [0, 1].map(|h| self.l.b.ins().bitselect(ms[h], a[h], b[h]))
    }

    /// The registers of a 64-bit value or vector of `ty`, flat (component by component).
    fn pair_regs(&mut self, v: &VVal, ty: &Type) -> Vec<Value> {
        if let Some(pt) = pair_type(ty) {
            return self.pair(v, pt).to_vec();
        }
        let (pt, n) = soa_pair_type(ty).expect("a 64-bit type");
        (0..n).flat_map(|c| self.pair_component(v, c, pt)).collect()
    }

    /// The value of `ty` whose registers are `regs` (as `pair_regs` lists them).
    fn from_pair_regs(regs: &[Value], ty: &Type) -> VVal {
        if pair_type(ty).is_some() {
            return VVal::P([regs[0], regs[1]]);
        }
        VVal::SP(regs.chunks(2).map(|p| [p[0], p[1]]).collect())
    }

    /// A binary operator on 64-bit operands in registers, where its instructions are the
    /// scalar lowering's: `double` arithmetic and comparisons, `long`/`ulong` addition,
    /// subtraction, bitwise operators and equality, and vectors of those component by
    /// component. `None`: per lane.
    pub(super) fn binary_pair(
        &mut self,
        op: BinaryOp,
        a: &VVal,
        b: &VVal,
        operand_ty: &Type,
        result_ty: &Type,
    ) -> Result<Option<VVal>> {
        use BinaryOp::*;
        if let Some(pt) = pair_type(operand_ty) {
            let float = pt == types::F64X2;
            if let Some((icc, fcc)) = comparison(op, true) {
                if !float && !matches!(op, Eq | Ne) {
                    return Ok(None);
                }
                let (x, y) = (self.pair(a, pt), self.pair(b, pt));
                let m = [0, 1].map(|h| {
                    if float {
                        self.l.b.ins().fcmp(fcc, x[h], y[h])
                    } else {
                        self.l.b.ins().icmp(icc, x[h], y[h])
                    }
                });
                // Each 64-bit lane is all ones or zeros: either 32-bit half of it will do.
                let m = m.map(|h| self.l.b.ins().bitcast(types::I32X4, lane_order(), h));
                let m = self.shuffle32(m[0], m[1], [0, 2, 4, 6]);
                return Ok(Some(VVal::V(self.l.b.ins().ushr_imm_s(m, 31))));
            }
            let simd = matches!(
                (op, float),
                (Add | Sub | Mul | Div, true) | (Add | Sub | BitAnd | BitOr | BitXor, false)
            );
            if !simd || pair_type(result_ty) != Some(pt) {
                return Ok(None);
            }
            let (x, y) = (self.pair(a, pt), self.pair(b, pt));
            let r = [0, 1].map(|h| register_op(self.l.b.ins(), op, float, x[h], y[h]));
            return Ok(Some(VVal::P(r)));
        }
        if let Some((pt, n)) = soa_pair_type(operand_ty)
            && operand_ty == result_ty
            && comparison(op, true).is_none()
            && !matches!(op, VectorAnd | VectorOr)
        {
            let elem = Type::Scalar(operand_ty.element().unwrap_or(Scalar::Double));
            let mut cs = Vec::with_capacity(n);
            for c in 0..n {
                let mut part = |v: &VVal| match v {
                    VVal::U(x) => VVal::U(vec![x[c]]),
                    _ => VVal::P(self.pair_component(v, c, pt)),
                };
                let (x, y) = (part(a), part(b));
                let r = self.binary_vals(op, x, y, &elem, &elem)?;
                cs.push(self.pair(&r, pt));
            }
            return Ok(Some(VVal::SP(cs)));
        }
        Ok(None)
    }

    /// The conversions to and from 64-bit scalars whose instructions are the scalar
    /// lowering's (default rounding, no saturation): `float` <-> `double`, `int` ->
    /// `double`, between the 32- and 64-bit integers. `None`: per lane.
    pub(super) fn convert_pair(&mut self, v: &VVal, fs: Scalar, ts: Scalar) -> Option<VVal> {
        use Scalar::*;
        let upper = |s: &mut Self, x: Value| s.shuffle32(x, x, [2, 3, 2, 3]);
        Some(match (fs, ts) {
            (Float, Double) => {
                let x = self.vector(v, types::F32X4);
                let hi = upper(self, x);
                VVal::P([x, hi].map(|h| self.l.b.ins().fvpromote_low(h)))
            }
            (Int, Double) => {
                let x = self.vector(v, types::I32X4);
                let hi = upper(self, x);
                // cvtdq2pd: the low two lanes, widened and converted (exact).
                VVal::P([x, hi].map(|h| {
                    let wide = self.l.b.ins().swiden_low(h);
                    self.l.b.ins().fcvt_from_sint(types::F64X2, wide)
                }))
            }
            (Double, Float) => {
                let p = self.pair(v, types::F64X2);
                let [lo, hi] = p.map(|h| self.l.b.ins().fvdemote(h));
                VVal::V(self.shuffle32(lo, hi, [0, 1, 4, 5]))
            }
            (Long | ULong, Long | ULong) => VVal::P(self.pair(v, types::I64X2)),
            // sextend / uextend of each lane.
            (Int | UInt, Long | ULong) => {
                let x = self.vector(v, types::I32X4);
                let hi = upper(self, x);
                VVal::P([x, hi].map(|h| {
                    if fs == Int {
                        self.l.b.ins().swiden_low(h)
                    } else {
                        self.l.b.ins().uwiden_low(h)
                    }
                }))
            }
            // ireduce: the low 32 bits of each lane.
            (Long | ULong, Int | UInt) => {
                let p = self.pair(v, types::I64X2);
                let [lo, hi] = p.map(|h| self.l.b.ins().bitcast(types::I32X4, lane_order(), h));
                VVal::V(self.shuffle32(lo, hi, [0, 2, 4, 6]))
            }
            _ => return None,
        })
    }

    /// Where the step's 64-bit values (or vectors of 2, 4, 8 or 16 of them) of `ty` are one
    /// after the other from `addr`: the first one's address and, where it is not known,
    /// whether they are (as `soa_run`).
    fn pair_run(&mut self, addr: &VVal, ty: &Type) -> Option<(Option<Value>, Value)> {
        if pair_type(ty).is_none() {
            let (_, n) = soa_pair_type(ty)?;
            if !matches!(n, 2 | 4 | 8 | 16) || ty.size() != n as u64 * 8 {
                return None;
            }
        }
        match *addr {
            VVal::Seq { base, stride, .. } if stride == ty.size() as i64 => {
                let ok = self.mask().map(|m| self.l.b.ins().vall_true(m));
                Some((ok, base))
            }
            VVal::Indexed { .. } => {
                let (ok, first) = self.consecutive(addr, ty)?;
                Some((Some(ok), first))
            }
            _ => None,
        }
    }

    /// Reads 64-bit values of `ty` where the step's are consecutive: 16 bytes at a time
    /// (vectors' components paired across work-items).
    pub(super) fn load_pair(&mut self, addr: &VVal, ty: &Type) -> Result<Option<VVal>> {
        let Some((ok, first)) = self.pair_run(addr, ty) else {
            return Ok(None);
        };
        let Some(ok) = ok else {
            let regs = self.load_pair_regs(first, ty);
            return Ok(Some(Self::from_pair_regs(&regs, ty)));
        };
        let (fast, slow, join) = (
            self.l.b.create_block(),
            self.l.b.create_block(),
            self.l.b.create_block(),
        );
        self.l.b.ins().brif(ok, fast, &[], slow, &[]);
        self.l.b.switch_to_block(fast);
        let regs = self.load_pair_regs(first, ty);
        let pt = self.l.b.func.dfg.value_type(regs[0]);
        let vars: Vec<_> = regs.iter().map(|_| self.l.b.declare_var(pt)).collect();
        for (var, r) in vars.iter().zip(&regs) {
            self.l.b.def_var(*var, *r);
        }
        self.l.b.ins().jump(join, &[]);
        self.l.b.switch_to_block(slow);
        let m = self.mask();
        let lanes = self.load_lanes(addr, ty, m)?;
        let v = self.assemble(lanes, ty);
        let regs = self.pair_regs(&v, ty);
        for (var, r) in vars.iter().zip(&regs) {
            self.l.b.def_var(*var, *r);
        }
        self.l.b.ins().jump(join, &[]);
        self.l.b.switch_to_block(join);
        let regs: Vec<Value> = vars.iter().map(|v| self.l.b.use_var(*v)).collect();
        Ok(Some(Self::from_pair_regs(&regs, ty)))
    }

    /// Writes 64-bit values of `ty` where the step's are consecutive (as `load_pair`
    /// reads them); false where they are not.
    pub(super) fn store_pair(&mut self, addr: &VVal, value: &VVal, ty: &Type) -> Result<bool> {
        let Some((ok, first)) = self.pair_run(addr, ty) else {
            return Ok(false);
        };
        let regs = self.pair_regs(value, ty);
        let Some(ok) = ok else {
            self.store_pair_regs(first, &regs, ty);
            return Ok(true);
        };
        let (fast, slow, join) = (
            self.l.b.create_block(),
            self.l.b.create_block(),
            self.l.b.create_block(),
        );
        self.l.b.ins().brif(ok, fast, &[], slow, &[]);
        self.l.b.switch_to_block(fast);
        self.store_pair_regs(first, &regs, ty);
        self.l.b.ins().jump(join, &[]);
        self.l.b.switch_to_block(slow);
        let m = self.mask();
        let v = Self::from_pair_regs(&regs, ty);
        self.store_lanes(addr, &v, ty, m)?;
        self.l.b.ins().jump(join, &[]);
        self.l.b.switch_to_block(join);
        Ok(true)
    }

    /// The registers (`pair_regs` order) of the step's consecutive values of `ty` from
    /// `base`: for a vector, work-item k's components 2j and 2j+1 are one 16-byte load,
    /// and two work-items' loads give components 2j and 2j+1 of a pair.
    fn load_pair_regs(&mut self, base: Value, ty: &Type) -> Vec<Value> {
        let flags = MemFlagsData::new();
        if let Some(pt) = pair_type(ty) {
            return vec![
                self.l.b.ins().load(pt, flags, base, 0),
                self.l.b.ins().load(pt, flags, base, 16),
            ];
        }
        let (pt, n) = soa_pair_type(ty).expect("pair_run checked it");
        let size = n as i32 * 8;
        let mut regs = vec![base; 2 * n];
        for j in 0..n / 2 {
            let r: Vec<Value> = (0..WIDTH as i32)
                .map(|k| {
                    self.l
                        .b
                        .ins()
                        .load(pt, flags, base, k * size + 16 * j as i32)
                })
                .collect();
            for h in 0..2 {
                regs[4 * j + h] = self.shuffle32(r[2 * h], r[2 * h + 1], LOWS);
                regs[4 * j + 2 + h] = self.shuffle32(r[2 * h], r[2 * h + 1], HIGHS);
            }
        }
        regs
    }

    /// Writes the registers `regs` (`pair_regs` order) of the step's values of `ty`
    /// consecutively from `base`.
    fn store_pair_regs(&mut self, base: Value, regs: &[Value], ty: &Type) {
        let flags = MemFlagsData::new();
        if pair_type(ty).is_some() {
            self.l.b.ins().store(flags, regs[0], base, 0);
            self.l.b.ins().store(flags, regs[1], base, 16);
            return;
        }
        let n = regs.len() / 2;
        let size = n as i32 * 8;
        for j in 0..n / 2 {
            for h in 0..2 {
                let (a, b) = (regs[4 * j + h], regs[4 * j + 2 + h]);
                let items = [self.shuffle32(a, b, LOWS), self.shuffle32(a, b, HIGHS)];
                for (i, item) in items.into_iter().enumerate() {
                    let k = (2 * h + i) as i32;
                    self.l
                        .b
                        .ins()
                        .store(flags, item, base, k * size + 16 * j as i32);
                }
            }
        }
    }
}
