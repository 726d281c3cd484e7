//! clift's OpenCL C compiler: source and options in, JIT'd work-group functions and
//! diagnostics out.
//!
//! Today it holds the machine-code end of the pipeline ([`jit`]): the host ISA with the
//! features the CPU really has, and the JIT module a program build compiles into. The
//! frontend (preprocessor, parser, semantic analysis) and the lowering to Cranelift IR come
//! with their issues. The crate knows nothing of the runtime or the C API.

pub mod budget;
pub mod build;
pub mod codegen;
pub mod frontend;
pub mod jit;
pub mod kernel;
pub mod passes;
pub mod stages;

/// The `printf` output buffer the runtime gives each launch.
pub mod printf {
    pub use clift_builtins::printf::PrintfBuffer;
}
