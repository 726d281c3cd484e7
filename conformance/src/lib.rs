//! The client side of clift's conformance suite.
//!
//! The tests reach clift exactly as an application does: they `dlopen` the system's ICD
//! loader (ocl-icd's `libOpenCL.so.1`) and call the OpenCL API through it, so what they see
//! includes the loader's own argument checks and its dispatch through the `cl_khr_icd`
//! table. Nothing here links against libOpenCL or imports a crate of the driver: the entry
//! points are resolved at run time into an [`Api`], a struct of the `Option<fn>` types of
//! `opencl_sys::cl_function_types`.
//!
//! [`clift()`] sets the loader up so that it sees clift and nothing else (a vendors
//! directory of its own), once per process. [`Api::load`] loads any library by path: a
//! benchmark can use it to load the loader, or a driver's `.so` directly, side by side.
//!
//! # Handles
//!
//! The helpers follow the convention of the `cl3` crate: handles (`cl_platform_id`,
//! `cl_device_id`, ...) are opaque values, passed through to the implementation, which
//! validates them; every other pointer the helpers pass is built from Rust references and
//! slices. The contract is the ICD loader's: a handle is NULL, or points to an object whose
//! first word is a dispatch table — a live object of the library (possibly of another type
//! than the call expects: that is what the invalid-handle tests pass), or a
//! [`ForeignObject`]. A released handle must not be passed again.

use std::ffi::{CStr, OsStr, c_char, c_void};
use std::path::{Path, PathBuf};
use std::ptr::{null, null_mut};
use std::sync::OnceLock;

use libloading::Library;

pub mod kernel_fixture;
use opencl_sys::cl_function_types::*;
pub use opencl_sys::*;

/// `pfn_notify` of `clCreateContext` and `clCreateContextFromType`.
pub type ContextNotify =
    Option<unsafe extern "C" fn(*const c_char, *const c_void, usize, *mut c_void)>;

/// Byte-wise string equality, usable in constants (`str`'s `==` is not `const`).
const fn same_str(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Defines [`Api`] and its loader from one list of `name: type` pairs.
///
/// A declarative macro cannot derive the type name `clFoo_t` from `clFoo`, so each entry
/// names both; a compile-time assertion checks that they agree, so an entry cannot be
/// declared with another entry's prototype.
macro_rules! entry_points {
    ($($name:ident: $ty:ident,)*) => {
        /// Every OpenCL 1.2 entry point (with the 1.0/1.1 ones 1.2 still exports), resolved
        /// by name from one library. A field is `None` when the library does not export it.
        #[allow(non_snake_case)]
        pub struct Api {
            $(pub $name: $ty,)*
            /// Keeps the library mapped while the function pointers are in use (never read:
            /// owning it is the point).
            _library: Library,
            /// What was loaded, for messages.
            path: String,
        }

        $(
            const _: () = assert!(
                same_str(concat!(stringify!($name), "_t"), stringify!($ty)),
                concat!("entry ", stringify!($name), " is declared with type ", stringify!($ty)),
            );
        )*

        impl Api {
            /// Resolves every entry point of `library`.
            fn resolve(library: Library, path: String) -> Api {
                Api {
                    $(
                        // SAFETY: the symbol is the OpenCL entry point of that name, whose C
                        // prototype is the one `opencl_sys` declares for this field's type.
                        $name: unsafe { symbol(&library, stringify!($name)) },
                    )*
                    _library: library,
                    path,
                }
            }

            /// The names of the entry points this library does not export.
            pub fn missing(&self) -> Vec<&'static str> {
                let mut missing = Vec::new();
                $(
                    if self.$name.is_none() {
                        missing.push(stringify!($name));
                    }
                )*
                missing
            }
        }
    };
}

entry_points! {
    // OpenCL 1.0
    clGetPlatformIDs: clGetPlatformIDs_t,
    clGetPlatformInfo: clGetPlatformInfo_t,
    clGetDeviceIDs: clGetDeviceIDs_t,
    clGetDeviceInfo: clGetDeviceInfo_t,
    clCreateContext: clCreateContext_t,
    clCreateContextFromType: clCreateContextFromType_t,
    clRetainContext: clRetainContext_t,
    clReleaseContext: clReleaseContext_t,
    clGetContextInfo: clGetContextInfo_t,
    clCreateCommandQueue: clCreateCommandQueue_t,
    clRetainCommandQueue: clRetainCommandQueue_t,
    clReleaseCommandQueue: clReleaseCommandQueue_t,
    clGetCommandQueueInfo: clGetCommandQueueInfo_t,
    clSetCommandQueueProperty: clSetCommandQueueProperty_t,
    clCreateBuffer: clCreateBuffer_t,
    clCreateImage2D: clCreateImage2D_t,
    clCreateImage3D: clCreateImage3D_t,
    clRetainMemObject: clRetainMemObject_t,
    clReleaseMemObject: clReleaseMemObject_t,
    clGetSupportedImageFormats: clGetSupportedImageFormats_t,
    clGetMemObjectInfo: clGetMemObjectInfo_t,
    clGetImageInfo: clGetImageInfo_t,
    clCreateSampler: clCreateSampler_t,
    clRetainSampler: clRetainSampler_t,
    clReleaseSampler: clReleaseSampler_t,
    clGetSamplerInfo: clGetSamplerInfo_t,
    clCreateProgramWithSource: clCreateProgramWithSource_t,
    clCreateProgramWithBinary: clCreateProgramWithBinary_t,
    clRetainProgram: clRetainProgram_t,
    clReleaseProgram: clReleaseProgram_t,
    clBuildProgram: clBuildProgram_t,
    clUnloadCompiler: clUnloadCompiler_t,
    clGetProgramInfo: clGetProgramInfo_t,
    clGetProgramBuildInfo: clGetProgramBuildInfo_t,
    clCreateKernel: clCreateKernel_t,
    clCreateKernelsInProgram: clCreateKernelsInProgram_t,
    clRetainKernel: clRetainKernel_t,
    clReleaseKernel: clReleaseKernel_t,
    clSetKernelArg: clSetKernelArg_t,
    clGetKernelInfo: clGetKernelInfo_t,
    clGetKernelWorkGroupInfo: clGetKernelWorkGroupInfo_t,
    clWaitForEvents: clWaitForEvents_t,
    clGetEventInfo: clGetEventInfo_t,
    clRetainEvent: clRetainEvent_t,
    clReleaseEvent: clReleaseEvent_t,
    clGetEventProfilingInfo: clGetEventProfilingInfo_t,
    clFlush: clFlush_t,
    clFinish: clFinish_t,
    clEnqueueReadBuffer: clEnqueueReadBuffer_t,
    clEnqueueWriteBuffer: clEnqueueWriteBuffer_t,
    clEnqueueCopyBuffer: clEnqueueCopyBuffer_t,
    clEnqueueReadImage: clEnqueueReadImage_t,
    clEnqueueWriteImage: clEnqueueWriteImage_t,
    clEnqueueCopyImage: clEnqueueCopyImage_t,
    clEnqueueCopyImageToBuffer: clEnqueueCopyImageToBuffer_t,
    clEnqueueCopyBufferToImage: clEnqueueCopyBufferToImage_t,
    clEnqueueMapBuffer: clEnqueueMapBuffer_t,
    clEnqueueMapImage: clEnqueueMapImage_t,
    clEnqueueUnmapMemObject: clEnqueueUnmapMemObject_t,
    clEnqueueNDRangeKernel: clEnqueueNDRangeKernel_t,
    clEnqueueTask: clEnqueueTask_t,
    clEnqueueNativeKernel: clEnqueueNativeKernel_t,
    clEnqueueMarker: clEnqueueMarker_t,
    clEnqueueWaitForEvents: clEnqueueWaitForEvents_t,
    clEnqueueBarrier: clEnqueueBarrier_t,
    clGetExtensionFunctionAddress: clGetExtensionFunctionAddress_t,
    // OpenCL 1.1
    clCreateSubBuffer: clCreateSubBuffer_t,
    clSetMemObjectDestructorCallback: clSetMemObjectDestructorCallback_t,
    clCreateUserEvent: clCreateUserEvent_t,
    clSetUserEventStatus: clSetUserEventStatus_t,
    clSetEventCallback: clSetEventCallback_t,
    clEnqueueReadBufferRect: clEnqueueReadBufferRect_t,
    clEnqueueWriteBufferRect: clEnqueueWriteBufferRect_t,
    clEnqueueCopyBufferRect: clEnqueueCopyBufferRect_t,
    // OpenCL 1.2
    clCreateSubDevices: clCreateSubDevices_t,
    clRetainDevice: clRetainDevice_t,
    clReleaseDevice: clReleaseDevice_t,
    clCreateImage: clCreateImage_t,
    clCreateProgramWithBuiltInKernels: clCreateProgramWithBuiltInKernels_t,
    clCompileProgram: clCompileProgram_t,
    clLinkProgram: clLinkProgram_t,
    clUnloadPlatformCompiler: clUnloadPlatformCompiler_t,
    clGetKernelArgInfo: clGetKernelArgInfo_t,
    clEnqueueFillBuffer: clEnqueueFillBuffer_t,
    clEnqueueFillImage: clEnqueueFillImage_t,
    clEnqueueMigrateMemObjects: clEnqueueMigrateMemObjects_t,
    clEnqueueMarkerWithWaitList: clEnqueueMarkerWithWaitList_t,
    clEnqueueBarrierWithWaitList: clEnqueueBarrierWithWaitList_t,
    clGetExtensionFunctionAddressForPlatform: clGetExtensionFunctionAddressForPlatform_t,
    // OpenCL 2.0, which clift answers for OpenCL 1.2 properties (the CTS calls it).
    clCreateCommandQueueWithProperties: clCreateCommandQueueWithProperties_t,
    // cl_khr_icd: exported by drivers, not by the loader (which answers through the name
    // lookup instead).
    clIcdGetPlatformIDsKHR: clIcdGetPlatformIDsKHR_t,
}

/// Resolves one symbol as the `Option<fn>` type `F`; `None` when the library lacks it.
///
/// # Safety
/// `name`'s symbol in `library` must be a function with the prototype `F` describes.
unsafe fn symbol<F: Copy>(library: &Library, name: &str) -> Option<F> {
    // SAFETY: the caller's contract; the copied pointer stays valid while `library` is
    // loaded, which the `Api` holding both guarantees.
    unsafe { library.get::<F>(name.as_bytes()).ok().map(|s| *s) }
}

/// The entry point `name` of an [`Api`], panicking with its name when the library does not
/// export it: `entry!(api.clGetPlatformIDs)(...)`.
#[macro_export]
macro_rules! entry {
    ($api:ident . $name:ident) => {
        $api.$name.unwrap_or_else(|| {
            panic!(
                "{} is not exported by {}",
                stringify!($name),
                $api.library_path()
            )
        })
    };
}

/// Plain values an info query returns: every bit pattern is a valid value, and the type has
/// no padding, so one can be read from the bytes a query wrote.
///
/// # Safety
/// Implementors must be valid for any bit pattern of their size and have no padding.
pub unsafe trait Plain: Copy {}

macro_rules! plain {
    ($($t:ty),*) => { $(
        // SAFETY: a primitive integer or raw pointer: no padding, any bits are valid.
        unsafe impl Plain for $t {}
    )* };
}
plain!(u32, u64, usize, i32, i64, isize, *mut c_void);

/// Reads a `T` from the bytes of an info answer, checking the answer has exactly its size.
pub fn scalar<T: Plain>(bytes: &[u8]) -> T {
    assert_eq!(
        bytes.len(),
        size_of::<T>(),
        "the answer has {} bytes; its type ({}) has {}",
        bytes.len(),
        std::any::type_name::<T>(),
        size_of::<T>()
    );
    // SAFETY: `bytes` holds exactly `size_of::<T>()` bytes, read unaligned; `T: Plain` is
    // valid for any bits.
    unsafe { bytes.as_ptr().cast::<T>().read_unaligned() }
}

/// Reads an array of `T` from the bytes of an info answer, checking the size is a whole
/// number of elements.
pub fn array<T: Plain>(bytes: &[u8]) -> Vec<T> {
    assert_eq!(
        bytes.len() % size_of::<T>(),
        0,
        "the answer has {} bytes, not a whole number of {}",
        bytes.len(),
        std::any::type_name::<T>()
    );
    bytes.chunks_exact(size_of::<T>()).map(scalar).collect()
}

/// Reads a `char[]` answer: checks it is NUL-terminated with no NUL before the end (so the
/// reported size is `strlen + 1`) and valid UTF-8.
pub fn string(bytes: &[u8]) -> String {
    let text = CStr::from_bytes_with_nul(bytes)
        .unwrap_or_else(|e| panic!("not a NUL-terminated string of its reported size: {e}"));
    text.to_str()
        .unwrap_or_else(|e| panic!("not UTF-8: {e}"))
        .to_owned()
}

/// Reads a `cl_bool` answer, which must be `CL_TRUE` or `CL_FALSE`.
pub fn boolean(bytes: &[u8]) -> bool {
    match scalar::<cl_bool>(bytes) {
        CL_TRUE => true,
        CL_FALSE => false,
        other => panic!("a cl_bool must be CL_TRUE or CL_FALSE, not {other}"),
    }
}

/// Whether a space-separated extension list names `extension`.
pub fn has_extension(list: &str, extension: &str) -> bool {
    list.split_ascii_whitespace().any(|e| e == extension)
}

/// Performs the two-step info protocol: the size query (`param_value` NULL), then the read
/// into a buffer of exactly that size, checking the read reports the same size.
///
/// `query(param_value_size, param_value, param_value_size_ret)` makes the call. The error of
/// the size query is returned; a read that fails after the size query succeeded panics.
pub fn info_bytes(
    mut query: impl FnMut(usize, *mut c_void, *mut usize) -> cl_int,
) -> Result<Vec<u8>, cl_int> {
    let mut size = 0usize;
    let status = query(0, null_mut(), &mut size);
    if status != CL_SUCCESS {
        return Err(status);
    }
    let mut bytes = vec![0u8; size];
    let mut written = usize::MAX;
    let status = query(size, bytes.as_mut_ptr().cast(), &mut written);
    assert_eq!(
        status, CL_SUCCESS,
        "the size query succeeded ({size} bytes) but reading the value failed"
    );
    assert_eq!(
        written, size,
        "the read reported another size than the size query"
    );
    Ok(bytes)
}

/// The pointer for an optional output slice: NULL for `None`.
fn out_ptr<T>(slice: Option<&mut [T]>) -> *mut T {
    slice.map_or(null_mut(), <[T]>::as_mut_ptr)
}

/// The pointer for an optional output value: NULL for `None`.
fn ret_ptr<T>(value: Option<&mut T>) -> *mut T {
    value.map_or(null_mut(), |v| v as *mut T)
}

/// Asserts that a property list ends with its terminating 0, so the implementation's scan
/// stays inside the slice.
fn terminated<T: Default + PartialEq>(list: &[T]) {
    assert!(
        list.last() == Some(&T::default()),
        "property lists must end with 0"
    );
}

/// Asserts that a count passed with an output slice fits in it.
fn fits<T>(count: impl TryInto<usize>, slice: &Option<&mut [T]>) {
    if let Some(slice) = slice {
        let count = count.try_into().unwrap_or(usize::MAX);
        assert!(count <= slice.len(), "the count exceeds the output slice");
    }
}

#[expect(
    clippy::not_unsafe_ptr_arg_deref,
    reason = "handles are opaque values the implementation validates (see the crate docs)"
)]
impl Api {
    /// Loads the library at `path` (a file name is searched as `dlopen` does) and resolves
    /// every entry point it exports.
    pub fn load(path: impl AsRef<OsStr>) -> Result<Api, String> {
        let path = path.as_ref();
        let shown = path.to_string_lossy().into_owned();
        // SAFETY: loading runs the library's initialisers; the libraries this crate loads
        // (the ICD loader, OpenCL drivers) are ordinary shared libraries meant to be loaded
        // into applications.
        let library =
            unsafe { Library::new(path) }.map_err(|e| format!("cannot load {shown}: {e}"))?;
        Ok(Api::resolve(library, shown))
    }

    /// The path or name the library was loaded from.
    pub fn library_path(&self) -> &str {
        &self.path
    }

    /// `clGetPlatformIDs`, with NULL for each `None`.
    pub fn get_platform_ids(
        &self,
        num_entries: cl_uint,
        platforms: Option<&mut [cl_platform_id]>,
        num_platforms: Option<&mut cl_uint>,
    ) -> cl_int {
        fits(num_entries, &platforms);
        let f = entry!(self.clGetPlatformIDs);
        // SAFETY: `platforms` is NULL or holds at least `num_entries` entries (checked);
        // `num_platforms` is NULL or a valid `cl_uint`.
        unsafe { f(num_entries, out_ptr(platforms), ret_ptr(num_platforms)) }
    }

    /// Every platform the library reports (none when it reports an error).
    pub fn platforms(&self) -> Vec<cl_platform_id> {
        let mut count = 0;
        if self.get_platform_ids(0, None, Some(&mut count)) != CL_SUCCESS {
            return Vec::new();
        }
        let mut platforms = vec![null_mut(); count as usize];
        let status = self.get_platform_ids(count, Some(&mut platforms), None);
        assert_eq!(
            status, CL_SUCCESS,
            "clGetPlatformIDs failed reading the list"
        );
        platforms
    }

    /// The one platform: panics unless exactly one is found.
    pub fn platform(&self) -> cl_platform_id {
        let platforms = self.platforms();
        assert_eq!(
            platforms.len(),
            1,
            "expected exactly one platform through {}",
            self.path
        );
        platforms[0]
    }

    /// `clGetDeviceIDs`, with NULL for each `None`.
    pub fn get_device_ids(
        &self,
        platform: cl_platform_id,
        device_type: cl_device_type,
        num_entries: cl_uint,
        devices: Option<&mut [cl_device_id]>,
        num_devices: Option<&mut cl_uint>,
    ) -> cl_int {
        fits(num_entries, &devices);
        let f = entry!(self.clGetDeviceIDs);
        // SAFETY: `devices` is NULL or holds at least `num_entries` entries (checked);
        // `num_devices` is NULL or a valid `cl_uint`.
        unsafe {
            f(
                platform,
                device_type,
                num_entries,
                out_ptr(devices),
                ret_ptr(num_devices),
            )
        }
    }

    /// The devices of `device_type` on `platform`: the count query, then the list.
    pub fn devices(
        &self,
        platform: cl_platform_id,
        device_type: cl_device_type,
    ) -> Result<Vec<cl_device_id>, cl_int> {
        let mut count = 0;
        let status = self.get_device_ids(platform, device_type, 0, None, Some(&mut count));
        if status != CL_SUCCESS {
            return Err(status);
        }
        let mut devices = vec![null_mut(); count as usize];
        let mut again = 0;
        let status = self.get_device_ids(
            platform,
            device_type,
            count,
            Some(&mut devices),
            Some(&mut again),
        );
        assert_eq!(status, CL_SUCCESS, "clGetDeviceIDs failed reading the list");
        assert_eq!(again, count, "clGetDeviceIDs reported two different counts");
        Ok(devices)
    }

    /// The first device of the one platform (panics when there is none).
    pub fn device(&self) -> cl_device_id {
        let devices = self
            .devices(self.platform(), CL_DEVICE_TYPE_ALL)
            .unwrap_or_else(|e| panic!("clGetDeviceIDs(CL_DEVICE_TYPE_ALL) failed: {e}"));
        devices[0]
    }

    /// `clGetPlatformInfo` as called, with NULL for each `None`.
    pub fn query_platform_info(
        &self,
        platform: cl_platform_id,
        param: cl_platform_info,
        size: usize,
        value: Option<&mut [u8]>,
        size_ret: Option<&mut usize>,
    ) -> cl_int {
        fits(size, &value);
        let f = entry!(self.clGetPlatformInfo);
        // SAFETY: `value` is NULL or holds at least `size` bytes (checked); `size_ret` is
        // NULL or a valid `usize`.
        unsafe {
            f(
                platform,
                param,
                size,
                out_ptr(value).cast(),
                ret_ptr(size_ret),
            )
        }
    }

    /// The bytes of a platform info answer, by [`info_bytes`].
    pub fn platform_info(
        &self,
        platform: cl_platform_id,
        param: cl_platform_info,
    ) -> Result<Vec<u8>, cl_int> {
        let f = entry!(self.clGetPlatformInfo);
        // SAFETY: `info_bytes` passes a buffer of the size it states and a valid size_ret.
        info_bytes(|size, value, ret| unsafe { f(platform, param, size, value, ret) })
    }

    /// A string platform info answer (panics on error).
    pub fn platform_string(&self, platform: cl_platform_id, param: cl_platform_info) -> String {
        let bytes = self
            .platform_info(platform, param)
            .unwrap_or_else(|e| panic!("clGetPlatformInfo({param:#x}) failed: {e}"));
        string(&bytes)
    }

    /// `clGetDeviceInfo` as called, with NULL for each `None`.
    pub fn query_device_info(
        &self,
        device: cl_device_id,
        param: cl_device_info,
        size: usize,
        value: Option<&mut [u8]>,
        size_ret: Option<&mut usize>,
    ) -> cl_int {
        fits(size, &value);
        let f = entry!(self.clGetDeviceInfo);
        // SAFETY: `value` is NULL or holds at least `size` bytes (checked); `size_ret` is
        // NULL or a valid `usize`.
        unsafe {
            f(
                device,
                param,
                size,
                out_ptr(value).cast(),
                ret_ptr(size_ret),
            )
        }
    }

    /// The bytes of a device info answer, by [`info_bytes`].
    pub fn device_info(
        &self,
        device: cl_device_id,
        param: cl_device_info,
    ) -> Result<Vec<u8>, cl_int> {
        let f = entry!(self.clGetDeviceInfo);
        // SAFETY: `info_bytes` passes a buffer of the size it states and a valid size_ret.
        info_bytes(|size, value, ret| unsafe { f(device, param, size, value, ret) })
    }

    /// The bytes of a device info answer; panics on error.
    fn device_ok(&self, device: cl_device_id, param: cl_device_info) -> Vec<u8> {
        self.device_info(device, param)
            .unwrap_or_else(|e| panic!("clGetDeviceInfo({param:#x}) failed: {e}"))
    }

    /// A scalar device info answer of exactly `size_of::<T>()` bytes.
    pub fn device_scalar<T: Plain>(&self, device: cl_device_id, param: cl_device_info) -> T {
        scalar(&self.device_ok(device, param))
    }

    /// A `cl_uint` device info answer.
    pub fn device_uint(&self, device: cl_device_id, param: cl_device_info) -> cl_uint {
        self.device_scalar(device, param)
    }

    /// A `cl_ulong` (or `cl_bitfield`) device info answer.
    pub fn device_ulong(&self, device: cl_device_id, param: cl_device_info) -> cl_ulong {
        self.device_scalar(device, param)
    }

    /// A `size_t` device info answer.
    pub fn device_size(&self, device: cl_device_id, param: cl_device_info) -> usize {
        self.device_scalar(device, param)
    }

    /// A `cl_bool` device info answer.
    pub fn device_bool(&self, device: cl_device_id, param: cl_device_info) -> bool {
        boolean(&self.device_ok(device, param))
    }

    /// A `char[]` device info answer.
    pub fn device_string(&self, device: cl_device_id, param: cl_device_info) -> String {
        string(&self.device_ok(device, param))
    }

    /// An array device info answer.
    pub fn device_array<T: Plain>(&self, device: cl_device_id, param: cl_device_info) -> Vec<T> {
        array(&self.device_ok(device, param))
    }

    /// `clRetainDevice`.
    pub fn retain_device(&self, device: cl_device_id) -> cl_int {
        let f = entry!(self.clRetainDevice);
        // SAFETY: the handle follows the crate's handle contract; nothing else is passed.
        unsafe { f(device) }
    }

    /// `clReleaseDevice`.
    pub fn release_device(&self, device: cl_device_id) -> cl_int {
        let f = entry!(self.clReleaseDevice);
        // SAFETY: the handle follows the crate's handle contract; nothing else is passed.
        unsafe { f(device) }
    }

    /// `clCreateSubDevices` as called, with NULL for each `None`. `properties` must end
    /// with its terminating 0.
    pub fn create_sub_devices_raw(
        &self,
        device: cl_device_id,
        properties: Option<&[cl_device_partition_property]>,
        num_devices: cl_uint,
        out_devices: Option<&mut [cl_device_id]>,
        num_devices_ret: Option<&mut cl_uint>,
    ) -> cl_int {
        if let Some(properties) = properties {
            terminated(properties);
        }
        fits(num_devices, &out_devices);
        let f = entry!(self.clCreateSubDevices);
        // SAFETY: `properties` is NULL or a terminated list (checked); `out_devices` is NULL
        // or holds at least `num_devices` entries (checked); `num_devices_ret` NULL or valid.
        unsafe {
            f(
                device,
                properties.map_or(null(), <[_]>::as_ptr),
                num_devices,
                out_ptr(out_devices),
                ret_ptr(num_devices_ret),
            )
        }
    }

    /// Partitions `device`: the count query (`out_devices` NULL), then the creation, which
    /// must create as many sub-devices as the count query reported.
    pub fn create_sub_devices(
        &self,
        device: cl_device_id,
        properties: &[cl_device_partition_property],
    ) -> Result<Vec<cl_device_id>, cl_int> {
        let mut count = 0;
        let status =
            self.create_sub_devices_raw(device, Some(properties), 0, None, Some(&mut count));
        if status != CL_SUCCESS {
            return Err(status);
        }
        let mut devices = vec![null_mut(); count as usize];
        let mut created = 0;
        let status = self.create_sub_devices_raw(
            device,
            Some(properties),
            count,
            Some(&mut devices),
            Some(&mut created),
        );
        assert_eq!(
            status, CL_SUCCESS,
            "the count query succeeded but the partition failed"
        );
        assert_eq!(
            created, count,
            "the partition created another number of devices"
        );
        Ok(devices)
    }

    /// `clCreateContext` as called, with NULL for each `None`; returns the context and the
    /// code written to `errcode_ret`. `properties` must end with its terminating 0.
    pub fn create_context_raw(
        &self,
        properties: Option<&[cl_context_properties]>,
        num_devices: cl_uint,
        devices: Option<&[cl_device_id]>,
        pfn_notify: ContextNotify,
        user_data: *mut c_void,
    ) -> (cl_context, cl_int) {
        if let Some(properties) = properties {
            terminated(properties);
        }
        if let Some(devices) = devices {
            assert!(
                num_devices as usize <= devices.len(),
                "too few devices given"
            );
        }
        let f = entry!(self.clCreateContext);
        let mut status = CL_SUCCESS;
        // SAFETY: `properties` is NULL or terminated (checked); `devices` is NULL or holds at
        // least `num_devices` handles (checked); `pfn_notify` is NULL or a function with the
        // prototype the spec gives; `user_data` is only handed back to `pfn_notify`.
        let context = unsafe {
            f(
                properties.map_or(null(), <[_]>::as_ptr),
                num_devices,
                devices.map_or(null(), <[_]>::as_ptr),
                pfn_notify,
                user_data,
                &mut status,
            )
        };
        (context, status)
    }

    /// A context over `devices`, with no callback.
    pub fn create_context(
        &self,
        properties: Option<&[cl_context_properties]>,
        devices: &[cl_device_id],
    ) -> Result<cl_context, cl_int> {
        let count = cl_uint::try_from(devices.len()).expect("device count");
        created(self.create_context_raw(properties, count, Some(devices), None, null_mut()))
    }

    /// `clCreateContextFromType`, with no callback; returns the context and the code written
    /// to `errcode_ret`. `properties` must end with its terminating 0.
    pub fn create_context_from_type_raw(
        &self,
        properties: Option<&[cl_context_properties]>,
        device_type: cl_device_type,
        pfn_notify: ContextNotify,
        user_data: *mut c_void,
    ) -> (cl_context, cl_int) {
        if let Some(properties) = properties {
            terminated(properties);
        }
        let f = entry!(self.clCreateContextFromType);
        let mut status = CL_SUCCESS;
        // SAFETY: `properties` is NULL or terminated (checked); `pfn_notify` is NULL or a
        // function with the spec's prototype; `user_data` is only handed back to it.
        let context = unsafe {
            f(
                properties.map_or(null(), <[_]>::as_ptr),
                device_type,
                pfn_notify,
                user_data,
                &mut status,
            )
        };
        (context, status)
    }

    /// A context over the devices of `device_type`, with no callback.
    pub fn create_context_from_type(
        &self,
        properties: Option<&[cl_context_properties]>,
        device_type: cl_device_type,
    ) -> Result<cl_context, cl_int> {
        created(self.create_context_from_type_raw(properties, device_type, None, null_mut()))
    }

    /// `clRetainContext`.
    pub fn retain_context(&self, context: cl_context) -> cl_int {
        let f = entry!(self.clRetainContext);
        // SAFETY: the handle follows the crate's handle contract; nothing else is passed.
        unsafe { f(context) }
    }

    /// `clReleaseContext`.
    pub fn release_context(&self, context: cl_context) -> cl_int {
        let f = entry!(self.clReleaseContext);
        // SAFETY: the handle follows the crate's handle contract; nothing else is passed.
        unsafe { f(context) }
    }

    /// `clGetContextInfo` as called, with NULL for each `None`.
    pub fn query_context_info(
        &self,
        context: cl_context,
        param: cl_context_info,
        size: usize,
        value: Option<&mut [u8]>,
        size_ret: Option<&mut usize>,
    ) -> cl_int {
        fits(size, &value);
        let f = entry!(self.clGetContextInfo);
        // SAFETY: `value` is NULL or holds at least `size` bytes (checked); `size_ret` is
        // NULL or a valid `usize`.
        unsafe {
            f(
                context,
                param,
                size,
                out_ptr(value).cast(),
                ret_ptr(size_ret),
            )
        }
    }

    /// The bytes of a context info answer, by [`info_bytes`].
    pub fn context_info(
        &self,
        context: cl_context,
        param: cl_context_info,
    ) -> Result<Vec<u8>, cl_int> {
        let f = entry!(self.clGetContextInfo);
        // SAFETY: `info_bytes` passes a buffer of the size it states and a valid size_ret.
        info_bytes(|size, value, ret| unsafe { f(context, param, size, value, ret) })
    }

    /// A `cl_uint` context info answer (panics on error).
    pub fn context_uint(&self, context: cl_context, param: cl_context_info) -> cl_uint {
        scalar(&self.context_ok(context, param))
    }

    /// An array context info answer (panics on error).
    pub fn context_array<T: Plain>(&self, context: cl_context, param: cl_context_info) -> Vec<T> {
        array(&self.context_ok(context, param))
    }

    /// The bytes of a context info answer; panics on error.
    fn context_ok(&self, context: cl_context, param: cl_context_info) -> Vec<u8> {
        self.context_info(context, param)
            .unwrap_or_else(|e| panic!("clGetContextInfo({param:#x}) failed: {e}"))
    }

    /// `clGetExtensionFunctionAddressForPlatform` for a Rust string.
    pub fn extension_address_for_platform(
        &self,
        platform: cl_platform_id,
        name: &CStr,
    ) -> *mut c_void {
        let f = entry!(self.clGetExtensionFunctionAddressForPlatform);
        // SAFETY: `name` is NUL-terminated.
        unsafe { f(platform, name.as_ptr()) }
    }

    /// `clGetExtensionFunctionAddress` for a Rust string.
    pub fn extension_address(&self, name: &CStr) -> *mut c_void {
        let f = entry!(self.clGetExtensionFunctionAddress);
        // SAFETY: `name` is NUL-terminated.
        unsafe { f(name.as_ptr()) }
    }
}

/// The result of a create call: the object, or the code from `errcode_ret`, checking the two
/// agree (an object exactly when the code is `CL_SUCCESS`).
fn created<T>((object, status): (*mut T, cl_int)) -> Result<*mut T, cl_int> {
    if status == CL_SUCCESS {
        assert!(!object.is_null(), "CL_SUCCESS with a NULL object");
        Ok(object)
    } else {
        assert!(object.is_null(), "error {status} with a non-NULL object");
        Err(status)
    }
}

/// An object clift never created: 64 zeroed bytes except the first word, which is a copy of
/// a real handle's dispatch table pointer.
///
/// The ICD loader forwards a call by reading a handle's first word as its dispatch table, so
/// a handle whose first word is not a dispatch table crashes in the loader before a driver
/// sees it. With clift's table in the first word, the loader forwards to clift, which must
/// then recognise that the object is not one of its own.
#[repr(C)]
pub struct ForeignObject {
    words: [usize; 8],
}

impl ForeignObject {
    /// A foreign object carrying the dispatch table of the live handle `handle`.
    ///
    /// # Safety
    /// `handle` must be a live ICD object (its first word is its dispatch table pointer).
    pub unsafe fn with_dispatch_of(handle: *mut c_void) -> ForeignObject {
        // SAFETY: the caller's contract: an ICD object begins with its dispatch pointer.
        let dispatch = unsafe { handle.cast::<usize>().read() };
        let mut words = [0; 8];
        words[0] = dispatch;
        ForeignObject { words }
    }

    /// The object's address, as a handle of any type.
    pub fn handle(&mut self) -> *mut c_void {
        self.words.as_mut_ptr().cast()
    }
}

/// Where libclift.so is: `$CLIFT_LIBRARY`, else next to the test executable's directory
/// (`target/<profile>/deps/<test>` → `target/<profile>/libclift.so`).
fn clift_library() -> PathBuf {
    if let Some(path) = std::env::var_os("CLIFT_LIBRARY") {
        let path = PathBuf::from(path);
        assert!(
            path.is_file(),
            "CLIFT_LIBRARY={} is not a file",
            path.display()
        );
        return absolute(&path);
    }
    let exe = std::env::current_exe().expect("the test executable's path");
    let candidates: Vec<PathBuf> = exe
        .ancestors()
        .skip(1)
        .take(2)
        .map(|dir| dir.join("libclift.so"))
        .collect();
    candidates
        .iter()
        .find(|path| path.is_file())
        .map(|path| absolute(path))
        .unwrap_or_else(|| {
            panic!(
                "libclift.so not found (looked at {candidates:?}): run `cargo build -p \
                 clift-icd` first (with the same profile), or set CLIFT_LIBRARY"
            )
        })
}

/// An absolute, symlink-free path, as an `.icd` file should name its library.
fn absolute(path: &Path) -> PathBuf {
    path.canonicalize()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Writes a vendors directory holding only `clift.icd`, naming `library`.
fn vendors_dir(library: &Path) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("clift-conformance-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let icd = dir.join("clift.icd");
    std::fs::write(&icd, format!("{}\n", library.display()))
        .unwrap_or_else(|e| panic!("{}: {e}", icd.display()));
    dir
}

/// The system's ICD loader, set up to see clift and nothing else; loaded once per process.
///
/// ocl-icd reads `OCL_ICD_VENDORS` when the first API call initialises it, so the variable
/// is set before the loader is loaded and the loader is initialised right away; after that
/// the vendors directory is no longer read and is removed.
pub fn clift() -> &'static Api {
    static API: OnceLock<Api> = OnceLock::new();
    API.get_or_init(|| {
        let library = clift_library();
        let vendors = vendors_dir(&library);
        // SAFETY: setting the environment is unsound while another thread reads it. This runs
        // once, inside the `OnceLock` initialiser, before any OpenCL call of this process (all
        // of which go through this `Api`); the test harness reads its own variables before it
        // starts the tests, and the tests of this crate do not read the environment.
        // `OPENCL_LAYERS` is removed so that no layer sits between the loader and clift.
        unsafe {
            std::env::set_var("OCL_ICD_VENDORS", &vendors);
            std::env::remove_var("OPENCL_LAYERS");
        }
        let api = Api::load("libOpenCL.so.1").unwrap_or_else(|e| panic!("{e}"));
        let mut count = 0;
        let status = api.get_platform_ids(0, None, Some(&mut count));
        let _ = std::fs::remove_dir_all(&vendors);
        assert!(
            status == CL_SUCCESS && count > 0,
            "the ICD loader found no platform (status {status}) with OCL_ICD_VENDORS naming \
             only {}: does the library export clIcdGetPlatformIDsKHR and report cl_khr_icd?",
            library.display()
        );
        api
    })
}

// Queues, memory objects, events and commands.
//
// The wrappers below follow the conventions above: handles are opaque values, every other
// pointer is built from Rust references and slices. Calls whose pointers the implementation
// keeps past the call (a `CL_MEM_USE_HOST_PTR` host pointer, the destination of a
// non-blocking read, a callback's `user_data`) are `unsafe fn`s that state the contract.

/// The wait list of an enqueue call as the C API takes it: a count and a pointer, which may
/// disagree (the tests of `CL_INVALID_EVENT_WAIT_LIST` pass such lists).
#[derive(Clone, Copy, Debug)]
pub struct Waits<'a> {
    count: cl_uint,
    list: Option<&'a [cl_event]>,
}

impl<'a> Waits<'a> {
    /// No wait list: NULL and 0.
    pub const NONE: Waits<'static> = Waits {
        count: 0,
        list: None,
    };

    /// Every event of `list`.
    pub fn on(list: &'a [cl_event]) -> Waits<'a> {
        Waits {
            count: cl_uint::try_from(list.len()).expect("wait list length"),
            list: Some(list),
        }
    }

    /// `count` and `list` as given; a count larger than a given list panics (the call would
    /// read past it).
    pub fn raw(count: cl_uint, list: Option<&'a [cl_event]>) -> Waits<'a> {
        if let Some(list) = list {
            assert!(
                count as usize <= list.len(),
                "the count exceeds the wait list"
            );
        }
        Waits { count, list }
    }

    fn count(&self) -> cl_uint {
        self.count
    }

    fn ptr(&self) -> *const cl_event {
        self.list.map_or(null(), <[cl_event]>::as_ptr)
    }
}

/// The pointer of an optional `size_t[3]` argument: NULL for `None`.
fn triple_ptr(value: Option<&[usize; 3]>) -> *const usize {
    value.map_or(null(), |v| v.as_ptr())
}

/// `pfn_notify` of `clSetMemObjectDestructorCallback`.
pub type MemDestructorNotify = Option<unsafe extern "C" fn(cl_mem, *mut c_void)>;

/// `pfn_notify` of `clSetEventCallback`.
pub type EventNotify = Option<unsafe extern "C" fn(cl_event, cl_int, *mut c_void)>;

/// `user_func` of `clEnqueueNativeKernel`.
pub type NativeKernel = Option<unsafe extern "C" fn(*mut c_void)>;

#[expect(
    clippy::not_unsafe_ptr_arg_deref,
    reason = "handles are opaque values the implementation validates (see the crate docs)"
)]
impl Api {
    /// `clCreateCommandQueue`; the queue or the code written to `errcode_ret`.
    pub fn create_command_queue(
        &self,
        context: cl_context,
        device: cl_device_id,
        properties: cl_command_queue_properties,
    ) -> Result<cl_command_queue, cl_int> {
        let f = entry!(self.clCreateCommandQueue);
        let mut status = CL_SUCCESS;
        // SAFETY: handles follow the crate's contract; `status` is a valid errcode_ret.
        let queue = unsafe { f(context, device, properties, &mut status) };
        created((queue, status))
    }

    /// `clRetainCommandQueue`.
    pub fn retain_command_queue(&self, queue: cl_command_queue) -> cl_int {
        let f = entry!(self.clRetainCommandQueue);
        // SAFETY: the handle follows the crate's handle contract; nothing else is passed.
        unsafe { f(queue) }
    }

    /// `clReleaseCommandQueue`.
    pub fn release_command_queue(&self, queue: cl_command_queue) -> cl_int {
        let f = entry!(self.clReleaseCommandQueue);
        // SAFETY: the handle follows the crate's handle contract; nothing else is passed.
        unsafe { f(queue) }
    }

    /// `clGetCommandQueueInfo` as called, with NULL for each `None`.
    pub fn query_command_queue_info(
        &self,
        queue: cl_command_queue,
        param: cl_command_queue_info,
        size: usize,
        value: Option<&mut [u8]>,
        size_ret: Option<&mut usize>,
    ) -> cl_int {
        fits(size, &value);
        let f = entry!(self.clGetCommandQueueInfo);
        // SAFETY: `value` is NULL or holds at least `size` bytes (checked); `size_ret` is
        // NULL or a valid `usize`.
        unsafe { f(queue, param, size, out_ptr(value).cast(), ret_ptr(size_ret)) }
    }

    /// The bytes of a command-queue info answer, by [`info_bytes`].
    pub fn command_queue_info(
        &self,
        queue: cl_command_queue,
        param: cl_command_queue_info,
    ) -> Result<Vec<u8>, cl_int> {
        let f = entry!(self.clGetCommandQueueInfo);
        // SAFETY: `info_bytes` passes a buffer of the size it states and a valid size_ret.
        info_bytes(|size, value, ret| unsafe { f(queue, param, size, value, ret) })
    }

    /// A scalar command-queue info answer (panics on error).
    pub fn command_queue_scalar<T: Plain>(
        &self,
        queue: cl_command_queue,
        param: cl_command_queue_info,
    ) -> T {
        scalar(
            &self
                .command_queue_info(queue, param)
                .unwrap_or_else(|e| panic!("clGetCommandQueueInfo({param:#x}) failed: {e}")),
        )
    }

    /// `clSetCommandQueueProperty` (OpenCL 1.0), with NULL for `None`.
    pub fn set_command_queue_property(
        &self,
        queue: cl_command_queue,
        properties: cl_command_queue_properties,
        enable: bool,
        old_properties: Option<&mut cl_command_queue_properties>,
    ) -> cl_int {
        let f = entry!(self.clSetCommandQueueProperty);
        let enable = if enable { CL_TRUE } else { CL_FALSE };
        // SAFETY: `old_properties` is NULL or a valid out-parameter.
        unsafe { f(queue, properties, enable, ret_ptr(old_properties)) }
    }

    /// `clFlush`.
    pub fn flush(&self, queue: cl_command_queue) -> cl_int {
        let f = entry!(self.clFlush);
        // SAFETY: the handle follows the crate's handle contract; nothing else is passed.
        unsafe { f(queue) }
    }

    /// `clFinish`.
    pub fn finish(&self, queue: cl_command_queue) -> cl_int {
        let f = entry!(self.clFinish);
        // SAFETY: the handle follows the crate's handle contract; nothing else is passed.
        unsafe { f(queue) }
    }

    /// `clCreateBuffer` as called; the buffer and the code written to `errcode_ret`.
    ///
    /// # Safety
    /// `host_ptr` must be NULL or valid for `size` bytes of reads; with
    /// `CL_MEM_USE_HOST_PTR` it must stay valid for reads and writes until the buffer's
    /// destructor callbacks have run (the spec's contract for that flag).
    pub unsafe fn create_buffer_raw(
        &self,
        context: cl_context,
        flags: cl_mem_flags,
        size: usize,
        host_ptr: *mut c_void,
    ) -> (cl_mem, cl_int) {
        let f = entry!(self.clCreateBuffer);
        let mut status = CL_SUCCESS;
        // SAFETY: the caller's contract for `host_ptr`; `status` is a valid errcode_ret.
        let buffer = unsafe { f(context, flags, size, host_ptr, &mut status) };
        (buffer, status)
    }

    /// A buffer without a host pointer.
    pub fn create_buffer(
        &self,
        context: cl_context,
        flags: cl_mem_flags,
        size: usize,
    ) -> Result<cl_mem, cl_int> {
        // SAFETY: no host pointer.
        created(unsafe { self.create_buffer_raw(context, flags, size, null_mut()) })
    }

    /// A buffer initialised from `data` with `CL_MEM_COPY_HOST_PTR` (added to `flags`, which
    /// must not hold `CL_MEM_USE_HOST_PTR`): the data is copied during the call.
    pub fn create_buffer_from(
        &self,
        context: cl_context,
        flags: cl_mem_flags,
        data: &[u8],
    ) -> Result<cl_mem, cl_int> {
        assert_eq!(
            flags & CL_MEM_USE_HOST_PTR,
            0,
            "USE_HOST_PTR keeps the pointer"
        );
        // SAFETY: `data` holds `data.len()` bytes, read during the call only (COPY_HOST_PTR).
        created(unsafe {
            self.create_buffer_raw(
                context,
                flags | CL_MEM_COPY_HOST_PTR,
                data.len(),
                data.as_ptr().cast_mut().cast(),
            )
        })
    }

    /// `clCreateSubBuffer` as called, with NULL for `None`; the sub-buffer and the code
    /// written to `errcode_ret`.
    pub fn create_sub_buffer_raw(
        &self,
        buffer: cl_mem,
        flags: cl_mem_flags,
        create_type: cl_buffer_create_type,
        info: Option<&cl_buffer_region>,
    ) -> (cl_mem, cl_int) {
        let f = entry!(self.clCreateSubBuffer);
        let mut status = CL_SUCCESS;
        let info: *const c_void = info.map_or(null(), |r| (r as *const cl_buffer_region).cast());
        // SAFETY: `info` is NULL or a `cl_buffer_region` read during the call.
        let sub = unsafe { f(buffer, flags, create_type, info, &mut status) };
        (sub, status)
    }

    /// A sub-buffer over `origin..origin + size` of `buffer`.
    pub fn create_sub_buffer(
        &self,
        buffer: cl_mem,
        flags: cl_mem_flags,
        origin: usize,
        size: usize,
    ) -> Result<cl_mem, cl_int> {
        let region = cl_buffer_region { origin, size };
        created(self.create_sub_buffer_raw(
            buffer,
            flags,
            CL_BUFFER_CREATE_TYPE_REGION,
            Some(&region),
        ))
    }

    /// `clRetainMemObject`.
    pub fn retain_mem_object(&self, mem: cl_mem) -> cl_int {
        let f = entry!(self.clRetainMemObject);
        // SAFETY: the handle follows the crate's handle contract; nothing else is passed.
        unsafe { f(mem) }
    }

    /// `clReleaseMemObject`.
    pub fn release_mem_object(&self, mem: cl_mem) -> cl_int {
        let f = entry!(self.clReleaseMemObject);
        // SAFETY: the handle follows the crate's handle contract; nothing else is passed.
        unsafe { f(mem) }
    }

    /// `clGetMemObjectInfo` as called, with NULL for each `None`.
    pub fn query_mem_object_info(
        &self,
        mem: cl_mem,
        param: cl_mem_info,
        size: usize,
        value: Option<&mut [u8]>,
        size_ret: Option<&mut usize>,
    ) -> cl_int {
        fits(size, &value);
        let f = entry!(self.clGetMemObjectInfo);
        // SAFETY: `value` is NULL or holds at least `size` bytes (checked); `size_ret` is
        // NULL or a valid `usize`.
        unsafe { f(mem, param, size, out_ptr(value).cast(), ret_ptr(size_ret)) }
    }

    /// The bytes of a memory-object info answer, by [`info_bytes`].
    pub fn mem_object_info(&self, mem: cl_mem, param: cl_mem_info) -> Result<Vec<u8>, cl_int> {
        let f = entry!(self.clGetMemObjectInfo);
        // SAFETY: `info_bytes` passes a buffer of the size it states and a valid size_ret.
        info_bytes(|size, value, ret| unsafe { f(mem, param, size, value, ret) })
    }

    /// A scalar memory-object info answer (panics on error).
    pub fn mem_object_scalar<T: Plain>(&self, mem: cl_mem, param: cl_mem_info) -> T {
        scalar(
            &self
                .mem_object_info(mem, param)
                .unwrap_or_else(|e| panic!("clGetMemObjectInfo({param:#x}) failed: {e}")),
        )
    }

    /// `clSetMemObjectDestructorCallback`.
    ///
    /// # Safety
    /// `user_data` must stay valid for `pfn_notify` until it has been called (it may be
    /// called on any thread).
    pub unsafe fn set_mem_object_destructor_callback(
        &self,
        mem: cl_mem,
        pfn_notify: MemDestructorNotify,
        user_data: *mut c_void,
    ) -> cl_int {
        let f = entry!(self.clSetMemObjectDestructorCallback);
        // SAFETY: the caller's contract for `user_data`; the callback has the spec's
        // prototype.
        unsafe { f(mem, pfn_notify, user_data) }
    }

    /// `clCreateUserEvent`.
    pub fn create_user_event(&self, context: cl_context) -> Result<cl_event, cl_int> {
        let f = entry!(self.clCreateUserEvent);
        let mut status = CL_SUCCESS;
        // SAFETY: the handle follows the crate's contract; `status` is a valid errcode_ret.
        let event = unsafe { f(context, &mut status) };
        created((event, status))
    }

    /// `clSetUserEventStatus`.
    pub fn set_user_event_status(&self, event: cl_event, status: cl_int) -> cl_int {
        let f = entry!(self.clSetUserEventStatus);
        // SAFETY: the handle follows the crate's handle contract; nothing else is passed.
        unsafe { f(event, status) }
    }

    /// `clRetainEvent`.
    pub fn retain_event(&self, event: cl_event) -> cl_int {
        let f = entry!(self.clRetainEvent);
        // SAFETY: the handle follows the crate's handle contract; nothing else is passed.
        unsafe { f(event) }
    }

    /// `clReleaseEvent`.
    pub fn release_event(&self, event: cl_event) -> cl_int {
        let f = entry!(self.clReleaseEvent);
        // SAFETY: the handle follows the crate's handle contract; nothing else is passed.
        unsafe { f(event) }
    }

    /// `clGetEventInfo` as called, with NULL for each `None`.
    pub fn query_event_info(
        &self,
        event: cl_event,
        param: cl_event_info,
        size: usize,
        value: Option<&mut [u8]>,
        size_ret: Option<&mut usize>,
    ) -> cl_int {
        fits(size, &value);
        let f = entry!(self.clGetEventInfo);
        // SAFETY: `value` is NULL or holds at least `size` bytes (checked); `size_ret` is
        // NULL or a valid `usize`.
        unsafe { f(event, param, size, out_ptr(value).cast(), ret_ptr(size_ret)) }
    }

    /// The bytes of an event info answer, by [`info_bytes`].
    pub fn event_info(&self, event: cl_event, param: cl_event_info) -> Result<Vec<u8>, cl_int> {
        let f = entry!(self.clGetEventInfo);
        // SAFETY: `info_bytes` passes a buffer of the size it states and a valid size_ret.
        info_bytes(|size, value, ret| unsafe { f(event, param, size, value, ret) })
    }

    /// A scalar event info answer (panics on error).
    pub fn event_scalar<T: Plain>(&self, event: cl_event, param: cl_event_info) -> T {
        scalar(
            &self
                .event_info(event, param)
                .unwrap_or_else(|e| panic!("clGetEventInfo({param:#x}) failed: {e}")),
        )
    }

    /// `CL_EVENT_COMMAND_EXECUTION_STATUS` (panics on error).
    pub fn event_status(&self, event: cl_event) -> cl_int {
        self.event_scalar(event, CL_EVENT_COMMAND_EXECUTION_STATUS)
    }

    /// The bytes of a profiling info answer, by [`info_bytes`].
    pub fn event_profiling_info(
        &self,
        event: cl_event,
        param: cl_profiling_info,
    ) -> Result<Vec<u8>, cl_int> {
        let f = entry!(self.clGetEventProfilingInfo);
        // SAFETY: `info_bytes` passes a buffer of the size it states and a valid size_ret.
        info_bytes(|size, value, ret| unsafe { f(event, param, size, value, ret) })
    }

    /// `clWaitForEvents` as called: `count` with the list (NULL for `None`).
    pub fn wait_for_events_raw(&self, count: cl_uint, list: Option<&[cl_event]>) -> cl_int {
        if let Some(list) = list {
            assert!(count as usize <= list.len(), "the count exceeds the list");
        }
        let f = entry!(self.clWaitForEvents);
        // SAFETY: the list is NULL or holds at least `count` handles (checked).
        unsafe { f(count, list.map_or(null(), <[cl_event]>::as_ptr)) }
    }

    /// `clWaitForEvents` on every event of `events`.
    pub fn wait_for_events(&self, events: &[cl_event]) -> cl_int {
        let count = cl_uint::try_from(events.len()).expect("event count");
        self.wait_for_events_raw(count, Some(events))
    }

    /// `clSetEventCallback`.
    ///
    /// # Safety
    /// `user_data` must stay valid for `pfn_notify` until it has been called (it may be
    /// called on any thread, possibly before this call returns).
    pub unsafe fn set_event_callback(
        &self,
        event: cl_event,
        callback_type: cl_int,
        pfn_notify: EventNotify,
        user_data: *mut c_void,
    ) -> cl_int {
        let f = entry!(self.clSetEventCallback);
        // SAFETY: the caller's contract for `user_data`; the callback has the spec's
        // prototype.
        unsafe { f(event, callback_type, pfn_notify, user_data) }
    }

    /// `clEnqueueReadBuffer` as called.
    ///
    /// # Safety
    /// `ptr` must be NULL or valid for `size` bytes of writes until the command has
    /// completed (for a blocking read: until the call returns).
    #[expect(clippy::too_many_arguments, reason = "the C signature")]
    pub unsafe fn enqueue_read_buffer_raw(
        &self,
        queue: cl_command_queue,
        buffer: cl_mem,
        blocking: bool,
        offset: usize,
        size: usize,
        ptr: *mut c_void,
        waits: Waits<'_>,
        event: Option<&mut cl_event>,
    ) -> cl_int {
        let f = entry!(self.clEnqueueReadBuffer);
        let blocking = if blocking { CL_TRUE } else { CL_FALSE };
        // SAFETY: the caller's contract for `ptr`; the wait list holds `count` handles.
        unsafe {
            f(
                queue,
                buffer,
                blocking,
                offset,
                size,
                ptr,
                waits.count(),
                waits.ptr(),
                ret_ptr(event),
            )
        }
    }

    /// A blocking `clEnqueueReadBuffer` of `out.len()` bytes at `offset` into `out`.
    pub fn read_buffer(
        &self,
        queue: cl_command_queue,
        buffer: cl_mem,
        offset: usize,
        out: &mut [u8],
        waits: Waits<'_>,
        event: Option<&mut cl_event>,
    ) -> cl_int {
        // SAFETY: blocking: `out` is written before the call returns.
        unsafe {
            self.enqueue_read_buffer_raw(
                queue,
                buffer,
                true,
                offset,
                out.len(),
                out.as_mut_ptr().cast(),
                waits,
                event,
            )
        }
    }

    /// `clEnqueueWriteBuffer` as called.
    ///
    /// # Safety
    /// `ptr` must be NULL or valid for `size` bytes of reads until the command has completed
    /// (for a blocking write: until the call returns).
    #[expect(clippy::too_many_arguments, reason = "the C signature")]
    pub unsafe fn enqueue_write_buffer_raw(
        &self,
        queue: cl_command_queue,
        buffer: cl_mem,
        blocking: bool,
        offset: usize,
        size: usize,
        ptr: *const c_void,
        waits: Waits<'_>,
        event: Option<&mut cl_event>,
    ) -> cl_int {
        let f = entry!(self.clEnqueueWriteBuffer);
        let blocking = if blocking { CL_TRUE } else { CL_FALSE };
        // SAFETY: the caller's contract for `ptr`; the wait list holds `count` handles.
        unsafe {
            f(
                queue,
                buffer,
                blocking,
                offset,
                size,
                ptr,
                waits.count(),
                waits.ptr(),
                ret_ptr(event),
            )
        }
    }

    /// A blocking `clEnqueueWriteBuffer` of `data` at `offset`.
    pub fn write_buffer(
        &self,
        queue: cl_command_queue,
        buffer: cl_mem,
        offset: usize,
        data: &[u8],
        waits: Waits<'_>,
        event: Option<&mut cl_event>,
    ) -> cl_int {
        // SAFETY: blocking: `data` is read before the call returns.
        unsafe {
            self.enqueue_write_buffer_raw(
                queue,
                buffer,
                true,
                offset,
                data.len(),
                data.as_ptr().cast(),
                waits,
                event,
            )
        }
    }

    /// `clEnqueueCopyBuffer`.
    #[expect(clippy::too_many_arguments, reason = "the C signature")]
    pub fn enqueue_copy_buffer(
        &self,
        queue: cl_command_queue,
        src: cl_mem,
        dst: cl_mem,
        src_offset: usize,
        dst_offset: usize,
        size: usize,
        waits: Waits<'_>,
        event: Option<&mut cl_event>,
    ) -> cl_int {
        let f = entry!(self.clEnqueueCopyBuffer);
        // SAFETY: handles follow the crate's contract; the wait list holds `count` handles;
        // `event` is NULL or a valid out-parameter.
        unsafe {
            f(
                queue,
                src,
                dst,
                src_offset,
                dst_offset,
                size,
                waits.count(),
                waits.ptr(),
                ret_ptr(event),
            )
        }
    }

    /// `clEnqueueReadBufferRect` as called, with NULL for each `None` array.
    ///
    /// # Safety
    /// `ptr` must be NULL or valid for writes of the host rectangle the arguments describe
    /// until the command has completed (for a blocking read: until the call returns).
    #[expect(clippy::too_many_arguments, reason = "the C signature")]
    pub unsafe fn enqueue_read_buffer_rect_raw(
        &self,
        queue: cl_command_queue,
        buffer: cl_mem,
        blocking: bool,
        buffer_origin: Option<&[usize; 3]>,
        host_origin: Option<&[usize; 3]>,
        region: Option<&[usize; 3]>,
        buffer_pitches: [usize; 2],
        host_pitches: [usize; 2],
        ptr: *mut c_void,
        waits: Waits<'_>,
        event: Option<&mut cl_event>,
    ) -> cl_int {
        let f = entry!(self.clEnqueueReadBufferRect);
        let blocking = if blocking { CL_TRUE } else { CL_FALSE };
        // SAFETY: the caller's contract for `ptr`; the arrays are NULL or three `size_t`s;
        // the wait list holds `count` handles.
        unsafe {
            f(
                queue,
                buffer,
                blocking,
                triple_ptr(buffer_origin),
                triple_ptr(host_origin),
                triple_ptr(region),
                buffer_pitches[0],
                buffer_pitches[1],
                host_pitches[0],
                host_pitches[1],
                ptr,
                waits.count(),
                waits.ptr(),
                ret_ptr(event),
            )
        }
    }

    /// `clEnqueueWriteBufferRect` as called, with NULL for each `None` array.
    ///
    /// # Safety
    /// `ptr` must be NULL or valid for reads of the host rectangle the arguments describe
    /// until the command has completed (for a blocking write: until the call returns).
    #[expect(clippy::too_many_arguments, reason = "the C signature")]
    pub unsafe fn enqueue_write_buffer_rect_raw(
        &self,
        queue: cl_command_queue,
        buffer: cl_mem,
        blocking: bool,
        buffer_origin: Option<&[usize; 3]>,
        host_origin: Option<&[usize; 3]>,
        region: Option<&[usize; 3]>,
        buffer_pitches: [usize; 2],
        host_pitches: [usize; 2],
        ptr: *const c_void,
        waits: Waits<'_>,
        event: Option<&mut cl_event>,
    ) -> cl_int {
        let f = entry!(self.clEnqueueWriteBufferRect);
        let blocking = if blocking { CL_TRUE } else { CL_FALSE };
        // SAFETY: the caller's contract for `ptr`; the arrays are NULL or three `size_t`s;
        // the wait list holds `count` handles.
        unsafe {
            f(
                queue,
                buffer,
                blocking,
                triple_ptr(buffer_origin),
                triple_ptr(host_origin),
                triple_ptr(region),
                buffer_pitches[0],
                buffer_pitches[1],
                host_pitches[0],
                host_pitches[1],
                ptr,
                waits.count(),
                waits.ptr(),
                ret_ptr(event),
            )
        }
    }

    /// `clEnqueueCopyBufferRect`, with NULL for each `None` array. Pitches are
    /// `[row, slice]`.
    #[expect(clippy::too_many_arguments, reason = "the C signature")]
    pub fn enqueue_copy_buffer_rect(
        &self,
        queue: cl_command_queue,
        src: cl_mem,
        dst: cl_mem,
        src_origin: Option<&[usize; 3]>,
        dst_origin: Option<&[usize; 3]>,
        region: Option<&[usize; 3]>,
        src_pitches: [usize; 2],
        dst_pitches: [usize; 2],
        waits: Waits<'_>,
        event: Option<&mut cl_event>,
    ) -> cl_int {
        let f = entry!(self.clEnqueueCopyBufferRect);
        // SAFETY: the arrays are NULL or three `size_t`s; the wait list holds `count`
        // handles; `event` is NULL or a valid out-parameter.
        unsafe {
            f(
                queue,
                src,
                dst,
                triple_ptr(src_origin),
                triple_ptr(dst_origin),
                triple_ptr(region),
                src_pitches[0],
                src_pitches[1],
                dst_pitches[0],
                dst_pitches[1],
                waits.count(),
                waits.ptr(),
                ret_ptr(event),
            )
        }
    }

    /// `clEnqueueFillBuffer` with `pattern_size` given apart from the pattern (NULL for
    /// `None`), so that sizes the pattern does not have can be passed; a size larger than
    /// a given pattern panics.
    #[expect(clippy::too_many_arguments, reason = "the C signature")]
    pub fn enqueue_fill_buffer(
        &self,
        queue: cl_command_queue,
        buffer: cl_mem,
        pattern: Option<&[u8]>,
        pattern_size: usize,
        offset: usize,
        size: usize,
        waits: Waits<'_>,
        event: Option<&mut cl_event>,
    ) -> cl_int {
        if let Some(pattern) = pattern {
            assert!(
                pattern_size <= pattern.len(),
                "pattern_size exceeds pattern"
            );
        }
        let f = entry!(self.clEnqueueFillBuffer);
        // SAFETY: `pattern` is NULL or holds `pattern_size` bytes, which the spec lets the
        // application reuse once the call returns; the wait list holds `count` handles.
        unsafe {
            f(
                queue,
                buffer,
                pattern.map_or(null(), |p| p.as_ptr().cast()),
                pattern_size,
                offset,
                size,
                waits.count(),
                waits.ptr(),
                ret_ptr(event),
            )
        }
    }

    /// `clEnqueueMapBuffer`; the mapped pointer and the code written to `errcode_ret`.
    #[expect(clippy::too_many_arguments, reason = "the C signature")]
    pub fn enqueue_map_buffer(
        &self,
        queue: cl_command_queue,
        buffer: cl_mem,
        blocking: bool,
        map_flags: cl_map_flags,
        offset: usize,
        size: usize,
        waits: Waits<'_>,
        event: Option<&mut cl_event>,
    ) -> (*mut c_void, cl_int) {
        let f = entry!(self.clEnqueueMapBuffer);
        let blocking = if blocking { CL_TRUE } else { CL_FALSE };
        let mut status = CL_SUCCESS;
        // SAFETY: the wait list holds `count` handles; `event` is NULL or a valid
        // out-parameter; `status` is a valid errcode_ret.
        let ptr = unsafe {
            f(
                queue,
                buffer,
                blocking,
                map_flags,
                offset,
                size,
                waits.count(),
                waits.ptr(),
                ret_ptr(event),
                &mut status,
            )
        };
        (ptr, status)
    }

    /// `clEnqueueUnmapMemObject`.
    pub fn enqueue_unmap_mem_object(
        &self,
        queue: cl_command_queue,
        mem: cl_mem,
        mapped_ptr: *mut c_void,
        waits: Waits<'_>,
        event: Option<&mut cl_event>,
    ) -> cl_int {
        let f = entry!(self.clEnqueueUnmapMemObject);
        // SAFETY: `mapped_ptr` is only compared with the pointers maps returned; the wait
        // list holds `count` handles; `event` is NULL or a valid out-parameter.
        unsafe {
            f(
                queue,
                mem,
                mapped_ptr,
                waits.count(),
                waits.ptr(),
                ret_ptr(event),
            )
        }
    }

    /// `clEnqueueMigrateMemObjects` as called: `count` with the list (NULL for `None`).
    pub fn enqueue_migrate_mem_objects(
        &self,
        queue: cl_command_queue,
        count: cl_uint,
        objects: Option<&[cl_mem]>,
        flags: cl_mem_migration_flags,
        waits: Waits<'_>,
        event: Option<&mut cl_event>,
    ) -> cl_int {
        if let Some(objects) = objects {
            assert!(
                count as usize <= objects.len(),
                "the count exceeds the list"
            );
        }
        let f = entry!(self.clEnqueueMigrateMemObjects);
        // SAFETY: the object list is NULL or holds `count` handles (checked); the wait list
        // holds `count` handles; `event` is NULL or a valid out-parameter.
        unsafe {
            f(
                queue,
                count,
                objects.map_or(null(), <[cl_mem]>::as_ptr),
                flags,
                waits.count(),
                waits.ptr(),
                ret_ptr(event),
            )
        }
    }

    /// `clEnqueueMarkerWithWaitList`.
    pub fn enqueue_marker_with_wait_list(
        &self,
        queue: cl_command_queue,
        waits: Waits<'_>,
        event: Option<&mut cl_event>,
    ) -> cl_int {
        let f = entry!(self.clEnqueueMarkerWithWaitList);
        // SAFETY: the wait list holds `count` handles; `event` is NULL or valid.
        unsafe { f(queue, waits.count(), waits.ptr(), ret_ptr(event)) }
    }

    /// `clEnqueueBarrierWithWaitList`.
    pub fn enqueue_barrier_with_wait_list(
        &self,
        queue: cl_command_queue,
        waits: Waits<'_>,
        event: Option<&mut cl_event>,
    ) -> cl_int {
        let f = entry!(self.clEnqueueBarrierWithWaitList);
        // SAFETY: the wait list holds `count` handles; `event` is NULL or valid.
        unsafe { f(queue, waits.count(), waits.ptr(), ret_ptr(event)) }
    }

    /// `clEnqueueMarker` (OpenCL 1.1), with NULL for `None`.
    pub fn enqueue_marker(&self, queue: cl_command_queue, event: Option<&mut cl_event>) -> cl_int {
        let f = entry!(self.clEnqueueMarker);
        // SAFETY: `event` is NULL or a valid out-parameter.
        unsafe { f(queue, ret_ptr(event)) }
    }

    /// `clEnqueueBarrier` (OpenCL 1.1).
    pub fn enqueue_barrier(&self, queue: cl_command_queue) -> cl_int {
        let f = entry!(self.clEnqueueBarrier);
        // SAFETY: the handle follows the crate's handle contract; nothing else is passed.
        unsafe { f(queue) }
    }

    /// `clEnqueueWaitForEvents` (OpenCL 1.1) as called: `count` with the list (NULL for
    /// `None`).
    pub fn enqueue_wait_for_events(
        &self,
        queue: cl_command_queue,
        count: cl_uint,
        list: Option<&[cl_event]>,
    ) -> cl_int {
        if let Some(list) = list {
            assert!(count as usize <= list.len(), "the count exceeds the list");
        }
        let f = entry!(self.clEnqueueWaitForEvents);
        // SAFETY: the list is NULL or holds `count` handles (checked).
        unsafe { f(queue, count, list.map_or(null(), <[cl_event]>::as_ptr)) }
    }

    /// `clEnqueueNativeKernel` as called.
    ///
    /// # Safety
    /// `args` must be NULL or valid for `cb_args` bytes of reads during the call;
    /// `mem_list` and `args_mem_loc` NULL or valid for `num_mem_objects` reads, each
    /// location inside `args`; `user_func` must be sound to call with the copied block
    /// whenever the command runs.
    #[expect(clippy::too_many_arguments, reason = "the C signature")]
    pub unsafe fn enqueue_native_kernel(
        &self,
        queue: cl_command_queue,
        user_func: NativeKernel,
        args: *mut c_void,
        cb_args: usize,
        num_mem_objects: cl_uint,
        mem_list: *const cl_mem,
        args_mem_loc: *mut *const c_void,
        waits: Waits<'_>,
        event: Option<&mut cl_event>,
    ) -> cl_int {
        let f = entry!(self.clEnqueueNativeKernel);
        // SAFETY: the caller's contract; the wait list holds `count` handles; `event` is
        // NULL or a valid out-parameter.
        unsafe {
            f(
                queue,
                user_func,
                args,
                cb_args,
                num_mem_objects,
                mem_list,
                args_mem_loc,
                waits.count(),
                waits.ptr(),
                ret_ptr(event),
            )
        }
    }
}

/// Polls `done` every millisecond until it holds or `timeout` has passed; whether it held.
/// For what the spec lets happen asynchronously (callbacks), where a test may wait.
pub fn eventually(timeout: std::time::Duration, mut done: impl FnMut() -> bool) -> bool {
    let start = std::time::Instant::now();
    loop {
        if done() {
            return true;
        }
        if start.elapsed() >= timeout {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// Aborts the process with a message if it is still alive `limit` after being armed: a test
/// that could hang (a missed wake-up, a deadlock in a callback) fails instead. Dropping the
/// watchdog disarms it.
pub struct Watchdog {
    disarm: Option<std::sync::mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Watchdog {
    /// Arms a watchdog for `what`.
    pub fn arm(what: &str, limit: std::time::Duration) -> Watchdog {
        let (disarm, wait) = std::sync::mpsc::channel::<()>();
        let what = what.to_owned();
        let thread = std::thread::spawn(move || {
            if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = wait.recv_timeout(limit) {
                eprintln!("watchdog: {what} did not finish within {limit:?}; aborting");
                std::process::abort();
            }
        });
        Watchdog {
            disarm: Some(disarm),
            thread: Some(thread),
        }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        drop(self.disarm.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

// Programs and kernels.
//
// The same conventions: handles are opaque values, other pointers come from references and
// slices. Strings the API takes are `&CStr` (so that a test can pass exactly the bytes it
// means, options included).

plain!(u8, i8, u16, i16, f32, f64);

// SAFETY: an array of plain values has no padding between or around its elements, and any
// bits are valid for each element.
unsafe impl<T: Plain, const N: usize> Plain for [T; N] {}

/// The bytes of a slice of plain values, as a kernel argument or a buffer's contents.
pub fn bytes_of<T: Plain>(values: &[T]) -> &[u8] {
    // SAFETY: `T: Plain` has no padding, so every byte of the slice is initialised; the
    // length is the slice's size in bytes and the lifetime is the slice's.
    unsafe { std::slice::from_raw_parts(values.as_ptr().cast(), size_of_val(values)) }
}

/// `pfn_notify` of `clBuildProgram`, `clCompileProgram` and `clLinkProgram`.
pub type ProgramNotify = Option<unsafe extern "C" fn(cl_program, *mut c_void)>;

/// The pointer of an optional option string: NULL for `None`.
fn c_str_ptr(text: Option<&CStr>) -> *const c_char {
    text.map_or(null(), CStr::as_ptr)
}

/// The pointer of an optional list: NULL for `None`.
fn list_ptr<T>(list: Option<&[T]>) -> *const T {
    list.map_or(null(), <[T]>::as_ptr)
}

/// Asserts that a count passed with an input list fits in it.
fn within<T>(count: cl_uint, list: Option<&[T]>) {
    if let Some(list) = list {
        assert!(count as usize <= list.len(), "the count exceeds the list");
    }
}

/// Asserts that a work-size array given to `clEnqueueNDRangeKernel` holds `work_dim`
/// entries, so that the implementation's reads stay inside it.
fn sizes_ptr(work_dim: cl_uint, sizes: Option<&[usize]>) -> *const usize {
    if let Some(sizes) = sizes {
        assert!(
            work_dim as usize <= sizes.len(),
            "a work-size array needs work_dim entries"
        );
    }
    list_ptr(sizes)
}

#[expect(
    clippy::not_unsafe_ptr_arg_deref,
    reason = "handles are opaque values the implementation validates (see the crate docs)"
)]
impl Api {
    /// `clCreateProgramWithSource` as called; the program and the code written to
    /// `errcode_ret`.
    ///
    /// # Safety
    /// `strings` must be NULL or hold `count` entries, each NULL or valid for reads of its
    /// length in `lengths` (or NUL-terminated where `lengths` is NULL or the length is 0);
    /// `lengths` must be NULL or hold `count` entries.
    pub unsafe fn create_program_with_source_raw(
        &self,
        context: cl_context,
        count: cl_uint,
        strings: *const *const c_char,
        lengths: *const usize,
    ) -> (cl_program, cl_int) {
        let f = entry!(self.clCreateProgramWithSource);
        let mut status = CL_SUCCESS;
        // SAFETY: the caller's contract; `status` is a valid errcode_ret. The C prototype's
        // `strings` is `const char **`; the implementation only reads through it.
        let program = unsafe { f(context, count, strings.cast_mut(), lengths, &mut status) };
        (program, status)
    }

    /// A program from Rust strings, passed with their lengths (no NUL needed).
    pub fn create_program_with_source(
        &self,
        context: cl_context,
        sources: &[&str],
    ) -> Result<cl_program, cl_int> {
        let strings: Vec<*const c_char> = sources.iter().map(|s| s.as_ptr().cast()).collect();
        let lengths: Vec<usize> = sources.iter().map(|s| s.len()).collect();
        let count = cl_uint::try_from(sources.len()).expect("string count");
        // SAFETY: each string is valid for its length, both lists hold `count` entries.
        created(unsafe {
            self.create_program_with_source_raw(context, count, strings.as_ptr(), lengths.as_ptr())
        })
    }

    /// `clCreateProgramWithBinary` with one binary per device: the program (or the error)
    /// and each device's `binary_status`.
    pub fn create_program_with_binary(
        &self,
        context: cl_context,
        devices: &[cl_device_id],
        binaries: &[&[u8]],
    ) -> (Result<cl_program, cl_int>, Vec<cl_int>) {
        assert_eq!(devices.len(), binaries.len(), "one binary per device");
        let f = entry!(self.clCreateProgramWithBinary);
        let lengths: Vec<usize> = binaries.iter().map(|b| b.len()).collect();
        let mut pointers: Vec<*const u8> = binaries.iter().map(|b| b.as_ptr()).collect();
        let mut statuses = vec![1; devices.len()];
        let mut status = CL_SUCCESS;
        let count = cl_uint::try_from(devices.len()).expect("device count");
        // SAFETY: every list holds `count` entries and each binary is valid for its length;
        // `statuses` has room for `count` answers and `status` is a valid errcode_ret.
        let program = unsafe {
            f(
                context,
                count,
                devices.as_ptr(),
                lengths.as_ptr(),
                pointers.as_mut_ptr(),
                statuses.as_mut_ptr(),
                &mut status,
            )
        };
        (created((program, status)), statuses)
    }

    /// `CL_PROGRAM_BINARIES` of a program: one byte vector per device, sized by
    /// `CL_PROGRAM_BINARY_SIZES`.
    pub fn program_binaries(&self, program: cl_program) -> Result<Vec<Vec<u8>>, cl_int> {
        let sizes_bytes = self.program_info(program, CL_PROGRAM_BINARY_SIZES)?;
        let sizes: Vec<usize> = sizes_bytes
            .chunks_exact(size_of::<usize>())
            .map(|c| usize::from_ne_bytes(c.try_into().unwrap()))
            .collect();
        let mut binaries: Vec<Vec<u8>> = sizes.iter().map(|&n| vec![0u8; n]).collect();
        let mut pointers: Vec<*mut u8> = binaries.iter_mut().map(|b| b.as_mut_ptr()).collect();
        let f = entry!(self.clGetProgramInfo);
        // SAFETY: `pointers` holds one pointer per device, each to a buffer of that device's
        // binary size; the size passed is the array's.
        let status = unsafe {
            f(
                program,
                CL_PROGRAM_BINARIES,
                size_of_val(pointers.as_slice()),
                pointers.as_mut_ptr().cast(),
                std::ptr::null_mut(),
            )
        };
        if status == CL_SUCCESS {
            Ok(binaries)
        } else {
            Err(status)
        }
    }

    /// `clRetainProgram`.
    pub fn retain_program(&self, program: cl_program) -> cl_int {
        let f = entry!(self.clRetainProgram);
        // SAFETY: the handle follows the crate's handle contract; nothing else is passed.
        unsafe { f(program) }
    }

    /// `clReleaseProgram`.
    pub fn release_program(&self, program: cl_program) -> cl_int {
        let f = entry!(self.clReleaseProgram);
        // SAFETY: the handle follows the crate's handle contract; nothing else is passed.
        unsafe { f(program) }
    }

    /// `clBuildProgram` as called, with NULL for each `None`.
    ///
    /// # Safety
    /// `user_data` must stay valid for `pfn_notify` until it has been called (it may be
    /// called on any thread, before or after this call returns).
    pub unsafe fn build_program_raw(
        &self,
        program: cl_program,
        num_devices: cl_uint,
        devices: Option<&[cl_device_id]>,
        options: Option<&CStr>,
        pfn_notify: ProgramNotify,
        user_data: *mut c_void,
    ) -> cl_int {
        within(num_devices, devices);
        let f = entry!(self.clBuildProgram);
        // SAFETY: the device list is NULL or holds `num_devices` handles (checked); options
        // NULL or NUL-terminated; the caller's contract for `user_data`.
        unsafe {
            f(
                program,
                num_devices,
                list_ptr(devices),
                c_str_ptr(options),
                pfn_notify,
                user_data,
            )
        }
    }

    /// `clBuildProgram` for every device of the program, with `options` and no callback.
    pub fn build_program(&self, program: cl_program, options: &CStr) -> cl_int {
        // SAFETY: no callback, no user data.
        unsafe { self.build_program_raw(program, 0, None, Some(options), None, null_mut()) }
    }

    /// `clCompileProgram` as called, with NULL for each `None`.
    ///
    /// # Safety
    /// `header_names` must be NULL or hold `num_input_headers` entries, each NULL or a
    /// NUL-terminated string; `user_data` as for [`Api::build_program_raw`].
    #[expect(clippy::too_many_arguments, reason = "the C signature")]
    pub unsafe fn compile_program_raw(
        &self,
        program: cl_program,
        num_devices: cl_uint,
        devices: Option<&[cl_device_id]>,
        options: Option<&CStr>,
        num_input_headers: cl_uint,
        input_headers: Option<&[cl_program]>,
        header_names: *const *const c_char,
        pfn_notify: ProgramNotify,
        user_data: *mut c_void,
    ) -> cl_int {
        within(num_devices, devices);
        within(num_input_headers, input_headers);
        let f = entry!(self.clCompileProgram);
        // SAFETY: the lists are NULL or hold their counts (checked); the caller's contract
        // for the names and `user_data`. The implementation only reads `header_names`.
        unsafe {
            f(
                program,
                num_devices,
                list_ptr(devices),
                c_str_ptr(options),
                num_input_headers,
                list_ptr(input_headers),
                header_names.cast_mut(),
                pfn_notify,
                user_data,
            )
        }
    }

    /// `clCompileProgram` for every device of the program, with `options`, the embedded
    /// headers `(program, include name)` and no callback.
    pub fn compile_program(
        &self,
        program: cl_program,
        options: &CStr,
        headers: &[(cl_program, &CStr)],
    ) -> cl_int {
        let programs: Vec<cl_program> = headers.iter().map(|h| h.0).collect();
        let names: Vec<*const c_char> = headers.iter().map(|h| h.1.as_ptr()).collect();
        let count = cl_uint::try_from(headers.len()).expect("header count");
        let (input_headers, header_names) = if headers.is_empty() {
            (None, null())
        } else {
            (Some(programs.as_slice()), names.as_ptr())
        };
        // SAFETY: the names are NUL-terminated, one per header; no callback.
        unsafe {
            self.compile_program_raw(
                program,
                0,
                None,
                Some(options),
                count,
                input_headers,
                header_names,
                None,
                null_mut(),
            )
        }
    }

    /// `clLinkProgram` as called, with NULL for each `None`; the program and the code
    /// written to `errcode_ret`.
    ///
    /// # Safety
    /// `user_data` as for [`Api::build_program_raw`].
    #[expect(clippy::too_many_arguments, reason = "the C signature")]
    pub unsafe fn link_program_raw(
        &self,
        context: cl_context,
        num_devices: cl_uint,
        devices: Option<&[cl_device_id]>,
        options: Option<&CStr>,
        num_input_programs: cl_uint,
        input_programs: Option<&[cl_program]>,
        pfn_notify: ProgramNotify,
        user_data: *mut c_void,
    ) -> (cl_program, cl_int) {
        within(num_devices, devices);
        within(num_input_programs, input_programs);
        let f = entry!(self.clLinkProgram);
        let mut status = CL_SUCCESS;
        // SAFETY: the lists are NULL or hold their counts (checked); options NULL or
        // NUL-terminated; the caller's contract for `user_data`; valid errcode_ret.
        let program = unsafe {
            f(
                context,
                num_devices,
                list_ptr(devices),
                c_str_ptr(options),
                num_input_programs,
                list_ptr(input_programs),
                pfn_notify,
                user_data,
                &mut status,
            )
        };
        (program, status)
    }

    /// `clLinkProgram` of `inputs` for every device of `context`, with `options` and no
    /// callback.
    pub fn link_program(
        &self,
        context: cl_context,
        options: &CStr,
        inputs: &[cl_program],
    ) -> Result<cl_program, cl_int> {
        let count = cl_uint::try_from(inputs.len()).expect("input count");
        // SAFETY: no callback, no user data.
        created(unsafe {
            self.link_program_raw(
                context,
                0,
                None,
                Some(options),
                count,
                Some(inputs),
                None,
                null_mut(),
            )
        })
    }

    /// The bytes of a program info answer, by [`info_bytes`].
    pub fn program_info(
        &self,
        program: cl_program,
        param: cl_program_info,
    ) -> Result<Vec<u8>, cl_int> {
        let f = entry!(self.clGetProgramInfo);
        // SAFETY: `info_bytes` passes a buffer of the size it states and a valid size_ret.
        info_bytes(|size, value, ret| unsafe { f(program, param, size, value, ret) })
    }

    /// The bytes of a program build info answer, by [`info_bytes`].
    pub fn program_build_info(
        &self,
        program: cl_program,
        device: cl_device_id,
        param: cl_program_build_info,
    ) -> Result<Vec<u8>, cl_int> {
        let f = entry!(self.clGetProgramBuildInfo);
        // SAFETY: `info_bytes` passes a buffer of the size it states and a valid size_ret.
        info_bytes(|size, value, ret| unsafe { f(program, device, param, size, value, ret) })
    }

    /// `CL_PROGRAM_BUILD_LOG` for `device` (panics on error).
    pub fn build_log(&self, program: cl_program, device: cl_device_id) -> String {
        string(
            &self
                .program_build_info(program, device, CL_PROGRAM_BUILD_LOG)
                .unwrap_or_else(|e| panic!("clGetProgramBuildInfo(BUILD_LOG) failed: {e}")),
        )
    }

    /// `CL_PROGRAM_BUILD_STATUS` for `device` (panics on error).
    pub fn build_status(&self, program: cl_program, device: cl_device_id) -> cl_build_status {
        scalar(
            &self
                .program_build_info(program, device, CL_PROGRAM_BUILD_STATUS)
                .unwrap_or_else(|e| panic!("clGetProgramBuildInfo(BUILD_STATUS) failed: {e}")),
        )
    }

    /// `clCreateKernel` as called, with NULL for `None`; the kernel and the code written to
    /// `errcode_ret`.
    pub fn create_kernel_raw(
        &self,
        program: cl_program,
        name: Option<&CStr>,
    ) -> (cl_kernel, cl_int) {
        let f = entry!(self.clCreateKernel);
        let mut status = CL_SUCCESS;
        // SAFETY: the name is NULL or NUL-terminated; `status` is a valid errcode_ret.
        let kernel = unsafe { f(program, c_str_ptr(name), &mut status) };
        (kernel, status)
    }

    /// The kernel `name` of a built program.
    pub fn create_kernel(&self, program: cl_program, name: &CStr) -> Result<cl_kernel, cl_int> {
        created(self.create_kernel_raw(program, Some(name)))
    }

    /// `clCreateKernelsInProgram` as called, with NULL for each `None`.
    pub fn create_kernels_in_program_raw(
        &self,
        program: cl_program,
        num_kernels: cl_uint,
        kernels: Option<&mut [cl_kernel]>,
        num_kernels_ret: Option<&mut cl_uint>,
    ) -> cl_int {
        fits(num_kernels, &kernels);
        let f = entry!(self.clCreateKernelsInProgram);
        // SAFETY: `kernels` is NULL or holds at least `num_kernels` entries (checked);
        // `num_kernels_ret` NULL or valid.
        unsafe {
            f(
                program,
                num_kernels,
                out_ptr(kernels),
                ret_ptr(num_kernels_ret),
            )
        }
    }

    /// `clRetainKernel`.
    pub fn retain_kernel(&self, kernel: cl_kernel) -> cl_int {
        let f = entry!(self.clRetainKernel);
        // SAFETY: the handle follows the crate's handle contract; nothing else is passed.
        unsafe { f(kernel) }
    }

    /// `clReleaseKernel`.
    pub fn release_kernel(&self, kernel: cl_kernel) -> cl_int {
        let f = entry!(self.clReleaseKernel);
        // SAFETY: the handle follows the crate's handle contract; nothing else is passed.
        unsafe { f(kernel) }
    }

    /// `clSetKernelArg` with `size` given apart from the value (NULL for `None`), so that
    /// sizes the value does not have can be passed; a size larger than a given value panics.
    pub fn set_kernel_arg_raw(
        &self,
        kernel: cl_kernel,
        index: cl_uint,
        size: usize,
        value: Option<&[u8]>,
    ) -> cl_int {
        if let Some(value) = value {
            assert!(size <= value.len(), "arg_size exceeds the value");
        }
        let f = entry!(self.clSetKernelArg);
        // SAFETY: the value is NULL or holds `size` bytes (checked), read during the call.
        unsafe {
            f(
                kernel,
                index,
                size,
                value.map_or(null(), |v| v.as_ptr().cast()),
            )
        }
    }

    /// `clSetKernelArg` with the bytes of `value`.
    pub fn set_kernel_arg<T: Plain>(&self, kernel: cl_kernel, index: cl_uint, value: T) -> cl_int {
        self.set_kernel_arg_raw(
            kernel,
            index,
            size_of::<T>(),
            Some(bytes_of(std::slice::from_ref(&value))),
        )
    }

    /// `clSetKernelArg` of a memory object (a `cl_mem` value; NULL passes a NULL buffer).
    pub fn set_kernel_arg_mem(&self, kernel: cl_kernel, index: cl_uint, mem: cl_mem) -> cl_int {
        self.set_kernel_arg(kernel, index, mem.cast::<c_void>())
    }

    /// `clSetKernelArg` of a `__local` argument: `size` bytes and a NULL value.
    pub fn set_kernel_arg_local(&self, kernel: cl_kernel, index: cl_uint, size: usize) -> cl_int {
        self.set_kernel_arg_raw(kernel, index, size, None)
    }

    /// The bytes of a kernel info answer, by [`info_bytes`].
    pub fn kernel_info(&self, kernel: cl_kernel, param: cl_kernel_info) -> Result<Vec<u8>, cl_int> {
        let f = entry!(self.clGetKernelInfo);
        // SAFETY: `info_bytes` passes a buffer of the size it states and a valid size_ret.
        info_bytes(|size, value, ret| unsafe { f(kernel, param, size, value, ret) })
    }

    /// The bytes of a kernel work-group info answer, by [`info_bytes`].
    pub fn kernel_work_group_info(
        &self,
        kernel: cl_kernel,
        device: cl_device_id,
        param: cl_kernel_work_group_info,
    ) -> Result<Vec<u8>, cl_int> {
        let f = entry!(self.clGetKernelWorkGroupInfo);
        // SAFETY: `info_bytes` passes a buffer of the size it states and a valid size_ret.
        info_bytes(|size, value, ret| unsafe { f(kernel, device, param, size, value, ret) })
    }

    /// The bytes of a kernel argument info answer, by [`info_bytes`].
    pub fn kernel_arg_info(
        &self,
        kernel: cl_kernel,
        index: cl_uint,
        param: cl_kernel_arg_info,
    ) -> Result<Vec<u8>, cl_int> {
        let f = entry!(self.clGetKernelArgInfo);
        // SAFETY: `info_bytes` passes a buffer of the size it states and a valid size_ret.
        info_bytes(|size, value, ret| unsafe { f(kernel, index, param, size, value, ret) })
    }

    /// `clEnqueueNDRangeKernel`, with NULL for each `None` array; each given array must hold
    /// `work_dim` entries.
    #[expect(clippy::too_many_arguments, reason = "the C signature")]
    pub fn enqueue_nd_range_kernel(
        &self,
        queue: cl_command_queue,
        kernel: cl_kernel,
        work_dim: cl_uint,
        offset: Option<&[usize]>,
        global: Option<&[usize]>,
        local: Option<&[usize]>,
        waits: Waits<'_>,
        event: Option<&mut cl_event>,
    ) -> cl_int {
        let f = entry!(self.clEnqueueNDRangeKernel);
        let (offset, global, local) = (
            sizes_ptr(work_dim, offset),
            sizes_ptr(work_dim, global),
            sizes_ptr(work_dim, local),
        );
        // SAFETY: each array is NULL or holds `work_dim` entries (checked); the wait list
        // holds `count` handles; `event` is NULL or a valid out-parameter.
        unsafe {
            f(
                queue,
                kernel,
                work_dim,
                offset,
                global,
                local,
                waits.count(),
                waits.ptr(),
                ret_ptr(event),
            )
        }
    }

    /// `clEnqueueTask`.
    pub fn enqueue_task(
        &self,
        queue: cl_command_queue,
        kernel: cl_kernel,
        waits: Waits<'_>,
        event: Option<&mut cl_event>,
    ) -> cl_int {
        let f = entry!(self.clEnqueueTask);
        // SAFETY: the wait list holds `count` handles; `event` is NULL or valid.
        unsafe { f(queue, kernel, waits.count(), waits.ptr(), ret_ptr(event)) }
    }
}
