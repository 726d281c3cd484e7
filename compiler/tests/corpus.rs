//! A corpus of real-world-style OpenCL C 1.2 programs (`tests/corpus/*.cl`: reductions,
//! scans, sorts, BLAS, image filters, hashes, n-body, ray tracing, FFT, ...) that must go
//! through the frontend with no error and no warning, under the options of clift's CPU
//! device. Programs that are valid OpenCL C but that clift still rejects live in
//! `tests/corpus/known_failures/` and are not run here (see the README there).
//!
//! The frontend's throughput on the corpus (ignored by default; run it in release mode):
//! `cargo test --release -p clift-compiler --test corpus -- --ignored --nocapture`.

mod common;

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clift_compiler::build::{self, BuildOptions};
use clift_compiler::frontend::{self, preprocess::PreprocessOptions, sema};

/// The OpenCL C extensions of clift's CPU device (`runtime::device::OPENCL_C_EXTENSIONS`).
const EXTENSIONS: &[&str] = &[
    "cl_khr_global_int32_base_atomics",
    "cl_khr_global_int32_extended_atomics",
    "cl_khr_local_int32_base_atomics",
    "cl_khr_local_int32_extended_atomics",
    "cl_khr_int64_base_atomics",
    "cl_khr_int64_extended_atomics",
    "cl_khr_byte_addressable_store",
    "cl_khr_fp64",
];

/// The build options the runtime gives a `clBuildProgram` with no options on the CPU device.
fn options() -> BuildOptions {
    BuildOptions {
        preprocess: PreprocessOptions {
            extensions: EXTENSIONS.iter().map(|s| s.to_string()).collect(),
            fp64: true,
            ..PreprocessOptions::default()
        },
        sema: sema::Options {
            fp64_supported: true,
            fp16_supported: false,
            int64_atomics_supported: true,
            ..sema::Options::default()
        },
        ..BuildOptions::default()
    }
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

/// The corpus: (file name, text).
fn corpus() -> Vec<(String, String)> {
    let files = common::cl_files("corpus");
    assert!(
        files.len() >= 60,
        "the corpus has {} programs, expected at least 60",
        files.len()
    );
    files
        .iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, fs::read_to_string(p).unwrap())
        })
        .collect()
}

/// Runs the frontend (preprocess, parse, sema) over `text`: the rendered diagnostics and
/// their count.
fn check(name: &str, text: &str) -> (usize, String) {
    let o = options();
    let checked = frontend::check(name, text, &o.preprocess, &o.sema);
    (checked.diagnostics.iter().count(), checked.log())
}

#[test]
fn corpus_type_checks_without_diagnostics() {
    let mut failures = Vec::new();
    let programs = corpus();
    for (name, text) in &programs {
        let (count, log) = check(name, text);
        if count != 0 {
            failures.push(format!("{name}: {count} diagnostic(s):\n{log}"));
        }
    }
    println!(
        "{} of {} corpus programs type-check cleanly",
        programs.len() - failures.len(),
        programs.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn corpus_builds_through_codegen() {
    let mut failures = Vec::new();
    let programs = corpus();
    for (name, text) in &programs {
        match build::build(name, text, &options()) {
            Ok(built) if built.log.is_empty() => {
                assert!(!built.kernels.is_empty(), "{name}: no kernels");
            }
            Ok(built) => failures.push(format!("{name}: warnings:\n{}", built.log)),
            Err(log) => failures.push(format!("{name}: build failed:\n{log}")),
        }
    }
    println!(
        "{} of {} corpus programs build through codegen",
        programs.len() - failures.len(),
        programs.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every known failure must still fail: once clift accepts one, it belongs in the corpus.
#[test]
fn known_failures_still_fail() {
    let dir = corpus_dir().join("known_failures");
    if !dir.is_dir() {
        return;
    }
    for path in common::cl_files("corpus/known_failures") {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = fs::read_to_string(&path).unwrap();
        let (count, _) = check(&name, &text);
        assert!(
            count != 0,
            "{name} now type-checks cleanly: move it to tests/corpus/"
        );
    }
}

// ---- Throughput ----

/// Words that are never renamed: keywords, qualifiers, built-in types.
fn is_reserved(word: &str) -> bool {
    const KEYWORDS: &[&str] = &[
        "auto",
        "break",
        "case",
        "char",
        "const",
        "continue",
        "default",
        "do",
        "double",
        "else",
        "enum",
        "extern",
        "float",
        "for",
        "goto",
        "if",
        "inline",
        "int",
        "long",
        "register",
        "restrict",
        "return",
        "short",
        "signed",
        "sizeof",
        "static",
        "struct",
        "switch",
        "typedef",
        "union",
        "unsigned",
        "void",
        "volatile",
        "while",
        "bool",
        "half",
        "uchar",
        "ushort",
        "uint",
        "ulong",
        "size_t",
        "ptrdiff_t",
        "intptr_t",
        "uintptr_t",
        "event_t",
        "kernel",
        "global",
        "local",
        "constant",
        "private",
        "read_only",
        "write_only",
        "read_write",
        "defined",
    ];
    if word.starts_with("__") || KEYWORDS.contains(&word) {
        return true;
    }
    // Vector types: a scalar type name and a width.
    let base = word.trim_end_matches(|c: char| c.is_ascii_digit());
    let width = &word[base.len()..];
    ["2", "3", "4", "8", "16"].contains(&width)
        && [
            "char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "float", "double",
            "half",
        ]
        .contains(&base)
}

/// A lexical piece of a program, as far as renaming cares.
enum Piece<'a> {
    Ident(&'a str),
    Other(&'a str),
}

/// Splits `text` into identifiers and everything else (numbers, literals, comments,
/// punctuation), so that renaming never touches a literal's or a number's characters.
fn pieces(text: &str) -> Vec<Piece<'_>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let start = i;
        let c = b[i];
        if c.is_ascii_alphabetic() || c == b'_' {
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            out.push(Piece::Ident(&text[start..i]));
            continue;
        }
        if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            // A pp-number: digits, letters, dots, and signs after an exponent letter.
            i += 1;
            while i < b.len() {
                let d = b[i];
                let sign =
                    (d == b'+' || d == b'-') && matches!(b[i - 1], b'e' | b'E' | b'p' | b'P');
                if sign || d.is_ascii_alphanumeric() || d == b'_' || d == b'.' {
                    i += 1;
                } else {
                    break;
                }
            }
        } else if c == b'"' || c == b'\'' {
            i += 1;
            while i < b.len() && b[i] != c {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(b.len());
        } else if text[i..].starts_with("//") {
            i = text[i..].find('\n').map_or(b.len(), |n| i + n);
        } else if text[i..].starts_with("/*") {
            i = text[i + 2..].find("*/").map_or(b.len(), |n| i + 2 + n + 2);
        } else {
            i += text[i..].chars().next().unwrap().len_utf8();
        }
        out.push(Piece::Other(&text[start..i]));
    }
    out
}

/// The names a program declares at file scope (as far as a lexical scan can tell): macro
/// names, struct/union/enum tags, enumeration constants, and the identifiers at brace and
/// parenthesis depth 0 that are no keyword or built-in type (functions, typedefs,
/// program-scope variables). Renaming a few more is harmless: renaming is consistent.
fn declared_names(text: &str) -> HashSet<String> {
    let mut names = HashSet::new();
    let (mut braces, mut parens) = (0i32, 0i32);
    let mut line_start = true;
    let mut in_directive = false;
    let mut directive_words = 0;
    let mut previous = "";
    // Brace depths of the enumerator lists we are in.
    let mut enum_bodies: Vec<i32> = Vec::new();
    // 1 just after `enum`, 2 after its tag: a `{` then opens an enumerator list.
    let mut enum_state = 0;
    for piece in pieces(text) {
        match piece {
            Piece::Other(s) => {
                let t = s.trim();
                if t.is_empty() {
                    if s.contains('\n') && previous != "\\" {
                        line_start = true;
                        in_directive = false;
                    }
                    continue;
                }
                if line_start && t == "#" {
                    in_directive = true;
                    directive_words = 0;
                }
                line_start = false;
                if !in_directive {
                    match t {
                        "{" => {
                            braces += 1;
                            if enum_state != 0 {
                                enum_bodies.push(braces);
                            }
                        }
                        "}" => {
                            if enum_bodies.last() == Some(&braces) {
                                enum_bodies.pop();
                            }
                            braces -= 1;
                        }
                        "(" => parens += 1,
                        ")" => parens -= 1,
                        _ => {}
                    }
                    enum_state = 0;
                }
                previous = t;
            }
            Piece::Ident(word) => {
                line_start = false;
                if in_directive {
                    directive_words += 1;
                    if directive_words == 2 && previous == "define" {
                        names.insert(word.to_string());
                    }
                } else {
                    let tag = matches!(previous, "struct" | "union" | "enum");
                    let enumerator = enum_bodies.last() == Some(&braces)
                        && (previous == "{" || previous == ",")
                        && parens == 0;
                    enum_state = match (word, enum_state) {
                        ("enum", _) => 1,
                        (_, 1) => 2,
                        _ => 0,
                    };
                    if !is_reserved(word) && (tag || enumerator || (braces == 0 && parens == 0)) {
                        names.insert(word.to_string());
                    }
                }
                previous = word;
            }
        }
    }
    names
}

/// `text` with every name it declares suffixed by `suffix`.
fn rename(text: &str, suffix: &str) -> String {
    let names = declared_names(text);
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for piece in pieces(text) {
        match piece {
            Piece::Ident(w) => {
                out.push_str(w);
                if names.contains(w) {
                    out.push_str(suffix);
                }
            }
            Piece::Other(s) => out.push_str(s),
        }
    }
    out
}

/// At least `lines` lines of OpenCL C made of renamed copies of the corpus programs, one
/// program that type-checks cleanly. Programs whose declarations renaming cannot reach
/// (names made by token pasting) are left out; their names are returned.
fn benchmark_program(lines: usize) -> (String, Vec<String>) {
    let programs = corpus();
    let mut usable = Vec::new();
    let mut skipped = Vec::new();
    for (name, text) in &programs {
        // Two renamed copies side by side must not clash.
        let pair = format!("{}\n{}\n", rename(text, "_a"), rename(text, "_b"));
        if check(name, &pair).0 == 0 {
            usable.push(text);
        } else {
            skipped.push(name.clone());
        }
    }
    let mut program = String::new();
    let mut copy = 0;
    while program.lines().count() < lines {
        let text = usable[copy % usable.len()];
        program.push_str(&rename(text, &format!("_c{copy}")));
        program.push('\n');
        copy += 1;
    }
    (program, skipped)
}

#[test]
fn renaming_keeps_copies_apart() {
    let text = "#define N 4\ntypedef struct { int a; } s_t;\nenum e { E0, E1 = N };\n\
                __constant float w[N] = { 1.0f, 2e-3f, 0x1p4f, 'N' };\n\
                kernel void k(global s_t *p) { p->a = E1 + (int)w[0]; }\n";
    let renamed = rename(text, "_x");
    assert!(renamed.contains("#define N_x 4"), "{renamed}");
    assert!(
        renamed.contains("enum e_x { E0_x, E1_x = N_x }"),
        "{renamed}"
    );
    assert!(renamed.contains("2e-3f, 0x1p4f, 'N'"), "{renamed}");
    assert!(
        renamed.contains("kernel void k_x(global s_t_x *p)"),
        "{renamed}"
    );
    let both = format!("{text}{renamed}");
    let (count, log) = check("pair.cl", &both);
    assert_eq!(count, 0, "{log}");
}

#[test]
#[ignore = "throughput measurement; run in release mode with --nocapture"]
fn frontend_throughput_5000_lines() {
    const LINES: usize = 5000;
    let (program, skipped) = benchmark_program(LINES);
    let lines = program.lines().count();
    let (count, log) = check("bench.cl", &program);
    assert_eq!(count, 0, "the benchmark program is not clean:\n{log}");

    let runs = 30;
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let o = options();
            let start = Instant::now();
            let checked = frontend::check("bench.cl", &program, &o.preprocess, &o.sema);
            let elapsed = start.elapsed();
            assert!(!checked.diagnostics.has_errors());
            std::hint::black_box(checked);
            elapsed
        })
        .collect();
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let per_5000 = ms(times[runs / 2]) * 5000.0 / lines as f64;
    println!(
        "frontend (preprocess+parse+sema) on {lines} lines, {} bytes ({} programs left out: {}): \
         min {:.2} ms, median {:.2} ms, max {:.2} ms; {per_5000:.2} ms per 5,000 lines (median)",
        program.len(),
        skipped.len(),
        skipped.join(", "),
        ms(times[0]),
        ms(times[runs / 2]),
        ms(times[runs - 1]),
    );
}
