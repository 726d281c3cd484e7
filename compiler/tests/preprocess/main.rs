//! The preprocessor's tests: each runs a program through `lex::tokenize`'s and
//! `preprocess`'s public API and checks the tokens (joined by single spaces) and the
//! rendered diagnostics exactly.
//!
//! `golden/` holds whole programs (`X.cl`) with their expected output (`X.expected`, C text
//! compared token by token) and, where there are diagnostics, the expected build log
//! (`X.diag`); `golden/include/` is their `-I` directory. `CLIFT_BLESS=1` rewrites the
//! `.diag` files (read the diff before keeping it).

mod conditionals;
mod directives;
mod garbage;
mod macros;
mod predefined;

use std::path::{Path, PathBuf};

use clift_compiler::frontend::diag::Diagnostics;
use clift_compiler::frontend::lex;
use clift_compiler::frontend::preprocess::{PreprocessOptions, preprocess};
use clift_compiler::frontend::source::SourceMap;
use clift_compiler::frontend::token::{Token, TokenKind};

/// One preprocessed program.
pub struct Run {
    pub tokens: Vec<Token>,
    pub diags: Diagnostics,
    pub sources: SourceMap,
}

impl Run {
    /// The output tokens' spellings joined by single spaces (`Eof` left out).
    pub fn text(&self) -> String {
        join(&self.tokens)
    }

    /// The build log.
    pub fn log(&self) -> String {
        self.diags.render(&self.sources)
    }

    /// The diagnostics' messages, in order.
    pub fn messages(&self) -> Vec<String> {
        self.diags.iter().map(|d| d.message.clone()).collect()
    }
}

pub fn join(tokens: &[Token]) -> String {
    tokens
        .iter()
        .filter(|t| t.kind != TokenKind::Eof)
        .map(|t| &*t.text)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Preprocesses `text` as the file `t.cl` with `options` and `diags`' settings.
pub fn run_with(text: &str, options: &PreprocessOptions, mut diags: Diagnostics) -> Run {
    let mut sources = SourceMap::new();
    let main = sources.add("t.cl", text);
    let tokens = preprocess(&mut sources, main, options, &mut diags);
    assert_eq!(
        tokens.iter().filter(|t| t.kind == TokenKind::Eof).count(),
        1,
        "one Eof"
    );
    assert_eq!(
        tokens.last().map(|t| t.kind),
        Some(TokenKind::Eof),
        "Eof last"
    );
    Run {
        tokens,
        diags,
        sources,
    }
}

pub fn run(text: &str) -> Run {
    run_with(text, &PreprocessOptions::default(), Diagnostics::new())
}

/// The output of a program that must preprocess without any diagnostic.
pub fn clean(text: &str) -> String {
    let r = run(text);
    assert_eq!(r.log(), "", "unexpected diagnostics for {text:?}");
    r.text()
}

/// C text as tokens joined by single spaces: how expected outputs are written.
pub fn norm(text: &str) -> String {
    let mut diags = Diagnostics::new();
    let mut sources = SourceMap::new();
    let file = sources.add("expected", text);
    join(&lex::tokenize(file, text, &mut diags))
}

/// A fresh scratch directory for tests that need files on disk.
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("clift-pp-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/preprocess/golden")
}

#[test]
fn golden_programs() {
    let dir = golden_dir();
    let bless = std::env::var_os("CLIFT_BLESS").is_some();
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("golden dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "cl"))
        .collect();
    names.sort();
    assert!(names.len() >= 7, "golden programs missing");
    for path in names {
        let text = std::fs::read_to_string(&path).expect("read golden program");
        let file_name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or("?")
            .to_string();
        let options = PreprocessOptions {
            include_dirs: vec![dir.join("include")],
            ..PreprocessOptions::default()
        };
        let mut sources = SourceMap::new();
        let main = sources.add(&file_name, &text);
        let mut diags = Diagnostics::new();
        let tokens = preprocess(&mut sources, main, &options, &mut diags);
        let expected =
            std::fs::read_to_string(path.with_extension("expected")).expect("read .expected");
        assert_eq!(join(&tokens), norm(&expected), "output of {file_name}");
        let log = diags
            .render(&sources)
            .replace(&dir.display().to_string(), "golden");
        let diag_path = path.with_extension("diag");
        if bless && !log.is_empty() {
            std::fs::write(&diag_path, &log).expect("bless");
        }
        let expected_log = std::fs::read_to_string(&diag_path).unwrap_or_default();
        assert_eq!(log, expected_log, "diagnostics of {file_name}");
    }
}
