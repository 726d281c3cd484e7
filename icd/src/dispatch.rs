//! The one table of entry points.
//!
//! The same list fills the ICD dispatch table (which the loader calls through) and answers
//! `clGetExtensionFunctionAddress[ForPlatform]`, so the two cannot drift apart. Slots of
//! functions clift does not provide (OpenCL 2.x, sharing extensions) stay NULL.

use std::ffi::c_void;

use khronos_headers::IcdDispatch;

use crate::api;

macro_rules! entry_points {
    (table: $($name:ident),* $(,)?; extensions: $($ext:ident),* $(,)?) => {
        /// The dispatch table every clift object points to.
        pub static DISPATCH: IcdDispatch = IcdDispatch {
            $($name: Some(api::$name),)*
            ..IcdDispatch::EMPTY
        };

        /// The address of the entry point called `name`, or NULL; the table's entries are
        /// taken from the installed [`table`] (the loader calls some of them through these
        /// addresses).
        pub fn lookup(name: &str) -> *mut c_void {
            match name {
                $(stringify!($name) => table().$name.map_or(std::ptr::null_mut(), |f| f as *mut c_void),)*
                $(stringify!($ext) => api::$ext as *mut c_void,)*
                _ => std::ptr::null_mut(),
            }
        }

        /// The names of every entry point, dispatch table first.
        pub const ENTRY_POINT_NAMES: &[&str] = &[$(stringify!($name),)* $(stringify!($ext),)*];
    };
}

/// The table the platform installs: [`crate::trace::TRACED`] while `CLIFT_LOG=api` is on
/// (its entry points record their arguments for the log), else [`DISPATCH`].
pub fn table() -> &'static IcdDispatch {
    use clift_runtime::log::{Category, Level, enabled};
    if enabled(Category::Api, Level::Error) {
        &crate::trace::TRACED
    } else {
        &DISPATCH
    }
}

/// Whether `table` is one of clift's dispatch tables (a handle's first word).
pub fn is_ours(table: *const IcdDispatch) -> bool {
    std::ptr::eq(table, &DISPATCH) || std::ptr::eq(table, &crate::trace::TRACED)
}

entry_points! {
    table:
    clGetPlatformIDs,
    clGetPlatformInfo,
    clGetDeviceIDs,
    clGetDeviceInfo,
    clCreateContext,
    clCreateContextFromType,
    clRetainContext,
    clReleaseContext,
    clGetContextInfo,
    clCreateCommandQueue,
    clRetainCommandQueue,
    clReleaseCommandQueue,
    clGetCommandQueueInfo,
    clSetCommandQueueProperty,
    clCreateBuffer,
    clRetainMemObject,
    clReleaseMemObject,
    clGetMemObjectInfo,
    clCreateSampler,
    clRetainSampler,
    clReleaseSampler,
    clGetSamplerInfo,
    clCreateProgramWithSource,
    clCreateProgramWithBinary,
    clRetainProgram,
    clReleaseProgram,
    clBuildProgram,
    clUnloadCompiler,
    clGetProgramInfo,
    clGetProgramBuildInfo,
    clCreateKernel,
    clCreateKernelsInProgram,
    clRetainKernel,
    clReleaseKernel,
    clSetKernelArg,
    clGetKernelInfo,
    clGetKernelWorkGroupInfo,
    clWaitForEvents,
    clGetEventInfo,
    clRetainEvent,
    clReleaseEvent,
    clGetEventProfilingInfo,
    clFlush,
    clFinish,
    clEnqueueReadBuffer,
    clEnqueueWriteBuffer,
    clEnqueueCopyBuffer,
    clEnqueueMapBuffer,
    clEnqueueUnmapMemObject,
    clEnqueueNativeKernel,
    clEnqueueMarker,
    clEnqueueWaitForEvents,
    clEnqueueBarrier,
    clSetEventCallback,
    clCreateSubBuffer,
    clSetMemObjectDestructorCallback,
    clCreateUserEvent,
    clSetUserEventStatus,
    clEnqueueReadBufferRect,
    clEnqueueWriteBufferRect,
    clEnqueueCopyBufferRect,
    clEnqueueFillBuffer,
    clEnqueueMigrateMemObjects,
    clEnqueueMarkerWithWaitList,
    clEnqueueBarrierWithWaitList,
    clCreateImage,
    clCreateImage2D,
    clCreateImage3D,
    clGetSupportedImageFormats,
    clGetImageInfo,
    clEnqueueReadImage,
    clEnqueueWriteImage,
    clEnqueueCopyImage,
    clEnqueueFillImage,
    clEnqueueCopyImageToBuffer,
    clEnqueueCopyBufferToImage,
    clEnqueueMapImage,
    clEnqueueNDRangeKernel,
    clEnqueueTask,
    clGetExtensionFunctionAddress,
    clCreateSubDevices,
    clRetainDevice,
    clReleaseDevice,
    clCreateProgramWithBuiltInKernels,
    clCompileProgram,
    clLinkProgram,
    clUnloadPlatformCompiler,
    clGetKernelArgInfo,
    clGetExtensionFunctionAddressForPlatform,
    clCreateCommandQueueWithProperties;
    extensions:
    clIcdGetPlatformIDsKHR,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_resolves_and_unknown_names_do_not() {
        for name in ENTRY_POINT_NAMES {
            assert!(!lookup(name).is_null(), "{name}");
        }
        assert!(lookup("clNoSuchFunction").is_null());
    }

    /// The loader calls through a slot without checking it: a NULL slot of an OpenCL 1.x
    /// entry point would crash the application, so every one of them must be filled.
    #[test]
    fn every_opencl_1x_slot_is_filled() {
        let unused = std::any::type_name::<khronos_headers::UnusedSlot>();
        let offsets: std::collections::HashMap<_, _> =
            khronos_headers::slot_offsets().into_iter().collect();
        let base = (&DISPATCH as *const khronos_headers::IcdDispatch).cast::<u8>();
        let mut missing = Vec::new();
        for (name, ty) in khronos_headers::slot_type_names() {
            // SAFETY: every slot is a pointer-sized `Option<fn>` at its offset in the table.
            let slot = unsafe { base.add(offsets[name]).cast::<usize>().read() };
            if ty != unused && slot == 0 {
                missing.push(name);
            }
            if ty == unused {
                assert_eq!(slot, 0, "{name} is not an entry point clift provides");
            }
        }
        assert!(missing.is_empty(), "NULL slots: {missing:?}");
    }

    #[test]
    fn table_slots_point_at_the_same_functions_as_lookup() {
        let slot = DISPATCH.clGetDeviceInfo.map(|f| f as *mut c_void);
        assert_eq!(slot, Some(lookup("clGetDeviceInfo")));
    }
}
