//! The integer functions' extern implementations against the wide-arithmetic reference:
//! random (edge-biased) arguments for every function and type, and every argument
//! combination for the 8-bit types.

use clift_builtins::integer::{self, IntExtern, IntOp, reference};
use clift_builtins::types::Scalar;

/// splitmix64.
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
}

fn range(ty: Scalar) -> (i128, i128) {
    let bits = ty.bits();
    if ty.is_signed() {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

/// A value of `ty`: extremes and their neighbours, small values, powers of two (the edges of
/// 24-bit and half-width ranges among them), or random bits.
fn random_arg(rng: &mut Rng, ty: Scalar) -> i128 {
    let (min, max) = range(ty);
    let bits = ty.bits();
    let v: i128 = match rng.below(5) {
        0 => [min, max, min + 1, max - 1, 0, 1, -1][rng.below(7) as usize],
        1 => rng.below(65) as i128 - 32,
        2 => {
            let p = 1i128 << rng.below(bits.into());
            let v = p + rng.below(3) as i128 - 1;
            if rng.below(2) == 0 { v } else { -v }
        }
        3 => (rng.next() as i128) >> rng.below(64),
        _ => rng.next() as i128,
    };
    // Into range, modulo 2^bits.
    let modulus = 1i128 << bits;
    let v = v.rem_euclid(modulus);
    if v > max { v - modulus } else { v }
}

fn args_for(rng: &mut Rng, e: &IntExtern) -> Vec<i128> {
    (0..e.op.arity())
        .map(|i| random_arg(rng, e.op.arg_type(e.ty, i)))
        .collect()
}

#[test]
fn every_function_agrees_with_wide_arithmetic_on_random_arguments() {
    let mut rng = Rng(11);
    let externs = integer::externs();
    for e in &externs {
        let (min, max) = range(e.op.result_type(e.ty));
        for _ in 0..50_000 {
            let args = args_for(&mut rng, e);
            let got = (e.call)(&args);
            let expected = reference(e.op, e.ty, &args);
            assert_eq!(got, expected, "{}{args:?}", e.name);
            assert!(
                (min..=max).contains(&got),
                "{}{args:?} out of range",
                e.name
            );
        }
    }
}

#[test]
fn every_argument_combination_of_the_8_bit_types() {
    let externs: Vec<_> = integer::externs()
        .into_iter()
        .filter(|e| e.ty.bits() == 8)
        .collect();
    assert_eq!(externs.len(), 2 * 17);
    let values = |ty: Scalar| {
        let (min, max) = range(ty);
        min..=max
    };
    let mut checked = 0u64;
    for e in &externs {
        let arg = |i| values(e.op.arg_type(e.ty, i));
        let mut check = |args: &[i128]| {
            assert_eq!(
                (e.call)(args),
                reference(e.op, e.ty, args),
                "{}{args:?}",
                e.name
            );
            checked += 1;
        };
        match e.op.arity() {
            1 => arg(0).for_each(|a| check(&[a])),
            2 => arg(0).for_each(|a| arg(1).for_each(|b| check(&[a, b]))),
            _ => arg(0).for_each(|a| {
                arg(1).for_each(|b| arg(2).for_each(|c| check(&[a, b, c])));
            }),
        }
    }
    // Per 8-bit type: 4 unary (ctz included), 10 binary (upsample included), 3 ternary
    // functions.
    assert_eq!(checked, 2 * (4 * 256 + 10 * 65_536 + 3 * 16_777_216));
}

#[test]
fn the_reference_agrees_with_native_wide_arithmetic_where_it_fits() {
    // A third opinion for the products: i128 arithmetic written out directly, for the types
    // whose products fit it (all but ulong·ulong, which the u128 path of the reference
    // covers and the rule tests pin down).
    let mut rng = Rng(12);
    let signed = [Scalar::Char, Scalar::Short, Scalar::Int, Scalar::Long];
    for _ in 0..200_000 {
        for ty in signed
            .into_iter()
            .chain([Scalar::UChar, Scalar::UShort, Scalar::UInt])
        {
            let (min, max) = range(ty);
            let bits = ty.bits();
            let a = random_arg(&mut rng, ty);
            let b = random_arg(&mut rng, ty);
            let c = random_arg(&mut rng, ty);
            let product = a * b;
            assert_eq!(
                reference(IntOp::MulHi, ty, &[a, b]),
                product >> bits,
                "mul_hi {a} {b}"
            );
            assert_eq!(
                reference(IntOp::MadSat, ty, &[a, b, c]),
                (product + c).clamp(min, max),
                "mad_sat {a} {b} {c}"
            );
        }
    }
}
