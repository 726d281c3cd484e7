//! OpenCL C as programs written for clang-based drivers use it (issue 13), built and run
//! through the loader: GNU statement expressions with `__typeof__`, `bool` splatted to -1,
//! vector brace initializers in `__constant` memory, `NULL` compared with pointers of every
//! address space, `.xyzw` on wide vectors and `sizeof(event_t)`. Each value is exact.

use clift_conformance::kernel_fixture::*;

#[test]
fn clang_accepted_forms_build_and_give_clangs_values() {
    let fx = Fixture::new();
    let k = fx.kernel(
        "#define MAX(a, b) ({ __typeof__(a) a_ = (a); __typeof__(b) b_ = (b); a_ > b_ ? a_ : b_; })\n\
         __constant float2 table[] = {{4.0f, 5.0f}, {3.0f, 5.0f}};\n\
         kernel void k(global int *out, local int *scratch) {\n\
         \x20 size_t i = get_global_id(0);\n\
         \x20 int g = 5;\n\
         \x20 uint t = ((g = 0), 7);\n\
         \x20 short4 s = true;\n\
         \x20 int8 w = (int8)(10, 11, 12, 13, 14, 15, 16, 17);\n\
         \x20 local int *l = scratch;\n\
         \x20 out[i * 8 + 0] = MAX((int)i, 2);\n\
         \x20 out[i * 8 + 1] = g * 100 + t;\n\
         \x20 out[i * 8 + 2] = s.w;\n\
         \x20 out[i * 8 + 3] = (int)table[1].x * 10 + (int)table[1].y;\n\
         \x20 out[i * 8 + 4] = (l == NULL) + 2 * (out != NULL);\n\
         \x20 out[i * 8 + 5] = w.w;\n\
         \x20 out[i * 8 + 6] = sizeof(event_t);\n\
         \x20 out[i * 8 + 7] = ({ int acc = 0; for (int j = 0; j <= (int)i; j++) acc += j; acc; });\n\
         }\n",
        c"k",
        c"",
    );
    let n = 4;
    let out = fx.filled(0x5555_5555i32, n * 8);
    k.mem(0, &out).local(1, 64);
    fx.run(&k, None, &[n], None);
    let actual: Vec<i32> = fx.read(&out, n * 8);
    let expected: Vec<i32> = (0..n as i32)
        .flat_map(|i| [i.max(2), 7, -1, 35, 2, 13, 8, i * (i + 1) / 2])
        .collect();
    assert_eq!(actual, expected);
}
