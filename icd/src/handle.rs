//! Handles: the C view of runtime objects.
//!
//! A handle is the address of an object inside its `Arc`. Before a handle is used it is
//! checked in the order the loader's contract allows: not NULL, first word is our dispatch
//! table, the type tag matches, and the application still holds a reference. Anything else
//! gets the spec's `CL_INVALID_<OBJECT>` code.

use std::ffi::c_void;
use std::sync::Arc;

use clift_runtime::context::Context;
use clift_runtime::device::Device;
use clift_runtime::event::Event;
use clift_runtime::kernel::Kernel;
use clift_runtime::memory::Mem;
use clift_runtime::object::{ClObject, Header};
use clift_runtime::platform::Platform;
use clift_runtime::program::Program;
use clift_runtime::queue::Queue;
use clift_runtime::sampler::Sampler;
use clift_runtime::{ClResult, fail};
use khronos_headers::*;

/// A runtime object that the C API names by handle.
///
/// The API's handle types (`cl_context`, `cl_device_id`, ...) are all untyped pointers in the
/// ICD's function types, so the expected object type is named at each validation instead.
pub(crate) trait Handled: ClObject {
    /// The error for a handle that is not a valid object of this type.
    const INVALID: cl_int;
}

macro_rules! handled {
    ($($object:ty => $invalid:expr;)*) => { $(
        impl Handled for $object {
            const INVALID: cl_int = $invalid;
        }
    )* };
}

handled! {
    Platform => CL_INVALID_PLATFORM;
    Device => CL_INVALID_DEVICE;
    Context => CL_INVALID_CONTEXT;
    Queue => CL_INVALID_COMMAND_QUEUE;
    Mem => CL_INVALID_MEM_OBJECT;
    Event => CL_INVALID_EVENT;
    Kernel => CL_INVALID_KERNEL;
    Program => CL_INVALID_PROGRAM;
    Sampler => CL_INVALID_SAMPLER;
}

/// The object behind `handle`, borrowed for the duration of the call.
///
/// The spec leaves passing anything but a live handle (or NULL) undefined; what can be
/// checked without trusting the pointer further is checked, in order.
pub(crate) fn object<'a, T: Handled>(raw: *mut c_void) -> ClResult<&'a T> {
    if raw.is_null() {
        return fail(T::INVALID);
    }
    // SAFETY: the application passed this as a handle; every clift object begins with a
    // `Header` (`ClObject`'s contract), and any ICD object begins with a dispatch pointer, so
    // the first word can be read. The rest of the header is read only once the dispatch
    // pointer proved the object is ours.
    let header = unsafe { &*raw.cast::<Header>() };
    if !crate::dispatch::is_ours(header.dispatch()) {
        return fail(T::INVALID);
    }
    if !header.is(T::KIND) || header.api_refs() == 0 {
        return fail(T::INVALID);
    }
    // SAFETY: the tag says this header begins an `H::Object`.
    Ok(unsafe { &*raw.cast::<T>() })
}

/// Like [`object`], but a new strong reference, for objects that will be kept.
pub(crate) fn shared<T: Handled>(raw: *mut c_void) -> ClResult<Arc<T>> {
    let object = object::<T>(raw)?;
    let ptr: *const T = object;
    // SAFETY: objects handed out as handles (other than the platform, which has no
    // `ClHandle` use through this function) live in an `Arc` whose strong count the handle
    // holds, so adding one and re-forming an `Arc` is sound.
    unsafe {
        Arc::increment_strong_count(ptr);
        Ok(Arc::from_raw(ptr))
    }
}

/// Like [`shared`], but the handle's own strong reference, borrowed for the duration of the
/// call as [`object`] borrows it: for the hot paths (a kernel launch) that need an `Arc` to
/// clone from only sometimes. Adding and dropping a reference on every call costs two
/// atomic operations on a cache line that worker threads write too (they drop what a
/// command held).
pub(crate) fn borrowed<T: Handled>(raw: *mut c_void) -> ClResult<std::mem::ManuallyDrop<Arc<T>>> {
    let object = object::<T>(raw)?;
    // SAFETY: as in `shared`, the object lives in an `Arc` whose strong count the handle
    // holds; the `Arc` formed here is never dropped (`ManuallyDrop`), so it borrows that count
    // for as long as the application keeps the handle valid, which it must for the call.
    Ok(std::mem::ManuallyDrop::new(unsafe {
        Arc::from_raw(object as *const T)
    }))
}

/// A handle for a newly created object: the handle owns one strong count and one API
/// reference (set when the object's header was made).
pub(crate) fn new_handle<T: Handled>(object: Arc<T>) -> *mut c_void {
    Arc::into_raw(object).cast_mut().cast()
}

/// The handle of an object the runtime already holds (no new reference: info queries such
/// as `CL_DEVICE_PARENT_DEVICE` return handles without retaining them).
pub(crate) fn handle_of<T: Handled>(object: &T) -> *mut c_void {
    clift_runtime::object::handle_of(object)
}

/// `clRetain*`.
pub(crate) fn retain<T: Handled>(raw: *mut c_void) -> ClResult<()> {
    object::<T>(raw)?.header().api_retain();
    Ok(())
}

/// `clRelease*`: the last application reference gives back the handle's strong count.
pub(crate) fn release<T: Handled>(raw: *mut c_void) -> ClResult<()> {
    let object = object::<T>(raw)?;
    if object.header().api_release() {
        // SAFETY: the handle was made by `new_handle` from `Arc::into_raw`, and this was the
        // application's last reference, so the strong count the handle owned is given back
        // exactly once.
        unsafe { Arc::decrement_strong_count(object as *const T) };
    }
    Ok(())
}

/// Validates an array of `count` handles given with its length, as many `clCreate*` and
/// `clEnqueue*` calls take them. NULL with a count, or a count without a list, is
/// `CL_INVALID_VALUE`.
///
/// # Safety
/// `list` must be NULL or valid for `count` reads.
pub(crate) unsafe fn objects<T: Handled>(
    list: *const *mut c_void,
    count: cl_uint,
) -> ClResult<Vec<Arc<T>>> {
    if list.is_null() || count == 0 {
        return fail(CL_INVALID_VALUE);
    }
    // SAFETY: the caller's contract.
    let handles = unsafe { std::slice::from_raw_parts(list, count as usize) };
    handles.iter().map(|&h| shared::<T>(h)).collect()
}
