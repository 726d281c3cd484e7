//! Kernel launches: `clEnqueueNDRangeKernel` and `clEnqueueTask`.

use std::mem::ManuallyDrop;
use std::sync::Arc;

use clift_runtime::command::launch::Launch;
use clift_runtime::kernel::Kernel;
use clift_runtime::queue::Queue;
use clift_runtime::{ClResult, fail};
use khronos_headers::*;

use super::event::{return_event, wait_list};
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

/// An application's reference, borrowed for the call (see `handle::borrowed`).
type Borrowed<T> = ManuallyDrop<Arc<T>>;

/// The queue and the kernel of a launch: "CL_INVALID_CONTEXT if context associated with
/// command_queue and kernel are not the same".
///
/// Both are the application's references, borrowed for the call (see `handle::borrowed`).
fn queue_and_kernel(
    command_queue: cl_command_queue,
    kernel: cl_kernel,
) -> ClResult<(Borrowed<Queue>, Borrowed<Kernel>)> {
    let queue = handle::borrowed::<Queue>(command_queue)?;
    crate::boundary::note_context(queue.context());
    let kernel = handle::borrowed::<Kernel>(kernel)?;
    if !Arc::ptr_eq(queue.context(), kernel.program().context()) {
        return fail(CL_INVALID_CONTEXT);
    }
    Ok((queue, kernel))
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
        let (queue, kernel) = queue_and_kernel(command_queue, kernel)?;
        // SAFETY: the application's wait list.
        let waits = unsafe { wait_list(&queue, event_wait_list, num_events_in_wait_list) }?;
        let dims = (work_dim as usize).min(3);
        // SAFETY: each array is NULL or holds `work_dim` entries.
        let (offset, global, local) = unsafe {
            (
                sizes(global_work_offset, dims),
                sizes(global_work_size, dims),
                sizes(local_work_size, dims),
            )
        };
        // With no event pointer, the queue keeps the event's only references.
        let returned = !event.is_null();
        let launched = Launch::enqueue_ndrange(
            &queue, &kernel, work_dim, offset, global, local, waits, returned,
        )?;
        if let Some(launched) = launched {
            return_event(launched, event);
        }
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clEnqueueTask(
    command_queue: cl_command_queue,
    kernel: cl_kernel,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    call("clEnqueueTask", || {
        let (queue, kernel) = queue_and_kernel(command_queue, kernel)?;
        // SAFETY: the application's wait list.
        let waits = unsafe { wait_list(&queue, event_wait_list, num_events_in_wait_list) }?;
        return_event(Launch::enqueue_task(&queue, &kernel, waits)?, event);
        Ok(())
    })
}
