//! The `printf` suite (6.12.13): formats, vector specifiers, length modifiers, `%s` of
//! constant strings and the return value, with the output captured from a child process.

use clift_conformance::kernel_fixture::*;

/// Runs the printf kernel of `printf_formats_values_like_c` and prints each call's result.
/// Ignored on its own: the parent test runs it in a child process to capture its stdout.
#[test]
#[ignore = "run by printf_formats_values_like_c in a child process"]
fn printf_child_process() {
    let fx = Fixture::new();
    let k = fx.kernel(
        "kernel void p(global int *r) {\n\
         \x20 int i = get_global_id(0);\n\
         \x20 if (i == 0) {\n\
         \x20   r[0] = printf(\"<%d|%5.2f|%s|%c|%x|%-4u|%e>\\n\", -42, 3.14159f, \"str\", 'Z', 255u, 7u, 1.5);\n\
         \x20   r[1] = printf(\"<%v4hld>\\n\", (int4)(1, -2, 3, -4));\n\
         \x20   r[4] = printf(\"<%v4d>\\n\", (int4)(1, -2, 3, -4));\n\
         \x20   r[2] = printf(\"<%v2hlf>\\n\", (float2)(0.5f, -2.0f));\n\
         \x20   r[3] = printf(\"<%%|%lu|%#o>\\n\", 18446744073709551615ul, 8);\n\
         \x20 }\n\
         }\n",
        c"p",
        c"",
    );
    let out = fx.filled(7i32, 5);
    k.mem(0, &out);
    fx.run(&k, None, &[4], None);
    let results = fx.read::<i32>(&out, 5);
    println!("results {results:?}");
}

#[test]
fn printf_formats_values_like_c() {
    // 6.12.13: printf writes to the host's stdout when the kernel completes, with C99's
    // conversions, plus the vector specifier `%vN` (elements joined by commas) with a length
    // modifier (`hl` for 32-bit elements); it returns 0 when it succeeds and -1 for an
    // invalid format (a vector specifier without a length modifier), printing nothing. Checked
    // in a child process so that the output can be captured exactly.
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "printf_child_process",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "child failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    // libtest writes "test name ... " before the kernel's first line: skip to the first '<'.
    let lines: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.find('<').or_else(|| l.find("results")).map(|at| &l[at..]))
        .collect();
    assert_eq!(
        lines,
        [
            "<-42| 3.14|str|Z|ff|7   |1.500000e+00>",
            "<1,-2,3,-4>",
            "<0.500000,-2.000000>",
            "<%|18446744073709551615|010>",
            "results [0, 0, 0, 0, -1]",
        ],
        "full output:\n{stdout}"
    );
}
