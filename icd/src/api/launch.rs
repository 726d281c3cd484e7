//! Kernel launches: `clEnqueueNDRangeKernel` and `clEnqueueTask`.
//!
//! No kernel object can exist until the OpenCL C compiler lands (`clCreateKernel` answers
//! `CL_INVALID_PROGRAM_EXECUTABLE`), so after the queue and wait list are checked, the kernel
//! is not a valid kernel (`kernel_handle_error`).

use clift_runtime::{ClResult, fail};
use khronos_headers::*;

use super::event::wait_list;
use super::kernel::kernel_handle_error;
use super::queue::queue;
use crate::boundary::call;

/// # Safety
/// `waits` must be NULL or valid for `num_waits` reads.
unsafe fn launch(
    command_queue: cl_command_queue,
    kernel: cl_kernel,
    num_waits: cl_uint,
    waits: *const cl_event,
) -> ClResult<()> {
    let queue = queue(command_queue)?;
    // SAFETY: forwarded contract.
    unsafe { wait_list(queue, waits, num_waits) }?;
    fail(kernel_handle_error(kernel))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clEnqueueNDRangeKernel(
    command_queue: cl_command_queue,
    kernel: cl_kernel,
    _work_dim: cl_uint,
    _global_work_offset: *const usize,
    _global_work_size: *const usize,
    _local_work_size: *const usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    _event: *mut cl_event,
) -> cl_int {
    call("clEnqueueNDRangeKernel", || {
        // SAFETY: the application's wait list.
        unsafe {
            launch(
                command_queue,
                kernel,
                num_events_in_wait_list,
                event_wait_list,
            )
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clEnqueueTask(
    command_queue: cl_command_queue,
    kernel: cl_kernel,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    _event: *mut cl_event,
) -> cl_int {
    call("clEnqueueTask", || {
        // SAFETY: the application's wait list.
        unsafe {
            launch(
                command_queue,
                kernel,
                num_events_in_wait_list,
                event_wait_list,
            )
        }
    })
}
