//! Program entry points (section 5.6).
//!
//! Programs are real objects with their source, devices and build records: each entry point
//! checks its arguments as the spec lists them, then `clift_runtime::program` builds,
//! compiles or links with clift's OpenCL C compiler. Program binaries are clift's own format
//! (`clift_runtime::program_binary`); anything else is `CL_INVALID_BINARY`.

use std::ffi::{CStr, c_char, c_uchar, c_void};
use std::sync::Arc;

use clift_runtime::context::Context;
use clift_runtime::device::Device;
use clift_runtime::object::ClObject;
use clift_runtime::platform::Platform;
use clift_runtime::program::{self, CompileOptions, LinkOptions, Program};
use clift_runtime::program_binary::ProgramBinary;
use clift_runtime::{ClResult, fail};
use khronos_headers::*;

use super::context::context;
use crate::boundary::{call, call_ret, note_context};
use crate::handle;
use crate::info::{InfoValue, answer};

/// The C type of the `pfn_notify` of `clBuildProgram`, `clCompileProgram`, `clLinkProgram`.
pub(crate) type BuildNotify = Option<unsafe extern "C" fn(cl_program, *mut c_void)>;

/// The program behind a handle, its context noted as the one this call concerns.
pub(crate) fn program<'a>(handle: cl_program) -> ClResult<&'a Program> {
    let program = handle::object::<Program>(handle)?;
    note_context(program.context());
    Ok(program)
}

/// The context behind a handle as a new strong reference, for the object being created.
fn shared_context(handle: cl_context) -> ClResult<Arc<Context>> {
    context(handle)?;
    handle::shared::<Context>(handle)
}

/// A C string argument as bytes, without its NUL.
///
/// # Safety
/// `text` must point to a NUL-terminated string.
unsafe fn c_bytes<'a>(text: *const c_char) -> &'a [u8] {
    // SAFETY: the caller's contract.
    unsafe { CStr::from_ptr(text) }.to_bytes()
}

/// An `options` argument: NULL is no options.
///
/// # Safety
/// `options` must be NULL or point to a NUL-terminated string.
unsafe fn option_bytes<'a>(options: *const c_char) -> &'a [u8] {
    if options.is_null() {
        return b"";
    }
    // SAFETY: the caller's contract.
    unsafe { c_bytes(options) }
}

/// A C string answer (`char[]`) from bytes that are not necessarily UTF-8.
fn byte_string(bytes: &[u8]) -> InfoValue {
    let mut with_nul = Vec::with_capacity(bytes.len() + 1);
    with_nul.extend_from_slice(bytes);
    with_nul.push(0);
    InfoValue::slice(&with_nul)
}

/// "CL_INVALID_VALUE if device_list is NULL and num_devices is greater than zero, or if
/// device_list is not NULL and num_devices is zero."
fn check_device_list(num_devices: cl_uint, device_list: *const cl_device_id) -> ClResult<()> {
    if device_list.is_null() != (num_devices == 0) {
        return fail(CL_INVALID_VALUE);
    }
    Ok(())
}

/// "CL_INVALID_VALUE if pfn_notify is NULL but user_data is not NULL."
fn check_notify(pfn_notify: BuildNotify, user_data: *mut c_void) -> ClResult<()> {
    if pfn_notify.is_none() && !user_data.is_null() {
        return fail(CL_INVALID_VALUE);
    }
    Ok(())
}

/// The devices a build or compile is for, as indices into the program's devices: all of
/// them when `device_list` is NULL.
///
/// # Safety
/// `device_list` must be NULL or valid for `num_devices` reads (checked by
/// [`check_device_list`] to agree with `num_devices`).
unsafe fn program_devices(
    program: &Program,
    num_devices: cl_uint,
    device_list: *const cl_device_id,
) -> ClResult<Vec<usize>> {
    if device_list.is_null() {
        return Ok((0..program.devices().len()).collect());
    }
    // SAFETY: the caller's contract.
    let handles = unsafe { std::slice::from_raw_parts(device_list, num_devices as usize) };
    handles
        .iter()
        .map(|&h| {
            // "CL_INVALID_DEVICE if OpenCL devices listed in device_list are not in the list
            // of devices associated with program."
            let device = handle::object::<Device>(h)?;
            program
                .device_index(device)
                .map_or_else(|| fail(CL_INVALID_DEVICE), Ok)
        })
        .collect()
}

/// The devices of a `device_list` that must all belong to `context`, as the context's own
/// references: "CL_INVALID_DEVICE if OpenCL devices listed in device_list are not in the
/// list of devices associated with context."
///
/// # Safety
/// `device_list` must be valid for `num_devices` reads (neither may be NULL/zero).
unsafe fn context_devices(
    context: &Context,
    num_devices: cl_uint,
    device_list: *const cl_device_id,
) -> ClResult<Vec<Arc<Device>>> {
    // SAFETY: the caller's contract.
    let handles = unsafe { std::slice::from_raw_parts(device_list, num_devices as usize) };
    handles
        .iter()
        .map(|&h| {
            let device = handle::object::<Device>(h)?;
            context
                .devices()
                .iter()
                .find(|d| std::ptr::eq(Arc::as_ptr(d), device))
                .cloned()
                .map_or_else(|| fail(CL_INVALID_DEVICE), Ok)
        })
        .collect()
}

/// Calls the application's build callback: "a notification routine ... called when the
/// program executable has been built (successfully or unsuccessfully)".
fn notify_built(pfn_notify: BuildNotify, program: cl_program, user_data: *mut c_void) {
    if let Some(func) = pfn_notify {
        // SAFETY: the application's callback, called with the program and its own data, as
        // the spec defines.
        unsafe { func(program, user_data) };
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clCreateProgramWithSource(
    context: cl_context,
    count: cl_uint,
    strings: *mut *const c_char,
    lengths: *const usize,
    errcode_ret: *mut cl_int,
) -> cl_program {
    call_ret(
        "clCreateProgramWithSource",
        errcode_ret,
        std::ptr::null_mut(),
        || {
            let context = shared_context(context)?;
            // "CL_INVALID_VALUE if count is zero or if strings or any entry in strings is
            // NULL."
            if count == 0 || strings.is_null() {
                return fail(CL_INVALID_VALUE);
            }
            // SAFETY: `strings` holds `count` entries, as the spec requires.
            let strings = unsafe { std::slice::from_raw_parts(strings, count as usize) };
            if strings.iter().any(|s| s.is_null()) {
                return fail(CL_INVALID_VALUE);
            }
            let mut source = Vec::new();
            for (i, &string) in strings.iter().enumerate() {
                // "If an element in lengths is zero, its accompanying string is
                // null-terminated. If lengths is NULL, all strings in the strings argument
                // are considered null-terminated."
                let length = if lengths.is_null() {
                    0
                } else {
                    // SAFETY: a non-NULL `lengths` holds `count` entries.
                    unsafe { lengths.add(i).read() }
                };
                let bytes = if length == 0 {
                    // SAFETY: a string without a length is NUL-terminated.
                    unsafe { c_bytes(string) }
                } else {
                    // SAFETY: "Each string is ... the number of chars" given in `lengths`.
                    unsafe { std::slice::from_raw_parts(string.cast::<u8>(), length) }
                };
                source.extend_from_slice(bytes);
            }
            Ok(handle::new_handle(Program::with_source(context, source)))
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clCreateProgramWithBinary(
    context: cl_context,
    num_devices: cl_uint,
    device_list: *const cl_device_id,
    lengths: *const usize,
    binaries: *mut *const c_uchar,
    binary_status: *mut cl_int,
    errcode_ret: *mut cl_int,
) -> cl_program {
    call_ret(
        "clCreateProgramWithBinary",
        errcode_ret,
        std::ptr::null_mut(),
        || {
            let context = shared_context(context)?;
            // "CL_INVALID_VALUE if device_list is NULL or num_devices is zero."
            if device_list.is_null() || num_devices == 0 {
                return fail(CL_INVALID_VALUE);
            }
            // SAFETY: `device_list` holds `num_devices` handles, as the spec requires.
            let devices = unsafe { context_devices(&context, num_devices, device_list) }?;
            let decoded: Vec<Result<ProgramBinary, cl_int>> = (0..devices.len())
                .map(|i| {
                    if lengths.is_null() || binaries.is_null() {
                        return Err(CL_INVALID_VALUE);
                    }
                    // SAFETY: non-NULL `lengths` and `binaries` hold `num_devices` entries.
                    let (length, binary) =
                        unsafe { (lengths.add(i).read(), binaries.add(i).read()) };
                    // "CL_INVALID_VALUE if lengths[i] is zero or if binaries[i] is a NULL
                    // value".
                    if length == 0 || binary.is_null() {
                        return Err(CL_INVALID_VALUE);
                    }
                    // SAFETY: "binaries[i] ... the program binary ... of lengths[i] bytes".
                    let bytes = unsafe { std::slice::from_raw_parts(binary, length) };
                    // "CL_INVALID_BINARY if program binary is not a valid binary for the
                    // specified device": clift's format (program_binary.rs), whose options
                    // must be ones clift accepts.
                    ProgramBinary::decode(bytes)
                        .ok()
                        .filter(|b| CompileOptions::parse(&b.options).is_ok())
                        .ok_or(CL_INVALID_BINARY)
                })
                .collect();
            let statuses: Vec<cl_int> = decoded
                .iter()
                .map(|d| d.as_ref().err().copied().unwrap_or(CL_SUCCESS))
                .collect();
            if !binary_status.is_null() {
                // SAFETY: "binary_status ... an array of num_devices entries" when not NULL.
                unsafe {
                    super::write_list(&statuses, binary_status, num_devices, std::ptr::null_mut())
                };
            }
            // "CL_INVALID_VALUE if lengths or binaries are NULL or if any entry in lengths[i]
            // is zero or binaries[i] is NULL."
            if statuses.contains(&CL_INVALID_VALUE) {
                return fail(CL_INVALID_VALUE);
            }
            // "CL_INVALID_BINARY if an invalid program binary was encountered for any device.
            // binary_status will return specific status for each device."
            let binaries = decoded
                .into_iter()
                .collect::<Result<Vec<_>, cl_int>>()
                .or_else(fail)?;
            Ok(handle::new_handle(Program::with_binaries(
                context, devices, binaries,
            )))
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clCreateProgramWithBuiltInKernels(
    context: cl_context,
    num_devices: cl_uint,
    device_list: *const cl_device_id,
    kernel_names: *const c_char,
    errcode_ret: *mut cl_int,
) -> cl_program {
    call_ret(
        "clCreateProgramWithBuiltInKernels",
        errcode_ret,
        std::ptr::null_mut(),
        || {
            let context = shared_context(context)?;
            // "CL_INVALID_VALUE if device_list is NULL or num_devices is zero."
            if device_list.is_null() || num_devices == 0 {
                return fail(CL_INVALID_VALUE);
            }
            // "CL_INVALID_VALUE if kernel_names is NULL ..."
            if kernel_names.is_null() {
                return fail(CL_INVALID_VALUE);
            }
            // SAFETY: `device_list` holds `num_devices` handles, as the spec requires.
            unsafe { context_devices(&context, num_devices, device_list) }?;
            // "... or kernel_names contains a kernel name that is not supported by any of the
            // devices in device_list." clift's devices have no built-in kernels
            // (CL_DEVICE_BUILT_IN_KERNELS is the empty string), so every name in the list,
            // an empty one included, is such a name.
            fail(CL_INVALID_VALUE)
        },
    )
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clRetainProgram(program: cl_program) -> cl_int {
    call("clRetainProgram", || handle::retain::<Program>(program))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clReleaseProgram(program: cl_program) -> cl_int {
    call("clReleaseProgram", || handle::release::<Program>(program))
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clBuildProgram(
    program: cl_program,
    num_devices: cl_uint,
    device_list: *const cl_device_id,
    options: *const c_char,
    pfn_notify: BuildNotify,
    user_data: *mut c_void,
) -> cl_int {
    call("clBuildProgram", || {
        let object = self::program(program)?;
        check_device_list(num_devices, device_list)?;
        check_notify(pfn_notify, user_data)?;
        // SAFETY: `device_list` holds `num_devices` handles, as the spec requires.
        let devices = unsafe { program_devices(object, num_devices, device_list) }?;
        // "CL_INVALID_BINARY if program is created with clCreateProgramWithBinary and devices
        // listed in device_list do not have a valid program binary loaded" cannot happen: a
        // program from binaries has a valid one for each of its devices (creation checks
        // them), and "CL_INVALID_OPERATION if program was not created with
        // clCreateProgramWithSource or clCreateProgramWithBinary" neither (there are no
        // built-in kernels).
        // SAFETY: `options` is NULL or a NUL-terminated string, as the spec requires.
        let options = unsafe { option_bytes(options) };
        // "CL_INVALID_BUILD_OPTIONS if the build options specified by options are invalid."
        if let Err(bad) = CompileOptions::parse(options) {
            object.record_invalid_option(&devices, options, &bad);
            return fail(CL_INVALID_BUILD_OPTIONS);
        }
        // "CL_INVALID_OPERATION if the build of a program executable for any of the devices
        // listed in device_list by a previous call to clBuildProgram for program has not
        // completed" cannot happen: a build is over when its call returns.
        // "CL_INVALID_OPERATION if there are kernel objects attached to program."
        if object.has_kernels() {
            return fail(CL_INVALID_OPERATION);
        }
        let result = object.build(&devices, options);
        notify_built(pfn_notify, program, user_data);
        result
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clCompileProgram(
    program: cl_program,
    num_devices: cl_uint,
    device_list: *const cl_device_id,
    options: *const c_char,
    num_input_headers: cl_uint,
    input_headers: *const cl_program,
    header_include_names: *mut *const c_char,
    pfn_notify: BuildNotify,
    user_data: *mut c_void,
) -> cl_int {
    call("clCompileProgram", || {
        let object = self::program(program)?;
        check_device_list(num_devices, device_list)?;
        // "CL_INVALID_VALUE if num_input_headers is zero and header_include_names or
        // input_headers are not NULL or if num_input_headers is not zero and
        // header_include_names or input_headers are NULL."
        let no_headers = num_input_headers == 0;
        if input_headers.is_null() != no_headers || header_include_names.is_null() != no_headers {
            return fail(CL_INVALID_VALUE);
        }
        check_notify(pfn_notify, user_data)?;
        // SAFETY: `device_list` holds `num_devices` handles, as the spec requires.
        let devices = unsafe { program_devices(object, num_devices, device_list) }?;
        let mut embedded = Vec::new();
        if !no_headers {
            // SAFETY: both arrays hold `num_input_headers` entries, as the spec requires.
            let (headers, names) = unsafe {
                (
                    std::slice::from_raw_parts(input_headers, num_input_headers as usize),
                    std::slice::from_raw_parts(header_include_names, num_input_headers as usize),
                )
            };
            // The 1.2 spec names no error for an entry that is not a program: it is the
            // "not a valid program object" that CL_INVALID_PROGRAM means everywhere else
            // (clLinkProgram's input_programs included). A NULL name is an invalid value.
            for (&header, &name) in headers.iter().zip(names) {
                let header = handle::object::<Program>(header)?;
                if name.is_null() {
                    return fail(CL_INVALID_VALUE);
                }
                // SAFETY: a non-NULL name is a NUL-terminated string, as the spec requires.
                let name = unsafe { std::ffi::CStr::from_ptr(name) }
                    .to_string_lossy()
                    .into_owned();
                embedded.push((name, String::from_utf8_lossy(header.source()).into_owned()));
            }
        }
        // SAFETY: `options` is NULL or a NUL-terminated string, as the spec requires.
        let options = unsafe { option_bytes(options) };
        // "CL_INVALID_COMPILER_OPTIONS if the compiler options specified by options are
        // invalid."
        if let Err(bad) = CompileOptions::parse(options) {
            object.record_invalid_option(&devices, options, &bad);
            return fail(CL_INVALID_COMPILER_OPTIONS);
        }
        // "CL_INVALID_OPERATION if program has no source i.e. it has not been created with
        // clCreateProgramWithSource": every clift program has (`Program::source`). The
        // in-progress and attached-kernel cases cannot happen, as for clBuildProgram.
        if object.has_kernels() {
            return fail(CL_INVALID_OPERATION);
        }
        let result = object.compile(&devices, options, embedded);
        notify_built(pfn_notify, program, user_data);
        result
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clLinkProgram(
    context: cl_context,
    num_devices: cl_uint,
    device_list: *const cl_device_id,
    options: *const c_char,
    num_input_programs: cl_uint,
    input_programs: *const cl_program,
    pfn_notify: BuildNotify,
    user_data: *mut c_void,
    errcode_ret: *mut cl_int,
) -> cl_program {
    // A link that began but failed still returns its program (see `program::Linked`), with
    // CL_LINK_PROGRAM_FAILURE in `errcode_ret`.
    let mut link_failure = None;
    let program = call_ret("clLinkProgram", errcode_ret, std::ptr::null_mut(), || {
        let context = self::context(context)?;
        check_device_list(num_devices, device_list)?;
        // "CL_INVALID_VALUE if num_input_programs is zero and input_programs is NULL or if
        // num_input_programs is zero and input_programs is not NULL or if num_input_programs
        // is not zero and input_programs is NULL."
        if num_input_programs == 0 || input_programs.is_null() {
            return fail(CL_INVALID_VALUE);
        }
        // SAFETY: `input_programs` holds `num_input_programs` handles, as the spec requires.
        let inputs =
            unsafe { std::slice::from_raw_parts(input_programs, num_input_programs as usize) };
        // "CL_INVALID_PROGRAM if programs specified in input_programs are not valid program
        // objects."
        let inputs: Vec<Arc<Program>> = inputs
            .iter()
            .map(|&p| handle::shared::<Program>(p))
            .collect::<ClResult<_>>()?;
        check_notify(pfn_notify, user_data)?;
        let devices = if device_list.is_null() {
            context.devices().to_vec()
        } else {
            // SAFETY: `device_list` holds `num_devices` handles, as the spec requires.
            unsafe { context_devices(context, num_devices, device_list) }?
        };
        // SAFETY: `options` is NULL or a NUL-terminated string, as the spec requires.
        let options = unsafe { option_bytes(options) };
        // "CL_INVALID_LINKER_OPTIONS if the linker options specified by options are invalid."
        if LinkOptions::parse(options).is_err() {
            return fail(CL_INVALID_LINKER_OPTIONS);
        }
        let context =
            handle::shared::<clift_runtime::context::Context>(handle::handle_of(context))?;
        let linked = program::link(context, &devices, &inputs, options)?;
        link_failure = linked.result.err();
        let handle = handle::new_handle(linked.program);
        notify_built(pfn_notify, handle, user_data);
        Ok(handle)
    });
    if let Some(error) = link_failure
        && !errcode_ret.is_null()
    {
        // SAFETY: the spec lets applications pass NULL or a pointer to a writable `cl_int`.
        unsafe { errcode_ret.write(error.code()) };
    }
    program
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clUnloadPlatformCompiler(platform: cl_platform_id) -> cl_int {
    call("clUnloadPlatformCompiler", || {
        // "CL_INVALID_PLATFORM if platform is not a valid platform." Unloading is "a hint
        // from the application"; there is no compiler loaded to release.
        handle::object::<Platform>(platform)?;
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clUnloadCompiler() -> cl_int {
    // OpenCL 1.1 (deprecated in 1.2): "This call currently always returns CL_SUCCESS."
    call("clUnloadCompiler", || Ok(()))
}

fn program_info(program: &Program, param: cl_program_info) -> ClResult<InfoValue> {
    use InfoValue as V;
    let devices = program.devices();
    Ok(match param {
        CL_PROGRAM_REFERENCE_COUNT => V::scalar(program.header().api_refs()),
        CL_PROGRAM_CONTEXT => V::scalar::<cl_context>(handle::handle_of(&**program.context())),
        CL_PROGRAM_NUM_DEVICES => V::scalar(devices.len() as cl_uint),
        CL_PROGRAM_DEVICES => {
            let handles: Vec<cl_device_id> =
                devices.iter().map(|d| handle::handle_of(&**d)).collect();
            V::slice(&handles)
        }
        // "The source string returned is a concatenation of all source strings specified to
        // clCreateProgramWithSource with a null terminator."
        CL_PROGRAM_SOURCE => byte_string(program.source()),
        // "Could be an executable binary, compiled binary or library binary ... If a specific
        // device does not have a binary, a size of zero is returned."
        CL_PROGRAM_BINARY_SIZES => {
            let sizes: Vec<usize> = program.binaries().iter().map(Vec::len).collect();
            V::slice(&sizes)
        }
        // "CL_INVALID_PROGRAM_EXECUTABLE if param_name is CL_PROGRAM_NUM_KERNELS or
        // CL_PROGRAM_KERNEL_NAMES and a successful program executable has not been built for
        // at least one device in the list of devices associated with program."
        CL_PROGRAM_NUM_KERNELS => V::scalar(program.executable()?.kernels.len()),
        CL_PROGRAM_KERNEL_NAMES => V::string(&program.executable()?.kernel_names()),
        // "CL_INVALID_VALUE if param_name is not valid".
        _ => return fail(CL_INVALID_VALUE),
    })
}

/// `CL_PROGRAM_BINARIES`: `param_value` is the application's array of one pointer per device,
/// each to a buffer of that device's `CL_PROGRAM_BINARY_SIZES` bytes. The binaries are copied
/// into those buffers, never over the array; a NULL entry skips its device.
///
/// # Safety
/// `size_ret` must be NULL or valid for a write; `out`, when not NULL, must hold
/// `size / size_of::<*mut u8>()` pointers, each NULL or to as many writable bytes as its
/// device's `CL_PROGRAM_BINARY_SIZES` entry.
unsafe fn program_binaries(
    program: &Program,
    size: usize,
    out: *mut c_void,
    size_ret: *mut usize,
) -> ClResult<()> {
    let needed = program.devices().len() * size_of::<*mut c_uchar>();
    // "CL_INVALID_VALUE if ... size in bytes specified by param_value_size is < size of return
    // type ... and param_value is not NULL."
    if !out.is_null() && size < needed {
        return fail(CL_INVALID_VALUE);
    }
    if !size_ret.is_null() {
        // SAFETY: the caller's contract.
        unsafe { size_ret.write(needed) };
    }
    if !out.is_null() {
        let targets = out.cast::<*mut c_uchar>();
        for (i, binary) in program.binaries().iter().enumerate() {
            // SAFETY: `out` holds one pointer per device (size checked above).
            let target = unsafe { targets.add(i).read() };
            if !target.is_null() && !binary.is_empty() {
                // SAFETY: the application's buffer of CL_PROGRAM_BINARY_SIZES[i] bytes.
                unsafe { std::ptr::copy_nonoverlapping(binary.as_ptr(), target, binary.len()) };
            }
        }
    }
    Ok(())
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clGetProgramInfo(
    program: cl_program,
    param_name: cl_program_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    call("clGetProgramInfo", || {
        let program = self::program(program)?;
        if param_name == CL_PROGRAM_BINARIES {
            // SAFETY: the application's out-parameter, as the spec describes it.
            return unsafe {
                program_binaries(program, param_value_size, param_value, param_value_size_ret)
            };
        }
        // SAFETY: the application's buffers, as the spec describes them.
        unsafe {
            answer(
                program_info(program, param_name),
                param_value_size,
                param_value,
                param_value_size_ret,
            )
        }
    })
}

fn program_build_info(
    program: &Program,
    index: usize,
    param: cl_program_build_info,
) -> ClResult<InfoValue> {
    let record = program.build_record(index);
    Ok(match param {
        CL_PROGRAM_BUILD_STATUS => InfoValue::scalar(record.status),
        CL_PROGRAM_BUILD_OPTIONS => byte_string(&record.options),
        CL_PROGRAM_BUILD_LOG => InfoValue::string(&record.log),
        CL_PROGRAM_BINARY_TYPE => InfoValue::scalar(program.binary_type(index)),
        // "CL_INVALID_VALUE if param_name is not valid".
        _ => return fail(CL_INVALID_VALUE),
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn clGetProgramBuildInfo(
    program: cl_program,
    device: cl_device_id,
    param_name: cl_program_build_info,
    param_value_size: usize,
    param_value: *mut c_void,
    param_value_size_ret: *mut usize,
) -> cl_int {
    call("clGetProgramBuildInfo", || {
        let program = self::program(program)?;
        // "CL_INVALID_DEVICE if device is not in the list of devices associated with
        // program."
        let device = handle::object::<Device>(device)?;
        let Some(index) = program.device_index(device) else {
            return fail(CL_INVALID_DEVICE);
        };
        // SAFETY: the application's buffers, as the spec describes them.
        unsafe {
            answer(
                program_build_info(program, index, param_name),
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
    use crate::api::{clCreateContextFromType, clGetDeviceIDs, clGetPlatformIDs, clReleaseContext};
    use std::ptr::{null, null_mut};
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn new_context() -> cl_context {
        let mut err = 1;
        // SAFETY: no properties, no callback; `err` is a valid out-parameter.
        let context = unsafe {
            clCreateContextFromType(null(), CL_DEVICE_TYPE_CPU, None, null_mut(), &mut err)
        };
        assert_eq!(err, CL_SUCCESS);
        context
    }

    fn the_device() -> cl_device_id {
        let mut device = null_mut();
        // SAFETY: one writable entry.
        let err =
            unsafe { clGetDeviceIDs(null_mut(), CL_DEVICE_TYPE_CPU, 1, &mut device, null_mut()) };
        assert_eq!(err, CL_SUCCESS);
        device
    }

    /// A program from source, created as the application would.
    fn new_program(context: cl_context, source: &CStr) -> cl_program {
        let mut err = 1;
        let mut strings = [source.as_ptr()];
        // SAFETY: one NUL-terminated string, no lengths.
        let program = unsafe {
            clCreateProgramWithSource(context, 1, strings.as_mut_ptr(), null(), &mut err)
        };
        assert_eq!(err, CL_SUCCESS);
        program
    }

    /// `clGetProgramInfo` / `clGetProgramBuildInfo` answers as bytes, or the error.
    fn info_bytes(
        query: impl Fn(usize, *mut c_void, *mut usize) -> cl_int,
    ) -> Result<Vec<u8>, cl_int> {
        let mut size = 0;
        let err = query(0, null_mut(), &mut size);
        if err != CL_SUCCESS {
            return Err(err);
        }
        let mut bytes = vec![0u8; size];
        assert_eq!(
            query(size, bytes.as_mut_ptr().cast(), null_mut()),
            CL_SUCCESS
        );
        Ok(bytes)
    }

    fn program_info(program: cl_program, param: cl_program_info) -> Result<Vec<u8>, cl_int> {
        // SAFETY: buffers as `info_bytes` passes them.
        info_bytes(|size, out, ret| unsafe { clGetProgramInfo(program, param, size, out, ret) })
    }

    fn build_info(
        program: cl_program,
        device: cl_device_id,
        param: cl_program_build_info,
    ) -> Result<Vec<u8>, cl_int> {
        // SAFETY: buffers as `info_bytes` passes them.
        info_bytes(|size, out, ret| unsafe {
            clGetProgramBuildInfo(program, device, param, size, out, ret)
        })
    }

    fn u32_of(bytes: &[u8]) -> u32 {
        u32::from_ne_bytes(bytes.try_into().unwrap())
    }

    #[test]
    fn create_with_source_checks_and_concatenates() {
        let context = new_context();
        let mut err = 1;
        let mut strings = [c"abcdef".as_ptr(), c"xyz".as_ptr()];
        let lengths = [3usize, 0];
        // SAFETY: two strings, the first 3 bytes long, the second NUL-terminated.
        let program = unsafe {
            clCreateProgramWithSource(context, 2, strings.as_mut_ptr(), lengths.as_ptr(), &mut err)
        };
        assert_eq!(err, CL_SUCCESS);
        assert_eq!(
            program_info(program, CL_PROGRAM_SOURCE).unwrap(),
            b"abcxyz\0"
        );
        // SAFETY: each call passes what the spec asks, or the invalid value under test.
        unsafe {
            assert!(
                clCreateProgramWithSource(context, 0, strings.as_mut_ptr(), null(), &mut err)
                    .is_null()
            );
            assert_eq!(err, CL_INVALID_VALUE);
            clCreateProgramWithSource(context, 1, null_mut(), null(), &mut err);
            assert_eq!(err, CL_INVALID_VALUE);
            let mut with_null = [c"a".as_ptr(), null()];
            clCreateProgramWithSource(context, 2, with_null.as_mut_ptr(), null(), &mut err);
            assert_eq!(err, CL_INVALID_VALUE);
            clCreateProgramWithSource(null_mut(), 1, strings.as_mut_ptr(), null(), &mut err);
            assert_eq!(err, CL_INVALID_CONTEXT);
            assert_eq!(clReleaseProgram(program), CL_SUCCESS);
            assert_eq!(clReleaseProgram(null_mut()), CL_INVALID_PROGRAM);
            assert_eq!(clReleaseContext(context), CL_SUCCESS);
        }
    }

    #[test]
    fn program_info_answers() {
        let context = new_context();
        let device = the_device();
        let program = new_program(context, c"kernel void k() {}");
        let word = size_of::<usize>();
        assert_eq!(
            u32_of(&program_info(program, CL_PROGRAM_REFERENCE_COUNT).unwrap()),
            1
        );
        // SAFETY: a valid program handle.
        assert_eq!(unsafe { clRetainProgram(program) }, CL_SUCCESS);
        assert_eq!(
            u32_of(&program_info(program, CL_PROGRAM_REFERENCE_COUNT).unwrap()),
            2
        );
        // SAFETY: a valid program handle, retained above.
        assert_eq!(unsafe { clReleaseProgram(program) }, CL_SUCCESS);
        assert_eq!(
            program_info(program, CL_PROGRAM_CONTEXT).unwrap(),
            (context as usize).to_ne_bytes()
        );
        assert_eq!(
            u32_of(&program_info(program, CL_PROGRAM_NUM_DEVICES).unwrap()),
            1
        );
        assert_eq!(
            program_info(program, CL_PROGRAM_DEVICES).unwrap(),
            (device as usize).to_ne_bytes()
        );
        assert_eq!(
            program_info(program, CL_PROGRAM_SOURCE).unwrap(),
            b"kernel void k() {}\0"
        );
        assert_eq!(
            program_info(program, CL_PROGRAM_BINARY_SIZES).unwrap(),
            vec![0u8; word]
        );
        // CL_PROGRAM_BINARIES: the size of the pointer array; the array itself is left alone.
        let mut buffer = [0u8; 4];
        let mut pointers = [buffer.as_mut_ptr()];
        let mut size = 0;
        // SAFETY: an array of one pointer, as the spec describes the parameter.
        let err = unsafe {
            clGetProgramInfo(
                program,
                CL_PROGRAM_BINARIES,
                word,
                pointers.as_mut_ptr().cast(),
                &mut size,
            )
        };
        assert_eq!(
            (err, size, pointers[0]),
            (CL_SUCCESS, word, buffer.as_mut_ptr())
        );
        // SAFETY: as above, with a size too small for the array.
        let err = unsafe {
            clGetProgramInfo(
                program,
                CL_PROGRAM_BINARIES,
                1,
                pointers.as_mut_ptr().cast(),
                null_mut(),
            )
        };
        assert_eq!(err, CL_INVALID_VALUE);
        assert_eq!(
            program_info(program, CL_PROGRAM_NUM_KERNELS),
            Err(CL_INVALID_PROGRAM_EXECUTABLE)
        );
        assert_eq!(
            program_info(program, CL_PROGRAM_KERNEL_NAMES),
            Err(CL_INVALID_PROGRAM_EXECUTABLE)
        );
        assert_eq!(program_info(program, 0), Err(CL_INVALID_VALUE));
        assert_eq!(
            program_info(null_mut(), CL_PROGRAM_SOURCE),
            Err(CL_INVALID_PROGRAM)
        );
        // SAFETY: valid handles, released once.
        unsafe {
            clReleaseProgram(program);
            clReleaseContext(context);
        }
    }

    static CALLS: AtomicUsize = AtomicUsize::new(0);

    extern "C" fn count_call(_program: cl_program, user_data: *mut c_void) {
        assert_eq!(user_data as usize, 42);
        CALLS.fetch_add(1, Ordering::SeqCst);
    }

    #[test]
    fn build_checks_arguments_then_builds() {
        let context = new_context();
        let device = the_device();
        let program = new_program(context, c"kernel void k() {}");
        assert_eq!(
            u32_of(&build_info(program, device, CL_PROGRAM_BUILD_STATUS).unwrap()) as cl_int,
            CL_BUILD_NONE
        );
        assert_eq!(
            build_info(program, device, CL_PROGRAM_BUILD_OPTIONS).unwrap(),
            b"\0"
        );
        assert_eq!(
            build_info(program, device, CL_PROGRAM_BUILD_LOG).unwrap(),
            b"\0"
        );
        assert_eq!(
            u32_of(&build_info(program, device, CL_PROGRAM_BINARY_TYPE).unwrap()),
            CL_PROGRAM_BINARY_TYPE_NONE
        );
        assert_eq!(
            build_info(program, null_mut(), CL_PROGRAM_BUILD_STATUS),
            Err(CL_INVALID_DEVICE)
        );
        assert_eq!(build_info(program, device, 0), Err(CL_INVALID_VALUE));
        let devices = [device];
        let data = 42 as *mut c_void;
        // SAFETY: each call passes what the spec asks, or the invalid value under test.
        unsafe {
            assert_eq!(
                clBuildProgram(null_mut(), 0, null(), null(), None, null_mut()),
                CL_INVALID_PROGRAM
            );
            assert_eq!(
                clBuildProgram(program, 1, null(), null(), None, null_mut()),
                CL_INVALID_VALUE
            );
            assert_eq!(
                clBuildProgram(program, 0, devices.as_ptr(), null(), None, null_mut()),
                CL_INVALID_VALUE
            );
            assert_eq!(
                clBuildProgram(program, 0, null(), null(), None, data),
                CL_INVALID_VALUE
            );
            let bad_device = [context as cl_device_id];
            assert_eq!(
                clBuildProgram(program, 1, bad_device.as_ptr(), null(), None, null_mut()),
                CL_INVALID_DEVICE
            );
            assert_eq!(
                clBuildProgram(program, 0, null(), c"-O9".as_ptr(), Some(count_call), data),
                CL_INVALID_BUILD_OPTIONS
            );
        }
        // No build was attempted by the failed calls.
        assert_eq!(CALLS.load(Ordering::SeqCst), 0);
        assert_eq!(
            u32_of(&build_info(program, device, CL_PROGRAM_BUILD_STATUS).unwrap()) as cl_int,
            CL_BUILD_NONE
        );
        // SAFETY: a valid program, device list and callback.
        let err = unsafe {
            clBuildProgram(
                program,
                1,
                devices.as_ptr(),
                c"-D X=1 -w".as_ptr(),
                Some(count_call),
                data,
            )
        };
        assert_eq!(err, CL_SUCCESS);
        assert_eq!(CALLS.load(Ordering::SeqCst), 1);
        assert_eq!(
            u32_of(&build_info(program, device, CL_PROGRAM_BUILD_STATUS).unwrap()) as cl_int,
            CL_BUILD_SUCCESS
        );
        assert_eq!(
            u32_of(&build_info(program, device, CL_PROGRAM_BINARY_TYPE).unwrap()),
            CL_PROGRAM_BINARY_TYPE_EXECUTABLE
        );
        assert_eq!(
            build_info(program, device, CL_PROGRAM_BUILD_OPTIONS).unwrap(),
            b"-D X=1 -w\0"
        );
        assert_eq!(
            build_info(program, device, CL_PROGRAM_BUILD_LOG).unwrap(),
            b"\0"
        );
        // SAFETY: valid handles, released once.
        unsafe {
            clReleaseProgram(program);
            clReleaseContext(context);
        }
    }

    #[test]
    fn compile_checks_headers() {
        let context = new_context();
        let program = new_program(context, c"#include \"h.h\"\nkernel void k() {}");
        let header = new_program(context, c"#define H 1");
        let headers = [header];
        let mut names = [c"h.h".as_ptr()];
        // SAFETY: each call passes what the spec asks, or the invalid value under test.
        unsafe {
            let compile =
                |n, h: *const cl_program, names: *mut *const c_char, options: *const c_char| {
                    clCompileProgram(program, 0, null(), options, n, h, names, None, null_mut())
                };
            assert_eq!(
                compile(0, headers.as_ptr(), null_mut(), null()),
                CL_INVALID_VALUE
            );
            assert_eq!(
                compile(1, headers.as_ptr(), null_mut(), null()),
                CL_INVALID_VALUE
            );
            assert_eq!(
                compile(1, null(), names.as_mut_ptr(), null()),
                CL_INVALID_VALUE
            );
            let bad = [context as cl_program];
            assert_eq!(
                compile(1, bad.as_ptr(), names.as_mut_ptr(), null()),
                CL_INVALID_PROGRAM
            );
            let mut no_name = [null()];
            assert_eq!(
                compile(1, headers.as_ptr(), no_name.as_mut_ptr(), null()),
                CL_INVALID_VALUE
            );
            assert_eq!(
                compile(
                    1,
                    headers.as_ptr(),
                    names.as_mut_ptr(),
                    c"-cl-std=CL9".as_ptr()
                ),
                CL_INVALID_COMPILER_OPTIONS
            );
            assert_eq!(
                compile(1, headers.as_ptr(), names.as_mut_ptr(), null()),
                CL_SUCCESS
            );
            // Without the embedded header, the #include fails.
            assert_eq!(
                compile(0, null(), null_mut(), null()),
                CL_COMPILE_PROGRAM_FAILURE
            );
            clReleaseProgram(header);
            clReleaseProgram(program);
            clReleaseContext(context);
        }
    }

    #[test]
    fn link_checks_its_inputs() {
        let context = new_context();
        let program = new_program(context, c"kernel void k() {}");
        let inputs = [program];
        let mut err = 1;
        // SAFETY: each call passes what the spec asks, or the invalid value under test.
        unsafe {
            let mut link = |n, p: *const cl_program, options: *const c_char| {
                let linked = clLinkProgram(
                    context,
                    0,
                    null(),
                    options,
                    n,
                    p,
                    None,
                    null_mut(),
                    &mut err,
                );
                assert!(linked.is_null());
                err
            };
            assert_eq!(link(0, null(), null()), CL_INVALID_VALUE);
            assert_eq!(link(0, inputs.as_ptr(), null()), CL_INVALID_VALUE);
            assert_eq!(link(1, null(), null()), CL_INVALID_VALUE);
            let bad = [context as cl_program];
            assert_eq!(link(1, bad.as_ptr(), null()), CL_INVALID_PROGRAM);
            assert_eq!(
                link(1, inputs.as_ptr(), c"-enable-link-options".as_ptr()),
                CL_INVALID_LINKER_OPTIONS
            );
            // The input was never compiled: no object to link.
            assert_eq!(
                link(1, inputs.as_ptr(), c"-create-library".as_ptr()),
                CL_INVALID_OPERATION
            );
            clLinkProgram(
                null_mut(),
                0,
                null(),
                null(),
                1,
                inputs.as_ptr(),
                None,
                null_mut(),
                &mut err,
            );
            assert_eq!(err, CL_INVALID_CONTEXT);
            clReleaseProgram(program);
            clReleaseContext(context);
        }
    }

    #[test]
    fn binaries_and_built_in_kernels_cannot_be_loaded() {
        let context = new_context();
        let devices = [the_device()];
        let binary = [1u8, 2, 3];
        let mut binaries = [binary.as_ptr()];
        let mut status = [1];
        let mut err = 1;
        // SAFETY: each call passes what the spec asks, or the invalid value under test.
        unsafe {
            let p = clCreateProgramWithBinary(
                context,
                1,
                devices.as_ptr(),
                [3usize].as_ptr(),
                binaries.as_mut_ptr(),
                status.as_mut_ptr(),
                &mut err,
            );
            assert!(p.is_null());
            assert_eq!((err, status[0]), (CL_INVALID_BINARY, CL_INVALID_BINARY));
            clCreateProgramWithBinary(
                context,
                1,
                devices.as_ptr(),
                [0usize].as_ptr(),
                binaries.as_mut_ptr(),
                status.as_mut_ptr(),
                &mut err,
            );
            assert_eq!((err, status[0]), (CL_INVALID_VALUE, CL_INVALID_VALUE));
            clCreateProgramWithBinary(
                context,
                1,
                devices.as_ptr(),
                null(),
                binaries.as_mut_ptr(),
                status.as_mut_ptr(),
                &mut err,
            );
            assert_eq!((err, status[0]), (CL_INVALID_VALUE, CL_INVALID_VALUE));
            clCreateProgramWithBinary(
                context,
                0,
                devices.as_ptr(),
                [3usize].as_ptr(),
                binaries.as_mut_ptr(),
                null_mut(),
                &mut err,
            );
            assert_eq!(err, CL_INVALID_VALUE);
            let bad = [context as cl_device_id];
            clCreateProgramWithBinary(
                context,
                1,
                bad.as_ptr(),
                [3usize].as_ptr(),
                binaries.as_mut_ptr(),
                null_mut(),
                &mut err,
            );
            assert_eq!(err, CL_INVALID_DEVICE);
            clCreateProgramWithBinary(
                null_mut(),
                1,
                devices.as_ptr(),
                [3usize].as_ptr(),
                binaries.as_mut_ptr(),
                null_mut(),
                &mut err,
            );
            assert_eq!(err, CL_INVALID_CONTEXT);

            assert!(
                clCreateProgramWithBuiltInKernels(
                    context,
                    1,
                    devices.as_ptr(),
                    c"k".as_ptr(),
                    &mut err
                )
                .is_null()
            );
            assert_eq!(err, CL_INVALID_VALUE);
            clCreateProgramWithBuiltInKernels(context, 1, devices.as_ptr(), null(), &mut err);
            assert_eq!(err, CL_INVALID_VALUE);
            clCreateProgramWithBuiltInKernels(context, 1, bad.as_ptr(), c"k".as_ptr(), &mut err);
            assert_eq!(err, CL_INVALID_DEVICE);
            clCreateProgramWithBuiltInKernels(
                null_mut(),
                1,
                devices.as_ptr(),
                c"k".as_ptr(),
                &mut err,
            );
            assert_eq!(err, CL_INVALID_CONTEXT);
            clReleaseContext(context);
        }
    }

    #[test]
    fn unloading_the_compiler() {
        let mut platform = null_mut();
        // SAFETY: one writable entry.
        unsafe {
            assert_eq!(clGetPlatformIDs(1, &mut platform, null_mut()), CL_SUCCESS);
            assert_eq!(clUnloadPlatformCompiler(platform), CL_SUCCESS);
            assert_eq!(clUnloadPlatformCompiler(null_mut()), CL_INVALID_PLATFORM);
            assert_eq!(clUnloadCompiler(), CL_SUCCESS);
        }
    }
}
