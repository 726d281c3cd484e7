//! Golden tests of the middle layer and the lowering.
//!
//! For every `tests/stages/NAME.cl`, `NAME.stages` holds what [`stages::dump_each`] makes of
//! it: the typed tree after semantic analysis and after each pass (a pass that changed
//! nothing is marked `unchanged`), the uniform variables of each kernel, how each kernel
//! runs, and the Cranelift IR of every function. A change to a pass or to the lowering shows
//! here as a diff to read. `BLESS=1 cargo test --test stages_golden` rewrites the expected
//! files from the current output.

use std::fs;
use std::path::{Path, PathBuf};

use clift_compiler::build::BuildOptions;
use clift_compiler::frontend::sema;
use clift_compiler::stages;

fn stages_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/stages")
}

/// The device's options: every extension clift supports available.
fn options() -> BuildOptions {
    BuildOptions {
        sema: sema::Options {
            fp64_supported: true,
            fp64_by_default: true,
            fp16_supported: true,
            int64_atomics_supported: true,
            ..Default::default()
        },
        ..BuildOptions::default()
    }
}

/// The text a `.stages` file holds for `source`.
fn render(source: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut last_tree: Option<String> = None;
    for (stage, text) in stages::dump_each(source, &options())? {
        let is_tree = matches!(stage.as_str(), "sema" | "inline" | "switches");
        if is_tree && last_tree.as_deref() == Some(text.as_str()) {
            out.push_str(&format!("=== {stage}: unchanged ===\n\n"));
            continue;
        }
        out.push_str(&format!("=== {stage} ===\n{}\n", text.trim_end()));
        out.push('\n');
        if is_tree {
            last_tree = Some(text);
        }
    }
    Ok(out)
}

#[test]
fn golden_files() {
    let bless = std::env::var_os("BLESS").is_some_and(|v| v == "1");
    let mut inputs: Vec<PathBuf> = fs::read_dir(stages_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "cl"))
        .collect();
    inputs.sort();
    let mut failures = Vec::new();
    for input in &inputs {
        let source = fs::read_to_string(input).unwrap();
        let expected = input.with_extension("stages");
        let actual = match render(&source) {
            Ok(text) => text,
            Err(log) => {
                failures.push(format!("{}: does not build:\n{log}", input.display()));
                continue;
            }
        };
        if bless {
            fs::write(&expected, &actual).unwrap();
            continue;
        }
        let want = fs::read_to_string(&expected).unwrap_or_default();
        if want != actual {
            let line = want
                .lines()
                .zip(actual.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(want.lines().count().min(actual.lines().count()));
            failures.push(format!(
                "{}: differs from line {}:\n  expected: {:?}\n  actual:   {:?}",
                expected.display(),
                line + 1,
                want.lines().nth(line).unwrap_or("<end>"),
                actual.lines().nth(line).unwrap_or("<end>"),
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} golden mismatches (BLESS=1 rewrites them):\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    assert!(
        inputs.len() >= 20,
        "too few golden kernels: {}",
        inputs.len()
    );
}

/// The goldens cover what the issue asks for: both barrier modes, switch rewriting,
/// inlining, uniform variables.
#[test]
fn the_goldens_cover_each_kind_of_kernel() {
    let texts: Vec<String> = fs::read_dir(stages_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "stages"))
        .map(|p| fs::read_to_string(p).unwrap())
        .collect();
    let any = |needle: &str| texts.iter().any(|t| t.contains(needle));
    assert!(any(": BarrierRegions\n"));
    assert!(any(": Resumable\n"));
    assert!(any(": WorkItemLoop\n"));
    assert!(texts.iter().any(|t| !t.contains("=== inline: unchanged")));
    assert!(texts.iter().any(|t| !t.contains("=== switches: unchanged")));
}
