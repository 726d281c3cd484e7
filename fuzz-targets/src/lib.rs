//! The entry functions of clift's fuzz targets.
//!
//! Each is a plain function from bytes to nothing that must neither panic, abort nor hang,
//! whatever the bytes. `fuzz/` (a `cargo fuzz` project of its own, on nightly Rust with
//! libFuzzer) calls them with coverage-guided inputs; `tests/replay.rs` calls them on
//! stable Rust over the kept corpora in `fuzz/corpora/<target>/` and a few seconds of
//! generated inputs, so that CI replays every finding ever fixed.
//!
//! The targets, from the first stage of the compiler to the API:
//! - [`preprocess`]: the preprocessor alone (macros, conditionals, includes, pragmas).
//! - [`parse`]: preprocessing and parsing.
//! - [`sema`]: the whole frontend: preprocessing, parsing and semantic analysis.
//! - [`compile`]: source to machine code, as `clBuildProgram` does it (options included).
//! - [`api`]: sequences of API calls with fuzzed sizes, offsets and flags ([`api`]).

pub mod api;
mod compiler;
pub mod generate;

pub use compiler::{compile, parse, preprocess, sema};

/// A target's entry function.
pub type Target = fn(&[u8]);

/// The fuzz targets by name (the names of `fuzz/fuzz_targets/*.rs` and of the corpus
/// folders).
pub const TARGETS: &[(&str, Target)] = &[
    ("preprocess", preprocess),
    ("parse", parse),
    ("sema", sema),
    ("compile", compile),
    ("api", api::run),
];
