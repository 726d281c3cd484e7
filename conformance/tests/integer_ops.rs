//! The CTS area `integer_ops`: the integer built-in functions of OpenCL C 1.2 (section
//! 6.12.3) and the operators `/` and `%` (section 6.3), for every integer type at widths
//! 1, 2, 3, 4, 8 and 16, through the loader, compared bit-exactly with host references
//! written here from the spec's definitions in `i128` (`u128` where an unsigned 64-bit
//! product needs it).
//!
//! Kernels are generated from a type table: one program per type holds one kernel per
//! (function, width); each kernel loads its operands with `vloadn` (plain indexing at
//! width 1) and stores the result with `vstoren`, so a lane-wise function is checked on
//! the same arrays at every width. The inputs cross each type's edge values (0, 1, -1,
//! MIN, MAX, MIN+1, MAX-1, powers of two) with each other and add random values; where
//! a function is undefined for some inputs (`clamp` with minval > maxval, `mul24` and
//! `mad24` outside 24 bits, `/` and `%` by 0 or of MIN by -1) the inputs are adjusted into
//! the defined domain first.

use std::ffi::CString;

use clift_conformance::kernel_fixture::*;

/// An integer type of OpenCL C.
#[derive(Clone, Copy, Debug)]
struct Ty {
    name: &'static str,
    bits: u32,
    signed: bool,
}

const TYPES: [Ty; 8] = [
    Ty {
        name: "char",
        bits: 8,
        signed: true,
    },
    Ty {
        name: "uchar",
        bits: 8,
        signed: false,
    },
    Ty {
        name: "short",
        bits: 16,
        signed: true,
    },
    Ty {
        name: "ushort",
        bits: 16,
        signed: false,
    },
    Ty {
        name: "int",
        bits: 32,
        signed: true,
    },
    Ty {
        name: "uint",
        bits: 32,
        signed: false,
    },
    Ty {
        name: "long",
        bits: 64,
        signed: true,
    },
    Ty {
        name: "ulong",
        bits: 64,
        signed: false,
    },
];

impl Ty {
    fn bytes(self) -> usize {
        self.bits as usize / 8
    }
    fn min(self) -> i128 {
        if self.signed {
            -(1i128 << (self.bits - 1))
        } else {
            0
        }
    }
    fn max(self) -> i128 {
        if self.signed {
            (1i128 << (self.bits - 1)) - 1
        } else {
            (1i128 << self.bits) - 1
        }
    }
    /// The unsigned type of the same size.
    fn unsigned(self) -> Ty {
        TYPES
            .iter()
            .copied()
            .find(|t| t.bits == self.bits && !t.signed)
            .unwrap()
    }
    /// The type twice as wide with the same signedness (`upsample`'s result).
    fn wider(self) -> Ty {
        TYPES
            .iter()
            .copied()
            .find(|t| t.bits == 2 * self.bits && t.signed == self.signed)
            .unwrap()
    }
    /// `v` reduced modulo 2^bits into this type's range (two's complement wrap).
    fn wrap(self, v: i128) -> i128 {
        let m = v & ((1i128 << self.bits) - 1);
        if self.signed && m >= 1i128 << (self.bits - 1) {
            m - (1i128 << self.bits)
        } else {
            m
        }
    }
    /// `v` saturated to this type's range.
    fn sat(self, v: i128) -> i128 {
        v.clamp(self.min(), self.max())
    }
    /// The bits of `v` as an unsigned value.
    fn ubits(self, v: i128) -> u128 {
        self.unsigned().wrap(v) as u128
    }
    fn encode(self, values: &[i128]) -> Vec<u8> {
        values
            .iter()
            .flat_map(|&v| (v as u128).to_le_bytes()[..self.bytes()].to_vec())
            .collect()
    }
    fn decode(self, bytes: &[u8]) -> Vec<i128> {
        bytes
            .chunks(self.bytes())
            .map(|c| {
                let mut b = [0u8; 16];
                b[..c.len()].copy_from_slice(c);
                self.wrap(u128::from_le_bytes(b) as i128)
            })
            .collect()
    }
    /// Edge values: 0, ±1, MIN, MAX, MIN+1, MAX-1 and some powers of two (and their
    /// negations for signed types).
    fn edges(self) -> Vec<i128> {
        let mut v = vec![
            0,
            1,
            self.min(),
            self.max(),
            self.min() + 1,
            self.max() - 1,
            2,
        ];
        for k in [self.bits / 2, self.bits - 2, self.bits - 1] {
            v.push(self.wrap(1i128 << k));
        }
        if self.signed {
            v.extend([
                -1,
                -2,
                -(1i128 << (self.bits / 2)),
                -(1i128 << (self.bits - 2)),
            ]);
        } else {
            v.push(self.max() >> 1);
        }
        v.sort();
        v.dedup();
        v
    }
    /// A random value: all bits random, or a small magnitude.
    fn random(self, rng: &mut Rng) -> i128 {
        let r = rng.next_u64();
        match r % 4 {
            0 => self.wrap(i128::from(rng.int(-40, 40))),
            _ => self.wrap(i128::from(rng.next_u64())),
        }
    }
}

/// The number of elements of each input array: a multiple of 16 and of 3, larger than the
/// cross product of the edge values.
const N: usize = 480;

const WIDTHS: [usize; 6] = [1, 2, 3, 4, 8, 16];

/// The integer functions and operators under test: name (also the kernel's prefix), arity,
/// the expression over `x`, `y`, `z`, and whether it exists for a type.
struct Func {
    name: &'static str,
    expr: &'static str,
}

const FUNCS: [Func; 20] = [
    Func {
        name: "abs",
        expr: "abs(x)",
    },
    Func {
        name: "abs_diff",
        expr: "abs_diff(x, y)",
    },
    Func {
        name: "add_sat",
        expr: "add_sat(x, y)",
    },
    Func {
        name: "sub_sat",
        expr: "sub_sat(x, y)",
    },
    Func {
        name: "hadd",
        expr: "hadd(x, y)",
    },
    Func {
        name: "rhadd",
        expr: "rhadd(x, y)",
    },
    Func {
        name: "clamp",
        expr: "clamp(x, y, z)",
    },
    Func {
        name: "clz",
        expr: "clz(x)",
    },
    Func {
        name: "popcount",
        expr: "popcount(x)",
    },
    Func {
        name: "mad_hi",
        expr: "mad_hi(x, y, z)",
    },
    Func {
        name: "mad_sat",
        expr: "mad_sat(x, y, z)",
    },
    Func {
        name: "max",
        expr: "max(x, y)",
    },
    Func {
        name: "min",
        expr: "min(x, y)",
    },
    Func {
        name: "mul_hi",
        expr: "mul_hi(x, y)",
    },
    Func {
        name: "rotate",
        expr: "rotate(x, y)",
    },
    Func {
        name: "upsample",
        expr: "upsample(x, y)",
    },
    Func {
        name: "mad24",
        expr: "mad24(x, y, z)",
    },
    Func {
        name: "mul24",
        expr: "mul24(x, y)",
    },
    Func {
        name: "div",
        expr: "x / y",
    },
    Func {
        name: "rem",
        expr: "x % y",
    },
];

fn applies(f: &str, t: Ty) -> bool {
    match f {
        "upsample" => t.bits < 64,
        "mad24" | "mul24" => t.bits == 32,
        _ => true,
    }
}

/// The type of `y` in `f`'s kernel (upsample's low half is unsigned).
fn y_type(f: &str, t: Ty) -> Ty {
    if f == "upsample" { t.unsigned() } else { t }
}

/// The result type of `f` on `t`.
fn result_type(f: &str, t: Ty) -> Ty {
    match f {
        "abs" | "abs_diff" => t.unsigned(),
        "upsample" => t.wider(),
        _ => t,
    }
}

/// Moves operands into `f`'s defined domain.
fn prepare(f: &str, t: Ty, x: i128, y: i128, z: i128) -> (i128, i128, i128) {
    match f {
        "clamp" => (x, y.min(z), y.max(z)),
        "mul24" | "mad24" => {
            // [-2^23, 2^23 - 1] for int, [0, 2^24 - 1] for uint.
            let lo24 = |v: i128| {
                if t.signed {
                    ((v as i32) << 8 >> 8) as i128
                } else {
                    v & 0xff_ffff
                }
            };
            (lo24(x), lo24(y), z)
        }
        "div" | "rem" => {
            let y = if y == 0 || (t.signed && x == t.min() && y == -1) {
                3
            } else {
                y
            };
            (x, y, z)
        }
        "upsample" => (x, t.ubits(y) as i128, z),
        _ => (x, y, z),
    }
}

/// `mul_hi(x, y)`: the high half of the full product.
fn mul_hi(t: Ty, x: i128, y: i128) -> i128 {
    if t.signed {
        (x * y) >> t.bits
    } else {
        ((x as u128 * y as u128) >> t.bits) as i128
    }
}

/// The spec's definition of `f` (section 6.12.3), in the result type.
fn reference(f: &str, t: Ty, x: i128, y: i128, z: i128) -> i128 {
    let r = result_type(f, t);
    let v = match f {
        // "Returns |x|."
        "abs" => x.abs(),
        // "Returns |x - y| without modulo overflow."
        "abs_diff" => (x - y).abs(),
        // "Returns x + y and saturates the result."
        "add_sat" => t.sat(x + y),
        // "Returns x - y and saturates the result."
        "sub_sat" => t.sat(x - y),
        // "Returns (x + y) >> 1. The intermediate sum does not modulo overflow."
        "hadd" => (x + y) >> 1,
        // "Returns (x + y + 1) >> 1. The intermediate sum does not modulo overflow."
        "rhadd" => (x + y + 1) >> 1,
        // "Returns min(max(x, minval), maxval)."
        "clamp" => x.max(y).min(z),
        // "Returns the number of leading 0-bits in x, starting at the most significant bit."
        "clz" => i128::from(t.bits - (128 - t.ubits(x).leading_zeros())),
        // "Returns the number of non-zero bits in x."
        "popcount" => i128::from(t.ubits(x).count_ones()),
        // "Returns mul_hi(a, b) + c."
        "mad_hi" => mul_hi(t, x, y) + z,
        // "Returns a * b + c and saturates the result."
        "mad_sat" => {
            if t.signed || t.bits < 64 {
                t.sat(x * y + z)
            } else {
                let p = (x as u128 * y as u128).checked_add(z as u128);
                p.map_or(t.max(), |p| p.min(t.max() as u128) as i128)
            }
        }
        "max" => x.max(y),
        "min" => x.min(y),
        "mul_hi" => mul_hi(t, x, y),
        // "For each element in v, the bits are shifted left by the number of bits given by
        // the corresponding element in i (subject to usual shift modulo rules ...). Bits
        // shifted off the left side of the element are shifted back in from the right."
        "rotate" => {
            let (u, s) = (t.ubits(x), t.ubits(y) as u32 % t.bits);
            let m = (1u128 << t.bits) - 1;
            (((u << s) | (u >> ((t.bits - s) % t.bits))) & m) as i128
        }
        // "result[i] = ((short)hi[i] << 8) | lo[i]" (and likewise for wider types).
        "upsample" => (x << t.bits) | y,
        "mad24" => x * y + z,
        "mul24" => x * y,
        // C99 division truncates toward zero; % has the sign of the dividend.
        "div" => x / y,
        "rem" => x % y,
        _ => unreachable!("{f}"),
    };
    r.wrap(v)
}

/// The kernel `{f}_{n}` of type `t` at width `n`.
fn kernel_source(f: &Func, t: Ty, n: usize) -> String {
    let (yt, rt) = (y_type(f.name, t), result_type(f.name, t));
    let vec = |ty: Ty| {
        if n == 1 {
            ty.name.to_string()
        } else {
            format!("{}{n}", ty.name)
        }
    };
    let load = |p: &str| {
        if n == 1 {
            format!("{p}[i]")
        } else {
            format!("vload{n}(i, {p})")
        }
    };
    let store = if n == 1 {
        "out[i] = r;".to_string()
    } else {
        format!("vstore{n}(r, i, out);")
    };
    format!(
        "kernel void {name}_{n}(global const {t} *a, global const {yt} *b, global const {t} *c,\n\
         \x20                  global {rt} *out) {{\n\
         \x20 size_t i = get_global_id(0);\n\
         \x20 {vt} x = {la}, z = {lc};\n\
         \x20 {vyt} y = {lb};\n\
         \x20 {vrt} r = {expr};\n\
         \x20 {store}\n\
         }}\n",
        name = f.name,
        t = t.name,
        yt = yt.name,
        rt = rt.name,
        vt = vec(t),
        vyt = vec(yt),
        vrt = vec(rt),
        la = load("a"),
        lb = load("b"),
        lc = load("c"),
        expr = f.expr,
    )
}

/// Inputs for `t`: the cross product of the edge values for (x, y), with z cycling through
/// them too, then random values.
fn inputs(t: Ty, rng: &mut Rng) -> [Vec<i128>; 3] {
    let e = t.edges();
    let mut x = Vec::with_capacity(N);
    let (mut y, mut z) = (x.clone(), x.clone());
    for (k, (&a, &b)) in e
        .iter()
        .flat_map(|a| e.iter().map(move |b| (a, b)))
        .enumerate()
    {
        x.push(a);
        y.push(b);
        z.push(e[(k * 7 + 3) % e.len()]);
    }
    assert!(x.len() <= N);
    while x.len() < N {
        x.push(t.random(rng));
        y.push(t.random(rng));
        z.push(if rng.next_u64().is_multiple_of(3) {
            e[rng.next_u64() as usize % e.len()]
        } else {
            t.random(rng)
        });
    }
    [x, y, z]
}

/// Runs every function on type `t` at every width and compares with the reference.
fn check_type(t: Ty) {
    check_funcs(t, |_| true);
}

/// Runs the functions `want` selects on type `t` at every width.
fn check_funcs(t: Ty, want: impl Fn(&str) -> bool) {
    let fx = Fixture::new();
    let funcs: Vec<&Func> = FUNCS
        .iter()
        .filter(|f| applies(f.name, t) && want(f.name))
        .collect();
    let source: String = funcs
        .iter()
        .flat_map(|f| WIDTHS.iter().map(move |&n| kernel_source(f, t, n)))
        .collect();
    let mut rng = Rng(0x1e7_0000 + u64::from(t.bits) * 2 + u64::from(t.signed));
    let [x0, y0, z0] = inputs(t, &mut rng);
    let mut failures = Vec::new();
    let first = fx.kernel(
        &source,
        &CString::new(format!("{}_1", funcs[0].name)).unwrap(),
        c"",
    );
    for f in funcs {
        let (yt, rt) = (y_type(f.name, t), result_type(f.name, t));
        let (mut x, mut y, mut z) = (x0.clone(), y0.clone(), z0.clone());
        for i in 0..N {
            (x[i], y[i], z[i]) = prepare(f.name, t, x[i], y[i], z[i]);
        }
        let expected: Vec<i128> = (0..N)
            .map(|i| reference(f.name, t, x[i], y[i], z[i]))
            .collect();
        let (ba, bb, bc) = (
            fx.buffer(&t.encode(&x)),
            fx.buffer(&yt.encode(&y)),
            fx.buffer(&t.encode(&z)),
        );
        for n in WIDTHS {
            let k = first.sibling(&format!("{}_{n}", f.name));
            let out = fx.filled(0xa5u8, N * rt.bytes());
            k.mem(0, &ba).mem(1, &bb).mem(2, &bc).mem(3, &out);
            fx.run(&k, None, &[N / n], None);
            let got = rt.decode(&fx.read::<u8>(&out, N * rt.bytes()));
            if let Some(i) = (0..N).find(|&i| got[i] != expected[i]) {
                let bad = (0..N).filter(|&i| got[i] != expected[i]).count();
                failures.push(format!(
                    "{} on {}{n} (`{}`): element {i} (x = {}, y = {}, z = {}): got {}, \
                     expected {} ({bad} of {N} differ)",
                    f.name, t.name, f.expr, x[i], y[i], z[i], got[i], expected[i]
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// One test per type, so that a failure names the type and the others still run.

/// "abs, abs_diff, add_sat, hadd, rhadd, clamp, clz, popcount, mad_hi, mad_sat, max, min,
/// mul_hi, rotate, sub_sat, upsample" (6.12.3), and "The arithmetic operators ... /, % ...
/// operate on built-in scalar and vector integer types" (6.3.a) on `char`.
#[test]
fn char_ops() {
    check_type(TYPES[0]);
}

/// "gentype ... the integer functions ... gentype indicates char, charn, uchar, ucharn,
/// ..." (6.12.3): every integer built-in and `/`, `%` on `uchar`.
#[test]
fn uchar_ops() {
    check_type(TYPES[1]);
}

/// "gentype ... short, shortn" (6.12.3): every integer built-in and `/`, `%` on `short`.
#[test]
fn short_ops() {
    check_type(TYPES[2]);
}

/// "gentype ... ushort, ushortn" (6.12.3): every integer built-in and `/`, `%` on `ushort`.
#[test]
fn ushort_ops() {
    check_type(TYPES[3]);
}

/// "mad24: Multiply two 24-bit integer values x and y and add the 32-bit integer result to
/// the 32-bit integer z" and "mul24 ... should only be used when values in x and y are in
/// the range [-2^23, 2^23-1] if x and y are signed integers" (6.12.3), with every other
/// integer built-in and `/`, `%`, on `int`.
#[test]
fn int_ops() {
    check_type(TYPES[4]);
}

/// "mul24 ... in the range [0, 2^24-1] if x and y are unsigned integers" (6.12.3), with
/// every other integer built-in and `/`, `%`, on `uint`.
#[test]
fn uint_ops() {
    check_type(TYPES[5]);
}

/// "mul_hi: Computes x * y and returns the high half of the product of x and y" (6.12.3),
/// with every other integer built-in and `/`, `%`, on `long`.
#[test]
fn long_ops() {
    check_type(TYPES[6]);
}

/// "mad_sat: Returns a * b + c and saturates the result" (6.12.3), with every other
/// integer built-in and `/`, `%`, on `ulong`.
#[test]
fn ulong_ops() {
    check_type(TYPES[7]);
}

/// "abs_diff: Returns |x - y| without modulo overflow", "mul_hi: Computes x * y and
/// returns the high half of the product", "mad_hi: Returns mul_hi(a, b) + c", "mad_sat:
/// Returns a * b + c and saturates the result", "hadd: Returns (x + y) >> 1. The
/// intermediate sum does not modulo overflow", and `rhadd` (6.12.3), on `char` and `short`.
///
/// These builtins are Rust functions called from JIT code: a regression test for the
/// calling convention, under which the caller must sign-extend a negative `char`/`short`
/// argument to 32 bits (before the fix, -128 arrived as 128: `abs_diff((char)-128,
/// (char)1)` gave 127, not 129, and `hadd` on `short` overflowed inside the builtin).
#[test]
fn narrow_signed_arguments() {
    for t in [TYPES[0], TYPES[2]] {
        check_funcs(t, |f| {
            matches!(
                f,
                "abs_diff" | "hadd" | "rhadd" | "mul_hi" | "mad_hi" | "mad_sat"
            )
        });
    }
}
