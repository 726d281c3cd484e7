//! Compiling OpenCL C and running its kernels directly (no runtime): the argument block and
//! the work-group context are built here as the runtime would build them. Shared by the
//! kernel-running tests (`mod common;`).

#![allow(dead_code)] // each test crate uses part of it

pub mod clpeak;
pub mod ints;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clift_compiler::build::{BuildOptions, build};
use clift_compiler::kernel::{KernelCode, ParamKind, WorkGroup};

/// The kernels of `source`; panics with the build log if it does not build.
pub fn compile(source: &str) -> Vec<Arc<KernelCode>> {
    compile_with(source, &BuildOptions::default())
}

/// The kernels of `source` built with `options`; panics with the build log if it does not
/// build.
pub fn compile_with(source: &str, options: &BuildOptions) -> Vec<Arc<KernelCode>> {
    match build("test.cl", source, options) {
        Ok(b) => b.kernels,
        Err(log) => panic!("build failed:\n{log}"),
    }
}

/// The kernels of `source` built vectorized or with the work-item vectorizer off
/// (`scalar_only`: what `CLIFT_VECTORIZE=0` does), doubles available as on the device;
/// panics with the build log if it does not build.
pub fn compile_scalar_only(source: &str, scalar_only: bool) -> Vec<Arc<KernelCode>> {
    compile_fp64(
        source,
        clift_compiler::codegen::CodegenOptions {
            scalar_only,
            ..Default::default()
        },
    )
}

/// The kernels of `source` built with `codegen`, doubles available as on the device;
/// panics with the build log if it does not build.
pub fn compile_fp64(
    source: &str,
    codegen: clift_compiler::codegen::CodegenOptions,
) -> Vec<Arc<KernelCode>> {
    let options = BuildOptions {
        codegen,
        sema: clift_compiler::frontend::sema::Options {
            fp64_supported: true,
            fp64_by_default: true,
            ..Default::default()
        },
        ..BuildOptions::default()
    };
    compile_with(source, &options)
}

/// 128 bytes aligned to 128, the unit of local memory and frames.
#[derive(Clone, Copy)]
#[repr(C, align(128))]
struct Block([u8; 128]);

/// The kernels of `source` built with cl_khr_fp16 and cl_khr_fp64 supported (as the device
/// reports them); panics with the build log if it does not build.
pub fn compile_fp(source: &str) -> Vec<Arc<KernelCode>> {
    let options = BuildOptions {
        sema: clift_compiler::frontend::sema::Options {
            fp64_supported: true,
            fp16_supported: true,
            ..Default::default()
        },
        ..BuildOptions::default()
    };
    compile_with(source, &options)
}

/// Runs `kernel` over a 1D range of `global` items in groups of `local`, with `args`
/// (one u64 per parameter slot: pointers or small values) and `local_bytes` of local memory.
pub fn run_1d(kernel: &KernelCode, global: usize, local: usize, args: &[u64], local_bytes: usize) {
    let bytes: Vec<Vec<u8>> = kernel
        .params
        .iter()
        .zip(args)
        .map(|(p, v)| {
            let size = match p.kind {
                ParamKind::Value { size } => size,
                _ => 8,
            };
            v.to_ne_bytes()[..size].to_vec()
        })
        .collect();
    run_1d_bytes(kernel, global, local, &bytes, local_bytes);
}

/// [`run_1d`] with each parameter's slot given as its bytes (for structs passed by value).
pub fn run_1d_bytes(
    kernel: &KernelCode,
    global: usize,
    local: usize,
    args: &[Vec<u8>],
    local_bytes: usize,
) {
    let mut block = vec![0u8; kernel.args_size.max(8)];
    for (p, v) in kernel.params.iter().zip(args) {
        block[p.offset..p.offset + v.len()].copy_from_slice(v);
    }
    // Aligned as the runtime aligns them: to the largest type alignment (128).
    let mut local_memory = vec![Block([0; 128]); local_bytes.div_ceil(128).max(1)];
    let mut frames = vec![Block([0; 128]); (kernel.frame_size * local).div_ceil(128).max(1)];
    for g in 0..global / local {
        let group = WorkGroup {
            work_dim: 1,
            _pad: 0,
            global_offset: [0; 3],
            global_size: [global as u64, 1, 1],
            local_size: [local as u64, 1, 1],
            num_groups: [(global / local) as u64, 1, 1],
            group_id: [g as u64, 0, 0],
            local_memory: local_memory.as_mut_ptr().cast(),
            private_frames: frames.as_mut_ptr().cast(),
            printf_buffer: std::ptr::null(),
            watchdog: std::ptr::null(),
            safe: std::ptr::null(),
        };
        // SAFETY: the block holds every parameter the kernel reads; the buffers outlive the call.
        unsafe { (kernel.entry)(block.as_ptr(), &group) };
    }
}

/// The `.cl` files directly in `tests/<dir>` (`corpus`, `parse`), sorted.
pub fn cl_files(dir: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "cl"))
        .collect();
    files.sort();
    files
}

/// Runs kernel `name` of `source` vectorized and with the vectorizer off over each
/// `(global, local)` of `ranges`, with the buffers `inputs`, output buffers of `outputs`
/// bytes (filled with 0x5a) and the values `values` after them; asserts that it has a
/// vectorized row and that both runs write the same bytes; the outputs per range.
pub fn run_both_ways(
    source: &str,
    name: &str,
    ranges: &[(usize, usize)],
    inputs: &[Vec<u8>],
    outputs: &[usize],
    values: &[u64],
) -> Vec<Vec<Vec<u8>>> {
    let kernels: Vec<_> = [true, false]
        .map(|scalar_only| {
            compile_scalar_only(source, scalar_only)
                .into_iter()
                .find(|k| k.name == name)
                .expect("the kernel")
        })
        .into();
    assert_eq!(kernels[1].vectorized, Ok(4), "{name}");
    let mut per_range = Vec::new();
    for &(global, local) in ranges {
        let mut results = Vec::new();
        for k in &kernels {
            let mut buffers: Vec<Vec<u8>> = inputs.to_vec();
            buffers.extend(outputs.iter().map(|&n| vec![0x5a; n]));
            let mut args: Vec<u64> = buffers.iter_mut().map(|b| b.as_mut_ptr() as u64).collect();
            args.extend(values);
            run_1d(k, global, local, &args, 0);
            results.push(buffers.split_off(inputs.len()));
        }
        assert_eq!(
            results[0], results[1],
            "{name} ({global}/{local}): vectorized and scalar differ"
        );
        per_range.push(results.pop().expect("two runs"));
    }
    per_range
}

/// The machine code of the function `name` (as the dump names it, `'k'`) of `source` built
/// with `codegen`. The kernels are renamed `mc_*` for the build (a `name` parameter of a
/// macro too, as `mc_##name`): the dump also collects the builds other tests run meanwhile,
/// whose functions have the same names.
pub fn machine_code(
    source: &str,
    name: &str,
    codegen: clift_compiler::codegen::CodegenOptions,
) -> String {
    let source = source
        .replace("kernel void ", "kernel void mc_")
        .replace("mc_name(", "mc_##name(");
    let collected = clift_compiler::codegen::dump::collect_during(|| {
        compile_fp64(&source, codegen);
    });
    let name = name.replacen('\'', "'mc_", 1);
    collected
        .asm
        .into_iter()
        .find(|(n, _)| *n == name)
        .map(|(_, asm)| asm)
        .expect("the function's machine code")
}
