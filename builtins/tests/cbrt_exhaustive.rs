//! `float` `cbrt` against the correctly rounded `double` cbrt (libm's, CORE-MATH's) rounded
//! to `float`: the two must agree bit for bit (a `double` result rounded to `float` can only
//! differ from the correctly rounded `float` when the cube root lies within 2^-53 relative of
//! a `float` midpoint, which for a cube root of a `float` it never does). `every_float`
//! (ignored, ~1 min in release) checks all 2^32 `float`s: `cargo test --release -p
//! clift-builtins --test cbrt_exhaustive -- --ignored`; the default test checks every 251st.

use clift_builtins::math::clift_cbrt_f32;

/// The `float`s `bits = start, start + step, ...` where `cbrt` differs from the reference.
fn mismatches(step: usize) -> Vec<u32> {
    (0..=u32::MAX)
        .step_by(step)
        .filter(|&bits| {
            let x = f32::from_bits(bits);
            let want = libm::cbrt(x as f64) as f32;
            let got = clift_cbrt_f32(x);
            got.to_bits() != want.to_bits() && !(got.is_nan() && want.is_nan())
        })
        .take(10)
        .collect()
}

#[test]
fn every_251st_float() {
    assert_eq!(mismatches(251), Vec::<u32>::new());
}

#[test]
fn known_values() {
    for (x, y) in [
        (27.0f32, 3.0f32),
        (-8.0, -2.0),
        (0.0, 0.0),
        (f32::INFINITY, f32::INFINITY),
        // 2^-149 and MAX: 1.11903468704…e-15 and 6981463519622.34 (50 digits, decimal).
        (f32::from_bits(1), f32::from_bits(0x26a1_4518)),
        (f32::MAX, f32::from_bits(0x54cb_2ff5)),
    ] {
        assert_eq!(clift_cbrt_f32(x).to_bits(), y.to_bits(), "cbrt({x:e})");
    }
    assert_eq!(clift_cbrt_f32(-0.0).to_bits(), (-0.0f32).to_bits());
    assert!(clift_cbrt_f32(f32::NAN).is_nan());
}

#[test]
#[ignore = "all 2^32 floats: run in release"]
fn every_float() {
    assert_eq!(mismatches(1), Vec::<u32>::new());
}
