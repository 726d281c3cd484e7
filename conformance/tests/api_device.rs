//! Device enumeration and queries (OpenCL 1.2 §4.2, table 4.3), and root-device reference
//! counting (§4.3), as an application sees them through the ICD loader.

use std::ptr::null_mut;

use clift_conformance::*;

/// The C type of a `clGetDeviceInfo` answer, as table 4.3 gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Type {
    /// `cl_uint` and the enums defined as `cl_uint`.
    Uint,
    /// `cl_ulong` and the `cl_bitfield` types.
    Ulong,
    Size,
    Bool,
    /// `char[]`.
    String,
    /// `cl_platform_id`, `cl_device_id`.
    Handle,
    /// `size_t[]` of `CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS` entries.
    WorkItemSizes,
    /// `cl_device_partition_property[]`.
    Partition,
}

macro_rules! queries {
    ($($name:ident: $ty:ident,)*) => {
        [$((stringify!($name), $name, Type::$ty),)*]
    };
}

/// Every query of table 4.3 of the OpenCL 1.2 specification (`CL_DEVICE_HALF_FP_CONFIG`
/// belongs to cl_khr_fp16 and is tested on its own).
const DEVICE_QUERIES: [(&str, cl_device_info, Type); 73] = queries! {
    CL_DEVICE_TYPE: Ulong,
    CL_DEVICE_VENDOR_ID: Uint,
    CL_DEVICE_MAX_COMPUTE_UNITS: Uint,
    CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS: Uint,
    CL_DEVICE_MAX_WORK_ITEM_SIZES: WorkItemSizes,
    CL_DEVICE_MAX_WORK_GROUP_SIZE: Size,
    CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR: Uint,
    CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT: Uint,
    CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT: Uint,
    CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG: Uint,
    CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT: Uint,
    CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE: Uint,
    CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF: Uint,
    CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR: Uint,
    CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT: Uint,
    CL_DEVICE_NATIVE_VECTOR_WIDTH_INT: Uint,
    CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG: Uint,
    CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT: Uint,
    CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE: Uint,
    CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF: Uint,
    CL_DEVICE_MAX_CLOCK_FREQUENCY: Uint,
    CL_DEVICE_ADDRESS_BITS: Uint,
    CL_DEVICE_MAX_MEM_ALLOC_SIZE: Ulong,
    CL_DEVICE_IMAGE_SUPPORT: Bool,
    CL_DEVICE_MAX_READ_IMAGE_ARGS: Uint,
    CL_DEVICE_MAX_WRITE_IMAGE_ARGS: Uint,
    CL_DEVICE_IMAGE2D_MAX_WIDTH: Size,
    CL_DEVICE_IMAGE2D_MAX_HEIGHT: Size,
    CL_DEVICE_IMAGE3D_MAX_WIDTH: Size,
    CL_DEVICE_IMAGE3D_MAX_HEIGHT: Size,
    CL_DEVICE_IMAGE3D_MAX_DEPTH: Size,
    CL_DEVICE_IMAGE_MAX_BUFFER_SIZE: Size,
    CL_DEVICE_IMAGE_MAX_ARRAY_SIZE: Size,
    CL_DEVICE_MAX_SAMPLERS: Uint,
    CL_DEVICE_MAX_PARAMETER_SIZE: Size,
    CL_DEVICE_MEM_BASE_ADDR_ALIGN: Uint,
    // Deprecated by 1.2, still answered.
    CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE: Uint,
    CL_DEVICE_SINGLE_FP_CONFIG: Ulong,
    CL_DEVICE_DOUBLE_FP_CONFIG: Ulong,
    CL_DEVICE_GLOBAL_MEM_CACHE_TYPE: Uint,
    CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE: Uint,
    CL_DEVICE_GLOBAL_MEM_CACHE_SIZE: Ulong,
    CL_DEVICE_GLOBAL_MEM_SIZE: Ulong,
    CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE: Ulong,
    CL_DEVICE_MAX_CONSTANT_ARGS: Uint,
    CL_DEVICE_LOCAL_MEM_TYPE: Uint,
    CL_DEVICE_LOCAL_MEM_SIZE: Ulong,
    CL_DEVICE_ERROR_CORRECTION_SUPPORT: Bool,
    CL_DEVICE_HOST_UNIFIED_MEMORY: Bool,
    CL_DEVICE_PROFILING_TIMER_RESOLUTION: Size,
    CL_DEVICE_ENDIAN_LITTLE: Bool,
    CL_DEVICE_AVAILABLE: Bool,
    CL_DEVICE_COMPILER_AVAILABLE: Bool,
    CL_DEVICE_LINKER_AVAILABLE: Bool,
    CL_DEVICE_EXECUTION_CAPABILITIES: Ulong,
    CL_DEVICE_QUEUE_PROPERTIES: Ulong,
    CL_DEVICE_BUILT_IN_KERNELS: String,
    CL_DEVICE_PLATFORM: Handle,
    CL_DEVICE_NAME: String,
    CL_DEVICE_VENDOR: String,
    CL_DRIVER_VERSION: String,
    CL_DEVICE_PROFILE: String,
    CL_DEVICE_VERSION: String,
    CL_DEVICE_OPENCL_C_VERSION: String,
    CL_DEVICE_EXTENSIONS: String,
    CL_DEVICE_PRINTF_BUFFER_SIZE: Size,
    CL_DEVICE_PREFERRED_INTEROP_USER_SYNC: Bool,
    CL_DEVICE_PARENT_DEVICE: Handle,
    CL_DEVICE_PARTITION_MAX_SUB_DEVICES: Uint,
    CL_DEVICE_PARTITION_PROPERTIES: Partition,
    CL_DEVICE_PARTITION_AFFINITY_DOMAIN: Ulong,
    CL_DEVICE_PARTITION_TYPE: Partition,
    CL_DEVICE_REFERENCE_COUNT: Uint,
};

/// Why an answer does not have the shape of its type, if it does not.
fn shape_error(api: &Api, device: cl_device_id, param: cl_device_info, ty: Type) -> Option<String> {
    let bytes = match api.device_info(device, param) {
        Ok(bytes) => bytes,
        Err(e) => return Some(format!("error {e}")),
    };
    let expected = match ty {
        Type::Uint | Type::Bool => size_of::<cl_uint>(),
        Type::Ulong => size_of::<cl_ulong>(),
        Type::Size => size_of::<usize>(),
        Type::Handle => size_of::<cl_device_id>(),
        Type::WorkItemSizes => {
            let dimensions = api.device_uint(device, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS);
            dimensions as usize * size_of::<usize>()
        }
        Type::String => {
            let nul = bytes.iter().position(|&b| b == 0);
            let terminated = !bytes.is_empty() && nul == Some(bytes.len() - 1);
            return (!terminated).then(|| format!("{} bytes, first NUL at {nul:?}", bytes.len()));
        }
        Type::Partition => {
            let whole = bytes.len() % size_of::<cl_device_partition_property>() == 0;
            return (!whole).then(|| format!("{} bytes: not whole properties", bytes.len()));
        }
    };
    if bytes.len() != expected {
        return Some(format!("{} bytes, expected {expected}", bytes.len()));
    }
    if ty == Type::Bool {
        let value = scalar::<cl_bool>(&bytes);
        if value != CL_TRUE && value != CL_FALSE {
            return Some(format!("cl_bool {value} is neither CL_TRUE nor CL_FALSE"));
        }
    }
    None
}

fn device() -> cl_device_id {
    clift().device()
}

fn extensions() -> String {
    clift().device_string(device(), CL_DEVICE_EXTENSIONS)
}

fn uint(param: cl_device_info) -> cl_uint {
    clift().device_uint(device(), param)
}

fn ulong(param: cl_device_info) -> cl_ulong {
    clift().device_ulong(device(), param)
}

fn size(param: cl_device_info) -> usize {
    clift().device_size(device(), param)
}

fn boolean(param: cl_device_info) -> bool {
    clift().device_bool(device(), param)
}

/// The status of a size query of `param` on `device`.
fn query_status(device: cl_device_id, param: cl_device_info) -> cl_int {
    let mut size = 0;
    clift().query_device_info(device, param, 0, None, Some(&mut size))
}

/// A context over the device, to pass as a handle of the wrong type.
fn some_context() -> cl_context {
    let api = clift();
    api.create_context(None, &[device()]).expect("context")
}

// clGetDeviceIDs

#[test]
fn cpu_default_and_all_each_find_the_one_device() {
    let api = clift();
    for device_type in [
        CL_DEVICE_TYPE_CPU,
        CL_DEVICE_TYPE_DEFAULT,
        CL_DEVICE_TYPE_ALL,
    ] {
        let devices = api.devices(api.platform(), device_type);
        assert_eq!(devices, Ok(vec![device()]), "device type {device_type:#x}");
    }
}

#[test]
fn a_combination_of_types_finds_the_devices_of_any_of_them() {
    let api = clift();
    let devices = api.devices(api.platform(), CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU);
    assert_eq!(devices, Ok(vec![device()]));
}

#[test]
fn gpu_accelerator_and_custom_are_device_not_found() {
    // "CL_DEVICE_NOT_FOUND if no OpenCL devices that matched device_type were found."
    let api = clift();
    for device_type in [
        CL_DEVICE_TYPE_GPU,
        CL_DEVICE_TYPE_ACCELERATOR,
        CL_DEVICE_TYPE_CUSTOM,
    ] {
        let devices = api.devices(api.platform(), device_type);
        assert_eq!(
            devices,
            Err(CL_DEVICE_NOT_FOUND),
            "device type {device_type:#x}"
        );
    }
}

#[test]
fn undefined_type_bits_are_invalid_device_type() {
    // "CL_INVALID_DEVICE_TYPE if device_type is not a valid value."
    let api = clift();
    for device_type in [1 << 20, CL_DEVICE_TYPE_CPU | 1 << 20] {
        let devices = api.devices(api.platform(), device_type);
        assert_eq!(
            devices,
            Err(CL_INVALID_DEVICE_TYPE),
            "device type {device_type:#x}"
        );
    }
}

#[test]
fn device_type_zero_is_invalid_device_type() {
    // 0 names no type of table 4.2: "CL_INVALID_DEVICE_TYPE if device_type is not a valid
    // value."
    let api = clift();
    assert_eq!(api.devices(api.platform(), 0), Err(CL_INVALID_DEVICE_TYPE));
}

#[test]
fn zero_entries_with_a_device_array_is_invalid_value() {
    // "CL_INVALID_VALUE if num_entries is equal to zero and devices is not NULL"
    let api = clift();
    let mut devices = [null_mut(); 1];
    let status = api.get_device_ids(
        api.platform(),
        CL_DEVICE_TYPE_ALL,
        0,
        Some(&mut devices),
        None,
    );
    assert_eq!(status, CL_INVALID_VALUE);
}

#[test]
fn null_devices_and_null_count_is_invalid_value() {
    // "... or if both num_devices and devices are NULL."
    let api = clift();
    let status = api.get_device_ids(api.platform(), CL_DEVICE_TYPE_ALL, 1, None, None);
    assert_eq!(status, CL_INVALID_VALUE);
}

#[test]
fn devices_can_be_read_without_the_count() {
    let api = clift();
    let mut devices = [null_mut(); 1];
    let status = api.get_device_ids(
        api.platform(),
        CL_DEVICE_TYPE_ALL,
        1,
        Some(&mut devices),
        None,
    );
    assert_eq!(status, CL_SUCCESS);
    assert_eq!(devices[0], device());
}

#[test]
fn no_more_than_num_entries_devices_are_written() {
    let api = clift();
    let sentinel = 0x5a5a_usize as cl_device_id;
    let mut devices = [sentinel; 2];
    let mut count = 0;
    let status = api.get_device_ids(
        api.platform(),
        CL_DEVICE_TYPE_ALL,
        1,
        Some(&mut devices),
        Some(&mut count),
    );
    assert_eq!(status, CL_SUCCESS);
    assert_eq!(count, 1);
    assert_eq!(devices, [device(), sentinel]);
}

#[test]
fn null_platform_selects_the_clift_platform() {
    // "If platform is NULL, the behavior is implementation-defined": with clift as the only
    // platform, the loader's default platform is clift.
    let devices = clift().devices(null_mut(), CL_DEVICE_TYPE_ALL);
    assert_eq!(devices, Ok(vec![device()]));
}

#[test]
fn device_handle_as_platform_is_invalid_platform() {
    // "CL_INVALID_PLATFORM if platform is not a valid platform."
    let devices = clift().devices(device(), CL_DEVICE_TYPE_ALL);
    assert_eq!(devices, Err(CL_INVALID_PLATFORM));
}

#[test]
fn foreign_object_as_platform_is_invalid_platform() {
    let api = clift();
    // SAFETY: the platform handle is live (platforms are never released).
    let mut foreign = unsafe { ForeignObject::with_dispatch_of(api.platform()) };
    let devices = api.devices(foreign.handle(), CL_DEVICE_TYPE_ALL);
    assert_eq!(devices, Err(CL_INVALID_PLATFORM));
}

// clGetDeviceInfo: shapes

#[test]
fn every_device_query_answers_with_the_size_of_its_type() {
    let api = clift();
    let failures: Vec<String> = DEVICE_QUERIES
        .iter()
        .filter_map(|&(name, param, ty)| {
            shape_error(api, device(), param, ty).map(|why| format!("{name}: {why}"))
        })
        .collect();
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn max_work_item_sizes_has_one_size_per_dimension() {
    let sizes = clift().device_array::<usize>(device(), CL_DEVICE_MAX_WORK_ITEM_SIZES);
    assert_eq!(
        sizes.len(),
        uint(CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS) as usize
    );
}

#[test]
fn unknown_param_is_invalid_value() {
    // "CL_INVALID_VALUE if param_name is not one of the supported values"
    for param in [0x0fff, 0x7fff_ffff] {
        assert_eq!(
            query_status(device(), param),
            CL_INVALID_VALUE,
            "{param:#x}"
        );
    }
}

#[test]
fn buffer_smaller_than_a_scalar_is_invalid_value() {
    // "... or if size in bytes specified by param_value_size is < size of return type as
    // specified in table 4.3 and param_value is not a NULL value".
    let mut value = [0u8; 3];
    let status = clift().query_device_info(
        device(),
        CL_DEVICE_MAX_COMPUTE_UNITS,
        3,
        Some(&mut value),
        None,
    );
    assert_eq!(status, CL_INVALID_VALUE);
}

#[test]
fn buffer_smaller_than_a_string_is_invalid_value() {
    let api = clift();
    let length = api.device_info(device(), CL_DEVICE_NAME).unwrap().len();
    let mut value = vec![0u8; length];
    let status =
        api.query_device_info(device(), CL_DEVICE_NAME, length - 1, Some(&mut value), None);
    assert_eq!(status, CL_INVALID_VALUE);
}

#[test]
fn null_device_is_invalid_device() {
    // "CL_INVALID_DEVICE if device is not valid."
    assert_eq!(query_status(null_mut(), CL_DEVICE_NAME), CL_INVALID_DEVICE);
}

#[test]
fn platform_handle_as_device_is_invalid_device() {
    let platform = clift().platform();
    assert_eq!(query_status(platform, CL_DEVICE_NAME), CL_INVALID_DEVICE);
}

#[test]
fn context_handle_as_device_is_invalid_device() {
    let context = some_context();
    assert_eq!(query_status(context, CL_DEVICE_NAME), CL_INVALID_DEVICE);
    assert_eq!(clift().release_context(context), CL_SUCCESS);
}

#[test]
fn foreign_object_as_device_is_invalid_device() {
    // SAFETY: the device handle is live (root devices are never released).
    let mut foreign = unsafe { ForeignObject::with_dispatch_of(device()) };
    assert_eq!(
        query_status(foreign.handle(), CL_DEVICE_NAME),
        CL_INVALID_DEVICE
    );
}

// clGetDeviceInfo: values

#[test]
fn device_type_is_cpu() {
    // A device may report "a combination of the above types"; clift's is a CPU and may also
    // be the default device, nothing else.
    let device_type = ulong(CL_DEVICE_TYPE);
    assert_ne!(device_type & CL_DEVICE_TYPE_CPU, 0, "{device_type:#x}");
    assert_eq!(
        device_type & !(CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_DEFAULT),
        0,
        "{device_type:#x}"
    );
}

#[test]
fn device_platform_is_the_platform() {
    let platform = clift().device_scalar::<cl_platform_id>(device(), CL_DEVICE_PLATFORM);
    assert_eq!(platform, clift().platform());
}

#[test]
fn root_device_has_no_parent() {
    // "If device is a root-level device, a NULL value is returned."
    let parent = clift().device_scalar::<cl_device_id>(device(), CL_DEVICE_PARENT_DEVICE);
    assert!(parent.is_null());
}

#[test]
fn root_device_reference_count_is_one() {
    // "If the device is a root-level device, a reference count of one is returned."
    assert_eq!(uint(CL_DEVICE_REFERENCE_COUNT), 1);
}

#[test]
fn root_device_partition_type_is_empty_or_zero() {
    // "Otherwise the implementation may either return a param_value_size_ret of 0 ... or can
    // return a property value of 0".
    let types =
        clift().device_array::<cl_device_partition_property>(device(), CL_DEVICE_PARTITION_TYPE);
    assert!(types.is_empty() || types == [0], "{types:?}");
}

#[test]
fn device_profile_is_full_profile() {
    let profile = clift().device_string(device(), CL_DEVICE_PROFILE);
    assert_eq!(profile, "FULL_PROFILE");
}

#[test]
fn device_version_is_opencl_1_2() {
    // "OpenCL<space><major_version.minor_version><space><vendor-specific information>"
    let version = clift().device_string(device(), CL_DEVICE_VERSION);
    assert!(version.starts_with("OpenCL 1.2 "), "{version:?}");
}

#[test]
fn opencl_c_version_is_1_2() {
    // "The major_version.minor_version value returned must be 1.2 if CL_DEVICE_VERSION is
    // OpenCL 1.2."
    let version = clift().device_string(device(), CL_DEVICE_OPENCL_C_VERSION);
    let rest = version.strip_prefix("OpenCL C 1.2");
    assert!(
        rest.is_some_and(|r| r.is_empty() || r.starts_with(' ')),
        "{version:?}"
    );
}

#[test]
fn driver_version_is_major_dot_minor() {
    // "OpenCL software driver version string in the form major_number.minor_number"
    let version = clift().device_string(device(), CL_DRIVER_VERSION);
    let mut parts = version.splitn(2, '.');
    let major = parts.next().unwrap_or("");
    let minor: String = parts
        .next()
        .unwrap_or("")
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    assert!(
        !major.is_empty() && major.chars().all(|c| c.is_ascii_digit()) && !minor.is_empty(),
        "{version:?}"
    );
}

#[test]
fn compiler_is_available_in_the_full_profile() {
    // CL_DEVICE_COMPILER_AVAILABLE: "This can be CL_FALSE for the embedded platform profile
    // only."
    assert!(boolean(CL_DEVICE_COMPILER_AVAILABLE));
}

#[test]
fn linker_is_available_in_the_full_profile() {
    // CL_DEVICE_LINKER_AVAILABLE: "This can be CL_FALSE for the embedded platform profile
    // only. This must be CL_TRUE if CL_DEVICE_COMPILER_AVAILABLE is CL_TRUE."
    assert!(boolean(CL_DEVICE_LINKER_AVAILABLE));
}

#[test]
fn required_extensions_are_reported() {
    // "The following approved Khronos extension names must be returned by all device that
    // support OpenCL C 1.2: cl_khr_global_int32_base_atomics, ..._extended_atomics,
    // cl_khr_local_int32_base_atomics, ..._extended_atomics, cl_khr_byte_addressable_store,
    // cl_khr_fp64 (for backward compatibility if double precision is supported)".
    let extensions = extensions();
    let missing: Vec<&str> = [
        "cl_khr_global_int32_base_atomics",
        "cl_khr_global_int32_extended_atomics",
        "cl_khr_local_int32_base_atomics",
        "cl_khr_local_int32_extended_atomics",
        "cl_khr_byte_addressable_store",
    ]
    .into_iter()
    .filter(|e| !has_extension(&extensions, e))
    .collect();
    assert!(missing.is_empty(), "missing {missing:?} in {extensions:?}");
}

#[test]
fn platform_extensions_are_device_extensions() {
    // CL_PLATFORM_EXTENSIONS: "Extensions defined here must be supported by all devices
    // associated with this platform."
    let api = clift();
    let platform = api.platform_string(api.platform(), CL_PLATFORM_EXTENSIONS);
    let device = extensions();
    let missing: Vec<&str> = platform
        .split_ascii_whitespace()
        .filter(|e| !has_extension(&device, e))
        .collect();
    assert!(missing.is_empty(), "device lacks {missing:?}");
}

#[test]
fn double_vector_widths_are_zero_exactly_without_fp64() {
    // "If double precision is not supported, CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE must
    // return 0." (and likewise CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE)
    let fp64 = has_extension(&extensions(), "cl_khr_fp64");
    for param in [
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE,
        CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE,
    ] {
        assert_eq!(uint(param) != 0, fp64, "{param:#x} with cl_khr_fp64 {fp64}");
    }
}

#[test]
fn double_fp_config_is_zero_exactly_without_fp64() {
    // "If double precision is not supported, CL_DEVICE_DOUBLE_FP_CONFIG must return 0." With
    // it, the minimum is CL_FP_FMA | CL_FP_ROUND_TO_NEAREST | CL_FP_ROUND_TO_ZERO |
    // CL_FP_ROUND_TO_INF | CL_FP_INF_NAN | CL_FP_DENORM.
    let config = ulong(CL_DEVICE_DOUBLE_FP_CONFIG);
    if has_extension(&extensions(), "cl_khr_fp64") {
        let minimum = CL_FP_FMA
            | CL_FP_ROUND_TO_NEAREST
            | CL_FP_ROUND_TO_ZERO
            | CL_FP_ROUND_TO_INF
            | CL_FP_INF_NAN
            | CL_FP_DENORM;
        assert_eq!(config & minimum, minimum, "{config:#x}");
    } else {
        assert_eq!(config, 0);
    }
}

#[test]
fn half_vector_widths_are_zero_exactly_without_fp16() {
    // "If the cl_khr_fp16 extension is not supported, CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF
    // must return 0." (and likewise CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF)
    let fp16 = has_extension(&extensions(), "cl_khr_fp16");
    for param in [
        CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF,
        CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF,
    ] {
        assert_eq!(uint(param) != 0, fp16, "{param:#x} with cl_khr_fp16 {fp16}");
    }
}

#[test]
fn half_fp_config_is_unknown_without_fp16() {
    // CL_DEVICE_HALF_FP_CONFIG is defined by cl_khr_fp16; without it the query is not one of
    // the supported values.
    let status = query_status(device(), CL_DEVICE_HALF_FP_CONFIG);
    if has_extension(&extensions(), "cl_khr_fp16") {
        assert_eq!(status, CL_SUCCESS);
    } else {
        assert_eq!(status, CL_INVALID_VALUE);
    }
}

// clGetDeviceInfo: the minimums of the full profile (table 4.3)

#[test]
fn scalar_minimums_of_the_full_profile_are_met() {
    let at_least: [(&str, u64, u64); 10] = [
        (
            "MAX_COMPUTE_UNITS",
            uint(CL_DEVICE_MAX_COMPUTE_UNITS).into(),
            1,
        ),
        (
            "MAX_WORK_ITEM_DIMENSIONS",
            uint(CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS).into(),
            3,
        ),
        (
            "MAX_WORK_GROUP_SIZE",
            size(CL_DEVICE_MAX_WORK_GROUP_SIZE) as u64,
            1,
        ),
        (
            "MAX_PARAMETER_SIZE",
            size(CL_DEVICE_MAX_PARAMETER_SIZE) as u64,
            1024,
        ),
        // "the size (in bits) of the largest OpenCL built-in data type supported by the
        // device (long16 in FULL profile)"
        (
            "MEM_BASE_ADDR_ALIGN",
            uint(CL_DEVICE_MEM_BASE_ADDR_ALIGN).into(),
            16 * 64,
        ),
        (
            "MAX_CONSTANT_BUFFER_SIZE",
            ulong(CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE),
            64 << 10,
        ),
        (
            "MAX_CONSTANT_ARGS",
            uint(CL_DEVICE_MAX_CONSTANT_ARGS).into(),
            8,
        ),
        ("LOCAL_MEM_SIZE", ulong(CL_DEVICE_LOCAL_MEM_SIZE), 32 << 10),
        (
            "PRINTF_BUFFER_SIZE",
            size(CL_DEVICE_PRINTF_BUFFER_SIZE) as u64,
            1 << 20,
        ),
        ("GLOBAL_MEM_SIZE", ulong(CL_DEVICE_GLOBAL_MEM_SIZE), 1),
    ];
    let below: Vec<_> = at_least
        .iter()
        .filter(|(_, value, minimum)| value < minimum)
        .collect();
    assert!(below.is_empty(), "below the minimum: {below:?}");
}

#[test]
fn max_mem_alloc_size_is_at_least_a_quarter_of_global_memory_and_128_mib() {
    // "The minimum value is max(1/4th of CL_DEVICE_GLOBAL_MEM_SIZE, 128*1024*1024)"
    let minimum = (ulong(CL_DEVICE_GLOBAL_MEM_SIZE) / 4).max(128 << 20);
    let value = ulong(CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    assert!(value >= minimum, "{value} < {minimum}");
}

#[test]
fn max_mem_alloc_size_does_not_exceed_global_memory() {
    let value = ulong(CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    assert!(value <= ulong(CL_DEVICE_GLOBAL_MEM_SIZE));
}

#[test]
fn every_max_work_item_size_is_at_least_one() {
    // "The minimum value is (1, 1, 1)".
    let sizes = clift().device_array::<usize>(device(), CL_DEVICE_MAX_WORK_ITEM_SIZES);
    assert!(sizes.iter().all(|&s| s >= 1), "{sizes:?}");
}

#[test]
fn address_bits_are_32_or_64() {
    // "Currently supported values are 32 or 64 bits."
    let bits = uint(CL_DEVICE_ADDRESS_BITS);
    assert!(bits == 32 || bits == 64, "{bits}");
}

#[test]
fn single_fp_config_has_round_to_nearest_and_inf_nan() {
    // "The mandated minimum floating-point capability ... is: CL_FP_ROUND_TO_NEAREST |
    // CL_FP_INF_NAN."
    let config = ulong(CL_DEVICE_SINGLE_FP_CONFIG);
    let minimum = CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN;
    assert_eq!(config & minimum, minimum, "{config:#x}");
}

#[test]
fn execution_capabilities_include_kernels() {
    // "The mandated minimum capability is: CL_EXEC_KERNEL."
    assert_ne!(ulong(CL_DEVICE_EXECUTION_CAPABILITIES) & CL_EXEC_KERNEL, 0);
}

#[test]
fn queue_properties_include_profiling() {
    // "The mandated minimum capability is: CL_QUEUE_PROFILING_ENABLE."
    assert_ne!(
        ulong(CL_DEVICE_QUEUE_PROPERTIES) & CL_QUEUE_PROFILING_ENABLE,
        0
    );
}

#[test]
fn cache_type_is_a_defined_value() {
    // "CL_NONE, CL_READ_ONLY_CACHE and CL_READ_WRITE_CACHE."
    let cache = uint(CL_DEVICE_GLOBAL_MEM_CACHE_TYPE);
    assert!(
        [CL_NONE, CL_READ_ONLY_CACHE, CL_READ_WRITE_CACHE].contains(&cache),
        "{cache:#x}"
    );
}

#[test]
fn local_mem_type_is_local_or_global() {
    // "This can be set to CL_LOCAL ... or CL_GLOBAL. For custom devices, CL_NONE can also be
    // returned."
    let local = uint(CL_DEVICE_LOCAL_MEM_TYPE);
    assert!([CL_LOCAL, CL_GLOBAL].contains(&local), "{local:#x}");
}

#[test]
fn image_minimums_are_met_when_images_are_supported() {
    if !boolean(CL_DEVICE_IMAGE_SUPPORT) {
        println!("skipped: CL_DEVICE_IMAGE_SUPPORT is CL_FALSE");
        return;
    }
    let at_least: [(&str, u64, u64); 9] = [
        (
            "MAX_READ_IMAGE_ARGS",
            uint(CL_DEVICE_MAX_READ_IMAGE_ARGS).into(),
            128,
        ),
        (
            "MAX_WRITE_IMAGE_ARGS",
            uint(CL_DEVICE_MAX_WRITE_IMAGE_ARGS).into(),
            8,
        ),
        (
            "IMAGE2D_MAX_WIDTH",
            size(CL_DEVICE_IMAGE2D_MAX_WIDTH) as u64,
            8192,
        ),
        (
            "IMAGE2D_MAX_HEIGHT",
            size(CL_DEVICE_IMAGE2D_MAX_HEIGHT) as u64,
            8192,
        ),
        (
            "IMAGE3D_MAX_WIDTH",
            size(CL_DEVICE_IMAGE3D_MAX_WIDTH) as u64,
            2048,
        ),
        (
            "IMAGE3D_MAX_HEIGHT",
            size(CL_DEVICE_IMAGE3D_MAX_HEIGHT) as u64,
            2048,
        ),
        (
            "IMAGE3D_MAX_DEPTH",
            size(CL_DEVICE_IMAGE3D_MAX_DEPTH) as u64,
            2048,
        ),
        (
            "IMAGE_MAX_BUFFER_SIZE",
            size(CL_DEVICE_IMAGE_MAX_BUFFER_SIZE) as u64,
            65536,
        ),
        (
            "IMAGE_MAX_ARRAY_SIZE",
            size(CL_DEVICE_IMAGE_MAX_ARRAY_SIZE) as u64,
            2048,
        ),
    ];
    let below: Vec<_> = at_least
        .iter()
        .filter(|(_, value, minimum)| value < minimum)
        .collect();
    assert!(below.is_empty(), "below the minimum: {below:?}");
    assert!(uint(CL_DEVICE_MAX_SAMPLERS) >= 16);
}

#[test]
fn partition_max_sub_devices_does_not_exceed_compute_units() {
    // "The value returned cannot exceed CL_DEVICE_MAX_COMPUTE_UNITS."
    let max = uint(CL_DEVICE_PARTITION_MAX_SUB_DEVICES);
    assert!(max <= uint(CL_DEVICE_MAX_COMPUTE_UNITS));
}

#[test]
fn partition_properties_are_zero_or_known_schemes() {
    // "If the device cannot be partitioned ... a value of 0 will be returned"; otherwise the
    // values are drawn from EQUALLY, BY_COUNTS and BY_AFFINITY_DOMAIN.
    let schemes = clift()
        .device_array::<cl_device_partition_property>(device(), CL_DEVICE_PARTITION_PROPERTIES);
    let known = [
        CL_DEVICE_PARTITION_EQUALLY,
        CL_DEVICE_PARTITION_BY_COUNTS,
        CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN,
    ];
    assert!(
        schemes == [0] || (!schemes.is_empty() && schemes.iter().all(|s| known.contains(s))),
        "{schemes:?}"
    );
}

#[test]
fn affinity_domains_are_defined_bits() {
    let domains = ulong(CL_DEVICE_PARTITION_AFFINITY_DOMAIN);
    let defined = CL_DEVICE_AFFINITY_DOMAIN_NUMA
        | CL_DEVICE_AFFINITY_DOMAIN_L4_CACHE
        | CL_DEVICE_AFFINITY_DOMAIN_L3_CACHE
        | CL_DEVICE_AFFINITY_DOMAIN_L2_CACHE
        | CL_DEVICE_AFFINITY_DOMAIN_L1_CACHE
        | CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE;
    assert_eq!(domains & !defined, 0, "{domains:#x}");
}

// clRetainDevice / clReleaseDevice

#[test]
fn retain_and_release_of_a_root_device_leave_its_count_at_one() {
    // "CL_SUCCESS if the function is executed successfully or the device is a root-level
    // device."; "If device is a root level device i.e. a cl_device_id returned by
    // clGetDeviceIDs, the device reference count remains unchanged."
    let api = clift();
    assert_eq!(api.retain_device(device()), CL_SUCCESS);
    assert_eq!(uint(CL_DEVICE_REFERENCE_COUNT), 1);
    assert_eq!(api.release_device(device()), CL_SUCCESS);
    assert_eq!(api.release_device(device()), CL_SUCCESS);
    assert_eq!(uint(CL_DEVICE_REFERENCE_COUNT), 1);
}

#[test]
fn retain_and_release_of_null_are_invalid_device() {
    // "CL_INVALID_DEVICE if device is not a valid sub-device created by a call to
    // clCreateSubDevices."
    let api = clift();
    assert_eq!(api.retain_device(null_mut()), CL_INVALID_DEVICE);
    assert_eq!(api.release_device(null_mut()), CL_INVALID_DEVICE);
}

#[test]
fn retain_and_release_of_a_context_handle_are_invalid_device() {
    let api = clift();
    let context = some_context();
    assert_eq!(api.retain_device(context), CL_INVALID_DEVICE);
    assert_eq!(api.release_device(context), CL_INVALID_DEVICE);
    assert_eq!(api.context_uint(context, CL_CONTEXT_REFERENCE_COUNT), 1);
    assert_eq!(api.release_context(context), CL_SUCCESS);
}

/// Prints `CL_DEVICE_LOCAL_MEM_SIZE` for [`local_mem_size_follows_clift_local_mem_size`],
/// which runs it in a child process with the variable set (the driver reads it once).
#[test]
#[ignore = "run by local_mem_size_follows_clift_local_mem_size in a child process"]
fn print_local_mem_size() {
    println!("local_mem_size={}", ulong(CL_DEVICE_LOCAL_MEM_SIZE));
}

#[test]
fn local_mem_size_follows_clift_local_mem_size() {
    // The value in bytes or with a K/M suffix, kept within the full profile's minimum
    // (32 KiB) and the driver's maximum (4 MiB); unparsable: the cache-derived default.
    let default = ulong(CL_DEVICE_LOCAL_MEM_SIZE);
    for (value, expected) in [
        ("32K", 32 << 10),
        ("65536", 64 << 10),
        ("1M", 1 << 20),
        ("100", 32 << 10),
        ("64M", 4 << 20),
        ("lots", default),
    ] {
        let output = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "print_local_mem_size",
                "--ignored",
                "--nocapture",
            ])
            .env("CLIFT_LOCAL_MEM_SIZE", value)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            stdout.contains(&format!("local_mem_size={expected}\n")),
            "CLIFT_LOCAL_MEM_SIZE={value}: {stdout}"
        );
    }
}
