//! Expressions as programs written for clang-based drivers use them (issue 13): side
//! effects kept by constant folding, GNU statement expressions, `bool` splats, brace
//! initializers of vectors, null pointer constants, `.xyzw` on wide vectors and `sizeof`
//! of opaque types. Each kernel runs as one work-item and writes `int`s that are checked
//! exactly.

mod common;

use clift_compiler::build::{BuildOptions, build};
use common::{compile, run_1d};

/// Runs `kernel void k(global int *out)` of `source` once and returns `out[..n]`.
fn ints(source: &str, n: usize) -> Vec<i32> {
    let k = compile(source);
    let mut out = vec![0x5555_5555i32; n];
    run_1d(&k[0], 1, 1, &[out.as_mut_ptr() as u64], 0);
    out
}

/// Runs `kernel void k(global float *out)` of `source` once and returns `out[..n]`.
fn floats(source: &str, n: usize) -> Vec<f32> {
    let k = compile(source);
    let mut out = vec![f32::NAN; n];
    run_1d(&k[0], 1, 1, &[out.as_mut_ptr() as u64], 0);
    out
}

/// The build log of a program that must build.
fn log_of(source: &str) -> String {
    match build("test.cl", source, &BuildOptions::default()) {
        Ok(b) => b.log,
        Err(log) => panic!("build failed:\n{log}"),
    }
}

// --- 1. Constant folding keeps side effects -------------------------------------------

#[test]
fn comma_with_constant_right_side_keeps_left_side_effects() {
    let out = ints(
        "int set(global int *p) { return (*p = 0, 7); }
        kernel void k(global int *out) {
            int g = 5;
            uint t = ((g = 0), 7);
            out[0] = g; out[1] = t;
            out[2] = 9; out[3] = set(out + 2);
            int h = 1;
            int u = (h++, h++, 3);
            out[4] = h; out[5] = u;
            int w = 4;
            int4 v = (int4)(((w = 8), 2));
            out[6] = w; out[7] = v.y;
        }",
        8,
    );
    assert_eq!(out, [0, 7, 0, 7, 3, 3, 8, 2]);
}

#[test]
fn folds_around_side_effects() {
    let out = ints(
        "int bump(int *c) { return ++*c; }
        kernel void k(global int *out) {
            int c = 0;
            int a = 0 * bump(&c);            /* bump runs */
            int b = 1 || bump(&c);           /* short-circuit: bump does not run */
            int d = 0 && bump(&c);           /* does not run */
            int e = 1 && (c += 10, 1);       /* runs */
            int f = 1 ? 5 : bump(&c);        /* does not run */
            int g = 0 ? bump(&c) : (c += 100, 6);
            int h = (int)(float)(c++, 2.5f); /* cast of a comma runs its left side */
            int i = sizeof(bump(&c)) + vec_step(c++); /* unevaluated */
            int j = (bump(&c), 0) ? 1 : 2;
            out[0] = c; out[1] = a; out[2] = b; out[3] = d; out[4] = e;
            out[5] = f; out[6] = g; out[7] = h; out[8] = i; out[9] = j;
        }",
        10,
    );
    assert_eq!(out, [113, 0, 1, 0, 1, 5, 6, 2, 5, 2]);
}

// --- 2. GNU statement expressions -----------------------------------------------------

#[test]
fn statement_expressions() {
    let out = ints(
        "#define SQUARE_PLUS(x, y) ({ int t_ = (x); t_ * t_ + (y); })
        #define MAX(a, b) ({ int a_ = (a); int b_ = (b); a_ > b_ ? a_ : b_; })
        int twice(int x) { return ({ int t = x; t * 2; }); }
        kernel void k(global int *out) {
            int x = 3;
            out[0] = ({ int t = x; t * 2; });
            out[1] = SQUARE_PLUS(x + 1, 1);
            int t = 40;                       /* the inner t is its own variable */
            out[2] = ({ int t = 1; t + 1; }) + t;
            out[3] = ({ int a = ({ int b = 5; b + 1; }); a * 10; });
            int n = 0;
            for (int i = 0; ({ int lim = 4; i < lim; }); i++) n += ({ i; });
            out[4] = n;
            if (({ int z = x; z == 3; })) out[5] = 1; else out[5] = 2;
            ({ out[6] = 66; });               /* no value: void */
            int w = 0;
            while (({ w++; w < 10; })) { }
            out[7] = w;
            out[8] = MAX(x, 9) + MAX(4, 2);
            out[9] = twice(21);
            int y = 1;
            out[10] = y ? ({ y += 1; y; }) : ({ y += 100; y; });
            out[11] = y;
        }",
        12,
    );
    assert_eq!(out, [6, 17, 42, 60, 6, 1, 66, 10, 13, 42, 2, 2]);
}

#[test]
fn statement_expression_with_control_flow_and_vectors() {
    let out = ints(
        "kernel void k(global int *out) {
            int4 v = ({ int4 a = (int4)(1, 2, 3, 4); a.wzyx; });
            out[0] = v.x; out[1] = v.w;
            int s = ({ int acc = 0; for (int i = 0; i < 5; i++) { if (i == 3) continue; acc += i; } acc; });
            out[2] = s;
            int sw = ({ int r; switch (s) { case 7: r = 70; break; default: r = -1; } r; });
            out[3] = sw;
        }",
        4,
    );
    assert_eq!(out, [4, 1, 7, 70]);
}

// --- 3. bool to vector ----------------------------------------------------------------

#[test]
fn bool_to_vector_is_all_ones() {
    let out = ints(
        "short4 id(short4 v) { return v; }
        float2 fl(void) { return true; }
        kernel void k(global int *out) {
            short4 a = true;
            out[0] = a.x; out[1] = a.w;
            short4 b = (short4)(true);
            out[2] = b.y;
            bool t = get_global_id(0) == 0;
            int4 c = t;
            out[3] = c.z;
            int4 d = (int4)(1 == 1);          /* 1 == 1 is an int: 1 in every lane */
            out[4] = d.x;
            int4 e = (int4)(1, true, 0, 0);    /* components convert as scalars */
            out[5] = e.y;
            uchar2 f = false;
            out[6] = f.x;
            out[7] = id(true).z;
            float4 g = (float4)(true);
            out[8] = (int)g.x;
            float2 h = t;
            out[9] = (int)h.y;
            out[10] = (int)fl().x;
            long2 l; l = true;
            out[11] = (int)l.y;
            int s = true;
            out[12] = s;
        }",
        13,
    );
    assert_eq!(out, [-1, -1, -1, -1, 1, 1, 0, -1, -1, -1, -1, -1, 1]);
}

// --- 4. Vector brace initializers -----------------------------------------------------

#[test]
fn vector_brace_initializers() {
    let out = floats(
        "__constant float2 t[] = {{4.0f, 5.0f}, {3.0f, 5.0f}};
        __constant float4 c4 = {1, 2, 3, 4};
        __constant float3 nested[2][2] = {{{1, 2, 3}, {4, 5, 6}}, {{7, 8, 9}}};
        typedef struct { float2 a; int b; float4 c; } S;
        __constant S cs = {{10, 11}, 12, {13, 14, 15, 16}};
        kernel void k(global float *out) {
            out[0] = t[1].x; out[1] = t[1].y; out[2] = t[0].y;
            out[3] = c4.w;
            out[4] = nested[0][1].z; out[5] = nested[1][0].x; out[6] = nested[1][1].y;
            out[7] = cs.a.y; out[8] = cs.b; out[9] = cs.c.z;
            float2 p[] = {{4.0f, 5.0f}, {3.0f, 6.0f}};
            out[10] = p[1].x; out[11] = p[1].y;
            float4 v = {1, 2, 3, 4};
            out[12] = v.z;
            S s = {{20, 21}, 22, {23, 24, 25, 26}};
            out[13] = s.a.y; out[14] = s.c.w;
            float3 m[2][2] = {{{1, 2, 3}, {4, 5, 6}}, {{7, 8, 9}}};
            out[15] = m[0][1].z; out[16] = m[1][0].y; out[17] = m[1][1].x;
            float2 flat[2] = {1, 2, 3, 4};      /* brace elision */
            out[18] = flat[1].x;
            int4 partial = {7};
            out[19] = partial.x + partial.w;
            float4 two = {(float2)(1, 2), (float2)(3, 4)};
            out[20] = two.z;
        }",
        21,
    );
    assert_eq!(
        out,
        [
            3.0, 5.0, 5.0, 4.0, 6.0, 7.0, 0.0, 11.0, 12.0, 15.0, 3.0, 6.0, 3.0, 21.0, 26.0, 6.0,
            8.0, 0.0, 3.0, 7.0, 3.0
        ]
    );
}

// --- 5. Null pointer constants --------------------------------------------------------

#[test]
fn null_pointer_constants_in_every_address_space() {
    let out = ints(
        "__constant int cdata[2] = {1, 2};
        kernel void k(global int *out, local int *scratch) {
            local int *l = scratch;
            __constant int *c = cdata;
            int x = 1;
            int *p = &x;
            out[0] = (l == (void*)0) + 2 * (c != NULL) + 4 * (p == 0) + 8 * (out != (void *)0);
            out[1] = ((void*)0 == l) + 2 * (NULL == c);
            local int *ln = NULL;
            __constant int *cn = 0;
            global int *gn = (void*)0;
            int *pn = NULL;
            out[2] = (ln == NULL) + (cn == NULL) + (gn == NULL) + (pn == 0);
            global int *q = x ? out : NULL;
            local int *r = x ? NULL : l;
            out[3] = (q == out) + 2 * (r == 0);
            if (!c) out[4] = 0; else out[4] = 5;
            ln = 0; cn = NULL;
            out[5] = (ln == 0) && (cn == 0);
        }",
        6,
    );
    assert_eq!(out, [10, 0, 4, 3, 5, 1]);
}

// --- 6. .xyzw on 8- and 16-component vectors ------------------------------------------

#[test]
fn xyzw_on_wide_vectors() {
    let out = ints(
        "kernel void k(global int *out) {
            int8 a = (int8)(10, 11, 12, 13, 14, 15, 16, 17);
            int16 b = (int16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
            out[0] = a.x; out[1] = a.w; out[2] = b.z;
            int4 s = b.wzyx;
            out[3] = s.x;
            int2 t = a.xy;
            out[4] = t.y;
            a.y = 99;
            out[5] = a.s1;
            b.xw = (int2)(50, 53);
            out[6] = b.s0 + b.s3;
        }",
        7,
    );
    assert_eq!(out, [10, 13, 2, 3, 11, 99, 103]);
}

// --- 7. sizeof of opaque types --------------------------------------------------------

#[test]
fn sizeof_of_opaque_types() {
    let out = ints(
        "kernel void k(global int *out) {
            out[0] = sizeof(event_t);
            out[1] = sizeof(sampler_t);
            out[2] = sizeof(image2d_t);
            out[3] = sizeof(image3d_t);
            out[4] = sizeof(image1d_buffer_t);
            event_t e = 0;
            out[5] = sizeof(e);
        }",
        6,
    );
    assert_eq!(out, [8, 8, 8, 8, 8, 8]);
}

#[test]
fn logs_stay_quiet_for_accepted_forms() {
    let log = log_of(
        "kernel void k(global int *out) {
            local int *l = 0;
            out[0] = l == NULL;
            out[1] = ({ 1; });
        }",
    );
    assert!(!log.contains("error"), "{log}");
}

#[test]
fn statement_expressions_in_steps_late_conditions_and_short_circuits() {
    let out = ints(
        "int side(int *n) { return ({ *n += 1; *n; }); }
        kernel void k(global int *out) {
            int seen = 0, i;
            for (i = 0; i < 10; ({ i++; })) {
                if (i == 2) continue;
                if (i == 5) break;
                seen += 1 << i;
            }
            out[0] = seen; out[1] = i;
            int n = 0, k = 0;
            do { n += 10; } while (({ k++; k < 3; }));
            out[2] = n; out[3] = k;
            int c = 0;
            int a = 0 && ({ c += 1; 1; });
            int b = 1 || ({ c += 2; 1; });
            int d = 1 && ({ c += 4; 0; });
            int e = 0 || ({ c += 8; 5; });
            out[4] = c; out[5] = a; out[6] = b; out[7] = d; out[8] = e;
            int m = 0;
            out[9] = (m++, ({ m *= 10; m; }));
            int z = 0;
            out[10] = side(&z) + side(&z);
            int w = 1;
            w ? ({ out[11] = 11; }) : ({ out[11] = 12; });
        }",
        12,
    );
    assert_eq!(out, [1 + 2 + 8 + 16, 5, 30, 3, 12, 0, 1, 0, 1, 10, 3, 11]);
}

#[test]
fn statement_expression_diagnostics() {
    let fails =
        |source: &str, message: &str| match build("test.cl", source, &BuildOptions::default()) {
            Ok(_) => panic!("built: {source}"),
            Err(log) => assert!(log.contains(message), "{log}"),
        };
    fails(
        "constant int g = ({ 1; });\nkernel void k(global int *o) { o[0] = g; }",
        "test.cl:1:18: error: statement expression not allowed at file scope",
    );
    fails(
        "kernel void k(global int *o) { o[0] = ({ int t = 1; }); }",
        "assigning to 'int' from incompatible type 'void'",
    );
    fails(
        "kernel void k(global int *o) { int x = ({ int t = 1; t; }); o[0] = t; }",
        "use of undeclared identifier 't'",
    );
}

#[test]
fn statement_expression_with_a_barrier() {
    let k = compile(
        "#define EXCHANGE(buf, v, i, n) ({ buf[i] = (v); barrier(CLK_LOCAL_MEM_FENCE); buf[((i) + 1) % (n)]; })
        kernel void k(global int *out, local int *tmp) {
            int lid = get_local_id(0);
            int n = get_local_size(0);
            out[get_global_id(0)] = EXCHANGE(tmp, lid * 10, lid, n) + 1;
        }",
    );
    let mut out = vec![0i32; 16];
    run_1d(&k[0], 16, 8, &[out.as_mut_ptr() as u64, 0], 8 * 4);
    let expect: Vec<i32> = (0..16).map(|g| ((g % 8 + 1) % 8) * 10 + 1).collect();
    assert_eq!(out, expect);
}

#[test]
fn typeof_in_statement_expression_macros() {
    let out = ints(
        "#define MAX(a, b) ({ __typeof__(a) a_ = (a); __typeof__(b) b_ = (b); a_ > b_ ? a_ : b_; })
        #define SWAP(a, b) do { __typeof(a) t_ = (a); (a) = (b); (b) = t_; } while (0)
        kernel void k(global int *out) {
            float f = MAX(1.5f, 2.25f);
            out[0] = (int)(f * 4.0f);
            out[1] = sizeof(MAX((char)1, (char)2)) + 10 * sizeof(1 ? (uchar)1 : (uchar)2);
            int x = 3, y = 4;
            SWAP(x, y);
            out[2] = x * 10 + y;
            __typeof__(out[0]) z = 7;            /* the type of a global place: a private int */
            out[3] = z + sizeof(__typeof__(z));
            int arr[5];
            out[4] = sizeof(__typeof__(arr));
            __typeof__(int4) v = (int4)(1, 2, 3, 4);
            out[5] = v.w + vec_step(__typeof__(v));
            uchar u = 200;
            out[6] = MAX(u, (uchar)100) + MAX(-1, -5);
        }",
        7,
    );
    assert_eq!(out, [9, 44, 43, 11, 20, 8, 199]);
}

#[test]
fn statement_expressions_of_structs_with_goto_and_return() {
    let out = ints(
        "typedef struct { int a; float4 v; } S;
        int first_over(global int *p, int n, int limit) {
            return ({ int r = -1;
                      for (int i = 0; i < n; i++) if (p[i] > limit) { r = i; goto done; }
                      done: r; });
        }
        int early(int x) { int y = ({ if (x > 5) return 100; x * 2; }); return y + 1; }
        kernel void k(global int *out) {
            S s = ({ S t; t.a = 5; t.v = (float4)(1, 2, 3, 4); t; });
            out[0] = s.a + (int)s.v.w;
            out[1] = ({ S u = s; u.a += 1; u; }).a;
            out[2] = 3; out[3] = 9; out[4] = 4;
            out[5] = first_over(out + 2, 3, 5);
            out[6] = early(2) * 1000 + early(9);
        }",
        7,
    );
    assert_eq!(out, [9, 6, 3, 9, 4, 1, 5100]);
}

#[test]
fn statement_expressions_run_after_the_operands_before_them() {
    let out = ints(
        "int pair(int a, int b) { return a * 100 + b; }
        kernel void k(global int *out) {
            int x = 1;
            out[0] = x + ({ x = 5; 1; });          /* clang: 1 + 1 */
            int i = 1;
            out[1] = pair(i++, ({ i * 10; }));     /* clang: pair(1, 20) */
            int y = 2;
            int4 v = (int4)(y, ({ y = 7; y; }), y, 0);
            out[2] = v.x * 100 + v.y * 10 + v.z;
            out[3] = x;
        }",
        4,
    );
    assert_eq!(out, [2, 120, 277, 5]);
}

#[test]
fn vector_subscripts_with_any_index() {
    let k = compile(
        "kernel void k(global int *out, global float4 *g, int n) {
            int8 v = (int8)(10, 11, 12, 13, 14, 15, 16, 17);
            int s = 0;
            for (int i = 0; i < n; i++) s += v[i];     /* a variable index */
            out[0] = s;
            v[n - 1] = 99;                              /* written through one */
            out[1] = v.s7 + v[2];
            int4 a = (int4)(1, 2, 3, 4), b = (int4)(10, 20, 30, 40);
            out[2] = (a + b)[n - 6] + (a * b)[3];       /* subscripts of values */
            g[0][n - 5] = 7.5f;                          /* a vector in global memory */
            out[3] = (int)(g[0].w * 2.0f);
            int3 t = (int3)(5, 6, 7);
            out[4] = t[n - 6] * 100 + t[n - 8 + 2];
        }",
    );
    let mut out = vec![0i32; 5];
    let mut g = vec![[0f32; 4]; 1];
    run_1d(
        &k[0],
        1,
        1,
        &[out.as_mut_ptr() as u64, g.as_mut_ptr() as u64, 8],
        0,
    );
    assert_eq!(out, [108, 111, 33 + 160, 15, 707]);
    assert_eq!(g[0], [0.0, 0.0, 0.0, 7.5]);
}

#[test]
fn sizeof_a_string_literal_counts_its_bytes_and_nul() {
    // C99 6.4.5: a string literal is an array of char (found by cliftc's tests: it was 8,
    // the size of the pointer clift hands the literal on as).
    let out = ints(
        "#define MSG \"a b's\"
        kernel void k(global int *out) {
            out[0] = sizeof(\"ab\"); out[1] = sizeof(MSG); out[2] = sizeof(\"\");
            out[3] = sizeof(\"x\" \"yz\");
        }",
        4,
    );
    assert_eq!(out, [3, 6, 1, 4]);
}
