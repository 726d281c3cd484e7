//! Buffer commands: read, write, copy (linear and rectangular), fill, map, unmap, migrate;
//! and what the image commands share with them (the rectangle copy, maps, host access).
//!
//! Each entry point validates its arguments as the spec lists them, then enqueues a closure
//! that does the copy when the command runs. Host pointers travel into the closure as
//! addresses; the buffers travel as `Arc`s, so they live until the command has run.

use std::ffi::c_void;
use std::sync::Arc;

use clift_runtime::memory::Mem;
use clift_runtime::queue::{Queue, QueueOrder};
use clift_runtime::{ClError, ClResult, fail};
use khronos_headers::*;

use super::event::{submit, wait_list};
use super::memory::buffer_for;
use super::queue::shared_queue;
use crate::boundary::{call, call_ret};

/// An address carried into a command (the application keeps the memory valid until the
/// command completes, as the spec requires).
#[derive(Clone, Copy)]
pub(super) struct Addr(usize);

impl Addr {
    pub(super) fn of<T>(ptr: *const T) -> Addr {
        Addr(ptr as usize)
    }
    pub(super) fn ptr(self) -> *mut u8 {
        self.0 as *mut u8
    }
}

/// Which host access a command needs (checked against `CL_MEM_HOST_*`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum HostAccess {
    Read,
    Write,
}

/// "CL_INVALID_OPERATION if clEnqueueReadBuffer is called on buffer which has been created
/// with CL_MEM_HOST_WRITE_ONLY or CL_MEM_HOST_NO_ACCESS" (and the mirror rule for writes).
pub(super) fn check_host_access(mem: &Mem, access: HostAccess) -> ClResult<()> {
    let forbidden = match access {
        HostAccess::Read => CL_MEM_HOST_WRITE_ONLY | CL_MEM_HOST_NO_ACCESS,
        HostAccess::Write => CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_NO_ACCESS,
    };
    if mem.flags() & forbidden != 0 {
        return fail(CL_INVALID_OPERATION);
    }
    Ok(())
}

/// The common checks of a linear read or write: "CL_INVALID_VALUE if the region being read
/// or written specified by (offset, size) is out of bounds or if ptr is a NULL value or if
/// size is 0."
fn check_linear(mem: &Mem, offset: usize, size: usize, ptr: *const c_void) -> ClResult<()> {
    if ptr.is_null() || size == 0 || !mem.contains(offset, size) {
        return fail(CL_INVALID_VALUE);
    }
    Ok(())
}

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
        // SAFETY: the application's wait list.
        let (queue, mem, waits) = unsafe {
            begin(
                command_queue,
                buffer,
                num_events_in_wait_list,
                event_wait_list,
            )
        }?;
        check_host_access(&mem, HostAccess::Read)?;
        check_linear(&mem, offset, size, ptr)?;
        let dst = Addr::of(ptr);
        let device = Arc::clone(queue.device());
        let work = Box::new(move || {
            // SAFETY: in bounds (checked); `ptr` holds `size` bytes until the command
            // completes (the application's contract).
            unsafe {
                device
                    .executor()?
                    .copy(mem.base().add(offset), dst.ptr(), size)
            };
            Ok(())
        });
        let order = QueueOrder::Command;
        submit(
            &queue,
            CL_COMMAND_READ_BUFFER,
            waits,
            order,
            blocking_read != 0,
            event,
            work,
        )
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
        // SAFETY: the application's wait list.
        let (queue, mem, waits) = unsafe {
            begin(
                command_queue,
                buffer,
                num_events_in_wait_list,
                event_wait_list,
            )
        }?;
        check_host_access(&mem, HostAccess::Write)?;
        check_linear(&mem, offset, size, ptr)?;
        let src = Addr::of(ptr);
        let device = Arc::clone(queue.device());
        let work = Box::new(move || {
            // SAFETY: as for reads, in the other direction.
            unsafe {
                device
                    .executor()?
                    .copy(src.ptr(), mem.base().add(offset), size)
            };
            Ok(())
        });
        let order = QueueOrder::Command;
        submit(
            &queue,
            CL_COMMAND_WRITE_BUFFER,
            waits,
            order,
            blocking_write != 0,
            event,
            work,
        )
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
        // "CL_INVALID_VALUE if src_offset, dst_offset, size, src_offset + size or dst_offset
        // + size require accessing elements outside the src_buffer and dst_buffer buffer
        // objects respectively", and "if size is 0".
        if size == 0 || !src.contains(src_offset, size) || !dst.contains(dst_offset, size) {
            return fail(CL_INVALID_VALUE);
        }
        // "CL_MEM_COPY_OVERLAP if src_buffer and dst_buffer are the same buffer or
        // sub-buffer object and the source and destination regions overlap or if src_buffer
        // and dst_buffer are different sub-buffers of the same associated buffer object and
        // they overlap."
        if src.overlaps(src_offset, &dst, dst_offset, size) {
            return fail(CL_MEM_COPY_OVERLAP);
        }
        let device = Arc::clone(queue.device());
        let work = Box::new(move || {
            // SAFETY: both ranges in bounds and not overlapping (checked above).
            unsafe {
                device.executor()?.copy(
                    src.base().add(src_offset),
                    dst.base().add(dst_offset),
                    size,
                )
            };
            Ok(())
        });
        submit(
            &queue,
            CL_COMMAND_COPY_BUFFER,
            waits,
            QueueOrder::Command,
            false,
            event,
            work,
        )
    })
}

/// The layout of a rectangle in a buffer or in host memory, pitches resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct RectLayout {
    /// Byte offset of the rectangle's first byte.
    pub(super) start: usize,
    pub(super) row_pitch: usize,
    pub(super) slice_pitch: usize,
}

impl RectLayout {
    /// Resolves default pitches and checks them: "CL_INVALID_VALUE if buffer_row_pitch is
    /// not 0 and is less than region[0]", "if buffer_slice_pitch is not 0 and is less than
    /// region[1] * buffer_row_pitch and not a multiple of buffer_row_pitch" (and the same
    /// for the host side).
    fn new(origin: [usize; 3], region: [usize; 3], row: usize, slice: usize) -> ClResult<Self> {
        let row_pitch = if row == 0 { region[0] } else { row };
        if row_pitch < region[0] {
            return fail(CL_INVALID_VALUE);
        }
        let min_slice = region[1]
            .checked_mul(row_pitch)
            .ok_or(ClError(CL_INVALID_VALUE))?;
        let slice_pitch = if slice == 0 { min_slice } else { slice };
        if slice_pitch < min_slice || (slice != 0 && !slice_pitch.is_multiple_of(row_pitch)) {
            return fail(CL_INVALID_VALUE);
        }
        let start = origin[2]
            .checked_mul(slice_pitch)
            .and_then(|z| {
                origin[1]
                    .checked_mul(row_pitch)
                    .and_then(|y| y.checked_add(z))
            })
            .and_then(|yz| yz.checked_add(origin[0]))
            .ok_or(ClError(CL_INVALID_VALUE))?;
        Ok(RectLayout {
            start,
            row_pitch,
            slice_pitch,
        })
    }

    /// One past the last byte the rectangle touches.
    pub(super) fn end(&self, region: [usize; 3]) -> Option<usize> {
        let last_row = (region[2] - 1)
            .checked_mul(self.slice_pitch)?
            .checked_add((region[1] - 1).checked_mul(self.row_pitch)?)?;
        self.start.checked_add(last_row)?.checked_add(region[0])
    }

    /// The byte offset of row (y, z).
    pub(super) fn row(&self, y: usize, z: usize) -> usize {
        self.start + z * self.slice_pitch + y * self.row_pitch
    }

    /// Every row as a byte interval, for the exact overlap test.
    fn rows(&self, region: [usize; 3], base: usize) -> Vec<(usize, usize)> {
        let mut rows = Vec::with_capacity(region[1] * region[2]);
        for z in 0..region[2] {
            for y in 0..region[1] {
                let start = base + self.row(y, z);
                rows.push((start, start + region[0]));
            }
        }
        rows
    }
}

/// Copies a rectangle row by row between two layouts.
///
/// # Safety
/// Both rectangles must lie inside memory valid for the access, and must not overlap.
pub(super) unsafe fn copy_rect(
    src: *const u8,
    src_layout: RectLayout,
    dst: *mut u8,
    dst_layout: RectLayout,
    region: [usize; 3],
) {
    for z in 0..region[2] {
        for y in 0..region[1] {
            // SAFETY: the caller's contract covers every row of the rectangles.
            unsafe {
                std::ptr::copy(
                    src.add(src_layout.row(y, z)),
                    dst.add(dst_layout.row(y, z)),
                    region[0],
                )
            };
        }
    }
}

/// Reads a `size_t[3]` argument: "CL_INVALID_VALUE if ... origin or region is NULL" and "if
/// any region array element is 0" (for regions).
///
/// # Safety
/// `p` must be NULL or valid for three reads.
pub(super) unsafe fn triple(p: *const usize, is_region: bool) -> ClResult<[usize; 3]> {
    if p.is_null() {
        return fail(CL_INVALID_VALUE);
    }
    // SAFETY: the caller's contract.
    let v = unsafe { [p.read(), p.add(1).read(), p.add(2).read()] };
    if is_region && v.contains(&0) {
        return fail(CL_INVALID_VALUE);
    }
    Ok(v)
}

/// The two rectangles of a `*Rect` command, checked against the buffer's size.
struct RectPair {
    buffer: RectLayout,
    host: RectLayout,
    region: [usize; 3],
}

/// The geometry arguments of `clEnqueueRead/WriteBufferRect`, as the application gave them.
struct RectArgs {
    buffer_origin: *const usize,
    host_origin: *const usize,
    region: *const usize,
    buffer_row_pitch: usize,
    buffer_slice_pitch: usize,
    host_row_pitch: usize,
    host_slice_pitch: usize,
}

impl RectArgs {
    /// Reads and checks the geometry against `mem`.
    ///
    /// # Safety
    /// The three arrays must be NULL or valid for three reads each.
    unsafe fn resolve(&self, mem: &Mem) -> ClResult<RectPair> {
        // SAFETY: forwarded contract.
        let (b_origin, h_origin, region) = unsafe {
            (
                triple(self.buffer_origin, false)?,
                triple(self.host_origin, false)?,
                triple(self.region, true)?,
            )
        };
        let buffer = RectLayout::new(
            b_origin,
            region,
            self.buffer_row_pitch,
            self.buffer_slice_pitch,
        )?;
        let host = RectLayout::new(h_origin, region, self.host_row_pitch, self.host_slice_pitch)?;
        // "CL_INVALID_VALUE if the region being read specified by (buffer_origin, region,
        // buffer_row_pitch, buffer_slice_pitch) is out of bounds."
        if buffer.end(region).is_none_or(|end| end > mem.size()) || host.end(region).is_none() {
            return fail(CL_INVALID_VALUE);
        }
        Ok(RectPair {
            buffer,
            host,
            region,
        })
    }
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
    check_host_access(&mem, access)?;
    // "CL_INVALID_VALUE if ptr is a NULL value."
    if ptr.is_null() {
        return fail(CL_INVALID_VALUE);
    }
    // SAFETY: the application's origin and region arrays.
    let rect = unsafe { geometry.resolve(&mem) }?;
    let host = Addr::of(ptr);
    let work = Box::new(move || {
        // SAFETY: the buffer rectangle is in bounds (checked); the host rectangle is the
        // application's memory as it described it.
        unsafe {
            match access {
                HostAccess::Read => {
                    copy_rect(mem.base(), rect.buffer, host.ptr(), rect.host, rect.region)
                }
                HostAccess::Write => {
                    copy_rect(host.ptr(), rect.host, mem.base(), rect.buffer, rect.region)
                }
            }
        };
        Ok(())
    });
    let command = match access {
        HostAccess::Read => CL_COMMAND_READ_BUFFER_RECT,
        HostAccess::Write => CL_COMMAND_WRITE_BUFFER_RECT,
    };
    submit(
        &queue,
        command,
        waits,
        QueueOrder::Command,
        blocking != 0,
        event,
        work,
    )
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
    let geometry = RectArgs {
        buffer_origin,
        host_origin,
        region,
        buffer_row_pitch,
        buffer_slice_pitch,
        host_row_pitch,
        host_slice_pitch,
    };
    call("clEnqueueReadBufferRect", || {
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
    let geometry = RectArgs {
        buffer_origin,
        host_origin,
        region,
        buffer_row_pitch,
        buffer_slice_pitch,
        host_row_pitch,
        host_slice_pitch,
    };
    call("clEnqueueWriteBufferRect", || {
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

/// Whether two sets of row intervals intersect (each set sorted by start inside).
fn rows_intersect(mut a: Vec<(usize, usize)>, mut b: Vec<(usize, usize)>) -> bool {
    a.sort_unstable();
    b.sort_unstable();
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i].0 < b[j].1 && b[j].0 < a[i].1 {
            return true;
        }
        if a[i].1 <= b[j].1 { i += 1 } else { j += 1 }
    }
    false
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
        // SAFETY: the application's origin and region arrays.
        let (s_origin, d_origin, region) = unsafe {
            (
                triple(src_origin, false)?,
                triple(dst_origin, false)?,
                triple(region, true)?,
            )
        };
        let s = RectLayout::new(s_origin, region, src_row_pitch, src_slice_pitch)?;
        let d = RectLayout::new(d_origin, region, dst_row_pitch, dst_slice_pitch)?;
        if s.end(region).is_none_or(|e| e > src.size())
            || d.end(region).is_none_or(|e| e > dst.size())
        {
            return fail(CL_INVALID_VALUE);
        }
        if Arc::ptr_eq(&src, &dst) && (s.row_pitch != d.row_pitch || s.slice_pitch != d.slice_pitch)
        {
            // "CL_INVALID_VALUE if src_buffer and dst_buffer are the same buffer object and
            // src_slice_pitch is not equal to dst_slice_pitch and src_row_pitch is not equal
            // to dst_row_pitch."
            return fail(CL_INVALID_VALUE);
        }
        // "CL_MEM_COPY_OVERLAP if src_buffer and dst_buffer are the same buffer or
        // sub-buffer object and the source and destination regions overlap".
        if src.shares_storage(&dst) {
            let src_rows = s.rows(region, src.base() as usize);
            let dst_rows = d.rows(region, dst.base() as usize);
            if rows_intersect(src_rows, dst_rows) {
                return fail(CL_MEM_COPY_OVERLAP);
            }
        }
        let work = Box::new(move || {
            // SAFETY: both rectangles are in bounds and do not overlap (checked above).
            unsafe { copy_rect(src.base(), s, dst.base(), d, region) };
            Ok(())
        });
        submit(
            &queue,
            CL_COMMAND_COPY_BUFFER_RECT,
            waits,
            QueueOrder::Command,
            false,
            event,
            work,
        )
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
        // "CL_INVALID_VALUE if pattern is NULL or if pattern_size is 0 or if pattern_size is
        // not one of {1, 2, 4, 8, 16, 32, 64, 128}", "if offset and size are not a multiple
        // of pattern_size", and "if offset or offset + size require accessing elements
        // outside the buffer".
        if pattern.is_null() || !pattern_size.is_power_of_two() || pattern_size > 128 {
            return fail(CL_INVALID_VALUE);
        }
        if !offset.is_multiple_of(pattern_size)
            || !size.is_multiple_of(pattern_size)
            || !mem.contains(offset, size)
        {
            return fail(CL_INVALID_VALUE);
        }
        // The pattern is copied now: "the memory associated with pattern can be reused or
        // freed after the function returns."
        // SAFETY: `pattern` holds `pattern_size` bytes.
        let pattern =
            unsafe { std::slice::from_raw_parts(pattern.cast::<u8>(), pattern_size) }.to_vec();
        let work = Box::new(move || {
            // SAFETY: `offset..offset + size` is inside the buffer (checked above).
            let target = unsafe { std::slice::from_raw_parts_mut(mem.base().add(offset), size) };
            for chunk in target.chunks_exact_mut(pattern.len()) {
                chunk.copy_from_slice(&pattern);
            }
            Ok(())
        });
        submit(
            &queue,
            CL_COMMAND_FILL_BUFFER,
            waits,
            QueueOrder::Command,
            false,
            event,
            work,
        )
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
            // "CL_INVALID_VALUE if region being mapped given by (offset, size) is out of bounds
            // or if size is 0 or if values specified in map_flags are not valid."
            if size == 0 || !mem.contains(offset, size) {
                return fail(CL_INVALID_VALUE);
            }
            check_map_flags(&mem, map_flags)?;
            // Zero copy: the mapped region is the buffer's own memory (for USE_HOST_PTR buffers,
            // the application's host_ptr + offset, as the spec requires).
            // SAFETY: `offset` is inside the buffer (checked above).
            let mapped = unsafe { mem.base().add(offset) };
            let map = MapCommand {
                command: CL_COMMAND_MAP_BUFFER,
                blocking: blocking_map != 0,
                event,
            };
            map.submit(&queue, mem, mapped, waits)
        },
    )
}

/// "CL_INVALID_VALUE if ... values specified in map_flags are not valid", and
/// "CL_INVALID_OPERATION if buffer has been created with CL_MEM_HOST_WRITE_ONLY or
/// CL_MEM_HOST_NO_ACCESS and CL_MAP_READ is set in map_flags or if buffer has been created
/// with CL_MEM_HOST_READ_ONLY or CL_MEM_HOST_NO_ACCESS and CL_MAP_WRITE or
/// CL_MAP_WRITE_INVALIDATE_REGION is set in map_flags" (the same for images).
pub(super) fn check_map_flags(mem: &Mem, map_flags: cl_map_flags) -> ClResult<()> {
    let known = CL_MAP_READ | CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION;
    let invalidate_mixed = map_flags & CL_MAP_WRITE_INVALIDATE_REGION != 0
        && map_flags & (CL_MAP_READ | CL_MAP_WRITE) != 0;
    if map_flags & !known != 0 || invalidate_mixed {
        return fail(CL_INVALID_VALUE);
    }
    if map_flags & CL_MAP_READ != 0 {
        check_host_access(mem, HostAccess::Read)?;
    }
    if map_flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION) != 0 {
        check_host_access(mem, HostAccess::Write)?;
    }
    Ok(())
}

/// A map command: records the mapping, then enqueues the command that completes it.
pub(super) struct MapCommand {
    pub(super) command: cl_command_type,
    pub(super) blocking: bool,
    pub(super) event: *mut cl_event,
}

impl MapCommand {
    /// Maps `mapped` (a pointer into `mem`'s own memory: maps are zero copy) once the wait
    /// list has completed.
    pub(super) fn submit(
        self,
        queue: &Arc<Queue>,
        mem: Arc<Mem>,
        mapped: *mut u8,
        waits: Waits,
    ) -> ClResult<*mut c_void> {
        mem.add_mapping(mapped);
        let map_mem = Arc::clone(&mem);
        let work = Box::new(move || {
            drop(map_mem);
            Ok(())
        });
        let submitted = submit(
            queue,
            self.command,
            waits,
            QueueOrder::Command,
            self.blocking,
            self.event,
            work,
        );
        if let Err(e) = submitted {
            // "If the buffer ... cannot be mapped", nothing stays mapped.
            mem.remove_mapping(mapped).ok();
            return Err(e);
        }
        Ok(mapped.cast::<c_void>())
    }
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
        // "CL_INVALID_VALUE if mapped_ptr is not a valid pointer returned by
        // clEnqueueMapBuffer or clEnqueueMapImage for memobj."
        if !mem.is_mapped(mapped_ptr.cast()) {
            return fail(CL_INVALID_VALUE);
        }
        let ptr = Addr::of(mapped_ptr);
        let work = Box::new(move || mem.remove_mapping(ptr.ptr()));
        submit(
            &queue,
            CL_COMMAND_UNMAP_MEM_OBJECT,
            waits,
            QueueOrder::Command,
            false,
            event,
            work,
        )
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
        // "CL_INVALID_VALUE if num_mem_objects is zero or if mem_objects is NULL", "if flags
        // is not 0 or is not any of the values described in the table above."
        if num_mem_objects == 0 || mem_objects.is_null() {
            return fail(CL_INVALID_VALUE);
        }
        let known = CL_MIGRATE_MEM_OBJECT_HOST | CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED;
        if flags & !known != 0 {
            return fail(CL_INVALID_VALUE);
        }
        // SAFETY: `mem_objects` holds `num_mem_objects` handles.
        let handles = unsafe { std::slice::from_raw_parts(mem_objects, num_mem_objects as usize) };
        let objects = handles
            .iter()
            .map(|&m| buffer_for(queue.context(), m))
            .collect::<ClResult<Vec<_>>>()?;
        // SAFETY: the application's wait list.
        let waits = unsafe { wait_list(&queue, event_wait_list, num_events_in_wait_list) }?;
        // Host and device share one memory: once ordered after its wait list, the objects
        // are where either side can use them. The command holds them until then.
        let work = Box::new(move || {
            drop(objects);
            Ok(())
        });
        submit(
            &queue,
            CL_COMMAND_MIGRATE_MEM_OBJECTS,
            waits,
            QueueOrder::Command,
            false,
            event,
            work,
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rect_layout_defaults_and_checks() {
        let l = RectLayout::new([1, 2, 3], [4, 5, 6], 0, 0).unwrap();
        assert_eq!((l.row_pitch, l.slice_pitch), (4, 20));
        assert_eq!(l.start, 3 * 20 + 2 * 4 + 1);
        assert_eq!(l.end([4, 5, 6]), Some(l.start + 5 * 20 + 4 * 4 + 4));
        assert!(RectLayout::new([0; 3], [4, 1, 1], 3, 0).is_err());
        assert!(RectLayout::new([0; 3], [4, 2, 1], 8, 12).is_err());
        assert!(RectLayout::new([0; 3], [4, 2, 1], 8, 20).is_err());
        assert!(RectLayout::new([0; 3], [4, 2, 1], 8, 24).is_ok());
    }

    #[test]
    fn overlap_is_exact_per_row() {
        // Two 2x2 rectangles interleaved in rows never touch.
        let a = vec![(0, 2), (10, 12)];
        let b = vec![(2, 4), (12, 14)];
        assert!(!rows_intersect(a.clone(), b));
        assert!(rows_intersect(a, vec![(11, 13)]));
    }
}
