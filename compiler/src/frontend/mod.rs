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

/// The result of running the frontend over one source.
pub struct Checked {
    pub sources: source::SourceMap,
    pub program: tir::Program,
    pub diagnostics: diag::Diagnostics,
}

impl Checked {
    /// The build log: every diagnostic, rendered.
    pub fn log(&self) -> String {
        self.diagnostics.render(&self.sources)
    }
}

/// Preprocesses, parses and analyzes `text` (named `name` in diagnostics).
pub fn check(
    name: &str,
    text: &str,
    pp: &preprocess::PreprocessOptions,
    sema: &sema::Options,
) -> Checked {
    let mut sources = source::SourceMap::new();
    let main = sources.add(name, text);
    let mut diagnostics = diag::Diagnostics::new();
    let tokens = preprocess::preprocess(&mut sources, main, pp, &mut diagnostics);
    let unit = parse::parse(&tokens, &mut diagnostics);
    let program = sema::analyze(&unit, sema, &mut diagnostics);
    Checked {
        sources,
        program,
        diagnostics,
    }
}
