//! Explicit conversions, `convert_<dst>[_sat][_rte|_rtz|_rtp|_rtn](<src>)` (OpenCL 1.2
//! section 6.2.3), between the scalar types char, uchar, short, ushort, int, uint, long,
//! ulong, float and double. Vector conversions are these, lane by lane.
//!
//! The rules, and the choices the specification leaves to us:
//!
//! - **integer → integer**: without `_sat` the value wraps modulo 2^bits (C99 6.3.1.3 as
//!   every two's complement compiler does it); with `_sat` it is clamped to the destination's
//!   range. A rounding modifier is accepted and has no effect: an integer needs no rounding.
//! - **float/double → integer**: rounded to an integer by the modifier (default `_rtz`).
//!   With `_sat`, out-of-range values clamp to the nearest representable value and NaN gives
//!   0, as 6.2.3.3 requires. Without `_sat` the specification leaves out-of-range and NaN
//!   inputs implementation-defined; **clift defines the non-`_sat` result to be the `_sat`
//!   result**. That costs nothing: Cranelift's `fcvt_to_sint_sat`/`fcvt_to_uint_sat`, which
//!   the compiler uses for the default conversion, already saturate and map NaN to 0, and
//!   Rust's float-to-integer `as` does the same. (For char/short/uchar/ushort destinations
//!   the compiler must therefore clamp, not truncate, after converting to a 32-bit integer.)
//! - **integer → float/double, double → float**: rounded by the modifier, default `_rte`.
//!   Every mode is exact (correctly rounded), including denormal results and overflow: a
//!   directed mode that rounds away from infinity stops at the largest finite value.
//! - **float → double** is exact, so the modifier has no effect; float → float and
//!   double → double return the operand unchanged.
//! - `_sat` with a floating destination is a compile-time error (6.2.3.3); the compiler
//!   rejects it before anything here is reached.
//!
//! Two implementations of these rules live here, written independently so that each tests
//! the other:
//!
//! - [`convert`], the reference: exact integer arithmetic on the operand's bits
//!   (the private `exact` module). Tests and the compiler's constant folder use it.
//! - [`native`], the `extern "C"` functions JIT-compiled kernels call by symbol for the
//!   conversions the compiler does not inline (see [`native`] for which): fast paths built on
//!   the hardware's correctly rounded operations.

pub(crate) mod exact;
pub mod native;

pub use native::{Extern, externs, symbol, symbols};

use crate::types::Scalar;

/// The rounding modifier of a conversion (table 6.7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rounding {
    /// No modifier: `_rtz` to an integer, `_rte` to a floating type ([`Rounding::effective`]).
    Default,
    /// Round to nearest, ties to even.
    Rte,
    /// Round toward zero.
    Rtz,
    /// Round toward positive infinity.
    Rtp,
    /// Round toward negative infinity.
    Rtn,
}

impl Rounding {
    pub const ALL: [Rounding; 5] = [
        Rounding::Default,
        Rounding::Rte,
        Rounding::Rtz,
        Rounding::Rtp,
        Rounding::Rtn,
    ];

    /// The suffix in a function name: `""`, `"_rte"`, `"_rtz"`, `"_rtp"` or `"_rtn"`.
    pub fn suffix(self) -> &'static str {
        match self {
            Rounding::Default => "",
            Rounding::Rte => "_rte",
            Rounding::Rtz => "_rtz",
            Rounding::Rtp => "_rtp",
            Rounding::Rtn => "_rtn",
        }
    }

    /// The modifier a suffix names (the inverse of [`Rounding::suffix`]).
    pub fn from_suffix(suffix: &str) -> Option<Rounding> {
        Rounding::ALL.into_iter().find(|r| r.suffix() == suffix)
    }

    /// The mode a conversion to `dst` really rounds with: [`Rounding::Default`] becomes `Rtz`
    /// for an integer destination and `Rte` for a floating one (6.2.3.2). (Integer → integer
    /// conversions never round; `Rtz` is vacuous there.)
    pub fn effective(self, dst: Scalar) -> Rounding {
        match self {
            Rounding::Default if dst.is_float() => Rounding::Rte,
            Rounding::Default => Rounding::Rtz,
            mode => mode,
        }
    }
}

/// A scalar operand or result of a conversion.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    Char(i8),
    UChar(u8),
    Short(i16),
    UShort(u16),
    Int(i32),
    UInt(u32),
    Long(i64),
    ULong(u64),
    Float(f32),
    Double(f64),
}

impl Value {
    /// The value's type.
    pub fn scalar(self) -> Scalar {
        match self {
            Value::Char(_) => Scalar::Char,
            Value::UChar(_) => Scalar::UChar,
            Value::Short(_) => Scalar::Short,
            Value::UShort(_) => Scalar::UShort,
            Value::Int(_) => Scalar::Int,
            Value::UInt(_) => Scalar::UInt,
            Value::Long(_) => Scalar::Long,
            Value::ULong(_) => Scalar::ULong,
            Value::Float(_) => Scalar::Float,
            Value::Double(_) => Scalar::Double,
        }
    }

    /// The value's bits, zero-extended (floating values by their IEEE encoding).
    pub fn bits(self) -> u64 {
        match self {
            Value::Char(v) => v as u8 as u64,
            Value::UChar(v) => v as u64,
            Value::Short(v) => v as u16 as u64,
            Value::UShort(v) => v as u64,
            Value::Int(v) => v as u32 as u64,
            Value::UInt(v) => v as u64,
            Value::Long(v) => v as u64,
            Value::ULong(v) => v,
            Value::Float(v) => v.to_bits() as u64,
            Value::Double(v) => v.to_bits(),
        }
    }

    /// Whether two values are the same result: same type and same bits, except that any
    /// NaN matches any NaN (NaN payloads are not part of the conversion contract).
    pub fn same(self, other: Value) -> bool {
        match (self, other) {
            (Value::Float(a), Value::Float(b)) if a.is_nan() && b.is_nan() => true,
            (Value::Double(a), Value::Double(b)) if a.is_nan() && b.is_nan() => true,
            _ => self.scalar() == other.scalar() && self.bits() == other.bits(),
        }
    }

    /// An integer value, `None` for floating ones (every integer type fits in `i128`).
    pub fn as_i128(self) -> Option<i128> {
        Some(match self {
            Value::Char(v) => v.into(),
            Value::UChar(v) => v.into(),
            Value::Short(v) => v.into(),
            Value::UShort(v) => v.into(),
            Value::Int(v) => v.into(),
            Value::UInt(v) => v.into(),
            Value::Long(v) => v.into(),
            Value::ULong(v) => v.into(),
            Value::Float(_) | Value::Double(_) => return None,
        })
    }

    /// `v` in the integer type `dst`, wrapped modulo 2^bits.
    ///
    /// # Panics
    /// If `dst` is not one of the eight integer types.
    pub fn wrapping(dst: Scalar, v: i128) -> Value {
        match dst {
            Scalar::Char => Value::Char(v as i8),
            Scalar::UChar => Value::UChar(v as u8),
            Scalar::Short => Value::Short(v as i16),
            Scalar::UShort => Value::UShort(v as u16),
            Scalar::Int => Value::Int(v as i32),
            Scalar::UInt => Value::UInt(v as u32),
            Scalar::Long => Value::Long(v as i64),
            Scalar::ULong => Value::ULong(v as u64),
            other => panic!("{} is not a conversion's integer type", other.name()),
        }
    }

    /// `v` in the integer type `dst`, clamped to its range.
    ///
    /// # Panics
    /// If `dst` is not one of the eight integer types.
    pub fn saturating(dst: Scalar, v: i128) -> Value {
        let (min, max) = integer_range(dst);
        Value::wrapping(dst, v.clamp(min, max))
    }
}

/// The range of an integer type.
fn integer_range(ty: Scalar) -> (i128, i128) {
    let bits = ty.bits();
    if ty.is_signed() {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

/// The reference conversion: `convert_<dst>[_sat]<rounding>(value)` computed exactly, by
/// the rules of the module documentation.
///
/// NaN results are quiet NaNs that keep the operand's sign and leading payload bits (what
/// x86's conversions do), but only "is NaN" is promised.
///
/// # Panics
/// If `dst` is `bool` or `half` (no `convert_*` exists for them), or if `sat` is asked for a
/// floating destination (a compile-time error in OpenCL C).
pub fn convert(value: Value, dst: Scalar, sat: bool, rounding: Rounding) -> Value {
    assert!(
        !matches!(dst, Scalar::Bool | Scalar::Half),
        "convert_{} does not exist",
        dst.name()
    );
    assert!(
        !(sat && dst.is_float()),
        "convert_{}_sat does not exist",
        dst.name()
    );
    let mode = rounding.effective(dst);
    if let Some(v) = value.as_i128() {
        return match dst {
            Scalar::Float => Value::Float(f32::from_bits(exact::round_dyadic(
                v < 0,
                v.unsigned_abs(),
                0,
                exact::SINGLE,
                mode,
            ) as u32)),
            Scalar::Double => Value::Double(f64::from_bits(exact::round_dyadic(
                v < 0,
                v.unsigned_abs(),
                0,
                exact::DOUBLE,
                mode,
            ))),
            _ if sat => Value::saturating(dst, v),
            _ => Value::wrapping(dst, v),
        };
    }
    // A float operand widens to double exactly, so one path serves both.
    let (x, from_single) = match value {
        Value::Float(x) => (x as f64, true),
        Value::Double(x) => (x, false),
        _ => unreachable!("integers returned above"),
    };
    match dst {
        Scalar::Float if from_single => value,
        Scalar::Double if !from_single => value,
        Scalar::Float => Value::Float(f32::from_bits(
            exact::to_format(x, exact::SINGLE, mode) as u32
        )),
        Scalar::Double => Value::Double(f64::from_bits(exact::to_format(x, exact::DOUBLE, mode))),
        // Non-_sat equals _sat by clift's definition (module documentation).
        _ => Value::saturating(dst, exact::round_to_integer(x, mode)),
    }
}
