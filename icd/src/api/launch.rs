//! Kernel launches: `clEnqueueNDRangeKernel` and `clEnqueueTask`.

use std::sync::Arc;

use clift_runtime::kernel::Kernel;
use clift_runtime::queue::QueueOrder;
use clift_runtime::{ClResult, fail};
use khronos_headers::*;

use super::event::{submit, wait_list};
use super::queue::shared_queue;
use crate::boundary::call;
use crate::handle;

/// Reads the first `dims` entries of a `size_t` array the application passed (NULL stays
/// `None`).
///
/// # Safety
/// `p` must be NULL or valid for `dims` reads.
unsafe fn sizes(p: *const usize, dims: usize) -> Option<[usize; 3]> {
    if p.is_null() {
        return None;
    }
    let mut v = [0; 3];
    for (d, slot) in v.iter_mut().enumerate().take(dims) {
        // SAFETY: the caller's contract.
        *slot = unsafe { p.add(d).read() };
    }
    Some(v)
}

/// The body of both launch calls.
///
/// # Safety
/// The arrays and the wait list as `clEnqueueNDRangeKernel` describes them.
#[allow(clippy::too_many_arguments)]
unsafe fn launch(
    command_queue: cl_command_queue,
    kernel: cl_kernel,
    command_type: cl_command_type,
    work_dim: cl_uint,
    offset: *const usize,
    global: *const usize,
    local: *const usize,
    num_waits: cl_uint,
    waits: *const cl_event,
    event: *mut cl_event,
) -> ClResult<()> {
    let queue = shared_queue(command_queue)?;
    let kernel = handle::shared::<Kernel>(kernel)?;
    // "CL_INVALID_CONTEXT if context associated with command_queue and kernel are not the
    // same".
    if !Arc::ptr_eq(queue.context(), kernel.program().context()) {
        return fail(CL_INVALID_CONTEXT);
    }
    // SAFETY: the application's wait list.
    let waits = unsafe { wait_list(&queue, waits, num_waits) }?;
    let dims = (work_dim as usize).min(3);
    // SAFETY: each array is NULL or holds `work_dim` entries.
    let (offset, global, local) =
        unsafe { (sizes(offset, dims), sizes(global, dims), sizes(local, dims)) };
    let device = Arc::clone(queue.device());
    let range = kernel.ndrange(&device, work_dim, offset, global, local)?;
    let prepared = kernel.prepare(&device)?;
    let work = Box::new(move || prepared.run(&device, range));
    submit(
        &queue,
        command_type,
        waits,
        QueueOrder::Command,
        false,
        event,
        work,
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clEnqueueNDRangeKernel(
    command_queue: cl_command_queue,
    kernel: cl_kernel,
    work_dim: cl_uint,
    global_work_offset: *const usize,
    global_work_size: *const usize,
    local_work_size: *const usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    call("clEnqueueNDRangeKernel", || {
        // SAFETY: the application's arguments, as this entry point describes them.
        unsafe {
            launch(
                command_queue,
                kernel,
                CL_COMMAND_NDRANGE_KERNEL,
                work_dim,
                global_work_offset,
                global_work_size,
                local_work_size,
                num_events_in_wait_list,
                event_wait_list,
                event,
            )
        }
    })
}

/// "The kernel is executed using a single work-item": an NDRange of one item in one group.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clEnqueueTask(
    command_queue: cl_command_queue,
    kernel: cl_kernel,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    let one = [1usize; 3];
    call("clEnqueueTask", || {
        // SAFETY: `one` holds the sizes; the wait list is the application's.
        unsafe {
            launch(
                command_queue,
                kernel,
                CL_COMMAND_TASK,
                1,
                std::ptr::null(),
                one.as_ptr(),
                one.as_ptr(),
                num_events_in_wait_list,
                event_wait_list,
                event,
            )
        }
    })
}
