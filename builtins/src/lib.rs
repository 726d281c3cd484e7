//! The OpenCL C 1.2 builtin library of clift.
//!
//! - [`signatures`]: every builtin function's overloads, generated from one table written
//!   in the specification's own notation (`gentype`, `intn`, ...). The compiler resolves
//!   builtin calls against it; nothing else lists builtins by hand.
//! - [`types`]: the scalar types shared with the compiler and the type language of that table.

pub mod signatures;
pub mod types;
