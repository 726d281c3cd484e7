//! Buffer commands: read, write, copy (linear and rectangular), fill, map, unmap, migrate;
//! and what the image commands share with them (the queue, object and wait-list step, and
//! the reading of `size_t[3]` arrays).
//!
//! Each entry point resolves its handles, reads the application's arrays into Rust values,
//! and hands them to the command's type in `clift_runtime::command`, which checks them and
//! does the work when the command runs.

use std::ffi::c_void;
use std::sync::Arc;

use clift_runtime::command::buffer::{BufferTransfer, CopyBuffer, FillBuffer};
use clift_runtime::command::map::{Map, Unmap};
use clift_runtime::command::migrate::Migrate;
use clift_runtime::command::rect::{BufferRectTransfer, CopyBufferRect, RectArgs};
use clift_runtime::command::{HostAccess, HostPtr};
use clift_runtime::memory::Mem;
use clift_runtime::queue::Queue;
use clift_runtime::{ClResult, fail};
use khronos_headers::*;

use super::event::{enqueue, return_event, wait_list};
use super::memory::buffer_for;
use super::queue::shared_queue;
use crate::boundary::{call, call_ret};

pub(super) type Waits = Vec<Arc<clift_runtime::event::Event>>;

/// Which memory objects a command takes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Takes {
    Buffer,
    Image,
    Any,
}

/// Everything an enqueue call shares: the queue, the memory object and the wait list,
/// validated: "CL_INVALID_MEM_OBJECT if buffer is not a valid buffer object" (an image is
/// not one) and "if image is not a valid image object".
///
/// # Safety
/// `waits` must be NULL or valid for `num_waits` reads.
pub(super) unsafe fn begin_with(
    queue: cl_command_queue,
    object: cl_mem,
    takes: Takes,
    num_waits: cl_uint,
    waits: *const cl_event,
) -> ClResult<(Arc<Queue>, Arc<Mem>, Waits)> {
    let queue = shared_queue(queue)?;
    let mem = buffer_for(queue.context(), object)?;
    if (takes == Takes::Buffer && mem.is_image()) || (takes == Takes::Image && !mem.is_image()) {
        return fail(CL_INVALID_MEM_OBJECT);
    }
    // SAFETY: forwarded contract.
    let waits = unsafe { wait_list(&queue, waits, num_waits) }?;
    Ok((queue, mem, waits))
}

/// [`begin_with`] for a buffer command.
///
/// # Safety
/// As [`begin_with`].
unsafe fn begin(
    queue: cl_command_queue,
    buffer: cl_mem,
    num_waits: cl_uint,
    waits: *const cl_event,
) -> ClResult<(Arc<Queue>, Arc<Mem>, Waits)> {
    // SAFETY: forwarded contract.
    unsafe { begin_with(queue, buffer, Takes::Buffer, num_waits, waits) }
}

/// Reads a `size_t[3]` argument (`None` for NULL; the command says what NULL means).
///
/// # Safety
/// `p` must be NULL or valid for three reads.
pub(super) unsafe fn triple(p: *const usize) -> Option<[usize; 3]> {
    if p.is_null() {
        return None;
    }
    // SAFETY: the caller's contract.
    Some(unsafe { [p.read(), p.add(1).read(), p.add(2).read()] })
}

/// The body shared by `clEnqueueReadBuffer` (`access` Read) and `clEnqueueWriteBuffer`.
///
/// # Safety
/// The application's pointers, as those entry points describe them.
#[allow(clippy::too_many_arguments)]
unsafe fn buffer_transfer(
    command_queue: cl_command_queue,
    buffer: cl_mem,
    blocking: cl_bool,
    access: HostAccess,
    offset: usize,
    size: usize,
    ptr: *const c_void,
    num_waits: cl_uint,
    waits: *const cl_event,
    event: *mut cl_event,
) -> ClResult<()> {
    // SAFETY: the application's wait list.
    let (queue, mem, waits) = unsafe { begin(command_queue, buffer, num_waits, waits) }?;
    // SAFETY: `ptr` holds `size` bytes until the command completes (the application's
    // contract).
    let command = unsafe {
        BufferTransfer::new(queue.device(), mem, access, offset, size, HostPtr::new(ptr))
    }?;
    enqueue(&queue, command, waits, blocking != 0, event)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clEnqueueReadBuffer(
    command_queue: cl_command_queue,
    buffer: cl_mem,
    blocking_read: cl_bool,
    offset: usize,
    size: usize,
    ptr: *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    call("clEnqueueReadBuffer", || {
        // SAFETY: the application's arguments, as this entry point describes them.
        unsafe {
            buffer_transfer(
                command_queue,
                buffer,
                blocking_read,
                HostAccess::Read,
                offset,
                size,
                ptr,
                num_events_in_wait_list,
                event_wait_list,
                event,
            )
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clEnqueueWriteBuffer(
    command_queue: cl_command_queue,
    buffer: cl_mem,
    blocking_write: cl_bool,
    offset: usize,
    size: usize,
    ptr: *const c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    call("clEnqueueWriteBuffer", || {
        // SAFETY: the application's arguments, as this entry point describes them.
        unsafe {
            buffer_transfer(
                command_queue,
                buffer,
                blocking_write,
                HostAccess::Write,
                offset,
                size,
                ptr,
                num_events_in_wait_list,
                event_wait_list,
                event,
            )
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clEnqueueCopyBuffer(
    command_queue: cl_command_queue,
    src_buffer: cl_mem,
    dst_buffer: cl_mem,
    src_offset: usize,
    dst_offset: usize,
    size: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    call("clEnqueueCopyBuffer", || {
        // SAFETY: the application's wait list.
        let (queue, src, waits) = unsafe {
            begin(
                command_queue,
                src_buffer,
                num_events_in_wait_list,
                event_wait_list,
            )
        }?;
        let dst = buffer_for(queue.context(), dst_buffer)?;
        let command = CopyBuffer::new(queue.device(), src, dst, src_offset, dst_offset, size)?;
        enqueue(&queue, command, waits, false, event)
    })
}

/// The body shared by `clEnqueueReadBufferRect` (`access` Read: buffer to host) and
/// `clEnqueueWriteBufferRect` (Write: host to buffer).
///
/// # Safety
/// The application's pointers, as those entry points describe them.
#[allow(clippy::too_many_arguments)]
unsafe fn rect_transfer(
    command_queue: cl_command_queue,
    buffer: cl_mem,
    blocking: cl_bool,
    geometry: RectArgs,
    ptr: *const c_void,
    access: HostAccess,
    num_waits: cl_uint,
    waits: *const cl_event,
    event: *mut cl_event,
) -> ClResult<()> {
    // SAFETY: the application's wait list.
    let (queue, mem, waits) = unsafe { begin(command_queue, buffer, num_waits, waits) }?;
    // SAFETY: `ptr` holds the host rectangle until the command completes (the
    // application's contract).
    let command = unsafe { BufferRectTransfer::new(mem, access, geometry, HostPtr::new(ptr)) }?;
    enqueue(&queue, command, waits, blocking != 0, event)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clEnqueueReadBufferRect(
    command_queue: cl_command_queue,
    buffer: cl_mem,
    blocking_read: cl_bool,
    buffer_origin: *const usize,
    host_origin: *const usize,
    region: *const usize,
    buffer_row_pitch: usize,
    buffer_slice_pitch: usize,
    host_row_pitch: usize,
    host_slice_pitch: usize,
    ptr: *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    call("clEnqueueReadBufferRect", || {
        // SAFETY: each array is NULL or holds three values.
        let geometry = unsafe {
            RectArgs {
                buffer_origin: triple(buffer_origin),
                host_origin: triple(host_origin),
                region: triple(region),
                buffer_row_pitch,
                buffer_slice_pitch,
                host_row_pitch,
                host_slice_pitch,
            }
        };
        // SAFETY: the application's arguments, as this entry point describes them.
        unsafe {
            rect_transfer(
                command_queue,
                buffer,
                blocking_read,
                geometry,
                ptr,
                HostAccess::Read,
                num_events_in_wait_list,
                event_wait_list,
                event,
            )
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clEnqueueWriteBufferRect(
    command_queue: cl_command_queue,
    buffer: cl_mem,
    blocking_write: cl_bool,
    buffer_origin: *const usize,
    host_origin: *const usize,
    region: *const usize,
    buffer_row_pitch: usize,
    buffer_slice_pitch: usize,
    host_row_pitch: usize,
    host_slice_pitch: usize,
    ptr: *const c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    call("clEnqueueWriteBufferRect", || {
        // SAFETY: each array is NULL or holds three values.
        let geometry = unsafe {
            RectArgs {
                buffer_origin: triple(buffer_origin),
                host_origin: triple(host_origin),
                region: triple(region),
                buffer_row_pitch,
                buffer_slice_pitch,
                host_row_pitch,
                host_slice_pitch,
            }
        };
        // SAFETY: the application's arguments, as this entry point describes them.
        unsafe {
            rect_transfer(
                command_queue,
                buffer,
                blocking_write,
                geometry,
                ptr,
                HostAccess::Write,
                num_events_in_wait_list,
                event_wait_list,
                event,
            )
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clEnqueueCopyBufferRect(
    command_queue: cl_command_queue,
    src_buffer: cl_mem,
    dst_buffer: cl_mem,
    src_origin: *const usize,
    dst_origin: *const usize,
    region: *const usize,
    src_row_pitch: usize,
    src_slice_pitch: usize,
    dst_row_pitch: usize,
    dst_slice_pitch: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    call("clEnqueueCopyBufferRect", || {
        // SAFETY: the application's wait list.
        let (queue, src, waits) = unsafe {
            begin(
                command_queue,
                src_buffer,
                num_events_in_wait_list,
                event_wait_list,
            )
        }?;
        let dst = buffer_for(queue.context(), dst_buffer)?;
        // SAFETY: each array is NULL or holds three values.
        let (src_origin, dst_origin, region) =
            unsafe { (triple(src_origin), triple(dst_origin), triple(region)) };
        let pitches = [
            src_row_pitch,
            src_slice_pitch,
            dst_row_pitch,
            dst_slice_pitch,
        ];
        let command = CopyBufferRect::new(src, dst, src_origin, dst_origin, region, pitches)?;
        enqueue(&queue, command, waits, false, event)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clEnqueueFillBuffer(
    command_queue: cl_command_queue,
    buffer: cl_mem,
    pattern: *const c_void,
    pattern_size: usize,
    offset: usize,
    size: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    call("clEnqueueFillBuffer", || {
        // SAFETY: the application's wait list.
        let (queue, mem, waits) = unsafe {
            begin(
                command_queue,
                buffer,
                num_events_in_wait_list,
                event_wait_list,
            )
        }?;
        // SAFETY: `pattern` is NULL or holds `pattern_size` bytes.
        let command = unsafe { FillBuffer::new(mem, pattern.cast(), pattern_size, offset, size) }?;
        enqueue(&queue, command, waits, false, event)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clEnqueueMapBuffer(
    command_queue: cl_command_queue,
    buffer: cl_mem,
    blocking_map: cl_bool,
    map_flags: cl_map_flags,
    offset: usize,
    size: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    call_ret(
        "clEnqueueMapBuffer",
        errcode_ret,
        std::ptr::null_mut(),
        || {
            // SAFETY: the application's wait list.
            let (queue, mem, waits) = unsafe {
                begin(
                    command_queue,
                    buffer,
                    num_events_in_wait_list,
                    event_wait_list,
                )
            }?;
            let map = Map::buffer(mem, map_flags, offset, size)?;
            let (mapped_event, mapped) = map.enqueue(&queue, waits, blocking_map != 0)?;
            return_event(mapped_event, event);
            Ok(mapped)
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clEnqueueUnmapMemObject(
    command_queue: cl_command_queue,
    memobj: cl_mem,
    mapped_ptr: *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    call("clEnqueueUnmapMemObject", || {
        // SAFETY: the application's wait list.
        let (queue, mem, waits) = unsafe {
            begin_with(
                command_queue,
                memobj,
                Takes::Any,
                num_events_in_wait_list,
                event_wait_list,
            )
        }?;
        let command = Unmap::new(mem, HostPtr::new(mapped_ptr))?;
        enqueue(&queue, command, waits, false, event)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clEnqueueMigrateMemObjects(
    command_queue: cl_command_queue,
    num_mem_objects: cl_uint,
    mem_objects: *const cl_mem,
    flags: cl_mem_migration_flags,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    call("clEnqueueMigrateMemObjects", || {
        let queue = shared_queue(command_queue)?;
        let count = if mem_objects.is_null() {
            0
        } else {
            num_mem_objects as usize
        };
        let command = Migrate::new(count, flags, || {
            // SAFETY: `mem_objects` holds `num_mem_objects` handles.
            let handles = unsafe { std::slice::from_raw_parts(mem_objects, count) };
            handles
                .iter()
                .map(|&m| buffer_for(queue.context(), m))
                .collect()
        })?;
        // SAFETY: the application's wait list.
        let waits = unsafe { wait_list(&queue, event_wait_list, num_events_in_wait_list) }?;
        enqueue(&queue, command, waits, false, event)
    })
}
