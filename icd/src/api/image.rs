//! Image entry points: creation (1.2's `clCreateImage` and 1.1's `clCreateImage2D/3D`), the
//! format list, `clGetImageInfo`, and the image commands (read, write, copy, fill, map, and
//! copies to and from buffers).
//!
//! The commands are types of `clift_runtime::command::{image, map}`: each entry point here
//! resolves handles and reads the application's arrays, then hands them over.

use std::ffi::c_void;
use std::ptr::NonNull;
use std::sync::Arc;

use clift_runtime::command::image::{
    CopyImage, FillImage, ImageBufferCopy, ImageTransfer, copy_from_host,
};
use clift_runtime::command::map::Map;
use clift_runtime::command::{HostAccess, HostPtr};
use clift_runtime::context::Context;
use clift_runtime::image::{Format, ImageGeometry, checked_format, kind_of};
use clift_runtime::memory::{ImageStorage, Mem, Storage};
use clift_runtime::{ClError, ClResult, fail};
use khronos_headers::*;

use super::context::context;
use super::event::{enqueue, return_event};
use super::memory::{checked_flags, mem, sub_buffer_flags};
use super::transfer::{Takes, begin_with, triple};
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
        // A copy from the host writes every byte: its pages are made present at once.
        let storage = if flags & CL_MEM_COPY_HOST_PTR != 0 {
            Storage::allocate_to_fill(geometry.size())?
        } else {
            Storage::allocate(geometry.size())?
        };
        if flags & CL_MEM_COPY_HOST_PTR != 0 {
            let host = ImageGeometry::new(desc, element_size, true, true)?;
            // SAFETY: host_ptr holds the image in the host layout (the spec's requirement);
            // the allocation holds it packed; they are distinct.
            unsafe { copy_from_host(host_ptr.cast::<u8>(), &host, storage.as_ptr(), &geometry) };
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
    // SAFETY: each array is NULL or holds three values; `ptr` holds the host rectangle until
    // the command completes (the application's contract).
    let command = unsafe {
        ImageTransfer::new(
            mem,
            access,
            triple(origin),
            triple(region),
            row_pitch,
            slice_pitch,
            HostPtr::new(ptr),
        )
    }?;
    enqueue(&queue, command, waits, blocking != 0, event)
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
        // SAFETY: each array is NULL or holds three values.
        let (src_origin, dst_origin, region) =
            unsafe { (triple(src_origin), triple(dst_origin), triple(region)) };
        let command = CopyImage::new(src, dst, src_origin, dst_origin, region)?;
        enqueue(&queue, command, waits, false, event)
    })
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
        // The colour is read now: the application may reuse its memory at once.
        let color = (!fill_color.is_null()).then(|| {
            // SAFETY: a non-NULL fill colour holds four 32-bit values.
            unsafe { fill_color.cast::<[u32; 4]>().read_unaligned() }
        });
        // SAFETY: each array is NULL or holds three values.
        let (origin, region) = unsafe { (triple(origin), triple(region)) };
        let command = FillImage::new(mem, color, origin, region)?;
        enqueue(&queue, command, waits, false, event)
    })
}

/// The body of `clEnqueueCopyImageToBuffer` (`to_buffer`) and `clEnqueueCopyBufferToImage`.
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
    // SAFETY: each array is NULL or holds three values.
    let (origin, region) = unsafe { (triple(origin), triple(region)) };
    let command = ImageBufferCopy::new(image, buffer, origin, region, offset, to_buffer)?;
    enqueue(&queue, command, waits, false, event)
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
            // SAFETY: each array is NULL or holds three values.
            let (origin, region) = unsafe { (triple(origin), triple(region)) };
            let map = Map::image(
                mem,
                map_flags,
                origin,
                region,
                !image_row_pitch.is_null(),
                !image_slice_pitch.is_null(),
            )?;
            let (row_pitch, slice_pitch) = map.image_pitches();
            // SAFETY: the application's out-parameters (non-NULL where written).
            unsafe {
                image_row_pitch.write(row_pitch);
                if !image_slice_pitch.is_null() {
                    image_slice_pitch.write(slice_pitch);
                }
            }
            let (mapped_event, mapped) = map.enqueue(&queue, waits, blocking_map != 0)?;
            return_event(mapped_event, event);
            Ok(mapped)
        },
    )
}
