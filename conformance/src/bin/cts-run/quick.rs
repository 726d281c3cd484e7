//! The all-suite run: every suite that applies to a 1.2 device, in its quick mode, with the
//! long suites split into processes that run side by side and the longest work started first,
//! so that one run on a many-core machine ends within one command's time limit.

use crate::process::{self, Device, Run};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The CTS suites that apply to an OpenCL 1.2 full-profile device, with their quick-mode
/// arguments (`-w`: "wimpy" mode of the long math and conversion tests).
pub const SUITES: &[(&str, &[&str])] = &[
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

/// Seconds each suite took in the last all-suite run on 2 compute units (the 16-core
/// machine, session 6; the two that did not finish there from their 2-core runs), the
/// estimate that orders the work longest first. Unlisted suites count as 1 s.
const TYPICAL_SECONDS: &[(&str, u32)] = &[
    ("test_image_streams", 2550),
    ("test_basic", 821),
    ("test_bruteforce", 388),
    ("test_thread_dimensions", 221),
    ("test_integer_ops", 74),
    ("test_relationals", 71),
    ("test_conversions", 46),
    ("test_api", 44),
    ("test_cl_copy_images", 42),
    ("test_half", 37),
    ("test_cl_fill_images", 27),
    ("test_events", 23),
    ("test_vectors", 14),
    ("test_allocations", 11),
];

/// How a suite is split into processes when `--shards` does not say.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Split {
    /// Its `--list` dealt round-robin over this many processes.
    RoundRobin(usize),
    /// test_image_streams: per image geometry, one process per kind of read and one for the
    /// writes ([`IMAGE_READS`]), and one for its other sub-tests. Its work is one sub-test per geometry, so dealing sub-tests would leave the
    /// 3D streams (three quarters of its time) in one process.
    ImageStreams,
}

/// The built-in splits: the suites that do not finish on 2 compute units beside 15 others
/// within a 515 s command, or come close to it.
const SPLITS: &[(&str, Split)] = &[
    ("test_image_streams", Split::ImageStreams),
    ("test_basic", Split::RoundRobin(6)),
    ("test_bruteforce", Split::RoundRobin(3)),
];

/// The image geometries of test_image_streams, the largest (slowest) first.
const IMAGE_GEOMETRIES: &[&str] = &["3D", "2Darray", "2D", "1Darray", "1D"];

/// test_image_streams's read tests of one geometry, one process each, the slowest first
/// (2 cores, `small_images`: a geometry's float reads take 5 to 7 times its integer reads,
/// its writes a second). Its flags partition them: `int`, `uint` and `float` pick disjoint
/// formats, `CL_FILTER_LINEAR`/`CL_FILTER_NEAREST` the sampler's filter (integer reads have
/// only nearest), `NORMALIZED`/`UNNORMALIZED` its coordinates. Every geometry's write tests
/// (`write`) run as one more process.
const IMAGE_READS: &[&[&str]] = &[
    &["read", "float", "CL_FILTER_LINEAR", "NORMALIZED"],
    &["read", "float", "CL_FILTER_LINEAR", "UNNORMALIZED"],
    &["read", "float", "CL_FILTER_NEAREST", "NORMALIZED"],
    &["read", "float", "CL_FILTER_NEAREST", "UNNORMALIZED"],
    &["read", "int", "NORMALIZED"],
    &["read", "int", "UNNORMALIZED"],
    &["read", "uint", "NORMALIZED"],
    &["read", "uint", "UNNORMALIZED"],
];

/// How the suites are run: the parts of the command line shared by every suite.
pub struct RunConfig {
    pub dir: PathBuf,
    pub vendors: PathBuf,
    pub limit: Duration,
    pub compute_units: Option<String>,
    pub full: bool,
    pub logs: Option<PathBuf>,
    /// Processes each suite's sub-tests are split over (`--shards`); 0: the built-in splits.
    pub shards: usize,
}

impl RunConfig {
    fn device(&self) -> Device<'_> {
        Device {
            vendors: &self.vendors,
            compute_units: self.compute_units.as_deref(),
        }
    }
}

/// One suite's outcome.
pub struct Outcome {
    pub suite: String,
    /// "pass", "FAIL (exit N)", "timeout after Ns", "not built".
    pub result: String,
    /// The CTS's own "PASSED n of m" / "FAILED n of m" line, if it printed one.
    pub counts: String,
    /// The longest of its processes.
    pub seconds: f64,
}

/// One process of the run: a suite, or one shard of it.
#[derive(Debug, PartialEq)]
struct Task {
    /// Index of the suite in the chosen list.
    suite: usize,
    args: Vec<String>,
    /// Expected seconds, the key of the longest-first order.
    estimate: f64,
}

/// Whether `--only`'s `name` picks `suite`: its full name or without `test_` (`basic`).
pub fn names(name: &str, suite: &str) -> bool {
    name == suite || suite.strip_prefix("test_") == Some(name)
}

/// The suite's binary: `dir/name`, or in a folder below `dir` at most three levels deep (the
/// CTS's build tree puts the image suites in `images/<suite>/`).
pub fn find_binary(dir: &Path, name: &str) -> Option<PathBuf> {
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

fn suite_env(config: &RunConfig, suite: &str) -> Vec<(&'static str, &'static str)> {
    QUICK_ENV
        .iter()
        .filter(|(s, ..)| *s == suite && !config.full)
        .map(|(_, name, value)| (*name, *value))
        .collect()
}

/// The argument lists of a suite's processes: one list, or one per shard.
fn shard_args(
    config: &RunConfig,
    suite: &str,
    quick: &[String],
    list: impl FnOnce() -> Option<Vec<String>>,
) -> Vec<Vec<String>> {
    let with = |names: &[String]| quick.iter().chain(names).cloned().collect::<Vec<_>>();
    // test_thread_dimensions's quick mode is itself a list of sub-tests: it keeps it.
    let split = match config.shards {
        _ if suite == "test_thread_dimensions" => None,
        0 => SPLITS.iter().find(|(s, _)| *s == suite).map(|(_, p)| *p),
        1 => None,
        n => Some(Split::RoundRobin(n)),
    };
    let whole = vec![quick.to_vec()];
    let Some(split) = split else {
        return whole;
    };
    let Some(list) = list() else {
        return whole;
    };
    match split {
        Split::RoundRobin(n) => split_round_robin(&list, n)
            .iter()
            .map(|g| with(g))
            .collect(),
        Split::ImageStreams => {
            let mut runs = Vec::new();
            for geometry in IMAGE_GEOMETRIES
                .iter()
                .filter(|g| list.iter().any(|l| l == *g))
            {
                for flags in IMAGE_READS.iter().chain([&["write"][..]].iter()) {
                    let mut args: Vec<String> = flags.iter().map(|f| f.to_string()).collect();
                    args.push(geometry.to_string());
                    runs.push(with(&args));
                }
            }
            let rest: Vec<String> = list
                .iter()
                .filter(|l| !IMAGE_GEOMETRIES.contains(&l.as_str()))
                .cloned()
                .collect();
            if !rest.is_empty() {
                runs.push(with(&rest));
            }
            runs
        }
    }
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

fn typical_seconds(suite: &str) -> f64 {
    TYPICAL_SECONDS
        .iter()
        .find(|(s, _)| *s == suite)
        .map_or(1.0, |(_, t)| f64::from(*t))
}

/// The processes of the chosen suites, longest expected first (a suite's estimate shared
/// evenly by its shards; ties keep the suites' order).
fn tasks(per_suite: Vec<(usize, &str, Vec<Vec<String>>)>) -> Vec<Task> {
    let mut tasks: Vec<Task> = per_suite
        .into_iter()
        .flat_map(|(suite, name, runs)| {
            let estimate = typical_seconds(name) / runs.len() as f64;
            runs.into_iter().map(move |args| Task {
                suite,
                args,
                estimate,
            })
        })
        .collect();
    tasks.sort_by(|a, b| b.estimate.total_cmp(&a.estimate));
    tasks
}

/// Runs the chosen suites' processes on `jobs` threads, longest first; prints each suite's
/// outcome when its last process ends and returns them in the table's order.
pub fn run_all(config: &RunConfig, suites: &[&(&str, &[&str])], jobs: usize) -> Vec<Outcome> {
    let device = config.device();
    let mut binaries = Vec::new();
    let mut per_suite = Vec::new();
    for (i, (suite, quick)) in suites.iter().enumerate() {
        let binary = find_binary(&config.dir, suite);
        if let Some(binary) = &binary {
            let quick: Vec<String> = quick
                .iter()
                .filter(|a| !(config.full && QUICK_ONLY.contains(a)))
                .map(|a| a.to_string())
                .collect();
            let list = || process::sub_tests(process::command(&device, binary, &[]));
            per_suite.push((i, *suite, shard_args(config, suite, &quick, list)));
        }
        binaries.push(binary);
    }
    let tasks = tasks(per_suite);
    let mut processes = vec![0usize; suites.len()];
    for t in &tasks {
        processes[t.suite] += 1;
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let runs: Vec<std::sync::Mutex<Vec<Run>>> = suites
        .iter()
        .map(|_| std::sync::Mutex::new(Vec::new()))
        .collect();
    let started = std::time::Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..jobs.min(tasks.len()) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(task) = tasks.get(i) else {
                        break;
                    };
                    let (suite, _) = suites[task.suite];
                    let binary = binaries[task.suite].as_ref().expect("tasks have binaries");
                    let env = suite_env(config, suite);
                    let run = process::run(
                        process::command(&device, binary, &env),
                        &task.args,
                        config.limit,
                    );
                    if processes[task.suite] > 1 {
                        // Each shard's own line: the split's balance, for tuning it.
                        println!(
                            "  {suite} [{}]: {} ({:.0} s)",
                            task.args.join(" "),
                            if run.passed() { "pass" } else { "not passed" },
                            run.seconds
                        );
                    }
                    let mut suite_runs = lock(&runs[task.suite]);
                    suite_runs.push(run);
                    if suite_runs.len() == processes[task.suite] {
                        let o = outcome(config, suite, &suite_runs);
                        println!(
                            "{:<28} {:<20} {} ({:.0} s, at {:.0} s)",
                            o.suite,
                            o.result,
                            o.counts,
                            o.seconds,
                            started.elapsed().as_secs_f64()
                        );
                    }
                }
            });
        }
    });
    suites
        .iter()
        .zip(binaries)
        .zip(runs)
        .map(|(((suite, _), binary), runs)| match binary {
            None => Outcome {
                suite: suite.to_string(),
                result: "not built".into(),
                counts: String::new(),
                seconds: 0.0,
            },
            Some(_) => outcome(
                config,
                suite,
                &runs.into_inner().unwrap_or_else(|e| e.into_inner()),
            ),
        })
        .collect()
}

fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A suite's outcome from its processes: it passes when every one exits with 0.
fn outcome(config: &RunConfig, suite: &str, runs: &[Run]) -> Outcome {
    let text: String = runs.iter().map(|r| r.text.as_str()).collect();
    if let Some(logs) = &config.logs
        && let Err(e) = std::fs::write(logs.join(format!("{suite}.log")), &text)
    {
        eprintln!("cts-run: cannot keep the log of {suite}: {e}");
    }
    let counts = if runs.len() > 1 {
        combined_counts(runs.iter().map(|r| process::summary_line(&r.text)))
    } else {
        process::summary_line(&text)
    };
    let result = if let Some(problem) = runs.iter().find_map(|r| r.start_error.clone()) {
        format!("cannot start: {problem}")
    } else if runs.iter().any(|r| r.timed_out) {
        format!("timeout after {} s", config.limit.as_secs())
    } else {
        match runs.iter().find(|r| !r.passed()) {
            None => "pass".into(),
            Some(r) => format!("FAIL (exit {})", r.exit_code()),
        }
    };
    Outcome {
        suite: suite.to_string(),
        result,
        counts,
        seconds: runs.iter().map(|r| r.seconds).fold(0.0, f64::max),
    }
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

/// The Markdown table of the outcomes.
pub fn table(outcomes: &[Outcome]) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn config(shards: usize) -> RunConfig {
        RunConfig {
            dir: PathBuf::new(),
            vendors: PathBuf::new(),
            limit: Duration::from_secs(1),
            compute_units: None,
            full: false,
            logs: None,
            shards,
        }
    }

    fn strings(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn built_in_splits_deal_test_basic_over_six_processes() {
        let list = strings(&["a", "b", "c", "d", "e", "f", "g"]);
        let runs = shard_args(&config(0), "test_basic", &[], || Some(list.clone()));
        assert_eq!(runs.len(), 6);
        assert_eq!(runs[0], ["a", "g"]);
        assert_eq!(runs[5], ["f"]);
        // --shards 1: one process; --shards 2 overrides the built-in split.
        assert_eq!(
            shard_args(&config(1), "test_basic", &[], || Some(list.clone())),
            [Vec::<String>::new()]
        );
        assert_eq!(
            shard_args(&config(2), "test_basic", &[], || Some(list.clone())).len(),
            2
        );
        // Suites without a built-in split, and test_thread_dimensions always, run whole.
        let quick = strings(&["quick_1d_explicit_local"]);
        assert_eq!(
            shard_args(&config(4), "test_thread_dimensions", &quick, || None),
            [quick]
        );
        assert_eq!(
            shard_args(&config(0), "test_api", &[], || Some(list.clone())),
            [Vec::<String>::new()]
        );
    }

    #[test]
    fn the_longest_expected_process_starts_first() {
        let tasks = tasks(vec![
            (0, "test_printf", vec![vec![]]),
            (1, "test_basic", vec![vec!["a".into()], vec!["b".into()]]),
            (2, "test_bruteforce", vec![vec!["-w".into()]]),
        ]);
        let order: Vec<(usize, f64)> = tasks.iter().map(|t| (t.suite, t.estimate)).collect();
        // test_basic's 821 s in two halves still come before test_bruteforce's 388 s.
        assert_eq!(order, [(1, 410.5), (1, 410.5), (2, 388.0), (0, 1.0)]);
    }
}
