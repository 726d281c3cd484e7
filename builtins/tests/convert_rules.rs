//! Exact expected values for every rule of `convert_*` (OpenCL 1.2 section 6.2.3), checked
//! against both the reference (`convert`) and, where the conversion has one, the function
//! kernels call.

use clift_builtins::convert::{self, Rounding, Value, convert};
use clift_builtins::types::Scalar;

use Rounding::{Default, Rte, Rtn, Rtp, Rtz};
use Value::{Char, Double, Float, Int, Long, Short, UChar, UInt, ULong, UShort};

/// The four modes in the order of the expectation arrays below.
const MODES: [Rounding; 4] = [Rte, Rtz, Rtp, Rtn];

/// `convert_<dst>[_sat]<rounding>(src) == expected`, by the reference and by the extern
/// function when there is one. A float → integer conversion is also checked without and
/// with `_sat`, which clift defines to agree.
fn check(src: Value, dst: Scalar, sat: bool, rounding: Rounding, expected: Value) {
    let what = format!(
        "convert_{}{}{}({src:?})",
        dst.name(),
        if sat { "_sat" } else { "" },
        rounding.suffix()
    );
    let got = convert(src, dst, sat, rounding);
    assert!(
        got.same(expected),
        "reference {what} = {got:?}, expected {expected:?}"
    );
    if let Some(name) = convert::symbol(src.scalar(), dst, sat, rounding) {
        let function = convert::externs()
            .into_iter()
            .find(|e| e.name == name)
            .expect("symbol() names an extern");
        let got = (function.call)(src);
        assert!(
            got.same(expected),
            "{name} ({what}) = {got:?}, expected {expected:?}"
        );
    }
    if src.scalar().is_float() && dst.is_integer() && !sat {
        check(src, dst, true, rounding, expected);
    }
}

/// `src` in each of the four modes (rte, rtz, rtp, rtn), without and with `_sat` when the
/// destination is an integer.
fn check_modes(src: Value, dst: Scalar, expected: [Value; 4]) {
    for (mode, expected) in MODES.into_iter().zip(expected) {
        check(src, dst, false, mode, expected);
        if dst.is_integer() {
            check(src, dst, true, mode, expected);
        }
    }
}

fn f32_hex(bits: u32) -> f32 {
    f32::from_bits(bits)
}

fn pow2(e: i32) -> f64 {
    2f64.powi(e)
}

#[test]
fn the_articles_float_to_int_table() {
    // The table of the convert_* article: rte, rtz, rtp, rtn of ±0.5, ±1.1, ±1.5, ±1.7.
    let table: [(f64, [i64; 4]); 8] = [
        (0.5, [0, 0, 1, 0]),
        (-0.5, [0, 0, 0, -1]),
        (1.1, [1, 1, 2, 1]),
        (-1.1, [-1, -1, -1, -2]),
        (1.5, [2, 1, 2, 1]),
        (-1.5, [-2, -1, -1, -2]),
        (1.7, [2, 1, 2, 1]),
        (-1.7, [-2, -1, -1, -2]),
    ];
    for (x, expected) in table {
        for src in [Float(x as f32), Double(x)] {
            for dst in [Scalar::Char, Scalar::Short, Scalar::Int, Scalar::Long] {
                check_modes(src, dst, expected.map(|v| Value::wrapping(dst, v.into())));
            }
        }
    }
}

#[test]
fn the_articles_examples() {
    check(Float(5.5), Scalar::Int, false, Default, Int(5));
    check(Float(4.2), Scalar::Int, false, Rtp, Int(5));
    check(Float(4.2), Scalar::Int, false, Default, Int(4));
    check(Float(std::f32::consts::PI), Scalar::Int, false, Rte, Int(3));
    check(Int(257), Scalar::UChar, false, Default, UChar(1));
    check(Int(257), Scalar::UChar, true, Default, UChar(255));
    // 6.2.3.4: negative shorts clamp to 0 in ushort, out-of-range ones to char's limits.
    check(Short(-5), Scalar::UShort, true, Default, UShort(0));
    check(Short(300), Scalar::Char, true, Default, Char(127));
    check(Short(-300), Scalar::Char, true, Default, Char(-128));
}

#[test]
fn ties_go_to_even_and_directed_modes_round_their_way() {
    let cases: [(f64, [i32; 4]); 10] = [
        (0.5, [0, 0, 1, 0]),
        (1.5, [2, 1, 2, 1]),
        (2.5, [2, 2, 3, 2]),
        (3.5, [4, 3, 4, 3]),
        (-0.5, [0, 0, 0, -1]),
        (-1.5, [-2, -1, -1, -2]),
        (-2.5, [-2, -2, -2, -3]),
        // 0x1.fffffep22: the largest float with a fraction, 8388607.5.
        (8_388_607.5, [8_388_608, 8_388_607, 8_388_608, 8_388_607]),
        (
            -8_388_607.5,
            [-8_388_608, -8_388_607, -8_388_607, -8_388_608],
        ),
        // 0x1.fffffep23 is an integer: no mode changes it.
        (16_777_215.0, [16_777_215; 4]),
    ];
    for (x, expected) in cases {
        check_modes(Float(x as f32), Scalar::Int, expected.map(Int));
        check_modes(Double(x), Scalar::Int, expected.map(Int));
    }
    // A double's fractions: 2^52 - 0.5 is the largest double with one.
    let x = pow2(52) - 0.5;
    let down = (1i64 << 52) - 1;
    check_modes(
        Double(x),
        Scalar::Long,
        [down + 1, down, down + 1, down].map(Long),
    );
}

#[test]
fn float_to_int_boundaries_saturate_with_and_without_sat() {
    let int_max = Int(i32::MAX);
    let int_min = Int(i32::MIN);
    // 2147483647.0f rounds to 2^31 as a float literal: one past INT_MAX.
    check_modes(Float(2_147_483_647.0), Scalar::Int, [int_max; 4]);
    check_modes(Float(-2_147_483_648.0), Scalar::Int, [int_min; 4]);
    // The largest float below 2^31 converts exactly; the next one down from -2^31 clamps.
    check_modes(Float(2_147_483_520.0), Scalar::Int, [Int(2_147_483_520); 4]);
    check_modes(Float(-2_147_483_904.0), Scalar::Int, [int_min; 4]);
    // Doubles resolve the edges: 2^31 - 0.5 and -2^31 - 0.5.
    check_modes(
        Double(2_147_483_647.5),
        Scalar::Int,
        [int_max, int_max, int_max, Int(i32::MAX)],
    );
    check_modes(
        Double(2_147_483_646.5),
        Scalar::Int,
        [2_147_483_646, 2_147_483_646, 2_147_483_647, 2_147_483_646].map(Int),
    );
    check_modes(
        Double(-2_147_483_648.5),
        Scalar::Int,
        [int_min, int_min, int_min, int_min],
    );
    check_modes(
        Double(-2_147_483_647.5),
        Scalar::Int,
        [
            -2_147_483_648,
            -2_147_483_647,
            -2_147_483_647,
            -2_147_483_648,
        ]
        .map(Int),
    );
    // uint: negatives clamp to 0, even -0.5 under rtn (-1).
    check_modes(Float(-0.5), Scalar::UInt, [UInt(0); 4]);
    check_modes(Double(-1.0), Scalar::UInt, [UInt(0); 4]);
    check_modes(Double(4_294_967_295.0), Scalar::UInt, [UInt(u32::MAX); 4]);
    check_modes(Double(4_294_967_295.5), Scalar::UInt, [UInt(u32::MAX); 4]);
    check_modes(Float(4_294_967_296.0), Scalar::UInt, [UInt(u32::MAX); 4]);
    check_modes(
        Double(4_294_967_294.5),
        Scalar::UInt,
        [4_294_967_294, 4_294_967_294, 4_294_967_295, 4_294_967_294].map(UInt),
    );
    // long and ulong at 2^63 and 2^64.
    check_modes(Float(pow2(63) as f32), Scalar::Long, [Long(i64::MAX); 4]);
    check_modes(Double(pow2(63)), Scalar::Long, [Long(i64::MAX); 4]);
    check_modes(Double(-pow2(63)), Scalar::Long, [Long(i64::MIN); 4]);
    check_modes(Double(pow2(63)), Scalar::ULong, [ULong(1 << 63); 4]);
    check_modes(Float(pow2(64) as f32), Scalar::ULong, [ULong(u64::MAX); 4]);
    // 0x1.fffffffffffffp62 and 0x1.fffffffffffffp63: the largest doubles below 2^63, 2^64.
    check_modes(
        Double(pow2(63) - pow2(10)),
        Scalar::Long,
        [Long(i64::MAX - 1023); 4],
    );
    check_modes(
        Double(pow2(64) - pow2(11)),
        Scalar::ULong,
        [ULong(u64::MAX - 2047); 4],
    );
    check_modes(Float(-1.0), Scalar::ULong, [ULong(0); 4]);
    // Narrow destinations clamp rather than wrap, without _sat too (clift's definition).
    check_modes(Float(127.5), Scalar::Char, [127, 127, 127, 127].map(Char));
    check_modes(Float(126.5), Scalar::Char, [126, 126, 127, 126].map(Char));
    check_modes(
        Float(-128.5),
        Scalar::Char,
        [-128, -128, -128, -128].map(Char),
    );
    check_modes(Float(300.0), Scalar::Char, [Char(127); 4]);
    check_modes(Float(300.0), Scalar::UChar, [UChar(255); 4]);
    check_modes(Double(-1.0), Scalar::UChar, [UChar(0); 4]);
    check_modes(Double(65535.5), Scalar::UShort, [UShort(u16::MAX); 4]);
    check_modes(Double(-32768.5), Scalar::Short, [Short(i16::MIN); 4]);
}

#[test]
fn nan_infinities_zeros_and_denormals_to_integers() {
    let integers = [
        Scalar::Char,
        Scalar::UChar,
        Scalar::Short,
        Scalar::UShort,
        Scalar::Int,
        Scalar::UInt,
        Scalar::Long,
        Scalar::ULong,
    ];
    let min_f32 = f32::from_bits(1);
    let min_f64 = f64::from_bits(1);
    for dst in integers {
        let zero = Value::wrapping(dst, 0);
        let one = Value::wrapping(dst, 1);
        let minus_one = Value::saturating(dst, -1);
        let max = Value::saturating(dst, i128::MAX);
        let min = Value::saturating(dst, i128::MIN);
        for src in [
            Float(f32::NAN),
            Float(-f32::NAN),
            Double(f64::NAN),
            Double(-f64::NAN),
        ] {
            check_modes(src, dst, [zero; 4]);
        }
        for src in [Float(f32::INFINITY), Double(f64::INFINITY)] {
            check_modes(src, dst, [max; 4]);
        }
        for src in [Float(f32::NEG_INFINITY), Double(f64::NEG_INFINITY)] {
            check_modes(src, dst, [min; 4]);
        }
        for src in [Float(0.0), Float(-0.0), Double(0.0), Double(-0.0)] {
            check_modes(src, dst, [zero; 4]);
        }
        for src in [Float(min_f32), Double(min_f64), Float(f32::MIN_POSITIVE)] {
            check_modes(src, dst, [zero, zero, one, zero]);
        }
        for src in [Float(-min_f32), Double(-min_f64)] {
            check_modes(src, dst, [zero, zero, zero, minus_one]);
        }
    }
}

#[test]
fn integer_to_integer_wraps_or_saturates_and_ignores_rounding() {
    let cases: [(Value, Scalar, Value, Value); 14] = [
        (Int(257), Scalar::UChar, UChar(1), UChar(255)),
        (Int(-1), Scalar::UInt, UInt(u32::MAX), UInt(0)),
        (UInt(u32::MAX), Scalar::Int, Int(-1), Int(i32::MAX)),
        (Long((1 << 40) + 5), Scalar::Int, Int(5), Int(i32::MAX)),
        (Long(-(1 << 40) + 5), Scalar::Int, Int(5), Int(i32::MIN)),
        (ULong(u64::MAX), Scalar::Long, Long(-1), Long(i64::MAX)),
        (Long(i64::MIN), Scalar::ULong, ULong(1 << 63), ULong(0)),
        (Char(-128), Scalar::UShort, UShort(65408), UShort(0)),
        (Char(-128), Scalar::Long, Long(-128), Long(-128)),
        (UChar(200), Scalar::Char, Char(-56), Char(127)),
        (UShort(40000), Scalar::Short, Short(-25536), Short(i16::MAX)),
        (Int(i32::MIN), Scalar::Short, Short(0), Short(i16::MIN)),
        (Int(-129), Scalar::Char, Char(127), Char(-128)),
        (Int(i32::MAX), Scalar::Int, Int(i32::MAX), Int(i32::MAX)),
    ];
    for (src, dst, wrapped, saturated) in cases {
        for rounding in Rounding::ALL {
            check(src, dst, false, rounding, wrapped);
            check(src, dst, true, rounding, saturated);
        }
    }
}

#[test]
fn integer_to_float_rounds_exactly_in_every_mode() {
    let f = Float;
    // 2^24 + 1 lies between 2^24 and 2^24 + 2.
    check_modes(
        Int(16_777_217),
        Scalar::Float,
        [
            f(16_777_216.0),
            f(16_777_216.0),
            f(16_777_218.0),
            f(16_777_216.0),
        ],
    );
    check_modes(
        Int(16_777_219),
        Scalar::Float,
        [
            f(16_777_220.0),
            f(16_777_218.0),
            f(16_777_220.0),
            f(16_777_218.0),
        ],
    );
    check_modes(
        Int(-16_777_217),
        Scalar::Float,
        [
            f(-16_777_216.0),
            f(-16_777_216.0),
            f(-16_777_216.0),
            f(-16_777_218.0),
        ],
    );
    check_modes(
        Int(i32::MAX),
        Scalar::Float,
        [
            f(2_147_483_648.0),
            f(2_147_483_520.0),
            f(2_147_483_648.0),
            f(2_147_483_520.0),
        ],
    );
    check_modes(Int(i32::MIN), Scalar::Float, [f(-2_147_483_648.0); 4]);
    check_modes(
        UInt(u32::MAX),
        Scalar::Float,
        [
            f(4_294_967_296.0),
            f(4_294_967_040.0),
            f(4_294_967_296.0),
            f(4_294_967_040.0),
        ],
    );
    // 0x1.fffffep62 and 0x1.fffffep63: the floats below 2^63 and 2^64.
    let below_2_63 = f32_hex(0x5eff_ffff);
    let below_2_64 = f32_hex(0x5f7f_ffff);
    let two_63 = pow2(63) as f32;
    let two_64 = pow2(64) as f32;
    check_modes(
        Long(i64::MAX),
        Scalar::Float,
        [f(two_63), f(below_2_63), f(two_63), f(below_2_63)],
    );
    check_modes(Long(i64::MIN), Scalar::Float, [f(-two_63); 4]);
    check_modes(
        Long(i64::MIN + 1),
        Scalar::Float,
        [f(-two_63), f(-below_2_63), f(-below_2_63), f(-two_63)],
    );
    check_modes(
        ULong(u64::MAX),
        Scalar::Float,
        [f(two_64), f(below_2_64), f(two_64), f(below_2_64)],
    );
    // Through a double these would round twice: 2^60 + 2^36 + 1 is just above the midpoint
    // between the floats 2^60 and 2^60 + 2^37, but the double nearest it is the midpoint.
    let up = (pow2(60) + pow2(37)) as f32;
    let down = pow2(60) as f32;
    check_modes(
        ULong((1 << 60) + (1 << 36) + 1),
        Scalar::Float,
        [f(up), f(down), f(up), f(down)],
    );
    check_modes(
        Long((1 << 60) + (1 << 36) + 1),
        Scalar::Float,
        [f(up), f(down), f(up), f(down)],
    );
    // 2^60 + 1 is a double's 2^60 when rounded to nearest, but rtp must still go up.
    check_modes(
        ULong((1 << 60) + 1),
        Scalar::Float,
        [f(down), f(down), f(up), f(down)],
    );
    check_modes(
        Long(-(1 << 60) - 1),
        Scalar::Float,
        [f(-down), f(-down), f(-down), f(-up)],
    );
    // To double, only 64-bit integers can be inexact.
    let d = Double;
    let two_53 = pow2(53);
    check_modes(
        Long((1 << 53) + 1),
        Scalar::Double,
        [d(two_53), d(two_53), d(two_53 + 2.0), d(two_53)],
    );
    check_modes(
        Long(-(1 << 53) - 1),
        Scalar::Double,
        [d(-two_53), d(-two_53), d(-two_53), d(-two_53 - 2.0)],
    );
    check_modes(
        Long((1 << 53) + 3),
        Scalar::Double,
        [
            d(two_53 + 4.0),
            d(two_53 + 2.0),
            d(two_53 + 4.0),
            d(two_53 + 2.0),
        ],
    );
    let below_2_64 = pow2(64) - pow2(11);
    check_modes(
        ULong(u64::MAX),
        Scalar::Double,
        [d(pow2(64)), d(below_2_64), d(pow2(64)), d(below_2_64)],
    );
    check_modes(
        Long(i64::MAX),
        Scalar::Double,
        [
            d(pow2(63)),
            d(pow2(63) - pow2(10)),
            d(pow2(63)),
            d(pow2(63) - pow2(10)),
        ],
    );
    // Small integers are exact everywhere; zero is +0.
    for src in [
        Char(-128),
        UChar(255),
        Short(-32768),
        UShort(65535),
        Int(-16_777_216),
    ] {
        let v = src.as_i128().unwrap() as f64;
        check_modes(src, Scalar::Float, [f(v as f32); 4]);
        check_modes(src, Scalar::Double, [d(v); 4]);
    }
    for src in [Char(0), Int(0), ULong(0), Long(0)] {
        check_modes(src, Scalar::Float, [f(0.0); 4]);
        check_modes(src, Scalar::Double, [d(0.0); 4]);
    }
}

#[test]
fn double_to_float_rounds_exactly_including_overflow_and_denormals() {
    let f = Float;
    let one_up = f32_hex(0x3f80_0001);
    // 1 + 2^-24: exactly halfway between 1 and 1 + 2^-23.
    check_modes(
        Double(1.0 + pow2(-24)),
        Scalar::Float,
        [f(1.0), f(1.0), f(one_up), f(1.0)],
    );
    check_modes(
        Double(-1.0 - pow2(-24)),
        Scalar::Float,
        [f(-1.0), f(-1.0), f(-1.0), f(-one_up)],
    );
    // 1 + 3·2^-24: halfway again, now the even neighbour is above.
    let two_up = f32_hex(0x3f80_0002);
    check_modes(
        Double(1.0 + 3.0 * pow2(-24)),
        Scalar::Float,
        [f(two_up), f(one_up), f(two_up), f(one_up)],
    );
    // Overflow: directed modes toward zero stop at FLT_MAX.
    let max = f32::MAX;
    let inf = f32::INFINITY;
    check_modes(
        Double(1e300),
        Scalar::Float,
        [f(inf), f(max), f(inf), f(max)],
    );
    check_modes(
        Double(-1e300),
        Scalar::Float,
        [f(-inf), f(-max), f(-max), f(-inf)],
    );
    check_modes(Double(max as f64), Scalar::Float, [f(max); 4]);
    // FLT_MAX + half an ulp (0x1.ffffffp127) ties to the even "2^128": infinity.
    let half_ulp_above = max as f64 + pow2(103);
    check_modes(
        Double(half_ulp_above),
        Scalar::Float,
        [f(inf), f(max), f(inf), f(max)],
    );
    check_modes(
        Double(half_ulp_above - pow2(80)),
        Scalar::Float,
        [f(max), f(max), f(inf), f(max)],
    );
    // Denormal results: 1.5 and 0.5 units of 2^-149.
    let min = f32_hex(1);
    let two_min = f32_hex(2);
    check_modes(
        Double(1.5 * pow2(-149)),
        Scalar::Float,
        [f(two_min), f(min), f(two_min), f(min)],
    );
    check_modes(
        Double(pow2(-150)),
        Scalar::Float,
        [f(0.0), f(0.0), f(min), f(0.0)],
    );
    check_modes(
        Double(-pow2(-150)),
        Scalar::Float,
        [f(-0.0), f(-0.0), f(-0.0), f(-min)],
    );
    check_modes(
        Double(1e-300),
        Scalar::Float,
        [f(0.0), f(0.0), f(min), f(0.0)],
    );
    // Just below the smallest normal: rounding up crosses into the normals.
    let largest_denormal = f32_hex(0x007f_ffff);
    check_modes(
        Double(pow2(-126) - pow2(-160)),
        Scalar::Float,
        [
            f(f32::MIN_POSITIVE),
            f(largest_denormal),
            f(f32::MIN_POSITIVE),
            f(largest_denormal),
        ],
    );
    check_modes(Double(pow2(-126)), Scalar::Float, [f(f32::MIN_POSITIVE); 4]);
    for (x, y) in [
        (f64::INFINITY, f32::INFINITY),
        (f64::NEG_INFINITY, f32::NEG_INFINITY),
        (f64::NAN, f32::NAN),
        (0.0, 0.0),
        (-0.0, -0.0),
    ] {
        check_modes(Double(x), Scalar::Float, [f(y); 4]);
    }
}

#[test]
fn float_to_double_is_exact_and_same_type_is_identity() {
    for x in [
        0.1f32,
        -0.0,
        f32::from_bits(1),
        f32::MAX,
        f32::MIN_POSITIVE,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
    ] {
        check_modes(Float(x), Scalar::Double, [Double(x as f64); 4]);
    }
    assert_eq!(
        convert(Float(0.1), Scalar::Double, false, Default),
        Double(0.100_000_001_490_116_12)
    );
    // float → float and double → double keep the very bits, NaN payloads included.
    let payload = f32::from_bits(0x7fc1_2345);
    assert_eq!(
        convert(Float(payload), Scalar::Float, false, Rtz).bits(),
        0x7fc1_2345
    );
    let payload = f64::from_bits(0xfff0_0000_0000_0001);
    assert_eq!(
        convert(Double(payload), Scalar::Double, false, Rtp).bits(),
        0xfff0_0000_0000_0001
    );
}

#[test]
fn the_symbol_table_covers_exactly_the_non_inlined_conversions() {
    let externs = convert::externs();
    assert_eq!(externs.len(), 2 * 8 * 7 + 8 * 2 * 3 + 3);
    let mut names: Vec<_> = externs.iter().map(|e| e.name).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), externs.len(), "symbol names are unique");
    assert_eq!(convert::symbols().len(), externs.len());
    for name in [
        "clift_convert_int_sat_rte_float",
        "clift_convert_int_sat_rtz_float",
        "clift_convert_int_rte_float",
        "clift_convert_uchar_sat_rtn_double",
        "clift_convert_ulong_rtp_double",
        "clift_convert_float_rtz_ulong",
        "clift_convert_double_rtn_long",
        "clift_convert_float_rtp_char",
        "clift_convert_float_rtz_double",
    ] {
        assert!(names.contains(&name), "{name} is missing");
    }
    for e in &externs {
        assert_ne!(e.rounding, Default, "{}", e.name);
        assert!(!e.ptr.is_null());
        let expected = format!(
            "clift_convert_{}{}{}_{}",
            e.dst.name(),
            if e.sat { "_sat" } else { "" },
            e.rounding.suffix(),
            e.src.name()
        );
        assert_eq!(e.name, expected);
        assert_eq!(
            convert::symbol(e.src, e.dst, e.sat, e.rounding),
            Some(e.name)
        );
    }
    // Non-_sat and _sat float → integer are one function under two names.
    for e in externs.iter().filter(|e| !e.sat && e.dst.is_integer()) {
        let sat = externs
            .iter()
            .find(|s| s.sat && s.src == e.src && s.dst == e.dst && s.rounding == e.rounding)
            .unwrap();
        assert_eq!(e.ptr, sat.ptr, "{} and {}", e.name, sat.name);
    }
    // The default rounding resolves before the lookup.
    assert_eq!(
        convert::symbol(Scalar::Float, Scalar::Int, true, Default),
        Some("clift_convert_int_sat_rtz_float")
    );
    // What the compiler inlines has no function.
    for (src, dst, sat, rounding) in [
        (Scalar::Float, Scalar::Int, false, Default),
        (Scalar::Float, Scalar::Int, false, Rtz),
        (Scalar::Double, Scalar::ULong, false, Default),
        (Scalar::Int, Scalar::Float, false, Default),
        (Scalar::ULong, Scalar::Float, false, Rte),
        (Scalar::Double, Scalar::Float, false, Default),
        (Scalar::Float, Scalar::Double, false, Rtz),
        (Scalar::Int, Scalar::UChar, true, Default),
        (Scalar::Long, Scalar::Int, false, Rtp),
        (Scalar::Float, Scalar::Float, false, Rtp),
    ] {
        assert_eq!(convert::symbol(src, dst, sat, rounding), None);
    }
}

#[test]
fn rounding_suffixes_and_defaults() {
    for r in Rounding::ALL {
        assert_eq!(Rounding::from_suffix(r.suffix()), Some(r));
    }
    assert_eq!(Rounding::from_suffix("_rtx"), None);
    assert_eq!(Default.effective(Scalar::Int), Rtz);
    assert_eq!(Default.effective(Scalar::Float), Rte);
    assert_eq!(Default.effective(Scalar::Double), Rte);
    assert_eq!(Rtp.effective(Scalar::Float), Rtp);
}

#[test]
#[should_panic(expected = "convert_float_sat does not exist")]
fn sat_to_a_floating_type_is_rejected() {
    convert(Int(1), Scalar::Float, true, Default);
}
