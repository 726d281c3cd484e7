//! `CLIFT_LOG=api` with arguments: a second dispatch table whose every entry point records
//! its arguments, then calls the real one.
//!
//! The loader calls clift through the dispatch table each object points to. While `api`
//! logging is on, the platform installs [`TRACED`] instead of [`crate::dispatch::DISPATCH`]:
//! each of its entry points formats its arguments (handles and pointers as addresses, the
//! rest as numbers) for the boundary's log line (`clCreateBuffer(context=0x5581…, flags=1,
//! size=16, host_ptr=0x0, errcode_ret=0x7ffd…) -> CL_SUCCESS`). With logging off nothing of
//! this runs: the plain table is installed.

use std::cell::RefCell;
use std::ffi::{c_char, c_uchar, c_void};
use std::fmt::{Debug, Write};

use khronos_headers::*;

use crate::api;
use crate::api::context::ContextNotify;
use crate::api::program::BuildNotify;
use crate::api::queue::cl_queue_properties;

thread_local! {
    /// The arguments of the entry point in progress on this thread, formatted.
    static ARGUMENTS: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Records the call `name(arguments)` for the boundary's log line.
fn note_arguments(name: &str, arguments: &[(&str, &dyn Debug)]) {
    let mut text = format!("{name}(");
    for (i, (arg, value)) in arguments.iter().enumerate() {
        let separator = if i == 0 { "" } else { ", " };
        let _ = write!(text, "{separator}{arg}={value:?}");
    }
    text.push(')');
    ARGUMENTS.with(|a| *a.borrow_mut() = Some(text));
}

/// The formatted call of entry point `name` on this thread, if the traced table recorded it.
pub(crate) fn take_arguments(name: &str) -> Option<String> {
    ARGUMENTS.with(|a| a.borrow_mut().take()).filter(|text| {
        text.strip_prefix(name)
            .is_some_and(|rest| rest.starts_with('('))
    })
}

macro_rules! traced {
    ($(fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)?;)*) => {
        mod wrappers {
            use super::*;
            $(
                #[allow(clippy::too_many_arguments)]
                pub(super) unsafe extern "C" fn $name($($arg: $ty),*) $(-> $ret)? {
                    note_arguments(stringify!($name), &[$((stringify!($arg), &$arg as &dyn Debug)),*]);
                    // SAFETY: the loader's arguments, passed on to the entry point it would
                    // have called through the plain table.
                    unsafe { api::$name($($arg),*) }
                }
            )*
        }

        /// The dispatch table installed while `api` logging is on.
        pub static TRACED: IcdDispatch = IcdDispatch {
            $($name: Some(wrappers::$name),)*
            ..IcdDispatch::EMPTY
        };
    };
}

traced! {
    fn clGetPlatformIDs(num_entries: cl_uint, platforms: *mut cl_platform_id, num_platforms: *mut cl_uint) -> cl_int;
    fn clGetPlatformInfo(platform: cl_platform_id, param_name: cl_platform_info, param_value_size: usize, param_value: *mut c_void, param_value_size_ret: *mut usize) -> cl_int;
    fn clGetDeviceIDs(platform: cl_platform_id, device_type: cl_device_type, num_entries: cl_uint, devices: *mut cl_device_id, num_devices: *mut cl_uint) -> cl_int;
    fn clGetDeviceInfo(device: cl_device_id, param_name: cl_device_info, param_value_size: usize, param_value: *mut c_void, param_value_size_ret: *mut usize) -> cl_int;
    fn clCreateContext(properties: *const cl_context_properties, num_devices: cl_uint, devices: *const cl_device_id, pfn_notify: ContextNotify, user_data: *mut c_void, errcode_ret: *mut cl_int) -> cl_context;
    fn clCreateContextFromType(properties: *const cl_context_properties, device_type: cl_device_type, pfn_notify: ContextNotify, user_data: *mut c_void, errcode_ret: *mut cl_int) -> cl_context;
    fn clRetainContext(context: cl_context) -> cl_int;
    fn clReleaseContext(context: cl_context) -> cl_int;
    fn clGetContextInfo(context: cl_context, param_name: cl_context_info, param_value_size: usize, param_value: *mut c_void, param_value_size_ret: *mut usize) -> cl_int;
    fn clCreateCommandQueue(context: cl_context, device: cl_device_id, properties: cl_command_queue_properties, errcode_ret: *mut cl_int) -> cl_command_queue;
    fn clRetainCommandQueue(command_queue: cl_command_queue) -> cl_int;
    fn clReleaseCommandQueue(command_queue: cl_command_queue) -> cl_int;
    fn clGetCommandQueueInfo(command_queue: cl_command_queue, param_name: cl_command_queue_info, param_value_size: usize, param_value: *mut c_void, param_value_size_ret: *mut usize) -> cl_int;
    fn clSetCommandQueueProperty(command_queue: cl_command_queue, properties: cl_command_queue_properties, enable: cl_bool, old_properties: *mut cl_command_queue_properties) -> cl_int;
    fn clCreateBuffer(context: cl_context, flags: cl_mem_flags, size: usize, host_ptr: *mut c_void, errcode_ret: *mut cl_int) -> cl_mem;
    fn clRetainMemObject(memobj: cl_mem) -> cl_int;
    fn clReleaseMemObject(memobj: cl_mem) -> cl_int;
    fn clGetMemObjectInfo(memobj: cl_mem, param_name: cl_mem_info, param_value_size: usize, param_value: *mut c_void, param_value_size_ret: *mut usize) -> cl_int;
    fn clCreateSampler(context: cl_context, normalized_coords: cl_bool, addressing_mode: cl_addressing_mode, filter_mode: cl_filter_mode, errcode_ret: *mut cl_int) -> cl_sampler;
    fn clRetainSampler(sampler: cl_sampler) -> cl_int;
    fn clReleaseSampler(sampler: cl_sampler) -> cl_int;
    fn clGetSamplerInfo(sampler: cl_sampler, param_name: cl_sampler_info, param_value_size: usize, param_value: *mut c_void, param_value_size_ret: *mut usize) -> cl_int;
    fn clCreateProgramWithSource(context: cl_context, count: cl_uint, strings: *mut *const c_char, lengths: *const usize, errcode_ret: *mut cl_int) -> cl_program;
    fn clCreateProgramWithBinary(context: cl_context, num_devices: cl_uint, device_list: *const cl_device_id, lengths: *const usize, binaries: *mut *const c_uchar, binary_status: *mut cl_int, errcode_ret: *mut cl_int) -> cl_program;
    fn clRetainProgram(program: cl_program) -> cl_int;
    fn clReleaseProgram(program: cl_program) -> cl_int;
    fn clBuildProgram(program: cl_program, num_devices: cl_uint, device_list: *const cl_device_id, options: *const c_char, pfn_notify: BuildNotify, user_data: *mut c_void) -> cl_int;
    fn clUnloadCompiler() -> cl_int;
    fn clGetProgramInfo(program: cl_program, param_name: cl_program_info, param_value_size: usize, param_value: *mut c_void, param_value_size_ret: *mut usize) -> cl_int;
    fn clGetProgramBuildInfo(program: cl_program, device: cl_device_id, param_name: cl_program_build_info, param_value_size: usize, param_value: *mut c_void, param_value_size_ret: *mut usize) -> cl_int;
    fn clCreateKernel(program: cl_program, kernel_name: *const c_char, errcode_ret: *mut cl_int) -> cl_kernel;
    fn clCreateKernelsInProgram(program: cl_program, num_kernels: cl_uint, kernels: *mut cl_kernel, num_kernels_ret: *mut cl_uint) -> cl_int;
    fn clRetainKernel(kernel: cl_kernel) -> cl_int;
    fn clReleaseKernel(kernel: cl_kernel) -> cl_int;
    fn clSetKernelArg(kernel: cl_kernel, arg_index: cl_uint, arg_size: usize, arg_value: *const c_void) -> cl_int;
    fn clGetKernelInfo(kernel: cl_kernel, param_name: cl_kernel_info, param_value_size: usize, param_value: *mut c_void, param_value_size_ret: *mut usize) -> cl_int;
    fn clGetKernelWorkGroupInfo(kernel: cl_kernel, device: cl_device_id, param_name: cl_kernel_work_group_info, param_value_size: usize, param_value: *mut c_void, param_value_size_ret: *mut usize) -> cl_int;
    fn clWaitForEvents(num_events: cl_uint, event_list: *const cl_event) -> cl_int;
    fn clGetEventInfo(event: cl_event, param_name: cl_event_info, param_value_size: usize, param_value: *mut c_void, param_value_size_ret: *mut usize) -> cl_int;
    fn clRetainEvent(event: cl_event) -> cl_int;
    fn clReleaseEvent(event: cl_event) -> cl_int;
    fn clGetEventProfilingInfo(event: cl_event, param_name: cl_profiling_info, param_value_size: usize, param_value: *mut c_void, param_value_size_ret: *mut usize) -> cl_int;
    fn clFlush(command_queue: cl_command_queue) -> cl_int;
    fn clFinish(command_queue: cl_command_queue) -> cl_int;
    fn clEnqueueReadBuffer(command_queue: cl_command_queue, buffer: cl_mem, blocking_read: cl_bool, offset: usize, size: usize, ptr: *mut c_void, num_events_in_wait_list: cl_uint, event_wait_list: *const cl_event, event: *mut cl_event) -> cl_int;
    fn clEnqueueWriteBuffer(command_queue: cl_command_queue, buffer: cl_mem, blocking_write: cl_bool, offset: usize, size: usize, ptr: *const c_void, num_events_in_wait_list: cl_uint, event_wait_list: *const cl_event, event: *mut cl_event) -> cl_int;
    fn clEnqueueCopyBuffer(command_queue: cl_command_queue, src_buffer: cl_mem, dst_buffer: cl_mem, src_offset: usize, dst_offset: usize, size: usize, num_events_in_wait_list: cl_uint, event_wait_list: *const cl_event, event: *mut cl_event) -> cl_int;
    fn clEnqueueMapBuffer(command_queue: cl_command_queue, buffer: cl_mem, blocking_map: cl_bool, map_flags: cl_map_flags, offset: usize, size: usize, num_events_in_wait_list: cl_uint, event_wait_list: *const cl_event, event: *mut cl_event, errcode_ret: *mut cl_int) -> *mut c_void;
    fn clEnqueueUnmapMemObject(command_queue: cl_command_queue, memobj: cl_mem, mapped_ptr: *mut c_void, num_events_in_wait_list: cl_uint, event_wait_list: *const cl_event, event: *mut cl_event) -> cl_int;
    fn clEnqueueNativeKernel(command_queue: cl_command_queue, user_func: Option<unsafe extern "C" fn(*mut c_void)>, args: *mut c_void, cb_args: usize, num_mem_objects: cl_uint, mem_list: *const cl_mem, args_mem_loc: *mut *const c_void, num_events_in_wait_list: cl_uint, event_wait_list: *const cl_event, event: *mut cl_event) -> cl_int;
    fn clEnqueueMarker(command_queue: cl_command_queue, event: *mut cl_event) -> cl_int;
    fn clEnqueueWaitForEvents(command_queue: cl_command_queue, num_events: cl_uint, event_list: *const cl_event) -> cl_int;
    fn clEnqueueBarrier(command_queue: cl_command_queue) -> cl_int;
    fn clSetEventCallback(event: cl_event, command_exec_callback_type: cl_int, pfn_notify: Option<unsafe extern "C" fn(cl_event, cl_int, *mut c_void)>, user_data: *mut c_void) -> cl_int;
    fn clCreateSubBuffer(buffer: cl_mem, flags: cl_mem_flags, buffer_create_type: cl_buffer_create_type, buffer_create_info: *const c_void, errcode_ret: *mut cl_int) -> cl_mem;
    fn clSetMemObjectDestructorCallback(memobj: cl_mem, pfn_notify: Option<unsafe extern "C" fn(cl_mem, *mut c_void)>, user_data: *mut c_void) -> cl_int;
    fn clCreateUserEvent(context: cl_context, errcode_ret: *mut cl_int) -> cl_event;
    fn clSetUserEventStatus(event: cl_event, execution_status: cl_int) -> cl_int;
    fn clEnqueueReadBufferRect(command_queue: cl_command_queue, buffer: cl_mem, blocking_read: cl_bool, buffer_origin: *const usize, host_origin: *const usize, region: *const usize, buffer_row_pitch: usize, buffer_slice_pitch: usize, host_row_pitch: usize, host_slice_pitch: usize, ptr: *mut c_void, num_events_in_wait_list: cl_uint, event_wait_list: *const cl_event, event: *mut cl_event) -> cl_int;
    fn clEnqueueWriteBufferRect(command_queue: cl_command_queue, buffer: cl_mem, blocking_write: cl_bool, buffer_origin: *const usize, host_origin: *const usize, region: *const usize, buffer_row_pitch: usize, buffer_slice_pitch: usize, host_row_pitch: usize, host_slice_pitch: usize, ptr: *const c_void, num_events_in_wait_list: cl_uint, event_wait_list: *const cl_event, event: *mut cl_event) -> cl_int;
    fn clEnqueueCopyBufferRect(command_queue: cl_command_queue, src_buffer: cl_mem, dst_buffer: cl_mem, src_origin: *const usize, dst_origin: *const usize, region: *const usize, src_row_pitch: usize, src_slice_pitch: usize, dst_row_pitch: usize, dst_slice_pitch: usize, num_events_in_wait_list: cl_uint, event_wait_list: *const cl_event, event: *mut cl_event) -> cl_int;
    fn clEnqueueFillBuffer(command_queue: cl_command_queue, buffer: cl_mem, pattern: *const c_void, pattern_size: usize, offset: usize, size: usize, num_events_in_wait_list: cl_uint, event_wait_list: *const cl_event, event: *mut cl_event) -> cl_int;
    fn clEnqueueMigrateMemObjects(command_queue: cl_command_queue, num_mem_objects: cl_uint, mem_objects: *const cl_mem, flags: cl_mem_migration_flags, num_events_in_wait_list: cl_uint, event_wait_list: *const cl_event, event: *mut cl_event) -> cl_int;
    fn clEnqueueMarkerWithWaitList(command_queue: cl_command_queue, num_events_in_wait_list: cl_uint, event_wait_list: *const cl_event, event: *mut cl_event) -> cl_int;
    fn clEnqueueBarrierWithWaitList(command_queue: cl_command_queue, num_events_in_wait_list: cl_uint, event_wait_list: *const cl_event, event: *mut cl_event) -> cl_int;
    fn clCreateImage(context: cl_context, flags: cl_mem_flags, image_format: *const cl_image_format, image_desc: *const cl_image_desc, host_ptr: *mut c_void, errcode_ret: *mut cl_int) -> cl_mem;
    fn clCreateImage2D(context: cl_context, flags: cl_mem_flags, image_format: *const cl_image_format, image_width: usize, image_height: usize, image_row_pitch: usize, host_ptr: *mut c_void, errcode_ret: *mut cl_int) -> cl_mem;
    fn clCreateImage3D(context: cl_context, flags: cl_mem_flags, image_format: *const cl_image_format, image_width: usize, image_height: usize, image_depth: usize, image_row_pitch: usize, image_slice_pitch: usize, host_ptr: *mut c_void, errcode_ret: *mut cl_int) -> cl_mem;
    fn clGetSupportedImageFormats(context: cl_context, flags: cl_mem_flags, image_type: cl_mem_object_type, num_entries: cl_uint, image_formats: *mut cl_image_format, num_image_formats: *mut cl_uint) -> cl_int;
    fn clGetImageInfo(image: cl_mem, param_name: cl_image_info, param_value_size: usize, param_value: *mut c_void, param_value_size_ret: *mut usize) -> cl_int;
    fn clEnqueueReadImage(command_queue: cl_command_queue, image: cl_mem, blocking_read: cl_bool, origin: *const usize, region: *const usize, row_pitch: usize, slice_pitch: usize, ptr: *mut c_void, num_events_in_wait_list: cl_uint, event_wait_list: *const cl_event, event: *mut cl_event) -> cl_int;
    fn clEnqueueWriteImage(command_queue: cl_command_queue, image: cl_mem, blocking_write: cl_bool, origin: *const usize, region: *const usize, input_row_pitch: usize, input_slice_pitch: usize, ptr: *const c_void, num_events_in_wait_list: cl_uint, event_wait_list: *const cl_event, event: *mut cl_event) -> cl_int;
    fn clEnqueueCopyImage(command_queue: cl_command_queue, src_image: cl_mem, dst_image: cl_mem, src_origin: *const usize, dst_origin: *const usize, region: *const usize, num_events_in_wait_list: cl_uint, event_wait_list: *const cl_event, event: *mut cl_event) -> cl_int;
    fn clEnqueueFillImage(command_queue: cl_command_queue, image: cl_mem, fill_color: *const c_void, origin: *const usize, region: *const usize, num_events_in_wait_list: cl_uint, event_wait_list: *const cl_event, event: *mut cl_event) -> cl_int;
    fn clEnqueueCopyImageToBuffer(command_queue: cl_command_queue, src_image: cl_mem, dst_buffer: cl_mem, src_origin: *const usize, region: *const usize, dst_offset: usize, num_events_in_wait_list: cl_uint, event_wait_list: *const cl_event, event: *mut cl_event) -> cl_int;
    fn clEnqueueCopyBufferToImage(command_queue: cl_command_queue, src_buffer: cl_mem, dst_image: cl_mem, src_offset: usize, dst_origin: *const usize, region: *const usize, num_events_in_wait_list: cl_uint, event_wait_list: *const cl_event, event: *mut cl_event) -> cl_int;
    fn clEnqueueMapImage(command_queue: cl_command_queue, image: cl_mem, blocking_map: cl_bool, map_flags: cl_map_flags, origin: *const usize, region: *const usize, image_row_pitch: *mut usize, image_slice_pitch: *mut usize, num_events_in_wait_list: cl_uint, event_wait_list: *const cl_event, event: *mut cl_event, errcode_ret: *mut cl_int) -> *mut c_void;
    fn clEnqueueNDRangeKernel(command_queue: cl_command_queue, kernel: cl_kernel, work_dim: cl_uint, global_work_offset: *const usize, global_work_size: *const usize, local_work_size: *const usize, num_events_in_wait_list: cl_uint, event_wait_list: *const cl_event, event: *mut cl_event) -> cl_int;
    fn clEnqueueTask(command_queue: cl_command_queue, kernel: cl_kernel, num_events_in_wait_list: cl_uint, event_wait_list: *const cl_event, event: *mut cl_event) -> cl_int;
    fn clGetExtensionFunctionAddress(func_name: *const c_char) -> *mut c_void;
    fn clCreateSubDevices(in_device: cl_device_id, properties: *const cl_device_partition_property, num_devices: cl_uint, out_devices: *mut cl_device_id, num_devices_ret: *mut cl_uint) -> cl_int;
    fn clRetainDevice(device: cl_device_id) -> cl_int;
    fn clReleaseDevice(device: cl_device_id) -> cl_int;
    fn clCreateProgramWithBuiltInKernels(context: cl_context, num_devices: cl_uint, device_list: *const cl_device_id, kernel_names: *const c_char, errcode_ret: *mut cl_int) -> cl_program;
    fn clCompileProgram(program: cl_program, num_devices: cl_uint, device_list: *const cl_device_id, options: *const c_char, num_input_headers: cl_uint, input_headers: *const cl_program, header_include_names: *mut *const c_char, pfn_notify: BuildNotify, user_data: *mut c_void) -> cl_int;
    fn clLinkProgram(context: cl_context, num_devices: cl_uint, device_list: *const cl_device_id, options: *const c_char, num_input_programs: cl_uint, input_programs: *const cl_program, pfn_notify: BuildNotify, user_data: *mut c_void, errcode_ret: *mut cl_int) -> cl_program;
    fn clUnloadPlatformCompiler(platform: cl_platform_id) -> cl_int;
    fn clGetKernelArgInfo(kernel: cl_kernel, arg_index: cl_uint, param_name: cl_kernel_arg_info, param_value_size: usize, param_value: *mut c_void, param_value_size_ret: *mut usize) -> cl_int;
    fn clGetExtensionFunctionAddressForPlatform(platform: cl_platform_id, func_name: *const c_char) -> *mut c_void;
    fn clCreateCommandQueueWithProperties(context: cl_context, device: cl_device_id, properties: *const cl_queue_properties, errcode_ret: *mut cl_int) -> cl_command_queue;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A slot filled in the plain table but empty in the traced one would make the loader
    /// call NULL while logging is on: the tables must fill the same slots.
    #[test]
    fn the_traced_table_fills_every_slot_the_plain_one_does() {
        let slot = |table: &IcdDispatch, offset: usize| {
            let base = (table as *const IcdDispatch).cast::<u8>();
            // SAFETY: every slot is a pointer-sized `Option<fn>` at its offset in the table.
            unsafe { base.add(offset).cast::<usize>().read() }
        };
        let mut differ = Vec::new();
        for (name, offset) in khronos_headers::slot_offsets() {
            let plain = slot(&crate::dispatch::DISPATCH, offset);
            let traced = slot(&TRACED, offset);
            if (plain == 0) != (traced == 0) {
                differ.push(name);
            }
        }
        assert!(
            differ.is_empty(),
            "slots filled in one table only: {differ:?}"
        );
    }

    #[test]
    fn arguments_are_recorded_for_the_boundary() {
        let context = 0x1234 as cl_context;
        note_arguments("clRetainContext", &[("context", &context), ("n", &7u32)]);
        assert_eq!(take_arguments("clReleaseContext"), None);
        note_arguments("clRetainContext", &[("context", &context)]);
        assert_eq!(
            take_arguments("clRetainContext").as_deref(),
            Some("clRetainContext(context=0x1234)")
        );
        assert_eq!(take_arguments("clRetainContext"), None);
    }
}
