//! The OpenCL C 1.2 builtin library of clift.
//!
//! - [`signatures`]: every builtin function's overloads, generated from one table written
//!   in the specification's own notation (`gentype`, `intn`, ...), with each builtin's
//!   attributes (pure, reads or writes memory, work-item query, synchronizes, varying). The
//!   compiler resolves builtin calls against it to a `BuiltinId`; nothing else lists
//!   builtins by hand.
//! - [`types`]: the scalar types shared with the compiler and the type language of that table.
//! - [`convert`], [`half`], [`integer`]: `convert_*` (6.2.3), the half conversions of
//!   `vload_half`/`vstore_half` (6.12.7) and the integer functions (6.12.3): the `extern "C"`
//!   functions compiled kernels call by symbol, each module's `symbols()`, and exact reference
//!   definitions for tests and constant folding.
//! - [`image`]: image formats, chapter 8's addressing and filtering, and the image read
//!   and write functions kernels call (6.12.14).
//! - [`math`]: the scalar math functions of 6.12.2 for `float` and `double` (and the `half_`
//!   and `native_` ones), within the ULP bounds of section 7.4, by symbol (`math::symbols()`).

pub mod abi;
pub mod convert;
pub mod half;
pub mod image;
pub mod integer;
pub mod math;
pub mod printf;
pub mod safe;
pub mod signatures;
pub mod types;
