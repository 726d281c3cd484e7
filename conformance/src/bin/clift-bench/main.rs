//! `clift-bench`: clift and PoCL measured side by side in one run.
//!
//! clift is loaded directly (libloading), PoCL through the ICD loader with its ICD file
//! alone (Debian's PoCL exports no API names of its own). Each figure is reported for both
//! drivers, with the ratio between them and against the machine's own limit (host memcpy
//! bandwidth).
//!
//! ```text
//! cargo run --release -p clift-conformance --bin clift-bench -- [--markdown FILE] [--svg FILE] [--quick] [--scaling] [--safe] [--only SECTION]
//! ```
//!
//! `--safe` measures clift in safe mode (`CLIFT_SAFE=1`: every access bounds-checked); its
//! column is labelled "clift (safe)". Run once with and once without it to see the cost.
//!
//! `--only` runs one section: `transfer`, `launch`, `kernels`, `vectors` (explicit vector
//! types), `clpeak` (its 16-wide kernels) or `memory` (the machine's own all-core
//! streaming bandwidth, and the memory-bound kernels against it). A scaling run of the
//! launch rows alone takes seconds, not minutes.
//!
//! `--scaling` adds a table of every figure at 1, 2, 4, ... and all cores: the harness runs
//! itself once per core count with `CLIFT_MAX_COMPUTE_UNITS` and `POCL_MAX_PTHREAD_COUNT`
//! set (each driver reads its variable when it loads).
//!
//! `CLIFT_LIBRARY` names the libclift.so to measure (default: the release build beside this
//! binary); `POCL_ICD` the ICD file of the PoCL to compare with (default:
//! /etc/OpenCL/vendors/pocl.icd).

mod clpeak;
mod driver;
mod kernels;
mod launch;
mod math;
mod pixels;
mod report;
mod stream;
mod transfer;
mod vectors;

use std::path::PathBuf;

use driver::Driver;
use report::Table;

/// The command line, for `--help` and for a word it does not know.
const USAGE: &str = "usage: clift-bench [--quick] [--safe] [--scaling] [--only SECTION] \
[--markdown FILE] [--svg FILE] [--tsv FILE]

Measures clift and PoCL side by side (docs/PERFORMANCE.md says how to read the tables).
  --quick           smaller sizes and fewer repetitions (a few minutes)
  --safe            clift in safe mode (CLIFT_SAFE=1)
  --scaling         every figure at 1, 2, 4, ... and all cores
  --only SECTION    one of transfer, launch, kernels, vectors, clpeak, memory
  --markdown FILE   also write the tables as Markdown
  --svg FILE        also write the plot
  --tsv FILE        also write the figures as tab-separated values
CLIFT_LIBRARY names the libclift.so to load, POCL_ICD the ICD file of PoCL.";

/// What the command line asks besides measuring: `-h`/`--help`, or a mistake (an option it
/// does not know, or one missing its value), found before anything is measured (a
/// mistyped option would otherwise run the whole benchmark, minutes, ignoring it).
#[derive(Debug, PartialEq, Eq)]
enum NotMeasuring {
    Help,
    Mistake(String),
}

fn check_arguments(args: &[String]) -> Result<(), NotMeasuring> {
    let mut words = args.iter();
    while let Some(word) = words.next() {
        match word.as_str() {
            "-h" | "--help" => return Err(NotMeasuring::Help),
            "--quick" | "--safe" | "--scaling" => {}
            "--only" | "--markdown" | "--svg" | "--tsv" => {
                if words.next().is_none() {
                    return Err(NotMeasuring::Mistake(format!("{word} needs a value")));
                }
            }
            _ => return Err(NotMeasuring::Mistake(format!("unknown option {word:?}"))),
        }
    }
    Ok(())
}

/// How long the measurements run.
#[derive(Clone, Copy)]
pub struct Effort {
    /// Repetitions of a latency loop.
    pub latency_iterations: usize,
    /// Bytes moved by a bandwidth measurement.
    pub bandwidth_bytes: usize,
    /// Repetitions of each bandwidth measurement (the best is kept).
    pub bandwidth_repeats: usize,
}

fn main() {
    // SAFETY: set before any thread is started and before either driver is loaded. clift's
    // build cache is turned off so that its build times are builds, as PoCL's are (its
    // kernel cache is turned off too, in `driver::pocl_library`).
    unsafe { std::env::set_var("CLIFT_BUILD_CACHE", "0") };
    let args: Vec<String> = std::env::args().skip(1).collect();
    match check_arguments(&args) {
        Ok(()) => {}
        Err(NotMeasuring::Help) => {
            println!("{USAGE}");
            return;
        }
        Err(NotMeasuring::Mistake(why)) => {
            eprintln!("clift-bench: {why}\n{USAGE}");
            std::process::exit(2);
        }
    }
    let safe = args.iter().any(|a| a == "--safe");
    if safe {
        // SAFETY: as above (before any thread and before the drivers load).
        unsafe { std::env::set_var("CLIFT_SAFE", "1") };
    }
    let quick = args.iter().any(|a| a == "--quick");
    let path_after = |flag: &str| {
        args.windows(2)
            .find(|w| w[0] == flag)
            .map(|w| PathBuf::from(&w[1]))
    };
    let (markdown, svg, tsv) = (
        path_after("--markdown"),
        path_after("--svg"),
        path_after("--tsv"),
    );
    let scaling = args.iter().any(|a| a == "--scaling");
    let only = args
        .windows(2)
        .find(|w| w[0] == "--only")
        .map(|w| w[1].clone());
    if let Some(section) = &only
        && !SECTIONS.contains(&section.as_str())
    {
        eprintln!("clift-bench: --only takes one of {SECTIONS:?}, not {section:?}");
        std::process::exit(2);
    }
    let runs = |name: &str| only.as_deref().is_none_or(|o| o == name);
    let effort = if quick {
        Effort {
            latency_iterations: 2_000,
            bandwidth_bytes: 16 << 20,
            bandwidth_repeats: 3,
        }
    } else {
        Effort {
            latency_iterations: 20_000,
            bandwidth_bytes: 256 << 20,
            bandwidth_repeats: 5,
        }
    };

    let mut drivers = Vec::new();
    for (name, path) in [
        (
            if safe { "clift (safe)" } else { "clift" },
            driver::clift_library(),
        ),
        ("PoCL", driver::pocl_library()),
    ] {
        match path.and_then(|p| Driver::open(name, &p)) {
            Ok(d) => drivers.push(d),
            Err(e) => eprintln!("clift-bench: {name} is not measured: {e}"),
        }
    }
    if drivers.is_empty() {
        eprintln!("clift-bench: no driver to measure");
        std::process::exit(1);
    }

    let mut table = Table::new(drivers.iter().map(|d| d.label()).collect());
    if runs("transfer") {
        transfer::run(&drivers, effort, &mut table);
    }
    if runs("launch") {
        launch::run(&drivers, effort, &mut table);
    }
    if runs("kernels") {
        kernels::run(&drivers, effort, &mut table);
    }
    if runs("vectors") {
        vectors::run(&drivers, effort, &mut table);
    }
    if runs("clpeak") {
        clpeak::run(&drivers, effort, &mut table);
    }
    if runs("memory") {
        stream::run(&drivers, effort, &mut table);
    }

    let devices: Vec<String> = drivers
        .iter()
        .map(|d| format!("{}: \"{}\"", d.name, d.device_name))
        .collect();
    let machine = format!("{} ({})", machine_summary(), devices.join(", "));
    let mut text = table.markdown(&machine);
    if scaling {
        let names: Vec<String> = drivers.iter().map(|d| d.label()).collect();
        text.push_str(&format!(
            "\n### Scaling\n\n`CLIFT_MAX_COMPUTE_UNITS=n` for clift and `POCL_MAX_PTHREAD_COUNT=n` \
             for PoCL.\n\n{}",
            report::scaling_markdown(&names, &scaling_runs(quick, only.as_deref()))
        ));
    }
    print!("{text}");
    let outputs = [
        (markdown, Some(text.clone())),
        (svg, table.svg(&machine)),
        (tsv, Some(table.tsv())),
    ];
    for (path, content) in outputs {
        let (Some(path), Some(content)) = (path, content) else {
            continue;
        };
        if let Err(e) = std::fs::write(&path, content) {
            eprintln!("clift-bench: cannot write {}: {e}", path.display());
            std::process::exit(1);
        }
    }
}

/// The sections `--only` can name.
const SECTIONS: [&str; 6] = [
    "transfer", "launch", "kernels", "vectors", "clpeak", "memory",
];

/// The harness run again at 1, 2, 4, ... and all cores (with the same `--quick` and
/// `--only`), each run's figures as TSV.
fn scaling_runs(quick: bool, only: Option<&str>) -> Vec<(usize, String)> {
    let all = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut counts: Vec<usize> = std::iter::successors(Some(1usize), |n| Some(n * 2))
        .take_while(|&n| n < all)
        .collect();
    counts.push(all);
    let exe = std::env::current_exe().expect("the harness's own path");
    let mut runs = Vec::new();
    for n in counts {
        let out = std::env::temp_dir().join(format!(
            "clift-bench-scaling-{}-{n}.tsv",
            std::process::id()
        ));
        let mut child = std::process::Command::new(&exe);
        child
            .env("CLIFT_MAX_COMPUTE_UNITS", n.to_string())
            .env("POCL_MAX_PTHREAD_COUNT", n.to_string())
            .arg("--tsv")
            .arg(&out)
            .stdout(std::process::Stdio::null());
        if quick {
            child.arg("--quick");
        }
        if std::env::var_os("CLIFT_SAFE").is_some() {
            child.arg("--safe");
        }
        if let Some(section) = only {
            child.args(["--only", section]);
        }
        match child.status() {
            Ok(status) if status.success() => {
                runs.push((n, std::fs::read_to_string(&out).unwrap_or_default()));
            }
            other => eprintln!("clift-bench: the run on {n} cores failed: {other:?}"),
        }
        let _ = std::fs::remove_file(&out);
    }
    runs
}

/// One line about the machine the figures come from.
fn machine_summary() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    format!("{cpu}, {cores} cores available")
}

#[cfg(test)]
mod tests {
    use super::{NotMeasuring, check_arguments};

    fn check(words: &[&str]) -> Result<(), NotMeasuring> {
        check_arguments(&words.iter().map(|w| w.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn the_command_line_is_checked_before_anything_is_measured() {
        assert_eq!(check(&[]), Ok(()));
        assert_eq!(
            check(&[
                "--quick",
                "--only",
                "clpeak",
                "--markdown",
                "out.md",
                "--safe"
            ]),
            Ok(())
        );
        assert_eq!(check(&["--quick", "--help"]), Err(NotMeasuring::Help));
        assert_eq!(check(&["-h"]), Err(NotMeasuring::Help));
        assert_eq!(
            check(&["--quik"]),
            Err(NotMeasuring::Mistake("unknown option \"--quik\"".into()))
        );
        assert_eq!(
            check(&["--quick", "--svg"]),
            Err(NotMeasuring::Mistake("--svg needs a value".into()))
        );
    }
}
