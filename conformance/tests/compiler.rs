//! The `compiler` suite (OpenCL 1.2 §5.6.3–§5.6.5; the CTS area "compiler"): every
//! `clBuildProgram` option and the predefined macros it affects, `clCompileProgram` with
//! embedded headers and `-I`, `clLinkProgram` of objects and libraries, program binaries of
//! each kind, and `clUnloadPlatformCompiler`.

use std::ffi::{CString, c_void};
use std::ptr::null_mut;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use clift_conformance::*;

mod program_support;

use program_support::*;

// clBuildProgram: options

#[test]
fn a_macro_defined_by_an_option_changes_the_result() {
    // "-D name=definition: The contents of definition are tokenized and processed as if they
    // appeared during translation phase three in a #define directive." "-D name: Predefine
    // name as a macro, with definition 1." Both the separate and the joined spelling.
    let fx = Fixture::new();
    assert_eq!(value_with(&fx, c"-D VALUE=7"), 7);
    assert_eq!(value_with(&fx, c"-DVALUE=-3"), -3);
    assert_eq!(value_with(&fx, c"-D VALUE=(6*7)"), 42);
    assert_eq!(value_with(&fx, c"-D VALUE"), 1);
    // Several -D options, processed in order; one macro used by another.
    assert_eq!(value_with(&fx, c"-D BASE=10 -D VALUE=BASE+5"), 15);
    // Without the definition the build fails (VALUE is undeclared).
    let program = fx.program(VALUE_SOURCE);
    assert_eq!(build(program, 0, None, Some(c"")), CL_BUILD_PROGRAM_FAILURE);
    assert!(
        build_log(program).contains("VALUE"),
        "{}",
        build_log(program)
    );
    release_program(program);
}

#[test]
fn function_like_macros_and_undefines_from_options() {
    // clang's -D takes `name(params)=body` as `#define name(params) body`; the options string
    // is split as a shell splits it, so a quoted argument keeps its white space and `#`.
    let fx = Fixture::new();
    assert_eq!(value_with(&fx, c"-D 'CAT(a,b)=a##b' -D VALUE=CAT(4,2)"), 42);
    assert_eq!(
        value_with(&fx, c"-D 'STR(x)=#x' -D VALUE=STR(xyz)[1]"),
        'y' as i32
    );
    assert_eq!(
        value_with(&fx, c"-D\"SQ( x )=((x) * (x))\" -DVALUE=SQ(1+2)"),
        9
    );
    // `-D name(params)` defines it as 1; `-D name=` as nothing.
    assert_eq!(value_with(&fx, c"-DF(x) -DVALUE=F(9)"), 1);
    assert_eq!(value_with(&fx, c"-DE= -D'VALUE=E 5 E'"), 5);
    // -D and -U act in the order given.
    assert_eq!(value_with(&fx, c"-DVALUE=3 -UVALUE -DVALUE=5"), 5);
    assert_eq!(
        value_with(&fx, c"-D VALUE=__CLIFT__ -U __CLIFT__ -D __CLIFT__=2"),
        2
    );
    let program = fx.program(VALUE_SOURCE);
    assert_eq!(
        build(program, 0, None, Some(c"-DVALUE=3 -U VALUE")),
        CL_BUILD_PROGRAM_FAILURE
    );
    // A parameter list that is not one is the preprocessor's error at <command line>, as
    // in clang: the build fails (the options are well-formed).
    assert_eq!(
        build(program, 0, None, Some(c"-D 'F(1)=2' -D VALUE=1")),
        CL_BUILD_PROGRAM_FAILURE
    );
    let log = build_log(program);
    assert!(log.starts_with("<command line>:1:"), "{log}");
    release_program(program);
}

#[test]
fn deprecated_and_driver_options_are_accepted() {
    // OpenCL 1.0's -cl-strict-aliasing (deprecated since 1.1) is accepted with clang's
    // warning; -g (PoCL and clang take it) and -cl-std=CL1.0 (clang takes it) too.
    let fx = Fixture::new();
    let program = fx.program_c(&[SOURCE]);
    assert_eq!(
        build(program, 0, None, Some(c"-cl-strict-aliasing")),
        CL_SUCCESS
    );
    assert_eq!(
        build_log(program),
        "<command line>: warning: OpenCL version 1.2 does not support the option \
         '-cl-strict-aliasing'\n"
    );
    // With -Werror, clang's warning is an error that fails the build.
    assert_eq!(
        build(program, 0, None, Some(c"-Werror -cl-strict-aliasing")),
        CL_BUILD_PROGRAM_FAILURE
    );
    assert_eq!(
        build_log(program),
        "<command line>: error: OpenCL version 1.2 does not support the option \
         '-cl-strict-aliasing'\n"
    );
    for options in [
        c"-g",
        c"-cl-std=CL1.0 -cl-strict-aliasing",
        c"-w -cl-strict-aliasing",
    ] {
        assert_eq!(
            build(program, 0, None, Some(options)),
            CL_SUCCESS,
            "{options:?}"
        );
        assert_eq!(build_log(program), "", "{options:?}");
    }
    release_program(program);
    assert_eq!(
        value_with(&fx, c"-cl-std=CL1.0 -D VALUE=__OPENCL_C_VERSION__"),
        100
    );
}

#[test]
fn an_invalid_option_is_named_in_the_log() {
    let fx = Fixture::new();
    let program = fx.program_c(&[SOURCE]);
    assert_eq!(
        build(program, 0, None, Some(c"-cl-mad-enable -O3")),
        CL_INVALID_BUILD_OPTIONS
    );
    assert_eq!(
        build_log(program),
        "<command line>: error: invalid build option '-O3'\n"
    );
    release_program(program);
}

#[test]
fn half_macros_have_the_extension_values() {
    // cl_khr_fp16 (1.2 extensions §9.5.9): the half limits and math constants, with the
    // values of clang's opencl-c-base.h, each the correctly rounded half.
    let fx = Fixture::new();
    let source = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n\
        kernel void k(global int *ints, global ushort *bits) {\n\
            int i[] = { HALF_DIG, HALF_MANT_DIG, HALF_MAX_10_EXP, HALF_MAX_EXP,\n\
                        HALF_MIN_10_EXP, HALF_MIN_EXP, HALF_RADIX };\n\
            for (int n = 0; n < 7; n++) ints[n] = i[n];\n\
            half h[] = { HALF_MAX, HALF_MIN, HALF_EPSILON, M_E_H, M_LOG2E_H, M_LOG10E_H,\n\
                         M_LN2_H, M_LN10_H, M_PI_H, M_PI_2_H, M_PI_4_H, M_1_PI_H, M_2_PI_H,\n\
                         M_2_SQRTPI_H, M_SQRT2_H, M_SQRT1_2_H };\n\
            for (int n = 0; n < 16; n++) bits[n] = as_ushort(h[n]);\n\
        }\n";
    let program = fx.built(source, c"");
    let k = kernel(program, c"k");
    let ints = fx.buffer(7 * 4);
    let bits = fx.buffer(16 * 2);
    assert_eq!(api().set_kernel_arg_mem(k, 0, ints), CL_SUCCESS);
    assert_eq!(api().set_kernel_arg_mem(k, 1, bits), CL_SUCCESS);
    fx.run_1d(k, 1, None);
    let ints: Vec<i32> = fx
        .read(ints, 7 * 4)
        .chunks(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(ints, [3, 11, 4, 16, -4, -13, 2]);
    let bits: Vec<u16> = fx
        .read(bits, 16 * 2)
        .chunks(2)
        .map(|c| u16::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(
        bits,
        [
            0x7bff, 0x0400, 0x1400, 0x4170, 0x3dc5, 0x36f3, 0x398c, 0x409b, 0x4248, 0x3e48, 0x3a48,
            0x3518, 0x3918, 0x3c83, 0x3da8, 0x39a8
        ]
    );
    release_kernel(k);
    release_program(program);
}

#[test]
fn an_include_directory_option_finds_headers() {
    // "-I dir: Add the directory dir to the list of directories to be searched for header
    // files."
    let fx = Fixture::new();
    let dir =
        std::env::temp_dir().join(format!("clift-api-program-include-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(
        dir.join("clift_test_header.h"),
        "#include \"sub/nested.h\"\nint from_header(int x) { return x * FACTOR; }\n",
    )
    .unwrap();
    std::fs::write(dir.join("sub/nested.h"), "#define FACTOR 6\n").unwrap();
    let source = "#include \"clift_test_header.h\"\n\
                  kernel void k(global int *out) { out[0] = from_header(7); }\n";
    let options = CString::new(format!("-I {}", dir.display())).unwrap();
    let program = fx.built(source, &options);
    let k = kernel(program, c"k");
    let out = fx.buffer(4);
    assert_eq!(api().set_kernel_arg_mem(k, 0, out), CL_SUCCESS);
    fx.run_1d(k, 1, None);
    assert_eq!(scalar::<i32>(&fx.read(out, 4)), 42);
    release_mem(out);
    release_kernel(k);
    release_program(program);
    // Without the directory the header is not found.
    let program = fx.program(source);
    assert_eq!(build(program, 0, None, None), CL_BUILD_PROGRAM_FAILURE);
    assert!(
        build_log(program).contains("clift_test_header.h"),
        "the log names the missing header:\n{}",
        build_log(program)
    );
    release_program(program);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn cl_std_selects_the_opencl_c_version() {
    // "-cl-std=: Determine the OpenCL C language version to use. ... Valid values are CL1.1
    // and CL1.2." §6.10: "__OPENCL_C_VERSION__ substitutes an integer reflecting the OpenCL
    // C version specified by the -cl-std build option ... If the -cl-std build option is not
    // specified, the highest OpenCL C 1.x language version supported by each device is
    // used" (1.2 here: CL_DEVICE_OPENCL_C_VERSION).
    let fx = Fixture::new();
    assert_eq!(value_with(&fx, c"-D VALUE=__OPENCL_C_VERSION__"), 120);
    assert_eq!(
        value_with(&fx, c"-cl-std=CL1.2 -D VALUE=__OPENCL_C_VERSION__"),
        120
    );
    assert_eq!(
        value_with(&fx, c"-cl-std=CL1.1 -D VALUE=__OPENCL_C_VERSION__"),
        110
    );
}

#[test]
fn predefined_macros_describe_the_device() {
    // §6.10: __OPENCL_VERSION__ "an integer reflecting the version number of the OpenCL
    // supported by the OpenCL device" (120); CL_VERSION_1_0/1_1/1_2 are 100/110/120;
    // __ENDIAN_LITTLE__ is 1 on a little-endian device; "__IMAGE_SUPPORT__ ... is an integer
    // ... [defined] to 1 if the device supports images" (CL_DEVICE_IMAGE_SUPPORT is CL_TRUE);
    // __kernel_exec(X, typen) is defined; "__FAST_RELAXED_MATH__ ... is defined if the
    // -cl-fast-relaxed-math optimization option is specified".
    let fx = Fixture::new();
    assert_eq!(value_with(&fx, c"-D VALUE=__OPENCL_VERSION__"), 120);
    assert_eq!(
        value_with(
            &fx,
            c"-D VALUE=(CL_VERSION_1_0*1000000+CL_VERSION_1_1*1000+CL_VERSION_1_2)"
        ),
        100_110_120
    );
    // Later versions' numbers too (as clang defines them), so `__OPENCL_C_VERSION__ >=
    // CL_VERSION_2_0` is false on a 1.2 device.
    assert_eq!(
        value_with(
            &fx,
            c"-D VALUE=(CL_VERSION_2_0*1000+CL_VERSION_3_0+(__OPENCL_C_VERSION__>=CL_VERSION_2_0))"
        ),
        200_300
    );
    assert_eq!(value_with(&fx, c"-D VALUE=__ENDIAN_LITTLE__"), 1);
    let defined = |name: &str, options: &str| -> i32 {
        let source = format!(
            "kernel void k(global int *out) {{\n#ifdef {name}\nout[0] = 1;\n#else\nout[0] = 0;\n#endif\n}}\n"
        );
        let program = fx.built(&source, &CString::new(options).unwrap());
        let k = kernel(program, c"k");
        let out = fx.buffer(4);
        assert_eq!(api().set_kernel_arg_mem(k, 0, out), CL_SUCCESS);
        fx.run_1d(k, 1, None);
        let value = scalar::<i32>(&fx.read(out, 4));
        release_mem(out);
        release_kernel(k);
        release_program(program);
        value
    };
    assert_eq!(defined("__IMAGE_SUPPORT__", ""), 1);
    assert_eq!(defined("__OPENCL_C_VERSION__", ""), 1);
    assert_eq!(defined("__kernel_exec", ""), 1);
    assert_eq!(defined("__FAST_RELAXED_MATH__", ""), 0);
    assert_eq!(defined("__FAST_RELAXED_MATH__", "-cl-fast-relaxed-math"), 1);
}

/// A kernel with a double-precision constant and no `cl_khr_fp64` pragma: OpenCL 1.2
/// makes double an optional extension type, and clift warns that the constant is taken as
/// a float.
const WARNING_SOURCE: &str = "kernel void k(global float *a) { global int *b = a; }\n";

#[test]
fn a_warning_is_logged_and_the_build_succeeds() {
    // Warnings do not fail a build; clift logs them as `<file>:<line>:<col>: warning: ...`.
    let fx = Fixture::new();
    let program = fx.built(WARNING_SOURCE, c"");
    let log = build_log(program);
    assert!(
        log.lines().any(|l| l.contains(":1:50: warning: ")),
        "no warning at 1:50:\n{log}"
    );
    release_program(program);
}

#[test]
fn minus_w_suppresses_warnings() {
    // "-w: Inhibit all warning messages."
    let fx = Fixture::new();
    let program = fx.built(WARNING_SOURCE, c"-w");
    let log = build_log(program);
    assert!(!log.contains("warning"), "a warning under -w:\n{log}");
    release_program(program);
}

#[test]
fn werror_turns_a_warning_into_an_error() {
    // "-Werror: Make all warnings into errors."
    let fx = Fixture::new();
    let program = fx.program(WARNING_SOURCE);
    assert_eq!(
        build(program, 0, None, Some(c"-Werror")),
        CL_BUILD_PROGRAM_FAILURE
    );
    assert_eq!(build_status(program), CL_BUILD_ERROR);
    let log = build_log(program);
    assert!(
        !errors_at(&log, 1, 50).is_empty(),
        "the warning is an error under -Werror:\n{log}"
    );
    // With an explicit cast there is nothing to warn about, and -Werror builds.
    let clean = fx.program(&WARNING_SOURCE.replace("= a;", "= (global int *)a;"));
    assert_eq!(
        build(clean, 0, None, Some(c"-Werror")),
        CL_SUCCESS,
        "{}",
        build_log(clean)
    );
    release_program(clean);
    release_program(program);
}

#[test]
fn the_options_of_the_spec_are_accepted() {
    // §5.6.4: the preprocessor, math-intrinsics, optimization, warning, -cl-std and
    // -cl-kernel-arg-info options are all valid build options.
    let fx = Fixture::new();
    let program = fx.program_c(&[SOURCE]);
    for options in [
        c"-cl-single-precision-constant",
        c"-cl-denorms-are-zero",
        c"-cl-fp32-correctly-rounded-divide-sqrt",
        c"-cl-opt-disable",
        c"-cl-mad-enable",
        c"-cl-no-signed-zeros",
        c"-cl-unsafe-math-optimizations",
        c"-cl-finite-math-only",
        c"-cl-fast-relaxed-math",
        c"-w",
        c"-Werror",
        c"-cl-std=CL1.1",
        c"-cl-std=CL1.2",
        c"-cl-kernel-arg-info",
        c"  -D  A=1   -I /tmp  -cl-mad-enable  ",
    ] {
        assert_eq!(
            build(program, 0, None, Some(options)),
            CL_SUCCESS,
            "{options:?}: {}",
            build_log(program)
        );
    }
    release_program(program);
}

#[test]
fn build_with_invalid_options_is_invalid_build_options() {
    // "CL_INVALID_BUILD_OPTIONS if the build options specified by options are invalid."
    let fx = Fixture::new();
    let program = fx.program_c(&[SOURCE]);
    for options in [
        c"-cl-no-such-option",
        c"-cl-std=CL9.9",
        c"-cl-std=CL2.0",
        c"--frobnicate",
        c"-D",
        c"-I",
        c"-create-library",
    ] {
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
    let program = fx.program_c(&[SOURCE]);
    assert_eq!(build(program, 1, None, None), CL_INVALID_VALUE);
    assert_eq!(build(program, 0, Some(&[device()]), None), CL_INVALID_VALUE);
    assert_eq!(build_status(program), CL_BUILD_NONE);
    release_program(program);
}

#[test]
fn build_with_user_data_but_no_callback_is_invalid_value() {
    // "CL_INVALID_VALUE if pfn_notify is NULL but user_data is not NULL."
    let fx = Fixture::new();
    let program = fx.program_c(&[SOURCE]);
    let mut data = 0u32;
    // SAFETY: user_data is never used (no callback).
    let status =
        unsafe { api().build_program_raw(program, 0, None, None, None, (&raw mut data).cast()) };
    assert_eq!(status, CL_INVALID_VALUE);
    // With a callback, the same call is accepted.
    // SAFETY: the callback ignores its arguments.
    let status = unsafe {
        api().build_program_raw(
            program,
            0,
            None,
            None,
            Some(ignore_build),
            (&raw mut data).cast(),
        )
    };
    assert_eq!(status, CL_SUCCESS);
    release_program(program);
}

#[test]
fn build_for_a_device_outside_the_program_is_invalid_device() {
    // "CL_INVALID_DEVICE if OpenCL devices listed in device_list are not in the list of
    // devices associated with program."
    let fx = Fixture::new();
    let program = fx.program_c(&[SOURCE]);
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

/// What a build callback saw.
struct Notified {
    calls: AtomicUsize,
    program: AtomicUsize,
}

extern "C" fn count_build(program: cl_program, user_data: *mut c_void) {
    // SAFETY: every test passing this callback passes a `Notified` that outlives the call.
    let notified = unsafe { &*user_data.cast::<Notified>() };
    notified.program.store(program as usize, Ordering::SeqCst);
    notified.calls.fetch_add(1, Ordering::SeqCst);
}

/// Builds `program` with `count_build` and checks the callback ran exactly once, for this
/// program; returns the build's status.
fn build_with_callback(program: cl_program) -> cl_int {
    static NOTIFIED: [Notified; 2] = [
        Notified {
            calls: AtomicUsize::new(0),
            program: AtomicUsize::new(0),
        },
        Notified {
            calls: AtomicUsize::new(0),
            program: AtomicUsize::new(0),
        },
    ];
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let notified = &NOTIFIED[NEXT.fetch_add(1, Ordering::SeqCst)];
    let data = (notified as *const Notified).cast_mut().cast();
    // SAFETY: `notified` is a static.
    let status =
        unsafe { api().build_program_raw(program, 0, None, None, Some(count_build), data) };
    assert!(
        eventually(Duration::from_secs(10), || notified
            .calls
            .load(Ordering::SeqCst)
            > 0),
        "the build callback was not called"
    );
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(notified.calls.load(Ordering::SeqCst), 1, "callback calls");
    assert_eq!(notified.program.load(Ordering::SeqCst), program as usize);
    status
}

#[test]
fn the_build_callback_is_called_once_for_success_and_failure() {
    // "pfn_notify is a function pointer to a notification routine. The notification routine
    // is a callback function that an application can register and which will be called when
    // the program executable has been built (successfully or unsuccessfully)." The callback
    // receives the program and the user_data given.
    let fx = Fixture::new();
    let good = fx.program_c(&[SOURCE]);
    assert_eq!(build_with_callback(good), CL_SUCCESS);
    assert_eq!(build_status(good), CL_BUILD_SUCCESS);
    let bad = fx.program("kernel void k() { nope(); }");
    let status = build_with_callback(bad);
    assert_eq!(status, CL_BUILD_PROGRAM_FAILURE);
    assert_eq!(build_status(bad), CL_BUILD_ERROR);
    release_program(good);
    release_program(bad);
}

#[test]
fn rebuilding_under_attached_kernels_is_invalid_operation() {
    // clBuildProgram and clCompileProgram: "CL_INVALID_OPERATION if there are kernel objects
    // attached to program." Once the kernels are released the program can be rebuilt.
    let fx = Fixture::new();
    let program = fx.built(VALUE_SOURCE, c"-D VALUE=1");
    let k = kernel(program, c"k");
    assert_eq!(
        build(program, 0, None, Some(c"-D VALUE=2")),
        CL_INVALID_OPERATION
    );
    assert_eq!(
        api().compile_program(program, c"-D VALUE=2", &[]),
        CL_INVALID_OPERATION
    );
    // The failed calls changed nothing: the kernel still computes the first build's value.
    assert_eq!(build_status(program), CL_BUILD_SUCCESS);
    let out = fx.buffer(4);
    assert_eq!(api().set_kernel_arg_mem(k, 0, out), CL_SUCCESS);
    fx.run_1d(k, 1, None);
    assert_eq!(scalar::<i32>(&fx.read(out, 4)), 1);
    release_kernel(k);
    assert_eq!(build(program, 0, None, Some(c"-D VALUE=2")), CL_SUCCESS);
    let k = kernel(program, c"k");
    assert_eq!(api().set_kernel_arg_mem(k, 0, out), CL_SUCCESS);
    fx.run_1d(k, 1, None);
    assert_eq!(scalar::<i32>(&fx.read(out, 4)), 2);
    release_kernel(k);
    release_mem(out);
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
            api().compile_program(bad, c"", &[]),
            CL_INVALID_PROGRAM,
            "clCompileProgram"
        );
        assert_eq!(
            program_info(bad, CL_PROGRAM_SOURCE),
            Err(CL_INVALID_PROGRAM)
        );
        assert_eq!(
            build_info(bad, device(), CL_PROGRAM_BUILD_STATUS),
            Err(CL_INVALID_PROGRAM)
        );
        let (kernel, status) = api().create_kernel_raw(bad, Some(c"add"));
        assert_eq!((kernel, status), (null_mut(), CL_INVALID_PROGRAM));
        let mut count = 0;
        assert_eq!(
            api().create_kernels_in_program_raw(bad, 0, None, Some(&mut count)),
            CL_INVALID_PROGRAM
        );
        assert_eq!(api().retain_program(bad), CL_INVALID_PROGRAM);
        assert_eq!(api().release_program(bad), CL_INVALID_PROGRAM);
    }
    release_mem(mem);
}

// clCompileProgram and clLinkProgram

/// Runs `apply(p)` (one float in, one out, in place) over four values through `program`.
fn apply_four(fx: &Fixture, program: cl_program) -> Vec<f32> {
    let k = kernel(program, c"apply");
    let input = [1.0f32, 2.0, -0.5, 10.0];
    let buffer = fx.buffer_from(bytes_of(&input));
    assert_eq!(api().set_kernel_arg_mem(k, 0, buffer), CL_SUCCESS);
    fx.run_1d(k, 4, None);
    let out = array::<f32>(&fx.read(buffer, 16));
    release_mem(buffer);
    release_kernel(k);
    out
}

/// The function half of a two-object program, with its embedded headers.
const FUNCTION_SOURCE: &str =
    "#include \"scale.h\"\nfloat scaled(float x) { return x * SCALE + OFFSET; }\n";
/// The kernel half: it calls the function the other object defines.
const KERNEL_SOURCE: &str = "float scaled(float x);\n\
     kernel void apply(global float *p) { size_t i = get_global_id(0); p[i] = scaled(p[i]); }\n";

/// Compiles `FUNCTION_SOURCE` with its headers (`scale.h`, which includes
/// `defs/offset.h`): `scaled(x) = 3x + 0.25`.
fn compiled_function(fx: &Fixture) -> cl_program {
    let scale = fx.program("#include \"defs/offset.h\"\n#define SCALE 3.0f\n");
    let offset = fx.program("#define OFFSET 0.25f\n");
    let function = fx.program(FUNCTION_SOURCE);
    let status = api().compile_program(
        function,
        c"",
        &[(scale, c"scale.h"), (offset, c"defs/offset.h")],
    );
    assert_eq!(status, CL_SUCCESS, "{}", build_log(function));
    release_program(scale);
    release_program(offset);
    function
}

#[test]
fn compile_with_embedded_headers_then_link_two_objects() {
    // clCompileProgram: "input_headers is an array of program embedded headers created with
    // clCreateProgramWithSource. header_include_names is an array that has a one to one
    // correspondence with input_headers. Each entry in header_include_names specifies the
    // include name used by source in program that comes from an embedded header."
    // CL_PROGRAM_BINARY_TYPE: "CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT - A compiled binary is
    // associated with device." clLinkProgram: "creates a new program object which contains
    // ... the linked executable"; a function defined in one object is called from the
    // kernel of the other.
    let fx = Fixture::new();
    let function = compiled_function(&fx);
    assert_eq!(build_status(function), CL_BUILD_SUCCESS);
    assert_eq!(
        binary_type(function),
        CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT
    );
    let kernels = fx.program(KERNEL_SOURCE);
    assert_eq!(
        api().compile_program(kernels, c"", &[]),
        CL_SUCCESS,
        "{}",
        build_log(kernels)
    );
    // A compiled object is not an executable.
    let (k, status) = api().create_kernel_raw(kernels, Some(c"apply"));
    assert_eq!((k, status), (null_mut(), CL_INVALID_PROGRAM_EXECUTABLE));
    let linked = api()
        .link_program(fx.context, c"", &[function, kernels])
        .unwrap_or_else(|e| panic!("clLinkProgram failed: {e}"));
    assert_eq!(build_status(linked), CL_BUILD_SUCCESS);
    assert_eq!(binary_type(linked), CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
    assert_eq!(
        scalar::<cl_context>(&program_info(linked, CL_PROGRAM_CONTEXT).unwrap()),
        fx.context
    );
    assert_eq!(
        string(&program_info(linked, CL_PROGRAM_KERNEL_NAMES).unwrap()),
        "apply"
    );
    assert_eq!(apply_four(&fx, linked), [3.25, 6.25, -1.25, 30.25]);
    for p in [linked, kernels, function] {
        release_program(p);
    }
}

#[test]
fn a_library_links_into_an_executable() {
    // clLinkProgram: "-create-library: Create a library of compiled binaries specified in
    // input_programs argument." CL_PROGRAM_BINARY_TYPE_LIBRARY: "A library binary is
    // associated with device." A library is an input to a later link.
    let fx = Fixture::new();
    let function = compiled_function(&fx);
    let library = api()
        .link_program(fx.context, c"-create-library", &[function])
        .unwrap_or_else(|e| panic!("clLinkProgram(-create-library) failed: {e}"));
    assert_eq!(binary_type(library), CL_PROGRAM_BINARY_TYPE_LIBRARY);
    let (k, status) = api().create_kernel_raw(library, Some(c"apply"));
    assert_eq!((k, status), (null_mut(), CL_INVALID_PROGRAM_EXECUTABLE));
    let kernels = fx.program(KERNEL_SOURCE);
    assert_eq!(api().compile_program(kernels, c"", &[]), CL_SUCCESS);
    for param in [CL_PROGRAM_NUM_KERNELS, CL_PROGRAM_KERNEL_NAMES] {
        assert_eq!(
            program_info(library, param),
            Err(CL_INVALID_PROGRAM_EXECUTABLE),
            "a library has no executable"
        );
    }
    let linked = api()
        .link_program(fx.context, c"-cl-denorms-are-zero", &[library, kernels])
        .unwrap_or_else(|e| panic!("clLinkProgram failed: {e}"));
    assert_eq!(apply_four(&fx, linked), [3.25, 6.25, -1.25, 30.25]);
    // CL_PROGRAM_BUILD_OPTIONS: "Return the build, compile or link options specified by the
    // options argument in clBuildProgram, clCompileProgram or clLinkProgram, whichever was
    // performed last on program for device."
    assert_eq!(
        string(&build_info(library, device(), CL_PROGRAM_BUILD_OPTIONS).unwrap()),
        "-create-library"
    );
    assert_eq!(
        string(&build_info(linked, device(), CL_PROGRAM_BUILD_OPTIONS).unwrap()),
        "-cl-denorms-are-zero"
    );
    for p in [linked, kernels, library, function] {
        release_program(p);
    }
}

// Program binaries

/// `CL_PROGRAM_BINARIES` of `program` for the one device; panics unless there is one.
fn the_binary(program: cl_program) -> Vec<u8> {
    let binaries = api()
        .program_binaries(program)
        .expect("CL_PROGRAM_BINARIES");
    assert_eq!(binaries.len(), 1, "one binary per device");
    binaries.into_iter().next().unwrap()
}

#[test]
fn an_executable_binary_round_trips_and_rebuilds() {
    // CL_PROGRAM_BINARY_SIZES / CL_PROGRAM_BINARIES: "the program binaries for all devices
    // associated with program ... an executable binary, compiled binary or library binary".
    // clCreateProgramWithBinary loads it; "CL_PROGRAM_BINARY_TYPE_EXECUTABLE - An executable
    // program binary is associated with device"; kernels need a clBuildProgram first. The
    // binary keeps what the build options did: the -D value is part of the code, and
    // -cl-kernel-arg-info still gives argument names.
    let fx = Fixture::new();
    let source = "float scale(float x) { return x * FACTOR + 0.25f; }\n\
                  kernel void twice(global float *p) { p[0] = 2.0f * p[0]; }\n\
                  kernel void apply(global float *p) { size_t i = get_global_id(0); p[i] = scale(p[i]); }\n";
    let built = fx.built(source, c"-D FACTOR=3.0f -cl-kernel-arg-info");
    let binary = the_binary(built);
    assert_eq!(
        &binary[..8],
        b"CLIFTBIN",
        "clift's binary format (program_binary.rs)"
    );
    let (program, statuses) = api().create_program_with_binary(fx.context, &[device()], &[&binary]);
    let program = program.expect("clCreateProgramWithBinary");
    assert_eq!(statuses, [CL_SUCCESS]);
    assert_eq!(binary_type(program), CL_PROGRAM_BINARY_TYPE_EXECUTABLE);
    assert_eq!(build_status(program), CL_BUILD_NONE);
    let (k, status) = api().create_kernel_raw(program, Some(c"apply"));
    assert_eq!((k, status), (null_mut(), CL_INVALID_PROGRAM_EXECUTABLE));
    // No source: "a null string or the appropriate program source code is returned".
    assert_eq!(program_info(program, CL_PROGRAM_SOURCE).unwrap(), [0]);
    assert_eq!(
        api().build_program(program, c""),
        CL_SUCCESS,
        "{}",
        build_log(program)
    );
    assert_eq!(
        string(&program_info(program, CL_PROGRAM_KERNEL_NAMES).unwrap()),
        "twice;apply"
    );
    assert_eq!(apply_four(&fx, program), [3.25, 6.25, -1.25, 30.25]);
    let k = kernel(program, c"apply");
    assert_eq!(
        string(&api().kernel_arg_info(k, 0, CL_KERNEL_ARG_NAME).unwrap()),
        "p"
    );
    release_kernel(k);
    // The rebuilt program's binary is the same bytes.
    assert_eq!(the_binary(program), binary);
    for p in [program, built] {
        release_program(p);
    }
}

#[test]
fn a_compiled_object_binary_links_like_the_object() {
    // A compiled binary (CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT) loaded with
    // clCreateProgramWithBinary is an input of clLinkProgram like the program it came from;
    // it needs no embedded headers any more.
    let fx = Fixture::new();
    let function = compiled_function(&fx);
    let binary = the_binary(function);
    let (loaded, statuses) = api().create_program_with_binary(fx.context, &[device()], &[&binary]);
    let loaded = loaded.expect("clCreateProgramWithBinary");
    assert_eq!(statuses, [CL_SUCCESS]);
    assert_eq!(binary_type(loaded), CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT);
    let kernels = fx.program(KERNEL_SOURCE);
    assert_eq!(api().compile_program(kernels, c"", &[]), CL_SUCCESS);
    let linked = api()
        .link_program(fx.context, c"", &[loaded, kernels])
        .unwrap_or_else(|e| panic!("clLinkProgram failed: {e}"));
    assert_eq!(apply_four(&fx, linked), [3.25, 6.25, -1.25, 30.25]);
    // A program that has no binary for its device reports size 0.
    let unbuilt = fx.program(KERNEL_SOURCE);
    assert_eq!(the_binary(unbuilt), Vec::<u8>::new());
    for p in [unbuilt, linked, kernels, loaded, function] {
        release_program(p);
    }
}

#[test]
fn bad_binaries_are_invalid_binary_with_a_status_per_device() {
    // "CL_INVALID_BINARY if an invalid program binary was encountered for any device.
    // binary_status will return specific status for each device"; "CL_INVALID_VALUE if ...
    // any entry in lengths[i] is zero".
    let fx = Fixture::new();
    let built = fx.built("kernel void k(global int *a) { a[0] = 1; }\n", c"");
    let good = the_binary(built);
    let mut flipped = good.clone();
    let last_text_byte = good.len() - 9;
    flipped[last_text_byte] ^= 0x20;
    let mut truncated = good.clone();
    truncated.pop();
    let other_format = b"\x7fELF\x02\x01\x01\0 not a clift binary".to_vec();
    for bad in [flipped, truncated, other_format] {
        let (program, statuses) =
            api().create_program_with_binary(fx.context, &[device()], &[&bad]);
        assert_eq!(program, Err(CL_INVALID_BINARY));
        assert_eq!(statuses, [CL_INVALID_BINARY]);
    }
    let (program, statuses) = api().create_program_with_binary(fx.context, &[device()], &[&[]]);
    assert_eq!(program, Err(CL_INVALID_VALUE));
    assert_eq!(statuses, [CL_INVALID_VALUE]);
    release_program(built);
}

#[test]
fn link_of_an_uncompiled_program_is_invalid_operation() {
    // "CL_INVALID_OPERATION if the rules for devices containing compiled binaries or
    // libraries as described in input_programs argument above are not followed": each
    // input must hold a compiled object or library. A program only created from source, or
    // built into an executable, holds neither.
    let fx = Fixture::new();
    let raw = fx.program(KERNEL_SOURCE);
    assert_eq!(
        api().link_program(fx.context, c"", &[raw]),
        Err(CL_INVALID_OPERATION)
    );
    let function = compiled_function(&fx);
    assert_eq!(
        api().link_program(fx.context, c"", &[function, raw]),
        Err(CL_INVALID_OPERATION),
        "one compiled input and one not"
    );
    release_program(raw);
    release_program(function);
}

#[test]
fn a_failed_compile_is_compile_program_failure() {
    // clCompileProgram: "CL_COMPILE_PROGRAM_FAILURE if there is a failure to compile the
    // program source"; the status is CL_BUILD_ERROR and the log says why.
    let fx = Fixture::new();
    let program = fx.program("float f(float x) {\n  return x * ;\n}\n");
    assert_eq!(
        api().compile_program(program, c"", &[]),
        CL_COMPILE_PROGRAM_FAILURE
    );
    assert_eq!(build_status(program), CL_BUILD_ERROR);
    assert!(
        build_log(program).contains("error"),
        "{}",
        build_log(program)
    );
    // An include that no embedded header (or directory) provides fails too.
    let missing = fx.program("#include \"absent.h\"\nkernel void k() {}\n");
    assert_eq!(
        api().compile_program(missing, c"", &[]),
        CL_COMPILE_PROGRAM_FAILURE
    );
    assert!(
        build_log(missing).contains("absent.h"),
        "{}",
        build_log(missing)
    );
    release_program(missing);
    release_program(program);
}

#[test]
fn invalid_compile_and_link_options_are_rejected() {
    // clCompileProgram: "CL_INVALID_COMPILER_OPTIONS if the compiler options specified by
    // options are invalid." clLinkProgram: "CL_INVALID_LINKER_OPTIONS if the linker options
    // specified by options are invalid."
    let fx = Fixture::new();
    let program = fx.program(KERNEL_SOURCE);
    for options in [c"-cl-std=CL9.9", c"-frobnicate", c"-create-library"] {
        assert_eq!(
            api().compile_program(program, options, &[]),
            CL_INVALID_COMPILER_OPTIONS,
            "{options:?}"
        );
    }
    // The log names the option that was refused.
    assert_eq!(
        build_log(program),
        "<command line>: error: invalid build option '-create-library'\n"
    );
    assert_eq!(
        api().compile_program(program, c"-D X=1 -w", &[]),
        CL_SUCCESS
    );
    assert_eq!(
        api().compile_program(program, c"-D 'F(a,b)=a##b' -U X -g", &[]),
        CL_SUCCESS,
        "{}",
        build_log(program)
    );
    for options in [c"-D X=1", c"-frobnicate", c"-enable-link-options"] {
        assert_eq!(
            api().link_program(fx.context, options, &[program]),
            Err(CL_INVALID_LINKER_OPTIONS),
            "{options:?}"
        );
    }
    release_program(program);
}

// Unloading the compiler

#[test]
fn unloading_the_platform_compiler_succeeds() {
    // clUnloadPlatformCompiler: "This function returns CL_SUCCESS if the function is executed
    // successfully." (and OpenCL 1.1's clUnloadCompiler: "This call currently always returns
    // CL_SUCCESS.") "If platform specific compiler resources are released, the
    // implementation can reload them when needed": later builds still work.
    let api = api();
    let unload = entry!(api.clUnloadPlatformCompiler);
    let unload_all = entry!(api.clUnloadCompiler);
    // SAFETY: a valid platform handle.
    assert_eq!(unsafe { unload(api.platform()) }, CL_SUCCESS);
    // SAFETY: no arguments.
    assert_eq!(unsafe { unload_all() }, CL_SUCCESS);
    let fx = Fixture::new();
    assert_eq!(value_with(&fx, c"-D VALUE=5"), 5);
}

#[test]
fn unloading_the_compiler_of_a_non_platform_is_invalid_platform() {
    // "CL_INVALID_PLATFORM if platform is not a valid platform."
    let api = api();
    let unload = entry!(api.clUnloadPlatformCompiler);
    // SAFETY: a live handle of another type.
    assert_eq!(unsafe { unload(device()) }, CL_INVALID_PLATFORM);
}

#[test]
fn double_needs_no_pragma_in_opencl_c_1_2_but_does_in_1_1() {
    // OpenCL C 1.2 made double an optional core feature (6.1.1): on a device that supports
    // it (CL_DEVICE_DOUBLE_FP_CONFIG is not 0) a 1.2 program uses double directly. OpenCL C
    // 1.1 requires `#pragma OPENCL EXTENSION cl_khr_fp64 : enable` first.
    let fx = Fixture::new();
    let source = "kernel void k(global double *a) { a[0] = a[0] * 0.5; }\n";
    let program = fx.program(source);
    assert_eq!(
        build(program, 0, None, Some(c"")),
        CL_SUCCESS,
        "{}",
        build_log(program)
    );
    release_program(program);
    let old = fx.program(source);
    assert_eq!(
        build(old, 0, None, Some(c"-cl-std=CL1.1")),
        CL_BUILD_PROGRAM_FAILURE
    );
    assert!(
        build_log(old).contains("requires cl_khr_fp64"),
        "{}",
        build_log(old)
    );
    release_program(old);
}

// Linking across objects: extern declarations, shared program-scope variables, failures.

/// Compiles `source` into an object, asserting success.
fn compiled(fx: &Fixture, source: &str) -> cl_program {
    let program = fx.program(source);
    assert_eq!(
        api().compile_program(program, c"", &[]),
        CL_SUCCESS,
        "{}",
        build_log(program)
    );
    program
}

/// `clLinkProgram` of `inputs` with no options, as called: the program and the status.
fn link_raw(fx: &Fixture, inputs: &[cl_program]) -> (cl_program, cl_int) {
    let count = cl_uint::try_from(inputs.len()).unwrap();
    // SAFETY: no callback, no user data.
    unsafe {
        api().link_program_raw(
            fx.context,
            0,
            None,
            Some(c""),
            count,
            Some(inputs),
            None,
            null_mut(),
        )
    }
}

/// Links `inputs` into an executable, runs its kernel `k(global float *out)` on 3
/// work-items and returns what they wrote.
fn linked_output(fx: &Fixture, inputs: &[cl_program]) -> Vec<f32> {
    let linked = api()
        .link_program(fx.context, c"", inputs)
        .unwrap_or_else(|e| panic!("link: {e}"));
    let k = kernel(linked, c"k");
    let out = fx.buffer(12);
    assert_eq!(api().set_kernel_arg_mem(k, 0, out), CL_SUCCESS);
    fx.run_1d(k, 3, None);
    let values = array::<f32>(&fx.read(out, 12));
    release_mem(out);
    release_kernel(k);
    release_program(linked);
    values
}

#[test]
fn extern_declarations_alone_compile() {
    // 6.8: "The extern storage-class specifier can only be used for functions (kernel and
    // non-kernel functions) and global variables declared in program scope". A compiled
    // object may declare what another object defines, even with an incomplete type.
    let fx = Fixture::new();
    for source in [
        "extern constant float foo;\n",
        "extern constant struct bar bart;\n",
        "extern int baz(int, int);\n",
        "extern kernel void other(global float *p);\n",
    ] {
        let program = fx.program(source);
        assert_eq!(
            api().compile_program(program, c"", &[]),
            CL_SUCCESS,
            "{source}: {}",
            build_log(program)
        );
        assert_eq!(build_status(program), CL_BUILD_SUCCESS);
        release_program(program);
    }
}

#[test]
fn a_program_scope_variable_is_shared_by_the_linked_objects() {
    // One object defines the `__constant` variables (OpenCL C 1.2 allows program-scope
    // variables only in the constant address space) and the struct; the other declares them
    // `extern`, with its own definition of the same struct, and reads them: both name the
    // same storage.
    let fx = Fixture::new();
    let definitions = compiled(
        &fx,
        "constant float scale = 2.5f;\n\
         constant struct pair { float a, b; } offsets = { 0.25f, -1.0f };\n\
         constant float table[3] = { 10.0f, 20.0f, 30.0f };\n",
    );
    let user = compiled(
        &fx,
        "extern constant float scale;\n\
         extern constant struct pair { float a, b; } offsets;\n\
         extern constant float table[];\n\
         kernel void k(global float *out) {\n\
           int i = get_global_id(0);\n\
           out[i] = table[i] * scale + (i == 2 ? offsets.b : offsets.a);\n\
         }\n",
    );
    assert_eq!(
        linked_output(&fx, &[definitions, user]),
        [25.25, 50.25, 74.0]
    );
    // The order of the objects does not matter.
    assert_eq!(
        linked_output(&fx, &[user, definitions]),
        [25.25, 50.25, 74.0]
    );
    release_program(user);
    release_program(definitions);
}

#[test]
fn an_extern_declaration_in_the_same_source_names_the_definition() {
    // A use before the definition, through the extern declaration, reads the defined value.
    let fx = Fixture::new();
    let program = fx.built(
        "extern constant float later;\n\
         float get(void) { return later; }\n\
         constant float later = 4.5f;\n\
         kernel void k(global float *out) { out[get_global_id(0)] = get() + later; }\n",
        c"",
    );
    let k = kernel(program, c"k");
    let out = fx.buffer(4);
    assert_eq!(api().set_kernel_arg_mem(k, 0, out), CL_SUCCESS);
    fx.run_1d(k, 1, None);
    assert_eq!(scalar::<f32>(&fx.read(out, 4)), 9.0);
    release_mem(out);
    release_kernel(k);
    release_program(program);
    // Two definitions of one variable, or an extern declaration of another type, are errors.
    for (source, message) in [
        (
            "constant int v = 1;\nconstant int v = 2;\nkernel void k() {}\n",
            "2:14: error: redefinition of 'v'",
        ),
        (
            "constant int v = 1;\nextern constant float v;\nkernel void k() {}\n",
            "2:23: error: conflicting types for 'v'",
        ),
    ] {
        let program = fx.program(source);
        assert_eq!(build(program, 0, None, None), CL_BUILD_PROGRAM_FAILURE);
        let log = build_log(program);
        assert!(log.contains(message), "{source}: {log}");
        release_program(program);
    }
}

#[test]
fn a_build_that_calls_an_undefined_function_fails_with_its_log() {
    // clBuildProgram: "CL_BUILD_PROGRAM_FAILURE if there is a failure to build the program
    // executable"; the log names the function and the call.
    let fx = Fixture::new();
    let program = fx.program(
        "int missing(int x);\n\
         kernel void k(global int *p) {\n  p[0] = missing(p[0]);\n}\n",
    );
    assert_eq!(build(program, 0, None, None), CL_BUILD_PROGRAM_FAILURE);
    assert_eq!(build_status(program), CL_BUILD_ERROR);
    let log = build_log(program);
    assert!(
        log.contains("<source>:3:10: error: undefined reference to function 'missing'"),
        "{log}"
    );
    assert!(
        log.contains("<source>:1:5: note: 'missing' is declared here"),
        "{log}"
    );
    release_program(program);
    // An extern variable that nothing defines.
    let program = fx.program(
        "extern constant int nowhere;\n\
         kernel void k(global int *p) { p[0] = nowhere; }\n",
    );
    assert_eq!(build(program, 0, None, None), CL_BUILD_PROGRAM_FAILURE);
    let log = build_log(program);
    assert!(
        log.contains("<source>:2:39: error: undefined reference to variable 'nowhere'"),
        "{log}"
    );
    release_program(program);
}

#[test]
fn a_failed_link_returns_a_program_with_its_log() {
    // clLinkProgram: "If the linking operation can begin, the function returns a valid
    // non-zero program object"; "CL_LINK_PROGRAM_FAILURE if there is a failure to link the
    // compiled binaries and/or libraries". The kernel calls a kernel no object defines.
    let fx = Fixture::new();
    let object = compiled(
        &fx,
        "extern kernel void copy(global float *src, global float *dst);\n\
         kernel void k(global float *src, global float *dst) {\n  copy(src, dst);\n}\n",
    );
    let (linked, status) = link_raw(&fx, &[object]);
    assert_eq!(status, CL_LINK_PROGRAM_FAILURE);
    assert!(!linked.is_null());
    assert_eq!(build_status(linked), CL_BUILD_ERROR);
    // Positions in a link's log are those of the joined objects' preprocessed text.
    let log = build_log(linked);
    assert!(
        log.contains("<source>:3:1: error: undefined reference to function 'copy'"),
        "{log}"
    );
    // It has no executable.
    assert_eq!(
        api().create_kernel(linked, c"k"),
        Err(CL_INVALID_PROGRAM_EXECUTABLE)
    );
    release_program(linked);
    release_program(object);
}

#[test]
fn each_object_keeps_its_static_names_and_tags() {
    // C 6.2.2: "each declaration of a particular identifier with internal linkage denotes
    // the same object or function" only within one translation unit; each compiled object
    // is one. Both objects define `struct s`, `static float helper` and a `static constant`
    // variable of the same names; each kernel sees its own.
    let fx = Fixture::new();
    let first = compiled(
        &fx,
        "struct s { float v; };\n\
         static constant float bias = 1.0f;\n\
         static float helper(struct s x) { return x.v + bias; }\n\
         float first(float x) { struct s a = { x }; return helper(a); }\n",
    );
    let second = compiled(
        &fx,
        "struct s { float v, w; };\n\
         static constant float bias = 100.0f;\n\
         static float helper(struct s x) { return x.v * x.w + bias; }\n\
         float first(float x);\n\
         kernel void k(global float *out) {\n\
           int i = get_global_id(0);\n\
           struct s b = { i, 2.0f };\n\
           out[i] = first(i) + helper(b);\n\
         }\n",
    );
    // out[i] = (i + 1) + (2i + 100)
    assert_eq!(linked_output(&fx, &[first, second]), [101.0, 104.0, 107.0]);
    // A static function is not visible to the other object: its call is undefined.
    let caller = compiled(
        &fx,
        "float helper(float x);\n\
         kernel void k(global float *out) { out[0] = helper(1.0f); }\n",
    );
    let statics = compiled(&fx, "static float helper(float x) { return x; }\n");
    let (failed, status) = link_raw(&fx, &[statics, caller]);
    assert_eq!(status, CL_LINK_PROGRAM_FAILURE);
    assert!(
        build_log(failed).contains("undefined reference to function 'helper'"),
        "{}",
        build_log(failed)
    );
    for p in [failed, statics, caller, second, first] {
        release_program(p);
    }
}
