//! Contexts: a set of devices and the callback errors are reported to.

use std::sync::Arc;

use khronos_headers::cl_context_properties;

use crate::device::Device;
use crate::object::{ClObject, Header, ObjectKind};

/// The `pfn_notify` of `clCreateContext`, wrapped by the C layer: called with the error
/// message ("it is the application's responsibility to ensure that the callback function
/// is thread-safe").
pub type NotifyCallback = Box<dyn Fn(&str) + Send + Sync>;

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
        if let Some(notify) = &self.notify {
            notify(message);
        }
    }
}
