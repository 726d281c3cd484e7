//! Image entry points.
//!
//! clift does not support images yet (`CL_DEVICE_IMAGE_SUPPORT` is false), so no image
//! object can exist. Each call validates what it can and gives the spec's answer for a
//! context whose devices do not support images: creation is `CL_INVALID_OPERATION`, the
//! format list is empty, and any memory object passed as an image is not one
//! (`CL_INVALID_MEM_OBJECT`).

use std::ffi::c_void;

use clift_runtime::memory::Mem;
use clift_runtime::{ClResult, fail};
use khronos_headers::*;

use super::context::context;
use super::event::wait_list;
use super::memory::{checked_flags, mem};
use super::queue::queue;
use crate::boundary::{call, call_ret};
use crate::handle;

/// The image types of OpenCL 1.2.
const IMAGE_TYPES: [cl_mem_object_type; 6] = [
    CL_MEM_OBJECT_IMAGE1D,
    CL_MEM_OBJECT_IMAGE1D_ARRAY,
    CL_MEM_OBJECT_IMAGE1D_BUFFER,
    CL_MEM_OBJECT_IMAGE2D,
    CL_MEM_OBJECT_IMAGE2D_ARRAY,
    CL_MEM_OBJECT_IMAGE3D,
];

/// The checks every image creation shares, then the answer for a context without image
/// support: "CL_INVALID_OPERATION if there are no devices in context that support images".
fn create_image(
    context_handle: cl_context,
    flags: cl_mem_flags,
    format: *const cl_image_format,
) -> ClResult<cl_mem> {
    let context = context(context_handle)?;
    checked_flags(flags)?;
    // "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR if values specified in image_format are not valid
    // or if image_format is NULL."
    if format.is_null() {
        return fail(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    }
    debug_assert!(context.devices().iter().all(|d| !d.image_support()));
    fail(CL_INVALID_OPERATION)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clCreateImage(
    context: cl_context,
    flags: cl_mem_flags,
    image_format: *const cl_image_format,
    image_desc: *const cl_image_desc,
    _host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    call_ret("clCreateImage", errcode_ret, std::ptr::null_mut(), || {
        let result = create_image(context, flags, image_format);
        // "CL_INVALID_IMAGE_DESCRIPTOR if values specified in image_desc are not valid or if
        // image_desc is NULL."
        if result == fail(CL_INVALID_OPERATION) && image_desc.is_null() {
            return fail(CL_INVALID_IMAGE_DESCRIPTOR);
        }
        result
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clCreateImage2D(
    context: cl_context,
    flags: cl_mem_flags,
    image_format: *const cl_image_format,
    _image_width: usize,
    _image_height: usize,
    _image_row_pitch: usize,
    _host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    call_ret("clCreateImage2D", errcode_ret, std::ptr::null_mut(), || {
        create_image(context, flags, image_format)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clCreateImage3D(
    context: cl_context,
    flags: cl_mem_flags,
    image_format: *const cl_image_format,
    _image_width: usize,
    _image_height: usize,
    _image_depth: usize,
    _image_row_pitch: usize,
    _image_slice_pitch: usize,
    _host_ptr: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_mem {
    call_ret("clCreateImage3D", errcode_ret, std::ptr::null_mut(), || {
        create_image(context, flags, image_format)
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
        if !IMAGE_TYPES.contains(&image_type) || (num_entries == 0 && !image_formats.is_null()) {
            return fail(CL_INVALID_VALUE);
        }
        // No device of the context supports images: the list of formats is empty.
        // SAFETY: nothing is written to `image_formats`; the count goes to the application's
        // out-parameter.
        unsafe {
            super::write_list::<cl_image_format>(&[], image_formats, num_entries, num_image_formats)
        };
        Ok(())
    })
}

/// An argument that must be an image: "CL_INVALID_MEM_OBJECT if image is not a valid image
/// object". A valid buffer is not one, and no image can exist yet.
fn not_an_image(image: cl_mem) -> ClResult<()> {
    handle::object::<Mem>(image)?;
    fail(CL_INVALID_MEM_OBJECT)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clGetImageInfo(
    image: cl_mem,
    _param_name: cl_image_info,
    _param_value_size: usize,
    _param_value: *mut c_void,
    _param_value_size_ret: *mut usize,
) -> cl_int {
    call("clGetImageInfo", || {
        mem(image)?;
        not_an_image(image)
    })
}

/// The checks every image command shares: the queue, the wait list, then the image.
///
/// # Safety
/// `waits` must be NULL or valid for `num_waits` reads.
unsafe fn image_command(
    command_queue: cl_command_queue,
    image: cl_mem,
    num_waits: cl_uint,
    waits: *const cl_event,
) -> ClResult<()> {
    let queue = queue(command_queue)?;
    // SAFETY: forwarded contract.
    unsafe { wait_list(queue, waits, num_waits) }?;
    not_an_image(image)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clEnqueueReadImage(
    command_queue: cl_command_queue,
    image: cl_mem,
    _blocking_read: cl_bool,
    _origin: *const usize,
    _region: *const usize,
    _row_pitch: usize,
    _slice_pitch: usize,
    _ptr: *mut c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    _event: *mut cl_event,
) -> cl_int {
    call("clEnqueueReadImage", || {
        // SAFETY: the application's wait list.
        unsafe {
            image_command(
                command_queue,
                image,
                num_events_in_wait_list,
                event_wait_list,
            )
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clEnqueueWriteImage(
    command_queue: cl_command_queue,
    image: cl_mem,
    _blocking_write: cl_bool,
    _origin: *const usize,
    _region: *const usize,
    _input_row_pitch: usize,
    _input_slice_pitch: usize,
    _ptr: *const c_void,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    _event: *mut cl_event,
) -> cl_int {
    call("clEnqueueWriteImage", || {
        // SAFETY: the application's wait list.
        unsafe {
            image_command(
                command_queue,
                image,
                num_events_in_wait_list,
                event_wait_list,
            )
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clEnqueueCopyImage(
    command_queue: cl_command_queue,
    src_image: cl_mem,
    _dst_image: cl_mem,
    _src_origin: *const usize,
    _dst_origin: *const usize,
    _region: *const usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    _event: *mut cl_event,
) -> cl_int {
    call("clEnqueueCopyImage", || {
        // SAFETY: the application's wait list.
        unsafe {
            image_command(
                command_queue,
                src_image,
                num_events_in_wait_list,
                event_wait_list,
            )
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clEnqueueFillImage(
    command_queue: cl_command_queue,
    image: cl_mem,
    _fill_color: *const c_void,
    _origin: *const usize,
    _region: *const usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    _event: *mut cl_event,
) -> cl_int {
    call("clEnqueueFillImage", || {
        // SAFETY: the application's wait list.
        unsafe {
            image_command(
                command_queue,
                image,
                num_events_in_wait_list,
                event_wait_list,
            )
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clEnqueueCopyImageToBuffer(
    command_queue: cl_command_queue,
    src_image: cl_mem,
    _dst_buffer: cl_mem,
    _src_origin: *const usize,
    _region: *const usize,
    _dst_offset: usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    _event: *mut cl_event,
) -> cl_int {
    call("clEnqueueCopyImageToBuffer", || {
        // SAFETY: the application's wait list.
        unsafe {
            image_command(
                command_queue,
                src_image,
                num_events_in_wait_list,
                event_wait_list,
            )
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clEnqueueCopyBufferToImage(
    command_queue: cl_command_queue,
    _src_buffer: cl_mem,
    dst_image: cl_mem,
    _src_offset: usize,
    _dst_origin: *const usize,
    _region: *const usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    _event: *mut cl_event,
) -> cl_int {
    call("clEnqueueCopyBufferToImage", || {
        // SAFETY: the application's wait list.
        unsafe {
            image_command(
                command_queue,
                dst_image,
                num_events_in_wait_list,
                event_wait_list,
            )
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clEnqueueMapImage(
    command_queue: cl_command_queue,
    image: cl_mem,
    _blocking_map: cl_bool,
    _map_flags: cl_map_flags,
    _origin: *const usize,
    _region: *const usize,
    _image_row_pitch: *mut usize,
    _image_slice_pitch: *mut usize,
    num_events_in_wait_list: cl_uint,
    event_wait_list: *const cl_event,
    _event: *mut cl_event,
    errcode_ret: *mut cl_int,
) -> *mut c_void {
    call_ret(
        "clEnqueueMapImage",
        errcode_ret,
        std::ptr::null_mut(),
        || {
            // SAFETY: the application's wait list.
            unsafe {
                image_command(
                    command_queue,
                    image,
                    num_events_in_wait_list,
                    event_wait_list,
                )
            }?;
            Ok(std::ptr::null_mut())
        },
    )
}
