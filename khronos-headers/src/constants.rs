//! Every integer constant of OpenCL 1.0, 1.1 and 1.2 (`cl.h`), plus the few extension constants
//! the driver reports (`cl_khr_icd`, `cl_khr_fp16`, `cl_khr_fp64`).
//!
//! The values come from opencl-sys rather than being typed in again, so that a typo here cannot
//! silently change the ABI. The list itself is only names: `cl_constants!` turns each name into
//! a `pub use opencl_sys::NAME` and into one row of [`CONSTANTS`], which the crate's tests compare,
//! row by row, with the `#define`s of the installed Khronos headers (and, the other way round,
//! check that no 1.x `#define` of `cl.h` is missing here).
//!
//! A handful of names are marked `#[local]`: opencl-sys 0.6.5 lacks them or gives them a type
//! that does not match `cl.h`, so they are defined at the bottom of this file, each with the
//! reason. They still go through [`CONSTANTS`] and so are still checked against the headers.

use crate::types::{cl_channel_order, cl_channel_type, cl_kernel_arg_type_qualifier};

/// Re-exports (or, for `#[local]` names, only lists) each named constant and builds
/// [`CONSTANTS`] from the same list, so that the table cannot drift from what is exported.
macro_rules! cl_constants {
    (@export local $name:ident) => {};
    (@export $name:ident) => {
        pub use opencl_sys::$name;
    };
    ($($(#[$kind:ident])? $name:ident,)*) => {
        $(cl_constants!(@export $($kind)? $name);)*

        /// Every constant of this module as `(C name, value)`, in `cl.h` order.
        ///
        /// `i128` holds every value of every constant's type (`cl_int` error codes, `cl_ulong`
        /// bitfields, `intptr_t` properties) without loss, so one table can be compared with
        /// the headers and searched by value (e.g. to print an error code's name).
        pub const CONSTANTS: &[(&str, i128)] = &[$((stringify!($name), $name as i128),)*];

        /// `(C name, Rust type name)` of every constant, in [`CONSTANTS`] order, so that the
        /// tests can check each constant's width against the typedef that `cl.h` lists it
        /// under (the `as i128` in [`CONSTANTS`] hides the type). The names come from
        /// [`core::any::type_name_of_val`] and are meant for that check only.
        pub fn constant_type_names() -> Vec<(&'static str, &'static str)> {
            vec![$((stringify!($name), core::any::type_name_of_val(&$name)),)*]
        }
    };
}

cl_constants! {
    // Error Codes
    CL_SUCCESS,
    CL_DEVICE_NOT_FOUND,
    CL_DEVICE_NOT_AVAILABLE,
    CL_COMPILER_NOT_AVAILABLE,
    CL_MEM_OBJECT_ALLOCATION_FAILURE,
    CL_OUT_OF_RESOURCES,
    CL_OUT_OF_HOST_MEMORY,
    CL_PROFILING_INFO_NOT_AVAILABLE,
    CL_MEM_COPY_OVERLAP,
    CL_IMAGE_FORMAT_MISMATCH,
    CL_IMAGE_FORMAT_NOT_SUPPORTED,
    CL_BUILD_PROGRAM_FAILURE,
    CL_MAP_FAILURE,
    CL_MISALIGNED_SUB_BUFFER_OFFSET,
    CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST,
    CL_COMPILE_PROGRAM_FAILURE,
    CL_LINKER_NOT_AVAILABLE,
    CL_LINK_PROGRAM_FAILURE,
    CL_DEVICE_PARTITION_FAILED,
    CL_KERNEL_ARG_INFO_NOT_AVAILABLE,
    CL_INVALID_VALUE,
    CL_INVALID_DEVICE_TYPE,
    CL_INVALID_PLATFORM,
    CL_INVALID_DEVICE,
    CL_INVALID_CONTEXT,
    CL_INVALID_QUEUE_PROPERTIES,
    CL_INVALID_COMMAND_QUEUE,
    CL_INVALID_HOST_PTR,
    CL_INVALID_MEM_OBJECT,
    CL_INVALID_IMAGE_FORMAT_DESCRIPTOR,
    CL_INVALID_IMAGE_SIZE,
    CL_INVALID_SAMPLER,
    CL_INVALID_BINARY,
    CL_INVALID_BUILD_OPTIONS,
    CL_INVALID_PROGRAM,
    CL_INVALID_PROGRAM_EXECUTABLE,
    CL_INVALID_KERNEL_NAME,
    CL_INVALID_KERNEL_DEFINITION,
    CL_INVALID_KERNEL,
    CL_INVALID_ARG_INDEX,
    CL_INVALID_ARG_VALUE,
    CL_INVALID_ARG_SIZE,
    CL_INVALID_KERNEL_ARGS,
    CL_INVALID_WORK_DIMENSION,
    CL_INVALID_WORK_GROUP_SIZE,
    CL_INVALID_WORK_ITEM_SIZE,
    CL_INVALID_GLOBAL_OFFSET,
    CL_INVALID_EVENT_WAIT_LIST,
    CL_INVALID_EVENT,
    CL_INVALID_OPERATION,
    CL_INVALID_GL_OBJECT,
    CL_INVALID_BUFFER_SIZE,
    CL_INVALID_MIP_LEVEL,
    CL_INVALID_GLOBAL_WORK_SIZE,
    CL_INVALID_PROPERTY,
    CL_INVALID_IMAGE_DESCRIPTOR,
    CL_INVALID_COMPILER_OPTIONS,
    CL_INVALID_LINKER_OPTIONS,
    CL_INVALID_DEVICE_PARTITION_COUNT,
    // cl_bool
    CL_FALSE,
    CL_TRUE,
    CL_BLOCKING,
    CL_NON_BLOCKING,
    // cl_platform_info
    CL_PLATFORM_PROFILE,
    CL_PLATFORM_VERSION,
    CL_PLATFORM_NAME,
    CL_PLATFORM_VENDOR,
    CL_PLATFORM_EXTENSIONS,
    // cl_device_type - bitfield
    CL_DEVICE_TYPE_DEFAULT,
    CL_DEVICE_TYPE_CPU,
    CL_DEVICE_TYPE_GPU,
    CL_DEVICE_TYPE_ACCELERATOR,
    CL_DEVICE_TYPE_CUSTOM,
    CL_DEVICE_TYPE_ALL,
    // cl_device_info
    CL_DEVICE_TYPE,
    CL_DEVICE_VENDOR_ID,
    CL_DEVICE_MAX_COMPUTE_UNITS,
    CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS,
    CL_DEVICE_MAX_WORK_GROUP_SIZE,
    CL_DEVICE_MAX_WORK_ITEM_SIZES,
    CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR,
    CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT,
    CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT,
    CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG,
    CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT,
    CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE,
    CL_DEVICE_MAX_CLOCK_FREQUENCY,
    CL_DEVICE_ADDRESS_BITS,
    CL_DEVICE_MAX_READ_IMAGE_ARGS,
    CL_DEVICE_MAX_WRITE_IMAGE_ARGS,
    CL_DEVICE_MAX_MEM_ALLOC_SIZE,
    CL_DEVICE_IMAGE2D_MAX_WIDTH,
    CL_DEVICE_IMAGE2D_MAX_HEIGHT,
    CL_DEVICE_IMAGE3D_MAX_WIDTH,
    CL_DEVICE_IMAGE3D_MAX_HEIGHT,
    CL_DEVICE_IMAGE3D_MAX_DEPTH,
    CL_DEVICE_IMAGE_SUPPORT,
    CL_DEVICE_MAX_PARAMETER_SIZE,
    CL_DEVICE_MAX_SAMPLERS,
    CL_DEVICE_MEM_BASE_ADDR_ALIGN,
    CL_DEVICE_MIN_DATA_TYPE_ALIGN_SIZE,
    CL_DEVICE_SINGLE_FP_CONFIG,
    CL_DEVICE_GLOBAL_MEM_CACHE_TYPE,
    CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE,
    CL_DEVICE_GLOBAL_MEM_CACHE_SIZE,
    CL_DEVICE_GLOBAL_MEM_SIZE,
    CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE,
    CL_DEVICE_MAX_CONSTANT_ARGS,
    CL_DEVICE_LOCAL_MEM_TYPE,
    CL_DEVICE_LOCAL_MEM_SIZE,
    CL_DEVICE_ERROR_CORRECTION_SUPPORT,
    CL_DEVICE_PROFILING_TIMER_RESOLUTION,
    CL_DEVICE_ENDIAN_LITTLE,
    CL_DEVICE_AVAILABLE,
    CL_DEVICE_COMPILER_AVAILABLE,
    CL_DEVICE_EXECUTION_CAPABILITIES,
    CL_DEVICE_QUEUE_PROPERTIES,
    CL_DEVICE_NAME,
    CL_DEVICE_VENDOR,
    CL_DRIVER_VERSION,
    CL_DEVICE_PROFILE,
    CL_DEVICE_VERSION,
    CL_DEVICE_EXTENSIONS,
    CL_DEVICE_PLATFORM,
    CL_DEVICE_DOUBLE_FP_CONFIG,
    CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF,
    CL_DEVICE_HOST_UNIFIED_MEMORY,
    CL_DEVICE_NATIVE_VECTOR_WIDTH_CHAR,
    CL_DEVICE_NATIVE_VECTOR_WIDTH_SHORT,
    CL_DEVICE_NATIVE_VECTOR_WIDTH_INT,
    CL_DEVICE_NATIVE_VECTOR_WIDTH_LONG,
    CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT,
    CL_DEVICE_NATIVE_VECTOR_WIDTH_DOUBLE,
    CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF,
    CL_DEVICE_OPENCL_C_VERSION,
    CL_DEVICE_LINKER_AVAILABLE,
    CL_DEVICE_BUILT_IN_KERNELS,
    CL_DEVICE_IMAGE_MAX_BUFFER_SIZE,
    CL_DEVICE_IMAGE_MAX_ARRAY_SIZE,
    CL_DEVICE_PARENT_DEVICE,
    CL_DEVICE_PARTITION_MAX_SUB_DEVICES,
    CL_DEVICE_PARTITION_PROPERTIES,
    CL_DEVICE_PARTITION_AFFINITY_DOMAIN,
    CL_DEVICE_PARTITION_TYPE,
    CL_DEVICE_REFERENCE_COUNT,
    CL_DEVICE_PREFERRED_INTEROP_USER_SYNC,
    CL_DEVICE_PRINTF_BUFFER_SIZE,
    // cl_device_fp_config - bitfield
    CL_FP_DENORM,
    CL_FP_INF_NAN,
    CL_FP_ROUND_TO_NEAREST,
    CL_FP_ROUND_TO_ZERO,
    CL_FP_ROUND_TO_INF,
    CL_FP_FMA,
    CL_FP_SOFT_FLOAT,
    CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT,
    // cl_device_mem_cache_type
    CL_NONE,
    CL_READ_ONLY_CACHE,
    CL_READ_WRITE_CACHE,
    // cl_device_local_mem_type
    CL_LOCAL,
    CL_GLOBAL,
    // cl_device_exec_capabilities - bitfield
    CL_EXEC_KERNEL,
    CL_EXEC_NATIVE_KERNEL,
    // cl_command_queue_properties - bitfield
    CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE,
    CL_QUEUE_PROFILING_ENABLE,
    // cl_context_info
    CL_CONTEXT_REFERENCE_COUNT,
    CL_CONTEXT_DEVICES,
    CL_CONTEXT_PROPERTIES,
    CL_CONTEXT_NUM_DEVICES,
    // cl_context_properties
    CL_CONTEXT_PLATFORM,
    CL_CONTEXT_INTEROP_USER_SYNC,
    // cl_device_partition_property
    CL_DEVICE_PARTITION_EQUALLY,
    CL_DEVICE_PARTITION_BY_COUNTS,
    CL_DEVICE_PARTITION_BY_COUNTS_LIST_END,
    CL_DEVICE_PARTITION_BY_AFFINITY_DOMAIN,
    // cl_device_affinity_domain
    CL_DEVICE_AFFINITY_DOMAIN_NUMA,
    CL_DEVICE_AFFINITY_DOMAIN_L4_CACHE,
    CL_DEVICE_AFFINITY_DOMAIN_L3_CACHE,
    CL_DEVICE_AFFINITY_DOMAIN_L2_CACHE,
    CL_DEVICE_AFFINITY_DOMAIN_L1_CACHE,
    CL_DEVICE_AFFINITY_DOMAIN_NEXT_PARTITIONABLE,
    // cl_command_queue_info
    CL_QUEUE_CONTEXT,
    CL_QUEUE_DEVICE,
    CL_QUEUE_REFERENCE_COUNT,
    CL_QUEUE_PROPERTIES,
    // cl_mem_flags and cl_svm_mem_flags - bitfield
    CL_MEM_READ_WRITE,
    CL_MEM_WRITE_ONLY,
    CL_MEM_READ_ONLY,
    CL_MEM_USE_HOST_PTR,
    CL_MEM_ALLOC_HOST_PTR,
    CL_MEM_COPY_HOST_PTR,
    CL_MEM_HOST_WRITE_ONLY,
    CL_MEM_HOST_READ_ONLY,
    CL_MEM_HOST_NO_ACCESS,
    // cl_mem_migration_flags - bitfield
    CL_MIGRATE_MEM_OBJECT_HOST,
    CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED,
    // cl_channel_order
    CL_R,
    CL_A,
    CL_RG,
    CL_RA,
    CL_RGB,
    CL_RGBA,
    CL_BGRA,
    CL_ARGB,
    CL_INTENSITY,
    CL_LUMINANCE,
    CL_Rx,
    CL_RGx,
    CL_RGBx,
    CL_DEPTH,
    #[local] CL_DEPTH_STENCIL,
    // cl_channel_type
    CL_SNORM_INT8,
    CL_SNORM_INT16,
    CL_UNORM_INT8,
    CL_UNORM_INT16,
    CL_UNORM_SHORT_565,
    CL_UNORM_SHORT_555,
    CL_UNORM_INT_101010,
    CL_SIGNED_INT8,
    CL_SIGNED_INT16,
    CL_SIGNED_INT32,
    CL_UNSIGNED_INT8,
    CL_UNSIGNED_INT16,
    CL_UNSIGNED_INT32,
    CL_HALF_FLOAT,
    CL_FLOAT,
    #[local] CL_UNORM_INT24,
    // cl_mem_object_type
    CL_MEM_OBJECT_BUFFER,
    CL_MEM_OBJECT_IMAGE2D,
    CL_MEM_OBJECT_IMAGE3D,
    CL_MEM_OBJECT_IMAGE2D_ARRAY,
    CL_MEM_OBJECT_IMAGE1D,
    CL_MEM_OBJECT_IMAGE1D_ARRAY,
    CL_MEM_OBJECT_IMAGE1D_BUFFER,
    // cl_mem_info
    CL_MEM_TYPE,
    CL_MEM_FLAGS,
    CL_MEM_SIZE,
    CL_MEM_HOST_PTR,
    CL_MEM_MAP_COUNT,
    CL_MEM_REFERENCE_COUNT,
    CL_MEM_CONTEXT,
    CL_MEM_ASSOCIATED_MEMOBJECT,
    CL_MEM_OFFSET,
    // cl_image_info
    CL_IMAGE_FORMAT,
    CL_IMAGE_ELEMENT_SIZE,
    CL_IMAGE_ROW_PITCH,
    CL_IMAGE_SLICE_PITCH,
    CL_IMAGE_WIDTH,
    CL_IMAGE_HEIGHT,
    CL_IMAGE_DEPTH,
    CL_IMAGE_ARRAY_SIZE,
    CL_IMAGE_BUFFER,
    CL_IMAGE_NUM_MIP_LEVELS,
    CL_IMAGE_NUM_SAMPLES,
    // cl_addressing_mode
    CL_ADDRESS_NONE,
    CL_ADDRESS_CLAMP_TO_EDGE,
    CL_ADDRESS_CLAMP,
    CL_ADDRESS_REPEAT,
    CL_ADDRESS_MIRRORED_REPEAT,
    // cl_filter_mode
    CL_FILTER_NEAREST,
    CL_FILTER_LINEAR,
    // cl_sampler_info
    CL_SAMPLER_REFERENCE_COUNT,
    CL_SAMPLER_CONTEXT,
    CL_SAMPLER_NORMALIZED_COORDS,
    CL_SAMPLER_ADDRESSING_MODE,
    CL_SAMPLER_FILTER_MODE,
    // cl_map_flags - bitfield
    CL_MAP_READ,
    CL_MAP_WRITE,
    CL_MAP_WRITE_INVALIDATE_REGION,
    // cl_program_info
    CL_PROGRAM_REFERENCE_COUNT,
    CL_PROGRAM_CONTEXT,
    CL_PROGRAM_NUM_DEVICES,
    CL_PROGRAM_DEVICES,
    CL_PROGRAM_SOURCE,
    CL_PROGRAM_BINARY_SIZES,
    CL_PROGRAM_BINARIES,
    CL_PROGRAM_NUM_KERNELS,
    CL_PROGRAM_KERNEL_NAMES,
    // cl_program_build_info
    CL_PROGRAM_BUILD_STATUS,
    CL_PROGRAM_BUILD_OPTIONS,
    CL_PROGRAM_BUILD_LOG,
    CL_PROGRAM_BINARY_TYPE,
    // cl_program_binary_type
    CL_PROGRAM_BINARY_TYPE_NONE,
    CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT,
    CL_PROGRAM_BINARY_TYPE_LIBRARY,
    CL_PROGRAM_BINARY_TYPE_EXECUTABLE,
    // cl_build_status
    CL_BUILD_SUCCESS,
    CL_BUILD_NONE,
    CL_BUILD_ERROR,
    CL_BUILD_IN_PROGRESS,
    // cl_kernel_info
    CL_KERNEL_FUNCTION_NAME,
    CL_KERNEL_NUM_ARGS,
    CL_KERNEL_REFERENCE_COUNT,
    CL_KERNEL_CONTEXT,
    CL_KERNEL_PROGRAM,
    CL_KERNEL_ATTRIBUTES,
    // cl_kernel_arg_info
    CL_KERNEL_ARG_ADDRESS_QUALIFIER,
    CL_KERNEL_ARG_ACCESS_QUALIFIER,
    CL_KERNEL_ARG_TYPE_NAME,
    CL_KERNEL_ARG_TYPE_QUALIFIER,
    CL_KERNEL_ARG_NAME,
    // cl_kernel_arg_address_qualifier
    CL_KERNEL_ARG_ADDRESS_GLOBAL,
    CL_KERNEL_ARG_ADDRESS_LOCAL,
    CL_KERNEL_ARG_ADDRESS_CONSTANT,
    CL_KERNEL_ARG_ADDRESS_PRIVATE,
    // cl_kernel_arg_access_qualifier
    CL_KERNEL_ARG_ACCESS_READ_ONLY,
    CL_KERNEL_ARG_ACCESS_WRITE_ONLY,
    CL_KERNEL_ARG_ACCESS_READ_WRITE,
    CL_KERNEL_ARG_ACCESS_NONE,
    // cl_kernel_arg_type_qualifier
    #[local] CL_KERNEL_ARG_TYPE_NONE,
    #[local] CL_KERNEL_ARG_TYPE_CONST,
    #[local] CL_KERNEL_ARG_TYPE_RESTRICT,
    #[local] CL_KERNEL_ARG_TYPE_VOLATILE,
    // cl_kernel_work_group_info
    CL_KERNEL_WORK_GROUP_SIZE,
    CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
    CL_KERNEL_LOCAL_MEM_SIZE,
    CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE,
    CL_KERNEL_PRIVATE_MEM_SIZE,
    CL_KERNEL_GLOBAL_WORK_SIZE,
    // cl_event_info
    CL_EVENT_COMMAND_QUEUE,
    CL_EVENT_COMMAND_TYPE,
    CL_EVENT_REFERENCE_COUNT,
    CL_EVENT_COMMAND_EXECUTION_STATUS,
    CL_EVENT_CONTEXT,
    // cl_command_type
    CL_COMMAND_NDRANGE_KERNEL,
    CL_COMMAND_TASK,
    CL_COMMAND_NATIVE_KERNEL,
    CL_COMMAND_READ_BUFFER,
    CL_COMMAND_WRITE_BUFFER,
    CL_COMMAND_COPY_BUFFER,
    CL_COMMAND_READ_IMAGE,
    CL_COMMAND_WRITE_IMAGE,
    CL_COMMAND_COPY_IMAGE,
    CL_COMMAND_COPY_IMAGE_TO_BUFFER,
    CL_COMMAND_COPY_BUFFER_TO_IMAGE,
    CL_COMMAND_MAP_BUFFER,
    CL_COMMAND_MAP_IMAGE,
    CL_COMMAND_UNMAP_MEM_OBJECT,
    CL_COMMAND_MARKER,
    CL_COMMAND_ACQUIRE_GL_OBJECTS,
    CL_COMMAND_RELEASE_GL_OBJECTS,
    CL_COMMAND_READ_BUFFER_RECT,
    CL_COMMAND_WRITE_BUFFER_RECT,
    CL_COMMAND_COPY_BUFFER_RECT,
    CL_COMMAND_USER,
    CL_COMMAND_BARRIER,
    CL_COMMAND_MIGRATE_MEM_OBJECTS,
    CL_COMMAND_FILL_BUFFER,
    CL_COMMAND_FILL_IMAGE,
    // command execution status
    CL_COMPLETE,
    CL_RUNNING,
    CL_SUBMITTED,
    CL_QUEUED,
    // cl_buffer_create_type
    CL_BUFFER_CREATE_TYPE_REGION,
    // cl_profiling_info
    CL_PROFILING_COMMAND_QUEUED,
    CL_PROFILING_COMMAND_SUBMIT,
    CL_PROFILING_COMMAND_START,
    CL_PROFILING_COMMAND_END,
    // cl_khronos_vendor_id
    CL_KHRONOS_VENDOR_ID_CODEPLAY,

    // Extension constants the driver reports. CL_DEVICE_DOUBLE_FP_CONFIG (cl_khr_fp64) is
    // already listed above: OpenCL 1.2 moved it into cl.h.
    // cl_khr_fp16
    CL_DEVICE_HALF_FP_CONFIG,
    // cl_khr_icd
    CL_PLATFORM_ICD_SUFFIX_KHR,
    CL_PLATFORM_NOT_FOUND_KHR,
}

// ---------------------------------------------------------------------------------------------
// `#[local]` constants: defined here because opencl-sys 0.6.5 cannot supply them as cl.h has them.
// The values are still checked against the installed headers by tests/against_c_headers.rs.

/// `cl_channel_order` added by OpenCL 1.2 (`cl.h`, under `CL_VERSION_1_2`). opencl-sys 0.6.5
/// omits it (it has `CL_DEPTH` but not this one), yet an implementation must accept the name
/// and answer `CL_IMAGE_FORMAT_NOT_SUPPORTED` / `CL_INVALID_IMAGE_FORMAT_DESCRIPTOR` for it.
pub const CL_DEPTH_STENCIL: cl_channel_order = 0x10BE;

/// `cl_channel_type` added by OpenCL 1.2 (`cl.h`, under `CL_VERSION_1_2`); missing from
/// opencl-sys 0.6.5 for the same reason as [`CL_DEPTH_STENCIL`] (both came from
/// `cl_khr_gl_depth_images` and were folded into core 1.2).
pub const CL_UNORM_INT24: cl_channel_type = 0x10DF;

/// `cl_kernel_arg_type_qualifier` values. opencl-sys 0.6.5 has the right values but types them
/// with its own `cl_kernel_arg_type_qualifier`, which it declares as `cl_uint` (32 bits), whereas
/// `cl.h` says `typedef cl_bitfield cl_kernel_arg_type_qualifier` (64 bits). The driver writes
/// these into the caller's buffer for `clGetKernelArgInfo(CL_KERNEL_ARG_TYPE_QUALIFIER)`, so the
/// width is ABI: they are redefined with [`crate::cl_kernel_arg_type_qualifier`] (64 bits).
pub const CL_KERNEL_ARG_TYPE_NONE: cl_kernel_arg_type_qualifier = 0;
/// See [`CL_KERNEL_ARG_TYPE_NONE`] for why this is defined here.
pub const CL_KERNEL_ARG_TYPE_CONST: cl_kernel_arg_type_qualifier = 1 << 0;
/// See [`CL_KERNEL_ARG_TYPE_NONE`] for why this is defined here.
pub const CL_KERNEL_ARG_TYPE_RESTRICT: cl_kernel_arg_type_qualifier = 1 << 1;
/// See [`CL_KERNEL_ARG_TYPE_NONE`] for why this is defined here.
pub const CL_KERNEL_ARG_TYPE_VOLATILE: cl_kernel_arg_type_qualifier = 1 << 2;
