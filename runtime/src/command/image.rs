//! Image commands: read, write, copy, fill, and copies between images and buffers.
//!
//! The host commands address an image with the API's `origin`/`region`, whose second
//! coordinate is the layer of a 1D image array; `ImageGeometry::api_pitches` gives the byte
//! stride of each coordinate, so every command is a rectangle copy ([`copy_rect`]) between
//! the image's layout and another one. `ImageGeometry::check_region` bounds the image side
//! (`origin + region` checked); the host and buffer sides are combined with checked
//! arithmetic here.

use std::sync::Arc;

use khronos_headers::*;

use super::rect::{RectLayout, copy_rect};
use super::{Command, HostAccess, HostPtr, check_host_access, origin, region};
use crate::error::{ClError, ClResult, fail};
use crate::image::{FillKind, Format, ImageGeometry};
use crate::memory::Mem;
use crate::memory::fill::fill_pattern;

/// An image's format and geometry: "CL_INVALID_MEM_OBJECT if image is not a valid image
/// object" (the C layer passes only images; a buffer gets that code here too).
fn image_parts(mem: &Mem) -> ClResult<(Format, ImageGeometry)> {
    match mem.image_info() {
        Some(info) => Ok((info.format, info.geometry)),
        None => fail(CL_INVALID_MEM_OBJECT),
    }
}

/// The rectangle at `origin` of an image, in bytes, in the image's layout (`origin` inside
/// the image: checked by `check_region`).
fn image_rect(g: &ImageGeometry, origin: [usize; 3]) -> RectLayout {
    let (row_pitch, slice_pitch) = g.api_pitches();
    RectLayout {
        start: origin[0] * g.element_size + origin[1] * row_pitch + origin[2] * slice_pitch,
        row_pitch,
        slice_pitch,
    }
}

/// A region in bytes along x (`region` inside the image).
fn region_bytes(g: &ImageGeometry, region: [usize; 3]) -> [usize; 3] {
    [region[0] * g.element_size, region[1], region[2]]
}

/// The host side of a read or write: "If row_pitch is set to 0, the appropriate row pitch
/// is calculated based on the size of each element in bytes multiplied by width"; "If
/// slice_pitch is set to 0, [it] is calculated as region[1] * row_pitch for a 3D image or
/// 2D image array; row_pitch for a 1D image array" — and a given pitch must be at least
/// that ("CL_INVALID_VALUE"; a `region[1] * row_pitch` that does not fit a `size_t` too).
fn host_rect(
    g: &ImageGeometry,
    region: [usize; 3],
    row_pitch: usize,
    slice_pitch: usize,
) -> ClResult<RectLayout> {
    let invalid = ClError(CL_INVALID_VALUE);
    let min_row = region[0].checked_mul(g.element_size).ok_or(invalid)?;
    let row = if row_pitch == 0 { min_row } else { row_pitch };
    if row < min_row {
        return fail(CL_INVALID_VALUE);
    }
    let is_1d_array = g.image_type == CL_MEM_OBJECT_IMAGE1D_ARRAY;
    let min_slice = if is_1d_array {
        row
    } else {
        row.checked_mul(region[1]).ok_or(invalid)?
    };
    let slice = if slice_pitch == 0 {
        min_slice
    } else {
        slice_pitch
    };
    if slice < min_slice {
        return fail(CL_INVALID_VALUE);
    }
    // A 1D array's layers (its second coordinate) are `slice` apart in host memory.
    let row = if is_1d_array { slice } else { row };
    Ok(RectLayout {
        start: 0,
        row_pitch: row,
        slice_pitch: slice,
    })
}

/// `clEnqueueReadImage` (`HostAccess::Read`: image to host) and `clEnqueueWriteImage`.
pub struct ImageTransfer {
    mem: Arc<Mem>,
    access: HostAccess,
    rect: RectLayout,
    host: RectLayout,
    host_ptr: HostPtr,
    bytes: [usize; 3],
}

impl ImageTransfer {
    /// # Safety
    /// `host_ptr` must stay valid for the host rectangle (`row_pitch`, `slice_pitch`) until
    /// the command completes.
    pub unsafe fn new(
        mem: Arc<Mem>,
        access: HostAccess,
        origin: Option<[usize; 3]>,
        region: Option<[usize; 3]>,
        row_pitch: usize,
        slice_pitch: usize,
        host_ptr: Option<HostPtr>,
    ) -> ClResult<Self> {
        check_host_access(&mem, access)?;
        let (origin, region) = (self::origin(origin)?, self::region(region)?);
        let (_, g) = image_parts(&mem)?;
        g.check_region(origin, region)?;
        // "CL_INVALID_VALUE if ... ptr is a NULL value."
        let Some(host_ptr) = host_ptr else {
            return fail(CL_INVALID_VALUE);
        };
        let host = host_rect(&g, region, row_pitch, slice_pitch)?;
        let bytes = region_bytes(&g, region);
        // The host rectangle must at least fit the address space.
        if host
            .end(bytes)
            .and_then(|e| e.checked_add(host_ptr.address()))
            .is_none()
        {
            return fail(CL_INVALID_VALUE);
        }
        Ok(ImageTransfer {
            rect: image_rect(&g, origin),
            mem,
            access,
            host,
            host_ptr,
            bytes,
        })
    }
}

impl Command for ImageTransfer {
    fn command_type(&self) -> cl_command_type {
        match self.access {
            HostAccess::Read => CL_COMMAND_READ_IMAGE,
            HostAccess::Write => CL_COMMAND_WRITE_IMAGE,
        }
    }

    fn run(self, _queue: &crate::queue::Queue) -> ClResult<()> {
        let (base, host) = (self.mem.base(), self.host_ptr.ptr());
        // SAFETY: the image rectangle is inside the image (checked); the host rectangle is
        // the application's memory as it described it (the constructor's contract).
        unsafe {
            match self.access {
                HostAccess::Read => copy_rect(base, self.rect, host, self.host, self.bytes),
                HostAccess::Write => copy_rect(host, self.host, base, self.rect, self.bytes),
            }
        };
        Ok(())
    }
}

/// Whether two boxes of the API's coordinates intersect (both inside one image, so the
/// sums cannot overflow).
fn boxes_overlap(a: [usize; 3], b: [usize; 3], region: [usize; 3]) -> bool {
    (0..3).all(|d| a[d] < b[d] + region[d] && b[d] < a[d] + region[d])
}

/// `clEnqueueCopyImage`.
pub struct CopyImage {
    src: Arc<Mem>,
    dst: Arc<Mem>,
    src_rect: RectLayout,
    dst_rect: RectLayout,
    bytes: [usize; 3],
}

impl CopyImage {
    pub fn new(
        src: Arc<Mem>,
        dst: Arc<Mem>,
        src_origin: Option<[usize; 3]>,
        dst_origin: Option<[usize; 3]>,
        region: Option<[usize; 3]>,
    ) -> ClResult<Self> {
        let ((src_format, sg), (dst_format, dg)) = (image_parts(&src)?, image_parts(&dst)?);
        // "CL_IMAGE_FORMAT_MISMATCH if src_image and dst_image do not use the same image
        // format."
        if src_format != dst_format {
            return fail(CL_IMAGE_FORMAT_MISMATCH);
        }
        let (so, dor, region) = super::origins_and_region(src_origin, dst_origin, region)?;
        sg.check_region(so, region)?;
        dg.check_region(dor, region)?;
        // "CL_MEM_COPY_OVERLAP if src_image and dst_image are the same image object and the
        // source and destination regions overlap."
        if Arc::ptr_eq(&src, &dst) && boxes_overlap(so, dor, region) {
            return fail(CL_MEM_COPY_OVERLAP);
        }
        Ok(CopyImage {
            src_rect: image_rect(&sg, so),
            dst_rect: image_rect(&dg, dor),
            bytes: region_bytes(&sg, region),
            src,
            dst,
        })
    }
}

impl Command for CopyImage {
    fn command_type(&self) -> cl_command_type {
        CL_COMMAND_COPY_IMAGE
    }

    fn run(self, _queue: &crate::queue::Queue) -> ClResult<()> {
        // SAFETY: both rectangles are inside their images (checked).
        unsafe {
            copy_rect(
                self.src.base(),
                self.src_rect,
                self.dst.base(),
                self.dst_rect,
                self.bytes,
            )
        };
        Ok(())
    }
}

/// One element holding `color` (the 16 bytes of `fill_color`) converted to the image's
/// format: "a four component RGBA floating-point color value if the image channel data
/// type is not an unnormalized signed and unsigned integer type ... a four component signed
/// integer value ... a four component unsigned integer value".
fn fill_element(format: Format, color: [u32; 4]) -> Vec<u8> {
    let mut element = vec![0u8; format.element_size()];
    match format.fill_kind() {
        FillKind::Float => format.encode_float(color.map(f32::from_bits), &mut element),
        FillKind::Int => format.encode_int(color.map(|w| w as i32), &mut element),
        FillKind::Uint => format.encode_uint(color, &mut element),
    }
    element
}

/// `clEnqueueFillImage`.
pub struct FillImage {
    mem: Arc<Mem>,
    element: Vec<u8>,
    rect: RectLayout,
    region: [usize; 3],
}

impl FillImage {
    /// `color`: the 16 bytes at `fill_color` as four 32-bit words, read now (the
    /// application may reuse its memory at once); `None` for NULL.
    pub fn new(
        mem: Arc<Mem>,
        color: Option<[u32; 4]>,
        origin: Option<[usize; 3]>,
        region: Option<[usize; 3]>,
    ) -> ClResult<Self> {
        // "CL_INVALID_VALUE if fill_color is NULL", "if the region being filled as specified
        // by origin and region is out of bounds or if ... origin or region is NULL".
        let Some(color) = color else {
            return fail(CL_INVALID_VALUE);
        };
        let (origin, region) = (self::origin(origin)?, self::region(region)?);
        let (format, g) = image_parts(&mem)?;
        g.check_region(origin, region)?;
        Ok(FillImage {
            element: fill_element(format, color),
            rect: image_rect(&g, origin),
            mem,
            region,
        })
    }
}

impl Command for FillImage {
    fn command_type(&self) -> cl_command_type {
        CL_COMMAND_FILL_IMAGE
    }

    fn run(self, _queue: &crate::queue::Queue) -> ClResult<()> {
        let width = self.region[0] * self.element.len();
        for z in 0..self.region[2] {
            for y in 0..self.region[1] {
                // SAFETY: the row lies inside the image (checked).
                let target = unsafe {
                    std::slice::from_raw_parts_mut(self.mem.base().add(self.rect.row(y, z)), width)
                };
                fill_pattern(target, &self.element);
            }
        }
        Ok(())
    }
}

/// `clEnqueueCopyImageToBuffer` (`to_buffer`) and `clEnqueueCopyBufferToImage`: the buffer
/// side is the region packed ("the size in bytes of the region to be copied from src_image
/// ... is computed as width * height * depth * bytes/image element").
pub struct ImageBufferCopy {
    image: Arc<Mem>,
    buffer: Arc<Mem>,
    to_buffer: bool,
    image_side: RectLayout,
    buffer_side: RectLayout,
    bytes: [usize; 3],
}

impl ImageBufferCopy {
    pub fn new(
        image: Arc<Mem>,
        buffer: Arc<Mem>,
        origin: Option<[usize; 3]>,
        region: Option<[usize; 3]>,
        offset: usize,
        to_buffer: bool,
    ) -> ClResult<Self> {
        let (origin, region) = (self::origin(origin)?, self::region(region)?);
        let (_, g) = image_parts(&image)?;
        g.check_region(origin, region)?;
        let bytes = region_bytes(&g, region);
        let row = bytes[0];
        // "CL_INVALID_VALUE if the region specified by dst_offset and dst_offset + dst_cb
        // refer to a region outside dst_buffer" (the product and the sum checked).
        let size = row
            .checked_mul(region[1])
            .and_then(|s| s.checked_mul(region[2]));
        if size.is_none_or(|size| !buffer.contains(offset, size)) {
            return fail(CL_INVALID_VALUE);
        }
        Ok(ImageBufferCopy {
            image_side: image_rect(&g, origin),
            buffer_side: RectLayout {
                start: offset,
                row_pitch: row,
                slice_pitch: row * region[1],
            },
            image,
            buffer,
            to_buffer,
            bytes,
        })
    }
}

impl Command for ImageBufferCopy {
    fn command_type(&self) -> cl_command_type {
        if self.to_buffer {
            CL_COMMAND_COPY_IMAGE_TO_BUFFER
        } else {
            CL_COMMAND_COPY_BUFFER_TO_IMAGE
        }
    }

    fn run(self, _queue: &crate::queue::Queue) -> ClResult<()> {
        let (image, buffer) = (self.image.base(), self.buffer.base());
        let (i, b) = (self.image_side, self.buffer_side);
        // SAFETY: both rectangles are inside their objects (checked).
        unsafe {
            if self.to_buffer {
                copy_rect(image, i, buffer, b, self.bytes);
            } else {
                copy_rect(buffer, b, image, i, self.bytes);
            }
        }
        Ok(())
    }
}

/// `CL_MEM_COPY_HOST_PTR` for a new image: copies the host image (laid out as `desc`'s
/// pitches say, `host`) into `storage` (laid out as `g`).
///
/// # Safety
/// `host_ptr` must hold the image as `host` describes it; `storage` must hold `g.size()`
/// bytes, distinct from the host's.
pub unsafe fn copy_from_host(
    host_ptr: *const u8,
    host: &ImageGeometry,
    storage: *mut u8,
    g: &ImageGeometry,
) {
    let (row, slice) = g.api_pitches();
    let (host_row, host_slice) = host.api_pitches();
    let region = g.api_extent();
    let bytes = [region[0] * g.element_size, region[1], region[2]];
    let layout = |row_pitch, slice_pitch| RectLayout {
        start: 0,
        row_pitch,
        slice_pitch,
    };
    // SAFETY: the caller's contract.
    unsafe {
        copy_rect(
            host_ptr,
            layout(host_row, host_slice),
            storage,
            layout(row, slice),
            bytes,
        )
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn array_1d() -> ImageGeometry {
        let desc = cl_image_desc {
            image_type: CL_MEM_OBJECT_IMAGE1D_ARRAY,
            image_width: 8,
            image_height: 0,
            image_depth: 0,
            image_array_size: 4,
            image_row_pitch: 0,
            image_slice_pitch: 0,
            num_mip_levels: 0,
            num_samples: 0,
            buffer: std::ptr::null_mut(),
        };
        ImageGeometry::new(&desc, 4, false, false).unwrap()
    }

    #[test]
    fn host_pitches_default_and_check() {
        let g = array_1d();
        // A 1D array's layers are its second coordinate: `slice` apart on the host.
        let host = host_rect(&g, [8, 2, 1], 0, 64).unwrap();
        assert_eq!((host.row_pitch, host.slice_pitch), (64, 64));
        assert_eq!(
            host_rect(&g, [8, 2, 1], 16, 0).unwrap_err().code(),
            CL_INVALID_VALUE
        );
        assert_eq!(image_rect(&g, [1, 3, 0]).start, 4 + 3 * 32);
        assert!(boxes_overlap([0, 0, 0], [3, 0, 0], [4, 1, 1]));
        assert!(!boxes_overlap([0, 0, 0], [4, 0, 0], [4, 1, 1]));
    }

    #[test]
    fn host_pitches_near_usize_max_are_invalid() {
        let mut desc = cl_image_desc {
            image_type: CL_MEM_OBJECT_IMAGE3D,
            image_width: 4,
            image_height: 4,
            image_depth: 4,
            image_array_size: 0,
            image_row_pitch: 0,
            image_slice_pitch: 0,
            num_mip_levels: 0,
            num_samples: 0,
            buffer: std::ptr::null_mut(),
        };
        let g = ImageGeometry::new(&desc, 4, false, false).unwrap();
        // region[1] * row_pitch does not fit.
        let err = host_rect(&g, [4, 4, 1], usize::MAX / 2, 0).unwrap_err();
        assert_eq!(err.code(), CL_INVALID_VALUE);
        // The pitches fit, the rectangle's end does not.
        let host = host_rect(&g, [4, 1, 4], 16, usize::MAX / 2).unwrap();
        assert_eq!(host.end([16, 1, 4]), None);
        desc.image_type = CL_MEM_OBJECT_IMAGE2D;
        let g = ImageGeometry::new(&desc, 4, false, false).unwrap();
        assert!(host_rect(&g, [4, 4, 1], 16, 0).is_ok());
    }
}
