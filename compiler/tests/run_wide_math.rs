//! `float2`..`float16` math functions with a four-lane library form (`clift_v4_<name>_f32`)
//! call it once per group of four components in the scalar row too (the row the CTS's math
//! kernels of vector sizes 2 to 16 run in), and give the scalar functions' bits in every
//! component, with the vectorizer on and off.

mod common;

use clift_builtins::math as m;
use common::{compile_scalar_only, run_1d};

const WIDE: &str = r#"
kernel void wide(global const float *a, global const float *b, global float *out) {
    int i = get_global_id(0);
    global float *o = out + 40 * i;
    float16 x = vload16(i, a), y = vload16(i, b);
    vstore16(pow(x, y), 0, o);
    vstore8(sin(x.lo), 0, o + 16);
    vstore3(log2(y.s012), 0, o + 24);
    vstore2(pow(x.s89, y.sab), 0, o + 27);
    vstore4(cos(y.hi.lo), 0, o + 29);
    vstore4(exp10(x.hi.hi), 0, o + 33);
}
"#;

/// The expected 37 results of item `i` from the host's scalar functions.
fn expected(x: &[f32], y: &[f32]) -> Vec<f32> {
    let mut want: Vec<f32> = (0..16).map(|k| m::clift_pow_f32(x[k], y[k])).collect();
    want.extend((0..8).map(|k| m::clift_sin_f32(x[k])));
    want.extend((0..3).map(|k| m::clift_log2_f32(y[k])));
    want.extend((0..2).map(|k| m::clift_pow_f32(x[8 + k], y[10 + k])));
    want.extend((8..12).map(|k| m::clift_cos_f32(y[k])));
    want.extend((12..16).map(|k| m::clift_exp10_f32(x[k])));
    want
}

/// Arguments of every kind: pow's special cases (zeros, infinities, NaN, negative bases with
/// odd, even and fractional exponents), huge sin/cos arguments, and random bit patterns.
fn arguments(n: usize) -> (Vec<f32>, Vec<f32>) {
    const X: [f32; 12] = [
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -2.0,
        1.5,
        1e-40,
        -8.0,
        1e30,
        -1.0,
        2.0,
    ];
    const Y: [f32; 12] = [
        3.0,
        -3.0,
        0.5,
        f32::NEG_INFINITY,
        0.0,
        2.0,
        200.0,
        f32::NAN,
        1.0 / 3.0,
        -1e10,
        f32::INFINITY,
        -0.25,
    ];
    let mut state = 0x1234_5678_9abc_def0u64;
    let mut bits = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        f32::from_bits(state as u32)
    };
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for i in 0..16 * n {
        if i % 2 == 0 {
            x.push(X[(i / 2) % X.len()]);
            y.push(Y[(i / 2 + i / 24) % Y.len()]);
        } else {
            x.push(bits());
            y.push(bits());
        }
    }
    (x, y)
}

#[test]
fn wide_math_gives_the_scalar_bits_with_one_call_per_four_components() {
    let n = 12;
    let (a, b) = arguments(n);
    for scalar_only in [true, false] {
        let collected = clift_compiler::codegen::dump::collect_during(|| {
            let k = compile_scalar_only(WIDE, scalar_only)
                .into_iter()
                .find(|k| k.name == "wide")
                .expect("the kernel");
            let mut out = vec![0.0f32; 40 * n];
            let args = [
                a.as_ptr() as u64,
                b.as_ptr() as u64,
                out.as_mut_ptr() as u64,
            ];
            run_1d(&k, n, 4, &args, 0);
            for i in 0..n {
                let (x, y) = (&a[16 * i..16 * i + 16], &b[16 * i..16 * i + 16]);
                let got: Vec<u32> = out[40 * i..40 * i + 37]
                    .iter()
                    .map(|v| v.to_bits())
                    .collect();
                let want: Vec<u32> = expected(x, y).iter().map(|v| v.to_bits()).collect();
                assert_eq!(got, want, "item {i}, scalar_only {scalar_only}");
            }
        });
        if scalar_only {
            // pow of the float16: 4 calls; sin of the float8: 2; log2, pow, cos, exp10 of
            // the float3, float2 and float4s: 1 each. No call per component.
            let (_, clif) = collected
                .clif
                .iter()
                .find(|(name, _)| name == "wide")
                .expect("the scalar row's CLIF");
            assert_eq!(clif.matches(" call ").count(), 10, "{clif}");
            assert!(!clif.contains("(f32, f32) -> f32"), "{clif}");
        }
    }
}
