//! What the vectorizer declines, and why (the kernels that run both ways are in
//! compiler/tests/run_vectorized.rs).

use crate::build::{BuildOptions, typed_tree};

/// Why the first kernel of `source` is not vectorized (`Ok` where it is).
fn reason(source: &str) -> Result<(), String> {
    let program = typed_tree("v.cl", source, &BuildOptions::default()).expect("the source builds");
    let (_, f) = program.kernels().next().expect("a kernel");
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
    assert_eq!(
        reason(
            "kernel void k(global int *a) {
                int i = get_global_id(0);
                switch (i) { case 0: a[i] = 1; break; default: a[i] = 2; }
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
        Err("'t' is a varying int[2] (only scalars and vectors of int, uint or float are vectorized yet)".into())
    );
    assert_eq!(
        reason("kernel void k(global int *a) { a[get_global_id(1)] = 1; }"),
        Err("it does not use get_global_id(0) or get_local_id(0)".into())
    );
}
