//! Images in kernels (OpenCL C 6.12.14, chapter 8 of the specification).
//!
//! A kernel's image argument is the address of an [`ImageDescriptor`] that the runtime
//! keeps with the image object. The compiler reads the query functions' answers
//! (`get_image_width`, ...) straight from it, and calls the `extern "C"` functions below for
//! reads and writes:
//!
//! - `clift_read_image{f,i,ui}(desc, sampler, x, y, z, out)` with float coordinates and
//!   `clift_read_image{f,i,ui}_int(...)` with integer ones: `out` receives the four lanes.
//!   The sampler-less reads pass [`Sampler::NONE`]'s bits.
//! - `clift_write_image{f,i,ui}(desc, x, y, z, color)`.
//!
//! Coordinates arrive as x, y, z whatever the image type; the descriptor's kind says which
//! are axes and which is an array layer. Nothing here reads or writes outside the image:
//! coordinates the spec leaves undefined read the border colour and writes there are
//! dropped.

pub mod format;
pub mod sample;

use crate::types::ImageKind;
use format::Format;
use sample::{Sampler, layer, layer_int};

/// What a kernel's image argument points to. `#[repr(C)]`: generated code reads the query
/// fields at the `OFFSET_*` constants.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ImageDescriptor {
    /// Element (0, 0, 0).
    pub data: *mut u8,
    /// Bytes from one row to the next.
    pub row_pitch: u64,
    /// Bytes from one 2D slice (or array layer) to the next.
    pub slice_pitch: u64,
    /// Elements along x, y and z. z counts a 3D image's slices or an array's layers (a 1D
    /// array keeps its layers in z as well, with y = 1), so that one formula addresses
    /// every kind: `data + x * element_size + y * row_pitch + z * slice_pitch`.
    pub extent: [u32; 3],
    /// `CLK_*` channel data type (clift's values are the `CL_*` ones).
    pub channel_data_type: u32,
    /// `CLK_*` channel order.
    pub channel_order: u32,
    pub element_size: u32,
    /// The image type, as an index into [`ImageKind::ALL`].
    pub kind: u32,
    pub _pad: u32,
}

// SAFETY: a descriptor is plain data; the image memory it points to is synchronized by
// OpenCL's command ordering, as for buffers.
unsafe impl Send for ImageDescriptor {}
// SAFETY: as above.
unsafe impl Sync for ImageDescriptor {}

impl ImageDescriptor {
    pub const OFFSET_WIDTH: i32 = 24;
    pub const OFFSET_HEIGHT: i32 = 28;
    pub const OFFSET_DEPTH: i32 = 32;
    pub const OFFSET_CHANNEL_DATA_TYPE: i32 = 36;
    pub const OFFSET_CHANNEL_ORDER: i32 = 40;

    pub fn kind(&self) -> ImageKind {
        ImageKind::ALL[self.kind as usize % ImageKind::ALL.len()]
    }

    pub fn kind_index(kind: ImageKind) -> u32 {
        ImageKind::ALL.iter().position(|&k| k == kind).unwrap_or(0) as u32
    }

    pub fn format(&self) -> Format {
        Format::new(self.channel_order, self.channel_data_type)
    }

    /// How many coordinates are axes (the rest, for arrays, is the layer).
    fn axes(&self) -> usize {
        match self.kind() {
            ImageKind::Image1d | ImageKind::Image1dBuffer | ImageKind::Image1dArray => 1,
            ImageKind::Image2d | ImageKind::Image2dArray => 2,
            ImageKind::Image3d => 3,
        }
    }

    /// The coordinate that selects an array's layer: y for 1D arrays, z for 2D arrays.
    fn layer_coordinate(&self) -> Option<usize> {
        match self.kind() {
            ImageKind::Image1dArray => Some(1),
            ImageKind::Image2dArray => Some(2),
            _ => None,
        }
    }

    /// The bytes of element `idx` (each index below its extent).
    ///
    /// # Safety
    /// The descriptor must describe live memory of at least its extent and pitches.
    unsafe fn texel(&self, idx: [u32; 3]) -> &[u8] {
        // SAFETY: in bounds by the indices and the caller's contract.
        unsafe {
            std::slice::from_raw_parts(self.data.add(self.offset(idx)), self.element_size as usize)
        }
    }

    /// The byte offset of element `idx` (each index below its extent).
    fn offset(&self, idx: [u32; 3]) -> usize {
        debug_assert!((0..3).all(|a| idx[a] < self.extent[a]));
        idx[0] as usize * self.element_size as usize
            + idx[1] as usize * self.row_pitch as usize
            + idx[2] as usize * self.slice_pitch as usize
    }

    /// The mutable bytes of element `idx`.
    ///
    /// # Safety
    /// As [`ImageDescriptor::texel`], and no other reference to the element may exist.
    #[allow(clippy::mut_from_ref)]
    unsafe fn texel_mut(&self, idx: [u32; 3]) -> &mut [u8] {
        let offset = self.offset(idx);
        // SAFETY: in bounds by the indices and the caller's contract.
        unsafe { std::slice::from_raw_parts_mut(self.data.add(offset), self.element_size as usize) }
    }

    /// The element integer coordinates name, or `None` outside the image.
    fn element_at(&self, sampler: Sampler, coords: [i32; 3]) -> Option<[u32; 3]> {
        let mut idx = [0u32; 3];
        if let Some(l) = self.layer_coordinate() {
            idx[2] = layer_int(coords[l], self.extent[2]);
        }
        for (a, slot) in idx.iter_mut().enumerate().take(self.axes()) {
            *slot = sampler.nearest_int(coords[a], self.extent[a])?;
        }
        Some(idx)
    }

    /// The layer a float coordinate selects, placed in z (0 for non-arrays).
    fn base_index(&self, coords: [f32; 3]) -> [u32; 3] {
        let mut idx = [0u32; 3];
        if let Some(l) = self.layer_coordinate() {
            idx[2] = layer(coords[l], self.extent[2]);
        }
        idx
    }

    /// `read_imagef` with float coordinates: nearest or linear filtering (section 8.2).
    ///
    /// # Safety
    /// As [`ImageDescriptor::texel`].
    pub unsafe fn read_float(&self, sampler: Sampler, coords: [f32; 3]) -> [f32; 4] {
        let format = self.format();
        let base = self.base_index(coords);
        let axes = self.axes();
        if !sampler.linear {
            let mut idx = base;
            for a in 0..axes {
                match sampler.nearest(coords[a], self.extent[a]) {
                    Some(i) => idx[a] = i,
                    None => return format.border_float(),
                }
            }
            // SAFETY: every index is inside the extent.
            return format.decode_float(unsafe { self.texel(idx) });
        }
        // On the stack: a read is one call per work-item, too often for the heap.
        let mut pairs = [(None, None, 0.0f32); 3];
        for (a, pair) in pairs.iter_mut().enumerate().take(axes) {
            *pair = sampler.linear_pair(coords[a], self.extent[a]);
        }
        let mut color = [0.0f32; 4];
        for corner in 0..1usize << axes {
            let mut weight = 1.0f32;
            let mut idx = Some(base);
            for (a, &(i0, i1, t)) in pairs.iter().enumerate().take(axes) {
                let (i, w) = if corner >> a & 1 == 1 {
                    (i1, t)
                } else {
                    (i0, 1.0 - t)
                };
                weight *= w;
                idx = idx.zip(i).map(|(mut idx, i)| {
                    idx[a] = i;
                    idx
                });
            }
            let texel = match idx {
                // SAFETY: every index is inside the extent.
                Some(idx) => format.decode_float(unsafe { self.texel(idx) }),
                None => format.border_float(),
            };
            for (c, t) in color.iter_mut().zip(texel) {
                *c += weight * t;
            }
        }
        color
    }

    /// `read_imagei`/`read_imageui` with float coordinates: always nearest (the spec
    /// requires a nearest sampler for them).
    ///
    /// # Safety
    /// As [`ImageDescriptor::texel`].
    pub unsafe fn read_int(&self, sampler: Sampler, coords: [f32; 3]) -> [u32; 4] {
        let format = self.format();
        let mut idx = self.base_index(coords);
        for a in 0..self.axes() {
            match sampler.nearest(coords[a], self.extent[a]) {
                Some(i) => idx[a] = i,
                None => return format.border_int(),
            }
        }
        // SAFETY: every index is inside the extent.
        format.decode_int(unsafe { self.texel(idx) })
    }

    /// `read_imagef` with integer coordinates.
    ///
    /// # Safety
    /// As [`ImageDescriptor::texel`].
    pub unsafe fn read_float_at(&self, sampler: Sampler, coords: [i32; 3]) -> [f32; 4] {
        let format = self.format();
        match self.element_at(sampler, coords) {
            // SAFETY: every index is inside the extent.
            Some(idx) => format.decode_float(unsafe { self.texel(idx) }),
            None => format.border_float(),
        }
    }

    /// `read_imagei`/`read_imageui` with integer coordinates.
    ///
    /// # Safety
    /// As [`ImageDescriptor::texel`].
    pub unsafe fn read_int_at(&self, sampler: Sampler, coords: [i32; 3]) -> [u32; 4] {
        let format = self.format();
        match self.element_at(sampler, coords) {
            // SAFETY: every index is inside the extent.
            Some(idx) => format.decode_int(unsafe { self.texel(idx) }),
            None => format.border_int(),
        }
    }

    /// The element a write at `coords` stores to; `None` outside the image (undefined by
    /// the spec; clift drops the write).
    fn write_target(&self, coords: [i32; 3]) -> Option<[u32; 3]> {
        self.element_at(Sampler::NONE, coords)
    }
}

/// Reads the descriptor behind a kernel's image argument.
///
/// # Safety
/// `desc` must point to a live descriptor.
unsafe fn descriptor<'a>(desc: *const ImageDescriptor) -> &'a ImageDescriptor {
    // SAFETY: the caller's contract (generated code passes the argument slot's value,
    // which the runtime set to a live image's descriptor).
    unsafe { &*desc }
}

/// `read_imagef(image, sampler, float coords)`.
///
/// # Safety
/// `desc` must point to a live descriptor and `out` to four writable floats.
pub unsafe extern "C" fn clift_read_imagef(
    desc: *const ImageDescriptor,
    sampler: u32,
    x: f32,
    y: f32,
    z: f32,
    out: *mut [f32; 4],
) {
    // SAFETY: the caller's contract.
    unsafe { *out = descriptor(desc).read_float(Sampler::from_bits(sampler), [x, y, z]) };
}

/// `read_imagef(image, [sampler,] int coords)`.
///
/// # Safety
/// As [`clift_read_imagef`].
pub unsafe extern "C" fn clift_read_imagef_int(
    desc: *const ImageDescriptor,
    sampler: u32,
    x: i32,
    y: i32,
    z: i32,
    out: *mut [f32; 4],
) {
    // SAFETY: the caller's contract.
    unsafe { *out = descriptor(desc).read_float_at(Sampler::from_bits(sampler), [x, y, z]) };
}

/// `read_imagei`/`read_imageui(image, sampler, float coords)`: the bits are the same.
///
/// # Safety
/// `desc` must point to a live descriptor and `out` to four writable integers.
pub unsafe extern "C" fn clift_read_imagei(
    desc: *const ImageDescriptor,
    sampler: u32,
    x: f32,
    y: f32,
    z: f32,
    out: *mut [u32; 4],
) {
    // SAFETY: the caller's contract.
    unsafe { *out = descriptor(desc).read_int(Sampler::from_bits(sampler), [x, y, z]) };
}

/// `read_imagei`/`read_imageui(image, [sampler,] int coords)`.
///
/// # Safety
/// As [`clift_read_imagei`].
pub unsafe extern "C" fn clift_read_imagei_int(
    desc: *const ImageDescriptor,
    sampler: u32,
    x: i32,
    y: i32,
    z: i32,
    out: *mut [u32; 4],
) {
    // SAFETY: the caller's contract.
    unsafe { *out = descriptor(desc).read_int_at(Sampler::from_bits(sampler), [x, y, z]) };
}

/// `write_imagef(image, coords, color)`.
///
/// # Safety
/// `desc` must point to a live descriptor and `color` to four readable floats.
pub unsafe extern "C" fn clift_write_imagef(
    desc: *const ImageDescriptor,
    x: i32,
    y: i32,
    z: i32,
    color: *const [f32; 4],
) {
    // SAFETY: the caller's contract.
    let (d, color) = unsafe { (descriptor(desc), *color) };
    if let Some(idx) = d.write_target([x, y, z]) {
        // SAFETY: inside the extent; a work-item owns the element it writes.
        d.format().encode_float(color, unsafe { d.texel_mut(idx) });
    }
}

/// `write_imagei(image, coords, color)`.
///
/// # Safety
/// As [`clift_write_imagef`], with four ints.
pub unsafe extern "C" fn clift_write_imagei(
    desc: *const ImageDescriptor,
    x: i32,
    y: i32,
    z: i32,
    color: *const [i32; 4],
) {
    // SAFETY: the caller's contract.
    let (d, color) = unsafe { (descriptor(desc), *color) };
    if let Some(idx) = d.write_target([x, y, z]) {
        // SAFETY: inside the extent; a work-item owns the element it writes.
        d.format().encode_int(color, unsafe { d.texel_mut(idx) });
    }
}

/// `write_imageui(image, coords, color)`.
///
/// # Safety
/// As [`clift_write_imagef`], with four uints.
pub unsafe extern "C" fn clift_write_imageui(
    desc: *const ImageDescriptor,
    x: i32,
    y: i32,
    z: i32,
    color: *const [u32; 4],
) {
    // SAFETY: the caller's contract.
    let (d, color) = unsafe { (descriptor(desc), *color) };
    if let Some(idx) = d.write_target([x, y, z]) {
        // SAFETY: inside the extent; a work-item owns the element it writes.
        d.format().encode_uint(color, unsafe { d.texel_mut(idx) });
    }
}

/// Every image function's symbol and address, for the JIT's symbol table.
pub fn symbols() -> Vec<(&'static str, *const u8)> {
    vec![
        ("clift_read_imagef", clift_read_imagef as *const u8),
        ("clift_read_imagef_int", clift_read_imagef_int as *const u8),
        ("clift_read_imagei", clift_read_imagei as *const u8),
        ("clift_read_imagei_int", clift_read_imagei_int as *const u8),
        ("clift_write_imagef", clift_write_imagef as *const u8),
        ("clift_write_imagei", clift_write_imagei as *const u8),
        ("clift_write_imageui", clift_write_imageui as *const u8),
    ]
}

#[cfg(test)]
mod tests {
    use super::sample::*;
    use super::*;
    use khronos_headers::*;
    use std::mem::offset_of;

    #[test]
    fn query_offsets_match_the_layout() {
        assert_eq!(
            offset_of!(ImageDescriptor, extent) as i32,
            ImageDescriptor::OFFSET_WIDTH
        );
        assert_eq!(
            offset_of!(ImageDescriptor, channel_data_type) as i32,
            ImageDescriptor::OFFSET_CHANNEL_DATA_TYPE
        );
        assert_eq!(
            offset_of!(ImageDescriptor, channel_order) as i32,
            ImageDescriptor::OFFSET_CHANNEL_ORDER
        );
    }

    /// A 4x2 CL_R/CL_FLOAT image holding 0..8, row by row.
    fn image(data: &mut [f32; 8], kind: ImageKind) -> ImageDescriptor {
        ImageDescriptor {
            data: data.as_mut_ptr().cast(),
            row_pitch: 16,
            slice_pitch: 32,
            extent: [4, 2, 1],
            channel_data_type: CL_FLOAT,
            channel_order: CL_R,
            element_size: 4,
            kind: ImageDescriptor::kind_index(kind),
            _pad: 0,
        }
    }

    #[test]
    fn nearest_and_linear_reads_of_a_2d_image() {
        let mut data = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0];
        let d = image(&mut data, ImageKind::Image2d);
        let nearest = Sampler::from_bits(CLK_ADDRESS_CLAMP);
        // SAFETY: `d` describes `data`.
        unsafe {
            assert_eq!(d.read_float(nearest, [2.5, 1.5, 0.0]), [6.0, 0.0, 0.0, 1.0]);
            assert_eq!(
                d.read_float(nearest, [-0.5, 0.5, 0.0]),
                [0.0, 0.0, 0.0, 1.0]
            );
            assert_eq!(d.read_float_at(nearest, [3, 0, 0])[0], 3.0);
            let linear = Sampler::from_bits(CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_LINEAR);
            // The centre of the 2x2 block (1,0),(2,0),(1,1),(2,1): (1+2+5+6)/4.
            assert_eq!(d.read_float(linear, [2.0, 1.0, 0.0])[0], 3.5);
        }
    }

    #[test]
    fn arrays_select_their_layer_and_writes_outside_are_dropped() {
        let mut data = [0.0f32; 16];
        let d = ImageDescriptor {
            data: data.as_mut_ptr().cast(),
            extent: [4, 1, 2],
            ..image(&mut [0.0; 8], ImageKind::Image1dArray)
        };
        let color = [9.0f32, 0.0, 0.0, 0.0];
        // SAFETY: `d` describes `data`: two layers of 4 floats, 32 bytes apart.
        unsafe {
            clift_write_imagef(&d, 1, 1, 0, &color);
            // Layer 5 clamps to the last layer (8.4).
            clift_write_imagef(&d, 2, 5, 0, &color);
            clift_write_imagef(&d, 4, 0, 0, &color);
            clift_write_imagef(&d, -1, 0, 0, &color);
        }
        let mut expected = [0.0f32; 16];
        expected[9] = 9.0;
        expected[10] = 9.0;
        assert_eq!(data, expected);
    }
}
