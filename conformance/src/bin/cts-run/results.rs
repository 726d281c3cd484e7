//! The full-size run's results file (docs/cts-fullsize.tsv): one row per shard, its latest
//! result, committed with the project so that the device sessions that each run part of the
//! hours-long full-size CTS add up to one complete run. Tab-separated text, so that a diff
//! shows which shards a session ran and `grep`/`awk` can read it without this program.

use std::collections::BTreeMap;

/// The file's first lines: what it is, and the columns.
pub const HEADER: &str = "# Full-size Khronos CTS shards on clift, written by `cts-run --fullsize`: one row per shard, its latest run.\n\
# result: pass, fail:<exit code or signal>, timeout (ran past --timeout), incomplete (stopped at the end of --budget),\n\
# cannot-start. seconds: how long it ran. units: CLIFT_MAX_COMPUTE_UNITS (all: uncapped). build: clift's commit.\n\
# cts: the CTS's commit. date: UTC.\n\
suite\tshard\tresult\tseconds\tunits\tbuild\tcts\tdate\n";

/// How a shard's latest run ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    Pass,
    /// The exit code, or "signal".
    Fail(String),
    /// Killed at the per-shard limit (`--timeout`).
    Timeout,
    /// Killed because the run's budget ended: it may finish in a longer run.
    Incomplete,
    CannotStart,
}

impl Verdict {
    fn parse(text: &str) -> Option<Verdict> {
        Some(match text {
            "pass" => Verdict::Pass,
            "timeout" => Verdict::Timeout,
            "incomplete" => Verdict::Incomplete,
            "cannot-start" => Verdict::CannotStart,
            _ => Verdict::Fail(text.strip_prefix("fail:")?.to_string()),
        })
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Verdict::Pass => f.write_str("pass"),
            Verdict::Fail(code) => write!(f, "fail:{code}"),
            Verdict::Timeout => f.write_str("timeout"),
            Verdict::Incomplete => f.write_str("incomplete"),
            Verdict::CannotStart => f.write_str("cannot-start"),
        }
    }
}

/// One shard's latest run.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    pub suite: String,
    pub shard: String,
    pub verdict: Verdict,
    pub seconds: u64,
    pub units: String,
    pub build: String,
    pub cts: String,
    pub date: String,
}

/// The results of every shard run so far, keyed by (suite, shard).
#[derive(Default, Debug, PartialEq)]
pub struct Results {
    pub records: BTreeMap<(String, String), Record>,
}

impl Results {
    /// Reads the file's text; lines starting with `#` and the column line are skipped. An
    /// error names the line that is not a row.
    pub fn parse(text: &str) -> Result<Results, String> {
        let mut results = Results::default();
        for (number, line) in text.lines().enumerate() {
            if line.starts_with('#') || line.trim().is_empty() || line.starts_with("suite\t") {
                continue;
            }
            let fields: Vec<&str> = line.split('\t').collect();
            let bad = |why: &str| format!("line {}: {why}: {line:?}", number + 1);
            let [suite, shard, verdict, seconds, units, build, cts, date] = fields[..] else {
                return Err(bad(&format!("{} fields, not 8", fields.len())));
            };
            let record = Record {
                suite: suite.to_string(),
                shard: shard.to_string(),
                verdict: Verdict::parse(verdict).ok_or_else(|| bad("unknown result"))?,
                seconds: seconds.parse().map_err(|_| bad("seconds not a number"))?,
                units: units.to_string(),
                build: build.to_string(),
                cts: cts.to_string(),
                date: date.to_string(),
            };
            results.insert(record);
        }
        Ok(results)
    }

    /// The file's text: the header, then the rows sorted by suite and shard.
    pub fn to_text(&self) -> String {
        let mut out = HEADER.to_string();
        for r in self.records.values() {
            out.push_str(&format!(
                "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n",
                r.suite, r.shard, r.verdict, r.seconds, r.units, r.build, r.cts, r.date
            ));
        }
        out
    }

    /// Records a shard's latest run, replacing its earlier one.
    pub fn insert(&mut self, record: Record) {
        self.records
            .insert((record.suite.clone(), record.shard.clone()), record);
    }

    pub fn get(&self, suite: &str, shard: &str) -> Option<&Record> {
        self.records.get(&(suite.to_string(), shard.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(shard: &str, verdict: Verdict, seconds: u64) -> Record {
        Record {
            suite: "test_bruteforce".into(),
            shard: shard.into(),
            verdict,
            seconds,
            units: "2".into(),
            build: "d30fb63".into(),
            cts: "b8f8906".into(),
            date: "2026-11-27".into(),
        }
    }

    #[test]
    fn rows_round_trip_sorted_by_suite_and_shard() {
        let mut results = Results::default();
        results.insert(record("sqrt float", Verdict::Pass, 61));
        results.insert(record("fabs double", Verdict::Fail("1".into()), 7));
        results.insert(record("exp half", Verdict::Incomplete, 480));
        let text = results.to_text();
        assert!(text.starts_with(HEADER));
        assert_eq!(
            &text[HEADER.len()..],
            "test_bruteforce\texp half\tincomplete\t480\t2\td30fb63\tb8f8906\t2026-11-27\n\
             test_bruteforce\tfabs double\tfail:1\t7\t2\td30fb63\tb8f8906\t2026-11-27\n\
             test_bruteforce\tsqrt float\tpass\t61\t2\td30fb63\tb8f8906\t2026-11-27\n"
        );
        assert_eq!(Results::parse(&text).unwrap(), results);
    }

    #[test]
    fn a_later_run_replaces_the_shards_row() {
        let mut results = Results::default();
        results.insert(record("sqrt float", Verdict::Timeout, 500));
        results.insert(record("sqrt float", Verdict::Pass, 301));
        assert_eq!(results.records.len(), 1);
        assert_eq!(
            results
                .get("test_bruteforce", "sqrt float")
                .unwrap()
                .verdict,
            Verdict::Pass
        );
    }

    #[test]
    fn every_verdict_reads_back() {
        for v in [
            Verdict::Pass,
            Verdict::Fail("signal".into()),
            Verdict::Fail("139".into()),
            Verdict::Timeout,
            Verdict::Incomplete,
            Verdict::CannotStart,
        ] {
            assert_eq!(Verdict::parse(&v.to_string()), Some(v));
        }
        assert_eq!(Verdict::parse("passed"), None);
    }

    #[test]
    fn a_malformed_row_names_its_line() {
        let text = format!("{HEADER}test_bruteforce\tsqrt float\tpass\t61\n");
        assert_eq!(
            Results::parse(&text).unwrap_err(),
            "line 6: 4 fields, not 8: \"test_bruteforce\\tsqrt float\\tpass\\t61\""
        );
        let text = format!("{HEADER}a\tb\tpassed\t1\t2\tc\td\te\n");
        assert!(
            Results::parse(&text)
                .unwrap_err()
                .starts_with("line 6: unknown result")
        );
    }
}
