//! The CTS area `conversions`: the explicit conversions
//! `convert_<dst>[n][_sat][_rte|_rtz|_rtp|_rtn](src)` of OpenCL C 1.2 (section 6.2.3)
//! between every pair of the scalar types char, uchar, short, ushort, int, uint, long,
//! ulong, float and double, at widths 1, 2, 4, 8 and 16 (and 3, through `vload3` /
//! `vstore3`, for the default and `_rtp` modes), through the loader, compared bit-exactly
//! with host references written here from the spec (not from clift's builtins).
//!
//! One program per source type holds one kernel per width; each kernel loads `x` with
//! `vloadn` (plain indexing at width 1) and stores every conversion of it (each
//! destination, with and without `_sat` for integer destinations, each rounding mode) into
//! its own region of one byte buffer. The reference rounds exactly: integers in `i128`,
//! floating-point values in `f64` (which holds every `float` exactly), and a rounding
//! other than to nearest is derived from the nearest value and its neighbour on the other
//! side of the exact value. Results the spec leaves undefined (a floating-point value or
//! NaN out of an integer destination's range without `_sat`) are not compared; a NaN result
//! is compared as "any NaN".

use clift_conformance::kernel_fixture::*;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Signed,
    Unsigned,
    Float,
}

/// A scalar type of OpenCL C.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Ty {
    name: &'static str,
    bits: u32,
    kind: Kind,
}

const fn ty(name: &'static str, bits: u32, kind: Kind) -> Ty {
    Ty { name, bits, kind }
}

const CHAR: Ty = ty("char", 8, Kind::Signed);
const UCHAR: Ty = ty("uchar", 8, Kind::Unsigned);
const SHORT: Ty = ty("short", 16, Kind::Signed);
const USHORT: Ty = ty("ushort", 16, Kind::Unsigned);
const INT: Ty = ty("int", 32, Kind::Signed);
const UINT: Ty = ty("uint", 32, Kind::Unsigned);
const LONG: Ty = ty("long", 64, Kind::Signed);
const ULONG: Ty = ty("ulong", 64, Kind::Unsigned);
const FLOAT: Ty = ty("float", 32, Kind::Float);
const DOUBLE: Ty = ty("double", 64, Kind::Float);

const TYPES: [Ty; 10] = [
    CHAR, UCHAR, SHORT, USHORT, INT, UINT, LONG, ULONG, FLOAT, DOUBLE,
];

impl Ty {
    fn bytes(self) -> usize {
        self.bits as usize / 8
    }
    fn is_float(self) -> bool {
        self.kind == Kind::Float
    }
    fn min(self) -> i128 {
        match self.kind {
            Kind::Signed => -(1i128 << (self.bits - 1)),
            _ => 0,
        }
    }
    fn max(self) -> i128 {
        match self.kind {
            Kind::Signed => (1i128 << (self.bits - 1)) - 1,
            _ => (1i128 << self.bits) - 1,
        }
    }
    fn mask(self) -> u64 {
        u64::MAX >> (64 - self.bits)
    }
    /// `v` reduced modulo 2^bits into this integer type's range.
    fn wrap(self, v: i128) -> i128 {
        let m = v & ((1i128 << self.bits) - 1);
        if self.kind == Kind::Signed && m >= 1i128 << (self.bits - 1) {
            m - (1i128 << self.bits)
        } else {
            m
        }
    }
    /// The value whose bits (low `bits` of `b`) are `b`.
    fn value(self, b: u64) -> Val {
        match (self.kind, self.bits) {
            (Kind::Float, 32) => Val::F(f64::from(f32::from_bits(b as u32))),
            (Kind::Float, _) => Val::F(f64::from_bits(b)),
            _ => Val::I(self.wrap(i128::from(b))),
        }
    }
    /// The bits of a value of this type: an integer, or `f` rounded to nearest.
    fn bits_of(self, v: Val) -> u64 {
        match (v, self.bits) {
            (Val::I(i), _) => (i as u64) & self.mask(),
            (Val::F(f), 32) => u64::from((f as f32).to_bits()),
            (Val::F(f), _) => f.to_bits(),
        }
    }
    fn encode(self, values: &[u64]) -> Vec<u8> {
        values
            .iter()
            .flat_map(|&v| v.to_le_bytes()[..self.bytes()].to_vec())
            .collect()
    }
    fn decode(self, bytes: &[u8]) -> Vec<u64> {
        bytes
            .chunks(self.bytes())
            .map(|c| {
                let mut b = [0u8; 8];
                b[..c.len()].copy_from_slice(c);
                u64::from_le_bytes(b)
            })
            .collect()
    }
    fn is_nan(self, b: u64) -> bool {
        self.is_float() && matches!(self.value(b), Val::F(f) if f.is_nan())
    }
}

/// A source value: an integer, or a floating-point value (a `float` held exactly).
#[derive(Clone, Copy, Debug)]
enum Val {
    I(i128),
    F(f64),
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Mode {
    Default,
    Rte,
    Rtz,
    Rtp,
    Rtn,
}

const MODES: [Mode; 5] = [Mode::Default, Mode::Rte, Mode::Rtz, Mode::Rtp, Mode::Rtn];

impl Mode {
    fn suffix(self) -> &'static str {
        match self {
            Mode::Default => "",
            Mode::Rte => "_rte",
            Mode::Rtz => "_rtz",
            Mode::Rtp => "_rtp",
            Mode::Rtn => "_rtn",
        }
    }
    /// The mode in effect: "_rtz for conversion to integers or the default rounding mode
    /// for conversion to floating-point types" (round to nearest even).
    fn effective(self, dst: Ty) -> Mode {
        match (self, dst.is_float()) {
            (Mode::Default, true) => Mode::Rte,
            (Mode::Default, false) => Mode::Rtz,
            (m, _) => m,
        }
    }
}

/// What a conversion must produce.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Expect {
    Bits(u64),
    AnyNan,
    /// Undefined by the spec: not compared.
    Undefined,
}

/// Picks the result of rounding exact value `x` in `mode` from `nearest` (the nearest
/// value, ties to even) and `cmp` (how `nearest` compares with `x`), `next_up` and
/// `next_down` giving its neighbours, and whether `x` is negative.
fn pick<F: Copy>(
    mode: Mode,
    nearest: F,
    cmp: std::cmp::Ordering,
    negative: bool,
    next_up: impl Fn(F) -> F,
    next_down: impl Fn(F) -> F,
) -> F {
    use std::cmp::Ordering::*;
    if cmp == Equal || mode == Mode::Rte {
        return nearest;
    }
    let (down, up) = if cmp == Greater {
        (next_down(nearest), nearest)
    } else {
        (nearest, next_up(nearest))
    };
    match mode {
        Mode::Rtp => up,
        Mode::Rtn => down,
        Mode::Rtz if negative => up,
        _ => down,
    }
}

/// Integer `v` rounded to `dst` (float or double) in `mode`, as bits.
fn int_to_float(v: i128, dst: Ty, mode: Mode) -> u64 {
    if dst.bits == 32 {
        // `as` rounds to nearest, ties to even; |v| < 2^64 so `n` is finite and integral.
        let n = v as f32;
        let c = (n as i128).cmp(&v);
        u64::from(pick(mode, n, c, v < 0, f32::next_up, f32::next_down).to_bits())
    } else {
        let n = v as f64;
        let c = (n as i128).cmp(&v);
        pick(mode, n, c, v < 0, f64::next_up, f64::next_down).to_bits()
    }
}

/// `x` (not NaN) rounded to float in `mode`, as bits.
fn double_to_float(x: f64, mode: Mode) -> u64 {
    let n = x as f32;
    let c = f64::from(n).partial_cmp(&x).unwrap();
    u64::from(pick(mode, n, c, x < 0.0, f32::next_up, f32::next_down).to_bits())
}

/// `x` rounded to an integral value in `mode`.
fn round_integral(x: f64, mode: Mode) -> f64 {
    match mode {
        Mode::Rte => x.round_ties_even(),
        Mode::Rtp => x.ceil(),
        Mode::Rtn => x.floor(),
        _ => x.trunc(),
    }
}

/// The spec's `convert_<dst>[_sat]<mode>(x)`.
fn reference(dst: Ty, x: Val, sat: bool, mode: Mode) -> Expect {
    let mode = mode.effective(dst);
    match (x, dst.is_float()) {
        // Integer to integer: C99 6.3.1.3 (modulo wrap) unless saturated.
        (Val::I(v), false) => {
            let r = if sat {
                v.clamp(dst.min(), dst.max())
            } else {
                dst.wrap(v)
            };
            Expect::Bits((r as u64) & dst.mask())
        }
        (Val::I(v), true) => Expect::Bits(int_to_float(v, dst, mode)),
        (Val::F(f), true) if f.is_nan() => Expect::AnyNan,
        (Val::F(f), true) if dst.bits == 64 => Expect::Bits(f.to_bits()),
        (Val::F(f), true) => Expect::Bits(double_to_float(f, mode)),
        // "(NaN should be converted to 0)"
        (Val::F(f), false) if f.is_nan() => {
            if sat {
                Expect::Bits(0)
            } else {
                Expect::Undefined
            }
        }
        (Val::F(f), false) => {
            let r = round_integral(f, mode);
            // Both bounds are exact in f64: MIN is 0 or -2^(bits-1), MAX + 1 a power of 2.
            let v = if r < dst.min() as f64 {
                dst.min()
            } else if r >= (dst.max() + 1) as f64 {
                dst.max()
            } else {
                return Expect::Bits((r as i128 as u64) & dst.mask());
            };
            if sat {
                Expect::Bits((v as u64) & dst.mask())
            } else {
                Expect::Undefined
            }
        }
    }
}

/// The number of inputs: a multiple of 48, so that every width divides it.
const N: usize = 1920;

const WIDTHS: [usize; 6] = [1, 2, 3, 4, 8, 16];

/// Integer inputs of `src`: its edge values, the values around every integer type's
/// limits, values whose float or double rounding is a tie or just off one, then random
/// values (all bits, shifted right by a random amount, or small).
fn int_inputs(src: Ty, rng: &mut Rng) -> Vec<u64> {
    let mut v: Vec<i128> = vec![0, 1, -1, 2, -2, src.min(), src.max(), src.min() + 1];
    v.push(src.max() - 1);
    for d in TYPES.iter().filter(|d| !d.is_float()) {
        for l in [d.min(), d.max()] {
            v.extend([l - 1, l, l + 1]);
        }
    }
    // Ties and near-ties for float (24-bit significand) and double (53-bit).
    for p in [24u32, 53] {
        for base in [(1i128 << p) + 1, (1i128 << p) + 3, (1i128 << p) - 1] {
            for s in [0u32, 1, 7, 8, 9, 31, 39] {
                let b = base << s;
                v.extend([b, b + 1, b - 1, -b, -b - 1]);
            }
        }
    }
    v.extend([
        1 << 24,
        (1 << 24) + 2,
        0x7fff_ff80,
        0xffff_ff80,
        0x7fff_ffc0,
    ]);
    let mut v: Vec<i128> = v
        .into_iter()
        .filter(|&x| x >= src.min() && x <= src.max())
        .collect();
    v.sort();
    v.dedup();
    assert!(v.len() <= N, "{} edge values of {}", v.len(), src.name);
    while v.len() < N {
        let r = rng.next_u64();
        let x = match r % 4 {
            0 => i128::from(rng.int(-300, 300)),
            1 => i128::from(rng.next_u64() >> (rng.next_u64() % 64)),
            2 => -i128::from(rng.next_u64() >> (rng.next_u64() % 64)),
            _ => i128::from(rng.next_u64()),
        };
        v.push(src.wrap(x));
    }
    v.into_iter().map(|x| (x as u64) & src.mask()).collect()
}

/// Floating-point inputs of `src` (float or double): ±0, ±0.5, ±1.5, ±2.5 and other ties
/// and their neighbours, the values just inside and outside every integer type's range,
/// ±inf, NaNs, denormals, the largest finite, for double the values whose float rounding
/// is a tie or overflows, then random bit patterns and random values of moderate
/// magnitude.
fn float_inputs(src: Ty, rng: &mut Rng) -> Vec<u64> {
    let single = src.bits == 32;
    // `x` rounded to the source format, and its neighbours there.
    let fmt = |x: f64| if single { f64::from(x as f32) } else { x };
    let up = |x: f64| {
        if single {
            f64::from((x as f32).next_up())
        } else {
            x.next_up()
        }
    };
    let down = |x: f64| {
        if single {
            f64::from((x as f32).next_down())
        } else {
            x.next_down()
        }
    };
    let mut v: Vec<f64> = Vec::new();
    let around = |v: &mut Vec<f64>, x: f64| {
        let r = fmt(x);
        v.extend([r, up(r), down(r)]);
    };
    for x in [0.0, 0.5, 1.0, 1.5, 2.5, 3.5, 4.5, 100.5, 127.5, 255.5] {
        around(&mut v, x);
    }
    for d in TYPES.iter().filter(|d| !d.is_float()) {
        for l in [d.min(), d.max(), d.max() + 1] {
            let l = l as f64;
            for x in [l - 1.0, l - 0.5, l, l + 0.5, l + 1.0] {
                around(&mut v, x);
            }
        }
    }
    v.extend([
        f64::INFINITY,
        f64::from(f32::MAX),
        f64::from(f32::MIN_POSITIVE),
        f64::from(f32::from_bits(1)),
        f64::from(f32::from_bits(0x7f_ffff)),
        f64::from(f32::from_bits(0x40_0000)),
    ]);
    if !single {
        v.extend([
            f64::MAX,
            f64::MIN_POSITIVE,
            f64::from_bits(1),
            f64::from_bits(0xf_ffff_ffff_ffff),
            // Float ties, just off them, the float overflow threshold, float denormals.
            1.0 + 2f64.powi(-24),
            1.0 + 2f64.powi(-24) + 2f64.powi(-52),
            1.0 + 2f64.powi(-24) - 2f64.powi(-52),
            1.0 + 3.0 * 2f64.powi(-24),
            f64::from(f32::MAX) + 2f64.powi(103),
            f64::from(f32::MAX) + 2f64.powi(103) - 2f64.powi(75),
            f64::from(f32::MAX) + 2f64.powi(102),
            2f64.powi(128),
            2f64.powi(-150),
            2f64.powi(-150) + 2f64.powi(-200),
            1.5 * 2f64.powi(-149),
            2.5 * 2f64.powi(-149),
            f64::from(f32::MIN_POSITIVE) - 2f64.powi(-160),
            1e-50,
            1e39,
            0.1,
            1.0 / 3.0,
        ]);
    }
    let mut v: Vec<f64> = v.iter().flat_map(|&x| [x, -x]).collect();
    let mut bits: Vec<u64> = v.drain(..).map(|x| src.bits_of(Val::F(fmt(x)))).collect();
    // NaNs: quiet, signalling, with payloads, negative.
    if single {
        bits.extend([0x7fc0_0000, 0xffc0_0000, 0x7f80_0001, 0x7fc1_2345]);
    } else {
        bits.extend([
            0x7ff8_0000_0000_0000,
            0xfff8_0000_0000_0000,
            0x7ff0_0000_0000_0001,
            0x7ff8_1234_5678_9abc,
        ]);
    }
    bits.sort();
    bits.dedup();
    assert!(
        bits.len() <= N,
        "{} edge values of {}",
        bits.len(),
        src.name
    );
    while bits.len() < N {
        let r = rng.next_u64();
        let b = if r.is_multiple_of(3) {
            rng.next_u64() & src.mask()
        } else {
            // Moderate magnitude: a random significand scaled by 2^[-4, 68).
            let m = (rng.next_u64() >> 11) as f64 * 2f64.powi(-52);
            let e = (rng.next_u64() % 72) as i32 - 4;
            let x = m * 2f64.powi(e);
            let x = if rng.next_u64().is_multiple_of(2) {
                x
            } else {
                -x
            };
            src.bits_of(Val::F(x))
        };
        bits.push(b);
    }
    bits
}

/// One conversion under test.
#[derive(Clone, Copy, Debug)]
struct Conv {
    dst: Ty,
    sat: bool,
    mode: Mode,
}

impl Conv {
    fn name(self, n: usize) -> String {
        let w = if n == 1 { String::new() } else { n.to_string() };
        format!(
            "convert_{}{w}{}{}",
            self.dst.name,
            if self.sat { "_sat" } else { "" },
            self.mode.suffix()
        )
    }
}

/// Every conversion to each destination: `_sat` only for integer destinations, every
/// rounding mode (at width 3 only the default mode and `_rtp`).
fn convs(n: usize) -> Vec<Conv> {
    let mut out = Vec::new();
    for dst in TYPES {
        for sat in [false, true] {
            if sat && dst.is_float() {
                continue;
            }
            for mode in MODES {
                if n == 3 && !matches!(mode, Mode::Default | Mode::Rtp) {
                    continue;
                }
                out.push(Conv { dst, sat, mode });
            }
        }
    }
    out
}

/// Each conversion's region of the output buffer (room for N doubles).
const REGION: usize = N * 8;

/// Kernel `conv_{n}` converting `src` at width `n` with each of `convs(n)`.
fn kernel_source(src: Ty, n: usize) -> String {
    let sv = if n == 1 {
        src.name.to_string()
    } else {
        format!("{}{n}", src.name)
    };
    let load = if n == 1 {
        "in[i]".to_string()
    } else {
        format!("vload{n}(i, in)")
    };
    let mut body = String::new();
    for (k, c) in convs(n).iter().enumerate() {
        let ptr = format!("(global {} *)(out + {})", c.dst.name, k * REGION);
        body += &if n == 1 {
            format!("  ({ptr})[i] = {}(x);\n", c.name(1))
        } else {
            format!("  vstore{n}({}(x), i, {ptr});\n", c.name(n))
        };
    }
    format!(
        "kernel void conv_{n}(global const {s} *in, global uchar *out) {{\n\
         \x20 size_t i = get_global_id(0);\n\
         \x20 {sv} x = {load};\n\
         {body}}}\n",
        s = src.name,
    )
}

/// Runs every conversion from `src` that `want` selects at every width and compares with
/// the reference.
fn check(src: Ty, want: impl Fn(&Conv) -> bool) {
    let fx = Fixture::new();
    let source: String =
        std::iter::once("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n".to_string())
            .chain(WIDTHS.iter().map(|&n| kernel_source(src, n)))
            .collect();
    let mut rng = Rng(0xc0_0000 + u64::from(src.bits) * 4 + src.kind as u64);
    let input = if src.is_float() {
        float_inputs(src, &mut rng)
    } else {
        int_inputs(src, &mut rng)
    };
    let buf = fx.buffer(&src.encode(&input));
    let first = fx.kernel(&source, c"conv_1", c"");
    let mut failures = Vec::new();
    for n in WIDTHS {
        let k = first.sibling(&format!("conv_{n}"));
        let cs = convs(n);
        let out = fx.filled(0xa5u8, cs.len() * REGION);
        k.mem(0, &buf).mem(1, &out);
        fx.run(&k, None, &[N / n], None);
        let bytes = fx.read::<u8>(&out, cs.len() * REGION);
        for (j, c) in cs.iter().enumerate() {
            if !want(c) {
                continue;
            }
            let got = c.dst.decode(&bytes[j * REGION..][..N * c.dst.bytes()]);
            let bad: Vec<(usize, Expect)> = (0..N)
                .filter_map(|i| {
                    let e = reference(c.dst, src.value(input[i]), c.sat, c.mode);
                    let ok = match e {
                        Expect::Bits(b) => got[i] == b,
                        Expect::AnyNan => c.dst.is_nan(got[i]),
                        Expect::Undefined => true,
                    };
                    (!ok).then_some((i, e))
                })
                .collect();
            if let Some(&(i, e)) = bad.first() {
                failures.push(format!(
                    "{}({}{}): element {i}, input {:#x} ({:?}): got {:#x} ({:?}), expected \
                     {} ({} of {N} differ)",
                    c.name(n),
                    src.name,
                    if n == 1 { String::new() } else { n.to_string() },
                    input[i],
                    src.value(input[i]),
                    got[i],
                    c.dst.value(got[i]),
                    match e {
                        Expect::Bits(b) => format!("{b:#x} ({:?})", c.dst.value(b)),
                        _ => "a NaN".to_string(),
                    },
                    bad.len()
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} conversions from {} differ:\n{}",
        failures.len(),
        src.name,
        failures.join("\n")
    );
}

/// "Explicit conversions may be performed using the convert_destType(sourceType) suite of
/// functions" and "Conversions between integer types follow the conversion rules specified
/// in sections 6.3.1.1 and 6.3.1.3 of the C99 specification except for out-of-range
/// behavior and saturated conversions which are described in section 6.2.3.3" and "When in
/// saturated mode, values that are outside the representable range shall clamp to the
/// nearest representable value in the destination format" (6.2.3, 6.2.3.1, 6.2.3.3): every
/// conversion from `char`.
#[test]
fn from_char() {
    check(CHAR, |_| true);
}

/// "Conversions are available for the following scalar types: char, uchar, short, ushort,
/// int, uint, long, ulong, float, and built-in vector types derived therefrom. The operand
/// and result type must have the same number of elements" (6.2.3.1): every conversion from
/// `uchar`.
#[test]
fn from_uchar() {
    check(UCHAR, |_| true);
}

/// "Conversions to integer type may opt to convert using the optional saturated mode by
/// appending the _sat modifier to the conversion function name" (6.2.3.3): every
/// conversion from `short`.
#[test]
fn from_short() {
    check(SHORT, |_| true);
}

/// "The number of elements in the source and destination vectors must match" (6.2.3):
/// every conversion from `ushort`, at every width.
#[test]
fn from_ushort() {
    check(USHORT, |_| true);
}

/// "By default, conversions to integer type use the _rtz (round toward zero) rounding mode
/// and conversions to floating-point type use the default rounding mode. The only default
/// floating-point rounding mode supported is round to nearest even i.e the default rounding
/// mode will be _rte for floating-point types" (6.2.3.2): every conversion from `int`,
/// whose large values round in `float`.
#[test]
fn from_int() {
    check(INT, |_| true);
}

/// "_rte Round to nearest even; _rtz Round toward zero; _rtp Round toward positive
/// infinity; _rtn Round toward negative infinity" (6.2.3.2, table 6.7): every conversion
/// from `uint`.
#[test]
fn from_uint() {
    check(UINT, |_| true);
}

/// "Conversions to and from floating-point type shall conform to IEEE-754 rounding rules"
/// (6.2.3.2): every conversion from `long`, whose values round in `float` and `double`
/// in every mode.
#[test]
fn from_long() {
    check(LONG, |_| true);
}

/// "Conversions to and from floating-point type shall conform to IEEE-754 rounding rules"
/// (6.2.3.2): every conversion from `ulong`, including values above 2^63.
#[test]
fn from_ulong() {
    check(ULONG, |_| true);
}

/// "No modifier specified: Use the default rounding mode for this destination type, _rtz
/// for conversion to integers" (table 6.7), and "When in saturated mode, values that are
/// outside the representable range shall clamp to the nearest representable value in the
/// destination format. (NaN should be converted to 0)" (6.2.3.3): every conversion from
/// `float`; out-of-range values without `_sat` ("implementation-defined") are not compared.
#[test]
fn from_float() {
    check(FLOAT, |_| true);
}

/// "Conversions to floating-point type shall conform to IEEE-754 rounding rules" (6.2.3.3)
/// and "For conversions to floating-point format, when a finite source value exceeds the
/// maximum representable finite floating-point destination value, the rounding mode will
/// affect whether the result is the maximum finite floating-point value or infinity of same
/// sign as the source value, per IEEE-754 rules for rounding" (footnote to 6.2.3.2): every
/// conversion from `double`, including to `float` in each mode.
#[test]
fn from_double() {
    check(DOUBLE, |_| true);
}
