//! `cts-run` against a stand-in CTS: shell scripts named like the CTS's binaries that print
//! what the CTS prints and exit as it does. The runner must find binaries in the build tree,
//! pass the quick-mode arguments and `OCL_ICD_VENDORS`, tell passes from failures and
//! timeouts, and write the table between the markers of a Markdown file.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

fn script(path: &Path, body: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn cts_run_tables_passes_failures_and_timeouts() {
    let dir = std::env::temp_dir().join(format!("clift-cts-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // A suite passes when it exits with 0; the runner reports its "PASSED n of m" line.
    // test_basic's quick mode is a device with 32 KiB of local memory.
    script(
        &dir.join("basic/test_basic"),
        r#"[ "$OCL_ICD_VENDORS" = /opt/vendors ] || exit 7
[ "$CLIFT_LOCAL_MEM_SIZE" = 32K ] || exit 8
echo "PASSED sub-test."; echo "PASSED 3 of 3 tests.""#,
    );
    // Quick-mode arguments are passed: test_conversions must get -w.
    script(
        &dir.join("conversions/test_conversions"),
        r#"[ "$1" = -w ] || exit 9; echo "PASSED 1 of 1 tests.""#,
    );
    script(
        &dir.join("test_api"),
        r#"echo "FAILED 1 of 5 tests."; exit 1"#,
    );
    script(&dir.join("test_printf"), "sleep 20");
    // The image suites lie two levels down; each gets small_images and the compute-unit cap.
    script(
        &dir.join("images/kernel_read_write/test_image_streams"),
        r#"[ "$1" = small_images ] || exit 5; [ "$CLIFT_MAX_COMPUTE_UNITS" = 2 ] || exit 6
echo "PASSED 2 of 2 tests.""#,
    );
    let doc = dir.join("CONFORMANCE.md");
    std::fs::write(
        &doc,
        "# Conformance\n\n<!-- cts-run begin -->\nold table\n<!-- cts-run end -->\n\nAfter.\n",
    )
    .unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_cts-run"))
        .arg(&dir)
        .args(["--vendors", "/opt/vendors", "--timeout", "2", "--jobs", "3"])
        .args(["--compute-units", "2", "--update"])
        .arg(&doc)
        .args([
            "--only",
            "test_basic,test_conversions,test_api,test_printf,test_vectors,test_image_streams",
        ])
        .output()
        .unwrap();
    // A failure anywhere makes the runner fail.
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let text = std::fs::read_to_string(&doc).unwrap();
    assert!(
        text.starts_with(
            "# Conformance\n\n<!-- cts-run begin -->\n3 of 5 CTS suites pass (1 not built)."
        ),
        "{text}"
    );
    for row in [
        "| test_api | FAIL (exit 1) | FAILED 1 of 5 tests |",
        "| test_basic | pass | PASSED 3 of 3 tests |",
        "| test_conversions | pass | PASSED 1 of 1 tests |",
        "| test_vectors | not built |  |",
        "| test_printf | timeout after 2 s |  |",
        "| test_image_streams | pass | PASSED 2 of 2 tests |",
    ] {
        assert!(text.contains(row), "missing {row}:\n{text}");
    }
    assert!(!text.contains("old table"));
    assert!(text.ends_with("<!-- cts-run end -->\n\nAfter.\n"), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn cts_run_shards_a_suite_by_its_sub_tests() {
    let dir = std::env::temp_dir().join(format!("clift-cts-shards-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // Lists four sub-tests; a run passes the ones it is given, except `bad`, and records
    // which it got.
    script(
        &dir.join("integer_ops/test_integer_ops"),
        r#"if [ "$1" = --list ]; then printf 'Available:\n\tone\n\ttwo\n\tthree\n\tfour\n'; exit 0; fi
echo "$@" >> "$(dirname "$0")/calls"
n=0; for a in "$@"; do [ "$a" = -w ] || n=$((n+1)); done
echo "PASSED $n of $n tests.""#,
    );
    let output = Command::new(env!("CARGO_BIN_EXE_cts-run"))
        .arg(&dir)
        .args(["--vendors", "/opt/vendors", "--shards", "3"])
        .args(["--only", "test_integer_ops"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    // Four sub-tests dealt over three processes, the counts added up.
    assert!(
        stdout.contains("| test_integer_ops | pass | PASSED 4 of 4 tests |"),
        "{stdout}"
    );
    let calls = std::fs::read_to_string(dir.join("integer_ops/calls")).unwrap();
    let mut calls: Vec<&str> = calls.lines().collect();
    calls.sort();
    // Each shard gets the suite's quick-mode argument before its sub-tests.
    assert_eq!(calls, ["-w one four", "-w three", "-w two"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn cts_run_full_drops_the_quick_device_settings() {
    let dir = std::env::temp_dir().join(format!("clift-cts-full-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // With --full, test_basic runs on the default device (no CLIFT_LOCAL_MEM_SIZE) and
    // test_conversions without -w. `--only` takes names with or without `test_`.
    script(
        &dir.join("basic/test_basic"),
        r#"[ -z "${CLIFT_LOCAL_MEM_SIZE+set}" ] || exit 8; echo "PASSED 1 of 1 tests.""#,
    );
    script(
        &dir.join("conversions/test_conversions"),
        r#"[ "$#" = 0 ] || exit 9; echo "PASSED 1 of 1 tests.""#,
    );
    let output = Command::new(env!("CARGO_BIN_EXE_cts-run"))
        .arg(&dir)
        .args(["--vendors", "/opt/vendors", "--full"])
        .args(["--only", "basic,test_conversions"])
        .env_remove("CLIFT_LOCAL_MEM_SIZE")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("| test_basic | pass |"), "{stdout}");
    assert!(stdout.contains("| test_conversions | pass |"), "{stdout}");
    std::fs::remove_dir_all(&dir).unwrap();
}
