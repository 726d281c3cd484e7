//! `nan(uintn)` / `nan(ulongn)` (OpenCL C 1.2 section 6.12.2): the argument is an integer
//! but the result is `floatn` / `doublen`, so the call must go to the float library entry.

mod common;

use common::{compile, run_1d};

#[test]
fn nan_of_an_integer_code_builds_and_returns_nan() {
    let kernels = compile(
        "kernel void k(global float *out) {
        out[0] = nan(0x123u);
        float4 v = nan((uint4)(1, 2, 3, 4));
        out[1] = v.x; out[2] = v.w;
    }",
    );
    let mut out = [0f32; 3];
    run_1d(&kernels[0], 1, 1, &[out.as_mut_ptr() as u64], 0);
    assert!(out.iter().all(|v| v.is_nan()), "{out:?}");
}
