//! What the program suites (`api_program`, `compiler`) share: a context and queue on clift's
//! device, and small wrappers of the program and kernel calls.

#![allow(dead_code, unused_imports)] // each suite uses part of it

use std::ffi::{CStr, CString, c_char, c_void};
use std::ptr::{null, null_mut};

use clift_conformance::*;

pub fn api() -> &'static Api {
    clift()
}

pub fn device() -> cl_device_id {
    api().device()
}

/// A context over the device and a queue on it, released on drop.
pub struct Fixture {
    pub context: cl_context,
    pub queue: cl_command_queue,
}

impl Fixture {
    pub fn new() -> Fixture {
        let context = api()
            .create_context(None, &[device()])
            .expect("clCreateContext");
        let queue = api()
            .create_command_queue(context, device(), 0)
            .expect("clCreateCommandQueue");
        Fixture { context, queue }
    }

    pub fn buffer(&self, size: usize) -> cl_mem {
        api()
            .create_buffer(self.context, 0, size)
            .expect("clCreateBuffer")
    }

    pub fn buffer_from(&self, data: &[u8]) -> cl_mem {
        api()
            .create_buffer_from(self.context, 0, data)
            .expect("clCreateBuffer")
    }

    pub fn read(&self, mem: cl_mem, len: usize) -> Vec<u8> {
        let mut out = vec![0; len];
        let status = api().read_buffer(self.queue, mem, 0, &mut out, Waits::NONE, None);
        assert_eq!(status, CL_SUCCESS, "clEnqueueReadBuffer");
        out
    }

    /// A program from NUL-terminated strings (no lengths).
    pub fn program_c(&self, sources: &[&CStr]) -> cl_program {
        let strings: Vec<*const c_char> = sources.iter().map(|s| s.as_ptr()).collect();
        // SAFETY: every string is NUL-terminated; no lengths.
        let (program, status) = unsafe {
            api().create_program_with_source_raw(
                self.context,
                strings.len() as cl_uint,
                strings.as_ptr(),
                null(),
            )
        };
        assert_eq!(status, CL_SUCCESS, "clCreateProgramWithSource");
        program
    }

    /// A program from one source string.
    pub fn program(&self, source: &str) -> cl_program {
        api()
            .create_program_with_source(self.context, &[source])
            .expect("clCreateProgramWithSource")
    }

    /// A program built with `options`; panics with the build log if the build fails.
    pub fn built(&self, source: &str, options: &CStr) -> cl_program {
        let program = self.program(source);
        let status = api().build_program(program, options);
        assert_eq!(
            status,
            CL_SUCCESS,
            "clBuildProgram failed; log:\n{}",
            api().build_log(program, device())
        );
        program
    }

    /// Runs a one-dimensional range of `kernel` and waits for it.
    pub fn run_1d(&self, kernel: cl_kernel, global: usize, local: Option<usize>) {
        let local = local.map(|l| [l]);
        let status = api().enqueue_nd_range_kernel(
            self.queue,
            kernel,
            1,
            None,
            Some(&[global]),
            local.as_ref().map(|l| &l[..]),
            Waits::NONE,
            None,
        );
        assert_eq!(status, CL_SUCCESS, "clEnqueueNDRangeKernel");
        assert_eq!(api().finish(self.queue), CL_SUCCESS);
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let statuses = [
            api().finish(self.queue),
            api().release_command_queue(self.queue),
            api().release_context(self.context),
        ];
        if !std::thread::panicking() {
            assert_eq!(
                statuses, [CL_SUCCESS; 3],
                "finish / release queue / context"
            );
        }
    }
}

pub const SOURCE: &CStr = c"kernel void add(global int *a, int b) { a[get_global_id(0)] += b; }";

/// A kernel writing one `int`, chosen by the preprocessor (`VALUE`).
pub const VALUE_SOURCE: &str = "kernel void k(global int *out) { out[0] = VALUE; }";

pub fn release_program(program: cl_program) {
    assert_eq!(api().release_program(program), CL_SUCCESS);
}

pub fn release_kernel(kernel: cl_kernel) {
    assert_eq!(api().release_kernel(kernel), CL_SUCCESS);
}

pub fn release_mem(mem: cl_mem) {
    assert_eq!(api().release_mem_object(mem), CL_SUCCESS);
}

pub fn kernel(program: cl_program, name: &CStr) -> cl_kernel {
    api()
        .create_kernel(program, name)
        .unwrap_or_else(|e| panic!("clCreateKernel({name:?}) failed: {e}"))
}

pub fn program_info(program: cl_program, param: cl_program_info) -> Result<Vec<u8>, cl_int> {
    api().program_info(program, param)
}

pub fn build_info(
    program: cl_program,
    device: cl_device_id,
    param: cl_program_build_info,
) -> Result<Vec<u8>, cl_int> {
    api().program_build_info(program, device, param)
}

pub fn build_status(program: cl_program) -> cl_build_status {
    api().build_status(program, device())
}

pub fn build_log(program: cl_program) -> String {
    api().build_log(program, device())
}

pub fn binary_type(program: cl_program) -> cl_program_binary_type {
    scalar(&build_info(program, device(), CL_PROGRAM_BINARY_TYPE).unwrap())
}

/// `clBuildProgram` with `options` (NULL for `None`) and no callback.
pub fn build(
    program: cl_program,
    num_devices: cl_uint,
    devices: Option<&[cl_device_id]>,
    options: Option<&CStr>,
) -> cl_int {
    // SAFETY: no callback, no user data.
    unsafe { api().build_program_raw(program, num_devices, devices, options, None, null_mut()) }
}

/// Builds `VALUE_SOURCE` with `options`, runs it once and returns the `int` it wrote.
pub fn value_with(fx: &Fixture, options: &CStr) -> i32 {
    let program = fx.built(VALUE_SOURCE, options);
    let k = kernel(program, c"k");
    let out = fx.buffer(4);
    assert_eq!(api().set_kernel_arg_mem(k, 0, out), CL_SUCCESS);
    fx.run_1d(k, 1, None);
    let value = scalar::<i32>(&fx.read(out, 4));
    release_mem(out);
    release_kernel(k);
    release_program(program);
    value
}

/// A kernel's string info answer.
pub fn kernel_string(kernel: cl_kernel, param: cl_kernel_info) -> String {
    string(
        &api()
            .kernel_info(kernel, param)
            .unwrap_or_else(|e| panic!("clGetKernelInfo({param:#x}) failed: {e}")),
    )
}

pub fn kernel_scalar<T: Plain>(kernel: cl_kernel, param: cl_kernel_info) -> T {
    scalar(
        &api()
            .kernel_info(kernel, param)
            .unwrap_or_else(|e| panic!("clGetKernelInfo({param:#x}) failed: {e}")),
    )
}

pub fn work_group_scalar<T: Plain>(kernel: cl_kernel, param: cl_kernel_work_group_info) -> T {
    scalar(
        &api()
            .kernel_work_group_info(kernel, device(), param)
            .unwrap_or_else(|e| panic!("clGetKernelWorkGroupInfo({param:#x}) failed: {e}")),
    )
}

pub extern "C" fn ignore_build(_program: cl_program, _user_data: *mut c_void) {}

/// The lines of `log` that report an error at `line:col`.
pub fn errors_at(log: &str, line: u32, col: u32) -> Vec<&str> {
    let at = format!(":{line}:{col}: error: ");
    log.lines().filter(|l| l.contains(&at)).collect()
}
