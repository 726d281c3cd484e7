//! `char`, `uchar`, `short` and `ushort` of a step's work-items, in registers.
//!
//! A varying narrow value is one `i32x4` ([`VVal::N`]) whose lane k is work-item k's value
//! extended to 32 bits (sign- or zero-, by its type), rather than 4 of the 16 lanes of an
//! `i8x16` or 8 of an `i16x8`:
//! - the lane masks are `i32x4` (one lane per work-item), so blends need no reshaping;
//! - OpenCL promotes `char` and `short` to `int` before any arithmetic (6.3.a; the typed
//!   tree holds the conversions), so the conversions every expression of them starts with
//!   cost nothing (to `int`/`uint`) or one instruction (to `float`);
//! - SSE has no 8-bit multiply, and 4 work-items fill only 4 of 16 byte lanes anyway.
//!
//! The width shows in memory only: 4 consecutive `char`s are one 32-bit load widened twice
//! (`swiden_low`; `uchar`s with one byte shuffle; never more than the 4 bytes, a wider load
//! could reach the guard page past a buffer's end), 4 `short`s one `sload16x4`/`uload16x4`; a store picks
//! each lane's low bytes with one byte shuffle and writes 4 or 8 bytes.
//!
//! Conversions to a narrow type keep the low bits, or clamp where they saturate (and from
//! `float` always, as the scalar lowering's `convert_lane` does), in the 32-bit lanes, so
//! that the lanes stay extended and every result is the scalar lowering's, bit for bit.

use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{self, InstBuilder, MemFlagsData, Value, types};

use super::super::func::{Lanes, Result};
use super::super::ops::clif_type;
use super::lower::VecLower;
use super::value::{VVal, lane_order, vec_type};
use crate::frontend::tir::{BuiltinFunction as F, Expr, Rounding};
use crate::frontend::types::{Scalar, Type};

/// The scalar type of a varying value held widened in an `i32x4` ([`VVal::N`]).
pub(super) fn narrow_scalar(ty: &Type) -> Option<Scalar> {
    match ty {
        Type::Scalar(s @ (Scalar::Char | Scalar::UChar | Scalar::Short | Scalar::UShort)) => {
            Some(*s)
        }
        _ => None,
    }
}

/// The value of type `s` (narrow) whose widened lanes are the `i32x4` `x`.
pub(super) fn narrow_val(x: Value, s: Scalar) -> VVal {
    VVal::N(x, clif_type(s))
}

/// The values of a 32-bit or narrower integer type, as `i64`s (what a lane of an `i32x4`
/// holds, read with the type's signedness).
fn range(s: Scalar) -> (i64, i64) {
    let bits = s.bits();
    if s.is_signed() {
        (-(1i64 << (bits - 1)), (1i64 << (bits - 1)) - 1)
    } else {
        (0, (1i64 << bits) - 1)
    }
}

/// Whether an integer type's values fit a lane of an `i32x4` (`bool` aside: its
/// conversions test for nonzero).
fn lane_integer(s: Scalar) -> bool {
    s.is_integer() && s.bits() <= 32 && s != Scalar::Bool
}

/// How a varying scalar of one type is held in one register: in a register of its own
/// type (`int`, `uint`, `float`), or widened to 32-bit lanes (`char` to `ushort`).
#[derive(Clone, Copy, Debug)]
pub(super) enum RegForm {
    Full(ir::Type),
    Narrow(Scalar),
}

impl RegForm {
    /// The form of varying values of `ty`, where one register holds them.
    pub(super) fn of(ty: &Type) -> Option<RegForm> {
        vec_type(ty)
            .map(RegForm::Full)
            .or_else(|| narrow_scalar(ty).map(RegForm::Narrow))
    }

    /// The register's type.
    pub(super) fn reg_type(self) -> ir::Type {
        match self {
            RegForm::Full(vt) => vt,
            RegForm::Narrow(_) => types::I32X4,
        }
    }

    /// The value whose register is `x`.
    pub(super) fn val(self, x: Value) -> VVal {
        match self {
            RegForm::Full(_) => VVal::V(x),
            RegForm::Narrow(s) => narrow_val(x, s),
        }
    }
}

impl VecLower<'_, '_> {
    /// The value of type `s` whose work-items have the lanes `xs` (of `s`'s lane type).
    pub(super) fn widen_lanes(&mut self, xs: &[Value], s: Scalar) -> VVal {
        let wide: Vec<Lanes> = xs.iter().map(|&x| vec![self.extend(x, s)]).collect();
        narrow_val(self.vector(&VVal::L(wide), types::I32X4), s)
    }

    /// One lane of `s` extended to 32 bits by its signedness.
    fn extend(&mut self, x: Value, s: Scalar) -> Value {
        if s.is_signed() {
            self.l.b.ins().sextend(types::I32, x)
        } else {
            self.l.b.ins().uextend(types::I32, x)
        }
    }

    /// `v` (of the narrow type `s`) as its widened `i32x4`.
    pub(super) fn narrow_reg(&mut self, v: &VVal, s: Scalar) -> Value {
        match v {
            VVal::N(x, _) => *x,
            VVal::U(x) => {
                let w = self.extend(x[0], s);
                self.l.b.ins().splat(types::I32X4, w)
            }
            _ => {
                let xs: Vec<Value> = self.lanes(v).iter().map(|l| l[0]).collect();
                match self.widen_lanes(&xs, s) {
                    VVal::N(x, _) => x,
                    _ => unreachable!("widen_lanes gives a widened register"),
                }
            }
        }
    }

    /// `v` in the register of `form`.
    pub(super) fn reg(&mut self, form: RegForm, v: &VVal) -> Value {
        match form {
            RegForm::Full(vt) => self.vector(v, vt),
            RegForm::Narrow(s) => self.narrow_reg(v, s),
        }
    }

    /// The register of `form` that the step's 4 consecutive elements at `base` make.
    pub(super) fn load_reg(&mut self, form: RegForm, base: Value) -> Value {
        let flags = MemFlagsData::new();
        match form {
            RegForm::Full(vt) => self.l.b.ins().load(vt, flags, base, 0),
            RegForm::Narrow(s) if s.bits() == 16 => {
                if s.is_signed() {
                    self.l.b.ins().sload16x4(flags, base, 0)
                } else {
                    self.l.b.ins().uload16x4(flags, base, 0)
                }
            }
            RegForm::Narrow(s) if !s.is_signed() => {
                // Byte k to lane k's low byte, zeros above it (a mask byte with its top bit
                // set gives 0): x64's byte shuffle does both zero-extensions at once.
                let word = self.l.b.ins().load(types::I32, flags, base, 0);
                let v = self.l.b.ins().scalar_to_vector(types::I32X4, word);
                let bytes = self.l.b.ins().bitcast(types::I8X16, lane_order(), v);
                let pick: Vec<u8> = (0..16u8)
                    .map(|i| if i % 4 == 0 { i / 4 } else { 0x80 })
                    .collect();
                let pick = self
                    .l
                    .b
                    .func
                    .dfg
                    .constants
                    .insert(ir::ConstantData::from(pick));
                let pick = self.l.b.ins().vconst(types::I8X16, pick);
                let wide = self.l.b.ins().x86_pshufb(bytes, pick);
                self.l.b.ins().bitcast(types::I32X4, lane_order(), wide)
            }
            RegForm::Narrow(_) => {
                let word = self.l.b.ins().load(types::I32, flags, base, 0);
                let v = self.l.b.ins().scalar_to_vector(types::I32X4, word);
                let bytes = self.l.b.ins().bitcast(types::I8X16, lane_order(), v);
                let halves = self.l.b.ins().swiden_low(bytes);
                self.l.b.ins().swiden_low(halves)
            }
        }
    }

    /// Writes the register `x` of `form` as the step's 4 consecutive elements at `base`.
    pub(super) fn store_reg(&mut self, form: RegForm, x: Value, base: Value) {
        let flags = MemFlagsData::new();
        let RegForm::Narrow(s) = form else {
            self.l.b.ins().store(flags, x, base, 0);
            return;
        };
        // Each lane's low bytes, packed at the start of the register.
        let width = s.bits() as u8 / 8;
        let bytes: Vec<u8> = (0..16u8)
            .map(|i| (i / width) * 4 % 16 + i % width)
            .collect();
        let packed = self.shuffle_bytes(x, x, bytes);
        // The 4 (or 8) bytes as lane 0 of a register of 32-bit (64-bit) lanes.
        let wt = if width == 1 {
            types::I32X4
        } else {
            types::I64X2
        };
        let packed = self.l.b.ins().bitcast(wt, lane_order(), packed);
        let low = self.l.b.ins().extractlane(packed, 0);
        self.l.b.ins().store(flags, low, base, 0);
    }

    /// A scalar conversion from or to a narrow type in the 32-bit lanes (`how`: saturation
    /// and rounding); `None` where it is none of those (the caller converts otherwise).
    pub(super) fn convert_narrow(
        &mut self,
        v: &VVal,
        from: Scalar,
        to: Scalar,
        (saturate, rounding): (bool, Rounding),
    ) -> Option<VVal> {
        let (fnarrow, tnarrow) = (
            narrow_scalar(&Type::Scalar(from)),
            narrow_scalar(&Type::Scalar(to)),
        );
        if fnarrow.is_none() && tnarrow.is_none() {
            return None;
        }
        if from == Scalar::Float && lane_integer(to) {
            let x = self.vector(v, types::F32X4);
            let r = match rounding {
                Rounding::Default | Rounding::Rtz => x,
                Rounding::Rte => self.l.b.ins().nearest(x),
                Rounding::Rtp => self.l.b.ins().ceil(x),
                Rounding::Rtn => self.l.b.ins().floor(x),
            };
            if let (Some(s), false) = (tnarrow, to.is_signed()) {
                return Some(narrow_val(self.float_to_unsigned_narrow(r, range(s).1), s));
            }
            // `convert_lane` converts saturating to 32 bits (NaN is 0), signed or unsigned
            // as `to`, then clamps to `to`. A signed conversion clamped at both ends gives
            // the same for every unsigned narrow `to` too (below 0: 0 either way; above
            // `i32::MAX`: the top either way), and x64 has it in one instruction and a
            // NaN fix-up where the unsigned one takes a dozen.
            let w = self.l.b.ins().fcvt_to_sint_sat(types::I32X4, r);
            let clamped = self.clamp_lanes(w, true, (i64::MIN, i64::MAX), range(to));
            return Some(narrow_val(clamped, to));
        }
        if to == Scalar::Float && lane_integer(from) {
            // Exact: every narrow value is a float (so every rounding mode agrees).
            let x = self.narrow_reg(v, from);
            return Some(VVal::V(self.l.b.ins().fcvt_from_sint(types::F32X4, x)));
        }
        // To and from the 64-bit types (two items per register, `pair.rs`) through `int`:
        // the extension of a narrow value to 64 bits is its 32-bit lane's; the low bits of
        // a 64-bit value are those of its low 32 bits. (Saturating: per lane.)
        if let (Some(s), false, Scalar::Long | Scalar::ULong | Scalar::Double) =
            (fnarrow, saturate, to)
        {
            let x = self.narrow_reg(v, s);
            return self.convert_pair(&VVal::V(x), Scalar::Int, to);
        }
        if let (Some(s), false, Scalar::Long | Scalar::ULong) = (tnarrow, saturate, from) {
            let VVal::V(x) = self.convert_pair(v, from, Scalar::Int)? else {
                return None;
            };
            return Some(narrow_val(self.keep_low_bits(x, s), s));
        }
        if !(lane_integer(from) && lane_integer(to)) {
            return None;
        }
        let x = match fnarrow {
            Some(s) => self.narrow_reg(v, s),
            None => self.vector(v, types::I32X4),
        };
        let r = if saturate {
            self.clamp_lanes(x, from.is_signed(), range(from), range(to))
        } else {
            self.keep_low_bits(x, to)
        };
        Some(match tnarrow {
            Some(s) => narrow_val(r, s),
            None => VVal::V(r),
        })
    }

    /// The float lanes `x`, truncated, as `uchar`/`ushort` lanes (`0..=top`), saturating,
    /// NaN 0: `x` above `top` is made `top` in the float lanes (NaN compares false and stays
    /// NaN), x64's plain truncating conversion gives `i32::MIN` for NaN and for anything
    /// below `i32::MIN`, and an integer `max` with 0 takes all of those, and every other
    /// negative lane, to 0. The lanes of `convert_lane`'s saturating conversion clamped at
    /// both ends, in four instructions instead of a dozen (the saturating conversion's NaN
    /// fix-up and the second clamp go).
    fn float_to_unsigned_narrow(&mut self, x: Value, top: i64) -> Value {
        let top_f = self.l.b.ins().f32const(top as f32);
        let top_v = self.l.b.ins().splat(types::F32X4, top_f);
        let above = self.l.b.ins().fcmp(FloatCC::GreaterThan, x, top_v);
        let x = self.select_v(above, top_v, x);
        let w = self.l.b.ins().x86_cvtt2dq(types::I32X4, x);
        let zero = self.splat_i32(0);
        self.l.b.ins().smax(w, zero)
    }

    /// The lanes of `x` (values of a type whose range is `from`, signed or not) clamped to
    /// the range `to`, only at the ends where `to` is narrower.
    fn clamp_lanes(&mut self, x: Value, signed: bool, from: (i64, i64), to: (i64, i64)) -> Value {
        let mut r = x;
        if signed && to.0 > from.0 {
            let lo = self.splat_i32(to.0);
            r = self.l.b.ins().smax(r, lo);
        }
        if to.1 < from.1 {
            let hi = self.splat_i32(to.1);
            r = if signed {
                self.l.b.ins().smin(r, hi)
            } else {
                self.l.b.ins().umin(r, hi)
            };
        }
        r
    }

    /// The low bits of `to` of each lane of `x`, extended again by `to`'s signedness
    /// (a 32-bit `to` keeps them all).
    pub(super) fn keep_low_bits(&mut self, x: Value, to: Scalar) -> Value {
        let bits = to.bits() as i64;
        if bits == 32 {
            return x;
        }
        if to.is_signed() {
            let up = self.l.b.ins().ishl_imm_s(x, 32 - bits);
            self.l.b.ins().sshr_imm_s(up, 32 - bits)
        } else {
            let mask = self.splat_i32((1 << bits) - 1);
            self.l.b.ins().band(x, mask)
        }
    }

    /// The register form of a builtin on narrow values of type `s` (every argument of `s`),
    /// exact in the 32-bit lanes (the extended values' sums, differences and products
    /// fit): `add_sat`/`sub_sat`/`mad_sat` clamped, `hadd`/`rhadd` and `mul_hi` shifted,
    /// `abs`/`abs_diff` (of the unsigned type of `s`'s width: the magnitude fits it),
    /// `min`/`max`/`clamp` as on `int` (the lanes are extended, so signed order is the
    /// type's order). `None`: not one of those.
    pub(super) fn narrow_builtin(&mut self, f: F, xs: &[Value], s: Scalar) -> Option<Value> {
        let (lo, hi) = range(s);
        Some(match f {
            F::AddSat | F::SubSat => {
                let r = if f == F::AddSat {
                    self.l.b.ins().iadd(xs[0], xs[1])
                } else {
                    self.l.b.ins().isub(xs[0], xs[1])
                };
                // The exact result lies within twice the type's range: a signed clamp.
                self.clamp_lanes(r, true, (2 * lo - hi, 2 * hi - lo), (lo, hi))
            }
            F::MadSat => {
                let p = self.l.b.ins().imul(xs[0], xs[1]);
                let r = self.l.b.ins().iadd(p, xs[2]);
                // Signed: within ±2^30 + 2^15. Unsigned: at most 65535² + 65535 < 2^32,
                // never below 0, so an unsigned clamp of the top.
                let from = if s.is_signed() {
                    (i64::from(i32::MIN), i64::from(i32::MAX))
                } else {
                    (0, i64::from(u32::MAX))
                };
                self.clamp_lanes(r, s.is_signed(), from, (lo, hi))
            }
            F::Hadd | F::Rhadd => {
                let mut r = self.l.b.ins().iadd(xs[0], xs[1]);
                if f == F::Rhadd {
                    let one = self.splat_i32(1);
                    r = self.l.b.ins().iadd(r, one);
                }
                // The sum is exact: shifted, it is the floor of the half, as (x + y) >> 1
                // without overflow.
                self.l.b.ins().sshr_imm_s(r, 1)
            }
            F::MulHi => {
                let p = self.l.b.ins().imul(xs[0], xs[1]);
                let bits = i64::from(s.bits());
                if s.is_signed() {
                    self.l.b.ins().sshr_imm_s(p, bits)
                } else {
                    // ushort: up to 0xfffe0001, above i32::MAX.
                    self.l.b.ins().ushr_imm_s(p, bits)
                }
            }
            F::Abs if s.is_signed() => self.l.b.ins().iabs(xs[0]),
            F::Abs => xs[0],
            F::AbsDiff => {
                let d = self.l.b.ins().isub(xs[0], xs[1]);
                self.l.b.ins().iabs(d)
            }
            F::Min | F::Max | F::Clamp => self.simd_builtin(f, xs, false, true),
            _ => return None,
        })
    }

    /// A builtin of [`narrow_builtin`](Self::narrow_builtin)'s on narrow scalars or on
    /// vectors of them (component by component), every argument of one type; `None`
    /// where it is not one (the caller goes on: other forms, or per lane).
    pub(super) fn narrow_builtin_call(
        &mut self,
        e: &Expr,
        f: F,
        args: &[Expr],
    ) -> Result<Option<VVal>> {
        let of = |ty: &Type| {
            narrow_scalar(ty)
                .map(|s| (s, 0))
                .or_else(|| super::narrow_vec::narrow_soa(ty))
        };
        let (Some((s, n)), Some((rs, rn))) = (args.first().and_then(|a| of(&a.ty)), of(&e.ty))
        else {
            return Ok(None);
        };
        // abs and abs_diff give the unsigned type of the arguments' width.
        let result_ok = match f {
            F::Abs | F::AbsDiff => rs.bits() == s.bits() && !rs.is_signed(),
            _ => rs == s,
        };
        let forms = matches!(
            f,
            F::AddSat
                | F::SubSat
                | F::MadSat
                | F::Hadd
                | F::Rhadd
                | F::MulHi
                | F::Abs
                | F::AbsDiff
                | F::Min
                | F::Max
                | F::Clamp
        );
        if !forms || !result_ok || rn != n || args.iter().any(|a| a.ty != args[0].ty) {
            return Ok(None);
        }
        let mut values = Vec::with_capacity(args.len());
        for a in args {
            values.push(self.vexpr(a)?);
        }
        if n == 0 {
            let xs: Vec<Value> = values.iter().map(|v| self.narrow_reg(v, s)).collect();
            let r = self.narrow_builtin(f, &xs, s).expect("one of its forms");
            return Ok(Some(narrow_val(r, rs)));
        }
        let cs = (0..n)
            .map(|c| {
                let xs: Vec<Value> = values
                    .iter()
                    .map(|v| self.narrow_component(v, c, s))
                    .collect();
                self.narrow_builtin(f, &xs, s).expect("one of its forms")
            })
            .collect();
        Ok(Some(VVal::NS(cs, clif_type(rs))))
    }
}
