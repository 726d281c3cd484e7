//! Builtin calls resolved as clang resolves them: implicit scalar conversions of the
//! arguments, pointers differing only in signedness, names that only look like builtins,
//! and the OpenCL C 2.0 builtins that clang-based 1.2 drivers provide too (`ctz`,
//! `get_enqueued_local_size`). Each kernel is built and run; the values are exact.

mod common;

use std::sync::Arc;

use clift_compiler::build::{BuildOptions, build};
use clift_compiler::frontend::sema;
use clift_compiler::kernel::KernelCode;
use common::run_1d;

/// The options of a build on clift's device (what the runtime passes).
fn device_options() -> BuildOptions {
    BuildOptions {
        sema: sema::Options {
            fp64_supported: true,
            fp64_by_default: true,
            fp16_supported: true,
            int64_atomics_supported: true,
            ..Default::default()
        },
        ..Default::default()
    }
}

/// The kernels and the build log of `source`; panics with the log if it does not build.
fn built(source: &str) -> (Vec<Arc<KernelCode>>, String) {
    match build("test.cl", source, &device_options()) {
        Ok(b) => (b.kernels, b.log),
        Err(log) => panic!("build failed:\n{log}"),
    }
}

/// The log of a build that must fail.
fn refused(source: &str) -> String {
    match build("test.cl", source, &device_options()) {
        Ok(_) => panic!("built, but should not have:\n{source}"),
        Err(log) => log,
    }
}

#[test]
fn int_literals_convert_for_64_bit_atomics_without_a_pragma() {
    // clang's opencl-c.h enables the 64-bit atomics extensions itself where the device has
    // them; the `int` literal converts to the `long`/`ulong` of the only viable overload.
    let (k, log) = built(
        "kernel void k(global long *p, global ulong *u, global long *old) {
            size_t i = get_global_id(0);
            atom_add(p, 1);
            atom_sub(p + 1, 3);
            atom_max(p + 2, 5);
            atom_min(p + 3, -2);
            atom_inc(u);
            atom_or(u + 1, 1 << i);
            atom_cmpxchg(u + 2, 0, 9);
            old[i] = atom_xchg(p + 4, 7);
        }",
    );
    assert_eq!(log, "");
    let mut p: [i64; 5] = [10, 100, -1, 0, 7];
    let mut u: [u64; 3] = [u64::MAX - 8, 0, 0];
    let mut old = [0i64; 4];
    run_1d(
        &k[0],
        4,
        4,
        &[
            p.as_mut_ptr() as u64,
            u.as_mut_ptr() as u64,
            old.as_mut_ptr() as u64,
        ],
        0,
    );
    assert_eq!(p, [14, 88, 5, -2, 7]);
    assert_eq!(u, [u64::MAX - 4, 0xf, 9]);
    assert_eq!(old, [7; 4]);
}

#[test]
fn scalar_arguments_convert_to_the_best_overload() {
    // int literals to float, a long to the int of ldexp, a short promoted to int: each
    // call has one overload at least as good for every argument and better for one, under
    // C's ranking (exact, promotion, conversion), which is the one clang calls.
    let (k, log) = built(
        "kernel void k(global float *f, global int *i, short s) {
            f[0] = fmax(f[0], 3);
            f[1] = pow(f[1], 2);
            f[2] = ldexp(f[2], 2L);
            i[0] = mad24(s, s, 1);
            i[1] = mad24(i[1], 2, (short)1);
        }",
    );
    assert_eq!(log, "");
    let mut f = [1.5f32, 3.0, 1.25];
    let mut i = [0i32, 9];
    run_1d(
        &k[0],
        1,
        1,
        &[
            f.as_mut_ptr() as u64,
            i.as_mut_ptr() as u64,
            (-300i16) as u16 as u64,
        ],
        0,
    );
    assert_eq!(f, [3.0, 9.0, 5.0]);
    assert_eq!(i, [90001, 19]);
}

#[test]
fn ambiguous_calls_stay_errors_as_in_clang() {
    let log = refused("kernel void k(global int *p) { p[0] = max(p[0], 2u); }");
    assert!(
        log.contains(
            "error: call to 'max(int, uint)' is ambiguous: candidates are max(int, int), \
             max(uint, uint)"
        ),
        "{log}"
    );
}

#[test]
fn pointers_differing_in_sign_only_are_accepted_with_a_warning() {
    // clang: "passing '__global uint *' to parameter of type '__global int *' converts
    // between pointers to integer types with different sign" (-Wpointer-sign), a warning.
    let (k, log) = built(
        "kernel void k(global uint *out, global const uint *in) {
            vstore4((int4)(-1, 2, -3, 4), 1, out);
            int4 v = vload4(0, (global const int *)in) + as_int4(vload4(0, in).wzyx);
            vstore4(v, 0, (global int *)out);
        }",
    );
    assert_eq!(
        log,
        "test.cl:2:46: warning: passing '__global uint *' to parameter of type '__global int *' \
         converts between pointers to integer types with different sign\n\
         \x20           vstore4((int4)(-1, 2, -3, 4), 1, out);\n\
         \x20                                            ^~~\n"
    );
    let input = [1u32, 2, 3, u32::MAX];
    let mut out = [0u32; 8];
    run_1d(
        &k[0],
        1,
        1,
        &[out.as_mut_ptr() as u64, input.as_ptr() as u64],
        0,
    );
    // vload4(0, uint *) is the uint overload (exact), wzyx of (1, 2, 3, -1) as uint.
    assert_eq!(out, [0, 5, 5, 0, u32::MAX, 2, (-3i32) as u32, 4]);
}

#[test]
fn ctz_for_every_integer_type_and_width() {
    let (k, log) = built(
        "kernel void k(global long *s, global int16 *v) {
            s[0] = ctz((char)0);
            s[1] = ctz((uchar)0x80);
            s[2] = ctz((short)0);
            s[3] = ctz((ushort)4);
            s[4] = ctz(0);
            s[5] = ctz(0x80000000u);
            s[6] = ctz(0L);
            s[7] = ctz(1UL << 63);
            v[0] = convert_int16(ctz((char16)(0, 1, 2, 4, 8, 16, 32, 64, -128, 3, 6, 12, 24,
                                              48, 96, -64)));
            v[1] = (int16)(convert_int8(ctz((ushort8)(0, 1, 2, 0x8000, 0x40, 6, 0xff00, 12))),
                           convert_int4(ctz((uint4)(0, 1, 8, 0x80000000u))),
                           convert_int2(ctz((int2)(-2, 0))),
                           convert_int2(ctz((long3)(0, -1, 1L << 40)).xz));
            v[2] = (int16)(convert_int3(ctz((uchar3)(0, 0x10, 0x81))),
                           convert_int2(ctz((ulong2)(0, 1UL << 33))),
                           convert_int4(ctz((short4)(-32768, 0, 0x100, 7))),
                           convert_int3(ctz((uint3)(0x10000, 0, 2))),
                           convert_int4(ctz((char4)(0, -1, 0x20, 0x0c))));
        }",
    );
    assert_eq!(log, "");
    let mut s = [0i64; 8];
    let mut v = [[0i32; 16]; 3];
    run_1d(
        &k[0],
        1,
        1,
        &[s.as_mut_ptr() as u64, v.as_mut_ptr() as u64],
        0,
    );
    assert_eq!(s, [8, 7, 16, 2, 32, 31, 64, 63]);
    let tz8 = |x: i8| x.trailing_zeros() as i32;
    let chars = [0i8, 1, 2, 4, 8, 16, 32, 64, -128, 3, 6, 12, 24, 48, 96, -64];
    assert_eq!(v[0], chars.map(tz8));
    assert_eq!(
        v[1],
        [16, 0, 1, 15, 6, 1, 8, 2, 32, 0, 3, 31, 1, 32, 64, 40]
    );
    assert_eq!(v[2], [8, 4, 0, 64, 33, 15, 16, 8, 0, 16, 32, 1, 8, 0, 5, 2]);
}

#[test]
fn get_enqueued_local_size_is_the_local_size() {
    let (k, log) = built(
        "kernel void k(global ulong *out) {
            size_t i = get_global_id(0);
            out[3 * i] = get_enqueued_local_size(0);
            out[3 * i + 1] = get_enqueued_local_size(1);
            out[3 * i + 2] = get_enqueued_local_size(get_global_id(0) + 3);
        }",
    );
    assert_eq!(log, "");
    let mut out = [0u64; 24];
    run_1d(&k[0], 8, 4, &[out.as_mut_ptr() as u64], 0);
    assert_eq!(out, [4, 1, 1].repeat(8).as_slice());
}

#[test]
fn names_that_only_look_like_builtins_are_the_users() {
    // No OpenCL C builtin is called convert_float8_to_int8_rtz (a conversion's name is
    // convert_<type>[_sat][_<rounding>]), nor as_bytes: a program may define them.
    let (k, log) = built(
        "int8 convert_float8_to_int8_rtz(float8 v) { return convert_int8_rtz(v) * 2; }
         int as_bytes(int x) { return x + 1; }
         kernel void convert_float8_to_int8_sat(global int8 *out, global const float8 *in) {
             out[0] = convert_float8_to_int8_rtz(in[0]) + as_bytes(0);
         }",
    );
    assert_eq!(log, "");
    assert_eq!(k[0].name, "convert_float8_to_int8_sat");
    let input = [1.9f32, -1.9, 2.5, -0.5, 7.99, -8.01, 0.0, 100.7];
    let mut out = [0i32; 8];
    run_1d(
        &k[0],
        1,
        1,
        &[out.as_mut_ptr() as u64, input.as_ptr() as u64],
        0,
    );
    assert_eq!(out, [3, -1, 5, 1, 15, -15, 1, 201]);
}

#[test]
fn real_builtin_names_stay_reserved() {
    for (source, name) in [
        ("int sin(int x) { return x; }", "sin"),
        (
            "int convert_int_rtz(float x) { return 0; }",
            "convert_int_rtz",
        ),
        ("uint4 as_uint4(float4 x) { return 0; }", "as_uint4"),
        ("int ctz(int x) { return 0; }", "ctz"),
    ] {
        let log = refused(source);
        assert!(
            log.contains(&format!(
                "error: '{name}' is an OpenCL C builtin function and cannot be redeclared"
            )),
            "{log}"
        );
    }
}

#[test]
fn overloadable_functions_add_overloads_to_a_builtin_name() {
    // clang declares every builtin `overloadable`: a program's overloadable function of a
    // builtin's name is one more overload. With a builtin's exact parameter types it is
    // that declaration's definition and is called; other calls still reach the builtin.
    let (k, log) = built(
        "__attribute__((overloadable)) double2 mad(double2 a, double2 b, double2 c) {
             return (double2)(a.x * b.x - a.y * b.y + c.x, a.x * b.y + a.y * b.x + c.y);
         }
         float __attribute__((overloadable)) atom_add(volatile global float *p, float v);
         float __attribute__((overloadable)) atom_add(volatile global float *p, float v) {
             uint old = atomic_add((volatile global uint *)p, 0u);
             while (1) {
                 uint seen = atomic_cmpxchg((volatile global uint *)p, old,
                                            as_uint(as_float(old) + v));
                 if (seen == old) return as_float(old);
                 old = seen;
             }
         }
         kernel void k(global double2 *z, global float *f, global int *i) {
             if (get_global_id(0) == 0) {
                 z[0] = mad(z[0], z[1], z[2]);
                 f[1] = mad(f[1], 2.0f, 1.0f);
             }
             atom_add(f, 0.5f);
             atom_add(i, 2);
         }",
    );
    assert_eq!(log, "");
    let mut z = [[1.0f64, 2.0], [3.0, 4.0], [10.0, 20.0]];
    let mut f = [1.0f32, 3.0];
    let mut i = [5i32];
    run_1d(
        &k[0],
        8,
        4,
        &[
            z.as_mut_ptr() as u64,
            f.as_mut_ptr() as u64,
            i.as_mut_ptr() as u64,
        ],
        0,
    );
    // (1 + 2i)(3 + 4i) + (10 + 20i) = -5 + 10i + 10 + 20i.
    assert_eq!(z[0], [5.0, 30.0]);
    assert_eq!(f, [5.0, 7.0]);
    assert_eq!(i, [21]);
}

#[test]
fn a_builtin_name_without_overloadable_stays_refused() {
    let log = refused("double2 mad(double2 a, double2 b, double2 c) { return a; }");
    assert!(
        log.contains("error: 'mad' is an OpenCL C builtin function and cannot be redeclared"),
        "{log}"
    );
}
