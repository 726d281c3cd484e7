//! The conversions behind `vload_half*` and `vstore_half*` (OpenCL 1.2 section 6.12.7):
//! half bits → float, and float or double → half bits in each rounding mode.
//!
//! half has no arithmetic in OpenCL C 1.2 without `cl_khr_fp16`; it exists in memory only,
//! and these two conversions are all a kernel does with it. The compiler does the loads and
//! stores and calls these per element:
//!
//! - `clift_half_to_f32(u16) -> f32`: exact (every half is a float), denormals included;
//!   infinities stay infinite and a NaN stays NaN with its payload, made quiet.
//! - `clift_f32_to_half_{rte,rtz,rtp,rtn}(f32) -> u16` and
//!   `clift_f64_to_half_{rte,rtz,rtp,rtn}(f64) -> u16`: correctly rounded, denormal results
//!   included. Overflow follows IEEE 754: `_rte` gives ±infinity, `_rtz` gives ±65504, `_rtp`
//!   gives +infinity or -65504, `_rtn` gives +65504 or -infinity. A NaN stays NaN (quiet,
//!   with the leading payload bits). `vstore_half` without a suffix is `_rte`.
//!
//! A double is rounded to half directly, never through float, which would round twice.
//! (The `half` crate's `f16::from_f64` drops the low 32 bits of the double first and so
//! misrounds values just above a tie; it is not used here.)

use crate::convert::native::{RTE, RTN, RTP, RTZ};
use crate::convert::{Rounding, exact};

/// half bits → float, exactly.
pub extern "C" fn clift_half_to_f32(h: u16) -> f32 {
    let sign = u32::from(h & 0x8000) << 16;
    let field = u32::from(h >> 10) & 0x1f;
    let frac = u32::from(h & 0x3ff);
    match field {
        0x1f if frac == 0 => f32::from_bits(sign | 0x7f80_0000),
        // NaN: keep the payload, set the quiet bit (as IEEE 754 conversions do).
        0x1f => f32::from_bits(sign | 0x7fc0_0000 | frac << 13),
        0 => {
            // ±0 or a denormal, frac·2^-24: exact in float.
            let magnitude = frac as f32 * (1.0 / 16_777_216.0);
            if sign != 0 { -magnitude } else { magnitude }
        }
        // Rebias the exponent from 15 to 127.
        _ => f32::from_bits(sign | (field + 112) << 23 | frac << 13),
    }
}

/// half bits → float, exactly and reversibly: a NaN keeps its quiet bit as it is.
///
/// This is the move, not the conversion: `half` values (cl_khr_fp16) are held in registers
/// as the float of the same value, and loads, stores, `as_*` and every other copy must give
/// back the very bits they were given (a signalling NaN stays signalling). Its inverse is
/// [`clift_f32_to_half_bits`].
pub extern "C" fn clift_half_bits_to_f32(h: u16) -> f32 {
    if h & 0x7c00 == 0x7c00 && h & 0x3ff != 0 {
        let sign = u32::from(h & 0x8000) << 16;
        return f32::from_bits(sign | 0x7f80_0000 | u32::from(h & 0x3ff) << 13);
    }
    clift_half_to_f32(h)
}

/// float → half bits, the inverse of [`clift_half_bits_to_f32`]: a NaN keeps its sign and
/// its leading 10 fraction bits, quiet bit included (a NaN whose leading bits are all zero
/// becomes the quiet NaN with the same sign, so that it stays a NaN); any other value is
/// rounded to nearest, ties to even (exact for a value that is a half).
pub extern "C" fn clift_f32_to_half_bits(x: f32) -> u16 {
    if x.is_nan() {
        let b = x.to_bits();
        let sign = (b >> 16) as u16 & 0x8000;
        let frac = (b >> 13) as u16 & 0x3ff;
        return sign | 0x7c00 | if frac == 0 { 0x200 } else { frac };
    }
    clift_f32_to_half_rte(x)
}

/// `x` rounded to the nearest half (ties to even) and held as float again: what every half
/// operation's float result goes through. A NaN comes back with its bits as a half keeps
/// them (see [`clift_f32_to_half_bits`]).
pub extern "C" fn clift_f32_round_half(x: f32) -> f32 {
    clift_half_bits_to_f32(clift_f32_to_half_bits(x))
}

/// The result of a value too large for half, by mode (IEEE 754 7.4).
#[inline]
fn overflow<const MODE: u8>(neg: bool) -> u16 {
    const INF: u16 = 0x7c00;
    const MAX: u16 = 0x7bff;
    match MODE {
        RTE => INF,
        RTZ => MAX,
        RTP if neg => MAX,
        RTP => INF,
        _ if neg => INF,
        _ => MAX,
    }
}

/// An IEEE value given by its fields (sign, biased exponent field, stored fraction; the
/// source format by its fraction width and bias) rounded to half by `MODE`.
#[inline]
fn fields_to_half<const MODE: u8>(
    neg: bool,
    field: i32,
    frac: u64,
    frac_bits: u32,
    bias: i32,
) -> u16 {
    let sign: u16 = if neg { 0x8000 } else { 0 };
    if field == 2 * bias + 1 {
        return sign
            | if frac == 0 {
                0x7c00
            } else {
                0x7e00 | (frac >> (frac_bits - 10)) as u16 & 0x3ff
            };
    }
    if field == 0 && frac == 0 {
        return sign;
    }
    // A denormal source (below 2^-126) is far under half's smallest denormal (2^-24); giving
    // it the smallest normal exponent without the leading bit keeps it exact, and the shift
    // below then rounds it like any other tiny value.
    let (exp, significand) = if field == 0 {
        (1 - bias, frac)
    } else {
        (field - bias, frac | 1 << frac_bits)
    };
    if exp > 15 {
        return sign | overflow::<MODE>(neg);
    }
    // Keep 11 bits for a normal half, fewer below 2^-14 (denormal halves have a fixed
    // quantum of 2^-24). Past 63 every bit is discarded anyway and the significand stays
    // below half a unit.
    let shift = (frac_bits as i32 - 10 + (-14 - exp).max(0)).min(63) as u32;
    let kept = significand >> shift;
    let rest = significand & ((1 << shift) - 1);
    let half_unit = 1 << (shift - 1);
    let away = match MODE {
        RTE => rest > half_unit || (rest == half_unit && kept & 1 == 1),
        RTZ => false,
        RTP => rest != 0 && !neg,
        _ => rest != 0 && neg,
    };
    let n = kept + away as u64;
    // Adding n to the exponent field's base carries a significand overflow into the
    // exponent, and a denormal rounded up to 2^-14 becomes the smallest normal by itself.
    let bits = if exp >= -14 {
        (((exp + 14) as u64) << 10) + n
    } else {
        n
    };
    if bits >= 0x7c00 {
        sign | overflow::<MODE>(neg)
    } else {
        sign | bits as u16
    }
}

fn f32_to_half<const MODE: u8>(x: f32) -> u16 {
    let b = x.to_bits();
    fields_to_half::<MODE>(
        b >> 31 != 0,
        ((b >> 23) & 0xff) as i32,
        (b & 0x7f_ffff).into(),
        23,
        127,
    )
}

fn f64_to_half<const MODE: u8>(x: f64) -> u16 {
    let b = x.to_bits();
    fields_to_half::<MODE>(
        b >> 63 != 0,
        ((b >> 52) & 0x7ff) as i32,
        b & ((1 << 52) - 1),
        52,
        1023,
    )
}

macro_rules! to_half {
    ($($f32_name:ident $f64_name:ident $mode:ident $suffix:literal),*) => {
        $(
            #[doc = concat!("`vstore_half", $suffix, "` of a float: its half bits.")]
            pub extern "C" fn $f32_name(x: f32) -> u16 {
                f32_to_half::<{ $mode }>(x)
            }

            #[doc = concat!("`vstore_half", $suffix, "` of a double: its half bits.")]
            pub extern "C" fn $f64_name(x: f64) -> u16 {
                f64_to_half::<{ $mode }>(x)
            }
        )*

        /// Every half conversion's symbol and address, for the JIT's symbol table.
        pub fn symbols() -> Vec<(&'static str, *const u8)> {
            let mut out: Vec<(&'static str, *const u8)> =
                vec![
                    ("clift_half_to_f32", clift_half_to_f32 as *const u8),
                    ("clift_half_bits_to_f32", clift_half_bits_to_f32 as *const u8),
                    ("clift_f32_to_half_bits", clift_f32_to_half_bits as *const u8),
                    ("clift_f32_round_half", clift_f32_round_half as *const u8),
                ];
            out.extend(crate::math::half_symbols());
            $(
                out.push((stringify!($f32_name), $f32_name as *const u8));
                out.push((stringify!($f64_name), $f64_name as *const u8));
            )*
            out
        }
    };
}

to_half!(
    clift_f32_to_half_rte clift_f64_to_half_rte RTE "_rte",
    clift_f32_to_half_rtz clift_f64_to_half_rtz RTZ "_rtz",
    clift_f32_to_half_rtp clift_f64_to_half_rtp RTP "_rtp",
    clift_f32_to_half_rtn clift_f64_to_half_rtn RTN "_rtn"
);

/// The reference for both directions of `vstore_half`: `x` (a double, or a float widened to
/// double, which is exact) rounded to half bits by exact integer arithmetic, sharing no code
/// with the functions above. [`Rounding::Default`] is `_rte`.
pub fn reference_to_half(x: f64, rounding: Rounding) -> u16 {
    exact::to_format(x, exact::HALF, rounding) as u16
}
