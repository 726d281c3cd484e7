//! Images (section 5.3): their format and geometry, checked as `clCreateImage` requires,
//! and the descriptor kernels read them through.
//!
//! An image is a memory object whose storage is laid out in rows and slices. Two views of
//! its coordinates exist: the API's (`origin`/`region` of the image commands, where a 1D
//! image array's layer is the second coordinate) and the kernel's descriptor, which keeps
//! every kind's layers or slices in z. [`ImageGeometry::api_pitches`] bridges the two for
//! the host commands.

use khronos_headers::*;

pub use clift_builtins::image::ImageDescriptor;
pub use clift_builtins::image::format::{FillKind, Format};
use clift_builtins::types::ImageKind;

use crate::device::limits;
use crate::error::{ClResult, fail};

/// The image types of OpenCL 1.2 and their kernel-side kinds.
pub const IMAGE_TYPES: [(cl_mem_object_type, ImageKind); 6] = [
    (CL_MEM_OBJECT_IMAGE1D, ImageKind::Image1d),
    (CL_MEM_OBJECT_IMAGE1D_ARRAY, ImageKind::Image1dArray),
    (CL_MEM_OBJECT_IMAGE1D_BUFFER, ImageKind::Image1dBuffer),
    (CL_MEM_OBJECT_IMAGE2D, ImageKind::Image2d),
    (CL_MEM_OBJECT_IMAGE2D_ARRAY, ImageKind::Image2dArray),
    (CL_MEM_OBJECT_IMAGE3D, ImageKind::Image3d),
];

/// The kernel-side kind of an image type (`None` for anything else).
pub fn kind_of(image_type: cl_mem_object_type) -> Option<ImageKind> {
    IMAGE_TYPES
        .iter()
        .find(|(t, _)| *t == image_type)
        .map(|(_, k)| *k)
}

/// "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR if values specified in image_format are not valid"
/// and "CL_IMAGE_FORMAT_NOT_SUPPORTED if the image_format is not supported": the `CL_Rx`,
/// `CL_RGx` and `CL_RGBx` orders are valid in 1.2 but not offered by clift.
pub fn checked_format(format: &cl_image_format) -> ClResult<Format> {
    let f = Format::new(format.image_channel_order, format.image_channel_data_type);
    if f.is_supported() {
        return Ok(f);
    }
    // A padded order is valid with the channel types of the order it pads.
    let unpadded = [(CL_Rx, CL_R), (CL_RGx, CL_RG), (CL_RGBx, CL_RGB)]
        .into_iter()
        .find(|&(padded, _)| padded == f.order)
        .map(|(_, order)| order);
    if unpadded.is_some_and(|order| Format { order, ..f }.is_supported()) {
        return fail(CL_IMAGE_FORMAT_NOT_SUPPORTED);
    }
    fail(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
}

/// What makes a memory object an image.
#[derive(Clone, Copy, Debug)]
pub struct ImageInfo {
    pub format: Format,
    pub geometry: ImageGeometry,
    /// What a kernel's image argument points to.
    pub descriptor: ImageDescriptor,
}

/// An image's type, size and storage pitches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageGeometry {
    pub image_type: cl_mem_object_type,
    pub width: usize,
    /// 1 for the 1D types.
    pub height: usize,
    /// 1 except for 3D images.
    pub depth: usize,
    /// Layers of an array type, 0 otherwise (as `CL_IMAGE_ARRAY_SIZE` reports).
    pub array_size: usize,
    pub element_size: usize,
    /// Bytes per row of the storage.
    pub row_pitch: usize,
    /// Bytes per 2D slice (3D), per layer (arrays); 0 for 1D and 2D images.
    pub slice_pitch: usize,
}

impl ImageGeometry {
    /// Checks `desc` as `clCreateImage` does. `has_host_ptr`: the pitches are the host
    /// memory's and may be given; without one they "must be 0". The storage pitches are
    /// the host's with `CL_MEM_USE_HOST_PTR` (`use_host_layout`), packed otherwise.
    pub fn new(
        desc: &cl_image_desc,
        element_size: usize,
        has_host_ptr: bool,
        use_host_layout: bool,
    ) -> ClResult<ImageGeometry> {
        let image_type = desc.image_type;
        let kind = kind_of(image_type).ok_or(crate::ClError(CL_INVALID_IMAGE_DESCRIPTOR))?;
        if desc.num_mip_levels != 0 || desc.num_samples != 0 {
            return fail(CL_INVALID_IMAGE_DESCRIPTOR);
        }
        let (is_2d, is_3d, is_array) = (
            matches!(kind, ImageKind::Image2d | ImageKind::Image2dArray),
            kind == ImageKind::Image3d,
            matches!(kind, ImageKind::Image1dArray | ImageKind::Image2dArray),
        );
        let width = desc.image_width;
        let height = if is_2d || is_3d { desc.image_height } else { 1 };
        let depth = if is_3d { desc.image_depth } else { 1 };
        let array_size = if is_array { desc.image_array_size } else { 0 };
        // "CL_INVALID_IMAGE_SIZE if image dimensions specified in image_desc exceed the
        // maximum image dimensions described in table 4.3 for all devices in context" (and
        // a dimension of 0 is no image at all).
        let (max_w, max_h) = match kind {
            ImageKind::Image3d => (limits::IMAGE3D_MAX_SIDE, limits::IMAGE3D_MAX_SIDE),
            ImageKind::Image1dBuffer => (limits::IMAGE_MAX_BUFFER_SIZE, 1),
            _ => (limits::IMAGE2D_MAX_SIDE, limits::IMAGE2D_MAX_SIDE),
        };
        let too_big = width == 0
            || width > max_w
            || height == 0
            || height > max_h
            || depth == 0
            || depth > limits::IMAGE3D_MAX_SIDE
            || (is_array && (array_size == 0 || array_size > limits::IMAGE_MAX_ARRAY_SIZE));
        if too_big {
            return fail(CL_INVALID_IMAGE_SIZE);
        }
        let packed_row = width * element_size;
        let has_slices = is_3d || is_array;
        // "image_row_pitch ... must be 0 if host_ptr is NULL and can be either 0 or >=
        // image_width * size of element in bytes if host_ptr is not NULL ... If
        // image_row_pitch is not 0, it must be a multiple of the image element size".
        let row = desc.image_row_pitch;
        if row != 0 && (!has_host_ptr || row < packed_row || !row.is_multiple_of(element_size)) {
            return fail(CL_INVALID_IMAGE_DESCRIPTOR);
        }
        let host_row = if row == 0 { packed_row } else { row };
        // "image_slice_pitch ... must be 0 if host_ptr is NULL. If host_ptr is not NULL,
        // image_slice_pitch can be either 0 or >= image_row_pitch * image_height for a 2D
        // image array or 3D image and can be either 0 or >= image_row_pitch for a 1D image
        // array ... it must be a multiple of the image_row_pitch."
        // A pitch from the application is combined with checked arithmetic: an image whose
        // bytes do not fit a `size_t` exceeds every maximum, as a large one that fits does
        // (`CL_INVALID_IMAGE_SIZE` when its size is compared with the allocation limit).
        let too_large = crate::ClError(CL_INVALID_IMAGE_SIZE);
        let min_slice = if kind == ImageKind::Image1dArray {
            host_row
        } else {
            host_row.checked_mul(height).ok_or(too_large)?
        };
        let slice = desc.image_slice_pitch;
        if slice != 0
            && (!has_host_ptr
                || !has_slices
                || slice < min_slice
                || !slice.is_multiple_of(host_row))
        {
            return fail(CL_INVALID_IMAGE_DESCRIPTOR);
        }
        let host_slice = if slice == 0 { min_slice } else { slice };
        let (row_pitch, slice_pitch) = if use_host_layout {
            (host_row, host_slice)
        } else if kind == ImageKind::Image1dArray {
            (packed_row, packed_row)
        } else {
            (packed_row, packed_row * height)
        };
        let geometry = ImageGeometry {
            image_type,
            width,
            height,
            depth,
            array_size,
            element_size,
            row_pitch,
            slice_pitch: if has_slices { slice_pitch } else { 0 },
        };
        geometry.checked_size().ok_or(too_large)?;
        Ok(geometry)
    }

    /// [`ImageGeometry::size`], or `None` where it does not fit a `usize`.
    fn checked_size(&self) -> Option<usize> {
        let [w, h, d] = self.extent();
        (d - 1)
            .checked_mul(self.slice_pitch)?
            .checked_add((h - 1).checked_mul(self.row_pitch)?)?
            .checked_add(w.checked_mul(self.element_size)?)
    }

    pub fn kind(&self) -> ImageKind {
        kind_of(self.image_type).unwrap_or(ImageKind::Image2d)
    }

    /// Elements along the descriptor's x, y, z (z: slices or layers).
    pub fn extent(&self) -> [usize; 3] {
        match self.kind() {
            ImageKind::Image1dArray => [self.width, 1, self.array_size],
            ImageKind::Image2dArray => [self.width, self.height, self.array_size],
            _ => [self.width, self.height, self.depth],
        }
    }

    /// The storage's size in bytes (checked to fit when the geometry was made).
    pub fn size(&self) -> usize {
        self.checked_size().unwrap_or(usize::MAX)
    }

    /// The byte strides of the API's second and third coordinates: a 1D array's layers are
    /// its second coordinate in `origin`/`region`.
    pub fn api_pitches(&self) -> (usize, usize) {
        match self.kind() {
            ImageKind::Image1dArray => (self.slice_pitch, self.slice_pitch),
            _ => (self.row_pitch, self.slice_pitch),
        }
    }

    /// The API's extent of each coordinate (what `origin + region` may reach).
    pub fn api_extent(&self) -> [usize; 3] {
        match self.kind() {
            ImageKind::Image1dArray => [self.width, self.array_size, 1],
            ImageKind::Image2dArray => [self.width, self.height, self.array_size],
            _ => [self.width, self.height, self.depth],
        }
    }

    /// "CL_INVALID_VALUE if the region being read or written specified by origin and
    /// region is out of bounds", and the per-type rules: unused coordinates must be 0 in
    /// the origin and 1 in the region.
    pub fn check_region(&self, origin: [usize; 3], region: [usize; 3]) -> ClResult<()> {
        let extent = self.api_extent();
        let dims = match self.kind() {
            ImageKind::Image1d | ImageKind::Image1dBuffer => 1,
            ImageKind::Image1dArray | ImageKind::Image2d => 2,
            _ => 3,
        };
        for d in 0..3 {
            let end = origin[d].checked_add(region[d]);
            let bad = region[d] == 0
                || end.is_none_or(|e| e > extent[d])
                || (d >= dims && (origin[d] != 0 || region[d] != 1));
            if bad {
                return fail(CL_INVALID_VALUE);
            }
        }
        Ok(())
    }

    /// The kernel's descriptor of an image whose element (0, 0, 0) is at `data`.
    pub fn descriptor(&self, format: Format, data: *mut u8) -> ImageDescriptor {
        let [x, y, z] = self.extent();
        ImageDescriptor {
            data,
            row_pitch: self.row_pitch as u64,
            slice_pitch: self.slice_pitch as u64,
            extent: [x as u32, y as u32, z as u32],
            channel_data_type: format.data_type,
            channel_order: format.order,
            element_size: self.element_size as u32,
            kind: ImageDescriptor::kind_index(self.kind()),
            _pad: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn desc(
        image_type: cl_mem_object_type,
        w: usize,
        h: usize,
        d: usize,
        a: usize,
    ) -> cl_image_desc {
        cl_image_desc {
            image_type,
            image_width: w,
            image_height: h,
            image_depth: d,
            image_array_size: a,
            image_row_pitch: 0,
            image_slice_pitch: 0,
            num_mip_levels: 0,
            num_samples: 0,
            buffer: std::ptr::null_mut(),
        }
    }

    #[test]
    fn packed_geometry_of_each_type() {
        let g =
            ImageGeometry::new(&desc(CL_MEM_OBJECT_IMAGE2D, 5, 3, 0, 0), 4, false, false).unwrap();
        assert_eq!((g.row_pitch, g.slice_pitch, g.size()), (20, 0, 60));
        let a = ImageGeometry::new(
            &desc(CL_MEM_OBJECT_IMAGE1D_ARRAY, 5, 0, 0, 7),
            2,
            false,
            false,
        )
        .unwrap();
        assert_eq!((a.extent(), a.api_extent()), ([5, 1, 7], [5, 7, 1]));
        assert_eq!((a.api_pitches(), a.size()), ((10, 10), 70));
        let v =
            ImageGeometry::new(&desc(CL_MEM_OBJECT_IMAGE3D, 4, 3, 2, 0), 1, false, false).unwrap();
        assert_eq!((v.slice_pitch, v.size()), (12, 24));
    }

    #[test]
    fn pitches_follow_the_host_pointer_rules() {
        let mut d = desc(CL_MEM_OBJECT_IMAGE2D, 5, 3, 0, 0);
        d.image_row_pitch = 24;
        let err =
            |d: &cl_image_desc, host| ImageGeometry::new(d, 4, host, host).unwrap_err().code();
        // A pitch without a host pointer.
        assert_eq!(err(&d, false), CL_INVALID_IMAGE_DESCRIPTOR);
        let g = ImageGeometry::new(&d, 4, true, true).unwrap();
        assert_eq!((g.row_pitch, g.size()), (24, 68));
        d.image_row_pitch = 22; // not a multiple of the element
        assert_eq!(err(&d, true), CL_INVALID_IMAGE_DESCRIPTOR);
        d.image_row_pitch = 16; // shorter than a row
        assert_eq!(err(&d, true), CL_INVALID_IMAGE_DESCRIPTOR);
        let mut v = desc(CL_MEM_OBJECT_IMAGE3D, 4, 3, 2, 0);
        v.image_slice_pitch = 40; // not a multiple of the 16-byte row
        assert_eq!(err(&v, true), CL_INVALID_IMAGE_DESCRIPTOR);
        v.image_slice_pitch = 64;
        assert_eq!(
            ImageGeometry::new(&v, 4, true, true).unwrap().size(),
            64 + 48
        );
        assert_eq!(
            err(&desc(CL_MEM_OBJECT_IMAGE2D, 0, 3, 0, 0), false),
            CL_INVALID_IMAGE_SIZE
        );
        assert_eq!(
            err(&desc(CL_MEM_OBJECT_IMAGE2D, 16385, 3, 0, 0), false),
            CL_INVALID_IMAGE_SIZE
        );
        assert_eq!(
            err(&desc(CL_MEM_OBJECT_BUFFER, 1, 1, 1, 0), false),
            CL_INVALID_IMAGE_DESCRIPTOR
        );
    }

    #[test]
    fn pitches_whose_image_does_not_fit_a_size_t_are_too_large() {
        let err = |d: &cl_image_desc| ImageGeometry::new(d, 4, true, true).unwrap_err().code();
        // image_row_pitch * image_height does not fit.
        let mut d = desc(CL_MEM_OBJECT_IMAGE2D_ARRAY, 4, 3, 0, 2);
        d.image_row_pitch = (usize::MAX / 2) & !3;
        assert_eq!(err(&d), CL_INVALID_IMAGE_SIZE);
        // The pitches fit; (depth - 1) * slice_pitch + ... does not.
        let mut v = desc(CL_MEM_OBJECT_IMAGE3D, 4, 3, 3, 0);
        v.image_slice_pitch = (usize::MAX / 2) & !15;
        v.image_row_pitch = 16;
        assert_eq!(err(&v), CL_INVALID_IMAGE_SIZE);
        // (height - 1) * row_pitch of a 2D image.
        let mut r = desc(CL_MEM_OBJECT_IMAGE2D, 4, 3, 0, 0);
        r.image_row_pitch = (usize::MAX / 2) & !3;
        assert_eq!(err(&r), CL_INVALID_IMAGE_SIZE);
    }

    #[test]
    fn regions_are_checked_per_type() {
        let g =
            ImageGeometry::new(&desc(CL_MEM_OBJECT_IMAGE2D, 5, 3, 0, 0), 4, false, false).unwrap();
        assert!(g.check_region([1, 1, 0], [4, 2, 1]).is_ok());
        assert!(g.check_region([1, 1, 0], [5, 2, 1]).is_err());
        assert!(g.check_region([0, 0, 1], [1, 1, 1]).is_err());
        assert!(g.check_region([0, 0, 0], [1, 1, 2]).is_err());
        let a = ImageGeometry::new(
            &desc(CL_MEM_OBJECT_IMAGE1D_ARRAY, 5, 0, 0, 7),
            2,
            false,
            false,
        )
        .unwrap();
        assert!(a.check_region([0, 6, 0], [5, 1, 1]).is_ok());
        assert!(a.check_region([0, 6, 0], [5, 2, 1]).is_err());
    }

    #[test]
    fn formats_are_checked() {
        let f = |order, data_type| {
            checked_format(&cl_image_format {
                image_channel_order: order,
                image_channel_data_type: data_type,
            })
            .map_err(|e| e.code())
        };
        assert!(f(CL_RGBA, CL_UNORM_INT8).is_ok());
        assert_eq!(f(CL_RGBA, 0x1234), Err(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR));
        assert_eq!(f(CL_RGB, CL_FLOAT), Err(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR));
        assert_eq!(f(CL_Rx, CL_FLOAT), Err(CL_IMAGE_FORMAT_NOT_SUPPORTED));
        assert_eq!(
            f(CL_RGBx, CL_UNORM_SHORT_565),
            Err(CL_IMAGE_FORMAT_NOT_SUPPORTED)
        );
    }
}
