//! Command-queue entry points.

use std::ffi::c_void;
use std::sync::Arc;

use clift_runtime::context::Context;
use clift_runtime::device::Device;
use clift_runtime::object::ClObject;
use clift_runtime::queue::Queue;
use clift_runtime::{ClResult, fail};
use khronos_headers::*;

use super::context::context;
use crate::boundary::{call, call_ret, note_context};
use crate::handle;
use crate::info::{InfoValue, answer};

/// The queue properties OpenCL 1.2 defines (all of which clift supports).
const KNOWN_PROPERTIES: cl_command_queue_properties =
    CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE;

/// OpenCL 2.0's `CL_QUEUE_ON_DEVICE` and `CL_QUEUE_ON_DEVICE_DEFAULT`: valid property bits
/// that an OpenCL 1.2 device does not support.
const ON_DEVICE_PROPERTIES: cl_command_queue_properties = (1 << 2) | (1 << 3);

/// `cl_queue_properties` (OpenCL 2.0, `cl.h`): one name or value of a property list.
#[allow(non_camel_case_types)]
pub type cl_queue_properties = cl_bitfield;

/// The property name `CL_QUEUE_PROPERTIES` of OpenCL 2.0 lists (the same value as the 1.x
/// query of that name).
const CL_QUEUE_PROPERTIES_KEY: cl_queue_properties = CL_QUEUE_PROPERTIES as cl_queue_properties;

/// OpenCL 2.0's `CL_QUEUE_SIZE` property name (on-device queues only).
const CL_QUEUE_SIZE: cl_queue_properties = 0x1094;

/// The queue behind a handle, noting its context for error reports.
pub(crate) fn queue<'a>(handle: *mut c_void) -> ClResult<&'a Queue> {
    let queue = handle::object::<Queue>(handle)?;
    note_context(queue.context());
    Ok(queue)
}

/// Like [`queue`], as a new strong reference (for enqueuing).
pub(crate) fn shared_queue(handle: *mut c_void) -> ClResult<Arc<Queue>> {
    let queue = handle::shared::<Queue>(handle)?;
    note_context(queue.context());
    Ok(queue)
}

/// What `clCreateCommandQueue` and `clCreateCommandQueueWithProperties` share: the checks of
/// the context, the device and the OpenCL 1.2 property bits, in the spec's order.
fn create_queue(
    context: cl_context,
    device: cl_device_id,
    properties: cl_command_queue_properties,
) -> ClResult<cl_command_queue> {
    self::context(context)?;
    let context = handle::shared::<Context>(context)?;
    let device = handle::shared::<Device>(device)?;
    // "CL_INVALID_DEVICE if device is not a valid device or is not associated with
    // context."
    if !context.has_device(&device) {
        return fail(CL_INVALID_DEVICE);
    }
    // "CL_INVALID_VALUE if values specified in properties are not valid."
    if properties & !KNOWN_PROPERTIES != 0 {
        return fail(CL_INVALID_VALUE);
    }
    Ok(handle::new_handle(Queue::new(context, device, properties)?))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clCreateCommandQueue(
    context: cl_context,
    device: cl_device_id,
    properties: cl_command_queue_properties,
    errcode_ret: *mut cl_int,
) -> cl_command_queue {
    call_ret(
        "clCreateCommandQueue",
        errcode_ret,
        std::ptr::null_mut(),
        || create_queue(context, device, properties),
    )
}

/// Reads the zero-terminated `(name, value)` list of `clCreateCommandQueueWithProperties`
/// into the property bits: only `CL_QUEUE_PROPERTIES` names anything an OpenCL 1.2 device
/// supports (`CL_QUEUE_SIZE` belongs to on-device queues, which it has none of).
///
/// # Safety
/// `list` must be NULL or a zero-terminated list of pairs, as the spec requires.
unsafe fn queue_properties(
    list: *const cl_queue_properties,
) -> ClResult<cl_command_queue_properties> {
    let mut bits = None;
    if list.is_null() {
        return Ok(0);
    }
    let mut i = 0;
    loop {
        // SAFETY: the caller's contract: reading stops at the terminating 0 name.
        let name = unsafe { list.add(i).read() };
        if name == 0 {
            break;
        }
        // SAFETY: a non-zero name is followed by its value.
        let value = unsafe { list.add(i + 1).read() };
        match name {
            // "CL_INVALID_VALUE if values specified in properties are not valid": an
            // unknown name, or a name given twice.
            CL_QUEUE_PROPERTIES_KEY if bits.is_none() => bits = Some(value),
            CL_QUEUE_SIZE => return fail(CL_INVALID_QUEUE_PROPERTIES),
            _ => return fail(CL_INVALID_VALUE),
        }
        i += 2;
    }
    Ok(bits.unwrap_or(0))
}

/// OpenCL 2.0's queue constructor. The CTS's harness and several of its tests call it
/// whatever the device's version (ocl-icd then calls through this dispatch slot
/// unchecked), and every other OpenCL 1.2 implementation that ships with a 2.0+ loader
/// answers it, so clift does too, for the properties OpenCL 1.2 knows.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clCreateCommandQueueWithProperties(
    context: cl_context,
    device: cl_device_id,
    properties: *const cl_queue_properties,
    errcode_ret: *mut cl_int,
) -> cl_command_queue {
    call_ret(
        "clCreateCommandQueueWithProperties",
        errcode_ret,
        std::ptr::null_mut(),
        || {
            self::context(context)?;
            handle::object::<Device>(device)?;
            // SAFETY: the application's zero-terminated list.
            let bits = unsafe { queue_properties(properties) }?;
            // "CL_INVALID_QUEUE_PROPERTIES if values specified in properties are valid but
            // are not supported by the device": the OpenCL 2.0 on-device queue bits, which
            // this entry point's version defines (OpenCL 1.2's clCreateCommandQueue does not).
            if bits & !(KNOWN_PROPERTIES | ON_DEVICE_PROPERTIES) == 0
                && bits & ON_DEVICE_PROPERTIES != 0
            {
                return fail(CL_INVALID_QUEUE_PROPERTIES);
            }
            create_queue(context, device, bits)
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clRetainCommandQueue(command_queue: cl_command_queue) -> cl_int {
    call("clRetainCommandQueue", || {
        handle::retain::<Queue>(command_queue)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clReleaseCommandQueue(command_queue: cl_command_queue) -> cl_int {
    // "clReleaseCommandQueue performs an implicit flush"; the queue lives on in its commands
    // until they have finished.
    call("clReleaseCommandQueue", || {
        handle::object::<Queue>(command_queue)?.flush();
        handle::release::<Queue>(command_queue)
    })
}

fn queue_info(queue: &Queue, param: cl_command_queue_info) -> ClResult<InfoValue> {
    Ok(match param {
        CL_QUEUE_CONTEXT => InfoValue::scalar::<cl_context>(handle::handle_of(&**queue.context())),
        CL_QUEUE_DEVICE => InfoValue::scalar::<cl_device_id>(handle::handle_of(&**queue.device())),
        CL_QUEUE_REFERENCE_COUNT => InfoValue::scalar(queue.header().api_refs()),
        CL_QUEUE_PROPERTIES => InfoValue::scalar(queue.properties()),
        _ => return fail(CL_INVALID_VALUE),
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clGetCommandQueueInfo(
    command_queue: cl_command_queue,
    param_name: cl_command_queue_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    call("clGetCommandQueueInfo", || {
        let queue = queue(command_queue)?;
        // SAFETY: the application's buffers, as the spec describes them.
        unsafe {
            answer(
                queue_info(queue, param_name),
                param_value_size,
                param_value,
                param_value_size_ret,
            )
        }
    })
}

/// OpenCL 1.0's way to change queue properties, still exported. Commands already enqueued
/// finish first, so the change applies to later commands only.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clSetCommandQueueProperty(
    command_queue: cl_command_queue,
    properties: cl_command_queue_properties,
    enable: cl_bool,
    old_properties: *mut cl_command_queue_properties,
) -> cl_int {
    call("clSetCommandQueueProperty", || {
        let queue = queue(command_queue)?;
        if properties & !KNOWN_PROPERTIES != 0 {
            return fail(CL_INVALID_VALUE);
        }
        queue.finish();
        let old = queue.change_properties(properties, enable != CL_FALSE);
        if !old_properties.is_null() {
            // SAFETY: the application's out-parameter.
            unsafe { old_properties.write(old) };
        }
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clFlush(command_queue: cl_command_queue) -> cl_int {
    // A deferred command (`clift_runtime::queue`) goes to the device's workers; the others
    // were handed over as soon as their wait lists allowed.
    call("clFlush", || queue(command_queue).map(|q| q.flush()))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clFinish(command_queue: cl_command_queue) -> cl_int {
    call("clFinish", || {
        queue(command_queue)?.finish();
        Ok(())
    })
}
