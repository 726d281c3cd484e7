//! Exact expected values of the integer functions (6.12.3) at their boundaries, checked
//! against both the extern functions and the reference.

use clift_builtins::integer::{self, IntOp, reference};
use clift_builtins::types::Scalar;

use IntOp::*;
use Scalar::{Char, Int, Long, Short, UChar, UInt, ULong, UShort};

const TYPES: [Scalar; 8] = [Char, UChar, Short, UShort, Int, UInt, Long, ULong];

/// `op(args)` for first-argument type `ty` is `expected`, by the extern and by the reference.
fn check(op: IntOp, ty: Scalar, args: &[i128], expected: i128) {
    let function = integer::externs()
        .into_iter()
        .find(|e| e.op == op && e.ty == ty)
        .unwrap_or_else(|| panic!("no {} for {}", op.name(), ty.name()));
    assert_eq!((function.call)(args), expected, "{}{args:?}", function.name);
    assert_eq!(
        reference(op, ty, args),
        expected,
        "reference {}_{}{args:?}",
        op.name(),
        ty.name()
    );
}

fn min(ty: Scalar) -> i128 {
    if ty.is_signed() {
        -(1i128 << (ty.bits() - 1))
    } else {
        0
    }
}

fn max(ty: Scalar) -> i128 {
    if ty.is_signed() {
        (1i128 << (ty.bits() - 1)) - 1
    } else {
        (1i128 << ty.bits()) - 1
    }
}

const I32_MIN: i128 = i32::MIN as i128;
const I32_MAX: i128 = i32::MAX as i128;
const U32_MAX: i128 = u32::MAX as i128;
const I64_MIN: i128 = i64::MIN as i128;
const I64_MAX: i128 = i64::MAX as i128;
const U64_MAX: i128 = u64::MAX as i128;

#[test]
fn abs_and_abs_diff_are_unsigned_and_never_overflow() {
    check(Abs, Char, &[-128], 128);
    check(Abs, Short, &[-32768], 32768);
    check(Abs, Int, &[I32_MIN], 1 << 31);
    check(Abs, Long, &[I64_MIN], 1 << 63);
    check(Abs, Int, &[-5], 5);
    check(Abs, UInt, &[U32_MAX], U32_MAX);
    check(Abs, ULong, &[U64_MAX], U64_MAX);
    check(AbsDiff, Char, &[-128, 127], 255);
    check(AbsDiff, Int, &[I32_MIN, I32_MAX], U32_MAX);
    check(AbsDiff, Int, &[I32_MAX, I32_MIN], U32_MAX);
    check(AbsDiff, Long, &[I64_MIN, I64_MAX], U64_MAX);
    check(AbsDiff, UInt, &[0, U32_MAX], U32_MAX);
    check(AbsDiff, ULong, &[U64_MAX, 0], U64_MAX);
    check(AbsDiff, UChar, &[3, 250], 247);
}

#[test]
fn saturating_add_and_sub_clamp_both_ways() {
    check(AddSat, Int, &[I32_MAX, 1], I32_MAX);
    check(AddSat, Int, &[I32_MIN, -1], I32_MIN);
    check(AddSat, Int, &[I32_MAX, I32_MIN], -1);
    check(AddSat, Char, &[-100, -100], -128);
    check(AddSat, UChar, &[200, 100], 255);
    check(AddSat, ULong, &[U64_MAX, 1], U64_MAX);
    check(AddSat, Long, &[I64_MAX, I64_MAX], I64_MAX);
    check(SubSat, UInt, &[0, 1], 0);
    check(SubSat, UShort, &[5, 10], 0);
    check(SubSat, Int, &[I32_MIN, 1], I32_MIN);
    check(SubSat, Int, &[I32_MAX, -1], I32_MAX);
    check(SubSat, Long, &[I64_MIN, I64_MAX], I64_MIN);
    check(SubSat, Long, &[0, I64_MIN], I64_MAX);
}

#[test]
fn hadd_floors_and_rhadd_rounds_up_without_overflow() {
    for ty in TYPES {
        let (lo, hi) = (min(ty), max(ty));
        check(Hadd, ty, &[hi, hi], hi);
        check(Hadd, ty, &[lo, lo], lo);
        check(Rhadd, ty, &[hi, hi], hi);
        check(Rhadd, ty, &[lo, lo], lo);
        check(Hadd, ty, &[hi, hi - 1], hi - 1);
        check(Rhadd, ty, &[hi, hi - 1], hi);
        check(Hadd, ty, &[1, 2], 1);
        check(Rhadd, ty, &[1, 2], 2);
    }
    check(Hadd, Int, &[-1, 0], -1);
    check(Rhadd, Int, &[-1, 0], 0);
    check(Hadd, Int, &[-2, -1], -2);
    check(Rhadd, Int, &[-2, -1], -1);
    check(Hadd, Int, &[I32_MIN, I32_MAX], -1);
    check(Rhadd, Int, &[I32_MIN, I32_MAX], 0);
    check(Hadd, UInt, &[U32_MAX, 1], 1 << 31);
    check(Rhadd, UInt, &[U32_MAX, 0], 1 << 31);
    check(Hadd, Long, &[I64_MIN, -1], -(1 << 62) - 1);
    check(Rhadd, Long, &[I64_MIN, -1], -(1 << 62));
    check(Rhadd, ULong, &[U64_MAX, U64_MAX - 1], U64_MAX);
}

#[test]
fn clz_and_popcount_at_the_extremes() {
    for ty in TYPES {
        let width = ty.bits().into();
        check(Clz, ty, &[0], width);
        check(Clz, ty, &[1], width - 1);
        check(Clz, ty, &[max(ty)], if ty.is_signed() { 1 } else { 0 });
        check(Popcount, ty, &[0], 0);
        check(
            Popcount,
            ty,
            &[max(ty)],
            if ty.is_signed() { width - 1 } else { width },
        );
        if ty.is_signed() {
            check(Clz, ty, &[-1], 0);
            check(Clz, ty, &[min(ty)], 0);
            check(Popcount, ty, &[-1], width);
            check(Popcount, ty, &[min(ty)], 1);
        }
    }
    check(Clz, Char, &[0x10], 3);
    for ty in TYPES {
        let width = i128::from(ty.bits());
        check(Ctz, ty, &[0], width);
        check(Ctz, ty, &[1], 0);
        check(Ctz, ty, &[max(ty)], 0);
        check(Ctz, ty, &[1 << (width - 2)], width - 2);
        if ty.is_signed() {
            check(Ctz, ty, &[min(ty)], width - 1);
            check(Ctz, ty, &[-1], 0);
        }
    }
    check(Ctz, Char, &[0x10], 4);
    check(Ctz, ULong, &[1 << 40], 40);
    check(Ctz, UInt, &[0x8000_0000], 31);
    check(Clz, ULong, &[1 << 40], 23);
    check(Popcount, Int, &[0x0f0f], 8);
}

#[test]
fn mul_hi_and_mad_hi_at_the_extremes() {
    check(MulHi, Long, &[I64_MIN, I64_MIN], 1 << 62);
    check(MulHi, Long, &[I64_MAX, I64_MAX], (1 << 62) - 1);
    // -2^63·(2^63 - 1) = -2^126 + 2^63, whose floor over 2^64 is -2^62.
    check(MulHi, Long, &[I64_MIN, I64_MAX], -(1 << 62));
    check(MulHi, Long, &[-1, 1], -1);
    check(MulHi, Long, &[-1, -1], 0);
    check(MulHi, Long, &[I64_MIN, -1], 0);
    check(MulHi, ULong, &[U64_MAX, U64_MAX], U64_MAX - 1);
    check(MulHi, ULong, &[1 << 32, 1 << 32], 1);
    check(MulHi, Int, &[I32_MIN, I32_MIN], 1 << 30);
    check(MulHi, Int, &[I32_MIN, 1], -1);
    check(MulHi, UInt, &[U32_MAX, U32_MAX], U32_MAX - 1);
    check(MulHi, Char, &[-128, -128], 64);
    check(MulHi, UChar, &[255, 255], 254);
    check(MulHi, Short, &[-32768, 32767], -16384);
    check(MadHi, Long, &[I64_MAX, I64_MAX, 10], (1 << 62) + 9);
    // mul_hi(UINT_MAX, UINT_MAX) + 2 wraps.
    check(MadHi, UInt, &[U32_MAX, U32_MAX, 2], 0);
    check(
        MadHi,
        Int,
        &[I32_MIN, I32_MIN, I32_MAX],
        I32_MIN + (1 << 30) - 1,
    );
}

#[test]
fn mad_sat_saturates_both_ways() {
    check(MadSat, Int, &[I32_MAX, 2, 0], I32_MAX);
    check(MadSat, Int, &[I32_MIN, 2, 0], I32_MIN);
    check(MadSat, Int, &[I32_MAX, I32_MAX, I32_MIN], I32_MAX);
    check(MadSat, Int, &[I32_MIN, -1, 0], I32_MAX);
    check(MadSat, Int, &[-1, I32_MIN, -1], I32_MAX);
    check(MadSat, Int, &[46341, 46341, 0], I32_MAX);
    check(MadSat, Int, &[46341, -46341, 0], I32_MIN);
    check(MadSat, Int, &[46341, 46341, -10_000], 2_147_478_281);
    check(MadSat, Int, &[2, 3, 4], 10);
    check(MadSat, UInt, &[U32_MAX, U32_MAX, U32_MAX], U32_MAX);
    check(MadSat, UInt, &[0, 5, 7], 7);
    check(MadSat, UInt, &[65536, 65536, 0], U32_MAX);
    check(MadSat, ULong, &[U64_MAX, U64_MAX, U64_MAX], U64_MAX);
    check(MadSat, ULong, &[1 << 32, 1 << 32, 0], U64_MAX);
    check(
        MadSat,
        ULong,
        &[1 << 32, (1 << 32) - 1, (1 << 32) - 1],
        U64_MAX,
    );
    check(
        MadSat,
        ULong,
        &[1 << 32, (1 << 32) - 1, (1 << 32) - 2],
        U64_MAX - 1,
    );
    check(MadSat, Long, &[I64_MIN, I64_MIN, 0], I64_MAX);
    check(MadSat, Long, &[I64_MIN, I64_MIN, I64_MIN], I64_MAX);
    check(MadSat, Long, &[I64_MIN, I64_MAX, I64_MAX], I64_MIN);
    check(MadSat, Long, &[I64_MIN, 1, -1], I64_MIN);
    check(MadSat, Long, &[I64_MIN, -1, -1], I64_MAX);
    check(MadSat, Long, &[I64_MAX, -1, -1], I64_MIN);
    check(MadSat, UChar, &[16, 16, 0], 255);
    check(MadSat, UChar, &[15, 17, 0], 255);
    check(MadSat, UChar, &[15, 16, 15], 255);
    check(MadSat, UChar, &[15, 16, 14], 254);
    check(MadSat, Char, &[-128, 1, -1], -128);
    check(MadSat, Char, &[-128, -1, 0], 127);
    check(MadSat, Short, &[-32768, -32768, -32768], 32767);
}

#[test]
fn rotate_counts_are_taken_modulo_the_width() {
    check(Rotate, UInt, &[0x8000_0001, 1], 3);
    check(Rotate, Int, &[1, 32], 1);
    check(Rotate, Int, &[1, 33], 2);
    check(Rotate, Int, &[1, -1], I32_MIN);
    check(Rotate, Int, &[I32_MIN, 1], 1);
    check(Rotate, Int, &[1, I32_MIN], 1);
    check(Rotate, UChar, &[0x81, 9], 0x03);
    check(Rotate, UChar, &[0x81, 255], 0xc0);
    check(Rotate, Char, &[1, -1], -128);
    check(Rotate, Char, &[-128, 1], 1);
    check(Rotate, UShort, &[0x8000, 17], 1);
    check(Rotate, Short, &[0x1234, 4], 0x2341);
    check(Rotate, ULong, &[1, 64], 1);
    check(Rotate, ULong, &[1, 127], 1 << 63);
    check(Rotate, Long, &[1, -1], I64_MIN);
    check(
        Rotate,
        Long,
        &[0x0123_4567_89ab_cdef, 4],
        0x1234_5678_9abc_def0,
    );
    check(Rotate, Long, &[I64_MIN, I64_MIN], I64_MIN);
    for ty in TYPES {
        check(Rotate, ty, &[0, 5], 0);
        let all_ones = if ty.is_signed() { -1 } else { max(ty) };
        check(Rotate, ty, &[all_ones, 3], all_ones);
        // 0111...1 rotated by one is 1111...10.
        if ty.is_signed() {
            check(Rotate, ty, &[max(ty), 1], -2);
        }
    }
}

#[test]
fn upsample_concatenates_signed_high_and_unsigned_low() {
    check(Upsample, Char, &[-1, 0xff], -1);
    check(Upsample, Char, &[0x12, 0x34], 0x1234);
    check(Upsample, Char, &[-128, 0], -32768);
    check(Upsample, UChar, &[0xff, 0xff], 0xffff);
    check(Upsample, Short, &[-32768, 0], I32_MIN);
    check(Upsample, UShort, &[0xabcd, 0x1234], 0xabcd_1234);
    check(Upsample, Int, &[-1, 0], -(1 << 32));
    check(
        Upsample,
        Int,
        &[0x1234_5678, 0x9abc_def0],
        0x1234_5678_9abc_def0,
    );
    check(Upsample, UInt, &[U32_MAX, U32_MAX], U64_MAX);
}

#[test]
fn mul24_and_mad24_in_range_and_clifts_definition_outside() {
    check(Mul24, Int, &[-8_388_608, 2], -16_777_216);
    check(Mul24, Int, &[8_388_607, 256], 2_147_483_392);
    check(Mul24, Int, &[-8_388_608, -8_388_608], 0);
    check(Mul24, UInt, &[16_777_215, 2], 33_554_430);
    check(Mad24, Int, &[1000, 1000, -1], 999_999);
    check(Mad24, UInt, &[16_777_215, 16_777_215, 1], 0xfe00_0002);
    // Outside 24 bits (implementation-defined): clift multiplies all 32 bits.
    check(Mul24, Int, &[1 << 24, 2], 1 << 25);
    check(Mul24, UInt, &[0x0100_0001, 3], 0x0300_0003);
    check(Mul24, Int, &[I32_MIN, -1], I32_MIN);
    check(Mad24, UInt, &[U32_MAX, U32_MAX, 0], 1);
}

#[test]
fn clamp_max_and_min_compare_by_value() {
    check(Clamp, Int, &[5, 0, 3], 3);
    check(Clamp, Int, &[-5, 0, 3], 0);
    check(Clamp, Int, &[2, 0, 3], 2);
    check(Clamp, UInt, &[U32_MAX, 1, 10], 10);
    check(Clamp, Long, &[I64_MIN, -1, 1], -1);
    check(Clamp, ULong, &[U64_MAX, 0, U64_MAX], U64_MAX);
    // minval > maxval is undefined; clift gives min(max(x, minval), maxval) = maxval.
    check(Clamp, Int, &[5, 10, 0], 0);
    check(Clamp, UChar, &[5, 200, 100], 100);
    check(Max, Int, &[-1, 1], 1);
    check(Max, UInt, &[U32_MAX, 1], U32_MAX);
    check(Min, Char, &[-128, 127], -128);
    check(Min, UChar, &[255, 0], 0);
    check(Max, Long, &[I64_MIN, I64_MAX], I64_MAX);
    check(Min, ULong, &[U64_MAX, 1], 1);
}

#[test]
fn the_symbol_table() {
    let externs = integer::externs();
    assert_eq!(externs.len(), 16 * 8 + 6 + 2 * 2);
    let mut names: Vec<_> = externs.iter().map(|e| e.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), externs.len(), "symbol names are unique");
    assert_eq!(integer::symbols().len(), externs.len());
    for name in [
        "clift_mul_hi_i64",
        "clift_add_sat_u8",
        "clift_abs_i32",
        "clift_upsample_i16",
        "clift_upsample_u32",
        "clift_mul24_u32",
        "clift_mad24_i32",
        "clift_rotate_u16",
        "clift_clamp_u64",
        "clift_ctz_i8",
        "clift_ctz_u64",
    ] {
        assert!(names.contains(&name), "{name} is missing");
    }
    for e in &externs {
        assert!(e.op.exists_for(e.ty));
        assert!(!e.ptr.is_null());
        assert_eq!(integer::symbol(e.op, e.ty), Some(e.name));
    }
    for op in IntOp::ALL {
        for ty in TYPES {
            assert_eq!(
                integer::symbol(op, ty).is_some(),
                op.exists_for(ty),
                "{} {}",
                op.name(),
                ty.name()
            );
        }
    }
    assert_eq!(integer::symbol(Upsample, Long), None);
    assert_eq!(integer::symbol(Mul24, Short), None);
    assert_eq!(Upsample.result_type(Char), Short);
    assert_eq!(Upsample.arg_type(Char, 1), UChar);
    assert_eq!(Abs.result_type(Long), ULong);
}
