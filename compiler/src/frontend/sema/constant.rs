//! Constant evaluation of typed expressions: array sizes, case labels, enumerators,
//! attribute arguments, and the initial bytes of `__constant` variables.
//!
//! Integer lanes are held as their bits (zero-extended to 64) and wrap at their type's
//! width; float lanes are held in an `f64` that is always exactly a value of their type.

use super::super::literal::round_to_half;
use super::super::source::Span;
use super::super::tir::{BinaryOp, Constant, ConvertKind, Expr, ExprKind, Init, Rounding, UnaryOp};
use super::super::types::{Scalar, Type};
use super::Analyzer;

/// The bits of `v` at the width of `s`.
pub(super) fn truncate(v: u64, s: Scalar) -> u64 {
    match s.bits() {
        64 => v,
        bits => v & ((1u64 << bits) - 1),
    }
}

/// The value of integer bits `v` of type `s`, sign-extended if `s` is signed.
pub(super) fn signed_value(v: u64, s: Scalar) -> i128 {
    let bits = s.bits();
    if s.is_signed() && bits < 64 && v >> (bits - 1) & 1 == 1 {
        i128::from(v) - (1i128 << bits)
    } else if s.is_signed() && bits == 64 {
        i128::from(v as i64)
    } else {
        i128::from(v)
    }
}

/// A float value rounded to the precision of `s`.
pub(super) fn round_float(v: f64, s: Scalar) -> f64 {
    match s {
        Scalar::Float => f64::from(v as f32),
        Scalar::Half => round_to_half(v),
        _ => v,
    }
}

/// Lanes of a constant, as (integer bits or float value) per lane, with its element type.
fn lanes(c: &Constant) -> usize {
    match c {
        Constant::Int(v) => v.len(),
        Constant::Float(v) => v.len(),
    }
}

/// One lane converted between element types (C's conversion: truncation toward zero and
/// saturation for float → integer, wrap for integer → integer).
fn convert_lane(c: &Constant, lane: usize, from: Scalar, to: Scalar, saturate: bool) -> Constant {
    let value = match c {
        Constant::Int(v) => Value::Int(signed_value(v[lane], from)),
        Constant::Float(v) => Value::Float(v[lane]),
    };
    match (value, to.is_float()) {
        (Value::Int(i), true) => Constant::Float(vec![round_float(i as f64, to)]),
        (Value::Float(f), true) => Constant::Float(vec![round_float(f, to)]),
        (Value::Int(i), false) => {
            let v = if to == Scalar::Bool {
                u64::from(i != 0)
            } else if saturate {
                let (lo, hi) = int_range(to);
                i.clamp(lo, hi) as u64
            } else {
                i as u64
            };
            Constant::Int(vec![truncate(v, to)])
        }
        (Value::Float(f), false) => {
            let v = if to == Scalar::Bool {
                u64::from(f != 0.0)
            } else if f.is_nan() {
                0
            } else {
                let (lo, hi) = int_range(to);
                (f.trunc().clamp(lo as f64, hi as f64) as i128).clamp(lo, hi) as u64
            };
            Constant::Int(vec![truncate(v, to)])
        }
    }
}

enum Value {
    Int(i128),
    Float(f64),
}

fn int_range(s: Scalar) -> (i128, i128) {
    let bits = s.bits();
    if s.is_signed() {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

fn concat(parts: Vec<Constant>) -> Option<Constant> {
    let mut ints = Vec::new();
    let mut floats = Vec::new();
    for p in parts {
        match p {
            Constant::Int(v) => ints.extend(v),
            Constant::Float(v) => floats.extend(v),
        }
    }
    match (ints.is_empty(), floats.is_empty()) {
        (false, true) => Some(Constant::Int(ints)),
        (true, false) => Some(Constant::Float(floats)),
        _ => None,
    }
}

/// Evaluates `e` if it is a constant expression.
pub(super) fn fold(e: &Expr) -> Option<Constant> {
    let elem = e.ty.element();
    match &e.kind {
        ExprKind::Const(c) => Some(c.clone()),
        ExprKind::Convert { kind, operand } => {
            let c = fold(operand)?;
            let from = operand.ty.element()?;
            let to = elem?;
            match kind {
                ConvertKind::Numeric {
                    saturate,
                    rounding: Rounding::Default,
                } => concat(
                    (0..lanes(&c))
                        .map(|l| convert_lane(&c, l, from, to, *saturate))
                        .collect(),
                ),
                ConvertKind::Splat => {
                    let n = e.ty.lanes() as usize;
                    concat(vec![c; n])
                }
                ConvertKind::BoolSplat => {
                    let Constant::Int(v) = c else { return None };
                    let lane = if v[0] != 0 { truncate(u64::MAX, to) } else { 0 };
                    Some(Constant::Int(vec![lane; e.ty.lanes() as usize]))
                }
                ConvertKind::ToBool => Some(Constant::Int(vec![u64::from(match c {
                    Constant::Int(v) => v[0] != 0,
                    Constant::Float(v) => v[0] != 0.0,
                })])),
                ConvertKind::Bitcast => decode(&e.ty, &encode(&operand.ty, &c)),
                _ => None,
            }
        }
        ExprKind::Unary { op, operand } => {
            let c = fold(operand)?;
            let s = operand.ty.element()?;
            Some(match (op, c) {
                (UnaryOp::Neg, Constant::Int(v)) => {
                    Constant::Int(v.iter().map(|x| truncate(x.wrapping_neg(), s)).collect())
                }
                (UnaryOp::Neg, Constant::Float(v)) => {
                    Constant::Float(v.iter().map(|x| -x).collect())
                }
                (UnaryOp::BitNot, Constant::Int(v)) => {
                    Constant::Int(v.iter().map(|x| truncate(!x, s)).collect())
                }
                (UnaryOp::LogicalNot, Constant::Int(v)) => {
                    Constant::Int(vec![u64::from(v[0] == 0)])
                }
                (UnaryOp::LogicalNot, Constant::Float(v)) => {
                    Constant::Int(vec![u64::from(v[0] == 0.0)])
                }
                (UnaryOp::VectorNot, c) => {
                    let r = elem?;
                    let mask = truncate(u64::MAX, r);
                    Constant::Int(match c {
                        Constant::Int(v) => {
                            v.iter().map(|x| if *x == 0 { mask } else { 0 }).collect()
                        }
                        Constant::Float(v) => {
                            v.iter().map(|x| if *x == 0.0 { mask } else { 0 }).collect()
                        }
                    })
                }
                _ => return None,
            })
        }
        ExprKind::Binary { op, lhs, rhs } => {
            binary(*op, &fold(lhs)?, &fold(rhs)?, lhs.ty.element()?, &e.ty)
        }
        ExprKind::Logical { and, lhs, rhs } => {
            let truth = |c: &Constant| match c {
                Constant::Int(v) => v[0] != 0,
                Constant::Float(v) => v[0] != 0.0,
            };
            let l = truth(&fold(lhs)?);
            if *and && !l || !*and && l {
                return Some(Constant::Int(vec![u64::from(l)]));
            }
            Some(Constant::Int(vec![u64::from(truth(&fold(rhs)?))]))
        }
        ExprKind::Conditional {
            cond,
            then_expr,
            else_expr,
        } => {
            let c = fold(cond)?;
            let truth = match c {
                Constant::Int(v) => v[0] != 0,
                Constant::Float(v) => v[0] != 0.0,
            };
            fold(if truth { then_expr } else { else_expr })
        }
        ExprKind::VectorLiteral(parts) => {
            concat(parts.iter().map(fold).collect::<Option<Vec<_>>>()?)
        }
        ExprKind::Swizzle { base, lanes } => match fold(base)? {
            Constant::Int(v) => Some(Constant::Int(
                lanes
                    .iter()
                    .map(|&l| v.get(l as usize).copied().unwrap_or(0))
                    .collect(),
            )),
            Constant::Float(v) => Some(Constant::Float(
                lanes
                    .iter()
                    .map(|&l| v.get(l as usize).copied().unwrap_or(0.0))
                    .collect(),
            )),
        },
        // `(a, b)` is `b` only if `a` has no effect: a constant left side is the only one
        // that provably has none (`((g = 0), 7)` must still store to `g`).
        ExprKind::Comma { lhs, rhs } => {
            fold(lhs)?;
            fold(rhs)
        }
        _ => None,
    }
}

/// A binary operation on constants whose operands have element type `s`.
fn binary(op: BinaryOp, a: &Constant, b: &Constant, s: Scalar, result: &Type) -> Option<Constant> {
    use BinaryOp::*;
    let mask_elem = result.element()?;
    let true_value = if result.is_vector() {
        truncate(u64::MAX, mask_elem)
    } else {
        1
    };
    match (a, b) {
        (Constant::Int(x), Constant::Int(y)) => {
            let mut out = Vec::with_capacity(x.len());
            for (&p, &q) in x.iter().zip(y) {
                let (sp, sq) = (signed_value(p, s), signed_value(q, s));
                let bits = s.bits() as u64;
                let v = match op {
                    Add => p.wrapping_add(q),
                    Sub => p.wrapping_sub(q),
                    Mul => p.wrapping_mul(q),
                    Div | Rem if sq == 0 => return None,
                    Div => (sp / sq) as u64,
                    Rem => (sp % sq) as u64,
                    Shl => p << (q % bits),
                    Shr => (sp >> (q % bits)) as u64,
                    BitAnd => p & q,
                    BitOr => p | q,
                    BitXor => p ^ q,
                    Lt | Gt | Le | Ge | Eq | Ne => {
                        let holds = match op {
                            Lt => sp < sq,
                            Gt => sp > sq,
                            Le => sp <= sq,
                            Ge => sp >= sq,
                            Eq => sp == sq,
                            _ => sp != sq,
                        };
                        out.push(if holds { true_value } else { 0 });
                        continue;
                    }
                    VectorAnd | VectorOr => {
                        let holds = if op == VectorAnd {
                            p != 0 && q != 0
                        } else {
                            p != 0 || q != 0
                        };
                        out.push(if holds { true_value } else { 0 });
                        continue;
                    }
                };
                out.push(truncate(v, s));
            }
            Some(Constant::Int(out))
        }
        (Constant::Float(x), Constant::Float(y)) => {
            let compare = matches!(op, Lt | Gt | Le | Ge | Eq | Ne | VectorAnd | VectorOr);
            if compare {
                let out = x
                    .iter()
                    .zip(y)
                    .map(|(&p, &q)| {
                        let holds = match op {
                            Lt => p < q,
                            Gt => p > q,
                            Le => p <= q,
                            Ge => p >= q,
                            Eq => p == q,
                            Ne => p != q,
                            VectorAnd => p != 0.0 && q != 0.0,
                            _ => p != 0.0 || q != 0.0,
                        };
                        if holds { true_value } else { 0 }
                    })
                    .collect();
                return Some(Constant::Int(out));
            }
            let out = x
                .iter()
                .zip(y)
                .map(|(&p, &q)| {
                    let v = match op {
                        Add => p + q,
                        Sub => p - q,
                        Mul => p * q,
                        Div => p / q,
                        _ => return None,
                    };
                    Some(round_float(v, s))
                })
                .collect::<Option<Vec<_>>>()?;
            Some(Constant::Float(out))
        }
        _ => None,
    }
}

/// The bytes of a constant of type `ty` (little-endian; 3-vectors padded to 4 lanes).
pub(super) fn encode(ty: &Type, c: &Constant) -> Vec<u8> {
    let s = ty.element().unwrap_or(Scalar::Int);
    let size = s.size() as usize;
    let mut out = Vec::with_capacity(ty.size() as usize);
    match c {
        Constant::Int(v) => v
            .iter()
            .for_each(|x| out.extend_from_slice(&x.to_le_bytes()[..size])),
        Constant::Float(v) => v.iter().for_each(|&x| match s {
            Scalar::Double => out.extend_from_slice(&x.to_le_bytes()),
            Scalar::Half => out.extend_from_slice(&f64_to_half_bits(x).to_le_bytes()),
            _ => out.extend_from_slice(&constant_f32(x).to_le_bytes()),
        }),
    }
    out.resize(ty.size() as usize, 0);
    out
}

/// The constant of type `ty` whose bytes are `bytes`.
fn decode(ty: &Type, bytes: &[u8]) -> Option<Constant> {
    let s = ty.element()?;
    let size = s.size() as usize;
    let n = ty.lanes() as usize;
    let lane = |i: usize| -> Option<u64> {
        let chunk = bytes.get(i * size..(i + 1) * size)?;
        let mut buf = [0u8; 8];
        buf[..size].copy_from_slice(chunk);
        Some(u64::from_le_bytes(buf))
    };
    if s.is_float() {
        let v = (0..n)
            .map(|i| {
                let bits = lane(i)?;
                Some(match s {
                    Scalar::Double => f64::from_bits(bits),
                    Scalar::Half => half_bits_to_f64(bits as u16),
                    _ => f32_to_constant(f32::from_bits(bits as u32)),
                })
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Constant::Float(v))
    } else {
        Some(Constant::Int((0..n).map(lane).collect::<Option<Vec<_>>>()?))
    }
}

/// Constant NaNs of float and half are held in an f64 with their sign and payload (quiet
/// bit included) in the leading fraction bits, the way IEEE 754 widening places them but
/// without making them quiet: folding `as_float(0x7f800001)` or `as_half((ushort)0xffff)`
/// and encoding the result keeps every bit (6.2.4.2: `as_*` returns the bits unchanged).
fn nan_to_f64(sign: bool, frac: u64, frac_bits: u32) -> f64 {
    f64::from_bits(u64::from(sign) << 63 | 0x7ff << 52 | frac << (52 - frac_bits))
}

/// The sign and leading `frac_bits` fraction bits of a NaN (the quiet NaN's if none is
/// set, so that it stays a NaN).
fn nan_from_f64(x: f64, frac_bits: u32) -> (bool, u64) {
    let b = x.to_bits();
    let frac = (b >> (52 - frac_bits)) & ((1 << frac_bits) - 1);
    let frac = if frac == 0 {
        1 << (frac_bits - 1)
    } else {
        frac
    };
    (b >> 63 != 0, frac)
}

/// The f64 that holds a float constant, exactly (NaN payloads included).
pub(crate) fn f32_to_constant(x: f32) -> f64 {
    if x.is_nan() {
        let b = x.to_bits();
        return nan_to_f64(b >> 31 != 0, u64::from(b & 0x7f_ffff), 23);
    }
    f64::from(x)
}

/// The float of a constant held as f64 (rounded to nearest; NaN payloads kept).
pub(crate) fn constant_f32(x: f64) -> f32 {
    if x.is_nan() {
        let (sign, frac) = nan_from_f64(x, 23);
        return f32::from_bits(u32::from(sign) << 31 | 0x7f80_0000 | frac as u32);
    }
    x as f32
}

/// `half` bits of a value already exactly representable as a half (NaN payloads kept).
pub(crate) fn f64_to_half_bits(x: f64) -> u16 {
    let sign = if x.is_sign_negative() { 0x8000 } else { 0 };
    let a = x.abs();
    if a.is_nan() {
        let (_, frac) = nan_from_f64(x, 10);
        return sign | 0x7c00 | frac as u16;
    }
    if a.is_infinite() || a >= 65536.0 {
        return sign | 0x7c00;
    }
    if a == 0.0 {
        return sign;
    }
    let e = a.log2().floor() as i32;
    if e < -14 {
        return sign | (a / 2f64.powi(-24)).round() as u16;
    }
    let mantissa = ((a / 2f64.powi(e) - 1.0) * 1024.0).round() as u16;
    sign | (((e + 15) as u16) << 10) | mantissa
}

fn half_bits_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let e = i32::from((h >> 10) & 0x1f);
    let m = f64::from(h & 0x3ff);
    sign * match e {
        0 => m * 2f64.powi(-24),
        31 if m == 0.0 => f64::INFINITY,
        31 => return nan_to_f64(h & 0x8000 != 0, u64::from(h & 0x3ff), 10),
        _ => (1.0 + m / 1024.0) * 2f64.powi(e - 15),
    }
}

impl Analyzer<'_> {
    /// An integer constant expression (array sizes, case labels, attributes, enumerators).
    pub(super) fn integer_constant(&mut self, e: &super::super::ast::Expr) -> Option<i64> {
        let value = self.expr(e)?;
        let Some(s) = value.ty.scalar().filter(|s| s.is_integer()) else {
            self.error(e.span, "expression is not an integer constant expression");
            return None;
        };
        match fold(&value) {
            Some(Constant::Int(v)) => Some(signed_value(v[0], s) as i64),
            _ => {
                self.error(e.span, "expression is not an integer constant expression");
                None
            }
        }
    }

    /// The bytes of a `__constant` variable's initial value.
    pub(super) fn constant_bytes(&mut self, ty: &Type, init: &Init, span: Span) -> Option<Vec<u8>> {
        let mut bytes = vec![0u8; ty.size() as usize];
        let mut put = |this: &mut Self, offset: u64, e: &Expr| -> Option<()> {
            let Some(c) = fold(e) else {
                this.error(e.span, "initializer element is not a compile-time constant");
                return None;
            };
            let encoded = encode(&e.ty, &c);
            let start = offset as usize;
            bytes
                .get_mut(start..start + encoded.len())?
                .copy_from_slice(&encoded);
            Some(())
        };
        match init {
            Init::Expr(e) => put(self, 0, e)?,
            Init::Aggregate(items) => {
                for (offset, e) in items {
                    put(self, *offset, e)?;
                }
            }
        }
        let _ = span;
        Some(bytes)
    }
}
