//! The integer functions of OpenCL 1.2 section 6.12.3 (tables 6.13 and 6.14), scalar; vector
//! forms apply them lane by lane.
//!
//! Two implementations, written independently so that each tests the other:
//!
//! - the `extern "C"` functions JIT-compiled kernels call, for the functions the compiler
//!   does not inline: native Rust arithmetic, widening only to the next type (`i128`/`u128`
//!   for 64-bit types), so each compiles to a few instructions;
//! - [`reference()`], the definition in exact `i128` arithmetic (sign and `u128` magnitude for
//!   64-bit products), for tests and the compiler's constant folder.
//!
//! **Symbols** are `clift_<function>_<type>` with Rust type names: `clift_mul_hi_i64`,
//! `clift_add_sat_u8`, `clift_upsample_i16` (named after the type of `hi`; it returns the
//! wider type). The Rust functions are generic (`clift_mul_hi::<i64>`), and [`externs`] lists
//! every instantiation. Like clang, callers pass 8- and 16-bit arguments sign- or zero-extended
//! to 32 bits.
//!
//! Where the specification leaves a result open, clift defines it as the cheapest natural
//! choice:
//!
//! - `mul24`/`mad24` (int and uint only): inputs outside 24 bits are implementation-defined;
//!   clift computes the full 32-bit product (and sum) modulo 2^32, one `imul` (and `add`),
//!   which equals the 24-bit definition for every input the specification covers.
//! - `clamp(x, minval, maxval)` with `minval > maxval` is undefined; clift returns
//!   `min(max(x, minval), maxval)` literally, which is `maxval`.
//! - `mad_hi(a, b, c)` is `mul_hi(a, b) + c` with the usual modulo addition.
//! - `rotate(v, i)` rotates left by `i` modulo the width (6.3's rule for shift counts), so a
//!   negative count rotates right.

use crate::types::Scalar;

/// The functions common to the eight integer types.
pub trait Integer: Copy {
    /// The unsigned type of the same width (the result of `abs` and `abs_diff`).
    type Unsigned: Copy;
    fn abs(self) -> Self::Unsigned;
    fn abs_diff(self, y: Self) -> Self::Unsigned;
    fn add_sat(self, y: Self) -> Self;
    fn sub_sat(self, y: Self) -> Self;
    fn hadd(self, y: Self) -> Self;
    fn rhadd(self, y: Self) -> Self;
    fn clz(self) -> Self;
    /// OpenCL C 2.0's `ctz`, which clang-based 1.2 drivers provide too: the trailing zero
    /// bits, the width for 0.
    fn ctz(self) -> Self;
    fn popcount(self) -> Self;
    fn mul_hi(self, y: Self) -> Self;
    fn mad_hi(self, b: Self, c: Self) -> Self;
    fn mad_sat(self, b: Self, c: Self) -> Self;
    fn rotate(self, i: Self) -> Self;
    fn clamp(self, minval: Self, maxval: Self) -> Self;
    fn max(self, y: Self) -> Self;
    fn min(self, y: Self) -> Self;
}

/// The methods whose bodies are the same for signed and unsigned types.
macro_rules! shared_methods {
    ($t:ty, $u:ty, $wide:ty) => {
        fn add_sat(self, y: Self) -> Self {
            self.saturating_add(y)
        }

        fn sub_sat(self, y: Self) -> Self {
            self.saturating_sub(y)
        }

        /// floor((x + y) / 2) without the carry: the common bits plus half the differing
        /// ones (an arithmetic shift for signed types).
        fn hadd(self, y: Self) -> Self {
            (self & y) + ((self ^ y) >> 1)
        }

        /// ceil((x + y) / 2) without the carry: x + y = 2(x | y) - (x ^ y).
        fn rhadd(self, y: Self) -> Self {
            (self | y) - ((self ^ y) >> 1)
        }

        fn clz(self) -> Self {
            self.leading_zeros() as $t
        }

        fn ctz(self) -> Self {
            self.trailing_zeros() as $t
        }

        fn popcount(self) -> Self {
            self.count_ones() as $t
        }

        fn mul_hi(self, y: Self) -> Self {
            ((self as $wide * y as $wide) >> <$t>::BITS) as $t
        }

        fn mad_hi(self, b: Self, c: Self) -> Self {
            Integer::mul_hi(self, b).wrapping_add(c)
        }

        /// The next wider type holds a·b + c exactly (for u64, u128 does: (2^64-1)^2 +
        /// 2^64-1 < 2^128).
        fn mad_sat(self, b: Self, c: Self) -> Self {
            let exact = self as $wide * b as $wide + c as $wide;
            Ord::clamp(exact, <$t>::MIN as $wide, <$t>::MAX as $wide) as $t
        }

        fn rotate(self, i: Self) -> Self {
            // The count's two's complement bits modulo the (power of two) width.
            (self as $u).rotate_left(i as $u as u32 % <$t>::BITS) as $t
        }

        fn clamp(self, minval: Self, maxval: Self) -> Self {
            Ord::min(Ord::max(self, minval), maxval)
        }

        fn max(self, y: Self) -> Self {
            Ord::max(self, y)
        }

        fn min(self, y: Self) -> Self {
            Ord::min(self, y)
        }
    };
}

macro_rules! signed {
    ($($t:ty: $u:ty, $wide:ty);*) => {$(
        impl Integer for $t {
            type Unsigned = $u;

            fn abs(self) -> $u {
                self.unsigned_abs()
            }

            fn abs_diff(self, y: Self) -> $u {
                <$t>::abs_diff(self, y)
            }

            shared_methods!($t, $u, $wide);
        }
    )*};
}

macro_rules! unsigned {
    ($($t:ty: $wide:ty);*) => {$(
        impl Integer for $t {
            type Unsigned = $t;

            fn abs(self) -> $t {
                self
            }

            fn abs_diff(self, y: Self) -> $t {
                <$t>::abs_diff(self, y)
            }

            shared_methods!($t, $t, $wide);
        }
    )*};
}

signed!(i8: u8, i16; i16: u16, i32; i32: u32, i64; i64: u64, i128);
unsigned!(u8: u16; u16: u32; u32: u64; u64: u128);

/// The types `upsample` widens: `hi` of this type, `lo` of its unsigned counterpart.
pub trait Upsample: Copy {
    type Lo: Copy;
    type Wide: Copy;
    fn upsample(self, lo: Self::Lo) -> Self::Wide;
}

macro_rules! upsample {
    ($($t:ty: $lo:ty => $wide:ty);*) => {$(
        impl Upsample for $t {
            type Lo = $lo;
            type Wide = $wide;

            fn upsample(self, lo: $lo) -> $wide {
                ((self as $wide) << <$t>::BITS) | lo as $wide
            }
        }
    )*};
}

upsample!(i8: u8 => i16; u8: u8 => u16; i16: u16 => i32; u16: u16 => u32; i32: u32 => i64;
    u32: u32 => u64);

/// The 24-bit multiplications of table 6.14 (int and uint).
pub trait Fast24: Copy {
    fn mul24(self, y: Self) -> Self;
    fn mad24(self, y: Self, z: Self) -> Self;
}

macro_rules! fast24 {
    ($($t:ty),*) => {$(
        impl Fast24 for $t {
            /// The whole product modulo 2^32 (see the module documentation).
            fn mul24(self, y: Self) -> Self {
                self.wrapping_mul(y)
            }

            fn mad24(self, y: Self, z: Self) -> Self {
                self.wrapping_mul(y).wrapping_add(z)
            }
        }
    )*};
}

fast24!(i32, u32);

pub extern "C" fn clift_abs<T: Integer>(x: T) -> T::Unsigned {
    x.abs()
}
pub extern "C" fn clift_abs_diff<T: Integer>(x: T, y: T) -> T::Unsigned {
    x.abs_diff(y)
}
pub extern "C" fn clift_add_sat<T: Integer>(x: T, y: T) -> T {
    x.add_sat(y)
}
pub extern "C" fn clift_sub_sat<T: Integer>(x: T, y: T) -> T {
    x.sub_sat(y)
}
pub extern "C" fn clift_hadd<T: Integer>(x: T, y: T) -> T {
    x.hadd(y)
}
pub extern "C" fn clift_rhadd<T: Integer>(x: T, y: T) -> T {
    x.rhadd(y)
}
pub extern "C" fn clift_clz<T: Integer>(x: T) -> T {
    x.clz()
}
pub extern "C" fn clift_ctz<T: Integer>(x: T) -> T {
    x.ctz()
}
pub extern "C" fn clift_popcount<T: Integer>(x: T) -> T {
    x.popcount()
}
pub extern "C" fn clift_mul_hi<T: Integer>(x: T, y: T) -> T {
    x.mul_hi(y)
}
pub extern "C" fn clift_mad_hi<T: Integer>(a: T, b: T, c: T) -> T {
    a.mad_hi(b, c)
}
pub extern "C" fn clift_mad_sat<T: Integer>(a: T, b: T, c: T) -> T {
    a.mad_sat(b, c)
}
pub extern "C" fn clift_rotate<T: Integer>(v: T, i: T) -> T {
    v.rotate(i)
}
pub extern "C" fn clift_clamp<T: Integer>(x: T, minval: T, maxval: T) -> T {
    x.clamp(minval, maxval)
}
pub extern "C" fn clift_max<T: Integer>(x: T, y: T) -> T {
    x.max(y)
}
pub extern "C" fn clift_min<T: Integer>(x: T, y: T) -> T {
    x.min(y)
}
pub extern "C" fn clift_upsample<T: Upsample>(hi: T, lo: T::Lo) -> T::Wide {
    hi.upsample(lo)
}
pub extern "C" fn clift_mul24<T: Fast24>(x: T, y: T) -> T {
    x.mul24(y)
}
pub extern "C" fn clift_mad24<T: Fast24>(x: T, y: T, z: T) -> T {
    x.mad24(y, z)
}

/// An integer function of 6.12.3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntOp {
    Abs,
    AbsDiff,
    AddSat,
    SubSat,
    Hadd,
    Rhadd,
    Clz,
    Ctz,
    Popcount,
    MadHi,
    MulHi,
    MadSat,
    Rotate,
    Upsample,
    Mad24,
    Mul24,
    Clamp,
    Max,
    Min,
}

impl IntOp {
    pub const ALL: [IntOp; 19] = [
        IntOp::Abs,
        IntOp::AbsDiff,
        IntOp::AddSat,
        IntOp::SubSat,
        IntOp::Hadd,
        IntOp::Rhadd,
        IntOp::Clz,
        IntOp::Ctz,
        IntOp::Popcount,
        IntOp::MadHi,
        IntOp::MulHi,
        IntOp::MadSat,
        IntOp::Rotate,
        IntOp::Upsample,
        IntOp::Mad24,
        IntOp::Mul24,
        IntOp::Clamp,
        IntOp::Max,
        IntOp::Min,
    ];

    /// The OpenCL C name.
    pub fn name(self) -> &'static str {
        match self {
            IntOp::Abs => "abs",
            IntOp::AbsDiff => "abs_diff",
            IntOp::AddSat => "add_sat",
            IntOp::SubSat => "sub_sat",
            IntOp::Hadd => "hadd",
            IntOp::Rhadd => "rhadd",
            IntOp::Clz => "clz",
            IntOp::Ctz => "ctz",
            IntOp::Popcount => "popcount",
            IntOp::MadHi => "mad_hi",
            IntOp::MulHi => "mul_hi",
            IntOp::MadSat => "mad_sat",
            IntOp::Rotate => "rotate",
            IntOp::Upsample => "upsample",
            IntOp::Mad24 => "mad24",
            IntOp::Mul24 => "mul24",
            IntOp::Clamp => "clamp",
            IntOp::Max => "max",
            IntOp::Min => "min",
        }
    }

    pub fn arity(self) -> usize {
        match self {
            IntOp::Abs | IntOp::Clz | IntOp::Ctz | IntOp::Popcount => 1,
            IntOp::MadHi | IntOp::MadSat | IntOp::Mad24 | IntOp::Clamp => 3,
            _ => 2,
        }
    }

    /// Whether the function exists for (its first argument of) type `ty`.
    pub fn exists_for(self, ty: Scalar) -> bool {
        let integer = ty.is_integer() && ty != Scalar::Bool;
        match self {
            IntOp::Upsample => integer && ty.size() < 8,
            IntOp::Mad24 | IntOp::Mul24 => matches!(ty, Scalar::Int | Scalar::UInt),
            _ => integer,
        }
    }

    /// The type of argument `index` when the first argument is of type `ty` (only
    /// `upsample`'s `lo` differs: it is unsigned).
    pub fn arg_type(self, ty: Scalar, index: usize) -> Scalar {
        if self == IntOp::Upsample && index == 1 {
            ty.unsigned_counterpart()
        } else {
            ty
        }
    }

    /// The result type when the first argument is of type `ty`.
    pub fn result_type(self, ty: Scalar) -> Scalar {
        match self {
            IntOp::Abs | IntOp::AbsDiff => ty.unsigned_counterpart(),
            IntOp::Upsample => match ty {
                Scalar::Char => Scalar::Short,
                Scalar::UChar => Scalar::UShort,
                Scalar::Short => Scalar::Int,
                Scalar::UShort => Scalar::UInt,
                Scalar::Int => Scalar::Long,
                _ => Scalar::ULong,
            },
            _ => ty,
        }
    }
}

/// The range of an integer type.
fn range(ty: Scalar) -> (i128, i128) {
    let bits = ty.bits();
    if ty.is_signed() {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

/// `v` reduced modulo 2^bits into the range of `ty`.
fn wrap(ty: Scalar, v: i128) -> i128 {
    let bits = ty.bits();
    let low = v & ((1i128 << bits) - 1);
    if ty.is_signed() && low >> (bits - 1) != 0 {
        low - (1i128 << bits)
    } else {
        low
    }
}

/// The exact product as (negative, magnitude): a u64 square needs all of a u128.
fn product(a: i128, b: i128) -> (bool, u128) {
    let magnitude = a.unsigned_abs() * b.unsigned_abs();
    ((a < 0) != (b < 0) && magnitude != 0, magnitude)
}

/// The reference definition of `op` for arguments of type `ty` (the first argument's type;
/// see [`IntOp::arg_type`]), as exact integer arithmetic. Arguments and result are values
/// (not bit patterns) of their types, the result of type [`IntOp::result_type`].
///
/// # Panics
/// If `op` does not exist for `ty`, or `args` is shorter than its arity.
pub fn reference(op: IntOp, ty: Scalar, args: &[i128]) -> i128 {
    assert!(op.exists_for(ty), "{} has no {} form", op.name(), ty.name());
    let bits = ty.bits();
    let (min, max) = range(ty);
    let a = args[0];
    let b = args.get(1).copied().unwrap_or(0);
    let c = args.get(2).copied().unwrap_or(0);
    let unsigned_bits = a & ((1i128 << bits) - 1);
    match op {
        IntOp::Abs => a.abs(),
        IntOp::AbsDiff => (a - b).abs(),
        IntOp::AddSat => (a + b).clamp(min, max),
        IntOp::SubSat => (a - b).clamp(min, max),
        IntOp::Hadd => (a + b).div_euclid(2),
        IntOp::Rhadd => (a + b + 1).div_euclid(2),
        IntOp::Clz => (0..bits)
            .take_while(|i| (unsigned_bits >> (bits - 1 - i)) & 1 == 0)
            .count() as i128,
        IntOp::Ctz => (0..bits)
            .take_while(|i| (unsigned_bits >> i) & 1 == 0)
            .count() as i128,
        IntOp::Popcount => (0..bits).filter(|i| (unsigned_bits >> i) & 1 == 1).count() as i128,
        IntOp::MulHi | IntOp::MadHi => {
            // floor(a·b / 2^bits): a negative product rounds away from zero.
            let (neg, magnitude) = product(a, b);
            let high = if neg {
                -(((magnitude + (1u128 << bits) - 1) >> bits) as i128)
            } else {
                (magnitude >> bits) as i128
            };
            if op == IntOp::MadHi {
                wrap(ty, high + c)
            } else {
                high
            }
        }
        IntOp::MadSat => {
            let (neg, magnitude) = product(a, b);
            if magnitude > 1 << 126 {
                // Only ulong reaches this: positive and beyond any addend's reach.
                max
            } else {
                let p = magnitude as i128;
                (if neg { -p } else { p } + c).clamp(min, max)
            }
        }
        IntOp::Rotate => {
            let n = b.rem_euclid(bits.into()) as u32;
            let mask = (1i128 << bits) - 1;
            wrap(
                ty,
                ((unsigned_bits << n) | (unsigned_bits >> ((bits - n) % bits))) & mask,
            )
        }
        IntOp::Upsample => a * (1i128 << bits) + b,
        IntOp::Mad24 => wrap(ty, a * b + c),
        IntOp::Mul24 => wrap(ty, a * b),
        IntOp::Clamp => a.max(b).min(c),
        IntOp::Max => a.max(b),
        IntOp::Min => a.min(b),
    }
}

/// One integer function instance: its symbol, address, and a safe way to call it.
#[derive(Clone, Copy, Debug)]
pub struct IntExtern {
    pub name: &'static str,
    pub op: IntOp,
    /// The first argument's type.
    pub ty: Scalar,
    pub ptr: *const u8,
    /// Calls the function on argument values (as [`reference()`] takes them), returning the
    /// result's value.
    pub call: fn(&[i128]) -> i128,
}

macro_rules! push {
    ($out:ident, $op:ident, $name:literal, $t:ident, $var:ident, $f:expr, $call:expr) => {
        $out.push(IntExtern {
            name: concat!("clift_", $name, "_", stringify!($t)),
            op: IntOp::$op,
            ty: Scalar::$var,
            ptr: $f as *const u8,
            call: $call,
        })
    };
}

/// The functions of every integer type: `rust_type = Scalar variant`.
macro_rules! common_externs {
    ($out:ident; $($t:ident = $var:ident),*) => {$(
        push!($out, Abs, "abs", $t, $var, clift_abs::<$t>,
            |a| clift_abs::<$t>(a[0] as $t) as i128);
        push!($out, AbsDiff, "abs_diff", $t, $var, clift_abs_diff::<$t>,
            |a| clift_abs_diff::<$t>(a[0] as $t, a[1] as $t) as i128);
        push!($out, AddSat, "add_sat", $t, $var, clift_add_sat::<$t>,
            |a| clift_add_sat::<$t>(a[0] as $t, a[1] as $t) as i128);
        push!($out, SubSat, "sub_sat", $t, $var, clift_sub_sat::<$t>,
            |a| clift_sub_sat::<$t>(a[0] as $t, a[1] as $t) as i128);
        push!($out, Hadd, "hadd", $t, $var, clift_hadd::<$t>,
            |a| clift_hadd::<$t>(a[0] as $t, a[1] as $t) as i128);
        push!($out, Rhadd, "rhadd", $t, $var, clift_rhadd::<$t>,
            |a| clift_rhadd::<$t>(a[0] as $t, a[1] as $t) as i128);
        push!($out, Clz, "clz", $t, $var, clift_clz::<$t>,
            |a| clift_clz::<$t>(a[0] as $t) as i128);
        push!($out, Ctz, "ctz", $t, $var, clift_ctz::<$t>,
            |a| clift_ctz::<$t>(a[0] as $t) as i128);
        push!($out, Popcount, "popcount", $t, $var, clift_popcount::<$t>,
            |a| clift_popcount::<$t>(a[0] as $t) as i128);
        push!($out, MadHi, "mad_hi", $t, $var, clift_mad_hi::<$t>,
            |a| clift_mad_hi::<$t>(a[0] as $t, a[1] as $t, a[2] as $t) as i128);
        push!($out, MulHi, "mul_hi", $t, $var, clift_mul_hi::<$t>,
            |a| clift_mul_hi::<$t>(a[0] as $t, a[1] as $t) as i128);
        push!($out, MadSat, "mad_sat", $t, $var, clift_mad_sat::<$t>,
            |a| clift_mad_sat::<$t>(a[0] as $t, a[1] as $t, a[2] as $t) as i128);
        push!($out, Rotate, "rotate", $t, $var, clift_rotate::<$t>,
            |a| clift_rotate::<$t>(a[0] as $t, a[1] as $t) as i128);
        push!($out, Clamp, "clamp", $t, $var, clift_clamp::<$t>,
            |a| clift_clamp::<$t>(a[0] as $t, a[1] as $t, a[2] as $t) as i128);
        push!($out, Max, "max", $t, $var, clift_max::<$t>,
            |a| clift_max::<$t>(a[0] as $t, a[1] as $t) as i128);
        push!($out, Min, "min", $t, $var, clift_min::<$t>,
            |a| clift_min::<$t>(a[0] as $t, a[1] as $t) as i128);
    )*};
}

/// `upsample` of each type it widens: `hi type (lo type) = Scalar variant of hi`.
macro_rules! upsample_externs {
    ($out:ident; $($t:ident($lo:ident) = $var:ident),*) => {$(
        push!($out, Upsample, "upsample", $t, $var, clift_upsample::<$t>,
            |a| clift_upsample::<$t>(a[0] as $t, a[1] as $lo) as i128);
    )*};
}

/// `mul24` and `mad24` of int and uint.
macro_rules! fast24_externs {
    ($out:ident; $($t:ident = $var:ident),*) => {$(
        push!($out, Mul24, "mul24", $t, $var, clift_mul24::<$t>,
            |a| clift_mul24::<$t>(a[0] as $t, a[1] as $t) as i128);
        push!($out, Mad24, "mad24", $t, $var, clift_mad24::<$t>,
            |a| clift_mad24::<$t>(a[0] as $t, a[1] as $t, a[2] as $t) as i128);
    )*};
}

/// Every integer function instance (130 of them).
#[expect(
    clippy::vec_init_then_push,
    reason = "the pushes come from macros listing the types"
)]
pub fn externs() -> Vec<IntExtern> {
    let mut out = Vec::with_capacity(130);
    common_externs!(out; i8 = Char, u8 = UChar, i16 = Short, u16 = UShort,
        i32 = Int, u32 = UInt, i64 = Long, u64 = ULong);
    upsample_externs!(out; i8(u8) = Char, u8(u8) = UChar, i16(u16) = Short, u16(u16) = UShort,
        i32(u32) = Int, u32(u32) = UInt);
    fast24_externs!(out; i32 = Int, u32 = UInt);
    out
}

/// Every integer function's symbol and address, for the JIT's symbol table.
pub fn symbols() -> Vec<(&'static str, *const u8)> {
    externs().into_iter().map(|e| (e.name, e.ptr)).collect()
}

/// The symbol of `op` for first-argument type `ty`, if it exists.
pub fn symbol(op: IntOp, ty: Scalar) -> Option<&'static str> {
    externs()
        .into_iter()
        .find(|e| e.op == op && e.ty == ty)
        .map(|e| e.name)
}
