//! A fast `atan2` kernel in `double` for the single-precision `atan2`, which was libm's
//! `double` function rounded: libm's `atan2` spends most of its
//! time on special cases and a five-interval reduction with branches that the CTS's random
//! arguments mispredict. Here a 17-entry table and a degree-7 odd polynomial do it without a
//! data-dependent branch, with an error some 2^-40 relative: far below a `float` ulp, so the
//! rounded results are within 0.5 ulp + 2^-15 (the bound is 6 ulp). The special values
//! (zeros, infinities, NaN) stay libm's, by the caller. (`atan` and `atanpi` stay libm's:
//! libm returns at once for the huge and tiny arguments that most random bit patterns are,
//! where this kernel divides twice.) `atan2pi` is this kernel times `1/pi` too: CTS `-w`,
//! 2 units, user s: float 5.13 → 2.29, half 14.3 → 10.5 (session 12; session 11 had
//! measured no gain, on a busier machine).

use std::f64::consts::{FRAC_PI_2, PI};

use super::kernels::SHIFT;

/// `atan(k/16)` for k = 0..=16, rounded to `double` from 200-bit values (mpmath); the test
/// `table_is_atan` checks each against libm's `atan`.
static ATAN_TABLE: [f64; 17] = [
    0.0,
    f64::from_bits(0x3faf_f55b_b72c_fdea),
    f64::from_bits(0x3fbf_d5ba_9aac_2f6e),
    f64::from_bits(0x3fc7_b97b_4bce_5b02),
    f64::from_bits(0x3fcf_5b75_f92c_80dd),
    f64::from_bits(0x3fd3_6277_3707_ebcc),
    f64::from_bits(0x3fd6_f619_41e4_def1),
    f64::from_bits(0x3fda_64ee_c3cc_23fd),
    f64::from_bits(0x3fdd_ac67_0561_bb4f),
    f64::from_bits(0x3fe0_657e_94db_30d0),
    f64::from_bits(0x3fe1_e00b_abde_feb4),
    f64::from_bits(0x3fe3_45f0_1cce_37bb),
    f64::from_bits(0x3fe4_978f_a326_9ee1),
    f64::from_bits(0x3fe5_d589_8716_9b18),
    f64::from_bits(0x3fe7_00a7_c578_4634),
    f64::from_bits(0x3fe8_19d0_b715_8a4d),
    std::f64::consts::FRAC_PI_4,
];

/// `atan2(y, x)` in `double` for `float` arguments (widened) that are finite and not both
/// zero; within some 2^-40 relative of the exact value.
///
/// With `a = min(|x|, |y|)`, `b = max(|x|, |y|)` and `t = a/b` in [0, 1]: `c = k/16` nearest
/// `t` and `u = (t - c)/(1 + t·c)`, `|u| <= 1/32`, so `atan t = atan c + atan u`, and
/// `atan u = u - u^3/3 + u^5/5 - u^7/7` (truncation below `u^9/9`, 2^-48). Then the octant:
/// `pi/2 - z` where `|y| > |x|`, `pi - z` where `x < 0`, the sign of `y`.
#[inline]
pub(crate) fn atan2_finite(y: f64, x: f64) -> f64 {
    let (ay, ax) = (y.abs(), x.abs());
    let (a, b) = (ay.min(ax), ay.max(ax));
    let t = a / b;
    // round(16·t) in the low mantissa bits of `kd` (SHIFT's are zero); 0 <= k <= 16.
    let kd = t * 16.0 + SHIFT;
    let c = (kd - SHIFT) * 0.0625;
    let u = (t - c) / (1.0 + t * c);
    let u2 = u * u;
    let p = u + u * u2 * (-1.0 / 3.0 + u2 * (0.2 - u2 * (1.0 / 7.0)));
    let z = ATAN_TABLE[(kd.to_bits() & 31) as usize % 17] + p;
    let z = if ay > ax { FRAC_PI_2 - z } else { z };
    let z = if x.is_sign_negative() { PI - z } else { z };
    z.copysign(y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_atan() {
        for (k, &v) in ATAN_TABLE.iter().enumerate() {
            let want = libm::atan(k as f64 / 16.0);
            assert!(
                (v - want).abs() <= f64::EPSILON * want,
                "atan({k}/16): {v:e}"
            );
        }
        assert_eq!(ATAN_TABLE[0], 0.0);
        assert_eq!(ATAN_TABLE[16], std::f64::consts::FRAC_PI_4);
    }

    /// Against libm's `atan2` within 2^-40 relative, in every octant, on random pairs of
    /// magnitudes 2^-30..2^30 apart, the table's nodes and the octant edges.
    #[test]
    fn atan2_finite_is_libm_atan2() {
        let mut pairs: Vec<(f64, f64)> = Vec::new();
        for i in 0..200_000u64 {
            let r = crate::math::lanes::tests::random(i);
            let y = ((r as u32 >> 9) as f64 + 1.0) * 2f64.powi((r >> 32) as i32 % 31);
            let x = ((r >> 41) as f64 + 1.0) * 2f64.powi((r >> 36) as i32 % 31 - 15);
            pairs.push((y, x));
        }
        for k in 0..=32 {
            pairs.push((k as f64, 32.0));
            pairs.push((k as f64 + 0.5, 32.0));
            pairs.push((1.0, 1.0 + k as f64 * f64::EPSILON));
        }
        pairs.push((f32::from_bits(1) as f64, f32::MAX as f64));
        for (y, x) in pairs {
            for (sy, sx) in [(1.0, 1.0), (-1.0, 1.0), (1.0, -1.0), (-1.0, -1.0)] {
                for (yy, xx) in [(y * sy, x * sx), (x * sy, y * sx)] {
                    let (got, want) = (atan2_finite(yy, xx), libm::atan2(yy, xx));
                    assert!(
                        (got - want).abs() <= want.abs() * 2f64.powi(-40),
                        "atan2({yy:e}, {xx:e}): {got:e}, libm {want:e}"
                    );
                }
            }
        }
    }

    #[test]
    fn known_values() {
        assert_eq!(atan2_finite(1.0, 1.0), std::f64::consts::FRAC_PI_4);
        assert_eq!(atan2_finite(0.0, 1.0).to_bits(), 0);
        assert_eq!(atan2_finite(-0.0, 1.0).to_bits(), (-0.0f64).to_bits());
        assert_eq!(atan2_finite(1.0, 0.0), FRAC_PI_2);
        assert_eq!(atan2_finite(-1.0, -0.0), -FRAC_PI_2);
        assert_eq!(atan2_finite(0.0, -1.0), PI);
        assert_eq!(atan2_finite(-0.0, -1.0), -PI);
    }
}
