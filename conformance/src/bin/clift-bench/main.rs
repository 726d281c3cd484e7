//! `clift-bench`: clift and PoCL measured side by side in one run.
//!
//! Both drivers are loaded directly (libloading), not through the ICD loader, so the harness
//! also runs on a machine without ocl-icd. Each figure is reported for both drivers, with
//! the ratio between them and against the machine's own limit (host memcpy bandwidth).
//!
//! ```text
//! cargo run --release -p clift-conformance --bin clift-bench -- [--markdown FILE] [--quick]
//! ```
//!
//! `CLIFT_LIBRARY` names the libclift.so to measure (default: the release build beside this
//! binary); `POCL_LIBRARY` PoCL's library (default: the path in /etc/OpenCL/vendors/pocl.icd).

mod driver;
mod kernels;
mod report;
mod transfer;

use std::path::PathBuf;

use driver::Driver;
use report::Table;

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
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "--quick");
    let markdown = args
        .windows(2)
        .find(|w| w[0] == "--markdown")
        .map(|w| PathBuf::from(&w[1]));
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
        ("clift", driver::clift_library()),
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
    transfer::run(&drivers, effort, &mut table);
    kernels::run(&drivers, effort, &mut table);

    let devices: Vec<String> = drivers
        .iter()
        .map(|d| format!("{}: \"{}\"", d.name, d.device_name))
        .collect();
    let text = table.markdown(&format!("{} ({})", machine_summary(), devices.join(", ")));
    print!("{text}");
    if let Some(path) = markdown
        && let Err(e) = std::fs::write(&path, &text)
    {
        eprintln!("clift-bench: cannot write {}: {e}", path.display());
        std::process::exit(1);
    }
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
