//! Safe mode in code generation: which accesses get a bounds check and where each one is
//! in the source, that safe builds run one work-item at a time, and that checked kernels
//! staying in bounds compute what unchecked ones do. (Violations end in a trap, which only
//! the runtime's fault handler survives: conformance/tests/safe_mode.rs runs those.)

use std::sync::Arc;

use clift_builtins::safe::{SafeLaunch, SafeObject, space};
use clift_compiler::build::{BuildOptions, build};
use clift_compiler::codegen::CodegenOptions;
use clift_compiler::kernel::{KernelCode, WorkGroup};

fn kernel(source: &str, safe: bool) -> Arc<KernelCode> {
    let options = BuildOptions {
        codegen: CodegenOptions {
            safe,
            ..CodegenOptions::default()
        },
        ..BuildOptions::default()
    };
    match build("s.cl", source, &options) {
        Ok(b) => Arc::clone(&b.kernels[0]),
        Err(log) => panic!("build failed:\n{log}"),
    }
}

fn sites(k: &KernelCode) -> Vec<String> {
    k.safe_sites.as_deref().expect("a safe build").to_vec()
}

#[test]
fn each_access_through_a_pointer_or_index_has_a_site_at_its_position() {
    // The store's check comes first: its place is evaluated before the value.
    let k = kernel(
        "kernel void k(global int *p, global const int *q) {\n  p[0] = q[1];\n}",
        true,
    );
    assert_eq!(sites(&k), ["s.cl:2:3", "s.cl:2:10"]);
    let k = kernel(
        "kernel void k(global int *p) {\n  int a[4];\n  a[p[0]] = 1;\n  *p = a[1];\n}",
        true,
    );
    // a[p[0]]: the index p[0] is read (and checked) while the place is computed, before the
    // store to it is checked.
    assert_eq!(sites(&k), ["s.cl:3:5", "s.cl:3:3", "s.cl:4:3", "s.cl:4:8"]);
}

#[test]
fn variables_accessed_by_name_have_no_check() {
    let k = kernel(
        "typedef struct { int a; float b; } S;
         kernel void k(int n) { int x = n; S s; s.a = x; s.b = 2.0f; x += s.a; }",
        true,
    );
    assert_eq!(sites(&k), Vec::<String>::new());
}

#[test]
fn a_build_without_safe_mode_has_no_site_table_and_safe_builds_are_scalar() {
    const VADD: &str = "kernel void vadd(global const float *a, global const float *b,
                                         global float *c) {
        size_t i = get_global_id(0);
        c[i] = a[i] + b[i];
    }";
    let plain = kernel(VADD, false);
    assert!(plain.safe_sites.is_none());
    let safe = kernel(VADD, true);
    assert_eq!(sites(&safe).len(), 3);
    assert_eq!(
        safe.vectorized,
        Err("safe mode runs work-items one at a time".to_string())
    );
}

/// Runs a 1D kernel (one group of `n` items) with buffer arguments `buffers`, giving it a
/// safe-mode table of those buffers.
fn run_safe(k: &KernelCode, n: usize, buffers: &mut [&mut [i32]]) {
    let objects: Vec<SafeObject> = buffers
        .iter()
        .map(|b| SafeObject {
            base: b.as_ptr() as u64,
            size: std::mem::size_of_val(*b) as u64,
            space: space::GLOBAL,
        })
        .collect();
    let launch = SafeLaunch::new(&objects, 0);
    let mut block = vec![0u8; k.args_size.max(8)];
    for (p, b) in k.params.iter().zip(buffers.iter_mut()) {
        block[p.offset..p.offset + 8].copy_from_slice(&(b.as_mut_ptr() as u64).to_ne_bytes());
    }
    let group = WorkGroup {
        work_dim: 1,
        _pad: 0,
        global_offset: [0; 3],
        global_size: [n as u64, 1, 1],
        local_size: [n as u64, 1, 1],
        num_groups: [1, 1, 1],
        group_id: [0; 3],
        local_memory: std::ptr::null_mut(),
        private_frames: std::ptr::null_mut(),
        printf_buffer: std::ptr::null(),
        watchdog: std::ptr::null(),
        safe: (&launch as *const SafeLaunch).cast(),
    };
    // SAFETY: the block holds every parameter; the buffers and the table outlive the call.
    unsafe { (k.entry)(block.as_ptr(), &group) };
    assert_eq!(launch.first_violation(), None);
}

#[test]
fn checked_kernels_in_bounds_compute_what_unchecked_ones_do() {
    // Pointer arithmetic, a pointer variable, a private array, a helper function whose
    // parameter's object is looked up in the table, and a program-scope constant.
    let source = "constant int bias[4] = {1, 2, 3, 4};
        void put(global int *q, int v) { *q = v; }
        kernel void k(global const int *in, global int *out) {
            int i = get_global_id(0);
            int a[4];
            for (int j = 0; j < 4; j++) a[j] = in[(i + j) % 16];
            global int *o = out + i;
            put(o, a[0] + a[3] * bias[i % 4]);
        }";
    let input: Vec<i32> = (0..16).map(|i| i * 7 - 20).collect();
    let expected: Vec<i32> = (0..16)
        .map(|i: usize| input[i] + input[(i + 3) % 16] * (i % 4 + 1) as i32)
        .collect();
    let k = kernel(source, true);
    assert!(!sites(&k).is_empty());
    let mut inp = input.clone();
    let mut out = vec![0i32; 16];
    run_safe(&k, 16, &mut [&mut inp, &mut out]);
    assert_eq!(out, expected);
}
