//! Maps: `clEnqueueMapBuffer`, `clEnqueueMapImage`, `clEnqueueUnmapMemObject`.
//!
//! Maps are zero copy: the pointer handed out is the object's own memory (for
//! `CL_MEM_USE_HOST_PTR` objects, the application's `host_ptr` at the offset, as the spec
//! requires). The mapping is recorded when the command is enqueued, so the pointer is valid
//! for unmapping at once; the command itself only orders the map after its wait list.

use std::ffi::c_void;
use std::sync::Arc;

use khronos_headers::*;

use super::{Command, HostAccess, HostPtr, check_host_access, origin, region};
use crate::error::{ClResult, fail};
use crate::event::Event;
use crate::memory::Mem;
use crate::queue::Queue;

/// "CL_INVALID_VALUE if ... values specified in map_flags are not valid", and
/// "CL_INVALID_OPERATION if buffer has been created with CL_MEM_HOST_WRITE_ONLY or
/// CL_MEM_HOST_NO_ACCESS and CL_MAP_READ is set in map_flags or if buffer has been created
/// with CL_MEM_HOST_READ_ONLY or CL_MEM_HOST_NO_ACCESS and CL_MAP_WRITE or
/// CL_MAP_WRITE_INVALIDATE_REGION is set in map_flags" (the same for images).
fn check_map_flags(mem: &Mem, map_flags: cl_map_flags) -> ClResult<()> {
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

/// A map of a buffer or an image, validated: where it points.
pub struct Map {
    command_type: cl_command_type,
    mem: Arc<Mem>,
    /// A pointer into `mem`'s own memory.
    mapped: HostPtr,
}

impl Map {
    /// `clEnqueueMapBuffer`: "CL_INVALID_VALUE if region being mapped given by (offset,
    /// size) is out of bounds or if size is 0 or if values specified in map_flags are not
    /// valid" (`offset + size` checked).
    pub fn buffer(
        mem: Arc<Mem>,
        map_flags: cl_map_flags,
        offset: usize,
        size: usize,
    ) -> ClResult<Self> {
        if size == 0 || !mem.contains(offset, size) {
            return fail(CL_INVALID_VALUE);
        }
        check_map_flags(&mem, map_flags)?;
        let mapped = mem.base().wrapping_add(offset);
        Ok(Map {
            command_type: CL_COMMAND_MAP_BUFFER,
            mapped: HostPtr(mapped as usize),
            mem,
        })
    }

    /// `clEnqueueMapImage`, with whether the application gave `image_row_pitch` and
    /// `image_slice_pitch` to write to: "CL_INVALID_VALUE if image_row_pitch is NULL", "if
    /// image is a 3D image, 1D or 2D image array object and image_slice_pitch is NULL".
    /// The pitches to report are [`Map::image_pitches`].
    pub fn image(
        mem: Arc<Mem>,
        map_flags: cl_map_flags,
        origin: Option<[usize; 3]>,
        region: Option<[usize; 3]>,
        has_row_pitch: bool,
        has_slice_pitch: bool,
    ) -> ClResult<Self> {
        let (origin, region) = (self::origin(origin)?, self::region(region)?);
        let Some(info) = mem.image_info() else {
            return fail(CL_INVALID_MEM_OBJECT);
        };
        let g = info.geometry;
        g.check_region(origin, region)?;
        check_map_flags(&mem, map_flags)?;
        let has_slices = matches!(
            g.image_type,
            CL_MEM_OBJECT_IMAGE3D | CL_MEM_OBJECT_IMAGE1D_ARRAY | CL_MEM_OBJECT_IMAGE2D_ARRAY
        );
        if !has_row_pitch || (has_slices && !has_slice_pitch) {
            return fail(CL_INVALID_VALUE);
        }
        // The origin is inside the image (checked), so the offset fits.
        let (row_pitch, slice_pitch) = g.api_pitches();
        let start = origin[0] * g.element_size + origin[1] * row_pitch + origin[2] * slice_pitch;
        let mapped = mem.base().wrapping_add(start);
        Ok(Map {
            command_type: CL_COMMAND_MAP_IMAGE,
            mapped: HostPtr(mapped as usize),
            mem,
        })
    }

    /// The image's own row and slice pitches, which a map reports ("For a 1D and 2D image,
    /// zero is returned" as the slice pitch); zeros for a buffer.
    pub fn image_pitches(&self) -> (usize, usize) {
        self.mem
            .image_info()
            .map_or((0, 0), |i| (i.geometry.row_pitch, i.geometry.slice_pitch))
    }

    /// Records the mapping and enqueues the command that completes it: returns its event
    /// and the mapped pointer. "If the buffer ... cannot be mapped", nothing stays mapped.
    pub fn enqueue(
        self,
        queue: &Arc<Queue>,
        waits: Vec<Arc<Event>>,
        blocking: bool,
    ) -> ClResult<(Arc<Event>, *mut c_void)> {
        let (mem, mapped) = (Arc::clone(&self.mem), self.mapped.ptr());
        mem.add_mapping(mapped);
        match super::enqueue(queue, self, waits, blocking) {
            Ok(event) => Ok((event, mapped.cast())),
            Err(e) => {
                mem.remove_mapping(mapped).ok();
                Err(e)
            }
        }
    }
}

impl Command for Map {
    fn command_type(&self) -> cl_command_type {
        self.command_type
    }

    /// The map itself happened at enqueue time; running the command releases the object
    /// it held until its wait list had finished.
    fn run(self, _queue: &Queue) -> ClResult<()> {
        drop(self.mem);
        Ok(())
    }
}

/// `clEnqueueUnmapMemObject`.
pub struct Unmap {
    mem: Arc<Mem>,
    mapped: HostPtr,
}

impl Unmap {
    /// "CL_INVALID_VALUE if mapped_ptr is not a valid pointer returned by
    /// clEnqueueMapBuffer or clEnqueueMapImage for memobj."
    pub fn new(mem: Arc<Mem>, mapped: Option<HostPtr>) -> ClResult<Self> {
        match mapped {
            Some(mapped) if mem.is_mapped(mapped.ptr()) => Ok(Unmap { mem, mapped }),
            _ => fail(CL_INVALID_VALUE),
        }
    }
}

impl Command for Unmap {
    fn command_type(&self) -> cl_command_type {
        CL_COMMAND_UNMAP_MEM_OBJECT
    }

    fn run(self, _queue: &Queue) -> ClResult<()> {
        self.mem.remove_mapping(self.mapped.ptr())
    }
}
