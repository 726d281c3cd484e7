//! Contexts: a set of devices and the callback errors are reported to.

use std::ffi::{CString, c_char, c_void};
use std::sync::Arc;

use khronos_headers::cl_context_properties;

use crate::device::Device;
use crate::object::{ClObject, Header, ObjectKind};

/// The `pfn_notify` of `clCreateContext` with its `user_data`.
#[derive(Clone, Copy, Debug)]
pub struct NotifyCallback {
    pub func: unsafe extern "C" fn(*const c_char, *const c_void, usize, *mut c_void),
    pub user_data: *mut c_void,
}

// SAFETY: the spec requires the application's callback to be thread-safe ("it is the
// application's responsibility to ensure that the callback function is thread-safe"), and
// `user_data` is only passed back to it.
unsafe impl Send for NotifyCallback {}
// SAFETY: as above.
unsafe impl Sync for NotifyCallback {}

/// What `clCreateContext`'s property list said, once validated.
#[derive(Clone, Debug, Default)]
pub struct ContextProperties {
    /// The list exactly as given, terminating zero included (empty when NULL was passed):
    /// `CL_CONTEXT_PROPERTIES` returns it.
    pub raw: Vec<cl_context_properties>,
    /// `CL_CONTEXT_INTEROP_USER_SYNC`.
    pub interop_user_sync: bool,
}

#[repr(C)]
pub struct Context {
    header: Header,
    devices: Vec<Arc<Device>>,
    properties: ContextProperties,
    notify: Option<NotifyCallback>,
}

// SAFETY: `Context` is `#[repr(C)]` with its `Header` first.
unsafe impl ClObject for Context {
    const KIND: ObjectKind = ObjectKind::Context;
    fn header(&self) -> &Header {
        &self.header
    }
}

impl Context {
    /// A context over `devices` (already validated and free of duplicates).
    pub fn new(
        devices: Vec<Arc<Device>>,
        properties: ContextProperties,
        notify: Option<NotifyCallback>,
    ) -> Arc<Context> {
        Arc::new(Context {
            header: Header::new(ObjectKind::Context),
            devices,
            properties,
            notify,
        })
    }

    pub fn devices(&self) -> &[Arc<Device>] {
        &self.devices
    }

    pub fn properties(&self) -> &ContextProperties {
        &self.properties
    }

    /// Whether `device` belongs to this context.
    pub fn has_device(&self, device: &Device) -> bool {
        self.devices
            .iter()
            .any(|d| std::ptr::eq(Arc::as_ptr(d), device))
    }

    /// Reports an error to the application's callback, if it gave one.
    pub fn notify(&self, message: &str) {
        let Some(cb) = self.notify else { return };
        // An interior NUL cannot be passed through a C string; cut the message there.
        let text = message.split('\0').next().unwrap_or_default();
        let text = CString::new(text).unwrap_or_default();
        // SAFETY: `func` is the application's callback; the spec defines its arguments as an
        // error string, optional private data (none here) and the user's data pointer.
        unsafe { (cb.func)(text.as_ptr(), std::ptr::null(), 0, cb.user_data) };
    }
}
