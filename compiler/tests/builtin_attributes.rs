//! What the passes make of a builtin follows from its attributes in the signature table
//! (`clift_builtins::signatures`), not from lists of names: a builtin that touches memory
//! or differs per work-item is varying, a pure one is uniform exactly when its arguments
//! are.

mod common;

use clift_compiler::build::BuildOptions;
use clift_compiler::stages::dump_each;
use common::{compile, run_1d};

/// The uniform variables the analysis finds in the one kernel of `source`.
fn uniform_variables(source: &str) -> Vec<String> {
    let stages = dump_each(source, &BuildOptions::default()).expect("builds");
    let (_, text) = stages
        .iter()
        .find(|(stage, _)| stage == "uniform")
        .expect("a uniform stage");
    let line = text.lines().next().expect("one kernel");
    let (_, names) = line.split_once(": ").unwrap_or((line, ""));
    names
        .split_whitespace()
        .map(|n| n.split('.').next().unwrap_or(n).to_string())
        .collect()
}

#[test]
fn builtins_with_side_effects_are_varying() {
    let uniform = uniform_variables(
        "kernel void k(global int *p, global float *q, float x) {
            local int t[64];
            int atomic = atomic_inc(p);
            float whole;
            float fraction = fract(x, &whole);
            float4 loaded = vload4(0, q);
            int printed = printf(\"%d\\n\", 1);
            event_t copy = async_work_group_copy(t, p, 4, 0);
            float pure = sin(x) + get_local_size(0);
            size_t groups = get_num_groups(0);
            t[get_local_id(0)] = atomic;
            barrier(CLK_LOCAL_MEM_FENCE);
            wait_group_events(1, &copy);
            q[get_global_id(0)] = fraction + loaded.x + printed + pure + groups;
        }",
    );
    for varying in ["atomic", "fraction", "loaded", "printed", "whole"] {
        assert!(
            !uniform.contains(&varying.to_string()),
            "{varying}: {uniform:?}"
        );
    }
    for u in ["pure", "groups", "x", "p", "q"] {
        assert!(uniform.contains(&u.to_string()), "{u}: {uniform:?}");
    }
}

/// `get_local_size(d)` is the same in every work-item only when `d` is: with a dimension
/// that differs per work-item, its value does too. (The analysis once took the sizes and
/// group ids for uniform whatever their argument, and kept such a value once per group.)
#[test]
fn a_work_group_query_of_a_varying_dimension_is_varying() {
    let source = "kernel void k(global int *out) {
        local int t[64];
        int lid = get_local_id(0);
        uint d = lid & 1;
        int s = get_local_size(d);
        int g = get_group_id(0);
        t[lid] = s;
        barrier(CLK_LOCAL_MEM_FENCE);
        out[get_global_id(0)] = s * 1000 + t[(lid + 1) % get_local_size(0)] + g * 100000;
    }";
    let kernels = compile(source);
    let (global, local) = (16, 8);
    let mut out = vec![0i32; global];
    run_1d(
        &kernels[0],
        global,
        local,
        &[out.as_mut_ptr() as u64],
        4 * local,
    );
    // Local size (8, 1, 1): even items see 8 in dimension 0, odd ones 1 in dimension 1.
    let size = |lid: usize| if lid.is_multiple_of(2) { 8 } else { 1 };
    let want: Vec<i32> = (0..global)
        .map(|i| {
            let lid = i % local;
            size(lid) * 1000 + size((lid + 1) % local) + (i / local) as i32 * 100_000
        })
        .collect();
    assert_eq!(out, want);
    let uniform = uniform_variables(source);
    assert!(!uniform.contains(&"s".to_string()), "{uniform:?}");
    assert!(uniform.contains(&"g".to_string()), "{uniform:?}");
}
