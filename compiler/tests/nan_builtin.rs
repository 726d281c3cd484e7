//! `nan(uintn)` / `nan(ulongn)` (OpenCL C 1.2 section 6.12.2): the argument is an integer
//! but the result is `floatn` / `doublen`, so the call must go to the float library entry.

use clift_compiler::build::{BuildOptions, build};
use clift_compiler::kernel::WorkGroup;

#[test]
fn nan_of_an_integer_code_builds_and_returns_nan() {
    let source = "kernel void k(global float *out) {
        out[0] = nan(0x123u);
        float4 v = nan((uint4)(1, 2, 3, 4));
        out[1] = v.x; out[2] = v.w;
    }";
    let kernels = match build("test.cl", source, &BuildOptions::default()) {
        Ok(b) => b.kernels,
        Err(log) => panic!("build failed:\n{log}"),
    };
    let kernel = &kernels[0];
    let mut out = [0f32; 3];
    let mut block = vec![0u8; kernel.args_size.max(8)];
    let offset = kernel.params[0].offset;
    block[offset..offset + 8].copy_from_slice(&(out.as_mut_ptr() as u64).to_ne_bytes());
    let mut frames = vec![0u128; kernel.frame_size.div_ceil(16).max(1)];
    let mut local = [0u128; 1];
    let group = WorkGroup {
        work_dim: 1,
        _pad: 0,
        global_offset: [0; 3],
        global_size: [1, 1, 1],
        local_size: [1, 1, 1],
        num_groups: [1, 1, 1],
        group_id: [0, 0, 0],
        local_memory: local.as_mut_ptr().cast(),
        private_frames: frames.as_mut_ptr().cast(),
        printf_buffer: std::ptr::null(),
    };
    // SAFETY: the block holds the kernel's one pointer parameter; `out` outlives the call.
    unsafe { (kernel.entry)(block.as_ptr(), &group) };
    assert!(out.iter().all(|v| v.is_nan()), "{out:?}");
}
