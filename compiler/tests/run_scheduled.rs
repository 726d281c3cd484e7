//! Scheduled code (`codegen/schedule.rs`) computes what Cranelift's order computes:
//! clpeak's `double16` and `int16` multiply-add chains, in the vectorized row, in the
//! scalar row with vector registers, and with scheduling off, give the host's values bit
//! for bit.

mod common;

use clift_compiler::codegen::CodegenOptions;

const SOURCE: &str = "
#define MAD_4(x, y)  x = mad(y, x, y); y = mad(x, y, x); x = mad(y, x, y); y = mad(x, y, x);
#define IMAD_4(x, y) x = (y * x) + y; y = (x * y) + x; x = (y * x) + y; y = (x * y) + x;
#define LANES16(T, a) (T)(a, (a + 1), (a + 2), (a + 3), (a + 4), (a + 5), (a + 6), (a + 7), \\
    (a + 8), (a + 9), (a + 10), (a + 11), (a + 12), (a + 13), (a + 14), (a + 15))
#define DP(name, hint) \\
hint kernel void name(global double16 *out, double a) { \\
    double16 x = LANES16(double16, a) * 0.01; \\
    double16 y = (double16)(get_global_id(0) * 0.001); \\
    for (int i = 0; i < 8; i++) { MAD_4(x, y); MAD_4(x, y); } \\
    out[get_global_id(0)] = x + y; \\
}
/* The cost rule runs double16 chains in the scalar row; the hint vectorizes them. */
DP(dp, )
DP(dp_vectorized, __attribute__((vec_type_hint(double))))
kernel void integer(global int16 *out, int a) {
    int16 x = LANES16(int16, a);
    int16 y = (int16)get_global_id(0);
    for (int i = 0; i < 8; i++) { IMAD_4(x, y); IMAD_4(x, y); }
    out[get_global_id(0)] = x ^ y;
}
";

/// What `dp` writes for item `g`: `mad` fused (`-cl-mad-enable`).
fn dp_want(g: usize, a: f64) -> [f64; 16] {
    std::array::from_fn(|c| {
        let (mut x, mut y) = ((a + c as f64) * 0.01, g as f64 * 0.001);
        for _ in 0..8 * 4 {
            x = y.mul_add(x, y);
            y = x.mul_add(y, x);
        }
        x + y
    })
}

/// What `integer` writes for item `g` (wrapping arithmetic).
fn integer_want(g: usize, a: i32) -> [i32; 16] {
    std::array::from_fn(|c| {
        let (mut x, mut y) = (a.wrapping_add(c as i32), g as i32);
        for _ in 0..8 * 4 {
            x = y.wrapping_mul(x).wrapping_add(y);
            y = x.wrapping_mul(y).wrapping_add(x);
        }
        x ^ y
    })
}

/// The outputs of `name` over 40 items (groups of 8 and a remainder of 4 items per
/// vectorized step) for every combination of the vectorized row and scheduling.
fn outputs<T: Copy + Default>(name: &str, arg: u64) -> Vec<Vec<[T; 16]>> {
    let mut all = Vec::new();
    for (scalar_only, unscheduled) in [(false, false), (false, true), (true, false), (true, true)] {
        let codegen = CodegenOptions {
            scalar_only,
            unscheduled,
            mad_enable: true,
            ..Default::default()
        };
        let kernels = common::compile_fp64(SOURCE, codegen);
        let k = kernels.iter().find(|k| k.name == name).expect("the kernel");
        let mut out = vec![[T::default(); 16]; 40];
        common::run_1d(k, 40, 8, &[out.as_mut_ptr() as u64, arg], 0);
        all.push(out);
    }
    all
}

#[test]
fn double16_mad_chains_give_the_fused_host_values_in_every_order() {
    let want: Vec<[u64; 16]> = (0..40).map(|g| dp_want(g, 1.3).map(f64::to_bits)).collect();
    // Which row each runs in when the vectorizer may run.
    let kernels = common::compile_fp64(SOURCE, CodegenOptions::default());
    let row = |name: &str| {
        kernels
            .iter()
            .find(|k| k.name == name)
            .unwrap()
            .vectorized
            .is_ok()
    };
    assert_eq!((row("dp"), row("dp_vectorized")), (false, true));
    for name in ["dp", "dp_vectorized"] {
        for out in outputs::<f64>(name, 1.3f64.to_bits()) {
            let bits: Vec<[u64; 16]> = out.iter().map(|v| v.map(f64::to_bits)).collect();
            assert_eq!(bits, want, "{name}");
        }
    }
    // The chains stay finite: item 1's first lane.
    assert_eq!(dp_want(1, 1.3)[0], 0.0021626094751268444);
}

#[test]
fn int16_multiply_add_chains_give_the_wrapping_host_values_in_every_order() {
    let want: Vec<[i32; 16]> = (0..40).map(|g| integer_want(g, 3)).collect();
    for out in outputs::<i32>("integer", 3) {
        assert_eq!(out, want);
    }
    // Item 5's third lane, as a check of the host model itself.
    assert_eq!(integer_want(5, 3)[2], 1778433744);
}
