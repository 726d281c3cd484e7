//! Kernels that run (the CTS area "basic"): OpenCL C programs built and launched through
//! the loader, their results checked against the same computation on the host, at several
//! global and local sizes (non-powers of two, a NULL local size, 2D and 3D ranges, global
//! offsets).
//!
//! Floating-point kernels either compute exactly what IEEE 754 single precision gives for
//! the host's order of operations (`#pragma OPENCL FP_CONTRACT OFF` forbids fusing a
//! multiply and an add) or are compared within a stated tolerance.

use std::ptr::null_mut;

use clift_conformance::kernel_fixture::*;
use clift_conformance::*;

fn api() -> &'static Api {
    clift()
}

/// The local sizes tried with a global size: NULL, and the explicit sizes given.
fn local_of(local: Option<usize>) -> Option<[usize; 1]> {
    local.map(|l| [l])
}

// Vector addition, saxpy

#[test]
fn vector_add_of_floats_at_many_sizes() {
    // §6.3 arithmetic: "+" on float is the IEEE 754 single-precision sum, correctly rounded;
    // each work-item i computes c[i] = a[i] + b[i] for get_global_id(0) = i, over ranges of
    // any size (non-powers of two, a single item), with the local size given or chosen by
    // the implementation (NULL).
    let fx = Fixture::new();
    let k = fx.kernel(
        "kernel void vadd(global const float *a, global const float *b, global float *c) {\n\
         \x20 size_t i = get_global_id(0);\n\
         \x20 c[i] = a[i] + b[i];\n}\n",
        c"vadd",
        c"",
    );
    let mut rng = Rng(0x1234_5678);
    for (n, local) in [
        (1, None),
        (1, Some(1)),
        (7, Some(7)),
        (64, Some(16)),
        (1000, Some(8)),
        (1000, None),
        (4096, Some(256)),
        (4099, None),
        (12345, Some(15)),
    ] {
        let a = rng.floats(n, -1000.0, 1000.0);
        let b = rng.floats(n, -1.0, 1.0);
        let (ba, bb, bc) = (fx.buffer(&a), fx.buffer(&b), fx.filled(f32::NAN, n));
        k.mem(0, &ba).mem(1, &bb).mem(2, &bc);
        fx.run(&k, None, &[n], local_of(local).as_ref().map(|l| &l[..]));
        let expected: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
        let actual: Vec<f32> = fx.read(&bc, n);
        assert_same(
            &bits(&actual),
            &bits(&expected),
            &format!("vadd n={n} local={local:?}"),
        );
    }
}

/// The bit patterns of floats (so that NaN compares, and -0 differs from 0).
fn bits(values: &[f32]) -> Vec<u32> {
    values.iter().map(|v| v.to_bits()).collect()
}

#[test]
fn vector_add_with_a_global_offset_covers_only_the_offset_range() {
    // clEnqueueNDRangeKernel: "global_work_offset can be used to specify an array of
    // work_dim unsigned values that describe the offset used to calculate the global ID of
    // a work-item": with offset o and size n, the global ids are o .. o + n - 1.
    let fx = Fixture::new();
    let k = fx.kernel(
        "kernel void vadd(global const float *a, global const float *b, global float *c) {\n\
         \x20 size_t i = get_global_id(0);\n\
         \x20 c[i] = a[i] + b[i];\n}\n",
        c"vadd",
        c"",
    );
    let mut rng = Rng(77);
    let total = 300;
    for (offset, n, local) in [(10, 290, None), (1, 200, Some(8)), (299, 1, Some(1))] {
        let a = rng.floats(total, -10.0, 10.0);
        let b = rng.floats(total, -10.0, 10.0);
        let (ba, bb, bc) = (fx.buffer(&a), fx.buffer(&b), fx.filled(-1.0f32, total));
        k.mem(0, &ba).mem(1, &bb).mem(2, &bc);
        fx.run(
            &k,
            Some(&[offset]),
            &[n],
            local_of(local).as_ref().map(|l| &l[..]),
        );
        let expected: Vec<f32> = (0..total)
            .map(|i| {
                if (offset..offset + n).contains(&i) {
                    a[i] + b[i]
                } else {
                    -1.0
                }
            })
            .collect();
        assert_same(
            &bits(&fx.read::<f32>(&bc, total)),
            &bits(&expected),
            &format!("offset {offset} size {n}"),
        );
    }
}

#[test]
fn vector_add_of_ints_stops_at_its_bound() {
    // A kernel whose range is rounded up past the data guards with a `uint n` argument:
    // items with get_global_id(0) >= n write nothing. Integer "+" on int.
    let fx = Fixture::new();
    let k = fx.kernel(
        "kernel void vadd_n(global const int *a, global const int *b, global int *c, uint n) {\n\
         \x20 size_t i = get_global_id(0);\n\
         \x20 if (i < n) c[i] = a[i] + b[i];\n}\n",
        c"vadd_n",
        c"",
    );
    let mut rng = Rng(99);
    for (n, global, local) in [
        (1000u32, 1024usize, Some(64usize)),
        (1, 4, None),
        (77, 80, Some(16)),
        (5000, 5003, None),
    ] {
        let a = rng.ints(global, -1 << 29, 1 << 29);
        let b = rng.ints(global, -1 << 29, 1 << 29);
        let (ba, bb, bc) = (fx.buffer(&a), fx.buffer(&b), fx.filled(i32::MIN, global));
        k.mem(0, &ba).mem(1, &bb).mem(2, &bc).arg(3, n);
        fx.run(
            &k,
            None,
            &[global],
            local_of(local).as_ref().map(|l| &l[..]),
        );
        let expected: Vec<i32> = (0..global)
            .map(|i| {
                if i < n as usize {
                    a[i] + b[i]
                } else {
                    i32::MIN
                }
            })
            .collect();
        assert_same(
            &fx.read::<i32>(&bc, global),
            &expected,
            &format!("n={n} global={global}"),
        );
    }
}

#[test]
fn saxpy_matches_the_host() {
    // y[i] = a * x[i] + y[i] with a scalar float argument. Without FP_CONTRACT OFF the
    // implementation may fuse the multiply-add (§6.10 "#pragma OPENCL FP_CONTRACT": on by
    // default), so each result must be either the fused or the separately rounded value.
    let fx = Fixture::new();
    let k = fx.kernel(
        "kernel void saxpy(float a, global const float *x, global float *y) {\n\
         \x20 size_t i = get_global_id(0);\n\
         \x20 y[i] = a * x[i] + y[i];\n}\n",
        c"saxpy",
        c"",
    );
    let mut rng = Rng(5);
    for (n, local) in [
        (1usize, None),
        (333, Some(3)),
        (2048, Some(128)),
        (2049, None),
    ] {
        let a = rng.float(-3.0, 3.0);
        let x = rng.floats(n, -100.0, 100.0);
        let y = rng.floats(n, -100.0, 100.0);
        let (bx, by) = (fx.buffer(&x), fx.buffer(&y));
        k.arg(0, a).mem(1, &bx).mem(2, &by);
        fx.run(&k, None, &[n], local_of(local).as_ref().map(|l| &l[..]));
        let actual: Vec<f32> = fx.read(&by, n);
        for i in 0..n {
            let separate = a * x[i] + y[i];
            let fused = a.mul_add(x[i], y[i]);
            assert!(
                actual[i] == separate || actual[i] == fused,
                "saxpy n={n} i={i}: a={a} x={} y={}: got {}, expected {separate} (or fused \
                 {fused})",
                x[i],
                y[i],
                actual[i]
            );
        }
    }
}

// Work-item functions

/// Each work-item writes its view of the range: 7 functions x 3 dimensions, the work
/// dimension, and the answers for an out-of-range dimension index (`far`).
const IDS_SOURCE: &str = "kernel void ids(global uint *out, uint far) {\n\
     size_t x = get_global_id(0) - get_global_offset(0);\n\
     size_t y = get_global_id(1) - get_global_offset(1);\n\
     size_t z = get_global_id(2) - get_global_offset(2);\n\
     size_t linear = (z * get_global_size(1) + y) * get_global_size(0) + x;\n\
     global uint *o = out + linear * 24;\n\
     for (uint d = 0; d < 3; d++) {\n\
       o[d * 7 + 0] = get_global_id(d);\n\
       o[d * 7 + 1] = get_local_id(d);\n\
       o[d * 7 + 2] = get_group_id(d);\n\
       o[d * 7 + 3] = get_num_groups(d);\n\
       o[d * 7 + 4] = get_global_size(d);\n\
       o[d * 7 + 5] = get_local_size(d);\n\
       o[d * 7 + 6] = get_global_offset(d);\n\
     }\n\
     o[21] = get_work_dim();\n\
     o[22] = get_global_id(far) | (get_local_id(far) << 4) | (get_group_id(far) << 8)\n\
             | (get_global_offset(far) << 12);\n\
     o[23] = get_global_size(far) | (get_local_size(far) << 4) | (get_num_groups(far) << 8);\n\
   }\n";

/// Runs `ids` over one range and checks every work-item's answers.
fn check_ids(
    fx: &Fixture,
    k: &Kernel,
    offset: &[usize],
    global: &[usize],
    local: Option<&[usize]>,
) {
    let dims = global.len();
    let pad = |v: &[usize], fill: usize| [0, 1, 2].map(|d| v.get(d).copied().unwrap_or(fill));
    let (off3, glob3) = (pad(offset, 0), pad(global, 1));
    let items: usize = glob3.iter().product();
    let out = fx.filled(0xdead_beefu32, items * 24);
    for far in [3u32, 7] {
        k.mem(0, &out).arg(1, far);
        fx.run(k, Some(offset), global, local);
        let v: Vec<u32> = fx.read(&out, items * 24);
        // The local size: the one given, or the one the implementation chose (which every
        // item must report alike, and which must divide the global size).
        let loc3 = match local {
            Some(l) => pad(l, 1),
            None => [0, 1, 2].map(|d| v[d * 7 + 5] as usize),
        };
        let what = format!("global {global:?} local {local:?} offset {offset:?} far {far}");
        for d in 0..3 {
            assert!(
                loc3[d] >= 1 && glob3[d] % loc3[d] == 0,
                "{what}: local size {loc3:?} does not divide the global size"
            );
        }
        for z in 0..glob3[2] {
            for y in 0..glob3[1] {
                for x in 0..glob3[0] {
                    let linear = (z * glob3[1] + y) * glob3[0] + x;
                    let o = &v[linear * 24..linear * 24 + 24];
                    let pos = [x, y, z];
                    let mut expected = [0u32; 24];
                    for d in 0..3 {
                        let e = &mut expected[d * 7..d * 7 + 7];
                        e[0] = (pos[d] + off3[d]) as u32;
                        e[1] = (pos[d] % loc3[d]) as u32;
                        e[2] = (pos[d] / loc3[d]) as u32;
                        e[3] = (glob3[d] / loc3[d]) as u32;
                        e[4] = glob3[d] as u32;
                        e[5] = loc3[d] as u32;
                        e[6] = off3[d] as u32;
                    }
                    expected[21] = dims as u32;
                    // "For other values of dimindx": ids, group ids and offsets are 0, sizes
                    // and group counts are 1.
                    expected[22] = 0;
                    expected[23] = 0x111;
                    assert_eq!(o, expected, "{what}: work-item {pos:?}");
                }
            }
        }
    }
}

#[test]
fn work_item_functions_describe_the_range_in_1d_2d_and_3d() {
    // §6.12.1: get_work_dim ("the number of dimensions in use"), get_global_size,
    // get_global_id ("the unique global work-item ID value for dimension identified by
    // dimindx ... get_global_offset(dimindx) + work-item offset"), get_local_size,
    // get_local_id, get_num_groups, get_group_id, get_global_offset; for dimindx >=
    // get_work_dim() the sizes and group counts are 1, the ids and offsets 0. Unused
    // dimensions of a 1D or 2D range behave as size 1.
    let fx = Fixture::new();
    let k = fx.kernel(IDS_SOURCE, c"ids", c"");
    check_ids(&fx, &k, &[0], &[37], None);
    check_ids(&fx, &k, &[5], &[64], Some(&[8]));
    check_ids(&fx, &k, &[0], &[1], Some(&[1]));
    check_ids(&fx, &k, &[3, 7], &[12, 10], Some(&[4, 5]));
    check_ids(&fx, &k, &[0, 0], &[16, 9], None);
    check_ids(&fx, &k, &[1, 2, 3], &[6, 4, 5], Some(&[3, 2, 5]));
    check_ids(&fx, &k, &[0, 0, 0], &[8, 8, 2], None);
    check_ids(&fx, &k, &[2, 0, 1], &[5, 7, 3], Some(&[1, 7, 1]));
}

// Vector types

#[test]
fn integer_vectors_swizzles_and_literals() {
    // §6.1.2, §6.1.6, §6.1.7: vector literals ((int4)(x, y, z, w), (int4)(int2, int2),
    // (int4)(scalar) replicates), component access (.xyzw, .s0123, .lo/.hi/.even/.odd),
    // swizzles on both sides of "=", component-wise arithmetic with scalar widening, and
    // relational operators giving -1 (true) / 0 per component. Narrow types wrap.
    let fx = Fixture::new();
    let k = fx.kernel(
        "kernel void vec(global const int4 *a, global int4 *o, global uchar16 *u) {\n\
         \x20 size_t i = get_global_id(0);\n\
         \x20 int4 v = a[i];\n\
         \x20 int4 r = v.wzyx;\n\
         \x20 r.s13 = (int2)(7, 9);\n\
         \x20 int4 s = (int4)(v.xy, v.zw * 2);\n\
         \x20 int4 m = (int4)(v.lo + v.hi, v.even - v.odd);\n\
         \x20 int4 c = v > (int4)(0);\n\
         \x20 int4 w = v * 3 + 1;\n\
         \x20 int4 q = (int4)(v.s2, (int2)(v.s0), 5) & (int4)(-1);\n\
         \x20 o[i * 6 + 0] = r; o[i * 6 + 1] = s; o[i * 6 + 2] = m;\n\
         \x20 o[i * 6 + 3] = c; o[i * 6 + 4] = w; o[i * 6 + 5] = q;\n\
         \x20 uchar16 b = (uchar16)((uchar)v.x);\n\
         \x20 u[i] = b + (uchar16)(250, 251, 252, 253, 254, 255, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9);\n\
         }\n",
        c"vec",
        c"",
    );
    let mut rng = Rng(42);
    let n = 50;
    let a: Vec<[i32; 4]> = (0..n)
        .map(|_| [0; 4].map(|_| rng.int(-1000, 1000)))
        .collect();
    let (ba, bo, bu) = (
        fx.buffer(&a),
        fx.filled([0i32; 4], n * 6),
        fx.filled([0u8; 16], n),
    );
    k.mem(0, &ba).mem(1, &bo).mem(2, &bu);
    fx.run(&k, None, &[n], Some(&[5]));
    let o: Vec<[i32; 4]> = fx.read(&bo, n * 6);
    let u: Vec<[u8; 16]> = fx.read(&bu, n);
    let add: [u8; 16] = [250, 251, 252, 253, 254, 255, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
    for (i, v) in a.iter().enumerate() {
        let [x, y, z, w] = *v;
        let expected = [
            [w, 7, y, 9],
            [x, y, z * 2, w * 2],
            [x + z, y + w, x - y, z - w],
            v.map(|c| if c > 0 { -1 } else { 0 }),
            v.map(|c| c * 3 + 1),
            [z, x, x, 5],
        ];
        assert_eq!(&o[i * 6..i * 6 + 6], expected, "item {i}: v = {v:?}");
        let b = x as u8;
        assert_eq!(u[i], add.map(|d| b.wrapping_add(d)), "item {i}: uchar16");
    }
}

#[test]
fn float_vectors_swizzles_and_literals() {
    // The same rules for float vectors: literals mixing scalars and vectors, swizzles,
    // .lo/.hi, a scalar operand widened to every component, 3-component vectors in memory. The values are exact in
    // single precision, so the results compare exactly.
    let fx = Fixture::new();
    let k = fx.kernel(
        "kernel void fvec(global const float4 *f, global float4 *o, global float2 *h,\n\
         \x20                global float3 *o3, global int *sizes) {\n\
         \x20 size_t i = get_global_id(0);\n\
         \x20 float4 x = f[i];\n\
         \x20 o3[i] = x.wzy;\n\
         \x20 if (i == 0) { sizes[0] = sizeof(float3); sizes[1] = sizeof(int3); sizes[2] = sizeof(float4); }\n\
         \x20 o[i * 4 + 0] = (float4)(x.s0, x.s1 * 2.0f, (float2)(x.w, 1.5f));\n\
         \x20 o[i * 4 + 1] = x.zxyw + 0.5f;\n\
         \x20 o[i * 4 + 2] = (x.xy * x.zw).xyxy;\n\
         \x20 float4 t = (float4)(0.25f);\n\
         \x20 t.yw = x.hi;\n\
         \x20 o[i * 4 + 3] = t - x;\n\
         \x20 h[i] = x.odd + x.even;\n\
         }\n",
        c"fvec",
        c"",
    );
    let n = 33;
    let f: Vec<[f32; 4]> = (0..n)
        .map(|i| {
            [
                i as f32,
                -(i as f32) * 0.5,
                3.0 + i as f32,
                0.125 * i as f32,
            ]
        })
        .collect();
    let (bf, bo, bh, b3, bs) = (
        fx.buffer(&f),
        fx.filled([0f32; 4], n * 4),
        fx.filled([0f32; 2], n),
        fx.filled([0f32; 4], n),
        fx.filled(0i32, 3),
    );
    k.mem(0, &bf)
        .mem(1, &bo)
        .mem(2, &bh)
        .mem(3, &b3)
        .mem(4, &bs);
    fx.run(&k, None, &[n], None);
    let o: Vec<[f32; 4]> = fx.read(&bo, n * 4);
    let h: Vec<[f32; 2]> = fx.read(&bh, n);
    // §6.1.5: "For 3-component vector data types, the size of the data type is 4 *
    // sizeof(component)": a float3 array has a 16-byte stride.
    assert_eq!(
        fx.read::<i32>(&bs, 3),
        [16, 16, 16],
        "sizeof float3, int3, float4"
    );
    let o3: Vec<[f32; 4]> = fx.read(&b3, n);
    for (i, x) in f.iter().enumerate() {
        let [a, b, c, d] = *x;
        let expected = [
            [a, b * 2.0, d, 1.5],
            [c + 0.5, a + 0.5, b + 0.5, d + 0.5],
            [a * c, b * d, a * c, b * d],
            [0.25 - a, c - b, 0.25 - c, d - d],
        ];
        assert_eq!(&o[i * 4..i * 4 + 4], expected, "item {i}: x = {x:?}");
        assert_eq!(h[i], [b + a, d + c], "item {i}: odd + even");
        assert_eq!(o3[i][..3], [d, c, b], "item {i}: float3 store");
    }
}

// Conversions

#[test]
fn explicit_conversions_saturate_round_and_reinterpret() {
    // §6.2.3 explicit conversions: convert_<type>[_sat][_<rounding>]: out-of-range values
    // saturate with _sat ("NaN should be converted to 0"); float to integer rounds toward
    // zero by default, _rte/_rtp/_rtn round to nearest even / up / down; integer to float
    // rounds to nearest even by default. §6.2.4 as_<type>: the bits reinterpreted. The
    // inputs come from a buffer, so nothing is folded at compile time.
    let fx = Fixture::new();
    let k = fx.kernel(
        "kernel void conv(global const int *ii, global const float *fi,\n\
         \x20                global int *oi, global uint *ou, global float *of) {\n\
         \x20 oi[0] = convert_uchar_sat(ii[0]);\n\
         \x20 oi[1] = convert_uchar_sat(ii[1]);\n\
         \x20 oi[2] = convert_char_sat(ii[2]);\n\
         \x20 oi[3] = convert_short_sat(ii[3]);\n\
         \x20 oi[4] = convert_int_sat(fi[0]);\n\
         \x20 oi[5] = convert_int_sat(fi[1]);\n\
         \x20 oi[6] = convert_int_sat(fi[2]);\n\
         \x20 oi[7] = convert_int(fi[3]);\n\
         \x20 oi[8] = convert_int_rte(fi[4]);\n\
         \x20 oi[9] = convert_int_rte(fi[5]);\n\
         \x20 oi[10] = convert_int_rtp(fi[6]);\n\
         \x20 oi[11] = convert_int_rtn(fi[7]);\n\
         \x20 oi[12] = convert_char_sat_rte(fi[8]);\n\
         \x20 oi[13] = convert_char(ii[1]);\n\
         \x20 int4 v = convert_int4_sat((float4)(fi[4], fi[0], fi[1], fi[3]));\n\
         \x20 oi[14] = v.x; oi[15] = v.y; oi[16] = v.z; oi[17] = v.w;\n\
         \x20 uchar4 c = convert_uchar4_sat((int4)(ii[0], ii[1], 255, 256));\n\
         \x20 oi[18] = c.x; oi[19] = c.y; oi[20] = c.z; oi[21] = c.w;\n\
         \x20 ou[0] = convert_uint_sat(ii[4]);\n\
         \x20 ou[1] = as_uint(fi[9]);\n\
         \x20 ou[2] = convert_ushort_sat(ii[5]);\n\
         \x20 ou[3] = convert_uint(fi[10]);\n\
         \x20 int2 bits2 = as_int2((float2)(fi[9], -fi[9]));\n\
         \x20 ou[4] = bits2.x; ou[5] = bits2.y;\n\
         \x20 of[0] = as_float(ii[6]);\n\
         \x20 of[1] = convert_float(ii[7]);\n\
         \x20 of[2] = convert_float_rtz(ii[7]);\n\
         \x20 of[3] = convert_float_rtp(ii[8]);\n\
         \x20 of[4] = convert_float((uint)ii[4]);\n\
         \x20 of[5] = convert_float_rtn(-ii[7]);\n\
         }\n",
        c"conv",
        c"",
    );
    let ii: [i32; 9] = [
        -5,
        300,
        -200,
        40000,
        -1,
        70000,
        0x4049_0fdb,
        16_777_219,
        16_777_217,
    ];
    let fi: [f32; 11] = [
        3e9,
        -3e9,
        f32::NAN,
        -2.7,
        2.5,
        3.5,
        2.1,
        -2.1,
        200.7,
        1.0,
        3.9,
    ];
    let (bi, bf) = (fx.buffer(&ii), fx.buffer(&fi));
    let (oi, ou, of) = (
        fx.filled(0x5555i32, 22),
        fx.filled(0x5555u32, 6),
        fx.filled(0f32, 6),
    );
    k.mem(0, &bi)
        .mem(1, &bf)
        .mem(2, &oi)
        .mem(3, &ou)
        .mem(4, &of);
    fx.run(&k, None, &[1], None);
    assert_eq!(
        fx.read::<i32>(&oi, 22),
        [
            0,
            255,
            -128,
            32767,
            i32::MAX,
            i32::MIN,
            0,
            -2,
            2,
            4,
            3,
            -3,
            127,
            44, // 300 wraps to (char)44
            2,
            i32::MAX,
            i32::MIN,
            -2,
            0,
            255,
            255,
            255,
        ]
    );
    assert_eq!(
        fx.read::<u32>(&ou, 6),
        [0, 0x3f80_0000, 65535, 3, 0x3f80_0000, 0xbf80_0000]
    );
    assert_eq!(
        bits(&fx.read::<f32>(&of, 6)),
        bits(&[
            f32::from_bits(0x4049_0fdb),
            16_777_220.0,
            16_777_218.0,
            16_777_218.0,
            4_294_967_296.0,
            -16_777_220.0,
        ])
    );
}

// Functions, private memory, structs

#[test]
fn a_chain_of_user_functions() {
    // §6.9: user functions called from kernels and from each other, with scalar, vector and
    // pointer parameters (private pointers as out-parameters, a global pointer passed on).
    let fx = Fixture::new();
    let k = fx.kernel(
        "int depth3(int x) { return x % 7; }\n\
         int depth2(int x) { return depth3(x) * 2; }\n\
         int square_i(int x) { return x * x; }\n\
         int add3(int a, int b, int c) { return a + b + c; }\n\
         void split(int v, int *hi, int *lo) { *hi = v >> 8; *lo = v & 255; }\n\
         int chain(int x) { int h, l; split(x, &h, &l); return add3(square_i(h), l, depth2(x)); }\n\
         void store(global int *p, size_t i, int v) { p[i] = v; }\n\
         kernel void calls(global const int *in, global int *out) {\n\
         \x20 size_t i = get_global_id(0);\n\
         \x20 store(out, i, chain(in[i]));\n\
         }\n",
        c"calls",
        c"",
    );
    let n = 257;
    let input: Vec<i32> = (0..n as i32).map(|i| i * 97 + 5).collect();
    let (bi, bo) = (fx.buffer(&input), fx.filled(0i32, n));
    k.mem(0, &bi).mem(1, &bo);
    fx.run(&k, None, &[n], None);
    let expected: Vec<i32> = input
        .iter()
        .map(|&x| {
            let (h, l) = (x >> 8, x & 255);
            h * h + l + (x % 7) * 2
        })
        .collect();
    assert_same(&fx.read::<i32>(&bo, n), &expected, "chain");
}

#[test]
fn user_functions_take_and_return_vectors() {
    // §6.9: a function's parameters and return value may be of any vector type.
    let fx = Fixture::new();
    let k = fx.kernel(
        "int2 swap2(int2 v) { return v.yx; }\n\
         float3 add3f(float3 a, float3 b) { return a + b; }\n\
         int4 twice4(int4 v) { return v + v; }\n\
         float8 spread8(float x) { return (float8)(x, x + 1.0f, x + 2.0f, x + 3.0f,\n\
         \x20                                        x + 4.0f, x + 5.0f, x + 6.0f, x + 7.0f); }\n\
         kernel void vecs(global const int *in, global int *out) {\n\
         \x20 size_t i = get_global_id(0);\n\
         \x20 int x = in[i];\n\
         \x20 int2 a = swap2((int2)(x, 1));\n\
         \x20 float3 b = add3f((float3)(x, 2.0f, 3.0f), (float3)(0.5f));\n\
         \x20 int4 c = twice4((int4)(x, 1, 2, 3));\n\
         \x20 float8 d = spread8((float)x);\n\
         \x20 global int *o = out + i * 8;\n\
         \x20 o[0] = a.x; o[1] = a.y; o[2] = (int)(b.x * 2.0f); o[3] = (int)(b.z * 2.0f);\n\
         \x20 o[4] = c.x; o[5] = c.w; o[6] = (int)d.s0; o[7] = (int)d.s7;\n\
         }\n",
        c"vecs",
        c"",
    );
    let n = 40;
    let input: Vec<i32> = (0..n as i32).map(|i| i * 5 - 50).collect();
    let (bi, bo) = (fx.buffer(&input), fx.filled(0i32, n * 8));
    k.mem(0, &bi).mem(1, &bo);
    fx.run(&k, None, &[n], None);
    let expected: Vec<i32> = input
        .iter()
        .flat_map(|&x| [1, x, 2 * x + 1, 7, 2 * x, 6, x, x + 7])
        .collect();
    assert_same(&fx.read::<i32>(&bo, n * 8), &expected, "vector functions");
}

#[test]
fn user_functions_take_and_return_structs() {
    // §6.9 (C99 §6.5.2.2, §6.8.6.4): structs passed to and returned from functions by
    // value; a member of the returned value may be read directly (C99 §6.5.2.3: "a postfix
    // expression ... followed by the . operator and an identifier designates a member of a
    // structure", which need not be an lvalue).
    let fx = Fixture::new();
    let decls = "typedef struct { int a; float b; int4 v; } S;\n\
                 S make(int x) { S s; s.a = x; s.b = (float)x * 0.5f; s.v = (int4)(x, 2, 3, 4); return s; }\n\
                 int total(S s) { return s.a + (int)(s.b * 2.0f) + s.v.x + s.v.w; }\n";
    let stored = format!(
        "{decls}kernel void k(global const int *in, global int *out) {{\n\
         \x20 size_t i = get_global_id(0);\n\
         \x20 S s = make(in[i]);\n\
         \x20 out[i] = total(s) + s.v.y;\n\
         }}\n"
    );
    let direct = format!(
        "{decls}kernel void k(global const int *in, global int *out) {{\n\
         \x20 size_t i = get_global_id(0);\n\
         \x20 out[i] = total(make(in[i])) + make(in[i]).v.y;\n\
         }}\n"
    );
    let n = 30;
    let input: Vec<i32> = (0..n as i32).map(|i| i * 11 - 70).collect();
    // total = a + 2b + v.x + v.w = 3x + 4, plus v.y = 2.
    let expected: Vec<i32> = input.iter().map(|&x| 3 * x + 6).collect();
    for (source, what) in [(stored, "through a variable"), (direct, "used directly")] {
        let k = fx.kernel(&source, c"k", c"");
        let (bi, bo) = (fx.buffer(&input), fx.filled(0i32, n));
        k.mem(0, &bi).mem(1, &bo);
        fx.run(&k, None, &[n], None);
        assert_same(&fx.read::<i32>(&bo, n), &expected, what);
    }
}

#[test]
fn private_arrays_indexed_at_run_time() {
    // §6.5: private arrays of a work-item, written and read at indices computed at run
    // time: an insertion sort of 16 values per work-item, and a 4 x 4 transpose.
    let fx = Fixture::new();
    let k = fx.kernel(
        "kernel void sort16(global const int *in, global int *out, global int *tr) {\n\
         \x20 size_t g = get_global_id(0);\n\
         \x20 int a[16];\n\
         \x20 for (int i = 0; i < 16; i++) a[i] = in[g * 16 + i];\n\
         \x20 for (int i = 1; i < 16; i++) {\n\
         \x20   int v = a[i]; int j = i - 1;\n\
         \x20   while (j >= 0 && a[j] > v) { a[j + 1] = a[j]; j--; }\n\
         \x20   a[j + 1] = v;\n\
         \x20 }\n\
         \x20 for (int i = 0; i < 16; i++) out[g * 16 + i] = a[i];\n\
         \x20 int m[4][4];\n\
         \x20 for (int r = 0; r < 4; r++) for (int c = 0; c < 4; c++) m[r][c] = in[g * 16 + r * 4 + c];\n\
         \x20 for (int r = 0; r < 4; r++) for (int c = 0; c < 4; c++) tr[g * 16 + r * 4 + c] = m[c][r];\n\
         }\n",
        c"sort16",
        c"",
    );
    let n = 61;
    let mut rng = Rng(3);
    let input = rng.ints(n * 16, -50, 50);
    let (bi, bo, bt) = (
        fx.buffer(&input),
        fx.filled(0i32, n * 16),
        fx.filled(0i32, n * 16),
    );
    k.mem(0, &bi).mem(1, &bo).mem(2, &bt);
    fx.run(&k, None, &[n], None);
    let mut expected = input.clone();
    for chunk in expected.chunks_mut(16) {
        chunk.sort();
    }
    assert_same(&fx.read::<i32>(&bo, n * 16), &expected, "sorted");
    let transposed: Vec<i32> = (0..n * 16)
        .map(|i| {
            let (g, r, c) = (i / 16, i % 16 / 4, i % 4);
            input[g * 16 + c * 4 + r]
        })
        .collect();
    assert_same(&fx.read::<i32>(&bt, n * 16), &transposed, "transposed");
}

/// `Params` of the struct test as the host's C compiler lays it out: `float4` (16-byte
/// aligned) at 0, `int` at 16, `float` at 20, padded to 32.
fn params_bytes(v: [f32; 4], n: i32, s: f32) -> Vec<u8> {
    let mut bytes = Vec::new();
    bytes.extend_from_slice(bytes_of(&v));
    bytes.extend_from_slice(&n.to_ne_bytes());
    bytes.extend_from_slice(&s.to_ne_bytes());
    bytes.resize(32, 0);
    bytes
}

#[test]
fn structs_passed_by_value_and_in_buffers_use_the_c_layout() {
    // §6.1.5 / §6.9: a struct kernel argument passed by value (clSetKernelArg with
    // sizeof the struct), and structs in a global buffer, laid out as the host's C
    // compiler lays out the same declaration (float4 aligned to 16 bytes; a char, int,
    // float2, short struct with its padding).
    let fx = Fixture::new();
    let k = fx.kernel(
        "typedef struct { float4 v; int n; float s; } Params;\n\
         typedef struct { char c; int i; float2 f; short s; } Mixed;\n\
         kernel void structs(Params p, global float *out, Mixed m, global const Params *ps) {\n\
         \x20 size_t i = get_global_id(0);\n\
         \x20 if (i == 0) {\n\
         \x20   out[0] = p.v.x; out[1] = p.v.y; out[2] = p.v.z; out[3] = p.v.w;\n\
         \x20   out[4] = (float)p.n; out[5] = p.s;\n\
         \x20   out[6] = m.c; out[7] = m.i; out[8] = m.f.x; out[9] = m.f.y; out[10] = m.s;\n\
         \x20   out[11] = sizeof(Params); out[12] = sizeof(Mixed);\n\
         \x20 }\n\
         \x20 out[16 + i] = p.v.x * (float)i + p.s + (float)ps[i % 3].n + ps[i % 3].v.w;\n\
         }\n",
        c"structs",
        c"",
    );
    let p = params_bytes([1.5, -2.0, 0.25, 8.0], 17, 0.5);
    let mut m = vec![0u8; 24];
    m[0] = (-7i8) as u8;
    m[4..8].copy_from_slice(&123_456i32.to_ne_bytes());
    m[8..12].copy_from_slice(&2.5f32.to_ne_bytes());
    m[12..16].copy_from_slice(&(-0.75f32).to_ne_bytes());
    m[16..18].copy_from_slice(&(-300i16).to_ne_bytes());
    let table: Vec<u8> = [
        params_bytes([0.0, 0.0, 0.0, 1.0], 10, 0.0),
        params_bytes([0.0, 0.0, 0.0, 2.0], 20, 0.0),
        params_bytes([0.0, 0.0, 0.0, 4.0], 30, 0.0),
    ]
    .concat();
    let n = 40;
    let (out, ps) = (fx.filled(0f32, 16 + n), fx.buffer(&table));
    k.arg_bytes(0, &p).mem(1, &out).arg_bytes(2, &m).mem(3, &ps);
    fx.run(&k, None, &[n], None);
    let v: Vec<f32> = fx.read(&out, 16 + n);
    assert_eq!(
        &v[..13],
        [
            1.5, -2.0, 0.25, 8.0, 17.0, 0.5, -7.0, 123_456.0, 2.5, -0.75, -300.0, 32.0, 24.0
        ]
    );
    let expected: Vec<f32> = (0..n)
        .map(|i| {
            let (tn, tw) = [(10.0, 1.0), (20.0, 2.0), (30.0, 4.0)][i % 3];
            1.5 * i as f32 + 0.5 + tn + tw
        })
        .collect();
    assert_same(&v[16..], &expected, "per-item struct reads");
}

#[test]
fn a_kernel_calls_another_kernel_like_a_function() {
    // 6.7.1: "A kernel function ... can also be called by another kernel function": the
    // called kernel runs as an ordinary function of the calling work-item (its work-item
    // functions answer for the caller's item), and remains a kernel of its own.
    let fx = Fixture::new();
    let source = "kernel void scale(global float *p, float s) {\n\
                  \x20 size_t i = get_global_id(0);\n\
                  \x20 p[i] = p[i] * s + (float)get_local_id(0);\n\
                  }\n\
                  kernel void twice(global float *p) { scale(p, 2.0f); scale(p, 3.0f); }\n";
    let twice = fx.kernel(source, c"twice", c"");
    let scale = fx.kernel(source, c"scale", c"");
    let n = 50;
    let input: Vec<f32> = (0..n).map(|i| i as f32 - 20.0).collect();
    let a = fx.buffer(&input);
    twice.mem(0, &a);
    fx.run(&twice, None, &[n], Some(&[10]));
    let b = fx.buffer(&input);
    scale.mem(0, &b).arg(1, 0.5f32);
    fx.run(&scale, None, &[n], Some(&[5]));
    let twice_expected: Vec<f32> = input
        .iter()
        .enumerate()
        .map(|(i, x)| {
            let l = (i % 10) as f32;
            (x * 2.0 + l) * 3.0 + l
        })
        .collect();
    let scale_expected: Vec<f32> = input
        .iter()
        .enumerate()
        .map(|(i, x)| x * 0.5 + (i % 5) as f32)
        .collect();
    assert_same(
        &fx.read::<f32>(&a, n),
        &twice_expected,
        "twice (calls scale)",
    );
    assert_same(&fx.read::<f32>(&b, n), &scale_expected, "scale on its own");
}

#[test]
fn a_called_kernel_with_barriers_and_local_variables_runs_inlined() {
    // 6.7.1: "a kernel function ... can also be called by another kernel function". A
    // called kernel that synchronizes the group (here with a kernel-scope __local array) is
    // inlined into its caller, its __local variable taking a place in the caller's local
    // memory; it still runs as a kernel of its own too.
    let fx = Fixture::new();
    let source = "kernel void inner(global int *a) {
            local int t[8];
            int lid = get_local_id(0);
            t[lid] = a[get_global_id(0)];
            barrier(CLK_LOCAL_MEM_FENCE);
            a[get_global_id(0)] = t[7 - lid];
        }
        kernel void outer(global int *a) { inner(a); inner(a); a[get_global_id(0)] += 1000; }";
    let outer = fx.kernel(source, c"outer", c"");
    let inner = outer.sibling("inner");
    let input: Vec<i32> = (0..16).collect();
    let a = fx.buffer(&input);
    inner.mem(0, &a);
    fx.run(&inner, None, &[16], Some(&[8]));
    let mirrored: Vec<i32> = input
        .chunks(8)
        .flat_map(|c| c.iter().rev().copied())
        .collect();
    assert_same(
        &fx.read::<i32>(&a, 16),
        &mirrored,
        "inner alone mirrors each group",
    );
    outer.mem(0, &a);
    fx.run(&outer, None, &[16], Some(&[8]));
    // Two mirrorings give back what `a` held (the mirrored input), plus 1000.
    let want: Vec<i32> = mirrored.iter().map(|v| v + 1000).collect();
    assert_same(&fx.read::<i32>(&a, 16), &want, "outer calls inner twice");
}

// Address spaces

#[test]
fn constant_program_scope_tables_and_constant_arguments() {
    // §6.5.3: program-scope variables in the __constant address space, initialised in the
    // source (1D, 2D and implicitly sized arrays), and a __constant pointer argument backed
    // by a buffer.
    let fx = Fixture::new();
    let k = fx.kernel(
        "constant int primes[8] = {2, 3, 5, 7, 11, 13, 17, 19};\n\
         constant float weights[] = {0.5f, 0.25f, 0.125f};\n\
         constant uchar grid[2][3] = {{1, 2, 3}, {4, 5, 6}};\n\
         kernel void tables(global int *out, global float *fout, constant int *lut) {\n\
         \x20 size_t i = get_global_id(0);\n\
         \x20 out[i] = primes[i % 8] * grid[i % 2][i % 3] + lut[i % 4];\n\
         \x20 fout[i] = weights[i % 3] * (float)i;\n\
         }\n",
        c"tables",
        c"",
    );
    let n = 100;
    let lut = [1000i32, 2000, 3000, 4000];
    let (out, fout, blut) = (fx.filled(0i32, n), fx.filled(0f32, n), fx.buffer(&lut));
    k.mem(0, &out).mem(1, &fout).mem(2, &blut);
    fx.run(&k, None, &[n], Some(&[10]));
    let primes = [2, 3, 5, 7, 11, 13, 17, 19];
    let grid = [[1, 2, 3], [4, 5, 6]];
    let expected: Vec<i32> = (0..n)
        .map(|i| primes[i % 8] * grid[i % 2][i % 3] + lut[i % 4])
        .collect();
    assert_same(&fx.read::<i32>(&out, n), &expected, "int tables");
    let fexpected: Vec<f32> = (0..n)
        .map(|i| [0.5f32, 0.25, 0.125][i % 3] * i as f32)
        .collect();
    assert_same(&fx.read::<f32>(&fout, n), &fexpected, "float table");
}

#[test]
fn local_arrays_and_local_pointer_arguments_are_distinct_per_group_memory() {
    // §6.5.2: a __local array declared in the kernel and __local pointer arguments sized by
    // clSetKernelArg are separate allocations of the work-group's local memory. Without
    // barriers each work-item only reads the slots it wrote itself.
    let fx = Fixture::new();
    let k = fx.kernel(
        "kernel void locals(global int *out, local int *a, local int4 *b) {\n\
         \x20 local int tile[64];\n\
         \x20 size_t l = get_local_id(0), g = get_global_id(0);\n\
         \x20 tile[l] = (int)g * 3;\n\
         \x20 a[l] = tile[l] + 1;\n\
         \x20 b[l] = (int4)(a[l] * 2, tile[l], -1, (int)l);\n\
         \x20 out[g] = tile[l] + a[l] + b[l].x + b[l].y + b[l].w;\n\
         }\n",
        c"locals",
        c"",
    );
    for (global, local) in [(128usize, 32usize), (192, 64), (45, 15), (7, 1)] {
        let out = fx.filled(0i32, global);
        k.mem(0, &out).local(1, local * 4).local(2, local * 16);
        fx.run(&k, None, &[global], Some(&[local]));
        let expected: Vec<i32> = (0..global as i32)
            .map(|g| {
                let l = g % local as i32;
                3 * g + (3 * g + 1) + 2 * (3 * g + 1) + 3 * g + l
            })
            .collect();
        assert_same(
            &fx.read::<i32>(&out, global),
            &expected,
            &format!("global {global} local {local}"),
        );
    }
}

// Whole programs

/// The Mandelbrot iteration count of one point, in the kernel's order of operations.
fn mandelbrot_host(cr: f32, ci: f32, max_iter: i32) -> i32 {
    let (mut zr, mut zi, mut n) = (0f32, 0f32, 0);
    while n < max_iter && zr * zr + zi * zi <= 4.0 {
        let t = zr * zr - zi * zi + cr;
        zi = 2.0 * zr * zi + ci;
        zr = t;
        n += 1;
    }
    n
}

#[test]
fn mandelbrot_iteration_counts_match_the_host() {
    // A 2D range; float arithmetic with FP_CONTRACT OFF is exactly IEEE single precision,
    // so every iteration count equals the host's.
    let fx = Fixture::new();
    let k = fx.kernel(
        "#pragma OPENCL FP_CONTRACT OFF\n\
         kernel void mandel(global int *out, float x0, float y0, float dx, float dy, int max_iter) {\n\
         \x20 int px = get_global_id(0), py = get_global_id(1), w = get_global_size(0);\n\
         \x20 float cr = x0 + (float)px * dx, ci = y0 + (float)py * dy;\n\
         \x20 float zr = 0.0f, zi = 0.0f; int n = 0;\n\
         \x20 while (n < max_iter && zr * zr + zi * zi <= 4.0f) {\n\
         \x20   float t = zr * zr - zi * zi + cr;\n\
         \x20   zi = 2.0f * zr * zi + ci;\n\
         \x20   zr = t;\n\
         \x20   n++;\n\
         \x20 }\n\
         \x20 out[py * w + px] = n;\n\
         }\n",
        c"mandel",
        c"",
    );
    let (w, h, max_iter) = (96usize, 64usize, 200);
    let (x0, y0, dx, dy) = (-2.2f32, -1.2f32, 3.0 / w as f32, 2.4 / h as f32);
    let expected: Vec<i32> = (0..w * h)
        .map(|i| {
            let (px, py) = (i % w, i / w);
            mandelbrot_host(x0 + px as f32 * dx, y0 + py as f32 * dy, max_iter)
        })
        .collect();
    for local in [Some([16usize, 8]), None, Some([3, 64])] {
        let out = fx.filled(-1i32, w * h);
        k.mem(0, &out)
            .arg(1, x0)
            .arg(2, y0)
            .arg(3, dx)
            .arg(4, dy)
            .arg(5, max_iter);
        fx.run(&k, None, &[w, h], local.as_ref().map(|l| &l[..]));
        assert_same(
            &fx.read::<i32>(&out, w * h),
            &expected,
            &format!("mandelbrot local {local:?}"),
        );
    }
}

#[test]
fn convolution_2d_matches_the_host() {
    // A 5 x 5 filter over a 37 x 23 image with clamped borders, one work-item per output
    // pixel, no local memory; the sums are taken in the host's order with FP_CONTRACT OFF.
    let fx = Fixture::new();
    let k = fx.kernel(
        "#pragma OPENCL FP_CONTRACT OFF\n\
         kernel void conv(global const float *img, global const float *flt, global float *out,\n\
         \x20                int w, int h) {\n\
         \x20 int x = get_global_id(0), y = get_global_id(1);\n\
         \x20 float sum = 0.0f;\n\
         \x20 for (int fy = 0; fy < 5; fy++) {\n\
         \x20   for (int fx = 0; fx < 5; fx++) {\n\
         \x20     int sx = clamp(x + fx - 2, 0, w - 1), sy = clamp(y + fy - 2, 0, h - 1);\n\
         \x20     sum += img[sy * w + sx] * flt[fy * 5 + fx];\n\
         \x20   }\n\
         \x20 }\n\
         \x20 out[y * w + x] = sum;\n\
         }\n",
        c"conv",
        c"",
    );
    let (w, h) = (37usize, 23usize);
    let mut rng = Rng(11);
    let img = rng.floats(w * h, 0.0, 1.0);
    let flt = rng.floats(25, -1.0, 1.0);
    let mut expected = vec![0f32; w * h];
    for y in 0..h as i32 {
        for x in 0..w as i32 {
            let mut sum = 0f32;
            for fy in 0..5 {
                for fx in 0..5 {
                    let sx = (x + fx - 2).clamp(0, w as i32 - 1) as usize;
                    let sy = (y + fy - 2).clamp(0, h as i32 - 1) as usize;
                    sum += img[sy * w + sx] * flt[(fy * 5 + fx) as usize];
                }
            }
            expected[y as usize * w + x as usize] = sum;
        }
    }
    let (bi, bf) = (fx.buffer(&img), fx.buffer(&flt));
    for local in [None, Some([37usize, 1]), Some([1, 23])] {
        let out = fx.filled(f32::NAN, w * h);
        k.mem(0, &bi)
            .mem(1, &bf)
            .mem(2, &out)
            .arg(3, w as i32)
            .arg(4, h as i32);
        fx.run(&k, None, &[w, h], local.as_ref().map(|l| &l[..]));
        let actual: Vec<f32> = fx.read(&out, w * h);
        for (i, (a, e)) in actual.iter().zip(&expected).enumerate() {
            assert!(
                (a - e).abs() <= 1e-5 * e.abs().max(1.0),
                "conv local {local:?}: pixel ({}, {}): got {a}, expected {e}",
                i % w,
                i / w
            );
        }
    }
}

#[test]
fn naive_sgemm_matches_the_host_within_tolerance() {
    // C = A x B for 33 x 61 times 61 x 47 matrices, one work-item per element of C (a 2D
    // range over columns and rows). The sum of 61 products is compared with a
    // double-precision host result within a relative tolerance (the implementation may
    // fuse multiply-adds).
    let fx = Fixture::new();
    let k = fx.kernel(
        "kernel void sgemm(int m, int n, int kk, global const float *a, global const float *b,\n\
         \x20                 global float *c) {\n\
         \x20 int col = get_global_id(0), row = get_global_id(1);\n\
         \x20 float sum = 0.0f;\n\
         \x20 for (int k = 0; k < kk; k++) sum += a[row * kk + k] * b[k * n + col];\n\
         \x20 c[row * n + col] = sum;\n\
         }\n",
        c"sgemm",
        c"",
    );
    let (m, n, kk) = (33usize, 47usize, 61usize);
    let mut rng = Rng(23);
    let a = rng.floats(m * kk, -1.0, 1.0);
    let b = rng.floats(kk * n, -1.0, 1.0);
    let (ba, bb) = (fx.buffer(&a), fx.buffer(&b));
    for local in [None, Some([47usize, 3]), Some([1, 1])] {
        let c = fx.filled(f32::NAN, m * n);
        k.arg(0, m as i32)
            .arg(1, n as i32)
            .arg(2, kk as i32)
            .mem(3, &ba)
            .mem(4, &bb)
            .mem(5, &c);
        fx.run(&k, None, &[n, m], local.as_ref().map(|l| &l[..]));
        let actual: Vec<f32> = fx.read(&c, m * n);
        for row in 0..m {
            for col in 0..n {
                let exact: f64 = (0..kk)
                    .map(|k| a[row * kk + k] as f64 * b[k * n + col] as f64)
                    .sum();
                let magnitude: f64 = (0..kk)
                    .map(|k| (a[row * kk + k] as f64 * b[k * n + col] as f64).abs())
                    .sum();
                let got = actual[row * n + col] as f64;
                assert!(
                    (got - exact).abs() <= 1e-5 * magnitude.max(1e-3),
                    "sgemm local {local:?}: C[{row}][{col}] = {got}, expected {exact}"
                );
            }
        }
    }
}

#[test]
fn a_task_runs_one_work_item() {
    // clEnqueueTask: "The kernel is executed using a single work-item ... equivalent to
    // calling clEnqueueNDRangeKernel with work_dim = 1, global_work_offset = NULL,
    // global_work_size[0] set to 1 and local_work_size[0] set to 1."
    let fx = Fixture::new();
    let k = fx.kernel(
        "kernel void total(global const int *in, int n, global int *out) {\n\
         \x20 int s = 0;\n\
         \x20 for (int i = 0; i < n; i++) s += in[i];\n\
         \x20 out[0] = s;\n\
         \x20 out[1] = get_global_size(0); out[2] = get_work_dim(); out[3] = get_local_size(0);\n\
         \x20 out[4] = get_global_id(0); out[5] = get_num_groups(0); out[6] = get_global_offset(0);\n\
         \x20 out[7] = atomic_inc(&out[7]);\n\
         }\n",
        c"total",
        c"",
    );
    let input: Vec<i32> = (1..=1000).collect();
    let (bi, out) = (fx.buffer(&input), fx.filled(0i32, 8));
    k.mem(0, &bi).arg(1, 1000i32).mem(2, &out);
    let mut event = null_mut();
    assert_eq!(
        api().enqueue_task(fx.queue, k.kernel, Waits::NONE, Some(&mut event)),
        CL_SUCCESS
    );
    assert_eq!(api().wait_for_events(&[event]), CL_SUCCESS);
    assert_eq!(api().release_event(event), CL_SUCCESS);
    // One item: the atomic increment ran once (and its old value, 0, was then stored).
    assert_eq!(fx.read::<i32>(&out, 8), [500_500, 1, 1, 1, 0, 1, 0, 0]);
}

#[test]
fn barrier_orders_local_memory_within_a_work_group() {
    // §6.12.8 barrier: "All work-items in a work-group executing the kernel on a processor
    // must execute this function before any are allowed to continue execution beyond the
    // barrier"; with CLK_LOCAL_MEM_FENCE the local-memory writes before it are visible to
    // every work-item of the group after it. Each group reverses its slice through a
    // __local array and through a __local argument, keeping a private value across the
    // barrier.
    let fx = Fixture::new();
    let k = fx.kernel(
        "kernel void reverse(global const int *in, global int *out, local int *scratch) {\n\
         \x20 local int tile[256];\n\
         \x20 size_t l = get_local_id(0), n = get_local_size(0), g = get_global_id(0);\n\
         \x20 int mine = in[g] * 3;\n\
         \x20 tile[l] = in[g];\n\
         \x20 scratch[l] = in[g] + 1;\n\
         \x20 barrier(CLK_LOCAL_MEM_FENCE);\n\
         \x20 out[g] = tile[n - 1 - l] * 1000 + scratch[(l + 1) % n] + mine;\n\
         }\n",
        c"reverse",
        c"",
    );
    for (global, local) in [(256usize, 256usize), (96, 32), (35, 7), (5, 1), (250, 125)] {
        let input: Vec<i32> = (0..global as i32).map(|i| i * 7 - 100).collect();
        let (bi, bo) = (fx.buffer(&input), fx.filled(0i32, global));
        k.mem(0, &bi).mem(1, &bo).local(2, local * 4);
        fx.run(&k, None, &[global], Some(&[local]));
        let expected: Vec<i32> = (0..global)
            .map(|g| {
                let (base, l) = (g - g % local, g % local);
                input[base + local - 1 - l] * 1000
                    + input[base + (l + 1) % local]
                    + 1
                    + input[g] * 3
            })
            .collect();
        assert_same(
            &fx.read::<i32>(&bo, global),
            &expected,
            &format!("reverse global {global} local {local}"),
        );
    }
}

#[test]
fn barrier_in_a_loop_makes_a_tree_reduction() {
    // A barrier inside a loop whose trip count is the same for every work-item of the group
    // (the spec's requirement: "If barrier is inside a loop, all work-items must execute the
    // barrier for each iteration of the loop before any are allowed to continue"): the
    // classic tree sum of each group's values.
    let fx = Fixture::new();
    let k = fx.kernel(
        "kernel void group_sum(global const int *in, global int *sums, local int *t) {\n\
         \x20 size_t l = get_local_id(0);\n\
         \x20 t[l] = in[get_global_id(0)];\n\
         \x20 barrier(CLK_LOCAL_MEM_FENCE);\n\
         \x20 for (size_t s = get_local_size(0) / 2; s > 0; s >>= 1) {\n\
         \x20   if (l < s) t[l] += t[l + s];\n\
         \x20   barrier(CLK_LOCAL_MEM_FENCE);\n\
         \x20 }\n\
         \x20 if (l == 0) sums[get_group_id(0)] = t[0];\n\
         }\n",
        c"group_sum",
        c"",
    );
    let mut rng = Rng(31);
    for (global, local) in [(4096usize, 256usize), (1024, 1024), (96, 32), (8, 1)] {
        let input = rng.ints(global, -1000, 1000);
        let groups = global / local;
        let (bi, bs) = (fx.buffer(&input), fx.filled(0i32, groups));
        k.mem(0, &bi).mem(1, &bs).local(2, local * 4);
        fx.run(&k, None, &[global], Some(&[local]));
        let expected: Vec<i32> = input.chunks(local).map(|c| c.iter().sum()).collect();
        assert_same(
            &fx.read::<i32>(&bs, groups),
            &expected,
            &format!("group sums global {global} local {local}"),
        );
    }
}

#[test]
fn barriers_in_called_functions_synchronize_the_group() {
    // 6.12.8: "The barrier function must be encountered by all work-items in a work-group
    // executing the kernel" — also from a function the kernel calls, here two levels deep,
    // in a loop, with the result of a synchronizing helper returned and assigned. Each group
    // reverses its slice through local memory, then sums its slice by a tree reduction.
    let fx = Fixture::new();
    let k = fx.kernel(
        "void sync(void) { barrier(CLK_LOCAL_MEM_FENCE); }
        void stage(local int *t, int i, int v) { t[i] = v; sync(); }
        int tree_sum(local int *t, int lid, int n) {
            for (int s = n / 2; s > 0; s /= 2) {
                if (lid < s) t[lid] += t[lid + s];
                barrier(CLK_LOCAL_MEM_FENCE);
            }
            return t[0];
        }
        kernel void k(global int *a, global int *sums, local int *t) {
            int lid = get_local_id(0), n = get_local_size(0);
            int g = get_global_id(0);
            stage(t, lid, a[g]);
            int mirrored = t[n - 1 - lid];
            sync();
            stage(t, lid, mirrored);
            a[g] = t[lid];
            sync();
            int total;
            total = tree_sum(t, lid, n);
            if (lid == 0) sums[get_group_id(0)] = total;
        }",
        c"k",
        c"",
    );
    for (n, local) in [(256usize, 64usize), (96, 32), (8, 8)] {
        let input: Vec<i32> = (0..n as i32).map(|i| i * 7 - 100).collect();
        let (a, sums) = (fx.buffer(&input), fx.filled(0i32, n / local));
        k.mem(0, &a).mem(1, &sums).local(2, local * 4);
        fx.run(&k, None, &[n], Some(&[local]));
        let mut expected = input.clone();
        for chunk in expected.chunks_mut(local) {
            chunk.reverse();
        }
        assert_same(
            &fx.read::<i32>(&a, n),
            &expected,
            &format!("reversed, local {local}"),
        );
        let want: Vec<i32> = input.chunks(local).map(|c| c.iter().sum()).collect();
        assert_same(&fx.read::<i32>(&sums, n / local), &want, "group sums");
    }
}

#[test]
fn break_and_continue_in_loops_with_barriers() {
    // A loop that contains barriers may leave early or skip an iteration when the whole
    // group decides so (its control flow is uniform, 6.12.8): here an iterative smoothing
    // over local memory that skips odd rounds and stops when a uniform bound is reached.
    let fx = Fixture::new();
    let k = fx.kernel(
        "kernel void k(global int *a, global int *rounds, local int *t, int limit) {
            int lid = get_local_id(0), n = get_local_size(0);
            t[lid] = a[get_global_id(0)];
            barrier(CLK_LOCAL_MEM_FENCE);
            int r = 0;
            for (int round = 0; round < 100; round++) {
                if (round == limit) break;
                if (round % 2 == 1) continue;
                int left = t[(lid + n - 1) % n], right = t[(lid + 1) % n];
                barrier(CLK_LOCAL_MEM_FENCE);
                t[lid] = left + right;
                barrier(CLK_LOCAL_MEM_FENCE);
                r++;
            }
            a[get_global_id(0)] = t[lid];
            if (lid == 0) rounds[get_group_id(0)] = r;
        }",
        c"k",
        c"",
    );
    let (n, local, limit) = (64usize, 16usize, 7i32);
    let input: Vec<i32> = (0..n as i32).map(|i| i % 5).collect();
    let (a, rounds) = (fx.buffer(&input), fx.filled(0i32, n / local));
    k.mem(0, &a)
        .mem(1, &rounds)
        .local(2, local * 4)
        .arg(3, limit);
    fx.run(&k, None, &[n], Some(&[local]));
    let mut expected = Vec::new();
    for chunk in input.chunks(local) {
        let mut t = chunk.to_vec();
        for round in 0..limit {
            if round % 2 == 1 {
                continue;
            }
            t = (0..local)
                .map(|l| t[(l + local - 1) % local] + t[(l + 1) % local])
                .collect();
        }
        expected.extend(t);
    }
    assert_same(&fx.read::<i32>(&a, n), &expected, "smoothed");
    assert_eq!(fx.read::<i32>(&rounds, n / local), vec![4; n / local]);
}

#[test]
fn return_in_kernels_with_barriers_ends_the_work_item() {
    // A `return` ends the work-item for the rest of the kernel, also past later barriers:
    // a whole group returning between two barriers (group 1), a group-level loop left by
    // `return` (`for (;;)`), and items returning after the last barrier.
    let fx = Fixture::new();
    let k = fx.kernel(
        "kernel void k(global int *out, local int *t, int limit) {
            int lid = get_local_id(0), g = get_global_id(0);
            out[g] = 1;
            t[lid] = lid;
            barrier(CLK_LOCAL_MEM_FENCE);
            if (get_group_id(0) == 1) return;
            out[g] += 10;
            int round = 0;
            for (;;) {
                if (round == limit && get_group_id(0) == 2) return;
                if (round == limit) break;
                t[lid] += 1;
                barrier(CLK_LOCAL_MEM_FENCE);
                round++;
            }
            out[g] += 100 * round;
            barrier(CLK_LOCAL_MEM_FENCE);
            if (lid >= 4) return;
            out[g] += 1000 + t[(lid + 1) % get_local_size(0)];
        }",
        c"k",
        c"",
    );
    let (groups, local, limit) = (4usize, 8usize, 3i32);
    let out = fx.filled(0i32, groups * local);
    k.mem(0, &out).local(1, local * 4).arg(2, limit);
    fx.run(&k, None, &[groups * local], Some(&[local]));
    let got = fx.read::<i32>(&out, groups * local);
    for g in 0..groups {
        for l in 0..local {
            let want = match g {
                1 => 1,
                2 => 11,
                _ if l >= 4 => 11 + 300,
                _ => 11 + 300 + 1000 + ((l + 1) % local) as i32 + limit,
            };
            assert_eq!(got[g * local + l], want, "group {g} item {l}");
        }
    }
}

#[test]
fn barriers_inside_a_switch() {
    // A switch on a uniform value whose cases synchronize: each case (with fall-through
    // from `case 1` into `case 2`, and a default) runs its barriers as the group does.
    let fx = Fixture::new();
    let k = fx.kernel(
        "kernel void k(global int *out, local int *t, int mode) {
            int lid = get_local_id(0), n = get_local_size(0);
            t[lid] = lid;
            barrier(CLK_LOCAL_MEM_FENCE);
            int v = 0;
            switch (mode) {
            case 1:
                v += 100;
            case 2: {
                int mirrored = t[n - 1 - lid];
                barrier(CLK_LOCAL_MEM_FENCE);
                t[lid] = mirrored;
                barrier(CLK_LOCAL_MEM_FENCE);
                v += t[lid];
                break;
            }
            default:
                v = -1;
                barrier(CLK_LOCAL_MEM_FENCE);
                break;
            }
            out[get_global_id(0)] = v;
        }",
        c"k",
        c"",
    );
    let (n, local) = (32usize, 8usize);
    for (mode, bonus) in [(1i32, 100i32), (2, 0), (7, 0)] {
        let out = fx.filled(0i32, n);
        k.mem(0, &out).local(1, local * 4).arg(2, mode);
        fx.run(&k, None, &[n], Some(&[local]));
        let want: Vec<i32> = (0..n)
            .map(|g| {
                if mode == 7 {
                    -1
                } else {
                    bonus + (local - 1 - g % local) as i32
                }
            })
            .collect();
        assert_same(&fx.read::<i32>(&out, n), &want, &format!("mode {mode}"));
    }
}

#[test]
fn a_synchronizing_call_inside_an_expression_and_a_barrier_reached_by_goto() {
    // A helper that uses barriers, called inside an expression, is inlined (the call moves
    // before the statement); a barrier inside a loop made of `goto` runs the kernel as a
    // resumable function (docs/ARCHITECTURE.md). Both exchange values through local memory.
    let fx = Fixture::new();
    let k = fx.kernel(
        "int next_of(local int *t, int v) {
            int lid = get_local_id(0);
            t[lid] = v;
            barrier(CLK_LOCAL_MEM_FENCE);
            int r = t[(lid + 1) % get_local_size(0)];
            barrier(CLK_LOCAL_MEM_FENCE);
            return r;
        }
        kernel void k(global int *out, local int *t, int rounds) {
            int lid = get_local_id(0), round = 0;
            int v = 1 + 2 * next_of(t, lid);
        again:
            t[lid] = v;
            barrier(CLK_LOCAL_MEM_FENCE);
            v += t[(lid + 1) % get_local_size(0)];
            barrier(CLK_LOCAL_MEM_FENCE);
            if (++round < rounds) goto again;
            out[get_global_id(0)] = v;
        }",
        c"k",
        c"",
    );
    for (n, local) in [(24usize, 6usize), (64, 16), (7, 7)] {
        let rounds = 3;
        let out = fx.filled(0i32, n);
        k.mem(0, &out).local(1, local * 4).arg(2, rounds);
        fx.run(&k, None, &[n], Some(&[local]));
        let next = |i: usize| i / local * local + (i % local + 1) % local;
        let mut v: Vec<i32> = (0..n).map(|i| 1 + 2 * (next(i) % local) as i32).collect();
        for _ in 0..rounds {
            v = (0..n).map(|i| v[i] + v[next(i)]).collect();
        }
        assert_same(&fx.read::<i32>(&out, n), &v, &format!("{n}/{local}"));
    }
}

#[test]
fn a_synchronizing_call_evaluated_only_sometimes() {
    // A helper that uses barriers, on the right of `&&` and in a `for` step: the first
    // becomes an `if` around the call, the second runs after the loop's body (`continue`
    // included). `c` is uniform, so the group makes each call or skips it as one.
    let fx = Fixture::new();
    let k = fx.kernel(
        "int sync_read(local int *t, int v) {
            t[get_local_id(0)] = v;
            barrier(CLK_LOCAL_MEM_FENCE);
            int r = t[0];
            barrier(CLK_LOCAL_MEM_FENCE);
            return r;
        }
        kernel void k(global int *a, local int *t, int c) {
            int gid = get_global_id(0), sum = 0;
            int first = c && sync_read(t, a[gid]);
            for (int i = 0; i < 3; i += sync_read(t, 1)) {
                if (i == 1) continue;
                sum += i + 1;
            }
            a[gid] = first + 10 * sum;
        }",
        c"k",
        c"",
    );
    let (n, local) = (32usize, 8usize);
    for c in [0, 1] {
        // Each group's first value decides `first`: group g's first value is 3g.
        let input: Vec<i32> = (0..n as i32).map(|i| 3 * i - (i % 8) * 3).collect();
        let a = fx.buffer(&input);
        k.mem(0, &a).local(1, local * 4).arg(2, c);
        fx.run(&k, None, &[n], Some(&[local]));
        let want: Vec<i32> = (0..n)
            .map(|i| (c != 0 && input[i / local * local] != 0) as i32 + 10 * (1 + 3))
            .collect();
        assert_same(&fx.read::<i32>(&a, n), &want, &format!("c = {c}"));
    }
}

#[test]
fn sizeof_an_opaque_type_is_its_handle_size() {
    // As current clang answers on 64-bit targets (the CTS `sizeof` test asks for each and
    // wants a power of two): every opaque type is a pointer-sized handle, sampler_t too.
    let fx = Fixture::new();
    let k = fx.kernel(
        "kernel void k(global uint *out) {\n\
         \x20 out[0] = sizeof(event_t);\n\
         \x20 out[1] = sizeof(image2d_t);\n\
         \x20 out[2] = sizeof(image3d_t);\n\
         \x20 out[3] = sizeof(sampler_t);\n}\n",
        c"k",
        c"",
    );
    let out = fx.filled(0u32, 4);
    k.mem(0, &out);
    fx.run(&k, None, &[1], None);
    assert_eq!(fx.read::<u32>(&out, 4), [8, 8, 8, 8]);
}
