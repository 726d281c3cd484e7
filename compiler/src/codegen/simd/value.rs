//! The values of one step's work-items, and the moves between their forms.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    self, ConstantData, Endianness, InstBuilder, MemFlagsData, Value, types,
};

use super::super::func::Lanes;
use super::super::ops::clif_type;
use super::WIDTH;
use super::lower::VecLower;
use super::narrow::{narrow_scalar, narrow_val};
use super::narrow_vec::narrow_soa;
use super::pair::{Pair, pair_type, soa_pair_type};
use crate::frontend::types::{Scalar, Type};

/// A value in each of the step's work-items.
#[derive(Clone, Debug)]
pub(super) enum VVal {
    /// The same in every work-item: the lanes the scalar lowering gives.
    U(Lanes),
    /// An integer or address that is `base + k * stride` in work-item k. `exact`: the
    /// lanes do not wrap around in the value's type, so extending `base` extends each lane
    /// (signed arithmetic may assume it: overflow is undefined); `id`: the value is the
    /// work-item id itself, below 2^31 (the row function checks it).
    Seq {
        base: Value,
        stride: i64,
        exact: bool,
        id: bool,
    },
    /// One register: lane k is work-item k (`int`, `uint`, `float`).
    V(Value),
    /// A `char`, `uchar`, `short` or `ushort` (`narrow.rs`): one `i32x4` whose lane k is
    /// work-item k's value extended to 32 bits by its type's signedness; the second field
    /// is the lane type the scalar lowering holds (`i8` or `i16`).
    N(Value, ir::Type),
    /// A vector of `char`..`ushort` (`narrow_vec.rs`): one `i32x4` per component, each
    /// as [`VVal::N`] holds a scalar (lane k: work-item k's component, extended); the
    /// second field is the components' lane type (`i8` or `i16`).
    NS(Vec<Value>, ir::Type),
    /// Each work-item's lanes, as the scalar lowering holds them.
    L(Vec<Lanes>),
    /// A vector-typed value (`float2`..`float16`, `int`/`uint` alike) as one register per
    /// component, work-item k in lane k of each ("structure of arrays").
    S(Vec<Value>),
    /// A `double`, `long` or `ulong`: two registers, work-items 0 and 1 in the first, 2
    /// and 3 in the second (`pair.rs`).
    P(Pair),
    /// A vector of 64-bit elements: one pair per component.
    SP(Vec<Pair>),
    /// An address `base + ext(index[k]) * scale`: a uniform pointer and an `int`/`uint`
    /// index (extended by `signed`). The index is often consecutive at run time
    /// (`p[clamp(x + dx, 0, w - 1)]`), which loads and stores test for.
    Indexed {
        base: Value,
        index: Index,
        signed: bool,
        scale: i64,
    },
}

/// The `int`/`uint` index of a [`VVal::Indexed`] address.
#[derive(Clone, Copy, Debug)]
pub(super) enum Index {
    /// One `i32x4` register, lane k work-item k's index.
    Reg(Value),
    /// `first + k * stride` in work-item k, in the index type's wrapping arithmetic (a
    /// sequence that may wrap: `int id = get_group_id(0) * ...` narrows a `size_t`). The
    /// lanes are consecutive unless they wrap, which one compare of `first` tells.
    Seq { first: Value, stride: i64 },
}

impl Index {
    /// Whether the index is 32 bits wide (what `Indexed` holds; a 64-bit sequence that
    /// may wrap is left to the lanes).
    pub(super) fn is_32_bits(&self, dfg: &ir::DataFlowGraph) -> bool {
        match *self {
            Index::Reg(r) => dfg.value_type(r) == types::I32X4,
            Index::Seq { first, .. } => dfg.value_type(first) == types::I32,
        }
    }
}

/// The register type of a varying value of `ty`, where one register holds it.
pub(super) fn vec_type(ty: &Type) -> Option<ir::Type> {
    match ty {
        Type::Scalar(s) | Type::Enum(_, s) => match s {
            Scalar::Int | Scalar::UInt => Some(types::I32X4),
            Scalar::Float => Some(types::F32X4),
            _ => None,
        },
        _ => None,
    }
}

/// The register type and component count of a varying vector of `ty`, where it is kept
/// as one register per component (every width: 16 components are 16 registers, which a
/// loop keeps in registers as well as 16 lanes of one work-item would).
pub(super) fn soa_type(ty: &Type) -> Option<(ir::Type, usize)> {
    match ty {
        Type::Vector(s, n) => vec_type(&Type::Scalar(*s)).map(|vt| (vt, usize::from(*n))),
        _ => None,
    }
}

/// Flags of bitcasts between vector types (Cranelift asks for the lane order).
pub(super) fn lane_order() -> MemFlagsData {
    MemFlagsData::new().with_endianness(Endianness::Little)
}

impl VecLower<'_, '_> {
    /// Each work-item's lanes of `v`.
    pub(super) fn lanes(&mut self, v: &VVal) -> Vec<Lanes> {
        match v {
            VVal::U(x) => vec![x.clone(); WIDTH as usize],
            VVal::Seq { base, stride, .. } => (0..WIDTH)
                .map(|k| vec![self.l.b.ins().iadd_imm_s(*base, k * stride)])
                .collect(),
            VVal::V(x) => (0..WIDTH as u8)
                .map(|k| vec![self.l.b.ins().extractlane(*x, k)])
                .collect(),
            VVal::N(x, t) => (0..WIDTH as u8)
                .map(|k| {
                    let wide = self.l.b.ins().extractlane(*x, k);
                    vec![self.l.b.ins().ireduce(*t, wide)]
                })
                .collect(),
            VVal::NS(cs, t) => (0..WIDTH as u8)
                .map(|k| {
                    cs.iter()
                        .map(|c| {
                            let wide = self.l.b.ins().extractlane(*c, k);
                            self.l.b.ins().ireduce(*t, wide)
                        })
                        .collect()
                })
                .collect(),
            VVal::L(lanes) => lanes.clone(),
            VVal::P(p) => (0..WIDTH as usize)
                .map(|k| vec![self.pair_lane(p, k)])
                .collect(),
            VVal::SP(cs) => (0..WIDTH as usize)
                .map(|k| cs.iter().map(|c| self.pair_lane(c, k)).collect())
                .collect(),
            VVal::S(cs) => (0..WIDTH as u8)
                .map(|k| {
                    cs.iter()
                        .map(|c| self.l.b.ins().extractlane(*c, k))
                        .collect()
                })
                .collect(),
            VVal::Indexed {
                base,
                index,
                signed,
                scale,
            } => (0..WIDTH as u8)
                .map(|k| {
                    let i = match *index {
                        Index::Reg(r) => self.l.b.ins().extractlane(r, k),
                        Index::Seq { first, stride } => {
                            self.l.b.ins().iadd_imm_s(first, i64::from(k) * stride)
                        }
                    };
                    let i = if *signed {
                        self.l.b.ins().sextend(types::I64, i)
                    } else {
                        self.l.b.ins().uextend(types::I64, i)
                    };
                    let offset = self.l.b.ins().imul_imm_s(i, *scale);
                    vec![self.l.b.ins().iadd(*base, offset)]
                })
                .collect(),
        }
    }

    /// `v` in one register of type `vt` (`vec_type` of its type).
    pub(super) fn vector(&mut self, v: &VVal, vt: ir::Type) -> Value {
        match v {
            VVal::U(x) => self.l.b.ins().splat(vt, x[0]),
            VVal::Seq { base, stride, .. } => {
                let splat = self.l.b.ins().splat(vt, *base);
                let steps = self.iota(*stride);
                self.l.b.ins().iadd(splat, steps)
            }
            VVal::V(x) => *x,
            VVal::N(x, _) if vt == types::I32X4 => *x,
            VVal::Indexed { .. }
            | VVal::S(_)
            | VVal::P(_)
            | VVal::SP(_)
            | VVal::N(..)
            | VVal::NS(..) => {
                let lanes = self.lanes(v);
                self.vector(&VVal::L(lanes), vt)
            }
            VVal::L(lanes) => {
                let mut r = self.l.b.ins().scalar_to_vector(vt, lanes[0][0]);
                for (k, lane) in lanes.iter().enumerate().skip(1) {
                    r = self.l.b.ins().insertlane(r, lane[0], k as u8);
                }
                r
            }
        }
    }

    /// Component `c` of a vector-typed value, as a register of type `vt`.
    pub(super) fn component(&mut self, v: &VVal, c: usize, vt: ir::Type) -> Value {
        match v {
            VVal::U(x) => self.l.b.ins().splat(vt, x[c]),
            VVal::S(cs) => cs[c],
            _ => {
                let lanes: Vec<Lanes> = self.lanes(v).into_iter().map(|l| vec![l[c]]).collect();
                self.vector(&VVal::L(lanes), vt)
            }
        }
    }

    /// The value whose work-items have `lanes`: one register where its type fits one.
    pub(super) fn assemble(&mut self, lanes: Vec<Lanes>, ty: &Type) -> VVal {
        if let Some(pt) = pair_type(ty)
            && lanes.iter().all(|l| l.len() == 1)
        {
            let xs: Vec<Value> = lanes.iter().map(|l| l[0]).collect();
            return VVal::P(self.pair_of(&xs, pt));
        }
        if let Some((pt, n)) = soa_pair_type(ty)
            && lanes.iter().all(|l| l.len() == n)
        {
            let cs = (0..n)
                .map(|c| {
                    let xs: Vec<Value> = lanes.iter().map(|l| l[c]).collect();
                    self.pair_of(&xs, pt)
                })
                .collect();
            return VVal::SP(cs);
        }
        if let Some((vt, n)) = soa_type(ty)
            && lanes.iter().all(|l| l.len() == n)
        {
            let cs = (0..n)
                .map(|c| {
                    let comp: Vec<Lanes> = lanes.iter().map(|l| vec![l[c]]).collect();
                    self.vector(&VVal::L(comp), vt)
                })
                .collect();
            return VVal::S(cs);
        }
        if let Some(s) = narrow_scalar(ty)
            && lanes.iter().all(|l| l.len() == 1)
        {
            let xs: Vec<Value> = lanes.iter().map(|l| l[0]).collect();
            return self.widen_lanes(&xs, s);
        }
        if let Some((s, n)) = narrow_soa(ty)
            && lanes.iter().all(|l| l.len() == n)
        {
            return self.widen_components(&lanes, s, n);
        }
        match vec_type(ty) {
            Some(vt) if lanes.iter().all(|l| l.len() == 1) => {
                let v = VVal::L(lanes);
                VVal::V(self.vector(&v, vt))
            }
            _ => VVal::L(lanes),
        }
    }

    /// `[0, stride, 2 * stride, 3 * stride]` as an `i32x4`.
    pub(super) fn iota(&mut self, stride: i64) -> Value {
        let bytes: Vec<u8> = (0..WIDTH)
            .flat_map(|k| ((k * stride) as i32).to_le_bytes())
            .collect();
        let c = self
            .l
            .b
            .func
            .dfg
            .constants
            .insert(ConstantData::from(bytes));
        self.l.b.ins().vconst(types::I32X4, c)
    }

    /// An `i32x4` of `value` in every lane.
    pub(super) fn splat_i32(&mut self, value: i64) -> Value {
        // The immediate of an `i32` constant is its 32 bits, zero-extended.
        let x = self
            .l
            .b
            .ins()
            .iconst(types::I32, i64::from(value as i32 as u32));
        self.l.b.ins().splat(types::I32X4, x)
    }

    /// Whether lane `k` of the mask `m` is on (an `i8`).
    pub(super) fn lane_on(&mut self, m: Value, k: i64) -> Value {
        let lane = self.l.b.ins().extractlane(m, k as u8);
        self.l.b.ins().icmp_imm_s(IntCC::NotEqual, lane, 0)
    }

    /// `m ? a : b` lane by lane, `m` an `i32x4` mask, `a` and `b` registers of one type.
    pub(super) fn select_v(&mut self, m: Value, a: Value, b: Value) -> Value {
        let ty = self.l.b.func.dfg.value_type(a);
        let m = if ty == types::I32X4 {
            m
        } else {
            self.l.b.ins().bitcast(ty, lane_order(), m)
        };
        self.l.b.ins().bitselect(m, a, b)
    }

    /// `new` in the lanes of `mask`, `old` in the others (all of `new` without a mask).
    pub(super) fn blend(&mut self, mask: Option<Value>, new: VVal, old: VVal, ty: &Type) -> VVal {
        let Some(m) = mask else {
            return new;
        };
        if let Some(vt) = vec_type(ty) {
            let (a, b) = (self.vector(&new, vt), self.vector(&old, vt));
            return VVal::V(self.select_v(m, a, b));
        }
        if let Some(s) = narrow_scalar(ty) {
            let (a, b) = (self.narrow_reg(&new, s), self.narrow_reg(&old, s));
            return narrow_val(self.select_v(m, a, b), s);
        }
        if let Some((vt, n)) = soa_type(ty) {
            let cs = (0..n)
                .map(|c| {
                    let (a, b) = (self.component(&new, c, vt), self.component(&old, c, vt));
                    self.select_v(m, a, b)
                })
                .collect();
            return VVal::S(cs);
        }
        if let Some((s, n)) = narrow_soa(ty) {
            let cs = (0..n)
                .map(|c| {
                    let a = self.narrow_component(&new, c, s);
                    let b = self.narrow_component(&old, c, s);
                    self.select_v(m, a, b)
                })
                .collect();
            return VVal::NS(cs, clif_type(s));
        }
        if let Some(pt) = pair_type(ty) {
            let (a, b) = (self.pair(&new, pt), self.pair(&old, pt));
            return VVal::P(self.select_pair(m, a, b));
        }
        if let Some((pt, n)) = soa_pair_type(ty) {
            let cs = (0..n)
                .map(|c| {
                    let a = self.pair_component(&new, c, pt);
                    let b = self.pair_component(&old, c, pt);
                    self.select_pair(m, a, b)
                })
                .collect();
            return VVal::SP(cs);
        }
        let (a, b) = (self.lanes(&new), self.lanes(&old));
        let lanes = (0..WIDTH as usize)
            .map(|k| {
                let on = self.lane_on(m, k as i64);
                a[k].iter()
                    .zip(&b[k])
                    .map(|(&x, &y)| self.l.b.ins().select(on, x, y))
                    .collect()
            })
            .collect();
        VVal::L(lanes)
    }

    /// The zero of a Cranelift type (scalar or vector).
    pub(super) fn zero(&mut self, t: ir::Type) -> Value {
        if t.is_vector() {
            let c = self
                .l
                .b
                .func
                .dfg
                .constants
                .insert(ConstantData::from(vec![0u8; t.bytes() as usize]));
            return self.l.b.ins().vconst(t, c);
        }
        match t {
            types::F32 => self.l.b.ins().f32const(0.0),
            types::F64 => self.l.b.ins().f64const(0.0),
            t => self.l.b.ins().iconst(t, 0),
        }
    }
}
