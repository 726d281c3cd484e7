//! The C API's typedefs, object handles and structs, re-exported from opencl-sys so that the
//! driver and the test programs that call it through the ICD loader share one definition.
//!
//! Only what OpenCL 1.0–1.2 declares is here (plus `cl_properties`, which `cl.h` declares
//! unconditionally). `tests/against_c_headers.rs` checks that every 1.x `typedef` of `cl.h` is
//! re-exported and has the width and signedness the header gives it.
//!
//! The handles (`cl_platform_id` … `cl_sampler`) are all `*mut c_void` in opencl-sys, so Rust
//! does not tell one kind from another: the driver checks a handle's kind at run time anyway,
//! because the application can pass any pointer.

#![allow(non_camel_case_types)]

// Scalars (cl_platform.h); `cl_bool` and `cl_bitfield` (cl.h).
pub use opencl_sys::{
    cl_bitfield, cl_bool, cl_char, cl_double, cl_float, cl_half, cl_int, cl_long, cl_short,
    cl_uchar, cl_uint, cl_ulong, cl_ushort,
};

// Object handles.
pub use opencl_sys::{
    cl_command_queue, cl_context, cl_device_id, cl_event, cl_kernel, cl_mem, cl_platform_id,
    cl_program, cl_sampler,
};

// Enumerations, bitfields and property lists.
pub use opencl_sys::{
    cl_addressing_mode, cl_buffer_create_type, cl_build_status, cl_channel_order, cl_channel_type,
    cl_command_queue_info, cl_command_queue_properties, cl_command_type, cl_context_info,
    cl_context_properties, cl_device_affinity_domain, cl_device_exec_capabilities,
    cl_device_fp_config, cl_device_info, cl_device_local_mem_type, cl_device_mem_cache_type,
    cl_device_partition_property, cl_device_type, cl_event_info, cl_filter_mode, cl_image_info,
    cl_kernel_arg_access_qualifier, cl_kernel_arg_address_qualifier, cl_kernel_arg_info,
    cl_kernel_info, cl_kernel_work_group_info, cl_map_flags, cl_mem_flags, cl_mem_info,
    cl_mem_migration_flags, cl_mem_object_type, cl_platform_info, cl_profiling_info,
    cl_program_binary_type, cl_program_build_info, cl_program_info, cl_properties, cl_sampler_info,
};

// Structs passed by pointer through the API.
pub use opencl_sys::{cl_buffer_region, cl_image_desc, cl_image_format};

/// `cl.h` declares `typedef cl_bitfield cl_kernel_arg_type_qualifier;` (64 bits), but
/// opencl-sys 0.6.5 declares it as `cl_uint` (32 bits). The width is ABI:
/// `clGetKernelArgInfo(CL_KERNEL_ARG_TYPE_QUALIFIER)` must write 8 bytes and report
/// `param_value_size_ret == 8`, so this one typedef is declared here from `cl_bitfield`.
pub type cl_kernel_arg_type_qualifier = cl_bitfield;
