//! A program build: OpenCL C source and options in, kernels and a build log out.

use std::sync::Arc;

use crate::budget;
use crate::codegen::{self, CodegenOptions};
use crate::frontend::{self, preprocess::PreprocessOptions, sema};
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

/// The time of each stage of a build.
struct StageClock {
    last: std::time::Instant,
    laps: Vec<(&'static str, std::time::Duration)>,
}

impl StageClock {
    fn start() -> StageClock {
        StageClock {
            last: std::time::Instant::now(),
            laps: Vec::with_capacity(4),
        }
    }

    /// Records the time since the previous lap as `stage`'s.
    fn lap(&mut self, stage: &'static str) {
        let now = std::time::Instant::now();
        self.laps.push((stage, now - self.last));
        self.last = now;
    }
}

/// `CLIFT_DUMP_TIR`: print each build's typed tree (what code generation starts from) to
/// stderr.
fn dump_tir() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    codegen::env_flag("CLIFT_DUMP_TIR", &ON)
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
/// Each stage's memory is checked before it runs ([`budget`]), and what a stage no longer
/// needs is dropped before the next one starts: the peak is the typed tree plus one
/// stage's working memory, not every stage's output at once.
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
    let mut sources = frontend::source::SourceMap::new();
    let main = sources.add(name, source);
    let mut diags = frontend::diag::Diagnostics::new();
    diags.suppress_warnings = options.suppress_warnings;
    diags.warnings_are_errors = options.warnings_are_errors;
    let mut clock = StageClock::start();
    let tokens =
        frontend::preprocess::preprocess(&mut sources, main, &options.preprocess, &mut diags);
    clock.lap("preprocess");
    if let Some(e) = budget::take_refusal() {
        return Err(out_of_memory(diags.render(&sources), e));
    }
    budget::check("parsing", tokens.len().saturating_mul(budget::PER_TOKEN))
        .map_err(|e| out_of_memory(diags.render(&sources), e))?;
    // The program binary's text; the tokens are not needed past the parser.
    let preprocessed = render(&tokens);
    let token_count = tokens.len();
    let unit = frontend::parse::parse(&tokens, &mut diags);
    drop(tokens);
    clock.lap("parse");
    let program = sema::analyze(&unit, &options.sema, &mut diags);
    drop(unit);
    clock.lap("sema");
    if !diags.has_errors() {
        for u in codegen::link::unresolved(&program) {
            diags.error(u.span, u.message());
            diags.note(u.declared, format!("'{}' is declared here", u.name));
        }
    }
    let log = diags.render(&sources);
    if diags.has_errors() {
        return Err(BuildFailure::Log(log));
    }
    if dump_tir() {
        eprintln!(
            "; clift: typed tree of {name}\n{}",
            frontend::tir_print::print(&program)
        );
    }
    budget::check(
        "code generation",
        token_count.saturating_mul(budget::CODEGEN_PER_TOKEN),
    )
    .map_err(|e| out_of_memory(log.clone(), e))?;
    let compiled = codegen::compile(&program, &options.codegen);
    clock.lap("codegen");
    match compiled {
        Ok(kernels) => Ok(Built {
            kernels: kernels.into_iter().map(Arc::new).collect(),
            log,
            preprocessed,
            stage_times: clock.laps,
        }),
        Err(e) => Err(BuildFailure::Log(format!("{log}{name}: error: {e}\n"))),
    }
}

/// The typed tree of `source` (what code generation starts from), for analyses and their
/// tests. On failure, the error is the build log.
pub fn typed_tree(
    name: &str,
    source: &str,
    options: &BuildOptions,
) -> Result<frontend::tir::Program, String> {
    let mut sources = frontend::source::SourceMap::new();
    let main = sources.add(name, source);
    let mut diags = frontend::diag::Diagnostics::new();
    let tokens =
        frontend::preprocess::preprocess(&mut sources, main, &options.preprocess, &mut diags);
    let unit = frontend::parse::parse(&tokens, &mut diags);
    let program = sema::analyze(&unit, &options.sema, &mut diags);
    if diags.has_errors() {
        return Err(diags.render(&sources));
    }
    Ok(program)
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
    let mut sources = frontend::source::SourceMap::new();
    let main = sources.add(name, source);
    let mut diags = frontend::diag::Diagnostics::new();
    diags.suppress_warnings = options.suppress_warnings;
    diags.warnings_are_errors = options.warnings_are_errors;
    let tokens =
        frontend::preprocess::preprocess(&mut sources, main, &options.preprocess, &mut diags);
    // A program that would not fit in memory stops in the preprocessor (`budget`).
    if let Some(e) = budget::take_refusal() {
        return Err(format!("{}{name}: error: {e}\n", diags.render(&sources)));
    }
    let unit = frontend::parse::parse(&tokens, &mut diags);
    let _ = sema::analyze(&unit, &options.sema, &mut diags);
    let log = diags.render(&sources);
    if diags.has_errors() {
        return Err(log);
    }
    Ok((render(&tokens), log))
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
