//! A build that would run the process out of memory: `clBuildProgram` answers
//! `CL_OUT_OF_HOST_MEMORY` with a log that says so, and the process lives on to build and
//! run the next program (the compiler checks its memory budget before each stage and in
//! the preprocessor's loop, instead of letting the allocator abort the process).
//!
//! The limit is an address-space limit (`RLIMIT_AS`) lowered inside a child process (this
//! test binary run again, on the ignored test below), so the tests beside it keep theirs.

#![cfg(target_os = "linux")]

use std::process::Command;

use clift_conformance::kernel_fixture::*;
use clift_conformance::*;

/// Set in the child process.
const CHILD: &str = "CLIFT_TEST_MEMORY_LIMIT_CHILD";
/// The address space the child may add once warmed up. The 100,000-statement kernel
/// needs more (its source is 1.1 MB; a build holds about 200 bytes per source byte).
const ROOM: u64 = 160 << 20;

#[test]
fn a_build_that_does_not_fit_is_out_of_host_memory_and_the_process_lives_on() {
    let exe = std::env::current_exe().expect("the test binary");
    let output = Command::new(exe)
        .args([
            "--exact",
            "child_under_an_address_space_limit",
            "--include-ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, "1")
        .output()
        .expect("the child test runs");
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the child failed ({}):\n{text}",
        output.status
    );
    assert!(text.contains("1 passed"), "the child ran no test:\n{text}");
}

/// A kernel of `n` plain statements.
fn big_kernel(n: usize) -> String {
    let mut s = String::from("kernel void big(global int* o) {\n  int x = 0;\n");
    for _ in 0..n {
        s.push_str("x = x + 1;\n");
    }
    s.push_str("  o[0] = x;\n}\n");
    s
}

/// A small program whose macros expand to two million tokens.
const MACRO_BOMB: &str = "
#define X0 1+1+1+1+1+1+1+1+1+1+1+1+1+1+1+1
#define X1 X0+X0+X0+X0+X0+X0+X0+X0+X0+X0+X0+X0+X0+X0+X0+X0
#define X2 X1+X1+X1+X1+X1+X1+X1+X1+X1+X1+X1+X1+X1+X1+X1+X1
#define X3 X2+X2+X2+X2+X2+X2+X2+X2+X2+X2+X2+X2+X2+X2+X2+X2
#define X4 X3+X3+X3+X3+X3+X3+X3+X3
kernel void bomb(global int* o) { o[0] = X4; }
";

/// `/proc/self/status`'s `VmSize`, in bytes.
fn address_space_in_use() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let line = status
        .lines()
        .find(|l| l.starts_with("VmSize:"))
        .expect("VmSize");
    let kib: u64 = line["VmSize:".len()..]
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .expect("a number of kB");
    kib * 1024
}

/// `struct rlimit` of Linux.
#[repr(C)]
struct RLimit {
    soft: u64,
    hard: u64,
}

/// Linux's `RLIMIT_AS`.
const RLIMIT_AS: i32 = 9;

unsafe extern "C" {
    /// The C library's `setrlimit(2)` (std links the C library).
    fn setrlimit(resource: i32, limit: *const RLimit) -> i32;
}

/// Builds `source`: the status and the log.
fn build(fx: &Fixture, source: &str) -> (cl_int, String) {
    let api = clift();
    let program = api
        .create_program_with_source(fx.context, &[source])
        .expect("clCreateProgramWithSource");
    let status = api.build_program(program, c"");
    let log = api.build_log(program, api.device());
    assert_eq!(api.release_program(program), CL_SUCCESS);
    (status, log)
}

#[test]
#[ignore = "the child of the test above: it lowers the process's address-space limit"]
fn child_under_an_address_space_limit() {
    assert!(
        std::env::var_os(CHILD).is_some(),
        "run by a_build_that_does_not_fit_is_out_of_host_memory_and_the_process_lives_on"
    );
    const SMALL: &str = "kernel void k(global int* o) { o[get_global_id(0)] = 7; }";
    let fx = Fixture::new();
    // Warm up everything a build and a launch start once (threads, tables, pools).
    let warm = fx.kernel(SMALL, c"k", c"");
    let out = fx.filled(0i32, 4);
    warm.mem(0, &out);
    fx.run(&warm, None, &[4], None);
    drop(warm);
    let big = big_kernel(100_000);
    let limit = RLimit {
        soft: address_space_in_use() + ROOM,
        hard: u64::MAX,
    };
    // SAFETY: `limit` is a valid `struct rlimit` for the call's duration.
    assert_eq!(unsafe { setrlimit(RLIMIT_AS, &limit) }, 0, "setrlimit");

    let (status, log) = build(&fx, &big);
    assert_eq!(status, CL_OUT_OF_HOST_MEMORY, "log:\n{log}");
    assert!(log.contains("error: out of host memory"), "log:\n{log}");

    // A small source that expands past the budget is stopped inside the preprocessor.
    let (status, log) = build(&fx, MACRO_BOMB);
    assert_eq!(status, CL_OUT_OF_HOST_MEMORY, "log:\n{log}");
    assert!(log.contains("preprocessing needs about"), "log:\n{log}");

    // The process lives on: the next program builds and runs.
    let kernel = fx.kernel(SMALL, c"k", c"");
    kernel.mem(0, &out);
    fx.run(&kernel, None, &[4], None);
    assert_eq!(fx.read::<i32>(&out, 4), [7; 4]);
}
