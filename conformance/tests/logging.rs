//! `CLIFT_LOG` and `CLIFT_PROFILE` through the loader, as a user turns them on.
//!
//! The driver reads both variables once per process, so each case runs the application part
//! (`application`, an ignored test of this file) in a child process of this test binary with
//! the variables set, and checks what it wrote.

use std::ffi::CString;
use std::path::PathBuf;
use std::process::{Command, Output};

use clift_conformance::kernel_fixture::Fixture;
use clift_conformance::*;

fn api() -> &'static Api {
    clift()
}

/// What the child does: a failing call, a failing build, a build and a launch.
#[test]
#[ignore = "the application half of the logging tests; they run it in a child process"]
fn application() {
    let fixture = Fixture::new();
    // CL_MEM_USE_HOST_PTR with a NULL host pointer... is a different check; this one is the
    // flag combination rule: READ_ONLY and WRITE_ONLY together.
    let bad = api().create_buffer(fixture.context, CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY, 16);
    assert_eq!(bad.err(), Some(CL_INVALID_VALUE));
    let broken = api()
        .create_program_with_source(fixture.context, &["kernel void b() { undeclared = 1; }"])
        .unwrap();
    assert_eq!(
        api().build_program(broken, &CString::new("-DX=1").unwrap()),
        CL_BUILD_PROGRAM_FAILURE
    );
    let kernel = fixture.kernel(
        "kernel void twice(global int *a) { a[get_global_id(0)] *= 2; }",
        c"twice",
        c"-cl-mad-enable",
    );
    // A barrier reached through goto: the kernel runs as a resumable function.
    let _jumpy = fixture.kernel(
        "kernel void jumpy(global int *a, local int *t) {\n\
         int i = 0;\n\
         again:\n\
         t[get_local_id(0)] = i;\n\
         barrier(CLK_LOCAL_MEM_FENCE);\n\
         if (++i < 2) goto again;\n\
         a[get_global_id(0)] = t[0];\n}\n",
        c"jumpy",
        c"",
    );
    let buffer = fixture.buffer(&[1i32, 2, 3, 4, 5, 6, 7, 8]);
    kernel.mem(0, &buffer);
    fixture.run(&kernel, None, &[8], Some(&[4]));
    fixture.run(&kernel, None, &[8], Some(&[2]));
    assert_eq!(
        fixture.read::<i32>(&buffer, 8),
        [4, 8, 12, 16, 20, 24, 28, 32]
    );
}

/// Runs [`application`] in a child process with `env` set; its output and the log file's
/// text (`CLIFT_LOG_FILE` points at a fresh file).
fn run_child(env: &[(&str, &str)]) -> (Output, String) {
    let log = std::env::temp_dir().join(format!(
        "clift-log-test-{}-{}.log",
        std::process::id(),
        env.iter().map(|(_, v)| v.len()).sum::<usize>()
    ));
    let _ = std::fs::remove_file(&log);
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args(["--exact", "application", "--ignored", "--test-threads", "1"])
        .env_remove("CLIFT_LOG")
        .env_remove("CLIFT_PROFILE")
        .env("CLIFT_LOG_FILE", &log);
    for (name, value) in env {
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
    let _ = std::fs::remove_file(PathBuf::from(&log));
    (output, text)
}

/// The log's lines without their time stamps: `category] message`.
fn lines(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.strip_prefix("[clift "))
        .map(|l| l.split_once(' ').expect("a time stamp").1.to_string())
        .collect()
}

#[test]
fn every_category_writes_what_it_promises() {
    let (_, text) = run_child(&[("CLIFT_LOG", "api,build,launch")]);
    let lines = lines(&text);
    let has = |wanted: &str| lines.iter().any(|l| l.starts_with(wanted));
    // api: every entry point with its status; a failure names the check.
    assert!(has("api] clCreateContext(properties="), "{text}");
    let failure = lines
        .iter()
        .find(|l| l.starts_with("api] clCreateBuffer(context=0x"))
        .unwrap_or_else(|| panic!("{text}"));
    // Its arguments (CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY is 6), the code, the check.
    assert!(
        failure.contains(", flags=6, size=16, host_ptr=0x0, errcode_ret=0x"),
        "{failure}"
    );
    assert!(
        failure.contains(") -> CL_INVALID_VALUE (failed check at icd/src/api/memory.rs:"),
        "{failure}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("api] clBuildProgram(program=0x")
                && l.contains(") -> CL_BUILD_PROGRAM_FAILURE")),
        "{text}"
    );
    // build: options, size, stage times, the log.
    assert!(has("build] build failed: options '-DX=1', "), "{text}");
    assert!(
        text.contains("error: use of undeclared identifier 'undeclared'"),
        "{text}"
    );
    let built = lines
        .iter()
        .find(|l| l.starts_with("build] built: options '-cl-mad-enable', "))
        .unwrap_or_else(|| panic!("{text}"));
    for part in [
        "kernels [twice]",
        "preprocess ",
        "parse ",
        "sema ",
        "codegen ",
    ] {
        assert!(built.contains(part), "{part} in {built}");
    }
    // How each kernel runs, and why a kernel falls back to resumable barriers or is not
    // vectorized.
    assert!(
        text.contains(
            "\n  kernel twice runs as a loop over its work-items, 4 work-items per step \
             (vectorized)\n"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "\n  kernel jumpy runs as a resumable work-item function: the work-group planner \
             cannot split it at its barriers"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "half as fast, not vectorized: the work-group planner cannot split it at its \
             barriers\n"
        ),
        "{text}"
    );
    // launch: each kernel with its sizes, each command with its wait and run time.
    assert!(
        has("launch] kernel twice: 1 dims, global [8], local [4], offset [0], 2 groups: ran "),
        "{text}"
    );
    assert!(
        has("launch] kernel twice: 1 dims, global [8], local [2], offset [0], 4 groups: ran "),
        "{text}"
    );
    let commands = lines
        .iter()
        .filter(|l| l.starts_with("launch] CL_COMMAND_NDRANGE_KERNEL: waited "))
        .count();
    assert_eq!(commands, 2, "{text}");
    assert!(has("launch] CL_COMMAND_READ_BUFFER: waited "), "{text}");
}

#[test]
fn levels_and_categories_select_lines() {
    let (_, text) = run_child(&[("CLIFT_LOG", "api=error")]);
    let lines = lines(&text);
    assert_eq!(
        lines
            .iter()
            .map(|l| l.split('(').next().unwrap())
            .collect::<Vec<_>>(),
        ["api] clCreateBuffer", "api] clBuildProgram"],
        "{text}"
    );
    // Off: nothing at all.
    let (output, text) = run_child(&[]);
    assert_eq!(text, "");
    assert!(!String::from_utf8_lossy(&output.stderr).contains("[clift "));
}

#[test]
fn the_profile_is_printed_at_exit() {
    let (output, _) = run_child(&[("CLIFT_PROFILE", "1")]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let report = &stderr[stderr
        .find("clift profile (CLIFT_PROFILE)")
        .unwrap_or_else(|| panic!("{stderr}"))..];
    let row = report
        .lines()
        .find(|l| l.starts_with("twice "))
        .unwrap_or_else(|| panic!("{report}"));
    // Two launches of 8 work-items each.
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cells[1], "2", "{row}");
    let build = report
        .lines()
        .find(|l| l.ends_with("  twice"))
        .unwrap_or_else(|| panic!("{report}"));
    // One successful build: its number, the source's bytes, four stages and the total.
    assert_eq!(build.split_whitespace().count(), 8, "{build}");
    assert!(report.contains("codegen ms"), "{report}");
}
