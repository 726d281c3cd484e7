//! `char`, `uchar`, `short` and `ushort` in the work-item vectorizer
//! (`codegen/simd/narrow.rs`): every kernel here runs vectorized and with the vectorizer off
//! (`CLIFT_VECTORIZE=0`), over groups whose size is not a multiple of the step (4) as well;
//! the outputs must be bit-identical and equal to the values computed here.

mod common;

use common::ints::{CHAR, INT, Int, NARROW, SHORT, UCHAR, UINT, USHORT};
use common::{compile_scalar_only, run_both_ways};

fn float_bytes(xs: &[f32]) -> Vec<u8> {
    xs.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn floats_of(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Values of every corner of a type of up to 32 bits, then a spread between.
fn values(n: usize, t: Int, seed: u64) -> Vec<i64> {
    let (lo, hi) = t.range();
    let corners = [lo, lo + 1, -1, 0, 1, 2, 100, 127, 128, 255, 256, hi - 1, hi];
    (0..n)
        .map(|i| match corners.get(i) {
            Some(&c) => t.wrap(c),
            None => t.wrap(((i as u64).wrapping_mul(2654435761).wrapping_add(seed) >> 3) as i64),
        })
        .collect()
}

/// Work-items and group sizes: whole steps, and groups with a remainder (37 = 9 steps + 1,
/// 13, 6).
const RANGES: [(usize, usize); 4] = [(64, 64), (37, 37), (39, 13), (36, 6)];
const N: usize = 64;

/// How many of the `N` items a range ran.
fn ran(r: usize) -> usize {
    RANGES[r].0
}

const OPS: &str = r#"
#define OPS(T) \
kernel void ops_##T(global const T *a, global const T *b, global T *wrap, global T *sat, \
                    global T *dif, global T *mm, global int *wide, global float *f) { \
    int i = get_global_id(0); \
    T x = a[i], y = b[i]; \
    wrap[i] = x * y + x; \
    sat[i] = add_sat(x, y); \
    dif[i] = sub_sat(x, y); \
    mm[i] = clamp(x, min(x, y), max(y, (T)3)); \
    wide[i] = x - 2 * y; \
    f[i] = (float)x * 0.5f + convert_float(y); \
}
OPS(char) OPS(uchar) OPS(short) OPS(ushort)
"#;

#[test]
fn arithmetic_promotes_to_int_and_saturates_in_registers() {
    for t in NARROW {
        let (a, b) = (
            values(N, t, 7),
            values(N, t, 1234567).into_iter().rev().collect::<Vec<_>>(),
        );
        let n = N * t.bytes();
        let out = run_both_ways(
            OPS,
            &format!("ops_{}", t.name),
            &RANGES,
            &[t.encode(&a), t.encode(&b)],
            &[n, n, n, n, N * 4, N * 4],
            &[],
        );
        for (r, o) in out.iter().enumerate() {
            for i in 0..ran(r) {
                let (x, y) = (a[i], b[i]);
                let what = format!("{} item {i} of range {r}: x {x} y {y}", t.name);
                assert_eq!(t.decode(&o[0])[i], t.wrap(x * y + x), "wrap {what}");
                assert_eq!(t.decode(&o[1])[i], t.sat(x + y), "add_sat {what}");
                assert_eq!(t.decode(&o[2])[i], t.sat(x - y), "sub_sat {what}");
                assert_eq!(
                    t.decode(&o[3])[i],
                    x.max(x.min(y)).min(y.max(3)),
                    "clamp {what}"
                );
                assert_eq!(INT.decode(&o[4])[i], x - 2 * y, "int {what}");
                let f = x as f32 * 0.5 + y as f32;
                assert_eq!(floats_of(&o[5])[i].to_bits(), f.to_bits(), "float {what}");
            }
        }
    }
}

const CONVERSIONS: &str = r#"
#define CROSS(F, T) \
kernel void cross_##F##_##T(global const F *a, global T *plain, global T *sat) { \
    int i = get_global_id(0); \
    plain[i] = (T)a[i]; \
    sat[i] = convert_##T##_sat(a[i]); \
}
#define FROM(F) CROSS(F, char) CROSS(F, uchar) CROSS(F, short) CROSS(F, ushort)
FROM(char) FROM(uchar) FROM(short) FROM(ushort) FROM(int) FROM(uint)
CROSS(char, int) CROSS(char, uint) CROSS(uchar, int) CROSS(uchar, uint)
CROSS(short, int) CROSS(short, uint) CROSS(ushort, int) CROSS(ushort, uint)
#define FLOATS(T) \
kernel void float_##T(global const float *x, global T *plain, global T *rte, global T *sat_rtn, \
                      global T *rtp, global float *back) { \
    int i = get_global_id(0); \
    plain[i] = convert_##T(x[i]); \
    rte[i] = convert_##T##_rte(x[i]); \
    sat_rtn[i] = convert_##T##_sat_rtn(x[i]); \
    rtp[i] = convert_##T##_rtp(x[i]); \
    back[i] = convert_float_rtz(plain[i]) + (float)rte[i]; \
}
FLOATS(char) FLOATS(uchar) FLOATS(short) FLOATS(ushort)
"#;

#[test]
fn conversions_between_narrow_and_32_bit_integers_wrap_or_saturate() {
    let mut pairs: Vec<(Int, Int)> = Vec::new();
    for f in [CHAR, UCHAR, SHORT, USHORT, INT, UINT] {
        for t in NARROW {
            pairs.push((f, t));
        }
    }
    for f in NARROW {
        pairs.push((f, INT));
        pairs.push((f, UINT));
    }
    for (f, t) in pairs {
        let a = values(N, f, 99);
        let n = N * t.bytes();
        let out = run_both_ways(
            CONVERSIONS,
            &format!("cross_{}_{}", f.name, t.name),
            &RANGES,
            &[f.encode(&a)],
            &[n, n],
            &[],
        );
        for (r, o) in out.iter().enumerate() {
            let (plain, sat) = (t.decode(&o[0]), t.decode(&o[1]));
            for (i, &x) in a.iter().enumerate().take(ran(r)) {
                let what = format!("{x} {} to {}", f.name, t.name);
                assert_eq!(plain[i], t.wrap(x), "{what}");
                assert_eq!(sat[i], t.sat(x), "{what}, saturating");
            }
        }
    }
}

#[test]
fn conversions_of_float_round_and_clamp_as_the_scalar_code() {
    let mut xs: Vec<f32> = vec![
        0.0,
        -0.0,
        0.5,
        1.5,
        2.5,
        -0.5,
        -1.5,
        -2.5,
        127.4,
        127.6,
        128.0,
        -128.6,
        -129.0,
        255.5,
        256.0,
        300.7,
        -300.7,
        32767.5,
        32768.0,
        -32768.5,
        65535.4,
        65536.0,
        1e10,
        -1e10,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        3.99,
        -3.99,
    ];
    while xs.len() < N {
        let i = xs.len() as f32;
        xs.push(
            (i * 37.25 - 900.0)
                * if xs.len().is_multiple_of(2) {
                    1.0
                } else {
                    40.0
                },
        );
    }
    for t in NARROW {
        let n = N * t.bytes();
        let out = run_both_ways(
            CONVERSIONS,
            &format!("float_{}", t.name),
            &RANGES,
            &[float_bytes(&xs)],
            &[n, n, n, n, N * 4],
            &[],
        );
        for (r, o) in out.iter().enumerate() {
            for (i, &x) in xs.iter().enumerate().take(ran(r)) {
                let what = format!("{x} to {}", t.name);
                let plain = t.of_float(x);
                let rte = t.of_float(x.round_ties_even());
                assert_eq!(t.decode(&o[0])[i], plain, "{what}");
                assert_eq!(t.decode(&o[1])[i], rte, "{what}, rte");
                assert_eq!(t.decode(&o[2])[i], t.of_float(x.floor()), "{what}, sat rtn");
                assert_eq!(t.decode(&o[3])[i], t.of_float(x.ceil()), "{what}, rtp");
                let back = plain as f32 + rte as f32;
                assert_eq!(
                    floats_of(&o[4])[i].to_bits(),
                    back.to_bits(),
                    "{what}, back"
                );
            }
        }
    }
}

const MASKED: &str = r#"
kernel void masked(global const uchar *a, global const short *s, global uchar *out,
                   global short *acc, int n) {
    int i = get_global_id(0);
    uchar v = a[i];
    uchar g = (uchar)get_group_id(0);
    short t = s[min(i + 1, n - 1)];
    if (v > 100) {
        v = add_sat(v, (uchar)200);
        out[i] = v;
    } else if (v & 1) {
        out[i] = v / 3 + g;
    }
    for (uchar k = 0; k < (v & 7); k++)
        t -= k * v;
    acc[i] = v > 250 ? t : (short)(t + g);
}
"#;

#[test]
fn masked_stores_loops_and_group_remainders() {
    let a = values(N, UCHAR, 5);
    let s = values(N, SHORT, 77);
    for (r, o) in run_both_ways(
        MASKED,
        "masked",
        &RANGES,
        &[UCHAR.encode(&a), SHORT.encode(&s)],
        &[N, N * 2],
        &[N as u64],
    )
    .iter()
    .enumerate()
    {
        let local = RANGES[r].1;
        for i in 0..ran(r) {
            let g = (i / local) as i64;
            let mut v = a[i];
            let mut t = s[(i + 1).min(N - 1)];
            let out = if v > 100 {
                v = UCHAR.sat(v + 200);
                v
            } else if v & 1 == 1 {
                UCHAR.wrap(v / 3 + g)
            } else {
                0x5a
            };
            for k in 0..(v & 7) {
                t = SHORT.wrap(t - k * v);
            }
            let acc = if v > 250 { t } else { SHORT.wrap(t + g) };
            assert_eq!(UCHAR.decode(&o[0])[i], out, "out[{i}] of range {r}");
            assert_eq!(SHORT.decode(&o[1])[i], acc, "acc[{i}] of range {r}");
        }
    }
}

const GRAY: &str = r#"
kernel void gray(global const uchar *r, global const uchar *g, global const uchar *b,
                 global uchar *out) {
    int i = get_global_id(0);
    out[i] = convert_uchar_sat(0.299f * r[i] + 0.587f * g[i] + 0.114f * b[i] + 0.5f);
}
"#;

#[test]
fn bytes_are_loaded_widened_and_stored_packed_without_lane_moves() {
    let collected = clift_compiler::codegen::dump::collect_during(|| {
        compile_scalar_only(GRAY, false);
    });
    let (_, clif) = collected
        .clif
        .iter()
        .find(|(name, _)| name == "vectorized row function of gray")
        .expect("the vectorized row function's CLIF");
    // Three 4-byte loads, each widened by one byte shuffle; one shuffle and one 4-byte
    // store; one group of 4 items per step (a row without loops: `simd/unroll.rs`).
    let n = 1;
    assert_eq!(clif.matches("load.i32").count(), 3 * n, "{clif}");
    assert_eq!(clif.matches("x86_pshufb").count(), 3 * n, "{clif}");
    assert_eq!(clif.matches("uwiden_low").count(), 0, "{clif}");
    assert_eq!(clif.matches(" shuffle ").count(), n, "{clif}");
    // float → uchar: the upper clamp in float, x64's plain truncation, the lower clamp (no
    // saturating conversion with its NaN fix-up, no second clamp).
    assert_eq!(clif.matches("x86_cvtt2dq.i32x4").count(), n, "{clif}");
    assert_eq!(clif.matches("fcvt_to_sint_sat").count(), 0, "{clif}");
    assert_eq!(clif.matches(" smax ").count(), n, "{clif}");
    assert_eq!(clif.matches(" smin ").count(), 0, "{clif}");
    // Nothing per lane: no lane inserted, no lane narrowed to 8 bits.
    assert!(
        !clif.contains("insertlane") && !clif.contains("ireduce.i8"),
        "{clif}"
    );
    let (r, g, b) = (
        values(N, UCHAR, 1),
        values(N, UCHAR, 2),
        values(N, UCHAR, 3),
    );
    let out = run_both_ways(
        GRAY,
        "gray",
        &RANGES,
        &[UCHAR.encode(&r), UCHAR.encode(&g), UCHAR.encode(&b)],
        &[N],
        &[],
    );
    for i in 0..N {
        let y = 0.299f32 * r[i] as f32 + 0.587f32 * g[i] as f32 + 0.114f32 * b[i] as f32 + 0.5;
        assert_eq!(UCHAR.decode(&out[0][0])[i], UCHAR.of_float(y), "pixel {i}");
    }
}

const WIDE: &str = r#"
kernel void wide(global const char *c, global const ushort *u, global const long *l,
                 global long *cl, global ulong *cu, global double *ud, global char *lc,
                 global ushort *lu) {
    int i = get_global_id(0);
    cl[i] = c[i];
    cu[i] = (ulong)c[i];
    ud[i] = (double)u[i] * 0.5;
    lc[i] = (char)l[i];
    lu[i] = (ushort)l[i];
}
"#;

#[test]
fn conversions_to_and_from_64_bits_go_through_register_pairs() {
    let (c, u) = (values(N, CHAR, 3), values(N, USHORT, 4));
    let l: Vec<i64> = (0..N as i64)
        .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15u64 as i64) ^ (i << 7))
        .collect();
    let longs = |v: &[i64]| -> Vec<u8> { v.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let of_longs = |b: &[u8]| -> Vec<i64> {
        b.chunks(8)
            .map(|c| i64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect()
    };
    let out = run_both_ways(
        WIDE,
        "wide",
        &RANGES,
        &[CHAR.encode(&c), USHORT.encode(&u), longs(&l)],
        &[N * 8, N * 8, N * 8, N, N * 2],
        &[],
    );
    for (r, o) in out.iter().enumerate() {
        for i in 0..ran(r) {
            assert_eq!(of_longs(&o[0])[i], c[i], "long of char {}", c[i]);
            assert_eq!(of_longs(&o[1])[i], c[i], "ulong of char {}", c[i]);
            let d = f64::from_bits(of_longs(&o[2])[i] as u64);
            assert_eq!(
                d.to_bits(),
                (u[i] as f64 * 0.5).to_bits(),
                "double of {}",
                u[i]
            );
            assert_eq!(CHAR.decode(&o[3])[i], CHAR.wrap(l[i]), "char of {}", l[i]);
            assert_eq!(
                USHORT.decode(&o[4])[i],
                USHORT.wrap(l[i]),
                "ushort of {}",
                l[i]
            );
        }
    }
}
