//! The OpenCL C frontend: source → tokens → preprocessed tokens → syntax tree → typed tree.
//!
//! Each stage is its own module; all report into one [`diag::Diagnostics`] and keep going,
//! so one build reports every error it can find.

pub mod ast;
pub mod diag;
pub mod lex;
pub mod literal;
pub mod parse;
pub mod preprocess;
pub mod sema;
pub mod source;
pub mod tir;
pub mod tir_print;
pub mod token;
pub mod types;

/// How far [`run`] takes a source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Until {
    /// Preprocessing only ([`Checked::tokens`]).
    Preprocess,
    /// Preprocessing and parsing ([`Checked::unit`] as well).
    Parse,
    /// Every stage: the typed tree ([`Checked::program`]).
    Sema,
}

/// What the frontend needs besides the source: the options of each stage and the
/// diagnostics' (`-w`, `-Werror`).
#[derive(Clone, Copy, Debug)]
pub struct Options<'a> {
    pub preprocess: &'a preprocess::PreprocessOptions,
    pub sema: &'a sema::Options,
    /// `-w`: warnings are dropped.
    pub suppress_warnings: bool,
    /// `-Werror`: warnings count as errors.
    pub warnings_are_errors: bool,
}

/// The result of running the frontend over one source.
pub struct Checked {
    pub sources: source::SourceMap,
    /// The preprocessed tokens (what a compiled object and a program binary keep as text).
    pub tokens: Vec<token::Token>,
    /// The syntax tree, kept only when the run stopped after parsing ([`Until::Parse`]).
    pub unit: Option<ast::TranslationUnit>,
    /// The typed tree (empty unless the run went [`Until::Sema`]).
    pub program: tir::Program,
    pub diagnostics: diag::Diagnostics,
    /// How long each stage took, in order (`CLIFT_LOG=build`, `CLIFT_PROFILE`).
    pub stage_times: Vec<(&'static str, std::time::Duration)>,
    /// Set when the run stopped because the next stage would not fit in the process's
    /// memory ([`crate::budget`]): the preprocessor refused to go on, or parsing would not
    /// fit. The stages after it did not run.
    pub out_of_memory: Option<crate::budget::OutOfMemory>,
}

impl Checked {
    /// The build log: every diagnostic, rendered.
    pub fn log(&self) -> String {
        self.diagnostics.render(&self.sources)
    }
}

/// The frontend pipeline, preprocess → parse → sema, over `text` (named `name` in
/// diagnostics), stopping after the stage `until` names. Every entry that reads OpenCL C
/// (a build, `clCompileProgram`, the offline compiler's stages, the checks of the tests)
/// runs this one function, so that they all see the same stages with the same options.
pub fn run(name: &str, text: &str, options: Options<'_>, until: Until) -> Checked {
    run_with(name, text, options, until, &mut |_| {})
}

/// [`run`], handing the preprocessed tokens to `on_parsed` once the parser is done with them
/// and before semantic analysis. A build takes what it needs of them there (the program
/// binary's text) and leaves them empty, so that they are not held beside the two trees at
/// the frontend's peak (a third of it on a large kernel).
pub fn run_with(
    name: &str,
    text: &str,
    options: Options<'_>,
    until: Until,
    on_parsed: &mut dyn FnMut(&mut Vec<token::Token>),
) -> Checked {
    let mut sources = source::SourceMap::new();
    let main = sources.add(name, text);
    let mut diagnostics = diag::Diagnostics::new();
    diagnostics.suppress_warnings = options.suppress_warnings;
    diagnostics.warnings_are_errors = options.warnings_are_errors;
    let mut stage_times = Vec::with_capacity(3);
    let mut last = std::time::Instant::now();
    let mut lap = |stage: &'static str| {
        let now = std::time::Instant::now();
        stage_times.push((stage, now - last));
        last = now;
    };
    let mut tokens =
        preprocess::preprocess(&mut sources, main, options.preprocess, &mut diagnostics);
    lap("preprocess");
    let mut unit = None;
    let mut program = tir::Program::default();
    let mut out_of_memory = crate::budget::take_refusal();
    if out_of_memory.is_none() && until >= Until::Parse {
        out_of_memory = crate::budget::check(
            "parsing",
            tokens.len().saturating_mul(crate::budget::PER_TOKEN),
        )
        .err();
    }
    if out_of_memory.is_none() && until >= Until::Parse {
        let parsed = parse::parse(&tokens, &mut diagnostics);
        lap("parse");
        on_parsed(&mut tokens);
        if until >= Until::Sema {
            program = sema::analyze(&parsed, options.sema, &mut diagnostics);
            lap("sema");
        } else {
            unit = Some(parsed);
        }
    }
    Checked {
        sources,
        tokens,
        unit,
        program,
        diagnostics,
        stage_times,
        out_of_memory,
    }
}

/// Preprocesses, parses and analyzes `text` (named `name` in diagnostics), warnings kept.
pub fn check(
    name: &str,
    text: &str,
    pp: &preprocess::PreprocessOptions,
    sema: &sema::Options,
) -> Checked {
    let options = Options {
        preprocess: pp,
        sema,
        suppress_warnings: false,
        warnings_are_errors: false,
    };
    run(name, text, options, Until::Sema)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_until(until: Until) -> Checked {
        let (pp, sema) = (
            preprocess::PreprocessOptions::default(),
            sema::Options::default(),
        );
        let options = Options {
            preprocess: &pp,
            sema: &sema,
            suppress_warnings: false,
            warnings_are_errors: false,
        };
        run(
            "p.cl",
            "kernel void k(global int *o) { o[0] = 1; }",
            options,
            until,
        )
    }

    #[test]
    fn the_pipeline_stops_after_the_stage_asked_for() {
        let stages = |c: &Checked| c.stage_times.iter().map(|(s, _)| *s).collect::<Vec<_>>();
        let tokens = run_until(Until::Preprocess);
        assert_eq!(stages(&tokens), ["preprocess"]);
        assert!(tokens.tokens.len() > 10 && tokens.unit.is_none());
        assert!(tokens.program.functions.is_empty());
        let parsed = run_until(Until::Parse);
        assert_eq!(stages(&parsed), ["preprocess", "parse"]);
        assert_eq!(parsed.unit.as_ref().map(|u| u.items.len()), Some(1));
        let typed = run_until(Until::Sema);
        assert_eq!(stages(&typed), ["preprocess", "parse", "sema"]);
        assert!(typed.unit.is_none());
        assert_eq!(typed.program.kernels().count(), 1);
        assert_eq!(typed.log(), "");
    }
}
