//! The application's callbacks, made Rust closures for the runtime.
//!
//! The runtime calls no C function pointer: each `pfn_notify` / `user_func` is wrapped here
//! with the pointers it is to receive (its `user_data`, the handle of its object), so the
//! runtime only calls a closure with the values it computes (a status, a message, an
//! argument block).

use std::ffi::{CString, c_char, c_void};

use clift_runtime::command::native::NativeFn;
use clift_runtime::context::NotifyCallback;
use clift_runtime::event::EventCallback;
use clift_runtime::memory::DestructorCallback;
use khronos_headers::*;

/// A pointer the application gave to be handed back to its callback (`user_data`, or the
/// handle of the object the callback is about), carried inside a closure.
#[derive(Clone, Copy)]
struct Opaque(*mut c_void);

// SAFETY: the spec makes the application's callback responsible for being callable from any
// thread ("it is the application's responsibility to ensure that the callback function is
// thread-safe"); the pointer is only passed back to it, never dereferenced by clift.
unsafe impl Send for Opaque {}
// SAFETY: as above.
unsafe impl Sync for Opaque {}

impl Opaque {
    /// The pointer (a method, so that closures capture the whole `Send` wrapper).
    fn get(self) -> *mut c_void {
        self.0
    }
}

/// The C type of `clCreateContext`'s `pfn_notify`.
pub(crate) type ContextNotifyFn =
    unsafe extern "C" fn(*const c_char, *const c_void, usize, *mut c_void);

/// `clCreateContext`'s `pfn_notify`: called with the error text as a C string (cut at an
/// interior NUL, which a C string cannot carry), no private data, and `user_data`.
pub(crate) fn context_notify(func: ContextNotifyFn, user_data: *mut c_void) -> NotifyCallback {
    let user_data = Opaque(user_data);
    Box::new(move |message: &str| {
        let text = message.split('\0').next().unwrap_or_default();
        let text = CString::new(text).unwrap_or_default();
        // SAFETY: the application's callback; the spec defines its arguments as an error
        // string, optional private data (none here) and the user's data pointer.
        unsafe { func(text.as_ptr(), std::ptr::null(), 0, user_data.get()) };
    })
}

/// `clSetEventCallback`'s `pfn_notify` for the event `event`.
pub(crate) fn event_callback(
    func: unsafe extern "C" fn(cl_event, cl_int, *mut c_void),
    event: cl_event,
    user_data: *mut c_void,
) -> EventCallback {
    let (event, user_data) = (Opaque(event), Opaque(user_data));
    Box::new(move |status| {
        // SAFETY: the application's callback with the arguments the spec defines: the
        // event, its status, the user's data pointer.
        unsafe { func(event.get(), status, user_data.get()) };
    })
}

/// `clSetMemObjectDestructorCallback`'s `pfn_notify` for the object `mem` (called after
/// the object's resources are released; the handle is only reported back).
pub(crate) fn mem_destructor(
    func: unsafe extern "C" fn(cl_mem, *mut c_void),
    mem: cl_mem,
    user_data: *mut c_void,
) -> DestructorCallback {
    let (mem, user_data) = (Opaque(mem), Opaque(user_data));
    Box::new(move || {
        // SAFETY: the application's callback with the arguments the spec defines.
        unsafe { func(mem.get(), user_data.get()) };
    })
}

/// `clEnqueueNativeKernel`'s `user_func`, called with the argument block.
pub(crate) fn native_kernel(func: unsafe extern "C" fn(*mut c_void)) -> NativeFn {
    Box::new(move |args| {
        // SAFETY: the application's function, called with its argument block as the spec
        // describes, memory objects replaced by pointers to their storage.
        unsafe { func(args) };
    })
}
