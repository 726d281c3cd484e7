//! The compiler's fuzz targets: the preprocessor, the parser, semantic analysis and the
//! whole build.
//!
//! An input is a program's source text (invalid UTF-8 is replaced, as `clBuildProgram`
//! does with a program's bytes). The `sema` and `compile` targets also take the build's
//! options from a first line of the form `//!opts <options>`, so that the fuzzer reaches
//! `-D`, `-cl-std` and the other options as an application would pass them.

use clift_compiler::build::BuildOptions;
use clift_compiler::frontend::{self, diag::Diagnostics, source::SourceMap};
use clift_runtime::program::{CompileOptions, build_options};

/// The prefix of the options line.
const OPTIONS_LINE: &str = "//!opts ";

/// The build options and the source of an input.
fn split(data: &[u8]) -> Option<(BuildOptions, String)> {
    let text = String::from_utf8_lossy(data).into_owned();
    let (options, source) = match text.strip_prefix(OPTIONS_LINE) {
        Some(rest) => {
            let (line, source) = rest.split_once('\n').unwrap_or((rest, ""));
            // An invalid option is refused before any build starts.
            (
                CompileOptions::parse(line.as_bytes()).ok()?,
                source.to_string(),
            )
        }
        None => (CompileOptions::default(), text),
    };
    Some((build_options(&options), source))
}

/// Checks that a build log has the form of diagnostics (`file:line:col: kind: message`
/// headers), which proves it was rendered rather than cut short.
fn check_log(log: &str, errors: usize) {
    let headers = log.lines().filter(|l| l.contains(": error: ")).count();
    assert!(
        headers >= errors,
        "{errors} errors but {headers} error lines in the log:\n{log}"
    );
}

/// The preprocessor alone.
pub fn preprocess(data: &[u8]) {
    let Some((options, source)) = split(data) else {
        return;
    };
    let mut sources = SourceMap::new();
    let main = sources.add("fuzz.cl", &source);
    let mut diags = Diagnostics::new();
    let tokens =
        frontend::preprocess::preprocess(&mut sources, main, &options.preprocess, &mut diags);
    assert!(
        !tokens.is_empty(),
        "the token list lacks its end-of-file token"
    );
    check_log(&diags.render(&sources), diags.error_count());
}

/// Preprocessing and parsing.
pub fn parse(data: &[u8]) {
    let Some((options, source)) = split(data) else {
        return;
    };
    let mut sources = SourceMap::new();
    let main = sources.add("fuzz.cl", &source);
    let mut diags = Diagnostics::new();
    let tokens =
        frontend::preprocess::preprocess(&mut sources, main, &options.preprocess, &mut diags);
    let _unit = frontend::parse::parse(&tokens, &mut diags);
    check_log(&diags.render(&sources), diags.error_count());
}

/// The whole frontend; the typed tree of an error-free program is printed too (the printer
/// walks every node).
pub fn sema(data: &[u8]) {
    let Some((options, source)) = split(data) else {
        return;
    };
    let checked = frontend::check("fuzz.cl", &source, &options.preprocess, &options.sema);
    check_log(&checked.log(), checked.diagnostics.error_count());
    if !checked.diagnostics.has_errors() {
        let _ = frontend::tir_print::print(&checked.program);
    }
}

/// Source to machine code, as `clBuildProgram` builds it.
pub fn compile(data: &[u8]) {
    let Some((options, source)) = split(data) else {
        return;
    };
    match clift_compiler::build::build("fuzz.cl", &source, &options) {
        Ok(built) => {
            for kernel in &built.kernels {
                assert!(!kernel.name.is_empty(), "a kernel without a name");
            }
        }
        Err(log) => assert!(!log.is_empty(), "a failed build with an empty log"),
    }
}
