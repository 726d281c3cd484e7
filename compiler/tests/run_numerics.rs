//! Exact bits of `half` moves and half math, and the alignment of objects in memory
//! (6.1.5), from kernels compiled and run directly (through `common`).

mod common;

use common::{compile, compile_fp, run_1d};

const FP16: &str = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n";

/// Half bit patterns that a float round trip would change: a signalling NaN (0x7d8e, the
/// CTS's), a negative one, NaN payloads, a denormal, -0, one, and the infinities.
const HALVES: [u16; 8] = [
    0x7d8e, 0xfd01, 0x7e01, 0x0001, 0x8000, 0x3c00, 0x7c00, 0xfc3f,
];

/// Every way a half value is moved gives back its bits: loads and stores, `as_*`,
/// vload/vstore of halfn, select, bitselect, struct copies, swizzles, shuffles, arguments.
#[test]
fn half_moves_keep_the_bits() {
    let k = compile_fp(&format!(
        "{FP16}
        typedef struct {{ char c; half h; half2 v; }} S;
        kernel void moves(global const half *src, global half *out, half arg) {{
            size_t i = get_global_id(0);
            half x = src[i];
            out[i] = x;
            out[8 + i] = as_half(as_ushort(x));
            if (i < 2) vstore4(vload4(i, src), i, out + 16);
            out[24 + i] = select((half)0, x, (short)1);
            out[32 + i] = bitselect(as_half((ushort)0x1234), x, as_half((ushort)0xffff));
            S s; s.c = 1; s.h = x; s.v = (half2)(x, x);
            S t = s;
            out[40 + i] = t.v.y;
            half4 v = (half4)((half)0);
            v.z = x;
            half4 w = v.wzyx;
            out[48 + i] = w.y;
            half2 p = (half2)(x, (half)0);
            out[56 + i] = shuffle(p, (ushort2)(1, 0)).y;
            out[64 + i] = arg;
        }}"
    ));
    let mut out = vec![0u16; 72];
    run_1d(
        &k[0],
        8,
        8,
        &[
            HALVES.as_ptr() as u64,
            out.as_mut_ptr() as u64,
            0x7d8e, // a signalling NaN argument
        ],
        0,
    );
    for row in 0..8 {
        let got: Vec<String> = out[row * 8..row * 8 + 8]
            .iter()
            .map(|h| format!("{h:#06x}"))
            .collect();
        let want: Vec<String> = HALVES.iter().map(|h| format!("{h:#06x}")).collect();
        assert_eq!(got, want, "row {row}");
    }
    assert_eq!(&out[64..72], &[0x7d8e; 8]);
}

/// bitselect works on the half's bits (mixing exponent bits of two halves), not on the
/// float that holds them.
#[test]
fn half_bitselect_mixes_half_bits() {
    let k = compile_fp(&format!(
        "{FP16}
        kernel void f(global ushort *out) {{
            half a = as_half((ushort)0x3c00), b = as_half((ushort)0x4248);
            out[0] = as_ushort(bitselect(a, b, as_half((ushort)0x00ff)));
            out[1] = as_ushort(bitselect(a, b, as_half((ushort)0x7c00)));
        }}"
    ));
    let mut out = [0u16; 2];
    run_1d(&k[0], 1, 1, &[out.as_mut_ptr() as u64], 0);
    assert_eq!(out, [0x3c48, 0x4000]);
}

/// nextafter steps between halves, isnormal classifies halves, and fract/modf/sincos store
/// half results (CTS math_brute_force half: `nextafter(0x8000, 0x3c00)` is 0x0001).
#[test]
fn half_math_on_half_bits() {
    let k = compile_fp(&format!(
        "{FP16}
        kernel void f(global const ushort *a, global const ushort *b, global ushort *out,
                      global int *normal) {{
            size_t i = get_global_id(0);
            half x = as_half(a[i]), y = as_half(b[i]);
            out[i] = as_ushort(nextafter(x, y));
            half ip, c;
            out[4 + i] = as_ushort(fract(x, &ip));
            out[8 + i] = as_ushort(ip);
            out[12 + i] = as_ushort(modf(x, &ip));
            out[16 + i] = as_ushort(ip);
            out[20 + i] = as_ushort(sincos(x, &c));
            out[24 + i] = as_ushort(c);
            normal[i] = isnormal(x);
            half2 v = (half2)(x, y);
            normal[4 + i] = isnormal(v).x;
        }}"
    ));
    let a: [u16; 4] = [0x8000, 0x8001, 0x0400, 0xc100];
    let b: [u16; 4] = [0x3c00, 0x0000, 0x0000, 0xfc00];
    let mut out = [0u16; 28];
    let mut normal = [0i32; 8];
    run_1d(
        &k[0],
        4,
        4,
        &[
            a.as_ptr() as u64,
            b.as_ptr() as u64,
            out.as_mut_ptr() as u64,
            normal.as_mut_ptr() as u64,
        ],
        0,
    );
    // nextafter: -0 → 2^-24; -2^-24 → -0; 2^-14 → the largest denormal; -2.5 → next below.
    assert_eq!(&out[0..4], &[0x0001, 0x8000, 0x03ff, 0xc101]);
    // fract: ±0 for -0; 1 - 2^-24 capped at 0x1.ffcp-1 for -2^-24; 2^-14; 0.5 of -2.5
    // (floor -3).
    assert_eq!(&out[4..8], &[0x8000, 0x3bff, 0x0400, 0x3800]);
    assert_eq!(&out[8..12], &[0x8000, 0xbc00, 0x0000, 0xc200]);
    // modf: fractional and integral parts with x's sign.
    assert_eq!(&out[12..16], &[0x8000, 0x8001, 0x0400, 0xb800]);
    assert_eq!(&out[16..20], &[0x8000, 0x8000, 0x0000, 0xc000]);
    // sincos: sin(-2.5) = -0.5985 (0xb8ca), cos(-2.5) = -0.8013 (0xba69).
    assert_eq!(&out[20..24], &[0x8000, 0x8001, 0x0400, 0xb8ca]);
    assert_eq!(&out[24..28], &[0x3c00, 0x3c00, 0x3c00, 0xba69]);
    // isnormal of halves (2^-24 and -0 are not; 2^-14 is the smallest normal).
    assert_eq!(&normal[0..4], &[0, 0, 1, 1]);
    assert_eq!(&normal[4..8], &[0, 0, -1, -1]);
}

/// The half moves emitted in line (codegen/func/half.rs) give the helpers' bits: every half
/// loaded and stored back as float and as its bits, and every half times and divided by 64
/// others (exact products rounded once, inexact quotients, ties, denormal results, overflow,
/// NaNs), vectorized and with the vectorizer off.
#[test]
fn half_moves_in_line_give_the_helpers_bits() {
    use clift_builtins::half::{clift_f32_to_half_bits, clift_half_bits_to_f32};
    let source = format!(
        "{FP16}
        kernel void f(global const half *a, global const half *b, global float *wide,
                      global half *copy, global half *product, global half *quotient,
                      uint n) {{
            size_t i = get_global_id(0);
            half x = a[i];
            wide[i] = x;
            copy[i] = x;
            for (uint j = 0; j < n; j++) {{
                product[i * n + j] = x * b[j];
                quotient[i * n + j] = x / b[j];
            }}
        }}"
    );
    let a: Vec<u16> = (0..=u16::MAX).collect();
    // Both signs of: 0, the smallest denormal, a denormal, 2^-14, 1 and its neighbours,
    // 1.5, 3, 0.1, 2^10, 65504, infinity, a quiet and a signalling NaN; and 32 spread.
    let mut b: Vec<u16> = [
        0x0000, 0x0001, 0x0155, 0x0400, 0x3bff, 0x3c00, 0x3c01, 0x3e00, 0x4200, 0x2e66, 0x6400,
        0x7bff, 0x7c00, 0x7e00, 0x7d8e, 0x3555,
    ]
    .iter()
    .flat_map(|&h| [h, h | 0x8000])
    .collect();
    b.extend((0..32u32).map(|k| (k * 2039 + 77) as u16));
    let n = b.len();
    assert_eq!(n, 64);
    let float = |h: u16| clift_half_bits_to_f32(h);
    for scalar_only in [false, true] {
        let options = clift_compiler::build::BuildOptions {
            codegen: clift_compiler::codegen::CodegenOptions {
                scalar_only,
                ..Default::default()
            },
            sema: clift_compiler::frontend::sema::Options {
                fp16_supported: true,
                ..Default::default()
            },
            ..Default::default()
        };
        let k = common::compile_with(&source, &options);
        let mut wide = vec![0f32; a.len()];
        let mut copy = vec![0u16; a.len()];
        let mut product = vec![0u16; a.len() * n];
        let mut quotient = vec![0u16; a.len() * n];
        let outputs = [
            wide.as_mut_ptr() as u64,
            copy.as_mut_ptr() as u64,
            product.as_mut_ptr() as u64,
            quotient.as_mut_ptr() as u64,
        ];
        let inputs = [a.as_ptr() as u64, b.as_ptr() as u64];
        let args: Vec<u64> = inputs
            .into_iter()
            .chain(outputs)
            .chain([n as u64])
            .collect();
        run_1d(&k[0], a.len(), 64, &args, 0);
        for (i, &h) in a.iter().enumerate() {
            assert_eq!(wide[i].to_bits(), float(h).to_bits(), "{h:#06x} as float");
            assert_eq!(copy[i], h, "{h:#06x} copied");
            for (j, &y) in b.iter().enumerate() {
                // Of two NaN operands, the machine code may return either one (quieted): the
                // order of the operands is the compiler's.
                let either = |op: fn(f32, f32) -> f32| {
                    [(h, y), (y, h)].map(|(p, q)| clift_f32_to_half_bits(op(float(p), float(q))))
                };
                let [want, other] = either(|p, q| p * q);
                let got = product[i * n + j];
                let nans = float(h).is_nan() && float(y).is_nan();
                assert!(
                    got == want || (nans && got == other),
                    "{h:#06x} * {y:#06x} ({scalar_only}): {got:#06x}, not {want:#06x}"
                );
                let got = quotient[i * n + j];
                let [want, other] = either(|p, q| p / q);
                let other = if nans { other } else { want };
                assert!(
                    got == want || got == other,
                    "{h:#06x} / {y:#06x} ({scalar_only}): {got:#06x}, not {want:#06x}"
                );
            }
        }
        // A few by value: 2^-24 as float; 1.5 * 1.5 = 2.25; 65504 / 0.99951171875 = 65536
        // overflows to infinity; 1.5 * 2^-24 ties to even (2^-23); -2^-14 / 3 rounds to
        // -341 * 2^-24; the signalling NaN stays signalling when copied.
        assert_eq!(wide[1], 2f32.powi(-24));
        assert_eq!(product[0x3e00 * n + 14], 0x4080);
        assert_eq!(quotient[0x7bff * n + 8], 0x7c00);
        assert_eq!(product[n + 14], 0x0002);
        assert_eq!(quotient[0x8400 * n + 16], 0x8155);
        assert_eq!(copy[0x7d8e], 0x7d8e);
    }
}

/// The alignment kernel: the addresses of private objects modulo their alignment (6.1.5),
/// with small objects between them so that a 16-byte alignment would show.
const ALIGN_BODY: &str = "
    char c0 = 1; long16 a = (long16)(2); char c1 = 3; int16 b = (int16)(4);
    char c2 = 5; S s; s.c = 6; s.v = (short16)(7); char c3 = 8; long16 d[2];
    d[0] = (long16)(9); d[1] = (long16)(10); char c4 = 11; int8 e = (int8)(12);
    short3 f = (short3)(13);
    BARRIER
    out[8 * i + 0] = (size_t)&a % 128;
    out[8 * i + 1] = (size_t)&b % 64;
    out[8 * i + 2] = (size_t)&s % 32 + (size_t)&s.v % 32;
    out[8 * i + 3] = (size_t)&d[0] % 128 + (size_t)&d[1] % 128;
    out[8 * i + 4] = (size_t)&e % 32;
    out[8 * i + 5] = (size_t)&f % 8;
    out[8 * i + 6] = (size_t)&c0 % 1 + (size_t)&c1 % 1 + (size_t)&c2 % 1 + (size_t)&c4 % 1;
    out[8 * i + 7] = a.s0 + b.s1 + s.v.s2 + d[0].s3 + d[1].s4 + e.s5 + f.s2
        + c0 + c1 + c2 + c3 + c4 + s.c;
";

fn check_alignment(barrier: &str) {
    let source = format!(
        "typedef struct {{ char c; short16 v; }} S;
        kernel void f(global ulong *out) {{
            size_t i = get_global_id(0);
            {}
        }}",
        ALIGN_BODY.replace("BARRIER", barrier)
    );
    let k = compile(&source);
    let mut out = vec![u64::MAX; 32];
    run_1d(&k[0], 4, 4, &[out.as_mut_ptr() as u64], 0);
    for i in 0..4 {
        assert_eq!(
            &out[8 * i..8 * i + 8],
            &[
                0,
                0,
                0,
                0,
                0,
                0,
                0,
                2 + 4 + 7 + 9 + 10 + 12 + 13 + 1 + 3 + 5 + 8 + 11 + 6
            ],
            "item {i} ({barrier:?})"
        );
    }
}

/// Private objects in stack slots: a `long16` at a multiple of 128, `int16` of 64, a struct
/// holding a `short16` (the CTS's vec_align_struct) of 32.
#[test]
fn private_objects_are_aligned_to_their_size() {
    check_alignment("");
}

/// The same objects in the per-item frames of a kernel with barriers.
#[test]
fn private_objects_in_barrier_frames_are_aligned() {
    check_alignment("barrier(CLK_LOCAL_MEM_FENCE);");
}

/// Kernel-scope `__local` variables: aligned within local memory, which starts at 128.
#[test]
fn local_variables_are_aligned_to_their_size() {
    let k = compile(
        "kernel void f(global ulong *out) {
            local char c;
            local long16 a;
            local char c2;
            local int16 b[2];
            local short3 s;
            out[0] = (size_t)&a % 128;
            out[1] = (size_t)&b[1] % 64;
            out[2] = (size_t)&s % 8;
            out[3] = (size_t)&c + (size_t)&c2 == 0;
        }",
    );
    let mut out = [u64::MAX; 4];
    run_1d(
        &k[0],
        1,
        1,
        &[out.as_mut_ptr() as u64],
        k[0].static_local_size,
    );
    assert_eq!(out, [0, 0, 0, 0]);
}

/// length, distance and normalize neither overflow nor underflow where the result is
/// representable (float in double; double rescaled by powers of two), as the CTS's
/// test_geometrics references compute them.
#[test]
fn geometrics_scale_instead_of_overflowing() {
    let k = compile_fp(
        "#pragma OPENCL EXTENSION cl_khr_fp64 : enable
        kernel void f(global uint *o, global ulong *d) {
            o[0] = as_uint(length((float2)(0x1p100f, 0x1p100f)));
            o[1] = as_uint(length((float2)(0x1p-140f, 0x1p-140f)));
            o[2] = as_uint(distance((float2)(0x1p100f, 0.0f), (float2)(0.0f, -0x1p100f)));
            o[3] = as_uint(distance((float)0x1.fffffep127f, -0x1.fffffep127f));
            float4 n = normalize((float4)(INFINITY, 1.0f, -INFINITY, 0.0f));
            o[4] = as_uint(n.x); o[5] = as_uint(n.y); o[6] = as_uint(n.z); o[7] = as_uint(n.w);
            float2 t = normalize((float2)(0x1p-149f, 0.0f));
            o[8] = as_uint(t.x); o[9] = as_uint(t.y);
            float2 z = normalize((float2)(-0.0f, 0.0f));
            o[10] = as_uint(z.x); o[11] = as_uint(z.y);
            d[0] = as_ulong(length((double2)(0x1p1000, 0x1p1000)));
            d[1] = as_ulong(length((double3)(0x1p-1074, 0.0, 0.0)));
            d[2] = as_ulong(distance((double)0x1p1023, -0x1p1023));
            double2 m = normalize((double2)(0x1p-1074, 0x1p-1074));
            d[3] = as_ulong(m.x); d[4] = as_ulong(m.y);
            double4 b = normalize((double4)(0x1p1023, 0x1p1023, -INFINITY, 1.0));
            d[5] = as_ulong(b.x); d[6] = as_ulong(b.z);
            double2 h = normalize((double2)(0x1p1000, 0x1p1000));
            d[7] = as_ulong(h.y);
        }",
    );
    let mut o = [0u32; 12];
    let mut d = [0u64; 8];
    run_1d(
        &k[0],
        1,
        1,
        &[o.as_mut_ptr() as u64, d.as_mut_ptr() as u64],
        0,
    );
    let hex = |v: &[u32]| v.iter().map(|x| format!("{x:#010x}")).collect::<Vec<_>>();
    assert_eq!(
        hex(&o),
        hex(&[
            0x71b5_04f3, // sqrt(2)·2^100
            0x0000_02d4, // sqrt(2)·2^-140, a denormal: 724·2^-149
            0x71b5_04f3,
            0x7f80_0000, // 2^129 is beyond float: infinity
            0x3f35_04f3, // 1/sqrt(2), 0, -1/sqrt(2), 0
            0x0000_0000,
            0xbf35_04f3,
            0x0000_0000,
            0x3f80_0000, // the smallest denormal normalized is 1
            0x0000_0000,
            0x8000_0000, // a zero vector comes back as it is
            0x0000_0000,
        ])
    );
    let hex = |v: &[u64]| v.iter().map(|x| format!("{x:#018x}")).collect::<Vec<_>>();
    assert_eq!(
        hex(&d),
        hex(&[
            0x7e76_a09e_667f_3bcd, // sqrt(2)·2^1000
            0x0000_0000_0000_0001, // 2^-1074
            0x7ff0_0000_0000_0000, // the difference overflows in double (as the CTS's)
            0x3fe6_a09e_667f_3bcc, // 1 / sqrt(2) computed in double
            0x3fe6_a09e_667f_3bcc,
            0x0000_0000_0000_0000, // the infinity dominates
            0xbff0_0000_0000_0000,
            0x3fe6_a09e_667f_3bcc,
        ])
    );
}
