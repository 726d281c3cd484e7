//! Helpers of the example programs.

pub mod png;
