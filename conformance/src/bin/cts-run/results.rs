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

    /// Takes the rows of `other` (a copy of this file that another machine ran shards
    /// with) that record a later run: every row that differs from this file's, unless this
    /// file's row is of a later day, or `other`'s is a run cut off by its time
    /// (`incomplete`, `timeout`) where this file has a verdict (a cut-off run says nothing
    /// about a pass or a failure, and copies of one day cannot be ordered by their dates).
    /// A failure does replace a pass: a shard's row is its latest verdict. Returns the rows
    /// taken.
    pub fn merge(&mut self, other: Results) -> Vec<Record> {
        let mut taken = Vec::new();
        for (key, row) in other.records {
            let cut_off = matches!(row.verdict, Verdict::Incomplete | Verdict::Timeout);
            let newer = match self.records.get(&key) {
                Some(mine) => {
                    let verdict = matches!(mine.verdict, Verdict::Pass | Verdict::Fail(_));
                    *mine != row && row.date >= mine.date && !(cut_off && verdict)
                }
                None => true,
            };
            if newer {
                taken.push(row.clone());
                self.records.insert(key, row);
            }
        }
        taken
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
    fn a_merge_takes_the_rows_of_later_runs_only() {
        let mut mine = Results::default();
        mine.insert(record("sqrt float", Verdict::Pass, 61));
        mine.insert(record("fmod double", Verdict::Incomplete, 554));
        let mut newer_day = record("exp half", Verdict::Fail("1".into()), 9);
        newer_day.date = "2026-11-28".into();
        mine.insert(newer_day.clone());
        // The other machine's copy: one row unchanged, one shard run again, one new shard,
        // and an older run of a shard this file has a later row of.
        let mut other = Results::default();
        other.insert(record("sqrt float", Verdict::Pass, 61));
        let mut fmod = record("fmod double", Verdict::Pass, 88);
        fmod.build = "20d283e".into();
        fmod.units = "32".into();
        fmod.date = "2026-11-28".into();
        other.insert(fmod.clone());
        other.insert(record("remquo double", Verdict::Pass, 437));
        other.insert(record("exp half", Verdict::Pass, 12));
        // A run cut off on the other machine leaves this file's pass.
        other.insert(record("sqrt double", Verdict::Incomplete, 570));
        mine.insert(record("sqrt double", Verdict::Pass, 300));
        let taken = mine.merge(other);
        assert_eq!(
            taken,
            [fmod.clone(), record("remquo double", Verdict::Pass, 437)]
        );
        assert_eq!(
            mine.get("test_bruteforce", "sqrt double").unwrap().verdict,
            Verdict::Pass
        );
        assert_eq!(mine.get("test_bruteforce", "fmod double"), Some(&fmod));
        assert_eq!(mine.get("test_bruteforce", "exp half"), Some(&newer_day));
        assert_eq!(
            mine.get("test_bruteforce", "sqrt float").unwrap().seconds,
            61
        );
        assert_eq!(mine.records.len(), 5);
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
