//! Platform queries (OpenCL 1.2 §4.1) and extension-function lookup (§9.2, cl_khr_icd), as
//! an application sees them through the ICD loader.

use std::ptr::null_mut;

use clift_conformance::*;

/// Every `clGetPlatformInfo` query of OpenCL 1.2 (table 4.1) and cl_khr_icd: all strings.
const PLATFORM_STRINGS: [(cl_platform_info, &str); 6] = [
    (CL_PLATFORM_PROFILE, "CL_PLATFORM_PROFILE"),
    (CL_PLATFORM_VERSION, "CL_PLATFORM_VERSION"),
    (CL_PLATFORM_NAME, "CL_PLATFORM_NAME"),
    (CL_PLATFORM_VENDOR, "CL_PLATFORM_VENDOR"),
    (CL_PLATFORM_EXTENSIONS, "CL_PLATFORM_EXTENSIONS"),
    (CL_PLATFORM_ICD_SUFFIX_KHR, "CL_PLATFORM_ICD_SUFFIX_KHR"),
];

fn platform_string(param: cl_platform_info) -> String {
    let api = clift();
    api.platform_string(api.platform(), param)
}

#[test]
fn exactly_one_platform_is_visible() {
    let mut count = 0;
    assert_eq!(
        clift().get_platform_ids(0, None, Some(&mut count)),
        CL_SUCCESS
    );
    assert_eq!(count, 1);
}

#[test]
fn platform_ids_can_be_read_without_the_count() {
    let mut platforms = [null_mut(); 1];
    let status = clift().get_platform_ids(1, Some(&mut platforms), None);
    assert_eq!(status, CL_SUCCESS);
    assert!(!platforms[0].is_null());
}

#[test]
fn the_platform_handle_is_the_same_on_every_call() {
    let api = clift();
    assert_eq!(api.platform(), api.platform());
}

#[test]
fn no_more_than_num_entries_platforms_are_written() {
    // "num_entries is the number of cl_platform_id entries that can be added to platforms."
    let sentinel = 0x5a5a_usize as cl_platform_id;
    let mut platforms = [sentinel; 2];
    let mut count = 0;
    let status = clift().get_platform_ids(1, Some(&mut platforms), Some(&mut count));
    assert_eq!(status, CL_SUCCESS);
    assert_eq!(count, 1);
    assert_ne!(platforms[0], sentinel);
    assert_eq!(platforms[1], sentinel);
}

#[test]
fn zero_entries_with_a_platform_array_is_invalid_value() {
    // "CL_INVALID_VALUE if num_entries is equal to zero and platforms is not NULL"
    let mut platforms = [null_mut(); 1];
    let status = clift().get_platform_ids(0, Some(&mut platforms), None);
    assert_eq!(status, CL_INVALID_VALUE);
}

#[test]
fn null_platforms_and_null_count_is_invalid_value() {
    // "... or if both num_platforms and platforms are NULL."
    assert_eq!(clift().get_platform_ids(1, None, None), CL_INVALID_VALUE);
}

#[test]
fn platform_name_is_clift() {
    assert_eq!(platform_string(CL_PLATFORM_NAME), "clift");
}

#[test]
fn platform_profile_is_full_profile() {
    assert_eq!(platform_string(CL_PLATFORM_PROFILE), "FULL_PROFILE");
}

#[test]
fn platform_version_is_opencl_1_2() {
    // "OpenCL<space><major_version.minor_version><space><platform-specific information>"
    let version = platform_string(CL_PLATFORM_VERSION);
    assert!(version.starts_with("OpenCL 1.2 "), "{version:?}");
}

#[test]
fn platform_extensions_include_cl_khr_icd() {
    let extensions = platform_string(CL_PLATFORM_EXTENSIONS);
    assert!(has_extension(&extensions, "cl_khr_icd"), "{extensions:?}");
}

#[test]
fn icd_suffix_is_a_non_empty_word() {
    // cl_khr_icd: "the function name suffix used to identify extension functions to be
    // directed to this platform by the ICD Loader".
    let suffix = platform_string(CL_PLATFORM_ICD_SUFFIX_KHR);
    assert!(!suffix.is_empty());
    assert!(!suffix.contains(char::is_whitespace), "{suffix:?}");
}

#[test]
fn every_platform_string_reports_strlen_plus_one() {
    let api = clift();
    for (param, name) in PLATFORM_STRINGS {
        let bytes = api
            .platform_info(api.platform(), param)
            .unwrap_or_else(|e| panic!("{name}: error {e}"));
        // `string` checks the single NUL is the last byte.
        let text = string(&bytes);
        assert_eq!(bytes.len(), text.len() + 1, "{name}");
    }
}

#[test]
fn size_query_alone_reports_the_size() {
    // "If param_value is NULL, it is ignored."
    let api = clift();
    let mut size = 0;
    let status =
        api.query_platform_info(api.platform(), CL_PLATFORM_NAME, 0, None, Some(&mut size));
    assert_eq!(status, CL_SUCCESS);
    assert_eq!(size, "clift".len() + 1);
}

#[test]
fn value_can_be_read_without_the_size() {
    // "If param_value_size_ret is NULL, it is ignored."
    let api = clift();
    let mut value = [0xffu8; 6];
    let status =
        api.query_platform_info(api.platform(), CL_PLATFORM_NAME, 6, Some(&mut value), None);
    assert_eq!(status, CL_SUCCESS);
    assert_eq!(&value, b"clift\0");
}

#[test]
fn larger_buffer_is_accepted_and_the_actual_size_returned() {
    // "param_value_size_ret returns the actual size in bytes of data being queried"
    let api = clift();
    let mut value = [0xffu8; 64];
    let mut size = 0;
    let status = api.query_platform_info(
        api.platform(),
        CL_PLATFORM_NAME,
        64,
        Some(&mut value),
        Some(&mut size),
    );
    assert_eq!(status, CL_SUCCESS);
    assert_eq!(size, 6);
    assert_eq!(&value[..6], b"clift\0");
}

#[test]
fn buffer_smaller_than_the_value_is_invalid_value() {
    // "CL_INVALID_VALUE if ... size in bytes specified by param_value_size is < size of
    // return type as specified in table 4.1 and param_value is not a NULL value."
    let api = clift();
    let mut value = [0u8; 5];
    let status =
        api.query_platform_info(api.platform(), CL_PLATFORM_NAME, 5, Some(&mut value), None);
    assert_eq!(status, CL_INVALID_VALUE);
}

#[test]
fn unknown_param_is_invalid_value() {
    // "CL_INVALID_VALUE if param_name is not one of the supported values". The queries
    // OpenCL 2.1 and 3.0 added are unknown to 1.2.
    let api = clift();
    for param in [
        CL_PLATFORM_HOST_TIMER_RESOLUTION,
        CL_PLATFORM_NUMERIC_VERSION,
        CL_PLATFORM_EXTENSIONS_WITH_VERSION,
        0x0a00,
        0x7fff_ffff,
    ] {
        let mut size = 0;
        let status = api.query_platform_info(api.platform(), param, 0, None, Some(&mut size));
        assert_eq!(status, CL_INVALID_VALUE, "param {param:#x}");
    }
}

#[test]
fn null_platform_selects_the_clift_platform() {
    // "If platform is NULL, the behavior is implementation-defined": with clift as the only
    // platform, the loader's default platform is clift.
    let api = clift();
    assert_eq!(api.platform_string(null_mut(), CL_PLATFORM_NAME), "clift");
}

#[test]
fn device_handle_as_platform_is_invalid_platform() {
    // "CL_INVALID_PLATFORM if platform is not a valid platform."
    let api = clift();
    let mut size = 0;
    let status = api.query_platform_info(api.device(), CL_PLATFORM_NAME, 0, None, Some(&mut size));
    assert_eq!(status, CL_INVALID_PLATFORM);
}

#[test]
fn foreign_object_as_platform_is_invalid_platform() {
    let api = clift();
    // SAFETY: the platform handle is live (platforms are never released).
    let mut foreign = unsafe { ForeignObject::with_dispatch_of(api.platform()) };
    let mut size = 0;
    let status =
        api.query_platform_info(foreign.handle(), CL_PLATFORM_NAME, 0, None, Some(&mut size));
    assert_eq!(status, CL_INVALID_PLATFORM);
}

#[test]
fn icd_entry_point_is_found_by_name_for_the_platform() {
    let api = clift();
    let address = api.extension_address_for_platform(api.platform(), c"clIcdGetPlatformIDsKHR");
    assert!(!address.is_null());
}

#[test]
fn an_invalid_platform_has_no_extension_functions() {
    // clGetExtensionFunctionAddressForPlatform: an object that is not a platform (another
    // object of clift's, or a foreign one with clift's dispatch table) is not a valid
    // platform, so even a known name gives NULL.
    let api = clift();
    let name = c"clIcdGetPlatformIDsKHR";
    assert!(
        api.extension_address_for_platform(api.device(), name)
            .is_null()
    );
    // SAFETY: the platform handle is live (platforms are never released).
    let mut foreign = unsafe { ForeignObject::with_dispatch_of(api.platform()) };
    assert!(
        api.extension_address_for_platform(foreign.handle(), name)
            .is_null()
    );
    assert!(
        !api.extension_address_for_platform(api.platform(), name)
            .is_null()
    );
}

#[test]
fn unknown_function_name_for_the_platform_is_null() {
    // "NULL is returned if the specified function does not exist for the implementation".
    let api = clift();
    let address = api.extension_address_for_platform(api.platform(), c"clNoSuchFunctionKHR");
    assert!(address.is_null());
}

#[test]
fn unknown_function_name_without_a_platform_is_null() {
    let address = clift().extension_address(c"clNoSuchFunctionKHR");
    assert!(address.is_null());
}
