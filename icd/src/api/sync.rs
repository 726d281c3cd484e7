//! Markers, barriers and native kernels.

use std::ffi::c_void;

use clift_runtime::command::native::{NativeArgs, NativeKernel};
use clift_runtime::command::sync::SyncPoint;
use clift_runtime::{ClResult, fail};
use khronos_headers::*;

use super::event::{enqueue, wait_list};
use super::memory::buffer_for;
use super::queue::shared_queue;
use crate::boundary::call;

/// Markers and barriers: with a wait list they wait for it; without one, for every command
/// enqueued before them. A barrier also holds back every later command.
///
/// # Safety
/// `waits` must be NULL or valid for `num_waits` reads.
unsafe fn sync_point(
    command_queue: cl_command_queue,
    barrier: bool,
    num_waits: cl_uint,
    waits: *const cl_event,
    event: *mut cl_event,
) -> ClResult<()> {
    let queue = shared_queue(command_queue)?;
    // SAFETY: forwarded contract.
    let waits = unsafe { wait_list(&queue, waits, num_waits) }?;
    let point = SyncPoint::new(barrier, !waits.is_empty());
    enqueue(&queue, point, waits, false, event)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clEnqueueMarkerWithWaitList(
    command_queue: cl_command_queue,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    call("clEnqueueMarkerWithWaitList", || {
        // SAFETY: the application's wait list.
        unsafe {
            sync_point(
                command_queue,
                false,
                num_events_in_wait_list,
                event_wait_list,
                event,
            )
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clEnqueueBarrierWithWaitList(
    command_queue: cl_command_queue,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    call("clEnqueueBarrierWithWaitList", || {
        // SAFETY: the application's wait list.
        unsafe {
            sync_point(
                command_queue,
                true,
                num_events_in_wait_list,
                event_wait_list,
                event,
            )
        }
    })
}

/// OpenCL 1.1's marker: waits for every earlier command and returns an event.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clEnqueueMarker(
    command_queue: cl_command_queue,
    event: *mut cl_event,
) -> cl_int {
    call("clEnqueueMarker", || {
        // "CL_INVALID_VALUE if event is a NULL value."
        if event.is_null() {
            shared_queue(command_queue)?;
            return fail(CL_INVALID_VALUE);
        }
        // SAFETY: an empty wait list.
        unsafe { sync_point(command_queue, false, 0, std::ptr::null(), event) }
    })
}

/// OpenCL 1.1's barrier: later commands wait for every earlier one.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clEnqueueBarrier(command_queue: cl_command_queue) -> cl_int {
    call("clEnqueueBarrier", || {
        // SAFETY: an empty wait list.
        unsafe {
            sync_point(
                command_queue,
                true,
                0,
                std::ptr::null(),
                std::ptr::null_mut(),
            )
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clEnqueueNativeKernel(
    command_queue: cl_command_queue,
    user_func: Option<unsafe extern "C" fn(*mut c_void)>,
    args: *mut c_void,
    cb_args: usize,
    num_mem_objects: cl_uint,
    mem_list: *const cl_mem,
    args_mem_loc: *mut *const c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    call("clEnqueueNativeKernel", || {
        let queue = shared_queue(command_queue)?;
        let count = num_mem_objects as usize;
        let func = user_func.map(crate::callback::native_kernel);
        // SAFETY: a non-NULL `args` holds `cb_args` bytes, a non-NULL `args_mem_loc`
        // `num_mem_objects` locations (the application's contract).
        let block = (!args.is_null())
            .then(|| unsafe { std::slice::from_raw_parts(args.cast::<u8>(), cb_args) });
        let locs = (!args_mem_loc.is_null()).then(|| {
            // SAFETY: as above.
            let locs = unsafe { std::slice::from_raw_parts(args_mem_loc, count) };
            locs.iter().map(|&l| l as usize).collect::<Vec<_>>()
        });
        let native = NativeArgs {
            func,
            block,
            block_address: args as usize,
            cb_args,
            num_mem_objects: count,
            has_mem_list: !mem_list.is_null(),
            mem_locs: locs.as_deref(),
        };
        let command = NativeKernel::new(native, |i| {
            // SAFETY: `mem_list` holds `num_mem_objects` handles (checked non-NULL when
            // there are any).
            let handle = unsafe { mem_list.add(i).read() };
            if handle.is_null() {
                return Ok(None);
            }
            buffer_for(queue.context(), handle).map(Some)
        })?;
        // SAFETY: the application's wait list.
        let waits = unsafe { wait_list(&queue, event_wait_list, num_events_in_wait_list) }?;
        enqueue(&queue, command, waits, false, event)
    })
}
