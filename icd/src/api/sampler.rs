//! Sampler entry points (section 5.5).
//!
//! A sampler is its three properties; `clSetKernelArg` hands a kernel their bits.

use std::ffi::c_void;

use clift_runtime::context::Context;
use clift_runtime::object::ClObject;
use clift_runtime::sampler::{Sampler, SamplerDesc};
use clift_runtime::{ClResult, fail};
use khronos_headers::*;

use super::context::context;
use crate::boundary::{call, call_ret, note_context};
use crate::handle;
use crate::info::{InfoValue, answer};

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clCreateSampler(
    context: cl_context,
    normalized_coords: cl_bool,
    addressing_mode: cl_addressing_mode,
    filter_mode: cl_filter_mode,
    errcode_ret: *mut cl_int,
) -> cl_sampler {
    call_ret("clCreateSampler", errcode_ret, std::ptr::null_mut(), || {
        // "CL_INVALID_CONTEXT if context is not a valid context."
        self::context(context)?;
        let context = handle::shared::<Context>(context)?;
        // "CL_INVALID_VALUE if addressing_mode, filter_mode or normalized_coords or
        // combination of these argument values are not valid."
        let desc = SamplerDesc::new(normalized_coords, addressing_mode, filter_mode)?;
        // "CL_INVALID_OPERATION if images are not supported by any device associated with
        // context" is the runtime's check.
        Ok(handle::new_handle(Sampler::new(context, desc)?))
    })
}

/// The sampler behind a handle, its context noted as the one this call concerns:
/// "CL_INVALID_SAMPLER if sampler is not a valid sampler object."
fn sampler<'a>(handle: cl_sampler) -> ClResult<&'a Sampler> {
    let sampler = handle::object::<Sampler>(handle)?;
    note_context(sampler.context());
    Ok(sampler)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clRetainSampler(sampler: cl_sampler) -> cl_int {
    call("clRetainSampler", || handle::retain::<Sampler>(sampler))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clReleaseSampler(sampler: cl_sampler) -> cl_int {
    call("clReleaseSampler", || handle::release::<Sampler>(sampler))
}

fn sampler_info(sampler: &Sampler, param: cl_sampler_info) -> ClResult<InfoValue> {
    let desc = sampler.desc();
    Ok(match param {
        CL_SAMPLER_REFERENCE_COUNT => InfoValue::scalar(sampler.header().api_refs()),
        CL_SAMPLER_CONTEXT => {
            InfoValue::scalar::<cl_context>(handle::handle_of(&**sampler.context()))
        }
        CL_SAMPLER_NORMALIZED_COORDS => InfoValue::bool(desc.normalized_coords),
        CL_SAMPLER_ADDRESSING_MODE => InfoValue::scalar(desc.addressing_mode),
        CL_SAMPLER_FILTER_MODE => InfoValue::scalar(desc.filter_mode),
        // "CL_INVALID_VALUE if param_name is not valid".
        _ => return fail(CL_INVALID_VALUE),
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clGetSamplerInfo(
    sampler: cl_sampler,
    param_name: cl_sampler_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    call("clGetSamplerInfo", || {
        let sampler = self::sampler(sampler)?;
        // SAFETY: the application's buffers, as the spec describes them.
        unsafe {
            answer(
                sampler_info(sampler, param_name),
                param_value_size,
                param_value,
                param_value_size_ret,
            )
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{clCreateContextFromType, clReleaseContext};
    use std::ptr::{null, null_mut};

    #[test]
    fn samplers_are_created_and_checked() {
        let mut err = 1;
        // SAFETY: each call passes what the spec asks, or the invalid value under test.
        unsafe {
            let context =
                clCreateContextFromType(null(), CL_DEVICE_TYPE_CPU, None, null_mut(), &mut err);
            let create = |context, normalized, addressing, filter| {
                let mut err = 1;
                let sampler = clCreateSampler(context, normalized, addressing, filter, &mut err);
                assert!(sampler.is_null());
                err
            };
            let sampler = clCreateSampler(
                context,
                CL_TRUE,
                CL_ADDRESS_CLAMP,
                CL_FILTER_LINEAR,
                &mut err,
            );
            assert_eq!(err, CL_SUCCESS);
            let mut filter: cl_filter_mode = 0;
            assert_eq!(
                clGetSamplerInfo(
                    sampler,
                    CL_SAMPLER_FILTER_MODE,
                    size_of::<cl_filter_mode>(),
                    (&raw mut filter).cast(),
                    null_mut()
                ),
                CL_SUCCESS
            );
            assert_eq!(filter, CL_FILTER_LINEAR);
            assert_eq!(clReleaseSampler(sampler), CL_SUCCESS);
            assert_eq!(
                create(context, 2, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST),
                CL_INVALID_VALUE
            );
            assert_eq!(
                create(context, CL_FALSE, 0, CL_FILTER_NEAREST),
                CL_INVALID_VALUE
            );
            assert_eq!(
                create(context, CL_FALSE, CL_ADDRESS_NONE, 0),
                CL_INVALID_VALUE
            );
            assert_eq!(
                create(null_mut(), CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST),
                CL_INVALID_CONTEXT
            );
            assert_eq!(clRetainSampler(null_mut()), CL_INVALID_SAMPLER);
            assert_eq!(clReleaseSampler(context), CL_INVALID_SAMPLER);
            assert_eq!(
                clGetSamplerInfo(context, CL_SAMPLER_CONTEXT, 0, null_mut(), null_mut()),
                CL_INVALID_SAMPLER
            );
            clReleaseContext(context);
        }
    }
}
