//! Vectors of `char`, `uchar`, `short` and `ushort` (`uchar4` pixels, `char16`, `short8`)
//! of a step's work-items, in registers ([`VVal::NS`]).
//!
//! Each component is one `i32x4` of the 4 work-items' values extended to 32 bits, as
//! `narrow.rs` holds a narrow scalar ("structure of arrays"), not the vectors side by side
//! in one `i8x16` (a `uchar4` of 4 work-items is exactly 16 bytes):
//! - kernels of such vectors mostly take components apart and compute in `int` or `float`
//!   (`p.x * 0.299f`, `convert_float4(p)`): in this layout a component is a register with
//!   nothing to do, the narrow scalar rules (conversions, saturation, lane masks of one
//!   lane per item) apply unchanged, and the shuffles are paid once, where memory is read or
//!   written (one `pshufb` per component and 16 bytes);
//! - SSE has no 8-bit multiply or shift, so `i8x16` arithmetic would widen anyway;
//! - arithmetic in the element type (`uchar4 + uchar4` wraps: vectors are not promoted)
//!   costs one instruction more per operation (the low bits kept), and none for the
//!   bitwise operators, comparisons, `min`/`max` and right shifts, which keep extended
//!   lanes extended.
//!
//! 3-vectors (4 elements in memory, the last one padding) are moved per lane, as `float3`.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{self, InstBuilder, MemFlagsData, Value, types};

use super::super::func::{Lanes, Result};
use super::super::ops::clif_type;
use super::WIDTH;
use super::expr::comparison;
use super::lower::VecLower;
use super::value::{VVal, lane_order};
use crate::frontend::tir::BinaryOp;
use crate::frontend::types::{Scalar, Type};

/// The element type and component count of a vector of `char`..`ushort`.
pub(super) fn narrow_soa(ty: &Type) -> Option<(Scalar, usize)> {
    match ty {
        Type::Vector(s @ (Scalar::Char | Scalar::UChar | Scalar::Short | Scalar::UShort), n) => {
            Some((*s, usize::from(*n)))
        }
        _ => None,
    }
}

/// A `pshufb` mask byte that gives 0.
const ZERO: u8 = 0x80;

/// The byte of an `i8x16` where lane `k`'s element of `width` bytes starts, extended
/// within its 32-bit lane: at its bottom for zero extension, at its top for sign extension
/// (an arithmetic shift right then extends it).
fn lane_byte(k: usize, width: usize, signed: bool) -> usize {
    if signed { 4 * k + 4 - width } else { 4 * k }
}

/// Where component `c` of the step's vectors lies in their 16 bytes `j` (vectors of
/// `size` bytes one after the other, elements of `width` bytes): each work-item k whose
/// element is there, with the element's first byte there.
fn elements_in(size: usize, width: usize, c: usize, j: usize) -> Vec<(usize, usize)> {
    (0..WIDTH as usize)
        .map(|k| (k, k * size + c * width))
        .filter(|&(_, at)| at / 16 == j)
        .map(|(k, at)| (k, at % 16))
        .collect()
}

impl VecLower<'_, '_> {
    /// Component `c` of a vector of `s` as its extended `i32x4`.
    pub(super) fn narrow_component(&mut self, v: &VVal, c: usize, s: Scalar) -> Value {
        match v {
            VVal::NS(cs, _) => cs[c],
            VVal::U(x) => self.narrow_reg(&VVal::U(vec![x[c]]), s),
            _ => {
                let xs: Vec<Value> = self.lanes(v).iter().map(|l| l[c]).collect();
                self.narrow_reg(&VVal::L(xs.into_iter().map(|x| vec![x]).collect()), s)
            }
        }
    }

    /// Component `c` of a vector of `s`, uniform where the vector is.
    fn narrow_component_val(&mut self, v: &VVal, c: usize, s: Scalar) -> VVal {
        match v {
            VVal::U(x) => VVal::U(vec![x[c]]),
            _ => VVal::N(self.narrow_component(v, c, s), clif_type(s)),
        }
    }

    /// The vector of `n` components of `s` whose work-items have the lanes `lanes`.
    pub(super) fn widen_components(&mut self, lanes: &[Lanes], s: Scalar, n: usize) -> VVal {
        let cs = (0..n)
            .map(|c| {
                let xs: Vec<Value> = lanes.iter().map(|l| l[c]).collect();
                match self.widen_lanes(&xs, s) {
                    VVal::N(x, _) => x,
                    _ => unreachable!("widen_lanes gives a widened register"),
                }
            })
            .collect();
        VVal::NS(cs, clif_type(s))
    }

    /// `x` (an `i8x16`) with byte i taken from byte `pick[i]` (0 where it is [`ZERO`]):
    /// x64's `pshufb`.
    fn pick_bytes(&mut self, x: Value, pick: &[u8; 16]) -> Value {
        let c = self
            .l
            .b
            .func
            .dfg
            .constants
            .insert(ir::ConstantData::from(pick.to_vec()));
        let mask = self.l.b.ins().vconst(types::I8X16, c);
        self.l.b.ins().x86_pshufb(x, mask)
    }

    /// `part` combined with the bytes gathered so far (shuffles that zero the bytes they do
    /// not place combine by `or`).
    fn or_part(&mut self, acc: Option<Value>, part: Value) -> Value {
        match acc {
            Some(a) => self.l.b.ins().bor(a, part),
            None => part,
        }
    }

    /// The `n` components of the step's consecutive vectors of `s` from `base` (`n` of 2,
    /// 4, 8 or 16; `4 * n` elements): the bytes in as few 16-byte loads as hold them, each
    /// component gathered from them with one byte shuffle per load it has elements in
    /// (`uchar4`: one load, 4 shuffles), extended by its signedness.
    pub(super) fn load_narrow_soa(&mut self, base: Value, s: Scalar, n: usize) -> Vec<Value> {
        let width = s.bits() as usize / 8;
        let size = n * width;
        let flags = MemFlagsData::new();
        let regs: Vec<Value> = if WIDTH as usize * size < 16 {
            // char2: 8 bytes, never more (the next ones may be past the buffer).
            let word = self.l.b.ins().load(types::I64, flags, base, 0);
            let v = self.l.b.ins().scalar_to_vector(types::I64X2, word);
            vec![self.l.b.ins().bitcast(types::I8X16, lane_order(), v)]
        } else {
            (0..WIDTH as usize * size / 16)
                .map(|j| {
                    self.l
                        .b
                        .ins()
                        .load(types::I8X16, flags, base, 16 * j as i32)
                })
                .collect()
        };
        let signed = s.is_signed();
        (0..n)
            .map(|c| {
                let mut acc: Option<Value> = None;
                for (j, &r) in regs.iter().enumerate() {
                    let at = elements_in(size, width, c, j);
                    if at.is_empty() {
                        continue;
                    }
                    let mut pick = [ZERO; 16];
                    for (k, from) in at {
                        let to = lane_byte(k, width, signed);
                        for i in 0..width {
                            pick[to + i] = (from + i) as u8;
                        }
                    }
                    let part = self.pick_bytes(r, &pick);
                    acc = Some(self.or_part(acc, part));
                }
                let bytes = acc.expect("every component has elements in some load");
                let x = self.l.b.ins().bitcast(types::I32X4, lane_order(), bytes);
                if signed {
                    self.l.b.ins().sshr_imm_s(x, 32 - 8 * width as i64)
                } else {
                    x
                }
            })
            .collect()
    }

    /// Writes the components `cs` (extended `i32x4`s) of the step's vectors of `s`
    /// consecutively from `base`, as `load_narrow_soa` reads them: each 16 bytes one
    /// store of the components' low bytes shuffled into place and combined.
    pub(super) fn store_narrow_soa(&mut self, base: Value, cs: &[Value], s: Scalar) {
        let width = s.bits() as usize / 8;
        let size = cs.len() * width;
        let total = WIDTH as usize * size;
        let flags = MemFlagsData::new();
        if cs.len() == 4 && width == 1 {
            // char4/uchar4: packs narrow the 4 registers to one of bytes (component c of
            // item k at byte 4c + k; the values are in range, so the packs' saturation
            // never applies) and one shuffle puts each item's 4 together: 4 instructions
            // instead of 4 shuffles and 3 `or`s.
            let narrow = |b: &mut cranelift_frontend::FunctionBuilder, x, y| {
                if s.is_signed() {
                    b.ins().snarrow(x, y)
                } else {
                    b.ins().unarrow(x, y)
                }
            };
            let lo = narrow(&mut self.l.b, cs[0], cs[1]);
            let hi = narrow(&mut self.l.b, cs[2], cs[3]);
            let soa = narrow(&mut self.l.b, lo, hi);
            let pick: [u8; 16] = std::array::from_fn(|i| ((i % 4) * 4 + i / 4) as u8);
            let aos = self.pick_bytes(soa, &pick);
            self.l.b.ins().store(flags, aos, base, 0);
            return;
        }
        for j in 0..total.div_ceil(16) {
            let mut acc: Option<Value> = None;
            for (c, &x) in cs.iter().enumerate() {
                let at = elements_in(size, width, c, j);
                if at.is_empty() {
                    continue;
                }
                // Lane k's low bytes (little-endian: its element) to their place.
                let mut pick = [ZERO; 16];
                for (k, to) in at {
                    for i in 0..width {
                        pick[to + i] = (4 * k + i) as u8;
                    }
                }
                let bytes = self.l.b.ins().bitcast(types::I8X16, lane_order(), x);
                let part = self.pick_bytes(bytes, &pick);
                acc = Some(self.or_part(acc, part));
            }
            let r = acc.expect("every 16 bytes hold some component");
            if total < 16 {
                let wide = self.l.b.ins().bitcast(types::I64X2, lane_order(), r);
                let low = self.l.b.ins().extractlane(wide, 0);
                self.l.b.ins().store(flags, low, base, 0);
            } else {
                self.l.b.ins().store(flags, r, base, 16 * j as i32);
            }
        }
    }

    /// `-x` or `~x` on a vector of `s` of `n` components, in the element type.
    pub(super) fn narrow_vec_unary(&mut self, neg: bool, v: &VVal, s: Scalar, n: usize) -> VVal {
        let cs = (0..n)
            .map(|c| {
                let x = self.narrow_component(v, c, s);
                let r = if neg {
                    self.l.b.ins().ineg(x)
                } else {
                    self.l.b.ins().bnot(x)
                };
                self.keep_low_bits(r, s)
            })
            .collect();
        VVal::NS(cs, clif_type(s))
    }

    /// A binary operator on vectors of `s` of `n` components (`result`: the result's
    /// type), component by component in the extended lanes, with the scalar lowering's
    /// results: `+ - * <<` keep the element type's low bits, `& | ^ >>` and comparisons
    /// (-1 or 0, extended) need nothing more; `/ %` of bytes in float lanes
    /// ([`divide_bytes`](Self::divide_bytes)). `None`: per lane (`/ %` of 16-bit elements:
    /// x64 has no vector integer division; shifts by varying counts, `&&`/`||`).
    pub(super) fn narrow_vec_binary(
        &mut self,
        op: BinaryOp,
        a: &VVal,
        b: &VVal,
        s: Scalar,
        n: usize,
        result: &Type,
    ) -> Option<VVal> {
        use BinaryOp::*;
        let (rs, rn) = narrow_soa(result)?;
        let count = match (op, b) {
            (Shl | Shr, VVal::U(y)) => {
                // "The shift count is taken modulo the bit width" (6.3.j); every component
                // of a uniform vector count the same is not known here: the first one's
                // count applies to all only where the scalar lowering splat it.
                if y.windows(2).any(|w| w[0] != w[1]) {
                    return None;
                }
                let y32 = if s.bits() < 32 {
                    self.l.b.ins().uextend(types::I32, y[0])
                } else {
                    y[0]
                };
                Some(self.l.b.ins().band_imm_s(y32, i64::from(s.bits()) - 1))
            }
            (Shl | Shr, _) => return None,
            _ => None,
        };
        let cmp = comparison(op, s.is_signed());
        if rn != n || !(cmp.is_some() || rs == s) {
            return None;
        }
        if matches!(op, Div | Rem) {
            if s.bits() != 8 {
                return None;
            }
            let cs = (0..n)
                .map(|c| {
                    let x = self.narrow_component(a, c, s);
                    let y = self.narrow_component(b, c, s);
                    self.divide_bytes(op == Rem, x, y, s)
                })
                .collect();
            return Some(VVal::NS(cs, clif_type(s)));
        }
        if !matches!(
            op,
            Add | Sub | Mul | BitAnd | BitOr | BitXor | Shl | Shr | Lt | Gt | Le | Ge | Eq | Ne
        ) {
            return None;
        }
        let cs = (0..n)
            .map(|c| {
                let x = self.narrow_component(a, c, s);
                if let Some(count) = count {
                    return match (op, s.is_signed()) {
                        (Shl, _) => {
                            let r = self.l.b.ins().ishl(x, count);
                            self.keep_low_bits(r, s)
                        }
                        (_, true) => self.l.b.ins().sshr(x, count),
                        _ => self.l.b.ins().ushr(x, count),
                    };
                }
                let y = self.narrow_component(b, c, s);
                if let Some((icc, _)) = cmp {
                    return self.l.b.ins().icmp(icc, x, y);
                }
                match op {
                    Add => {
                        let r = self.l.b.ins().iadd(x, y);
                        self.keep_low_bits(r, s)
                    }
                    Sub => {
                        let r = self.l.b.ins().isub(x, y);
                        self.keep_low_bits(r, s)
                    }
                    Mul => {
                        let r = self.l.b.ins().imul(x, y);
                        self.keep_low_bits(r, s)
                    }
                    BitAnd => self.l.b.ins().band(x, y),
                    BitOr => self.l.b.ins().bor(x, y),
                    _ => self.l.b.ins().bxor(x, y),
                }
            })
            .collect();
        Some(VVal::NS(cs, clif_type(rs)))
    }

    /// `x / y` (or `x % y`) of 8-bit elements in their extended lanes, as the scalar
    /// lowering's `safe_div` gives them: a zero divisor divides by 1 (`x`, remainder 0),
    /// `-128 / -1` wraps to -128. In `float` lanes, exact: the operands are below 2^8, so
    /// a quotient that is not an integer is at least 1/255 from one, far more than the
    /// division's rounding (2^-16 at most), and x64's truncating conversion gives C's
    /// quotient (16-bit operands are not exact this way: they stay per lane).
    fn divide_bytes(&mut self, rem: bool, x: Value, y: Value, s: Scalar) -> Value {
        let zero = self.zero(types::I32X4);
        let is_zero = self.l.b.ins().icmp(IntCC::Equal, y, zero);
        let one = self.splat_i32(1);
        let d = self.select_v(is_zero, one, y);
        let xf = self.l.b.ins().fcvt_from_sint(types::F32X4, x);
        let df = self.l.b.ins().fcvt_from_sint(types::F32X4, d);
        let qf = self.l.b.ins().fdiv(xf, df);
        let q = self.l.b.ins().x86_cvtt2dq(types::I32X4, qf);
        let r = if rem {
            let p = self.l.b.ins().imul(q, d);
            self.l.b.ins().isub(x, p)
        } else {
            q
        };
        self.keep_low_bits(r, s)
    }

    /// A conversion between vectors of the same length whose components are registers
    /// (`char`..`uint`, `float`: narrow or full), component by component with the scalar
    /// conversions of `convert_vals`; `None` where either side is not such a vector.
    pub(super) fn convert_components(
        &mut self,
        v: &VVal,
        from: &Type,
        to: &Type,
        how: Option<(bool, crate::frontend::tir::Rounding)>,
    ) -> Result<Option<VVal>> {
        let side = |ty: &Type| -> Option<(Scalar, usize, Option<ir::Type>)> {
            if let Some((s, n)) = narrow_soa(ty) {
                return Some((s, n, None));
            }
            super::value::soa_type(ty).map(|(vt, n)| (ty.element().expect("a vector"), n, Some(vt)))
        };
        let (Some((fs, fnn, fvt)), Some((ts, tn, tvt))) = (side(from), side(to)) else {
            return Ok(None);
        };
        if fnn != tn || matches!(v, VVal::U(_)) || (fvt.is_some() && tvt.is_some()) {
            return Ok(None);
        }
        let mut cs = Vec::with_capacity(tn);
        for c in 0..fnn {
            let x = match fvt {
                Some(vt) => VVal::V(self.component(v, c, vt)),
                None => self.narrow_component_val(v, c, fs),
            };
            let r = self.convert_vals(x, &Type::Scalar(fs), &Type::Scalar(ts), how)?;
            cs.push(match tvt {
                Some(vt) => self.vector(&r, vt),
                None => self.narrow_reg(&r, ts),
            });
        }
        Ok(Some(match tvt {
            Some(_) => VVal::S(cs),
            None => VVal::NS(cs, clif_type(ts)),
        }))
    }

    /// The components `lanes` (indexes into the `n` of `v`, a vector of `s`) as a value:
    /// a narrow scalar for one, a vector for more (a missing 4th component of a 3-vector
    /// is 0).
    pub(super) fn narrow_swizzle(&mut self, v: &VVal, s: Scalar, n: usize, lanes: &[u8]) -> VVal {
        let cs: Vec<Value> = lanes
            .iter()
            .map(|&l| {
                if (l as usize) < n {
                    self.narrow_component(v, l as usize, s)
                } else {
                    self.zero(types::I32X4)
                }
            })
            .collect();
        if cs.len() == 1 {
            VVal::N(cs[0], clif_type(s))
        } else {
            VVal::NS(cs, clif_type(s))
        }
    }
}

/// How a value of a type is held in 32-bit words for `as_T` ([`VecLower::bitcast_words`]):
/// narrow components (`Some(element)`) or registers of 32-bit elements (`None`), and the
/// number of components; `None` for other types (64-bit elements, 3-vectors, sizes that
/// are not whole words).
fn word_form(ty: &Type) -> Option<(Option<Scalar>, usize)> {
    if let Some((s, n)) = narrow_soa(ty) {
        return (n != 3 && (n * s.bits() as usize).is_multiple_of(32)).then_some((Some(s), n));
    }
    let n = match ty {
        Type::Vector(_, 3) => return None,
        Type::Vector(_, n) => usize::from(*n),
        _ => 1,
    };
    match ty.element()? {
        Scalar::Int | Scalar::UInt | Scalar::Float => Some((None, n)),
        _ => None,
    }
}

/// Whether `as_T` from `from` to `to` has the register form of
/// [`VecLower::bitcast_words`]: both of whole words, one side narrow.
pub(super) fn bitcast_in_words(from: &Type, to: &Type) -> bool {
    matches!(
        (word_form(from), word_form(to)),
        (Some((f, _)), Some((t, _))) if f.is_some() || t.is_some()
    )
}

impl VecLower<'_, '_> {
    /// `as_T` between types of whole 32-bit words of which one side is a vector of
    /// `char`..`ushort` (`as_uint(uchar4)`, `as_uchar16(float4)`, `as_char4(uchar4)`): each
    /// word's narrow components masked, shifted to their bytes and combined, or taken out
    /// of the word again (little-endian: component 0 is the low bytes). `None` where
    /// [`bitcast_in_words`] is false.
    pub(super) fn bitcast_words(&mut self, v: &VVal, from: &Type, to: &Type) -> Option<VVal> {
        let ((fe, fnn), (te, tn)) = (word_form(from)?, word_form(to)?);
        if fe.is_none() && te.is_none() {
            return None;
        }
        let words: Vec<Value> = match fe {
            Some(s) => {
                let cs: Vec<Value> = (0..fnn).map(|c| self.narrow_component(v, c, s)).collect();
                let per = 32 / s.bits() as usize;
                let mask = self.splat_i32((1 << s.bits()) - 1);
                cs.chunks(per)
                    .map(|part| {
                        let mut w: Option<Value> = None;
                        for (t, &x) in part.iter().enumerate() {
                            let low = self.l.b.ins().band(x, mask);
                            let placed = match t {
                                0 => low,
                                t => self.l.b.ins().ishl_imm_s(low, (t as u32 * s.bits()) as i64),
                            };
                            w = Some(self.or_part(w, placed));
                        }
                        w.expect("a word has components")
                    })
                    .collect()
            }
            None => {
                let vt = super::value::vec_type(&Type::Scalar(from.element()?))?;
                let regs: Vec<Value> = match fnn {
                    1 => vec![self.vector(v, vt)],
                    n => (0..n).map(|c| self.component(v, c, vt)).collect(),
                };
                regs.into_iter()
                    .map(|r| match vt {
                        types::I32X4 => r,
                        _ => self.l.b.ins().bitcast(types::I32X4, lane_order(), r),
                    })
                    .collect()
            }
        };
        Some(match te {
            Some(s) => {
                let per = 32 / s.bits() as usize;
                let cs = (0..tn)
                    .map(|c| {
                        let w = words[c / per];
                        let shifted = match c % per {
                            0 => w,
                            t => self.l.b.ins().ushr_imm_s(w, (t as u32 * s.bits()) as i64),
                        };
                        self.keep_low_bits(shifted, s)
                    })
                    .collect();
                VVal::NS(cs, clif_type(s))
            }
            None => {
                let vt = super::value::vec_type(&Type::Scalar(to.element()?))?;
                let regs: Vec<Value> = words
                    .into_iter()
                    .map(|w| match vt {
                        types::I32X4 => w,
                        _ => self.l.b.ins().bitcast(vt, lane_order(), w),
                    })
                    .collect();
                match tn {
                    1 => VVal::V(regs[0]),
                    _ => VVal::S(regs),
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{bitcast_in_words, elements_in, lane_byte};
    use crate::frontend::types::{Scalar, Type};

    #[test]
    fn reinterpretations_in_registers_are_of_whole_words_with_a_narrow_side() {
        let v = |s, n| Type::Vector(s, n);
        assert!(bitcast_in_words(
            &v(Scalar::UChar, 4),
            &Type::Scalar(Scalar::UInt)
        ));
        assert!(bitcast_in_words(&v(Scalar::Float, 4), &v(Scalar::Char, 16)));
        assert!(bitcast_in_words(&v(Scalar::UChar, 4), &v(Scalar::Short, 2)));
        // char2 is half a word, 3-vectors have padding, long has 64-bit elements, and two
        // types of 32-bit elements need no byte moves.
        assert!(!bitcast_in_words(
            &v(Scalar::Char, 2),
            &Type::Scalar(Scalar::Short)
        ));
        assert!(!bitcast_in_words(&v(Scalar::UChar, 3), &v(Scalar::Char, 3)));
        assert!(!bitcast_in_words(
            &v(Scalar::UChar, 8),
            &Type::Scalar(Scalar::Long)
        ));
        assert!(!bitcast_in_words(
            &Type::Scalar(Scalar::Int),
            &Type::Scalar(Scalar::Float)
        ));
    }

    #[test]
    fn a_uchar4_of_4_items_is_one_load_whose_component_c_is_every_4th_byte() {
        assert_eq!(
            elements_in(4, 1, 0, 0),
            vec![(0, 0), (1, 4), (2, 8), (3, 12)]
        );
        assert_eq!(
            elements_in(4, 1, 3, 0),
            vec![(0, 3), (1, 7), (2, 11), (3, 15)]
        );
        assert_eq!(elements_in(4, 1, 3, 1), vec![]);
    }

    #[test]
    fn wider_vectors_spread_over_several_loads() {
        // short8: 16 bytes per item, one load each; component 5 at bytes 10 and 11.
        assert_eq!(elements_in(16, 2, 5, 2), vec![(2, 10)]);
        // char8: two items per load.
        assert_eq!(elements_in(8, 1, 7, 0), vec![(0, 7), (1, 15)]);
        assert_eq!(elements_in(8, 1, 7, 1), vec![(2, 7), (3, 15)]);
        // char2: 8 bytes for the step.
        assert_eq!(
            elements_in(2, 1, 1, 0),
            vec![(0, 1), (1, 3), (2, 5), (3, 7)]
        );
    }

    #[test]
    fn elements_go_to_the_bottom_of_a_lane_or_to_its_top_to_be_sign_extended() {
        assert_eq!(lane_byte(0, 1, false), 0);
        assert_eq!(lane_byte(2, 1, false), 8);
        assert_eq!(lane_byte(2, 1, true), 11);
        assert_eq!(lane_byte(3, 2, true), 14);
    }
}
