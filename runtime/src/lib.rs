//! clift's runtime: the OpenCL object model and execution engine.
//!
//! It knows nothing of the C boundary: objects are Rust values in `Arc`s, operations return
//! [`ClResult`], every `clEnqueue*` operation is a type in [`command`] that checks its
//! arguments and does its work, and the application's callbacks (event, destructor and
//! context notifications, native kernels) arrive as Rust closures: the runtime calls no C
//! function pointer. The `icd` crate validates handles, reads the C arguments into Rust
//! values, wraps the callbacks, calls in here and turns the results into C return values.

pub mod build_cache;
pub mod command;
pub mod config;
pub mod context;
pub mod device;
pub mod error;
pub mod event;
pub mod fault;
pub mod image;
pub mod kernel;
pub mod log;
pub mod memory;
pub mod object;
pub mod platform;
pub mod profile;
pub mod program;
pub mod program_binary;
pub mod queue;
pub mod sampler;
pub mod scheduler;
pub mod topology;
pub mod watchdog;

pub use error::{ClError, ClResult, fail};
