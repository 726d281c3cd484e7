//! Golden tests of the parser.
//!
//! Every `tests/parse/NAME.cl` must parse without a diagnostic, and its tree
//! ([`parse::dump`]) must equal `NAME.ast`. Every `tests/parse/NAME.err.cl` must give the
//! diagnostics in `NAME.err` (rendered: location, source line, caret), and what survived
//! recovery must equal `NAME.err.ast`. `BLESS=1 cargo test --test parse_golden` rewrites
//! the expected files from the current output.

use std::fs;
use std::path::{Path, PathBuf};

use clift_compiler::frontend::diag::Diagnostics;
use clift_compiler::frontend::parse;
use clift_compiler::frontend::source::SourceMap;

#[path = "parse/support.rs"]
mod support;

fn parse_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/parse")
}

/// Parses one file: its tree dump and its rendered diagnostics.
fn run(path: &Path) -> (String, String) {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let text = fs::read_to_string(path).unwrap();
    let mut sources = SourceMap::new();
    let file = sources.add(&name, &text);
    let mut diags = Diagnostics::new();
    let tokens = support::tokens(file, &text, &mut diags);
    let unit = parse::parse(&tokens, &mut diags);
    (parse::dump(&unit), diags.render(&sources))
}

/// Compares `actual` with the file at `expected` (or writes it when blessing); returns a
/// description of the difference.
fn check(expected: &Path, actual: &str, bless: bool) -> Option<String> {
    if bless {
        fs::write(expected, actual).unwrap();
        return None;
    }
    let want = fs::read_to_string(expected).unwrap_or_default();
    if want == actual {
        return None;
    }
    let line = want
        .lines()
        .zip(actual.lines())
        .position(|(a, b)| a != b)
        .unwrap_or(want.lines().count().min(actual.lines().count()));
    Some(format!(
        "{}: differs from line {}:\n  expected: {:?}\n  actual:   {:?}\n--- actual output ---\n{}",
        expected.display(),
        line + 1,
        want.lines().nth(line).unwrap_or("<end>"),
        actual.lines().nth(line).unwrap_or("<end>"),
        actual
    ))
}

#[test]
fn golden_files() {
    let bless = std::env::var_os("BLESS").is_some_and(|v| v == "1");
    let mut inputs: Vec<PathBuf> = fs::read_dir(parse_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "cl"))
        .collect();
    inputs.sort();
    let mut failures = Vec::new();
    let (mut good, mut bad) = (0, 0);
    for input in &inputs {
        let (tree, diagnostics) = run(input);
        let stem = input.file_stem().unwrap().to_string_lossy().into_owned();
        if stem.ends_with(".err") {
            bad += 1;
            if diagnostics.is_empty() {
                failures.push(format!("{}: expected errors, got none", input.display()));
            }
            failures.extend(check(&input.with_file_name(&stem), &diagnostics, bless));
            failures.extend(check(
                &input.with_file_name(format!("{stem}.ast")),
                &tree,
                bless,
            ));
        } else {
            good += 1;
            if !diagnostics.is_empty() {
                failures.push(format!(
                    "{}: unexpected diagnostics:\n{diagnostics}",
                    input.display()
                ));
            }
            failures.extend(check(
                &input.with_file_name(format!("{stem}.ast")),
                &tree,
                bless,
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} golden mismatches:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    assert!(
        good >= 25 && bad >= 5,
        "too few golden files: {good} valid, {bad} with errors"
    );
}
