//! `cts-run`: runs a Khronos OpenCL CTS that the user has built against clift, and writes the
//! pass/fail table into docs/CONFORMANCE.md.
//!
//! ```text
//! cargo run --release -p clift-conformance --bin cts-run -- CTS_BIN_DIR [--update FILE]
//!     [--vendors DIR] [--timeout SECONDS] [--only NAME,...]
//! ```
//!
//! `CTS_BIN_DIR` holds the CTS's test binaries (`test_basic`, `test_api`, ...; the CTS's
//! build puts each in its own folder, which is searched too). Each suite that applies to an
//! OpenCL 1.2 device runs in its quick mode where it has one, through the ICD loader with
//! `OCL_ICD_VENDORS` naming only clift (`--vendors`, default `target/release/vendors`, made
//! from `target/release/libclift.so` if missing). A suite passes when its binary exits with 0;
//! the table also gives the sub-test counts the CTS prints ("PASSED 12 of 12 tests."). With
//! `--update FILE` the table replaces the text between `<!-- cts-run begin -->` and
//! `<!-- cts-run end -->` in FILE. The project does not ship the CTS.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The CTS suites that apply to an OpenCL 1.2 full-profile device, with their quick-mode
/// arguments (`-w`: "wimpy" mode of the long math and conversion tests).
const SUITES: &[(&str, &[&str])] = &[
    ("test_computeinfo", &[]),
    ("test_api", &[]),
    ("test_basic", &[]),
    ("test_buffers", &[]),
    ("test_compiler", &[]),
    ("test_events", &[]),
    ("test_profiling", &[]),
    ("test_device_partition", &[]),
    ("test_multiples", &[]),
    ("test_thread_dimensions", &["quick"]),
    ("test_mem_host_flags", &[]),
    ("test_allocations", &["single", "5%", "do_not_force_fill"]),
    ("test_commonfns", &[]),
    ("test_geometrics", &[]),
    ("test_relationals", &[]),
    ("test_select", &["-w"]),
    ("test_integer_ops", &[]),
    ("test_conversions", &["-w"]),
    ("test_bruteforce", &["-w"]),
    ("test_contractions", &[]),
    ("test_vectors", &[]),
    ("test_half", &["-w"]),
    ("test_atomics", &[]),
    ("test_printf", &[]),
    ("test_image_streams", &[]),
    ("test_cl_get_info", &[]),
    ("test_cl_read_write_images", &[]),
    ("test_cl_copy_images", &[]),
    ("test_cl_fill_images", &[]),
    ("test_kernel_image_methods", &[]),
    ("test_samplers", &[]),
    ("test_multiple_host_threads", &[]),
];

const BEGIN: &str = "<!-- cts-run begin -->";
const END: &str = "<!-- cts-run end -->";

/// One suite's outcome.
struct Outcome {
    suite: String,
    /// "pass", "FAIL (exit N)", "timeout after Ns", "not built".
    result: String,
    /// The CTS's own "PASSED n of m" / "FAILED n of m" line, if it printed one.
    counts: String,
    seconds: f64,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value_of = |flag: &str| args.windows(2).find(|w| w[0] == flag).map(|w| w[1].clone());
    let Some(dir) = args
        .first()
        .filter(|a| !a.starts_with("--"))
        .map(PathBuf::from)
    else {
        eprintln!(
            "usage: cts-run CTS_BIN_DIR [--update FILE] [--vendors DIR] [--timeout S] [--only A,B]"
        );
        std::process::exit(2);
    };
    let timeout = Duration::from_secs(
        value_of("--timeout")
            .and_then(|t| t.parse().ok())
            .unwrap_or(900),
    );
    let only: Option<Vec<String>> =
        value_of("--only").map(|o| o.split(',').map(str::to_string).collect());
    let vendors = match value_of("--vendors") {
        Some(v) => PathBuf::from(v),
        None => default_vendors(),
    };
    let mut outcomes = Vec::new();
    for (suite, quick) in SUITES {
        if only.as_ref().is_some_and(|o| !o.iter().any(|n| n == suite)) {
            continue;
        }
        let outcome = run_suite(&dir, suite, quick, &vendors, timeout);
        println!(
            "{:<28} {:<20} {} ({:.0} s)",
            outcome.suite, outcome.result, outcome.counts, outcome.seconds
        );
        outcomes.push(outcome);
    }
    let table = table(&outcomes);
    if let Some(file) = value_of("--update") {
        if let Err(e) = update(Path::new(&file), &table) {
            eprintln!("cts-run: cannot update {file}: {e}");
            std::process::exit(1);
        }
        println!("cts-run: table written into {file}");
    } else {
        print!("\n{table}");
    }
    let failed = outcomes
        .iter()
        .any(|o| o.result != "pass" && o.result != "not built");
    std::process::exit(i32::from(failed));
}

/// `target/release/vendors` beside the release build, holding a clift.icd naming it.
fn default_vendors() -> PathBuf {
    let release = std::env::current_exe()
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| PathBuf::from("target/release"));
    let vendors = release.join("vendors");
    let icd = vendors.join("clift.icd");
    if !icd.exists() {
        let lib = release.join("libclift.so");
        let _ = std::fs::create_dir_all(&vendors);
        let _ = std::fs::write(&icd, format!("{}\n", lib.display()));
    }
    vendors
}

/// The suite's binary: `dir/name` or `dir/*/name` (the CTS's build tree).
fn find_binary(dir: &Path, name: &str) -> Option<PathBuf> {
    let direct = dir.join(name);
    if direct.is_file() {
        return Some(direct);
    }
    std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path().join(name))
        .find(|p| p.is_file())
}

fn run_suite(dir: &Path, suite: &str, quick: &[&str], vendors: &Path, limit: Duration) -> Outcome {
    let start = Instant::now();
    let outcome = |result: String, counts: String| Outcome {
        suite: suite.to_string(),
        result,
        counts,
        seconds: start.elapsed().as_secs_f64(),
    };
    let Some(binary) = find_binary(dir, suite) else {
        return outcome("not built".into(), String::new());
    };
    // Its own process group, so that a timeout kills whatever the suite started too.
    let child = Command::new(&binary)
        .process_group(0)
        .args(quick)
        .current_dir(binary.parent().unwrap_or(dir))
        .env("OCL_ICD_VENDORS", vendors)
        .env("CL_DEVICE_TYPE", "CL_DEVICE_TYPE_CPU")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => return outcome(format!("cannot start: {e}"), String::new()),
    };
    // Read the output on threads so that a chatty suite cannot block on a full pipe.
    let mut stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    let out_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stdout.read_to_string(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = stderr.read_to_string(&mut s);
        s
    });
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if start.elapsed() > limit => {
                let _ = Command::new("kill")
                    .args(["-KILL", "--", &format!("-{}", child.id())])
                    .status();
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(_) => break None,
        }
    };
    let text = out_reader.join().unwrap_or_default() + &err_reader.join().unwrap_or_default();
    let counts = summary_line(&text);
    match status {
        Some(s) if s.success() => outcome("pass".into(), counts),
        Some(s) => outcome(
            format!(
                "FAIL (exit {})",
                s.code().map_or("signal".into(), |c| c.to_string())
            ),
            counts,
        ),
        None => outcome(format!("timeout after {} s", limit.as_secs()), counts),
    }
}

/// The CTS's closing count ("PASSED 12 of 12 tests." or "FAILED 2 of 30 tests."), the last
/// such line of the output.
fn summary_line(text: &str) -> String {
    text.lines()
        .rev()
        .map(str::trim)
        .find(|l| (l.starts_with("PASSED ") || l.starts_with("FAILED ")) && l.contains(" of "))
        .unwrap_or("")
        .trim_end_matches('.')
        .to_string()
}

fn table(outcomes: &[Outcome]) -> String {
    let passed = outcomes.iter().filter(|o| o.result == "pass").count();
    let run = outcomes.iter().filter(|o| o.result != "not built").count();
    let mut out = format!(
        "{passed} of {run} CTS suites pass ({} not built).\n\n| suite | result | sub-tests | time |\n|---|---|---|---|\n",
        outcomes.len() - run
    );
    for o in outcomes {
        out.push_str(&format!(
            "| {} | {} | {} | {:.0} s |\n",
            o.suite, o.result, o.counts, o.seconds
        ));
    }
    out
}

/// Replaces the text between the markers (appending a marked section if there is none).
fn update(file: &Path, table: &str) -> std::io::Result<()> {
    let text = std::fs::read_to_string(file)?;
    let section = format!("{BEGIN}\n{table}{END}");
    let new = match (text.find(BEGIN), text.find(END)) {
        (Some(b), Some(e)) if b < e => format!("{}{section}{}", &text[..b], &text[e + END.len()..]),
        _ => format!("{}\n{section}\n", text.trim_end()),
    };
    std::fs::write(file, new)
}
