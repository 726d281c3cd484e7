//! Anonymous struct/union members (C11 6.7.2.1p13), nested designators (C99 6.7.8p17) and
//! compound literals of structs, arrays and scalars (C99 6.5.2.5), through sema and
//! codegen: each kernel writes what it built, checked value by value.

mod common;

use common::{compile, run_1d};

/// Runs the first kernel of `source` once with an output buffer of `n` ints.
fn run_ints(source: &str, n: usize) -> Vec<i32> {
    let kernels = compile(source);
    let mut out = vec![-1i32; n];
    run_1d(&kernels[0], 1, 1, &[out.as_mut_ptr() as u64], 0);
    out
}

#[test]
fn anonymous_members_are_reached_by_name() {
    let out = run_ints(
        "typedef struct {
            int tag;
            union { int i; float f; };
            struct { short lo, hi; };
        } V;
        kernel void k(global int *out) {
            V v;
            v.tag = 7;
            v.f = 1.0f;
            v.lo = 3; v.hi = -2;
            out[0] = v.tag;
            out[1] = v.i;              /* the bits of 1.0f, through the union */
            out[2] = v.lo + 10 * v.hi;
            out[3] = sizeof(V);
            V *p = &v;
            p->i = 41;
            out[4] = p->i + 1;
            out[5] = (int)v.f == 0;    /* 41 as float bits is a denormal */
        }",
        6,
    );
    assert_eq!(out, [7, 0x3f80_0000, -17, 12, 42, 1]);
}

#[test]
fn anonymous_members_take_positional_and_designated_initializers() {
    let out = run_ints(
        "struct S { int a; union { int b; float c; }; int d; };
        kernel void k(global int *out) {
            struct S x = { 1, 2, 3 };         /* 2 goes to the union's first member */
            struct S y = { .d = 9, .b = 5 };  /* .b reaches into the anonymous union */
            struct S z = { .c = 2.0f, 6 };    /* the item after .c continues after the union */
            out[0] = x.a; out[1] = x.b; out[2] = x.d;
            out[3] = y.a; out[4] = y.b; out[5] = y.d;
            out[6] = as_int(z.c); out[7] = z.d;
        }",
        8,
    );
    assert_eq!(out, [1, 2, 3, 0, 5, 9, 0x4000_0000, 6]);
}

#[test]
fn nested_designators_initialize_subobjects() {
    let out = run_ints(
        "typedef struct { int x, y; } P;
        typedef struct { P a; int arr[3]; } Q;
        kernel void k(global int *out) {
            Q q = { .a.y = 1, .arr[1] = 4, 5 };  /* 5 continues at arr[2] */
            P ps[3] = { [2].x = 3, [0] = { 8, 9 }, [1].y = 6, 7 };  /* 7 goes to ps[2].x */
            out[0] = q.a.x; out[1] = q.a.y;
            out[2] = q.arr[0]; out[3] = q.arr[1]; out[4] = q.arr[2];
            for (int i = 0; i < 3; i++) { out[5 + 2 * i] = ps[i].x; out[6 + 2 * i] = ps[i].y; }
        }",
        11,
    );
    assert_eq!(out, [0, 1, 0, 4, 5, 8, 9, 0, 6, 7, 0]);
}

#[test]
fn compound_literals_of_structs_arrays_and_scalars() {
    let out = run_ints(
        "struct S { int a; short b; int c[2]; };
        int sum(struct S s) { return s.a + s.b + s.c[0] + s.c[1]; }
        int first(const int *p) { return p[0] * 100 + p[1]; }
        kernel void k(global int *out) {
            struct S s = (struct S){ 1, 2, { 3, 4 } };
            out[0] = s.a + s.b + s.c[1];
            out[1] = sum((struct S){ .c[1] = 40, .a = 10 });
            out[2] = first((int[2]){ 7, 8 });
            out[3] = (int[]){ 5, 6, 7 }[2];
            out[4] = (int){ 9 } + ((struct S){ 11 }).a;
            int *p = (int[3]){ 1 };
            p[2] = 12;
            out[5] = p[0] + p[1] + p[2];
            for (int i = 0; i < 2; i++) {
                /* initialized again on every evaluation */
                struct S t = (struct S){ .a = i };
                out[6 + i] = t.a * 10 + t.b;
            }
        }",
        8,
    );
    assert_eq!(out, [7, 50, 708, 7, 20, 13, 0, 10]);
}

#[test]
fn compound_literals_in_a_kernel_with_barriers() {
    let kernels = compile(
        "kernel void k(global int *out) {
            local int t[2];
            int lid = get_local_id(0);
            struct P { int x, y; } p = (struct P){ lid, 2 * lid + 1 };
            t[lid] = p.y;
            barrier(CLK_LOCAL_MEM_FENCE);
            out[lid] = t[1 - lid] + ((int[2]){ 100, 200 })[lid] + 10 * p.x;
        }",
    );
    let mut out = [0i32; 2];
    run_1d(&kernels[0], 2, 2, &[out.as_mut_ptr() as u64], 8);
    assert_eq!(out, [103, 211]);
}

#[test]
fn anonymous_members_with_attributes_as_pyopencl_complex_declares_them() {
    // pyopencl-complex.h: a union of two anonymous structs, each aligned by a trailing
    // attribute, so that `z.x`/`z.real` and `z.y`/`z.imag` name the same floats.
    let out = run_ints(
        "typedef union {
            struct { float x, y; } __attribute__ ((aligned (8)));
            struct { float real, imag; } __attribute__ ((aligned (8)));
        } cfloat_t;
        kernel void k(global int *out) {
            cfloat_t z;
            z.real = 1.5f;
            z.imag = -2.0f;
            out[0] = z.x == 1.5f && z.y == -2.0f;
            out[1] = sizeof(cfloat_t);
        }",
        2,
    );
    assert_eq!(out, [1, 8]);
}
