//! Linear buffer commands: read, write, copy, fill.

use std::sync::Arc;

use khronos_headers::*;

use super::{Command, HostAccess, HostPtr, check_host_access};
use crate::device::Device;
use crate::error::{ClResult, fail};
use crate::memory::Mem;

/// `clEnqueueReadBuffer` (`HostAccess::Read`: buffer to host) and `clEnqueueWriteBuffer`.
pub struct BufferTransfer {
    device: Arc<Device>,
    mem: Arc<Mem>,
    access: HostAccess,
    offset: usize,
    size: usize,
    host: HostPtr,
}

impl BufferTransfer {
    /// "CL_INVALID_VALUE if the region being read or written specified by (offset, size) is
    /// out of bounds or if ptr is a NULL value or if size is 0" (`offset + size` checked).
    ///
    /// # Safety
    /// `host` must stay valid for `size` bytes of the access until the command completes.
    pub unsafe fn new(
        device: &Arc<Device>,
        mem: Arc<Mem>,
        access: HostAccess,
        offset: usize,
        size: usize,
        host: Option<HostPtr>,
    ) -> ClResult<Self> {
        check_host_access(&mem, access)?;
        let Some(host) = host else {
            return fail(CL_INVALID_VALUE);
        };
        if size == 0 || !mem.contains(offset, size) {
            return fail(CL_INVALID_VALUE);
        }
        Ok(BufferTransfer {
            device: Arc::clone(device),
            mem,
            access,
            offset,
            size,
            host,
        })
    }
}

impl Command for BufferTransfer {
    fn command_type(&self) -> cl_command_type {
        match self.access {
            HostAccess::Read => CL_COMMAND_READ_BUFFER,
            HostAccess::Write => CL_COMMAND_WRITE_BUFFER,
        }
    }

    fn run(self, _queue: &crate::queue::Queue) -> ClResult<()> {
        // SAFETY: in bounds (checked); the host memory holds `size` bytes until the command
        // completes (the constructor's contract).
        let object = unsafe { self.mem.base().add(self.offset) };
        let (src, dst) = match self.access {
            HostAccess::Read => (object, self.host.ptr()),
            HostAccess::Write => (self.host.ptr(), object),
        };
        // SAFETY: as above.
        unsafe { self.device.executor()?.copy(src, dst, self.size) };
        Ok(())
    }
}

/// `clEnqueueCopyBuffer`.
pub struct CopyBuffer {
    device: Arc<Device>,
    src: Arc<Mem>,
    dst: Arc<Mem>,
    src_offset: usize,
    dst_offset: usize,
    size: usize,
}

impl CopyBuffer {
    pub fn new(
        device: &Arc<Device>,
        src: Arc<Mem>,
        dst: Arc<Mem>,
        src_offset: usize,
        dst_offset: usize,
        size: usize,
    ) -> ClResult<Self> {
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
        Ok(CopyBuffer {
            device: Arc::clone(device),
            src,
            dst,
            src_offset,
            dst_offset,
            size,
        })
    }
}

impl Command for CopyBuffer {
    fn command_type(&self) -> cl_command_type {
        CL_COMMAND_COPY_BUFFER
    }

    fn run(self, _queue: &crate::queue::Queue) -> ClResult<()> {
        // SAFETY: both ranges in bounds and not overlapping (checked).
        unsafe {
            self.device.executor()?.copy(
                self.src.base().add(self.src_offset),
                self.dst.base().add(self.dst_offset),
                self.size,
            )
        };
        Ok(())
    }
}

/// `clEnqueueFillBuffer`.
pub struct FillBuffer {
    mem: Arc<Mem>,
    pattern: Vec<u8>,
    offset: usize,
    size: usize,
}

impl FillBuffer {
    /// "CL_INVALID_VALUE if pattern is NULL or if pattern_size is 0 or if pattern_size is
    /// not one of {1, 2, 4, 8, 16, 32, 64, 128}", "if offset and size are not a multiple of
    /// pattern_size", and "if offset or offset + size require accessing elements outside the
    /// buffer" (`offset + size` checked).
    ///
    /// The pattern is copied now: "the memory associated with pattern can be reused or
    /// freed after the function returns."
    ///
    /// # Safety
    /// `pattern` must be NULL or valid for `pattern_size` reads.
    pub unsafe fn new(
        mem: Arc<Mem>,
        pattern: *const u8,
        pattern_size: usize,
        offset: usize,
        size: usize,
    ) -> ClResult<Self> {
        if pattern.is_null() || !pattern_size.is_power_of_two() || pattern_size > 128 {
            return fail(CL_INVALID_VALUE);
        }
        if !offset.is_multiple_of(pattern_size)
            || !size.is_multiple_of(pattern_size)
            || !mem.contains(offset, size)
        {
            return fail(CL_INVALID_VALUE);
        }
        // SAFETY: `pattern` holds `pattern_size` bytes (the caller's contract), at most 128.
        let pattern = unsafe { std::slice::from_raw_parts(pattern, pattern_size) }.to_vec();
        Ok(FillBuffer {
            mem,
            pattern,
            offset,
            size,
        })
    }
}

impl Command for FillBuffer {
    fn command_type(&self) -> cl_command_type {
        CL_COMMAND_FILL_BUFFER
    }

    fn run(self, queue: &crate::queue::Queue) -> ClResult<()> {
        // SAFETY: `offset..offset + size` is inside the buffer (checked).
        let target =
            unsafe { std::slice::from_raw_parts_mut(self.mem.base().add(self.offset), self.size) };
        queue.device().executor()?.fill(target, &self.pattern);
        Ok(())
    }
}
