//! Device entry points.

use std::ffi::c_void;
use std::sync::Arc;

use clift_runtime::device::{Device, PartitionRequest, limits};
use clift_runtime::object::ClObject;
use clift_runtime::platform;
use clift_runtime::{ClResult, fail};
use khronos_headers::*;

use super::platform::{named_platform, the_platform};
use crate::boundary::call;
use crate::handle;
use crate::info::{InfoValue, answer};

/// Every `cl_device_type` bit OpenCL 1.2 defines.
const KNOWN_DEVICE_TYPES: cl_device_type = CL_DEVICE_TYPE_DEFAULT
    | CL_DEVICE_TYPE_CPU
    | CL_DEVICE_TYPE_GPU
    | CL_DEVICE_TYPE_ACCELERATOR
    | CL_DEVICE_TYPE_CUSTOM;

/// The root devices matching `device_type`: "CL_INVALID_DEVICE_TYPE if device_type is not a
/// valid value", "CL_DEVICE_NOT_FOUND if no OpenCL devices that matched device_type were
/// found". The CPU device is also the default device.
pub(crate) fn devices_of_type(device_type: cl_device_type) -> ClResult<Vec<Arc<Device>>> {
    if device_type == 0
        || (device_type != CL_DEVICE_TYPE_ALL && device_type & !KNOWN_DEVICE_TYPES != 0)
    {
        return fail(CL_INVALID_DEVICE_TYPE);
    }
    if device_type & (CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_DEFAULT) == 0 {
        return fail(CL_DEVICE_NOT_FOUND);
    }
    Ok(the_platform().devices().to_vec())
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clGetDeviceIDs(
    platform: cl_platform_id,
    device_type: cl_device_type,
    num_entries: cl_uint,
    devices: *mut cl_device_id,
    num_devices: *mut cl_uint,
) -> cl_int {
    call("clGetDeviceIDs", || {
        named_platform(platform)?;
        let found = devices_of_type(device_type)?;
        // "CL_INVALID_VALUE if num_entries is equal to zero and devices is not NULL or if
        // both num_devices and devices are NULL."
        if (num_entries == 0 && !devices.is_null()) || (devices.is_null() && num_devices.is_null())
        {
            return fail(CL_INVALID_VALUE);
        }
        let handles: Vec<cl_device_id> = found.iter().map(|d| handle::handle_of(&**d)).collect();
        // SAFETY: the spec requires `devices` to hold `num_entries` entries when not NULL.
        unsafe { super::write_list(&handles, devices, num_entries, num_devices) };
        Ok(())
    })
}

/// `CL_DEVICE_VERSION` / `CL_DEVICE_OPENCL_C_VERSION` carry the driver's name after the
/// version, as the spec's format allows.
fn opencl_c_version() -> String {
    format!("OpenCL C 1.2 clift {}", platform::DRIVER_VERSION)
}

/// Vector widths of the code generator: 128-bit SIMD registers, in lanes of each type.
/// `half` is 0: cl_khr_fp16 is not supported, and the spec then requires 0.
const VECTOR_WIDTHS: [(cl_device_info, cl_device_info, u32); 7] = [
    (
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR,
        CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR,
        16,
    ),
    (
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT,
        CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT,
        8,
    ),
    (
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT,
        CL_DEVICE_NATIVE_VECTOR_WIDTH_INT,
        4,
    ),
    (
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG,
        CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG,
        2,
    ),
    (
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT,
        CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT,
        4,
    ),
    (
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE,
        CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE,
        2,
    ),
    (
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF,
        CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF,
        // cl_khr_fp16: half lanes are computed as float lanes.
        4,
    ),
];

/// The partition schemes a device supports: all three when it has two CPUs or more, else
/// the single 0 the spec asks for ("If the device cannot be partitioned ... a value of 0").
fn partition_properties(device: &Device) -> Vec<cl_device_partition_property> {
    if device.partitionable() {
        vec![
            CL_DEVICE_PARTITION_EQUALLY,
            CL_DEVICE_PARTITION_BY_COUNTS,
            CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN,
        ]
    } else {
        vec![0]
    }
}

fn device_info(device: &Device, param: cl_device_info) -> ClResult<InfoValue> {
    use InfoValue as V;
    if let Some(&(_, _, width)) = VECTOR_WIDTHS
        .iter()
        .find(|(preferred, native, _)| param == *preferred || param == *native)
    {
        return Ok(V::scalar(width));
    }
    let (cache_size, cache_line) = device.global_mem_cache();
    Ok(match param {
        CL_DEVICE_TYPE => V::scalar(CL_DEVICE_TYPE_CPU),
        CL_DEVICE_VENDOR_ID => V::scalar(device.vendor_id()),
        CL_DEVICE_MAX_COMPUTE_UNITS => V::scalar(device.compute_units()),
        CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS => V::scalar(limits::MAX_WORK_ITEM_DIMENSIONS),
        CL_DEVICE_MAX_WORK_ITEM_SIZES => V::slice(&limits::MAX_WORK_ITEM_SIZES),
        CL_DEVICE_MAX_WORK_GROUP_SIZE => V::scalar(limits::MAX_WORK_GROUP_SIZE),
        CL_DEVICE_MAX_CLOCK_FREQUENCY => V::scalar(device.max_clock_mhz()),
        CL_DEVICE_ADDRESS_BITS => V::scalar(usize::BITS),
        CL_DEVICE_MAX_MEM_ALLOC_SIZE => V::scalar(device.max_mem_alloc_size()),
        CL_DEVICE_IMAGE_SUPPORT => V::bool(device.image_support()),
        CL_DEVICE_MAX_READ_IMAGE_ARGS => V::scalar(limits::MAX_READ_IMAGE_ARGS),
        CL_DEVICE_MAX_WRITE_IMAGE_ARGS => V::scalar(limits::MAX_WRITE_IMAGE_ARGS),
        CL_DEVICE_IMAGE2D_MAX_WIDTH | CL_DEVICE_IMAGE2D_MAX_HEIGHT => {
            V::scalar(limits::IMAGE2D_MAX_SIDE)
        }
        CL_DEVICE_IMAGE3D_MAX_WIDTH
        | CL_DEVICE_IMAGE3D_MAX_HEIGHT
        | CL_DEVICE_IMAGE3D_MAX_DEPTH => V::scalar(limits::IMAGE3D_MAX_SIDE),
        CL_DEVICE_IMAGE_MAX_BUFFER_SIZE => V::scalar(limits::IMAGE_MAX_BUFFER_SIZE),
        CL_DEVICE_IMAGE_MAX_ARRAY_SIZE => V::scalar(limits::IMAGE_MAX_ARRAY_SIZE),
        CL_DEVICE_MAX_SAMPLERS => V::scalar(limits::MAX_SAMPLERS),
        CL_DEVICE_MAX_PARAMETER_SIZE => V::scalar(limits::MAX_PARAMETER_SIZE),
        CL_DEVICE_MEM_BASE_ADDR_ALIGN => V::scalar(limits::MEM_BASE_ADDR_ALIGN_BITS),
        CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE => V::scalar(limits::MIN_DATA_TYPE_ALIGN_BYTES),
        CL_DEVICE_SINGLE_FP_CONFIG => V::scalar(device.single_fp_config()),
        // cl_khr_fp64: the minimum the spec requires of a device supporting double.
        CL_DEVICE_DOUBLE_FP_CONFIG => V::scalar(
            CL_FP_FMA
                | CL_FP_ROUND_TO_NEAREST
                | CL_FP_ROUND_TO_ZERO
                | CL_FP_ROUND_TO_INF
                | CL_FP_INF_NAN
                | CL_FP_DENORM,
        ),
        // cl_khr_fp16: half arithmetic is float arithmetic rounded to nearest even after
        // each operation, denormals and infinities included (no FMA: `fma` on half rounds
        // twice).
        CL_DEVICE_HALF_FP_CONFIG => {
            V::scalar(CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN | CL_FP_DENORM)
        }
        CL_DEVICE_GLOBAL_MEM_CACHE_TYPE => V::scalar(CL_READ_WRITE_CACHE),
        CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE => V::scalar(cache_line),
        CL_DEVICE_GLOBAL_MEM_CACHE_SIZE => V::scalar(cache_size),
        CL_DEVICE_GLOBAL_MEM_SIZE => V::scalar(device.global_mem_size()),
        CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE => V::scalar(limits::MAX_CONSTANT_BUFFER_SIZE),
        CL_DEVICE_MAX_CONSTANT_ARGS => V::scalar(limits::MAX_CONSTANT_ARGS),
        // Local memory is ordinary memory (each worker's arena), not a dedicated store.
        CL_DEVICE_LOCAL_MEM_TYPE => V::scalar(CL_GLOBAL),
        CL_DEVICE_LOCAL_MEM_SIZE => V::scalar(device.local_mem_size()),
        CL_DEVICE_ERROR_CORRECTION_SUPPORT => V::bool(false),
        CL_DEVICE_HOST_UNIFIED_MEMORY => V::bool(true),
        CL_DEVICE_PROFILING_TIMER_RESOLUTION => V::scalar(limits::PROFILING_TIMER_RESOLUTION_NS),
        CL_DEVICE_ENDIAN_LITTLE => V::bool(cfg!(target_endian = "little")),
        CL_DEVICE_AVAILABLE => V::bool(true),
        CL_DEVICE_COMPILER_AVAILABLE | CL_DEVICE_LINKER_AVAILABLE => V::bool(true),
        CL_DEVICE_EXECUTION_CAPABILITIES => V::scalar(CL_EXEC_KERNEL | CL_EXEC_NATIVE_KERNEL),
        CL_DEVICE_QUEUE_PROPERTIES => {
            V::scalar(CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE | CL_QUEUE_PROFILING_ENABLE)
        }
        CL_DEVICE_BUILT_IN_KERNELS => V::string(""),
        CL_DEVICE_PLATFORM => V::scalar::<cl_platform_id>(handle::handle_of(the_platform())),
        CL_DEVICE_NAME => V::string(device.name()),
        CL_DEVICE_VENDOR => V::string(device.vendor()),
        CL_DRIVER_VERSION => V::string(platform::DRIVER_VERSION),
        CL_DEVICE_PROFILE => V::string(platform::PROFILE),
        CL_DEVICE_VERSION => V::string(&platform::version()),
        CL_DEVICE_OPENCL_C_VERSION => V::string(&opencl_c_version()),
        CL_DEVICE_EXTENSIONS => V::string(&device.extensions()),
        CL_DEVICE_PRINTF_BUFFER_SIZE => V::scalar(limits::PRINTF_BUFFER_SIZE),
        CL_DEVICE_PREFERRED_INTEROP_USER_SYNC => V::bool(true),
        CL_DEVICE_PARENT_DEVICE => V::scalar::<cl_device_id>(
            device
                .parent()
                .map_or(std::ptr::null_mut(), |p| handle::handle_of(&**p)),
        ),
        CL_DEVICE_PARTITION_MAX_SUB_DEVICES => V::scalar(device.max_sub_devices()),
        CL_DEVICE_PARTITION_PROPERTIES => V::slice(&partition_properties(device)),
        CL_DEVICE_PARTITION_AFFINITY_DOMAIN => V::scalar(device.partition_affinity_domains()),
        CL_DEVICE_PARTITION_TYPE => V::slice(device.partition_type()),
        // Root devices are not reference counted: they report 1 always.
        CL_DEVICE_REFERENCE_COUNT => V::scalar(device.header().api_refs()),
        _ => return fail(CL_INVALID_VALUE),
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clGetDeviceInfo(
    device: cl_device_id,
    param_name: cl_device_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    call("clGetDeviceInfo", || {
        let device = handle::object::<Device>(device)?;
        // SAFETY: the application's buffers, as the spec describes them.
        unsafe {
            answer(
                device_info(device, param_name),
                param_value_size,
                param_value,
                param_value_size_ret,
            )
        }
    })
}

/// Reads a zero-terminated `clCreateSubDevices` property list into a request.
///
/// # Safety
/// `properties` must be NULL or point to a zero-terminated list, as the spec requires.
unsafe fn partition_request(
    properties: *const cl_device_partition_property,
) -> ClResult<PartitionRequest> {
    if properties.is_null() {
        return fail(CL_INVALID_VALUE);
    }
    // SAFETY: the caller's contract: reading stops at the terminator (or at the count list's
    // end marker, which the spec places before it).
    let at = |i: usize| unsafe { properties.add(i).read() };
    let request = match at(0) {
        CL_DEVICE_PARTITION_EQUALLY => {
            let units = at(1);
            if at(2) != 0 {
                return fail(CL_INVALID_VALUE);
            }
            let Ok(units) = u32::try_from(units) else {
                return fail(CL_INVALID_VALUE);
            };
            PartitionRequest::Equally(units)
        }
        CL_DEVICE_PARTITION_BY_COUNTS => {
            let mut counts = Vec::new();
            let mut i = 1;
            loop {
                let value = at(i);
                if value == CL_DEVICE_PARTITION_BY_COUNTS_LIST_END {
                    break;
                }
                // "the number of compute units requested for one or more sub-devices is
                // less than zero" is CL_INVALID_DEVICE_PARTITION_COUNT.
                let Ok(count) = u32::try_from(value) else {
                    return fail(CL_INVALID_DEVICE_PARTITION_COUNT);
                };
                counts.push(count);
                i += 1;
            }
            if at(i + 1) != 0 {
                return fail(CL_INVALID_VALUE);
            }
            PartitionRequest::ByCounts(counts)
        }
        CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN => {
            let domain = at(1);
            if at(2) != 0 || domain <= 0 {
                return fail(CL_INVALID_VALUE);
            }
            PartitionRequest::ByAffinityDomain(domain as cl_device_affinity_domain)
        }
        _ => return fail(CL_INVALID_VALUE),
    };
    Ok(request)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clCreateSubDevices(
    in_device: cl_device_id,
    properties: *const cl_device_partition_property,
    num_devices: cl_uint,
    out_devices: *mut cl_device_id,
    num_devices_ret: *mut cl_uint,
) -> cl_int {
    call("clCreateSubDevices", || {
        let device = handle::shared::<Device>(in_device)?;
        // SAFETY: the application's zero-terminated list.
        let request = unsafe { partition_request(properties) }?;
        let subs = device.partition(&request)?;
        // "CL_INVALID_VALUE if out_devices is not NULL and num_devices is less than the
        // number of sub-devices created by the partition scheme."
        if !out_devices.is_null() && (num_devices as usize) < subs.len() {
            return fail(CL_INVALID_VALUE);
        }
        let count = subs.len() as cl_uint;
        if !out_devices.is_null() {
            let handles: Vec<cl_device_id> = subs.into_iter().map(handle::new_handle).collect();
            // SAFETY: `out_devices` holds `num_devices >= handles.len()` entries.
            unsafe { super::write_list(&handles, out_devices, num_devices, std::ptr::null_mut()) };
        }
        if !num_devices_ret.is_null() {
            // SAFETY: the application's out-parameter.
            unsafe { num_devices_ret.write(count) };
        }
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clRetainDevice(device: cl_device_id) -> cl_int {
    call("clRetainDevice", || {
        // "If device is a root level device ... the device reference count remains
        // unchanged."
        if handle::object::<Device>(device)?.is_root() {
            return Ok(());
        }
        handle::retain::<Device>(device)
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clReleaseDevice(device: cl_device_id) -> cl_int {
    call("clReleaseDevice", || {
        if handle::object::<Device>(device)?.is_root() {
            return Ok(());
        }
        handle::release::<Device>(device)
    })
}
