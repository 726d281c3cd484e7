//! The header every OpenCL object starts with, and the API reference count.
//!
//! `cl_khr_icd` requires that the first word of every handle is a pointer to the vendor's
//! dispatch table: the loader reads it to route each call. The runtime knows nothing of the
//! table's contents (that is the ICD layer's), only where it is, so the ICD installs it once,
//! before it creates the platform, and every object created afterwards carries it.
//!
//! Each object lives in an `Arc`. The C handle owns one strong count; `clRetain*`/`clRelease*`
//! move the separate *API* count below, and only when that reaches zero is the handle's strong
//! count given back. Internal references (a queue's context, a command's buffers) keep the
//! object alive beyond that without showing up in `CL_*_REFERENCE_COUNT`, which the
//! conformance tests expect to count only the application's retains.

use std::ffi::c_void;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

use khronos_headers::IcdDispatch;

/// The kind of an OpenCL object: the type tag checked after the dispatch pointer.
///
/// The values are arbitrary but distinctive, so that a pointer to some other memory is
/// unlikely to pass as an object.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ObjectKind {
    Platform = 0xC1F7_0001,
    Device = 0xC1F7_0002,
    Context = 0xC1F7_0003,
    CommandQueue = 0xC1F7_0004,
    Mem = 0xC1F7_0005,
    Sampler = 0xC1F7_0006,
    Program = 0xC1F7_0007,
    Kernel = 0xC1F7_0008,
    Event = 0xC1F7_0009,
}

/// The table installed by the ICD layer; objects made before it (in unit tests of the
/// runtime alone) carry a null dispatch pointer.
static DISPATCH: OnceLock<&'static IcdDispatch> = OnceLock::new();

/// Installs the ICD dispatch table that every object created from now on points to.
/// Later calls with another table are ignored: there is one table per loaded library.
pub fn install_dispatch(table: &'static IcdDispatch) {
    let _ = DISPATCH.set(table);
}

/// The installed dispatch table, if any.
pub fn installed_dispatch() -> Option<&'static IcdDispatch> {
    DISPATCH.get().copied()
}

/// The first field of every object (`#[repr(C)]`, so the dispatch pointer is the first word).
#[repr(C)]
#[derive(Debug)]
pub struct Header {
    dispatch: *const IcdDispatch,
    /// An `ObjectKind` as its raw value: the header of a foreign object may hold anything,
    /// and reading an invalid enum value would be undefined behaviour.
    kind: u32,
    api_refs: AtomicU32,
}

// SAFETY: `dispatch` points to a `'static`, immutable table; the other fields are plain data
// or atomics.
unsafe impl Send for Header {}
// SAFETY: as above; nothing in the header is mutated except through atomics.
unsafe impl Sync for Header {}

impl Header {
    /// A header for a new object of `kind`, with an API reference count of one (the handle
    /// the creating call returns).
    pub fn new(kind: ObjectKind) -> Header {
        let dispatch = installed_dispatch().map_or(std::ptr::null(), |t| t as *const _);
        Header {
            dispatch,
            kind: kind as u32,
            api_refs: AtomicU32::new(1),
        }
    }

    /// The dispatch pointer as the loader sees it.
    pub fn dispatch(&self) -> *const IcdDispatch {
        self.dispatch
    }

    /// Whether this header begins an object of `kind`.
    pub fn is(&self, kind: ObjectKind) -> bool {
        self.kind == kind as u32
    }

    /// The application's reference count (`CL_*_REFERENCE_COUNT`).
    pub fn api_refs(&self) -> u32 {
        self.api_refs.load(Ordering::Acquire)
    }

    /// `clRetain*`: one more application reference.
    pub fn api_retain(&self) {
        self.api_refs.fetch_add(1, Ordering::AcqRel);
    }

    /// `clRelease*`: one application reference fewer. Returns true when that was the last,
    /// so the caller gives back the strong count its handle owned.
    pub fn api_release(&self) -> bool {
        self.api_refs.fetch_sub(1, Ordering::AcqRel) == 1
    }
}

/// A runtime object that can be handed out as an OpenCL handle.
///
/// # Safety
/// Implementors must be `#[repr(C)]` with a [`Header`] as their first field, so a pointer to
/// the object is also a pointer to its header (and its first word the dispatch pointer).
pub unsafe trait ClObject: Send + Sync + 'static {
    const KIND: ObjectKind;
    fn header(&self) -> &Header;
}

/// The address of an object as an untyped handle (what the C API stores and compares).
pub fn handle_of<T: ClObject>(object: &T) -> *mut c_void {
    object as *const T as *mut c_void
}
