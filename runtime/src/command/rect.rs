//! Rectangle transfers: `clEnqueueReadBufferRect`, `clEnqueueWriteBufferRect`,
//! `clEnqueueCopyBufferRect`, and the row-by-row copy every image command is made of.
//!
//! Every offset a rectangle touches is `start + z * slice_pitch + y * row_pitch + x`, with
//! pitches and origins from the application: [`RectLayout::new`] and [`RectLayout::end`]
//! combine them with checked arithmetic, so a rectangle whose last byte does not fit a
//! `size_t` is out of bounds (`CL_INVALID_VALUE`) instead of a wrapped small offset, and
//! [`RectLayout::row`] of a checked rectangle cannot overflow.

use std::sync::Arc;

use khronos_headers::*;

use super::{Command, HostAccess, HostPtr, check_host_access, origins_and_region};
use crate::error::{ClError, ClResult, fail};
use crate::memory::Mem;

/// The layout of a rectangle in a buffer, an image or host memory, pitches resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RectLayout {
    /// Byte offset of the rectangle's first byte.
    pub start: usize,
    pub row_pitch: usize,
    pub slice_pitch: usize,
}

impl RectLayout {
    /// Resolves default pitches and checks them: "CL_INVALID_VALUE if buffer_row_pitch is
    /// not 0 and is less than region[0]", "if buffer_slice_pitch is not 0 and is less than
    /// region[1] * buffer_row_pitch and not a multiple of buffer_row_pitch" (and the same
    /// for the host side). `origin[2] * slice + origin[1] * row + origin[0]` must fit.
    pub fn new(origin: [usize; 3], region: [usize; 3], row: usize, slice: usize) -> ClResult<Self> {
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

    /// One past the last byte the rectangle touches (`None` where that does not fit a
    /// `usize`; `region` has no zero element).
    pub fn end(&self, region: [usize; 3]) -> Option<usize> {
        let last_row = (region[2] - 1)
            .checked_mul(self.slice_pitch)?
            .checked_add((region[1] - 1).checked_mul(self.row_pitch)?)?;
        self.start.checked_add(last_row)?.checked_add(region[0])
    }

    /// The byte offset of row (y, z) (inside a rectangle whose [`RectLayout::end`] fits).
    pub fn row(&self, y: usize, z: usize) -> usize {
        self.start + z * self.slice_pitch + y * self.row_pitch
    }

    /// Every row as a byte interval, for the exact overlap test.
    fn rows(&self, region: [usize; 3], base: usize) -> Vec<(usize, usize)> {
        let mut rows = Vec::with_capacity(region[1].saturating_mul(region[2]));
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
pub unsafe fn copy_rect(
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

/// The geometry arguments of `clEnqueueRead/WriteBufferRect`, as the application gave them
/// (a NULL array is `None`).
#[derive(Clone, Copy, Debug)]
pub struct RectArgs {
    pub buffer_origin: Option<[usize; 3]>,
    pub host_origin: Option<[usize; 3]>,
    pub region: Option<[usize; 3]>,
    pub buffer_row_pitch: usize,
    pub buffer_slice_pitch: usize,
    pub host_row_pitch: usize,
    pub host_slice_pitch: usize,
}

/// `clEnqueueReadBufferRect` (`HostAccess::Read`: buffer to host) and
/// `clEnqueueWriteBufferRect`.
pub struct BufferRectTransfer {
    mem: Arc<Mem>,
    access: HostAccess,
    buffer: RectLayout,
    host: RectLayout,
    host_ptr: HostPtr,
    region: [usize; 3],
}

impl BufferRectTransfer {
    /// # Safety
    /// `host_ptr` must stay valid for the host rectangle until the command completes.
    pub unsafe fn new(
        mem: Arc<Mem>,
        access: HostAccess,
        geometry: RectArgs,
        host_ptr: Option<HostPtr>,
    ) -> ClResult<Self> {
        check_host_access(&mem, access)?;
        // "CL_INVALID_VALUE if ptr is a NULL value."
        let Some(host_ptr) = host_ptr else {
            return fail(CL_INVALID_VALUE);
        };
        let (b_origin, h_origin, region) = origins_and_region(
            geometry.buffer_origin,
            geometry.host_origin,
            geometry.region,
        )?;
        let buffer = RectLayout::new(
            b_origin,
            region,
            geometry.buffer_row_pitch,
            geometry.buffer_slice_pitch,
        )?;
        let host = RectLayout::new(
            h_origin,
            region,
            geometry.host_row_pitch,
            geometry.host_slice_pitch,
        )?;
        // "CL_INVALID_VALUE if the region being read specified by (buffer_origin, region,
        // buffer_row_pitch, buffer_slice_pitch) is out of bounds"; the host rectangle must
        // at least fit the address space.
        let host_end = host
            .end(region)
            .and_then(|e| e.checked_add(host_ptr.address()));
        if buffer.end(region).is_none_or(|end| end > mem.size()) || host_end.is_none() {
            return fail(CL_INVALID_VALUE);
        }
        Ok(BufferRectTransfer {
            mem,
            access,
            buffer,
            host,
            host_ptr,
            region,
        })
    }
}

impl Command for BufferRectTransfer {
    fn command_type(&self) -> cl_command_type {
        match self.access {
            HostAccess::Read => CL_COMMAND_READ_BUFFER_RECT,
            HostAccess::Write => CL_COMMAND_WRITE_BUFFER_RECT,
        }
    }

    fn run(self, _queue: &crate::queue::Queue) -> ClResult<()> {
        let (base, host) = (self.mem.base(), self.host_ptr.ptr());
        // SAFETY: the buffer rectangle is inside the buffer (checked); the host rectangle is
        // the application's memory as it described it (the constructor's contract).
        unsafe {
            match self.access {
                HostAccess::Read => copy_rect(base, self.buffer, host, self.host, self.region),
                HostAccess::Write => copy_rect(host, self.host, base, self.buffer, self.region),
            }
        };
        Ok(())
    }
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

/// `clEnqueueCopyBufferRect`.
pub struct CopyBufferRect {
    src: Arc<Mem>,
    dst: Arc<Mem>,
    src_layout: RectLayout,
    dst_layout: RectLayout,
    region: [usize; 3],
}

impl CopyBufferRect {
    /// `pitches`: source row and slice, destination row and slice.
    pub fn new(
        src: Arc<Mem>,
        dst: Arc<Mem>,
        src_origin: Option<[usize; 3]>,
        dst_origin: Option<[usize; 3]>,
        region: Option<[usize; 3]>,
        pitches: [usize; 4],
    ) -> ClResult<Self> {
        let (s_origin, d_origin, region) = origins_and_region(src_origin, dst_origin, region)?;
        let s = RectLayout::new(s_origin, region, pitches[0], pitches[1])?;
        let d = RectLayout::new(d_origin, region, pitches[2], pitches[3])?;
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
        Ok(CopyBufferRect {
            src,
            dst,
            src_layout: s,
            dst_layout: d,
            region,
        })
    }
}

impl Command for CopyBufferRect {
    fn command_type(&self) -> cl_command_type {
        CL_COMMAND_COPY_BUFFER_RECT
    }

    fn run(self, _queue: &crate::queue::Queue) -> ClResult<()> {
        // SAFETY: both rectangles are in bounds and do not overlap (checked).
        unsafe {
            copy_rect(
                self.src.base(),
                self.src_layout,
                self.dst.base(),
                self.dst_layout,
                self.region,
            )
        };
        Ok(())
    }
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
    fn sizes_near_usize_max_are_out_of_bounds() {
        let max = usize::MAX;
        let code = |r: ClResult<RectLayout>| r.unwrap_err().code();
        // region[1] * row_pitch, origin[2] * slice_pitch, and the sum of the origin terms.
        assert_eq!(
            code(RectLayout::new([0; 3], [1, 2, 1], max, 0)),
            CL_INVALID_VALUE
        );
        assert_eq!(
            code(RectLayout::new([0, 0, 2], [1, 1, 1], 1, max)),
            CL_INVALID_VALUE
        );
        assert_eq!(
            code(RectLayout::new([max, 1, 0], [1, 1, 1], 1, 0)),
            CL_INVALID_VALUE
        );
        // A start that fits with an end that does not.
        let l = RectLayout::new([max - 1, 0, 0], [2, 1, 1], 0, 0).unwrap();
        assert_eq!(l.end([2, 1, 1]), None);
        let l = RectLayout::new([0; 3], [1, 1, 3], 1, max / 2 + 1).unwrap();
        assert_eq!(l.end([1, 1, 3]), None);
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
