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
    /// Lines printed after a section's table: (section, text).
    notes: Vec<(&'static str, String)>,
}

impl Table {
    pub fn new(drivers: Vec<String>) -> Table {
        Table {
            drivers,
            rows: Vec::new(),
            notes: Vec::new(),
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

    /// A line printed under a section's table (what the machine itself measured, say).
    pub fn note(&mut self, section: &'static str, text: String) {
        self.notes.push((section, text));
    }

    /// The notes of `section`, as paragraphs after its table.
    fn notes_of(&self, section: &str) -> String {
        self.notes
            .iter()
            .filter(|(s, _)| *s == section)
            .map(|(_, text)| format!("\n{text}\n"))
            .collect()
    }

    pub fn markdown(&self, machine: &str) -> String {
        let mut out = format!("Measured on {machine}.\n");
        let mut section = "";
        for row in &self.rows {
            if row.section != section {
                out.push_str(&self.notes_of(section));
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
            out.push_str(&format!(" {} |\n", self.vs_limit(row)));
        }
        out.push_str(&self.notes_of(section));
        out
    }

    /// The first driver's value as a share of the machine's limit, and the others' after it
    /// in parentheses: "91% of 100 (PoCL 88%)".
    fn vs_limit(&self, row: &Row) -> String {
        let Some(limit) = row.limit.filter(|&l| l > 0.0) else {
            return String::new();
        };
        let share = |v: f64| format!("{:.0}%", 100.0 * v / limit);
        let Some(first) = row.values[0] else {
            return String::new();
        };
        let others: Vec<String> = self.drivers[1..]
            .iter()
            .zip(&row.values[1..])
            .filter_map(|(d, v)| v.map(|v| format!("{d} {}", share(v))))
            .collect();
        let mut text = format!("{} of {}", share(first), format_value(limit));
        if !others.is_empty() {
            text.push_str(&format!(" ({})", others.join(", ")));
        }
        text
    }
}

impl Table {
    /// One line per row: metric, unit, then each driver's value ("n/a" where it failed),
    /// tab-separated (what `--scaling` reads back from its child runs).
    pub fn tsv(&self) -> String {
        let mut out = String::new();
        for row in &self.rows {
            out.push_str(&format!("{}\t{}", row.metric, row.unit));
            for v in &row.values {
                out.push_str(&v.map_or("\tn/a".into(), |v| format!("\t{v}")));
            }
            out.push('\n');
        }
        out
    }

    /// A bar chart of the first driver against the second, one bar per row, on a log scale
    /// (right: the first is faster or smaller), as SVG.
    pub fn svg(&self, machine: &str) -> Option<String> {
        if self.drivers.len() < 2 {
            return None;
        }
        let bars: Vec<(String, f64)> = self
            .rows
            .iter()
            .filter_map(|row| {
                let ratio = ratio(row.values[0], row.values[1], row.better)?;
                Some((format!("{} ({})", row.metric, row.unit), ratio))
            })
            .collect();
        let (row_h, label_w, chart_w, top) = (22.0, 430.0, 420.0, 56.0);
        let height = top + row_h * bars.len() as f64 + 40.0;
        let width = label_w + chart_w + 90.0;
        // log10 of the ratio, clamped to 1/100..100, mapped onto the chart's width.
        let x_of = |r: f64| label_w + chart_w / 2.0 * (1.0 + r.log10().clamp(-2.0, 2.0) / 2.0);
        let mut out = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
             font-family=\"sans-serif\" font-size=\"12\">\n\
             <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
             <text x=\"10\" y=\"20\" font-size=\"15\">{} vs {}: how many times better \
             (log scale; right of the line: {} is better)</text>\n\
             <text x=\"10\" y=\"38\" fill=\"#555\">{}</text>\n",
            self.drivers[0],
            self.drivers[1],
            self.drivers[0],
            escape(machine)
        );
        for (tick, label) in [
            (0.01, "1/100"),
            (0.1, "1/10"),
            (1.0, "1"),
            (10.0, "10"),
            (100.0, "100"),
        ] {
            let x = x_of(tick);
            out.push_str(&format!(
                "<line x1=\"{x}\" y1=\"{}\" x2=\"{x}\" y2=\"{}\" stroke=\"{}\"/>\n\
                 <text x=\"{x}\" y=\"{}\" text-anchor=\"middle\" fill=\"#555\">{label}×</text>\n",
                top - 6.0,
                height - 30.0,
                if tick == 1.0 { "#000" } else { "#ddd" },
                height - 14.0,
            ));
        }
        for (i, (label, r)) in bars.iter().enumerate() {
            let y = top + row_h * i as f64;
            let (x0, x1) = (x_of(1.0), x_of(*r));
            let (left, w) = if x1 >= x0 {
                (x0, x1 - x0)
            } else {
                (x1, x0 - x1)
            };
            let color = if *r >= 1.0 { "#2a9d4b" } else { "#d1495b" };
            out.push_str(&format!(
                "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n\
                 <rect x=\"{left}\" y=\"{}\" width=\"{w}\" height=\"{}\" fill=\"{color}\"/>\n\
                 <text x=\"{}\" y=\"{}\">{:.2}×</text>\n",
                label_w - 8.0,
                y + 15.0,
                escape(label),
                y + 3.0,
                row_h - 6.0,
                label_w + chart_w + 8.0,
                y + 15.0,
                r
            ));
        }
        out.push_str("</svg>\n");
        Some(out)
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// How many times better the first value is than the second.
fn ratio(ours: Option<f64>, theirs: Option<f64>, better: Better) -> Option<f64> {
    match (ours, theirs) {
        (Some(a), Some(b)) if a > 0.0 && b > 0.0 => Some(if better == Better::Lower {
            b / a
        } else {
            a / b
        }),
        _ => None,
    }
}

/// How many times better the first driver is than the second ("2.0× better").
fn speedup(ours: Option<f64>, theirs: Option<f64>, better: Better) -> String {
    match ratio(ours, theirs, better) {
        Some(r) => format!("{r:.2}× {}", if r >= 1.0 { "better" } else { "worse" }),
        None => "n/a".into(),
    }
}

/// The scaling table: for each metric (in the order of the first run), every driver's
/// value at each core count. `runs` holds (cores, the TSV of a run at that count).
pub fn scaling_markdown(drivers: &[String], runs: &[(usize, String)]) -> String {
    let mut metrics: Vec<(String, String)> = Vec::new();
    let mut values: std::collections::HashMap<(String, usize), Vec<String>> = Default::default();
    for (cores, tsv) in runs {
        for line in tsv.lines() {
            let fields: Vec<&str> = line.split('\t').collect();
            let [metric, unit, rest @ ..] = &fields[..] else {
                continue;
            };
            if !metrics.iter().any(|(m, _)| m == metric) {
                metrics.push((metric.to_string(), unit.to_string()));
            }
            let shown = rest
                .iter()
                .map(|v| v.parse::<f64>().map_or("n/a".into(), format_value))
                .collect();
            values.insert((metric.to_string(), *cores), shown);
        }
    }
    let mut out = String::from("| metric |");
    for (cores, _) in runs {
        out.push_str(&format!(
            " {cores} core{}: {} |",
            if *cores == 1 { "" } else { "s" },
            drivers.join(" / ")
        ));
    }
    out.push_str("\n|---|");
    for _ in runs {
        out.push_str("---|");
    }
    out.push('\n');
    for (metric, unit) in metrics {
        out.push_str(&format!("| {metric} ({unit}) |"));
        for (cores, _) in runs {
            let cell = values
                .get(&(metric.clone(), *cores))
                .map_or("n/a".into(), |v| v.join(" / "));
            out.push_str(&format!(" {cell} |"));
        }
        out.push('\n');
    }
    out
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_driver_is_shown_as_a_share_of_the_machine_and_notes_follow_their_section() {
        let mut t = Table::new(vec!["clift".into(), "PoCL".into()]);
        t.add(
            "A",
            "add",
            "GB/s",
            Better::Higher,
            vec![Some(91.0), Some(88.0)],
            Some(100.0),
        );
        t.add(
            "A",
            "none",
            "GB/s",
            Better::Higher,
            vec![None, Some(1.0)],
            Some(100.0),
        );
        t.note("A", "The machine streams 100.".into());
        t.add(
            "B",
            "other",
            "ms",
            Better::Lower,
            vec![Some(1.0), None],
            None,
        );
        let md = t.markdown("m");
        assert!(
            md.contains("| add (GB/s) | 91.0 | 88.0 | 1.03× better | 91% of 100 (PoCL 88%) |\n"),
            "{md}"
        );
        assert!(
            md.contains("| none (GB/s) | n/a | 1.00 | n/a |  |\n"),
            "{md}"
        );
        let note = md.find("The machine streams 100.").unwrap();
        assert!(
            md.find("| none").unwrap() < note && note < md.find("### B").unwrap(),
            "{md}"
        );
    }
}
