//! One CTS process: started from its binary's folder, through the ICD loader with only clift,
//! and killed with its whole process group when its time is up. Both the quick-mode suites and
//! the full-size shards run through here, so that they see the same device settings.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The device a CTS process sees: the loader's vendor folder (naming only clift) and the
/// compute-unit cap (`CLIFT_MAX_COMPUTE_UNITS`), if any.
pub struct Device<'a> {
    pub vendors: &'a Path,
    pub compute_units: Option<&'a str>,
}

/// How one process ended and what it printed.
pub struct Run {
    pub status: Option<std::process::ExitStatus>,
    pub timed_out: bool,
    pub start_error: Option<String>,
    pub text: String,
    pub seconds: f64,
}

impl Run {
    pub fn failed_to_start(why: &str) -> Run {
        Run {
            status: None,
            timed_out: false,
            start_error: Some(why.to_string()),
            text: String::new(),
            seconds: 0.0,
        }
    }

    /// Whether the process exited with 0.
    pub fn passed(&self) -> bool {
        self.status.is_some_and(|s| s.success())
    }

    /// The exit code as text, or "signal" for a process a signal ended.
    pub fn exit_code(&self) -> String {
        self.status
            .and_then(|s| s.code())
            .map_or("signal".into(), |c| c.to_string())
    }
}

/// The command that runs `binary` from its folder on `device`, with `env` set besides.
pub fn command(device: &Device, binary: &Path, env: &[(&str, &str)]) -> Command {
    let mut command = Command::new(binary);
    if let Some(units) = device.compute_units {
        command.env("CLIFT_MAX_COMPUTE_UNITS", units);
    }
    for (name, value) in env {
        command.env(name, value);
    }
    command
        .current_dir(binary.parent().unwrap_or(Path::new(".")))
        .env("OCL_ICD_VENDORS", device.vendors)
        .env("CL_DEVICE_TYPE", "CL_DEVICE_TYPE_CPU");
    command
}

/// Runs `command` with `args` until it exits or `limit` passes.
pub fn run(mut command: Command, args: &[String], limit: Duration) -> Run {
    let start = Instant::now();
    // Its own process group, so that a timeout kills whatever the suite started too.
    let child = command
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
            Ok(None) if start.elapsed() > limit => {
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
        seconds: start.elapsed().as_secs_f64(),
    }
}

/// A suite's sub-test names, as its `--list` prints them (one per line, after a tab).
pub fn sub_tests(mut command: Command) -> Option<Vec<String>> {
    let output = command.arg("--list").output().ok()?;
    let names: Vec<String> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|l| l.strip_prefix('\t'))
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .collect();
    (!names.is_empty()).then_some(names)
}

/// The CTS's closing count ("PASSED 12 of 12 tests." or "FAILED 2 of 30 tests."), the last
/// such line of the output.
pub fn summary_line(text: &str) -> String {
    text.lines()
        .rev()
        .map(str::trim)
        .find(|l| (l.starts_with("PASSED ") || l.starts_with("FAILED ")) && l.contains(" of "))
        .unwrap_or("")
        .trim_end_matches('.')
        .to_string()
}
