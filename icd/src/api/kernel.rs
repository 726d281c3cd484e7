//! Kernel entry points (section 5.7).
//!
//! A kernel is made from a successfully built program executable, and none can be built
//! before the OpenCL C compiler lands (`clift_runtime::program::Executable` has no values).
//! So the creating calls check their arguments and answer `CL_INVALID_PROGRAM_EXECUTABLE`,
//! and the calls that take a kernel answer `CL_INVALID_KERNEL`: no handle can name a kernel.
//! `clEnqueueNDRangeKernel` and `clEnqueueTask` live with the queues.

use std::ffi::{c_char, c_void};

use clift_runtime::fail;
use khronos_headers::*;

use super::program::program;
use crate::boundary::call;
use crate::boundary::call_ret;

/// The error for every kernel handle: "CL_INVALID_KERNEL if kernel is not a valid kernel
/// object." No kernel can be created before the compiler lands (`clCreateKernel` needs a
/// program executable, and none can be built), so every handle is invalid.
pub(crate) fn kernel_handle_error(_kernel: cl_kernel) -> cl_int {
    CL_INVALID_KERNEL
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
        match program.executable()? {}
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clCreateKernelsInProgram(
    program: cl_program,
    _num_kernels: cl_uint,
    _kernels: *mut cl_kernel,
    _num_kernels_ret: *mut cl_uint,
) -> cl_int {
    call("clCreateKernelsInProgram", || {
        // "CL_INVALID_PROGRAM if program is not a valid program object."
        let program = self::program(program)?;
        // "CL_INVALID_PROGRAM_EXECUTABLE if there is no successfully built executable for any
        // device in program." The check of num_kernels against the number of kernels in
        // program comes after, once there are kernels to count.
        match program.executable()? {}
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clRetainKernel(kernel: cl_kernel) -> cl_int {
    call("clRetainKernel", || fail(kernel_handle_error(kernel)))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clReleaseKernel(kernel: cl_kernel) -> cl_int {
    call("clReleaseKernel", || fail(kernel_handle_error(kernel)))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clSetKernelArg(
    kernel: cl_kernel,
    _arg_index: cl_uint,
    _arg_size: usize,
    _arg_value: *const c_void,
) -> cl_int {
    call("clSetKernelArg", || fail(kernel_handle_error(kernel)))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clGetKernelInfo(
    kernel: cl_kernel,
    _param_name: cl_kernel_info,
    _param_value_size: usize,
    _param_value: *mut c_void,
    _param_value_size_ret: *mut usize,
) -> cl_int {
    call("clGetKernelInfo", || fail(kernel_handle_error(kernel)))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clGetKernelWorkGroupInfo(
    kernel: cl_kernel,
    _device: cl_device_id,
    _param_name: cl_kernel_work_group_info,
    _param_value_size: usize,
    _param_value: *mut c_void,
    _param_value_size_ret: *mut usize,
) -> cl_int {
    call("clGetKernelWorkGroupInfo", || {
        fail(kernel_handle_error(kernel))
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clGetKernelArgInfo(
    kernel: cl_kernel,
    _arg_index: cl_uint,
    _param_name: cl_kernel_arg_info,
    _param_value_size: usize,
    _param_value: *mut c_void,
    _param_value_size_ret: *mut usize,
) -> cl_int {
    call("clGetKernelArgInfo", || fail(kernel_handle_error(kernel)))
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
        // SAFETY: each call passes what the spec asks, or the invalid value under test.
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
            let mut count = 7;
            assert_eq!(
                clCreateKernelsInProgram(program, 0, null_mut(), &mut count),
                CL_INVALID_PROGRAM_EXECUTABLE
            );
            assert_eq!(count, 7);
            assert_eq!(
                clCreateKernelsInProgram(context, 0, null_mut(), &mut count),
                CL_INVALID_PROGRAM
            );
            assert_eq!(clRetainKernel(null_mut()), CL_INVALID_KERNEL);
            assert_eq!(clReleaseKernel(program), CL_INVALID_KERNEL);
            assert_eq!(clSetKernelArg(null_mut(), 0, 4, null()), CL_INVALID_KERNEL);
            assert_eq!(
                clGetKernelInfo(null_mut(), CL_KERNEL_NUM_ARGS, 0, null_mut(), null_mut()),
                CL_INVALID_KERNEL
            );
            assert_eq!(
                clGetKernelWorkGroupInfo(
                    null_mut(),
                    null_mut(),
                    CL_KERNEL_WORK_GROUP_SIZE,
                    0,
                    null_mut(),
                    null_mut()
                ),
                CL_INVALID_KERNEL
            );
            assert_eq!(
                clGetKernelArgInfo(null_mut(), 0, CL_KERNEL_ARG_NAME, 0, null_mut(), null_mut()),
                CL_INVALID_KERNEL
            );
            clReleaseProgram(program);
            clReleaseContext(context);
        }
    }
}
