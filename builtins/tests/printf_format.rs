//! `printf` (6.12.13) against the host C library: every scalar conversion is formatted by
//! clift and by glibc's `snprintf` with the corresponding C arguments, for edge values and
//! random flags, widths and precisions, and must agree byte for byte; the OpenCL-only forms
//! (vectors, `hl`) are checked against exact strings and against lane-by-lane `snprintf`;
//! invalid formats and mismatched arguments must fail; the buffer must honour its capacity
//! and keep each call's text contiguous.

use std::ffi::{CString, c_char, c_int, c_long, c_void};
use std::sync::Arc;

use clift_builtins::printf::{PrintfArg, PrintfBuffer, clift_printf, symbols};

/// The formatter; every `%s` argument in these tests points to a live NUL-terminated string.
fn format(fmt: &[u8], args: &[PrintfArg]) -> Option<Vec<u8>> {
    // SAFETY: the tests build kind-4 arguments only from live `CString`s or null.
    unsafe { clift_builtins::printf::format(fmt, args) }
}

unsafe extern "C" {
    fn snprintf(buf: *mut c_char, size: usize, fmt: *const c_char, ...) -> i32;
}

/// A C argument after the default promotions.
#[derive(Clone, Copy, Debug)]
enum C {
    Int(c_int),
    Long(c_long),
    Double(f64),
    Pointer(usize),
}

/// What glibc prints for `fmt` with `arg`.
fn c_format(fmt: &str, arg: C) -> Vec<u8> {
    let f = CString::new(fmt).unwrap();
    let mut buf = vec![0u8; 256];
    loop {
        let (p, n) = (buf.as_mut_ptr().cast::<c_char>(), buf.len());
        // SAFETY: `buf` has `n` writable bytes, `f` is NUL-terminated, and each format the
        // tests build consumes exactly one argument of the type passed.
        let len = unsafe {
            match arg {
                C::Int(v) => snprintf(p, n, f.as_ptr(), v),
                C::Long(v) => snprintf(p, n, f.as_ptr(), v),
                C::Double(v) => snprintf(p, n, f.as_ptr(), v),
                C::Pointer(v) => snprintf(p, n, f.as_ptr(), v as *const c_void),
            }
        };
        assert!(len >= 0, "snprintf failed for {fmt:?}");
        let len = len as usize;
        if len < buf.len() {
            buf.truncate(len);
            return buf;
        }
        buf = vec![0u8; len + 1];
    }
}

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn chance(&mut self, one_in: u64) -> bool {
        self.below(one_in) == 0
    }
}

fn scalar(kind: u32, size: u32, lane: u64) -> PrintfArg {
    vector(kind, size, &[lane])
}

fn vector(kind: u32, size: u32, lanes: &[u64]) -> PrintfArg {
    let mut arg = PrintfArg {
        kind,
        size,
        count: lanes.len() as u32,
        _pad: 0,
        lanes: [0; 16],
    };
    arg.lanes[..lanes.len()].copy_from_slice(lanes);
    arg
}

fn float_arg(v: f32) -> PrintfArg {
    scalar(2, 4, u64::from(v.to_bits()))
}

fn double_arg(v: f64) -> PrintfArg {
    scalar(3, 8, v.to_bits())
}

/// clift's text for `fmt`, as a string for readable failures.
fn ours(fmt: &str, args: &[PrintfArg]) -> Option<String> {
    format(fmt.as_bytes(), args).map(|t| String::from_utf8_lossy(&t).into_owned())
}

fn check(fmt: &str, c_fmt: &str, args: &[PrintfArg], c: C) {
    let expected = c_format(c_fmt, c);
    let got = format(fmt.as_bytes(), args);
    assert_eq!(
        got.as_deref().map(String::from_utf8_lossy),
        Some(String::from_utf8_lossy(&expected)),
        "format {fmt:?} (C {c_fmt:?}) with {c:?}"
    );
}

/// Random flags, width and precision: `(flags, width, precision)` strings.
fn random_modifiers(rng: &mut Rng, max_precision: u64) -> (String, String, String) {
    let mut flags = String::new();
    for _ in 0..rng.below(4) {
        flags.push(b"-+ #0"[rng.below(5) as usize] as char);
    }
    let width = match rng.below(4) {
        0 => String::new(),
        1 => rng.below(8).to_string(),
        2 => rng.below(40).to_string(),
        _ => (1 + rng.below(9)).to_string(),
    };
    let precision = match rng.below(5) {
        0 | 1 => String::new(),
        2 => ".".to_string(),
        3 => format!(".{}", rng.below(8)),
        _ => format!(".{}", rng.below(max_precision + 1)),
    };
    (flags, width, precision)
}

/// Edge and random values of an integer type of `bits` bits: sign-extended (signed) or
/// zero-extended (unsigned) to 64 bits, as the compiler passes them.
fn integer_values(rng: &mut Rng, bits: u32, signed: bool) -> Vec<u64> {
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1 << bits) - 1
    };
    let mut raw = vec![
        0,
        1,
        2,
        7,
        8,
        9,
        10,
        15,
        16,
        99,
        100,
        255,
        256,
        mask,
        mask - 1,
    ];
    raw.extend([mask >> 1, (mask >> 1) + 1, (mask >> 1) - 1, (mask >> 1) + 2]);
    for _ in 0..12 {
        raw.push(rng.next() >> rng.below(64));
    }
    raw.into_iter()
        .map(|v| {
            let v = v & mask;
            if signed && bits < 64 {
                (((v << (64 - bits)) as i64) >> (64 - bits)) as u64
            } else {
                v
            }
        })
        .collect()
}

#[test]
fn integers_match_snprintf() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let mut cases = 0;
    for (bits, size) in [(8, 1), (16, 2), (32, 4), (64, 8)] {
        for signed in [true, false] {
            for value in integer_values(&mut rng, bits, signed) {
                let arg = scalar(if signed { 0 } else { 1 }, size, value);
                for conversion in ["d", "i", "o", "u", "x", "X"] {
                    // Every modifier's type, from this argument's value (C converts before
                    // printing; the C side gets the value already converted).
                    for length in ["hh", "h", "", "l"] {
                        for _ in 0..6 {
                            let (flags, width, precision) = random_modifiers(&mut rng, 30);
                            let spec = format!("%{flags}{width}{precision}{length}{conversion}");
                            let c = if length == "l" {
                                C::Long(value as i64)
                            } else {
                                C::Int(value as i32)
                            };
                            check(&format!("<{spec}>"), &format!("<{spec}>"), &[arg], c);
                            cases += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(cases > 10_000, "{cases}");
}

#[test]
fn integer_edges_exact() {
    let int = |v: i32| scalar(0, 4, v as i64 as u64);
    assert_eq!(ours("%d", &[int(i32::MIN)]).unwrap(), "-2147483648");
    assert_eq!(ours("%u", &[int(-1)]).unwrap(), "4294967295");
    assert_eq!(
        ours("%ld", &[scalar(0, 8, i64::MIN as u64)]).unwrap(),
        "-9223372036854775808"
    );
    assert_eq!(
        ours("%lx", &[scalar(1, 8, u64::MAX)]).unwrap(),
        "ffffffffffffffff"
    );
    assert_eq!(ours("%hhd", &[int(255)]).unwrap(), "-1");
    assert_eq!(ours("%hhu", &[int(-1)]).unwrap(), "255");
    assert_eq!(ours("%hd", &[int(0x18000)]).unwrap(), "-32768");
    assert_eq!(
        ours("%.0d|%+.0d|% .0d|%#.0o|%#.0x", &[int(0); 5]).unwrap(),
        "|+| |0|"
    );
    assert_eq!(
        ours("%#o|%#x|%#X", &[int(8), int(255), int(255)]).unwrap(),
        "010|0xff|0XFF"
    );
    assert_eq!(
        ours("%-6d|%06d|%-06d", &[int(-42); 3]).unwrap(),
        "-42   |-00042|-42   "
    );
    assert_eq!(ours("%08.3d", &[int(7)]).unwrap(), "     007");
    // A 64-bit argument printed with no length modifier is printed as its int.
    assert_eq!(ours("%d", &[scalar(1, 8, 0x1_0000_0005)]).unwrap(), "5");
}

/// Edge doubles: zeros, subnormals, limits, ties, powers of ten, specials.
fn double_edges() -> Vec<f64> {
    let mut v = vec![
        0.0,
        -0.0,
        f64::from_bits(1),
        f64::from_bits(2),
        f64::from_bits(0x000f_ffff_ffff_ffff),
        f64::from_bits(0x0008_0000_0000_0000),
        f64::MIN_POSITIVE,
        -f64::MIN_POSITIVE,
        f64::MAX,
        -f64::MAX,
        f64::EPSILON,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        -f64::NAN,
        1.0,
        -1.0,
        0.5,
        1.5,
        2.5,
        -2.5,
        0.25,
        0.125,
        0.375,
        1e-5,
        9.9999e-5,
        0.0001,
        0.00009999995,
        99999.5,
        999999.5,
        9999995.0,
        0.95,
        0.995,
        9.5,
        99.5,
        1e15,
        1e16,
        1e17,
        1e21,
        1e22,
        1e23,
        123456789.0,
        0.1,
        0.2,
        0.3,
        1.0 / 3.0,
        2.0 / 3.0,
        std::f64::consts::PI,
        std::f64::consts::E,
        1e100,
        1e-100,
        1e300,
        1e-300,
        1e-320,
        5e-324,
        f64::from_bits(0x3fff_ffff_ffff_ffff),
        3.0,
        1.03125,
        1.09375,
        1.15625,
        f64::from_bits(0x3ff0_0000_0000_0008),
        f64::from_bits(0x3ff0_0000_0000_0018),
        f64::from_bits(0x001f_0000_0000_0000),
        f64::from_bits(0x000f_ff00_0000_0000),
        f64::from_bits(0x0008_0000_0000_0000),
    ];
    for e in -30..=30 {
        v.push(10f64.powi(e));
        v.push(-(10f64.powi(e)) * 1.5);
    }
    v
}

fn double_values(rng: &mut Rng) -> Vec<f64> {
    let mut v = double_edges();
    for _ in 0..200 {
        v.push(match rng.below(4) {
            // Any bit pattern (NaNs included).
            0 => f64::from_bits(rng.next()),
            // Moderate magnitudes, where %f and %g digits are interesting.
            1 => f64::from_bits(
                (rng.next() & 0x800f_ffff_ffff_ffff) | ((1003 + rng.below(60)) << 52),
            ),
            // Short decimals, with exact or near ties.
            2 => {
                (rng.below(2_000_000) as f64 - 1e6) / [1.0, 8.0, 100.0, 1e4][rng.below(4) as usize]
            }
            // Subnormals.
            _ => f64::from_bits(rng.next() & 0x800f_ffff_ffff_ffff),
        });
    }
    v
}

#[test]
fn doubles_match_snprintf() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut cases = 0;
    for value in double_values(&mut rng) {
        for conversion in ["f", "F", "e", "E", "g", "G", "a", "A"] {
            for _ in 0..30 {
                let (flags, width, precision) = random_modifiers(&mut rng, 40);
                let length = if rng.chance(4) { "l" } else { "" };
                let spec = format!("[%{flags}{width}{precision}{length}{conversion}]");
                check(&spec, &spec, &[double_arg(value)], C::Double(value));
                cases += 1;
            }
        }
    }
    assert!(cases > 60_000, "{cases}");
}

#[test]
fn floats_match_snprintf_as_promoted_doubles() {
    let mut rng = Rng(0x0bad_cafe_f00d_d00d);
    let mut values: Vec<f32> = vec![
        0.0,
        -0.0,
        f32::from_bits(1),
        f32::from_bits(0x007f_ffff),
        f32::MIN_POSITIVE,
        f32::MAX,
        -f32::MAX,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -f32::NAN,
        1.0,
        0.1,
        1.5,
        2.5,
        16777216.0,
        16777217.0,
        3.4e38,
        1e-45,
    ];
    for _ in 0..300 {
        values.push(f32::from_bits(rng.next() as u32));
    }
    let mut cases = 0;
    for value in values {
        for conversion in ["f", "e", "E", "g", "G", "a", "A"] {
            for _ in 0..8 {
                let (flags, width, precision) = random_modifiers(&mut rng, 30);
                let spec = format!("%{flags}{width}{precision}{conversion}");
                check(
                    &spec,
                    &spec,
                    &[float_arg(value)],
                    C::Double(f64::from(value)),
                );
                cases += 1;
            }
        }
    }
    assert!(cases > 10_000, "{cases}");
}

#[test]
fn rounding_across_powers_of_ten_matches_snprintf() {
    // Values that round up to the next power of ten at some precision (the `%g` style
    // switches, glibc's `%#g` quirk), and their neighbours.
    let mut cases = 0;
    for k in -8i32..=22 {
        for p in 0i32..=17 {
            let centre = (10f64.powi(p) - 0.5) * 10f64.powi(k - p);
            let below = f64::from_bits(centre.to_bits() - 1);
            let above = f64::from_bits(centre.to_bits() + 1);
            for value in [centre, below, above, 10f64.powi(k), -centre] {
                for flags in ["", "#", "+#0", "-"] {
                    for conversion in ["g", "G", "e", "f", "a"] {
                        let spec = format!("%{flags}12.{p}{conversion}");
                        check(&spec, &spec, &[double_arg(value)], C::Double(value));
                        cases += 1;
                    }
                }
            }
        }
    }
    assert!(cases > 50_000, "{cases}");
}

#[test]
fn long_precisions_are_exact() {
    // Every digit of the expansion, past it zeros: compare the whole text with glibc.
    for value in [
        f64::from_bits(1),
        f64::MIN_POSITIVE,
        f64::MAX,
        0.1,
        1.0 / 3.0,
        1e-300,
        f64::from_bits(0x3fef_ffff_ffff_ffff),
    ] {
        for spec in [
            "%.1100f", "%.800e", "%.800g", "%#.800g", "%.30a", "%.767e", "%.766e",
        ] {
            check(spec, spec, &[double_arg(value)], C::Double(value));
        }
    }
}

#[test]
fn floating_exact_strings() {
    let d = double_arg;
    assert_eq!(ours("%f", &[d(0.0)]).unwrap(), "0.000000");
    assert_eq!(ours("%e", &[d(-0.0)]).unwrap(), "-0.000000e+00");
    assert_eq!(ours("%g|%#g", &[d(0.0), d(0.0)]).unwrap(), "0|0.00000");
    assert_eq!(
        ours("%.0f|%.0f|%.0f", &[d(0.5), d(1.5), d(2.5)]).unwrap(),
        "0|2|2"
    );
    assert_eq!(
        ours("%a|%A", &[d(3.0), d(3.0)]).unwrap(),
        "0x1.8p+1|0X1.8P+1"
    );
    assert_eq!(
        ours("%a", &[d(f64::from_bits(1))]).unwrap(),
        "0x0.0000000000001p-1022"
    );
    assert_eq!(
        ours("%.0a|%#.0a", &[d(1.5), d(1.0)]).unwrap(),
        "0x2p+0|0x1.p+0"
    );
    assert_eq!(ours("%a", &[float_arg(0.1)]).unwrap(), "0x1.99999ap-4");
    assert_eq!(
        ours("%f|%F|%e|%+g|% a|%5f|%-5f|%05f", &[d(f64::INFINITY); 8]).unwrap(),
        "inf|INF|inf|+inf| inf|  inf|inf  |  inf"
    );
    assert_eq!(
        ours("%f|%E", &[d(-f64::NAN), d(f64::NAN)]).unwrap(),
        "-nan|NAN"
    );
    assert_eq!(
        ours("%g|%g|%g", &[d(1e-5), d(123456.0), d(1234567.0)]).unwrap(),
        "1e-05|123456|1.23457e+06"
    );
}

#[test]
fn characters_strings_pointers_percent() {
    let int = |v: i32| scalar(0, 4, v as i64 as u64);
    let text = b"hello, world\0";
    let s = scalar(4, 8, text.as_ptr() as u64);
    let null = scalar(4, 8, 0);
    let mut rng = Rng(42);
    let mut cases = 0;
    for _ in 0..400 {
        let (flags, width, precision) = random_modifiers(&mut rng, 15);
        let spec = format!("%{flags}{width}{precision}");
        let c = rng.below(256) as i32 - 128 + 256 * rng.below(3) as i32;
        check(
            &format!("{spec}c"),
            &format!("{spec}c"),
            &[int(c)],
            C::Int(c),
        );
        check(
            &format!("{spec}s"),
            &format!("{spec}s"),
            &[s],
            C::Pointer(text.as_ptr() as usize),
        );
        check(
            &format!("{spec}s"),
            &format!("{spec}s"),
            &[null],
            C::Pointer(0),
        );
        let address = match rng.below(3) {
            0 => 0,
            1 => rng.next() >> rng.below(64),
            _ => text.as_ptr() as u64,
        };
        check(
            &format!("{spec}p"),
            &format!("{spec}p"),
            &[scalar(4, 8, address)],
            C::Pointer(address as usize),
        );
        cases += 4;
    }
    assert!(cases >= 1600);
    assert_eq!(
        ours("100%% %c%c", &[int(b'o' as i32), int(b'k' as i32)]).unwrap(),
        "100% ok"
    );
    assert_eq!(format(b"%c", &[int(0)]).unwrap(), b"\0");
    assert_eq!(
        ours("%s!", &[scalar(4, 8, c"abc".as_ptr() as u64)]).unwrap(),
        "abc!"
    );
    // The precision bounds the bytes read: no NUL needed within it.
    assert_eq!(
        ours("%.3s", &[scalar(4, 8, b"abcdef".as_ptr() as u64)]).unwrap(),
        "abc"
    );
    // The format ends at its NUL; text after it is ignored.
    assert_eq!(format(b"ab\0%d", &[]).unwrap(), b"ab");
    assert_eq!(format(b"", &[]).unwrap(), b"");
}

#[test]
fn vectors_exact() {
    let floats = |v: &[f32]| v.iter().map(|f| u64::from(f.to_bits())).collect::<Vec<_>>();
    let f4 = vector(2, 4, &floats(&[1.0, 2.0, 3.0, 4.0]));
    assert_eq!(
        ours("%v4hlf", &[f4]).unwrap(),
        "1.000000,2.000000,3.000000,4.000000"
    );
    // The specification's examples (6.12.13.2).
    assert_eq!(
        ours("f4 = %2.2v4hlf\n", &[f4]).unwrap(),
        "f4 = 1.00,2.00,3.00,4.00\n"
    );
    let uc = vector(1, 1, &[0xfa, 0xfb, 0xfc, 0xfd]);
    assert_eq!(
        ours("uc = %#v4hhx\n", &[uc]).unwrap(),
        "uc = 0xfa,0xfb,0xfc,0xfd\n"
    );
    assert_eq!(
        ours("%#v2hhx", &[vector(1, 1, &[15, 255])]).unwrap(),
        "0xf,0xff"
    );
    let short3 = vector(0, 2, &[-1i64 as u64, 32767, -32768i64 as u64]);
    assert_eq!(ours("%v3hd", &[short3]).unwrap(), "-1,32767,-32768");
    assert_eq!(ours("%v3hu", &[short3]).unwrap(), "65535,32767,32768");
    assert_eq!(ours("%5v3hd|", &[short3]).unwrap(), "   -1,32767,-32768|");
    assert_eq!(
        ours("%v2hhd", &[vector(0, 1, &[-128i64 as u64, 127])]).unwrap(),
        "-128,127"
    );
    assert_eq!(
        ours("%v2hlx", &[vector(1, 4, &[0x1234_5678, 0x8765_4321])]).unwrap(),
        "12345678,87654321"
    );
    assert_eq!(
        ours(
            "%v2ld",
            &[vector(0, 8, &[i64::MIN as u64, i64::MAX as u64])]
        )
        .unwrap(),
        "-9223372036854775808,9223372036854775807"
    );
    let d2 = vector(3, 8, &[0.5f64.to_bits(), (-2.25f64).to_bits()]);
    assert_eq!(
        ours("%v2lg;%v2la", &[d2, d2]).unwrap(),
        "0.5,-2.25;0x1p-1,-0x1.2p+1"
    );
    // half lanes come widened to float bits, with element size 2.
    let h2 = vector(2, 2, &floats(&[0.5, 65504.0]));
    assert_eq!(ours("%v2hg", &[h2]).unwrap(), "0.5,65504");
    let sixteen: Vec<u64> = (0..16).collect();
    assert_eq!(
        ours("%v16hhu", &[vector(1, 1, &sixteen)]).unwrap(),
        "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15"
    );
    let nan_inf = vector(2, 4, &floats(&[f32::NAN, f32::NEG_INFINITY]));
    assert_eq!(ours("%+v2hlf", &[nan_inf]).unwrap(), "+nan,-inf");
}

#[test]
fn vectors_match_lanewise_snprintf() {
    let mut rng = Rng(77);
    let mut cases = 0;
    for _ in 0..3000 {
        let n = [2u32, 3, 4, 8, 16][rng.below(5) as usize];
        let (flags, width, precision) = random_modifiers(&mut rng, 20);
        let modifiers = format!("{flags}{width}{precision}");
        let (spec, c_spec, arg, c_args): (String, String, PrintfArg, Vec<C>) = if rng.chance(2) {
            let (length, c_length, bits, size) = [
                ("hh", "hh", 8, 1),
                ("h", "h", 16, 2),
                ("hl", "", 32, 4),
                ("l", "l", 64, 8),
            ][rng.below(4) as usize];
            let conversion = ["d", "i", "o", "u", "x", "X"][rng.below(6) as usize];
            let signed = rng.chance(2);
            let values = integer_values(&mut rng, bits, signed);
            let lanes: Vec<u64> = (0..n)
                .map(|_| values[rng.below(values.len() as u64) as usize])
                .collect();
            let c_args = lanes
                .iter()
                .map(|&v| {
                    if bits == 64 {
                        C::Long(v as i64)
                    } else {
                        C::Int(v as i32)
                    }
                })
                .collect();
            (
                format!("%{modifiers}v{n}{length}{conversion}"),
                format!("%{modifiers}{c_length}{conversion}"),
                vector(if signed { 0 } else { 1 }, size, &lanes),
                c_args,
            )
        } else {
            let conversion = ["f", "F", "e", "E", "g", "G", "a", "A"][rng.below(8) as usize];
            let double = rng.chance(2);
            let values = double_values(&mut rng);
            let picked: Vec<f64> = (0..n)
                .map(|_| values[rng.below(values.len() as u64) as usize])
                .collect();
            if double {
                let lanes: Vec<u64> = picked.iter().map(|v| v.to_bits()).collect();
                (
                    format!("%{modifiers}v{n}l{conversion}"),
                    format!("%{modifiers}{conversion}"),
                    vector(3, 8, &lanes),
                    picked.iter().map(|&v| C::Double(v)).collect(),
                )
            } else {
                let singles: Vec<f32> = picked.iter().map(|&v| v as f32).collect();
                let lanes: Vec<u64> = singles.iter().map(|v| u64::from(v.to_bits())).collect();
                (
                    format!("%{modifiers}v{n}hl{conversion}"),
                    format!("%{modifiers}{conversion}"),
                    vector(2, 4, &lanes),
                    singles.iter().map(|&v| C::Double(f64::from(v))).collect(),
                )
            }
        };
        let expected: Vec<Vec<u8>> = c_args.iter().map(|&c| c_format(&c_spec, c)).collect();
        let expected = String::from_utf8_lossy(&expected.join(&b","[..])).into_owned();
        assert_eq!(
            ours(&spec, &[arg]),
            Some(expected),
            "{spec:?} vs {c_spec:?} of {c_args:?}"
        );
        cases += 1;
    }
    assert_eq!(cases, 3000);
}

#[test]
fn invalid_formats_and_mismatches_fail() {
    let int = scalar(0, 4, 1);
    let long = scalar(0, 8, 1);
    let double = double_arg(1.0);
    let string = scalar(4, 8, c"x".as_ptr() as u64);
    let f4 = vector(2, 4, &[0; 4]);
    let i2 = vector(0, 4, &[0; 2]);
    let uc3 = vector(1, 1, &[0; 3]);
    let invalid: &[(&str, &[PrintfArg])] = &[
        // Invalid specifications.
        ("%", &[int]),
        ("abc%", &[]),
        ("%*d", &[int, int]),
        ("%.*d", &[int, int]),
        ("%lld", &[long]),
        ("%Lf", &[double]),
        ("%jd", &[long]),
        ("%zd", &[long]),
        ("%td", &[long]),
        ("%n", &[int]),
        ("%q", &[int]),
        ("%5%", &[]),
        ("%hld", &[int]),
        ("%hlf", &[double]),
        ("%hf", &[double]),
        ("%hhf", &[double]),
        ("%lc", &[int]),
        ("%ls", &[string]),
        ("%hhs", &[string]),
        ("%lp", &[string]),
        ("%3000000000d", &[int]),
        ("%.3000000000d", &[int]),
        // Vector specifiers.
        ("%v4f", &[f4]),
        ("%v4d", &[vector(0, 4, &[0; 4])]),
        ("%v5hld", &[vector(0, 4, &[0; 5])]),
        ("%v1hld", &[int]),
        ("%vhld", &[int]),
        ("%v2hhf", &[vector(2, 1, &[0; 2])]),
        ("%v2c", &[i2]),
        ("%v2s", &[i2]),
        ("%v2hlp", &[i2]),
        ("%hlv2d", &[i2]),
        // Argument mismatches.
        ("%d", &[]),
        ("%d %d", &[int]),
        ("%d", &[double]),
        ("%f", &[int]),
        ("%s", &[int]),
        ("%p", &[int]),
        ("%c", &[double]),
        ("%d", &[i2]),
        ("%f", &[f4]),
        ("%v4hlf", &[vector(2, 4, &[0; 3])]),
        ("%v4hlf", &[vector(3, 8, &[0; 4])]),
        ("%v4lf", &[f4]),
        ("%v4hf", &[f4]),
        ("%v4hld", &[f4]),
        ("%v2hd", &[i2]),
        ("%#v2hx", &[vector(1, 4, &[0x1234_5678, 0x8765_4321])]),
        ("%#v2hhx", &[vector(1, 4, &[0x1234_5678, 0x8765_4321])]),
        ("%v2hhx", &[uc3]),
        ("%v2hls", &[string]),
    ];
    for (fmt, args) in invalid {
        assert_eq!(ours(fmt, args), None, "{fmt:?} should be invalid");
    }
    // Extra arguments are evaluated and ignored (6.12.13).
    assert_eq!(ours("%d", &[int, int]).unwrap(), "1");
    assert_eq!(ours("x", &[int]).unwrap(), "x");
    // `%lf` of a scalar means `%f`, as in C99.
    assert_eq!(ours("%lf", &[double]).unwrap(), "1.000000");
}

fn call(buffer: &PrintfBuffer, fmt: &[u8], args: &[PrintfArg]) -> i32 {
    assert_eq!(fmt.last(), Some(&0));
    // SAFETY: live buffer, NUL-terminated format, `args.len()` arguments.
    unsafe { clift_printf(buffer, fmt.as_ptr(), args.as_ptr(), args.len() as u32) }
}

#[test]
fn buffer_honours_its_capacity() {
    let buffer = PrintfBuffer::new(16);
    let int = scalar(0, 4, 12345);
    assert_eq!(call(&buffer, b"n=%d\n\0", &[int]), 0); // 8 bytes
    assert_eq!(call(&buffer, b"n=%d\n\0", &[int]), 0); // 16 bytes: exactly full
    assert_eq!(call(&buffer, b"x\0", &[]), -1);
    assert_eq!(call(&buffer, b"\0", &[]), 0);
    assert_eq!(buffer.take(), b"n=12345\nn=12345\n");
    assert_eq!(buffer.take(), b"");
    // Nothing partial: a text longer than what is left is dropped whole.
    assert_eq!(call(&buffer, b"0123456789\0", &[]), 0);
    assert_eq!(call(&buffer, b"abcdefg\0", &[]), -1);
    assert_eq!(call(&buffer, b"%10d\0", &[int]), -1);
    assert_eq!(call(&buffer, b"abcdef\0", &[]), 0);
    assert_eq!(buffer.take(), b"0123456789abcdef");
    // A huge field width fails without being built.
    assert_eq!(call(&buffer, b"%2000000000d\0", &[int]), -1);
    assert_eq!(call(&buffer, b"%.2000000000f\0", &[double_arg(1.0)]), -1);
    // Invalid formats print nothing and return -1.
    assert_eq!(call(&buffer, b"ok %d %k\0", &[int, int]), -1);
    assert_eq!(call(&buffer, b"%d\0", &[]), -1);
    assert_eq!(buffer.take(), b"");
    assert_eq!(
        // SAFETY: a live buffer, a NUL-terminated format, and no arguments (so the array
        // may be null).
        unsafe { clift_printf(&buffer, c"plain".as_ptr().cast(), std::ptr::null(), 0) },
        0
    );
    assert_eq!(buffer.take(), b"plain");
}

#[test]
fn concurrent_calls_stay_contiguous() {
    const THREADS: usize = 8;
    const CALLS: usize = 2000;
    let buffer = Arc::new(PrintfBuffer::new(1 << 24));
    let threads: Vec<_> = (0..THREADS)
        .map(|t| {
            let buffer = Arc::clone(&buffer);
            std::thread::spawn(move || {
                let line = b"<%d:%d %s %v4hld>\n\0";
                let words = b"the quick brown fox jumps over the lazy dog\0";
                for i in 0..CALLS {
                    let args = [
                        scalar(0, 4, t as u64),
                        scalar(0, 4, i as u64),
                        scalar(4, 8, words.as_ptr() as u64),
                        vector(0, 4, &[t as u64, i as u64, t as u64, i as u64]),
                    ];
                    assert_eq!(call(&buffer, line, &args), 0);
                }
            })
        })
        .collect();
    for thread in threads {
        thread.join().unwrap();
    }
    let text = String::from_utf8(buffer.take()).unwrap();
    let mut seen = vec![0usize; THREADS];
    for line in text.lines() {
        let inner = line
            .strip_prefix('<')
            .and_then(|l| l.strip_suffix('>'))
            .unwrap();
        let (ids, rest) = inner.split_once(' ').unwrap();
        let (t, i) = ids.split_once(':').unwrap();
        let (t, i): (usize, usize) = (t.parse().unwrap(), i.parse().unwrap());
        assert_eq!(
            rest,
            format!("the quick brown fox jumps over the lazy dog {t},{i},{t},{i}")
        );
        // Each thread's calls appear in its own order.
        assert_eq!(i, seen[t], "{line}");
        seen[t] += 1;
    }
    assert_eq!(seen, vec![CALLS; THREADS]);
}

#[test]
fn layout_and_symbol() {
    assert_eq!(size_of::<PrintfArg>(), 144);
    assert_eq!(std::mem::offset_of!(PrintfArg, lanes), 16);
    let symbols = symbols();
    assert_eq!(symbols.len(), 1);
    assert_eq!(symbols[0].0, "clift_printf");
    assert_eq!(symbols[0].1, clift_printf as *const u8);
}
