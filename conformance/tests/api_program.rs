//! Programs and kernels through the API (OpenCL 1.2 §5.6–§5.8; the CTS area "api"): program
//! creation from source, builds with their status, log and callback, kernel objects and
//! their queries, argument setting, the argument checks of `clEnqueueNDRangeKernel` /
//! `clEnqueueTask`, samplers, and the image calls' handle checks. Build options, separate
//! compilation and linking, binaries and the compiler's unloading are the `compiler` suite.
//!
//! ocl-icd answers calls on a NULL handle itself; to reach clift with an invalid handle the
//! tests pass live handles of other types, or a [`ForeignObject`].

use std::ffi::c_char;
use std::ptr::{null, null_mut};

use clift_conformance::*;

mod program_support;

use program_support::*;

// The device

#[test]
fn device_reports_a_compiler_a_linker_and_image_support() {
    // CL_DEVICE_COMPILER_AVAILABLE: "Is CL_FALSE if the implementation does not have a
    // compiler available to compile the program source. Is CL_TRUE if the compiler is
    // available." (likewise CL_DEVICE_LINKER_AVAILABLE). clift compiles OpenCL C and
    // supports images.
    assert!(api().device_bool(device(), CL_DEVICE_COMPILER_AVAILABLE));
    assert!(api().device_bool(device(), CL_DEVICE_LINKER_AVAILABLE));
    assert!(api().device_bool(device(), CL_DEVICE_IMAGE_SUPPORT));
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
    let program = fx.program_c(&parts);
    let expected: String = parts.iter().map(|s| s.to_str().unwrap()).collect();
    assert_eq!(
        string(&program_info(program, CL_PROGRAM_SOURCE).unwrap()),
        expected
    );
    // The concatenation is what is compiled: the macro of the first string reaches the
    // kernel of the others.
    assert_eq!(build(program, 0, None, None), CL_SUCCESS);
    let k = kernel(program, c"k");
    let out = fx.buffer(4);
    assert_eq!(api().set_kernel_arg_mem(k, 0, out), CL_SUCCESS);
    fx.run_1d(k, 1, None);
    assert_eq!(scalar::<i32>(&fx.read(out, 4)), 4);
    release_mem(out);
    release_kernel(k);
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
    let third: &[u8] = b"constant int x = 1;\0garbage";
    let strings = [
        first.as_ptr().cast::<c_char>(),
        second.as_ptr(),
        third.as_ptr().cast::<c_char>(),
    ];
    let lengths = [18, 0, 19];
    // SAFETY: each string holds at least its given length; the zero-length one is
    // NUL-terminated.
    let (program, status) = unsafe {
        api().create_program_with_source_raw(fx.context, 3, strings.as_ptr(), lengths.as_ptr())
    };
    assert_eq!(status, CL_SUCCESS);
    let source = program_info(program, CL_PROGRAM_SOURCE).unwrap();
    assert_eq!(
        string(&source),
        "kernel void a() {}\n/* terminated */\nconstant int x = 1;"
    );
    // What the lengths cut off is not compiled: the program builds.
    assert_eq!(
        build(program, 0, None, None),
        CL_SUCCESS,
        "{}",
        build_log(program)
    );
    release_program(program);
}

#[test]
fn program_reports_its_context_and_devices() {
    // CL_PROGRAM_CONTEXT, CL_PROGRAM_NUM_DEVICES, CL_PROGRAM_DEVICES ("the list of devices
    // associated with the program object": those of the context), CL_PROGRAM_REFERENCE_COUNT.
    let fx = Fixture::new();
    let program = fx.program_c(&[SOURCE]);
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
    assert_eq!(api().retain_program(program), CL_SUCCESS);
    assert_eq!(
        scalar::<cl_uint>(&program_info(program, CL_PROGRAM_REFERENCE_COUNT).unwrap()),
        2
    );
    release_program(program);
    release_program(program);
}

#[test]
fn create_program_without_strings_is_invalid_value() {
    // "CL_INVALID_VALUE if count is zero or if strings or any entry in strings is NULL."
    let fx = Fixture::new();
    let strings = [SOURCE.as_ptr(), null()];
    // SAFETY: the entries are NUL-terminated or NULL (the error under test).
    unsafe {
        let (program, status) =
            api().create_program_with_source_raw(fx.context, 0, strings.as_ptr(), null());
        assert_eq!((program, status), (null_mut(), CL_INVALID_VALUE), "count 0");
        let (program, status) = api().create_program_with_source_raw(fx.context, 1, null(), null());
        assert_eq!(
            (program, status),
            (null_mut(), CL_INVALID_VALUE),
            "strings NULL"
        );
        let (program, status) =
            api().create_program_with_source_raw(fx.context, 2, strings.as_ptr(), null());
        assert_eq!(
            (program, status),
            (null_mut(), CL_INVALID_VALUE),
            "an entry NULL"
        );
    }
}

#[test]
fn create_program_on_a_non_context_is_invalid_context() {
    // "CL_INVALID_CONTEXT if context is not a valid context."
    let fx = Fixture::new();
    let strings = [SOURCE.as_ptr()];
    // SAFETY: one NUL-terminated string.
    let (program, status) =
        unsafe { api().create_program_with_source_raw(fx.queue, 1, strings.as_ptr(), null()) };
    assert_eq!((program, status), (null_mut(), CL_INVALID_CONTEXT));
}

// clBuildProgram: success

#[test]
fn program_is_not_built_before_a_build() {
    // CL_PROGRAM_BUILD_STATUS: "CL_BUILD_NONE. The build status returned if no clBuildProgram,
    // clCompileProgram or clLinkProgram has been performed on the specified program object
    // for device." CL_PROGRAM_BINARY_TYPE: "CL_PROGRAM_BINARY_TYPE_NONE - There is no binary
    // associated with device." Options and log are then empty strings.
    let fx = Fixture::new();
    let program = fx.program_c(&[SOURCE]);
    assert_eq!(build_status(program), CL_BUILD_NONE);
    assert_eq!(binary_type(program), CL_PROGRAM_BINARY_TYPE_NONE);
    assert_eq!(
        string(&build_info(program, device(), CL_PROGRAM_BUILD_OPTIONS).unwrap()),
        ""
    );
    assert_eq!(build_log(program), "");
    release_program(program);
}

#[test]
fn a_successful_build_records_success_options_and_an_executable() {
    // clBuildProgram "returns CL_SUCCESS if the function is executed successfully".
    // CL_PROGRAM_BUILD_STATUS: "CL_BUILD_SUCCESS. The build status returned if clBuildProgram
    // ... was successful"; CL_PROGRAM_BUILD_OPTIONS: "the build, compile or link options
    // specified by the options argument"; CL_PROGRAM_BINARY_TYPE:
    // "CL_PROGRAM_BINARY_TYPE_EXECUTABLE - An executable program binary is associated with
    // device."
    let fx = Fixture::new();
    let program = fx.program_c(&[SOURCE]);
    let options = c"-D N=4 -cl-mad-enable";
    assert_eq!(
        build(program, 1, Some(&[device()]), Some(options)),
        CL_SUCCESS,
        "{}",
        build_log(program)
    );
    assert_eq!(build_status(program), CL_BUILD_SUCCESS);
    assert_eq!(binary_type(program), CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
    assert_eq!(
        string(&build_info(program, device(), CL_PROGRAM_BUILD_OPTIONS).unwrap()),
        options.to_str().unwrap()
    );
    // The log is a string (possibly empty) after a clean build.
    let _ = build_log(program);
    // A second build without options records the empty options.
    assert_eq!(build(program, 0, None, None), CL_SUCCESS);
    assert_eq!(
        string(&build_info(program, device(), CL_PROGRAM_BUILD_OPTIONS).unwrap()),
        ""
    );
    release_program(program);
}

#[test]
fn kernel_names_are_listed_in_source_order() {
    // CL_PROGRAM_NUM_KERNELS: "the number of kernels declared in program that can be
    // created with clCreateKernel" (a size_t); CL_PROGRAM_KERNEL_NAMES: "a semi-colon
    // separated list of kernel names in program that can be created with clCreateKernel".
    // Functions that are not kernels are not listed; clift lists kernels in source order.
    let fx = Fixture::new();
    for (source, names) in [
        (
            "kernel void a(global int *p) { p[0] = 1; }\n\
             int helper(int x) { return x + 1; }\n\
             kernel void b(global int *p) { p[0] = helper(2); }\n",
            "a;b",
        ),
        (
            "__kernel void zeta(void) {}\n__kernel void alpha(void) {}\n\
             __kernel void mid(void) {}\n",
            "zeta;alpha;mid",
        ),
        ("int only_a_function(int x) { return x; }\n", ""),
    ] {
        let program = fx.built(source, c"");
        let count = names.split(';').filter(|n| !n.is_empty()).count();
        assert_eq!(
            scalar::<usize>(&program_info(program, CL_PROGRAM_NUM_KERNELS).unwrap()),
            count,
            "{source}"
        );
        assert_eq!(
            string(&program_info(program, CL_PROGRAM_KERNEL_NAMES).unwrap()),
            names
        );
        release_program(program);
    }
}

// clBuildProgram: failure and the log

#[test]
fn a_failed_build_is_build_program_failure_with_build_error() {
    // "CL_BUILD_PROGRAM_FAILURE if there is a failure to build the program executable."
    // CL_PROGRAM_BUILD_STATUS: "CL_BUILD_ERROR. The build status returned if clBuildProgram
    // ... generated an error." No executable: "CL_INVALID_PROGRAM_EXECUTABLE if there is no
    // successfully built executable for program" (clCreateKernel), and for
    // CL_PROGRAM_NUM_KERNELS / CL_PROGRAM_KERNEL_NAMES.
    let fx = Fixture::new();
    let program = fx.program("kernel void k(global int *a) { a[0] = nope; }\n");
    assert_eq!(build(program, 0, None, None), CL_BUILD_PROGRAM_FAILURE);
    assert_eq!(build_status(program), CL_BUILD_ERROR);
    assert_ne!(binary_type(program), CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
    let (k, status) = api().create_kernel_raw(program, Some(c"k"));
    assert_eq!((k, status), (null_mut(), CL_INVALID_PROGRAM_EXECUTABLE));
    for param in [CL_PROGRAM_NUM_KERNELS, CL_PROGRAM_KERNEL_NAMES] {
        assert_eq!(
            program_info(program, param),
            Err(CL_INVALID_PROGRAM_EXECUTABLE)
        );
    }
    release_program(program);
}

#[test]
fn the_log_shows_the_location_the_source_line_and_a_caret() {
    // The spec leaves the log's content to the implementation; clift's contract
    // (docs: compiler/src/frontend/diag.rs) is the usual compiler format:
    // `<file>:<line>:<col>: error: <message>`, then the source line, then a caret under the
    // column (lines and columns counted from 1).
    let fx = Fixture::new();
    let source = "kernel void k(global int *a)\n{\n    a[0] = missing + 1;\n}\n";
    let program = fx.program(source);
    assert_eq!(build(program, 0, None, None), CL_BUILD_PROGRAM_FAILURE);
    let log = build_log(program);
    let lines: Vec<&str> = log.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains(":3:12: error: "))
        .unwrap_or_else(|| panic!("no error at 3:12 in the log:\n{log}"));
    let header = lines[at];
    let file = &header[..header.find(":3:12:").unwrap()];
    assert!(!file.is_empty(), "no file name: {header}");
    assert!(
        header.contains("missing"),
        "the message names the identifier: {header}"
    );
    assert_eq!(
        lines.get(at + 1).copied(),
        Some("    a[0] = missing + 1;"),
        "the source line follows:\n{log}"
    );
    let caret = lines.get(at + 2).copied().unwrap_or("");
    assert_eq!(
        caret.find('^'),
        Some(11),
        "the caret is under column 12:\n{log}"
    );
    assert!(
        caret[..11].chars().all(|c| c == ' '),
        "only spaces before the caret: {caret:?}"
    );
    release_program(program);
}

#[test]
fn every_error_of_a_program_is_reported() {
    // A build reports all of its errors, not just the first (clift's contract: stages go on
    // after an error so that the log lists every problem).
    let fx = Fixture::new();
    let source = "kernel void k(global int *a)\n\
                  {\n\
                  \x20   a[0] = first_missing;\n\
                  \x20   a[1] = 2;\n\
                  \x20   a[2] = second_missing;\n\
                  \x20 a[3] = no_such_function(1);\n\
                  }\n";
    let program = fx.program(source);
    assert_eq!(build(program, 0, None, None), CL_BUILD_PROGRAM_FAILURE);
    let log = build_log(program);
    for (line, col, name) in [
        (3, 12, "first_missing"),
        (5, 12, "second_missing"),
        (6, 10, "no_such_function"),
    ] {
        let found = errors_at(&log, line, col);
        assert!(
            found.iter().any(|l| l.contains(name)),
            "no error naming {name} at {line}:{col} in the log:\n{log}"
        );
    }
    assert!(
        !log.contains(":4:"),
        "the correct line 4 is not reported:\n{log}"
    );
    release_program(program);
}

#[test]
fn a_syntax_error_is_reported_with_its_location() {
    // A parse error fails the build like a semantic one, at the token where the parse
    // failed (clift's log contract).
    let fx = Fixture::new();
    let program = fx.program("kernel void k(global int *a) {\n  a[0] = 1 +;\n}\n");
    assert_eq!(build(program, 0, None, None), CL_BUILD_PROGRAM_FAILURE);
    let log = build_log(program);
    assert!(
        !errors_at(&log, 2, 13).is_empty(),
        "no error at 2:13 (the ';'):\n{log}"
    );
    release_program(program);
}

// clCreateKernel, clCreateKernelsInProgram

#[test]
fn create_kernel_errors() {
    // clCreateKernel: "CL_INVALID_KERNEL_NAME if kernel_name is not found in program";
    // "CL_INVALID_VALUE if kernel_name is NULL"; "CL_INVALID_PROGRAM_EXECUTABLE if there is
    // no successfully built executable for program". A function that is not a kernel is not
    // found.
    let fx = Fixture::new();
    let source =
        "int helper(int x) { return x; }\nkernel void k(global int *a) { a[0] = helper(1); }\n";
    let program = fx.program(source);
    let (k, status) = api().create_kernel_raw(program, Some(c"k"));
    assert_eq!((k, status), (null_mut(), CL_INVALID_PROGRAM_EXECUTABLE));
    assert_eq!(build(program, 0, None, None), CL_SUCCESS);
    for name in [c"nope", c"helper", c"K", c""] {
        let (k, status) = api().create_kernel_raw(program, Some(name));
        assert_eq!(
            (k, status),
            (null_mut(), CL_INVALID_KERNEL_NAME),
            "{name:?}"
        );
    }
    let (k, status) = api().create_kernel_raw(program, None);
    assert_eq!((k, status), (null_mut(), CL_INVALID_VALUE));
    let k = kernel(program, c"k");
    release_kernel(k);
    release_program(program);
}

#[test]
fn create_kernel_without_an_executable_is_invalid_program_executable() {
    // clCreateKernel: "CL_INVALID_PROGRAM_EXECUTABLE if there is no successfully built
    // executable for program"; clCreateKernelsInProgram: "... for any device in program";
    // clGetProgramInfo: "CL_INVALID_PROGRAM_EXECUTABLE if param_name is
    // CL_PROGRAM_NUM_KERNELS or CL_PROGRAM_KERNEL_NAMES and a successful program executable
    // has not been built for at least one device".
    let fx = Fixture::new();
    let program = fx.program("kernel void add(global int *a) { a[0] = undefined_name; }");
    for built in [false, true] {
        if built {
            assert_eq!(build(program, 0, None, None), CL_BUILD_PROGRAM_FAILURE);
        }
        let (kernel, status) = api().create_kernel_raw(program, Some(c"add"));
        assert_eq!(
            (kernel, status),
            (null_mut(), CL_INVALID_PROGRAM_EXECUTABLE),
            "after build: {built}"
        );
        let mut count = 77;
        assert_eq!(
            api().create_kernels_in_program_raw(program, 0, None, Some(&mut count)),
            CL_INVALID_PROGRAM_EXECUTABLE,
            "after build: {built}"
        );
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
fn create_kernels_in_program_counts_and_creates_every_kernel() {
    // "num_kernels_ret is the number of kernels in program"; "kernels is the buffer where
    // the kernel objects for kernels in program will be returned"; "CL_INVALID_VALUE if
    // kernels is not NULL and num_kernels is less than the number of kernels in program."
    let fx = Fixture::new();
    let program = fx.built(
        "kernel void first(global int *a) { a[0] = 1; }\n\
         kernel void second(global int *a, int b) { a[0] = b; }\n\
         kernel void third(void) {}\n",
        c"",
    );
    let mut count = 0;
    assert_eq!(
        api().create_kernels_in_program_raw(program, 0, None, Some(&mut count)),
        CL_SUCCESS
    );
    assert_eq!(count, 3);
    let mut kernels = [null_mut(); 4];
    assert_eq!(
        api().create_kernels_in_program_raw(program, 2, Some(&mut kernels[..2]), None),
        CL_INVALID_VALUE
    );
    assert_eq!(
        kernels,
        [null_mut(); 4],
        "nothing created by the failed call"
    );
    let mut created = 0;
    assert_eq!(
        api().create_kernels_in_program_raw(program, 4, Some(&mut kernels), Some(&mut created)),
        CL_SUCCESS
    );
    assert_eq!(created, 3);
    assert!(kernels[3].is_null(), "only three entries are written");
    let mut names: Vec<String> = kernels[..3]
        .iter()
        .map(|&k| kernel_string(k, CL_KERNEL_FUNCTION_NAME))
        .collect();
    names.sort();
    assert_eq!(names, ["first", "second", "third"]);
    for &k in &kernels[..3] {
        assert_eq!(kernel_scalar::<cl_uint>(k, CL_KERNEL_REFERENCE_COUNT), 1);
        release_kernel(k);
    }
    release_program(program);
}

// Kernel objects: info

#[test]
fn kernel_info_answers() {
    // CL_KERNEL_FUNCTION_NAME, CL_KERNEL_NUM_ARGS, CL_KERNEL_REFERENCE_COUNT,
    // CL_KERNEL_CONTEXT, CL_KERNEL_PROGRAM; "CL_INVALID_VALUE if param_name is not valid".
    let fx = Fixture::new();
    let program = fx.built(
        "kernel void sum3(global float *a, float b, local int *c) { a[0] = b; }\n",
        c"",
    );
    let k = kernel(program, c"sum3");
    assert_eq!(kernel_string(k, CL_KERNEL_FUNCTION_NAME), "sum3");
    assert_eq!(kernel_scalar::<cl_uint>(k, CL_KERNEL_NUM_ARGS), 3);
    assert_eq!(kernel_scalar::<cl_uint>(k, CL_KERNEL_REFERENCE_COUNT), 1);
    assert_eq!(api().retain_kernel(k), CL_SUCCESS);
    assert_eq!(kernel_scalar::<cl_uint>(k, CL_KERNEL_REFERENCE_COUNT), 2);
    release_kernel(k);
    assert_eq!(kernel_scalar::<cl_uint>(k, CL_KERNEL_REFERENCE_COUNT), 1);
    assert_eq!(
        kernel_scalar::<cl_context>(k, CL_KERNEL_CONTEXT),
        fx.context
    );
    assert_eq!(kernel_scalar::<cl_program>(k, CL_KERNEL_PROGRAM), program);
    assert_eq!(kernel_string(k, CL_KERNEL_ATTRIBUTES), "");
    assert_eq!(api().kernel_info(k, 0x7777), Err(CL_INVALID_VALUE));
    // The kernel keeps its program usable after the application's release of it.
    release_program(program);
    assert_eq!(kernel_scalar::<cl_program>(k, CL_KERNEL_PROGRAM), program);
    release_kernel(k);
}

#[test]
fn kernel_attributes_are_reported_as_written() {
    // CL_KERNEL_ATTRIBUTES: "Returns any attributes specified using the __attribute__
    // qualifier with the kernel function declaration in the program source. ... The
    // attributes are returned as they were declared inside __attribute__((...)), with any
    // surrounding whitespace and embedded newlines removed. When multiple attributes are
    // present, they are returned as a single, space delimited string."
    let fx = Fixture::new();
    let program = fx.built(
        "__attribute__((reqd_work_group_size(4,1,1)))\n\
         kernel void one(global int *a) { a[0] = 1; }\n\
         __kernel __attribute__((work_group_size_hint(8,2,1))) __attribute__((vec_type_hint(float4)))\n\
         void two(global int *a) { a[0] = 2; }\n",
        c"",
    );
    let one = kernel(program, c"one");
    assert_eq!(
        kernel_string(one, CL_KERNEL_ATTRIBUTES),
        "reqd_work_group_size(4,1,1)"
    );
    let two = kernel(program, c"two");
    assert_eq!(
        kernel_string(two, CL_KERNEL_ATTRIBUTES),
        "work_group_size_hint(8,2,1) vec_type_hint(float4)"
    );
    release_kernel(one);
    release_kernel(two);
    release_program(program);
}

#[test]
fn kernel_calls_with_a_non_kernel_handle_are_invalid_kernel() {
    // "CL_INVALID_KERNEL if kernel is not a valid kernel object" (clRetainKernel,
    // clReleaseKernel, clSetKernelArg, clGetKernelInfo, clGetKernelWorkGroupInfo,
    // clGetKernelArgInfo).
    let fx = Fixture::new();
    let program = fx.program_c(&[SOURCE]);
    // SAFETY: the context is live.
    let mut foreign = unsafe { ForeignObject::with_dispatch_of(fx.context) };
    for bad in [program, fx.context, foreign.handle()] {
        let statuses = [
            api().retain_kernel(bad),
            api().release_kernel(bad),
            api().set_kernel_arg(bad, 1, 5i32),
            api()
                .kernel_info(bad, CL_KERNEL_NUM_ARGS)
                .err()
                .unwrap_or(0),
            api()
                .kernel_work_group_info(bad, device(), CL_KERNEL_WORK_GROUP_SIZE)
                .err()
                .unwrap_or(0),
            api()
                .kernel_arg_info(bad, 0, CL_KERNEL_ARG_NAME)
                .err()
                .unwrap_or(0),
        ];
        assert_eq!(statuses, [CL_INVALID_KERNEL; 6]);
    }
    // The program is untouched by the calls that named it as a kernel.
    assert_eq!(
        scalar::<cl_uint>(&program_info(program, CL_PROGRAM_REFERENCE_COUNT).unwrap()),
        1
    );
    release_program(program);
}

// Kernel objects: work-group info

#[test]
fn work_group_info_answers() {
    // clGetKernelWorkGroupInfo: CL_KERNEL_WORK_GROUP_SIZE "the maximum work-group size that
    // can be used to execute a kernel on a specific device" (at most
    // CL_DEVICE_MAX_WORK_GROUP_SIZE); CL_KERNEL_COMPILE_WORK_GROUP_SIZE "the work-group size
    // specified by the __attribute__((reqd_work_group_size(X, Y, Z))) qualifier ... If the
    // work-group size is not specified ... (0, 0, 0) is returned";
    // CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE "the preferred multiple of work-group size
    // for launch" (a performance hint, at most the work-group size); CL_KERNEL_PRIVATE_MEM_SIZE
    // a cl_ulong. "device may be NULL if there is only one device associated with kernel."
    let fx = Fixture::new();
    let program = fx.built(
        "kernel void plain(global int *a) { a[get_global_id(0)] = 1; }\n\
         __attribute__((reqd_work_group_size(4,2,1)))\n\
         kernel void fixed(global int *a) { a[get_global_id(0)] = 2; }\n",
        c"",
    );
    let max_group = api().device_size(device(), CL_DEVICE_MAX_WORK_GROUP_SIZE);
    let plain = kernel(program, c"plain");
    let fixed = kernel(program, c"fixed");
    let size: usize = work_group_scalar(plain, CL_KERNEL_WORK_GROUP_SIZE);
    assert!((1..=max_group).contains(&size), "{size}");
    let reqd: usize = work_group_scalar(fixed, CL_KERNEL_WORK_GROUP_SIZE);
    assert!((8..=max_group).contains(&reqd), "{reqd}");
    let compile = |k| {
        array::<usize>(
            &api()
                .kernel_work_group_info(k, device(), CL_KERNEL_COMPILE_WORK_GROUP_SIZE)
                .unwrap(),
        )
    };
    assert_eq!(compile(plain), [0, 0, 0]);
    assert_eq!(compile(fixed), [4, 2, 1]);
    let multiple: usize = work_group_scalar(plain, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE);
    assert!((1..=size).contains(&multiple), "{multiple}");
    let _: cl_ulong = work_group_scalar(plain, CL_KERNEL_PRIVATE_MEM_SIZE);
    let _: cl_ulong = work_group_scalar(plain, CL_KERNEL_LOCAL_MEM_SIZE);
    // NULL device: the kernel's only device.
    assert_eq!(
        api().kernel_work_group_info(plain, null_mut(), CL_KERNEL_WORK_GROUP_SIZE),
        Ok(size.to_ne_bytes().to_vec())
    );
    release_kernel(plain);
    release_kernel(fixed);
    release_program(program);
}

#[test]
fn work_group_info_errors() {
    // "CL_INVALID_VALUE if param_name is CL_KERNEL_GLOBAL_WORK_SIZE and device is not a
    // custom device or kernel is not a built-in kernel"; "CL_INVALID_VALUE if param_name is
    // not valid"; "CL_INVALID_DEVICE if device is not in the list of devices associated with
    // kernel".
    let fx = Fixture::new();
    let program = fx.built("kernel void k(global int *a) { a[0] = 1; }\n", c"");
    let k = kernel(program, c"k");
    assert_eq!(
        api().kernel_work_group_info(k, device(), CL_KERNEL_GLOBAL_WORK_SIZE),
        Err(CL_INVALID_VALUE)
    );
    assert_eq!(
        api().kernel_work_group_info(k, device(), 0x7777),
        Err(CL_INVALID_VALUE)
    );
    assert_eq!(
        api().kernel_work_group_info(k, fx.context, CL_KERNEL_WORK_GROUP_SIZE),
        Err(CL_INVALID_DEVICE)
    );
    release_kernel(k);
    release_program(program);
}

#[test]
fn local_mem_size_counts_local_variables_and_local_arguments() {
    // CL_KERNEL_LOCAL_MEM_SIZE: "the amount of local memory in bytes being used by a kernel.
    // This includes local memory that may be needed by an implementation to execute the
    // kernel, variables declared inside the kernel with the __local address qualifier and
    // local memory to be allocated for arguments to the kernel declared as pointers with
    // the __local address qualifier and whose size is specified with clSetKernelArg."
    let fx = Fixture::new();
    let program = fx.built(
        "kernel void k(global float *out, local float *scratch) {\n\
         \x20 local float tile[64];\n\
         \x20 size_t l = get_local_id(0);\n\
         \x20 tile[l] = l; scratch[l] = tile[l];\n\
         \x20 out[get_global_id(0)] = scratch[l];\n}\n",
        c"",
    );
    let k = kernel(program, c"k");
    let local_limit = api().device_ulong(device(), CL_DEVICE_LOCAL_MEM_SIZE);
    let before: cl_ulong = work_group_scalar(k, CL_KERNEL_LOCAL_MEM_SIZE);
    assert!(
        (256..=local_limit).contains(&before),
        "a 64-float local array: {before}"
    );
    assert_eq!(api().set_kernel_arg_local(k, 1, 1000), CL_SUCCESS);
    let after: cl_ulong = work_group_scalar(k, CL_KERNEL_LOCAL_MEM_SIZE);
    assert!(
        after >= before + 1000 && after <= local_limit,
        "with 1000 bytes of local argument: {before} -> {after}"
    );
    release_kernel(k);
    release_program(program);
}

#[test]
fn private_mem_size_counts_a_private_array() {
    // CL_KERNEL_PRIVATE_MEM_SIZE: "the minimum amount of private memory, in bytes, used by
    // each work-item in the kernel. This value may include any private memory needed by an
    // implementation to execute the kernel, including that used by the language built-ins
    // and variable declared inside the kernel with the __private qualifier." An array
    // indexed at run time has to live in memory.
    let fx = Fixture::new();
    let program = fx.built(
        "kernel void k(global int *a, int n) {\n\
         \x20 int tmp[64];\n\
         \x20 for (int i = 0; i < 64; i++) tmp[i] = a[i] * n;\n\
         \x20 a[0] = tmp[n & 63];\n}\n",
        c"",
    );
    let k = kernel(program, c"k");
    let private: cl_ulong = work_group_scalar(k, CL_KERNEL_PRIVATE_MEM_SIZE);
    assert!(private >= 256, "an int[64] indexed at run time: {private}");
    release_kernel(k);
    release_program(program);
}

// Kernel objects: argument info

const ARG_INFO_SOURCE: &str = "kernel void k(global const float * restrict in,\n\
     global volatile uint *out,\n\
     unsigned int n,\n\
     local float4 *tmp,\n\
     constant int *table,\n\
     float2 v,\n\
     global int * const fixed)\n\
     { out[0] = n; }\n";

#[test]
fn argument_info_needs_the_kernel_arg_info_option() {
    // "CL_KERNEL_ARG_INFO_NOT_AVAILABLE if the argument information is not available for
    // kernel." "Kernel argument information is only available if the program object
    // associated with kernel is created with clCreateProgramWithSource and the program
    // executable is built with the -cl-kernel-arg-info option specified in options".
    let fx = Fixture::new();
    let program = fx.built(ARG_INFO_SOURCE, c"");
    let k = kernel(program, c"k");
    for param in [
        CL_KERNEL_ARG_ADDRESS_QUALIFIER,
        CL_KERNEL_ARG_ACCESS_QUALIFIER,
        CL_KERNEL_ARG_TYPE_NAME,
        CL_KERNEL_ARG_TYPE_QUALIFIER,
        CL_KERNEL_ARG_NAME,
    ] {
        assert_eq!(
            api().kernel_arg_info(k, 0, param),
            Err(CL_KERNEL_ARG_INFO_NOT_AVAILABLE),
            "{param:#x}"
        );
    }
    release_kernel(k);
    release_program(program);
}

#[test]
fn argument_info_reports_names_types_and_qualifiers() {
    // clGetKernelArgInfo with -cl-kernel-arg-info: CL_KERNEL_ARG_NAME "the name specified
    // for the argument"; CL_KERNEL_ARG_TYPE_NAME "the argument type name as it was declared
    // with any whitespace removed. If argument type name is an unsigned scalar type (i.e.
    // unsigned char, unsigned short, unsigned int, unsigned long), uchar, ushort, uint and
    // ulong will be returned. The argument type name returned does not include any type
    // qualifiers"; CL_KERNEL_ARG_ADDRESS_QUALIFIER ("If no address qualifier is specified,
    // the default address qualifier which is CL_KERNEL_ARG_ADDRESS_PRIVATE is returned");
    // CL_KERNEL_ARG_ACCESS_QUALIFIER ("If argument is not an image type,
    // CL_KERNEL_ARG_ACCESS_NONE is returned"); CL_KERNEL_ARG_TYPE_QUALIFIER: "CL_KERNEL_ARG_
    // TYPE_VOLATILE is returned if the argument is a pointer and the referenced type is
    // declared with the volatile qualifier ... CL_KERNEL_ARG_TYPE_CONST is returned if the
    // argument is a pointer and the referenced type is declared with the restrict or const
    // qualifier. For example, a kernel argument declared as global int const *x returns
    // CL_KERNEL_ARG_TYPE_CONST but a kernel argument declared as global int * const x does
    // not."
    let fx = Fixture::new();
    let program = fx.built(ARG_INFO_SOURCE, c"-cl-kernel-arg-info");
    let k = kernel(program, c"k");
    let text = |i, p| string(&api().kernel_arg_info(k, i, p).unwrap());
    let uint_of = |i, p| scalar::<cl_uint>(&api().kernel_arg_info(k, i, p).unwrap());
    let bits_of = |i, p| scalar::<cl_bitfield>(&api().kernel_arg_info(k, i, p).unwrap());
    let expected: [(&str, &str, cl_uint, cl_uint); 7] = [
        (
            "in",
            "float*",
            CL_KERNEL_ARG_ADDRESS_GLOBAL,
            CL_KERNEL_ARG_TYPE_CONST | CL_KERNEL_ARG_TYPE_RESTRICT,
        ),
        (
            "out",
            "uint*",
            CL_KERNEL_ARG_ADDRESS_GLOBAL,
            CL_KERNEL_ARG_TYPE_VOLATILE,
        ),
        (
            "n",
            "uint",
            CL_KERNEL_ARG_ADDRESS_PRIVATE,
            CL_KERNEL_ARG_TYPE_NONE,
        ),
        (
            "tmp",
            "float4*",
            CL_KERNEL_ARG_ADDRESS_LOCAL,
            CL_KERNEL_ARG_TYPE_NONE,
        ),
        (
            "table",
            "int*",
            CL_KERNEL_ARG_ADDRESS_CONSTANT,
            CL_KERNEL_ARG_TYPE_NONE,
        ),
        (
            "v",
            "float2",
            CL_KERNEL_ARG_ADDRESS_PRIVATE,
            CL_KERNEL_ARG_TYPE_NONE,
        ),
        (
            "fixed",
            "int*",
            CL_KERNEL_ARG_ADDRESS_GLOBAL,
            CL_KERNEL_ARG_TYPE_NONE,
        ),
    ];
    for (i, (name, type_name, address, qualifiers)) in expected.into_iter().enumerate() {
        let i = i as cl_uint;
        assert_eq!(text(i, CL_KERNEL_ARG_NAME), name, "argument {i}");
        assert_eq!(text(i, CL_KERNEL_ARG_TYPE_NAME), type_name, "argument {i}");
        assert_eq!(
            uint_of(i, CL_KERNEL_ARG_ADDRESS_QUALIFIER),
            address,
            "argument {i}"
        );
        assert_eq!(
            uint_of(i, CL_KERNEL_ARG_ACCESS_QUALIFIER),
            CL_KERNEL_ARG_ACCESS_NONE,
            "argument {i}"
        );
        let bits = bits_of(i, CL_KERNEL_ARG_TYPE_QUALIFIER);
        let qualifiers = cl_bitfield::from(qualifiers);
        if address == CL_KERNEL_ARG_ADDRESS_CONSTANT {
            // OpenCL 2.0 adds CONST for __constant arguments; 1.2 does not require it.
            let const_bit = cl_bitfield::from(CL_KERNEL_ARG_TYPE_CONST);
            assert_eq!(bits & !const_bit, qualifiers, "argument {i}");
        } else {
            assert_eq!(bits, qualifiers, "argument {i}");
        }
    }
    // "CL_INVALID_ARG_INDEX if arg_indx is not a valid argument index"; "CL_INVALID_VALUE
    // if param_name is not valid".
    assert_eq!(
        api().kernel_arg_info(k, 7, CL_KERNEL_ARG_NAME),
        Err(CL_INVALID_ARG_INDEX)
    );
    assert_eq!(api().kernel_arg_info(k, 0, 0x7777), Err(CL_INVALID_VALUE));
    release_kernel(k);
    release_program(program);
}

// clSetKernelArg

#[test]
fn set_kernel_arg_errors() {
    // "CL_INVALID_ARG_INDEX if arg_index is not a valid argument index."
    // "CL_INVALID_ARG_VALUE if arg_value specified is not a valid value" — NULL for an
    // argument not declared __local, or not NULL for a __local one.
    // "CL_INVALID_MEM_OBJECT for an argument declared to be a memory object when the
    // specified arg_value is not a valid memory object."
    // "CL_INVALID_ARG_SIZE if arg_size does not match the size of the data type for an
    // argument that is not a memory object or if the argument is a memory object and
    // arg_size != sizeof(cl_mem) or if arg_size is zero and the argument is declared with
    // the __local qualifier".
    let fx = Fixture::new();
    let program = fx.built(
        "typedef struct { float4 v; int n; } S;\n\
         kernel void k(global int *buf, uint n, local float *scratch, S s, constant int *c) {\n\
         \x20 buf[0] = n + s.n + c[0]; scratch[0] = s.v.x;\n}\n",
        c"",
    );
    let k = kernel(program, c"k");
    let buffer = fx.buffer(64);
    let mem_bytes = (buffer as usize).to_ne_bytes();
    let word = size_of::<cl_mem>();
    let set = |i, size, value: Option<&[u8]>| api().set_kernel_arg_raw(k, i, size, value);
    // Index.
    assert_eq!(api().set_kernel_arg(k, 5, 1u32), CL_INVALID_ARG_INDEX);
    assert_eq!(
        api().set_kernel_arg(k, u32::MAX, 1u32),
        CL_INVALID_ARG_INDEX
    );
    // A buffer argument: the size of cl_mem, a valid memory object.
    assert_eq!(set(0, 4, Some(&mem_bytes)), CL_INVALID_ARG_SIZE);
    assert_eq!(set(0, word + 1, Some(&[0; 16])), CL_INVALID_ARG_SIZE);
    assert_eq!(
        api().set_kernel_arg_mem(k, 0, fx.queue),
        CL_INVALID_MEM_OBJECT
    );
    assert_eq!(
        api().set_kernel_arg_mem(k, 4, fx.context),
        CL_INVALID_MEM_OBJECT
    );
    assert_eq!(api().set_kernel_arg_mem(k, 0, buffer), CL_SUCCESS);
    // "If the argument is a buffer object, the arg_value pointer can be NULL or point to a
    // NULL value in which case a NULL value will be used as the value for the argument".
    assert_eq!(api().set_kernel_arg_mem(k, 0, null_mut()), CL_SUCCESS);
    assert_eq!(set(0, word, None), CL_SUCCESS);
    // A value argument: its exact size, and a value.
    assert_eq!(api().set_kernel_arg(k, 1, 1u64), CL_INVALID_ARG_SIZE);
    assert_eq!(api().set_kernel_arg(k, 1, 1u16), CL_INVALID_ARG_SIZE);
    assert_eq!(set(1, 4, None), CL_INVALID_ARG_VALUE);
    assert_eq!(api().set_kernel_arg(k, 1, 7u32), CL_SUCCESS);
    // A struct argument: its size with the OpenCL C layout (float4 aligns to 16: 32 bytes).
    assert_eq!(set(3, 20, Some(&[0; 32])), CL_INVALID_ARG_SIZE);
    assert_eq!(set(3, 32, None), CL_INVALID_ARG_VALUE);
    assert_eq!(set(3, 32, Some(&[0; 32])), CL_SUCCESS);
    // A local argument: a size and no value.
    assert_eq!(set(2, 16, Some(&[0; 16])), CL_INVALID_ARG_VALUE);
    assert_eq!(api().set_kernel_arg_local(k, 2, 0), CL_INVALID_ARG_SIZE);
    assert_eq!(api().set_kernel_arg_local(k, 2, 64), CL_SUCCESS);
    // A constant buffer: like a global one.
    assert_eq!(set(4, 4, Some(&mem_bytes)), CL_INVALID_ARG_SIZE);
    assert_eq!(api().set_kernel_arg_mem(k, 4, buffer), CL_SUCCESS);
    release_mem(buffer);
    release_kernel(k);
    release_program(program);
}

// clEnqueueNDRangeKernel, clEnqueueTask

/// A program with a kernel of two arguments and one with a required work-group size.
const LAUNCH_SOURCE: &str = "kernel void two(global int *a, int b) { a[get_global_id(0)] = b; }\n\
     __attribute__((reqd_work_group_size(4,1,1)))\n\
     kernel void fixed(global int *a) { a[get_global_id(0)] = 1; }\n";

/// `clEnqueueNDRangeKernel` of `kernel` on the fixture's queue, with an event out-parameter
/// that must stay NULL when the call fails.
fn launch(
    fx: &Fixture,
    kernel: cl_kernel,
    work_dim: cl_uint,
    offset: Option<&[usize]>,
    global: Option<&[usize]>,
    local: Option<&[usize]>,
) -> cl_int {
    let mut event = null_mut();
    let status = api().enqueue_nd_range_kernel(
        fx.queue,
        kernel,
        work_dim,
        offset,
        global,
        local,
        Waits::NONE,
        Some(&mut event),
    );
    if status == CL_SUCCESS {
        assert_eq!(api().wait_for_events(&[event]), CL_SUCCESS);
        assert_eq!(api().release_event(event), CL_SUCCESS);
    } else {
        assert!(
            event.is_null(),
            "an event for a command that was not enqueued"
        );
    }
    status
}

#[test]
fn ndrange_work_size_errors() {
    // "CL_INVALID_WORK_DIMENSION if work_dim is not a valid value (i.e. a value between 1
    // and 3)." "CL_INVALID_GLOBAL_WORK_SIZE if global_work_size is NULL, or if any of the
    // values specified in global_work_size[0], ... global_work_size[work_dim - 1] are 0".
    // "CL_INVALID_WORK_GROUP_SIZE if local_work_size is specified and number of work-items
    // specified by global_work_size is not evenly divisible by size of work-group given by
    // local_work_size", "... if local_work_size is specified and the total number of
    // work-items in the work-group computed as local_work_size[0] * ...
    // local_work_size[work_dim - 1] is greater than the value specified by
    // CL_DEVICE_MAX_WORK_GROUP_SIZE". "CL_INVALID_WORK_ITEM_SIZE if the number of
    // work-items specified in any of local_work_size[0], ... local_work_size[work_dim - 1]
    // is greater than the corresponding values specified by
    // CL_DEVICE_MAX_WORK_ITEM_SIZES[0], ...". "CL_INVALID_GLOBAL_OFFSET if the value
    // specified in global_work_size + the corresponding values in global_work_offset for any
    // dimensions is greater than the sizeof(size_t) for the device".
    let fx = Fixture::new();
    let program = fx.built(LAUNCH_SOURCE, c"");
    let k = kernel(program, c"two");
    let buffer = fx.buffer(1 << 16);
    assert_eq!(api().set_kernel_arg_mem(k, 0, buffer), CL_SUCCESS);
    assert_eq!(api().set_kernel_arg(k, 1, 3i32), CL_SUCCESS);
    let g4 = [64usize, 1, 1, 1];
    assert_eq!(
        launch(&fx, k, 0, None, Some(&g4), None),
        CL_INVALID_WORK_DIMENSION
    );
    assert_eq!(
        launch(&fx, k, 4, None, Some(&g4), None),
        CL_INVALID_WORK_DIMENSION
    );
    assert_eq!(
        launch(&fx, k, 1, None, None, None),
        CL_INVALID_GLOBAL_WORK_SIZE
    );
    assert_eq!(
        launch(&fx, k, 1, None, Some(&[0]), None),
        CL_INVALID_GLOBAL_WORK_SIZE
    );
    assert_eq!(
        launch(&fx, k, 3, None, Some(&[4, 0, 4]), None),
        CL_INVALID_GLOBAL_WORK_SIZE
    );
    assert_eq!(
        launch(&fx, k, 1, None, Some(&[64]), Some(&[5])),
        CL_INVALID_WORK_GROUP_SIZE
    );
    assert_eq!(
        launch(&fx, k, 2, None, Some(&[8, 9]), Some(&[8, 2])),
        CL_INVALID_WORK_GROUP_SIZE
    );
    let max_group = api().device_size(device(), CL_DEVICE_MAX_WORK_GROUP_SIZE);
    let max_items: Vec<usize> = api().device_array(device(), CL_DEVICE_MAX_WORK_ITEM_SIZES);
    // A group larger than the device allows, each dimension within its own limit.
    let (a, b) = (
        max_items[0].min(max_group),
        2 * max_group / max_items[0].min(max_group),
    );
    assert!(
        b <= max_items[1],
        "the device's limits do not allow this case"
    );
    assert_eq!(
        launch(&fx, k, 2, None, Some(&[a, b]), Some(&[a, b])),
        CL_INVALID_WORK_GROUP_SIZE
    );
    // One dimension past its item limit.
    let over = max_items[0] + 1;
    let status = launch(&fx, k, 1, None, Some(&[over]), Some(&[over]));
    if max_items[0] < max_group {
        assert_eq!(status, CL_INVALID_WORK_ITEM_SIZE);
    } else {
        // Past the group limit too: either error describes the call.
        assert!(
            [CL_INVALID_WORK_ITEM_SIZE, CL_INVALID_WORK_GROUP_SIZE].contains(&status),
            "{status}"
        );
    }
    assert_eq!(
        launch(&fx, k, 1, Some(&[usize::MAX]), Some(&[2]), None),
        CL_INVALID_GLOBAL_OFFSET
    );
    // And a valid call works.
    assert_eq!(
        launch(&fx, k, 1, Some(&[1]), Some(&[64]), Some(&[16])),
        CL_SUCCESS
    );
    release_mem(buffer);
    release_kernel(k);
    release_program(program);
}

#[test]
fn reqd_work_group_size_must_be_matched() {
    // "CL_INVALID_WORK_GROUP_SIZE if local_work_size is specified and ... does not match the
    // work-group size specified for kernel using the __attribute__((reqd_work_group_size(X,
    // Y, Z))) qualifier in program source". With local_work_size NULL the required size is
    // used (OpenCL 2.0+ and the Khronos CTS's null_required_work_group_size; OpenCL 1.2 had
    // CL_INVALID_WORK_GROUP_SIZE there, which no implementation the CTS passes gives).
    // clEnqueueTask:
    // "CL_INVALID_WORK_GROUP_SIZE if a work-group size is specified for kernel using the
    // __attribute__((reqd_work_group_size(X, Y, Z))) qualifier in program source and is not
    // (1, 1, 1)."
    let fx = Fixture::new();
    let program = fx.built(LAUNCH_SOURCE, c"");
    let k = kernel(program, c"fixed");
    let buffer = fx.buffer(4 * 64);
    assert_eq!(api().set_kernel_arg_mem(k, 0, buffer), CL_SUCCESS);
    assert_eq!(
        launch(&fx, k, 1, None, Some(&[64]), Some(&[8])),
        CL_INVALID_WORK_GROUP_SIZE
    );
    assert_eq!(
        launch(&fx, k, 1, None, Some(&[64]), Some(&[2])),
        CL_INVALID_WORK_GROUP_SIZE
    );
    assert_eq!(
        launch(&fx, k, 2, None, Some(&[16, 4]), Some(&[4, 2])),
        CL_INVALID_WORK_GROUP_SIZE
    );
    assert_eq!(
        launch(&fx, k, 1, None, Some(&[66]), None),
        CL_INVALID_WORK_GROUP_SIZE
    );
    assert_eq!(
        api().enqueue_task(fx.queue, k, Waits::NONE, None),
        CL_INVALID_WORK_GROUP_SIZE
    );
    assert_eq!(launch(&fx, k, 1, None, Some(&[64]), Some(&[4])), CL_SUCCESS);
    assert_eq!(
        launch(&fx, k, 2, None, Some(&[16, 4]), Some(&[4, 1])),
        CL_SUCCESS
    );
    assert_eq!(array::<i32>(&fx.read(buffer, 4 * 64)), [1; 64]);
    release_mem(buffer);
    release_kernel(k);
    release_program(program);
}

#[test]
fn null_local_size_runs_the_required_work_group_size() {
    // The CTS's null_required_work_group_size: local_work_size NULL runs the size of
    // reqd_work_group_size, in each work_dim that can hold it.
    let fx = Fixture::new();
    let program = fx.built(
        "__attribute__((reqd_work_group_size(2,3,1)))
         kernel void wg(global int *d) {
           if (get_global_id(0) == 0 && get_global_id(1) == 0 && get_global_id(2) == 0) {
             d[0] = get_local_size(0); d[1] = get_local_size(1); d[2] = get_local_size(2);
           }
         }
",
        c"",
    );
    let k = kernel(program, c"wg");
    let buffer = fx.buffer(4 * 3);
    assert_eq!(api().set_kernel_arg_mem(k, 0, buffer), CL_SUCCESS);
    for work_dim in [2, 3] {
        let global = [64, 96, 128];
        assert_eq!(
            launch(
                &fx,
                k,
                work_dim,
                None,
                Some(&global[..work_dim as usize]),
                None
            ),
            CL_SUCCESS
        );
        assert_eq!(
            array::<i32>(&fx.read(buffer, 4 * 3)),
            [2, 3, 1],
            "{work_dim}"
        );
    }
    // One dimension cannot hold a group 3 high.
    assert_eq!(
        launch(&fx, k, 1, None, Some(&[64]), None),
        CL_INVALID_WORK_GROUP_SIZE
    );
    release_mem(buffer);
    release_kernel(k);
    release_program(program);
}

#[test]
fn unset_arguments_are_invalid_kernel_args() {
    // "CL_INVALID_KERNEL_ARGS if the kernel argument values have not been specified"
    // (clEnqueueNDRangeKernel and clEnqueueTask).
    let fx = Fixture::new();
    let program = fx.built(LAUNCH_SOURCE, c"");
    let k = kernel(program, c"two");
    assert_eq!(
        launch(&fx, k, 1, None, Some(&[4]), None),
        CL_INVALID_KERNEL_ARGS
    );
    let buffer = fx.buffer(16);
    assert_eq!(api().set_kernel_arg_mem(k, 0, buffer), CL_SUCCESS);
    assert_eq!(
        launch(&fx, k, 1, None, Some(&[4]), None),
        CL_INVALID_KERNEL_ARGS
    );
    let mut event = null_mut();
    assert_eq!(
        api().enqueue_task(fx.queue, k, Waits::NONE, Some(&mut event)),
        CL_INVALID_KERNEL_ARGS
    );
    assert!(event.is_null());
    assert_eq!(api().set_kernel_arg(k, 1, 9i32), CL_SUCCESS);
    assert_eq!(launch(&fx, k, 1, None, Some(&[4]), None), CL_SUCCESS);
    assert_eq!(array::<i32>(&fx.read(buffer, 16)), [9; 4]);
    release_mem(buffer);
    release_kernel(k);
    release_program(program);
}

#[test]
fn a_kernel_of_another_context_is_invalid_context() {
    // "CL_INVALID_CONTEXT if context associated with command_queue and kernel are not the
    // same" (clEnqueueNDRangeKernel and clEnqueueTask).
    let fx = Fixture::new();
    let other = Fixture::new();
    let program = other.built(LAUNCH_SOURCE, c"");
    let k = kernel(program, c"two");
    let buffer = other.buffer(16);
    assert_eq!(api().set_kernel_arg_mem(k, 0, buffer), CL_SUCCESS);
    assert_eq!(api().set_kernel_arg(k, 1, 1i32), CL_SUCCESS);
    assert_eq!(
        launch(&fx, k, 1, None, Some(&[4]), None),
        CL_INVALID_CONTEXT
    );
    assert_eq!(
        api().enqueue_task(fx.queue, k, Waits::NONE, None),
        CL_INVALID_CONTEXT
    );
    assert_eq!(launch(&other, k, 1, None, Some(&[4]), None), CL_SUCCESS);
    release_mem(buffer);
    release_kernel(k);
    release_program(program);
}

#[test]
fn launch_of_a_non_kernel_is_invalid_kernel() {
    // clEnqueueNDRangeKernel and clEnqueueTask: "CL_INVALID_KERNEL if kernel is not a valid
    // kernel object." "CL_INVALID_COMMAND_QUEUE if command_queue is not a valid
    // command-queue."
    let fx = Fixture::new();
    let program = fx.program_c(&[SOURCE]);
    // SAFETY: the context is live.
    let mut foreign = unsafe { ForeignObject::with_dispatch_of(fx.context) };
    let global = [64usize, 1, 1];
    let local = [16usize, 1, 1];
    for bad in [program, fx.context, foreign.handle(), null_mut()] {
        let mut event = null_mut();
        let statuses = [
            api().enqueue_nd_range_kernel(
                fx.queue,
                bad,
                1,
                None,
                Some(&global),
                Some(&local),
                Waits::NONE,
                Some(&mut event),
            ),
            api().enqueue_nd_range_kernel(
                fx.queue,
                bad,
                3,
                None,
                Some(&global),
                None,
                Waits::NONE,
                None,
            ),
            api().enqueue_task(fx.queue, bad, Waits::NONE, Some(&mut event)),
        ];
        assert_eq!(statuses, [CL_INVALID_KERNEL; 3]);
        assert!(
            event.is_null(),
            "an event for a command that was not enqueued"
        );
    }
    // A valid kernel on a non-queue.
    assert_eq!(build(program, 0, None, None), CL_SUCCESS);
    let k = kernel(program, c"add");
    assert_eq!(
        api().enqueue_nd_range_kernel(
            fx.context,
            k,
            1,
            None,
            Some(&global),
            None,
            Waits::NONE,
            None
        ),
        CL_INVALID_COMMAND_QUEUE
    );
    assert_eq!(
        api().enqueue_task(program, k, Waits::NONE, None),
        CL_INVALID_COMMAND_QUEUE
    );
    release_kernel(k);
    release_program(program);
}

#[test]
fn a_launch_reports_its_command_type() {
    // CL_EVENT_COMMAND_TYPE: CL_COMMAND_NDRANGE_KERNEL and CL_COMMAND_TASK; the event
    // completes with CL_COMPLETE.
    let fx = Fixture::new();
    let program = fx.built(LAUNCH_SOURCE, c"");
    let k = kernel(program, c"two");
    let buffer = fx.buffer(16);
    assert_eq!(api().set_kernel_arg_mem(k, 0, buffer), CL_SUCCESS);
    assert_eq!(api().set_kernel_arg(k, 1, 5i32), CL_SUCCESS);
    let mut range = null_mut();
    let mut task = null_mut();
    assert_eq!(
        api().enqueue_nd_range_kernel(
            fx.queue,
            k,
            1,
            None,
            Some(&[4]),
            None,
            Waits::NONE,
            Some(&mut range)
        ),
        CL_SUCCESS
    );
    assert_eq!(
        api().enqueue_task(fx.queue, k, Waits::NONE, Some(&mut task)),
        CL_SUCCESS
    );
    assert_eq!(api().wait_for_events(&[range, task]), CL_SUCCESS);
    for (event, command) in [(range, CL_COMMAND_NDRANGE_KERNEL), (task, CL_COMMAND_TASK)] {
        assert_eq!(
            api().event_scalar::<cl_command_type>(event, CL_EVENT_COMMAND_TYPE),
            command
        );
        assert_eq!(api().event_status(event), CL_COMPLETE);
        assert_eq!(api().release_event(event), CL_SUCCESS);
    }
    assert_eq!(array::<i32>(&fx.read(buffer, 16)), [5; 4]);
    release_mem(buffer);
    release_kernel(k);
    release_program(program);
}

// Samplers

#[test]
fn every_sampler_combination_is_created_and_reported() {
    // clCreateSampler takes every addressing mode with either coordinate mode and filter
    // (6.12.14.1 leaves only the results of repeat modes with unnormalized coordinates
    // undefined), and clGetSamplerInfo reports each property back.
    let fx = Fixture::new();
    let api = api();
    let create = entry!(api.clCreateSampler);
    let info = entry!(api.clGetSamplerInfo);
    let release = entry!(api.clReleaseSampler);
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
        assert_eq!(status, CL_SUCCESS);
        let mut values = [0u32; 3];
        for (slot, param) in values.iter_mut().zip([
            CL_SAMPLER_NORMALIZED_COORDS,
            CL_SAMPLER_ADDRESSING_MODE,
            CL_SAMPLER_FILTER_MODE,
        ]) {
            // SAFETY: each property is a 4-byte value.
            let status = unsafe { info(sampler, param, 4, (slot as *mut u32).cast(), null_mut()) };
            assert_eq!(status, CL_SUCCESS);
        }
        assert_eq!(values, [normalized, addressing, filter]);
        // SAFETY: the sampler is live.
        assert_eq!(unsafe { release(sampler) }, CL_SUCCESS);
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
        release_mem(mem);
    }
}
