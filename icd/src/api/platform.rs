//! Platform entry points.

use std::ffi::c_void;

use clift_runtime::platform::{self, Platform};
use clift_runtime::{ClResult, fail};
use khronos_headers::*;

use crate::boundary::call;
use crate::handle;
use crate::info::{InfoValue, answer};

/// The platform, with the dispatch table installed before it is first created.
pub(crate) fn the_platform() -> &'static Platform {
    clift_runtime::object::install_dispatch(crate::dispatch::table());
    Platform::get()
}

/// The platform a call names: NULL means ours ("the behavior is implementation-defined").
pub(crate) fn named_platform(id: cl_platform_id) -> ClResult<&'static Platform> {
    let ours = the_platform();
    if id.is_null() {
        return Ok(ours);
    }
    handle::object::<Platform>(id)?;
    Ok(ours)
}

/// The body shared by `clGetPlatformIDs` and `clIcdGetPlatformIDsKHR`.
pub(crate) fn platform_ids(
    num_entries: cl_uint,
    platforms: *mut cl_platform_id,
    num_platforms: *mut cl_uint,
) -> ClResult<()> {
    // "CL_INVALID_VALUE if num_entries is equal to zero and platforms is not NULL or if both
    // num_platforms and platforms are NULL."
    if (num_entries == 0 && !platforms.is_null())
        || (platforms.is_null() && num_platforms.is_null())
    {
        return fail(CL_INVALID_VALUE);
    }
    crate::exit_report::register();
    let ours: cl_platform_id = handle::handle_of(the_platform());
    // SAFETY: the spec requires `platforms` to hold `num_entries` entries when not NULL.
    unsafe { super::write_list(&[ours], platforms, num_entries, num_platforms) };
    Ok(())
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clGetPlatformIDs(
    num_entries: cl_uint,
    platforms: *mut cl_platform_id,
    num_platforms: *mut cl_uint,
) -> cl_int {
    call("clGetPlatformIDs", || {
        platform_ids(num_entries, platforms, num_platforms)
    })
}

fn platform_info(param: cl_platform_info) -> ClResult<InfoValue> {
    Ok(match param {
        CL_PLATFORM_PROFILE => InfoValue::string(platform::PROFILE),
        CL_PLATFORM_VERSION => InfoValue::string(&platform::version()),
        CL_PLATFORM_NAME => InfoValue::string(platform::NAME),
        CL_PLATFORM_VENDOR => InfoValue::string(platform::VENDOR),
        CL_PLATFORM_EXTENSIONS => InfoValue::string(platform::EXTENSIONS),
        CL_PLATFORM_ICD_SUFFIX_KHR => InfoValue::string(platform::ICD_SUFFIX),
        // "CL_INVALID_VALUE if param_name is not one of the supported values".
        _ => return fail(CL_INVALID_VALUE),
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clGetPlatformInfo(
    platform: cl_platform_id,
    param_name: cl_platform_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    call("clGetPlatformInfo", || {
        named_platform(platform)?;
        // SAFETY: the application's buffers, as the spec describes them.
        unsafe {
            answer(
                platform_info(param_name),
                param_value_size,
                param_value,
                param_value_size_ret,
            )
        }
    })
}
