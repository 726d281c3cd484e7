//! `cl_khr_icd` and extension-function lookup.

use std::ffi::{CStr, c_char, c_void};

use khronos_headers::*;

use crate::boundary::{call, call_ret};
use crate::dispatch;

/// The loader's way in: like `clGetPlatformIDs`, but "CL_PLATFORM_NOT_FOUND_KHR if zero
/// platforms are available" (clift always has its one platform).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn clIcdGetPlatformIDsKHR(
    num_entries: cl_uint,
    platforms: *mut cl_platform_id,
    num_platforms: *mut cl_uint,
) -> cl_int {
    call("clIcdGetPlatformIDsKHR", || {
        super::platform::platform_ids(num_entries, platforms, num_platforms)
    })
}

/// Looks `name` up in the entry-point table; NULL for a NULL or unknown name.
fn function_address(name: *const c_char) -> *mut c_void {
    if name.is_null() {
        return std::ptr::null_mut();
    }
    // SAFETY: the spec passes a NUL-terminated function name.
    let name = unsafe { CStr::from_ptr(name) };
    name.to_str().map_or(std::ptr::null_mut(), dispatch::lookup)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clGetExtensionFunctionAddress(func_name: *const c_char) -> *mut c_void {
    call_ret(
        "clGetExtensionFunctionAddress",
        std::ptr::null_mut(),
        std::ptr::null_mut(),
        || Ok(function_address(func_name)),
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clGetExtensionFunctionAddressForPlatform(
    platform: cl_platform_id,
    func_name: *const c_char,
) -> *mut c_void {
    call_ret(
        "clGetExtensionFunctionAddressForPlatform",
        std::ptr::null_mut(),
        std::ptr::null_mut(),
        || {
            // An invalid platform has no functions: NULL, as for an unknown name.
            if platform.is_null() || super::platform::named_platform(platform).is_err() {
                return Ok(std::ptr::null_mut());
            }
            Ok(function_address(func_name))
        },
    )
}
