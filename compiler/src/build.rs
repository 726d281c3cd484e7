//! A program build: OpenCL C source and options in, kernels and a build log out.

use std::sync::Arc;

use crate::budget;
use crate::codegen::{self, CodegenOptions};
use crate::frontend::{self, Until, preprocess::PreprocessOptions, sema};
use crate::kernel::KernelCode;

/// Everything a build needs besides the source.
#[derive(Clone, Debug, Default)]
pub struct BuildOptions {
    pub preprocess: PreprocessOptions,
    pub sema: sema::Options,
    pub codegen: CodegenOptions,
    /// `-w`.
    pub suppress_warnings: bool,
    /// `-Werror`.
    pub warnings_are_errors: bool,
}

/// A successful build: its kernels and its log (warnings).
pub struct Built {
    pub kernels: Vec<Arc<KernelCode>>,
    pub log: String,
    /// The program after preprocessing, as text (what a program binary holds).
    pub preprocessed: String,
    /// How long each stage took, in order (`CLIFT_LOG=build`, `CLIFT_PROFILE`).
    pub stage_times: Vec<(&'static str, std::time::Duration)>,
}

impl BuildOptions {
    /// The options of the frontend's stages ([`frontend::run`]).
    pub fn frontend(&self) -> frontend::Options<'_> {
        frontend::Options {
            preprocess: &self.preprocess,
            sema: &self.sema,
            suppress_warnings: self.suppress_warnings,
            warnings_are_errors: self.warnings_are_errors,
        }
    }
}

/// Why a build failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BuildFailure {
    /// The program has errors: the build log.
    Log(String),
    /// The build would have run the process out of memory ([`budget`]): the log so far,
    /// ending with a line that says so.
    OutOfMemory(String),
}

impl BuildFailure {
    /// The build log.
    pub fn into_log(self) -> String {
        match self {
            BuildFailure::Log(log) | BuildFailure::OutOfMemory(log) => log,
        }
    }
}

/// Builds `source` (named `name` in diagnostics). On failure, the error is the build log.
pub fn build(name: &str, source: &str, options: &BuildOptions) -> Result<Built, String> {
    try_build(name, source, options).map_err(BuildFailure::into_log)
}

/// [`build`], telling a build refused for lack of memory from one that has errors.
///
/// Each stage's memory is checked before it runs ([`budget`]; the preprocessor and the
/// parser's checks are in [`frontend::run`]), and what a stage no longer needs is dropped
/// before the next one starts: the peak is the typed tree plus one stage's working memory.
pub fn try_build(name: &str, source: &str, options: &BuildOptions) -> Result<Built, BuildFailure> {
    let _ = budget::take_refusal();
    let out_of_memory = |log: String, e: budget::OutOfMemory| {
        BuildFailure::OutOfMemory(format!("{log}{name}: error: {e}\n"))
    };
    budget::check(
        "the build",
        source.len().saturating_mul(budget::PER_SOURCE_BYTE),
    )
    .map_err(|e| out_of_memory(String::new(), e))?;
    // The program binary's text; the tokens are not needed past parsing.
    let mut preprocessed = String::new();
    let mut token_count = 0;
    let mut checked = frontend::run_with(
        name,
        source,
        options.frontend(),
        Until::Sema,
        &mut |tokens| {
            preprocessed = render(tokens);
            token_count = tokens.len();
            *tokens = Vec::new();
        },
    );
    if let Some(e) = checked.out_of_memory.take() {
        return Err(out_of_memory(checked.log(), e));
    }
    if !checked.diagnostics.has_errors() {
        for u in codegen::link::unresolved(&checked.program) {
            checked.diagnostics.error(u.span, u.message());
            checked
                .diagnostics
                .note(u.declared, format!("'{}' is declared here", u.name));
        }
    }
    let log = checked.log();
    if checked.diagnostics.has_errors() {
        return Err(BuildFailure::Log(log));
    }
    codegen::dump::tree("sema", &checked.program);
    budget::check(
        "code generation",
        token_count.saturating_mul(budget::CODEGEN_PER_TOKEN),
    )
    .map_err(|e| out_of_memory(log.clone(), e))?;
    let start = std::time::Instant::now();
    let compiled =
        codegen::compile_with_sites(std::mem::take(&mut checked.program), &options.codegen).map(
            |(kernels, sites)| {
                if !options.codegen.safe {
                    return kernels;
                }
                // Each check's position, as the build log would give it.
                let sites: Arc<[String]> = sites
                    .iter()
                    .map(|span| {
                        let at = checked.sources.locate(span.file, span.start);
                        format!("{}:{}:{}", at.name, at.line, at.column)
                    })
                    .collect();
                kernels
                    .into_iter()
                    .map(|k| KernelCode {
                        safe_sites: Some(Arc::clone(&sites)),
                        ..k
                    })
                    .collect()
            },
        );
    let mut stage_times = checked.stage_times;
    stage_times.push(("codegen", start.elapsed()));
    match compiled {
        Ok(kernels) => Ok(Built {
            kernels: kernels.into_iter().map(Arc::new).collect(),
            log,
            preprocessed,
            stage_times,
        }),
        Err(e) => Err(BuildFailure::Log(format!("{log}{name}: error: {e}\n"))),
    }
}

/// The typed tree of `source` (what code generation starts from), for analyses and their
/// tests. On failure (with `-Werror`, a warning too), the error is the build log.
pub fn typed_tree(
    name: &str,
    source: &str,
    options: &BuildOptions,
) -> Result<frontend::tir::Program, String> {
    let checked = frontend::run(name, source, options.frontend(), Until::Sema);
    if checked.diagnostics.has_errors() {
        return Err(checked.log());
    }
    Ok(checked.program)
}

/// `clCompileProgram`: checks `source` as a build would (preprocessing with the options
/// and embedded headers, parsing, semantic analysis) and returns the compiled object — the
/// preprocessed program as text, which `clLinkProgram` joins with the other objects and
/// builds — and the log. On failure, the error is the log.
pub fn compile_object(
    name: &str,
    source: &str,
    options: &BuildOptions,
) -> Result<(String, String), String> {
    let _ = budget::take_refusal();
    let checked = frontend::run(name, source, options.frontend(), Until::Sema);
    // A program that would not fit in memory stops in the preprocessor or before parsing.
    if let Some(e) = &checked.out_of_memory {
        return Err(format!("{}{name}: error: {e}\n", checked.log()));
    }
    let log = checked.log();
    if checked.diagnostics.has_errors() {
        return Err(log);
    }
    Ok((render(&checked.tokens), log))
}

/// Preprocessed tokens back to source text: one line per original line start, pragmas as
/// `#pragma` lines.
fn render(tokens: &[frontend::token::Token]) -> String {
    use frontend::token::TokenKind;
    let mut out = String::new();
    for t in tokens {
        match t.kind {
            TokenKind::Eof => break,
            TokenKind::Pragma => {
                out.push_str("\n#pragma ");
                out.push_str(&t.text);
                out.push('\n');
                continue;
            }
            _ => {}
        }
        if t.at_line_start && !out.is_empty() {
            out.push('\n');
        } else if t.space_before || out.ends_with(|c: char| c.is_alphanumeric() || c == '_') {
            out.push(' ');
        }
        out.push_str(&t.text);
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kernel whose only diagnostic is a warning.
    const WARNS: &str = "kernel void k(global float *o, float8 a) { o[0] = a.x; }";

    fn options(suppress_warnings: bool, warnings_are_errors: bool) -> BuildOptions {
        BuildOptions {
            suppress_warnings,
            warnings_are_errors,
            ..BuildOptions::default()
        }
    }

    #[test]
    fn typed_tree_honours_werror_and_w() {
        assert!(typed_tree("w.cl", WARNS, &options(false, false)).is_ok());
        let log = typed_tree("w.cl", WARNS, &options(false, true))
            .err()
            .unwrap();
        assert!(
            log.contains("w.cl:1:53: error: vector component name 'x' on a vector of 8 elements"),
            "{log}"
        );
        // -w drops the warning before -Werror could make it an error.
        assert!(typed_tree("w.cl", WARNS, &options(true, true)).is_ok());
    }

    #[test]
    fn every_entry_sees_the_same_diagnostics() {
        let (_, log) = compile_object("w.cl", WARNS, &options(false, false)).unwrap();
        assert!(
            log.contains("w.cl:1:53: warning: vector component name"),
            "{log}"
        );
        let (_, quiet) = compile_object("w.cl", WARNS, &options(true, false)).unwrap();
        assert_eq!(quiet, "");
        let strict = compile_object("w.cl", WARNS, &options(false, true))
            .err()
            .unwrap();
        assert!(strict.contains("w.cl:1:53: error:"), "{strict}");
    }
}
