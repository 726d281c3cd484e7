//! Vectors of `char`, `uchar`, `short` and `ushort` in the work-item vectorizer
//! (`codegen/simd/narrow_vec.rs`): every kernel here runs vectorized and with the
//! vectorizer off, over groups whose size is not a multiple of the step (4) as well; the
//! outputs must be bit-identical and equal to the values computed here.

mod common;

use common::ints::{CHAR, Int, SHORT, UCHAR, USHORT};
use common::run_both_ways;

/// Work-items and group sizes: whole steps, and groups with a remainder.
const RANGES: [(usize, usize); 4] = [(64, 64), (37, 37), (39, 13), (36, 6)];
const N: usize = 64;

/// The outputs of kernel `name` run both ways (`run_both_ways`) per range, with how many
/// items the range ran.
fn both(
    source: &str,
    name: &str,
    inputs: &[Vec<u8>],
    outputs: &[usize],
    values: &[u64],
) -> Vec<(usize, Vec<Vec<u8>>)> {
    let out = run_both_ways(source, name, &RANGES, inputs, outputs, values);
    RANGES.iter().map(|r| r.0).zip(out).collect()
}

/// Bytes that cover what matters for 8-bit elements: 0, 1, 0x7f, 0x80, 0x81, 0xfe, 0xff
/// and a spread between.
fn bytes(n: usize, seed: u32) -> Vec<u8> {
    let corners = [
        0u8, 1, 0x7f, 0x80, 0x81, 0xfe, 0xff, 2, 100, 200, 0x40, 0xc0,
    ];
    (0..n)
        .map(|i| {
            let spread = ((i as u32).wrapping_mul(2654435761).wrapping_add(seed) >> 13) as u8;
            if (i + seed as usize).is_multiple_of(3) {
                corners[(i + seed as usize) / 3 % corners.len()]
            } else {
                spread
            }
        })
        .collect()
}

/// 16-bit values with every corner (0, ±1, 0x7fff, 0x8000, 0xffff, 0x00ff, 0x0100).
fn shorts(n: usize, seed: u32) -> Vec<u16> {
    let corners = [
        0u16, 1, 0x7fff, 0x8000, 0x8001, 0xfffe, 0xffff, 0x00ff, 0x0100, 0x80, 0xff80,
    ];
    (0..n)
        .map(|i| {
            let spread = ((i as u32).wrapping_mul(2654435761).wrapping_add(seed) >> 7) as u16;
            if (i + seed as usize).is_multiple_of(3) {
                corners[(i + seed as usize) / 3 % corners.len()]
            } else {
                spread
            }
        })
        .collect()
}

fn le16(xs: &[u16]) -> Vec<u8> {
    xs.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn of32(b: &[u8]) -> Vec<i32> {
    b.chunks(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

const IMAGE: &str = r#"
kernel void gray_threshold(global const uchar4 *in, global uchar *gray, global uchar4 *thr,
                           uchar t) {
    uchar4 p = in[get_global_id(0)];
    uchar g = convert_uchar_sat_rte(p.z * 0.114f + p.y * 0.587f + p.x * 0.299f);
    gray[get_global_id(0)] = g;
    thr[get_global_id(0)] = t < g ? (uchar4)(255, 255, 255, p.w) : (uchar4)(0, 0, 0, p.w);
}

kernel void brightness_contrast(global const uchar4 *in, global uchar4 *out,
                                global uchar4 *rte, float gain, float bias) {
    int i = get_global_id(0);
    float4 f = convert_float4(in[i]);
    out[i] = convert_uchar4_sat(f * gain + bias);
    rte[i] = convert_uchar4_sat_rte(f * gain - bias);
}

kernel void invert_swap(global const uchar4 *in, global uchar4 *out) {
    int i = get_global_id(0);
    uchar4 p = in[i];
    uchar4 q = ~p;
    out[i] = (uchar4)(q.zyx, p.w);
}

kernel void box3(global const uchar4 *in, global uchar4 *out, int n) {
    int i = get_global_id(0);
    int4 s = convert_int4(in[max(i - 1, 0)]) + convert_int4(in[i])
           + convert_int4(in[min(i + 1, n - 1)]);
    out[i] = convert_uchar4_sat(s / 3);
}
"#;

/// One RGBA pixel's float as the kernels compute it (the same operations in order).
fn luma(p: &[u8]) -> f32 {
    p[2] as f32 * 0.114f32 + p[1] as f32 * 0.587f32 + p[0] as f32 * 0.299f32
}

/// `convert_uchar_sat` of a float (towards zero; NaN 0) and its `_rte` form.
fn sat_u8(x: f32) -> u8 {
    if x.is_nan() {
        0
    } else {
        x.trunc().clamp(0.0, 255.0) as u8
    }
}

fn sat_u8_rte(x: f32) -> u8 {
    sat_u8(x.round_ties_even())
}

#[test]
fn rgba_pixels_to_gray_and_threshold() {
    let input = bytes(4 * N, 5);
    for t in [0u8, 0x7f, 0x80, 0xff] {
        let out = both(
            IMAGE,
            "gray_threshold",
            std::slice::from_ref(&input),
            &[N, 4 * N],
            &[u64::from(t)],
        );
        for (ran, o) in &out {
            for i in 0..*ran {
                let p = &input[4 * i..4 * i + 4];
                let g = sat_u8_rte(luma(p));
                assert_eq!(o[0][i], g, "gray of item {i}: {p:?}");
                let v = if g > t { 255 } else { 0 };
                assert_eq!(
                    &o[1][4 * i..4 * i + 4],
                    &[v, v, v, p[3]],
                    "threshold {t} item {i}"
                );
            }
            assert!(o[0][*ran..].iter().all(|&b| b == 0x5a), "past the range");
        }
    }
}

#[test]
fn brightness_and_contrast_saturate_as_the_scalar_code() {
    let input = bytes(4 * N, 11);
    for (gain, bias) in [
        (1.5f32, 20.0f32),
        (-2.0, 300.0),
        (0.5, -0.5),
        (f32::NAN, 1.0),
    ] {
        let out = both(
            IMAGE,
            "brightness_contrast",
            std::slice::from_ref(&input),
            &[4 * N, 4 * N],
            &[u64::from(gain.to_bits()), u64::from(bias.to_bits())],
        );
        for (ran, o) in &out {
            for (i, &x) in input.iter().enumerate().take(4 * ran) {
                let f = x as f32;
                assert_eq!(o[0][i], sat_u8(f * gain + bias), "{x} * {gain} + {bias}");
                assert_eq!(
                    o[1][i],
                    sat_u8_rte(f * gain - bias),
                    "{x} * {gain} - {bias}, rte"
                );
            }
        }
    }
}

#[test]
fn swizzles_and_bitwise_not_keep_the_bytes() {
    let input = bytes(4 * N, 2);
    for (ran, o) in both(
        IMAGE,
        "invert_swap",
        std::slice::from_ref(&input),
        &[4 * N],
        &[],
    ) {
        for i in 0..ran {
            let p = &input[4 * i..4 * i + 4];
            assert_eq!(
                &o[0][4 * i..4 * i + 4],
                &[!p[2], !p[1], !p[0], p[3]],
                "item {i}"
            );
        }
    }
}

#[test]
fn a_box_blur_of_neighbours_reads_clamped_indexes() {
    let input = bytes(4 * N, 7);
    for (ran, o) in both(
        IMAGE,
        "box3",
        std::slice::from_ref(&input),
        &[4 * N],
        &[N as u64],
    ) {
        for i in 0..ran {
            for c in 0..4 {
                let at = |j: usize| i32::from(input[4 * j + c]);
                let s = at(i.saturating_sub(1)) + at(i) + at((i + 1).min(N - 1));
                assert_eq!(i32::from(o[0][4 * i + c]), s / 3, "item {i} component {c}");
            }
        }
    }
}

const DOTS: &str = r#"
kernel void dot_char4(global const char4 *a, global const char4 *b, global int *out) {
    int i = get_global_id(0);
    int4 p = convert_int4(a[i]) * convert_int4(b[i]);
    out[i] = p.x + p.y + p.z + p.w;
}

kernel void dot_short8(global const short8 *a, global const short8 *b, global int *out) {
    int i = get_global_id(0);
    short8 x = a[i], y = b[i];
    int acc = 0;
    acc += x.s0 * y.s0; acc += x.s1 * y.s1; acc += x.s2 * y.s2; acc += x.s3 * y.s3;
    acc += x.s4 * y.s4; acc += x.s5 * y.s5; acc += x.s6 * y.s6; acc += x.s7 * y.s7;
    out[i] = acc;
}

kernel void dot_vload(global const char *a, global const uchar *b, global int *out) {
    int i = get_global_id(0);
    char16 x = vload16(i, a);
    uchar16 y = vload16(i, b);
    int16 p = convert_int16(x) * convert_int16(y);
    int8 q = p.lo + p.hi;
    int4 r = q.lo + q.hi;
    out[i] = r.x + r.y + r.z + r.w;
}
"#;

#[test]
fn dot_products_of_chars_and_shorts_promote_to_int() {
    let (a, b) = (bytes(4 * N, 1), bytes(4 * N, 8));
    for (ran, o) in both(DOTS, "dot_char4", &[a.clone(), b.clone()], &[4 * N], &[]) {
        let r = of32(&o[0]);
        for (i, &got) in r.iter().enumerate().take(ran) {
            let want: i32 = (0..4)
                .map(|c| i32::from(a[4 * i + c] as i8) * i32::from(b[4 * i + c] as i8))
                .sum();
            assert_eq!(got, want, "item {i}");
        }
    }
    let (a, b) = (shorts(8 * N, 3), shorts(8 * N, 4));
    for (ran, o) in both(DOTS, "dot_short8", &[le16(&a), le16(&b)], &[4 * N], &[]) {
        let r = of32(&o[0]);
        for (i, &got) in r.iter().enumerate().take(ran) {
            let want = (0..8).fold(0i32, |acc, c| {
                acc.wrapping_add(i32::from(a[8 * i + c] as i16) * i32::from(b[8 * i + c] as i16))
            });
            assert_eq!(got, want, "item {i}");
        }
    }
    let (a, b) = (bytes(16 * N, 9), bytes(16 * N, 10));
    for (ran, o) in both(DOTS, "dot_vload", &[a.clone(), b.clone()], &[4 * N], &[]) {
        let r = of32(&o[0]);
        for (i, &got) in r.iter().enumerate().take(ran) {
            let want: i32 = (0..16)
                .map(|c| i32::from(a[16 * i + c] as i8) * i32::from(b[16 * i + c]))
                .sum();
            assert_eq!(got, want, "item {i}");
        }
    }
}

/// Element-wise operators on a vector type `T` of `N` components (no promotion: the
/// element type's wrapping arithmetic), under a varying condition as well. The hint asks
/// for the vectorized row where the cost estimate (`cost.rs`) would keep the vectors of
/// 128 bits in the scalar row's registers.
const ELEMENTWISE: &str = r#"
#define OPS(T) \
kernel __attribute__((vec_type_hint(char))) void ops_##T(global const T *a, global const T *b, global T *sum, global T *prod, \
                    global T *bits, global T *shifts, global T *neg, global T *less, \
                    global T *picked) { \
    int i = get_global_id(0); \
    T x = a[i], y = b[i]; \
    sum[i] = x + y - (T)3; \
    prod[i] = x * y; \
    bits[i] = (x & y) | (x ^ (T)0x55); \
    shifts[i] = (x << 3) + (y >> 1); \
    neg[i] = -x; \
    less[i] = as_##T(x < y); \
    if (i % 3 != 1) picked[i] = x; else picked[i] = y + (T)1; \
}
OPS(char2) OPS(uchar4) OPS(char8) OPS(uchar16) OPS(short2) OPS(ushort4) OPS(short8) OPS(ushort16)
"#;

#[test]
fn elementwise_operators_wrap_in_the_element_type() {
    for (e, n) in [
        (CHAR, 2),
        (UCHAR, 4),
        (CHAR, 8),
        (UCHAR, 16),
        (SHORT, 2),
        (USHORT, 4),
        (SHORT, 8),
        (USHORT, 16),
    ] {
        let name = format!("{}{n}", e.name);
        let count = n * N;
        let (ra, rb) = match e.bits {
            8 => (bytes(count, 4), bytes(count, 6)),
            _ => (le16(&shorts(count, 4)), le16(&shorts(count, 6))),
        };
        let size = count * e.bits as usize / 8;
        let out = both(
            ELEMENTWISE,
            &format!("ops_{name}"),
            &[ra.clone(), rb.clone()],
            &[size; 7],
            &[],
        );
        let (a, b) = (e.decode(&ra), e.decode(&rb));
        let mask = (1i64 << e.bits) - 1;
        for (ran, o) in out {
            let got: Vec<Vec<i64>> = o.iter().map(|x| e.decode(x)).collect();
            for j in 0..ran * n {
                let (x, y) = (a[j], b[j]);
                let what = format!("{name} element {j}: {x} {y}");
                assert_eq!(got[0][j], e.wrap(x + y - 3), "sum {what}");
                assert_eq!(got[1][j], e.wrap(x * y), "prod {what}");
                assert_eq!(got[2][j], e.wrap((x & y) | (x ^ 0x55)), "bits {what}");
                let shr = if e.signed { y >> 1 } else { (y & mask) >> 1 };
                assert_eq!(got[3][j], e.wrap((x << 3) + shr), "shifts {what}");
                assert_eq!(got[4][j], e.wrap(-x), "neg {what}");
                assert_eq!(got[5][j], e.wrap(if x < y { -1 } else { 0 }), "less {what}");
                let picked = if (j / n) % 3 != 1 { x } else { e.wrap(y + 1) };
                assert_eq!(got[6][j], picked, "picked {what}");
            }
        }
    }
}

/// The integer functions of 6.12.3 with register forms for `char`..`ushort` (`narrow.rs`),
/// on scalars and on vectors (`U`: the unsigned type `abs` gives); the hint as in
/// [`ELEMENTWISE`].
const INTEGER_FUNCTIONS: &str = r#"
#define FNS(T, U) \
kernel __attribute__((vec_type_hint(char))) void fns_##T(global const T *a, global const T *b, global const T *c, \
                    global T *adds, global T *subs, global T *mads, global T *hadds, \
                    global T *rhadds, global T *his, global U *abss, global U *diffs, \
                    global T *clamps) { \
    int i = get_global_id(0); \
    T x = a[i], y = b[i], z = c[i]; \
    adds[i] = add_sat(x, y); \
    subs[i] = sub_sat(x, y); \
    mads[i] = mad_sat(x, y, z); \
    hadds[i] = hadd(x, y); \
    rhadds[i] = rhadd(x, y); \
    his[i] = mul_hi(x, y); \
    abss[i] = abs(x); \
    diffs[i] = abs_diff(x, y); \
    clamps[i] = clamp(x, min(y, z), max(y, z)); \
}
FNS(char, uchar) FNS(uchar, uchar) FNS(short, ushort) FNS(ushort, ushort)
FNS(char4, uchar4) FNS(uchar4, uchar4) FNS(short8, ushort8) FNS(ushort2, ushort2)
FNS(char16, uchar16)
"#;

#[test]
fn integer_functions_saturate_halve_and_take_magnitudes_in_registers() {
    for (e, n) in [
        (CHAR, 1),
        (UCHAR, 1),
        (SHORT, 1),
        (USHORT, 1),
        (CHAR, 4),
        (UCHAR, 4),
        (SHORT, 8),
        (USHORT, 2),
        (CHAR, 16),
    ] {
        let name = match n {
            1 => e.name.to_string(),
            _ => format!("{}{n}", e.name),
        };
        let count = n * N;
        let input = |seed| match e.bits {
            8 => bytes(count, seed),
            _ => le16(&shorts(count, seed)),
        };
        let (ra, rb, rc) = (input(21), input(22), input(23));
        let size = count * e.bytes();
        let out = both(
            INTEGER_FUNCTIONS,
            &format!("fns_{name}"),
            &[ra.clone(), rb.clone(), rc.clone()],
            &[size; 9],
            &[],
        );
        let (a, b, c) = (e.decode(&ra), e.decode(&rb), e.decode(&rc));
        let unsigned = Int { signed: false, ..e };
        let bits = e.bits;
        for (ran, o) in out {
            let got: Vec<Vec<i64>> = o
                .iter()
                .enumerate()
                .map(|(k, x)| {
                    if k == 6 || k == 7 {
                        unsigned.decode(x)
                    } else {
                        e.decode(x)
                    }
                })
                .collect();
            for j in 0..ran * n {
                let (x, y, z) = (a[j], b[j], c[j]);
                let what = format!("{name} element {j}: {x} {y} {z}");
                assert_eq!(got[0][j], e.sat(x + y), "add_sat {what}");
                assert_eq!(got[1][j], e.sat(x - y), "sub_sat {what}");
                assert_eq!(got[2][j], e.sat(x * y + z), "mad_sat {what}");
                assert_eq!(got[3][j], (x + y) >> 1, "hadd {what}");
                assert_eq!(got[4][j], (x + y + 1) >> 1, "rhadd {what}");
                assert_eq!(got[5][j], (x * y) >> bits, "mul_hi {what}");
                assert_eq!(got[6][j], x.abs(), "abs {what}");
                assert_eq!(got[7][j], (x - y).abs(), "abs_diff {what}");
                assert_eq!(got[8][j], x.clamp(y.min(z), y.max(z)), "clamp {what}");
            }
        }
    }
}

/// `as_T` between vectors of `char`/`short` and 32-bit words, both ways (the hint as in
/// [`ELEMENTWISE`]: its `float4`/`char16` stores would keep it in the scalar row).
const BITCASTS: &str = r#"
kernel __attribute__((vec_type_hint(char))) void words(global const uchar4 *px, global const uint *w, global uint *packed,
                  global uchar4 *unpacked, global short2 *halves, global float4 *floats,
                  global char16 *chars) {
    int i = get_global_id(0);
    uchar4 p = px[i];
    packed[i] = as_uint(p) ^ 0x00ff00ffu;
    unpacked[i] = as_uchar4(w[i] + 1u);
    halves[i] = as_short2(as_char4(p) + (char4)1);
    char16 c = (char16)(as_char4(p), as_char4(w[i]), (char4)(-128, 127, -1, 0), as_char4(p).wzyx);
    floats[i] = as_float4(c);
    chars[i] = as_char16(as_int4(c) + (int4)(1, 2, 3, 4));
}
"#;

#[test]
fn reinterpretations_move_the_bytes_of_32_bit_words() {
    let px = bytes(4 * N, 31);
    let w: Vec<u8> = bytes(4 * N, 32);
    let word = |b: &[u8], i: usize| {
        u32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]])
    };
    for (ran, o) in both(
        BITCASTS,
        "words",
        &[px.clone(), w.clone()],
        &[4 * N, 4 * N, 4 * N, 16 * N, 16 * N],
        &[],
    ) {
        for i in 0..ran {
            let p = &px[4 * i..4 * i + 4];
            assert_eq!(
                word(&o[0], i),
                word(&px, i) ^ 0x00ff00ff,
                "as_uint item {i}"
            );
            assert_eq!(
                word(&o[1], i),
                word(&w, i).wrapping_add(1),
                "as_uchar4 item {i}"
            );
            let plus: Vec<u8> = p.iter().map(|b| b.wrapping_add(1)).collect();
            assert_eq!(&o[2][4 * i..4 * i + 4], &plus[..], "as_short2 item {i}");
            let mut c = p.to_vec();
            c.extend_from_slice(&w[4 * i..4 * i + 4]);
            c.extend_from_slice(&[0x80, 0x7f, 0xff, 0]);
            c.extend(p.iter().rev());
            assert_eq!(&o[3][16 * i..16 * i + 16], &c[..], "as_float4 item {i}");
            let sums: Vec<u8> = (0..4)
                .flat_map(|k| (word(&c, k).wrapping_add(k as u32 + 1)).to_le_bytes())
                .collect();
            assert_eq!(&o[4][16 * i..16 * i + 16], &sums[..], "as_char16 item {i}");
        }
    }
}

/// Division of bytes (`narrow_vec.rs`: in float lanes), with the scalar lowering's results
/// for a zero divisor (`x`, remainder 0) and `-128 / -1` (wraps).
const DIVISION: &str = r#"
#define DIV(T) \
kernel __attribute__((vec_type_hint(char))) void div_##T(global const T *a, global const T *b, \
                                                        global T *q, global T *r) { \
    int i = get_global_id(0); \
    q[i] = a[i] / b[i]; \
    r[i] = a[i] % b[i]; \
}
DIV(char4) DIV(uchar4) DIV(char16) DIV(uchar2)
"#;

#[test]
fn bytes_divide_exactly_in_float_lanes() {
    for (e, n) in [(CHAR, 4), (UCHAR, 4), (CHAR, 16), (UCHAR, 2)] {
        let name = format!("div_{}{n}", e.name);
        let count = n * N;
        // Every dividend corner against divisors 0, ±1, ±2, 0x7f, 0x80, 0xff, ...
        let ra = bytes(count, 41);
        let rb: Vec<u8> = bytes(count, 42)
            .into_iter()
            .enumerate()
            .map(|(j, x)| match j % 7 {
                0 => 0,
                1 => 0xff,
                2 => 1,
                _ => x,
            })
            .collect();
        let size = count * e.bytes();
        let out = both(DIVISION, &name, &[ra.clone(), rb.clone()], &[size; 2], &[]);
        let (a, b) = (e.decode(&ra), e.decode(&rb));
        for (ran, o) in out {
            let (q, r) = (e.decode(&o[0]), e.decode(&o[1]));
            for j in 0..ran * n {
                let (x, y) = (a[j], b[j]);
                let (wq, wr) = if y == 0 {
                    (x, 0)
                } else {
                    (e.wrap(x / y), x % y)
                };
                assert_eq!(q[j], wq, "{name} {x} / {y}");
                assert_eq!(r[j], wr, "{name} {x} % {y}");
            }
        }
    }
}
