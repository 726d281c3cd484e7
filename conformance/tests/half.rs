//! The `half` suite: `vload_half[n]`, `vloada_half[n]`, `vstore_half[n][_rtX]` and
//! `vstorea_half[n][_rtX]` (6.12.7), bit-exact against a host reference written from
//! IEEE 754's rounding rules.

use clift_conformance::kernel_fixture::*;
use clift_conformance::*;

/// The bit patterns of floats (so that NaN compares, and -0 differs from 0).
fn bits(values: &[f32]) -> Vec<u32> {
    values.iter().map(|v| v.to_bits()).collect()
}

/// The float value of a half's bits (exact: every half is a float).
fn half_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0f32 } else { 1.0 };
    let exponent = (h >> 10) & 0x1f;
    let mantissa = (h & 0x3ff) as f32;
    match exponent {
        0 => sign * mantissa * 2f32.powi(-24),
        31 if mantissa == 0.0 => sign * f32::INFINITY,
        31 => f32::NAN,
        e => sign * (1.0 + mantissa / 1024.0) * 2f32.powi(e as i32 - 15),
    }
}

/// A float rounded to half in one of the four rounding modes (`'e'`: to nearest even,
/// `'z'`: toward zero, `'p'`: toward +inf, `'n'`: toward -inf), as bits. Found among all
/// positive finite halves by search, so it does not share an algorithm with any
/// implementation.
fn f32_to_half(x: f32, mode: char) -> u16 {
    if x.is_nan() {
        return 0x7e00;
    }
    let sign = if x.is_sign_negative() { 0x8000u16 } else { 0 };
    if x.is_infinite() {
        return sign | 0x7c00;
    }
    let a = x.abs();
    // Rounding the magnitude: toward +inf for a negative value is toward zero for it.
    let up = match mode {
        'e' | 'z' => None,
        'p' => Some(sign == 0),
        'n' => Some(sign != 0),
        _ => unreachable!(),
    };
    // The largest half <= a (0x7bff is 65504, the largest finite): positive halves are
    // ordered like their bits, so a binary search finds it.
    let (mut lo, mut hi) = (0u16, 0x7c00u16);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if half_to_f32(mid) <= a {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let below = lo;
    let low = half_to_f32(below);
    if low == a {
        return sign | below;
    }
    // The next half up: 0x7c00 (infinity) above 65504.
    let above = below + 1;
    let high = if above == 0x7c00 {
        65536.0
    } else {
        half_to_f32(above)
    };
    let magnitude = match (mode, up) {
        ('z', _) | (_, Some(false)) => below,
        (_, Some(true)) => above,
        _ => {
            let (dl, dh) = (a - low, high - a);
            if dl < dh || (dl == dh && below % 2 == 0) {
                below
            } else {
                above
            }
        }
    };
    sign | magnitude
}

#[test]
fn vload_half_and_vstore_half_convert_exactly() {
    // §6.12.7: "vload_half ... Read sizeof (half) bytes of data from address (p + offset).
    // The data read is interpreted as a half value. The half value is converted to a float
    // value and the float value is returned" (exact). "vstore_half ... The float value given
    // by data is first converted to a half value using the appropriate rounding mode. The
    // half value is then written to address computed as (p + offset)": the default mode is
    // round to nearest even; _rtz, _rtp, _rtn as named. vload_half4 / vstore_half4 move
    // four at a time, so a round trip through them is the identity on halves.
    let fx = Fixture::new();
    let k = fx.kernel(
        "kernel void halves(global const half *hin, global float *f, global const float *fin,\n\
         \x20                 global half *e, global half *z, global half *p, global half *n,\n\
         \x20                 global half *trip) {\n\
         \x20 size_t i = get_global_id(0);\n\
         \x20 f[i] = vload_half(i, hin);\n\
         \x20 vstore_half(fin[i], i, e);\n\
         \x20 vstore_half_rtz(fin[i], i, z);\n\
         \x20 vstore_half_rtp(fin[i], i, p);\n\
         \x20 vstore_half_rtn(fin[i], i, n);\n\
         \x20 if (i % 4 == 0) vstore_half4(vload_half4(i / 4, hin), i / 4, trip);\n\
         }\n",
        c"halves",
        c"",
    );
    let mut halves: Vec<u16> = vec![
        0x0000, 0x8000, 0x3c00, 0xbc00, 0x7bff, 0xfbff, 0x0001, 0x8001, 0x03ff, 0x0400, 0x7c00,
        0xfc00, 0x3555, 0x4248, 0x1234, 0xc000,
    ];
    let mut floats: Vec<f32> = vec![
        0.0,
        -0.0,
        1.0,
        1.0 / 3.0,
        -1.0 / 3.0,
        std::f32::consts::PI,
        65504.0,
        65519.0,
        65520.0,
        -70000.0,
        1e-8,
        3e-8,
        -3e-8,
        1e-5,
        -2.5e-3,
        1.0 + 2f32.powi(-10),
        1.0 + 2f32.powi(-11),
        1.0 + 3.0 * 2f32.powi(-11),
        f32::INFINITY,
        f32::NEG_INFINITY,
    ];
    let mut rng = Rng(8);
    while halves.len() < 64 {
        let h = rng.next_u64() as u16;
        if (h >> 10) & 0x1f != 31 {
            halves.push(h);
        }
    }
    while floats.len() < 64 {
        let scale = [1e-6f32, 1e-3, 1.0, 100.0, 60000.0][rng.next_u64() as usize % 5];
        floats.push(rng.float(-1.0, 1.0) * scale);
    }
    let count = 64;
    let (bh, bf) = (fx.buffer(&halves), fx.buffer(&floats));
    let f = fx.filled(0f32, count);
    let outs: Vec<Mem> = (0..5).map(|_| fx.filled(0x5555u16, count)).collect();
    k.mem(0, &bh).mem(1, &f).mem(2, &bf);
    for (i, out) in outs.iter().enumerate() {
        k.mem(3 + i as cl_uint, out);
    }
    fx.run(&k, None, &[count], Some(&[16]));
    let loaded: Vec<f32> = fx.read(&f, count);
    let expected: Vec<f32> = halves.iter().map(|&h| half_to_f32(h)).collect();
    assert_same(&bits(&loaded), &bits(&expected), "vload_half");
    for (out, mode, name) in [
        (&outs[0], 'e', "vstore_half"),
        (&outs[1], 'z', "vstore_half_rtz"),
        (&outs[2], 'p', "vstore_half_rtp"),
        (&outs[3], 'n', "vstore_half_rtn"),
    ] {
        let stored: Vec<u16> = fx.read(out, count);
        for (i, (&s, &x)) in stored.iter().zip(&floats).enumerate() {
            assert_eq!(
                s,
                f32_to_half(x, mode),
                "{name}({x:e}) at {i}: got {s:#06x} ({}), expected {:#06x} ({})",
                half_to_f32(s),
                f32_to_half(x, mode),
                half_to_f32(f32_to_half(x, mode))
            );
        }
    }
    assert_same(
        &fx.read::<u16>(&outs[4], count),
        &halves,
        "vload_half4/vstore_half4",
    );
}

#[test]
fn the_host_half_reference_is_sound() {
    // The test's own reference conversions against known values (so a failure above is the
    // implementation's): 65520 is the rounding boundary to infinity, 1 + 2^-11 a tie.
    assert_eq!(f32_to_half(1.0, 'e'), 0x3c00);
    assert_eq!(f32_to_half(65504.0, 'e'), 0x7bff);
    assert_eq!(f32_to_half(65519.0, 'e'), 0x7bff);
    assert_eq!(f32_to_half(65520.0, 'e'), 0x7c00);
    assert_eq!(f32_to_half(65520.0, 'z'), 0x7bff);
    assert_eq!(f32_to_half(-70000.0, 'p'), 0xfbff);
    assert_eq!(f32_to_half(-70000.0, 'n'), 0xfc00);
    assert_eq!(f32_to_half(1.0 + 2f32.powi(-11), 'e'), 0x3c00);
    assert_eq!(f32_to_half(1.0 + 3.0 * 2f32.powi(-11), 'e'), 0x3c02);
    assert_eq!(f32_to_half(3e-8, 'e'), 0x0001);
    assert_eq!(f32_to_half(1e-8, 'e'), 0x0000);
    assert_eq!(f32_to_half(1e-8, 'p'), 0x0001);
    assert_eq!(f32_to_half(-1e-8, 'n'), 0x8001);
    assert_eq!(f32_to_half(f32::INFINITY, 'z'), 0x7c00);
    assert_eq!(half_to_f32(0x0001), 2f32.powi(-24));
    assert_eq!(half_to_f32(0x7bff), 65504.0);
}

#[test]
fn aligned_half_vectors_step_by_four_for_three_lanes() {
    // "vloada_halfn ... reads from (p + (offset * n))", except that "vloada_half3 reads a
    // half3 from (p + (offset * 4))" and vstorea_half3 writes to p + offset * 4: the aligned
    // forms treat a 3-vector as 4 halves. Each rounding mode of vstorea_halfn_rtX too.
    let fx = Fixture::new();
    let k = fx.kernel(
        "kernel void k(global const half *in, global float *loaded, global half *out) {
            size_t i = get_global_id(0);
            float3 v = vloada_half3(i, in);
            vstore3(v, i, loaded);
            vstorea_half3(v * 3.0f, i, out);
            vstorea_half4_rtz((float4)(v, 1.0f / 3.0f), i, out + 64);
            vstorea_half2_rtp(v.xy / 3.0f, i, out + 128);
            vstorea_half2_rtn(v.xy / -3.0f, i, out + 160);
        }",
        c"k",
        c"",
    );
    let n = 8usize;
    let halves: Vec<u16> = (0..4 * n as u16).map(|i| 0x3c00 + i * 37).collect();
    let input = fx.buffer(&halves);
    let loaded = fx.filled(0u32, 3 * n);
    let out = fx.filled(u32::MAX, 96);
    k.mem(0, &input).mem(1, &loaded).mem(2, &out);
    fx.run(&k, None, &[n], None);
    let got: Vec<u32> = fx.read(&loaded, 3 * n);
    let words: Vec<u32> = fx.read(&out, 96);
    let out_halves: Vec<u16> = words
        .iter()
        .flat_map(|w| [*w as u16, (*w >> 16) as u16])
        .collect();
    for i in 0..n {
        let v: Vec<f32> = (0..3).map(|l| half_to_f32(halves[4 * i + l])).collect();
        for l in 0..3 {
            assert_eq!(
                f32::from_bits(got[3 * i + l]),
                v[l],
                "vloada_half3 item {i} lane {l}"
            );
            assert_eq!(
                out_halves[4 * i + l],
                f32_to_half(v[l] * 3.0, 'e'),
                "vstorea_half3 item {i}"
            );
        }
        // The fourth half of each aligned 3-vector is not written.
        assert_eq!(
            out_halves[4 * i + 3],
            0xffff,
            "vstorea_half3 padding of item {i}"
        );
        let quad = [v[0], v[1], v[2], 1.0 / 3.0];
        for l in 0..4 {
            assert_eq!(
                out_halves[64 + 4 * i + l],
                f32_to_half(quad[l], 'z'),
                "rtz item {i}"
            );
        }
        for l in 0..2 {
            assert_eq!(
                out_halves[128 + 2 * i + l],
                f32_to_half(v[l] / 3.0, 'p'),
                "rtp item {i}"
            );
            assert_eq!(
                out_halves[160 + 2 * i + l],
                f32_to_half(v[l] / -3.0, 'n'),
                "rtn item {i}"
            );
        }
    }
}

/// The half of `x` rounded to nearest even (the reference's own rounding, above).
fn round_half(x: f32) -> u16 {
    f32_to_half(x, 'e')
}

/// Random half bit patterns: every class (zeros, denormals, normals, infinities, NaNs) and
/// the values that round at the edges.
fn half_patterns(n: usize, rng: &mut Rng) -> Vec<u16> {
    let mut v: Vec<u16> = vec![
        0x0000, 0x8000, 0x0001, 0x03ff, 0x0400, 0x3c00, 0xbc00, 0x7bff, 0xfbff, 0x7c00, 0xfc00,
        0x7e00, 0x3555, 0x5640,
    ];
    while v.len() < n {
        v.push(rng.next_u64() as u16);
    }
    v
}

#[test]
fn half_arithmetic_is_float_arithmetic_rounded_to_half() {
    // cl_khr_fp16 (9.5): half values with + - * /, each result correctly rounded to half
    // (computing in float and rounding once is exact for these operations: float carries
    // more than twice half's precision). Overflow gives infinity, tiny results denormals.
    let fx = Fixture::new();
    let k = fx.kernel(
        "#pragma OPENCL EXTENSION cl_khr_fp16 : enable
        kernel void k(global const half *a, global const half *b, global half *out) {
            size_t i = get_global_id(0);
            half x = a[i], y = b[i];
            out[4 * i] = x + y;
            out[4 * i + 1] = x - y;
            out[4 * i + 2] = x * y;
            out[4 * i + 3] = x / y;
        }",
        c"k",
        c"",
    );
    let mut rng = Rng(0xf16);
    let n = 4096;
    let a = half_patterns(n, &mut rng);
    let mut b = half_patterns(n, &mut rng);
    b.rotate_left(5);
    let (ab, bb, out) = (fx.buffer(&a), fx.buffer(&b), fx.filled(0u16, 4 * n));
    k.mem(0, &ab).mem(1, &bb).mem(2, &out);
    fx.run(&k, None, &[n], None);
    let got: Vec<u16> = fx.read(&out, 4 * n);
    let is_nan = |h: u16| h & 0x7c00 == 0x7c00 && h & 0x3ff != 0;
    for i in 0..n {
        let (x, y) = (half_to_f32(a[i]), half_to_f32(b[i]));
        for (j, (op, want)) in [("+", x + y), ("-", x - y), ("*", x * y), ("/", x / y)]
            .into_iter()
            .enumerate()
        {
            let want = round_half(want);
            let g = got[4 * i + j];
            assert!(
                g == want || (is_nan(g) && is_nan(want)),
                "{:#06x} {op} {:#06x}: got {g:#06x}, want {want:#06x}",
                a[i],
                b[i]
            );
        }
    }
}

#[test]
fn half_conversions_vectors_literals_and_math() {
    // Conversions to half in every rounding mode (from float, exact), from half to int with
    // saturation; half4 through vload4/vstore4 on half pointers, swizzles and `h` literals;
    // as_ushort/as_half keep the bits; sqrt and fabs correctly rounded.
    let fx = Fixture::new();
    let k = fx.kernel(
        "#pragma OPENCL EXTENSION cl_khr_fp16 : enable
        kernel void k(global const float *f, global const half *h, global half *o,
                      global int *ints, global ushort *bits) {
            size_t i = get_global_id(0);
            float x = f[i];
            o[8 * i] = convert_half(x);
            o[8 * i + 1] = convert_half_rtz(x);
            o[8 * i + 2] = convert_half_rtp(x);
            o[8 * i + 3] = convert_half_rtn(x);
            half4 v = vload4(i, h);
            v = v.wzyx * 2.0h + (half4)(0.5h);
            vstore4(v, 2 * i + 1, o);
            ints[i] = convert_int_sat(h[4 * i] * 1024.0h);
            bits[i] = as_ushort(as_half(as_ushort(h[4 * i + 1])));
            o[8 * 64 + i] = sqrt(fabs(h[4 * i + 2]));
        }",
        c"k",
        c"",
    );
    let n = 64usize;
    let mut rng = Rng(77);
    let floats: Vec<f32> = (0..n)
        .map(|_| rng.float(-70000.0, 70000.0) / [1.0, 1e3, 1e6][rng.int(0, 2) as usize])
        .collect();
    let halves: Vec<u16> = (0..4 * n)
        .map(|_| {
            loop {
                let h = rng.next_u64() as u16;
                if h & 0x7c00 != 0x7c00 {
                    break h; // finite
                }
            }
        })
        .collect();
    let (fb, hb) = (fx.buffer(&floats), fx.buffer(&halves));
    let o = fx.filled(0u16, 8 * n + n);
    let ints = fx.filled(0i32, n);
    let bits = fx.filled(0u16, n);
    k.mem(0, &fb)
        .mem(1, &hb)
        .mem(2, &o)
        .mem(3, &ints)
        .mem(4, &bits);
    fx.run(&k, None, &[n], None);
    let out: Vec<u16> = fx.read(&o, 8 * n + n);
    let got_ints: Vec<i32> = fx.read(&ints, n);
    let got_bits: Vec<u16> = fx.read(&bits, n);
    for i in 0..n {
        let x = floats[i];
        for (j, mode) in ['e', 'z', 'p', 'n'].into_iter().enumerate() {
            assert_eq!(
                out[8 * i + j],
                f32_to_half(x, mode),
                "convert {x} mode {mode}"
            );
        }
        let v: Vec<f32> = (0..4).map(|l| half_to_f32(halves[4 * i + l])).collect();
        for l in 0..4 {
            // (v.wzyx * 2) rounds, then + 0.5 rounds again.
            let doubled = half_to_f32(round_half(v[3 - l] * 2.0));
            assert_eq!(
                out[8 * i + 4 + l],
                round_half(doubled + 0.5),
                "half4 item {i} lane {l}"
            );
        }
        let scaled = half_to_f32(round_half(v[0] * 1024.0));
        let want = if scaled.is_infinite() {
            if scaled > 0.0 { i32::MAX } else { i32::MIN }
        } else {
            scaled as i32
        };
        assert_eq!(got_ints[i], want, "convert_int_sat of {scaled}");
        assert_eq!(got_bits[i], halves[4 * i + 1], "as_ushort(as_half(...))");
        assert_eq!(
            out[8 * n + i],
            round_half(v[2].abs().sqrt()),
            "sqrt(fabs({}))",
            v[2]
        );
    }
}

#[test]
fn half_values_need_the_pragma_and_the_device_says_fp16() {
    // "#pragma OPENCL EXTENSION cl_khr_fp16 : enable" must precede half values (pointers to
    // half need no pragma); the device lists cl_khr_fp16 and a half FP configuration.
    let api = clift();
    let extensions = string(&api.device_info(api.device(), CL_DEVICE_EXTENSIONS).unwrap());
    assert!(has_extension(&extensions, "cl_khr_fp16"), "{extensions}");
    let config: u64 = scalar(
        &api.device_info(api.device(), CL_DEVICE_HALF_FP_CONFIG)
            .unwrap(),
    );
    assert_eq!(
        config,
        CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN | CL_FP_DENORM
    );
    let fx = Fixture::new();
    let program = api
        .create_program_with_source(
            fx.context,
            &["kernel void k(global half *p) { half x = p[0]; }"],
        )
        .unwrap();
    assert_eq!(api.build_program(program, c""), CL_BUILD_PROGRAM_FAILURE);
    let log = api.build_log(program, api.device());
    assert!(log.contains("cl_khr_fp16"), "{log}");
    assert_eq!(api.release_program(program), CL_SUCCESS);
}

#[test]
fn half_math_functions_are_within_one_half_ulp() {
    // The math functions on half (cl_khr_fp16's table allows 2-4 ulp for most): computed in
    // float and rounded once, they are within 1 ulp of half (0.5 from the rounding, the
    // float error far below the rest).
    let fx = Fixture::new();
    let k = fx.kernel(
        "#pragma OPENCL EXTENSION cl_khr_fp16 : enable
        kernel void k(global const half *in, global half *out) {
            size_t i = get_global_id(0);
            half x = in[i];
            out[6 * i] = sin(x);
            out[6 * i + 1] = exp(x);
            out[6 * i + 2] = log(fabs(x));
            out[6 * i + 3] = pow(fabs(x), 0.75h);
            out[6 * i + 4] = rsqrt(fabs(x));
            out[6 * i + 5] = atan2(x, 1.5h);
        }",
        c"k",
        c"",
    );
    let n = 2048usize;
    let mut rng = Rng(314);
    let input: Vec<u16> = (0..n)
        .map(|_| round_half(rng.float(-11.0, 11.0)))
        .filter(|&h| h & 0x7fff != 0)
        .collect();
    let n = input.len();
    let (ib, ob) = (fx.buffer(&input), fx.filled(0u16, 6 * n));
    k.mem(0, &ib).mem(1, &ob);
    fx.run(&k, None, &[n], None);
    let got: Vec<u16> = fx.read(&ob, 6 * n);
    // One ulp of half at |v| (denormal spacing below 2^-14).
    let ulp = |v: f64| 2f64.powi(v.abs().max(2f64.powi(-14)).log2().floor() as i32 - 10);
    for i in 0..n {
        let x = f64::from(half_to_f32(input[i]));
        let wants = [
            x.sin(),
            x.exp(),
            x.abs().ln(),
            x.abs().powf(0.75),
            1.0 / x.abs().sqrt(),
            x.atan2(1.5),
        ];
        for (j, want) in wants.into_iter().enumerate() {
            let g = f64::from(half_to_f32(got[6 * i + j]));
            if want.abs() > 65504.0 {
                assert!(
                    g.is_infinite() || g.abs() >= 65504.0,
                    "function {j} of {x}: {g}"
                );
                continue;
            }
            assert!(
                (g - want).abs() <= ulp(want),
                "function {j} of {x}: got {g}, want {want}"
            );
        }
    }
}

#[test]
fn fma_of_halves_is_rounded_once_in_every_vector_width() {
    // cl_khr_fp16 (9.5) keeps fma correctly rounded: "fma ... 0 ulp". The float fma rounded
    // again to half is wrong where the float result is a half tie: the full-size CTS's
    // fma(0x5bab, 0x4cfd, 0x7701) = 33583.998... is 0x7819 (33568); float's fma is the tie
    // 33584.0, which rounds to 0x781a. 3 * 1365 = 4095 is a tie of its own that the
    // smallest denormal added or taken away decides.
    let cases: [(u16, u16, u16, u16); 16] = [
        (0x5bab, 0x4cfd, 0x7701, 0x7819),
        (0x4200, 0x6555, 0x0001, 0x6c00),
        (0x4200, 0x6555, 0x8001, 0x6bff),
        (0x4200, 0x6555, 0x0000, 0x6c00),
        (0x3c00, 0x3c00, 0x3c00, 0x4000),
        (0x8000, 0x3c00, 0x8000, 0x8000),
        (0x3c00, 0x3c00, 0xbc00, 0x0000),
        (0x7bff, 0x4000, 0x0000, 0x7c00),
        (0xdbab, 0x4cfd, 0xf701, 0xf819),
        (0x0001, 0x0001, 0x0001, 0x0001),
        (0x0001, 0x3800, 0x0000, 0x0000),
        (0x0003, 0x3800, 0x0000, 0x0002),
        (0x7c00, 0x3c00, 0xfc00, 0x7e00),
        (0x3555, 0x3555, 0x0000, 0x2f1c),
        (0x5640, 0x5640, 0xd640, 0x70d6),
        (0x3c01, 0x3c01, 0xbc00, 0x1800),
    ];
    let fx = Fixture::new();
    let k = fx.kernel(
        "#pragma OPENCL EXTENSION cl_khr_fp16 : enable
        kernel void k(global const half *a, global const half *b, global const half *c,
                      global half *one, global half *four, global half *sixteen) {
            size_t i = get_global_id(0);
            one[i] = fma(a[i], b[i], c[i]);
            if (i % 4 == 0)
                vstore4(fma(vload4(i / 4, a), vload4(i / 4, b), vload4(i / 4, c)), i / 4, four);
            if (i == 0)
                vstore16(fma(vload16(0, a), vload16(0, b), vload16(0, c)), 0, sixteen);
        }",
        c"k",
        c"",
    );
    let column = |f: fn(&(u16, u16, u16, u16)) -> u16| cases.iter().map(f).collect::<Vec<u16>>();
    let (a, b, c, want) = (
        column(|t| t.0),
        column(|t| t.1),
        column(|t| t.2),
        column(|t| t.3),
    );
    let (ab, bb, cb) = (fx.buffer(&a), fx.buffer(&b), fx.buffer(&c));
    let outs = [
        fx.filled(0u16, 16),
        fx.filled(0u16, 16),
        fx.filled(0u16, 16),
    ];
    k.mem(0, &ab).mem(1, &bb).mem(2, &cb);
    k.mem(3, &outs[0]).mem(4, &outs[1]).mem(5, &outs[2]);
    fx.run(&k, None, &[16], None);
    for (width, out) in ["half", "half4", "half16"].iter().zip(&outs) {
        let got: Vec<u16> = fx.read(out, 16);
        // A NaN's payload is the implementation's; every other result is exact.
        let got: Vec<u16> = got
            .iter()
            .map(|&h| if h & 0x7e00 == 0x7e00 { 0x7e00 } else { h })
            .collect();
        assert_eq!(got, want, "fma of {width}");
    }
}
