//! `libclift.so`: the OpenCL 1.2 ICD of clift.
//!
//! The ocl-icd loader opens this library, calls `clIcdGetPlatformIDsKHR`, and from then on
//! calls through the dispatch table at the start of every object. The entry points are also
//! exported under their own names, so a program can load the library directly.
//!
//! This crate is the C boundary only: it validates handles, reads the application's
//! arguments into Rust values, wraps its callbacks into closures ([`callback`]), calls
//! `clift_runtime`, and turns `ClResult`s into `cl_int`s. Nothing here panics across the
//! boundary ([`boundary`]).

// The entry points carry the C API's names.
#![allow(non_snake_case)]
// Each entry point's contract is the OpenCL specification's; their `# Safety` sections
// would all say "as the spec requires".
#![allow(clippy::missing_safety_doc)]

pub mod api;
mod boundary;
mod callback;
pub mod dispatch;
mod exit_report;
mod handle;
mod info;
mod trace;
