//! Image entry points: creation (1.2's `clCreateImage` and 1.1's `clCreateImage2D/3D`), the
//! format list, `clGetImageInfo`, and the image commands (read, write, copy, fill, map, and
//! copies to and from buffers).
//!
//! The host commands address an image with the API's `origin`/`region`, whose second
//! coordinate is the layer of a 1D image array; `ImageGeometry::api_pitches` gives the
//! byte stride of each coordinate, so every command is a rectangle copy
//! (`transfer::copy_rect`) between the image's layout and another one.

use std::ffi::c_void;
use std::ptr::NonNull;
use std::sync::Arc;

use clift_runtime::context::Context;
use clift_runtime::image::{FillKind, Format, ImageGeometry, checked_format, kind_of};
use clift_runtime::memory::{ImageStorage, Mem, Storage};
use clift_runtime::queue::QueueOrder;
use clift_runtime::{ClError, ClResult, fail};
use khronos_headers::*;

use super::context::context;
use super::event::submit;
use super::memory::{checked_flags, mem, sub_buffer_flags};
use super::transfer::{
    Addr, HostAccess, MapCommand, RectLayout, Takes, begin_with, check_host_access,
    check_map_flags, copy_rect, triple,
};
use crate::boundary::{call, call_ret};
use crate::handle;
use crate::info::{InfoValue, answer};

/// What every image creation does once the descriptor is known.
///
/// # Safety
/// `format` must be NULL or point to a `cl_image_format`; `host_ptr` must hold the image
/// as `desc` describes it when a host-pointer flag is given.
unsafe fn create_image(
    context_handle: cl_context,
    flags: cl_mem_flags,
    format: *const cl_image_format,
    desc: &cl_image_desc,
    host_ptr: *mut c_void,
) -> ClResult<cl_mem> {
    context(context_handle)?;
    let context = handle::shared::<Context>(context_handle)?;
    let requested_flags = flags;
    let flags = checked_flags(flags)?;
    // "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR if values specified in image_format are not valid
    // or if image_format is NULL."
    if format.is_null() {
        return fail(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    }
    // SAFETY: non-NULL, the application's format.
    let format = checked_format(unsafe { &*format })?;
    let element_size = format.element_size();
    if desc.image_type == CL_MEM_OBJECT_IMAGE1D_BUFFER {
        return image_from_buffer(context, requested_flags, format, desc, host_ptr);
    }
    // "buffer ... must be NULL" for every other type: an invalid descriptor.
    if !desc.buffer.is_null() {
        return fail(CL_INVALID_IMAGE_DESCRIPTOR);
    }
    // "CL_INVALID_HOST_PTR if host_ptr is NULL and CL_MEM_USE_HOST_PTR or
    // CL_MEM_COPY_HOST_PTR are set in flags or if host_ptr is not NULL but
    // CL_MEM_COPY_HOST_PTR or CL_MEM_USE_HOST_PTR are not set in flags."
    let uses_ptr = flags & CL_MEM_USE_HOST_PTR != 0;
    let wants_ptr = flags & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR) != 0;
    if wants_ptr == host_ptr.is_null() {
        return fail(CL_INVALID_HOST_PTR);
    }
    let geometry = ImageGeometry::new(desc, element_size, wants_ptr, uses_ptr)?;
    // "CL_INVALID_IMAGE_SIZE if image dimensions specified in image_desc exceed the
    // maximum image dimensions" — the bytes too must fit one allocation.
    let max = context
        .devices()
        .iter()
        .map(|d| d.max_mem_alloc_size())
        .max()
        .unwrap_or(0);
    if geometry.size() as u64 > max {
        return fail(CL_INVALID_IMAGE_SIZE);
    }
    let storage = if uses_ptr {
        let ptr = NonNull::new(host_ptr.cast::<u8>()).ok_or(ClError(CL_INVALID_HOST_PTR))?;
        // SAFETY: the spec requires host_ptr to hold the image with its pitches for the
        // image's life.
        unsafe { Storage::borrow(ptr, geometry.size()) }
    } else {
        let storage = Storage::allocate(geometry.size())?;
        if flags & CL_MEM_COPY_HOST_PTR != 0 {
            let host = ImageGeometry::new(desc, element_size, true, true)?;
            let (row, slice) = geometry.api_pitches();
            let (host_row, host_slice) = host.api_pitches();
            let region = geometry.api_extent();
            let bytes = [region[0] * element_size, region[1], region[2]];
            // SAFETY: host_ptr holds the image in the host layout (the spec's requirement);
            // the allocation holds it packed; they are distinct.
            unsafe {
                copy_rect(
                    host_ptr.cast::<u8>(),
                    RectLayout {
                        start: 0,
                        row_pitch: host_row,
                        slice_pitch: host_slice,
                    },
                    storage.as_ptr(),
                    RectLayout {
                        start: 0,
                        row_pitch: row,
                        slice_pitch: slice,
                    },
                    bytes,
                )
            };
        }
        storage
    };
    let host_ptr = if uses_ptr {
        host_ptr
    } else {
        std::ptr::null_mut()
    };
    Ok(handle::new_handle(Mem::image(
        context,
        flags,
        ImageStorage::Own(storage),
        host_ptr,
        format,
        geometry,
    )))
}

/// A `CL_MEM_OBJECT_IMAGE1D_BUFFER` image: "the image pixels are taken from the buffer
/// object's data store"; its flags follow a sub-buffer's rules against the buffer's.
fn image_from_buffer(
    context: Arc<Context>,
    requested_flags: cl_mem_flags,
    format: Format,
    desc: &cl_image_desc,
    host_ptr: *mut c_void,
) -> ClResult<cl_mem> {
    // "buffer refers to a valid buffer memory object if image_type is
    // CL_MEM_OBJECT_IMAGE1D_BUFFER."
    let buffer =
        handle::shared::<Mem>(desc.buffer).map_err(|_| ClError(CL_INVALID_IMAGE_DESCRIPTOR))?;
    if buffer.is_image() || !Arc::ptr_eq(buffer.context(), &context) {
        return fail(CL_INVALID_IMAGE_DESCRIPTOR);
    }
    if !host_ptr.is_null() {
        return fail(CL_INVALID_HOST_PTR);
    }
    let flags = sub_buffer_flags(buffer.flags(), requested_flags)?;
    // The buffer is the image's memory, as a host pointer is for other images, so a row
    // pitch may be given (OpenCL 2.0's rule for images from buffers; rusticl and the
    // Khronos CTS's kernel_image_methods 1Dbuffer pass one) and is the one reported.
    let geometry = ImageGeometry::new(desc, format.element_size(), true, true)?;
    // "CL_INVALID_IMAGE_SIZE if ... the image's size is larger than the buffer's".
    if geometry.size() > buffer.size() {
        return fail(CL_INVALID_IMAGE_SIZE);
    }
    Ok(handle::new_handle(Mem::image(
        context,
        flags,
        ImageStorage::Buffer(buffer),
        std::ptr::null_mut(),
        format,
        geometry,
    )))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clCreateImage(
    context: cl_context,
    flags: cl_mem_flags,
    image_format: *const cl_image_format,
    image_desc: *const cl_image_desc,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    call_ret("clCreateImage", errcode_ret, std::ptr::null_mut(), || {
        // "CL_INVALID_IMAGE_DESCRIPTOR if values specified in image_desc are not valid or if
        // image_desc is NULL."
        if image_desc.is_null() {
            self::context(context)?;
            checked_flags(flags)?;
            return fail(CL_INVALID_IMAGE_DESCRIPTOR);
        }
        // SAFETY: non-NULL, the application's descriptor; the rest is its contract.
        unsafe { create_image(context, flags, image_format, &*image_desc, host_ptr) }
    })
}

/// The descriptor of a 1.1 `clCreateImage2D`/`clCreateImage3D` call.
fn legacy_desc(
    image_type: cl_mem_object_type,
    size: [usize; 3],
    row_pitch: usize,
    slice_pitch: usize,
) -> cl_image_desc {
    cl_image_desc {
        image_type,
        image_width: size[0],
        image_height: size[1],
        image_depth: size[2],
        image_array_size: 0,
        image_row_pitch: row_pitch,
        image_slice_pitch: slice_pitch,
        num_mip_levels: 0,
        num_samples: 0,
        buffer: std::ptr::null_mut(),
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clCreateImage2D(
    context: cl_context,
    flags: cl_mem_flags,
    image_format: *const cl_image_format,
    image_width: usize,
    image_height: usize,
    image_row_pitch: usize,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    call_ret("clCreateImage2D", errcode_ret, std::ptr::null_mut(), || {
        let size = [image_width, image_height, 1];
        let desc = legacy_desc(CL_MEM_OBJECT_IMAGE2D, size, image_row_pitch, 0);
        // SAFETY: the application's format and host memory.
        unsafe { create_image(context, flags, image_format, &desc, host_ptr) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clCreateImage3D(
    context: cl_context,
    flags: cl_mem_flags,
    image_format: *const cl_image_format,
    image_width: usize,
    image_height: usize,
    image_depth: usize,
    image_row_pitch: usize,
    image_slice_pitch: usize,
    host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    call_ret("clCreateImage3D", errcode_ret, std::ptr::null_mut(), || {
        // "CL_INVALID_IMAGE_SIZE if image_width, image_height are 0 or if image_depth <= 1".
        if image_depth <= 1 {
            self::context(context)?;
            return fail(CL_INVALID_IMAGE_SIZE);
        }
        let size = [image_width, image_height, image_depth];
        let desc = legacy_desc(
            CL_MEM_OBJECT_IMAGE3D,
            size,
            image_row_pitch,
            image_slice_pitch,
        );
        // SAFETY: the application's format and host memory.
        unsafe { create_image(context, flags, image_format, &desc, host_ptr) }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clGetSupportedImageFormats(
    context: cl_context,
    flags: cl_mem_flags,
    image_type: cl_mem_object_type,
    num_entries: cl_uint,
    image_formats: *mut cl_image_format,
    num_image_formats: *mut cl_uint,
) -> cl_int {
    call("clGetSupportedImageFormats", || {
        self::context(context)?;
        checked_flags(flags)?;
        // "CL_INVALID_VALUE if flags or image_type are not valid, or if num_entries is 0 and
        // image_formats is not NULL."
        if kind_of(image_type).is_none() || (num_entries == 0 && !image_formats.is_null()) {
            return fail(CL_INVALID_VALUE);
        }
        // Every format works with every image type and access (images are host memory).
        let formats: Vec<cl_image_format> = Format::supported()
            .into_iter()
            .map(|f| cl_image_format {
                image_channel_order: f.order,
                image_channel_data_type: f.data_type,
            })
            .collect();
        // SAFETY: `image_formats` holds `num_entries` formats (the application's contract).
        unsafe { super::write_list(&formats, image_formats, num_entries, num_image_formats) };
        Ok(())
    })
}

/// The image behind a handle: "CL_INVALID_MEM_OBJECT if image is not a valid image
/// object" (a buffer is not one).
fn image_of<'a>(handle: cl_mem) -> ClResult<&'a Mem> {
    let mem = mem(handle)?;
    if !mem.is_image() {
        return fail(CL_INVALID_MEM_OBJECT);
    }
    Ok(mem)
}

fn image_info(mem: &Mem, param: cl_image_info) -> ClResult<InfoValue> {
    let Some(info) = mem.image_info() else {
        return fail(CL_INVALID_MEM_OBJECT);
    };
    let g = info.geometry;
    let kind_has = |types: &[cl_mem_object_type], v: usize| {
        if types.contains(&g.image_type) { v } else { 0 }
    };
    Ok(match param {
        CL_IMAGE_FORMAT => InfoValue::slice(&[info.format.order, info.format.data_type]),
        CL_IMAGE_ELEMENT_SIZE => InfoValue::scalar(g.element_size),
        CL_IMAGE_ROW_PITCH => InfoValue::scalar(g.row_pitch),
        CL_IMAGE_SLICE_PITCH => InfoValue::scalar(g.slice_pitch),
        CL_IMAGE_WIDTH => InfoValue::scalar(g.width),
        CL_IMAGE_HEIGHT => InfoValue::scalar(kind_has(
            &[
                CL_MEM_OBJECT_IMAGE2D,
                CL_MEM_OBJECT_IMAGE2D_ARRAY,
                CL_MEM_OBJECT_IMAGE3D,
            ],
            g.height,
        )),
        CL_IMAGE_DEPTH => InfoValue::scalar(kind_has(&[CL_MEM_OBJECT_IMAGE3D], g.depth)),
        CL_IMAGE_ARRAY_SIZE => InfoValue::scalar(g.array_size),
        CL_IMAGE_BUFFER => InfoValue::scalar::<cl_mem>(
            mem.parent()
                .map_or(std::ptr::null_mut(), |p| handle::handle_of(&**p)),
        ),
        CL_IMAGE_NUM_MIP_LEVELS | CL_IMAGE_NUM_SAMPLES => InfoValue::scalar(0 as cl_uint),
        _ => return fail(CL_INVALID_VALUE),
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clGetImageInfo(
    image: cl_mem,
    param_name: cl_image_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    call("clGetImageInfo", || {
        let image = image_of(image)?;
        // SAFETY: the application's output buffers.
        unsafe {
            answer(
                image_info(image, param_name),
                param_value_size,
                param_value,
                param_value_size_ret,
            )
        }
    })
}

/// An image's geometry (the object was checked to be one).
fn geometry(mem: &Mem) -> ImageGeometry {
    mem.image_info()
        .map(|i| i.geometry)
        .expect("checked to be an image")
}

/// The rectangle `origin`/`region` of an image, in bytes, in the image's layout.
fn image_rect(g: &ImageGeometry, origin: [usize; 3]) -> RectLayout {
    let (row_pitch, slice_pitch) = g.api_pitches();
    RectLayout {
        start: origin[0] * g.element_size + origin[1] * row_pitch + origin[2] * slice_pitch,
        row_pitch,
        slice_pitch,
    }
}

/// A region in bytes along x.
fn region_bytes(g: &ImageGeometry, region: [usize; 3]) -> [usize; 3] {
    [region[0] * g.element_size, region[1], region[2]]
}

/// The host side of a read or write: "If row_pitch is set to 0, the appropriate row pitch
/// is calculated based on the size of each element in bytes multiplied by width"; "If
/// slice_pitch is set to 0, [it] is calculated as region[1] * row_pitch for a 3D image or
/// 2D image array; row_pitch for a 1D image array" — and a given pitch must be at least
/// that ("CL_INVALID_VALUE").
fn host_rect(
    g: &ImageGeometry,
    region: [usize; 3],
    row_pitch: usize,
    slice_pitch: usize,
) -> ClResult<RectLayout> {
    let min_row = region[0] * g.element_size;
    let row = if row_pitch == 0 { min_row } else { row_pitch };
    if row < min_row {
        return fail(CL_INVALID_VALUE);
    }
    let is_1d_array = g.image_type == CL_MEM_OBJECT_IMAGE1D_ARRAY;
    let min_slice = if is_1d_array { row } else { row * region[1] };
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

/// The body shared by `clEnqueueReadImage` (`access` Read) and `clEnqueueWriteImage`.
///
/// # Safety
/// The application's pointers, as those entry points describe them.
#[allow(clippy::too_many_arguments)]
unsafe fn image_transfer(
    command_queue: cl_command_queue,
    image: cl_mem,
    blocking: cl_bool,
    origin: *const usize,
    region: *const usize,
    row_pitch: usize,
    slice_pitch: usize,
    ptr: *const c_void,
    access: HostAccess,
    num_waits: cl_uint,
    waits: *const cl_event,
    event: *mut cl_event,
) -> ClResult<()> {
    // SAFETY: the application's wait list.
    let (queue, mem, waits) =
        unsafe { begin_with(command_queue, image, Takes::Image, num_waits, waits) }?;
    check_host_access(&mem, access)?;
    // SAFETY: the application's origin and region arrays.
    let (origin, region) = unsafe { (triple(origin, false)?, triple(region, true)?) };
    let g = geometry(&mem);
    g.check_region(origin, region)?;
    // "CL_INVALID_VALUE if ... ptr is a NULL value."
    if ptr.is_null() {
        return fail(CL_INVALID_VALUE);
    }
    let host = host_rect(&g, region, row_pitch, slice_pitch)?;
    let rect = image_rect(&g, origin);
    let bytes = region_bytes(&g, region);
    let host_ptr = Addr::of(ptr);
    let work = Box::new(move || {
        // SAFETY: the image rectangle is inside the image (checked); the host rectangle is
        // the application's memory as it described it.
        unsafe {
            match access {
                HostAccess::Read => copy_rect(mem.base(), rect, host_ptr.ptr(), host, bytes),
                HostAccess::Write => copy_rect(host_ptr.ptr(), host, mem.base(), rect, bytes),
            }
        };
        Ok(())
    });
    let command = match access {
        HostAccess::Read => CL_COMMAND_READ_IMAGE,
        HostAccess::Write => CL_COMMAND_WRITE_IMAGE,
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
pub unsafe extern "C" fn clEnqueueReadImage(
    command_queue: cl_command_queue,
    image: cl_mem,
    blocking_read: cl_bool,
    origin: *const usize,
    region: *const usize,
    row_pitch: usize,
    slice_pitch: usize,
    ptr: *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    call("clEnqueueReadImage", || {
        // SAFETY: the application's arguments, as the entry point describes them.
        unsafe {
            image_transfer(
                command_queue,
                image,
                blocking_read,
                origin,
                region,
                row_pitch,
                slice_pitch,
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
pub unsafe extern "C" fn clEnqueueWriteImage(
    command_queue: cl_command_queue,
    image: cl_mem,
    blocking_write: cl_bool,
    origin: *const usize,
    region: *const usize,
    input_row_pitch: usize,
    input_slice_pitch: usize,
    ptr: *const c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    call("clEnqueueWriteImage", || {
        // SAFETY: the application's arguments, as the entry point describes them.
        unsafe {
            image_transfer(
                command_queue,
                image,
                blocking_write,
                origin,
                region,
                input_row_pitch,
                input_slice_pitch,
                ptr,
                HostAccess::Write,
                num_events_in_wait_list,
                event_wait_list,
                event,
            )
        }
    })
}

/// Whether two boxes of the API's coordinates intersect.
fn boxes_overlap(a: [usize; 3], b: [usize; 3], region: [usize; 3]) -> bool {
    (0..3).all(|d| a[d] < b[d] + region[d] && b[d] < a[d] + region[d])
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clEnqueueCopyImage(
    command_queue: cl_command_queue,
    src_image: cl_mem,
    dst_image: cl_mem,
    src_origin: *const usize,
    dst_origin: *const usize,
    region: *const usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    call("clEnqueueCopyImage", || {
        // SAFETY: the application's wait list.
        let (queue, src, waits) = unsafe {
            begin_with(
                command_queue,
                src_image,
                Takes::Image,
                num_events_in_wait_list,
                event_wait_list,
            )
        }?;
        // SAFETY: no wait list is read for the second image.
        let (_, dst, _) =
            unsafe { begin_with(command_queue, dst_image, Takes::Image, 0, std::ptr::null()) }?;
        // "CL_IMAGE_FORMAT_MISMATCH if src_image and dst_image do not use the same image
        // format."
        let (sg, dg) = (geometry(&src), geometry(&dst));
        if src.image_info().map(|i| i.format) != dst.image_info().map(|i| i.format) {
            return fail(CL_IMAGE_FORMAT_MISMATCH);
        }
        // SAFETY: the application's origin and region arrays.
        let (so, dor, region) = unsafe {
            (
                triple(src_origin, false)?,
                triple(dst_origin, false)?,
                triple(region, true)?,
            )
        };
        sg.check_region(so, region)?;
        dg.check_region(dor, region)?;
        // "CL_MEM_COPY_OVERLAP if src_image and dst_image are the same image object and the
        // source and destination regions overlap."
        if Arc::ptr_eq(&src, &dst) && boxes_overlap(so, dor, region) {
            return fail(CL_MEM_COPY_OVERLAP);
        }
        let (src_rect, dst_rect) = (image_rect(&sg, so), image_rect(&dg, dor));
        let bytes = region_bytes(&sg, region);
        let work = Box::new(move || {
            // SAFETY: both rectangles are inside their images (checked).
            unsafe { copy_rect(src.base(), src_rect, dst.base(), dst_rect, bytes) };
            Ok(())
        });
        submit(
            &queue,
            CL_COMMAND_COPY_IMAGE,
            waits,
            QueueOrder::Command,
            false,
            event,
            work,
        )
    })
}

/// One element holding `fill_color` converted to the image's format: "a four component
/// RGBA floating-point color value if the image channel data type is not an unnormalized
/// signed and unsigned integer type ... a four component signed integer value ... a four
/// component unsigned integer value".
///
/// # Safety
/// `fill_color` must point to 16 readable bytes.
unsafe fn fill_element(format: Format, fill_color: *const c_void) -> Vec<u8> {
    let mut element = vec![0u8; format.element_size()];
    // SAFETY: the caller's contract.
    let words = unsafe { fill_color.cast::<[u32; 4]>().read_unaligned() };
    match format.fill_kind() {
        FillKind::Float => format.encode_float(words.map(f32::from_bits), &mut element),
        FillKind::Int => format.encode_int(words.map(|w| w as i32), &mut element),
        FillKind::Uint => format.encode_uint(words, &mut element),
    }
    element
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clEnqueueFillImage(
    command_queue: cl_command_queue,
    image: cl_mem,
    fill_color: *const c_void,
    origin: *const usize,
    region: *const usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    call("clEnqueueFillImage", || {
        // SAFETY: the application's wait list.
        let (queue, mem, waits) = unsafe {
            begin_with(
                command_queue,
                image,
                Takes::Image,
                num_events_in_wait_list,
                event_wait_list,
            )
        }?;
        // "CL_INVALID_VALUE if fill_color is NULL", "if the region being filled as specified
        // by origin and region is out of bounds or if ... origin or region is NULL".
        if fill_color.is_null() {
            return fail(CL_INVALID_VALUE);
        }
        // SAFETY: the application's origin and region arrays.
        let (origin, region) = unsafe { (triple(origin, false)?, triple(region, true)?) };
        let g = geometry(&mem);
        g.check_region(origin, region)?;
        let format = mem.image_info().map(|i| i.format).expect("an image");
        // The colour is converted now: the application may reuse its memory at once.
        // SAFETY: a non-NULL fill colour holds four 32-bit values.
        let element = unsafe { fill_element(format, fill_color) };
        let rect = image_rect(&g, origin);
        let work = Box::new(move || {
            for z in 0..region[2] {
                for y in 0..region[1] {
                    let row = rect.row(y, z);
                    // SAFETY: the row lies inside the image (checked).
                    let target = unsafe {
                        std::slice::from_raw_parts_mut(
                            mem.base().add(row),
                            region[0] * element.len(),
                        )
                    };
                    for chunk in target.chunks_exact_mut(element.len()) {
                        chunk.copy_from_slice(&element);
                    }
                }
            }
            Ok(())
        });
        submit(
            &queue,
            CL_COMMAND_FILL_IMAGE,
            waits,
            QueueOrder::Command,
            false,
            event,
            work,
        )
    })
}

/// The body of `clEnqueueCopyImageToBuffer` (`to_buffer`) and `clEnqueueCopyBufferToImage`:
/// the buffer side is the region packed ("the size in bytes of the region to be copied
/// from src_image ... is computed as width * height * depth * bytes/image element").
///
/// # Safety
/// The application's arrays and wait list.
#[allow(clippy::too_many_arguments)]
unsafe fn image_buffer_copy(
    command_queue: cl_command_queue,
    image: cl_mem,
    buffer: cl_mem,
    origin: *const usize,
    region: *const usize,
    offset: usize,
    to_buffer: bool,
    num_waits: cl_uint,
    waits: *const cl_event,
    event: *mut cl_event,
) -> ClResult<()> {
    // SAFETY: the application's wait list.
    let (queue, image, waits) =
        unsafe { begin_with(command_queue, image, Takes::Image, num_waits, waits) }?;
    // SAFETY: no wait list is read here.
    let (_, buffer, _) =
        unsafe { begin_with(command_queue, buffer, Takes::Buffer, 0, std::ptr::null()) }?;
    // SAFETY: the application's origin and region arrays.
    let (origin, region) = unsafe { (triple(origin, false)?, triple(region, true)?) };
    let g = geometry(&image);
    g.check_region(origin, region)?;
    let bytes = region_bytes(&g, region);
    let row = bytes[0];
    let size = row * region[1] * region[2];
    // "CL_INVALID_VALUE if the region specified by dst_offset and dst_offset + dst_cb
    // refer to a region outside dst_buffer".
    if !buffer.contains(offset, size) {
        return fail(CL_INVALID_VALUE);
    }
    let image_side = image_rect(&g, origin);
    let buffer_side = RectLayout {
        start: offset,
        row_pitch: row,
        slice_pitch: row * region[1],
    };
    let work = Box::new(move || {
        // SAFETY: both rectangles are inside their objects (checked).
        unsafe {
            if to_buffer {
                copy_rect(image.base(), image_side, buffer.base(), buffer_side, bytes);
            } else {
                copy_rect(buffer.base(), buffer_side, image.base(), image_side, bytes);
            }
        }
        Ok(())
    });
    let command = if to_buffer {
        CL_COMMAND_COPY_IMAGE_TO_BUFFER
    } else {
        CL_COMMAND_COPY_BUFFER_TO_IMAGE
    };
    submit(
        &queue,
        command,
        waits,
        QueueOrder::Command,
        false,
        event,
        work,
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clEnqueueCopyImageToBuffer(
    command_queue: cl_command_queue,
    src_image: cl_mem,
    dst_buffer: cl_mem,
    src_origin: *const usize,
    region: *const usize,
    dst_offset: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    call("clEnqueueCopyImageToBuffer", || {
        // SAFETY: the application's arguments.
        unsafe {
            image_buffer_copy(
                command_queue,
                src_image,
                dst_buffer,
                src_origin,
                region,
                dst_offset,
                true,
                num_events_in_wait_list,
                event_wait_list,
                event,
            )
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clEnqueueCopyBufferToImage(
    command_queue: cl_command_queue,
    src_buffer: cl_mem,
    dst_image: cl_mem,
    src_offset: usize,
    dst_origin: *const usize,
    region: *const usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
) -> cl_int {
    call("clEnqueueCopyBufferToImage", || {
        // SAFETY: the application's arguments.
        unsafe {
            image_buffer_copy(
                command_queue,
                dst_image,
                src_buffer,
                dst_origin,
                region,
                src_offset,
                false,
                num_events_in_wait_list,
                event_wait_list,
                event,
            )
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clEnqueueMapImage(
    command_queue: cl_command_queue,
    image: cl_mem,
    blocking_map: cl_bool,
    map_flags: cl_map_flags,
    origin: *const usize,
    region: *const usize,
    image_row_pitch: *mut usize,
    image_slice_pitch: *mut usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    event: *mut cl_event,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    call_ret(
        "clEnqueueMapImage",
        errcode_ret,
        std::ptr::null_mut(),
        || {
            // SAFETY: the application's wait list.
            let (queue, mem, waits) = unsafe {
                begin_with(
                    command_queue,
                    image,
                    Takes::Image,
                    num_events_in_wait_list,
                    event_wait_list,
                )
            }?;
            // SAFETY: the application's origin and region arrays.
            let (origin, region) = unsafe { (triple(origin, false)?, triple(region, true)?) };
            let g = geometry(&mem);
            g.check_region(origin, region)?;
            check_map_flags(&mem, map_flags)?;
            // "CL_INVALID_VALUE if image_row_pitch is NULL", "if image is a 3D image, 1D or
            // 2D image array object and image_slice_pitch is NULL."
            let has_slices = matches!(
                g.image_type,
                CL_MEM_OBJECT_IMAGE3D | CL_MEM_OBJECT_IMAGE1D_ARRAY | CL_MEM_OBJECT_IMAGE2D_ARRAY
            );
            if image_row_pitch.is_null() || (has_slices && image_slice_pitch.is_null()) {
                return fail(CL_INVALID_VALUE);
            }
            // Zero copy: the image's own memory, with its own pitches ("For a 1D and 2D
            // image, zero is returned" as the slice pitch).
            // SAFETY: the application's out-parameters (non-NULL where written).
            unsafe {
                image_row_pitch.write(g.row_pitch);
                if !image_slice_pitch.is_null() {
                    image_slice_pitch.write(g.slice_pitch);
                }
            }
            // SAFETY: the origin is inside the image (checked).
            let mapped = unsafe { mem.base().add(image_rect(&g, origin).start) };
            let map = MapCommand {
                command: CL_COMMAND_MAP_IMAGE,
                blocking: blocking_map != 0,
                event,
            };
            map.submit(&queue, mem, mapped, waits)
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_pitches_default_and_check() {
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
        let g = ImageGeometry::new(&desc, 4, false, false).unwrap();
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
}
