//! Helpers for `against_c_headers.rs`: a reader for the Khronos C headers and a C constant
//! expression evaluator, each with its own unit tests.

pub mod ctypes;
pub mod eval;
pub mod header;
