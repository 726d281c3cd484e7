//! The conversion functions JIT-compiled kernels call, for the conversions the compiler does
//! not inline:
//!
//! - float/double → each integer type, `_rte`/`_rtp`/`_rtn` without `_sat` and all four
//!   modes with `_sat` (the default `_rtz` without `_sat` is Cranelift's
//!   `fcvt_to_{s,u}int_sat`);
//! - each integer type → float/double, `_rtz`/`_rtp`/`_rtn` (the default `_rte` is
//!   `fcvt_from_{s,u}int`);
//! - double → float, `_rtz`/`_rtp`/`_rtn` (the default is `fdemote`).
//!
//! float → double is exact, so all of its modes are `fpromote`, and integer → integer
//! conversions are a wrap or a compare-and-select.
//!
//! **Symbols** are `clift_convert_<dst>[_sat]_<mode>_<src>` with OpenCL C type names and the
//! mode always spelled out, the default resolved: `convert_int_sat(float)` is
//! `clift_convert_int_sat_rtz_float`, `convert_float_rtp(ulong)` is
//! `clift_convert_float_rtp_ulong`. Because clift defines a non-`_sat` float → integer
//! conversion as the `_sat` one (see [`super`]), `clift_convert_int_rte_float` and
//! `clift_convert_int_sat_rte_float` are the same function under two names. Arguments and
//! results are the C types (`char` is `i8`, ...); like clang, callers pass 8- and 16-bit
//! arguments sign- or zero-extended to 32 bits.
//!
//! The functions are generic over the types involved and instantiated by the list in
//! [`externs`], which is also where their names come from.

use super::{Rounding, Value};
use crate::types::Scalar;

/// Rounding modes as const generic parameters (enums cannot be const parameters).
pub const RTE: u8 = 0;
pub const RTZ: u8 = 1;
pub const RTP: u8 = 2;
pub const RTN: u8 = 3;

/// A floating source type: rounding to an integral value in the same format, which is exact
/// in every mode, leaves only the range to deal with.
pub trait FloatSource: Copy {
    fn round<const MODE: u8>(self) -> Self;
}

macro_rules! float_source {
    ($($t:ty),*) => {$(
        impl FloatSource for $t {
            #[inline]
            fn round<const MODE: u8>(self) -> Self {
                match MODE {
                    RTE => self.round_ties_even(),
                    RTZ => self.trunc(),
                    RTP => self.ceil(),
                    _ => self.floor(),
                }
            }
        }
    )*};
}
float_source!(f32, f64);

/// An integer destination reached from the floating type `S`.
pub trait SaturatingFrom<S>: Copy {
    /// `x` (integral) clamped to the type's range, NaN giving 0.
    fn saturating_from(x: S) -> Self;
}

macro_rules! saturating_from {
    ($($f:ty => $($i:ty),*);*) => {$($(
        impl SaturatingFrom<$f> for $i {
            /// Rust's float → integer `as` clamps and maps NaN to 0: the `_sat` rule exactly.
            #[inline]
            fn saturating_from(x: $f) -> Self {
                x as $i
            }
        }
    )*)*};
}
saturating_from!(
    f32 => i8, u8, i16, u16, i32, u32, i64, u64;
    f64 => i8, u8, i16, u16, i32, u32, i64, u64
);

/// float/double → integer, rounding by `MODE`, saturating, NaN → 0 (with or without `_sat`).
pub extern "C" fn float_to_int<S: FloatSource, D: SaturatingFrom<S>, const MODE: u8>(x: S) -> D {
    D::saturating_from(x.round::<MODE>())
}

/// An integer source, seen as sign and magnitude (every one fits in a `u64` magnitude).
pub trait IntSource: Copy {
    fn sign_magnitude(self) -> (bool, u64);
}

macro_rules! int_source {
    (signed: $($s:ty),*; unsigned: $($u:ty),*) => {
        $(impl IntSource for $s {
            #[inline]
            fn sign_magnitude(self) -> (bool, u64) {
                (self < 0, self.unsigned_abs().into())
            }
        })*
        $(impl IntSource for $u {
            #[inline]
            fn sign_magnitude(self) -> (bool, u64) {
                (false, self.into())
            }
        })*
    };
}
int_source!(signed: i8, i16, i32, i64; unsigned: u8, u16, u32, u64);

/// A floating destination of integer conversions.
pub trait FloatDest: Copy {
    /// `±mag` rounded by `MODE`.
    fn from_magnitude<const MODE: u8>(neg: bool, mag: u64) -> Self;
}

macro_rules! float_dest {
    ($($t:ty: $bits:ty, $precision:expr, $bias:expr);*) => {$(
        impl FloatDest for $t {
            #[inline]
            fn from_magnitude<const MODE: u8>(neg: bool, mag: u64) -> Self {
                let width = u64::BITS - mag.leading_zeros();
                let v = if MODE == RTE || width <= $precision {
                    // The hardware conversion rounds to nearest even, and is exact when the
                    // magnitude fits the significand.
                    mag as $t
                } else {
                    // Truncate to the significand's width; the kept part and the kept part
                    // plus one unit are both representable (the latter may be a power of two
                    // one binade up), and scaling by 2^shift is exact.
                    let shift = width - $precision;
                    let kept = mag >> shift;
                    let inexact = mag & ((1 << shift) - 1) != 0;
                    let away = inexact
                        && match MODE {
                            RTP => !neg,
                            RTN => neg,
                            _ => false,
                        };
                    let scale = <$t>::from_bits((($bias + shift) as $bits) << ($precision - 1));
                    (kept + away as u64) as $t * scale
                };
                if neg { -v } else { v }
            }
        }
    )*};
}
float_dest!(f32: u32, 24, 127; f64: u64, 53, 1023);

/// integer → float/double, rounding by `MODE`.
pub extern "C" fn int_to_float<S: IntSource, D: FloatDest, const MODE: u8>(x: S) -> D {
    let (neg, mag) = x.sign_magnitude();
    D::from_magnitude::<MODE>(neg, mag)
}

/// double → float, rounding by `MODE`: the hardware's round-to-nearest result, moved one
/// step when it lies on the wrong side of `x`. Comparing in double is exact (every float is
/// a double), and the step also turns an overflow to ±infinity into ±FLT_MAX, and an
/// underflow to zero into the smallest denormal, where the mode asks for it.
pub extern "C" fn double_to_float<const MODE: u8>(x: f64) -> f32 {
    let r = x as f32;
    let wide = r as f64;
    match MODE {
        RTZ if wide.abs() > x.abs() => {
            if r > 0.0 {
                r.next_down()
            } else {
                r.next_up()
            }
        }
        RTP if wide < x => r.next_up(),
        RTN if wide > x => r.next_down(),
        _ => r,
    }
}

/// One conversion function: what it converts, its symbol and its address.
#[derive(Clone, Copy, Debug)]
pub struct Extern {
    pub name: &'static str,
    pub src: Scalar,
    pub dst: Scalar,
    pub sat: bool,
    /// Never [`Rounding::Default`]: the names spell the mode out.
    pub rounding: Rounding,
    pub ptr: *const u8,
    /// Calls the function on a [`Value`] of type `src` (for tests, which may not call
    /// through `ptr` without `unsafe`).
    ///
    /// # Panics
    /// On a value of another type.
    pub call: fn(Value) -> Value,
}

/// float/double → every integer type: `$name $ty = $variant` of the source, then of each
/// destination (OpenCL name, Rust type, [`Scalar`]/[`Value`] variant).
macro_rules! float_to_int_externs {
    ($out:ident; $src:ident $sty:ty = $svar:ident; $($dst:ident $dty:ty = $dvar:ident),*) => {$(
        float_to_int_externs!(@one $out; $src $sty = $svar; $dst $dty = $dvar;
            "_rte" Rte RTE false, "_rtp" Rtp RTP false, "_rtn" Rtn RTN false,
            "_rte" Rte RTE true, "_rtz" Rtz RTZ true, "_rtp" Rtp RTP true, "_rtn" Rtn RTN true);
    )*};
    (@one $out:ident; $src:ident $sty:ty = $svar:ident; $dst:ident $dty:ty = $dvar:ident;
        $($suffix:literal $rounding:ident $mode:ident $sat:literal),*) => {$(
        $out.push(Extern {
            name: if $sat {
                concat!("clift_convert_", stringify!($dst), "_sat", $suffix, "_", stringify!($src))
            } else {
                concat!("clift_convert_", stringify!($dst), $suffix, "_", stringify!($src))
            },
            src: Scalar::$svar,
            dst: Scalar::$dvar,
            sat: $sat,
            rounding: Rounding::$rounding,
            ptr: float_to_int::<$sty, $dty, $mode> as *const u8,
            call: |v| match v {
                Value::$svar(x) => Value::$dvar(float_to_int::<$sty, $dty, $mode>(x)),
                other => panic!("{other:?} is not a {}", stringify!($src)),
            },
        });
    )*};
}

/// Every integer type → float or double, in the three directed modes.
macro_rules! int_to_float_externs {
    ($out:ident; $dst:ident $dty:ty = $dvar:ident; $($src:ident $sty:ty = $svar:ident),*) => {$(
        int_to_float_externs!(@one $out; $dst $dty = $dvar; $src $sty = $svar;
            "_rtz" Rtz RTZ, "_rtp" Rtp RTP, "_rtn" Rtn RTN);
    )*};
    (@one $out:ident; $dst:ident $dty:ty = $dvar:ident; $src:ident $sty:ty = $svar:ident;
        $($suffix:literal $rounding:ident $mode:ident),*) => {$(
        $out.push(Extern {
            name: concat!("clift_convert_", stringify!($dst), $suffix, "_", stringify!($src)),
            src: Scalar::$svar,
            dst: Scalar::$dvar,
            sat: false,
            rounding: Rounding::$rounding,
            ptr: int_to_float::<$sty, $dty, $mode> as *const u8,
            call: |v| match v {
                Value::$svar(x) => Value::$dvar(int_to_float::<$sty, $dty, $mode>(x)),
                other => panic!("{other:?} is not a {}", stringify!($src)),
            },
        });
    )*};
}

/// double → float in the three directed modes.
macro_rules! double_to_float_externs {
    ($out:ident; $($suffix:literal $rounding:ident $mode:ident),*) => {$(
        $out.push(Extern {
            name: concat!("clift_convert_float", $suffix, "_double"),
            src: Scalar::Double,
            dst: Scalar::Float,
            sat: false,
            rounding: Rounding::$rounding,
            ptr: double_to_float::<$mode> as *const u8,
            call: |v| match v {
                Value::Double(x) => Value::Float(double_to_float::<$mode>(x)),
                other => panic!("{other:?} is not a double"),
            },
        });
    )*};
}

/// Every conversion function (163 of them).
pub fn externs() -> Vec<Extern> {
    let mut out = Vec::with_capacity(163);
    float_to_int_externs!(out; float f32 = Float;
        char i8 = Char, uchar u8 = UChar, short i16 = Short, ushort u16 = UShort,
        int i32 = Int, uint u32 = UInt, long i64 = Long, ulong u64 = ULong);
    float_to_int_externs!(out; double f64 = Double;
        char i8 = Char, uchar u8 = UChar, short i16 = Short, ushort u16 = UShort,
        int i32 = Int, uint u32 = UInt, long i64 = Long, ulong u64 = ULong);
    int_to_float_externs!(out; float f32 = Float;
        char i8 = Char, uchar u8 = UChar, short i16 = Short, ushort u16 = UShort,
        int i32 = Int, uint u32 = UInt, long i64 = Long, ulong u64 = ULong);
    int_to_float_externs!(out; double f64 = Double;
        char i8 = Char, uchar u8 = UChar, short i16 = Short, ushort u16 = UShort,
        int i32 = Int, uint u32 = UInt, long i64 = Long, ulong u64 = ULong);
    double_to_float_externs!(out; "_rtz" Rtz RTZ, "_rtp" Rtp RTP, "_rtn" Rtn RTN);
    out
}

/// Every conversion function's symbol and address, for the JIT's symbol table.
pub fn symbols() -> Vec<(&'static str, *const u8)> {
    externs().into_iter().map(|e| (e.name, e.ptr)).collect()
}

/// The symbol implementing `convert_<dst>[_sat]<rounding>(src)`, or `None` when the
/// conversion has no function (the compiler inlines it: see the module documentation).
pub fn symbol(src: Scalar, dst: Scalar, sat: bool, rounding: Rounding) -> Option<&'static str> {
    let rounding = rounding.effective(dst);
    externs()
        .into_iter()
        .find(|e| e.src == src && e.dst == dst && e.sat == sat && e.rounding == rounding)
        .map(|e| e.name)
}
