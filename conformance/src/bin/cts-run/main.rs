//! `cts-run`: runs a Khronos OpenCL CTS that the user has built against clift, and writes the
//! pass/fail table into docs/CONFORMANCE.md.
//!
//! ```text
//! cargo run --release -p clift-conformance --bin cts-run -- CTS_BIN_DIR [--update FILE]
//!     [--vendors DIR] [--timeout SECONDS] [--only NAME,...] [--jobs N] [--compute-units N]
//!     [--full] [--logs DIR] [--shards N]
//! cargo run --release -p clift-conformance --bin cts-run -- CTS_BIN_DIR --fullsize RESULTS.tsv
//!     [--budget SECONDS] [--timeout SECONDS] [--jobs N] [--compute-units N] [--only A,B]
//!     [--build LABEL] [--logs DIR] [--update FILE] [--cts-threads N] [--merge OTHER.tsv]
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
//! The long suites are split into processes that run side by side (quick.rs: test_basic and
//! test_bruteforce by sub-test, test_image_streams by geometry and pixel type), and the
//! `--jobs` threads take the processes longest first; `--shards N` instead splits every
//! suite's sub-tests (its `--list`) over N processes (`--shards 1`: no split). A suite passes
//! when every process does, and the counts are added up. Each suite that applies to an
//! OpenCL 1.2 device runs in its quick mode where it has one, through the ICD loader with
//! `OCL_ICD_VENDORS` naming only clift (`--vendors`, default `target/release/vendors`, made
//! from `target/release/libclift.so` if missing). A suite passes when its binary exits with 0;
//! the table also gives the sub-test counts the CTS prints ("PASSED 12 of 12 tests."). With
//! `--update FILE` the table replaces the text between `<!-- cts-run begin -->` and
//! `<!-- cts-run end -->` in FILE. The project does not ship the CTS.

//!
//! `--fullsize RESULTS.tsv` runs the full-size test_bruteforce and test_conversions instead,
//! in shards (fullsize.rs), those without a pass in RESULTS.tsv (results.rs), for at most
//! `--budget` seconds (default 480), each shard for at most `--timeout` seconds (default: the
//! budget); `--only` takes suites, bruteforce functions (`sqrt`) or shard names (`sqrt
//! float`). Each row records the clift build (`--build`, default `git rev-parse --short
//! HEAD`) and the CTS commit (from CTS_BIN_DIR/README.md). `--update FILE` then writes the
//! summary between `<!-- cts-fullsize begin -->` and `<!-- cts-fullsize end -->`; with
//! `--budget 0` it only rewrites the summary. `--cts-threads N` runs each of the `--jobs`
//! shards on N CPUs of its own (affinity.rs): the CTS's thread pool then has N threads
//! (uncapped it starts one per CPU in every process). `--merge OTHER.tsv` first takes into
//! RESULTS.tsv the rows of a copy that another machine ran shards with (`scripts/cts-bundle.sh`
//! makes such a copy): each row that records a later run than RESULTS.tsv's
//! (`Results::merge`); `--budget 0 --merge OTHER.tsv --update FILE` merges and rewrites the
//! summary without running a shard.

mod affinity;
mod fullsize;
mod process;
mod quick;
mod results;

use std::path::{Path, PathBuf};
use std::time::Duration;

const BEGIN: &str = "<!-- cts-run begin -->";
const END: &str = "<!-- cts-run end -->";
const FULL_BEGIN: &str = "<!-- cts-fullsize begin -->";
const FULL_END: &str = "<!-- cts-fullsize end -->";

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
             [--jobs N] [--compute-units N] [--full] [--logs DIR] [--shards N]\n       \
             cts-run CTS_BIN_DIR --fullsize RESULTS.tsv [--budget S] [--timeout S] [--jobs N] \
             [--compute-units N] [--only A,B] [--build LABEL] [--logs DIR] [--update FILE] \
             [--cts-threads N] [--merge OTHER.tsv]"
        );
        std::process::exit(2);
    };
    // Each suite runs from its own folder: a relative CTS_BIN_DIR (`../shared/cts`,
    // scripts/cts.sh's default) must not be resolved from there.
    let dir = match std::fs::canonicalize(&dir) {
        Ok(absolute) => absolute,
        Err(e) => {
            eprintln!("cts-run: no CTS build at {}: {e}", dir.display());
            std::process::exit(2);
        }
    };
    let seconds = |flag: &str| value_of(flag).and_then(|t| t.parse::<u64>().ok());
    let vendors = value_of("--vendors").map_or_else(default_vendors, PathBuf::from);
    let compute_units = value_of("--compute-units");
    let logs = value_of("--logs").map(PathBuf::from);
    if let Some(logs) = &logs
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
    if let Some(file) = value_of("--fullsize") {
        let budget = seconds("--budget").unwrap_or(480);
        let full = fullsize::FullRun {
            device: process::Device {
                vendors: &vendors,
                compute_units: compute_units.as_deref(),
            },
            dir: &dir,
            results_file: Path::new(&file),
            budget: Duration::from_secs(budget),
            per_shard: Duration::from_secs(seconds("--timeout").unwrap_or(budget)),
            jobs,
            build: value_of("--build").unwrap_or_else(git_commit),
            date: today(),
            cts: cts_commit(&dir),
            units: compute_units.clone().unwrap_or_else(|| "all".into()),
            logs: logs.as_deref(),
            cts_threads: value_of("--cts-threads").and_then(|n| n.parse().ok()),
        };
        std::process::exit(run_fullsize(
            &full,
            only.as_deref(),
            value_of("--merge").as_deref().map(Path::new),
            value_of("--update"),
        ));
    }
    let config = quick::RunConfig {
        dir,
        vendors,
        limit: Duration::from_secs(seconds("--timeout").unwrap_or(900)),
        compute_units,
        full: args.iter().any(|a| a == "--full"),
        logs,
        shards: value_of("--shards")
            .and_then(|n| n.parse().ok())
            .unwrap_or(0),
    };
    let chosen: Vec<&(&str, &[&str])> = quick::SUITES
        .iter()
        .filter(|(suite, _)| {
            only.as_ref()
                .is_none_or(|o| o.iter().any(|n| quick::names(n, suite)))
        })
        .collect();
    let outcomes = quick::run_all(&config, &chosen, jobs);
    let table = quick::table(&outcomes);
    if let Some(file) = value_of("--update") {
        if let Err(e) = update(Path::new(&file), &table, BEGIN, END) {
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

/// The full-size run: its shards, run within the budget, then the summary. Exit status 0
/// when no shard it ran failed (shards that ran out of time are not failures: a later run
/// goes on with them), 1 otherwise, 2 when the results file or the CTS cannot be read.
fn run_fullsize(
    full: &fullsize::FullRun,
    only: Option<&[String]>,
    merge: Option<&Path>,
    update_file: Option<String>,
) -> i32 {
    let mut results = match read_results(full.results_file) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("cts-run: {e}");
            return 2;
        }
    };
    if let Some(other) = merge {
        let other = match read_results(other) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("cts-run: {e}");
                return 2;
            }
        };
        let taken = results.merge(other);
        if let Err(e) = std::fs::write(full.results_file, results.to_text()) {
            eprintln!("cts-run: cannot write {}: {e}", full.results_file.display());
            return 2;
        }
        println!(
            "cts-run: {} rows merged into {}",
            taken.len(),
            full.results_file.display()
        );
        for r in &taken {
            println!(
                "  {} {}: {} ({} s, {} units, {})",
                r.suite, r.shard, r.verdict, r.seconds, r.units, r.build
            );
        }
    }
    let Some(bruteforce) = quick::find_binary(full.dir, "test_bruteforce") else {
        eprintln!("cts-run: no test_bruteforce below {}", full.dir.display());
        return 2;
    };
    let Some(functions) = process::sub_tests(process::command(&full.device, &bruteforce, &[]))
    else {
        eprintln!(
            "cts-run: {} --list names no functions",
            bruteforce.display()
        );
        return 2;
    };
    let mut shards = fullsize::bruteforce_shards(&functions);
    shards.extend(fullsize::conversion_shards());
    let chosen: Vec<fullsize::Shard> = shards
        .iter()
        .filter(|s| {
            only.is_none_or(|o| {
                o.iter().any(|n| {
                    quick::names(n, s.suite)
                        || *n == s.name
                        || s.name.split(' ').next() == Some(n.as_str())
                })
            })
        })
        .cloned()
        .collect();
    if chosen.is_empty() {
        eprintln!("cts-run: --only names no suite, function or shard of the full-size run");
        return 2;
    }
    let before = results.records.clone();
    let results = fullsize::run(full, &chosen, results);
    // A failure of this run: a failing row that is new or changed.
    let failed = results.records.iter().any(|(key, r)| {
        matches!(
            r.verdict,
            results::Verdict::Fail(_) | results::Verdict::CannotStart
        ) && before.get(key) != Some(r)
    });
    let summary = fullsize::summary(&shards, &results, &full.results_file.display().to_string());
    match update_file {
        Some(file) => {
            if let Err(e) = update(Path::new(&file), &summary, FULL_BEGIN, FULL_END) {
                eprintln!("cts-run: cannot update {file}: {e}");
                return 1;
            }
            println!("cts-run: summary written into {file}");
        }
        None => print!("\n{summary}"),
    }
    i32::from(failed)
}

/// A results file's rows; a file that does not exist has none.
fn read_results(file: &Path) -> Result<results::Results, String> {
    match std::fs::read_to_string(file) {
        Ok(text) => results::Results::parse(&text).map_err(|e| format!("{}: {e}", file.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(results::Results::default()),
        Err(e) => Err(format!("cannot read {}: {e}", file.display())),
    }
}

/// The clift build under test: the checkout's commit, or "unknown" outside one.
fn git_commit() -> String {
    std::process::Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|c| !c.is_empty())
        .unwrap_or_else(|| "unknown".into())
}

/// Today's date in UTC (`date -u +%F`: the runner needs no calendar of its own).
fn today() -> String {
    std::process::Command::new("date")
        .args(["-u", "+%F"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into())
}

/// The CTS's commit, abbreviated, from the README beside the prebuilt CTS ("commit
/// b8f8906c2519…"), or "unknown".
fn cts_commit(dir: &Path) -> String {
    let text = std::fs::read_to_string(dir.join("README.md")).unwrap_or_default();
    text.split_whitespace()
        .find(|w| w.len() == 40 && w.bytes().all(|b| b.is_ascii_hexdigit()))
        .map_or_else(|| "unknown".into(), |c| c[..7].to_string())
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

/// Replaces the text between the markers (appending a marked section if there is none).
fn update(file: &Path, table: &str, begin: &str, end: &str) -> std::io::Result<()> {
    let text = std::fs::read_to_string(file)?;
    let section = format!("{begin}\n{table}{end}");
    let new = match (text.find(begin), text.find(end)) {
        (Some(b), Some(e)) if b < e => format!("{}{section}{}", &text[..b], &text[e + end.len()..]),
        _ => format!("{}\n{section}\n", text.trim_end()),
    };
    std::fs::write(file, new)
}
