//! Kernel entry points (section 5.7).
//!
//! A kernel is made from a program's executable; until the OpenCL C compiler lands no
//! executable exists, so `clCreateKernel` answers `CL_INVALID_PROGRAM_EXECUTABLE` and no kernel
//! handle can be valid yet. The other calls are the real ones, working on
//! `clift_runtime::kernel::Kernel` (tested with Rust work-group functions in the runtime).

use std::ffi::{c_char, c_void};
use std::sync::Arc;

use clift_runtime::device::Device;
use clift_runtime::kernel::{ArgHandles, Kernel};
use clift_runtime::memory::Mem;
use clift_runtime::object::ClObject;
use clift_runtime::program::Program;
use clift_runtime::sampler::Sampler;
use clift_runtime::{ClResult, fail};
use khronos_headers::*;

use super::program::program;
use crate::boundary::{call, call_ret, note_context};
use crate::handle;
use crate::info::{InfoValue, answer};

/// The kernel behind a handle, noting its context.
pub(crate) fn kernel<'a>(handle: cl_kernel) -> ClResult<&'a Kernel> {
    let kernel = handle::object::<Kernel>(handle)?;
    note_context(kernel.program().context());
    Ok(kernel)
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clCreateKernel(
    program: cl_program,
    kernel_name: *const c_char,
    errcode_ret: *mut cl_int,
) -> cl_kernel {
    call_ret("clCreateKernel", errcode_ret, std::ptr::null_mut(), || {
        // "CL_INVALID_PROGRAM if program is not a valid program object."
        let program = self::program(program)?;
        // "CL_INVALID_VALUE if kernel_name is NULL."
        if kernel_name.is_null() {
            return fail(CL_INVALID_VALUE);
        }
        // "CL_INVALID_PROGRAM_EXECUTABLE if there is no successfully built executable for
        // program."
        let executable = program.executable()?;
        // SAFETY: a NUL-terminated kernel name, as the spec requires.
        let name = unsafe { std::ffi::CStr::from_ptr(kernel_name) }.to_string_lossy();
        // "CL_INVALID_KERNEL_NAME if kernel_name is not found in program."
        let Some(code) = executable.kernel(&name) else {
            return fail(CL_INVALID_KERNEL_NAME);
        };
        let program = handle::shared::<Program>(handle::handle_of(program))?;
        Ok(handle::new_handle(Kernel::new(program, Arc::clone(code))))
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clCreateKernelsInProgram(
    program: cl_program,
    num_kernels: cl_uint,
    kernels: *mut cl_kernel,
    num_kernels_ret: *mut cl_uint,
) -> cl_int {
    call("clCreateKernelsInProgram", || {
        let object = self::program(program)?;
        // "CL_INVALID_PROGRAM_EXECUTABLE if there is no successfully built executable for
        // any device in program."
        let executable = object.executable()?;
        let count = executable.kernels.len();
        // "CL_INVALID_VALUE if kernels is not NULL and num_kernels is less than the number of
        // kernels in program."
        if !kernels.is_null() && (num_kernels as usize) < count {
            return fail(CL_INVALID_VALUE);
        }
        if !kernels.is_null() {
            let shared = handle::shared::<Program>(program)?;
            for (i, code) in executable.kernels.iter().enumerate() {
                let k: cl_kernel =
                    handle::new_handle(Kernel::new(Arc::clone(&shared), Arc::clone(code)));
                // SAFETY: `kernels` holds `num_kernels >= count` entries.
                unsafe { kernels.add(i).write(k) };
            }
        }
        if !num_kernels_ret.is_null() {
            // SAFETY: the application's out-parameter.
            unsafe { num_kernels_ret.write(count as cl_uint) };
        }
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clRetainKernel(kernel: cl_kernel) -> cl_int {
    call("clRetainKernel", || handle::retain::<Kernel>(kernel))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clReleaseKernel(kernel: cl_kernel) -> cl_int {
    call("clReleaseKernel", || handle::release::<Kernel>(kernel))
}

/// Handle validation for `clSetKernelArg`'s values (the rest of its checks are the
/// runtime's).
struct Handles;

impl ArgHandles for Handles {
    fn mem(&self, raw: cl_mem) -> ClResult<Arc<Mem>> {
        handle::shared::<Mem>(raw)
    }

    fn sampler(&self, raw: cl_sampler) -> Option<Arc<Sampler>> {
        handle::shared::<Sampler>(raw).ok()
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clSetKernelArg(
    kernel: cl_kernel,
    arg_index: cl_uint,
    arg_size: usize,
    arg_value: *const c_void,
) -> cl_int {
    call("clSetKernelArg", || {
        let kernel = self::kernel(kernel)?;
        // SAFETY: the application's value of `arg_size` bytes.
        unsafe { kernel.set_arg_from(arg_index, arg_size, arg_value, &Handles) }
    })
}

fn kernel_info(kernel: &Kernel, param: cl_kernel_info) -> ClResult<InfoValue> {
    let code = kernel.code();
    Ok(match param {
        CL_KERNEL_FUNCTION_NAME => InfoValue::string(&code.name),
        CL_KERNEL_NUM_ARGS => InfoValue::scalar(code.params.len() as cl_uint),
        CL_KERNEL_REFERENCE_COUNT => InfoValue::scalar(kernel.header().api_refs()),
        CL_KERNEL_CONTEXT => {
            InfoValue::scalar::<cl_context>(handle::handle_of(&**kernel.program().context()))
        }
        CL_KERNEL_PROGRAM => {
            InfoValue::scalar::<cl_program>(handle::handle_of(&**kernel.program()))
        }
        CL_KERNEL_ATTRIBUTES => InfoValue::string(&code.attributes),
        _ => return fail(CL_INVALID_VALUE),
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clGetKernelInfo(
    kernel: cl_kernel,
    param_name: cl_kernel_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    call("clGetKernelInfo", || {
        let kernel = self::kernel(kernel)?;
        // SAFETY: the application's buffers, as the spec describes them.
        unsafe {
            answer(
                kernel_info(kernel, param_name),
                param_value_size,
                param_value,
                param_value_size_ret,
            )
        }
    })
}

/// The SIMD width work-items are vectorized over (4 lanes of 32 bits in 128-bit registers):
/// work-groups that are a multiple of it fill every lane.
const PREFERRED_WORK_GROUP_SIZE_MULTIPLE: usize = 4;

fn work_group_info(kernel: &Kernel, param: cl_kernel_work_group_info) -> ClResult<InfoValue> {
    Ok(match param {
        CL_KERNEL_WORK_GROUP_SIZE => InfoValue::scalar(kernel.max_work_group_size()),
        CL_KERNEL_COMPILE_WORK_GROUP_SIZE => {
            InfoValue::slice(&kernel.code().reqd_work_group_size.unwrap_or([0; 3]))
        }
        CL_KERNEL_LOCAL_MEM_SIZE => InfoValue::scalar(kernel.local_mem_size() as cl_ulong),
        CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE => {
            InfoValue::scalar(PREFERRED_WORK_GROUP_SIZE_MULTIPLE)
        }
        CL_KERNEL_PRIVATE_MEM_SIZE => InfoValue::scalar(kernel.code().private_mem_size as cl_ulong),
        // "CL_INVALID_VALUE if param_name is CL_KERNEL_GLOBAL_WORK_SIZE and device is not a
        // custom device or kernel is not a built-in kernel."
        _ => return fail(CL_INVALID_VALUE),
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clGetKernelWorkGroupInfo(
    kernel: cl_kernel,
    device: cl_device_id,
    param_name: cl_kernel_work_group_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    call("clGetKernelWorkGroupInfo", || {
        let kernel = self::kernel(kernel)?;
        // "CL_INVALID_DEVICE if device is not in the list of devices associated with kernel
        // or if device is NULL but there is more than one device associated with kernel."
        let devices = kernel.program().devices();
        if device.is_null() {
            if devices.len() != 1 {
                return fail(CL_INVALID_DEVICE);
            }
        } else if kernel
            .program()
            .device_index(handle::object::<Device>(device)?)
            .is_none()
        {
            return fail(CL_INVALID_DEVICE);
        }
        // SAFETY: the application's buffers, as the spec describes them.
        unsafe {
            answer(
                work_group_info(kernel, param_name),
                param_value_size,
                param_value,
                param_value_size_ret,
            )
        }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clGetKernelArgInfo(
    kernel: cl_kernel,
    arg_index: cl_uint,
    param_name: cl_kernel_arg_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    call("clGetKernelArgInfo", || {
        let kernel = self::kernel(kernel)?;
        // "CL_INVALID_ARG_INDEX if arg_indx is not a valid argument index."
        let Some(param) = kernel.code().params.get(arg_index as usize) else {
            return fail(CL_INVALID_ARG_INDEX);
        };
        // "CL_KERNEL_ARG_INFO_NOT_AVAILABLE if the argument information is not available
        // for kernel" (the program was not built with -cl-kernel-arg-info).
        if !kernel.code().arg_info {
            return fail(CL_KERNEL_ARG_INFO_NOT_AVAILABLE);
        }
        let info = &param.info;
        let value = match param_name {
            CL_KERNEL_ARG_ADDRESS_QUALIFIER => Ok(InfoValue::scalar(info.address_qualifier)),
            CL_KERNEL_ARG_ACCESS_QUALIFIER => Ok(InfoValue::scalar(info.access_qualifier)),
            CL_KERNEL_ARG_TYPE_NAME => Ok(InfoValue::string(&info.type_name)),
            CL_KERNEL_ARG_TYPE_QUALIFIER => Ok(InfoValue::scalar(info.type_qualifier)),
            CL_KERNEL_ARG_NAME => Ok(InfoValue::string(&info.name)),
            _ => fail(CL_INVALID_VALUE),
        };
        // SAFETY: the application's buffers, as the spec describes them.
        unsafe { answer(value, param_value_size, param_value, param_value_size_ret) }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{
        clCreateContextFromType, clCreateProgramWithSource, clReleaseContext, clReleaseProgram,
    };
    use std::ptr::{null, null_mut};

    #[test]
    fn no_kernel_without_an_executable() {
        let mut err = 1;
        // SAFETY: valid arguments for each call; the objects are released at the end.
        unsafe {
            let context =
                clCreateContextFromType(null(), CL_DEVICE_TYPE_CPU, None, null_mut(), &mut err);
            let mut strings = [c"kernel void k() {}".as_ptr()];
            let program =
                clCreateProgramWithSource(context, 1, strings.as_mut_ptr(), null(), &mut err);
            assert_eq!(err, CL_SUCCESS);
            assert!(clCreateKernel(program, c"k".as_ptr(), &mut err).is_null());
            assert_eq!(err, CL_INVALID_PROGRAM_EXECUTABLE);
            clCreateKernel(program, null(), &mut err);
            assert_eq!(err, CL_INVALID_VALUE);
            clCreateKernel(null_mut(), c"k".as_ptr(), &mut err);
            assert_eq!(err, CL_INVALID_PROGRAM);
            assert_eq!(
                clCreateKernelsInProgram(program, 0, null_mut(), null_mut()),
                CL_INVALID_PROGRAM_EXECUTABLE
            );
            assert_eq!(clRetainKernel(null_mut()), CL_INVALID_KERNEL);
            assert_eq!(clReleaseKernel(program), CL_INVALID_KERNEL);
            assert_eq!(clSetKernelArg(context, 0, 4, null()), CL_INVALID_KERNEL);
            assert_eq!(
                clGetKernelInfo(null_mut(), CL_KERNEL_NUM_ARGS, 0, null_mut(), null_mut()),
                CL_INVALID_KERNEL
            );
            assert_eq!(clReleaseProgram(program), CL_SUCCESS);
            assert_eq!(clReleaseContext(context), CL_SUCCESS);
        }
    }
}
