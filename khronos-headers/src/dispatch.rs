//! [`IcdDispatch`]: the `struct _cl_icd_dispatch` of `CL/cl_icd.h`.
//!
//! Under the ICD mechanism every object the driver hands out (platform, device, context, queue,
//! memory object, sampler, program, kernel, event) starts with a pointer to one of these tables.
//! The loader (`libOpenCL.so`) implements each `clXxx` by reading that first word of its first
//! handle argument and calling through the slot of the same name, so what matters is exactly the
//! slot *order*: a driver compiled against a table with one slot missing or swapped calls the
//! wrong function with the wrong arguments. The list below is therefore kept in the header's
//! order, and `tests/against_c_headers.rs` compares it (names, offsets, total size) with the
//! installed `cl_icd.h`.
//!
//! Slots the driver implements (OpenCL 1.0, 1.1 and 1.2, deprecated entry points included,
//! because 1.2 applications may still call them) have opencl-sys's `*_t` type, so that the
//! compiler checks each `extern "C"` function the driver stores against that prototype (which
//! the tests in turn compare, parameter by parameter, with the `cl_api_*` typedefs of
//! `cl_icd.h`). The sharing extensions (GL, D3D, DX9, EGL), `cl_ext_device_fission` and the
//! OpenCL 2.0+ slots are [`UnusedSlot`]s: the driver provides none of them and they stay NULL,
//! except `clCreateCommandQueueWithProperties`, which applications (the Khronos CTS among
//! them) call through ocl-icd whatever the device's version.

use crate::fn_types;

/// Type of a slot whose entry point the driver does not provide. It is a nullable C function
/// pointer, like every real slot, so the table keeps the C layout; it is always `None` (NULL).
pub type UnusedSlot = Option<unsafe extern "C" fn()>;

/// Declares [`IcdDispatch`] from one list of `slot: type` pairs, and from the same list the
/// slot-name table, the all-NULL constant and the offset table, so that they cannot disagree.
macro_rules! icd_dispatch {
    ($($name:ident: $ty:ty,)*) => {
        /// The ICD dispatch table, field for field `struct _cl_icd_dispatch` of `CL/cl_icd.h`.
        ///
        /// Field names are the C names (hence `non_snake_case`) so that the table can be
        /// compared with the header and so that `slot: function` reads like the C API.
        #[repr(C)]
        #[allow(non_snake_case)]
        #[derive(Clone, Copy, Debug)]
        pub struct IcdDispatch {
            $(pub $name: $ty,)*
        }

        /// The field names of [`IcdDispatch`], in declaration (= memory) order.
        pub const DISPATCH_SLOT_NAMES: &[&str] = &[$(stringify!($name),)*];

        impl IcdDispatch {
            /// A table with every slot NULL, to start from with struct-update syntax
            /// (`IcdDispatch { clGetPlatformIDs: Some(..), ..IcdDispatch::EMPTY }`), so that
            /// only implemented entry points need to be named.
            pub const EMPTY: IcdDispatch = IcdDispatch { $($name: None,)* };
        }

        /// `(field name, byte offset)` for every slot of [`IcdDispatch`], in order, as the
        /// compiler laid them out; the tests compare these with the C layout.
        pub fn slot_offsets() -> Vec<(&'static str, usize)> {
            vec![$((stringify!($name), core::mem::offset_of!(IcdDispatch, $name)),)*]
        }

        /// `(field name, Rust type name)` for every slot, in order, so that the tests can
        /// compare each implemented slot's prototype with its `cl_api_*` typedef in `cl_icd.h`.
        /// The names come from [`core::any::type_name`] and are meant for that check only.
        pub fn slot_type_names() -> Vec<(&'static str, &'static str)> {
            vec![$((stringify!($name), core::any::type_name::<$ty>()),)*]
        }
    };
}

icd_dispatch! {
    // OpenCL 1.0
    clGetPlatformIDs: fn_types::clGetPlatformIDs_t,
    clGetPlatformInfo: fn_types::clGetPlatformInfo_t,
    clGetDeviceIDs: fn_types::clGetDeviceIDs_t,
    clGetDeviceInfo: fn_types::clGetDeviceInfo_t,
    clCreateContext: fn_types::clCreateContext_t,
    clCreateContextFromType: fn_types::clCreateContextFromType_t,
    clRetainContext: fn_types::clRetainContext_t,
    clReleaseContext: fn_types::clReleaseContext_t,
    clGetContextInfo: fn_types::clGetContextInfo_t,
    clCreateCommandQueue: fn_types::clCreateCommandQueue_t,
    clRetainCommandQueue: fn_types::clRetainCommandQueue_t,
    clReleaseCommandQueue: fn_types::clReleaseCommandQueue_t,
    clGetCommandQueueInfo: fn_types::clGetCommandQueueInfo_t,
    clSetCommandQueueProperty: fn_types::clSetCommandQueueProperty_t,
    clCreateBuffer: fn_types::clCreateBuffer_t,
    clCreateImage2D: fn_types::clCreateImage2D_t,
    clCreateImage3D: fn_types::clCreateImage3D_t,
    clRetainMemObject: fn_types::clRetainMemObject_t,
    clReleaseMemObject: fn_types::clReleaseMemObject_t,
    clGetSupportedImageFormats: fn_types::clGetSupportedImageFormats_t,
    clGetMemObjectInfo: fn_types::clGetMemObjectInfo_t,
    clGetImageInfo: fn_types::clGetImageInfo_t,
    clCreateSampler: fn_types::clCreateSampler_t,
    clRetainSampler: fn_types::clRetainSampler_t,
    clReleaseSampler: fn_types::clReleaseSampler_t,
    clGetSamplerInfo: fn_types::clGetSamplerInfo_t,
    clCreateProgramWithSource: fn_types::clCreateProgramWithSource_t,
    clCreateProgramWithBinary: fn_types::clCreateProgramWithBinary_t,
    clRetainProgram: fn_types::clRetainProgram_t,
    clReleaseProgram: fn_types::clReleaseProgram_t,
    clBuildProgram: fn_types::clBuildProgram_t,
    clUnloadCompiler: fn_types::clUnloadCompiler_t,
    clGetProgramInfo: fn_types::clGetProgramInfo_t,
    clGetProgramBuildInfo: fn_types::clGetProgramBuildInfo_t,
    clCreateKernel: fn_types::clCreateKernel_t,
    clCreateKernelsInProgram: fn_types::clCreateKernelsInProgram_t,
    clRetainKernel: fn_types::clRetainKernel_t,
    clReleaseKernel: fn_types::clReleaseKernel_t,
    clSetKernelArg: fn_types::clSetKernelArg_t,
    clGetKernelInfo: fn_types::clGetKernelInfo_t,
    clGetKernelWorkGroupInfo: fn_types::clGetKernelWorkGroupInfo_t,
    clWaitForEvents: fn_types::clWaitForEvents_t,
    clGetEventInfo: fn_types::clGetEventInfo_t,
    clRetainEvent: fn_types::clRetainEvent_t,
    clReleaseEvent: fn_types::clReleaseEvent_t,
    clGetEventProfilingInfo: fn_types::clGetEventProfilingInfo_t,
    clFlush: fn_types::clFlush_t,
    clFinish: fn_types::clFinish_t,
    clEnqueueReadBuffer: fn_types::clEnqueueReadBuffer_t,
    clEnqueueWriteBuffer: fn_types::clEnqueueWriteBuffer_t,
    clEnqueueCopyBuffer: fn_types::clEnqueueCopyBuffer_t,
    clEnqueueReadImage: fn_types::clEnqueueReadImage_t,
    clEnqueueWriteImage: fn_types::clEnqueueWriteImage_t,
    clEnqueueCopyImage: fn_types::clEnqueueCopyImage_t,
    clEnqueueCopyImageToBuffer: fn_types::clEnqueueCopyImageToBuffer_t,
    clEnqueueCopyBufferToImage: fn_types::clEnqueueCopyBufferToImage_t,
    clEnqueueMapBuffer: fn_types::clEnqueueMapBuffer_t,
    clEnqueueMapImage: fn_types::clEnqueueMapImage_t,
    clEnqueueUnmapMemObject: fn_types::clEnqueueUnmapMemObject_t,
    clEnqueueNDRangeKernel: fn_types::clEnqueueNDRangeKernel_t,
    clEnqueueTask: fn_types::clEnqueueTask_t,
    clEnqueueNativeKernel: fn_types::clEnqueueNativeKernel_t,
    clEnqueueMarker: fn_types::clEnqueueMarker_t,
    clEnqueueWaitForEvents: fn_types::clEnqueueWaitForEvents_t,
    clEnqueueBarrier: fn_types::clEnqueueBarrier_t,
    clGetExtensionFunctionAddress: fn_types::clGetExtensionFunctionAddress_t,
    // cl_khr_gl_sharing (declared in the OpenCL 1.0 block)
    clCreateFromGLBuffer: UnusedSlot,
    clCreateFromGLTexture2D: UnusedSlot,
    clCreateFromGLTexture3D: UnusedSlot,
    clCreateFromGLRenderbuffer: UnusedSlot,
    clGetGLObjectInfo: UnusedSlot,
    clGetGLTextureInfo: UnusedSlot,
    clEnqueueAcquireGLObjects: UnusedSlot,
    clEnqueueReleaseGLObjects: UnusedSlot,
    clGetGLContextInfoKHR: UnusedSlot,
    // cl_khr_d3d10_sharing
    clGetDeviceIDsFromD3D10KHR: UnusedSlot,
    clCreateFromD3D10BufferKHR: UnusedSlot,
    clCreateFromD3D10Texture2DKHR: UnusedSlot,
    clCreateFromD3D10Texture3DKHR: UnusedSlot,
    clEnqueueAcquireD3D10ObjectsKHR: UnusedSlot,
    clEnqueueReleaseD3D10ObjectsKHR: UnusedSlot,
    // OpenCL 1.1
    clSetEventCallback: fn_types::clSetEventCallback_t,
    clCreateSubBuffer: fn_types::clCreateSubBuffer_t,
    clSetMemObjectDestructorCallback: fn_types::clSetMemObjectDestructorCallback_t,
    clCreateUserEvent: fn_types::clCreateUserEvent_t,
    clSetUserEventStatus: fn_types::clSetUserEventStatus_t,
    clEnqueueReadBufferRect: fn_types::clEnqueueReadBufferRect_t,
    clEnqueueWriteBufferRect: fn_types::clEnqueueWriteBufferRect_t,
    clEnqueueCopyBufferRect: fn_types::clEnqueueCopyBufferRect_t,
    // cl_ext_device_fission
    clCreateSubDevicesEXT: UnusedSlot,
    clRetainDeviceEXT: UnusedSlot,
    clReleaseDeviceEXT: UnusedSlot,
    // cl_khr_gl_event
    clCreateEventFromGLsyncKHR: UnusedSlot,
    // OpenCL 1.2
    clCreateSubDevices: fn_types::clCreateSubDevices_t,
    clRetainDevice: fn_types::clRetainDevice_t,
    clReleaseDevice: fn_types::clReleaseDevice_t,
    clCreateImage: fn_types::clCreateImage_t,
    clCreateProgramWithBuiltInKernels: fn_types::clCreateProgramWithBuiltInKernels_t,
    clCompileProgram: fn_types::clCompileProgram_t,
    clLinkProgram: fn_types::clLinkProgram_t,
    clUnloadPlatformCompiler: fn_types::clUnloadPlatformCompiler_t,
    clGetKernelArgInfo: fn_types::clGetKernelArgInfo_t,
    clEnqueueFillBuffer: fn_types::clEnqueueFillBuffer_t,
    clEnqueueFillImage: fn_types::clEnqueueFillImage_t,
    clEnqueueMigrateMemObjects: fn_types::clEnqueueMigrateMemObjects_t,
    clEnqueueMarkerWithWaitList: fn_types::clEnqueueMarkerWithWaitList_t,
    clEnqueueBarrierWithWaitList: fn_types::clEnqueueBarrierWithWaitList_t,
    clGetExtensionFunctionAddressForPlatform:
        fn_types::clGetExtensionFunctionAddressForPlatform_t,
    // cl_khr_gl_sharing, 1.2 addition
    clCreateFromGLTexture: UnusedSlot,
    // cl_khr_d3d11_sharing
    clGetDeviceIDsFromD3D11KHR: UnusedSlot,
    clCreateFromD3D11BufferKHR: UnusedSlot,
    clCreateFromD3D11Texture2DKHR: UnusedSlot,
    clCreateFromD3D11Texture3DKHR: UnusedSlot,
    clCreateFromDX9MediaSurfaceKHR: UnusedSlot,
    clEnqueueAcquireD3D11ObjectsKHR: UnusedSlot,
    clEnqueueReleaseD3D11ObjectsKHR: UnusedSlot,
    // cl_khr_dx9_media_sharing
    clGetDeviceIDsFromDX9MediaAdapterKHR: UnusedSlot,
    clEnqueueAcquireDX9MediaSurfacesKHR: UnusedSlot,
    clEnqueueReleaseDX9MediaSurfacesKHR: UnusedSlot,
    // cl_khr_egl_image
    clCreateFromEGLImageKHR: UnusedSlot,
    clEnqueueAcquireEGLObjectsKHR: UnusedSlot,
    clEnqueueReleaseEGLObjectsKHR: UnusedSlot,
    // cl_khr_egl_event
    clCreateEventFromEGLSyncKHR: UnusedSlot,
    // OpenCL 2.0
    clCreateCommandQueueWithProperties: fn_types::clCreateCommandQueueWithProperties_t,
    clCreatePipe: UnusedSlot,
    clGetPipeInfo: UnusedSlot,
    clSVMAlloc: UnusedSlot,
    clSVMFree: UnusedSlot,
    clEnqueueSVMFree: UnusedSlot,
    clEnqueueSVMMemcpy: UnusedSlot,
    clEnqueueSVMMemFill: UnusedSlot,
    clEnqueueSVMMap: UnusedSlot,
    clEnqueueSVMUnmap: UnusedSlot,
    clCreateSamplerWithProperties: UnusedSlot,
    clSetKernelArgSVMPointer: UnusedSlot,
    clSetKernelExecInfo: UnusedSlot,
    // cl_khr_sub_groups
    clGetKernelSubGroupInfoKHR: UnusedSlot,
    // OpenCL 2.1
    clCloneKernel: UnusedSlot,
    clCreateProgramWithIL: UnusedSlot,
    clEnqueueSVMMigrateMem: UnusedSlot,
    clGetDeviceAndHostTimer: UnusedSlot,
    clGetHostTimer: UnusedSlot,
    clGetKernelSubGroupInfo: UnusedSlot,
    clSetDefaultDeviceCommandQueue: UnusedSlot,
    // OpenCL 2.2
    clSetProgramReleaseCallback: UnusedSlot,
    clSetProgramSpecializationConstant: UnusedSlot,
    // OpenCL 3.0
    clCreateBufferWithProperties: UnusedSlot,
    clCreateImageWithProperties: UnusedSlot,
    clSetContextDestructorCallback: UnusedSlot,
}

// Every slot is one nullable function pointer, so the table is exactly one pointer per slot with
// no padding; checked at compile time so that a wrong slot type cannot shift the layout.
const _: () =
    assert!(size_of::<IcdDispatch>() == DISPATCH_SLOT_NAMES.len() * size_of::<*const ()>());
const _: () = assert!(align_of::<IcdDispatch>() == align_of::<*const ()>());

impl Default for IcdDispatch {
    /// Same as [`IcdDispatch::EMPTY`].
    fn default() -> Self {
        Self::EMPTY
    }
}
