//! Objects are aligned to their size in every address space (OpenCL C 1.2 section 6.1.5:
//! "a data item declared to be a data type in memory is always aligned to the size of the
//! data type in bytes"; 3-vectors as 4-vectors; structs to their largest member), through
//! the loader: `__local` arguments after odd-sized ones, kernel-scope `__local` variables and
//! private variables, in kernels with and without barriers (the CTS's
//! kernel_memory_alignment_local/_private and vec_align_struct check the same).

use clift_conformance::kernel_fixture::*;
use clift_conformance::*;

fn api() -> &'static Api {
    clift()
}

/// Each item writes its objects' addresses modulo their alignment: all must be 0.
const SOURCE: &str = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n\
     typedef struct { char c; short16 v; } S;\n\
     kernel void f(global ulong *out, local char *c, local long16 *l, local char *c2,\n\
     \x20             local double16 *d, local int3 *i3) {\n\
     \x20 local char sc; local long16 sl; local char sc2; local int16 si[2];\n\
     \x20 size_t i = get_global_id(0);\n\
     \x20 char p0 = 1; long16 pl = (long16)(2); char p1 = 3; S ps; ps.c = 4;\n\
     \x20 ps.v = (short16)(5); int16 pi = (int16)(6);\n\
     \x20 BARRIER\n\
     \x20 out[8 * i + 0] = (size_t)l % 128 + (size_t)d % 128 + (size_t)i3 % 16;\n\
     \x20 out[8 * i + 1] = (size_t)&sl % 128 + (size_t)&si[1] % 64;\n\
     \x20 out[8 * i + 2] = (size_t)&pl % 128;\n\
     \x20 out[8 * i + 3] = (size_t)&ps.v % 32;\n\
     \x20 out[8 * i + 4] = (size_t)&pi % 64;\n\
     \x20 out[8 * i + 5] = (size_t)c % 1 + (size_t)c2 % 1 + (size_t)&sc % 1 + (size_t)&sc2 % 1;\n\
     \x20 out[8 * i + 6] = p0 + p1 + pl.s3 + ps.c + ps.v.s7 + pi.s9;\n\
     \x20 out[8 * i + 7] = 0;\n\
     }\n";

fn check(barrier: &str) {
    let fx = Fixture::new();
    let source = SOURCE.replace("BARRIER", barrier);
    let k = fx.kernel(&source, c"f", c"");
    let items = 4;
    let out = fx.filled(u64::MAX, 8 * items);
    k.mem(0, &out)
        .local(1, 3)
        .local(2, 128)
        .local(3, 5)
        .local(4, 128 * 2)
        .local(5, 16);
    fx.run(&k, None, &[items], Some(&[2]));
    let expected: Vec<u64> = (0..items)
        .flat_map(|_| [0, 0, 0, 0, 0, 0, 1 + 3 + 2 + 4 + 5 + 6, 0])
        .collect();
    assert_same(&fx.read::<u64>(&out, 8 * items), &expected, barrier);
}

#[test]
fn objects_are_aligned_to_their_size_in_every_address_space() {
    let _ = api();
    check("");
}

#[test]
fn objects_are_aligned_in_kernels_with_barriers() {
    let _ = api();
    check("barrier(CLK_LOCAL_MEM_FENCE);");
}
