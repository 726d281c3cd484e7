//! The build cache through the loader: a program built again from the same text with the
//! same options reuses the earlier build, gives the same results and the same build log,
//! and a change of options or text builds anew.
//!
//! The driver reads `CLIFT_BUILD_CACHE` and `CLIFT_LOG` once per process, so each case runs
//! the application part (`application`, an ignored test of this file) in a child process.

use std::ffi::CString;
use std::process::Command;

use clift_conformance::kernel_fixture::Fixture;
use clift_conformance::*;

const SOURCE: &str = "kernel void scale(global int *a) { a[get_global_id(0)] *= FACTOR; }";

/// Builds `SOURCE` with `-DFACTOR=factor` in a fresh program, runs it on 1..=4 and returns
/// the result and the build log.
fn build_and_run(fixture: &Fixture, factor: i32) -> (Vec<i32>, String) {
    let options = CString::new(format!("-DFACTOR={factor} -cl-mad-enable")).unwrap();
    let kernel = fixture.kernel(SOURCE, c"scale", &options);
    let buffer = fixture.buffer(&[1i32, 2, 3, 4]);
    kernel.mem(0, &buffer);
    fixture.run(&kernel, None, &[4], None);
    let log = clift().build_log(kernel.program, clift().device());
    (fixture.read::<i32>(&buffer, 4), log)
}

/// What the child does: the same build three times, another option once, and a program
/// with a warning twice (its log must come back from the cache too).
#[test]
#[ignore = "the application half of the build-cache tests; they run it in a child process"]
fn application() {
    let fixture = Fixture::new();
    let first = build_and_run(&fixture, 3);
    assert_eq!(first.0, [3, 6, 9, 12]);
    for _ in 0..2 {
        assert_eq!(build_and_run(&fixture, 3), first);
    }
    assert_eq!(build_and_run(&fixture, 5).0, [5, 10, 15, 20]);
    let warned = "kernel void w(global int *a) { int16 v = (int16)(7); a[0] = v.x; }";
    let logs: Vec<String> = (0..2)
        .map(|_| {
            let kernel = fixture.kernel(warned, c"w", c"");
            clift().build_log(kernel.program, clift().device())
        })
        .collect();
    assert!(
        logs[0].contains("warning: vector component name 'x' on a vector of 16 elements"),
        "{}",
        logs[0]
    );
    assert_eq!(logs[0], logs[1]);
}

/// Runs [`application`] in a child with `CLIFT_LOG=build` and `extra` set; the number of
/// builds that compiled and that came from the cache.
fn builds_in_child(extra: &[(&str, &str)]) -> (usize, usize) {
    let log = std::env::temp_dir().join(format!(
        "clift-build-cache-test-{}-{}.log",
        std::process::id(),
        extra.len()
    ));
    let _ = std::fs::remove_file(&log);
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args(["--exact", "application", "--ignored", "--test-threads", "1"])
        .env_remove("CLIFT_BUILD_CACHE")
        .env("CLIFT_LOG", "build")
        .env("CLIFT_LOG_FILE", &log);
    for (name, value) in extra {
        command.env(name, value);
    }
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "the child failed: {}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let _ = std::fs::remove_file(&log);
    let compiled = text.matches("build] built: options").count();
    let cached = text
        .matches("build] built from the build cache: options")
        .count();
    (compiled, cached)
}

#[test]
fn a_repeated_build_comes_from_the_cache() {
    // Distinct builds: FACTOR=3, FACTOR=5 and the warned program. Repeats: two of FACTOR=3
    // and one of the warned program.
    assert_eq!(builds_in_child(&[]), (3, 3));
}

#[test]
fn clift_build_cache_0_turns_it_off() {
    assert_eq!(builds_in_child(&[("CLIFT_BUILD_CACHE", "0")]), (6, 0));
}
