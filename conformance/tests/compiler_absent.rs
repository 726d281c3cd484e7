//! Programs, kernels, samplers and images on a device without a compiler and without image
//! support (OpenCL 1.2 §5.3, §5.5–§5.8): what the spec requires of a device whose
//! `CL_DEVICE_COMPILER_AVAILABLE` and `CL_DEVICE_IMAGE_SUPPORT` are `CL_FALSE`.
//!
//! Programs are real objects (their source is kept and reported), builds fail with
//! `CL_COMPILER_NOT_AVAILABLE`, no kernel, sampler or image can be created, and every call
//! taking one answers with the error for an invalid object. ocl-icd answers calls on a NULL
//! handle itself; to reach clift the tests pass live handles of other types.

use std::ffi::{CStr, c_char, c_void};
use std::ptr::{null, null_mut};

use clift_conformance::*;

fn api() -> &'static Api {
    clift()
}

fn device() -> cl_device_id {
    api().device()
}

/// A context over the device and a queue on it, released on drop.
struct Fixture {
    context: cl_context,
    queue: cl_command_queue,
}

impl Fixture {
    fn new() -> Fixture {
        let context = api()
            .create_context(None, &[device()])
            .expect("clCreateContext");
        let queue = api()
            .create_command_queue(context, device(), 0)
            .expect("clCreateCommandQueue");
        Fixture { context, queue }
    }

    fn buffer(&self, size: usize) -> cl_mem {
        api()
            .create_buffer(self.context, 0, size)
            .expect("clCreateBuffer")
    }

    /// A program from NUL-terminated strings.
    fn program(&self, sources: &[&CStr]) -> cl_program {
        let mut strings: Vec<*const c_char> = sources.iter().map(|s| s.as_ptr()).collect();
        // SAFETY: every string is NUL-terminated; no lengths.
        let (program, status) = unsafe {
            create_program_raw(
                self.context,
                strings.len() as cl_uint,
                strings.as_mut_ptr(),
                null(),
            )
        };
        assert_eq!(status, CL_SUCCESS, "clCreateProgramWithSource");
        program
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

const SOURCE: &CStr = c"kernel void add(global int *a, int b) { a[get_global_id(0)] += b; }";

/// `clCreateProgramWithSource` as called.
///
/// # Safety
/// `strings` must be NULL or hold `count` entries, each NULL or a string of the length
/// given in `lengths` (or NUL-terminated where the length is 0 or `lengths` is NULL).
unsafe fn create_program_raw(
    context: cl_context,
    count: cl_uint,
    strings: *mut *const c_char,
    lengths: *const usize,
) -> (cl_program, cl_int) {
    let api = api();
    let f = entry!(api.clCreateProgramWithSource);
    let mut status = CL_SUCCESS;
    // SAFETY: the caller's contract; `status` is a valid errcode_ret.
    let program = unsafe { f(context, count, strings, lengths, &mut status) };
    assert_eq!(program.is_null(), status != CL_SUCCESS, "status {status}");
    (program, status)
}

fn release_program(program: cl_program) {
    let api = api();
    let f = entry!(api.clReleaseProgram);
    // SAFETY: a handle; nothing else is passed.
    assert_eq!(unsafe { f(program) }, CL_SUCCESS);
}

fn program_info(program: cl_program, param: cl_program_info) -> Result<Vec<u8>, cl_int> {
    let api = api();
    let f = entry!(api.clGetProgramInfo);
    // SAFETY: `info_bytes` passes a buffer of the size it states and a valid size_ret.
    info_bytes(|size, value, ret| unsafe { f(program, param, size, value, ret) })
}

fn build_info(
    program: cl_program,
    device: cl_device_id,
    param: cl_program_build_info,
) -> Result<Vec<u8>, cl_int> {
    let api = api();
    let f = entry!(api.clGetProgramBuildInfo);
    // SAFETY: `info_bytes` passes a buffer of the size it states and a valid size_ret.
    info_bytes(|size, value, ret| unsafe { f(program, device, param, size, value, ret) })
}

fn build_status(program: cl_program) -> cl_build_status {
    scalar(&build_info(program, device(), CL_PROGRAM_BUILD_STATUS).unwrap())
}

/// `clBuildProgram` with `options` (NULL for `None`) and no callback.
fn build(
    program: cl_program,
    num_devices: cl_uint,
    devices: Option<&[cl_device_id]>,
    options: Option<&CStr>,
) -> cl_int {
    if let Some(devices) = devices {
        assert!(num_devices as usize <= devices.len());
    }
    let api = api();
    let f = entry!(api.clBuildProgram);
    // SAFETY: the device list is NULL or holds `num_devices` handles; options NULL or
    // NUL-terminated; no callback.
    unsafe {
        f(
            program,
            num_devices,
            devices.map_or(null(), <[cl_device_id]>::as_ptr),
            options.map_or(null(), CStr::as_ptr),
            None,
            null_mut(),
        )
    }
}

extern "C" fn ignore_build(_program: cl_program, _user_data: *mut c_void) {}

// The device

#[test]
fn device_reports_no_compiler_and_no_image_support() {
    assert!(!api().device_bool(device(), CL_DEVICE_COMPILER_AVAILABLE));
    assert!(!api().device_bool(device(), CL_DEVICE_LINKER_AVAILABLE));
    assert!(!api().device_bool(device(), CL_DEVICE_IMAGE_SUPPORT));
}

// clCreateProgramWithSource

#[test]
fn program_source_is_the_concatenation_of_the_strings() {
    // CL_PROGRAM_SOURCE: "Return the program source code specified by
    // clCreateProgramWithSource. The source string returned is a concatenation of all source
    // strings specified to clCreateProgramWithSource with a null terminator."
    let fx = Fixture::new();
    let parts = [
        c"#define N 4\n",
        c"kernel void k(global int *a) {\n",
        c"  a[0] = N;\n}\n",
    ];
    let program = fx.program(&parts);
    let expected: String = parts.iter().map(|s| s.to_str().unwrap()).collect();
    assert_eq!(
        string(&program_info(program, CL_PROGRAM_SOURCE).unwrap()),
        expected
    );
    release_program(program);
}

#[test]
fn program_source_honours_the_lengths() {
    // "If lengths is NULL, all strings in the strings argument are considered
    // null-terminated. Any length value passed in that is greater than zero excludes the
    // null terminator in its count." "If an element in lengths is zero, its accompanying
    // string is null-terminated."
    let fx = Fixture::new();
    // Not NUL-terminated at all: only the length says where it ends.
    let first: [u8; 22] = *b"kernel void a() {}XXXX";
    let second = c"\n/* terminated */\n";
    // A NUL inside a counted string's tail is past its length.
    let third: &[u8] = b"int x;\0garbage";
    let mut strings = [
        first.as_ptr().cast::<c_char>(),
        second.as_ptr(),
        third.as_ptr().cast::<c_char>(),
    ];
    let lengths = [18, 0, 6];
    // SAFETY: each string holds at least its given length; the zero-length one is
    // NUL-terminated.
    let (program, status) =
        unsafe { create_program_raw(fx.context, 3, strings.as_mut_ptr(), lengths.as_ptr()) };
    assert_eq!(status, CL_SUCCESS);
    let source = program_info(program, CL_PROGRAM_SOURCE).unwrap();
    assert_eq!(
        string(&source),
        "kernel void a() {}\n/* terminated */\nint x;"
    );
    release_program(program);
}

#[test]
fn program_reports_its_context_and_devices() {
    let fx = Fixture::new();
    let program = fx.program(&[SOURCE]);
    assert_eq!(
        scalar::<cl_context>(&program_info(program, CL_PROGRAM_CONTEXT).unwrap()),
        fx.context
    );
    assert_eq!(
        scalar::<cl_uint>(&program_info(program, CL_PROGRAM_NUM_DEVICES).unwrap()),
        1
    );
    assert_eq!(
        array::<cl_device_id>(&program_info(program, CL_PROGRAM_DEVICES).unwrap()),
        [device()]
    );
    assert_eq!(
        scalar::<cl_uint>(&program_info(program, CL_PROGRAM_REFERENCE_COUNT).unwrap()),
        1
    );
    release_program(program);
}

#[test]
fn create_program_without_strings_is_invalid_value() {
    // "CL_INVALID_VALUE if count is zero or if strings or any entry in strings is NULL."
    let fx = Fixture::new();
    let mut strings = [SOURCE.as_ptr(), null()];
    // SAFETY: the entries are NUL-terminated or NULL (the error under test).
    unsafe {
        let (_, status) = create_program_raw(fx.context, 0, strings.as_mut_ptr(), null());
        assert_eq!(status, CL_INVALID_VALUE, "count 0");
        let (_, status) = create_program_raw(fx.context, 1, null_mut(), null());
        assert_eq!(status, CL_INVALID_VALUE, "strings NULL");
        let (_, status) = create_program_raw(fx.context, 2, strings.as_mut_ptr(), null());
        assert_eq!(status, CL_INVALID_VALUE, "an entry NULL");
    }
}

#[test]
fn create_program_on_a_non_context_is_invalid_context() {
    // "CL_INVALID_CONTEXT if context is not a valid context."
    let fx = Fixture::new();
    let mut strings = [SOURCE.as_ptr()];
    // SAFETY: one NUL-terminated string.
    let (_, status) = unsafe { create_program_raw(fx.queue, 1, strings.as_mut_ptr(), null()) };
    assert_eq!(status, CL_INVALID_CONTEXT);
}

// clBuildProgram, clCompileProgram

#[test]
fn program_is_not_built_before_a_build() {
    // CL_PROGRAM_BUILD_STATUS: "CL_BUILD_NONE. The build status returned if no clBuildProgram,
    // clCompileProgram or clLinkProgram has been performed on the specified program object
    // for device."
    let fx = Fixture::new();
    let program = fx.program(&[SOURCE]);
    assert_eq!(build_status(program), CL_BUILD_NONE);
    release_program(program);
}

#[test]
fn build_without_a_compiler_is_compiler_not_available_with_a_build_error() {
    // "CL_COMPILER_NOT_AVAILABLE if program is created with clCreateProgramWithSource and a
    // compiler is not available i.e. CL_DEVICE_COMPILER_AVAILABLE specified in table 4.3 is
    // set to CL_FALSE." CL_PROGRAM_BUILD_STATUS: "CL_BUILD_ERROR. The build status returned
    // if clBuildProgram ... whichever was performed last on the specified program object for
    // device generated an error." The log says why (clift's own requirement: the spec lets
    // the log be empty).
    let fx = Fixture::new();
    let program = fx.program(&[SOURCE]);
    assert_eq!(build(program, 0, None, None), CL_COMPILER_NOT_AVAILABLE);
    assert_eq!(build_status(program), CL_BUILD_ERROR);
    let log = string(&build_info(program, device(), CL_PROGRAM_BUILD_LOG).unwrap());
    assert!(!log.trim().is_empty(), "empty build log");
    // With the device named, and with options: the same answer, and the options recorded.
    let options = c"-D N=4 -cl-mad-enable";
    assert_eq!(
        build(program, 1, Some(&[device()]), Some(options)),
        CL_COMPILER_NOT_AVAILABLE
    );
    assert_eq!(build_status(program), CL_BUILD_ERROR);
    // CL_PROGRAM_BUILD_OPTIONS: "Return the build, compile or link options specified by the
    // options argument in clBuildProgram, clCompileProgram or clLinkProgram, whichever was
    // performed last on program for device."
    assert_eq!(
        string(&build_info(program, device(), CL_PROGRAM_BUILD_OPTIONS).unwrap()),
        options.to_str().unwrap()
    );
    release_program(program);
}

#[test]
fn compile_without_a_compiler_is_compiler_not_available() {
    // clCompileProgram: "CL_COMPILER_NOT_AVAILABLE if a compiler is not available i.e.
    // CL_DEVICE_COMPILER_AVAILABLE specified in table 4.3 is set to CL_FALSE."
    let fx = Fixture::new();
    let program = fx.program(&[SOURCE]);
    let api = api();
    let compile = entry!(api.clCompileProgram);
    // SAFETY: no devices, options, headers or callback.
    let status = unsafe {
        compile(
            program,
            0,
            null(),
            null(),
            0,
            null(),
            null_mut(),
            None,
            null_mut(),
        )
    };
    assert_eq!(status, CL_COMPILER_NOT_AVAILABLE);
    assert_eq!(build_status(program), CL_BUILD_ERROR);
    release_program(program);
}

#[test]
fn build_with_invalid_options_is_invalid_build_options() {
    // "CL_INVALID_BUILD_OPTIONS if the build options specified by options are invalid."
    let fx = Fixture::new();
    let program = fx.program(&[SOURCE]);
    for options in [c"-cl-no-such-option", c"-cl-std=CL9.9", c"--frobnicate"] {
        assert_eq!(
            build(program, 0, None, Some(options)),
            CL_INVALID_BUILD_OPTIONS,
            "{options:?}"
        );
    }
    release_program(program);
}

#[test]
fn build_with_an_inconsistent_device_list_is_invalid_value() {
    // "CL_INVALID_VALUE if device_list is NULL and num_devices is greater than zero, or if
    // device_list is not NULL and num_devices is zero."
    let fx = Fixture::new();
    let program = fx.program(&[SOURCE]);
    assert_eq!(build(program, 1, None, None), CL_INVALID_VALUE);
    assert_eq!(build(program, 0, Some(&[device()]), None), CL_INVALID_VALUE);
    release_program(program);
}

#[test]
fn build_with_user_data_but_no_callback_is_invalid_value() {
    // "CL_INVALID_VALUE if pfn_notify is NULL but user_data is not NULL."
    let fx = Fixture::new();
    let program = fx.program(&[SOURCE]);
    let api = api();
    let f = entry!(api.clBuildProgram);
    let mut data = 0u32;
    // SAFETY: no devices or options; user_data is never used (no callback).
    let status = unsafe { f(program, 0, null(), null(), None, (&raw mut data).cast()) };
    assert_eq!(status, CL_INVALID_VALUE);
    // With a callback, the same call is accepted (and fails for want of a compiler).
    // SAFETY: the callback ignores its arguments.
    let status = unsafe {
        f(
            program,
            0,
            null(),
            null(),
            Some(ignore_build),
            (&raw mut data).cast(),
        )
    };
    assert_eq!(status, CL_COMPILER_NOT_AVAILABLE);
    release_program(program);
}

#[test]
fn build_for_a_device_outside_the_program_is_invalid_device() {
    // "CL_INVALID_DEVICE if OpenCL devices listed in device_list are not in the list of
    // devices associated with program."
    let fx = Fixture::new();
    let program = fx.program(&[SOURCE]);
    assert_eq!(
        build(program, 1, Some(&[fx.context]), None),
        CL_INVALID_DEVICE
    );
    let schemes: Vec<cl_device_partition_property> =
        api().device_array(device(), CL_DEVICE_PARTITION_PROPERTIES);
    let units = api().device_uint(device(), CL_DEVICE_MAX_COMPUTE_UNITS);
    if schemes.contains(&CL_DEVICE_PARTITION_EQUALLY) && units >= 2 {
        let subs = api()
            .create_sub_devices(device(), &[CL_DEVICE_PARTITION_EQUALLY, 1, 0])
            .unwrap();
        assert_eq!(build(program, 1, Some(&subs[..1]), None), CL_INVALID_DEVICE);
        // clGetProgramBuildInfo: "CL_INVALID_DEVICE if device is not in the list of devices
        // associated with program."
        assert_eq!(
            build_info(program, subs[0], CL_PROGRAM_BUILD_STATUS),
            Err(CL_INVALID_DEVICE)
        );
        for sub in subs {
            assert_eq!(api().release_device(sub), CL_SUCCESS);
        }
    } else {
        println!("part skipped: the device cannot be partitioned equally");
    }
    release_program(program);
}

#[test]
fn program_calls_on_a_non_program_are_invalid_program() {
    // "CL_INVALID_PROGRAM if program is not a valid program object."
    let fx = Fixture::new();
    let mem = fx.buffer(16);
    // SAFETY: the context is live.
    let mut foreign = unsafe { ForeignObject::with_dispatch_of(fx.context) };
    for bad in [fx.context, mem, foreign.handle()] {
        assert_eq!(build(bad, 0, None, None), CL_INVALID_PROGRAM);
        assert_eq!(
            program_info(bad, CL_PROGRAM_SOURCE),
            Err(CL_INVALID_PROGRAM)
        );
        assert_eq!(
            build_info(bad, device(), CL_PROGRAM_BUILD_STATUS),
            Err(CL_INVALID_PROGRAM)
        );
        let mut status = 0;
        let api = api();
        let create = entry!(api.clCreateKernel);
        // SAFETY: a NUL-terminated name and a valid errcode_ret.
        let kernel = unsafe { create(bad, c"add".as_ptr(), &mut status) };
        assert!(kernel.is_null());
        assert_eq!(status, CL_INVALID_PROGRAM);
    }
    assert_eq!(api().release_mem_object(mem), CL_SUCCESS);
}

// Kernels

#[test]
fn create_kernel_without_an_executable_is_invalid_program_executable() {
    // clCreateKernel: "CL_INVALID_PROGRAM_EXECUTABLE if there is no successfully built
    // executable for program"; clCreateKernelsInProgram: "... for any device in program".
    let fx = Fixture::new();
    let program = fx.program(&[SOURCE]);
    let api = api();
    let create = entry!(api.clCreateKernel);
    let create_all = entry!(api.clCreateKernelsInProgram);
    for built in [false, true] {
        if built {
            assert_eq!(build(program, 0, None, None), CL_COMPILER_NOT_AVAILABLE);
        }
        let mut status = 0;
        // SAFETY: a NUL-terminated name and a valid errcode_ret.
        let kernel = unsafe { create(program, c"add".as_ptr(), &mut status) };
        assert!(kernel.is_null());
        assert_eq!(
            status, CL_INVALID_PROGRAM_EXECUTABLE,
            "after build: {built}"
        );
        let mut count = 77;
        // SAFETY: no kernel array; `count` is a valid out-parameter.
        let status = unsafe { create_all(program, 0, null_mut(), &mut count) };
        assert_eq!(
            status, CL_INVALID_PROGRAM_EXECUTABLE,
            "after build: {built}"
        );
        // clGetProgramInfo: "CL_INVALID_PROGRAM_EXECUTABLE if param_name is
        // CL_PROGRAM_NUM_KERNELS or CL_PROGRAM_KERNEL_NAMES and a successful program
        // executable has not been built for at least one device in the list of devices
        // associated with program."
        for param in [CL_PROGRAM_NUM_KERNELS, CL_PROGRAM_KERNEL_NAMES] {
            assert_eq!(
                program_info(program, param),
                Err(CL_INVALID_PROGRAM_EXECUTABLE)
            );
        }
    }
    release_program(program);
}

#[test]
fn kernel_calls_with_a_non_kernel_handle_are_invalid_kernel() {
    // "CL_INVALID_KERNEL if kernel is not a valid kernel object" (clRetainKernel,
    // clReleaseKernel, clSetKernelArg, clGetKernelInfo, clGetKernelWorkGroupInfo,
    // clGetKernelArgInfo).
    let fx = Fixture::new();
    let program = fx.program(&[SOURCE]);
    // SAFETY: the context is live.
    let mut foreign = unsafe { ForeignObject::with_dispatch_of(fx.context) };
    let api = api();
    let retain = entry!(api.clRetainKernel);
    let release = entry!(api.clReleaseKernel);
    let set_arg = entry!(api.clSetKernelArg);
    let info = entry!(api.clGetKernelInfo);
    let work_group_info = entry!(api.clGetKernelWorkGroupInfo);
    let arg_info = entry!(api.clGetKernelArgInfo);
    for bad in [program, fx.context, foreign.handle()] {
        let value = 5i32;
        let mut size = 0usize;
        // SAFETY: every out-parameter is valid or NULL; the value holds the 4 bytes stated.
        let statuses = unsafe {
            [
                retain(bad),
                release(bad),
                set_arg(bad, 1, 4, (&raw const value).cast()),
                info(bad, CL_KERNEL_NUM_ARGS, 0, null_mut(), &mut size),
                work_group_info(
                    bad,
                    device(),
                    CL_KERNEL_WORK_GROUP_SIZE,
                    0,
                    null_mut(),
                    &mut size,
                ),
                arg_info(bad, 0, CL_KERNEL_ARG_NAME, 0, null_mut(), &mut size),
            ]
        };
        assert_eq!(statuses, [CL_INVALID_KERNEL; 6]);
    }
    // The program is untouched by the calls that named it as a kernel.
    assert_eq!(
        scalar::<cl_uint>(&program_info(program, CL_PROGRAM_REFERENCE_COUNT).unwrap()),
        1
    );
    release_program(program);
}

#[test]
fn launch_of_a_non_kernel_is_invalid_kernel() {
    // clEnqueueNDRangeKernel and clEnqueueTask: "CL_INVALID_KERNEL if kernel is not a valid
    // kernel object."
    let fx = Fixture::new();
    let program = fx.program(&[SOURCE]);
    // SAFETY: the context is live.
    let mut foreign = unsafe { ForeignObject::with_dispatch_of(fx.context) };
    let api = api();
    let ndrange = entry!(api.clEnqueueNDRangeKernel);
    let task = entry!(api.clEnqueueTask);
    let global = [64usize, 1, 1];
    let local = [16usize, 1, 1];
    for bad in [program, fx.context, foreign.handle(), null_mut()] {
        let mut event = null_mut();
        // SAFETY: the sizes hold `work_dim` entries; `event` is a valid out-parameter.
        let statuses = unsafe {
            [
                ndrange(
                    fx.queue,
                    bad,
                    1,
                    null(),
                    global.as_ptr(),
                    local.as_ptr(),
                    0,
                    null(),
                    &mut event,
                ),
                ndrange(
                    fx.queue,
                    bad,
                    3,
                    null(),
                    global.as_ptr(),
                    null(),
                    0,
                    null(),
                    null_mut(),
                ),
                task(fx.queue, bad, 0, null(), &mut event),
            ]
        };
        assert_eq!(statuses, [CL_INVALID_KERNEL; 3]);
        assert!(
            event.is_null(),
            "an event for a command that was not enqueued"
        );
    }
    release_program(program);
}

// Samplers

#[test]
fn create_sampler_without_image_support_is_invalid_operation() {
    // "CL_INVALID_OPERATION if images are not supported by any device associated with context
    // (i.e. CL_DEVICE_IMAGE_SUPPORT specified in table 4.3 is CL_FALSE)."
    let fx = Fixture::new();
    let api = api();
    let create = entry!(api.clCreateSampler);
    for (normalized, addressing, filter) in [
        (CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST),
        (CL_FALSE, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_LINEAR),
        (CL_TRUE, CL_ADDRESS_REPEAT, CL_FILTER_LINEAR),
        (CL_TRUE, CL_ADDRESS_MIRRORED_REPEAT, CL_FILTER_NEAREST),
        (CL_FALSE, CL_ADDRESS_NONE, CL_FILTER_NEAREST),
    ] {
        let mut status = 0;
        // SAFETY: plain values and a valid errcode_ret.
        let sampler = unsafe { create(fx.context, normalized, addressing, filter, &mut status) };
        assert!(sampler.is_null());
        assert_eq!(
            status, CL_INVALID_OPERATION,
            "{normalized} {addressing:#x} {filter:#x}"
        );
    }
}

#[test]
fn sampler_calls_with_a_non_sampler_handle_are_invalid_sampler() {
    // "CL_INVALID_SAMPLER if sampler is not a valid sampler object."
    let fx = Fixture::new();
    // SAFETY: the context is live.
    let mut foreign = unsafe { ForeignObject::with_dispatch_of(fx.context) };
    let api = api();
    let retain = entry!(api.clRetainSampler);
    let release = entry!(api.clReleaseSampler);
    let info = entry!(api.clGetSamplerInfo);
    for bad in [fx.context, fx.queue, foreign.handle()] {
        let mut size = 0usize;
        // SAFETY: `size` is a valid out-parameter.
        let statuses = unsafe {
            [
                retain(bad),
                release(bad),
                info(bad, CL_SAMPLER_CONTEXT, 0, null_mut(), &mut size),
            ]
        };
        assert_eq!(statuses, [CL_INVALID_SAMPLER; 3]);
    }
}

// Images

const RGBA8: cl_image_format = cl_image_format {
    image_channel_order: CL_RGBA,
    image_channel_data_type: CL_UNORM_INT8,
};

/// A zeroed image descriptor of `image_type` and the given sizes.
fn image_desc(image_type: cl_mem_object_type, size: [usize; 3], array: usize) -> cl_image_desc {
    // SAFETY: `cl_image_desc` is plain data (sizes, counts, a NULL buffer handle), for which
    // zero is valid.
    let mut desc: cl_image_desc = unsafe { std::mem::zeroed() };
    desc.image_type = image_type;
    desc.image_width = size[0];
    desc.image_height = size[1];
    desc.image_depth = size[2];
    desc.image_array_size = array;
    desc
}

#[test]
fn create_image_without_image_support_is_invalid_operation() {
    // clCreateImage: "CL_INVALID_OPERATION if there are no devices in context that support
    // images (i.e. CL_DEVICE_IMAGE_SUPPORT specified in table 4.3 is CL_FALSE)."
    let fx = Fixture::new();
    let api = api();
    let create = entry!(api.clCreateImage);
    for desc in [
        image_desc(CL_MEM_OBJECT_IMAGE1D, [16, 0, 0], 0),
        image_desc(CL_MEM_OBJECT_IMAGE1D_ARRAY, [16, 0, 0], 4),
        image_desc(CL_MEM_OBJECT_IMAGE2D, [16, 16, 0], 0),
        image_desc(CL_MEM_OBJECT_IMAGE2D_ARRAY, [16, 16, 0], 4),
        image_desc(CL_MEM_OBJECT_IMAGE3D, [8, 8, 4], 0),
    ] {
        for flags in [0, CL_MEM_READ_ONLY, CL_MEM_WRITE_ONLY] {
            let mut status = 0;
            // SAFETY: valid format and descriptor, no host pointer.
            let image =
                unsafe { create(fx.context, flags, &RGBA8, &desc, null_mut(), &mut status) };
            assert!(image.is_null());
            assert_eq!(
                status, CL_INVALID_OPERATION,
                "type {:#x} flags {flags:#x}",
                desc.image_type
            );
        }
    }
}

#[test]
fn create_image_2d_and_3d_without_image_support_are_invalid_operation() {
    // The OpenCL 1.1 forms, still in 1.2: "CL_INVALID_OPERATION if there are no devices in
    // context that support images".
    let fx = Fixture::new();
    let api = api();
    let create_2d = entry!(api.clCreateImage2D);
    let create_3d = entry!(api.clCreateImage3D);
    let (mut status_2d, mut status_3d) = (0, 0);
    // SAFETY: a valid format, sizes, no host pointer, valid errcode_ret.
    let (image_2d, image_3d) = unsafe {
        (
            create_2d(
                fx.context,
                CL_MEM_READ_WRITE,
                &RGBA8,
                16,
                16,
                0,
                null_mut(),
                &mut status_2d,
            ),
            create_3d(
                fx.context,
                CL_MEM_READ_ONLY,
                &RGBA8,
                8,
                8,
                4,
                0,
                0,
                null_mut(),
                &mut status_3d,
            ),
        )
    };
    assert!(image_2d.is_null() && image_3d.is_null());
    assert_eq!([status_2d, status_3d], [CL_INVALID_OPERATION; 2]);
}

const IMAGE_TYPES: [cl_mem_object_type; 6] = [
    CL_MEM_OBJECT_IMAGE1D,
    CL_MEM_OBJECT_IMAGE1D_ARRAY,
    CL_MEM_OBJECT_IMAGE1D_BUFFER,
    CL_MEM_OBJECT_IMAGE2D,
    CL_MEM_OBJECT_IMAGE2D_ARRAY,
    CL_MEM_OBJECT_IMAGE3D,
];

/// `clGetSupportedImageFormats` with room for `capacity` formats (NULL when 0); the status,
/// the count and the formats buffer.
fn supported_formats(
    context: cl_context,
    flags: cl_mem_flags,
    image_type: cl_mem_object_type,
    capacity: usize,
) -> (cl_int, cl_uint, Vec<cl_image_format>) {
    let api = api();
    let f = entry!(api.clGetSupportedImageFormats);
    let filler = cl_image_format {
        image_channel_order: 0x7777,
        image_channel_data_type: 0x7777,
    };
    let mut formats = vec![filler; capacity];
    let mut count = 0x5555;
    let out = if capacity == 0 {
        null_mut()
    } else {
        formats.as_mut_ptr()
    };
    // SAFETY: `out` is NULL or holds `capacity` formats; `count` is a valid out-parameter.
    let status = unsafe {
        f(
            context,
            flags,
            image_type,
            capacity as cl_uint,
            out,
            &mut count,
        )
    };
    (status, count, formats)
}

#[test]
fn supported_image_formats_are_none() {
    // "clGetSupportedImageFormats returns a union of image formats supported by all devices
    // in the context": no device supports images, so the list is empty and nothing is
    // written to image_formats.
    let fx = Fixture::new();
    for image_type in IMAGE_TYPES {
        for flags in [
            0,
            CL_MEM_READ_WRITE,
            CL_MEM_READ_ONLY,
            CL_MEM_WRITE_ONLY,
            CL_MEM_READ_ONLY | CL_MEM_HOST_NO_ACCESS,
        ] {
            let (status, count, _) = supported_formats(fx.context, flags, image_type, 0);
            assert_eq!(
                (status, count),
                (CL_SUCCESS, 0),
                "{image_type:#x} {flags:#x}"
            );
            let (status, count, formats) = supported_formats(fx.context, flags, image_type, 4);
            assert_eq!(
                (status, count),
                (CL_SUCCESS, 0),
                "{image_type:#x} {flags:#x}"
            );
            let untouched = |f: &cl_image_format| {
                f.image_channel_order == 0x7777 && f.image_channel_data_type == 0x7777
            };
            assert!(formats.iter().all(untouched), "formats were written");
        }
    }
}

#[test]
fn supported_image_formats_argument_errors_are_invalid_value() {
    // "CL_INVALID_VALUE if flags or image_type are not valid, or if num_entries is 0 and
    // image_formats is not NULL."; "CL_INVALID_CONTEXT if context is not a valid context."
    let fx = Fixture::new();
    let (status, _, _) = supported_formats(fx.context, 0, CL_MEM_OBJECT_BUFFER, 0);
    assert_eq!(status, CL_INVALID_VALUE, "a buffer is not an image type");
    let (status, _, _) = supported_formats(fx.context, 0, 0x7777, 0);
    assert_eq!(status, CL_INVALID_VALUE, "unknown image type");
    let (status, _, _) = supported_formats(
        fx.context,
        CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY,
        CL_MEM_OBJECT_IMAGE2D,
        0,
    );
    assert_eq!(status, CL_INVALID_VALUE, "invalid flags");
    let api = api();
    let f = entry!(api.clGetSupportedImageFormats);
    let mut formats = [RGBA8; 2];
    // SAFETY: `formats` holds two entries; 0 are promised.
    let status = unsafe {
        f(
            fx.context,
            0,
            CL_MEM_OBJECT_IMAGE2D,
            0,
            formats.as_mut_ptr(),
            null_mut(),
        )
    };
    assert_eq!(status, CL_INVALID_VALUE, "num_entries 0 with a buffer");
    let (status, _, _) = supported_formats(fx.queue, 0, CL_MEM_OBJECT_IMAGE2D, 0);
    assert_eq!(status, CL_INVALID_CONTEXT);
}

#[test]
fn image_calls_on_a_buffer_are_invalid_mem_object() {
    // "CL_INVALID_MEM_OBJECT if image is not a valid image object" (clGetImageInfo,
    // clEnqueueReadImage, clEnqueueWriteImage, clEnqueueFillImage, clEnqueueMapImage);
    // "... if src_image and dst_image are not valid image objects" (clEnqueueCopyImage);
    // "... if src_image is not a valid image object or dst_buffer is not a valid buffer
    // object" (clEnqueueCopyImageToBuffer), and the mirror rule of
    // clEnqueueCopyBufferToImage. A buffer is a memory object but not an image.
    let fx = Fixture::new();
    let buffer = fx.buffer(4096);
    let other = fx.buffer(4096);
    let api = api();
    let origin = [0usize; 3];
    let region = [4usize, 4, 1];
    let mut host = vec![0u8; 4096];
    let color = [0.5f32; 4];
    let mut size = 0usize;
    let (mut row_pitch, mut slice_pitch) = (0usize, 0usize);
    let mut map_status = 0;
    let get_info = entry!(api.clGetImageInfo);
    let read = entry!(api.clEnqueueReadImage);
    let write = entry!(api.clEnqueueWriteImage);
    let copy = entry!(api.clEnqueueCopyImage);
    let fill = entry!(api.clEnqueueFillImage);
    let to_buffer = entry!(api.clEnqueueCopyImageToBuffer);
    let from_buffer = entry!(api.clEnqueueCopyBufferToImage);
    let map = entry!(api.clEnqueueMapImage);
    // SAFETY: blocking transfers of a 4 x 4 region of 4-byte pixels within `host`; every
    // out-parameter is valid.
    let (statuses, mapped) = unsafe {
        let statuses = [
            get_info(buffer, CL_IMAGE_WIDTH, 0, null_mut(), &mut size),
            read(
                fx.queue,
                buffer,
                CL_TRUE,
                origin.as_ptr(),
                region.as_ptr(),
                0,
                0,
                host.as_mut_ptr().cast(),
                0,
                null(),
                null_mut(),
            ),
            write(
                fx.queue,
                buffer,
                CL_TRUE,
                origin.as_ptr(),
                region.as_ptr(),
                0,
                0,
                host.as_ptr().cast(),
                0,
                null(),
                null_mut(),
            ),
            copy(
                fx.queue,
                buffer,
                other,
                origin.as_ptr(),
                origin.as_ptr(),
                region.as_ptr(),
                0,
                null(),
                null_mut(),
            ),
            fill(
                fx.queue,
                buffer,
                color.as_ptr().cast(),
                origin.as_ptr(),
                region.as_ptr(),
                0,
                null(),
                null_mut(),
            ),
            to_buffer(
                fx.queue,
                buffer,
                other,
                origin.as_ptr(),
                region.as_ptr(),
                0,
                0,
                null(),
                null_mut(),
            ),
            from_buffer(
                fx.queue,
                other,
                buffer,
                0,
                origin.as_ptr(),
                region.as_ptr(),
                0,
                null(),
                null_mut(),
            ),
        ];
        let mapped = map(
            fx.queue,
            buffer,
            CL_TRUE,
            CL_MAP_READ,
            origin.as_ptr(),
            region.as_ptr(),
            &mut row_pitch,
            &mut slice_pitch,
            0,
            null(),
            null_mut(),
            &mut map_status,
        );
        (statuses, mapped)
    };
    assert_eq!(statuses, [CL_INVALID_MEM_OBJECT; 7]);
    assert!(mapped.is_null());
    assert_eq!(map_status, CL_INVALID_MEM_OBJECT);
    for mem in [buffer, other] {
        assert_eq!(api.release_mem_object(mem), CL_SUCCESS);
    }
}

// Unloading the compiler

#[test]
fn unloading_the_platform_compiler_succeeds() {
    // clUnloadPlatformCompiler: "This function returns CL_SUCCESS if the function is executed
    // successfully." (and OpenCL 1.1's clUnloadCompiler: "This call currently always returns
    // CL_SUCCESS.")
    let api = api();
    let unload = entry!(api.clUnloadPlatformCompiler);
    let unload_all = entry!(api.clUnloadCompiler);
    // SAFETY: a valid platform handle.
    assert_eq!(unsafe { unload(api.platform()) }, CL_SUCCESS);
    // SAFETY: no arguments.
    assert_eq!(unsafe { unload_all() }, CL_SUCCESS);
    // Programs can still be created and built afterwards.
    let fx = Fixture::new();
    let program = fx.program(&[SOURCE]);
    assert_eq!(build(program, 0, None, None), CL_COMPILER_NOT_AVAILABLE);
    release_program(program);
}

#[test]
fn unloading_the_compiler_of_a_non_platform_is_invalid_platform() {
    // "CL_INVALID_PLATFORM if platform is not a valid platform."
    let api = api();
    let unload = entry!(api.clUnloadPlatformCompiler);
    // SAFETY: a live handle of another type.
    assert_eq!(unsafe { unload(device()) }, CL_INVALID_PLATFORM);
}
