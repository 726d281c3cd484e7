//! What the vectorizer declines, and why (the kernels that run both ways are in
//! compiler/tests/run_vectorized.rs).

use crate::build::{BuildOptions, typed_tree};

/// Why the first kernel of `source` is not vectorized (`Ok` where it is).
fn reason(source: &str) -> Result<(), String> {
    let program = typed_tree("v.cl", source, &BuildOptions::default()).expect("the source builds");
    let (_, f) = program.kernels().next().expect("a kernel");
    // As `define_vector_row` checks it: switches as `if` chains where they can be.
    let without_switches = super::check::switches_as_ifs(f);
    let f = without_switches.as_ref().unwrap_or(f);
    let uniform = crate::passes::uniform::uniform_locals(f);
    super::check::vectorizable(f, &uniform)
}

#[test]
fn scalar_kernels_with_the_ids_of_dimension_0_are_taken() {
    assert_eq!(
        reason("kernel void k(global float *a) { a[get_global_id(0)] *= 2.0f; }"),
        Ok(())
    );
}

#[test]
fn what_is_declined_says_why() {
    // A switch is taken as an `if` chain; one with a `break` inside an `if` of a case is not.
    assert_eq!(
        reason(
            "kernel void k(global int *a) {
                int i = get_global_id(0);
                switch (i) { case 0: a[i] = 1; break; default: a[i] = 2; }
            }"
        ),
        Ok(())
    );
    assert_eq!(
        reason(
            "kernel void k(global int *a) {
                int i = get_global_id(0);
                switch (i) { case 0: if (a[i]) break; a[i] = 1; break; default: a[i] = 2; }
            }"
        ),
        Err("it has a switch or a goto".into())
    );
    assert_eq!(
        reason(
            "kernel void k(global int *a) {
                int i = get_global_id(0);
                int *p = &i;
                a[i] = *p;
            }"
        ),
        Err("the address of 'i' is taken".into())
    );
    assert_eq!(
        reason(
            "kernel void k(global int *a) {
                int t[2] = {get_global_id(0), 1};
                a[get_global_id(0)] = t[0];
            }"
        ),
        Err(
            "'t' is a varying int[2] (only scalars and vectors other than half are vectorized yet)"
                .into()
        )
    );
    assert_eq!(
        reason("kernel void k(global int *a) { a[get_global_id(1)] = 1; }"),
        Err("it does not use get_global_id(0) or get_local_id(0)".into())
    );
}

/// The reason the kernel `k` of `source` has no vectorized row after a whole build (`Ok`
/// where it has one).
fn built_reason(source: &str) -> Result<u32, String> {
    let built = crate::build::build("v.cl", source, &BuildOptions::default()).expect("it builds");
    built.kernels[0].vectorized.clone()
}

#[test]
fn a_large_row_that_would_run_mostly_lane_by_lane_stays_scalar() {
    assert_eq!(super::mostly_vector(0, 53), Ok(()));
    assert_eq!(super::mostly_vector(56, 242), Ok(()));
    assert_eq!(super::mostly_vector(400, 511), Ok(()));
    assert_eq!(super::mostly_vector(256, 512), Ok(()));
    assert_eq!(
        super::mostly_vector(828, 1223),
        Err(
            "67% of its vectorized code (1223 instructions) would run lane by lane (no faster \
             than the scalar code, and costlier to compile)"
                .into()
        )
    );
    // A user function runs per lane (its call, with the lanes taken out of the registers and
    // put back): more than half of this row, which is large.
    let mut source = String::from(
        "float f(float x, float y) { return x * y + 1.0f; }
         kernel void k(global float *a) {
             int i = get_global_id(0);
             float v = a[i];\n",
    );
    for k in 0..24 {
        source.push_str(&format!("v = f(f(v, {k}.0f), 2.0f);\n"));
    }
    source.push_str("a[i] = v;\n}\n");
    assert_eq!(
        built_reason(&source),
        Err(
            "94% of its vectorized code (918 instructions) would run lane by lane (no faster \
             than the scalar code, and costlier to compile)"
                .into()
        )
    );
    // The same with two calls is small: it keeps its vectorized row.
    assert_eq!(
        built_reason(
            "float f(float x, float y) { return x * y + 1.0f; }
             kernel void k(global float *a) {
                 int i = get_global_id(0);
                 a[i] = f(f(a[i], 2.0f), 3.0f);
             }"
        ),
        Ok(4)
    );
    // A vector add has no per-lane code at all.
    assert_eq!(
        built_reason(
            "kernel void k(global float *a, global const float *b) {
                int i = get_global_id(0);
                a[i] += b[i];
            }"
        ),
        Ok(4)
    );
}

/// Work-items per step (4 per group, `unroll.rs`) of the kernel `name` of `source`.
fn items_per_step(source: &str, name: &str) -> Result<u32, String> {
    let built = crate::build::build("v.cl", source, &BuildOptions::default()).expect("it builds");
    let k = built
        .kernels
        .iter()
        .find(|k| k.name == name)
        .expect("the kernel");
    k.vectorized.clone()
}

/// clift-bench's kernels whose chains pay keep their groups (`unroll.rs`); the layers that
/// gather per lane in their loops, and rows without loops, run one group per step.
#[test]
fn groups_per_step_of_typical_kernels() {
    let bench = include_str!("../../../tests/bench_kernels.cl");
    assert_eq!(items_per_step(bench, "sgemm_naive"), Ok(16));
    assert_eq!(items_per_step(bench, "conv2d"), Ok(16));
    assert_eq!(items_per_step(bench, "mandelbrot"), Ok(8));
    assert_eq!(items_per_step(bench, "vadd"), Ok(4));
    // Its step fits the budget (200 instructions), not its registers (11 per group).
    assert_eq!(items_per_step(bench, "nbody"), Ok(4));
    let layers = include_str!("../../../tests/corpus/nn_layers.cl");
    assert_eq!(items_per_step(layers, "layer_norm"), Ok(4));
    assert_eq!(items_per_step(layers, "maxpool2x2"), Ok(4));
}
