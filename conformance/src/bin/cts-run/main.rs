//! `cts-run`: runs a Khronos OpenCL CTS that the user has built against clift, and writes the
//! pass/fail table into docs/CONFORMANCE.md.
//!
//! ```text
//! cargo run --release -p clift-conformance --bin cts-run -- CTS_BIN_DIR [--update FILE]
//!     [--vendors DIR] [--timeout SECONDS] [--only NAME,...] [--jobs N] [--compute-units N]
//!     [--full] [--logs DIR] [--shards N]
//! ```
//!
//! `--only` takes suite names with or without their `test_` (`--only basic,image_streams`).
//!
//! `CTS_BIN_DIR` holds the CTS's test binaries (`test_basic`, `test_api`, ...; the CTS's
//! build puts each in its own folder, the image suites one level deeper, and both are
//! searched). `--jobs N` runs N suites at once; `--compute-units N` gives each suite a device
//! of N compute units (`CLIFT_MAX_COMPUTE_UNITS`), so that a 16-core machine can run eight
//! suites of two cores side by side. `--full` drops the quick-mode arguments (the full-size
//! math and conversion runs). `--logs DIR` keeps each suite's output as `DIR/<suite>.log`.
//! `--shards N` splits each suite's sub-tests (its `--list`) over N processes run at once,
//! for the long suites (test_basic, test_integer_ops, the image streams) on a many-core
//! machine; the suite passes when every shard does, and the counts are added up. Each suite that applies to an
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
    (
        "test_thread_dimensions",
        &[
            "quick_1d_explicit_local",
            "quick_1d_implicit_local",
            "quick_2d_explicit_local",
            "quick_2d_implicit_local",
            "quick_3d_explicit_local",
            "quick_3d_implicit_local",
        ],
    ),
    ("test_mem_host_flags", &[]),
    ("test_allocations", &["single", "5%", "do_not_force_fill"]),
    ("test_commonfns", &[]),
    ("test_geometrics", &[]),
    ("test_relationals", &[]),
    ("test_select", &["-w"]),
    ("test_integer_ops", &["-w"]),
    ("test_conversions", &["-w"]),
    ("test_bruteforce", &["-w"]),
    ("test_contractions", &[]),
    ("test_vectors", &[]),
    ("test_half", &["-w"]),
    ("test_atomics", &[]),
    ("test_printf", &[]),
    ("test_image_streams", &["small_images"]),
    ("test_cl_get_info", &["small_images"]),
    ("test_cl_read_write_images", &["small_images"]),
    ("test_cl_copy_images", &["small_images"]),
    ("test_cl_fill_images", &["small_images"]),
    ("test_kernel_image_methods", &["small_images"]),
    ("test_samplerless_reads", &["small_images"]),
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

/// The arguments that only shorten a run; `--full` drops them.
const QUICK_ONLY: &[&str] = &["-w", "small_images"];

/// Device settings of a suite's quick mode, which `--full` drops too: (suite, variable, value).
/// test_basic sizes the buffers of its `async_copy_*`, `async_strided_copy_*` and `prefetch`
/// sub-tests from `CL_DEVICE_LOCAL_MEM_SIZE` (1111 or 579 work-groups, each copying half of
/// it, for every type, vector size and stride): about 1.1 GB per buffer on a device with a
/// core's 2 MiB L2, which the CTS fills with random numbers and compares on the host, a few
/// hundred times. Its quick mode runs on a device with the full profile's minimum, 32 KiB
/// (the size Intel's CPU runtime reports), where the same code paths copy 64 times less.
const QUICK_ENV: &[(&str, &str, &str)] = &[("test_basic", "CLIFT_LOCAL_MEM_SIZE", "32K")];

/// How each suite is run: the parts of the command line shared by every suite.
struct RunConfig {
    dir: PathBuf,
    vendors: PathBuf,
    limit: Duration,
    compute_units: Option<String>,
    full: bool,
    logs: Option<PathBuf>,
    /// Processes each suite's sub-tests are split over (`--shards`).
    shards: usize,
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
            "usage: cts-run CTS_BIN_DIR [--update FILE] [--vendors DIR] [--timeout S] [--only A,B] \
             [--jobs N] [--compute-units N] [--full] [--logs DIR] [--shards N]"
        );
        std::process::exit(2);
    };
    let config = RunConfig {
        dir,
        vendors: value_of("--vendors").map_or_else(default_vendors, PathBuf::from),
        limit: Duration::from_secs(
            value_of("--timeout")
                .and_then(|t| t.parse().ok())
                .unwrap_or(900),
        ),
        compute_units: value_of("--compute-units"),
        full: args.iter().any(|a| a == "--full"),
        logs: value_of("--logs").map(PathBuf::from),
        shards: value_of("--shards")
            .and_then(|n| n.parse().ok())
            .unwrap_or(1)
            .max(1),
    };
    if let Some(logs) = &config.logs
        && let Err(e) = std::fs::create_dir_all(logs)
    {
        eprintln!("cts-run: cannot create {}: {e}", logs.display());
        std::process::exit(2);
    }
    let jobs: usize = value_of("--jobs")
        .and_then(|j| j.parse().ok())
        .unwrap_or(1)
        .max(1);
    let only: Option<Vec<String>> =
        value_of("--only").map(|o| o.split(',').map(str::to_string).collect());
    let chosen: Vec<&(&str, &[&str])> = SUITES
        .iter()
        .filter(|(suite, _)| {
            only.as_ref()
                .is_none_or(|o| o.iter().any(|n| names(n, suite)))
        })
        .collect();
    let outcomes = run_all(&config, &chosen, jobs);
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

/// Whether `--only`'s `name` picks `suite`: its full name or without `test_` (`basic`).
fn names(name: &str, suite: &str) -> bool {
    name == suite || suite.strip_prefix("test_") == Some(name)
}

/// Runs the suites on `jobs` threads, each taking the next suite not yet started; prints each
/// outcome as it comes and returns them in the table's order.
fn run_all(config: &RunConfig, suites: &[&(&str, &[&str])], jobs: usize) -> Vec<Outcome> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..jobs.min(suites.len()) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some((suite, quick)) = suites.get(i) else {
                        break;
                    };
                    let outcome = run_suite(config, suite, quick);
                    println!(
                        "{:<28} {:<20} {} ({:.0} s)",
                        outcome.suite, outcome.result, outcome.counts, outcome.seconds
                    );
                    results
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push((i, outcome));
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, o)| o).collect()
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

/// The suite's binary: `dir/name`, or in a folder below `dir` at most three levels deep (the
/// CTS's build tree puts the image suites in `images/<suite>/`).
fn find_binary(dir: &Path, name: &str) -> Option<PathBuf> {
    find_below(dir, name, 3)
}

fn find_below(dir: &Path, name: &str, depth: u32) -> Option<PathBuf> {
    let direct = dir.join(name);
    if direct.is_file() {
        return Some(direct);
    }
    if depth == 0 {
        return None;
    }
    let mut folders: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    folders
        .iter()
        .find_map(|folder| find_below(folder, name, depth - 1))
}

fn run_suite(config: &RunConfig, suite: &str, quick: &[&str]) -> Outcome {
    let start = Instant::now();
    let outcome = |result: String, counts: String| Outcome {
        suite: suite.to_string(),
        result,
        counts,
        seconds: start.elapsed().as_secs_f64(),
    };
    let Some(binary) = find_binary(&config.dir, suite) else {
        return outcome("not built".into(), String::new());
    };
    let args: Vec<String> = quick
        .iter()
        .filter(|a| !(config.full && QUICK_ONLY.contains(a)))
        .map(|a| a.to_string())
        .collect();
    // Shards: the suite's sub-tests split round-robin over several processes (a suite whose
    // quick mode is itself a list of sub-tests, test_thread_dimensions's, keeps its list).
    let names_given = suite == "test_thread_dimensions";
    let shards = if config.shards > 1 && !names_given {
        sub_tests(config, &binary)
            .map(|names| split_round_robin(&names, config.shards))
            .unwrap_or_default()
    } else {
        Vec::new()
    };
    let runs: Vec<Run> = if shards.len() > 1 {
        std::thread::scope(|scope| {
            let handles: Vec<_> = shards
                .iter()
                .map(|names| {
                    let mut shard_args = args.clone();
                    shard_args.extend(names.iter().cloned());
                    let binary = &binary;
                    scope.spawn(move || run_process(config, binary, &shard_args))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|_| Run::failed_to_start("panic")))
                .collect()
        })
    } else {
        vec![run_process(config, &binary, &args)]
    };
    let text: String = runs.iter().map(|r| r.text.as_str()).collect();
    if let Some(logs) = &config.logs
        && let Err(e) = std::fs::write(logs.join(format!("{suite}.log")), &text)
    {
        eprintln!("cts-run: cannot keep the log of {suite}: {e}");
    }
    let counts = if runs.len() > 1 {
        combined_counts(runs.iter().map(|r| summary_line(&r.text)))
    } else {
        summary_line(&text)
    };
    if let Some(problem) = runs.iter().find_map(|r| r.start_error.clone()) {
        return outcome(format!("cannot start: {problem}"), counts);
    }
    if runs.iter().any(|r| r.timed_out) {
        return outcome(
            format!("timeout after {} s", config.limit.as_secs()),
            counts,
        );
    }
    match runs.iter().find(|r| !r.status.is_some_and(|s| s.success())) {
        None => outcome("pass".into(), counts),
        Some(r) => outcome(
            format!(
                "FAIL (exit {})",
                r.status
                    .and_then(|s| s.code())
                    .map_or("signal".into(), |c| c.to_string())
            ),
            counts,
        ),
    }
}

/// One process of a suite: how it ended and what it printed.
struct Run {
    status: Option<std::process::ExitStatus>,
    timed_out: bool,
    start_error: Option<String>,
    text: String,
}

impl Run {
    fn failed_to_start(why: &str) -> Run {
        Run {
            status: None,
            timed_out: false,
            start_error: Some(why.to_string()),
            text: String::new(),
        }
    }
}

/// The suite's sub-test names, as its `--list` prints them (one per line, indented).
fn sub_tests(config: &RunConfig, binary: &Path) -> Option<Vec<String>> {
    let output = suite_command(config, binary).arg("--list").output().ok()?;
    let names: Vec<String> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|l| l.strip_prefix('\t'))
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .collect();
    (!names.is_empty()).then_some(names)
}

/// `names` dealt into at most `shards` groups, round-robin (neighbouring sub-tests are
/// often alike in cost, so dealing spreads the slow ones).
fn split_round_robin(names: &[String], shards: usize) -> Vec<Vec<String>> {
    let count = shards.min(names.len()).max(1);
    let mut groups = vec![Vec::new(); count];
    for (i, name) in names.iter().enumerate() {
        groups[i % count].push(name.clone());
    }
    groups
}

/// The shards' closing counts added up ("PASSED 12 of 12 tests" + "FAILED 1 of 3 tests"
/// → "FAILED 1 of 15 tests"): failed counts if any shard failed, else passed ones.
fn combined_counts(lines: impl Iterator<Item = String>) -> String {
    let (mut passed, mut failed, mut total, mut any_failed, mut unit) = (0, 0, 0, false, None);
    for line in lines {
        let words: Vec<&str> = line.split_whitespace().collect();
        if let [verdict, n, "of", m, rest @ ..] = words.as_slice()
            && let (Ok(n), Ok(m)) = (n.parse::<u64>(), m.parse::<u64>())
        {
            total += m;
            if *verdict == "FAILED" {
                any_failed = true;
                failed += n;
            } else {
                passed += n;
            }
            unit.get_or_insert_with(|| rest.join(" "));
        }
    }
    if total == 0 {
        return String::new();
    }
    let unit = unit.unwrap_or_default();
    if any_failed {
        format!("FAILED {failed} of {total} {unit}")
    } else {
        format!("PASSED {passed} of {total} {unit}")
    }
}

/// The command that runs a suite's binary: from its folder, through the loader with only
/// clift, capped at the configured compute units.
fn suite_command(config: &RunConfig, binary: &Path) -> Command {
    let mut command = Command::new(binary);
    if let Some(units) = &config.compute_units {
        command.env("CLIFT_MAX_COMPUTE_UNITS", units);
    }
    let suite = binary.file_name().and_then(|n| n.to_str()).unwrap_or("");
    for (_, name, value) in QUICK_ENV.iter().filter(|(s, ..)| *s == suite) {
        if !config.full {
            command.env(name, value);
        }
    }
    command
        .current_dir(binary.parent().unwrap_or(&config.dir))
        .env("OCL_ICD_VENDORS", &config.vendors)
        .env("CL_DEVICE_TYPE", "CL_DEVICE_TYPE_CPU");
    command
}

/// Runs the suite's binary with `args` until it exits or the time limit passes.
fn run_process(config: &RunConfig, binary: &Path, args: &[String]) -> Run {
    let start = Instant::now();
    // Its own process group, so that a timeout kills whatever the suite started too.
    let child = suite_command(config, binary)
        .process_group(0)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => return Run::failed_to_start(&e.to_string()),
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
    let mut timed_out = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if start.elapsed() > config.limit => {
                let _ = Command::new("kill")
                    .args(["-KILL", "--", &format!("-{}", child.id())])
                    .status();
                let _ = child.kill();
                let _ = child.wait();
                timed_out = true;
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            Err(_) => break None,
        }
    };
    let text = out_reader.join().unwrap_or_default() + &err_reader.join().unwrap_or_default();
    Run {
        status,
        timed_out,
        start_error: None,
        text,
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
