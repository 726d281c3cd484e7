//! Context entry points.

use std::ffi::c_void;
use std::sync::Arc;

use clift_runtime::context::{Context, ContextProperties, NotifyCallback};
use clift_runtime::device::Device;
use clift_runtime::object::ClObject;
use clift_runtime::{ClResult, fail};
use khronos_headers::*;

use super::device::devices_of_type;
use super::platform::named_platform;
use crate::boundary::{call, call_ret, note_context};
use crate::handle;
use crate::info::{InfoValue, answer};

/// The C type of `pfn_notify`.
pub(crate) type ContextNotify = Option<crate::callback::ContextNotifyFn>;

/// Reads and checks a zero-terminated context property list.
///
/// # Safety
/// `properties` must be NULL or point to a zero-terminated list of name/value pairs.
unsafe fn context_properties(
    properties: *const cl_context_properties,
) -> ClResult<ContextProperties> {
    let mut parsed = ContextProperties::default();
    if properties.is_null() {
        return Ok(parsed);
    }
    let mut seen = Vec::new();
    let mut i = 0;
    loop {
        // SAFETY: the caller's contract; pairs are read up to the terminating zero.
        let name = unsafe { properties.add(i).read() };
        parsed.raw.push(name);
        if name == 0 {
            break;
        }
        // SAFETY: as above: a name is always followed by its value.
        let value = unsafe { properties.add(i + 1).read() };
        parsed.raw.push(value);
        // "CL_INVALID_PROPERTY if context property name in properties is not a supported
        // property name, if the value specified for a supported property name is not valid,
        // or if the same property name is specified more than once."
        if seen.contains(&name) {
            return fail(CL_INVALID_PROPERTY);
        }
        seen.push(name);
        match name {
            CL_CONTEXT_PLATFORM => {
                // "CL_INVALID_PLATFORM if ... platform value specified in properties is not
                // a valid platform."
                let platform = value as cl_platform_id;
                if platform.is_null() {
                    return fail(CL_INVALID_PLATFORM);
                }
                named_platform(platform)?;
            }
            CL_CONTEXT_INTEROP_USER_SYNC => match value as cl_bool {
                CL_TRUE => parsed.interop_user_sync = true,
                CL_FALSE => parsed.interop_user_sync = false,
                _ => return fail(CL_INVALID_PROPERTY),
            },
            _ => return fail(CL_INVALID_PROPERTY),
        }
        i += 2;
    }
    Ok(parsed)
}

/// "CL_INVALID_VALUE if pfn_notify is NULL but user_data is not NULL."
fn notify_callback(
    pfn_notify: ContextNotify,
    user_data: *mut c_void,
) -> ClResult<Option<NotifyCallback>> {
    match pfn_notify {
        None if !user_data.is_null() => fail(CL_INVALID_VALUE),
        None => Ok(None),
        Some(func) => Ok(Some(crate::callback::context_notify(func, user_data))),
    }
}

/// Keeps the first of each device ("Duplicate devices specified in devices are ignored").
fn without_duplicates(devices: Vec<Arc<Device>>) -> Vec<Arc<Device>> {
    let mut unique: Vec<Arc<Device>> = Vec::with_capacity(devices.len());
    for device in devices {
        if !unique.iter().any(|d| Arc::ptr_eq(d, &device)) {
            unique.push(device);
        }
    }
    unique
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clCreateContext(
    properties: *const cl_context_properties,
    num_devices: cl_uint,
    devices: *const cl_device_id,
    pfn_notify: ContextNotify,
    user_data: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_context {
    call_ret("clCreateContext", errcode_ret, std::ptr::null_mut(), || {
        // SAFETY: the application's zero-terminated list.
        let properties = unsafe { context_properties(properties) }?;
        let notify = notify_callback(pfn_notify, user_data)?;
        // "CL_INVALID_VALUE if devices is NULL ... if num_devices is equal to zero";
        // "CL_INVALID_DEVICE if devices contains an invalid device."
        // SAFETY: `devices` holds `num_devices` handles, as the spec requires.
        let devices = unsafe { handle::objects::<Device>(devices, num_devices) }?;
        let context = Context::new(without_duplicates(devices), properties, notify);
        Ok(handle::new_handle(context))
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clCreateContextFromType(
    properties: *const cl_context_properties,
    device_type: cl_device_type,
    pfn_notify: ContextNotify,
    user_data: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_context {
    call_ret(
        "clCreateContextFromType",
        errcode_ret,
        std::ptr::null_mut(),
        || {
            // SAFETY: the application's zero-terminated list.
            let properties = unsafe { context_properties(properties) }?;
            let notify = notify_callback(pfn_notify, user_data)?;
            let devices = devices_of_type(device_type)?;
            Ok(handle::new_handle(Context::new(
                devices, properties, notify,
            )))
        },
    )
}

/// The context behind a handle, noted as the one this call concerns.
pub(crate) fn context<'a>(handle: cl_context) -> ClResult<&'a Context> {
    let context = handle::object::<Context>(handle)?;
    note_context(context);
    Ok(context)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clRetainContext(context: cl_context) -> cl_int {
    call("clRetainContext", || handle::retain::<Context>(context))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clReleaseContext(context: cl_context) -> cl_int {
    call("clReleaseContext", || handle::release::<Context>(context))
}

fn context_info(context: &Context, param: cl_context_info) -> ClResult<InfoValue> {
    Ok(match param {
        CL_CONTEXT_REFERENCE_COUNT => InfoValue::scalar(context.header().api_refs()),
        CL_CONTEXT_NUM_DEVICES => InfoValue::scalar(context.devices().len() as cl_uint),
        CL_CONTEXT_DEVICES => {
            let handles: Vec<cl_device_id> = context
                .devices()
                .iter()
                .map(|d| handle::handle_of(&**d))
                .collect();
            InfoValue::slice(&handles)
        }
        CL_CONTEXT_PROPERTIES => InfoValue::slice(&context.properties().raw),
        _ => return fail(CL_INVALID_VALUE),
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clGetContextInfo(
    context: cl_context,
    param_name: cl_context_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    call("clGetContextInfo", || {
        let context = self::context(context)?;
        // SAFETY: the application's buffers, as the spec describes them.
        unsafe {
            answer(
                context_info(context, param_name),
                param_value_size,
                param_value,
                param_value_size_ret,
            )
        }
    })
}
