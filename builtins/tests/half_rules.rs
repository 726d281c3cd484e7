//! Exact expected values of the half conversions of `vload_half`/`vstore_half` (6.12.7).

use clift_builtins::convert::Rounding;
use clift_builtins::half::{
    clift_f32_to_half_rte, clift_f32_to_half_rtn, clift_f32_to_half_rtp, clift_f32_to_half_rtz,
    clift_f64_to_half_rte, clift_f64_to_half_rtn, clift_f64_to_half_rtp, clift_f64_to_half_rtz,
    clift_half_to_f32, reference_to_half, symbols,
};

const MODES: [Rounding; 4] = [Rounding::Rte, Rounding::Rtz, Rounding::Rtp, Rounding::Rtn];

fn is_nan(h: u16) -> bool {
    h & 0x7c00 == 0x7c00 && h & 0x3ff != 0
}

/// `x` (a double) to half in rte, rtz, rtp, rtn: by the double functions, by the float ones
/// when `x` is a float, and by the reference.
fn check(x: f64, expected: [u16; 4]) {
    let from_f64 = [
        clift_f64_to_half_rte(x),
        clift_f64_to_half_rtz(x),
        clift_f64_to_half_rtp(x),
        clift_f64_to_half_rtn(x),
    ];
    let reference = MODES.map(|m| reference_to_half(x, m));
    for (what, got) in [("f64", from_f64), ("reference", reference)] {
        assert_eq!(
            got.map(|h| format!("{h:#06x}")),
            expected.map(|h| format!("{h:#06x}")),
            "{what} of {x:e} (rte, rtz, rtp, rtn)"
        );
    }
    let f = x as f32;
    if f as f64 == x {
        let from_f32 = [
            clift_f32_to_half_rte(f),
            clift_f32_to_half_rtz(f),
            clift_f32_to_half_rtp(f),
            clift_f32_to_half_rtn(f),
        ];
        assert_eq!(
            from_f32.map(|h| format!("{h:#06x}")),
            expected.map(|h| format!("{h:#06x}")),
            "f32 of {f:e} (rte, rtz, rtp, rtn)"
        );
    }
}

fn pow2(e: i32) -> f64 {
    2f64.powi(e)
}

#[test]
fn exact_values_convert_unchanged() {
    check(1.0, [0x3c00; 4]);
    check(-2.0, [0xc000; 4]);
    check(65504.0, [0x7bff; 4]);
    check(-65504.0, [0xfbff; 4]);
    check(pow2(-14), [0x0400; 4]);
    check(pow2(-24), [0x0001; 4]);
    check(1023.0 * pow2(-24), [0x03ff; 4]);
    check(0.0, [0x0000; 4]);
    check(-0.0, [0x8000; 4]);
    check(f64::INFINITY, [0x7c00; 4]);
    check(f64::NEG_INFINITY, [0xfc00; 4]);
}

#[test]
fn ties_go_to_even_and_directed_modes_round_their_way() {
    // 1 + 2^-11 is halfway between 1 and 1 + 2^-10; 1 + 3·2^-11 between odd and even.
    check(1.0 + pow2(-11), [0x3c00, 0x3c00, 0x3c01, 0x3c00]);
    check(1.0 + 3.0 * pow2(-11), [0x3c02, 0x3c01, 0x3c02, 0x3c01]);
    check(-1.0 - pow2(-11), [0xbc00, 0xbc00, 0xbc00, 0xbc01]);
    check(1.0 + pow2(-20), [0x3c00, 0x3c00, 0x3c01, 0x3c00]);
    // A double just above the tie must round up: a sticky bit far below the float
    // precision. (half::f16::from_f64 drops it and returns 0x3c00.)
    check(
        1.0 + pow2(-11) + pow2(-40),
        [0x3c01, 0x3c00, 0x3c01, 0x3c00],
    );
    check(
        1.0 + pow2(-11) - pow2(-40),
        [0x3c00, 0x3c00, 0x3c01, 0x3c00],
    );
    check(0.1, [0x2e66, 0x2e66, 0x2e67, 0x2e66]);
    check(-0.1, [0xae66, 0xae66, 0xae66, 0xae67]);
}

#[test]
fn overflow_depends_on_the_mode() {
    // Between 65504 and the next binade: only rtp (or rte from the tie 65520 up) overflows.
    check(65519.0, [0x7bff, 0x7bff, 0x7c00, 0x7bff]);
    check(65520.0, [0x7c00, 0x7bff, 0x7c00, 0x7bff]);
    check(65520.0 - pow2(-30), [0x7bff, 0x7bff, 0x7c00, 0x7bff]);
    check(-65520.0, [0xfc00, 0xfbff, 0xfbff, 0xfc00]);
    check(1e10, [0x7c00, 0x7bff, 0x7c00, 0x7bff]);
    check(f32::MAX as f64, [0x7c00, 0x7bff, 0x7c00, 0x7bff]);
    check(-1e300, [0xfc00, 0xfbff, 0xfbff, 0xfc00]);
    check(65536.0, [0x7c00, 0x7bff, 0x7c00, 0x7bff]);
}

#[test]
fn denormal_results_and_underflow() {
    check(pow2(-25), [0x0000, 0x0000, 0x0001, 0x0000]);
    check(-pow2(-25), [0x8000, 0x8000, 0x8000, 0x8001]);
    check(3.0 * pow2(-26), [0x0001, 0x0000, 0x0001, 0x0000]);
    check(1.5 * pow2(-24), [0x0002, 0x0001, 0x0002, 0x0001]);
    check(2.5 * pow2(-24), [0x0002, 0x0002, 0x0003, 0x0002]);
    // Just below the smallest normal: rounding up reaches it.
    check(pow2(-14) - pow2(-30), [0x0400, 0x03ff, 0x0400, 0x03ff]);
    // float and double denormals, and tiny doubles, are far below half's denormals.
    check(f32::from_bits(1) as f64, [0x0000, 0x0000, 0x0001, 0x0000]);
    check(
        -(f32::from_bits(1) as f64),
        [0x8000, 0x8000, 0x8000, 0x8001],
    );
    check(f64::from_bits(1), [0x0000, 0x0000, 0x0001, 0x0000]);
    check(1e-300, [0x0000, 0x0000, 0x0001, 0x0000]);
    check(-1e-300, [0x8000, 0x8000, 0x8000, 0x8001]);
}

#[test]
fn nan_stays_nan() {
    for x in [
        f32::NAN,
        -f32::NAN,
        f32::from_bits(0x7f80_0001),
        f32::from_bits(0xff80_0001),
        f32::from_bits(0x7fff_ffff),
    ] {
        for h in [
            clift_f32_to_half_rte(x),
            clift_f32_to_half_rtz(x),
            clift_f32_to_half_rtp(x),
            clift_f32_to_half_rtn(x),
        ] {
            assert!(is_nan(h), "{:#x} gave {h:#06x}", x.to_bits());
            assert_eq!(h & 0x8000 != 0, x.is_sign_negative());
        }
    }
    for x in [f64::NAN, -f64::NAN, f64::from_bits(0x7ff0_0000_0000_0001)] {
        for h in [
            clift_f64_to_half_rte(x),
            clift_f64_to_half_rtz(x),
            clift_f64_to_half_rtp(x),
            clift_f64_to_half_rtn(x),
        ] {
            assert!(is_nan(h), "{:#x} gave {h:#06x}", x.to_bits());
        }
        for mode in MODES {
            assert!(is_nan(reference_to_half(x, mode)));
        }
    }
}

#[test]
fn half_to_float_is_exact() {
    let cases: [(u16, f32); 12] = [
        (0x3c00, 1.0),
        (0xc000, -2.0),
        (0x0001, 2f32.powi(-24)),
        (0x8001, -(2f32.powi(-24))),
        (0x03ff, 1023.0 * 2f32.powi(-24)),
        (0x0400, 2f32.powi(-14)),
        (0x7bff, 65504.0),
        (0x3555, 0.333_251_95),
        (0x7c00, f32::INFINITY),
        (0xfc00, f32::NEG_INFINITY),
        (0x0000, 0.0),
        (0x8000, -0.0),
    ];
    for (h, f) in cases {
        assert_eq!(clift_half_to_f32(h).to_bits(), f.to_bits(), "{h:#06x}");
    }
    // NaNs keep sign and payload and become quiet.
    assert_eq!(clift_half_to_f32(0x7e00).to_bits(), 0x7fc0_0000);
    assert_eq!(clift_half_to_f32(0x7c01).to_bits(), 0x7fc0_2000);
    assert_eq!(clift_half_to_f32(0xfd55).to_bits(), 0xffea_a000);
}

#[test]
fn symbols_name_every_function() {
    let names: Vec<_> = symbols().into_iter().map(|(name, _)| name).collect();
    assert_eq!(
        names,
        [
            "clift_half_to_f32",
            "clift_half_bits_to_f32",
            "clift_f32_to_half_bits",
            "clift_f32_round_half",
            "clift_nextafter_f16",
            "clift_fma_f16",
            "clift_fract_f16",
            "clift_modf_f16",
            "clift_sincos_f16",
            "clift_f32_to_half_rte",
            "clift_f64_to_half_rte",
            "clift_f32_to_half_rtz",
            "clift_f64_to_half_rtz",
            "clift_f32_to_half_rtp",
            "clift_f64_to_half_rtp",
            "clift_f32_to_half_rtn",
            "clift_f64_to_half_rtn",
        ]
    );
}

/// The move pair behind half loads, stores and `as_*`: every one of the 65536 half bit
/// patterns comes back as it went in, signalling NaNs included (the CTS checks `as_half`,
/// `vload`/`vstore` of halfn and buffer copies of 0x7d8e bit for bit).
#[test]
fn half_moves_are_bit_exact() {
    use clift_builtins::half::{
        clift_f32_round_half, clift_f32_to_half_bits, clift_half_bits_to_f32,
    };
    for h in 0..=u16::MAX {
        let f = clift_half_bits_to_f32(h);
        assert_eq!(clift_f32_to_half_bits(f), h, "{h:#06x}");
        assert_eq!(clift_f32_round_half(f).to_bits(), f.to_bits(), "{h:#06x}");
    }
    // The signalling NaN of the issue stays signalling in float too.
    assert_eq!(clift_half_bits_to_f32(0x7d8e).to_bits(), 0x7fb1_c000);
    // A float NaN without leading payload bits stays a NaN (quiet) in half.
    assert_eq!(clift_f32_to_half_bits(f32::from_bits(0xff80_0001)), 0xfe00);
    // Other values round to nearest even.
    assert_eq!(clift_f32_to_half_bits(1.0 + 1.0 / 2048.0), 0x3c00);
    assert_eq!(clift_f32_round_half(65520.0), f32::INFINITY);
}
