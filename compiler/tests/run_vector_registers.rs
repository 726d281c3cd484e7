//! Explicit vector types in vector registers in the scalar code path
//! (`codegen/func/packed.rs`): every mapped operation, for every element type and width
//! 2/3/4/8/16, runs with vector registers and lane by lane (`CodegenOptions::lanes_only`, as
//! today's code did), and both outputs must equal, bit for bit, the value computed here on
//! the host from OpenCL's definition of each operation.

mod common;

use std::sync::Arc;

use clift_compiler::build::{BuildOptions, build};
use clift_compiler::codegen::CodegenOptions;
use clift_compiler::frontend::sema;
use clift_compiler::kernel::KernelCode;
use clift_compiler::stages;

/// An element type: its OpenCL name, width, signedness and whether it is floating.
#[derive(Clone, Copy, Debug)]
struct Elem {
    name: &'static str,
    bits: u32,
    signed: bool,
    float: bool,
}

const fn int(name: &'static str, bits: u32, signed: bool) -> Elem {
    Elem {
        name,
        bits,
        signed,
        float: false,
    }
}

const FLOAT: Elem = Elem {
    name: "float",
    bits: 32,
    signed: true,
    float: true,
};
const DOUBLE: Elem = Elem {
    name: "double",
    bits: 64,
    signed: true,
    float: true,
};
const ELEMS: [Elem; 10] = [
    FLOAT,
    DOUBLE,
    int("int", 32, true),
    int("uint", 32, false),
    int("long", 64, true),
    int("ulong", 64, false),
    int("short", 16, true),
    int("ushort", 16, false),
    int("char", 8, true),
    int("uchar", 8, false),
];
const WIDTHS: [usize; 5] = [2, 3, 4, 8, 16];

impl Elem {
    fn mask(self) -> u64 {
        if self.bits == 64 {
            u64::MAX
        } else {
            (1u64 << self.bits) - 1
        }
    }

    /// The signed integer type of the same width (comparison results).
    fn int_name(self) -> &'static str {
        match self.bits {
            8 => "char",
            16 => "short",
            32 => "int",
            _ => "long",
        }
    }

    fn size(self) -> usize {
        self.bits as usize / 8
    }

    fn signed_value(self, x: u64) -> i128 {
        let x = x & self.mask();
        if self.signed && x >> (self.bits - 1) & 1 == 1 {
            i128::from(x) - (1i128 << self.bits)
        } else {
            i128::from(x)
        }
    }

    fn f(self, x: u64) -> f64 {
        if self.bits == 32 {
            f64::from(f32::from_bits(x as u32))
        } else {
            f64::from_bits(x)
        }
    }

    /// The bits of `v` rounded once to this float type (exact for results computed in
    /// double from float operands where double holds them exactly).
    fn rounded_bits(self, v: f64) -> u64 {
        if self.bits == 32 {
            u64::from((v as f32).to_bits())
        } else {
            v.to_bits()
        }
    }

    fn lt(self, x: u64, y: u64) -> bool {
        if self.float {
            self.f(x) < self.f(y)
        } else {
            self.signed_value(x) < self.signed_value(y)
        }
    }

    fn eq(self, x: u64, y: u64) -> bool {
        if self.float {
            self.f(x) == self.f(y)
        } else {
            x & self.mask() == y & self.mask()
        }
    }

    fn is_zero(self, x: u64) -> bool {
        if self.float {
            self.f(x) == 0.0
        } else {
            x & self.mask() == 0
        }
    }
}

/// A float binary operation done in the element's own precision (one rounding).
fn float_op(e: Elem, x: u64, y: u64, op: char) -> u64 {
    if e.bits == 32 {
        let (a, b) = (f32::from_bits(x as u32), f32::from_bits(y as u32));
        u64::from(
            match op {
                '+' => a + b,
                '-' => a - b,
                '*' => a * b,
                _ => a / b,
            }
            .to_bits(),
        )
    } else {
        let (a, b) = (f64::from_bits(x), f64::from_bits(y));
        match op {
            '+' => a + b,
            '-' => a - b,
            '*' => a * b,
            _ => a / b,
        }
        .to_bits()
    }
}

/// Integer wrapping arithmetic, as bits of the element type.
fn int_op(e: Elem, x: u64, y: u64, op: char) -> u64 {
    let (a, b) = (e.signed_value(x), e.signed_value(y));
    let r = match op {
        '+' => a.wrapping_add(b),
        '-' => a.wrapping_sub(b),
        // Low bits of the product: the same for either signedness.
        _ => (x as u128).wrapping_mul(y as u128) as i128,
    };
    r as u64 & e.mask()
}

fn fma(e: Elem, x: u64, y: u64, z: u64) -> u64 {
    if e.bits == 32 {
        let (a, b, c) = (
            f32::from_bits(x as u32),
            f32::from_bits(y as u32),
            f32::from_bits(z as u32),
        );
        u64::from(a.mul_add(b, c).to_bits())
    } else {
        f64::from_bits(x)
            .mul_add(f64::from_bits(y), f64::from_bits(z))
            .to_bits()
    }
}

/// The operations of the test kernel: its OpenCL C expression (of `x`, `y` and the scalar
/// `s`, a lane of `y`) and the host's value of one lane.
struct Op {
    text: &'static str,
    host: fn(Elem, u64, u64, u64) -> u64,
}

/// `clamp(x, min(y, s), max(y, s))` as clift computes it (float `min` / `max` as the
/// comparisons they are defined by; integer ones exact).
fn clamp(e: Elem, x: u64, y: u64, s: u64) -> u64 {
    let lo = select(e, e.lt(s, y), s, y);
    let hi = select(e, e.lt(y, s), s, y);
    let m = select(e, e.lt(x, lo), lo, x);
    select(e, e.lt(hi, m), hi, m)
}

fn select(e: Elem, c: bool, a: u64, b: u64) -> u64 {
    (if c { a } else { b }) & e.mask()
}

const FLOAT_OPS: &[Op] = &[
    Op {
        text: "x + y",
        host: |e, x, y, _| float_op(e, x, y, '+'),
    },
    Op {
        text: "x - y",
        host: |e, x, y, _| float_op(e, x, y, '-'),
    },
    Op {
        text: "x * y",
        host: |e, x, y, _| float_op(e, x, y, '*'),
    },
    Op {
        text: "x / y",
        host: |e, x, y, _| float_op(e, x, y, '/'),
    },
    Op {
        text: "x * s",
        host: |e, x, _, s| float_op(e, x, s, '*'),
    },
    Op {
        text: "-x",
        host: |e, x, _, _| x ^ (1 << (e.bits - 1)),
    },
    Op {
        text: "mad(x, y, x)",
        host: |e, x, y, _| float_op(e, float_op(e, x, y, '*'), x, '+'),
    },
    Op {
        text: "fma(x, y, y)",
        host: |e, x, y, _| fma(e, x, y, y),
    },
    Op {
        text: "min(x, y)",
        host: |e, x, y, _| select(e, e.lt(y, x), y, x),
    },
    Op {
        text: "max(x, y)",
        host: |e, x, y, _| select(e, e.lt(x, y), y, x),
    },
    Op {
        text: "max(x, s)",
        host: |e, x, _, s| select(e, e.lt(x, s), s, x),
    },
    Op {
        text: "clamp(x, min(y, s), max(y, s))",
        host: |e, x, y, s| clamp(e, x, y, s),
    },
    Op {
        text: "fabs(x)",
        host: |e, x, _, _| x & (e.mask() >> 1),
    },
    Op {
        text: "sqrt(fabs(x))",
        host: |e, x, _, _| {
            if e.bits == 32 {
                u64::from(f32::from_bits(x as u32).abs().sqrt().to_bits())
            } else {
                f64::from_bits(x).abs().sqrt().to_bits()
            }
        },
    },
    Op {
        text: "floor(x)",
        host: |e, x, _, _| e.rounded_bits(e.f(x).floor()),
    },
    Op {
        text: "ceil(x)",
        host: |e, x, _, _| e.rounded_bits(e.f(x).ceil()),
    },
    Op {
        text: "trunc(x)",
        host: |e, x, _, _| e.rounded_bits(e.f(x).trunc()),
    },
    Op {
        text: "rint(x)",
        host: |e, x, _, _| e.rounded_bits(e.f(x).round_ties_even()),
    },
    Op {
        text: "select(x, y, x < y)",
        host: |e, x, y, _| select(e, e.lt(x, y), y, x),
    },
    Op {
        text: "bitselect(x, y, x * y)",
        host: |e, x, y, _| {
            let c = float_op(e, x, y, '*');
            (y & c) | (x & !c & e.mask())
        },
    },
    Op {
        text: "x > y ? x : y",
        host: |e, x, y, _| select(e, e.lt(y, x), x, y),
    },
];

const INT_OPS: &[Op] = &[
    Op {
        text: "x + y",
        host: |e, x, y, _| int_op(e, x, y, '+'),
    },
    Op {
        text: "x - y",
        host: |e, x, y, _| int_op(e, x, y, '-'),
    },
    Op {
        text: "x * y",
        host: |e, x, y, _| int_op(e, x, y, '*'),
    },
    Op {
        text: "x & y",
        host: |_, x, y, _| x & y,
    },
    Op {
        text: "x | y",
        host: |_, x, y, _| x | y,
    },
    Op {
        text: "x ^ y",
        host: |_, x, y, _| x ^ y,
    },
    Op {
        text: "x << s",
        host: |e, x, _, s| (x << (s & u64::from(e.bits - 1))) & e.mask(),
    },
    Op {
        text: "x >> s",
        host: |e, x, _, s| (e.signed_value(x) >> (s & u64::from(e.bits - 1))) as u64 & e.mask(),
    },
    Op {
        text: "x << y",
        host: |e, x, y, _| (x << (y & u64::from(e.bits - 1))) & e.mask(),
    },
    Op {
        // A constant count beyond the width of char and short: masked too.
        text: "x >> 19",
        host: |e, x, _, _| (e.signed_value(x) >> (19 & (e.bits - 1))) as u64 & e.mask(),
    },
    Op {
        text: "x << 3",
        host: |e, x, _, _| (x << 3) & e.mask(),
    },
    Op {
        text: "x / y",
        host: |e, x, y, _| {
            let (a, b) = (e.signed_value(x), e.signed_value(y));
            // Division by zero is unspecified; clift divides by 1.
            if b == 0 {
                x & e.mask()
            } else {
                a.wrapping_div(b) as u64 & e.mask()
            }
        },
    },
    Op {
        text: "-x",
        host: |e, x, _, _| x.wrapping_neg() & e.mask(),
    },
    Op {
        text: "~x",
        host: |e, x, _, _| !x & e.mask(),
    },
    Op {
        text: "min(x, y)",
        host: |e, x, y, _| select(e, e.lt(x, y), x, y),
    },
    Op {
        text: "max(x, s)",
        host: |e, x, _, s| select(e, e.lt(x, s), s, x),
    },
    Op {
        text: "clamp(x, min(y, s), max(y, s))",
        host: |e, x, y, s| clamp(e, x, y, s),
    },
    Op {
        text: "select(x, y, x < y)",
        host: |e, x, y, _| select(e, e.lt(x, y), y, x),
    },
    Op {
        text: "bitselect(x, y, x * y)",
        host: |e, x, y, _| {
            let c = int_op(e, x, y, '*');
            (y & c) | (x & !c & e.mask())
        },
    },
    Op {
        text: "x > y ? x : y",
        host: |e, x, y, _| select(e, e.lt(y, x), x, y),
    },
];

/// The comparisons (results in the signed integer vector of the same width, -1 / 0).
type Comparison = (&'static str, fn(Elem, u64, u64) -> bool);

const COMPARISONS: &[Comparison] = &[
    ("x < y", |e, x, y| e.lt(x, y)),
    ("x > y", |e, x, y| e.lt(y, x)),
    ("x <= y", |e, x, y| e.lt(x, y) || e.eq(x, y)),
    ("x >= y", |e, x, y| e.lt(y, x) || e.eq(x, y)),
    ("x == y", |e, x, y| e.eq(x, y)),
    ("x != y", |e, x, y| !e.eq(x, y)),
    ("x && y", |e, x, y| !e.is_zero(x) && !e.is_zero(y)),
    ("x || y", |e, x, y| !e.is_zero(x) || !e.is_zero(y)),
];

/// The relational builtins of float vectors (the same masks).
const FLOAT_COMPARISONS: &[Comparison] = &[
    ("isless(x, y)", |e, x, y| e.lt(x, y)),
    ("isgreaterequal(x, y)", |e, x, y| e.lt(y, x) || e.eq(x, y)),
    ("isnotequal(x, y)", |e, x, y| !e.eq(x, y)),
    ("islessgreater(x, y)", |e, x, y| e.lt(x, y) || e.lt(y, x)),
    ("isunordered(x, y)", |e, x, y| {
        e.f(x).is_nan() || e.f(y).is_nan()
    }),
];

/// The comparisons of `e`'s test kernel.
fn comparisons(e: Elem) -> Vec<Comparison> {
    let mut all = COMPARISONS.to_vec();
    if e.float {
        all.extend_from_slice(FLOAT_COMPARISONS);
    }
    all
}

fn ops(e: Elem) -> &'static [Op] {
    if e.float { FLOAT_OPS } else { INT_OPS }
}

/// Number of work-items of each run.
const ITEMS: usize = 4;

/// The test kernel of `e` × `n`: each work-item writes every operation's value to `out`
/// and every comparison's to `cmp`, then a loop-carried accumulation, a vload/vstore and
/// component and swizzle writes to `rest`.
fn source(e: Elem, n: usize) -> String {
    let (t, it) = (format!("{}{n}", e.name), format!("{}{n}", e.int_name()));
    let mut s = String::new();
    if e.bits == 64 && e.float {
        s.push_str("#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n");
    }
    s.push_str(&format!(
        "kernel void k(global const {t} *a, global const {t} *b, global {t} *out, \
         global {it} *cmp, global {t} *rest) {{\n  size_t i = get_global_id(0);\n  \
         {t} x = a[i], y = b[i];\n  {} s = y.s1;\n",
        e.name
    ));
    for (k, op) in ops(e).iter().enumerate() {
        let count = ops(e).len();
        s.push_str(&format!("  out[i * {count} + {k}] = {};\n", op.text));
    }
    for (k, (text, _)) in comparisons(e).iter().enumerate() {
        let count = comparisons(e).len();
        s.push_str(&format!("  cmp[i * {count} + {k}] = {text};\n"));
    }
    // rest[i * 4 + 0]: a loop-carried value; + 1: vload + y by vstore; + 2: a component
    // write; + 3: a swizzle (reversed lanes) plus x.
    let swizzle = match n {
        2 => "s10",
        3 => "s210",
        4 => "s3210",
        8 => "s76543210",
        _ => "sfedcba9876543210",
    };
    s.push_str(&format!(
        "  {t} acc = x;\n  for (int j = 0; j < 3; j++) acc = acc * y + x;\n  \
         rest[i * 4] = acc;\n  \
         vstore{n}(vload{n}(0, (global const {e} *)(a + i)) + y, 0, (global {e} *)(rest + i * 4 + 1));\n  \
         {t} w = x * y;\n  w.s1 = s;\n  rest[i * 4 + 2] = w + y;\n  \
         rest[i * 4 + 3] = y.{swizzle} + x;\n}}\n",
        e = e.name
    ));
    s
}

/// The host's `rest` values of one work-item (see [`source`]).
fn host_rest(e: Elem, n: usize, x: &[u64], y: &[u64]) -> Vec<Vec<u64>> {
    let mul = |a, b| {
        if e.float {
            float_op(e, a, b, '*')
        } else {
            int_op(e, a, b, '*')
        }
    };
    let add = |a, b| {
        if e.float {
            float_op(e, a, b, '+')
        } else {
            int_op(e, a, b, '+')
        }
    };
    let mut acc = x.to_vec();
    for _ in 0..3 {
        acc = (0..n).map(|l| add(mul(acc[l], y[l]), x[l])).collect();
    }
    let sum: Vec<u64> = (0..n).map(|l| add(x[l], y[l])).collect();
    let mut w: Vec<u64> = (0..n).map(|l| mul(x[l], y[l])).collect();
    w[1] = y[1];
    let w: Vec<u64> = (0..n).map(|l| add(w[l], y[l])).collect();
    let swizzled: Vec<u64> = (0..n).map(|l| add(y[n - 1 - l], x[l])).collect();
    vec![acc, sum, w, swizzled]
}

/// Lane `l` of input vector `v` (of work-item `item`) of `e`: a spread of values with
/// negatives, zeros, extremes (and for floats -0.0, infinities and NaN).
fn input(e: Elem, item: usize, l: usize, v: usize) -> u64 {
    let k = item * 16 + l + v * 7;
    if e.float {
        let specials = [0.0, -0.0, 1.5, -2.25, f64::INFINITY, f64::NAN, 1e-3, 3.0];
        let x = if k % 5 == 4 {
            specials[k % specials.len()]
        } else {
            (k as f64 * 0.37 - 5.0) * if v == 0 { 1.0 } else { -0.5 }
        };
        return e.rounded_bits(x);
    }
    let h = (k as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (v as u64) << 7;
    let x = match k % 6 {
        0 => 0,
        1 => h >> 58,
        2 => (h >> 60).wrapping_neg(),
        _ => h,
    };
    x & e.mask()
}

fn bytes_of(e: Elem, lanes: &[u64]) -> Vec<u8> {
    lanes
        .iter()
        .flat_map(|&x| x.to_le_bytes()[..e.size()].to_vec())
        .collect()
}

fn lanes_of(e: Elem, bytes: &[u8]) -> Vec<u64> {
    bytes
        .chunks(e.size())
        .map(|c| {
            let mut b = [0u8; 8];
            b[..c.len()].copy_from_slice(c);
            u64::from_le_bytes(b)
        })
        .collect()
}

fn kernel(source: &str, lanes_only: bool) -> Arc<KernelCode> {
    let options = BuildOptions {
        codegen: CodegenOptions {
            scalar_only: true,
            lanes_only,
            ..CodegenOptions::default()
        },
        sema: sema::Options {
            fp64_supported: true,
            ..sema::Options::default()
        },
        ..BuildOptions::default()
    };
    match build("v.cl", source, &options) {
        Ok(b) => b.kernels.into_iter().next().expect("a kernel"),
        Err(log) => panic!("build failed:\n{log}\n{source}"),
    }
}

/// Runs the test kernel of `e` × `n` with `lanes_only` and returns (out, cmp, rest) as
/// lanes, padding lanes of 3-vectors included.
fn run(e: Elem, n: usize, lanes_only: bool) -> [Vec<u64>; 3] {
    let src = source(e, n);
    let k = kernel(&src, lanes_only);
    let stride = if n == 3 { 4 } else { n };
    let (nops, ncmp) = (ops(e).len(), comparisons(e).len());
    let vector = |v: usize| -> Vec<u8> {
        let mut lanes = Vec::new();
        for item in 0..ITEMS {
            for l in 0..stride {
                lanes.push(if l < n { input(e, item, l, v) } else { 0 });
            }
        }
        bytes_of(e, &lanes)
    };
    let (a, b) = (vector(0), vector(1));
    let vsize = stride * e.size();
    let mut out = vec![0u8; ITEMS * nops * vsize];
    let mut cmp = vec![0u8; ITEMS * ncmp * vsize];
    let mut rest = vec![0u8; ITEMS * 4 * vsize];
    let args = [
        a.as_ptr() as u64,
        b.as_ptr() as u64,
        out.as_mut_ptr() as u64,
        cmp.as_mut_ptr() as u64,
        rest.as_mut_ptr() as u64,
    ];
    common::run_1d(&k, ITEMS, ITEMS, &args, 0);
    [lanes_of(e, &out), lanes_of(e, &cmp), lanes_of(e, &rest)]
}

/// The host's (out, cmp, rest), in the layout [`run`] returns.
fn expected(e: Elem, n: usize) -> [Vec<u64>; 3] {
    let stride = if n == 3 { 4 } else { n };
    let (mut out, mut cmp, mut rest) = (Vec::new(), Vec::new(), Vec::new());
    let pad = |v: &mut Vec<u64>, lanes: Vec<u64>| {
        v.extend(lanes);
        v.extend(std::iter::repeat_n(0, stride - n));
    };
    for item in 0..ITEMS {
        let x: Vec<u64> = (0..n).map(|l| input(e, item, l, 0)).collect();
        let y: Vec<u64> = (0..n).map(|l| input(e, item, l, 1)).collect();
        for op in ops(e) {
            pad(
                &mut out,
                (0..n).map(|l| (op.host)(e, x[l], y[l], y[1])).collect(),
            );
        }
        for (_, f) in comparisons(e) {
            pad(
                &mut cmp,
                (0..n)
                    .map(|l| if f(e, x[l], y[l]) { e.mask() } else { 0 })
                    .collect(),
            );
        }
        let r = host_rest(e, n, &x, &y);
        // (vstore3 writes 3 elements: the padding lane stays zero.)
        for lanes in r {
            pad(&mut rest, lanes);
        }
    }
    [out, cmp, rest]
}

/// Names the first difference between `got` and `want` by operation and lane.
fn check(e: Elem, n: usize, got: &[Vec<u64>; 3], want: &[Vec<u64>; 3], how: &str) {
    let stride = if n == 3 { 4 } else { n };
    let names: [Vec<&str>; 3] = [
        ops(e).iter().map(|o| o.text).collect(),
        comparisons(e).iter().map(|c| c.0).collect(),
        vec!["loop", "vload + vstore", "component write", "swizzle"],
    ];
    for (which, (g, w)) in got.iter().zip(want).enumerate() {
        for (i, (a, b)) in g.iter().zip(w).enumerate() {
            if a != b {
                let (vector, lane) = (i / stride, i % stride);
                let per_item = names[which].len();
                panic!(
                    "{}{n} ({how}): `{}` of item {} lane {lane}: got {a:#x}, want {b:#x}",
                    e.name,
                    names[which][vector % per_item],
                    vector / per_item
                );
            }
        }
        assert_eq!(g.len(), w.len());
    }
}

fn check_type(e: Elem) {
    for n in WIDTHS {
        let want = expected(e, n);
        let registers = run(e, n, false);
        check(e, n, &registers, &want, "vector registers");
        let lanes = run(e, n, true);
        check(e, n, &lanes, &want, "lane by lane");
    }
}

#[test]
fn float_vectors_match_the_host() {
    check_type(FLOAT);
}

#[test]
fn double_vectors_match_the_host() {
    check_type(DOUBLE);
}

#[test]
fn int_and_uint_vectors_match_the_host() {
    check_type(ELEMS[2]);
    check_type(ELEMS[3]);
}

#[test]
fn long_and_ulong_vectors_match_the_host() {
    check_type(ELEMS[4]);
    check_type(ELEMS[5]);
}

#[test]
fn short_and_char_vectors_match_the_host() {
    for e in &ELEMS[6..] {
        check_type(*e);
    }
}

/// The CLIF of a kernel: with vector registers on, `c[i] = a[i] * a[i] + (float4)(1.0f)`
/// is f32x4 loads (one per `a[i]`), one fmul, one fadd and one store of the fadd's
/// register, and no scalar float load or store.
#[test]
fn float4_arithmetic_is_one_load_fmul_fadd_and_store() {
    let source = "kernel void k(global const float4 *a, global float4 *c) {
        size_t i = get_global_id(0);
        c[i] = a[i] * a[i] + (float4)(1.0f);
    }";
    let clif = |lanes_only| {
        let options = BuildOptions {
            codegen: CodegenOptions {
                scalar_only: true,
                lanes_only,
                ..CodegenOptions::default()
            },
            ..BuildOptions::default()
        };
        let stages = stages::dump_each(source, &options).expect("builds");
        let all = stages
            .into_iter()
            .find(|(name, _)| name == "clif")
            .expect("a clif stage")
            .1;
        // The work-item function (the work-group function that calls it follows).
        all.split("; work-group function")
            .next()
            .expect("the kernel's function")
            .to_string()
    };
    let text = clif(false);
    let count = |what: &str| text.lines().filter(|l| l.contains(what)).count();
    assert_eq!(count("load.f32x4"), 2, "{text}");
    assert_eq!(count(" = fmul "), 1, "{text}");
    assert_eq!(count(" = fadd "), 1, "{text}");
    assert_eq!(count("load.f32 "), 0, "{text}");
    let fadd = text
        .lines()
        .find(|l| l.contains(" = fadd "))
        .expect("an fadd");
    let sum = fadd.split_whitespace().next().expect("the fadd's result");
    assert!(
        text.lines()
            .any(|l| l.trim_start().starts_with(&format!("store {sum}, "))),
        "the fadd's register is stored whole:\n{text}"
    );
    assert!(!text.contains("store.f32 "), "{text}");
    // Lane by lane, as before: scalar loads, multiplications, additions, stores.
    let lanes = clif(true);
    let count = |what: &str| lanes.lines().filter(|l| l.contains(what)).count();
    assert_eq!(count("load.f32 "), 8, "{lanes}");
    assert_eq!(count(" = fmul "), 4, "{lanes}");
    assert!(!lanes.contains("f32x4"), "{lanes}");
}

/// Timing of float4 / int4 kernels with vector registers and lane by lane, one thread, best
/// of several runs (`cargo test --test run_vector_registers -- --ignored --nocapture`).
#[test]
#[ignore = "a measurement, not a check"]
fn measure_vector_registers() {
    let source = r#"
#define MAD_4(x, y)  x = mad(y, x, y); y = mad(x, y, x); x = mad(y, x, y); y = mad(x, y, x);
#define MAD_16(x, y) MAD_4(x, y); MAD_4(x, y); MAD_4(x, y); MAD_4(x, y);
#define MAD_64(x, y) MAD_16(x, y); MAD_16(x, y); MAD_16(x, y); MAD_16(x, y);
#define IMAD_4(x, y)  x = (y * x) + y; y = (x * y) + x; x = (y * x) + y; y = (x * y) + x;
#define IMAD_16(x, y) IMAD_4(x, y); IMAD_4(x, y); IMAD_4(x, y); IMAD_4(x, y);
#define IMAD_64(x, y) IMAD_16(x, y); IMAD_16(x, y); IMAD_16(x, y); IMAD_16(x, y);
kernel void compute_sp_v4(global float *ptr, float _A) {
    float4 x = (float4)(_A, (_A + 1), (_A + 2), (_A + 3));
    float4 y = (float4)get_local_id(0);
    for (int i = 0; i < 32; i++) { MAD_64(x, y); }
    ptr[get_global_id(0)] = (y.S0) + (y.S1) + (y.S2) + (y.S3);
}
kernel void compute_integer_v4(global int *ptr, int _A) {
    int4 x = (int4)(_A, (_A + 1), (_A + 2), (_A + 3));
    int4 y = (int4)get_local_id(0);
    for (int i = 0; i < 32; i++) { IMAD_64(x, y); }
    ptr[get_global_id(0)] = (y.S0) + (y.S1) + (y.S2) + (y.S3);
}
kernel void stream_v4(global float *ptr, float _A) {
    float4 a = (float4)(_A, 1.0f, 2.0f, 3.0f), b = a + 1.0f, c = a + 2.0f, d = a + 3.0f;
    float4 y = (float4)get_local_id(0);
    for (int i = 0; i < 256; i++) {
        a = mad(a, y, b); b = mad(b, y, c); c = mad(c, y, d); d = mad(d, y, a);
    }
    ptr[get_global_id(0)] = a.x + b.y + c.z + d.w;
}
kernel void istream_v4(global int *ptr, int _A) {
    int4 a = (int4)(_A, 1, 2, 3), b = a + 1, c = a + 2, d = a + 3;
    int4 y = (int4)get_local_id(0);
    for (int i = 0; i < 256; i++) {
        a = a * y + b; b = b * y + c; c = c * y + d; d = d * y + a;
    }
    ptr[get_global_id(0)] = a.x + b.y + c.z + d.w;
}
kernel void stencil_v4(global const float4 *in, global float4 *out, local float4 *tile) {
    size_t l = get_local_id(0), g = get_global_id(0), n = get_local_size(0);
    tile[l] = in[g];
    barrier(CLK_LOCAL_MEM_FENCE);
    float4 x = tile[l], y = tile[(l + 1) % n];
    for (int i = 0; i < 16; i++) { MAD_16(x, y); }
    barrier(CLK_LOCAL_MEM_FENCE);
    tile[l] = x + y;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[g] = tile[(l + n - 1) % n];
}
"#;
    let n = 4096;
    let mut out = vec![0u8; n * 16];
    let input: Vec<f32> = (0..n * 4).map(|i| (i % 97) as f32 / 97.0).collect();
    for name in [
        "compute_sp_v4",
        "compute_integer_v4",
        "stream_v4",
        "istream_v4",
        "stencil_v4",
    ] {
        let mut times = Vec::new();
        for lanes_only in [true, false] {
            let options = BuildOptions {
                codegen: CodegenOptions {
                    scalar_only: true,
                    lanes_only,
                    ..CodegenOptions::default()
                },
                ..BuildOptions::default()
            };
            let built = build("m.cl", source, &options).expect("builds");
            let k = built
                .kernels
                .into_iter()
                .find(|k| k.name == name)
                .expect("the kernel");
            let args: Vec<u64> = if name == "stencil_v4" {
                vec![input.as_ptr() as u64, out.as_mut_ptr() as u64, 0]
            } else {
                vec![out.as_mut_ptr() as u64, 3]
            };
            let mut best = f64::INFINITY;
            for _ in 0..15 {
                let start = std::time::Instant::now();
                common::run_1d(&k, n, 64, &args, 64 * 16);
                best = best.min(start.elapsed().as_secs_f64());
            }
            times.push(best);
        }
        println!(
            "{name}: lane by lane {:.3} ms, vector registers {:.3} ms ({:.2}x)",
            times[0] * 1e3,
            times[1] * 1e3,
            times[0] / times[1]
        );
    }
}

/// `convert_intN`, `convert_uintN` (each rounding mode) of float vectors and `convert_floatN`
/// of int and uint vectors, every width, with vector registers and lane by lane, equal to
/// Rust's `as` (which saturates and maps NaN to 0, as clift defines the out-of-range case).
#[test]
fn conversions_between_float_and_int_vectors_match_the_host() {
    let floats = [
        0.5f32,
        -0.5,
        1.5,
        2.5,
        -2.5,
        3e9,
        -3e9,
        f32::NAN,
        f32::INFINITY,
        -7.75,
        16777217.0,
        1e10,
        -0.0,
        2147483520.0,
        4294967040.0,
        0.49999997,
    ];
    let ints = [
        0i32,
        -1,
        1,
        i32::MIN,
        i32::MAX,
        16777217,
        -16777217,
        123456789,
        -7,
        0x7fff_ff80,
        3,
        -123456789,
        1 << 30,
        -(1 << 30),
        33554435,
        5,
    ];
    type Mode = (&'static str, fn(f32) -> f32);
    let modes: [Mode; 4] = [
        ("", f32::trunc),
        ("_rte", f32::round_ties_even),
        ("_rtp", f32::ceil),
        ("_rtn", f32::floor),
    ];
    for n in WIDTHS {
        let stride = if n == 3 { 4 } else { n };
        let mut src = format!(
            "kernel void k(global const float{n} *f, global const int{n} *i, \
             global int{n} *fi, global uint{n} *fu, global float{n} *fl, global uint{n} *iu) {{\n\
             size_t g = get_global_id(0);\n float{n} x = f[g];\n int{n} y = i[g];\n"
        );
        for (m, (suffix, _)) in modes.iter().enumerate() {
            src.push_str(&format!(
                " fi[g * 4 + {m}] = convert_int{n}{suffix}(x);\n \
                 fu[g * 4 + {m}] = convert_uint{n}_sat{suffix}(x);\n"
            ));
        }
        src.push_str(&format!(
            " fl[g * 2] = convert_float{n}(y);\n fl[g * 2 + 1] = convert_float{n}(as_uint{n}(y));\n \
             iu[g] = convert_uint{n}(y);\n}}\n"
        ));
        let items = 16usize.div_ceil(n);
        let lane = |g: usize, l: usize| (g * n + l) % 16;
        let f_in: Vec<f32> = (0..items * stride)
            .map(|k| {
                if k % stride < n {
                    floats[lane(k / stride, k % stride)]
                } else {
                    0.0
                }
            })
            .collect();
        let i_in: Vec<i32> = (0..items * stride)
            .map(|k| {
                if k % stride < n {
                    ints[lane(k / stride, k % stride)]
                } else {
                    0
                }
            })
            .collect();
        let mut want_fi = vec![0i32; items * 4 * stride];
        let mut want_fu = vec![0u32; items * 4 * stride];
        let mut want_fl = vec![0u32; items * 2 * stride];
        let mut want_iu = vec![0u32; items * stride];
        for g in 0..items {
            for l in 0..n {
                let (x, y) = (f_in[g * stride + l], i_in[g * stride + l]);
                for (m, (_, round)) in modes.iter().enumerate() {
                    want_fi[(g * 4 + m) * stride + l] = round(x) as i32;
                    want_fu[(g * 4 + m) * stride + l] = round(x) as u32;
                }
                want_fl[g * 2 * stride + l] = (y as f32).to_bits();
                want_fl[(g * 2 + 1) * stride + l] = (y as u32 as f32).to_bits();
                want_iu[g * stride + l] = y as u32;
            }
        }
        for lanes_only in [false, true] {
            let k = kernel(&src, lanes_only);
            let mut fi = vec![0i32; want_fi.len()];
            let mut fu = vec![0u32; want_fu.len()];
            let mut fl = vec![0f32; want_fl.len()];
            let mut iu = vec![0u32; want_iu.len()];
            let args = [
                f_in.as_ptr() as u64,
                i_in.as_ptr() as u64,
                fi.as_mut_ptr() as u64,
                fu.as_mut_ptr() as u64,
                fl.as_mut_ptr() as u64,
                iu.as_mut_ptr() as u64,
            ];
            common::run_1d(&k, items, 1, &args, 0);
            let how = if lanes_only {
                "lane by lane"
            } else {
                "registers"
            };
            assert_eq!(fi, want_fi, "convert_int{n} ({how})");
            assert_eq!(fu, want_fu, "convert_uint{n}_sat ({how})");
            let fl: Vec<u32> = fl.iter().map(|x| x.to_bits()).collect();
            assert_eq!(fl, want_fl, "convert_float{n} ({how})");
            assert_eq!(iu, want_iu, "convert_uint{n} ({how})");
        }
    }
}

/// Build time of the corpus's vector-heavy programs with vector registers and lane by lane
/// (`-- --ignored --nocapture`).
#[test]
#[ignore = "a measurement, not a check"]
fn measure_build_time() {
    for file in common::cl_files("corpus") {
        let source = std::fs::read_to_string(&file).expect("a corpus file");
        if !source.contains("float4") && !source.contains("int4") {
            continue;
        }
        let mut times = Vec::new();
        for lanes_only in [true, false] {
            let options = BuildOptions {
                codegen: CodegenOptions {
                    lanes_only,
                    ..CodegenOptions::default()
                },
                sema: sema::Options {
                    fp64_supported: true,
                    ..sema::Options::default()
                },
                ..BuildOptions::default()
            };
            let mut best = f64::INFINITY;
            for _ in 0..5 {
                let start = std::time::Instant::now();
                let _ = build("c.cl", &source, &options);
                best = best.min(start.elapsed().as_secs_f64());
            }
            times.push(best);
        }
        println!(
            "{}: lane by lane {:.2} ms, vector registers {:.2} ms",
            file.file_name().unwrap_or_default().to_string_lossy(),
            times[0] * 1e3,
            times[1] * 1e3
        );
    }
}

/// A component write to a vector in memory stores that component only: no read of the
/// vector and no write of its other components (which another work-item may be writing).
#[test]
fn a_component_write_to_memory_stores_only_that_component() {
    let source = "kernel void k(global float4 *p, float v) {
        p[get_global_id(0) / 4].y = v;
    }";
    for lanes_only in [false, true] {
        let options = BuildOptions {
            codegen: CodegenOptions {
                scalar_only: true,
                lanes_only,
                ..CodegenOptions::default()
            },
            ..BuildOptions::default()
        };
        let stages = stages::dump_each(source, &options).expect("builds");
        let clif = &stages
            .iter()
            .find(|(name, _)| name == "clif")
            .expect("a clif stage")
            .1;
        let item = clif
            .split("; work-group function")
            .next()
            .expect("the function");
        let count = |what: &str| item.lines().filter(|l| l.contains(what)).count();
        // The one float read is the argument `v`.
        assert_eq!(count("= load.f32"), 1, "{item}");
        assert_eq!(count("= load.f32x4"), 0, "{item}");
        let stores: Vec<&str> = item
            .lines()
            .filter(|l| l.trim_start().starts_with("store"))
            .collect();
        assert_eq!(stores.len(), 1, "{item}");
        assert!(stores[0].ends_with("+4"), "{item}");
    }
    let k = kernel(source, false);
    let mut p = vec![7.0f32; 8];
    common::run_1d(
        &k,
        8,
        8,
        &[p.as_mut_ptr() as u64, u64::from(2.5f32.to_bits())],
        0,
    );
    assert_eq!(p, [7.0, 2.5, 7.0, 7.0, 7.0, 2.5, 7.0, 7.0]);
}
