//! Exact rounding in integer arithmetic: a value `±m·2^e` rounded to an IEEE binary format
//! or to an integer, under any of the four rounding modes.
//!
//! This is the reference the fast paths ([`super::native`], [`crate::half`]) are tested
//! against, so it shares no code with them and favours being evidently right over speed:
//! no floating-point operation takes part, hence no double rounding and no dependence on the
//! FPU's modes.

use std::cmp::Ordering;

use super::Rounding;

/// An IEEE 754 binary interchange format.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Format {
    /// Stored fraction bits (precision minus one).
    pub frac_bits: u32,
    /// Exponent field bits.
    pub exp_bits: u32,
}

pub(crate) const HALF: Format = Format {
    frac_bits: 10,
    exp_bits: 5,
};
pub(crate) const SINGLE: Format = Format {
    frac_bits: 23,
    exp_bits: 8,
};
pub(crate) const DOUBLE: Format = Format {
    frac_bits: 52,
    exp_bits: 11,
};

impl Format {
    fn bias(self) -> i32 {
        (1 << (self.exp_bits - 1)) - 1
    }

    fn sign_bit(self) -> u64 {
        1 << (self.frac_bits + self.exp_bits)
    }

    fn inf_bits(self) -> u64 {
        ((1 << self.exp_bits) - 1) << self.frac_bits
    }

    /// The result of a finite value too large for the format: infinity, or the largest
    /// finite value when the mode rounds toward zero from that side (IEEE 754 7.4).
    fn overflow(self, neg: bool, mode: Rounding) -> u64 {
        let inf = self.inf_bits();
        let max = inf - 1;
        let sign = if neg { self.sign_bit() } else { 0 };
        sign | match mode {
            Rounding::Default | Rounding::Rte => inf,
            Rounding::Rtz => max,
            Rounding::Rtp if neg => max,
            Rounding::Rtp => inf,
            Rounding::Rtn if neg => inf,
            Rounding::Rtn => max,
        }
    }
}

/// `mag >> shift`, with how the bits shifted out compare to half a unit of the result and
/// whether any of them is set.
fn shift_right(mag: u128, shift: u32) -> (u128, Ordering, bool) {
    match shift {
        0 => (mag, Ordering::Less, false),
        // Half a unit is 2^(shift-1) >= 2^128, more than any u128.
        129.. => (0, Ordering::Less, mag != 0),
        128 => (0, mag.cmp(&(1 << 127)), mag != 0),
        _ => {
            let rest = mag & ((1 << shift) - 1);
            (mag >> shift, rest.cmp(&(1 << (shift - 1))), rest != 0)
        }
    }
}

/// Whether a magnitude truncated to `truncated` must instead be rounded up (away from zero).
/// `Default` counts as `Rte`; callers with an integer destination resolve it to `Rtz` first.
fn rounds_away(
    mode: Rounding,
    neg: bool,
    truncated: u128,
    rest_vs_half: Ordering,
    inexact: bool,
) -> bool {
    match mode {
        Rounding::Default | Rounding::Rte => {
            rest_vs_half == Ordering::Greater
                || (rest_vs_half == Ordering::Equal && truncated & 1 == 1)
        }
        Rounding::Rtz => false,
        Rounding::Rtp => inexact && !neg,
        Rounding::Rtn => inexact && neg,
    }
}

/// The bits of `±mag·2^exp` rounded to `fmt` under `mode`.
pub(crate) fn round_dyadic(neg: bool, mag: u128, exp: i32, fmt: Format, mode: Rounding) -> u64 {
    let sign = if neg { fmt.sign_bit() } else { 0 };
    if mag == 0 {
        return sign;
    }
    let frac = fmt.frac_bits as i32;
    // The exponent of the leading bit: the value lies in [2^top, 2^(top+1)).
    let top = 127 - mag.leading_zeros() as i32 + exp;
    let emin = 1 - fmt.bias();
    let biased = top + fmt.bias();
    if biased > (1 << fmt.exp_bits) - 2 {
        return fmt.overflow(neg, mode);
    }
    // The weight of the last kept bit: a normal result keeps frac+1 bits, a subnormal one
    // keeps the bits from 2^(emin - frac) up.
    let quantum = top.max(emin) - frac;
    let (kept, rest_vs_half, inexact) = if exp >= quantum {
        // Exact: mag·2^(exp-quantum) < 2^(frac+1), so the shift cannot overflow.
        (mag << (exp - quantum), Ordering::Less, false)
    } else {
        shift_right(mag, (quantum - exp) as u32)
    };
    let n = kept + rounds_away(mode, neg, kept, rest_vs_half, inexact) as u128;
    // A subnormal's bits are its multiple of the quantum; rounding up to 2^frac lands exactly
    // on the smallest normal's encoding. A normal's bits are (biased-1)·2^frac + n, so that a
    // carry out of the significand (n = 2^(frac+1)) moves into the exponent field.
    let bits = if top < emin {
        n
    } else {
        (((biased - 1) as u128) << frac) + n
    };
    if bits >= fmt.inf_bits() as u128 {
        return fmt.overflow(neg, mode);
    }
    sign | bits as u64
}

/// A finite double's exact decomposition `(negative, m, e)` with `|x| = m·2^e`.
pub(crate) fn decompose(x: f64) -> (bool, u64, i32) {
    let bits = x.to_bits();
    let field = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1 << 52) - 1);
    let neg = bits >> 63 != 0;
    if field == 0 {
        (neg, frac, -1074)
    } else {
        (neg, frac | 1 << 52, field - 1075)
    }
}

/// `x` (any double, hence also any float) rounded to `fmt`. Infinities stay infinite; NaN
/// becomes the quiet NaN with `x`'s sign and leading payload bits.
pub(crate) fn to_format(x: f64, fmt: Format, mode: Rounding) -> u64 {
    let sign = if x.is_sign_negative() {
        fmt.sign_bit()
    } else {
        0
    };
    if x.is_nan() {
        let quiet = 1 << (fmt.frac_bits - 1);
        let payload = (x.to_bits() & ((1 << 52) - 1)) >> (52 - fmt.frac_bits);
        return sign | fmt.inf_bits() | quiet | payload;
    }
    if x.is_infinite() {
        return sign | fmt.inf_bits();
    }
    let (neg, m, e) = decompose(x);
    round_dyadic(neg, m.into(), e, fmt, mode)
}

/// `x` rounded to an integer under `mode` (`Default` counts as `Rtz`), saturating far
/// beyond any 64-bit range; NaN gives 0. Callers clamp the result to their type.
pub(crate) fn round_to_integer(x: f64, mode: Rounding) -> i128 {
    let mode = match mode {
        Rounding::Default => Rounding::Rtz,
        mode => mode,
    };
    if x.is_nan() {
        return 0;
    }
    let (neg, m, e) = if x.is_infinite() {
        (x < 0.0, 1, 1000)
    } else {
        decompose(x)
    };
    let mag: u128 = if e >= 0 {
        // m < 2^53, so up to e = 70 the magnitude stays below 2^124.
        if e > 70 { 1 << 124 } else { u128::from(m) << e }
    } else {
        let (kept, rest_vs_half, inexact) = shift_right(m.into(), e.unsigned_abs());
        kept + rounds_away(mode, neg, kept, rest_vs_half, inexact) as u128
    };
    if neg { -(mag as i128) } else { mag as i128 }
}
