//! Kernels compiled from OpenCL C and run directly (no runtime), through `common`.
#![allow(clippy::needless_range_loop)]

mod common;

use clift_compiler::build::{BuildOptions, build};
use clift_compiler::kernel::ParamKind;
use common::{compile, run_1d};

#[test]
fn vector_add() {
    let k = compile(
        "kernel void add(global const float *a, global const float *b, global float *c, uint n) {
            size_t i = get_global_id(0);
            if (i < n) c[i] = a[i] + b[i];
        }",
    );
    let n = 1000;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..n).map(|i| 0.5 * i as f32).collect();
    let mut c = vec![0f32; 1024];
    run_1d(
        &k[0],
        1024,
        64,
        &[
            a.as_ptr() as u64,
            b.as_ptr() as u64,
            c.as_mut_ptr() as u64,
            n as u64,
        ],
        0,
    );
    for i in 0..n {
        assert_eq!(c[i], 1.5 * i as f32, "item {i}");
    }
    assert_eq!(c[1000], 0.0);
}

#[test]
fn vectors_swizzles_and_builtins() {
    let k = compile(
        "kernel void f(global float4 *out, global int4 *masks) {
            size_t i = get_global_id(0);
            float4 v = (float4)(1.0f, 2.0f, 3.0f, (float)i);
            float4 w = v.wzyx * 2.0f + sqrt(v);
            out[i] = w;
            int4 m = v > (float4)(2.5f);
            masks[i] = m;
        }",
    );
    let mut out = vec![[0f32; 4]; 8];
    let mut masks = vec![[0i32; 4]; 8];
    run_1d(
        &k[0],
        8,
        4,
        &[out.as_mut_ptr() as u64, masks.as_mut_ptr() as u64],
        0,
    );
    for i in 0..8 {
        let v = [1.0f32, 2.0, 3.0, i as f32];
        let expect = [
            v[3] * 2.0 + 1.0,
            v[2] * 2.0 + 2f32.sqrt(),
            v[1] * 2.0 + 3f32.sqrt(),
            v[0] * 2.0 + (i as f32).sqrt(),
        ];
        assert_eq!(out[i], expect);
        assert_eq!(masks[i], [0, 0, -1, if i as f32 > 2.5 { -1 } else { 0 }]);
    }
}

#[test]
fn loops_functions_local_memory_and_atomics() {
    let k = compile(
        "int square(int x) { return x * x; }
        kernel void sums(global int *out, global int *total, local int *scratch) {
            size_t lid = get_local_id(0);
            scratch[lid] = square((int)get_global_id(0));
            int acc = 0;
            for (int j = 0; j <= (int)lid; j++) acc += scratch[j];
            out[get_global_id(0)] = acc;
            atomic_add(total, scratch[lid]);
        }",
    );
    let mut out = vec![0i32; 16];
    let mut total = [0i32];
    // A 16-item range in groups of 4; 4 ints of local memory for the local argument.
    let kernel = &k[0];
    assert_eq!(kernel.params[2].kind, ParamKind::Local);
    run_1d(
        kernel,
        16,
        4,
        &[out.as_mut_ptr() as u64, total.as_mut_ptr() as u64, 0],
        16,
    );
    for g in 0..4 {
        let mut acc = 0;
        for l in 0..4 {
            let id = g * 4 + l;
            acc += id * id;
            assert_eq!(out[id as usize], acc, "item {id}");
        }
    }
    assert_eq!(total[0], (0..16).map(|i| i * i).sum::<i32>());
}

#[test]
fn integer_division_by_zero_does_not_trap() {
    let k = compile(
        "kernel void d(global int *out, int a, int b) {
            out[0] = a / b; out[1] = a % b; out[2] = (-2147483647 - 1) / -1;
        }",
    );
    let mut out = [7i32; 3];
    run_1d(&k[0], 1, 1, &[out.as_mut_ptr() as u64, 5, 0], 0);
    assert_eq!(out[2], i32::MIN);
}

#[test]
fn math_builtins_call_the_library() {
    let k = compile(
        "kernel void m(global float *out, global const float *x) {
            size_t i = get_global_id(0);
            out[i] = sin(x[i]) + exp(x[i]) + pow(x[i], 2.5f) + fmax(x[i], 1.0f);
        }",
    );
    let x = [0.5f32, 1.0, 2.0, 3.0];
    let mut out = [0f32; 4];
    run_1d(
        &k[0],
        4,
        2,
        &[out.as_mut_ptr() as u64, x.as_ptr() as u64],
        0,
    );
    for i in 0..4 {
        let v = x[i];
        let expect = v.sin() + v.exp() + v.powf(2.5) + v.max(1.0);
        assert!(
            (out[i] - expect).abs() <= expect.abs() * 1e-5,
            "{} vs {expect}",
            out[i]
        );
    }
}

#[test]
fn errors_become_a_build_log() {
    let Err(log) = build(
        "bad.cl",
        "kernel void k(global int *p) { p[0] = q; }",
        &BuildOptions::default(),
    ) else {
        panic!("a build with an error succeeded");
    };
    assert!(
        log.starts_with("bad.cl:1:39: error: use of undeclared identifier 'q'"),
        "{log}"
    );
}

#[test]
fn reduction_with_barriers_inside_a_loop() {
    let k = compile(
        "kernel void reduce(global const int *in, global int *out, local int *scratch) {
            size_t lid = get_local_id(0);
            size_t n = get_local_size(0);
            scratch[lid] = in[get_global_id(0)];
            barrier(CLK_LOCAL_MEM_FENCE);
            for (size_t stride = n / 2; stride > 0; stride /= 2) {
                if (lid < stride) scratch[lid] += scratch[lid + stride];
                barrier(CLK_LOCAL_MEM_FENCE);
            }
            if (lid == 0) out[get_group_id(0)] = scratch[0];
        }",
    );
    let input: Vec<i32> = (0..256).collect();
    let mut out = vec![0i32; 4];
    run_1d(
        &k[0],
        256,
        64,
        &[input.as_ptr() as u64, out.as_mut_ptr() as u64, 0],
        64 * 4,
    );
    for g in 0..4 {
        let expect: i32 = (g * 64..(g + 1) * 64).sum();
        assert_eq!(out[g as usize], expect, "group {g}");
    }
}

#[test]
fn barrier_inside_a_uniform_if_and_private_values_across_barriers() {
    let k = compile(
        "kernel void f(global int *out, int flag) {
            local int tile[16];
            int lid = get_local_id(0);
            int mine = lid * 10;
            tile[lid] = mine;
            if (flag) {
                barrier(CLK_LOCAL_MEM_FENCE);
                mine += tile[15 - lid];
            }
            barrier(CLK_LOCAL_MEM_FENCE);
            out[get_global_id(0)] = mine;
        }",
    );
    let mut out = vec![0i32; 32];
    run_1d(&k[0], 32, 16, &[out.as_mut_ptr() as u64, 1], 64);
    for i in 0..32 {
        let lid = (i % 16) as i32;
        assert_eq!(out[i], lid * 10 + (15 - lid) * 10, "item {i}");
    }
}

#[test]
fn transpose_through_local_memory() {
    let k = compile(
        "#define T 4
        kernel void transpose(global const float *in, global float *out, int width) {
            local float tile[T][T + 1];
            int x = get_local_id(0);
            tile[x / T][x % T] = in[get_group_id(0) * T * T + x];
            barrier(CLK_LOCAL_MEM_FENCE);
            out[get_group_id(0) * T * T + x] = tile[x % T][x / T];
        }",
    );
    let input: Vec<f32> = (0..32).map(|i| i as f32).collect();
    let mut out = vec![0f32; 32];
    run_1d(
        &k[0],
        32,
        16,
        &[input.as_ptr() as u64, out.as_mut_ptr() as u64, 4],
        16 * 5 * 4,
    );
    for g in 0..2 {
        for r in 0..4 {
            for c in 0..4 {
                assert_eq!(out[g * 16 + r * 4 + c], input[g * 16 + c * 4 + r]);
            }
        }
    }
}

#[test]
fn pointer_compound_assignment_and_increments_move_by_elements() {
    // `p += n` is `p = p + n` (C99 6.5.16.2): n elements, not n bytes; so are `p -= n`,
    // `p++`, `--p`; and a kernel's pointer parameter is its own copy per work-item.
    let k = compile(
        "kernel void k(global int *out, global const long *in) {
            int i = get_global_id(0);
            out += i * 6;
            in += 2;
            out[0] = (int)in[0];
            in -= 1;
            out[1] = (int)in[0];
            global int *p = out + 2;
            *p++ = 7;
            *p = 8;
            p++;
            *++p = 9;
            --p;
            *p = 10;
            uint u = 1;
            in += u;
            out[5] = (int)*in;
        }",
    );
    let input: Vec<i64> = vec![100, 101, 102, 103];
    let mut out = vec![0i32; 6 * 4];
    run_1d(
        &k[0],
        4,
        2,
        &[out.as_mut_ptr() as u64, input.as_ptr() as u64],
        0,
    );
    for i in 0..4 {
        assert_eq!(
            &out[i * 6..i * 6 + 6],
            &[102, 101, 7, 8, 10, 102],
            "item {i}"
        );
    }
}

#[test]
fn a_kernel_without_effect_runs_nothing_and_safe_mode_still_runs_it() {
    use clift_compiler::codegen::CodegenOptions;
    use clift_compiler::kernel::Execution;
    // Its items compute into their own variables only; the pointer it is given is never
    // read, so a launch with a dangling one is harmless (the items are skipped).
    let source = "kernel void k(global int *a, int n) {
        int i = get_global_id(0) * n;
        float y = sqrt((float)i);
        if (y > 2) { i = -i; }
    }";
    let k = compile(source);
    assert_eq!(k[0].execution, Execution::NoEffect);
    assert_eq!(k[0].vectorized, Err("there is nothing to run".to_string()));
    run_1d(&k[0], 1 << 12, 64, &[8, 3], 0);
    // Safe mode checks what the items do: they run, one at a time.
    let safe = compile_with_options(
        source,
        CodegenOptions {
            safe: true,
            ..CodegenOptions::default()
        },
    );
    assert_eq!(safe[0].execution, Execution::WorkItemLoop);
    // One store makes the body an effect: it runs, item by item or vectorized.
    let store = compile(&source.replace("if (y > 2) { i = -i; }", "a[i] = (int)y;"));
    assert_eq!(store[0].execution, Execution::WorkItemLoop);
    let mut out = vec![0i32; 256];
    run_1d(&store[0], 256, 64, &[out.as_mut_ptr() as u64, 1], 0);
    for (i, v) in out.iter().enumerate() {
        assert_eq!(*v, (i as f32).sqrt() as i32, "item {i}");
    }
}

fn compile_with_options(
    source: &str,
    codegen: clift_compiler::codegen::CodegenOptions,
) -> Vec<std::sync::Arc<clift_compiler::kernel::KernelCode>> {
    common::compile_with(
        source,
        &BuildOptions {
            codegen,
            ..BuildOptions::default()
        },
    )
}
