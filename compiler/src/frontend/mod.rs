//! The OpenCL C frontend: source → tokens → preprocessed tokens → syntax tree → typed tree.
//!
//! Each stage is its own module; all report into one [`diag::Diagnostics`] and keep going,
//! so one build reports every error it can find.

pub mod diag;
pub mod lex;
pub mod literal;
pub mod source;
pub mod token;
pub mod types;
