//! The OpenCL 1.2 C API as the clift driver implements it: types, constants and the layout of
//! the ICD dispatch table.
//!
//! Everything here is re-exported from [`opencl_sys`] (with its `static` feature off, so nothing
//! links against an OpenCL library) instead of being declared again, with two exceptions, each
//! documented where it is defined: constants and one typedef that opencl-sys 0.6.5 lacks or gets
//! wrong. What this crate adds is *checking*: the tests parse the installed Khronos C headers
//! (Debian's `opencl-c-headers`) and compare every constant, every 1.x typedef and the order of
//! every dispatch-table slot with them, because a single wrong number here is a silent ABI bug
//! in every application that loads the driver.
//!
//! - [`types`]: scalar typedefs, `cl_*_info` / `_flags` / `_type` / `_properties` typedefs,
//!   object handles and the structs `cl_image_format`, `cl_image_desc`, `cl_buffer_region`.
//! - [`constants`]: every OpenCL 1.0–1.2 constant of `cl.h` plus the `cl_khr_icd`, `cl_khr_fp16`
//!   and `cl_khr_fp64` ones, and [`CONSTANTS`], the same list as a `(name, value)` table.
//! - [`dispatch`]: [`IcdDispatch`], the `struct _cl_icd_dispatch` that the ICD loader reads from
//!   the first word of every object.
//! - [`fn_types`]: opencl-sys's `*_t` aliases, `Option<unsafe extern "C" fn(..)>` for each entry
//!   point, which are also the types of the dispatch slots.

pub mod constants;
pub mod dispatch;
pub mod types;

pub use constants::*;
pub use dispatch::*;
pub use opencl_sys::cl_function_types as fn_types;
pub use types::*;
