//! The `extern "C"` entry points, one file per object family.
//!
//! Each function validates its handles, reads the application's arguments into Rust values
//! (a NULL array becomes `None`; callbacks become closures, `crate::callback`), calls the
//! runtime, and returns the result through `boundary`. The enqueue calls hand their values
//! to a command type of `clift_runtime::command`, which holds every other check of the
//! command (the spec's sentence for each error beside it) and its execution.

pub(crate) mod context;
mod device;
mod event;
mod extension;
mod image;
mod kernel;
mod launch;
mod memory;
mod platform;
pub(crate) mod program;
pub(crate) mod queue;
mod sampler;
mod sync;
mod transfer;

pub use context::*;
pub use device::*;
pub use event::*;
pub use extension::*;
pub use image::*;
pub use kernel::*;
pub use launch::*;
pub use memory::*;
pub use platform::*;
pub use program::*;
pub use queue::*;
pub use sampler::*;
pub use sync::*;
pub use transfer::*;

/// Writes up to `capacity` items to `out` (when not NULL) and the total count to `count_ret`
/// (when not NULL): the shape of `clGetPlatformIDs`, `clGetDeviceIDs` and friends.
///
/// # Safety
/// `out` must be NULL or valid for `capacity` writes; `count_ret` NULL or valid for a write.
pub(crate) unsafe fn write_list<T: Copy>(
    items: &[T],
    out: *mut T,
    capacity: khronos_headers::cl_uint,
    count_ret: *mut khronos_headers::cl_uint,
) {
    if !out.is_null() {
        for (i, item) in items.iter().take(capacity as usize).enumerate() {
            // SAFETY: `i < capacity`, within the caller's buffer.
            unsafe { out.add(i).write(*item) };
        }
    }
    if !count_ret.is_null() {
        // SAFETY: the caller's contract.
        unsafe { count_ret.write(items.len() as khronos_headers::cl_uint) };
    }
}
