//! Contexts (OpenCL 1.2 §4.4), as an application sees them through the ICD loader.
//!
//! ocl-icd answers some errors itself before a driver is reached: `clCreateContext` with a
//! NULL or unknown `CL_CONTEXT_PLATFORM`, or (without that property) with NULL `devices`,
//! `num_devices` 0 or a NULL first device; and every call on a NULL handle. Where a rule
//! is clift's to enforce, the tests pass `CL_CONTEXT_PLATFORM` or a first valid device so
//! that the loader forwards the call.

use std::ffi::{c_char, c_void};
use std::ptr::null_mut;

use clift_conformance::*;

fn device() -> cl_device_id {
    clift().device()
}

/// `{CL_CONTEXT_PLATFORM, platform, 0}`.
fn platform_properties() -> [cl_context_properties; 3] {
    [CL_CONTEXT_PLATFORM, clift().platform() as _, 0]
}

/// A context over the device with no properties.
fn context() -> cl_context {
    clift()
        .create_context(None, &[device()])
        .expect("clCreateContext")
}

fn release(context: cl_context) {
    assert_eq!(clift().release_context(context), CL_SUCCESS);
}

/// The error of a `clCreateContext` call expected to fail (releasing a context it made).
fn create_error(
    properties: Option<&[cl_context_properties]>,
    num_devices: cl_uint,
    devices: Option<&[cl_device_id]>,
    pfn_notify: ContextNotify,
    user_data: *mut c_void,
) -> cl_int {
    let (context, status) =
        clift().create_context_raw(properties, num_devices, devices, pfn_notify, user_data);
    if !context.is_null() {
        release(context);
    }
    assert_eq!(context.is_null(), status != CL_SUCCESS, "status {status}");
    status
}

/// The error of a `clCreateContextFromType` call expected to fail.
fn create_from_type_error(
    properties: Option<&[cl_context_properties]>,
    device_type: cl_device_type,
) -> cl_int {
    match clift().create_context_from_type(properties, device_type) {
        Ok(context) => {
            release(context);
            CL_SUCCESS
        }
        Err(status) => status,
    }
}

/// The properties a context reports.
fn properties_of(context: cl_context) -> Vec<cl_context_properties> {
    clift().context_array(context, CL_CONTEXT_PROPERTIES)
}

extern "C" fn ignore_notification(
    _errinfo: *const c_char,
    _private_info: *const c_void,
    _cb: usize,
    _user_data: *mut c_void,
) {
}

/// A status of a size query of `param` on `context`.
fn query_status(context: cl_context, param: cl_context_info) -> cl_int {
    let mut size = 0;
    clift().query_context_info(context, param, 0, None, Some(&mut size))
}

// clCreateContext: success

#[test]
fn context_without_properties_holds_the_device() {
    let api = clift();
    let context = context();
    assert_eq!(api.context_uint(context, CL_CONTEXT_NUM_DEVICES), 1);
    assert_eq!(
        api.context_array::<cl_device_id>(context, CL_CONTEXT_DEVICES),
        [device()]
    );
    release(context);
}

#[test]
fn context_without_properties_reports_none_or_a_lone_terminator() {
    // "If the properties argument ... is NULL, the implementation may return either a
    // param_value_size_ret of 0 ... or can return a context property value of 0".
    let context = context();
    let properties = properties_of(context);
    assert!(properties.is_empty() || properties == [0], "{properties:?}");
    release(context);
}

#[test]
fn context_info_answers_have_the_sizes_of_their_types() {
    let api = clift();
    let context = context();
    let size = |param| {
        api.context_info(context, param)
            .expect("clGetContextInfo")
            .len()
    };
    assert_eq!(size(CL_CONTEXT_REFERENCE_COUNT), size_of::<cl_uint>());
    assert_eq!(size(CL_CONTEXT_NUM_DEVICES), size_of::<cl_uint>());
    assert_eq!(size(CL_CONTEXT_DEVICES), size_of::<cl_device_id>());
    release(context);
}

#[test]
fn platform_property_is_returned_exactly_as_given() {
    // "If the properties argument ... is not NULL, the implementation must return the values
    // specified in the properties argument."
    let given = platform_properties();
    let context = clift().create_context(Some(&given), &[device()]).unwrap();
    assert_eq!(properties_of(context), given);
    release(context);
}

#[test]
fn interop_user_sync_property_is_returned_exactly_as_given() {
    let [name, platform, _] = platform_properties();
    let given = [
        name,
        platform,
        CL_CONTEXT_INTEROP_USER_SYNC,
        CL_TRUE as _,
        0,
    ];
    let context = clift().create_context(Some(&given), &[device()]).unwrap();
    assert_eq!(properties_of(context), given);
    release(context);
}

#[test]
fn interop_user_sync_without_platform_is_accepted() {
    let given = [CL_CONTEXT_INTEROP_USER_SYNC, CL_FALSE as _, 0];
    let context = clift().create_context(Some(&given), &[device()]).unwrap();
    assert_eq!(properties_of(context), given);
    release(context);
}

#[test]
fn new_context_reference_count_is_one() {
    let context = context();
    assert_eq!(clift().context_uint(context, CL_CONTEXT_REFERENCE_COUNT), 1);
    release(context);
}

#[test]
fn retain_and_release_track_the_reference_count() {
    let api = clift();
    let context = context();
    assert_eq!(api.retain_context(context), CL_SUCCESS);
    assert_eq!(api.context_uint(context, CL_CONTEXT_REFERENCE_COUNT), 2);
    release(context);
    assert_eq!(api.context_uint(context, CL_CONTEXT_REFERENCE_COUNT), 1);
    release(context);
}

#[test]
fn duplicate_devices_are_ignored() {
    // "Duplicate devices specified in devices are ignored."
    let api = clift();
    let context = api.create_context(None, &[device(), device()]).unwrap();
    assert_eq!(api.context_uint(context, CL_CONTEXT_NUM_DEVICES), 1);
    assert_eq!(
        api.context_array::<cl_device_id>(context, CL_CONTEXT_DEVICES),
        [device()]
    );
    release(context);
}

#[test]
fn notify_callback_with_user_data_is_accepted() {
    let mut user_data = 0u32;
    let (context, status) = clift().create_context_raw(
        None,
        1,
        Some(&[device()]),
        Some(ignore_notification),
        (&raw mut user_data).cast(),
    );
    assert_eq!(status, CL_SUCCESS);
    release(context);
}

#[test]
fn errcode_ret_may_be_null() {
    // "If errcode_ret is NULL, no error code is returned."
    let api = clift();
    let create = entry!(api.clCreateContext);
    let devices = [device()];
    // SAFETY: one valid device in `devices`, NULL properties, callback and errcode_ret.
    let context = unsafe {
        create(
            std::ptr::null(),
            1,
            devices.as_ptr(),
            None,
            null_mut(),
            null_mut(),
        )
    };
    assert!(!context.is_null());
    release(context);
    let properties = platform_properties();
    // SAFETY: as above, with a terminated property list and NULL devices (an error).
    let context = unsafe {
        create(
            properties.as_ptr(),
            1,
            std::ptr::null(),
            None,
            null_mut(),
            null_mut(),
        )
    };
    assert!(context.is_null());
}

// clCreateContext: errors

#[test]
fn null_devices_is_invalid_value() {
    // "CL_INVALID_VALUE if devices is NULL."
    let properties = platform_properties();
    let status = create_error(Some(&properties), 1, None, None, null_mut());
    assert_eq!(status, CL_INVALID_VALUE);
}

#[test]
fn zero_devices_is_invalid_value() {
    // "CL_INVALID_VALUE if num_devices is equal to zero."
    let properties = platform_properties();
    let status = create_error(Some(&properties), 0, Some(&[device()]), None, null_mut());
    assert_eq!(status, CL_INVALID_VALUE);
}

#[test]
fn null_notify_with_user_data_is_invalid_value() {
    // "CL_INVALID_VALUE if pfn_notify is NULL but user_data is not NULL."
    let mut user_data = 0u32;
    let status = create_error(
        None,
        1,
        Some(&[device()]),
        None,
        (&raw mut user_data).cast(),
    );
    assert_eq!(status, CL_INVALID_VALUE);
}

#[test]
fn null_device_in_the_list_is_invalid_device() {
    // "CL_INVALID_DEVICE if devices contains an invalid device."
    let status = create_error(None, 2, Some(&[device(), null_mut()]), None, null_mut());
    assert_eq!(status, CL_INVALID_DEVICE);
}

#[test]
fn context_handle_in_the_device_list_is_invalid_device() {
    let other = context();
    let status = create_error(None, 2, Some(&[device(), other]), None, null_mut());
    assert_eq!(status, CL_INVALID_DEVICE);
    release(other);
}

#[test]
fn platform_handle_in_the_device_list_is_invalid_device() {
    let platform = clift().platform();
    let status = create_error(None, 1, Some(&[platform]), None, null_mut());
    assert_eq!(status, CL_INVALID_DEVICE);
}

#[test]
fn foreign_object_in_the_device_list_is_invalid_device() {
    // SAFETY: the device handle is live (root devices are never released).
    let mut foreign = unsafe { ForeignObject::with_dispatch_of(device()) };
    let devices = [device(), foreign.handle()];
    let status = create_error(None, 2, Some(&devices), None, null_mut());
    assert_eq!(status, CL_INVALID_DEVICE);
}

#[test]
fn unknown_property_is_invalid_property() {
    // "CL_INVALID_PROPERTY if context property name in properties is not a supported
    // property name"
    for name in [
        0x7777,
        c"INVALID_PROPERTY".as_ptr() as cl_context_properties,
    ] {
        let properties = [name, 0, 0];
        let status = create_error(Some(&properties), 1, Some(&[device()]), None, null_mut());
        assert_eq!(status, CL_INVALID_PROPERTY, "property {name:#x}");
    }
}

#[test]
fn invalid_interop_user_sync_value_is_invalid_property() {
    // "... if the value specified for a supported property name is not valid"
    for value in [-1, 2] {
        let properties = [CL_CONTEXT_INTEROP_USER_SYNC, value, 0];
        let status = create_error(Some(&properties), 1, Some(&[device()]), None, null_mut());
        assert_eq!(status, CL_INVALID_PROPERTY, "value {value}");
    }
}

#[test]
fn interop_user_sync_given_twice_is_invalid_property() {
    // "... or if the same property name is specified more than once."
    let sync = CL_CONTEXT_INTEROP_USER_SYNC;
    let properties = [sync, CL_FALSE as _, sync, CL_FALSE as _, 0];
    let status = create_error(Some(&properties), 1, Some(&[device()]), None, null_mut());
    assert_eq!(status, CL_INVALID_PROPERTY);
}

#[test]
fn platform_given_twice_is_invalid_property() {
    let [name, platform, _] = platform_properties();
    let properties = [name, platform, name, platform, 0];
    let status = create_error(Some(&properties), 1, Some(&[device()]), None, null_mut());
    assert_eq!(status, CL_INVALID_PROPERTY);
}

#[test]
fn null_platform_property_is_invalid_platform() {
    // "CL_INVALID_PLATFORM if ... platform value specified in properties is not a valid
    // platform."
    let properties = [CL_CONTEXT_PLATFORM, 0, 0];
    let status = create_error(Some(&properties), 1, Some(&[device()]), None, null_mut());
    assert_eq!(status, CL_INVALID_PLATFORM);
}

#[test]
fn device_handle_as_platform_property_is_invalid_platform() {
    let properties = [CL_CONTEXT_PLATFORM, device() as _, 0];
    let status = create_error(Some(&properties), 1, Some(&[device()]), None, null_mut());
    assert_eq!(status, CL_INVALID_PLATFORM);
}

// clCreateContextFromType

#[test]
fn context_from_cpu_default_or_all_holds_the_device() {
    let api = clift();
    for device_type in [
        CL_DEVICE_TYPE_CPU,
        CL_DEVICE_TYPE_DEFAULT,
        CL_DEVICE_TYPE_ALL,
    ] {
        let context = api.create_context_from_type(None, device_type).unwrap();
        let devices = api.context_array::<cl_device_id>(context, CL_CONTEXT_DEVICES);
        assert_eq!(devices, [device()], "device type {device_type:#x}");
        assert_eq!(api.context_uint(context, CL_CONTEXT_NUM_DEVICES), 1);
        release(context);
    }
}

#[test]
fn context_from_type_returns_its_properties_exactly() {
    let given = platform_properties();
    let context = clift()
        .create_context_from_type(Some(&given), CL_DEVICE_TYPE_CPU)
        .unwrap();
    assert_eq!(properties_of(context), given);
    release(context);
}

#[test]
fn context_from_gpu_accelerator_or_custom_is_device_not_found() {
    // "CL_DEVICE_NOT_FOUND if no devices that match device_type and property values specified
    // in properties are currently available."
    for device_type in [
        CL_DEVICE_TYPE_GPU,
        CL_DEVICE_TYPE_ACCELERATOR,
        CL_DEVICE_TYPE_CUSTOM,
    ] {
        let status = create_from_type_error(None, device_type);
        assert_eq!(status, CL_DEVICE_NOT_FOUND, "device type {device_type:#x}");
    }
}

#[test]
fn context_from_undefined_type_bits_is_invalid_device_type() {
    // "CL_INVALID_DEVICE_TYPE if device_type is not a valid value."
    let status = create_from_type_error(None, 1 << 20);
    assert_eq!(status, CL_INVALID_DEVICE_TYPE);
}

#[test]
fn context_from_type_zero_is_invalid_device_type() {
    // 0 names no type of table 4.2 (the Khronos CTS's negative_create_context_from_type
    // uses it as the invalid value).
    assert_eq!(create_from_type_error(None, 0), CL_INVALID_DEVICE_TYPE);
}

#[test]
fn context_from_type_with_null_notify_and_user_data_is_invalid_value() {
    let mut user_data = 0u32;
    let (context, status) = clift().create_context_from_type_raw(
        None,
        CL_DEVICE_TYPE_CPU,
        None,
        (&raw mut user_data).cast(),
    );
    assert!(context.is_null());
    assert_eq!(status, CL_INVALID_VALUE);
}

#[test]
fn context_from_type_with_unknown_property_is_invalid_property() {
    let [name, platform, _] = platform_properties();
    let properties = [name, platform, 0x7777, 0, 0];
    let status = create_from_type_error(Some(&properties), CL_DEVICE_TYPE_CPU);
    assert_eq!(status, CL_INVALID_PROPERTY);
}

#[test]
fn context_from_type_with_platform_twice_is_invalid_property() {
    let [name, platform, _] = platform_properties();
    let properties = [name, platform, name, platform, 0];
    let status = create_from_type_error(Some(&properties), CL_DEVICE_TYPE_CPU);
    assert_eq!(status, CL_INVALID_PROPERTY);
}

#[test]
fn context_from_type_with_an_invalid_platform_is_invalid_platform() {
    for platform in [0, device() as cl_context_properties] {
        let properties = [CL_CONTEXT_PLATFORM, platform, 0];
        let status = create_from_type_error(Some(&properties), CL_DEVICE_TYPE_CPU);
        assert_eq!(status, CL_INVALID_PLATFORM, "platform {platform:#x}");
    }
}

// clGetContextInfo

#[test]
fn unknown_context_param_is_invalid_value() {
    // "CL_INVALID_VALUE if param_name is not one of the supported values". A property name
    // is not a query.
    let context = context();
    for param in [0, CL_CONTEXT_PLATFORM as cl_context_info, 0x7fff_ffff] {
        assert_eq!(query_status(context, param), CL_INVALID_VALUE, "{param:#x}");
    }
    release(context);
}

#[test]
fn buffer_smaller_than_the_value_is_invalid_value() {
    // "... or if size in bytes specified by param_value_size is < size of return type as
    // specified in table 4.6 and param_value is not a NULL value."
    let context = context();
    let mut value = [0u8; 3];
    let status = clift().query_context_info(
        context,
        CL_CONTEXT_REFERENCE_COUNT,
        3,
        Some(&mut value),
        None,
    );
    assert_eq!(status, CL_INVALID_VALUE);
    release(context);
}

// Handles that are not contexts

#[test]
fn null_context_is_invalid_context() {
    // "CL_INVALID_CONTEXT if context is not a valid OpenCL context."
    let api = clift();
    assert_eq!(api.retain_context(null_mut()), CL_INVALID_CONTEXT);
    assert_eq!(api.release_context(null_mut()), CL_INVALID_CONTEXT);
    assert_eq!(
        query_status(null_mut(), CL_CONTEXT_NUM_DEVICES),
        CL_INVALID_CONTEXT
    );
}

#[test]
fn device_handle_as_context_is_invalid_context() {
    let api = clift();
    assert_eq!(api.retain_context(device()), CL_INVALID_CONTEXT);
    assert_eq!(api.release_context(device()), CL_INVALID_CONTEXT);
    assert_eq!(
        query_status(device(), CL_CONTEXT_NUM_DEVICES),
        CL_INVALID_CONTEXT
    );
}

#[test]
fn foreign_object_as_context_is_invalid_context() {
    let api = clift();
    // SAFETY: the device handle is live (root devices are never released).
    let mut foreign = unsafe { ForeignObject::with_dispatch_of(device()) };
    let handle = foreign.handle();
    assert_eq!(api.retain_context(handle), CL_INVALID_CONTEXT);
    assert_eq!(api.release_context(handle), CL_INVALID_CONTEXT);
    assert_eq!(
        query_status(handle, CL_CONTEXT_NUM_DEVICES),
        CL_INVALID_CONTEXT
    );
}
