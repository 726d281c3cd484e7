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

#[test]
fn cts_run_splits_image_streams_by_geometry_and_type_and_starts_it_first() {
    let dir = std::env::temp_dir().join(format!("clift-cts-images-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let calls = dir.join("calls");
    script(
        &dir.join("images/kernel_read_write/test_image_streams"),
        &format!(
            r#"if [ "$1" = --list ]; then printf 'Tests:\n\t1D\n\t3D\n\tcl_ext_image_raw10_raw12\n'; exit 0; fi
echo streams "$@" >> {calls}; echo "PASSED 1 of 1 tests.""#,
            calls = calls.display()
        ),
    );
    script(
        &dir.join("printf/test_printf"),
        &format!(
            r#"echo printf "$@" >> {calls}; echo "PASSED 2 of 2 tests.""#,
            calls = calls.display()
        ),
    );
    let output = Command::new(env!("CARGO_BIN_EXE_cts-run"))
        .arg(&dir)
        .args(["--vendors", "/opt/vendors", "--jobs", "1"])
        .args(["--only", "printf,image_streams"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("| test_image_streams | pass | PASSED 19 of 19 tests |"),
        "{stdout}"
    );
    // Per geometry, the largest first, one process per kind of read and one for the writes,
    // then one for the other sub-tests; the image streams (the longest suite) before
    // test_printf, though the table lists printf first.
    let mut expected = String::new();
    for geometry in ["3D", "1D"] {
        for flags in [
            "read float CL_FILTER_LINEAR NORMALIZED",
            "read float CL_FILTER_LINEAR UNNORMALIZED",
            "read float CL_FILTER_NEAREST NORMALIZED",
            "read float CL_FILTER_NEAREST UNNORMALIZED",
            "read int NORMALIZED",
            "read int UNNORMALIZED",
            "read uint NORMALIZED",
            "read uint UNNORMALIZED",
            "write",
        ] {
            expected += &format!("streams small_images {flags} {geometry}\n");
        }
    }
    expected += "streams small_images cl_ext_image_raw10_raw12\nprintf\n";
    assert_eq!(std::fs::read_to_string(&calls).unwrap(), expected);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The rows of a results file without their seconds and date columns.
fn rows(file: &Path) -> Vec<String> {
    std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("suite\t"))
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 8, "{l}");
            format!(
                "{} | {} | {} | {} | {} | {}",
                f[0], f[1], f[2], f[4], f[5], f[6]
            )
        })
        .collect()
}

#[test]
fn cts_run_fullsize_runs_the_shards_not_yet_passed_and_records_them() {
    let dir = std::env::temp_dir().join(format!("clift-cts-fullsize-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("README.md"),
        "- Source: OpenCL-CTS commit b8f8906c251926b1b3679323bfbf3df730b40fb8 (2026-08-18)\n",
    )
    .unwrap();
    let calls = dir.join("calls");
    // fabs in double never ends; sqrt in float fails until the file `fixed` exists.
    script(
        &dir.join("math_brute_force/test_bruteforce"),
        &format!(
            r#"if [ "$1" = --list ]; then printf 'Test names:\n\tfabs\n\tsqrt\n'; exit 0; fi
echo "$@" >> {calls}
[ "$CLIFT_MAX_COMPUTE_UNITS" = 2 ] || exit 6
[ "$*" = "-f -g fabs" ] && exec sleep 20
if [ "$*" = "-d -g sqrt" ] && [ ! -e {fixed} ]; then echo "FAILED 1 of 1 tests."; exit 1; fi
echo "PASSED 1 of 1 tests.""#,
            calls = calls.display(),
            fixed = dir.join("fixed").display()
        ),
    );
    script(
        &dir.join("conversions/test_conversions"),
        &format!(
            r#"echo "$@" >> {calls}; [ "$#" = 1 ] || exit 9; echo "PASSED 1 of 1 sub-tests.""#,
            calls = calls.display()
        ),
    );
    let results = dir.join("cts-fullsize.tsv");
    let run = |budget: &str, extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_cts-run"))
            .arg(&dir)
            .args(["--vendors", "/opt/vendors", "--compute-units", "2"])
            .args(["--jobs", "2", "--timeout", "1", "--budget", budget])
            .args(["--only", "fabs,sqrt,uchar_sat_rtz_char"])
            .arg("--fullsize")
            .arg(&results)
            .args(extra)
            .output()
            .unwrap()
    };
    // The first run: every chosen shard runs; a failure makes it fail.
    let output = run("60", &["--build", "first"]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    assert_eq!(
        rows(&results),
        [
            "test_bruteforce | fabs double | timeout | 2 | first | b8f8906",
            "test_bruteforce | fabs float | pass | 2 | first | b8f8906",
            "test_bruteforce | fabs half | pass | 2 | first | b8f8906",
            "test_bruteforce | sqrt double | pass | 2 | first | b8f8906",
            "test_bruteforce | sqrt float | fail:1 | 2 | first | b8f8906",
            "test_bruteforce | sqrt half | pass | 2 | first | b8f8906",
            "test_conversions | uchar_sat_rtz_char | pass | 2 | first | b8f8906",
        ]
    );
    let mut first: Vec<String> = std::fs::read_to_string(&calls)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    first.sort();
    assert_eq!(
        first,
        [
            "-d -g fabs",
            "-d -g sqrt",
            "-f -d fabs",
            "-f -d sqrt",
            "-f -g fabs",
            "-f -g sqrt",
            "uchar_sat_rtz_char"
        ]
    );
    // The second run: only the failure runs again (the shard that ran out of its 1 s before
    // is left out), and the summary goes into the document.
    std::fs::write(dir.join("fixed"), "").unwrap();
    std::fs::remove_file(&calls).unwrap();
    let doc = dir.join("CONFORMANCE.md");
    std::fs::write(
        &doc,
        "# C\n\n<!-- cts-run begin -->\nquick\n<!-- cts-run end -->\n\n\
         <!-- cts-fullsize begin -->\nold\n<!-- cts-fullsize end -->\n",
    )
    .unwrap();
    let output = run(
        "60",
        &["--build", "second", "--update", doc.to_str().unwrap()],
    );
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert_eq!(std::fs::read_to_string(&calls).unwrap(), "-d -g sqrt\n");
    assert_eq!(
        rows(&results)[4],
        "test_bruteforce | sqrt float | pass | 2 | second | b8f8906"
    );
    let text = std::fs::read_to_string(&doc).unwrap();
    assert!(text.starts_with("# C\n\n<!-- cts-run begin -->\nquick\n<!-- cts-run end -->\n\n<!-- cts-fullsize begin -->\nFull-size"), "{text}");
    for row in [
        "| test_bruteforce | 6 | 5 | 0 | 1 | 0 | ",
        " | first, second | b8f8906 |",
        "| test_conversions | 1045 | 1 | 0 | 0 | 1044 | ",
        " | first | b8f8906 |",
        "Not passed: `fabs double` timeout (",
    ] {
        assert!(text.contains(row), "missing {row}:\n{text}");
    }
    assert!(text.ends_with("<!-- cts-fullsize end -->\n"), "{text}");
    // A misspelt `--only` is an error, not an empty run.
    let output = Command::new(env!("CARGO_BIN_EXE_cts-run"))
        .arg(&dir)
        .args(["--vendors", "/opt/vendors", "--only", "fabss", "--fullsize"])
        .arg(&results)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    // `--budget 0` runs nothing and writes the same summary again.
    std::fs::remove_file(&calls).unwrap();
    std::fs::write(
        &doc,
        "<!-- cts-fullsize begin -->\n<!-- cts-fullsize end -->\n",
    )
    .unwrap();
    let output = run("0", &["--update", doc.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert!(!calls.exists());
    assert_eq!(
        std::fs::read_to_string(&doc).unwrap(),
        text[text.find("<!-- cts-fullsize begin").unwrap()..]
    );
    // `--merge`: another machine's copy of the file, where `fabs double` passed, gives its
    // row (and only that one) to the file, and the summary counts it; nothing runs.
    let other = dir.join("other.tsv");
    let copy: String = std::fs::read_to_string(&results)
        .unwrap()
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            if f.get(1) == Some(&"fabs double") {
                format!(
                    "{}\t{}\tpass\t300\t64\tdevice\t{}\t{}\n",
                    f[0], f[1], f[6], f[7]
                )
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    std::fs::write(&other, copy).unwrap();
    let output = run(
        "0",
        &[
            "--merge",
            other.to_str().unwrap(),
            "--update",
            doc.to_str().unwrap(),
        ],
    );
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert!(!calls.exists());
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("1 rows merged"), "{stdout}");
    assert_eq!(
        rows(&results)[0],
        "test_bruteforce | fabs double | pass | 64 | device | b8f8906"
    );
    assert_eq!(rows(&results).len(), 7);
    let merged = std::fs::read_to_string(&doc).unwrap();
    assert!(
        merged.contains("| test_bruteforce | 6 | 6 | 0 | 0 | 0 | "),
        "{merged}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A CTS_BIN_DIR given relative to the current folder (scripts/cts.sh's default,
/// `../shared/cts`) still finds the suites, which run from their own folders; a missing one
/// is a clear error.
#[test]
fn a_relative_cts_folder_is_found_from_the_suites_folders_too() {
    let parent = std::env::temp_dir().join(format!("clift-cts-rel-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&parent);
    script(
        &parent.join("cts/api/test_api"),
        r#"echo "PASSED 2 of 2 tests.""#,
    );
    let output = Command::new(env!("CARGO_BIN_EXE_cts-run"))
        .current_dir(parent.join("cts/api"))
        .args([
            "../../cts",
            "--vendors",
            "/opt/vendors",
            "--only",
            "test_api",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert!(
        stdout.contains("| test_api | pass | PASSED 2 of 2 tests |"),
        "{stdout}"
    );
    let missing = Command::new(env!("CARGO_BIN_EXE_cts-run"))
        .current_dir(&parent)
        .args(["no-such-cts", "--only", "test_api"])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2), "{missing:?}");
    assert!(
        String::from_utf8_lossy(&missing.stderr).contains("cts-run: no CTS build at no-such-cts")
    );
    std::fs::remove_dir_all(&parent).unwrap();
}
