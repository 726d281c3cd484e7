//! `fmod`, `remainder` and `remquo` (`float` and `double`) bit for bit against a reference
//! in integer arithmetic that shares nothing with the library's: the operands' significands
//! and exponents, the quotient found 64 bits at a time by `u128` division, the remainder
//! rounded to the nearest-even quotient, and `quo` as the CTS's reference gives it (the
//! sign of `x/y` and the low 7 bits of the rounded quotient). Inputs: every pair of a list
//! of edge values (zeros, subnormals, the ends of the normal range, the divisors whose
//! `128·y` overflows, infinities, NaN), exact ties, huge exponent differences (`MAX` by a
//! subnormal: the longest quotient), and random bit patterns (xorshift, fixed seed).

use clift_builtins::math::*;

/// The operands of the reference: significand, exponent of its last bit, sign.
#[derive(Clone, Copy)]
struct Parts {
    m: u64,
    e: i32,
    neg: bool,
}

/// A binary floating format: significand bits (without the implicit one), exponent bias.
#[derive(Clone, Copy)]
struct Format {
    sig: u32,
    bias: i32,
    width: u32,
}

const F32: Format = Format {
    sig: 23,
    bias: 127,
    width: 32,
};
const F64: Format = Format {
    sig: 52,
    bias: 1023,
    width: 64,
};

impl Format {
    /// A finite, nonzero value's parts from its bits.
    fn parts(self, bits: u64) -> Parts {
        let neg = bits >> (self.width - 1) & 1 == 1;
        let biased = (bits >> self.sig) & ((1 << (self.width - 1 - self.sig)) - 1);
        let frac = bits & ((1 << self.sig) - 1);
        let (m, e) = if biased == 0 {
            (frac, 1 - self.bias - self.sig as i32)
        } else {
            (
                frac | 1 << self.sig,
                biased as i32 - self.bias - self.sig as i32,
            )
        };
        Parts { m, e, neg }
    }
}

/// `m·2^e` as an `f64` (exact whenever the value is a `float` or `double`).
fn scaled(m: u128, e: i32) -> f64 {
    // `m` has at most 53 significant bits here; shift the rest into the exponent.
    let shift = (128 - m.leading_zeros()).saturating_sub(53);
    assert_eq!(m & ((1 << shift) - 1), 0, "inexact reference");
    libm::scalbn((m >> shift) as f64, e + shift as i32)
}

/// `(fmod, remainder, quo)` of finite nonzero operands, exactly.
fn reference(x: Parts, y: Parts) -> (f64, f64, i32) {
    let sign = |v: f64| if x.neg { -v } else { v };
    let q_sign = |q: u64| {
        let q = (q & 0x7f) as i32;
        if x.neg != y.neg { -q } else { q }
    };
    let my = y.m as u128;
    if x.e < y.e {
        // |x| < |y|: the quotient is 0, or 1 after rounding when 2|x| > |y|.
        let s = (y.e - x.e) as u32;
        let fmod = sign(scaled(x.m as u128, x.e));
        if s >= 70 || 2 * x.m as u128 <= my << s {
            return (fmod, fmod, q_sign(0));
        }
        let r = (my << s) - x.m as u128;
        return (fmod, -sign(scaled(r, x.e)), q_sign(1));
    }
    // The quotient of (x.m·2^d) / y.m, 64 bits at a time; q keeps its low 64 bits.
    let mut d = (x.e - y.e) as u32;
    let mut r = x.m as u128 % my;
    let mut q = (x.m as u128 / my) as u64;
    while d > 0 {
        let s = d.min(64);
        let t = r << s;
        q = if s == 64 { 0 } else { q << s };
        q = q.wrapping_add((t / my) as u64);
        r = t % my;
        d -= s;
    }
    let fmod = sign(scaled(r, y.e));
    if 2 * r > my || (2 * r == my && q & 1 == 1) {
        (fmod, -sign(scaled(my - r, y.e)), q_sign(q.wrapping_add(1)))
    } else {
        (fmod, fmod, q_sign(q))
    }
}

/// Random numbers: splitmix64.
fn random(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let z = (*state ^ (*state >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    let z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Mismatches, with the first few described.
#[derive(Default)]
struct Checks {
    count: usize,
    failures: Vec<String>,
}

impl Checks {
    fn expect(&mut self, ok: bool, what: impl FnOnce() -> String) {
        self.count += 1;
        if !ok && self.failures.len() < 20 {
            self.failures.push(what());
        }
    }

    fn done(self) {
        assert!(
            self.failures.is_empty(),
            "{} of {} checks failed:\n{}",
            self.failures.len(),
            self.count,
            self.failures.join("\n")
        );
    }
}

/// For one type: `check` (the three functions at `(x, y)` against `expected`), `expected`
/// (the special values of C99 F.9.7.1 and OpenCL 7.5.1, NaN and `quo` 0 where the result
/// is NaN, `x` itself for `±0` or an infinite `y`; else the integer reference) and `edges`.
macro_rules! per_type {
    ($check:ident, $expected:ident, $edges:ident, $t:ident, $format:expr, $big:expr,
     $fmod:ident, $remainder:ident, $remquo:ident) => {
        fn $check(c: &mut Checks, x: $t, y: $t) {
            let (fmod, rem, quo) = $expected(x, y);
            let same = |a: $t, b: $t| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
            let show = |v: $t| format!("{v:e} ({:#x})", v.to_bits());
            let args = || format!("({}, {})", show(x), show(y));
            let got = $fmod(x, y);
            c.expect(same(got, fmod), || {
                format!(
                    "{}{} = {}, not {}",
                    stringify!($fmod),
                    args(),
                    show(got),
                    show(fmod)
                )
            });
            let got = $remainder(x, y);
            c.expect(same(got, rem), || {
                format!(
                    "{}{} = {}, not {}",
                    stringify!($remainder),
                    args(),
                    show(got),
                    show(rem)
                )
            });
            let mut q = 12345;
            // SAFETY: `q` is a live local.
            let got = unsafe { $remquo(x, y, &mut q) };
            c.expect(same(got, rem) && q == quo, || {
                let want = show(rem);
                format!(
                    "{}{} = {}, {q}, not {want}, {quo}",
                    stringify!($remquo),
                    args(),
                    show(got)
                )
            });
        }

        fn $expected(x: $t, y: $t) -> ($t, $t, i32) {
            if x.is_nan() || y.is_nan() || x.is_infinite() || y == 0.0 {
                return ($t::NAN, $t::NAN, 0);
            }
            if y.is_infinite() || x == 0.0 {
                return (x, x, 0);
            }
            let parts = |v: $t| $format.parts(v.to_bits() as u64);
            let (f, r, q) = reference(parts(x), parts(y));
            (f as $t, r as $t, q)
        }

        /// Zeros, subnormals, the ends of the normal range, the divisors whose `128·y`
        /// overflows or just does not, infinities and NaN, both signs.
        fn $edges() -> Vec<$t> {
            let below_scale_limit = $t::MAX / 128.0;
            let mut v = vec![
                0.0,
                $t::from_bits(1),
                $t::from_bits(3),
                $t::MIN_POSITIVE - $t::from_bits(1),
                $t::MIN_POSITIVE,
                1.5 * $t::MIN_POSITIVE,
                1.0,
                1.5,
                2.0,
                3.0,
                7.0,
                0.1,
                $big,
                below_scale_limit,
                $t::from_bits(below_scale_limit.to_bits() + 1),
                $t::MAX / 4.0,
                $t::MAX,
                $t::INFINITY,
                $t::NAN,
            ];
            let negative: Vec<$t> = v.iter().map(|&x| -x).collect();
            v.extend(negative);
            v
        }
    };
}

per_type!(
    check_f32,
    expected_f32,
    edges_f32,
    f32,
    F32,
    1e10,
    clift_fmod_f32,
    clift_remainder_f32,
    clift_remquo_f32
);
per_type!(
    check_f64,
    expected_f64,
    edges_f64,
    f64,
    F64,
    1e300,
    clift_fmod_f64,
    clift_remainder_f64,
    clift_remquo_f64
);

#[test]
fn reference_known_values() {
    // The reference itself, on values worked by hand.
    let p = |x: f64| F64.parts(x.to_bits());
    assert_eq!(reference(p(7.0), p(2.0)), (1.0, -1.0, 4));
    assert_eq!(reference(p(-5.0), p(2.0)), (-1.0, -1.0, -2));
    assert_eq!(reference(p(1000.0), p(-3.0)), (1.0, 1.0, -77));
    assert_eq!(reference(p(0.75), p(1.0)), (0.75, -0.25, 1));
    assert_eq!(reference(p(0.5), p(1.0)), (0.5, 0.5, 0));
    // 2^1023 = 3·Q + 2 (2^odd ≡ 2 mod 3), Q = (2^1023 - 2)/3 = 0b1010…10, whose low 7
    // bits are 0b0101010 = 42; rounded up to Q + 1 (2·2 > 3), remainder 2 - 3.
    assert_eq!(reference(p(2f64.powi(1023)), p(3.0)), (2.0, -1.0, 43));
}

#[test]
fn float_edges_and_ties() {
    let mut c = Checks::default();
    let edges = edges_f32();
    for &x in &edges {
        for &y in &edges {
            check_f32(&mut c, x, y);
        }
    }
    let mut rng = 0x1234_5678_9abc_def1;
    for _ in 0..20_000 {
        // Exact ties x = (k + 1/2)·y, and their neighbours.
        let y = f32::from_bits(random(&mut rng) as u32 & 0x4fff_ffff) * 2.0;
        let k = (random(&mut rng) % 1000) as f32;
        let x = (k + 0.5) * y;
        for x in [
            x,
            f32::from_bits(x.to_bits() + 1),
            f32::from_bits(x.to_bits().wrapping_sub(1)),
        ] {
            check_f32(&mut c, x, y);
            check_f32(&mut c, -x, y);
        }
    }
    for _ in 0..200_000 {
        // Exact multiples and their neighbours, x = (k·my ± 1)·2^j with y = my (12-bit
        // significands): remainders of 0 and ±1, where a quotient estimate lands on either
        // side of an integer.
        let my = (random(&mut rng) % 4096) as u32 | 1;
        let k = (random(&mut rng) % 4096) as u32 + 1;
        let j = (random(&mut rng) % 200) as i32 - 60;
        let y = my as f32 * 2f32.powi(-((random(&mut rng) % 60) as i32));
        for m in [k * my - 1, k * my, k * my + 1] {
            check_f32(
                &mut c,
                m as f32 * 2f32.powi(j / 2) * 2f32.powi(j - j / 2),
                y,
            );
        }
    }
    for _ in 0..20_000 {
        // The longest quotients: a huge x by a subnormal or tiny y.
        let x = f32::from_bits(0x7e00_0000 | (random(&mut rng) as u32 & 0x01ff_ffff));
        let y = f32::from_bits(1 + (random(&mut rng) as u32 & 0x00ff_ffff));
        check_f32(&mut c, x, y);
        check_f32(&mut c, x, -y);
    }
    c.done();
}

#[test]
fn float_random_bits() {
    let mut c = Checks::default();
    let mut rng = 0x9e37_79b9_7f4a_7c15;
    for _ in 0..1_000_000 {
        let bits = random(&mut rng);
        check_f32(
            &mut c,
            f32::from_bits(bits as u32),
            f32::from_bits((bits >> 32) as u32),
        );
    }
    c.done();
}

#[test]
fn double_edges_and_ties() {
    let mut c = Checks::default();
    let edges = edges_f64();
    for &x in &edges {
        for &y in &edges {
            check_f64(&mut c, x, y);
        }
    }
    let mut rng = 0x0fed_cba9_8765_4321;
    for _ in 0..20_000 {
        let y = f64::from_bits(random(&mut rng) & 0x4fff_ffff_ffff_ffff) * 2.0;
        let k = (random(&mut rng) % 100_000) as f64;
        let x = (k + 0.5) * y;
        for x in [
            x,
            f64::from_bits(x.to_bits() + 1),
            f64::from_bits(x.to_bits().wrapping_sub(1)),
        ] {
            check_f64(&mut c, x, y);
            check_f64(&mut c, -x, y);
        }
    }
    for _ in 0..5_000 {
        let x = f64::from_bits(0x7fe0_0000_0000_0000 | (random(&mut rng) & 0x000f_ffff_ffff_ffff));
        let y = f64::from_bits(1 + (random(&mut rng) & 0x001f_ffff_ffff_ffff));
        check_f64(&mut c, x, y);
        check_f64(&mut c, -x, y);
    }
    c.done();
}

#[test]
fn double_random_bits() {
    let mut c = Checks::default();
    let mut rng = 0x2545_f491_4f6c_dd1d;
    for _ in 0..300_000 {
        check_f64(
            &mut c,
            f64::from_bits(random(&mut rng)),
            f64::from_bits(random(&mut rng)),
        );
    }
    c.done();
}
