//! The CTS area `relationals`: the relational built-in functions of OpenCL C 1.2
//! (section 6.12.6) through the loader, compared exactly with host references written here
//! from the spec: the comparison and classification functions on `float` and `double` at
//! widths 1, 2, 3, 4, 8 and 16 over special values (±0, ±inf, NaN, denormals, FLT_MIN/MAX),
//! `any` and `all` on every signed integer type, and `select` and `bitselect` on integer
//! and floating-point types.
//!
//! Kernels are generated from type tables, one program per test, each kernel loading its
//! operands with `vloadn` (plain indexing at width 1); floating-point values travel as bit
//! patterns so that NaN and -0 compare exactly.

use clift_conformance::kernel_fixture::*;
use clift_conformance::*;

const WIDTHS: [usize; 6] = [1, 2, 3, 4, 8, 16];

/// The number of elements of each array: a multiple of 16 and 3.
const N: usize = 480;

const FP64: &str = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";

/// `name` at width `n` (`n` = 1: the scalar type).
fn vec_name(name: &str, n: usize) -> String {
    if n == 1 {
        name.to_string()
    } else {
        format!("{name}{n}")
    }
}

fn load(p: &str, n: usize) -> String {
    if n == 1 {
        format!("{p}[i]")
    } else {
        format!("vload{n}(i, {p})")
    }
}

fn store(v: &str, p: &str, n: usize) -> String {
    if n == 1 {
        format!("{p}[i] = {v};")
    } else {
        format!("vstore{n}({v}, i, {p});")
    }
}

/// Little-endian encoding of the low `size` bytes of each value.
fn encode(values: &[u64], size: usize) -> Vec<u8> {
    values
        .iter()
        .flat_map(|v| v.to_le_bytes()[..size].to_vec())
        .collect()
}

/// Decoding of `size`-byte values, sign-extended.
fn decode(bytes: &[u8], size: usize) -> Vec<i64> {
    bytes
        .chunks(size)
        .map(|c| {
            let mut b = [0u8; 8];
            b[..size].copy_from_slice(c);
            let shift = 64 - 8 * size as u32;
            (i64::from_le_bytes(b) << shift) >> shift
        })
        .collect()
}

/// Runs kernel `name` of `first`'s program over `inputs` (one per argument, `size` bytes
/// per element) writing `out_count` values of `out_size` bytes, and returns them.
fn run(
    fx: &Fixture,
    first: &Kernel,
    name: &str,
    inputs: &[(Vec<u64>, usize)],
    items: usize,
    out_count: usize,
    out_size: usize,
) -> Vec<i64> {
    let k = first.sibling(name);
    let bufs: Vec<Mem> = inputs
        .iter()
        .map(|(v, s)| fx.buffer(&encode(v, *s)))
        .collect();
    let out = fx.filled(0x5au8, out_count * out_size);
    for (j, b) in bufs.iter().enumerate() {
        k.mem(j as cl_uint, b);
    }
    k.mem(bufs.len() as cl_uint, &out);
    fx.run(&k, None, &[items], None);
    decode(&fx.read::<u8>(&out, out_count * out_size), out_size)
}

/// Panics naming the first element where `got` and `expected` differ.
fn compare(got: &[i64], expected: &[i64], what: &str, input: impl Fn(usize) -> String) {
    if let Some(i) = (0..got.len()).find(|&i| got[i] != expected[i]) {
        let bad = (0..got.len()).filter(|&i| got[i] != expected[i]).count();
        panic!(
            "{what}: element {i} ({}): got {:#x}, expected {:#x} ({bad} of {} differ)",
            input(i),
            got[i],
            expected[i],
            got.len()
        );
    }
}

// Comparison and classification

/// A floating-point type: name, the integer type of its vector results, size.
struct Fp {
    name: &'static str,
    int: &'static str,
    size: usize,
}

const FPS: [Fp; 2] = [
    Fp {
        name: "float",
        int: "int",
        size: 4,
    },
    Fp {
        name: "double",
        int: "long",
        size: 8,
    },
];

/// A value of `fp` as f64 (exact: f32 widens exactly, NaN stays NaN, sign kept).
fn value(fp: &Fp, bits: u64) -> f64 {
    if fp.size == 4 {
        f64::from(f32::from_bits(bits as u32))
    } else {
        f64::from_bits(bits)
    }
}

/// Special values of `fp` as bit patterns.
fn specials(fp: &Fp) -> Vec<u64> {
    if fp.size == 4 {
        let f = |v: f32| u64::from(v.to_bits());
        vec![
            f(0.0),
            f(-0.0),
            f(f32::INFINITY),
            f(f32::NEG_INFINITY),
            0x7fc0_0000,
            0xffc0_0001,
            0x7f80_0001,
            1,
            0x8000_0001,
            0x007f_ffff,
            f(f32::MIN_POSITIVE),
            f(-f32::MIN_POSITIVE),
            f(f32::MAX),
            f(f32::MIN),
            f(1.0),
            f(-1.0),
            f(1.5),
            f(-2.5),
            f(1.0 + f32::EPSILON),
        ]
    } else {
        let f = |v: f64| v.to_bits();
        vec![
            f(0.0),
            f(-0.0),
            f(f64::INFINITY),
            f(f64::NEG_INFINITY),
            0x7ff8_0000_0000_0000,
            0xfff8_0000_0000_0001,
            0x7ff0_0000_0000_0001,
            1,
            0x8000_0000_0000_0001,
            0x000f_ffff_ffff_ffff,
            f(f64::MIN_POSITIVE),
            f(-f64::MIN_POSITIVE),
            f(f64::MAX),
            f(f64::MIN),
            f(1.0),
            f(-1.0),
            f(1.5),
            f(-2.5),
            f(1.0 + f64::EPSILON),
        ]
    }
}

/// The comparison and classification functions with their arity and reference.
type Pred = fn(f64, f64, u64, usize) -> bool;

const PREDICATES: [(&str, usize, Pred); 14] = [
    ("isequal", 2, |x, y, _, _| x == y),
    ("isnotequal", 2, |x, y, _, _| x != y),
    ("isgreater", 2, |x, y, _, _| x > y),
    ("isgreaterequal", 2, |x, y, _, _| x >= y),
    ("isless", 2, |x, y, _, _| x < y),
    ("islessequal", 2, |x, y, _, _| x <= y),
    ("islessgreater", 2, |x, y, _, _| {
        x.partial_cmp(&y).is_some_and(|o| o.is_ne())
    }),
    ("isfinite", 1, |x, _, _, _| x.is_finite()),
    ("isinf", 1, |x, _, _, _| x.is_infinite()),
    ("isnan", 1, |x, _, _, _| x.is_nan()),
    // Normal in the argument's own format (an f32 denormal is normal as an f64).
    ("isnormal", 1, |_, _, bits, size| {
        if size == 4 {
            f32::from_bits(bits as u32).is_normal()
        } else {
            f64::from_bits(bits).is_normal()
        }
    }),
    ("isordered", 2, |x, y, _, _| !x.is_nan() && !y.is_nan()),
    ("isunordered", 2, |x, y, _, _| x.is_nan() || y.is_nan()),
    ("signbit", 1, |_, _, bits, size| {
        bits >> (8 * size - 1) & 1 == 1
    }),
];

fn check_predicates(fp: &Fp) {
    let fx = Fixture::new();
    let mut source = String::from(if fp.size == 8 { FP64 } else { "" });
    for (name, arity, _) in PREDICATES {
        for n in WIDTHS {
            let rt = if n == 1 {
                "int".to_string()
            } else {
                vec_name(fp.int, n)
            };
            let args = if arity == 1 { "x" } else { "x, y" };
            source += &format!(
                "kernel void {name}_{n}(global const {t} *a, global const {t} *b,\n\
                 \x20                  global {ri} *out) {{\n\
                 \x20 size_t i = get_global_id(0);\n\
                 \x20 {vt} x = {la}, y = {lb};\n\
                 \x20 {rt} r = {name}({args});\n\
                 \x20 {st}\n\
                 }}\n",
                t = fp.name,
                ri = if n == 1 { "int" } else { fp.int },
                vt = vec_name(fp.name, n),
                la = load("a", n),
                lb = load("b", n),
                st = store("r", "out", n),
            );
        }
    }
    let first = fx.kernel(&source, c"isequal_1", c"");
    let s = specials(fp);
    let mut rng = Rng(0xf10a7 + fp.size as u64);
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for &a in &s {
        for &b in &s {
            x.push(a);
            y.push(b);
        }
    }
    while x.len() < N {
        let mut random = || {
            if fp.size == 4 {
                u64::from(rng.next_u64() as u32)
            } else {
                rng.next_u64()
            }
        };
        x.push(random());
        y.push(if x.len() % 3 == 0 {
            x[x.len() - 1]
        } else {
            random()
        });
    }
    for (name, _, pred) in PREDICATES {
        for n in WIDTHS {
            let out_size = if n == 1 { 4 } else { fp.size };
            let truth = if n == 1 { 1 } else { -1 };
            let expected: Vec<i64> = (0..N)
                .map(|i| {
                    let v = pred(value(fp, x[i]), value(fp, y[i]), x[i], fp.size);
                    if v { truth } else { 0 }
                })
                .collect();
            let got = run(
                &fx,
                &first,
                &format!("{name}_{n}"),
                &[(x.clone(), fp.size), (y.clone(), fp.size)],
                N / n,
                N,
                out_size,
            );
            compare(
                &got,
                &expected,
                &format!("{name} on {}", vec_name(fp.name, n)),
                |i| {
                    format!(
                        "x = {:?} ({:#x}), y = {:?} ({:#x})",
                        value(fp, x[i]),
                        x[i],
                        value(fp, y[i]),
                        y[i]
                    )
                },
            );
        }
    }
}

/// "The functions described in table 6.14 ... return 0 if the specified relation is false
/// and 1 if the specified relation is true for scalar argument types. These functions
/// shall return 0 if the specified relation is false and -1 (i.e. all bits set) if the
/// specified relation is true for vector argument types" (6.12.6), on `float`: isequal,
/// isnotequal, isgreater, isgreaterequal, isless, islessequal, islessgreater, isfinite,
/// isinf, isnan, isnormal, isordered, isunordered and signbit.
#[test]
fn float_comparisons_and_classification() {
    check_predicates(&FPS[0]);
}

/// "The relational functions isequal, isgreater, isgreaterequal, isless, islessequal, and
/// islessgreater always return 0 if either argument is not a number (NaN). isnotequal
/// returns 1 if one or both arguments are not a number (NaN) and the argument type is a
/// scalar and returns -1 ... if ... the argument type is a vector" (6.12.6), on `double`
/// (scalar results `int`, vector results `longn`), with every other relational predicate.
#[test]
fn double_comparisons_and_classification() {
    check_predicates(&FPS[1]);
}

// any and all

const SIGNED: [(&str, usize); 4] = [("char", 1), ("short", 2), ("int", 4), ("long", 8)];

/// "any: Returns 1 if the most significant bit in any component of x is set; otherwise
/// returns 0. all: Returns 1 if the most significant bit in all components of x is set;
/// otherwise returns 0" (6.12.6), on every signed integer type at every width.
#[test]
fn any_and_all_test_the_most_significant_bit() {
    let fx = Fixture::new();
    let mut source = String::new();
    for (t, _) in SIGNED {
        for f in ["any", "all"] {
            for n in WIDTHS {
                source += &format!(
                    "kernel void {f}_{t}{n}(global const {t} *a, global int *out) {{\n\
                     \x20 size_t i = get_global_id(0);\n\
                     \x20 out[i] = {f}({l});\n\
                     }}\n",
                    l = load("a", n),
                );
            }
        }
    }
    let first = fx.kernel(&source, c"any_char1", c"");
    let mut rng = Rng(0xa11);
    for (t, size) in SIGNED {
        let msb = 1u64 << (8 * size - 1);
        for n in WIDTHS {
            // Vector k: every MSB set, none, exactly one, or random ones (low bits random).
            let x: Vec<u64> = (0..N)
                .map(|i| {
                    let low = rng.next_u64() & (msb - 1);
                    let set = match (i / n) % 4 {
                        0 => true,
                        1 => false,
                        2 => i % n == (i / n) % n,
                        _ => rng.next_u64().is_multiple_of(2),
                    };
                    low | if set { msb } else { 0 }
                })
                .collect();
            for f in ["any", "all"] {
                let expected: Vec<i64> = x
                    .chunks(n)
                    .map(|lanes| {
                        let set = |v: &u64| v & msb != 0;
                        let r = if f == "any" {
                            lanes.iter().any(set)
                        } else {
                            lanes.iter().all(set)
                        };
                        i64::from(r)
                    })
                    .collect();
                let got = run(
                    &fx,
                    &first,
                    &format!("{f}_{t}{n}"),
                    &[(x.clone(), size)],
                    N / n,
                    N / n,
                    4,
                );
                compare(
                    &got,
                    &expected,
                    &format!("{f} on {}", vec_name(t, n)),
                    |i| format!("x = {:x?}", &x[i * n..(i + 1) * n]),
                );
            }
        }
    }
}

// select and bitselect

/// Types for `select` and `bitselect`: name, size, the signed and unsigned integer types of
/// the same size, whether it is `double`.
const SELECT_TYPES: [(&str, usize, &str, &str); 9] = [
    ("char", 1, "char", "uchar"),
    ("uchar", 1, "char", "uchar"),
    ("short", 2, "short", "ushort"),
    ("int", 4, "int", "uint"),
    ("uint", 4, "int", "uint"),
    ("long", 8, "long", "ulong"),
    ("ulong", 8, "long", "ulong"),
    ("float", 4, "int", "uint"),
    ("double", 8, "long", "ulong"),
];

/// "select: For each component of a vector type, result[i] = if MSB of c[i] is set ? b[i]
/// : a[i]. For a scalar type, result = c ? b : a. igentype and ugentype must have the same
/// number of elements and bits as gentype" and "bitselect: Each bit of the result is the
/// corresponding bit of a if the corresponding bit of c is 0. Otherwise it is the
/// corresponding bit of b" (6.12.6), on integer and floating-point types at every width,
/// with `c` signed and unsigned.
#[test]
fn select_and_bitselect() {
    let fx = Fixture::new();
    let mut source = String::from(FP64);
    for (t, _, it, ut) in SELECT_TYPES {
        for n in WIDTHS {
            for (kname, ct, expr) in [
                ("select_s", it, "select(x, y, z)"),
                ("select_u", ut, "select(x, y, z)"),
                ("bitselect", t, "bitselect(x, y, z)"),
            ] {
                source += &format!(
                    "kernel void {kname}_{t}{n}(global const {t} *a, global const {t} *b,\n\
                     \x20                  global const {ct} *c, global {t} *out) {{\n\
                     \x20 size_t i = get_global_id(0);\n\
                     \x20 {vt} x = {la}, y = {lb};\n\
                     \x20 {vc} z = {lc};\n\
                     \x20 {vt} r = {expr};\n\
                     \x20 {st}\n\
                     }}\n",
                    vt = vec_name(t, n),
                    vc = vec_name(ct, n),
                    la = load("a", n),
                    lb = load("b", n),
                    lc = load("c", n),
                    st = store("r", "out", n),
                );
            }
        }
    }
    let first = fx.kernel(&source, c"select_s_char1", c"");
    let mut rng = Rng(0x5e1ec7);
    for (t, size, _, _) in SELECT_TYPES {
        let mask = if size == 8 {
            u64::MAX
        } else {
            (1u64 << (8 * size)) - 1
        };
        let msb = 1u64 << (8 * size - 1);
        let mut random = || rng.next_u64() & mask;
        let a: Vec<u64> = (0..N).map(|_| random()).collect();
        let b: Vec<u64> = (0..N).map(|_| random()).collect();
        // c: 0, 1, MSB alone, all ones, MSB clear with other bits, random.
        let c: Vec<u64> = (0..N)
            .map(|i| match i % 6 {
                0 => 0,
                1 => 1,
                2 => msb,
                3 => mask,
                4 => random() & !msb | 1,
                _ => random(),
            })
            .collect();
        let signed = |v: u64| {
            let shift = 64 - 8 * size as u32;
            ((v << shift) as i64) >> shift
        };
        for n in WIDTHS {
            for kname in ["select_s", "select_u", "bitselect"] {
                let expected: Vec<i64> = (0..N)
                    .map(|i| {
                        let r = if kname == "bitselect" {
                            (a[i] & !c[i]) | (b[i] & c[i])
                        } else if (n == 1 && c[i] != 0) || (n > 1 && c[i] & msb != 0) {
                            b[i]
                        } else {
                            a[i]
                        };
                        signed(r)
                    })
                    .collect();
                let got = run(
                    &fx,
                    &first,
                    &format!("{kname}_{t}{n}"),
                    &[(a.clone(), size), (b.clone(), size), (c.clone(), size)],
                    N / n,
                    N,
                    size,
                );
                compare(
                    &got,
                    &expected,
                    &format!("{kname} on {}", vec_name(t, n)),
                    |i| format!("a = {:#x}, b = {:#x}, c = {:#x}", a[i], b[i], c[i]),
                );
            }
        }
    }
}
