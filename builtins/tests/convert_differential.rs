//! Random differential tests of `convert_*`: every extern function against the reference
//! `convert`, and the reference's roundings against a third, independent definition (a binary
//! search for the neighbouring floats, which needs no rounding logic at all).

use std::cmp::Ordering;

use clift_builtins::convert::{self, Rounding, Value, convert};
use clift_builtins::types::Scalar;

/// splitmix64: small, fast, and good enough to spread test inputs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn signed_small(&mut self, n: u64) -> i128 {
        self.below(2 * n + 1) as i128 - n as i128
    }
}

const INTEGERS: [Scalar; 8] = [
    Scalar::Char,
    Scalar::UChar,
    Scalar::Short,
    Scalar::UShort,
    Scalar::Int,
    Scalar::UInt,
    Scalar::Long,
    Scalar::ULong,
];

fn range(ty: Scalar) -> (i128, i128) {
    let bits = ty.bits();
    if ty.is_signed() {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

/// An integer of type `ty`, biased toward what conversions get wrong: extremes, powers of
/// two and their neighbours, and values whose bits straddle a float significand with exact
/// halfway points among them.
fn random_integer(rng: &mut Rng, ty: Scalar) -> Value {
    let (min, max) = range(ty);
    let bits = ty.bits();
    let v: i128 = match rng.below(6) {
        0 => rng.next() as i128,
        1 => rng.signed_small(300),
        2 => [min, max, min + 1, max - 1, 0, -1][rng.below(6) as usize],
        3 => {
            let p = 1i128 << rng.below(bits.into());
            let v = p + rng.signed_small(3);
            if rng.below(2) == 0 { v } else { -v }
        }
        4 => {
            // A 24- or 53-bit significand, shifted, plus nothing, a tie, or a tie ± 1.
            let width = [24, 25, 53, 54][rng.below(4) as usize];
            let significand = (rng.next() as i128 & ((1i128 << width) - 1)) | 1 << (width - 1);
            let shift = rng.below(12);
            let tail = [
                0,
                1i128 << shift >> 1,
                (1i128 << shift >> 1) + 1,
                (1i128 << shift >> 1) - 1,
            ][rng.below(4) as usize];
            let v = (significand << shift) + tail;
            if rng.below(2) == 0 { v } else { -v }
        }
        _ => rng.next() as i128 >> rng.below(64),
    };
    Value::wrapping(ty, v)
}

/// A double, biased toward conversion edges: halfway points between integers, integers at
/// the integer types' limits, float boundaries and ties, denormals of both formats, and
/// specials.
fn random_double(rng: &mut Rng) -> f64 {
    let sign = if rng.below(2) == 0 { 1.0 } else { -1.0 };
    match rng.below(9) {
        0 => f64::from_bits(rng.next()),
        1 => sign * (rng.below(1 << 20) as f64 + [0.0, 0.5, 0.25, 0.75][rng.below(4) as usize]),
        2 => {
            let p = 2f64.powi([7, 8, 15, 16, 31, 32, 63, 64][rng.below(8) as usize]);
            sign * p + rng.signed_small(4) as f64 * [0.5, 1.0, 2048.0][rng.below(3) as usize]
        }
        3 => {
            // A float plus a multiple of a quarter of its ulp, or a tiny nudge.
            let f = f32::from_bits(rng.next() as u32 & 0x7f7f_ffff) as f64;
            let ulp = (f32::from_bits((f as f32).to_bits() + 1) as f64) - f;
            let nudge = [0.25, 0.5, 0.75, 0.5 + 2f64.powi(-20), 0.5 - 2f64.powi(-20)]
                [rng.below(5) as usize];
            sign * (f + ulp * nudge)
        }
        4 => sign * f64::from_bits(rng.next() & 0x000f_ffff_ffff_ffff),
        5 => sign * f64::from_bits((rng.next() & 0x000f_ffff_ffff_ffff) | 0x3690_0000_0000_0000),
        6 => {
            sign * [f64::INFINITY, f64::NAN, 0.0, f64::MAX, f32::MAX as f64][rng.below(5) as usize]
        }
        7 => {
            sign * f64::from_bits(
                (rng.next() & 0x000f_ffff_ffff_ffff) | (1023 + rng.below(70)) << 52,
            )
        }
        _ => sign * (1e-40 * rng.below(1000) as f64),
    }
}

fn random_float(rng: &mut Rng) -> f32 {
    if rng.below(2) == 0 {
        f32::from_bits(rng.next() as u32)
    } else {
        random_double(rng) as f32
    }
}

fn random_value(rng: &mut Rng, ty: Scalar) -> Value {
    match ty {
        Scalar::Float => Value::Float(random_float(rng)),
        Scalar::Double => Value::Double(random_double(rng)),
        _ => random_integer(rng, ty),
    }
}

#[test]
fn every_extern_agrees_with_the_reference() {
    let mut rng = Rng(1);
    let mut count = 0;
    for e in convert::externs() {
        for _ in 0..20_000 {
            let v = random_value(&mut rng, e.src);
            let got = (e.call)(v);
            let expected = convert(v, e.dst, e.sat, e.rounding);
            assert!(
                got.same(expected),
                "{}({v:?}) = {got:?}, reference {expected:?}",
                e.name
            );
            count += 1;
        }
    }
    assert_eq!(count, 163 * 20_000);
}

/// The largest non-negative encoding `b <= last` with `le(b)` (`le` monotone: "the value
/// of b is at most the operand").
fn largest_at_most(last: u64, le: impl Fn(u64) -> bool) -> u64 {
    let (mut lo, mut hi) = (0, last);
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if le(mid) { lo = mid } else { hi = mid - 1 }
    }
    lo
}

/// Picks the result among the neighbours `down <= |x| < down + 1` (encodings): `exact`
/// when |x| is `down`'s value, `to_down` comparing |x| - down with up - |x|.
fn pick(
    down: u64,
    exact: bool,
    to_down: Ordering,
    neg: bool,
    mode: Rounding,
    sign_bit: u64,
) -> u64 {
    let up = down + 1;
    let magnitude = if exact {
        down
    } else {
        match mode {
            Rounding::Rtz => down,
            Rounding::Rtp if neg => down,
            Rounding::Rtp => up,
            Rounding::Rtn if neg => up,
            Rounding::Rtn => down,
            Rounding::Rte | Rounding::Default => match to_down {
                Ordering::Less => down,
                Ordering::Greater => up,
                // The even encoding has the even significand (and infinity is even).
                Ordering::Equal if down.is_multiple_of(2) => down,
                Ordering::Equal => up,
            },
        }
    };
    magnitude | if neg { sign_bit } else { 0 }
}

/// `x` (finite) rounded to float by searching the floats.
fn search_float(x: f64, mode: Rounding) -> f32 {
    let m = x.abs();
    let value = |b: u64| {
        if b >= 0x7f80_0000 {
            2f64.powi(128)
        } else {
            f32::from_bits(b as u32) as f64
        }
    };
    // Up to FLT_MAX: beyond it the upper neighbour is infinity, weighing 2^128 in the tie.
    let down = largest_at_most(0x7f7f_ffff, |b| value(b) <= m);
    // Both differences are exact (Sterbenz), so they compare exactly.
    let to_down = (m - value(down)).total_cmp(&(value(down + 1) - m));
    f32::from_bits(pick(
        down,
        value(down) == m,
        to_down,
        x < 0.0 || (x == 0.0 && x.is_sign_negative()),
        mode,
        1 << 31,
    ) as u32)
}

/// The integer `v` rounded to float (`double == false`) or double by searching the encodings.
fn search_int(v: i128, double: bool, mode: Rounding) -> Value {
    let m = v.unsigned_abs();
    let (inf_bits, sign_bit) = if double {
        (0x7ff0_0000_0000_0000, 1 << 63)
    } else {
        (0x7f80_0000, 1 << 31)
    };
    let value = |b: u64| -> f64 {
        if double {
            f64::from_bits(b)
        } else {
            f32::from_bits(b as u32) as f64
        }
    };
    // value <= m for an integer m exactly when ceil(value) <= m; ceil(value) is an integer
    // small enough (or infinite, saturating) for u128.
    let down = largest_at_most(inf_bits, |b| value(b).ceil() as u128 <= m);
    let exact = value(down) == m as f64 && value(down) as u128 == m;
    // Inexact integers lie beyond the significand, where both neighbours are integers.
    let (d, u) = (value(down) as u128, value(down + 1) as u128);
    let to_down = (m - d.min(m)).cmp(&(u.max(m) - m));
    let bits = pick(down, exact, to_down, v < 0, mode, sign_bit);
    if double {
        Value::Double(f64::from_bits(bits))
    } else {
        Value::Float(f32::from_bits(bits as u32))
    }
}

#[test]
fn the_reference_double_to_float_matches_a_search_of_the_floats() {
    let mut rng = Rng(2);
    for _ in 0..200_000 {
        let x = random_double(&mut rng);
        if !x.is_finite() {
            continue;
        }
        for mode in Rounding::ALL {
            let expected = search_float(x, mode);
            let got = convert(Value::Double(x), Scalar::Float, false, mode);
            assert!(
                got.same(Value::Float(expected)),
                "convert_float{}({x:e}) = {got:?}, search says {expected:e}",
                mode.suffix()
            );
        }
    }
}

#[test]
fn the_reference_integer_to_float_matches_a_search_of_the_floats() {
    let mut rng = Rng(3);
    for _ in 0..20_000 {
        for ty in INTEGERS {
            let v = random_integer(&mut rng, ty);
            let i = v.as_i128().unwrap();
            for mode in Rounding::ALL {
                for (dst, double) in [(Scalar::Float, false), (Scalar::Double, true)] {
                    let expected = search_int(i, double, mode);
                    let got = convert(v, dst, false, mode);
                    assert!(
                        got.same(expected),
                        "convert_{}{}({v:?}) = {got:?}, search says {expected:?}",
                        dst.name(),
                        mode.suffix()
                    );
                }
            }
        }
    }
}

#[test]
fn the_reference_float_to_int_matches_the_definition_of_each_mode() {
    // Rounding to an integer from the fraction, computed with f64 floor (exact for every
    // double) rather than bit manipulation.
    let mut rng = Rng(4);
    for _ in 0..100_000 {
        let x = random_double(&mut rng);
        for src in [Value::Double(x), Value::Float(x as f32)] {
            let x = match src {
                Value::Float(f) => f as f64,
                _ => x,
            };
            for mode in [Rounding::Rte, Rounding::Rtz, Rounding::Rtp, Rounding::Rtn] {
                let expected: i128 = if x.is_nan() {
                    0
                } else if x.abs() > 1e30 {
                    if x > 0.0 { i128::MAX } else { i128::MIN }
                } else {
                    // On the magnitude, |x| - floor(|x|) is exact (Sterbenz, or |x| < 1).
                    let magnitude = x.abs();
                    let floor = magnitude.floor();
                    let fraction = magnitude - floor;
                    let floor = floor as i128;
                    let away = match mode {
                        Rounding::Rtz => false,
                        Rounding::Rtp => fraction != 0.0 && x > 0.0,
                        Rounding::Rtn => fraction != 0.0 && x < 0.0,
                        _ => fraction > 0.5 || (fraction == 0.5 && floor % 2 != 0),
                    };
                    let magnitude = floor + away as i128;
                    if x < 0.0 { -magnitude } else { magnitude }
                };
                for dst in INTEGERS {
                    for sat in [false, true] {
                        let got = convert(src, dst, sat, mode);
                        let want = Value::saturating(dst, expected);
                        assert!(
                            got.same(want),
                            "convert_{}{}{}({src:?}) = {got:?}, expected {want:?}",
                            dst.name(),
                            if sat { "_sat" } else { "" },
                            mode.suffix()
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn the_reference_integer_to_integer_is_modular_or_clamped() {
    let mut rng = Rng(5);
    for _ in 0..50_000 {
        for src in INTEGERS {
            let v = random_integer(&mut rng, src);
            let i = v.as_i128().unwrap();
            for dst in INTEGERS {
                let (min, max) = range(dst);
                let modulus = 1i128 << dst.bits();
                let mut wrapped = i.rem_euclid(modulus);
                if wrapped > max {
                    wrapped -= modulus;
                }
                let clamped = i.max(min).min(max);
                let rounding = Rounding::ALL[rng.below(5) as usize];
                assert_eq!(
                    convert(v, dst, false, rounding).as_i128(),
                    Some(wrapped),
                    "{v:?} → {}",
                    dst.name()
                );
                assert_eq!(
                    convert(v, dst, true, rounding).as_i128(),
                    Some(clamped),
                    "{v:?} → {}_sat",
                    dst.name()
                );
            }
        }
    }
}

#[test]
fn the_reference_float_to_double_is_exact() {
    let mut rng = Rng(6);
    for _ in 0..100_000 {
        let x = f32::from_bits(rng.next() as u32);
        for mode in Rounding::ALL {
            let got = convert(Value::Float(x), Scalar::Double, false, mode);
            assert!(got.same(Value::Double(x as f64)), "{x:e}: {got:?}");
            if let Value::Double(d) = got {
                assert_eq!(d.is_sign_negative(), x.is_sign_negative());
            }
        }
    }
}
