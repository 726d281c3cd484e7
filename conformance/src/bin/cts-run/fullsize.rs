//! The full-size math and conversion suites (test_bruteforce and test_conversions without
//! `-w`), split into shards that each fit one device command: bruteforce by function and
//! precision, conversions by conversion. A run takes the shards not yet passed, longest known
//! first, as long as its time budget lasts, and records each one in the results file; the
//! next run goes on from there, so sessions that each lend minutes of a many-core machine add
//! up to the hours the full run needs.

use crate::process::{self, Device, Run};
use crate::results::{Record, Results, Verdict};
use std::path::Path;
use std::time::{Duration, Instant};

/// The suites of the full-size run.
pub const SUITES: &[&str] = &["test_bruteforce", "test_conversions"];

/// test_bruteforce's precisions and the flags that leave only that one: `-f`, `-d` and `-g`
/// toggle float, double and half testing, which start on for a device with cl_khr_fp64 and
/// cl_khr_fp16 (math_brute_force/main.cpp), so two toggles leave the third.
const PRECISIONS: &[(&str, [&str; 2])] = &[
    ("float", ["-d", "-g"]),
    ("double", ["-f", "-g"]),
    ("half", ["-f", "-d"]),
];

/// test_conversions's type names and rounding suffixes, in the order of its `--list`
/// (test_conversions.cpp: `gTypeNames`, `gRoundingModeNames`).
const CONVERSION_TYPES: &[&str] = &[
    "uchar", "char", "ushort", "short", "uint", "int", "half", "float", "double", "ulong", "long",
];
const ROUNDINGS: &[&str] = &["", "_rte", "_rtp", "_rtn", "_rtz"];

/// Seconds a shard may not need: below this much budget left, none starts.
const MIN_START_SECONDS: f64 = 5.0;

/// One process of the full-size run.
#[derive(Clone, Debug, PartialEq)]
pub struct Shard {
    pub suite: &'static str,
    /// Its row name in the results file: "sqrt float", "char_sat_rte_float".
    pub name: String,
    pub args: Vec<String>,
}

/// test_bruteforce's shards: each function of its `--list` in each precision.
pub fn bruteforce_shards(functions: &[String]) -> Vec<Shard> {
    let mut shards = Vec::new();
    for function in functions {
        for (precision, flags) in PRECISIONS {
            let mut args: Vec<String> = flags.iter().map(|f| f.to_string()).collect();
            args.push(function.clone());
            shards.push(Shard {
                suite: "test_bruteforce",
                name: format!("{function} {precision}"),
                args,
            });
        }
    }
    shards
}

/// test_conversions's shards: every conversion its `--list` names, destination type first
/// (`<dst><_sat><_round>_<src>`; no `_sat` to float, half or double), 1,045 in all.
pub fn conversion_shards() -> Vec<Shard> {
    let mut shards = Vec::new();
    for dst in CONVERSION_TYPES {
        for src in CONVERSION_TYPES {
            let floating = matches!(*dst, "half" | "float" | "double");
            for sat in ["", "_sat"].iter().filter(|s| s.is_empty() || !floating) {
                for rnd in ROUNDINGS {
                    let name = format!("{dst}{sat}{rnd}_{src}");
                    shards.push(Shard {
                        suite: "test_conversions",
                        args: vec![name.clone()],
                        name,
                    });
                }
            }
        }
    }
    shards
}

/// What a run will do with the shards.
#[derive(Debug, PartialEq)]
pub struct Plan {
    /// Indices of the shards to run, in the order to start them.
    pub order: Vec<usize>,
    /// Shards that ran out of time before on at least as many compute units, for at least
    /// this run's per-shard limit: they need a longer command or a finer split.
    pub too_long: Vec<usize>,
}

/// The shards to run: those without a pass, longest expected first (a failure's or a
/// timeout's recorded seconds scaled to this run's units, [`estimate`]; an unrun shard counts
/// 0), ties in the shards' order; shards that timed
/// out or were cut off after at least `limit_seconds` on as many compute units or more are
/// left out as too long.
pub fn plan(shards: &[Shard], results: &Results, limit_seconds: u64, units: &str) -> Plan {
    let mut order = Vec::new();
    let mut too_long = Vec::new();
    for (i, shard) in shards.iter().enumerate() {
        let record = results.get(shard.suite, &shard.name);
        match record {
            Some(r) if r.verdict == Verdict::Pass => {}
            Some(r)
                if matches!(r.verdict, Verdict::Timeout | Verdict::Incomplete)
                    && r.seconds >= limit_seconds
                    && at_least(&r.units, units) =>
            {
                too_long.push(i);
            }
            _ => order.push(i),
        }
    }
    order.sort_by_key(|i| std::cmp::Reverse(estimate(shards, results, *i, units)));
    Plan { order, too_long }
}

/// The seconds a shard is expected to need on `units` compute units: its recorded time (0
/// when it never ran), scaled by the ratio of the units it ran on to `units`, since a shard's
/// time is its kernels' work spread over the compute units. A shard that ran out of time on
/// one unit is then expected to fit a run on sixteen; the estimate only orders the shards and
/// keeps one from starting when the budget's rest cannot hold it.
pub fn estimate(shards: &[Shard], results: &Results, i: usize, units: &str) -> u64 {
    let Some(record) = results.get(shards[i].suite, &shards[i].name) else {
        return 0;
    };
    match (record.units.parse::<u64>(), units.parse::<u64>()) {
        (Ok(earlier), Ok(now)) if now > earlier => record.seconds * earlier / now,
        _ => record.seconds,
    }
}

/// Whether a run on `earlier` compute units had at least the cores of one on `now`
/// ("all" is more than any number).
fn at_least(earlier: &str, now: &str) -> bool {
    match (earlier.parse::<u64>(), now.parse::<u64>()) {
        (Ok(e), Ok(n)) => e >= n,
        (Err(_), _) => true,
        (Ok(_), Err(_)) => false,
    }
}

/// The limit of a shard that starts with `left` seconds of the budget: `None` when it should
/// not start (less than its estimate, or less than [`MIN_START_SECONDS`]), else the per-shard
/// limit or what is left of the budget, and whether it is the budget that bounds it.
pub fn shard_limit(left: f64, estimate: u64, per_shard: f64) -> Option<(f64, bool)> {
    if left < MIN_START_SECONDS || left < estimate as f64 {
        return None;
    }
    Some(if left < per_shard {
        (left, true)
    } else {
        (per_shard, false)
    })
}

/// The verdict of a run killed or ended, given whether the budget bounded its limit.
pub fn verdict(run: &Run, budget_bound: bool) -> Verdict {
    if run.start_error.is_some() {
        Verdict::CannotStart
    } else if run.timed_out && budget_bound {
        Verdict::Incomplete
    } else if run.timed_out {
        Verdict::Timeout
    } else if run.passed() {
        Verdict::Pass
    } else {
        Verdict::Fail(run.exit_code())
    }
}

/// Where and how a full-size run goes.
pub struct FullRun<'a> {
    pub device: Device<'a>,
    pub dir: &'a Path,
    pub results_file: &'a Path,
    pub budget: Duration,
    pub per_shard: Duration,
    pub jobs: usize,
    /// The values of the rows' build, cts, units and date columns.
    pub build: String,
    pub date: String,
    pub cts: String,
    pub units: String,
    pub logs: Option<&'a Path>,
    /// The CTS's own thread-pool size, if capped: the CPUs of each job slot, see
    /// [`shard_cpus`].
    pub cts_threads: Option<usize>,
}

/// The CPUs the shard in job slot `slot` runs on when the CTS's thread pool is capped, or
/// none (unrestricted). Uncapped, a CTS process starts one thread per CPU of its affinity
/// mask (64 on the 64-core machine) however many shards run beside it, and test_bruteforce's
/// multi-threaded functions then cut each chunk into that many sub-buffers (2 MiB / 64 =
/// 8,192 floats) and run that many reference threads: `--jobs 8` oversubscribes the machine
/// eight times. Capped, each slot gets its own `n` CPUs (the CTS's `-t` would turn the pool
/// off instead: affinity.rs).
pub fn shard_cpus(cpus: &[usize], slot: usize, cts_threads: Option<usize>) -> Vec<usize> {
    match cts_threads {
        Some(n) => crate::affinity::slice(cpus, slot, n),
        None => Vec::new(),
    }
}

/// Runs the planned shards on `jobs` threads until the budget ends, writing the results file
/// after each shard (a run cut short keeps what finished). Returns the results.
pub fn run(full: &FullRun, shards: &[Shard], mut results: Results) -> Results {
    if full.budget.is_zero() {
        // `--budget 0`: only the summary.
        return results;
    }
    let plan = plan(
        shards,
        &results,
        full.per_shard.as_secs().min(full.budget.as_secs()),
        &full.units,
    );
    for i in &plan.too_long {
        println!(
            "{:<18} {:<28} skipped: ran out of time before",
            shards[*i].suite, shards[*i].name
        );
    }
    let estimates: Vec<u64> = plan
        .order
        .iter()
        .map(|i| estimate(shards, &results, *i, &full.units))
        .collect();
    let start = Instant::now();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let shared = std::sync::Mutex::new(&mut results);
    let cpus = crate::affinity::available();
    std::thread::scope(|scope| {
        for slot in 0..full.jobs.min(plan.order.len()) {
            let (next, shared, plan, estimates) = (&next, &shared, &plan, &estimates);
            let slot_cpus = shard_cpus(&cpus, slot, full.cts_threads);
            scope.spawn(move || {
                loop {
                    let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(&i) = plan.order.get(k) else {
                        break;
                    };
                    let left = full.budget.as_secs_f64() - start.elapsed().as_secs_f64();
                    let Some((limit, budget_bound)) =
                        shard_limit(left, estimates[k], full.per_shard.as_secs_f64())
                    else {
                        continue;
                    };
                    let shard = &shards[i];
                    let Some(binary) = crate::quick::find_binary(full.dir, shard.suite) else {
                        continue;
                    };
                    let mut command = process::command(&full.device, &binary, &[]);
                    crate::affinity::restrict(&mut command, &slot_cpus);
                    let run = process::run(command, &shard.args, Duration::from_secs_f64(limit));
                    let record = Record {
                        suite: shard.suite.to_string(),
                        shard: shard.name.clone(),
                        verdict: verdict(&run, budget_bound),
                        seconds: run.seconds.round() as u64,
                        units: full.units.clone(),
                        build: full.build.clone(),
                        cts: full.cts.clone(),
                        date: full.date.clone(),
                    };
                    report(full, shard, &record, &run);
                    let mut results = shared.lock().unwrap_or_else(|e| e.into_inner());
                    results.insert(record);
                    if let Err(e) = write_atomically(full.results_file, &results.to_text()) {
                        eprintln!("cts-run: cannot write {}: {e}", full.results_file.display());
                    }
                }
            });
        }
    });
    results
}

/// Prints a shard's row, the tail of its output when it did not pass, and keeps its log.
fn report(full: &FullRun, shard: &Shard, record: &Record, run: &Run) {
    println!(
        "{:<18} {:<28} {:<12} {:>5} s  {}",
        shard.suite,
        shard.name,
        record.verdict.to_string(),
        record.seconds,
        process::summary_line(&run.text)
    );
    if record.verdict != Verdict::Pass {
        let lines: Vec<&str> = run.text.lines().collect();
        for line in &lines[lines.len().saturating_sub(12)..] {
            println!("    | {line}");
        }
    }
    if let Some(logs) = full.logs {
        let file = logs.join(format!(
            "{}-{}.log",
            shard.suite,
            shard.name.replace(' ', "-")
        ));
        if let Err(e) = std::fs::write(&file, &run.text) {
            eprintln!("cts-run: cannot keep {}: {e}", file.display());
        }
    }
}

/// Writes `text` to a file beside `path`, then renames it over `path`, so that a run killed
/// while writing leaves the previous file whole.
fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
    let temporary = path.with_extension("tsv.partial");
    std::fs::write(&temporary, text)?;
    std::fs::rename(&temporary, path)
}

/// The Markdown summary for docs/CONFORMANCE.md: per suite, how many shards passed, failed,
/// ran out of time or have not run, the time of the passes, and the builds and CTS commits
/// the rows come from; then the shards that did not pass.
pub fn summary(shards: &[Shard], results: &Results, results_name: &str) -> String {
    let mut out = format!(
        "Full-size test_bruteforce (each function in float, double and half) and \
         test_conversions (each conversion), one process per shard, written by `cts-run \
         --fullsize {results_name} --update` from that file.\n\n\
         | suite | shards | pass | fail | out of time | not run | time of the passes | builds | CTS |\n\
         |---|---|---|---|---|---|---|---|---|\n"
    );
    let mut problems = Vec::new();
    for suite in SUITES {
        let of_suite: Vec<&Shard> = shards.iter().filter(|s| s.suite == *suite).collect();
        let records: Vec<&Record> = of_suite
            .iter()
            .filter_map(|s| results.get(s.suite, &s.name))
            .collect();
        let count = |f: &dyn Fn(&Verdict) -> bool| records.iter().filter(|r| f(&r.verdict)).count();
        let pass = count(&|v| *v == Verdict::Pass);
        let fail = count(&|v| matches!(v, Verdict::Fail(_) | Verdict::CannotStart));
        let late = count(&|v| matches!(v, Verdict::Timeout | Verdict::Incomplete));
        let seconds: u64 = records
            .iter()
            .filter(|r| r.verdict == Verdict::Pass)
            .map(|r| r.seconds)
            .sum();
        let distinct = |f: &dyn Fn(&Record) -> &str| {
            let mut v: Vec<&str> = records.iter().map(|r| f(r)).collect();
            v.sort_unstable();
            v.dedup();
            v.join(", ")
        };
        out.push_str(&format!(
            "| {suite} | {} | {pass} | {fail} | {late} | {} | {} | {} | {} |\n",
            of_suite.len(),
            of_suite.len() - records.len(),
            duration(seconds),
            distinct(&|r| &r.build),
            distinct(&|r| &r.cts),
        ));
        problems.extend(
            records
                .iter()
                .filter(|r| r.verdict != Verdict::Pass)
                .map(|r| format!("`{}` {} ({} s, {})", r.shard, r.verdict, r.seconds, r.build)),
        );
    }
    if !problems.is_empty() {
        out.push_str(&format!("\nNot passed: {}.\n", problems.join("; ")));
    }
    out
}

/// Seconds as "1 h 02 min", "4 min 05 s" or "9 s".
fn duration(seconds: u64) -> String {
    match seconds {
        0..60 => format!("{seconds} s"),
        60..3600 => format!("{} min {:02} s", seconds / 60, seconds % 60),
        _ => format!("{} h {:02} min", seconds / 3600, seconds % 3600 / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(shard: &Shard, verdict: Verdict, seconds: u64, units: &str) -> Record {
        Record {
            suite: shard.suite.into(),
            shard: shard.name.clone(),
            verdict,
            seconds,
            units: units.into(),
            build: "d30fb63".into(),
            cts: "b8f8906".into(),
            date: "2026-11-27".into(),
        }
    }

    fn functions(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn bruteforce_runs_each_function_in_one_precision_per_shard() {
        let shards = bruteforce_shards(&functions(&["fabs", "sqrt"]));
        let named: Vec<(&str, Vec<&str>)> = shards
            .iter()
            .map(|s| (s.name.as_str(), s.args.iter().map(String::as_str).collect()))
            .collect();
        assert_eq!(
            named,
            [
                ("fabs float", vec!["-d", "-g", "fabs"]),
                ("fabs double", vec!["-f", "-g", "fabs"]),
                ("fabs half", vec!["-f", "-d", "fabs"]),
                ("sqrt float", vec!["-d", "-g", "sqrt"]),
                ("sqrt double", vec!["-f", "-g", "sqrt"]),
                ("sqrt half", vec!["-f", "-d", "sqrt"]),
            ]
        );
    }

    #[test]
    fn a_capped_cts_thread_pool_is_a_cpu_slice_per_job_slot_not_dash_t() {
        let shards = bruteforce_shards(&functions(&["nan"]));
        // The process's arguments never carry -t, which would turn the CTS's pool off.
        assert_eq!(shards[1].args, ["-f", "-g", "nan"]);
        let cpus: Vec<usize> = (0..16).collect();
        assert!(shard_cpus(&cpus, 3, None).is_empty());
        assert_eq!(shard_cpus(&cpus, 0, Some(4)), [0, 1, 2, 3]);
        assert_eq!(shard_cpus(&cpus, 3, Some(4)), [12, 13, 14, 15]);
        // A cap of 0 is one CPU.
        assert_eq!(shard_cpus(&cpus, 2, Some(0)), [2]);
    }

    #[test]
    fn conversions_are_the_1045_the_cts_lists() {
        let shards = conversion_shards();
        // The quick mode's count: 11 sources × (8 integer destinations × 2 saturations +
        // 3 floating ones) × 5 roundings.
        assert_eq!(shards.len(), 1045);
        assert_eq!(shards[0].name, "uchar_uchar");
        assert_eq!(shards[1].name, "uchar_rte_uchar");
        assert_eq!(shards[5].name, "uchar_sat_uchar");
        assert_eq!(shards[5].args, ["uchar_sat_uchar"]);
        assert_eq!(shards.last().unwrap().name, "long_sat_rtz_long");
        assert!(shards.iter().any(|s| s.name == "char_sat_rte_float"));
        assert!(!shards.iter().any(|s| s.name.starts_with("float_sat")));
    }

    #[test]
    fn the_plan_skips_passes_and_starts_the_longest_known_first() {
        let shards = bruteforce_shards(&functions(&["fabs", "sqrt", "exp"]));
        let mut results = Results::default();
        results.insert(record(&shards[0], Verdict::Pass, 30, "2"));
        results.insert(record(&shards[1], Verdict::Fail("1".into()), 40, "2"));
        results.insert(record(&shards[3], Verdict::Incomplete, 100, "2"));
        results.insert(record(&shards[4], Verdict::Timeout, 20, "2"));
        let plan = plan(&shards, &results, 480, "2");
        // 3 (100 s), 1 (40 s), 4 (20 s), then the unrun ones in order.
        assert_eq!(plan.order, [3, 1, 4, 2, 5, 6, 7, 8]);
        assert!(plan.too_long.is_empty());
    }

    #[test]
    fn a_shard_that_ran_out_of_the_same_time_before_waits_for_more_cores() {
        let shards = bruteforce_shards(&functions(&["pow"]));
        let mut results = Results::default();
        results.insert(record(&shards[0], Verdict::Timeout, 480, "2"));
        results.insert(record(&shards[1], Verdict::Incomplete, 500, "2"));
        results.insert(record(&shards[2], Verdict::Timeout, 480, "all"));
        // On 2 units with a 480 s limit, all three would run out again.
        assert_eq!(plan(&shards, &results, 480, "2").too_long, [0, 1, 2]);
        // On 16 units, the two that had 2 may finish; the uncapped one may not.
        let more = plan(&shards, &results, 480, "16");
        assert_eq!((more.order, more.too_long), (vec![1, 0], vec![2]));
        // With a longer limit, every one runs again.
        assert_eq!(plan(&shards, &results, 600, "2").order, [1, 0, 2]);
    }

    #[test]
    fn a_time_recorded_on_fewer_units_is_scaled_to_this_runs_units() {
        let shards = bruteforce_shards(&functions(&["cos"]));
        let mut results = Results::default();
        results.insert(record(&shards[0], Verdict::Incomplete, 555, "1"));
        results.insert(record(&shards[1], Verdict::Incomplete, 550, "8"));
        results.insert(record(&shards[2], Verdict::Timeout, 300, "all"));
        // On 16 units: 555 s on 1 unit is about 34 s, 550 s on 8 is 275 s; an uncapped
        // run's time stays as it is, and so does a time on more units than this run has.
        assert_eq!(estimate(&shards, &results, 0, "16"), 34);
        assert_eq!(estimate(&shards, &results, 1, "16"), 275);
        assert_eq!(estimate(&shards, &results, 2, "16"), 300);
        assert_eq!(estimate(&shards, &results, 1, "4"), 550);
        assert_eq!(estimate(&shards, &results, 1, "all"), 550);
        // So a 545 s budget on 16 units starts all three, the longest expected first.
        let more = plan(&shards, &results, 545, "16");
        assert_eq!((more.order, more.too_long), (vec![2, 1, 0], vec![]));
        let first = estimate(&shards, &results, 0, "16");
        assert!(shard_limit(545.0, first, 545.0).is_some());
    }

    #[test]
    fn shards_start_only_with_enough_budget_left() {
        // Nothing starts in the last 5 s, nor when the known time does not fit.
        assert_eq!(shard_limit(4.0, 0, 480.0), None);
        assert_eq!(shard_limit(100.0, 120, 480.0), None);
        // The per-shard limit, or the budget's rest when that is shorter.
        assert_eq!(shard_limit(600.0, 120, 480.0), Some((480.0, false)));
        assert_eq!(shard_limit(200.0, 0, 480.0), Some((200.0, true)));
    }

    #[test]
    fn verdicts_tell_the_budget_from_the_shard_limit() {
        let killed = Run {
            status: None,
            timed_out: true,
            start_error: None,
            text: String::new(),
            seconds: 200.0,
        };
        assert_eq!(verdict(&killed, true), Verdict::Incomplete);
        assert_eq!(verdict(&killed, false), Verdict::Timeout);
        assert_eq!(
            verdict(&Run::failed_to_start("no such file"), false),
            Verdict::CannotStart
        );
    }

    #[test]
    fn the_summary_counts_each_suites_shards() {
        let mut shards = bruteforce_shards(&functions(&["fabs", "sqrt"]));
        shards.extend(conversion_shards().into_iter().take(3));
        let mut results = Results::default();
        results.insert(record(&shards[0], Verdict::Pass, 3000, "2"));
        results.insert(record(&shards[1], Verdict::Pass, 725, "2"));
        results.insert(record(&shards[2], Verdict::Fail("1".into()), 9, "2"));
        results.insert(record(&shards[3], Verdict::Incomplete, 480, "2"));
        results.insert(record(&shards[6], Verdict::Pass, 12, "2"));
        let text = summary(&shards, &results, "docs/cts-fullsize.tsv");
        assert!(text.contains(
            "| test_bruteforce | 6 | 2 | 1 | 1 | 2 | 1 h 02 min | d30fb63 | b8f8906 |\n"
        ));
        assert!(
            text.contains("| test_conversions | 3 | 1 | 0 | 0 | 2 | 12 s | d30fb63 | b8f8906 |\n")
        );
        assert!(text.ends_with(
            "\nNot passed: `fabs half` fail:1 (9 s, d30fb63); `sqrt float` incomplete (480 s, d30fb63).\n"
        ));
    }
}
