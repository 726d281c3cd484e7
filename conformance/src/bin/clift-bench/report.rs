//! The side-by-side table the harness prints (Markdown, so it can go into
//! docs/PERFORMANCE.md as it is).

/// Which direction is better for a metric.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Better {
    Lower,
    Higher,
}

struct Row {
    section: &'static str,
    metric: String,
    unit: &'static str,
    better: Better,
    values: Vec<Option<f64>>,
    /// The machine's own figure for the same thing (e.g. host memcpy bandwidth).
    limit: Option<f64>,
}

pub struct Table {
    drivers: Vec<String>,
    rows: Vec<Row>,
}

impl Table {
    pub fn new(drivers: Vec<String>) -> Table {
        Table {
            drivers,
            rows: Vec::new(),
        }
    }

    /// Adds a row: one value per driver (None where it failed), and the machine's limit if
    /// there is one.
    pub fn add(
        &mut self,
        section: &'static str,
        metric: impl Into<String>,
        unit: &'static str,
        better: Better,
        values: Vec<Option<f64>>,
        limit: Option<f64>,
    ) {
        self.rows.push(Row {
            section,
            metric: metric.into(),
            unit,
            better,
            values,
            limit,
        });
    }

    pub fn markdown(&self, machine: &str) -> String {
        let mut out = format!("Measured on {machine}.\n");
        let mut section = "";
        for row in &self.rows {
            if row.section != section {
                section = row.section;
                out.push_str(&format!("\n### {section}\n\n| metric |"));
                for d in &self.drivers {
                    out.push_str(&format!(" {d} |"));
                }
                if self.drivers.len() > 1 {
                    out.push_str(&format!(" {} vs {} |", self.drivers[0], self.drivers[1]));
                }
                out.push_str(&format!(" {} vs machine |\n|---|", self.drivers[0]));
                for _ in 0..self.drivers.len() + usize::from(self.drivers.len() > 1) + 1 {
                    out.push_str("---|");
                }
                out.push('\n');
            }
            out.push_str(&format!("| {} ({}) |", row.metric, row.unit));
            for v in &row.values {
                out.push_str(&format!(" {} |", v.map_or("n/a".into(), format_value)));
            }
            if self.drivers.len() > 1 {
                out.push_str(&format!(
                    " {} |",
                    speedup(row.values[0], row.values[1], row.better)
                ));
            }
            let vs_limit = match (row.values[0], row.limit) {
                (Some(v), Some(limit)) if limit > 0.0 => {
                    format!("{:.0}% of {}", 100.0 * v / limit, format_value(limit))
                }
                _ => "".into(),
            };
            out.push_str(&format!(" {vs_limit} |\n"));
        }
        out
    }
}

/// How many times better the first driver is than the second ("2.0× better").
fn speedup(ours: Option<f64>, theirs: Option<f64>, better: Better) -> String {
    match (ours, theirs) {
        (Some(a), Some(b)) if a > 0.0 && b > 0.0 => {
            let ratio = if better == Better::Lower {
                b / a
            } else {
                a / b
            };
            format!(
                "{ratio:.2}× {}",
                if ratio >= 1.0 { "better" } else { "worse" }
            )
        }
        _ => "n/a".into(),
    }
}

fn format_value(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}
