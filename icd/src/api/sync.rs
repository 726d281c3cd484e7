//! Markers, barriers and native kernels.

use std::ffi::c_void;
use std::sync::Arc;

use clift_runtime::queue::{QueueOrder, Work};
use clift_runtime::{ClResult, fail};
use khronos_headers::*;

use super::event::{submit, wait_list};
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
    command_type: cl_command_type,
    barrier: bool,
    num_waits: cl_uint,
    waits: *const cl_event,
    event: *mut cl_event,
) -> ClResult<()> {
    let queue = shared_queue(command_queue)?;
    // SAFETY: forwarded contract.
    let waits = unsafe { wait_list(&queue, waits, num_waits) }?;
    // "waits for either a list of events to complete, or if the list is empty it waits for
    // all commands previously enqueued"; a barrier also holds back every later command.
    let order = match (barrier, waits.is_empty()) {
        (true, after_all) => QueueOrder::Barrier { after_all },
        (false, true) => QueueOrder::AfterAll,
        (false, false) => QueueOrder::Command,
    };
    let noop: Work = Box::new(|| Ok(()));
    submit(&queue, command_type, waits, order, false, event, noop)
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
                CL_COMMAND_MARKER,
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
                CL_COMMAND_BARRIER,
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
        unsafe {
            sync_point(
                command_queue,
                CL_COMMAND_MARKER,
                false,
                0,
                std::ptr::null(),
                event,
            )
        }
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
                CL_COMMAND_BARRIER,
                true,
                0,
                std::ptr::null(),
                std::ptr::null_mut(),
            )
        }
    })
}

/// A native kernel's argument block, with the memory-object handles it contains replaced by
/// the objects' addresses when it runs.
struct NativeArgs {
    block: Vec<u8>,
    /// Where in `block` each memory object's pointer goes.
    slots: Vec<(usize, Option<Arc<clift_runtime::memory::Mem>>)>,
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
        // "CL_INVALID_VALUE if user_func is NULL", "if args is a NULL value and cb_args > 0,
        // or if args is a NULL value and num_mem_objects > 0", "if args is not NULL and
        // cb_args is 0", "if num_mem_objects > 0 and mem_list or args_mem_loc are NULL",
        // "if num_mem_objects = 0 and mem_list or args_mem_loc are not NULL".
        let Some(func) = user_func else {
            return fail(CL_INVALID_VALUE);
        };
        if (args.is_null() && (cb_args > 0 || num_mem_objects > 0))
            || (!args.is_null() && cb_args == 0)
        {
            return fail(CL_INVALID_VALUE);
        }
        let has_mem = num_mem_objects > 0;
        if has_mem == mem_list.is_null() || has_mem == args_mem_loc.is_null() {
            return fail(CL_INVALID_VALUE);
        }
        // "CL_INVALID_OPERATION if the device associated with command_queue cannot execute
        // the native kernel": clift's CPU device can.
        // The block is copied now ("the memory pointed to by args can be reused").
        let block = if args.is_null() {
            Vec::new()
        } else {
            // SAFETY: `args` holds `cb_args` bytes.
            unsafe { std::slice::from_raw_parts(args.cast::<u8>(), cb_args) }.to_vec()
        };
        let mut slots = Vec::with_capacity(num_mem_objects as usize);
        for i in 0..num_mem_objects as usize {
            // SAFETY: both arrays hold `num_mem_objects` entries.
            let (handle, loc) = unsafe { (mem_list.add(i).read(), args_mem_loc.add(i).read()) };
            // "The buffer object values specified in mem_list are memory object handles
            // (cl_mem values) returned by clCreateBuffer or NULL"; otherwise
            // "CL_INVALID_MEM_OBJECT if one or more memory objects specified in mem_list are
            // not valid or are not buffer objects."
            let mem = if handle.is_null() {
                None
            } else {
                Some(buffer_for(queue.context(), handle)?)
            };
            let offset = (loc as usize).wrapping_sub(args as usize);
            if offset
                .checked_add(size_of::<*mut c_void>())
                .is_none_or(|end| end > cb_args)
            {
                return fail(CL_INVALID_VALUE);
            }
            slots.push((offset, mem));
        }
        // SAFETY: the application's wait list.
        let waits = unsafe { wait_list(&queue, event_wait_list, num_events_in_wait_list) }?;
        let mut native = NativeArgs { block, slots };
        let work: Work = Box::new(move || {
            for (offset, mem) in &native.slots {
                let address = mem.as_ref().map_or(0, |m| m.base() as usize);
                native.block[*offset..*offset + size_of::<usize>()]
                    .copy_from_slice(&address.to_ne_bytes());
            }
            let ptr = if native.block.is_empty() {
                std::ptr::null_mut()
            } else {
                native.block.as_mut_ptr().cast()
            };
            // SAFETY: the application's function, called with its argument block as the spec
            // describes, memory objects replaced by pointers to their storage.
            unsafe { func(ptr) };
            Ok(())
        });
        submit(
            &queue,
            CL_COMMAND_NATIVE_KERNEL,
            waits,
            QueueOrder::Command,
            false,
            event,
            work,
        )
    })
}
